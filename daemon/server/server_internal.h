/*
 * daemon/server, inside the folder only: the server's own structures and
 * the files of the core, bottom up. acceptor (taking connections off the
 * listening socket), budget (what connections hold, back-pressure), limits
 * (timeouts and connection slots), conn.c (a connection: bytes in, frames
 * out), request.c (one request from its frame to its reply), dispatch.c
 * (the method table), session.c (the core's own methods) and server.c (the
 * loop, accepting, timers, stopping) at the top. A file calls only files
 * below it; what a lower file must tell an upper one goes through the
 * server's events (function pointers server.c sets).
 */
#ifndef TSD_SERVER_INTERNAL_H
#define TSD_SERVER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#include <json-c/json.h>
#include <uv.h>

#include "daemon/server/server.h"
#include "lib/base/ts_base.h"
#include "proto/ts_proto.h"

typedef struct tsd_conn tsd_conn;

/*
 * acceptor — taking new connections off the listening socket, also when the
 * daemon has run out of file descriptors.
 *
 * libuv's own accept loop meets EMFILE by accepting and closing the pending
 * connections in silence: the client sees its connection reset and cannot
 * tell why. The acceptor watches the listening socket itself (uv_poll) and
 * keeps one reserved descriptor (an open /dev/null). When accept() fails
 * with EMFILE or ENFILE it gives the reserve up, accepts the pending
 * connection with the freed slot, sends it one error reply (id nil, code
 * "busy", a message naming the descriptor limit), closes it and takes the
 * reserve back: every refused client learns why, and no connection waits
 * in the backlog, so the loop does not spin on a socket that stays
 * readable. When the reserve cannot be taken back (another thread took the
 * slot) the acceptor stops watching the socket for a short pause.
 *
 * Owns the listening descriptor (closed by tsd_acceptor_close), the reserve
 * and its two handles.
 */
#define TSD_ACCEPT_PAUSE_MS 100 /* no reserve left: wait this long, try again */
#define TSD_ACCEPT_BATCH 128    /* connections taken per wake-up, at most */

/* Called with each accepted connection's descriptor, which it then owns. */
typedef void (*tsd_accept_fn)(void *data, int fd);

typedef struct tsd_acceptor {
    uv_poll_t poll;
    uv_timer_t pause;
    int fd;         /* listening socket; -1 once closed */
    int reserve_fd; /* /dev/null held for one refused client; -1 while given up */
    bool polling;
    bool open;              /* handles initialized and not closed */
    uint64_t refused;       /* answered "busy" since the last accepted connection */
    uint64_t refused_total; /* answered "busy" since the start */
    tsd_accept_fn on_accept;
    void *data;
} tsd_acceptor;

/*
 * Start accepting on listen_fd (a listening, non-blocking or blocking Unix
 * stream socket; the acceptor owns it from now on, also on failure). Each
 * connection goes to fn(data, fd). Returns 0 or a negative libuv error.
 */
int tsd_acceptor_start(tsd_acceptor *a, uv_loop_t *loop, int listen_fd, tsd_accept_fn fn,
                       void *data);

/* Stop accepting: close the handles, the listening socket and the reserve.
 * Idempotent. New connection attempts are refused by the kernel from now. */
void tsd_acceptor_close(tsd_acceptor *a);

/*
 * budget — the daemon's memory bound and the back-pressure that keeps it.
 *
 * What a connection holds is counted: the frame it is sending (the
 * reader's buffer), bytes read but not fed yet, the requests it sent that
 * are not answered (their payload bytes, twice: the bytes and their decoded
 * values), and its replies not yet taken by the socket (queued, or waiting
 * for an earlier reply). A connection is paused (the daemon stops reading
 * its requests; it reads them again later, nothing is lost) when it has
 * TSD_CONN_PAUSE_REQUESTS requests unanswered or TSD_CONN_PAUSE_REPLY_BYTES
 * of replies unread, while one of its requests is being decoded on the
 * pool (so its requests are dispatched in order), and, while the daemon is
 * over budget, when it holds more than TSD_CONN_ALLOWANCE. It is resumed
 * below half those marks. A client that does not read its replies thus
 * holds at most about a megabyte and 64 requests, and stalls in its writes.
 *
 * Over budget: connections together hold more than the connection share
 * of --memory-budget (half of it; the rest is for caches, runs, the work
 * of the pool and the allocator's slack), or the daemon's resident size,
 * sampled every TSD_BUDGET_SAMPLE_MS, is over 90% of the budget (until it
 * is back under 75%). What the modules hold in memory (the runs) and the
 * values (below) count in that share too.
 *
 * Values: a request's decoded params and a parsed snapshot file take what
 * json-c allocates for them, up to 800 times their bytes (an empty map),
 * so they are priced before they are built (ts_wire_price,
 * ts_json_price) and taken from the budget (tsd_server_memory_take, any
 * thread) for as long as they live: one can never take more than
 * TSD_MEMORY_ONE_PERCENT of the budget (refused at once, "too_large"), and
 * all together, with what connections and modules hold, no more than
 * TSD_MEMORY_ROOM_PERCENT (one that does not fit now waits, then is
 * refused "busy"). A request priced under TSD_MEMORY_FREE_PRICE is always
 * admitted, so hello, ping, status and stop get in whatever the rest
 * takes. What is given back is returned to the system (malloc_trim on a
 * pool thread) once TSD_MEMORY_TRIM_BYTES were freed, or when the
 * resident size is over the budget while little is held.
 *
 * A connection the budget pauses while a frame of it is under way is not
 * kept waiting for that frame's deadline: after TSD_BUDGET_WAIT_MS it is
 * answered "busy" (id nil) naming the daemon's state, and closed. The
 * frame deadline counts only the time a connection is read.
 */
