/*
 * daemon/snapshots, inside the folder only: the files of the store
 * methods, bottom up. observations (the kept observations of failed
 * checks), rulescache and snapcache (a store's rules file and parsed
 * snapshots), stores (the stores served, their locks and caches), save,
 * observed and queue (helpers of the methods), then one file per method
 * or group of methods: check, record, approve, accept (accept, reject),
 * review (review, diff), show (show, orphans), listing (list), and
 * snapshots.c (rm, the module and its table). A method's state is the
 * module's tsd_snapshots; it reaches the server only through
 * daemon/server/server.h.
 */
#ifndef TSD_SNAPSHOTS_INTERNAL_H
#define TSD_SNAPSHOTS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>
#include <pthread.h>
#include <uv.h>

#include "daemon/runs/runs.h"
#include "daemon/server/server.h"
#include "lib/base/ts_base.h"
#include "lib/check/ts_check.h"
#include "lib/extract/ts_extract.h"
#include "lib/rules/ts_rules.h"
#include "lib/score/ts_score.h"
#include "lib/snapshot/ts_snapshot.h"
#include "lib/store/ts_store.h"

typedef struct tsd_snapshots tsd_snapshots; /* the module's state (below) */
typedef struct tsd_listing tsd_listing;     /* a held listing (listing.c) */

/*
 * observations — the kept observations of one open store: the observed
 * calls of each FAILED check and of each PENDING check whose calls differ
 * from the recording (lib/check/ts_check decides, lib/check/ts_observation is the
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

/*
 * rulescache — the project's rules file of one store (docs/rules.md):
 * `config.json` in the snapshot root's parent, read on every check and
 * compiled again only when it changed.
 *
 * Each check stats the file once. The compiled rules (or the file's error,
 * or "no file") are reused while the stat gives the stamp they were read
 * with and that stamp is older than the racy margin (the snapshot cache's
 * rule: a file written within a timestamp tick of its read could change
 * again unseen); otherwise the file is read and parsed again. A malformed
 * file gives the same error, naming the file, line and column, to every
 * check of its store until it is fixed; other stores are not affected.
 *
 * Loop thread only. The rules handed out are new references (pool jobs
 * keep them while the cache moves on).
 */
typedef struct tsd_rulescache {
    char *path;          /* the project file (owned) */
    bool held;           /* stamp, rules and error below describe a read */
    ts_file_stamp stamp; /* of the file when read (exists false: no file) */
    int64_t read_ns;     /* CLOCK_REALTIME just before the read */
    ts_rules *rules;     /* compiled, or NULL (no file, or no rule in it) */
    int rc;              /* < 0: the file's error, in err */
    ts_error err;
} tsd_rulescache;

/* The cache of the store at root (absolute). -ENOMEM or -ENAMETOOLONG. */
int tsd_rulescache_init(tsd_rulescache *cache, const char *root);
void tsd_rulescache_free(tsd_rulescache *cache);

/*
 * The project's rules now: *out is a new reference (ts_rules_unref), or
 * NULL when there is no file or it gives no rule. A file that cannot be
 * read or is not valid is an error ("invalid_rules", or "io").
 */
int tsd_rulescache_get(tsd_rulescache *cache, ts_rules **out, ts_error *err);

/*
 * snapcache — parsed snapshots of one store kept for replays on the loop
 * thread, never answering with a file that changed.
 *
 * An entry is the snapshot parsed from a file with the file's stamp (dev,
 * inode, size, mtime, ctime: ts_file_stamp) as it was when read. It is used
 * only when one lstat of the file now gives the same stamp AND the stamp is
 * trusted by the racy-timestamp rule (ts_check_stamp_trusted with
 * TS_CHECK_RACY_NS, against the moment the file was read): a file written
 * within one timestamp tick of our read is read again until its
 * timestamps are old enough. What it cannot see is the system clock set
 * back by more than the margin.
 *
 * Loop thread only. At most TSD_SNAPCACHE_MAX entries per store, and
 * about TSD_SNAPCACHE_BYTES (an eighth of a smaller --memory-budget) for
 * the entries of every store together (a budget the caches share: an
 * entry weighs what its parsed values cost, the price its read was charged
 * or its calls' tree counted, with its file's size and
 * TSD_SNAPCACHE_ENTRY_EXTRA for the packed calls, their text and self
 * score), one of the store's at random dropped to make room (see
 * snapcache.c, victim); only small files are kept (the fast path's
 * limit). An entry's values are counted there, not in the memory budget's
 * values (the read's charge is given back once it is kept). Owns its
 * entries' snapshots.
 */
