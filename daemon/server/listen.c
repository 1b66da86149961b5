/*
 * listen — socket directory, lock, bind, activation, notification
 * (see server.h).
 */
#include "daemon/server/server.h"

#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "proto/ts_proto.h"

#define LISTEN_BACKLOG 128
#define SD_LISTEN_FDS_START 3

static char *notify_path;

static void listener_init(tsd_listener *l)
{
    memset(l, 0, sizeof(*l));
    l->fd = -1;
    l->dir_fd = -1;
    l->lock_fd = -1;
}

int tsd_listener_from_env(tsd_listener *l, bool *found, ts_error *err)
{
    const char *pid_s = getenv("LISTEN_PID");
    const char *fds_s = getenv("LISTEN_FDS");
    struct sockaddr_un sa;
    socklen_t len = sizeof(sa);
    int type = 0;
    socklen_t tlen = sizeof(type);

    listener_init(l);
    *found = false;
    if (pid_s == NULL || fds_s == NULL || strtol(pid_s, NULL, 10) != (long)getpid())
        return 0;
    unsetenv("LISTEN_PID");
    unsetenv("LISTEN_FDS");
    unsetenv("LISTEN_FDNAMES");
    if (strtol(fds_s, NULL, 10) < 1)
        return 0;
    memset(&sa, 0, sizeof(sa));
    if (getsockopt(SD_LISTEN_FDS_START, SOL_SOCKET, SO_TYPE, &type, &tlen) < 0 ||
        type != SOCK_STREAM || getsockname(SD_LISTEN_FDS_START, (struct sockaddr *)&sa, &len) < 0 ||
        sa.sun_family != AF_UNIX)
        return ts_error_set(err, -ENOTSOCK, TS_ERR_INVALID_ARGUMENT,
                            "socket activation: descriptor 3 is not a Unix stream socket");
    fcntl(SD_LISTEN_FDS_START, F_SETFD, FD_CLOEXEC);
    l->fd = SD_LISTEN_FDS_START;
    l->activated = true;
    if (len > offsetof(struct sockaddr_un, sun_path) && sa.sun_path[0] != '\0') {
        sa.sun_path[sizeof(sa.sun_path) - 1] = '\0';
        l->path = strdup(sa.sun_path);
    } else {
        l->path = strdup("(abstract socket)");
    }
    if (l->path == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    *found = true;
    return 0;
}

/* mkdir -p dir with mode 0700 for the parts it creates. */
static int make_dirs(char *dir)
{
    for (char *p = dir + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
            *p = '/';
            return -errno;
        }
        *p = '/';
    }
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return -errno;
    return 0;
}

/* Open the socket directory, creating it 0700, and check who may enter it.
 * A symbolic link is never followed: another user's link to a directory
 * of ours would pass the owner check while the link is theirs to change. */
static int open_socket_dir(char *dir, int *out, ts_error *err)
{
    struct stat st;
    int fd;
    int rc = make_dirs(dir);

    if (rc < 0)
        return ts_error_set(err, rc, TS_ERR_IO, "cannot create socket directory %s: %s", dir,
                            strerror(-rc));
    rc = ts_paths_open_socket_dir(dir, O_RDONLY, &fd, &st, err);
    if (rc < 0)
        return rc;
    rc = ts_paths_check_socket_dir(dir, &st, err);
    if (rc < 0) {
        close(fd);
        return rc;
    }
    *out = fd;
    return 0;
}

/* True when dir/name is the file open as fd (not a replacement). */
static bool same_file_at(int dir, const char *name, int fd)
{
    struct stat at, held;

    return fstatat(dir, name, &at, AT_SYMLINK_NOFOLLOW) == 0 && fstat(fd, &held) == 0 &&
           at.st_dev == held.st_dev && at.st_ino == held.st_ino;
}

/* Read the pid a running daemon wrote into its lock file (0 if none yet). */
static long lock_holder_pid(int fd)
{
    char buf[32];

    for (int attempt = 0; attempt < 20; attempt++) {
        ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

        if (n > 0) {
            buf[n] = '\0';
            return strtol(buf, NULL, 10);
        }
        usleep(10000); /* the holder is between flock and writing its pid */
    }
    return 0;
}

/*
 * Take the exclusive lock on dir/lock_base. The file may be unlinked by a
 * daemon that is stopping between our open and our flock; a lock on an
 * unlinked file protects nothing, so check it is still the file at the path.
 */
