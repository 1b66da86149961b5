/*
 * ts_flaky — repeats as flakiness (docs/rules.md, "Repeats"): from the
 * distinct call lists one name was observed with in a run (a
 * ts_runreport_repeat: each list with how many observations had it and
 * their outcomes), what varied between the observations, and the rules
 * that would make the name stable.
 *
 * Observations are told apart as a check compares them: under the rules
 * the name was checked with (`tools.NAME.ignore` and `ignore` leave values
 * out, a non-strict `order` compares the lists as multisets of calls);
 * matchers and min_score do not merge them (a query that a regex accepts
 * still varies: the name is flaky even when every check passed). Two
 * lists that differ only by the order of their calls are a reordering.
 *
 * What varied is named in the drift report's path style, against a
 * reference list (the pending recording before approval, else the list
 * with the most PASSED observations, then the most observations):
 * `calls[1].args.query (3 values)`, `calls[2] present in 2 of 5`. The
 * suggested rules are `ignore` patterns `TOOL.args.PATH` (an array index
 * generalised to `[*]` only when more than TS_FLAKY_GENERALISE indexes of
 * one array vary, or when the narrow patterns would not be enough),
 * `tools.NAME.ignore` for a call present in only some observations, and
 * `order: "unordered"` for reorderings, each set checked by applying it:
 * under the rules in force merged with the suggestion every observation
 * compares equal.
 *
 *   ts_flaky f;
 *   if (ts_flaky_analyse(&repeat, rules, &f, &err) == 0 && f.flaky)
 *       puts(f.line);  // "flaky: tests/t.py::test_book — 5 runs, 3 distinct; varied: ..."
 *   ts_flaky_free(&f);
 *
 * Bounds: the lists of a repeat (TS_RUNREPORT_MAX_LISTS) are analysed
 * whole; time is about linear in their calls and values (lists whose
 * tools line up are paired index by index, others aligned as the drift
 * report aligns them, within its budget); at most TS_FLAKY_TRACKED varied
 * paths are followed per name (more are counted), TS_FLAKY_PATHS listed.
 * Pure: no I/O, nothing printed; not thread safe per ts_flaky.
 */
#ifndef TS_FLAKY_H
#define TS_FLAKY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "lib/base/ts_base.h"
#include "lib/rules/ts_rules.h"
#include "lib/runreport/ts_runreport.h"

#define TS_FLAKY_SAMPLES 5    /* sample values kept per varied path */
#define TS_FLAKY_PATHS 100    /* varied paths listed per name */
#define TS_FLAKY_LINE_PATHS 6 /* varied paths named in its line */
#define TS_FLAKY_TRACKED 4096 /* varied paths followed per name */
#define TS_FLAKY_GENERALISE 3 /* more varying indexes of one array: [*] */
#define TS_FLAKY_NAME_MAX 512 /* bytes of the name in a line (longer: cut) */

/* One value a varied path took, and in how many observations. */
typedef struct ts_flaky_sample {
    const struct json_object *value; /* held by the ts_flaky */
    int64_t count;
} ts_flaky_sample;

/* A path that varied between the observations. */
typedef struct ts_flaky_path {
    char *path;     /* "calls[1].args.query", "calls[2]" (a whole call) */
    bool call;      /* a whole call: only present / of apply */
    int64_t values; /* distinct values where present (0 for a call) */
    int64_t present;
    int64_t of; /* observations holding the path, of those holding its call
                 * (a call: of all observations analysed) */
    ts_flaky_sample samples[TS_FLAKY_SAMPLES]; /* most frequent first */
    size_t nsamples;
} ts_flaky_path;

/* The analysis of one repeated name. */
typedef struct ts_flaky {
    bool flaky;           /* its observations differ as compared */
    const char *name;     /* borrowed from the repeat */
    int64_t observations; /* as the repeat counts them */
    int64_t analysed;     /* observations whose calls are known (the "of N") */
    int64_t distinct;     /* distinct lists as compared under the rules */
    int64_t k;            /* the repeat's k, pass^k, pass@k */
    int pass_all, pass_any;
    bool pending;            /* no approved baseline: compared with the pending recording */
    bool reordered;          /* some lists differ only by the order of their calls */
    int64_t reordered_count; /* observations whose calls are another's reordered */
    ts_flaky_path *paths;    /* sorted by call index */
    size_t npaths;
    size_t paths_omitted;        /* varied paths found but not listed */
    struct json_object *suggest; /* {ignore, order, tools}: NULL when not flaky or none found */
    char *line;                  /* the summary's line, NULL when not flaky */
    struct json_object *held;    /* internal: the values the samples point into */
} ts_flaky;

/*
 * Analyse rep (the lists as the report holds them; lists whose calls are
 * not known or not a valid calls list are left out) under rules, the
 * rules its checks were compared with (NULL: none). out is always
 * initialized (ts_flaky_free it); *out is filled, flaky or not. The only
 * error is -ENOMEM.
 */
int ts_flaky_analyse(const ts_runreport_repeat *rep, const ts_rules *rules, ts_flaky *out,
                     ts_error *err);

void ts_flaky_free(ts_flaky *f);

/*
 * The JSON report's entry of a flaky name (docs/reports.md, "Flaky"):
 * {name, observations, distinct, k, pass^k, pass@k, pending, reordered,
 * varied: [{path, values, samples: [{value, count}], present, of}], line}.
 * A new object, NULL when out of memory.
 */
struct json_object *ts_flaky_json(const ts_flaky *f);

/*
 * The flaky names of report r, sorted by name: *out (n of them) each
 * analysed under the rules its repeat carries; release with
 * ts_flaky_list_free. -ENOMEM is the only error.
 */
int ts_flaky_report(ts_runreport *r, ts_flaky **out, size_t *n, ts_error *err);
void ts_flaky_list_free(ts_flaky *list, size_t n);

/*
 * Merge the rules object add (a suggestion: ignore, order, tools) into
 * base, a rules object (a project's config.json as parsed, its key order
 * kept): `ignore` patterns base lacks are appended (the key added at the
 * end when absent), `order` set, `tools` entries added or given
 * `"ignore": true`; every other key and value of base stays as it was.
 * *changed (may be NULL) says whether base changed. "invalid_rules" when
 * base's `ignore`, `tools` or a tool's entry is not of its type (nothing
 * changed then).
 */
int ts_flaky_rules_merge(struct json_object *base, const struct json_object *add, bool *changed,
                         ts_error *err);

#endif
