/*
 * ts_rules_match — matchers: the values a `match` pattern names compared
 * more loosely than equality (docs/rules.md).
 *
 * A matcher only relaxes: a value passes when it is equal as scoring says
 * (ts_values_equal, with the rule in force: lenient or strict, trimming at
 * the top level), or when its matcher accepts it:
 *   regex   the actual value is a string the POSIX extended expression
 *           matches (bytes; anchored only where the expression anchors);
 *   approx  both are numbers (not booleans) within the absolute tolerance;
 *   set     both are arrays with the same elements counted with
 *           multiplicity, in any order (elements compared as nested
 *           values, greedily paired);
 *   type    both have the same JSON type (integers and floats are both
 *           numbers; booleans are not numbers).
 * So equal calls always pass, whatever the rules (the daemon's replay of
 * the baseline's own calls stays valid), and a pattern naming a value
 * inside an argument makes that argument a member-by-member comparison in
 * which only the named values are relaxed. When several match patterns
 * name one value, the last one given wins (per-check rules come after the
 * project's).
 */
#include "ts_rules_internal.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int ts_rules_work_init(ts_rules_applied *a)
{
    struct ts_rules_work *w = calloc(1, sizeof(*w));

    if (w == NULL)
        return -ENOMEM;
    if (ts_rules_stack_init(&w->stack, a->rules, TS_RULES_WALK_DEPTH) < 0) {
        free(w);
        return -ENOMEM;
    }
    w->rules = a->rules;
    w->passed = a->match_passed;
    w->failed = a->match_failed;
    a->work = w;
    return 0;
}

void ts_rules_work_free(ts_rules_applied *a)
{
    if (a->work == NULL)
        return;
    ts_rules_stack_free(&a->work->stack);
    free(a->work);
    a->work = NULL;
}

static bool is_number(const struct json_object *v)
{
    return json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double);
}

/* The nearest double of a number (uint64 above INT64_MAX included). */
static double number_of(const struct json_object *v)
{
    int64_t s;

    if (json_object_is_type(v, json_type_double))
        return json_object_get_double(v);
    s = json_object_get_int64(v);
    if (s == INT64_MAX)
        return (double)json_object_get_uint64(v);
    return (double)s;
}

/* JSON's types: null, boolean, number, string, array, object. */
static int json_kind(const struct json_object *v)
{
    enum json_type t = json_object_get_type(v);

    return t == json_type_double ? json_type_int : (int)t;
}

static bool relaxed(struct ts_rules_work *w, size_t level, const struct json_object *e,
                    const struct json_object *v, bool strict, bool top_level, bool count);

static bool regex_passes(const ts_matcher *m, const struct json_object *v)
{
    const char *s;

    if (!json_object_is_type(v, json_type_string))
        return false;
    s = json_object_get_string((struct json_object *)v);
    if (strlen(s) != (size_t)json_object_get_string_len(v))
        return false; /* a NUL inside: regexec would see a shorter string */
    return regexec(&m->re, s, 0, NULL, 0) == 0;
}

/* Multiset equality of two arrays, elements compared as nested values
 * under the patterns below level. */
static bool set_passes(struct ts_rules_work *w, size_t level, const struct json_object *e,
                       const struct json_object *v, bool strict)
{
    size_t n = json_object_array_length(e);
    uint64_t small = 0;
    uint64_t *used = &small;
    bool ok = true;

    if (!json_object_is_type(e, json_type_array) || !json_object_is_type(v, json_type_array) ||
        json_object_array_length(v) != n)
        return false;
    if (n > 64) {
        used = calloc((n + 63) / 64, sizeof(*used));
        if (used == NULL)
            return false;
    }
    for (size_t i = 0; i < n && ok; i++) {
        const struct json_object *ei = json_object_array_get_idx(e, i);
        ts_rules_state *st = ts_rules_stack_at(&w->stack, level);
        ts_rules_state *next = ts_rules_stack_at(&w->stack, level + 1);
        bool live =
            level + 1 < w->stack.depth && ts_rules_path_step_index(w->rules->paths, st, i, next);
        ok = false;
        for (size_t j = 0; j < n; j++) {
            const struct json_object *vj = json_object_array_get_idx(v, j);
            bool eq;
            if (used[j / 64] & ((uint64_t)1 << (j % 64)))
                continue;
            eq = live ? relaxed(w, level + 1, ei, vj, strict, false, false)
                      : ts_values_equal(ei, vj, strict, false);
            if (eq) {
                used[j / 64] |= (uint64_t)1 << (j % 64);
                ok = true;
                break;
            }
        }
    }
    if (used != &small)
        free(used);
    return ok;
}

static bool matcher_passes(struct ts_rules_work *w, const ts_matcher *m, size_t level,
                           const struct json_object *e, const struct json_object *v, bool strict)
{
    switch (m->kind) {
    case TS_MATCHER_REGEX:
        return regex_passes(m, v);
    case TS_MATCHER_APPROX:
        return is_number(e) && is_number(v) && fabs(number_of(e) - number_of(v)) <= m->tolerance;
    case TS_MATCHER_SET:
        return set_passes(w, level, e, v, strict);
    case TS_MATCHER_TYPE:
        return json_kind(e) == json_kind(v);
    case TS_MATCHER_NONE:
        break;
    }
    return false;
}

