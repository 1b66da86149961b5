/*
 * runs — what the daemon remembers about a run (one test invocation across
 * all its worker processes): outcome counts for the summary line, each
 * check (name, test, outcome, score, duration, message, report), the names
 * referenced (for orphans), which tests claimed each name (duplicates), and
 * the observed calls of FAILED checks (for review).
 *
 * Runs live in memory only: a daemon restart forgets them. At most
 * TSD_RUNS_MAX runs are kept; when more are opened the oldest closed run is
 * forgotten (an open run is never dropped: past the limit run.open is
 * refused with "limit").
 *
 * Owns every run and the JSON values inside it.
 */
#ifndef TSD_RUNS_H
#define TSD_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "ts_error.h"
#include "ts_report.h"

#define TSD_RUNS_MAX 256
#define TSD_RUN_ID_LEN 32
#define TSD_RUN_MAX_CHECKS 1000000

typedef struct tsd_run {
    char id[TSD_RUN_ID_LEN + 1];
    char *store; /* absolute snapshot root */
    char *label; /* NULL or a caller's label */
    bool closed;
    ts_summary_counts counts;
    struct json_object *checks; /* array of check records */
    struct json_object *claims; /* name -> array of distinct test ids */
    struct json_object *failed; /* name -> observed calls of its last check, if FAILED */
    size_t bytes;               /* about what its records and kept calls take */
    struct tsd_run *next;
} tsd_run;

typedef struct tsd_runs {
    tsd_run *list; /* newest first */
    size_t count;
    size_t open_count;
} tsd_runs;

/* A new open run on store. -E2BIG ("limit") when TSD_RUNS_MAX runs are open. */
int tsd_runs_open(tsd_runs *runs, const char *store, const char *label, tsd_run **out,
                  ts_error *err);

/* The run with this id, or NULL. */
tsd_run *tsd_runs_find(tsd_runs *runs, const char *id);

/* Find the run, "not_found" when unknown. */
int tsd_runs_get(tsd_runs *runs, const char *id, tsd_run **out, ts_error *err);

/*
 * Record one check in run. outcome is the outcome's name; score < 0 means no
 * score; report may be NULL; observed (borrowed) is the actual calls, kept
 * when the outcome is FAILED.
 */
int tsd_run_record(tsd_run *run, const char *name, const char *test, const char *outcome,
                   double score, double duration_ms, const char *message, const char *report,
                   struct json_object *observed);

/* Close the run (idempotent). */
void tsd_runs_close(tsd_runs *runs, tsd_run *run);

/* run.summary's result (a new object). */
struct json_object *tsd_run_summary(const tsd_run *run);

/* True when the run referenced name (any check). */
bool tsd_run_references(const tsd_run *run, const char *name);

/* Bytes the runs hold in memory (an estimate; counted in the memory
 * budget, budget.h). */
size_t tsd_runs_memory(const tsd_runs *runs);

void tsd_runs_free(tsd_runs *runs);

#endif
