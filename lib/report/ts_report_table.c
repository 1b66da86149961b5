/*
 * ts_report_table — the drift report's "Expected vs Actual Tool Calls"
 * table, fitted to the width and folded:
 *
 *   Expected vs Actual Tool Calls
 *   # | Expected          | Actual            | Status
 *   --+-------------------+-------------------+---------------------
 *   … 494 unchanged calls (calls[0]..calls[493]) …
 *   494 | search(q='a')   | search(q='a')     | ✓
 *   ...
 *
 * Rows follow the alignment (ts_align). Unchanged rows more than
 * TS_REPORT_CONTEXT rows away from a change are folded into one line when
 * at least TS_REPORT_FOLD_MIN of them are next to each other; past
 * TABLE_ROWS_MAX rows the rest is counted. A row's status is decided with
 * the comparison scoring used, so the table never contradicts the score.
 * Columns take their natural width when the line fits, else share the
 * width (a narrow column keeps its width, the others split the rest);
 * calls are cut at the end, a changed value around the part that differs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/ts_report.h"
#include "ts_report_internal.h"

#define TABLE_ROWS_MAX 50 /* rows shown, folds not counted */
#define STATUS_MAX 6      /* status lines of one row */
#define SEPARATORS 9      /* " | " three times */

enum status_kind { ST_TEXT, ST_VALUE, ST_MISSING_KEY, ST_UNEXPECTED_KEY };

/* One status line; a changed value keeps its key and both values, so it can
 * be fitted to the column once the column is known. */
typedef struct status_line {
    enum status_kind kind;
    const char *text; /* ST_TEXT: static text; else the key */
    char *path;       /* ST_VALUE: the path to the values (owned) */
    const struct json_object *a, *b;
} status_line;

typedef enum item_kind { ITEM_ROW, ITEM_FOLD, ITEM_MORE } item_kind;

typedef struct item {
    item_kind kind;
    size_t first, last; /* rows: the row; folds: the rows hidden; more: the rows left */
    char *label, *expected, *actual; /* ITEM_ROW cells, owned */
    status_line status[STATUS_MAX];
    size_t n_status;
    size_t more_status; /* status lines not shown */
} item;

typedef struct table {
    const ts_report_ctx *c;
    item *items;
    size_t n, cap;
    size_t w_label, w_expected, w_actual, w_status;
} table;

static void table_free(table *t)
{
    for (size_t k = 0; k < t->n; k++) {
        for (size_t s = 0; s < t->items[k].n_status; s++)
            free(t->items[k].status[s].path);
        free(t->items[k].label);
        free(t->items[k].expected);
        free(t->items[k].actual);
    }
    free(t->items);
}

static item *table_add(table *t, item_kind kind, size_t first, size_t last)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 32;
        item *p = realloc(t->items, cap * sizeof(*p));
        if (p == NULL)
            return NULL;
        t->items = p;
        t->cap = cap;
    }
    memset(&t->items[t->n], 0, sizeof(item));
    t->items[t->n].kind = kind;
    t->items[t->n].first = first;
    t->items[t->n].last = last;
    return &t->items[t->n++];
}

/* ---- which rows are shown ---- */

/* shown[k]: row k is a change or within TS_REPORT_CONTEXT rows of one;
 * without any change, the first and last rows. */
static unsigned char *shown_rows(const ts_report_ctx *c)
{
    unsigned char *shown = calloc(c->n_rows + 1, 1);
    size_t near = TS_REPORT_CONTEXT;
    size_t last = TS_REPORT_NONE;

    if (shown == NULL)
        return NULL;
    if (c->n_changed == 0) {
        for (size_t k = 0; k < c->n_rows; k++)
            shown[k] = k < near || k + near >= c->n_rows;
        return shown;
    }
    for (size_t k = 0; k < c->n_rows; k++) { /* after a change */
        if (c->rows[k].kind != TS_REPORT_SAME)
            last = k;
        shown[k] = last != TS_REPORT_NONE && k - last <= near;
    }
    last = TS_REPORT_NONE;
    for (size_t k = c->n_rows; k-- > 0;) { /* before a change */
        if (c->rows[k].kind != TS_REPORT_SAME)
            last = k;
        if (last != TS_REPORT_NONE && last - k <= near)
            shown[k] = 1;
    }
    return shown;
}

