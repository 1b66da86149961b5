/*
 * test_rules — docs/rules.md's path syntax and rules object: what each
 * pattern matches (`**` at several depths, quoted keys, `[*]` in nested
 * arrays), patterns that do not parse (with their column), rules files
 * that are refused (invalid JSON, unknown keys, bad patterns, invalid
 * regex, negative tolerance, duplicates), each naming the file, the key
 * or pattern and the line and column; merging; the project file's path;
 * redaction of observed calls and the census of `tsctl rules check`.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"
#include "lib/rules/ts_rules.h"
#include "lib/rules/ts_rules_internal.h"
#include "util_test.h"

/* ---- the path matcher ---------------------------------------------------- */

/*
 * Whether pattern (of kind ignore) accepts the value at tool then the
 * components (NULL-terminated): "[N]" is an index, anything else a key.
 */
static bool path_matches(const char *pattern, const char *tool, ...)
{
    ts_rules_path_set *set = ts_rules_path_set_new();
    ts_rules_state a[8], b[8];
    ts_rules_state *cur = a, *next = b;
    bool alive;
    ts_error err;
    va_list ap;
    const char *c;

    ck_assert_ptr_nonnull(set);
    ck_assert_msg(ts_rules_path_set_add(set, pattern, strlen(pattern), TS_RULES_IGNORE, &err) == 0,
                  "%s: %s", pattern, err.message);
    ck_assert_int_eq(ts_rules_path_compile(set), 0);
    ck_assert_uint_le(ts_rules_path_words(set), 8);
    alive = ts_rules_path_start(set, tool, strlen(tool), TS_RULES_KIND_BIT(TS_RULES_IGNORE), cur);
    va_start(ap, tool);
    while ((c = va_arg(ap, const char *)) != NULL) {
        ts_rules_state *t;
        if (c[0] == '[')
            alive = ts_rules_path_step_index(set, cur, (size_t)atoi(c + 1), next);
        else
            alive = ts_rules_path_step_key(set, cur, c, strlen(c), next);
        t = cur;
        cur = next;
        next = t;
    }
    va_end(ap);
    (void)alive;
    alive = ts_rules_path_accepts(set, cur, TS_RULES_IGNORE, true) == 0;
    ts_rules_path_set_free(set);
    return alive;
}

/* The error of a pattern that must not parse. */
static void bad_pattern(const char *pattern, const char *column, const char *why)
{
    ts_rules_path_set *set = ts_rules_path_set_new();
    ts_error err;
    int rc;

    ts_error_clear(&err);
    rc = ts_rules_path_set_add(set, pattern, strlen(pattern), TS_RULES_IGNORE, &err);
    ck_assert_msg(rc == -EINVAL, "'%s' parsed", pattern);
    ck_assert_str_eq(err.code, TS_ERR_INVALID_RULES);
    ck_assert_msg(strstr(err.message, pattern) != NULL, "'%s' not named: %s", pattern, err.message);
    ck_assert_msg(strstr(err.message, column) != NULL, "'%s': no '%s' in: %s", pattern, column,
                  err.message);
    ck_assert_msg(strstr(err.message, why) != NULL, "'%s': no '%s' in: %s", pattern, why,
                  err.message);
    ts_rules_path_set_free(set);
}

START_TEST(test_path_literal_and_any_tool)
{
    ck_assert(path_matches("*.args.request_id", "search", "args", "request_id", NULL));
    ck_assert(path_matches("*.args.request_id", "book", "args", "request_id", NULL));
    ck_assert(!path_matches("*.args.request_id", "search", "args", "request", NULL));
    ck_assert(!path_matches("*.args.request_id", "search", "args", "x", "request_id", NULL));
    ck_assert(!path_matches("*.args.request_id", "search", "args", NULL));
    ck_assert(path_matches("search.args.q", "search", "args", "q", NULL));
    ck_assert(!path_matches("search.args.q", "searc", "args", "q", NULL));
    ck_assert(!path_matches("search.args.q", "search2", "args", "q", NULL));
    ck_assert(!path_matches("search.args.q", "Search", "args", "q", NULL));
}
END_TEST

START_TEST(test_path_any_key_is_one_level)
{
    ck_assert(path_matches("*.args.*.id", "t", "args", "user", "id", NULL));
    ck_assert(!path_matches("*.args.*.id", "t", "args", "id", NULL));
    ck_assert(!path_matches("*.args.*.id", "t", "args", "a", "b", "id", NULL));
    /* * is a key, never an index */
    ck_assert(!path_matches("*.args.list.*", "t", "args", "list", "[0]", NULL));
    ck_assert(path_matches("*.*.x", "t", "args", "x", NULL));
}
END_TEST

