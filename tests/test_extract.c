/*
 * test_extract — ts_extract on every format of docs/extraction.md: realistic provider
 * responses from tests/data/extract/ (each NAME.json with NAME.expected.json
 * when it yields calls), detection order, explicit formats on the wrong
 * shape, malformed input, huge and deeply nested input.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/ts_base.h"
#include "lib/extract/ts_extract.h"
#include "lib/json/ts_json.h"
#include "util_extract.h"
#include "util_test.h"

/* ---- realistic fixtures: detection and explicit format agree --------------- */

typedef struct fixture_case {
    const char *name;   /* tests/data/extract/<name>.json, <name>.expected.json */
    const char *format; /* what detection must pick */
} fixture_case;

static const fixture_case detected[] = {
    {"openai_parallel_tool_calls", "openai"},
    {"openai_legacy_function_call", "openai"},
    {"openai_multiple_choices", "openai"},
    {"openai_argument_edge_cases", "openai"},
    {"openai_text_only", "openai"},
    {"openai_responses", "openai-responses"},
    {"openai_responses_items", "openai-responses"},
    {"anthropic_message", "anthropic"},
    {"anthropic_edge_cases", "anthropic"},
    {"anthropic_text_only", "anthropic"},
    {"gemini_generate_content", "gemini"},
    {"gemini_snake_case", "gemini"},
    {"langgraph_state", "langgraph"},
    {"langgraph_state_openai_wire", "langgraph"},
    {"langgraph_message_list", "langgraph"},
    {"openai_agents_run_result", "openai-agents"},
    {"claude_agent_sdk_messages", "claude-agent-sdk"},
    {"claude_agent_sdk_nested", "claude-agent-sdk"},
    {"pydantic_ai_messages", "pydantic-ai"},
    {"mcp_session", "mcp"},
    {"mcp_single_request", "mcp"},
    {"mcp_response_only", "mcp"},
    {"calls_list", "calls"},
};

START_TEST(test_fixture_detected)
{
    assert_fixture_detected(detected[_i].name, detected[_i].format);
}
END_TEST

/* Formats that are never detected (or inputs detection does not pick). */
static const fixture_case explicit_only[] = {
    {"langchain_steps", "langchain"},       {"custom_calls_object", "custom"},
    {"custom_tool_calls_object", "custom"}, {"custom_single_call", "custom"},
    {"custom_bare_array", "custom"},        {"langgraph_no_tool_calls", "langgraph"},
};

START_TEST(test_fixture_explicit)
{
    const fixture_case *c = &explicit_only[_i];
    struct json_object *in = load_fixture(c->name, ".json");
    struct json_object *want = load_fixture(c->name, ".expected.json");
    struct json_object *got = extract_ok(in, c->format, TS_EXTRACT_FILE);

    assert_json_eq(got, want, c->name);
    json_object_put(got);
    json_object_put(in);
    json_object_put(want);
}
END_TEST

/* ---- malformed fixtures: a clear error naming format and place -------------- */

typedef struct error_case {
    const char *name;
    const char *format; /* NULL: auto */
    ts_extract_origin origin;
    const char *want; /* substring of the message */
} error_case;

