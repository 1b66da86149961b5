/*
 * listen — the daemon's listening socket and everything around it: the
 * socket directory (created 0700, checked: owned by us, no group/other
 * access), the single-instance lock file beside the socket, removal of a
 * stale socket, bind + listen with mode 0600, paths longer than a socket
 * address holds, systemd socket activation (LISTEN_FDS/LISTEN_PID) and
 * readiness notification (NOTIFY_SOCKET, written by hand: no libsystemd).
 *
 * Owns the listening descriptor until the server takes it, the directory and
 * lock descriptors and the path strings (tsd_listener_release).
 */
#ifndef TSD_LISTEN_H
#define TSD_LISTEN_H

#include <stdbool.h>
#include <sys/types.h>

#include "lib/base/ts_base.h"

/* sizeof(sockaddr_un.sun_path) - 1: the longest path bind() takes. */
#define TSD_SUN_PATH_MAX 107

typedef struct tsd_listener {
    int fd;          /* listening socket, -1 once taken by the server */
    int dir_fd;      /* the socket's directory (-1 when activated) */
    int lock_fd;     /* holds the exclusive flock (-1 when activated) */
    char *path;      /* absolute socket path (as reported by status) */
    char *base;      /* socket file name inside dir_fd */
    char *lock_base; /* lock file name inside dir_fd */
    bool bound;      /* we created the socket file: ours to remove */
    dev_t sock_dev;  /* identity of the socket file we bound */
    ino_t sock_ino;
    bool activated; /* the socket came from systemd: do not remove it */
} tsd_listener;

/*
 * Take over a socket passed by systemd: LISTEN_PID must be our pid and
 * LISTEN_FDS >= 1; fd 3 must be a listening Unix stream socket. *found is
 * false (and 0 returned) when no socket was passed. The variables are
 * removed from the environment.
 */
int tsd_listener_from_env(tsd_listener *l, bool *found, ts_error *err);

/*
 * Create/check the socket directory, take the lock (a second daemon gets
 * -EADDRINUSE and a message naming the pid holding the lock), remove a stale
 * socket, bind (through the directory when the path is too long for a socket
 * address; a file name that still does not fit is refused naming the limit),
 * set mode 0600 and listen.
 */
int tsd_listener_open(const char *path, tsd_listener *l, ts_error *err);

/*
 * True while the file at the socket path is still the socket we bound
 * (always true for an activated socket). A socket removed or replaced
 * behind our back cannot be reached by new clients any more.
 */
bool tsd_listener_still_ours(const tsd_listener *l);

/* Remove the socket file and the lock file (not for an activated socket),
 * release the lock and free everything. Safe on a zeroed/failed listener. */
void tsd_listener_release(tsd_listener *l, bool remove_files);

/*
 * Send one state datagram ("READY=1", "STOPPING=1") to $NOTIFY_SOCKET when
 * it was set at start-up (tsd_notify_init). Returns 0, or a negative code.
 */
void tsd_notify_init(void);
int tsd_notify(const char *state);
void tsd_notify_done(void);

#endif
