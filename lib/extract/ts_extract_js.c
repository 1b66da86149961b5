/*
 * ts_extract_js — the Vercel AI SDK and Mastra: generateText/streamText
 * results (v4 `toolCalls` of {toolCallId, toolName, args}; v5+ step
 * `content` parts {type: "tool-call", toolCallId, toolName, input}), their
 * steps and response messages, UI messages (`tool-<name>`, `dynamic-tool`,
 * v4 `tool-invocation` parts and `toolInvocations`), stream parts (complete
 * `tool-call` parts, and starts plus argument deltas), and Mastra's chunks,
 * which hold the same fields under `payload`.
 *
 * One call appears in several places of one result (the v4 top-level
 * toolCalls repeats the last step's, response messages repeat every
 * step's), so every sighting goes to the collector (ts_extract_collect.c),
 * which keeps each call id once, in the order first seen. The walk reads
 * the complete record first: steps, then response messages, then the
 * top-level calls. Tool results, outputs and errors are never calls.
 */
#include "ts_extract_internal.h"

#include <stdarg.h>
#include <stdio.h>

typedef struct js_walk {
    extract_ctx *ctx;
    extract_collect col;
    bool payload; /* mastra: a chunk's fields are under "payload" */
} js_walk;

/* A path for messages ("steps[1].response.messages[0].content"), cut when
 * longer than the buffer. */
__attribute__((format(printf, 3, 4))) static void path_at(char *out, size_t size, const char *fmt,
                                                          ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(out, size, fmt, ap);
    va_end(ap);
}

/* ---- one tool call record ----------------------------------------------- */

/* The fields of a record: a Mastra chunk keeps them under "payload". */
static const struct json_object *record_of(const js_walk *w, const struct json_object *item)
{
    struct json_object *payload = member(item, "payload");

    return w->payload && is_object(payload) ? payload : item;
}

/* v5+ names the arguments "input", v4 and Mastra "args". */
static const struct json_object *input_of(const struct json_object *rec)
{
    return has_key(rec, "input") ? member(rec, "input") : member(rec, "args");
}

/* The call id of a record or stream part. */
static const struct json_object *id_of(const struct json_object *rec)
{
    return has_key(rec, "toolCallId") ? member(rec, "toolCallId") : member(rec, "id");
}

static int record_call(js_walk *w, const struct json_object *rec)
{
    return ts_extract__collect_call(&w->col, id_of(rec), member(rec, "toolName"), input_of(rec));
}

static int not_array(js_walk *w, const char *where, const struct json_object *v)
{
    return ts_extract__shape_error(w->ctx, "%s is %s, not an array", where,
                                   ts_extract__kind_name(v));
}

