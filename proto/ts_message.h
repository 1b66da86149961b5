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
#ifndef TS_MESSAGE_H
#define TS_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "lib/base/ts_buf.h"
#include "lib/base/ts_error.h"
#include "proto/ts_frame.h"
#include "lib/score/ts_score.h"
#include "proto/ts_wire.h"

#define TS_PROTOCOL_VERSION 1
#define TS_METHOD_MAX 64 /* longest method name accepted */

/* Stable wire error codes beyond those of lib/ts_error.h, ts_frame.h and
 * ts_wire.h (the full list is in docs/protocol.md). */
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

#endif
