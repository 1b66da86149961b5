/*
 * ts_paths — default socket path, store root resolution, socket addresses
 * (see ts_proto.h).
 */
#include "proto/ts_proto.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ts_paths_default_socket(char *out, size_t outsz, ts_error *err)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    int n;

    if (xdg != NULL && xdg[0] == '/')
        n = snprintf(out, outsz, "%s/toolscore/%s", xdg, TS_PATHS_SOCKET_NAME);
    else
        n = snprintf(out, outsz, "/tmp/toolscore-%lu/%s", (unsigned long)getuid(),
                     TS_PATHS_SOCKET_NAME);
    if (n < 0 || (size_t)n >= outsz)
        return ts_error_set(err, -ENAMETOOLONG, TS_ERR_INVALID_ARGUMENT,
                            "default socket path is longer than %zu bytes", outsz - 1);
    return 0;
}

/* Append component c (len bytes) to path (a '/'-rooted string in a
 * TS_PATHS_MAX buffer), applying "." and "..". */
static int path_push(char *path, const char *c, size_t len)
{
    size_t plen = strlen(path);
    char *slash;

    if (len == 0 || (len == 1 && c[0] == '.'))
        return 0;
    if (len == 2 && c[0] == '.' && c[1] == '.') {
        slash = strrchr(path, '/');
        if (slash == path)
            path[1] = '\0';
        else if (slash != NULL)
            *slash = '\0';
        return 0;
    }
    if (plen + 1 + len >= TS_PATHS_MAX)
        return -ENAMETOOLONG;
    if (plen > 1)
        path[plen++] = '/';
    memcpy(path + plen, c, len);
    path[plen + len] = '\0';
    return 0;
}

/* Lexically normalize an absolute path (collapse "//", ".", ".."). */
static int path_normalize(const char *in, char *out)
{
    const char *p = in;
    const char *next;
    int rc;

    strcpy(out, "/");
    while (*p != '\0') {
        while (*p == '/')
            p++;
        next = strchr(p, '/');
        if (next == NULL)
            next = p + strlen(p);
        rc = path_push(out, p, (size_t)(next - p));
        if (rc < 0)
            return rc;
        p = next;
    }
    return 0;
}

static int resolve_error(const char *path, int rc, ts_error *err)
{
    return ts_error_set(err, rc, rc == -ENOENT ? TS_ERR_NOT_FOUND : TS_ERR_IO,
                        "cannot resolve %s: %s", path, strerror(-rc));
}

/*
 * Resolve the absolute, normalized path abs: realpath() of the deepest
 * existing prefix, plus the remaining components.
 */
static int resolve_absolute(const char *abs, char *out, size_t outsz, ts_error *err)
{
    char prefix[TS_PATHS_MAX];
    char real[PATH_MAX];
    char *cut;
    size_t plen;
    int n;

    snprintf(prefix, sizeof(prefix), "%s", abs);
    for (;;) {
        if (realpath(prefix, real) != NULL)
            break;
        if (errno != ENOENT)
            return resolve_error(prefix, -errno, err);
        cut = strrchr(prefix, '/');
        if (cut == prefix) {
            prefix[1] = '\0'; /* "/" always exists; loop once more */
            continue;
        }
        *cut = '\0';
    }
    plen = strcmp(prefix, "/") == 0 ? 0 : strlen(prefix);
    if (strcmp(real, "/") == 0 && abs[plen] != '\0')
        n = snprintf(out, outsz, "%s", abs + plen);
    else
        n = snprintf(out, outsz, "%s%s", real, abs + plen);
    if (n < 0 || (size_t)n >= outsz)
        return ts_error_set(err, -ENAMETOOLONG, TS_ERR_INVALID_ARGUMENT,
                            "resolved path of %s is longer than %zu bytes", abs, outsz - 1);
    return 0;
}

