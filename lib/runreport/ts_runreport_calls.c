/*
 * ts_runreport_calls — the call lists a report carries for its FAILED
 * checks (the JSON report's "calls", docs/reports.md): each distinct list
 * once, by its id, so a reader of the report alone (a page, a shard merge)
 * can show the baseline and the observed calls side by side. Bounded: a
 * list longer than TS_RUNREPORT_CALLS_LIST_MAX bytes of compact JSON, or
 * one past TS_RUNREPORT_CALLS_MAX bytes in all, is named but not carried.
 */
#include "ts_runreport_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"

/* The slot of id (its first 16 hex digits are already uniform). */
static size_t slot_of(const char *id, size_t nslots)
{
    uint64_t h = 0;

    for (int i = 0; i < TS_RUNREPORT_CALLS_ID_LEN && id[i]; i++)
        h = h << 4 | (uint64_t)(id[i] <= '9' ? id[i] - '0' : (id[i] | 0x20) - 'a' + 10);
    return (size_t)(h * 0x9E3779B97F4A7C15ULL) & (nslots - 1);
}

static rr_calls *find(const ts_runreport *r, const char *id)
{
    if (r->ncallslots == 0)
        return NULL;
    for (size_t s = slot_of(id, r->ncallslots); r->callslots[s] != 0;
         s = (s + 1) & (r->ncallslots - 1)) {
        rr_calls *e = &r->calls[r->callslots[s] - 1];

        if (strcmp(e->id, id) == 0)
            return e;
    }
    return NULL;
}

static int rehash(ts_runreport *r, size_t nslots)
{
    size_t *slots = calloc(nslots, sizeof(size_t));

    if (slots == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < r->ncalls; i++) {
        size_t s = slot_of(r->calls[i].id, nslots);

        while (slots[s] != 0)
            s = (s + 1) & (nslots - 1);
        slots[s] = i + 1;
    }
    free(r->callslots);
    r->callslots = slots;
    r->ncallslots = nslots;
    return 0;
}

/* Bytes of calls' compact JSON, or 0 when longer than the list maximum
 * (or not writable). */
static size_t compact_size(const struct json_object *calls)
{
    ts_buf b;
    size_t n;

    ts_buf_init(&b, TS_RUNREPORT_CALLS_LIST_MAX);
    if (ts_json_write_compact(calls, &b, NULL) < 0 || ts_buf_error(&b) < 0) {
        ts_buf_free(&b);
        return 0;
    }
    n = b.len > 0 ? b.len : 1;
    ts_buf_free(&b);
    return n;
}

/* The calls into e when the bounds allow (else e stays without them). */
static int take(ts_runreport *r, rr_calls *e, const struct json_object *calls, bool owned)
{
    size_t n = compact_size(calls);

    if (n == 0 || r->calls_bytes + n > TS_RUNREPORT_CALLS_MAX)
        return 0;
    e->calls = owned ? json_object_get((struct json_object *)calls) : ts_json_copy(calls);
    if (e->calls == NULL)
        return -ENOMEM;
    r->calls_bytes += n;
    return 0;
}

int rr_calls_keep(ts_runreport *r, const char *id, const struct json_object *calls, bool owned)
{
    rr_calls *e = find(r, id);

    if (e != NULL)
        return e->calls == NULL && calls != NULL ? take(r, e, calls, owned) : 0;
    if ((r->ncalls + 1) * 2 > r->ncallslots &&
        rehash(r, r->ncallslots ? r->ncallslots * 2 : 64) < 0)
        return -ENOMEM;
    if (r->ncalls == r->capcalls) {
        size_t cap = r->capcalls ? r->capcalls * 2 : 32;
        rr_calls *a = realloc(r->calls, cap * sizeof(*a));

        if (a == NULL)
            return -ENOMEM;
        r->calls = a;
        r->capcalls = cap;
    }
    e = &r->calls[r->ncalls];
    memset(e, 0, sizeof(*e));
    memcpy(e->id, id, TS_RUNREPORT_CALLS_ID_LEN);
    e->id[TS_RUNREPORT_CALLS_ID_LEN] = '\0';
    size_t s = slot_of(e->id, r->ncallslots);
    while (r->callslots[s] != 0)
        s = (s + 1) & (r->ncallslots - 1);
    r->callslots[s] = ++r->ncalls;
    return calls != NULL ? take(r, e, calls, owned) : 0;
}

