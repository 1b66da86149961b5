/*
 * save — writing a snapshot from a pool job, shared by check and record:
 * the file written durably (keeping an existing file's created_at), and the
 * error of a write that was placed but is not durable.
 */
#ifndef TSD_SAVE_H
#define TSD_SAVE_H

#include <stdbool.h>

#include <json-c/json.h>

#include "daemon/server/jobs.h"
#include "lib/base/ts_base.h"
#include "lib/store/ts_store.h"

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

#endif