static bool relaxed_object(struct ts_rules_work *w, size_t level, const struct json_object *e,
                           const struct json_object *v, bool strict, bool count)
{
    ts_rules_state *st = ts_rules_stack_at(&w->stack, level);
    ts_rules_state *next = ts_rules_stack_at(&w->stack, level + 1);

    if (json_object_object_length(e) != json_object_object_length(v))
        return false;
    json_object_object_foreach((struct json_object *)e, key, ev)
    {
        struct json_object *vv;
        bool eq;
        if (!json_object_object_get_ex(v, key, &vv))
            return false;
        if (ts_rules_path_step_key(w->rules->paths, st, key, strlen(key), next))
            eq = relaxed(w, level + 1, ev, vv, strict, false, count);
        else
            eq = ts_values_equal(ev, vv, strict, false);
        if (!eq)
            return false;
    }
    return true;
}

static bool relaxed_array(struct ts_rules_work *w, size_t level, const struct json_object *e,
                          const struct json_object *v, bool strict, bool count)
{
    ts_rules_state *st = ts_rules_stack_at(&w->stack, level);
    ts_rules_state *next = ts_rules_stack_at(&w->stack, level + 1);
    size_t n = json_object_array_length(e);

    if (json_object_array_length(v) != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        const struct json_object *ei = json_object_array_get_idx(e, i);
        const struct json_object *vi = json_object_array_get_idx(v, i);
        bool eq;
        if (ts_rules_path_step_index(w->rules->paths, st, i, next))
            eq = relaxed(w, level + 1, ei, vi, strict, false, count);
        else
            eq = ts_values_equal(ei, vi, strict, false);
        if (!eq)
            return false;
    }
    return true;
}

/* e against v where stack[level] is the state reached at them. */
static bool relaxed(struct ts_rules_work *w, size_t level, const struct json_object *e,
                    const struct json_object *v, bool strict, bool top_level, bool count)
{
    const ts_rules *r = w->rules;
    const ts_rules_state *st = ts_rules_stack_at(&w->stack, level);
    long p = ts_rules_path_accepts(r->paths, st, TS_RULES_MATCH, false);

    if (p >= 0 && r->matchers[p].kind != TS_MATCHER_NONE) {
        bool ok = ts_values_equal(e, v, strict, top_level) ||
                  matcher_passes(w, &r->matchers[p], level, e, v, strict);
        if (count) {
            if (ok)
                w->passed[p]++;
            else
                w->failed[p]++;
        }
        return ok;
    }
    if (level + 1 >= w->stack.depth || !ts_rules_path_alive(r->paths, st, TS_RULES_MATCH))
        return ts_values_equal(e, v, strict, top_level);
    if (json_object_is_type(e, json_type_object) && json_object_is_type(v, json_type_object))
        return relaxed_object(w, level, e, v, strict, count);
    if (json_object_is_type(e, json_type_array) && json_object_is_type(v, json_type_array))
        return relaxed_array(w, level, e, v, strict, count);
    return ts_values_equal(e, v, strict, top_level);
}

/* Enter argument key of a call of tool: the state at stack level 2, false
 * when no match pattern can reach it. */
static bool enter_argument(struct ts_rules_work *w, const char *tool, size_t tool_len,
                           const char *key)
{
    const ts_rules_path_set *paths = w->rules->paths;
    ts_rules_stack *s = &w->stack;

    return ts_rules_path_start(paths, tool, tool_len, TS_RULES_KIND_BIT(TS_RULES_MATCH),
                               ts_rules_stack_at(s, 0)) &&
           ts_rules_path_step_key(paths, ts_rules_stack_at(s, 0), "args", 4,
                                  ts_rules_stack_at(s, 1)) &&
           ts_rules_path_step_key(paths, ts_rules_stack_at(s, 1), key, strlen(key),
                                  ts_rules_stack_at(s, 2));
}

bool ts_rules_args_equal(void *ctx, const char *tool, size_t tool_len, const char *key,
                         const struct json_object *expected, const struct json_object *actual,
                         bool strict, bool top_level)
{
    struct ts_rules_work *w = ctx;

    if (w == NULL || !enter_argument(w, tool, tool_len, key))
        return ts_values_equal(expected, actual, strict, top_level);
    return relaxed(w, 2, expected, actual, strict, top_level, w->counting && top_level);
}

bool ts_rules_key_relaxed(ts_rules_applied *a, const char *tool, size_t tool_len, const char *key)
{
    return a->has_compare && a->work != NULL && enter_argument(a->work, tool, tool_len, key);
}

bool ts_rules_value_equal(ts_rules_applied *a, const char *tool, size_t tool_len, const char *key,
                          const struct json_object *expected, const struct json_object *actual,
                          bool strict)
{
    if (!ts_rules_key_relaxed(a, tool, tool_len, key))
        return ts_values_equal(expected, actual, strict, true);
    return relaxed(a->work, 2, expected, actual, strict, true, false);
}
