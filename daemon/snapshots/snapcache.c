/*
 * snapcache — parsed snapshots validated by their file's stamp (see
 * snapshots_internal.h).
 */
#include "snapshots_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lib/base/ts_base.h"
#include "lib/check/ts_check.h"
#include "lib/extract/ts_extract.h"
#include "lib/json/ts_json.h"
#include "lib/runreport/ts_runreport.h"
#include "proto/ts_proto.h"

struct tsd_snapcache_entry {
    char *name;
    char *path;          /* ts_store_path of name */
    ts_file_stamp stamp; /* of the file that was read */
    int64_t read_ns;     /* CLOCK_REALTIME just before it was read */
    ts_snapshot *snap;
    /* For checks whose observed calls equal the snapshot's: */
    int wire_state;                               /* 0 not worked out, 1 in wire, -1 none */
    ts_buf wire;                                  /* msgpack of snap->calls (ts_wire_encode) */
    bool has_self;                                /* self holds the score with self_opt */
    ts_score_options self_opt;                    /* options of the last self score */
    ts_score_result self;                         /* snap->calls scored against themselves */
    ts_buf self_packed;                           /* self, packed as a check reply's result */
    ts_rules *self_rules;                         /* the rules of self (a reference), or NULL */
    ts_buf self_rules_packed;                     /* what they did, packed (empty: none applied) */
    struct json_object *self_calls;               /* snap->calls redacted by self_rules */
    ts_buf calls_text;                            /* compact JSON of self_calls, when worked out */
    char calls_id[TS_RUNREPORT_CALLS_ID_LEN + 1]; /* its text id; "" until then */
    size_t weight;                                /* its share of the budget */
    size_t parsed;                                /* what of it the trees weigh */
    /* The trees (snap->calls, self_calls) dropped: only a replay of the
     * wire bytes under self_opt and self_rules is answered from it. */
    bool slim;
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
    return (size_t)(ts_hash_string(name) % TSD_SNAPCACHE_BUCKETS);
}

/* Old enough that a later change must show in the stamp. */
static bool trusted(const ts_file_stamp *stamp, int64_t read_ns)
{
    return stamp->exists &&
           ts_check_stamp_trusted(stamp->mtime_ns, stamp->ctime_ns, read_ns, TS_CHECK_RACY_NS);
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
    size_t weight = e->weight;

    if (find(c, e->name, &link) == e)
        *link = e->chain;
    lru_unlink(c, e);
    ts_snapshot_free(e->snap);
    free(e->path);
    ts_buf_free(&e->wire);
    ts_buf_free(&e->self_packed);
    ts_buf_free(&e->self_rules_packed);
    ts_rules_unref(e->self_rules);
    json_object_put(e->self_calls);
    ts_buf_free(&e->calls_text);
    if (e->has_self)
        ts_score_result_free(&e->self);
    free(e->name);
    free(e);
    if (c->budget != NULL)
        c->budget->used -= weight;
    c->count--;
}

/*
 * The entry to make room with: one at random (the first of a random
 * non-empty bucket). A suite replaying more snapshots than the budget holds
 * replays them in a cycle, where dropping the least recently used would
 * drop each one just before it is wanted again (no check would find its
 * entry); at random, about as many are found as are kept (72% of the checks
 * for a cycle of 2,000 with room for 1,700), and a working set that fits is
 * never dropped from.
 */
static tsd_snapcache_entry *victim(tsd_snapcache *c)
{
    size_t b;

    if (c->random == 0)
        c->random = 0x9e3779b97f4a7c15ull;
    c->random ^= c->random << 13; /* xorshift64 */
    c->random ^= c->random >> 7;
    c->random ^= c->random << 17;
    b = (size_t)(c->random % TSD_SNAPCACHE_BUCKETS);
    for (size_t i = 0; i < TSD_SNAPCACHE_BUCKETS; i++) {
        tsd_snapcache_entry *e = c->buckets[(b + i) % TSD_SNAPCACHE_BUCKETS];

        if (e != NULL)
            return e;
    }
    return c->lru_tail;
}

/*
 * The heap json-c holds for v, about: an object is its hash table of 16
 * slots (json-c's default for every object, whatever its size), an array
 * its list of 32, a string its bytes; each with the allocator's overhead.
 * Measured on the daemon's resident size: 1,000 snapshots of 10 calls
 * (1.3 KB files of flat args, 2.5 KB with nested ones) take 24 and 35 KB
 * each, entries included, which this and keep's terms give within 10%.
 */
