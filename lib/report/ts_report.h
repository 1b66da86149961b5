/*
 * ts_report — what a person reads: the drift report of a check whose calls
 * differ from the baseline, and the one-line end-of-run summary
 * (docs/snapshots.md, "The drift report"; docs/internals/report.md).
 */
#ifndef TS_REPORT_H
#define TS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "lib/base/ts_buf.h"
#include "lib/base/ts_error.h"
#include "lib/score/ts_score.h"

#define TS_REPORT_WIDTH_DEFAULT 100 /* without a terminal */
#define TS_REPORT_WIDTH_MIN 40      /* narrower widths are taken as this */
#define TS_REPORT_WIDTH_MAX 1000    /* wider widths are taken as this */

/* How a report is laid out; the caller decides everything (lib never looks
 * at the environment or a terminal). */
typedef struct ts_report_options {
    size_t width;             /* terminal columns: 0 for TS_REPORT_WIDTH_DEFAULT, then
                                 clamped to [TS_REPORT_WIDTH_MIN, TS_REPORT_WIDTH_MAX] */
    bool color;               /* ANSI colours: red removed / expected, green added / actual */
    bool json_diff;           /* append the unified diff of the two lists as JSON */
    const char *const *notes; /* lines printed after the score line (borrowed) */
    size_t n_notes;
    const ts_value_compare *compare; /* the argument comparison scoring used (comparison
                                        rules' matchers), so the table and the difference
                                        lines agree with the score; NULL: ts_values_equal */
} ts_report_options;

/* width 0 (the default width), no colour, the JSON diff on, no notes, the
 * plain comparison. */
void ts_report_options_default(ts_report_options *opt);

/*
 * Append the drift report of actual against expected (both validated call
 * lists) scored as r: the "Expected vs Actual Tool Calls" table with runs
 * of unchanged calls folded, the score line, opt's notes, one line per
 * difference (index, tool, deepest path, both values), the tips and, when
 * opt->json_diff, the unified JSON diff. Every line ends in "\n" and, but
 * for a single word of a tip or note longer than a line, takes at most the
 * width in terminal cells; time and memory grow with the input, the text
 * is bounded whatever the input (long runs are folded, long lists of
 * differences cut with a count). opt NULL: the defaults.
 *
 * The one entry point every caller uses (the daemon's check reply, tsctl
 * eval, diff and accept). Errors: an invalid list ("invalid_calls", as
 * scoring says it), out's maximum passed ("too_large": out is left failed
 * and empty, as ts_buf leaves it), no memory.
 */
int ts_report_drift(const struct json_object *expected, const struct json_object *actual,
                    const ts_score_result *r, const ts_report_options *opt, ts_buf *out,
                    ts_error *err);

/*
 * Decimals to print score with, next to min_score printed with
 * ts_report_threshold_decimals, so that the printed numbers say what
 * passed says: a failing score never prints as the threshold or above it
 * (0.999 against 1.0 is "0.9990", not "1.00"), a passing one never below
 * (scoring passes a score a rounding error under the threshold). 2 when
 * that is enough, else 4, 5, ... up to 17.
 */
int ts_report_score_decimals(double score, double min_score, bool passed);

/* Decimals that print min_score exactly (at least 2, at most 17). */
int ts_report_threshold_decimals(double min_score);

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
