/*
 * test_rules_eval — scoring under comparison rules (docs/rules.md): ignore
 * (an ignored path absent on both sides, array elements too), tools,
 * redact, each matcher (regex, approx, set, type; relaxing only what they
 * name), each order mode (repeated tool names in unordered mode, ties,
 * superset with extras, subset with an empty actual), the best assignment
 * checked against brute force, what the rules report having done; and the
 * properties: no rules (or rules that touch nothing) give exactly today's
 * numbers on the compatibility vectors, ignore rules give exactly what
 * deleting the same values by hand gives, and a matcher never scores
 * above making the values it relaxes equal by hand.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_json.h"
#include "ts_report.h"
#include "ts_rules.h"
#include "ts_score.h"
#include "util_test.h"

#define PERFECT 0.9999999999999999

static ts_rules *rules_of(const char *text)
{
    ts_rules *r = NULL;
    ts_error err;

    if (text == NULL)
        return NULL;
    ck_assert_msg(ts_rules_parse(text, strlen(text), "rules", &r, &err) == 0, "%s", err.message);
    return r;
}

typedef struct outcome {
    ts_score_result result;
    ts_rules_applied applied;
    ts_rules *rules;
} outcome;

static outcome run_opt(const char *rules, const char *expected, const char *actual,
                       const ts_score_options *opt)
{
    struct json_object *e = util_json_c_parse(expected), *a = util_json_c_parse(actual);
    outcome o;
    ts_error err;

    o.rules = rules_of(rules);
    ck_assert_msg(ts_rules_evaluate(o.rules, e, a, opt, false, &o.result, &o.applied, &err) == 0,
                  "%s", err.message);
    json_object_put(e);
    json_object_put(a);
    return o;
}

static outcome run(const char *rules, const char *expected, const char *actual)
{
    return run_opt(rules, expected, actual, NULL);
}

static void done(outcome *o)
{
    ts_score_result_free(&o->result);
    ts_rules_applied_free(&o->applied);
    ts_rules_unref(o->rules);
}

static double score_of(const char *rules, const char *expected, const char *actual)
{
    outcome o = run(rules, expected, actual);
    double s = o.result.score;

    done(&o);
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

static char *notes_of(const outcome *o)
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
    outcome o;
    char *notes;

    ck_assert_double_lt(plain_score(e, a), 0.95);
    o = run("{\"ignore\": [\"*.args.request_id\"]}", e, a);
    ck_assert_double_eq(o.result.score, PERFECT);
    ck_assert(o.result.passed);
    ck_assert_double_eq(o.result.argument_f1, 1.0);
    assert_list(o.applied.expected, "[{\"tool\": \"search\", \"args\": {\"q\": \"w\"}}]");
    assert_list(o.applied.actual, "[{\"tool\": \"search\", \"args\": {\"q\": \"w\"}}]");
    notes = notes_of(&o);
    ck_assert_str_eq(notes, "ignored by rules: 1 value at *.args.request_id\n");
    free(notes);
    done(&o);
}
END_TEST

START_TEST(test_ignored_key_absent_on_one_side)
{
    /* as if the key were absent on both sides: missing or extra does not count */
    const char *e = "[{\"tool\": \"t\", \"args\": {\"x\": 1, \"ts\": 5}}]";
    const char *a = "[{\"tool\": \"t\", \"args\": {\"x\": 1}}]";
    outcome o = run("{\"ignore\": [\"t.args.ts\"]}", e, a);
    char *notes = notes_of(&o);

    ck_assert_double_eq(o.result.score, PERFECT);
    ck_assert_str_eq(notes,
                     "ignored by rules: 1 value at t.args.ts (1 in the baseline, 0 observed)\n");
    free(notes);
    done(&o);
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
    outcome o = run(rules, e, a);

    ck_assert_double_eq(o.result.score, PERFECT);
    assert_list(o.applied.actual,
                "[{\"tool\": \"search\", \"args\": {\"filters\": {\"a\": {\"b\": [{\"k\": 1}]}}, "
                "\"trace\": [{\"s\": \"x\"}, {\"s\": \"y\"}], \"items\": [1, 3]}}]");
    ck_assert_uint_eq(o.applied.ignored[0][0], 2);
    ck_assert_uint_eq(o.applied.ignored[1][1], 2);
    ck_assert_uint_eq(o.applied.ignored[1][2], 1);
    done(&o);
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
    outcome o = run("{\"ignore\": [\"book.args\"]}", "[{\"tool\": \"book\", \"args\": {\"x\": 1}}]",
                    "[{\"tool\": \"book\", \"args\": {\"x\": 2, \"y\": 3}}]");

    ck_assert_double_eq(o.result.score, PERFECT);
    assert_list(o.applied.expected, "[{\"tool\": \"book\"}]");
    done(&o);
}
END_TEST

START_TEST(test_tools_ignore_removes_calls_first)
{
    const char *e = "[{\"tool\": \"log_event\", \"args\": {\"m\": 1}}, {\"tool\": \"search\"}]";
    const char *a = "[{\"tool\": \"search\"}, {\"tool\": \"log_event\"}, {\"tool\": \"log_event\", "
                    "\"args\": {\"m\": 2}}]";
    outcome o = run("{\"tools\": {\"log_event\": {\"ignore\": true}}}", e, a);
    char *notes = notes_of(&o);

    ck_assert_double_eq(o.result.score, PERFECT);
    ck_assert_int_eq(o.result.total_calls, 1);
    assert_list(o.result.called_tools, "[\"search\"]");
    ck_assert_str_eq(notes,
                     "ignored by rules: 2 calls of log_event (1 in the baseline, 2 observed)\n");
    free(notes);
    done(&o);
}
END_TEST

