/*
 * test_report — the drift report as a whole (docs/snapshots.md, "The drift
 * report"): whole reports of small drifts, labels, colour, names that
 * need escaping, long lists, bad input and small output maxima.
 * tests/test_report_layout.c tests its lines one by one (differences,
 * folding, score digits, notes, tips, width), tests/test_report_golden.c
 * keeps realistic reports at three widths, tests/test_report_parts.c the
 * parts (text fitting, repr, alignment, JSON diff, summary).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"
#include "lib/report/ts_report.h"
#include "util_report.h"
#include "util_test.h"

/* ---- whole reports (plain) ---- */

START_TEST(report_changed_missing_extra_keys_and_tool)
{
    util_assert_report(
        "[{\"tool\":\"search\",\"args\":{\"destination\":\"NYC\",\"page\":1}},"
        "{\"tool\":\"book\",\"args\":{\"id\":7}},{\"tool\":\"pay\"}]",
        "[{\"tool\":\"search\",\"args\":{\"destination\":\"LA\",\"limit\":10}},"
        "{\"tool\":\"book\",\"args\":{\"id\":7}},"
        "{\"tool\":\"email\",\"args\":{\"to\":\"a@b.c\",\"body\":\"a very long body that goes on "
        "and on and on and on\"}}]",
        false,
        "Expected vs Actual Tool Calls\n"
        "# | Expected                         | Actual                            | Status\n"
        "--+----------------------------------+-----------------------------------+----------------"
        "----------\n"
        "0 | search(destination='NYC', page=… | search(destination='LA', limit=1… | destination: "
        "'NYC' ≠ 'LA'\n"
        "  |                                  |                                   | missing: page\n"
        "  |                                  |                                   | unexpected: "
        "limit\n"
        "1 | book(id=7)                       | book(id=7)                        | ✓\n"
        "2 | pay(…any args…)                  | email(to='a@b.c', body='a very l… | tool: 'pay' ≠ "
        "'email'\n"
        "\n"
        "score 0.57 < 1.00 required  ·  selection 0.67  ·  args 0.33  ·  sequence 0.67\n"
        "\n"
        "  calls[0] search  args.destination: \"NYC\" → \"LA\"\n"
        "  calls[0] search  args.limit: (absent) → 10\n"
        "  calls[0] search  args.page: 1 → (absent)\n"
        "  calls[2] pay  tool: \"pay\" → \"email\"\n"
        "\n"
        "Tips:\n"
        "  • expected tool never called: 'pay' - check that the agent has access to every expected "
        "tool and\n"
        "    that names match exactly (case-sensitive)\n"
        "  • new tool the baseline never calls: 'email' - if the agent should call it now, update "
        "the\n"
        "    baseline\n"
        "  • the sequence of tools differs from the expected one (edit distance 1): review the "
        "agent's\n"
        "    planning, or lower min_score if order does not matter\n");
}
END_TEST

START_TEST(report_inserted_call_and_strict_types)
{
    /* an inserted call shifts the pairs after it: "0→1" is expected[0]
     * against actual[1], in the table and in the lines alike */
    util_assert_report(
        "[{\"tool\":\"a\",\"args\":{\"x\":1}},{\"tool\":\"b\"}]",
        "[{\"tool\":\"z\"},{\"tool\":\"a\",\"args\":{\"x\":1.0}},"
        "{\"tool\":\"b\",\"args\":{\"q\":\"it's\\n\"}},{\"tool\":\"b\"}]",
        true,
        "Expected vs Actual Tool Calls\n"
        "  # | Expected      | Actual        | Status\n"
        "----+---------------+---------------+-----------\n"
        " +0 | — EXTRA —     | z(…any args…) | EXTRA\n"
        "0→1 | a(x=1)        | a(x=1.0)      | x: 1 ≠ 1.0\n"
        " +2 | — EXTRA —     | b(q=\"it's\\n\") | EXTRA\n"
        "1→3 | b(…any args…) | b(…any args…) | ✓\n"
        "\n"
        "score 0.45 < 1.00 required  ·  selection 0.75  ·  args 0.00  ·  sequence 0.50\n"
        "\n"
        "+ calls[0] z(…any args…)\n"
        "  calls[0→1] a  args.x: 1 → 1.0\n"
        "+ calls[2] b(q=\"it's\\n\")\n"
        "\n"
        "Tips:\n"
        "  • new tool the baseline never calls: 'z' - if the agent should call it now, "
        "update the baseline\n"
        "  • the sequence of tools differs from the expected one (edit distance 2): "
        "review the agent's\n"
        "    planning, or lower min_score if order does not matter\n"
        "  • 1 extra call of expected tools ('b' 2 times, 1 expected): the agent repeats "
        "calls the baseline\n"
        "    makes fewer times\n");
}
END_TEST

