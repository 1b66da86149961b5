/*
 * test_report_layout — the drift report's lines one by one: the difference
 * lines (deepest paths, added and missing calls, values too wide), the
 * folding of unchanged calls, the score line's digits (and the FAILED
 * message's), the caller's notes, the tips, the width.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/check/ts_check.h"
#include "lib/report/ts_report.h"
#include "lib/snapshot/ts_snapshot.h"
#include "util_report.h"
#include "util_test.h"

static void assert_differences(const char *expected, const char *actual, const char *want)
{
    char *got = util_report_differences(expected, actual);

    ck_assert_msg(strcmp(got, want) == 0, "differences:\n--- got\n%s--- want\n%s", got, want);
    free(got);
}

/* ---- difference lines ---- */

START_TEST(differences_at_the_deepest_path)
{
    assert_differences(
        "[{\"tool\":\"a\",\"args\":{\"o\":{\"p\":1,\"q\":[1,2,{\"r\":true}]},\"n\":1}}]",
        "[{\"tool\":\"a\",\"args\":{\"o\":{\"p\":\"1\",\"q\":[1,3,{\"r\":false,\"s\":null}]},"
        "\"n\":1.0}}]",
        "  calls[0] a  args.n: 1 → 1.0\n"
        "  calls[0] a  args.o.p: 1 → \"1\"\n"
        "  calls[0] a  args.o.q[1]: 2 → 3\n"
        "  calls[0] a  args.o.q[2].r: true → false\n"
        "  calls[0] a  args.o.q[2].s: (absent) → null\n");
    /* an element inserted in one place: that element; otherwise the arrays */
    assert_differences("[{\"tool\":\"a\",\"args\":{\"l\":[1,2,4]}}]",
                       "[{\"tool\":\"a\",\"args\":{\"l\":[1,2,3,4]}}]",
                       "  calls[0] a  args.l[2]: (absent) → 3\n");
    assert_differences("[{\"tool\":\"a\",\"args\":{\"l\":[0,1,2]}}]",
                       "[{\"tool\":\"a\",\"args\":{\"l\":[1,2]}}]",
                       "  calls[0] a  args.l[0]: 0 → (absent)\n");
    assert_differences("[{\"tool\":\"a\",\"args\":{\"l\":[1,2]}}]",
                       "[{\"tool\":\"a\",\"args\":{\"l\":[3,4,5]}}]",
                       "  calls[0] a  args.l: [1, 2] → [3, 4, 5]\n");
    assert_differences("[{\"tool\":\"a\",\"args\":{\"l\":{\"x\":1}}}]",
                       "[{\"tool\":\"a\",\"args\":{\"l\":[1]}}]",
                       "  calls[0] a  args.l: {\"x\": 1} → [1]\n");
    /* keys that a plain .key would misread */
    assert_differences("[{\"tool\":\"a\",\"args\":{\"a.b\":1,\"\":2,\"sp ace\":{\"q\\\"\":1}}}]",
                       "[{\"tool\":\"a\",\"args\":{\"a.b\":2,\"\":3,\"sp ace\":{\"q\\\"\":2}}}]",
                       "  calls[0] a  args[\"\"]: 2 → 3\n"
                       "  calls[0] a  args[\"a.b\"]: 1 → 2\n"
                       "  calls[0] a  args[\"sp ace\"][\"q\\\"\"]: 1 → 2\n");
}
END_TEST

START_TEST(differences_of_calls_added_removed_and_unchecked)
{
    assert_differences("[{\"tool\":\"a\"},{\"tool\":\"b\",\"args\":{\"x\":1}},{\"tool\":\"c\"}]",
                       "[{\"tool\":\"a\"},{\"tool\":\"c\"},{\"tool\":\"d\"},{\"tool\":\"e\"}]",
                       "- calls[1] b(x=1)\n"
                       "+ calls[2] d(…any args…)\n"
                       "+ calls[3] e(…any args…)\n");
    /* expected args absent: not compared; actual args null: compared as {} */
    assert_differences("[{\"tool\":\"a\"},{\"tool\":\"b\",\"args\":{\"page\":2}}]",
                       "[{\"tool\":\"a\",\"args\":{\"x\":1}},{\"tool\":\"b\",\"args\":null}]",
                       "  calls[1] b  args.page: 2 → (absent)\n");
    assert_differences("[]", "[]", "");
    assert_differences("[{\"tool\":\"a\",\"args\":{\"s\":\"x\"}}]",
                       "[{\"tool\":\"a\",\"args\":{\"s\":\"x\"}}]", "");
}
END_TEST

