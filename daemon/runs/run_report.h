/*
 * run_report — a run's report rendered from its files in the state
 * directory (run_records.h) with lib/ts_runreport: the JSON report or
 * JUnit (docs/reports.md), and the summary's flaky lines (lib/ts_flaky). Pure file reading and
 * rendering, for the thread pool: it touches nothing of the loop's.
 */
#ifndef TSD_RUN_REPORT_H
#define TSD_RUN_REPORT_H

#include <json-c/json.h>

#include "daemon/runs/run_records.h"
#include "lib/base/ts_base.h"
#include "lib/check/ts_check.h"

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
 * The flaky lines of meta's run (lib/ts_flaky, docs/rules.md "Repeats"),
 * from its records: *out a new array of strings, sorted by name, at most
 * TSD_RUN_FLAKY_LINES of them and a line saying how many more. Errors as
 * tsd_run_render's.
 */
int tsd_run_flaky_lines(const ts_state *state, const tsd_run_meta *meta, struct json_object **out,
                        ts_error *err);

/* True when format is one run.report renders. */
bool tsd_run_report_format_known(const char *format);

#endif