#define TSD_BUDGET_SAMPLE_MS 100              /* resident size sampled this often */
#define TSD_CONN_PAUSE_REQUESTS 64            /* unanswered requests that pause */
#define TSD_CONN_PAUSE_REPLY_BYTES (1u << 20) /* unread reply bytes that pause */
#define TSD_CONN_ALLOWANCE (256u << 10)       /* held while over budget, still read */
#define TSD_CONN_READ_CHUNK (64u << 10)       /* bytes read at once per connection */
#define TSD_MEMORY_ONE_PERCENT 60             /* one request or snapshot, at most */
#define TSD_MEMORY_ROOM_PERCENT 85            /* everything counted, together */
#define TSD_MEMORY_FREE_PRICE (256u << 10)    /* requests admitted whatever is taken */
#define TSD_MEMORY_WAIT_MS 2000               /* a request waits this long for room */
#define TSD_MEMORY_TRIM_BYTES (16u << 20)     /* freed values that call for a trim */
#define TSD_BUDGET_WAIT_MS 1000               /* a frame paused by the budget waits */

struct tsd_conn;
struct tsd_server;

typedef struct tsd_budget {
    size_t limit;        /* resident memory budget in bytes */
    size_t conn_limit;   /* what connections (and modules) may hold together */
    size_t held;         /* what connections hold now (sum of their counts) */
    size_t modules_held; /* what the modules hold in memory (sampled) */
    size_t rss;          /* resident size at the last sample */
    size_t rss_peak;     /* largest sample */
    size_t held_peak;    /* largest held + modules_held */
    bool rss_over;       /* the resident size is over 90% of the limit */
    size_t paused;       /* connections paused now */
    uint64_t pauses;     /* times a connection was paused, since the start */
    /* The values (above), shared with the pool's threads under lock: */
    pthread_mutex_t lock;
    pthread_cond_t given; /* values were given back */
    atomic_size_t values; /* taken now (changed under lock, read anywhere) */
    size_t values_peak;
    size_t loop_held;      /* held + modules_held, as the loop last published it */
    size_t freed;          /* values given back since the last trim */
    uint64_t refused;      /* values refused (too large, or no room in time) */
    bool trimming;         /* a malloc_trim is queued or running (loop) */
    uint64_t trimmed_ms;   /* when the last one was queued (loop clock) */
    pthread_t loop_thread; /* takes there never wait */
} tsd_budget;

/* Set the limit (bytes; 0: the default). */
void tsd_budget_init(tsd_budget *b, size_t limit);
void tsd_budget_done(tsd_budget *b);

/* The values taken now (any thread). */
size_t tsd_budget_values(const tsd_budget *b);

/*
 * Take bytes of values for what (the start of a message: "this request",
 * "snapshot file /p/x.json"): 0 when taken; -E2BIG ("too_large") when
 * they could never be (over TSD_MEMORY_ONE_PERCENT); -EBUSY ("busy") when
 * there is no room now and wait_ms passed without any (0: do not wait).
 * force takes them whatever is taken. Messages name the budget. Any thread.
 */
int tsd_budget_take(tsd_budget *b, size_t bytes, unsigned wait_ms, bool force, const char *what,
                    ts_error *err);
void tsd_budget_give(tsd_budget *b, size_t bytes);

