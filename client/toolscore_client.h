/*
 * toolscore_client.h — libtoolscore-client, the C client of toolscored.
 *
 * A small synchronous library that test workers, tsctl and language shims
 * link to talk to the toolscored daemon over its Unix socket (the protocol
 * is docs/protocol.md). No event loop, no threads, no signals, no output:
 * every failure comes back as a negative return value and a filled ts_error
 * (a stable code string and a one-line message).
 *
 *   ts_client_options opt;
 *   ts_client *c;
 *   ts_error err;
 *   ts_client_options_init(&opt);
 *   opt.client_name = "myshim/1.0";
 *   if (ts_client_connect(&opt, &c, &err) < 0) { report err.message; }
 *   ts_check_args *a = ts_check_args_new();
 *   ts_check_args_set_store(a, ".toolscore/snapshots");
 *   ts_check_args_set_name(a, "flow");
 *   ts_check_args_set_actual(a, calls);
 *   struct json_object *res;
 *   if (ts_client_check(c, a, &res, &err) == 0) { ...outcome...; json_object_put(res); }
 *   ts_check_args_free(a);
 *   ts_client_close(c);
 *
 * Connecting: the socket is opt.socket_path, else $TOOLSCORE_SOCKET, else the
 * default ($XDG_RUNTIME_DIR/toolscore/toolscored.sock or
 * /tmp/toolscore-<uid>/toolscored.sock). When nothing answers (no socket
 * file, or connection refused) and opt.autostart is set, the library starts
 * toolscored detached (its own session, stdio on /dev/null) with
 * `--socket PATH` and retries with backoff until opt.connect_timeout_ms.
 * Many processes doing this at once end with one daemon (the daemon's lock
 * makes the others exit; every client just keeps retrying). The daemon
 * binary is opt.daemon_path, else $TOOLSCORED (an error when it is no
 * executable file), else the package's own daemon (see
 * ts_client_set_package_daemon; by default "toolscored" beside the running
 * executable), else "toolscored" on PATH; when none serves, the error names
 * the three. After connecting, the library sends hello and checks the
 * protocol version. A daemon of another build than this library's that a
 * client auto-started and that is idle (no run open, no other client) is
 * stopped and this build's started in its place; any other daemon of
 * another build is used as it is (ts_client_server_version tells, for the
 * caller to say so).
 *
 * Threads and fork: a ts_client is one connection; use one per thread (no
 * two threads may use the same ts_client at once; distinct ones are
 * independent). After fork() the child may keep using a ts_client it
 * inherited: the first call in the child notices it runs in a new process
 * (a pthread_atfork handler counts forks), drops the inherited descriptor
 * (never touching the parent's stream) and connects anew. A child made
 * without running atfork handlers (a raw clone() system call, _Fork()) is
 * not noticed and must not use an inherited ts_client. A broken connection
 * is also re-established by the next call, and a request for a daemon that
 * closed an idle connection (stop, restart) goes out on a new connection,
 * starting a daemon again if allowed.
 * Descriptors are close-on-exec.
 *
 * Ownership: params passed in are borrowed (never modified or released);
 * each result returned through struct json_object ** holds one reference
 * the caller releases with json_object_put(). Result pointers may be NULL
 * when the caller does not want the result.
 *
 * Link with pkg-config: `pkg-config --cflags --libs toolscore-client`.
 */
#ifndef TOOLSCORE_CLIENT_H
#define TOOLSCORE_CLIENT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#if defined(__has_include)
#if __has_include("../lib/base/ts_base.h")
#include "../lib/base/ts_base.h"
#endif
#endif
#ifndef TS_ERROR_H
/* Installed alone: the same layout as the source tree's lib/base/ts_base.h. */
#define TS_ERROR_H
#define TS_ERROR_MESSAGE_MAX 1024
typedef struct ts_error {
    char code[40];                      /* stable code, e.g. "not_found" */
    char message[TS_ERROR_MESSAGE_MAX]; /* one line, no trailing newline */
} ts_error;
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define TS_CLIENT_PROTOCOL 1

