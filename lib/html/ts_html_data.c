/*
 * ts_html_data — the data island of the HTML report (see ts_html.h and
 * docs/internals/html.md): the JSON report read member by member (each
 * checked) into the compact form the page's script reads, with the
 * alignment of each FAILED check's baseline and observed calls worked out
 * here (lib/report/ts_align, the drift report's own), so the page pairs the calls
 * as the report does.
 */
#include "ts_html_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/report/ts_report.h"
#include "lib/score/ts_score.h"

/* ---- reading the report ------------------------------------------------ */

static int bad(ts_error *err, const char *where, const char *key, const char *what)
{
    return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "%s%s%s: %s", where,
                        where[0] && key[0] ? "." : "", key, what);
}

/* Member key of o, of json type type (json_type_double takes ints too);
 * *out NULL when absent or null and nullable (absent and optional). */
int tsh_member(const struct json_object *o, const char *key, json_type type, int flags,
               const char *where, struct json_object **out, ts_error *err)
{
    struct json_object *v = NULL;
    bool present = json_object_object_get_ex(o, key, &v);

    *out = NULL;
    if (!present && !(flags & TSH_OPTIONAL))
        return bad(err, where, key, "missing");
    if (v == NULL)
        return present && !(flags & TSH_NULLABLE) ? bad(err, where, key, "must not be null") : 0;
    if (json_object_get_type(v) != type &&
        !(type == json_type_double && json_object_is_type(v, json_type_int)))
        return bad(err, where, key,
                   type == json_type_string   ? "must be a string"
                   : type == json_type_double ? "must be a number"
                   : type == json_type_int    ? "must be an integer"
                   : type == json_type_array  ? "must be an array"
                   : type == json_type_object ? "must be an object"
                                              : "must be true or false");
    *out = v;
    return 0;
}

static bool id_valid(const char *s)
{
    return strlen(s) == 16 && strspn(s, "0123456789abcdef") == 16;
}

/* An id member (16 hex digits) or NULL. */
static int id_member(const struct json_object *o, const char *key, const char *where,
                     const char **out, ts_error *err)
{
    struct json_object *v;
    int rc = tsh_member(o, key, json_type_string, TSH_NULLABLE | TSH_OPTIONAL, where, &v, err);

    *out = v != NULL ? json_object_get_string(v) : NULL;
    if (rc == 0 && *out != NULL && !id_valid(*out))
        rc = bad(err, where, key, "must be 16 lower-case hex digits");
    return rc;
}

static const char *const outcomes[] = {"CREATED",
                                       "UPDATED",
                                       "PENDING",
                                       "PASSED",
                                       "FAILED",
                                       "ERROR_MISSING_IN_CI",
                                       "ERROR_PENDING_IN_CI"};

static int outcome_index(const char *s)
{
    for (int i = 0; i < (int)(sizeof(outcomes) / sizeof(outcomes[0])); i++) {
        if (strcmp(s, outcomes[i]) == 0)
            return i;
    }
    return -1;
}

/* ---- the island -------------------------------------------------------- */

static struct json_object *str_or_null(const struct json_object *v)
{
    return v != NULL ? json_object_get((struct json_object *)v) : NULL;
}

/* The runs, and their ids in order (borrowed from the report). */
static int island_runs(const struct json_object *report, struct json_object *island,
                       const char ***ids, size_t *nids, ts_error *err)
{
    static const char *const keys[] = {"id", "label", "host", "store", "opened", "closed"};
    struct json_object *runs, *out = json_object_new_array();
    char where[32];
    int rc = tsh_member(report, "runs", json_type_array, 0, "", &runs, err);

    json_object_object_add(island, "runs", out);
    if (rc < 0)
        return rc;
    *nids = json_object_array_length(runs);
    *ids = calloc(*nids ? *nids : 1, sizeof(char *));
    if (*ids == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < *nids; i++) {
        struct json_object *run = json_object_array_get_idx(runs, i);
        struct json_object *o = json_object_new_object();
        struct json_object *v;

        snprintf(where, sizeof(where), "runs[%zu]", i);
        json_object_array_add(out, o);
        if (!json_object_is_type(run, json_type_object))
            return bad(err, where, "", "must be an object");
        for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
            rc = tsh_member(run, keys[k], json_type_string,
                            k == 0 ? 0 : TSH_NULLABLE | TSH_OPTIONAL, where, &v, err);
            if (rc < 0)
                return rc;
            json_object_object_add(o, keys[k], str_or_null(v));
        }
        (*ids)[i] = json_object_get_string(json_object_object_get(o, "id"));
        rc = tsh_member(run, "partial", json_type_boolean, TSH_OPTIONAL, where, &v, err);
        if (rc == 0)
            json_object_object_add(o, "partial",
                                   json_object_new_boolean(json_object_get_boolean(v)));
        if (rc == 0)
            rc = tsh_member(run, "partial_reasons", json_type_array, TSH_OPTIONAL, where, &v, err);
        for (size_t r = 0; rc == 0 && v != NULL && r < json_object_array_length(v); r++) {
            if (!json_object_is_type(json_object_array_get_idx(v, r), json_type_string))
                rc = bad(err, where, "partial_reasons", "must hold strings");
        }
        if (rc < 0)
            return rc;
        json_object_object_add(o, "reasons",
                               v != NULL ? json_object_get(v) : json_object_new_array());
    }
    return 0;
}

