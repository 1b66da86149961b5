/*
 * log — the daemon's event log: one line per notable event (start, stop,
 * store opened, client error, slow request), filtered by level, written to
 * stderr or to a file.
 *
 * Line format: "2025-06-01T12:05:00.123Z toolscored[1234] info: message".
 * Before tsd_log_open() nothing is written; a daemon started without
 * --foreground and without --log-file logs nowhere.
 */
#ifndef TSD_LOG_H
#define TSD_LOG_H

#include <stdio.h>

#include "lib/base/ts_base.h"

typedef enum tsd_log_level {
    TSD_LOG_DEBUG = 0,
    TSD_LOG_INFO = 1,
    TSD_LOG_WARN = 2,
    TSD_LOG_ERROR = 3
} tsd_log_level;

/* Parse "debug", "info", "warn" or "error". 0 or -EINVAL. */
int tsd_log_level_parse(const char *s, tsd_log_level *out);

/*
 * Start logging at level min: to the file path (appended, created 0600) when
 * path is not NULL, else to stderr when to_stderr, else nowhere.
 */
int tsd_log_open(tsd_log_level min, const char *path, int to_stderr, ts_error *err);

/* Stop logging; closes the log file. */
void tsd_log_close(void);

/* Log one line (no trailing newline in fmt) at level. */
void tsd_log(tsd_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define tsd_debug(...) tsd_log(TSD_LOG_DEBUG, __VA_ARGS__)
#define tsd_info(...) tsd_log(TSD_LOG_INFO, __VA_ARGS__)
#define tsd_warn(...) tsd_log(TSD_LOG_WARN, __VA_ARGS__)
#define tsd_error(...) tsd_log(TSD_LOG_ERROR, __VA_ARGS__)

#endif