static const error_case errors[] = {
    {"openai_choices_not_array", NULL, TS_EXTRACT_RESPONSE,
     "openai: \"choices\" is an object, not an array"},
    {"openai_tool_calls_not_array", NULL, TS_EXTRACT_RESPONSE,
     "openai: choices[0].message.tool_calls is not an array"},
    {"openai_message_not_object", "openai", TS_EXTRACT_RESPONSE,
     "openai: choices[0].message is not an object"},
    {"openai_function_not_object", NULL, TS_EXTRACT_RESPONSE,
     "openai: choices[0].message.tool_calls[0].function is not an object"},
    {"anthropic_block_not_object", NULL, TS_EXTRACT_RESPONSE,
     "anthropic: content[1] is not an object"},
    {"gemini_parts_not_array", NULL, TS_EXTRACT_RESPONSE,
     "gemini: candidates[0].content.parts is not an array"},
    {"gemini_candidates_not_array", "gemini", TS_EXTRACT_RESPONSE,
     "gemini: \"candidates\" is a string, not an array"},
    {"langgraph_unrecognized_entries", NULL, TS_EXTRACT_RESPONSE,
     "langgraph: the tool_calls entries have an unrecognized shape"},
    {"openai_agents_raw_item_not_object", NULL, TS_EXTRACT_RESPONSE,
     "openai-agents: new_items[0].raw_item is not an object"},
    {"mcp_params_not_object", NULL, TS_EXTRACT_RESPONSE,
     "mcp: message at index 0: params is not an object"},
    {"custom_calls_not_array", "custom", TS_EXTRACT_FILE,
     "custom: \"calls\" is a string, not an array"},
    {"unknown_object", NULL, TS_EXTRACT_RESPONSE, "cannot auto-detect the format of an object"},
    {"unknown_array", NULL, TS_EXTRACT_RESPONSE, "cannot auto-detect the format of an array"},
    {"langgraph_no_tool_calls", NULL, TS_EXTRACT_RESPONSE,
     "cannot auto-detect the format of an object"},
    /* explicit formats on another provider's shape name what was missing */
    {"anthropic_message", "openai", TS_EXTRACT_RESPONSE,
     "openai: expected an object with a \"choices\" array, got an object without \"choices\""},
    {"openai_parallel_tool_calls", "anthropic", TS_EXTRACT_RESPONSE,
     "anthropic: expected a message object with a \"content\" array"},
    {"openai_parallel_tool_calls", "gemini", TS_EXTRACT_RESPONSE,
     "gemini: expected an object with a \"candidates\" array"},
    {"openai_parallel_tool_calls", "langgraph", TS_EXTRACT_RESPONSE,
     "langgraph: expected a state object with a \"messages\" array"},
    {"openai_parallel_tool_calls", "openai-agents", TS_EXTRACT_RESPONSE,
     "openai-agents: expected a run result object with a \"new_items\" array"},
    {"openai_parallel_tool_calls", "openai-responses", TS_EXTRACT_RESPONSE,
     "openai-responses: expected a response object with an \"output\" array"},
    {"openai_parallel_tool_calls", "claude-agent-sdk", TS_EXTRACT_RESPONSE,
     "claude-agent-sdk: expected an array of messages, got an object"},
    {"openai_parallel_tool_calls", "pydantic-ai", TS_EXTRACT_RESPONSE,
     "pydantic-ai: expected an array of messages with \"parts\""},
    {"openai_parallel_tool_calls", "mcp", TS_EXTRACT_RESPONSE,
     "mcp: expected a JSON-RPC message (an object with \"jsonrpc\")"},
    {"openai_parallel_tool_calls", "calls", TS_EXTRACT_RESPONSE,
     "calls: expected an array of calls, got an object"},
    {"langgraph_message_list", "calls", TS_EXTRACT_RESPONSE,
     "calls: item at index 0 has no \"tool\" key"},
    {"openai_parallel_tool_calls", "langchain", TS_EXTRACT_FILE,
     "langchain: expected an array of agent steps, got an object"},
    {"mcp_session", "openai-responses", TS_EXTRACT_RESPONSE, ""},
    /* file-only formats are refused for in-memory responses */
    {"langchain_steps", "langchain", TS_EXTRACT_RESPONSE,
     "format 'langchain' is only accepted for trace files"},
    {"custom_bare_array", "custom", TS_EXTRACT_RESPONSE,
     "format 'custom' is only accepted for trace files"},
    {"calls_list", "openai-chat", TS_EXTRACT_RESPONSE, "unknown format 'openai-chat'"},
};

START_TEST(test_fixture_error)
{
    const error_case *c = &errors[_i];
    struct json_object *in = load_fixture(c->name, ".json");

    if (c->want[0] == '\0') {
        /* a list of JSON-RPC messages holds no function_call item: [] */
        struct json_object *got = extract_ok(in, c->format, c->origin);

        ck_assert_uint_eq(json_object_array_length(got), 0);
        json_object_put(got);
    } else {
        extract_fails(in, c->format, c->origin, c->want);
    }
    json_object_put(in);
}
END_TEST

