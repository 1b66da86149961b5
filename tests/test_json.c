/*
 * test_json — the strict reader and the Python-exact writer (lib/json/ts_json.c).
 *
 * Reference outputs in tests/data/ were produced by CPython's json module and
 * repr(float): tests/data/doubles.txt (bits -> repr) and
 * tests/data/json/<name>.json with <name>.pretty (json.dumps(indent=2,
 * ensure_ascii=False)) and <name>.compact (json.dumps(ensure_ascii=False)).
 */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"
#include "util_test.h"

static struct json_object *parse_ok(const char *text)
{
    struct json_object *v = NULL;
    ts_error err;
    int rc = ts_json_parse(text, strlen(text), 0, &v, &err);

    ck_assert_msg(rc == 0, "parse of %s failed: %s", text, err.message);
    return v;
}

/* Parsing text fails with code and exactly message. */
static void parse_fails(const char *text, size_t len, const char *code, const char *message)
{
    struct json_object *v = NULL;
    ts_error err;
    int rc = ts_json_parse(text, len, 0, &v, &err);

    ck_assert_msg(rc < 0, "parse of %s succeeded", text);
    ck_assert_ptr_null(v);
    ck_assert_str_eq(err.code, code);
    ck_assert_str_eq(err.message, message);
}

static void parse_fails_s(const char *text, const char *message)
{
    parse_fails(text, strlen(text), "invalid_json", message);
}

static void assert_double(double d, const char *expected)
{
    char out[TS_JSON_DOUBLE_MAX];
    int n = ts_json_format_double(d, out);

    ck_assert_int_eq(n, (int)strlen(expected));
    ck_assert_str_eq(out, expected);
}

START_TEST(doubles_python_repr_cases)
{
    assert_double(1.0, "1.0");
    assert_double(0.1, "0.1");
    assert_double(1e-7, "1e-07");
    assert_double(1e-5, "1e-05");
    assert_double(0.0001, "0.0001");
    assert_double(1e16, "1e+16");
    assert_double(1e15, "1000000000000000.0");
    assert_double(9999999999999998.0, "9999999999999998.0");
    assert_double(100.0, "100.0");
    assert_double(-2.5e-7, "-2.5e-07");
    assert_double(1.5e300, "1.5e+300");
    assert_double(0.0, "0.0");
    assert_double(-0.0, "-0.0");
    assert_double(5e-324, "5e-324");
    assert_double(1.7976931348623157e308, "1.7976931348623157e+308");
    assert_double(0.1 + 0.2, "0.30000000000000004"); /* 17 digits */
    assert_double(2.0 / 3.0, "0.6666666666666666");
    assert_double(123456789012345.67, "123456789012345.67");
    assert_double(1.2345678901234567e19, "1.2345678901234567e+19");
    /* A power of two whose rounding interval is lopsided: the correctly
     * rounded 16 digits do not read back, their neighbour does. */
    assert_double(ldexp(1.0, -1017), "7.120236347223045e-307");
}
END_TEST

START_TEST(doubles_refuse_nan_and_infinity)
{
    char out[TS_JSON_DOUBLE_MAX];
    struct json_object *arr = json_object_new_array();
    ts_buf b;
    ts_error err;

    ck_assert_int_eq(ts_json_format_double(NAN, out), -EINVAL);
    ck_assert_int_eq(ts_json_format_double(INFINITY, out), -EINVAL);
    ck_assert_int_eq(ts_json_format_double(-INFINITY, out), -EINVAL);
    json_object_array_add(arr, json_object_new_int(1));
    json_object_array_add(arr, json_object_new_double(NAN));
    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_buf_appends(&b, "keep"), 0);
    ck_assert_int_eq(ts_json_write_pretty(arr, &b, &err), -EINVAL);
    ck_assert_str_eq(err.code, "invalid_argument");
    ck_assert_ptr_nonnull(strstr(err.message, "NaN"));
    ck_assert_str_eq(b.data, "keep"); /* nothing half-written left behind */
    ts_buf_free(&b);
    json_object_put(arr);
}
END_TEST

