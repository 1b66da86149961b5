/*
 * fuzz_rules — arbitrary bytes as a rules file (docs/rules.md), checking
 * what must hold for every input:
 *   - ts_rules_parse either refuses it with code "invalid_rules" and a
 *     one-line message naming the source, or compiles it;
 *   - compiled rules merge with themselves and with the empty object;
 *   - under the rules, a call list compared with itself passes (rules only
 *     relax), two lists score with every rate in [0, 1], the notes and the
 *     "rules applied" JSON are produced, and the drift report renders;
 *   - redaction is idempotent (a second pass redacts nothing).
 *
 * Input: the rules text, then optionally a NUL byte and a JSON document
 * {"expected": [...], "actual": [...]} of calls to compare (a built-in
 * pair when absent or invalid).
 */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_common.h"
#include "lib/base/ts_base.h"
#include "lib/json/ts_json.h"
#include "lib/report/ts_report.h"
#include "lib/rules/ts_rules.h"
#include "lib/score/ts_score.h"

static const char fuzz_rules_default_calls[] =
    "{\"expected\": [{\"tool\": \"search\", \"args\": {\"q\": \"a\", \"request_id\": 1, \"f\": "
    "{\"ts\": [1, 2], \"k\": \"v\"}}}, {\"tool\": \"log\"}, {\"tool\": \"book\", \"args\": "
    "{\"id\": "
    "2.5, \"items\": [{\"id\": 1}, {\"id\": 2}]}}],"
    " \"actual\": [{\"tool\": \"book\", \"args\": {\"id\": 2, \"items\": [{\"id\": 2}]}}, "
    "{\"tool\": \"search\", \"args\": {\"q\": \"ab\", \"request_id\": 2, \"api_key\": \"k\"}}]}";

static void fuzz_rules_error(const ts_error *err, int rc)
{
    FUZZ_CHECK(rc < 0, "rc %d", rc);
    FUZZ_CHECK(strcmp(err->code, TS_ERR_INVALID_RULES) == 0 ||
                   strcmp(err->code, TS_ERR_NO_MEMORY) == 0,
               "code %s: %s", err->code, err->message);
    FUZZ_CHECK(strncmp(err->message, "fuzz: ", 6) == 0, "source not named: %s", err->message);
    FUZZ_CHECK(strchr(err->message, '\n') == NULL, "message of several lines: %s", err->message);
}

static bool fuzz_rate(double v)
{
    return v >= 0.0 && v <= 1.0 && !isnan(v);
}

static void fuzz_rules_compare(const ts_rules *r, struct json_object *e, struct json_object *a)
{
    ts_score_result res;
    ts_rules_applied applied;
    ts_report_options ropt;
    struct json_object *j;
    ts_buf b;
    ts_error err;
    char **lines = NULL;
    size_t n = 0;
    int rc = ts_rules_evaluate(r, e, a, NULL, false, &res, &applied, &err);

    if (rc < 0) {
        FUZZ_CHECK(strcmp(err.code, TS_ERR_INVALID_CALLS) == 0, "evaluate: %s", err.message);
        ts_rules_applied_free(&applied);
        return;
    }
    FUZZ_CHECK(fuzz_rate(res.selection_accuracy) && fuzz_rate(res.argument_f1) &&
                   fuzz_rate(res.sequence_accuracy) && fuzz_rate(res.redundant_rate),
               "a rate outside [0, 1]");
    FUZZ_CHECK(res.score >= 0.0 && res.score <= 1.0 + 1e-12, "score %g", res.score);
    j = ts_rules_applied_to_json(&applied);
    FUZZ_CHECK(ts_rules_empty(r) || j != NULL, "no rules applied for rules in force");
    json_object_put(j);
    FUZZ_CHECK(ts_rules_applied_note_lines(&applied, &lines, &n) == 0, "notes");
    ts_report_options_default(&ropt);
    ropt.notes = (const char *const *)lines;
    ropt.n_notes = n;
    ropt.compare = ts_rules_applied_compare(&applied);
    ts_buf_init(&b, 1u << 24);
    rc = ts_report_drift(applied.expected, applied.actual, &res, &ropt, &b, &err);
    FUZZ_CHECK(rc == 0, "report: %s", err.message);
    FUZZ_CHECK(ts_utf8_valid(b.data ? b.data : "", b.len), "report is not UTF-8");
    ts_buf_free(&b);
    free(lines);
    ts_score_result_free(&res);
    ts_rules_applied_free(&applied);
}

static void fuzz_rules_self(const ts_rules *r, struct json_object *calls)
{
    ts_score_result res;
    ts_rules_applied applied;
    ts_error err;

    if (ts_rules_evaluate(r, calls, calls, NULL, false, &res, &applied, &err) == 0) {
        FUZZ_CHECK(res.passed, "a list against itself failed under rules (score %.17g)", res.score);
        ts_score_result_free(&res);
    }
    ts_rules_applied_free(&applied);
}

static void fuzz_rules_redact(const ts_rules *r, struct json_object *calls)
{
    struct json_object *once = NULL, *twice = NULL;
    size_t count = 0;
    ts_error err;

    if (ts_calls_validate(calls, "calls", &err) < 0)
        return;
    FUZZ_CHECK(ts_rules_redact(r, calls, &once, &count, &err) == 0, "redact: %s", err.message);
    FUZZ_CHECK(ts_rules_redact(r, once, &twice, &count, &err) == 0, "redact: %s", err.message);
    FUZZ_CHECK(count == 0 && twice == once, "redaction is not idempotent (%zu)", count);
    json_object_put(once);
    json_object_put(twice);
}

int ts_fuzz_rules(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *zero = memchr(data, '\0', size);
    size_t len = zero ? (size_t)(zero - text) : size;
    struct json_object *doc = NULL, *e, *a;
    ts_rules *r = NULL, *m = NULL;
    ts_error err;
    int rc = ts_rules_parse(text, len, "fuzz", &r, &err);

    if (rc < 0) {
        fuzz_rules_error(&err, rc);
        return 0;
    }
    FUZZ_CHECK(ts_rules_merge(r, r, &m, &err) == 0, "merge: %s", err.message);
    ts_rules_unref(m);
    if (zero == NULL || ts_json_parse(zero + 1, size - len - 1, 0, &doc, &err) < 0 ||
        !json_object_is_type(doc, json_type_object)) {
        json_object_put(doc);
        doc = NULL;
        FUZZ_CHECK(ts_json_parse(fuzz_rules_default_calls, strlen(fuzz_rules_default_calls), 0,
                                 &doc, &err) == 0,
                   "built-in calls: %s", err.message);
    }
    e = json_object_object_get(doc, "expected");
    a = json_object_object_get(doc, "actual");
    fuzz_rules_compare(r, e, a);
    fuzz_rules_self(r, e);
    fuzz_rules_self(r, a);
    fuzz_rules_redact(r, a);
    json_object_put(doc);
    ts_rules_unref(r);
    return 0;
}

#ifdef TS_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return ts_fuzz_rules(data, size);
}
#endif
