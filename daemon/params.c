/*
 * params — typed access to request params (see params.h).
 */
#include "params.h"

#include <string.h>

/* The value of key, NULL when absent or nil. */
static struct json_object *lookup(const struct json_object *params, const char *key)
{
    struct json_object *v = NULL;

    if (!json_object_object_get_ex(params, key, &v))
        return NULL;
    return v;
}

static int wrong_type(const char *key, const char *want, const struct json_object *v, ts_error *err)
{
    return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "'%s' must be %s, got %s", key, want,
                        json_type_to_name(json_object_get_type(v)));
}

int tsd_param_string(const struct json_object *params, const char *key, bool required,
                     const char **out, ts_error *err)
{
    struct json_object *v = lookup(params, key);

    *out = NULL;
    if (v == NULL) {
        if (required)
            return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "'%s' is required", key);
        return 0;
    }
    if (!json_object_is_type(v, json_type_string))
        return wrong_type(key, "a string", v, err);
    if (strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "'%s' must not contain a NUL byte", key);
    *out = json_object_get_string(v);
    return 0;
}

int tsd_param_bool(const struct json_object *params, const char *key, bool def, bool *out,
                   ts_error *err)
{
    struct json_object *v = lookup(params, key);

    *out = def;
    if (v == NULL)
        return 0;
    if (!json_object_is_type(v, json_type_boolean))
        return wrong_type(key, "true or false", v, err);
    *out = json_object_get_boolean(v);
    return 0;
}

int tsd_param_number(const struct json_object *params, const char *key, double def, double *out,
                     ts_error *err)
{
    struct json_object *v = lookup(params, key);

    *out = def;
    if (v == NULL)
        return 0;
    if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
        return wrong_type(key, "a number", v, err);
    *out = json_object_get_double(v);
    return 0;
}

int tsd_param_int(const struct json_object *params, const char *key, int64_t def, int64_t *out,
                  ts_error *err)
{
    struct json_object *v = lookup(params, key);

    *out = def;
    if (v == NULL)
        return 0;
    if (!json_object_is_type(v, json_type_int))
        return wrong_type(key, "an integer", v, err);
    *out = json_object_get_int64(v);
    return 0;
}

int tsd_param_object(const struct json_object *params, const char *key, struct json_object **out,
                     ts_error *err)
{
    struct json_object *v = lookup(params, key);

    *out = NULL;
    if (v == NULL)
        return 0;
    if (!json_object_is_type(v, json_type_object))
        return wrong_type(key, "a map", v, err);
    *out = v;
    return 0;
}

int tsd_param_value(const struct json_object *params, const char *key, struct json_object **out,
                    ts_error *err)
{
    *out = NULL;
    if (!json_object_object_get_ex(params, key, out) || *out == NULL)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "'%s' is required", key);
    return 0;
}

struct json_object *tsd_json_string_or_null(const char *s)
{
    return s != NULL ? json_object_new_string(s) : NULL;
}
