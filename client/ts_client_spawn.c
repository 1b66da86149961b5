/*
 * ts_client_spawn — finding and starting toolscored for auto-start.
 *
 * The daemon is started as a grandchild (fork, setsid, fork, exec) so it is
 * never our child: no zombie, no SIGCHLD, and it survives the test process
 * that started it. Between fork and exec the child calls only
 * async-signal-safe functions, so starting it from a multi-threaded process
 * is safe. A close-on-exec pipe reports an exec failure back to the caller.
 */
#include "ts_client_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TS_CLIENT_DAEMON_NAME "toolscored"
#define TS_CLIENT_MAX_ARGS 64

static int executable(const char *path)
{
    return access(path, X_OK) == 0;
}

static int copy_path(const char *path, char *out, size_t outsz, ts_error *err)
{
    int n = snprintf(out, outsz, "%s", path);

    if (n < 0 || (size_t)n >= outsz)
        return ts_error_set(err, -ENAMETOOLONG, TS_ERR_INVALID_ARGUMENT,
                            "daemon path is longer than %zu bytes", outsz - 1);
    return 0;
}

/* "toolscored" in the directory of the running executable. */
static int beside_executable(char *out, size_t outsz)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    char *slash;
    int len;

    if (n <= 0)
        return 0;
    self[n] = '\0';
    slash = strrchr(self, '/');
    if (slash == NULL)
        return 0;
    *slash = '\0';
    len = snprintf(out, outsz, "%s/%s", self, TS_CLIENT_DAEMON_NAME);
    return len > 0 && (size_t)len < outsz && executable(out);
}

static int on_path(char *out, size_t outsz)
{
    const char *path = getenv("PATH");
    const char *p = path;

    while (p != NULL && *p != '\0') {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int n;

        if (len > 0) {
            n = snprintf(out, outsz, "%.*s/%s", (int)len, p, TS_CLIENT_DAEMON_NAME);
            if (n > 0 && (size_t)n < outsz && executable(out))
                return 1;
        }
        p = end ? end + 1 : NULL;
    }
    return 0;
}

int ts_client_find_daemon(const char *explicit_path, char *out, size_t outsz, ts_error *err)
{
    const char *env = getenv("TOOLSCORED");

    if (explicit_path != NULL && explicit_path[0] != '\0') {
        if (!executable(explicit_path))
            return ts_error_set(err, -ENOENT, TS_CLIENT_ERR_UNAVAILABLE,
                                "daemon %s is not an executable file", explicit_path);
        return copy_path(explicit_path, out, outsz, err);
    }
    if (env != NULL && env[0] != '\0') {
        if (!executable(env))
            return ts_error_set(err, -ENOENT, TS_CLIENT_ERR_UNAVAILABLE,
                                "TOOLSCORED=%s is not an executable file", env);
        return copy_path(env, out, outsz, err);
    }
    if (beside_executable(out, outsz) || on_path(out, outsz))
        return 0;
    return ts_error_set(err, -ENOENT, TS_CLIENT_ERR_UNAVAILABLE,
                        "toolscored not found (looked at $TOOLSCORED, beside this program and "
                        "on PATH)");
}

/* Mark every descriptor from 3 up close-on-exec (the report pipe is
 * already), so none of the caller's files or pipes reach the daemon. */
static void child_cloexec_all(void)
{
    long max;
    long fd;

    if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
        return;
    max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 65536)
        max = 65536;
    for (fd = 3; fd < max; fd++)
        fcntl((int)fd, F_SETFD, FD_CLOEXEC);
}

/* In the grandchild: set up and exec; report errno through report_fd. */
static void child_exec(const char *daemon, char *const *argv, int devnull, int report_fd)
{
    sigset_t none;
    int e;

    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    if (dup2(devnull, 0) < 0 || dup2(devnull, 1) < 0 || dup2(devnull, 2) < 0)
        goto fail;
    child_cloexec_all();
    if (chdir("/") < 0)
        goto fail;
    execv(daemon, argv);
fail:
    e = errno;
    if (write(report_fd, &e, sizeof(e)) < 0)
        _exit(126);
    _exit(127);
}

static int build_argv(const char *daemon, const char *socket_path, const char *const *extra,
                      char **argv, ts_error *err)
{
    size_t n = 0;

    argv[n++] = (char *)daemon;
    argv[n++] = (char *)"--socket";
    argv[n++] = (char *)socket_path;
    for (; extra != NULL && *extra != NULL; extra++) {
        if (n + 1 >= TS_CLIENT_MAX_ARGS)
            return ts_error_set(err, -E2BIG, TS_ERR_INVALID_ARGUMENT,
                                "more than %d daemon arguments", TS_CLIENT_MAX_ARGS - 4);
        argv[n++] = (char *)*extra;
    }
    argv[n] = NULL;
    return 0;
}

/* Read the exec report: 0 when the pipe closed empty (exec succeeded). */
static int read_report(int fd)
{
    int e = 0;
    ssize_t n;

    do {
        n = read(fd, &e, sizeof(e));
    } while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof(e) ? -e : 0;
}

int ts_client_spawn_daemon(const char *daemon, const char *socket_path, const char *const *extra,
                           ts_error *err)
{
    char *argv[TS_CLIENT_MAX_ARGS];
    int report[2];
    int devnull;
    int status;
    pid_t pid;
    int rc = build_argv(daemon, socket_path, extra, argv, err);

    if (rc < 0)
        return rc;
    devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devnull < 0)
        return ts_error_set(err, -errno, TS_ERR_IO, "cannot open /dev/null: %s", strerror(errno));
    if (pipe2(report, O_CLOEXEC) < 0) {
        rc = ts_error_set(err, -errno, TS_ERR_IO, "pipe: %s", strerror(errno));
        close(devnull);
        return rc;
    }
    pid = fork();
    if (pid == 0) {
        pid_t grandchild;
        close(report[0]);
        setsid();
        grandchild = fork();
        if (grandchild == 0)
            child_exec(daemon, argv, devnull, report[1]);
        _exit(grandchild < 0 ? 1 : 0);
    }
    close(report[1]);
    close(devnull);
    if (pid < 0) {
        rc = ts_error_set(err, -errno, TS_ERR_IO, "fork: %s", strerror(errno));
        close(report[0]);
        return rc;
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    rc = read_report(report[0]);
    close(report[0]);
    if (rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) != 0)
        rc = -EAGAIN; /* the second fork failed */
    if (rc < 0)
        return ts_error_set(err, rc, TS_CLIENT_ERR_UNAVAILABLE, "cannot start %s: %s", daemon,
                            strerror(-rc));
    return 0;
}
