/*
 * accept — methods accept and reject: what a person decides about the
 * review queue, without running any test again (docs/protocol.md).
 *
 * accept writes each kept observation's calls as the name's approved
 * baseline (created_at kept, source "pytest") and approves a pending
 * snapshot that has none, as lib/ts_check's accept rule says; reject drops
 * kept observations and deletes pending snapshots (an approved baseline is
 * kept). Names given must each be a snapshot or have an observation, or
 * nothing is changed. Each is one whole-store job on the thread pool: the
 * snapshot files are written durably (one fsync each, renames and the
 * directory's fsync shared) and only then are the observations removed;
 * the reply leaves after that.
 */
#ifndef TSD_ACCEPT_H
#define TSD_ACCEPT_H

#include <json-c/json.h>

#include "daemon/server/server.h"
#include "lib/base/ts_base.h"

/* accept {store, names | all, run?, color?} -> {accepted: [...]} */
int tsd_accept(tsd_server *srv, tsd_request *req, const struct json_object *params,
               struct json_object **result, ts_error *err);

/* reject {store, names | all, run?} -> {rejected: [...]} */
int tsd_reject(tsd_server *srv, tsd_request *req, const struct json_object *params,
               struct json_object **result, ts_error *err);

#endif
