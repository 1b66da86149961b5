/*
 * acceptor — new connections, and a clear "busy" when out of descriptors
 * (see server_internal.h).
 */
#include "server_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/base/ts_base.h"
#include "proto/ts_proto.h"

static void watch(tsd_acceptor *a);

static int open_reserve(void)
{
    return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static long descriptor_limit(void)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
        return -1;
    return (long)rl.rlim_cur;
}

/* Send the one error reply a refused connection gets, then close it. The
 * reply is small and the socket's buffer empty, so one non-blocking send
 * takes it whole. Unread bytes (the client's hello) are drained first so the
 * close does not reset the connection before the client reads the reply. */
static void refuse(int fd, bool system_wide)
{
    char message[256];
    char scratch[512];
    long limit = descriptor_limit();
    ts_error err;
    ts_buf frame;

    if (system_wide)
        snprintf(message, sizeof(message),
                 "toolscored cannot accept more connections: the system is out of file "
                 "descriptors (ENFILE); try again later");
    else if (limit > 0)
        snprintf(message, sizeof(message),
                 "toolscored cannot accept more connections: it has used all %ld file "
                 "descriptors it may open (ulimit -n); try again when fewer clients are "
                 "connected, or start it with a higher limit",
                 limit);
    else
        snprintf(message, sizeof(message),
                 "toolscored cannot accept more connections: it is out of file descriptors; "
                 "try again when fewer clients are connected");
    ts_buf_init(&frame, TS_BUF_UNLIMITED);
    if (ts_message_encode_error(&frame, NULL, TS_ERR_BUSY, message, &err) == 0 &&
        send(fd, frame.data, frame.len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
        tsd_debug("refused connection: send: %s", strerror(errno));
    ts_buf_free(&frame);
    shutdown(fd, SHUT_WR);
    for (int i = 0; i < 16 && recv(fd, scratch, sizeof(scratch), MSG_DONTWAIT) > 0; i++)
        ;
    close(fd);
}

/* Out of descriptors with a connection pending: answer it through the
 * reserve's slot. Returns 0 when one was answered (or none was pending),
 * -1 when nothing could be done (no reserve, or its slot was taken). */
static int refuse_pending(tsd_acceptor *a, int accept_errno)
{
    int fd;
    int saved;

    if (a->reserve_fd < 0) {
        a->reserve_fd = open_reserve();
        return -1; /* try again after a pause, with the reserve back if it opened */
    }
    close(a->reserve_fd);
    a->reserve_fd = -1;
    fd = accept4(a->fd, NULL, NULL, SOCK_CLOEXEC);
    saved = errno;
    if (fd >= 0) {
        if (a->refused == 0)
            tsd_warn("out of file descriptors: new connections are answered 'busy' until "
                     "some close");
        a->refused++;
        a->refused_total++;
        refuse(fd, accept_errno == ENFILE);
    }
    a->reserve_fd = open_reserve();
    if (fd < 0 && saved != EAGAIN && saved != EWOULDBLOCK)
        return -1;
    return a->reserve_fd >= 0 ? 0 : -1;
}

static void on_pause_over(uv_timer_t *timer)
{
    tsd_acceptor *a = timer->data;

    if (a->reserve_fd < 0)
        a->reserve_fd = open_reserve();
    watch(a);
}

/* Stop watching the socket for a moment: it stays readable while a
 * connection waits that cannot be taken, and watching it would spin. */
static void pause_accepting(tsd_acceptor *a)
{
    if (a->polling) {
        uv_poll_stop(&a->poll);
        a->polling = false;
    }
    uv_timer_start(&a->pause, on_pause_over, TSD_ACCEPT_PAUSE_MS, 0);
}

static void accepted(tsd_acceptor *a, int fd)
{
    if (a->refused > 0) {
        tsd_info("accepting connections again (%llu answered 'busy' while out of file "
                 "descriptors)",
                 (unsigned long long)a->refused);
        a->refused = 0;
    }
    a->on_accept(a->data, fd);
}

static void on_readable(uv_poll_t *poll, int status, int events)
{
    tsd_acceptor *a = poll->data;

    (void)events;
    if (status < 0) {
        tsd_warn("listening socket: %s", uv_strerror(status));
        pause_accepting(a);
        return;
    }
    /* A reserve given up and not retaken takes the first free slot, before
     * a new connection does: otherwise a daemon that stays at its limit
     * would never get it back. */
    if (a->reserve_fd < 0)
        a->reserve_fd = open_reserve();
    for (int i = 0; i < TSD_ACCEPT_BATCH && a->open && a->fd >= 0; i++) {
        int fd = accept4(a->fd, NULL, NULL, SOCK_CLOEXEC);

        if (fd >= 0) {
            accepted(a, fd);
            continue;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return;
        if (errno == EINTR || errno == ECONNABORTED)
            continue;
        if (errno == EMFILE || errno == ENFILE) {
            if (refuse_pending(a, errno) == 0)
                continue;
            pause_accepting(a);
            return;
        }
        tsd_warn("accept: %s", strerror(errno));
        pause_accepting(a);
        return;
    }
}

static void watch(tsd_acceptor *a)
{
    int rc;

    if (!a->open || a->polling)
        return;
    rc = uv_poll_start(&a->poll, UV_READABLE, on_readable);
    if (rc < 0) {
        tsd_warn("cannot watch the listening socket: %s", uv_strerror(rc));
        uv_timer_start(&a->pause, on_pause_over, TSD_ACCEPT_PAUSE_MS, 0);
        return;
    }
    a->polling = true;
}

int tsd_acceptor_start(tsd_acceptor *a, uv_loop_t *loop, int listen_fd, tsd_accept_fn fn,
                       void *data)
{
    int flags = fcntl(listen_fd, F_GETFL);
    int rc;

    memset(a, 0, sizeof(*a));
    a->fd = listen_fd;
    a->on_accept = fn;
    a->data = data;
    if (flags < 0 || fcntl(listen_fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        rc = -errno;
        close(listen_fd);
        a->fd = -1;
        return rc;
    }
    rc = uv_poll_init(loop, &a->poll, listen_fd);
    if (rc < 0) {
        close(listen_fd);
        a->fd = -1;
        return rc;
    }
    uv_timer_init(loop, &a->pause);
    a->poll.data = a;
    a->pause.data = a;
    a->open = true;
    a->reserve_fd = open_reserve();
    watch(a);
    if (!a->polling) {
        tsd_acceptor_close(a);
        return UV_EBADF;
    }
    return 0;
}

static void on_poll_closed(uv_handle_t *handle)
{
    tsd_acceptor *a = handle->data;

    if (a->fd >= 0)
        close(a->fd);
    a->fd = -1;
}

void tsd_acceptor_close(tsd_acceptor *a)
{
    if (!a->open)
        return;
    a->open = false;
    a->polling = false;
    uv_close((uv_handle_t *)&a->poll, on_poll_closed);
    uv_close((uv_handle_t *)&a->pause, NULL);
    if (a->reserve_fd >= 0)
        close(a->reserve_fd);
    a->reserve_fd = -1;
}
