/*
 * ts_json — reading and writing JSON values.
 *
 * Values in memory are json-c objects (struct json_object): they keep int and
 * float distinct (json_type_int / json_type_double) and keep object keys in
 * the order they arrived. This module adds what json-c lacks:
 *   - a strict, bounded reader: UTF-8 validated, a depth limit, a size limit,
 *     no trailing garbage, no NaN/Infinity, errors that give line and column;
 *   - a writer that produces exactly the bytes of Python's
 *     json.dumps(v, indent=2, ensure_ascii=False) (snapshot files), and a
 *     compact single-line form (json.dumps(v, ensure_ascii=False) with
 *     separators (", ", ": ")) for messages and logs;
 *   - doubles in the shortest form that reads back to the same double,
 *     written as Python's repr writes them (1.0, 0.1, 1e-07, 1e+16).
 *
 * Ownership: a value returned through an out-parameter holds one reference
 * that the caller releases with json_object_put().
 */
#ifndef TS_JSON_H
#define TS_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "lib/base/ts_base.h" /* ts_buf, ts_error, and the reader's rule of valid UTF-8 */

#define TS_JSON_MAX_DEPTH 128         /* nesting levels accepted */
#define TS_JSON_MAX_BYTES (64u << 20) /* largest document read */
#define TS_JSON_DOUBLE_MAX 32         /* longest formatted double + NUL */

/*
 * Parse one JSON document of len bytes (need not be NUL-terminated).
 * max_depth <= 0 means TS_JSON_MAX_DEPTH. Errors (code "invalid_json" or
 * "limit"/"too_large"): invalid UTF-8, syntax errors, NaN/Infinity, trailing
 * content, depth over the limit; the message says what and where
 * ("line 3, column 7: ..."). *out is set only on success; the document
 * "null" gives *out == NULL (json-c's null). Integers are exact from INT64_MIN
 * to UINT64_MAX; a literal outside that range is an error, never rounded.
 * Duplicate keys: the last value wins, at the first key's position.
 */
int ts_json_parse(const char *buf, size_t len, int max_depth, struct json_object **out,
                  ts_error *err);

/*
 * Append v to out as json.dumps(v, indent=2, ensure_ascii=False) does
 * (no trailing newline). Fails with "invalid_argument" on NaN/Infinity or a
 * string that is not valid UTF-8, and with -E2BIG if out's maximum is passed.
 * A NULL v is written as null.
 */
int ts_json_write_pretty(const struct json_object *v, ts_buf *out, ts_error *err);

/* Same, single line: json.dumps(v, ensure_ascii=False). */
int ts_json_write_compact(const struct json_object *v, ts_buf *out, ts_error *err);

/*
 * Format d as Python's repr(float) does, into out (TS_JSON_DOUBLE_MAX bytes).
 * Returns the length, or -EINVAL for NaN/Infinity.
 */
int ts_json_format_double(double d, char *out);

/* Append s (len bytes) as a JSON string literal (quotes, escapes, no \u for
 * non-ASCII). -EINVAL if s is not valid UTF-8. */
int ts_json_write_string(const char *s, size_t len, ts_buf *out);

/* Deep copy of v (NULL stays NULL). Returns NULL only on allocation failure
 * of a non-NULL v. */
struct json_object *ts_json_copy(const struct json_object *v);

/* String value of key in obj, or NULL if absent or not a string. */
const char *ts_json_get_string(const struct json_object *obj, const char *key);

/*
 * The kind of v in the words of an error message: "null", "a boolean",
 * "a number" (integer or float), "a string", "a list", "an object"
 * ("null" for a NULL v). Static storage; never NULL.
 */
const char *ts_json_kind_word(const struct json_object *v);

/*
 * True when the two values are the same JSON: arrays item by item,
 * objects with the same keys (in any order) and equal values, strings
 * byte for byte, integers by value, floats by value and sign (-0.0 is not
 * 0.0; NaN is NaN), an integer never equal to a float (1 is not 1.0: the
 * file would change). What "the calls are already the recorded ones" means
 * for update and for a pending snapshot.
 */
bool ts_json_equal(const struct json_object *a, const struct json_object *b);

/* ts_json_equal with the object keys in the same order too: the two values
 * are written as the same text. */
bool ts_json_identical(const struct json_object *a, const struct json_object *b);

/*
 * Prices: the bytes of heap json-c takes for a tree, known before it is
 * built, so that a caller with a memory budget can refuse a document or a
 * message by what it would really cost (an empty object is 784 bytes: a
 * 3 MB text of "{}" takes about a gigabyte). Measured on json-c 0.16 and
 * glibc, never below what is allocated (tests/test_json.c holds them to
 * the measurement).
 *
 *   ts_json_cost_string(len)      a string value of len bytes
 *   ts_json_cost_key(len)         an object member's key (json-c copies it)
 *   ts_json_cost_object(members)  an object's own table (keys and values apart)
 *   ts_json_cost_array(count)     an array as ts_json_parse builds it
 *   ts_json_cost_array_sized(count)  an array made with its size known
 *                                 (json_object_new_array_ext, the wire decoder)
 *   TS_JSON_COST_SCALAR           an int, a bool or a double made directly (null: 0)
 *
 * ts_json_price: what ts_json_parse would allocate for buf[0..len), by one
 * walk over the bytes without checking them (an invalid text gets a price
 * too; the parse then refuses it). The text itself is not counted.
 */
#define TS_JSON_COST_SCALAR 64
size_t ts_json_cost_string(size_t len);
size_t ts_json_cost_key(size_t len);
size_t ts_json_cost_object(size_t members);
size_t ts_json_cost_array(size_t count);
size_t ts_json_cost_array_sized(size_t count);
size_t ts_json_price(const char *buf, size_t len);

#endif
