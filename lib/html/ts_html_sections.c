/*
 * ts_html_sections — the data island's sections after the checks (see
 * ts_html_internal.h): the names two tests claimed, the repeats, the flaky
 * names (the report's "flaky" section when it has one, else the repeats
 * whose observations varied: more than one distinct call list, or some
 * passed and some failed), and the orphans.
 */
#include "ts_html_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int bad(ts_error *err, const char *where, const char *what)
{
    return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "%s: %s", where, what);
}

static bool strings(const struct json_object *a)
{
    for (size_t i = 0; i < json_object_array_length(a); i++) {
        if (!json_object_is_type(json_object_array_get_idx(a, i), json_type_string))
            return false;
    }
    return true;
}

/* [[name, [tests]]] */
static int duplicates(const struct json_object *report, struct json_object *island, ts_error *err)
{
    struct json_object *dups, *out = json_object_new_array();
    char where[40];
    int rc = tsh_member(report, "duplicates", json_type_array, TSH_OPTIONAL, "", &dups, err);

    json_object_object_add(island, "duplicates", out);
    for (size_t i = 0; rc == 0 && dups != NULL && i < json_object_array_length(dups); i++) {
        struct json_object *d = json_object_array_get_idx(dups, i);
        struct json_object *name, *tests, *e;

        snprintf(where, sizeof(where), "duplicates[%zu]", i);
        if (!json_object_is_type(d, json_type_object))
            return bad(err, where, "must be an object");
        rc = tsh_member(d, "name", json_type_string, 0, where, &name, err);
        if (rc == 0)
            rc = tsh_member(d, "tests", json_type_array, 0, where, &tests, err);
        if (rc == 0 && !strings(tests))
            rc = bad(err, where, "tests must hold strings");
        if (rc < 0)
            return rc;
        e = json_object_new_array_ext(2);
        json_object_array_add(e, json_object_get(name));
        json_object_array_add(e, json_object_get(tests));
        json_object_array_add(out, e);
    }
    return rc;
}

/* An "outcomes" object: outcome names to counts. */
static bool outcome_counts(const struct json_object *o)
{
    if (!json_object_is_type(o, json_type_object))
        return false;
    json_object_object_foreach((struct json_object *)o, key, val)
    {
        (void)key;
        if (!json_object_is_type(val, json_type_int))
            return false;
    }
    return true;
}

/* One repeat as [name, observations, k, pass^k, pass@k, unlisted,
 * outcomes, [[id, count, outcomes]]], its lists' calls into calls; *flaky
 * when its observations varied. */
static int repeat(const struct json_object *r, const char *where, struct json_object *calls,
                  struct json_object **out, bool *flaky, ts_error *err)
{
    static const char *const ints[] = {"observations", "k", "unlisted"};
    struct json_object *name, *lists, *outcomes, *v, *e, *ls;
    struct json_object *pass_all = NULL, *pass_any = NULL;
    char lwhere[96];
    int rc = tsh_member(r, "name", json_type_string, 0, where, &name, err);

    *out = NULL;
    if (rc == 0)
        rc = tsh_member(r, "lists", json_type_array, 0, where, &lists, err);
    if (rc == 0)
        rc = tsh_member(r, "outcomes", json_type_object, 0, where, &outcomes, err);
    if (rc == 0)
        rc = tsh_member(r, "pass^k", json_type_boolean, TSH_NULLABLE | TSH_OPTIONAL, where,
                        &pass_all, err);
    if (rc == 0)
        rc = tsh_member(r, "pass@k", json_type_boolean, TSH_NULLABLE | TSH_OPTIONAL, where,
                        &pass_any, err);
    if (rc == 0 && !outcome_counts(outcomes))
        rc = bad(err, where, "outcomes must map outcomes to counts");
    if (rc < 0)
        return rc;
    e = json_object_new_array_ext(8);
    json_object_array_add(e, json_object_get(name));
    for (size_t i = 0; i < 3; i++) {
        rc = tsh_member(r, ints[i], json_type_int, TSH_OPTIONAL, where, &v, err);
        if (rc < 0) {
            json_object_put(e);
            return rc;
        }
        json_object_array_add(e, json_object_new_int64(v != NULL ? json_object_get_int64(v) : 0));
        if (i == 1) {
            json_object_array_add(e, json_object_get(pass_all));
            json_object_array_add(e, json_object_get(pass_any));
        }
    }
    json_object_array_add(e, json_object_get(outcomes));
    ls = json_object_new_array();
    json_object_array_add(e, ls);
    *out = e;
    for (size_t i = 0; i < json_object_array_length(lists); i++) {
        struct json_object *l = json_object_array_get_idx(lists, i);
        struct json_object *id, *count, *lo, *lcalls, *le;

        snprintf(lwhere, sizeof(lwhere), "%s.lists[%zu]", where, i);
        if (!json_object_is_type(l, json_type_object))
            return bad(err, lwhere, "must be an object");
        rc = tsh_member(l, "id", json_type_string, 0, lwhere, &id, err);
        if (rc == 0)
            rc = tsh_member(l, "count", json_type_int, 0, lwhere, &count, err);
        if (rc == 0)
            rc = tsh_member(l, "outcomes", json_type_object, 0, lwhere, &lo, err);
        if (rc == 0)
            rc = tsh_member(l, "calls", json_type_array, TSH_NULLABLE | TSH_OPTIONAL, lwhere,
                            &lcalls, err);
        if (rc == 0 && (json_object_get_string_len(id) != 16 ||
                        strspn(json_object_get_string(id), "0123456789abcdef") != 16))
            rc = bad(err, lwhere, "id must be 16 lower-case hex digits");
        if (rc == 0 && !outcome_counts(lo))
            rc = bad(err, lwhere, "outcomes must map outcomes to counts");
        if (rc < 0)
            return rc;
        le = json_object_new_array_ext(3);
        json_object_array_add(le, json_object_get(id));
        json_object_array_add(le, json_object_get(count));
        json_object_array_add(le, json_object_get(lo));
        json_object_array_add(ls, le);
        if (lcalls != NULL && !json_object_object_get_ex(calls, json_object_get_string(id), NULL))
            json_object_object_add(calls, json_object_get_string(id), json_object_get(lcalls));
    }
    *flaky = json_object_array_length(lists) > 1 ||
             (pass_all != NULL && pass_any != NULL && !json_object_get_boolean(pass_all) &&
              json_object_get_boolean(pass_any));
    return 0;
}

