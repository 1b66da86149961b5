/*
 * proto — the wire format both ends share (docs/protocol.md): frames (a
 * 4-byte length and a msgpack payload, ts_frame), msgpack values to and
 * from json-c and straight from the bytes (ts_wire, ts_wire_cursor),
 * requests and replies (ts_message, ts_reply_view), and where a daemon's
 * socket and state are (ts_paths). Above lib/ only: the daemon and the
 * client library include this header, never each other.
 */
#ifndef TS_PROTO_H
#define TS_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <json-c/json.h>
#include <msgpack.h>

#include "lib/base/ts_base.h"
#include "lib/score/ts_score.h"

/*
 * ts_frame — the framing layer of the toolscored protocol.
 *
 * A frame is a 4-byte unsigned big-endian payload length N (1 <= N <= max)
 * followed by N payload bytes holding one msgpack value (docs/protocol.md).
 * This module writes frame headers and owns an incremental frame reader: it
 * accepts bytes in chunks of any size (one byte at a time or many frames at
 * once), refuses a header announcing more than the maximum before any payload
 * is buffered, and hands out each complete payload to the caller.
 *
 * The reader grows its payload buffer as bytes arrive (never allocating the
 * announced length up front), so a peer that announces 16 MiB and sends
 * nothing costs nothing.
 *
 *   ts_frame_reader r;
 *   ts_frame_reader_init(&r, TS_FRAME_DEFAULT_MAX);
 *   while (len > 0) {
 *       size_t used;
 *       int rc = ts_frame_reader_feed(&r, p, len, &used, &err);
 *       p += used, len -= used;
 *       if (rc < 0) ...close the connection...;
 *       if (rc == 1) { payload = ts_frame_reader_take(&r, &n); ...; free(payload); }
 *   }
 *   ts_frame_reader_free(&r);
 */
#define TS_FRAME_HEADER_SIZE 4
#define TS_FRAME_DEFAULT_MAX ((size_t)16 << 20) /* 16 MiB of payload */
#define TS_FRAME_LIMIT_MAX ((size_t)UINT32_MAX) /* largest max a header can express */

/* Stable wire error codes of the framing layer. */
#define TS_ERR_BAD_FRAME "bad_frame"             /* not a well-formed frame/value */
#define TS_ERR_FRAME_TOO_LARGE "frame_too_large" /* announced length over the max */

/* Write the header for a payload of len bytes into out[0..4). */
void ts_frame_put_header(unsigned char out[TS_FRAME_HEADER_SIZE], uint32_t len);

/* Read the payload length from a 4-byte header. */
uint32_t ts_frame_get_header(const unsigned char in[TS_FRAME_HEADER_SIZE]);

/*
 * Check an announced payload length against max: 0 is "bad_frame" (-EBADMSG),
 * over max is "frame_too_large" (-EMSGSIZE, the message names both numbers).
 */
int ts_frame_check_length(uint32_t len, size_t max, ts_error *err);

typedef struct ts_frame_reader {
    size_t max;                                 /* largest payload accepted */
    unsigned char header[TS_FRAME_HEADER_SIZE]; /* header bytes seen so far */
    size_t header_len;                          /* 0..4 */
    size_t need;                                /* payload length, once the header is read */
    unsigned char *payload;                     /* owned, grows as bytes arrive */
    size_t have;                                /* payload bytes received */
    size_t cap;                                 /* payload bytes allocated */
    int failed;                                 /* sticky error (negative) or 0 */
    int ready;                                  /* a complete payload waits to be taken */
} ts_frame_reader;

/* Prepare r for a stream; max 0 means TS_FRAME_DEFAULT_MAX. */
void ts_frame_reader_init(ts_frame_reader *r, size_t max);

/*
 * Feed up to len bytes of the stream. Consumes bytes only up to the end of the
 * current frame and sets *consumed to the count used; the caller feeds the
 * rest after taking the payload. Returns:
 *    1  a complete payload is ready: take it with ts_frame_reader_take()
 *       before feeding more (feeding first returns -EBUSY);
 *    0  all bytes consumed, more are needed;
 *   <0  the stream is broken ("frame_too_large" -EMSGSIZE, "bad_frame"
 *       -EBADMSG for a zero length, "no_memory" -ENOMEM); the reader stays
 *       failed and returns the same code on every later feed.
 */
