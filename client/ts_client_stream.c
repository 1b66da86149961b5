/*
 * ts_client_stream — one connection's stream: the socket connected to a
 * trusted daemon, requests written as frames, replies read back (in place
 * when they can be), hello, and whether the descriptor is this process's
 * (fork). The bottom of the client library: ts_client_connect.c and
 * ts_client.c call it, it calls neither (docs/internals/client.md).
 */
#include "ts_client_internal.h"

#include <errno.h>
#include <fcntl.h>
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

#define TS_CLIENT_CLOSE_REASON_MS 100 /* reading the reply of a daemon that hung up */

/* ---- clocks ---------------------------------------------------------- */

int64_t ts_client__now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A clock read without a system call whatever the clocksource (the coarse
 * clocks are served from the vDSO's data page; resolution one tick). */
int64_t ts_client__coarse_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- fork detection ------------------------------------------------- */

/* Bumped in every child made by fork() (a pthread_atfork child handler):
 * a connection opened at another generation was inherited. Reading it costs
 * no system call, unlike getpid(), which glibc no longer caches. */
static atomic_ulong fork_generation;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static bool forks_tracked; /* false if pthread_atfork failed: compare pids */

static void on_fork_child(void)
{
    atomic_fetch_add_explicit(&fork_generation, 1, memory_order_relaxed);
}

static void track_forks(void)
{
    forks_tracked = pthread_atfork(NULL, NULL, on_fork_child) == 0;
}

/* Remember which process opens the next descriptor. Read before the socket
 * exists, so a fork by another thread in between still counts as one. */
static void mark_owner(ts_client *c)
{
    pthread_once(&fork_once, track_forks);
    c->fork_gen = atomic_load_explicit(&fork_generation, memory_order_relaxed);
    c->owner = forks_tracked ? 0 : getpid();
}

/* True when c's descriptor was opened by this process, not inherited. */
bool ts_client__owned(const ts_client *c)
{
    if (c->fork_gen != atomic_load_explicit(&fork_generation, memory_order_relaxed))
        return false;
    return forks_tracked || c->owner == getpid();
}

/* ---- the connection ------------------------------------------------- */

/* Forget the connection. In a forked child this closes only the child's
 * copy of the descriptor; the parent's stream is untouched. */
void ts_client__drop(ts_client *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->in_flight = 0;
    c->server_max_frame = 0;
    c->rpos = c->rlen = 0;
    ts_buf_free(&c->ahead);
    c->ahead_pos = 0;
    json_object_put(c->server_info);
    c->server_info = NULL;
    ts_frame_reader_free(&c->reader);
    ts_frame_reader_init(&c->reader, c->local_max_frame);
}

/* Largest request payload: what the daemon announced it accepts. */
static size_t frame_limit(const ts_client *c)
{
    return c->server_max_frame ? c->server_max_frame : c->local_max_frame;
}

/* Largest reply payload: the daemon may answer up to the protocol default
 * even when it accepts smaller requests (docs/protocol.md, "Frames"). */
static size_t reply_limit(const ts_client *c)
{
    size_t limit = c->local_max_frame;

    if (c->server_max_frame > limit)
        limit = c->server_max_frame;
    return limit;
}

/* Try one connect(), to a socket whose directory and listener are the
 * user's (ts_client_trust.c); 0, or the negative errno. */
int ts_client__try_connect(ts_client *c, ts_error *err)
{
    ts_sockaddr addr;
    int fd;
    int rc;

    rc = ts_client__trust_dir(c->socket_path, err);
    if (rc < 0)
        return rc;
    rc = ts_paths_sockaddr(c->socket_path, &addr, err);
    if (rc < 0)
        return rc;
    mark_owner(c);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        rc = -errno;
        ts_paths_sockaddr_release(&addr);
        return ts_error_set(err, rc, TS_CLIENT_ERR_UNAVAILABLE, "socket: %s", strerror(-rc));
    }
    do {
        rc = connect(fd, (struct sockaddr *)&addr.addr, addr.len);
    } while (rc < 0 && errno == EINTR);
    rc = rc < 0 ? -errno : 0;
    ts_paths_sockaddr_release(&addr);
    if (rc < 0) {
        close(fd);
        return ts_error_set(err, rc, TS_CLIENT_ERR_UNAVAILABLE, "no daemon answers at %s: %s",
                            c->socket_path, strerror(-rc));
    }
    rc = ts_client__trust_peer(fd, c->socket_path, err);
    if (rc < 0) {
        close(fd);
        return rc;
    }
    c->fd = fd;
    return 0;
}

