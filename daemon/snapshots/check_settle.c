/*
 * check_settle — a check's params and its pass through the state machine
 * (see snapshots_internal.h).
 */
#include "snapshots_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/check/ts_check.h"
#include "lib/report/ts_report.h"
#include "lib/rules/ts_rules.h"
#include "lib/score/ts_score.h"

#define REPORT_MAX (4u << 20)

/* The longest "tsctl" param: a path (PATH_MAX) and a few words. */
#define TSCTL_MAX 4200

/* Whether a "tsctl" param is printable into the check's texts: not empty,
 * not too long, and every character showing as itself (a control
 * character would reach the user's terminal). */
static bool tsctl_valid(const char *tsctl)
{
    size_t len = strlen(tsctl);

    return len > 0 && len <= TSCTL_MAX && ts_shell_shows(tsctl, len);
}

/* The params of a check. raw: "actual" is still bytes (decoded later). */
int tsd_check_parse(const struct json_object *params, bool raw, tsd_check_request *rq,
                    ts_error *err)
{
    struct json_object *weights, *rules;
    tsd_params p;
    int rc;

    memset(rq, 0, sizeof(*rq));
    ts_score_options_default(&rq->score);
    tsd_params_init(&p, params, err);
    rq->store = tsd_params_string(&p, "store", true);
    rq->name = tsd_params_name(&p, "name");
    if (!raw)
        rq->actual = tsd_params_value(&p, "actual");
    rq->format = tsd_params_format(&p, "format");
    rq->score.min_score = tsd_params_number(&p, "min_score", 1.0);
    if (tsd_params_error(&p) == 0)
        tsd_params_fail(&p, ts_score_check_min(rq->score.min_score, err));
    weights = tsd_params_object(&p, "weights");
    if (weights != NULL)
        tsd_params_fail(&p, ts_weights_from_json(weights, &rq->score.weights, err));
    rq->score.strict = tsd_params_bool(&p, "strict", false);
    rq->ci = tsd_params_bool(&p, "ci", false);
    rq->update = tsd_params_bool(&p, "update", false);
    rq->allow_pending = tsd_params_bool(&p, "allow_pending", false);
    rq->color = tsd_params_bool(&p, "color", false);
    rq->width = tsd_params_width(&p, "width");
    rq->json_diff = tsd_params_bool(&p, "json_diff", true);
    rq->run = tsd_params_string(&p, "run", false);
    rq->test = tsd_params_string(&p, "test", false);
    rq->source = tsd_params_source(&p, "pytest");
    rq->tsctl = tsd_params_string(&p, "tsctl", false);
    if (rq->tsctl != NULL && tsd_params_error(&p) == 0 && !tsctl_valid(rq->tsctl))
        tsd_params_fail(&p, ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                                         "'tsctl' must be the command that runs tsctl, 1 to %d "
                                         "bytes that show as themselves on a terminal",
                                         TSCTL_MAX));
    rules = tsd_params_object(&p, "rules");
    if (rules != NULL && tsd_params_error(&p) == 0)
        tsd_params_fail(&p, ts_rules_from_json(rules, "rules", &rq->rules, err));
    rc = tsd_params_error(&p);
    return rc;
}

/* The state machine's input for rq, its rules and the observed calls. */
void tsd_check_input(const tsd_check_request *rq, const char *file, const ts_rules *rules,
                     const struct json_object *calls, ts_check_input *in)
{
    ts_check_input_init(in, rq->name, &rq->score);
    in->file = file;
    in->rules = rules;
    in->ci = rq->ci;
    in->update = rq->update;
    in->allow_pending = rq->allow_pending;
    in->calls = calls;
    in->tsctl = rq->tsctl;
}

/*
 * Take in (the file read, or update on) to its outcome: evaluate when the
 * state machine asks, then the message and, for FAILED, the report, all
 * into out; what to write is left in out->decision. known: the score of
 * these calls, already worked out (taken over: released when not used),
 * or NULL. redacted: the values the redact rules replaced in the observed
 * calls before (per pattern), counted in what the rules did.
 */
int tsd_check_settle(const tsd_check_request *rq, ts_check_input *in, ts_score_result *known,
                     const size_t *redacted, tsd_check_outcome *out, ts_error *err)
{
    ts_check_decision *d = &out->decision;
    ts_report_options ropt;
    struct json_object *expected = in->snapshot != NULL ? in->snapshot->calls : NULL;
    const struct json_object *actual = in->calls;
    char **notes = NULL;
    ts_buf report;
    int rc = 0;

    ts_report_options_default(&ropt);
    ropt.color = rq->color;

    ts_check_decide(in, d);
    if (d->step == TS_CHECK_EVALUATE) {
        if (known != NULL) {
            out->scored = *known; /* owned by out from here */
            known = NULL;
        } else {
            rc = ts_check_evaluate(in, &out->scored, &out->applied, err);
            /* the observed calls' secrets, redacted before the comparison saw them */
            ts_rules_applied_add_redacted(&out->applied, redacted);
        }
        if (rc < 0)
            return rc;
        out->score = out->scored.score;
        in->score = &out->scored;
        ts_check_decide(in, d);
    }
    if (known != NULL)
        ts_score_result_free(known);
    out->message = ts_check_message(in, d);
    if (out->message == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    if (d->report) {
        ropt.width = (size_t)rq->width;
        ropt.json_diff = rq->json_diff;
        if (out->applied.rules != NULL) { /* the lists as compared, and what was hidden */
            expected = out->applied.expected;
            actual = out->applied.actual;
            ropt.compare = ts_rules_applied_compare(&out->applied);
            rc = ts_rules_applied_note_lines(&out->applied, &notes, &ropt.n_notes);
            ropt.notes = (const char *const *)notes;
        }
        ts_buf_init(&report, REPORT_MAX);
        if (rc == 0)
            rc = ts_report_drift(expected, actual, in->score, &ropt, &report, err);
        out->report = rc == 0 ? ts_buf_detach(&report, NULL) : NULL;
        /* the failure's text ends with the commands that accept it and review all */
        ts_buf_init(&report, TS_BUF_UNLIMITED);
        if (rc == 0 && ts_check_next_steps(in, d, &report) == 0 && report.len > 0)
            out->next_steps = ts_buf_detach(&report, NULL);
        if (rc == 0 && ts_buf_error(&report) < 0)
            rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
        ts_buf_free(&report);
        free(notes);
        if (rc == -ENOMEM && err != NULL && err->code[0] == '\0')
            ts_error_set(err, rc, TS_ERR_NO_MEMORY, "out of memory");
    }
    return rc;
}
