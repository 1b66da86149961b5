/*
 * observed — a request's calls, extracted and validated (see snapshots_internal.h).
 */
#include "snapshots_internal.h"

#include "lib/snapshot/ts_snapshot.h"

int tsd_observed_calls(struct json_object *raw, const char *format, ts_extract_origin origin,
                       struct json_object **calls, ts_error *err)
{
    int rc = ts_extract_shared(raw, format, origin, calls, err);

    if (rc < 0)
        return rc;
    rc = ts_snapshot_validate_calls(*calls, err);
    if (rc < 0) {
        json_object_put(*calls);
        *calls = NULL;
    }
    return rc;
}
