/*
 * ts_runreport_internal — what the files of ts_runreport share: the report
 * in memory (runs, listed checks, one entry per name referenced) and the
 * operations the JSON reader and the renderers use on it.
 */
#ifndef TS_RUNREPORT_INTERNAL_H
#define TS_RUNREPORT_INTERNAL_H

#include "lib/runreport/ts_runreport.h"

typedef struct rr_run {
    char *id, *store, *label, *host;
    int64_t opened_ms, closed_ms;
    bool partial;
    char **reasons;
    size_t nreasons;
    ts_summary_counts counts;
    int64_t checks; /* counted, listed or not */
} rr_run;

typedef struct rr_check {
    size_t run; /* index into runs */
    ts_runreport_outcome outcome;
    bool unchanged; /* UPDATED, nothing written */
    double score, min_score, duration_ms;
    char *name, *test, *message, *report;
    char calls_id[TS_RUNREPORT_CALLS_ID_LEN + 1];    /* "" when no observation */
    char baseline_id[TS_RUNREPORT_CALLS_ID_LEN + 1]; /* "" when none (FAILED only) */
} rr_check;

/* A call list carried for FAILED checks (ts_runreport_calls.c): calls NULL
 * when named but not carried (too long, past the total, not known). */
typedef struct rr_calls {
    char id[TS_RUNREPORT_CALLS_ID_LEN + 1];
    struct json_object *calls;
} rr_calls;

typedef struct rr_name {
    char *name;
    char **tests; /* distinct, in the order first seen */
    size_t ntests;
    int64_t observations;
    int64_t outcomes[TS_RUNREPORT_OUTCOMES];
    ts_runreport_list *lists; /* ids and calls owned */
    size_t nlists, caplists;
    int64_t unlisted;
    struct json_object *rules; /* the rules of its first observation with rules (interned) */
    bool from_repeats;         /* read from a JSON report's repeats (ts_runreport_json.c) */
} rr_name;

/* A distinct rules object of the report, by the hash of its compact text. */
typedef struct rr_rules {
    uint64_t hash;
    struct json_object *obj; /* NULL: an empty slot */
} rr_rules;

struct ts_runreport {
    rr_run *runs;
    size_t nruns, capruns;
    rr_check *checks;
    size_t nchecks, capchecks;
    int64_t omitted; /* checks counted but not listed */
    int64_t counted;
    ts_summary_counts counts;
    rr_name **names;
    size_t nnames, capnames;
    size_t *slots; /* open addressing: index + 1 into names, 0 empty */
    size_t nslots;
    rr_calls *calls; /* the FAILED checks' lists, first named first */
    size_t ncalls, capcalls;
    size_t *callslots; /* open addressing: index + 1 into calls, 0 empty */
    size_t ncallslots;
    size_t calls_bytes; /* compact JSON carried */
    rr_rules *rules;    /* open addressing (ts_runreport_rules.c) */
    size_t rules_cap, nrules;
};

/* A new reference to r's copy of the rules object obj (made when new);
 * *out NULL for a NULL obj. -ENOMEM. */
int rr_rules_intern(ts_runreport *r, const struct json_object *obj, struct json_object **out);

/* Release the rules r keeps. */
void rr_rules_free(ts_runreport *r);

/* Grow *arr (of *cap elements of size sz) to hold need elements:
 * 0 or -ENOMEM. */
int rr_grow(void *arr, size_t *cap, size_t need, size_t sz);

/* Free a name and what it holds (NULL: nothing). */
void rr_name_free(rr_name *n);

/* The entry of name, created when create is set (NULL: out of memory, or
 * absent and not created). */
rr_name *rr_name_get(ts_runreport *r, const char *name, bool create);

/* Add test to the claims of n (each test once, at most
 * TS_RUNREPORT_MAX_TESTS). */
int rr_name_claim(rr_name *n, const char *test);

/* Count count observations of n with outcome o whose calls have id (NULL:
 * not known) and are calls (NULL: not known). */
int rr_name_observe(rr_name *n, ts_runreport_outcome o, const char *id,
                    const struct json_object *calls, int64_t count);

/* Add the counts b to a. */
void rr_counts_add(ts_summary_counts *a, const ts_summary_counts *b);

/* List a check (copies its strings); past TS_RUNREPORT_MAX_CHECKS it is
 * only counted as omitted. */
int rr_list_check(ts_runreport *r, size_t run, const ts_runreport_check *c, ts_runreport_outcome o,
                  const char *calls_id, const char *baseline_id);

/* Indexes of the names sorted by name (malloc'ed, free() it). */
size_t *rr_sorted_names(const ts_runreport *r);

/* Move everything of src into dst (dst's run ids and src's must not
 * overlap, checked by the caller); src is left empty. */
int rr_merge(ts_runreport *dst, ts_runreport *src);

/* Name the list id among the FAILED checks' lists, with its calls when
 * given (owned: take a reference to calls, else copy them) and the bounds
 * allow; a list named before without calls takes them now. -ENOMEM only. */
int rr_calls_keep(ts_runreport *r, const char *id, const struct json_object *calls, bool owned);

/* The calls of list id (NULL: not carried, or id NULL/""). */
const struct json_object *rr_calls_get(const ts_runreport *r, const char *id);

/* Name the lists of the listed check c when it FAILED: its observed calls
 * (observed, else its name's list of that id) and its baseline. */
int rr_calls_of_check(ts_runreport *r, const rr_check *c, const struct json_object *observed,
                      const struct json_object *baseline, bool owned);

/* Lists named and not carried. */
int64_t rr_calls_omitted(const ts_runreport *r);

/* The carried lists as an object id -> calls, sorted by id (NULL: out of
 * memory). */
struct json_object *rr_calls_json(const ts_runreport *r);

/* Join src's lists into dst's (bounds applied again). */
int rr_calls_merge(ts_runreport *dst, const ts_runreport *src);

void rr_calls_free(ts_runreport *r);

/* The runs' index of id, or -1. */
long rr_run_index(const ts_runreport *r, const char *id);

#endif
