/*
 * check — method "check": one pass of the snapshot state machine of
 * lib/ts_check.h (docs/snapshots.md) for one request, with the reads,
 * scoring and writes it asks for.
 *
 * Parameters are checked on the loop thread. A replay that writes nothing
 * is answered there at once when its snapshot is small and no job of its
 * file is queued; anything else runs as a pool job keyed by the snapshot's
 * file (jobs.h), so requests for one name are applied strictly in arrival
 * order: of several checks of one missing name exactly the first creates
 * it, the others see it pending; an approve (a whole-store job) is never
 * undone by a check. Returns TSD_ASYNC and answers through
 * tsd_request_finish once any write is durable; a parameter error is
 * returned at once.
 */
#ifndef TSD_CHECK_H
#define TSD_CHECK_H

#include <json-c/json.h>

#include "daemon/server/server.h"
#include "lib/base/ts_base.h"

/* check {store, name, actual, format, min_score, weights, strict, ci, update,
 * allow_pending, run, test, color, width, json_diff} -> {outcome, name, file, message, result,
 * report}. */
int tsd_check(tsd_server *srv, tsd_request *req, const struct json_object *params,
              struct json_object **result, ts_error *err);

#endif
