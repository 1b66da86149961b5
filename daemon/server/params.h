/*
 * params — reading a request's params with type checks, errors that stick.
 *
 * Every error has code "invalid_argument" and names the parameter and what
 * it must be, e.g. "'min_score' must be a number, got string". An absent
 * key and nil both mean "not given". A reader keeps its first error: every
 * later read does nothing (it gives the default) and the caller looks once,
 * at tsd_params_error:
 *
 *   tsd_params p;
 *   tsd_params_init(&p, params, err);
 *   const char *store = tsd_params_string(&p, "store", true);
 *   bool all = tsd_params_bool(&p, "all", false);
 *   if (tsd_params_error(&p) < 0) return tsd_params_error(&p);
 */
#ifndef TSD_PARAMS_H
#define TSD_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "lib/base/ts_base.h"

typedef struct tsd_params {
    const struct json_object *obj; /* the params object (borrowed) */
    ts_error *err;                 /* the first error's code and message */
    int rc;                        /* 0, or the first error */
} tsd_params;

void tsd_params_init(tsd_params *p, const struct json_object *params, ts_error *err);

/* 0, or the first error of a read (or of tsd_params_fail). */
int tsd_params_error(const tsd_params *p);

/* Keep rc (< 0, with p->err already set by the caller) as the reader's
 * error unless it has one; returns the reader's error. For checks of the
 * caller's own (a name's validity) in the same sequence. */
int tsd_params_fail(tsd_params *p, int rc);

/* A string (valid UTF-8, no NUL), or NULL when absent; required: absent is
 * an error. */
const char *tsd_params_string(tsd_params *p, const char *key, bool required);

/* A snapshot name: a required string that ts_name_validate takes. */
const char *tsd_params_name(tsd_params *p, const char *key);

/* A format of observed calls: absent (NULL) or one ts_extract knows, else
 * "format" naming the supported ones. */
const char *tsd_params_format(tsd_params *p, const char *key);

/* A boolean; def when absent. */
bool tsd_params_bool(tsd_params *p, const char *key, bool def);

/* A number (int or float); def when absent. */
double tsd_params_number(tsd_params *p, const char *key, double def);

/* An integer; def when absent. */
int64_t tsd_params_int(tsd_params *p, const char *key, int64_t def);

/* A drift report's width: an integer from 0 (absent: the report's
 * default) to TSD_PARAMS_WIDTH_MAX (the report clamps it further). */
#define TSD_PARAMS_WIDTH_MAX 65535
int64_t tsd_params_width(tsd_params *p, const char *key);

/* A map (borrowed), or NULL when absent. */
struct json_object *tsd_params_object(tsd_params *p, const char *key);

/* Any value except nil, required (borrowed). */
struct json_object *tsd_params_value(tsd_params *p, const char *key);

/* The snapshots a request decides on: "names", a required array of valid
 * snapshot names (borrowed), or "all": true (*all set, NULL returned), not
 * both. */
struct json_object *tsd_params_names_or_all(tsd_params *p, bool *all);

/* A new JSON string of s, or the null value (NULL) when s is NULL. */
struct json_object *tsd_json_string_or_null(const char *s);

#endif
