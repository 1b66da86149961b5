/*
 * approve — method "approve": approving the snapshots named (every one must
 * exist, else nothing is approved) or every pending one, as one job of the
 * whole store (jobs.h): after every earlier check of the store, before
 * every later one, so an approval is never undone by a concurrent check.
 * The renames share one directory sync; the reply is sent once it is
 * durable, and the approved names' FAILED observations are forgotten.
 */
#ifndef TSD_APPROVE_H
#define TSD_APPROVE_H

#include <json-c/json.h>

#include "daemon/server/server.h"
#include "lib/base/ts_base.h"

/* approve {store, names | all} -> {approved: [{name, calls, created_at,
 * updated_at, file}]}; answers through tsd_request_finish (TSD_ASYNC). */
int tsd_approve(tsd_server *srv, tsd_request *req, const struct json_object *params,
                struct json_object **result, ts_error *err);

#endif
