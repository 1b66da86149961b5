/*
 * fuzz_extract — arbitrary bytes through the JSON reader, extraction and
 * scoring, checking what must hold for every input:
 *   - the reader either fails with a code and a one-line message, or gives a
 *     value the writer can write and the reader reads back to an equal value;
 *   - extraction either fails with code "format" and a one-line message, or
 *     gives an array of valid calls (for every format but "calls", each call
 *     exactly {"tool": non-empty string, "args": object}); auto-detection
 *     and the explicit detected format agree;
 *   - scoring valid calls succeeds with every rate in [0, 1], and the drift
 *     report of the pair renders as valid UTF-8.
 *
 * Input: an optional first line "#<format>" or "#<format> file" choosing the
 * format and origin (default: auto, in-memory response), then one JSON
 * document. A document {"expected": [...], "actual": ..., "weights": {...},
 * "strict": bool, "min_score": number} scores actual (extracted) against
 * expected with those options.
 */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_common.h"
#include "lib/base/ts_base.h"
#include "lib/extract/ts_extract.h"
#include "lib/json/ts_json.h"
#include "lib/report/ts_report.h"
#include "lib/score/ts_score.h"

#define FUZZ_FORMAT_MAX 40

typedef struct fuzz_input {
    char format[FUZZ_FORMAT_MAX]; /* "" for auto */
    ts_extract_origin origin;
    const char *json;
    size_t json_len;
} fuzz_input;

static void fuzz_split(const uint8_t *data, size_t size, fuzz_input *in)
{
    const char *text = (const char *)data;
    const char *nl;
    size_t n;

    memset(in, 0, sizeof(*in));
    in->origin = TS_EXTRACT_RESPONSE;
    in->json = text;
    in->json_len = size;
    if (size == 0 || text[0] != '#')
        return;
    nl = memchr(text, '\n', size < FUZZ_FORMAT_MAX + 8 ? size : FUZZ_FORMAT_MAX + 8);
    if (nl == NULL)
        return;
    n = (size_t)(nl - text) - 1;
    if (n >= 5 && memcmp(text + 1 + n - 5, " file", 5) == 0) {
        in->origin = TS_EXTRACT_FILE;
        n -= 5;
    }
    if (n < FUZZ_FORMAT_MAX) {
        memcpy(in->format, text + 1, n);
        in->format[n] = '\0';
    }
    in->json = nl + 1;
    in->json_len = size - (size_t)(nl + 1 - text);
}

static void fuzz_check_error(const ts_error *err, int rc, const char *what)
{
    FUZZ_CHECK(rc < 0, "%s: rc %d", what, rc);
    FUZZ_CHECK(err->code[0] != '\0', "%s: empty error code", what);
    FUZZ_CHECK(err->message[0] != '\0', "%s: empty error message", what);
    FUZZ_CHECK(strchr(err->message, '\n') == NULL, "%s: message not one line: %s", what,
               err->message);
}

/* Writing v and reading it back gives an equal value (both writers). */
static void fuzz_json_round_trip(const struct json_object *v)
{
    int pretty;

    for (pretty = 0; pretty < 2; pretty++) {
        struct json_object *back = NULL;
        ts_error err;
        ts_buf b;
        int rc;

        ts_buf_init(&b, TS_JSON_MAX_BYTES);
        rc = pretty ? ts_json_write_pretty(v, &b, &err) : ts_json_write_compact(v, &b, &err);
        FUZZ_CHECK(rc == 0, "writing a parsed value failed: %s", err.message);
        rc = ts_json_parse(b.data ? b.data : "null", b.data ? b.len : 4, 0, &back, &err);
        FUZZ_CHECK(rc == 0, "reading written JSON failed: %s", err.message);
        FUZZ_CHECK(json_object_equal((struct json_object *)v, back), "round trip changed %s",
                   b.data);
        json_object_put(back);
        ts_buf_free(&b);
    }
}

