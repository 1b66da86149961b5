/*
 * budget — the daemon's memory bound and the back-pressure that keeps it.
 *
 * What a connection holds is counted: the frame it is sending (the
 * reader's buffer), bytes read but not fed yet, the requests it sent that
 * are not answered (their payload bytes, twice: the bytes and their decoded
 * values), and its replies not yet taken by the socket (queued, or waiting
 * for an earlier reply). A connection is paused (the daemon stops reading
 * its requests; it reads them again later, nothing is lost) when it has
 * TSD_CONN_PAUSE_REQUESTS requests unanswered or TSD_CONN_PAUSE_REPLY_BYTES
 * of replies unread, while one of its requests is being decoded on the
 * pool (so its requests are dispatched in order), and, while the daemon is
 * over budget, when it holds more than TSD_CONN_ALLOWANCE. It is resumed
 * below half those marks. A client that does not read its replies thus
 * holds at most about a megabyte and 64 requests, and stalls in its writes.
 *
 * Over budget: connections together hold more than the connection share
 * of --memory-budget (half of it; the rest is for caches, runs, the work
 * of the pool and the allocator's slack), or the daemon's resident size,
 * sampled every TSD_BUDGET_SAMPLE_MS, is over 90% of the budget (until it
 * is back under 75%). What runs hold in memory counts in that share too.
 */
#ifndef TSD_BUDGET_H
#define TSD_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/ts_base.h"

#define TSD_BUDGET_SAMPLE_MS 100              /* resident size sampled this often */
#define TSD_CONN_PAUSE_REQUESTS 64            /* unanswered requests that pause */
#define TSD_CONN_PAUSE_REPLY_BYTES (1u << 20) /* unread reply bytes that pause */
#define TSD_CONN_ALLOWANCE (256u << 10)       /* held while over budget, still read */
#define TSD_CONN_READ_CHUNK (64u << 10)       /* bytes read at once per connection */

struct tsd_conn;
struct tsd_server;

typedef struct tsd_budget {
    size_t limit;      /* resident memory budget in bytes */
    size_t conn_limit; /* what connections (and runs) may hold together */
    size_t held;       /* what connections hold now (sum of their counts) */
    size_t runs_held;  /* what runs hold in memory (sampled) */
    size_t rss;        /* resident size at the last sample */
    size_t rss_peak;   /* largest sample */
    size_t held_peak;  /* largest held + runs_held */
    bool rss_over;     /* the resident size is over 90% of the limit */
    size_t paused;     /* connections paused now */
    uint64_t pauses;   /* times a connection was paused, since the start */
} tsd_budget;

/* Set the limit (bytes; 0: the default). */
void tsd_budget_init(tsd_budget *b, size_t limit);

/* What conn holds now (see above), in bytes. */
size_t tsd_conn_holdings(const struct tsd_conn *conn);

/* True when the daemon is over budget (see above). */
bool tsd_budget_over(const tsd_budget *b);

/*
 * Whether conn should not be read now: with resuming false, the marks that
 * pause a reading connection; with resuming true, the lower marks a paused
 * one must be under to be read again.
 */
bool tsd_conn_should_wait(const struct tsd_server *srv, const struct tsd_conn *conn, bool resuming);

/*
 * The memory of heavy jobs (jobs.h): one of estimate bytes may start while
 * heavy jobs of running bytes run when all that, what connections and
 * runs hold, stays under 85% of the limit (the rest is the daemon itself
 * and the allocator's slack). tsd_budget_refuse: an estimate over 60% of
 * the limit can never be admitted: -E2BIG ("limit", naming the budget)
 * for the request at once.
 */
bool tsd_budget_admits(const tsd_budget *b, size_t running, size_t estimate);
int tsd_budget_refuse(const tsd_budget *b, size_t estimate, const char *what, ts_error *err);

/* Sample the resident size. runs_held: what the runs hold now. */
void tsd_budget_sample(tsd_budget *b, size_t runs_held);

#endif