START_TEST(report_lenient_shows_forgiven_values_as_equal)
{
    /* lenient scoring accepts 1 == 1.0 and " NYC " == "NYC": the row is ✓,
     * the difference lines still name the JSON-level change */
    util_assert_report(
        "[{\"tool\":\"a\",\"args\":{\"x\":1,\"c\":\"NYC\"}},{\"tool\":\"b\"}]",
        "[{\"tool\":\"a\",\"args\":{\"x\":1.0,\"c\":\" NYC \"}}]", false,
        "Expected vs Actual Tool Calls\n"
        " # | Expected        | Actual              | Status\n"
        "---+-----------------+---------------------+--------\n"
        " 0 | a(x=1, c='NYC') | a(x=1.0, c=' NYC ') | ✓\n"
        "-1 | b(…any args…)   | — MISSING —         | MISSING\n"
        "\n"
        "score 0.90 < 1.00 required  ·  selection 1.00  ·  args 1.00  ·  sequence 0.50\n"
        "\n"
        "  calls[0] a  args.c: \"NYC\" → \" NYC \"\n"
        "  calls[0] a  args.x: 1 → 1.0\n"
        "- calls[1] b(…any args…)\n"
        "\n"
        "Tips:\n"
        "  • expected tool never called: 'b' - check that the agent has access to every "
        "expected tool and\n"
        "    that names match exactly (case-sensitive)\n"
        "  • the sequence of tools differs from the expected one (edit distance 1): "
        "review the agent's\n"
        "    planning, or lower min_score if order does not matter\n");
}
END_TEST

START_TEST(report_unicode_widths_and_empty_args)
{
    /* wide characters take two cells: the columns still line up */
    util_assert_report(
        "[{\"tool\":\"get_time\",\"args\":{}},{\"tool\":\"lookup\",\"args\":{\"city\":"
        "\"東京\"}},{\"tool\":\"notify\"}]",
        "[{\"tool\":\"get_time\"},{\"tool\":\"lookup\",\"args\":{\"city\":\"Zürich\"}},"
        "{\"tool\":\"lookup\",\"args\":{\"city\":\"大阪\"}}]",
        false,
        "Expected vs Actual Tool Calls\n"
        "# | Expected            | Actual                | Status\n"
        "--+---------------------+-----------------------+--------------------------\n"
        "0 | get_time()          | get_time(…any args…)  | ✓\n"
        "1 | lookup(city='東京') | lookup(city='Zürich') | city: '東京' ≠ 'Zürich'\n"
        "2 | notify(…any args…)  | lookup(city='大阪')   | tool: 'notify' ≠ 'lookup'\n"
        "\n"
        "score 0.60 < 1.00 required  ·  selection 1.00  ·  args 0.00  ·  sequence 0.67\n"
        "\n"
        "  calls[1] lookup  args.city: \"東京\" → \"Zürich\"\n"
        "  calls[2] notify  tool: \"notify\" → \"lookup\"\n"
        "\n"
        "Tips:\n"
        "  • expected tool never called: 'notify' - check that the agent has access to "
        "every expected tool\n"
        "    and that names match exactly (case-sensitive)\n"
        "  • the sequence of tools differs from the expected one (edit distance 1): "
        "review the agent's\n"
        "    planning, or lower min_score if order does not matter\n"
        "  • 1 extra call of expected tools ('lookup' 2 times, 1 expected): the agent "
        "repeats calls the\n"
        "    baseline makes fewer times\n");
}
END_TEST

