/*
 * ts_jsondiff — the unified diff of two call lists written as pretty JSON
 * (json.dumps(calls, indent=2), the form the snapshot file holds them in):
 * "- expected" / "+ actual", hunks with a few lines of context, the view
 * Jest and insta users read every day. Used by the drift report.
 */
#ifndef TS_JSONDIFF_H
#define TS_JSONDIFF_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "lib/report/ts_align.h"
#include "lib/base/ts_buf.h"

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

#endif
