/*
 * conn — one connection: reading its bytes into frames, pausing and
 * resuming it for the memory budget, writing its replies, closing it (see
 * server_internal.h). What it reads goes up through the server's events;
 * it calls nothing above it.
 */
#include "server_internal.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/ts_base.h"

typedef struct reply_write {
    uv_write_t req;
    tsd_conn *conn;
    char *data;
    size_t queued; /* bytes of it counted in conn->queued_bytes */
} reply_write;

static char read_buffer[TSD_CONN_READ_CHUNK];

/* ---- writing replies ------------------------------------------------- */

static void on_write(uv_write_t *req, int status)
{
    reply_write *w = (reply_write *)req;
    tsd_conn *conn = w->conn;

    conn->queued_bytes -= w->queued;
    conn->active_ms = tsd_server_now_ms(conn->server);
    free(w->data);
    free(w);
    conn->queued_replies--;
    if (status < 0 && status != UV_ECANCELED && !conn->closing) {
        tsd_debug("connection %llu: write failed: %s", (unsigned long long)conn->id,
                  uv_strerror(status));
        tsd_conn_close(conn);
        return;
    }
    if (conn->closing) {
        tsd_conn_close(conn);
        return;
    }
    tsd_conn_changed(conn); /* a client reading again may be read again */
}

/*
 * Send one encoded frame (4-byte header + payload, owned by data): written
 * at once when the socket takes it, else queued (and counted).
 */
void tsd_conn_send(tsd_conn *conn, char *data, size_t len)
{
    uv_buf_t buf = uv_buf_init(data, (unsigned)len);
    reply_write *w;
    int n = 0;

    conn->active_ms = tsd_server_now_ms(conn->server);
    if (uv_stream_get_write_queue_size((uv_stream_t *)&conn->handle) == 0)
        n = uv_try_write((uv_stream_t *)&conn->handle, &buf, 1);
    if (n == (int)len) {
        free(data);
        return;
    }
    if (n < 0 && n != UV_EAGAIN) {
        free(data);
        tsd_debug("connection %llu: write failed: %s", (unsigned long long)conn->id,
                  uv_strerror(n));
        tsd_conn_close(conn);
        return;
    }
    w = malloc(sizeof(*w));
    if (w == NULL) {
        free(data);
        tsd_conn_close(conn);
        return;
    }
    w->conn = conn;
    w->data = data;
    w->queued = len - (size_t)(n > 0 ? n : 0);
    buf = uv_buf_init(data + (n > 0 ? n : 0), (unsigned)w->queued);
    if (uv_write(&w->req, (uv_stream_t *)&conn->handle, &buf, 1, on_write) < 0) {
        free(data);
        free(w);
        tsd_conn_close(conn);
        return;
    }
    conn->queued_replies++;
    /* counted: a client that does not read is paused (server_internal.h), never
     * buffered without end */
    conn->queued_bytes += w->queued;
}

void tsd_conn_kill(tsd_conn *conn, const char *code, const char *message)
{
    ts_buf frame;
    char *data;
    size_t len = 0;

    if (conn->closing && uv_is_closing((uv_handle_t *)&conn->handle))
        return;
    ts_buf_init(&frame, TS_BUF_UNLIMITED);
    if (uv_stream_get_write_queue_size((uv_stream_t *)&conn->handle) == 0 &&
        ts_message_encode_error(&frame, NULL, code, message, NULL) == 0) {
        uv_buf_t buf;

        data = ts_buf_detach(&frame, &len);
        buf = uv_buf_init(data, (unsigned)len);
        (void)uv_try_write((uv_stream_t *)&conn->handle, &buf, 1);
        free(data);
    }
    ts_buf_free(&frame);
    tsd_conn_abort(conn);
}

/* ---- closing ---------------------------------------------------------- */

static void on_conn_closed(uv_handle_t *handle)
{
    tsd_conn *conn = (tsd_conn *)handle;
    tsd_server *srv = conn->server;

    if (conn->prev != NULL)
        conn->prev->next = conn->next;
    else
        srv->conns = conn->next;
    if (conn->next != NULL)
        conn->next->prev = conn->prev;
    srv->connection_count--;
    srv->events.closed(conn); /* requests at work finish without it */
    srv->budget.held -= conn->held;
    if (conn->paused)
        srv->budget.paused--;
    free(conn->pending);
    ts_frame_reader_free(&conn->reader);
    tsd_debug("connection %llu closed", (unsigned long long)conn->id);
    free(conn);
    srv->events.idle(srv);
}