START_TEST(test_redact_applies_to_both_sides)
{
    /* a baseline recorded before the rule still compares */
    const char *e = "[{\"tool\": \"send\", \"args\": {\"to\": \"old@x\", \"key\": \"sk-old\"}}]";
    const char *a = "[{\"tool\": \"send\", \"args\": {\"to\": \"new@x\", \"key\": \"sk-new\"}}]";
    outcome o = run("{\"redact\": [\"*.args.key\", \"send.args.to\"]}", e, a);
    char *text = compact(o.applied.actual);

    ck_assert_double_eq(o.result.score, PERFECT);
    ck_assert_ptr_null(strstr(text, "sk-new"));
    ck_assert_str_eq(text, "[{\"tool\": \"send\", \"args\": {\"to\": \"[redacted]\", \"key\": "
                           "\"[redacted]\"}}]");
    free(text);
    text = compact(o.applied.expected);
    ck_assert_ptr_null(strstr(text, "sk-old"));
    free(text);
    done(&o);
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
    outcome o = run(rules, e,
                    "[{\"tool\": \"search\", \"args\": {\"query\": \"weather in Paris today\", "
                    "\"n\": 1}}]");
    char *notes = notes_of(&o);

    ck_assert_double_eq(o.result.score, PERFECT);
    ck_assert_double_eq(o.result.step_match_rate, 1.0);
    ck_assert_uint_eq(o.applied.match_passed[0], 1);
    ck_assert_str_eq(notes, "relaxed by rules: 1 value at search.args.query (regex)\n");
    free(notes);
    done(&o);
    /* a failing value counts as a wrong argument, as an unequal one does */
    o = run(rules, e,
            "[{\"tool\": \"search\", \"args\": {\"query\": \"Paris weather\", \"n\": 1}}]");
    ck_assert_double_eq(o.result.argument_precision, 0.5);
    ck_assert_double_eq(o.result.score,
                        plain_score(e, "[{\"tool\": \"search\", \"args\": {\"query\": \"x\", "
                                       "\"n\": 1}}]"));
    ck_assert_uint_eq(o.applied.match_failed[0], 1);
    notes = notes_of(&o);
    ck_assert_str_eq(notes,
                     "relaxed by rules: 1 value at search.args.query (regex), 1 not matching\n");
    free(notes);
    done(&o);
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
        outcome o;
        ts_score_options_default(&opt);
        opt.strict = true;
        o = run_opt("{\"match\": {\"*.args.n\": {\"approx\": 0}}}",
                    "[{\"tool\": \"t\", \"args\": {\"n\": 1}}]",
                    "[{\"tool\": \"t\", \"args\": {\"n\": 1.0}}]", &opt);
        ck_assert_double_eq(o.result.score, PERFECT);
        done(&o);
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
    outcome o;
    char *notes;

    ck_assert_double_lt(plain_score(e, a), 0.95);
    o = run("{\"order\": \"unordered\"}", e, a);
    ck_assert_double_eq(o.result.score, PERFECT);
    ck_assert_double_eq(o.result.sequence_accuracy, 1.0);
    ck_assert_double_eq(o.result.step_match_rate, 1.0);
    assert_list(o.applied.actual, "[{\"tool\": \"a\", \"args\": {\"x\": 1}}, {\"tool\": \"b\", "
                                  "\"args\": {\"y\": 2}}, {\"tool\": \"c\"}]");
    ck_assert_uint_eq(o.applied.moved, 2);
    notes = notes_of(&o);
    ck_assert_str_eq(notes, "order by rules: unordered (2 calls compared out of order)\n");
    free(notes);
    done(&o);
}
END_TEST

START_TEST(test_unordered_repeated_tool_names)
{
    /* two parallel searches came back in the other order */
    const char *e = "[{\"tool\": \"search\", \"args\": {\"q\": \"paris\", \"n\": 5}}, {\"tool\": "
                    "\"search\", \"args\": {\"q\": \"rome\", \"n\": 5}}, {\"tool\": \"book\"}]";
    const char *a = "[{\"tool\": \"search\", \"args\": {\"q\": \"rome\", \"n\": 5}}, {\"tool\": "
                    "\"search\", \"args\": {\"q\": \"paris\", \"n\": 5}}, {\"tool\": \"book\"}]";
    outcome o = run("{\"order\": \"unordered\"}", e, a);

    ck_assert_double_lt(plain_score(e, a), PERFECT);
    ck_assert_double_eq(o.result.score, PERFECT);
    ck_assert_double_eq(o.result.argument_f1, 1.0);
    assert_list(o.applied.actual, "[{\"tool\": \"search\", \"args\": {\"q\": \"paris\", \"n\": "
                                  "5}}, {\"tool\": \"search\", \"args\": {\"q\": \"rome\", \"n\": "
                                  "5}}, {\"tool\": \"book\"}]");
    done(&o);
    /* the best assignment, not the first fit: e0 fits a0 and a1, e1 only a0 */
    o = run("{\"order\": \"unordered\"}",
            "[{\"tool\": \"s\", \"args\": {\"a\": 1, \"b\": 1}}, {\"tool\": \"s\", \"args\": "
            "{\"a\": 2, \"b\": 2}}]",
            "[{\"tool\": \"s\", \"args\": {\"a\": 2, \"b\": 2}}, {\"tool\": \"s\", \"args\": "
            "{\"a\": 1, \"b\": 9}}]");
    assert_list(o.applied.actual, "[{\"tool\": \"s\", \"args\": {\"a\": 1, \"b\": 9}}, {\"tool\": "
                                  "\"s\", \"args\": {\"a\": 2, \"b\": 2}}]");
    ck_assert_double_eq(o.result.argument_recall, 0.75);
    done(&o);
}
END_TEST

