/*
 * ts_list_cache — what a listing needs of each snapshot file (its summary),
 * kept between listings of one store and keyed by the file's name and stamp,
 * so that listing an unchanged store costs a readdir and one lstat per file.
 *
 * A summary is reused only when one lstat of its file now gives the stamp
 * (dev, inode, size, mtime and ctime with nanoseconds) of the file it was
 * read from, AND that stamp's mtime and ctime were older than racy_ns before
 * the listing that read it started: a file changed within the same
 * timestamp tick as the read could change again without its stamp changing
 * (the racy-timestamp rule, ts_check_stamp_trusted), so such a
 * summary is never kept. Summaries of files that did not hold both
 * timestamps are not kept either (a parse fills those in with "now"), nor
 * are problems: an invalid file is read again by every listing.
 *
 * Memory: each listing that uses the cache replaces its contents with the
 * summaries it saw (so removed files drop out), packed in one block (about
 * 60 bytes plus the file name, name, source and both timestamps per
 * snapshot) plus an 8-byte hash slot per kept summary. The block, its slots
 * included, never exceeds what the budget leaves: summaries past it are
 * simply not kept. During a listing the old and the new block are both
 * alive for a moment.
 *
 * Thread safety: a listing holds the cache's lock from start to end, so
 * listings with one cache run one after another; the budget is shared by
 * any number of caches on any threads (atomic). Owns its block.
 */
#ifndef TS_LIST_CACHE_H
#define TS_LIST_CACHE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/snapshot/ts_snapshot.h"
#include "lib/store/ts_snapshot_scan.h"
#include "lib/store/ts_store.h"

/* Bytes all caches sharing it may hold together. */
typedef struct ts_list_budget {
    atomic_size_t used;
    size_t max;
} ts_list_budget;

typedef struct ts_list_cache ts_list_cache;

/* One snapshot's summary and the stamp of the file it was read from: one
 * allocation (or a place in a cache's block), its strings after the header. */
typedef struct ts_list_summary {
    uint64_t dev, ino, size;
    int64_t mtime_ns, ctime_ns;
    uint32_t calls;
    uint16_t file_len, name_len, source_len, created_len, updated_len;
    bool approved;
    char text[]; /* file, name, source, created_at, updated_at; each ends with NUL */
} ts_list_summary;

/* What the last listing with a cache did (for tests and logs). */
typedef struct ts_list_cache_stats {
    size_t entries; /* summaries kept now */
    size_t bytes;   /* memory they take (block and slots) */
    size_t reused;  /* files of the last listing answered from the cache */
    size_t read;    /* files of the last listing read and parsed */
} ts_list_cache_stats;

/*
 * A new empty cache charging budget (borrowed, shared; must outlive the
 * cache). racy_ns is the margin above (TS_CHECK_RACY_NS unless a test
 * needs another). -ENOMEM when out of memory.
 */
int ts_list_cache_new(ts_list_budget *budget, int64_t racy_ns, ts_list_cache **out);

/* Free the cache and give its bytes back to the budget. Not concurrent with
 * a listing that uses it. NULL is fine. */
void ts_list_cache_free(ts_list_cache *cache);

void ts_list_cache_get_stats(ts_list_cache *cache, ts_list_cache_stats *out);

/*
 * A summary of the members m (see ts_snapshot_scan.h) read from file with
 * stamp (one allocation; free()). NULL when out of memory.
 */
ts_list_summary *ts_list_summary_new(const ts_file_stamp *stamp, const char *file,
                                     const ts_snapshot_scan *m);

/* The members of s, as ts_snapshot_scan_summary gives them (pointing into s). */
void ts_list_summary_members(const ts_snapshot *s, ts_snapshot_scan *out);

/* The strings of a summary. */
const char *ts_list_summary_file(const ts_list_summary *sum);
const char *ts_list_summary_name(const ts_list_summary *sum);
const char *ts_list_summary_source(const ts_list_summary *sum);
const char *ts_list_summary_created(const ts_list_summary *sum);
const char *ts_list_summary_updated(const ts_list_summary *sum);

/* ---- for ts_store_list.c (a listing with the cache's lock held) -------- */

/* Take the cache's lock for one listing; now_ns: CLOCK_REALTIME at its start. */
void ts_list_cache__begin(ts_list_cache *cache, int64_t *now_ns);

/* The kept summary of file, or NULL. Callable from several threads at once
 * between begin and end (the cache does not change meanwhile). */
const ts_list_summary *ts_list_cache__find(const ts_list_cache *cache, const char *file);

/* True when sum, read with a listing started at now_ns, may be kept. */
bool ts_list_cache__trusted(const ts_list_cache *cache, const ts_list_summary *sum, int64_t now_ns);

/* True when the file's stamp now is the one sum was read from. */
bool ts_list_summary__same_file(const ts_list_summary *sum, const ts_file_stamp *now);

/* Release the lock, leaving the cache as it was (a listing that failed). */
void ts_list_cache__abort(ts_list_cache *cache);

/*
 * Replace the cache's contents with keep[0..n) (summaries from its block or
 * allocated; copied, not taken over), as many as the budget allows, note
 * the listing's counts and release the lock. Out of memory leaves the cache
 * empty.
 */
void ts_list_cache__end(ts_list_cache *cache, const ts_list_summary *const *keep, size_t n,
                        size_t reused, size_t read);

#endif
