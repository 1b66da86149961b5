/*
 * listing — the list method and its held listings (see snapshots_internal.h).
 */
#include "snapshots_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "lib/store/ts_store.h"

/* Listings of more entries than this give their memory back to the system
 * when freed (malloc_trim): glibc would otherwise keep the heap at its peak. */
#define TRIM_AFTER 1000

struct tsd_listing {
    char handle[48]; /* "<sequence>-<16 random hex>"; a cursor is "<handle>-<position>" */
    char *root;      /* the store's key */
    ts_store_summaries sums;
    uint64_t used_ms;  /* for the idle limit */
    uint64_t used_seq; /* for least recently used (ms ties) */
    struct tsd_listing *next;
};

static void listing_free(tsd_listing *l)
{
    bool trim = l->sums.count > TRIM_AFTER;

    ts_store_summaries_free(&l->sums);
    free(l->root);
    free(l);
    if (trim)
        malloc_trim(0);
}

void tsd_listings_free(tsd_snapshots *sn)
{
    while (sn->listings != NULL) {
        tsd_listing *l = sn->listings;

        sn->listings = l->next;
        listing_free(l);
    }
    sn->listing_count = 0;
}

static void unlink_listing(tsd_snapshots *sn, tsd_listing *l)
{
    for (tsd_listing **p = &sn->listings; *p != NULL; p = &(*p)->next) {
        if (*p == l) {
            *p = l->next;
            sn->listing_count--;
            return;
        }
    }
}

/* Drop held listings unused for too long, and the least recently used ones
 * past room free places. */
static void expire(tsd_snapshots *sn, size_t room)
{
    uint64_t now = tsd_server_now_ms(sn->server);
    tsd_listing *l = sn->listings;

    while (l != NULL) {
        tsd_listing *next = l->next;

        if (now - l->used_ms >= TSD_LISTING_IDLE_MS) {
            unlink_listing(sn, l);
            listing_free(l);
        }
        l = next;
    }
    while (sn->listing_count + room > TSD_LISTINGS_MAX) {
        tsd_listing *oldest = sn->listings;

        for (l = sn->listings; l != NULL; l = l->next) {
            if (l->used_seq < oldest->used_seq)
                oldest = l;
        }
        unlink_listing(sn, oldest);
        listing_free(oldest);
    }
}

/* Add key (a string constant, not yet in o) to o: no copy of the key, no lookup. */
static void add_new(struct json_object *o, const char *key, struct json_object *v)
{
    json_object_object_add_ex(o, key, v,
                              JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_KEY_IS_CONSTANT);
}

/* A list entry: {name, approved, calls (count), created_at, updated_at, source, file}. */
static struct json_object *summary_entry(const char *root, const ts_store_summary *s)
{
    struct json_object *o = json_object_new_object();
    char file[PATH_MAX];
    size_t root_len = strlen(root);
    size_t file_len = strlen(s->file);

    if (root_len + 1 + file_len >= sizeof(file))
        file_len = sizeof(file) - root_len - 2; /* cannot happen: the store checks its root */
    memcpy(file, root, root_len);
    file[root_len] = '/';
    memcpy(file + root_len + 1, s->file, file_len);
    add_new(o, "name", json_object_new_string(s->name));
    add_new(o, "approved", json_object_new_boolean(s->approved));
    add_new(o, "calls", json_object_new_int64((int64_t)s->calls));
    add_new(o, "created_at", json_object_new_string(s->created_at));
    add_new(o, "updated_at", json_object_new_string(s->updated_at));
    add_new(o, "source", json_object_new_string(s->source));
    add_new(o, "file", json_object_new_string_len(file, (int)(root_len + 1 + file_len)));
    return o;
}

/* The reply for the limit entries of l from position from on (limit 0:
 * all), problems only on the first page; next is the cursor of the page
 * after this one, nil when this page ends the listing. *more tells which. */
