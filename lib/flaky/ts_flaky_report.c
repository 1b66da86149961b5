/*
 * ts_flaky_report — the flaky names of a whole run report: every repeat of
 * the report (ts_runreport_repeats) analysed under the rules it was
 * checked with (ts_flaky.c), in name order. The walker over a report that
 * the run report's formats call; the analysis below it never calls back.
 */
#include "ts_flaky_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/ts_base.h"

/* Compiled rules by the repeat's object (a report shares one object among
 * the names checked with the same rules). */
typedef struct rules_cache {
    const struct json_object *obj[16];
    ts_rules *rules[16];
    size_t n, next;
} rules_cache;

static ts_rules *cached_rules(rules_cache *c, const struct json_object *obj)
{
    ts_rules *r = NULL;
    ts_error err;
    size_t slot;

    if (obj == NULL)
        return NULL;
    for (size_t i = 0; i < c->n; i++) {
        if (c->obj[i] == obj)
            return c->rules[i];
    }
    /* A report's rules were checked when read; any that fail compare plainly. */
    if (ts_rules_from_json(obj, NULL, &r, &err) < 0)
        r = NULL;
    slot = c->n < 16 ? c->n++ : c->next++ % 16;
    if (c->rules[slot] != NULL)
        ts_rules_unref(c->rules[slot]);
    c->obj[slot] = obj;
    c->rules[slot] = r;
    return r;
}

int ts_flaky_report(ts_runreport *r, ts_flaky **out, size_t *n, ts_error *err)
{
    ts_runreport_repeat *reps = NULL;
    ts_flaky *list = NULL;
    rules_cache cache;
    size_t nreps = 0, count = 0;
    int rc;

    *out = NULL;
    *n = 0;
    memset(&cache, 0, sizeof(cache));
    rc = ts_runreport_repeats(r, &reps, &nreps, err);
    if (rc < 0)
        return rc;
    list = calloc(nreps ? nreps : 1, sizeof(*list));
    if (list == NULL)
        rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < nreps && rc == 0; i++) {
        rc = ts_flaky_analyse(&reps[i], cached_rules(&cache, reps[i].rules), &list[count], err);
        if (rc == 0 && list[count].flaky)
            count++;
        else
            ts_flaky_free(&list[count]);
    }
    for (size_t i = 0; i < cache.n; i++)
        ts_rules_unref(cache.rules[i]);
    free(reps);
    if (rc < 0) {
        ts_flaky_list_free(list, count);
        return rc;
    }
    *out = list;
    *n = count;
    return 0;
}

void ts_flaky_list_free(ts_flaky *list, size_t n)
{
    for (size_t i = 0; list != NULL && i < n; i++)
        ts_flaky_free(&list[i]);
    free(list);
}