/* Every line of doubles.txt: the same text as CPython's repr. */
START_TEST(doubles_match_python_reference_data)
{
    size_t len;
    char *data = util_read_data("doubles.txt", &len);
    char *save = NULL;
    int checked = 0;

    for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        uint64_t bits;
        char expected[64];
        char out[TS_JSON_DOUBLE_MAX];
        double d;

        if (line[0] == '#')
            continue;
        ck_assert_int_eq(sscanf(line, "%" SCNx64 " %63s", &bits, expected), 2);
        memcpy(&d, &bits, sizeof(d));
        ts_json_format_double(d, out);
        ck_assert_msg(strcmp(out, expected) == 0, "%s: got %s, want %s", line, out, expected);
        ck_assert(strtod(out, NULL) == d || (d == 0 && strtod(out, NULL) == 0));
        checked++;
    }
    ck_assert_int_gt(checked, 4000);
    free(data);
}
END_TEST

/* Parse each reference document and write it back: Python's exact bytes. */
START_TEST(writer_matches_python_bytes)
{
    static const char *const names[] = {"mixed",       "strings",       "duplicates",
                                        "whitespace",  "scalar_string", "scalar_number",
                                        "scalar_null", "key_escapes",   "random"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char rel[128];
        size_t in_len;
        size_t pretty_len;
        size_t compact_len;
        char *in;
        char *pretty;
        char *compact_text;
        struct json_object *v = NULL;
        ts_buf b;
        ts_error err;

        snprintf(rel, sizeof(rel), "json/%s.json", names[i]);
        in = util_read_data(rel, &in_len);
        snprintf(rel, sizeof(rel), "json/%s.pretty", names[i]);
        pretty = util_read_data(rel, &pretty_len);
        snprintf(rel, sizeof(rel), "json/%s.compact", names[i]);
        compact_text = util_read_data(rel, &compact_len);
        ck_assert_msg(ts_json_parse(in, in_len, 0, &v, &err) == 0, "%s: %s", names[i], err.message);
        ts_buf_init(&b, TS_BUF_UNLIMITED);
        ck_assert_int_eq(ts_json_write_pretty(v, &b, &err), 0);
        ck_assert_msg(b.len == pretty_len && memcmp(b.data, pretty, b.len) == 0,
                      "%s pretty:\n%s\nwant:\n%s", names[i], b.data, pretty);
        ts_buf_reset(&b);
        ck_assert_int_eq(ts_json_write_compact(v, &b, &err), 0);
        ck_assert_msg(b.len == compact_len && memcmp(b.data, compact_text, b.len) == 0,
                      "%s compact:\n%s\nwant:\n%s", names[i], b.data, compact_text);
        ts_buf_free(&b);
        json_object_put(v);
        free(in);
        free(pretty);
        free(compact_text);
    }
}
END_TEST

START_TEST(string_escapes_exactly_as_python)
{
    static const char input[] = "\" \\ / \n \r \t \b \f \x01 \x1f \x7f \xc3\xa9 \xe2\x80\xa8";
    ts_buf b;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_json_write_string(input, sizeof(input) - 1, &b), 0);
    ck_assert_str_eq(b.data, "\"\\\" \\\\ / \\n \\r \\t \\b \\f \\u0001 \\u001f \x7f \xc3\xa9 "
                             "\xe2\x80\xa8\"");
    ts_buf_reset(&b);
    ck_assert_int_eq(ts_json_write_string("a\0b", 3, &b), 0);
    ck_assert_str_eq(b.data, "\"a\\u0000b\"");
    ts_buf_reset(&b);
    ck_assert_int_eq(ts_json_write_string("\xff", 1, &b), -EINVAL);
    ck_assert_int_eq(ts_json_write_string("\xed\xa0\x80", 3, &b), -EINVAL);
    ts_buf_free(&b);
}
END_TEST

