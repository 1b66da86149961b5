/*
 * accept — methods accept and reject (see snapshots_internal.h).
 */
#include "snapshots_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/check/ts_check.h"
#include "lib/store/ts_store.h"

/* accept or reject as a whole-store job. */
typedef struct decide_job {
    tsd_job job;
    tsd_request *req;
    tsd_store *st;
    ts_list_cache *cache;
    const struct json_object *names; /* in tsd_request_params(req); NULL with all */
    const char *run;                 /* with all: only this run's observations */
    bool color;
    size_t width;                /* the reports' */
    struct json_object *entries; /* the reply's list */
    char **dropped;              /* observation files removed (for the index) */
    size_t ndropped;
    size_t changed; /* snapshot files written or removed */
    ts_error err;
    int rc;
} decide_job;

/* Remove file's observation, noting it for the index. Pool thread. */
static void drop(decide_job *d, const char *file)
{
    char **grown;

    if (tsd_obs_remove(&d->st->obs, file, NULL) <= 0)
        return;
    grown = realloc(d->dropped, (d->ndropped + 1) * sizeof(*grown));
    if (grown == NULL)
        return;
    d->dropped = grown;
    d->dropped[d->ndropped] = strdup(file);
    if (d->dropped[d->ndropped] != NULL)
        d->ndropped++;
}

/* The names given, or the whole queue (full: every snapshot read whole). */
static int read_queue(decide_job *d, tsd_queue *q)
{
    int rc = d->names != NULL ? tsd_queue_of_names(d->st, d->names, q, &d->err)
                              : tsd_queue_read(d->st, d->cache, d->run, true, q, &d->err);

    for (size_t i = 0; rc == 0 && i < q->bad_count; i++)
        drop(d, q->bad_files[i]);
    return rc;
}

/* What accept and reject start with: the queue (read_queue), a zeroed
 * array of q->count + 1 plans of each bytes for its items (the caller
 * frees it) and the reply's empty list. *rc: 0, or the error in d->err. */
