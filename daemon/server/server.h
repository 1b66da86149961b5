/*
 * server — the event loop: accepting connections, reading frames, replying,
 * and stopping gracefully.
 *
 * One libuv loop. Each connection reads frames (proto/ts_frame), hands
 * each payload to request.c (decoding, dispatch, the reply's slot in the
 * connection's queue) and writes the replies it finishes, in request order. Work on snapshot files
 * runs as jobs (jobs.h), ordered per snapshot; a reply is encoded only after its job finished, so
 * an acknowledged write is durable.
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

#include "daemon/server/acceptor.h"
#include "daemon/server/budget.h"
#include "daemon/server/limits.h"
#include "daemon/server/listen.h"
#include "daemon/server/options.h"
#include "daemon/runs/runs.h"
#include "daemon/snapshots/stores.h"
#include "lib/base/ts_base.h"
#include "proto/ts_proto.h"
#include "lib/check/ts_check.h"

#define TSD_STOP_GRACE_MS 5000   /* bounded wait for in-flight work at stop */
#define TSD_SLOW_REQUEST_MS 500  /* requests slower than this are logged */
#define TSD_SOCKET_CHECK_MS 2000 /* how often the socket file is checked */

typedef struct tsd_server tsd_server;
typedef struct tsd_conn tsd_conn;
typedef struct tsd_listing tsd_listing; /* listing.c */

/* Wire error code of a refused peer (another user). */
#define TSD_ERR_PERMISSION "permission_denied"

typedef struct tsd_request tsd_request; /* request.h */

struct tsd_conn {
    uv_pipe_t handle; /* must stay first: handle.data is unused */
    tsd_server *server;
    ts_frame_reader reader;
    uint64_t id; /* connection number, for the log */
    uid_t uid;   /* peer credentials */
    pid_t pid;
    bool hello_done;
    bool closing;               /* no more reading; close once writes drain */
    bool reserved;              /* in a slot kept for status and stop (limits.h) */
    bool paused;                /* not read for now: back-pressure (budget.h) */
    bool feeding;               /* frames are being fed (no re-entry) */
    size_t queued_replies;      /* replies the socket did not take yet (in flight) */
    char client[128];           /* identity from hello */
    tsd_request *requests_head; /* requests not yet answered, in arrival order */
    tsd_request *requests_tail;
    size_t request_count;
    uint64_t accepted_ms;      /* loop clock at accept */
    uint64_t active_ms;        /* a frame arrived or a reply was sent then (limits.h) */
    uint64_t frame_started_ms; /* a frame began arriving then; 0 while none is partial */
    unsigned char *pending;    /* bytes read, not fed yet (the connection paused) */
    size_t pending_len;
    size_t decoding;      /* requests being decoded on the pool */
    size_t request_bytes; /* payload bytes of the requests not answered yet */
    size_t waiting_bytes; /* encoded replies waiting for an earlier one */
    size_t queued_bytes;  /* reply bytes the socket did not take yet */
    size_t held;          /* what it counts for in the budget now */
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
    uv_timer_t limits_timer; /* deadlines, resident size, paused connections */
    uint64_t limits_ticks;
    tsd_budget budget;
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
    uint64_t listing_seq;           /* counter: cursor numbers, least recently used order */
    const tsd_request *dispatching; /* the request dispatch runs for, or NULL */
};

/*
 * Serve until stopped (signal, stop request, idle timeout). The listener's
 * socket is taken over by the server; state (the caller's) keeps the runs
 * and the kept observations.
 * Returns 0 after a graceful stop.
 */
int tsd_server_run(const tsd_options *opt, tsd_listener *listener, const ts_state *state);

/* Send one encoded frame (4-byte header + payload; data is taken over):
 * written at once when the socket takes it, else queued. */
void tsd_conn_send(tsd_conn *conn, char *data, size_t len);

/* Stop reading conn; close it once every request is answered and every
 * reply written (idempotent). */
void tsd_conn_close(tsd_conn *conn);

/* Close conn now (pending writes are cancelled). */
void tsd_conn_abort(tsd_conn *conn);

/* Send conn an error of id nil (code, message) if its socket takes it at
 * once, and close it now: for a connection that broke a limit, whatever
 * it reads. */
void tsd_conn_kill(tsd_conn *conn, const char *code, const char *message);

/* What conn holds changed (a request answered, a reply written, a decode
 * done): count it, and pause or resume reading it (budget.h). */
void tsd_conn_changed(tsd_conn *conn);

/* Begin a graceful stop (idempotent). */
void tsd_server_stop(tsd_server *srv, const char *why);

/* Milliseconds since an arbitrary point (the loop's clock). */
uint64_t tsd_server_now_ms(const tsd_server *srv);

#endif