/* ---- the examples of docs/extraction.md --------------------------------- */

START_TEST(test_spec_examples)
{
    assert_extracts("{\"choices\":[{\"message\":{\"tool_calls\":[{\"function\":{\"name\":\"get_"
                    "weather\",\"arguments\":\"{\\\"city\\\": \\\"NYC\\\"}\"}}]}}]}",
                    NULL, "[{\"tool\":\"get_weather\",\"args\":{\"city\":\"NYC\"}}]");
    assert_extracts("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"},{"
                    "\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"search\",\"input\":{\"q\":"
                    "\"x\"}}]}",
                    NULL, "[{\"tool\":\"search\",\"args\":{\"q\":\"x\"}}]");
    assert_extracts("{\"new_items\":[{\"type\":\"message_output_item\"},{\"type\":\"tool_call_"
                    "item\",\"raw_item\":{\"name\":\"lookup\",\"arguments\":\"{\\\"id\\\": "
                    "7}\"}}]}",
                    NULL, "[{\"tool\":\"lookup\",\"args\":{\"id\":7}}]");
}
END_TEST

/* An object with toolCalls that detection does not take: the error says
 * what it most likely is and how to say so; other objects get no such hint. */
START_TEST(test_undetected_tool_calls_suggest_vercel_ai)
{
    struct json_object *obj = parse_text("{\"toolCalls\": [{\"name\": \"a\"}], \"x\": 1}");
    struct json_object *other = parse_text("{\"calls\": 1}");
    struct json_object *calls = NULL;
    ts_error err;

    extract_fails(obj, NULL, TS_EXTRACT_RESPONSE,
                  "; it has \"toolCalls\": if it is a Vercel AI SDK result, give the format "
                  "'vercel-ai' (format: 'vercel-ai', format=\"vercel-ai\", --format vercel-ai)");
    extract_fails(obj, NULL, TS_EXTRACT_FILE, "give the format 'vercel-ai'");
    ck_assert_int_lt(ts_extract(other, NULL, TS_EXTRACT_RESPONSE, &calls, &err), 0);
    ck_assert_ptr_null(strstr(err.message, "vercel-ai'"));
    json_object_put(obj);
    json_object_put(other);
}
END_TEST

START_TEST(test_cannot_detect_messages)
{
    struct json_object *obj = parse_text("{\"foo\": 1}");
    struct json_object *str = json_object_new_string("hello");
    struct json_object *num = json_object_new_int(3);
    struct json_object *dbl = json_object_new_double(2.5);
    struct json_object *bol = json_object_new_boolean(1);
    ts_error err;
    struct json_object *calls;

    extract_fails(obj, NULL, TS_EXTRACT_RESPONSE, "cannot auto-detect the format of an object");
    extract_fails(str, NULL, TS_EXTRACT_RESPONSE, "cannot auto-detect the format of a string");
    extract_fails(num, NULL, TS_EXTRACT_RESPONSE, "cannot auto-detect the format of a number");
    extract_fails(dbl, "auto", TS_EXTRACT_RESPONSE, "cannot auto-detect the format of a number");
    extract_fails(bol, NULL, TS_EXTRACT_RESPONSE, "cannot auto-detect the format of a boolean");
    extract_fails(NULL, NULL, TS_EXTRACT_RESPONSE, "cannot auto-detect the format of null");
    /* every supported format is listed */
    ck_assert_int_lt(ts_extract(obj, NULL, TS_EXTRACT_RESPONSE, &calls, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "supported formats: calls, openai, "
                                              "openai-responses, anthropic, gemini, langgraph, "
                                              "openai-agents, claude-agent-sdk, pydantic-ai, mcp"));
    /* files: --format custom is suggested */
    ck_assert_int_lt(ts_extract(obj, NULL, TS_EXTRACT_FILE, &calls, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "cannot auto-detect the format of an object"));
    ck_assert_ptr_nonnull(strstr(err.message, "--format custom"));
    ck_assert_ptr_nonnull(strstr(err.message, "langchain, custom"));
    json_object_put(obj);
    json_object_put(str);
    json_object_put(num);
    json_object_put(dbl);
    json_object_put(bol);
}
END_TEST

