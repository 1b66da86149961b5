/*
 * daemon/server — the daemon's core: the libuv loop, the listening socket,
 * connections and their frames, the memory budget and the limits on
 * connections, the ordering of work on a store (jobs), and a table of
 * methods. It knows no method but its own (hello, ping, status, stop):
 * the folders of methods (daemon/snapshots, daemon/runs) each give a
 * tsd_module, main.c hands the modules to tsd_server_run, and the core
 * walks that table. A method reaches the server only through what this
 * header declares: its request's params and reply (tsd_request_*), the
 * params reader, jobs, the log, and a few questions about the server
 * (tsd_server_*). The core never includes a method folder's header.
 */
#ifndef TSD_SERVER_H
#define TSD_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <json-c/json.h>
#include <uv.h>

#include "lib/base/ts_base.h"
#include "lib/check/ts_check.h"
#include "proto/ts_proto.h"

/*
 * log — the daemon's event log: one line per notable event (start, stop,
 * store opened, client error, slow request), filtered by level, written to
 * stderr or to a file.
 *
 * Line format: "2025-06-01T12:05:00.123Z toolscored[1234] info: message".
 * Before tsd_log_open() nothing is written; a daemon started without
 * --foreground and without --log-file logs nowhere.
 */
typedef enum tsd_log_level {
    TSD_LOG_DEBUG = 0,
    TSD_LOG_INFO = 1,
    TSD_LOG_WARN = 2,
    TSD_LOG_ERROR = 3
} tsd_log_level;

/* Parse "debug", "info", "warn" or "error". 0 or -EINVAL. */
int tsd_log_level_parse(const char *s, tsd_log_level *out);

/*
 * Start logging at level min: to the file path (appended, created 0600) when
 * path is not NULL, else to stderr when to_stderr, else nowhere.
 */
int tsd_log_open(tsd_log_level min, const char *path, int to_stderr, ts_error *err);

/* Stop logging; closes the log file. */
void tsd_log_close(void);

