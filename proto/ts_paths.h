/*
 * ts_paths — the paths both ends agree on: the default socket, snapshot
 * roots as stores name them, and socket addresses for long paths.
 *
 * Default socket: $XDG_RUNTIME_DIR/toolscore/toolscored.sock when
 * XDG_RUNTIME_DIR is set to an absolute path, else
 * /tmp/toolscore-<uid>/toolscored.sock. TOOLSCORE_SOCKET is read by the
 * callers (the client library and tsctl), not here.
 *
 * A sockaddr_un holds at most TS_PATHS_SUN_MAX path bytes. Longer socket
 * paths are reached through a descriptor of their directory
 * ("/proc/self/fd/N/<name>", Linux), and refused with a message naming the
 * limit only when even that does not fit; nothing is ever truncated.
 */
#ifndef TS_PATHS_H
#define TS_PATHS_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "lib/base/ts_error.h"

#define TS_PATHS_MAX 4096 /* longest path handled (PATH_MAX) */
#define TS_PATHS_SOCKET_NAME "toolscored.sock"
#define TS_PATHS_SUN_MAX (sizeof(((struct sockaddr_un *)0)->sun_path) - 1) /* 107 */

/*
 * Write the default socket path into out (outsz bytes, TS_PATHS_MAX is
 * enough). Fails with -ENAMETOOLONG ("invalid_argument") if it does not fit.
 */
int ts_paths_default_socket(char *out, size_t outsz, ts_error *err);

/*
 * Resolve path (relative to the working directory, or absolute) to an
 * absolute path with every symbolic link resolved, whether or not it exists:
 * realpath() of its deepest existing ancestor, then the rest of the
 * components with "." and ".." applied. This is how a request names its
 * store. Errors: "not_found"/"io" when an ancestor cannot be examined
 * (-EACCES, -ENOTDIR, -ELOOP), "invalid_argument" for an empty path or a
 * result over outsz bytes.
 */
int ts_paths_resolve(const char *path, char *out, size_t outsz, ts_error *err);

/* A socket address ready for bind() or connect(). */
typedef struct ts_sockaddr {
    struct sockaddr_un addr;
    socklen_t len;
    int dirfd; /* directory held open for a long path, else -1 */
} ts_sockaddr;

/*
 * Prepare the address of the socket at path. A path of up to
 * TS_PATHS_SUN_MAX bytes is used as it is; a longer one goes through an
 * O_PATH descriptor of its directory (kept in out->dirfd until
 * ts_paths_sockaddr_release). Errors: -ENOENT/-ENOTDIR/-EACCES ("io") when
 * the directory of a long path cannot be opened; -ENAMETOOLONG
 * ("invalid_argument", naming the limit) when the file name alone is too
 * long or path is over TS_PATHS_MAX.
 */
int ts_paths_sockaddr(const char *path, ts_sockaddr *out, ts_error *err);

/* Close what ts_paths_sockaddr kept open (safe to call twice). */
void ts_paths_sockaddr_release(ts_sockaddr *a);

/*
 * The daemon's rule for its socket's directory (docs/protocol.md,
 * "Transport"): a directory owned by the effective uid with no group or
 * other access. st is the directory's stat. 0 when it holds; -EPERM
 * ("invalid_argument") with a message naming dir, the owner (uid and user
 * name) and the mode found. The daemon refuses such a directory; a client
 * uses the same rule to say at once that a daemon could not start there.
 */
int ts_paths_check_socket_dir(const char *dir, const struct stat *st, ts_error *err);

/*
 * A client's rule before it talks to a daemon (docs/security.md): the
 * directory of the socket is owned by the effective uid or by root, with
 * no group or other access, so no other user can have put a socket there.
 * Returns and messages as ts_paths_check_socket_dir.
 */
int ts_paths_trust_socket_dir(const char *dir, const struct stat *st, ts_error *err);

/*
 * Open the socket directory dir (flags: O_PATH or O_RDONLY; O_DIRECTORY,
 * O_NOFOLLOW and O_CLOEXEC are added) without following a symbolic link
 * at its last component, into *out, and its fstat into *st. Applies no
 * ownership rule (the callers' rules are above). Errors: -ELOOP
 * ("invalid_argument") for a symbolic link, the message naming its owner;
 * -ENOENT ("not_found") when missing; another -errno ("io").
 */
int ts_paths_open_socket_dir(const char *dir, int flags, int *out, struct stat *st, ts_error *err);

/* The directory part of socket_path into out ("." for a bare name, "/" for
 * a file of the root). 0, or -ENAMETOOLONG when out is too small. */
int ts_paths_socket_dir_of(const char *socket_path, char *out, size_t outsz);

/* "uid N (name)", or "uid N" when the user has no name, into out. */
void ts_paths_describe_uid(uid_t uid, char *out, size_t outsz);

#endif
