/*
 * ts_client — the connections of libtoolscore-client as its users see
 * them (see toolscore_client.h): options, connect, close, send, receive,
 * call, store_busy redirects, fork and breakage recovery. The stream
 * below is ts_client_stream.c, connecting with auto-start
 * ts_client_connect.c.
 *
 * One ts_client owns one socket descriptor and the buffers of one stream.
 * Every entry point first checks that the descriptor belongs to this
 * process (fork) and is still connected, and reconnects otherwise; on the
 * path of a request these checks make no system call (see
 * docs/internals/client.md, "Connection life").
 */
#include "ts_client_internal.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "proto/ts_proto.h"
#include "ts_version.h"

/* An idle connection is probed before a request only when its last reply
 * is older than this; a younger one relies on the send failing. */
#define TS_CLIENT_PROBE_IDLE_MS 500
#define TS_CLIENT_REDIRECTS_MAX 3 /* store_busy hops one call follows */

/* ---- small helpers -------------------------------------------------- */

bool ts_client_error_is_connection(const ts_error *err)
{
    static const char *const codes[] = {
        TS_CLIENT_ERR_UNAVAILABLE, TS_CLIENT_ERR_DISCONNECTED, TS_CLIENT_ERR_TIMEOUT,
        TS_CLIENT_ERR_BAD_REPLY,   TS_ERR_VERSION_MISMATCH,    TS_ERR_SHUTTING_DOWN,
        "permission_denied",       TS_ERR_BAD_FRAME,           TS_ERR_FRAME_TOO_LARGE,
        TS_CLIENT_ERR_UNTRUSTED,
    };
    size_t i;

    if (err == NULL)
        return false;
    for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
        if (strcmp(err->code, codes[i]) == 0)
            return true;
    return false;
}

void ts_client_options_init(ts_client_options *o)
{
    memset(o, 0, sizeof(*o));
    o->autostart = true;
    o->connect_timeout_ms = TS_CLIENT_DEFAULT_CONNECT_MS;
    o->max_frame = TS_FRAME_DEFAULT_MAX;
    o->protocol = TS_CLIENT_PROTOCOL;
}

int ts_client_default_socket(char *out, size_t outsz, ts_error *err)
{
    const char *env = getenv("TOOLSCORE_SOCKET");
    int n;

    if (env == NULL || env[0] == '\0')
        return ts_paths_default_socket(out, outsz, err);
    n = snprintf(out, outsz, "%s", env);
    if (n < 0 || (size_t)n >= outsz)
        return ts_error_set(err, -ENAMETOOLONG, TS_ERR_INVALID_ARGUMENT,
                            "TOOLSCORE_SOCKET is longer than %zu bytes", outsz - 1);
    return 0;
}

/* ---- the connection ------------------------------------------------- */

/*
 * True when an idle connection was closed by the daemon (or holds bytes
 * nobody asked for): it cannot carry a new request. Not probed while the
 * last reply is recent: the daemon never writes unasked, and a request sent
 * to a daemon that closed meanwhile fails to send (EPIPE, nothing
 * delivered) and is resent on a new connection by client_send.
 */
static bool idle_connection_dead(ts_client *c)
{
    struct pollfd p = {c->fd, POLLIN, 0};

    if (c->in_flight > 0 || c->rpos < c->rlen || c->ahead_pos < c->ahead.len)
        return false;
    if (ts_client__coarse_ms() - c->last_reply_ms < TS_CLIENT_PROBE_IDLE_MS)
        return false;
    return poll(&p, 1, 0) > 0;
}

/* Make sure c holds a live connection of this process. */
static int ensure_connected(ts_client *c, ts_error *err)
{
    if (c->fd >= 0 && !ts_client__owned(c))
        ts_client__drop(c); /* inherited across fork: never share the stream */
    if (c->fd >= 0 && idle_connection_dead(c))
        ts_client__drop(c); /* e.g. the daemon stopped or restarted */
    if (c->fd >= 0)
        return 0;
    return ts_client__establish(c, err);
}

/* ---- public entry points -------------------------------------------- */

static int copy_args(ts_client *c, const char *const *args)
{
    size_t n = 0;
    size_t i;

    if (args == NULL)
        return 0;
    while (args[n] != NULL)
        n++;
    c->daemon_args = calloc(n + 1, sizeof(char *));
    if (c->daemon_args == NULL)
        return -ENOMEM;
    for (i = 0; i < n; i++) {
        c->daemon_args[i] = strdup(args[i]);
        if (c->daemon_args[i] == NULL)
            return -ENOMEM;
    }
    return 0;
}

