/*
 * ts_report — the text a person reads after a replay: the drift report of a
 * FAILED check (aligned table, score line, structural paths, tips) and the
 * one-line end-of-run summary (docs/snapshots.md).
 *
 * Rows are aligned by ts_align (difflib.SequenceMatcher over tool names) and
 * values are shown as Python's repr() shows them (ts_repr), so the table reads
 * like the reference tool's. Nothing here prints: text goes to the caller's
 * ts_buf.
 */
#include "ts_report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_align.h"
#include "ts_json.h"
#include "ts_repr.h"

#define VALUE_CUT 40 /* code points of a repr'd value in the table */
#define PATH_CUT 200 /* code points of a JSON value in a path line */
#define ELLIPSIS "\xe2\x80\xa6"
#define NOT_EQUAL "\xe2\x89\xa0"
#define CHECK_MARK "\xe2\x9c\x93"
#define EM_DASH "\xe2\x80\x94"
#define MIDDLE_DOT "\xc2\xb7"
#define BULLET "\xe2\x80\xa2"

#define ANSI_RESET "\x1b[0m"
#define ANSI_BOLD "\x1b[1m"
#define ANSI_RED "\x1b[31m"
#define ANSI_GREEN "\x1b[32m"
#define ANSI_YELLOW "\x1b[33m"

/* Append a name (tool or key) with control characters escaped, so a name can
 * never break a line of the table. */
static int append_name(ts_buf *out, const char *s, size_t len)
{
    for (size_t i = 0; i < len && ts_buf_error(out) == 0; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f)
            ts_buf_appendf(out, "\\x%02x", c);
        else
            ts_buf_appendc(out, (char)c);
    }
    return ts_buf_error(out);
}

static const char *string_of(const struct json_object *s, size_t *len)
{
    *len = (size_t)json_object_get_string_len(s);
    return json_object_get_string((struct json_object *)s);
}

/* ---------------------------------------------------------------------------
 * Calls
 * ------------------------------------------------------------------------- */

typedef struct call {
    const char *tool;
    size_t tool_len;
    struct json_object *args; /* NULL when absent or null */
} call;

static bool same_tool(const call *a, const call *b)
{
    return a->tool_len == b->tool_len && memcmp(a->tool, b->tool, a->tool_len) == 0;
}

static call *calls_view(const struct json_object *list, size_t *n, int *rc)
{
    call *c;

    *n = json_object_array_length(list);
    c = calloc(*n + 1, sizeof(*c));
    if (c == NULL) {
        *rc = -ENOMEM;
        return NULL;
    }
    for (size_t i = 0; i < *n; i++) {
        struct json_object *item = json_object_array_get_idx(list, i);
        struct json_object *tool = json_object_object_get(item, "tool");
        struct json_object *args = NULL;
        c[i].tool = string_of(tool, &c[i].tool_len);
        json_object_object_get_ex(item, "args", &args);
        c[i].args = json_object_is_type(args, json_type_object) ? args : NULL;
    }
    *rc = 0;
    return c;
}

/* `tool(k=value, ...)`; a call with args absent or null is
 * `tool(…any args…)`, one with empty args `tool()`. */
static int render_call(ts_buf *out, const call *c)
{
    bool first = true;

    append_name(out, c->tool, c->tool_len);
    ts_buf_appendc(out, '(');
    if (c->args == NULL)
        ts_buf_appends(out, ELLIPSIS "any args" ELLIPSIS);
    if (c->args != NULL) {
        json_object_object_foreach(c->args, key, val)
        {
            if (!first)
                ts_buf_appends(out, ", ");
            append_name(out, key, strlen(key));
            ts_buf_appendc(out, '=');
            ts_repr_value_cut(val, VALUE_CUT, out);
            first = false;
        }
    }
    ts_buf_appendc(out, ')');
    return ts_buf_error(out);
}

/* ---------------------------------------------------------------------------
 * The table
 * ------------------------------------------------------------------------- */

enum row_kind { ROW_OK, ROW_DRIFT, ROW_GONE };

typedef struct row {
    char *expected, *actual, *status; /* status may hold several lines */
    enum row_kind kind;
} row;

typedef struct table {
    row *rows;
    size_t n, cap;
} table;

