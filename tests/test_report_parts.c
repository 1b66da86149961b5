/*
 * test_report_parts — the pieces the drift report is made of: Python
 * repr() of values, text measured and fitted in terminal cells (wide
 * characters two cells), the two-pass alignment of the call lists and its
 * bounded fallback, the unified JSON diff, and the end-of-run summary line.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/ts_report.h"
#include "util_test.h"

/* ---- repr ---- */

static void assert_repr(const char *json, const char *want)
{
    struct json_object *v = util_json_c_parse(json);
    ts_buf out;

    ts_buf_init(&out, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_repr_value(v, &out), 0);
    ck_assert_str_eq(out.data, want);
    ts_buf_free(&out);
    json_object_put(v);
}

START_TEST(repr_like_python)
{
    assert_repr("\"it's\"", "\"it's\"");
    assert_repr("\"say \\\"hi\\\"\"", "'say \"hi\"'");
    assert_repr("\"both ' and \\\"\"", "'both \\' and \"'");
    assert_repr("\"tab\\there\"", "'tab\\there'");
    assert_repr("\"nl\\n\"", "'nl\\n'");
    assert_repr("\"\\u0007bell\"", "'\\x07bell'");
    assert_repr("\"\\u00a0nbsp\"", "'\\xa0nbsp'");
    assert_repr("\"é東京\"", "'é東京'");
    assert_repr("\"\\u2028\"", "'\\u2028'");
    assert_repr("\"\\u007f\"", "'\\x7f'");
    assert_repr("\"\\u200b\"", "'\\u200b'");
    assert_repr("\"back\\\\slash\"", "'back\\\\slash'");
    assert_repr("\"\\ud83d\\ude00\"", "'😀'");
    assert_repr("1e16", "1e+16");
    assert_repr("1e-7", "1e-07");
    assert_repr("0.1", "0.1");
    assert_repr("1.0", "1.0");
    assert_repr("-0.0", "-0.0");
    assert_repr("123456789.123", "123456789.123");
    assert_repr("-42", "-42");
    assert_repr("18446744073709551615", "18446744073709551615");
    assert_repr("9223372036854775807", "9223372036854775807");
    assert_repr("null", "None");
    assert_repr("[true, false]", "[True, False]");
    assert_repr("{\"a\": [1, 2.5, null, true], \"b\": {\"c\": \"d\"}}",
                "{'a': [1, 2.5, None, True], 'b': {'c': 'd'}}");
    assert_repr("[]", "[]");
    assert_repr("{}", "{}");
}
END_TEST

/* Bytes that are not valid UTF-8 (by the one rule of ts_utf8: overlongs,
 * surrogates and stray bytes included) are shown byte by byte. */
START_TEST(repr_invalid_utf8_bytes)
{
    static const struct {
        const char *s;
        size_t len;
        const char *want;
    } cases[] = {
        {"a\xff", 2, "'a\\xff'"},
        {"\xc0\x80", 2, "'\\xc0\\x80'"},                   /* an overlong NUL */
        {"\xed\xa0\x80", 3, "'\\xed\\xa0\\x80'"},          /* an encoded surrogate */
        {"\xf4\x90\x80\x80", 4, "'\\xf4\\x90\\x80\\x80'"}, /* beyond U+10FFFF */
        {"\xe2\x82", 2, "'\\xe2\\x82'"},                   /* truncated */
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ts_buf out;

        ts_buf_init(&out, TS_BUF_UNLIMITED);
        ck_assert_int_eq(ts_repr_string(cases[i].s, cases[i].len, &out), 0);
        ck_assert_str_eq(out.data, cases[i].want);
        ts_buf_free(&out);
    }
}
END_TEST

