/*
 * test_report — the drift report (table, score line, paths, tips), the
 * Python repr() of values, the difflib alignment, and the summary line.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_align.h"
#include "ts_report.h"
#include "ts_repr.h"
#include "util_test.h"

/* The drift report of expected vs actual, scored with default options
 * (strict when asked); the caller frees the text. */
static char *drift(const char *expected, const char *actual, bool strict, bool color)
{
    struct json_object *g = util_json_c_parse(expected), *t = util_json_c_parse(actual);
    ts_score_options opt;
    ts_score_result r;
    ts_error err;
    ts_buf out;

    ts_score_options_default(&opt);
    opt.strict = strict;
    ck_assert_int_eq(ts_evaluate(g, t, &opt, &r, &err), 0);
    ts_buf_init(&out, TS_BUF_UNLIMITED);
    ck_assert_msg(ts_report_drift(g, t, &r, color, &out, &err) == 0, "%s", err.message);
    ts_score_result_free(&r);
    json_object_put(g);
    json_object_put(t);
    return ts_buf_detach(&out, NULL);
}

static void assert_drift(const char *expected, const char *actual, bool strict, const char *want)
{
    char *got = drift(expected, actual, strict, false);

    ck_assert_msg(strcmp(got, want) == 0, "report differs:\n--- got\n%s--- want\n%s", got, want);
    free(got);
}

static char *paths(const char *expected, const char *actual)
{
    struct json_object *g = util_json_c_parse(expected), *t = util_json_c_parse(actual);
    ts_error err;
    ts_buf out;

    ts_buf_init(&out, TS_BUF_UNLIMITED);
    ck_assert_msg(ts_report_paths(g, t, &out, &err) == 0, "%s", err.message);
    json_object_put(g);
    json_object_put(t);
    return ts_buf_detach(&out, NULL);
}

static void assert_paths(const char *expected, const char *actual, const char *want)
{
    char *got = paths(expected, actual);

    ck_assert_msg(strcmp(got, want) == 0, "paths differ:\n--- got\n%s--- want\n%s", got, want);
    free(got);
}

/* ---- whole reports (plain) ---- */

START_TEST(report_changed_missing_extra_keys_and_tool)
{
    assert_drift(
        "[{\"tool\":\"search\",\"args\":{\"destination\":\"NYC\",\"page\":1}},"
        "{\"tool\":\"book\",\"args\":{\"id\":7}},{\"tool\":\"pay\"}]",
        "[{\"tool\":\"search\",\"args\":{\"destination\":\"LA\",\"limit\":10}},"
        "{\"tool\":\"book\",\"args\":{\"id\":7}},"
        "{\"tool\":\"email\",\"args\":{\"to\":\"a@b.c\",\"body\":\"a very long body that goes on "
        "and on and on and on\"}}]",
        false,
        "Expected vs Actual Tool Calls\n"
        "# | Expected                          | Actual                                          "
        "                  | Status\n"
        "--+-----------------------------------+-------------------------------------------------"
        "------------------+--------------------------\n"
        "1 | search(destination='NYC', page=1) | search(destination='LA', limit=10)              "
        "                  | destination: 'NYC' ≠ 'LA'\n"
        "  |                                   |                                                 "
        "                  | missing: page\n"
        "  |                                   |                                                 "
        "                  | unexpected: limit\n"
        "2 | book(id=7)                        | book(id=7)                                      "
        "                  | ✓\n"
        "3 | pay(…any args…)                   | email(to='a@b.c', body='a very long body that go"
        "es on and on an…) | tool: 'pay' ≠ 'email'\n"
        "\n"
        "score 0.57 < 1.00 required  ·  selection 0.67  ·  args 0.33  ·  sequence 0.67\n"
        "\n"
        "value changed at calls[0].args.destination: \"NYC\" -> \"LA\"\n"
        "key added at calls[0].args.limit\n"
        "key removed at calls[0].args.page\n"
        "value changed at calls[2].tool: \"pay\" -> \"email\"\n"
        "\n"
        "Tips:\n"
        "  • expected tool never called: 'pay' - check that the agent has access to every "
        "expected tool and that names match exactly (case-sensitive)\n"
        "  • the sequence of tools differs from the expected one (edit distance 1): review the "
        "agent's planning, or lower min_score if order does not matter\n"
        "  • 1 redundant call: the agent calls tools more often than expected\n");
}
END_TEST

