/*
 * ts_store_lock — one store, one daemon: an exclusive lock (flock) on a
 * file beside or inside a snapshot root, recording who holds it.
 *
 * Two daemons writing one store both create the same missing snapshot or
 * undo each other's approvals; the lock makes the second one refuse the
 * store ("store_busy", naming the holder's socket) so that clients go to
 * the holder instead (docs/security.md, docs/protocol.md "store_busy").
 *
 * Where: for a root whose parent is a project's `.toolscore` directory
 * (`<project>/.toolscore/snapshots`), `<project>/.toolscore/<root's name>.lock`,
 * so the snapshot directory holds nothing but snapshots; for any other
 * root, `<root>/.toolscored.lock` (a dot file: listings skip it). The file
 * holds "<pid>\n<socket>\n" of its holder. The lock goes with the holder's
 * process (the kernel drops it at exit, also after kill -9); a holder that
 * lets go removes the file first.
 *
 * Not thread-safe by itself: one owner (the daemon's loop thread) takes and
 * releases locks.
 */
#ifndef TS_STORE_LOCK_H
#define TS_STORE_LOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/base/ts_error.h"

#define TS_ERR_STORE_BUSY "store_busy" /* another daemon holds the store */
#define TS_STORE_LOCK_SOCKET_MAX 4096  /* longest socket path recorded */
#define TS_STORE_LOCK_UNLOCKABLE 2     /* ts_store_lock_take: no right to lock */

typedef struct ts_store_lock ts_store_lock;

/* Who holds a lock another process has. */
typedef struct ts_store_lock_owner {
    long pid;                              /* 0 when it could not be read */
    char socket[TS_STORE_LOCK_SOCKET_MAX]; /* "" when it could not be read */
} ts_store_lock_owner;

/*
 * The lock file of the store at root (absolute): its directory into dir,
 * its name into name. -ENAMETOOLONG when a buffer is too small.
 */
int ts_store_lock_where(const char *root, char *dir, size_t dirsz, char *name, size_t namesz);

/*
 * Take the lock of the store at root for this process, recording pid and
 * socket (the daemon's socket path, what clients are sent to). With
 * create, the lock's directory is made first when missing (mkdir -p, 0755
 * minus the umask); without, a missing directory takes nothing.
 *
 * Returns 0 with *out held; 1 when the directory does not exist and create
 * is false (*out NULL: no store on disk to guard yet);
 * TS_STORE_LOCK_UNLOCKABLE (err says why) when this process may not create
 * the lock file there (a read-only checkout, a directory of another
 * user's): an existing lock file is then locked read-only (0, nothing
 * recorded in it), else nothing is taken; -EBUSY ("store_busy") when
 * another process holds it: *owner says who (its pid and socket as far as
 * the file tells) and the message names them; another negative code
 * ("io") when the file cannot be made or locked.
 */
int ts_store_lock_take(const char *root, const char *socket, bool create, ts_store_lock **out,
                       ts_store_lock_owner *owner, ts_error *err);

/* True while the file at the lock's path is still the one locked (not
 * removed or replaced). */
bool ts_store_lock_held(const ts_store_lock *lock);

/* Let go: remove the file when it is still the one locked, close, free.
 * NULL is fine. */
void ts_store_lock_release(ts_store_lock *lock);

#endif
