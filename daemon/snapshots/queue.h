/*
 * queue — the review queue of one store, read on a pool thread for the
 * methods that work on it (review, accept, reject; diff for one name):
 * the pending snapshots and the kept observations, each name once, with
 * its snapshot and its observation read and matched.
 *
 * An observation matches when the snapshot it was compared with is still
 * the one on disk (the id of the snapshot's calls equals the observation's
 * baseline); one that does not (the snapshot changed or went away since:
 * a checkout, an edit, another tool) or whose file is no observation is
 * superseded: the methods drop it. Runs inside a whole-store job (or, for
 * one name, a job of its file), so nothing of the store changes meanwhile.
 */
#ifndef TSD_QUEUE_H
#define TSD_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "daemon/snapshots/stores.h"
#include "lib/store/ts_store.h"
#include "lib/snapshot/ts_snapshot.h"
#include "lib/check/ts_check.h"

typedef struct tsd_queue_item {
    char *name;                 /* owned */
    char file[TS_FILENAME_MAX]; /* the snapshot's file name (its observation's too) */
    ts_snapshot *snapshot;      /* NULL: no file, or not read (a pending one listed) */
    bool exists;                /* a snapshot file is there */
    bool approved;              /* the snapshot's, when there is one */
    size_t calls;               /* the snapshot's calls */
    ts_observation *obs;        /* the kept observation, or NULL */
    bool obs_file;              /* an observation file is there (obs NULL: unreadable) */
    bool matches;               /* obs was compared with the snapshot on disk now */
    char *problem;              /* tsd_queue_read: why the snapshot file is unreadable
                                 * (owned; such an item is neither changed nor dropped) */
} tsd_queue_item;

typedef struct tsd_queue {
    tsd_queue_item *items; /* sorted by name */
    size_t count;
    char **bad_files; /* observation files that are no observation (to drop) */
    size_t bad_count;
} tsd_queue;

/* The snapshot file name of name into item->file and its name copied. */
int tsd_queue_item_init(tsd_queue_item *item, const char *name, ts_error *err);

/*
 * Read item's snapshot and observation and match them. An unreadable
 * snapshot file is an error ("invalid_snapshot", as show says it); an
 * unreadable observation leaves obs NULL with obs_file set.
 */
int tsd_queue_load(tsd_store *st, tsd_queue_item *item, ts_error *err);

/*
 * The whole queue: every kept observation (only those kept by checks of
 * run, when run is not NULL) and every pending snapshot (a pending
 * snapshot belongs to no run).
 * Pending snapshots without an observation are not read whole (approved
 * and calls come from the listing, snapshot stays NULL) unless full.
 * Observation files that are no observation are named in bad_files for
 * the caller to drop; a snapshot file that cannot be read leaves its item
 * with problem set.
 */
int tsd_queue_read(tsd_store *st, ts_list_cache *cache, const char *run, bool full, tsd_queue *out,
                   ts_error *err);

/*
 * The queue of names (each must be a snapshot or have an observation;
 * "not_found" naming the first that is neither, nothing else read).
 * Duplicate names are taken once.
 */
int tsd_queue_of_names(tsd_store *st, const struct json_object *names, tsd_queue *out,
                       ts_error *err);

void tsd_queue_free(tsd_queue *q);

/*
 * item's observed calls scored against its snapshot's calls with the
 * options and rules of the check that kept them, and the drift report
 * (width, colour, the JSON diff below it or not), as the check reported it:
 * *score (ts_score_result_to_json) and *report (malloc'ed text). item's
 * observation matches (tsd_queue_load).
 */
int tsd_queue_drift(const tsd_queue_item *item, size_t width, bool color, bool json_diff,
                    struct json_object **score, char **report, ts_error *err);

#endif
