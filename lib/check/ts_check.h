/*
 * lib/check — the check of one snapshot as decisions: the record ->
 * approve -> replay state machine (ts_check, pure functions: what a check
 * does, writes and says), the observation a failed check keeps for review
 * (ts_observation: its file format) and the daemon's state directory where
 * such things are kept across restarts (ts_state). The daemon does the
 * I/O a decision asks for; nothing here reads a snapshot itself.
 */
#ifndef TS_CHECK_H
#define TS_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "lib/base/ts_base.h"
#include "lib/rules/ts_rules.h"
#include "lib/score/ts_score.h"
#include "lib/snapshot/ts_snapshot.h"

/*
 * ts_state — the daemon's state directory: what a daemon keeps across its
 * own restarts that is not a snapshot (runs, kept observations).
 *
 *   STATE/                         0700, owned by the daemon's uid
 *     runs/<run id>/               one run and its check records
 *     stores/<key>/                one store; key: 16 hex digits of SHA-1(root)
 *       root                       the store's absolute root path, one line
 *       observations/              kept observations, one file per name
 *
 * The default STATE is $XDG_STATE_HOME/toolscore, else
 * $HOME/.local/state/toolscore (ts_state_default_path). Every directory is
 * created 0700 and reached through descriptors without following symbolic
 * links below STATE. Files are replaced whole (a temp file `.NAME.<hex>.tmp`
 * renamed over NAME), so a reader never sees a torn file; with `durable`
 * the temp file is fsynced before the rename and the directory after it.
 *
 * Every function is safe to call from any thread on one ts_state (only
 * descriptor-relative system calls). The caller owns returned descriptors
 * and strings.
 *
 *   ts_state *st;
 *   int dir;
 *   if (ts_state_open(path, &st, &err) == 0 &&
 *       ts_state_dir(st, "runs/r1", true, &dir, &err) == 0)
 *       ts_state_write_file(dir, "run.json", text, len, false, &err);
 */
typedef struct ts_state ts_state;

/* Length of a store key (hex digits, without the NUL). */
#define TS_STATE_STORE_KEY_LEN 16

/*
 * The default state directory into out: $XDG_STATE_HOME/toolscore when that
 * is an absolute path, else $HOME/.local/state/toolscore. "invalid_argument"
 * when neither variable gives an absolute path, "too_large" when out is too
 * small.
 */
int ts_state_default_path(char *out, size_t outsz, ts_error *err);

/*
 * Open (creating it and its missing parents 0700) the state directory at
 * path, which must be absolute. The directory must be owned by this
 * process's effective uid and give no access to group or others; a
 * symbolic link at path is followed only when it belongs to this uid.
 * Refusals name the path and what is wrong ("io", "invalid_argument").
 */
int ts_state_open(const char *path, ts_state **out, ts_error *err);

/* Close st (NULL is fine). */
void ts_state_close(ts_state *st);

/* The absolute path st was opened at. */
const char *ts_state_path(const ts_state *st);

/*
 * Open the directory rel under the state directory ("runs", "runs/<id>",
 * components separated by '/', each a valid state name, see
 * ts_state_name_valid), creating missing components 0700 when create is
 * true. -ENOENT ("not_found") when a component is missing and create is
 * false. The caller closes *fd.
 */
int ts_state_dir(const ts_state *st, const char *rel, bool create, int *fd, ts_error *err);

/* The store key of an absolute root path into out (TS_STATE_STORE_KEY_LEN + 1 bytes). */
void ts_state_store_key(const char *root, char out[TS_STATE_STORE_KEY_LEN + 1]);

/*
 * Open the state directory of the store at root ("stores/<key>"), creating
 * it with its `root` file when create is true. A directory whose `root`
 * file names another path (a key collision) is "internal".
 */
int ts_state_store_dir(const ts_state *st, const char *root, bool create, int *fd, ts_error *err);

/*
 * True when name can be a file or directory name in the state directory:
 * 1 to 255 bytes, no '/', no NUL, not starting with '.' (temp files and
 * "."/".." are reserved).
 */
bool ts_state_name_valid(const char *name);

/*
 * Replace dir/name with len bytes of data (temp file, rename; with durable,
 * fsync of the file before and of the directory after). The file is 0600.
 */
int ts_state_write_file(int dir, const char *name, const void *data, size_t len, bool durable,
                        ts_error *err);

/*
 * Read dir/name whole into a NUL-terminated malloc'ed buffer (*data, *len
 * without the NUL). -ENOENT ("not_found") when absent, -E2BIG ("too_large")
 * when longer than max bytes; a symbolic link is not followed.
 */