/* Publish what connections and modules hold to the threads that take
 * values (the loop, after a change). */
void tsd_budget_publish(tsd_budget *b);

/* Queue a malloc_trim on the pool when enough was given back or the
 * resident size is over the budget while little is held (the tick; now:
 * the loop's clock). */
void tsd_budget_trim(struct tsd_server *srv, uint64_t now);

/* What conn holds now (see above), in bytes. */
size_t tsd_conn_holdings(const struct tsd_conn *conn);

/* True when the daemon is over budget (see above). */
bool tsd_budget_over(const tsd_budget *b);

/*
 * Whether conn should not be read now: with resuming false, the marks that
 * pause a reading connection; with resuming true, the lower marks a paused
 * one must be under to be read again.
 */
bool tsd_conn_should_wait(const struct tsd_server *srv, const struct tsd_conn *conn, bool resuming);

/* True when conn is paused only because the daemon is over its budget
 * (its own marks would let it be read). */
bool tsd_conn_waits_for_budget(const struct tsd_server *srv, const struct tsd_conn *conn);

/*
 * The memory of heavy jobs (server.h): one of estimate bytes may start while
 * heavy jobs of running bytes run when all that, what connections and
 * runs hold, stays under 85% of the limit (the rest is the daemon itself
 * and the allocator's slack). tsd_budget_refuse: an estimate over 60% of
 * the limit can never be admitted: -E2BIG ("limit", naming the budget)
 * for the request at once.
 */
bool tsd_budget_admits(const tsd_budget *b, size_t running, size_t estimate);
int tsd_budget_refuse(const tsd_budget *b, size_t estimate, const char *what, ts_error *err);

/* Sample the resident size. modules_held: what the modules hold now. */
void tsd_budget_sample(tsd_budget *b, size_t modules_held);

/*
 * limits — bounds in time and number on connections: the hello and frame
 * timeouts, and the connection slots.
 *
 * A connection that has not completed hello 5 s after it was accepted, or
 * that leaves a frame incomplete for 30 s (--hello-timeout,
 * --frame-timeout), is answered an error of id nil ("limit") and closed; an idle connection
 * (no partial frame) is kept however long, as test workers hold theirs
 * between tests.
 *
 * Slots: TSD_MAX_CONNECTIONS connections, plus TSD_RESERVED_SLOTS kept for
 * an operator. A newcomer that finds the general slots full takes a
 * reserved one, where only hello, ping, status and stop are served
 * (anything else: "limit") and a slot is lent for one short exchange:
 * frames of at most TSD_RESERVED_FRAME_MAX bytes, hello and each frame
 * complete within TSD_RESERVED_FRAME_MS, closed once idle for
 * TSD_RESERVED_IDLE_MS. A newcomer that finds the reserved slots full too
 * takes the place of one that has had its turn or is holding it up, in
 * this order: one answered (a request other than hello, nothing
 * unanswered), then one with a frame under way (an operator's client
 * writes each frame whole) or without hello TSD_EVICT_GRACE_MS after it
 * connected, then one idle that long after hello (the oldest first
 * within each). So idle connections, half frames, ping spam and reconnect
 * loops cannot keep `tsctl status` or `tsctl stop` out: a newcomer never
 * evicts a connection whose request is being answered, nor one within
 * TSD_EVICT_GRACE_MS of connecting or of its hello's answer, and is
 * refused ("limit") only when all eight are such.
 */
#define TSD_MAX_CONNECTIONS 512           /* general connection slots */
#define TSD_RESERVED_SLOTS 8              /* more, for status and stop */
#define TSD_RESERVED_IDLE_MS 1000         /* a reserved slot idle this long is closed */
#define TSD_RESERVED_FRAME_MS 500         /* hello, and each frame, within this */
#define TSD_RESERVED_FRAME_MAX (4u << 10) /* largest frame in a reserved slot */
#define TSD_EVICT_GRACE_MS 5   /* a reserved slot's newcomer has this long to say hello, ... */
#define TSD_LIMITS_TICK_MS 100 /* deadlines are checked this often */

struct tsd_conn;
struct tsd_server;

/* Where a newcomer goes. */
typedef enum tsd_slot { TSD_SLOT_GENERAL = 0, TSD_SLOT_RESERVED, TSD_SLOT_NONE } tsd_slot;

/*
 * The slot for newcomer (already in the server's list, not counted yet),
 * evicting an idle reserved connection when every slot is taken (see
 * above).
 */
tsd_slot tsd_limits_admit(struct tsd_server *srv, struct tsd_conn *newcomer);