START_TEST(writer_limits_and_bad_strings)
{
    struct json_object *o = json_object_new_object();
    ts_buf b;
    ts_error err;

    json_object_object_add(o, "k", json_object_new_string_len("a\xff", 2));
    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_json_write_pretty(o, &b, &err), -EINVAL);
    ck_assert_str_eq(err.code, "invalid_argument");
    ck_assert_ptr_nonnull(strstr(err.message, "UTF-8"));
    json_object_object_add(o, "k", json_object_new_string("0123456789"));
    ts_buf_free(&b);
    ts_buf_init(&b, 8);
    ck_assert_int_eq(ts_json_write_pretty(o, &b, &err), -E2BIG);
    ck_assert_str_eq(err.code, "too_large");
    ck_assert_ptr_null(b.data);
    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_json_write_pretty(NULL, &b, &err), 0);
    ck_assert_str_eq(b.data, "null");
    ts_buf_free(&b);
    json_object_put(o);
}
END_TEST

START_TEST(integers_are_exact_to_64_bits)
{
    struct json_object *v = parse_ok("[9223372036854775807, 9223372036854775808, "
                                     "18446744073709551615, -9223372036854775808, -0, 0]");
    char *text = util_json_compact(v);

    ck_assert_str_eq(text, "[9223372036854775807, 9223372036854775808, 18446744073709551615, "
                           "-9223372036854775808, 0, 0]");
    ck_assert(json_object_is_type(json_object_array_get_idx(v, 1), json_type_int));
    free(text);
    json_object_put(v);
    parse_fails_s("[18446744073709551616]",
                  "line 1, column 2: integer out of range (beyond 64 bits)");
    parse_fails_s("[-9223372036854775809]",
                  "line 1, column 2: integer out of range (beyond 64 bits)");
    parse_fails_s("{\"a\": 100000000000000000000000000000}",
                  "line 1, column 7: integer out of range (beyond 64 bits)");
    parse_fails_s("[1e400]", "line 1, column 2: number out of range (overflows a double)");
    parse_fails_s("[-1.5e309]", "line 1, column 2: number out of range (overflows a double)");
    /* Large but finite, and underflow to zero, are fine. */
    json_object_put(parse_ok("[1.7976931348623157e308, 1e-400]"));
}
END_TEST

START_TEST(duplicate_keys_last_wins_at_first_position)
{
    struct json_object *v = parse_ok("{\"k\": 1, \"other\": 2, \"k\": 3}");
    char *text = util_json_compact(v);

    ck_assert_str_eq(text, "{\"k\": 3, \"other\": 2}");
    free(text);
    json_object_put(v);
}
END_TEST

START_TEST(syntax_errors_say_where)
{
    parse_fails_s("", "line 1, column 1: unexpected end of input");
    parse_fails_s("   \n  ", "line 2, column 3: unexpected end of input");
    parse_fails_s("{\"a\": 1", "line 1, column 8: unexpected end of input");
    parse_fails_s("[1,]", "line 1, column 4: unexpected character");
    parse_fails_s("{\n  \"a\": tru\n}", "line 2, column 8: unexpected character");
    parse_fails_s("[1] x", "line 1, column 5: unexpected character");
    parse_fails_s("{\"a\": 1}\n{\"b\": 2}", "line 2, column 1: unexpected character");
    parse_fails_s("[\"abc", "line 1, column 6: unterminated string");
    parse_fails_s("{'a': 1}", "line 1, column 2: unexpected character");
    parse_fails_s("/* c */ [1]", "line 1, column 1: unexpected character");
    parse_fails_s("[1.]", "line 1, column 2: invalid number (digit expected after '.')");
    parse_fails_s("[01]", "line 1, column 2: invalid number (leading zero)");
    parse_fails_s("[.5]", "line 1, column 2: unexpected character");
    parse_fails_s("[1e]", "line 1, column 2: invalid number (digit expected in exponent)");
    parse_fails_s("[-]", "line 1, column 2: invalid number");
    parse_fails_s("[+1]", "line 1, column 2: unexpected character");
    /* The first problem in the text is reported, whichever pass finds it. */
    parse_fails_s("[1,,2, NaN]", "line 1, column 4: unexpected character");
    parse_fails_s("[1, NaN,,2]", "line 1, column 5: NaN and Infinity are not valid JSON");
    parse_fails_s("{\"a\" 1}", "line 1, column 6: object property name separator ':' expected");
}
END_TEST