START_TEST(test_path_double_star_at_every_depth)
{
    const char *p = "search.args.filters.**.ts";

    ck_assert(path_matches(p, "search", "args", "filters", "ts", NULL)); /* zero levels */
    ck_assert(path_matches(p, "search", "args", "filters", "a", "ts", NULL));
    ck_assert(path_matches(p, "search", "args", "filters", "a", "b", "ts", NULL));
    ck_assert(path_matches(p, "search", "args", "filters", "a", "b", "c", "d", "ts", NULL));
    ck_assert(path_matches(p, "search", "args", "filters", "[3]", "ts", NULL));
    ck_assert(path_matches(p, "search", "args", "filters", "a", "[0]", "[1]", "ts", NULL));
    ck_assert(!path_matches(p, "search", "args", "filters", NULL));
    ck_assert(!path_matches(p, "search", "args", "filters", "ts", "x", NULL));
    ck_assert(!path_matches(p, "search", "args", "other", "ts", NULL));
    ck_assert(!path_matches(p, "book", "args", "filters", "ts", NULL));
    /* ** right after the tool reaches args and anything under it */
    ck_assert(path_matches("*.**.id", "t", "args", "id", NULL));
    ck_assert(path_matches("*.**.id", "t", "args", "x", "[2]", "id", NULL));
    /* a trailing ** names the value itself and all below */
    ck_assert(path_matches("*.args.meta.**", "t", "args", "meta", NULL));
    ck_assert(path_matches("*.args.meta.**", "t", "args", "meta", "a", "[0]", NULL));
    ck_assert(!path_matches("*.args.meta.**", "t", "args", "other", NULL));
    /* ** twice */
    ck_assert(path_matches("*.args.**.a.**.b", "t", "args", "a", "b", NULL));
    ck_assert(path_matches("*.args.**.a.**.b", "t", "args", "x", "a", "y", "z", "b", NULL));
    ck_assert(!path_matches("*.args.**.a.**.b", "t", "args", "x", "b", NULL));
}
END_TEST

START_TEST(test_path_quoted_keys)
{
    ck_assert(path_matches("*.args.\"a.b\"", "t", "args", "a.b", NULL));
    ck_assert(!path_matches("*.args.\"a.b\"", "t", "args", "a", "b", NULL));
    ck_assert(path_matches("*.args.\"x*\"", "t", "args", "x*", NULL));
    ck_assert(!path_matches("*.args.\"x*\"", "t", "args", "xy", NULL));
    ck_assert(path_matches("*.args.\"*\"", "t", "args", "*", NULL));
    ck_assert(!path_matches("*.args.\"*\"", "t", "args", "a", NULL));
    ck_assert(path_matches("*.args.\"[0]\"", "t", "args", "[0]", NULL) == false);
    ck_assert(path_matches("*.args.\"say \\\"hi\\\"\"", "t", "args", "say \"hi\"", NULL));
    ck_assert(path_matches("*.args.\"back\\\\slash\"", "t", "args", "back\\slash", NULL));
    ck_assert(path_matches("*.args.\"\"", "t", "args", "", NULL));
    ck_assert(path_matches("\"mcp.search\".args.q", "mcp.search", "args", "q", NULL));
    ck_assert(!path_matches("\"mcp.search\".args.q", "mcp", "args", "q", NULL));
    ck_assert(path_matches("*.args.\"a.b\".c", "t", "args", "a.b", "c", NULL));
    ck_assert(path_matches("*.args.\"a\"[0]", "t", "args", "a", "[0]", NULL));
    /* a bare key may hold anything but . [ * " */
    ck_assert(path_matches("*.args.a b]c", "t", "args", "a b]c", NULL));
    ck_assert(path_matches("*.args.日付", "t", "args", "日付", NULL));
}
END_TEST

