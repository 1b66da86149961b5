/*
 * ts_runreport — the report of one run, or of several runs joined (the
 * shards of one CI pipeline): every check, the summary line, the names two
 * tests claimed, the repeats (every distinct observed call list per name,
 * with pass^k and pass@k) and the names referenced, rendered as the JSON
 * report (docs/reports.md, the interchange format of `tsctl report merge`)
 * or as JUnit XML.
 *
 * A report is built by adding runs, then their checks, in order
 * (ts_runreport_add_run, ts_runreport_add_check: what the daemon does with
 * a run's records), or by adding whole JSON reports
 * (ts_runreport_add_json: a shard's file; several are merged). It is then
 * rendered (ts_runreport_json, ts_runreport_junit) or read
 * (ts_runreport_references for orphans, ts_runreport_repeats). Rendering is
 * deterministic: the same additions give the same bytes.
 *
 *   ts_runreport *r = ts_runreport_new();
 *   ts_runreport_add_run(r, &run, &err);
 *   ts_runreport_add_check(r, &check, &err);  // once per check
 *   ts_runreport_junit(r, &buf, &err);
 *   ts_runreport_free(r);
 *
 * Bounds: at most TS_RUNREPORT_MAX_LISTS distinct call lists kept per name
 * (later distinct lists are counted, not kept), TS_RUNREPORT_MAX_TESTS
 * tests kept per name, TS_RUNREPORT_MAX_CHECKS checks listed (the counts
 * stay exact past it). Not thread safe: one report per thread. A report
 * owns copies of everything added to it.
 */
#ifndef TS_RUNREPORT_H
#define TS_RUNREPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "lib/base/ts_base.h"
#include "lib/report/ts_report.h"

/* The JSON report's "format" and "version" (docs/reports.md). */
#define TS_RUNREPORT_FORMAT "toolscore-run-report"
#define TS_RUNREPORT_VERSION 1

#define TS_RUNREPORT_MAX_LISTS 100
#define TS_RUNREPORT_MAX_TESTS 100
#define TS_RUNREPORT_MAX_CHECKS 1000000
#define TS_RUNREPORT_MAX_REASONS 32
/* Longest drift report kept per check; longer ones are cut with a note. */
#define TS_RUNREPORT_REPORT_MAX 16384
/* The call lists carried for FAILED checks ("calls"): each at most this
 * many bytes of compact JSON, all of them at most TS_RUNREPORT_CALLS_MAX. */
#define TS_RUNREPORT_CALLS_LIST_MAX (256u << 10)
#define TS_RUNREPORT_CALLS_MAX (8u << 20)
/* A calls id: 16 hex digits of the SHA-1 of the calls' compact JSON. */
#define TS_RUNREPORT_CALLS_ID_LEN 16

/* The outcomes of a check, in the order reports list them. */
typedef enum ts_runreport_outcome {
    TS_RUNREPORT_CREATED,
    TS_RUNREPORT_UPDATED,
    TS_RUNREPORT_PENDING,
    TS_RUNREPORT_PASSED,
    TS_RUNREPORT_FAILED,
    TS_RUNREPORT_ERROR_MISSING_IN_CI,
    TS_RUNREPORT_ERROR_PENDING_IN_CI,
    TS_RUNREPORT_OUTCOMES
} ts_runreport_outcome;

/* The outcome named s ("PASSED", ...), or -1. */
int ts_runreport_outcome_of(const char *s);

/* The name of outcome o ("PASSED", ...). */
const char *ts_runreport_outcome_name(ts_runreport_outcome o);

/* Count one check of outcome o (a ts_runreport_outcome, or -1 from
 * ts_runreport_outcome_of: an error) in c; unchanged: an UPDATED that wrote
 * nothing. */
void ts_runreport_count(ts_summary_counts *c, int o, bool unchanged);

/* One run, as added (strings borrowed for the call). */
typedef struct ts_runreport_run {
    const char *id;             /* required, 1 to 255 bytes */
    const char *store;          /* the snapshot root, NULL when unknown */
    const char *label;          /* NULL: none */
    const char *host;           /* the daemon's host name, NULL when unknown */
    int64_t opened_ms;          /* milliseconds since the epoch */
    int64_t closed_ms;          /* -1: still open */
    bool partial;               /* a shim said not every test ran */
    const char *const *reasons; /* why it is partial (nreasons strings) */
    size_t nreasons;
    int64_t checks; /* filled by ts_runreport_run_at: its checks; not read */
} ts_runreport_run;