START_TEST(repr_cut)
{
    ts_buf out;

    ts_buf_init(&out, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_repr_append_cut("abcdef", 6, 6, &out), 0);
    ck_assert_str_eq(out.data, "abcdef");
    ts_buf_reset(&out);
    ck_assert_int_eq(ts_repr_append_cut("abcdefg", 7, 6, &out), 0);
    ck_assert_str_eq(out.data, "abcdef…");
    ts_buf_reset(&out);
    ck_assert_int_eq(ts_repr_append_cut("東京東京", strlen("東京東京"), 3, &out), 0);
    ck_assert_str_eq(out.data, "東京東…");
    /* terminal cells: wide characters take two, combining marks none */
    ck_assert_uint_eq(ts_repr_width("東京東…", strlen("東京東…")), 7);
    ck_assert_uint_eq(ts_repr_width("Zürich", strlen("Zürich")), 6);
    ck_assert_uint_eq(ts_repr_width("Zu"
                                    "\xcc\x88"
                                    "rich",
                                    8),
                      6);
    ck_assert_uint_eq(ts_repr_width("한국어", strlen("한국어")), 6);
    ck_assert_uint_eq(ts_repr_width("ｶﾀｶﾅ", strlen("ｶﾀｶﾅ")), 4); /* halfwidth forms */
    ck_assert_uint_eq(ts_repr_width("ＡＢ", strlen("ＡＢ")), 4); /* fullwidth forms */
    ck_assert_uint_eq(ts_repr_width("\xf0\x9f\x98\x80"
                                    "!",
                                    5),
                      3);                                       /* an emoji */
    ck_assert_uint_eq(ts_repr_width("\xf0\xa0\x80\x80", 4), 2); /* plane 2 */
    ck_assert_uint_eq(ts_repr_width("✓ ≠ —", strlen("✓ ≠ —")), 5);
    ck_assert_uint_eq(ts_repr_width("a"
                                    "\xe2\x80\x8b"
                                    "b",
                                    5),
                      2);                           /* zero-width space */
    ck_assert_uint_eq(ts_repr_width("\xff", 1), 1); /* a stray byte */
    ts_buf_free(&out);
}
END_TEST

/* ---- alignment ---- */

START_TEST(align_like_difflib)
{
    /* opcodes from Python's difflib.SequenceMatcher(None, a, b, autojunk=False) */
    static const struct {
        const char *a, *b, *ops;
    } cases[] = {
        {"abc", "bac", "i0,0,0,1;e0,1,1,2;d1,2,2,2;e2,3,2,3;"},
        {"abcd", "acbd", "e0,1,0,1;i1,1,1,2;e1,2,2,3;d2,3,3,3;e3,4,3,4;"},
        {"aaab", "abaa", "i0,0,0,2;e0,2,2,4;d2,4,4,4;"},
        {"abcabc", "cbacba", "i0,0,0,2;e0,1,2,3;i1,1,3,4;e1,2,4,5;d2,3,5,5;e3,4,5,6;d4,6,6,6;"},
        {"", "ab", "i0,0,0,2;"},
        {"ab", "", "d0,2,0,0;"},
        {"", "", ""},
        {"xabcy", "abc", "d0,1,0,0;e1,4,0,3;d4,5,3,3;"},
        {"abxcd", "abycd", "e0,2,0,2;r2,3,2,3;e3,5,3,5;"},
        {"aabbaabb", "abab", "d0,1,0,0;e1,3,0,2;d3,5,2,2;e5,7,2,4;d7,8,4,4;"},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        struct json_object *a = util_calls_of_letters(cases[k].a),
                           *b = util_calls_of_letters(cases[k].b);
        ts_align_op *ops = NULL;
        size_t n = 0;
        char text[512] = "";
        size_t len = 0;
        ck_assert_int_eq(ts_align_calls(a, b, &ops, &n), 0);
        for (size_t i = 0; i < n; i++)
            len += (size_t)snprintf(text + len, sizeof(text) - len, "%c%zu,%zu,%zu,%zu;",
                                    ops[i].tag, ops[i].i1, ops[i].i2, ops[i].j1, ops[i].j2);
        ck_assert_msg(strcmp(text, cases[k].ops) == 0, "%s vs %s: %s, want %s", cases[k].a,
                      cases[k].b, text, cases[k].ops);
        free(ops);
        json_object_put(a);
        json_object_put(b);
    }
}
END_TEST

