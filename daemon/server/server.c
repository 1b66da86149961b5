/*
 * server — the libuv loop, accepting connections, the timers, the modules'
 * lifecycle, graceful stop (see server_internal.h; a connection is conn.c's,
 * a request request.c's, the method table dispatch.c's).
 */
#include "server_internal.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/base/ts_base.h"
#include "ts_version.h"

#define TSD_MMAP_THRESHOLD (1u << 20)
#define TSD_ARENAS 2 /* malloc heaps (M_ARENA_MAX) */

static void on_idle(uv_timer_t *timer);
static size_t modules_memory(tsd_server *srv);
static void modules_tick(tsd_server *srv);

static void maybe_start_idle_timer(tsd_server *srv)
{
    if (srv->options->idle_timeout_ms > 0 && srv->connection_count == 0 && !srv->stopping)
        uv_timer_start(&srv->idle_timer, on_idle, srv->options->idle_timeout_ms, 0);
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

/* A new connection (from the acceptor, which hands over fd). */ /* A new connection (from the
                                                                    acceptor, which hands over fd).
                                                                  */
static void on_connection(void *data, int fd)
{
    tsd_server *srv = data;
    tsd_conn *conn;
    tsd_slot slot;
    char why[160];

    uv_timer_stop(&srv->idle_timer);
    conn = tsd_conn_open(srv, fd);
    if (conn == NULL) {
        maybe_start_idle_timer(srv);
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
    tsd_conn_start(conn);
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

static void server_stop(tsd_server *srv, const char *why)
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
    tsd_requests_admit_waiting(srv); /* refused: the daemon is stopping */
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
    server_stop(srv, signum == SIGTERM ? "SIGTERM" : "SIGINT");
}

/* A socket file removed or replaced behind our back (a tmp cleaner, an
 * admin) leaves this daemon unreachable while it holds the lock, so no new
 * daemon could start: stop and let the next client start one. */
static void on_socket_check(uv_timer_t *timer)
{
    tsd_server *srv = timer->data;

    if (!tsd_listener_still_ours(srv->listener)) {
        tsd_warn("socket %s was removed or replaced", srv->listener->path);
        server_stop(srv, "socket file gone");
    }
}

/* Every TSD_LIMITS_TICK_MS: deadlines, the resident size, and the
 * connections paused while the daemon was over budget. */
static void on_limits_tick(uv_timer_t *timer)
{
    tsd_server *srv = timer->data;
    /* what the modules hold is counted by walking them: once a second */
    bool second = srv->limits_ticks++ % (1000 / TSD_LIMITS_TICK_MS) == 0;
    size_t held = second ? modules_memory(srv) : srv->budget.modules_held;

    tsd_limits_enforce(srv, tsd_server_now_ms(srv));
    if (srv->limits_ticks % (1000 / TSD_LIMITS_TICK_MS) == 0)
        modules_tick(srv);
    if (srv->limits_ticks % (TSD_BUDGET_SAMPLE_MS / TSD_LIMITS_TICK_MS) == 0)
        tsd_budget_sample(&srv->budget, held);
    tsd_budget_publish(&srv->budget);
    tsd_budget_trim(srv, tsd_server_now_ms(srv));
    tsd_requests_admit_waiting(srv);
    if (srv->budget.paused > 0)
        tsd_conns_resume(srv);
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

    server_stop(srv, "idle timeout");
}

/* ---- modules ---------------------------------------------------------- */

static size_t modules_memory(tsd_server *srv)
{
    size_t held = 0;

    for (size_t i = 0; i < srv->module_count; i++)
        if (srv->modules[i]->memory != NULL)
            held += srv->modules[i]->memory(srv->module_states[i]);
    return held;
}

static void modules_tick(tsd_server *srv)
{
    for (size_t i = 0; i < srv->module_count; i++)
        if (srv->modules[i]->tick != NULL)
            srv->modules[i]->tick(srv->module_states[i]);
}

static void modules_started(tsd_server *srv)
{
    for (size_t i = 0; i < srv->module_count; i++)
        if (srv->modules[i]->started != NULL)
            srv->modules[i]->started(srv->module_states[i]);
}

/* Close the modules opened, the last first. */
static void modules_close(tsd_server *srv)
{
    while (srv->module_count > 0) {
        size_t i = --srv->module_count;

        if (srv->modules[i]->close != NULL)
            srv->modules[i]->close(srv->module_states[i]);
        srv->module_states[i] = NULL;
    }
}

/* Open the server's own module, then modules[0..count) in order. */
static int modules_open(tsd_server *srv, const tsd_module *const *modules, size_t count,
                        ts_error *err)
{
    if (count + 1 > TSD_MODULES_MAX)
        return ts_error_set(err, -E2BIG, TS_ERR_INTERNAL, "too many modules (at most %d)",
                            TSD_MODULES_MAX - 1);
    for (size_t i = 0; i <= count; i++) {
        const tsd_module *m = i == 0 ? &tsd_session_module : modules[i - 1];
        void *state = NULL;
        int rc = m->open != NULL ? m->open(srv, &state, err) : 0;

        if (rc < 0) {
            modules_close(srv);
            return rc;
        }
        srv->modules[srv->module_count] = m;
        srv->module_states[srv->module_count++] = state;
    }
    return tsd_dispatch_init(srv, err);
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
int tsd_server_run(const tsd_options *opt, tsd_listener *listener, const ts_state *state,
                   const tsd_module *const *modules, size_t count)
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
    /* Two heaps for all threads, not one per pool thread: values built on
     * sixteen threads and freed leave sixteen heaps of scattered pages that
     * malloc_trim cannot give back (a check of 700 KB of small values left
     * 320 MiB resident with nothing held; with two heaps, 7 MiB:
     * docs/performance.md, "Memory"). */
    mallopt(M_ARENA_MAX, TSD_ARENAS);
    rc = uv_loop_init(&loop);
    if (rc < 0) {
        tsd_error("cannot start the event loop: %s", uv_strerror(rc));
        return rc;
    }
    srv.loop = &loop;
    srv.options = opt;
    srv.listener = listener;
    srv.state = state;
    srv.events.frame = tsd_request_handle;
    srv.events.broken = tsd_request_connection_error;
    srv.events.closed = tsd_requests_detach;
    srv.events.idle = maybe_start_idle_timer;
    srv.events.stop = server_stop;
    srv.started_ms = uv_now(&loop);
    tsd_budget_init(&srv.budget, opt->memory_budget);
    tsd_jobs_size_pool();
    tsd_jobs_set_admit(admit_heavy, &srv);
    rc = modules_open(&srv, modules, count, &err);
    if (rc < 0) {
        tsd_error("%s", err.message);
        tsd_jobs_set_admit(NULL, NULL);
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
        modules_started(&srv);
        tsd_notify("READY=1");
        uv_run(&loop, UV_RUN_DEFAULT);
        /* Every write was flushed or its connection closed; now the files. */
        if (!uv_is_closing((uv_handle_t *)&srv.stop_timer))
            uv_close((uv_handle_t *)&srv.stop_timer, NULL);
    }
    uv_run(&loop, UV_RUN_DEFAULT);
    modules_close(&srv);
    tsd_dispatch_done(&srv);
    tsd_jobs_set_admit(NULL, NULL);
    if (uv_loop_close(&loop) < 0)
        tsd_warn("event loop closed with handles still open");
    tsd_budget_done(&srv.budget);
    return rc;
}
