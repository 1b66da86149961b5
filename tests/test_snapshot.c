/*
 * test_snapshot — the snapshot model and file format (lib/snapshot/ts_snapshot.c).
 *
 * tests/data/compat/ holds files written by the reference tool; reading and
 * writing them back must give the same bytes.
 */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"
#include "lib/snapshot/ts_snapshot.h"
#include "util_test.h"
#include "ts_version.h"

static const char *const compat_files[] = {
    "floats_and_ints-75b53452.json",
    "no_args-7066a219.json",
    "tests__test_flights.py__test_books_a_flight-a17e174d.json",
};

static ts_snapshot *parse_ok(const char *text)
{
    ts_snapshot *s = NULL;
    ts_error err;
    int rc = ts_snapshot_parse(text, strlen(text), "t.json", &s, &err);

    ck_assert_msg(rc == 0, "parse failed: %s", err.message);
    return s;
}

static void parse_fails(const char *text, const char *code, const char *message)
{
    ts_snapshot *s = NULL;
    ts_error err;
    int rc = ts_snapshot_parse(text, strlen(text), "t.json", &s, &err);

    ck_assert_msg(rc < 0, "parse of %s succeeded", text);
    ck_assert_ptr_null(s);
    ck_assert_str_eq(err.code, code);
    ck_assert_str_eq(err.message, message);
}

static char *serialize(const ts_snapshot *s)
{
    ts_buf b;
    ts_error err;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_snapshot_serialize(s, &b, &err), 0);
    return ts_buf_detach(&b, NULL);
}

/* "2025-06-01T12:05:00.123456+00:00" */
static void assert_timestamp_format(const char *t)
{
    static const char pattern[] = "dddd-dd-ddTdd:dd:dd.dddddd+00:00";

    ck_assert_int_eq((int)strlen(t), (int)sizeof(pattern) - 1);
    for (size_t i = 0; i < sizeof(pattern) - 1; i++) {
        if (pattern[i] == 'd')
            ck_assert_msg(isdigit((unsigned char)t[i]), "bad timestamp %s", t);
        else
            ck_assert_msg(t[i] == pattern[i], "bad timestamp %s", t);
    }
}

START_TEST(reference_files_round_trip_byte_exact)
{
    for (size_t i = 0; i < sizeof(compat_files) / sizeof(compat_files[0]); i++) {
        char rel[256];
        size_t len;
        char *text;
        char *out;
        ts_snapshot *s = NULL;
        ts_error err;

        snprintf(rel, sizeof(rel), "compat/%s", compat_files[i]);
        text = util_read_data(rel, &len);
        ck_assert_msg(ts_snapshot_parse(text, len, compat_files[i], &s, &err) == 0, "%s",
                      err.message);
        out = serialize(s);
        ck_assert_msg(strcmp(out, text) == 0, "%s re-serialized:\n%s", compat_files[i], out);
        free(out);
        ts_snapshot_free(s);
        free(text);
    }
}
END_TEST

START_TEST(reference_file_fields)
{
    size_t len;
    char *text =
        util_read_data("compat/tests__test_flights.py__test_books_a_flight-a17e174d.json", &len);
    ts_snapshot *s = parse_ok(text);

    ck_assert_int_eq(s->schema_version, 1);
    ck_assert_str_eq(s->name, "tests/test_flights.py::test_books_a_flight");
    ck_assert_str_eq(s->created_at, "2025-06-01T12:00:00.000001+00:00");
    ck_assert_str_eq(s->updated_at, "2026-11-29T21:40:58.781226+00:00");
    ck_assert_str_eq(s->toolscore_version, "1.8.1");
    ck_assert(s->approved);
    ck_assert_str_eq(s->source, "pytest");
    ck_assert_int_eq((int)json_object_array_length(s->calls), 2);
    ck_assert_str_eq(ts_json_get_string(json_object_array_get_idx(s->calls, 1), "tool"),
                     "book_flight");
    ts_snapshot_free(s);
    free(text);
}
END_TEST

