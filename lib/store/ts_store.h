/*
 * lib/store — where snapshots live: the snapshot root directory and its
 * durable writes (ts_store: temp file, fsync, rename, group commit), the
 * listing of a root (a quick scan of each file's head, ts_snapshot_scan,
 * and the summaries kept between listings, ts_list_cache), the lock that
 * gives a store one daemon (ts_store_lock) and the project rule that picks
 * a root when none is given (ts_project). Every file is reached through
 * the root's descriptor; no name can leave the root.
 */
#ifndef TS_STORE_H
#define TS_STORE_H

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/base/ts_base.h"
#include "lib/snapshot/ts_snapshot.h"

/*
 * ts_store_lock — one store, one daemon: an exclusive lock (flock) on a
 * file beside or inside a snapshot root, recording who holds it.
 *
 * Two daemons writing one store both create the same missing snapshot or
 * undo each other's approvals; the lock makes the second one refuse the
 * store ("store_busy", naming the holder's socket) so that clients go to
 * the holder instead (docs/security.md, docs/protocol.md "store_busy").
 *
 * Where: for a root whose parent is a project's `.toolscore` directory
 * (`<project>/.toolscore/snapshots`), `<project>/.toolscore/<root's name>.lock`,
 * so the snapshot directory holds nothing but snapshots; for any other
 * root, `<root>/.toolscored.lock` (a dot file: listings skip it). The file
 * holds "<pid>\n<socket>\n" of its holder. The lock goes with the holder's
 * process (the kernel drops it at exit, also after kill -9); a holder that
 * lets go removes the file first.
 *
 * Not thread-safe by itself: one owner (the daemon's loop thread) takes and
 * releases locks.
 */
#define TS_ERR_STORE_BUSY "store_busy" /* another daemon holds the store */
#define TS_STORE_LOCK_SOCKET_MAX 4096  /* longest socket path recorded */
#define TS_STORE_LOCK_UNLOCKABLE 2     /* ts_store_lock_take: no right to lock */

typedef struct ts_store_lock ts_store_lock;

/* Who holds a lock another process has. */
typedef struct ts_store_lock_owner {
    long pid;                              /* 0 when it could not be read */
    char socket[TS_STORE_LOCK_SOCKET_MAX]; /* "" when it could not be read */
} ts_store_lock_owner;

/*
 * The lock file of the store at root (absolute): its directory into dir,
 * its name into name. -ENAMETOOLONG when a buffer is too small.
 */
int ts_store_lock_where(const char *root, char *dir, size_t dirsz, char *name, size_t namesz);

/*
 * Take the lock of the store at root for this process, recording pid and
 * socket (the daemon's socket path, what clients are sent to). With
 * create, the lock's directory is made first when missing (mkdir -p, 0755
 * minus the umask); without, a missing directory takes nothing.
 *
 * Returns 0 with *out held; 1 when the directory does not exist and create
 * is false (*out NULL: no store on disk to guard yet);
 * TS_STORE_LOCK_UNLOCKABLE (err says why) when this process may not create
 * the lock file there (a read-only checkout, a directory of another
 * user's): an existing lock file is then locked read-only (0, nothing
 * recorded in it), else nothing is taken; -EBUSY ("store_busy") when
 * another process holds it: *owner says who (its pid and socket as far as
 * the file tells) and the message names them; another negative code
 * ("io") when the file cannot be made or locked.
 */
int ts_store_lock_take(const char *root, const char *socket, bool create, ts_store_lock **out,
                       ts_store_lock_owner *owner, ts_error *err);

/* True while the file at the lock's path is still the one locked (not
 * removed or replaced). */
bool ts_store_lock_held(const ts_store_lock *lock);

/* Let go: remove the file when it is still the one locked, close, free.
 * NULL is fine. */
void ts_store_lock_release(ts_store_lock *lock);

/*
 * ts_project — the project a command runs in: which snapshot root it uses
 * when none is given (no --dir, no TOOLSCORE_DIR), found from the directory
 * it starts in (docs/snapshots.md, "The store"):
 *
 * 1. the nearest `.toolscore/snapshots` walking up from the start
 *    directory, stopping at the repository root (the first directory on
 *    the way that holds `.git`, a directory or a worktree's file) or at `/`;
 * 2. if there is none, `.toolscore/snapshots` under that repository root;
 * 3. outside a repository, `.toolscore/snapshots` under the start directory.
 *
 * So `cd sub && tsctl check ...` uses the project's store, never a second
 * one in `sub/`. Shared by tsctl and the Python package (the pytest plugin
 * keeps pytest's rootdir rule). Only stat(2) calls; nothing is created.
 *
 *   ts_project_root r;
 *   char why[512];
 *   if (ts_project_find_root(cwd, &r, &err) == 0)
 *       ts_project_describe(&r, why, sizeof(why));  // "found walking up from ..."
 */
#define TS_PROJECT_DIR ".toolscore/snapshots" /* the root under a project directory */

typedef enum ts_project_reason {
    TS_PROJECT_FOUND = 1,  /* an existing root in start or a directory above it */
    TS_PROJECT_REPOSITORY, /* none exists: under the repository root */
    TS_PROJECT_START,      /* none exists, no repository: under the start directory */
} ts_project_reason;

typedef struct ts_project_root {
    char root[PATH_MAX];  /* <base>/.toolscore/snapshots */
    char base[PATH_MAX];  /* the directory the root is under */
    char start[PATH_MAX]; /* where the walk started */
    ts_project_reason reason;
} ts_project_root;

/*
 * The snapshot root of a command started in start (an absolute path, as
 * getcwd() gives it; NULL: the current directory) into *out. Errors:
 * "invalid_argument" for a start that is not absolute, "too_large" for
 * paths past PATH_MAX, "io" when the current directory cannot be read.
 */