static void table_free(table *t)
{
    for (size_t k = 0; k < t->n; k++) {
        free(t->rows[k].expected);
        free(t->rows[k].actual);
        free(t->rows[k].status);
    }
    free(t->rows);
}

static char *detach(ts_buf *b)
{
    return ts_buf_detach(b, NULL);
}

static int key_cmp(const void *pa, const void *pb)
{
    return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* The keys of args (may be NULL), sorted; *keys is owned by the caller. */
static int sorted_keys(const struct json_object *args, const char ***keys, size_t *n)
{
    size_t k = 0;

    *n = args ? (size_t)json_object_object_length(args) : 0;
    *keys = malloc((*n + 1) * sizeof(**keys));
    if (*keys == NULL)
        return -ENOMEM;
    if (args != NULL) {
        json_object_object_foreach((struct json_object *)args, key, val)
        {
            (void)val;
            (*keys)[k++] = key;
        }
    }
    qsort(*keys, *n, sizeof(**keys), key_cmp);
    return 0;
}

static void status_line(ts_buf *out)
{
    if (out->len > 0)
        ts_buf_appendc(out, '\n');
}

/* Per-key status of a pair with the same tool: mismatched values, then
 * missing keys, then unexpected keys, each group sorted. */
static int arg_status(ts_buf *out, const call *g, const call *t, bool strict,
                      const ts_value_compare *cmp)
{
    const char **gk = NULL, **tk = NULL;
    size_t ng = 0, nt = 0;

    if (g->args == NULL)
        return 0; /* arguments not checked */
    if (sorted_keys(g->args, &gk, &ng) < 0 || sorted_keys(t->args, &tk, &nt) < 0)
        ts_buf_fail(out, -ENOMEM);
    for (size_t k = 0; k < ng && ts_buf_error(out) == 0; k++) {
        struct json_object *gv = json_object_object_get(g->args, gk[k]), *tv;
        if (t->args == NULL || !json_object_object_get_ex(t->args, gk[k], &tv))
            continue;
        if (cmp != NULL ? cmp->equal(cmp->ctx, g->tool, g->tool_len, gk[k], gv, tv, strict, true)
                        : ts_values_equal(gv, tv, strict, true))
            continue;
        status_line(out);
        append_name(out, gk[k], strlen(gk[k]));
        ts_buf_appends(out, ": ");
        ts_repr_value_cut(gv, VALUE_CUT, out);
        ts_buf_appends(out, " " NOT_EQUAL " ");
        ts_repr_value_cut(tv, VALUE_CUT, out);
    }
    for (size_t k = 0; k < ng && ts_buf_error(out) == 0; k++) {
        if (t->args != NULL && json_object_object_get_ex(t->args, gk[k], NULL))
            continue;
        status_line(out);
        ts_buf_appends(out, "missing: ");
        append_name(out, gk[k], strlen(gk[k]));
    }
    for (size_t k = 0; k < nt && ts_buf_error(out) == 0; k++) {
        if (json_object_object_get_ex(g->args, tk[k], NULL))
            continue;
        status_line(out);
        ts_buf_appends(out, "unexpected: ");
        append_name(out, tk[k], strlen(tk[k]));
    }
    free(gk);
    free(tk);
    return ts_buf_error(out);
}

static int pair_status(ts_buf *out, const call *g, const call *t, bool strict,
                       const ts_value_compare *cmp)
{
    if (same_tool(g, t))
        return arg_status(out, g, t, strict, cmp);
    ts_buf_appends(out, "tool: ");
    ts_repr_string(g->tool, g->tool_len, out);
    ts_buf_appends(out, " " NOT_EQUAL " ");
    ts_repr_string(t->tool, t->tool_len, out);
    return ts_buf_error(out);
}

static int table_push(table *t, row r)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        row *p = realloc(t->rows, cap * sizeof(*p));
        if (p == NULL)
            return -ENOMEM;
        t->rows = p;
        t->cap = cap;
    }
    t->rows[t->n++] = r;
    return 0;
}

