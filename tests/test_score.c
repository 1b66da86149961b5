/*
 * test_score — docs/scoring.md: every metric, value comparison in both modes,
 * weights, thresholds, grades, validation, and large inputs.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/score/ts_score.h"
#include "util_test.h"

#define TOL 1e-12

/* Evaluate with options; fails the test on an error. */
static ts_score_result eval_opt(const char *expected, const char *actual,
                                const ts_score_options *opt)
{
    struct json_object *g = util_json_c_parse(expected), *t = util_json_c_parse(actual);
    ts_score_result r;
    ts_error err;
    int rc = ts_evaluate(g, t, opt, &r, &err);

    ck_assert_msg(rc == 0, "evaluate failed: %s", err.message);
    json_object_put(g);
    json_object_put(t);
    return r;
}

static ts_score_result eval_default(const char *expected, const char *actual)
{
    ts_score_options opt;

    ts_score_options_default(&opt);
    return eval_opt(expected, actual, &opt);
}

static ts_score_result eval_strict(const char *expected, const char *actual)
{
    ts_score_options opt;

    ts_score_options_default(&opt);
    opt.strict = true;
    return eval_opt(expected, actual, &opt);
}

static void weights_json(const char *text, ts_weights *w)
{
    struct json_object *o = util_json_c_parse(text);
    ts_error err;

    ck_assert_msg(ts_weights_from_json(o, w, &err) == 0, "weights: %s", err.message);
    json_object_put(o);
}

static bool equal_text(const char *a, const char *b, bool strict, bool top)
{
    struct json_object *va = util_json_c_parse(a), *vb = util_json_c_parse(b);
    bool eq = ts_values_equal(va, vb, strict, top);

    json_object_put(va);
    json_object_put(vb);
    return eq;
}

static char *list_text(const struct json_object *list)
{
    return strdup(
        json_object_to_json_string_ext((struct json_object *)list, JSON_C_TO_STRING_PLAIN));
}

static void assert_list(const struct json_object *list, const char *want)
{
    char *got = list_text(list);

    ck_assert_str_eq(got, want);
    free(got);
}

/* ---- worked examples of docs/scoring.md ---- */

START_TEST(example_perfect_match)
{
    ts_score_result r = eval_default("[{\"tool\":\"search\",\"args\":{\"q\":\"test\"}}]",
                                     "[{\"tool\":\"search\",\"args\":{\"q\":\"test\"}}]");
    ck_assert(r.selection_accuracy == 1.0);
    ck_assert(r.argument_f1 == 1.0);
    ck_assert(r.sequence_accuracy == 1.0);
    ck_assert(r.redundant_rate == 0.0);
    ck_assert(r.score == 0.9999999999999999);
    ck_assert(r.passed);
    ck_assert_int_eq(r.grade, 'A');
    ts_score_result_free(&r);
}
END_TEST

START_TEST(example_wrong_value)
{
    ts_score_result r = eval_default("[{\"tool\":\"a\",\"args\":{\"x\":1}}]",
                                     "[{\"tool\":\"a\",\"args\":{\"x\":2}}]");
    ck_assert(r.selection_accuracy == 1.0);
    ck_assert(r.argument_f1 == 0.0);
    ck_assert(r.sequence_accuracy == 1.0);
    ck_assert(r.redundant_rate == 0.0);
    ck_assert_double_eq_tol(r.score, 0.7, TOL);
    ck_assert(!r.passed);
    ck_assert_int_eq(r.grade, 'C');
    ts_score_result_free(&r);
}
END_TEST

START_TEST(example_selection_only_weights)
{
    ts_score_options opt;
    ts_score_result r;

    ts_score_options_default(&opt);
    weights_json("{\"selection_accuracy\":1,\"argument_f1\":0,\"sequence_accuracy\":0,"
                 "\"redundant_rate\":0}",
                 &opt.weights);
    r = eval_opt("[{\"tool\":\"a\",\"args\":{\"x\":1}}]", "[{\"tool\":\"a\",\"args\":{\"x\":2}}]",
                 &opt);
    ck_assert(r.argument_f1 == 0.0);
    ck_assert(r.score == 1.0);
    ck_assert(r.passed);
    ts_score_result_free(&r);
}
END_TEST

START_TEST(example_int_float_lenient_and_strict)
{
    ts_score_result r = eval_default("[{\"tool\":\"t\",\"args\":{\"x\":1}}]",
                                     "[{\"tool\":\"t\",\"args\":{\"x\":1.0}}]");
    ck_assert(r.argument_f1 == 1.0);
    ck_assert_double_eq_tol(r.score, 1.0, TOL);
    ck_assert(r.passed);
    ck_assert(!r.strict);
    ts_score_result_free(&r);

    r = eval_strict("[{\"tool\":\"t\",\"args\":{\"x\":1}}]",
                    "[{\"tool\":\"t\",\"args\":{\"x\":1.0}}]");
    ck_assert(r.selection_accuracy == 1.0);
    ck_assert(r.argument_f1 == 0.0);
    ck_assert(r.sequence_accuracy == 1.0);
    ck_assert_double_eq_tol(r.score, 0.7, TOL);
    ck_assert(!r.passed);
    ck_assert(r.strict);
    ts_score_result_free(&r);
}
END_TEST

START_TEST(example_swapped_order)
{
    ts_score_result r = eval_default("[{\"tool\":\"A\"},{\"tool\":\"B\"},{\"tool\":\"C\"}]",
                                     "[{\"tool\":\"B\"},{\"tool\":\"A\"},{\"tool\":\"C\"}]");
    ck_assert(r.selection_accuracy == 1.0);
    ck_assert(r.argument_f1 == 1.0);
    ck_assert(r.edit_distance == 2.0);
    ck_assert_double_eq_tol(r.sequence_accuracy, 1.0 / 3.0, TOL);
    ck_assert(r.redundant_rate == 0.0);
    ck_assert(r.score == 0.8666666666666666);
    ck_assert_int_eq(r.grade, 'B');
    ts_score_result_free(&r);
}
END_TEST

START_TEST(example_args_absent_is_unchecked)
{
    ts_score_result r =
        eval_default("[{\"tool\":\"search\"}]", "[{\"tool\":\"search\",\"args\":{\"q\":\"x\"}}]");
    ck_assert(r.argument_precision == 1.0);
    ck_assert(r.argument_recall == 1.0);
    ck_assert(r.argument_f1 == 1.0);
    ck_assert_double_eq_tol(r.score, 1.0, TOL);
    ck_assert(r.passed);
    ts_score_result_free(&r);
}
END_TEST

START_TEST(example_empty_args_expects_none)
{
    ts_score_result r = eval_default("[{\"tool\":\"search\",\"args\":{}}]",
                                     "[{\"tool\":\"search\",\"args\":{\"q\":\"x\"}}]");
    ck_assert(r.selection_accuracy == 1.0);
    ck_assert(r.argument_f1 == 0.0);
    ck_assert(r.sequence_accuracy == 1.0);
    ck_assert_double_eq_tol(r.score, 0.7, TOL);
    ts_score_result_free(&r);
}
END_TEST

/* ---- empty lists ---- */

START_TEST(both_empty_is_perfect)
{
    ts_score_result r = eval_default("[]", "[]");
    ck_assert(r.invocation_accuracy == 1.0);
    ck_assert(r.selection_accuracy == 1.0);
    ck_assert(r.argument_precision == 1.0);
    ck_assert(r.argument_recall == 1.0);
    ck_assert(r.argument_f1 == 1.0);
    ck_assert(r.edit_distance == 0.0);
    ck_assert(r.normalized_distance == 0.0);
    ck_assert(r.sequence_accuracy == 1.0);
    ck_assert(r.redundant_rate == 0.0);
    ck_assert_int_eq(r.redundant_count, 0);
    ck_assert_int_eq(r.total_calls, 0);
    ck_assert(r.tool_correctness == 1.0);
    ck_assert(r.step_match_rate == 1.0);
    ck_assert(r.trajectory_accuracy == 1.0);
    ck_assert(r.path_efficiency == 1.0);
    ck_assert_double_eq_tol(r.score, 1.0, TOL);
    ck_assert(r.passed); /* min_score 1.0: an empty baseline passes its own replay */
    ck_assert_int_eq(r.grade, 'A');
    assert_list(r.expected_tools, "[]");
    assert_list(r.missing_tools, "[]");
    ts_score_result_free(&r);
}
END_TEST