START_TEST(report_inserted_call_and_strict_types)
{
    assert_drift("[{\"tool\":\"a\",\"args\":{\"x\":1}},{\"tool\":\"b\"}]",
                 "[{\"tool\":\"z\"},{\"tool\":\"a\",\"args\":{\"x\":1.0}},"
                 "{\"tool\":\"b\",\"args\":{\"q\":\"it's\\n\"}},{\"tool\":\"b\"}]",
                 true,
                 "Expected vs Actual Tool Calls\n"
                 "# | Expected      | Actual        | Status\n"
                 "--+---------------+---------------+-----------\n"
                 "1 | — EXTRA —     | z(…any args…) | EXTRA\n"
                 "2 | a(x=1)        | a(x=1.0)      | x: 1 ≠ 1.0\n"
                 "3 | b(…any args…) | b(q=\"it's\\n\") | ✓\n"
                 "4 | — EXTRA —     | b(…any args…) | EXTRA\n"
                 "\n"
                 "score 0.45 < 1.00 required  ·  selection 0.75  ·  args 0.00  ·  sequence 0.50\n"
                 "\n"
                 "unexpected at calls[0]\n"
                 "value changed at calls[0].args.x: 1 -> 1.0\n"
                 "unexpected at calls[3]\n"
                 "\n"
                 "Tips:\n"
                 "  • the sequence of tools differs from the expected one (edit distance 2): "
                 "review the agent's planning, or lower min_score if order does not matter\n"
                 "  • 2 redundant calls: the agent calls tools more often than expected\n");
}
END_TEST

START_TEST(report_lenient_shows_forgiven_values_as_equal)
{
    /* lenient scoring accepts 1 == 1.0 and " NYC " == "NYC": the row is ✓,
     * the structural paths still name the JSON-level change */
    assert_drift("[{\"tool\":\"a\",\"args\":{\"x\":1,\"c\":\"NYC\"}},{\"tool\":\"b\"}]",
                 "[{\"tool\":\"a\",\"args\":{\"x\":1.0,\"c\":\" NYC \"}}]", false,
                 "Expected vs Actual Tool Calls\n"
                 "# | Expected        | Actual              | Status\n"
                 "--+-----------------+---------------------+--------\n"
                 "1 | a(x=1, c='NYC') | a(x=1.0, c=' NYC ') | ✓\n"
                 "2 | b(…any args…)   | — MISSING —         | MISSING\n"
                 "\n"
                 "score 0.90 < 1.00 required  ·  selection 1.00  ·  args 1.00  ·  sequence 0.50\n"
                 "\n"
                 "value changed at calls[0].args.c: \"NYC\" -> \" NYC \"\n"
                 "value changed at calls[0].args.x: 1 -> 1.0\n"
                 "missing at calls[1]\n"
                 "\n"
                 "Tips:\n"
                 "  • expected tool never called: 'b' - check that the agent has access to every "
                 "expected tool and that names match exactly (case-sensitive)\n"
                 "  • the sequence of tools differs from the expected one (edit distance 1): "
                 "review the agent's planning, or lower min_score if order does not matter\n");
}
END_TEST

START_TEST(report_unicode_widths_and_empty_args)
{
    assert_drift("[{\"tool\":\"get_time\",\"args\":{}},{\"tool\":\"lookup\",\"args\":{\"city\":"
                 "\"東京\"}},{\"tool\":\"notify\"}]",
                 "[{\"tool\":\"get_time\"},{\"tool\":\"lookup\",\"args\":{\"city\":\"Zürich\"}},"
                 "{\"tool\":\"lookup\",\"args\":{\"city\":\"東京\"}}]",
                 false,
                 "Expected vs Actual Tool Calls\n"
                 "# | Expected            | Actual                | Status\n"
                 "--+---------------------+-----------------------+--------------------------\n"
                 "1 | get_time()          | get_time(…any args…)  | ✓\n"
                 "2 | lookup(city='東京') | lookup(city='Zürich') | city: '東京' ≠ 'Zürich'\n"
                 "3 | notify(…any args…)  | lookup(city='東京')   | tool: 'notify' ≠ 'lookup'\n"
                 "\n"
                 "score 0.60 < 1.00 required  ·  selection 1.00  ·  args 0.00  ·  sequence 0.67\n"
                 "\n"
                 "value changed at calls[1].args.city: \"東京\" -> \"Zürich\"\n"
                 "value changed at calls[2].tool: \"notify\" -> \"lookup\"\n"
                 "\n"
                 "Tips:\n"
                 "  • expected tool never called: 'notify' - check that the agent has access to "
                 "every expected tool and that names match exactly (case-sensitive)\n"
                 "  • the sequence of tools differs from the expected one (edit distance 1): "
                 "review the agent's planning, or lower min_score if order does not matter\n"
                 "  • 1 redundant call: the agent calls tools more often than expected\n");
}
END_TEST

