/*
 * ts_rules_eval — one comparison under rules (ts_rules_evaluate): tools,
 * redact and ignore on both lists (ts_rules_apply), the order mode
 * (ts_rules_order), then ts_score with the matchers' comparison
 * (ts_rules_match); and what the rules did, as JSON for a check's result
 * and as the drift report's note lines.
 */
#include "ts_rules_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void applied_init(ts_rules_applied *a, const struct json_object *expected,
                         const struct json_object *actual)
{
    memset(a, 0, sizeof(*a));
    a->expected = json_object_get((struct json_object *)expected);
    a->actual = json_object_get((struct json_object *)actual);
}

static int counters(ts_rules_applied *a, const ts_rules *r)
{
    for (int side = 0; side < 2; side++) {
        a->ignored[side] = calloc(r->n_patterns[TS_RULES_IGNORE] + 1, sizeof(size_t));
        a->redacted[side] = calloc(r->n_patterns[TS_RULES_REDACT] + 1, sizeof(size_t));
        a->tools[side] = calloc(r->n_tools + 1, sizeof(size_t));
        if (a->ignored[side] == NULL || a->redacted[side] == NULL || a->tools[side] == NULL)
            return -ENOMEM;
    }
    a->match_passed = calloc(r->n_patterns[TS_RULES_MATCH] + 1, sizeof(size_t));
    a->match_failed = calloc(r->n_patterns[TS_RULES_MATCH] + 1, sizeof(size_t));
    return a->match_passed == NULL || a->match_failed == NULL ? -ENOMEM : 0;
}

static bool relaxes(const ts_rules *r)
{
    for (size_t i = 0; i < r->n_patterns[TS_RULES_MATCH]; i++) {
        if (r->matchers[i].kind != TS_MATCHER_NONE)
            return true;
    }
    return false;
}

/* Replace a list of a by list (a reference taken over). */
static void replace(struct json_object **slot, struct json_object *list)
{
    json_object_put(*slot);
    *slot = list;
}

static int prepare(const ts_rules *r, bool strict, ts_rules_applied *a)
{
    unsigned kinds = TS_RULES_KIND_BIT(TS_RULES_IGNORE) | TS_RULES_KIND_BIT(TS_RULES_REDACT);
    struct json_object *e = NULL, *t = NULL;
    int rc;

    rc = counters(a, r);
    if (rc == 0)
        rc = ts_rules_transform(r, a->expected, true, kinds, 0, a, &e);
    if (rc == 0)
        rc = ts_rules_transform(r, a->actual, true, kinds, 1, a, &t);
    if (rc == 0) {
        replace(&a->expected, e);
        replace(&a->actual, t);
        e = t = NULL;
    }
    if (rc == 0 && relaxes(r)) {
        rc = ts_rules_work_init(a);
        a->compare.equal = ts_rules_args_equal;
        a->compare.ctx = a->work;
        a->has_compare = rc == 0;
    }
    if (rc == 0)
        rc = ts_rules_align(r, a->expected, a->actual, strict, a, &e, &t);
    if (rc == 0) {
        replace(&a->expected, e);
        replace(&a->actual, t);
    }
    return rc;
}

int ts_rules_evaluate(const ts_rules *r, const struct json_object *expected,
                      const struct json_object *actual, const ts_score_options *opt, bool validated,
                      ts_score_result *out, ts_rules_applied *applied, ts_error *err)
{
    ts_score_options defaults;
    int rc;

    applied_init(applied, expected, actual);
    if (ts_rules_empty(r))
        return ts_evaluate_compare(expected, actual, opt, NULL, validated, out, err);
    if (opt == NULL) {
        ts_score_options_default(&defaults);
        opt = &defaults;
    }
    /* The same errors, in the same order, as without rules. */
    rc = ts_score_check_min(opt->min_score, err);
    if (rc == 0 && !validated)
        rc = ts_calls_validate(expected, "expected", err);
    if (rc == 0 && !validated)
        rc = ts_calls_validate(actual, "actual", err);
    if (rc < 0)
        return rc;
    applied->rules = ts_rules_ref((ts_rules *)r);
    rc = prepare(r, opt->strict, applied);
    if (rc < 0)
        return ts_error_set(err, rc, TS_ERR_NO_MEMORY, "out of memory applying rules");
    if (applied->work != NULL)
        applied->work->counting = true;
    rc = ts_evaluate_compare(applied->expected, applied->actual, opt,
                             applied->has_compare ? &applied->compare : NULL, true, out, err);
    if (applied->work != NULL)
        applied->work->counting = false;
    return rc;
}

int ts_rules_applied_none(const ts_rules *r, ts_rules_applied *a)
{
    applied_init(a, NULL, NULL);
    if (ts_rules_empty(r))
        return 0;
    a->rules = ts_rules_ref((ts_rules *)r);
    return counters(a, r);
}

