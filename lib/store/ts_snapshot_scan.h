/*
 * ts_snapshot_scan — what a listing needs of a snapshot file (name, source,
 * timestamps, approved, number of calls), read straight from the file's
 * bytes in one pass without building a JSON tree.
 *
 * A fast path for ts_snapshot_parse, never a second definition of a valid
 * file: the scan says yes only for files it fully checked (strict JSON
 * syntax and every rule ts_snapshot_parse applies to the members it reads),
 * and "not sure" for everything else, including every invalid file and the
 * rare valid ones it does not handle (\u escapes anywhere, escapes in the
 * strings it returns, numbers near the limits of their type, deep nesting,
 * a member given twice, absent timestamps). The caller then parses the
 * file with ts_snapshot_parse, which decides and words the error.
 */
#ifndef TS_SNAPSHOT_SCAN_H
#define TS_SNAPSHOT_SCAN_H

#include <stdbool.h>
#include <stddef.h>

/* The scanned members; strings point into the scanned buffer (not NUL-ended). */
typedef struct ts_snapshot_scan {
    const char *name;
    size_t name_len;
    const char *source; /* "pytest" when the file has none */
    size_t source_len;
    const char *created_at;
    size_t created_len;
    const char *updated_at;
    size_t updated_len;
    bool approved;
    size_t calls;
} ts_snapshot_scan;

/*
 * True when buf[0..len) is a snapshot file that ts_snapshot_parse accepts,
 * holding both timestamps, and *out has what ts_snapshot_parse would give
 * for these members. False: not sure (parse the file to know).
 */
bool ts_snapshot_scan_summary(const char *buf, size_t len, ts_snapshot_scan *out);

#endif