START_TEST(report_recall_and_precision_tips)
{
    assert_drift("[{\"tool\":\"a\",\"args\":{\"x\":1,\"y\":2}}]",
                 "[{\"tool\":\"a\",\"args\":{\"x\":1}}]", false,
                 "Expected vs Actual Tool Calls\n"
                 "# | Expected    | Actual | Status\n"
                 "--+-------------+--------+-----------\n"
                 "1 | a(x=1, y=2) | a(x=1) | missing: y\n"
                 "\n"
                 "score 0.90 < 1.00 required  ·  selection 1.00  ·  args 0.67  ·  sequence 1.00\n"
                 "\n"
                 "key removed at calls[0].args.y\n"
                 "\n"
                 "Tips:\n"
                 "  • argument recall 0.50 is lower than precision 1.00: the agent leaves out "
                 "expected arguments\n");
    assert_drift("[{\"tool\":\"a\",\"args\":{\"x\":1}}]",
                 "[{\"tool\":\"a\",\"args\":{\"x\":1,\"y\":2,\"z\":[1,{\"k\":\"v\"}]}}]", false,
                 "Expected vs Actual Tool Calls\n"
                 "# | Expected | Actual                         | Status\n"
                 "--+----------+--------------------------------+--------------\n"
                 "1 | a(x=1)   | a(x=1, y=2, z=[1, {'k': 'v'}]) | unexpected: y\n"
                 "  |          |                                | unexpected: z\n"
                 "\n"
                 "score 0.85 < 1.00 required  ·  selection 1.00  ·  args 0.50  ·  sequence 1.00\n"
                 "\n"
                 "key added at calls[0].args.y\n"
                 "key added at calls[0].args.z\n"
                 "\n"
                 "Tips:\n"
                 "  • argument precision 0.33 is lower than recall 1.00: the agent passes extra or "
                 "wrong arguments\n");
}
END_TEST

START_TEST(report_actual_empty)
{
    assert_drift("[{\"tool\":\"a\",\"args\":{}},{\"tool\":\"b\",\"args\":{\"k\":null}}]", "[]",
                 false,
                 "Expected vs Actual Tool Calls\n"
                 "# | Expected  | Actual      | Status\n"
                 "--+-----------+-------------+--------\n"
                 "1 | a()       | — MISSING — | MISSING\n"
                 "2 | b(k=None) | — MISSING — | MISSING\n"
                 "\n"
                 "score 0.10 < 1.00 required  ·  selection 0.00  ·  args 0.00  ·  sequence 0.00\n"
                 "\n"
                 "missing at calls[0]\n"
                 "missing at calls[1]\n"
                 "\n"
                 "Tips:\n"
                 "  • expected tools never called: 'a', 'b' - check that the agent has access to "
                 "every expected tool and that names match exactly (case-sensitive)\n"
                 "  • the sequence of tools differs from the expected one (edit distance 2): "
                 "review the agent's planning, or lower min_score if order does not matter\n");
}
END_TEST

START_TEST(report_without_differences)
{
    /* a passing result (e.g. a caller showing the table anyway): no paths,
     * no tips, and the score line says >= */
    assert_drift(
        "[]", "[]", false,
        "Expected vs Actual Tool Calls\n"
        "# | Expected | Actual | Status\n"
        "--+----------+--------+-------\n"
        "\n"
        "score 1.00 >= 1.00 required  ·  selection 1.00  ·  args 1.00  ·  sequence 1.00\n");
}
END_TEST

