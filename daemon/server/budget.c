/*
 * budget — counting what connections hold and deciding when to stop
 * reading them (see server_internal.h).
 */
#include "server_internal.h"

#include <stdio.h>
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
}

size_t tsd_conn_holdings(const tsd_conn *conn)
{
    return conn->reader.cap + conn->pending_len + 2 * conn->request_bytes + conn->queued_bytes +
           conn->waiting_bytes;
}

bool tsd_budget_over(const tsd_budget *b)
{
    return b->rss_over || b->held + b->modules_held > b->conn_limit ||
           b->held + b->modules_held + tsd_jobs_heavy_bytes() > b->limit / 100 * 85;
}

bool tsd_budget_admits(const tsd_budget *b, size_t running, size_t estimate)
{
    return b->held + b->modules_held + running + estimate <= b->limit / 100 * 85;
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

/* Resident pages of this process, from /proc/self/statm, in bytes. */
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