START_TEST(test_unordered_ties_keep_original_order)
{
    /* identical calls: nothing moves */
    const char *same = "[{\"tool\": \"s\", \"args\": {\"q\": 1, \"id\": \"a\"}}, {\"tool\": \"s\", "
                       "\"args\": {\"q\": 1, \"id\": \"b\"}}]";
    const char *other = "[{\"tool\": \"s\", \"args\": {\"q\": 1, \"id\": \"c\"}}, {\"tool\": "
                        "\"s\", \"args\": {\"q\": 1, \"id\": \"d\"}}]";
    outcome o = run("{\"order\": \"unordered\"}", same, other);

    assert_list(o.applied.actual, other);
    ck_assert_uint_eq(o.applied.moved, 0);
    done(&o);
    /* more actual calls than expected, all tied: the earliest are paired */
    o = run("{\"order\": \"unordered\"}", "[{\"tool\": \"s\", \"args\": {\"q\": 0}}]",
            "[{\"tool\": \"s\", \"args\": {\"q\": 1}}, {\"tool\": \"s\", \"args\": {\"q\": 2}}]");
    assert_list(
        o.applied.actual,
        "[{\"tool\": \"s\", \"args\": {\"q\": 1}}, {\"tool\": \"s\", \"args\": {\"q\": 2}}]");
    done(&o);
    /* more expected than actual, tied: the earliest expected gets it */
    o = run("{\"order\": \"superset\"}",
            "[{\"tool\": \"s\", \"args\": {\"q\": 0}}, {\"tool\": \"s\", \"args\": {\"q\": 0}}]",
            "[{\"tool\": \"x\"}, {\"tool\": \"s\", \"args\": {\"q\": 0}}]");
    assert_list(o.applied.actual, "[{\"tool\": \"s\", \"args\": {\"q\": 0}}]");
    ck_assert_uint_eq(o.applied.dropped_actual, 1);
    done(&o);
}
END_TEST

START_TEST(test_unordered_never_across_tools)
{
    outcome o = run("{\"order\": \"unordered\"}", "[{\"tool\": \"a\", \"args\": {\"x\": 1}}]",
                    "[{\"tool\": \"b\", \"args\": {\"x\": 1}}]");

    ck_assert_double_eq(o.result.selection_accuracy, 0.0);
    ck_assert_double_eq(o.result.argument_f1, 0.0);
    done(&o);
    /* an extra call of an expected tool stays, after the paired ones */
    o = run("{\"order\": \"unordered\"}", "[{\"tool\": \"a\", \"args\": {\"x\": 1}}]",
            "[{\"tool\": \"a\", \"args\": {\"x\": 2}}, {\"tool\": \"a\", \"args\": {\"x\": 1}}]");
    assert_list(
        o.applied.actual,
        "[{\"tool\": \"a\", \"args\": {\"x\": 1}}, {\"tool\": \"a\", \"args\": {\"x\": 2}}]");
    ck_assert_int_eq(o.result.redundant_count, 1);
    ck_assert_double_eq(o.result.argument_recall, 1.0);
    done(&o);
}
END_TEST

START_TEST(test_superset_allows_extras)
{
    const char *e = "[{\"tool\": \"search\", \"args\": {\"q\": \"x\"}}, {\"tool\": \"book\"}]";
    const char *a = "[{\"tool\": \"log\"}, {\"tool\": \"book\"}, {\"tool\": \"search\", \"args\": "
                    "{\"q\": \"y\"}}, {\"tool\": \"search\", \"args\": {\"q\": \"x\"}}]";
    outcome o = run("{\"order\": \"superset\"}", e, a);
    char *notes = notes_of(&o);

    ck_assert_double_eq(o.result.score, PERFECT);
    ck_assert_uint_eq(o.applied.dropped_actual, 2);
    assert_list(o.applied.actual, "[{\"tool\": \"search\", \"args\": {\"q\": \"x\"}}, {\"tool\": "
                                  "\"book\"}]");
    ck_assert_str_eq(notes, "order by rules: superset (2 extra calls dropped)\n");
    free(notes);
    done(&o);
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
    outcome o = run("{\"order\": \"subset\"}", e,
                    "[{\"tool\": \"book\"}, {\"tool\": \"search\", "
                    "\"args\": {\"q\": \"x\"}}]");
    char *notes = notes_of(&o);

    ck_assert_double_eq(o.result.score, PERFECT);
    ck_assert_uint_eq(o.applied.dropped_expected, 1);
    assert_list(o.applied.expected, "[{\"tool\": \"search\", \"args\": {\"q\": \"x\"}}, {\"tool\": "
                                    "\"book\"}]");
    ck_assert_str_eq(notes, "order by rules: subset (1 missing call dropped)\n");
    free(notes);
    done(&o);
    /* extra calls still count */
    ck_assert_double_lt(score_of("{\"order\": \"subset\"}", "[{\"tool\": \"book\"}]",
                                 "[{\"tool\": \"book\"}, {\"tool\": \"pay\"}]"),
                        PERFECT);
    /* an empty actual list still fails (nothing is dropped) ... */
    o = run("{\"order\": \"subset\"}", e, "[]");
    ck_assert(!o.result.passed);
    ck_assert_uint_eq(o.applied.dropped_expected, 0);
    ck_assert_double_eq(o.result.score, plain_score(e, "[]"));
    done(&o);
    /* ... unless nothing was expected */
    ck_assert_double_eq(score_of("{\"order\": \"subset\"}", "[]", "[]"), PERFECT);
    /* subset with an actual emptied by tools.ignore fails too */
    ck_assert_double_lt(
        score_of("{\"order\": \"subset\", \"tools\": {\"log\": {\"ignore\": true}}}", e,
                 "[{\"tool\": \"log\"}]"),
        0.5);
}
END_TEST