/* ---- cells ---- */

static bool same(const struct json_object *a, const struct json_object *b)
{
    return ts_values_equal(a, b, true, false);
}

/* The one member of two containers of one kind that differs, present in
 * both; false when none or several do. */
static bool single_difference(const struct json_object *a, const struct json_object *b,
                              const char **key, size_t *index, const struct json_object **ca,
                              const struct json_object **cb)
{
    size_t found = 0;

    if (json_object_is_type(a, json_type_object) && json_object_is_type(b, json_type_object)) {
        json_object_object_foreach((struct json_object *)b, k, v)
        {
            if (!json_object_object_get_ex(a, k, NULL))
                return false;
            (void)v;
        }
        json_object_object_foreach((struct json_object *)a, k2, va)
        {
            struct json_object *vb;
            if (!json_object_object_get_ex(b, k2, &vb))
                return false;
            if (!same(va, vb) && found++ == 0) {
                *key = k2;
                *ca = va;
                *cb = vb;
            }
        }
        return found == 1;
    }
    if (json_object_is_type(a, json_type_array) && json_object_is_type(b, json_type_array) &&
        json_object_array_length(a) == json_object_array_length(b)) {
        for (size_t i = 0; i < json_object_array_length(a) && found < 2; i++) {
            struct json_object *va = json_object_array_get_idx(a, i);
            struct json_object *vb = json_object_array_get_idx(b, i);
            if (!same(va, vb) && found++ == 0) {
                *key = NULL;
                *index = i;
                *ca = va;
                *cb = vb;
            }
        }
        return found == 1;
    }
    return false;
}

/* key: a → b, followed down to the single difference inside them when
 * there is one: "passenger.loyalty.tier", 'gold', 'platinum'. */
static char *deepest(const char *key, const struct json_object **a, const struct json_object **b)
{
    ts_buf path;
    const char *k = NULL;
    size_t index = 0;
    const struct json_object *ca = NULL, *cb = NULL;

    ts_buf_init(&path, TS_BUF_UNLIMITED);
    ts_report__path_key(&path, key, true);
    while (ts_buf_error(&path) == 0 && single_difference(*a, *b, &k, &index, &ca, &cb)) {
        if (k != NULL)
            ts_report__path_key(&path, k, false);
        else
            ts_buf_appendf(&path, "[%zu]", index);
        *a = ca;
        *b = cb;
    }
    return ts_buf_detach(&path, NULL);
}

static int status_add(item *it, enum status_kind kind, const char *text,
                      const struct json_object *a, const struct json_object *b)
{
    char *path = NULL;

    if (it->n_status == STATUS_MAX) {
        it->more_status++;
        return 0;
    }
    if (kind == ST_VALUE && (path = deepest(text, &a, &b)) == NULL)
        return -ENOMEM;
    it->status[it->n_status++] = (status_line){kind, text, path, a, b};
    return 0;
}

/* The status of two calls of one tool: changed values, then missing keys,
 * then unexpected keys, each in key order; nothing when they scored equal. */
static int args_status(item *it, const ts_report_call *g, const ts_report_call *t, bool strict,
                       const ts_value_compare *cmp)
{
    size_t ng, nt;
    const char **gk, **tk;
    int rc = 0;

    if (g->args == NULL)
        return 0; /* not checked */
    gk = ts_report__sorted_keys(g->args, &ng);
    tk = ts_report__sorted_keys(t->args, &nt);
    if (gk == NULL || tk == NULL) {
        free(gk);
        free(tk);
        return -ENOMEM;
    }
    for (size_t k = 0; k < ng; k++) {
        struct json_object *gv = json_object_object_get(g->args, gk[k]), *tv;
        if (rc == 0 && t->args != NULL && json_object_object_get_ex(t->args, gk[k], &tv) &&
            !(cmp != NULL ? cmp->equal(cmp->ctx, g->tool, g->tool_len, gk[k], gv, tv, strict, true)
                          : ts_values_equal(gv, tv, strict, true)))
            rc = status_add(it, ST_VALUE, gk[k], gv, tv);
    }
    for (size_t k = 0; k < ng; k++) {
        if (t->args == NULL || !json_object_object_get_ex(t->args, gk[k], NULL))
            status_add(it, ST_MISSING_KEY, gk[k], NULL, NULL);
    }
    for (size_t k = 0; k < nt; k++) {
        if (!json_object_object_get_ex(g->args, tk[k], NULL))
            status_add(it, ST_UNEXPECTED_KEY, tk[k], NULL, NULL);
    }
    free(gk);
    free(tk);
    return rc;
}

