/*
 * request — one request between its frame and its reply.
 *
 * A frame's payload is decoded (the params member the method table names
 * left as bytes: tsd_dispatch_raw_member; a large payload whole, on the
 * pool), refused when the daemon is stopping or the connection's slot
 * does not serve the method (limits.h), or handed to dispatch. Every request holds a slot at the
 * tail of its connection's queue from its frame on, and is answered exactly once
 * (tsd_request_finish, at once or later from a job): its reply is encoded into the slot, and the
 * replies at the head of the queue leave in request order. A request whose
 * connection closed first still finishes its work, then is freed.
 */
#ifndef TSD_REQUEST_H
#define TSD_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "daemon/server/server.h"
#include "lib/base/ts_base.h"
#include "proto/ts_proto.h"

/* dispatch's return value for a request that a job will finish later. */
#define TSD_ASYNC 1

struct tsd_request {
    tsd_server *server;
    tsd_conn *conn; /* NULL once the connection is gone */
    bool has_id;
    uint64_t id;
    char *method;               /* owned */
    struct json_object *params; /* owned: an object */
    uint64_t start_ns;
    size_t payload_len; /* bytes of the request's frame payload */
    /* The params member left as msgpack bytes, while dispatch runs only (the
     * bytes are the frame's; cleared when dispatch returns): see
     * tsd_request_raw. */
    ts_wire_raw_member raw;
    const unsigned char *raw_data;
    size_t counted;   /* payload bytes counted in its connection's request_bytes */
    bool done;        /* the reply is encoded in frame */
    bool close_after; /* close the connection after this reply */
    char *frame;      /* the encoded reply frame */
    size_t frame_len;
    struct tsd_request *next; /* in the connection's queue */
};

/* Payloads over this are decoded on the pool, not on the loop thread. */
#define TSD_DECODE_ON_LOOP_MAX (64u << 10)

/*
 * One complete frame payload read on conn (malloc'd; taken over). A
 * request whose envelope is broken after its id was read is answered with
 * that id and the connection stays; one without a readable id is answered
 * with id nil and the connection is closed. A payload over
 * TSD_DECODE_ON_LOOP_MAX is decoded on the pool, whole (no member left as
 * bytes), while conn is not read (budget.h), so that the requests of a
 * connection are still dispatched in arrival order.
 */
void tsd_request_handle(tsd_conn *conn, unsigned char *payload, size_t len);

/* Answer conn with an error of id nil (code, message), then close it: the
 * connection is beyond repair (a broken frame, a refused peer). */
void tsd_request_connection_error(tsd_conn *conn, const char *code, const char *message);

/*
 * Answer r: rc < 0 with err (its code and message), else result (borrowed).
 * Replies leave in request order. Runs on the loop thread; r is freed
 * (now, or once its reply was handed to the connection).
 */
void tsd_request_finish(tsd_request *r, int rc, const struct json_object *result, ts_error *err);

/*
 * As tsd_request_finish, the result written by pack(w, arg, err) straight
 * into the reply frame (no json-c tree; see ts_message_encode_result_with).
 * A packing error is answered like a result that cannot be sent.
 */
void tsd_request_finish_packed(tsd_request *r, int rc, ts_message_packer pack, void *arg,
                               ts_error *err);

/*
 * For work done on the pool: tsd_request_encode encodes r's reply (rc < 0:
 * err, else result, or what pack(arg) writes when pack is set) into a new
 * frame (*frame NULL when out of memory),
 * reading nothing but r's id and the options, so any thread may call it
 * while r waits; tsd_request_finish_encoded then answers r with it on the
 * loop thread (the frame is taken over), as tsd_request_finish would.
 */
void tsd_request_encode(const tsd_request *r, int rc, const struct json_object *result,
                        ts_message_packer pack, void *arg, ts_error *err, char **frame,
                        size_t *len);
void tsd_request_finish_encoded(tsd_request *r, int rc, const ts_error *err, char *frame,
                                size_t len);

/*
 * The bytes of r's params member left as msgpack (the method's raw member)
 * into *len, or NULL when there is none (absent, decoded, or dispatch is
 * over). Only while dispatch runs.
 */
const void *tsd_request_raw(const tsd_request *r, size_t *len);

/*
 * Decode r's raw member into r->params under its key, with the errors a
 * full decode of the request gives (logged like any bad request); 0 when
 * there is none. Only while dispatch runs; afterwards tsd_request_raw is
 * NULL.
 */
int tsd_request_expand_raw(tsd_request *r, ts_error *err);

/* Write the finished replies at the head of conn's queue, in request order
 * (server.c calls it once a connection can take them). */
void tsd_requests_flush(tsd_conn *conn);

/* conn is closed: free its answered requests, detach the others (they
 * finish without a connection). */
void tsd_requests_detach(tsd_conn *conn);

#endif
