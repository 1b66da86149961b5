/*
 * lib/report — the drift report a person reads when a check fails: the
 * pairing of expected and actual calls (ts_align), Python's repr() of
 * values with its cuts (ts_repr), the JSON diff of two values
 * (ts_jsondiff), and the report itself and the one-line end-of-run summary
 * (ts_report; docs/internals/report.md). Text in, text out: no I/O.
 */
#ifndef TS_REPORT_H
#define TS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "lib/base/ts_base.h"
#include "lib/score/ts_score.h"

/*
 * ts_align — lining up two lists of tool calls for the drift report: the
 * calls that did not change first, then the others by tool name, each pass
 * as Python's difflib.SequenceMatcher(None, a, b, autojunk=False) does.
 */
/* One opcode, as SequenceMatcher.get_opcodes() gives them: expected[i1:i2]
 * corresponds to actual[j1:j2]. */
typedef struct ts_align_op {
    char tag; /* 'e' equal, 'r' replace, 'd' delete, 'i' insert */
    size_t i1, i2, j1, j2;
} ts_align_op;

/* Matching (expected, actual) pairs one pass of the search may visit
 * before it gives up (some tens of milliseconds of work). */
#define TS_ALIGN_BUDGET ((size_t)1 << 24)

/*
 * Opcodes for two validated calls lists (ts_calls_validate), covering both
 * lists in order: 'e' blocks pair calls of the same tool, 'r' blocks pair
 * calls of different tools (as many as both sides have, the rest left
 * over), 'd' and 'i' blocks are calls of one side only.
 *
 * First pass: difflib over whole calls (tool and args equal as strict
 * scoring compares them; args absent or null is a value of its own). Second
 * pass: each stretch between the calls so matched, difflib over tool names.
 * Lists whose calls are all different align exactly as difflib aligns
 * their tool names (the reference tool's rows). When a pass would visit
 * more than TS_ALIGN_BUDGET pairs (long lists of few distinct calls,
 * reordered), it aligns the cheap way instead: the common head and tail
 * equal, difflib between them, and failing that the middle one block.
 * *ops (owned by the caller, free()) is set on success; the only error is
 * -ENOMEM.
 */
int ts_align_calls(const struct json_object *expected, const struct json_object *actual,
                   ts_align_op **ops, size_t *n_ops);

/*
 * ts_repr — JSON values written as Python's repr() writes them ('str',
 * True/False/None, 1.0, [1, 2], {'k': 'v'}), and text measured in terminal
 * cells: widths, and fitting a text into a number of cells (cut at the end,
 * in the middle, or around the part where two texts differ). Used by the
 * drift report (ts_report) and the JSON diff (ts_jsondiff).
 */
/* Append repr(v) (NULL is None). -E2BIG/-ENOMEM from out. */
int ts_repr_value(const struct json_object *v, ts_buf *out);

/* Append repr() of the string s[0..len): single quotes unless it holds ' and
 * no ", non-printable characters escaped (\n, \x07, \u2028, ...), invalid
 * UTF-8 bytes as \xNN. */
int ts_repr_string(const char *s, size_t len, ts_buf *out);

/* Append repr(v) cut to max code points, plus "…" when it was longer. */
int ts_repr_value_cut(const struct json_object *v, size_t max, ts_buf *out);

/* Append s[0..len) cut to max code points, plus "…" when it was longer;
 * never splits a UTF-8 sequence. */
int ts_repr_append_cut(const char *s, size_t len, size_t max, ts_buf *out);

/* Display width of s[0..len) in terminal cells: East Asian wide and
 * fullwidth characters (CJK, Hangul, Kana, fullwidth forms, emoji) take 2,
 * combining marks, zero-width spaces and variation selectors 0, every other
 * code point 1. */
size_t ts_repr_width(const char *s, size_t len);

/* Cells of one code point (0, 1 or 2), as ts_repr_width counts them. */
size_t ts_repr_char_width(uint32_t cp);

/* Append s[0..len), or when it is wider than width cells its first cells
 * and "…", width cells in all (lib/report/ts_repr_cut.c). */
int ts_repr_fit_end(const char *s, size_t len, size_t width, ts_buf *out);

/* Append s[0..len), or when it is wider than width cells "…" and its last
 * cells, width cells in all. */
int ts_repr_fit_start(const char *s, size_t len, size_t width, ts_buf *out);

/* Append s[0..len), or when it is wider than width cells its head, "…" and
 * its tail, width cells in all. */
int ts_repr_fit_middle(const char *s, size_t len, size_t width, ts_buf *out);

/*
 * Append a and b (each up to width cells) to out_a and out_b so that where
 * they differ stays visible: the text between their common prefix and
 * common suffix (the focus), with the context around it that fits, cut
 * with "…" on either side. Both are cut at the same place when their
 * focuses allow it, so the two lines read column by column. A text that
 * fits is appended whole. width below 3 counts as 3.
 */
int ts_repr_fit_pair(const char *a, size_t alen, const char *b, size_t blen, size_t width,
                     ts_buf *out_a, ts_buf *out_b);

/*
 * ts_jsondiff — the unified diff of two call lists written as pretty JSON
 * (json.dumps(calls, indent=2), the form the snapshot file holds them in):
 * "- expected" / "+ actual", hunks with a few lines of context, the view
 * Jest and insta users read every day. Used by the drift report.
 */
typedef struct ts_jsondiff_options {
    size_t width;     /* cells per line, the +/- mark included (a longer line
                         is cut in the middle, where it differs from its
                         partner when it has one) */
    bool color;       /* red removed, green added, cyan hunk headers */
    size_t context;   /* unchanged lines around a change */
    size_t max_lines; /* changed lines shown; the rest is cut with a note */
} ts_jsondiff_options;

/*
 * Append the diff of actual against expected (validated call lists)
 * aligned by ops (ts_align_calls of the same lists): the legend lines
 * "- expected" and "+ actual", a blank line, then the hunks ("@@ -a,b +c,d
 * @@", lines marked " ", "-", "+"). Appends nothing when both lists write
 * the same text. Calls are compared whole first and only the calls that
 * differ are written and diffed line by line (Myers, bounded: a pair too
 * different is shown as removed then added), so the cost follows the
 * changed calls, not the list. Returns 0; -EINVAL when a call that had to
 * be written is not JSON (NaN, text that is not UTF-8): nothing appended;
 * out's error; -ENOMEM.
 */
int ts_jsondiff_calls(const struct json_object *expected, const struct json_object *actual,
                      const ts_align_op *ops, size_t n_ops, const ts_jsondiff_options *opt,
                      ts_buf *out);

/*
 * ts_report — what a person reads: the drift report of a check whose calls
 * differ from the baseline, and the one-line end-of-run summary
 * (docs/snapshots.md, "The drift report"; docs/internals/report.md).
 */
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
 * and empty, as ts_buf leaves it), no memory. A value too long for the
 * report (past TS_REPORT_VALUE_MAX) is shown cut, saying its size: its
 * own limit is not the report's.
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
    int64_t errors;    /* ERROR_MISSING_IN_CI / ERROR_PENDING_IN_CI, counted as failed */
    int64_t unchanged; /* of updated: an update whose calls were already the approved
                        * ones (nothing written), said as "unchanged" */
} ts_summary_counts;

/*
 * Append the summary line ("toolscore: 2 snapshots created (pending
 * approval), 1 updated, 1 unchanged, 5 passed": "updated" counts the
 * updates that wrote, "unchanged" those that found the calls approved
 * already) without a newline; appends nothing when all counts are zero.
 */
int ts_report_summary(const ts_summary_counts *c, ts_buf *out);

#endif
