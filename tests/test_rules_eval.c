/*
 * test_rules_eval — scoring under comparison rules (docs/rules.md): ignore
 * (an ignored path absent on both sides, array elements too), tools,
 * redact, each matcher (regex, approx, set, type; relaxing only what they
 * name), each order mode (repeated tool names in unordered mode, ties,
 * superset with extras, subset with an empty actual), what the rules
 * report having done and the drift report under them. The properties and
 * the brute-force check of the assignment are test_rules_property.c.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"
#include "lib/report/ts_report.h"
#include "lib/rules/ts_rules.h"
#include "lib/score/ts_score.h"
#include "util_rules.h"
#include "util_test.h"

#define PERFECT 0.9999999999999999

static double score_of(const char *rules, const char *expected, const char *actual)
{
    util_rules_outcome o = util_rules_run(rules, expected, actual, NULL);
    double s = o.result.score;

    util_rules_done(&o);
    return s;
}

static double plain_score(const char *expected, const char *actual)
{
    return score_of(NULL, expected, actual);
}

static char *compact(const struct json_object *v)
{
    return util_json_compact(v);
}

static void assert_list(const struct json_object *list, const char *want)
{
    char *text = compact(list);

    ck_assert_str_eq(text, want);
    free(text);
}

static char *notes_of(const util_rules_outcome *o)
{
    ts_buf b;

    ts_buf_init(&b, 1 << 20);
    ck_assert_int_eq(ts_rules_applied_notes(&o->applied, &b), 0);
    ck_assert_int_eq(ts_buf_appendc(&b, '\0'), 0);
    return ts_buf_detach(&b, NULL);
}

/* ---- ignore, tools, redact ----------------------------------------------- */

START_TEST(test_ignore_makes_volatile_ids_pass)
{
    const char *e = "[{\"tool\": \"search\", \"args\": {\"q\": \"w\", \"request_id\": \"r1\"}}]";
    const char *a = "[{\"tool\": \"search\", \"args\": {\"q\": \"w\", \"request_id\": \"r2\"}}]";
    util_rules_outcome o;
    char *notes;

    ck_assert_double_lt(plain_score(e, a), 0.95);
    o = util_rules_run("{\"ignore\": [\"*.args.request_id\"]}", e, a, NULL);
    ck_assert_double_eq(o.result.score, PERFECT);
    ck_assert(o.result.passed);
    ck_assert_double_eq(o.result.argument_f1, 1.0);
    assert_list(o.applied.expected, "[{\"tool\": \"search\", \"args\": {\"q\": \"w\"}}]");
    assert_list(o.applied.actual, "[{\"tool\": \"search\", \"args\": {\"q\": \"w\"}}]");
    notes = notes_of(&o);
    ck_assert_str_eq(notes, "ignored by rules: 1 value at *.args.request_id\n");
    free(notes);
    util_rules_done(&o);
}
END_TEST

START_TEST(test_ignored_key_absent_on_one_side)
{
    /* as if the key were absent on both sides: missing or extra does not count */
    const char *e = "[{\"tool\": \"t\", \"args\": {\"x\": 1, \"ts\": 5}}]";
    const char *a = "[{\"tool\": \"t\", \"args\": {\"x\": 1}}]";
    util_rules_outcome o = util_rules_run("{\"ignore\": [\"t.args.ts\"]}", e, a, NULL);
    char *notes = notes_of(&o);

    ck_assert_double_eq(o.result.score, PERFECT);
    ck_assert_str_eq(notes,
                     "ignored by rules: 1 value at t.args.ts (1 in the baseline, 0 observed)\n");
    free(notes);
    util_rules_done(&o);
    ck_assert_double_eq(score_of("{\"ignore\": [\"t.args.ts\"]}", a, e), PERFECT);
    /* another tool's key of the same name is still compared */
    ck_assert_double_lt(score_of("{\"ignore\": [\"t.args.ts\"]}",
                                 "[{\"tool\": \"u\", \"args\": {\"ts\": 1}}]",
                                 "[{\"tool\": \"u\", \"args\": {\"ts\": 2}}]"),
                        0.95);
}
END_TEST

