/*
 * snapcache — parsed snapshots validated by their file's stamp (see
 * snapcache.h).
 */
#include "snapcache.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct tsd_snapcache_entry {
    char *name;
    ts_file_stamp stamp; /* of the file that was read */
    int64_t read_ns;     /* CLOCK_REALTIME just before it was read */
    ts_snapshot *snap;
    tsd_snapcache_entry *chain;       /* in its bucket */
    tsd_snapcache_entry *prev, *next; /* in the LRU list */
};

static int64_t realtime_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static size_t bucket_of(const char *name)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */

    for (const unsigned char *p = (const unsigned char *)name; *p != '\0'; p++)
        h = (h ^ *p) * 1099511628211ull;
    return (size_t)(h % TSD_SNAPCACHE_BUCKETS);
}

/* Old enough that a later change must show in the stamp. */
static bool trusted(const ts_file_stamp *stamp, int64_t read_ns)
{
    return stamp->exists && stamp->mtime_ns < read_ns - TSD_SNAPCACHE_RACY_NS &&
           stamp->ctime_ns < read_ns - TSD_SNAPCACHE_RACY_NS;
}

static void lru_unlink(tsd_snapcache *c, tsd_snapcache_entry *e)
{
    if (e->prev != NULL)
        e->prev->next = e->next;
    else
        c->lru_head = e->next;
    if (e->next != NULL)
        e->next->prev = e->prev;
    else
        c->lru_tail = e->prev;
    e->prev = e->next = NULL;
}

static void lru_push(tsd_snapcache *c, tsd_snapcache_entry *e)
{
    e->prev = NULL;
    e->next = c->lru_head;
    if (c->lru_head != NULL)
        c->lru_head->prev = e;
    c->lru_head = e;
    if (c->lru_tail == NULL)
        c->lru_tail = e;
}

static tsd_snapcache_entry *find(tsd_snapcache *c, const char *name, tsd_snapcache_entry ***link)
{
    tsd_snapcache_entry **p = &c->buckets[bucket_of(name)];

    while (*p != NULL && strcmp((*p)->name, name) != 0)
        p = &(*p)->chain;
    *link = p;
    return *p;
}

static void drop(tsd_snapcache *c, tsd_snapcache_entry *e)
{
    tsd_snapcache_entry **link;

    if (find(c, e->name, &link) == e)
        *link = e->chain;
    lru_unlink(c, e);
    ts_snapshot_free(e->snap);
    free(e->name);
    free(e);
    c->count--;
}

/* Keep snap (taken over) for name. */
static void keep(tsd_snapcache *c, const char *name, ts_snapshot *snap, const ts_file_stamp *stamp,
                 int64_t read_ns)
{
    tsd_snapcache_entry **link;
    tsd_snapcache_entry *e;

    if (c->count >= TSD_SNAPCACHE_MAX && c->lru_tail != NULL)
        drop(c, c->lru_tail);
    e = calloc(1, sizeof(*e));
    if (e != NULL)
        e->name = strdup(name);
    if (e == NULL || e->name == NULL) {
        free(e);
        ts_snapshot_free(snap);
        return; /* out of memory: simply not cached */
    }
    e->stamp = *stamp;
    e->read_ns = read_ns;
    e->snap = snap;
    (void)find(c, name, &link);
    e->chain = *link;
    *link = e;
    lru_push(c, e);
    c->count++;
}

int tsd_snapcache_load(tsd_snapcache *cache, ts_store *store, const ts_store_root_seen *root,
                       const char *name, size_t max_bytes, const ts_snapshot **out, ts_error *err)
{
    tsd_snapcache_entry **link;
    tsd_snapcache_entry *e = find(cache, name, &link);
    ts_file_stamp now;
    ts_snapshot *snap = NULL;
    int64_t read_ns;
    int rc;

    if (e != NULL) {
        rc = ts_store_stat_seen(store, root, name, &now, err);
        if (rc == 0 && ts_file_stamp_equal(&now, &e->stamp) && trusted(&e->stamp, e->read_ns)) {
            lru_unlink(cache, e);
            lru_push(cache, e);
            *out = e->snap;
            return 0;
        }
        drop(cache, e);
    }
    read_ns = realtime_ns();
    rc = ts_store_load_small(store, name, max_bytes, &snap, &now, err);
    if (rc < 0)
        return rc;
    keep(cache, name, snap, &now, read_ns);
    e = find(cache, name, &link);
    if (e == NULL) /* could not be kept: out of memory */
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    *out = e->snap;
    return 0;
}

void tsd_snapcache_clear(tsd_snapcache *cache)
{
    while (cache->lru_head != NULL)
        drop(cache, cache->lru_head);
}
