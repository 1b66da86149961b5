/*
 * test_report_calls — how the drift table renders one call on either side
 * (args absent or null `tool(…any args…)`, empty `tool()`) and decides ✓
 * with the scoring rule in force (top-level numbers equal as doubles,
 * numbers inside containers and in strict mode exact), docs/snapshots.md
 * "Drift report" and docs/scoring.md "Value comparison".
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/ts_report.h"
#include "util_test.h"

/* The table part of the drift report (up to the blank line before the score). */
static char *table(const char *expected, const char *actual, bool strict)
{
    struct json_object *g = util_json_c_parse(expected), *t = util_json_c_parse(actual);
    ts_score_options opt;
    ts_score_result r;
    ts_report_options ropt;
    ts_error err;
    ts_buf out;
    char *text, *end;

    ts_score_options_default(&opt);
    opt.strict = strict;
    ck_assert_int_eq(ts_evaluate(g, t, &opt, &r, &err), 0);
    ts_report_options_default(&ropt);
    ropt.width = 200; /* every cell whole */
    ts_buf_init(&out, TS_BUF_UNLIMITED);
    ck_assert_msg(ts_report_drift(g, t, &r, &ropt, &out, &err) == 0, "%s", err.message);
    ts_score_result_free(&r);
    json_object_put(g);
    json_object_put(t);
    text = ts_buf_detach(&out, NULL);
    end = strstr(text, "\n\n");
    if (end != NULL)
        end[1] = '\0';
    return text;
}

static void assert_table(const char *expected, const char *actual, bool strict, const char *want)
{
    char *got = table(expected, actual, strict);

    ck_assert_msg(strcmp(got, want) == 0, "table differs:\n--- got\n%s--- want\n%s", got, want);
    free(got);
}

START_TEST(actual_args_absent_null_and_empty)
{
    /* The actual side renders as the expected side does: absent and null
     * are "any args", {} is no arguments; scoring reads both as {}. */
    assert_table("[{\"tool\":\"a\",\"args\":{}},{\"tool\":\"b\",\"args\":{}},{\"tool\":\"c\"},"
                 "{\"tool\":\"d\",\"args\":null}]",
                 "[{\"tool\":\"a\"},{\"tool\":\"b\",\"args\":null},{\"tool\":\"c\",\"args\":{}},"
                 "{\"tool\":\"d\",\"args\":{\"k\":1}},{\"tool\":\"e\"}]",
                 false,
                 "Expected vs Actual Tool Calls\n"
                 " # | Expected      | Actual        | Status\n"
                 "---+---------------+---------------+-------\n"
                 " 0 | a()           | a(…any args…) | ✓\n"
                 " 1 | b()           | b(…any args…) | ✓\n"
                 " 2 | c(…any args…) | c()           | ✓\n"
                 " 3 | d(…any args…) | d(k=1)        | ✓\n"
                 "+4 | — EXTRA —     | e(…any args…) | EXTRA\n");
}
END_TEST

START_TEST(top_level_numbers_equal_as_doubles)
{
    /* 2^53 + 1 and 2^53 are one double; 2^64 - 1 and 2^64 - 2 too. */
    assert_table("[{\"tool\":\"t\",\"args\":{\"n\":9007199254740993,\"m\":18446744073709551615}}]",
                 "[{\"tool\":\"t\",\"args\":{\"n\":9007199254740992,\"m\":18446744073709551614}}]",
                 false,
                 "Expected vs Actual Tool Calls\n"
                 "# | Expected                                      | Actual"
                 "                                        | Status\n"
                 "--+-----------------------------------------------+"
                 "-----------------------------------------------+-------\n"
                 "0 | t(n=9007199254740993, m=18446744073709551615) | "
                 "t(n=9007199254740992, m=18446744073709551614) | ✓\n");
}
END_TEST

START_TEST(nested_and_strict_numbers_exact)
{
    assert_table("[{\"tool\":\"t\",\"args\":{\"n\":[9007199254740993]}}]",
                 "[{\"tool\":\"t\",\"args\":{\"n\":[9007199254740992]}}]", false,
                 "Expected vs Actual Tool Calls\n"
                 "# | Expected                | Actual                  | Status\n"
                 "--+-------------------------+-------------------------+"
                 "------------------------------------------\n"
                 "0 | t(n=[9007199254740993]) | t(n=[9007199254740992]) | "
                 "n[0]: 9007199254740993 ≠ 9007199254740992\n");
    assert_table("[{\"tool\":\"t\",\"args\":{\"n\":9007199254740993}}]",
                 "[{\"tool\":\"t\",\"args\":{\"n\":9007199254740992}}]", true,
                 "Expected vs Actual Tool Calls\n"
                 "# | Expected              | Actual                | Status\n"
                 "--+-----------------------+-----------------------+"
                 "---------------------------------------\n"
                 "0 | t(n=9007199254740993) | t(n=9007199254740992) | "
                 "n: 9007199254740993 ≠ 9007199254740992\n");
}
END_TEST

static Suite *report_calls_suite(void)
{
    Suite *s = suite_create("report_calls");
    TCase *tc = tcase_create("calls");

    tcase_add_test(tc, actual_args_absent_null_and_empty);
    tcase_add_test(tc, top_level_numbers_equal_as_doubles);
    tcase_add_test(tc, nested_and_strict_numbers_exact);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return util_run_suite(report_calls_suite());
}