/* Close the connections past their hello, frame or reserved-slot
 * deadline (now: the loop's clock in ms). */
void tsd_limits_enforce(struct tsd_server *srv, uint64_t now);

/* True when conn may run method (always, but in a reserved slot); else
 * why names the rule. */
bool tsd_limits_method_allowed(const struct tsd_conn *conn, const char *method, char *why,
                               size_t whysz);

/* status's members about these limits and the memory budget: connections
 * in reserved slots and paused, the budget, what connections, runs and
 * values hold (but own: the status request's own values), the resident
 * size. */
struct json_object;
void tsd_status_limits(const struct tsd_server *srv, size_t own, struct json_object *o);

/*
 * server — the event loop: accepting connections, reading frames, replying,
 * and stopping gracefully.
 *
 * One libuv loop. Each connection reads frames (proto/ts_frame), hands
 * each payload to request.c (decoding, dispatch, the reply's slot in the
 * connection's queue) and writes the replies it finishes, in request order.
 * Work on snapshot files runs as jobs (server.h), ordered per snapshot; a
 * reply is encoded only after its job finished, so an acknowledged write
 * is durable.
 *
 * Owns the connections and the modules' states.
 */
#define TSD_STOP_GRACE_MS 5000   /* bounded wait for in-flight work at stop */
#define TSD_SLOW_REQUEST_MS 500  /* requests slower than this are logged */
#define TSD_SOCKET_CHECK_MS 2000 /* how often the socket file is checked */
#define TSD_MODULES_MAX 8        /* modules served, the server's own included */

/* Wire error code of a refused peer (another user). */
#define TSD_ERR_PERMISSION "permission_denied"

struct tsd_conn {
    uv_pipe_t handle; /* must stay first: handle.data is unused */
    tsd_server *server;
    ts_frame_reader reader;
    uint64_t id; /* connection number, for the log */
    uid_t uid;   /* peer credentials */
    pid_t pid;
    bool hello_done;
    bool closing;               /* no more reading; close once writes drain */
    bool reserved;              /* in a slot kept for status and stop (limits) */
    bool served;                /* a request other than hello was answered (limits) */
    bool paused;                /* not read for now: back-pressure (budget) */
    uint64_t paused_ms;         /* since then (loop clock) */
    bool feeding;               /* frames are being fed (no re-entry) */
    size_t queued_replies;      /* replies the socket did not take yet (in flight) */
    char client[128];           /* identity from hello */
    tsd_request *requests_head; /* requests not yet answered, in arrival order */
    tsd_request *requests_tail;
    size_t request_count;
    uint64_t accepted_ms;      /* loop clock at accept */
    uint64_t active_ms;        /* a frame arrived or a reply was sent then (limits) */
    uint64_t frame_started_ms; /* a frame began arriving then; 0 while none is partial */
    unsigned char *pending;    /* bytes read, not fed yet (the connection paused) */
    size_t pending_len;
    size_t decoding;      /* requests being priced, waiting for memory or decoded */
    size_t request_bytes; /* payload bytes of the requests not answered yet */
    size_t waiting_bytes; /* encoded replies waiting for an earlier one */
    size_t queued_bytes;  /* reply bytes the socket did not take yet */
    size_t held;          /* what it counts for in the budget now */
    struct tsd_conn *prev, *next;
};

/*
 * What conn.c and request.c tell the files above them, set by server.c:
 * a complete frame read on a connection (request.c takes the payload), a
 * connection whose bytes broke the framing (answered with id nil, then
 * closed), a connection closed (its requests finish without it), the
 * connection count dropping, a stop request answered.
 */
typedef struct tsd_server_events {
    void (*frame)(tsd_conn *conn, unsigned char *payload, size_t len);
    void (*broken)(tsd_conn *conn, const char *code, const char *message);
    void (*closed)(tsd_conn *conn);
    void (*idle)(tsd_server *srv);
    void (*stop)(tsd_server *srv, const char *why);
} tsd_server_events;

struct tsd_server {
    uv_loop_t *loop;
    const tsd_options *options;
    tsd_listener *listener;
    tsd_acceptor acceptor; /* the listening socket */
    tsd_server_events events;
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
    const ts_state *state;                      /* the state directory (runs, kept observations) */
    const tsd_module *modules[TSD_MODULES_MAX]; /* the server's own first */
    void *module_states[TSD_MODULES_MAX];
    size_t module_count;
    const tsd_request *dispatching; /* the request dispatch runs for, or NULL */
    /* frames waiting for the budget to have room for their values, in
     * arrival order (request.c) */
    struct tsd_incoming *waiting_head, *waiting_tail;
};