int ts_paths_resolve(const char *path, char *out, size_t outsz, ts_error *err)
{
    char joined[TS_PATHS_MAX];
    char cwd[TS_PATHS_MAX];
    char normal[TS_PATHS_MAX];
    int n;

    if (path == NULL || path[0] == '\0')
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "empty path");
    if (path[0] == '/') {
        n = snprintf(joined, sizeof(joined), "%s", path);
    } else {
        if (getcwd(cwd, sizeof(cwd)) == NULL)
            return ts_error_set(err, -errno, TS_ERR_IO, "cannot read the working directory: %s",
                                strerror(errno));
        n = snprintf(joined, sizeof(joined), "%s/%s", cwd, path);
    }
    if (n < 0 || (size_t)n >= sizeof(joined))
        return ts_error_set(err, -ENAMETOOLONG, TS_ERR_INVALID_ARGUMENT,
                            "path is longer than %d bytes", TS_PATHS_MAX - 1);
    /* An existing path: realpath() alone, with its physical "..". */
    if (realpath(joined, cwd) != NULL) {
        n = snprintf(out, outsz, "%s", cwd);
        if (n < 0 || (size_t)n >= outsz)
            return ts_error_set(err, -ENAMETOOLONG, TS_ERR_INVALID_ARGUMENT,
                                "resolved path of %s is longer than %zu bytes", path, outsz - 1);
        return 0;
    }
    if (errno != ENOENT)
        return resolve_error(joined, -errno, err);
    /* A missing path: "." and ".." of the missing part can only be lexical. */
    if (path_normalize(joined, normal) < 0)
        return ts_error_set(err, -ENAMETOOLONG, TS_ERR_INVALID_ARGUMENT,
                            "path is longer than %d bytes", TS_PATHS_MAX - 1);
    return resolve_absolute(normal, out, outsz, err);
}

int ts_paths_sockaddr(const char *path, ts_sockaddr *out, ts_error *err)
{
    char dir[TS_PATHS_MAX];
    size_t len = path ? strlen(path) : 0;
    const char *name;
    int n;

    memset(out, 0, sizeof(*out));
    out->dirfd = -1;
    out->addr.sun_family = AF_UNIX;
    if (len == 0)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "empty socket path");
    if (len >= TS_PATHS_MAX)
        return ts_error_set(err, -ENAMETOOLONG, TS_ERR_INVALID_ARGUMENT,
                            "socket path is %zu bytes, over the limit of %d", len,
                            TS_PATHS_MAX - 1);
    if (len <= TS_PATHS_SUN_MAX) {
        memcpy(out->addr.sun_path, path, len + 1);
        out->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + 1);
        return 0;
    }
    /* Too long for sun_path: go through the directory's descriptor. */
    memcpy(dir, path, len + 1);
    name = strrchr(dir, '/');
    if (name == NULL) {
        snprintf(dir, sizeof(dir), ".");
        name = path;
    } else {
        dir[name - dir == 0 ? 1 : name - dir] = '\0';
        name = path + (strrchr(path, '/') - path) + 1;
    }
    out->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (out->dirfd < 0)
        return ts_error_set(err, -errno, TS_ERR_IO, "cannot open socket directory %s: %s", dir,
                            strerror(errno));
    n = snprintf(out->addr.sun_path, sizeof(out->addr.sun_path), "/proc/self/fd/%d/%s", out->dirfd,
                 name);
    if (n < 0 || (size_t)n > TS_PATHS_SUN_MAX) {
        ts_paths_sockaddr_release(out);
        return ts_error_set(err, -ENAMETOOLONG, TS_ERR_INVALID_ARGUMENT,
                            "socket path %s is %zu bytes and its file name is too long to "
                            "reach through its directory: a Unix socket address holds at most "
                            "%zu bytes",
                            path, len, (size_t)TS_PATHS_SUN_MAX);
    }
    out->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)n + 1);
    return 0;
}

void ts_paths_sockaddr_release(ts_sockaddr *a)
{
    if (a->dirfd >= 0)
        close(a->dirfd);
    a->dirfd = -1;
}