/* One check, as added (strings and values borrowed for the call). */
typedef struct ts_runreport_check {
    const char *run;     /* id of a run added before; NULL: the last one added */
    const char *name;    /* the snapshot name */
    const char *test;    /* the test that claimed it, NULL: none */
    const char *outcome; /* one of the seven outcome names */
    double score;        /* < 0: not scored */
    double min_score;    /* < 0: unknown */
    double duration_ms;  /* measured by the daemon */
    const char *message; /* the one-line outcome text */
    const char *report;  /* the drift report, NULL: none */
    bool unchanged;      /* UPDATED with the calls approved already: nothing written */
    /* The observed calls: their id (ts_runreport_calls_id) and/or the calls.
     * With calls and no id the id is computed; with an id and no calls the
     * observation counts but its list is not known; with neither the check
     * is no observation. */
    const char *calls_id;
    const struct json_object *calls;
    /* The baseline a FAILED check was compared with, by id and/or calls as
     * for the observed calls (ignored for other outcomes). A FAILED check's
     * observed and baseline lists are carried by the report (bounded):
     * given here, or by id when an earlier check gave them. */
    const char *baseline_id;
    const struct json_object *baseline;
    /* The comparison rules the check was made under (a rules object as
     * ts_rules_object gives it), NULL: none. A name keeps those of its
     * first observation with rules. */
    const struct json_object *rules;
} ts_runreport_check;

typedef struct ts_runreport ts_runreport;

/* A new, empty report (NULL when out of memory). */
ts_runreport *ts_runreport_new(void);
void ts_runreport_free(ts_runreport *r);

/* Add a run. "invalid_argument" for an empty or duplicate id or more than
 * TS_RUNREPORT_MAX_REASONS reasons. */
int ts_runreport_add_run(ts_runreport *r, const ts_runreport_run *run, ts_error *err);

/* Add one check of a run already added: counted, listed, its name
 * referenced and claimed by its test, its calls observed. An unknown
 * outcome or run is "invalid_argument". */
int ts_runreport_add_check(ts_runreport *r, const ts_runreport_check *check, ts_error *err);

/*
 * Add a JSON report (the text of a file of docs/reports.md, len bytes):
 * its runs, checks, counts, repeats and referenced names join what r holds.
 * Every field is checked: a text that is not such a report is
 * "invalid_json" / "invalid_argument" naming what is wrong and where
 * ("checks[3].outcome: ..."); a newer version is refused; a run id that r
 * already holds is refused (the same shard given twice). Nothing is added
 * on error.
 */
int ts_runreport_add_json(ts_runreport *r, const char *text, size_t len, ts_error *err);

/* Append the JSON report (docs/reports.md), pretty-printed, ending with a
 * newline. */
int ts_runreport_json(ts_runreport *r, ts_buf *out, ts_error *err);

/* The JSON report as a json-c tree (*out, the caller's): what
 * ts_runreport_json writes, for a renderer of another format (ts_html). */
int ts_runreport_json_tree(ts_runreport *r, struct json_object **out, ts_error *err);

/*
 * Append the JUnit XML: one testsuite per run, one testcase per check
 * (PASSED empty; CREATED / UPDATED / PENDING <skipped>; FAILED <failure>
 * with the report; the CI errors <error>), one <error> testcase per name
 * that two tests claimed; valid against the common JUnit schema.
 */
int ts_runreport_junit(ts_runreport *r, ts_buf *out, ts_error *err);

/* The summary line of all checks added ("" when none), into out. */
int ts_runreport_summary(const ts_runreport *r, ts_buf *out);

/* The counts of all checks added. */
ts_summary_counts ts_runreport_counts(const ts_runreport *r);

/* Checks counted (listed or not). */
int64_t ts_runreport_checks(const ts_runreport *r);

/* True when every run added is closed and none is partial. */
bool ts_runreport_complete(const ts_runreport *r);

/* Runs added, and the i-th of them (strings owned by r, valid while it lives). */
size_t ts_runreport_run_count(const ts_runreport *r);
void ts_runreport_run_at(const ts_runreport *r, size_t i, ts_runreport_run *out);

/* True when some check of r referenced name (orphans). */
bool ts_runreport_references(const ts_runreport *r, const char *name);

/* The snapshots of the store at root that no check of r referenced
 * (sorted by name), as a new array *out (a root that does not exist holds
 * none). The store's errors as ts_store_list_summaries gives them. */
int ts_runreport_orphans(const ts_runreport *r, const char *root, struct json_object **out,
                         ts_error *err);

/* Names two or more tests claimed. */
size_t ts_runreport_duplicates(const ts_runreport *r);

