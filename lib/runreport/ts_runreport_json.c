/*
 * ts_runreport_json — the JSON report (docs/reports.md): rendering a report
 * in memory, and reading one back, every field checked, to merge it into
 * another (ts_runreport_add_json).
 */
#include "ts_runreport_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/flaky/ts_flaky.h"
#include "lib/json/ts_json.h"
#include "lib/score/ts_score.h"
#include "lib/rules/ts_rules.h"

/* ---- rendering ------------------------------------------------------- */

static struct json_object *str_or_null(const char *s)
{
    return s != NULL ? json_object_new_string(s) : NULL;
}

struct json_object *ts_runreport_time_json(int64_t ms)
{
    char t[32];

    if (ms < 0)
        return NULL;
    ts_runreport_format_time(ms, t);
    return json_object_new_string(t);
}

struct json_object *ts_runreport_counts_json(const ts_summary_counts *c, int64_t checks)
{
    struct json_object *o = json_object_new_object();

    json_object_object_add(o, "created", json_object_new_int64(c->created));
    json_object_object_add(o, "updated", json_object_new_int64(c->updated));
    json_object_object_add(o, "unchanged", json_object_new_int64(c->unchanged));
    json_object_object_add(o, "pending", json_object_new_int64(c->pending));
    json_object_object_add(o, "passed", json_object_new_int64(c->passed));
    /* The summary line counts CI refusals as failures; so do the counts. */
    json_object_object_add(o, "failed", json_object_new_int64(c->failed + c->errors));
    json_object_object_add(o, "errors", json_object_new_int64(c->errors));
    json_object_object_add(o, "checks", json_object_new_int64(checks));
    return o;
}

/* The counts with checks their sum: every check the report holds. */
static struct json_object *counts_json(const ts_summary_counts *c)
{
    return ts_runreport_counts_json(c, c->created + c->updated + c->pending + c->passed +
                                           c->failed + c->errors);
}

static struct json_object *outcomes_json(const int64_t *outcomes)
{
    struct json_object *o = json_object_new_object();

    for (int i = 0; i < TS_RUNREPORT_OUTCOMES; i++) {
        if (outcomes[i] > 0)
            json_object_object_add(o, ts_runreport_outcome_name((ts_runreport_outcome)i),
                                   json_object_new_int64(outcomes[i]));
    }
    return o;
}

static struct json_object *run_json(const rr_run *run)
{
    struct json_object *o = json_object_new_object();
    struct json_object *reasons = json_object_new_array();

    for (size_t i = 0; i < run->nreasons; i++)
        json_object_array_add(reasons, json_object_new_string(run->reasons[i]));
    json_object_object_add(o, "id", json_object_new_string(run->id));
    json_object_object_add(o, "store", str_or_null(run->store));
    json_object_object_add(o, "label", str_or_null(run->label));
    json_object_object_add(o, "host", str_or_null(run->host));
    json_object_object_add(o, "opened", ts_runreport_time_json(run->opened_ms));
    json_object_object_add(o, "closed", ts_runreport_time_json(run->closed_ms));
    json_object_object_add(o, "complete",
                           json_object_new_boolean(!run->partial && run->closed_ms >= 0));
    json_object_object_add(o, "partial", json_object_new_boolean(run->partial));
    json_object_object_add(o, "partial_reasons", reasons);
    json_object_object_add(o, "counts", counts_json(&run->counts));
    return o;
}

static struct json_object *num_or_null(double d)
{
    return d < 0 ? NULL : json_object_new_double(d);
}

static struct json_object *check_json(const ts_runreport *r, const rr_check *c)
{
    struct json_object *o = json_object_new_object();

    json_object_object_add(o, "run", json_object_new_string(r->runs[c->run].id));
    json_object_object_add(o, "name", json_object_new_string(c->name));
    json_object_object_add(o, "test", str_or_null(c->test));
    json_object_object_add(o, "outcome",
                           json_object_new_string(ts_runreport_outcome_name(c->outcome)));
    json_object_object_add(o, "score", num_or_null(c->score));
    json_object_object_add(o, "min_score", num_or_null(c->min_score));
    json_object_object_add(o, "duration_ms", json_object_new_double(c->duration_ms));
    json_object_object_add(o, "message", json_object_new_string(c->message));
    json_object_object_add(o, "report", str_or_null(c->report));
    if (c->unchanged)
        json_object_object_add(o, "unchanged", json_object_new_boolean(true));
    json_object_object_add(o, "calls_id",
                           c->calls_id[0] ? json_object_new_string(c->calls_id) : NULL);
    json_object_object_add(o, "baseline_id",
                           c->baseline_id[0] ? json_object_new_string(c->baseline_id) : NULL);
    return o;
}