#define TSD_SNAPCACHE_MAX 16384
#define TSD_SNAPCACHE_BUCKETS 4096
#define TSD_SNAPCACHE_BYTES (128u << 20)
#define TSD_SNAPCACHE_ENTRY_EXTRA 4096

/* Bytes the caches sharing it hold together (loop thread only). */
typedef struct tsd_snapcache_budget {
    size_t used; /* at most max */
    size_t max;  /* TSD_SNAPCACHE_BYTES, or an eighth of a smaller memory budget */
} tsd_snapcache_budget;

typedef struct tsd_snapcache_entry tsd_snapcache_entry;

typedef struct tsd_snapcache {
    tsd_snapcache_entry *buckets[TSD_SNAPCACHE_BUCKETS];
    tsd_snapcache_entry *lru_head, *lru_tail; /* most recently used first */
    size_t count;
    uint64_t random;              /* the state of the choice of entries to drop */
    tsd_snapcache_budget *budget; /* shared; NULL: only the count bounds it */
} tsd_snapcache;

/*
 * name's snapshot into *out (borrowed: valid until the next call on this
 * cache), from the cache when a stat of the file (ts_store_stat) gives the
 * stamp it was read with and that stamp is trusted, else read with
 * ts_store_load_small(max_bytes) and kept. Errors as ts_store_load_small
 * (-ENOENT, -EFBIG, ...).
 */
int tsd_snapcache_load(tsd_snapcache *cache, ts_store *store, const char *name, size_t max_bytes,
                       const ts_snapshot **out, ts_error *err);

/*
 * name's cached snapshot when one lstat() of its file's whole path (the
 * store's key, then the file name) finds the very stamp it was read with,
 * and that stamp is trusted (1 when the entry is slim, below); -EAGAIN
 * for anything else (no entry, a stat
 * failing, another stamp), with nothing dropped or read: the caller then
 * takes the usual way (tsd_stores_get, tsd_snapcache_load).
 *
 * Why one stat of the whole path is enough, without the stat of the root
 * that the usual way makes: a stamp holds the file's inode and its ctime,
 * and the ctime of an inode changes whenever it is written, renamed,
 * linked or unlinked. So an equal stamp found through the path now means
 * the path now leads to the very file that was read, unchanged since: the
 * content is the cached one whatever the directories on the way are. A
 * root replaced by another directory, moved away, removed or pinned
 * elsewhere leads to another inode, a new ctime or nothing, and goes the
 * usual way (which refuses, reopens or re-reads as before).
 */
int tsd_snapcache_load_quick(tsd_snapcache *cache, const char *name, const ts_snapshot **out);

/*
 * Slim entries. A replay that passed with the snapshot's own bytes needs
 * none of the json-c trees again while the file, the options and the rules
 * stay the same: the packed calls, their self score (packed) and their
 * text answer it. tsd_snapcache_slim drops name's trees (snap->calls and
 * the redacted copy; the budget gets their weight back, about three
 * quarters of an entry) when the entry holds all of that for an approved
 * snapshot whose self score passed. A slim entry's snapshot has NULL
 * calls: tsd_snapcache_load_quick returns 1 for it (0 for a full one),
 * tsd_snapcache_load reads its file again, and tsd_snapcache_known answers
 * the replay it was slimmed for.
 */
void tsd_snapcache_slim(tsd_snapcache *cache, const char *name);

/* The compact JSON text of calls and its text id (borrowed). */
typedef struct tsd_snapcache_text {
    const char *text;
    size_t len;
    const char *id;
} tsd_snapcache_text;

/*
 * For name's slim entry, just proved current (tsd_snapcache_load_quick
 * returned 1): when bytes[0..len) are its packed calls and opt and rules
 * (NULL or empty: none) those of its self score, the score shared into
 * *out, packed as a check reply's result appended to packed, what the
 * rules did appended to rules_packed (as tsd_snapcache_self_score), and the
 * redacted calls' text into *text (borrowed until the next call on this
 * cache). -EAGAIN for anything else (the caller reads the file the usual
 * way), -ENOMEM (nothing appended).
 */
