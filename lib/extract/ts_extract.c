/*
 * ts_extract — turning an agent's raw response into a list of calls.
 *
 * Owns the format table (names, file-only flags, walkers), the order of
 * auto-detection and the public API. The walkers live in
 * ts_extract_providers.c, ts_extract_frameworks.c, ts_extract_langgraph.c
 * and, for the TypeScript SDKs, ts_extract_js.c and ts_extract_agents_js.c;
 * the shared call and argument rules in ts_extract_args.c and
 * ts_extract_collect.c (see ts_extract_internal.h).
 *
 * Walkers check the shape they rely on: the top-level key that makes the
 * format, and the JSON type of every container they descend into. A missing
 * optional piece (a choice without tool calls, a candidate without content)
 * simply yields no call; a piece of the wrong type is an error that names the
 * format and the path ("openai: choices[0].message.tool_calls is not an
 * array"). See docs/internals/extract.md.
 */
#include "lib/extract/ts_extract.h"

#include <string.h>

#include "ts_extract_internal.h"

typedef int (*extract_walker)(extract_ctx *ctx, const struct json_object *input);

typedef struct extract_format {
    const char *name;
    extract_walker walk;
    bool file_only; /* langchain, custom: trace files only, never detected */
} extract_format;

/* ---- the format table and detection --------------------------------------- */

static const extract_format formats[] = {
    {"calls", ts_extract__walk_calls, false},
    {"openai", ts_extract__walk_openai, false},
    {"openai-responses", ts_extract__walk_openai_responses, false},
    {"anthropic", ts_extract__walk_anthropic, false},
    {"gemini", ts_extract__walk_gemini, false},
    {"langgraph", ts_extract__walk_langgraph, false},
    {"openai-agents", ts_extract__walk_openai_agents, false},
    {"claude-agent-sdk", ts_extract__walk_claude_agent_sdk, false},
    {"pydantic-ai", ts_extract__walk_pydantic_ai, false},
    {"mcp", ts_extract__walk_mcp, false},
    {"vercel-ai", ts_extract__walk_vercel_ai, false},
    {"openai-agents-js", ts_extract__walk_openai_agents_js, false},
    {"mastra", ts_extract__walk_mastra, false},
    {"langchain", ts_extract__walk_langchain, true},
    {"custom", ts_extract__walk_custom, true},
};

#define DETECTABLE_LIST                                                                            \
    "calls, openai, openai-responses, anthropic, gemini, langgraph, openai-agents, "               \
    "claude-agent-sdk, pydantic-ai, mcp, vercel-ai, openai-agents-js, mastra"

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
    if (ts_extract__vercel_message_applies(input))
        return "vercel-ai";
    if (ts_extract__mastra_applies(input)) /* its result may hold a content array too */
        return "mastra";
    if (ts_extract__anthropic_applies(input))
        return "anthropic";
    if (has_key(input, "candidates"))
        return "gemini";
    if (ts_extract__langgraph_state_applies(input))
        return "langgraph";
    if (has_key(input, "new_items"))
        return "openai-agents";
    if (ts_extract__openai_agents_js_applies(input))
        return "openai-agents-js";
    if (ts_extract__openai_responses_applies(input))
        return "openai-responses";
    if (ts_extract__mcp_applies(input))
        return "mcp";
    if (ts_extract__vercel_ai_applies(input))
        return "vercel-ai";
    if (ts_extract__langgraph_message_applies(input))
        return "langgraph";
    return NULL;
}

static const char *detect_array(const struct json_object *input)
{
    if (calls_applies(input))
        return "calls";
    if (ts_extract__claude_agent_sdk_applies(input))
        return "claude-agent-sdk";
    if (ts_extract__messages_have_tool_calls(input) || ts_extract__langgraph_stream_applies(input))
        return "langgraph";
    if (ts_extract__openai_agents_js_applies(input))
        return "openai-agents-js";
    if (ts_extract__openai_responses_applies(input))
        return "openai-responses";
    if (ts_extract__pydantic_ai_applies(input))
        return "pydantic-ai";
    if (ts_extract__mcp_applies(input))
        return "mcp";
    if (ts_extract__mastra_applies(input))
        return "mastra";
    if (ts_extract__vercel_ai_applies(input))
        return "vercel-ai";
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
            ts_extract__kind_name(input));
    return ts_error_set(err, -EINVAL, TS_ERR_FORMAT,
                        "cannot auto-detect the format of %s (supported formats: " DETECTABLE_LIST
                        ")",
                        ts_extract__kind_name(input));
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

static int extract(const struct json_object *input, const char *format, ts_extract_origin origin,
                   bool share, struct json_object **calls_out, ts_error *err)
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
    ctx.share = share;
    ctx.err = err;
    ctx.calls = json_object_new_array();
    if (ctx.calls == NULL)
        return ts_extract__no_memory(&ctx);
    rc = fmt->walk(&ctx, input);
    if (rc < 0) {
        json_object_put(ctx.calls);
        return rc;
    }
    *calls_out = ctx.calls;
    return 0;
}

int ts_extract(const struct json_object *input, const char *format, ts_extract_origin origin,
               struct json_object **calls_out, ts_error *err)
{
    return extract(input, format, origin, false, calls_out, err);
}

int ts_extract_shared(struct json_object *input, const char *format, ts_extract_origin origin,
                      struct json_object **calls_out, ts_error *err)
{
    return extract(input, format, origin, true, calls_out, err);
}