/*
 * Return values: 0 on success; TS_CLIENT_EREMOTE when the daemon answered
 * the request with an error (err->code/err->message are the daemon's: see
 * docs/protocol.md "Error codes", e.g. "not_found", "exists",
 * "invalid_argument"); any other negative errno-style value for a local or
 * connection failure, with one of the codes below (or "invalid_argument",
 * "too_large", "no_memory" for a bad call, an oversized request, no memory).
 */
#define TS_CLIENT_EREMOTE (-EREMOTEIO)

#define TS_CLIENT_ERR_UNAVAILABLE "unavailable"   /* no daemon answered or could be started */
#define TS_CLIENT_ERR_DISCONNECTED "disconnected" /* the connection broke mid-exchange */
#define TS_CLIENT_ERR_TIMEOUT "timeout"           /* no reply within the request's deadline */
#define TS_CLIENT_ERR_BAD_REPLY "bad_reply"       /* the daemon sent something unreadable */
/* the socket is not the user's: its directory belongs to another user or
 * is open to others, or the daemon runs as another uid (nothing was sent) */
#define TS_CLIENT_ERR_UNTRUSTED "untrusted"
/* the daemon's answer when another daemon holds the store: the library
 * sends the request again to that one (see ts_client_call) */
#define TS_CLIENT_ERR_STORE_BUSY "store_busy"

/* True when err describes a failure to reach or talk to the daemon (the
 * codes above, plus the daemon's "version_mismatch" and "shutting_down"),
 * as opposed to an answer about the request itself. tsctl exits 3 on these. */
bool ts_client_error_is_connection(const ts_error *err);

typedef struct ts_client ts_client;

typedef struct ts_client_options {
    const char *socket_path;        /* NULL: $TOOLSCORE_SOCKET, else the default path */
    const char *client_name;        /* hello "client", e.g. "tsctl/0.1.0"; NULL: library name */
    bool autostart;                 /* start toolscored when none answers (default true) */
    const char *daemon_path;        /* NULL: $TOOLSCORED, the package's daemon, PATH */
    const char *const *daemon_args; /* extra arguments after --socket PATH, NULL-ended */
    int connect_timeout_ms;         /* connect + autostart budget, until a socket accepts (5000) */
    /* longest wait for one reply, hello's too. 0 (the default): each
     * request's own deadline, TS_CLIENT_SHORT_TIMEOUT_MS for hello, ping,
     * status and stop, TS_CLIENT_LONG_TIMEOUT_MS for the rest, or the
     * seconds $TOOLSCORE_TIMEOUT says for every request (0 there: none);
     * TS_CLIENT_NO_TIMEOUT: wait for ever */
    int request_timeout_ms;
    size_t max_frame; /* largest frame before hello tells the daemon's (16 MiB) */
    int protocol;     /* protocol announced in hello (default TS_CLIENT_PROTOCOL) */
} ts_client_options;

/* Fill o with the defaults above. */
void ts_client_options_init(ts_client_options *o);

/*
 * Request deadlines: a daemon that stops answering (stopped, hung,
 * swamped) fails a request with "timeout" instead of hanging its caller;
 * the message names the daemon (socket, pid) and what to do. The
 * connection is dropped (a late reply would be taken for the next one's).
 */
#define TS_CLIENT_SHORT_TIMEOUT_MS 10000 /* hello, ping, status, stop */
#define TS_CLIENT_LONG_TIMEOUT_MS 60000  /* every other request */
#define TS_CLIENT_NO_TIMEOUT (-1)        /* request_timeout_ms: wait for ever */

/*
 * The socket path a connect with socket_path NULL would use ($TOOLSCORE_SOCKET
 * or the default) into out (outsz bytes; 4096 is enough).
 */
int ts_client_default_socket(char *out, size_t outsz, ts_error *err);