START_TEST(nan_and_infinity_refused)
{
    parse_fails_s("[NaN]", "line 1, column 2: NaN and Infinity are not valid JSON");
    parse_fails_s("Infinity", "line 1, column 1: NaN and Infinity are not valid JSON");
    parse_fails_s("{\"x\": -Infinity}", "line 1, column 7: NaN and Infinity are not valid JSON");
}
END_TEST

START_TEST(strings_strictly_checked)
{
    parse_fails_s("[\"a\tb\"]", "line 1, column 4: control character U+0009 in string");
    parse_fails_s("[\"a\nb\"]", "line 1, column 4: control character U+000A in string");
    parse_fails_s("[\"\\x\"]", "line 1, column 3: invalid escape in string");
    parse_fails_s("[\"\\u12g4\"]", "line 1, column 3: invalid \\u escape (4 hex digits expected)");
    parse_fails_s("[\"\\ud800\"]", "line 1, column 3: lone high surrogate in \\u escape");
    parse_fails_s("[\"\\ud800\\u0041\"]", "line 1, column 3: lone high surrogate in \\u escape");
    parse_fails_s("[\"\\udc00\"]", "line 1, column 3: lone low surrogate in \\u escape");
    parse_fails_s("{\"a\\u0000\": 1}", "line 1, column 2: object key contains \\u0000");
    /* A value may hold U+0000 (json-c keeps the length); a key may not. */
    {
        struct json_object *v = parse_ok("[\"a\\u0000b\", \"\\ud83d\\ude00\"]");
        struct json_object *s = json_object_array_get_idx(v, 0);

        ck_assert_int_eq(json_object_get_string_len(s), 3);
        ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(v, 1)),
                         "\xf0\x9f\x98\x80");
        json_object_put(v);
    }
}
END_TEST

START_TEST(invalid_utf8_and_nul_refused)
{
    /* Columns count characters: "é" before the bad byte is one column. */
    parse_fails("[\"\xc3\xa9\xff\"]", 6, "invalid_json", "line 1, column 4: invalid UTF-8");
    parse_fails("{\n \"k\": \"\xc0\xaf\"}", 13, "invalid_json", "line 2, column 8: invalid UTF-8");
    parse_fails("[\"\xed\xa0\x80\"]", 7, "invalid_json", "line 1, column 3: invalid UTF-8");
    parse_fails("[\"\xe2\x82", 4, "invalid_json", "line 1, column 3: invalid UTF-8");
    parse_fails("[\"\xf4\x90\x80\x80\"]", 8, "invalid_json", "line 1, column 3: invalid UTF-8");
    parse_fails("[1]\0", 4, "invalid_json", "line 1, column 4: NUL byte");
    parse_fails("[\"a\0\"]", 6, "invalid_json",
                "line 1, column 4: control character U+0000 in string");
}
END_TEST

START_TEST(depth_and_size_limits)
{
    char deep[2 * TS_JSON_MAX_DEPTH + 8];
    struct json_object *v = NULL;
    ts_error err;
    int n = TS_JSON_MAX_DEPTH;

    memset(deep, '[', (size_t)n);
    memset(deep + n, ']', (size_t)n);
    ck_assert_int_eq(ts_json_parse(deep, 2 * (size_t)n, 0, &v, &err), 0);
    json_object_put(v);
    v = NULL;
    memset(deep, '[', (size_t)n + 1);
    memset(deep + n + 1, ']', (size_t)n + 1);
    ck_assert_int_eq(ts_json_parse(deep, 2 * (size_t)n + 2, 0, &v, &err), -EINVAL);
    ck_assert_ptr_null(v);
    ck_assert_str_eq(err.code, "limit");
    ck_assert_str_eq(err.message, "line 1, column 129: nesting deeper than 128 levels");
    ck_assert_int_eq(ts_json_parse("{\"a\": [[1]]}", 12, 3, &v, &err), 0);
    json_object_put(v);
    v = NULL;
    ck_assert_int_eq(ts_json_parse("{\"a\": [[[1]]]}", 14, 3, &v, &err), -EINVAL);
    ck_assert_str_eq(err.message, "line 1, column 9: nesting deeper than 3 levels");
    /* The size check comes before any byte is read. */
    ck_assert_int_eq(ts_json_parse("[]", (size_t)TS_JSON_MAX_BYTES + 1, 0, &v, &err), -E2BIG);
    ck_assert_str_eq(err.code, "too_large");
    ck_assert_ptr_null(v);
}
END_TEST

