/*
 * ts_extract_langgraph — LangGraph's messages, Python and JS: a state
 * ({messages}), the LangGraph API's thread state ({values: {messages},
 * next, checkpoint, ...}), a list of messages, one AI message, and the
 * stream of stream mode "messages": [message, metadata] pairs, under a
 * namespace ([namespace, [message, metadata]]) with subgraphs. Messages
 * may be LangChain's serialized form ({lc, type, id, kwargs}).
 *
 * A message's calls are its tool_calls entries ({name, args} or the OpenAI
 * wire form) and, in an AI message, its Anthropic-style tool_use content
 * blocks: one call per id within the message. A streamed message's calls
 * are its tool_call_chunks, assembled per message id and index through the
 * collector (ts_extract_collect.c), so chunks of messages streamed at the
 * same time (parallel subgraphs) do not mix. Ids merge calls across
 * messages only in the serialized form and in streams; plain message dicts
 * keep every entry, as the reference does.
 */
#include "ts_extract_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- messages of a list, and their kind ---------------------------------- */

/* The message an element of a list stands for: an object itself, the first
 * of a [message, metadata] pair, the message of a [namespace, [message,
 * metadata]] tuple; NULL for an array of another shape. */
static const struct json_object *list_message(const struct json_object *element)
{
    const struct json_object *inner;

    if (!is_array(element))
        return element;
    if (array_len(element) != 2)
        return NULL;
    if (is_object(array_at(element, 0)))
        return array_at(element, 0);
    inner = array_at(element, 1);
    if (is_array(array_at(element, 0)) && is_array(inner) && array_len(inner) == 2 &&
        is_object(array_at(inner, 0)))
        return array_at(inner, 0);
    return NULL;
}

/* The fields of a message: LangChain's serialized form gives its kwargs
 * (*serialized tells which). NULL when the element holds no message. */
static const struct json_object *unwrap(const struct json_object *element, bool *serialized)
{
    const struct json_object *msg = list_message(element);
    struct json_object *kwargs = member(msg, "kwargs");

    *serialized = false;
    if (!is_object(msg))
        return NULL;
    if (has_key(msg, "lc") && is_object(kwargs)) {
        *serialized = true;
        return kwargs;
    }
    return msg;
}

/* An AI message: {"type": "ai"} (or a chunk's "AIMessageChunk"), or the
 * serialized form of AIMessage / AIMessageChunk. Only its content blocks
 * can be calls (a tool_use block in a human message is an echo). */
static bool is_ai_message(const struct json_object *element, const struct json_object *fields,
                          bool serialized)
{
    const struct json_object *ids;
    const char *last;

    if (!serialized)
        return member_is(fields, "type", "ai") || member_is(fields, "type", "AIMessageChunk");
    ids = member(list_message(element), "id");
    if (!is_array(ids) || array_len(ids) == 0 ||
        !is_type(array_at(ids, array_len(ids) - 1), json_type_string))
        return false;
    last = string_of(array_at(ids, array_len(ids) - 1));
    return strcmp(last, "AIMessage") == 0 || strcmp(last, "AIMessageChunk") == 0;
}

static bool non_empty_array(const struct json_object *v)
{
    return is_array(v) && array_len(v) > 0;
}

/* The content array of an AI message, when it holds a tool_use block. */
static const struct json_object *tool_use_content(const struct json_object *element,
                                                  const struct json_object *fields, bool serialized)
{
    struct json_object *content = member(fields, "content");
    size_t i;

    if (!is_array(content) || !is_ai_message(element, fields, serialized))
        return NULL;
    for (i = 0; i < array_len(content); i++) {
        if (member_is(array_at(content, i), "type", "tool_use"))
            return content;
    }
    return NULL;
}

static bool message_has_calls(const struct json_object *element)
{
    bool serialized;
    const struct json_object *msg = unwrap(element, &serialized);

    return non_empty_array(member(msg, "tool_calls")) ||
           non_empty_array(member(msg, "tool_call_chunks")) ||
           tool_use_content(element, msg, serialized) != NULL;
}

/* ---- detection -------------------------------------------------------------- */