START_TEST(expected_empty_actual_not)
{
    ts_score_result r =
        eval_default("[]", "[{\"tool\":\"a\",\"args\":{\"x\":1}},{\"tool\":\"a\"}]");
    ck_assert(r.invocation_accuracy == 0.0);
    ck_assert(r.selection_accuracy == 0.0);
    ck_assert(r.argument_f1 == 0.0);
    ck_assert(r.argument_precision == 0.0);
    ck_assert(r.edit_distance == 2.0);
    ck_assert(r.normalized_distance == 1.0);
    ck_assert(r.sequence_accuracy == 0.0);
    ck_assert_int_eq(r.redundant_count, 2);
    ck_assert_int_eq(r.total_calls, 2);
    ck_assert(r.redundant_rate == 1.0);
    ck_assert(r.tool_correctness == 0.0);
    ck_assert(r.step_match_rate == 0.0);
    ck_assert(r.trajectory_accuracy == 0.0);
    ck_assert(r.path_efficiency == 1.0);
    ck_assert(r.score == 0.0);
    ck_assert_int_eq(r.grade, 'F');
    assert_list(r.extra_tools, "[\"a\"]");
    assert_list(r.called_tools, "[\"a\"]");
    ts_score_result_free(&r);
}
END_TEST

START_TEST(actual_empty_expected_not)
{
    ts_score_result r = eval_default("[{\"tool\":\"a\"},{\"tool\":\"b\",\"args\":{}}]", "[]");
    ck_assert(r.invocation_accuracy == 0.0);
    ck_assert(r.selection_accuracy == 0.0);
    ck_assert(r.argument_f1 == 0.0);
    ck_assert(r.edit_distance == 2.0);
    ck_assert(r.sequence_accuracy == 0.0);
    ck_assert(r.redundant_rate == 0.0);
    ck_assert_int_eq(r.total_calls, 0);
    ck_assert(r.tool_correctness == 0.0);
    ck_assert(r.step_match_rate == 0.0);
    ck_assert(r.trajectory_accuracy == 0.0);
    ck_assert(r.path_efficiency == 0.0);
    /* only the redundancy term survives */
    ck_assert_double_eq_tol(r.score, 0.1, TOL);
    assert_list(r.missing_tools, "[\"a\",\"b\"]");
    ts_score_result_free(&r);
}
END_TEST

/* ---- args absent / null / {} ---- */

START_TEST(expected_args_null_is_unchecked)
{
    ts_score_result r =
        eval_default("[{\"tool\":\"a\",\"args\":null}]", "[{\"tool\":\"a\",\"args\":{\"z\":3}}]");
    ck_assert(r.argument_f1 == 1.0);
    ts_score_result_free(&r);
}
END_TEST

START_TEST(expected_empty_args_met_by_absent_or_null)
{
    const char *actuals[] = {"[{\"tool\":\"a\"}]", "[{\"tool\":\"a\",\"args\":null}]",
                             "[{\"tool\":\"a\",\"args\":{}}]"};
    for (size_t i = 0; i < 3; i++) {
        ts_score_result r = eval_default("[{\"tool\":\"a\",\"args\":{}}]", actuals[i]);
        ck_assert_msg(r.argument_f1 == 1.0, "actual %s", actuals[i]);
        ck_assert(r.passed);
        ts_score_result_free(&r);
    }
}
END_TEST

START_TEST(expected_args_but_actual_absent)
{
    ts_score_result r = eval_default("[{\"tool\":\"a\",\"args\":{\"x\":1}}]", "[{\"tool\":\"a\"}]");
    ck_assert(r.argument_precision == 0.0);
    ck_assert(r.argument_recall == 0.0);
    ck_assert(r.argument_f1 == 0.0);
    ck_assert(r.step_match_rate == 0.0); /* gold key missing from the trace */
    ts_score_result_free(&r);
}
END_TEST

START_TEST(unchecked_call_without_partner_is_not_vacuous)
{
    /* gold args absent but the tool was never called: nothing counted and no
     * vacuous match, so 0/0 gives 0 */
    ts_score_result r = eval_default("[{\"tool\":\"a\"}]", "[{\"tool\":\"b\"}]");
    ck_assert(r.argument_f1 == 0.0);
    ck_assert(r.selection_accuracy == 0.0);
    ck_assert(r.invocation_accuracy == 0.0);
    ts_score_result_free(&r);
}
END_TEST

START_TEST(extra_actual_keys_lower_precision)
{
    ts_score_result r = eval_default("[{\"tool\":\"a\",\"args\":{\"x\":1}}]",
                                     "[{\"tool\":\"a\",\"args\":{\"x\":1,\"y\":2}}]");
    ck_assert(r.argument_precision == 0.5);
    ck_assert(r.argument_recall == 1.0);
    ck_assert(r.argument_f1 == 0.6666666666666666);
    ck_assert(r.step_match_rate == 1.0); /* extra trace keys allowed in a step */
    ts_score_result_free(&r);
}
END_TEST

START_TEST(missing_key_lowers_recall)
{
    ts_score_result r = eval_default("[{\"tool\":\"a\",\"args\":{\"x\":1,\"y\":2}}]",
                                     "[{\"tool\":\"a\",\"args\":{\"x\":1}}]");
    ck_assert(r.argument_precision == 1.0);
    ck_assert(r.argument_recall == 0.5);
    ts_score_result_free(&r);
}
END_TEST

/* ---- alignment ---- */

START_TEST(two_gold_calls_share_one_trace_call)
{
    ts_score_result r =
        eval_default("[{\"tool\":\"a\",\"args\":{\"x\":1}},{\"tool\":\"a\",\"args\":{\"x\":1}}]",
                     "[{\"tool\":\"b\",\"args\":{}},{\"tool\":\"a\",\"args\":{\"x\":1}}]");
    /* both gold calls partner trace[1]: expected 2, actual 2, correct 2 */
    ck_assert(r.argument_precision == 1.0);
    ck_assert(r.argument_recall == 1.0);
    ck_assert(r.argument_f1 == 1.0);
    ts_score_result_free(&r);
}
END_TEST

START_TEST(earlier_trace_call_never_partners)
{
    ts_score_result r =
        eval_default("[{\"tool\":\"b\",\"args\":{}},{\"tool\":\"a\",\"args\":{\"x\":1}}]",
                     "[{\"tool\":\"a\",\"args\":{\"x\":1}},{\"tool\":\"b\",\"args\":{}}]");
    /* gold[1] (a) would only find trace[0], which is before it: expected 1,
     * actual 0, correct 0 */
    ck_assert(r.argument_precision == 0.0);
    ck_assert(r.argument_recall == 0.0);
    ck_assert(r.argument_f1 == 0.0);
    ck_assert(r.selection_accuracy == 1.0);
    ts_score_result_free(&r);
}
END_TEST

START_TEST(partner_is_first_at_or_after)
{
    /* gold[1] partners trace[1] (x:2), not trace[2] (x:1) */
    ts_score_result r =
        eval_default("[{\"tool\":\"a\",\"args\":{\"x\":1}},{\"tool\":\"a\",\"args\":{\"x\":1}}]",
                     "[{\"tool\":\"a\",\"args\":{\"x\":1}},{\"tool\":\"a\",\"args\":{\"x\":2}},"
                     "{\"tool\":\"a\",\"args\":{\"x\":1}}]");
    ck_assert(r.argument_precision == 0.5);
    ck_assert(r.argument_recall == 0.5);
    ck_assert(r.argument_f1 == 0.5);
    ck_assert_int_eq(r.redundant_count, 1);
    ts_score_result_free(&r);
}
END_TEST

/* ---- value comparison ---- */

START_TEST(lenient_numbers_by_value)
{
    ck_assert(equal_text("1", "1.0", false, true));
    ck_assert(equal_text("true", "1", false, true));
    ck_assert(equal_text("true", "1.0", false, true));
    ck_assert(equal_text("false", "0", false, true));
    ck_assert(equal_text("false", "0.0", false, true));
    ck_assert(equal_text("-0.0", "0", false, true));
    ck_assert(!equal_text("true", "2", false, true));
    ck_assert(!equal_text("true", "false", false, true));
    ck_assert(!equal_text("1", "1.5", false, true));
    ck_assert(equal_text("[1, true, {\"k\": 0}]", "[1.0, 1, {\"k\": false}]", false, true));
    ck_assert(equal_text("{\"a\": [1.0]}", "{\"a\": [1]}", false, false));
}
END_TEST

START_TEST(lenient_no_coercion)
{
    ck_assert(!equal_text("\"1\"", "1", false, true));
    ck_assert(!equal_text("\"true\"", "true", false, true));
    ck_assert(!equal_text("null", "0", false, true));
    ck_assert(!equal_text("null", "false", false, true));
    ck_assert(!equal_text("null", "\"\"", false, true));
    ck_assert(equal_text("null", "null", false, true));
    ck_assert(!equal_text("\"NYC\"", "\"nyc\"", false, true));
    ck_assert(!equal_text("[]", "{}", false, true));
    ck_assert(!equal_text("[1, 2]", "[2, 1]", false, true));
    ck_assert(!equal_text("[1, 2]", "[1, 2, 3]", false, true));
    ck_assert(!equal_text("{\"a\": 1}", "{\"a\": 1, \"b\": 2}", false, true));
    ck_assert(!equal_text("{\"a\": 1}", "{\"b\": 1}", false, true));
    ck_assert(equal_text("{\"a\": 1, \"b\": 2}", "{\"b\": 2, \"a\": 1}", false, true));
}
END_TEST

