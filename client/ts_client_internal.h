/*
 * ts_client_internal — what the files of libtoolscore-client share and the
 * public header does not show: the connection object, the check's
 * arguments and the daemon launcher.
 */
#ifndef TS_CLIENT_INTERNAL_H
#define TS_CLIENT_INTERNAL_H

#include <sys/types.h>

#include "client/toolscore_client.h"
#include "proto/ts_proto.h"

#define TS_CLIENT_READ_CHUNK 65536
#define TS_CLIENT_DEFAULT_CONNECT_MS 5000
#define TS_CLIENT_NAME_MAX 128
#define TS_CLIENT_STORE_SLOTS 4 /* store resolutions kept per client */

/* One remembered store resolution (ts_client_store.c). */
typedef struct ts_client_store_slot {
    char *input;    /* the caller's store string; NULL: empty slot */
    char *resolved; /* its absolute, symlink-resolved form */
    size_t resolved_len;
    dev_t dev; /* the directory resolved named when it was resolved */
    ino_t ino;
    int64_t resolved_ms; /* coarse clock at the resolution */
    uint64_t used;       /* stores_tick at the last use */
} ts_client_store_slot;

struct ts_client {
    char socket_path[TS_PATHS_MAX];
    char client_name[TS_CLIENT_NAME_MAX];
    bool autostart;
    char *daemon_path;  /* owned copy of the option, or NULL */
    char **daemon_args; /* owned NULL-ended copy, or NULL */
    int connect_timeout_ms;
    int short_timeout_ms; /* the deadline of hello, ping, status, stop; 0: none */
    int long_timeout_ms;  /* of every other request; 0: none */
    char awaiting[32];    /* the method whose reply is awaited (for a timeout's message) */
    size_t local_max_frame;
    int protocol;

    int fd;                 /* -1 while not connected */
    unsigned long fork_gen; /* fork generation (ts_client.c) when fd was opened */
    pid_t owner;            /* process that opened fd (only read without fork tracking) */
    int64_t last_reply_ms;  /* when the last reply on fd arrived (coarse clock) */
    uint64_t next_id;
    size_t in_flight;        /* requests sent, replies not yet received */
    size_t server_max_frame; /* from hello; 0 before */
    struct json_object *server_info;
    ts_frame_reader reader;
    unsigned char *rbuf; /* bytes read but not yet fed to the reader */
    size_t rpos, rlen;
    /* replies read while a request was being written (the daemon stops
     * reading a connection whose replies are not read: docs/protocol.md,
     * "Back-pressure"), handed to the reader before the socket */
    ts_buf ahead;
    size_t ahead_pos;

    ts_buf sbuf; /* the request being sent (kept between requests up to 64 KiB) */

    /* store_busy: the socket of the daemon holding the store, as the last
     * such reply named it ("" when none); the connection moves there */
    char redirect[TS_PATHS_MAX];
    /* the socket this client started a daemon on ("" none), and whether the
     * connection then left it for the daemon holding the store (that one
     * was asked to stop: ts_client_started_elsewhere) */
    char started_on[TS_PATHS_MAX];
    bool left_started;

    ts_client_store_slot stores[TS_CLIENT_STORE_SLOTS];
    uint64_t stores_tick;
};

/* The deadline of a reply to method (ms; 0: none; the fields ts_client.c
 * set from the options): ts_client_stream.c. */
int ts_client__timeout_for(const ts_client *c, const char *method);

/* The arguments of a check (ts_client_check_args.c; toolscore_client.h). */
struct ts_check_args {
    char *store, *name, *format, *run, *test, *source, *tsctl; /* owned copies, or NULL */
    const struct json_object *actual;                          /* borrowed, or NULL */
    const void *actual_packed; /* borrowed msgpack, in place of actual */
    size_t actual_packed_len;
    const struct json_object *weights;
    const struct json_object *rules;
    double min_score;
    bool strict, ci, update, allow_pending, color;
    bool no_json_diff; /* json_diff false (the default is true) */
    unsigned width;    /* the report's width; 0: the daemon's default */
    int error;         /* 0, or the first setter's failure (-ENOMEM) */
};

/*
 * ts_client_call with one more member key: value in params, packed from the
 * caller's value as it is (no copy; see ts_message_encode_request_with).
 */
