/*
 * dispatch — executing one decoded request: the table of methods of
 * docs/protocol.md (handler, ordering on the store, the params member left
 * as bytes) and the handlers of the small methods (hello, ping, rm, run.*,
 * status, stop); check, record, approve, list, show, review and orphans
 * have their own files.
 */
#ifndef TSD_DISPATCH_H
#define TSD_DISPATCH_H

#include <json-c/json.h>

#include "daemon/server/request.h"
#include "daemon/server/server.h"
#include "proto/ts_proto.h"
#include "lib/base/ts_base.h"

/* The member of method's params the decoder is to leave as msgpack bytes
 * (the method table's column; ts_message_raw_choice), or NULL. */
const char *tsd_dispatch_raw_member(const char *method);

/*
 * Run method with params (an object, owned by req) for req. Returns 0 with
 * *result a new value (the reply's result), a negative code with err (its
 * code goes on the wire), or TSD_ASYNC when a job took the request over and
 * will answer it with tsd_request_finish.
 */
int tsd_dispatch(tsd_server *srv, tsd_request *req, const char *method, struct json_object *params,
                 struct json_object **result, ts_error *err);

#endif
