/*
 * ts_repr_cut — fitting text into a number of terminal cells (see
 * ts_report.h): cut at the end, in the middle, or around the part where two
 * texts differ. Cuts fall on code point boundaries and "…" (one cell) marks
 * each cut; a cut text never takes more cells than it was given.
 */
#include "lib/report/ts_report.h"

#include <stdbool.h>
#include <string.h>

#include "lib/json/ts_json.h"

#define ELLIPSIS "\xe2\x80\xa6"
#define HEAD_MIN 12 /* cells before a focus from which the text's start is kept too */

/* The boundary after the code point at s[i], and its cells. A byte that
 * does not start a valid sequence is a code point of one cell. */
static size_t step(const char *s, size_t len, size_t i, size_t *cells)
{
    uint32_t cp;
    size_t n;

    if ((unsigned char)s[i] < 0x80) {
        *cells = 1;
        return i + 1;
    }
    n = ts_utf8_decode((const unsigned char *)s + i, len - i, &cp);
    if (n == 0) {
        *cells = 1;
        return i + 1;
    }
    *cells = ts_repr_char_width(cp);
    return i + n;
}

/* The last boundary b >= from such that s[from..b) takes at most cells
 * cells (zero-width marks after it included). */
static size_t advance(const char *s, size_t len, size_t from, size_t cells)
{
    size_t i = from, used = 0;

    while (i < len) {
        size_t w, next = step(s, len, i, &w);
        if (used + w > cells)
            break;
        used += w;
        i = next;
    }
    return i;
}

/* The first boundary a <= to such that s[a..to) takes at most cells cells
 * (to is a boundary): a forward walk that keeps the earliest start. */
static size_t retreat(const char *s, size_t to, size_t cells)
{
    size_t total = ts_repr_width(s, to), i = 0;

    if (total <= cells)
        return 0;
    while (i < to && total > cells) {
        size_t w;
        i = step(s, to, i, &w);
        total -= w;
    }
    return i;
}

int ts_repr_fit_end(const char *s, size_t len, size_t width, ts_buf *out)
{
    size_t keep;

    if (ts_repr_width(s, len) <= width)
        return ts_buf_append(out, s, len);
    if (width == 0)
        return ts_buf_error(out);
    keep = advance(s, len, 0, width - 1);
    ts_buf_append(out, s, keep);
    return ts_buf_appends(out, ELLIPSIS);
}

int ts_repr_fit_start(const char *s, size_t len, size_t width, ts_buf *out)
{
    size_t from;

    if (ts_repr_width(s, len) <= width)
        return ts_buf_append(out, s, len);
    if (width == 0)
        return ts_buf_error(out);
    from = retreat(s, len, width - 1);
    ts_buf_appends(out, ELLIPSIS);
    return ts_buf_append(out, s + from, len - from);
}

int ts_repr_fit_middle(const char *s, size_t len, size_t width, ts_buf *out)
{
    size_t head, tail;

    if (ts_repr_width(s, len) <= width)
        return ts_buf_append(out, s, len);
    if (width < 2)
        return ts_repr_fit_end(s, len, width, out);
    head = advance(s, len, 0, (width - 1 + 1) / 2);
    tail = retreat(s + head, len - head, (width - 1) / 2);
    ts_buf_append(out, s, head);
    ts_buf_appends(out, ELLIPSIS);
    return ts_buf_append(out, s + head + tail, len - head - tail);
}

/*
 * s cut to width cells keeping s[f0..f1) visible with the context that
 * fits, laid out as if the focus took focus_cells (>= its own cells, the
 * wider focus of a pair) so that a pair is cut at the same places. When
 * the text before the focus is cut and there is room, half of that room
 * shows the text's start: "{'name': …'tier': 'gold'}}".
 */
static int fit_focus(const char *s, size_t len, size_t f0, size_t f1, size_t focus_cells,
                     size_t width, ts_buf *out)
{
    size_t pre = ts_repr_width(s, f0), post = ts_repr_width(s + f1, len - f1);
    size_t room, before, after, a, b;

    if (pre + ts_repr_width(s + f0, f1 - f0) + post <= width)
        return ts_buf_append(out, s, len);
    if (focus_cells + 2 > width) { /* no room for context: the focus from its start */
        if (pre <= width / 4)      /* a short head (a quote, a key) stays */
            return ts_repr_fit_end(s, len, width, out);
        if (f0 > 0)
            ts_buf_appends(out, ELLIPSIS);
        return ts_repr_fit_end(s + f0, len - f0, width - (f0 > 0), out);
    }
    room = width - focus_cells;
    if (pre <= room / 2) { /* all of the head, the tail cut */
        before = pre;
        after = room - pre - 1;
    } else if (post <= room / 2) { /* all of the tail, the head cut */
        after = post;
        before = room - post - 1;
    } else {
        before = (room - 2) / 2;
        after = room - 2 - before;
    }
    a = retreat(s, f0, before);
    b = advance(s, len, f1, after);
    if (a > 0 && before >= HEAD_MIN) { /* the start too: where the text begins */
        size_t head = advance(s, len, 0, before / 2);
        a = retreat(s, f0, before - ts_repr_width(s, head));
        ts_buf_append(out, s, head);
    }
    if (a > 0)
        ts_buf_appends(out, ELLIPSIS);
    ts_buf_append(out, s + a, b - a);
    if (b < len)
        ts_buf_appends(out, ELLIPSIS);
    return ts_buf_error(out);
}

static bool continuation(unsigned char c)
{
    return (c & 0xc0) == 0x80;
}

int ts_repr_fit_pair(const char *a, size_t alen, const char *b, size_t blen, size_t width,
                     ts_buf *out_a, ts_buf *out_b)
{
    size_t n = alen < blen ? alen : blen, p = 0, q = 0, fa, fb, focus;

    if (width < 3)
        width = 3;
    while (p < n && a[p] == b[p])
        p++;
    while (p > 0 && p < n &&
           (continuation((unsigned char)a[p]) || continuation((unsigned char)b[p])))
        p--;
    while (q < n - p && a[alen - 1 - q] == b[blen - 1 - q])
        q++;
    while (q > 0 &&
           (continuation((unsigned char)a[alen - q]) || continuation((unsigned char)b[blen - q])))
        q--;
    if (p == alen && p == blen) { /* the same text: nothing to focus on */
        ts_repr_fit_middle(a, alen, width, out_a);
        return ts_repr_fit_middle(b, blen, width, out_b);
    }
    fa = ts_repr_width(a + p, alen - q - p);
    fb = ts_repr_width(b + p, blen - q - p);
    focus = fa > fb ? fa : fb;
    if (focus + 2 > width) /* no common layout: each around its own focus */
        fit_focus(a, alen, p, alen - q, fa, width, out_a);
    else
        fit_focus(a, alen, p, alen - q, focus, width, out_a);
    if (focus + 2 > width)
        fit_focus(b, blen, p, blen - q, fb, width, out_b);
    else
        fit_focus(b, blen, p, blen - q, focus, width, out_b);
    if (ts_buf_error(out_a) < 0)
        return ts_buf_error(out_a);
    return ts_buf_error(out_b);
}
