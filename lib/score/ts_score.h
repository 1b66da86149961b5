/*
 * ts_score — comparing actual tool calls with expected ones
 * (docs/scoring.md; numbers match the reference to 1e-12).
 *
 * Calls are json-c arrays of objects {"tool": string, "args": object|null|absent}.
 * Neither list is modified.
 */
#ifndef TS_SCORE_H
#define TS_SCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "lib/base/ts_base.h"

typedef struct ts_weights {
    double selection_accuracy;
    double argument_f1;
    double sequence_accuracy;
    double redundant_rate;
} ts_weights;

/* How two lists are scored. A member added here is compared by
 * ts_score_options_equal (below) too, or a cached score is reused for
 * options that differ. */
typedef struct ts_score_options {
    ts_weights weights; /* ts_weights_default() or ts_weights_from_json() */
    bool strict;        /* type-exact argument comparison */
    double min_score;   /* in [0, 1]; 1.0 by default */
} ts_score_options;

/* True when a and b score every pair of lists alike (every member equal):
 * what a cached score may be reused for. A new option is compared here. */
bool ts_score_options_equal(const ts_score_options *a, const ts_score_options *b);

typedef struct ts_score_result {
    double score;
    char grade; /* 'A' .. 'F' */
    bool passed;
    double min_score;
    double invocation_accuracy;
    double selection_accuracy;
    double argument_precision;
    double argument_recall;
    double argument_f1;
    double edit_distance;
    double normalized_distance;
    double sequence_accuracy;
    int64_t redundant_count;
    int64_t total_calls;
    double redundant_rate;
    double tool_correctness;
    double trajectory_accuracy;
    double step_match_rate;
    double path_efficiency;
    struct json_object *expected_tools; /* owned: sorted array of strings */
    struct json_object *called_tools;
    struct json_object *missing_tools;
    struct json_object *extra_tools;
    bool strict; /* the value comparison that was used (the report reuses it) */
} ts_score_result;

/* Options with default weights, strict off, min_score 1.0. */
void ts_score_options_default(ts_score_options *opt);

void ts_weights_default(ts_weights *w);

/*
 * Weights from a JSON object with any subset of the four keys: unknown key,
 * non-number, negative, NaN or infinite value -> error naming the key; given
 * values replace defaults, then all four are divided by their total
 * (total 0 -> error). A NULL obj (JSON null: no weights given) yields the
 * defaults as they are.
 */
int ts_weights_from_json(const struct json_object *obj, ts_weights *out, ts_error *err);

/* min_score must lie in [0, 1]. */
int ts_score_check_min(double min_score, ts_error *err);

/* Every weight finite and >= 0, their total positive (error naming the key). */
int ts_weights_check(const ts_weights *w, ts_error *err);

/*
 * Validate a calls list (array; each item an object with a non-empty string
 * "tool"): "item at index i is not an object" / "item at index i is missing
 * 'tool'". which is "expected" or "actual" for the message.
 */
int ts_calls_validate(const struct json_object *calls, const char *which, ts_error *err);

/*
 * Score actual (already extracted) against expected. out is filled on
 * success and must be released with ts_score_result_free().
 */
int ts_evaluate(const struct json_object *expected, const struct json_object *actual,
                const ts_score_options *opt, ts_score_result *out, ts_error *err);

/*
 * As ts_evaluate, for two lists the caller has already validated (with
 * ts_calls_validate, or the stricter ts_snapshot_validate_calls) and not
 * changed since: they are not walked again. A daemon replaying a cached,
 * validated baseline against just-extracted calls saves both walks.
 */
int ts_evaluate_validated(const struct json_object *expected, const struct json_object *actual,
                          const ts_score_options *opt, ts_score_result *out, ts_error *err);

/*
 * Another comparison of argument values, for comparison rules (ts_rules:
 * a matcher relaxes the values its path names). equal is asked about the
 * value of argument key of a call of tool tool[0..tool_len), expected
 * against actual, with strict and top_level as ts_values_equal has them
 * (top_level false: the trajectory's step match). It must be true wherever
 * ts_values_equal is (a rule relaxes, never tightens), and be safe to call
 * from the thread that scores.
 */
typedef struct ts_value_compare {
    bool (*equal)(void *ctx, const char *tool, size_t tool_len, const char *key,
                  const struct json_object *expected, const struct json_object *actual, bool strict,
                  bool top_level);
    void *ctx;
} ts_value_compare;

/*
 * As ts_evaluate (validated false) or ts_evaluate_validated (true), with
 * argument values compared by compare (NULL: ts_values_equal, which gives
 * exactly ts_evaluate's numbers).
 */
int ts_evaluate_compare(const struct json_object *expected, const struct json_object *actual,
                        const ts_score_options *opt, const ts_value_compare *compare,
                        bool validated, ts_score_result *out, ts_error *err);

void ts_score_result_free(ts_score_result *r);

/* A copy of src into dst whose tool lists are new references to src's (not
 * copied): neither result's lists may then be modified, and both stay with
 * one thread at a time. Release dst with ts_score_result_free(). */
void ts_score_result_share(ts_score_result *dst, const ts_score_result *src);

/*
 * The members of a score result as every reader and writer sees them (the
 * JSON of ts_score_result_to_json, the msgpack of a check reply, the
 * client's reader): in this order, each named, typed and located in
 * ts_score_result: docs/scoring.md's keys, then passed and min_score.
 */
typedef enum ts_score_type {
    TS_SCORE_DOUBLE, /* double */
    TS_SCORE_INT,    /* int64_t */
    TS_SCORE_GRADE,  /* char, written as a one-letter string */
    TS_SCORE_BOOL,   /* bool */
    TS_SCORE_TOOLS,  /* struct json_object * array of strings (NULL: empty) */
} ts_score_type;

typedef struct ts_score_key {
    const char *name;
    size_t len; /* strlen(name) */
    ts_score_type type;
    size_t offset; /* of the member in ts_score_result */
} ts_score_key;

extern const ts_score_key ts_score_keys[];
extern const size_t ts_score_key_count;

/* The key named name[0..len), or NULL. */
const ts_score_key *ts_score_key_find(const char *name, size_t len);

/* The member of r that k describes (k's type says which pointer to use). */
static inline const void *ts_score_member(const ts_score_result *r, const ts_score_key *k)
{
    return (const char *)r + k->offset;
}

/* The result as JSON with exactly the keys of ts_score_keys, in order.
 * The tool lists are shared with r (new references), not copied. */
struct json_object *ts_score_result_to_json(const ts_score_result *r);

/* Value comparison of docs/scoring.md. Lenient: numbers by exact value
 * across int/float/bool; when top_level (the value is itself an argument
 * value) two numbers equal as doubles are equal too, and two strings equal
 * after trimming Unicode whitespace. Strict: identical types at every
 * level, exact numbers, no trimming. */
bool ts_values_equal(const struct json_object *a, const struct json_object *b, bool strict,
                     bool top_level);

/* The span [*start, *end) of s[0..len) without the leading and trailing
 * whitespace Python's str.strip() removes (str.isspace(): ASCII and Unicode
 * whitespace; invalid UTF-8 is never whitespace). The trimming of the
 * lenient comparison, and of TOOLSCORE_RECORD_UPDATE. */
void ts_strip_span(const char *s, size_t len, size_t *start, size_t *end);

#endif