/*
 * Whether test ids a and b are one test: equal once a trailing `[...]`
 * parametrization is removed from each (the text from the first '[' of an
 * id that ends with ']'), so pytest-repeat's `test_x[1-5]`, `test_x[2-5]`
 * and a parametrized test's `test_x[a]`, `test_x[b]` checking one explicit
 * name repeat it rather than claim it twice (docs/decisions.md).
 */
bool ts_runreport_same_test(const char *a, const char *b);

/* A name and the tests that claimed it. */
typedef struct ts_runreport_claim {
    const char *name;
    const char *const *tests;
    size_t ntests;
} ts_runreport_claim;

/* The names two or more tests claimed, sorted by name, as a malloc'ed
 * array (*out, free() it) of views into r that hold until r changes. */
int ts_runreport_duplicate_list(ts_runreport *r, ts_runreport_claim **out, size_t *n,
                                ts_error *err);

/* One distinct observed call list of a name. */
typedef struct ts_runreport_list {
    const char *id; /* TS_RUNREPORT_CALLS_ID_LEN hex digits */
    int64_t count;  /* observations with these calls */
    int64_t outcomes[TS_RUNREPORT_OUTCOMES];
    const struct json_object *calls; /* NULL when not known */
} ts_runreport_list;

/* A name observed more than once (a repeat, docs/rules.md). */
typedef struct ts_runreport_repeat {
    const char *name;
    int64_t observations;
    int64_t outcomes[TS_RUNREPORT_OUTCOMES];
    int64_t k;                      /* observations compared with an approved baseline */
    int pass_all;                   /* pass^k: 1 when all k passed, 0 when not, -1 when k is 0 */
    int pass_any;                   /* pass@k: 1 when at least one passed, 0, -1 when k is 0 */
    const ts_runreport_list *lists; /* distinct call lists, first seen first */
    size_t nlists;
    int64_t unlisted;                /* observations whose calls are not among the lists */
    const struct json_object *rules; /* the rules it was checked with, NULL: none */
} ts_runreport_repeat;

/*
 * The repeats of r, sorted by name, as a malloc'ed array (*out, free() it);
 * the views inside point into r and hold until r changes.
 */
int ts_runreport_repeats(ts_runreport *r, ts_runreport_repeat **out, size_t *n, ts_error *err);

/* The calls of list id carried for the FAILED checks (NULL: not
 * carried); valid until r changes. */
const struct json_object *ts_runreport_calls_of(const ts_runreport *r, const char *id);

/* The id of a text (len bytes): the first 8 bytes of its SHA-1 as
 * TS_RUNREPORT_CALLS_ID_LEN lower-case hex digits and a NUL, into out. */
void ts_runreport_text_id(const char *text, size_t len, char out[TS_RUNREPORT_CALLS_ID_LEN + 1]);

/* The calls id of calls into out: the text id of their compact JSON. */
int ts_runreport_calls_id(const struct json_object *calls, char out[TS_RUNREPORT_CALLS_ID_LEN + 1],
                          ts_error *err);

/*
 * Append report (len bytes) to out, cut when longer than max at the last
 * line break that leaves it at most max bytes (at a UTF-8 boundary when
 * there is none), with a last line saying how much was cut.
 */
int ts_runreport_cut(const char *report, size_t len, size_t max, ts_buf *out);

/*
 * The JUnit classname and name of a check: a pytest node id
 * "tests/test_a.py::TestX::test_y[p]" gives "tests.test_a.TestX" and
 * "test_y[p]" (as pytest's junitxml writes them); another test id gives
 * "toolscore" and the id; no test gives "toolscore" and the snapshot name.
 */
int ts_runreport_junit_names(const char *test, const char *name, ts_buf *classname,
                             ts_buf *case_name);

/* Format ms since the epoch as "YYYY-MM-DDTHH:MM:SS.mmmZ" (out: 25 bytes),
 * and read it back (-EINVAL for any other text). */
void ts_runreport_format_time(int64_t ms, char out[32]);
int ts_runreport_parse_time(const char *s, int64_t *ms);

/* ms as a new JSON string in that form, or NULL (JSON null) when ms < 0
 * (not known). */
struct json_object *ts_runreport_time_json(int64_t ms);

/* The "counts" object of a run as the JSON report and the daemon's run
 * summary write it: created, updated, pending, passed, failed (refusals
 * included, as the summary line counts them), errors, and checks. */
struct json_object *ts_runreport_counts_json(const ts_summary_counts *c, int64_t checks);

#endif
