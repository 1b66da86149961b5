/*
 * ts_report — what a person reads: the drift report of a FAILED replay and
 * the one-line end-of-run summary (docs/snapshots.md).
 */
#ifndef TS_REPORT_H
#define TS_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "ts_buf.h"
#include "ts_error.h"
#include "ts_score.h"

/*
 * Append the drift report for expected vs actual with result r: the aligned
 * "Expected vs Actual Tool Calls" table, the score line, the structural path
 * lines and the Tips. color adds ANSI colour (callers decide: a terminal and
 * no NO_COLOR).
 */
int ts_report_drift(const struct json_object *expected, const struct json_object *actual,
                    const ts_score_result *r, bool color, ts_buf *out, ts_error *err);

/* What a caller adds to the drift report. */
typedef struct ts_report_options {
    bool color;               /* ANSI colour */
    const char *const *notes; /* lines printed after the score line (no '\n') */
    size_t n_notes;
    const ts_value_compare *compare; /* the comparison scoring used (comparison rules'
                                        matchers), so ✓ agrees with the score; NULL:
                                        ts_values_equal */
} ts_report_options;

/* ts_report_drift with opt's colour, notes and comparison. */
int ts_report_drift_with(const struct json_object *expected, const struct json_object *actual,
                         const ts_score_result *r, const ts_report_options *opt, ts_buf *out,
                         ts_error *err);

/* Only the structural path lines ("value changed at calls[0].args.x: ..."). */
int ts_report_paths(const struct json_object *expected, const struct json_object *actual,
                    ts_buf *out, ts_error *err);

typedef struct ts_summary_counts {
    int64_t created, updated, pending, passed, failed;
    int64_t errors; /* ERROR_MISSING_IN_CI / ERROR_PENDING_IN_CI, counted as failed */
} ts_summary_counts;

/*
 * Append the summary line ("toolscore: 2 snapshots created (pending
 * approval), 1 updated, 5 passed") without a newline; appends nothing when
 * all counts are zero.
 */
int ts_report_summary(const ts_summary_counts *c, ts_buf *out);

#endif