START_TEST(report_long_value_cut_at_40_code_points)
{
    char *got = drift(
        "[{\"tool\":\"w\",\"args\":{\"s\":\"ééééééééééééééééééééééééééééééééééééééééééééé\"}}]",
        "[{\"tool\":\"w\",\"args\":{\"s\":\"x\"}}]", false, false);
    /* repr is 'é…' (47 code points): cut to 40, the quote plus 39 é */
    ck_assert_ptr_nonnull(strstr(got, "w(s='ééééééééééééééééééééééééééééééééééééééé…)"));
    ck_assert_ptr_nonnull(strstr(got, "s: 'ééééééééééééééééééééééééééééééééééééééé… ≠ 'x'"));
    free(got);
}
END_TEST

START_TEST(report_row_numbers_widen)
{
    struct json_object *g = json_object_new_array(), *t = json_object_new_array();
    ts_score_result r;
    ts_buf out;

    for (int i = 0; i < 12; i++) {
        struct json_object *c = json_object_new_object();
        json_object_object_add(c, "tool", json_object_new_string("t"));
        json_object_array_add(g, c);
    }
    ck_assert_int_eq(ts_evaluate(g, t, NULL, &r, NULL), 0);
    ts_buf_init(&out, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_report_drift(g, t, &r, false, &out, NULL), 0);
    ck_assert_ptr_nonnull(strstr(out.data, "\n # | Expected      | Actual      | Status\n"));
    ck_assert_ptr_nonnull(strstr(out.data, "\n 9 | t(…any args…) | — MISSING — | MISSING\n"));
    ck_assert_ptr_nonnull(strstr(out.data, "\n12 | t(…any args…) | — MISSING — | MISSING\n"));
    ck_assert_ptr_nonnull(strstr(out.data, "missing at calls[11]\n"));
    ts_buf_free(&out);
    ts_score_result_free(&r);
    json_object_put(g);
    json_object_put(t);
}
END_TEST

START_TEST(report_color_switch)
{
    const char *g = "[{\"tool\":\"a\",\"args\":{\"x\":1}},{\"tool\":\"b\"}]";
    const char *t = "[{\"tool\":\"a\",\"args\":{\"x\":2}},{\"tool\":\"c\"},{\"tool\":\"d\"}]";
    char *plain = drift(g, t, false, false);
    char *colour = drift(g, t, false, true);

    ck_assert_ptr_null(strchr(plain, '\x1b'));
    ck_assert_ptr_nonnull(strstr(colour, "\x1b[33m"));     /* drifted row */
    ck_assert_ptr_nonnull(strstr(colour, "\x1b[31m"));     /* extra row, score line */
    ck_assert_ptr_nonnull(strstr(colour, "\x1b[1mTips:")); /* bold header */
    ck_assert_ptr_nonnull(strstr(colour, "\x1b[0m"));
    ck_assert_ptr_nonnull(strstr(colour, "x: 1 ≠ 2"));
    free(plain);
    free(colour);
    colour = drift("[{\"tool\":\"a\"},{\"tool\":\"b\"}]", "[{\"tool\":\"a\"}]", false, true);
    ck_assert_ptr_nonnull(strstr(colour, "\x1b[32m1 | a(…any args…) | a(…any args…)"));
    free(colour);
}
END_TEST

START_TEST(report_names_with_control_characters)
{
    char *got = drift("[{\"tool\":\"a\\nb\",\"args\":{\"k\\t\":1}}]",
                      "[{\"tool\":\"a\\nb\",\"args\":{\"k\\t\":2}}]", false, false);
    ck_assert_ptr_nonnull(
        strstr(got, "1 | a\\x0ab(k\\x09=1) | a\\x0ab(k\\x09=2) | k\\x09: 1 ≠ 2\n"));
    ck_assert_ptr_nonnull(strstr(got, "value changed at calls[0].args[\"k\\t\"]: 1 -> 2\n"));
    free(got);
}
END_TEST