const struct json_object *rr_calls_get(const ts_runreport *r, const char *id)
{
    const rr_calls *e = id != NULL && id[0] != '\0' ? find(r, id) : NULL;

    return e != NULL ? e->calls : NULL;
}

/* The calls of name's list id, when the report knows them and they have
 * that id (a report read from a file may hold lists under any id). */
static const struct json_object *list_calls(ts_runreport *r, const char *name, const char *id)
{
    const rr_name *n = rr_name_get(r, name, false);
    char real[TS_RUNREPORT_CALLS_ID_LEN + 1];

    for (size_t i = 0; n != NULL && i < n->nlists; i++) {
        if (strcmp(n->lists[i].id, id) != 0)
            continue;
        if (n->lists[i].calls == NULL || ts_runreport_calls_id(n->lists[i].calls, real, NULL) < 0 ||
            strcmp(real, id) != 0)
            return NULL;
        return n->lists[i].calls;
    }
    return NULL;
}

int rr_calls_of_check(ts_runreport *r, const rr_check *c, const struct json_object *observed,
                      const struct json_object *baseline, bool owned)
{
    int rc = 0;

    if (c->outcome != TS_RUNREPORT_FAILED)
        return 0;
    if (c->calls_id[0] != '\0') {
        if (observed != NULL)
            rc = rr_calls_keep(r, c->calls_id, observed, owned);
        else
            rc = rr_calls_keep(r, c->calls_id, list_calls(r, c->name, c->calls_id), true);
    }
    if (rc == 0 && c->baseline_id[0] != '\0')
        rc = rr_calls_keep(r, c->baseline_id, baseline, owned);
    return rc;
}

int64_t rr_calls_omitted(const ts_runreport *r)
{
    int64_t n = 0;

    for (size_t i = 0; i < r->ncalls; i++)
        n += r->calls[i].calls == NULL;
    return n;
}

static int compare_ids(const void *a, const void *b, void *arg)
{
    const rr_calls *calls = arg;

    return strcmp(calls[*(const size_t *)a].id, calls[*(const size_t *)b].id);
}

struct json_object *rr_calls_json(const ts_runreport *r)
{
    struct json_object *o = json_object_new_object();
    size_t *idx = malloc((r->ncalls ? r->ncalls : 1) * sizeof(size_t));

    if (o == NULL || idx == NULL) {
        json_object_put(o);
        free(idx);
        return NULL;
    }
    for (size_t i = 0; i < r->ncalls; i++)
        idx[i] = i;
    qsort_r(idx, r->ncalls, sizeof(size_t), compare_ids, r->calls);
    for (size_t i = 0; i < r->ncalls; i++) {
        const rr_calls *e = &r->calls[idx[i]];

        if (e->calls != NULL)
            json_object_object_add(o, e->id, json_object_get(e->calls));
    }
    free(idx);
    return o;
}

void rr_calls_free(ts_runreport *r)
{
    for (size_t i = 0; i < r->ncalls; i++)
        json_object_put(r->calls[i].calls);
    free(r->calls);
    free(r->callslots);
    r->calls = NULL;
    r->callslots = NULL;
    r->ncalls = r->capcalls = r->ncallslots = 0;
    r->calls_bytes = 0;
}

int rr_calls_merge(ts_runreport *dst, const ts_runreport *src)
{
    for (size_t i = 0; i < src->ncalls; i++) {
        if (rr_calls_keep(dst, src->calls[i].id, src->calls[i].calls, true) < 0)
            return -ENOMEM;
    }
    return 0;
}

const struct json_object *ts_runreport_calls_of(const ts_runreport *r, const char *id)
{
    return rr_calls_get(r, id);
}