/*
 * Connect (starting the daemon if allowed and needed), send hello and check
 * the version. On failure *out is untouched and err says why, naming the
 * socket path: "unavailable" (with the last connect errno and, if autostart
 * failed, why), "version_mismatch" (the daemon's message, giving both
 * versions), "invalid_argument" for a socket path that cannot be used.
 */
int ts_client_connect(const ts_client_options *o, ts_client **out, ts_error *err);

/* Close the connection and free c (NULL is fine). In a forked child this
 * only closes the child's copy of the descriptor. */
void ts_client_close(ts_client *c);

/* The socket path this client uses. */
const char *ts_client_socket_path(const ts_client *c);

/*
 * When this client started a daemon because none answered its socket, and
 * that daemon answered store_busy (another daemon, on another socket,
 * holds the store: a mistyped socket path), the socket it started one on;
 * NULL otherwise. The daemon started there was asked to stop (it had
 * nothing else to do), and the connection went to the store's daemon
 * (ts_client_socket_path): worth saying to the user, who named the first.
 */
const char *ts_client_started_elsewhere(const ts_client *c);

/* The daemon's hello result ({protocol, server, pid, max_frame, version,
 * auto_started}) of the current connection; borrowed, valid until the next
 * call on c. */
const struct json_object *ts_client_server_info(const ts_client *c);

/* This library's version (its build: docs/packaging.md). */
const char *ts_client_version(void);

/* The version of the daemon c is connected to, from hello ("version", or
 * an older daemon's "server" toolscored/VERSION); NULL when it did not say.
 * Borrowed, valid until the next call on c. Another build than
 * ts_client_version() is worth telling the user once. */
const char *ts_client_server_version(const ts_client *c);

/*
 * The daemon the program's package ships (a language package's own
 * executable), looked for after $TOOLSCORED and before PATH when this
 * process auto-starts one; NULL: "toolscored" beside the running executable
 * (the default). For the whole process: call it before connecting, from one
 * thread. -ENAMETOOLONG for a path of 4096 bytes or more (the
 * default stays).
 */
int ts_client_set_package_daemon(const char *path);

/*
 * Send one request and wait for its reply. params may be NULL ({}) and must
 * otherwise be an object. On success *result (if result is not NULL) gets
 * the reply's result (NULL for null). Returns TS_CLIENT_EREMOTE with the
 * daemon's code and message when the daemon answered with an error.
 * A daemon answering "store_busy" (another daemon holds the request's
 * store) names that daemon's socket: the request is sent again there, and
 * the connection stays there for later requests (ts_client_socket_path
 * says where it is); the caller sees only the answer of the daemon that
 * holds the store. The same for every typed helper below.
 */
int ts_client_call(ts_client *c, const char *method, const struct json_object *params,
                   struct json_object **result, ts_error *err);

/*
 * Pipelining: send a request without waiting (its id in *id), then take the
 * replies in order with ts_client_receive (*id tells which request it
 * answers). Returns of ts_client_receive are those of ts_client_call,
 * except that a pipelined request answered "store_busy" is not sent again:
 * the error is returned, and once no reply is outstanding the connection
 * moves to the socket it named, so requests sent after that go there.
 * A reconnect (after fork or a broken connection) forgets requests in flight.
 */
int ts_client_send(ts_client *c, const char *method, const struct json_object *params, uint64_t *id,
                   ts_error *err);
int ts_client_receive(ts_client *c, uint64_t *id, struct json_object **result, ts_error *err);

/* ---- typed helpers ---------------------------------------------------
 * Each builds the params of one method (docs/protocol.md "Methods") and
 * calls it. A store is any path to the snapshot root: the library sends
 * its absolute, symlink-resolved form (each client remembers its last few
 * resolutions, reused while stat() shows both paths still reach the same
 * directory and for at most a second; docs/internals/client.md). Results
 * are the method's result object as documented there.
 */

