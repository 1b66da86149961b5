/*
 * lib/snapshot — what a snapshot is: a name and the file name it maps to
 * (ts_name: the same names and hashes as the reference tool), the snapshot
 * model (ts_snapshot: its calls, options and approval) and its file format,
 * read and written byte for byte as the reference tool does. Pure: no I/O
 * but the buffers it is given. Where snapshots live is lib/store.
 */
#ifndef TS_SNAPSHOT_H
#define TS_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "lib/base/ts_base.h"
#include "lib/json/ts_json.h"

/*
 * ts_name — snapshot names and the file names they map to.
 *
 * file name = <stem>-<first 8 hex of SHA-1(name)>.json, stem as in
 * docs/snapshots.md (:: -> __, then / \ : [ ] < > | * ? " and every
 * Unicode whitespace -> __, strip leading/trailing '.', empty -> "snapshot",
 * first 100 code points). A name can never place a file outside the root.
 * The empty name is a name (snapshot-da39a3ee.json).
 */
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

/*
 * ts_snapshot — one snapshot: its model, its file format, and timestamps.
 *
 * The file format is the reference tool's (docs/snapshots.md): keys in the order
 * schema_version, name, created_at, updated_at, toolscore_version, approved,
 * source, calls; written by ts_json_write_pretty plus one "\n".
 */
#define TS_SNAPSHOT_SCHEMA_VERSION 1
#define TS_SNAPSHOT_MAX_BYTES (32u << 20)       /* largest snapshot file read */
#define TS_SNAPSHOT_MAX_CALLS 100000            /* most calls in one snapshot */
#define TS_SNAPSHOT_MAX_TOOL_BYTES 1024         /* longest "tool" of a call */
#define TS_SNAPSHOT_MAX_META_BYTES 256          /* longest toolscore_version, source */
#define TS_SNAPSHOT_MAX_DEPTH TS_JSON_MAX_DEPTH /* nesting of a file */
#define TS_TIMESTAMP_MAX 48

typedef struct ts_snapshot {
    int schema_version;
    char *name; /* owned, valid UTF-8 */
    char created_at[TS_TIMESTAMP_MAX];
    char updated_at[TS_TIMESTAMP_MAX];
    char *toolscore_version; /* owned */
    bool approved;
    char *source;              /* owned: what made it (ts_snapshot_source_known), or any
                                * string a file holds */
    struct json_object *calls; /* owned reference: an array of call objects */
    /* What reading it took from its reader's memory budget (lib/store's
     * gate), given back through give(give_arg, charge) when it is freed;
     * 0 when nothing was taken. Copies carry none. */
    size_t charge;
    void (*give)(void *arg, size_t bytes);
    void *give_arg;
} ts_snapshot;

/* Give back s's charge now (its memory is counted elsewhere from now). */
void ts_snapshot_uncharge(ts_snapshot *s);

/*
 * The sources this product writes, what made a snapshot: "pytest" (the
 * pytest plugin and the Python API, and the default), "vitest", "jest" and
 * "node" (the Node package under each runner, or outside one), "tsctl"
 * (`tsctl check`), "trace" (`tsctl record --from-trace`) and "record" (the
 * reference's `toolscore record`). The reference reads any string there,
 * so every one of them leaves a file it reads; reading takes any string of
 * up to TS_SNAPSHOT_MAX_META_BYTES bytes.
 */
#define TS_SNAPSHOT_SOURCES "pytest, vitest, jest, node, tsctl, trace, record"
bool ts_snapshot_source_known(const char *source);

/*
 * A new snapshot named name with calls (a reference is taken: the caller keeps
 * its own), source, approved=false, created_at = updated_at = now, our
 * version. Calls are validated (an array of objects, each with a non-empty
 * string "tool"; at most TS_SNAPSHOT_MAX_CALLS).
 */
int ts_snapshot_new(const char *name, struct json_object *calls, const char *source,
                    ts_snapshot **out, ts_error *err);

/*
 * Parse a snapshot file's bytes. what names the file in error messages
 * ("<what>: line 2, column 5: ..."). Accepts every file of the reference
 * tool; refuses with "invalid_snapshot" corrupt or truncated JSON, invalid
 * UTF-8, nesting deeper than TS_JSON_MAX_DEPTH, wrong types and a missing
 * name or calls, and with "too_large" a file over TS_SNAPSHOT_MAX_BYTES.
 */
int ts_snapshot_parse(const char *buf, size_t len, const char *what, ts_snapshot **out,
                      ts_error *err);

/*
 * ts_snapshot_parse that also tells (timestamps_given, optional) whether the
 * file held both created_at and updated_at: when not, the parsed snapshot's
 * timestamps were filled in (with now, or with the other one), so the same
 * bytes parsed later give another snapshot.
 */
int ts_snapshot_parse_ex(const char *buf, size_t len, const char *what, ts_snapshot **out,
                         bool *timestamps_given, ts_error *err);

/*
 * The snapshot a JSON object describes, read as ts_snapshot_parse reads a
 * file's object (the same checks, defaults and "invalid_snapshot" errors,
 * what naming it in messages); calls are shared with root (a reference is
 * taken). For a snapshot sent whole by a client (the daemon's "save").
 */
int ts_snapshot_from_json(const struct json_object *root, const char *what, ts_snapshot **out,
                          ts_error *err);

/* Append the exact file bytes of s (pretty JSON + "\n") to out. */
int ts_snapshot_serialize(const ts_snapshot *s, ts_buf *out, ts_error *err);

/* The snapshot as a JSON object with the file's keys in the file's order.
 * It shares s->calls (holds its own reference). NULL on allocation failure. */
struct json_object *ts_snapshot_to_json(const ts_snapshot *s);

/* Replace s->calls (a reference is taken) after validating; updated_at =
 * now, toolscore_version = ours (the file is rewritten by this version). */
int ts_snapshot_set_calls(ts_snapshot *s, struct json_object *calls, ts_error *err);

/* Mark s approved for a rewrite: approved, updated_at = now,
 * toolscore_version = ours. -ENOMEM only. */
int ts_snapshot_approve(ts_snapshot *s, ts_error *err);

/* Validate a calls array as ts_snapshot_new does. */
int ts_snapshot_validate_calls(const struct json_object *calls, ts_error *err);

/* Deep copy. NULL on allocation failure. */
ts_snapshot *ts_snapshot_copy(const ts_snapshot *s);

void ts_snapshot_free(ts_snapshot *s);

/* Now, UTC, "2025-06-01T12:05:00.123456+00:00". */
void ts_timestamp_now(char out[TS_TIMESTAMP_MAX]);

#endif