/* Some message of the list has calls: a non-empty tool_calls (or, streamed,
 * tool_call_chunks) array, or tool_use blocks in an AI message. */
bool ts_extract__messages_have_tool_calls(const struct json_object *messages)
{
    size_t i;

    for (i = 0; i < array_len(messages); i++) {
        if (message_has_calls(array_at(messages, i)))
            return true;
    }
    return false;
}

/* A chunk of a stream of several modes (streamMode given as a list):
 * [namespace, mode, chunk], or [mode, chunk] without subgraphs. */
static bool modes_tuple(const struct json_object *element)
{
    static const char *const modes[] = {"messages", "updates", "values",     "custom",
                                        "debug",    "tasks",   "checkpoints"};
    const struct json_object *mode;
    size_t k;

    if (array_len(element) == 3 && is_array(array_at(element, 0)))
        mode = array_at(element, 1);
    else if (array_len(element) == 2)
        mode = array_at(element, 0);
    else
        return false;
    for (k = 0; k < sizeof(modes) / sizeof(modes[0]); k++) {
        if (is_type(mode, json_type_string) && strcmp(string_of(mode), modes[k]) == 0)
            return true;
    }
    return false;
}

/* A stream of mode "messages", even without calls: every element a
 * [namespace, [message, metadata]] tuple, or a [message, metadata] pair
 * whose metadata names its graph node (langgraph_node). A stream of several
 * modes is one too: the walk refuses it, saying how to record one. */
bool ts_extract__langgraph_stream_applies(const struct json_object *input)
{
    size_t i;

    if (!is_array(input) || array_len(input) == 0)
        return false;
    for (i = 0; i < array_len(input); i++) {
        const struct json_object *element = array_at(input, i);
        const struct json_object *msg = list_message(element);

        if (!is_array(element))
            return false;
        if (msg == NULL && !modes_tuple(element))
            return false;
        if (msg != NULL && msg == array_at(element, 0) &&
            !has_key(array_at(element, 1), "langgraph_node"))
            return false;
    }
    return true;
}

/* The messages of a state: "messages", or the LangGraph API thread state's
 * "values.messages". NULL when neither is an array. */
static const struct json_object *state_messages(const struct json_object *input)
{
    struct json_object *messages = member(input, "messages");

    if (is_array(messages))
        return messages;
    messages = member(member(input, "values"), "messages");
    return is_array(messages) ? messages : NULL;
}

/* A state whose messages hold calls, or a thread state of the LangGraph API
 * (values.messages with its next nodes or checkpoint), which gives [] when
 * no message holds a call. */
bool ts_extract__langgraph_state_applies(const struct json_object *input)
{
    const struct json_object *messages = state_messages(input);

    if (messages == NULL)
        return false;
    if (ts_extract__messages_have_tool_calls(messages))
        return true;
    return !is_array(member(input, "messages")) &&
           (has_key(input, "checkpoint") || has_key(input, "next") || has_key(input, "thread_id"));
}

/* One message object holding calls: LangChain's serialized form, or an AI
 * message ({"type": "ai"} or a chunk). */
bool ts_extract__langgraph_message_applies(const struct json_object *input)
{
    bool serialized;
    const struct json_object *msg = unwrap(input, &serialized);

    if (!is_object(input) || !message_has_calls(input))
        return false;
    return serialized || member_is(msg, "type", "ai") || member_is(msg, "type", "AIMessageChunk");
}

/* ---- tool_calls entries and tool_use blocks ------------------------------------ */

typedef struct message_walk {
    extract_collect *col;
    size_t index;     /* of the message in its list */
    bool serialized;  /* ids merge calls (LangChain's serialized form) */
    bool any_entries; /* some tool_calls entry or block was seen */
    bool recognized;  /* some entry had a known shape */
} message_walk;

/* The entry has a shape entry_call reads. */
static bool entry_known(const struct json_object *entry)
{
    return has_key(entry, "name") ||
           (is_object(member(entry, "function")) && has_key(member(entry, "function"), "name"));
}

