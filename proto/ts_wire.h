/*
 * ts_wire — protocol values: msgpack bytes <-> json-c values.
 *
 * The protocol carries JSON's data model in msgpack (docs/protocol.md,
 * "Values"): map with string keys <-> object (key order kept), array <->
 * array, str (valid UTF-8) <-> string, int (positive or negative, the whole
 * int64 and uint64 range) <-> integer, float32/float64 <-> double (integers
 * and doubles stay distinct in both directions), true/false, nil <-> null.
 *
 * Refused on decode: bin and ext (any type), a map key that is not a string
 * or holds a NUL byte, a duplicate key in one map, invalid UTF-8, NaN and
 * infinities (code "bad_request"); nesting deeper than TS_WIRE_MAX_DEPTH
 * containers (code "limit"); truncated input, the never-used byte 0xc1 and
 * bytes after the value (code "bad_frame").
 *
 * Decoding is done here rather than by msgpack_unpack_next(): msgpack-c's
 * unpacker stops at 32 levels of nesting and allocates whatever element
 * count a header announces; this decoder allows TS_WIRE_MAX_DEPTH levels and
 * checks every announced count against the bytes actually present before
 * allocating. Encoding uses msgpack-c's packer (smallest encodings; floats
 * are always written as float64 so a double reads back exactly).
 *
 * Ownership: a decoded value holds one reference the caller releases with
 * json_object_put(); json-c's NULL pointer is the null value.
 */
#ifndef TS_WIRE_H
#define TS_WIRE_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>
#include <msgpack.h>

#include "lib/base/ts_buf.h"
#include "lib/base/ts_error.h"

#define TS_WIRE_MAX_DEPTH 128 /* containers nested in one frame's value */
/* A reply may nest deeper than a request: a snapshot file of
 * TS_WIRE_MAX_DEPTH levels sits a few levels down in a show or review reply. */
#define TS_WIRE_REPLY_MAX_DEPTH (TS_WIRE_MAX_DEPTH + 8)

#define TS_ERR_BAD_REQUEST "bad_request" /* a value or message the protocol refuses */

/*
 * Decode exactly one msgpack value from data[0..len) into *out (NULL is the
 * null value). max_depth <= 0 means TS_WIRE_MAX_DEPTH; a top-level map or
 * array is depth 1. Errors as listed above; the message names the byte
 * offset. *out is set only on success.
 */
int ts_wire_decode(const void *data, size_t len, int max_depth, struct json_object **out,
                   ts_error *err);

/*
 * Decode the one msgpack value at the start of data[0..len) and set *used to
 * its size in bytes; bytes after it are left alone. Same rules and errors as
 * ts_wire_decode otherwise (offsets in messages are relative to data).
 */
int ts_wire_decode_prefix(const void *data, size_t len, int max_depth, struct json_object **out,
                          size_t *used, ts_error *err);

/*
 * One member of a top-level map to leave undecoded: its value is only
 * walked for its extent (ts_wire_cursor_skip) and handed back as bytes, for
 * a caller that may never need it as a tree (a check's observed calls that
 * equal the baseline byte for byte). key is set by the caller; found, at and
 * len tell where the value's bytes lie in the decoded data.
 */
typedef struct ts_wire_raw_member {
    const char *key;
    bool found;
    size_t at, len;
} ts_wire_raw_member;

/*
 * As ts_wire_decode_prefix, except that when the value is a map, its member
 * raw->key (if any) is not decoded nor put in *out but reported in raw. The
 * member's bytes are checked only for their structure here; decode them
 * with ts_wire_decode_member to apply every rule. When that structure is
 * broken, the error is the one ts_wire_decode_prefix gives for the data.
 */
int ts_wire_decode_prefix_raw(const void *data, size_t len, int max_depth, ts_wire_raw_member *raw,
                              struct json_object **out, size_t *used, ts_error *err);

