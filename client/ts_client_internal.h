/*
 * ts_client_internal — what the files of libtoolscore-client share and the
 * public header does not show: the connection object and the daemon
 * launcher.
 */
#ifndef TS_CLIENT_INTERNAL_H
#define TS_CLIENT_INTERNAL_H

#include <sys/types.h>

#include "toolscore_client.h"
#include "ts_frame.h"
#include "ts_paths.h"

#define TS_CLIENT_READ_CHUNK 65536
#define TS_CLIENT_DEFAULT_CONNECT_MS 5000
#define TS_CLIENT_NAME_MAX 128

struct ts_client {
    char socket_path[TS_PATHS_MAX];
    char client_name[TS_CLIENT_NAME_MAX];
    bool autostart;
    char *daemon_path;  /* owned copy of the option, or NULL */
    char **daemon_args; /* owned NULL-ended copy, or NULL */
    int connect_timeout_ms;
    int request_timeout_ms;
    size_t local_max_frame;
    int protocol;

    int fd;      /* -1 while not connected */
    pid_t owner; /* process that opened fd */
    uint64_t next_id;
    size_t in_flight;        /* requests sent, replies not yet received */
    size_t server_max_frame; /* from hello; 0 before */
    struct json_object *server_info;
    ts_frame_reader reader;
    unsigned char *rbuf; /* bytes read but not yet fed to the reader */
    size_t rpos, rlen;

    /* The last store root resolved (ts_client_api.c), reused while the
     * same string names the same directory. */
    bool store_cached;
    dev_t store_dev;
    ino_t store_ino;
    char store_input[TS_PATHS_MAX];
    char store_resolved[TS_PATHS_MAX];
};

/*
 * ts_client_call with one more member key: value in params, packed from the
 * caller's value as it is (no copy; see ts_message_encode_request_with).
 */
int ts_client__call_with(ts_client *c, const char *method, const struct json_object *params,
                         const char *key, const struct json_object *value,
                         struct json_object **result, ts_error *err);

/*
 * Find the daemon binary: explicit (if not NULL), else $TOOLSCORED, else
 * "toolscored" in the directory of /proc/self/exe, else on PATH. Writes its
 * path into out. -ENOENT with a message listing where it looked.
 */
int ts_client_find_daemon(const char *explicit_path, char *out, size_t outsz, ts_error *err);

/*
 * Start daemon detached: `daemon --socket socket_path [extra...]` in a new
 * session, stdio on /dev/null, working directory "/", no descriptors of
 * ours inherited, not our child (double fork). Returns once exec succeeded
 * or failed (the exec error is returned with its errno).
 */
int ts_client_spawn_daemon(const char *daemon, const char *socket_path, const char *const *extra,
                           ts_error *err);

#endif