START_TEST(large_integers_top_level_as_doubles)
{
    /* A top-level argument value: equal as doubles is equal (2^53 + 1 is not
     * representable and rounds to 2^53), as the reference's float(e) ==
     * float(a). */
    ck_assert(equal_text("9007199254740993", "9007199254740992", false, true));
    ck_assert(equal_text("9007199254740993", "9007199254740992.0", false, true));
    ck_assert(equal_text("9007199254740992", "9007199254740992.0", false, true));
    ck_assert(!equal_text("9007199254740994", "9007199254740992", false, true));
    ck_assert(equal_text("9223372036854775807", "9223372036854775807", false, true));
    ck_assert(equal_text("9223372036854775807", "9223372036854775806", false, true));
    ck_assert(equal_text("9223372036854775807", "9223372036854775808.0", false, true));
    ck_assert(equal_text("-9223372036854775808", "-9223372036854775808.0", false, true));
    ck_assert(equal_text("-9223372036854775808", "-9223372036854775807", false, true));
    ck_assert(equal_text("18446744073709551615", "18446744073709551615", false, true));
    ck_assert(equal_text("18446744073709551615", "18446744073709551614", false, true));
    ck_assert(equal_text("18446744073709551615", "18446744073709551616.0", false, true));
    ck_assert(!equal_text("18446744073709551615", "9223372036854775807", false, true));
    ck_assert(equal_text("9223372036854775808", "9223372036854775808.0", false, true));
    ck_assert(equal_text("9223372036854775808", "9223372036854775807", false, true));
    ck_assert(!equal_text("1e300", "9223372036854775807", false, true));
    ck_assert(!equal_text("1", "2", false, true));
    ck_assert(equal_text("true", "1.0", false, true));
    ck_assert(equal_text("0", "-0.0", false, true));
}
END_TEST

START_TEST(large_integers_exact_inside_containers_and_strict)
{
    /* Inside an array or object numbers compare exactly. */
    ck_assert(!equal_text("9007199254740993", "9007199254740992", false, false));
    ck_assert(!equal_text("9007199254740993", "9007199254740992.0", false, false));
    ck_assert(equal_text("9007199254740992", "9007199254740992.0", false, false));
    ck_assert(!equal_text("[9007199254740993]", "[9007199254740992]", false, true));
    ck_assert(!equal_text("{\"n\": 9007199254740993}", "{\"n\": 9007199254740992}", false, true));
    ck_assert(!equal_text("[18446744073709551615]", "[18446744073709551614]", false, true));
    ck_assert(
        !equal_text("{\"n\": 9223372036854775807}", "{\"n\": 9223372036854775808.0}", false, true));
    ck_assert(equal_text("[9007199254740992]", "[9007199254740992.0]", false, true));
    /* Strict: exact at every level. */
    ck_assert(equal_text("9007199254740993", "9007199254740993", true, true));
    ck_assert(!equal_text("9007199254740993", "9007199254740992", true, true));
    ck_assert(!equal_text("18446744073709551615", "18446744073709551614", true, true));
    ck_assert(!equal_text("9007199254740992", "9007199254740992.0", true, true));
}
END_TEST

START_TEST(large_integers_in_scores)
{
    /* The argument metric follows the value comparison; the trajectory's
     * step match is deep equality, exact for these. */
    ts_score_result r = eval_default("[{\"tool\": \"t\", \"args\": {\"n\": 9007199254740993}}]",
                                     "[{\"tool\": \"t\", \"args\": {\"n\": 9007199254740992}}]");

    ck_assert_double_eq(r.argument_f1, 1.0);
    ck_assert_double_eq(r.step_match_rate, 0.0);
    ck_assert(r.passed);
    ts_score_result_free(&r);
    r = eval_default("[{\"tool\": \"t\", \"args\": {\"n\": 18446744073709551615}}]",
                     "[{\"tool\": \"t\", \"args\": {\"n\": 18446744073709551614}}]");
    ck_assert_double_eq(r.argument_f1, 1.0);
    ck_assert(r.passed);
    ts_score_result_free(&r);
    r = eval_default("[{\"tool\": \"t\", \"args\": {\"n\": [9007199254740993]}}]",
                     "[{\"tool\": \"t\", \"args\": {\"n\": [9007199254740992]}}]");
    ck_assert_double_eq(r.argument_f1, 0.0);
    ck_assert(!r.passed);
    ts_score_result_free(&r);
    r = eval_strict("[{\"tool\": \"t\", \"args\": {\"n\": 9007199254740993}}]",
                    "[{\"tool\": \"t\", \"args\": {\"n\": 9007199254740992}}]");
    ck_assert_double_eq(r.argument_f1, 0.0);
    ts_score_result_free(&r);
}
END_TEST

START_TEST(strict_types_must_match)
{
    ck_assert(!equal_text("1", "1.0", true, true));
    ck_assert(!equal_text("true", "1", true, true));
    ck_assert(!equal_text("false", "0", true, true));
    ck_assert(equal_text("1", "1", true, true));
    ck_assert(equal_text("1.5", "1.5", true, true));
    ck_assert(equal_text("true", "true", true, true));
    ck_assert(!equal_text("[1]", "[1.0]", true, true));
    ck_assert(!equal_text("{\"n\": 1}", "{\"n\": 1.0}", true, true));
    ck_assert(equal_text("{\"n\": [1, {\"m\": null}]}", "{\"n\": [1, {\"m\": null}]}", true, true));
    ck_assert(!equal_text("\" a\"", "\"a\"", true, true)); /* no trimming */
    ck_assert(!equal_text("null", "false", true, true));
}
END_TEST

START_TEST(trimming_only_top_level_strings)
{
    ck_assert(equal_text("\" NYC \"", "\"NYC\"", false, true));
    ck_assert(equal_text("\"NYC\"", "\"\\tNYC\\n\"", false, true));
    ck_assert(!equal_text("\" NYC \"", "\"NYC\"", false, false));
    ck_assert(!equal_text("[\" NYC\"]", "[\"NYC\"]", false, true));
    ck_assert(!equal_text("{\"c\": \"NYC \"}", "{\"c\": \"NYC\"}", false, true));
    ck_assert(!equal_text("\"N YC\"", "\"NYC\"", false, true)); /* inner space kept */
    ck_assert(equal_text("\"   \"", "\"\"", false, true));
}
END_TEST

START_TEST(trimming_unicode_whitespace)
{
    /* U+3000 ideographic space, U+00A0 no-break space, U+2028, U+0085,
     * U+1680, U+200A, U+001F (unit separator: Python strips it too) */
    ck_assert(equal_text("\"\\u3000NYC\\u00a0\"", "\"NYC\"", false, true));
    ck_assert(equal_text("\"\\u2028NYC\\u0085\"", "\"NYC\"", false, true));
    ck_assert(equal_text("\"\\u1680NYC\\u200a\\u001f\"", "\"NYC\"", false, true));
    /* U+200B zero-width space is not whitespace for str.strip() */
    ck_assert(!equal_text("\"\\u200bNYC\"", "\"NYC\"", false, true));
    /* non-ASCII content itself is compared byte for byte */
    ck_assert(equal_text("\" Zürich \"", "\"Zürich\"", false, true));
    ck_assert(!equal_text("\"Zurich\"", "\"Zürich\"", false, true));
    ck_assert(equal_text("\"東京\\u3000\"", "\"東京\"", false, true));
    ck_assert(!equal_text("\"\\u3000東京\"", "\"東京\"", true, true));
}
END_TEST

START_TEST(trimmed_match_counts_in_score)
{
    ts_score_result r = eval_default("[{\"tool\":\"a\",\"args\":{\"city\":\"NYC\"}}]",
                                     "[{\"tool\":\"a\",\"args\":{\"city\":\" NYC \"}}]");
    ck_assert(r.argument_f1 == 1.0);
    /* the trajectory step uses deep equality without trimming */
    ck_assert(r.step_match_rate == 0.0);
    ts_score_result_free(&r);

    r = eval_strict("[{\"tool\":\"a\",\"args\":{\"city\":\"NYC\"}}]",
                    "[{\"tool\":\"a\",\"args\":{\"city\":\" NYC \"}}]");
    ck_assert(r.argument_f1 == 0.0);
    ts_score_result_free(&r);

    r = eval_default("[{\"tool\":\"a\",\"args\":{\"c\":[\"NYC\"]}}]",
                     "[{\"tool\":\"a\",\"args\":{\"c\":[\" NYC\"]}}]");
    ck_assert(r.argument_f1 == 0.0);
    ts_score_result_free(&r);
}
END_TEST

