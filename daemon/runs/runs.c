/*
 * runs — the runs the daemon keeps, in memory and on disk (see runs.h).
 */
#include "runs_internal.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/base/ts_base.h"
#include "lib/json/ts_json.h"
#include "lib/runreport/ts_runreport.h"

/* Every partial reason about lost records starts so (one, kept current). */
#define LOST_PREFIX "checks not recorded: "

static void run_id(char out[TSD_RUN_ID_LEN + 1])
{
    unsigned char raw[TSD_RUN_ID_LEN / 2];
    static const char hex[] = "0123456789abcdef";

    if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
        static unsigned long counter;
        uint64_t v = ((uint64_t)getpid() << 32) ^ ++counter;

        memset(raw, 0, sizeof(raw));
        memcpy(raw, &v, sizeof(v));
    }
    for (size_t i = 0; i < sizeof(raw); i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[TSD_RUN_ID_LEN] = '\0';
}

static bool run_id_valid(const char *s)
{
    return strlen(s) == TSD_RUN_ID_LEN && strspn(s, "0123456789abcdef") == TSD_RUN_ID_LEN;
}

/* 16 hex digits to their value (0 stands for none: ids are never 0 here,
 * a real 0 becomes 1, one more collision in 2^64). */
static uint64_t id_value(const char *hex)
{
    uint64_t v = 0;

    if (hex == NULL || hex[0] == '\0')
        return 0;
    for (const char *p = hex; *p; p++)
        v = v << 4 | (uint64_t)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
    return v != 0 ? v : 1;
}

/* Count one check in memory (a new one, or one read back). */
static int run_count(tsd_run *run, const char *name, const char *test, const char *outcome,
                     bool unchanged, uint64_t calls_id, bool calls_kept, uint64_t report_id,
                     bool report_kept, uint64_t baseline_id, bool baseline_kept)
{
    tsd_run_name *n = tsd_run_name_get(run, name);

    if (n == NULL || tsd_run_name_claim(n, test) < 0)
        return -ENOMEM;
    if (calls_id != 0 && calls_kept && tsd_run_name_add_list(n, calls_id) < 0)
        return -ENOMEM;
    if (report_id != 0 && report_kept && tsd_run_reports_add(run, report_id) < 0)
        return -ENOMEM;
    /* Baselines share the set of texts on disk: ids of distinct texts. */
    if (baseline_id != 0 && baseline_kept && tsd_run_reports_add(run, baseline_id) < 0)
        return -ENOMEM;
    n->last_failed = strcmp(outcome, "FAILED") == 0;
    ts_runreport_count(&run->counts, ts_runreport_outcome_of(outcome), unchanged);
    run->checks++;
    return 0;
}

/* ---- runs ------------------------------------------------------------ */

static void run_free(tsd_run *run)
{
    if (run->fd >= 0)
        close(run->fd);
    if (run->dir >= 0)
        close(run->dir);
    tsd_run_names_free(run);
    free(run->store);
    free(run->label);
    free(run->host);
    for (size_t i = 0; i < run->nreasons; i++)
        free(run->reasons[i]);
    free(run->reasons);
    free(run->referenced);
    free(run->failed);
    json_object_put(run->duplicates);
    json_object_put(run->flaky_lines);
    free(run);
}

static tsd_run *run_new(void)
{
    tsd_run *run = calloc(1, sizeof(*run));

    if (run != NULL) {
        run->dir = -1;
        run->fd = -1;
        run->closed_ms = -1;
    }
    return run;
}

/* A view of run as run.json holds it (strings borrowed). */
static void meta_view(const tsd_run *run, tsd_run_meta *m)
{
    memset(m, 0, sizeof(*m));
    snprintf(m->id, sizeof(m->id), "%s", run->id);
    m->store = run->store;
    m->label = run->label;
    m->host = run->host;
    m->socket = NULL;
    m->opened_ms = run->opened_ms;
    m->closed_ms = run->closed ? run->closed_ms : -1;
    m->partial = run->partial;
    m->reasons = run->reasons;
    m->nreasons = run->nreasons;
    if (run->closed) {
        m->has_counts = true;
        m->counts = run->counts;
        m->checks = run->checks;
        m->duplicates = run->duplicates;
        m->flaky_lines = run->flaky_lines;
    }
}

