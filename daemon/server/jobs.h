/*
 * jobs — ordering the work on one store.
 *
 * Every request that touches a store's files becomes a job keyed by the
 * snapshot file it touches (its path; or the whole store). A job starts only when no
 * earlier job of the same store with a conflicting key is still queued or
 * running, so requests are applied in arrival order per snapshot while jobs
 * on different snapshots run together: "pool" jobs on libuv's thread pool
 * (the file I/O, fsyncs, extraction and scoring of check/record), "inline"
 * jobs on the loop thread (short ones that also touch loop-owned state).
 *
 * Two keys conflict when they are equal or either is the whole store (NULL),
 * except that a later single-snapshot job does not wait for an earlier
 * read-only whole-store job (a listing): each file it reads is then either
 * before or after that one write (files are replaced by rename), as for any
 * two concurrent requests, and a check is not held up by a long listing.
 * The caller allocates the job (embedded in its own context) and keeps it
 * alive until done() ran; done() runs on the loop thread and may free it.
 *
 * Group commit: a job that writes a snapshot returns from its work once
 * the file is durable; concurrent writers of the store share the renames
 * and the root's fsync (ts_store_save's commit rounds,
 * lib/ts_store_commit.c). A write whose file was placed but whose root
 * fsync failed leaves that error in sync_rc/sync_err for done() (which
 * replies). Until done() the job is running, so a later job of the same
 * snapshot (or a whole-store job, or a fast-path replay) does not start
 * before the write is durable and acknowledged.
 *
 * Pool threads wait in fsync and for commit rounds, so the pool needs more
 * threads than CPUs for the fsyncs of concurrent writes to overlap and for
 * them to gather into one round: unless UV_THREADPOOL_SIZE is set, jobs.c
 * sets it to TSD_JOBS_POOL_THREADS before the pool starts (at the server's
 * start, tsd_jobs_size_pool; run.report calls it too).
 *
 * Heavy jobs (those that read and parse large snapshot files: a show or a
 * check of a file over TSD_JOBS_HEAVY_BYTES, a review) take memory in
 * proportion: a 29 MiB snapshot is about 250 MB once parsed
 * (TSD_JOBS_PARSED_FACTOR times the file). At most TSD_JOBS_HEAVY_MAX of
 * them run at a time, and one starts only when the memory it will take
 * (its estimate) is admitted by the memory budget (tsd_jobs_set_admit);
 * another one waits, in its store's queue, as behind a conflicting job
 * (later jobs of other keys go on), and is looked at again when a heavy
 * job ends and on tsd_jobs_retry_heavy. What one parsed is given back to
 * the system when it ends (malloc_trim on its pool thread).
 */
#ifndef TSD_JOBS_H
#define TSD_JOBS_H

#include <stdbool.h>

#include <uv.h>

#include "daemon/snapshots/stores.h"

/* libuv pool threads when UV_THREADPOOL_SIZE is not set (above). */
#define TSD_JOBS_POOL_THREADS 16
#define TSD_JOBS_HEAVY_MAX 1            /* heavy jobs running at once */
#define TSD_JOBS_HEAVY_BYTES (1u << 20) /* files past this make a job heavy */
#define TSD_JOBS_PARSED_FACTOR 9        /* memory of a parsed file, per byte */

typedef struct tsd_job tsd_job;

struct tsd_job {
    uv_work_t work; /* pool jobs */
    uv_loop_t *loop;
    tsd_store *store;
    const char *key; /* borrowed snapshot file path; NULL = whole store */
    bool on_pool;    /* run work() on the thread pool */
    bool read_only;  /* a whole-store job that writes nothing (list): it waits for
                      * every earlier job, but later single-snapshot jobs need
                      * not wait for it */
    bool heavy;      /* reads large files: one at a time (above) */
    size_t estimate; /* heavy: about the memory it takes, in bytes */
    bool started;
    int sync_rc; /* set by work(): a file was renamed into place but the
                  * root's fsync failed with this; 0 otherwise */
    ts_error sync_err;
    void (*work_fn)(tsd_job *job); /* the work: pool thread or loop thread */
    void (*done_fn)(tsd_job *job); /* afterwards, on the loop thread */
    tsd_job *next;                 /* in the store's queue */
};

/* Whether a heavy job of estimate bytes may start while heavy jobs of
 * running bytes run (the memory budget's rule, budget.h). */
typedef bool (*tsd_jobs_admit_fn)(size_t running, size_t estimate, void *arg);
void tsd_jobs_set_admit(tsd_jobs_admit_fn fn, void *arg);

/* The memory the heavy jobs running now take, about (their estimates). */
size_t tsd_jobs_heavy_bytes(void);

/* Look again at the heavy jobs waiting (the memory they wait for may have
 * been freed). Loop thread. */
void tsd_jobs_retry_heavy(void);

/* st is being closed: forget it if it waits for a heavy job. */
void tsd_jobs_forget_store(tsd_store *st);

/* Size libuv's pool before its first use (above), unless the user did
 * (UV_THREADPOOL_SIZE). Idempotent; before anything queues work. */
void tsd_jobs_size_pool(void);

/* Queue job on its store and start whatever may start. */
void tsd_jobs_submit(tsd_job *job);

/*
 * True when no job of st with a key conflicting with key (see above) is
 * queued or running: work on key done right now, on the loop thread, is
 * ordered exactly as a job submitted now would be.
 */
bool tsd_jobs_idle(const tsd_store *st, const char *key);

#endif
