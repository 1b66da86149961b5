/*
 * daemon/runs, inside the folder only: the run's files (run_records.c),
 * an open run's tables of names (run_names.c), the report and flaky lines
 * rendered from the files (run_report.c), the run methods and the module
 * (run_methods.c). runs.c, the registry, is runs.h's.
 */
#ifndef TSD_RUNS_INTERNAL_H
#define TSD_RUNS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "daemon/runs/runs.h"
#include "daemon/server/server.h"
#include "lib/base/ts_base.h"
#include "lib/check/ts_check.h"

/*
 * run_records — the files of one run in the state directory
 * (docs/internals/state.md, "Runs"):
 *
 *   runs/<id>/run.json       the run: store, label, host, times, partial and
 *                            its reasons; at close also its counts, checks
 *                            and duplicate claims, and its flaky lines once
 *                            known. Replaced whole.
 *   runs/<id>/checks.jsonl   one line per check, appended (one write(2))
 *                            before the check's reply is sent. A line holds
 *                            the check's drift report the first time that
 *                            text is seen in the run (later ones name it by
 *                            id), and its observed calls the first time the
 *                            name saw that list (at most
 *                            TS_RUNREPORT_MAX_LISTS lists per name); a
 *                            FAILED check's baseline calls the first time
 *                            the run saw that list; and the comparison
 *                            rules it was checked with the first time the
 *                            run saw them (later lines name them by id).
 *   runs/<id>/referenced     at close: the names referenced and the names
 *                            whose last check FAILED, as sorted 64-bit
 *                            hashes (orphans and review need no more).
 *
 * A torn last line (a crash mid-append) is ignored when read and cut off
 * before the run takes more lines. The functions here are pure encoding,
 * decoding and file I/O: safe on any thread.
 */
/* Largest run.json read. */
#define TSD_RUN_JSON_MAX (1u << 20)
/* Largest checks.jsonl line read (a check with 100,000 calls fits). */
#define TSD_RUN_LINE_MAX (64u << 20)

/* A run's metadata as run.json holds it (strings owned, tsd_run_meta_free). */
typedef struct tsd_run_meta {
    char id[64];
    char *store, *label, *host;
    char *socket;                 /* the daemon's socket: the runs of one socket are its daemon's */
    int64_t opened_ms, closed_ms; /* closed: -1 while open */
    bool partial;
    char **reasons;
    size_t nreasons;
    /* Written at close (absent before). */
    bool has_counts;
    ts_summary_counts counts;
    int64_t checks;
    struct json_object *duplicates;  /* [{name, tests: [str]}] or NULL */
    struct json_object *flaky_lines; /* [str] once known, or NULL */
} tsd_run_meta;

void tsd_run_meta_free(tsd_run_meta *m);

/* Copy src into dst (strings and duplicates copied). */
int tsd_run_meta_copy(tsd_run_meta *dst, const tsd_run_meta *src);

/* Write dir/run.json for m (replaced whole, not fsynced). */
int tsd_run_meta_write(int dir, const tsd_run_meta *m, ts_error *err);

/* Read dir/run.json into m; "invalid_argument" naming what is wrong. */
int tsd_run_meta_read(int dir, tsd_run_meta *m, ts_error *err);

/* One check as a line holds it. */
typedef struct tsd_run_line {
    const char *name, *test, *outcome, *message;
    bool unchanged;                       /* UPDATED that wrote nothing ("unchanged": true) */
    double score, min_score, duration_ms; /* score, min_score < 0: none */
    const char *report_id;                /* NULL: none */
    const char *report;                   /* the text when this line holds it */
    const char *calls_id;                 /* NULL: no observation */
    const char *calls_text;               /* compact JSON when this line holds it */
    const struct json_object *calls;      /* when read: the calls the line holds */
    const char *baseline_id;              /* a FAILED check's baseline, NULL: none */
    const char *baseline_text;            /* compact JSON when this line holds it */
    const struct json_object *baseline;   /* when read: the baseline the line holds */
    const char *rules_id;                 /* NULL: compared without rules */
    const char *rules_text;               /* compact JSON when this line holds it */
    const struct json_object *rules;      /* when read: the rules object the line holds */
} tsd_run_line;

