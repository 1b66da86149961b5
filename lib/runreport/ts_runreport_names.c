/*
 * ts_runreport_names — the names of a report: the table by name
 * (rr_name_get), a name's claims by tests and the distinct call lists it
 * was observed with, and the ids of texts and call lists. The bottom of
 * the folder: ts_runreport.c (adding, merging), ts_runreport_calls.c and
 * the format walkers call it; it calls none of them.
 */
#include "ts_runreport_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sha1.h>

#include "lib/json/ts_json.h"

/* Grow *arr (of *cap elements of size sz) to hold need elements. */
int rr_grow(void *arr, size_t *cap, size_t need, size_t sz)
{
    void **p = arr;
    size_t n = *cap ? *cap : 8;
    void *q;

    if (need <= *cap)
        return 0;
    while (n < need)
        n *= 2;
    q = realloc(*p, n * sz);
    if (q == NULL)
        return -ENOMEM;
    *p = q;
    *cap = n;
    return 0;
}

void rr_name_free(rr_name *n)
{
    if (n == NULL)
        return;
    free(n->name);
    for (size_t i = 0; i < n->ntests; i++)
        free(n->tests[i]);
    free(n->tests);
    for (size_t i = 0; i < n->nlists; i++) {
        free((char *)n->lists[i].id);
        json_object_put((struct json_object *)n->lists[i].calls);
    }
    free(n->lists);
    json_object_put(n->rules);
    free(n);
}

/* ---- the names table ------------------------------------------------- */

static int rehash(ts_runreport *r, size_t nslots)
{
    size_t *slots = calloc(nslots, sizeof(size_t));

    if (slots == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < r->nnames; i++) {
        size_t s = ts_hash_string(r->names[i]->name) & (nslots - 1);

        while (slots[s] != 0)
            s = (s + 1) & (nslots - 1);
        slots[s] = i + 1;
    }
    free(r->slots);
    r->slots = slots;
    r->nslots = nslots;
    return 0;
}

rr_name *rr_name_get(ts_runreport *r, const char *name, bool create)
{
    size_t s;
    rr_name *n;

    if (r->nslots > 0) {
        s = ts_hash_string(name) & (r->nslots - 1);
        while (r->slots[s] != 0) {
            n = r->names[r->slots[s] - 1];
            if (strcmp(n->name, name) == 0)
                return n;
            s = (s + 1) & (r->nslots - 1);
        }
    }
    if (!create)
        return NULL;
    if ((r->nnames + 1) * 2 > r->nslots && rehash(r, r->nslots ? r->nslots * 2 : 64) < 0)
        return NULL;
    if (rr_grow(&r->names, &r->capnames, r->nnames + 1, sizeof(rr_name *)) < 0)
        return NULL;
    n = calloc(1, sizeof(*n));
    if (n == NULL || (n->name = strdup(name)) == NULL) {
        free(n);
        return NULL;
    }
    r->names[r->nnames++] = n;
    s = ts_hash_string(name) & (r->nslots - 1);
    while (r->slots[s] != 0)
        s = (s + 1) & (r->nslots - 1);
    r->slots[s] = r->nnames;
    return n;
}

/* The length of test without its trailing parametrization. */
static size_t test_base(const char *test)
{
    size_t len = strlen(test);
    const char *open = strchr(test, '[');

    return len > 0 && test[len - 1] == ']' && open != NULL ? (size_t)(open - test) : len;
}

bool ts_runreport_same_test(const char *a, const char *b)
{
    size_t la = test_base(a);

    return la == test_base(b) && memcmp(a, b, la) == 0;
}

int rr_name_claim(rr_name *n, const char *test)
{
    char **tests;

    if (test == NULL)
        return 0;
    for (size_t i = 0; i < n->ntests; i++) {
        if (ts_runreport_same_test(n->tests[i], test))
            return 0;
    }
    if (n->ntests >= TS_RUNREPORT_MAX_TESTS)
        return 0;
    tests = realloc(n->tests, (n->ntests + 1) * sizeof(char *));
    if (tests == NULL)
        return -ENOMEM;
    n->tests = tests;
    n->tests[n->ntests] = strdup(test);
    if (n->tests[n->ntests] == NULL)
        return -ENOMEM;
    n->ntests++;
    return 0;
}

int rr_name_observe(rr_name *n, ts_runreport_outcome o, const char *id,
                    const struct json_object *calls, int64_t count)
{
    ts_runreport_list *l = NULL;

    n->observations += count;
    n->outcomes[o] += count;
    for (size_t i = 0; id != NULL && i < n->nlists; i++) {
        if (strcmp(n->lists[i].id, id) == 0) {
            l = &n->lists[i];
            break;
        }
    }
    if (l == NULL && id != NULL && n->nlists < TS_RUNREPORT_MAX_LISTS) {
        if (rr_grow(&n->lists, &n->caplists, n->nlists + 1, sizeof(*n->lists)) < 0)
            return -ENOMEM;
        l = &n->lists[n->nlists];
        memset(l, 0, sizeof(*l));
        l->id = strdup(id);
        if (l->id == NULL)
            return -ENOMEM;
        n->nlists++;
    }
    if (l == NULL) {
        n->unlisted += count;
        return 0;
    }
    l->count += count;
    l->outcomes[o] += count;
    if (l->calls == NULL && calls != NULL) {
        l->calls = ts_json_copy(calls);
        if (l->calls == NULL)
            return -ENOMEM;
    }
    return 0;
}

/* ---- ids ------------------------------------------------------------- */

void ts_runreport_text_id(const char *text, size_t len, char out[TS_RUNREPORT_CALLS_ID_LEN + 1])
{
    static const char hex[] = "0123456789abcdef";
    uint8_t digest[SHA1_DIGEST_LENGTH];
    SHA1_CTX ctx;

    SHA1Init(&ctx);
    SHA1Update(&ctx, (const uint8_t *)(text != NULL ? text : ""), text != NULL ? len : 0);
    SHA1Final(digest, &ctx);
    for (size_t i = 0; i < TS_RUNREPORT_CALLS_ID_LEN / 2; i++) {
        out[2 * i] = hex[digest[i] >> 4];
        out[2 * i + 1] = hex[digest[i] & 15];
    }
    out[TS_RUNREPORT_CALLS_ID_LEN] = '\0';
}

int ts_runreport_calls_id(const struct json_object *calls, char out[TS_RUNREPORT_CALLS_ID_LEN + 1],
                          ts_error *err)
{
    ts_buf b;
    int rc;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    rc = ts_json_write_compact(calls, &b, err);
    if (rc == 0)
        ts_runreport_text_id(b.data, b.len, out);
    ts_buf_free(&b);
    return rc;
}
