/*
 * ts_report_internal — what the parts of the drift report share: the two
 * lists as views, their alignment as rows, the layout (width, colour) and
 * the small text writers. ts_report.c builds it; ts_report_table.c,
 * ts_report_diff.c and ts_report_text.c write from it. Not a contract for
 * other modules: use ts_report.h.
 */
#ifndef TS_REPORT_INTERNAL_H
#define TS_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "lib/report/ts_report.h"
#include "lib/base/ts_base.h"
#include "lib/score/ts_score.h"

#define TS_REPORT_ELLIPSIS "\xe2\x80\xa6"
#define TS_REPORT_ARROW "\xe2\x86\x92"
#define TS_REPORT_NOT_EQUAL "\xe2\x89\xa0"
#define TS_REPORT_CHECK_MARK "\xe2\x9c\x93"
#define TS_REPORT_EM_DASH "\xe2\x80\x94"
#define TS_REPORT_MIDDLE_DOT "\xc2\xb7"
#define TS_REPORT_BULLET "\xe2\x80\xa2"

#define TS_REPORT_RESET "\x1b[0m"
#define TS_REPORT_BOLD "\x1b[1m"
#define TS_REPORT_DIM "\x1b[2m"
#define TS_REPORT_RED "\x1b[31m"
#define TS_REPORT_GREEN "\x1b[32m"
#define TS_REPORT_YELLOW "\x1b[33m"

#define TS_REPORT_NONE ((size_t)-1)    /* no call on that side of a row */
#define TS_REPORT_CONTEXT 2            /* unchanged rows shown around a change */
#define TS_REPORT_FOLD_MIN 3           /* fewer hidden rows are shown instead */
#define TS_REPORT_VALUE_CUT 40         /* code points of a value in a table cell */
#define TS_REPORT_VALUE_MAX (1u << 20) /* bytes of one value rendered whole */

/* One call of a list, as the report reads it. */
typedef struct ts_report_call {
    const char *tool;
    size_t tool_len;
    struct json_object *args; /* NULL when absent or null */
} ts_report_call;

typedef enum ts_report_kind {
    TS_REPORT_SAME,    /* paired, equal for scoring and as JSON (or not checked) */
    TS_REPORT_CHANGED, /* paired, some difference */
    TS_REPORT_MISSING, /* an expected call with no partner */
    TS_REPORT_EXTRA,   /* an actual call with no partner */
} ts_report_kind;

/* One row of the alignment: expected[g] against actual[t]. */
typedef struct ts_report_row {
    size_t g, t; /* TS_REPORT_NONE when the side has no call */
    ts_report_kind kind;
} ts_report_row;

typedef struct ts_report_ctx {
    size_t width;
    bool color;
    const ts_score_result *r;
    const ts_value_compare *compare; /* the scoring's argument comparison, or NULL */
    ts_report_call *gold, *trace;
    size_t ng, nt;
    ts_align_op *ops;
    size_t n_ops;
    ts_report_row *rows;
    size_t n_rows;
    size_t n_changed; /* rows that are not TS_REPORT_SAME */
} ts_report_ctx;

/* The table, folded (ts_report_table.c). */
void ts_report__table(const ts_report_ctx *c, ts_buf *out);

/* The difference lines; appends nothing when there is no difference
 * (ts_report_diff.c). */
void ts_report__differences(const ts_report_ctx *c, ts_buf *out);

/* True when the pair has no JSON-level difference the difference lines
 * would show (expected args absent: not checked). */
bool ts_report__pair_identical(const ts_report_call *g, const ts_report_call *t);

/* ---- text writers (ts_report_text.c) ---- */

/* code (an ANSI sequence) when colour is on, else "". */
const char *ts_report__paint(const ts_report_ctx *c, const char *code);

/* A tool name or key with control characters and bytes that are not UTF-8
 * as \xNN, so that it can never break a line or the text's encoding. */
void ts_report__name(ts_buf *out, const char *s, size_t len);

/* `tool(k=value, ...)`: values repr()'d, each cut to cut code points (0:
 * whole, up to TS_REPORT_VALUE_MAX); args absent or null `tool(…any
 * args…)`, empty args `tool()`. */
void ts_report__call(ts_buf *out, const ts_report_call *call, size_t cut);

/* v as compact JSON (repr() when it is not valid JSON text: NaN, invalid
 * UTF-8), or a note when longer than TS_REPORT_VALUE_MAX; NULL "(absent)". */
void ts_report__json_value(ts_buf *out, const struct json_object *v);

/* One key of a path: "key" first, ".key" after, ["key"] (a JSON string)
 * when a plain key could be misread (., [, ], quotes, backslash, spaces,
 * control characters, empty, not UTF-8). */
void ts_report__path_key(ts_buf *out, const char *key, bool first);

/* The label of a row as the table's # column and the difference lines
 * show it: "4", "4→5" (expected 4 is actual 5), "-2" (missing), "+5"
 * (extra). */
void ts_report__row_label(ts_buf *out, const ts_report_row *row);

/* text[0..len) word-wrapped to the width: first line after first (a
 * prefix), later lines after next; a word longer than a line stays whole. */
void ts_report__wrap(const ts_report_ctx *c, ts_buf *out, const char *text, size_t len,
                     const char *first, const char *next);

/* n spaces / n copies of c. */
void ts_report__repeat(ts_buf *out, char ch, size_t n);

/* A temporary buffer's failure passed on to out (ts_buf_fail), then freed. */
void ts_report__drop(ts_buf *out, ts_buf *tmp);

/* The keys of obj in byte order, *n of them (none when obj is NULL): an
 * array the caller frees, of strings obj owns. NULL when out of memory. */
const char **ts_report__sorted_keys(const struct json_object *obj, size_t *n);

#endif
