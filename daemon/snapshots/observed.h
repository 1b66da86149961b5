/*
 * observed — the calls a request carries (check's "actual", record's
 * "calls"): extracted from the raw value (lib/ts_extract) and validated as
 * a snapshot's calls, shared by check and record.
 */
#ifndef TSD_OBSERVED_H
#define TSD_OBSERVED_H

#include <json-c/json.h>

#include "lib/base/ts_base.h"
#include "lib/extract/ts_extract.h"

/*
 * The calls of raw (a value of the request's params) in format (NULL:
 * "auto") into *calls (a new reference), validated as ts_snapshot_new
 * does. A raw list of calls is shared, not copied: params and calls are only
 * read, and stay with one thread at a time (the loop, or the pool thread of
 * the request's job), so json-c's non-atomic reference counts are safe.
 * Kept calls (a FAILED check's observed calls) keep only that part of the
 * params alive.
 */
int tsd_observed_calls(struct json_object *raw, const char *format, ts_extract_origin origin,
                       struct json_object **calls, ts_error *err);

#endif