static void fuzz_check_result(const ts_score_result *r)
{
    const double rates[] = {
        r->score,           r->invocation_accuracy, r->selection_accuracy,  r->argument_precision,
        r->argument_recall, r->argument_f1,         r->normalized_distance, r->sequence_accuracy,
        r->redundant_rate,  r->tool_correctness,    r->trajectory_accuracy, r->step_match_rate,
        r->path_efficiency,
    };
    struct json_object *j;
    size_t i;

    for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
        FUZZ_CHECK(isfinite(rates[i]) && rates[i] >= -1e-9 && rates[i] <= 1.0 + 1e-9,
                   "rate %zu is %g", i, rates[i]);
    FUZZ_CHECK(r->grade >= 'A' && r->grade <= 'F', "grade %c", r->grade);
    FUZZ_CHECK(r->edit_distance >= 0 && isfinite(r->edit_distance), "edit distance %g",
               r->edit_distance);
    j = ts_score_result_to_json(r);
    FUZZ_CHECK(j != NULL, "result to JSON failed");
    fuzz_json_round_trip(j);
    json_object_put(j);
}

/* The drift report of a scored pair renders (with and without colour, at
 * the narrowest and the default width) as valid UTF-8: it goes to
 * terminals, CI logs and the wire as a string. fuzz_report.c checks the
 * report's layout itself. */
static void fuzz_report(const struct json_object *expected, const struct json_object *actual,
                        const ts_score_result *r)
{
    int color;

    for (color = 0; color < 2; color++) {
        ts_report_options opt;
        ts_error err;
        ts_buf b;
        int rc;

        ts_report_options_default(&opt);
        opt.color = color;
        opt.width = color ? TS_REPORT_WIDTH_MIN : 0;
        ts_buf_init(&b, TS_JSON_MAX_BYTES);
        rc = ts_report_drift(expected, actual, r, &opt, &b, &err);
        FUZZ_CHECK(rc == 0, "drift report failed: %s", err.message);
        FUZZ_CHECK(b.len > 0 && ts_utf8_valid(b.data, b.len), "drift report is not UTF-8");
        ts_buf_free(&b);
    }
}

static void fuzz_score(const struct json_object *expected, const struct json_object *actual,
                       const ts_score_options *opt)
{
    ts_score_result r;
    ts_error err;
    int rc;

    rc = ts_evaluate(expected, actual, opt, &r, &err);
    if (rc < 0) {
        fuzz_check_error(&err, rc, "ts_evaluate");
        return;
    }
    fuzz_check_result(&r);
    fuzz_report(expected, actual, &r);
    ts_score_result_free(&r);
}

/* Every call of a non-"calls" format is exactly {"tool": "...", "args": {}}. */
static void fuzz_check_normalized(const struct json_object *calls)
{
    size_t i;

    for (i = 0; i < json_object_array_length(calls); i++) {
        struct json_object *call = json_object_array_get_idx(calls, i);
        struct json_object *tool = json_object_object_get(call, "tool");
        struct json_object *args = json_object_object_get(call, "args");

        FUZZ_CHECK(json_object_is_type(call, json_type_object) &&
                       json_object_object_length(call) == 2,
                   "call %zu is not {tool, args}", i);
        FUZZ_CHECK(json_object_is_type(tool, json_type_string) &&
                       json_object_get_string_len(tool) > 0,
                   "call %zu has no tool name", i);
        FUZZ_CHECK(json_object_is_type(args, json_type_object), "call %zu args not an object", i);
    }
}

/* Extract; NULL when extraction (rightly) failed. */
static struct json_object *fuzz_extract_calls(const struct json_object *doc, const fuzz_input *in)
{
    const char *format = in->format[0] ? in->format : NULL;
    const char *detected = ts_extract_detect(doc);
    struct json_object *calls = (struct json_object *)&calls;
    struct json_object *again = NULL;
    ts_error err;
    int rc;

