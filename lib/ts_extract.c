/*
 * ts_extract — turning an agent's raw response into a list of calls.
 *
 * Owns the format table (names, detection rules, one walker per format) and
 * the normalization every walker shares: a call is {"tool": name, "args":
 * {...}}, a call without a usable name is dropped, arguments given as JSON
 * text are parsed, arguments that are not an object become {"value": x}.
 * The input is never modified; the result holds copies of what it needs.
 *
 * Walkers check the shape they rely on: the top-level key that makes the
 * format, and the JSON type of every container they descend into. A missing
 * optional piece (a choice without tool calls, a candidate without content)
 * simply yields no call; a piece of the wrong type is an error that names the
 * format and the path ("openai: choices[0].message.tool_calls is not an
 * array"). See docs/internals/extract.md.
 */
#include "ts_extract.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ts_json.h"

/* Nesting accepted inside argument strings ("{\"a\": ...}"). */
#define EXTRACT_ARGS_MAX_DEPTH 64

typedef struct extract_ctx {
    const char *format;        /* format name, for error messages */
    ts_extract_origin origin;  /* response or trace file */
    struct json_object *calls; /* the result being built */
    ts_error *err;
} extract_ctx;

typedef int (*extract_walker)(extract_ctx *ctx, const struct json_object *input);

typedef struct extract_format {
    const char *name;
    extract_walker walk;
    bool file_only; /* langchain, custom: trace files only, never detected */
} extract_format;

/* ---- small JSON helpers ---------------------------------------------- */

/* Member key of obj, or NULL when obj is not an object, key is absent or
 * its value is null (json-c represents null as NULL). */
static struct json_object *member(const struct json_object *obj, const char *key)
{
    struct json_object *value = NULL;

    if (obj == NULL || !json_object_is_type(obj, json_type_object))
        return NULL;
    if (!json_object_object_get_ex(obj, key, &value))
        return NULL;
    return value;
}

static bool has_key(const struct json_object *obj, const char *key)
{
    if (obj == NULL || !json_object_is_type(obj, json_type_object))
        return false;
    return json_object_object_get_ex(obj, key, NULL);
}

static bool is_type(const struct json_object *v, json_type type)
{
    return v != NULL && json_object_is_type(v, type);
}

static bool is_array(const struct json_object *v)
{
    return is_type(v, json_type_array);
}

static bool is_object(const struct json_object *v)
{
    return is_type(v, json_type_object);
}

static size_t array_len(const struct json_object *v)
{
    return json_object_array_length(v);
}

static struct json_object *array_at(const struct json_object *v, size_t i)
{
    return json_object_array_get_idx(v, i);
}

/* The text of a string value (json-c's getter wants a mutable pointer but
 * does not modify the value). */
static const char *string_of(const struct json_object *v)
{
    return json_object_get_string((struct json_object *)v);
}

/* String member key of obj equals want. */
static bool member_is(const struct json_object *obj, const char *key, const char *want)
{
    struct json_object *v = member(obj, key);

    return is_type(v, json_type_string) && strcmp(string_of(v), want) == 0;
}

/* A deep copy; *out = NULL for a JSON null. -ENOMEM on allocation failure. */
static int copy_value(const struct json_object *v, struct json_object **out)
{
    *out = ts_json_copy(v);
    return v != NULL && *out == NULL ? -ENOMEM : 0;
}

/* "an object", "an array", ... for messages. */
static const char *kind_name(const struct json_object *v)
{
    switch (v == NULL ? json_type_null : json_object_get_type(v)) {
    case json_type_object:
        return "an object";
    case json_type_array:
        return "an array";
    case json_type_string:
        return "a string";
    case json_type_int:
    case json_type_double:
        return "a number";
    case json_type_boolean:
        return "a boolean";
    case json_type_null:
    default:
        return "null";
    }
}

/* ---- errors ------------------------------------------------------------ */