START_TEST(align_thousand_calls)
{
    struct json_object *a = json_object_new_array(), *b = json_object_new_array();
    ts_align_op *ops = NULL;
    size_t n = 0;

    for (int i = 0; i < 1000; i++) {
        char name[16];
        struct json_object *c = json_object_new_object(), *d = json_object_new_object();
        snprintf(name, sizeof(name), "t%d", i % 10);
        json_object_object_add(c, "tool", json_object_new_string(name));
        json_object_array_add(a, c);
        json_object_object_add(d, "tool", json_object_new_string(i == 500 ? "zz" : name));
        json_object_array_add(b, d);
    }
    ck_assert_int_eq(ts_align_calls(a, b, &ops, &n), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert(ops[0].tag == 'e' && ops[0].i2 == 500 && ops[0].j2 == 500);
    ck_assert(ops[1].tag == 'r' && ops[1].i1 == 500 && ops[1].i2 == 501);
    ck_assert(ops[2].tag == 'e' && ops[2].i1 == 501 && ops[2].i2 == 1000 && ops[2].j2 == 1000);
    free(ops);
    json_object_put(a);
    json_object_put(b);
}
END_TEST

/* ---- summary ---- */

static void assert_summary(ts_summary_counts c, const char *want)
{
    ts_buf out;

    ts_buf_init(&out, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_report_summary(&c, &out), 0);
    ck_assert_str_eq(out.data ? out.data : "", want);
    ts_buf_free(&out);
}

START_TEST(summary_line)
{
    assert_summary((ts_summary_counts){0, 0, 0, 0, 0, 0}, "");
    assert_summary((ts_summary_counts){1, 0, 0, 0, 0, 0},
                   "toolscore: 1 snapshot created (pending approval)");
    assert_summary((ts_summary_counts){2, 1, 0, 5, 0, 0},
                   "toolscore: 2 snapshots created (pending approval), 1 updated, 5 passed");
    assert_summary((ts_summary_counts){3, 2, 4, 7, 1, 0},
                   "toolscore: 3 snapshots created (pending approval), 2 updated, 4 pending, "
                   "7 passed, 1 failed");
    assert_summary((ts_summary_counts){0, 0, 1, 0, 0, 0}, "toolscore: 1 pending");
    assert_summary((ts_summary_counts){0, 0, 0, 0, 2, 3}, "toolscore: 5 failed");
    assert_summary((ts_summary_counts){0, 0, 0, 0, 0, 1}, "toolscore: 1 failed");
    assert_summary((ts_summary_counts){0, 1, 0, 0, 0, 0}, "toolscore: 1 updated");
    /* updates whose calls were approved already: unchanged, not updated */
    assert_summary((ts_summary_counts){.updated = 2, .unchanged = 1},
                   "toolscore: 1 updated, 1 unchanged");
    assert_summary((ts_summary_counts){.updated = 8, .unchanged = 8, .passed = 1},
                   "toolscore: 8 unchanged, 1 passed");
    assert_summary((ts_summary_counts){-1, 0, 0, 0, 0, 0}, "");
}
END_TEST

START_TEST(summary_appends)
{
    ts_summary_counts c = {0, 0, 0, 1, 0, 0};
    ts_buf out;

    ts_buf_init(&out, TS_BUF_UNLIMITED);
    ts_buf_appends(&out, "> ");
    ck_assert_int_eq(ts_report_summary(&c, &out), 0);
    ck_assert_str_eq(out.data, "> toolscore: 1 passed");
    ts_buf_free(&out);
    ts_buf_init(&out, 5);
    ck_assert_int_eq(ts_report_summary(&c, &out), -E2BIG);
    ts_buf_free(&out);
}
END_TEST

/* ---- fitting text into cells ---- */

static char *fit(int (*f)(const char *, size_t, size_t, ts_buf *), const char *s, size_t width)
{
    ts_buf out;

    ts_buf_init(&out, TS_BUF_UNLIMITED);
    ck_assert_int_eq(f(s, strlen(s), width, &out), 0);
    ck_assert_uint_le(ts_repr_width(out.data ? out.data : "", out.len),
                      width > ts_repr_width(s, strlen(s)) ? ts_repr_width(s, strlen(s)) : width);
    return ts_buf_detach(&out, NULL);
}

static void assert_fit(int (*f)(const char *, size_t, size_t, ts_buf *), const char *s,
                       size_t width, const char *want)
{
    char *got = fit(f, s, width);

    ck_assert_msg(strcmp(got, want) == 0, "'%s' in %zu cells: '%s', want '%s'", s, width, got,
                  want);
    free(got);
}

START_TEST(fit_end_start_and_middle)
{
    assert_fit(ts_repr_fit_end, "hello world", 11, "hello world");
    assert_fit(ts_repr_fit_end, "hello world", 5, "hell…");
    assert_fit(ts_repr_fit_end, "東京東京", 5, "東京…"); /* 2 + 2 + 1 cells */
    assert_fit(ts_repr_fit_end, "東京東京", 4, "東…");   /* no half a character */
    assert_fit(ts_repr_fit_end, "abc", 0, "");
    assert_fit(ts_repr_fit_start, "abcdefgh", 5, "…efgh");
    assert_fit(ts_repr_fit_start, "passenger.loyalty.tier", 10, "…alty.tier");
    assert_fit(ts_repr_fit_middle, "abcdefghij", 7, "abc…hij");
    assert_fit(ts_repr_fit_middle, "abcdefghij", 10, "abcdefghij");
    assert_fit(ts_repr_fit_middle, "東京から大阪まで", 9, "東京…まで");
    assert_fit(ts_repr_fit_middle, "e\xcc\x81tude", 4, "e\xcc\x81t…e"); /* a combining mark */
}
END_TEST

static void assert_pair(const char *a, const char *b, size_t width, const char *want_a,
                        const char *want_b)
{
    ts_buf fa, fb;

    ts_buf_init(&fa, TS_BUF_UNLIMITED);
    ts_buf_init(&fb, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_repr_fit_pair(a, strlen(a), b, strlen(b), width, &fa, &fb), 0);
    ck_assert_str_eq(fa.data, want_a);
    ck_assert_str_eq(fb.data, want_b);
    ck_assert_uint_le(ts_repr_width(fa.data, fa.len), width);
    ck_assert_uint_le(ts_repr_width(fb.data, fb.len), width);
    ts_buf_free(&fa);
    ts_buf_free(&fb);
}

START_TEST(fit_pair_keeps_the_difference_visible)
{
    /* cut at the same places around the part that differs */
    assert_pair("The quick brown fox jumps over the lazy dog",
                "The quick brown cat jumps over the lazy dog", 20, "… brown fox jumps o…",
                "… brown cat jumps o…");
    /* the nested value: both sides were cut to the same text */
    assert_pair("{'name': 'Ada', 'loyalty': {'program': 'SkyMiles', 'tier': 'gold'}}",
                "{'name': 'Ada', 'loyalty': {'program': 'SkyMiles', 'tier': 'platinum'}}", 30,
                "{'name': …'tier': 'gold'}}", "{'name': …'tier': 'platinum'}}");
    /* a change at the start: the tail cut */
    assert_pair("Xbcdefghijklmnopqrstuvwxyz", "Ybcdefghijklmnopqrstuvwxyz", 10, "Xbcdefghi…",
                "Ybcdefghi…");
    /* texts that fit stay whole; one too long for any context starts at
     * its change */
    assert_pair("'gold'", "'platinum'", 12, "'gold'", "'platinum'");
    assert_pair("short", "a change much longer than the width", 10, "short", "a change …");
    assert_pair("same text here", "same text here", 9, "same…here", "same…here");
    /* wide characters: never split, never more cells than given */
    assert_pair("東京駅から新宿まで歩く", "東京駅から渋谷まで歩く", 12, "…ら新宿ま…",
                "…ら渋谷ま…"); /* "から" would take 4 cells of 3 */
}
END_TEST

/* ---- alignment, second pass and bounds ---- */

static char *ops_text(const char *a, const char *b)
{
    struct json_object *ja = util_json_c_parse(a), *jb = util_json_c_parse(b);
    ts_align_op *ops = NULL;
    size_t n = 0, len = 0;
    char *text = calloc(1024, 1);

    ck_assert_int_eq(ts_align_calls(ja, jb, &ops, &n), 0);
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, 1024 - len, "%c%zu,%zu,%zu,%zu;", ops[i].tag, ops[i].i1,
                                ops[i].i2, ops[i].j1, ops[i].j2);
    free(ops);
    json_object_put(ja);
    json_object_put(jb);
    return text;
}