START_TEST(report_recall_and_precision_tips)
{
    util_assert_report(
        "[{\"tool\":\"a\",\"args\":{\"x\":1,\"y\":2}}]", "[{\"tool\":\"a\",\"args\":{\"x\":1}}]",
        false,
        "Expected vs Actual Tool Calls\n"
        "# | Expected    | Actual | Status\n"
        "--+-------------+--------+-----------\n"
        "0 | a(x=1, y=2) | a(x=1) | missing: y\n"
        "\n"
        "score 0.90 < 1.00 required  ·  selection 1.00  ·  args 0.67  ·  sequence 1.00\n"
        "\n"
        "  calls[0] a  args.y: 2 → (absent)\n"
        "\n"
        "Tips:\n"
        "  • argument recall 0.50 is lower than precision 1.00: the agent leaves out "
        "expected arguments\n");
    util_assert_report(
        "[{\"tool\":\"a\",\"args\":{\"x\":1}}]",
        "[{\"tool\":\"a\",\"args\":{\"x\":1,\"y\":2,\"z\":[1,{\"k\":\"v\"}]}}]", false,
        "Expected vs Actual Tool Calls\n"
        "# | Expected | Actual                         | Status\n"
        "--+----------+--------------------------------+--------------\n"
        "0 | a(x=1)   | a(x=1, y=2, z=[1, {'k': 'v'}]) | unexpected: y\n"
        "  |          |                                | unexpected: z\n"
        "\n"
        "score 0.85 < 1.00 required  ·  selection 1.00  ·  args 0.50  ·  sequence 1.00\n"
        "\n"
        "  calls[0] a  args.y: (absent) → 2\n"
        "  calls[0] a  args.z: (absent) → [1, {\"k\": \"v\"}]\n"
        "\n"
        "Tips:\n"
        "  • argument precision 0.33 is lower than recall 1.00: the agent passes extra or "
        "wrong arguments\n");
}
END_TEST

START_TEST(report_actual_empty)
{
    util_assert_report(
        "[{\"tool\":\"a\",\"args\":{}},{\"tool\":\"b\",\"args\":{\"k\":null}}]", "[]", false,
        "Expected vs Actual Tool Calls\n"
        " # | Expected  | Actual      | Status\n"
        "---+-----------+-------------+--------\n"
        "-0 | a()       | — MISSING — | MISSING\n"
        "-1 | b(k=None) | — MISSING — | MISSING\n"
        "\n"
        "score 0.10 < 1.00 required  ·  selection 0.00  ·  args 0.00  ·  sequence 0.00\n"
        "\n"
        "- calls[0] a()\n"
        "- calls[1] b(k=None)\n"
        "\n"
        "Tips:\n"
        "  • expected tools never called: 'a', 'b' - check that the agent has access to "
        "every expected tool\n"
        "    and that names match exactly (case-sensitive)\n"
        "  • the sequence of tools differs from the expected one (edit distance 2): "
        "review the agent's\n"
        "    planning, or lower min_score if order does not matter\n");
}
END_TEST

START_TEST(report_without_differences)
{
    /* a passing result (e.g. a caller showing the report anyway): no
     * difference lines, no tips, no JSON diff, and the score line says >=
     * (the score is a rounding error below 1.0: it passed, it prints so) */
    ts_report_options opt;
    char *got;

    util_assert_report(
        "[]", "[]", false,
        "Expected vs Actual Tool Calls\n"
        "# | Expected | Actual | Status\n"
        "--+----------+--------+-------\n"
        "\n"
        "score 1.00 >= 1.00 required  ·  selection 1.00  ·  args 1.00  ·  sequence 1.00\n");
    ts_report_options_default(&opt);
    got = util_report_with("[{\"tool\":\"a\"}]", "[{\"tool\":\"a\"}]", false, &opt);
    ck_assert_ptr_null(strstr(got, "@@"));
    ck_assert_ptr_null(strstr(got, "- expected"));
    free(got);
}
END_TEST