/* A format error: "<format>: <message>", code "format", -EINVAL. */
static int shape_error(extract_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int shape_error(extract_ctx *ctx, const char *fmt, ...)
{
    char text[TS_ERROR_MESSAGE_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    return ts_error_set(ctx->err, -EINVAL, TS_ERR_FORMAT, "%s: %s", ctx->format, text);
}

static int no_memory(extract_ctx *ctx)
{
    return ts_error_set(ctx->err, -ENOMEM, TS_ERR_NO_MEMORY, "%s: out of memory", ctx->format);
}

/* ---- argument normalization ------------------------------------------ */

/* Parse text as one JSON document (ts_json's strict reader: valid UTF-8,
 * bounded depth, no trailing content). *parsed = false means "does not
 * parse"; the caller decides what that becomes. -ENOMEM on allocation
 * failure. */
static int parse_text(const char *text, size_t len, bool *parsed, struct json_object **out)
{
    ts_error ignored;
    int rc;

    *out = NULL;
    *parsed = false;
    rc = ts_json_parse(text, len, EXTRACT_ARGS_MAX_DEPTH, out, &ignored);
    if (rc == -ENOMEM)
        return rc;
    *parsed = rc == 0;
    return 0;
}

/* {"value": v}, taking v's reference. */
static struct json_object *wrap_value(struct json_object *v)
{
    struct json_object *obj = json_object_new_object();

    if (obj == NULL) {
        json_object_put(v);
        return NULL;
    }
    if (json_object_object_add(obj, "value", v) < 0) {
        json_object_put(v);
        json_object_put(obj);
        return NULL;
    }
    return obj;
}

/*
 * The arguments object for a provider value (the rule of extract.md):
 * missing/null -> {}, object -> copy, string -> parsed JSON (unparseable ->
 * unparsed_fallback, {} when that is NULL), anything that is not an object
 * -> {"value": x}. *out is a new object; -ENOMEM on allocation failure.
 */
static int args_from_value(const struct json_object *v, const char *unparsed_key,
                           struct json_object **out)
{
    struct json_object *value = NULL;
    bool parsed = false;
    int rc;

    *out = NULL;
    if (v == NULL) {
        *out = json_object_new_object();
        return *out == NULL ? -ENOMEM : 0;
    }
    if (is_type(v, json_type_string)) {
        rc = parse_text(string_of(v), (size_t)json_object_get_string_len(v), &parsed, &value);
        if (rc < 0)
            return rc;
        if (!parsed) {
            *out = json_object_new_object();
            if (*out == NULL)
                return -ENOMEM;
            if (unparsed_key == NULL)
                return 0;
            value = json_object_new_string_len(string_of(v), json_object_get_string_len(v));
            if (value == NULL || json_object_object_add(*out, unparsed_key, value) < 0) {
                json_object_put(value);
                json_object_put(*out);
                *out = NULL;
                return -ENOMEM;
            }
            return 0;
        }
    } else {
        rc = copy_value(v, &value);
        if (rc < 0)
            return rc;
    }
    if (is_object(value)) {
        *out = value;
        return 0;
    }
    *out = wrap_value(value);
    return *out == NULL ? -ENOMEM : 0;
}

/*
 * Append {"tool": name, "args": args} when name is a non-empty string;
 * otherwise the call is dropped. Takes args' reference in every case.
 */
static int add_call(extract_ctx *ctx, const struct json_object *name, struct json_object *args)
{
    struct json_object *call;
    struct json_object *tool;

    if (!is_type(name, json_type_string) || json_object_get_string_len(name) == 0) {
        json_object_put(args);
        return 0;
    }
    call = json_object_new_object();
    tool = json_object_new_string_len(string_of(name), json_object_get_string_len(name));
    if (call == NULL || tool == NULL || json_object_object_add(call, "tool", tool) < 0) {
        json_object_put(tool);
        goto fail;
    }
    if (json_object_object_add(call, "args", args) < 0)
        goto fail;
    args = NULL;
    if (json_object_array_add(ctx->calls, call) < 0) {
        json_object_put(call);
        return no_memory(ctx);
    }
    return 0;
fail:
    json_object_put(args);
    json_object_put(call);
    return no_memory(ctx);
}

/* add_call with args normalized from a provider value. */
static int add_call_value(extract_ctx *ctx, const struct json_object *name,
                          const struct json_object *args_value)
{
    struct json_object *args;

    if (!is_type(name, json_type_string) || json_object_get_string_len(name) == 0)
        return 0;
    if (args_from_value(args_value, NULL, &args) < 0)
        return no_memory(ctx);
    return add_call(ctx, name, args);
}

/* ---- calls ------------------------------------------------------------- */

/* Rule 1: a list of calls, kept as it is (a deep copy). */
static int walk_calls(extract_ctx *ctx, const struct json_object *input)
{
    size_t i;
    struct json_object *copy;

    if (!is_array(input))
        return shape_error(ctx, "expected an array of calls, got %s", kind_name(input));
    for (i = 0; i < array_len(input); i++) {
        const struct json_object *item = array_at(input, i);

        if (!is_object(item))
            return shape_error(ctx, "item at index %zu is not an object", i);
        if (!has_key(item, "tool"))
            return shape_error(ctx, "item at index %zu has no \"tool\" key", i);
    }
    if (copy_value(input, &copy) < 0)
        return no_memory(ctx);
    json_object_put(ctx->calls);
    ctx->calls = copy;
    return 0;
}

/* ---- openai (Chat Completions) ----------------------------------------- */

static int openai_function(extract_ctx *ctx, const struct json_object *fn, const char *where)
{
    if (fn == NULL)
        return 0;
    if (!is_object(fn))
        return shape_error(ctx, "%s is not an object", where);
    return add_call_value(ctx, member(fn, "name"), member(fn, "arguments"));
}

static int openai_message(extract_ctx *ctx, const struct json_object *message, size_t choice)
{
    struct json_object *tool_calls = member(message, "tool_calls");
    char where[96];
    size_t i;
    int rc;

    if (tool_calls != NULL && !is_array(tool_calls))
        return shape_error(ctx, "choices[%zu].message.tool_calls is not an array", choice);
    if (tool_calls != NULL && array_len(tool_calls) > 0) {
        for (i = 0; i < array_len(tool_calls); i++) {
            const struct json_object *entry = array_at(tool_calls, i);

            if (!is_object(entry))
                return shape_error(ctx, "choices[%zu].message.tool_calls[%zu] is not an object",
                                   choice, i);
            snprintf(where, sizeof(where), "choices[%zu].message.tool_calls[%zu].function", choice,
                     i);
            rc = openai_function(ctx, member(entry, "function"), where);
            if (rc < 0)
                return rc;
        }
        return 0;
    }
    snprintf(where, sizeof(where), "choices[%zu].message.function_call", choice);
    return openai_function(ctx, member(message, "function_call"), where);
}

static int walk_openai(extract_ctx *ctx, const struct json_object *input)
{
    struct json_object *choices = member(input, "choices");
    size_t i;
    int rc;

    if (!is_object(input) || !has_key(input, "choices"))
        return shape_error(ctx, "expected an object with a \"choices\" array, got %s",
                           is_object(input) ? "an object without \"choices\"" : kind_name(input));
    if (!is_array(choices))
        return shape_error(ctx, "\"choices\" is %s, not an array", kind_name(choices));
    for (i = 0; i < array_len(choices); i++) {
        const struct json_object *choice = array_at(choices, i);
        struct json_object *message;

        if (!is_object(choice))
            return shape_error(ctx, "choices[%zu] is not an object", i);
        message = member(choice, "message");
        if (message == NULL)
            continue;
        if (!is_object(message))
            return shape_error(ctx, "choices[%zu].message is not an object", i);
        rc = openai_message(ctx, message, i);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ---- anthropic (Messages API) and claude-agent-sdk ---------------------- */

/* The tool_use blocks of one content array, in order. */
static int tool_use_blocks(extract_ctx *ctx, const struct json_object *content, const char *where)
{
    size_t i;
    int rc;

    for (i = 0; i < array_len(content); i++) {
        const struct json_object *block = array_at(content, i);

        if (!is_object(block))
            return shape_error(ctx, "%s[%zu] is not an object", where, i);
        if (!member_is(block, "type", "tool_use"))
            continue;
        rc = add_call_value(ctx, member(block, "name"), member(block, "input"));
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Rule 3 applies: "content" is a non-empty array holding a typed block. */
static bool anthropic_applies(const struct json_object *input)
{
    struct json_object *content = member(input, "content");
    size_t i;

    if (!is_array(content))
        return false;
    for (i = 0; i < array_len(content); i++) {
        if (has_key(array_at(content, i), "type"))
            return true;
    }
    return false;
}

/* The content array of one agent message: "content", or the SDK's own
 * serialized form {"type": ..., "message": {"content": [...]}}. NULL when the
 * message has no content array (string content, system/result messages). */
static struct json_object *message_content(const struct json_object *message)
{
    struct json_object *content = member(message, "content");
    struct json_object *inner;

    if (is_array(content))
        return content;
    inner = member(message, "message");
    content = member(inner, "content");
    return is_array(content) ? content : NULL;
}

static bool is_user_message(const struct json_object *message)
{
    return member_is(message, "role", "user") || member_is(message, "type", "user") ||
           member_is(member(message, "message"), "role", "user");
}

/* A list of agent messages (claude-agent-sdk, explicit anthropic on a list). */
static int agent_message_list(extract_ctx *ctx, const struct json_object *input)
{
    char where[64];
    size_t i;
    int rc;

    for (i = 0; i < array_len(input); i++) {
        const struct json_object *message = array_at(input, i);
        struct json_object *content;

        if (!is_object(message))
            return shape_error(ctx, "message at index %zu is not an object", i);
        if (is_user_message(message))
            continue;
        content = message_content(message);
        if (content == NULL)
            continue;
        snprintf(where, sizeof(where), "message %zu: content", i);
        rc = tool_use_blocks(ctx, content, where);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int walk_anthropic(extract_ctx *ctx, const struct json_object *input)
{
    struct json_object *content = member(input, "content");

    if (is_array(input))
        return agent_message_list(ctx, input);
    if (!is_object(input) || !is_array(content))
        return shape_error(ctx,
                           "expected a message object with a \"content\" array (or a list of "
                           "messages), got %s",
                           is_object(input) ? "an object without a \"content\" array"
                                            : kind_name(input));
    return tool_use_blocks(ctx, content, "content");
}

/* Rule 7 applies: some message holds a tool_use block in its content array
 * (or in message.content). */
static bool claude_agent_sdk_applies(const struct json_object *input)
{
    size_t i, j;

    for (i = 0; i < array_len(input); i++) {
        struct json_object *content = message_content(array_at(input, i));

        if (content == NULL)
            continue;
        for (j = 0; j < array_len(content); j++) {
            if (member_is(array_at(content, j), "type", "tool_use"))
                return true;
        }
    }
    return false;
}

static int walk_claude_agent_sdk(extract_ctx *ctx, const struct json_object *input)
{
    if (!is_array(input))
        return shape_error(ctx, "expected an array of messages, got %s", kind_name(input));
    return agent_message_list(ctx, input);
}

/* ---- gemini ------------------------------------------------------------ */

static int gemini_parts(extract_ctx *ctx, const struct json_object *parts, size_t cand)
{
    size_t i;
    int rc;

    for (i = 0; i < array_len(parts); i++) {
        const struct json_object *part = array_at(parts, i);
        struct json_object *call;

        if (!is_object(part))
            return shape_error(ctx, "candidates[%zu].content.parts[%zu] is not an object", cand, i);
        call = member(part, "functionCall");
        if (call == NULL)
            call = member(part, "function_call");
        if (call == NULL)
            continue;
        if (!is_object(call))
            return shape_error(ctx,
                               "candidates[%zu].content.parts[%zu].functionCall is not an "
                               "object",
                               cand, i);
        rc = add_call_value(ctx, member(call, "name"), member(call, "args"));
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int walk_gemini(extract_ctx *ctx, const struct json_object *input)
{
    struct json_object *candidates = member(input, "candidates");
    size_t i;
    int rc;

    if (!is_object(input) || !has_key(input, "candidates"))
        return shape_error(ctx, "expected an object with a \"candidates\" array, got %s",
                           is_object(input) ? "an object without \"candidates\""
                                            : kind_name(input));
    if (!is_array(candidates))
        return shape_error(ctx, "\"candidates\" is %s, not an array", kind_name(candidates));
    for (i = 0; i < array_len(candidates); i++) {
        const struct json_object *candidate = array_at(candidates, i);
        struct json_object *content, *parts;

        if (!is_object(candidate))
            return shape_error(ctx, "candidates[%zu] is not an object", i);
        content = member(candidate, "content");
        if (content == NULL)
            continue;
        if (!is_object(content))
            return shape_error(ctx, "candidates[%zu].content is not an object", i);
        parts = member(content, "parts");
        if (parts == NULL)
            continue;
        if (!is_array(parts))
            return shape_error(ctx, "candidates[%zu].content.parts is not an array", i);
        rc = gemini_parts(ctx, parts, i);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ---- langgraph --------------------------------------------------------- */

/* Some message of the list has a non-empty tool_calls array. */
static bool messages_have_tool_calls(const struct json_object *messages)
{
    size_t i;

    for (i = 0; i < array_len(messages); i++) {
        struct json_object *tool_calls = member(array_at(messages, i), "tool_calls");

        if (is_array(tool_calls) && array_len(tool_calls) > 0)
            return true;
    }
    return false;
}

/* One tool_calls entry: {name, args} or {function: {name, arguments}}.
 * *recognized tells whether it had either shape. */
static int langgraph_entry(extract_ctx *ctx, const struct json_object *entry, bool *recognized)
{
    struct json_object *fn = member(entry, "function");

    if (has_key(entry, "name")) {
        *recognized = true;
        return add_call_value(ctx, member(entry, "name"), member(entry, "args"));
    }
    if (is_object(fn) && has_key(fn, "name")) {
        *recognized = true;
        return add_call_value(ctx, member(fn, "name"), member(fn, "arguments"));
    }
    return 0;
}

static int langgraph_messages(extract_ctx *ctx, const struct json_object *messages)
{
    bool any_entries = false;
    bool recognized = false;
    size_t i, j;
    int rc;

    for (i = 0; i < array_len(messages); i++) {
        const struct json_object *message = array_at(messages, i);
        struct json_object *tool_calls;

        if (!is_object(message))
            return shape_error(ctx, "message at index %zu is not an object", i);
        tool_calls = member(message, "tool_calls");
        if (tool_calls == NULL)
            continue;
        if (!is_array(tool_calls))
            return shape_error(ctx, "message at index %zu: tool_calls is not an array", i);
        for (j = 0; j < array_len(tool_calls); j++) {
            const struct json_object *entry = array_at(tool_calls, j);

            if (!is_object(entry))
                return shape_error(ctx, "message at index %zu: tool_calls[%zu] is not an object", i,
                                   j);
            any_entries = true;
            rc = langgraph_entry(ctx, entry, &recognized);
            if (rc < 0)
                return rc;
        }
    }
    if (any_entries && !recognized)
        return shape_error(ctx, "the tool_calls entries have an unrecognized shape (expected "
                                "{\"name\", \"args\"} or {\"function\": {\"name\", "
                                "\"arguments\"}})");
    return 0;
}

static bool langgraph_state_applies(const struct json_object *input)
{
    struct json_object *messages = member(input, "messages");

    return is_array(messages) && messages_have_tool_calls(messages);
}

static int walk_langgraph(extract_ctx *ctx, const struct json_object *input)
{
    struct json_object *messages = member(input, "messages");

    if (is_array(input))
        return langgraph_messages(ctx, input);
    if (!is_object(input) || !is_array(messages))
        return shape_error(ctx,
                           "expected a state object with a \"messages\" array or an array of "
                           "messages, got %s",
                           is_object(input) ? "an object without a \"messages\" array"
                                            : kind_name(input));
    return langgraph_messages(ctx, messages);
}

/* ---- openai-agents (Agents SDK run result) ------------------------------ */

static int walk_openai_agents(extract_ctx *ctx, const struct json_object *input)
{
    struct json_object *items = member(input, "new_items");
    size_t i;
    int rc;

    if (!is_object(input) || !has_key(input, "new_items"))
        return shape_error(ctx, "expected a run result object with a \"new_items\" array, got %s",
                           is_object(input) ? "an object without \"new_items\"" : kind_name(input));
    if (!is_array(items))
        return shape_error(ctx, "\"new_items\" is %s, not an array", kind_name(items));
    for (i = 0; i < array_len(items); i++) {
        const struct json_object *item = array_at(items, i);
        struct json_object *raw;

        if (!is_object(item))
            return shape_error(ctx, "new_items[%zu] is not an object", i);
        if (!member_is(item, "type", "tool_call_item"))
            continue;
        raw = member(item, "raw_item");
        if (raw == NULL)
            continue;
        if (!is_object(raw))
            return shape_error(ctx, "new_items[%zu].raw_item is not an object", i);
        rc = add_call_value(ctx, member(raw, "name"), member(raw, "arguments"));
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ---- openai-responses --------------------------------------------------- */

static bool has_function_call_item(const struct json_object *items)
{
    size_t i;

    for (i = 0; i < array_len(items); i++) {
        if (member_is(array_at(items, i), "type", "function_call"))
            return true;
    }
    return false;
}

static bool openai_responses_applies(const struct json_object *input)
{
    if (is_array(input))
        return has_function_call_item(input);
    return is_array(member(input, "output")) && has_function_call_item(member(input, "output"));
}

static int walk_openai_responses(extract_ctx *ctx, const struct json_object *input)
{
    const struct json_object *items = input;
    const char *where = "item";
    size_t i;
    int rc;

    if (is_object(input)) {
        items = member(input, "output");
        where = "output";
    }
    if (!is_array(items))
        return shape_error(ctx,
                           "expected a response object with an \"output\" array (or an array "
                           "of output items), got %s",
                           is_object(input) ? "an object without an \"output\" array"
                                            : kind_name(input));
    for (i = 0; i < array_len(items); i++) {
        const struct json_object *item = array_at(items, i);

        if (!is_object(item))
            return shape_error(ctx, "%s[%zu] is not an object", where, i);
        if (!member_is(item, "type", "function_call"))
            continue;
        rc = add_call_value(ctx, member(item, "name"), member(item, "arguments"));
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ---- pydantic-ai --------------------------------------------------------- */

static bool pydantic_ai_applies(const struct json_object *input)
{
    size_t i, j;

    for (i = 0; i < array_len(input); i++) {
        struct json_object *parts = member(array_at(input, i), "parts");

        if (!is_array(parts))
            continue;
        for (j = 0; j < array_len(parts); j++) {
            if (member_is(array_at(parts, j), "part_kind", "tool-call"))
                return true;
        }
    }
    return false;
}

static int pydantic_ai_message(extract_ctx *ctx, const struct json_object *message, size_t index)
{
    struct json_object *parts = member(message, "parts");
    size_t j;
    int rc;

    if (parts == NULL)
        return 0;
    if (!is_array(parts))
        return shape_error(ctx, "message at index %zu: parts is not an array", index);
    for (j = 0; j < array_len(parts); j++) {
        const struct json_object *part = array_at(parts, j);

        if (!is_object(part))
            return shape_error(ctx, "message at index %zu: parts[%zu] is not an object", index, j);
        if (!member_is(part, "part_kind", "tool-call"))
            continue;
        rc = add_call_value(ctx, member(part, "tool_name"), member(part, "args"));
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int walk_pydantic_ai(extract_ctx *ctx, const struct json_object *input)
{
    size_t i;
    int rc;

    if (is_object(input) && is_array(member(input, "parts")))
        return pydantic_ai_message(ctx, input, 0);
    if (!is_array(input))
        return shape_error(ctx, "expected an array of messages with \"parts\", got %s",
                           is_object(input) ? "an object without a \"parts\" array"
                                            : kind_name(input));
    for (i = 0; i < array_len(input); i++) {
        const struct json_object *message = array_at(input, i);

        if (!is_object(message))
            return shape_error(ctx, "message at index %zu is not an object", i);
        rc = pydantic_ai_message(ctx, message, i);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ---- mcp (JSON-RPC) ------------------------------------------------------- */

static bool mcp_applies(const struct json_object *input)
{
    size_t i;

    if (is_object(input))
        return has_key(input, "jsonrpc");
    for (i = 0; i < array_len(input); i++) {
        if (has_key(array_at(input, i), "jsonrpc"))
            return true;
    }
    return false;
}

static int mcp_message(extract_ctx *ctx, const struct json_object *message, const char *where)
{
    struct json_object *params;

    if (!member_is(message, "method", "tools/call"))
        return 0;
    params = member(message, "params");
    if (params == NULL)
        return 0;
    if (!is_object(params))
        return shape_error(ctx, "%s: params is not an object", where);
    return add_call_value(ctx, member(params, "name"), member(params, "arguments"));
}

static int walk_mcp(extract_ctx *ctx, const struct json_object *input)
{
    char where[48];
    size_t i;
    int rc;

    if (is_object(input) && has_key(input, "jsonrpc"))
        return mcp_message(ctx, input, "message");
    if (!is_array(input))
        return shape_error(ctx,
                           "expected a JSON-RPC message (an object with \"jsonrpc\") or an "
                           "array of them, got %s",
                           is_object(input) ? "an object without \"jsonrpc\"" : kind_name(input));
    for (i = 0; i < array_len(input); i++) {
        const struct json_object *message = array_at(input, i);

        if (!is_object(message))
            return shape_error(ctx, "message at index %zu is not an object", i);
        snprintf(where, sizeof(where), "message at index %zu", i);
        rc = mcp_message(ctx, message, where);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ---- langchain (files only) ----------------------------------------------- */

/* String tool inputs: JSON text is parsed, anything else is {"input": s}
 * (a LangChain agent passes free text to single-input tools). */
static int langchain_step(extract_ctx *ctx, const struct json_object *step)
{
    const struct json_object *name;
    const struct json_object *value;
    struct json_object *args;
    const char *unparsed_key = "input";

    if (has_key(step, "tool")) {
        name = member(step, "tool");
        value = member(step, "tool_input");
    } else if (has_key(step, "name")) {
        name = member(step, "name");
        value = member(step, "args");
        unparsed_key = NULL;
    } else if (has_key(step, "action")) {
        name = member(step, "action");
        value = member(step, "action_input");
    } else {
        return 0;
    }
    if (!is_type(name, json_type_string) || json_object_get_string_len(name) == 0)
        return 0;
    if (args_from_value(value, unparsed_key, &args) < 0)
        return no_memory(ctx);
    return add_call(ctx, name, args);
}

static int walk_langchain(extract_ctx *ctx, const struct json_object *input)
{
    size_t i;
    int rc;

    if (!is_array(input))
        return shape_error(ctx, "expected an array of agent steps, got %s", kind_name(input));
    for (i = 0; i < array_len(input); i++) {
        const struct json_object *step = array_at(input, i);

        if (!is_object(step))
            return shape_error(ctx, "step at index %zu is not an object", i);
        rc = langchain_step(ctx, step);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ---- custom (files only) ---------------------------------------------------- */

/* A JSON value Python would call truthy (the reference reads "a or b"). */
static bool truthy(const struct json_object *v)
{
    switch (v == NULL ? json_type_null : json_object_get_type(v)) {
    case json_type_boolean:
        return json_object_get_boolean(v);
    case json_type_int:
        return json_object_get_int64(v) != 0;
    case json_type_double:
        return json_object_get_double(v) != 0.0;
    case json_type_string:
        return json_object_get_string_len(v) > 0;
    case json_type_array:
        return array_len(v) > 0;
    case json_type_object:
        return json_object_object_length(v) > 0;
    case json_type_null:
    default:
        return false;
    }
}

static int custom_call(extract_ctx *ctx, const struct json_object *call)
{
    static const char *const name_keys[] = {"tool", "name", "function"};
    static const char *const args_keys[] = {"args", "arguments", "input"};
    const struct json_object *name = NULL;
    const struct json_object *value = NULL;
    struct json_object *args;
    size_t k;

    for (k = 0; k < 3 && name == NULL; k++) {
        struct json_object *v = member(call, name_keys[k]);

        if (is_type(v, json_type_string) && json_object_get_string_len(v) > 0)
            name = v;
    }
    if (name == NULL)
        return 0;
    for (k = 0; k < 3 && value == NULL; k++) {
        struct json_object *v = member(call, args_keys[k]);

        if (truthy(v))
            value = v;
    }
    if (value == NULL) {
        args = json_object_new_object();
    } else if (copy_value(value, &args) < 0) {
        args = NULL;
    } else if (!is_object(args)) {
        args = wrap_value(args);
    }
    if (args == NULL)
        return no_memory(ctx);
    return add_call(ctx, name, args);
}

static int walk_custom(extract_ctx *ctx, const struct json_object *input)
{
    const struct json_object *list = input;
    size_t i;
    int rc;

    if (is_object(input)) {
        if (has_key(input, "calls"))
            list = member(input, "calls");
        else
            list = member(input, "tool_calls");
        if (!truthy(list)) {
            if (has_key(input, "tool") || has_key(input, "name"))
                return custom_call(ctx, input);
            return 0;
        }
        if (!is_array(list))
            return shape_error(ctx, "\"%s\" is %s, not an array",
                               has_key(input, "calls") ? "calls" : "tool_calls", kind_name(list));
    } else if (!is_array(input)) {
        return shape_error(ctx,
                           "expected {\"calls\": [...]}, {\"tool_calls\": [...]}, a call object "
                           "or an array of calls, got %s",
                           kind_name(input));
    }
    for (i = 0; i < array_len(list); i++) {
        const struct json_object *call = array_at(list, i);

        if (!is_object(call))
            continue;
        rc = custom_call(ctx, call);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ---- the format table and detection --------------------------------------- */

static const extract_format formats[] = {
    {"calls", walk_calls, false},
    {"openai", walk_openai, false},
    {"openai-responses", walk_openai_responses, false},
    {"anthropic", walk_anthropic, false},
    {"gemini", walk_gemini, false},
    {"langgraph", walk_langgraph, false},
    {"openai-agents", walk_openai_agents, false},
    {"claude-agent-sdk", walk_claude_agent_sdk, false},
    {"pydantic-ai", walk_pydantic_ai, false},
    {"mcp", walk_mcp, false},
    {"langchain", walk_langchain, true},
    {"custom", walk_custom, true},
};

#define DETECTABLE_LIST                                                                            \
    "calls, openai, openai-responses, anthropic, gemini, langgraph, openai-agents, "               \
    "claude-agent-sdk, pydantic-ai, mcp"

static const extract_format *format_find(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
        if (strcmp(formats[i].name, name) == 0)
            return &formats[i];
    }
    return NULL;
}

static bool calls_applies(const struct json_object *input)
{
    return array_len(input) == 0 || has_key(array_at(input, 0), "tool");
}

static const char *detect_object(const struct json_object *input)
{
    if (has_key(input, "choices"))
        return "openai";
    if (anthropic_applies(input))
        return "anthropic";
    if (has_key(input, "candidates"))
        return "gemini";
    if (langgraph_state_applies(input))
        return "langgraph";
    if (has_key(input, "new_items"))
        return "openai-agents";
    if (openai_responses_applies(input))
        return "openai-responses";
    if (mcp_applies(input))
        return "mcp";
    return NULL;
}

static const char *detect_array(const struct json_object *input)
{
    if (calls_applies(input))
        return "calls";
    if (claude_agent_sdk_applies(input))
        return "claude-agent-sdk";
    if (messages_have_tool_calls(input))
        return "langgraph";
    if (openai_responses_applies(input))
        return "openai-responses";
    if (pydantic_ai_applies(input))
        return "pydantic-ai";
    if (mcp_applies(input))
        return "mcp";
    return NULL;
}

const char *ts_extract_detect(const struct json_object *input)
{
    if (is_object(input))
        return detect_object(input);
    if (is_array(input))
        return detect_array(input);
    return NULL;
}

bool ts_extract_format_known(const char *name)
{
    if (name == NULL)
        return false;
    return strcmp(name, "auto") == 0 || format_find(name) != NULL;
}

const char *ts_extract_format_list(void)
{
    return "auto, " DETECTABLE_LIST ", langchain, custom";
}

static int undetected_error(const struct json_object *input, ts_extract_origin origin,
                            ts_error *err)
{
    if (origin == TS_EXTRACT_FILE)
        return ts_error_set(
            err, -EINVAL, TS_ERR_FORMAT,
            "cannot auto-detect the format of %s (supported formats: " DETECTABLE_LIST
            ", langchain, custom); for another shape of trace file use --format "
            "custom or --format langchain",
            kind_name(input));
    return ts_error_set(err, -EINVAL, TS_ERR_FORMAT,
                        "cannot auto-detect the format of %s (supported formats: " DETECTABLE_LIST
                        ")",
                        kind_name(input));
}

/* "unknown format 'x'": the caller's text, cut and with control bytes
 * shown as '?', so the message stays one short line. */
static int unknown_format_error(const char *format, ts_error *err)
{
    char shown[68];
    size_t i;

    for (i = 0; format[i] != '\0' && i < sizeof(shown) - 4; i++) {
        unsigned char c = (unsigned char)format[i];

        shown[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    if (format[i] != '\0') {
        memcpy(shown + i, "...", 3);
        i += 3;
    }
    shown[i] = '\0';
    return ts_error_set(err, -EINVAL, TS_ERR_FORMAT, "unknown format '%s' (supported formats: %s)",
                        shown, ts_extract_format_list());
}

int ts_extract(const struct json_object *input, const char *format, ts_extract_origin origin,
               struct json_object **calls_out, ts_error *err)
{
    const extract_format *fmt;
    extract_ctx ctx;
    int rc;

    if (calls_out == NULL)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "no place for the calls");
    *calls_out = NULL;
    if (format == NULL || strcmp(format, "auto") == 0) {
        const char *name = ts_extract_detect(input);

        if (name == NULL)
            return undetected_error(input, origin, err);
        fmt = format_find(name);
    } else {
        fmt = format_find(format);
        if (fmt == NULL)
            return unknown_format_error(format, err);
        if (fmt->file_only && origin != TS_EXTRACT_FILE)
            return ts_error_set(err, -EINVAL, TS_ERR_FORMAT,
                                "format '%s' is only accepted for trace files", format);
    }
    ctx.format = fmt->name;
    ctx.origin = origin;
    ctx.err = err;
    ctx.calls = json_object_new_array();
    if (ctx.calls == NULL)
        return no_memory(&ctx);
    rc = fmt->walk(&ctx, input);
    if (rc < 0) {
        json_object_put(ctx.calls);
        return rc;
    }
    *calls_out = ctx.calls;
    return 0;
}