START_TEST(test_ignore_nested_and_array_elements)
{
    const char *rules = "{\"ignore\": [\"search.args.filters.**.ts\", \"*.args.trace[*].id\", "
                        "\"*.args.items[1]\"]}";
    const char *e = "[{\"tool\": \"search\", \"args\": {\"filters\": {\"ts\": 1, \"a\": {\"b\": "
                    "[{\"ts\": 2, \"k\": 1}]}}, \"trace\": [{\"id\": 1, \"s\": \"x\"}, {\"id\": 2, "
                    "\"s\": \"y\"}], \"items\": [1, 2, 3]}}]";
    const char *a = "[{\"tool\": \"search\", \"args\": {\"filters\": {\"ts\": 9, \"a\": {\"b\": "
                    "[{\"ts\": 8, \"k\": 1}]}}, \"trace\": [{\"id\": 7, \"s\": \"x\"}, {\"id\": 6, "
                    "\"s\": \"y\"}], \"items\": [1, 99, 3]}}]";
    util_rules_outcome o = util_rules_run(rules, e, a, NULL);

    ck_assert_double_eq(o.result.score, PERFECT);
    assert_list(o.applied.actual,
                "[{\"tool\": \"search\", \"args\": {\"filters\": {\"a\": {\"b\": [{\"k\": 1}]}}, "
                "\"trace\": [{\"s\": \"x\"}, {\"s\": \"y\"}], \"items\": [1, 3]}}]");
    ck_assert_uint_eq(o.applied.ignored[0][0], 2);
    ck_assert_uint_eq(o.applied.ignored[1][1], 2);
    ck_assert_uint_eq(o.applied.ignored[1][2], 1);
    util_rules_done(&o);
    /* an element removed from both arrays: the lengths still must agree */
    ck_assert_double_lt(score_of("{\"ignore\": [\"*.args.items[1]\"]}",
                                 "[{\"tool\": \"t\", \"args\": {\"items\": [1, 2, 3]}}]",
                                 "[{\"tool\": \"t\", \"args\": {\"items\": [1, 2]}}]"),
                        0.95);
    ck_assert_double_eq(score_of("{\"ignore\": [\"*.args.items[*]\"]}",
                                 "[{\"tool\": \"t\", \"args\": {\"items\": [1, 2, 3]}}]",
                                 "[{\"tool\": \"t\", \"args\": {\"items\": [4]}}]"),
                        PERFECT);
}
END_TEST

START_TEST(test_ignore_all_args)
{
    /* ignoring args itself: "don't check arguments" on the expected side */
    util_rules_outcome o = util_rules_run(
        "{\"ignore\": [\"book.args\"]}", "[{\"tool\": \"book\", \"args\": {\"x\": 1}}]",
        "[{\"tool\": \"book\", \"args\": {\"x\": 2, \"y\": 3}}]", NULL);

    ck_assert_double_eq(o.result.score, PERFECT);
    assert_list(o.applied.expected, "[{\"tool\": \"book\"}]");
    util_rules_done(&o);
}
END_TEST

START_TEST(test_tools_ignore_removes_calls_first)
{
    const char *e = "[{\"tool\": \"log_event\", \"args\": {\"m\": 1}}, {\"tool\": \"search\"}]";
    const char *a = "[{\"tool\": \"search\"}, {\"tool\": \"log_event\"}, {\"tool\": \"log_event\", "
                    "\"args\": {\"m\": 2}}]";
    util_rules_outcome o =
        util_rules_run("{\"tools\": {\"log_event\": {\"ignore\": true}}}", e, a, NULL);
    char *notes = notes_of(&o);

    ck_assert_double_eq(o.result.score, PERFECT);
    ck_assert_int_eq(o.result.total_calls, 1);
    assert_list(o.result.called_tools, "[\"search\"]");
    ck_assert_str_eq(notes,
                     "ignored by rules: 2 calls of log_event (1 in the baseline, 2 observed)\n");
    free(notes);
    util_rules_done(&o);
}
END_TEST

START_TEST(test_redact_applies_to_both_sides)
{
    /* a baseline recorded before the rule still compares */
    const char *e = "[{\"tool\": \"send\", \"args\": {\"to\": \"old@x\", \"key\": \"sk-old\"}}]";
    const char *a = "[{\"tool\": \"send\", \"args\": {\"to\": \"new@x\", \"key\": \"sk-new\"}}]";
    util_rules_outcome o =
        util_rules_run("{\"redact\": [\"*.args.key\", \"send.args.to\"]}", e, a, NULL);
    char *text = compact(o.applied.actual);

    ck_assert_double_eq(o.result.score, PERFECT);
    ck_assert_ptr_null(strstr(text, "sk-new"));
    ck_assert_str_eq(text, "[{\"tool\": \"send\", \"args\": {\"to\": \"[redacted]\", \"key\": "
                           "\"[redacted]\"}}]");
    free(text);
    text = compact(o.applied.expected);
    ck_assert_ptr_null(strstr(text, "sk-old"));
    free(text);
    util_rules_done(&o);
    /* a redacted key missing on one side is still missing */
    ck_assert_double_lt(score_of("{\"redact\": [\"*.args.key\"]}",
                                 "[{\"tool\": \"t\", \"args\": {\"key\": 1}}]",
                                 "[{\"tool\": \"t\", \"args\": {}}]"),
                        0.95);
}
END_TEST

/* ---- matchers ------------------------------------------------------------ */