/* ---- the best assignment against brute force ----------------------------- */

#define BF_MAX 6

/* Values that are equal in some ways and not others: numbers across types,
 * double rounding, whitespace, containers. */
static const char *const tricky[] = {"1",
                                     "1.0",
                                     "true",
                                     "0",
                                     "false",
                                     "-0.0",
                                     "null",
                                     "\"x\"",
                                     "\" x\"",
                                     "\"x \"",
                                     "[1]",
                                     "[1.0]",
                                     "[true]",
                                     "{\"k\": 1}",
                                     "{\"k\": true}",
                                     "{\"k\": 1, \"j\": [\" x\"]}",
                                     "{\"j\": [\" x\"], \"k\": 1.0}",
                                     "9007199254740993",
                                     "9007199254740992.0",
                                     "18446744073709551615",
                                     "1.8446744073709552e19",
                                     "[{\"a\": null}]",
                                     "2",
                                     "2.5"};

/* Number of expected keys equal in actual (the plain comparison). */
static size_t bf_weight(struct json_object *e, struct json_object *a, bool strict)
{
    struct json_object *ea = json_object_object_get(e, "args");
    struct json_object *aa = json_object_object_get(a, "args");
    size_t n = 0;

    if (ea == NULL || aa == NULL)
        return 0;
    json_object_object_foreach(ea, k, v)
    {
        struct json_object *w;
        if (json_object_object_get_ex(aa, k, &w) && ts_values_equal(v, w, strict, true))
            n++;
    }
    return n;
}

/*
 * The lexicographically first optimal assignment of one tool's calls
 * (expected i takes actual col[i], -1 none; columns compared as values
 * with -1 after every real one), by trying every injection.
 */
static void bf_search(size_t i, size_t ne, size_t na, size_t w[BF_MAX][BF_MAX], long *cur,
                      bool *used, size_t sum, long *best, size_t *best_sum, bool *have)
{
    size_t need = ne < na ? ne : na, assigned = 0;

    if (i == ne) {
        for (size_t k = 0; k < ne; k++)
            assigned += cur[k] >= 0;
        if (assigned != need)
            return;
        if (!*have || sum > *best_sum) {
            memcpy(best, cur, ne * sizeof(long));
            *best_sum = sum;
            *have = true;
        }
        return;
    }
    for (long j = 0; j <= (long)na; j++) {
        long c = j == (long)na ? -1 : j;
        if (c >= 0 && used[c])
            continue;
        cur[i] = c;
        if (c >= 0)
            used[c] = true;
        bf_search(i + 1, ne, na, w, cur, used, sum + (c >= 0 ? w[i][c] : 0), best, best_sum, have);
        if (c >= 0)
            used[c] = false;
    }
}