/* A frame payload read from the stream: data points into the read buffer
 * (valid until the next read) or into owned, which the caller frees. */
typedef struct frame_in {
    const unsigned char *data;
    size_t len;
    unsigned char *owned;
} frame_in;

static int read_frame(ts_client *c, frame_in *f, int timeout_ms, ts_error *err);

/*
 * The daemon closed the connection before our request reached it: it may
 * have said why first (an error reply with id nil, e.g. "busy" when it is out
 * of descriptors, or "limit"). Returns TS_CLIENT_EREMOTE with that error,
 * or 0 when no such reply is waiting.
 */
static int close_reason(ts_client *c, ts_error *err)
{
    struct pollfd p = {c->fd, POLLIN, 0};
    frame_in f;
    ts_reply reply;
    ts_error local;
    int rc;

    if (poll(&p, 1, 0) <= 0 || c->rpos < c->rlen || c->in_flight > 0)
        return 0;
    if (read_frame(c, &f, TS_CLIENT_CLOSE_REASON_MS, &local) < 0)
        return 0;
    rc = ts_message_decode_reply(f.data, f.len, &reply, &local);
    free(f.owned);
    if (rc < 0)
        return 0;
    rc = 0;
    if (!reply.ok && !reply.has_id) {
        if (err != NULL)
            *err = reply.error;
        rc = TS_CLIENT_EREMOTE;
    }
    ts_reply_free(&reply);
    return rc;
}

/*
 * The socket takes nothing more: wait until it does, reading meanwhile the
 * replies of the requests in flight into c->ahead, so that a caller that
 * pipelines many requests before receiving never deadlocks with a daemon
 * that stops reading until its replies are read. 0, or -errno.
 */
static int wait_writable(ts_client *c)
{
    for (;;) {
        struct pollfd p = {c->fd, (short)(POLLOUT | (c->in_flight > 0 ? POLLIN : 0)), 0};
        unsigned char chunk[TS_CLIENT_READ_CHUNK];
        ssize_t n;

        if (poll(&p, 1, -1) < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (p.revents & POLLOUT)
            return 0;
        if (!(p.revents & POLLIN))
            return p.revents & (POLLHUP | POLLERR) ? -EPIPE : 0;
        n = recv(c->fd, chunk, sizeof(chunk), MSG_DONTWAIT);
        if (n > 0) {
            if (ts_buf_append(&c->ahead, chunk, (size_t)n) < 0)
                return -ENOMEM;
        } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
            return 0; /* the send says what broke */
        }
    }
}