/* A relative socket path is taken from the working directory now, so that
 * a later chdir and the daemon (which runs in "/") see the same socket. */
static int absolute_socket_path(const char *path, char *out, size_t outsz, ts_error *err)
{
    char cwd[TS_PATHS_MAX];
    int n;

    if (path[0] == '/') {
        n = snprintf(out, outsz, "%s", path);
    } else {
        if (getcwd(cwd, sizeof(cwd)) == NULL)
            return ts_error_set(err, -errno, TS_ERR_IO, "cannot read the working directory: %s",
                                strerror(errno));
        n = snprintf(out, outsz, "%s/%s", cwd, path);
    }
    if (n < 0 || (size_t)n >= outsz)
        return ts_error_set(err, -ENAMETOOLONG, TS_ERR_INVALID_ARGUMENT,
                            "socket path is longer than %zu bytes", outsz - 1);
    return 0;
}

/* Seconds as "12", "2.5" or "0.25" (no locale, no sign, no exponent)
 * into *ms; false for anything else or past a day. */
static bool parse_seconds(const char *s, int *ms)
{
    long long whole = 0;
    long long frac = 0;
    int digits = 0;
    int frac_digits = 0;

    while (*s == ' ' || *s == '\t')
        s++;
    for (; *s >= '0' && *s <= '9'; s++, digits++)
        if ((whole = whole * 10 + (*s - '0')) > 86400)
            return false;
    if (*s == '.') {
        for (s++; *s >= '0' && *s <= '9'; s++, frac_digits++)
            if (frac_digits < 3)
                frac = frac * 10 + (*s - '0');
        digits += frac_digits;
    }
    while (*s == ' ' || *s == '\t' || *s == '\n')
        s++;
    if (*s != '\0' || digits == 0)
        return false;
    for (int i = frac_digits < 3 ? frac_digits : 3; i < 3; i++)
        frac *= 10;
    *ms = (int)(whole * 1000 + frac);
    if (*ms == 0 && (whole > 0 || frac > 0))
        *ms = 1;
    return true;
}

/* The request deadlines (toolscore_client.h): the option, else
 * $TOOLSCORE_TIMEOUT, else each request's own. */
static int configure_timeouts(ts_client *c, int option, ts_error *err)
{
    const char *env = getenv("TOOLSCORE_TIMEOUT");
    int ms;

    if (option == TS_CLIENT_NO_TIMEOUT || option > 0) {
        ms = option > 0 ? option : 0;
    } else if (env != NULL && env[0] != '\0') {
        if (!parse_seconds(env, &ms)) {
            char shown[64];

            ts_wire_excerpt(env, shown, sizeof(shown));
            return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                                "TOOLSCORE_TIMEOUT is '%s': a number of seconds up to 86400 was "
                                "expected, e.g. 30 or 2.5 (0: no deadline)",
                                shown);
        }
    } else {
        c->short_timeout_ms = TS_CLIENT_SHORT_TIMEOUT_MS;
        c->long_timeout_ms = TS_CLIENT_LONG_TIMEOUT_MS;
        return 0;
    }
    c->short_timeout_ms = ms;
    c->long_timeout_ms = ms;
    return 0;
}

