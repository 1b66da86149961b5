/*
 * ts_runreport — the report of a run in memory: adding runs and checks,
 * merging, and the small helpers (outcomes, cutting reports, times). See
 * ts_runreport.h; the names table and the ids are ts_runreport_names.c,
 * the JSON form ts_runreport_json.c, JUnit ts_runreport_junit.c.
 */
#include "ts_runreport_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/json/ts_json.h"

static const char *const outcome_names[TS_RUNREPORT_OUTCOMES] = {
    "CREATED",
    "UPDATED",
    "PENDING",
    "PASSED",
    "FAILED",
    "ERROR_MISSING_IN_CI",
    "ERROR_PENDING_IN_CI",
};

int ts_runreport_outcome_of(const char *s)
{
    for (int i = 0; s != NULL && i < TS_RUNREPORT_OUTCOMES; i++) {
        if (strcmp(s, outcome_names[i]) == 0)
            return i;
    }
    return -1;
}

const char *ts_runreport_outcome_name(ts_runreport_outcome o)
{
    return (unsigned)o < TS_RUNREPORT_OUTCOMES ? outcome_names[o] : "?";
}

ts_runreport *ts_runreport_new(void)
{
    return calloc(1, sizeof(ts_runreport));
}

static void run_clear(rr_run *run)
{
    free(run->id);
    free(run->store);
    free(run->label);
    free(run->host);
    for (size_t i = 0; i < run->nreasons; i++)
        free(run->reasons[i]);
    free(run->reasons);
}

static void check_clear(rr_check *c)
{
    free(c->name);
    free(c->test);
    free(c->message);
    free(c->report);
}

void ts_runreport_free(ts_runreport *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < r->nruns; i++)
        run_clear(&r->runs[i]);
    free(r->runs);
    for (size_t i = 0; i < r->nchecks; i++)
        check_clear(&r->checks[i]);
    free(r->checks);
    for (size_t i = 0; i < r->nnames; i++)
        rr_name_free(r->names[i]);
    free(r->names);
    free(r->slots);
    rr_calls_free(r);
    rr_rules_free(r);
    free(r);
}

/* strdup of s, NULL staying NULL; *fail set when a copy fails. */
static char *dup_or_null(const char *s, bool *fail)
{
    char *d;

    if (s == NULL)
        return NULL;
    d = strdup(s);
    if (d == NULL)
        *fail = true;
    return d;
}

long rr_run_index(const ts_runreport *r, const char *id)
{
    for (size_t i = 0; i < r->nruns; i++) {
        if (strcmp(r->runs[i].id, id) == 0)
            return (long)i;
    }
    return -1;
}

int ts_runreport_add_run(ts_runreport *r, const ts_runreport_run *run, ts_error *err)
{
    rr_run *dst;
    bool fail = false;

    if (run->id == NULL || run->id[0] == '\0' || strlen(run->id) > 255)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "a run id must be 1 to 255 bytes");
    if (rr_run_index(r, run->id) >= 0)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "run '%s' is in the report already (the same report given twice?)",
                            run->id);
    if (run->nreasons > TS_RUNREPORT_MAX_REASONS)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "run '%s' has %zu partial reasons, more than %d", run->id,
                            run->nreasons, TS_RUNREPORT_MAX_REASONS);
    if (rr_grow(&r->runs, &r->capruns, r->nruns + 1, sizeof(rr_run)) < 0)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    dst = &r->runs[r->nruns];
    memset(dst, 0, sizeof(*dst));
    dst->id = dup_or_null(run->id, &fail);
    dst->store = dup_or_null(run->store, &fail);
    dst->label = dup_or_null(run->label, &fail);
    dst->host = dup_or_null(run->host, &fail);
    dst->opened_ms = run->opened_ms;
    dst->closed_ms = run->closed_ms < 0 ? -1 : run->closed_ms;
    dst->partial = run->partial;
    if (run->nreasons > 0) {
        dst->reasons = calloc(run->nreasons, sizeof(char *));
        fail = fail || dst->reasons == NULL;
        for (size_t i = 0; dst->reasons != NULL && i < run->nreasons; i++) {
            dst->reasons[i] = dup_or_null(run->reasons[i] ? run->reasons[i] : "", &fail);
            dst->nreasons++;
        }
    }
    if (fail) {
        run_clear(dst);
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    r->nruns++;
    return 0;
}

static int compare_names(const void *a, const void *b, void *arg)
{
    const ts_runreport *r = arg;

    return strcmp(r->names[*(const size_t *)a]->name, r->names[*(const size_t *)b]->name);
}

size_t *rr_sorted_names(const ts_runreport *r)
{
    size_t *idx = malloc((r->nnames ? r->nnames : 1) * sizeof(size_t));

    if (idx == NULL)
        return NULL;
    for (size_t i = 0; i < r->nnames; i++)
        idx[i] = i;
    qsort_r(idx, r->nnames, sizeof(size_t), compare_names, (void *)r);
    return idx;
}