/* Append line l to out as one JSON line ending with a newline. */
int tsd_run_line_encode(const tsd_run_line *l, ts_buf *out, ts_error *err);

/*
 * Read dir/checks.jsonl line by line, calling fn for each complete, valid
 * line (the line's values live for the call only). Lines that are not
 * valid records are skipped and counted in *bad (may be NULL); *good_end
 * (may be NULL) receives the offset just after the last complete line.
 * A missing file is no line. fn returning < 0 stops the reading with that
 * code.
 */
typedef int (*tsd_run_line_fn)(const tsd_run_line *l, void *arg, ts_error *err);
int tsd_run_lines_read(int dir, tsd_run_line_fn fn, void *arg, size_t *bad, uint64_t *good_end,
                       ts_error *err);

/* 64-bit hash of a snapshot name (the first 8 bytes of its SHA-1). */
uint64_t tsd_run_name_hash(const char *name);

/* dir/referenced: referenced and failed, sorted hashes. */
int tsd_run_hashes_write(int dir, const uint64_t *referenced, size_t nref, const uint64_t *failed,
                         size_t nfailed, ts_error *err);
int tsd_run_hashes_read(int dir, uint64_t **referenced, size_t *nref, uint64_t **failed,
                        size_t *nfailed, ts_error *err);

/* True when the sorted array a[0..n) holds h. */
bool tsd_run_hashes_has(const uint64_t *a, size_t n, uint64_t h);

/* The run's metadata (strings copied) for a job on the pool. */
int tsd_run_meta_of(const tsd_run *run, tsd_run_meta *out);

/*
 * run_names — the tables of an open run (runs.h): the names it referenced,
 * each with the tests that claimed it, the ids of the distinct call lists
 * observed (at most TS_RUNREPORT_MAX_LISTS) and whether its last check
 * FAILED; and the ids of the report texts already in its records. Open
 * addressing on 64-bit hashes; loop thread only.
 */
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

/*
 * run_report — a run's report rendered from its files in the state
 * directory (runs_internal.h) with lib/runreport/ts_runreport: the JSON report or
 * JUnit (docs/reports.md), and the summary's flaky lines (lib/flaky/ts_flaky). Pure file reading
 * and rendering, for the thread pool: it touches nothing of the loop's.
 */
/*
 * The report of the run described by meta (a copy of the loop's, with its
 * current counts) in format "json", "junit" or "html" (a complete run's page
 * lists its store's orphans, read here), appended to out. The checks
 * are read from runs/<id>/checks.jsonl; lines past the last complete one
 * (an append in progress) are not read. "not_found" when the run's files
 * are gone, "io" when they cannot be read.
 */
int tsd_run_render(const ts_state *state, const tsd_run_meta *meta, const char *format, ts_buf *out,
                   ts_error *err);

/* Flaky lines a summary lists at most (one more line counts the rest). */
#define TSD_RUN_FLAKY_LINES 100

/*
 * The flaky lines of meta's run (lib/flaky/ts_flaky, docs/rules.md "Repeats"),
 * from its records: *out a new array of strings, sorted by name, at most
 * TSD_RUN_FLAKY_LINES of them and a line saying how many more. Errors as
 * tsd_run_render's.
 */
int tsd_run_flaky_lines(const ts_state *state, const tsd_run_meta *meta, struct json_object **out,
                        ts_error *err);

/* True when format is one run.report renders. */
bool tsd_run_report_format_known(const char *format);

/*
 * run_methods — the run methods (docs/protocol.md) and the module
 * (runs.h): run.open, run.join, run.close, run.summary, run.partial and
 * run.report. run.report renders on the thread pool (run_report above)
 * and answers one page of the text at a time, so a report of any size
 * fits the frame limit; a summary's flaky lines are worked out there too
 * when the run's records must be read for them.
 */
/* Bytes of report text in one run.report reply (less than any reply limit). */
#define TSD_RUN_REPORT_PAGE (8u << 20)

#endif
