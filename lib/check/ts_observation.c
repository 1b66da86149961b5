/*
 * ts_observation — the kept observation's model and file (see
 * ts_check.h).
 */
#include "lib/check/ts_check.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sha1.h>

#include "lib/json/ts_json.h"
#include "lib/snapshot/ts_snapshot.h"
#include "lib/rules/ts_rules.h"
#include "lib/base/ts_base.h"

/* The members of a file, in the order they are written. */
static const char *const members[] = {
    "observation", "name",      "outcome", "baseline", "observed_at", "run",
    "test",        "min_score", "strict",  "weights",  "rules",       "calls",
};
/* Written after "test" when not NULL; absent in files of earlier versions. */
#define SOURCE_MEMBER "source"
#define MEMBER_COUNT (sizeof(members) / sizeof(members[0]))

static const char *const weight_names[4] = {"selection_accuracy", "argument_f1",
                                            "sequence_accuracy", "redundant_rate"};

int ts_observation_calls_id(const struct json_object *calls, char out[TS_OBSERVATION_ID_LEN + 1],
                            ts_error *err)
{
    uint8_t digest[SHA1_DIGEST_LENGTH];
    SHA1_CTX ctx;
    ts_buf b;
    int rc;

    ts_buf_init(&b, TS_JSON_MAX_BYTES);
    rc = ts_json_write_compact(calls, &b, err);
    if (rc < 0) {
        ts_buf_free(&b);
        return rc;
    }
    SHA1Init(&ctx);
    SHA1Update(&ctx, (const uint8_t *)(b.data != NULL ? b.data : ""), b.len);
    SHA1Final(digest, &ctx);
    ts_buf_free(&b);
    for (size_t i = 0; i < SHA1_DIGEST_LENGTH; i++)
        snprintf(out + 2 * i, 3, "%02x", digest[i]);
    out[TS_OBSERVATION_ID_LEN] = '\0';
    return 0;
}

/* A copy of label cut to TS_OBSERVATION_MAX_LABEL bytes at a character
 * boundary; NULL stays NULL. *failed on no memory. */
static char *copy_label(const char *label, bool *failed)
{
    size_t len;
    char *out;

    if (label == NULL)
        return NULL;
    len =
        ts_utf8_cut(label, strnlen(label, TS_OBSERVATION_MAX_LABEL + 1), TS_OBSERVATION_MAX_LABEL);
    out = strndup(label, len);
    if (out == NULL)
        *failed = true;
    return out;
}

void ts_observation_free(ts_observation *o)
{
    if (o == NULL)
        return;
    free(o->name);
    free(o->run);
    free(o->test);
    free(o->source);
    json_object_put(o->rules);
    json_object_put(o->calls);
    free(o);
}