int tsd_snapcache_known(tsd_snapcache *cache, const char *name, const void *bytes, size_t len,
                        const ts_score_options *opt, ts_rules *rules, ts_score_result *out,
                        ts_buf *packed, ts_buf *rules_packed, tsd_snapcache_text *text);

/*
 * The compact JSON text of calls and its text id (ts_runreport_text_id),
 * when calls is the object the last tsd_snapcache_self_score of name gave
 * (a replay of the snapshot's own calls): worked out once per entry and
 * its rules, borrowed until the next call on this cache. -ENOENT for any
 * other object (the caller serializes it itself), -ENOMEM.
 */
int tsd_snapcache_calls_text(tsd_snapcache *cache, const char *name,
                             const struct json_object *calls, const char **text, size_t *len,
                             const char **id);

/* name's file (ts_store_path) into out when name has an entry: no hashing
 * of the name. False when it has none (or out is too small). */
bool tsd_snapcache_path(tsd_snapcache *cache, const char *name, char *out, size_t outsz);

/*
 * Whether bytes[0..len), a check's observed value as its client sent it,
 * are byte for byte the msgpack that a client's library sends for a list
 * equal to the calls of name's cached snapshot (the one the last
 * tsd_snapcache_load of name returned): then decoding, extracting
 * ("auto") and validating them would give exactly those calls. The
 * snapshot's encoding is made on first use and kept with the entry. False
 * when name is not cached, or when extracting its calls would not hand
 * them back unchanged.
 */
bool tsd_snapcache_same_calls(tsd_snapcache *cache, const char *name, const void *bytes,
                              size_t len);

/*
 * The calls of name's cached snapshot scored against themselves with opt
 * under rules (NULL: none): what a replay of an equal observed list gives.
 * Computed once per options and rules object (the last ones are kept, with
 * a reference to the rules) and shared into *out (ts_score_result_share;
 * release it with ts_score_result_free), and packed as a check reply's
 * result (ts_message_pack_score_result) appended to packed; what the rules
 * did (ts_rules_applied_to_json), packed, is appended to rules_packed
 * (nothing when no rules applied); *calls is a new reference to the
 * snapshot's calls as the rules redact them (the observed calls such a
 * replay stands for). Errors as ts_rules_evaluate; "internal" when name is
 * not cached.
 */
int tsd_snapcache_self_score(tsd_snapcache *cache, const char *name, const ts_score_options *opt,
                             ts_rules *rules, ts_score_result *out, ts_buf *packed,
                             ts_buf *rules_packed, struct json_object **calls, ts_error *err);

/* Drop every entry. */
void tsd_snapcache_clear(tsd_snapcache *cache);

/*
 * stores — the snapshot stores a daemon serves, opened on first use and
 * keyed by their absolute root path, plus what the daemon keeps per store:
 * its kept observations (snapshots_internal.h) and caches.
 *
 * With a pinned root (--store) every other root is refused ("store_refused").
 * At most TSD_STORES_MAX stores are open; past that the least recently used
 * store without queued work is closed (and opened again on its next use).
 * Owns the ts_store handles.
 */
#define TSD_STORES_MAX 256
/* Memory all stores' listing caches may hold together (ts_store.h): at
 * about 180 bytes per snapshot, the summaries of ~370,000 snapshots. */
#define TSD_LIST_CACHE_BYTES (64u << 20)

/* Every store's job queue may wait for a heavy job at once (server.h). */
_Static_assert(TSD_STORES_MAX <= TSD_JOBS_QUEUES_MAX, "a store's queue beyond the jobs' bound");

typedef struct tsd_store {
    char *root; /* absolute path, the registry key */
    ts_store *store;
    tsd_obs obs;          /* its kept observations (observations above) */
    tsd_job_queue jobs;   /* queued and running jobs, in arrival order (server.h) */
    tsd_snapcache cache;  /* parsed snapshots for replays on the loop thread */
    tsd_rulescache rules; /* the project's rules file (config.json beside the root) */
    bool exposure_logged; /* "writable by other users" was logged for this store */
    /* this daemon's lock on the store (ts_store.h), or NULL while
     * nothing of it is on disk; set once, by the loop or a job (under
     * lock_mutex) */
    _Atomic(ts_store_lock *) lock;
    pthread_mutex_t lock_mutex;
    bool unlockable_logged;    /* "cannot lock it" was logged (under lock_mutex) */
    ts_list_cache *list_cache; /* listing summaries; used only by listing jobs
                                * (whole-store jobs never overlap), NULL until
                                * the first listing */
    struct tsd_store *next;
} tsd_store;