START_TEST(strict_ignored_by_trajectory)
{
    ts_score_result r = eval_strict("[{\"tool\":\"a\",\"args\":{\"x\":true}}]",
                                    "[{\"tool\":\"a\",\"args\":{\"x\":1}}]");
    ck_assert(r.argument_f1 == 0.0);
    ck_assert(r.step_match_rate == 1.0);
    ck_assert(r.trajectory_accuracy == 1.0);
    ts_score_result_free(&r);
}
END_TEST

/* ---- names, sets, repeats ---- */

START_TEST(tool_names_case_sensitive)
{
    ts_score_result r = eval_default("[{\"tool\":\"Search\"}]", "[{\"tool\":\"search\"}]");
    ck_assert(r.selection_accuracy == 0.0);
    ck_assert(r.edit_distance == 1.0);
    assert_list(r.missing_tools, "[\"Search\"]");
    assert_list(r.extra_tools, "[\"search\"]");
    ts_score_result_free(&r);
}
END_TEST

START_TEST(unicode_tool_names_sorted_by_code_point)
{
    ts_score_result r = eval_default(
        "[{\"tool\":\"été\"},{\"tool\":\"zed\"},{\"tool\":\"Été\"},{\"tool\":\"東京\"}]",
        "[{\"tool\":\"东京\"},{\"tool\":\"zed\"},{\"tool\":\"été\"}]");
    assert_list(r.expected_tools, "[\"zed\",\"Été\",\"été\",\"東京\"]");
    assert_list(r.called_tools, "[\"zed\",\"été\",\"东京\"]");
    assert_list(r.missing_tools, "[\"Été\",\"東京\"]");
    assert_list(r.extra_tools, "[\"东京\"]");
    ck_assert_double_eq_tol(r.selection_accuracy, 2.0 / 3.0, TOL);
    ck_assert_double_eq_tol(r.tool_correctness, 0.5, TOL);
    /* correct 2, penalty 1 + 2 = 3: (2 - 1.5) / 4 */
    ck_assert(r.invocation_accuracy == 0.125);
    ts_score_result_free(&r);
}
END_TEST

START_TEST(repeated_tools_are_redundant)
{
    ts_score_result r =
        eval_default("[{\"tool\":\"a\"}]", "[{\"tool\":\"a\"},{\"tool\":\"a\"},{\"tool\":\"a\"}]");
    ck_assert_int_eq(r.redundant_count, 2);
    ck_assert_int_eq(r.total_calls, 3);
    ck_assert(r.redundant_rate == 2.0 / 3.0);
    ck_assert(r.selection_accuracy == 1.0);
    ck_assert(r.invocation_accuracy == 1.0);
    ck_assert(r.edit_distance == 2.0);
    ck_assert(r.argument_f1 == 1.0);
    ck_assert(r.step_match_rate == 1.0);
    ck_assert(r.path_efficiency == 1.0 / 3.0);
    ck_assert(r.trajectory_accuracy == 1.0 / 3.0);
    ck_assert_double_eq_tol(r.score, 0.4 + 0.3 + 0.2 * (1.0 / 3.0) + 0.1 * (1.0 / 3.0), TOL);
    ts_score_result_free(&r);
}
END_TEST

START_TEST(redundancy_counts_per_tool)
{
    /* a: 3 vs 1 -> 2; b: 1 vs 2 -> 0; c: 2 vs 0 -> 2 */
    ts_score_result r = eval_default(
        "[{\"tool\":\"a\"},{\"tool\":\"b\"},{\"tool\":\"b\"}]",
        "[{\"tool\":\"a\"},{\"tool\":\"a\"},{\"tool\":\"b\"},{\"tool\":\"c\"},{\"tool\":\"a\"},"
        "{\"tool\":\"c\"}]");
    ck_assert_int_eq(r.redundant_count, 4);
    ck_assert(r.redundant_rate == 4.0 / 6.0);
    ck_assert(r.selection_accuracy == 4.0 / 6.0);
    ts_score_result_free(&r);
}
END_TEST

START_TEST(invocation_accuracy_formula)
{
    ts_score_result r = eval_default("[{\"tool\":\"a\"},{\"tool\":\"b\"},{\"tool\":\"c\"}]",
                                     "[{\"tool\":\"a\"},{\"tool\":\"b\"},{\"tool\":\"d\"}]");
    ck_assert(r.invocation_accuracy == (2 - 0.5 * 2) / 3.0);
    ts_score_result_free(&r);
    r = eval_default("[{\"tool\":\"a\"}]", "[{\"tool\":\"a\"},{\"tool\":\"x\"},{\"tool\":\"y\"},"
                                           "{\"tool\":\"z\"}]");
    ck_assert(r.invocation_accuracy == 0.0); /* (1 - 1.5) / 1 clamped */
    ts_score_result_free(&r);
}
END_TEST

START_TEST(trajectory_positions)
{
    ts_score_result r =
        eval_default("[{\"tool\":\"a\",\"args\":{\"x\":1}},{\"tool\":\"b\"},{\"tool\":\"c\","
                     "\"args\":{\"y\":2}}]",
                     "[{\"tool\":\"a\",\"args\":{\"x\":1.0,\"z\":0}},{\"tool\":\"c\"}]");
    /* step 0 matches (number by value, extra key), step 1 b != c */
    ck_assert(r.step_match_rate == 1.0 / 3.0);
    ck_assert(r.path_efficiency == 1.0);
    ck_assert(r.trajectory_accuracy == 1.0 / 3.0);
    ts_score_result_free(&r);
}
END_TEST

/* ---- weights ---- */

static void assert_weights_error(const char *text, const char *needle)
{
    struct json_object *o = util_json_c_parse(text);
    ts_weights w;
    ts_error err;
    int rc = ts_weights_from_json(o, &w, &err);

    ck_assert_msg(rc == -EINVAL, "weights %s accepted", text);
    ck_assert_str_eq(err.code, TS_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err.message, needle) != NULL, "message '%s' lacks '%s'", err.message,
                  needle);
    json_object_put(o);
}

START_TEST(weights_invalid)
{
    assert_weights_error("{\"speed\": 1}", "speed");
    assert_weights_error("{\"Selection_accuracy\": 1}", "Selection_accuracy");
    assert_weights_error("{\"argument_f1\": -0.1}", "argument_f1");
    assert_weights_error("{\"sequence_accuracy\": \"0.5\"}", "sequence_accuracy");
    assert_weights_error("{\"redundant_rate\": true}", "redundant_rate");
    assert_weights_error("{\"redundant_rate\": null}", "redundant_rate");
    assert_weights_error("{\"selection_accuracy\": 0, \"argument_f1\": 0, "
                         "\"sequence_accuracy\": 0, \"redundant_rate\": 0}",
                         "sum to 0");
    assert_weights_error("[1, 2]", "object");
    assert_weights_error("0.5", "object");
    assert_weights_error("{\"selection_accuracy\": 1e308, \"argument_f1\": 1e308}", "too large");
}
END_TEST

START_TEST(weights_nan_and_infinity)
{
    double bad[] = {NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < 3; i++) {
        struct json_object *o = json_object_new_object();
        ts_weights w;
        ts_error err;
        json_object_object_add(o, "argument_f1", json_object_new_double(bad[i]));
        ck_assert_int_eq(ts_weights_from_json(o, &w, &err), -EINVAL);
        ck_assert_ptr_nonnull(strstr(err.message, "argument_f1"));
        json_object_put(o);
    }
}
END_TEST

START_TEST(weights_normalized)
{
    ts_weights w;

    weights_json("{\"argument_f1\": 0}", &w);
    ck_assert(w.selection_accuracy == 0.4 / 0.7000000000000001);
    ck_assert(w.argument_f1 == 0.0);
    ck_assert(w.sequence_accuracy == 0.2 / 0.7000000000000001);
    ck_assert(w.redundant_rate == 0.1 / 0.7000000000000001);

    weights_json("{\"selection_accuracy\": 2, \"argument_f1\": 2, \"sequence_accuracy\": 2, "
                 "\"redundant_rate\": 2}",
                 &w);
    ck_assert(w.selection_accuracy == 0.25 && w.redundant_rate == 0.25);

    weights_json("{}", &w);
    ck_assert_double_eq_tol(w.selection_accuracy, 0.4, TOL);
    ck_assert_double_eq_tol(w.redundant_rate, 0.1, TOL);

    weights_json("{\"sequence_accuracy\": 3}", &w); /* 0.4 + 0.3 + 3 + 0.1 = 3.8 */
    ck_assert_double_eq_tol(w.sequence_accuracy, 3 / 3.8, TOL);
    ck_assert_double_eq_tol(w.argument_f1, 0.3 / 3.8, TOL);
}
END_TEST

