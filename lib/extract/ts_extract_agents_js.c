/*
 * ts_extract_agents_js — OpenAI Agents JS run results, run states and
 * histories: protocol items of type `function_call` ({callId, name,
 * arguments as a JSON string}) and `hosted_tool_call` ({id, name,
 * arguments?}), run items wrapping them ({type: "tool_call_item" |
 * "handoff_call_item" | "tool_approval_item", rawItem}), and streamed
 * `run_item_stream_event`s. A serialized result ({state: RunState JSON})
 * holds each call in several places (generatedItems, modelResponses[].output,
 * lastProcessedResponse, interruptions): each call id counts once
 * (ts_extract_collect.c). Results of calls (function_call_result, tool
 * outputs) are never calls; a history of messages only gives [].
 */
#include "ts_extract_internal.h"

#include <stdio.h>

/* A protocol item (the rawItem of a run item, or an item of a history). */
static int protocol_item(extract_collect *col, const struct json_object *item)
{
    if (member_is(item, "type", "function_call"))
        return ts_extract__collect_call(
            col, has_key(item, "callId") ? member(item, "callId") : member(item, "id"),
            member(item, "name"), member(item, "arguments"));
    if (member_is(item, "type", "hosted_tool_call"))
        return ts_extract__collect_call(col, member(item, "id"), member(item, "name"),
                                        member(item, "arguments"));
    return 0;
}

static bool is_call_run_item(const struct json_object *item)
{
    return member_is(item, "type", "tool_call_item") ||
           member_is(item, "type", "handoff_call_item") ||
           member_is(item, "type", "tool_approval_item");
}

static int item(extract_collect *col, const struct json_object *it, const char *where)
{
    struct json_object *raw = member(it, "rawItem");
    struct json_object *inner = member(it, "item");

    if (!is_object(it))
        return ts_extract__shape_error(col->ctx, "%s is not an object", where);
    if (has_key(it, "rawItem")) {
        if (!is_call_run_item(it))
            return 0;
        if (!is_object(raw))
            return ts_extract__shape_error(col->ctx, "%s.rawItem is not an object", where);
        return protocol_item(col, raw);
    }
    if (member_is(it, "type", "run_item_stream_event"))
        return is_object(inner) ? item(col, inner, where) : 0;
    return protocol_item(col, it);
}

