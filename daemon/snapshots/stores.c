/*
 * stores — the registry of open snapshot stores (see snapshots_internal.h).
 */
#include "snapshots_internal.h"

#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "lib/check/ts_check.h"
#include "proto/ts_proto.h"

int tsd_stores_normalize(const tsd_stores *stores, const char *root, char **out, ts_error *err)
{
    char resolved[TS_PATHS_MAX];
    char *copy;
    int rc;

    if (root == NULL || root[0] != '/')
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "store must be an absolute path, got '%s'", root ? root : "");
    rc = ts_paths_resolve(root, resolved, sizeof(resolved), err);
    if (rc < 0)
        return rc;
    copy = strdup(resolved);
    if (copy == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    if (stores->pinned != NULL && strcmp(copy, stores->pinned) != 0) {
        ts_error_set(err, -EPERM, TS_ERR_STORE_REFUSED,
                     "this daemon serves only the store %s (started with --store), not %s",
                     stores->pinned, copy);
        free(copy);
        return -EPERM;
    }
    *out = copy;
    return 0;
}

static void store_free(tsd_store *st)
{
    tsd_jobs_forget(&st->jobs);
    ts_store_lock_release(atomic_load(&st->lock));
    pthread_mutex_destroy(&st->lock_mutex);
    tsd_snapcache_clear(&st->cache);
    tsd_rulescache_free(&st->rules);
    ts_list_cache_free(st->list_cache);
    ts_store_close(st->store);
    tsd_obs_close(&st->obs);
    free(st->root);
    free(st);
}

/* Close the least recently used store that has no work queued (its kept
 * observations stay on disk). False when every store is busy. */
static bool close_least_recent(tsd_stores *stores)
{
    tsd_store **victim = NULL;

    for (tsd_store **p = &stores->list; *p != NULL; p = &(*p)->next) {
        if ((*p)->jobs.head == NULL)
            victim = p;
    }
    if (victim == NULL)
        return false;
    tsd_store *st = *victim;
    *victim = st->next;
    tsd_info("store closed (least recently used): %s", st->root);
    store_free(st);
    stores->count--;
    return true;
}

/* Move st to the front of the list (most recently used first). */
static void touch(tsd_stores *stores, tsd_store **link)
{
    tsd_store *st = *link;

    *link = st->next;
    st->next = stores->list;
    stores->list = st;
}

/*
 * The open store whose key is root exactly, if the path still names the
 * directory that store holds open (one stat). Anything else (another
 * spelling of the path, a root replaced or not open) goes the slow way
 * through tsd_stores_normalize.
 */
static tsd_store *find_quick(tsd_stores *stores, const char *root)
{
    struct stat at_path;

    for (tsd_store **p = &stores->list; *p != NULL; p = &(*p)->next) {
        if (strcmp((*p)->root, root) != 0)
            continue;
        if (stat(root, &at_path) < 0)
            return NULL;
        if (!ts_store_root_is((*p)->store, (uint64_t)at_path.st_dev, (uint64_t)at_path.st_ino))
            return NULL;
        touch(stores, p);
        return stores->list;
    }
    return NULL;
}

tsd_store *tsd_stores_peek(tsd_stores *stores, const char *root)
{
    for (tsd_store **p = &stores->list; *p != NULL; p = &(*p)->next) {
        if (strcmp((*p)->root, root) == 0) {
            if (atomic_load(&(*p)->lock) == NULL)
                return NULL;  /* not ours (yet): the slow way asks for the lock */
            touch(stores, p); /* in use: the last to be closed */
            return stores->list;
        }
    }
    return NULL;
}

tsd_store *tsd_stores_param(tsd_stores *stores, tsd_params *p)
{
    const char *root = tsd_params_string(p, "store", true);
    tsd_store *st = NULL;

    if (root != NULL)
        tsd_params_fail(p, tsd_stores_get(stores, root, &st, p->err));
    return tsd_params_error(p) < 0 ? NULL : st;
}

/* Whether other users can write st's directory: logged once per store;
 * the problem into why (when not NULL). True when they can. */
static bool exposure(tsd_store *st, char *why, size_t whysz)
{
    char buf[1200];
    ts_error err;

    if (why == NULL) {
        why = buf;
        whysz = sizeof(buf);
    }
    if (ts_store_exposure(st->store, why, whysz, &err) != 1)
        return false;
    if (!st->exposure_logged)
        tsd_warn("store %s: %s: other users can plant or replace its snapshots", st->root, why);
    st->exposure_logged = true;
    return true;
}

static void check_exposure(tsd_store *st)
{
    (void)exposure(st, NULL, 0);
}

struct json_object *tsd_stores_exposed(tsd_stores *stores)
{
    struct json_object *list = json_object_new_array();
    char why[1200];

