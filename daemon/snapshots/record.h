/*
 * record — method "record": a trace imported as a snapshot (tsctl record
 * --from-trace). Parameters are read on the loop thread; extraction and
 * the durable write run as a pool job keyed by the snapshot's file, in
 * arrival order with that file's checks (jobs.h). What it writes is
 * lib/ts_check's rule (ts_check_record).
 */
#ifndef TSD_RECORD_H
#define TSD_RECORD_H

#include <json-c/json.h>

#include "daemon/server/server.h"
#include "lib/base/ts_base.h"

/* record {store, name, calls, source, update, format} -> {outcome, name,
 * file}; answers through tsd_request_finish (TSD_ASYNC). */
int tsd_record(tsd_server *srv, tsd_request *req, const struct json_object *params,
               struct json_object **result, ts_error *err);

#endif