START_TEST(differences_too_wide_keep_the_change_visible)
{
    char big[400], gold[600], trace[600], *got;
    ts_report_options opt;

    memset(big, 'v', 300);
    big[300] = '\0';
    snprintf(gold, sizeof(gold), "[{\"tool\":\"a\",\"args\":{\"s\":\"%.150sOLD%s\"}}]", big,
             big + 150);
    snprintf(trace, sizeof(trace), "[{\"tool\":\"a\",\"args\":{\"s\":\"%.150sNEW%s\"}}]", big,
             big + 150);
    ts_report_options_default(&opt);
    opt.width = 60;
    opt.json_diff = false;
    got = util_report_with(gold, trace, false, &opt);
    /* the values on lines of their own, cut where they are the same: their
     * start, then the change with what surrounds it, in both alike */
    ck_assert_ptr_nonnull(
        strstr(got, "\n  calls[0] a  args.s:\n"
                    "      - \"vvvvvvvvvv…vvvvvvvvvvvvOLDvvvvvvvvvvvvvvvvvvvvvvvv…\n"
                    "      + \"vvvvvvvvvv…vvvvvvvvvvvvNEWvvvvvvvvvvvvvvvvvvvvvvvv…\n"));
    for (char *s = got; *s;) {
        char *nl = strchr(s, '\n');
        ck_assert_msg(ts_repr_width(s, (size_t)(nl - s)) <= 60, "%.*s", (int)(nl - s), s);
        s = nl + 1;
    }
    free(got);
}
END_TEST

/* ---- folding ---- */

/* 20 calls of three tools in turn, args {"i": index}; the calls at changed
 * and changed2 with other values, a new call inserted before inserted. */
static char *twenty(int changed, int changed2, int inserted)
{
    ts_buf b;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ts_buf_appendc(&b, '[');
    for (int i = 0; i < 20; i++) {
        ts_buf_appends(&b, i ? "," : "");
        if (i == inserted)
            ts_buf_appends(&b, "{\"tool\":\"new\",\"args\":{}},");
        ts_buf_appendf(&b, "{\"tool\":\"t%d\",\"args\":{\"i\":%d}}", i % 3,
                       i == changed || i == changed2 ? 99 : i);
    }
    ts_buf_appendc(&b, ']');
    return ts_buf_detach(&b, NULL);
}

START_TEST(folding_keeps_two_calls_of_context)
{
    char *gold = twenty(-1, -1, -1), *changed = twenty(10, -1, -1);
    char *inserted = twenty(-1, -1, 5);
    char *got = util_report(gold, changed, false, false);

    ck_assert_ptr_nonnull(strstr(got, "---\n… 8 unchanged calls (calls[0]..calls[7]) …\n"
                                      " 8 | t2(i=8)  | t2(i=8)  | ✓\n"
                                      " 9 | t0(i=9)  | t0(i=9)  | ✓\n"
                                      "10 | t1(i=10) | t1(i=99) | i: 10 ≠ 99\n"
                                      "11 | t2(i=11) | t2(i=11) | ✓\n"
                                      "12 | t0(i=12) | t0(i=12) | ✓\n"
                                      "… 7 unchanged calls (calls[13]..calls[19]) …\n\n"));
    free(got);
    /* an inserted call: the unchanged calls anchor the rows, the fold says
     * where the calls are in each list */
    got = util_report(gold, inserted, false, false);
    ck_assert_ptr_nonnull(strstr(got, "---\n… 3 unchanged calls (calls[0]..calls[2]) …\n"
                                      "  3 | t0(i=3)   | t0(i=3) | ✓\n"
                                      "  4 | t1(i=4)   | t1(i=4) | ✓\n"
                                      " +5 | — EXTRA — | new()   | EXTRA\n"
                                      "5→6 | t2(i=5)   | t2(i=5) | ✓\n"
                                      "6→7 | t0(i=6)   | t0(i=6) | ✓\n"
                                      "… 13 unchanged calls (calls[7]..calls[19], actual "
                                      "calls[8]..calls[20]) …\n"));
    ck_assert_ptr_nonnull(strstr(got, "\n+ calls[5] new()\n"));
    free(got);
    /* fewer than three unchanged calls between context are shown, not folded */
    free(changed);
    changed = twenty(10, 16, -1); /* row 13 and row 19 are alone between context */
    got = util_report(gold, changed, false, false);
    ck_assert_ptr_nonnull(strstr(got, "\n12 | t0(i=12) | t0(i=12) | ✓\n"
                                      "13 | t1(i=13) | t1(i=13) | ✓\n"
                                      "14 | t2(i=14) | t2(i=14) | ✓\n"));
    ck_assert_ptr_nonnull(strstr(got, "\n18 | t0(i=18) | t0(i=18) | ✓\n"
                                      "19 | t1(i=19) | t1(i=19) | ✓\n\n"));
    ck_assert_uint_eq(util_count(got, "unchanged calls"), 1);
    free(got);
    free(gold);
    free(changed);
    free(inserted);
}
END_TEST

