/*
 * ts_client_spawn — finding and starting toolscored for auto-start, and
 * noticing when the daemon it started dies before it serves.
 *
 * The daemon is started under a watcher: we fork the watcher (a new
 * session), the watcher forks and execs the daemon. The daemon is thus never
 * our child (no zombie, no SIGCHLD for us) and survives the test process that
 * started it. The daemon's stderr is a pipe the watcher reads; the watcher
 * reports through a pipe to us twice: once the exec succeeded or failed, and
 * when the daemon exits (its wait status and the first line it printed).
 * Once we are connected (or give up) we kill the watcher; the daemon is then
 * adopted by init and its stderr has no reader (it ignores SIGPIPE and logs
 * nothing to stderr unless asked to).
 *
 * Between fork and exec the watcher and the daemon call only
 * async-signal-safe functions, so starting it from a multi-threaded process
 * is safe.
 */
#include "ts_client_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TS_CLIENT_DAEMON_NAME "toolscored"
/* In the environment of a daemon a client started (docs/packaging.md): a
 * client of another build may replace it while it is idle. */
#define TS_CLIENT_AUTO_STARTED "TOOLSCORED_AUTO_STARTED"
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

/* The daemon a package ships beside this library (ts_client_set_package_daemon),
 * or "" for toolscored beside the running executable. */
static char package_daemon[TS_PATHS_MAX];

int ts_client_set_package_daemon(const char *path)
{
    int n;

    if (path == NULL) {
        package_daemon[0] = '\0';
        return 0;
    }
    n = snprintf(package_daemon, sizeof(package_daemon), "%s", path);
    if (n <= 0 || (size_t)n >= sizeof(package_daemon)) {
        package_daemon[0] = '\0';
        return -ENAMETOOLONG;
    }
    return 0;
}

/* The package's own daemon into out: the one set, else "toolscored" in the
 * directory of the running executable. 0 when there is no such path. */
static int package_candidate(char *out, size_t outsz)
{
    char self[PATH_MAX];
    ssize_t n;
    char *slash;
    int len;

    if (package_daemon[0] != '\0')
        return copy_path(package_daemon, out, outsz, NULL) == 0;
    n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return 0;
    self[n] = '\0';
    slash = strrchr(self, '/');
    if (slash == NULL)
        return 0;
    *slash = '\0';
    len = snprintf(out, outsz, "%s/%s", self, TS_CLIENT_DAEMON_NAME);
    return len > 0 && (size_t)len < outsz;
}

/* Why path cannot be started, for the error naming every place looked at. */
static void unusable(const char *path, char *why, size_t whysz)
{
    struct stat st;

    if (stat(path, &st) < 0)
        snprintf(why, whysz, "%s %s", path, errno == ENOENT ? "does not exist" : strerror(errno));
    else if (!S_ISREG(st.st_mode))
        snprintf(why, whysz, "%s is not a file", path);
    else
        snprintf(why, whysz, "%s is not executable (mode %04o)", path,
                 (unsigned)(st.st_mode & 07777));
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
    char package[TS_PATHS_MAX];
    char why[TS_PATHS_MAX + 64];

    if (explicit_path != NULL && explicit_path[0] != '\0') {
        if (!executable(explicit_path))
            return ts_error_set(err, -ENOENT, TS_CLIENT_ERR_UNAVAILABLE,
                                "daemon %s is not an executable file", explicit_path);
        return copy_path(explicit_path, out, outsz, err);
    }
    /* $TOOLSCORED names the daemon: one that does not work is an error, not
     * a reason to look elsewhere */
    if (env != NULL && env[0] != '\0') {
        if (!executable(env))
            return ts_error_set(err, -ENOENT, TS_CLIENT_ERR_UNAVAILABLE,
                                "TOOLSCORED=%s is not an executable file (point it at a "
                                "toolscored executable, or unset it to use the package's own "
                                "or the one on PATH)",
                                env);
        return copy_path(env, out, outsz, err);
    }
    snprintf(why, sizeof(why), "no package daemon");
    if (package_candidate(package, sizeof(package))) {
        if (executable(package))
            return copy_path(package, out, outsz, err);
        unusable(package, why, sizeof(why));
    }
    if (on_path(out, outsz))
        return 0;
    return ts_error_set(err, -ENOENT, TS_CLIENT_ERR_UNAVAILABLE,
                        "toolscored not found: TOOLSCORED is not set, %s, and PATH has no "
                        "toolscored (reinstall the package that brought this client, or set "
                        "TOOLSCORED to a toolscored executable)",
                        why);
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

/* In the daemon process: set up and exec; report errno through exec_fd. */
static void child_exec(const char *daemon, char *const *argv, char *const *envp, int devnull,
                       int stderr_fd, int exec_fd)
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
    if (dup2(devnull, 0) < 0 || dup2(devnull, 1) < 0 || dup2(stderr_fd, 2) < 0)
        goto fail;
    child_cloexec_all();
    if (chdir("/") < 0)
        goto fail;
    execve(daemon, argv, envp);
fail:
    e = errno;
    if (write(exec_fd, &e, sizeof(e)) < 0)
        _exit(126);
    _exit(127);
}