START_TEST(report_identical_lists)
{
    const char *calls = "[{\"tool\":\"a\",\"args\":{\"x\":[1,{\"y\":\"z\"}]}},{\"tool\":\"b\"},"
                        "{\"tool\":\"a\",\"args\":{}}]";
    assert_drift(
        calls, calls, true,
        "Expected vs Actual Tool Calls\n"
        "# | Expected             | Actual               | Status\n"
        "--+----------------------+----------------------+-------\n"
        "1 | a(x=[1, {'y': 'z'}]) | a(x=[1, {'y': 'z'}]) | ✓\n"
        "2 | b(…any args…)        | b(…any args…)        | ✓\n"
        "3 | a()                  | a()                  | ✓\n"
        "\n"
        "score 1.00 >= 1.00 required  ·  selection 1.00  ·  args 1.00  ·  sequence 1.00\n");
}
END_TEST

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;

    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

START_TEST(report_thousand_calls_reversed)
{
    struct json_object *g = json_object_new_array(), *t = json_object_new_array();
    ts_score_result r;
    ts_buf out;

    for (int i = 0; i < 1000; i++) {
        char name[16];
        struct json_object *c = json_object_new_object(), *d = json_object_new_object();
        snprintf(name, sizeof(name), "t%d", i);
        json_object_object_add(c, "tool", json_object_new_string(name));
        json_object_array_add(g, c);
        snprintf(name, sizeof(name), "t%d", 999 - i);
        json_object_object_add(d, "tool", json_object_new_string(name));
        json_object_array_add(t, d);
    }
    ck_assert_int_eq(ts_evaluate(g, t, NULL, &r, NULL), 0);
    ts_buf_init(&out, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_report_drift(g, t, &r, false, &out, NULL), 0);
    /* difflib pairs t0 only: 999 inserted, 1 equal, 999 deleted */
    ck_assert_uint_eq(count(out.data, "| EXTRA\n"), 999);
    ck_assert_uint_eq(count(out.data, "| MISSING\n"), 999);
    ck_assert_uint_eq(count(out.data, "| ✓\n"), 1);
    ck_assert_ptr_nonnull(strstr(out.data, "\n1000 | t0(…any args…)   | t0(…any args…)   | ✓\n"));
    ck_assert_ptr_nonnull(
        strstr(out.data, "\n1999 | t999(…any args…) | — MISSING —      | MISSING\n"));
    ck_assert_uint_eq(count(out.data, "unexpected at calls["), 999);
    ck_assert_uint_eq(count(out.data, "missing at calls["), 999);
    ck_assert_ptr_nonnull(strstr(out.data, "missing at calls[999]\n"));
    ck_assert_ptr_nonnull(strstr(out.data, "unexpected at calls[998]\n"));
    ts_buf_free(&out);
    ts_score_result_free(&r);
    json_object_put(g);
    json_object_put(t);
}
END_TEST

/* Random call-like values: sometimes valid calls, often not. */
static struct json_object *random_list(unsigned *seed)
{
    struct json_object *list = json_object_new_array();

    for (unsigned n = util_next_random(seed) % 6; n > 0; n--) {
        unsigned shape = util_next_random(seed) % 10;
        struct json_object *c;
        char tool[8];
        if (shape == 0) {
            json_object_array_add(list, json_object_new_int(3));
            continue;
        }
        c = json_object_new_object();
        snprintf(tool, sizeof(tool), "t%u", util_next_random(seed) % 3);
        if (shape != 1)
            json_object_object_add(c, "tool", json_object_new_string(tool));
        if (shape == 2)
            json_object_object_add(c, "args", json_object_new_string("x"));
        else if (shape >= 5) {
            struct json_object *args = json_object_new_object();
            json_object_object_add(args, shape % 2 ? "k" : "k.2",
                                   shape == 9
                                       ? json_object_new_array()
                                       : json_object_new_int((int)(util_next_random(seed) % 2)));
            json_object_object_add(c, "args", args);
        }
        json_object_array_add(list, c);
    }
    return list;
}

