/*
 * ts_jsondiff — the unified JSON diff of two call lists (see ts_report.h).
 *
 * The two documents are never written whole. Following the call
 * alignment, the diff is a sequence of pieces: a run of calls whose text is
 * the same on both sides (only their line counts are known, worked out from
 * the values' shapes), or explicit lines (a pair of calls that differ,
 * written and diffed line by line; a missing or an extra call; the list's
 * brackets). Hunks are then cut from that sequence; the few context lines
 * taken from a run are written on demand, one call at a time.
 */
#include "lib/report/ts_report.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"

#define MYERS_MAX_EDITS 256  /* a pair needing more edits is removed then added */
#define MYERS_MAX_LINES 4096 /* so is a pair whose differing middle is longer */

#define RESET "\x1b[0m"
#define RED "\x1b[31m"
#define GREEN "\x1b[32m"
#define CYAN "\x1b[36m"

/* One line of an explicit piece. */
typedef struct dline {
    char tag; /* ' ', '-', '+' */
    const char *text;
    size_t len;
    size_t old_no, new_no; /* numbers of this line (or the next one) on each side */
    size_t pos;            /* its position in the whole diff (explicit lines) */
} dline;

typedef struct piece {
    bool same;             /* a run of calls written alike on both sides */
    size_t g, t, calls;    /* same: the first calls and how many */
    size_t first, n;       /* explicit: lines[first .. first + n) */
    size_t lines;          /* lines in the piece */
    size_t pos;            /* its first line's position in the whole diff */
    size_t old_no, new_no; /* numbers of its first line on each side */
} piece;

typedef struct differ {
    const ts_jsondiff_options *opt;
    const struct json_object *gold, *trace;
    size_t ng, nt;
    size_t *g_lines, *t_lines; /* lines of each call as written in its list */
    piece *pieces;
    size_t n_pieces, cap_pieces;
    dline *lines;
    size_t n_lines, cap_lines;
    char **texts; /* written calls, owned */
    size_t n_texts, cap_texts;
    size_t changed; /* '-' and '+' lines so far */
    bool cut;       /* stopped at max_lines */
    size_t pos, old_no, new_no;
    size_t cached_call; /* a call written for context: which one */
    bool cached_gold;
    dline *cached; /* its lines (text in cached_text) */
    size_t n_cached;
    char *cached_text;
} differ;

/* ---- the shape of a written value ---- */

/* Lines of v written by json.dumps(indent=2). */
static size_t count_lines(const struct json_object *v)
{
    size_t n = 2;

    switch (json_object_get_type(v)) {
    case json_type_array:
        if (json_object_array_length(v) == 0)
            return 1;
        for (size_t i = 0; i < json_object_array_length(v); i++)
            n += count_lines(json_object_array_get_idx(v, i));
        return n;
    case json_type_object:
        if (json_object_object_length(v) == 0)
            return 1;
        json_object_object_foreach((struct json_object *)v, key, val)
        {
            (void)key;
            n += count_lines(val);
        }
        return n;
    default:
        return 1;
    }
}

/* ---- storage ---- */

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    size_t n = *cap ? *cap : 16;
    void *q;

    if (need <= *cap)
        return 0;
    while (n < need)
        n *= 2;
    q = realloc(*p, n * size);
    if (q == NULL)
        return -ENOMEM;
    *p = q;
    *cap = n;
    return 0;
}

static void differ_free(differ *d)
{
    for (size_t k = 0; k < d->n_texts; k++)
        free(d->texts[k]);
    free(d->texts);
    free(d->pieces);
    free(d->lines);
    free(d->g_lines);
    free(d->t_lines);
    free(d->cached);
    free(d->cached_text);
}

/*
 * Call i of list written as an element of the list (two more spaces, a
 * comma after all but the last call), split into lines: *lines (owned by
 * the caller) point into *text (owned by the caller). -EINVAL when the
 * call is not writable as JSON.
 */