static int configure(ts_client *c, const ts_client_options *o, ts_error *err)
{
    char path[TS_PATHS_MAX];
    int rc;
    int n;

    if (o->socket_path != NULL && o->socket_path[0] != '\0') {
        n = snprintf(path, sizeof(path), "%s", o->socket_path);
        if (n < 0 || (size_t)n >= sizeof(path))
            return ts_error_set(err, -ENAMETOOLONG, TS_ERR_INVALID_ARGUMENT,
                                "socket path is longer than %zu bytes", sizeof(path) - 1);
    } else {
        rc = ts_client_default_socket(path, sizeof(path), err);
        if (rc < 0)
            return rc;
    }
    rc = absolute_socket_path(path, c->socket_path, sizeof(c->socket_path), err);
    if (rc < 0)
        return rc;
    snprintf(c->client_name, sizeof(c->client_name), "%s",
             o->client_name ? o->client_name : "libtoolscore-client/" TS_VERSION);
    c->autostart = o->autostart;
    c->connect_timeout_ms =
        o->connect_timeout_ms > 0 ? o->connect_timeout_ms : TS_CLIENT_DEFAULT_CONNECT_MS;
    rc = configure_timeouts(c, o->request_timeout_ms, err);
    if (rc < 0)
        return rc;
    c->local_max_frame = o->max_frame ? o->max_frame : TS_FRAME_DEFAULT_MAX;
    if (c->local_max_frame > TS_FRAME_LIMIT_MAX)
        c->local_max_frame = TS_FRAME_LIMIT_MAX;
    c->protocol = o->protocol ? o->protocol : TS_CLIENT_PROTOCOL;
    if (o->daemon_path != NULL) {
        c->daemon_path = strdup(o->daemon_path);
        if (c->daemon_path == NULL)
            return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    if (copy_args(c, o->daemon_args) < 0)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    return 0;
}

int ts_client_connect(const ts_client_options *o, ts_client **out, ts_error *err)
{
    ts_client_options defaults;
    ts_client *c;
    int rc;

    if (o == NULL) {
        ts_client_options_init(&defaults);
        o = &defaults;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    c->fd = -1;
    c->next_id = 1;
    c->rbuf = malloc(TS_CLIENT_READ_CHUNK);
    ts_buf_init(&c->sbuf, TS_BUF_UNLIMITED);
    ts_buf_init(&c->ahead, TS_BUF_UNLIMITED);
    rc = c->rbuf ? configure(c, o, err)
                 : ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    if (rc == 0) {
        ts_frame_reader_init(&c->reader, c->local_max_frame);
        rc = ts_client__establish(c, err);
    }
    if (rc < 0) {
        ts_client_close(c);
        return rc;
    }
    *out = c;
    return 0;
}

void ts_client_close(ts_client *c)
{
    size_t i;

    if (c == NULL)
        return;
    ts_client__drop(c);
    ts_frame_reader_free(&c->reader);
    ts_client__stores_clear(c);
    ts_buf_free(&c->sbuf);
    ts_buf_free(&c->ahead);
    for (i = 0; c->daemon_args != NULL && c->daemon_args[i] != NULL; i++)
        free(c->daemon_args[i]);
    free(c->daemon_args);
    free(c->daemon_path);
    free(c->rbuf);
    free(c);
}

const char *ts_client_socket_path(const ts_client *c)
{
    return c->socket_path;
}

const char *ts_client_started_elsewhere(const ts_client *c)
{
    return c->left_started ? c->started_on : NULL;
}

const struct json_object *ts_client_server_info(const ts_client *c)
{
    return c->server_info;
}

static int client_send(ts_client *c, const char *method, const request_body *body, uint64_t *id,
                       ts_error *err);

int ts_client_send(ts_client *c, const char *method, const struct json_object *params, uint64_t *id,
                   ts_error *err)
{
    request_body body = {params, NULL, NULL, NULL, NULL};

    return client_send(c, method, &body, id, err);
}

static int client_send(ts_client *c, const char *method, const request_body *body, uint64_t *id,
                       ts_error *err)
{
    ts_error local;
    bool idle;
    int rc;

    if (err == NULL)
        err = &local; /* the retry below reads the code */
    rc = ensure_connected(c, err);

    if (rc < 0)
        return rc;
    idle = c->in_flight == 0;
    rc = ts_client__send_request(c, method, body, id, err);
    /*
     * A send refused outright (the daemon closed the connection between
     * the liveness check and now) never reached it: resending on a fresh
     * connection cannot run the request twice.
     */
    if (rc < 0 && idle && c->fd < 0 && strcmp(err->code, TS_CLIENT_ERR_DISCONNECTED) == 0) {
        rc = ts_client__establish(c, err);
        if (rc == 0)
            rc = ts_client__send_request(c, method, body, id, err);
    }
    return rc;
}

int ts_client_receive(ts_client *c, uint64_t *id, struct json_object **result, ts_error *err)
{
    if (c->fd >= 0 && !ts_client__owned(c))
        ts_client__drop(c);
    int rc;

    if (c->fd < 0 || c->in_flight == 0)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "no request is waiting for a reply on this connection");
    snprintf(c->awaiting, sizeof(c->awaiting), "a pipelined request");
    rc = ts_client__receive_reply(c, id, result, NULL, c->long_timeout_ms, err);
    /* store_busy named the daemon holding the store: the next connection
     * goes there, once this one has nothing outstanding */
    if (c->redirect[0] != '\0' && c->in_flight == 0) {
        snprintf(c->socket_path, sizeof(c->socket_path), "%s", c->redirect);
        c->redirect[0] = '\0';
        ts_client__drop(c);
    }
    return rc;
}

int ts_client_call(ts_client *c, const char *method, const struct json_object *params,
                   struct json_object **result, ts_error *err)
{
    return ts_client__call_with(c, method, params, NULL, NULL, result, err);
}

/*
 * Move the connection to the daemon that holds a store (c->redirect, named
 * by its store_busy reply): later requests go there too. Without
 * auto-start: that daemon is alive while it holds the lock. 0, or the
 * connect error (the socket path is then left as it was).
 */
static int follow_redirect(ts_client *c, ts_error *err)
{
    char previous[TS_PATHS_MAX];
    bool autostart = c->autostart;
    int rc;

    snprintf(previous, sizeof(previous), "%s", c->socket_path);
    /* the daemon this client started (a mistyped socket): it serves nothing
     * but redirects, so it is asked to stop, and the caller may say so */
    if (c->started_on[0] != '\0' && strcmp(c->started_on, previous) == 0 && c->fd >= 0) {
        ts_error ignored;

        (void)ts_client__stop_if_idle(c, &ignored);
        c->left_started = true;
    }
    snprintf(c->socket_path, sizeof(c->socket_path), "%s", c->redirect);
    c->redirect[0] = '\0';
    ts_client__drop(c);
    c->autostart = false;
    rc = ts_client__establish(c, err);
    c->autostart = autostart;
    if (rc < 0) {
        ts_error_prefix(err, rc,
                        "the store is held by the daemon at %s (it answered store_busy "
                        "at %s), but",
                        c->socket_path, previous);
        snprintf(c->socket_path, sizeof(c->socket_path), "%s", previous);
    }
    return rc;
}

static int call_once(ts_client *c, const char *method, const request_body *body,
                     struct json_object **result, result_reader *rd, ts_error *err);

/*
 * One request and its reply, the result as a tree (rd NULL) or through rd.
 * A store_busy reply naming the socket of the daemon that holds the store
 * sends the request again there (docs/protocol.md, "store_busy"): the
 * caller sees that daemon's answer. A few hops at most.
 */
static int call(ts_client *c, const char *method, const request_body *body,
                struct json_object **result, result_reader *rd, ts_error *err)
{
    ts_error local;
    int rc;

    if (err == NULL)
        err = &local; /* the redirect reads the code */
    rc = call_once(c, method, body, result, rd, err);
    for (int hop = 0; hop < TS_CLIENT_REDIRECTS_MAX && rc == TS_CLIENT_EREMOTE &&
                      strcmp(err->code, TS_CLIENT_ERR_STORE_BUSY) == 0 && c->redirect[0] != '\0' &&
                      strcmp(c->redirect, c->socket_path) != 0;
         hop++) {
        ts_error why;

        if (follow_redirect(c, &why) < 0) {
            *err = why;
            return TS_CLIENT_EREMOTE;
        }
        rc = call_once(c, method, body, result, rd, err);
    }
    c->redirect[0] = '\0';
    return rc;
}

static int call_once(ts_client *c, const char *method, const request_body *body,
                     struct json_object **result, result_reader *rd, ts_error *err)
{
    uint64_t sent = 0;
    uint64_t got = 0;
    int rc;

    if (result != NULL)
        *result = NULL;
    if (c->fd >= 0 && ts_client__owned(c) && c->in_flight > 0)
        return ts_error_set(err, -EBUSY, TS_ERR_INVALID_ARGUMENT,
                            "%zu pipelined request(s) still wait for ts_client_receive",
                            c->in_flight);
    rc = client_send(c, method, body, &sent, err);
    if (rc < 0)
        return rc;
    if (rd != NULL)
        rd->expect = sent;
    snprintf(c->awaiting, sizeof(c->awaiting), "%s", method);
    rc = ts_client__receive_reply(c, &got, result, rd, ts_client__timeout_for(c, method), err);
    if (rc == 0 && rd == NULL && got != sent) {
        if (result != NULL) {
            json_object_put(*result);
            *result = NULL;
        }
        return ts_client__wrong_reply_id(c, got, sent, err);
    }
    return rc;
}

int ts_client__call_with(ts_client *c, const char *method, const struct json_object *params,
                         const char *key, const struct json_object *value,
                         struct json_object **result, ts_error *err)
{
    request_body body = {params, key, value, NULL, NULL};

    return call(c, method, &body, result, NULL, err);
}

int ts_client__call_packed(ts_client *c, const char *method, ts_client_params_packer pack,
                           const void *arg, struct json_object **result,
                           ts_client_result_reader read, void *read_arg, ts_error *err)
{
    request_body body = {NULL, NULL, NULL, pack, arg};
    result_reader rd = {read, read_arg, 0};

    return call(c, method, &body, result, read != NULL ? &rd : NULL, err);
}
