/*
 * ts_wire_cursor — reading msgpack in place.
 *
 * A cursor walks the bytes of a msgpack value without building json-c
 * values: container headers, strings, numbers and booleans are read where
 * they lie, and a whole value can be skipped. It serves callers that need a
 * few members of a value (a check reply's outcome and score) or only the
 * extent of one (a request member kept as bytes until it is needed).
 *
 * Every length is checked against the bytes present before it is used, and
 * nothing is allocated. A string read is checked to be valid UTF-8; a
 * skipped value is checked only for its structure (lengths, nesting depth,
 * the never-used byte 0xc1), not for the protocol's value rules (bin, ext,
 * duplicate keys, UTF-8): decode it with ts_wire to have those checked.
 *
 * Errors (0 or a negative code, ts_error filled when err is not NULL):
 *   -EBADMSG "bad_frame"    truncated value or the byte 0xc1
 *   -EINVAL  "bad_request"  the next value has another type than asked for,
 *                           or a str is not valid UTF-8
 *   -E2BIG   "limit"        a skipped value nested deeper than max_depth
 * Messages name the byte offset from the start given to ts_wire_cursor_init.
 * After an error the cursor's position is unspecified.
 */
#ifndef TS_WIRE_CURSOR_H
#define TS_WIRE_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/ts_error.h"

typedef struct ts_wire_cursor {
    const unsigned char *start; /* offsets in messages count from here */
    const unsigned char *p;     /* the next value */
    const unsigned char *end;
} ts_wire_cursor;

/* The kind of the next value, from its first byte (nothing consumed). */
typedef enum ts_wire_kind {
    TS_WIRE_KIND_END,   /* no bytes left */
    TS_WIRE_KIND_NIL,   /* nil */
    TS_WIRE_KIND_BOOL,  /* true, false */
    TS_WIRE_KIND_INT,   /* any positive or negative int */
    TS_WIRE_KIND_FLOAT, /* float32, float64 */
    TS_WIRE_KIND_STR,
    TS_WIRE_KIND_ARRAY,
    TS_WIRE_KIND_MAP,
    TS_WIRE_KIND_OTHER /* bin, ext, 0xc1 */
} ts_wire_kind;

/* Start reading data[0..len). */
void ts_wire_cursor_init(ts_wire_cursor *c, const void *data, size_t len);

/* Offset of the next value from start; bytes left after it. */
size_t ts_wire_cursor_offset(const ts_wire_cursor *c);
size_t ts_wire_cursor_left(const ts_wire_cursor *c);

ts_wire_kind ts_wire_cursor_peek(const ts_wire_cursor *c);

/* Container headers: *count members (key/value pairs for a map) follow. */
int ts_wire_cursor_map(ts_wire_cursor *c, uint32_t *count, ts_error *err);
int ts_wire_cursor_array(ts_wire_cursor *c, uint32_t *count, ts_error *err);

/* A str: *s points into the cursor's bytes (not NUL-terminated), *len
 * bytes long, valid UTF-8. */
int ts_wire_cursor_str(ts_wire_cursor *c, const char **s, size_t *len, ts_error *err);

/* A bool; a number (int or float) as a double; a nil. */
int ts_wire_cursor_bool(ts_wire_cursor *c, bool *b, ts_error *err);
int ts_wire_cursor_number(ts_wire_cursor *c, double *d, ts_error *err);
int ts_wire_cursor_nil(ts_wire_cursor *c, ts_error *err);

/*
 * Skip the next value, containers with everything in them. max_depth
 * (<= 0: TS_WIRE_MAX_DEPTH) bounds the containers nested in it, the value's
 * own counting as 1. Usage: the bytes of one value are
 *   size_t at = ts_wire_cursor_offset(c);
 *   if (ts_wire_cursor_skip(c, 0, err) == 0) len = ts_wire_cursor_offset(c) - at;
 */
int ts_wire_cursor_skip(ts_wire_cursor *c, int max_depth, ts_error *err);

#endif