int tsd_run_meta_of(const tsd_run *run, tsd_run_meta *out)
{
    tsd_run_meta view;

    meta_view(run, &view);
    view.has_counts = true;
    view.counts = run->counts;
    view.checks = run->checks;
    view.duplicates = NULL;
    view.flaky_lines = NULL;
    return tsd_run_meta_copy(out, &view);
}

static int write_meta(const tsd_runs *runs, const tsd_run *run, ts_error *err)
{
    tsd_run_meta m;

    meta_view(run, &m);
    m.socket = runs->socket;
    return tsd_run_meta_write(run->dir, &m, err);
}

/* Open runs/<id> (creating it when asked). */
static int run_dir(const tsd_runs *runs, const char *id, bool create, int *fd, ts_error *err)
{
    char rel[sizeof("runs/") + TSD_RUN_ID_LEN];

    snprintf(rel, sizeof(rel), "runs/%s", id);
    return ts_state_dir(runs->state, rel, create, fd, err);
}

static void link_run(tsd_runs *runs, tsd_run *run)
{
    tsd_run **p = &runs->list;

    /* Newest first, by opening time. */
    while (*p != NULL && (*p)->opened_ms > run->opened_ms)
        p = &(*p)->next;
    run->next = *p;
    *p = run;
    runs->count++;
    if (!run->closed)
        runs->open_count++;
}

static void unlink_run(tsd_runs *runs, tsd_run *run)
{
    for (tsd_run **p = &runs->list; *p != NULL; p = &(*p)->next) {
        if (*p == run) {
            *p = run->next;
            runs->count--;
            if (!run->closed)
                runs->open_count--;
            return;
        }
    }
}

/* Forget run and remove its files. */
static void drop_run(tsd_runs *runs, tsd_run *run, const char *why)
{
    ts_error err;

    tsd_info("run %s removed (%s)", run->id, why);
    unlink_run(runs, run);
    if (ts_state_remove_tree(runs->dir, run->id, &err) < 0)
        tsd_warn("run %s: %s", run->id, err.message);
    run_free(run);
}

/* Keep at most runs->keep closed runs, none older than max_age, and no
 * open run idle for max_age; spare (the run just closed) stays. */
static void prune(tsd_runs *runs, const tsd_run *spare, int64_t now_ms)
{
    size_t closed_seen = 0;
    tsd_run *run = runs->list;

    while (run != NULL) {
        tsd_run *next = run->next;

        if (run == spare) {
            closed_seen += run->closed;
        } else if (run->closed) {
            closed_seen++;
            if (closed_seen > runs->keep)
                drop_run(runs, run, "more closed runs than --runs-keep");
            else if (now_ms - run->closed_ms > runs->max_age_ms)
                drop_run(runs, run, "closed longer ago than --runs-max-age");
        } else if (now_ms - run->active_ms > runs->max_age_ms) {
            drop_run(runs, run, "open without a check for longer than --runs-max-age");
        }
        run = next;
    }
}

