/*
 * ts_check — the snapshot state machine, approval, trace import and the
 * racy-timestamp rule (see ts_check.h).
 */
#include "lib/check/ts_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"
#include "lib/report/ts_report.h"

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

/* Whether the observed calls equal those of the snapshot read. */
static bool same_calls(const ts_check_input *in)
{
    return in->snapshot != NULL && in->calls != NULL &&
           ts_json_equal(in->snapshot->calls, in->calls);
}

/* update: UPDATED once the file was read, writing only what changes. */
static void decide_update(const ts_check_input *in, ts_check_decision *d)
{
    if (in->state == TS_CHECK_UNREAD) {
        d->step = TS_CHECK_READ;
        return;
    }
    done(d, TS_CHECK_UPDATED);
    d->keep = TS_CHECK_KEEP_DROP;
    if (in->state == TS_CHECK_APPROVED && same_calls(in)) {
        d->unchanged = true;
        return;
    }
    d->write = true;
    d->approved = true;
    d->may_exist = in->state != TS_CHECK_MISSING;
}

void ts_check_decide(const ts_check_input *in, ts_check_decision *d)
{
    bool strict_ci = in->ci && !in->allow_pending;

    memset(d, 0, sizeof(*d));
    if (in->update) {
        decide_update(in, d);
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
        d->keep = TS_CHECK_KEEP_DROP;
        return;
    case TS_CHECK_UNAPPROVED:
        d->differs = !same_calls(in);
        if (strict_ci) {
            done(d, TS_CHECK_ERROR_PENDING_IN_CI);
            return;
        }
        done(d, TS_CHECK_PENDING);
        d->keep = d->differs ? TS_CHECK_KEEP_WRITE : TS_CHECK_KEEP_DROP;
        return;
    case TS_CHECK_APPROVED:
        if (in->score == NULL) {
            d->step = TS_CHECK_EVALUATE;
            return;
        }
        done(d, in->score->passed ? TS_CHECK_PASSED : TS_CHECK_FAILED);
        d->evaluated = true;
        d->report = !in->score->passed;
        d->keep = in->score->passed ? TS_CHECK_KEEP_DROP : TS_CHECK_KEEP_WRITE;
        return;
    case TS_CHECK_UNREADABLE:
        done(d, TS_CHECK_NO_OUTCOME); /* the caller reports the read's error */
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

/* "TSCTL VERB 'NAME'": the command that runs tsctl for the check's reader,
 * the verb, and the name quoted for a shell (ts_shell_command). */
static void command(ts_buf *b, const ts_check_input *in, const char *verb, const char *name)
{
    ts_buf_appends(b, in->tsctl != NULL ? in->tsctl : "tsctl");
    ts_buf_appendc(b, ' ');
    if (name == NULL)
        ts_buf_appends(b, verb);
    else
        ts_shell_command(b, verb, name);
}

/* The decided check's message into b (the commands in it name the snapshot
 * quoted for a shell, lib/base's ts_shell). 0, -ENOMEM, or 1 when there is
 * no message. */
static int write_message(const ts_check_input *in, const ts_check_decision *d, ts_buf *b)
{
    const char *n = in->name;

    switch (d->outcome) {
    case TS_CHECK_CREATED:
        ts_buf_appendf(b, "snapshot '%s' created", n);
        if (in->file != NULL)
            ts_buf_appendf(b, ": %s", in->file);
        ts_buf_appends(b, " - review it, then approve with `");
        command(b, in, "approve", n);
        ts_buf_appends(b, "`");
        break;
    case TS_CHECK_UPDATED:
        if (d->unchanged)
            ts_buf_appendf(b, "snapshot '%s' unchanged (its calls are already the approved ones)",
                           n);
        else
            ts_buf_appendf(b, "snapshot '%s' updated (calls overwritten and approved)", n);
        break;
    case TS_CHECK_PENDING:
        if (d->differs) {
            ts_buf_appendf(b,
                           "snapshot '%s' pending approval; the calls observed now differ from "
                           "the recording - `",
                           n);
            command(b, in, "accept", n);
            ts_buf_appends(b, "` records them");
        } else {
            ts_buf_appendf(b, "snapshot '%s' pending approval - run `", n);
            command(b, in, "approve", n);
            ts_buf_appends(b, "` to use it as a baseline");
        }
        break;
    case TS_CHECK_ERROR_MISSING_IN_CI:
        ts_buf_appendf(b,
                       "snapshot '%s' does not exist; snapshots cannot be created in CI. Run the "
                       "test locally to record it, then accept it with `",
                       n);
        command(b, in, "accept", n);
        ts_buf_appends(b, "` (or review everything with `");
        command(b, in, "review", NULL);
        ts_buf_appends(b, "`).");
        break;
    case TS_CHECK_ERROR_PENDING_IN_CI:
        ts_buf_appendf(b,
                       "snapshot '%s' is pending approval; an unapproved snapshot cannot be used "
                       "as a baseline in CI. Accept it locally with `",
                       n);
        command(b, in, "accept", n);
        ts_buf_appends(b, "` (or review everything with `");
        command(b, in, "review", NULL);
        ts_buf_appends(b, "`).");
        break;
    case TS_CHECK_PASSED:
        if (in->score == NULL)
            return 1;
        ts_buf_appendf(b, "snapshot '%s' matches its approved baseline (score %.2f)", n,
                       in->score->score);
        break;
    case TS_CHECK_FAILED:
        if (in->score == NULL)
            return 1;
        /* as many digits as keep a failing score below the threshold */
        ts_buf_appendf(b,
                       "snapshot '%s' drifted from its approved baseline "
                       "(score %.*f < %.*f required)",
                       n, ts_report_score_decimals(in->score->score, in->score->min_score, false),
                       in->score->score, ts_report_threshold_decimals(in->score->min_score),
                       in->score->min_score);
        break;
    case TS_CHECK_NO_OUTCOME:
        return 1;
    }
    return ts_buf_error(b);
}

char *ts_check_message(const ts_check_input *in, const ts_check_decision *d)
{
    ts_buf b;

    if (d->step != TS_CHECK_DONE)
        return NULL;
    ts_buf_init(&b, TS_BUF_UNLIMITED);
    if (write_message(in, d, &b) != 0 || b.data == NULL) {
        ts_buf_free(&b);
        return NULL;
    }
    return ts_buf_detach(&b, NULL);
}

int ts_check_next_steps(const ts_check_input *in, const ts_check_decision *d, ts_buf *out)
{
    if (d->step != TS_CHECK_DONE || d->outcome != TS_CHECK_FAILED)
        return 0;
    /* labels of at most 40 columns, the report's narrowest width */
    ts_buf_appends(out, in->ci ? "Run the test locally, then accept with:\n  "
                               : "To accept the observed calls:\n  ");
    command(out, in, "accept", in->name);
    ts_buf_appends(out, "\nTo review everything:\n  ");
    command(out, in, "review", NULL);
    ts_buf_appendc(out, '\n');
    return ts_buf_error(out);
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

int ts_check_record(const char *name, const char *file, bool exists, const ts_snapshot *existing,
                    const struct json_object *calls, bool update, ts_check_decision *d,
                    ts_error *err)
{
    memset(d, 0, sizeof(*d));
    if (exists && !update)
        return ts_error_set(err, -EEXIST, TS_ERR_EXISTS,
                            "snapshot '%s' already exists (%s); record with update to overwrite "
                            "and approve it",
                            name, file);
    done(d, update ? TS_CHECK_UPDATED : TS_CHECK_CREATED);
    d->keep = TS_CHECK_KEEP_DROP;
    if (update && exists && existing != NULL && existing->approved && calls != NULL &&
        ts_json_equal(existing->calls, calls)) {
        d->unchanged = true;
        return 0;
    }
    d->write = true;
    d->approved = update;
    d->may_exist = exists;
    return 0;
}

ts_check_accept_action ts_check_accept(const ts_snapshot *snapshot, bool have_observation,
                                       bool baseline_matches)
{
    if (have_observation)
        return snapshot != NULL && baseline_matches ? TS_CHECK_ACCEPT_OBSERVED
                                                    : TS_CHECK_ACCEPT_SUPERSEDED;
    if (snapshot == NULL)
        return TS_CHECK_ACCEPT_UNKNOWN;
    return snapshot->approved ? TS_CHECK_ACCEPT_NOTHING : TS_CHECK_ACCEPT_RECORDING;
}

ts_check_reject_plan ts_check_reject(const ts_snapshot *snapshot, bool have_observation)
{
    ts_check_reject_plan plan = {
        .known = snapshot != NULL || have_observation,
        .remove_snapshot = snapshot != NULL && !snapshot->approved,
        .drop_observation = have_observation,
    };

    return plan;
}

bool ts_check_stamp_trusted(int64_t mtime_ns, int64_t ctime_ns, int64_t read_ns, int64_t margin_ns)
{
    return mtime_ns < read_ns - margin_ns && ctime_ns < read_ns - margin_ns;
}