START_TEST(weights_change_score)
{
    ts_score_options opt;
    ts_score_result r;

    ts_score_options_default(&opt);
    weights_json("{\"argument_f1\": 0}", &opt.weights);
    r = eval_opt("[{\"tool\":\"a\",\"args\":{\"x\":1}}]", "[{\"tool\":\"a\",\"args\":{\"x\":2}}]",
                 &opt);
    ck_assert_double_eq_tol(r.score, 1.0, TOL);
    ck_assert(r.passed);
    ts_score_result_free(&r);
}
END_TEST

START_TEST(evaluate_rejects_bad_weights_in_options)
{
    ts_score_options opt;
    ts_score_result r;
    ts_error err;
    struct json_object *g = util_json_c_parse("[]");

    ts_score_options_default(&opt);
    opt.weights.sequence_accuracy = -1;
    ck_assert_int_eq(ts_evaluate(g, g, &opt, &r, &err), -EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "sequence_accuracy"));
    json_object_put(g);
}
END_TEST

/* ---- threshold and grades ---- */

START_TEST(min_score_range)
{
    ts_error err;
    ck_assert_int_eq(ts_score_check_min(0.0, &err), 0);
    ck_assert_int_eq(ts_score_check_min(1.0, &err), 0);
    ck_assert_int_eq(ts_score_check_min(0.5, &err), 0);
    ck_assert_int_eq(ts_score_check_min(-0.01, &err), -EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "min_score"));
    ck_assert_int_eq(ts_score_check_min(1.01, &err), -EINVAL);
    ck_assert_int_eq(ts_score_check_min(NAN, &err), -EINVAL);
    ck_assert_int_eq(ts_score_check_min(INFINITY, &err), -EINVAL);
    ck_assert_int_eq(ts_score_check_min(1.0, NULL), 0);
    ck_assert_int_eq(ts_score_check_min(2.0, NULL), -EINVAL);
}
END_TEST

START_TEST(evaluate_rejects_bad_min_score)
{
    ts_score_options opt;
    ts_score_result r;
    ts_error err;
    struct json_object *g = util_json_c_parse("[]");

    ts_score_options_default(&opt);
    opt.min_score = 1.5;
    ck_assert_int_eq(ts_evaluate(g, g, &opt, &r, &err), -EINVAL);
    ck_assert_str_eq(err.code, TS_ERR_INVALID_ARGUMENT);
    json_object_put(g);
}
END_TEST

/* n calls of "a" out of ten expected as "a", scored by selection only. */
static ts_score_result selection_score(int hits, int total, double min_score)
{
    char gold[64], trace[4096];
    size_t len = 0;
    ts_score_options opt;

    snprintf(gold, sizeof(gold), "[{\"tool\":\"a\"}]");
    len += (size_t)snprintf(trace + len, sizeof(trace) - len, "[");
    for (int i = 0; i < total; i++)
        len += (size_t)snprintf(trace + len, sizeof(trace) - len, "%s{\"tool\":\"%s\"}",
                                i ? "," : "", i < hits ? "a" : "other");
    snprintf(trace + len, sizeof(trace) - len, "]");
    ts_score_options_default(&opt);
    weights_json("{\"selection_accuracy\":1,\"argument_f1\":0,\"sequence_accuracy\":0,"
                 "\"redundant_rate\":0}",
                 &opt.weights);
    opt.min_score = min_score;
    return eval_opt(gold, trace, &opt);
}

START_TEST(grade_boundaries)
{
    struct {
        int hits, total;
        char grade;
    } cases[] = {{10, 10, 'A'}, {9, 10, 'A'},   {89, 100, 'B'}, {8, 10, 'B'},   {79, 100, 'C'},
                 {7, 10, 'C'},  {69, 100, 'D'}, {6, 10, 'D'},   {59, 100, 'F'}, {0, 10, 'F'}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ts_score_result r = selection_score(cases[i].hits, cases[i].total, 0.0);
        ck_assert(r.score == (double)cases[i].hits / cases[i].total);
        ck_assert_msg(r.grade == cases[i].grade, "%d/%d graded %c", cases[i].hits, cases[i].total,
                      r.grade);
        ck_assert(r.passed); /* min_score 0 passes everything */
        ts_score_result_free(&r);
    }
}
END_TEST

START_TEST(threshold_epsilon)
{
    ts_score_result r = selection_score(9, 10, 0.9);
    ck_assert(r.passed);
    ck_assert(r.min_score == 0.9);
    ts_score_result_free(&r);
    r = selection_score(9, 10, 0.9 + 5e-10); /* within 1e-9 */
    ck_assert(r.passed);
    ts_score_result_free(&r);
    r = selection_score(9, 10, 0.9 + 2e-9);
    ck_assert(!r.passed);
    ts_score_result_free(&r);
    r = selection_score(89, 100, 0.9);
    ck_assert(!r.passed);
    ts_score_result_free(&r);
    r = selection_score(0, 10, 0.0);
    ck_assert(r.score == 0.0 && r.passed);
    ts_score_result_free(&r);
}
END_TEST

/* ---- validation ---- */

static void assert_calls_error(const char *text, const char *which, const char *message)
{
    struct json_object *v = util_json_c_parse(text);
    ts_error err;

    ck_assert_int_eq(ts_calls_validate(v, which, &err), -EINVAL);
    ck_assert_str_eq(err.code, TS_ERR_INVALID_CALLS);
    ck_assert_str_eq(err.message, message);
    json_object_put(v);
}

START_TEST(validate_messages)
{
    assert_calls_error("[{\"tool\":\"a\"}, 3]", NULL, "item at index 1 is not an object");
    assert_calls_error("[null]", NULL, "item at index 0 is not an object");
    assert_calls_error("[[]]", NULL, "item at index 0 is not an object");
    assert_calls_error("[{\"args\":{}}]", NULL, "item at index 0 is missing 'tool'");
    assert_calls_error("[{\"tool\":\"\"}]", NULL, "item at index 0 is missing 'tool'");
    assert_calls_error("[{\"tool\":null}]", NULL, "item at index 0 is missing 'tool'");
    assert_calls_error("[{\"tool\":\"a\"},{\"tool\":7}]", NULL,
                       "item at index 1 is missing 'tool'");
    assert_calls_error("[{\"tool\":\"a\"},{\"tool\":7}]", "expected",
                       "expected: item at index 1 is missing 'tool'");
    assert_calls_error("[{\"tool\":\"a\",\"args\":[1]}]", NULL,
                       "item at index 0 has 'args' that is not an object");
    assert_calls_error("{\"tool\":\"a\"}", "expected",
                       "expected must be a list of calls, got an object");
    assert_calls_error("\"calls\"", "expected", "expected must be a list of calls, got a string");
    assert_calls_error("null", "actual", "actual must be a list of calls, got null");
}
END_TEST

START_TEST(validate_accepts_good_lists)
{
    struct json_object *v =
        util_json_c_parse("[{\"tool\":\"a\"},{\"tool\":\"b\",\"args\":null},"
                          "{\"tool\":\"c\",\"args\":{},\"id\":\"x\",\"extra\":[1]}]");
    ts_error err;

    ck_assert_int_eq(ts_calls_validate(v, "expected", &err), 0);
    json_object_put(v);
    v = util_json_c_parse("[]");
    ck_assert_int_eq(ts_calls_validate(v, "expected", NULL), 0);
    json_object_put(v);
}
END_TEST

START_TEST(evaluate_validates_both_lists)
{
    struct json_object *good = util_json_c_parse("[{\"tool\":\"a\"}]");
    struct json_object *bad = util_json_c_parse("[{\"tool\":\"a\"},{}]");
    ts_score_result r;
    ts_error err;

    ck_assert_int_eq(ts_evaluate(bad, good, NULL, &r, &err), -EINVAL);
    ck_assert_str_eq(err.message, "expected: item at index 1 is missing 'tool'");
    ck_assert_int_eq(ts_evaluate(good, bad, NULL, &r, &err), -EINVAL);
    ck_assert_str_eq(err.message, "actual: item at index 1 is missing 'tool'");
    ck_assert_int_eq(ts_evaluate(NULL, good, NULL, &r, &err), -EINVAL);
    ck_assert_str_eq(err.message, "expected must be a list of calls, got null");
    ck_assert_int_eq(ts_evaluate(good, good, NULL, &r, NULL), 0); /* NULL options: defaults */
    ck_assert(r.passed);
    ts_score_result_free(&r);
    json_object_put(good);
    json_object_put(bad);
}
END_TEST