/* Write all of data; a failure drops the connection. */
static int write_all(ts_client *c, const char *data, size_t len, ts_error *err)
{
    while (len > 0) {
        ssize_t n = send(c->fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) {
            int rc = wait_writable(c);

            if (rc == 0)
                continue;
            errno = -rc;
        }
        if (n < 0) {
            int rc = -errno;
            int said = c->fd >= 0 ? close_reason(c, err) : 0;

            ts_client__drop(c);
            if (said < 0)
                return said;
            return ts_error_set(err, rc, TS_CLIENT_ERR_DISCONNECTED,
                                "lost the connection to the daemon at %s while sending: %s",
                                c->socket_path, strerror(-rc));
        }
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

int ts_client__timeout_for(const ts_client *c, const char *method)
{
    static const char *const short_methods[] = {"hello", "ping", "status", "stop"};

    for (size_t i = 0; i < sizeof(short_methods) / sizeof(short_methods[0]); i++)
        if (strcmp(method, short_methods[i]) == 0)
            return c->short_timeout_ms;
    return c->long_timeout_ms;
}

/* The daemon's pid: from its hello, else from the lock file beside its
 * socket (SOCKET.lock, which it writes its pid into); 0 when neither says. */
static long daemon_pid(const ts_client *c)
{
    struct json_object *pid = NULL;
    char path[TS_PATHS_MAX + 8];
    char text[32];
    long v = 0;
    ssize_t n;
    int fd;

    if (c->server_info != NULL && json_object_object_get_ex(c->server_info, "pid", &pid) &&
        json_object_is_type(pid, json_type_int))
        return (long)json_object_get_int64(pid);
    if (snprintf(path, sizeof(path), "%s.lock", c->socket_path) >= (int)sizeof(path))
        return 0;
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return 0;
    n = read(fd, text, sizeof(text) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    text[n] = '\0';
    for (char *p = text; *p >= '0' && *p <= '9' && v < 100000000; p++)
        v = v * 10 + (*p - '0');
    return v;
}

/* The error of a reply that did not come within timeout_ms: it names the
 * daemon and says what to do (docs/protocol.md, "Deadlines"). */
static int timed_out(ts_client *c, int timeout_ms, ts_error *err)
{
    long pid = daemon_pid(c);
    char who[64] = "";
    char kill_hint[48] = "";
    char secs[32];

    if (timeout_ms % 1000 == 0)
        snprintf(secs, sizeof(secs), "%d s", timeout_ms / 1000);
    else
        snprintf(secs, sizeof(secs), "%d.%03d s", timeout_ms / 1000, timeout_ms % 1000);
    if (pid > 0) {
        snprintf(who, sizeof(who), "pid %ld, ", pid);
        snprintf(kill_hint, sizeof(kill_hint), ", or kill %ld", pid);
    }
    return ts_error_set(err, -ETIMEDOUT, TS_CLIENT_ERR_TIMEOUT,
                        "toolscored (%ssocket %s) did not answer %s within %s: it may be "
                        "stopped (SIGSTOP), hung or overloaded; look at it with `tsctl status` "
                        "and its log, restart it (`tsctl stop`%s), or set TOOLSCORE_TIMEOUT to "
                        "the seconds to wait (0: no deadline)",
                        who, c->socket_path, c->awaiting[0] ? c->awaiting : "a request", secs,
                        kill_hint);
}

/* Wait until fd is readable, within timeout_ms (0: forever). */
static int wait_readable(ts_client *c, int timeout_ms, ts_error *err)
{
    struct pollfd p = {c->fd, POLLIN, 0};
    int64_t deadline = timeout_ms > 0 ? ts_client__now_ms() + timeout_ms : 0;
    int rc;

    for (;;) {
        int wait = -1;
        if (deadline) {
            int64_t left = deadline - ts_client__now_ms();
            wait = left > 0 ? (int)left : 0;
        }
        rc = poll(&p, 1, wait);
        if (rc > 0)
            return 0;
        if (rc == 0) {
            rc = timed_out(c, timeout_ms, err); /* before the drop forgets the daemon's pid */
            ts_client__drop(c);
            return rc;
        }
        if (errno != EINTR) {
            rc = -errno;
            ts_client__drop(c);
            return ts_error_set(err, rc, TS_CLIENT_ERR_DISCONNECTED, "poll: %s", strerror(-rc));
        }
    }
}

/* Read more bytes into rbuf (which is empty). */
static int fill(ts_client *c, int timeout_ms, ts_error *err)
{
    ssize_t n;

    if (c->ahead_pos < c->ahead.len) { /* read while sending first */
        size_t take = c->ahead.len - c->ahead_pos;

        if (take > TS_CLIENT_READ_CHUNK)
            take = TS_CLIENT_READ_CHUNK;
        memcpy(c->rbuf, c->ahead.data + c->ahead_pos, take);
        c->ahead_pos += take;
        if (c->ahead_pos == c->ahead.len) {
            ts_buf_free(&c->ahead);
            c->ahead_pos = 0;
        }
        c->rpos = 0;
        c->rlen = take;
        return 0;
    }
    /* poll, not a blocking recv: a recv sleeping on the socket is also woken
     * each time the daemon reads our request (the "write space" wakeup of a
     * Unix socket is not filtered for readers), which costs both sides. */
    int rc = wait_readable(c, timeout_ms, err);

    if (rc < 0)
        return rc;
    do {
        n = recv(c->fd, c->rbuf, TS_CLIENT_READ_CHUNK, 0);
    } while (n < 0 && errno == EINTR);
    if (n > 0) {
        c->rpos = 0;
        c->rlen = (size_t)n;
        return 0;
    }
    rc = n == 0 ? -ECONNRESET : -errno;
    ts_client__drop(c);
    return ts_error_set(err, rc, TS_CLIENT_ERR_DISCONNECTED,
                        "the daemon at %s closed the connection%s%s", c->socket_path,
                        n == 0 ? "" : ": ", n == 0 ? "" : strerror(-rc));
}

/* A whole frame of acceptable length at the start of the unread bytes (the
 * usual reply, read with one recv): taken in place, without a copy. Anything
 * else goes through the frame reader, which also reports bad lengths. */
static bool frame_in_place(ts_client *c, frame_in *f)
{
    size_t avail = c->rlen - c->rpos;
    uint32_t n;

    if (ts_frame_reader_partial(&c->reader) || avail < TS_FRAME_HEADER_SIZE)
        return false;
    n = ts_frame_get_header(c->rbuf + c->rpos);
    if (n == 0 || n > c->reader.max || n > avail - TS_FRAME_HEADER_SIZE)
        return false;
    f->data = c->rbuf + c->rpos + TS_FRAME_HEADER_SIZE;
    f->len = n;
    c->rpos += TS_FRAME_HEADER_SIZE + n;
    return true;
}

/* Read one complete frame payload from the stream. */
static int read_frame(ts_client *c, frame_in *f, int timeout_ms, ts_error *err)
{
    f->owned = NULL;
    c->reader.max = reply_limit(c);
    for (;;) {
        size_t used = 0;
        int rc;

        if (c->rpos == c->rlen) {
            rc = fill(c, timeout_ms, err);
            if (rc < 0)
                return rc;
        }
        if (frame_in_place(c, f))
            return 0;
        rc = ts_frame_reader_feed(&c->reader, c->rbuf + c->rpos, c->rlen - c->rpos, &used, err);
        c->rpos += used;
        if (rc < 0) {
            ts_client__drop(c);
            return ts_error_prefix(err, rc, "reply from the daemon at %s", c->socket_path);
        }
        if (rc == 1) {
            f->owned = ts_frame_reader_take(&c->reader, &f->len);
            f->data = f->owned;
            return 0;
        }
    }
}

/* A reply that answers another request than the one awaited: the stream
 * cannot be trusted any more. */
int ts_client__wrong_reply_id(ts_client *c, uint64_t got, uint64_t sent, ts_error *err)
{
    ts_client__drop(c);
    return ts_error_set(err, -EPROTO, TS_CLIENT_ERR_BAD_REPLY,
                        "reply for request %llu arrived while waiting for %llu",
                        (unsigned long long)got, (unsigned long long)sent);
}

/* Hand the result of the ok reply to request got (its msgpack bytes) to
 * the reader. A result it refuses drops the connection like any bad reply. */
static int read_result(ts_client *c, const result_reader *rd, uint64_t got,
                       const unsigned char *data, size_t len, ts_error *err)
{
    int rc;

    if (got != rd->expect)
        return ts_client__wrong_reply_id(c, got, rd->expect, err);
    rc = rd->read(data, len, rd->arg, err);
    if (rc < 0 && rc != -ENOMEM)
        ts_client__drop(c);
    return rc;
}

/* The same for a result that was decoded into a tree (a reply the in-place
 * view does not take): packed again for the reader. Rare, so not fast. */
static int read_result_tree(ts_client *c, const result_reader *rd, uint64_t got,
                            const struct json_object *tree, ts_error *err)
{
    ts_buf packed;
    int rc;

    ts_buf_init(&packed, TS_BUF_UNLIMITED);
    rc = ts_wire_encode(tree, &packed, err);
    if (rc < 0)
        rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "cannot pack the reply's result");
    else
        rc = read_result(c, rd, got, (const unsigned char *)packed.data, packed.len, err);
    ts_buf_free(&packed);
    return rc;
}

/*
 * Receive the next reply; maps an error reply to TS_CLIENT_EREMOTE. The
 * result goes to *result as a tree, or with rd to rd's reader: an ok reply
 * read in place when it has the usual form (ts_reply_view), any other reply
 * through the full decoder, so errors and refusals are the same either way.
 */
int ts_client__receive_reply(ts_client *c, uint64_t *id, struct json_object **result,
                             const result_reader *rd, int timeout_ms, ts_error *err)
{
    frame_in f;
    ts_reply reply;
    ts_reply_view view;
    int rc = read_frame(c, &f, timeout_ms, err);

    if (rc < 0)
        return rc;
    c->last_reply_ms = ts_client__coarse_ms();
    if (rd != NULL && ts_reply_view_ok(f.data, f.len, &view)) {
        if (c->in_flight > 0)
            c->in_flight--;
        if (id != NULL)
            *id = view.id;
        rc = read_result(c, rd, view.id, view.result, view.result_len, err);
        free(f.owned);
        return rc;
    }
    rc = ts_message_decode_reply(f.data, f.len, &reply, err);
    free(f.owned);
    if (rc < 0) {
        ts_client__drop(c);
        if (err != NULL)
            snprintf(err->code, sizeof(err->code), "%s", TS_CLIENT_ERR_BAD_REPLY);
        return rc;
    }
    if (c->in_flight > 0)
        c->in_flight--;
    if (id != NULL)
        *id = reply.id;
    if (!reply.ok) {
        if (err != NULL)
            *err = reply.error;
        if (strcmp(reply.error.code, TS_CLIENT_ERR_STORE_BUSY) == 0 && reply.error_socket != NULL &&
            reply.error_socket[0] == '/' && strlen(reply.error_socket) < sizeof(c->redirect))
            snprintf(c->redirect, sizeof(c->redirect), "%s", reply.error_socket);
        if (!reply.has_id)
            ts_client__drop(c); /* a connection-level error: the server closes */
        ts_reply_free(&reply);
        return TS_CLIENT_EREMOTE;
    }
    if (rd != NULL) {
        rc = read_result_tree(c, rd, reply.id, reply.result, err);
        ts_reply_free(&reply);
        return rc;
    }
    if (result != NULL)
        *result = reply.result;
    else
        json_object_put(reply.result);
    reply.result = NULL;
    ts_reply_free(&reply);
    return 0;
}

int ts_client__encode_request(ts_buf *out, uint64_t id, const char *method,
                              ts_client_params_packer pack, const void *arg, size_t max_frame,
                              ts_error *err)
{
    static const unsigned char zero[TS_FRAME_HEADER_SIZE] = {0};
    size_t saved_max = out->max;
    ts_wire_writer w;
    int rc;

    /* the limits of ts_message_encode_request, so the errors are its own */
    if (max_frame == 0)
        max_frame = TS_FRAME_DEFAULT_MAX;
    if (max_frame > TS_FRAME_LIMIT_MAX)
        max_frame = TS_FRAME_LIMIT_MAX;
    out->max = TS_FRAME_HEADER_SIZE + max_frame;
    ts_buf_append(out, zero, sizeof(zero)); /* the header, patched at the end */
    ts_wire_writer_init(&w, out);
    msgpack_pack_map(&w.pk, 3);
    ts_wire_pack_str(&w, "id", 2, err);
    msgpack_pack_uint64(&w.pk, id);
    ts_wire_pack_str(&w, "method", 6, err);
    ts_wire_pack_str(&w, method, strlen(method), err);
    ts_wire_pack_str(&w, "params", 6, err);
    rc = pack(&w, arg, err);
    if (rc == 0)
        rc = ts_wire_writer_error(&w);
    out->max = saved_max;
    if (ts_buf_error(out) == -E2BIG)
        rc = ts_error_set(err, -E2BIG, TS_ERR_TOO_LARGE,
                          "request exceeds the maximum frame size of %zu bytes", max_frame);
    else if (ts_buf_error(out) < 0)
        rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "cannot allocate the request");
    if (rc < 0) {
        ts_buf_free(out);
        return rc;
    }
    ts_frame_put_header((unsigned char *)out->data, (uint32_t)(out->len - TS_FRAME_HEADER_SIZE));
    return 0;
}

/* Encode one request into the client's send buffer and write it. */
int ts_client__send_request(ts_client *c, const char *method, const request_body *body,
                            uint64_t *id, ts_error *err)
{
    ts_buf *frame = &c->sbuf;
    int rc;

    ts_buf_reset(frame);
    if (body->pack != NULL)
        rc = ts_client__encode_request(frame, c->next_id, method, body->pack, body->arg,
                                       frame_limit(c), err);
    else
        rc = ts_message_encode_request_with(frame, c->next_id, method, body->params, body->key,
                                            body->value, frame_limit(c), err);
    if (rc == 0)
        rc = write_all(c, frame->data, frame->len, err);
    if (frame->cap > TS_CLIENT_READ_CHUNK)
        ts_buf_free(frame); /* keep no large request's memory */
    if (rc < 0)
        return rc;
    if (id != NULL)
        *id = c->next_id;
    c->next_id++;
    c->in_flight++;
    return 0;
}

int ts_client__hello(ts_client *c, ts_error *err)
{
    struct json_object *params = json_object_new_object();
    struct json_object *result = NULL;
    struct json_object *max = NULL;
    /* hello waits like any request: a daemon busy with many clients may
     * take longer than the connect budget to reach a new connection */
    int timeout = ts_client__timeout_for(c, "hello");
    request_body body = {params, NULL, NULL, NULL, NULL};
    int rc;

    if (params == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "cannot allocate hello");
    json_object_object_add(params, "protocol", json_object_new_int(c->protocol));
    json_object_object_add(params, "client", json_object_new_string(c->client_name));
    json_object_object_add(params, "pid", json_object_new_int64((int64_t)getpid()));
    rc = ts_client__send_request(c, "hello", &body, NULL, err);
    json_object_put(params);
    snprintf(c->awaiting, sizeof(c->awaiting), "hello");
    if (rc == 0)
        rc = ts_client__receive_reply(c, NULL, &result, NULL, timeout, err);
    if (rc < 0) {
        ts_client__drop(c);
        return rc;
    }
    if (json_object_object_get_ex(result, "max_frame", &max) &&
        json_object_is_type(max, json_type_int) && json_object_get_int64(max) >= 1024 &&
        (uint64_t)json_object_get_int64(max) <= TS_FRAME_LIMIT_MAX)
        c->server_max_frame = (size_t)json_object_get_int64(max);
    c->server_info = result;
    return 0;
}

const char *ts_client_version(void)
{
    return TS_VERSION;
}

const char *ts_client_server_version(const ts_client *c)
{
    struct json_object *v = NULL;
    const char *s;

    if (c == NULL || c->server_info == NULL)
        return NULL;
    if (json_object_object_get_ex(c->server_info, "version", &v) &&
        json_object_is_type(v, json_type_string) && json_object_get_string_len(v) > 0)
        return json_object_get_string(v);
    if (json_object_object_get_ex(c->server_info, "server", &v) &&
        json_object_is_type(v, json_type_string)) {
        s = json_object_get_string(v);
        if (strncmp(s, "toolscored/", 11) == 0 && s[11] != '\0')
            return s + 11;
    }
    return NULL;
}