/* ---- checks ---------------------------------------------------------- */

void ts_runreport_count(ts_summary_counts *c, int o, bool unchanged)
{
    switch (o) {
    case TS_RUNREPORT_CREATED:
        c->created++;
        break;
    case TS_RUNREPORT_UPDATED:
        c->updated++;
        c->unchanged += unchanged;
        break;
    case TS_RUNREPORT_PENDING:
        c->pending++;
        break;
    case TS_RUNREPORT_PASSED:
        c->passed++;
        break;
    case TS_RUNREPORT_FAILED:
        c->failed++;
        break;
    default:
        c->errors++;
    }
}

void rr_counts_add(ts_summary_counts *a, const ts_summary_counts *b)
{
    a->created += b->created;
    a->updated += b->updated;
    a->unchanged += b->unchanged;
    a->pending += b->pending;
    a->passed += b->passed;
    a->failed += b->failed;
    a->errors += b->errors;
}

int rr_list_check(ts_runreport *r, size_t run, const ts_runreport_check *c, ts_runreport_outcome o,
                  const char *calls_id, const char *baseline_id)
{
    rr_check *dst;
    bool fail = false;

    if (r->nchecks >= TS_RUNREPORT_MAX_CHECKS) {
        r->omitted++;
        return 0;
    }
    if (rr_grow(&r->checks, &r->capchecks, r->nchecks + 1, sizeof(rr_check)) < 0)
        return -ENOMEM;
    dst = &r->checks[r->nchecks];
    memset(dst, 0, sizeof(*dst));
    dst->run = run;
    dst->outcome = o;
    dst->unchanged = c->unchanged && o == TS_RUNREPORT_UPDATED;
    dst->score = c->score < 0 ? -1 : c->score;
    dst->min_score = c->min_score < 0 ? -1 : c->min_score;
    dst->duration_ms = c->duration_ms < 0 ? 0 : c->duration_ms;
    dst->name = dup_or_null(c->name, &fail);
    dst->test = dup_or_null(c->test, &fail);
    dst->message = dup_or_null(c->message ? c->message : "", &fail);
    dst->report = dup_or_null(c->report, &fail);
    if (calls_id != NULL)
        snprintf(dst->calls_id, sizeof(dst->calls_id), "%s", calls_id);
    if (baseline_id != NULL && o == TS_RUNREPORT_FAILED)
        snprintf(dst->baseline_id, sizeof(dst->baseline_id), "%s", baseline_id);
    if (fail) {
        check_clear(dst);
        return -ENOMEM;
    }
    r->nchecks++;
    return 0;
}

/* A calls id: exactly TS_RUNREPORT_CALLS_ID_LEN lower-case hex digits. */
static bool calls_id_valid(const char *id)
{
    size_t i;

    for (i = 0; id[i] != '\0'; i++) {
        if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
            return false;
    }
    return i == TS_RUNREPORT_CALLS_ID_LEN;
}

int ts_runreport_add_check(ts_runreport *r, const ts_runreport_check *c, ts_error *err)
{
    char id[TS_RUNREPORT_CALLS_ID_LEN + 1];
    char bid[TS_RUNREPORT_CALLS_ID_LEN + 1];
    const char *calls_id = c->calls_id;
    const char *baseline_id = c->baseline_id;
    size_t listed;
    int o = ts_runreport_outcome_of(c->outcome);
    long run = c->run != NULL ? rr_run_index(r, c->run) : (long)r->nruns - 1;
    rr_name *n;
    int rc;

    if (o < 0)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "unknown outcome '%s'",
                            c->outcome ? c->outcome : "");
    if (run < 0)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "check of run '%s', which is not in the report", c->run ? c->run : "");
    if (c->name == NULL)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "a check needs a name");
    if (calls_id != NULL && !calls_id_valid(calls_id))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "invalid calls id '%s' (%d hex digits expected)", calls_id,
                            TS_RUNREPORT_CALLS_ID_LEN);
    if (calls_id == NULL && c->calls != NULL) {
        rc = ts_runreport_calls_id(c->calls, id, err);
        if (rc < 0)
            return rc;
        calls_id = id;
    }
    if (o != TS_RUNREPORT_FAILED)
        baseline_id = NULL;
    else if (baseline_id != NULL && !calls_id_valid(baseline_id))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "invalid baseline id '%s' (%d hex digits expected)", baseline_id,
                            TS_RUNREPORT_CALLS_ID_LEN);
    else if (baseline_id == NULL && c->baseline != NULL) {
        rc = ts_runreport_calls_id(c->baseline, bid, err);
        if (rc < 0)
            return rc;
        baseline_id = bid;
    }
    listed = r->nchecks;
    n = rr_name_get(r, c->name, true);
    if (n != NULL && n->rules == NULL && c->rules != NULL && calls_id != NULL &&
        rr_rules_intern(r, c->rules, &n->rules) < 0)
        n = NULL;
    if (n == NULL || rr_name_claim(n, c->test) < 0 ||
        rr_list_check(r, (size_t)run, c, (ts_runreport_outcome)o, calls_id, baseline_id) < 0 ||
        (calls_id != NULL &&
         rr_name_observe(n, (ts_runreport_outcome)o, calls_id, c->calls, 1) < 0))
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    if (r->nchecks > listed && rr_calls_of_check(r, &r->checks[r->nchecks - 1], c->calls,
                                                 baseline_id ? c->baseline : NULL, false) < 0)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    ts_runreport_count(&r->counts, o, c->unchanged);
    ts_runreport_count(&r->runs[run].counts, o, c->unchanged);
    r->runs[run].checks++;
    r->counted++;
    return 0;
}

