/*
 * run_report — a run's report rendered from its files in the state
 * directory (run_records.h) with lib/ts_runreport: the JSON report or
 * JUnit (docs/reports.md). Pure file reading and rendering, for the thread
 * pool: it touches nothing of the loop's.
 */
#ifndef TSD_RUN_REPORT_H
#define TSD_RUN_REPORT_H

#include "run_records.h"
#include "ts_buf.h"
#include "ts_error.h"
#include "ts_state.h"

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

/* True when format is one run.report renders. */
bool tsd_run_report_format_known(const char *format);

#endif
