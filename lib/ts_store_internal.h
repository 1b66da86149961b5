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

#include "ts_buf.h"
#include "ts_error.h"
#include "ts_snapshot.h"
#include "ts_store.h"

#define TS_STORE_FILE_NAME_LIMIT 255 /* NAME_MAX of the common file systems */
#define TS_STORE_TEMP_RANDOM_HEX 16  /* random part of a temp file name */

/* The root directory as first opened: immutable once published. */
typedef struct ts_store_root_handle {
    int fd;
    uint64_t dev, ino; /* identity of fd, to compare with one stat() of the path */
} ts_store_root_handle;

/* A caller waiting for a directory fsync that covers its change (shared_fsync). */
typedef struct ts_store_sync_waiter {
    bool done; /* an fsync that started after the change has returned */
    int rc;    /* its result: 0 or -errno */
    struct ts_store_sync_waiter *next;
} ts_store_sync_waiter;

struct ts_store {
    char *root;
    /* NULL while the root does not exist (or is not open yet); published once
     * with a compare-and-swap, never replaced, freed by ts_store_close. */
    _Atomic(ts_store_root_handle *) held;
    /* Shared directory fsyncs of the held root (ts_store.c, shared_fsync). */
    pthread_mutex_t sync_lock;
    pthread_cond_t sync_cond;
    bool sync_running;                  /* one thread is in fsync(held->fd) */
    ts_store_sync_waiter *sync_waiting; /* waiting for the next fsync */
};

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

/* Read and parse dirfd/file (never through a link); path names it in errors. */
int ts_store__load_file(int dirfd, const char *file, const char *path, ts_snapshot **out,
                        ts_file_stamp *stamp, ts_error *err);

/* Read the regular file dirfd/file (never through a link) into out (a
 * ts_buf of its own, freed on error), with the stamp of what was read. */
int ts_store__read_file(int dirfd, const char *file, const char *path, ts_buf *out,
                        ts_file_stamp *stamp, ts_error *err);

/* "<path>: <what>: <strerror(-rc)>" with code "io"; returns rc. */
int ts_store__sys_error(ts_error *err, int rc, const char *path, const char *what);
int ts_store__no_memory(ts_error *err);

#endif
