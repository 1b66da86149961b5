/*
 * save — writing a snapshot from a pool job, shared by check and record:
 * the file written durably (keeping an existing file's created_at), and the
 * error of a write that was placed but is not durable. Also the method
 * "save": a snapshot sent whole by a client, written as given.
 */
#ifndef TSD_SAVE_H
#define TSD_SAVE_H

#include <stdbool.h>

#include <json-c/json.h>

#include "jobs.h"
#include "server.h"
#include "ts_error.h"
#include "ts_store.h"

/*
 * Write calls as name's snapshot: approved, source, keeping created_at of an
 * existing readable file (looked up only when may_exist: a creation that just
 * found no file skips that lookup, which on a large directory contends with
 * the other writers' creates and renames). On return the file is durable
 * (ts_store_save shares the rename and the root's fsync with the store's
 * concurrent writers: lib/ts_store_commit.c). When only the root's fsync
 * failed, the file is in place but not durable: that error goes to
 * job->sync_rc/sync_err for the reply (tsd_save_not_durable) and 0 is
 * returned, so the outcome is still worked out. Pool thread.
 */
int tsd_save(ts_store *store, const char *name, struct json_object *calls, const char *source,
             bool approved, bool may_exist, tsd_job *job, ts_error *err);

/*
 * The reply's error for a job whose write was placed but whose root fsync
 * failed (job->sync_rc < 0): the file was renamed into place (later requests
 * see it) but a crash may still lose it or bring the old file back, so the
 * write is answered with that error, never acknowledged.
 */
int tsd_save_not_durable(const tsd_job *job, const char *name, ts_error *err);

/*
 * save {store, snapshot} -> {name, file}: the snapshot object written as
 * the file of snapshot.name, every member as given (read as a file's
 * object is: ts_snapshot_from_json), durably, as a pool job keyed by that
 * file (in arrival order with its checks); its kept observation goes.
 * Answers through tsd_request_finish (TSD_ASYNC).
 */
int tsd_save_method(tsd_server *srv, tsd_request *req, const struct json_object *params,
                    struct json_object **result, ts_error *err);

#endif