static int repeats(const struct json_object *report, struct json_object *island,
                   struct json_object *names, ts_error *err)
{
    struct json_object *reps, *out = json_object_new_array();
    struct json_object *calls = json_object_object_get(island, "calls");
    char where[40];
    int rc = tsh_member(report, "repeats", json_type_array, TSH_OPTIONAL, "", &reps, err);

    json_object_object_add(island, "repeats", out);
    for (size_t i = 0; rc == 0 && reps != NULL && i < json_object_array_length(reps); i++) {
        struct json_object *r = json_object_array_get_idx(reps, i);
        struct json_object *e = NULL;
        bool flaky = false;

        snprintf(where, sizeof(where), "repeats[%zu]", i);
        rc = json_object_is_type(r, json_type_object) ? repeat(r, where, calls, &e, &flaky, err)
                                                      : bad(err, where, "must be an object");
        if (e != NULL)
            json_object_array_add(out, e);
        if (rc == 0 && flaky && names != NULL)
            json_object_array_add(names, json_object_get(json_object_array_get_idx(e, 0)));
    }
    return rc;
}

/* The report's flaky section (its entries' names into names); the page
 * shows what each entry holds and reads every member with care. */
static int flaky(const struct json_object *report, struct json_object *island,
                 struct json_object *names, ts_error *err)
{
    struct json_object *f;
    char where[32];
    int rc = tsh_member(report, "flaky", json_type_array, TSH_OPTIONAL | TSH_NULLABLE, "", &f, err);

    json_object_object_add(island, "flaky", f != NULL ? json_object_get(f) : NULL);
    for (size_t i = 0; rc == 0 && f != NULL && i < json_object_array_length(f); i++) {
        struct json_object *e = json_object_array_get_idx(f, i);
        struct json_object *name;

        snprintf(where, sizeof(where), "flaky[%zu]", i);
        rc = json_object_is_type(e, json_type_object)
                 ? tsh_member(e, "name", json_type_string, 0, where, &name, err)
                 : bad(err, where, "must be an object");
        if (rc == 0)
            json_object_array_add(names, json_object_get(name));
    }
    return rc;
}

int tsh_island_sections(const struct json_object *report, const ts_html_options *opt,
                        struct json_object *island, tsh_counts *counts, ts_error *err)
{
    struct json_object *names = json_object_new_array();
    struct json_object *complete = NULL;
    bool is_complete;
    bool has_flaky = json_object_object_get_ex(report, "flaky", NULL) &&
                     json_object_object_get(report, "flaky") != NULL;
    int rc;

    json_object_object_add(island, "flaky_names", names);
    rc = duplicates(report, island, err);
    if (rc == 0)
        rc = repeats(report, island, has_flaky ? NULL : names, err);
    if (rc == 0 && has_flaky)
        rc = flaky(report, island, names, err);
    else if (rc == 0)
        json_object_object_add(island, "flaky", NULL);
    if (rc == 0)
        rc = tsh_member(report, "complete", json_type_boolean, TSH_OPTIONAL, "", &complete, err);
    if (rc < 0)
        return rc;
    counts->flaky = (int64_t)json_object_array_length(names);
    if (opt->orphans != NULL && !json_object_is_type(opt->orphans, json_type_array))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "orphans: must be an array");
    if (opt->orphans != NULL && !strings(opt->orphans))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "orphans: must hold names");
    is_complete = complete != NULL && json_object_get_boolean(complete);
    if (is_complete && opt->orphans != NULL) {
        json_object_object_add(island, "orphans",
                               json_object_get((struct json_object *)opt->orphans));
        json_object_object_add(island, "orphans_note", NULL);
    } else {
        const char *note =
            !is_complete ? "Orphans are shown for complete runs only: this report covers a run "
                           "that is partial or still open, so a snapshot it did not use may "
                           "belong to a test that did not run."
            : opt->orphans_note != NULL ? opt->orphans_note
                                        : "The store's snapshots were not read, so orphans are "
                                          "not known.";

        json_object_object_add(island, "orphans", NULL);
        json_object_object_add(island, "orphans_note", json_object_new_string(note));
    }
    return 0;
}