START_TEST(report_garbage_is_refused_cleanly)
{
    unsigned seed = 31;
    int ok = 0, refused = 0;

    for (int round = 0; round < 1500; round++) {
        struct json_object *g = random_list(&seed), *t = random_list(&seed);
        ts_score_result r;
        ts_error err;
        ts_buf out;
        int rc;
        ts_buf_init(&out, TS_BUF_UNLIMITED);
        if (ts_evaluate(g, t, NULL, &r, NULL) == 0) {
            rc = ts_report_drift(g, t, &r, round % 2, &out, &err);
            ck_assert_int_eq(rc, 0);
            ck_assert_ptr_nonnull(strstr(out.data, "Expected vs Actual Tool Calls"));
            ck_assert_ptr_nonnull(strstr(out.data, "required  ·  selection"));
            ts_score_result_free(&r);
            ok++;
        } else {
            ts_score_options opt;
            ts_score_options_default(&opt);
            memset(&r, 0, sizeof(r));
            rc = ts_report_drift(g, t, &r, false, &out, &err);
            ck_assert_int_eq(rc, -EINVAL);
            ck_assert_str_eq(err.code, TS_ERR_INVALID_CALLS);
            ck_assert_uint_eq(out.len, 0);
            rc = ts_report_paths(g, t, &out, &err);
            ck_assert_int_eq(rc, -EINVAL);
            refused++;
        }
        ts_buf_free(&out);
        json_object_put(g);
        json_object_put(t);
    }
    ck_assert_int_gt(ok, 100);
    ck_assert_int_gt(refused, 100);
}
END_TEST

/* ---- errors ---- */

START_TEST(report_rejects_bad_input)
{
    struct json_object *good = util_json_c_parse("[{\"tool\":\"a\"}]");
    struct json_object *bad = util_json_c_parse("[{\"tool\":\"a\"},{\"tool\":\"\"}]");
    struct json_object *obj = util_json_c_parse("{\"tool\":\"a\"}");
    ts_score_result r;
    ts_error err;
    ts_buf out;

    ck_assert_int_eq(ts_evaluate(good, good, NULL, &r, NULL), 0);
    ts_buf_init(&out, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_report_drift(bad, good, &r, false, &out, &err), -EINVAL);
    ck_assert_str_eq(err.message, "expected: item at index 1 is missing 'tool'");
    ck_assert_int_eq(ts_report_drift(good, obj, &r, false, &out, &err), -EINVAL);
    ck_assert_str_eq(err.message, "actual must be a list of calls, got an object");
    ck_assert_int_eq(ts_report_paths(NULL, good, &out, &err), -EINVAL);
    ck_assert_int_eq(ts_report_drift(good, good, NULL, false, &out, &err), -EINVAL);
    ck_assert_uint_eq(out.len, 0);
    ts_buf_free(&out);

    ts_buf_init(&out, 64); /* too small for the table */
    ck_assert_int_eq(ts_report_drift(good, good, &r, false, &out, &err), -E2BIG);
    ck_assert_str_eq(err.code, TS_ERR_TOO_LARGE);
    ck_assert_uint_eq(out.len, 0);
    ts_buf_free(&out);
    ts_score_result_free(&r);
    json_object_put(good);
    json_object_put(bad);
    json_object_put(obj);
}
END_TEST

/* ---- structural paths ---- */

START_TEST(paths_nested_changes)
{
    assert_paths(
        "[{\"tool\":\"a\",\"args\":{\"o\":{\"p\":1,\"q\":[1,2,{\"r\":true}]},\"n\":1}}]",
        "[{\"tool\":\"a\",\"args\":{\"o\":{\"p\":\"1\",\"q\":[1,3,{\"r\":false,\"s\":null}]},"
        "\"n\":1.0}}]",
        "value changed at calls[0].args.n: 1 -> 1.0\n"
        "value changed at calls[0].args.o.p: 1 -> \"1\"\n"
        "value changed at calls[0].args.o.q[1]: 2 -> 3\n"
        "value changed at calls[0].args.o.q[2].r: true -> false\n"
        "key added at calls[0].args.o.q[2].s\n");
    assert_paths("[{\"tool\":\"a\",\"args\":{\"l\":[1,2]}}]",
                 "[{\"tool\":\"a\",\"args\":{\"l\":[1,2,3]}}]",
                 "value changed at calls[0].args.l: [1, 2] -> [1, 2, 3]\n");
    assert_paths("[{\"tool\":\"a\",\"args\":{\"l\":{\"x\":1}}}]",
                 "[{\"tool\":\"a\",\"args\":{\"l\":[1]}}]",
                 "value changed at calls[0].args.l: {\"x\": 1} -> [1]\n");
    assert_paths("[{\"tool\":\"a\",\"args\":{\"a.b\":1,\"\":2}}]",
                 "[{\"tool\":\"a\",\"args\":{\"a.b\":2,\"\":3}}]",
                 "value changed at calls[0].args[\"\"]: 2 -> 3\n"
                 "value changed at calls[0].args[\"a.b\"]: 1 -> 2\n");
}
END_TEST