    for (tsd_store *st = stores->list; st != NULL && list != NULL; st = st->next) {
        struct json_object *item;

        if (!exposure(st, why, sizeof(why)))
            continue;
        item = json_object_new_object();
        if (item == NULL)
            break;
        json_object_object_add(item, "store", json_object_new_string(st->root));
        json_object_object_add(item, "problem", json_object_new_string(why));
        json_object_array_add(list, item);
    }
    return list;
}

/* True when the lock another entry's holds is ours: the directory of an
 * open store was renamed and is now reached by another path (the entries
 * are keyed by path). Served as ours, without a lock of its own: that
 * entry's keeps other daemons out. */
static bool held_by_us(const tsd_stores *stores, const ts_store_lock_owner *owner)
{
    return owner->pid == (long)getpid() && strcmp(owner->socket, stores->socket) == 0;
}

/*
 * Take the lock of the store at root into *lock (held by nobody else yet:
 * a store being opened): 0 when held, or when there is nothing on disk to
 * guard and create is false; store_busy (the holder's socket kept for the
 * reply, tsd_stores_busy_socket) when another daemon holds it.
 */
static int lock_new(tsd_stores *stores, const char *root, ts_store_lock **lock, ts_error *err)
{
    ts_store_lock_owner owner;
    int rc = ts_store_lock_take(root, stores->socket, false, lock, &owner, err);

    if (rc == -EBUSY && held_by_us(stores, &owner))
        return 0;
    if (rc == -EBUSY) {
        snprintf(stores->busy_socket, sizeof(stores->busy_socket), "%s", owner.socket);
        tsd_debug("store %s: %s", root, err->message);
    } else if (rc == 0 && *lock != NULL) {
        tsd_info("store %s: this daemon holds its lock", root);
    } else if (rc == TS_STORE_LOCK_UNLOCKABLE) {
        tsd_warn("store %s: %s: served without its lock (another daemon could serve it at the "
                 "same time)",
                 root, err->message);
    }
    return rc < 0 ? rc : 0;
}

/* The lock of an open store, taken when it is not held yet (create: the
 * directory made first); any thread. *busy gets the holder's socket (a
 * copy) on store_busy. */
static int lock_open(const tsd_stores *stores, tsd_store *st, bool create, char **busy,
                     ts_error *err)
{
    ts_store_lock_owner owner;
    ts_store_lock *lock = NULL;
    int rc = 0;

    if (atomic_load(&st->lock) != NULL)
        return 0;
    pthread_mutex_lock(&st->lock_mutex);
    if (atomic_load(&st->lock) == NULL) {
        rc = ts_store_lock_take(st->root, stores->socket, create, &lock, &owner, err);
        if (rc == 0 && lock != NULL) {
            atomic_store(&st->lock, lock);
            tsd_info("store %s: this daemon holds its lock", st->root);
        }
        if (rc == TS_STORE_LOCK_UNLOCKABLE && !st->unlockable_logged) {
            st->unlockable_logged = true;
            tsd_warn("store %s: %s: served without its lock (another daemon could serve it at "
                     "the same time)",
                     st->root, err->message);
        }
        if (rc == -EBUSY && held_by_us(stores, &owner))
            rc = 0;
        if (rc == -EBUSY && busy != NULL)
            *busy = strdup(owner.socket);
    }
    pthread_mutex_unlock(&st->lock_mutex);
    return rc < 0 ? rc : 0;
}

/* lock_open on the loop: store_busy's socket kept for the reply. */
static int lock_existing(tsd_stores *stores, tsd_store *st, ts_error *err)
{
    char *busy = NULL;
    int rc = lock_open(stores, st, false, &busy, err);

    if (busy != NULL)
        snprintf(stores->busy_socket, sizeof(stores->busy_socket), "%s", busy);
    free(busy);
    return rc;
}

int tsd_store_lock_for_write(const tsd_stores *stores, tsd_store *st, char **busy, ts_error *err)
{
    *busy = NULL;
    return lock_open(stores, st, true, busy, err);
}

void tsd_stores_note_busy(tsd_stores *stores, const char *socket)
{
    if (socket != NULL)
        snprintf(stores->busy_socket, sizeof(stores->busy_socket), "%s", socket);
}

const char *tsd_stores_busy_socket(tsd_stores *stores)
{
    return stores->busy_socket;
}

/*
 * "cannot open store" once a minute per root (TSD_STORES_LOG_EVERY_MS), not
 * once a request: a client retrying a broken root in a loop would fill the
 * log. The next line says how many were left out.
 */