START_TEST(test_path_indexes)
{
    ck_assert(path_matches("*.args.items[2]", "t", "args", "items", "[2]", NULL));
    ck_assert(!path_matches("*.args.items[2]", "t", "args", "items", "[1]", NULL));
    ck_assert(!path_matches("*.args.items[2]", "t", "args", "items", NULL));
    ck_assert(path_matches("*.args.items[*]", "t", "args", "items", "[0]", NULL));
    ck_assert(path_matches("*.args.items[*]", "t", "args", "items", "[99]", NULL));
    ck_assert(!path_matches("*.args.items[*]", "t", "args", "items", "key", NULL));
    ck_assert(path_matches("*.args.trace[*].id", "t", "args", "trace", "[4]", "id", NULL));
    /* [*] in nested arrays */
    ck_assert(path_matches("*.args.m[*][*].id", "t", "args", "m", "[0]", "[1]", "id", NULL));
    ck_assert(!path_matches("*.args.m[*][*].id", "t", "args", "m", "[0]", "id", NULL));
    ck_assert(
        !path_matches("*.args.m[*][*].id", "t", "args", "m", "[0]", "[1]", "[2]", "id", NULL));
    ck_assert(path_matches("*.args.m[1][*]", "t", "args", "m", "[1]", "[5]", NULL));
    ck_assert(!path_matches("*.args.m[1][*]", "t", "args", "m", "[0]", "[5]", NULL));
    ck_assert(path_matches("*.args.m[007]", "t", "args", "m", "[7]", NULL));
}
END_TEST

START_TEST(test_path_errors_name_the_column)
{
    bad_pattern("", "column 1", "empty pattern");
    bad_pattern("*.args..x", "column 8", "empty key");
    bad_pattern("*.args.x.", "column 10", "ends with '.'");
    bad_pattern("*.args.x[", "column 10", "index");
    bad_pattern("*.args.x[a]", "column 10", "index");
    bad_pattern("*.args.x[-1]", "column 10", "index");
    bad_pattern("*.args.x[1", "column 11", "expected ']'");
    bad_pattern("*.args.x[99999999999]", "column 10", "too large");
    bad_pattern("**.args.x", "column 1", "not **");
    bad_pattern("*.args.re*q", "column 10", "quoted");
    bad_pattern("*.args.**x", "column 10", "stand alone");
    bad_pattern("*.args.\"open", "column 8", "closing");
    bad_pattern("*.args.\"a\\n\"", "column 10", "escapes");
    bad_pattern("*.args.\"a\"b", "column 11", "after a quoted key");
    bad_pattern("*.query", "column 3", "args");
    bad_pattern("search", "column 7", "inside a call");
    bad_pattern("*[0].x", "column 2", "cannot follow the tool");
    bad_pattern(".args.x", "column 1", "tool name");
    bad_pattern("\"\".args.x", "column 1", "empty tool");
    bad_pattern("日付.query", "column 4", "args"); /* columns count code points */
}
END_TEST

START_TEST(test_path_many_patterns_share_one_state)
{
    ts_rules_path_set *set = ts_rules_path_set_new();
    ts_rules_state *s0, *s1, *s2;
    size_t words;
    char p[64];
    ts_error err;

    for (int i = 0; i < 100; i++) {
        snprintf(p, sizeof(p), "*.args.k%d.**.v", i);
        ck_assert_int_eq(ts_rules_path_set_add(set, p, strlen(p), TS_RULES_REDACT, &err), 0);
    }
    ck_assert_int_eq(ts_rules_path_set_add(set, "*.args.k42", 10, TS_RULES_MATCH, &err), 0);
    ck_assert_int_eq(ts_rules_path_compile(set), 0);
    words = ts_rules_path_words(set);
    ck_assert_uint_gt(words, 1);
    s0 = calloc(words, sizeof(*s0));
    s1 = calloc(words, sizeof(*s1));
    s2 = calloc(words, sizeof(*s2));
    ck_assert(ts_rules_path_start(
        set, "x", 1, TS_RULES_KIND_BIT(TS_RULES_REDACT) | TS_RULES_KIND_BIT(TS_RULES_MATCH), s0));
    ck_assert(ts_rules_path_step_key(set, s0, "args", 4, s1));
    ck_assert(ts_rules_path_step_key(set, s1, "k42", 3, s2));
    ck_assert_int_eq(ts_rules_path_accepts(set, s2, TS_RULES_MATCH, true), 0);
    ck_assert_int_eq(ts_rules_path_accepts(set, s2, TS_RULES_REDACT, true), -1);
    ck_assert(ts_rules_path_step_key(set, s2, "v", 1, s1));
    ck_assert_int_eq(ts_rules_path_accepts(set, s1, TS_RULES_REDACT, true), 42);
    ck_assert(!ts_rules_path_alive(set, s1, TS_RULES_MATCH));
    ck_assert(!ts_rules_path_step_key(set, s0, "other", 5, s1));
    /* only the kinds asked for */
    ck_assert(ts_rules_path_start(set, "x", 1, TS_RULES_KIND_BIT(TS_RULES_MATCH), s0));
    ck_assert(ts_rules_path_step_key(set, s0, "args", 4, s1));
    ck_assert(!ts_rules_path_step_key(set, s1, "k1", 2, s2));
    ck_assert(!ts_rules_path_start(set, "x", 1, TS_RULES_KIND_BIT(TS_RULES_IGNORE), s0));
    free(s0);
    free(s1);
    free(s2);
    ts_rules_path_set_free(set);
}
END_TEST