START_TEST(test_format_names)
{
    static const char *const known[] = {
        "auto",      "calls",         "openai", "openai-responses", "anthropic",        "gemini",
        "langgraph", "openai-agents", "mcp",    "pydantic-ai",      "claude-agent-sdk", "langchain",
        "custom",
    };
    size_t i;

    for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        ck_assert_msg(ts_extract_format_known(known[i]), "%s", known[i]);
        ck_assert_ptr_nonnull(strstr(ts_extract_format_list(), known[i]));
    }
    ck_assert(!ts_extract_format_known("OpenAI"));
    ck_assert(!ts_extract_format_known(""));
    ck_assert(!ts_extract_format_known(NULL));
    ck_assert(!ts_extract_format_known("langgraph "));
}
END_TEST

/* ---- detection order ----------------------------------------------------- */

START_TEST(test_detection_order)
{
    /* an empty array is an empty calls list */
    assert_detects("[]", "calls");
    /* only the first element decides rule 1 */
    assert_detects("[{\"tool\": \"a\"}, {\"role\": \"x\", \"tool_calls\": [{\"name\": \"b\"}]}]",
                   "calls");
    /* choices beats content, candidates, messages, new_items, jsonrpc */
    assert_detects("{\"choices\": [], \"content\": [{\"type\": \"tool_use\"}], \"candidates\": [],"
                   " \"new_items\": [], \"jsonrpc\": \"2.0\"}",
                   "openai");
    /* anthropic needs a typed block; a text content falls through */
    assert_detects("{\"content\": [{\"type\": \"text\"}], \"candidates\": []}", "anthropic");
    assert_detects("{\"content\": \"hi\", \"candidates\": []}", "gemini");
    assert_detects("{\"content\": [{\"text\": \"untyped\"}], \"candidates\": []}", "gemini");
    assert_detects("{\"content\": [], \"new_items\": []}", "openai-agents");
    /* langgraph state before openai-agents */
    assert_detects("{\"messages\": [{\"tool_calls\": [{\"name\": \"a\"}]}], \"new_items\": []}",
                   "langgraph");
    /* messages without tool calls do not make a langgraph state */
    assert_detects("{\"messages\": [{\"tool_calls\": []}], \"new_items\": []}", "openai-agents");
    assert_detects("{\"output\": [{\"type\": \"function_call\", \"name\": \"f\"}], "
                   "\"jsonrpc\": \"2.0\"}",
                   "openai-responses");
    /* a Responses object holding only a message is one (it gives []) */
    assert_detects("{\"output\": [{\"type\": \"message\"}], \"jsonrpc\": \"2.0\"}",
                   "openai-responses");
    assert_detects("{\"object\": \"response\", \"output\": []}", "openai-responses");
    /* claude-agent-sdk before the bare langgraph list */
    assert_detects("[{\"tool_calls\": [{\"name\": \"a\"}]}, {\"content\": [{\"type\": "
                   "\"tool_use\", \"name\": \"b\"}]}]",
                   "claude-agent-sdk");
    assert_detects("[{\"type\": \"assistant\", \"message\": {\"content\": [{\"type\": "
                   "\"tool_use\", \"name\": \"b\"}]}}]",
                   "claude-agent-sdk");
    assert_detects("[{\"role\": \"user\", \"content\": \"hi\"}, {\"tool_calls\": [{\"function\": "
                   "{\"name\": \"a\"}}]}]",
                   "langgraph");
    assert_detects("[{\"type\": \"function_call\", \"name\": \"a\"}, {\"parts\": [{\"part_kind\": "
                   "\"tool-call\"}]}]",
                   "openai-responses");
    assert_detects("[{\"parts\": [{\"part_kind\": \"tool-call\"}]}, {\"jsonrpc\": \"2.0\"}]",
                   "pydantic-ai");
    assert_detects("[{\"jsonrpc\": \"2.0\", \"method\": \"ping\"}]", "mcp");
    assert_detects("{\"jsonrpc\": \"2.0\"}", "mcp");
}
END_TEST

