/*
 * test_extract_langgraph — ts_extract on LangGraph's shapes beyond a plain
 * state: the LangGraph API's thread state, AI messages whose calls are
 * Anthropic-style tool_use content blocks (with or without tool_calls),
 * and the stream of stream mode "messages" with subgraphs
 * ([namespace, [chunk, metadata]]) assembled per message id and index.
 * Realistic fixtures from tests/data/extract/ (modelled on
 * @langchain/langgraph-sdk's ThreadState and @langchain/core's messages),
 * the rules one by one, and hostile input: fragments of the wrong type,
 * tuples of the wrong arity, one call id streamed at two places.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/extract/ts_extract.h"
#include "util_extract.h"
#include "util_test.h"

static const char *const fixtures[] = {
    "langgraph_js_thread_state",
    "langgraph_js_stream_subgraphs",
};

START_TEST(test_fixture_detected)
{
    assert_fixture_detected(fixtures[_i], "langgraph");
}
END_TEST

/* A serialized AI message chunk (LangChain's lc form) with message id mid
 * and the tool_call_chunks given, as a [namespace, [chunk, metadata]]
 * tuple, into out. */
static void stream_tuple(char *out, size_t size, const char *ns, const char *mid,
                         const char *chunks)
{
    snprintf(out, size,
             "[[\"%s\"], [{\"lc\": 1, \"type\": \"constructor\", \"id\": [\"langchain_core\", "
             "\"messages\", \"AIMessageChunk\"], \"kwargs\": {\"content\": \"\", \"id\": \"%s\", "
             "\"tool_call_chunks\": [%s]}}, {\"langgraph_node\": \"agent\"}]]",
             ns, mid, chunks);
}

/* A stream of n tuples (text of each given) as one JSON array, in a
 * buffer the caller frees. */
static char *stream_of(const char *const *tuples, size_t n)
{
    size_t size = 3, i;
    char *out;

    for (i = 0; i < n; i++)
        size += strlen(tuples[i]) + 2;
    out = malloc(size);
    ck_assert_ptr_nonnull(out);
    strcpy(out, "[");
    for (i = 0; i < n; i++) {
        strcat(out, tuples[i]);
        if (i + 1 < n)
            strcat(out, ", ");
    }
    strcat(out, "]");
    return out;
}

/* ---- tool_use blocks and tool_calls ---------------------------------------------- */