/* ---- the rules object ----------------------------------------------------- */

static ts_rules *parse_ok(const char *text)
{
    ts_rules *r = NULL;
    ts_error err;

    ck_assert_msg(ts_rules_parse(text, strlen(text), "config.json", &r, &err) == 0, "%s: %s", text,
                  err.message);
    return r;
}

/* text must be refused with a message holding every one of the
 * NULL-terminated fragments. */
static void parse_fails(const char *text, ...)
{
    ts_rules *r = NULL;
    ts_error err;
    const char *want;
    va_list ap;

    ts_error_clear(&err);
    ck_assert_msg(ts_rules_parse(text, strlen(text), ".toolscore/config.json", &r, &err) < 0,
                  "accepted: %s", text);
    ck_assert_ptr_null(r);
    ck_assert_str_eq(err.code, TS_ERR_INVALID_RULES);
    ck_assert_msg(strncmp(err.message, ".toolscore/config.json: ", 24) == 0, "no file: %s",
                  err.message);
    va_start(ap, text);
    while ((want = va_arg(ap, const char *)) != NULL)
        ck_assert_msg(strstr(err.message, want) != NULL, "no '%s' in: %s", want, err.message);
    va_end(ap);
}

START_TEST(test_rules_parse_the_example)
{
    ts_rules *r = parse_ok("{\n"
                           "  \"ignore\": [\"*.args.request_id\", \"search.args.filters.**.ts\", "
                           "\"*.args.trace[*].id\"],\n"
                           "  \"redact\": [\"*.args.api_key\", \"send_email.args.to\"],\n"
                           "  \"order\": \"strict\",\n"
                           "  \"match\": {\"search.args.query\": {\"regex\": \"^weather in \"},\n"
                           "            \"*.args.temperature\": {\"approx\": 0.05},\n"
                           "            \"plan.args.steps\": {\"set\": true}},\n"
                           "  \"tools\": {\"log_event\": {\"ignore\": true}}\n"
                           "}\n");

    ck_assert(!ts_rules_empty(r));
    ck_assert_uint_eq(ts_rules_pattern_count(r, 0), 3);
    ck_assert_uint_eq(ts_rules_pattern_count(r, 1), 2);
    ck_assert_uint_eq(ts_rules_pattern_count(r, 2), 3);
    ck_assert_str_eq(ts_rules_pattern(r, 0, 1), "search.args.filters.**.ts");
    ck_assert_str_eq(ts_rules_pattern(r, 2, 0), "search.args.query");
    ck_assert_str_eq(ts_rules_matcher_name(r, 0), "regex");
    ck_assert_str_eq(ts_rules_matcher_name(r, 1), "approx");
    ck_assert_str_eq(ts_rules_matcher_name(r, 2), "set");
    ck_assert_uint_eq(ts_rules_tool_count(r), 1);
    ck_assert_str_eq(ts_rules_tool(r, 0), "log_event");
    ck_assert(ts_rules_drops_tools(r));
    ck_assert(ts_rules_has_redact(r));
    ck_assert_int_eq(ts_rules_order_of(r), TS_RULES_ORDER_STRICT);
    ts_rules_unref(r);
}
END_TEST

START_TEST(test_rules_empty_objects)
{
    const char *empty[] = {"{}",
                           "{\"order\": \"strict\"}",
                           "{\"ignore\": [], \"redact\": []}",
                           "{\"tools\": {\"x\": {\"ignore\": false}}}",
                           "{\"match\": {\"*.args.x\": {\"set\": false}}}",
                           " { } "};

    for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++) {
        ts_rules *r = parse_ok(empty[i]);
        ck_assert_msg(ts_rules_empty(r), "%s", empty[i]);
        ts_rules_unref(r);
    }
    ck_assert(ts_rules_empty(NULL));
    {
        ts_rules *r = parse_ok("{\"order\": \"unordered\"}");
        ck_assert(!ts_rules_empty(r));
        ck_assert_int_eq(ts_rules_order_of(r), TS_RULES_ORDER_UNORDERED);
        ts_rules_unref(r);
    }
}
END_TEST