/* One row; g or t may be NULL (a MISSING or EXTRA row). */
static int add_row(table *tab, const call *g, const call *t, bool strict,
                   const ts_value_compare *cmp, size_t max)
{
    ts_buf e, a, s;
    row r = {NULL, NULL, NULL, ROW_GONE};
    int rc;

    ts_buf_init(&e, max);
    ts_buf_init(&a, max);
    ts_buf_init(&s, max);
    if (g != NULL)
        render_call(&e, g);
    else
        ts_buf_appends(&e, EM_DASH " EXTRA " EM_DASH);
    if (t != NULL)
        render_call(&a, t);
    else
        ts_buf_appends(&a, EM_DASH " MISSING " EM_DASH);
    if (g && t) {
        pair_status(&s, g, t, strict, cmp);
        r.kind = s.len > 0 ? ROW_DRIFT : ROW_OK;
        if (s.len == 0)
            ts_buf_appends(&s, CHECK_MARK);
    } else {
        ts_buf_appends(&s, g ? "MISSING" : "EXTRA");
    }
    ts_buf_fail(&s, ts_buf_error(&e)); /* the row's error: its cells' first */
    ts_buf_fail(&s, ts_buf_error(&a));
    rc = ts_buf_error(&s);
    if (rc == 0) {
        r.expected = detach(&e);
        r.actual = detach(&a);
        r.status = detach(&s);
        rc = r.expected && r.actual && r.status ? table_push(tab, r) : -ENOMEM;
        if (rc < 0) {
            free(r.expected);
            free(r.actual);
            free(r.status);
        }
    }
    ts_buf_free(&e);
    ts_buf_free(&a);
    ts_buf_free(&s);
    return rc;
}

static int add_block(table *tab, const ts_align_op *op, const call *gold, const call *trace,
                     bool strict, const ts_value_compare *cmp, size_t max)
{
    size_t ng = op->i2 - op->i1, nt = op->j2 - op->j1;
    size_t paired = ng < nt ? ng : nt;
    int rc = 0;

    for (size_t k = 0; k < paired && rc == 0; k++)
        rc = add_row(tab, &gold[op->i1 + k], &trace[op->j1 + k], strict, cmp, max);
    for (size_t k = paired; k < ng && rc == 0; k++)
        rc = add_row(tab, &gold[op->i1 + k], NULL, strict, cmp, max);
    for (size_t k = paired; k < nt && rc == 0; k++)
        rc = add_row(tab, NULL, &trace[op->j1 + k], strict, cmp, max);
    return rc;
}

/* Widest line of a possibly multi-line cell. */
static size_t cell_width(const char *s)
{
    size_t best = 0;

    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        size_t w = ts_repr_width(s, len);
        if (w > best)
            best = w;
        s += len + (nl != NULL);
    }
    return best;
}

/* n copies of c. */
static void repeat(ts_buf *out, char c, size_t n)
{
    while (n-- > 0 && ts_buf_error(out) == 0)
        ts_buf_appendc(out, c);
}

static void pad(ts_buf *out, size_t n)
{
    repeat(out, ' ', n);
}

/* "text" left-aligned in width columns. */
static void cell(ts_buf *out, const char *s, size_t len, size_t width)
{
    ts_buf_append(out, s, len);
    pad(out, width - ts_repr_width(s, len));
}

typedef struct widths {
    size_t num, expected, actual;
} widths;

static const char *kind_colour(enum row_kind k)
{
    return k == ROW_OK ? ANSI_GREEN : k == ROW_DRIFT ? ANSI_YELLOW : ANSI_RED;
}

/* One table line: "  # | expected | actual | status". */
static void table_line(ts_buf *out, const widths *w, const char *num, const char *e, const char *a,
                       const char *s, size_t slen, const char *colour)
{
    size_t nlen = strlen(num);

    if (colour)
        ts_buf_appends(out, colour);
    pad(out, w->num - nlen);
    ts_buf_appendf(out, "%s | ", num);
    cell(out, e, strlen(e), w->expected);
    ts_buf_appends(out, " | ");
    cell(out, a, strlen(a), w->actual);
    ts_buf_appends(out, " |");
    if (slen > 0) {
        ts_buf_appendc(out, ' ');
        ts_buf_append(out, s, slen);
    }
    if (colour)
        ts_buf_appends(out, ANSI_RESET);
    ts_buf_appendc(out, '\n');
}

static void rule(ts_buf *out, size_t n)
{
    repeat(out, '-', n);
}

