/*
 * ts_extract_frameworks — the walkers and detection rules for agent framework
 * and protocol shapes: plain call lists, Pydantic AI messages, MCP JSON-RPC
 * traffic, and the file-only LangChain steps and custom traces. LangGraph
 * has its own file (ts_extract_langgraph.c).
 */
#include "ts_extract_internal.h"

#include <stdio.h>

/* ---- calls ------------------------------------------------------------- */

/* Rule 1: a list of calls, kept as it is (a deep copy, or the input itself
 * when the caller shares it: ts_extract_shared). */
int ts_extract__walk_calls(extract_ctx *ctx, const struct json_object *input)
{
    size_t i;
    struct json_object *copy;

    if (!is_array(input))
        return ts_extract__shape_error(ctx, "expected an array of calls, got %s",
                                       ts_extract__kind_name(input));
    for (i = 0; i < array_len(input); i++) {
        const struct json_object *item = array_at(input, i);

        if (!is_object(item))
            return ts_extract__shape_error(ctx, "item at index %zu is not an object", i);
        if (!has_key(item, "tool"))
            return ts_extract__shape_error(ctx, "item at index %zu has no \"tool\" key", i);
    }
    if (ctx->share)
        copy = json_object_get((struct json_object *)input); /* the caller passed it non-const */
    else if (ts_extract__copy_value(input, &copy) < 0)
        return ts_extract__no_memory(ctx);
    json_object_put(ctx->calls);
    ctx->calls = copy;
    return 0;
}

/* ---- pydantic-ai --------------------------------------------------------- */

bool ts_extract__pydantic_ai_applies(const struct json_object *input)
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
        return ts_extract__shape_error(ctx, "message at index %zu: parts is not an array", index);
    for (j = 0; j < array_len(parts); j++) {
        const struct json_object *part = array_at(parts, j);

        if (!is_object(part))
            return ts_extract__shape_error(ctx, "message at index %zu: parts[%zu] is not an object",
                                           index, j);
        if (!member_is(part, "part_kind", "tool-call"))
            continue;
        rc = ts_extract__add_call_value(ctx, member(part, "tool_name"), member(part, "args"));
        if (rc < 0)
            return rc;
    }
    return 0;
}

int ts_extract__walk_pydantic_ai(extract_ctx *ctx, const struct json_object *input)
{
    size_t i;
    int rc;

    if (is_object(input) && is_array(member(input, "parts")))
        return pydantic_ai_message(ctx, input, 0);
    if (!is_array(input))
        return ts_extract__shape_error(ctx, "expected an array of messages with \"parts\", got %s",
                                       is_object(input) ? "an object without a \"parts\" array"
                                                        : ts_extract__kind_name(input));
    for (i = 0; i < array_len(input); i++) {
        const struct json_object *message = array_at(input, i);

        if (!is_object(message))
            return ts_extract__shape_error(ctx, "message at index %zu is not an object", i);
        rc = pydantic_ai_message(ctx, message, i);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ---- mcp (JSON-RPC) ------------------------------------------------------- */

bool ts_extract__mcp_applies(const struct json_object *input)
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
        return ts_extract__shape_error(ctx, "%s: params is not an object", where);
    return ts_extract__add_call_value(ctx, member(params, "name"), member(params, "arguments"));
}

int ts_extract__walk_mcp(extract_ctx *ctx, const struct json_object *input)
{
    char where[48];
    size_t i;
    int rc;

    if (is_object(input) && has_key(input, "jsonrpc"))
        return mcp_message(ctx, input, "message");
    if (!is_array(input))
        return ts_extract__shape_error(
            ctx,
            "expected a JSON-RPC message (an object with \"jsonrpc\") or an "
            "array of them, got %s",
            is_object(input) ? "an object without \"jsonrpc\"" : ts_extract__kind_name(input));
    for (i = 0; i < array_len(input); i++) {
        const struct json_object *message = array_at(input, i);

        if (!is_object(message))
            return ts_extract__shape_error(ctx, "message at index %zu is not an object", i);
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
    if (ts_extract__args_from_value(value, unparsed_key, &args) < 0)
        return ts_extract__no_memory(ctx);
    return ts_extract__add_call(ctx, name, args);
}

int ts_extract__walk_langchain(extract_ctx *ctx, const struct json_object *input)
{
    size_t i;
    int rc;

    if (!is_array(input))
        return ts_extract__shape_error(ctx, "expected an array of agent steps, got %s",
                                       ts_extract__kind_name(input));
    for (i = 0; i < array_len(input); i++) {
        const struct json_object *step = array_at(input, i);

        if (!is_object(step))
            return ts_extract__shape_error(ctx, "step at index %zu is not an object", i);
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
    } else if (ts_extract__copy_value(value, &args) < 0) {
        args = NULL;
    } else if (!is_object(args)) {
        args = ts_extract__wrap_value(args);
    }
    if (args == NULL)
        return ts_extract__no_memory(ctx);
    return ts_extract__add_call(ctx, name, args);
}

int ts_extract__walk_custom(extract_ctx *ctx, const struct json_object *input)
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
            return ts_extract__shape_error(ctx, "\"%s\" is %s, not an array",
                                           has_key(input, "calls") ? "calls" : "tool_calls",
                                           ts_extract__kind_name(list));
    } else if (!is_array(input)) {
        return ts_extract__shape_error(
            ctx,
            "expected {\"calls\": [...]}, {\"tool_calls\": [...]}, a call object "
            "or an array of calls, got %s",
            ts_extract__kind_name(input));
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