static int write_call(const struct json_object *list, size_t n, size_t i, char **text,
                      dline **lines, size_t *n_lines)
{
    ts_buf pretty, in_list;
    size_t count = 0;
    int rc;

    *text = NULL;
    *lines = NULL;
    ts_buf_init(&pretty, TS_BUF_UNLIMITED);
    ts_buf_init(&in_list, TS_BUF_UNLIMITED);
    rc = ts_json_write_pretty(json_object_array_get_idx(list, i), &pretty, NULL);
    for (size_t k = 0; rc == 0 && k < pretty.len;) {
        const char *nl = memchr(pretty.data + k, '\n', pretty.len - k);
        size_t len = nl ? (size_t)(nl - (pretty.data + k)) : pretty.len - k;
        ts_buf_appends(&in_list, "  ");
        ts_buf_append(&in_list, pretty.data + k, len);
        if (nl == NULL && i + 1 < n)
            ts_buf_appendc(&in_list, ',');
        ts_buf_appendc(&in_list, '\n');
        count++;
        k += len + 1;
    }
    if (rc == 0)
        rc = ts_buf_error(&in_list);
    ts_buf_free(&pretty);
    if (rc == 0)
        *lines = malloc((count + 1) * sizeof(**lines));
    if (rc == 0 && *lines == NULL)
        rc = -ENOMEM;
    if (rc < 0) {
        ts_buf_free(&in_list);
        return rc;
    }
    *n_lines = 0;
    for (size_t k = 0; k < in_list.len;) {
        const char *nl = memchr(in_list.data + k, '\n', in_list.len - k);
        size_t len = (size_t)(nl - (in_list.data + k));
        (*lines)[(*n_lines)++] = (dline){' ', in_list.data + k, len, 0, 0, 0};
        k += len + 1;
    }
    *text = ts_buf_detach(&in_list, NULL);
    return 0;
}

/* ---- building the pieces ---- */

/* Append a line to the explicit piece being built; past max_lines changed
 * lines the diff is cut: nothing more is added. */
static int add_line(differ *d, char tag, const char *text, size_t len)
{
    piece *p = &d->pieces[d->n_pieces - 1];

    if (d->cut)
        return 0;
    if (tag != ' ' && d->changed >= d->opt->max_lines) {
        d->cut = true;
        return 0;
    }
    if (grow((void **)&d->lines, &d->cap_lines, d->n_lines + 1, sizeof(dline)) < 0)
        return -ENOMEM;
    d->lines[d->n_lines++] = (dline){tag, text, len, d->old_no, d->new_no, d->pos};
    p->n++;
    p->lines++;
    d->pos++;
    d->old_no += tag != '+';
    d->new_no += tag != '-';
    d->changed += tag != ' ';
    return 0;
}

/* Start an explicit piece unless the last piece is one. */
static int explicit_piece(differ *d)
{
    if (d->n_pieces > 0 && !d->pieces[d->n_pieces - 1].same)
        return 0;
    if (grow((void **)&d->pieces, &d->cap_pieces, d->n_pieces + 1, sizeof(piece)) < 0)
        return -ENOMEM;
    d->pieces[d->n_pieces++] =
        (piece){false, 0, 0, 0, d->n_lines, 0, 0, d->pos, d->old_no, d->new_no};
    return 0;
}

static int same_call(differ *d, size_t g, size_t t)
{
    piece *p = d->n_pieces > 0 ? &d->pieces[d->n_pieces - 1] : NULL;
    size_t lines = d->g_lines[g];

    if (p == NULL || !p->same || p->g + p->calls != g || p->t + p->calls != t) {
        if (grow((void **)&d->pieces, &d->cap_pieces, d->n_pieces + 1, sizeof(piece)) < 0)
            return -ENOMEM;
        p = &d->pieces[d->n_pieces++];
        *p = (piece){true, g, t, 0, 0, 0, 0, d->pos, d->old_no, d->new_no};
    }
    p->calls++;
    p->lines += lines;
    d->pos += lines;
    d->old_no += lines;
    d->new_no += lines;
    return 0;
}

static int keep_text(differ *d, char *text)
{
    if (grow((void **)&d->texts, &d->cap_texts, d->n_texts + 1, sizeof(char *)) < 0) {
        free(text);
        return -ENOMEM;
    }
    d->texts[d->n_texts++] = text;
    return 0;
}

/* A whole call as removed (gold) or added lines. */
static int whole_call(differ *d, bool gold, size_t i)
{
    char *text;
    dline *lines;
    size_t n;
    int rc = write_call(gold ? d->gold : d->trace, gold ? d->ng : d->nt, i, &text, &lines, &n);

    if (rc == 0)
        rc = keep_text(d, text);
    if (rc == 0)
        rc = explicit_piece(d);
    for (size_t k = 0; rc == 0 && k < n; k++)
        rc = add_line(d, gold ? '-' : '+', lines[k].text, lines[k].len);
    free(lines);
    return rc;
}

