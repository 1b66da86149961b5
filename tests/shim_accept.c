/*
 * shim_accept — an LD_PRELOAD fault injector for tests: makes accept4()
 * fail with ENFILE (the whole system out of file descriptors) while a
 * control file exists, the way the kernel does: a connection is waiting,
 * and it cannot be taken until a descriptor somewhere is closed.
 *
 * Model: while the fault is on, an accept4() that finds a connection
 * waiting fails with ENFILE; the process's next accept4() succeeds, as if
 * the descriptor it gave up meanwhile (a daemon closes the one it keeps
 * in reserve) had made room. A call with nothing waiting behaves as usual.
 *
 * Environment (read at every call):
 *   TS_SHIM_ACCEPT_CONTROL  path of the control file. Unset: no effect.
 *   TS_SHIM_ACCEPT_LOG      each injected failure appends "accept ENFILE".
 *
 * Built by the Makefile as $(BUILD)/tests/shim_accept.so, without sanitizer
 * flags; used by tests/test_daemon_faults.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef int (*accept4_fn)(int, struct sockaddr *, socklen_t *, int);

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);

static atomic_bool room; /* the last call failed: this one gets through */

static bool fault_on(void)
{
    const char *control = getenv("TS_SHIM_ACCEPT_CONTROL");

    return control != NULL && control[0] != '\0' && access(control, F_OK) == 0;
}

static bool connection_waiting(int fd)
{
    struct pollfd p = {fd, POLLIN, 0};

    return poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

static void log_failure(void)
{
    const char *log = getenv("TS_SHIM_ACCEPT_LOG");
    static const char line[] = "accept ENFILE\n";

    if (log == NULL || log[0] == '\0')
        return;
    int lfd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);

    if (lfd >= 0) {
        ssize_t n = write(lfd, line, sizeof(line) - 1);

        (void)n;
        close(lfd);
    }
}

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
    accept4_fn next = (accept4_fn)(uintptr_t)dlsym(RTLD_NEXT, "accept4");

    if (next == NULL) {
        errno = ENOSYS;
        return -1;
    }
    if (fault_on() && !atomic_exchange(&room, false) && connection_waiting(fd)) {
        atomic_store(&room, true);
        log_failure();
        errno = ENFILE;
        return -1;
    }
    return next(fd, addr, len, flags);
}
