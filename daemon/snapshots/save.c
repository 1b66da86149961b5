/*
 * save — a snapshot written from a pool job (see snapshots_internal.h).
 */
#include "snapshots_internal.h"

#include <string.h>

#include "lib/snapshot/ts_snapshot.h"

int tsd_save(ts_store *store, const char *name, struct json_object *calls, const char *source,
             bool approved, bool may_exist, tsd_job *job, ts_error *err)
{
    ts_snapshot *old = NULL;
    ts_snapshot *snap = NULL;
    ts_error ignored;
    bool placed;
    int rc = ts_snapshot_new(name, calls, source, &snap, err);

    if (rc < 0)
        return rc;
    snap->approved = approved;
    if (may_exist && ts_store_load(store, name, &old, NULL, &ignored) == 0) {
        memcpy(snap->created_at, old->created_at, sizeof(snap->created_at));
        ts_snapshot_free(old);
    }
    rc = ts_store_save_placed(store, snap, 0, &placed, err);
    if (rc < 0 && placed) {
        job->sync_rc = rc; /* answered by tsd_save_not_durable */
        job->sync_err = *err;
        rc = 0;
    }
    ts_snapshot_free(snap);
    return rc;
}

int tsd_save_not_durable(const tsd_job *job, const char *name, ts_error *err)
{
    *err = job->sync_err;
    return ts_error_prefix(err, job->sync_rc,
                           "snapshot '%s' was written but is not durable (a crash may lose it)",
                           name);
}