/* ---- reading --------------------------------------------------------- */

int ts_runreport_summary(const ts_runreport *r, ts_buf *out)
{
    return ts_report_summary(&r->counts, out);
}

ts_summary_counts ts_runreport_counts(const ts_runreport *r)
{
    return r->counts;
}

int64_t ts_runreport_checks(const ts_runreport *r)
{
    return r->counted;
}

bool ts_runreport_complete(const ts_runreport *r)
{
    for (size_t i = 0; i < r->nruns; i++) {
        if (r->runs[i].partial || r->runs[i].closed_ms < 0)
            return false;
    }
    return true;
}

size_t ts_runreport_run_count(const ts_runreport *r)
{
    return r->nruns;
}

void ts_runreport_run_at(const ts_runreport *r, size_t i, ts_runreport_run *out)
{
    const rr_run *run = &r->runs[i];

    out->id = run->id;
    out->store = run->store;
    out->label = run->label;
    out->host = run->host;
    out->opened_ms = run->opened_ms;
    out->closed_ms = run->closed_ms;
    out->partial = run->partial;
    out->reasons = (const char *const *)run->reasons;
    out->nreasons = run->nreasons;
    out->checks = run->checks;
}

bool ts_runreport_references(const ts_runreport *r, const char *name)
{
    return rr_name_get((ts_runreport *)r, name, false) != NULL;
}

size_t ts_runreport_duplicates(const ts_runreport *r)
{
    size_t d = 0;

    for (size_t i = 0; i < r->nnames; i++)
        d += r->names[i]->ntests >= 2;
    return d;
}