static int items(extract_collect *col, const struct json_object *list, const char *where)
{
    char path[96];
    size_t i;
    int rc;

    if (!is_array(list))
        return ts_extract__shape_error(col->ctx, "%s is %s, not an array", where,
                                       ts_extract__kind_name(list));
    for (i = 0; i < array_len(list); i++) {
        snprintf(path, sizeof(path), "%s[%zu]", where, i);
        rc = item(col, array_at(list, i), path);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* modelResponses / rawResponses: [{output: [items], usage, responseId}]. */
static int responses(extract_collect *col, const struct json_object *list, const char *where)
{
    char path[96];
    size_t i;
    int rc;

    if (!is_array(list))
        return ts_extract__shape_error(col->ctx, "%s is %s, not an array", where,
                                       ts_extract__kind_name(list));
    for (i = 0; i < array_len(list); i++) {
        const struct json_object *response = array_at(list, i);

        if (!is_object(response))
            return ts_extract__shape_error(col->ctx, "%s[%zu] is not an object", where, i);
        if (!has_key(response, "output"))
            continue;
        snprintf(path, sizeof(path), "%s[%zu].output", where, i);
        rc = items(col, member(response, "output"), path);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* A result, or a run state: its items first (in the order the run made
 * them), then the model responses, then the copies of the last turn. */
static int result(extract_collect *col, const struct json_object *obj, int depth)
{
    static const char *const item_lists[] = {"generatedItems", "newItems", "history", "output",
                                             "interruptions"};
    struct json_object *state = member(obj, "state");
    struct json_object *last = member(obj, "lastModelResponse");
    struct json_object *processed = member(obj, "lastProcessedResponse");
    size_t k;
    int rc = 0;

    if (is_object(state) && depth == 0)
        rc = result(col, state, depth + 1);
    for (k = 0; k < 3 && rc == 0; k++) {
        if (has_key(obj, item_lists[k]))
            rc = items(col, member(obj, item_lists[k]), item_lists[k]);
    }
    if (rc == 0 && has_key(obj, "modelResponses"))
        rc = responses(col, member(obj, "modelResponses"), "modelResponses");
    if (rc == 0 && has_key(obj, "rawResponses"))
        rc = responses(col, member(obj, "rawResponses"), "rawResponses");
    if (rc == 0 && is_array(member(last, "output")))
        rc = items(col, member(last, "output"), "lastModelResponse.output");
    if (rc == 0 && is_array(member(processed, "newItems")))
        rc = items(col, member(processed, "newItems"), "lastProcessedResponse.newItems");
    for (k = 3; k < 5 && rc == 0; k++) {
        if (is_array(member(obj, item_lists[k])))
            rc = items(col, member(obj, item_lists[k]), item_lists[k]);
    }
    return rc;
}

/* The object is a result or a run state (it has one of their lists). */
static bool known_object(const struct json_object *obj)
{
    static const char *const keys[] = {"state",         "generatedItems", "newItems",
                                       "history",       "modelResponses", "rawResponses",
                                       "interruptions", "output",         "lastModelResponse"};
    size_t k;

    for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
        if (has_key(obj, keys[k]))
            return true;
    }
    return false;
}

/* Some item of the list is a typed item or a run item. */
static bool known_list(const struct json_object *list)
{
    size_t i;

    for (i = 0; i < array_len(list); i++) {
        if (has_key(array_at(list, i), "type") || has_key(array_at(list, i), "rawItem"))
            return true;
    }
    return array_len(list) == 0;
}

int ts_extract__walk_openai_agents_js(extract_ctx *ctx, const struct json_object *input)
{
    extract_collect col;
    int rc;

    if (is_object(input) && !known_object(input))
        return ts_extract__shape_error(
            ctx, "expected a run result or run state (\"state\", \"newItems\", \"history\", "
                 "\"generatedItems\", ...), got an object without them");
    if (is_array(input) && !known_list(input))
        return ts_extract__shape_error(
            ctx, "expected a list of items (\"type\") or run items (\"rawItem\"), got an array "
                 "without them");

    if (!is_object(input) && !is_array(input))
        return ts_extract__shape_error(
            ctx, "expected a run result, a run state or a list of items, got %s",
            ts_extract__kind_name(input));
    rc = ts_extract__collect_init(&col, ctx);
    if (rc == 0)
        rc = is_array(input) ? items(&col, input, "item") : result(&col, input, 0);
    if (rc == 0)
        rc = ts_extract__collect_finish(&col);
    ts_extract__collect_free(&col);
    return rc;
}

/* ---- detection -------------------------------------------------------------- */

/* Some item is an Agents JS item: a function_call with a callId (the
 * Responses API spells it call_id), a hosted_tool_call, a run item with a
 * rawItem, or a run item stream event. */
static bool list_applies(const struct json_object *list)
{
    size_t i;

    if (!is_array(list))
        return false;

    for (i = 0; i < array_len(list); i++) {
        const struct json_object *it = array_at(list, i);

        if ((member_is(it, "type", "function_call") && has_key(it, "callId")) ||
            member_is(it, "type", "hosted_tool_call") || is_object(member(it, "rawItem")) ||
            member_is(it, "type", "run_item_stream_event"))
            return true;
    }
    return false;
}

/* A history without calls: messages (an item given as input may have no
 * "type") and reasoning items only, some of them a message the model
 * answered with. */
static bool messages_only(const struct json_object *list)
{
    bool answered = false;
    size_t i;

    if (!is_array(list))
        return false;
    for (i = 0; i < array_len(list); i++) {
        const struct json_object *it = array_at(list, i);

        if (member_is(it, "type", "reasoning"))
            continue;
        if (!is_type(member(it, "role"), json_type_string) ||
            (has_key(it, "type") && !member_is(it, "type", "message")))
            return false;
        answered =
            answered || (member_is(it, "type", "message") && member_is(it, "role", "assistant"));
    }
    return answered;
}

bool ts_extract__openai_agents_js_applies(const struct json_object *input)
{
    struct json_object *state = member(input, "state");

    if (is_array(input))
        return list_applies(input) || messages_only(input);
    if (is_array(member(input, "generatedItems")) || is_array(member(input, "newItems")) ||
        is_array(member(input, "modelResponses")) || is_array(member(input, "rawResponses")))
        return true;
    if (is_object(state) &&
        (is_array(member(state, "generatedItems")) || is_array(member(state, "modelResponses"))))
        return true;
    return list_applies(member(input, "history")) || messages_only(member(input, "history"));
}
