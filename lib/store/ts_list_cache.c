/*
 * ts_list_cache — listing summaries kept between listings, validated by
 * their file's stamp (see ts_store.h and docs/internals/list_cache.md).
 *
 * The kept summaries live in one block, one after another (8-byte aligned),
 * found by file name through an open-addressing table of 32-bit offsets
 * into the block (linear probing, at most half full). Each listing builds a
 * new block from what it saw and frees the old one: no per-entry
 * allocation, nothing left behind by removed files, and the block is its
 * own mapping, given back to the system when freed.
 */
#include "lib/store/ts_store.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "lib/check/ts_check.h"

#define SLOT_EMPTY UINT32_MAX

struct ts_list_cache {
    pthread_mutex_t lock; /* held by the listing that uses the cache */
    ts_list_budget *budget;
    int64_t racy_ns;
    void *map; /* one mapping: slots, then block (NULL when empty) */
    size_t map_len;
    char *block;     /* the kept summaries */
    uint32_t *slots; /* offsets into block, SLOT_EMPTY when free */
    size_t slot_mask;
    size_t count;
    size_t bytes; /* block and slots, as charged to the budget */
    size_t reused, read;
};

static size_t align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static size_t text_len(const ts_list_summary *sum)
{
    return (size_t)sum->file_len + sum->name_len + sum->source_len + sum->created_len +
           sum->updated_len + 5;
}

/* Bytes sum takes in a block (and allocated on its own). */
static size_t summary_size(const ts_list_summary *sum)
{
    return align8(offsetof(ts_list_summary, text) + text_len(sum));
}

int ts_list_cache_new(ts_list_budget *budget, int64_t racy_ns, ts_list_cache **out)
{
    ts_list_cache *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return -ENOMEM;
    if (pthread_mutex_init(&c->lock, NULL) != 0) {
        free(c);
        return -ENOMEM;
    }
    c->budget = budget;
    c->racy_ns = racy_ns;
    *out = c;
    return 0;
}

/*
 * The cache's memory is mapped directly, not taken from malloc: a block of
 * many megabytes that lives for long, allocated from a malloc arena, keeps
 * the arena from shrinking back after the listing's own (short-lived)
 * allocations around it are freed; glibc's growing mmap threshold would put
 * it there after the first big free.
 */
static void *map_pages(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    return p == MAP_FAILED ? NULL : p;
}

static void unmap(void *p, size_t len)
{
    if (p != NULL)
        munmap(p, len);
}

/* Drop the contents (the lock held or no listing running). */
static void drop_contents(ts_list_cache *c)
{
    unmap(c->map, c->map_len);
    if (c->budget != NULL)
        atomic_fetch_sub(&c->budget->used, c->bytes);
    c->map = NULL;
    c->map_len = 0;
    c->block = NULL;
    c->slots = NULL;
    c->slot_mask = 0;
    c->count = 0;
    c->bytes = 0;
}

void ts_list_cache_free(ts_list_cache *cache)
{
    if (cache == NULL)
        return;
    drop_contents(cache);
    pthread_mutex_destroy(&cache->lock);
    free(cache);
}

void ts_list_cache_get_stats(ts_list_cache *cache, ts_list_cache_stats *out)
{
    pthread_mutex_lock(&cache->lock);
    out->entries = cache->count;
    out->bytes = cache->bytes;
    out->reused = cache->reused;
    out->read = cache->read;
    pthread_mutex_unlock(&cache->lock);
}

/* ---- summaries -------------------------------------------------------- */

void ts_list_summary_members(const ts_snapshot *s, ts_snapshot_scan *out)
{
    out->name = s->name;
    out->name_len = strlen(s->name);
    out->source = s->source != NULL ? s->source : "";
    out->source_len = strlen(out->source);
    out->created_at = s->created_at;
    out->created_len = strlen(s->created_at);
    out->updated_at = s->updated_at;
    out->updated_len = strlen(s->updated_at);
    out->approved = s->approved;
    out->calls = json_object_array_length(s->calls);
}

ts_list_summary *ts_list_summary_new(const ts_file_stamp *stamp, const char *file,
                                     const ts_snapshot_scan *m)
{
    const char *parts[5] = {file, m->name, m->source, m->created_at, m->updated_at};
    size_t lens[5] = {strlen(file), m->name_len, m->source_len, m->created_len, m->updated_len};
    ts_list_summary head = {0};
    ts_list_summary *sum;
    char *p;

    for (int i = 0; i < 5; i++) {
        if (lens[i] > UINT16_MAX)
            return NULL; /* cannot happen: the parser bounds every one */
    }
    if (m->calls > UINT32_MAX)
        return NULL;
    head.file_len = (uint16_t)lens[0];
    head.name_len = (uint16_t)lens[1];
    head.source_len = (uint16_t)lens[2];
    head.created_len = (uint16_t)lens[3];
    head.updated_len = (uint16_t)lens[4];
    sum = malloc(summary_size(&head));
    if (sum == NULL)
        return NULL;
    *sum = head;
    sum->dev = stamp->dev;
    sum->ino = stamp->ino;
    sum->size = stamp->size;
    sum->mtime_ns = stamp->mtime_ns;
    sum->ctime_ns = stamp->ctime_ns;
    sum->calls = (uint32_t)m->calls;
    sum->approved = m->approved;
    p = sum->text;
    for (int i = 0; i < 5; i++) {
        memcpy(p, parts[i], lens[i]);
        p[lens[i]] = '\0';
        p += lens[i] + 1;
    }
    return sum;
}