START_TEST(new_snapshot_and_exact_bytes)
{
    struct json_object *calls = NULL;
    ts_snapshot *s = NULL;
    ts_error err;
    char *out;
    char expected[2048];
    const char *calls_text =
        "[{\"tool\": \"search\", \"args\": {\"q\": \"caf\xc3\xa9 \\\"x\\\"/\\n\", \"n\": 3, "
        "\"f\": 0.5, \"big\": 1e16, \"l\": [], \"o\": {}}}, {\"tool\": \"ping\"}]";

    ck_assert_int_eq(ts_json_parse(calls_text, strlen(calls_text), 0, &calls, &err), 0);
    ck_assert_int_eq(ts_snapshot_new("t::x", calls, "trace", &s, &err), 0);
    ck_assert_int_eq(s->schema_version, 1);
    ck_assert(!s->approved);
    ck_assert_str_eq(s->toolscore_version, TS_VERSION);
    ck_assert_str_eq(s->source, "trace");
    assert_timestamp_format(s->created_at);
    ck_assert_str_eq(s->created_at, s->updated_at);
    json_object_put(calls); /* the snapshot holds its own reference */
    snprintf(expected, sizeof(expected),
             "{\n"
             "  \"schema_version\": 1,\n"
             "  \"name\": \"t::x\",\n"
             "  \"created_at\": \"%s\",\n"
             "  \"updated_at\": \"%s\",\n"
             "  \"toolscore_version\": \"%s\",\n"
             "  \"approved\": false,\n"
             "  \"source\": \"trace\",\n"
             "  \"calls\": [\n"
             "    {\n"
             "      \"tool\": \"search\",\n"
             "      \"args\": {\n"
             "        \"q\": \"caf\xc3\xa9 \\\"x\\\"/\\n\",\n"
             "        \"n\": 3,\n"
             "        \"f\": 0.5,\n"
             "        \"big\": 1e+16,\n"
             "        \"l\": [],\n"
             "        \"o\": {}\n"
             "      }\n"
             "    },\n"
             "    {\n"
             "      \"tool\": \"ping\"\n"
             "    }\n"
             "  ]\n"
             "}\n",
             s->created_at, s->updated_at, TS_VERSION);
    out = serialize(s);
    ck_assert_str_eq(out, expected);
    free(out);
    ts_snapshot_free(s);
}
END_TEST

START_TEST(new_snapshot_refuses_bad_input)
{
    struct json_object *calls = json_object_new_array();
    ts_snapshot *s = NULL;
    ts_error err;

    ck_assert_int_eq(ts_snapshot_new(NULL, calls, "pytest", &s, &err), -EINVAL);
    ck_assert_int_eq(ts_snapshot_new("a\xff", calls, "pytest", &s, &err), -EINVAL);
    ck_assert_int_eq(ts_snapshot_new("ok", NULL, "pytest", &s, &err), -EINVAL);
    ck_assert_str_eq(err.code, "invalid_calls");
    ck_assert_int_eq(ts_snapshot_new("ok", calls, "", &s, &err), -EINVAL);
    ck_assert_ptr_null(s);
    ck_assert_int_eq(ts_snapshot_new("ok", calls, "pytest", &s, &err), 0);
    ts_snapshot_free(s);
    json_object_put(calls);
}
END_TEST