START_TEST(test_regex_matcher)
{
    const char *rules = "{\"match\": {\"search.args.query\": {\"regex\": \"^weather in \"}}}";
    const char *e = "[{\"tool\": \"search\", \"args\": {\"query\": \"weather in Paris\", \"n\": "
                    "1}}]";
    util_rules_outcome o =
        util_rules_run(rules, e,
                       "[{\"tool\": \"search\", \"args\": {\"query\": \"weather in Paris today\", "
                       "\"n\": 1}}]",
                       NULL);
    char *notes = notes_of(&o);

    ck_assert_double_eq(o.result.score, PERFECT);
    ck_assert_double_eq(o.result.step_match_rate, 1.0);
    ck_assert_uint_eq(o.applied.match_passed[0], 1);
    ck_assert_str_eq(notes, "relaxed by rules: 1 value at search.args.query (regex)\n");
    free(notes);
    util_rules_done(&o);
    /* a failing value counts as a wrong argument, as an unequal one does */
    o = util_rules_run(
        rules, e, "[{\"tool\": \"search\", \"args\": {\"query\": \"Paris weather\", \"n\": 1}}]",
        NULL);
    ck_assert_double_eq(o.result.argument_precision, 0.5);
    ck_assert_double_eq(o.result.score,
                        plain_score(e, "[{\"tool\": \"search\", \"args\": {\"query\": \"x\", "
                                       "\"n\": 1}}]"));
    ck_assert_uint_eq(o.applied.match_failed[0], 1);
    notes = notes_of(&o);
    ck_assert_str_eq(notes,
                     "relaxed by rules: 1 value at search.args.query (regex), 1 not matching\n");
    free(notes);
    util_rules_done(&o);
    /* not anchored unless the expression anchors; a non-string fails */
    ck_assert_double_eq(score_of("{\"match\": {\"*.args.q\": {\"regex\": \"ell\"}}}",
                                 "[{\"tool\": \"t\", \"args\": {\"q\": \"x\"}}]",
                                 "[{\"tool\": \"t\", \"args\": {\"q\": \"hello\"}}]"),
                        PERFECT);
    ck_assert_double_lt(score_of("{\"match\": {\"*.args.q\": {\"regex\": \"1\"}}}",
                                 "[{\"tool\": \"t\", \"args\": {\"q\": \"x\"}}]",
                                 "[{\"tool\": \"t\", \"args\": {\"q\": 1}}]"),
                        0.95);
    /* POSIX extended syntax */
    ck_assert_double_eq(score_of("{\"match\": {\"*.args.q\": {\"regex\": \"^(ab|cd)+[0-9]{2}$\"}}}",
                                 "[{\"tool\": \"t\", \"args\": {\"q\": \"x\"}}]",
                                 "[{\"tool\": \"t\", \"args\": {\"q\": \"abcdab42\"}}]"),
                        PERFECT);
}
END_TEST

START_TEST(test_matchers_only_relax)
{
    /* equal values pass even when the matcher alone would refuse them */
    const char *same = "[{\"tool\": \"t\", \"args\": {\"q\": \"hello\", \"n\": true}}]";

    ck_assert_double_eq(
        score_of("{\"match\": {\"*.args.q\": {\"regex\": \"^nothing$\"}}}", same, same), PERFECT);
    ck_assert_double_eq(score_of("{\"match\": {\"*.args.n\": {\"approx\": 0}}}", same, same),
                        PERFECT);
    ck_assert_double_eq(score_of("{\"match\": {\"*.args.q\": {\"set\": true}}}", same, same),
                        PERFECT);
    /* lenient scoring's trimming still applies under a matcher */
    ck_assert_double_eq(score_of("{\"match\": {\"*.args.q\": {\"regex\": \"^nothing$\"}}}", same,
                                 "[{\"tool\": \"t\", \"args\": {\"q\": \" hello \", \"n\": 1}}]"),
                        PERFECT);
}
END_TEST

START_TEST(test_approx_matcher)
{
    const char *rules = "{\"match\": {\"*.args.temperature\": {\"approx\": 0.05}}}";
    const char *e = "[{\"tool\": \"llm\", \"args\": {\"temperature\": 0.7}}]";

    ck_assert_double_eq(score_of(rules, e,
                                 "[{\"tool\": \"llm\", \"args\": {\"temperature\": "
                                 "0.74}}]"),
                        PERFECT);
    ck_assert_double_eq(score_of(rules, e,
                                 "[{\"tool\": \"llm\", \"args\": {\"temperature\": "
                                 "0.66}}]"),
                        PERFECT);
    ck_assert_double_lt(score_of(rules, e,
                                 "[{\"tool\": \"llm\", \"args\": {\"temperature\": "
                                 "0.8}}]"),
                        0.95);
    ck_assert_double_lt(score_of(rules, e,
                                 "[{\"tool\": \"llm\", \"args\": {\"temperature\": "
                                 "\"0.7\"}}]"),
                        0.95);
    /* integers and floats; booleans are not numbers */
    ck_assert_double_eq(score_of("{\"match\": {\"*.args.n\": {\"approx\": 2}}}",
                                 "[{\"tool\": \"t\", \"args\": {\"n\": 10}}]",
                                 "[{\"tool\": \"t\", \"args\": {\"n\": 8.5}}]"),
                        PERFECT);
    ck_assert_double_lt(score_of("{\"match\": {\"*.args.n\": {\"approx\": 2}}}",
                                 "[{\"tool\": \"t\", \"args\": {\"n\": 0}}]",
                                 "[{\"tool\": \"t\", \"args\": {\"n\": true}}]"),
                        0.95);
    /* strict mode: approx 0 still forgives 1 versus 1.0 (it compares numbers) */
    {
        ts_score_options opt;
        util_rules_outcome o;
        ts_score_options_default(&opt);
        opt.strict = true;
        o = util_rules_run("{\"match\": {\"*.args.n\": {\"approx\": 0}}}",
                           "[{\"tool\": \"t\", \"args\": {\"n\": 1}}]",
                           "[{\"tool\": \"t\", \"args\": {\"n\": 1.0}}]", &opt);
        ck_assert_double_eq(o.result.score, PERFECT);
        util_rules_done(&o);
    }
}
END_TEST