static struct json_object *page(const tsd_listing *l, size_t from, size_t limit, bool first,
                                bool *more)
{
    struct json_object *result = json_object_new_object();
    struct json_object *items = json_object_new_array();
    struct json_object *problems = json_object_new_array();
    size_t end = l->sums.count;
    char next[sizeof(l->handle) + 24];

    if (limit > 0 && limit < end - from)
        end = from + limit;
    *more = end < l->sums.count;
    snprintf(next, sizeof(next), "%s-%zu", l->handle, end);
    for (size_t i = from; i < end; i++)
        json_object_array_add(items, summary_entry(l->root, &l->sums.items[i]));
    for (size_t i = 0; first && i < l->sums.problem_count; i++) {
        struct json_object *p = json_object_new_object();
        char file[PATH_MAX];

        snprintf(file, sizeof(file), "%s/%s", l->root, l->sums.problems[i].file);
        json_object_object_add(p, "file", json_object_new_string(file));
        json_object_object_add(p, "message", json_object_new_string(l->sums.problems[i].message));
        json_object_array_add(problems, p);
    }
    json_object_object_add(result, "snapshots", items);
    json_object_object_add(result, "problems", problems);
    json_object_object_add(result, "total", json_object_new_int64((int64_t)l->sums.count));
    json_object_object_add(result, "next", *more ? json_object_new_string(next) : NULL);
    return result;
}

/* Keep only the pending entries (their strings stay in sums->strings). */
static void keep_pending(ts_store_summaries *sums)
{
    size_t n = 0;

    for (size_t i = 0; i < sums->count; i++) {
        if (!sums->items[i].approved)
            sums->items[n++] = sums->items[i];
    }
    sums->count = n;
}

/* ---- the first page: a whole-store job on the pool -------------------- */

typedef struct list_job {
    tsd_job job;
    tsd_snapshots *sn;
    tsd_request *req;
    tsd_store *st;
    tsd_listing *l;
    ts_list_cache *cache; /* the store's (NULL: none), used on the pool thread */
    bool pending;
    size_t limit;              /* 0: no limit */
    ts_list_cache_stats stats; /* of the cache after this listing */
    ts_error err;
    int rc;
} list_job;

static void list_work(tsd_job *job)
{
    list_job *c = (list_job *)job;

    c->rc = ts_store_list_summaries_cached(c->st->store, c->cache, &c->l->sums, &c->err);
    /* No other listing of this store runs meanwhile (whole-store jobs). */
    if (c->cache != NULL)
        ts_list_cache_get_stats(c->cache, &c->stats);
    if (c->rc == 0 && c->pending)
        keep_pending(&c->l->sums);
}

static void list_done(tsd_job *job)
{
    list_job *c = (list_job *)job;
    tsd_snapshots *sn = c->sn;
    tsd_listing *l = c->l;
    struct json_object *result = NULL;
    bool more = false;

    if (c->rc == 0) {
        tsd_debug("list %s: %zu snapshots, %zu problems; %zu files from the cache, %zu read; "
                  "cache %zu summaries, %zu bytes",
                  l->root, l->sums.count, l->sums.problem_count, c->stats.reused, c->stats.read,
                  c->stats.entries, c->stats.bytes);
        result = page(l, 0, c->limit, true, &more);
    }
    tsd_request_finish(c->req, c->rc, result, &c->err);
    json_object_put(result);
    if (more) {
        expire(sn, 1);
        l->used_ms = tsd_server_now_ms(sn->server);
        l->used_seq = ++sn->listing_seq;
        l->next = sn->listings;
        sn->listings = l;
        sn->listing_count++;
    } else {
        listing_free(l);
    }
    free(c);
}

/* The held listing and the position a cursor names, or NULL. */
static tsd_listing *find_cursor(tsd_snapshots *sn, const char *cursor, size_t *pos)
{
    const char *dash = strrchr(cursor, '-');
    size_t handle_len = dash != NULL ? (size_t)(dash - cursor) : 0;
    char *end = NULL;
    unsigned long long at;

    if (dash == NULL || dash[1] < '0' || dash[1] > '9')
        return NULL;
    errno = 0;
    at = strtoull(dash + 1, &end, 10);
    if (errno != 0 || *end != '\0')
        return NULL;
    for (tsd_listing *l = sn->listings; l != NULL; l = l->next) {
        if (strlen(l->handle) == handle_len && memcmp(l->handle, cursor, handle_len) == 0) {
            if (at > l->sums.count)
                return NULL;
            *pos = (size_t)at;
            return l;
        }
    }
    return NULL;
}