static struct json_object *tests_json(const rr_name *n)
{
    struct json_object *a = json_object_new_array();

    for (size_t i = 0; i < n->ntests; i++)
        json_object_array_add(a, json_object_new_string(n->tests[i]));
    return a;
}

static struct json_object *tristate(int v)
{
    return v < 0 ? NULL : json_object_new_boolean(v);
}

static struct json_object *repeat_json(const ts_runreport_repeat *rep)
{
    struct json_object *o = json_object_new_object();
    struct json_object *lists = json_object_new_array();

    for (size_t i = 0; i < rep->nlists; i++) {
        const ts_runreport_list *l = &rep->lists[i];
        struct json_object *lo = json_object_new_object();

        json_object_object_add(lo, "id", json_object_new_string(l->id));
        json_object_object_add(lo, "count", json_object_new_int64(l->count));
        json_object_object_add(lo, "outcomes", outcomes_json(l->outcomes));
        json_object_object_add(lo, "calls", ts_json_copy(l->calls));
        json_object_array_add(lists, lo);
    }
    json_object_object_add(o, "name", json_object_new_string(rep->name));
    json_object_object_add(o, "observations", json_object_new_int64(rep->observations));
    json_object_object_add(o, "outcomes", outcomes_json(rep->outcomes));
    json_object_object_add(o, "k", json_object_new_int64(rep->k));
    json_object_object_add(o, "pass^k", tristate(rep->pass_all));
    json_object_object_add(o, "pass@k", tristate(rep->pass_any));
    json_object_object_add(o, "distinct", json_object_new_int64((int64_t)rep->nlists));
    json_object_object_add(o, "unlisted", json_object_new_int64(rep->unlisted));
    json_object_object_add(o, "rules", ts_json_copy(rep->rules));
    json_object_object_add(o, "lists", lists);
    return o;
}

/* The report as a json-c tree (NULL when out of memory). */
static struct json_object *report_json(ts_runreport *r, ts_error *err)
{
    struct json_object *o = json_object_new_object();
    struct json_object *runs = json_object_new_array();
    struct json_object *checks = json_object_new_array();
    struct json_object *dups = json_object_new_array();
    struct json_object *repeats = json_object_new_array();
    struct json_object *flaky = json_object_new_array();
    struct json_object *refs = json_object_new_object();
    struct json_object *calls = rr_calls_json(r);
    size_t *idx = rr_sorted_names(r);
    ts_runreport_repeat *reps = NULL;
    ts_flaky *flakes = NULL;
    size_t nreps = 0, nflakes = 0;
    ts_buf line;