/* One tool_calls entry: {name, args} or {function: {name, arguments}}. */
static int entry_call(message_walk *w, const struct json_object *entry)
{
    struct json_object *fn = member(entry, "function");
    struct json_object *id = w->serialized ? member(entry, "id") : NULL;

    if (has_key(entry, "name")) {
        w->recognized = true;
        return ts_extract__collect_call(w->col, id, member(entry, "name"), member(entry, "args"));
    }
    if (is_object(fn) && has_key(fn, "name")) {
        w->recognized = true;
        return ts_extract__collect_call(w->col, id, member(fn, "name"), member(fn, "arguments"));
    }
    return 0;
}

/* The id of an entry or block, when it is a non-empty string. */
static const char *call_id(const struct json_object *v)
{
    struct json_object *id = member(v, "id");

    if (!is_type(id, json_type_string) || json_object_get_string_len(id) == 0)
        return NULL;
    return string_of(id);
}

/* map[key] = index. */
static int add_index(message_walk *w, struct json_object *map, const char *key, size_t index)
{
    struct json_object *n = json_object_new_int64((int64_t)index);

    if (n == NULL || json_object_object_add(map, key, n) < 0) {
        json_object_put(n);
        return ts_extract__no_memory(w->col->ctx);
    }
    return 0;
}

/* The entries in order; each must be an object. */
static int entries_checked(message_walk *w, const struct json_object *tool_calls)
{
    size_t j;

    for (j = 0; j < array_len(tool_calls); j++) {
        if (!is_object(array_at(tool_calls, j)))
            return ts_extract__shape_error(
                w->col->ctx, "message at index %zu: tool_calls[%zu] is not an object", w->index, j);
    }
    return 0;
}

/*
 * The tool_use blocks of content with the entries of tool_calls (NULL:
 * none): a block and an entry with the same id are one call, at the block's
 * place, with the entry's name and args (LangChain's parse of the block); a
 * block repeating an earlier block's id is skipped; entries without a block
 * follow in their order, blocks without an entry (of a known shape) give
 * their name and input.
 */
static int blocks_and_entries(message_walk *w, const struct json_object *content,
                              const struct json_object *tool_calls)
{
    size_t n = tool_calls != NULL ? array_len(tool_calls) : 0;
    struct json_object *by_id = json_object_new_object(); /* entry id -> its index */
    struct json_object *seen = json_object_new_object();  /* block ids taken */
    bool *used = calloc(n > 0 ? n : 1, sizeof(*used));
    struct json_object *at;
    size_t j;
    int rc = 0;

    if (by_id == NULL || seen == NULL || used == NULL)
        rc = ts_extract__no_memory(w->col->ctx);
    for (j = 0; j < n && rc == 0; j++) {
        const char *id = call_id(array_at(tool_calls, j));

        if (id != NULL && entry_known(array_at(tool_calls, j)) &&
            !json_object_object_get_ex(by_id, id, NULL))
            rc = add_index(w, by_id, id, j);
    }
    for (j = 0; j < array_len(content) && rc == 0; j++) {
        const struct json_object *block = array_at(content, j);
        const char *id = call_id(block);

        if (!member_is(block, "type", "tool_use"))
            continue; /* text, thinking, the strings of Python's content lists */
        w->any_entries = true;
        if (id != NULL && json_object_object_get_ex(seen, id, NULL))
            continue;
        if (id != NULL && (rc = add_index(w, seen, id, j)) < 0)
            break;
        if (id != NULL && json_object_object_get_ex(by_id, id, &at)) {
            used[json_object_get_int64(at)] = true;
            rc = entry_call(w, array_at(tool_calls, (size_t)json_object_get_int64(at)));
        } else {
            w->recognized = true;
            rc = ts_extract__collect_call(w->col, w->serialized ? member(block, "id") : NULL,
                                          member(block, "name"), member(block, "input"));
        }
    }
    for (j = 0; j < n && rc == 0; j++) {
        if (!used[j])
            rc = entry_call(w, array_at(tool_calls, j));
    }
    free(used);
    json_object_put(seen);
    json_object_put(by_id);
    return rc;
}

/* A message's calls: the entries of tool_calls (NULL: none) in order, or,
 * when content holds tool_use blocks, blocks and entries together. */