int ts_client__call_with(ts_client *c, const char *method, const struct json_object *params,
                         const char *key, const struct json_object *value,
                         struct json_object **result, ts_error *err);

/*
 * A typed call's reader of an ok reply's result: reads the result value
 * from its msgpack bytes data[0..len) (valid during the call only) into
 * arg. Returns 0, or a negative code with err filled ("bad_reply" for a
 * result of the wrong shape, "no_memory"), leaving nothing allocated in arg.
 */
typedef int (*ts_client_result_reader)(const unsigned char *data, size_t len, void *arg,
                                       ts_error *err);

/*
 * Packs a request's params (one map, nested one level inside the envelope:
 * headers it writes count from depth 1) with w. 0, or a negative code with
 * err filled, as the ts_wire_pack_* functions give.
 */
typedef int (*ts_client_params_packer)(ts_wire_writer *w, const void *arg, ts_error *err);

/*
 * Append to out (empty) one request frame {id, method, params}, the params
 * written by pack(w, arg, err): byte for byte what
 * ts_message_encode_request makes of the same params as a json-c tree, with
 * the same errors ("too_large" past max_frame, 0 meaning the default; a
 * packer's "invalid_argument" or "limit"). On failure out is left empty.
 */
int ts_client__encode_request(ts_buf *out, uint64_t id, const char *method,
                              ts_client_params_packer pack, const void *arg, size_t max_frame,
                              ts_error *err);

/*
 * ts_client__call_with, the params packed by pack(w, arg) instead of taken
 * from a tree, and the result, when read is not NULL, handed to
 * read(read_arg) instead of built as a tree (*result is then untouched; it
 * may be NULL). Error replies, refused replies and their codes are those of
 * ts_client_call; a result read refuses drops the connection, as any bad
 * reply does.
 */
int ts_client__call_packed(ts_client *c, const char *method, ts_client_params_packer pack,
                           const void *arg, struct json_object **result,
                           ts_client_result_reader read, void *read_arg, ts_error *err);

/*
 * The frame of the check request with the given id that ts_client_check
 * sends for a, its store already resolved to store (ts_client_check.c),
 * into out (empty), as ts_client__encode_request. For tests comparing the
 * bytes.
 */
int ts_client__encode_check(ts_buf *out, uint64_t id, const ts_check_args *a, const char *store,
                            size_t max_frame, ts_error *err);

/*
 * The stream (ts_client_stream.c): a socket connected to c's path (c->fd),
 * and the hello on it; the monotonic clock in ms, and a coarse one read
 * without a system call; whether c's descriptor is this process's (not
 * inherited across fork); forgetting the connection (in a forked child,
 * only the child's copy of the descriptor is closed).
 */
int ts_client__try_connect(ts_client *c, ts_error *err);
int ts_client__hello(ts_client *c, ts_error *err);

/* stop {if_idle: true} on the current connection: 0 when the daemon stops
 * (the connection is dropped), TS_CLIENT_EREMOTE ("in_use") when it serves
 * others (the connection stays), another error when it broke. */
int ts_client__stop_if_idle(ts_client *c, ts_error *err);
int64_t ts_client__now_ms(void);
int64_t ts_client__coarse_ms(void);
bool ts_client__owned(const ts_client *c);
void ts_client__drop(ts_client *c);

/* A typed call's reader of the result, and the id its reply must carry. */
typedef struct result_reader {
    ts_client_result_reader read;
    void *arg;
    uint64_t expect;
} result_reader;

/* What a request carries: params as a tree (plus key: value when key is
 * set), or a packer writing them. */
typedef struct request_body {
    const struct json_object *params;
    const char *key;
    const struct json_object *value;
    ts_client_params_packer pack;
    const void *arg;
} request_body;

/* Encode one request into c's send buffer and write it (*id: its id). */
int ts_client__send_request(ts_client *c, const char *method, const request_body *body,
                            uint64_t *id, ts_error *err);

/*
 * Receive the next reply; maps an error reply to TS_CLIENT_EREMOTE. The
 * result goes to *result as a tree, or with rd to rd's reader.
 */
