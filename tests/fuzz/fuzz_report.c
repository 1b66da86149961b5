/*
 * fuzz_report — arbitrary call lists through the drift report, checking
 * what must hold for every input:
 *   - lists scoring refuses are refused by the report too (invalid_calls),
 *     with nothing appended;
 *   - otherwise the report is written, valid UTF-8, every line ends in a
 *     newline and fits the width (a line of a single word aside), and the
 *     text stays bounded however long the lists;
 *   - the coloured report is the plain one plus ANSI sequences, nothing
 *     else; the same input gives the same text;
 *   - into small output maxima (nothing, one byte, half, all but one byte,
 *     exactly enough, and a maximum taken from the input) it is whole or
 *     the buffer failed and empty (-E2BIG, too_large): never cut, never
 *     written past.
 *
 * Input: an optional first line "#<width> <flags>" (flags: c colour, n no
 * JSON diff, s strict scoring), then one JSON document {"expected": [...],
 * "actual": [...], "notes": ["...", ...]}.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_common.h"
#include "lib/base/ts_base.h"
#include "lib/json/ts_json.h"
#include "lib/report/ts_report.h"
#include "lib/score/ts_score.h"

#define FUZZ_REPORT_NOTES 8
#define FUZZ_REPORT_LINES 4000 /* far above what the caps allow */

typedef struct report_input {
    size_t width;
    bool color, no_json_diff, strict;
    const char *json;
    size_t json_len;
} report_input;

static void report_split(const uint8_t *data, size_t size, report_input *in)
{
    const char *text = (const char *)data, *nl;

    memset(in, 0, sizeof(*in));
    in->json = text;
    in->json_len = size;
    if (size == 0 || text[0] != '#' || (nl = memchr(text, '\n', size < 32 ? size : 32)) == NULL)
        return;
    for (const char *p = text + 1; p < nl; p++) {
        if (*p >= '0' && *p <= '9' && in->width < 100000)
            in->width = in->width * 10 + (size_t)(*p - '0');
        in->color |= *p == 'c';
        in->no_json_diff |= *p == 'n';
        in->strict |= *p == 's';
    }
    in->json = nl + 1;
    in->json_len = size - (size_t)(nl + 1 - text);
}

/* text without its ANSI colour sequences (ESC [ ... m); the caller frees. */
static char *strip_ansi(const char *text, size_t len)
{
    char *out = malloc(len + 1), *o = out;

    FUZZ_CHECK(out != NULL, "out of memory");
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\x1b' && i + 1 < len && text[i + 1] == '[') {
            while (i < len && text[i] != 'm')
                i++;
            continue;
        }
        *o++ = text[i];
    }
    *o = '\0';
    return out;
}

/* Every line ends in a newline and fits width, unless it is one word (no
 * space after its indentation and a tip's bullet); not too many lines. */
static void check_lines(const char *text, size_t len, size_t width)
{
    size_t lines = 0;

    FUZZ_CHECK(len > 0 && text[len - 1] == '\n', "the report does not end in a newline");
    for (const char *s = text; s < text + len; lines++) {
        const char *nl = memchr(s, '\n', (size_t)(text + len - s));
        size_t n = (size_t)(nl - s);
        if (ts_repr_width(s, n) > width) {
            const char *w = s;
            while (w < nl && (*w == ' ' || (unsigned char)*w >= 0x80))
                w++;
            FUZZ_CHECK(memchr(w, ' ', (size_t)(nl - w)) == NULL,
                       "a line of %zu cells at width %zu: %.*s", ts_repr_width(s, n), width, (int)n,
                       s);
        }
        s = nl + 1;
    }
    FUZZ_CHECK(lines <= FUZZ_REPORT_LINES, "%zu lines", lines);
}

static int render(const struct json_object *expected, const struct json_object *actual,
                  const ts_score_result *r, const ts_report_options *opt, size_t max, ts_buf *out,
                  ts_error *err)
{
    ts_buf_init(out, max);
    return ts_report_drift(expected, actual, r, opt, out, err);
}

static void check_maxima(const struct json_object *expected, const struct json_object *actual,
                         const ts_score_result *r, const ts_report_options *opt, const char *full,
                         size_t len, size_t extra)
{
    const size_t maxima[] = {0, 1, len / 2, len ? len - 1 : 0, len, extra % (len + 2)};

    for (size_t k = 0; k < sizeof(maxima) / sizeof(maxima[0]); k++) {
        ts_error err;
        ts_buf b;
        int rc = render(expected, actual, r, opt, maxima[k], &b, &err);
        if (maxima[k] >= len) {
            FUZZ_CHECK(rc == 0 && b.len == len && memcmp(b.data, full, len) == 0,
                       "a report fitting its maximum %zu differs (rc %d)", maxima[k], rc);
        } else {
            FUZZ_CHECK(rc == -E2BIG && strcmp(err.code, TS_ERR_TOO_LARGE) == 0,
                       "a report past its maximum %zu of %zu: rc %d", maxima[k], len, rc);
            FUZZ_CHECK(b.data == NULL && b.len == 0, "a failed report left text behind");
        }
        ts_buf_free(&b);
    }
}

