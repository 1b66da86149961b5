/*
 * ts_error — the one error convention of toolscored.
 *
 * Every function that can fail returns 0 on success or a negative errno-style
 * code (-EINVAL, -ENOENT, -EIO, -ENOMEM, -E2BIG, -EEXIST, ...), and fills an
 * optional caller-owned ts_error with a stable machine code (a short string,
 * also used on the wire, see docs/protocol.md) and a human message.
 * Nothing in lib/, proto/ or the client library prints or exits.
 *
 *   ts_error err;
 *   if (ts_store_open(path, &store, &err) < 0)
 *       fprintf(stderr, "%s\n", err.message);
 */
#ifndef TS_ERROR_H
#define TS_ERROR_H

#include <errno.h>
#include <stddef.h>

#define TS_ERROR_MESSAGE_MAX 1024

typedef struct ts_error {
    char code[40];                      /* stable code, e.g. "invalid_json" */
    char message[TS_ERROR_MESSAGE_MAX]; /* one line, no trailing newline */
} ts_error;

/* Stable error codes (strings, shared with the wire protocol). */
#define TS_ERR_INVALID_ARGUMENT "invalid_argument" /* bad parameter value */
#define TS_ERR_INVALID_JSON "invalid_json"         /* not parseable JSON */
#define TS_ERR_INVALID_SNAPSHOT "invalid_snapshot" /* JSON, but not a snapshot */
#define TS_ERR_INVALID_CALLS "invalid_calls"       /* calls list fails validation */
#define TS_ERR_FORMAT "format"                     /* extraction failed */
#define TS_ERR_INVALID_RULES "invalid_rules"       /* a rules object or config file is invalid */
#define TS_ERR_NOT_FOUND "not_found"               /* no such snapshot/run/file */
#define TS_ERR_EXISTS "exists"                     /* refusing to overwrite */
#define TS_ERR_TOO_LARGE "too_large"               /* a size limit was hit */
#define TS_ERR_LIMIT "limit"                       /* another limit (depth, count) */
#define TS_ERR_IO "io"                             /* a system call failed */
#define TS_ERR_NO_MEMORY "no_memory"
#define TS_ERR_INTERNAL "internal"

/*
 * Fill err (if not NULL) and return rc, so that failure paths read
 *   return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "bad %s", what);
 */
int ts_error_set(ts_error *err, int rc, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Prefix err->message with "<prefix>: " (e.g. a file name). Returns rc. */
int ts_error_prefix(ts_error *err, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Reset err to "no error" (empty code and message). */
void ts_error_clear(ts_error *err);

#endif