int ts_frame_reader_feed(ts_frame_reader *r, const void *data, size_t len, size_t *consumed,
                         ts_error *err);

/*
 * Take the ready payload: returns a malloc'ed buffer the caller frees (with a
 * NUL byte after the len bytes, not counted), or NULL when none is ready.
 * The reader then waits for the next frame's header.
 */
unsigned char *ts_frame_reader_take(ts_frame_reader *r, size_t *len);

/* True when the reader holds a partial frame (bytes of a header or payload):
 * an end of stream now means the peer sent a truncated frame. */
int ts_frame_reader_partial(const ts_frame_reader *r);

/* Release the buffers; r may be initialized again. */
void ts_frame_reader_free(ts_frame_reader *r);

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

/*
 * The price of decoding data[0..len) (one value) with ts_wire_decode: the
 * bytes of heap its json-c tree takes (lib/json's prices: an empty map is
 * 784 bytes, so a 4 MB frame of them is 3 GB), found by one walk that
 * allocates nothing, for a caller that refuses what its memory cannot
 * hold before decoding. *cost is set also on an error: the price of what
 * was walked, which bounds what a decode builds before it fails at the
 * same place. Errors as ts_wire_cursor_skip's; bytes after the value are
 * not looked at.
 */
int ts_wire_price(const void *data, size_t len, int max_depth, size_t *cost, ts_error *err);

/*
 * ts_message — requests and replies of the toolscored protocol.
 *
 * Encodes a request, an ok reply or an error reply as one complete frame
 * (header + msgpack payload), and decodes a frame's payload into a request
 * or a reply, validating the envelope's shape (docs/protocol.md, "Messages"):
 *
 *   request      {"id": uint, "method": str, "params": map}   (params: map,
 *                nil or absent = {}; no other keys)
 *   ok reply     {"id": uint, "ok": true, "result": value}
 *   error reply  {"id": uint|nil, "ok": false,
 *                 "error": {"code": str, "message": str, "socket": str (store_busy only)}}
 *
 * Decoding a request reads the envelope pair by pair, so when "id" precedes
 * a refused value (as every encoder here writes it) the error still carries
 * the id: the server answers it with that id and keeps the connection. An
 * error whose id could not be read is answered with id nil, after which the
 * server closes the connection.
 *
 * Ownership: decoded requests and replies own their strings and values;
 * release them with ts_request_free() / ts_reply_free().
 */
#define TS_PROTOCOL_VERSION 1
#define TS_METHOD_MAX 64 /* longest method name accepted */

/* Stable wire error codes beyond those of lib/base/ts_base.h, ts_frame and
 * ts_wire (the full list is in docs/protocol.md). */
#define TS_ERR_HELLO_REQUIRED "hello_required"     /* first request was not hello */
#define TS_ERR_VERSION_MISMATCH "version_mismatch" /* hello with another protocol */
#define TS_ERR_UNKNOWN_METHOD "unknown_method"     /* no such method */
#define TS_ERR_STORE_REFUSED "store_refused"       /* daemon pinned to another store */
#define TS_ERR_BUSY "busy"                         /* too many connections/requests */
#define TS_ERR_SHUTTING_DOWN "shutting_down"       /* the daemon is stopping */

typedef struct ts_request {
    bool has_id; /* id was read (also after a later error) */
    uint64_t id;
    char *method;               /* owned */
    struct json_object *params; /* owned; an object on success */
    /* ts_message_decode_request_raw only: the params member left as bytes
     * (raw.found), raw.at/raw.len counted from raw_data, inside the payload
     * (valid as long as the payload is) */
    ts_wire_raw_member raw;
    const unsigned char *raw_data;
    size_t raw_base; /* where raw_data starts in the payload (for messages) */
} ts_request;

