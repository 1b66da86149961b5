/*
 * test_flaky — repeats as flakiness (lib/flaky/ts_flaky*): what varied between the
 * observations of one name (a scalar, a nested key, array elements and
 * calls added or removed, a reordering), the suggested rules checked by
 * applying them, names that are not flaky (equal, or equal under the rules
 * they were checked with), the pending recording as the comparison point,
 * the JSON entry and line, merging rules into a config object, and the
 * bound (100 lists of 1,000 calls).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/flaky/ts_flaky.h"
#include "lib/json/ts_json.h"
#include "lib/rules/ts_rules.h"
#include "lib/runreport/ts_runreport.h"
#include "util_test.h"

/* A report of one run whose checks of name observed calls[i] with
 * outcomes[i] under rules (JSON, may be NULL). */
static ts_runreport *report_of(const char *name, const char *const *calls,
                               const char *const *outcomes, size_t n, const char *rules)
{
    ts_runreport *r = ts_runreport_new();
    ts_runreport_run run = {.id = "run-1", .opened_ms = 0, .closed_ms = 1};
    struct json_object *rj = rules != NULL ? util_json_c_parse(rules) : NULL;
    ts_error err;

    ck_assert_ptr_nonnull(r);
    ck_assert_msg(ts_runreport_add_run(r, &run, &err) == 0, "%s", err.message);
    for (size_t i = 0; i < n; i++) {
        struct json_object *c = util_json_c_parse(calls[i]);
        ts_runreport_check chk = {.name = name,
                                  .test = name,
                                  .outcome = outcomes != NULL ? outcomes[i] : "PASSED",
                                  .score = -1,
                                  .min_score = 1.0,
                                  .message = "",
                                  .calls = c,
                                  .rules = rj};

        ck_assert_msg(ts_runreport_add_check(r, &chk, &err) == 0, "%s", err.message);
        json_object_put(c);
    }
    json_object_put(rj);
    return r;
}

/* The analysis of the one repeated name of r, under the rules it carries. */
static void analyse(ts_runreport *r, ts_flaky *f)
{
    ts_runreport_repeat *reps = NULL;
    ts_rules *rules = NULL;
    size_t n = 0;
    ts_error err;

    ck_assert_int_eq(ts_runreport_repeats(r, &reps, &n, &err), 0);
    ck_assert_uint_eq(n, 1);
    if (reps[0].rules != NULL)
        ck_assert_msg(ts_rules_from_json(reps[0].rules, "rules", &rules, &err) == 0, "%s",
                      err.message);
    ck_assert_msg(ts_flaky_analyse(&reps[0], rules, f, &err) == 0, "%s", err.message);
    ts_rules_unref(rules);
    free(reps);
}