static size_t tree_bytes(const struct json_object *v)
{
    size_t n = 0;

    switch (json_object_get_type(v)) {
    case json_type_object:
        n = 768;
        json_object_object_foreach((struct json_object *)v, key, member)
        {
            n += strlen(key) + tree_bytes(member);
        }
        return n;
    case json_type_array:
        n = 320;
        for (size_t i = 0; i < json_object_array_length(v); i++)
            n += 8 + tree_bytes(json_object_array_get_idx(v, i));
        return n;
    case json_type_string:
        return 64 + (size_t)json_object_get_string_len(v);
    case json_type_null:
        return 0;
    default:
        return 64;
    }
}

/* Keep snap (taken over) for name: its weight is what its values cost, the
 * entry, and what replays work out from it (packed calls, their text and
 * self score: about the file's size and 4 KB more). */
static void keep(tsd_snapcache *c, const char *name, const char *path, ts_snapshot *snap,
                 const ts_file_stamp *stamp, int64_t read_ns, size_t max_bytes)
{
    /* the price the read was charged (the whole document parsed, lib/json's
     * prices), else the calls' tree counted here */
    size_t parsed = snap->charge > 0 ? snap->charge : tree_bytes(snap->calls);
    size_t weight = sizeof(tsd_snapcache_entry) + 2 * strlen(path) + (size_t)stamp->size +
                    TSD_SNAPCACHE_ENTRY_EXTRA + parsed;
    size_t max =
        c->budget != NULL ? (c->budget->max > 0 ? c->budget->max : TSD_SNAPCACHE_BYTES) : 0;
    tsd_snapcache_entry **link;
    tsd_snapcache_entry *e;

    ts_snapshot_uncharge(snap); /* counted here from now on */

    while (c->lru_tail != NULL &&
           (c->count >= TSD_SNAPCACHE_MAX || (max > 0 && c->budget->used + weight > max)))
        drop(c, victim(c));
    if (max > 0 && c->budget->used + weight > max) {
        ts_snapshot_free(snap); /* the other stores' entries fill the budget */
        return;
    }
    e = calloc(1, sizeof(*e));
    if (e != NULL) {
        e->name = strdup(name);
        e->path = strdup(path);
    }
    if (e == NULL || e->name == NULL || e->path == NULL) {
        if (e != NULL) {
            free(e->name);
            free(e->path);
        }
        free(e);
        ts_snapshot_free(snap);
        return; /* out of memory: simply not cached */
    }
    ts_buf_init(&e->wire, max_bytes);
    ts_buf_init(&e->self_packed, TS_BUF_UNLIMITED);
    ts_buf_init(&e->self_rules_packed, TS_BUF_UNLIMITED);
    ts_buf_init(&e->calls_text, TS_BUF_UNLIMITED);
    e->stamp = *stamp;
    e->read_ns = read_ns;
    e->snap = snap;
    e->weight = weight;
    e->parsed = parsed;
    if (c->budget != NULL)
        c->budget->used += weight;
    (void)find(c, name, &link);
    e->chain = *link;
    *link = e;
    lru_push(c, e);
    c->count++;
}

int tsd_snapcache_load(tsd_snapcache *cache, ts_store *store, const char *name, size_t max_bytes,
                       const ts_snapshot **out, ts_error *err)
{
    tsd_snapcache_entry **link;
    tsd_snapcache_entry *e = find(cache, name, &link);
    char path[PATH_MAX];
    ts_file_stamp now;
    ts_snapshot *snap = NULL;
    int64_t read_ns;
    int rc;

    if (e != NULL) {
        rc = ts_store_stat(store, name, &now, err);
        if (rc == 0 && !e->slim && ts_file_stamp_equal(&now, &e->stamp) &&
            trusted(&e->stamp, e->read_ns)) {
            lru_unlink(cache, e);
            lru_push(cache, e);
            *out = e->snap;
            return 0;
        }
        drop(cache, e);
    }
    read_ns = realtime_ns();
    rc = ts_store_load_small(store, name, max_bytes, &snap, &now, err);
    if (rc == 0)
        rc = ts_store_path(store, name, path, sizeof(path), err);
    if (rc < 0) {
        ts_snapshot_free(snap);
        return rc;
    }
    tsd_debug("snapshot cache: %s read from its file", name);
    keep(cache, name, path, snap, &now, read_ns, max_bytes);
    e = find(cache, name, &link);
    if (e == NULL) /* could not be kept: out of memory */
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    *out = e->snap;
    return 0;
}

