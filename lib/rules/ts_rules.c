/*
 * ts_rules — the rules object: validation of every key, compilation of its
 * patterns and regular expressions, merging, reference counting, and the
 * accessors (ts_rules.h). Errors found here say what is wrong and where in
 * the object (ts_rules_where); ts_rules_parse.c turns that into a line and
 * column of the text.
 */
#include "ts_rules_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"

static const char known_keys[] = "ignore, redact, order, match, tools";
static const char known_matchers[] = "regex, approx, set, type";
static const char *const order_names[] = {"strict", "unordered", "superset", "subset"};

/* ---------------------------------------------------------------------------
 * Errors with a place
 * ------------------------------------------------------------------------- */

static void where_key(ts_rules_where *w, int level, const char *key)
{
    if (level < 4) {
        w->at[level].key = key;
        w->at[level].index = 0;
        if (w->n < level + 1)
            w->n = level + 1;
    }
}

static void where_index(ts_rules_where *w, int level, size_t index)
{
    if (level < 4) {
        w->at[level].key = NULL;
        w->at[level].index = index;
        if (w->n < level + 1)
            w->n = level + 1;
    }
}

static int invalid(ts_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int invalid(ts_error *err, const char *fmt, ...)
{
    char text[TS_ERROR_MESSAGE_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    return ts_error_set(err, -EINVAL, TS_ERR_INVALID_RULES, "%s", text);
}

/* ---------------------------------------------------------------------------
 * Building
 * ------------------------------------------------------------------------- */

static ts_rules *rules_new(void)
{
    ts_rules *r = calloc(1, sizeof(*r));

    if (r == NULL)
        return NULL;
    atomic_init(&r->refs, 1);
    r->paths = ts_rules_path_set_new();
    if (r->paths == NULL) {
        free(r);
        return NULL;
    }
    return r;
}

static void rules_free(ts_rules *r)
{
    for (size_t i = 0; r->matchers != NULL && i < r->n_patterns[TS_RULES_MATCH]; i++) {
        if (r->matchers[i].compiled)
            regfree(&r->matchers[i].re);
    }
    free(r->matchers);
    for (int k = 0; k < TS_RULES_KINDS; k++)
        free(r->patterns[k]);
    free(r->tools);
    free(r->tools_by_name);
    ts_rules_path_set_free(r->paths);
    json_object_put(r->object);
    free(r);
}

/* Add pattern text (the string v) of kind; where is already set. */
static int add_pattern(ts_rules *r, const char *label, ts_rules_kind kind,
                       const struct json_object *v, ts_error *err)
{
    const char *text = json_object_get_string((struct json_object *)v);
    size_t len = (size_t)json_object_get_string_len(v);
    const char **list;
    int rc = ts_rules_path_set_add(r->paths, text, len, kind, err);

    if (rc < 0)
        return ts_error_prefix(err, rc, "%s", label);
    list = realloc(r->patterns[kind], (r->n_patterns[kind] + 1) * sizeof(*list));
    if (list == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    r->patterns[kind] = list;
    list[r->n_patterns[kind]++] = text;
    return 0;
}

static int build_list(ts_rules *r, const char *key, ts_rules_kind kind, const struct json_object *v,
                      ts_rules_where *w, ts_error *err)
{
    size_t n;

    if (!json_object_is_type(v, json_type_array))
        return invalid(err, "'%s' must be a list of path patterns, got %s", key,
                       ts_json_kind_word(v));
    n = json_object_array_length(v);
    for (size_t i = 0; i < n; i++) {
        const struct json_object *item = json_object_array_get_idx(v, i);
        char label[64];
        int rc;
        where_index(w, 1, i);
        if (!json_object_is_type(item, json_type_string))
            return invalid(err, "%s[%zu] must be a string (a path pattern), got %s", key, i,
                           ts_json_kind_word(item));
        snprintf(label, sizeof(label), "%s[%zu]", key, i);
        rc = add_pattern(r, label, kind, item, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int build_order(ts_rules *r, const struct json_object *v, ts_error *err)
{
    if (json_object_is_type(v, json_type_string)) {
        const char *s = json_object_get_string((struct json_object *)v);
        for (size_t i = 0; i < 4; i++) {
            if (strcmp(s, order_names[i]) == 0 &&
                strlen(s) == (size_t)json_object_get_string_len(v)) {
                r->order = (ts_rules_order)i;
                r->order_given = true;
                return 0;
            }
        }
        return invalid(
            err, "'order' must be one of strict, unordered, superset, subset (got '%.80s')", s);
    }
    return invalid(err, "'order' must be one of strict, unordered, superset, subset (got %s)",
                   ts_json_kind_word(v));
}

static int compile_regex(ts_matcher *m, const char *pattern, const struct json_object *v,
                         ts_error *err)
{
    const char *text;
    int rc;

    if (!json_object_is_type(v, json_type_string))
        return invalid(err,
                       "match[\"%.200s\"].regex must be a string (a POSIX extended regular "
                       "expression), got %s",
                       pattern, ts_json_kind_word(v));
    text = json_object_get_string((struct json_object *)v);
    if (strlen(text) != (size_t)json_object_get_string_len(v))
        return invalid(err, "match[\"%.200s\"].regex holds a NUL byte", pattern);
    rc = regcomp(&m->re, text, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char why[256];
        regerror(rc, &m->re, why, sizeof(why));
        if (rc == REG_ESPACE)
            return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory compiling a regex");
        return invalid(err, "match[\"%.200s\"].regex: invalid regular expression '%.200s': %s",
                       pattern, text, why);
    }
    m->compiled = true;
    m->kind = TS_MATCHER_REGEX;
    return 0;
}

static int build_matcher_value(ts_matcher *m, const char *pattern, const char *key,
                               const struct json_object *v, ts_error *err)
{
    if (strcmp(key, "regex") == 0)
        return compile_regex(m, pattern, v, err);
    if (strcmp(key, "approx") == 0) {
        double t;
        if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
            return invalid(err,
                           "match[\"%.200s\"].approx must be a number >= 0 (the absolute "
                           "tolerance), got %s",
                           pattern, ts_json_kind_word(v));
        t = json_object_get_double(v);
        if (!isfinite(t) || t < 0)
            return invalid(err,
                           "match[\"%.200s\"].approx must be a number >= 0 (the absolute "
                           "tolerance), got %g",
                           pattern, t);
        m->kind = TS_MATCHER_APPROX;
        m->tolerance = t;
        return 0;
    }
    if (strcmp(key, "set") == 0 || strcmp(key, "type") == 0) {
        if (!json_object_is_type(v, json_type_boolean))
            return invalid(err, "match[\"%.200s\"].%s must be true or false, got %s", pattern, key,
                           ts_json_kind_word(v));
        m->kind = !json_object_get_boolean(v) ? TS_MATCHER_NONE
                  : key[0] == 's'             ? TS_MATCHER_SET
                                              : TS_MATCHER_TYPE;
        return 0;
    }
    return invalid(err, "unknown key '%.200s' in match[\"%.200s\"] (known: %s)", key, pattern,
                   known_matchers);
}

static int build_matcher(ts_rules *r, const char *pattern, const struct json_object *v,
                         ts_rules_where *w, ts_error *err)
{
    ts_matcher *m = &r->matchers[r->n_patterns[TS_RULES_MATCH] - 1];
    size_t given = 0;

    if (!json_object_is_type(v, json_type_object))
        return invalid(err, "match[\"%.200s\"] must be an object with one matcher (%s), got %s",
                       pattern, known_matchers, ts_json_kind_word(v));
    json_object_object_foreach((struct json_object *)v, key, val)
    {
        int rc;
        where_key(w, 2, key);
        if (given > 0 && (strcmp(key, "regex") == 0 || strcmp(key, "approx") == 0 ||
                          strcmp(key, "set") == 0 || strcmp(key, "type") == 0))
            return invalid(err,
                           "match[\"%.200s\"] gives more than one matcher ('%s' too); give "
                           "one of %s",
                           pattern, key, known_matchers);
        rc = build_matcher_value(m, pattern, key, val, err);
        if (rc < 0)
            return rc;
        given++;
    }
    if (given == 0)
        return invalid(err, "match[\"%.200s\"] needs a matcher: one of %s", pattern,
                       known_matchers);
    return 0;
}

static int build_match(ts_rules *r, const struct json_object *v, ts_rules_where *w, ts_error *err)
{
    size_t n;

    if (!json_object_is_type(v, json_type_object))
        return invalid(err, "'match' must be an object mapping path patterns to matchers, got %s",
                       ts_json_kind_word(v));
    n = (size_t)json_object_object_length(v);
    r->matchers = calloc(n ? n : 1, sizeof(*r->matchers));
    if (r->matchers == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    json_object_object_foreach((struct json_object *)v, key, val)
    {
        struct json_object *name = json_object_new_string(key);
        int rc;
        where_key(w, 1, key);
        if (name == NULL)
            return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
        rc = add_pattern(r, "match", TS_RULES_MATCH, name, err);
        json_object_put(name);
        if (rc < 0)
            return rc;
        r->patterns[TS_RULES_MATCH][r->n_patterns[TS_RULES_MATCH] - 1] = key;
        rc = build_matcher(r, key, val, w, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int build_tool(ts_rules *r, const char *name, const struct json_object *v, ts_rules_where *w,
                      ts_error *err)
{
    if (name[0] == '\0')
        return invalid(err, "tools: a tool name is empty");
    if (!json_object_is_type(v, json_type_object))
        return invalid(err, "tools[\"%.200s\"] must be an object ({\"ignore\": true}), got %s",
                       name, ts_json_kind_word(v));
    json_object_object_foreach((struct json_object *)v, key, val)
    {
        where_key(w, 2, key);
        if (strcmp(key, "ignore") != 0)
            return invalid(err, "unknown key '%.200s' in tools[\"%.200s\"] (known: ignore)", key,
                           name);
        if (!json_object_is_type(val, json_type_boolean))
            return invalid(err, "tools[\"%.200s\"].ignore must be true or false, got %s", name,
                           ts_json_kind_word(val));
        if (json_object_get_boolean(val)) {
            const char **tools = realloc(r->tools, (r->n_tools + 1) * sizeof(*tools));
            if (tools == NULL)
                return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
            r->tools = tools;
            tools[r->n_tools++] = name;
        }
    }
    return 0;
}

static int build_tools(ts_rules *r, const struct json_object *v, ts_rules_where *w, ts_error *err)
{
    if (!json_object_is_type(v, json_type_object))
        return invalid(err,
                       "'tools' must be an object mapping tool names to {\"ignore\": true}, "
                       "got %s",
                       ts_json_kind_word(v));
    json_object_object_foreach((struct json_object *)v, key, val)
    {
        int rc;
        where_key(w, 1, key);
        rc = build_tool(r, key, val, w, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int finish(ts_rules *r, ts_error *err)
{
    bool relaxes = false;

    r->tools_by_name = malloc((r->n_tools ? r->n_tools : 1) * sizeof(size_t));
    if (r->tools_by_name == NULL || ts_rules_path_compile(r->paths) < 0)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < r->n_tools; i++)
        r->tools_by_name[i] = i;
    /* Insertion sort: qsort has no context argument, and lists are short. */
    for (size_t i = 1; i < r->n_tools; i++) {
        size_t v = r->tools_by_name[i], j = i;
        while (j > 0 && strcmp(r->tools[r->tools_by_name[j - 1]], r->tools[v]) > 0) {
            r->tools_by_name[j] = r->tools_by_name[j - 1];
            j--;
        }
        r->tools_by_name[j] = v;
    }
    for (size_t i = 0; i < r->n_patterns[TS_RULES_MATCH]; i++)
        relaxes |= r->matchers[i].kind != TS_MATCHER_NONE;
    r->empty = r->n_patterns[TS_RULES_IGNORE] == 0 && r->n_patterns[TS_RULES_REDACT] == 0 &&
               !relaxes && r->n_tools == 0 && r->order == TS_RULES_ORDER_STRICT;
    return 0;
}

static int build_key(ts_rules *r, const char *key, const struct json_object *val, ts_rules_where *w,
                     ts_error *err)
{
    if (strcmp(key, "ignore") == 0)
        return build_list(r, "ignore", TS_RULES_IGNORE, val, w, err);
    if (strcmp(key, "redact") == 0)
        return build_list(r, "redact", TS_RULES_REDACT, val, w, err);
    if (strcmp(key, "order") == 0)
        return build_order(r, val, err);
    if (strcmp(key, "match") == 0)
        return build_match(r, val, w, err);
    if (strcmp(key, "tools") == 0)
        return build_tools(r, val, w, err);
    return invalid(err, "unknown key '%.200s' (known: %s)", key, known_keys);
}

int ts_rules_build(const struct json_object *obj, ts_rules **out, ts_rules_where *where,
                   ts_error *err)
{
    ts_rules_where unused;
    ts_rules *r;
    int rc = 0;

    if (where == NULL)
        where = &unused;
    memset(where, 0, sizeof(*where));
    if (!json_object_is_type(obj, json_type_object))
        return invalid(err, "the rules must be a JSON object, got %s", ts_json_kind_word(obj));
    r = rules_new();
    if (r != NULL)
        r->object = ts_json_copy(obj);
    if (r == NULL || r->object == NULL) {
        if (r != NULL)
            rules_free(r);
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    /* Walk the copy: the borrowed pattern strings live as long as r. */
    json_object_object_foreach(r->object, key, val)
    {
        where->n = 0;
        where_key(where, 0, key);
        rc = build_key(r, key, val, where, err);
        if (rc < 0)
            break;
    }
    if (rc == 0)
        rc = finish(r, err);
    if (rc < 0) {
        where->holder = json_object_get(r->object); /* where's keys point into it */
        rules_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

int ts_rules_from_json(const struct json_object *obj, const char *source, ts_rules **out,
                       ts_error *err)
{
    ts_rules_where where;
    int rc = ts_rules_build(obj, out, &where, err);

    json_object_put(where.holder);
    if (rc < 0 && source != NULL)
        ts_error_prefix(err, rc, "%s", source);
    return rc;
}

/* ---------------------------------------------------------------------------
 * Merging
 * ------------------------------------------------------------------------- */

static int add_copy(struct json_object *to, const char *key, const struct json_object *v)
{
    struct json_object *c = ts_json_copy(v);

    if (c == NULL && v != NULL)
        return -ENOMEM;
    if (json_object_object_add(to, key, c) < 0) {
        json_object_put(c);
        return -ENOMEM;
    }
    return 0;
}

static int append_copies(struct json_object *to, const struct json_object *from)
{
    size_t n = json_object_array_length(from);

    for (size_t i = 0; i < n; i++) {
        struct json_object *c = ts_json_copy(json_object_array_get_idx(from, i));
        if (c == NULL || json_object_array_add(to, c) < 0) {
            json_object_put(c);
            return -ENOMEM;
        }
    }
    return 0;
}

/* Entries of from replace (or join) to's; for tools, key by key within a
 * tool (depth 1). */
static int merge_entries(struct json_object *to, const struct json_object *from, bool by_key)
{
    json_object_object_foreach((struct json_object *)from, key, val)
    {
        struct json_object *have;
        int rc;
        if (by_key && json_object_object_get_ex(to, key, &have))
            rc = merge_entries(have, val, false);
        else
            rc = add_copy(to, key, val);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int merge_objects(struct json_object *merged, const struct json_object *over)
{
    json_object_object_foreach((struct json_object *)over, key, val)
    {
        struct json_object *have;
        int rc;
        if (!json_object_object_get_ex(merged, key, &have))
            rc = add_copy(merged, key, val);
        else if (strcmp(key, "ignore") == 0 || strcmp(key, "redact") == 0)
            rc = append_copies(have, val);
        else if (strcmp(key, "match") == 0)
            rc = merge_entries(have, val, false);
        else if (strcmp(key, "tools") == 0)
            rc = merge_entries(have, val, true);
        else
            rc = add_copy(merged, key, val); /* order: replaced */
        if (rc < 0)
            return rc;
    }
    return 0;
}

int ts_rules_merge(ts_rules *base, ts_rules *over, ts_rules **out, ts_error *err)
{
    struct json_object *merged;
    int rc;

    if (base == NULL || json_object_object_length(base->object) == 0) {
        *out = ts_rules_ref(over);
        return 0;
    }
    if (over == NULL || json_object_object_length(over->object) == 0) {
        *out = ts_rules_ref(base);
        return 0;
    }
    merged = ts_json_copy(base->object);
    rc = merged == NULL ? -ENOMEM : merge_objects(merged, over->object);
    if (rc < 0) {
        json_object_put(merged);
        return ts_error_set(err, rc, TS_ERR_NO_MEMORY, "out of memory merging rules");
    }
    rc = ts_rules_from_json(merged, "merged rules", out, err);
    json_object_put(merged);
    return rc;
}

/* ---------------------------------------------------------------------------
 * References and accessors
 * ------------------------------------------------------------------------- */

ts_rules *ts_rules_ref(ts_rules *r)
{
    if (r != NULL)
        atomic_fetch_add_explicit(&r->refs, 1, memory_order_relaxed);
    return r;
}

void ts_rules_unref(ts_rules *r)
{
    if (r != NULL && atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel) == 1)
        rules_free(r);
}

bool ts_rules_empty(const ts_rules *r)
{
    return r == NULL || r->empty;
}

const struct json_object *ts_rules_object(const ts_rules *r)
{
    return r != NULL ? r->object : NULL;
}

ts_rules_order ts_rules_order_of(const ts_rules *r)
{
    return r != NULL ? r->order : TS_RULES_ORDER_STRICT;
}

const char *ts_rules_order_name(ts_rules_order order)
{
    return (unsigned)order < 4 ? order_names[order] : "strict";
}

bool ts_rules_drops_tools(const ts_rules *r)
{
    return r != NULL && r->n_tools > 0;
}

bool ts_rules_has_redact(const ts_rules *r)
{
    return r != NULL && r->n_patterns[TS_RULES_REDACT] > 0;
}

size_t ts_rules_pattern_count(const ts_rules *r, int kind)
{
    return r != NULL && kind >= 0 && kind < TS_RULES_KINDS ? r->n_patterns[kind] : 0;
}

const char *ts_rules_pattern(const ts_rules *r, int kind, size_t i)
{
    return i < ts_rules_pattern_count(r, kind) ? r->patterns[kind][i] : NULL;
}

const char *ts_rules_matcher_name(const ts_rules *r, size_t i)
{
    static const char *const names[] = {"none", "regex", "approx", "set", "type"};

    if (i >= ts_rules_pattern_count(r, TS_RULES_MATCH))
        return NULL;
    return names[r->matchers[i].kind];
}

size_t ts_rules_tool_count(const ts_rules *r)
{
    return r != NULL ? r->n_tools : 0;
}

const char *ts_rules_tool(const ts_rules *r, size_t i)
{
    return i < ts_rules_tool_count(r) ? r->tools[i] : NULL;
}

bool ts_rules_tool_ignored(const ts_rules *r, const char *tool, size_t len)
{
    return ts_rules_tool_count(r) > 0 && ts_rules_tool_index(r, tool, len) >= 0;
}

long ts_rules_tool_index(const ts_rules *r, const char *tool, size_t len)
{
    size_t lo = 0, hi = r->n_tools;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *name = r->tools[r->tools_by_name[mid]];
        size_t name_len = strlen(name);
        int c = memcmp(name, tool, name_len < len ? name_len : len);
        if (c == 0)
            c = name_len < len ? -1 : name_len > len ? 1 : 0;
        if (c == 0)
            return (long)r->tools_by_name[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

int ts_rules_config_path(const char *root, char *out, size_t outsz)
{
    size_t len = strlen(root);
    int n;

    while (len > 1 && root[len - 1] == '/')
        len--;
    while (len > 0 && root[len - 1] != '/')
        len--; /* the root's last component */
    while (len > 1 && root[len - 1] == '/')
        len--;
    if (len == 0)
        n = snprintf(out, outsz, "%s", TS_RULES_CONFIG_NAME); /* a relative root "snaps" */
    else if (len == 1 && root[0] == '/')
        n = snprintf(out, outsz, "/%s", TS_RULES_CONFIG_NAME);
    else
        n = snprintf(out, outsz, "%.*s/%s", (int)len, root, TS_RULES_CONFIG_NAME);
    return n < 0 || (size_t)n >= outsz ? -ENAMETOOLONG : 0;
}

/* ---------------------------------------------------------------------------
 * Walk stacks
 * ------------------------------------------------------------------------- */

int ts_rules_stack_init(ts_rules_stack *s, const ts_rules *r, size_t depth)
{
    s->words = ts_rules_path_words(r->paths);
    s->depth = depth;
    if (s->words * depth <= sizeof(s->small) / sizeof(s->small[0])) {
        s->states = s->small;
        return 0;
    }
    s->states = malloc(s->words * depth * sizeof(*s->states));
    return s->states == NULL ? -ENOMEM : 0;
}

ts_rules_state *ts_rules_stack_at(ts_rules_stack *s, size_t level)
{
    return s->states + level * s->words;
}

void ts_rules_stack_free(ts_rules_stack *s)
{
    if (s->states != s->small)
        free(s->states);
    s->states = NULL;
}