static bool line_eq(const dline *a, const dline *b)
{
    return a->len == b->len && memcmp(a->text, b->text, a->len) == 0;
}

/*
 * Myers' diff of a[0..n) and b[0..m) as a script of 'e', 'd', 'i' into
 * *script (n + m bytes, owned by the caller); -E2BIG past
 * MYERS_MAX_EDITS edits.
 */
static int myers(const dline *a, size_t n, const dline *b, size_t m, char *script, size_t *len)
{
    size_t max = n + m < MYERS_MAX_EDITS ? n + m : MYERS_MAX_EDITS;
    ptrdiff_t off = (ptrdiff_t)max + 1, found = -1;
    ptrdiff_t *v = calloc(2 * max + 3, sizeof(*v));
    ptrdiff_t *trace = malloc((max + 1) * (2 * max + 3) * sizeof(*trace));
    size_t k_out = 0;

    if (v == NULL || trace == NULL) {
        free(v);
        free(trace);
        return -ENOMEM;
    }
    for (ptrdiff_t e = 0; e <= (ptrdiff_t)max && found < 0; e++) {
        for (ptrdiff_t k = -e; k <= e; k += 2) {
            ptrdiff_t x = (k == -e || (k != e && v[off + k - 1] < v[off + k + 1]))
                              ? v[off + k + 1]
                              : v[off + k - 1] + 1;
            ptrdiff_t y = x - k;
            while (x < (ptrdiff_t)n && y < (ptrdiff_t)m && line_eq(&a[x], &b[y])) {
                x++;
                y++;
            }
            v[off + k] = x;
            if (x >= (ptrdiff_t)n && y >= (ptrdiff_t)m) {
                found = e;
                break;
            }
        }
        memcpy(trace + (size_t)e * (2 * max + 3), v, (2 * max + 3) * sizeof(*v));
    }
    if (found < 0) {
        free(v);
        free(trace);
        return -E2BIG;
    }
    /* Back from (n, m): the script is built reversed, then turned round. */
    {
        ptrdiff_t x = (ptrdiff_t)n, y = (ptrdiff_t)m;
        for (ptrdiff_t e = found; e > 0; e--) {
            const ptrdiff_t *pv = trace + (size_t)(e - 1) * (2 * max + 3);
            ptrdiff_t k = x - y, pk, px, py;
            pk = (k == -e || (k != e && pv[off + k - 1] < pv[off + k + 1])) ? k + 1 : k - 1;
            px = pv[off + pk];
            py = px - pk;
            while (x > px && y > py) {
                script[k_out++] = 'e';
                x--;
                y--;
            }
            script[k_out++] = pk == k + 1 ? 'i' : 'd';
            x = px;
            y = py;
        }
        while (x > 0 && y > 0) {
            script[k_out++] = 'e';
            x--;
            y--;
        }
    }
    for (size_t i = 0; i < k_out / 2; i++) {
        char c = script[i];
        script[i] = script[k_out - 1 - i];
        script[k_out - 1 - i] = c;
    }
    *len = k_out;
    free(v);
    free(trace);
    return 0;
}

/* Two calls that differ: written, then diffed line by line (their common
 * first and last lines aside, the middle by Myers when it is short and
 * close enough, else line against line when both middles have as many
 * lines, else removed then added). */
