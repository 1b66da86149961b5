/*
 * ts_client_connect — reaching a daemon: connect and hello, starting the
 * daemon when nothing answers (auto-start), retrying with backoff until the
 * connect budget is spent or the daemon that was started died, and saying
 * why when it fails (see docs/internals/client.md, "Auto-start").
 */
#include "ts_client_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proto/ts_proto.h"

#define TS_CLIENT_BACKOFF_FIRST_MS 10
#define TS_CLIENT_BACKOFF_MAX_MS 200

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static bool connect_retryable(int rc)
{
    return rc == -ENOENT || rc == -ECONNREFUSED || rc == -EAGAIN;
}

/* Refuse at once to start a daemon in a socket directory it would refuse
 * (an absent directory is fine: the daemon creates it). */
static int socket_dir_usable(const char *socket_path, ts_error *why)
{
    char dir[TS_PATHS_MAX];
    struct stat st;
    int fd = -1;
    int rc;

    if (ts_paths_socket_dir_of(socket_path, dir, sizeof(dir)) < 0)
        return 0; /* the daemon says why */
    rc = ts_paths_open_socket_dir(dir, O_PATH, &fd, &st, why);
    if (rc == -ENOENT)
        return 0;
    if (rc == 0) {
        close(fd);
        rc = ts_paths_check_socket_dir(dir, &st, why);
    }
    if (rc < 0)
        ts_error_prefix(why, rc, "toolscored cannot start there");
    return rc;
}

/* Start the daemon once (its path into daemon); on failure keep the reason
 * in why. */
static int autostart(ts_client *c, char *daemon, size_t daemonsz, ts_client_spawn *sp,
                     ts_error *why)
{
    int rc = socket_dir_usable(c->socket_path, why);

    if (rc == 0)
        rc = ts_client_find_daemon(c->daemon_path, daemon, daemonsz, why);

    if (rc == 0)
        rc = ts_client_spawn_daemon(daemon, c->socket_path, (const char *const *)c->daemon_args, sp,
                                    why);
    return rc;
}

enum { WAITED, DAEMON_DIED, DAEMON_LOST_START };

/* Wait before the next connect attempt. DAEMON_DIED when the daemon we
 * started exited for good meanwhile (why says how); DAEMON_LOST_START when
 * it found another daemon holding the socket's lock: no failure, that one
 * answers (or, stopping, goes away, and a daemon is started again). */
static int wait_for_daemon(ts_client_spawn *sp, int ms, ts_error *why)
{
    int status = 0;

    if (sp->report_fd < 0) {
        sleep_ms(ms);
        return WAITED;
    }
    if (ts_client_spawn_poll(sp, ms, &status, why) == 0)
        return WAITED;
    if (WIFEXITED(status) && WEXITSTATUS(status) == TS_CLIENT_DAEMON_EXIT_RUNNING)
        return DAEMON_LOST_START;
    return DAEMON_DIED;
}

/* After hello: the daemon's build when it is another one than this
 * library's and the daemon was started by a client (docs/packaging.md),
 * else NULL. */
static const char *replaceable(const ts_client *c)
{
    const char *theirs = ts_client_server_version(c);
    struct json_object *auto_started = NULL;

    if (theirs == NULL || strcmp(theirs, ts_client_version()) == 0 || c->server_info == NULL ||
        !json_object_object_get_ex(c->server_info, "auto_started", &auto_started) ||
        !json_object_is_type(auto_started, json_type_boolean) ||
        !json_object_get_boolean(auto_started))
        return NULL;
    return theirs;
}

int ts_client__stop_if_idle(ts_client *c, ts_error *err)
{
    struct json_object *params = json_object_new_object();
    request_body body = {params, NULL, NULL, NULL, NULL};
    int rc;

    if (params == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "cannot allocate stop");
    json_object_object_add(params, "if_idle", json_object_new_boolean(1));
    rc = ts_client__send_request(c, "stop", &body, NULL, err);
    json_object_put(params);
    if (rc == 0) {
        snprintf(c->awaiting, sizeof(c->awaiting), "stop");
        rc = ts_client__receive_reply(c, NULL, NULL, NULL, ts_client__timeout_for(c, "stop"), err);
    }
    /* stopping (the daemon closes this connection) or broken: done; in use
     * (an answer): the connection stays and serves this client */
    if (rc != TS_CLIENT_EREMOTE)
        ts_client__drop(c);
    return rc;
}