/* The page a cursor names, answered at once. The listing stays held (until
 * idle or pushed out), so the same cursor asked again gives the same page:
 * a client that lost a reply may retry. */
static int next_page(tsd_snapshots *sn, const char *cursor, const char *root, size_t limit,
                     struct json_object **result, ts_error *err)
{
    tsd_listing *l = NULL;
    char *key = NULL;
    size_t pos = 0;
    bool more;
    int rc;

    expire(sn, 0);
    l = find_cursor(sn, cursor, &pos);
    if (l == NULL)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "unknown or expired listing cursor '%.64s'; list again from the start",
                            cursor);
    if (strcmp(root, l->root) != 0) {
        rc = tsd_stores_normalize(&sn->stores, root, &key, err);
        if (rc < 0)
            return rc;
        rc = strcmp(key, l->root);
        free(key);
        if (rc != 0)
            return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                                "listing cursor '%.64s' belongs to the store %s", cursor, l->root);
    }
    *result = page(l, pos, limit, false, &more);
    l->used_ms = tsd_server_now_ms(sn->server);
    l->used_seq = ++sn->listing_seq;
    return 0;
}

/* "<sequence>-<16 random hex>": unique in this daemon, not guessable. */
static void make_handle(tsd_snapshots *sn, char *out, size_t outsz)
{
    uint64_t r = 0;

    if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
        r = uv_hrtime();
    snprintf(out, outsz, "%" PRIu64 "-%016" PRIx64, ++sn->listing_seq, r);
}

int tsd_list(void *state, tsd_request *req, const struct json_object *params,
             struct json_object **result, ts_error *err)
{
    tsd_snapshots *sn = state;
    const char *root, *cursor;
    bool pending;
    int64_t limit;
    tsd_store *st = NULL;
    list_job *c;
    tsd_params p;
    int rc;

    tsd_params_init(&p, params, err);
    root = tsd_params_string(&p, "store", true);
    pending = tsd_params_bool(&p, "pending", false);
    limit = tsd_params_int(&p, "limit", 0);
    if (tsd_params_error(&p) == 0 &&
        json_object_object_get((struct json_object *)params, "limit") != NULL &&
        (limit < 1 || limit > TSD_LISTING_LIMIT_MAX))
        tsd_params_fail(&p, ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                                         "'limit' must be from 1 to %d, got %" PRId64,
                                         TSD_LISTING_LIMIT_MAX, limit));
    cursor = tsd_params_string(&p, "cursor", false);
    rc = tsd_params_error(&p);
    if (rc < 0)
        return rc;
    if (cursor != NULL)
        return next_page(sn, cursor, root, (size_t)limit, result, err);
    rc = tsd_stores_get(&sn->stores, root, &st, err);
    if (rc < 0)
        return rc;
    c = calloc(1, sizeof(*c));
    if (c != NULL)
        c->l = calloc(1, sizeof(*c->l));
    if (c != NULL && c->l != NULL)
        c->l->root = strdup(st->root);
    if (c == NULL || c->l == NULL || c->l->root == NULL) {
        if (c != NULL && c->l != NULL)
            free(c->l->root);
        if (c != NULL)
            free(c->l);
        free(c);
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    make_handle(sn, c->l->handle, sizeof(c->l->handle));
    c->sn = sn;
    c->req = req;
    c->st = st;
    c->cache = tsd_store_list_cache(&sn->stores, st);
    c->pending = pending;
    c->limit = (size_t)limit;
    ts_error_clear(&c->err);
    c->job.loop = sn->loop;
    c->job.queue = &st->jobs;
    c->job.key = NULL;       /* the whole store: after every earlier request */
    c->job.read_only = true; /* later checks of single snapshots need not wait */
    c->job.on_pool = true;
    c->job.work_fn = list_work;
    c->job.done_fn = list_done;
    tsd_jobs_submit(&c->job);
    return TSD_ASYNC;
}