START_TEST(report_identical_lists)
{
    const char *calls = "[{\"tool\":\"a\",\"args\":{\"x\":[1,{\"y\":\"z\"}]}},{\"tool\":\"b\"},"
                        "{\"tool\":\"a\",\"args\":{}}]";
    util_assert_report(
        calls, calls, true,
        "Expected vs Actual Tool Calls\n"
        "# | Expected             | Actual               | Status\n"
        "--+----------------------+----------------------+-------\n"
        "0 | a(x=[1, {'y': 'z'}]) | a(x=[1, {'y': 'z'}]) | ✓\n"
        "1 | b(…any args…)        | b(…any args…)        | ✓\n"
        "2 | a()                  | a()                  | ✓\n"
        "\n"
        "score 1.00 >= 1.00 required  ·  selection 1.00  ·  args 1.00  ·  sequence 1.00\n");
}
END_TEST

START_TEST(report_long_value_cut_at_40_code_points)
{
    ts_report_options opt;
    char *got;

    ts_report_options_default(&opt);
    opt.width = 200; /* room for every cell */
    got = util_report_with(
        "[{\"tool\":\"w\",\"args\":{\"s\":\"ééééééééééééééééééééééééééééééééééééééééééééé\"}}]",
        "[{\"tool\":\"w\",\"args\":{\"s\":\"x\"}}]", false, &opt);
    /* repr is 'é…' (47 code points): in the table cut to 40 plus …, the
     * quote plus 39 é; the difference line has the value whole */
    ck_assert_ptr_nonnull(strstr(got, "| w(s='ééééééééééééééééééééééééééééééééééééééé…) |"));
    ck_assert_ptr_nonnull(strstr(got, "s: 'ééééééééééééééééééééééééééééééééééééééé… ≠ 'x'\n"));
    ck_assert_ptr_nonnull(strstr(
        got, "  calls[0] w  args.s: \"ééééééééééééééééééééééééééééééééééééééééééééé\" → \"x\"\n"));
    free(got);
}
END_TEST

START_TEST(report_row_labels_widen)
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
    ck_assert_int_eq(ts_report_drift(g, t, &r, NULL, &out, NULL), 0);
    ck_assert_ptr_nonnull(strstr(out.data, "\n  # | Expected      | Actual      | Status\n"));
    ck_assert_ptr_nonnull(strstr(out.data, "\n -0 | t(…any args…) | — MISSING — | MISSING\n"));
    ck_assert_ptr_nonnull(strstr(out.data, "\n -9 | t(…any args…) | — MISSING — | MISSING\n"));
    ck_assert_ptr_nonnull(strstr(out.data, "\n-11 | t(…any args…) | — MISSING — | MISSING\n"));
    ck_assert_ptr_nonnull(strstr(out.data, "\n- calls[11] t(…any args…)\n"));
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
    ts_report_options opt;
    char *plain, *colour;

    ts_report_options_default(&opt);
    plain = util_report_with(g, t, false, &opt);
    opt.color = true;
    colour = util_report_with(g, t, false, &opt);
    ck_assert_ptr_null(strchr(plain, '\x1b'));
    ck_assert_ptr_nonnull(strstr(colour, "\x1b[33m 0 | a(x=1)"));     /* changed row */
    ck_assert_ptr_nonnull(strstr(colour, "\x1b[32m+2 | — EXTRA —"));  /* added: green */
    ck_assert_ptr_nonnull(strstr(colour, "\x1b[1m\x1b[31mscore 0.")); /* failing score */
    ck_assert_ptr_nonnull(strstr(colour, "\x1b[1mTips:"));            /* bold header */
    /* values: the expected one red, the actual one green; JSON diff lines too */
    ck_assert_ptr_nonnull(strstr(colour, "args.x: \x1b[31m1\x1b[0m → \x1b[32m2\x1b[0m\n"));
    ck_assert_ptr_nonnull(strstr(colour, "\x1b[31m-      \"x\": 1\x1b[0m\n"));
    ck_assert_ptr_nonnull(strstr(colour, "\x1b[32m+      \"x\": 2\x1b[0m\n"));
    ck_assert_ptr_nonnull(strstr(colour, "\x1b[32m+ calls[2] d(…any args…)\x1b[0m\n"));
    ck_assert_ptr_nonnull(strstr(colour, "\x1b[36m@@ "));
    ck_assert_ptr_nonnull(strstr(plain, "x: 1 ≠ 2"));
    free(plain);
    free(colour);
    colour = util_report("[{\"tool\":\"a\"},{\"tool\":\"b\"}]", "[{\"tool\":\"a\"}]", false, true);
    ck_assert_ptr_nonnull(strstr(colour, "\n 0 | a(…any args…) | a(…any args…) | ✓\n"));
    ck_assert_ptr_nonnull(strstr(colour, "\x1b[31m-1 | b(…any args…) | — MISSING —"));
    ck_assert_ptr_nonnull(strstr(colour, "\x1b[31m- calls[1] b(…any args…)\x1b[0m\n"));
    free(colour);
}
END_TEST