int ts_project_find_root(const char *start, ts_project_root *out, ts_error *err);

/*
 * Why r was chosen, one line without the root itself, into out:
 * "found in the current directory", "found walking up from START",
 * "none found up to the repository root BASE, which holds .git",
 * "none found and not in a repository: under the current directory".
 * Cut to outsz. Returns out.
 */
const char *ts_project_describe(const ts_project_root *r, char *out, size_t outsz);

/*
 * Other snapshot stores a person may have meant: the `.toolscore/snapshots`
 * directories found by a bounded search, so that a command that finds no
 * store, or a check that creates a second one, can name them.
 *
 * Below a directory: its subtree breadth first, at most
 * TS_PROJECT_SEARCH_DEPTH levels and TS_PROJECT_SEARCH_DIRS directories,
 * passing over symbolic links, directories whose name starts with '.' and
 * node_modules, and not entering another repository (a directory holding
 * .git). Above a root: each directory from the parent of the root's project
 * directory up to the repository root. Only opendir/readdir/lstat calls;
 * nothing is created. Paths are absolute, nearest first; at most max of
 * them (more says there were more, or the search stopped at its bounds).
 */
#define TS_PROJECT_SEARCH_DEPTH 6
#define TS_PROJECT_SEARCH_DIRS 4000

typedef struct ts_project_stores {
    char **paths; /* absolute roots, malloc'ed */
    size_t n;
    bool more; /* some were left out (max, or the search's bounds) */
} ts_project_stores;

/* The stores below dir (absolute), dir's own left out, into *out
 * (ts_project_stores_free). -ENOMEM only; a directory that cannot be read
 * is passed over. */
int ts_project_stores_below(const char *dir, size_t max, ts_project_stores *out, ts_error *err);

/*
 * The other stores of the repository holding root (an absolute store root
 * `<project>/.toolscore/snapshots`): those above it up to the repository
 * root, then those below its project directory. None for a root that is not
 * `<project>/.toolscore/snapshots` or not inside a repository (there is no
 * "same project" to speak of). -ENOMEM only.
 */
int ts_project_other_stores(const char *root, size_t max, ts_project_stores *out, ts_error *err);

void ts_project_stores_free(ts_project_stores *s);

/*
 * ts_snapshot_scan — what a listing needs of a snapshot file (name, source,
 * timestamps, approved, number of calls), read straight from the file's
 * bytes in one pass without building a JSON tree.
 *
 * A fast path for ts_snapshot_parse, never a second definition of a valid
 * file: the scan says yes only for files it fully checked (strict JSON
 * syntax and every rule ts_snapshot_parse applies to the members it reads),
 * and "not sure" for everything else, including every invalid file and the
 * rare valid ones it does not handle (\u escapes anywhere, escapes in the
 * strings it returns, numbers near the limits of their type, deep nesting,
 * a member given twice, absent timestamps). The caller then parses the
 * file with ts_snapshot_parse, which decides and words the error.
 */
/* The scanned members; strings point into the scanned buffer (not NUL-ended). */
typedef struct ts_snapshot_scan {
    const char *name;
    size_t name_len;
    const char *source; /* "pytest" when the file has none */
    size_t source_len;
    const char *created_at;
    size_t created_len;
    const char *updated_at;
    size_t updated_len;
    bool approved;
    size_t calls;
} ts_snapshot_scan;

/*
 * True when buf[0..len) is a snapshot file that ts_snapshot_parse accepts,
 * holding both timestamps, and *out has what ts_snapshot_parse would give
 * for these members. False: not sure (parse the file to know).
 */
bool ts_snapshot_scan_summary(const char *buf, size_t len, ts_snapshot_scan *out);

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

typedef struct ts_list_cache ts_list_cache; /* ts_store.h */

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

/* True once after a write of this store made its root directory (the
 * first caller after it gets true, every later one false): the check that
 * created a store, which the daemon tells about other stores nearby. */
bool ts_store_take_root_made(ts_store *store);

/*
 * True when the store holds its root open and that directory is the one with
 * this dev/ino (e.g. from one stat() of a path: the path still names the
 * store's root). False while the root is not open. Thread-safe.
 */
bool ts_store_root_is(const ts_store *store, uint64_t dev, uint64_t ino);

/*
 * A gate on what parsing the store's files may take: before a file is
 * parsed, take(arg, bytes, path, err) is asked for its price (what its
 * values will take, lib/json ts_json_price); a refusal (< 0, err filled)
 * is the read's error and nothing is parsed. A snapshot handed back holds
 * the price (its charge, given back through give when it is freed); one
 * the store frees itself (a listing's) gives it back at once. Set once,
 * before the store is used from other threads; NULL: no gate.
 */
typedef struct ts_store_gate {
    int (*take)(void *arg, size_t bytes, const char *path, ts_error *err);
    void (*give)(void *arg, size_t bytes);
    void *arg;
} ts_store_gate;

void ts_store_set_gate(ts_store *store, const ts_store_gate *gate);

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
 * File names keep 32 bits of the name's SHA-1 (the reference tool's
 * scheme), so two names can map to one file name. A file is never
 * removed or replaced, nor read, for a name it does not hold: saves,
 * removals and loads look at the name inside an existing file first and
 * refuse with "collision" (-EEXIST) when it holds another name that maps
 * to the same file name, naming both, or with "invalid_snapshot" when it
 * holds a name that maps elsewhere. A file that holds no readable snapshot
 * may be replaced or removed.
 */
#define TS_ERR_COLLISION "collision"

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
 * did not change from cache (see ts_store.h) instead of reading it, and
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
 * A summary of the members m (see ts_store.h) read from file with
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
