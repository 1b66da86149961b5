/*
 * daemon/runs — a run (one test invocation across all its worker
 * processes) as the daemon keeps it: the runs in memory and in the state
 * directory's runs/, what a check of a run records there, and the run
 * methods of the protocol (run.open, run.join, run.close, run.summary,
 * run.partial, run.report: the run's report rendered by lib/runreport, its
 * flaky lines by lib/flaky). The store methods (daemon/snapshots) record
 * their checks here; this folder knows nothing of them but the hook that
 * opens a run's store (tsd_runs_set_store).
 */
#ifndef TSD_RUNS_H
#define TSD_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>
#include <uv.h>

#include "daemon/server/server.h"
#include "lib/base/ts_base.h"
#include "lib/check/ts_check.h"
#include "lib/report/ts_report.h"
#include "lib/runreport/ts_runreport.h"

/*
 * run_records — what a check of a run records: its observed calls, drift
 * report, baseline and rules, ready to be appended to the run's files
 * (runs_internal.h has the files themselves).
 */
/* The observed calls and the report of one check, ready to be recorded:
 * their ids and texts (computed once, on whichever thread did the check). */
typedef struct tsd_run_observation {
    bool ready;
    char calls_id[TS_RUNREPORT_CALLS_ID_LEN + 1];    /* "" when no calls */
    ts_buf calls_text;                               /* compact JSON of the calls */
    char report_id[TS_RUNREPORT_CALLS_ID_LEN + 1];   /* "" when no report */
    ts_buf report_text;                              /* cut to TS_RUNREPORT_REPORT_MAX */
    char baseline_id[TS_RUNREPORT_CALLS_ID_LEN + 1]; /* "" when no baseline */
    ts_buf baseline_text;                            /* compact JSON of the baseline */
    char rules_id[TS_RUNREPORT_CALLS_ID_LEN + 1];    /* "" when no rules */
    ts_buf rules_text;                               /* compact JSON of the rules object */
} tsd_run_observation;

/* Fill o for calls (NULL: none), report (NULL: none), the baseline a
 * FAILED check was compared with (NULL: none) and the rules object the
 * check was compared with (NULL: none). */
int tsd_run_observe(tsd_run_observation *o, const struct json_object *calls, const char *report,
                    const struct json_object *baseline, const struct json_object *rules,
                    ts_error *err);
/* The same with the calls given as their compact JSON text (calls_len
 * bytes, copied) and its id (ts_runreport_text_id of the text). */
int tsd_run_observe_text(tsd_run_observation *o, const char *calls_text, size_t calls_len,
                         const char *calls_id, const char *report,
                         const struct json_object *baseline, const struct json_object *rules,
                         ts_error *err);
void tsd_run_observation_free(tsd_run_observation *o);

/*
 * runs — the runs the daemon keeps (one test invocation across all its
 * worker processes), in memory and in the state directory's runs/
 * (run_records.c has the files: runs_internal.h).
 *
 * In memory an open run holds its counts, the names it referenced with the
 * tests that claimed them (duplicates) and the ids of the distinct call
 * lists each name was observed with (at most TS_RUNREPORT_MAX_LISTS), and
 * the ids of the report texts and baselines already on disk; its check records, reports
 * and observed calls are on disk only. A closed run holds its counts, its
 * duplicate claims and two sorted arrays of 64-bit name hashes (names
 * referenced, names whose last check FAILED): enough for summary, orphans
 * and review; run.report reads the rest from disk (on the pool).
 *
 * Every check is appended to the run's checks.jsonl before its reply is
 * sent, so a run outlives a daemon restart, kill -9 included: at start the
 * daemon reads runs/ back (open runs whole, closed runs' metadata and
 * hashes). Closed runs are kept until there are more than `keep` of them
 * (the oldest go first) or they are older than `max_age`; an open run with
 * no check for `max_age` is dropped too. At most TSD_RUNS_OPEN_MAX runs are
 * open at once.
 *
 * Loop thread only (tsd_runs_init before the loop starts). Owns every run.
 */
#define TSD_RUNS_OPEN_MAX 256
#define TSD_RUN_ID_LEN 32
#define TSD_RUN_MAX_CHECKS 1000000
/* checks.jsonl bytes past which lines carry ids only (no report texts, no
 * calls): a run's records stay under about this plus 300 bytes a check. */
#define TSD_RUN_MAX_BYTES (256u << 20)
/* Partial reasons: each at most this long (longer ones are cut). */
#define TSD_RUN_REASON_MAX 512

typedef struct tsd_run_name tsd_run_name;

typedef struct tsd_run {
    char id[TSD_RUN_ID_LEN + 1];
    char *store;                  /* absolute snapshot root */
    char *label;                  /* NULL or a caller's label */
    char *host;                   /* the daemon's host name */
    int64_t opened_ms, closed_ms; /* closed_ms: -1 while open */
    int64_t active_ms;            /* the last check (or the opening) */
    bool closed;
    bool partial;
    char **reasons;
    size_t nreasons;
    ts_summary_counts counts;
    int64_t checks;
    /* Open runs. */
    int dir;         /* runs/<id>, -1 when closed */
    int fd;          /* its checks.jsonl, appending */
    uint64_t bytes;  /* of its whole lines: where the next one starts */
    uint64_t lost;   /* checks that could not be recorded (the run is partial) */
    bool meta_stale; /* run.json could not be written: again after the next record */
    tsd_run_name **names;
    size_t nnames, capnames;
    size_t *slots; /* index + 1 into names by hash, 0 empty */
    size_t nslots;
    uint64_t *reports; /* ids of report texts on disk (open addressing, 0 empty) */
    size_t nreports, capreports;
    /* Closed runs. */
    uint64_t *referenced, *failed; /* sorted name hashes */
    size_t nreferenced, nfailed;
    struct json_object *duplicates;  /* [{name, tests}] */
    bool may_be_flaky;               /* some name was observed with two distinct lists */
    struct json_object *flaky_lines; /* the summary's flaky lines once known, else NULL */
    struct tsd_run *next;
} tsd_run;

