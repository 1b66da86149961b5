/*
 * params — typed access to request params with sticky errors (see
 * server.h).
 */
#include "daemon/server/server.h"

#include <inttypes.h>
#include <string.h>

#include "lib/extract/ts_extract.h"
#include "lib/snapshot/ts_snapshot.h"

void tsd_params_init(tsd_params *p, const struct json_object *params, ts_error *err)
{
    p->obj = params;
    p->err = err;
    p->rc = 0;
}

int tsd_params_error(const tsd_params *p)
{
    return p->rc;
}

int tsd_params_fail(tsd_params *p, int rc)
{
    if (p->rc == 0 && rc < 0)
        p->rc = rc;
    return p->rc;
}

/* The value of key, NULL when absent or nil or after an error. */
static struct json_object *lookup(const tsd_params *p, const char *key)
{
    struct json_object *v = NULL;

    if (p->rc < 0 || !json_object_object_get_ex(p->obj, key, &v))
        return NULL;
    return v;
}

static void missing(tsd_params *p, const char *key)
{
    p->rc = ts_error_set(p->err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "'%s' is required", key);
}

static void wrong_type(tsd_params *p, const char *key, const char *want,
                       const struct json_object *v)
{
    p->rc = ts_error_set(p->err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "'%s' must be %s, got %s", key,
                         want, json_type_to_name(json_object_get_type(v)));
}

const char *tsd_params_string(tsd_params *p, const char *key, bool required)
{
    struct json_object *v = lookup(p, key);

    if (v == NULL) {
        if (required && p->rc == 0)
            missing(p, key);
        return NULL;
    }
    if (!json_object_is_type(v, json_type_string)) {
        wrong_type(p, key, "a string", v);
        return NULL;
    }
    if (strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v)) {
        p->rc = ts_error_set(p->err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                             "'%s' must not contain a NUL byte", key);
        return NULL;
    }
    return json_object_get_string(v);
}

const char *tsd_params_name(tsd_params *p, const char *key)
{
    const char *name = tsd_params_string(p, key, true);

    if (name != NULL && tsd_params_fail(p, ts_name_validate(name, strlen(name), p->err)) < 0)
        return NULL;
    return name;
}

const char *tsd_params_format(tsd_params *p, const char *key)
{
    const char *format = tsd_params_string(p, key, false);

    if (format != NULL && !ts_extract_format_known(format)) {
        p->rc = ts_error_set(p->err, -EINVAL, TS_ERR_FORMAT, "unknown format '%s' (supported: %s)",
                             format, ts_extract_format_list());
        return NULL;
    }
    return format;
}

const char *tsd_params_source(tsd_params *p, const char *fallback)
{
    const char *source = tsd_params_string(p, "source", false);

    if (tsd_params_error(p) < 0 || source == NULL)
        return fallback;
    if (!ts_snapshot_source_known(source))
        tsd_params_fail(
            p, ts_error_set(p->err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "'source' must be one of " TS_SNAPSHOT_SOURCES ", got \"%s\"", source));
    return source;
}

bool tsd_params_bool(tsd_params *p, const char *key, bool def)
{
    struct json_object *v = lookup(p, key);

    if (v == NULL)
        return def;
    if (!json_object_is_type(v, json_type_boolean)) {
        wrong_type(p, key, "true or false", v);
        return def;
    }
    return json_object_get_boolean(v);
}

double tsd_params_number(tsd_params *p, const char *key, double def)
{
    struct json_object *v = lookup(p, key);

    if (v == NULL)
        return def;
    if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int)) {
        wrong_type(p, key, "a number", v);
        return def;
    }
    return json_object_get_double(v);
}

int64_t tsd_params_int(tsd_params *p, const char *key, int64_t def)
{
    struct json_object *v = lookup(p, key);

    if (v == NULL)
        return def;
    if (!json_object_is_type(v, json_type_int)) {
        wrong_type(p, key, "an integer", v);
        return def;
    }
    return json_object_get_int64(v);
}

struct json_object *tsd_params_object(tsd_params *p, const char *key)
{
    struct json_object *v = lookup(p, key);

    if (v == NULL)
        return NULL;
    if (!json_object_is_type(v, json_type_object)) {
        wrong_type(p, key, "a map", v);
        return NULL;
    }
    return v;
}

struct json_object *tsd_params_value(tsd_params *p, const char *key)
{
    struct json_object *v = lookup(p, key);

    if (v == NULL && p->rc == 0)
        missing(p, key);
    return v;
}

static int check_names(const struct json_object *names, ts_error *err)
{
    if (!json_object_is_type(names, json_type_array))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "'names' must be an array of strings");
    for (size_t i = 0; i < json_object_array_length(names); i++) {
        struct json_object *v = json_object_array_get_idx(names, i);

        if (!json_object_is_type(v, json_type_string))
            return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                                "'names' item %zu must be a string", i);
        int rc =
            ts_name_validate(json_object_get_string(v), (size_t)json_object_get_string_len(v), err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

struct json_object *tsd_params_names_or_all(tsd_params *p, bool *all)
{
    struct json_object *names = NULL;

    *all = tsd_params_bool(p, "all", false);
    if (*all && json_object_object_get_ex(p->obj, "names", &names) && names != NULL)
        tsd_params_fail(p, ts_error_set(p->err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                                        "give either 'names' or 'all': true, not both"));
    if (*all)
        return NULL;
    names = tsd_params_value(p, "names");
    if (names != NULL)
        tsd_params_fail(p, check_names(names, p->err));
    return names;
}

struct json_object *tsd_json_string_or_null(const char *s)
{
    return s != NULL ? json_object_new_string(s) : NULL;
}

int64_t tsd_params_width(tsd_params *p, const char *key)
{
    int64_t width = tsd_params_int(p, key, 0);

    if (tsd_params_error(p) == 0 && (width < 0 || width > TSD_PARAMS_WIDTH_MAX))
        tsd_params_fail(p, ts_error_set(p->err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                                        "%s must be an integer from 0 to %d, got %" PRId64, key,
                                        TSD_PARAMS_WIDTH_MAX, width));
    return tsd_params_error(p) == 0 ? width : 0;
}