START_TEST(inputs_not_modified)
{
    const char *text = "[{\"tool\":\"a\",\"args\":{\"x\":\" 1 \"}},{\"tool\":\"b\"}]";
    struct json_object *g = util_json_c_parse(text),
                       *t = util_json_c_parse("[{\"tool\":\"b\",\"args\":null}]");
    char *before = strdup(json_object_to_json_string(g));
    ts_score_result r;

    ck_assert_int_eq(ts_evaluate(g, t, NULL, &r, NULL), 0);
    ck_assert_str_eq(json_object_to_json_string(g), before);
    ck_assert_str_eq(json_object_to_json_string_ext(t, JSON_C_TO_STRING_PLAIN),
                     "[{\"tool\":\"b\",\"args\":null}]");
    ts_score_result_free(&r);
    free(before);
    json_object_put(g);
    json_object_put(t);
}
END_TEST

/* ---- result JSON ---- */

START_TEST(result_json_keys)
{
    static const char *keys[] = {"score",
                                 "grade",
                                 "invocation_accuracy",
                                 "selection_accuracy",
                                 "argument_precision",
                                 "argument_recall",
                                 "argument_f1",
                                 "edit_distance",
                                 "normalized_distance",
                                 "sequence_accuracy",
                                 "redundant_count",
                                 "total_calls",
                                 "redundant_rate",
                                 "tool_correctness",
                                 "trajectory_accuracy",
                                 "step_match_rate",
                                 "path_efficiency",
                                 "expected_tools",
                                 "called_tools",
                                 "missing_tools",
                                 "extra_tools",
                                 "passed",
                                 "min_score"};
    ts_score_result r = eval_default("[{\"tool\":\"a\"},{\"tool\":\"b\"}]",
                                     "[{\"tool\":\"a\"},{\"tool\":\"a\"},{\"tool\":\"c\"}]");
    struct json_object *o = ts_score_result_to_json(&r);
    size_t i = 0;

    ck_assert_ptr_nonnull(o);
    ck_assert_int_eq(json_object_object_length(o), sizeof(keys) / sizeof(keys[0]));
    json_object_object_foreach(o, key, val)
    {
        (void)val;
        ck_assert_str_eq(key, keys[i++]);
    }
    ck_assert(json_object_is_type(json_object_object_get(o, "redundant_count"), json_type_int));
    ck_assert_int_eq(json_object_get_int64(json_object_object_get(o, "redundant_count")), 2);
    ck_assert_int_eq(json_object_get_int64(json_object_object_get(o, "total_calls")), 3);
    ck_assert(json_object_is_type(json_object_object_get(o, "edit_distance"), json_type_double));
    ck_assert(json_object_get_double(json_object_object_get(o, "edit_distance")) == 2.0);
    ck_assert(json_object_is_type(json_object_object_get(o, "score"), json_type_double));
    ck_assert(json_object_get_double(json_object_object_get(o, "score")) == r.score);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(o, "grade")), "D");
    ck_assert(!json_object_get_boolean(json_object_object_get(o, "passed")));
    ck_assert(json_object_get_double(json_object_object_get(o, "min_score")) == 1.0);
    assert_list(json_object_object_get(o, "missing_tools"), "[\"b\"]");
    assert_list(json_object_object_get(o, "extra_tools"), "[\"c\"]");
    assert_list(json_object_object_get(o, "expected_tools"), "[\"a\",\"b\"]");
    assert_list(json_object_object_get(o, "called_tools"), "[\"a\",\"c\"]");
    json_object_put(o);
    ts_score_result_free(&r);
    ts_score_result_free(&r); /* idempotent */
}
END_TEST

/* The key table: every key found by its name (and nothing else), each
 * pointing at a distinct member. */
START_TEST(result_key_table)
{
    ck_assert_uint_eq(ts_score_key_count, 23);
    for (size_t i = 0; i < ts_score_key_count; i++) {
        const char *name = ts_score_keys[i].name;

        ck_assert_ptr_eq(ts_score_key_find(name, strlen(name)), &ts_score_keys[i]);
        ck_assert_ptr_null(ts_score_key_find(name, strlen(name) - 1));
        for (size_t j = 0; j < i; j++)
            ck_assert_uint_ne(ts_score_keys[i].offset, ts_score_keys[j].offset);
    }
    ck_assert_ptr_null(ts_score_key_find("strict", 6)); /* not a reply member */
    ck_assert_ptr_null(ts_score_key_find("scored", 6));
}
END_TEST

/* Options are equal only when every member is: a cached score is never
 * reused for options that would score differently. */
START_TEST(options_equal_every_member)
{
    ts_score_options a, b;

    ts_score_options_default(&a);
    b = a;
    ck_assert(ts_score_options_equal(&a, &b));
    for (int member = 0; member < 6; member++) {
        b = a;
        switch (member) {
        case 0:
            b.weights.selection_accuracy += 0.1;
            break;
        case 1:
            b.weights.argument_f1 += 0.1;
            break;
        case 2:
            b.weights.sequence_accuracy += 0.1;
            break;
        case 3:
            b.weights.redundant_rate += 0.1;
            break;
        case 4:
            b.strict = true;
            break;
        default:
            b.min_score = 0.5;
            break;
        }
        ck_assert_msg(!ts_score_options_equal(&a, &b), "member %d", member);
        ck_assert_msg(!ts_score_options_equal(&b, &a), "member %d", member);
    }
}
END_TEST

/* ---- large inputs ---- */

static struct json_object *make_calls(size_t n, size_t names, size_t rotate)
{
    struct json_object *list = json_object_new_array();

    for (size_t k = 0; k < n; k++) {
        size_t i = (k + rotate) % n;
        char tool[32];
        struct json_object *call = json_object_new_object(), *args = json_object_new_object();
        snprintf(tool, sizeof(tool), "tool_%zu", i % names);
        json_object_object_add(call, "tool", json_object_new_string(tool));
        json_object_object_add(args, "i", json_object_new_int64((int64_t)i));
        json_object_object_add(call, "args", args);
        json_object_array_add(list, call);
    }
    return list;
}

START_TEST(thousand_calls_rotated)
{
    /* expected tool_0..tool_999, actual tool_1..tool_999, tool_0: every gold
     * call i >= 1 only has its partner before i, so only gold 0 pairs */
    struct json_object *g = make_calls(1000, 1000, 0), *t = make_calls(1000, 1000, 1);
    ts_score_result r;

    ck_assert_int_eq(ts_evaluate(g, t, NULL, &r, NULL), 0);
    ck_assert(r.edit_distance == 2.0);
    ck_assert(r.sequence_accuracy == 1.0 - 2.0 / 1000.0);
    ck_assert(r.selection_accuracy == 1.0);
    ck_assert(r.invocation_accuracy == 1.0);
    ck_assert(r.argument_precision == 1.0);
    ck_assert(r.argument_recall == 0.001);
    ck_assert(r.argument_f1 == 2 * 1.0 * 0.001 / (1.0 + 0.001));
    ck_assert_int_eq(r.redundant_count, 0);
    ck_assert(r.step_match_rate == 0.0);
    ck_assert_int_eq(json_object_array_length(r.expected_tools), 1000);
    ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(r.expected_tools, 0)),
                     "tool_0");
    ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(r.expected_tools, 1)),
                     "tool_1");
    ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(r.expected_tools, 2)),
                     "tool_10");
    ts_score_result_free(&r);
    json_object_put(g);
    json_object_put(t);
}
END_TEST

START_TEST(thousand_calls_identical_and_disjoint)
{
    struct json_object *g = make_calls(1000, 7, 0), *t = make_calls(1000, 7, 0);
    struct json_object *other = json_object_new_array();
    ts_score_result r;

    ck_assert_int_eq(ts_evaluate(g, t, NULL, &r, NULL), 0);
    ck_assert(r.edit_distance == 0.0);
    ck_assert(r.argument_f1 == 1.0);
    ck_assert_int_eq(r.redundant_count, 0);
    ck_assert_double_eq_tol(r.score, 1.0, TOL);
    ck_assert(r.passed);
    ts_score_result_free(&r);

    for (int i = 0; i < 1000; i++) {
        struct json_object *c = json_object_new_object();
        json_object_object_add(c, "tool", json_object_new_string(i % 2 ? "x" : "y"));
        json_object_array_add(other, c);
    }
    ck_assert_int_eq(ts_evaluate(g, other, NULL, &r, NULL), 0);
    ck_assert(r.edit_distance == 1000.0);
    ck_assert(r.sequence_accuracy == 0.0);
    ck_assert(r.selection_accuracy == 0.0);
    ck_assert_int_eq(r.redundant_count, 1000);
    ts_score_result_free(&r);
    json_object_put(g);
    json_object_put(t);
    json_object_put(other);
}
END_TEST