/* A cell's text, cut to the widest line a report can have. */
static char *call_cell(const ts_report_call *call, const char *none)
{
    ts_buf text, cut;

    ts_buf_init(&text, TS_BUF_UNLIMITED);
    ts_buf_init(&cut, TS_BUF_UNLIMITED);
    if (call == NULL)
        ts_buf_appends(&text, none);
    else
        ts_report__call(&text, call, TS_REPORT_VALUE_CUT);
    if (ts_buf_error(&text) == 0)
        ts_repr_fit_end(text.data, text.len, TS_REPORT_WIDTH_MAX, &cut);
    ts_buf_fail(&cut, ts_buf_error(&text));
    ts_buf_free(&text);
    return ts_buf_detach(&cut, NULL);
}

static int fill_row(const ts_report_ctx *c, item *it)
{
    const ts_report_row *row = &c->rows[it->first];
    const ts_report_call *g = row->g != TS_REPORT_NONE ? &c->gold[row->g] : NULL;
    const ts_report_call *t = row->t != TS_REPORT_NONE ? &c->trace[row->t] : NULL;
    ts_buf label;
    int rc = 0;

    ts_buf_init(&label, 64);
    ts_report__row_label(&label, row);
    it->label = ts_buf_detach(&label, NULL);
    it->expected = call_cell(g, TS_REPORT_EM_DASH " EXTRA " TS_REPORT_EM_DASH);
    it->actual = call_cell(t, TS_REPORT_EM_DASH " MISSING " TS_REPORT_EM_DASH);
    if (it->label == NULL || it->expected == NULL || it->actual == NULL)
        return -ENOMEM;
    if (g == NULL)
        status_add(it, ST_TEXT, "EXTRA", NULL, NULL);
    else if (t == NULL)
        status_add(it, ST_TEXT, "MISSING", NULL, NULL);
    else if (g->tool_len != t->tool_len || memcmp(g->tool, t->tool, g->tool_len) != 0)
        status_add(it, ST_TEXT, "tool", NULL, NULL); /* written from the tools */
    else
        rc = args_status(it, g, t, c->r->strict, c->compare);
    if (rc == 0 && it->n_status == 0)
        status_add(it, ST_TEXT, TS_REPORT_CHECK_MARK, NULL, NULL);
    return rc;
}

/* ---- status text ---- */

static void repr_of(ts_buf *out, const struct json_object *v)
{
    ts_buf tmp;

    ts_buf_init(&tmp, TS_REPORT_VALUE_MAX);
    /* a value past what one value may take is shown cut: its own buffer's
     * limit is not the report's */
    if (ts_repr_value(v, &tmp) == -E2BIG)
        ts_buf_appends(out, TS_REPORT_ELLIPSIS);
    else if (ts_buf_error(&tmp) < 0)
        ts_buf_fail(out, ts_buf_error(&tmp));
    else
        ts_buf_append(out, tmp.data ? tmp.data : "", tmp.len);
    ts_buf_free(&tmp);
}

/* Status line s of row it, fitted to width cells (TS_REPORT_WIDTH_MAX: as
 * wide as it naturally is, values cut to TS_REPORT_VALUE_CUT). */