/* ---- score line, notes, tips ---- */

START_TEST(score_digits_never_round_to_the_threshold)
{
    ck_assert_int_eq(ts_report_score_decimals(0.7, 1.0, false), 2);
    ck_assert_int_eq(ts_report_score_decimals(0.999, 1.0, false), 4); /* "0.9990" */
    ck_assert_int_eq(ts_report_score_decimals(0.9999999, 1.0, false), 7);
    ck_assert_int_eq(ts_report_score_decimals(0.8999, 0.9, false), 4);
    ck_assert_int_eq(ts_report_score_decimals(1.0, 1.0, true), 2);
    ck_assert_int_eq(ts_report_score_decimals(0.9999999999999999, 1.0, true), 2);
    ck_assert_int_eq(ts_report_score_decimals(0.955, 0.955, true), 3 + 1); /* "0.9550" */
    ck_assert_int_eq(ts_report_threshold_decimals(1.0), 2);
    ck_assert_int_eq(ts_report_threshold_decimals(0.955), 3);
    ck_assert_int_eq(ts_report_score_decimals(NAN, 1.0, false), 2);
}
END_TEST

START_TEST(score_line_and_message_show_a_failing_score_below)
{
    /* 1,000 calls, one value changed: the score rounds to 1.00 */
    ts_buf g, t;
    struct json_object *gj, *tj;
    ts_score_result r;
    ts_check_input in;
    ts_check_decision d;
    ts_score_options opt;
    ts_snapshot *snap;
    char *text, *message;

    ts_buf_init(&g, TS_BUF_UNLIMITED);
    ts_buf_init(&t, TS_BUF_UNLIMITED);
    for (int i = 0; i < 1000; i++) {
        ts_buf_appendf(&g, "%s{\"tool\":\"t\",\"args\":{\"i\":%d}}", i ? "," : "[", i);
        ts_buf_appendf(&t, "%s{\"tool\":\"t\",\"args\":{\"i\":%d}}", i ? "," : "[",
                       i == 500 ? -1 : i);
    }
    ts_buf_appendc(&g, ']');
    ts_buf_appendc(&t, ']');
    text = util_report(g.data, t.data, false, false);
    ck_assert_ptr_nonnull(strstr(text, "\nscore 0.9997 < 1.00 required  ·  selection 1.00"));
    free(text);
    gj = util_json_c_parse(g.data);
    tj = util_json_c_parse(t.data);
    ts_score_options_default(&opt);
    ck_assert_int_eq(ts_evaluate(gj, tj, &opt, &r, NULL), 0);
    snap = util_make_snapshot("n", 1, 0);
    ts_check_input_init(&in, "n", &opt);
    in.state = TS_CHECK_APPROVED;
    in.snapshot = snap;
    in.calls = tj;
    in.score = &r;
    ts_check_decide(&in, &d);
    message = ts_check_message(&in, &d);
    ck_assert_str_eq(message, "snapshot 'n' drifted from its approved baseline "
                              "(score 0.9997 < 1.00 required)");
    free(message);
    ts_snapshot_free(snap);
    ts_score_result_free(&r);
    json_object_put(gj);
    json_object_put(tj);
    ts_buf_free(&g);
    ts_buf_free(&t);
}
END_TEST