/* A list of tool calls (v4 toolCalls, Mastra toolCalls of chunks). */
static int tool_call_list(js_walk *w, const struct json_object *list, const char *where)
{
    size_t i;
    int rc;

    if (!is_array(list))
        return not_array(w, where, list);
    for (i = 0; i < array_len(list); i++) {
        const struct json_object *item = array_at(list, i);

        if (!is_object(item))
            return ts_extract__shape_error(w->ctx, "%s[%zu] is not an object", where, i);
        if (has_key(item, "type") && !member_is(item, "type", "tool-call"))
            continue;
        rc = record_call(w, record_of(w, item));
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ---- content parts and messages ------------------------------------------ */

/* Content parts of a v5+ step or a model message. */
static int content_parts(js_walk *w, const struct json_object *parts, const char *where)
{
    size_t i;
    int rc = 0;

    if (!is_array(parts))
        return not_array(w, where, parts);
    for (i = 0; i < array_len(parts) && rc == 0; i++) {
        const struct json_object *part = array_at(parts, i);
        struct json_object *call;

        if (!is_object(part))
            return ts_extract__shape_error(w->ctx, "%s[%zu] is not an object", where, i);
        if (member_is(part, "type", "tool-call")) {
            rc = record_call(w, part);
        } else if (member_is(part, "type", "tool-approval-request")) {
            call = member(part, "toolCall");
            if (is_object(call))
                rc = record_call(w, call);
        }
    }
    return rc;
}

/* Parts of a UI message: tool-<name>, dynamic-tool, v4 tool-invocation. */
static int ui_parts(js_walk *w, const struct json_object *parts, const char *where)
{
    size_t i;
    int rc = 0;

    if (!is_array(parts))
        return not_array(w, where, parts);
    for (i = 0; i < array_len(parts) && rc == 0; i++) {
        const struct json_object *part = array_at(parts, i);
        struct json_object *type = member(part, "type");
        struct json_object *invocation = member(part, "toolInvocation");
        struct json_object *name;

        if (!is_object(part))
            return ts_extract__shape_error(w->ctx, "%s[%zu] is not an object", where, i);
        if (!is_type(type, json_type_string))
            continue;
        if (strcmp(string_of(type), "tool-invocation") == 0 && invocation != NULL) {
            if (!is_object(invocation))
                return ts_extract__shape_error(w->ctx, "%s[%zu].toolInvocation is not an object",
                                               where, i);
            rc = record_call(w, invocation);
        } else if (strcmp(string_of(type), "dynamic-tool") == 0) {
            rc = record_call(w, part);
        } else if (strncmp(string_of(type), "tool-", 5) == 0 && string_of(type)[5] != '\0') {
            name = json_object_new_string(string_of(type) + 5);
            if (name == NULL)
                return ts_extract__no_memory(w->ctx);
            rc =
                ts_extract__collect_call(&w->col, member(part, "toolCallId"), name, input_of(part));
            json_object_put(name);
        }
    }
    return rc;
}

static bool is_ui_message(const struct json_object *msg)
{
    return is_array(member(msg, "parts")) || is_array(member(msg, "toolInvocations"));
}

/* A UI message: parts, then the v4 toolInvocations (the same calls). */
static int ui_message(js_walk *w, const struct json_object *msg, const char *where)
{
    struct json_object *invocations = member(msg, "toolInvocations");
    char path[96];
    int rc = 0;

    if (has_key(msg, "parts")) {
        path_at(path, sizeof(path), "%sparts", where);
        rc = ui_parts(w, member(msg, "parts"), path);
    }
    if (rc == 0 && invocations != NULL) {
        path_at(path, sizeof(path), "%stoolInvocations", where);
        rc = tool_call_list(w, invocations, path);
    }
    return rc;
}

/* Model (response) messages: assistant content parts; user, system and
 * tool messages hold no calls. */
static int model_messages(js_walk *w, const struct json_object *messages, const char *where)
{
    char path[96];
    size_t i;
    int rc;

    if (!is_array(messages))
        return not_array(w, where, messages);
    for (i = 0; i < array_len(messages); i++) {
        const struct json_object *msg = array_at(messages, i);

        if (!is_object(msg))
            return ts_extract__shape_error(w->ctx, "%s[%zu] is not an object", where, i);
        if (!is_array(member(msg, "content")) || member_is(msg, "role", "tool") ||
            member_is(msg, "role", "user"))
            continue;
        path_at(path, sizeof(path), "%s[%zu].content", where, i);
        rc = content_parts(w, member(msg, "content"), path);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ---- steps and results ------------------------------------------------------ */

/* One step or a whole result: the steps (of a result), its own content
 * (v5+; an onFinish event repeats the last step's there), response
 * messages (of a result), then the top-level toolCalls (the last step's
 * again). The steps come first: they are the whole record, in order. */
static int result_object(js_walk *w, const struct json_object *obj, const char *where, int depth)
{
    struct json_object *steps = member(obj, "steps");
    struct json_object *response = member(obj, "response");
    char path[96];
    size_t i;
    int rc = 0;

    if (is_ui_message(obj))
        return ui_message(w, obj, where);
    if (steps != NULL && depth == 0) {
        if (!is_array(steps))
            return not_array(w, "\"steps\"", steps);
        for (i = 0; i < array_len(steps) && rc == 0; i++) {
            if (!is_object(array_at(steps, i)))
                return ts_extract__shape_error(w->ctx, "steps[%zu] is not an object", i);
            path_at(path, sizeof(path), "steps[%zu].", i);
            rc = result_object(w, array_at(steps, i), path, depth + 1);
        }
    }
    if (rc == 0 && has_key(obj, "content") && is_array(member(obj, "content"))) {
        path_at(path, sizeof(path), "%scontent", where);
        rc = content_parts(w, member(obj, "content"), path);
    }
    /* a step's response messages repeat earlier steps' calls: a step (v5+
     * content, v4 stepType) is read from its own calls only */
    if (rc == 0 && has_key(response, "messages") && !is_array(member(obj, "content")) &&
        !has_key(obj, "stepType")) {
        path_at(path, sizeof(path), "%sresponse.messages", where);
        rc = model_messages(w, member(response, "messages"), path);
    }
    if (rc == 0 && has_key(obj, "toolCalls")) {
        path_at(path, sizeof(path), "%stoolCalls", where);
        rc = tool_call_list(w, member(obj, "toolCalls"), path);
    }
    return rc;
}

/* ---- stream parts and lists --------------------------------------------------- */

static bool type_is(const struct json_object *part, const char *a, const char *b, const char *c)
{
    return member_is(part, "type", a) || (b && member_is(part, "type", b)) ||
           (c && member_is(part, "type", c));
}

/* One stream part (fullStream, UI message stream, Mastra chunk). */
static int stream_part(js_walk *w, const struct json_object *part)
{
    const struct json_object *rec = record_of(w, part);
    struct json_object *call;

    if (type_is(part, "tool-call", "tool-input-available", "tool-input-error") ||
        type_is(part, "tool-call-approval", NULL, NULL))
        return record_call(w, rec);
    if (type_is(part, "tool-call-streaming-start", "tool-input-start",
                "tool-call-input-streaming-start"))
        return ts_extract__collect_start(&w->col, id_of(rec), member(rec, "toolName"));
    if (type_is(part, "tool-call-delta", "tool-input-delta", NULL)) {
        const struct json_object *delta = member(rec, "argsTextDelta");

        if (delta == NULL)
            delta = member(rec, "inputTextDelta");
        if (delta == NULL)
            delta = member(rec, "delta");
        return ts_extract__collect_delta(&w->col, id_of(rec), NULL, delta);
    }
    if (type_is(part, "tool-approval-request", NULL, NULL)) {
        call = member(rec, "toolCall");
        return is_object(call) ? record_call(w, call) : 0;
    }
    return 0;
}

/* A list: messages (UI or model), steps, or stream parts, in order. */
static int js_list(js_walk *w, const struct json_object *list)
{
    char where[48];
    size_t i;
    int rc = 0;

    for (i = 0; i < array_len(list) && rc == 0; i++) {
        const struct json_object *item = array_at(list, i);

        if (!is_object(item))
            return ts_extract__shape_error(w->ctx, "item at index %zu is not an object", i);
        path_at(where, sizeof(where), "[%zu].", i);
        if (is_ui_message(item)) {
            rc = ui_message(w, item, where);
        } else if (has_key(item, "role")) {
            if (!member_is(item, "role", "tool") && !member_is(item, "role", "user") &&
                is_array(member(item, "content"))) {
                path_at(where, sizeof(where), "[%zu].content", i);
                rc = content_parts(w, member(item, "content"), where);
            }
        } else if (!has_key(item, "type") || has_key(item, "toolCalls") ||
                   has_key(item, "stepType")) {
            path_at(where, sizeof(where), "[%zu].", i);
            rc = result_object(w, item, where, 1);
        } else {
            rc = stream_part(w, item);
        }
    }
    return rc;
}

/* The object is a result, a step or a message of these SDKs. */
static bool known_object(const struct json_object *obj)
{
    return has_key(obj, "toolCalls") || has_key(obj, "steps") || is_array(member(obj, "content")) ||
           is_ui_message(obj) || has_key(member(obj, "response"), "messages");
}

/* Some item of the list is a message, a step or a stream part. */
static bool known_list(const struct json_object *list)
{
    size_t i;

    for (i = 0; i < array_len(list); i++) {
        const struct json_object *item = array_at(list, i);

        if (known_object(item) || has_key(item, "role") || has_key(item, "type"))
            return true;
    }
    return array_len(list) == 0;
}

static int walk(extract_ctx *ctx, const struct json_object *input, bool payload)
{
    js_walk w = {ctx, {0}, payload};
    int rc;

    if (is_object(input) && !known_object(input))
        return ts_extract__shape_error(
            ctx, "expected a result (\"steps\", \"toolCalls\"), a step or a "
                 "message (\"content\", \"parts\"), got an object without them");
    if (is_array(input) && !known_list(input))
        return ts_extract__shape_error(
            ctx, "expected a list of messages, steps or stream parts, got an array without them");
    if (!is_object(input) && !is_array(input))
        return ts_extract__shape_error(
            ctx,
            "expected a result, a step, a message or a list of messages or stream parts, got %s",
            ts_extract__kind_name(input));
    rc = ts_extract__collect_init(&w.col, ctx);
    if (rc == 0)
        rc = is_array(input) ? js_list(&w, input) : result_object(&w, input, "", 0);
    if (rc == 0)
        rc = ts_extract__collect_finish(&w.col);
    ts_extract__collect_free(&w.col);
    return rc;
}

int ts_extract__walk_vercel_ai(extract_ctx *ctx, const struct json_object *input)
{
    return walk(ctx, input, false);
}

int ts_extract__walk_mastra(extract_ctx *ctx, const struct json_object *input)
{
    return walk(ctx, input, true);
}

/* ---- detection ------------------------------------------------------------------ */

static bool parts_have_type(const struct json_object *parts, const char *type)
{
    size_t i;

    if (!is_array(parts))
        return false;

    for (i = 0; i < array_len(parts); i++) {
        if (member_is(array_at(parts, i), "type", type))
            return true;
    }
    return false;
}

static bool steps_apply(const struct json_object *steps, bool payload);

/* A model message or v5+ step: "content" holds a tool-call part with a
 * toolName (never an Anthropic tool_use block); or an onFinish event of
 * v5+, whose "content" (the last step's, maybe text only) sits beside its
 * "steps" (Mastra's own results excepted). Checked before the anthropic
 * rule, which would read such an object as holding no call. */
bool ts_extract__vercel_message_applies(const struct json_object *input)
{
    struct json_object *content = member(input, "content");
    size_t i;

    if (!is_array(content) || parts_have_type(content, "tool_use"))
        return false;
    if (steps_apply(member(input, "steps"), false) && !ts_extract__mastra_applies(input))
        return true;
    for (i = 0; i < array_len(content); i++) {
        const struct json_object *part = array_at(content, i);

        if (member_is(part, "type", "tool-call") && has_key(part, "toolName"))
            return true;
    }
    return false;
}

/* A UI message part list with a typed part (never Pydantic AI's part_kind). */
static bool ui_message_applies(const struct json_object *msg)
{
    struct json_object *parts = member(msg, "parts");
    size_t i;

    if (is_array(member(msg, "toolInvocations")))
        return true;
    if (!is_array(parts) || !is_type(member(msg, "role"), json_type_string))
        return false;
    for (i = 0; i < array_len(parts); i++) {
        if (!has_key(array_at(parts, i), "type"))
            return false;
    }
    return array_len(parts) > 0;
}

static bool is_step(const struct json_object *obj)
{
    return is_array(member(obj, "toolCalls")) &&
           (is_array(member(obj, "toolResults")) || has_key(obj, "stepType") ||
            has_key(obj, "finishReason"));
}

static bool item_has_payload(const struct json_object *list)
{
    size_t i;

    if (!is_array(list))
        return false;

    for (i = 0; i < array_len(list); i++) {
        if (is_object(member(array_at(list, i), "payload")))
            return true;
    }
    return false;
}

static bool steps_apply(const struct json_object *steps, bool payload)
{
    size_t i;

    if (!is_array(steps))
        return false;

    for (i = 0; i < array_len(steps); i++) {
        const struct json_object *step = array_at(steps, i);

        if (payload && item_has_payload(member(step, "toolCalls")))
            return true;
        if (!payload && (is_step(step) || is_array(member(step, "content"))))
            return true;
    }
    return false;
}

static bool stream_vocabulary(const struct json_object *part)
{
    static const char *const types[] = {
        "tool-call",
        "tool-input-start",
        "tool-input-delta",
        "tool-input-available",
        "tool-call-delta",
        "tool-call-streaming-start",
        "start",
        "start-step",
        "step-start",
        "finish-step",
        "step-finish",
        "finish",
        "text-delta",
        "text-start",
        "tool-result",
        "tool-output-available",
    };
    size_t i;

    for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        if (member_is(part, "type", types[i]))
            return true;
    }
    return false;
}

/* Every item of the list is an object with a string "type". */
static bool all_typed(const struct json_object *list)
{
    size_t i;

    if (!is_array(list))
        return false;

    for (i = 0; i < array_len(list); i++) {
        if (!is_type(member(array_at(list, i), "type"), json_type_string))
            return false;
    }
    return array_len(list) > 0;
}

bool ts_extract__mastra_applies(const struct json_object *input)
{
    if (is_array(input))
        return all_typed(input) && item_has_payload(input);
    return item_has_payload(member(input, "toolCalls")) ||
           steps_apply(member(input, "steps"), true);
}

bool ts_extract__vercel_ai_applies(const struct json_object *input)
{
    size_t i;
    bool streamed = false;

    if (is_object(input))
        return is_step(input) || steps_apply(member(input, "steps"), false) ||
               ui_message_applies(input);
    if (!is_array(input))
        return false;
    for (i = 0; i < array_len(input); i++) {
        const struct json_object *item = array_at(input, i);

        if (ui_message_applies(item) || ts_extract__vercel_message_applies(item) || is_step(item))
            return true;
        streamed = streamed || stream_vocabulary(item);
    }
    return streamed && all_typed(input);
}