void ts_rules_applied_add_redacted(ts_rules_applied *a, const size_t *counts)
{
    if (a == NULL || a->rules == NULL || counts == NULL || a->redacted[1] == NULL)
        return;
    for (size_t i = 0; i < a->rules->n_patterns[TS_RULES_REDACT]; i++)
        a->redacted[1][i] += counts[i];
}

void ts_rules_applied_free(ts_rules_applied *a)
{
    if (a == NULL)
        return;
    ts_rules_work_free(a);
    for (int side = 0; side < 2; side++) {
        free(a->ignored[side]);
        free(a->redacted[side]);
        free(a->tools[side]);
    }
    free(a->match_passed);
    free(a->match_failed);
    json_object_put(a->expected);
    json_object_put(a->actual);
    ts_rules_unref(a->rules);
    memset(a, 0, sizeof(*a));
}

const ts_value_compare *ts_rules_applied_compare(const ts_rules_applied *a)
{
    return a != NULL && a->has_compare ? &a->compare : NULL;
}

/* ---------------------------------------------------------------------------
 * What applied, as JSON
 * ------------------------------------------------------------------------- */

static struct json_object *counted(const char *name_key, const char *name, size_t e, size_t t)
{
    struct json_object *o = json_object_new_object();

    if (o == NULL)
        return NULL;
    if (json_object_object_add(o, name_key, json_object_new_string(name)) < 0 ||
        json_object_object_add(o, "expected", json_object_new_int64((int64_t)e)) < 0 ||
        json_object_object_add(o, "actual", json_object_new_int64((int64_t)t)) < 0) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

static int add_list(struct json_object *o, const char *key, struct json_object *list)
{
    if (list == NULL || json_object_object_add(o, key, list) < 0) {
        json_object_put(list);
        return -ENOMEM;
    }
    return 0;
}

static struct json_object *side_list(const ts_rules_applied *a, int kind, size_t *const *counts)
{
    struct json_object *list = json_object_new_array();
    const ts_rules *r = a->rules;

    for (size_t i = 0; list != NULL && i < r->n_patterns[kind]; i++) {
        struct json_object *item;
        if (counts[0][i] == 0 && counts[1][i] == 0)
            continue; /* applied to nothing here */
        item = counted("pattern", r->patterns[kind][i], counts[0][i], counts[1][i]);
        if (item == NULL || json_object_array_add(list, item) < 0) {
            json_object_put(item);
            json_object_put(list);
            return NULL;
        }
    }
    return list;
}

static struct json_object *tool_list(const ts_rules_applied *a)
{
    struct json_object *list = json_object_new_array();
    const ts_rules *r = a->rules;

    for (size_t i = 0; list != NULL && i < r->n_tools; i++) {
        struct json_object *item;
        if (a->tools[0][i] == 0 && a->tools[1][i] == 0)
            continue;
        item = counted("tool", r->tools[i], a->tools[0][i], a->tools[1][i]);
        if (item == NULL || json_object_array_add(list, item) < 0) {
            json_object_put(item);
            json_object_put(list);
            return NULL;
        }
    }
    return list;
}

static struct json_object *match_list(const ts_rules_applied *a)
{
    struct json_object *list = json_object_new_array();
    const ts_rules *r = a->rules;

    for (size_t i = 0; list != NULL && i < r->n_patterns[TS_RULES_MATCH]; i++) {
        struct json_object *item;
        if (a->match_passed[i] == 0 && a->match_failed[i] == 0)
            continue;
        item = json_object_new_object();
        if (item == NULL ||
            json_object_object_add(item, "pattern",
                                   json_object_new_string(r->patterns[TS_RULES_MATCH][i])) < 0 ||
            json_object_object_add(item, "matcher",
                                   json_object_new_string(ts_rules_matcher_name(r, i))) < 0 ||
            json_object_object_add(item, "passed",
                                   json_object_new_int64((int64_t)a->match_passed[i])) < 0 ||
            json_object_object_add(item, "failed",
                                   json_object_new_int64((int64_t)a->match_failed[i])) < 0 ||
            json_object_array_add(list, item) < 0) {
            json_object_put(item);
            json_object_put(list);
            return NULL;
        }
    }
    return list;
}

struct json_object *ts_rules_applied_to_json(const ts_rules_applied *a)
{
    struct json_object *o;
    int rc;