/* Roots whose "cannot open" was logged lately (stores.c, log_open_failure). */
#define TSD_STORES_LOG_SLOTS 16
#define TSD_STORES_LOG_EVERY_MS 60000
typedef struct tsd_store_log_slot {
    uint64_t hash;      /* of the root's key; 0: unused */
    uint64_t logged_ms; /* monotonic clock of its last line */
    uint64_t left_out;  /* failures not logged since */
} tsd_store_log_slot;

typedef struct tsd_stores {
    const char *pinned;    /* borrowed: --store, or NULL */
    const ts_state *state; /* borrowed: the state directory (kept observations) */
    const char *socket;    /* borrowed: the daemon's socket, recorded in store locks */
    char busy_socket[TS_STORE_LOCK_SOCKET_MAX]; /* the last store_busy's holder */
    tsd_store *list;
    size_t count;
    ts_list_budget list_budget;       /* shared by every store's list_cache */
    tsd_snapcache_budget snap_budget; /* shared by every store's cache */
    ts_store_gate gate;               /* every store's parses priced against the memory budget */
    size_t caches_max;                /* an eighth of the memory budget: each cache's most */
    tsd_store_log_slot open_failures[TSD_STORES_LOG_SLOTS];
} tsd_stores;

/*
 * The store at root, opening it on first use (stray temp files are cleaned
 * then). A root equal to the key of an open store whose directory the path
 * still names (one stat() compared with the dev/ino of the held descriptor)
 * is found without resolving the path again; otherwise root is resolved
 * (tsd_stores_normalize). root must be absolute ("invalid_argument" otherwise); a root other
 * than the pinned one is "store_refused".
 */
int tsd_stores_get(tsd_stores *stores, const char *root, tsd_store **out, ts_error *err);

/*
 * One store, one daemon (ts_store.h): tsd_stores_get takes the
 * store's lock when its directory exists; a job about to write a store not
 * locked yet (its directory did not exist) takes it with
 * tsd_store_lock_for_write (any thread), which makes the directory first.
 * A store another daemon holds is "store_busy", the message naming that
 * daemon's socket: tsd_stores_busy_socket returns it until the next
 * lookup (for the error reply's "socket"); a job hands it over with
 * tsd_stores_note_busy (loop thread) before answering, *busy (malloc'd)
 * holding it. Nothing of a store held by another daemon is touched (no
 * temp file cleaned).
 */
int tsd_store_lock_for_write(const tsd_stores *stores, tsd_store *st, char **busy, ts_error *err);
void tsd_stores_note_busy(tsd_stores *stores, const char *socket);
const char *tsd_stores_busy_socket(tsd_stores *stores);

/* Every second: a store lock whose file was removed or replaced is taken
 * again (or, when another daemon took it meanwhile, let go: the store is
 * then busy). */
void tsd_stores_check_locks(tsd_stores *stores);

/*
 * The open store whose key is root exactly, or NULL: nothing is checked of
 * the path (the directory it names now may be another one) and nothing is
 * opened. For a caller that proves by other means that its answer does not
 * depend on which directory the path names (check.c: one lstat of a cached
 * snapshot's whole path).
 */
tsd_store *tsd_stores_peek(tsd_stores *stores, const char *root);

/* The store named by the params' "store" (required), as tsd_stores_get
 * finds it; NULL with the failure kept in p. */
tsd_store *tsd_stores_param(tsd_stores *stores, tsd_params *p);

/* Normalize root as tsd_stores_get does (absolute, symlinks resolved even
 * when it does not exist yet: ts_paths_resolve) into a new string; errors as tsd_stores_get. */
int tsd_stores_normalize(const tsd_stores *stores, const char *root, char **out, ts_error *err);

/* st's listing cache, made on first use (loop thread; NULL when out of
 * memory: the listing then reads every file). */
ts_list_cache *tsd_store_list_cache(tsd_stores *stores, tsd_store *st);

void tsd_stores_close_all(tsd_stores *stores);

/*
 * The open stores whose directory other users can write
 * (ts_store_exposure), as a json array of {store, problem} (new reference;
 * empty when none, NULL without memory). Each is logged once, as it is
 * when its store is opened. Loop thread.
 */
