/*
 * ts_score_options — scoring options and their validation: weights from
 * JSON, the minimum score, the shape of a call list (docs/scoring.md).
 */
#include "lib/score/ts_score.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "lib/json/ts_json.h"

/* ---------------------------------------------------------------------------
 * Options, weights, validation
 * ------------------------------------------------------------------------- */

static const char *const weight_keys[4] = {"selection_accuracy", "argument_f1", "sequence_accuracy",
                                           "redundant_rate"};

void ts_weights_default(ts_weights *w)
{
    w->selection_accuracy = 0.4;
    w->argument_f1 = 0.3;
    w->sequence_accuracy = 0.2;
    w->redundant_rate = 0.1;
}

void ts_score_options_default(ts_score_options *opt)
{
    ts_weights_default(&opt->weights);
    opt->strict = false;
    opt->min_score = 1.0;
}

bool ts_score_options_equal(const ts_score_options *a, const ts_score_options *b)
{
    return a->weights.selection_accuracy == b->weights.selection_accuracy &&
           a->weights.argument_f1 == b->weights.argument_f1 &&
           a->weights.sequence_accuracy == b->weights.sequence_accuracy &&
           a->weights.redundant_rate == b->weights.redundant_rate && a->strict == b->strict &&
           a->min_score == b->min_score;
}

static double *weight_slot(ts_weights *w, size_t i)
{
    double *slots[4] = {&w->selection_accuracy, &w->argument_f1, &w->sequence_accuracy,
                        &w->redundant_rate};
    return slots[i];
}

static int weight_index(const char *key)
{
    for (size_t i = 0; i < 4; i++) {
        if (strcmp(key, weight_keys[i]) == 0)
            return (int)i;
    }
    return -1;
}

static int invalid_weight(ts_error *err, const char *key, const char *why)
{
    return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "weight '%s' %s", key, why);
}

int ts_weights_from_json(const struct json_object *obj, ts_weights *out, ts_error *err)
{
    ts_weights w;
    double total;

    ts_weights_default(&w);
    if (obj == NULL) { /* JSON null: no weights given, defaults as they are */
        *out = w;
        return 0;
    }
    if (!json_object_is_type(obj, json_type_object))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "weights must be an object mapping metric names to numbers");
    json_object_object_foreach((struct json_object *)obj, key, val)
    {
        int idx = weight_index(key);
        double d;
        if (idx < 0)
            return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                                "unknown weight '%s' (known: selection_accuracy, argument_f1, "
                                "sequence_accuracy, redundant_rate)",
                                key);
        if (!json_object_is_type(val, json_type_int) && !json_object_is_type(val, json_type_double))
            return invalid_weight(err, key, "must be a number");
        d = json_object_get_double(val);
        if (isnan(d))
            return invalid_weight(err, key, "must not be NaN");
        if (isinf(d))
            return invalid_weight(err, key, "must be finite");
        if (d < 0)
            return invalid_weight(err, key, "must not be negative");
        *weight_slot(&w, (size_t)idx) = d;
    }
    total = w.selection_accuracy + w.argument_f1 + w.sequence_accuracy + w.redundant_rate;
    if (total == 0)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "weights sum to 0: at least one weight must be positive");
    if (!isfinite(total))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "weights are too large");
    for (size_t i = 0; i < 4; i++)
        *weight_slot(&w, i) /= total;
    *out = w;
    return 0;
}

int ts_score_check_min(double min_score, ts_error *err)
{
    if (isnan(min_score) || min_score < 0.0 || min_score > 1.0)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "min_score must be between 0 and 1 (got %g)", min_score);
    return 0;
}

int ts_weights_check(const ts_weights *w, ts_error *err)
{
    ts_weights copy = *w;
    double total = 0;

    for (size_t i = 0; i < 4; i++) {
        double d = *weight_slot(&copy, i);
        if (!isfinite(d) || d < 0)
            return invalid_weight(err, weight_keys[i], "must be a finite number >= 0");
        total += d;
    }
    if (total == 0)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "weights sum to 0: at least one weight must be positive");
    return 0;
}

/* "<which>: item at index i <problem>" (no prefix when which is NULL). */
static int invalid_calls(ts_error *err, const char *which, size_t i, const char *problem)
{
    return ts_error_set(err, -EINVAL, TS_ERR_INVALID_CALLS, "%s%sitem at index %zu %s",
                        which ? which : "", which ? ": " : "", i, problem);
}

int ts_calls_validate(const struct json_object *calls, const char *which, ts_error *err)
{
    size_t n;

    if (!json_object_is_type(calls, json_type_array))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_CALLS,
                            "%s must be a list of calls, got %s", which ? which : "calls",
                            ts_json_kind_word(calls));
    n = json_object_array_length(calls);
    for (size_t i = 0; i < n; i++) {
        struct json_object *item = json_object_array_get_idx(calls, i);
        struct json_object *tool, *args;
        if (!json_object_is_type(item, json_type_object))
            return invalid_calls(err, which, i, "is not an object");
        if (!json_object_object_get_ex(item, "tool", &tool) ||
            !json_object_is_type(tool, json_type_string) || json_object_get_string_len(tool) == 0)
            return invalid_calls(err, which, i, "is missing 'tool'");
        if (json_object_object_get_ex(item, "args", &args) && args != NULL &&
            !json_object_is_type(args, json_type_object))
            return invalid_calls(err, which, i, "has 'args' that is not an object");
    }
    return 0;
}