START_TEST(copy_and_get_string)
{
    struct json_object *v =
        parse_ok("{\"tool\": \"x\", \"n\": 1, \"args\": {\"a\": [1.5, 0.1]}, \"u\": "
                 "18446744073709551615, \"i\": -9223372036854775808, \"s\": \"a\\u0000b\"}");
    struct json_object *c = ts_json_copy(v);
    char *a;
    char *b;

    ck_assert_ptr_ne(c, v);
    a = util_json_compact(v);
    b = util_json_compact(c);
    ck_assert_str_eq(a, b);
    ck_assert_str_eq(b, "{\"tool\": \"x\", \"n\": 1, \"args\": {\"a\": [1.5, 0.1]}, \"u\": "
                        "18446744073709551615, \"i\": -9223372036854775808, \"s\": \"a\\u0000b\"}");
    ck_assert_str_eq(ts_json_get_string(v, "tool"), "x");
    ck_assert_ptr_null(ts_json_get_string(v, "n"));
    ck_assert_ptr_null(ts_json_get_string(v, "missing"));
    ck_assert_ptr_null(ts_json_get_string(NULL, "tool"));
    ck_assert_ptr_null(ts_json_copy(NULL));
    free(a);
    free(b);
    json_object_put(v);
    json_object_put(c);
}
END_TEST