START_TEST(test_rules_invalid_json)
{
    parse_fails("{", "line 1, column 2", NULL);
    parse_fails("{\n  \"ignore\": [\"*.args.x\",]\n}", "line 2", NULL);
    parse_fails("", "line 1, column 1", NULL);
    parse_fails("{} x", "line 1, column 4", NULL);
    parse_fails("[\"*.args.x\"]", "line 1, column 1", "must be a JSON object", NULL);
    parse_fails("null", "must be a JSON object", NULL);
}
END_TEST

START_TEST(test_rules_unknown_keys_anywhere)
{
    parse_fails("{\n  \"ignroe\": [\"*.args.x\"]\n}", "line 2, column 3", "unknown key 'ignroe'",
                "known: ignore, redact, order, match, tools", NULL);
    parse_fails("{\"match\": {\"*.args.x\": {\"regexp\": \"a\"}}}", "line 1, column 25",
                "unknown key 'regexp'", "match[\"*.args.x\"]", NULL);
    parse_fails("{\"tools\": {\"log\": {\"ignore\": true, \"skip\": true}}}", "line 1, column 36",
                "unknown key 'skip'", "tools[\"log\"]", NULL);
    parse_fails("{\"ignore\": [], \"Order\": \"strict\"}", "column 16", "unknown key 'Order'",
                NULL);
}
END_TEST

START_TEST(test_rules_bad_patterns)
{
    parse_fails("{\n  \"ignore\": [\"*.args.a\",\n             \"*.args..b\"]\n}",
                "line 3, column 14", "ignore[1]", "pattern '*.args..b', column 8", "empty key",
                NULL);
    parse_fails("{\"redact\": [\"*.query\"]}", "line 1, column 13", "redact[0]",
                "pattern '*.query', column 3", NULL);
    parse_fails("{\"match\": {\"*.args.x[\": {\"type\": true}}}", "line 1, column 12", "match",
                "pattern '*.args.x['", NULL);
    parse_fails("{\"ignore\": [\"*.args.x\", 7]}", "line 1, column 25",
                "ignore[1] must be a string", NULL);
    parse_fails("{\"ignore\": \"*.args.x\"}", "line 1, column 2", "'ignore' must be a list", NULL);
}
END_TEST

START_TEST(test_rules_bad_matchers)
{
    parse_fails("{\"match\": {\"*.args.q\": {\"regex\": \"(unclosed\"}}}", "line 1, column 25",
                "invalid regular expression '(unclosed'", NULL);
    parse_fails("{\"match\": {\"*.args.q\": {\"regex\": \"a{2,1}\"}}}",
                "invalid regular expression", NULL);
    parse_fails("{\"match\": {\"*.args.t\": {\"approx\": -0.5}}}", "line 1, column 25",
                "approx must be a number >= 0", "-0.5", NULL);
    parse_fails("{\"match\": {\"*.args.t\": {\"approx\": \"0.1\"}}}", "approx must be a number",
                NULL);
    parse_fails("{\"match\": {\"*.args.t\": {\"set\": 1}}}", "set must be true or false", NULL);
    parse_fails("{\"match\": {\"*.args.t\": {}}}", "line 1, column 12", "needs a matcher", NULL);
    parse_fails("{\"match\": {\"*.args.t\": {\"set\": true, \"type\": true}}}", "line 1, column 38",
                "more than one matcher", NULL);
    parse_fails("{\"match\": {\"*.args.t\": \"regex\"}}", "must be an object with one matcher",
                NULL);
    parse_fails("{\"match\": [\"*.args.t\"]}", "'match' must be an object", NULL);
    parse_fails("{\"match\": {\"*.args.q\": {\"regex\": \"a\\u0000b\"}}}", "NUL", NULL);
}
END_TEST

START_TEST(test_rules_bad_scalars_and_tools)
{
    parse_fails("{\"order\": \"random\"}", "line 1, column 2",
                "one of strict, unordered, superset, subset", "random", NULL);
    parse_fails("{\"order\": true}", "one of strict", NULL);
    parse_fails("{\"tools\": {\"log\": {\"ignore\": \"yes\"}}}", "ignore must be true or false",
                NULL);
    parse_fails("{\"tools\": {\"log\": true}}", "tools[\"log\"] must be an object", NULL);
    parse_fails("{\"tools\": {\"\": {\"ignore\": true}}}", "tool name is empty", NULL);
    parse_fails("{\"tools\": [\"log\"]}", "'tools' must be an object", NULL);
}
END_TEST

