/*
 * ts_report_diff — the drift report's difference lines: one per
 * difference, naming the call by its index and tool, at the deepest path
 * that differs, with both values:
 *
 *     calls[4] book_flight  args.passenger.loyalty.tier: "gold" → "platinum"
 *     calls[1] search  args.limit: (absent) → 10
 *   + calls[5] refund(order_id='A-1', amount=20.0)
 *   - calls[2] search_flights(destination='NYC')
 *
 * A line wider than the report puts the two values on lines of their own,
 * each cut around the part where they differ. Values are compared as JSON
 * exactly (1 and 1.0 differ, as they do in the file), whatever scoring
 * forgave. Past TS_REPORT_DIFF_MAX differences the rest are counted only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"
#include "lib/report/ts_report.h"
#include "ts_report_internal.h"

#define TS_REPORT_DIFF_MAX 40

typedef struct segment {
    const char *key; /* NULL: an array index */
    size_t index;
} segment;

typedef struct walker {
    const ts_report_ctx *c;
    ts_buf *out;
    const ts_report_row *row;
    segment *path;
    size_t depth, cap;
    size_t shown, total;
} walker;

static bool push(walker *w, const char *key, size_t index)
{
    if (w->depth == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 16;
        segment *p = realloc(w->path, cap * sizeof(*p));
        if (p == NULL) {
            ts_buf_fail(w->out, -ENOMEM);
            return false;
        }
        w->path = p;
        w->cap = cap;
    }
    w->path[w->depth++] = (segment){key, index};
    return true;
}

/* "  calls[4] book_flight  " and the path, into out. */
static void head(const walker *w, ts_buf *out)
{
    const ts_report_row *row = w->row;
    const ts_report_call *g = &w->c->gold[row->g];

    ts_buf_appends(out, "  calls[");
    ts_report__row_label(out, row);
    ts_buf_appends(out, "] ");
    ts_report__name(out, g->tool, g->tool_len);
    ts_buf_appends(out, "  ");
    for (size_t k = 0; k < w->depth; k++) {
        if (w->path[k].key != NULL)
            ts_report__path_key(out, w->path[k].key, k == 0);
        else
            ts_buf_appendf(out, "[%zu]", w->path[k].index);
    }
    ts_buf_appendc(out, ':');
}

static void value_text(ts_buf *out, const struct json_object *v, bool present)
{
    if (present)
        ts_report__json_value(out, v);
    else
        ts_buf_appends(out, "(absent)");
}

/* One difference at the current path: a (expected) → b (actual); a side
 * that is not present is "(absent)". */
static void emit(walker *w, const struct json_object *a, bool has_a, const struct json_object *b,
                 bool has_b)
{
    const ts_report_ctx *c = w->c;
    ts_buf h, ta, tb, fa, fb;
    size_t width;

    w->total++;
    if (w->shown >= TS_REPORT_DIFF_MAX || ts_buf_error(w->out) < 0)
        return;
    w->shown++;
    ts_buf_init(&h, TS_BUF_UNLIMITED);
    ts_buf_init(&ta, TS_BUF_UNLIMITED);
    ts_buf_init(&tb, TS_BUF_UNLIMITED);
    ts_buf_init(&fa, TS_BUF_UNLIMITED);
    ts_buf_init(&fb, TS_BUF_UNLIMITED);
    head(w, &h);
    value_text(&ta, a, has_a);
    value_text(&tb, b, has_b);
    width = ts_repr_width(h.data ? h.data : "", h.len) + 1 + ts_repr_width(ta.data, ta.len) + 3 +
            ts_repr_width(tb.data, tb.len);
    ts_buf_fail(w->out, ts_buf_error(&h));
    ts_buf_fail(w->out, ts_buf_error(&ta));
    ts_buf_fail(w->out, ts_buf_error(&tb));
    if (ts_buf_error(w->out) < 0) {
        /* nothing more to write */
    } else if (width <= c->width) {
        ts_buf_append(w->out, h.data, h.len);
        ts_buf_appendf(w->out, " %s", ts_report__paint(c, TS_REPORT_RED));
        ts_buf_append(w->out, ta.data, ta.len);
        ts_buf_appendf(w->out, "%s " TS_REPORT_ARROW " %s", ts_report__paint(c, TS_REPORT_RESET),
                       ts_report__paint(c, TS_REPORT_GREEN));
        ts_buf_append(w->out, tb.data, tb.len);
        ts_buf_appendf(w->out, "%s\n", ts_report__paint(c, TS_REPORT_RESET));
    } else {
        ts_repr_fit_middle(h.data, h.len, c->width, w->out);
        ts_repr_fit_pair(ta.data, ta.len, tb.data, tb.len, c->width - 8, &fa, &fb);
        ts_buf_fail(w->out, ts_buf_error(&fa));
        ts_buf_fail(w->out, ts_buf_error(&fb));
        ts_buf_appendf(w->out, "\n%s      - ", ts_report__paint(c, TS_REPORT_RED));
        ts_buf_append(w->out, fa.data, fa.len);
        ts_buf_appendf(w->out, "%s\n%s      + ", ts_report__paint(c, TS_REPORT_RESET),
                       ts_report__paint(c, TS_REPORT_GREEN));
        ts_buf_append(w->out, fb.data, fb.len);
        ts_buf_appendf(w->out, "%s\n", ts_report__paint(c, TS_REPORT_RESET));
    }
    ts_buf_free(&h);
    ts_buf_free(&ta);
    ts_buf_free(&tb);
    ts_buf_free(&fa);
    ts_buf_free(&fb);
}