/*
 * Decode the member found by ts_wire_decode_prefix_raw on the same data and
 * max_depth: the same value and the same errors (byte offsets counted from
 * data) as a full decode gives for that member.
 */
int ts_wire_decode_member(const void *data, const ts_wire_raw_member *raw, int max_depth,
                          struct json_object **out, ts_error *err);

/*
 * A msgpack packer that appends to a ts_buf, with errors that stick: the
 * first failure (the buffer's -E2BIG past its maximum or -ENOMEM, or a value
 * that cannot be sent) is kept in rc, and every later pack returns it at
 * once without writing or touching its err. So a writer packs a whole
 * message and checks once at the end (ts_wire_writer_error); the message
 * of the failure is in the err passed to the call that failed. Whether it
 * was the buffer's is ts_buf_error(out).
 */
typedef struct ts_wire_writer {
    msgpack_packer pk;
    ts_buf *out;
    int rc;
    int max_depth; /* containers allowed (TS_WIRE_MAX_DEPTH after init) */
} ts_wire_writer;

void ts_wire_writer_init(ts_wire_writer *w, ts_buf *out);

/* 0, or the writer's first failure. */
int ts_wire_writer_error(const ts_wire_writer *w);

/*
 * Pack v with w. depth is the number of containers already open around v
 * (0 for a top-level value); v's own containers may reach w->max_depth.
 * Errors: "invalid_argument" (-EINVAL) for a string or key that is not
 * valid UTF-8 or a NaN/infinite double, "limit" (-E2BIG) past the depth,
 * and the writer's own failure (-E2BIG "too_large", -ENOMEM).
 */
int ts_wire_pack(ts_wire_writer *w, const struct json_object *v, int depth, ts_error *err);

/*
 * The members of the object obj (key, value, ...) without the map header, so
 * that a caller can write a header counting more members and pack those
 * itself. depth as for ts_wire_pack, counting the map they go into.
 */
int ts_wire_pack_members(ts_wire_writer *w, const struct json_object *obj, int depth,
                         ts_error *err);

/*
 * Single values and container headers, packed exactly as ts_wire_pack packs
 * the json-c value of the same type (a reply can be written without
 * building a json-c tree first and is byte for byte the same). A string
 * must be valid UTF-8 and a double finite (-EINVAL, "invalid_argument");
 * the caller counts the nesting of the headers it writes.
 */
int ts_wire_pack_nil(ts_wire_writer *w, ts_error *err);
int ts_wire_pack_bool(ts_wire_writer *w, bool b, ts_error *err);
int ts_wire_pack_int(ts_wire_writer *w, int64_t i, ts_error *err);
int ts_wire_pack_double(ts_wire_writer *w, double d, ts_error *err);
int ts_wire_pack_str(ts_wire_writer *w, const char *s, size_t len, ts_error *err);
int ts_wire_pack_map(ts_wire_writer *w, size_t n, ts_error *err);
int ts_wire_pack_array(ts_wire_writer *w, size_t n, ts_error *err);

/*
 * Append bytes that already are one packed value (made by this writer's
 * packers earlier, e.g. kept from a previous reply), unchanged. The caller
 * vouches for them: nothing is checked but the writer's own limit.
 */
int ts_wire_pack_packed(ts_wire_writer *w, const void *bytes, size_t len, ts_error *err);

/* Append v as one msgpack value to out (see ts_wire_pack). */
int ts_wire_encode(const struct json_object *v, ts_buf *out, ts_error *err);

/*
 * Copy a peer-supplied string into out (outsz bytes) for use inside an error
 * message: control characters become '?', and it is cut (with "...") at a
 * character boundary to fit, so a message stays one printable line.
 */
void ts_wire_excerpt(const char *s, char *out, size_t outsz);

/* True when s[0..len) is valid UTF-8 (no overlong forms, no surrogates,
 * nothing above U+10FFFF). */
bool ts_wire_utf8_valid(const char *s, size_t len);

#endif
