/*
 * review — the methods that show the review queue: `review` (the pending
 * snapshots and kept observations of a store, one line's worth each) and
 * `diff` (the drift report between a snapshot and its kept observation).
 * Both read, parse and render on the thread pool: review as a whole-store
 * job, diff as a job of the snapshot's file. Superseded observations they
 * come across (the snapshot changed since, or the file is no observation)
 * are dropped. docs/protocol.md has the params and results.
 */
#ifndef TSD_REVIEW_H
#define TSD_REVIEW_H

#include <json-c/json.h>

#include "daemon/server/server.h"
#include "lib/base/ts_base.h"

/* review {store, run?} -> {items: [...]} */
int tsd_review(tsd_server *srv, tsd_request *req, const struct json_object *params,
               struct json_object **result, ts_error *err);

/* diff {store, name, color?} -> {name, file, kind, ..., result, report, baseline, observed} */
int tsd_diff(tsd_server *srv, tsd_request *req, const struct json_object *params,
             struct json_object **result, ts_error *err);

/* The item of a queue entry as review lists it (also used by accept's
 * reply): {name, file, kind, approved, calls, observation|nil, problem?}. */
struct tsd_queue_item;
struct json_object *tsd_review_item_json(const struct tsd_store *st,
                                         const struct tsd_queue_item *item);

#endif
