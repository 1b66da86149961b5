/*
 * server — the libuv loop, connections, reading frames, writing replies,
 * graceful stop (see server.h; requests themselves are request.c's).
 */
#include "server.h"

#include <malloc.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "jobs.h"
#include "listing.h"
#include "log.h"
#include "request.h"
#include "ts_buf.h"
#include "ts_version.h"

typedef struct reply_write {
    uv_write_t req;
    tsd_conn *conn;
    char *data;
    size_t queued; /* bytes of it counted in conn->queued_bytes */
} reply_write;

#define TSD_MMAP_THRESHOLD (1u << 20)

static char read_buffer[TSD_CONN_READ_CHUNK];

uint64_t tsd_server_now_ms(const tsd_server *srv)
{
    return uv_now(srv->loop);
}

static void on_idle(uv_timer_t *timer);

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
    /* counted: a client that does not read is paused (budget.h), never
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

static void maybe_start_idle_timer(tsd_server *srv)
{
    if (srv->options->idle_timeout_ms > 0 && srv->connection_count == 0 && !srv->stopping)
        uv_timer_start(&srv->idle_timer, on_idle, srv->options->idle_timeout_ms, 0);
}

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
    tsd_requests_detach(conn); /* requests at work finish without it */
    srv->budget.held -= conn->held;
    if (conn->paused)
        srv->budget.paused--;
    free(conn->pending);
    ts_frame_reader_free(&conn->reader);
    tsd_debug("connection %llu closed", (unsigned long long)conn->id);
    free(conn);
    maybe_start_idle_timer(srv);
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
 * as the connection should wait (budget.h): a request decoded on the pool,
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
        if (rc < 0) {
            tsd_warn("connection %llu (pid %ld): %s", (unsigned long long)conn->id, (long)conn->pid,
                     err.message);
            tsd_request_connection_error(conn, err.code, err.message);
            break;
        }
        if (rc == 1) {
            size_t n = 0;
            unsigned char *payload = ts_frame_reader_take(&conn->reader, &n);

            conn->frame_started_ms = 0;
            conn->active_ms = tsd_server_now_ms(srv);
            tsd_request_handle(conn, payload, n); /* takes the payload */
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
static void resume_others(tsd_server *srv)
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

/* ---- accepting -------------------------------------------------------- */

static int peer_allowed(tsd_conn *conn, char *why, size_t whysz)
{
    struct ucred cred;
    socklen_t len = sizeof(cred);
    uv_os_fd_t fd;

    if (uv_fileno((uv_handle_t *)&conn->handle, &fd) < 0 ||
        getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
        snprintf(why, whysz, "cannot read the peer's credentials");
        return 0;
    }
    conn->uid = cred.uid;
    conn->pid = cred.pid;
    if (cred.uid == geteuid() || cred.uid == 0)
        return 1;
    snprintf(why, whysz, "uid %lu may not use this daemon (it serves uid %lu)",
             (unsigned long)cred.uid, (unsigned long)geteuid());
    return 0;
}

/* A new connection (from the acceptor, which hands over fd). */
static void on_connection(void *data, int fd)
{
    tsd_server *srv = data;
    tsd_conn *conn;
    tsd_slot slot;
    char why[160];

    conn = calloc(1, sizeof(*conn));
    if (conn == NULL) {
        close(fd);
        return;
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
    uv_timer_stop(&srv->idle_timer);
    if (uv_pipe_open(&conn->handle, fd) < 0) {
        close(fd);
        tsd_conn_abort(conn);
        return;
    }
    if (!peer_allowed(conn, why, sizeof(why))) {
        tsd_warn("connection %llu (pid %ld) refused: %s", (unsigned long long)conn->id,
                 (long)conn->pid, why);
        tsd_request_connection_error(conn, TSD_ERR_PERMISSION, why);
        return;
    }
    slot = srv->stopping ? TSD_SLOT_NONE : tsd_limits_admit(srv, conn);
    if (slot == TSD_SLOT_NONE) {
        if (srv->stopping)
            snprintf(why, sizeof(why), "the daemon is stopping");
        else
            snprintf(why, sizeof(why), "too many open connections (the limit is %d)",
                     TSD_MAX_CONNECTIONS);
        tsd_warn("connection %llu (pid %ld) refused: %s", (unsigned long long)conn->id,
                 (long)conn->pid, why);
        tsd_request_connection_error(conn, srv->stopping ? TS_ERR_SHUTTING_DOWN : TS_ERR_LIMIT,
                                     why);
        return;
    }
    conn->reserved = slot == TSD_SLOT_RESERVED;
    if (conn->reserved)
        tsd_warn("connection %llu (pid %ld) in a reserved slot (status and stop only): all %d "
                 "connection slots are taken",
                 (unsigned long long)conn->id, (long)conn->pid, TSD_MAX_CONNECTIONS);
    tsd_debug("connection %llu from pid %ld uid %lu", (unsigned long long)conn->id, (long)conn->pid,
              (unsigned long)conn->uid);
    start_reading(conn);
}

/* ---- stopping --------------------------------------------------------- */

static void on_stop_timeout(uv_timer_t *timer)
{
    tsd_server *srv = timer->data;

    tsd_warn("stop: %zu connection(s) still busy after %d ms; closing them", srv->connection_count,
             TSD_STOP_GRACE_MS);
    for (tsd_conn *c = srv->conns; c != NULL; c = c->next)
        tsd_conn_abort(c);
}

void tsd_server_stop(tsd_server *srv, const char *why)
{
    if (srv->stopping)
        return;
    srv->stopping = true;
    tsd_info("stopping (%s)", why);
    tsd_notify("STOPPING=1");
    if (srv->listening) {
        tsd_acceptor_close(&srv->acceptor);
        srv->listening = false;
    }
    uv_timer_stop(&srv->idle_timer);
    uv_close((uv_handle_t *)&srv->idle_timer, NULL);
    uv_close((uv_handle_t *)&srv->socket_timer, NULL);
    uv_close((uv_handle_t *)&srv->limits_timer, NULL);
    uv_close((uv_handle_t *)&srv->sigterm, NULL);
    uv_close((uv_handle_t *)&srv->sigint, NULL);
    uv_close((uv_handle_t *)&srv->sighup, NULL);
    /* The stop timer does not keep the loop alive on its own. */
    uv_timer_start(&srv->stop_timer, on_stop_timeout, TSD_STOP_GRACE_MS, 0);
    uv_unref((uv_handle_t *)&srv->stop_timer);
    for (tsd_conn *c = srv->conns; c != NULL; c = c->next)
        tsd_conn_close(c);
}

static void on_signal(uv_signal_t *handle, int signum)
{
    tsd_server *srv = handle->data;

    if (signum == SIGHUP) {
        tsd_info("SIGHUP ignored (nothing to reload)");
        return;
    }
    tsd_server_stop(srv, signum == SIGTERM ? "SIGTERM" : "SIGINT");
}

/* A socket file removed or replaced behind our back (a tmp cleaner, an
 * admin) leaves this daemon unreachable while it holds the lock, so no new
 * daemon could start: stop and let the next client start one. */
static void on_socket_check(uv_timer_t *timer)
{
    tsd_server *srv = timer->data;

    if (!tsd_listener_still_ours(srv->listener)) {
        tsd_warn("socket %s was removed or replaced", srv->listener->path);
        tsd_server_stop(srv, "socket file gone");
    }
}

/* Every TSD_LIMITS_TICK_MS: deadlines, the resident size, and the
 * connections paused while the daemon was over budget. */
static void on_limits_tick(uv_timer_t *timer)
{
    tsd_server *srv = timer->data;
    /* the runs' count walks them: once a second */
    size_t runs = srv->limits_ticks++ % (1000 / TSD_LIMITS_TICK_MS) == 0
                      ? tsd_runs_memory(&srv->runs)
                      : srv->budget.runs_held;

    tsd_limits_enforce(srv, tsd_server_now_ms(srv));
    if (srv->limits_ticks % (1000 / TSD_LIMITS_TICK_MS) == 0)
        tsd_stores_check_locks(&srv->stores);
    if (srv->limits_ticks % (TSD_BUDGET_SAMPLE_MS / TSD_LIMITS_TICK_MS) == 0)
        tsd_budget_sample(&srv->budget, runs);
    if (srv->budget.paused > 0)
        resume_others(srv);
    tsd_jobs_retry_heavy();
}

static bool admit_heavy(size_t running, size_t estimate, void *arg)
{
    const tsd_server *srv = arg;

    return tsd_budget_admits(&srv->budget, running, estimate);
}

static void on_idle(uv_timer_t *timer)
{
    tsd_server *srv = timer->data;

    tsd_server_stop(srv, "idle timeout");
}

/* ---- running ---------------------------------------------------------- */

static void raise_fd_limit(void)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static int start_handles(tsd_server *srv, tsd_listener *listener)
{
    int rc;

    rc = tsd_acceptor_start(&srv->acceptor, srv->loop, listener->fd, on_connection, srv);
    listener->fd = -1; /* the acceptor owns it now */
    if (rc < 0) {
        tsd_error("cannot listen on %s: %s", listener->path, uv_strerror(rc));
        return rc;
    }
    srv->listening = true;
    uv_timer_init(srv->loop, &srv->idle_timer);
    uv_timer_init(srv->loop, &srv->stop_timer);
    uv_timer_init(srv->loop, &srv->socket_timer);
    srv->idle_timer.data = srv;
    srv->stop_timer.data = srv;
    srv->socket_timer.data = srv;
    uv_timer_start(&srv->socket_timer, on_socket_check, TSD_SOCKET_CHECK_MS, TSD_SOCKET_CHECK_MS);
    uv_unref((uv_handle_t *)&srv->socket_timer);
    uv_timer_init(srv->loop, &srv->limits_timer);
    srv->limits_timer.data = srv;
    uv_timer_start(&srv->limits_timer, on_limits_tick, TSD_LIMITS_TICK_MS, TSD_LIMITS_TICK_MS);
    uv_unref((uv_handle_t *)&srv->limits_timer);
    uv_signal_init(srv->loop, &srv->sigterm);
    uv_signal_init(srv->loop, &srv->sigint);
    uv_signal_init(srv->loop, &srv->sighup);
    srv->sigterm.data = srv;
    srv->sigint.data = srv;
    srv->sighup.data = srv;
    uv_signal_start(&srv->sigterm, on_signal, SIGTERM);
    uv_signal_start(&srv->sigint, on_signal, SIGINT);
    uv_signal_start(&srv->sighup, on_signal, SIGHUP);
    maybe_start_idle_timer(srv);
    return 0;
}

/* A pinned store is opened at start, so a crash's stray temp files are
 * cleaned before the first request (other stores: on first use). */
static void open_pinned_store(tsd_server *srv)
{
    tsd_store *st = NULL;
    ts_error err;

    char *busy = NULL;

    if (srv->options->store_root == NULL)
        return;
    if (tsd_stores_get(&srv->stores, srv->options->store_root, &st, &err) < 0 ||
        tsd_store_lock_for_write(&srv->stores, st, &busy, &err) < 0)
        tsd_warn("store %s: %s", srv->options->store_root, err.message);
    free(busy);
}

int tsd_server_run(const tsd_options *opt, tsd_listener *listener, const ts_state *state)
{
    tsd_server srv;
    uv_loop_t loop;
    ts_error err;
    int rc;

    memset(&srv, 0, sizeof(srv));
    raise_fd_limit();
    /* Large buffers (frames, replies, snapshot files) are mapped on their
     * own and given back when freed, so a burst does not stay resident
     * (glibc would otherwise raise this threshold after the first large
     * free and keep later ones in its heap). */
    mallopt(M_MMAP_THRESHOLD, TSD_MMAP_THRESHOLD);
    rc = uv_loop_init(&loop);
    if (rc < 0) {
        tsd_error("cannot start the event loop: %s", uv_strerror(rc));
        return rc;
    }
    srv.loop = &loop;
    srv.options = opt;
    srv.listener = listener;
    srv.stores.pinned = opt->store_root;
    srv.stores.state = state;
    srv.stores.socket = listener->path;
    srv.started_ms = uv_now(&loop);
    tsd_budget_init(&srv.budget, opt->memory_budget);
    tsd_jobs_size_pool();
    tsd_jobs_set_admit(admit_heavy, &srv);
    srv.state = state;
    rc = tsd_runs_init(&srv.runs, state, listener->path, opt->runs_keep, opt->runs_max_age_s,
                       tsd_runs_now_ms(), &err);
    if (rc < 0) {
        tsd_error("%s", err.message);
        tsd_runs_free(&srv.runs);
        uv_loop_close(&loop);
        return rc;
    }
    rc = start_handles(&srv, listener);
    if (rc == 0) {
        tsd_info("listening on %s (pid %ld, version %s%s%s)", listener->path, (long)getpid(),
                 TS_VERSION, opt->store_root ? ", store " : "",
                 opt->store_root ? opt->store_root : "");
        if (opt->foreground) {
            printf("toolscored: listening on %s\n", listener->path);
            fflush(stdout);
        }
        open_pinned_store(&srv);
        tsd_notify("READY=1");
        uv_run(&loop, UV_RUN_DEFAULT);
        /* Every write was flushed or its connection closed; now the files. */
        if (!uv_is_closing((uv_handle_t *)&srv.stop_timer))
            uv_close((uv_handle_t *)&srv.stop_timer, NULL);
    }
    uv_run(&loop, UV_RUN_DEFAULT);
    tsd_runs_free(&srv.runs);
    tsd_listings_free(&srv);
    tsd_stores_close_all(&srv.stores);
    tsd_jobs_set_admit(NULL, NULL);
    if (uv_loop_close(&loop) < 0)
        tsd_warn("event loop closed with handles still open");
    return rc;
}
