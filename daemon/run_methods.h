/*
 * run_methods — the methods run.partial and run.report (docs/protocol.md).
 * run.report renders on the thread pool (run_report.h) and answers one
 * page of the text at a time, so a report of any size fits the frame
 * limit.
 */
#ifndef TSD_RUN_METHODS_H
#define TSD_RUN_METHODS_H

#include <json-c/json.h>

#include "server.h"
#include "ts_error.h"

/* Bytes of report text in one run.report reply (less than any reply limit). */
#define TSD_RUN_REPORT_PAGE (8u << 20)

/* run.partial {run, reasons: [str]} -> the run's summary. */
int tsd_run_partial_method(tsd_server *srv, tsd_request *req, const struct json_object *params,
                           struct json_object **result, ts_error *err);

/* run.report {run, format, offset} -> {format, text, offset, total, next}
 * (TSD_ASYNC: answered from the pool job). */
int tsd_run_report_method(tsd_server *srv, tsd_request *req, const struct json_object *params,
                          struct json_object **result, ts_error *err);

#endif
