/*
 * ts_rules_apply — what rules do to one list of calls before it is
 * compared: calls of ignored tools leave the list, values a `redact`
 * pattern names become "[redacted]", values an `ignore` pattern names
 * leave their object or array. Also the census of `tsctl rules check`
 * (what each pattern matches in stored lists), which walks the same way
 * without changing anything.
 *
 * Copy on write: a call or value nothing matches is kept by reference in
 * the new list, so a list no rule touches comes back as itself and costs
 * one walk of the automaton (its states on the walk's stack, nothing
 * allocated per value). The shared values get new references, so the
 * result stays with the thread that owns the input, as json-c values do.
 *
 * A redact pattern that reaches a call's `args` object itself (`*.args`,
 * `*.args.**`) redacts each argument instead: a call's args stay an
 * object. An ignore pattern reaching `args` removes it (as if absent).
 */
#include "ts_rules_internal.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct walker {
    const ts_rules *r;
    ts_rules_stack stack;
    unsigned kinds; /* TS_RULES_KIND_BIT of ignore / redact (and match: census) */
    int side;
    ts_rules_applied *applied;  /* counters, or NULL */
    ts_rules_census *census;    /* census: count only, change nothing */
    bool *seen[TS_RULES_KINDS]; /* census: patterns seen in this list */
    bool *tool_seen;
    bool redactable;
    size_t redact_level; /* children of the object at this level are all redacted */
    long redact_pattern; /* ... by this pattern */
} walker;

static bool is_redacted(const struct json_object *v)
{
    return json_object_is_type(v, json_type_string) &&
           json_object_get_string_len(v) == (int)strlen(TS_RULES_REDACTED) &&
           memcmp(json_object_get_string((struct json_object *)v), TS_RULES_REDACTED,
                  strlen(TS_RULES_REDACTED)) == 0;
}

static void census_count(walker *w, ts_rules_kind kind, long p)
{
    w->census->values[kind][p]++;
    if (!w->seen[kind][p]) {
        w->seen[kind][p] = true;
        w->census->lists[kind][p]++;
    }
}

/* What happens to a value whose state is st: 'i' ignored, 'r' redacted,
 * 0 kept (and walked). Counts it. */
static char decide(walker *w, const ts_rules_state *st, const struct json_object *v)
{
    long p;

    if ((w->kinds & TS_RULES_KIND_BIT(TS_RULES_IGNORE)) &&
        (p = ts_rules_path_accepts(w->r->paths, st, TS_RULES_IGNORE, true)) >= 0) {
        if (w->census != NULL)
            census_count(w, TS_RULES_IGNORE, p);
        else if (w->applied != NULL)
            w->applied->ignored[w->side][p]++;
        return 'i';
    }
    if ((w->kinds & TS_RULES_KIND_BIT(TS_RULES_REDACT)) &&
        (p = ts_rules_path_accepts(w->r->paths, st, TS_RULES_REDACT, true)) >= 0) {
        if (is_redacted(v))
            return 0; /* already what it would become */
        if (w->census != NULL) {
            census_count(w, TS_RULES_REDACT, p);
            w->redactable = true;
        } else if (w->applied != NULL) {
            w->applied->redacted[w->side][p]++;
        }
        return 'r';
    }
    if (w->census != NULL && (w->kinds & TS_RULES_KIND_BIT(TS_RULES_MATCH)) &&
        (p = ts_rules_path_accepts(w->r->paths, st, TS_RULES_MATCH, false)) >= 0)
        census_count(w, TS_RULES_MATCH, p);
    return 0;
}

static int walk_value(walker *w, size_t level, struct json_object *v, struct json_object **out);

/* An argument under a redact pattern that names the whole args object. */
static char redact_anyway(walker *w, const struct json_object *v)
{
    long p = w->redact_pattern;

    if (is_redacted(v))
        return 0;
    if (w->census != NULL) {
        census_count(w, TS_RULES_REDACT, p);
        w->redactable = true;
    } else if (w->applied != NULL) {
        w->applied->redacted[w->side][p]++;
    }
    return 'r';
}