int ts_client_ping(ts_client *c, ts_error *err);

/*
 * The arguments of a check (docs/protocol.md, "check"): an opaque object
 * built with setters, so that a new option is a new setter and never
 * changes what a program compiled against an older header sees.
 *
 * A new ts_check_args holds the protocol's defaults: format "auto",
 * min_score 1.0, default weights, every flag off, no run, no test, the
 * report at the daemon's default width with its JSON diff. store,
 * name and actual are required by ts_client_check. Strings are copied;
 * JSON values (actual, weights) are borrowed, as every JSON argument of
 * this library is (not even their reference counts are touched): they must
 * stay alive and unchanged until a is freed or the value is set again.
 * Setting NULL clears an optional member. A setter fails only when out of memory
 * (-ENOMEM): the failure is also kept, and a check made with a returns it
 * ("no_memory") before sending anything, so a caller may set everything
 * and look once. One ts_check_args may serve any number of checks, and be
 * changed between them; it belongs to one thread at a time.
 */
typedef struct ts_check_args ts_check_args;

/* A new ts_check_args with the defaults, or NULL when out of memory. */
ts_check_args *ts_check_args_new(void);

/* Release a (NULL is fine). */
void ts_check_args_free(ts_check_args *a);

int ts_check_args_set_store(ts_check_args *a, const char *store); /* snapshot root */
int ts_check_args_set_name(ts_check_args *a, const char *name);   /* "" is a name */
/* The observed calls: a raw provider response or a calls list. */
int ts_check_args_set_actual(ts_check_args *a, const struct json_object *actual);
/*
 * The observed calls as one msgpack value packed already (for a binding
 * that converts its own values straight to msgpack), in place of a json-c
 * value: data[0..len) is borrowed like a JSON value and sent as it is,
 * after a check that it is exactly one value nested at most as deep as a
 * request allows (else the check fails with "invalid_argument", sending
 * nothing). Its bytes should be those ts_client_check would pack for the
 * equal json-c value: a replay whose calls equal the baseline's byte for
 * byte is answered without decoding them. NULL clears it; the last of the
 * two setters called is the one in force.
 */
int ts_check_args_set_actual_packed(ts_check_args *a, const void *data, size_t len);
/* "auto" or a format of docs/extraction.md; NULL: "auto". */
int ts_check_args_set_format(ts_check_args *a, const char *format);
int ts_check_args_set_min_score(ts_check_args *a, double min_score); /* in [0, 1] */
/* An object of weights (docs/scoring.md); NULL: the default weights. */
int ts_check_args_set_weights(ts_check_args *a, const struct json_object *weights);
int ts_check_args_set_strict(ts_check_args *a, bool strict); /* type-exact values */
int ts_check_args_set_ci(ts_check_args *a, bool ci); /* a missing/pending snapshot is an error */
int ts_check_args_set_update(ts_check_args *a, bool update); /* overwrite and approve */
/* Create and accept pending snapshots in CI too. */
int ts_check_args_set_allow_pending(ts_check_args *a, bool allow_pending);
int ts_check_args_set_run(ts_check_args *a, const char *run);   /* run id to count it in */
int ts_check_args_set_test(ts_check_args *a, const char *test); /* test claiming the name */
/* What makes the check ("tsctl", "vitest", ...: the snapshot file's source
 * when it writes one); NULL: "pytest". */
int ts_check_args_set_source(ts_check_args *a, const char *source);
/* How the caller's user runs tsctl, as shell text ("npx tsctl", a venv's
 * "/p/.venv/bin/tsctl"): the commands the check's texts print start with
 * it instead of "tsctl", so they paste into a shell where tsctl is not on
 * PATH; NULL: "tsctl". */
int ts_check_args_set_tsctl(ts_check_args *a, const char *tsctl);
int ts_check_args_set_color(ts_check_args *a, bool color); /* ANSI colours in the report */
/* The report's width in terminal columns (a caller passes its terminal's:
 * COLUMNS, else the tty's width, else 100); 0: the daemon's default (100);
 * more than TS_CHECK_WIDTH_MAX is sent as that. */
