/*
 * observations — the kept observations of one open store: the observed
 * calls of each FAILED check and of each PENDING check whose calls differ
 * from the recording (lib/ts_check decides, lib/ts_observation is the
 * file), one file per name in STATE/stores/<key>/observations/<the
 * snapshot's file name>, kept until accepted, rejected or superseded
 * (docs/internals/state.md).
 *
 * The store's directory descriptor is opened (created) when the store is,
 * and its index read then: which snapshot files have an observation, its
 * size and age. The index is the loop thread's: a loop replay asks it
 * whether a passing check has an observation to drop, and a job's done
 * callback notes what its pool thread wrote or removed. Pool threads read,
 * write and remove the files through the descriptor, never the index.
 *
 * Bounded per store: at most TSD_OBS_MAX_COUNT observations and
 * TSD_OBS_MAX_BYTES of files together; past either, noting a new one
 * removes the oldest whose snapshot file has no job queued or running. An
 * observation over TS_OBSERVATION_MAX_BYTES is not kept. Files are
 * written whole (temp file, rename) without fsync: they survive a daemon
 * crash, and after a power loss one may be missing, never torn.
 */
#ifndef TSD_OBSERVATIONS_H
#define TSD_OBSERVATIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/ts_base.h"
#include "lib/check/ts_check.h"

#define TSD_OBS_MAX_COUNT 1000        /* observations kept per store */
#define TSD_OBS_MAX_BYTES (64u << 20) /* their files together, per store */

struct lh_table;
struct tsd_store;

typedef struct tsd_obs {
    int dir;                /* the observations directory, -1: none kept for this store */
    struct lh_table *index; /* file name -> entry (loop thread only) */
    size_t count;
    size_t bytes;
    uint64_t seq; /* age order of the entries: larger is newer */
} tsd_obs;

/*
 * Open root's observations directory under state (creating it) and read
 * its index (files of a crash's temp names removed). A failure is logged
 * and leaves obs without a directory: the store then keeps nothing. Loop
 * thread, when the store is opened.
 */
void tsd_obs_open(tsd_obs *obs, const ts_state *state, const char *root);

/* Close the directory and free the index (the files stay). */
void tsd_obs_close(tsd_obs *obs);

/* Whether file (a snapshot file name, no directory) has an observation. */
bool tsd_obs_has(const tsd_obs *obs, const char *file);

/*
 * A job wrote file's observation (bytes long): note it as the newest, then
 * remove the oldest observations of st past the bounds (never file, nor one
 * whose snapshot file has a job queued or running). Loop thread.
 */
void tsd_obs_noted(struct tsd_store *st, const char *file, size_t bytes);

/* A job removed file's observation (or found it gone). Loop thread. */
void tsd_obs_forget(tsd_obs *obs, const char *file);

/* ---- the files (any thread) ---------------------------------------------- */

/* The snapshot file name of a path ("/root/n-1a2b3c4d.json" -> "n-1a2b3c4d.json"). */
const char *tsd_obs_file_of(const char *path);

/*
 * Write o as file's observation, replacing one; *bytes is the file's size.
 * "not_found" when the store keeps none (no directory), "too_large" when o
 * is over TS_OBSERVATION_MAX_BYTES (nothing written).
 */
int tsd_obs_write(const tsd_obs *obs, const char *file, const ts_observation *o, size_t *bytes,
                  ts_error *err);

/* Remove file's observation; 1 when one was removed, 0 when there was none. */
int tsd_obs_remove(const tsd_obs *obs, const char *file, ts_error *err);

/*
 * Read file's observation. -ENOENT ("not_found") when there is none;
 * "invalid_snapshot" for a file that is no observation or belongs to
 * another name (the file name is not the name's).
 */
int tsd_obs_read(const tsd_obs *obs, const char *file, ts_observation **out, ts_error *err);

/* The file names of every observation, sorted (ts_state_names_free). */
int tsd_obs_list(const tsd_obs *obs, char ***files, size_t *count, ts_error *err);

#endif
