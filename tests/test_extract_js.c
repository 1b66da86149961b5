/*
 * test_extract_js — ts_extract on the TypeScript ecosystem's formats
 * (vercel-ai, openai-agents-js, mastra, LangGraph.js messages): realistic
 * results, steps, messages and streams from tests/data/extract/ (modelled
 * on each SDK's documented types), de-duplication by call id, stream
 * assembly, responses without calls, malformed input, and detection that
 * leaves every earlier format's answer as it was.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/extract/ts_extract.h"
#include "util_extract.h"
#include "util_test.h"

typedef struct fixture_case {
    const char *name;   /* tests/data/extract/<name>.json, <name>.expected.json */
    const char *format; /* what detection must pick */
} fixture_case;

static const fixture_case detected[] = {
    {"vercel_ai_v4_result", "vercel-ai"},
    {"vercel_ai_v4_no_steps", "vercel-ai"},
    {"vercel_ai_v5_steps_only", "vercel-ai"},
    {"vercel_ai_v5_text_only", "vercel-ai"},
    {"vercel_ai_step", "vercel-ai"},
    {"vercel_ai_response_messages", "vercel-ai"},
    {"vercel_ai_ui_messages", "vercel-ai"},
    {"vercel_ai_ui_message_v4", "vercel-ai"},
    {"vercel_ai_full_stream", "vercel-ai"},
    {"vercel_ai_v4_stream", "vercel-ai"},
    {"vercel_ai_v6_on_finish", "vercel-ai"},
    {"vercel_ai_v6_on_finish_text", "vercel-ai"},
    {"openai_agents_js_result", "openai-agents-js"},
    {"openai_agents_js_history", "openai-agents-js"},
    {"openai_agents_js_history_no_calls", "openai-agents-js"},
    {"openai_agents_js_interrupted", "openai-agents-js"},
    {"openai_agents_js_stream_events", "openai-agents-js"},
    {"mastra_stream_chunks", "mastra"},
    {"mastra_generate_result", "mastra"},
    {"mastra_text_only", "mastra"},
    {"langgraph_js_serialized_state", "langgraph"},
    {"langgraph_js_message", "langgraph"},
    {"langgraph_js_stream_chunks", "langgraph"},
};

START_TEST(test_fixture_detected)
{
    assert_fixture_detected(detected[_i].name, detected[_i].format);
}
END_TEST

typedef struct error_case {
    const char *name;
    const char *format; /* NULL: auto */
    const char *want;   /* substring of the message */
} error_case;

static const error_case errors[] = {
    {"vercel_ai_steps_not_array", NULL, "vercel-ai: \"steps\" is a string, not an array"},
    {"vercel_ai_part_not_object", NULL, "vercel-ai: steps[0].content[1] is not an object"},
    {"vercel_ai_ui_invocation_not_object", NULL,
     "vercel-ai: parts[0].toolInvocation is not an object"},
    {"openai_agents_js_raw_item_not_object", NULL,
     "openai-agents-js: generatedItems[0].rawItem is not an object"},
    {"openai_agents_js_output_not_array", NULL,
     "openai-agents-js: modelResponses[0].output is an object, not an array"},
    {"mastra_tool_call_not_object", NULL, "mastra: toolCalls[1] is not an object"},
    {"langgraph_js_chunk_not_object", NULL,
     "langgraph: message at index 0: tool_call_chunks[0] is not an object"},
    /* explicit formats on another shape name the format and what was missing */
    {"openai_parallel_tool_calls", "vercel-ai",
     "vercel-ai: expected a result (\"steps\", \"toolCalls\"), a step or a message"},
    {"calls_list", "vercel-ai", "vercel-ai: expected a list of messages, steps or stream parts"},
    {"openai_parallel_tool_calls", "mastra", "mastra: expected a result (\"steps\""},
    {"anthropic_message", "openai-agents-js",
     "openai-agents-js: expected a run result or run state (\"state\", \"newItems\""},
    {"calls_list", "openai-agents-js", "openai-agents-js: expected a list of items (\"type\")"},
    {"vercel_ai_v4_result", "openai", "openai: expected an object with a \"choices\" array"},
    /* a plain list of calls is not an empty conversation */
    {"calls_list", "anthropic",
     "anthropic: expected a message object with a \"content\" array (or a list of messages), "
     "got an array without messages"},
    {"calls_list", "claude-agent-sdk", "a list of calls is format calls"},
};