START_TEST(test_set_matcher)
{
    const char *rules = "{\"match\": {\"plan.args.steps\": {\"set\": true}}}";
    const char *e = "[{\"tool\": \"plan\", \"args\": {\"steps\": [\"a\", \"b\", \"b\", 3]}}]";

    ck_assert_double_eq(score_of(rules, e,
                                 "[{\"tool\": \"plan\", \"args\": {\"steps\": [3, \"b\", "
                                 "\"a\", \"b\"]}}]"),
                        PERFECT);
    /* counts are kept */
    ck_assert_double_lt(score_of(rules, e,
                                 "[{\"tool\": \"plan\", \"args\": {\"steps\": [\"a\", "
                                 "\"a\", \"b\", 3]}}]"),
                        0.95);
    ck_assert_double_lt(score_of(rules, e,
                                 "[{\"tool\": \"plan\", \"args\": {\"steps\": [\"a\", "
                                 "\"b\", 3]}}]"),
                        0.95);
    /* elements compare as nested values: objects with keys in any order */
    ck_assert_double_eq(score_of(rules,
                                 "[{\"tool\": \"plan\", \"args\": {\"steps\": [{\"a\": 1, "
                                 "\"b\": 2}, {\"c\": 3}]}}]",
                                 "[{\"tool\": \"plan\", \"args\": {\"steps\": [{\"c\": 3}, {\"b\": "
                                 "2, \"a\": 1}]}}]"),
                        PERFECT);
    /* a nested matcher under a set element */
    ck_assert_double_eq(
        score_of("{\"match\": {\"t.args.xs\": {\"set\": true}, \"t.args.xs[*].v\": "
                 "{\"approx\": 0.5}}}",
                 "[{\"tool\": \"t\", \"args\": {\"xs\": [{\"v\": 1}, {\"v\": 5}]}}]",
                 "[{\"tool\": \"t\", \"args\": {\"xs\": [{\"v\": 5.2}, {\"v\": "
                 "1.1}]}}]"),
        PERFECT);
}
END_TEST

START_TEST(test_type_matcher)
{
    const char *rules = "{\"match\": {\"*.args.**.ts\": {\"type\": true}}}";

    ck_assert_double_eq(score_of(rules, "[{\"tool\": \"t\", \"args\": {\"ts\": \"2024-01-01\"}}]",
                                 "[{\"tool\": \"t\", \"args\": {\"ts\": \"2025-06-30\"}}]"),
                        PERFECT);
    ck_assert_double_eq(score_of(rules, "[{\"tool\": \"t\", \"args\": {\"ts\": 1}}]",
                                 "[{\"tool\": \"t\", \"args\": {\"ts\": 2.5}}]"),
                        PERFECT);
    ck_assert_double_lt(score_of(rules, "[{\"tool\": \"t\", \"args\": {\"ts\": 1}}]",
                                 "[{\"tool\": \"t\", \"args\": {\"ts\": \"1\"}}]"),
                        0.95);
    ck_assert_double_lt(score_of(rules, "[{\"tool\": \"t\", \"args\": {\"ts\": 1}}]",
                                 "[{\"tool\": \"t\", \"args\": {\"ts\": false}}]"),
                        0.95);
    /* nested: the other members of the argument must still be equal */
    ck_assert_double_eq(score_of(rules,
                                 "[{\"tool\": \"t\", \"args\": {\"m\": {\"ts\": 1, \"k\": "
                                 "\"a\"}}}]",
                                 "[{\"tool\": \"t\", \"args\": {\"m\": {\"ts\": 9, \"k\": "
                                 "\"a\"}}}]"),
                        PERFECT);
    ck_assert_double_lt(score_of(rules,
                                 "[{\"tool\": \"t\", \"args\": {\"m\": {\"ts\": 1, \"k\": "
                                 "\"a\"}}}]",
                                 "[{\"tool\": \"t\", \"args\": {\"m\": {\"ts\": 9, \"k\": "
                                 "\"b\"}}}]"),
                        0.95);
}
END_TEST