    ts_buf_init(&line, 4096);
    if (idx == NULL || calls == NULL || ts_runreport_repeats(r, &reps, &nreps, err) < 0 ||
        ts_flaky_report(r, &flakes, &nflakes, err) < 0 || ts_runreport_summary(r, &line) < 0) {
        free(idx);
        free(reps);
        ts_flaky_list_free(flakes, nflakes);
        json_object_put(flaky);
        json_object_put(calls);
        ts_buf_free(&line);
        json_object_put(o);
        json_object_put(runs);
        json_object_put(checks);
        json_object_put(dups);
        json_object_put(repeats);
        json_object_put(refs);
        return NULL;
    }
    for (size_t i = 0; i < r->nruns; i++)
        json_object_array_add(runs, run_json(&r->runs[i]));
    for (size_t i = 0; i < r->nchecks; i++)
        json_object_array_add(checks, check_json(r, &r->checks[i]));
    for (size_t i = 0; i < r->nnames; i++) {
        const rr_name *n = r->names[idx[i]];

        if (n->ntests >= 2) {
            struct json_object *d = json_object_new_object();

            json_object_object_add(d, "name", json_object_new_string(n->name));
            json_object_object_add(d, "tests", tests_json(n));
            json_object_array_add(dups, d);
        }
        json_object_object_add(refs, n->name, tests_json(n));
    }
    for (size_t i = 0; i < nreps; i++)
        json_object_array_add(repeats, repeat_json(&reps[i]));
    for (size_t i = 0; i < nflakes; i++)
        json_object_array_add(flaky, ts_flaky_json(&flakes[i]));
    json_object_object_add(o, "format", json_object_new_string(TS_RUNREPORT_FORMAT));
    json_object_object_add(o, "version", json_object_new_int(TS_RUNREPORT_VERSION));
    json_object_object_add(o, "complete", json_object_new_boolean(ts_runreport_complete(r)));
    json_object_object_add(o, "runs", runs);
    json_object_object_add(o, "counts", counts_json(&r->counts));
    json_object_object_add(o, "summary", json_object_new_string(line.data ? line.data : ""));
    json_object_object_add(o, "checks", checks);
    json_object_object_add(o, "checks_omitted", json_object_new_int64(r->omitted));
    json_object_object_add(o, "calls", calls);
    json_object_object_add(o, "calls_omitted", json_object_new_int64(rr_calls_omitted(r)));
    json_object_object_add(o, "duplicates", dups);
    json_object_object_add(o, "repeats", repeats);
    json_object_object_add(o, "flaky", flaky);
    json_object_object_add(o, "referenced", refs);
    free(idx);
    free(reps);
    ts_flaky_list_free(flakes, nflakes);
    ts_buf_free(&line);
    return o;
}