int ts_client__receive_reply(ts_client *c, uint64_t *id, struct json_object **result,
                             const result_reader *rd, int timeout_ms, ts_error *err);

/* A reply for request got arrived while sent was awaited: the stream is
 * dropped ("bad_reply"). */
int ts_client__wrong_reply_id(ts_client *c, uint64_t got, uint64_t sent, ts_error *err);

/*
 * Trust before talking (ts_client_trust.c). ts_client__trust_dir: the
 * directory of socket_path is the user's or root's with no group or other
 * access; -ENOENT ("unavailable") when it is missing or holds no socket
 * file (nothing to talk to: connect as usual), -EPERM ("untrusted", the
 * message naming the directory's owner and mode) otherwise.
 * ts_client__trust_peer: the process at the other end of the connected fd
 * runs as the user or root (SO_PEERCRED); -EPERM ("untrusted", naming the
 * peer's uid and pid) otherwise. Neither sends anything.
 */
int ts_client__trust_dir(const char *socket_path, ts_error *err);
int ts_client__trust_peer(int fd, const char *socket_path, ts_error *err);

/* Connect and hello, auto-starting the daemon if allowed and needed
 * (ts_client_connect.c). */
int ts_client__establish(ts_client *c, ts_error *err);

/*
 * The store param for the caller's store string: its absolute,
 * symlink-resolved form (ts_paths_resolve) into out, taken from c's few
 * remembered resolutions when two stat() calls show it still holds
 * (ts_client_store.c says why that suffices). Errors are ts_paths_resolve's.
 */
int ts_client__store_path(ts_client *c, const char *store, char *out, size_t outsz, ts_error *err);

/* Forget every remembered store resolution (on close). */
void ts_client__stores_clear(ts_client *c);

/*
 * Find the daemon binary: explicit (if not NULL), else $TOOLSCORED (an
 * error when it is no executable file), else the package's own daemon
 * (ts_client_set_package_daemon; without one, "toolscored" in the directory
 * of /proc/self/exe), else on PATH. Writes its path into out. -ENOENT with a
 * message naming the three places and why each did not serve.
 */
int ts_client_find_daemon(const char *explicit_path, char *out, size_t outsz, ts_error *err);

/* The exit status toolscored uses when another daemon already serves the
 * socket (docs/toolscored.8): not a failure for an auto-start. */
#define TS_CLIENT_DAEMON_EXIT_RUNNING 3

/* A report from the watcher of a started daemon (ts_client_spawn.c). */
enum { TS_CLIENT_SPAWN_EXEC = 1, TS_CLIENT_SPAWN_EXITED = 2 };
typedef struct ts_client_spawn_report {
    int kind;        /* TS_CLIENT_SPAWN_EXEC or _EXITED */
    int value;       /* EXEC: errno of a failed exec, or 0; EXITED: wait status */
    char text[1024]; /* EXITED: the start of what the daemon wrote on stderr */
} ts_client_spawn_report;

/* A daemon being started: the watcher process (our child) and its report
 * pipe. */
typedef struct ts_client_spawn {
    pid_t watcher; /* 0 when none */
    int report_fd; /* -1 when none */
} ts_client_spawn;

void ts_client_spawn_init(ts_client_spawn *sp);

/*
 * Start daemon detached: `daemon --socket socket_path [extra...]` in a new
 * session, stdin and stdout on /dev/null, stderr read by a watcher,
 * working directory "/", no descriptors of ours inherited, not our child.
 * Returns once exec succeeded (sp then holds the watcher: release it) or
 * failed (the exec error is returned with its errno; sp holds nothing).
 */
int ts_client_spawn_daemon(const char *daemon, const char *socket_path, const char *const *extra,
                           ts_client_spawn *sp, ts_error *err);

/*
 * Wait up to timeout_ms for news of the started daemon. Returns 1 when it
 * exited (its wait status in *status, and in why a message "it exited with
 * status N: <first line of its stderr>"), else 0. After 1, sp holds nothing.
 */
int ts_client_spawn_poll(ts_client_spawn *sp, int timeout_ms, int *status, ts_error *why);

/* Stop watching (kill and reap the watcher; the daemon runs on). Safe on a
 * released or initialized sp. */
void ts_client_spawn_release(ts_client_spawn *sp);

#endif