int ts_state_read_file(int dir, const char *name, size_t max, char **data, size_t *len,
                       ts_error *err);

/*
 * Open dir/name for appending records (created 0600 when missing; never
 * through a symbolic link). The caller closes *fd.
 */
int ts_state_append_open(int dir, const char *name, int *fd, ts_error *err);

/* Remove the file dir/name; -ENOENT ("not_found") when absent. */
int ts_state_remove_file(int dir, const char *name, ts_error *err);

/*
 * Remove the directory dir/name and everything in it (one level of files
 * and directories below it, recursively), never following symbolic links.
 * Absent is not an error.
 */
int ts_state_remove_tree(int dir, const char *name, ts_error *err);

/*
 * The valid names in dir (ts_state_name_valid: temp files and dot files are
 * left out), sorted bytewise, as a malloc'ed array of malloc'ed strings
 * (ts_state_names_free).
 */
int ts_state_list(int dir, char ***names, size_t *count, ts_error *err);
void ts_state_names_free(char **names, size_t count);

/* Remove the temp files (`.NAME.<hex>.tmp`) a crash left in dir. */
int ts_state_clean_temps(int dir, ts_error *err);

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
    char *source; /* owned: the check's source (ts_snapshot_source_known), NULL: "pytest" */
    ts_score_options options;  /* the check's min_score, strict, weights */
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

/*
 * ts_check — the record -> approve -> replay state machine of one snapshot
 * (docs/snapshots.md), as pure functions: what a check does given the
 * caller's flags and what it found on disk, what it writes, its outcome
 * and message; what approving a snapshot changes; what a trace import
 * (record) does; what accepting and rejecting a kept observation does;
 * and the racy-timestamp rule that says when a file's stamp proves that a
 * copy read earlier is still the file.
 *
 * Nothing here reads, writes or scores: the caller (the daemon) does the
 * work a decision asks for, puts what it found into the input and asks
 * again, until the decision is TS_CHECK_DONE:
 *
 *   ts_check_input in;
 *   ts_check_decision d;
 *   ts_check_input_init(&in, name, &options);
 *   in.ci = ci;
 *   in.calls = calls;
 *   for (ts_check_decide(&in, &d); d.step != TS_CHECK_DONE; ts_check_decide(&in, &d)) {
 *       if (d.step == TS_CHECK_READ)
 *           ...read the snapshot: in.state (and in.snapshot)...
 *       else
 *           ...score in.calls against in.snapshot->calls: in.score...
 *   }
 *   if (d.write) ...write in.calls as name's snapshot, approved = d.approved...
 *   message = ts_check_message(&in, &d);
 *
 * Every field of ts_check_input has a meaning at zero (ts_check_input_init),
 * so an input grows by a field without touching the callers that do not use
 * it.
 */
/* The outcome of a check, and of a trace import (CREATED, UPDATED). */
typedef enum ts_check_outcome {
    TS_CHECK_NO_OUTCOME = 0, /* not decided yet */
    TS_CHECK_CREATED,
    TS_CHECK_UPDATED,
    TS_CHECK_PENDING,
    TS_CHECK_PASSED,
    TS_CHECK_FAILED,
    TS_CHECK_ERROR_MISSING_IN_CI,
    TS_CHECK_ERROR_PENDING_IN_CI,
} ts_check_outcome;

/* What the caller knows of the name's snapshot file. */
typedef enum ts_check_state {
    TS_CHECK_UNREAD = 0, /* not looked at yet */
    TS_CHECK_MISSING,    /* no file */
    TS_CHECK_UNAPPROVED, /* a snapshot pending approval */
    TS_CHECK_APPROVED,   /* an approved baseline */
    TS_CHECK_UNREADABLE, /* a file that is no readable snapshot: only an update
                          * goes on (it overwrites the file); any other check
                          * fails with the read's error, which the caller has */
} ts_check_state;

/* What becomes of the name's kept observation (the observed calls of a
 * check that did not match, kept for accept / reject / diff / review). */
typedef enum ts_check_keep {
    TS_CHECK_KEEP_NONE = 0, /* leave it as it is */
    TS_CHECK_KEEP_WRITE,    /* keep in->calls as the name's observation (replacing one) */
    TS_CHECK_KEEP_DROP,     /* drop it, if there is one: superseded by this check */
} ts_check_keep;