int ts_observation_new(const char *name, struct json_object *calls, const char *outcome,
                       const struct json_object *baseline, const char *run, const char *test,
                       const ts_score_options *options, const struct json_object *rules,
                       ts_observation **out, ts_error *err)
{
    ts_observation *o;
    bool failed = false;
    int rc;

    if (strcmp(outcome, "FAILED") != 0 && strcmp(outcome, "PENDING") != 0)
        return ts_error_set(err, -EINVAL, TS_ERR_INTERNAL, "an observation of outcome '%s'",
                            outcome);
    o = calloc(1, sizeof(*o));
    if (o == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    rc = ts_observation_calls_id(baseline, o->baseline, err);
    if (rc < 0) {
        free(o);
        return rc;
    }
    o->name = strdup(name);
    o->run = copy_label(run, &failed);
    o->test = copy_label(test, &failed);
    o->rules = ts_json_copy(rules);
    if (o->name == NULL || failed || (rules != NULL && o->rules == NULL)) {
        ts_observation_free(o);
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    snprintf(o->outcome, sizeof(o->outcome), "%s", outcome);
    ts_timestamp_now(o->observed_at);
    o->options = *options;
    o->calls = json_object_get(calls);
    *out = o;
    return 0;
}

static struct json_object *string_or_null(const char *s)
{
    return s != NULL ? json_object_new_string(s) : NULL;
}

/* The file's object (calls shared, not copied). */
static struct json_object *to_json(const ts_observation *o)
{
    struct json_object *obj = json_object_new_object();
    struct json_object *weights = json_object_new_object();
    const double w[4] = {o->options.weights.selection_accuracy, o->options.weights.argument_f1,
                         o->options.weights.sequence_accuracy, o->options.weights.redundant_rate};
    struct json_object *values[MEMBER_COUNT];

    if (obj == NULL || weights == NULL) {
        json_object_put(obj);
        json_object_put(weights);
        return NULL;
    }
    for (size_t i = 0; i < 4; i++)
        json_object_object_add(weights, weight_names[i], json_object_new_double(w[i]));
    values[0] = json_object_new_int(TS_OBSERVATION_VERSION);
    values[1] = json_object_new_string(o->name);
    values[2] = json_object_new_string(o->outcome);
    values[3] = json_object_new_string(o->baseline);
    values[4] = json_object_new_string(o->observed_at);
    values[5] = string_or_null(o->run);
    values[6] = string_or_null(o->test);
    values[7] = json_object_new_double(o->options.min_score);
    values[8] = json_object_new_boolean(o->options.strict);
    values[9] = weights;
    values[10] = json_object_get(o->rules);
    values[11] = json_object_get(o->calls);
    for (size_t i = 0; i < MEMBER_COUNT; i++) {
        json_object_object_add(obj, members[i], values[i]);
        if (i == 6 && o->source != NULL)
            json_object_object_add(obj, SOURCE_MEMBER, json_object_new_string(o->source));
    }
    return obj;
}

int ts_observation_serialize(const ts_observation *o, ts_buf *out, ts_error *err)
{
    struct json_object *obj = to_json(o);
    int rc;

    if (obj == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    rc = ts_json_write_compact(obj, out, err);
    json_object_put(obj);
    if (rc == 0 && out->len > TS_OBSERVATION_MAX_BYTES)
        rc = ts_error_set(err, -E2BIG, TS_ERR_TOO_LARGE,
                          "observation of '%s' is %zu bytes (at most %u are kept)", o->name,
                          out->len, TS_OBSERVATION_MAX_BYTES);
    return rc;
}

/* ---- reading ---------------------------------------------------------- */

typedef struct reader {
    const struct json_object *obj;
    const char *what;
    ts_error *err;
    int rc;
} reader;

static void bad(reader *r, const char *fmt, const char *detail)
{
    if (r->rc == 0)
        r->rc = ts_error_set(r->err, -EINVAL, TS_ERR_INVALID_SNAPSHOT, "%s: %s%s", r->what, fmt,
                             detail != NULL ? detail : "");
}

/* The member key, which must have type (null allowed when nullable). */
static struct json_object *member(reader *r, const char *key, enum json_type type, bool nullable)
{
    struct json_object *v = NULL;

    if (r->rc < 0)
        return NULL;
    if (!json_object_object_get_ex(r->obj, key, &v)) {
        bad(r, "missing member ", key);
        return NULL;
    }
    if (v == NULL && nullable)
        return NULL;
    if (!json_object_is_type(v, type))
        bad(r, "wrong type of member ", key);
    return r->rc < 0 ? NULL : v;
}

/* A string member copied into out (outsz bytes, fixed-size fields). */
static void fixed_string(reader *r, const char *key, char *out, size_t outsz)
{
    struct json_object *v = member(r, key, json_type_string, false);

    if (v == NULL)
        return;
    if ((size_t)json_object_get_string_len(v) >= outsz)
        bad(r, "member too long: ", key);
    else
        snprintf(out, outsz, "%s", json_object_get_string(v));
}

/* A nullable string member, at most TS_OBSERVATION_MAX_LABEL bytes, copied. */
static char *label(reader *r, const char *key)
{
    struct json_object *v = member(r, key, json_type_string, true);
    char *out;

    if (v == NULL)
        return NULL;
    if (json_object_get_string_len(v) > TS_OBSERVATION_MAX_LABEL) {
        bad(r, "member too long: ", key);
        return NULL;
    }
    out = strdup(json_object_get_string(v));
    if (out == NULL && r->rc == 0)
        r->rc = ts_error_set(r->err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    return out;
}

static bool is_hex_id(const char *s)
{
    if (strlen(s) != TS_OBSERVATION_ID_LEN)
        return false;
    for (const char *p = s; *p != '\0'; p++) {
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return false;
    }
    return true;
}

/* A number member (int or float), finite. */
static double number(reader *r, const struct json_object *obj, const char *key)
{
    struct json_object *v = NULL;
    double d;

    if (r->rc < 0)
        return 0;
    if (!json_object_object_get_ex(obj, key, &v) ||
        !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))) {
        bad(r, "missing or wrong number ", key);
        return 0;
    }
    d = json_object_get_double(v);
    if (!isfinite(d))
        bad(r, "not a finite number: ", key);
    return d;
}

static void read_options(reader *r, ts_score_options *opt)
{
    struct json_object *weights;
    double *slots[4] = {&opt->weights.selection_accuracy, &opt->weights.argument_f1,
                        &opt->weights.sequence_accuracy, &opt->weights.redundant_rate};
    double total = 0;
    struct json_object *strict;

    ts_score_options_default(opt);
    opt->min_score = number(r, r->obj, "min_score");
    if (r->rc == 0 && (opt->min_score < 0 || opt->min_score > 1))
        bad(r, "min_score out of [0, 1]", NULL);
    strict = member(r, "strict", json_type_boolean, false);
    opt->strict = strict != NULL && json_object_get_boolean(strict);
    weights = member(r, "weights", json_type_object, false);
    if (weights == NULL)
        return;
    if (json_object_object_length(weights) != 4)
        bad(r, "weights must have exactly the four weights", NULL);
    for (size_t i = 0; i < 4 && r->rc == 0; i++) {
        *slots[i] = number(r, weights, weight_names[i]);
        if (r->rc == 0 && *slots[i] < 0)
            bad(r, "negative weight ", weight_names[i]);
        total += *slots[i];
    }
    if (r->rc == 0 && !(total > 0))
        bad(r, "the weights add up to 0", NULL);
}

/* err (a JSON or calls error) as "invalid_snapshot" naming what. */
static int invalid(ts_error *err, const char *what)
{
    if (err != NULL) {
        ts_error_prefix(err, -EINVAL, "%s", what);
        snprintf(err->code, sizeof(err->code), "%s", TS_ERR_INVALID_SNAPSHOT);
    }
    return -EINVAL;
}

int ts_observation_parse(const char *buf, size_t len, const char *what, ts_observation **out,
                         ts_error *err)
{
    struct json_object *root = NULL;
    struct json_object *v;
    ts_observation *o;
    reader r = {NULL, what, err, 0};
    int rc;

    if (len > TS_OBSERVATION_MAX_BYTES)
        return ts_error_set(err, -E2BIG, TS_ERR_TOO_LARGE, "%s: %zu bytes (at most %u)", what, len,
                            TS_OBSERVATION_MAX_BYTES);
    rc = ts_json_parse(buf, len, TS_SNAPSHOT_MAX_DEPTH, &root, err);
    if (rc < 0)
        return invalid(err, what);
    o = calloc(1, sizeof(*o));
    if (o == NULL) {
        json_object_put(root);
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    r.obj = root;
    if (!json_object_is_type(root, json_type_object))
        bad(&r, "not a JSON object", NULL);
    v = member(&r, "observation", json_type_int, false);
    if (v != NULL && json_object_get_int64(v) != TS_OBSERVATION_VERSION)
        bad(&r, "unknown observation version", NULL);
    v = member(&r, "name", json_type_string, false);
    if (v != NULL && ts_name_validate(json_object_get_string(v),
                                      (size_t)json_object_get_string_len(v), NULL) < 0)
        bad(&r, "invalid name", NULL);
    if (v != NULL && r.rc == 0 && (o->name = strdup(json_object_get_string(v))) == NULL)
        r.rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    fixed_string(&r, "outcome", o->outcome, sizeof(o->outcome));
    if (r.rc == 0 && strcmp(o->outcome, "FAILED") != 0 && strcmp(o->outcome, "PENDING") != 0)
        bad(&r, "unknown outcome ", o->outcome);
    fixed_string(&r, "baseline", o->baseline, sizeof(o->baseline));
    if (r.rc == 0 && !is_hex_id(o->baseline))
        bad(&r, "baseline is not a calls id", NULL);
    fixed_string(&r, "observed_at", o->observed_at, sizeof(o->observed_at));
    o->run = label(&r, "run");
    o->test = label(&r, "test");
    if (r.rc == 0 && json_object_object_get_ex(root, SOURCE_MEMBER, &v)) {
        o->source = label(&r, SOURCE_MEMBER);
        if (r.rc == 0 && !ts_snapshot_source_known(o->source))
            bad(&r, "unknown source ", o->source);
    }
    read_options(&r, &o->options);
    v = member(&r, "rules", json_type_object, true);
    if (v != NULL) {
        ts_rules *rules = NULL;

        if (ts_rules_from_json(v, "rules", &rules, err) < 0)
            r.rc = invalid(err, what);
        ts_rules_unref(rules);
        if (r.rc == 0)
            o->rules = json_object_get(v);
    }
    v = member(&r, "calls", json_type_array, false);
    if (v != NULL && ts_snapshot_validate_calls(v, err) < 0)
        r.rc = invalid(err, what);
    if (r.rc == 0 && v != NULL)
        o->calls = json_object_get(v);
    json_object_put(root);
    if (r.rc < 0) {
        ts_observation_free(o);
        return r.rc;
    }
    *out = o;
    return 0;
}
