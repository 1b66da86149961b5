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
 * Run method with params (an object, borrowed) for conn. On success *result
 * is a new value (the reply's result); on failure err says why (its code goes
 * on the wire).
 */
int tsd_dispatch(tsd_server *srv, tsd_conn *conn, const char *method, struct json_object *params,
                 struct json_object **result, ts_error *err);

#endif