#define TS_CHECK_WIDTH_MAX 65535u
int ts_check_args_set_width(ts_check_args *a, unsigned width);
/* Whether the report ends with the unified JSON diff (default true). */
int ts_check_args_set_json_diff(ts_check_args *a, bool json_diff);
/* Comparison rules for this check (an object of docs/rules.md, merged over
 * the project's rules file); NULL: none. */
int ts_check_args_set_rules(ts_check_args *a, const struct json_object *rules);

/* check -> {outcome, name, file, message, result|null, report|null} */
int ts_client_check(ts_client *c, const ts_check_args *a, struct json_object **result,
                    ts_error *err);

/*
 * ts_client_check with the reply's result handed to read as its msgpack
 * bytes data[0..len) (a map; valid during the call only), for a binding
 * that reads it into its own values: the same request, returns and error
 * codes, except that read's failure (a negative code, err filled) is the
 * call's. The bytes are one complete value of the reply, as the daemon sent
 * it; their contents are not checked.
 */
typedef int (*ts_client_result_bytes)(const unsigned char *data, size_t len, void *arg,
                                      ts_error *err);
int ts_client_check_bytes(ts_client *c, const ts_check_args *a, ts_client_result_bytes read,
                          void *arg, ts_error *err);

/*
 * What a check answered, read without building json-c values
 * (ts_client_check_outcome). The strings are owned by the struct: release
 * them with ts_check_outcome_free (never free() them one by one).
 */
typedef struct ts_check_outcome {
    char outcome[32]; /* "CREATED", "PENDING", "PASSED", "FAILED", ... */
    double score;     /* result.score; -1 when nothing was compared (result nil) */
    bool passed;      /* result.passed; false when nothing was compared */
    char *message;    /* the one-line outcome text */
    char *report;     /* the drift report (FAILED), or NULL when there is none */
    char *file;       /* the snapshot file's path */
} ts_check_outcome;

/*
 * ts_client_check, the reply read into *out instead of a json-c tree: the
 * same request, the same returns and error codes (TS_CLIENT_EREMOTE with
 * the daemon's code and message, "bad_reply" for a reply that is not a
 * check result: a missing outcome, file or message, a member of the wrong
 * type, a duplicate member). The reply's other members are skipped. On
 * success *out holds the outcome (release it with ts_check_outcome_free);
 * on failure it holds nothing to release. *out is overwritten, not freed:
 * free a previous outcome first. out may be NULL when only the return
 * value matters.
 *
 *   ts_check_outcome o;
 *   if (ts_client_check_outcome(c, &a, &o, &err) == 0) {
 *       if (strcmp(o.outcome, "FAILED") == 0) show(o.report);
 *       ts_check_outcome_free(&o);
 *   }
 */
int ts_client_check_outcome(ts_client *c, const ts_check_args *a, ts_check_outcome *out,
                            ts_error *err);

/* Release what *out holds and reset it (NULL strings, score -1); safe on
 * an outcome already released or left empty by a failed call. */
void ts_check_outcome_free(ts_check_outcome *out);

typedef struct ts_record_args {
    const char *store;
    const char *name;
    const struct json_object *calls; /* raw trace or calls list (required) */
    const char *source;              /* default "trace" */
    const char *format;              /* default "auto" */
    bool update;                     /* overwrite (and approve) an existing snapshot */
} ts_record_args;

void ts_record_args_init(ts_record_args *a);

/* record -> {outcome: CREATED|UPDATED, name, file}; an existing name without
 * update is TS_CLIENT_EREMOTE "exists". */
int ts_client_record(ts_client *c, const ts_record_args *a, struct json_object **result,
                     ts_error *err);

