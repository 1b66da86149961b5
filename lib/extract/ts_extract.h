/*
 * ts_extract — turning an agent's raw response into a list of calls
 * (docs/extraction.md). One implementation for the daemon, tsctl and
 * every client shim.
 */
#ifndef TS_EXTRACT_H
#define TS_EXTRACT_H

#include <stdbool.h>

#include <json-c/json.h>

#include "lib/base/ts_base.h"

/* Where the input came from: file-only formats (langchain, custom) are
 * accepted only from trace files. */
typedef enum ts_extract_origin {
    TS_EXTRACT_RESPONSE = 0, /* an in-memory response handed over by a test */
    TS_EXTRACT_FILE = 1      /* a trace file (tsctl record/eval/extract) */
} ts_extract_origin;

/*
 * Extract calls from input. format is NULL or "auto" for detection, or one of
 * the names of docs/extraction.md. *calls_out receives a new array
 * [{"tool": ..., "args": {...}}, ...] (the "calls" format keeps items as they
 * are). Errors have code "format" and say what was wrong, e.g.
 * "cannot auto-detect the format of an object (supported formats: ...)".
 */
int ts_extract(const struct json_object *input, const char *format, ts_extract_origin origin,
               struct json_object **calls_out, ts_error *err);

/*
 * As ts_extract, but when input already is a list of calls (the "calls"
 * format) *calls_out is a new reference to input itself instead of a deep
 * copy. Neither may then be modified while the other is in use, and both
 * stay with one thread at a time (json-c's reference counts are not atomic).
 * For a daemon answering many replays of the same shape, the copy is the
 * largest part of the extraction.
 */
int ts_extract_shared(struct json_object *input, const char *format, ts_extract_origin origin,
                      struct json_object **calls_out, ts_error *err);

/*
 * The format auto-detection picks for input (docs/extraction.md, "Auto-detection"),
 * e.g. "openai", or NULL when no rule applies. Never a file-only format.
 */
const char *ts_extract_detect(const struct json_object *input);

/*
 * A trace import's calls (docs/extraction.md, "Trace import normalizes
 * calls"): a new array with each call of a valid calls list (as
 * ts_calls_validate checks it, code "invalid_calls" otherwise) as exactly
 * {"tool": ..., "args": {...}}: other keys dropped, args absent or null
 * written as {}, args copied.
 */
int ts_extract_normalize(const struct json_object *calls, struct json_object **out, ts_error *err);

/* True when name is a known format name (including "auto"). */
bool ts_extract_format_known(const char *name);

/* The supported format names, comma separated, for help and messages. */
const char *ts_extract_format_list(void);

#endif