/*
 * The snapshot's calls as a client's library sends an equal list: kept only
 * when extracting that list ("auto", as a check does) hands back the very
 * same list, so that equal bytes mean "the observed calls are these".
 */
static void work_out_wire(tsd_snapcache_entry *e)
{
    struct json_object *calls = NULL;
    ts_error ignored;
    int rc = ts_extract_shared(e->snap->calls, "auto", TS_EXTRACT_RESPONSE, &calls, &ignored);

    e->wire_state = -1;
    if (rc == 0 && calls == e->snap->calls && ts_wire_encode(calls, &e->wire, &ignored) == 0)
        e->wire_state = 1;
    json_object_put(calls);
}

bool tsd_snapcache_path(tsd_snapcache *cache, const char *name, char *out, size_t outsz)
{
    tsd_snapcache_entry **link;
    tsd_snapcache_entry *e = find(cache, name, &link);
    size_t len;

    if (e == NULL)
        return false;
    len = strlen(e->path);
    if (len >= outsz)
        return false;
    memcpy(out, e->path, len + 1);
    return true;
}

/* Whether bytes[0..len) are e's packed calls (worked out already). */
static bool same_wire(const tsd_snapcache_entry *e, const void *bytes, size_t len)
{
    return e->wire_state == 1 && e->wire.len == len && memcmp(e->wire.data, bytes, len) == 0;
}

bool tsd_snapcache_same_calls(tsd_snapcache *cache, const char *name, const void *bytes, size_t len)
{
    tsd_snapcache_entry **link;
    tsd_snapcache_entry *e = find(cache, name, &link);

    if (e == NULL)
        return false;
    if (e->wire_state == 0)
        work_out_wire(e);
    return same_wire(e, bytes, len);
}

/* e's self score, packed, appended to packed, and what its rules did to
 * rules_packed (nothing when none applied); -ENOMEM with both emptied. */
static int append_self(const tsd_snapcache_entry *e, ts_buf *packed, ts_buf *rules_packed)
{
    if ((e->self_rules_packed.len > 0 &&
         ts_buf_append(rules_packed, e->self_rules_packed.data, e->self_rules_packed.len) < 0) ||
        ts_buf_append(packed, e->self_packed.data, e->self_packed.len) < 0) {
        ts_buf_reset(rules_packed);
        ts_buf_reset(packed);
        return -ENOMEM;
    }
    return 0;
}

/* Score e's calls against themselves with opt under rules, and pack the
 * result and what the rules did. */
static int work_out_self(tsd_snapcache_entry *e, const ts_score_options *opt, ts_rules *rules,
                         ts_error *err)
{
    ts_wire_writer w;
    ts_score_result r;
    ts_rules_applied applied;
    struct json_object *did, *calls = NULL;
    /* validated when the file was read */
    int rc = ts_rules_evaluate(rules, e->snap->calls, e->snap->calls, opt, true, &r, &applied, err);

    did = rc == 0 ? ts_rules_applied_to_json(&applied) : NULL;
    ts_rules_applied_free(&applied);
    if (rc < 0)
        return rc;
    rc = ts_rules_redact(rules, e->snap->calls, &calls, NULL, err);
    if (rc < 0) {
        json_object_put(did);
        ts_score_result_free(&r);
        return rc;
    }
    ts_buf_reset(&e->self_packed);
    ts_wire_writer_init(&w, &e->self_packed);
    rc = ts_message_pack_score_result(&w, &r, 2, err);
    ts_buf_reset(&e->self_rules_packed);
    if (rc == 0 && did != NULL)
        rc = ts_wire_encode(did, &e->self_rules_packed, err);
    json_object_put(did);
    if (rc < 0) {
        json_object_put(calls);
        ts_score_result_free(&r);
        return rc;
    }
    json_object_put(e->self_calls);
    e->self_calls = calls;
    e->calls_id[0] = '\0'; /* the text of other calls now */
    if (e->has_self)
        ts_score_result_free(&e->self);
    e->self = r;
    e->self_opt = *opt;
    ts_rules_unref(e->self_rules);
    e->self_rules = ts_rules_ref(rules);
    e->has_self = true;
    return 0;
}