START_TEST(test_fixture_error)
{
    const error_case *c = &errors[_i];
    struct json_object *in = load_fixture(c->name, ".json");

    extract_fails(in, c->format, TS_EXTRACT_RESPONSE, c->want);
    json_object_put(in);
}
END_TEST

/* Calls repeated across places count once; different ids are different calls. */
START_TEST(test_dedup_by_id_only)
{
    /* a v4 result: steps hold both calls, toolCalls repeats the last */
    assert_extracts(
        "{\"toolCalls\": [{\"toolCallId\": \"b\", \"toolName\": \"f\", \"args\": {\"x\": 1}}],"
        " \"toolResults\": [], \"steps\": [{\"toolCalls\": [{\"toolCallId\": \"a\", \"toolName\": "
        "\"f\", \"args\": {\"x\": 1}}], \"toolResults\": []}, {\"toolCalls\": [{\"toolCallId\": "
        "\"b\", \"toolName\": \"f\", \"args\": {\"x\": 1}}], \"toolResults\": []}]}",
        NULL, "[{\"tool\": \"f\", \"args\": {\"x\": 1}}, {\"tool\": \"f\", \"args\": {\"x\": 1}}]");
    /* without ids nothing is merged */
    assert_extracts("[{\"type\": \"tool-call\", \"toolName\": \"f\", \"input\": {}},"
                    " {\"type\": \"tool-call\", \"toolName\": \"f\", \"input\": {}}]",
                    NULL, "[{\"tool\": \"f\", \"args\": {}}, {\"tool\": \"f\", \"args\": {}}]");
    /* the first sighting keeps its place and its arguments */
    assert_extracts("[{\"type\": \"tool-call\", \"toolCallId\": \"1\", \"toolName\": \"a\", "
                    "\"input\": {\"v\": 1}}, {\"type\": \"tool-call\", \"toolCallId\": \"2\", "
                    "\"toolName\": \"b\"}, {\"type\": \"tool-call\", \"toolCallId\": \"1\", "
                    "\"toolName\": \"a\", \"input\": {\"v\": 2}}]",
                    NULL,
                    "[{\"tool\": \"a\", \"args\": {\"v\": 1}}, {\"tool\": \"b\", \"args\": {}}]");
    /* Agents JS: callId for function calls, id for hosted calls */
    assert_extracts(
        "[{\"type\": \"function_call\", \"id\": \"fc_1\", \"callId\": \"c1\", "
        "\"name\": \"f\", \"arguments\": \"{}\"}, {\"type\": \"hosted_tool_call\", "
        "\"id\": \"ws_1\", \"name\": \"web_search_call\"}, {\"type\": "
        "\"function_call\", \"id\": \"fc_9\", \"callId\": \"c1\", \"name\": \"f\", "
        "\"arguments\": \"{}\"}, {\"type\": \"hosted_tool_call\", \"id\": \"ws_1\", "
        "\"name\": \"web_search_call\"}]",
        NULL, "[{\"tool\": \"f\", \"args\": {}}, {\"tool\": \"web_search_call\", \"args\": {}}]");
}
END_TEST

/* An onFinish event (v5+) repeats its last step at the top level (content,
 * toolCalls): the steps come first, each call once, its first sighting's
 * arguments kept. */
START_TEST(test_on_finish_event)
{
    static const char *const event =
        "{\"content\": [{\"type\": \"tool-call\", \"toolCallId\": \"b\", \"toolName\": \"g\", "
        "\"input\": {\"y\": 9}}], \"toolCalls\": [{\"type\": \"tool-call\", \"toolCallId\": \"b\", "
        "\"toolName\": \"g\", \"input\": {\"y\": 8}}], \"toolResults\": [], \"steps\": "
        "[{\"content\": "
        "[{\"type\": \"tool-call\", \"toolCallId\": \"a\", \"toolName\": \"f\", \"input\": {}}]}, "
        "{\"content\": [{\"type\": \"tool-call\", \"toolCallId\": \"b\", \"toolName\": \"g\", "
        "\"input\": {\"y\": 1}}]}]}";

    assert_detects(event, "vercel-ai");
    assert_extracts(event, NULL,
                    "[{\"tool\": \"f\", \"args\": {}}, {\"tool\": \"g\", \"args\": {\"y\": 1}}]");
    /* a last step of text only: still the event, not an Anthropic message */
    assert_detects("{\"content\": [{\"type\": \"text\", \"text\": \"done\"}], \"toolCalls\": [], "
                   "\"steps\": [{\"content\": [{\"type\": \"text\", \"text\": \"done\"}]}]}",
                   "vercel-ai");
    /* Mastra's result with steps stays Mastra's; a message without steps
     * stays Anthropic's */
    assert_detects(
        "{\"content\": [{\"type\": \"text\"}], \"steps\": [{\"toolCalls\": [{\"type\": "
        "\"tool-call\", \"payload\": {\"toolName\": \"f\"}}], \"finishReason\": \"stop\"}]}",
        "mastra");
    assert_detects("{\"content\": [{\"type\": \"text\", \"text\": \"hi\"}], \"steps\": []}",
                   "anthropic");
}
END_TEST