START_TEST(utf8_validation)
{
    ck_assert(ts_utf8_valid("", 0));
    ck_assert(ts_utf8_valid("a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 10));
    ck_assert(!ts_utf8_valid("\x80", 1));
    ck_assert(!ts_utf8_valid("\xc1\xbf", 2));     /* overlong */
    ck_assert(!ts_utf8_valid("\xe0\x80\xaf", 3)); /* overlong */
    ck_assert(!ts_utf8_valid("\xed\xbf\xbf", 3)); /* surrogate */
    ck_assert(!ts_utf8_valid("\xf4\x90\x80\x80", 4));
    ck_assert(!ts_utf8_valid("\xf0\x9f\x98", 3)); /* truncated */
    /* cuts at a character boundary: "a" U+00E9 U+20AC */
    ck_assert_uint_eq(ts_utf8_cut("a\xc3\xa9\xe2\x82\xac", 6, 6), 6);
    ck_assert_uint_eq(ts_utf8_cut("a\xc3\xa9\xe2\x82\xac", 6, 5), 3);
    ck_assert_uint_eq(ts_utf8_cut("a\xc3\xa9\xe2\x82\xac", 6, 3), 3);
    ck_assert_uint_eq(ts_utf8_cut("a\xc3\xa9\xe2\x82\xac", 6, 2), 1);
    ck_assert_uint_eq(ts_utf8_cut("a\xc3\xa9\xe2\x82\xac", 6, 0), 0);
}
END_TEST

/* Random garbage never crashes the reader and always gets a message. */
START_TEST(garbage_never_crashes)
{
    static const char alphabet[] = "{}[]:,\"\\u0aeE.-+ \n\t1tfnrNI\xc3\xa9\xff\x01";
    unsigned seed = 7;

    for (int round = 0; round < 5000; round++) {
        char buf[64];
        size_t len = (size_t)(rand_r(&seed) % sizeof(buf));
        struct json_object *v = NULL;
        ts_error err;
        int rc;

        for (size_t i = 0; i < len; i++)
            buf[i] = alphabet[rand_r(&seed) % (sizeof(alphabet) - 1)];
        err.message[0] = '\0';
        rc = ts_json_parse(buf, len, 0, &v, &err);
        if (rc < 0)
            ck_assert_msg(strncmp(err.message, "line ", 5) == 0, "%s", err.message);
        else
            json_object_put(v);
    }
}
END_TEST

/* ---- prices -------------------------------------------------------------- */

/* "[" item "," item ... "]" with n items. */
static char *repeat_text(const char *item, size_t n, size_t *len)
{
    size_t il = strlen(item);
    char *buf = malloc(n * (il + 1) + 3);
    char *p = buf;

    ck_assert_ptr_nonnull(buf);
    *p++ = '[';
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            *p++ = ',';
        memcpy(p, item, il);
        p += il;
    }
    *p++ = ']';
    *p = '\0';
    *len = (size_t)(p - buf);
    return buf;
}

/*
 * The price of a text is what parsing it really takes, measured: never
 * less, and not much more. Shapes from the cheapest per byte to the
 * dearest: the budget relies on the price of the worst.
 */
START_TEST(prices_hold_to_the_measurement)
{
    static const char *const items[] = {
        "{}",
        "[]",
        "0",
        "null",
        "true",
        "-12345678901",
        "1.5",
        "\"\"",
        "\"a short string\"",
        "\"a string of more than twenty-three bytes, escaped \\\" and \\u00e9\"",
        "{\"a\": 1}",
        "{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9,\"j\":10,\"k\":"
        "11,"
        "\"l\":12}",
        "{\"tool\": \"search\", \"args\": {\"query\": \"flights to Lisbon\", \"page\": 2, "
        "\"filters\": {\"tags\": [\"x\", \"y\"], \"max\": 1.25}}}",
        "[[[[[[[[[[0]]]]]]]]]]",
        "{\"key number one that is long\": {\"key number two that is long\": []}}",
    };

    for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
        size_t len;
        char *text = repeat_text(items[i], 20000, &len);
        size_t price = ts_json_price(text, len);
        struct json_object *v = NULL;
        ts_error err;

#if !defined(__SANITIZE_ADDRESS__)
        size_t before = util_heap_in_use();
        ck_assert_int_eq(ts_json_parse(text, len, 0, &v, &err), 0);
        size_t used = util_heap_in_use() - before;

        ck_assert_msg(price >= used, "%s x 20000: priced %zu, takes %zu", items[i], price, used);
        ck_assert_msg(price <= used + used / 4 + 4096, "%s x 20000: priced %zu, takes only %zu",
                      items[i], price, used);
#else
        /* the sanitizer's allocator is not glibc's: the price is only sane */
        ck_assert_int_eq(ts_json_parse(text, len, 0, &v, &err), 0);
        ck_assert_uint_ge(price, len);
#endif
        json_object_put(v);
        free(text);
    }
    /* an empty object costs its table: "{}" prices at about 800 bytes, a megabyte
     * of them at over a quarter of a gigabyte */
    ck_assert_uint_eq(ts_json_price("{}", 2), ts_json_cost_object(0));
    ck_assert_uint_ge(ts_json_cost_object(0), 784);
    /* broken and truncated texts get a price too */
    ck_assert_uint_ge(ts_json_price("[{}, {\"a\": [1, 2", 17), 2 * 784);
    ck_assert_uint_eq(ts_json_price("", 0), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, doubles_python_repr_cases);
    tcase_add_test(tc, doubles_refuse_nan_and_infinity);
    tcase_add_test(tc, doubles_match_python_reference_data);
    tcase_add_test(tc, writer_matches_python_bytes);
    tcase_add_test(tc, string_escapes_exactly_as_python);
    tcase_add_test(tc, writer_limits_and_bad_strings);
    tcase_add_test(tc, integers_are_exact_to_64_bits);
    tcase_add_test(tc, duplicate_keys_last_wins_at_first_position);
    tcase_add_test(tc, syntax_errors_say_where);
    tcase_add_test(tc, nan_and_infinity_refused);
    tcase_add_test(tc, strings_strictly_checked);
    tcase_add_test(tc, invalid_utf8_and_nul_refused);
    tcase_add_test(tc, depth_and_size_limits);
    tcase_add_test(tc, copy_and_get_string);
    tcase_add_test(tc, utf8_validation);
    tcase_add_test(tc, garbage_never_crashes);
    tcase_add_test(tc, prices_hold_to_the_measurement);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