typedef struct ts_reply {
    bool has_id; /* false for id nil (a connection-level error) */
    uint64_t id;
    bool ok;
    struct json_object *result; /* owned, ok replies only (NULL is null) */
    ts_error error;             /* error replies: the server's code and message */
    char *error_socket;         /* owned: an error's "socket" (store_busy), else NULL */
} ts_reply;

/*
 * Append one frame holding the request {id, method, params} to out. params
 * NULL is sent as {}; otherwise it must be an object. The frame is built
 * apart and appended only when complete, so on failure out is unchanged.
 * Errors: "invalid_argument" (params not an object, bad UTF-8, NaN),
 * "limit" (nesting), "too_large" (-E2BIG) when the payload would pass
 * max_frame bytes (0 = TS_FRAME_DEFAULT_MAX) or out's own maximum.
 */
int ts_message_encode_request(ts_buf *out, uint64_t id, const char *method,
                              const struct json_object *params, size_t max_frame, ts_error *err);

/*
 * As ts_message_encode_request, with one more member key: value in params,
 * packed straight from the caller's value (neither copied nor referenced,
 * so a value shared between threads may be sent from several at once). key
 * must not already be a member of params.
 */
int ts_message_encode_request_with(ts_buf *out, uint64_t id, const char *method,
                                   const struct json_object *params, const char *key,
                                   const struct json_object *value, size_t max_frame,
                                   ts_error *err);

/* Append one ok reply frame {id, ok: true, result} to out (same rules). */
int ts_message_encode_result(ts_buf *out, uint64_t id, const struct json_object *result,
                             size_t max_frame, ts_error *err);

/*
 * Packs a result value with w (one value, nested one level inside the
 * envelope: headers it writes count from depth 1); 0 or a negative error,
 * as ts_wire_pack.
 */
typedef int (*ts_message_packer)(ts_wire_writer *w, void *arg, ts_error *err);

/*
 * Pack a check's scoring result r exactly as ts_wire_pack packs
 * ts_score_result_to_json(r) (same keys, order and types), without building
 * that tree. depth: containers already open around the result map.
 */
int ts_message_pack_score_result(ts_wire_writer *w, const ts_score_result *r, int depth,
                                 ts_error *err);

/* As ts_message_encode_result, the result written by pack(w, arg, err)
 * instead of from a json-c tree (a hot reply without building one). */
int ts_message_encode_result_with(ts_buf *out, uint64_t id, ts_message_packer pack, void *arg,
                                  size_t max_frame, ts_error *err);

/*
 * Append one error reply frame to out. id NULL sends id nil. Bytes of message
 * that are not valid UTF-8 and control characters (a newline included) are
 * sent as '?', and a message longer than TS_ERROR_MESSAGE_MAX is cut, so
 * the message is one printable line and this fails only on -ENOMEM.
 */
int ts_message_encode_error(ts_buf *out, const uint64_t *id, const char *code, const char *message,
                            ts_error *err);

/* As ts_message_encode_error, the error map carrying a third member
 * "socket": socket (store_busy: the socket of the daemon that holds the
 * store). */
int ts_message_encode_error_socket(ts_buf *out, const uint64_t *id, const char *code,
                                   const char *message, const char *socket, ts_error *err);

/*
 * Decode a request payload. On failure the error code tells what happened
 * ("bad_frame": not one msgpack value; "bad_request": a refused value or a
 * wrong envelope; "limit": nesting) and req->has_id/req->id tell whether the
 * id was read. req is always initialized; free it with ts_request_free().
 */
int ts_message_decode_request(const void *payload, size_t len, ts_request *req, ts_error *err);
void ts_request_free(ts_request *req);

/*
 * The member of a method's params to leave as bytes when decoding its
 * request (ts_message_decode_request_raw), or NULL for none.
 */
typedef const char *(*ts_message_raw_choice)(const char *method);

/*
 * As ts_message_decode_request, except that the params member choose(method)
 * names (when the method precedes params in the map, as clients send it) is
 * not decoded (ts_wire_decode_prefix_raw): when present, req->raw.found is
 * set and its bytes stay in the payload. Errors of a broken envelope or of
 * the other members are as ts_message_decode_request gives them; an error
 * in the member's value comes from ts_message_expand_raw.
 */