int ts_runreport_duplicate_list(ts_runreport *r, ts_runreport_claim **out, size_t *count,
                                ts_error *err)
{
    size_t *idx = rr_sorted_names(r);
    ts_runreport_claim *claims = calloc(r->nnames ? r->nnames : 1, sizeof(*claims));
    size_t n = 0;

    if (idx == NULL || claims == NULL) {
        free(idx);
        free(claims);
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    for (size_t i = 0; i < r->nnames; i++) {
        const rr_name *nm = r->names[idx[i]];

        if (nm->ntests < 2)
            continue;
        claims[n].name = nm->name;
        claims[n].tests = (const char *const *)nm->tests;
        claims[n].ntests = nm->ntests;
        n++;
    }
    free(idx);
    *out = claims;
    *count = n;
    return 0;
}

int ts_runreport_repeats(ts_runreport *r, ts_runreport_repeat **out, size_t *count, ts_error *err)
{
    size_t *idx = rr_sorted_names(r);
    ts_runreport_repeat *reps = calloc(r->nnames ? r->nnames : 1, sizeof(*reps));
    size_t n = 0;

    if (idx == NULL || reps == NULL) {
        free(idx);
        free(reps);
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    for (size_t i = 0; i < r->nnames; i++) {
        const rr_name *nm = r->names[idx[i]];
        ts_runreport_repeat *rep = &reps[n];

        if (nm->observations < 2)
            continue;
        rep->name = nm->name;
        rep->observations = nm->observations;
        memcpy(rep->outcomes, nm->outcomes, sizeof(rep->outcomes));
        rep->k = nm->outcomes[TS_RUNREPORT_PASSED] + nm->outcomes[TS_RUNREPORT_FAILED];
        rep->pass_all = rep->k == 0 ? -1 : nm->outcomes[TS_RUNREPORT_FAILED] == 0;
        rep->pass_any = rep->k == 0 ? -1 : nm->outcomes[TS_RUNREPORT_PASSED] > 0;
        rep->lists = nm->lists;
        rep->nlists = nm->nlists;
        rep->unlisted = nm->unlisted;
        rep->rules = nm->rules;
        n++;
    }
    free(idx);
    *out = reps;
    *count = n;
    return 0;
}

/* ---- merging --------------------------------------------------------- */

int rr_merge(ts_runreport *dst, ts_runreport *src)
{
    size_t base = dst->nruns;

    if (rr_grow(&dst->runs, &dst->capruns, dst->nruns + src->nruns, sizeof(rr_run)) < 0 ||
        rr_grow(&dst->checks, &dst->capchecks, dst->nchecks + src->nchecks, sizeof(rr_check)) < 0)
        return -ENOMEM;
    for (size_t i = 0; i < src->nnames; i++) {
        rr_name *s = src->names[i];
        rr_name *d = rr_name_get(dst, s->name, true);

        if (d == NULL || (d->rules == NULL && rr_rules_intern(dst, s->rules, &d->rules) < 0))
            return -ENOMEM;
        for (size_t t = 0; t < s->ntests; t++) {
            if (rr_name_claim(d, s->tests[t]) < 0)
                return -ENOMEM;
        }
        for (size_t l = 0; l < s->nlists; l++) {
            const ts_runreport_list *sl = &s->lists[l];

            for (int o = 0; o < TS_RUNREPORT_OUTCOMES; o++) {
                if (sl->outcomes[o] > 0 && rr_name_observe(d, (ts_runreport_outcome)o, sl->id,
                                                           sl->calls, sl->outcomes[o]) < 0)
                    return -ENOMEM;
            }
        }
        /* Observations without a list keep their outcomes. */
        for (int o = 0; o < TS_RUNREPORT_OUTCOMES; o++) {
            int64_t listed = 0;

            for (size_t l = 0; l < s->nlists; l++)
                listed += s->lists[l].outcomes[o];
            d->outcomes[o] += s->outcomes[o] - listed;
            d->observations += s->outcomes[o] - listed;
        }
        d->unlisted += s->unlisted;
    }
    if (rr_calls_merge(dst, src) < 0)
        return -ENOMEM;
    /* Nothing below can fail: the arrays are large enough. */
    memcpy(&dst->runs[base], src->runs, src->nruns * sizeof(rr_run));
    dst->nruns += src->nruns;
    for (size_t i = 0; i < src->nchecks; i++) {
        if (dst->nchecks >= TS_RUNREPORT_MAX_CHECKS) {
            check_clear(&src->checks[i]);
            dst->omitted++;
            continue;
        }
        src->checks[i].run += base;
        dst->checks[dst->nchecks++] = src->checks[i];
    }
    dst->omitted += src->omitted;
    dst->counted += src->counted;
    rr_counts_add(&dst->counts, &src->counts);
    src->nruns = 0;
    src->nchecks = 0;
    return 0;
}

/* ---- helpers --------------------------------------------------------- */

int ts_runreport_cut(const char *report, size_t len, size_t max, ts_buf *out)
{
    size_t keep = len;

    if (len <= max)
        return ts_buf_append(out, report, len);
    keep = max;
    while (keep > 0 && report[keep - 1] != '\n')
        keep--;
    if (keep == 0)
        keep = ts_utf8_cut(report, len, max);
    if (ts_buf_append(out, report, keep) < 0)
        return -ENOMEM;
    return ts_buf_appendf(out, "%s... report cut: %zu of its %zu bytes not kept\n",
                          keep > 0 && report[keep - 1] != '\n' ? "\n" : "", len - keep, len);
}

void ts_runreport_format_time(int64_t ms, char out[32])
{
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;

    if (ms < 0 || gmtime_r(&secs, &tm) == NULL) {
        snprintf(out, 32, "1970-01-01T00:00:00.000Z");
        return;
    }
    size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);

    snprintf(out + n, 32 - n, ".%03dZ", (int)(ms % 1000));
}

int ts_runreport_parse_time(const char *s, int64_t *ms)
{
    static const char shape[] = "dddd-dd-ddTdd:dd:dd.dddZ";
    struct tm tm;
    char again[32];
    int64_t v;

    if (s == NULL || strlen(s) != sizeof(shape) - 1)
        return -EINVAL;
    for (size_t i = 0; shape[i] != '\0'; i++) {
        if (shape[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != shape[i])
            return -EINVAL;
    }
    memset(&tm, 0, sizeof(tm));
    tm.tm_year = atoi(s) - 1900;
    tm.tm_mon = atoi(s + 5) - 1;
    tm.tm_mday = atoi(s + 8);
    tm.tm_hour = atoi(s + 11);
    tm.tm_min = atoi(s + 14);
    tm.tm_sec = atoi(s + 17);
    v = (int64_t)timegm(&tm) * 1000 + atoi(s + 20);
    /* A date that does not exist (02-30, 25:00) does not read back. */
    ts_runreport_format_time(v, again);
    if (v < 0 || strcmp(again, s) != 0)
        return -EINVAL;
    *ms = v;
    return 0;
}