static void status_text(const table *t, const item *it, const status_line *s, size_t width,
                        ts_buf *out)
{
    const ts_report_ctx *c = t->c;
    ts_buf line, a, b, fa, fb;
    status_line shown; /* what the line names: a path and two values */
    size_t room, each, wa, wb, path;

    ts_buf_init(&line, TS_BUF_UNLIMITED);
    if (s->kind == ST_TEXT && strcmp(s->text, "tool") == 0) {
        const ts_report_row *row = &c->rows[it->first];
        const ts_report_call *g = &c->gold[row->g], *tr = &c->trace[row->t];
        ts_buf_init(&a, TS_BUF_UNLIMITED);
        ts_buf_init(&b, TS_BUF_UNLIMITED);
        ts_repr_string(g->tool, g->tool_len, &a);
        ts_repr_string(tr->tool, tr->tool_len, &b);
        shown = (status_line){ST_VALUE, "tool", NULL, NULL, NULL};
        s = &shown;
    } else if (s->kind == ST_VALUE) {
        ts_buf_init(&a, TS_BUF_UNLIMITED);
        ts_buf_init(&b, TS_BUF_UNLIMITED);
        repr_of(&a, s->a);
        repr_of(&b, s->b);
        shown = (status_line){ST_VALUE, s->path, NULL, NULL, NULL};
        s = &shown;
    } else {
        if (s->kind == ST_MISSING_KEY)
            ts_buf_appends(&line, "missing: ");
        else if (s->kind == ST_UNEXPECTED_KEY)
            ts_buf_appends(&line, "unexpected: ");
        if (s->kind == ST_TEXT)
            ts_buf_appends(&line, s->text);
        else
            ts_report__name(&line, s->text, strlen(s->text));
        if (ts_buf_error(&line) == 0)
            ts_repr_fit_end(line.data, line.len, width, out);
        ts_report__drop(out, &line);
        return;
    }
    /* values up to TS_REPORT_VALUE_CUT + 1 cells each; the path gives way
     * first (its end kept), down to a quarter of the line */
    wa = ts_repr_width(a.data ? a.data : "", a.len);
    wb = ts_repr_width(b.data ? b.data : "", b.len);
    wa = wa < TS_REPORT_VALUE_CUT + 1 ? wa : TS_REPORT_VALUE_CUT + 1;
    wb = wb < TS_REPORT_VALUE_CUT + 1 ? wb : TS_REPORT_VALUE_CUT + 1;
    path = ts_repr_width(s->text, strlen(s->text));
    if (path + 2 + 3 + wa + wb > width)
        path = width > 5 + wa + wb + width / 4 ? width - 5 - wa - wb : width / 4;
    ts_repr_fit_start(s->text, strlen(s->text), path, &line); /* names escaped already */
    ts_buf_appends(&line, ": ");
    room = ts_repr_width(line.data, line.len) + 3 + 6 < width
               ? width - ts_repr_width(line.data, line.len) - 3
               : 6;
    if (wa + wb <= room)
        each = wa > wb ? wa : wb;
    else if ((wa < wb ? wa : wb) <= room / 2)
        each = room - (wa < wb ? wa : wb);
    else
        each = room / 2;
    each = each < TS_REPORT_VALUE_CUT + 1 ? each : TS_REPORT_VALUE_CUT + 1;
    ts_buf_init(&fa, TS_BUF_UNLIMITED);
    ts_buf_init(&fb, TS_BUF_UNLIMITED);
    if (ts_buf_error(&a) == 0 && ts_buf_error(&b) == 0)
        ts_repr_fit_pair(a.data ? a.data : "", a.len, b.data ? b.data : "", b.len, each, &fa, &fb);
    ts_buf_fail(&line, ts_buf_error(&a));
    ts_buf_fail(&line, ts_buf_error(&b));
    ts_buf_append(&line, fa.data ? fa.data : "", fa.len);
    ts_buf_appends(&line, " " TS_REPORT_NOT_EQUAL " ");
    ts_buf_append(&line, fb.data ? fb.data : "", fb.len);
    ts_buf_fail(&line, ts_buf_error(&fa));
    ts_buf_fail(&line, ts_buf_error(&fb));
    if (ts_buf_error(&line) == 0)
        ts_repr_fit_end(line.data, line.len, width, out);
    ts_report__drop(out, &line);
    ts_buf_free(&a);
    ts_buf_free(&b);
    ts_buf_free(&fa);
    ts_buf_free(&fb);
}

static size_t status_width(const table *t, const item *it, const status_line *s)
{
    ts_buf line;
    size_t w;

    ts_buf_init(&line, TS_BUF_UNLIMITED);
    status_text(t, it, s, TS_REPORT_WIDTH_MAX, &line);
    w = ts_repr_width(line.data ? line.data : "", line.len);
    ts_buf_free(&line);
    return w;
}

static void more_status_text(const item *it, ts_buf *out)
{
    ts_buf_appendf(out, TS_REPORT_ELLIPSIS " %zu more", it->more_status);
}

/* ---- layout ---- */

static size_t max_of(size_t a, size_t b)
{
    return a > b ? a : b;
}