typedef struct ts_check_input {
    const char *name;                /* the snapshot's name (messages) */
    const char *file;                /* its file, named by CREATED's message (NULL: not named) */
    const ts_score_options *options; /* how calls are scored (ts_check_evaluate) */
    bool ci;                         /* the caller runs in CI */
    bool update;                     /* overwrite and approve (--update) */
    bool allow_pending;              /* create and accept pending snapshots in CI too */
    ts_check_state state;            /* what a read of the file found */
    const ts_snapshot *snapshot;     /* with UNAPPROVED or APPROVED: the file's snapshot */
    const struct json_object *calls; /* the observed calls, extracted and validated */
    const ts_score_result *score;    /* with APPROVED: calls scored against the baseline */
    const ts_rules *rules;           /* comparison rules for evaluating (NULL: none) */
    /* the command the reader runs tsctl with, as shell text printed before
     * each command's verb ("npx tsctl", a venv's "/p/.venv/bin/tsctl";
     * NULL: "tsctl") */
    const char *tsctl;
} ts_check_input;

/* What the caller does next. */
typedef enum ts_check_step {
    TS_CHECK_READ,     /* read the snapshot: set state (and snapshot), decide again */
    TS_CHECK_EVALUATE, /* score calls against the baseline: set score, decide again */
    TS_CHECK_DONE,     /* the outcome is known; write what the decision says */
} ts_check_step;

typedef struct ts_check_decision {
    ts_check_step step;
    ts_check_outcome outcome; /* with DONE */
    bool write;               /* with DONE: write calls as the name's snapshot (source "pytest") */
    bool approved;            /* with write: the written snapshot is approved */
    bool may_exist;           /* with write: a file may be there; keep its created_at */
    bool evaluated;           /* with DONE: the outcome is in->score's (the reply carries it) */
    bool report;              /* with DONE: a drift report of in->score is due (FAILED) */
    bool differs;             /* with PENDING / ERROR_PENDING_IN_CI: the calls observed
                               * differ from the pending recording */
    bool unchanged;           /* with UPDATED: the calls are already the approved ones;
                               * nothing is written (write false) */
    ts_check_keep keep;       /* with DONE: what becomes of the kept observation */
} ts_check_decision;

/* in zeroed, with name and options (both borrowed; options never NULL). */
void ts_check_input_init(ts_check_input *in, const char *name, const ts_score_options *options);

/*
 * The next step of the check described by in (docs/snapshots.md, "The
 * state machine"):
 * - update: UPDATED, after reading the file: when it is an approved
 *   baseline whose calls equal in->calls (ts_json_equal) nothing is
 *   written (unchanged), else the calls are written approved (a missing or
 *   unreadable file too);
 * - no file: CREATED (written unapproved), or ERROR_MISSING_IN_CI (nothing
 *   written) when ci and not allow_pending;
 * - a pending snapshot: PENDING, or ERROR_PENDING_IN_CI when ci and not
 *   allow_pending; never evaluated; differs says whether the calls differ
 *   from the recording (PENDING then warns and keeps them);
 * - an approved baseline: evaluated, PASSED or FAILED by in->score->passed.
 * The kept observation: FAILED and a PENDING that differs keep the calls;
 * PASSED, CREATED, UPDATED and a PENDING equal to its recording drop it;
 * the CI errors leave it.
 */
void ts_check_decide(const ts_check_input *in, ts_check_decision *out);

/* The state of a snapshot read (NULL: no file). */
ts_check_state ts_check_state_of(const ts_snapshot *snapshot);

/*
 * Score in->calls against in->snapshot's calls with in->options under
 * in->rules, both already validated (ts_rules_evaluate, validated): what
 * TS_CHECK_EVALUATE asks for. out is released with ts_score_result_free;
 * applied (NULL when the caller needs nothing of it) receives what the
 * rules did and the lists as compared (for the report), released with
 * ts_rules_applied_free, also after a failure.
 */
int ts_check_evaluate(const ts_check_input *in, ts_score_result *out, ts_rules_applied *applied,
                      ts_error *err);

/*
 * The one-line message of a decided check (the name in single quotes), a
 * new string the caller frees; NULL when out of memory or not DONE. The
 * commands it gives name the snapshot quoted for a shell (ts_shell_command):
 * CREATED `tsctl approve 'N'` (and in->file, when set, as the file written),
 * PENDING `tsctl approve 'N'` or `tsctl accept 'N'`, the CI refusals
 * `tsctl accept 'N'` and `tsctl review`; each starts with in->tsctl when set
 * instead of `tsctl`.
 */
char *ts_check_message(const ts_check_input *in, const ts_check_decision *d);