static int changed_pair(differ *d, size_t g, size_t t)
{
    char *ta = NULL, *tb = NULL, *script = NULL;
    dline *a = NULL, *b = NULL;
    size_t na = 0, nb = 0, len = 0, head = 0, tail = 0, i, j;
    int rc = write_call(d->gold, d->ng, g, &ta, &a, &na);

    if (rc == 0)
        rc = write_call(d->trace, d->nt, t, &tb, &b, &nb);
    if (rc == 0 && (rc = keep_text(d, ta)) == 0)
        ta = NULL;
    if (rc == 0 && (rc = keep_text(d, tb)) == 0)
        tb = NULL;
    while (rc == 0 && head < na && head < nb && line_eq(&a[head], &b[head]))
        head++;
    while (rc == 0 && tail < na - head && tail < nb - head &&
           line_eq(&a[na - 1 - tail], &b[nb - 1 - tail]))
        tail++;
    if (rc == 0)
        rc = (script = malloc(na + nb + 1)) != NULL ? 0 : -ENOMEM;
    if (rc == 0) {
        size_t ma = na - head - tail, mb = nb - head - tail;
        rc = ma + mb <= MYERS_MAX_LINES ? myers(a + head, ma, b + head, mb, script, &len) : -E2BIG;
        if (rc == -E2BIG && ma == mb) { /* as many lines: line by line */
            len = 0;
            for (size_t k = 0; k < ma; k++) {
                if (line_eq(&a[head + k], &b[head + k])) {
                    script[len++] = 'e';
                } else {
                    script[len++] = 'd';
                    script[len++] = 'i';
                }
            }
            rc = 0;
        } else if (rc == -E2BIG) { /* too different: all removed, then all added */
            memset(script, 'd', ma);
            memset(script + ma, 'i', mb);
            len = ma + mb;
            rc = 0;
        }
    }
    if (rc == 0)
        rc = explicit_piece(d);
    for (i = 0; rc == 0 && i < head; i++)
        rc = add_line(d, ' ', a[i].text, a[i].len);
    j = head;
    for (size_t k = 0; rc == 0 && k < len && !d->cut; k++) {
        if (script[k] == 'e') {
            rc = add_line(d, ' ', a[i].text, a[i].len);
            i++;
            j++;
        } else if (script[k] == 'd') {
            rc = add_line(d, '-', a[i].text, a[i].len);
            i++;
        } else {
            rc = add_line(d, '+', b[j].text, b[j].len);
            j++;
        }
    }
    for (; rc == 0 && i < na && !d->cut; i++)
        rc = add_line(d, ' ', a[i].text, a[i].len);
    free(script);
    free(ta);
    free(tb);
    free(a);
    free(b);
    return rc;
}

static int pair(differ *d, size_t g, size_t t)
{
    bool comma_g = g + 1 < d->ng, comma_t = t + 1 < d->nt;

    if (comma_g == comma_t && ts_json_identical(json_object_array_get_idx(d->gold, g),
                                                json_object_array_get_idx(d->trace, t)))
        return same_call(d, g, t);
    return changed_pair(d, g, t);
}

static int bracket(differ *d, bool open)
{
    int rc = explicit_piece(d);

    if (rc < 0)
        return rc;
    if (d->ng > 0 && d->nt > 0)
        return add_line(d, ' ', open ? "[" : "]", 1);
    if (d->ng == 0 && d->nt == 0)
        return open ? add_line(d, ' ', "[]", 2) : 0;
    if (d->ng == 0 && open)
        rc = add_line(d, '-', "[]", 2);
    if (d->ng > 0 && rc == 0)
        rc = add_line(d, '-', open ? "[" : "]", 1);
    if (d->nt == 0 && !open && rc == 0)
        rc = add_line(d, '+', "[]", 2);
    if (d->nt > 0 && rc == 0)
        rc = add_line(d, '+', open ? "[" : "]", 1);
    return rc;
}

/* Enough changed lines: the rest is not diffed. */
static bool full(const differ *d)
{
    return d->changed >= d->opt->max_lines;
}

static int build(differ *d, const ts_align_op *ops, size_t n_ops)
{
    int rc = bracket(d, true);

    for (size_t k = 0; rc == 0 && !d->cut && k < n_ops; k++) {
        const ts_align_op *op = &ops[k];
        size_t ng = op->i2 - op->i1, nt = op->j2 - op->j1, paired = ng < nt ? ng : nt;
        for (size_t p = 0; rc == 0 && !d->cut && p < ng + nt - paired; p++) {
            if (full(d))
                d->cut = true; /* something is left: say the diff was cut */
            else if (p < paired)
                rc = pair(d, op->i1 + p, op->j1 + p);
            else if (p < ng)
                rc = whole_call(d, true, op->i1 + p);
            else
                rc = whole_call(d, false, op->j1 + p - ng + paired);
        }
    }
    if (rc == 0 && !d->cut)
        rc = bracket(d, false);
    return rc;
}

/* ---- reading the whole diff by position ---- */

static const piece *piece_at(const differ *d, size_t pos)
{
    size_t lo = 0, hi = d->n_pieces;

    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->pieces[mid].pos <= pos)
            lo = mid;
        else
            hi = mid;
    }
    return &d->pieces[lo];
}