int tsd_runs_open(tsd_runs *runs, const char *store, const char *label, int64_t now_ms,
                  tsd_run **out, ts_error *err)
{
    char host[256];
    tsd_run *run;
    int rc;

    if (runs->open_count >= TSD_RUNS_OPEN_MAX)
        return ts_error_set(err, -E2BIG, TS_ERR_LIMIT,
                            "too many open runs (%d); close finished runs first",
                            TSD_RUNS_OPEN_MAX);
    run = run_new();
    if (run == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    if (gethostname(host, sizeof(host)) < 0)
        snprintf(host, sizeof(host), "localhost");
    host[sizeof(host) - 1] = '\0';
    run_id(run->id);
    run->store = strdup(store);
    run->label = label != NULL ? strdup(label) : NULL;
    run->host = strdup(host);
    run->opened_ms = run->active_ms = now_ms;
    if (run->store == NULL || (label != NULL && run->label == NULL) || run->host == NULL) {
        run_free(run);
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    rc = run_dir(runs, run->id, true, &run->dir, err);
    if (rc == 0)
        rc = write_meta(runs, run, err);
    if (rc == 0)
        rc = ts_state_append_open(run->dir, "checks.jsonl", &run->fd, err);
    if (rc < 0) {
        ts_state_remove_tree(runs->dir, run->id, NULL);
        run_free(run);
        return ts_error_prefix(err, rc, "cannot keep a new run in %s/runs", runs->state_path);
    }
    link_run(runs, run);
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
                            "no run '%s' (unknown id, or removed after --runs-max-age)", id);
    return 0;
}

/* reason (a copy, owned from here; NULL: none could be made) as the run's
 * partial reason i, replacing it, or a new one when i is nreasons; -ENOMEM
 * when it cannot be kept. */
static int set_reason(tsd_run *run, size_t i, char *reason)
{
    if (reason != NULL && i == run->nreasons) {
        char **a = realloc(run->reasons, (run->nreasons + 1) * sizeof(char *));

        if (a != NULL) {
            run->reasons = a;
            run->reasons[run->nreasons++] = NULL;
        }
    }
    if (reason == NULL || i >= run->nreasons) {
        free(reason);
        return -ENOMEM;
    }
    free(run->reasons[i]);
    run->reasons[i] = reason;
    return 0;
}

/*
 * A run that could not record a check says so, as a partial reason that
 * every report and the summary line show (run.json too, as soon as it can
 * be written): one more check lost, for why.
 */
static void note_lost(tsd_runs *runs, tsd_run *run, const char *why)
{
    char reason[TSD_RUN_REASON_MAX];
    ts_error werr;
    size_t i;

    run->lost++;
    snprintf(reason, sizeof(reason),
             LOST_PREFIX "%llu check(s) of this run could not be written to %s/runs/%s (%s); "
                         "its counts and reports miss them",
             (unsigned long long)run->lost, runs->state_path, run->id, why);
    for (i = 0; i < run->nreasons && strncmp(run->reasons[i], LOST_PREFIX, strlen(LOST_PREFIX));
         i++)
        ;
    (void)set_reason(run, i, strdup(reason));
    run->partial = true;
    tsd_warn("run %s: %s", run->id, reason);
    run->meta_stale = write_meta(runs, run, &werr) < 0;
    if (run->meta_stale)
        tsd_warn("run %s: %s (written again once there is room)", run->id, werr.message);
}

/* run.json again when it could not be written last time (a full disk):
 * after a record went through, and when the daemon stops. */
static void refresh_meta(tsd_runs *runs, tsd_run *run)
{
    ts_error werr;

    if (run->meta_stale && run->dir >= 0)
        run->meta_stale = write_meta(runs, run, &werr) < 0;
}

/* Append line to run's checks.jsonl, whole or not at all: a write that
 * fails (a full disk) is cut back to the last whole line, so the next
 * record starts a line of its own. 0, or -errno. */
static int append_line(tsd_run *run, const ts_buf *line)
{
    int rc = ts_fd_write_all(run->fd, line->data, line->len);

    if (rc == 0) {
        run->bytes += line->len;
        return 0;
    }
    while (ftruncate(run->fd, (off_t)run->bytes) < 0 && errno == EINTR)
        ;
    return rc;
}

int tsd_run_record(tsd_runs *runs, tsd_run *run, const tsd_run_check *c, tsd_run_observation *obs,
                   int64_t now_ms, ts_error *err)
{
    tsd_run_observation local;
    tsd_run_observation *o = obs;
    tsd_run_name *n;
    tsd_run_line l;
    uint64_t calls_id, report_id, baseline_id, rules_id;
    bool room = run->bytes < TSD_RUN_MAX_BYTES;
    bool keep_calls, keep_report, keep_baseline, keep_rules, written;
    ts_buf line;
    int rc;

    (void)runs;
    if (o == NULL || !o->ready) {
        rc = tsd_run_observe(&local, c->calls, c->report, c->baseline, c->rules, err);
        if (rc < 0)
            return rc;
        o = &local;
    }
    calls_id = id_value(o->calls_id);
    report_id = id_value(o->report_id);
    baseline_id = strcmp(c->outcome, "FAILED") == 0 ? id_value(o->baseline_id) : 0;
    rules_id = id_value(o->rules_id);
    n = tsd_run_name_get(run, c->name);
    if (n == NULL) {
        rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
        goto out;
    }
    keep_calls = room && calls_id != 0 && n->nlists < TS_RUNREPORT_MAX_LISTS &&
                 !tsd_run_name_has_list(n, calls_id);
    keep_report = room && report_id != 0 && !tsd_run_reports_has(run, report_id);
    keep_baseline = room && baseline_id != 0 && baseline_id != report_id &&
                    !tsd_run_reports_has(run, baseline_id);
    /* Rules texts are kept once per run like report texts (one id table). */
    keep_rules = rules_id != 0 && rules_id != baseline_id && !tsd_run_reports_has(run, rules_id);
    memset(&l, 0, sizeof(l));
    l.name = c->name;
    l.test = c->test;
    l.outcome = c->outcome;
    l.unchanged = c->unchanged;
    l.score = c->score;
    l.min_score = c->min_score;
    /* to the microsecond: its shortest decimal form is then short to find */
    l.duration_ms = round(c->duration_ms * 1000.0) / 1000.0;
    l.message = c->message;
    l.report_id = report_id != 0 ? o->report_id : NULL;
    l.report = keep_report ? o->report_text.data : NULL;
    if (report_id != 0 && !room && !tsd_run_reports_has(run, report_id))
        l.report = "(report not kept: this run's records passed their size limit)\n";
    l.calls_id = calls_id != 0 ? o->calls_id : NULL;
    l.calls_text = keep_calls ? o->calls_text.data : NULL;
    l.baseline_id = baseline_id != 0 ? o->baseline_id : NULL;
    l.baseline_text = keep_baseline ? o->baseline_text.data : NULL;
    l.rules_id = rules_id != 0 ? o->rules_id : NULL;
    l.rules_text = keep_rules ? o->rules_text.data : NULL;
    ts_buf_init(&line, TS_BUF_UNLIMITED);
    rc = tsd_run_line_encode(&l, &line, err);
    written = false;
    if (rc == 0 && run->checks < TSD_RUN_MAX_CHECKS) {
        int wrc = append_line(run, &line);

        if (wrc < 0) {
            /* never acknowledged as recorded: not counted, the run marked
             * partial, the check answered with the error */
            note_lost(runs, run, strerror(-wrc));
            rc = ts_error_set(err, wrc, TS_ERR_IO,
                              "run %s could not record this check in %s/runs/%s/checks.jsonl: "
                              "%s; the run is marked incomplete (its reports say so)",
                              run->id, runs->state_path, run->id, strerror(-wrc));
        }
        written = wrc == 0;
    }
    ts_buf_free(&line);
    if (rc < 0)
        goto out;
    refresh_meta(runs, run);
    if (run_count(run, c->name, c->test, c->outcome, c->unchanged, calls_id, keep_calls, report_id,
                  keep_report, baseline_id, keep_baseline) < 0)
        rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    if (rc == 0 && keep_rules && written && tsd_run_reports_add(run, rules_id) < 0)
        rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    run->active_ms = now_ms;
out:
    if (o == &local)
        tsd_run_observation_free(&local);
    return rc;
}

int tsd_run_mark_partial(tsd_runs *runs, tsd_run *run, const char *const *reasons, size_t n,
                         ts_error *err)
{
    ts_error werr;

    if (run->closed)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "run '%s' is closed; mark it partial before closing it", run->id);
    for (size_t i = 0; i < n; i++) {
        bool seen = false;

        for (size_t j = 0; j < run->nreasons && !seen; j++)
            seen = strncmp(run->reasons[j], reasons[i], TSD_RUN_REASON_MAX) == 0;
        if (seen || run->nreasons >= TS_RUNREPORT_MAX_REASONS)
            continue;
        if (set_reason(run, run->nreasons, strndup(reasons[i], TSD_RUN_REASON_MAX)) < 0)
            return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    run->partial = true;
    if (write_meta(runs, run, &werr) < 0)
        tsd_warn("run %s: %s", run->id, werr.message);
    return 0;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a;
    uint64_t y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static int compare_name(const void *a, const void *b)
{
    return strcmp((*(tsd_run_name *const *)a)->name, (*(tsd_run_name *const *)b)->name);
}

/* The names two or more tests claimed, sorted: [{name, tests}]. */
static struct json_object *open_duplicates(const tsd_run *run)
{
    struct json_object *out = json_object_new_array();
    tsd_run_name **dups = malloc((run->nnames ? run->nnames : 1) * sizeof(*dups));
    size_t n = 0;

    if (dups == NULL)
        return out;
    for (size_t i = 0; i < run->nnames; i++) {
        if (run->names[i]->ntests >= 2)
            dups[n++] = run->names[i];
    }
    qsort(dups, n, sizeof(*dups), compare_name);
    for (size_t i = 0; i < n; i++) {
        struct json_object *d = json_object_new_object();
        struct json_object *tests = json_object_new_array();

        for (size_t t = 0; t < dups[i]->ntests; t++)
            json_object_array_add(tests, json_object_new_string(dups[i]->tests[t]));
        json_object_object_add(d, "name", json_object_new_string(dups[i]->name));
        json_object_object_add(d, "tests", tests);
        json_object_array_add(out, d);
    }
    free(dups);
    return out;
}

/* The sorted, distinct hashes of the names (failed_only: whose last check
 * FAILED). */
static uint64_t *name_hashes(const tsd_run *run, bool failed_only, size_t *count)
{
    uint64_t *a = malloc((run->nnames ? run->nnames : 1) * sizeof(uint64_t));
    size_t n = 0;

    if (a == NULL)
        return NULL;
    for (size_t i = 0; i < run->nnames; i++) {
        if (!failed_only || run->names[i]->last_failed)
            a[n++] = run->names[i]->hash;
    }
    qsort(a, n, sizeof(uint64_t), compare_u64);
    *count = 0;
    for (size_t i = 0; i < n; i++) {
        if (*count == 0 || a[*count - 1] != a[i])
            a[(*count)++] = a[i];
    }
    return a;
}

void tsd_runs_close(tsd_runs *runs, tsd_run *run, int64_t now_ms)
{
    size_t held = run->nnames;
    ts_error err;
    int rc;

    if (run->closed)
        return;
    run->duplicates = open_duplicates(run);
    for (size_t i = 0; i < run->nnames && !run->may_be_flaky; i++)
        run->may_be_flaky = run->names[i]->nlists >= 2;
    if (!run->may_be_flaky)
        run->flaky_lines = json_object_new_array();
    run->referenced = name_hashes(run, false, &run->nreferenced);
    run->failed = name_hashes(run, true, &run->nfailed);
    if (run->referenced == NULL || run->failed == NULL) {
        /* Orphans of it would be every snapshot: never trust them. */
        const char *why = "the daemon ran out of memory closing it (its names are lost)";

        tsd_warn("run %s: %s", run->id, why);
        tsd_run_mark_partial(runs, run, &why, 1, &err);
    }
    /* The hashes first: a run.json that says closed has them. */
    rc = tsd_run_hashes_write(run->dir, run->referenced, run->nreferenced, run->failed,
                              run->nfailed, &err);
    run->closed = true;
    run->closed_ms = now_ms;
    runs->open_count--;
    if (rc == 0)
        rc = write_meta(runs, run, &err);
    if (rc < 0)
        tsd_warn("run %s: cannot keep it closed on disk: %s", run->id, err.message);
    close(run->fd);
    close(run->dir);
    run->fd = run->dir = -1;
    tsd_run_names_free(run);
    /* Hand a big run's memory back to the system at once. */
    if (held > 1000)
        malloc_trim(0);
    prune(runs, run, now_ms);
}

struct json_object *tsd_run_summary(const tsd_run *run)
{
    struct json_object *o = json_object_new_object();
    struct json_object *reasons = json_object_new_array();
    ts_buf line;

    for (size_t i = 0; i < run->nreasons; i++)
        json_object_array_add(reasons, json_object_new_string(run->reasons[i]));
    ts_buf_init(&line, 4096);
    ts_report_summary(&run->counts, &line);
    /* lost records are said on the line every client prints */
    for (size_t i = 0; i < run->nreasons; i++) {
        if (strncmp(run->reasons[i], LOST_PREFIX, strlen(LOST_PREFIX)) != 0)
            continue;
        ts_buf_appends(&line, line.len > 0 ? "; incomplete: " : "toolscore: incomplete: ");
        ts_buf_appends(&line, run->reasons[i] + strlen(LOST_PREFIX));
    }
    json_object_object_add(o, "run", json_object_new_string(run->id));
    json_object_object_add(o, "store", json_object_new_string(run->store));
    json_object_object_add(o, "label", tsd_json_string_or_null(run->label));
    json_object_object_add(o, "host", tsd_json_string_or_null(run->host));
    json_object_object_add(o, "opened", ts_runreport_time_json(run->opened_ms));
    json_object_object_add(o, "closed", json_object_new_boolean(run->closed));
    json_object_object_add(o, "closed_at",
                           ts_runreport_time_json(run->closed ? run->closed_ms : -1));
    json_object_object_add(o, "complete", json_object_new_boolean(run->closed && !run->partial));
    json_object_object_add(o, "partial", json_object_new_boolean(run->partial));
    json_object_object_add(o, "partial_reasons", reasons);
    json_object_object_add(o, "counts", ts_runreport_counts_json(&run->counts, run->checks));
    json_object_object_add(o, "summary",
                           json_object_new_string(line.data != NULL ? line.data : ""));
    json_object_object_add(o, "duplicates",
                           run->closed ? json_object_get(run->duplicates) : open_duplicates(run));
    if (run->closed && run->flaky_lines != NULL)
        json_object_object_add(o, "flaky_lines", ts_json_copy(run->flaky_lines));
    else if (!tsd_run_may_be_flaky(run))
        json_object_object_add(o, "flaky_lines", json_object_new_array());
    ts_buf_free(&line);
    return o;
}

bool tsd_run_may_be_flaky(const tsd_run *run)
{
    if (run->closed)
        return run->flaky_lines == NULL && run->may_be_flaky;
    for (size_t i = 0; i < run->nnames; i++) {
        if (run->names[i]->nlists >= 2)
            return true;
    }
    return false;
}

void tsd_run_keep_flaky(tsd_runs *runs, tsd_run *run, struct json_object *lines)
{
    ts_error err;
    int dir = -1;

    if (!run->closed || run->flaky_lines != NULL)
        return;
    run->flaky_lines = json_object_get(lines);
    if (run_dir(runs, run->id, false, &dir, &err) == 0) {
        run->dir = dir;
        if (write_meta(runs, run, &err) < 0)
            tsd_warn("run %s: cannot keep its flaky lines: %s", run->id, err.message);
        close(dir);
        run->dir = -1;
    }
}

bool tsd_run_references(const tsd_run *run, const char *name)
{
    uint64_t h = tsd_run_name_hash(name);

    if (run->closed)
        return tsd_run_hashes_has(run->referenced, run->nreferenced, h);
    return tsd_run_name_find(run, name, h) != NULL;
}

size_t tsd_runs_memory(const tsd_runs *runs)
{
    size_t bytes = 0;

    for (const tsd_run *run = runs->list; run != NULL; run = run->next) {
        bytes += sizeof(*run) + strlen(run->store) + 1 + (run->label ? strlen(run->label) : 0) +
                 (run->host ? strlen(run->host) : 0) + run->nreasons * TSD_RUN_REASON_MAX / 4;
        bytes += (run->nreferenced + run->nfailed) * sizeof(uint64_t);
        bytes += run->capnames * sizeof(void *) + run->nslots * sizeof(size_t) +
                 run->capreports * sizeof(uint64_t);
        for (size_t i = 0; i < run->nnames; i++) {
            const tsd_run_name *n = run->names[i];

            bytes += sizeof(*n) + strlen(n->name) + 1 + n->nlists * sizeof(uint64_t) +
                     n->ntests * sizeof(char *);
            for (size_t t = 0; t < n->ntests; t++)
                bytes += strlen(n->tests[t]) + 1;
        }
        if (run->duplicates != NULL)
            bytes += strlen(json_object_to_json_string(run->duplicates)) * 4;
        if (run->flaky_lines != NULL)
            bytes += strlen(json_object_to_json_string(run->flaky_lines)) * 2;
    }
    return bytes;
}

size_t tsd_runs_kept(const tsd_runs *runs)
{
    return runs->count - runs->open_count;
}

/* ---- reading runs back ----------------------------------------------- */

static int reload_line(const tsd_run_line *l, void *arg, ts_error *err)
{
    tsd_run *run = arg;

    if (run_count(run, l->name, l->test, l->outcome, l->unchanged, id_value(l->calls_id),
                  l->calls != NULL, id_value(l->report_id), l->report != NULL,
                  id_value(l->baseline_id), l->baseline != NULL) < 0 ||
        (l->rules != NULL && tsd_run_reports_add(run, id_value(l->rules_id)) < 0))
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    return 0;
}

/* Take over m's strings into run. */
static void run_from_meta(tsd_run *run, tsd_run_meta *m)
{
    memcpy(run->id, m->id, TSD_RUN_ID_LEN); /* the caller checked: 32 hex digits */
    run->id[TSD_RUN_ID_LEN] = '\0';
    run->store = m->store;
    run->label = m->label;
    run->host = m->host;
    run->opened_ms = run->active_ms = m->opened_ms;
    run->closed = m->closed_ms >= 0;
    run->closed_ms = m->closed_ms;
    run->partial = m->partial;
    run->reasons = m->reasons;
    run->nreasons = m->nreasons;
    run->counts = m->counts;
    run->checks = m->checks;
    run->duplicates = m->duplicates;
    run->flaky_lines = m->flaky_lines;
    /* Closed before its lines were known: worked out when asked. */
    run->may_be_flaky = run->closed && run->flaky_lines == NULL;
    memset(m, 0, sizeof(*m));
}

/* One run of runs/ back into memory; NULL when it cannot be (logged). */
static tsd_run *reload(tsd_runs *runs, const char *id, const int64_t *now_ms)
{
    tsd_run *run = run_new();
    tsd_run_meta m;
    ts_error err;
    uint64_t end = 0;
    size_t bad = 0;
    struct stat st;
    int rc;

    if (run == NULL)
        return NULL;
    rc = run_dir(runs, id, false, &run->dir, &err);
    if (rc == 0)
        ts_state_clean_temps(run->dir, NULL);
    if (rc == 0)
        rc = tsd_run_meta_read(run->dir, &m, &err);
    if (rc == 0 && strcmp(m.id, id) != 0) {
        tsd_run_meta_free(&m);
        rc = ts_error_set(&err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "run.json names run '%s'", m.id);
    }
    if (rc == 0 && (m.socket == NULL || strcmp(m.socket, runs->socket) != 0)) {
        /* Another daemon's run: dropped when old, else left to it. */
        int64_t last = m.closed_ms >= 0 ? m.closed_ms : m.opened_ms;

        if (*now_ms - last > runs->max_age_ms && ts_state_remove_tree(runs->dir, id, NULL) == 0)
            tsd_info("run %s of %s removed (older than --runs-max-age)", id,
                     m.socket ? m.socket : "an unknown socket");
        tsd_run_meta_free(&m);
        run_free(run);
        return NULL;
    }
    if (rc == 0)
        run_from_meta(run, &m);
    if (rc == 0 && run->closed) {
        rc = tsd_run_hashes_read(run->dir, &run->referenced, &run->nreferenced, &run->failed,
                                 &run->nfailed, &err);
        close(run->dir);
        run->dir = -1;
    } else if (rc == 0) {
        run->counts = (ts_summary_counts){0};
        run->checks = 0;
        rc = tsd_run_lines_read(run->dir, reload_line, run, &bad, &end, &err);
        if (rc == 0)
            rc = ts_state_append_open(run->dir, "checks.jsonl", &run->fd, &err);
        /* Cut a torn last line off, so the next append starts a line (its
         * check was never acknowledged: the reply follows the append). */
        run->bytes = end;
        if (rc == 0 && fstat(run->fd, &st) == 0 && (uint64_t)st.st_size > end) {
            if (ftruncate(run->fd, (off_t)end) < 0)
                rc = ts_error_set(&err, -errno, TS_ERR_IO, "cannot cut the torn last line: %s",
                                  strerror(errno));
            else
                tsd_warn("run %s: a torn last record (%llu bytes) cut off", id,
                         (unsigned long long)((uint64_t)st.st_size - end));
        }
        if (fstat(run->fd, &st) == 0)
            run->active_ms = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
        if (bad > 0)
            tsd_warn("run %s: %zu unreadable line(s) in checks.jsonl skipped", id, bad);
    }
    if (rc < 0) {
        tsd_warn("run %s in %s/runs cannot be read, left as it is: %s", id, runs->state_path,
                 err.message);
        run_free(run);
        return NULL;
    }
    return run;
}

int64_t tsd_runs_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int tsd_runs_init(tsd_runs *runs, const ts_state *state, const char *socket, size_t keep,
                  int64_t max_age_s, int64_t now_ms, ts_error *err)
{
    char **names = NULL;
    size_t count = 0;
    int rc;

    memset(runs, 0, sizeof(*runs));
    runs->dir = -1;
    runs->keep = keep;
    runs->max_age_ms = max_age_s * 1000;
    runs->state = state;
    runs->state_path = strdup(ts_state_path(state));
    runs->socket = strdup(socket);
    if (runs->state_path == NULL || runs->socket == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    rc = ts_state_dir(state, "runs", true, &runs->dir, err);
    if (rc == 0)
        rc = ts_state_clean_temps(runs->dir, err);
    if (rc == 0)
        rc = ts_state_list(runs->dir, &names, &count, err);
    if (rc < 0)
        return ts_error_prefix(err, rc, "runs in %s", ts_state_path(state));
    for (size_t i = 0; i < count; i++) {
        tsd_run *run;

        if (!run_id_valid(names[i]))
            continue;
        run = reload(runs, names[i], &now_ms);
        if (run == NULL)
            continue;
        link_run(runs, run);
        tsd_info("run %s read back: %s, %lld check(s)", run->id, run->closed ? "closed" : "open",
                 (long long)run->checks);
    }
    ts_state_names_free(names, count);
    prune(runs, NULL, now_ms);
    return 0;
}

void tsd_runs_free(tsd_runs *runs)
{
    while (runs->list != NULL) {
        tsd_run *run = runs->list;

        runs->list = run->next;
        refresh_meta(runs, run);
        run_free(run);
    }
    if (runs->dir >= 0)
        close(runs->dir);
    free(runs->state_path);
    free(runs->socket);
    memset(runs, 0, sizeof(*runs));
    runs->dir = -1;
}