START_TEST(test_last_matcher_wins)
{
    /* two patterns name the value: the later one is used */
    const char *e = "[{\"tool\": \"t\", \"args\": {\"v\": 1}}]";
    const char *a = "[{\"tool\": \"t\", \"args\": {\"v\": 1.5}}]";

    ck_assert_double_eq(score_of("{\"match\": {\"*.args.v\": {\"regex\": \"x\"}, \"t.args.v\": "
                                 "{\"approx\": 1}}}",
                                 e, a),
                        PERFECT);
    ck_assert_double_lt(score_of("{\"match\": {\"t.args.v\": {\"approx\": 1}, \"*.args.v\": "
                                 "{\"regex\": \"x\"}}}",
                                 e, a),
                        0.95);
}
END_TEST

/* ---- order modes ---------------------------------------------------------- */

START_TEST(test_unordered_reordering_alone_scores_one)
{
    const char *e = "[{\"tool\": \"a\", \"args\": {\"x\": 1}}, {\"tool\": \"b\", \"args\": {\"y\": "
                    "2}}, {\"tool\": \"c\"}]";
    const char *a =
        "[{\"tool\": \"c\"}, {\"tool\": \"b\", \"args\": {\"y\": 2}}, {\"tool\": \"a\", "
        "\"args\": {\"x\": 1}}]";
    util_rules_outcome o;
    char *notes;

    ck_assert_double_lt(plain_score(e, a), 0.95);
    o = util_rules_run("{\"order\": \"unordered\"}", e, a, NULL);
    ck_assert_double_eq(o.result.score, PERFECT);
    ck_assert_double_eq(o.result.sequence_accuracy, 1.0);
    ck_assert_double_eq(o.result.step_match_rate, 1.0);
    assert_list(o.applied.actual, "[{\"tool\": \"a\", \"args\": {\"x\": 1}}, {\"tool\": \"b\", "
                                  "\"args\": {\"y\": 2}}, {\"tool\": \"c\"}]");
    ck_assert_uint_eq(o.applied.moved, 2);
    notes = notes_of(&o);
    ck_assert_str_eq(notes, "order by rules: unordered (2 calls compared out of order)\n");
    free(notes);
    util_rules_done(&o);
}
END_TEST

START_TEST(test_unordered_repeated_tool_names)
{
    /* two parallel searches came back in the other order */
    const char *e = "[{\"tool\": \"search\", \"args\": {\"q\": \"paris\", \"n\": 5}}, {\"tool\": "
                    "\"search\", \"args\": {\"q\": \"rome\", \"n\": 5}}, {\"tool\": \"book\"}]";
    const char *a = "[{\"tool\": \"search\", \"args\": {\"q\": \"rome\", \"n\": 5}}, {\"tool\": "
                    "\"search\", \"args\": {\"q\": \"paris\", \"n\": 5}}, {\"tool\": \"book\"}]";
    util_rules_outcome o = util_rules_run("{\"order\": \"unordered\"}", e, a, NULL);

    ck_assert_double_lt(plain_score(e, a), PERFECT);
    ck_assert_double_eq(o.result.score, PERFECT);
    ck_assert_double_eq(o.result.argument_f1, 1.0);
    assert_list(o.applied.actual, "[{\"tool\": \"search\", \"args\": {\"q\": \"paris\", \"n\": "
                                  "5}}, {\"tool\": \"search\", \"args\": {\"q\": \"rome\", \"n\": "
                                  "5}}, {\"tool\": \"book\"}]");
    util_rules_done(&o);
    /* the best assignment, not the first fit: e0 fits a0 and a1, e1 only a0 */
    o = util_rules_run(
        "{\"order\": \"unordered\"}",
        "[{\"tool\": \"s\", \"args\": {\"a\": 1, \"b\": 1}}, {\"tool\": \"s\", \"args\": "
        "{\"a\": 2, \"b\": 2}}]",
        "[{\"tool\": \"s\", \"args\": {\"a\": 2, \"b\": 2}}, {\"tool\": \"s\", \"args\": "
        "{\"a\": 1, \"b\": 9}}]",
        NULL);
    assert_list(o.applied.actual, "[{\"tool\": \"s\", \"args\": {\"a\": 1, \"b\": 9}}, {\"tool\": "
                                  "\"s\", \"args\": {\"a\": 2, \"b\": 2}}]");
    ck_assert_double_eq(o.result.argument_recall, 0.75);
    util_rules_done(&o);
}
END_TEST

