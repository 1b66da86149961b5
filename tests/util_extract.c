/*
 * util_extract — what the extraction suites share: fixtures of
 * tests/data/extract/ read with the project's JSON reader, and assertions
 * on ts_extract's result or error.
 */
#include "util_extract.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/ts_base.h"
#include "lib/json/ts_json.h"
#include "util_test.h"

/* Parse a whole JSON document with the project's reader. */
static struct json_object *parse_json(const char *text, size_t len, const char *what)
{
    struct json_object *v = NULL;
    ts_error err;

    ck_assert_msg(ts_json_parse(text, len, 0, &v, &err) == 0, "bad JSON in %s: %s", what,
                  err.message);
    return v;
}

struct json_object *parse_text(const char *text)
{
    return parse_json(text, strlen(text), text);
}

/* tests/data/extract/<name>.json (or .expected.json when suffix says so). */
struct json_object *load_fixture(const char *name, const char *suffix)
{
    char path[1024];
    struct json_object *v;
    size_t len;
    char *text;

    snprintf(path, sizeof(path), "%s/tests/data/extract/%s%s", util_source_dir(), name, suffix);
    text = util_read_file(path, &len);
    v = parse_json(text, len, path);
    free(text);
    return v;
}

/* One-line JSON of v, keys in their order. */
const char *compact(const struct json_object *v, ts_buf *b)
{
    ts_buf_init(b, 64u << 20);
    ck_assert_int_eq(ts_json_write_compact(v, b, NULL), 0);
    return b->data;
}

/* Assert that got and want are the same JSON (values and key order). */
void assert_json_eq(const struct json_object *got, const struct json_object *want, const char *what)
{
    ts_buf g, w;

    ck_assert_msg(strcmp(compact(got, &g), compact(want, &w)) == 0, "%s:\n got  %s\n want %s", what,
                  g.data, w.data);
    ts_buf_free(&g);
    ts_buf_free(&w);
}

struct json_object *extract_ok(const struct json_object *in, const char *format,
                               ts_extract_origin origin)
{
    struct json_object *calls = NULL;
    ts_error err;

    ts_error_clear(&err);
    ck_assert_msg(ts_extract(in, format, origin, &calls, &err) == 0, "format %s: %s",
                  format ? format : "auto", err.message);
    ck_assert_ptr_nonnull(calls);
    ck_assert(json_object_is_type(calls, json_type_array));
    return calls;
}

void extract_fails(const struct json_object *in, const char *format, ts_extract_origin origin,
                   const char *want)
{
    struct json_object *calls = (struct json_object *)&calls; /* must be reset */
    ts_error err;
    int rc;

    ts_error_clear(&err);
    rc = ts_extract(in, format, origin, &calls, &err);
    ck_assert_msg(rc < 0, "format %s succeeded, expected error containing \"%s\"",
                  format ? format : "auto", want);
    ck_assert_ptr_null(calls);
    ck_assert_str_eq(err.code, TS_ERR_FORMAT);
    ck_assert_msg(strstr(err.message, want) != NULL, "error \"%s\" lacks \"%s\"", err.message,
                  want);
    ck_assert_msg(strchr(err.message, '\n') == NULL, "error is not one line: %s", err.message);
}

void assert_extracts(const char *input, const char *format, const char *want)
{
    struct json_object *in = parse_text(input);
    struct json_object *expected = parse_text(want);
    struct json_object *got = extract_ok(in, format, TS_EXTRACT_RESPONSE);

    assert_json_eq(got, expected, input);
    json_object_put(got);
    json_object_put(expected);
    json_object_put(in);
}

void assert_detects(const char *input, const char *want)
{
    struct json_object *in = parse_text(input);
    const char *got = ts_extract_detect(in);

    ck_assert_msg((got == NULL && want == NULL) ||
                      (got != NULL && want != NULL && strcmp(got, want) == 0),
                  "%s: detected %s, want %s", input, got ? got : "(none)", want ? want : "(none)");
    json_object_put(in);
}

void assert_fixture_detected(const char *name, const char *format)
{
    static const ts_extract_origin origins[] = {TS_EXTRACT_RESPONSE, TS_EXTRACT_FILE};
    struct json_object *in = load_fixture(name, ".json");
    struct json_object *want = load_fixture(name, ".expected.json");
    const char *fmt = ts_extract_detect(in);

    ck_assert_msg(fmt != NULL && strcmp(fmt, format) == 0, "%s detected as %s, want %s", name,
                  fmt ? fmt : "(none)", format);
    for (size_t i = 0; i < sizeof(origins) / sizeof(origins[0]); i++) {
        const char *as[] = {NULL, "auto", format};

        for (size_t k = 0; k < sizeof(as) / sizeof(as[0]); k++) {
            struct json_object *got = extract_ok(in, as[k], origins[i]);

            assert_json_eq(got, want, name);
            json_object_put(got);
        }
    }
    json_object_put(in);
    json_object_put(want);
}
