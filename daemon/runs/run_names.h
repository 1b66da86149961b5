/*
 * run_names — the tables of an open run (runs.h): the names it referenced,
 * each with the tests that claimed it, the ids of the distinct call lists
 * observed (at most TS_RUNREPORT_MAX_LISTS) and whether its last check
 * FAILED; and the ids of the report texts already in its records. Open
 * addressing on 64-bit hashes; loop thread only.
 */
#ifndef TSD_RUN_NAMES_H
#define TSD_RUN_NAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/runs/runs.h"

/* A name an open run referenced. */
struct tsd_run_name {
    uint64_t hash;
    bool last_failed;
    uint16_t ntests;
    uint16_t nlists;
    char **tests;    /* the tests that claimed it, in the order first seen */
    uint64_t *lists; /* ids of the distinct call lists observed */
    char name[];
};

/* Free the tables of run (names and report ids). */
void tsd_run_names_free(tsd_run *run);

/* The entry of name (hash h, tsd_run_name_hash), or NULL. */
tsd_run_name *tsd_run_name_find(const tsd_run *run, const char *name, uint64_t h);

/* The entry of name, created when new; NULL when out of memory. */
tsd_run_name *tsd_run_name_get(tsd_run *run, const char *name);

/* Add test to the claims of n (each once, at most TS_RUNREPORT_MAX_TESTS). */
int tsd_run_name_claim(tsd_run_name *n, const char *test);

/* Whether n was observed with the calls list id; add it (within the bound). */
bool tsd_run_name_has_list(const tsd_run_name *n, uint64_t id);
int tsd_run_name_add_list(tsd_run_name *n, uint64_t id);

/* Whether the report text id is in the run's records; add it. */
bool tsd_run_reports_has(const tsd_run *run, uint64_t id);
int tsd_run_reports_add(tsd_run *run, uint64_t id);

#endif
