/*
 * show — the methods that read and render snapshots: show (one snapshot)
 * and orphans (the ones a run never referenced); review is review.h's.
 *
 * Reading a file, parsing it and encoding the reply take time in
 * proportion to the snapshots (half a second for a 29 MiB file), so all
 * of it runs on the pool, as a job of the store ordered like any other
 * (show after earlier work on its name, orphans after all earlier work on
 * the store); the loop thread only looks the store up and sends the
 * encoded reply.
 */
#ifndef TSD_SHOW_H
#define TSD_SHOW_H

#include <json-c/json.h>

#include "daemon/server/request.h"
#include "daemon/server/server.h"
#include "lib/base/ts_base.h"

/* show {store, name} -> {snapshot, file}. TSD_ASYNC, or a negative code
 * (the store lookup, a bad name). */
int tsd_show(tsd_server *srv, tsd_request *req, const struct json_object *params,
             struct json_object **result, ts_error *err);

/* orphans {store, run} -> {names, run} (docs/protocol.md): the store read
 * on the pool, the run's references looked at on the loop. TSD_ASYNC, or
 * a negative code (an unknown or open run, another store). */
int tsd_orphans(tsd_server *srv, tsd_request *req, const struct json_object *params,
                struct json_object **result, ts_error *err);

#endif