static void *start(decide_job *d, tsd_queue *q, size_t each, int *rc)
{
    void *plans = NULL;

    *rc = read_queue(d, q);
    if (*rc == 0 && (plans = calloc(q->count + 1, each)) == NULL)
        *rc = ts_error_set(&d->err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    if (*rc == 0)
        d->entries = json_object_new_array();
    return plans;
}

/* Acknowledged only once every rename and removal is durable; only then
 * do the observations go (a crash before leaves them, superseded). Returns
 * rc, or the sync's error when rc is 0. */
static int sync_changed(decide_job *d, int rc)
{
    if (d->changed > 0) {
        int sync_rc = ts_store_sync(d->st->store, rc == 0 ? &d->err : NULL);

        if (rc == 0)
            rc = sync_rc;
    }
    return rc;
}

static struct json_object *entry_of(const decide_job *d, const tsd_queue_item *item)
{
    struct json_object *e = json_object_new_object();
    char path[PATH_MAX];

    snprintf(path, sizeof(path), "%s/%s", ts_store_root(d->st->store), item->file);
    json_object_object_add(e, "name", json_object_new_string(item->name));
    json_object_object_add(e, "file", json_object_new_string(path));
    return e;
}

/* ---- accept ----------------------------------------------------------- */

static const char *const action_names[] = {
    [TS_CHECK_ACCEPT_NOTHING] = "unchanged", [TS_CHECK_ACCEPT_RECORDING] = "approved",
    [TS_CHECK_ACCEPT_OBSERVED] = "accepted", [TS_CHECK_ACCEPT_SUPERSEDED] = "superseded",
    [TS_CHECK_ACCEPT_UNKNOWN] = "unknown",
};

/* What accepting item does (an unreadable observation counts as none). */
static ts_check_accept_action accept_action(const tsd_queue_item *item)
{
    return ts_check_accept(item->exists ? item->snapshot : NULL, item->obs != NULL, item->matches);
}

/* The drift report of the observed calls against the old baseline: its
 * per-call lines, without the JSON diff (tsctl prints it per snapshot). */
static struct json_object *change_report(decide_job *d, const tsd_queue_item *item)
{
    struct json_object *score = NULL;
    struct json_object *text;
    char *report = NULL;

    if (tsd_queue_drift(item, d->width, d->color, false, &score, &report, NULL) < 0)
        return NULL;
    text = json_object_new_string(report);
    json_object_put(score);
    free(report);
    return text;
}

/* Write item as the action says (no directory fsync: the caller syncs). */
static int accept_write(decide_job *d, tsd_queue_item *item, ts_check_accept_action action,
                        struct json_object *e)
{
    ts_snapshot *snap = item->snapshot;
    bool write = false;
    char *source;
    int rc = 0;

    if (action == TS_CHECK_ACCEPT_RECORDING)
        rc = ts_check_approve(snap, &write, &d->err);
    if (action == TS_CHECK_ACCEPT_OBSERVED) {
        json_object_object_add(e, "previous_calls", json_object_new_int64((int64_t)item->calls));
        json_object_object_add(e, "report", change_report(d, item));
        rc = ts_snapshot_set_calls(snap, item->obs->calls, &d->err);
        if (rc == 0)
            rc = ts_snapshot_approve(snap, &d->err);
        /* the source of the check that observed the calls */
        source = rc == 0 ? strdup(item->obs->source != NULL ? item->obs->source : "pytest") : NULL;
        if (rc == 0 && source == NULL)
            rc = ts_error_set(&d->err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
        if (rc == 0) {
            free(snap->source);
            snap->source = source;
            write = true;
        }
    }
    if (rc == 0 && write)
        rc = ts_store_save(d->st->store, snap, TS_STORE_NO_DIRSYNC, &d->err);
    if (rc == 0 && write)
        d->changed++;
    return rc;
}

static void accept_work(tsd_job *job)
{
    decide_job *d = (decide_job *)job;
    ts_check_accept_action *actions;
    tsd_queue q;
    int rc;

    actions = start(d, &q, sizeof(*actions), &rc);
    for (size_t i = 0; rc == 0 && i < q.count; i++) {
        tsd_queue_item *item = &q.items[i];
        struct json_object *e;

        if (item->problem != NULL) {
            actions[i] = TS_CHECK_ACCEPT_NOTHING;
            continue; /* --all: an unreadable snapshot is left alone */
        }
        actions[i] = accept_action(item);
        e = entry_of(d, item);
        json_object_object_add(e, "action", json_object_new_string(action_names[actions[i]]));
        json_object_object_add(
            e, "outcome", item->obs != NULL ? json_object_new_string(item->obs->outcome) : NULL);
        rc = accept_write(d, item, actions[i], e);
        json_object_object_add(
            e, "calls",
            json_object_new_int64(item->snapshot != NULL
                                      ? (int64_t)json_object_array_length(item->snapshot->calls)
                                      : 0));
        json_object_array_add(d->entries, e);
    }
    rc = sync_changed(d, rc);
    for (size_t i = 0; rc == 0 && i < q.count; i++) {
        if (q.items[i].obs_file &&
            (actions[i] == TS_CHECK_ACCEPT_OBSERVED || actions[i] == TS_CHECK_ACCEPT_SUPERSEDED ||
             q.items[i].obs == NULL))
            drop(d, q.items[i].file);
    }
    free(actions);
    tsd_queue_free(&q);
    d->rc = rc;
}

/* ---- reject ------------------------------------------------------------- */

static void reject_work(tsd_job *job)
{
    decide_job *d = (decide_job *)job;
    ts_check_reject_plan *plans;
    tsd_queue q;
    int rc;

    plans = start(d, &q, sizeof(*plans), &rc);
    for (size_t i = 0; rc == 0 && i < q.count; i++) {
        tsd_queue_item *item = &q.items[i];
        struct json_object *e;

        if (item->problem != NULL)
            continue;
        plans[i] = ts_check_reject(item->exists ? item->snapshot : NULL, item->obs_file);
        if (plans[i].remove_snapshot) {
            rc = ts_store_remove(d->st->store, item->name, TS_STORE_NO_DIRSYNC, &d->err);
            if (rc == -ENOENT)
                rc = 0;
            d->changed += rc == 0;
        }
        e = entry_of(d, item);
        json_object_object_add(e, "deleted", json_object_new_boolean(plans[i].remove_snapshot));
        json_object_object_add(e, "dropped", json_object_new_boolean(plans[i].drop_observation));
        json_object_array_add(d->entries, e);
    }
    rc = sync_changed(d, rc);
    for (size_t i = 0; rc == 0 && i < q.count; i++) {
        if (plans[i].drop_observation)
            drop(d, q.items[i].file);
    }
    free(plans);
    tsd_queue_free(&q);
    d->rc = rc;
}

/* ---- on the loop thread ------------------------------------------------ */

static void decide_done(tsd_job *job)
{
    decide_job *d = (decide_job *)job;
    bool accept = job->work_fn == accept_work;
    struct json_object *result = NULL;

    for (size_t i = 0; i < d->ndropped; i++) {
        tsd_obs_forget(&d->st->obs, d->dropped[i]);
        free(d->dropped[i]);
    }
    free(d->dropped);
    if (d->changed > 0 || d->ndropped > 0)
        tsd_info("store %s: %s: %zu snapshot file(s) changed, %zu observation(s) dropped",
                 d->st->root, accept ? "accept" : "reject", d->changed, d->ndropped);
    if (d->rc == 0) {
        result = json_object_new_object();
        json_object_object_add(result, accept ? "accepted" : "rejected",
                               json_object_get(d->entries));
    }
    tsd_request_finish(d->req, d->rc, result, &d->err);
    json_object_put(result);
    json_object_put(d->entries);
    free(d);
}

/* The params both take: {store, names: [str]} or {store, all: true, run?}. */
static int parse(tsd_snapshots *sn, const struct json_object *params, decide_job *d, ts_error *err)
{
    struct json_object *names;
    tsd_run *run = NULL;
    tsd_params p;
    bool all;

    tsd_params_init(&p, params, err);
    names = tsd_params_names_or_all(&p, &all);
    d->run = tsd_params_string(&p, "run", false);
    if (d->run != NULL && !all)
        tsd_params_fail(&p, ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                                         "'run' goes with 'all': true (names are taken as "
                                         "given)"));
    if (d->run != NULL && tsd_params_error(&p) == 0)
        tsd_params_fail(&p, tsd_runs_get(sn->runs, d->run, &run, err));
    d->color = tsd_params_bool(&p, "color", false);
    d->width = (size_t)tsd_params_width(&p, "width");
    d->st = tsd_stores_param(&sn->stores, &p);
    d->names = names;
    return tsd_params_error(&p);
}

static int submit(tsd_snapshots *sn, tsd_request *req, const struct json_object *params,
                  void (*work)(tsd_job *job), ts_error *err)
{
    decide_job *d = calloc(1, sizeof(*d));
    int rc;

    if (d == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    rc = parse(sn, params, d, err);
    if (rc < 0) {
        free(d);
        return rc;
    }
    d->req = req;
    d->cache = tsd_store_list_cache(&sn->stores, d->st);
    ts_error_clear(&d->err);
    d->job.loop = sn->loop;
    d->job.queue = &d->st->jobs;
    d->job.key = NULL; /* the whole store: after every earlier check, before every later one */
    d->job.on_pool = true;
    d->job.work_fn = work;
    d->job.done_fn = decide_done;
    tsd_jobs_submit(&d->job);
    return TSD_ASYNC;
}

int tsd_accept(void *state, tsd_request *req, const struct json_object *params,
               struct json_object **result, ts_error *err)
{
    tsd_snapshots *sn = state;
    (void)result;
    return submit(sn, req, params, accept_work, err);
}

int tsd_reject(void *state, tsd_request *req, const struct json_object *params,
               struct json_object **result, ts_error *err)
{
    tsd_snapshots *sn = state;
    (void)result;
    return submit(sn, req, params, reject_work, err);
}