START_TEST(test_undetected_shapes)
{
    static const char *const inputs[] = {
        "{}",
        "{\"content\": []}",
        "{\"messages\": []}",
        "{\"messages\": \"x\"}",
        "{\"output\": []}",
        "{\"output\": [{\"type\": \"message\"}, {\"text\": \"untyped\"}]}",
        "{\"output\": \"function_call\"}",
        "[1, 2, 3]",
        "[[{\"tool\": \"x\"}]]",
        "[{\"content\": [{\"type\": \"text\"}]}]",
        "[{\"parts\": [{\"part_kind\": \"text\"}]}]",
        "[{\"name\": \"x\", \"args\": {}}]",
        "\"{\\\"choices\\\": []}\"",
    };
    size_t i;

    for (i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
        struct json_object *in = parse_text(inputs[i]);

        ck_assert_msg(ts_extract_detect(in) == NULL, "%s detected as %s", inputs[i],
                      ts_extract_detect(in));
        extract_fails(in, NULL, TS_EXTRACT_RESPONSE, "cannot auto-detect the format of");
        json_object_put(in);
    }
}
END_TEST

/* ---- output shape and ownership -------------------------------------------- */

START_TEST(test_output_key_order_and_copy)
{
    struct json_object *in = load_fixture("anthropic_message", ".json");
    struct json_object *calls;
    struct json_object *call;
    ts_buf before, after;
    struct json_object_iterator it;

    compact(in, &before);
    calls = extract_ok(in, NULL, TS_EXTRACT_RESPONSE);
    call = json_object_array_get_idx(calls, 0);
    it = json_object_iter_begin(call);
    ck_assert_str_eq(json_object_iter_peek_name(&it), "tool");
    json_object_iter_next(&it);
    ck_assert_str_eq(json_object_iter_peek_name(&it), "args");
    ck_assert_int_eq(json_object_object_length(call), 2);
    /* changing the result leaves the input as it was */
    json_object_object_add(json_object_object_get(call, "args"), "changed", NULL);
    json_object_put(calls);
    compact(in, &after);
    ck_assert_str_eq(before.data, after.data);
    ts_buf_free(&before);
    ts_buf_free(&after);
    json_object_put(in);
}
END_TEST

START_TEST(test_calls_kept_as_they_are)
{
    struct json_object *in = parse_text("[{\"tool\": \"a\", \"extra\": [1], \"args\": null}, "
                                        "{\"tool\": \"\"}, {\"tool\": \"b\"}]");
    struct json_object *got = extract_ok(in, NULL, TS_EXTRACT_RESPONSE);

    assert_json_eq(got, in, "calls");
    ck_assert_ptr_ne(got, in);
    json_object_put(got);
    json_object_put(in);
}
END_TEST

START_TEST(test_bad_arguments)
{
    struct json_object *in = load_fixture("calls_list", ".json");
    struct json_object *calls = in;
    ts_error err;

    ck_assert_int_eq(ts_extract(in, NULL, TS_EXTRACT_RESPONSE, NULL, &err), -EINVAL);
    ck_assert_str_eq(err.code, TS_ERR_INVALID_ARGUMENT);
    /* a NULL error object is allowed; *calls_out is reset on failure */
    ck_assert_int_lt(ts_extract(in, "nope", TS_EXTRACT_RESPONSE, &calls, NULL), 0);
    ck_assert_ptr_null(calls);
    json_object_put(in);
}
END_TEST

/* ---- huge and deep input ---------------------------------------------------- */