/* v as JSON without spaces. */
static char *compact(const struct json_object *v)
{
    return strdup(json_object_to_json_string_ext(
        (struct json_object *)v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
}

static void assert_suggest(const ts_flaky *f, const char *want)
{
    char *got = f->suggest != NULL ? compact(f->suggest) : strdup("null");

    ck_assert_str_eq(got, want);
    free(got);
}

/* ---- what varied -------------------------------------------------------- */

START_TEST(scenario_two_varying_args)
{
    /* The scenario: one name checked 5 times, 2 arguments vary. */
    const char *calls[5];
    char buf[5][256];
    const char *queries[5] = {"weather in Paris", "weather in Paris", "Paris weather",
                              "weather in Paris", "weather Paris"};
    ts_runreport *r;
    ts_flaky f;

    for (int i = 0; i < 5; i++) {
        snprintf(buf[i], sizeof(buf[i]),
                 "[{\"tool\": \"lookup\", \"args\": {\"city\": \"Paris\"}},"
                 " {\"tool\": \"search\", \"args\": {\"query\": \"%s\", \"request_id\": %d}}]",
                 queries[i], 100 + i);
        calls[i] = buf[i];
    }
    r = report_of("tests/t.py::test_book", calls, NULL, 5, NULL);
    analyse(r, &f);
    ck_assert(f.flaky);
    ck_assert_int_eq(f.observations, 5);
    ck_assert_int_eq(f.distinct, 5);
    ck_assert(!f.pending);
    ck_assert(!f.reordered);
    ck_assert_uint_eq(f.npaths, 2);
    ck_assert_str_eq(f.paths[0].path, "calls[1].args.query");
    ck_assert_int_eq(f.paths[0].values, 3);
    ck_assert_int_eq(f.paths[0].present, 5);
    ck_assert_str_eq(json_object_get_string((struct json_object *)f.paths[0].samples[0].value),
                     "weather in Paris");
    ck_assert_int_eq(f.paths[0].samples[0].count, 3);
    ck_assert_str_eq(f.paths[1].path, "calls[1].args.request_id");
    ck_assert_int_eq(f.paths[1].values, 5);
    ck_assert_str_eq(f.line,
                     "flaky: tests/t.py::test_book \xe2\x80\x94 5 runs, 5 distinct; varied: "
                     "calls[1].args.query (3 values), calls[1].args.request_id (5 values)");
    assert_suggest(&f, "{\"ignore\":[\"search.args.query\",\"search.args.request_id\"]}");
    ts_flaky_free(&f);
    ts_runreport_free(r);
}
END_TEST

START_TEST(nested_object_key)
{
    const char *calls[] = {
        "[{\"tool\": \"search\", \"args\": {\"q\": \"x\", \"filters\": {\"date\": {\"ts\": 1, "
        "\"tz\": \"UTC\"}, \"a.b\": 1}}}]",
        "[{\"tool\": \"search\", \"args\": {\"q\": \"x\", \"filters\": {\"date\": {\"ts\": 2, "
        "\"tz\": \"UTC\"}, \"a.b\": 2}}}]",
        "[{\"tool\": \"search\", \"args\": {\"filters\": {\"a.b\": 1, \"date\": {\"tz\": \"UTC\", "
        "\"ts\": 1}}, \"q\": \"x\"}}]",
    };
    ts_runreport *r = report_of("n", calls, NULL, 3, NULL);
    ts_flaky f;

    analyse(r, &f);
    ck_assert(f.flaky);
    /* The third list is the first with its keys in another order: the same. */
    ck_assert_int_eq(f.distinct, 2);
    ck_assert_uint_eq(f.npaths, 2);
    ck_assert_str_eq(f.paths[0].path, "calls[0].args.filters[\"a.b\"]");
    ck_assert_str_eq(f.paths[1].path, "calls[0].args.filters.date.ts");
    ck_assert_int_eq(f.paths[1].values, 2);
    assert_suggest(&f, "{\"ignore\":[\"search.args.filters.\\\"a.b\\\"\","
                       "\"search.args.filters.date.ts\"]}");
    ts_flaky_free(&f);
    ts_runreport_free(r);
}
END_TEST

START_TEST(array_element_added_or_removed)
{
    const char *calls[] = {
        "[{\"tool\": \"plan\", \"args\": {\"steps\": [\"a\", \"b\"]}}]",
        "[{\"tool\": \"plan\", \"args\": {\"steps\": [\"a\", \"b\", \"c\"]}}]",
        "[{\"tool\": \"plan\", \"args\": {\"steps\": [\"a\", \"b\"]}}]",
    };
    ts_runreport *r = report_of("n", calls, NULL, 3, NULL);
    ts_flaky f;

    analyse(r, &f);
    ck_assert(f.flaky);
    ck_assert_uint_eq(f.npaths, 1);
    ck_assert_str_eq(f.paths[0].path, "calls[0].args.steps[2]");
    ck_assert_int_eq(f.paths[0].present, 1);
    ck_assert_int_eq(f.paths[0].of, 3);
    ck_assert_int_eq(f.paths[0].values, 1);
    ck_assert_str_eq(f.line, "flaky: n \xe2\x80\x94 3 runs, 2 distinct; varied: "
                             "calls[0].args.steps[2] present in 1 of 3");
    assert_suggest(&f, "{\"ignore\":[\"plan.args.steps[2]\"]}");
    ts_flaky_free(&f);
    ts_runreport_free(r);
}
END_TEST

START_TEST(call_added_or_removed)
{
    const char *with = "[{\"tool\": \"a\", \"args\": {}}, {\"tool\": \"b\", \"args\": {}},"
                       " {\"tool\": \"log\", \"args\": {\"m\": 1}}]";
    const char *without = "[{\"tool\": \"a\", \"args\": {}}, {\"tool\": \"b\", \"args\": {}}]";
    const char *calls[] = {without, with, without, with, without};
    ts_runreport *r = report_of("n", calls, NULL, 5, NULL);
    ts_flaky f;

    analyse(r, &f);
    ck_assert(f.flaky);
    ck_assert_uint_eq(f.npaths, 1);
    ck_assert_str_eq(f.paths[0].path, "calls[2]");
    ck_assert(f.paths[0].call);
    ck_assert_str_eq(
        f.line, "flaky: n \xe2\x80\x94 5 runs, 2 distinct; varied: calls[2] present in 2 of 5");
    assert_suggest(&f, "{\"tools\":{\"log\":{\"ignore\":true}}}");
    ts_flaky_free(&f);
    ts_runreport_free(r);

    /* Removed in the middle: the later calls are not shifted. */
    {
        const char *full = "[{\"tool\": \"a\", \"args\": {\"x\": 1}}, {\"tool\": \"b\", "
                           "\"args\": {}}, {\"tool\": \"c\", \"args\": {\"y\": 2}}]";
        const char *gap = "[{\"tool\": \"a\", \"args\": {\"x\": 1}}, {\"tool\": \"c\", "
                          "\"args\": {\"y\": 2}}]";
        const char *more[] = {full, full, gap};

        r = report_of("m", more, NULL, 3, NULL);
        analyse(r, &f);
        ck_assert_uint_eq(f.npaths, 1);
        ck_assert_str_eq(f.paths[0].path, "calls[1]");
        ck_assert_int_eq(f.paths[0].present, 2);
        assert_suggest(&f, "{\"tools\":{\"b\":{\"ignore\":true}}}");
        ts_flaky_free(&f);
        ts_runreport_free(r);
    }
}
END_TEST

START_TEST(reordering)
{
    const char *ab = "[{\"tool\": \"search\", \"args\": {\"q\": \"a\"}}, {\"tool\": \"search\", "
                     "\"args\": {\"q\": \"b\"}}, {\"tool\": \"fetch\", \"args\": {\"u\": 1}}]";
    const char *ba = "[{\"tool\": \"fetch\", \"args\": {\"u\": 1}}, {\"tool\": \"search\", "
                     "\"args\": {\"q\": \"b\"}}, {\"tool\": \"search\", \"args\": {\"q\": \"a\"}}]";
    const char *calls[] = {ab, ba, ab};
    ts_runreport *r = report_of("n", calls, NULL, 3, NULL);
    ts_flaky f;

    analyse(r, &f);
    ck_assert(f.flaky);
    ck_assert(f.reordered);
    ck_assert_int_eq(f.reordered_count, 1);
    ck_assert_uint_eq(f.npaths, 0);
    ck_assert_str_eq(f.line, "flaky: n \xe2\x80\x94 3 runs, 2 distinct; reordered in 1 of 3");
    assert_suggest(&f, "{\"order\":\"unordered\"}");
    ts_flaky_free(&f);
    ts_runreport_free(r);

    /* Reordered and varied: the paths are found with the order set aside. */
    {
        const char *ab2 = "[{\"tool\": \"search\", \"args\": {\"q\": \"a\", \"id\": 1}}, "
                          "{\"tool\": \"fetch\", \"args\": {\"u\": 1}}]";
        const char *ba2 = "[{\"tool\": \"fetch\", \"args\": {\"u\": 1}}, "
                          "{\"tool\": \"search\", \"args\": {\"q\": \"a\", \"id\": 2}}]";
        const char *ab3 = "[{\"tool\": \"search\", \"args\": {\"q\": \"a\", \"id\": 2}}, "
                          "{\"tool\": \"fetch\", \"args\": {\"u\": 1}}]";
        const char *more[] = {ab2, ba2, ab3};

        r = report_of("m", more, NULL, 3, NULL);
        analyse(r, &f);
        ck_assert(f.reordered);
        ck_assert_uint_eq(f.npaths, 1);
        /* Named in the most common list, first seen with search second. */
        ck_assert_str_eq(f.paths[0].path, "calls[1].args.id");
        assert_suggest(&f, "{\"ignore\":[\"search.args.id\"],\"order\":\"unordered\"}");
        ts_flaky_free(&f);
        ts_runreport_free(r);
    }
    /* Under order: unordered a reordering is the same observation. */
    r = report_of("n", calls, NULL, 3, "{\"order\": \"unordered\"}");
    analyse(r, &f);
    ck_assert(!f.flaky);
    ck_assert_int_eq(f.distinct, 1);
    ck_assert_ptr_null(f.line);
    ts_flaky_free(&f);
    ts_runreport_free(r);
}
END_TEST

START_TEST(equal_observations_are_not_flaky)
{
    const char *same = "[{\"tool\": \"search\", \"args\": {\"q\": \"a\"}}]";
    const char *calls[] = {same, same, same, same, same};
    const char *ids[] = {"[{\"tool\": \"s\", \"args\": {\"q\": \"a\", \"request_id\": 1}}]",
                         "[{\"tool\": \"s\", \"args\": {\"q\": \"a\", \"request_id\": 2}}]",
                         "[{\"tool\": \"s\", \"args\": {\"q\": \"a\", \"request_id\": 3}}, "
                         "{\"tool\": \"log\", \"args\": {}}]"};
    ts_runreport *r = report_of("n", calls, NULL, 5, NULL);
    ts_flaky f;

    analyse(r, &f);
    ck_assert(!f.flaky);
    ck_assert_int_eq(f.distinct, 1);
    ck_assert_int_eq(f.observations, 5);
    ck_assert_ptr_null(f.suggest);
    ts_flaky_free(&f);
    ts_runreport_free(r);
    /* Lists that differ only where the rules they were checked with ignore. */
    r = report_of(
        "n", ids, NULL, 3,
        "{\"ignore\": [\"*.args.request_id\"], \"tools\": {\"log\": {\"ignore\": true}}}");
    analyse(r, &f);
    ck_assert(!f.flaky);
    ts_flaky_free(&f);
    ts_runreport_free(r);
    /* A matcher does not hide variation: every check may pass, the agent
     * still varies. */
    r = report_of("n", ids, NULL, 2, "{\"match\": {\"s.args.request_id\": {\"type\": true}}}");
    analyse(r, &f);
    ck_assert(f.flaky);
    ck_assert_str_eq(f.paths[0].path, "calls[0].args.request_id");
    ts_flaky_free(&f);
    ts_runreport_free(r);
}
END_TEST

START_TEST(pending_recording_is_the_comparison_point)
{
    const char *a = "[{\"tool\": \"book\", \"args\": {\"seat\": \"12A\"}}]";
    const char *b = "[{\"tool\": \"book\", \"args\": {\"seat\": \"14C\"}}]";
    const char *calls[] = {b, a, b};
    const char *outcomes[] = {"PENDING", "CREATED", "PENDING"};
    ts_runreport *r = report_of("n", calls, outcomes, 3, NULL);
    struct json_object *j;
    ts_flaky f;

    analyse(r, &f);
    ck_assert(f.flaky);
    ck_assert(f.pending);
    ck_assert_int_eq(f.k, 0);
    ck_assert_int_eq(f.pass_all, -1);
    ck_assert_uint_eq(f.npaths, 1);
    /* Named against the recording (CREATED), though the other is more common. */
    ck_assert_str_eq(f.paths[0].path, "calls[0].args.seat");
    ck_assert_str_eq(f.line, "flaky: n \xe2\x80\x94 3 runs, 2 distinct (pending approval); varied: "
                             "calls[0].args.seat (2 values)");
    j = ts_flaky_json(&f);
    ck_assert(json_object_get_boolean(json_object_object_get(j, "pending")));
    json_object_put(j);
    ts_flaky_free(&f);
    ts_runreport_free(r);

    /* Pending, observations equal: not flaky. */
    {
        const char *same[] = {a, a};
        const char *po[] = {"CREATED", "PENDING"};

        r = report_of("n", same, po, 2, NULL);
        analyse(r, &f);
        ck_assert(!f.flaky);
        ck_assert(f.pending);
        ts_flaky_free(&f);
        ts_runreport_free(r);
    }
}
END_TEST

START_TEST(indexes_generalised_only_when_needed)
{
    char buf[2][512];
    const char *calls[2];

    /* Five elements' ids vary: one pattern with [*]. */
    for (int v = 0; v < 2; v++) {
        snprintf(buf[v], sizeof(buf[v]),
                 "[{\"tool\": \"t\", \"args\": {\"trace\": [{\"id\": %d, \"k\": 0}, {\"id\": %d}, "
                 "{\"id\": %d}, {\"id\": %d}, {\"id\": %d}], \"keep\": [1, %d]}}]",
                 v, v + 10, v + 20, v + 30, v + 40, v);
        calls[v] = buf[v];
    }
    {
        ts_runreport *r = report_of("n", calls, NULL, 2, NULL);
        ts_flaky f;

        analyse(r, &f);
        ck_assert_uint_eq(f.npaths, 6);
        ck_assert_str_eq(f.paths[0].path, "calls[0].args.keep[1]");
        ck_assert_str_eq(f.paths[1].path, "calls[0].args.trace[0].id");
        assert_suggest(&f, "{\"ignore\":[\"t.args.keep[1]\",\"t.args.trace[*].id\"]}");
        ts_flaky_free(&f);
        ts_runreport_free(r);
    }
}
END_TEST

START_TEST(json_entry_shape)
{
    const char *calls[] = {
        "[{\"tool\": \"s\", \"args\": {\"q\": \"a\"}}]",
        "[{\"tool\": \"s\", \"args\": {\"q\": \"b\"}}, {\"tool\": \"x\", \"args\": {}}]",
    };
    ts_runreport *r = report_of("tests/t.py::test_book", calls, NULL, 2, NULL);
    ts_flaky f;
    struct json_object *j;
    char *text;

    analyse(r, &f);
    j = ts_flaky_json(&f);
    text = compact(j);
    ck_assert_str_eq(
        text, "{\"name\":\"tests/t.py::test_book\",\"observations\":2,\"distinct\":2,\"k\":2,"
              "\"pass^k\":true,\"pass@k\":true,\"pending\":false,\"reordered\":false,"
              "\"varied\":[{\"path\":\"calls[0].args.q\",\"values\":2,\"samples\":["
              "{\"value\":\"a\",\"count\":1},{\"value\":\"b\",\"count\":1}]},"
              "{\"path\":\"calls[1]\",\"present\":1,\"of\":2}],"
              "\"line\":\"flaky: tests/t.py::test_book \xe2\x80\x94 2 runs, 2 distinct; "
              "varied: calls[0].args.q (2 values), calls[1] present in 1 of 2\"}");
    free(text);
    json_object_put(j);
    ts_flaky_free(&f);
    ts_runreport_free(r);
}
END_TEST

START_TEST(report_section_and_round_trip)
{
    const char *calls[] = {"[{\"tool\": \"s\", \"args\": {\"q\": \"a\", \"id\": 1}}]",
                           "[{\"tool\": \"s\", \"args\": {\"q\": \"a\", \"id\": 2}}]"};
    ts_runreport *r = report_of("n", calls, NULL, 2, "{\"ignore\": [\"s.args.id\"]}");
    ts_runreport *back = ts_runreport_new();
    struct json_object *doc, *flaky, *rep;
    ts_buf a, b;
    ts_error err;
    ts_flaky *list;
    size_t n;

    ts_buf_init(&a, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_runreport_json(r, &a, &err), 0);
    doc = util_json_c_parse(a.data);
    /* Checked under the rules that ignore id: a repeat, not flaky. */
    ck_assert(json_object_object_get_ex(doc, "flaky", &flaky));
    ck_assert_uint_eq(json_object_array_length(flaky), 0);
    rep = json_object_array_get_idx(json_object_object_get(doc, "repeats"), 0);
    ck_assert_str_eq(json_object_to_json_string_ext(json_object_object_get(rep, "rules"),
                                                    JSON_C_TO_STRING_PLAIN),
                     "{\"ignore\":[\"s.args.id\"]}");
    json_object_put(doc);
    /* Read back, the rules still apply; the bytes are the same. */
    ck_assert_msg(ts_runreport_add_json(back, a.data, a.len, &err) == 0, "%s", err.message);
    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_runreport_json(back, &b, &err), 0);
    ck_assert_str_eq(a.data, b.data);
    ck_assert_int_eq(ts_flaky_report(back, &list, &n, &err), 0);
    ck_assert_uint_eq(n, 0);
    ts_flaky_list_free(list, n);
    ts_buf_free(&a);
    ts_buf_free(&b);
    ts_runreport_free(r);
    ts_runreport_free(back);

    /* Without the rules: flaky, in the section. */
    r = report_of("n", calls, NULL, 2, NULL);
    ts_buf_init(&a, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_runreport_json(r, &a, &err), 0);
    doc = util_json_c_parse(a.data);
    flaky = json_object_object_get(doc, "flaky");
    ck_assert_uint_eq(json_object_array_length(flaky), 1);
    ck_assert_str_eq(
        json_object_get_string(json_object_object_get(json_object_array_get_idx(flaky, 0), "line")),
        "flaky: n \xe2\x80\x94 2 runs, 2 distinct; varied: calls[0].args.id (2 values)");
    json_object_put(doc);
    ts_buf_free(&a);
    ts_runreport_free(r);
}
END_TEST

START_TEST(hostile_rules_in_a_report_are_refused)
{
    const char *calls[] = {"[{\"tool\": \"s\", \"args\": {\"id\": 1}}]",
                           "[{\"tool\": \"s\", \"args\": {\"id\": 2}}]"};
    ts_runreport *r = report_of("n", calls, NULL, 2, "{\"ignore\": [\"s.args.id\"]}");
    ts_runreport *back = ts_runreport_new();
    ts_buf a;
    ts_error err;
    char *bad, *at;

    ts_buf_init(&a, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_runreport_json(r, &a, &err), 0);
    at = strstr(a.data, "s.args.id");
    ck_assert_ptr_nonnull(at);
    bad = strdup(a.data);
    memcpy(bad + (at - a.data), "s.args..d", 9);
    ck_assert_int_lt(ts_runreport_add_json(back, bad, strlen(bad), &err), 0);
    ck_assert_msg(strstr(err.message, "repeats[0].rules") != NULL, "%s", err.message);
    free(bad);
    ts_buf_free(&a);
    ts_runreport_free(r);
    ts_runreport_free(back);
}
END_TEST

/* ---- merging rules ------------------------------------------------------ */

START_TEST(rules_merge_keeps_the_rest)
{
    struct json_object *base = util_json_c_parse(
        "{\"redact\": [\"*.args.key\"], \"ignore\": [\"a.args.x\"], \"order\": \"strict\","
        " \"tools\": {\"t\": {\"ignore\": false}}, \"match\": {\"s.args.q\": {\"regex\": "
        "\"^a\"}}}");
    struct json_object *add =
        util_json_c_parse("{\"ignore\": [\"a.args.x\", \"b.args.y\"], \"order\": \"unordered\","
                          " \"tools\": {\"t\": {\"ignore\": true}, \"u\": {\"ignore\": true}}}");
    struct json_object *empty = util_json_c_parse("{}");
    struct json_object *bad = util_json_c_parse("{\"ignore\": \"a.args.x\"}");
    bool changed;
    ts_error err;
    char *text;

    ck_assert_int_eq(ts_flaky_rules_merge(base, add, &changed, &err), 0);
    ck_assert(changed);
    text = compact(base);
    ck_assert_str_eq(text, "{\"redact\":[\"*.args.key\"],\"ignore\":[\"a.args.x\",\"b.args.y\"],"
                           "\"order\":\"unordered\",\"tools\":{\"t\":{\"ignore\":true},"
                           "\"u\":{\"ignore\":true}},\"match\":{\"s.args.q\":{\"regex\":\"^a\"}}}");
    free(text);
    ck_assert_int_eq(ts_flaky_rules_merge(base, add, &changed, &err), 0);
    ck_assert(!changed);
    ck_assert_int_eq(ts_flaky_rules_merge(empty, add, &changed, &err), 0);
    text = compact(empty);
    ck_assert_str_eq(text, "{\"ignore\":[\"a.args.x\",\"b.args.y\"],\"order\":\"unordered\","
                           "\"tools\":{\"t\":{\"ignore\":true},\"u\":{\"ignore\":true}}}");
    free(text);
    ck_assert_int_eq(ts_flaky_rules_merge(bad, add, &changed, &err), -EINVAL);
    ck_assert_str_eq(err.code, TS_ERR_INVALID_RULES);
    text = compact(bad);
    ck_assert_str_eq(text, "{\"ignore\":\"a.args.x\"}");
    free(text);
    json_object_put(base);
    json_object_put(add);
    json_object_put(empty);
    json_object_put(bad);
}
END_TEST

/* ---- the bound ---------------------------------------------------------- */

/* A list of n calls; call i of tool "t<i % 10>" with a request id varied
 * by v at every call, and (shift) one extra call first. */
static char *long_list(size_t n, int v, bool every, bool shift)
{
    ts_buf b;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ts_buf_appendc(&b, '[');
    if (shift)
        ts_buf_appends(&b, "{\"tool\": \"extra\", \"args\": {}}, ");
    for (size_t i = 0; i < n; i++)
        ts_buf_appendf(&b, "%s{\"tool\": \"t%zu\", \"args\": {\"i\": %zu, \"rid\": %d}}",
                       i ? ", " : "", i % 10, i, every || i == 7 ? v : 0);
    ts_buf_appendc(&b, ']');
    return ts_buf_detach(&b, NULL);
}

START_TEST(a_hundred_lists_of_a_thousand_calls)
{
    char *texts[TS_RUNREPORT_MAX_LISTS + 5];
    const char *calls[TS_RUNREPORT_MAX_LISTS + 5];
    size_t n = TS_RUNREPORT_MAX_LISTS + 5;
    ts_runreport *r;
    ts_flaky f;

    /* Every call's id varies: 1,000 varied paths, one rule. */
    for (size_t i = 0; i < n; i++) {
        texts[i] = long_list(1000, (int)i, true, false);
        calls[i] = texts[i];
    }
    r = report_of("big", calls, NULL, n, NULL);
    analyse(r, &f);
    ck_assert(f.flaky);
    ck_assert_int_eq(f.observations, (int64_t)n);
    ck_assert_int_eq(f.distinct, TS_RUNREPORT_MAX_LISTS); /* the lists kept */
    ck_assert_uint_eq(f.npaths, TS_FLAKY_PATHS);
    ck_assert_uint_eq(f.paths_omitted, 1000 - TS_FLAKY_PATHS);
    ck_assert_str_eq(f.paths[0].path, "calls[0].args.rid");
    ck_assert_int_eq(f.paths[0].values, TS_RUNREPORT_MAX_LISTS);
    ck_assert(strstr(f.line, ", and 994 more") != NULL);
    {
        char *s = compact(f.suggest);

        ck_assert_str_eq(s, "{\"ignore\":[\"t0.args.rid\",\"t1.args.rid\",\"t2.args.rid\","
                            "\"t3.args.rid\",\"t4.args.rid\",\"t5.args.rid\",\"t6.args.rid\","
                            "\"t7.args.rid\",\"t8.args.rid\",\"t9.args.rid\"]}");
        free(s);
    }
    ts_flaky_free(&f);
    ts_runreport_free(r);
    /* Half the lists have one call more at the start: aligned, not shifted. */
    for (size_t i = 0; i < n; i++) {
        free(texts[i]);
        texts[i] = long_list(1000, (int)i, false, i % 2 == 1);
        calls[i] = texts[i];
    }
    r = report_of("big", calls, NULL, n, NULL);
    analyse(r, &f);
    ck_assert(f.flaky);
    ck_assert_uint_eq(f.npaths, 2);
    ck_assert_str_eq(f.paths[0].path, "calls[0]");
    ck_assert_int_eq(f.paths[0].present, TS_RUNREPORT_MAX_LISTS / 2); /* of the lists kept */
    ck_assert_str_eq(f.paths[1].path, "calls[7].args.rid");
    assert_suggest(&f, "{\"ignore\":[\"t7.args.rid\"],\"tools\":{\"extra\":{\"ignore\":true}}}");
    ts_flaky_free(&f);
    ts_runreport_free(r);
    for (size_t i = 0; i < n; i++)
        free(texts[i]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("flaky");
    TCase *tc = tcase_create("analysis");
    TCase *big = tcase_create("bound");

    tcase_add_test(tc, scenario_two_varying_args);
    tcase_add_test(tc, nested_object_key);
    tcase_add_test(tc, array_element_added_or_removed);
    tcase_add_test(tc, call_added_or_removed);
    tcase_add_test(tc, reordering);
    tcase_add_test(tc, equal_observations_are_not_flaky);
    tcase_add_test(tc, pending_recording_is_the_comparison_point);
    tcase_add_test(tc, indexes_generalised_only_when_needed);
    tcase_add_test(tc, json_entry_shape);
    tcase_add_test(tc, report_section_and_round_trip);
    tcase_add_test(tc, hostile_rules_in_a_report_are_refused);
    tcase_add_test(tc, rules_merge_keeps_the_rest);
    suite_add_tcase(s, tc);
    tcase_set_timeout(big, 120);
    tcase_add_test(big, a_hundred_lists_of_a_thousand_calls);
    suite_add_tcase(s, big);
    return util_run_suite(s);
}
