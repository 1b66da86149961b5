/*
 * ts_extract_providers — the walkers and detection rules for model provider
 * responses: OpenAI Chat Completions and Responses, Anthropic Messages (and
 * Claude Agent SDK message lists, which hold the same content blocks), Gemini
 * generateContent, and OpenAI Agents SDK run results. Each walker checks the
 * shape it relies on and names the path of a piece of the wrong type.
 */
#include "ts_extract_internal.h"

#include <stdio.h>

/* ---- openai (Chat Completions) ----------------------------------------- */

static int openai_function(extract_ctx *ctx, const struct json_object *fn, const char *where)
{
    if (fn == NULL)
        return 0;
    if (!is_object(fn))
        return ts_extract__shape_error(ctx, "%s is not an object", where);
    return ts_extract__add_call_value(ctx, member(fn, "name"), member(fn, "arguments"));
}

static int openai_message(extract_ctx *ctx, const struct json_object *message, size_t choice)
{
    struct json_object *tool_calls = member(message, "tool_calls");
    char where[96];
    size_t i;
    int rc;

    if (tool_calls != NULL && !is_array(tool_calls))
        return ts_extract__shape_error(ctx, "choices[%zu].message.tool_calls is not an array",
                                       choice);
    if (tool_calls != NULL && array_len(tool_calls) > 0) {
        for (i = 0; i < array_len(tool_calls); i++) {
            const struct json_object *entry = array_at(tool_calls, i);

            if (!is_object(entry))
                return ts_extract__shape_error(
                    ctx, "choices[%zu].message.tool_calls[%zu] is not an object", choice, i);
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

int ts_extract__walk_openai(extract_ctx *ctx, const struct json_object *input)
{
    struct json_object *choices = member(input, "choices");
    size_t i;
    int rc;

    if (!is_object(input) || !has_key(input, "choices"))
        return ts_extract__shape_error(ctx, "expected an object with a \"choices\" array, got %s",
                                       is_object(input) ? "an object without \"choices\""
                                                        : ts_extract__kind_name(input));
    if (!is_array(choices))
        return ts_extract__shape_error(ctx, "\"choices\" is %s, not an array",
                                       ts_extract__kind_name(choices));
    for (i = 0; i < array_len(choices); i++) {
        const struct json_object *choice = array_at(choices, i);
        struct json_object *message;

        if (!is_object(choice))
            return ts_extract__shape_error(ctx, "choices[%zu] is not an object", i);
        message = member(choice, "message");
        if (message == NULL)
            continue;
        if (!is_object(message))
            return ts_extract__shape_error(ctx, "choices[%zu].message is not an object", i);
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
            return ts_extract__shape_error(ctx, "%s[%zu] is not an object", where, i);
        if (!member_is(block, "type", "tool_use"))
            continue;
        rc = ts_extract__add_call_value(ctx, member(block, "name"), member(block, "input"));
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Rule 3 applies: "content" is a non-empty array holding a typed block. */
bool ts_extract__anthropic_applies(const struct json_object *input)
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

static bool is_message(const struct json_object *m)
{
    return has_key(m, "role") || has_key(m, "type") || has_key(m, "content") ||
           has_key(m, "message");
}

/* A list of agent messages (claude-agent-sdk, explicit anthropic on a list).
 * A list holding no message at all (a list of calls, say) is an error, not
 * zero calls. */
static int agent_message_list(extract_ctx *ctx, const struct json_object *input)
{
    char where[64];
    bool any = false;
    size_t i;
    int rc;

    for (i = 0; i < array_len(input) && !any; i++)
        any = is_message(array_at(input, i));
    if (array_len(input) > 0 && !any)
        return ts_extract__shape_error(
            ctx,
            "expected a message object with a \"content\" array (or a list of messages), got "
            "an array without messages (no item has \"role\", \"type\" or \"content\")%s",
            has_key(array_at(input, 0), "tool") ? "; a list of calls is format calls" : "");

    for (i = 0; i < array_len(input); i++) {
        const struct json_object *message = array_at(input, i);
        struct json_object *content;

        if (!is_object(message))
            return ts_extract__shape_error(ctx, "message at index %zu is not an object", i);
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

int ts_extract__walk_anthropic(extract_ctx *ctx, const struct json_object *input)
{
    struct json_object *content = member(input, "content");

    if (is_array(input))
        return agent_message_list(ctx, input);
    if (!is_object(input) || !is_array(content))
        return ts_extract__shape_error(
            ctx,
            "expected a message object with a \"content\" array (or a list of "
            "messages), got %s",
            is_object(input) ? "an object without a \"content\" array"
                             : ts_extract__kind_name(input));
    return tool_use_blocks(ctx, content, "content");
}

/* Rule 7 applies: some message holds a tool_use block in its content array
 * (or in message.content). */
bool ts_extract__claude_agent_sdk_applies(const struct json_object *input)
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

int ts_extract__walk_claude_agent_sdk(extract_ctx *ctx, const struct json_object *input)
{
    if (!is_array(input))
        return ts_extract__shape_error(ctx, "expected an array of messages, got %s",
                                       ts_extract__kind_name(input));
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
            return ts_extract__shape_error(
                ctx, "candidates[%zu].content.parts[%zu] is not an object", cand, i);
        call = member(part, "functionCall");
        if (call == NULL)
            call = member(part, "function_call");
        if (call == NULL)
            continue;
        if (!is_object(call))
            return ts_extract__shape_error(
                ctx,
                "candidates[%zu].content.parts[%zu].functionCall is not an "
                "object",
                cand, i);
        rc = ts_extract__add_call_value(ctx, member(call, "name"), member(call, "args"));
        if (rc < 0)
            return rc;
    }
    return 0;
}

int ts_extract__walk_gemini(extract_ctx *ctx, const struct json_object *input)
{
    struct json_object *candidates = member(input, "candidates");
    size_t i;
    int rc;

    if (!is_object(input) || !has_key(input, "candidates"))
        return ts_extract__shape_error(
            ctx, "expected an object with a \"candidates\" array, got %s",
            is_object(input) ? "an object without \"candidates\"" : ts_extract__kind_name(input));
    if (!is_array(candidates))
        return ts_extract__shape_error(ctx, "\"candidates\" is %s, not an array",
                                       ts_extract__kind_name(candidates));
    for (i = 0; i < array_len(candidates); i++) {
        const struct json_object *candidate = array_at(candidates, i);
        struct json_object *content, *parts;

        if (!is_object(candidate))
            return ts_extract__shape_error(ctx, "candidates[%zu] is not an object", i);
        content = member(candidate, "content");
        if (content == NULL)
            continue;
        if (!is_object(content))
            return ts_extract__shape_error(ctx, "candidates[%zu].content is not an object", i);
        parts = member(content, "parts");
        if (parts == NULL)
            continue;
        if (!is_array(parts))
            return ts_extract__shape_error(ctx, "candidates[%zu].content.parts is not an array", i);
        rc = gemini_parts(ctx, parts, i);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ---- openai-agents (Agents SDK run result) ------------------------------ */

int ts_extract__walk_openai_agents(extract_ctx *ctx, const struct json_object *input)
{
    struct json_object *items = member(input, "new_items");
    size_t i;
    int rc;

    if (!is_object(input) || !has_key(input, "new_items"))
        return ts_extract__shape_error(
            ctx, "expected a run result object with a \"new_items\" array, got %s",
            is_object(input) ? "an object without \"new_items\"" : ts_extract__kind_name(input));
    if (!is_array(items))
        return ts_extract__shape_error(ctx, "\"new_items\" is %s, not an array",
                                       ts_extract__kind_name(items));
    for (i = 0; i < array_len(items); i++) {
        const struct json_object *item = array_at(items, i);
        struct json_object *raw;

        if (!is_object(item))
            return ts_extract__shape_error(ctx, "new_items[%zu] is not an object", i);
        if (!member_is(item, "type", "tool_call_item"))
            continue;
        raw = member(item, "raw_item");
        if (raw == NULL)
            continue;
        if (!is_object(raw))
            return ts_extract__shape_error(ctx, "new_items[%zu].raw_item is not an object", i);
        rc = ts_extract__add_call_value(ctx, member(raw, "name"), member(raw, "arguments"));
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

/* An object with "object": "response", or an "output" array of typed items
 * (a response that holds only a message is one: it gives no call); an array
 * holding a function_call item. */
bool ts_extract__openai_responses_applies(const struct json_object *input)
{
    struct json_object *output = member(input, "output");
    size_t i;

    if (is_array(input))
        return has_function_call_item(input);
    if (member_is(input, "object", "response"))
        return true;
    if (!is_array(output) || array_len(output) == 0)
        return false;
    if (has_function_call_item(output))
        return true;
    for (i = 0; i < array_len(output); i++) {
        if (!has_key(array_at(output, i), "type"))
            return false;
    }
    return true;
}

int ts_extract__walk_openai_responses(extract_ctx *ctx, const struct json_object *input)
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
        return ts_extract__shape_error(
            ctx,
            "expected a response object with an \"output\" array (or an array "
            "of output items), got %s",
            is_object(input) ? "an object without an \"output\" array"
                             : ts_extract__kind_name(input));
    for (i = 0; i < array_len(items); i++) {
        const struct json_object *item = array_at(items, i);

        if (!is_object(item))
            return ts_extract__shape_error(ctx, "%s[%zu] is not an object", where, i);
        if (!member_is(item, "type", "function_call"))
            continue;
        rc = ts_extract__add_call_value(ctx, member(item, "name"), member(item, "arguments"));
        if (rc < 0)
            return rc;
    }
    return 0;
}