static void walk(walker *w, const struct json_object *a, const struct json_object *b);

static void walk_objects(walker *w, const struct json_object *a, const struct json_object *b)
{
    size_t na, nb, i = 0, j = 0;
    const char **ka = ts_report__sorted_keys(a, &na), **kb = ts_report__sorted_keys(b, &nb);

    if (ka == NULL || kb == NULL)
        ts_buf_fail(w->out, -ENOMEM);
    while (ts_buf_error(w->out) == 0 && (i < na || j < nb)) {
        int order = i == na ? 1 : j == nb ? -1 : strcmp(ka[i], kb[j]);
        if (!push(w, order <= 0 ? ka[i] : kb[j], 0))
            break;
        if (order == 0)
            walk(w, json_object_object_get(a, ka[i]), json_object_object_get(b, kb[j]));
        else if (order < 0)
            emit(w, json_object_object_get(a, ka[i]), true, NULL, false);
        else
            emit(w, NULL, false, json_object_object_get(b, kb[j]), true);
        w->depth--;
        i += order <= 0;
        j += order >= 0;
    }
    free(ka);
    free(kb);
}

static bool same(const struct json_object *a, const struct json_object *b)
{
    return ts_values_equal(a, b, true, false);
}

static void walk_index(walker *w, size_t index, const struct json_object *a, bool has_a,
                       const struct json_object *b, bool has_b)
{
    if (!push(w, NULL, index))
        return;
    if (has_a && has_b)
        walk(w, a, b);
    else
        emit(w, a, has_a, b, has_b);
    w->depth--;
}

/*
 * Arrays of one length: element by element. Of different lengths: when
 * the longer one is the shorter one with elements inserted in one place,
 * those elements (added or removed at their index); otherwise the whole
 * arrays.
 */
static void walk_arrays(walker *w, const struct json_object *a, const struct json_object *b)
{
    size_t na = json_object_array_length(a), nb = json_object_array_length(b);
    size_t n = na < nb ? na : nb, head = 0, tail = 0;

    if (na == nb) {
        for (size_t i = 0; i < na && ts_buf_error(w->out) == 0; i++)
            walk_index(w, i, json_object_array_get_idx(a, i), true, json_object_array_get_idx(b, i),
                       true);
        return;
    }
    while (head < n && same(json_object_array_get_idx(a, head), json_object_array_get_idx(b, head)))
        head++;
    while (tail < n - head && same(json_object_array_get_idx(a, na - 1 - tail),
                                   json_object_array_get_idx(b, nb - 1 - tail)))
        tail++;
    if (head + tail < n) {
        emit(w, a, true, b, true);
        return;
    }
    for (size_t i = head; i < na - tail && ts_buf_error(w->out) == 0; i++)
        walk_index(w, i, json_object_array_get_idx(a, i), true, NULL, false);
    for (size_t i = head; i < nb - tail && ts_buf_error(w->out) == 0; i++)
        walk_index(w, i, NULL, false, json_object_array_get_idx(b, i), true);
}

