/*
 * ts_store — a directory of snapshot files (the snapshot root).
 *
 * Owns the root's directory descriptor. Every file is opened relative to it
 * with O_NOFOLLOW, so no name and no symbolic link can reach outside the root.
 * An absent root is an empty store; it is created (mkdir -p) on the first
 * write. Writes are durable: temp file ".<file>.<random>.tmp" in the root,
 * write, fsync, rename over the target, fsync the root. Any failure leaves the
 * previous file intact and is returned.
 *
 * Thread safety: functions on one store may run from several threads at once
 * as long as no two touch the same snapshot name at the same time (the daemon
 * serializes per name); ts_store_open/close are not concurrent with anything.
 * Concurrent saves, removes and syncs of one store share their directory
 * fsyncs (group commit): each still returns only after an fsync of the root
 * that started after its own change was made.
 */
#ifndef TS_STORE_H
#define TS_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/ts_error.h"
#include "lib/snapshot/ts_snapshot.h"

typedef struct ts_store ts_store;

/* What a file looked like when read: enough to notice it changed. */
typedef struct ts_file_stamp {
    uint64_t dev, ino, size;
    int64_t mtime_ns, ctime_ns;
    bool exists;
} ts_file_stamp;

/* A file in the root that is not a readable snapshot. */
typedef struct ts_store_problem {
    char *file;    /* file name relative to the root */
    char *message; /* why it could not be read */
} ts_store_problem;

typedef struct ts_store_listing {
    ts_snapshot **items; /* sorted by name (byte order) */
    char **files;        /* files[i] is the file name of items[i] */
    size_t count;
    ts_store_problem *problems; /* unreadable files and name/hash mismatches */
    size_t problem_count;
} ts_store_listing;

/* What a listing needs of one snapshot (ts_store_list_summaries). */
typedef struct ts_store_summary {
    char *name;   /* owned, or in the listing's strings (see below) */
    char *file;   /* the same: file name relative to the root */
    char *source; /* the same */
    bool approved;
    size_t calls; /* how many calls */
    char created_at[TS_TIMESTAMP_MAX];
    char updated_at[TS_TIMESTAMP_MAX];
} ts_store_summary;

typedef struct ts_store_summaries {
    ts_store_summary *items; /* sorted by name (byte order) */
    size_t count;
    ts_store_problem *problems; /* as in ts_store_listing */
    size_t problem_count;
    char *strings; /* when set, the items' name, file and source point into it
                    * (owned; freed with it) instead of being owned one by one */
} ts_store_summaries;

typedef struct ts_list_cache ts_list_cache; /* ts_list_cache.h */

/* Flags for ts_store_save / ts_store_remove. */
#define TS_STORE_NO_DIRSYNC 0x1 /* caller will ts_store_sync() (batching) */
/* Mode of the files a store creates, before the umask (never the mode of
 * the file replaced). */
#define TS_STORE_FILE_MODE 0644

/*
 * Open the store at root (a path; need not exist yet). Does not create it.
 * Returns 0 or a negative code (-ENOTDIR if root exists and is no directory).
 */
int ts_store_open(const char *root, ts_store **out, ts_error *err);
void ts_store_close(ts_store *store);
const char *ts_store_root(const ts_store *store);

/*
 * True when the store holds its root open and that directory is the one with
 * this dev/ino (e.g. from one stat() of a path: the path still names the
 * store's root). False while the root is not open. Thread-safe.
 */
bool ts_store_root_is(const ts_store *store, uint64_t dev, uint64_t ino);

/* The file path (root + "/" + file name) for name into out. */
int ts_store_path(const ts_store *store, const char *name, char *out, size_t outsz, ts_error *err);

/* Load a snapshot by name. -ENOENT ("not_found") when there is none.
 * stamp (optional) receives the identity of the file that was read. */
int ts_store_load(ts_store *store, const char *name, ts_snapshot **out, ts_file_stamp *stamp,
                  ts_error *err);

/* ts_store_load of a file of at most max_bytes: a larger one is -EFBIG
 * ("too_large") without being read (the caller reads it elsewhere). */
