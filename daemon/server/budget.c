/*
 * budget — counting what connections hold and deciding when to stop
 * reading them (see server_internal.h).
 */
#include "server_internal.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

void tsd_budget_init(tsd_budget *b, size_t limit)
{
    b->limit = limit > 0 ? limit : TSD_DEFAULT_MEMORY_BUDGET;
    b->conn_limit = b->limit / 2;
    b->held = 0;
    b->modules_held = 0;
    b->rss = 0;
    b->rss_peak = 0;
    b->held_peak = 0;
    b->rss_over = false;
    b->paused = 0;
    b->pauses = 0;
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->given, NULL);
    atomic_init(&b->values, 0);
    b->values_peak = 0;
    b->loop_held = 0;
    b->freed = 0;
    b->refused = 0;
    b->trimming = false;
    b->trimmed_ms = 0;
    b->loop_thread = pthread_self();
}

void tsd_budget_done(tsd_budget *b)
{
    pthread_cond_destroy(&b->given);
    pthread_mutex_destroy(&b->lock);
}

size_t tsd_budget_values(const tsd_budget *b)
{
    return atomic_load(&b->values);
}

void tsd_budget_publish(tsd_budget *b)
{
    pthread_mutex_lock(&b->lock);
    b->loop_held = b->held + b->modules_held;
    pthread_mutex_unlock(&b->lock);
}

static size_t mib(size_t bytes)
{
    return (bytes + (1u << 20) - 1) >> 20;
}

/* Room for bytes more values now (b->lock held). */
static bool room_for(const tsd_budget *b, size_t bytes)
{
    return b->loop_held + atomic_load(&b->values) + bytes <=
           b->limit / 100 * TSD_MEMORY_ROOM_PERCENT;
}

int tsd_budget_take(tsd_budget *b, size_t bytes, unsigned wait_ms, bool force, const char *what,
                    ts_error *err)
{
    struct timespec until;
    size_t one = b->limit / 100 * TSD_MEMORY_ONE_PERCENT;
    size_t in_use;

    if (bytes > one && !force) {
        pthread_mutex_lock(&b->lock);
        b->refused++;
        pthread_mutex_unlock(&b->lock);
        return ts_error_set(err, -E2BIG, TS_ERR_TOO_LARGE,
                            "%s would take %zu MiB of memory once read (its values as the "
                            "daemon builds them), more than one request or snapshot may take: "
                            "%zu MiB, %d%% of this daemon's --memory-budget of %zu MiB",
                            what, mib(bytes), mib(one), TSD_MEMORY_ONE_PERCENT, mib(b->limit));
    }
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += wait_ms / 1000;
    until.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&b->lock);
    while (!force && !room_for(b, bytes)) {
        if (wait_ms == 0 || pthread_cond_timedwait(&b->given, &b->lock, &until) == ETIMEDOUT)
            break;
    }
    if (force || room_for(b, bytes)) {
        size_t now = atomic_fetch_add(&b->values, bytes) + bytes;

        if (now > b->values_peak)
            b->values_peak = now;
        pthread_mutex_unlock(&b->lock);
        return 0;
    }
    in_use = b->loop_held + atomic_load(&b->values);
    b->refused++;
    pthread_mutex_unlock(&b->lock);
    return ts_error_set(err, -EBUSY, TS_ERR_BUSY,
                        "%s needs %zu MiB of memory and this daemon has no room for it now: "
                        "%zu MiB of its --memory-budget of %zu MiB are taken by other requests "
                        "and snapshots (%d%% may be); try again once they are done",
                        what, mib(bytes), mib(in_use), mib(b->limit), TSD_MEMORY_ROOM_PERCENT);
}

void tsd_budget_give(tsd_budget *b, size_t bytes)
{
    if (bytes == 0)
        return;
    pthread_mutex_lock(&b->lock);
    atomic_fetch_sub(&b->values, bytes);
    b->freed += bytes;
    pthread_cond_broadcast(&b->given);
    pthread_mutex_unlock(&b->lock);
}

int tsd_server_memory_take(tsd_server *srv, size_t bytes, unsigned wait_ms, const char *what,
                           ts_error *err)
{
    /* the loop never waits: it is what would make room */
    if (pthread_equal(pthread_self(), srv->budget.loop_thread))
        wait_ms = 0;
    return tsd_budget_take(&srv->budget, bytes, wait_ms, false, what, err);
}

void tsd_server_memory_give(tsd_server *srv, size_t bytes)
{
    tsd_budget_give(&srv->budget, bytes);
}

typedef struct trim_job {
    uv_work_t work;
    tsd_server *srv;
    size_t before, after; /* resident bytes around the trim */
} trim_job;

/* Resident pages of this process, from /proc/self/statm, in bytes. */
static size_t resident_bytes(void);

static void trim_work(uv_work_t *work)
{
    trim_job *t = work->data;

    t->before = resident_bytes();
    malloc_trim(0); /* every arena: the pool threads' too */
    t->after = resident_bytes();
}