struct json_object *tsd_stores_exposed(tsd_stores *stores);

/*
 * save — writing a snapshot from a pool job, shared by check and record:
 * the file written durably (keeping an existing file's created_at), and the
 * error of a write that was placed but is not durable.
 */
/*
 * Write calls as name's snapshot: approved, source, keeping created_at of an
 * existing readable file (looked up only when may_exist: a creation that just
 * found no file skips that lookup, which on a large directory contends with
 * the other writers' creates and renames). On return the file is durable
 * (ts_store_save shares the rename and the root's fsync with the store's
 * concurrent writers: lib/store/ts_store_commit.c). When only the root's fsync
 * failed, the file is in place but not durable: that error goes to
 * job->sync_rc/sync_err for the reply (tsd_save_not_durable) and 0 is
 * returned, so the outcome is still worked out. Pool thread.
 */
int tsd_save(ts_store *store, const char *name, struct json_object *calls, const char *source,
             bool approved, bool may_exist, tsd_job *job, ts_error *err);

/*
 * The reply's error for a job whose write was placed but whose root fsync
 * failed (job->sync_rc < 0): the file was renamed into place (later requests
 * see it) but a crash may still lose it or bring the old file back, so the
 * write is answered with that error, never acknowledged.
 */
int tsd_save_not_durable(const tsd_job *job, const char *name, ts_error *err);

/*
 * observed — the calls a request carries (check's "actual", record's
 * "calls"): extracted from the raw value (lib/extract/ts_extract) and validated as
 * a snapshot's calls, shared by check and record.
 */
/*
 * The calls of raw (a value of the request's params) in format (NULL:
 * "auto") into *calls (a new reference), validated as ts_snapshot_new
 * does. A raw list of calls is shared, not copied: params and calls are only
 * read, and stay with one thread at a time (the loop, or the pool thread of
 * the request's job), so json-c's non-atomic reference counts are safe.
 * Kept calls (a FAILED check's observed calls) keep only that part of the
 * params alive.
 */
int tsd_observed_calls(struct json_object *raw, const char *format, ts_extract_origin origin,
                       struct json_object **calls, ts_error *err);

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

/*
 * check — method "check": one pass of the snapshot state machine of
 * lib/check/ts_check.h (docs/snapshots.md) for one request, with the reads,
 * scoring and writes it asks for.
 *
 * Parameters are checked on the loop thread. A replay that writes nothing
 * is answered there at once when its snapshot is small and no job of its
 * file is queued; anything else runs as a pool job keyed by the snapshot's
 * file (server.h), so requests for one name are applied strictly in arrival
 * order: of several checks of one missing name exactly the first creates
 * it, the others see it pending; an approve (a whole-store job) is never
 * undone by a check. Returns TSD_ASYNC and answers through
 * tsd_request_finish once any write is durable; a parameter error is
 * returned at once.
 */
/* check {store, name, actual, format, min_score, weights, strict, ci, update,
 * allow_pending, run, test, color, width, json_diff} -> {outcome, name, file, message, result,
 * report}. */
int tsd_check(void *state, tsd_request *req, const struct json_object *params,
              struct json_object **result, ts_error *err);

/*
 * check_settle — a check's params and its pass through lib/check's state
 * machine, shared by the loop and the pool sides of check.c.
 */
/* A check's params (tsd_check_parse); strings borrowed from the request. */
typedef struct tsd_check_request {
    const char *store;
    const char *name;
    const char *format;
    const char *run;
    const char *test;
    const char *source;         /* the written snapshot's source ("pytest" when not given) */
    const char *tsctl;          /* how the client's user runs tsctl (NULL: "tsctl") */
    struct json_object *actual; /* borrowed raw value (NULL while it is bytes) */
    ts_rules *rules;            /* the "rules" param compiled, or NULL */
    ts_score_options score;
    bool ci, update, allow_pending, color, json_diff;
    int64_t width; /* the report's width; 0: its default */
} tsd_check_request;

