/*
 * ts_repr — JSON values written as Python's repr() writes them ('str',
 * True/False/None, 1.0, [1, 2], {'k': 'v'}), and helpers for text measured in
 * code points. Used by the drift report so that its table reads exactly like
 * the reference tool's.
 */
#ifndef TS_REPR_H
#define TS_REPR_H

#include <stddef.h>

#include <json-c/json.h>

#include "ts_buf.h"

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

#endif