START_TEST(test_tool_use_blocks)
{
    /* blocks only: no tool_calls at all, in a thread state */
    assert_extracts("{\"values\": {\"messages\": [{\"type\": \"ai\", \"content\": [{\"type\": "
                    "\"text\", \"text\": \"ok\"}, {\"type\": \"tool_use\", \"id\": \"t1\", "
                    "\"name\": \"search\", \"input\": {\"q\": \"x\"}}]}]}, \"next\": []}",
                    NULL, "[{\"tool\": \"search\", \"args\": {\"q\": \"x\"}}]");
    /* blocks and tool_calls: each id once, at the block's place, the
     * entry's arguments (LangChain's parse); an entry without a block
     * after them; a repeated block skipped */
    assert_extracts(
        "{\"messages\": [{\"type\": \"ai\", \"content\": [{\"type\": \"tool_use\", \"id\": \"b\", "
        "\"name\": \"g\", \"input\": {\"y\": 1}}, {\"type\": \"tool_use\", \"id\": \"a\", "
        "\"name\": \"f\", \"input\": {\"x\": 1}}, {\"type\": \"tool_use\", \"id\": \"b\", "
        "\"name\": \"g\", \"input\": {\"y\": 3}}], \"tool_calls\": [{\"name\": \"f\", \"args\": "
        "{\"x\": 2}, \"id\": \"a\"}, {\"name\": \"g\", \"args\": {\"y\": 2}, \"id\": \"b\"}, "
        "{\"name\": \"h\", \"args\": {}, \"id\": \"c\"}]}]}",
        NULL,
        "[{\"tool\": \"g\", \"args\": {\"y\": 2}}, {\"tool\": \"f\", \"args\": {\"x\": 2}}, "
        "{\"tool\": \"h\", \"args\": {}}]");
    /* an entry of no known shape does not hide its block */
    assert_extracts("{\"messages\": [{\"type\": \"ai\", \"content\": [{\"type\": \"tool_use\", "
                    "\"id\": \"a\", \"name\": \"f\", \"input\": {}}], \"tool_calls\": [{\"id\": "
                    "\"a\", \"kind\": \"?\"}]}]}",
                    NULL, "[{\"tool\": \"f\", \"args\": {}}]");
    /* a streamed message's concatenated input is a JSON string */
    assert_extracts("{\"messages\": [{\"type\": \"ai\", \"content\": [{\"index\": 1, \"type\": "
                    "\"tool_use\", \"id\": \"a\", \"name\": \"f\", \"input\": \"{\\\"k\\\": "
                    "[1]}\"}]}]}",
                    NULL, "[{\"tool\": \"f\", \"args\": {\"k\": [1]}}]");
    /* LangChain's serialized AIMessage, and ids merging across its messages */
    assert_extracts("[{\"lc\": 1, \"type\": \"constructor\", \"id\": [\"langchain_core\", "
                    "\"messages\", \"AIMessage\"], \"kwargs\": {\"content\": [{\"type\": "
                    "\"tool_use\", \"id\": \"a\", \"name\": \"f\", \"input\": {}}]}}, {\"lc\": 1, "
                    "\"type\": \"constructor\", \"id\": [\"langchain_core\", \"messages\", "
                    "\"AIMessage\"], \"kwargs\": {\"content\": [{\"type\": \"tool_use\", \"id\": "
                    "\"a\", \"name\": \"f\", \"input\": {}}], \"tool_calls\": [{\"name\": \"f\", "
                    "\"args\": {}, \"id\": \"a\"}]}}]",
                    NULL, "[{\"tool\": \"f\", \"args\": {}}]");
    /* plain message dicts keep every entry across messages (the reference) */
    assert_extracts("{\"messages\": [{\"type\": \"ai\", \"tool_calls\": [{\"name\": \"f\", "
                    "\"args\": {}, \"id\": \"x\"}]}, {\"type\": \"ai\", \"tool_calls\": "
                    "[{\"name\": \"f\", \"args\": {}, \"id\": \"x\"}]}]}",
                    NULL, "[{\"tool\": \"f\", \"args\": {}}, {\"tool\": \"f\", \"args\": {}}]");
    /* a tool_use block outside an AI message is no call */
    assert_detects("{\"messages\": [{\"type\": \"human\", \"content\": [{\"type\": \"tool_use\", "
                   "\"id\": \"a\", \"name\": \"f\", \"input\": {}}]}]}",
                   NULL);
    assert_extracts("{\"messages\": [{\"type\": \"human\", \"content\": [{\"type\": \"tool_use\", "
                    "\"id\": \"a\", \"name\": \"f\", \"input\": {}}]}]}",
                    "langgraph", "[]");
}
END_TEST

START_TEST(test_thread_state)
{
    struct json_object *in;

    /* a thread state (or a thread) without calls gives [] */
    assert_detects("{\"values\": {\"messages\": [{\"type\": \"human\", \"content\": \"hi\"}, "
                   "{\"type\": \"ai\", \"content\": \"hello\", \"tool_calls\": []}]}, \"next\": "
                   "[], \"checkpoint\": {\"checkpoint_id\": \"1\"}}",
                   "langgraph");
    assert_extracts("{\"values\": {\"messages\": [{\"type\": \"ai\", \"content\": \"hello\"}]}, "
                    "\"next\": [], \"checkpoint\": {}}",
                    NULL, "[]");
    assert_detects("{\"thread_id\": \"t\", \"status\": \"idle\", \"values\": {\"messages\": []}}",
                   "langgraph");
    /* values alone, without calls, is not known to be a thread */
    assert_detects("{\"values\": {\"messages\": [{\"type\": \"ai\", \"content\": \"x\"}]}}", NULL);
    /* the Python state keeps its rule: detected only with calls */
    assert_detects("{\"messages\": [{\"type\": \"ai\", \"content\": \"x\"}], \"next\": []}", NULL);
    /* malformed pieces are named */
    in = parse_text("{\"values\": {\"messages\": [{\"type\": \"ai\", \"tool_calls\": 3}]}, "
                    "\"next\": []}");
    extract_fails(in, NULL, TS_EXTRACT_RESPONSE,
                  "langgraph: message at index 0: tool_calls is not an array");
    json_object_put(in);
    in = parse_text("{\"values\": {\"messages\": \"no\"}, \"next\": []}");
    extract_fails(in, "langgraph", TS_EXTRACT_RESPONSE,
                  "langgraph: expected a state object with a \"messages\" array");
    json_object_put(in);
}
END_TEST