/* Line k of call i of a list, written for context (one call kept). */
static int context_line(differ *d, bool gold, size_t i, size_t k, dline *out)
{
    if (d->cached == NULL || d->cached_call != i || d->cached_gold != gold) {
        free(d->cached);
        free(d->cached_text);
        d->cached = NULL;
        d->cached_text = NULL;
        int rc = write_call(gold ? d->gold : d->trace, gold ? d->ng : d->nt, i, &d->cached_text,
                            &d->cached, &d->n_cached);
        if (rc < 0)
            return rc;
        d->cached_call = i;
        d->cached_gold = gold;
    }
    if (k >= d->n_cached)
        return -EINVAL; /* the shape and the text disagree: cannot happen */
    *out = d->cached[k];
    return 0;
}

/* The line at pos of the whole diff, with its numbers. */
static int line_at(differ *d, size_t pos, dline *out)
{
    const piece *p = piece_at(d, pos);
    size_t k = pos - p->pos, call;
    int rc;

    if (!p->same) {
        *out = d->lines[p->first + k];
        return 0;
    }
    /* the call of the run holding line k, walking from the nearer end */
    if (k < p->lines / 2) {
        for (call = 0; k >= d->g_lines[p->g + call]; call++)
            k -= d->g_lines[p->g + call];
    } else {
        size_t from_end = p->lines - k; /* 1 for the last line */
        for (call = p->calls - 1; from_end > d->g_lines[p->g + call]; call--)
            from_end -= d->g_lines[p->g + call];
        k = d->g_lines[p->g + call] - from_end;
    }
    rc = context_line(d, true, p->g + call, k, out);
    out->tag = ' ';
    out->old_no = p->old_no + (pos - p->pos);
    out->new_no = p->new_no + (pos - p->pos);
    return rc;
}

/* ---- writing the hunks ---- */

static void mark(const differ *d, ts_buf *out, char tag)
{
    if (d->opt->color && tag != ' ')
        ts_buf_appends(out, tag == '-' ? RED : GREEN);
    ts_buf_appendc(out, tag);
}

static void end_mark(const differ *d, ts_buf *out, char tag)
{
    if (d->opt->color && tag != ' ')
        ts_buf_appends(out, RESET);
    ts_buf_appendc(out, '\n');
}

/* A run of changed lines: when as many lines were removed as added, the
 * k-th removed line and the k-th added one are cut alike (where they
 * differ), whatever order the two kinds come in. */
static void write_run(const differ *d, const dline *run, size_t n, ts_buf *out)
{
    size_t removed = 0, seen[2] = {0, 0}, width = d->opt->width > 1 ? d->opt->width - 1 : 1;
    size_t *order = NULL; /* order[k]: the k-th removed line, then the k-th added one */

    for (size_t k = 0; k < n; k++)
        removed += run[k].tag == '-';
    if (removed * 2 == n && (order = malloc(n * sizeof(*order))) != NULL) {
        for (size_t k = 0; k < n; k++)
            order[(run[k].tag == '+') * removed + seen[run[k].tag == '+']++] = k;
        seen[0] = seen[1] = 0;
    }
    for (size_t k = 0; k < n && ts_buf_error(out) == 0; k++) {
        const dline *l = &run[k];
        size_t nth = seen[l->tag == '+']++;
        const dline *partner = order ? &run[order[(l->tag == '-') * removed + nth]] : NULL;
        mark(d, out, l->tag);
        if (partner != NULL && ts_repr_width(l->text, l->len) > width) {
            const dline *a = l->tag == '-' ? l : partner, *b = l->tag == '-' ? partner : l;
            ts_buf fa, fb;
            ts_buf_init(&fa, TS_BUF_UNLIMITED);
            ts_buf_init(&fb, TS_BUF_UNLIMITED);
            ts_repr_fit_pair(a->text, a->len, b->text, b->len, width, &fa, &fb);
            ts_buf_fail(out, ts_buf_error(&fa));
            ts_buf_fail(out, ts_buf_error(&fb));
            if (l->tag == '-')
                ts_buf_append(out, fa.data ? fa.data : "", fa.len);
            else
                ts_buf_append(out, fb.data ? fb.data : "", fb.len);
            ts_buf_free(&fa);
            ts_buf_free(&fb);
        } else {
            ts_repr_fit_middle(l->text, l->len, width, out);
        }
        end_mark(d, out, l->tag);
    }
    free(order);
}

static void range(ts_buf *out, char sign, size_t start, size_t count)
{
    if (count == 1)
        ts_buf_appendf(out, "%c%zu", sign, start);
    else
        ts_buf_appendf(out, "%c%zu,%zu", sign, count == 0 ? start - 1 : start, count);
}

