/*
 * ts_extract_internal — what the extraction files share (not installed, not
 * for other modules): the walk context, small json-c accessors, call
 * building and argument normalization (ts_extract_args.c), and each format's
 * walker and detection rule (ts_extract_providers.c, ts_extract_frameworks.c,
 * ts_extract_langgraph.c, ts_extract_js.c, ts_extract_agents_js.c), and the
 * collector of calls seen in several places (ts_extract_collect.c).
 * ts_extract.c owns the format table, detection order and the public API.
 */
#ifndef TS_EXTRACT_INTERNAL_H
#define TS_EXTRACT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/base/ts_base.h"
#include "lib/extract/ts_extract.h"

/* Nesting accepted inside argument strings ("{\"a\": ...}"). */
#define EXTRACT_ARGS_MAX_DEPTH 64

typedef struct extract_ctx {
    const char *format;        /* format name, for error messages */
    ts_extract_origin origin;  /* response or trace file */
    bool share;                /* a "calls" input is referenced, not copied */
    struct json_object *calls; /* the result being built */
    ts_error *err;
} extract_ctx;

/* ---- small JSON helpers ---------------------------------------------- */

/* Member key of obj, or NULL when obj is not an object, key is absent or
 * its value is null (json-c represents null as NULL). */
static inline struct json_object *member(const struct json_object *obj, const char *key)
{
    struct json_object *value = NULL;

    if (obj == NULL || !json_object_is_type(obj, json_type_object))
        return NULL;
    if (!json_object_object_get_ex(obj, key, &value))
        return NULL;
    return value;
}

static inline bool has_key(const struct json_object *obj, const char *key)
{
    if (obj == NULL || !json_object_is_type(obj, json_type_object))
        return false;
    return json_object_object_get_ex(obj, key, NULL);
}

static inline bool is_type(const struct json_object *v, json_type type)
{
    return v != NULL && json_object_is_type(v, type);
}

static inline bool is_array(const struct json_object *v)
{
    return is_type(v, json_type_array);
}

static inline bool is_object(const struct json_object *v)
{
    return is_type(v, json_type_object);
}

static inline size_t array_len(const struct json_object *v)
{
    return json_object_array_length(v);
}

static inline struct json_object *array_at(const struct json_object *v, size_t i)
{
    return json_object_array_get_idx(v, i);
}

/* The text of a string value (json-c's getter wants a mutable pointer but
 * does not modify the value). */
static inline const char *string_of(const struct json_object *v)
{
    return json_object_get_string((struct json_object *)v);
}

/* String member key of obj equals want. */
static inline bool member_is(const struct json_object *obj, const char *key, const char *want)
{
    struct json_object *v = member(obj, key);

    return is_type(v, json_type_string) && strcmp(string_of(v), want) == 0;
}

/* ---- shared by the walkers (ts_extract_args.c) ------------------------ */

/* "an object", "an array", "a string", "a number", "a boolean", "null". */
const char *ts_extract__kind_name(const struct json_object *v);