static int message_calls(message_walk *w, const struct json_object *content,
                         const struct json_object *tool_calls)
{
    size_t j;
    int rc = 0;

    if (tool_calls != NULL && array_len(tool_calls) > 0)
        w->any_entries = true;
    if (content != NULL)
        return blocks_and_entries(w, content, tool_calls);
    for (j = 0; tool_calls != NULL && j < array_len(tool_calls) && rc == 0; j++)
        rc = entry_call(w, array_at(tool_calls, j));
    return rc;
}

/* ---- streamed chunks ------------------------------------------------------------ */

/* A chunk's field of the wrong JSON type is an error naming it. */
static int chunk_field_error(message_walk *w, size_t j, const char *field,
                             const struct json_object *v, const char *wanted)
{
    return ts_extract__shape_error(w->col->ctx,
                                   "message at index %zu: tool_call_chunks[%zu].%s is %s, not %s",
                                   w->index, j, field, ts_extract__kind_name(v), wanted);
}

/* name and id are strings, args a string (or a complete object), index a
 * number or a string; each may be missing or null. */
static int chunk_checked(message_walk *w, const struct json_object *chunk, size_t j)
{
    struct json_object *v;

    if (!is_object(chunk))
        return ts_extract__shape_error(
            w->col->ctx, "message at index %zu: tool_call_chunks[%zu] is not an object", w->index,
            j);
    v = member(chunk, "name");
    if (v != NULL && !is_type(v, json_type_string))
        return chunk_field_error(w, j, "name", v, "a string");
    v = member(chunk, "id");
    if (v != NULL && !is_type(v, json_type_string))
        return chunk_field_error(w, j, "id", v, "a string");
    v = member(chunk, "args");
    if (v != NULL && !is_type(v, json_type_string) && !is_object(v))
        return chunk_field_error(w, j, "args", v, "a string (an argument fragment)");
    v = member(chunk, "index");
    if (v != NULL && !is_type(v, json_type_int) && !is_type(v, json_type_double) &&
        !is_type(v, json_type_string))
        return chunk_field_error(w, j, "index", v, "a number or a string");
    return 0;
}

/* "index 0 of message 'msg_1'": the place of a chunk, or NULL (no memory). */
static char *slot_text(const struct json_object *message_id, const struct json_object *index)
{
    const char *idx =
        json_object_to_json_string_ext((struct json_object *)index, JSON_C_TO_STRING_PLAIN);
    size_t size = strlen(idx) + strlen(string_of(message_id)) + 32;
    char *slot = malloc(size);

    if (slot != NULL)
        snprintf(slot, size, "index %s of message '%s'", idx, string_of(message_id));
    return slot;
}

/*
 * Streamed chunks: each {name?, args?: fragment, id?, index?}. A chunk of a
 * message with an id and its own index continues the call at that place
 * (LangChain merges by index too); a chunk without both continues the call
 * with its id, else the latest call. Complete args (an object) are a
 * complete call.
 */
static int chunks(message_walk *w, const struct json_object *list,
                  const struct json_object *message_id)
{
    char where[96];
    size_t j;
    int rc = 0;

    if (!is_type(message_id, json_type_string) || json_object_get_string_len(message_id) == 0)
        message_id = NULL;
    for (j = 0; j < array_len(list) && rc == 0; j++) {
        const struct json_object *chunk = array_at(list, j);
        struct json_object *args = member(chunk, "args");
        struct json_object *index = member(chunk, "index");
        char *slot;

        rc = chunk_checked(w, chunk, j);
        if (rc < 0)
            break;
        if (is_object(args)) {
            rc = ts_extract__collect_call(w->col, member(chunk, "id"), member(chunk, "name"), args);
        } else if (message_id == NULL || index == NULL) {
            rc =
                ts_extract__collect_delta(w->col, member(chunk, "id"), member(chunk, "name"), args);
        } else {
            slot = slot_text(message_id, index);
            if (slot == NULL)
                return ts_extract__no_memory(w->col->ctx);
            snprintf(where, sizeof(where), "message at index %zu: tool_call_chunks[%zu]", w->index,
                     j);
            rc = ts_extract__collect_slot_delta(w->col, slot, member(chunk, "id"),
                                                member(chunk, "name"), args, where);
            free(slot);
        }
    }
    return rc;
}