static void send_report(int fd, int kind, int value, const char *text, size_t len)
{
    ts_client_spawn_report r;

    memset(&r, 0, sizeof(r));
    r.kind = kind;
    r.value = value;
    if (len >= sizeof(r.text))
        len = sizeof(r.text) - 1;
    if (text != NULL && len > 0)
        memcpy(r.text, text, len);
    /* one write under PIPE_BUF: arrives whole or not at all */
    if (write(fd, &r, sizeof(r)) < 0)
        _exit(1);
}

/* In the watcher: collect the daemon's stderr until it closes (the daemon
 * exited), then report how it ended. Killed by our client once it no
 * longer cares. */
static void watch_daemon(pid_t daemon_pid, int stderr_fd, int report_fd)
{
    char text[sizeof(((ts_client_spawn_report *)0)->text)];
    size_t len = 0;
    int status = 0;

    for (;;) {
        char chunk[512];
        ssize_t n = read(stderr_fd, chunk, sizeof(chunk));

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n && len < sizeof(text) - 1; i++)
            text[len++] = chunk[i];
    }
    while (waitpid(daemon_pid, &status, 0) < 0 && errno == EINTR)
        ;
    send_report(report_fd, TS_CLIENT_SPAWN_EXITED, status, text, len);
}

/* Close every descriptor from 3 up but keep_a and keep_b. */
static void close_all_but(int keep_a, int keep_b)
{
    int lo = keep_a < keep_b ? keep_a : keep_b;
    int hi = keep_a < keep_b ? keep_b : keep_a;

    if (lo > 3)
        close_range(3, (unsigned)lo - 1, 0);
    if (hi > lo + 1)
        close_range((unsigned)lo + 1, (unsigned)hi - 1, 0);
    close_range((unsigned)hi + 1, ~0U, 0);
}

/* fd moved above the standard descriptors (a caller that closed 0-2 hands
 * us its pipes there, and the dup2s onto 0-2 below would overwrite them). */
static int above_stdio(int fd)
{
    int moved;

    if (fd > 2)
        return fd;
    moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (moved < 0)
        _exit(1); /* the client reports that the start could not be watched */
    return moved;
}

/* The watcher process: start the daemon, report its exec, watch it. It
 * holds none of our caller's descriptors (a pipe of the caller's must not
 * stay open because of it). */