static int take_lock(tsd_listener *l, ts_error *err)
{
    for (int attempt = 0; attempt < 100; attempt++) {
        int fd = openat(l->dir_fd, l->lock_base, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        int rc;

        if (fd < 0)
            return ts_error_set(err, -errno, TS_ERR_IO, "cannot open lock file %s.lock: %s",
                                l->path, strerror(errno));
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
            int saved = errno;
            long pid = saved == EWOULDBLOCK ? lock_holder_pid(fd) : 0;

            rc = saved == EWOULDBLOCK ? -EADDRINUSE : -saved;
            close(fd);
            if (rc != -EADDRINUSE)
                return ts_error_set(err, rc, TS_ERR_IO, "cannot lock %s.lock: %s", l->path,
                                    strerror(-rc));
            if (pid > 0)
                return ts_error_set(err, rc, TS_ERR_BUSY,
                                    "another toolscored (pid %ld) is already serving %s "
                                    "(it holds %s.lock)",
                                    pid, l->path, l->path);
            return ts_error_set(err, rc, TS_ERR_BUSY,
                                "another toolscored is already serving %s (it holds %s.lock)",
                                l->path, l->path);
        }
        if (same_file_at(l->dir_fd, l->lock_base, fd)) {
            char pid[32];
            int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());

            if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
                rc = -errno;
                close(fd);
                return ts_error_set(err, rc, TS_ERR_IO, "cannot write lock file %s.lock: %s",
                                    l->path, strerror(-rc));
            }
            l->lock_fd = fd;
            return 0;
        }
        close(fd);
    }
    return ts_error_set(err, -EAGAIN, TS_ERR_IO, "cannot take the lock %s.lock", l->path);
}