/* The changed form of child (NULL when it is dropped), or a new reference
 * to it unchanged; *changed says which. */
static int child_result(walker *w, size_t level, struct json_object *child, char what,
                        struct json_object **res, bool *changed)
{
    int rc;

    *changed = what != 0;
    if (what == 'i') {
        *res = NULL;
        return 0;
    }
    if (what == 'r') {
        *res = json_object_new_string(TS_RULES_REDACTED);
        return *res == NULL ? -ENOMEM : 0;
    }
    rc = walk_value(w, level + 1, child, res);
    if (rc < 0)
        return rc;
    *changed = *res != NULL;
    if (*res == NULL)
        *res = json_object_get(child);
    return 0;
}

static int walk_object(walker *w, size_t level, struct json_object *v, struct json_object **out)
{
    const ts_rules_state *st = ts_rules_stack_at(&w->stack, level);
    ts_rules_state *next = ts_rules_stack_at(&w->stack, level + 1);
    struct json_object *copy = NULL;
    size_t k = 0;
    int rc = 0;

    json_object_object_foreach(v, key, child)
    {
        struct json_object *res;
        bool changed;
        char what = 0;
        if (!ts_rules_path_step_key(w->r->paths, st, key, strlen(key), next) &&
            level != w->redact_level) {
            if (copy != NULL && json_object_object_add(copy, key, json_object_get(child)) < 0)
                rc = -ENOMEM;
            k++;
            if (rc < 0)
                break;
            continue;
        }
        what = decide(w, next, child);
        if (what == 0 && level == w->redact_level)
            what = redact_anyway(w, child);
        if (w->census != NULL) {
            if (what == 0)
                rc = walk_value(w, level + 1, child, &res);
            if (rc < 0)
                break;
            continue;
        }
        rc = child_result(w, level, child, what, &res, &changed);
        if (rc < 0)
            break;
        if (changed && copy == NULL) {
            size_t i = 0;
            copy = json_object_new_object();
            if (copy == NULL) {
                json_object_put(res);
                rc = -ENOMEM;
                break;
            }
            json_object_object_foreach(v, key2, child2)
            {
                if (i++ == k)
                    break;
                if (json_object_object_add(copy, key2, json_object_get(child2)) < 0)
                    rc = -ENOMEM;
            }
        }
        if (copy != NULL && what != 'i') { /* res may be JSON null */
            if (json_object_object_add(copy, key, res) < 0) {
                json_object_put(res);
                rc = -ENOMEM;
            }
        } else {
            json_object_put(res);
        }
        k++;
        if (rc < 0)
            break;
    }
    if (rc < 0) {
        json_object_put(copy);
        return rc;
    }
    *out = copy;
    return 0;
}

static int walk_array(walker *w, size_t level, struct json_object *v, struct json_object **out)
{
    const ts_rules_state *st = ts_rules_stack_at(&w->stack, level);
    ts_rules_state *next = ts_rules_stack_at(&w->stack, level + 1);
    struct json_object *copy = NULL;
    size_t n = json_object_array_length(v);
    int rc = 0;

    for (size_t i = 0; i < n && rc == 0; i++) {
        struct json_object *child = json_object_array_get_idx(v, i), *res;
        bool changed;
        char what;
        if (!ts_rules_path_step_index(w->r->paths, st, i, next)) {
            if (copy != NULL && json_object_array_add(copy, json_object_get(child)) < 0)
                rc = -ENOMEM;
            continue;
        }
        what = decide(w, next, child);
        if (w->census != NULL) {
            if (what == 0)
                rc = walk_value(w, level + 1, child, &res);
            continue;
        }
        rc = child_result(w, level, child, what, &res, &changed);
        if (rc < 0)
            break;
        if (changed && copy == NULL) {
            copy = json_object_new_array();
            for (size_t j = 0; copy != NULL && j < i; j++) {
                if (json_object_array_add(copy, json_object_get(json_object_array_get_idx(v, j))) <
                    0)
                    rc = -ENOMEM;
            }
            if (copy == NULL)
                rc = -ENOMEM;
        }
        if (copy != NULL && what != 'i' && rc == 0) { /* res may be JSON null */
            if (json_object_array_add(copy, res) < 0) {
                json_object_put(res);
                rc = -ENOMEM;
            }
        } else {
            json_object_put(res);
        }
    }
    if (rc < 0) {
        json_object_put(copy);
        return rc;
    }
    *out = copy;
    return 0;
}