/* Natural widths of the columns, then, when the line is too wide, shared
 * out: Status (what changed) keeps its width up to three fifths of the
 * room, or more when the calls need less; Expected and Actual split the rest, the
 * narrower keeping its width when it needs less than half. */
static void layout(table *t)
{
    size_t ne = strlen("Expected"), na = strlen("Actual"), ns = strlen("Status"), room, rest;

    t->w_label = 1;
    for (size_t k = 0; k < t->n; k++) {
        const item *it = &t->items[k];
        if (it->kind != ITEM_ROW)
            continue;
        t->w_label = max_of(t->w_label, ts_repr_width(it->label, strlen(it->label)));
        ne = max_of(ne, ts_repr_width(it->expected, strlen(it->expected)));
        na = max_of(na, ts_repr_width(it->actual, strlen(it->actual)));
        for (size_t s = 0; s < it->n_status; s++)
            ns = max_of(ns, status_width(t, it, &it->status[s]));
        if (it->more_status > 0)
            ns = max_of(ns, 16);
    }
    room = t->c->width > t->w_label + SEPARATORS + 6 ? t->c->width - t->w_label - SEPARATORS : 6;
    t->w_expected = ne;
    t->w_actual = na;
    t->w_status = ns;
    if (ne + na + ns <= room)
        return;
    t->w_status = ns < max_of(room * 3 / 5, room > ne + na ? room - ne - na : 0)
                      ? ns
                      : max_of(room * 3 / 5, room > ne + na ? room - ne - na : 0);
    rest = room - t->w_status;
    if (ne <= rest / 2)
        t->w_actual = rest - ne;
    else if (na <= rest / 2)
        t->w_expected = rest - na;
    else {
        t->w_expected = rest / 2;
        t->w_actual = rest - rest / 2;
    }
}

/* ---- writing ---- */

static void pad_cell(ts_buf *out, const char *s, size_t width, bool fit)
{
    size_t before = out->len, w;

    if (fit)
        ts_repr_fit_end(s, strlen(s), width, out);
    else
        ts_buf_appends(out, s);
    w = ts_buf_error(out) == 0 ? ts_repr_width(out->data + before, out->len - before) : width;
    ts_report__repeat(out, ' ', width > w ? width - w : 0);
}

static void line_start(const table *t, ts_buf *out, const char *label, const char *e, const char *a)
{
    size_t w = ts_repr_width(label, strlen(label));

    ts_report__repeat(out, ' ', t->w_label > w ? t->w_label - w : 0);
    ts_buf_appends(out, label);
    ts_buf_appends(out, " | ");
    pad_cell(out, e, t->w_expected, true);
    ts_buf_appends(out, " | ");
    pad_cell(out, a, t->w_actual, true);
    ts_buf_appends(out, " |");
}

static const char *row_colour(const ts_report_ctx *c, ts_report_kind kind)
{
    switch (kind) {
    case TS_REPORT_CHANGED:
        return ts_report__paint(c, TS_REPORT_YELLOW);
    case TS_REPORT_MISSING:
        return ts_report__paint(c, TS_REPORT_RED);
    case TS_REPORT_EXTRA:
        return ts_report__paint(c, TS_REPORT_GREEN);
    case TS_REPORT_SAME:
        break;
    }
    return "";
}

static void write_row(const table *t, const item *it, ts_buf *out)
{
    const ts_report_ctx *c = t->c;
    const char *colour = row_colour(c, c->rows[it->first].kind);
    size_t lines = it->n_status + (it->more_status > 0);

    for (size_t s = 0; s < lines && ts_buf_error(out) == 0; s++) {
        ts_buf_appends(out, colour);
        line_start(t, out, s == 0 ? it->label : "", s == 0 ? it->expected : "",
                   s == 0 ? it->actual : "");
        ts_buf_appendc(out, ' ');
        if (s < it->n_status)
            status_text(t, it, &it->status[s], t->w_status, out);
        else
            more_status_text(it, out);
        ts_buf_appends(out, colour[0] ? ts_report__paint(c, TS_REPORT_RESET) : "");
        ts_buf_appendc(out, '\n');
    }
}