/* Full-matrix Levenshtein over single-letter tool names. */
static size_t reference_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    size_t *d = malloc((n + 1) * (m + 1) * sizeof(size_t));
    size_t out;

    for (size_t i = 0; i <= n; i++)
        d[i * (m + 1)] = i;
    for (size_t j = 0; j <= m; j++)
        d[j] = j;
    for (size_t i = 1; i <= n; i++) {
        for (size_t j = 1; j <= m; j++) {
            size_t best = d[(i - 1) * (m + 1) + j - 1] + (a[i - 1] != b[j - 1]);
            if (d[(i - 1) * (m + 1) + j] + 1 < best)
                best = d[(i - 1) * (m + 1) + j] + 1;
            if (d[i * (m + 1) + j - 1] + 1 < best)
                best = d[i * (m + 1) + j - 1] + 1;
            d[i * (m + 1) + j] = best;
        }
    }
    out = d[n * (m + 1) + m];
    free(d);
    return out;
}

START_TEST(levenshtein_matches_reference)
{
    unsigned seed = 12345;
    for (int round = 0; round < 300; round++) {
        char a[24], b[24];
        size_t n, m;
        seed = seed * 1103515245u + 12345u;
        n = (seed >> 16) % 20;
        seed = seed * 1103515245u + 12345u;
        m = (seed >> 16) % 20;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            a[i] = (char)('a' + (seed >> 16) % 4);
        }
        for (size_t i = 0; i < m; i++) {
            seed = seed * 1103515245u + 12345u;
            b[i] = (char)('a' + (seed >> 16) % 4);
        }
        a[n] = b[m] = '\0';
        struct json_object *g = util_calls_of_letters(a), *t = util_calls_of_letters(b);
        ts_score_result r;
        size_t want = reference_distance(a, b);
        size_t longest = n > m ? n : m;
        ck_assert_int_eq(ts_evaluate(g, t, NULL, &r, NULL), 0);
        ck_assert_msg(r.edit_distance == (double)want, "'%s' vs '%s': %g, want %zu", a, b,
                      r.edit_distance, want);
        ck_assert(r.normalized_distance == (double)want / (double)(longest ? longest : 1));
        ts_score_result_free(&r);
        json_object_put(g);
        json_object_put(t);
    }
}
END_TEST

/* ---- properties over random lists ---- */

static struct json_object *random_value(unsigned *seed, int depth)
{
    static const char *strings[] = {"NYC", " NYC ", "東京", "", "a b", "\t"};
    struct json_object *v;

    switch (util_next_random(seed) % (depth > 2 ? 6 : 8)) {
    case 0:
        return NULL;
    case 1:
        return json_object_new_boolean(util_next_random(seed) % 2);
    case 2:
        return json_object_new_int64((int64_t)(util_next_random(seed) % 3) - 1);
    case 3:
        return json_object_new_double((double)(util_next_random(seed) % 3) / 2.0);
    case 4:
    case 5:
        return json_object_new_string(strings[util_next_random(seed) % 6]);
    case 6:
        v = json_object_new_array();
        for (unsigned n = util_next_random(seed) % 3; n > 0; n--)
            json_object_array_add(v, random_value(seed, depth + 1));
        return v;
    default:
        v = json_object_new_object();
        for (unsigned n = util_next_random(seed) % 3; n > 0; n--) {
            char key[8];
            snprintf(key, sizeof(key), "k%u", util_next_random(seed) % 4);
            json_object_object_add(v, key, random_value(seed, depth + 1));
        }
        return v;
    }
}

/* A valid calls list: tools from a small set, args absent/null/{}/objects. */
static struct json_object *random_calls(unsigned *seed)
{
    struct json_object *list = json_object_new_array();

    for (unsigned n = util_next_random(seed) % 7; n > 0; n--) {
        struct json_object *c = json_object_new_object();
        char tool[8];
        unsigned shape = util_next_random(seed) % 4;
        snprintf(tool, sizeof(tool), "t%u", util_next_random(seed) % 4);
        json_object_object_add(c, "tool", json_object_new_string(tool));
        if (shape == 1)
            json_object_object_add(c, "args", NULL);
        else if (shape == 2)
            json_object_object_add(c, "args", json_object_new_object());
        else if (shape == 3) {
            struct json_object *args = json_object_new_object();
            for (unsigned k = util_next_random(seed) % 4; k > 0; k--) {
                char key[8];
                snprintf(key, sizeof(key), "a%u", util_next_random(seed) % 4);
                json_object_object_add(args, key, random_value(seed, 0));
            }
            json_object_object_add(c, "args", args);
        }
        json_object_array_add(list, c);
    }
    return list;
}

static bool unit(double v)
{
    return v >= 0.0 && v <= 1.0;
}

START_TEST(baseline_passes_its_own_replay)
{
    unsigned seed = 99;
    for (int round = 0; round < 400; round++) {
        struct json_object *g = random_calls(&seed), *t = NULL;
        ts_score_options opt;
        ts_score_result r;
        ck_assert_int_eq(json_object_deep_copy(g, &t, NULL), 0);
        ts_score_options_default(&opt);
        opt.strict = round % 2;
        ck_assert_int_eq(ts_evaluate(g, t, &opt, &r, NULL), 0);
        ck_assert_msg(r.passed, "round %d: %s scored %.17g", round, json_object_to_json_string(g),
                      r.score);
        ck_assert(r.score >= 0.9999999999999999 && r.score <= 1.0);
        ck_assert(r.argument_f1 == 1.0 && r.sequence_accuracy == 1.0);
        ck_assert(r.trajectory_accuracy == 1.0);
        ck_assert_int_eq(r.grade, 'A');
        ts_score_result_free(&r);
        json_object_put(g);
        json_object_put(t);
    }
}
END_TEST

START_TEST(metrics_stay_in_range)
{
    unsigned seed = 4242;
    for (int round = 0; round < 1000; round++) {
        struct json_object *g = random_calls(&seed), *t = random_calls(&seed);
        ts_score_options opt;
        ts_score_result r;
        ts_score_options_default(&opt);
        opt.strict = round % 3 == 0;
        opt.min_score = (double)(round % 11) / 10.0;
        ck_assert_int_eq(ts_evaluate(g, t, &opt, &r, NULL), 0);
        ck_assert(unit(r.score) && unit(r.invocation_accuracy) && unit(r.selection_accuracy));
        ck_assert(unit(r.argument_precision) && unit(r.argument_recall) && unit(r.argument_f1));
        ck_assert(unit(r.normalized_distance) && unit(r.sequence_accuracy));
        ck_assert(unit(r.redundant_rate) && unit(r.tool_correctness));
        ck_assert(unit(r.trajectory_accuracy) && unit(r.step_match_rate) &&
                  unit(r.path_efficiency));
        ck_assert(r.sequence_accuracy + r.normalized_distance == 1.0);
        ck_assert_int_eq(r.total_calls, (int64_t)json_object_array_length(t));
        ck_assert(r.redundant_count <= r.total_calls);
        ck_assert(r.passed == (r.score >= fmax(0.0, opt.min_score - 1e-9)));
        ck_assert(r.grade == (r.score >= 0.9   ? 'A'
                              : r.score >= 0.8 ? 'B'
                              : r.score >= 0.7 ? 'C'
                              : r.score >= 0.6 ? 'D'
                                               : 'F'));
        ck_assert_uint_eq(
            json_object_array_length(r.missing_tools) + json_object_array_length(r.extra_tools) +
                2 * (json_object_array_length(r.expected_tools) -
                     json_object_array_length(r.missing_tools)),
            json_object_array_length(r.expected_tools) + json_object_array_length(r.called_tools));
        ts_score_result_free(&r);
        json_object_put(g);
        json_object_put(t);
    }
}
END_TEST

START_TEST(garbage_is_refused_cleanly)
{
    unsigned seed = 7;
    int refused = 0;
    for (int round = 0; round < 2000; round++) {
        struct json_object *g = random_value(&seed, 0), *t = random_calls(&seed);
        ts_score_result r;
        ts_error err;
        int rc = ts_evaluate(g, t, NULL, &r, &err);
        if (rc == 0) {
            /* only an actual list of calls can be accepted */
            ck_assert(json_object_is_type(g, json_type_array));
            ts_score_result_free(&r);
        } else {
            ck_assert_int_eq(rc, -EINVAL);
            ck_assert_str_eq(err.code, TS_ERR_INVALID_CALLS);
            ck_assert(strlen(err.message) > 0);
            refused++;
        }
        json_object_put(g);
        json_object_put(t);
    }
    ck_assert_int_gt(refused, 1000);
}
END_TEST