void ts_paths_describe_uid(uid_t uid, char *out, size_t outsz)
{
    struct passwd pw;
    struct passwd *found = NULL;
    char buf[1024];

    if (getpwuid_r(uid, &pw, buf, sizeof(buf), &found) == 0 && found != NULL &&
        found->pw_name != NULL && found->pw_name[0] != '\0')
        snprintf(out, outsz, "uid %lu (%s)", (unsigned long)uid, found->pw_name);
    else
        snprintf(out, outsz, "uid %lu", (unsigned long)uid);
}

/* The rule of the socket's directory; root_ok: root may own it too. */
static int check_dir(const char *dir, const struct stat *st, bool root_ok, ts_error *err)
{
    char owner[160];
    char me[160];
    bool owner_ok = st->st_uid == geteuid() || (root_ok && st->st_uid == 0);

    if (S_ISDIR(st->st_mode) && owner_ok && (st->st_mode & 077) == 0)
        return 0;
    ts_paths_describe_uid(st->st_uid, owner, sizeof(owner));
    ts_paths_describe_uid(geteuid(), me, sizeof(me));
    return ts_error_set(err, -EPERM, TS_ERR_INVALID_ARGUMENT,
                        "socket directory %s must be a directory owned by %s%s with no group or "
                        "other access, mode 0700 (it is %s owned by %s, mode %04o)",
                        dir, me, root_ok && geteuid() != 0 ? " or root" : "",
                        S_ISDIR(st->st_mode) ? "a directory" : "not a directory", owner,
                        (unsigned)(st->st_mode & 07777));
}

int ts_paths_check_socket_dir(const char *dir, const struct stat *st, ts_error *err)
{
    return check_dir(dir, st, false, err);
}

int ts_paths_trust_socket_dir(const char *dir, const struct stat *st, ts_error *err)
{
    return check_dir(dir, st, true, err);
}

int ts_paths_open_socket_dir(const char *dir, int flags, int *out, struct stat *st, ts_error *err)
{
    char owner[160];
    struct stat link;
    int fd = open(dir, flags | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int rc;

    *out = -1;
    if (fd < 0 && (errno == ELOOP || errno == ENOTDIR) && lstat(dir, &link) == 0 &&
        S_ISLNK(link.st_mode)) {
        ts_paths_describe_uid(link.st_uid, owner, sizeof(owner));
        return ts_error_set(err, -ELOOP, TS_ERR_INVALID_ARGUMENT,
                            "socket directory %s is a symbolic link (owned by %s); it must be "
                            "the directory itself",
                            dir, owner);
    }
    if (fd < 0)
        return ts_error_set(err, -errno, errno == ENOENT ? TS_ERR_NOT_FOUND : TS_ERR_IO,
                            "cannot open socket directory %s: %s", dir, strerror(errno));
    if (fstat(fd, st) < 0) {
        rc = -errno;
        close(fd);
        return ts_error_set(err, rc, TS_ERR_IO, "cannot stat %s: %s", dir, strerror(-rc));
    }
    if (S_ISLNK(st->st_mode)) { /* O_PATH | O_NOFOLLOW opens the link itself */
        ts_paths_describe_uid(st->st_uid, owner, sizeof(owner));
        close(fd);
        return ts_error_set(err, -ELOOP, TS_ERR_INVALID_ARGUMENT,
                            "socket directory %s is a symbolic link (owned by %s); it must be "
                            "the directory itself",
                            dir, owner);
    }
    *out = fd;
    return 0;
}

int ts_paths_socket_dir_of(const char *socket_path, char *out, size_t outsz)
{
    const char *slash = strrchr(socket_path, '/');
    int n;

    if (slash == NULL)
        n = snprintf(out, outsz, ".");
    else
        n = snprintf(out, outsz, "%.*s", (int)(slash == socket_path ? 1 : slash - socket_path),
                     socket_path);
    return n < 0 || (size_t)n >= outsz ? -ENAMETOOLONG : 0;
}