/* "… 494 unchanged calls (calls[3]..calls[496]) …", fitted to the width. */
static void write_fold(const table *t, const item *it, ts_buf *out)
{
    const ts_report_ctx *c = t->c;
    const ts_report_row *a = &c->rows[it->first], *b = &c->rows[it->last];
    size_t n = it->last - it->first + 1;
    ts_buf line;

    ts_buf_init(&line, TS_BUF_UNLIMITED);
    ts_buf_appendf(&line, TS_REPORT_ELLIPSIS " %zu unchanged call%s (calls[%zu]..calls[%zu]", n,
                   n == 1 ? "" : "s", a->g, b->g);
    if (a->g != a->t)
        ts_buf_appendf(&line, ", actual calls[%zu]..calls[%zu]", a->t, b->t);
    ts_buf_appends(&line, ") " TS_REPORT_ELLIPSIS);
    ts_buf_appends(out, ts_report__paint(c, TS_REPORT_DIM));
    if (ts_buf_error(&line) == 0)
        ts_repr_fit_end(line.data, line.len, c->width, out);
    ts_report__drop(out, &line);
    ts_buf_appendf(out, "%s\n", ts_report__paint(c, TS_REPORT_RESET));
}

static void write_table(const table *t, ts_buf *out)
{
    const ts_report_ctx *c = t->c;

    ts_buf_appendf(out, "%sExpected vs Actual Tool Calls%s\n", ts_report__paint(c, TS_REPORT_BOLD),
                   ts_report__paint(c, TS_REPORT_RESET));
    ts_buf_appends(out, ts_report__paint(c, TS_REPORT_BOLD));
    line_start(t, out, "#", "Expected", "Actual");
    ts_buf_appendc(out, ' ');
    ts_repr_fit_end("Status", 6, t->w_status, out);
    ts_buf_appendf(out, "%s\n", ts_report__paint(c, TS_REPORT_RESET));
    ts_report__repeat(out, '-', t->w_label + 1);
    ts_buf_appendc(out, '+');
    ts_report__repeat(out, '-', t->w_expected + 2);
    ts_buf_appendc(out, '+');
    ts_report__repeat(out, '-', t->w_actual + 2);
    ts_buf_appendc(out, '+');
    ts_report__repeat(out, '-', t->w_status + 1);
    ts_buf_appendc(out, '\n');
    for (size_t k = 0; k < t->n && ts_buf_error(out) == 0; k++) {
        const item *it = &t->items[k];
        if (it->kind == ITEM_ROW)
            write_row(t, it, out);
        else if (it->kind == ITEM_FOLD)
            write_fold(t, it, out);
        else
            ts_buf_appendf(out, "%s" TS_REPORT_ELLIPSIS " %zu more row%s not shown%s\n",
                           ts_report__paint(c, TS_REPORT_DIM), it->last, it->last == 1 ? "" : "s",
                           ts_report__paint(c, TS_REPORT_RESET));
    }
}

/* The items: shown rows, folds, and the count of rows past the limit. */
static int collect(table *t, const unsigned char *shown)
{
    const ts_report_ctx *c = t->c;
    size_t rows = 0, k = 0;

    while (k < c->n_rows) {
        size_t end = k;
        item *it;
        while (end < c->n_rows && !shown[end])
            end++;
        if (end - k >= TS_REPORT_FOLD_MIN) { /* hidden rows k..end-1 */
            if (table_add(t, ITEM_FOLD, k, end - 1) == NULL)
                return -ENOMEM;
            k = end;
            continue;
        }
        if (rows == TABLE_ROWS_MAX) {
            if (table_add(t, ITEM_MORE, k, c->n_rows - k) == NULL)
                return -ENOMEM;
            return 0;
        }
        it = table_add(t, ITEM_ROW, k, k);
        if (it == NULL || fill_row(c, it) < 0)
            return -ENOMEM;
        rows++;
        k++;
    }
    return 0;
}

void ts_report__table(const ts_report_ctx *c, ts_buf *out)
{
    table t;
    unsigned char *shown = shown_rows(c);
    int rc = shown != NULL ? 0 : -ENOMEM;

    memset(&t, 0, sizeof(t));
    t.c = c;
    if (rc == 0)
        rc = collect(&t, shown);
    if (rc == 0) {
        layout(&t);
        write_table(&t, out);
    }
    ts_buf_fail(out, rc);
    table_free(&t);
    free(shown);
}