static int table_render(ts_buf *out, const table *t, bool color)
{
    widths w = {1, strlen("Expected"), strlen("Actual")};
    size_t status_w = strlen("Status");
    char num[32];

    snprintf(num, sizeof(num), "%zu", t->n);
    if (strlen(num) > w.num)
        w.num = strlen(num);
    for (size_t k = 0; k < t->n; k++) {
        size_t ew = cell_width(t->rows[k].expected), aw = cell_width(t->rows[k].actual);
        size_t sw = cell_width(t->rows[k].status);
        w.expected = ew > w.expected ? ew : w.expected;
        w.actual = aw > w.actual ? aw : w.actual;
        status_w = sw > status_w ? sw : status_w;
    }
    ts_buf_appendf(out, "%sExpected vs Actual Tool Calls%s\n", color ? ANSI_BOLD : "",
                   color ? ANSI_RESET : "");
    table_line(out, &w, "#", "Expected", "Actual", "Status", 6, color ? ANSI_BOLD : NULL);
    rule(out, w.num + 1);
    ts_buf_appendc(out, '+');
    rule(out, w.expected + 2);
    ts_buf_appendc(out, '+');
    rule(out, w.actual + 2);
    ts_buf_appendc(out, '+');
    rule(out, status_w + 1);
    ts_buf_appendc(out, '\n');
    for (size_t k = 0; k < t->n && ts_buf_error(out) == 0; k++) {
        const row *r = &t->rows[k];
        const char *colour = color ? kind_colour(r->kind) : NULL;
        const char *s = r->status;
        bool first = true;
        snprintf(num, sizeof(num), "%zu", k + 1);
        do {
            const char *nl = strchr(s, '\n');
            size_t len = nl ? (size_t)(nl - s) : strlen(s);
            if (first)
                table_line(out, &w, num, r->expected, r->actual, s, len, colour);
            else
                table_line(out, &w, "", "", "", s, len, colour);
            first = false;
            s = nl ? nl + 1 : NULL;
        } while (s != NULL);
    }
    return ts_buf_error(out);
}

/* ---------------------------------------------------------------------------
 * Structural paths
 * ------------------------------------------------------------------------- */

/* A key is written .key when that is unambiguous, else ["key"]. */
static int path_key(ts_buf *path, const char *key)
{
    size_t len = strlen(key);
    bool plain = len > 0;

    for (size_t i = 0; i < len && plain; i++) {
        unsigned char c = (unsigned char)key[i];
        plain = c > 0x20 && c != 0x7f && !strchr(".[]\"'\\", c);
    }
    if (plain)
        return ts_buf_appendf(path, ".%s", key);
    ts_buf_appendc(path, '[');
    if (ts_json_write_string(key, len, path) == -EINVAL) /* not UTF-8: as the table shows it */
        ts_repr_string(key, len, path);
    ts_buf_appendc(path, ']');
    return ts_buf_error(path);
}

static int json_cut(ts_buf *out, const struct json_object *v)
{
    ts_buf tmp;
    int rc;

    ts_buf_init(&tmp, out->max);
    rc = ts_json_write_compact(v, &tmp, NULL);
    if (rc == -EINVAL) { /* not valid UTF-8: show it the way the table does */
        ts_buf_reset(&tmp);
        rc = ts_repr_value(v, &tmp);
    }
    if (rc < 0)
        ts_buf_fail(out, rc);
    else
        ts_repr_append_cut(tmp.data ? tmp.data : "", tmp.len, PATH_CUT, out);
    ts_buf_free(&tmp);
    return ts_buf_error(out);
}

static int line_changed(ts_buf *out, const ts_buf *path, const struct json_object *a,
                        const struct json_object *b)
{
    ts_buf_appendf(out, "value changed at %s: ", path->data);
    json_cut(out, a);
    ts_buf_appends(out, " -> ");
    json_cut(out, b);
    ts_buf_appendc(out, '\n');
    return ts_buf_error(out);
}

/* Restore path to len bytes after a child was appended. */
static void path_truncate(ts_buf *path, size_t len)
{
    if (path->data == NULL || len > path->len)
        return; /* the path failed (its buffer is empty): nothing to restore */
    path->len = len;
    path->data[len] = '\0';
}

static int diff_values(ts_buf *out, ts_buf *path, const struct json_object *a,
                       const struct json_object *b);

