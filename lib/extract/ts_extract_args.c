/*
 * ts_extract_args — building calls and normalizing arguments, the rules every
 * extraction format shares (docs/extraction.md): a call is {"tool": name, "args":
 * {...}}; a call without a non-empty string name is dropped; arguments given
 * as JSON text are parsed with ts_json's strict reader; arguments that are not
 * an object become {"value": x}. Also the format-error helpers, and the
 * normalization of a trace import (ts_extract_normalize).
 */
#include "ts_extract_internal.h"

#include <stdarg.h>
#include <stdio.h>

#include "lib/json/ts_json.h"
#include "lib/score/ts_score.h"

/* A deep copy; *out = NULL for a JSON null. -ENOMEM on allocation failure. */
int ts_extract__copy_value(const struct json_object *v, struct json_object **out)
{
    *out = ts_json_copy(v);
    return v != NULL && *out == NULL ? -ENOMEM : 0;
}

/* "an object", "an array", ... for messages. */
const char *ts_extract__kind_name(const struct json_object *v)
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

int ts_extract__shape_error(extract_ctx *ctx, const char *fmt, ...)
{
    char text[TS_ERROR_MESSAGE_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    return ts_error_set(ctx->err, -EINVAL, TS_ERR_FORMAT, "%s: %s", ctx->format, text);
}

int ts_extract__no_memory(extract_ctx *ctx)
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
struct json_object *ts_extract__wrap_value(struct json_object *v)
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
 * The arguments object for a provider value (the rule of docs/extraction.md):
 * missing/null -> {}, object -> copy, string -> parsed JSON (unparseable ->
 * unparsed_fallback, {} when that is NULL), anything that is not an object
 * -> {"value": x}. *out is a new object; -ENOMEM on allocation failure.
 */
int ts_extract__args_from_value(const struct json_object *v, const char *unparsed_key,
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
        rc = ts_extract__copy_value(v, &value);
        if (rc < 0)
            return rc;
    }
    if (is_object(value)) {
        *out = value;
        return 0;
    }
    *out = ts_extract__wrap_value(value);
    return *out == NULL ? -ENOMEM : 0;
}

/*
 * Append {"tool": name, "args": args} when name is a non-empty string;
 * otherwise the call is dropped. Takes args' reference in every case.
 */
int ts_extract__add_call(extract_ctx *ctx, const struct json_object *name, struct json_object *args)
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
        return ts_extract__no_memory(ctx);
    }
    return 0;
fail:
    json_object_put(args);
    json_object_put(call);
    return ts_extract__no_memory(ctx);
}

/* ts_extract__add_call with args normalized from a provider value. */
int ts_extract__add_call_value(extract_ctx *ctx, const struct json_object *name,
                               const struct json_object *args_value)
{
    struct json_object *args;

    if (!is_type(name, json_type_string) || json_object_get_string_len(name) == 0)
        return 0;
    if (ts_extract__args_from_value(args_value, NULL, &args) < 0)
        return ts_extract__no_memory(ctx);
    return ts_extract__add_call(ctx, name, args);
}

/* ---- trace import ------------------------------------------------------- */

int ts_extract_normalize(const struct json_object *calls, struct json_object **out, ts_error *err)
{
    struct json_object *list;
    size_t n;
    int rc = ts_calls_validate(calls, NULL, err);

    *out = NULL;
    if (rc < 0)
        return rc;
    n = json_object_array_length(calls);
    list = json_object_new_array_ext((int)n);
    if (list == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < n; i++) {
        struct json_object *item = json_object_array_get_idx(calls, i);
        struct json_object *tool = json_object_object_get(item, "tool");
        struct json_object *args = json_object_object_get(item, "args");
        struct json_object *call = json_object_new_object();
        struct json_object *copy = args ? ts_json_copy(args) : json_object_new_object();
        struct json_object *name =
            json_object_new_string_len(string_of(tool), json_object_get_string_len(tool));
        if (call == NULL || copy == NULL || name == NULL ||
            json_object_object_add(call, "tool", name) < 0) {
            json_object_put(name);
            json_object_put(copy);
            json_object_put(call);
            goto fail;
        }
        if (json_object_object_add(call, "args", copy) < 0) {
            json_object_put(copy);
            json_object_put(call);
            goto fail;
        }
        if (json_object_array_add(list, call) < 0) {
            json_object_put(call);
            goto fail;
        }
    }
    *out = list;
    return 0;
fail:
    json_object_put(list);
    return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
}
