/*
 * run_methods — the methods run.partial and run.report (docs/protocol.md),
 * and the summary that run.summary and run.close answer with. run.report
 * renders on the thread pool (run_report.h) and answers one page of the
 * text at a time, so a report of any size fits the frame limit; a
 * summary's flaky lines are worked out there too when the run's records
 * must be read for them.
 */
#ifndef TSD_RUN_METHODS_H
#define TSD_RUN_METHODS_H

#include <json-c/json.h>

#include "daemon/runs/runs.h"
#include "daemon/server/server.h"
#include "lib/base/ts_base.h"

/* Bytes of report text in one run.report reply (less than any reply limit). */
#define TSD_RUN_REPORT_PAGE (8u << 20)

/* run.partial {run, reasons: [str]} -> the run's summary. */
int tsd_run_partial_method(tsd_server *srv, tsd_request *req, const struct json_object *params,
                           struct json_object **result, ts_error *err);

/* run.report {run, format, offset} -> {format, text, offset, total, next}
 * (TSD_ASYNC: answered from the pool job). */
int tsd_run_report_method(tsd_server *srv, tsd_request *req, const struct json_object *params,
                          struct json_object **result, ts_error *err);

/*
 * Answer req with run's summary (tsd_run_summary) and its "flaky_lines":
 * at once (0, *result set) when they are known, else TSD_ASYNC, answered
 * when a pool job has read them from the run's records (a closed run
 * keeps them). A job that cannot read them answers the summary with no
 * flaky lines and logs why.
 */
int tsd_run_summary_answer(tsd_server *srv, tsd_request *req, tsd_run *run,
                           struct json_object **result, ts_error *err);

#endif