static int diff_objects(ts_buf *out, ts_buf *path, const struct json_object *a,
                        const struct json_object *b)
{
    const char **ka = NULL, **kb = NULL;
    size_t na = 0, nb = 0, base = path->len, i = 0, j = 0;

    if (sorted_keys(a, &ka, &na) < 0 || sorted_keys(b, &kb, &nb) < 0)
        ts_buf_fail(out, -ENOMEM);
    while (ts_buf_error(out) == 0 && (i < na || j < nb)) {
        int c = i == na ? 1 : j == nb ? -1 : strcmp(ka[i], kb[j]);
        if (path_key(path, c <= 0 ? ka[i] : kb[j]) < 0)
            ts_buf_fail(out, ts_buf_error(path));
        else if (c == 0)
            diff_values(out, path, json_object_object_get(a, ka[i]),
                        json_object_object_get(b, kb[j]));
        else
            ts_buf_appendf(out, "key %s at %s\n", c < 0 ? "removed" : "added", path->data);
        path_truncate(path, base);
        i += c <= 0;
        j += c >= 0;
    }
    free(ka);
    free(kb);
    return ts_buf_error(out);
}

static int diff_arrays(ts_buf *out, ts_buf *path, const struct json_object *a,
                       const struct json_object *b)
{
    size_t n = json_object_array_length(a), base = path->len;

    if (n != json_object_array_length(b))
        return line_changed(out, path, a, b);
    for (size_t i = 0; i < n && ts_buf_error(out) == 0; i++) {
        if (ts_buf_appendf(path, "[%zu]", i) < 0)
            ts_buf_fail(out, ts_buf_error(path));
        else
            diff_values(out, path, json_object_array_get_idx(a, i),
                        json_object_array_get_idx(b, i));
        path_truncate(path, base);
    }
    return ts_buf_error(out);
}

/* Every JSON-level difference between a and b (types included). */
static int diff_values(ts_buf *out, ts_buf *path, const struct json_object *a,
                       const struct json_object *b)
{
    enum json_type ta = json_object_get_type(a), tb = json_object_get_type(b);

    if (ta == json_type_object && tb == json_type_object)
        return diff_objects(out, path, a, b);
    if (ta == json_type_array && tb == json_type_array)
        return diff_arrays(out, path, a, b);
    if (ts_values_equal(a, b, true, false))
        return 0;
    return line_changed(out, path, a, b);
}

static int diff_pair(ts_buf *out, const call *g, size_t gi, const call *t)
{
    ts_buf path;

    ts_buf_init(&path, out->max);
    ts_buf_appendf(&path, "calls[%zu]", gi);
    if (!same_tool(g, t)) {
        struct json_object *a = json_object_new_string_len(g->tool, (int)g->tool_len);
        struct json_object *b = json_object_new_string_len(t->tool, (int)t->tool_len);
        ts_buf_appends(&path, ".tool");
        if (a == NULL || b == NULL)
            ts_buf_fail(out, -ENOMEM);
        else if (ts_buf_error(&path) < 0)
            ts_buf_fail(out, ts_buf_error(&path));
        else
            line_changed(out, &path, a, b);
        json_object_put(a);
        json_object_put(b);
    } else if (g->args != NULL) {
        struct json_object *empty = json_object_new_object();
        ts_buf_appends(&path, ".args");
        if (empty == NULL)
            ts_buf_fail(out, -ENOMEM);
        else if (ts_buf_error(&path) < 0)
            ts_buf_fail(out, ts_buf_error(&path));
        else
            diff_values(out, &path, g->args, t->args ? t->args : empty);
        json_object_put(empty);
    }
    ts_buf_free(&path);
    return ts_buf_error(out);
}

static int paths_block(ts_buf *out, const ts_align_op *op, const call *gold, const call *trace)
{
    size_t ng = op->i2 - op->i1, nt = op->j2 - op->j1;
    size_t paired = ng < nt ? ng : nt;

    for (size_t k = 0; k < paired && ts_buf_error(out) == 0; k++)
        diff_pair(out, &gold[op->i1 + k], op->i1 + k, &trace[op->j1 + k]);
    for (size_t k = paired; k < ng && ts_buf_error(out) == 0; k++)
        ts_buf_appendf(out, "missing at calls[%zu]\n", op->i1 + k);
    for (size_t k = paired; k < nt && ts_buf_error(out) == 0; k++)
        ts_buf_appendf(out, "unexpected at calls[%zu]\n", op->j1 + k);
    return ts_buf_error(out);
}