START_TEST(test_unordered_ties_keep_original_order)
{
    /* identical calls: nothing moves */
    const char *same = "[{\"tool\": \"s\", \"args\": {\"q\": 1, \"id\": \"a\"}}, {\"tool\": \"s\", "
                       "\"args\": {\"q\": 1, \"id\": \"b\"}}]";
    const char *other = "[{\"tool\": \"s\", \"args\": {\"q\": 1, \"id\": \"c\"}}, {\"tool\": "
                        "\"s\", \"args\": {\"q\": 1, \"id\": \"d\"}}]";
    util_rules_outcome o = util_rules_run("{\"order\": \"unordered\"}", same, other, NULL);

    assert_list(o.applied.actual, other);
    ck_assert_uint_eq(o.applied.moved, 0);
    util_rules_done(&o);
    /* more actual calls than expected, all tied: the earliest are paired */
    o = util_rules_run(
        "{\"order\": \"unordered\"}", "[{\"tool\": \"s\", \"args\": {\"q\": 0}}]",
        "[{\"tool\": \"s\", \"args\": {\"q\": 1}}, {\"tool\": \"s\", \"args\": {\"q\": 2}}]", NULL);
    assert_list(
        o.applied.actual,
        "[{\"tool\": \"s\", \"args\": {\"q\": 1}}, {\"tool\": \"s\", \"args\": {\"q\": 2}}]");
    util_rules_done(&o);
    /* more expected than actual, tied: the earliest expected gets it */
    o = util_rules_run(
        "{\"order\": \"superset\"}",
        "[{\"tool\": \"s\", \"args\": {\"q\": 0}}, {\"tool\": \"s\", \"args\": {\"q\": 0}}]",
        "[{\"tool\": \"x\"}, {\"tool\": \"s\", \"args\": {\"q\": 0}}]", NULL);
    assert_list(o.applied.actual, "[{\"tool\": \"s\", \"args\": {\"q\": 0}}]");
    ck_assert_uint_eq(o.applied.dropped_actual, 1);
    util_rules_done(&o);
}
END_TEST

START_TEST(test_unordered_never_across_tools)
{
    util_rules_outcome o =
        util_rules_run("{\"order\": \"unordered\"}", "[{\"tool\": \"a\", \"args\": {\"x\": 1}}]",
                       "[{\"tool\": \"b\", \"args\": {\"x\": 1}}]", NULL);

    ck_assert_double_eq(o.result.selection_accuracy, 0.0);
    ck_assert_double_eq(o.result.argument_f1, 0.0);
    util_rules_done(&o);
    /* an extra call of an expected tool stays, after the paired ones */
    o = util_rules_run(
        "{\"order\": \"unordered\"}", "[{\"tool\": \"a\", \"args\": {\"x\": 1}}]",
        "[{\"tool\": \"a\", \"args\": {\"x\": 2}}, {\"tool\": \"a\", \"args\": {\"x\": 1}}]", NULL);
    assert_list(
        o.applied.actual,
        "[{\"tool\": \"a\", \"args\": {\"x\": 1}}, {\"tool\": \"a\", \"args\": {\"x\": 2}}]");
    ck_assert_int_eq(o.result.redundant_count, 1);
    ck_assert_double_eq(o.result.argument_recall, 1.0);
    util_rules_done(&o);
}
END_TEST

START_TEST(test_superset_allows_extras)
{
    const char *e = "[{\"tool\": \"search\", \"args\": {\"q\": \"x\"}}, {\"tool\": \"book\"}]";
    const char *a = "[{\"tool\": \"log\"}, {\"tool\": \"book\"}, {\"tool\": \"search\", \"args\": "
                    "{\"q\": \"y\"}}, {\"tool\": \"search\", \"args\": {\"q\": \"x\"}}]";
    util_rules_outcome o = util_rules_run("{\"order\": \"superset\"}", e, a, NULL);
    char *notes = notes_of(&o);

    ck_assert_double_eq(o.result.score, PERFECT);
    ck_assert_uint_eq(o.applied.dropped_actual, 2);
    assert_list(o.applied.actual, "[{\"tool\": \"search\", \"args\": {\"q\": \"x\"}}, {\"tool\": "
                                  "\"book\"}]");
    ck_assert_str_eq(notes, "order by rules: superset (2 extra calls dropped)\n");
    free(notes);
    util_rules_done(&o);
    /* missing calls still count */
    ck_assert_double_lt(score_of("{\"order\": \"superset\"}", e, "[{\"tool\": \"book\"}]"), 0.95);
    /* nothing expected: any calls pass */
    ck_assert_double_eq(score_of("{\"order\": \"superset\"}", "[]", a), PERFECT);
    /* an empty actual still fails */
    ck_assert_double_lt(score_of("{\"order\": \"superset\"}", e, "[]"), 0.5);
}
END_TEST

