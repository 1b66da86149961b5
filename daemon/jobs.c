/*
 * jobs — per-store, per-snapshot ordering of work (see jobs.h).
 */
#include "jobs.h"

#include <stddef.h>
#include <string.h>

static bool conflicts(const tsd_job *a, const tsd_job *b)
{
    return a->key == NULL || b->key == NULL || strcmp(a->key, b->key) == 0;
}

static void schedule(tsd_store *st);

static void unlink_job(tsd_store *st, tsd_job *job)
{
    tsd_job **p = &st->jobs_head;

    while (*p != NULL && *p != job)
        p = &(*p)->next;
    if (*p == NULL)
        return;
    *p = job->next;
    if (st->jobs_tail == job) {
        st->jobs_tail = NULL;
        for (tsd_job *j = st->jobs_head; j != NULL; j = j->next)
            st->jobs_tail = j;
    }
}

/* The job finished: drop it from the queue, report, start what it held up. */
static void finish(tsd_job *job)
{
    tsd_store *st = job->store;

    unlink_job(st, job);
    job->done_fn(job); /* may free job */
    /* Inside schedule() (an inline job) the scan resumes by itself. */
    if (!st->scheduling)
        schedule(st);
}

/* ---- group commit of directory fsyncs (jobs.h) ---- */

static void sync_start(tsd_store *st);

static void on_sync_work(uv_work_t *req)
{
    tsd_store *st = (tsd_store *)((char *)req - offsetof(tsd_store, sync_work));

    ts_error_clear(&st->sync_err);
    st->sync_rc = ts_store_sync(st->store, &st->sync_err);
}

/* The group's directory fsync returned: start the next group's (its jobs'
 * renames are done), then finish every job of this group with the result. */
static void on_sync_done(uv_work_t *req, int status)
{
    tsd_store *st = (tsd_store *)((char *)req - offsetof(tsd_store, sync_work));
    tsd_job *job = st->sync_group;
    int rc = st->sync_rc;
    ts_error err = st->sync_err;

    (void)status; /* never cancelled */
    st->sync_group = NULL;
    st->sync_running = false;
    if (st->sync_waiting != NULL)
        sync_start(st);
    while (job != NULL) {
        tsd_job *next = job->sync_next;

        job->sync_rc = rc;
        job->sync_err = err;
        finish(job); /* may free job */
        job = next;
    }
}

/* Take every waiting job into one group and fsync the directory for it. */
static void sync_start(tsd_store *st)
{
    st->sync_group = st->sync_waiting;
    st->sync_waiting = NULL;
    st->sync_waiting_tail = NULL;
    st->sync_running = true;
    if (uv_queue_work(st->sync_loop, &st->sync_work, on_sync_work, on_sync_done) == 0)
        return;
    on_sync_work(&st->sync_work); /* not reached: uv_queue_work only fails on bad arguments */
    on_sync_done(&st->sync_work, 0);
}

/* A job's work is over: finish it, or (a rename awaiting its directory
 * fsync) join the store's waiting group and start an fsync if none runs. */
static void work_ended(tsd_job *job)
{
    tsd_store *st = job->store;

    if (!job->dirsync) {
        finish(job);
        return;
    }
    job->sync_next = NULL;
    if (st->sync_waiting_tail != NULL)
        st->sync_waiting_tail->sync_next = job;
    else
        st->sync_waiting = job;
    st->sync_waiting_tail = job;
    st->sync_loop = job->loop;
    if (!st->sync_running)
        sync_start(st);
}

static void on_pool_work(uv_work_t *req)
{
    tsd_job *job = (tsd_job *)req;

    job->work_fn(job);
}

static void on_pool_done(uv_work_t *req, int status)
{
    (void)status; /* never cancelled: uv_cancel is not used */
    work_ended((tsd_job *)req);
}

static void start(tsd_job *job)
{
    job->started = true;
    if (job->on_pool && uv_queue_work(job->loop, &job->work, on_pool_work, on_pool_done) == 0)
        return;
    job->work_fn(job);
    work_ended(job);
}

/*
 * Start every queued job that no earlier job blocks. Jobs before a blocked
 * whole-store job cannot be overtaken past it, so the scan stops there.
 */
static void schedule(tsd_store *st)
{
    bool again = true;

    st->scheduling = true;
    while (again) {
        again = false;
        for (tsd_job *job = st->jobs_head; job != NULL; job = job->next) {
            bool blocked = false;

            if (job->started)
                continue;
            for (tsd_job *earlier = st->jobs_head; earlier != job; earlier = earlier->next) {
                if (earlier->read_only && job->key != NULL)
                    continue;
                if (conflicts(earlier, job)) {
                    blocked = true;
                    break;
                }
            }
            if (blocked) {
                if (job->key == NULL)
                    break;
                continue;
            }
            /* An inline job finishes inside start() and changes the queue:
             * rescan from the head. */
            bool inline_job = !job->on_pool;
            start(job);
            if (inline_job) {
                again = true;
                break;
            }
        }
    }
    st->scheduling = false;
}

void tsd_jobs_submit(tsd_job *job)
{
    tsd_store *st = job->store;

    job->started = false;
    job->dirsync = false;
    job->sync_rc = 0;
    ts_error_clear(&job->sync_err);
    job->next = NULL;
    if (st->jobs_tail != NULL)
        st->jobs_tail->next = job;
    else
        st->jobs_head = job;
    st->jobs_tail = job;
    schedule(st);
}

bool tsd_jobs_idle(const tsd_store *st, const char *key)
{
    for (const tsd_job *job = st->jobs_head; job != NULL; job = job->next) {
        if (job->read_only && key != NULL)
            continue;
        if (job->key == NULL || key == NULL || strcmp(job->key, key) == 0)
            return false;
    }
    return true;
}