START_TEST(paths_calls_added_and_removed)
{
    assert_paths("[{\"tool\":\"a\"},{\"tool\":\"b\"},{\"tool\":\"c\"}]",
                 "[{\"tool\":\"a\"},{\"tool\":\"c\"},{\"tool\":\"d\"},{\"tool\":\"e\"}]",
                 "missing at calls[1]\n"
                 "unexpected at calls[2]\n"
                 "unexpected at calls[3]\n");
    /* gold args absent: not compared; actual args null: compared as {} */
    assert_paths("[{\"tool\":\"a\"},{\"tool\":\"b\",\"args\":{\"page\":2}}]",
                 "[{\"tool\":\"a\",\"args\":{\"x\":1}},{\"tool\":\"b\",\"args\":null}]",
                 "key removed at calls[1].args.page\n");
    assert_paths("[]", "[]", "");
    assert_paths("[{\"tool\":\"a\",\"args\":{\"s\":\"x\"}}]",
                 "[{\"tool\":\"a\",\"args\":{\"s\":\"x\"}}]", "");
}
END_TEST

START_TEST(paths_long_values_cut)
{
    char big[600];
    char gold[700], *got;

    memset(big, 'v', 300);
    big[300] = '\0';
    snprintf(gold, sizeof(gold), "[{\"tool\":\"a\",\"args\":{\"s\":\"%s\"}}]", big);
    got = paths(gold, "[{\"tool\":\"a\",\"args\":{\"s\":1}}]");
    /* "\"" + 199 v, then … */
    ck_assert_ptr_nonnull(strstr(got, ": \"vvvvvvvvvv"));
    ck_assert_ptr_nonnull(strstr(got, "vvv… -> 1\n"));
    ck_assert_uint_eq(strlen(got), strlen("value changed at calls[0].args.s: ") + 200 +
                                       strlen("…") + strlen(" -> 1\n"));
    free(got);
}
END_TEST

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

static Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("drift");

    tcase_add_test(tc, report_changed_missing_extra_keys_and_tool);
    tcase_add_test(tc, report_inserted_call_and_strict_types);
    tcase_add_test(tc, report_lenient_shows_forgiven_values_as_equal);
    tcase_add_test(tc, report_unicode_widths_and_empty_args);
    tcase_add_test(tc, report_recall_and_precision_tips);
    tcase_add_test(tc, report_actual_empty);
    tcase_add_test(tc, report_without_differences);
    tcase_add_test(tc, report_long_value_cut_at_40_code_points);
    tcase_add_test(tc, report_row_numbers_widen);
    tcase_add_test(tc, report_color_switch);
    tcase_add_test(tc, report_names_with_control_characters);
    tcase_add_test(tc, report_rejects_bad_input);
    tcase_add_test(tc, report_identical_lists);
    tcase_add_test(tc, report_thousand_calls_reversed);
    tcase_add_test(tc, report_garbage_is_refused_cleanly);
    suite_add_tcase(s, tc);

    tc = tcase_create("paths");
    tcase_add_test(tc, paths_nested_changes);
    tcase_add_test(tc, paths_calls_added_and_removed);
    tcase_add_test(tc, paths_long_values_cut);
    suite_add_tcase(s, tc);

    tc = tcase_create("repr");
    tcase_add_test(tc, repr_like_python);
    tcase_add_test(tc, repr_invalid_utf8_bytes);
    tcase_add_test(tc, repr_cut);
    suite_add_tcase(s, tc);

    tc = tcase_create("align");
    tcase_add_test(tc, align_like_difflib);
    tcase_add_test(tc, align_thousand_calls);
    suite_add_tcase(s, tc);

    tc = tcase_create("summary");
    tcase_add_test(tc, summary_line);
    tcase_add_test(tc, summary_appends);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return util_run_suite(report_suite());
}