/* Log one line (no trailing newline in fmt) at level. */
void tsd_log(tsd_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define tsd_debug(...) tsd_log(TSD_LOG_DEBUG, __VA_ARGS__)
#define tsd_info(...) tsd_log(TSD_LOG_INFO, __VA_ARGS__)
#define tsd_warn(...) tsd_log(TSD_LOG_WARN, __VA_ARGS__)
#define tsd_error(...) tsd_log(TSD_LOG_ERROR, __VA_ARGS__)

/*
 * options — the daemon's command line.
 *
 *   toolscored [--socket PATH] [--store DIR] [--foreground] [--idle-timeout S]
 *              [--log-level debug|info|warn|error] [--log-file F]
 *              [--max-frame BYTES] [--memory-budget SIZE] [--hello-timeout S]
 *              [--frame-timeout S] [--state-dir DIR] [--runs-keep N]
 *              [--runs-max-age AGE] [-h|--help] [--version]
 *
 * Owns the strings it returns (tsd_options_free).
 */
#define TSD_DEFAULT_MAX_FRAME (16u << 20)
#define TSD_MIN_MAX_FRAME 1024u
#define TSD_MAX_MAX_FRAME (1u << 30)
#define TSD_DEFAULT_MEMORY_BUDGET (512ull << 20)
#define TSD_MIN_MEMORY_BUDGET (32ull << 20)
#define TSD_MAX_MEMORY_BUDGET (1024ull << 30)
#define TSD_DEFAULT_HELLO_TIMEOUT_MS 5000
#define TSD_DEFAULT_FRAME_TIMEOUT_MS 30000
#define TSD_DEFAULT_RUNS_KEEP 100
#define TSD_DEFAULT_RUNS_MAX_AGE_S (7 * 86400)
/* An auto-started daemon's idle timeout unless --idle-timeout or
 * TSD_IDLE_TIMEOUT_ENV says otherwise: 15 minutes. */
#define TSD_DEFAULT_AUTO_IDLE_TIMEOUT_MS (15 * 60 * 1000)
#define TSD_IDLE_TIMEOUT_ENV "TOOLSCORED_IDLE_TIMEOUT"

typedef enum tsd_action { TSD_RUN = 0, TSD_HELP, TSD_VERSION } tsd_action;

typedef struct tsd_options {
    tsd_action action;
    char *socket_path; /* NULL: the default path (or the activated socket) */
    char *store_root;  /* NULL: any store; else the one absolute root served */
    bool foreground;
    uint64_t idle_timeout_ms; /* 0: never */
    bool idle_timeout_given;  /* --idle-timeout was on the command line */
    tsd_log_level log_level;
    char *log_file; /* NULL: stderr with --foreground, else nowhere */
    size_t max_frame;
    size_t memory_budget;      /* bytes (the memory budget) */
    uint64_t hello_timeout_ms; /* the connection limits */
    uint64_t frame_timeout_ms;
    char *state_dir;        /* NULL: ts_state_default_path */
    size_t runs_keep;       /* closed runs kept */
    int64_t runs_max_age_s; /* runs closed or idle longer ago are dropped */
    /* started by a client's auto-start (TOOLSCORED_AUTO_STARTED=1 in the
     * environment, not an option): a client of another build may stop it
     * when it is idle and start its own (docs/packaging.md) */
    bool auto_started;
} tsd_options;

/*
 * Parse argv into opt. Errors (code "invalid_argument") name the option and
 * the problem, e.g. "--idle-timeout: not a number of seconds: 'x'".
 * --store is resolved to an absolute, symlink-free path (ts_paths_resolve).
 */
int tsd_options_parse(int argc, char **argv, tsd_options *opt, ts_error *err);
void tsd_options_free(tsd_options *opt);

/*
 * A daemon a client started (TOOLSCORED_AUTO_STARTED=1): marks opt so, and
 * unless --idle-timeout was given, sets its idle timeout from env (the
 * value of TOOLSCORED_IDLE_TIMEOUT, seconds; NULL or "": 15 minutes), so
 * that a daemon nobody started by hand exits once unused and an old build
 * does not serve on after an upgrade. A daemon started otherwise (systemd,
 * `make run`, --foreground) keeps its --idle-timeout, by default never.
 * "invalid_argument" naming the variable for a value that is no number of
 * seconds.
 */
int tsd_options_auto_started(tsd_options *opt, const char *env, ts_error *err);

/* The --help text. */
const char *tsd_options_usage(void);

/*
 * listen — the daemon's listening socket and everything around it: the
 * socket directory (created 0700, checked: owned by us, no group/other
 * access), the single-instance lock file beside the socket, removal of a
 * stale socket, bind + listen with mode 0600, paths longer than a socket
 * address holds, systemd socket activation (LISTEN_FDS/LISTEN_PID) and
 * readiness notification (NOTIFY_SOCKET, written by hand: no libsystemd).
 *
 * Owns the listening descriptor until the server takes it, the directory and
 * lock descriptors and the path strings (tsd_listener_release).
 */
/* sizeof(sockaddr_un.sun_path) - 1: the longest path bind() takes. */
#define TSD_SUN_PATH_MAX 107

typedef struct tsd_listener {
    int fd;          /* listening socket, -1 once taken by the server */
    int dir_fd;      /* the socket's directory (-1 when activated) */
    int lock_fd;     /* holds the exclusive flock (-1 when activated) */
    char *path;      /* absolute socket path (as reported by status) */
    char *base;      /* socket file name inside dir_fd */
    char *lock_base; /* lock file name inside dir_fd */
    bool bound;      /* we created the socket file: ours to remove */
    dev_t sock_dev;  /* identity of the socket file we bound */
    ino_t sock_ino;
    bool activated; /* the socket came from systemd: do not remove it */
} tsd_listener;

/*
 * Take over a socket passed by systemd: LISTEN_PID must be our pid and
 * LISTEN_FDS >= 1; fd 3 must be a listening Unix stream socket. *found is
 * false (and 0 returned) when no socket was passed. The variables are
 * removed from the environment.
 */
int tsd_listener_from_env(tsd_listener *l, bool *found, ts_error *err);

/*
 * Create/check the socket directory, take the lock (a second daemon gets
 * -EADDRINUSE and a message naming the pid holding the lock), remove a stale
 * socket, bind (through the directory when the path is too long for a socket
 * address; a file name that still does not fit is refused naming the limit),
 * set mode 0600 and listen.
 */
int tsd_listener_open(const char *path, tsd_listener *l, ts_error *err);

/*
 * True while the file at the socket path is still the socket we bound
 * (always true for an activated socket). A socket removed or replaced
 * behind our back cannot be reached by new clients any more.
 */
bool tsd_listener_still_ours(const tsd_listener *l);

/* Remove the socket file and the lock file (not for an activated socket),
 * release the lock and free everything. Safe on a zeroed/failed listener. */
void tsd_listener_release(tsd_listener *l, bool remove_files);

/*
 * Send one state datagram ("READY=1", "STOPPING=1") to $NOTIFY_SOCKET when
 * it was set at start-up (tsd_notify_init). Returns 0, or a negative code.
 */
void tsd_notify_init(void);
int tsd_notify(const char *state);
void tsd_notify_done(void);

/*
 * params — reading a request's params with type checks, errors that stick.
 *
 * Every error has code "invalid_argument" and names the parameter and what
 * it must be, e.g. "'min_score' must be a number, got string". An absent
 * key and nil both mean "not given". A reader keeps its first error: every
 * later read does nothing (it gives the default) and the caller looks once,
 * at tsd_params_error:
 *
 *   tsd_params p;
 *   tsd_params_init(&p, params, err);
 *   const char *store = tsd_params_string(&p, "store", true);
 *   bool all = tsd_params_bool(&p, "all", false);
 *   if (tsd_params_error(&p) < 0) return tsd_params_error(&p);
 */
typedef struct tsd_params {
    const struct json_object *obj; /* the params object (borrowed) */
    ts_error *err;                 /* the first error's code and message */
    int rc;                        /* 0, or the first error */
} tsd_params;

void tsd_params_init(tsd_params *p, const struct json_object *params, ts_error *err);

/* 0, or the first error of a read (or of tsd_params_fail). */
int tsd_params_error(const tsd_params *p);

/* Keep rc (< 0, with p->err already set by the caller) as the reader's
 * error unless it has one; returns the reader's error. For checks of the
 * caller's own (a name's validity) in the same sequence. */
int tsd_params_fail(tsd_params *p, int rc);

/* A string (valid UTF-8, no NUL), or NULL when absent; required: absent is
 * an error. */
const char *tsd_params_string(tsd_params *p, const char *key, bool required);

/* A snapshot name: a required string that ts_name_validate takes. */
const char *tsd_params_name(tsd_params *p, const char *key);

/* A format of observed calls: absent (NULL) or one ts_extract knows, else
 * "format" naming the supported ones. */
const char *tsd_params_format(tsd_params *p, const char *key);

/* The snapshot source params["source"] names (one of TS_SNAPSHOT_SOURCES,
 * else "invalid_argument" naming them), or fallback when absent. */
const char *tsd_params_source(tsd_params *p, const char *fallback);

/* A boolean; def when absent. */
bool tsd_params_bool(tsd_params *p, const char *key, bool def);

/* A number (int or float); def when absent. */
double tsd_params_number(tsd_params *p, const char *key, double def);

/* An integer; def when absent. */
int64_t tsd_params_int(tsd_params *p, const char *key, int64_t def);

/* A drift report's width: an integer from 0 (absent: the report's
 * default) to TSD_PARAMS_WIDTH_MAX (the report clamps it further). */
#define TSD_PARAMS_WIDTH_MAX 65535
int64_t tsd_params_width(tsd_params *p, const char *key);

/* A map (borrowed), or NULL when absent. */
struct json_object *tsd_params_object(tsd_params *p, const char *key);

/* Any value except nil, required (borrowed). */
struct json_object *tsd_params_value(tsd_params *p, const char *key);

/* The snapshots a request decides on: "names", a required array of valid
 * snapshot names (borrowed), or "all": true (*all set, NULL returned), not
 * both. */
struct json_object *tsd_params_names_or_all(tsd_params *p, bool *all);

/* A new JSON string of s, or the null value (NULL) when s is NULL. */
struct json_object *tsd_json_string_or_null(const char *s);

/*
 * jobs — ordering the work on one store.
 *
 * Every request that touches a store's files becomes a job of that store's
 * queue (tsd_job_queue, which the store embeds), keyed by the snapshot file
 * it touches (its path; or the whole store). A job starts only when no
 * earlier job of the same queue with a conflicting key is still queued or
 * running, so requests are applied in arrival order per snapshot while jobs
 * on different snapshots run together: "pool" jobs on libuv's thread pool
 * (the file I/O, fsyncs, extraction and scoring of check/record), "inline"
 * jobs on the loop thread (short ones that also touch loop-owned state).
 *
 * Two keys conflict when they are equal or either is the whole store (NULL),
 * except that a later single-snapshot job does not wait for an earlier
 * read-only whole-store job (a listing): each file it reads is then either
 * before or after that one write (files are replaced by rename), as for any
 * two concurrent requests, and a check is not held up by a long listing.
 * The caller allocates the job (embedded in its own context) and keeps it
 * alive until done() ran; done() runs on the loop thread and may free it.
 *
 * Group commit: a job that writes a snapshot returns from its work once
 * the file is durable; concurrent writers of the store share the renames
 * and the root's fsync (ts_store_save's commit rounds,
 * lib/store/ts_store_commit.c). A write whose file was placed but whose root
 * fsync failed leaves that error in sync_rc/sync_err for done() (which
 * replies). Until done() the job is running, so a later job of the same
 * snapshot (or a whole-store job, or a fast-path replay) does not start
 * before the write is durable and acknowledged.
 *
 * Pool threads wait in fsync and for commit rounds, so the pool needs more
 * threads than CPUs for the fsyncs of concurrent writes to overlap and for
 * them to gather into one round: unless UV_THREADPOOL_SIZE is set, jobs.c
 * sets it to TSD_JOBS_POOL_THREADS before the pool starts (at the server's
 * start, tsd_jobs_size_pool; run.report calls it too).
 *
 * Heavy jobs (those that read and parse large snapshot files: a show or a
 * check of a file over TSD_JOBS_HEAVY_BYTES, a review) take memory in
 * proportion: a 29 MiB snapshot is about 250 MB once parsed
 * (TSD_JOBS_PARSED_FACTOR times the file). At most TSD_JOBS_HEAVY_MAX of
 * them run at a time, and one starts only when the memory it will take
 * (its estimate) is admitted by the memory budget (tsd_jobs_set_admit);
 * another one waits, in its store's queue, as behind a conflicting job
 * (later jobs of other keys go on), and is looked at again when a heavy
 * job ends and on tsd_jobs_retry_heavy. What one parsed is given back to
 * the system when it ends (malloc_trim on its pool thread).
 */
/* libuv pool threads when UV_THREADPOOL_SIZE is not set (above). */
#define TSD_JOBS_POOL_THREADS 16
#define TSD_JOBS_HEAVY_MAX 1            /* heavy jobs running at once */
#define TSD_JOBS_HEAVY_BYTES (1u << 20) /* files past this make a job heavy */
#define TSD_JOBS_PARSED_FACTOR 9        /* memory of a parsed file, per byte */

/* Queues waiting for a heavy job at once, at most (every store's queue). */
#define TSD_JOBS_QUEUES_MAX 256

typedef struct tsd_job tsd_job;

/* The jobs of one store, in arrival order (zeroed: empty). */
typedef struct tsd_job_queue {
    tsd_job *head; /* queued and running jobs */
    tsd_job *tail;
    bool scheduling;    /* jobs.c is scanning the queue */
    bool heavy_waiting; /* a heavy job of it waits for another (jobs.c) */
} tsd_job_queue;

struct tsd_job {
    uv_work_t work; /* pool jobs */
    uv_loop_t *loop;
    tsd_job_queue *queue; /* its store's */
    const char *key;      /* borrowed snapshot file path; NULL = whole store */
    bool on_pool;         /* run work() on the thread pool */
    bool read_only;       /* a whole-store job that writes nothing (list): it waits for
                           * every earlier job, but later single-snapshot jobs need
                           * not wait for it */
    bool heavy;           /* reads large files: one at a time (above) */
    size_t estimate;      /* heavy: about the memory it takes, in bytes */
    bool started;
    int sync_rc; /* set by work(): a file was renamed into place but the
                  * root's fsync failed with this; 0 otherwise */
    ts_error sync_err;
    void (*work_fn)(tsd_job *job); /* the work: pool thread or loop thread */
    void (*done_fn)(tsd_job *job); /* afterwards, on the loop thread */
    tsd_job *next;                 /* in the store's queue */
};

/* Whether a heavy job of estimate bytes may start while heavy jobs of
 * running bytes run (the memory budget's rule, server_internal.h). */
typedef bool (*tsd_jobs_admit_fn)(size_t running, size_t estimate, void *arg);
void tsd_jobs_set_admit(tsd_jobs_admit_fn fn, void *arg);

/* The memory the heavy jobs running now take, about (their estimates). */
size_t tsd_jobs_heavy_bytes(void);

/* Look again at the heavy jobs waiting (the memory they wait for may have
 * been freed). Loop thread. */
void tsd_jobs_retry_heavy(void);

/* q's store is being closed: forget q if it waits for a heavy job. */
void tsd_jobs_forget(tsd_job_queue *q);

/* Size libuv's pool before its first use (above), unless the user did
 * (UV_THREADPOOL_SIZE). Idempotent; before anything queues work. */
void tsd_jobs_size_pool(void);

/* Queue job on its queue and start whatever may start. */
void tsd_jobs_submit(tsd_job *job);

/*
 * True when no job of q with a key conflicting with key (see above) is
 * queued or running: work on key done right now, on the loop thread, is
 * ordered exactly as a job submitted now would be.
 */
bool tsd_jobs_idle(const tsd_job_queue *q, const char *key);

/*
 * methods — the table the core walks, and what a method may ask of it.
 *
 * A module is a folder of methods: its table of methods and its hooks,
 * each optional but the table. The server opens the modules in the order
 * given (tsd_server_run), after its own (hello, ping, status, stop), and
 * closes them in the reverse order once the loop has drained; a module may
 * ask for an earlier module's state (tsd_server_module_state) when it is
 * opened. Hooks run on the loop thread.
 *
 * A method runs on the loop thread with the state its module's open gave,
 * the request, and the request's params (an object, owned by the request).
 * It returns 0 with *result a new value (the reply's result), a negative
 * code with err (its code goes on the wire), or TSD_ASYNC when a job took
 * the request over and will answer it with tsd_request_finish. Before
 * hello, only hello is served.
 */

/* A method's return value for a request that a job will finish later. */
#define TSD_ASYNC 1

typedef struct tsd_server tsd_server;
typedef struct tsd_request tsd_request;

typedef int (*tsd_method_fn)(void *state, tsd_request *req, const struct json_object *params,
                             struct json_object **result, ts_error *err);

typedef struct tsd_method {
    const char *name; /* as docs/protocol.md names it */
    tsd_method_fn fn;
    /* The member of its params the decoder leaves as msgpack bytes for the
     * method (tsd_request_raw), or NULL. */
    const char *raw_member;
} tsd_method;

typedef struct tsd_module {
    const char *name; /* for the log */
    const tsd_method *methods;
    size_t method_count;
    /* Before the server listens: *state for the methods and hooks. A
     * failure stops the start. */
    int (*open)(tsd_server *srv, void **state, ts_error *err);
    /* Once the server listens, before it says it is ready. */
    void (*started)(void *state);
    /* Once a second. */
    void (*tick)(void *state);
    /* What the module holds in memory, in bytes (asked once a second; the
     * memory budget counts it with what connections hold). */
    size_t (*memory)(void *state);
    /* Add the module's members to status's result o. */
    void (*status)(void *state, struct json_object *o);
    /* What keeps the daemon in use besides connections (open runs): stop
     * {if_idle} refuses while any module says more than 0. */
    size_t (*in_use)(void *state);
    /* For a store_busy error: the socket of the daemon that holds the
     * store, when the module knows it (the reply's "socket"), or NULL. */
    const char *(*busy_socket)(void *state);
    /* After the loop has drained: free the state. */
    void (*close)(void *state);
} tsd_module;

/*
 * Serve until stopped (signal, stop request, idle timeout), with the
 * methods of modules[0..count) besides the server's own. The listener's
 * socket is taken over by the server; state (the caller's) keeps the runs
 * and the kept observations. Returns 0 after a graceful stop.
 */
int tsd_server_run(const tsd_options *opt, tsd_listener *listener, const ts_state *state,
                   const tsd_module *const *modules, size_t count);

/* The state module's open gave (NULL when module is not served). */
void *tsd_server_module_state(const tsd_server *srv, const tsd_module *module);

/* The loop (jobs are queued on it), its clock in milliseconds, the
 * options the daemon runs with, its state directory and its socket. */
uv_loop_t *tsd_server_loop(const tsd_server *srv);
uint64_t tsd_server_now_ms(const tsd_server *srv);
const tsd_options *tsd_server_options(const tsd_server *srv);
const ts_state *tsd_server_state(const tsd_server *srv);
const char *tsd_server_socket(const tsd_server *srv);

/*
 * The memory budget's word on a heavy job of estimate bytes (jobs above):
 * 0 when it may ever run, else -E2BIG ("limit", naming the budget and
 * what, e.g. "this check") for the request at once.
 */
int tsd_server_refuse_heavy(const tsd_server *srv, size_t estimate, const char *what,
                            ts_error *err);

/*
 * Values a method builds (a snapshot file parsed): priced before they are
 * built (lib/json ts_json_price) and taken from the memory budget while
 * they live, given back when freed. Any thread (on the loop thread it
 * never waits). 0 when taken; -E2BIG
 * ("too_large") when more than one thing may ever take; -EBUSY ("busy")
 * when there is no room after waiting wait_ms. what starts the message
 * ("snapshot file /p/x.json"). Budget rules: server_internal.h.
 */
#define TSD_MEMORY_WAIT_POOL_MS 2000 /* how long a pool job waits for room */
int tsd_server_memory_take(tsd_server *srv, size_t bytes, unsigned wait_ms, const char *what,
                           ts_error *err);
void tsd_server_memory_give(tsd_server *srv, size_t bytes);

/*
 * request — one request between its frame and its reply, as a method sees
 * it: answered exactly once (at once by the method's return, or later
 * with tsd_request_finish from a job); the replies of a connection leave
 * in request order. A request whose connection closed first still
 * finishes its work, then is freed.
 */

/* The request's params (an object), its payload's size in bytes, and when
 * its frame arrived (uv_hrtime). */
struct json_object *tsd_request_params(const tsd_request *r);
size_t tsd_request_payload_len(const tsd_request *r);
uint64_t tsd_request_start_ns(const tsd_request *r);

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

#endif