/* The changed form of v (walked from stack[level]) into *out, or NULL when
 * nothing below it changed. */
static int walk_value(walker *w, size_t level, struct json_object *v, struct json_object **out)
{
    *out = NULL;
    if (level + 1 >= w->stack.depth)
        return 0; /* deeper than any value the readers accept */
    if (json_object_is_type(v, json_type_object))
        return walk_object(w, level, v, out);
    if (json_object_is_type(v, json_type_array))
        return walk_array(w, level, v, out);
    return 0;
}

/* A copy of call (new references to its members) with args replaced by
 * args (NULL: removed). */
static struct json_object *call_with_args(struct json_object *call, struct json_object *args)
{
    struct json_object *copy = json_object_new_object();

    if (copy == NULL)
        return NULL;
    json_object_object_foreach(call, key, val)
    {
        struct json_object *v = strcmp(key, "args") == 0 ? args : json_object_get(val);
        if (strcmp(key, "args") == 0 && args == NULL)
            continue;
        if (json_object_object_add(copy, key, v) < 0) {
            json_object_put(v);
            json_object_put(copy);
            return NULL;
        }
    }
    return copy;
}

/* The changed form of one call, or NULL (*out) when unchanged. */
static int walk_call(walker *w, struct json_object *call, struct json_object **out)
{
    struct json_object *tool = json_object_object_get(call, "tool");
    struct json_object *args = NULL, *new_args = NULL;
    ts_rules_state *st0 = ts_rules_stack_at(&w->stack, 0);
    ts_rules_state *st1 = ts_rules_stack_at(&w->stack, 1);
    int rc;

    *out = NULL;
    w->redact_level = SIZE_MAX;
    if (!ts_rules_path_start(w->r->paths, json_object_get_string(tool),
                             (size_t)json_object_get_string_len(tool), w->kinds, st0))
        return 0;
    if (!json_object_object_get_ex(call, "args", &args) || args == NULL)
        return 0;
    if (!ts_rules_path_step_key(w->r->paths, st0, "args", 4, st1))
        return 0;
    if ((w->kinds & TS_RULES_KIND_BIT(TS_RULES_IGNORE)) &&
        ts_rules_path_accepts(w->r->paths, st1, TS_RULES_IGNORE, true) >= 0) {
        long p = ts_rules_path_accepts(w->r->paths, st1, TS_RULES_IGNORE, true);
        if (w->census != NULL) {
            census_count(w, TS_RULES_IGNORE, p);
            return 0;
        }
        if (w->applied != NULL)
            w->applied->ignored[w->side][p]++;
        *out = call_with_args(call, NULL);
        return *out == NULL ? -ENOMEM : 0;
    }
    if (w->census != NULL && (w->kinds & TS_RULES_KIND_BIT(TS_RULES_MATCH))) {
        long p = ts_rules_path_accepts(w->r->paths, st1, TS_RULES_MATCH, false);
        if (p >= 0)
            census_count(w, TS_RULES_MATCH, p);
    }
    if (w->kinds & TS_RULES_KIND_BIT(TS_RULES_REDACT)) {
        w->redact_pattern = ts_rules_path_accepts(w->r->paths, st1, TS_RULES_REDACT, true);
        if (w->redact_pattern >= 0)
            w->redact_level = 1;
    }
    rc = walk_value(w, 1, args, &new_args);
    if (rc < 0 || new_args == NULL)
        return rc;
    *out = call_with_args(call, new_args);
    if (*out == NULL) {
        json_object_put(new_args);
        return -ENOMEM;
    }
    return 0;
}