/* run.open's store: the store at root opened as any request opens it, and
 * its key (*key, malloc'd); set by the module that serves stores. */
typedef int (*tsd_runs_store_fn)(void *arg, const char *root, char **key, ts_error *err);

typedef struct tsd_runs {
    uv_loop_t *loop; /* the server's (run.report renders on its pool) */
    tsd_runs_store_fn store_fn;
    void *store_arg;
    const ts_state *state;
    char *socket; /* this daemon's: its runs are those opened on it */
    int dir;      /* STATE/runs */
    char *state_path;
    size_t keep;
    int64_t max_age_ms;
    tsd_run *list; /* newest first */
    size_t count, open_count;
} tsd_runs;

/*
 * Open (creating it) STATE/runs (state stays the caller's and must outlive
 * runs) and read back the runs a daemon on this socket kept there (the
 * runs of other sockets belong to other daemons sharing the directory:
 * left alone, unless older than max_age): open
 * runs whole (a torn last line is cut off), closed runs' metadata; runs
 * past keep or max_age_s are removed. A run that cannot be read is left
 * on disk, logged and not served. "io" when runs/ cannot be opened.
 */
int tsd_runs_init(tsd_runs *runs, const ts_state *state, const char *socket, size_t keep,
                  int64_t max_age_s, int64_t now_ms, ts_error *err);

/* Milliseconds since the epoch (run times). */
int64_t tsd_runs_now_ms(void);

/* A new open run on store, on disk at once. "limit" when
 * TSD_RUNS_OPEN_MAX runs are open, "io" when its files cannot be made. */
int tsd_runs_open(tsd_runs *runs, const char *store, const char *label, int64_t now_ms,
                  tsd_run **out, ts_error *err);

/* The run with this id, or NULL. */
tsd_run *tsd_runs_find(tsd_runs *runs, const char *id);

/* Find the run, "not_found" when unknown. */
int tsd_runs_get(tsd_runs *runs, const char *id, tsd_run **out, ts_error *err);

/* One check of a run, as the daemon answered it. */
typedef struct tsd_run_check {
    const char *name;
    const char *test;    /* NULL: none */
    const char *outcome; /* one of the seven outcome names */
    double score;        /* < 0: not scored */
    double min_score;
    double duration_ms;
    const char *message;
    bool unchanged;                  /* UPDATED with the calls approved already (nothing written) */
    const char *report;              /* NULL: none */
    const struct json_object *calls; /* the observed calls, NULL: none */
    const struct json_object *baseline; /* FAILED: the baseline compared with, else NULL */
    const struct json_object *rules;    /* the rules object compared with, NULL: none */
} tsd_run_check;

/*
 * Record one check in the open run: appended to checks.jsonl (one write)
 * and counted. obs, when ready, holds the calls' and report's ids and
 * texts computed on the pool; else they are computed here. A failed write
 * is logged; the check still counts in memory.
 */
int tsd_run_record(tsd_runs *runs, tsd_run *run, const tsd_run_check *c, tsd_run_observation *obs,
                   int64_t now_ms, ts_error *err);

/* Mark the open run partial for these reasons (added to any it has;
 * each cut at TSD_RUN_REASON_MAX bytes, at most TS_RUNREPORT_MAX_REASONS).
 * "invalid_argument" when the run is closed. */
int tsd_run_mark_partial(tsd_runs *runs, tsd_run *run, const char *const *reasons, size_t n,
                         ts_error *err);

/* Close the run (idempotent): its files completed, its memory released,
 * and the runs past keep / max_age removed. A failed write is logged. */
void tsd_runs_close(tsd_runs *runs, tsd_run *run, int64_t now_ms);

/* run.summary's result (a new object): docs/protocol.md. Its
 * "flaky_lines" only when they are known without reading the run's
 * records (no name was observed with two distinct lists, or the closed
 * run's lines were kept): else runs_internal.h adds them from the pool. */
struct json_object *tsd_run_summary(const tsd_run *run);

/* True when the summary's flaky lines are not known yet: some name was
 * observed with two distinct lists, and (closed) they were not kept. */
bool tsd_run_may_be_flaky(const tsd_run *run);

/* Keep lines (a reference is taken) as the flaky lines of the closed run,
 * in memory and in its run.json. */
void tsd_run_keep_flaky(tsd_runs *runs, tsd_run *run, struct json_object *lines);

/* True when the run referenced name (any check). */
bool tsd_run_references(const tsd_run *run, const char *name);

/* Bytes the runs hold in memory (status). */
size_t tsd_runs_memory(const tsd_runs *runs);

/* Closed runs kept. */
size_t tsd_runs_kept(const tsd_runs *runs);

void tsd_runs_free(tsd_runs *runs);

/* The module (daemon/server/server.h): the run methods; its state is the
 * tsd_runs (tsd_server_module_state). */
extern const tsd_module tsd_runs_module;

/* run.open opens its store through fn(arg, ...) (daemon/snapshots sets
 * it); without one, a run's store is its root as given. */
void tsd_runs_set_store(tsd_runs *runs, tsd_runs_store_fn fn, void *arg);

#endif