START_TEST(test_assignment_matches_brute_force)
{
    unsigned seed = 12345;

    for (int round = 0; round < 1500; round++) {
        size_t ne = 1 + util_next_random(&seed) % BF_MAX, na = 1 + util_next_random(&seed) % BF_MAX;
        struct json_object *e = json_object_new_array(), *a = json_object_new_array();
        size_t w[BF_MAX][BF_MAX];
        long cur[BF_MAX], best[BF_MAX];
        bool used[BF_MAX] = {false}, have = false;
        size_t best_sum = 0;
        struct json_object *want = json_object_new_array();
        ts_rules *r = rules_of("{\"order\": \"unordered\"}");
        ts_score_options opt;
        ts_score_result res;
        ts_rules_applied ap;
        ts_error err;
        char *got_text, *want_text;
        bool hard = round % 3 != 0; /* tricky values, and strict every other round */

        ts_score_options_default(&opt);
        opt.strict = hard && round % 2 == 1;
        for (int side = 0; side < 2; side++) {
            size_t n = side ? na : ne;
            for (size_t i = 0; i < n; i++) {
                char text[512];
                size_t nt = sizeof(tricky) / sizeof(tricky[0]);
                if (hard)
                    snprintf(text, sizeof(text),
                             "{\"tool\": \"s\", \"args\": {\"a\": %s, \"b\": %s, \"c\": %s, "
                             "\"i\": \"%d%zu\"}}",
                             tricky[util_next_random(&seed) % nt],
                             tricky[util_next_random(&seed) % nt],
                             tricky[util_next_random(&seed) % nt], side, i);
                else
                    snprintf(text, sizeof(text),
                             "{\"tool\": \"s\", \"args\": {\"a\": %u, \"b\": %u, \"c\": %u, "
                             "\"i\": \"%d%zu\"}}",
                             util_next_random(&seed) % 2, util_next_random(&seed) % 3,
                             util_next_random(&seed) % 2, side, i);
                json_object_array_add(side ? a : e, util_json_c_parse(text));
            }
        }
        for (size_t i = 0; i < ne; i++)
            for (size_t j = 0; j < na; j++)
                w[i][j] = bf_weight(json_object_array_get_idx(e, i),
                                    json_object_array_get_idx(a, j), opt.strict);
        bf_search(0, ne, na, w, cur, used, 0, best, &best_sum, &have);
        ck_assert(have);
        /* the expected order with partners, then the unpaired in order */
        memset(used, 0, sizeof(used));
        for (size_t i = 0; i < ne; i++) {
            if (best[i] >= 0) {
                used[best[i]] = true;
                json_object_array_add(want, json_object_get(json_object_array_get_idx(a, best[i])));
            }
        }
        for (size_t j = 0; j < na; j++)
            if (!used[j])
                json_object_array_add(want, json_object_get(json_object_array_get_idx(a, j)));
        ck_assert_int_eq(ts_rules_evaluate(r, e, a, &opt, false, &res, &ap, &err), 0);
        got_text = compact(ap.actual);
        want_text = compact(want);
        ck_assert_msg(strcmp(got_text, want_text) == 0, "round %d:\nwant %s\ngot  %s", round,
                      want_text, got_text);
        free(got_text);
        free(want_text);
        ts_score_result_free(&res);
        ts_rules_applied_free(&ap);
        ts_rules_unref(r);
        json_object_put(want);
        json_object_put(e);
        json_object_put(a);
    }
}
END_TEST

START_TEST(test_unordered_large_lists)
{
    /* 10 tools, 100 calls each, the actual list reversed: still 1.0 */
    struct json_object *e = json_object_new_array(), *a = json_object_new_array();
    ts_rules *r = rules_of("{\"order\": \"unordered\"}");
    ts_score_result res;
    ts_rules_applied ap;
    ts_error err;

    for (int i = 0; i < 1000; i++) {
        char text[128];
        snprintf(text, sizeof(text), "{\"tool\": \"tool%d\", \"args\": {\"i\": %d, \"k\": %d}}",
                 i % 10, i, i % 7);
        json_object_array_add(e, util_json_c_parse(text));
    }
    for (int i = 999; i >= 0; i--)
        json_object_array_add(a, json_object_get(json_object_array_get_idx(e, (size_t)i)));
    ck_assert_int_eq(ts_rules_evaluate(r, e, a, NULL, false, &res, &ap, &err), 0);
    ck_assert_double_eq(res.score, PERFECT);
    ts_score_result_free(&res);
    ts_rules_applied_free(&ap);
    ts_rules_unref(r);
    json_object_put(e);
    json_object_put(a);
}
END_TEST

/* ---- what applied --------------------------------------------------------- */

START_TEST(test_applied_as_json)
{
    outcome o = run("{\"ignore\": [\"*.args.id\"], \"redact\": [\"*.args.k\"], \"order\": "
                    "\"superset\", \"match\": {\"*.args.q\": {\"regex\": \"^a\"}}, \"tools\": "
                    "{\"log\": {\"ignore\": true}}}",
                    "[{\"tool\": \"s\", \"args\": {\"id\": 1, \"q\": \"ab\", \"k\": \"x\"}}]",
                    "[{\"tool\": \"log\"}, {\"tool\": \"s\", \"args\": {\"id\": 2, \"q\": \"ac\", "
                    "\"k\": \"y\"}}, {\"tool\": \"t\"}]");
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
    done(&o);
    /* no rules: nothing applied */
    o = run(NULL, "[]", "[]");
    ck_assert_ptr_null(ts_rules_applied_to_json(&o.applied));
    ck_assert_ptr_null(ts_rules_applied_compare(&o.applied));
    done(&o);
}
END_TEST

START_TEST(test_report_agrees_with_rules)
{
    /* the table marks a relaxed value as matching, and the notes follow
     * the score line */
    outcome o = run("{\"match\": {\"*.args.q\": {\"regex\": \"^weather in \"}}, \"ignore\": "
                    "[\"*.args.rid\"]}",
                    "[{\"tool\": \"s\", \"args\": {\"q\": \"weather in Paris\", \"n\": 1, "
                    "\"rid\": 1}}]",
                    "[{\"tool\": \"s\", \"args\": {\"q\": \"weather in Paris today\", \"n\": "
                    "2, \"rid\": 2}}]");
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
    done(&o);
    /* no rules, no notes */
    o = run(NULL, "[]", "[]");
    ck_assert_int_eq(ts_rules_applied_note_lines(&o.applied, &lines, &n), 0);
    ck_assert_ptr_null(lines);
    ck_assert_uint_eq(n, 0);
    done(&o);
}
END_TEST