    rc = ts_extract(doc, format, in->origin, &calls, &err);
    if (rc < 0) {
        fuzz_check_error(&err, rc, "ts_extract");
        FUZZ_CHECK(calls == NULL, "calls_out not reset on failure");
        FUZZ_CHECK(strcmp(err.code, TS_ERR_FORMAT) == 0, "code %s", err.code);
        return NULL;
    }
    FUZZ_CHECK(json_object_is_type(calls, json_type_array), "result is not an array");
    if (format == NULL) {
        FUZZ_CHECK(detected != NULL, "auto succeeded without a detected format");
        format = detected;
        rc = ts_extract(doc, detected, in->origin, &again, &err);
        FUZZ_CHECK(rc == 0, "explicit %s failed where auto passed: %s", detected, err.message);
        FUZZ_CHECK(json_object_equal(calls, again), "explicit %s differs from auto", detected);
        json_object_put(again);
    }
    if (strcmp(format, "calls") != 0) {
        fuzz_check_normalized(calls);
        rc = ts_calls_validate(calls, "actual", &err);
        FUZZ_CHECK(rc == 0, "extracted calls fail validation: %s", err.message);
    }
    fuzz_json_round_trip(calls);
    return calls;
}

static void fuzz_eval_case(const struct json_object *doc, const fuzz_input *in)
{
    struct json_object *expected = json_object_object_get(doc, "expected");
    struct json_object *weights = json_object_object_get(doc, "weights");
    struct json_object *strict = json_object_object_get(doc, "strict");
    struct json_object *min_score = json_object_object_get(doc, "min_score");
    struct json_object *calls;
    ts_score_options opt;
    ts_error err;
    int rc;

    ts_score_options_default(&opt);
    if (weights != NULL) {
        rc = ts_weights_from_json(weights, &opt.weights, &err);
        if (rc < 0) {
            fuzz_check_error(&err, rc, "ts_weights_from_json");
            return;
        }
    }
    opt.strict = json_object_get_boolean(strict);
    if (min_score != NULL) {
        opt.min_score = json_object_get_double(min_score);
        rc = ts_score_check_min(opt.min_score, &err);
        if (rc < 0) {
            fuzz_check_error(&err, rc, "ts_score_check_min");
            return;
        }
    }
    calls = fuzz_extract_calls(json_object_object_get(doc, "actual"), in);
    if (calls == NULL)
        return;
    fuzz_score(expected, calls, &opt);
    json_object_put(calls);
}

static void fuzz_response_case(const struct json_object *doc, const fuzz_input *in)
{
    static const char fixed[] = "[{\"tool\": \"search\", \"args\": {\"q\": \"x\", \"n\": 1}}, "
                                "{\"tool\": \"open\"}, {\"tool\": \"search\", \"args\": {}}]";
    struct json_object *expected = NULL;
    struct json_object *calls = fuzz_extract_calls(doc, in);
    ts_score_options opt;

    if (calls == NULL)
        return;
    FUZZ_CHECK(ts_json_parse(fixed, sizeof(fixed) - 1, 0, &expected, NULL) == 0, "fixed list");
    ts_score_options_default(&opt);
    fuzz_score(expected, calls, &opt);
    fuzz_score(calls, calls, &opt);
    opt.strict = true;
    fuzz_score(calls, expected, &opt);
    json_object_put(expected);
    json_object_put(calls);
}

int ts_fuzz_extract(const uint8_t *data, size_t size)
{
    struct json_object *doc = NULL;
    fuzz_input in;
    ts_error err;
    int rc;

    fuzz_split(data, size, &in);
    rc = ts_json_parse(in.json, in.json_len, 0, &doc, &err);
    if (rc < 0) {
        fuzz_check_error(&err, rc, "ts_json_parse");
        return 0;
    }
    fuzz_json_round_trip(doc);
    if (json_object_is_type(doc, json_type_object) &&
        json_object_object_get_ex(doc, "expected", NULL) &&
        json_object_object_get_ex(doc, "actual", NULL))
        fuzz_eval_case(doc, &in);
    else
        fuzz_response_case(doc, &in);
    json_object_put(doc);
    return 0;
}

#ifdef TS_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return ts_fuzz_extract(data, size);
}
#endif