START_TEST(test_huge_openai_response)
{
    enum { N = 100000 };
    struct json_object *in = json_object_new_object();
    struct json_object *choices = json_object_new_array();
    struct json_object *choice = json_object_new_object();
    struct json_object *message = json_object_new_object();
    struct json_object *tool_calls = json_object_new_array_ext(N);
    struct json_object *calls;
    char name[32], args[64];
    int i;

    for (i = 0; i < N; i++) {
        struct json_object *fn = json_object_new_object();
        struct json_object *tc = json_object_new_object();

        snprintf(name, sizeof(name), i % 7 == 3 ? "" : "tool_%d", i);
        snprintf(args, sizeof(args), "{\"i\": %d}", i);
        json_object_object_add(fn, "name", json_object_new_string(name));
        json_object_object_add(fn, "arguments", json_object_new_string(args));
        json_object_object_add(tc, "function", fn);
        json_object_array_add(tool_calls, tc);
    }
    json_object_object_add(message, "tool_calls", tool_calls);
    json_object_object_add(choice, "message", message);
    json_object_array_add(choices, choice);
    json_object_object_add(in, "choices", choices);

    calls = extract_ok(in, NULL, TS_EXTRACT_RESPONSE);
    /* names "" (every 7th from index 3) are dropped, order kept */
    ck_assert_uint_eq(json_object_array_length(calls), N - (N - 3 + 6) / 7);
    for (i = 0; i < (int)json_object_array_length(calls); i += 997) {
        struct json_object *call = json_object_array_get_idx(calls, (size_t)i);
        int orig =
            json_object_get_int(json_object_object_get(json_object_object_get(call, "args"), "i"));

        snprintf(name, sizeof(name), "tool_%d", orig);
        ck_assert_str_eq(json_object_get_string(json_object_object_get(call, "tool")), name);
        ck_assert_int_eq(orig, i + (i + 3) / 6);
    }
    json_object_put(calls);
    json_object_put(in);
}
END_TEST

START_TEST(test_huge_message_list)
{
    enum { N = 50000 };
    struct json_object *in = json_object_new_array_ext(N);
    struct json_object *calls;
    int i;

    /* one call at the very end: detection scans the whole list */
    for (i = 0; i < N; i++) {
        struct json_object *m = json_object_new_object();

        json_object_object_add(m, "role", json_object_new_string("assistant"));
        json_object_object_add(m, "content", json_object_new_string("thinking"));
        json_object_array_add(in, m);
    }
    json_object_array_put_idx(in, N - 1,
                              parse_text("{\"role\": \"assistant\", \"content\": [{\"type\": "
                                         "\"tool_use\", \"name\": \"last\", \"input\": {}}]}"));
    ck_assert_str_eq(ts_extract_detect(in), "claude-agent-sdk");
    calls = extract_ok(in, NULL, TS_EXTRACT_RESPONSE);
    ck_assert_uint_eq(json_object_array_length(calls), 1);
    json_object_put(calls);
    json_object_put(in);
}
END_TEST

/* Nest depth levels of {"a": ...} around leaf. */
static struct json_object *nest(int depth, struct json_object *leaf)
{
    struct json_object *v = leaf;
    int i;

    for (i = 0; i < depth; i++) {
        struct json_object *o = json_object_new_object();

        json_object_object_add(o, "a", v);
        v = o;
    }
    return v;
}