static void log_open_failure(tsd_stores *stores, const char *key, const ts_error *err)
{
    struct timespec ts;
    uint64_t now, h = ts_hash_string(key);
    tsd_store_log_slot *slot = &stores->open_failures[0];

    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    now = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
    /* the root's slot, else the one used least recently */
    for (size_t i = 0; i < TSD_STORES_LOG_SLOTS; i++) {
        tsd_store_log_slot *s = &stores->open_failures[i];

        if (s->hash == h) {
            slot = s;
            break;
        }
        if (s->logged_ms < slot->logged_ms)
            slot = s;
    }
    if (slot->hash == h && slot->logged_ms != 0 &&
        now - slot->logged_ms < TSD_STORES_LOG_EVERY_MS) {
        slot->left_out++;
        return;
    }
    if (slot->hash == h && slot->left_out > 0)
        tsd_warn("cannot open store %s: %s (and %llu more times in the last minute)", key,
                 err ? err->message : "", (unsigned long long)slot->left_out);
    else
        tsd_warn("cannot open store %s: %s", key, err ? err->message : "");
    slot->hash = h;
    slot->logged_ms = now != 0 ? now : 1;
    slot->left_out = 0;
}

int tsd_stores_get(tsd_stores *stores, const char *root, tsd_store **out, ts_error *err)
{
    char *key = NULL;
    tsd_store *st;
    ts_store_lock *lock = NULL;
    ts_error cleanup_err;
    int rc;

    stores->busy_socket[0] = '\0';
    if (root != NULL && root[0] == '/') {
        st = find_quick(stores, root);
        if (st != NULL) {
            *out = st;
            return lock_existing(stores, st, err);
        }
    }
    rc = tsd_stores_normalize(stores, root, &key, err);
    if (rc < 0)
        return rc;
    for (tsd_store **p = &stores->list; *p != NULL; p = &(*p)->next) {
        if (strcmp((*p)->root, key) == 0) {
            touch(stores, p);
            free(key);
            *out = stores->list;
            return lock_existing(stores, *out, err);
        }
    }
    /* one store, one daemon: the lock before anything of the store is
     * touched (its stray temp files may be another daemon's writes) */
    rc = lock_new(stores, key, &lock, err);
    if (rc < 0) {
        free(key);
        return rc;
    }
    if (stores->count >= TSD_STORES_MAX && !close_least_recent(stores)) {
        free(key);
        ts_store_lock_release(lock);
        return ts_error_set(err, -E2BIG, TS_ERR_LIMIT,
                            "this daemon has %d stores busy at once; try again", TSD_STORES_MAX);
    }
    st = calloc(1, sizeof(*st));
    if (st == NULL) {
        free(key);
        ts_store_lock_release(lock);
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    st->root = key;
    st->cache.budget = &stores->snap_budget;
    atomic_init(&st->lock, lock);
    pthread_mutex_init(&st->lock_mutex, NULL);
    rc = ts_store_open(key, &st->store, err);
    if (rc == 0)
        ts_store_set_gate(st->store, &stores->gate);
    if (rc == 0 && tsd_rulescache_init(&st->rules, key) < 0) {
        ts_store_close(st->store);
        rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    if (rc < 0) {
        log_open_failure(stores, key, err);
        ts_store_lock_release(lock);
        pthread_mutex_destroy(&st->lock_mutex);
        free(st->root);
        free(st);
        return rc;
    }
    rc = lock != NULL ? ts_store_cleanup_temp(st->store, &cleanup_err) : 0;
    if (rc > 0)
        tsd_info("store %s: removed %d stray temp file(s)", key, rc);
    else if (rc < 0)
        tsd_warn("store %s: cleaning temp files: %s", key, cleanup_err.message);
    tsd_info("store opened: %s", key);
    tsd_obs_open(&st->obs, stores->state, key);
    check_exposure(st);
    st->next = stores->list;
    stores->list = st;
    stores->count++;
    *out = st;
    return 0;
}

ts_list_cache *tsd_store_list_cache(tsd_stores *stores, tsd_store *st)
{
    if (st->list_cache != NULL)
        return st->list_cache;
    if (stores->list_budget.max == 0)
        stores->list_budget.max =
            stores->caches_max < TSD_LIST_CACHE_BYTES ? stores->caches_max : TSD_LIST_CACHE_BYTES;
    if (ts_list_cache_new(&stores->list_budget, TS_CHECK_RACY_NS, &st->list_cache) < 0)
        st->list_cache = NULL;
    return st->list_cache;
}

void tsd_stores_check_locks(tsd_stores *stores)
{
    for (tsd_store *st = stores->list; st != NULL; st = st->next) {
        ts_store_lock *lock = atomic_load(&st->lock);
        ts_error err;

        /* a job may be taking it right now: look again next time */
        if (lock == NULL || ts_store_lock_held(lock) || pthread_mutex_trylock(&st->lock_mutex) != 0)
            continue;
        tsd_warn("store %s: its lock file was removed or replaced; taking it again", st->root);
        atomic_store(&st->lock, NULL);
        ts_store_lock_release(lock);
        pthread_mutex_unlock(&st->lock_mutex);
        if (lock_existing(stores, st, &err) < 0)
            tsd_warn("store %s: %s", st->root, err.message);
    }
}

void tsd_stores_close_all(tsd_stores *stores)
{
    while (stores->list != NULL) {
        tsd_store *st = stores->list;
        stores->list = st->next;
        store_free(st);
    }
    stores->count = 0;
}