int ts_runreport_json_tree(ts_runreport *r, struct json_object **out, ts_error *err)
{
    *out = report_json(r, err);
    if (*out == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    return 0;
}

int ts_runreport_json(ts_runreport *r, ts_buf *out, ts_error *err)
{
    struct json_object *o = report_json(r, err);
    int rc;

    if (o == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    rc = ts_json_write_pretty(o, out, err);
    if (rc == 0 && ts_buf_appendc(out, '\n') < 0)
        rc = ts_error_set(err, -E2BIG, TS_ERR_TOO_LARGE, "the JSON report is too large");
    json_object_put(o);
    return rc;
}

/* ---- reading --------------------------------------------------------- */

/* Errors name the field: "checks[3].outcome: ...". */
static int bad(ts_error *err, const char *path, const char *what)
{
    return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "%s: %s", path, what);
}

enum { REQ = 1, NULLABLE = 2 };

/* The member key of obj, of type (json_type_double also takes ints); NULL
 * (with 0) when absent or null and allowed. */
static int member(const struct json_object *obj, const char *key, json_type type, int flags,
                  const char *where, struct json_object **out, ts_error *err)
{
    char path[256];
    struct json_object *v = NULL;
    bool present = json_object_object_get_ex(obj, key, &v);

    snprintf(path, sizeof(path), "%s%s%s", where, where[0] ? "." : "", key);
    *out = NULL;
    if (!present && (flags & REQ))
        return bad(err, path, "missing");
    if (v == NULL) {
        if (present && !(flags & NULLABLE))
            return bad(err, path, "must not be null");
        return 0;
    }
    if (json_object_get_type(v) != type &&
        !(type == json_type_double && json_object_is_type(v, json_type_int))) {
        const char *want = type == json_type_string    ? "a string"
                           : type == json_type_int     ? "an integer"
                           : type == json_type_double  ? "a number"
                           : type == json_type_boolean ? "true or false"
                           : type == json_type_array   ? "an array"
                                                       : "an object";
        char msg[64];

        snprintf(msg, sizeof(msg), "must be %s", want);
        return bad(err, path, msg);
    }
    *out = v;
    return 0;
}

static int member_str(const struct json_object *obj, const char *key, int flags, const char *where,
                      const char **out, ts_error *err)
{
    struct json_object *v;
    int rc = member(obj, key, json_type_string, flags, where, &v, err);

    *out = v != NULL ? json_object_get_string(v) : NULL;
    return rc;
}

/* A non-negative integer member (required). */
static int member_count(const struct json_object *obj, const char *key, const char *where,
                        int64_t *out, ts_error *err)
{
    struct json_object *v;
    int rc = member(obj, key, json_type_int, REQ, where, &v, err);
    char path[256];

    if (rc < 0)
        return rc;
    *out = json_object_get_int64(v);
    snprintf(path, sizeof(path), "%s.%s", where, key);
    if (*out < 0 || *out > INT64_MAX / 4)
        return bad(err, path, "must be a count from 0");
    return 0;
}

static int member_time(const struct json_object *obj, const char *key, int flags, const char *where,
                       int64_t *out, ts_error *err)
{
    const char *s;
    char path[256];
    int rc = member_str(obj, key, flags, where, &s, err);

    *out = -1;
    if (rc < 0 || s == NULL)
        return rc;
    snprintf(path, sizeof(path), "%s.%s", where, key);
    if (ts_runreport_parse_time(s, out) < 0)
        return bad(err, path, "must be a time like 2025-01-31T12:00:00.000Z");
    return 0;
}

static int read_counts(const struct json_object *obj, const char *where, ts_summary_counts *c,
                       ts_error *err)
{
    struct json_object *o;
    int64_t failed = 0;
    int64_t checks = 0;
    char path[256];
    int rc = member(obj, "counts", json_type_object, REQ, where, &o, err);

    snprintf(path, sizeof(path), "%s%scounts", where, where[0] ? "." : "");
    memset(c, 0, sizeof(*c));
    if (rc == 0)
        rc = member_count(o, "created", path, &c->created, err);
    if (rc == 0)
        rc = member_count(o, "updated", path, &c->updated, err);
    if (rc == 0)
        rc = member_count(o, "pending", path, &c->pending, err);
    if (rc == 0)
        rc = member_count(o, "passed", path, &c->passed, err);
    if (rc == 0)
        rc = member_count(o, "failed", path, &failed, err);
    if (rc == 0)
        rc = member_count(o, "errors", path, &c->errors, err);
    if (rc == 0)
        rc = member_count(o, "checks", path, &checks, err);
    /* of updated (reports of earlier versions have none) */
    if (rc == 0 && json_object_object_get_ex(o, "unchanged", NULL))
        rc = member_count(o, "unchanged", path, &c->unchanged, err);
    if (rc < 0)
        return rc;
    if (c->unchanged > c->updated)
        return bad(err, path, "unchanged counts updates, so it cannot be above updated");
    if (failed < c->errors)
        return bad(err, path, "failed counts the CI errors too, so it cannot be below errors");
    c->failed = failed - c->errors;
    if (checks != c->created + c->updated + c->pending + c->passed + failed)
        return bad(err, path, "checks is not the sum of the outcome counts");
    return 0;
}

static int read_run(ts_runreport *st, const struct json_object *o, const char *where, ts_error *err)
{
    const char *reasons[TS_RUNREPORT_MAX_REASONS];
    ts_runreport_run run;
    struct json_object *v;
    struct json_object *partial;
    char path[256];
    int rc;

    memset(&run, 0, sizeof(run));
    rc = member_str(o, "id", REQ, where, &run.id, err);
    if (rc == 0)
        rc = member_str(o, "store", NULLABLE, where, &run.store, err);
    if (rc == 0)
        rc = member_str(o, "label", NULLABLE, where, &run.label, err);
    if (rc == 0)
        rc = member_str(o, "host", NULLABLE, where, &run.host, err);
    if (rc == 0)
        rc = member_time(o, "opened", REQ, where, &run.opened_ms, err);
    if (rc == 0)
        rc = member_time(o, "closed", REQ | NULLABLE, where, &run.closed_ms, err);
    if (rc == 0)
        rc = member(o, "partial", json_type_boolean, REQ, where, &partial, err);
    if (rc == 0)
        rc = member(o, "partial_reasons", json_type_array, REQ, where, &v, err);
    if (rc < 0)
        return rc;
    run.partial = json_object_get_boolean(partial);
    snprintf(path, sizeof(path), "%s.partial_reasons", where);
    if (json_object_array_length(v) > TS_RUNREPORT_MAX_REASONS)
        return bad(err, path, "too many reasons");
    for (size_t i = 0; i < json_object_array_length(v); i++) {
        struct json_object *s = json_object_array_get_idx(v, i);

        if (!json_object_is_type(s, json_type_string))
            return bad(err, path, "must hold strings");
        reasons[run.nreasons++] = json_object_get_string(s);
    }
    run.reasons = reasons;
    rc = ts_runreport_add_run(st, &run, err);
    if (rc < 0)
        return ts_error_prefix(err, rc, "%s", where);
    return read_counts(o, where, &st->runs[st->nruns - 1].counts, err);
}

static bool id_valid(const char *id)
{
    return strlen(id) == TS_RUNREPORT_CALLS_ID_LEN &&
           strspn(id, "0123456789abcdef") == TS_RUNREPORT_CALLS_ID_LEN;
}

static int read_check(ts_runreport *st, const struct json_object *o, const char *where,
                      ts_error *err)
{
    ts_runreport_check c;
    struct json_object *v;
    char path[256];
    long run;
    int outcome;
    int rc;

    memset(&c, 0, sizeof(c));
    rc = member_str(o, "run", REQ, where, &c.run, err);
    if (rc == 0)
        rc = member_str(o, "name", REQ, where, &c.name, err);
    if (rc == 0)
        rc = member_str(o, "test", NULLABLE, where, &c.test, err);
    if (rc == 0)
        rc = member_str(o, "outcome", REQ, where, &c.outcome, err);
    if (rc == 0)
        rc = member_str(o, "message", REQ, where, &c.message, err);
    if (rc == 0)
        rc = member_str(o, "report", NULLABLE, where, &c.report, err);
    if (rc == 0)
        rc = member_str(o, "calls_id", NULLABLE, where, &c.calls_id, err);
    if (rc == 0)
        rc = member_str(o, "baseline_id", NULLABLE, where, &c.baseline_id, err);
    if (rc == 0 && json_object_object_get_ex(o, "unchanged", NULL)) {
        rc = member(o, "unchanged", json_type_boolean, REQ, where, &v, err);
        c.unchanged = rc == 0 && json_object_get_boolean(v);
    }
    if (rc < 0)
        return rc;
    c.score = c.min_score = -1;
    rc = member(o, "score", json_type_double, NULLABLE, where, &v, err);
    if (rc == 0 && v != NULL && (c.score = json_object_get_double(v)) < 0)
        rc = bad(err, where, "score must not be negative");
    if (rc == 0)
        rc = member(o, "min_score", json_type_double, NULLABLE, where, &v, err);
    if (rc == 0 && v != NULL && (c.min_score = json_object_get_double(v)) < 0)
        rc = bad(err, where, "min_score must not be negative");
    if (rc == 0)
        rc = member(o, "duration_ms", json_type_double, REQ, where, &v, err);
    if (rc == 0 && (c.duration_ms = json_object_get_double(v)) < 0)
        rc = bad(err, where, "duration_ms must not be negative");
    if (rc < 0)
        return rc;
    snprintf(path, sizeof(path), "%s.outcome", where);
    outcome = ts_runreport_outcome_of(c.outcome);
    if (outcome < 0)
        return bad(err, path,
                   "not an outcome (CREATED, UPDATED, PENDING, PASSED, FAILED, "
                   "ERROR_MISSING_IN_CI, ERROR_PENDING_IN_CI)");
    snprintf(path, sizeof(path), "%s.run", where);
    run = rr_run_index(st, c.run);
    if (run < 0)
        return bad(err, path, "not one of the report's runs");
    snprintf(path, sizeof(path), "%s.calls_id", where);
    if (c.calls_id != NULL && (strlen(c.calls_id) != TS_RUNREPORT_CALLS_ID_LEN ||
                               strspn(c.calls_id, "0123456789abcdef") != TS_RUNREPORT_CALLS_ID_LEN))
        return bad(err, path, "must be 16 lower-case hex digits");
    snprintf(path, sizeof(path), "%s.baseline_id", where);
    if (c.baseline_id != NULL && !id_valid(c.baseline_id))
        return bad(err, path, "must be 16 lower-case hex digits");
    if (rr_list_check(st, (size_t)run, &c, (ts_runreport_outcome)outcome, c.calls_id,
                      c.baseline_id) < 0)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    return 0;
}

/* An "outcomes" map: outcome name -> count, into out; *sum their total. */
static int read_outcomes(const struct json_object *obj, const char *where, int64_t *out,
                         int64_t *sum, ts_error *err)
{
    struct json_object *o;
    char path[256];
    int rc = member(obj, "outcomes", json_type_object, REQ, where, &o, err);

    if (rc < 0)
        return rc;
    memset(out, 0, TS_RUNREPORT_OUTCOMES * sizeof(int64_t));
    *sum = 0;
    snprintf(path, sizeof(path), "%s.outcomes", where);
    json_object_object_foreach(o, key, val)
    {
        int i = ts_runreport_outcome_of(key);

        if (i < 0)
            return bad(err, path, "has a key that is not an outcome");
        if (!json_object_is_type(val, json_type_int) || json_object_get_int64(val) < 0 ||
            json_object_get_int64(val) > INT64_MAX / 4)
            return bad(err, path, "must map outcomes to counts");
        out[i] = json_object_get_int64(val);
        *sum += out[i];
    }
    return 0;
}

static int read_repeat(ts_runreport *st, const struct json_object *o, const char *where,
                       ts_error *err)
{
    int64_t outcomes[TS_RUNREPORT_OUTCOMES];
    int64_t listed[TS_RUNREPORT_OUTCOMES] = {0};
    int64_t observations, unlisted, sum, rest = 0;
    struct json_object *lists, *rules = NULL;
    const char *name;
    char path[256];
    rr_name *n;
    int rc = member_str(o, "name", REQ, where, &name, err);

    if (rc == 0)
        rc = member_count(o, "observations", where, &observations, err);
    if (rc == 0)
        rc = member_count(o, "unlisted", where, &unlisted, err);
    if (rc == 0)
        rc = read_outcomes(o, where, outcomes, &sum, err);
    if (rc == 0 && sum != observations)
        rc = bad(err, where, "the outcomes do not add up to the observations");
    if (rc == 0)
        rc = member(o, "lists", json_type_array, REQ, where, &lists, err);
    if (rc == 0)
        rc = member(o, "rules", json_type_object, NULLABLE, where, &rules, err);
    if (rc == 0 && rules != NULL) {
        ts_rules *compiled = NULL;

        snprintf(path, sizeof(path), "%s.rules", where);
        rc = ts_rules_from_json(rules, path, &compiled, err);
        ts_rules_unref(compiled);
    }
    if (rc < 0)
        return rc;
    if (json_object_array_length(lists) > TS_RUNREPORT_MAX_LISTS)
        return bad(err, where, "more lists than a report keeps");
    n = rr_name_get(st, name, true);
    if (n == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    if (n->from_repeats)
        return bad(err, where, "a name given twice in repeats");
    n->from_repeats = true;
    if (n->rules == NULL && rr_rules_intern(st, rules, &n->rules) < 0)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < json_object_array_length(lists); i++) {
        struct json_object *l = json_object_array_get_idx(lists, i);
        int64_t lo[TS_RUNREPORT_OUTCOMES];
        int64_t count, lsum;
        struct json_object *calls;
        const char *id;

        snprintf(path, sizeof(path), "%s.lists[%zu]", where, i);
        if (!json_object_is_type(l, json_type_object))
            return bad(err, path, "must be an object");
        rc = member_str(l, "id", REQ, path, &id, err);
        if (rc == 0)
            rc = member_count(l, "count", path, &count, err);
        if (rc == 0)
            rc = read_outcomes(l, path, lo, &lsum, err);
        if (rc == 0)
            rc = member(l, "calls", json_type_array, REQ | NULLABLE, path, &calls, err);
        if (rc < 0)
            return rc;
        if (strlen(id) != TS_RUNREPORT_CALLS_ID_LEN ||
            strspn(id, "0123456789abcdef") != TS_RUNREPORT_CALLS_ID_LEN)
            return bad(err, path, "id must be 16 lower-case hex digits");
        if (lsum != count || count == 0)
            return bad(err, path, "the outcomes do not add up to count");
        for (size_t j = 0; j < n->nlists; j++) {
            if (strcmp(n->lists[j].id, id) == 0)
                return bad(err, path, "a list given twice");
        }
        for (int k = 0; k < TS_RUNREPORT_OUTCOMES; k++) {
            listed[k] += lo[k];
            if (lo[k] > 0 && rr_name_observe(n, (ts_runreport_outcome)k, id, calls, lo[k]) < 0)
                return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
        }
    }
    for (int k = 0; k < TS_RUNREPORT_OUTCOMES; k++) {
        if (outcomes[k] < listed[k])
            return bad(err, where, "the lists hold more observations than outcomes says");
        n->outcomes[k] += outcomes[k] - listed[k];
        n->observations += outcomes[k] - listed[k];
        rest += outcomes[k] - listed[k];
    }
    if (rest != unlisted)
        return bad(err, where, "unlisted is not the observations outside the lists");
    n->unlisted = unlisted;
    return 0;
}

/* Each element of array member key of o, read by fn. */
static int each(ts_runreport *st, const struct json_object *o, const char *key,
                int (*fn)(ts_runreport *, const struct json_object *, const char *, ts_error *),
                ts_error *err)
{
    struct json_object *a;
    char path[64];
    int rc = member(o, key, json_type_array, REQ, "", &a, err);

    for (size_t i = 0; rc == 0 && i < json_object_array_length(a); i++) {
        struct json_object *e = json_object_array_get_idx(a, i);

        snprintf(path, sizeof(path), "%s[%zu]", key, i);
        if (!json_object_is_type(e, json_type_object))
            return bad(err, path, "must be an object");
        rc = fn(st, e, path, err);
    }
    return rc;
}

static int read_referenced(ts_runreport *st, const struct json_object *o, ts_error *err)
{
    struct json_object *refs;
    int rc = member(o, "referenced", json_type_object, REQ, "", &refs, err);

    if (rc < 0)
        return rc;
    json_object_object_foreach(refs, name, tests)
    {
        rr_name *n;

        if (!json_object_is_type(tests, json_type_array))
            return bad(err, "referenced", "must map each name to an array of tests");
        n = rr_name_get(st, name, true);
        if (n == NULL)
            return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
        for (size_t i = 0; i < json_object_array_length(tests); i++) {
            struct json_object *t = json_object_array_get_idx(tests, i);

            if (!json_object_is_type(t, json_type_string))
                return bad(err, "referenced", "must map each name to an array of tests");
            if (rr_name_claim(n, json_object_get_string(t)) < 0)
                return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
        }
    }
    return 0;
}

/* The optional "calls" object: each key a list's id, each value the
 * (valid) call list that has that id. */
static int read_calls(const struct json_object *o, const struct json_object **out, ts_error *err)
{
    char id[TS_RUNREPORT_CALLS_ID_LEN + 1];
    struct json_object *calls;
    char path[64];
    int rc = member(o, "calls", json_type_object, NULLABLE, "", &calls, err);

    *out = calls;
    if (rc < 0 || calls == NULL)
        return rc;
    json_object_object_foreach(calls, key, val)
    {
        ts_error verr;

        snprintf(path, sizeof(path), "calls.%.20s", key);
        if (!id_valid(key))
            return bad(err, "calls", "has a key that is not a list id (16 lower-case hex digits)");
        if (!json_object_is_type(val, json_type_array))
            return bad(err, path, "must be an array of calls");
        if (ts_calls_validate(val, "calls", &verr) < 0)
            return bad(err, path, verr.message);
        rc = ts_runreport_calls_id(val, id, err);
        if (rc < 0)
            return rc;
        if (strcmp(id, key) != 0)
            return bad(err, path, "the calls do not have this id");
    }
    return 0;
}

/* The lists of st's FAILED checks, from the report's "calls" (or the
 * repeats' lists). */
static int resolve_calls(ts_runreport *st, const struct json_object *calls)
{
    for (size_t i = 0; i < st->nchecks; i++) {
        const rr_check *c = &st->checks[i];
        struct json_object *observed = NULL;
        struct json_object *baseline = NULL;

        if (c->outcome != TS_RUNREPORT_FAILED)
            continue;
        if (calls != NULL && c->calls_id[0] != '\0')
            json_object_object_get_ex(calls, c->calls_id, &observed);
        if (calls != NULL && c->baseline_id[0] != '\0')
            json_object_object_get_ex(calls, c->baseline_id, &baseline);
        if (rr_calls_of_check(st, c, observed, baseline, false) < 0)
            return -ENOMEM;
    }
    return 0;
}

/* Read a whole report into the empty st. */
static int read_report(ts_runreport *st, const struct json_object *o, ts_error *err)
{
    const struct json_object *calls = NULL;
    struct json_object *v;
    const char *format;
    int64_t omitted = 0;
    ts_summary_counts sum = {0};
    int rc;

    if (!json_object_is_type(o, json_type_object))
        return bad(err, "report", "not a JSON object");
    rc = member_str(o, "format", 0, "", &format, err);
    if (rc < 0 || format == NULL || strcmp(format, TS_RUNREPORT_FORMAT) != 0)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "not a toolscore run report (its \"format\" is not \"%s\")",
                            TS_RUNREPORT_FORMAT);
    rc = member(o, "version", json_type_int, REQ, "", &v, err);
    if (rc < 0)
        return rc;
    if (json_object_get_int64(v) > TS_RUNREPORT_VERSION)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "report version %lld is newer than this version reads (%d): use a "
                            "newer tsctl",
                            (long long)json_object_get_int64(v), TS_RUNREPORT_VERSION);
    if (json_object_get_int64(v) < 1)
        return bad(err, "version", "must be 1");
    rc = each(st, o, "runs", read_run, err);
    if (rc == 0)
        rc = read_counts(o, "", &st->counts, err);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < st->nruns; i++) {
        const ts_summary_counts *c = &st->runs[i].counts;

        rr_counts_add(&sum, c);
        st->runs[i].checks =
            c->created + c->updated + c->pending + c->passed + c->failed + c->errors;
    }
    if (memcmp(&sum, &st->counts, sizeof(sum)) != 0)
        return bad(err, "counts", "not the sum of the runs' counts");
    st->counted = st->nruns > 0 ? sum.created + sum.updated + sum.pending + sum.passed +
                                      sum.failed + sum.errors
                                : 0;
    if (st->nruns == 0 && st->counted != 0)
        return bad(err, "runs", "no run, but checks counted");
    rc = member(o, "checks_omitted", json_type_int, REQ, "", &v, err);
    if (rc == 0 && (omitted = json_object_get_int64(v)) < 0)
        rc = bad(err, "checks_omitted", "must be a count from 0");
    if (rc == 0)
        rc = each(st, o, "checks", read_check, err);
    if (rc == 0 && (int64_t)st->nchecks + omitted != st->counted)
        rc = bad(err, "checks", "the checks listed and omitted are not the checks counted");
    if (rc == 0)
        rc = read_referenced(st, o, err);
    if (rc == 0)
        rc = each(st, o, "repeats", read_repeat, err);
    if (rc == 0)
        rc = read_calls(o, &calls, err);
    if (rc < 0)
        return rc;
    st->omitted = omitted;
    /* Names seen once: their observation is their check. */
    for (size_t i = 0; i < st->nchecks; i++) {
        const rr_check *c = &st->checks[i];
        rr_name *n = rr_name_get(st, c->name, true);

        if (n == NULL || rr_name_claim(n, c->test) < 0)
            return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
        if (!n->from_repeats && c->calls_id[0] != '\0' &&
            rr_name_observe(n, c->outcome, c->calls_id, NULL, 1) < 0)
            return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    for (size_t i = 0; i < st->nnames; i++)
        st->names[i]->from_repeats = false;
    if (resolve_calls(st, calls) < 0)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    return 0;
}

int ts_runreport_add_json(ts_runreport *r, const char *text, size_t len, ts_error *err)
{
    struct json_object *o = NULL;
    ts_runreport *st;
    int rc = ts_json_parse(text, len, 0, &o, err);

    if (rc < 0)
        return rc;
    st = ts_runreport_new();
    if (st == NULL) {
        json_object_put(o);
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    rc = read_report(st, o, err);
    json_object_put(o);
    for (size_t i = 0; rc == 0 && i < st->nruns; i++) {
        if (rr_run_index(r, st->runs[i].id) >= 0)
            rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                              "run '%s' is in an earlier report too (the same report given "
                              "twice?)",
                              st->runs[i].id);
    }
    if (rc == 0 && rr_merge(r, st) < 0)
        rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    ts_runreport_free(st);
    return rc;
}