/* ---- the stream of mode "messages" ------------------------------------------------ */

START_TEST(test_stream_interleaved)
{
    char t[4][512];
    const char *const tuples[] = {t[0], t[1], t[2], t[3]};
    char *text;

    /* two messages streamed at once: each fragment goes to its message's call */
    stream_tuple(t[0], sizeof(t[0]), "a:1", "m1",
                 "{\"name\": \"f\", \"args\": \"{\\\"x\\\": \", \"id\": \"c1\", \"index\": 0}");
    stream_tuple(t[1], sizeof(t[1]), "b:2", "m2",
                 "{\"name\": \"g\", \"args\": \"{\\\"y\\\": \", \"id\": \"c2\", \"index\": 0}");
    stream_tuple(t[2], sizeof(t[2]), "a:1", "m1", "{\"args\": \"1}\", \"index\": 0}");
    stream_tuple(t[3], sizeof(t[3]), "b:2", "m2", "{\"args\": \"2}\", \"index\": 0}");
    text = stream_of(tuples, 4);
    assert_detects(text, "langgraph");
    assert_extracts(text, NULL,
                    "[{\"tool\": \"f\", \"args\": {\"x\": 1}}, {\"tool\": \"g\", \"args\": {\"y\": "
                    "2}}]");
    free(text);
    /* indexes out of order: calls in the order they began, fragments by index */
    stream_tuple(t[0], sizeof(t[0]), "a:1", "m1",
                 "{\"name\": \"g\", \"args\": \"\", \"id\": \"c2\", \"index\": 1}, {\"name\": "
                 "\"f\", \"args\": \"\", \"id\": \"c1\", \"index\": 0}");
    stream_tuple(t[1], sizeof(t[1]), "a:1", "m1", "{\"args\": \"{\\\"x\\\": 1}\", \"index\": 0}");
    stream_tuple(t[2], sizeof(t[2]), "a:1", "m1", "{\"args\": \"{\\\"y\\\": 2}\", \"index\": 1}");
    text = stream_of(tuples, 3);
    assert_extracts(text, NULL,
                    "[{\"tool\": \"g\", \"args\": {\"y\": 2}}, {\"tool\": \"f\", \"args\": {\"x\": "
                    "1}}]");
    free(text);
    /* another id at a place starts another call there (LangChain's merge too) */
    stream_tuple(t[0], sizeof(t[0]), "a:1", "m1",
                 "{\"name\": \"f\", \"args\": \"{\\\"x\\\": 1}\", \"id\": \"c1\", \"index\": 0}");
    stream_tuple(t[1], sizeof(t[1]), "a:1", "m1",
                 "{\"name\": \"g\", \"args\": \"\", \"id\": \"c2\", \"index\": 0}");
    stream_tuple(t[2], sizeof(t[2]), "a:1", "m1", "{\"args\": \"{\\\"y\\\": 2}\", \"index\": 0}");
    text = stream_of(tuples, 3);
    assert_extracts(text, NULL,
                    "[{\"tool\": \"f\", \"args\": {\"x\": 1}}, {\"tool\": \"g\", \"args\": {\"y\": "
                    "2}}]");
    free(text);
    /* the complete message after its chunks replaces their fragments */
    stream_tuple(t[0], sizeof(t[0]), "a:1", "m1",
                 "{\"name\": \"f\", \"args\": \"{\\\"x\\\": 1}\", \"id\": \"c1\", \"index\": 0}");
    snprintf(t[1], sizeof(t[1]),
             "[[\"a:1\"], [{\"lc\": 1, \"type\": \"constructor\", \"id\": [\"langchain_core\", "
             "\"messages\", \"AIMessage\"], \"kwargs\": {\"content\": \"\", \"id\": \"m1\", "
             "\"tool_calls\": [{\"name\": \"f\", \"args\": {\"x\": 2}, \"id\": \"c1\"}]}}, {}]]");
    text = stream_of(tuples, 2);
    assert_extracts(text, NULL, "[{\"tool\": \"f\", \"args\": {\"x\": 2}}]");
    free(text);
}
END_TEST

