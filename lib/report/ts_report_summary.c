/*
 * ts_report_summary — the one-line end-of-run summary (see ts_report.h):
 * "toolscore: 2 snapshots created (pending approval), 1 updated, 1 unchanged,
 * 5 passed".
 */
#include <inttypes.h>

#include "lib/report/ts_report.h"

static void summary_part(ts_buf *out, bool *first, int64_t n, const char *what)
{
    if (n <= 0)
        return;
    ts_buf_appends(out, *first ? "toolscore: " : ", ");
    *first = false;
    ts_buf_appendf(out, "%" PRId64 " %s", n, what);
}

int ts_report_summary(const ts_summary_counts *c, ts_buf *out)
{
    bool first = true;

    summary_part(out, &first, c->created,
                 c->created == 1 ? "snapshot created (pending approval)"
                                 : "snapshots created (pending approval)");
    summary_part(out, &first, c->updated - c->unchanged, "updated");
    summary_part(out, &first, c->unchanged, "unchanged");
    summary_part(out, &first, c->pending, "pending");
    summary_part(out, &first, c->passed, "passed");
    summary_part(out, &first, (c->failed > 0 ? c->failed : 0) + (c->errors > 0 ? c->errors : 0),
                 "failed");
    return ts_buf_error(out);
}