/* An Agents JS history without calls gives []; a list that is not one
 * stays undetected. */
START_TEST(test_agents_js_history_without_calls)
{
    static const char *const answer =
        "{\"type\": \"message\", \"role\": \"assistant\", \"status\": \"completed\", \"content\": "
        "[{\"type\": \"output_text\", \"text\": \"Paris.\"}]}";
    char text[512];

    /* a reasoning model's history; an input item given without "type" */
    snprintf(text, sizeof(text),
             "[{\"role\": \"user\", \"content\": \"Capital of France?\"}, {\"type\": "
             "\"reasoning\", \"id\": \"rs_1\", \"content\": []}, %s]",
             answer);
    assert_detects(text, "openai-agents-js");
    assert_extracts(text, NULL, "[]");
    /* a result object holding its history */
    snprintf(text, sizeof(text), "{\"history\": [%s]}", answer);
    assert_detects(text, "openai-agents-js");
    assert_extracts(text, NULL, "[]");
    /* no answer of the model, chat messages without "type", another item */
    assert_detects("[{\"type\": \"message\", \"role\": \"user\", \"content\": \"hi\"}]", NULL);
    assert_detects("[{\"role\": \"user\", \"content\": \"hi\"}, {\"role\": \"assistant\", "
                   "\"content\": \"hello\"}]",
                   NULL);
    snprintf(text, sizeof(text), "[%s, {\"type\": \"computer_call\", \"id\": \"c\"}]", answer);
    assert_detects(text, NULL);
}
END_TEST

START_TEST(test_stream_assembly)
{
    /* fragments without an id continue the latest call, names too */
    assert_extracts("[{\"kwargs\": {\"tool_call_chunks\": [{\"name\": \"look\", \"args\": \"{\\\"q"
                    "\", \"id\": \"c1\"}]}, \"lc\": 1}, {\"lc\": 1, \"kwargs\": {\"tool_call_chunks"
                    "\": [{\"name\": \"up\", \"args\": \"\\\": 1}\"}]}}]",
                    NULL, "[{\"tool\": \"lookup\", \"args\": {\"q\": 1}}]");
    /* a stream cut short parses to {} (as any unparseable argument string) */
    assert_extracts("[{\"type\": \"tool-input-start\", \"id\": \"x\", \"toolName\": \"f\"}, "
                    "{\"type\": \"tool-input-delta\", \"id\": \"x\", \"delta\": \"{\\\"a\\\": \"}]",
                    NULL, "[{\"tool\": \"f\", \"args\": {}}]");
    /* the complete chunk wins over the fragments before it */
    assert_extracts(
        "[{\"type\": \"tool-input-start\", \"id\": \"x\", \"toolName\": \"f\"}, "
        "{\"type\": \"tool-input-delta\", \"id\": \"x\", \"delta\": \"{\\\"a\\\": 1}\"},"
        " {\"type\": \"tool-call\", \"toolCallId\": \"x\", \"toolName\": \"f\", "
        "\"input\": {\"a\": 2}}]",
        NULL, "[{\"tool\": \"f\", \"args\": {\"a\": 2}}]");
    /* a delta before any start opens a call without a name: dropped */
    assert_extracts("[{\"type\": \"tool-input-delta\", \"delta\": \"{}\"}, {\"type\": \"finish\"}]",
                    NULL, "[]");
    /* Python's chunk dicts are assembled the same way */
    assert_extracts(
        "[{\"type\": \"AIMessageChunk\", \"tool_calls\": [{\"name\": \"f\", \"args\": "
        "{}, \"id\": \"c\"}], \"tool_call_chunks\": [{\"name\": \"f\", \"args\": "
        "\"{\\\"k\\\"\", \"id\": \"c\", \"index\": 0}]}, {\"type\": \"AIMessageChunk\", "
        "\"tool_calls\": [], \"tool_call_chunks\": [{\"name\": null, \"args\": \": "
        "[1]}\", \"id\": null, \"index\": 0}]}]",
        NULL, "[{\"tool\": \"f\", \"args\": {\"k\": [1]}}]");
}
END_TEST

