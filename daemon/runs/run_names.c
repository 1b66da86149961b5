/*
 * run_names — the tables of an open run (see runs_internal.h).
 */
#include "runs_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/runreport/ts_runreport.h"

void tsd_run_names_free(tsd_run *run)
{
    for (size_t i = 0; i < run->nnames; i++) {
        tsd_run_name *n = run->names[i];

        for (size_t t = 0; t < n->ntests; t++)
            free(n->tests[t]);
        free(n->tests);
        free(n->lists);
        free(n);
    }
    free(run->names);
    free(run->slots);
    free(run->reports);
    run->names = NULL;
    run->slots = NULL;
    run->reports = NULL;
    run->nnames = run->capnames = run->nslots = run->nreports = run->capreports = 0;
}

static int names_rehash(tsd_run *run, size_t nslots)
{
    size_t *slots = calloc(nslots, sizeof(size_t));

    if (slots == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < run->nnames; i++) {
        size_t s = run->names[i]->hash & (nslots - 1);

        while (slots[s] != 0)
            s = (s + 1) & (nslots - 1);
        slots[s] = i + 1;
    }
    free(run->slots);
    run->slots = slots;
    run->nslots = nslots;
    return 0;
}

tsd_run_name *tsd_run_name_find(const tsd_run *run, const char *name, uint64_t h)
{
    if (run->nslots == 0)
        return NULL;
    for (size_t s = h & (run->nslots - 1); run->slots[s] != 0; s = (s + 1) & (run->nslots - 1)) {
        tsd_run_name *n = run->names[run->slots[s] - 1];

        if (n->hash == h && strcmp(n->name, name) == 0)
            return n;
    }
    return NULL;
}

tsd_run_name *tsd_run_name_get(tsd_run *run, const char *name)
{
    uint64_t h = tsd_run_name_hash(name);
    tsd_run_name *n = tsd_run_name_find(run, name, h);
    size_t len;
    size_t s;

    if (n != NULL)
        return n;
    if ((run->nnames + 1) * 2 > run->nslots &&
        names_rehash(run, run->nslots ? run->nslots * 2 : 64) < 0)
        return NULL;
    if (run->nnames == run->capnames) {
        size_t cap = run->capnames ? run->capnames * 2 : 64;
        tsd_run_name **a = realloc(run->names, cap * sizeof(*a));

        if (a == NULL)
            return NULL;
        run->names = a;
        run->capnames = cap;
    }
    len = strlen(name);
    n = calloc(1, sizeof(*n) + len + 1);
    if (n == NULL)
        return NULL;
    memcpy(n->name, name, len + 1);
    n->hash = h;
    run->names[run->nnames++] = n;
    for (s = h & (run->nslots - 1); run->slots[s] != 0; s = (s + 1) & (run->nslots - 1))
        ;
    run->slots[s] = run->nnames;
    return n;
}

int tsd_run_name_claim(tsd_run_name *n, const char *test)
{
    char **tests;

    if (test == NULL || n->ntests >= TS_RUNREPORT_MAX_TESTS)
        return 0;
    for (size_t i = 0; i < n->ntests; i++) {
        if (ts_runreport_same_test(n->tests[i], test)) /* test_x[1-5], test_x[2-5]: one test */
            return 0;
    }
    tests = realloc(n->tests, (n->ntests + 1u) * sizeof(char *));
    if (tests == NULL)
        return -ENOMEM;
    n->tests = tests;
    if ((n->tests[n->ntests] = strdup(test)) == NULL)
        return -ENOMEM;
    n->ntests++;
    return 0;
}

bool tsd_run_name_has_list(const tsd_run_name *n, uint64_t id)
{
    for (size_t i = 0; i < n->nlists; i++) {
        if (n->lists[i] == id)
            return true;
    }
    return false;
}

int tsd_run_name_add_list(tsd_run_name *n, uint64_t id)
{
    uint64_t *lists;

    if (n->nlists >= TS_RUNREPORT_MAX_LISTS || tsd_run_name_has_list(n, id))
        return 0;
    lists = realloc(n->lists, (n->nlists + 1u) * sizeof(uint64_t));
    if (lists == NULL)
        return -ENOMEM;
    n->lists = lists;
    n->lists[n->nlists++] = id;
    return 0;
}

bool tsd_run_reports_has(const tsd_run *run, uint64_t id)
{
    if (run->capreports == 0)
        return false;
    for (size_t s = id & (run->capreports - 1); run->reports[s] != 0;
         s = (s + 1) & (run->capreports - 1)) {
        if (run->reports[s] == id)
            return true;
    }
    return false;
}

int tsd_run_reports_add(tsd_run *run, uint64_t id)
{
    size_t s;

    if (tsd_run_reports_has(run, id))
        return 0;
    if ((run->nreports + 1) * 2 > run->capreports) {
        size_t cap = run->capreports ? run->capreports * 2 : 64;
        uint64_t *a = calloc(cap, sizeof(uint64_t));

        if (a == NULL)
            return -ENOMEM;
        for (size_t i = 0; i < run->capreports; i++) {
            if (run->reports[i] == 0)
                continue;
            for (s = run->reports[i] & (cap - 1); a[s] != 0; s = (s + 1) & (cap - 1))
                ;
            a[s] = run->reports[i];
        }
        free(run->reports);
        run->reports = a;
        run->capreports = cap;
    }
    for (s = id & (run->capreports - 1); run->reports[s] != 0; s = (s + 1) & (run->capreports - 1))
        ;
    run->reports[s] = id;
    run->nreports++;
    return 0;
}