/* Drop (NULL) or replace item i of the list being copied. */
static int list_put(struct json_object **copy, struct json_object *calls, size_t i,
                    struct json_object *item)
{
    if (*copy == NULL) {
        *copy = json_object_new_array();
        for (size_t j = 0; *copy != NULL && j < i; j++) {
            if (json_object_array_add(*copy, json_object_get(json_object_array_get_idx(calls, j))) <
                0)
                return -ENOMEM;
        }
        if (*copy == NULL)
            return -ENOMEM;
    }
    if (item != NULL && json_object_array_add(*copy, item) < 0) {
        json_object_put(item);
        return -ENOMEM;
    }
    return 0;
}

static int walk_list(walker *w, struct json_object *calls, bool drop_tools,
                     struct json_object **out)
{
    size_t n = json_object_array_length(calls);
    struct json_object *copy = NULL;
    int rc = ts_rules_stack_init(&w->stack, w->r, TS_RULES_WALK_DEPTH);

    for (size_t i = 0; i < n && rc == 0; i++) {
        struct json_object *call = json_object_array_get_idx(calls, i), *changed = NULL;
        struct json_object *tool = json_object_object_get(call, "tool");
        long t = drop_tools ? ts_rules_tool_index(w->r, json_object_get_string(tool),
                                                  (size_t)json_object_get_string_len(tool))
                            : -1;
        if (t >= 0) {
            if (w->census != NULL) {
                w->census->tool_calls[t]++;
                if (!w->tool_seen[t]) {
                    w->tool_seen[t] = true;
                    w->census->tool_lists[t]++;
                }
                continue;
            }
            if (w->applied != NULL)
                w->applied->tools[w->side][t]++;
            rc = list_put(&copy, calls, i, NULL);
            continue;
        }
        rc = walk_call(w, call, &changed);
        if (rc == 0 && changed != NULL)
            rc = list_put(&copy, calls, i, changed);
        else if (rc == 0 && copy != NULL)
            rc = list_put(&copy, calls, i, json_object_get(call));
    }
    ts_rules_stack_free(&w->stack);
    if (rc < 0) {
        json_object_put(copy);
        return rc;
    }
    *out = copy != NULL ? copy : json_object_get(calls);
    return 0;
}

int ts_rules_transform(const ts_rules *r, struct json_object *calls, bool drop_tools,
                       unsigned kinds, int side, ts_rules_applied *a, struct json_object **out)
{
    walker w;

    memset(&w, 0, sizeof(w));
    w.r = r;
    w.kinds = kinds;
    w.side = side;
    w.applied = a;
    return walk_list(&w, calls, drop_tools && r->n_tools > 0, out);
}