START_TEST(test_subset_allows_missing)
{
    const char *e = "[{\"tool\": \"search\", \"args\": {\"q\": \"x\"}}, {\"tool\": \"book\"}, "
                    "{\"tool\": \"pay\"}]";
    util_rules_outcome o = util_rules_run("{\"order\": \"subset\"}", e,
                                          "[{\"tool\": \"book\"}, {\"tool\": \"search\", "
                                          "\"args\": {\"q\": \"x\"}}]",
                                          NULL);
    char *notes = notes_of(&o);

    ck_assert_double_eq(o.result.score, PERFECT);
    ck_assert_uint_eq(o.applied.dropped_expected, 1);
    assert_list(o.applied.expected, "[{\"tool\": \"search\", \"args\": {\"q\": \"x\"}}, {\"tool\": "
                                    "\"book\"}]");
    ck_assert_str_eq(notes, "order by rules: subset (1 missing call dropped)\n");
    free(notes);
    util_rules_done(&o);
    /* extra calls still count */
    ck_assert_double_lt(score_of("{\"order\": \"subset\"}", "[{\"tool\": \"book\"}]",
                                 "[{\"tool\": \"book\"}, {\"tool\": \"pay\"}]"),
                        PERFECT);
    /* an empty actual list still fails (nothing is dropped) ... */
    o = util_rules_run("{\"order\": \"subset\"}", e, "[]", NULL);
    ck_assert(!o.result.passed);
    ck_assert_uint_eq(o.applied.dropped_expected, 0);
    ck_assert_double_eq(o.result.score, plain_score(e, "[]"));
    util_rules_done(&o);
    /* ... unless nothing was expected */
    ck_assert_double_eq(score_of("{\"order\": \"subset\"}", "[]", "[]"), PERFECT);
    /* subset with an actual emptied by tools.ignore fails too */
    ck_assert_double_lt(
        score_of("{\"order\": \"subset\", \"tools\": {\"log\": {\"ignore\": true}}}", e,
                 "[{\"tool\": \"log\"}]"),
        0.5);
}
END_TEST

/* ---- what applied --------------------------------------------------------- */

START_TEST(test_applied_as_json)
{
    util_rules_outcome o = util_rules_run(
        "{\"ignore\": [\"*.args.id\"], \"redact\": [\"*.args.k\"], \"order\": "
        "\"superset\", \"match\": {\"*.args.q\": {\"regex\": \"^a\"}}, \"tools\": "
        "{\"log\": {\"ignore\": true}}}",
        "[{\"tool\": \"s\", \"args\": {\"id\": 1, \"q\": \"ab\", \"k\": \"x\"}}]",
        "[{\"tool\": \"log\"}, {\"tool\": \"s\", \"args\": {\"id\": 2, \"q\": \"ac\", "
        "\"k\": \"y\"}}, {\"tool\": \"t\"}]",
        NULL);
    struct json_object *j = ts_rules_applied_to_json(&o.applied);
    char *text = compact(j);

    ck_assert_double_eq(o.result.score, PERFECT);
    ck_assert_str_eq(text,
                     "{\"order\": \"superset\", \"ignored\": [{\"pattern\": \"*.args.id\", "
                     "\"expected\": 1, \"actual\": 1}], \"redacted\": [{\"pattern\": \"*.args.k\", "
                     "\"expected\": 1, \"actual\": 1}], \"tools\": [{\"tool\": \"log\", "
                     "\"expected\": 0, \"actual\": 1}], \"matched\": [{\"pattern\": \"*.args.q\", "
                     "\"matcher\": \"regex\", \"passed\": 1, \"failed\": 0}], "
                     "\"dropped_expected\": 0, \"dropped_actual\": 1, \"moved\": 0}");
    free(text);
    json_object_put(j);
    util_rules_done(&o);
    /* no rules: nothing applied */
    o = util_rules_run(NULL, "[]", "[]", NULL);
    ck_assert_ptr_null(ts_rules_applied_to_json(&o.applied));
    ck_assert_ptr_null(ts_rules_applied_compare(&o.applied));
    util_rules_done(&o);
}
END_TEST