START_TEST(test_errors_as_without_rules)
{
    ts_rules *r = rules_of("{\"ignore\": [\"*.args.x\"]}");
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

/* ---- properties ----------------------------------------------------------- */

/* Every scoring number, exactly (bit for bit), and the lists. */
static void assert_same_result(const ts_score_result *a, const ts_score_result *b, int round)
{
    struct json_object *ja = ts_score_result_to_json(a), *jb = ts_score_result_to_json(b);
    char *ta = compact(ja), *tb = compact(jb);

    ck_assert_msg(strcmp(ta, tb) == 0, "round %d:\n%s\n%s", round, ta, tb);
    free(ta);
    free(tb);
    json_object_put(ja);
    json_object_put(jb);
}

START_TEST(test_compat_vectors_unchanged)
{
    /* every scored case of the compatibility vectors: with no rules, empty
     * rules and rules that touch nothing, the very same result */
    const char *variants[] = {
        NULL, "{}",
        "{\"ignore\": [\"zz-none.args.x\"], \"redact\": [\"zz-none.args.k\"], "
        "\"match\": {\"zz-none.args.q\": {\"regex\": \".\"}}, \"tools\": "
        "{\"zz-none\": {\"ignore\": true}}}"};
    char *text = util_read_data("compat-vectors/scores.jsonl", NULL);
    char *line = text, *next;
    int cases = 0;

    for (; line != NULL && *line != '\0'; line = next) {
        struct json_object *rec, *e, *a, *wj;
        ts_score_options opt;
        ts_score_result plain;
        ts_error err;
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        rec = util_json_c_parse(line);
        if (json_object_object_get(rec, "result") == NULL) {
            json_object_put(rec);
            continue;
        }
        e = json_object_object_get(rec, "expected");
        a = json_object_object_get(rec, "actual");
        ts_score_options_default(&opt);
        opt.strict = json_object_get_boolean(json_object_object_get(rec, "strict"));
        opt.min_score = json_object_get_double(json_object_object_get(rec, "min_score"));
        wj = json_object_object_get(rec, "weights");
        ck_assert_int_eq(ts_weights_from_json(wj, &opt.weights, &err), 0);
        ck_assert_int_eq(ts_evaluate(e, a, &opt, &plain, &err), 0);
        for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
            ts_rules *r = rules_of(variants[v]);
            ts_score_result got;
            ts_rules_applied ap;
            ck_assert_int_eq(ts_rules_evaluate(r, e, a, &opt, false, &got, &ap, &err), 0);
            assert_same_result(&plain, &got, cases);
            ts_score_result_free(&got);
            ts_rules_applied_free(&ap);
            ts_rules_unref(r);
        }
        ts_score_result_free(&plain);
        json_object_put(rec);
        cases++;
    }
    ck_assert_int_gt(cases, 500);
    free(text);
}
END_TEST

/* A random value of small keys a, b, c, arrays and scalars. */
static struct json_object *random_value(unsigned *seed, int depth)
{
    unsigned kind = util_next_random(seed) % (depth > 2 ? 3 : 5);
    static const char *keys[] = {"a", "b", "c"};

    switch (kind) {
    case 0:
        return json_object_new_int((int)(util_next_random(seed) % 3));
    case 1:
        return json_object_new_string(util_next_random(seed) % 2 ? "x" : "y");
    case 2:
        return util_next_random(seed) % 4 == 0 ? NULL : json_object_new_boolean(1);
    case 3: {
        struct json_object *arr = json_object_new_array();
        unsigned n = util_next_random(seed) % 3;
        for (unsigned i = 0; i < n; i++)
            json_object_array_add(arr, random_value(seed, depth + 1));
        return arr;
    }
    default: {
        struct json_object *obj = json_object_new_object();
        for (int i = 0; i < 3; i++) {
            if (util_next_random(seed) % 2)
                json_object_object_add(obj, keys[i], random_value(seed, depth + 1));
        }
        return obj;
    }
    }
}

static struct json_object *random_calls(unsigned *seed)
{
    struct json_object *calls = json_object_new_array();
    unsigned n = util_next_random(seed) % 4;

    for (unsigned i = 0; i < n; i++) {
        struct json_object *c = json_object_new_object(), *args = json_object_new_object();
        static const char *keys[] = {"a", "b", "c"};
        json_object_object_add(c, "tool",
                               json_object_new_string(util_next_random(seed) % 2 ? "t1" : "t2"));
        for (int k = 0; k < 3; k++) {
            if (util_next_random(seed) % 3)
                json_object_object_add(args, keys[k], random_value(seed, 1));
        }
        json_object_object_add(c, "args", args);
        json_object_array_add(calls, c);
    }
    return calls;
}

/* A random pattern over the same keys: TOOL.args then 1 to 3 segments. */
static void random_pattern(unsigned *seed, char *out, size_t outsz, char segs[4][8], int *nsegs)
{
    static const char *tools[] = {"*", "t1"};
    static const char *choice[] = {"a", "b", "c", "*", "**", "[0]", "[*]"};
    size_t len;

    *nsegs = 1 + (int)(util_next_random(seed) % 3);
    len = (size_t)snprintf(out, outsz, "%s.args", tools[util_next_random(seed) % 2]);
    segs[0][0] = out[0] == '*' ? '*' : '1';
    for (int i = 1; i <= *nsegs; i++) {
        const char *s = choice[util_next_random(seed) % 7];
        snprintf(segs[i], sizeof(segs[i]), "%s", s);
        len += (size_t)snprintf(out + len, outsz - len, "%s%s", s[0] == '[' ? "" : ".", s);
    }
}