START_TEST(report_names_with_control_characters)
{
    char *got = util_report("[{\"tool\":\"a\\nb\",\"args\":{\"k\\t\":1}}]",
                            "[{\"tool\":\"a\\nb\",\"args\":{\"k\\t\":2}}]", false, false);
    ck_assert_ptr_nonnull(
        strstr(got, "0 | a\\x0ab(k\\x09=1) | a\\x0ab(k\\x09=2) | [\"k\\t\"]: 1 ≠ 2\n"));
    ck_assert_ptr_nonnull(strstr(got, "\n  calls[0] a\\x0ab  args[\"k\\t\"]: 1 → 2\n"));
    free(got);
}
END_TEST

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
    ck_assert_int_eq(ts_report_drift(g, t, &r, NULL, &out, NULL), 0);
    /* difflib pairs t0 only: 999 inserted, 1 equal, 999 deleted, 1999 rows
     * and 1998 differences, of which the first 50 rows and 40 lines show */
    ck_assert_uint_eq(util_count(out.data, "| EXTRA\n"), 50);
    ck_assert_ptr_nonnull(strstr(out.data, "\n+49 | — EXTRA — | t950(…any args…) | EXTRA\n"
                                           "… 1949 more rows not shown\n"));
    ck_assert_uint_eq(util_count(out.data, "\n+ calls["), 40);
    ck_assert_ptr_nonnull(strstr(out.data, "\n+ calls[39] t960(…any args…)\n"
                                           "  … and 1958 more differences\n"));
    ck_assert_ptr_nonnull(strstr(out.data, "… (cut after "));
    ck_assert_uint_lt(util_count(out.data, "\n"), 400);
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
        ts_report_options opt;
        ts_score_result r;
        ts_error err;
        ts_buf out;
        int rc;
        ts_report_options_default(&opt);
        opt.color = round % 2;
        opt.width = (size_t)(round % 300);
        ts_buf_init(&out, TS_BUF_UNLIMITED);
        if (ts_evaluate(g, t, NULL, &r, NULL) == 0) {
            rc = ts_report_drift(g, t, &r, &opt, &out, &err);
            ck_assert_int_eq(rc, 0);
            ck_assert_ptr_nonnull(strstr(out.data, "Expected vs Actual Tool Calls"));
            ck_assert_ptr_nonnull(strstr(out.data, "required"));
            ck_assert(ts_utf8_valid(out.data, out.len));
            ts_score_result_free(&r);
            ok++;
        } else {
            memset(&r, 0, sizeof(r));
            rc = ts_report_drift(g, t, &r, &opt, &out, &err);
            ck_assert_int_eq(rc, -EINVAL);
            ck_assert_str_eq(err.code, TS_ERR_INVALID_CALLS);
            ck_assert_uint_eq(out.len, 0);
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
    ck_assert_int_eq(ts_report_drift(bad, good, &r, NULL, &out, &err), -EINVAL);
    ck_assert_str_eq(err.message, "expected: item at index 1 is missing 'tool'");
    ck_assert_int_eq(ts_report_drift(good, obj, &r, NULL, &out, &err), -EINVAL);
    ck_assert_str_eq(err.message, "actual must be a list of calls, got an object");
    ck_assert_int_eq(ts_report_drift(NULL, good, &r, NULL, &out, &err), -EINVAL);
    ck_assert_int_eq(ts_report_drift(good, good, NULL, NULL, &out, &err), -EINVAL);
    ck_assert_uint_eq(out.len, 0);
    ts_buf_free(&out);

    ts_buf_init(&out, 64); /* too small for the table */
    ck_assert_int_eq(ts_report_drift(good, good, &r, NULL, &out, &err), -E2BIG);
    ck_assert_str_eq(err.code, TS_ERR_TOO_LARGE);
    ck_assert_uint_eq(out.len, 0);
    ck_assert_ptr_null(out.data);
    ts_buf_free(&out);
    ts_score_result_free(&r);
    json_object_put(good);
    json_object_put(bad);
    json_object_put(obj);
}
END_TEST

