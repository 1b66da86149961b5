/*
 * tsctl_conn — tsctl's side of the daemon connection: connecting through the
 * client library (with auto-start), one request at a time with the exit
 * code its failure maps to, the store parameter every store request
 * carries, and small accessors for reply fields.
 */
#include "tsctl.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ts_paths.h"

bool tsctl_interactive(void)
{
    return isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1;
}

struct json_object *tsctl_get(const struct json_object *obj, const char *key)
{
    struct json_object *v = NULL;

    if (!json_object_is_type(obj, json_type_object))
        return NULL;
    json_object_object_get_ex(obj, key, &v);
    return v;
}

const char *tsctl_str(const struct json_object *obj, const char *key, const char *fallback)
{
    struct json_object *v = tsctl_get(obj, key);

    return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : fallback;
}

long long tsctl_int(const struct json_object *obj, const char *key, long long fallback)
{
    struct json_object *v = tsctl_get(obj, key);

    if (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double))
        return (long long)json_object_get_int64(v);
    return fallback;
}

bool tsctl_bool(const struct json_object *obj, const char *key)
{
    struct json_object *v = tsctl_get(obj, key);

    return json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

int tsctl_store_root(const tsctl_ctx *ctx, char *out, size_t outsz)
{
    ts_error err;

    if (ts_paths_resolve(ctx->dir, out, outsz, &err) < 0)
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "invalid snapshot root '%s': %s", ctx->dir,
                          err.message);
    return 0;
}

struct json_object *tsctl_store_params(const tsctl_ctx *ctx)
{
    char root[TS_PATHS_MAX];
    struct json_object *params;

    if (tsctl_store_root(ctx, root, sizeof(root)) != 0)
        return NULL;
    params = json_object_new_object();
    if (params != NULL)
        json_object_object_add(params, "store", json_object_new_string(root));
    return params;
}
