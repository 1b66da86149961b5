/*
 * echo_server — the reference for the replay benchmark: the least a Unix
 * socket server can do per request. One thread, one epoll set; a readable
 * connection is read once and what was read is written back. No framing, no
 * parsing, no allocation per request.
 *
 *   echo_server SOCKET      prints "ready" once listening; exits on SIGTERM
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "bench_common.h"

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
    (void)sig;
    stopping = 1;
}

static int listen_on(const char *path)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof(addr.sun_path))
        bench_die("socket path too long: %s", path);
    strcpy(addr.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        bench_die("socket: %s", strerror(errno));
    unlink(path);
    if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(fd, 1024) < 0)
        bench_die("bind/listen %s: %s", path, strerror(errno));
    return fd;
}

/* Write all of buf back (the peer reads its whole reply before sending more,
 * so a blocking write never waits long). */
static int echo_back(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        bench_die("usage: echo_server SOCKET");
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    int lfd = listen_on(argv[1]);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = lfd};
    if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev) < 0)
        bench_die("epoll: %s", strerror(errno));
    printf("ready\n");
    fflush(stdout);

    static char buf[1 << 16];
    struct epoll_event events[64];
    while (!stopping) {
        int n = epoll_wait(ep, events, 64, 200);
        for (int i = 0; i < n; i++) {
            int fd = events[i].data.fd;
            if (fd == lfd) {
                int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
                struct epoll_event cev = {.events = EPOLLIN, .data.fd = c};
                if (c >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, c, &cev) < 0)
                    close(c);
                continue;
            }
            ssize_t got = read(fd, buf, sizeof(buf));
            if (got <= 0 || echo_back(fd, buf, (size_t)got) < 0)
                close(fd); /* closing removes it from the epoll set */
        }
    }
    unlink(argv[1]);
    return 0;
}
