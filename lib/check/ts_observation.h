/*
 * ts_observation — a kept observation: the calls a check observed that did
 * not match its snapshot (a FAILED replay, or a pending snapshot checked
 * with other calls than it recorded), with what accepting, rejecting and
 * showing it later needs: the name, the outcome, the id of the snapshot
 * calls it was compared with, when, the run and test, and the scoring
 * options and comparison rules of that check.
 *
 * The file (docs/internals/state.md) is one compact JSON object:
 *
 *   {"observation": 1, "name": "n", "outcome": "FAILED",
 *    "baseline": "<40 hex>", "observed_at": "2025-...+00:00",
 *    "run": "r1" | null, "test": "t.py::t" | null,
 *    "min_score": 1.0, "strict": false, "weights": {...},
 *    "rules": {...} | null, "calls": [...]}
 *
 * A file is read back only when it is exactly that (version 1, every member
 * of its type, the rules valid rules (ts_rules_from_json), the calls valid
 * as a snapshot's, at most
 * TS_OBSERVATION_MAX_BYTES); anything else is "invalid_snapshot" naming what
 * is wrong. Pure functions: no I/O.
 */
#ifndef TS_OBSERVATION_H
#define TS_OBSERVATION_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "lib/base/ts_buf.h"
#include "lib/base/ts_error.h"
#include "lib/score/ts_score.h"
#include "lib/snapshot/ts_snapshot.h"

#define TS_OBSERVATION_VERSION 1
#define TS_OBSERVATION_MAX_BYTES (8u << 20) /* largest observation kept and read */
#define TS_OBSERVATION_ID_LEN 40            /* hex digits of a calls id */
#define TS_OBSERVATION_MAX_LABEL 1024       /* longest run id or test id kept */

typedef struct ts_observation {
    char *name;                               /* owned */
    char outcome[24];                         /* "FAILED" or "PENDING" */
    char baseline[TS_OBSERVATION_ID_LEN + 1]; /* ts_observation_calls_id of the snapshot's calls */
    char observed_at[TS_TIMESTAMP_MAX];       /* ts_timestamp_now() when it was kept */
    char *run;                                /* owned, or NULL */
    char *test;                               /* owned, or NULL */
    ts_score_options options;                 /* the check's min_score, strict, weights */
    struct json_object *rules; /* owned: the rules in force (ts_rules_object), or NULL */
    struct json_object *calls; /* owned reference: the observed calls */
} ts_observation;

/*
 * The id of a call list: the 40 lowercase hex digits of the SHA-1 of its
 * compact JSON (ts_json_write_compact), into out. Equal lists as read from
 * one file always have one id; "too_large" past 64 MiB of JSON.
 */
int ts_observation_calls_id(const struct json_object *calls, char out[TS_OBSERVATION_ID_LEN + 1],
                            ts_error *err);

/*
 * A new observation of name: calls (a reference is taken), outcome
 * ("FAILED" or "PENDING"), baseline the calls it was compared with (their
 * id is computed), run and test (copied; NULL for none; cut to
 * TS_OBSERVATION_MAX_LABEL bytes at a character boundary), options and
 * rules (the rules' object, ts_rules_object; NULL for none; both copied),
 * observed now.
 */
int ts_observation_new(const char *name, struct json_object *calls, const char *outcome,
                       const struct json_object *baseline, const char *run, const char *test,
                       const ts_score_options *options, const struct json_object *rules,
                       ts_observation **out, ts_error *err);

/* The file's bytes (above), appended to out. */
int ts_observation_serialize(const ts_observation *o, ts_buf *out, ts_error *err);

/*
 * Read an observation file's len bytes; what names it in messages. Refused
 * ("invalid_snapshot", "too_large") unless it is what ts_observation_serialize
 * writes.
 */
int ts_observation_parse(const char *buf, size_t len, const char *what, ts_observation **out,
                         ts_error *err);

void ts_observation_free(ts_observation *o);

#endif