const char *ts_list_summary_file(const ts_list_summary *sum)
{
    return sum->text;
}

const char *ts_list_summary_name(const ts_list_summary *sum)
{
    return sum->text + sum->file_len + 1;
}

const char *ts_list_summary_source(const ts_list_summary *sum)
{
    return ts_list_summary_name(sum) + sum->name_len + 1;
}

const char *ts_list_summary_created(const ts_list_summary *sum)
{
    return ts_list_summary_source(sum) + sum->source_len + 1;
}

const char *ts_list_summary_updated(const ts_list_summary *sum)
{
    return ts_list_summary_created(sum) + sum->created_len + 1;
}

bool ts_list_summary__same_file(const ts_list_summary *sum, const ts_file_stamp *now)
{
    return now->exists && sum->dev == now->dev && sum->ino == now->ino && sum->size == now->size &&
           sum->mtime_ns == now->mtime_ns && sum->ctime_ns == now->ctime_ns;
}

/* ---- a listing -------------------------------------------------------- */

void ts_list_cache__begin(ts_list_cache *cache, int64_t *now_ns)
{
    struct timespec ts;

    pthread_mutex_lock(&cache->lock);
    clock_gettime(CLOCK_REALTIME, &ts);
    *now_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

const ts_list_summary *ts_list_cache__find(const ts_list_cache *cache, const char *file)
{
    size_t i;

    if (cache->count == 0)
        return NULL;
    for (i = ts_hash_string(file) & cache->slot_mask; cache->slots[i] != SLOT_EMPTY;
         i = (i + 1) & cache->slot_mask) {
        const ts_list_summary *sum = (const ts_list_summary *)(cache->block + cache->slots[i]);

        if (strcmp(ts_list_summary_file(sum), file) == 0)
            return sum;
    }
    return NULL;
}

bool ts_list_cache__trusted(const ts_list_cache *cache, const ts_list_summary *sum, int64_t now_ns)
{
    return ts_check_stamp_trusted(sum->mtime_ns, sum->ctime_ns, now_ns, cache->racy_ns);
}

/* Slots for n summaries: a power of two, at least twice n. */
static size_t slot_count(size_t n)
{
    size_t s = 16;

    while (s < 2 * n)
        s *= 2;
    return s;
}

/* How many of keep[0..n) fit in room bytes (block and slots) and their size. */
static size_t fitting(const ts_list_summary *const *keep, size_t n, size_t room, size_t *block)
{
    size_t used = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        size_t next = used + summary_size(keep[i]);

        if (next + slot_count(i + 1) * sizeof(uint32_t) > room || next > UINT32_MAX)
            break;
        used = next;
    }
    *block = used;
    return i;
}

/* Charge the budget for the new contents (replacing old bytes): how many of
 * keep fit, with their block size. */
static size_t reserve(ts_list_cache *c, const ts_list_summary *const *keep, size_t n, size_t *block)
{
    size_t used;
    size_t count;

    if (c->budget == NULL)
        return fitting(keep, n, SIZE_MAX, block);
    used = atomic_load(&c->budget->used);
    for (;;) {
        size_t others = used - c->bytes;
        size_t room = c->budget->max > others ? c->budget->max - others : 0;
        size_t total;

        count = fitting(keep, n, room, block);
        total = count > 0 ? *block + slot_count(count) * sizeof(uint32_t) : 0;
        if (atomic_compare_exchange_weak(&c->budget->used, &used, others + total))
            return count;
    }
}

/* Fill block and slots with keep[0..n), block_size bytes in all. */
static void fill(char *block, uint32_t *slots, size_t mask, const ts_list_summary *const *keep,
                 size_t n)
{
    size_t off = 0;

    for (size_t i = 0; i <= mask; i++)
        slots[i] = SLOT_EMPTY;
    for (size_t k = 0; k < n; k++) {
        size_t size = summary_size(keep[k]);
        size_t i = ts_hash_string(ts_list_summary_file(keep[k])) & mask;

        memcpy(block + off, keep[k], offsetof(ts_list_summary, text) + text_len(keep[k]));
        while (slots[i] != SLOT_EMPTY)
            i = (i + 1) & mask;
        slots[i] = (uint32_t)off;
        off += size;
    }
}

void ts_list_cache__abort(ts_list_cache *cache)
{
    pthread_mutex_unlock(&cache->lock);
}

void ts_list_cache__end(ts_list_cache *cache, const ts_list_summary *const *keep, size_t n,
                        size_t reused, size_t read)
{
    size_t block_size = 0;
    size_t count = reserve(cache, keep, n, &block_size);
    size_t nslots = slot_count(count);
    size_t slots_len = nslots * sizeof(uint32_t);
    size_t charged = count > 0 ? block_size + slots_len : 0;
    void *map = count > 0 ? map_pages(charged) : NULL;

    if (count > 0 && map == NULL) {
        if (cache->budget != NULL)
            atomic_fetch_sub(&cache->budget->used, charged); /* reserved, then out of memory */
        count = 0;
        charged = 0;
    }
    /* keep may point into the old block: fill the new one first. */
    if (count > 0)
        fill((char *)map + slots_len, map, nslots - 1, keep, count);
    unmap(cache->map, cache->map_len);
    cache->map = map;
    cache->map_len = charged;
    cache->slots = map;
    cache->block = count > 0 ? (char *)map + slots_len : NULL;
    cache->slot_mask = nslots - 1;
    cache->count = count;
    cache->bytes = charged;
    cache->reused = reused;
    cache->read = read;
    pthread_mutex_unlock(&cache->lock);
}