START_TEST(test_deep_nesting)
{
    enum { DEPTH = 120, TEXT_DEPTH = 100000 };
    struct json_object *in = json_object_new_object();
    struct json_object *content = json_object_new_array();
    struct json_object *block = json_object_new_object();
    struct json_object *block2 = json_object_new_object();
    struct json_object *calls;
    char *deep = malloc(2 * TEXT_DEPTH + 1);
    int i;

    /* deeply nested input objects are copied intact */
    json_object_object_add(block, "type", json_object_new_string("tool_use"));
    json_object_object_add(block, "name", json_object_new_string("deep"));
    json_object_object_add(block, "input", nest(DEPTH, json_object_new_int(1)));
    json_object_array_add(content, block);
    /* an argument string nested far too deep does not parse: {} */
    for (i = 0; i < TEXT_DEPTH; i++) {
        deep[i] = '[';
        deep[2 * TEXT_DEPTH - 1 - i] = ']';
    }
    deep[2 * TEXT_DEPTH] = '\0';
    json_object_object_add(block2, "type", json_object_new_string("tool_use"));
    json_object_object_add(block2, "name", json_object_new_string("deep_text"));
    json_object_object_add(block2, "input", json_object_new_string(deep));
    json_object_array_add(content, block2);
    json_object_object_add(in, "content", content);

    calls = extract_ok(in, NULL, TS_EXTRACT_RESPONSE);
    ck_assert_uint_eq(json_object_array_length(calls), 2);
    ck_assert(json_object_equal(json_object_object_get(json_object_array_get_idx(calls, 0), "args"),
                                json_object_object_get(block, "input")));
    ck_assert_int_eq(json_object_object_length(
                         json_object_object_get(json_object_array_get_idx(calls, 1), "args")),
                     0);
    json_object_put(calls);
    json_object_put(in);
    free(deep);
}
END_TEST

START_TEST(test_wrong_types_everywhere)
{
    /* each container replaced by a scalar, an array or an object: an error
     * or no call, never a crash */
    static const char *const inputs[] = {
        "{\"choices\": [1]}",
        "{\"choices\": [{\"message\": {\"tool_calls\": [\"x\"]}}]}",
        "{\"choices\": [{\"message\": {\"function_call\": 7}}]}",
        "{\"choices\": [[[[[]]]]]}",
        "{\"content\": [{\"type\": \"tool_use\", \"name\": [\"x\"]}, 3]}",
        "{\"candidates\": [{\"content\": []}]}",
        "{\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": \"f\"}]}}]}",
        "{\"candidates\": [null, 1]}",
        "{\"messages\": [{\"tool_calls\": [1]}]}",
        "{\"messages\": [1, {\"tool_calls\": [{\"name\": \"a\"}]}]}",
        "{\"messages\": [{\"tool_calls\": [{\"name\": \"a\"}]}, {\"tool_calls\": {}}]}",
        "{\"new_items\": {}}",
        "{\"new_items\": [\"tool_call_item\"]}",
        "{\"output\": [{\"type\": \"function_call\"}, 5]}",
        "[{\"parts\": [{\"part_kind\": \"tool-call\"}, 1]}]",
        "[{\"parts\": [{\"part_kind\": \"tool-call\"}]}, {\"parts\": 1}]",
        "[{\"jsonrpc\": \"2.0\"}, 1]",
        "[{\"content\": [{\"type\": \"tool_use\"}, 1]}]",
        "[{\"content\": [{\"type\": \"tool_use\"}]}, 7]",
    };
    size_t i;

    for (i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
        struct json_object *in = parse_text(inputs[i]);
        struct json_object *calls = NULL;
        ts_error err;
        int rc;

        ts_error_clear(&err);
        rc = ts_extract(in, NULL, TS_EXTRACT_RESPONSE, &calls, &err);
        if (rc < 0) {
            ck_assert_ptr_null(calls);
            ck_assert_str_eq(err.code, TS_ERR_FORMAT);
            ck_assert_msg(strlen(err.message) > 10, "%s: empty message", inputs[i]);
        } else {
            ck_assert_msg(json_object_array_length(calls) == 0, "%s gave calls", inputs[i]);
            json_object_put(calls);
        }
        json_object_put(in);
    }
}
END_TEST

