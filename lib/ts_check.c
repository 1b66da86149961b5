/*
 * ts_check — the snapshot state machine, approval, trace import and the
 * racy-timestamp rule (see ts_check.h).
 */
#include "ts_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_report.h"

static const char *const outcome_names[] = {
    [TS_CHECK_NO_OUTCOME] = "",
    [TS_CHECK_CREATED] = "CREATED",
    [TS_CHECK_UPDATED] = "UPDATED",
    [TS_CHECK_PENDING] = "PENDING",
    [TS_CHECK_PASSED] = "PASSED",
    [TS_CHECK_FAILED] = "FAILED",
    [TS_CHECK_ERROR_MISSING_IN_CI] = "ERROR_MISSING_IN_CI",
    [TS_CHECK_ERROR_PENDING_IN_CI] = "ERROR_PENDING_IN_CI",
};

#define OUTCOME_COUNT (sizeof(outcome_names) / sizeof(outcome_names[0]))

void ts_check_input_init(ts_check_input *in, const char *name, const ts_score_options *options)
{
    memset(in, 0, sizeof(*in));
    in->name = name;
    in->options = options;
}

ts_check_state ts_check_state_of(const ts_snapshot *snapshot)
{
    if (snapshot == NULL)
        return TS_CHECK_MISSING;
    return snapshot->approved ? TS_CHECK_APPROVED : TS_CHECK_UNAPPROVED;
}

static void done(ts_check_decision *d, ts_check_outcome outcome)
{
    d->step = TS_CHECK_DONE;
    d->outcome = outcome;
}

void ts_check_decide(const ts_check_input *in, ts_check_decision *d)
{
    bool strict_ci = in->ci && !in->allow_pending;

    memset(d, 0, sizeof(*d));
    if (in->update) {
        done(d, TS_CHECK_UPDATED);
        d->write = true;
        d->approved = true;
        d->may_exist = true;
        return;
    }
    switch (in->state) {
    case TS_CHECK_UNREAD:
        d->step = TS_CHECK_READ;
        return;
    case TS_CHECK_MISSING:
        if (strict_ci) {
            done(d, TS_CHECK_ERROR_MISSING_IN_CI);
            return;
        }
        done(d, TS_CHECK_CREATED);
        d->write = true;
        return;
    case TS_CHECK_UNAPPROVED:
        done(d, strict_ci ? TS_CHECK_ERROR_PENDING_IN_CI : TS_CHECK_PENDING);
        return;
    case TS_CHECK_APPROVED:
        if (in->score == NULL) {
            d->step = TS_CHECK_EVALUATE;
            return;
        }
        done(d, in->score->passed ? TS_CHECK_PASSED : TS_CHECK_FAILED);
        d->evaluated = true;
        d->report = !in->score->passed;
        return;
    }
    d->step = TS_CHECK_READ; /* not a state: read the file */
}

int ts_check_evaluate(const ts_check_input *in, ts_score_result *out, ts_rules_applied *applied,
                      ts_error *err)
{
    ts_rules_applied mine;
    int rc;

    if (applied == NULL)
        applied = &mine;
    if (in->snapshot == NULL || in->calls == NULL) {
        memset(applied, 0, sizeof(*applied));
        return ts_error_set(err, -EINVAL, TS_ERR_INTERNAL,
                            "snapshot '%s': nothing to evaluate (no baseline or no calls)",
                            in->name);
    }
    rc = ts_rules_evaluate(in->rules, in->snapshot->calls, in->calls, in->options, true, out,
                           applied, err);
    if (applied == &mine)
        ts_rules_applied_free(&mine);
    return rc;
}

static char *message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A new string (NULL when out of memory). */
static char *message(const char *fmt, ...)
{
    char *out = NULL;
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vasprintf(&out, fmt, ap);
    va_end(ap);
    return n < 0 ? NULL : out;
}

char *ts_check_message(const ts_check_input *in, const ts_check_decision *d)
{
    const char *n = in->name;

    if (d->step != TS_CHECK_DONE)
        return NULL;
    switch (d->outcome) {
    case TS_CHECK_CREATED:
        return message("snapshot '%s' created - review it, then approve with `tsctl approve`", n);
    case TS_CHECK_UPDATED:
        return message("snapshot '%s' updated (calls overwritten and approved)", n);
    case TS_CHECK_PENDING:
        return message(
            "snapshot '%s' pending approval - run `tsctl approve` to use it as a baseline", n);
    case TS_CHECK_ERROR_MISSING_IN_CI:
        return message("snapshot '%s' does not exist; snapshots cannot be created in CI. Run the "
                       "test locally to record it, review it, then approve with `tsctl approve`.",
                       n);
    case TS_CHECK_ERROR_PENDING_IN_CI:
        return message("snapshot '%s' is pending approval; an unapproved snapshot cannot be used "
                       "as a baseline in CI. Approve it locally with `tsctl approve`.",
                       n);
    case TS_CHECK_PASSED:
        if (in->score == NULL)
            return NULL;
        return message("snapshot '%s' matches its approved baseline (score %.2f)", n,
                       in->score->score);
    case TS_CHECK_FAILED:
        if (in->score == NULL)
            return NULL;
        /* as many digits as keep a failing score below the threshold */
        return message("snapshot '%s' drifted from its approved baseline "
                       "(score %.*f < %.*f required)",
                       n, ts_report_score_decimals(in->score->score, in->score->min_score, false),
                       in->score->score, ts_report_threshold_decimals(in->score->min_score),
                       in->score->min_score);
    case TS_CHECK_NO_OUTCOME:
        break;
    }
    return NULL;
}

const char *ts_check_outcome_name(ts_check_outcome outcome)
{
    if ((size_t)outcome >= OUTCOME_COUNT)
        return "";
    return outcome_names[outcome];
}

ts_check_outcome ts_check_outcome_parse(const char *name)
{
    for (size_t i = 1; name != NULL && i < OUTCOME_COUNT; i++) {
        if (strcmp(outcome_names[i], name) == 0)
            return (ts_check_outcome)i;
    }
    return TS_CHECK_NO_OUTCOME;
}

int ts_check_approve(ts_snapshot *snapshot, bool *write, ts_error *err)
{
    *write = false;
    if (snapshot->approved)
        return 0;
    *write = true;
    return ts_snapshot_approve(snapshot, err);
}

bool ts_check_approve_selects(const ts_snapshot *snapshot)
{
    return !snapshot->approved;
}

int ts_check_record(const char *name, const char *file, bool exists, bool update,
                    ts_check_decision *d, ts_error *err)
{
    memset(d, 0, sizeof(*d));
    if (exists && !update)
        return ts_error_set(err, -EEXIST, TS_ERR_EXISTS,
                            "snapshot '%s' already exists (%s); record with update to overwrite "
                            "and approve it",
                            name, file);
    done(d, update ? TS_CHECK_UPDATED : TS_CHECK_CREATED);
    d->write = true;
    d->approved = update;
    d->may_exist = exists;
    return 0;
}

bool ts_check_stamp_trusted(int64_t mtime_ns, int64_t ctime_ns, int64_t read_ns, int64_t margin_ns)
{
    return mtime_ns < read_ns - margin_ns && ctime_ns < read_ns - margin_ns;
}