START_TEST(test_stream_without_calls)
{
    /* text only: detected, [] */
    assert_detects("[[[\"agent:1\"], [{\"type\": \"AIMessageChunk\", \"content\": \"Hel\", \"id\": "
                   "\"m\"}, {\"langgraph_node\": \"agent\"}]], [[], [{\"type\": \"AIMessageChunk\","
                   " \"content\": \"lo\", \"id\": \"m\"}, {\"langgraph_node\": \"agent\"}]]]",
                   "langgraph");
    assert_extracts("[[[\"agent:1\"], [{\"type\": \"AIMessageChunk\", \"content\": \"Hi\", "
                    "\"id\": \"m\"}, {}]]]",
                    NULL, "[]");
    assert_extracts("[[{\"type\": \"AIMessageChunk\", \"content\": \"Hi\"}, {\"langgraph_node\": "
                    "\"agent\", \"langgraph_step\": 1}]]",
                    NULL, "[]");
    /* a pair without LangGraph's metadata is not known to be a stream */
    assert_detects("[[{\"type\": \"AIMessageChunk\", \"content\": \"Hi\"}, {}]]", NULL);
}
END_TEST

typedef struct hostile_case {
    const char *input;
    const char *want;
} hostile_case;

#define CHUNK_MSG(chunks)                                                                          \
    "[[[\"a:1\"], [{\"type\": \"AIMessageChunk\", \"id\": \"m1\", \"tool_call_chunks\": [" chunks  \
    "]}, {}]]]"

static const hostile_case hostile[] = {
    /* fragments of the wrong type */
    {CHUNK_MSG("{\"name\": \"f\", \"args\": 5, \"id\": \"c\", \"index\": 0}"),
     "langgraph: message at index 0: tool_call_chunks[0].args is a number, not a string (an "
     "argument fragment)"},
    {CHUNK_MSG("{\"name\": \"f\", \"args\": [\"{}\"], \"index\": 0}"),
     "tool_call_chunks[0].args is an array, not a string"},
    {CHUNK_MSG("{\"name\": 7, \"args\": \"\", \"index\": 0}"),
     "tool_call_chunks[0].name is a number, not a string"},
    {CHUNK_MSG("{\"name\": \"f\", \"id\": {}, \"index\": 0}"),
     "tool_call_chunks[0].id is an object, not a string"},
    {CHUNK_MSG("{\"name\": \"f\", \"id\": \"c\", \"index\": true}"),
     "tool_call_chunks[0].index is a boolean, not a number or a string"},
    /* tuples of the wrong arity */
    {"[[[\"a:1\"], [{\"type\": \"AIMessageChunk\", \"tool_call_chunks\": [{\"name\": \"f\", "
     "\"args\": \"{}\"}]}, {}]], [[\"a:1\"], \"messages\", [{\"type\": \"ai\"}, {}]]]",
     "langgraph: message at index 1 is a [namespace, mode, chunk] tuple of a stream of several "
     "modes; record stream mode \"messages\" alone"},
    /* a stream of several modes alone is known, and refused the same way */
    {"[[[\"a:1\"], \"updates\", {\"agent\": {\"messages\": []}}], [[\"a:1\"], \"messages\", "
     "[{\"type\": \"AIMessageChunk\", \"content\": \"x\"}, {}]]]",
     "langgraph: message at index 0 is a [namespace, mode, chunk] tuple"},
    {"[[\"messages\", [{\"type\": \"AIMessageChunk\", \"content\": \"x\"}, {}]]]",
     "langgraph: message at index 0 is a [mode, chunk] tuple"},
    {"[[{\"type\": \"ai\", \"tool_calls\": [{\"name\": \"f\", \"args\": {}}]}, {}], [\"messages\", "
     "[{\"type\": \"ai\"}, {}]]]",
     "message at index 1 is a [mode, chunk] tuple"},
    {"[[{\"type\": \"ai\", \"tool_calls\": [{\"name\": \"f\", \"args\": {}}]}, {}], [[\"a:1\"], "
     "[{\"type\": \"ai\"}]]]",
     "langgraph: message at index 1: expected [namespace, [message, metadata]], got a namespace "
     "with an array that is not [message, metadata]"},
    {"[[{\"type\": \"ai\", \"tool_calls\": [{\"name\": \"f\", \"args\": {}}]}, {}], [[\"a:1\"], "
     "\"x\"]]",
     "got a namespace with a string"},
    {"[[{\"type\": \"ai\", \"tool_calls\": [{\"name\": \"f\", \"args\": {}}]}, {}], [{\"type\": "
     "\"ai\"}]]",
     "langgraph: message at index 1: expected a message, a [message, metadata] pair or a "
     "[namespace, [message, metadata]] tuple, got an array of 1 element"},
    {"[{\"type\": \"ai\", \"tool_calls\": [{\"name\": \"f\", \"args\": {}}]}, [{\"type\": "
     "\"ai\"}, {}, 3]]",
     "got an array of 3 elements"},
    /* one call id streamed at two places: two messages, two indexes */
    {"[[[\"a:1\"], [{\"type\": \"AIMessageChunk\", \"id\": \"m1\", \"tool_call_chunks\": "
     "[{\"name\": \"f\", \"args\": \"{\\\"x\\\": 1}\", \"id\": \"c1\", \"index\": 0}]}, {}]], "
     "[[\"b:2\"], [{\"type\": \"AIMessageChunk\", \"id\": \"m2\", \"tool_call_chunks\": "
     "[{\"name\": \"f\", \"args\": \"{\\\"x\\\": 2}\", \"id\": \"c1\", \"index\": 0}]}, {}]]]",
     "langgraph: message at index 1: tool_call_chunks[0]: call 'c1' at index 0 of message 'm2' "
     "was already streamed at index 0 of message 'm1'"},
    {CHUNK_MSG("{\"name\": \"f\", \"args\": \"{}\", \"id\": \"c1\", \"index\": 0}, {\"name\": "
               "\"g\", \"args\": \"{}\", \"id\": \"c1\", \"index\": 1}"),
     "tool_call_chunks[1]: call 'c1' at index 1 of message 'm1' was already streamed at index 0 "
     "of message 'm1'"},
};