/* ---------------------------------------------------------------------------
 * Putting it together
 * ------------------------------------------------------------------------- */

typedef struct alignment {
    call *gold, *trace;
    size_t ng, nt;
    ts_align_op *ops;
    size_t n_ops;
} alignment;

static void alignment_free(alignment *al)
{
    free(al->gold);
    free(al->trace);
    free(al->ops);
}

static int align(const struct json_object *expected, const struct json_object *actual,
                 alignment *al, ts_error *err)
{
    int rc = ts_calls_validate(expected, "expected", err);

    memset(al, 0, sizeof(*al));
    if (rc == 0)
        rc = ts_calls_validate(actual, "actual", err);
    if (rc < 0)
        return rc;
    al->gold = calls_view(expected, &al->ng, &rc);
    if (rc == 0)
        al->trace = calls_view(actual, &al->nt, &rc);
    if (rc == 0)
        rc = ts_align_calls(expected, actual, &al->ops, &al->n_ops);
    if (rc < 0) {
        alignment_free(al);
        return ts_error_set(err, rc, TS_ERR_NO_MEMORY, "out of memory while aligning calls");
    }
    return 0;
}

static int fail_append(ts_error *err, int rc)
{
    if (rc == -E2BIG)
        return ts_error_set(err, rc, TS_ERR_TOO_LARGE, "report larger than its buffer allows");
    return ts_error_set(err, rc, TS_ERR_NO_MEMORY, "out of memory while writing the report");
}

static int write_paths(ts_buf *out, const alignment *al)
{
    for (size_t k = 0; k < al->n_ops && ts_buf_error(out) == 0; k++)
        paths_block(out, &al->ops[k], al->gold, al->trace);
    return ts_buf_error(out);
}

int ts_report_paths(const struct json_object *expected, const struct json_object *actual,
                    ts_buf *out, ts_error *err)
{
    alignment al;
    int rc = align(expected, actual, &al, err);

    if (rc < 0)
        return rc;
    rc = write_paths(out, &al);
    alignment_free(&al);
    return rc < 0 ? fail_append(err, rc) : 0;
}

static int write_score_line(ts_buf *out, const ts_score_result *r, bool color)
{
    return ts_buf_appendf(
        out,
        "%sscore %.2f %s %.2f required  " MIDDLE_DOT "  selection %.2f  " MIDDLE_DOT
        "  args %.2f  " MIDDLE_DOT "  sequence %.2f%s\n",
        color ? ANSI_BOLD ANSI_RED : "", r->score, r->passed ? ">=" : "<", r->min_score,
        r->selection_accuracy, r->argument_f1, r->sequence_accuracy, color ? ANSI_RESET : "");
}

static void tip(ts_buf *out, bool *first, bool color, const char *text)
{
    if (*first)
        ts_buf_appendf(out, "\n%sTips:%s\n", color ? ANSI_BOLD : "", color ? ANSI_RESET : "");
    *first = false;
    ts_buf_appendf(out, "  " BULLET " %s\n", text);
}

static void missing_tools_tip(ts_buf *out, bool *first, bool color, const ts_score_result *r)
{
    size_t n = r->missing_tools ? json_object_array_length(r->missing_tools) : 0;
    ts_buf text;

    if (n == 0)
        return;
    ts_buf_init(&text, out->max);
    ts_buf_appends(&text,
                   n == 1 ? "expected tool never called: " : "expected tools never called: ");
    for (size_t k = 0; k < n && ts_buf_error(&text) == 0; k++) {
        size_t len;
        const char *s = string_of(json_object_array_get_idx(r->missing_tools, k), &len);
        if (k > 0)
            ts_buf_appends(&text, ", ");
        ts_repr_string(s, len, &text);
    }
    ts_buf_appends(&text, " - check that the agent has access to every expected tool "
                          "and that names match exactly (case-sensitive)");
    if (ts_buf_error(&text) < 0)
        ts_buf_fail(out, ts_buf_error(&text));
    else
        tip(out, first, color, text.data);
    ts_buf_free(&text);
}