/* With the lock held: a socket file left at the path is stale. */
static int remove_stale(tsd_listener *l, ts_error *err)
{
    struct stat st;

    if (fstatat(l->dir_fd, l->base, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0
                               : ts_error_set(err, -errno, TS_ERR_IO, "cannot stat %s: %s", l->path,
                                              strerror(errno));
    if (!S_ISSOCK(st.st_mode))
        return ts_error_set(err, -EEXIST, TS_ERR_EXISTS,
                            "%s exists and is not a socket; refusing to replace it", l->path);
    if (unlinkat(l->dir_fd, l->base, 0) < 0 && errno != ENOENT)
        return ts_error_set(err, -errno, TS_ERR_IO, "cannot remove stale socket %s: %s", l->path,
                            strerror(errno));
    return 0;
}

/*
 * bind() to dir/base. When the whole path does not fit a socket address, bind
 * the bare file name from inside the directory (the daemon is single-threaded
 * while it starts, so a temporary fchdir is safe).
 */
static int bind_socket(tsd_listener *l, int fd, ts_error *err)
{
    struct sockaddr_un sa;
    bool via_dir = strlen(l->path) > TSD_SUN_PATH_MAX;
    int cwd = -1;
    int rc = 0;
    mode_t old;

    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, via_dir ? l->base : l->path, strlen(via_dir ? l->base : l->path));
    if (via_dir) {
        cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (cwd < 0 || fchdir(l->dir_fd) < 0) {
            rc = -errno;
            if (cwd >= 0)
                close(cwd);
            return ts_error_set(err, rc, TS_ERR_IO, "cannot enter the socket directory: %s",
                                strerror(-rc));
        }
    }
    old = umask(0177);
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
        rc = -errno;
    umask(old);
    if (via_dir) {
        if (fchdir(cwd) < 0 && rc == 0)
            rc = -errno;
        close(cwd);
    }
    if (rc < 0)
        return ts_error_set(err, rc, TS_ERR_IO, "cannot bind %s: %s", l->path, strerror(-rc));
    l->bound = true;
    if (fchmodat(l->dir_fd, l->base, 0600, 0) < 0)
        return ts_error_set(err, -errno, TS_ERR_IO, "cannot chmod %s: %s", l->path,
                            strerror(errno));
    struct stat st;
    if (fstatat(l->dir_fd, l->base, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return ts_error_set(err, -errno, TS_ERR_IO, "cannot stat %s: %s", l->path, strerror(errno));
    l->sock_dev = st.st_dev;
    l->sock_ino = st.st_ino;
    return 0;
}

/* Absolute copy of path; split into directory and file name. */
static int split_path(const char *path, tsd_listener *l, char **dir, ts_error *err)
{
    char cwd[PATH_MAX];
    char *slash;

    if (path[0] == '/') {
        l->path = strdup(path);
    } else {
        if (getcwd(cwd, sizeof(cwd)) == NULL)
            return ts_error_set(err, -errno, TS_ERR_IO, "cannot resolve %s: %s", path,
                                strerror(errno));
        if (asprintf(&l->path, "%s/%s", cwd, path) < 0)
            l->path = NULL;
    }
    if (l->path == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    slash = strrchr(l->path, '/');
    if (slash[1] == '\0')
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "socket path %s names a directory, not a socket file", l->path);
    if (strlen(slash + 1) > TSD_SUN_PATH_MAX)
        return ts_error_set(err, -ENAMETOOLONG, TS_ERR_INVALID_ARGUMENT,
                            "socket file name '%s' is %zu bytes; a Unix socket name is limited "
                            "to %d bytes",
                            slash + 1, strlen(slash + 1), TSD_SUN_PATH_MAX);
    *dir = slash == l->path ? strdup("/") : strndup(l->path, (size_t)(slash - l->path));
    l->base = strdup(slash + 1);
    if (*dir == NULL || l->base == NULL || asprintf(&l->lock_base, "%s.lock", l->base) < 0) {
        l->lock_base = NULL;
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    return 0;
}

int tsd_listener_open(const char *path, tsd_listener *l, ts_error *err)
{
    char *dir = NULL;
    int fd = -1;
    int rc;

    listener_init(l);
    rc = split_path(path, l, &dir, err);
    if (rc == 0)
        rc = open_socket_dir(dir, &l->dir_fd, err);
    free(dir);
    if (rc == 0)
        rc = take_lock(l, err);
    if (rc == 0)
        rc = remove_stale(l, err);
    if (rc < 0)
        goto fail;
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        rc = ts_error_set(err, -errno, TS_ERR_IO, "socket: %s", strerror(errno));
        goto fail;
    }
    rc = bind_socket(l, fd, err);
    if (rc < 0)
        goto fail;
    if (listen(fd, LISTEN_BACKLOG) < 0) {
        rc = ts_error_set(err, -errno, TS_ERR_IO, "cannot listen on %s: %s", l->path,
                          strerror(errno));
        goto fail;
    }
    l->fd = fd;
    return 0;
fail:
    if (fd >= 0)
        close(fd);
    /* Only a daemon that holds the lock may remove the lock file. */
    tsd_listener_release(l, l->lock_fd >= 0 && rc != -EADDRINUSE);
    return rc;
}

bool tsd_listener_still_ours(const tsd_listener *l)
{
    struct stat st;

    if (l->activated || !l->bound)
        return true;
    return fstatat(l->dir_fd, l->base, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == l->sock_dev &&
           st.st_ino == l->sock_ino;
}

void tsd_listener_release(tsd_listener *l, bool remove_files)
{
    if (remove_files && !l->activated && l->dir_fd >= 0 && l->lock_fd >= 0) {
        if (l->base != NULL && l->bound && tsd_listener_still_ours(l))
            unlinkat(l->dir_fd, l->base, 0);
        if (l->lock_base != NULL && same_file_at(l->dir_fd, l->lock_base, l->lock_fd))
            unlinkat(l->dir_fd, l->lock_base, 0);
    }
    if (l->fd >= 0)
        close(l->fd);
    if (l->lock_fd >= 0)
        close(l->lock_fd);
    if (l->dir_fd >= 0)
        close(l->dir_fd);
    free(l->path);
    free(l->base);
    free(l->lock_base);
    listener_init(l);
}

void tsd_notify_init(void)
{
    const char *p = getenv("NOTIFY_SOCKET");

    free(notify_path);
    notify_path = NULL;
    if (p != NULL && (p[0] == '/' || p[0] == '@') && strlen(p) <= TSD_SUN_PATH_MAX)
        notify_path = strdup(p);
    unsetenv("NOTIFY_SOCKET");
}

int tsd_notify(const char *state)
{
    struct sockaddr_un sa;
    socklen_t len;
    char msg[128];
    int fd;
    int n;
    int rc = 0;

    if (notify_path == NULL)
        return 0;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, notify_path, strlen(notify_path));
    if (sa.sun_path[0] == '@')
        sa.sun_path[0] = '\0';
    len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(notify_path));
    n = snprintf(msg, sizeof(msg), "%s\nMAINPID=%ld", state, (long)getpid());
    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if (sendto(fd, msg, (size_t)n, MSG_NOSIGNAL, (struct sockaddr *)&sa, len) < 0)
        rc = -errno;
    close(fd);
    return rc;
}

void tsd_notify_done(void)
{
    free(notify_path);
    notify_path = NULL;
}