START_TEST(test_rules_duplicate_keys)
{
    parse_fails("{\"ignore\": [\"*.args.a\"],\n \"ignore\": [\"*.args.b\"]}", "line 2, column 2",
                "duplicate key 'ignore'", NULL);
    parse_fails("{\"match\": {\"*.args.a\": {\"set\": true}, \"*.args.a\": {\"type\": true}}}",
                "duplicate key '*.args.a'", NULL);
    parse_fails("{\"tools\": {\"a\": {\"ignore\": true, \"ignore\": false}}}", "duplicate key",
                NULL);
}
END_TEST

START_TEST(test_rules_from_json_names_the_source)
{
    struct json_object *o = util_json_c_parse("{\"ignore\": [\"*.args.ok\", \"*.bad\"]}");
    ts_rules *r = NULL;
    ts_error err;

    ck_assert_int_lt(ts_rules_from_json(o, "rules", &r, &err), 0);
    ck_assert_str_eq(err.code, TS_ERR_INVALID_RULES);
    ck_assert_str_eq(err.message, "rules: ignore[1]: pattern '*.bad', column 3: rules look at "
                                  "arguments: the path goes on with .args (TOOL.args.KEY)");
    json_object_put(o);
    o = util_json_c_parse("{\"shuffle\": true}");
    ck_assert_int_lt(ts_rules_from_json(o, "rules", &r, &err), 0);
    ck_assert_str_eq(err.message, "rules: unknown key 'shuffle' (known: ignore, redact, order, "
                                  "match, tools)");
    json_object_put(o);
}
END_TEST

START_TEST(test_rules_merge)
{
    ts_rules *base = parse_ok("{\"ignore\": [\"*.args.a\"], \"order\": \"unordered\", "
                              "\"match\": {\"*.args.q\": {\"regex\": \"^x\"}, \"*.args.t\": "
                              "{\"approx\": 1}}, \"tools\": {\"log\": {\"ignore\": true}}}");
    ts_rules *over = parse_ok("{\"ignore\": [\"*.args.b\"], \"redact\": [\"*.args.k\"], \"order\": "
                              "\"subset\", \"match\": {\"*.args.q\": {\"set\": true}}, "
                              "\"tools\": {\"log\": {\"ignore\": false}, \"ping\": {\"ignore\": "
                              "true}}}");
    ts_rules *m = NULL, *same = NULL;
    ts_error err;
    char *text;

    ck_assert_int_eq(ts_rules_merge(base, over, &m, &err), 0);
    text = util_json_compact(ts_rules_object(m));
    ck_assert_str_eq(text, "{\"ignore\": [\"*.args.a\", \"*.args.b\"], \"order\": \"subset\", "
                           "\"match\": {\"*.args.q\": {\"set\": true}, \"*.args.t\": {\"approx\": "
                           "1}}, \"tools\": {\"log\": {\"ignore\": false}, \"ping\": {\"ignore\": "
                           "true}}, \"redact\": [\"*.args.k\"]}");
    free(text);
    ck_assert_uint_eq(ts_rules_tool_count(m), 1);
    ck_assert_str_eq(ts_rules_tool(m, 0), "ping");
    ck_assert_str_eq(ts_rules_matcher_name(m, 0), "set");
    ck_assert_int_eq(ts_rules_order_of(m), TS_RULES_ORDER_SUBSET);
    /* either side empty: the other itself */
    ck_assert_int_eq(ts_rules_merge(NULL, over, &same, &err), 0);
    ck_assert_ptr_eq(same, over);
    ts_rules_unref(same);
    ck_assert_int_eq(ts_rules_merge(base, NULL, &same, &err), 0);
    ck_assert_ptr_eq(same, base);
    ts_rules_unref(same);
    ck_assert_int_eq(ts_rules_merge(NULL, NULL, &same, &err), 0);
    ck_assert_ptr_null(same);
    ts_rules_unref(m);
    ts_rules_unref(base);
    ts_rules_unref(over);
}
END_TEST