static void trim_done(uv_work_t *work, int status)
{
    trim_job *t = work->data;

    (void)status;
    tsd_debug("heap trimmed: resident %zu MiB -> %zu MiB", t->before >> 20, t->after >> 20);
    t->srv->budget.trimming = false;
    free(t);
}

void tsd_budget_trim(tsd_server *srv, uint64_t now)
{
    tsd_budget *b = &srv->budget;
    size_t freed;
    bool wanted;
    trim_job *t;

    if (b->trimming || now - b->trimmed_ms < 200)
        return;
    pthread_mutex_lock(&b->lock);
    freed = b->freed;
    /* much given back, or resident over the budget with little held */
    wanted = freed >= TSD_MEMORY_TRIM_BYTES ||
             (b->rss > b->limit / 4 * 3 && b->loop_held + atomic_load(&b->values) < b->limit / 2 &&
              now - b->trimmed_ms >= 1000);
    if (wanted)
        b->freed = 0;
    pthread_mutex_unlock(&b->lock);
    if (!wanted || (t = malloc(sizeof(*t))) == NULL)
        return;
    t->srv = srv;
    t->work.data = t;
    b->trimming = true;
    b->trimmed_ms = now;
    if (uv_queue_work(srv->loop, &t->work, trim_work, trim_done) < 0) {
        b->trimming = false;
        free(t);
    }
}

size_t tsd_conn_holdings(const tsd_conn *conn)
{
    return conn->reader.cap + conn->pending_len + 2 * conn->request_bytes + conn->queued_bytes +
           conn->waiting_bytes;
}

bool tsd_budget_over(const tsd_budget *b)
{
    size_t values = tsd_budget_values(b);

    return b->rss_over || b->held + b->modules_held + values > b->conn_limit ||
           b->held + b->modules_held + values + tsd_jobs_heavy_bytes() > b->limit / 100 * 85;
}

bool tsd_budget_admits(const tsd_budget *b, size_t running, size_t estimate)
{
    return b->held + b->modules_held + tsd_budget_values(b) + running + estimate <=
           b->limit / 100 * 85;
}

int tsd_budget_refuse(const tsd_budget *b, size_t estimate, const char *what, ts_error *err)
{
    if (estimate <= b->limit / 100 * 60)
        return 0;
    return ts_error_set(err, -E2BIG, TS_ERR_LIMIT,
                        "%s would take about %zu MiB of memory, more than this daemon's memory "
                        "budget of %zu MiB allows (--memory-budget)",
                        what, estimate >> 20, b->limit >> 20);
}

bool tsd_conn_waits_for_budget(const tsd_server *srv, const tsd_conn *conn)
{
    if (!conn->paused || conn->decoding > 0 || conn->request_count >= TSD_CONN_PAUSE_REQUESTS / 2 ||
        conn->queued_bytes + conn->waiting_bytes >= TSD_CONN_PAUSE_REPLY_BYTES / 2)
        return false;
    return tsd_budget_over(&srv->budget);
}

bool tsd_conn_should_wait(const tsd_server *srv, const tsd_conn *conn, bool resuming)
{
    size_t requests = resuming ? TSD_CONN_PAUSE_REQUESTS / 2 : TSD_CONN_PAUSE_REQUESTS;
    size_t replies = resuming ? TSD_CONN_PAUSE_REPLY_BYTES / 2 : TSD_CONN_PAUSE_REPLY_BYTES;
    const tsd_budget *b = &srv->budget;

    if (conn->decoding > 0 || conn->request_count >= requests ||
        conn->queued_bytes + conn->waiting_bytes >= replies)
        return true;
    if (!tsd_budget_over(b))
        return false;
    /* over budget: only connections holding little are read */
    return tsd_conn_holdings(conn) > (resuming ? TSD_CONN_ALLOWANCE / 2 : TSD_CONN_ALLOWANCE);
}

static size_t resident_bytes(void)
{
    unsigned long size = 0;
    unsigned long resident = 0;
    FILE *f = fopen("/proc/self/statm", "re");

    if (f == NULL)
        return 0;
    if (fscanf(f, "%lu %lu", &size, &resident) != 2)
        resident = 0;
    fclose(f);
    return (size_t)resident * (size_t)sysconf(_SC_PAGESIZE);
}

void tsd_budget_sample(tsd_budget *b, size_t modules_held)
{
    size_t rss = resident_bytes();

    b->modules_held = modules_held;
    if (rss == 0)
        return;
    b->rss = rss;
    if (rss > b->rss_peak)
        b->rss_peak = rss;
    if (b->held + b->modules_held > b->held_peak)
        b->held_peak = b->held + b->modules_held;
    if (rss > b->limit / 10 * 9)
        b->rss_over = true;
    else if (rss < b->limit / 4 * 3)
        b->rss_over = false;
}