int ts_message_decode_request_raw(const void *payload, size_t len, ts_message_raw_choice choose,
                                  ts_request *req, ts_error *err);

/*
 * The id of a request payload without decoding it: true with *id when the
 * map's "id" member (among its first three, values skipped in place) is an
 * unsigned int. For a request refused before it is decoded (one whose
 * values the daemon's memory cannot hold), so that it is still answered
 * with its id.
 */
bool ts_message_peek_id(const void *payload, size_t len, uint64_t *id);

/*
 * Decode req's raw member (the payload it was decoded from must still be
 * there) and add it to params under its key: the value and the errors a
 * full ts_message_decode_request gives for it. Nothing to do (0) when the
 * member was absent.
 */
int ts_message_expand_raw(const ts_request *req, struct json_object *params, ts_error *err);

/*
 * Decode a reply payload (client side). Unknown envelope keys are ignored
 * (forward compatibility); a missing or mistyped id/ok/result/error is
 * "bad_reply". An error reply decodes successfully (returns 0) with ok false
 * and reply->error filled. Free with ts_reply_free().
 */
#define TS_ERR_BAD_REPLY "bad_reply"
int ts_message_decode_reply(const void *payload, size_t len, ts_reply *reply, ts_error *err);
void ts_reply_free(ts_reply *reply);

/*
 * Check a hello request's params for the protocol version this side speaks:
 * "invalid_argument" when "protocol" is missing or not an integer,
 * "version_mismatch" with the message "client speaks protocol X, server
 * speaks protocol 1" otherwise when it differs.
 */
int ts_message_check_hello(const struct json_object *params, ts_error *err);

/*
 * ts_reply_view — an ok reply read in place, without json-c values.
 *
 * The common reply, {"id": uint, "ok": true, "result": value} (keys in any
 * order, unknown keys skipped), is checked with the msgpack cursor
 * (ts_proto.h) and its result located as bytes inside the payload,
 * for a caller that reads a few members of the result where they lie.
 *
 * This is a fast path, not a second envelope decoder: anything else (an
 * error reply, an id nil or written as a signed int, a duplicate envelope
 * key, a malformed payload) is refused without a reason, and the caller
 * decodes the payload with ts_message_decode_reply, which tells what it is
 * and produces the same errors for every reply. Values skipped here
 * (unknown envelope keys) are checked for their structure only (lengths,
 * nesting, byte 0xc1), as ts_wire_cursor_skip does.
 */
typedef struct ts_reply_view {
    uint64_t id;
    const unsigned char *result; /* the result value's bytes, inside the payload */
    size_t result_len;
} ts_reply_view;

/*
 * True when payload[0..len) is a well-formed ok reply with an unsigned id,
 * filling *out (whose result points into payload). False otherwise: decode
 * the payload with ts_message_decode_reply.
 *
 * The result is not walked twice: when it is the envelope's last member
 * (where every encoder here writes it), it is not skipped but taken to run
 * to the end of the payload, so the caller, which reads it anyway, must
 * read exactly one value from result[0..result_len) and refuse the reply
 * when bytes are left after it. Elsewhere in the envelope it is skipped and
 * result_len is its exact size.
 */
bool ts_reply_view_ok(const void *payload, size_t len, ts_reply_view *out);

/*
 * ts_paths — the paths both ends agree on: the default socket, snapshot
 * roots as stores name them, and socket addresses for long paths.
 *
 * Default socket: $XDG_RUNTIME_DIR/toolscore/toolscored.sock when
 * XDG_RUNTIME_DIR is set to an absolute path, else
 * /tmp/toolscore-<uid>/toolscored.sock. TOOLSCORE_SOCKET is read by the
 * callers (the client library and tsctl), not here.
 *
 * A sockaddr_un holds at most TS_PATHS_SUN_MAX path bytes. Longer socket
 * paths are reached through a descriptor of their directory
 * ("/proc/self/fd/N/<name>", Linux), and refused with a message naming the
 * limit only when even that does not fit; nothing is ever truncated.
 */