START_TEST(test_rules_config_path)
{
    char p[256];

    ck_assert_int_eq(ts_rules_config_path("/p/.toolscore/snapshots", p, sizeof(p)), 0);
    ck_assert_str_eq(p, "/p/.toolscore/config.json");
    ck_assert_int_eq(ts_rules_config_path("/p/tests/snaps/", p, sizeof(p)), 0);
    ck_assert_str_eq(p, "/p/tests/config.json");
    ck_assert_int_eq(ts_rules_config_path("/snaps", p, sizeof(p)), 0);
    ck_assert_str_eq(p, "/config.json");
    ck_assert_int_eq(ts_rules_config_path(".toolscore/snapshots", p, sizeof(p)), 0);
    ck_assert_str_eq(p, ".toolscore/config.json");
    ck_assert_int_eq(ts_rules_config_path("snaps", p, sizeof(p)), 0);
    ck_assert_str_eq(p, "config.json");
    ck_assert_int_eq(ts_rules_config_path("/p/.toolscore/snapshots", p, 10), -ENAMETOOLONG);
}
END_TEST

/* ---- redaction and the census ------------------------------------------- */

START_TEST(test_redact_observed_calls)
{
    ts_rules *r = parse_ok("{\"redact\": [\"*.args.api_key\", \"send_email.args.to\", "
                           "\"*.args.auth.**\"]}");
    struct json_object *calls = util_json_c_parse(
        "[{\"tool\": \"search\", \"args\": {\"q\": \"x\", \"api_key\": \"sk-1\"}},"
        " {\"tool\": \"send_email\", \"args\": {\"to\": [\"a@b.c\"], \"body\": \"hi\"}},"
        " {\"tool\": \"noop\"},"
        " {\"tool\": \"login\", \"args\": {\"auth\": {\"user\": \"u\", \"pw\": \"p\"}}},"
        " {\"tool\": \"search\", \"args\": {\"q\": \"y\"}}]");
    struct json_object *out = NULL, *again = NULL;
    size_t count = 0;
    ts_error err;
    char *text;

    ck_assert_int_eq(ts_rules_redact(r, calls, &out, &count, &err), 0);
    ck_assert_uint_eq(count, 3);
    text = util_json_compact(out);
    ck_assert_str_eq(text, "[{\"tool\": \"search\", \"args\": {\"q\": \"x\", \"api_key\": "
                           "\"[redacted]\"}}, {\"tool\": \"send_email\", \"args\": {\"to\": "
                           "\"[redacted]\", \"body\": \"hi\"}}, {\"tool\": \"noop\"}, {\"tool\": "
                           "\"login\", \"args\": {\"auth\": \"[redacted]\"}}, {\"tool\": "
                           "\"search\", \"args\": {\"q\": \"y\"}}]");
    free(text);
    /* the input is untouched; unchanged calls are shared */
    text = util_json_compact(json_object_array_get_idx(calls, 0));
    ck_assert(strstr(text, "sk-1") != NULL);
    free(text);
    ck_assert_ptr_eq(json_object_array_get_idx(out, 4), json_object_array_get_idx(calls, 4));
    /* redacting again changes nothing and counts nothing */
    ck_assert_int_eq(ts_rules_redact(r, out, &again, &count, &err), 0);
    ck_assert_uint_eq(count, 0);
    ck_assert_ptr_eq(again, out);
    json_object_put(again);
    json_object_put(out);
    json_object_put(calls);
    ts_rules_unref(r);
}
END_TEST

START_TEST(test_redact_whole_args_redacts_each_argument)
{
    ts_rules *r = parse_ok("{\"redact\": [\"secret.args\"]}");
    struct json_object *calls =
        util_json_c_parse("[{\"tool\": \"secret\", \"args\": {\"a\": 1, \"b\": {\"c\": 2}}},"
                          " {\"tool\": \"secret\", \"args\": null}]");
    struct json_object *out = NULL;
    size_t count = 0;
    ts_error err;
    char *text;

    ck_assert_int_eq(ts_rules_redact(r, calls, &out, &count, &err), 0);
    ck_assert_uint_eq(count, 2);
    text = util_json_compact(out);
    ck_assert_str_eq(text, "[{\"tool\": \"secret\", \"args\": {\"a\": \"[redacted]\", \"b\": "
                           "\"[redacted]\"}}, {\"tool\": \"secret\", \"args\": null}]");
    free(text);
    json_object_put(out);
    json_object_put(calls);
    ts_rules_unref(r);
}
END_TEST