/* The alignment of a FAILED check's two lists as [[tag, i1, i2, j1, j2]],
 * or NULL when either list is not carried or is no valid call list. */
static struct json_object *alignment(const struct json_object *expected,
                                     const struct json_object *actual)
{
    ts_align_op *ops = NULL;
    size_t n = 0;
    struct json_object *a;

    if (expected == NULL || actual == NULL || ts_calls_validate(expected, "expected", NULL) < 0 ||
        ts_calls_validate(actual, "actual", NULL) < 0 ||
        ts_align_calls(expected, actual, &ops, &n) < 0)
        return NULL;
    a = json_object_new_array_ext((int)n);
    for (size_t i = 0; i < n; i++) {
        struct json_object *op = json_object_new_array_ext(5);
        char tag[2] = {ops[i].tag, '\0'};

        json_object_array_add(op, json_object_new_string(tag));
        json_object_array_add(op, json_object_new_int64((int64_t)ops[i].i1));
        json_object_array_add(op, json_object_new_int64((int64_t)ops[i].i2));
        json_object_array_add(op, json_object_new_int64((int64_t)ops[i].j1));
        json_object_array_add(op, json_object_new_int64((int64_t)ops[i].j2));
        json_object_array_add(a, op);
    }
    free(ops);
    return a;
}

/* A list carried by the report's "calls" (NULL: none). */
static struct json_object *carried(const struct json_object *calls, const char *id)
{
    struct json_object *v = NULL;

    if (calls == NULL || id == NULL || !json_object_object_get_ex(calls, id, &v) ||
        !json_object_is_type(v, json_type_array))
        return NULL;
    return v;
}

static struct json_object *number(double d)
{
    return json_object_new_double(round(d * 1000.0) / 1000.0);
}

/* `tsctl accept 'NAME'`, the name quoted for a shell (lib/base's ts_shell). */
static struct json_object *accept_command(const char *name)
{
    struct json_object *s = NULL;
    ts_buf b;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    if (ts_shell_command(&b, "tsctl accept", name) == 0 && b.data != NULL)
        s = json_object_new_string_len(b.data, (int)b.len);
    ts_buf_free(&b);
    return s;
}

/* One check: its row [name, test, outcome, score, ms, run, detail] and,
 * unless it PASSED, its detail [message, report, calls_id, baseline_id,
 * alignment, min_score, accept command (FAILED)]. */
static int island_check(const struct json_object *c, const char *where, const char *const *runs,
                        size_t nruns, const struct json_object *calls, struct json_object *rows,
                        struct json_object *details, tsh_counts *counts, ts_error *err)
{
    struct json_object *name, *test, *outcome, *score, *min, *ms, *message, *report, *run;
    const char *calls_id, *baseline_id;
    struct json_object *row;
    size_t r;
    int o;
    int rc = tsh_member(c, "name", json_type_string, 0, where, &name, err);