START_TEST(align_unchanged_calls_first)
{
    /* tools in turn, a call inserted: by names alone difflib pairs the
     * calls after it with the wrong ones; by whole calls first, the
     * unchanged calls anchor the rows */
    char *t = ops_text("[{\"tool\":\"a\",\"args\":{\"i\":0}},{\"tool\":\"b\",\"args\":{\"i\":1}},"
                       "{\"tool\":\"a\",\"args\":{\"i\":2}},{\"tool\":\"b\",\"args\":{\"i\":3}}]",
                       "[{\"tool\":\"a\",\"args\":{\"i\":0}},{\"tool\":\"b\",\"args\":{\"i\":9}},"
                       "{\"tool\":\"a\",\"args\":{\"i\":1}},{\"tool\":\"b\",\"args\":{\"i\":1}},"
                       "{\"tool\":\"a\",\"args\":{\"i\":2}},{\"tool\":\"b\",\"args\":{\"i\":3}}]");
    ck_assert_str_eq(t, "e0,1,0,1;i1,1,1,3;e1,4,3,6;");
    free(t);
    /* a changed call between unchanged ones pairs with its tool */
    t = ops_text("[{\"tool\":\"a\",\"args\":{\"i\":0}},{\"tool\":\"b\",\"args\":{\"i\":1}},"
                 "{\"tool\":\"c\",\"args\":{\"i\":2}}]",
                 "[{\"tool\":\"a\",\"args\":{\"i\":0}},{\"tool\":\"b\",\"args\":{\"i\":5}},"
                 "{\"tool\":\"c\",\"args\":{\"i\":2}}]");
    ck_assert_str_eq(t, "e0,3,0,3;");
    free(t);
    /* keys in another order are the same call; 1 and 1.0 are not */
    t = ops_text(
        "[{\"tool\":\"a\",\"args\":{\"x\":1,\"y\":2}},{\"tool\":\"a\",\"args\":{\"x\":1}}]",
        "[{\"tool\":\"z\"},{\"tool\":\"a\",\"args\":{\"y\":2,\"x\":1}},"
        "{\"tool\":\"a\",\"args\":{\"x\":1.0}}]");
    ck_assert_str_eq(t, "i0,0,0,1;e0,2,1,3;");
    free(t);
}
END_TEST

