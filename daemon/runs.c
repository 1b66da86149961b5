/*
 * runs — per-run bookkeeping (see runs.h).
 */
#include "runs.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "params.h"
#include "ts_buf.h"

static void run_id(char out[TSD_RUN_ID_LEN + 1])
{
    unsigned char raw[TSD_RUN_ID_LEN / 2];
    static const char hex[] = "0123456789abcdef";

    if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
        /* Unlikely; fall back to something unique within this process. */
        static unsigned long counter;
        snprintf((char *)raw, sizeof(raw), "%lx", ++counter);
    }
    for (size_t i = 0; i < sizeof(raw); i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[TSD_RUN_ID_LEN] = '\0';
}

static void run_free(tsd_run *run)
{
    free(run->store);
    free(run->label);
    json_object_put(run->checks);
    json_object_put(run->claims);
    json_object_put(run->failed);
    free(run);
}

/* Forget the oldest closed run; false when every run is open. */
static bool drop_oldest_closed(tsd_runs *runs)
{
    tsd_run **victim = NULL;

    for (tsd_run **p = &runs->list; *p != NULL; p = &(*p)->next) {
        if ((*p)->closed)
            victim = p;
    }
    if (victim == NULL)
        return false;
    tsd_run *run = *victim;
    *victim = run->next;
    run_free(run);
    runs->count--;
    return true;
}

