/*
 * ts_client_trust — whether a socket may be talked to: before a client
 * sends anything, the socket's directory must be the user's own (or
 * root's) with no group or other access, and the process listening on it
 * must run as the user or as root (SO_PEERCRED). Another user's socket,
 * planted at the default path, is refused without a byte written to it
 * (see docs/security.md).
 */
#include "ts_client_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

int ts_client__trust_dir(const char *socket_path, ts_error *err)
{
    char dir[TS_PATHS_MAX];
    const char *base = strrchr(socket_path, '/');
    struct stat st;
    struct stat sock;
    ts_error why;
    int fd = -1;
    int rc;

    if (ts_paths_socket_dir_of(socket_path, dir, sizeof(dir)) < 0)
        return ts_error_set(err, -ENAMETOOLONG, TS_ERR_INVALID_ARGUMENT,
                            "socket path is longer than %d bytes", TS_PATHS_MAX - 1);
    base = base != NULL ? base + 1 : socket_path;
    rc = ts_paths_open_socket_dir(dir, O_PATH, &fd, &st, &why);
    if (rc == -ENOENT || rc == -ENOTDIR)
        return ts_error_set(err, -ENOENT, TS_CLIENT_ERR_UNAVAILABLE, "no daemon answers at %s: %s",
                            socket_path, strerror(-rc));
    if (rc == 0)
        rc = ts_paths_trust_socket_dir(dir, &st, &why);
    if (rc == 0) {
        close(fd);
        return 0;
    }
    /* Nothing listens in a directory without a socket file: no daemon to
     * distrust (a daemon started there would refuse the directory; the
     * connect loop says so). */
    if (fd >= 0 && fstatat(fd, base, &sock, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT) {
        close(fd);
        return ts_error_set(err, -ENOENT, TS_CLIENT_ERR_UNAVAILABLE, "no daemon answers at %s: %s",
                            socket_path, strerror(ENOENT));
    }
    if (fd >= 0)
        close(fd);
    return ts_error_set(err, -EPERM, TS_CLIENT_ERR_UNTRUSTED,
                        "refusing the socket %s without talking to it: %s; another user may "
                        "have put it there (remove it, or set XDG_RUNTIME_DIR or "
                        "TOOLSCORE_SOCKET to a directory of yours)",
                        socket_path, why.message);
}

int ts_client__trust_peer(int fd, const char *socket_path, ts_error *err)
{
    struct ucred cred;
    socklen_t len = sizeof(cred);
    char who[160];
    char me[160];

    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
        return ts_error_set(err, -errno, TS_CLIENT_ERR_UNTRUSTED,
                            "refusing the daemon at %s: cannot read its credentials: %s",
                            socket_path, strerror(errno));
    if (cred.uid == geteuid() || cred.uid == 0)
        return 0;
    ts_paths_describe_uid(cred.uid, who, sizeof(who));
    ts_paths_describe_uid(geteuid(), me, sizeof(me));
    return ts_error_set(err, -EPERM, TS_CLIENT_ERR_UNTRUSTED,
                        "refusing the daemon at %s without talking to it: it runs as %s (pid "
                        "%ld), not as you (%s) or root",
                        socket_path, who, (long)cred.pid, me);
}