/* What one pass of the state machine produced. */
typedef struct tsd_check_outcome {
    ts_check_decision decision; /* outcome, what to write, whether evaluated, what to keep */
    bool written;               /* the snapshot file was written */
    char *message;
    ts_score_result scored;   /* the scoring keys, when evaluated */
    char *report;             /* drift report, or NULL */
    char *next_steps;         /* FAILED: the lines that end the reply's report (the
                               * commands that accept it and review everything); the
                               * run keeps the report alone, stored once per text */
    double score;             /* < 0 when not evaluated */
    ts_buf scored_packed;     /* scored already packed (the cache's self score), or empty */
    ts_rules_applied applied; /* what the rules did, when evaluated under rules */
    ts_buf rules_packed;      /* or that, packed (the cache's self score), or empty */
} tsd_check_outcome;

/* The params of a check into rq. raw: "actual" is still bytes (decoded
 * later, into rq->actual). A param error names the param. */
int tsd_check_parse(const struct json_object *params, bool raw, tsd_check_request *rq,
                    ts_error *err);

/* The state machine's input for rq, its rules and the observed calls. */
void tsd_check_input(const tsd_check_request *rq, const char *file, const ts_rules *rules,
                     const struct json_object *calls, ts_check_input *in);

/*
 * Take in (the file read, or update on) to its outcome: evaluate when the
 * state machine asks, then the message and, for FAILED, the report, all
 * into out; what to write is left in out->decision. known: the score of
 * these calls, already worked out (taken over: released when not used),
 * or NULL. redacted: the values the redact rules replaced in the observed
 * calls before (per pattern), counted in what the rules did.
 */
int tsd_check_settle(const tsd_check_request *rq, ts_check_input *in, ts_score_result *known,
                     const size_t *redacted, tsd_check_outcome *out, ts_error *err);

/*
 * record — method "record": a trace imported as a snapshot (tsctl record
 * --from-trace). Parameters are read on the loop thread; extraction and
 * the durable write run as a pool job keyed by the snapshot's file, in
 * arrival order with that file's checks (server.h). What it writes is
 * lib/check/ts_check's rule (ts_check_record).
 */
/* record {store, name, calls, source, update, format} -> {outcome, name,
 * file}; answers through tsd_request_finish (TSD_ASYNC). */
int tsd_record(void *state, tsd_request *req, const struct json_object *params,
               struct json_object **result, ts_error *err);

/*
 * save {store, snapshot} -> {name, file}: the snapshot object written as
 * the file of snapshot.name, every member as given (read as a file's
 * object is: ts_snapshot_from_json), durably, as a pool job keyed by that
 * file (in arrival order with its checks); its kept observation goes.
 * Answers through tsd_request_finish (TSD_ASYNC).
 */
int tsd_save_method(void *state, tsd_request *req, const struct json_object *params,
                    struct json_object **result, ts_error *err);

/*
 * approve — method "approve": approving the snapshots named (every one must
 * exist, else nothing is approved) or every pending one, as one job of the
 * whole store (server.h): after every earlier check of the store, before
 * every later one, so an approval is never undone by a concurrent check.
 * The renames share one directory sync; the reply is sent once it is
 * durable, and the approved names' FAILED observations are forgotten.
 */
/* approve {store, names | all} -> {approved: [{name, calls, created_at,
 * updated_at, file}]}; answers through tsd_request_finish (TSD_ASYNC). */
int tsd_approve(void *state, tsd_request *req, const struct json_object *params,
                struct json_object **result, ts_error *err);

/*
 * accept — methods accept and reject: what a person decides about the
 * review queue, without running any test again (docs/protocol.md).
 *
 * accept writes each kept observation's calls as the name's approved
 * baseline (created_at kept, source "pytest") and approves a pending
 * snapshot that has none, as lib/check/ts_check's accept rule says; reject drops
 * kept observations and deletes pending snapshots (an approved baseline is
 * kept). Names given must each be a snapshot or have an observation, or
 * nothing is changed. Each is one whole-store job on the thread pool: the
 * snapshot files are written durably (one fsync each, renames and the
 * directory's fsync shared) and only then are the observations removed;
 * the reply leaves after that.
 */
/* accept {store, names | all, run?, color?} -> {accepted: [...]} */
int tsd_accept(void *state, tsd_request *req, const struct json_object *params,
               struct json_object **result, ts_error *err);

/* reject {store, names | all, run?} -> {rejected: [...]} */
int tsd_reject(void *state, tsd_request *req, const struct json_object *params,
               struct json_object **result, ts_error *err);