/* ---- messages ---------------------------------------------------------------------- */

static int tuple_error(message_walk *w, const struct json_object *element)
{
    if (modes_tuple(element))
        return ts_extract__shape_error(
            w->col->ctx,
            "message at index %zu is a %s tuple of a stream of several modes; record stream mode "
            "\"messages\" alone ([message, metadata] or [namespace, [message, metadata]])",
            w->index, array_len(element) == 3 ? "[namespace, mode, chunk]" : "[mode, chunk]");
    if (array_len(element) == 2 && is_array(array_at(element, 0)))
        return ts_extract__shape_error(
            w->col->ctx,
            "message at index %zu: expected [namespace, [message, metadata]], got a namespace "
            "with %s",
            w->index,
            is_array(array_at(element, 1)) ? "an array that is not [message, metadata]"
                                           : ts_extract__kind_name(array_at(element, 1)));
    return ts_extract__shape_error(
        w->col->ctx,
        "message at index %zu: expected a message, a [message, metadata] pair or a [namespace, "
        "[message, metadata]] tuple, got an array of %zu element%s",
        w->index, array_len(element), array_len(element) == 1 ? "" : "s");
}

static int message(message_walk *w, const struct json_object *element)
{
    const struct json_object *msg = unwrap(element, &w->serialized);
    struct json_object *tool_calls, *list;
    const struct json_object *content;
    int rc = 0;

    if (msg == NULL && is_array(element))
        return tuple_error(w, element);
    if (msg == NULL)
        return ts_extract__shape_error(w->col->ctx, "message at index %zu is not an object",
                                       w->index);
    list = member(msg, "tool_call_chunks");
    if (non_empty_array(list)) {
        w->any_entries = w->recognized = true;
        return chunks(w, list, member(msg, "id"));
    }
    tool_calls = member(msg, "tool_calls");
    if (tool_calls != NULL && !is_array(tool_calls))
        return ts_extract__shape_error(
            w->col->ctx, "message at index %zu: tool_calls is not an array", w->index);
    rc = tool_calls != NULL ? entries_checked(w, tool_calls) : 0;
    if (rc < 0)
        return rc;
    content = tool_use_content(element, msg, w->serialized);
    return message_calls(w, content, tool_calls);
}

/* The messages of a list, or the one message single. */
static int messages(extract_collect *col, const struct json_object *list,
                    const struct json_object *single)
{
    message_walk w = {col, 0, false, false, false};
    int rc = 0;

    if (single != NULL)
        rc = message(&w, single);
    for (w.index = 0; single == NULL && w.index < array_len(list) && rc == 0; w.index++)
        rc = message(&w, array_at(list, w.index));
    if (rc < 0)
        return rc;
    if (w.any_entries && !w.recognized)
        return ts_extract__shape_error(
            col->ctx, "the tool_calls entries have an unrecognized shape (expected "
                      "{\"name\", \"args\"} or {\"function\": {\"name\", "
                      "\"arguments\"}})");
    return ts_extract__collect_finish(col);
}

int ts_extract__walk_langgraph(extract_ctx *ctx, const struct json_object *input)
{
    const struct json_object *list = is_array(input) ? input : state_messages(input);
    const struct json_object *single = NULL;
    extract_collect col;
    int rc;

    if (is_object(input) && list == NULL && ts_extract__langgraph_message_applies(input))
        single = input;
    else if (list == NULL)
        return ts_extract__shape_error(
            ctx,
            "expected a state object with a \"messages\" array (or a thread state's "
            "\"values.messages\") or an array of messages, got %s",
            is_object(input) ? "an object without a \"messages\" array"
                             : ts_extract__kind_name(input));
    rc = ts_extract__collect_init(&col, ctx);
    if (rc == 0)
        rc = messages(&col, list, single);
    ts_extract__collect_free(&col);
    return rc;
}