/*
 * conn — one connection: reading (frames fed to events.frame, reading
 * paused and resumed by the budget), writing replies, closing.
 */

/* A new connection on fd (taken over), in the server's list, not read
 * yet; NULL when out of memory (fd closed). */
tsd_conn *tsd_conn_open(tsd_server *srv, int fd);

/* Start reading conn. */
void tsd_conn_start(tsd_conn *conn);

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
 * done): count it, and pause or resume reading it (budget). */
void tsd_conn_changed(tsd_conn *conn);

/* Connections paused by the daemon's state (over budget) may be read
 * again once it is not: every paused one is looked at. */
void tsd_conns_resume(tsd_server *srv);

/*
 * request — one request between its frame and its reply (the part the
 * core sees; server.h has what a method sees).
 *
 * A frame's payload is decoded (the params member the method table names
 * left as bytes: tsd_dispatch_raw_member; a large payload whole, on the
 * pool), refused when the daemon is stopping or the connection's slot
 * does not serve the method (limits), or handed to dispatch. Every
 * request holds a slot at the tail of its connection's queue from its
 * frame on, and is answered exactly once: its reply is encoded into the
 * slot, and the replies at the head of the queue leave in request order.
 */
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
    size_t charged;   /* values taken from the budget for its params (budget) */
    bool done;        /* the reply is encoded in frame */
    bool close_after; /* close the connection after this reply */
    char *frame;      /* the encoded reply frame */
    size_t frame_len;
    struct tsd_request *next; /* in the connection's queue */
};

/* Payloads over this are decoded on the pool, not on the loop thread. */
#define TSD_DECODE_ON_LOOP_MAX (64u << 10)

/*
 * One complete frame payload read on conn (malloc'd; taken over). Its
 * values are priced first (ts_wire_price) and taken from the memory
 * budget (server_internal.h, "Values"): a request that could never fit is
 * answered "too_large", one that finds no room within TSD_MEMORY_WAIT_MS
 * "busy", both with its id when it can be read and without decoding
 * anything. A request whose envelope is broken after its id was read is
 * answered with that id and the connection stays; one without a readable
 * id is answered with id nil and the connection is closed. A payload over
 * TSD_DECODE_ON_LOOP_MAX is priced and decoded on the pool, whole (no
 * member left as bytes). conn is not read meanwhile (budget), so that the
 * requests of a connection are still dispatched in arrival order.
 */
void tsd_request_handle(tsd_conn *conn, unsigned char *payload, size_t len);

/* Answer conn with an error of id nil (code, message), then close it: the
 * connection is beyond repair (a broken frame, a refused peer). */
void tsd_request_connection_error(tsd_conn *conn, const char *code, const char *message);

/* Frames waiting for room in the memory budget: admitted in arrival order
 * when there is room, refused "busy" after TSD_MEMORY_WAIT_MS (the tick). */
void tsd_requests_admit_waiting(tsd_server *srv);

/* Write the finished replies at the head of conn's queue, in request order
 * (conn.c calls it once a connection can take them). */
void tsd_requests_flush(tsd_conn *conn);

/* conn is closed: free its answered requests, detach the others (they
 * finish without a connection). */
void tsd_requests_detach(tsd_conn *conn);

/*
 * dispatch — the method table: the methods of the served modules, looked
 * up by name, and the questions a method may ask of the server
 * (server.h). One server runs per process: the decoder asks for a
 * method's raw member without a context (ts_message_raw_choice), so the
 * table of the running server is the file's.
 */

/* Index the methods of srv's modules (a name served twice is refused). */
int tsd_dispatch_init(tsd_server *srv, ts_error *err);
void tsd_dispatch_done(tsd_server *srv);

/* The member of method's params the decoder is to leave as msgpack bytes
 * (the method table's column; ts_message_raw_choice), or NULL. */
const char *tsd_dispatch_raw_member(const char *method);

/*
 * Run method with params (an object, owned by req) for req: 0 with
 * *result, a negative code with err, or TSD_ASYNC (server.h).
 */
int tsd_dispatch(tsd_server *srv, tsd_request *req, const char *method, struct json_object *params,
                 struct json_object **result, ts_error *err);

/* The store_busy error's socket, when a module knows it (busy_socket). */
const char *tsd_dispatch_busy_socket(const tsd_server *srv);

/* session — the server's own methods: hello, ping, status, stop. */
extern const tsd_module tsd_session_module;

#endif