START_TEST(test_no_redact_rules_is_the_same_list)
{
    ts_rules *r = parse_ok("{\"ignore\": [\"*.args.x\"]}");
    struct json_object *calls = util_json_c_parse("[{\"tool\": \"a\", \"args\": {\"x\": 1}}]");
    struct json_object *out = NULL;
    size_t count = 7;
    ts_error err;

    ck_assert_int_eq(ts_rules_redact(r, calls, &out, &count, &err), 0);
    ck_assert_ptr_eq(out, calls);
    ck_assert_uint_eq(count, 0);
    json_object_put(out);
    ck_assert_int_eq(ts_rules_redact(NULL, calls, &out, &count, &err), 0);
    ck_assert_ptr_eq(out, calls);
    json_object_put(out);
    json_object_put(calls);
    ts_rules_unref(r);
}
END_TEST

START_TEST(test_census)
{
    ts_rules *r = parse_ok("{\"ignore\": [\"*.args.id\", \"*.args.none\"], \"redact\": "
                           "[\"*.args.key\"], \"match\": {\"s.args.q\": {\"type\": true}}, "
                           "\"tools\": {\"log\": {\"ignore\": true}}}");
    struct json_object *a = util_json_c_parse(
        "[{\"tool\": \"s\", \"args\": {\"id\": 1, \"q\": \"x\", \"key\": \"[redacted]\"}},"
        " {\"tool\": \"log\", \"args\": {\"id\": 2, \"key\": \"k\"}}]");
    struct json_object *b =
        util_json_c_parse("[{\"tool\": \"s\", \"args\": {\"id\": 1, \"key\": \"sk\"}},"
                          " {\"tool\": \"t\", \"args\": {\"id\": 3, \"q\": 1}}]");
    ts_rules_census c;
    bool redactable = true;

    ck_assert_int_eq(ts_rules_census_init(r, &c), 0);
    ck_assert_int_eq(ts_rules_census_add(r, a, &c, &redactable), 0);
    ck_assert(!redactable); /* the log call is ignored, the key already redacted */
    ck_assert_int_eq(ts_rules_census_add(r, b, &c, &redactable), 0);
    ck_assert(redactable);
    ck_assert_uint_eq(c.lists_seen, 2);
    ck_assert_uint_eq(c.values[0][0], 3);
    ck_assert_uint_eq(c.lists[0][0], 2);
    ck_assert_uint_eq(c.values[0][1], 0);
    ck_assert_uint_eq(c.values[1][0], 1);
    ck_assert_uint_eq(c.lists[1][0], 1);
    ck_assert_uint_eq(c.values[2][0], 1);
    ck_assert_uint_eq(c.tool_calls[0], 1);
    ck_assert_uint_eq(c.tool_lists[0], 1);
    ts_rules_census_free(&c);
    json_object_put(a);
    json_object_put(b);
    ts_rules_unref(r);
}
END_TEST

static Suite *rules_suite(void)
{
    Suite *s = suite_create("rules");
    TCase *tc = tcase_create("paths");

    tcase_add_test(tc, test_path_literal_and_any_tool);
    tcase_add_test(tc, test_path_any_key_is_one_level);
    tcase_add_test(tc, test_path_double_star_at_every_depth);
    tcase_add_test(tc, test_path_quoted_keys);
    tcase_add_test(tc, test_path_indexes);
    tcase_add_test(tc, test_path_errors_name_the_column);
    tcase_add_test(tc, test_path_many_patterns_share_one_state);
    suite_add_tcase(s, tc);
    tc = tcase_create("object");
    tcase_add_test(tc, test_rules_parse_the_example);
    tcase_add_test(tc, test_rules_empty_objects);
    tcase_add_test(tc, test_rules_invalid_json);
    tcase_add_test(tc, test_rules_unknown_keys_anywhere);
    tcase_add_test(tc, test_rules_bad_patterns);
    tcase_add_test(tc, test_rules_bad_matchers);
    tcase_add_test(tc, test_rules_bad_scalars_and_tools);
    tcase_add_test(tc, test_rules_duplicate_keys);
    tcase_add_test(tc, test_rules_from_json_names_the_source);
    tcase_add_test(tc, test_rules_merge);
    tcase_add_test(tc, test_rules_config_path);
    suite_add_tcase(s, tc);
    tc = tcase_create("redact");
    tcase_add_test(tc, test_redact_observed_calls);
    tcase_add_test(tc, test_redact_whole_args_redacts_each_argument);
    tcase_add_test(tc, test_no_redact_rules_is_the_same_list);
    tcase_add_test(tc, test_census);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return util_run_suite(rules_suite());
}