START_TEST(weights_null_means_defaults)
{
    ts_weights w;
    ts_error err;

    ck_assert_int_eq(ts_weights_from_json(NULL, &w, &err), 0);
    ck_assert(w.selection_accuracy == 0.4 && w.argument_f1 == 0.3);
    ck_assert(w.sequence_accuracy == 0.2 && w.redundant_rate == 0.1);
}
END_TEST

START_TEST(evaluate_rejects_zero_weights)
{
    ts_score_options opt;
    ts_score_result r;
    ts_error err;
    struct json_object *g = util_json_c_parse("[]");

    ts_score_options_default(&opt);
    memset(&opt.weights, 0, sizeof(opt.weights));
    ck_assert_int_eq(ts_evaluate(g, g, &opt, &r, &err), -EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "sum to 0"));
    json_object_put(g);
}
END_TEST

/* The plain O(n*m) table over tool names: the definition the scorer's
 * bit-parallel distance must agree with. */
static size_t plain_distance(char *const *a, size_t n, char *const *b, size_t m)
{
    size_t *row = malloc((m + 1) * sizeof(*row));
    size_t d;

    ck_assert_ptr_nonnull(row);
    for (size_t j = 0; j <= m; j++)
        row[j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t up = row[j];
            size_t best = diagonal + (strcmp(a[i - 1], b[j - 1]) != 0);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diagonal = up;
        }
    }
    d = row[m];
    free(row);
    return d;
}

/* n random tool names drawn from an alphabet of k, as names and as calls. */
static struct json_object *random_named_calls(unsigned *seed, size_t n, unsigned k, char **names)
{
    struct json_object *calls = json_object_new_array();

    for (size_t i = 0; i < n; i++) {
        char tool[32];
        struct json_object *call = json_object_new_object();
        snprintf(tool, sizeof(tool), "t%u", (unsigned)rand_r(seed) % k);
        names[i] = strdup(tool);
        json_object_object_add(call, "tool", json_object_new_string(tool));
        json_object_array_add(calls, call);
    }
    return calls;
}

/* edit_distance over lengths around the 64-call word size and across many
 * blocks, small and large alphabets, shared prefixes and suffixes: equal to
 * the plain table every time. */
START_TEST(edit_distance_matches_the_plain_table)
{
    static const size_t lengths[] = {0, 1, 2, 63, 64, 65, 127, 128, 129, 300};
    static const unsigned alphabets[] = {1, 2, 4, 200};
    unsigned seed = 20261130;
    size_t cases = 0;

    for (size_t x = 0; x < sizeof(lengths) / sizeof(lengths[0]); x++) {
        for (size_t y = 0; y < sizeof(lengths) / sizeof(lengths[0]); y++) {
            for (size_t z = 0; z < sizeof(alphabets) / sizeof(alphabets[0]); z++) {
                size_t n = lengths[x], m = lengths[y];
                char **a = calloc(n + 1, sizeof(char *)), **b = calloc(m + 1, sizeof(char *));
                struct json_object *gold = random_named_calls(&seed, n, alphabets[z], a);
                struct json_object *trace = random_named_calls(&seed, m, alphabets[z], b);
                ts_score_result r;
                ts_error err;

                if (n == m && n > 4 && z % 2 == 0) { /* a drifted copy: prefix and suffix shared */
                    json_object_put(trace);
                    trace = NULL;
                    ck_assert_int_eq(json_object_deep_copy(gold, &trace, NULL), 0);
                    for (size_t i = 0; i < m; i++) {
                        free(b[i]);
                        b[i] = strdup(a[i]);
                    }
                    json_object_object_add(json_object_array_get_idx(trace, m / 2), "tool",
                                           json_object_new_string("drift"));
                    free(b[m / 2]);
                    b[m / 2] = strdup("drift");
                }
                ck_assert_int_eq(ts_evaluate(gold, trace, NULL, &r, &err), 0);
                ck_assert_msg(r.edit_distance == (double)plain_distance(a, n, b, m),
                              "%zu vs %zu calls, alphabet %u: %g, table %zu", n, m, alphabets[z],
                              r.edit_distance, plain_distance(a, n, b, m));
                ts_score_result_free(&r);
                json_object_put(gold);
                json_object_put(trace);
                for (size_t i = 0; i < n; i++)
                    free(a[i]);
                for (size_t i = 0; i < m; i++)
                    free(b[i]);
                free(a);
                free(b);
                cases++;
            }
        }
    }
    ck_assert_uint_eq(cases, 400);
}
END_TEST

static Suite *score_suite(void)
{
    Suite *s = suite_create("score");
    TCase *tc = tcase_create("examples");

    tcase_add_test(tc, example_perfect_match);
    tcase_add_test(tc, result_key_table);
    tcase_add_test(tc, options_equal_every_member);
    tcase_add_test(tc, example_wrong_value);
    tcase_add_test(tc, example_selection_only_weights);
    tcase_add_test(tc, example_int_float_lenient_and_strict);
    tcase_add_test(tc, example_swapped_order);
    tcase_add_test(tc, example_args_absent_is_unchecked);
    tcase_add_test(tc, example_empty_args_expects_none);
    suite_add_tcase(s, tc);

    tc = tcase_create("metrics");
    tcase_add_test(tc, both_empty_is_perfect);
    tcase_add_test(tc, expected_empty_actual_not);
    tcase_add_test(tc, actual_empty_expected_not);
    tcase_add_test(tc, expected_args_null_is_unchecked);
    tcase_add_test(tc, expected_empty_args_met_by_absent_or_null);
    tcase_add_test(tc, expected_args_but_actual_absent);
    tcase_add_test(tc, unchecked_call_without_partner_is_not_vacuous);
    tcase_add_test(tc, extra_actual_keys_lower_precision);
    tcase_add_test(tc, missing_key_lowers_recall);
    tcase_add_test(tc, two_gold_calls_share_one_trace_call);
    tcase_add_test(tc, earlier_trace_call_never_partners);
    tcase_add_test(tc, partner_is_first_at_or_after);
    tcase_add_test(tc, tool_names_case_sensitive);
    tcase_add_test(tc, unicode_tool_names_sorted_by_code_point);
    tcase_add_test(tc, repeated_tools_are_redundant);
    tcase_add_test(tc, redundancy_counts_per_tool);
    tcase_add_test(tc, invocation_accuracy_formula);
    tcase_add_test(tc, trajectory_positions);
    suite_add_tcase(s, tc);

    tc = tcase_create("values");
    tcase_add_test(tc, lenient_numbers_by_value);
    tcase_add_test(tc, lenient_no_coercion);
    tcase_add_test(tc, large_integers_top_level_as_doubles);
    tcase_add_test(tc, large_integers_exact_inside_containers_and_strict);
    tcase_add_test(tc, large_integers_in_scores);
    tcase_add_test(tc, strict_types_must_match);
    tcase_add_test(tc, trimming_only_top_level_strings);
    tcase_add_test(tc, trimming_unicode_whitespace);
    tcase_add_test(tc, trimmed_match_counts_in_score);
    tcase_add_test(tc, strict_ignored_by_trajectory);
    suite_add_tcase(s, tc);

    tc = tcase_create("options");
    tcase_add_test(tc, weights_invalid);
    tcase_add_test(tc, weights_nan_and_infinity);
    tcase_add_test(tc, weights_normalized);
    tcase_add_test(tc, weights_change_score);
    tcase_add_test(tc, evaluate_rejects_bad_weights_in_options);
    tcase_add_test(tc, min_score_range);
    tcase_add_test(tc, evaluate_rejects_bad_min_score);
    tcase_add_test(tc, grade_boundaries);
    tcase_add_test(tc, threshold_epsilon);
    suite_add_tcase(s, tc);

    tc = tcase_create("validation");
    tcase_add_test(tc, validate_messages);
    tcase_add_test(tc, validate_accepts_good_lists);
    tcase_add_test(tc, evaluate_validates_both_lists);
    tcase_add_test(tc, inputs_not_modified);
    tcase_add_test(tc, result_json_keys);
    suite_add_tcase(s, tc);

    tc = tcase_create("large");
    tcase_add_test(tc, thousand_calls_rotated);
    tcase_add_test(tc, thousand_calls_identical_and_disjoint);
    tcase_add_test(tc, levenshtein_matches_reference);
    suite_add_tcase(s, tc);

    tc = tcase_create("properties");
    tcase_add_test(tc, baseline_passes_its_own_replay);
    tcase_add_test(tc, metrics_stay_in_range);
    tcase_add_test(tc, garbage_is_refused_cleanly);
    tcase_add_test(tc, weights_null_means_defaults);
    tcase_add_test(tc, evaluate_rejects_zero_weights);
    tcase_add_test(tc, edit_distance_matches_the_plain_table);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return util_run_suite(score_suite());
}