int ts_store_load_small(ts_store *store, const char *name, size_t max_bytes, ts_snapshot **out,
                        ts_file_stamp *stamp, ts_error *err);

/* Stat the file of name without reading it (stamp->exists false if absent). */
int ts_store_stat(ts_store *store, const char *name, ts_file_stamp *stamp, ts_error *err);

/*
 * Durably write s under its name (creating the root if needed): a temp file,
 * fsynced, renamed into place, the root fsynced. Concurrent saves of one
 * store share the renames and the root's fsync (group commit,
 * ts_store_commit.c).
 */
int ts_store_save(ts_store *store, const ts_snapshot *s, int flags, ts_error *err);

/*
 * ts_store_save that also tells, on an error, whether the new file had
 * already replaced the old one (*placed): the root's fsync failed after the
 * rename, so readers see the new content but a crash may lose it.
 */
int ts_store_save_placed(ts_store *store, const ts_snapshot *s, int flags, bool *placed,
                         ts_error *err);

/* Durably remove the snapshot name. -ENOENT when there is none. */
int ts_store_remove(ts_store *store, const char *name, int flags, ts_error *err);

/*
 * fsync the root directory (after saves made with TS_STORE_NO_DIRSYNC):
 * returns once an fsync of the root that started after the call began has
 * returned, with that fsync's result; concurrent callers (and concurrent
 * saves) share one fsync (a commit round). 0 when the root does not exist.
 */
int ts_store_sync(ts_store *store, ts_error *err);

/* Load, set approved=true and updated_at=now, save. -ENOENT if missing. */
int ts_store_approve(ts_store *store, const char *name, ts_error *err);

/* Every snapshot in the root, sorted by name; unreadable files reported.
 * A file whose name does not hash to its file name is a problem, not an item,
 * so every item can be loaded by its name. Hidden files are skipped. */
int ts_store_list(ts_store *store, ts_store_listing *out, ts_error *err);
void ts_store_listing_free(ts_store_listing *listing);

/*
 * ts_store_list keeping only each snapshot's summary: every file is read and
 * validated exactly as ts_store_list does (the same items and problems), but
 * each parsed snapshot is freed at once, so a listing of many snapshots
 * holds a few hundred bytes per snapshot instead of its parsed calls.
 */
int ts_store_list_summaries(ts_store *store, ts_store_summaries *out, ts_error *err);
void ts_store_summaries_free(ts_store_summaries *summaries);

/*
 * ts_store_list_summaries that takes the summary of each file whose stamp
 * did not change from cache (see ts_list_cache.h) instead of reading it, and
 * leaves in cache what this listing saw. The result is the one
 * ts_store_list_summaries would give (the same items, problems and order).
 * cache NULL: exactly ts_store_list_summaries.
 */
int ts_store_list_summaries_cached(ts_store *store, ts_list_cache *cache, ts_store_summaries *out,
                                   ts_error *err);

/* Remove stray ".*.tmp" files left by a crash. Returns how many, or < 0. */
int ts_store_cleanup_temp(ts_store *store, ts_error *err);

/*
 * Whether users other than ours (and root) can write the store's root, or
 * its parent when that is a project's `.toolscore` directory: owned by
 * another user, writable by every user, or writable by a group other than
 * the owner's private group. Returns 1 with why (one line naming the
 * directory, the owner or group, and the mode) filled, 0 when not (or when
 * the root does not exist yet), or a negative code.
 * ts_store_exposure_of applies the same rule to one directory's stat.
 */
struct stat;
int ts_store_exposure(ts_store *store, char *why, size_t whysz, ts_error *err);
int ts_store_exposure_of(const char *dir, const struct stat *st, char *why, size_t whysz);

/* True when both stamps describe the same version of the same file. */
bool ts_file_stamp_equal(const ts_file_stamp *a, const ts_file_stamp *b);

/* The stamp of what a stat() of a file that exists found. */
struct stat;
void ts_file_stamp_from_stat(const struct stat *st, ts_file_stamp *stamp);

#endif