START_TEST(test_report_agrees_with_rules)
{
    /* the table marks a relaxed value as matching, and the notes follow
     * the score line */
    util_rules_outcome o =
        util_rules_run("{\"match\": {\"*.args.q\": {\"regex\": \"^weather in \"}}, \"ignore\": "
                       "[\"*.args.rid\"]}",
                       "[{\"tool\": \"s\", \"args\": {\"q\": \"weather in Paris\", \"n\": 1, "
                       "\"rid\": 1}}]",
                       "[{\"tool\": \"s\", \"args\": {\"q\": \"weather in Paris today\", \"n\": "
                       "2, \"rid\": 2}}]",
                       NULL);
    ts_report_options ropt;
    char **lines = NULL;
    size_t n = 0;
    ts_buf b;
    ts_error err;
    char *text, *score_line;

    ts_report_options_default(&ropt);
    ropt.json_diff = false;
    ropt.compare = ts_rules_applied_compare(&o.applied);
    ck_assert(!o.result.passed);
    ck_assert_int_eq(ts_rules_applied_note_lines(&o.applied, &lines, &n), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(lines[0], "ignored by rules: 1 value at *.args.rid");
    ck_assert_str_eq(lines[1], "relaxed by rules: 1 value at *.args.q (regex)");
    ropt.notes = (const char *const *)lines;
    ropt.n_notes = n;
    ts_buf_init(&b, 1 << 20);
    ck_assert_int_eq(
        ts_report_drift(o.applied.expected, o.applied.actual, &o.result, &ropt, &b, &err), 0);
    ck_assert_int_eq(ts_buf_appendc(&b, '\0'), 0);
    text = b.data;
    ck_assert_msg(strstr(text, "n: 1 \xe2\x89\xa0 2") != NULL, "%s", text);
    /* the row's status lists n only (path lines stay structural and strict) */
    ck_assert_msg(strstr(text, "| n: 1 \xe2\x89\xa0 2\n") != NULL, "a relaxed value is marked: %s",
                  text);
    ck_assert_msg(strstr(text, "rid=") == NULL && strstr(text, "args.rid:") == NULL,
                  "an ignored key is shown: %s", text);
    score_line = strstr(text, "score ");
    ck_assert_ptr_nonnull(score_line);
    ck_assert_msg(strstr(score_line,
                         "\nignored by rules: 1 value at *.args.rid\nrelaxed by "
                         "rules: 1 value at *.args.q (regex)\n") == strchr(score_line, '\n'),
                  "notes not right after the score line: %s", text);
    ts_buf_free(&b);
    free(lines);
    util_rules_done(&o);
    /* no rules, no notes */
    o = util_rules_run(NULL, "[]", "[]", NULL);
    ck_assert_int_eq(ts_rules_applied_note_lines(&o.applied, &lines, &n), 0);
    ck_assert_ptr_null(lines);
    ck_assert_uint_eq(n, 0);
    util_rules_done(&o);
}
END_TEST

START_TEST(test_errors_as_without_rules)
{
    ts_rules *r = util_rules_of("{\"ignore\": [\"*.args.x\"]}");
    struct json_object *bad = util_json_c_parse("[{\"tool\": \"a\"}, {\"args\": {}}]");
    struct json_object *ok = util_json_c_parse("[]");
    ts_score_result res;
    ts_rules_applied ap;
    ts_error err;

    ck_assert_int_lt(ts_rules_evaluate(r, bad, ok, NULL, false, &res, &ap, &err), 0);
    ck_assert_str_eq(err.code, TS_ERR_INVALID_CALLS);
    ck_assert_str_eq(err.message, "expected: item at index 1 is missing 'tool'");
    ts_rules_applied_free(&ap);
    ck_assert_int_lt(ts_rules_evaluate(r, ok, bad, NULL, false, &res, &ap, &err), 0);
    ck_assert_str_eq(err.message, "actual: item at index 1 is missing 'tool'");
    ts_rules_applied_free(&ap);
    json_object_put(bad);
    json_object_put(ok);
    ts_rules_unref(r);
}
END_TEST

static Suite *rules_eval_suite(void)
{
    Suite *s = suite_create("rules_eval");
    TCase *tc = tcase_create("apply");

    tcase_add_test(tc, test_ignore_makes_volatile_ids_pass);
    tcase_add_test(tc, test_ignored_key_absent_on_one_side);
    tcase_add_test(tc, test_ignore_nested_and_array_elements);
    tcase_add_test(tc, test_ignore_all_args);
    tcase_add_test(tc, test_tools_ignore_removes_calls_first);
    tcase_add_test(tc, test_redact_applies_to_both_sides);
    suite_add_tcase(s, tc);
    tc = tcase_create("matchers");
    tcase_add_test(tc, test_regex_matcher);
    tcase_add_test(tc, test_matchers_only_relax);
    tcase_add_test(tc, test_approx_matcher);
    tcase_add_test(tc, test_set_matcher);
    tcase_add_test(tc, test_type_matcher);
    tcase_add_test(tc, test_last_matcher_wins);
    suite_add_tcase(s, tc);
    tc = tcase_create("order");
    tcase_add_test(tc, test_unordered_reordering_alone_scores_one);
    tcase_add_test(tc, test_unordered_repeated_tool_names);
    tcase_add_test(tc, test_unordered_ties_keep_original_order);
    tcase_add_test(tc, test_unordered_never_across_tools);
    tcase_add_test(tc, test_superset_allows_extras);
    tcase_add_test(tc, test_subset_allows_missing);
    suite_add_tcase(s, tc);
    tc = tcase_create("applied");
    tcase_add_test(tc, test_applied_as_json);
    tcase_add_test(tc, test_report_agrees_with_rules);
    tcase_add_test(tc, test_errors_as_without_rules);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return util_run_suite(rules_eval_suite());
}