START_TEST(test_stream_hostile)
{
    struct json_object *in = parse_text(hostile[_i].input);

    extract_fails(in, NULL, TS_EXTRACT_RESPONSE, hostile[_i].want);
    extract_fails(in, "langgraph", TS_EXTRACT_FILE, hostile[_i].want);
    json_object_put(in);
}
END_TEST

/* A long stream of many messages interleaved: linear work, each call whole. */
START_TEST(test_huge_interleaved_stream)
{
    enum { N = 20000 };
    struct json_object *in = json_object_new_array_ext(2 * N);
    struct json_object *calls, *want;
    char text[512];
    int i, part;

    /* message i streams its call in two fragments, the second after every
     * first fragment: the latest call is never the one continued */
    for (part = 0; part < 2; part++) {
        for (i = 0; i < N; i++) {
            if (part == 0)
                snprintf(text, sizeof(text),
                         "[[\"n:%d\"], [{\"type\": \"AIMessageChunk\", \"id\": \"run-%d\", "
                         "\"tool_call_chunks\": [{\"name\": \"t\", \"args\": \"{\\\"i\\\": \", "
                         "\"id\": \"call_%d\", \"index\": 0}]}, {}]]",
                         i, i, i);
            else
                snprintf(text, sizeof(text),
                         "[[\"n:%d\"], [{\"type\": \"AIMessageChunk\", \"id\": \"run-%d\", "
                         "\"tool_call_chunks\": [{\"args\": \"%d}\", \"index\": 0}]}, {}]]",
                         i, i, i);
            json_object_array_add(in, parse_text(text));
        }
    }
    ck_assert_str_eq(ts_extract_detect(in), "langgraph");
    calls = extract_ok(in, NULL, TS_EXTRACT_RESPONSE);
    ck_assert_uint_eq(json_object_array_length(calls), N);
    want = parse_text("{\"tool\": \"t\", \"args\": {\"i\": 19999}}");
    assert_json_eq(json_object_array_get_idx(calls, N - 1), want, "last call");
    json_object_put(want);
    json_object_put(calls);
    json_object_put(in);
}
END_TEST

static Suite *extract_langgraph_suite(void)
{
    Suite *s = suite_create("extract_langgraph");
    TCase *tc = tcase_create("langgraph");

    tcase_add_loop_test(tc, test_fixture_detected, 0, sizeof(fixtures) / sizeof(fixtures[0]));
    tcase_add_test(tc, test_tool_use_blocks);
    tcase_add_test(tc, test_thread_state);
    tcase_add_test(tc, test_stream_interleaved);
    tcase_add_test(tc, test_stream_without_calls);
    tcase_add_loop_test(tc, test_stream_hostile, 0, sizeof(hostile) / sizeof(hostile[0]));
    tcase_add_test(tc, test_huge_interleaved_stream);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return util_run_suite(extract_langgraph_suite());
}
