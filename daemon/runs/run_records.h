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
#ifndef TSD_RUN_RECORDS_H
#define TSD_RUN_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "lib/base/ts_base.h"
#include "lib/report/ts_report.h"
#include "lib/runreport/ts_runreport.h"

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

/* One check as a line holds it. */
typedef struct tsd_run_line {
    const char *name, *test, *outcome, *message;
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

#endif