/*
 * review — the methods that show the review queue: `review` (the pending
 * snapshots and kept observations of a store, one line's worth each) and
 * `diff` (the drift report between a snapshot and its kept observation).
 * Both read, parse and render on the thread pool: review as a whole-store
 * job, diff as a job of the snapshot's file. Superseded observations they
 * come across (the snapshot changed since, or the file is no observation)
 * are dropped. docs/protocol.md has the params and results.
 */
/* review {store, run?} -> {items: [...]} */
int tsd_review(void *state, tsd_request *req, const struct json_object *params,
               struct json_object **result, ts_error *err);

/* diff {store, name, color?} -> {name, file, kind, ..., result, report, baseline, observed} */
int tsd_diff(void *state, tsd_request *req, const struct json_object *params,
             struct json_object **result, ts_error *err);

/* The item of a queue entry as review lists it (also used by accept's
 * reply): {name, file, kind, approved, calls, observation|nil, problem?}. */
struct tsd_queue_item;
struct json_object *tsd_review_item_json(const struct tsd_store *st,
                                         const struct tsd_queue_item *item);

/*
 * show — the methods that read and render snapshots: show (one snapshot)
 * and orphans (the ones a run never referenced); review is snapshots_internal.h's.
 *
 * Reading a file, parsing it and encoding the reply take time in
 * proportion to the snapshots (half a second for a 29 MiB file), so all
 * of it runs on the pool, as a job of the store ordered like any other
 * (show after earlier work on its name, orphans after all earlier work on
 * the store); the loop thread only looks the store up and sends the
 * encoded reply.
 */
/* show {store, name} -> {snapshot, file}. TSD_ASYNC, or a negative code
 * (the store lookup, a bad name). */
int tsd_show(void *state, tsd_request *req, const struct json_object *params,
             struct json_object **result, ts_error *err);

/* orphans {store, run} -> {names, run} (docs/protocol.md): the store read
 * on the pool, the run's references looked at on the loop. TSD_ASYNC, or
 * a negative code (an unknown or open run, another store). */
int tsd_orphans(void *state, tsd_request *req, const struct json_object *params,
                struct json_object **result, ts_error *err);

/*
 * listing — the list method: the store's snapshot summaries, whole or in
 * pages.
 *
 * A listing without a cursor reads the whole store as a whole-store job on
 * the thread pool (ts_store_list_summaries_cached: every file read and
 * validated, except those whose summary the store's listing cache holds
 * for an unchanged stamp; docs/internals/list_cache.md), after every
 * earlier request of the store and before every later one. With a limit,
 * the first page is answered and the whole listing is held; each cursor
 * ("next") names that listing and the position of the page after the one
 * sent, so the pages of one listing are one consistent view of the store
 * as it was when the listing was read (nothing is listed twice or skipped,
 * total holds for every page) and a cursor asked for again gives the same
 * page again. A held listing is dropped after TSD_LISTING_IDLE_MS without a
 * page (its last page included), or when TSD_LISTINGS_MAX newer ones are
 * held. Owns the held listings (tsd_snapshots.listings).
 */
#define TSD_LISTINGS_MAX 16           /* held listings (paged) */
#define TSD_LISTING_IDLE_MS 60000     /* a held listing unused this long is dropped */
#define TSD_LISTING_LIMIT_MAX 1000000 /* largest page */

/* list {store, pending, limit, cursor} -> {snapshots, problems, total, next}. */
int tsd_list(void *state, tsd_request *req, const struct json_object *params,
             struct json_object **result, ts_error *err);

/* Drop every held listing (at stop). */
void tsd_listings_free(tsd_snapshots *sn);

/*
 * snapshots — the module (snapshots.h): its state, shared by the methods
 * of this folder, and rm.
 */
struct tsd_snapshots {
    tsd_server *server;
    uv_loop_t *loop; /* the server's (jobs are queued on it) */
    tsd_runs *runs;  /* the runs module's: a check in a run is recorded there */
    tsd_stores stores;
    tsd_listing *listings; /* held paged listings (listing above) */
    size_t listing_count;
    uint64_t listing_seq; /* counter: cursor numbers, least recently used order */
};

/* rm {store, name} -> {name, file}: the snapshot and its kept observation
 * removed, after every earlier request on that snapshot. */
int tsd_rm(void *state, tsd_request *req, const struct json_object *params,
           struct json_object **result, ts_error *err);

#endif