START_TEST(align_too_costly_falls_back)
{
    /* 6,000 calls of two tools in turn against the same shifted by one:
     * difflib would visit some 18 million pairs per search; the budget
     * stops it and the common head and tail are matched instead */
    struct json_object *a = json_object_new_array(), *b = json_object_new_array();
    ts_align_op *ops = NULL;
    size_t n = 0, rows = 0;

    for (int i = 0; i < 6000; i++) {
        struct json_object *c = json_object_new_object(), *d = json_object_new_object();
        json_object_object_add(c, "tool", json_object_new_string(i % 2 ? "x" : "y"));
        json_object_array_add(a, c);
        json_object_object_add(d, "tool", json_object_new_string(i % 2 ? "y" : "x"));
        json_object_array_add(b, d);
    }
    ck_assert_int_eq(ts_align_calls(a, b, &ops, &n), 0);
    ck_assert_uint_ge(n, 1);
    for (size_t k = 0; k < n; k++) { /* the ops cover both lists, in order */
        ck_assert_uint_eq(ops[k].i1, k ? ops[k - 1].i2 : 0);
        ck_assert_uint_eq(ops[k].j1, k ? ops[k - 1].j2 : 0);
        rows += ops[k].i2 - ops[k].i1;
    }
    ck_assert_uint_eq(ops[n - 1].i2, 6000);
    ck_assert_uint_eq(ops[n - 1].j2, 6000);
    ck_assert_uint_eq(rows, 6000);
    free(ops);
    json_object_put(a);
    json_object_put(b);
}
END_TEST

/* ---- the JSON diff ---- */

/* Ten calls {"tool": "t", "args": {"i": k}}, with the changes given as
 * index=value pairs ending in -1. */
static struct json_object *ten(const int *changes)
{
    struct json_object *list = json_object_new_array();

    for (int i = 0; i < 10; i++) {
        struct json_object *call = json_object_new_object(), *args = json_object_new_object();
        int v = i;
        for (const int *c = changes; c && c[0] >= 0; c += 2)
            if (c[0] == i)
                v = c[1];
        json_object_object_add(args, "i", json_object_new_int(v));
        json_object_object_add(call, "tool", json_object_new_string("t"));
        json_object_object_add(call, "args", args);
        json_object_array_add(list, call);
    }
    return list;
}

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0;

    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static int json_diff(struct json_object *a, struct json_object *b, size_t width, size_t max,
                     char **text)
{
    ts_jsondiff_options opt = {width, false, 3, max};
    ts_align_op *ops = NULL;
    size_t n = 0;
    ts_buf out;
    int rc;

    ck_assert_int_eq(ts_align_calls(a, b, &ops, &n), 0);
    ts_buf_init(&out, TS_BUF_UNLIMITED);
    rc = ts_jsondiff_calls(a, b, ops, n, &opt, &out);
    *text = ts_buf_detach(&out, NULL);
    free(ops);
    return rc;
}