/*
 * Every maximum from 0 to the whole report: the report is whole or the
 * buffer failed and empty (-E2BIG, too_large), never cut, and nothing is
 * written out of bounds (make asan runs this). The calls have keys written
 * ["..."] in paths (the old path_key wrote a NUL past a smaller buffer
 * after -E2BIG), one not UTF-8, deep paths, and calls added and missing.
 */
START_TEST(report_small_maxima_whole_or_failed)
{
    struct json_object *g = util_json_c_parse(
        "[{\"tool\": \"search\", \"args\": {\"q\": \"caf\\u00e9\", \"a.b\": {\"x [\": [1, {\"\": "
        "2}]}}}, {\"tool\": \"book\", \"args\": {\"id\": 7}}, {\"tool\": \"gone\"}]");
    struct json_object *t = util_json_c_parse(
        "[{\"tool\": \"search\", \"args\": {\"q\": \"cafe\", \"a.b\": {\"x [\": [1, {\"\": "
        "3}]}, \"n\": 1}}, {\"tool\": \"pay\", \"args\": {}}, {\"tool\": \"book\", \"args\": "
        "{\"id\": 8}}]");
    struct json_object *args = json_object_object_get(json_object_array_get_idx(t, 0), "args");
    const char *notes[] = {"ignored by rules: 1 value at *.args.request_id"};
    ts_report_options opt;
    ts_score_result r;
    ts_error err;
    ts_buf full;
    char *want;

    json_object_object_add(args, "bad\xff key", json_object_new_int(1)); /* not UTF-8 */
    ts_report_options_default(&opt);
    opt.width = 60;
    opt.notes = notes;
    opt.n_notes = 1;
    ck_assert_int_eq(ts_evaluate(g, t, NULL, &r, &err), 0);
    ts_buf_init(&full, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_report_drift(g, t, &r, &opt, &full, &err), 0);
    want = ts_buf_detach(&full, NULL);
    ck_assert_ptr_nonnull(strstr(want, "args[\"a.b\"][\"x [\"][1][\"\"]: 2 → 3"));
    ck_assert_ptr_nonnull(strstr(want, "  calls[0] search  args['bad\\xff key']: (absent) → 1\n"));
    ck_assert_ptr_nonnull(strstr(want, "| unexpected: bad\\xff key\n"));
    ck_assert_ptr_nonnull(strstr(want, "\n(no JSON diff: the calls hold values JSON cannot"));
    ck_assert(ts_utf8_valid(want, strlen(want)));
    for (size_t max = 0; max <= strlen(want) + 1; max++) {
        ts_buf out;
        int rc;

        ts_buf_init(&out, max);
        rc = ts_report_drift(g, t, &r, &opt, &out, &err);
        if (max >= strlen(want)) {
            ck_assert_int_eq(rc, 0);
            ck_assert_str_eq(out.data, want);
        } else {
            ck_assert_int_eq(rc, -E2BIG);
            ck_assert_str_eq(err.code, TS_ERR_TOO_LARGE);
            ck_assert_ptr_null(out.data);
            ck_assert_uint_eq(out.len, 0);
        }
        ts_buf_free(&out);
    }
    free(want);
    ts_score_result_free(&r);
    json_object_put(g);
    json_object_put(t);
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
    tcase_add_test(tc, report_identical_lists);
    tcase_add_test(tc, report_long_value_cut_at_40_code_points);
    tcase_add_test(tc, report_row_labels_widen);
    tcase_add_test(tc, report_color_switch);
    tcase_add_test(tc, report_names_with_control_characters);
    tcase_add_test(tc, report_thousand_calls_reversed);
    tcase_add_test(tc, report_garbage_is_refused_cleanly);
    tcase_add_test(tc, report_rejects_bad_input);
    tcase_add_test(tc, report_small_maxima_whole_or_failed);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return util_run_suite(report_suite());
}