    if (a == NULL || a->rules == NULL)
        return NULL;
    o = json_object_new_object();
    if (o == NULL)
        return NULL;
    rc = add_list(o, "order", json_object_new_string(ts_rules_order_name(a->rules->order)));
    if (rc == 0)
        rc = add_list(o, "ignored", side_list(a, TS_RULES_IGNORE, a->ignored));
    if (rc == 0)
        rc = add_list(o, "redacted", side_list(a, TS_RULES_REDACT, a->redacted));
    if (rc == 0)
        rc = add_list(o, "tools", tool_list(a));
    if (rc == 0)
        rc = add_list(o, "matched", match_list(a));
    if (rc == 0)
        rc = add_list(o, "dropped_expected", json_object_new_int64((int64_t)a->dropped_expected));
    if (rc == 0)
        rc = add_list(o, "dropped_actual", json_object_new_int64((int64_t)a->dropped_actual));
    if (rc == 0)
        rc = add_list(o, "moved", json_object_new_int64((int64_t)a->moved));
    if (rc < 0) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

/* ---------------------------------------------------------------------------
 * The report's notes
 * ------------------------------------------------------------------------- */

static int note_counted(ts_buf *out, const char *verb, size_t e, size_t t, const char *unit,
                        const char *where, const char *name)
{
    size_t n = e > t ? e : t;
    int rc;

    if (n == 0)
        return 0;
    rc = ts_buf_appendf(out, "%s by rules: %zu %s%s %s %s", verb, n, unit, n == 1 ? "" : "s", where,
                        name);
    if (rc == 0 && e != t)
        rc = ts_buf_appendf(out, " (%zu in the baseline, %zu observed)", e, t);
    return rc < 0 ? rc : ts_buf_appendc(out, '\n');
}

static int note_order(ts_buf *out, const ts_rules_applied *a)
{
    const char *mode = ts_rules_order_name(a->rules->order);

    switch (a->rules->order) {
    case TS_RULES_ORDER_STRICT:
        return 0;
    case TS_RULES_ORDER_SUPERSET:
        return ts_buf_appendf(out, "order by rules: %s (%zu extra call%s dropped)\n", mode,
                              a->dropped_actual, a->dropped_actual == 1 ? "" : "s");
    case TS_RULES_ORDER_SUBSET:
        return ts_buf_appendf(out, "order by rules: %s (%zu missing call%s dropped)\n", mode,
                              a->dropped_expected, a->dropped_expected == 1 ? "" : "s");
    case TS_RULES_ORDER_UNORDERED:
        break;
    }
    if (a->moved == 0)
        return ts_buf_appendf(out, "order by rules: %s\n", mode);
    return ts_buf_appendf(out, "order by rules: %s (%zu call%s compared out of order)\n", mode,
                          a->moved, a->moved == 1 ? "" : "s");
}

int ts_rules_applied_notes(const ts_rules_applied *a, ts_buf *out)
{
    const ts_rules *r;
    int rc = 0;

    if (a == NULL || a->rules == NULL)
        return 0;
    r = a->rules;
    for (size_t i = 0; rc == 0 && i < r->n_tools; i++)
        rc =
            note_counted(out, "ignored", a->tools[0][i], a->tools[1][i], "call", "of", r->tools[i]);
    for (size_t i = 0; rc == 0 && i < r->n_patterns[TS_RULES_IGNORE]; i++)
        rc = note_counted(out, "ignored", a->ignored[0][i], a->ignored[1][i], "value", "at",
                          r->patterns[TS_RULES_IGNORE][i]);
    for (size_t i = 0; rc == 0 && i < r->n_patterns[TS_RULES_REDACT]; i++)
        rc = note_counted(out, "redacted", a->redacted[0][i], a->redacted[1][i], "value", "at",
                          r->patterns[TS_RULES_REDACT][i]);
    for (size_t i = 0; rc == 0 && i < r->n_patterns[TS_RULES_MATCH]; i++) {
        size_t pass = a->match_passed[i], fail = a->match_failed[i];
        if (pass + fail == 0)
            continue;
        rc = ts_buf_appendf(out, "relaxed by rules: %zu value%s at %s (%s)", pass + fail,
                            pass + fail == 1 ? "" : "s", r->patterns[TS_RULES_MATCH][i],
                            ts_rules_matcher_name(r, i));
        if (rc == 0 && fail > 0)
            rc = ts_buf_appendf(out, ", %zu not matching", fail);
        if (rc == 0)
            rc = ts_buf_appendc(out, '\n');
    }
    if (rc == 0)
        rc = note_order(out, a);
    return rc;
}

int ts_rules_applied_note_lines(const ts_rules_applied *a, char ***lines, size_t *n)
{
    ts_buf b;
    size_t count = 0, k = 0, len;
    char **out;
    char *text;
    int rc;

    *lines = NULL;
    *n = 0;
    ts_buf_init(&b, 1u << 20);
    rc = ts_rules_applied_notes(a, &b);
    if (rc < 0 || b.len == 0) {
        ts_buf_free(&b);
        return rc < 0 ? rc : 0;
    }
    for (size_t i = 0; i < b.len; i++)
        count += b.data[i] == '\n';
    out = malloc(count * sizeof(char *) + b.len);
    if (out == NULL) {
        ts_buf_free(&b);
        return -ENOMEM;
    }
    text = (char *)(out + count);
    len = b.len;
    memcpy(text, b.data, len);
    ts_buf_free(&b);
    out[k++] = text;
    for (size_t i = 0; i < len; i++) {
        if (text[i] != '\n')
            continue;
        text[i] = '\0';
        if (k < count)
            out[k++] = text + i + 1;
    }
    *lines = out;
    *n = count;
    return 0;
}
