/*
 * server — the event loop: accepting connections, reading frames, replying,
 * and stopping gracefully.
 *
 * One libuv loop, one thread. Each connection reads frames (proto/ts_frame),
 * decodes requests (proto/ts_wire), hands them to dispatch and writes the
 * replies in request order. Requests are executed to completion on the loop
 * thread, which makes every store operation serialized in arrival order: two
 * checks of one name can never interleave, and a write is durable before its
 * reply is queued.
 *
 * Owns the connections, the store registry and the runs.
 */
#ifndef TSD_SERVER_H
#define TSD_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <uv.h>

#include "listen.h"
#include "options.h"
#include "runs.h"
#include "stores.h"
#include "ts_frame.h"

#define TSD_MAX_CONNECTIONS 512          /* open client connections */
#define TSD_MAX_IN_FLIGHT 4096           /* unread replies before requests get "busy" */
#define TSD_MAX_QUEUED_BYTES (64u << 20) /* unread reply bytes before the connection closes */
#define TSD_STOP_GRACE_MS 5000           /* bounded wait for in-flight work at stop */
#define TSD_SLOW_REQUEST_MS 500          /* requests slower than this are logged */

typedef struct tsd_server tsd_server;

typedef struct tsd_conn {
    uv_pipe_t handle; /* must stay first: handle.data is unused */
    tsd_server *server;
    ts_frame_reader reader;
    uint64_t id; /* connection number, for the log */
    uid_t uid;   /* peer credentials */
    pid_t pid;
    bool hello_done;
    bool closing;          /* no more reading; close once writes drain */
    size_t queued_replies; /* replies the socket did not take yet (in flight) */
    char client[128];      /* identity from hello */
    struct tsd_conn *prev, *next;
} tsd_conn;

struct tsd_server {
    uv_loop_t *loop;
    const tsd_options *options;
    tsd_listener *listener;
    uv_pipe_t listen_handle;
    uv_signal_t sigterm, sigint, sighup;
    uv_timer_t idle_timer;
    uv_timer_t stop_timer;
    tsd_conn *conns;
    size_t connection_count;
    uint64_t next_conn_id;
    bool listening;
    bool stopping;
    bool stop_requested; /* set by the stop method; acted on after the reply */
    uint64_t started_ms;
    uint64_t requests_served;
    tsd_stores stores;
    tsd_runs runs;
};

/*
 * Serve until stopped (signal, stop request, idle timeout). The listener's
 * socket is taken over by the server. Returns 0 after a graceful stop.
 */
int tsd_server_run(const tsd_options *opt, tsd_listener *listener);

/* Begin a graceful stop (idempotent). */
void tsd_server_stop(tsd_server *srv, const char *why);

/* Milliseconds since an arbitrary point (the loop's clock). */
uint64_t tsd_server_now_ms(const tsd_server *srv);

#endif
