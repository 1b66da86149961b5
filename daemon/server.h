/*
 * server — the event loop: accepting connections, reading frames, replying,
 * and stopping gracefully.
 *
 * One libuv loop. Each connection reads frames (proto/ts_frame), decodes
 * requests (proto/ts_message), hands them to dispatch and writes the replies
 * in request order: every request has a slot in its connection's queue, and
 * a reply leaves only when every earlier one has. Work on snapshot files runs
 * as jobs (jobs.h), ordered per snapshot; a reply is encoded only after its
 * job finished, so an acknowledged write is durable.
 *
 * Owns the connections, the store registry and the runs.
 */
#ifndef TSD_SERVER_H
#define TSD_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <json-c/json.h>
#include <uv.h>

#include "acceptor.h"
#include "listen.h"
#include "options.h"
#include "runs.h"
#include "stores.h"
#include "ts_error.h"
#include "ts_frame.h"
#include "ts_message.h"

#define TSD_MAX_CONNECTIONS 512          /* open client connections */
#define TSD_MAX_IN_FLIGHT 4096           /* unread replies before requests get "busy" */
#define TSD_MAX_QUEUED_BYTES (64u << 20) /* unread reply bytes before the connection closes */
#define TSD_STOP_GRACE_MS 5000           /* bounded wait for in-flight work at stop */
#define TSD_SLOW_REQUEST_MS 500          /* requests slower than this are logged */
#define TSD_SOCKET_CHECK_MS 2000         /* how often the socket file is checked */

typedef struct tsd_server tsd_server;
typedef struct tsd_conn tsd_conn;
typedef struct tsd_listing tsd_listing; /* listing.c */

/* dispatch's return value for a request that a job will finish later. */
#define TSD_ASYNC 1

/* One request between its frame and its reply. */
typedef struct tsd_request {
    tsd_server *server;
    tsd_conn *conn; /* NULL once the connection is gone */
    bool has_id;
    uint64_t id;
    char *method;               /* owned */
    struct json_object *params; /* owned: an object */
    uint64_t start_ns;
    size_t payload_len; /* bytes of the request's frame payload */
    /* Set for dispatch only (the check method takes and clears it): the
     * decoded frame when its params member "actual" was left as bytes in
     * the payload, else NULL. See tsd_request_decode_raw. */
    const ts_request *wire;
    bool done;        /* the reply is encoded in frame */
    bool close_after; /* close the connection after this reply */
    char *frame;      /* the encoded reply frame */
    size_t frame_len;
    struct tsd_request *next; /* in the connection's queue */
} tsd_request;

struct tsd_conn {
    uv_pipe_t handle; /* must stay first: handle.data is unused */
    tsd_server *server;
    ts_frame_reader reader;
    uint64_t id; /* connection number, for the log */
    uid_t uid;   /* peer credentials */
    pid_t pid;
    bool hello_done;
    bool closing;               /* no more reading; close once writes drain */
    size_t queued_replies;      /* replies the socket did not take yet (in flight) */
    char client[128];           /* identity from hello */
    tsd_request *requests_head; /* requests not yet answered, in arrival order */
    tsd_request *requests_tail;
    size_t request_count;
    struct tsd_conn *prev, *next;
};

struct tsd_server {
    uv_loop_t *loop;
    const tsd_options *options;
    tsd_listener *listener;
    tsd_acceptor acceptor; /* the listening socket */
    uv_signal_t sigterm, sigint, sighup;
    uv_timer_t idle_timer;
    uv_timer_t stop_timer;
    uv_timer_t socket_timer; /* is the socket file still ours? */
    tsd_conn *conns;
    size_t connection_count;
    uint64_t next_conn_id;
    bool listening;
    bool stopping;
    bool stop_requested; /* set by the stop method; acted on after the reply */
    uint64_t started_ms;
    uint64_t requests_served;
    tsd_stores stores;
    const ts_state *state; /* the state directory (runs, kept observations) */
    tsd_runs runs;
    tsd_listing *listings; /* held paged listings (listing.h) */
    size_t listing_count;
    uint64_t listing_seq; /* counter: cursor numbers, least recently used order */
};

/*
 * Serve until stopped (signal, stop request, idle timeout). The listener's
 * socket is taken over by the server; state (the caller's) keeps the runs.
 * Returns 0 after a graceful stop.
 */
int tsd_server_run(const tsd_options *opt, tsd_listener *listener, const ts_state *state);

/*
 * Answer r: rc < 0 with err (its code and message), else result (borrowed).
 * Replies leave in request order. Runs on the loop thread; r is freed.
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
 * The observed value of a check left as bytes (wire, what r->wire was when
 * dispatch began): decode it into r->params under "actual", with the errors
 * a full decode of the request gives (logged like any bad request); 0 when
 * wire is NULL. Only while dispatch runs.
 */
int tsd_request_decode_raw(tsd_request *r, const ts_request *wire, ts_error *err);

/* Begin a graceful stop (idempotent). */
void tsd_server_stop(tsd_server *srv, const char *why);

/* Milliseconds since an arbitrary point (the loop's clock). */
uint64_t tsd_server_now_ms(const tsd_server *srv);

#endif
