/*
 * ts_repr — JSON values written as Python's repr() writes them ('str',
 * True/False/None, 1.0, [1, 2], {'k': 'v'}), and text measured in terminal
 * cells: widths, and fitting a text into a number of cells (cut at the end,
 * in the middle, or around the part where two texts differ). Used by the
 * drift report (ts_report) and the JSON diff (ts_jsondiff).
 */
#ifndef TS_REPR_H
#define TS_REPR_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "lib/base/ts_buf.h"

/* Append repr(v) (NULL is None). -E2BIG/-ENOMEM from out. */
int ts_repr_value(const struct json_object *v, ts_buf *out);

/* Append repr() of the string s[0..len): single quotes unless it holds ' and
 * no ", non-printable characters escaped (\n, \x07, \u2028, ...), invalid
 * UTF-8 bytes as \xNN. */
int ts_repr_string(const char *s, size_t len, ts_buf *out);

/* Append repr(v) cut to max code points, plus "…" when it was longer. */
int ts_repr_value_cut(const struct json_object *v, size_t max, ts_buf *out);

/* Append s[0..len) cut to max code points, plus "…" when it was longer;
 * never splits a UTF-8 sequence. */
int ts_repr_append_cut(const char *s, size_t len, size_t max, ts_buf *out);

/* Display width of s[0..len) in terminal cells: East Asian wide and
 * fullwidth characters (CJK, Hangul, Kana, fullwidth forms, emoji) take 2,
 * combining marks, zero-width spaces and variation selectors 0, every other
 * code point 1. */
size_t ts_repr_width(const char *s, size_t len);

/* Cells of one code point (0, 1 or 2), as ts_repr_width counts them. */
size_t ts_repr_char_width(uint32_t cp);

/* Append s[0..len), or when it is wider than width cells its first cells
 * and "…", width cells in all (lib/ts_repr_cut.c). */
int ts_repr_fit_end(const char *s, size_t len, size_t width, ts_buf *out);

/* Append s[0..len), or when it is wider than width cells "…" and its last
 * cells, width cells in all. */
int ts_repr_fit_start(const char *s, size_t len, size_t width, ts_buf *out);

/* Append s[0..len), or when it is wider than width cells its head, "…" and
 * its tail, width cells in all. */
int ts_repr_fit_middle(const char *s, size_t len, size_t width, ts_buf *out);

/*
 * Append a and b (each up to width cells) to out_a and out_b so that where
 * they differ stays visible: the text between their common prefix and
 * common suffix (the focus), with the context around it that fits, cut
 * with "…" on either side. Both are cut at the same place when their
 * focuses allow it, so the two lines read column by column. A text that
 * fits is appended whole. width below 3 counts as 3.
 */
int ts_repr_fit_pair(const char *a, size_t alen, const char *b, size_t blen, size_t width,
                     ts_buf *out_a, ts_buf *out_b);

#endif
