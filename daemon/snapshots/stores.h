/*
 * stores — the snapshot stores a daemon serves, opened on first use and
 * keyed by their absolute root path, plus what the daemon keeps per store:
 * its kept observations (observations.h) and caches.
 *
 * With a pinned root (--store) every other root is refused ("store_refused").
 * At most TSD_STORES_MAX stores are open; past that the least recently used
 * store without queued work is closed (and opened again on its next use).
 * Owns the ts_store handles.
 */
#ifndef TSD_STORES_H
#define TSD_STORES_H

#include <stdbool.h>
#include <pthread.h>
#include <stddef.h>

#include <json-c/json.h>
#include <uv.h>

#include "daemon/snapshots/observations.h"
#include "daemon/server/params.h"
#include "daemon/snapshots/rulescache.h"
#include "daemon/snapshots/snapcache.h"
#include "lib/base/ts_base.h"
#include "lib/store/ts_store.h"

#define TSD_STORES_MAX 256
/* Memory all stores' listing caches may hold together (ts_list_cache.h): at
 * about 180 bytes per snapshot, the summaries of ~370,000 snapshots. */
#define TSD_LIST_CACHE_BYTES (64u << 20)

struct tsd_job;

typedef struct tsd_store {
    char *root; /* absolute path, the registry key */
    ts_store *store;
    tsd_obs obs;               /* its kept observations (observations.h) */
    struct tsd_job *jobs_head; /* queued and running jobs, in arrival order (jobs.h) */
    struct tsd_job *jobs_tail;
    bool scheduling;      /* jobs.c is scanning the queue */
    bool heavy_waiting;   /* a heavy job of it waits for another (jobs.c) */
    tsd_snapcache cache;  /* parsed snapshots for replays on the loop thread */
    tsd_rulescache rules; /* the project's rules file (config.json beside the root) */
    bool exposure_logged; /* "writable by other users" was logged for this store */
    /* this daemon's lock on the store (ts_store_lock.h), or NULL while
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

typedef struct tsd_stores {
    const char *pinned;    /* borrowed: --store, or NULL */
    const ts_state *state; /* borrowed: the state directory (kept observations) */
    const char *socket;    /* borrowed: the daemon's socket, recorded in store locks */
    char busy_socket[TS_STORE_LOCK_SOCKET_MAX]; /* the last store_busy's holder */
    tsd_store *list;
    size_t count;
    ts_list_budget list_budget;       /* shared by every store's list_cache */
    tsd_snapcache_budget snap_budget; /* shared by every store's cache */
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
 * One store, one daemon (ts_store_lock.h): tsd_stores_get takes the
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

#endif