/* Every JSON-level difference between a and b, at the deepest path. */
static void walk(walker *w, const struct json_object *a, const struct json_object *b)
{
    enum json_type ta = json_object_get_type(a), tb = json_object_get_type(b);

    if (ta == json_type_object && tb == json_type_object)
        walk_objects(w, a, b);
    else if (ta == json_type_array && tb == json_type_array)
        walk_arrays(w, a, b);
    else if (!same(a, b))
        emit(w, a, true, b, true);
}

bool ts_report__pair_identical(const ts_report_call *g, const ts_report_call *t)
{
    if (g->tool_len != t->tool_len || memcmp(g->tool, t->tool, g->tool_len) != 0)
        return false;
    if (g->args == NULL || g->args == t->args)
        return true; /* args not checked */
    if (t->args != NULL)
        return same(g->args, t->args);
    return json_object_object_length(g->args) == 0; /* absent actual args are {} */
}

/* "+ calls[5] refund(...)" / "- calls[2] search(...)", the call whole
 * when it fits, else cut in the middle. */
static void whole_call(walker *w, char sign, size_t index, const ts_report_call *call)
{
    const ts_report_ctx *c = w->c;
    ts_buf text;
    char prefix[48];
    size_t plen;

    w->total++;
    if (w->shown >= TS_REPORT_DIFF_MAX || ts_buf_error(w->out) < 0)
        return;
    w->shown++;
    plen = (size_t)snprintf(prefix, sizeof(prefix), "%c calls[%zu] ", sign, index);
    ts_buf_init(&text, TS_BUF_UNLIMITED);
    ts_report__call(&text, call, 0);
    if (ts_buf_error(&text) < 0) {
        ts_report__drop(w->out, &text);
        return;
    }
    ts_buf_appends(w->out, ts_report__paint(c, sign == '-' ? TS_REPORT_RED : TS_REPORT_GREEN));
    ts_buf_append(w->out, prefix, plen);
    ts_repr_fit_middle(text.data, text.len, c->width > plen ? c->width - plen : 1, w->out);
    ts_buf_appendf(w->out, "%s\n", ts_report__paint(c, TS_REPORT_RESET));
    ts_buf_free(&text);
}

static void walk_row(walker *w, const ts_report_row *row)
{
    const ts_report_ctx *c = w->c;
    const ts_report_call *g, *t;
    struct json_object *tg, *tt, *empty;

    w->row = row;
    w->depth = 0;
    if (row->kind == TS_REPORT_MISSING) {
        whole_call(w, '-', row->g, &c->gold[row->g]);
        return;
    }
    if (row->kind == TS_REPORT_EXTRA) {
        whole_call(w, '+', row->t, &c->trace[row->t]);
        return;
    }
    g = &c->gold[row->g];
    t = &c->trace[row->t];
    if (g->tool_len != t->tool_len || memcmp(g->tool, t->tool, g->tool_len) != 0) {
        tg = json_object_new_string_len(g->tool, (int)g->tool_len);
        tt = json_object_new_string_len(t->tool, (int)t->tool_len);
        if (tg == NULL || tt == NULL)
            ts_buf_fail(w->out, -ENOMEM);
        else if (push(w, "tool", 0))
            emit(w, tg, true, tt, true);
        json_object_put(tg);
        json_object_put(tt);
        return;
    }
    if (g->args == NULL)
        return; /* not checked */
    empty = t->args == NULL ? json_object_new_object() : NULL;
    if (t->args == NULL && empty == NULL) {
        ts_buf_fail(w->out, -ENOMEM);
        return;
    }
    if (push(w, "args", 0))
        walk(w, g->args, t->args != NULL ? t->args : empty);
    json_object_put(empty);
}

void ts_report__differences(const ts_report_ctx *c, ts_buf *out)
{
    walker w;

    memset(&w, 0, sizeof(w));
    w.c = c;
    w.out = out;
    for (size_t k = 0; k < c->n_rows && ts_buf_error(out) == 0; k++) {
        if (c->rows[k].kind != TS_REPORT_SAME)
            walk_row(&w, &c->rows[k]);
    }
    if (w.total > w.shown)
        ts_buf_appendf(out, "%s  " TS_REPORT_ELLIPSIS " and %zu more difference%s%s\n",
                       ts_report__paint(c, TS_REPORT_DIM), w.total - w.shown,
                       w.total - w.shown == 1 ? "" : "s", ts_report__paint(c, TS_REPORT_RESET));
    free(w.path);
}
