/*
 * params — reading a request's params with type checks. Every error has code
 * "invalid_argument" and names the parameter and what it must be, e.g.
 * "'min_score' must be a number, got string". An absent key and nil both
 * mean "not given".
 */
#ifndef TSD_PARAMS_H
#define TSD_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "ts_error.h"

/* A string (valid UTF-8, no NUL). required: absent is an error; otherwise
 * *out is NULL when absent. */
int tsd_param_string(const struct json_object *params, const char *key, bool required,
                     const char **out, ts_error *err);

/* A boolean; def when absent. */
int tsd_param_bool(const struct json_object *params, const char *key, bool def, bool *out,
                   ts_error *err);

/* A number (int or float); def when absent. */
int tsd_param_number(const struct json_object *params, const char *key, double def, double *out,
                     ts_error *err);

/* An integer; def when absent. */
int tsd_param_int(const struct json_object *params, const char *key, int64_t def, int64_t *out,
                  ts_error *err);

/* A map; *out is NULL when absent. Borrowed. */
int tsd_param_object(const struct json_object *params, const char *key, struct json_object **out,
                     ts_error *err);

/* Any value except nil, required. Borrowed. */
int tsd_param_value(const struct json_object *params, const char *key, struct json_object **out,
                    ts_error *err);

/* A new JSON string of s, or the null value (NULL) when s is NULL. */
struct json_object *tsd_json_string_or_null(const char *s);

#endif