static void write_tips(ts_buf *out, const ts_score_result *r, bool color)
{
    bool first = true;
    char text[256];

    missing_tools_tip(out, &first, color, r);
    if (r->argument_precision < r->argument_recall) {
        snprintf(text, sizeof(text),
                 "argument precision %.2f is lower than recall %.2f: the agent passes extra "
                 "or wrong arguments",
                 r->argument_precision, r->argument_recall);
        tip(out, &first, color, text);
    }
    if (r->argument_recall < r->argument_precision) {
        snprintf(text, sizeof(text),
                 "argument recall %.2f is lower than precision %.2f: the agent leaves out "
                 "expected arguments",
                 r->argument_recall, r->argument_precision);
        tip(out, &first, color, text);
    }
    if (r->edit_distance > 0) {
        snprintf(text, sizeof(text),
                 "the sequence of tools differs from the expected one (edit distance %.0f): "
                 "review the agent's planning, or lower min_score if order does not matter",
                 r->edit_distance);
        tip(out, &first, color, text);
    }
    if (r->redundant_count > 0) {
        snprintf(text, sizeof(text),
                 "%" PRId64 " redundant call%s: the agent calls tools more often than expected",
                 r->redundant_count, r->redundant_count == 1 ? "" : "s");
        tip(out, &first, color, text);
    }
}

static int write_table(ts_buf *out, const alignment *al, const ts_score_result *r, bool color,
                       const ts_value_compare *cmp)
{
    table t = {NULL, 0, 0};
    int rc = 0;

    for (size_t k = 0; k < al->n_ops && rc == 0; k++)
        rc = add_block(&t, &al->ops[k], al->gold, al->trace, r->strict, cmp, out->max);
    if (rc < 0)
        ts_buf_fail(out, rc);
    else
        table_render(out, &t, color);
    table_free(&t);
    return ts_buf_error(out);
}

int ts_report_drift(const struct json_object *expected, const struct json_object *actual,
                    const ts_score_result *r, bool color, ts_buf *out, ts_error *err)
{
    ts_report_options opt = {color, NULL, 0, NULL};

    return ts_report_drift_with(expected, actual, r, &opt, out, err);
}

int ts_report_drift_with(const struct json_object *expected, const struct json_object *actual,
                         const ts_score_result *r, const ts_report_options *opt, ts_buf *out,
                         ts_error *err)
{
    bool color = opt->color;
    alignment al;
    ts_buf paths;
    int rc;

    if (r == NULL || out == NULL)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "no score result to report");
    rc = align(expected, actual, &al, err);
    if (rc < 0)
        return rc;
    ts_buf_init(&paths, out->max);
    write_table(out, &al, r, color, opt->compare);
    ts_buf_appendc(out, '\n');
    write_score_line(out, r, color);
    for (size_t k = 0; k < opt->n_notes; k++)
        ts_buf_appendf(out, "%s\n", opt->notes[k]);
    if (write_paths(&paths, &al) < 0)
        ts_buf_fail(out, ts_buf_error(&paths));
    if (paths.len > 0) {
        ts_buf_appendc(out, '\n');
        ts_buf_append(out, paths.data, paths.len);
    }
    write_tips(out, r, color);
    ts_buf_free(&paths);
    alignment_free(&al);
    rc = ts_buf_error(out);
    return rc < 0 ? fail_append(err, rc) : 0;
}

/* ---------------------------------------------------------------------------
 * Summary line
 * ------------------------------------------------------------------------- */

static void summary_part(ts_buf *out, bool *first, int64_t n, const char *what)
{
    if (n <= 0)
        return;
    ts_buf_appends(out, *first ? "toolscore: " : ", ");
    *first = false;
    ts_buf_appendf(out, "%" PRId64 " %s", n, what);
}

int ts_report_summary(const ts_summary_counts *c, ts_buf *out)
{
    bool first = true;

    summary_part(out, &first, c->created,
                 c->created == 1 ? "snapshot created (pending approval)"
                                 : "snapshots created (pending approval)");
    summary_part(out, &first, c->updated, "updated");
    summary_part(out, &first, c->pending, "pending");
    summary_part(out, &first, c->passed, "passed");
    summary_part(out, &first, (c->failed > 0 ? c->failed : 0) + (c->errors > 0 ? c->errors : 0),
                 "failed");
    return ts_buf_error(out);
}