void tsd_conn_close(tsd_conn *conn)
{
    uv_handle_t *h = (uv_handle_t *)&conn->handle;

    if (!conn->closing) {
        conn->closing = true;
        uv_read_stop((uv_stream_t *)&conn->handle);
    }
    if (conn->queued_replies == 0 && conn->requests_head == NULL && !uv_is_closing(h))
        uv_close(h, on_conn_closed);
}

void tsd_conn_abort(tsd_conn *conn)
{
    uv_handle_t *h = (uv_handle_t *)&conn->handle;

    conn->closing = true;
    if (!uv_is_closing(h))
        uv_close(h, on_conn_closed); /* pending writes end with UV_ECANCELED */
}

/* ---- reading ---------------------------------------------------------- */

static void on_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buf)
{
    (void)handle;
    (void)suggested;
    *buf = uv_buf_init(read_buffer, sizeof(read_buffer));
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf);

static void start_reading(tsd_conn *conn)
{
    uv_read_start((uv_stream_t *)&conn->handle, on_alloc, on_read);
}

static void pause_reading(tsd_conn *conn)
{
    if (conn->paused)
        return;
    conn->paused = true;
    conn->paused_ms = tsd_server_now_ms(conn->server);
    conn->server->budget.paused++;
    conn->server->budget.pauses++;
    uv_read_stop((uv_stream_t *)&conn->handle);
    tsd_debug("connection %llu paused (%zu requests unanswered, %zu reply bytes unread, %zu bytes "
              "held)",
              (unsigned long long)conn->id, conn->request_count,
              conn->queued_bytes + conn->waiting_bytes, tsd_conn_holdings(conn));
}

/* Keep the bytes of a read not fed yet (a copy: the read buffer is
 * shared); they are fed first when the connection resumes. */
static void stash(tsd_conn *conn, const char *p, size_t len)
{
    unsigned char *copy = malloc(len);

    if (copy == NULL) {
        tsd_conn_abort(conn);
        return;
    }
    memcpy(copy, p, len);
    conn->pending = copy;
    conn->pending_len = len;
}

/*
 * Feed len bytes read on conn to its frame reader, handing each complete
 * frame to request.c, and stopping (the rest kept, reading paused) as soon
 * as the connection should wait (server_internal.h): a request decoded on the pool,
 * too many unanswered, replies unread, the daemon over budget.
 */
static void feed(tsd_conn *conn, const char *p, size_t len)
{
    tsd_server *srv = conn->server;
    ts_error err;

    conn->feeding = true;
    while (len > 0 && !conn->closing) {
        size_t used = 0;
        int rc;

        if (tsd_conn_should_wait(srv, conn, false)) {
            stash(conn, p, len);
            pause_reading(conn);
            break;
        }
        rc = ts_frame_reader_feed(&conn->reader, p, len, &used, &err);
        p += used;
        len -= used;
        if (rc >= 0 && conn->reserved && conn->reader.header_len == TS_FRAME_HEADER_SIZE &&
            conn->reader.need > TSD_RESERVED_FRAME_MAX) {
            char why[200];

            snprintf(why, sizeof(why),
                     "a frame of %zu bytes in a slot kept for status and stop (at most %u: "
                     "all %d connection slots are taken)",
                     conn->reader.need, TSD_RESERVED_FRAME_MAX, TSD_MAX_CONNECTIONS);
            tsd_warn("connection %llu (pid %ld) closed: %s", (unsigned long long)conn->id,
                     (long)conn->pid, why);
            tsd_conn_kill(conn, TS_ERR_LIMIT, why);
            break;
        }
        if (rc < 0) {
            tsd_warn("connection %llu (pid %ld): %s", (unsigned long long)conn->id, (long)conn->pid,
                     err.message);
            srv->events.broken(conn, err.code, err.message);
            break;
        }
        if (rc == 1) {
            size_t n = 0;
            unsigned char *payload = ts_frame_reader_take(&conn->reader, &n);

            conn->frame_started_ms = 0;
            conn->active_ms = tsd_server_now_ms(srv);
            srv->events.frame(conn, payload, n); /* takes the payload */
        }
    }
    if (!ts_frame_reader_partial(&conn->reader))
        conn->frame_started_ms = 0;
    else if (conn->frame_started_ms == 0)
        conn->frame_started_ms = tsd_server_now_ms(srv);
    conn->feeding = false;
}