/* The naive matcher of a path under args (comp[1..nc), comp[0] is "args")
 * against the segments after `.args`, segs[1..nsegs]. */
static bool naive_match(char segs[4][8], int si, int nsegs, const char **comp, int ci, int nc)
{
    if (si > nsegs)
        return ci == nc;
    if (strcmp(segs[si], "**") == 0) {
        for (int k = ci; k <= nc; k++) {
            if (naive_match(segs, si + 1, nsegs, comp, k, nc))
                return true;
        }
        return false;
    }
    if (ci == nc)
        return false;
    if (strcmp(segs[si], "*") == 0) {
        if (comp[ci][0] == '[')
            return false;
    } else if (strcmp(segs[si], "[*]") == 0) {
        if (comp[ci][0] != '[')
            return false;
    } else if (strcmp(segs[si], comp[ci]) != 0) {
        return false;
    }
    return naive_match(segs, si + 1, nsegs, comp, ci + 1, nc);
}

/* Delete by hand, from v at path comp[0..nc), what the patterns name. */
static void hand_delete(struct json_object *v, char pats[][4][8], const int *npats, int count,
                        const char **comp, int nc)
{
    char idx[16][24];

    if (nc >= 14)
        return;
    if (json_object_is_type(v, json_type_object)) {
        const char *keys[8];
        int nk = 0;
        json_object_object_foreach(v, key, child)
        {
            (void)child;
            keys[nk++] = key;
        }
        for (int k = 0; k < nk; k++) {
            bool hit = false;
            comp[nc] = keys[k];
            for (int p = 0; p < count && !hit; p++)
                hit = naive_match(pats[p], 1, npats[p], comp, 1, nc + 1);
            if (hit)
                json_object_object_del(v, keys[k]);
            else
                hand_delete(json_object_object_get(v, keys[k]), pats, npats, count, comp, nc + 1);
        }
    } else if (json_object_is_type(v, json_type_array)) {
        size_t n = json_object_array_length(v);
        for (size_t i = n; i-- > 0;) {
            bool hit = false;
            snprintf(idx[nc], sizeof(idx[nc]), "[%zu]", i);
            comp[nc] = idx[nc];
            for (int p = 0; p < count && !hit; p++)
                hit = naive_match(pats[p], 1, npats[p], comp, 1, nc + 1);
            if (hit)
                json_object_array_del_idx(v, i, 1);
            else
                hand_delete(json_object_array_get_idx(v, i), pats, npats, count, comp, nc + 1);
        }
    }
}

static void hand_ignore(struct json_object *calls, char pats[][4][8], const int *npats, int count)
{
    for (size_t i = 0; i < json_object_array_length(calls); i++) {
        struct json_object *c = json_object_array_get_idx(calls, i);
        const char *tool = json_object_get_string(json_object_object_get(c, "tool"));
        const char *comp[16] = {"args"};
        char mine[4][4][8];
        int nmine[4], m = 0;
        bool whole = false;
        for (int p = 0; p < count; p++) {
            if (pats[p][0][0] == '*' || strcmp(tool, "t1") == 0) {
                memcpy(mine[m], pats[p], sizeof(mine[m]));
                nmine[m++] = npats[p];
            }
        }
        for (int p = 0; p < m; p++)
            whole |= naive_match(mine[p], 1, nmine[p], comp, 1, 1);
        if (whole)
            json_object_object_del(c, "args");
        else
            hand_delete(json_object_object_get(c, "args"), mine, nmine, m, comp, 1);
    }
}

START_TEST(test_property_ignore_equals_deleting_by_hand)
{
    unsigned seed = 777;

    for (int round = 0; round < 2000; round++) {
        struct json_object *e = random_calls(&seed), *a = random_calls(&seed);
        struct json_object *he = ts_json_copy(e), *ha = ts_json_copy(a);
        char pats[3][4][8], pattern[3][64], text[256];
        int npats[3], count = 1 + (int)(util_next_random(&seed) % 3);
        ts_score_result with, by_hand;
        ts_rules_applied ap;
        ts_rules *r;
        ts_error err;
        size_t len = (size_t)snprintf(text, sizeof(text), "{\"ignore\": [");

        for (int p = 0; p < count; p++) {
            random_pattern(&seed, pattern[p], sizeof(pattern[p]), pats[p], &npats[p]);
            len += (size_t)snprintf(text + len, sizeof(text) - len, "%s\"%s\"", p ? ", " : "",
                                    pattern[p]);
        }
        snprintf(text + len, sizeof(text) - len, "]}");
        r = rules_of(text);
        hand_ignore(he, pats, npats, count);
        hand_ignore(ha, pats, npats, count);
        ck_assert_int_eq(ts_rules_evaluate(r, e, a, NULL, false, &with, &ap, &err), 0);
        ck_assert_int_eq(ts_evaluate(he, ha, NULL, &by_hand, &err), 0);
        ck_assert_msg(with.score <= by_hand.score, "round %d: rules raised the score", round);
        assert_same_result(&with, &by_hand, round);
        {
            char *got = compact(ap.actual), *want = compact(ha);
            ck_assert_msg(strcmp(got, want) == 0, "round %d %s:\n%s\n%s", round, text, got, want);
            free(got);
            free(want);
        }
        ts_score_result_free(&with);
        ts_score_result_free(&by_hand);
        ts_rules_applied_free(&ap);
        ts_rules_unref(r);
        json_object_put(e);
        json_object_put(a);
        json_object_put(he);
        json_object_put(ha);
    }
}
END_TEST

