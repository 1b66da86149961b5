/*
 * ts_store_internal — what ts_store.c shares with ts_store_list.c. Not a
 * contract for other modules: use ts_store.h.
 */
#ifndef TS_STORE_INTERNAL_H
#define TS_STORE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/ts_base.h"
#include "lib/snapshot/ts_snapshot.h"
#include "lib/store/ts_store.h"

#define TS_STORE_FILE_NAME_LIMIT 255 /* NAME_MAX of the common file systems */
#define TS_STORE_TEMP_RANDOM_HEX 16  /* random part of a temp file name */

/* The root directory as first opened: immutable once published. */
typedef struct ts_store_root_handle {
    int fd;
    uint64_t dev, ino; /* identity of fd, to compare with one stat() of the path */
} ts_store_root_handle;

/* A caller waiting for a commit round to cover its change (ts_store_commit.c,
 * ts_store__commit); lives on the caller's stack. */
typedef struct ts_store_sync_waiter {
    const char *temp;    /* a save: its temp file in the root, written and
                          * fsynced (else NULL), */
    const char *file;    /* to be renamed to this file */
    bool dirsync;        /* wants an fsync of the root after the rename */
    bool renamed;        /* temp was renamed to file */
    bool done;           /* its round is over: rc holds the outcome */
    bool lead;           /* it is to run the next round */
    int rc;              /* 0 or -errno of the step that failed */
    const char *failed;  /* that step, for the message */
    pthread_cond_t wake; /* signalled when done or lead is set */
    struct ts_store_sync_waiter *next;
} ts_store_sync_waiter;

struct ts_store {
    char *root;
    /* NULL while the root does not exist (or is not open yet); published once
     * with a compare-and-swap, never replaced, freed by ts_store_close. */
    _Atomic(ts_store_root_handle *) held;
    atomic_bool root_made; /* a write made the root directory (ts_store_take_root_made) */
    /* Commit rounds of the held root (ts_store_commit.c): one round runs
     * while the next one's waiters gather. */
    pthread_mutex_t sync_lock;
    bool sync_running;                  /* a leader owns the current round */
    ts_store_sync_waiter *sync_waiting; /* waiting for the next round */
    ts_store_gate gate;                 /* what parsing may take (ts_store_set_gate) */
};

/*
 * Commit me in the root dirfd (ts_store_commit.c): a save (its temp file,
 * already written and fsynced, renamed to file) and/or a durable root
 * (dirsync: an fsync of the root that starts after the rename). Concurrent
 * callers share the renames and the root's fsync (group commit). Returns
 * with me->rc, me->failed and me->renamed set; never fails otherwise.
 *
 * The caller joins the waiting list; if no round is
 * running it leads one at once, otherwise it sleeps until its round is done
 * or it is handed the lead. Only the held root is shared: a descriptor
 * opened for one operation (the root was replaced) commits alone.
 */
void ts_store__commit(ts_store *store, int dirfd, ts_store_sync_waiter *me);

/*
 * The root's descriptor for one operation into *fd; give it back with
 * ts_store__dir_release. Returns 0, 1 when the root does not exist and create
 * is false, or a negative code. With create, makes the root first.
 */
int ts_store__dir(ts_store *store, bool create, int *fd, ts_error *err);
void ts_store__dir_release(ts_store *store, int fd);

/* The file name of name, refusing names the file system cannot hold. */
int ts_store__file_of(const char *name, char *file, ts_error *err);

/* root + "/" + file into out. */
void ts_store__join_path(const ts_store *store, const char *file, char *out, size_t outsz);

/*
 * Parse data (a file's bytes; path names it in errors) as ts_snapshot_parse_ex
 * does, its price taken from the store's gate first (ts_store_set_gate):
 * the snapshot holds it until it is freed.
 */
int ts_store__parse(const ts_store *store, const ts_buf *data, const char *path, ts_snapshot **out,
                    bool *timestamps_given, ts_error *err);

/* Read the regular file dirfd/file (never through a link) into out (a
 * ts_buf of its own, freed on error), with the stamp of what was read. */
int ts_store__read_file(int dirfd, const char *file, const char *path, ts_buf *out,
                        ts_file_stamp *stamp, ts_error *err);

/* "<path>: <what>: <strerror(-rc)>" with code "io"; returns rc. */
int ts_store__sys_error(ts_error *err, int rc, const char *path, const char *what);

/*
 * mkdir -p path (0755 minus the umask for the parts it makes), then fsync
 * the parent of every directory it made, so that they survive a power loss
 * as the files written in them do. 0 or -errno, with the path that failed
 * in failed; *made_last (when not NULL) is set when this call made path
 * itself.
 */
int ts_store__make_dirs(const char *path, bool *made_last, char *failed, size_t failedsz);
int ts_store__no_memory(ts_error *err);

#endif
