/*
 * test_extract_normalize — ts_extract_normalize, what `tsctl record
 * --from-trace` writes (docs/extraction.md, "Trace import normalizes
 * calls"): each call exactly {"tool", "args"}, args absent or null as {},
 * other keys dropped; an invalid calls list is refused with a message.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lib/extract/ts_extract.h"
#include "util_test.h"

/* The compact JSON of normalize(text); fails the test on an error. */
static char *normalized(const char *text)
{
    struct json_object *in = util_json_c_parse(text), *out = NULL;
    ts_error err;
    char *s;

    ck_assert_msg(ts_extract_normalize(in, &out, &err) == 0, "%s", err.message);
    s = util_json_compact(out);
    json_object_put(in);
    json_object_put(out);
    return s;
}

/* want is compared as written by util_json_compact, key order included. */
static void assert_normalized(const char *text, const char *want)
{
    struct json_object *w = util_json_c_parse(want);
    char *got = normalized(text), *want_text = util_json_compact(w);

    ck_assert_str_eq(got, want_text);
    free(got);
    free(want_text);
    json_object_put(w);
}

static void assert_refused(const char *text, const char *want_message)
{
    struct json_object *in = util_json_c_parse(text), *out = NULL;
    ts_error err;

    ck_assert_int_eq(ts_extract_normalize(in, &out, &err), -EINVAL);
    ck_assert_ptr_null(out);
    ck_assert_str_eq(err.code, "invalid_calls");
    ck_assert_str_eq(err.message, want_message);
    json_object_put(in);
}

START_TEST(normalize_drops_keys_and_fills_args)
{
    assert_normalized("[]", "[]");
    assert_normalized("[{\"tool\":\"a\"}]", "[{\"tool\":\"a\",\"args\":{}}]");
    assert_normalized("[{\"tool\":\"a\",\"args\":null}]", "[{\"tool\":\"a\",\"args\":{}}]");
    assert_normalized("[{\"id\":\"c1\",\"args\":{\"q\":\"x\",\"n\":1.0},\"tool\":\"s\",\"type\":"
                      "\"function\"}]",
                      "[{\"tool\":\"s\",\"args\":{\"q\":\"x\",\"n\":1.0}}]");
    assert_normalized("[{\"tool\":\"a\",\"args\":{}},{\"tool\":\"b\",\"args\":{\"z\":[1,{\"y\":"
                      "null}],\"a\":true}}]",
                      "[{\"tool\":\"a\",\"args\":{}},{\"tool\":\"b\",\"args\":{\"z\":[1,{\"y\":"
                      "null}],\"a\":true}}]");
    /* names are copied byte for byte, NUL included */
    assert_normalized("[{\"tool\":\"a\\u0000b\"}]", "[{\"tool\":\"a\\u0000b\",\"args\":{}}]");
}
END_TEST

START_TEST(normalize_copies_args)
{
    struct json_object *in = util_json_c_parse("[{\"tool\":\"a\",\"args\":{\"k\":[1]}}]");
    struct json_object *out = NULL, *args;
    ts_error err;
    char *s;

    ck_assert_int_eq(ts_extract_normalize(in, &out, &err), 0);
    args = json_object_object_get(json_object_array_get_idx(out, 0), "args");
    ck_assert_ptr_ne(args, json_object_object_get(json_object_array_get_idx(in, 0), "args"));
    json_object_object_add(args, "added", json_object_new_int(1));
    s = util_json_compact(in);
    ck_assert_str_eq(s, "[{\"tool\": \"a\", \"args\": {\"k\": [1]}}]");
    free(s);
    json_object_put(out);
    json_object_put(in);
}
END_TEST

START_TEST(normalize_refuses_invalid_calls)
{
    assert_refused("{\"tool\":\"a\"}", "calls must be a list of calls, got an object");
    assert_refused("[1]", "item at index 0 is not an object");
    assert_refused("[{\"tool\":\"a\"},{\"args\":{}}]", "item at index 1 is missing 'tool'");
    assert_refused("[{\"tool\":\"\"}]", "item at index 0 is missing 'tool'");
    assert_refused("[{\"tool\":7}]", "item at index 0 is missing 'tool'");
    assert_refused("[{\"tool\":\"a\",\"args\":\"x\"}]",
                   "item at index 0 has 'args' that is not an object");
    assert_refused("[{\"tool\":\"a\",\"args\":[]}]",
                   "item at index 0 has 'args' that is not an object");
}
END_TEST

START_TEST(normalize_many_calls)
{
    struct json_object *in = json_object_new_array(), *out = NULL;
    ts_error err;

    for (int i = 0; i < 10000; i++) {
        struct json_object *c = json_object_new_object();
        json_object_object_add(c, "tool", json_object_new_string("t"));
        json_object_object_add(c, "extra", json_object_new_int(i));
        json_object_array_add(in, c);
    }
    ck_assert_int_eq(ts_extract_normalize(in, &out, &err), 0);
    ck_assert_uint_eq(json_object_array_length(out), 10000);
    for (size_t i = 0; i < 10000; i++) {
        struct json_object *c = json_object_array_get_idx(out, i);
        ck_assert_int_eq(json_object_object_length(c), 2);
        ck_assert_int_eq(json_object_object_length(json_object_object_get(c, "args")), 0);
    }
    json_object_put(out);
    json_object_put(in);
}
END_TEST

static Suite *normalize_suite(void)
{
    Suite *s = suite_create("extract_normalize");
    TCase *tc = tcase_create("normalize");

    tcase_add_test(tc, normalize_drops_keys_and_fills_args);
    tcase_add_test(tc, normalize_copies_args);
    tcase_add_test(tc, normalize_refuses_invalid_calls);
    tcase_add_test(tc, normalize_many_calls);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return util_run_suite(normalize_suite());
}