int tsd_runs_open(tsd_runs *runs, const char *store, const char *label, tsd_run **out,
                  ts_error *err)
{
    tsd_run *run;

    if (runs->count >= TSD_RUNS_MAX && !drop_oldest_closed(runs))
        return ts_error_set(err, -E2BIG, TS_ERR_LIMIT,
                            "too many open runs (%d); close finished runs first", TSD_RUNS_MAX);
    run = calloc(1, sizeof(*run));
    if (run == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    run_id(run->id);
    run->store = strdup(store);
    run->label = label != NULL ? strdup(label) : NULL;
    run->checks = json_object_new_array();
    run->claims = json_object_new_object();
    run->failed = json_object_new_object();
    if (run->store == NULL || (label != NULL && run->label == NULL) || run->checks == NULL ||
        run->claims == NULL || run->failed == NULL) {
        run_free(run);
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    run->next = runs->list;
    runs->list = run;
    runs->count++;
    runs->open_count++;
    *out = run;
    return 0;
}

tsd_run *tsd_runs_find(tsd_runs *runs, const char *id)
{
    for (tsd_run *run = runs->list; run != NULL; run = run->next) {
        if (strcmp(run->id, id) == 0)
            return run;
    }
    return NULL;
}

int tsd_runs_get(tsd_runs *runs, const char *id, tsd_run **out, ts_error *err)
{
    *out = tsd_runs_find(runs, id);
    if (*out == NULL)
        return ts_error_set(err, -ENOENT, TS_ERR_NOT_FOUND,
                            "no run '%s' (unknown id, or the daemon restarted)", id);
    return 0;
}

static void count_outcome(ts_summary_counts *c, const char *outcome)
{
    if (strcmp(outcome, "CREATED") == 0)
        c->created++;
    else if (strcmp(outcome, "UPDATED") == 0)
        c->updated++;
    else if (strcmp(outcome, "PENDING") == 0)
        c->pending++;
    else if (strcmp(outcome, "PASSED") == 0)
        c->passed++;
    else if (strcmp(outcome, "FAILED") == 0)
        c->failed++;
    else
        c->errors++;
}

/* Add test to the claims of name (each test once). */
static int add_claim(tsd_run *run, const char *name, const char *test)
{
    struct json_object *tests = NULL;

    if (!json_object_object_get_ex(run->claims, name, &tests)) {
        tests = json_object_new_array();
        if (tests == NULL || json_object_object_add(run->claims, name, tests) < 0)
            return -ENOMEM;
    }
    if (test == NULL)
        return 0;
    for (size_t i = 0; i < json_object_array_length(tests); i++) {
        if (strcmp(json_object_get_string(json_object_array_get_idx(tests, i)), test) == 0)
            return 0;
    }
    return json_object_array_add(tests, json_object_new_string(test)) < 0 ? -ENOMEM : 0;
}

/* About what a json-c value takes in memory: a value is about 64 bytes,
 * plus its string's bytes. */
static size_t json_memory(struct json_object *v)
{
    size_t bytes = 64;

    switch (json_object_get_type(v)) {
    case json_type_string:
        return bytes + (size_t)json_object_get_string_len(v);
    case json_type_array:
        for (size_t i = 0; i < json_object_array_length(v); i++)
            bytes += 8 + json_memory(json_object_array_get_idx(v, i));
        return bytes;
    case json_type_object: {
        json_object_object_foreach(v, key, value) bytes += 48 + strlen(key) + json_memory(value);
        return bytes;
    }
    default:
        return bytes;
    }
}

int tsd_run_record(tsd_run *run, const char *name, const char *test, const char *outcome,
                   double score, double duration_ms, const char *message, const char *report,
                   struct json_object *observed)
{
    struct json_object *rec;

    /* a record is 8 values and its strings; a FAILED check keeps its calls */
    run->bytes += 8 * 64 + strlen(name) + (test ? strlen(test) : 0) + strlen(message) +
                  (report ? strlen(report) : 0) +
                  (strcmp(outcome, "FAILED") == 0 && observed != NULL ? json_memory(observed) : 0);

    count_outcome(&run->counts, outcome);
    if (add_claim(run, name, test) < 0)
        return -ENOMEM;
    if (strcmp(outcome, "FAILED") == 0 && observed != NULL)
        json_object_object_add(run->failed, name, json_object_get(observed));
    else
        json_object_object_del(run->failed, name);
    if (json_object_array_length(run->checks) >= TSD_RUN_MAX_CHECKS)
        return 0; /* counts stay exact; the per-check list stops growing */
    rec = json_object_new_object();
    if (rec == NULL)
        return -ENOMEM;
    json_object_object_add(rec, "name", json_object_new_string(name));
    json_object_object_add(rec, "test", tsd_json_string_or_null(test));
    json_object_object_add(rec, "outcome", json_object_new_string(outcome));
    json_object_object_add(rec, "score", score >= 0 ? json_object_new_double(score) : NULL);
    json_object_object_add(rec, "duration_ms", json_object_new_double(duration_ms));
    json_object_object_add(rec, "message", json_object_new_string(message));
    json_object_object_add(rec, "report", tsd_json_string_or_null(report));
    return json_object_array_add(run->checks, rec) < 0 ? -ENOMEM : 0;
}

void tsd_runs_close(tsd_runs *runs, tsd_run *run)
{
    if (!run->closed) {
        run->closed = true;
        runs->open_count--;
    }
}

bool tsd_run_references(const tsd_run *run, const char *name)
{
    return json_object_object_get_ex(run->claims, name, NULL);
}

static struct json_object *counts_json(const ts_summary_counts *c)
{
    struct json_object *o = json_object_new_object();

    json_object_object_add(o, "created", json_object_new_int64(c->created));
    json_object_object_add(o, "updated", json_object_new_int64(c->updated));
    json_object_object_add(o, "pending", json_object_new_int64(c->pending));
    json_object_object_add(o, "passed", json_object_new_int64(c->passed));
    /* The summary line counts CI refusals as failures; so do the counts. */
    json_object_object_add(o, "failed", json_object_new_int64(c->failed + c->errors));
    json_object_object_add(o, "errors", json_object_new_int64(c->errors));
    return o;
}

static struct json_object *duplicates_json(const tsd_run *run)
{
    struct json_object *out = json_object_new_array();

    json_object_object_foreach(run->claims, name, tests)
    {
        if (json_object_array_length(tests) < 2)
            continue;
        struct json_object *d = json_object_new_object();
        json_object_object_add(d, "name", json_object_new_string(name));
        json_object_object_add(d, "tests", json_object_get(tests));
        json_object_array_add(out, d);
    }
    return out;
}

struct json_object *tsd_run_summary(const tsd_run *run)
{
    struct json_object *o = json_object_new_object();
    ts_buf line;

    ts_buf_init(&line, 4096);
    ts_report_summary(&run->counts, &line);
    json_object_object_add(o, "run", json_object_new_string(run->id));
    json_object_object_add(o, "store", json_object_new_string(run->store));
    json_object_object_add(o, "label", tsd_json_string_or_null(run->label));
    json_object_object_add(o, "closed", json_object_new_boolean(run->closed));
    json_object_object_add(o, "counts", counts_json(&run->counts));
    json_object_object_add(o, "summary",
                           json_object_new_string(line.data != NULL ? line.data : ""));
    json_object_object_add(o, "checks", json_object_get(run->checks));
    json_object_object_add(o, "duplicates", duplicates_json(run));
    ts_buf_free(&line);
    return o;
}

size_t tsd_runs_memory(const tsd_runs *runs)
{
    size_t bytes = 0;

    for (const tsd_run *run = runs->list; run != NULL; run = run->next)
        bytes += sizeof(*run) + run->bytes;
    return bytes;
}

void tsd_runs_free(tsd_runs *runs)
{
    while (runs->list != NULL) {
        tsd_run *run = runs->list;
        runs->list = run->next;
        run_free(run);
    }
    runs->count = 0;
    runs->open_count = 0;
}