START_TEST(json_diff_hunks)
{
    const int one[] = {5, 50, -1}, far[] = {1, 10, 8, 80, -1}, near[] = {4, 40, 5, 50, -1};
    struct json_object *gold = ten(NULL), *t;
    char *text;

    /* the call at index 5 starts on line 2 + 6 * 5 = 32 */
    t = ten(one);
    ck_assert_int_eq(json_diff(gold, t, 100, 200, &text), 0);
    ck_assert_str_eq(text, "- expected\n+ actual\n\n"
                           "@@ -32,7 +32,7 @@\n"
                           "   {\n"
                           "     \"tool\": \"t\",\n"
                           "     \"args\": {\n"
                           "-      \"i\": 5\n"
                           "+      \"i\": 50\n"
                           "     }\n"
                           "   },\n"
                           "   {\n");
    free(text);
    json_object_put(t);
    /* changes far apart: two hunks; close: one */
    t = ten(far);
    ck_assert_int_eq(json_diff(gold, t, 100, 200, &text), 0);
    ck_assert_ptr_nonnull(strstr(text, "\n@@ -8,7 +8,7 @@\n"));
    ck_assert_ptr_nonnull(strstr(text, "\n@@ -50,7 +50,7 @@\n"));
    free(text);
    json_object_put(t);
    t = ten(near);
    ck_assert_int_eq(json_diff(gold, t, 100, 200, &text), 0);
    ck_assert_ptr_nonnull(strstr(text, "\n@@ -26,13 +26,13 @@\n"));
    ck_assert_uint_eq(count_of(text, "@@ -"), 1);
    free(text);
    /* past the maximum of changed lines the diff stops with a note */
    ck_assert_int_eq(json_diff(gold, t, 100, 1, &text), 0);
    ck_assert_ptr_nonnull(strstr(text, "\n… (cut after 1 changed line)\n"));
    ck_assert_ptr_null(strstr(text, "\"i\": 50"));
    free(text);
    /* the same text on both sides: nothing */
    ck_assert_int_eq(json_diff(gold, gold, 100, 200, &text), 0);
    ck_assert_str_eq(text, "");
    free(text);
    json_object_put(t);
    json_object_put(gold);
}
END_TEST

START_TEST(json_diff_lists_empty_and_brackets)
{
    struct json_object *empty = util_json_c_parse("[]"),
                       *one = util_json_c_parse("[{\"tool\": \"a\"}]");
    char *text;

    ck_assert_int_eq(json_diff(empty, one, 100, 200, &text), 0);
    ck_assert_str_eq(text, "- expected\n+ actual\n\n"
                           "@@ -1 +1,5 @@\n"
                           "-[]\n"
                           "+[\n"
                           "+  {\n"
                           "+    \"tool\": \"a\"\n"
                           "+  }\n"
                           "+]\n");
    free(text);
    ck_assert_int_eq(json_diff(one, empty, 100, 200, &text), 0);
    ck_assert_ptr_nonnull(
        strstr(text, "@@ -1,5 +1 @@\n-[\n-  {\n-    \"tool\": \"a\"\n-  }\n-]\n+[]\n"));
    free(text);
    ck_assert_int_eq(json_diff(empty, empty, 100, 200, &text), 0);
    ck_assert_str_eq(text, "");
    free(text);
    json_object_put(empty);
    json_object_put(one);
}
END_TEST