static void fuzz_valid(const struct json_object *expected, const struct json_object *actual,
                       const ts_score_result *r, ts_report_options *opt, size_t extra)
{
    ts_error err;
    ts_buf plain, again, colour;
    char *stripped;
    size_t width;

    opt->color = false;
    FUZZ_CHECK(render(expected, actual, r, opt, TS_JSON_MAX_BYTES, &plain, &err) == 0,
               "the report failed: %s", err.message);
    FUZZ_CHECK(ts_utf8_valid(plain.data, plain.len), "the report is not UTF-8");
    FUZZ_CHECK(strncmp(plain.data, "Expected vs Actual Tool Calls\n", 30) == 0,
               "the report does not start with its table");
    width = opt->width == 0 ? TS_REPORT_WIDTH_DEFAULT : opt->width;
    width = width < TS_REPORT_WIDTH_MIN   ? TS_REPORT_WIDTH_MIN
            : width > TS_REPORT_WIDTH_MAX ? TS_REPORT_WIDTH_MAX
                                          : width;
    check_lines(plain.data, plain.len, width);
    FUZZ_CHECK(render(expected, actual, r, opt, TS_JSON_MAX_BYTES, &again, &err) == 0 &&
                   again.len == plain.len && memcmp(again.data, plain.data, plain.len) == 0,
               "the same input gave another report");
    ts_buf_free(&again);

    opt->color = true;
    FUZZ_CHECK(render(expected, actual, r, opt, TS_JSON_MAX_BYTES, &colour, &err) == 0,
               "the coloured report failed: %s", err.message);
    stripped = strip_ansi(colour.data, colour.len);
    FUZZ_CHECK(strcmp(stripped, plain.data) == 0,
               "the coloured report is not the plain one plus colour:\n%s\n---\n%s", stripped,
               plain.data);
    free(stripped);
    check_maxima(expected, actual, r, opt, colour.data, colour.len, extra);
    ts_buf_free(&colour);
    opt->color = false;
    check_maxima(expected, actual, r, opt, plain.data, plain.len, extra / 3);
    ts_buf_free(&plain);
}

int ts_fuzz_report(const uint8_t *data, size_t size)
{
    struct json_object *doc = NULL, *expected = NULL, *actual = NULL, *notes = NULL;
    const char *note_text[FUZZ_REPORT_NOTES];
    report_input in;
    ts_report_options opt;
    ts_score_options so;
    ts_score_result r;
    ts_error err;
    ts_buf b;
    size_t n_notes = 0;

    report_split(data, size, &in);
    if (ts_json_parse(in.json, in.json_len, TS_JSON_MAX_DEPTH, &doc, &err) < 0)
        return 0;
    json_object_object_get_ex(doc, "expected", &expected);
    json_object_object_get_ex(doc, "actual", &actual);
    if (json_object_object_get_ex(doc, "notes", &notes) &&
        json_object_is_type(notes, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(notes) && n_notes < FUZZ_REPORT_NOTES;
             i++) {
            struct json_object *s = json_object_array_get_idx(notes, i);
            /* notes are the caller's single lines; a NUL ends one early */
            if (json_object_is_type(s, json_type_string))
                note_text[n_notes++] = json_object_get_string(s);
        }
    }
    ts_report_options_default(&opt);
    opt.width = in.width;
    opt.json_diff = !in.no_json_diff;
    opt.notes = note_text;
    opt.n_notes = n_notes;
    ts_score_options_default(&so);
    so.strict = in.strict;
    if (ts_evaluate(expected, actual, &so, &r, &err) < 0) {
        /* refused by scoring: refused by the report, nothing written */
        memset(&r, 0, sizeof(r));
        ts_buf_init(&b, TS_JSON_MAX_BYTES);
        FUZZ_CHECK(ts_report_drift(expected, actual, &r, &opt, &b, &err) == -EINVAL &&
                       strcmp(err.code, TS_ERR_INVALID_CALLS) == 0 && b.len == 0,
                   "the report took lists scoring refused");
        ts_buf_free(&b);
        json_object_put(doc);
        return 0;
    }
    fuzz_valid(expected, actual, &r, &opt, size * 7 + (size ? data[0] : 0));
    ts_score_result_free(&r);
    json_object_put(doc);
    return 0;
}

#ifdef TS_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return ts_fuzz_report(data, size);
}
#endif