/* save -> {name, file}: snapshot (a JSON object with a snapshot file's
 * members; borrowed, only read) written as the file of its "name", every
 * member as given (docs/protocol.md, save); no extraction, no state
 * machine. A member the daemon cannot read back is "invalid_snapshot". */
int ts_client_save(ts_client *c, const char *store, const struct json_object *snapshot,
                   struct json_object **result, ts_error *err);

/* approve names[0..count) or, with all, every pending snapshot.
 * -> {approved: [{name, calls, created_at, updated_at}]}; any unknown name is
 * "not_found" and nothing is approved. */
int ts_client_approve(ts_client *c, const char *store, const char *const *names, size_t count,
                      bool all, struct json_object **result, ts_error *err);

/* Entries per page asked for by ts_client_list. */
#define TS_CLIENT_LIST_PAGE 5000

/* list -> {snapshots: [...], problems: [...], total, next: nil} (pending only
 * with pending): every page of the listing, fetched TS_CLIENT_LIST_PAGE
 * entries at a time and joined, so any store fits the frame limit. result
 * may be NULL. */
int ts_client_list(ts_client *c, const char *store, bool pending, struct json_object **result,
                   ts_error *err);

/* One page of a listing: limit entries (0: no limit), from the start
 * (cursor NULL) or from the "next" of the previous page
 * (docs/protocol.md, list). */
int ts_client_list_page(ts_client *c, const char *store, bool pending, size_t limit,
                        const char *cursor, struct json_object **result, ts_error *err);

/* show -> {snapshot, file} */
int ts_client_show(ts_client *c, const char *store, const char *name, struct json_object **result,
                   ts_error *err);

/* rm -> {name, file} */
int ts_client_rm(ts_client *c, const char *store, const char *name, struct json_object **result,
                 ts_error *err);

/* run.open -> {run}; label may be NULL. */
int ts_client_run_open(ts_client *c, const char *store, const char *label,
                       struct json_object **result, ts_error *err);

/* run.join -> {run, store} */
int ts_client_run_join(ts_client *c, const char *run, struct json_object **result, ts_error *err);

/* run.close -> the run's summary (as run.summary); the run stays readable. */
int ts_client_run_close(ts_client *c, const char *run, struct json_object **result, ts_error *err);

/* run.summary -> {run, store, label, host, opened, closed, closed_at, complete,
 * partial, partial_reasons, counts, summary, duplicates} */
int ts_client_run_summary(ts_client *c, const char *run, struct json_object **result,
                          ts_error *err);

/* run.partial: mark the open run partial (not every test ran) for the n
 * reasons, so that orphans are not deleted after it without --force. */
int ts_client_run_partial(ts_client *c, const char *run, const char *const *reasons, size_t n,
                          ts_error *err);

/* run.report: the run's report in format "json" (docs/reports.md) or
 * "junit", every page fetched and joined, into *text (malloc'ed,
 * NUL-terminated; free() it) of *len bytes. */
int ts_client_run_report(ts_client *c, const char *run, const char *format, char **text,
                         size_t *len, ts_error *err);

/* review (the review queue) -> {items: [{name, file, kind, approved, calls,
 * observation}]}; run may be NULL (every kept observation), else only that
 * run's observations are listed (docs/protocol.md, "review"). accept,
 * reject and diff go through ts_client_call. */
int ts_client_review(ts_client *c, const char *store, const char *run, struct json_object **result,
                     ts_error *err);

/* orphans -> {names: [...]} (the run must be closed). */
int ts_client_orphans(ts_client *c, const char *store, const char *run, struct json_object **result,
                      ts_error *err);

/* status -> {pid, version, socket, uptime_s, stores_open, requests_served,
 * runs_open, connections} */
int ts_client_status(ts_client *c, struct json_object **result, ts_error *err);

/* stop: the daemon finishes in-flight work and exits. */
int ts_client_stop(ts_client *c, ts_error *err);

#ifdef __cplusplus
}
#endif

#endif