START_TEST(validate_calls_messages)
{
    static const struct {
        const char *calls;
        const char *message;
    } cases[] = {
        {"{}", "calls must be an array"},
        {"[1]", "calls[0]: a call must be an object"},
        {"[{\"tool\": \"a\"}, {}]", "calls[1]: missing \"tool\""},
        {"[{\"tool\": 5}]", "calls[0]: \"tool\" must be a string"},
        {"[{\"tool\": \"\"}]", "calls[0]: \"tool\" is empty"},
        {"[{\"tool\": \"a\\u0000b\"}]", "calls[0]: \"tool\" contains a NUL character"},
        {"[{\"tool\": \"a\", \"args\": [1]}]", "calls[0]: \"args\" must be an object or null"},
        {"[{\"tool\": \"a\", \"args\": \"x\"}]", "calls[0]: \"args\" must be an object or null"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct json_object *v = NULL;
        ts_error err;

        ck_assert_int_eq(ts_json_parse(cases[i].calls, strlen(cases[i].calls), 0, &v, &err), 0);
        ck_assert_int_lt(ts_snapshot_validate_calls(v, &err), 0);
        ck_assert_str_eq(err.code, "invalid_calls");
        ck_assert_str_eq(err.message, cases[i].message);
        json_object_put(v);
    }
}
END_TEST

START_TEST(too_many_calls)
{
    struct json_object *calls = json_object_new_array();
    ts_error err;

    for (int i = 0; i <= TS_SNAPSHOT_MAX_CALLS; i++) {
        struct json_object *c = json_object_new_object();

        json_object_object_add(c, "tool", json_object_new_string("t"));
        json_object_array_add(calls, c);
    }
    ck_assert_int_eq(ts_snapshot_validate_calls(calls, &err), -E2BIG);
    ck_assert_str_eq(err.code, "limit");
    json_object_array_del_idx(calls, 0, 1);
    ck_assert_int_eq(ts_snapshot_validate_calls(calls, &err), 0);
    json_object_put(calls);
}
END_TEST

START_TEST(tolerant_reading)
{
    /* Only name and calls are required; unknown keys are ignored; the
     * reference's own example has timestamps without microseconds. */
    ts_snapshot *s = parse_ok("{\"name\": \"n\", \"calls\": [], \"extra\": {\"x\": 1}}");
    char *out;

    ck_assert_int_eq(s->schema_version, 1);
    ck_assert(!s->approved);
    ck_assert_str_eq(s->source, "pytest");
    ck_assert_str_eq(s->toolscore_version, "");
    assert_timestamp_format(s->created_at);
    ck_assert_str_eq(s->created_at, s->updated_at);
    out = serialize(s);
    ck_assert_ptr_null(strstr(out, "extra"));
    ck_assert_ptr_nonnull(strstr(out, "  \"calls\": []\n}\n"));
    free(out);
    ts_snapshot_free(s);

    s = parse_ok("{\"schema_version\": 1, \"name\": \"n\", \"created_at\": "
                 "\"2025-06-01T12:00:00+00:00\", \"source\": \"record\", \"approved\": true, "
                 "\"calls\": [{\"tool\": \"a\", \"args\": {}, \"id\": \"c1\"}]}");
    ck_assert_str_eq(s->created_at, "2025-06-01T12:00:00+00:00");
    ck_assert_str_eq(s->updated_at, "2025-06-01T12:00:00+00:00");
    ck_assert_str_eq(s->source, "record");
    ck_assert(s->approved);
    out = serialize(s);
    ck_assert_ptr_nonnull(strstr(out, "\"id\": \"c1\"")); /* other call keys kept */
    free(out);
    ts_snapshot_free(s);

    /* "args": null (don't check arguments) is a valid reference file and is
     * written back as null, not dropped or turned into {}. */
    s = parse_ok("{\"name\": \"n\", \"calls\": [{\"tool\": \"a\", \"args\": null}]}");
    out = serialize(s);
    ck_assert_ptr_nonnull(strstr(out, "      \"tool\": \"a\",\n      \"args\": null\n"));
    free(out);
    ts_snapshot_free(s);
}
END_TEST

START_TEST(wrong_types_and_missing_fields)
{
    parse_fails("[]", "invalid_snapshot",
                "t.json: not a JSON object (a snapshot file holds one object)");
    parse_fails("null", "invalid_snapshot",
                "t.json: not a JSON object (a snapshot file holds one object)");
    parse_fails("{\"calls\": []}", "invalid_snapshot", "t.json: \"name\" is missing");
    parse_fails("{\"name\": \"n\"}", "invalid_snapshot", "t.json: \"calls\" is missing");
    parse_fails("{\"name\": 1, \"calls\": []}", "invalid_snapshot",
                "t.json: \"name\" must be a string");
    parse_fails("{\"name\": \"a\\u0000\", \"calls\": []}", "invalid_snapshot",
                "t.json: \"name\" contains a NUL character");
    parse_fails("{\"name\": \"n\", \"calls\": {}}", "invalid_snapshot",
                "t.json: \"calls\" must be an array");
    parse_fails("{\"name\": \"n\", \"calls\": [{\"args\": {}}]}", "invalid_snapshot",
                "t.json: calls[0]: missing \"tool\"");
    parse_fails("{\"name\": \"n\", \"calls\": [], \"approved\": \"yes\"}", "invalid_snapshot",
                "t.json: \"approved\" must be true or false");
    parse_fails("{\"name\": \"n\", \"calls\": [], \"schema_version\": \"1\"}", "invalid_snapshot",
                "t.json: \"schema_version\" must be an integer");
    parse_fails("{\"name\": \"n\", \"calls\": [], \"schema_version\": 2}", "invalid_snapshot",
                "t.json: schema_version 2 is not supported (this version reads 1)");
    parse_fails("{\"name\": \"n\", \"calls\": [], \"created_at\": 5}", "invalid_snapshot",
                "t.json: \"created_at\" must be a string");
    parse_fails("{\"name\": \"n\", \"calls\": [], \"updated_at\": "
                "\"2025-06-01T12:00:00.000000+00:00 and far too long\"}",
                "invalid_snapshot", "t.json: \"updated_at\" is too long");
    parse_fails("{\"name\": \"n\", \"calls\": [], \"source\": null}", "invalid_snapshot",
                "t.json: \"source\" must be a string");
    parse_fails("{\"name\": \"n\", \"calls\": [], \"toolscore_version\": 1.8}", "invalid_snapshot",
                "t.json: \"toolscore_version\" must be a string");
}
END_TEST

START_TEST(corrupt_json_names_the_file)
{
    parse_fails("{\"name\": \"n\", \"calls\": [", "invalid_snapshot",
                "t.json: line 1, column 25: unexpected end of input");
    parse_fails("{\"name\": \"n\",\n \"calls\": [] oops}", "invalid_snapshot",
                "t.json: line 2, column 14: unexpected character");
    parse_fails("{\"name\": \"\xff\", \"calls\": []}", "invalid_snapshot",
                "t.json: line 1, column 11: invalid UTF-8");
    parse_fails("{\"name\": \"n\", \"calls\": [NaN]}", "invalid_snapshot",
                "t.json: line 1, column 25: NaN and Infinity are not valid JSON");
}
END_TEST

/* Every truncation of a real file fails cleanly, naming the file. */
START_TEST(every_truncation_fails_cleanly)
{
    size_t len;
    char *text = util_read_data("compat/floats_and_ints-75b53452.json", &len);

    for (size_t cut = 0; cut < len - 1; cut++) {
        ts_snapshot *s = NULL;
        ts_error err;
        int rc = ts_snapshot_parse(text, cut, "floats.json", &s, &err);

        ck_assert_msg(rc < 0, "truncated at %zu parsed", cut);
        ck_assert_ptr_null(s);
        ck_assert_msg(strncmp(err.message, "floats.json: ", 13) == 0, "%s", err.message);
    }
    free(text);
}
END_TEST

START_TEST(depth_and_size_limits)
{
    char *deep = malloc(4096);
    size_t n = 0;
    ts_snapshot *s = NULL;
    ts_error err;

    n += (size_t)sprintf(deep, "{\"name\": \"n\", \"calls\": [{\"tool\": \"a\", \"args\": ");
    for (int i = 0; i < 200; i++)
        deep[n++] = '[';
    for (int i = 0; i < 200; i++)
        deep[n++] = ']';
    n += (size_t)sprintf(deep + n, "}]}");
    ck_assert_int_eq(ts_snapshot_parse(deep, n, "deep.json", &s, &err), -EINVAL);
    ck_assert_str_eq(err.code, "invalid_snapshot"); /* the file is what is wrong */
    ck_assert_ptr_nonnull(strstr(err.message, "deep.json: line 1, column "));
    ck_assert_ptr_nonnull(strstr(err.message, "nesting deeper than 128 levels"));
    free(deep);
    /* The size check comes before any byte is read. */
    ck_assert_int_eq(
        ts_snapshot_parse("{}", (size_t)TS_SNAPSHOT_MAX_BYTES + 1, "big.json", &s, &err), -E2BIG);
    ck_assert_str_eq(err.code, "too_large");
    ck_assert(strncmp(err.message, "big.json: ", 10) == 0);
    ck_assert_ptr_null(s);
}
END_TEST

START_TEST(set_calls_copy_and_to_json)
{
    size_t len;
    char *text = util_read_data("compat/no_args-7066a219.json", &len);
    ts_snapshot *s = parse_ok(text);
    ts_snapshot *c = ts_snapshot_copy(s);
    struct json_object *calls = json_object_new_array();
    struct json_object *call = json_object_new_object();
    struct json_object *o;
    struct lh_entry *e;
    static const char *const order[] = {"schema_version",    "name",     "created_at", "updated_at",
                                        "toolscore_version", "approved", "source",     "calls"};
    ts_error err;
    char *a;
    char *b;
    int i = 0;

    a = serialize(s);
    b = serialize(c);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
    json_object_object_add(call, "tool", json_object_new_string("new"));
    json_object_array_add(calls, call);
    ck_assert_int_eq(ts_snapshot_set_calls(s, calls, &err), 0);
    ck_assert_str_ne(s->updated_at, "2026-11-29T21:40:58.782255+00:00");
    assert_timestamp_format(s->updated_at);
    ck_assert_str_eq(s->created_at, "2025-06-01T12:00:00.000001+00:00");
    ck_assert_str_eq(s->toolscore_version, TS_VERSION);
    /* The copy is deep: it still has the old calls. */
    ck_assert_int_eq((int)json_object_array_length(c->calls), 2);
    ck_assert_int_eq(ts_snapshot_set_calls(s, NULL, &err), -EINVAL);
    ck_assert_int_eq((int)json_object_array_length(s->calls), 1);
    o = ts_snapshot_to_json(s);
    for (e = json_object_get_object(o)->head; e != NULL; e = e->next)
        ck_assert_str_eq((const char *)lh_entry_k(e), order[i++]);
    ck_assert_int_eq(i, 8);
    json_object_put(o);
    json_object_put(calls);
    ts_snapshot_free(s);
    ts_snapshot_free(c);
    ts_snapshot_free(NULL);
    free(text);
}
END_TEST

START_TEST(timestamp_now_format)
{
    char t[TS_TIMESTAMP_MAX];

    ts_timestamp_now(t);
    assert_timestamp_format(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("snapshot");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, reference_files_round_trip_byte_exact);
    tcase_add_test(tc, reference_file_fields);
    tcase_add_test(tc, new_snapshot_and_exact_bytes);
    tcase_add_test(tc, new_snapshot_refuses_bad_input);
    tcase_add_test(tc, validate_calls_messages);
    tcase_add_test(tc, too_many_calls);
    tcase_add_test(tc, tolerant_reading);
    tcase_add_test(tc, wrong_types_and_missing_fields);
    tcase_add_test(tc, corrupt_json_names_the_file);
    tcase_add_test(tc, every_truncation_fails_cleanly);
    tcase_add_test(tc, depth_and_size_limits);
    tcase_add_test(tc, set_calls_copy_and_to_json);
    tcase_add_test(tc, timestamp_now_format);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