START_TEST(test_user_messages_and_tool_results_never_calls)
{
    assert_extracts("[{\"role\": \"user\", \"content\": [{\"type\": \"tool_use\", \"name\": "
                    "\"fake\"}]}, {\"role\": \"assistant\", \"content\": [{\"type\": "
                    "\"tool_result\", \"name\": \"r\"}, {\"type\": \"tool_use\", \"name\": "
                    "\"real\"}]}]",
                    "claude-agent-sdk", "[{\"tool\": \"real\", \"args\": {}}]");
    assert_extracts(
        "[{\"type\": \"user\", \"message\": {\"content\": [{\"type\": \"tool_use\", "
        "\"name\": \"fake\"}]}}, {\"type\": \"assistant\", \"message\": {\"content\": "
        "[{\"type\": \"tool_use\", \"name\": \"real\", \"input\": \"{\\\"a\\\": 1}\"}]}}]",
        NULL, "[{\"tool\": \"real\", \"args\": {\"a\": 1}}]");
    /* explicit anthropic also reads a list of messages */
    assert_extracts("[{\"role\": \"assistant\", \"content\": [{\"type\": \"tool_use\", \"name\": "
                    "\"a\", \"input\": {\"x\": 1}}]}]",
                    "anthropic", "[{\"tool\": \"a\", \"args\": {\"x\": 1}}]");
}
END_TEST

START_TEST(test_invalid_utf8_argument_string)
{
    struct json_object *in = parse_text("{\"new_items\": [{\"type\": \"tool_call_item\", "
                                        "\"raw_item\": {\"name\": \"f\"}}]}");
    struct json_object *raw = json_object_object_get(
        json_object_array_get_idx(json_object_object_get(in, "new_items"), 0), "raw_item");
    struct json_object *calls;

    /* a response built in memory can carry bytes no JSON text could */
    json_object_object_add(raw, "arguments", json_object_new_string("{\"a\": \"\xff\xfe\"}"));
    calls = extract_ok(in, NULL, TS_EXTRACT_RESPONSE);
    ck_assert_uint_eq(json_object_array_length(calls), 1);
    ck_assert_int_eq(json_object_object_length(
                         json_object_object_get(json_object_array_get_idx(calls, 0), "args")),
                     0);
    json_object_put(calls);
    json_object_put(in);
}
END_TEST

START_TEST(test_unknown_format_message_one_line)
{
    struct json_object *in = parse_text("[]");
    char long_name[300];

    extract_fails(in, "bad\nname\t", TS_EXTRACT_RESPONSE, "unknown format 'bad?name?'");
    memset(long_name, 'x', sizeof(long_name) - 1);
    long_name[sizeof(long_name) - 1] = '\0';
    extract_fails(in, long_name, TS_EXTRACT_RESPONSE, "xxx...' (supported formats: auto,");
    json_object_put(in);
}
END_TEST

static Suite *extract_suite(void)
{
    Suite *s = suite_create("extract");
    TCase *tc = tcase_create("fixtures");
    TCase *tu = tcase_create("rules");
    TCase *tb = tcase_create("limits");

    tcase_add_loop_test(tc, test_fixture_detected, 0, sizeof(detected) / sizeof(detected[0]));
    tcase_add_loop_test(tc, test_fixture_explicit, 0,
                        sizeof(explicit_only) / sizeof(explicit_only[0]));
    tcase_add_loop_test(tc, test_fixture_error, 0, sizeof(errors) / sizeof(errors[0]));
    suite_add_tcase(s, tc);
    tcase_add_test(tu, test_spec_examples);
    tcase_add_test(tu, test_cannot_detect_messages);
    tcase_add_test(tu, test_undetected_tool_calls_suggest_vercel_ai);
    tcase_add_test(tu, test_format_names);
    tcase_add_test(tu, test_detection_order);
    tcase_add_test(tu, test_undetected_shapes);
    tcase_add_test(tu, test_output_key_order_and_copy);
    tcase_add_test(tu, test_calls_kept_as_they_are);
    tcase_add_test(tu, test_bad_arguments);
    tcase_add_test(tu, test_unknown_format_message_one_line);
    tcase_add_test(tu, test_user_messages_and_tool_results_never_calls);
    suite_add_tcase(s, tu);
    tcase_add_test(tb, test_huge_openai_response);
    tcase_add_test(tb, test_huge_message_list);
    tcase_add_test(tb, test_deep_nesting);
    tcase_add_test(tb, test_wrong_types_everywhere);
    tcase_add_test(tb, test_invalid_utf8_argument_string);
    suite_add_tcase(s, tb);
    return s;
}

int main(void)
{
    return util_run_suite(extract_suite());
}