START_TEST(notes_follow_the_score_line)
{
    const char *notes[] = {"ignored by rules: 3 values at *.args.request_id",
                           "a second note\nwith its own line break and a\ttab"};
    ts_report_options opt;
    char *got;

    ts_report_options_default(&opt);
    opt.json_diff = false;
    opt.notes = notes;
    opt.n_notes = 2;
    got = util_report_with("[{\"tool\":\"a\",\"args\":{\"x\":1}}]",
                           "[{\"tool\":\"a\",\"args\":{\"x\":2}}]", false, &opt);
    ck_assert_ptr_nonnull(strstr(got, "  ·  sequence 1.00\n"
                                      "ignored by rules: 3 values at *.args.request_id\n"
                                      "a second note\n"
                                      "with its own line break and a\\x09tab\n"
                                      "\n"
                                      "  calls[0] a  args.x: 1 → 2\n"));
    free(got);
}
END_TEST

START_TEST(tips_name_new_and_repeated_tools)
{
    /* a new tool is not a "redundant" call; a repeated one is named */
    char *got = util_report("[{\"tool\":\"search\"},{\"tool\":\"book\"}]",
                            "[{\"tool\":\"search\"},{\"tool\":\"search\"},{\"tool\":\"search\"},"
                            "{\"tool\":\"book\"},{\"tool\":\"refund\"}]",
                            false, false);
    ck_assert_ptr_nonnull(strstr(got, "  • new tool the baseline never calls: 'refund' - if the "
                                      "agent should call it now, update the\n    baseline\n"));
    ck_assert_ptr_nonnull(strstr(got,
                                 "  • 2 extra calls of expected tools ('search' 3 times, 1 "
                                 "expected): the agent repeats calls the\n    baseline makes"));
    ck_assert_ptr_null(strstr(got, "redundant"));
    free(got);
}
END_TEST

START_TEST(width_is_clamped_and_defaults_to_100)
{
    const char *g = "[{\"tool\":\"search\",\"args\":{\"q\":\"a long query that does not fit in "
                    "forty columns at all, not even close\"}}]";
    const char *t = "[{\"tool\":\"search\",\"args\":{\"q\":\"a long query that does not fit in "
                    "forty columns at all, not even near\"}}]";
    ts_report_options opt;
    char *w0, *w100, *w5, *w40;

    ts_report_options_default(&opt);
    w0 = util_report_with(g, t, false, &opt);
    opt.width = 100;
    w100 = util_report_with(g, t, false, &opt);
    opt.width = 5;
    w5 = util_report_with(g, t, false, &opt);
    opt.width = TS_REPORT_WIDTH_MIN;
    w40 = util_report_with(g, t, false, &opt);
    ck_assert_str_eq(w0, w100);
    ck_assert_str_eq(w5, w40);
    for (char *s = w40; *s;) {
        char *nl = strchr(s, '\n');
        ck_assert_msg(ts_repr_width(s, (size_t)(nl - s)) <= TS_REPORT_WIDTH_MIN, "%.*s",
                      (int)(nl - s), s);
        s = nl + 1;
    }
    free(w0);
    free(w100);
    free(w5);
    free(w40);
}
END_TEST

static Suite *report_layout_suite(void)
{
    Suite *s = suite_create("report_layout");
    TCase *tc = tcase_create("differences");

    tcase_add_test(tc, differences_at_the_deepest_path);
    tcase_add_test(tc, differences_of_calls_added_removed_and_unchecked);
    tcase_add_test(tc, differences_too_wide_keep_the_change_visible);
    suite_add_tcase(s, tc);

    tc = tcase_create("layout");
    tcase_add_test(tc, folding_keeps_two_calls_of_context);
    tcase_add_test(tc, score_digits_never_round_to_the_threshold);
    tcase_add_test(tc, score_line_and_message_show_a_failing_score_below);
    tcase_add_test(tc, notes_follow_the_score_line);
    tcase_add_test(tc, tips_name_new_and_repeated_tools);
    tcase_add_test(tc, width_is_clamped_and_defaults_to_100);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return util_run_suite(report_layout_suite());
}