START_TEST(test_property_matchers_between_plain_and_by_hand)
{
    /* a matcher relaxes: the score lies between the plain one and the one
     * where every value it names is made equal to the baseline's by hand */
    unsigned seed = 99;
    const char *rules = "{\"match\": {\"*.args.a\": {\"approx\": 1}}}";

    for (int round = 0; round < 1000; round++) {
        struct json_object *e = json_object_new_array(), *a = json_object_new_array();
        struct json_object *fixed;
        ts_score_result with, plain, by_hand;
        ts_rules_applied ap;
        ts_rules *r = rules_of(rules);
        ts_error err;
        unsigned n = 1 + util_next_random(&seed) % 3;

        for (unsigned i = 0; i < n; i++) {
            char text[128];
            snprintf(text, sizeof(text), "{\"tool\": \"t\", \"args\": {\"a\": %u, \"b\": %u}}",
                     util_next_random(&seed) % 4, util_next_random(&seed) % 2);
            json_object_array_add(e, util_json_c_parse(text));
            snprintf(text, sizeof(text), "{\"tool\": \"t\", \"args\": {\"a\": %u, \"b\": %u}}",
                     util_next_random(&seed) % 4, util_next_random(&seed) % 2);
            json_object_array_add(a, util_json_c_parse(text));
        }
        /* by hand: a value within the tolerance of its partner's becomes equal */
        fixed = ts_json_copy(a);
        for (unsigned i = 0; i < n; i++) {
            struct json_object *ea =
                json_object_object_get(json_object_array_get_idx(e, i), "args");
            struct json_object *fa =
                json_object_object_get(json_object_array_get_idx(fixed, i), "args");
            int x = json_object_get_int(json_object_object_get(ea, "a"));
            int y = json_object_get_int(json_object_object_get(fa, "a"));
            if (abs(x - y) <= 1)
                json_object_object_add(fa, "a", json_object_new_int(x));
        }
        ck_assert_int_eq(ts_rules_evaluate(r, e, a, NULL, false, &with, &ap, &err), 0);
        ck_assert_int_eq(ts_evaluate(e, a, NULL, &plain, &err), 0);
        ck_assert_int_eq(ts_evaluate(e, fixed, NULL, &by_hand, &err), 0);
        ck_assert_msg(with.score >= plain.score, "round %d: a matcher lowered the score", round);
        ck_assert_msg(with.score <= by_hand.score, "round %d: above making it equal by hand",
                      round);
        /* same tool at every position: partners are positional, so equal */
        ck_assert_double_eq(with.score, by_hand.score);
        ts_score_result_free(&with);
        ts_score_result_free(&plain);
        ts_score_result_free(&by_hand);
        ts_rules_applied_free(&ap);
        ts_rules_unref(r);
        json_object_put(e);
        json_object_put(a);
        json_object_put(fixed);
    }
}
END_TEST

START_TEST(test_list_compared_with_itself_under_any_rules)
{
    /* the daemon's replay of the baseline's own calls: a perfect score
     * under any rules (tools.ignore changes only the counts) */
    const char *rules[] = {
        "{\"ignore\": [\"*.args.**\"]}",
        "{\"match\": {\"*.args.q\": {\"regex\": \"^never$\"}, \"*.args.n\": {\"approx\": 0}, "
        "\"*.args.l\": {\"set\": true}, \"*.args.o\": {\"type\": true}}}",
        "{\"order\": \"unordered\"}",
        "{\"order\": \"superset\"}",
        "{\"order\": \"subset\"}",
        "{\"redact\": [\"*.args.q\"]}",
        "{\"tools\": {\"s\": {\"ignore\": true}}}",
    };
    const char *calls = "[{\"tool\": \"s\", \"args\": {\"q\": \"x\", \"n\": 1.5, \"l\": [1, 2], "
                        "\"o\": {\"k\": null}}}, {\"tool\": \"s\", \"args\": {\"q\": \"x\"}}, "
                        "{\"tool\": \"t\", \"args\": null}, {\"tool\": \"s\", \"args\": {}}]";

    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        outcome o = run(rules[i], calls, calls);
        ck_assert_msg(o.result.score == PERFECT && o.result.passed, "%s: %.17g", rules[i],
                      o.result.score);
        ck_assert_double_eq(o.result.trajectory_accuracy, 1.0);
        done(&o);
    }
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
    tcase_add_test(tc, test_assignment_matches_brute_force);
    tcase_add_test(tc, test_unordered_large_lists);
    suite_add_tcase(s, tc);
    tc = tcase_create("applied");
    tcase_add_test(tc, test_applied_as_json);
    tcase_add_test(tc, test_report_agrees_with_rules);
    tcase_add_test(tc, test_errors_as_without_rules);
    suite_add_tcase(s, tc);
    tc = tcase_create("properties");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_compat_vectors_unchanged);
    tcase_add_test(tc, test_property_ignore_equals_deleting_by_hand);
    tcase_add_test(tc, test_property_matchers_between_plain_and_by_hand);
    tcase_add_test(tc, test_list_compared_with_itself_under_any_rules);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return util_run_suite(rules_eval_suite());
}