static int write_hunk(differ *d, size_t from, size_t to, ts_buf *out)
{
    dline first, l, *run = NULL;
    size_t old_count = 0, new_count = 0, n_run = 0, cap_run = 0;
    int rc = line_at(d, from, &first);

    for (size_t pos = from; rc == 0 && pos < to; pos++) {
        rc = line_at(d, pos, &l);
        old_count += l.tag != '+';
        new_count += l.tag != '-';
    }
    if (rc < 0)
        return rc;
    ts_buf_appends(out, d->opt->color ? CYAN "@@ " : "@@ ");
    range(out, '-', first.old_no, old_count);
    ts_buf_appendc(out, ' ');
    range(out, '+', first.new_no, new_count);
    ts_buf_appends(out, d->opt->color ? " @@" RESET "\n" : " @@\n");
    for (size_t pos = from; rc == 0 && pos <= to; pos++) {
        if (pos < to)
            rc = line_at(d, pos, &l);
        if (rc == 0 && (pos == to || l.tag == ' ') && n_run > 0) {
            write_run(d, run, n_run, out);
            n_run = 0;
        }
        if (rc < 0 || pos == to)
            break;
        if (l.tag == ' ') {
            mark(d, out, ' ');
            ts_repr_fit_middle(l.text, l.len, d->opt->width > 1 ? d->opt->width - 1 : 1, out);
            end_mark(d, out, ' ');
        } else if ((rc = grow((void **)&run, &cap_run, n_run + 1, sizeof(*run))) == 0) {
            run[n_run++] = l;
        }
    }
    free(run);
    return rc;
}

/* The hunks: each change with context lines around it, changes whose
 * contexts touch or overlap in one hunk. */
static int write_hunks(differ *d, ts_buf *out)
{
    size_t ctx = d->opt->context, total = d->pos, start = 0, end = 0;
    bool open = false;
    int rc = 0;

    for (size_t k = 0; rc == 0 && k < d->n_lines; k++) {
        size_t pos = d->lines[k].pos;
        if (d->lines[k].tag == ' ')
            continue;
        if (open && pos <= end + 2 * ctx) {
            end = pos + 1;
            continue;
        }
        if (open)
            rc = write_hunk(d, start, end + ctx < total ? end + ctx : total, out);
        start = pos > ctx ? pos - ctx : 0;
        end = pos + 1;
        open = true;
    }
    if (rc == 0 && open)
        rc = write_hunk(d, start, end + ctx < total ? end + ctx : total, out);
    return rc;
}

int ts_jsondiff_calls(const struct json_object *expected, const struct json_object *actual,
                      const ts_align_op *ops, size_t n_ops, const ts_jsondiff_options *opt,
                      ts_buf *out)
{
    differ d;
    ts_buf text;
    int rc = 0;

    memset(&d, 0, sizeof(d));
    d.opt = opt;
    d.gold = expected;
    d.trace = actual;
    d.ng = json_object_array_length(expected);
    d.nt = json_object_array_length(actual);
    d.old_no = d.new_no = 1;
    d.g_lines = malloc((d.ng + 1) * sizeof(size_t));
    d.t_lines = malloc((d.nt + 1) * sizeof(size_t));
    if (d.g_lines == NULL || d.t_lines == NULL)
        rc = -ENOMEM;
    for (size_t i = 0; rc == 0 && i < d.ng; i++)
        d.g_lines[i] = count_lines(json_object_array_get_idx(expected, i));
    for (size_t i = 0; rc == 0 && i < d.nt; i++)
        d.t_lines[i] = count_lines(json_object_array_get_idx(actual, i));
    if (rc == 0)
        rc = build(&d, ops, n_ops);
    ts_buf_init(&text, TS_BUF_UNLIMITED);
    if (rc == 0 && d.changed > 0) {
        ts_buf_appendf(&text, "%s- expected%s\n%s+ actual%s\n\n", opt->color ? RED : "",
                       opt->color ? RESET : "", opt->color ? GREEN : "", opt->color ? RESET : "");
        rc = write_hunks(&d, &text);
        if (rc == 0 && d.cut)
            ts_buf_appendf(&text, "\xe2\x80\xa6 (cut after %zu changed line%s)\n", d.changed,
                           d.changed == 1 ? "" : "s");
        if (rc == 0)
            rc = ts_buf_error(&text);
        if (rc == 0)
            ts_buf_append(out, text.data, text.len);
    }
    ts_buf_free(&text);
    differ_free(&d);
    return rc < 0 ? rc : ts_buf_error(out);
}