/* Connected to an auto-started daemon of another build: ask it to stop if
 * idle, so that this client's build starts in its place (docs/packaging.md).
 * True when it stops (the connection is gone: connect again). */
static bool replace_other_build(ts_client *c)
{
    ts_error ignored;

    if (!c->autostart || replaceable(c) == NULL)
        return false;
    return ts_client__stop_if_idle(c, &ignored) == 0;
}

/*
 * Connect and hello, starting the daemon when nothing answers, retrying with
 * backoff until the connect budget is spent or the daemon we started died.
 */
static int connect_loop(ts_client *c, ts_client_spawn *sp, ts_error *err)
{
    int64_t deadline = ts_client__now_ms() + c->connect_timeout_ms;
    int backoff = TS_CLIENT_BACKOFF_FIRST_MS;
    bool started = false; /* a daemon we started may still answer */
    bool spawned = false; /* we started one at all */
    bool lost = false;    /* ours lost the start to another daemon */
    bool died = false;
    bool replaced = false;
    int waited;
    char daemon[TS_PATHS_MAX];
    ts_error why;
    ts_error last;
    int start_rc = 0;
    int rc;

    ts_error_clear(&why);
    for (;;) {
        rc = ts_client__try_connect(c, &last);
        if (rc == 0) {
            rc = ts_client__hello(c, &last);
            if (rc == 0 && !replaced && replace_other_build(c)) {
                replaced = true; /* once: the next daemon is what we can start */
                continue;
            }
            if (rc == 0 && spawned && !lost)
                snprintf(c->started_on, sizeof(c->started_on), "%s", c->socket_path);
            if (rc == 0)
                return 0;
            /* a daemon that is stopping or just went away: try again */
            if (strcmp(last.code, TS_ERR_SHUTTING_DOWN) != 0 &&
                strcmp(last.code, TS_CLIENT_ERR_DISCONNECTED) != 0) {
                if (err != NULL)
                    *err = last;
                return rc;
            }
        } else if (!connect_retryable(rc)) {
            if (err != NULL)
                *err = last;
            return rc;
        } else if (!started && c->autostart) {
            started = spawned = true;
            start_rc = autostart(c, daemon, sizeof(daemon), sp, &why);
            if (start_rc < 0)
                break;
        } else if (!c->autostart) {
            break;
        }
        if (ts_client__now_ms() >= deadline)
            break;
        waited = wait_for_daemon(sp, backoff, &why);
        died = waited == DAEMON_DIED;
        if (died)
            break;
        if (waited == DAEMON_LOST_START) {
            started = false; /* start one again if the holder goes away */
            lost = true;
        }
        backoff = backoff * 2 > TS_CLIENT_BACKOFF_MAX_MS ? TS_CLIENT_BACKOFF_MAX_MS : backoff * 2;
    }
    if (start_rc < 0)
        return ts_error_set(err, rc, TS_CLIENT_ERR_UNAVAILABLE, "%s; %s", last.message,
                            why.message);
    if (died)
        return ts_error_set(err, rc, TS_CLIENT_ERR_UNAVAILABLE, "%s; started %s, but %s",
                            last.message, daemon, why.message);
    if (spawned)
        return ts_error_set(err, rc, TS_CLIENT_ERR_UNAVAILABLE,
                            "%s (started %s, which did not answer within %d ms; "
                            "`%s --socket %s --foreground` shows why)",
                            last.message, daemon, c->connect_timeout_ms, daemon, c->socket_path);
    if (err != NULL)
        *err = last;
    return rc;
}

int ts_client__establish(ts_client *c, ts_error *err)
{
    ts_client_spawn sp;
    int rc;

    ts_client_spawn_init(&sp);
    rc = connect_loop(c, &sp, err);
    ts_client_spawn_release(&sp);
    return rc;
}