/* Tool results, outputs and errors are never calls; error-state UI parts are. */
START_TEST(test_results_never_calls)
{
    assert_extracts("[{\"type\": \"tool-result\", \"toolCallId\": \"a\", \"toolName\": \"f\", "
                    "\"output\": 1}, {\"type\": \"tool-error\", \"toolCallId\": \"a\", "
                    "\"toolName\": \"f\"}, {\"type\": \"tool-output-available\", \"toolCallId\": "
                    "\"a\", \"output\": 2}, {\"type\": \"finish\"}]",
                    NULL, "[]");
    assert_extracts("[{\"type\": \"function_call_result\", \"callId\": \"a\", \"name\": \"f\", "
                    "\"output\": \"x\"}, {\"type\": \"tool_call_output_item\", \"rawItem\": "
                    "{\"type\": \"function_call_result\", \"name\": \"f\"}}]",
                    NULL, "[]");
    assert_extracts("{\"role\": \"assistant\", \"parts\": [{\"type\": \"tool-f\", \"toolCallId\": "
                    "\"a\", \"state\": \"output-error\", \"input\": {\"q\": 1}, \"errorText\": "
                    "\"boom\"}]}",
                    NULL, "[{\"tool\": \"f\", \"args\": {\"q\": 1}}]");
    /* a call pending approval (v6 tool-approval-request) is a call */
    assert_extracts("{\"steps\": [{\"content\": [{\"type\": \"tool-approval-request\", "
                    "\"approvalId\": \"ap1\", \"toolCall\": {\"type\": \"tool-call\", "
                    "\"toolCallId\": \"a\", \"toolName\": \"pay\", \"input\": {\"eur\": 5}}}]}]}",
                    NULL, "[{\"tool\": \"pay\", \"args\": {\"eur\": 5}}]");
}
END_TEST

/* The new rules see only shapes no earlier rule had. */
START_TEST(test_detection_keeps_earlier_formats)
{
    /* an Anthropic message with tool_use stays anthropic even with tool-call parts */
    assert_detects("{\"content\": [{\"type\": \"tool_use\", \"name\": \"a\"}, {\"type\": "
                   "\"tool-call\", \"toolName\": \"b\"}]}",
                   "anthropic");
    assert_detects("{\"content\": [{\"type\": \"tool-call\", \"toolName\": \"b\"}]}", "vercel-ai");
    /* the Responses API's call_id stays openai-responses; Agents JS spells callId */
    assert_detects("[{\"type\": \"function_call\", \"call_id\": \"c\", \"name\": \"f\"}]",
                   "openai-responses");
    assert_detects("[{\"type\": \"function_call\", \"callId\": \"c\", \"name\": \"f\"}]",
                   "openai-agents-js");
    /* the Python Agents SDK's new_items stays openai-agents */
    assert_detects("{\"new_items\": [], \"newItems\": []}", "openai-agents");
    /* LangGraph's plain state and list are still langgraph */
    assert_detects("{\"messages\": [{\"tool_calls\": [{\"name\": \"a\"}]}]}", "langgraph");
    /* a single plain message needs "type": "ai" (a {tool_calls} file is custom's) */
    assert_detects("{\"type\": \"ai\", \"tool_calls\": [{\"name\": \"a\", \"args\": {}}]}",
                   "langgraph");
    assert_detects("{\"tool_calls\": [{\"name\": \"a\", \"args\": {}}]}", NULL);
    /* shapes that stay undetected */
    assert_detects("[{\"content\": [{\"type\": \"text\"}]}]", NULL);
    assert_detects("[{\"parts\": [{\"part_kind\": \"text\"}]}]", NULL);
    assert_detects("[{\"type\": \"unknown\"}]", NULL);
    assert_detects("{\"toolCalls\": []}", NULL);
    /* an empty Vercel result and an empty Mastra stream are detected (they give []) */
    assert_detects("{\"toolCalls\": [], \"toolResults\": [], \"finishReason\": \"stop\"}",
                   "vercel-ai");
    assert_detects("[{\"type\": \"start\", \"payload\": {}}]", "mastra");
}
END_TEST