/* Read conn again: the bytes kept first, then the socket. */
static void resume_reading(tsd_conn *conn)
{
    unsigned char *kept = conn->pending;
    size_t len = conn->pending_len;

    conn->paused = false;
    conn->server->budget.paused--;
    /* a frame's deadline counts only the time it was read */
    if (conn->frame_started_ms != 0)
        conn->frame_started_ms += tsd_server_now_ms(conn->server) - conn->paused_ms;
    tsd_debug("connection %llu resumed", (unsigned long long)conn->id);
    conn->pending = NULL;
    conn->pending_len = 0;
    if (kept != NULL) {
        feed(conn, (const char *)kept, len);
        free(kept);
    }
    if (!conn->paused && !conn->closing)
        start_reading(conn);
}

/* Count conn's holdings; pause or resume it. */
static void account(tsd_conn *conn)
{
    tsd_server *srv = conn->server;
    size_t now = tsd_conn_holdings(conn);

    srv->budget.held = srv->budget.held - conn->held + now;
    conn->held = now;
    tsd_budget_publish(&srv->budget);
    if (conn->feeding || conn->closing)
        return;
    if (conn->paused && !tsd_conn_should_wait(srv, conn, true))
        resume_reading(conn);
    else if (!conn->paused && tsd_conn_should_wait(srv, conn, false))
        pause_reading(conn);
    if (conn->held != tsd_conn_holdings(conn)) {
        srv->budget.held = srv->budget.held - conn->held + tsd_conn_holdings(conn);
        conn->held = tsd_conn_holdings(conn);
    }
}

void tsd_conn_changed(tsd_conn *conn)
{
    account(conn);
}

/* True when the peer of conn closed its end (seen without reading: a
 * paused connection is not read, so its end of stream is not either). */
static bool peer_gone(const tsd_conn *conn)
{
    struct pollfd p = {.events = POLLRDHUP};
    uv_os_fd_t fd;

    if (uv_fileno((const uv_handle_t *)&conn->handle, &fd) < 0)
        return false;
    p.fd = fd;
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

/* Connections paused by the daemon's state (over budget) may be read
 * again once it is not: every paused one is looked at. One whose peer has
 * gone while it held a partial frame is closed at once: that frame will
 * never be complete, and what it holds is let go. */
void tsd_conns_resume(tsd_server *srv)
{
    tsd_conn *c = srv->conns;

    while (c != NULL && srv->budget.paused > 0) {
        tsd_conn *next = c->next;

        if (c->paused && !c->closing && c->frame_started_ms != 0 && peer_gone(c)) {
            tsd_debug("connection %llu: the client left in the middle of a frame",
                      (unsigned long long)c->id);
            tsd_conn_abort(c);
        } else if (c->paused) {
            account(c);
        }
        c = next;
    }
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    tsd_conn *conn = (tsd_conn *)stream;

    if (nread < 0) {
        if (nread != UV_EOF)
            tsd_debug("connection %llu: read: %s", (unsigned long long)conn->id,
                      uv_strerror((int)nread));
        else if (ts_frame_reader_partial(&conn->reader))
            tsd_warn("connection %llu (pid %ld): closed in the middle of a frame",
                     (unsigned long long)conn->id, (long)conn->pid);
        tsd_conn_close(conn);
        return;
    }
    feed(conn, buf->base, (size_t)nread);
    account(conn);
}

tsd_conn *tsd_conn_open(tsd_server *srv, int fd)
{
    tsd_conn *conn = calloc(1, sizeof(*conn));

    if (conn == NULL) {
        close(fd);
        return NULL;
    }
    uv_pipe_init(srv->loop, &conn->handle, 0);
    conn->server = srv;
    conn->id = ++srv->next_conn_id;
    conn->accepted_ms = tsd_server_now_ms(srv);
    conn->active_ms = conn->accepted_ms;
    ts_frame_reader_init(&conn->reader, srv->options->max_frame);
    conn->next = srv->conns;
    if (srv->conns != NULL)
        srv->conns->prev = conn;
    srv->conns = conn;
    srv->connection_count++;
    if (uv_pipe_open(&conn->handle, fd) < 0) {
        close(fd);
        tsd_conn_abort(conn);
        return NULL;
    }
    return conn;
}

void tsd_conn_start(tsd_conn *conn)
{
    start_reading(conn);
}