/*
 * The lines that end a FAILED check's text, after its drift report: the
 * command that accepts the observed calls as the baseline (`tsctl accept
 * 'N'`, quoted for a shell; in CI, after running the test locally) and the
 * one that reviews everything (`tsctl review`; both start with in->tsctl
 * when set instead of `tsctl`), each on a line of its own
 * so that it copies whole, under a label of at most 40 columns (the
 * report's narrowest width; a command is never cut, as a single
 * unbreakable word of the report is not). Appends nothing for other
 * outcomes. 0, or out's error.
 */
int ts_check_next_steps(const ts_check_input *in, const ts_check_decision *d, ts_buf *out);

/* "CREATED", "PASSED", ...: the outcome as the protocol spells it ("" for
 * TS_CHECK_NO_OUTCOME). */
const char *ts_check_outcome_name(ts_check_outcome outcome);

/* The outcome spelled name, or TS_CHECK_NO_OUTCOME. */
ts_check_outcome ts_check_outcome_parse(const char *name);

/*
 * Approving one snapshot: a pending one becomes approved (updated_at now,
 * toolscore_version ours) and *write is true; an approved one is left as it
 * is and *write is false. -ENOMEM only.
 */
int ts_check_approve(ts_snapshot *snapshot, bool *write, ts_error *err);

/* Whether "approve all pending" takes snapshot. */
bool ts_check_approve_selects(const ts_snapshot *snapshot);

/*
 * A trace import of calls as name (method record): exists says whether the
 * name's file is there, existing is its snapshot when it was read (NULL:
 * not read, or unreadable). Without update an existing snapshot is an error
 * ("exists", naming name and file); else the calls are written, approved
 * when update, keeping created_at of an existing file: d->outcome is
 * UPDATED with update, CREATED without. An update whose calls equal those
 * of an approved existing snapshot writes nothing (d->unchanged). Every
 * import drops the name's kept observation (d->keep).
 */
int ts_check_record(const char *name, const char *file, bool exists, const ts_snapshot *existing,
                    const struct json_object *calls, bool update, ts_check_decision *d,
                    ts_error *err);

/* What accepting one name does (method accept). */
typedef enum ts_check_accept_action {
    TS_CHECK_ACCEPT_NOTHING = 0, /* an approved snapshot without a kept observation */
    TS_CHECK_ACCEPT_RECORDING,   /* a pending snapshot without one: approve it as recorded */
    TS_CHECK_ACCEPT_OBSERVED,    /* write the observed calls approved, drop the observation */
    TS_CHECK_ACCEPT_SUPERSEDED,  /* the observation no longer applies: drop it, write nothing */
    TS_CHECK_ACCEPT_UNKNOWN,     /* neither a snapshot nor an observation: not_found */
} ts_check_accept_action;

/*
 * Accepting the name whose snapshot is snapshot (NULL: no file) and which
 * has a kept observation (have_observation) taken against a baseline whose
 * calls id was baseline_matches the id of snapshot's calls now. An
 * observation of a snapshot that was removed, or whose calls changed since
 * (a checkout, an edit, another daemon), is superseded: accepting it would
 * overwrite calls nobody compared it with.
 */
ts_check_accept_action ts_check_accept(const ts_snapshot *snapshot, bool have_observation,
                                       bool baseline_matches);

/* What rejecting one name does (method reject). */
typedef struct ts_check_reject_plan {
    bool known;            /* false: neither a snapshot nor an observation (not_found) */
    bool remove_snapshot;  /* a pending snapshot: delete its file */
    bool drop_observation; /* a kept observation: drop it */
} ts_check_reject_plan;

/* Rejecting the name whose snapshot is snapshot (NULL: no file), with or
 * without a kept observation: a pending snapshot is deleted, an approved
 * baseline kept; the observation is dropped. */
ts_check_reject_plan ts_check_reject(const ts_snapshot *snapshot, bool have_observation);

/*
 * The racy-timestamp rule (git's): a copy of a file read at read_ns (the
 * realtime clock just before the read) stands for the file while a stat
 * shows the same stamp, but only when the file's mtime and ctime are older
 * than read_ns by more than margin_ns. A file written within one tick of
 * its timestamps before the read could change again without its stamp
 * changing, so such a copy is never trusted. Every later change of the
 * file (written, renamed, linked, unlinked) gives it a new ctime.
 * TS_CHECK_RACY_NS covers file systems with 1-2 s timestamps.
 */
#define TS_CHECK_RACY_NS (3 * 1000000000LL)
bool ts_check_stamp_trusted(int64_t mtime_ns, int64_t ctime_ns, int64_t read_ns, int64_t margin_ns);

#endif