int tsd_snapcache_self_score(tsd_snapcache *cache, const char *name, const ts_score_options *opt,
                             ts_rules *rules, ts_score_result *out, ts_buf *packed,
                             ts_buf *rules_packed, struct json_object **calls, ts_error *err)
{
    tsd_snapcache_entry **link;
    tsd_snapcache_entry *e = find(cache, name, &link);
    int rc;

    if (e == NULL || e->slim)
        return ts_error_set(err, -ENOENT, TS_ERR_INTERNAL, "snapshot '%s' is not cached", name);
    if (ts_rules_empty(rules))
        rules = NULL;
    if (!e->has_self || !ts_score_options_equal(&e->self_opt, opt) || e->self_rules != rules) {
        rc = work_out_self(e, opt, rules, err);
        if (rc < 0)
            return rc;
    }
    if (append_self(e, packed, rules_packed) < 0)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    ts_score_result_share(out, &e->self);
    *calls = json_object_get(e->self_calls);
    return 0;
}

/* e's self_calls as compact JSON text, and its id, worked out once. */
static int work_out_text(tsd_snapcache_entry *e)
{
    if (e->calls_id[0] != '\0')
        return 0;
    ts_buf_reset(&e->calls_text);
    if (ts_json_write_compact(e->self_calls, &e->calls_text, NULL) < 0)
        return -ENOMEM;
    ts_runreport_text_id(e->calls_text.data, e->calls_text.len, e->calls_id);
    return 0;
}

int tsd_snapcache_calls_text(tsd_snapcache *cache, const char *name,
                             const struct json_object *calls, const char **text, size_t *len,
                             const char **id)
{
    tsd_snapcache_entry **link;
    tsd_snapcache_entry *e = find(cache, name, &link);

    if (e == NULL || e->self_calls == NULL || calls != e->self_calls)
        return -ENOENT;
    if (work_out_text(e) < 0)
        return -ENOMEM;
    *text = e->calls_text.data != NULL ? e->calls_text.data : "";
    *len = e->calls_text.len;
    *id = e->calls_id;
    return 0;
}

int tsd_snapcache_load_quick(tsd_snapcache *cache, const char *name, const ts_snapshot **out)
{
    tsd_snapcache_entry **link;
    tsd_snapcache_entry *e = find(cache, name, &link);
    ts_file_stamp now;
    struct stat st;

    if (e == NULL || !trusted(&e->stamp, e->read_ns))
        return -EAGAIN;
    if (lstat(e->path, &st) < 0)
        return -EAGAIN;
    ts_file_stamp_from_stat(&st, &now);
    if (!ts_file_stamp_equal(&now, &e->stamp))
        return -EAGAIN;
    lru_unlink(cache, e);
    lru_push(cache, e);
    *out = e->snap;
    return e->slim ? 1 : 0;
}

void tsd_snapcache_slim(tsd_snapcache *cache, const char *name)
{
    tsd_snapcache_entry **link;
    tsd_snapcache_entry *e = find(cache, name, &link);

    if (e == NULL || e->slim || !e->snap->approved || e->wire_state != 1 || !e->has_self ||
        !e->self.passed || e->self_calls == NULL || work_out_text(e) < 0)
        return;
    json_object_put(e->snap->calls);
    e->snap->calls = NULL;
    json_object_put(e->self_calls);
    e->self_calls = NULL;
    e->slim = true;
    e->weight -= e->parsed;
    if (cache->budget != NULL)
        cache->budget->used -= e->parsed;
    e->parsed = 0;
}

int tsd_snapcache_known(tsd_snapcache *cache, const char *name, const void *bytes, size_t len,
                        const ts_score_options *opt, ts_rules *rules, ts_score_result *out,
                        ts_buf *packed, ts_buf *rules_packed, tsd_snapcache_text *text)
{
    tsd_snapcache_entry **link;
    tsd_snapcache_entry *e = find(cache, name, &link);

    if (ts_rules_empty(rules))
        rules = NULL;
    if (e == NULL || !e->slim || e->self_rules != rules ||
        !ts_score_options_equal(&e->self_opt, opt) || !same_wire(e, bytes, len))
        return -EAGAIN;
    if (append_self(e, packed, rules_packed) < 0)
        return -ENOMEM;
    ts_score_result_share(out, &e->self);
    text->text = e->calls_text.data != NULL ? e->calls_text.data : "";
    text->len = e->calls_text.len;
    text->id = e->calls_id;
    return 0;
}

void tsd_snapcache_clear(tsd_snapcache *cache)
{
    while (cache->lru_head != NULL)
        drop(cache, cache->lru_head);
}