/* A format error: "<format>: <message>", code "format", -EINVAL. */
int ts_extract__shape_error(extract_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* "<format>: out of memory", -ENOMEM. */
int ts_extract__no_memory(extract_ctx *ctx);

/* A deep copy; *out = NULL for a JSON null. -ENOMEM on allocation failure. */
int ts_extract__copy_value(const struct json_object *v, struct json_object **out);

/* {"value": v}, taking v's reference; NULL on allocation failure. */
struct json_object *ts_extract__wrap_value(struct json_object *v);

/*
 * The arguments object for a provider value: missing/null -> {}, object ->
 * copy, string -> parsed JSON (unparseable -> {} or {unparsed_key: text}
 * when unparsed_key is not NULL), anything not an object -> {"value": x}.
 */
int ts_extract__args_from_value(const struct json_object *v, const char *unparsed_key,
                                struct json_object **out);

/* Append {"tool": name, "args": args} when name is a non-empty string, else
 * drop the call. Takes args' reference in every case. */
int ts_extract__add_call(extract_ctx *ctx, const struct json_object *name,
                         struct json_object *args);

/* ts_extract__add_call with args normalized from a provider value. */
int ts_extract__add_call_value(extract_ctx *ctx, const struct json_object *name,
                               const struct json_object *args_value);

/* ---- calls seen in several places (ts_extract_collect.c) --------------- */

/*
 * A walker of the TypeScript SDKs' shapes reports every sighting of a call;
 * ts_extract__collect_finish() then appends each call once, in the order
 * first seen. Sightings with the same id (a non-empty string) are one call;
 * sightings without an id are never merged, except that a fragment without
 * an id continues the latest call. All json values are borrowed from the
 * input, which must outlive the collector.
 */
typedef struct extract_pending extract_pending;
typedef struct extract_collect {
    extract_ctx *ctx;
    extract_pending *items;
    size_t len, cap;
    struct json_object *ids;   /* id -> index into items */
    struct json_object *slots; /* streamed place -> index into items (NULL until one) */
} extract_collect;

int ts_extract__collect_init(extract_collect *c, extract_ctx *ctx);
void ts_extract__collect_free(extract_collect *c);

/* A complete call: name and arguments (a provider value, NULL when
 * absent). A later complete sighting of the same id is ignored; one after
 * fragments replaces them. */
int ts_extract__collect_call(extract_collect *c, const struct json_object *id,
                             const struct json_object *name, const struct json_object *args);

/* The start of a streamed call (its name, arguments to follow). */
int ts_extract__collect_start(extract_collect *c, const struct json_object *id,
                              const struct json_object *name);

/* A streamed fragment: name_part and args_part (strings, or NULL) are
 * appended to the call with that id, or to the latest call without one. */
int ts_extract__collect_delta(extract_collect *c, const struct json_object *id,
                              const struct json_object *name_part,
                              const struct json_object *args_part);

/*
 * A streamed fragment at a place of one message (LangChain's
 * tool_call_chunks; slot: a one-line text naming the message id and the
 * fragment's index, e.g. "index 0 of message 'msg_1'"): it continues the
 * call streamed at that place, unless it names another call id (then it
 * starts that call there); an id fragments arrive for at another place is
 * an error naming both places, where naming the fragment ("message at
 * index 3: tool_call_chunks[0]").
 */
int ts_extract__collect_slot_delta(extract_collect *c, const char *slot,
                                   const struct json_object *id,
                                   const struct json_object *name_part,
                                   const struct json_object *args_part, const char *where);

/* Append the collected calls to ctx->calls: fragments are parsed as one
 * JSON text (arguments rule of ts_extract__args_from_value). */
int ts_extract__collect_finish(extract_collect *c);

/* ---- walkers and detection rules ------------------------------------- */

/* ts_extract_providers.c */
int ts_extract__walk_openai(extract_ctx *ctx, const struct json_object *input);
int ts_extract__walk_openai_responses(extract_ctx *ctx, const struct json_object *input);
int ts_extract__walk_anthropic(extract_ctx *ctx, const struct json_object *input);
int ts_extract__walk_claude_agent_sdk(extract_ctx *ctx, const struct json_object *input);
int ts_extract__walk_gemini(extract_ctx *ctx, const struct json_object *input);
int ts_extract__walk_openai_agents(extract_ctx *ctx, const struct json_object *input);
bool ts_extract__anthropic_applies(const struct json_object *input);
bool ts_extract__claude_agent_sdk_applies(const struct json_object *input);
bool ts_extract__openai_responses_applies(const struct json_object *input);

/* ts_extract_frameworks.c */
int ts_extract__walk_calls(extract_ctx *ctx, const struct json_object *input);
int ts_extract__walk_pydantic_ai(extract_ctx *ctx, const struct json_object *input);
int ts_extract__walk_mcp(extract_ctx *ctx, const struct json_object *input);
int ts_extract__walk_langchain(extract_ctx *ctx, const struct json_object *input);
int ts_extract__walk_custom(extract_ctx *ctx, const struct json_object *input);
bool ts_extract__pydantic_ai_applies(const struct json_object *input);
bool ts_extract__mcp_applies(const struct json_object *input);

/* ts_extract_langgraph.c: LangGraph states, thread states, message lists
 * and streams, also in LangChain's serialized form */
int ts_extract__walk_langgraph(extract_ctx *ctx, const struct json_object *input);
bool ts_extract__messages_have_tool_calls(const struct json_object *messages);
bool ts_extract__langgraph_stream_applies(const struct json_object *input);
bool ts_extract__langgraph_state_applies(const struct json_object *input);
bool ts_extract__langgraph_message_applies(const struct json_object *input);

/* ts_extract_js.c: the Vercel AI SDK and Mastra */
int ts_extract__walk_vercel_ai(extract_ctx *ctx, const struct json_object *input);
int ts_extract__walk_mastra(extract_ctx *ctx, const struct json_object *input);
bool ts_extract__vercel_message_applies(const struct json_object *input);
bool ts_extract__vercel_ai_applies(const struct json_object *input);
bool ts_extract__mastra_applies(const struct json_object *input);

/* ts_extract_agents_js.c: OpenAI Agents JS */
int ts_extract__walk_openai_agents_js(extract_ctx *ctx, const struct json_object *input);
bool ts_extract__openai_agents_js_applies(const struct json_object *input);

#endif