START_TEST(json_diff_not_json_and_too_wide)
{
    struct json_object *a = util_json_c_parse("[{\"tool\": \"a\", \"args\": {\"x\": 1}}]");
    struct json_object *b = util_json_c_parse("[{\"tool\": \"a\", \"args\": {\"x\": 1}}]");
    char long_a[400], long_b[400], *text;

    /* NaN cannot be written as JSON: nothing, and -EINVAL */
    json_object_object_add(json_object_object_get(json_object_array_get_idx(b, 0), "args"), "x",
                           json_object_new_double(NAN));
    ck_assert_int_eq(json_diff(a, b, 100, 200, &text), -EINVAL);
    ck_assert_str_eq(text, "");
    free(text);
    json_object_put(a);
    json_object_put(b);
    /* a line too wide is cut where it differs from its partner */
    memset(long_a, 'w', 300);
    long_a[300] = '\0';
    memcpy(long_b, long_a, 301);
    long_b[200] = 'Z';
    {
        char ja[700], jb[700];
        snprintf(ja, sizeof(ja), "[{\"tool\": \"a\", \"args\": {\"s\": \"%s\"}}]", long_a);
        snprintf(jb, sizeof(jb), "[{\"tool\": \"a\", \"args\": {\"s\": \"%s\"}}]", long_b);
        a = util_json_c_parse(ja);
        b = util_json_c_parse(jb);
    }
    ck_assert_int_eq(json_diff(a, b, 60, 200, &text), 0);
    {
        /* 59 cells after the mark: the line's start (14 cells), "…", 14
         * before the change, it, 28 after, "…" */
        char want_a[200] = "\n-      \"s\": \"ww…", want_b[200] = "\n+      \"s\": \"ww…";
        memset(want_a + strlen(want_a), 'w', 43);
        strcat(want_a, "…\n");
        memset(want_b + strlen(want_b), 'w', 14);
        strcat(want_b, "Z");
        memset(want_b + strlen(want_b), 'w', 28);
        strcat(want_b, "…\n");
        ck_assert_ptr_nonnull(strstr(text, want_a));
        ck_assert_ptr_nonnull(strstr(text, want_b));
    }
    for (char *s = text; *s;) {
        char *nl = strchr(s, '\n');
        ck_assert_uint_le(ts_repr_width(s, (size_t)(nl - s)), 60);
        s = nl + 1;
    }
    free(text);
    json_object_put(a);
    json_object_put(b);
}
END_TEST

START_TEST(json_diff_bounded_for_one_huge_call)
{
    /* one call of 100,000 lines, every 500th value changed: hundreds of
     * lines of diff, cut with a note, line against line (Myers would not do) */
    struct json_object *a = json_object_new_array(), *b = json_object_new_array();
    struct json_object *la = json_object_new_array(), *lb = json_object_new_array();
    struct json_object *ca = json_object_new_object(), *cb = json_object_new_object();
    struct json_object *aa = json_object_new_object(), *ab = json_object_new_object();
    char *text;
    size_t lines = 0;

    for (int i = 0; i < 100000; i++) {
        json_object_array_add(la, json_object_new_int(i));
        json_object_array_add(lb, json_object_new_int(i % 500 == 250 ? -i : i));
    }
    json_object_object_add(aa, "l", la);
    json_object_object_add(ab, "l", lb);
    json_object_object_add(ca, "tool", json_object_new_string("big"));
    json_object_object_add(ca, "args", aa);
    json_object_object_add(cb, "tool", json_object_new_string("big"));
    json_object_object_add(cb, "args", ab);
    json_object_array_add(a, ca);
    json_object_array_add(b, cb);
    ck_assert_int_eq(json_diff(a, b, 100, 200, &text), 0);
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    ck_assert_uint_lt(lines, 1000);
    ck_assert_ptr_nonnull(strstr(text, "-        250,\n+        -250,\n"));
    ck_assert_ptr_nonnull(strstr(text, "… (cut after 200 changed lines)\n"));
    free(text);
    json_object_put(a);
    json_object_put(b);
}
END_TEST

static Suite *report_parts_suite(void)
{
    Suite *s = suite_create("report_parts");
    TCase *tc = tcase_create("repr");

    tcase_add_test(tc, repr_like_python);
    tcase_add_test(tc, repr_invalid_utf8_bytes);
    tcase_add_test(tc, repr_cut);
    tcase_add_test(tc, fit_end_start_and_middle);
    tcase_add_test(tc, fit_pair_keeps_the_difference_visible);
    suite_add_tcase(s, tc);

    tc = tcase_create("align");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, align_like_difflib);
    tcase_add_test(tc, align_thousand_calls);
    tcase_add_test(tc, align_unchanged_calls_first);
    tcase_add_test(tc, align_too_costly_falls_back);
    suite_add_tcase(s, tc);

    tc = tcase_create("json_diff");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, json_diff_hunks);
    tcase_add_test(tc, json_diff_lists_empty_and_brackets);
    tcase_add_test(tc, json_diff_not_json_and_too_wide);
    tcase_add_test(tc, json_diff_bounded_for_one_huge_call);
    suite_add_tcase(s, tc);

    tc = tcase_create("summary");
    tcase_add_test(tc, summary_line);
    tcase_add_test(tc, summary_appends);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return util_run_suite(report_parts_suite());
}
