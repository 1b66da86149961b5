/*
 * ts_name — snapshot names and the file names they map to.
 *
 * file name = <stem>-<first 8 hex of SHA-1(name)>.json, stem as in
 * docs/snapshots.md (:: -> __, then / \ : [ ] < > | * ? " and every
 * Unicode whitespace -> __, strip leading/trailing '.', empty -> "snapshot",
 * first 100 code points). A name can never place a file outside the root.
 * The empty name is a name (snapshot-da39a3ee.json).
 */
#ifndef TS_NAME_H
#define TS_NAME_H

#include <stddef.h>

#include "lib/base/ts_error.h"

#define TS_NAME_MAX_BYTES 4096 /* longest snapshot name accepted */
#define TS_FILENAME_MAX 512    /* enough for any file name we make */

/*
 * Check that name[0..len) is an acceptable snapshot name: valid UTF-8, no NUL,
 * at most TS_NAME_MAX_BYTES bytes (empty is valid; name NULL is not). 0 or
 * -EINVAL/-E2BIG with err.
 */
int ts_name_validate(const char *name, size_t len, ts_error *err);

/*
 * Write the file name for name[0..len) into out (outsz >= TS_FILENAME_MAX).
 * Validates the name first. Returns 0 or a negative code with err.
 */
int ts_name_to_filename(const char *name, size_t len, char *out, size_t outsz, ts_error *err);

/* The 8 lowercase hex digits of SHA-1(name) into out[9] (NUL-terminated). */
void ts_name_hash8(const char *name, size_t len, char out[9]);

#endif