static void run_watcher(const char *daemon, char *const *argv, char *const *envp, int devnull,
                        int report_fd)
{
    int exec_pipe[2];
    int err_pipe[2];
    pid_t pid;
    int e = 0;
    ssize_t n;

    setsid();
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* our caller died: nobody to report to */
    /* a caller ignoring SIGCHLD would make waitpid() below fail (ECHILD) and
     * lose the daemon's exit status */
    signal(SIGCHLD, SIG_DFL);
    devnull = above_stdio(devnull);
    report_fd = above_stdio(report_fd);
    dup2(devnull, 0);
    dup2(devnull, 1);
    dup2(devnull, 2);
    close_all_but(devnull, report_fd);
    if (pipe2(exec_pipe, O_CLOEXEC) < 0 || pipe2(err_pipe, O_CLOEXEC) < 0) {
        send_report(report_fd, TS_CLIENT_SPAWN_EXEC, errno, NULL, 0);
        _exit(1);
    }
    pid = fork();
    if (pid == 0) {
        close(exec_pipe[0]);
        close(err_pipe[0]);
        close(report_fd);
        child_exec(daemon, argv, envp, devnull, err_pipe[1], exec_pipe[1]);
    }
    close(exec_pipe[1]);
    close(err_pipe[1]);
    close(devnull);
    if (pid < 0) {
        send_report(report_fd, TS_CLIENT_SPAWN_EXEC, errno, NULL, 0);
        _exit(1);
    }
    do {
        n = read(exec_pipe[0], &e, sizeof(e));
    } while (n < 0 && errno == EINTR);
    close(exec_pipe[0]);
    send_report(report_fd, TS_CLIENT_SPAWN_EXEC, n == (ssize_t)sizeof(e) ? e : 0, NULL, 0);
    if (n == (ssize_t)sizeof(e)) {
        waitpid(pid, NULL, 0);
        _exit(0);
    }
    watch_daemon(pid, err_pipe[0], report_fd);
    _exit(0);
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

/* The daemon's environment: ours without TOOLSCORED_AUTO_STARTED, then
 * TOOLSCORED_AUTO_STARTED=1 (built before fork: the children may only call
 * async-signal-safe functions). Free the array, not its strings. */
static char **daemon_environment(void)
{
    extern char **environ;
    static char marked[] = TS_CLIENT_AUTO_STARTED "=1";
    size_t n = 0;
    size_t i;
    char **envp;

    while (environ != NULL && environ[n] != NULL)
        n++;
    envp = calloc(n + 2, sizeof(*envp));
    if (envp == NULL)
        return NULL;
    n = 0;
    for (i = 0; environ != NULL && environ[i] != NULL; i++)
        if (strncmp(environ[i], TS_CLIENT_AUTO_STARTED "=", sizeof(TS_CLIENT_AUTO_STARTED)) != 0)
            envp[n++] = environ[i];
    envp[n] = marked;
    return envp;
}

/* Read one report; 1 when one arrived, 0 at end of stream, -errno. */
static int read_report(int fd, ts_client_spawn_report *r)
{
    ssize_t n;

    do {
        n = read(fd, r, sizeof(*r));
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        return -errno;
    if (n != (ssize_t)sizeof(*r))
        return 0;
    r->text[sizeof(r->text) - 1] = '\0';
    return 1;
}

void ts_client_spawn_init(ts_client_spawn *sp)
{
    sp->watcher = 0;
    sp->report_fd = -1;
}

int ts_client_spawn_daemon(const char *daemon, const char *socket_path, const char *const *extra,
                           ts_client_spawn *sp, ts_error *err)
{
    char *argv[TS_CLIENT_MAX_ARGS];
    ts_client_spawn_report r;
    int report[2];
    int devnull;
    pid_t pid;
    char **envp;
    int rc = build_argv(daemon, socket_path, extra, argv, err);

    ts_client_spawn_init(sp);
    if (rc < 0)
        return rc;
    envp = daemon_environment();
    if (envp == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devnull < 0) {
        free(envp);
        return ts_error_set(err, -errno, TS_ERR_IO, "cannot open /dev/null: %s", strerror(errno));
    }
    if (pipe2(report, O_CLOEXEC) < 0) {
        rc = ts_error_set(err, -errno, TS_ERR_IO, "pipe: %s", strerror(errno));
        close(devnull);
        free(envp);
        return rc;
    }
    pid = fork();
    if (pid == 0) {
        close(report[0]);
        run_watcher(daemon, argv, envp, devnull, report[1]);
    }
    free(envp);
    close(report[1]);
    close(devnull);
    if (pid < 0) {
        rc = ts_error_set(err, -errno, TS_ERR_IO, "fork: %s", strerror(errno));
        close(report[0]);
        return rc;
    }
    sp->watcher = pid;
    sp->report_fd = report[0];
    rc = read_report(sp->report_fd, &r);
    if (rc == 1 && r.kind == TS_CLIENT_SPAWN_EXEC && r.value == 0)
        return 0;
    ts_client_spawn_release(sp);
    if (rc == 1 && r.value != 0)
        rc = -r.value;
    else
        rc = -EAGAIN; /* the watcher died before it could tell */
    return ts_error_set(err, rc, TS_CLIENT_ERR_UNAVAILABLE, "cannot start %s: %s", daemon,
                        strerror(-rc));
}

/* The first non-empty line of text, cut to fit, without control bytes. */
static void first_line(const char *text, char *out, size_t outsz)
{
    size_t n = 0;

    while (*text == '\n' || *text == '\r' || *text == ' ')
        text++;
    for (; *text != '\0' && *text != '\n' && n + 1 < outsz; text++)
        out[n++] = (unsigned char)*text < 0x20 ? ' ' : *text;
    while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == '\r'))
        n--;
    out[n] = '\0';
}

int ts_client_spawn_poll(ts_client_spawn *sp, int timeout_ms, int *status, ts_error *why)
{
    struct pollfd p = {sp->report_fd, POLLIN, 0};
    ts_client_spawn_report r;
    char line[512];
    int rc;

    if (sp->report_fd < 0)
        return 0;
    do {
        rc = poll(&p, 1, timeout_ms);
    } while (rc < 0 && errno == EINTR);
    if (rc <= 0)
        return 0;
    rc = read_report(sp->report_fd, &r);
    ts_client_spawn_release(sp);
    if (rc != 1 || r.kind != TS_CLIENT_SPAWN_EXITED)
        return 0; /* the watcher is gone without a word: keep trying to connect */
    *status = r.value;
    first_line(r.text, line, sizeof(line));
    if (WIFSIGNALED(r.value))
        ts_error_set(why, -ECHILD, TS_CLIENT_ERR_UNAVAILABLE, "it was killed by signal %d%s%s",
                     WTERMSIG(r.value), line[0] ? ": " : "", line);
    else
        ts_error_set(why, -ECHILD, TS_CLIENT_ERR_UNAVAILABLE, "it exited with status %d%s%s",
                     WEXITSTATUS(r.value), line[0] ? ": " : "", line);
    return 1;
}

void ts_client_spawn_release(ts_client_spawn *sp)
{
    if (sp->watcher > 0) {
        kill(sp->watcher, SIGKILL);
        while (waitpid(sp->watcher, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    if (sp->report_fd >= 0)
        close(sp->report_fd);
    ts_client_spawn_init(sp);
}
