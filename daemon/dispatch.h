/*
 * dispatch — executing one decoded request: the table of methods of
 * docs/protocol.md and the handlers that are not the check state machine
 * (hello, ping, record, approve, list, show, rm, run.*, review, orphans,
 * status, stop).
 */
#ifndef TSD_DISPATCH_H
#define TSD_DISPATCH_H

#include <json-c/json.h>

#include "server.h"
#include "ts_message.h"
#include "ts_error.h"

/* Wire error code used by the daemon beyond those of lib/ and proto/. */
#define TSD_ERR_PERMISSION "permission_denied"

/*
 * Run method with params (an object, owned by req) for req. Returns 0 with
 * *result a new value (the reply's result), a negative code with err (its
 * code goes on the wire), or TSD_ASYNC when a job took the request over and
 * will answer it with tsd_request_finish.
 */
int tsd_dispatch(tsd_server *srv, tsd_request *req, const char *method, struct json_object *params,
                 struct json_object **result, ts_error *err);

#endif