    if (rc == 0)
        rc =
            tsh_member(c, "test", json_type_string, TSH_NULLABLE | TSH_OPTIONAL, where, &test, err);
    if (rc == 0)
        rc = tsh_member(c, "outcome", json_type_string, 0, where, &outcome, err);
    if (rc == 0)
        rc = tsh_member(c, "run", json_type_string, 0, where, &run, err);
    if (rc == 0)
        rc = tsh_member(c, "score", json_type_double, TSH_NULLABLE | TSH_OPTIONAL, where, &score,
                        err);
    if (rc == 0)
        rc = tsh_member(c, "min_score", json_type_double, TSH_NULLABLE | TSH_OPTIONAL, where, &min,
                        err);
    if (rc == 0)
        rc = tsh_member(c, "duration_ms", json_type_double, TSH_OPTIONAL, where, &ms, err);
    if (rc == 0)
        rc = tsh_member(c, "message", json_type_string, TSH_NULLABLE | TSH_OPTIONAL, where,
                        &message, err);
    if (rc == 0)
        rc = tsh_member(c, "report", json_type_string, TSH_NULLABLE | TSH_OPTIONAL, where, &report,
                        err);
    if (rc == 0)
        rc = id_member(c, "calls_id", where, &calls_id, err);
    if (rc == 0)
        rc = id_member(c, "baseline_id", where, &baseline_id, err);
    if (rc < 0)
        return rc;
    o = outcome_index(json_object_get_string(outcome));
    if (o < 0)
        return bad(err, where, "outcome", "not an outcome");
    for (r = 0; r < nruns && strcmp(runs[r], json_object_get_string(run)) != 0; r++)
        ;
    if (r == nruns)
        return bad(err, where, "run", "not one of the report's runs");
    counts->outcomes[o]++;
    row = json_object_new_array_ext(7);
    json_object_array_add(row, json_object_get(name));
    if (test != NULL && strcmp(json_object_get_string(test), json_object_get_string(name)) == 0)
        json_object_array_add(row, json_object_new_int(0)); /* the usual case: the name */
    else
        json_object_array_add(row, str_or_null(test));
    json_object_array_add(row, json_object_new_int(o));
    json_object_array_add(row, score != NULL ? number(json_object_get_double(score)) : NULL);
    json_object_array_add(row, number(ms != NULL ? json_object_get_double(ms) : 0));
    json_object_array_add(row, json_object_new_int((int)r));
    if (o == 3) { /* PASSED: nothing more to show */
        json_object_array_add(row, json_object_new_int(-1));
    } else {
        struct json_object *d = json_object_new_array_ext(7);
        bool failed = o == 4;

        json_object_array_add(row, json_object_new_int((int)json_object_array_length(details)));
        json_object_array_add(d, message != NULL ? json_object_get(message)
                                                 : json_object_new_string(""));
        json_object_array_add(d, str_or_null(report));
        json_object_array_add(d, calls_id != NULL ? json_object_new_string(calls_id) : NULL);
        json_object_array_add(d, failed && baseline_id != NULL ? json_object_new_string(baseline_id)
                                                               : NULL);
        json_object_array_add(
            d, failed ? alignment(carried(calls, baseline_id), carried(calls, calls_id)) : NULL);
        json_object_array_add(d, min != NULL ? number(json_object_get_double(min)) : NULL);
        json_object_array_add(d, failed ? accept_command(json_object_get_string(name)) : NULL);
        json_object_array_add(details, d);
    }
    json_object_array_add(rows, row);
    return 0;
}

int tsh_island_checks(const struct json_object *report, struct json_object *island,
                      tsh_counts *counts, ts_error *err)
{
    struct json_object *checks, *calls, *rows, *details, *out_calls;
    const char **runs = NULL;
    size_t nruns = 0;
    char where[48];
    int rc = island_runs(report, island, &runs, &nruns, err);

    if (rc == 0)
        rc = tsh_member(report, "checks", json_type_array, 0, "", &checks, err);
    if (rc == 0)
        rc = tsh_member(report, "calls", json_type_object, TSH_OPTIONAL | TSH_NULLABLE, "", &calls,
                        err);
    if (rc < 0) {
        free(runs);
        return rc;
    }
    rows = json_object_new_array_ext((int)json_object_array_length(checks));
    details = json_object_new_array();
    json_object_object_add(island, "checks", rows);
    json_object_object_add(island, "details", details);
    out_calls = json_object_new_object();
    json_object_object_add(island, "calls", out_calls);
    if (rc == 0 && calls != NULL) {
        json_object_object_foreach(calls, id, list)
        {
            if (!id_valid(id) || !json_object_is_type(list, json_type_array)) {
                rc = bad(err, "calls", "", "must map list ids to call lists");
                break;
            }
            json_object_object_add(out_calls, id, json_object_get(list));
        }
    }
    for (size_t i = 0; rc == 0 && i < json_object_array_length(checks); i++) {
        struct json_object *c = json_object_array_get_idx(checks, i);

        snprintf(where, sizeof(where), "checks[%zu]", i);
        rc = json_object_is_type(c, json_type_object)
                 ? island_check(c, where, runs, nruns, calls, rows, details, counts, err)
                 : bad(err, where, "", "must be an object");
    }
    free(runs);
    return rc;
}