START_TEST(test_format_names)
{
    static const char *const names[] = {"vercel-ai", "openai-agents-js", "mastra"};
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        ck_assert(ts_extract_format_known(names[i]));
        ck_assert_ptr_nonnull(strstr(ts_extract_format_list(), names[i]));
    }
}
END_TEST

/* A long stream: linear work (ids are hashed), one call per id. */
START_TEST(test_huge_stream)
{
    enum { N = 60000 };
    struct json_object *in = json_object_new_array_ext(3 * N);
    struct json_object *calls;
    char id[32];
    int i;

    for (i = 0; i < N; i++) {
        struct json_object *start = json_object_new_object();
        struct json_object *delta = json_object_new_object();
        struct json_object *again = json_object_new_object();

        snprintf(id, sizeof(id), "call_%d", i);
        json_object_object_add(start, "type", json_object_new_string("tool-input-start"));
        json_object_object_add(start, "id", json_object_new_string(id));
        json_object_object_add(start, "toolName", json_object_new_string("t"));
        json_object_object_add(delta, "type", json_object_new_string("tool-input-delta"));
        json_object_object_add(delta, "id", json_object_new_string(id));
        json_object_object_add(delta, "delta", json_object_new_string("{\"i\": 1}"));
        json_object_object_add(again, "type", json_object_new_string("tool-call"));
        json_object_object_add(again, "toolCallId", json_object_new_string(id));
        json_object_object_add(again, "toolName", json_object_new_string("t"));
        json_object_array_add(in, start);
        json_object_array_add(in, delta);
        json_object_array_add(in, again);
    }
    ck_assert_str_eq(ts_extract_detect(in), "vercel-ai");
    calls = extract_ok(in, NULL, TS_EXTRACT_RESPONSE);
    ck_assert_uint_eq(json_object_array_length(calls), N);
    json_object_put(calls);
    json_object_put(in);
}
END_TEST

/* Containers of the wrong type anywhere give an error naming the format. */
START_TEST(test_wrong_types)
{
    static const char *const cases[][2] = {
        {"{\"steps\": [{\"content\": []}], \"response\": {\"messages\": 3}}", "vercel-ai"},
        {"{\"steps\": [7]}", "vercel-ai"},
        {"{\"toolCalls\": \"x\", \"toolResults\": [], \"finishReason\": \"stop\"}", "vercel-ai"},
        {"[{\"role\": \"assistant\", \"content\": [1]}]", "vercel-ai"},
        {"{\"role\": \"assistant\", \"parts\": [{\"type\": \"text\"}], \"toolInvocations\": 5}",
         "vercel-ai"},
        {"{\"newItems\": {}}", "openai-agents-js"},
        {"{\"state\": {\"generatedItems\": [5]}}", "openai-agents-js"},
        {"[{\"type\": \"run_item_stream_event\", \"item\": {\"type\": \"tool_call_item\", "
         "\"rawItem\": []}}]",
         "openai-agents-js"},
        {"[{\"type\": \"start\", \"payload\": {}}, 3]", "mastra"},
        {"{\"messages\": [{\"lc\": 1, \"kwargs\": {\"tool_calls\": [\"x\"]}}]}", "langgraph"},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct json_object *in = parse_text(cases[i][0]);

        extract_fails(in, cases[i][1], TS_EXTRACT_RESPONSE, cases[i][1]);
        json_object_put(in);
    }
}
END_TEST

static Suite *extract_js_suite(void)
{
    Suite *s = suite_create("extract_js");
    TCase *tc = tcase_create("fixtures");
    TCase *tu = tcase_create("rules");

    tcase_add_loop_test(tc, test_fixture_detected, 0, sizeof(detected) / sizeof(detected[0]));
    tcase_add_loop_test(tc, test_fixture_error, 0, sizeof(errors) / sizeof(errors[0]));
    suite_add_tcase(s, tc);
    tcase_add_test(tu, test_dedup_by_id_only);
    tcase_add_test(tu, test_on_finish_event);
    tcase_add_test(tu, test_agents_js_history_without_calls);
    tcase_add_test(tu, test_stream_assembly);
    tcase_add_test(tu, test_results_never_calls);
    tcase_add_test(tu, test_detection_keeps_earlier_formats);
    tcase_add_test(tu, test_format_names);
    tcase_add_test(tu, test_huge_stream);
    tcase_add_test(tu, test_wrong_types);
    suite_add_tcase(s, tu);
    return s;
}

int main(void)
{
    return util_run_suite(extract_js_suite());
}