static int redact(const ts_rules *r, struct json_object *calls, struct json_object **out,
                  size_t *count, size_t *counts, ts_error *err)
{
    ts_rules_applied a;
    size_t n = 0;
    int rc;

    if (count != NULL)
        *count = 0;
    if (!ts_rules_has_redact(r)) {
        *out = json_object_get(calls);
        return 0;
    }
    memset(&a, 0, sizeof(a));
    a.redacted[1] = calloc(r->n_patterns[TS_RULES_REDACT], sizeof(size_t));
    if (a.redacted[1] == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    rc = ts_rules_transform(r, calls, false, TS_RULES_KIND_BIT(TS_RULES_REDACT), 1, &a, out);
    for (size_t i = 0; i < r->n_patterns[TS_RULES_REDACT]; i++) {
        n += a.redacted[1][i];
        if (counts != NULL)
            counts[i] += a.redacted[1][i];
    }
    free(a.redacted[1]);
    if (rc < 0)
        return ts_error_set(err, rc, TS_ERR_NO_MEMORY, "out of memory redacting calls");
    if (count != NULL)
        *count = n;
    return 0;
}

int ts_rules_redact(const ts_rules *r, struct json_object *calls, struct json_object **out,
                    size_t *count, ts_error *err)
{
    return redact(r, calls, out, count, NULL, err);
}

int ts_rules_redact_counted(const ts_rules *r, struct json_object *calls, struct json_object **out,
                            size_t *counts, ts_error *err)
{
    return redact(r, calls, out, NULL, counts, err);
}

int ts_rules_strip(const ts_rules *r, struct json_object *calls, struct json_object **out,
                   ts_error *err)
{
    unsigned kinds = TS_RULES_KIND_BIT(TS_RULES_IGNORE) | TS_RULES_KIND_BIT(TS_RULES_REDACT);

    if (ts_rules_empty(r)) {
        *out = json_object_get(calls);
        return 0;
    }
    if (ts_rules_transform(r, calls, true, kinds, 1, NULL, out) < 0)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory applying the rules");
    return 0;
}

/* ---------------------------------------------------------------------------
 * Census
 * ------------------------------------------------------------------------- */

int ts_rules_census_init(const ts_rules *r, ts_rules_census *c)
{
    memset(c, 0, sizeof(*c));
    for (int k = 0; k < TS_RULES_KINDS; k++) {
        size_t n = ts_rules_pattern_count(r, k);
        c->values[k] = calloc(n + 1, sizeof(size_t));
        c->lists[k] = calloc(n + 1, sizeof(size_t));
        if (c->values[k] == NULL || c->lists[k] == NULL)
            return -ENOMEM;
    }
    c->tool_calls = calloc(ts_rules_tool_count(r) + 1, sizeof(size_t));
    c->tool_lists = calloc(ts_rules_tool_count(r) + 1, sizeof(size_t));
    return c->tool_calls == NULL || c->tool_lists == NULL ? -ENOMEM : 0;
}

int ts_rules_census_add(const ts_rules *r, const struct json_object *calls, ts_rules_census *c,
                        bool *redactable)
{
    struct json_object *same = NULL;
    walker w;
    int rc = 0;

    memset(&w, 0, sizeof(w));
    w.r = r;
    w.kinds = TS_RULES_KIND_BIT(TS_RULES_IGNORE) | TS_RULES_KIND_BIT(TS_RULES_REDACT) |
              TS_RULES_KIND_BIT(TS_RULES_MATCH);
    w.census = c;
    for (int k = 0; k < TS_RULES_KINDS && rc == 0; k++) {
        w.seen[k] = calloc(ts_rules_pattern_count(r, k) + 1, sizeof(bool));
        if (w.seen[k] == NULL)
            rc = -ENOMEM;
    }
    w.tool_seen = calloc(ts_rules_tool_count(r) + 1, sizeof(bool));
    if (w.tool_seen == NULL)
        rc = -ENOMEM;
    if (rc == 0)
        rc = walk_list(&w, (struct json_object *)calls, true, &same);
    json_object_put(same);
    for (int k = 0; k < TS_RULES_KINDS; k++)
        free(w.seen[k]);
    free(w.tool_seen);
    if (rc == 0) {
        c->lists_seen++;
        if (redactable != NULL)
            *redactable = w.redactable;
    }
    return rc;
}

void ts_rules_census_free(ts_rules_census *c)
{
    for (int k = 0; k < TS_RULES_KINDS; k++) {
        free(c->values[k]);
        free(c->lists[k]);
    }
    free(c->tool_calls);
    free(c->tool_lists);
    memset(c, 0, sizeof(*c));
}