#define TS_PATHS_MAX 4096 /* longest path handled (PATH_MAX) */
#define TS_PATHS_SOCKET_NAME "toolscored.sock"
#define TS_PATHS_SUN_MAX (sizeof(((struct sockaddr_un *)0)->sun_path) - 1) /* 107 */

/*
 * Write the default socket path into out (outsz bytes, TS_PATHS_MAX is
 * enough). Fails with -ENAMETOOLONG ("invalid_argument") if it does not fit.
 */
int ts_paths_default_socket(char *out, size_t outsz, ts_error *err);

/*
 * Resolve path (relative to the working directory, or absolute) to an
 * absolute path with every symbolic link resolved, whether or not it exists:
 * realpath() of its deepest existing ancestor, then the rest of the
 * components with "." and ".." applied. This is how a request names its
 * store. Errors: "not_found"/"io" when an ancestor cannot be examined
 * (-EACCES, -ENOTDIR, -ELOOP), "invalid_argument" for an empty path or a
 * result over outsz bytes.
 */
int ts_paths_resolve(const char *path, char *out, size_t outsz, ts_error *err);

/* A socket address ready for bind() or connect(). */
typedef struct ts_sockaddr {
    struct sockaddr_un addr;
    socklen_t len;
    int dirfd; /* directory held open for a long path, else -1 */
} ts_sockaddr;

/*
 * Prepare the address of the socket at path. A path of up to
 * TS_PATHS_SUN_MAX bytes is used as it is; a longer one goes through an
 * O_PATH descriptor of its directory (kept in out->dirfd until
 * ts_paths_sockaddr_release). Errors: -ENOENT/-ENOTDIR/-EACCES ("io") when
 * the directory of a long path cannot be opened; -ENAMETOOLONG
 * ("invalid_argument", naming the limit) when the file name alone is too
 * long or path is over TS_PATHS_MAX.
 */
int ts_paths_sockaddr(const char *path, ts_sockaddr *out, ts_error *err);

/* Close what ts_paths_sockaddr kept open (safe to call twice). */
void ts_paths_sockaddr_release(ts_sockaddr *a);

/*
 * The daemon's rule for its socket's directory (docs/protocol.md,
 * "Transport"): a directory owned by the effective uid with no group or
 * other access. st is the directory's stat. 0 when it holds; -EPERM
 * ("invalid_argument") with a message naming dir, the owner (uid and user
 * name) and the mode found. The daemon refuses such a directory; a client
 * uses the same rule to say at once that a daemon could not start there.
 */
int ts_paths_check_socket_dir(const char *dir, const struct stat *st, ts_error *err);

/*
 * A client's rule before it talks to a daemon (docs/security.md): the
 * directory of the socket is owned by the effective uid or by root, with
 * no group or other access, so no other user can have put a socket there.
 * Returns and messages as ts_paths_check_socket_dir.
 */
int ts_paths_trust_socket_dir(const char *dir, const struct stat *st, ts_error *err);

/*
 * Open the socket directory dir (flags: O_PATH or O_RDONLY; O_DIRECTORY,
 * O_NOFOLLOW and O_CLOEXEC are added) without following a symbolic link
 * at its last component, into *out, and its fstat into *st. Applies no
 * ownership rule (the callers' rules are above). Errors: -ELOOP
 * ("invalid_argument") for a symbolic link, the message naming its owner;
 * -ENOENT ("not_found") when missing; another -errno ("io").
 */
int ts_paths_open_socket_dir(const char *dir, int flags, int *out, struct stat *st, ts_error *err);

/* The directory part of socket_path into out ("." for a bare name, "/" for
 * a file of the root). 0, or -ENAMETOOLONG when out is too small. */
int ts_paths_socket_dir_of(const char *socket_path, char *out, size_t outsz);

/* "uid N (name)", or "uid N" when the user has no name, into out. */
void ts_paths_describe_uid(uid_t uid, char *out, size_t outsz);

#endif
