/*
 * jobs — per-store, per-snapshot ordering of work: each store's queue
 * (tsd_job_queue; see server.h).
 */
#include "daemon/server/server.h"

#include <malloc.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool conflicts(const tsd_job *a, const tsd_job *b)
{
    return a->key == NULL || b->key == NULL || strcmp(a->key, b->key) == 0;
}

static void schedule(tsd_job_queue *q);

/* Heavy jobs running now, and the stores whose heavy job waits for them
 * (each store once: its flag). */
static unsigned heavy_running;
static size_t heavy_bytes; /* their estimates */
static tsd_job_queue *heavy_waiting[TSD_JOBS_QUEUES_MAX];
static size_t heavy_waiting_count;
static tsd_jobs_admit_fn admit_fn;
static void *admit_arg;

void tsd_jobs_set_admit(tsd_jobs_admit_fn fn, void *arg)
{
    admit_fn = fn;
    admit_arg = arg;
}

size_t tsd_jobs_heavy_bytes(void)
{
    return heavy_bytes;
}

/* True when a heavy job must wait: another runs, or its memory is not
 * there yet. */
static bool heavy_must_wait(const tsd_job *job)
{
    return heavy_running >= TSD_JOBS_HEAVY_MAX ||
           (admit_fn != NULL && !admit_fn(heavy_bytes, job->estimate, admit_arg));
}

static void wait_heavy(tsd_job_queue *q)
{
    if (q->heavy_waiting || heavy_waiting_count == TSD_JOBS_QUEUES_MAX)
        return;
    q->heavy_waiting = true;
    heavy_waiting[heavy_waiting_count++] = q;
}

/* A heavy job ended: the stores whose heavy job waited are scanned again
 * (the first to start takes the slot; the others wait again). */
static void wake_heavy(void)
{
    tsd_job_queue *waiting[TSD_JOBS_QUEUES_MAX];
    size_t n = heavy_waiting_count;

    memcpy(waiting, heavy_waiting, n * sizeof(waiting[0]));
    heavy_waiting_count = 0;
    for (size_t i = 0; i < n; i++)
        waiting[i]->heavy_waiting = false;
    /* schedule() marks again the stores whose heavy job must still wait */
    for (size_t i = 0; i < n; i++)
        if (!waiting[i]->scheduling)
            schedule(waiting[i]);
}

void tsd_jobs_retry_heavy(void)
{
    if (heavy_waiting_count > 0 && heavy_running < TSD_JOBS_HEAVY_MAX)
        wake_heavy();
}

void tsd_jobs_forget(tsd_job_queue *q)
{
    for (size_t i = 0; i < heavy_waiting_count; i++)
        if (heavy_waiting[i] == q)
            heavy_waiting[i--] = heavy_waiting[--heavy_waiting_count];
}

static void unlink_job(tsd_job_queue *q, tsd_job *job)
{
    tsd_job **p = &q->head;

    while (*p != NULL && *p != job)
        p = &(*p)->next;
    if (*p == NULL)
        return;
    *p = job->next;
    if (q->tail == job) {
        q->tail = NULL;
        for (tsd_job *j = q->head; j != NULL; j = j->next)
            q->tail = j;
    }
}

/* The job finished: drop it from the queue, report, start what it held up. */
static void finish(tsd_job *job)
{
    tsd_job_queue *q = job->queue;
    bool heavy = job->heavy;

    unlink_job(q, job);
    if (heavy) {
        heavy_running--;
        heavy_bytes -= job->estimate;
    }
    job->done_fn(job); /* may free job */
    /* Inside schedule() (an inline job) the scan resumes by itself. */
    if (!q->scheduling)
        schedule(q);
    if (heavy)
        wake_heavy();
}

static void on_pool_work(uv_work_t *req)
{
    tsd_job *job = (tsd_job *)req;

    job->work_fn(job);
    /* what a heavy job parsed is freed now: give it back to the system
     * (this thread's heap would otherwise keep it resident) */
    if (job->heavy)
        malloc_trim(0);
}

static void on_pool_done(uv_work_t *req, int status)
{
    (void)status; /* never cancelled: uv_cancel is not used */
    finish((tsd_job *)req);
}

static void start(tsd_job *job)
{
    job->started = true;
    if (job->heavy) {
        heavy_running++;
        heavy_bytes += job->estimate;
    }
    if (job->on_pool && uv_queue_work(job->loop, &job->work, on_pool_work, on_pool_done) == 0)
        return;
    job->work_fn(job);
    finish(job);
}

/*
 * Start every queued job that no earlier job blocks. Jobs before a blocked
 * whole-store job cannot be overtaken past it, so the scan stops there.
 */
static void schedule(tsd_job_queue *q)
{
    bool again = true;

    q->scheduling = true;
    while (again) {
        again = false;
        for (tsd_job *job = q->head; job != NULL; job = job->next) {
            bool blocked = false;

            if (job->started)
                continue;
            for (tsd_job *earlier = q->head; earlier != job; earlier = earlier->next) {
                if (earlier->read_only && job->key != NULL)
                    continue;
                if (conflicts(earlier, job)) {
                    blocked = true;
                    break;
                }
            }
            /* a heavy job waits for the one running (server.h) */
            if (!blocked && job->heavy && heavy_must_wait(job)) {
                wait_heavy(q);
                blocked = true;
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
    q->scheduling = false;
}

void tsd_jobs_size_pool(void)
{
    static bool sized;
    char threads[16];

    if (sized)
        return;
    sized = true;
    snprintf(threads, sizeof(threads), "%d", TSD_JOBS_POOL_THREADS);
    setenv("UV_THREADPOOL_SIZE", threads, 0);
}

void tsd_jobs_submit(tsd_job *job)
{
    tsd_job_queue *q = job->queue;

    tsd_jobs_size_pool();

    job->started = false;
    job->sync_rc = 0;
    ts_error_clear(&job->sync_err);
    job->next = NULL;
    if (q->tail != NULL)
        q->tail->next = job;
    else
        q->head = job;
    q->tail = job;
    schedule(q);
}

bool tsd_jobs_idle(const tsd_job_queue *q, const char *key)
{
    for (const tsd_job *job = q->head; job != NULL; job = job->next) {
        if (job->read_only && key != NULL)
            continue;
        if (job->key == NULL || key == NULL || strcmp(job->key, key) == 0)
            return false;
    }
    return true;
}
