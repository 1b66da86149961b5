/*
 * review — methods review and diff (see snapshots_internal.h).
 */
#include "snapshots_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/ts_proto.h"

/* A method's pool job on one store: what it read and the files of
 * observations it dropped (the index is updated on the loop). */
typedef struct review_job {
    tsd_job job;
    tsd_request *req;
    tsd_store *st;
    ts_list_cache *cache;
    const char *run;  /* review: the run filter (in tsd_request_params(req)), or NULL */
    const char *name; /* diff */
    bool color, json_diff;
    size_t width;
    char key[PATH_MAX]; /* diff: the snapshot's file, the job's key */
    struct json_object *result;
    char **dropped; /* file names */
    size_t ndropped;
    ts_error err;
    int rc;
} review_job;

/* Remove the observation file (superseded or unreadable), noting it for
 * the index. Pool thread. */
static void drop(review_job *r, const char *file)
{
    char **grown;

    if (tsd_obs_remove(&r->st->obs, file, NULL) <= 0)
        return;
    grown = realloc(r->dropped, (r->ndropped + 1) * sizeof(*grown));
    if (grown == NULL)
        return;
    r->dropped = grown;
    r->dropped[r->ndropped] = strdup(file);
    if (r->dropped[r->ndropped] != NULL)
        r->ndropped++;
}

static void review_done(tsd_job *job)
{
    review_job *r = (review_job *)job;

    for (size_t i = 0; i < r->ndropped; i++) {
        tsd_info("store %s: observation %s dropped (superseded)", r->st->root, r->dropped[i]);
        tsd_obs_forget(&r->st->obs, r->dropped[i]);
        free(r->dropped[i]);
    }
    free(r->dropped);
    tsd_request_finish(r->req, r->rc, r->result, &r->err);
    json_object_put(r->result);
    free(r);
}

/* Whether item stays in the queue; a superseded observation is dropped
 * (its item then stands for a pending snapshot alone, if there is one). */
static bool settle_item(review_job *r, tsd_queue_item *item)
{
    if (item->problem != NULL)
        return true; /* listed with its problem, nothing dropped */
    if (item->obs != NULL && !item->matches) {
        drop(r, item->file);
        ts_observation_free(item->obs);
        item->obs = NULL;
    }
    return item->obs != NULL || (item->exists && !item->approved);
}

static struct json_object *observation_json(const ts_observation *o)
{
    struct json_object *obj = json_object_new_object();

    json_object_object_add(obj, "outcome", json_object_new_string(o->outcome));
    json_object_object_add(obj, "calls",
                           json_object_new_int64((int64_t)json_object_array_length(o->calls)));
    json_object_object_add(obj, "run", tsd_json_string_or_null(o->run));
    json_object_object_add(obj, "test", tsd_json_string_or_null(o->test));
    json_object_object_add(obj, "observed_at", json_object_new_string(o->observed_at));
    return obj;
}

/* The snapshot's path (root/file). */
static struct json_object *path_json(const tsd_store *st, const tsd_queue_item *item)
{
    char path[PATH_MAX];

    snprintf(path, sizeof(path), "%s/%s", ts_store_root(st->store), item->file);
    return json_object_new_string(path);
}

struct json_object *tsd_review_item_json(const tsd_store *st, const tsd_queue_item *item)
{
    struct json_object *o = json_object_new_object();
    bool approved = item->snapshot != NULL ? item->snapshot->approved : item->approved;

    json_object_object_add(o, "name", json_object_new_string(item->name));
    json_object_object_add(o, "file", path_json(st, item));
    json_object_object_add(o, "kind", json_object_new_string(approved ? "failed" : "pending"));
    json_object_object_add(o, "approved", json_object_new_boolean(approved));
    json_object_object_add(o, "calls", json_object_new_int64((int64_t)item->calls));
    json_object_object_add(o, "observation",
                           item->obs != NULL ? observation_json(item->obs) : NULL);
    if (item->problem != NULL)
        json_object_object_add(o, "problem", json_object_new_string(item->problem));
    return o;
}

/* ---- review ----------------------------------------------------------- */

static void review_work(tsd_job *job)
{
    review_job *r = (review_job *)job;
    struct json_object *items;
    tsd_queue q;

    r->rc = tsd_queue_read(r->st, r->cache, r->run, false, &q, &r->err);
    if (r->rc < 0)
        return;
    for (size_t i = 0; i < q.bad_count; i++)
        drop(r, q.bad_files[i]);
    items = json_object_new_array();
    for (size_t i = 0; i < q.count; i++) {
        if (settle_item(r, &q.items[i]))
            json_object_array_add(items, tsd_review_item_json(r->st, &q.items[i]));
    }
    tsd_queue_free(&q);
    r->result = json_object_new_object();
    json_object_object_add(r->result, "items", items);
}

/* A job of st's on the pool, for req. key NULL: the whole store. */
static review_job *new_job(tsd_snapshots *sn, tsd_request *req, tsd_store *st,
                           void (*work)(tsd_job *job))
{
    review_job *r = calloc(1, sizeof(*r));

    if (r == NULL)
        return NULL;
    r->req = req;
    r->st = st;
    ts_error_clear(&r->err);
    r->job.loop = sn->loop;
    r->job.queue = &st->jobs;
    r->job.key = NULL;
    r->job.on_pool = true;
    r->job.work_fn = work;
    r->job.done_fn = review_done;
    return r;
}

int tsd_review(void *state, tsd_request *req, const struct json_object *params,
               struct json_object **result, ts_error *err)
{
    tsd_snapshots *sn = state;
    const char *run;
    tsd_run *found = NULL;
    tsd_store *st;
    review_job *r;
    tsd_params p;

    (void)result;
    tsd_params_init(&p, params, err);
    run = tsd_params_string(&p, "run", false);
    if (run != NULL && tsd_params_error(&p) == 0)
        tsd_params_fail(&p, tsd_runs_get(sn->runs, run, &found, err));
    st = tsd_stores_param(&sn->stores, &p);
    if (tsd_params_error(&p) < 0)
        return tsd_params_error(&p);
    r = new_job(sn, req, st, review_work);
    if (r == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    r->job.heavy = true; /* it parses every snapshot of the store (server.h) */
    r->run = run;
    r->cache = tsd_store_list_cache(&sn->stores, st);
    tsd_jobs_submit(&r->job);
    return TSD_ASYNC;
}

/* ---- diff --------------------------------------------------------------- */

/* Why item has no observation to show. */
static int nothing_kept(const tsd_queue_item *item, bool superseded, ts_error *err)
{
    if (!item->exists && !item->obs_file)
        return ts_error_set(err, -ENOENT, TS_ERR_NOT_FOUND, "no snapshot named '%s'", item->name);
    if (superseded)
        return ts_error_set(err, -ENOENT, TS_ERR_NOT_FOUND,
                            "the observation kept for '%s' no longer applies: the snapshot "
                            "changed or was removed since (it was dropped)",
                            item->name);
    if (item->exists && !item->approved)
        return ts_error_set(err, -ENOENT, TS_ERR_NOT_FOUND,
                            "'%s' is pending and no check observed other calls than its "
                            "recording: nothing to compare (`tsctl snapshots show` shows it)",
                            item->name);
    return ts_error_set(err, -ENOENT, TS_ERR_NOT_FOUND,
                        "no observation is kept for '%s': its last check matched its baseline, "
                        "or what it observed was accepted or rejected",
                        item->name);
}

/* The result of diff for item (its observation matches). */
static int diff_result(review_job *r, const tsd_queue_item *item, struct json_object **out)
{
    struct json_object *score = NULL;
    struct json_object *obj;
    char *report = NULL;
    int rc = tsd_queue_drift(item, r->width, r->color, r->json_diff, &score, &report, &r->err);

    if (rc < 0)
        return rc;
    obj = tsd_review_item_json(r->st, item);
    json_object_object_add(obj, "result", score);
    json_object_object_add(obj, "report", json_object_new_string(report));
    json_object_object_add(obj, "baseline", json_object_get(item->snapshot->calls));
    json_object_object_add(obj, "observed", json_object_get(item->obs->calls));
    free(report);
    *out = obj;
    return 0;
}

static void diff_work(tsd_job *job)
{
    review_job *r = (review_job *)job;
    tsd_queue_item item;
    bool superseded = false;
    int rc = tsd_queue_item_init(&item, r->name, &r->err);

    if (rc == 0)
        rc = tsd_queue_load(r->st, &item, &r->err);
    if (rc == 0 && item.obs_file && (item.obs == NULL || !item.matches)) {
        drop(r, item.file);
        superseded = true;
    }
    if (rc == 0 && (superseded || item.obs == NULL))
        rc = nothing_kept(&item, superseded, &r->err);
    if (rc == 0)
        rc = diff_result(r, &item, &r->result);
    free(item.name);
    free(item.problem);
    ts_snapshot_free(item.snapshot);
    ts_observation_free(item.obs);
    r->rc = rc;
}

int tsd_diff(void *state, tsd_request *req, const struct json_object *params,
             struct json_object **result, ts_error *err)
{
    tsd_snapshots *sn = state;
    const char *name;
    tsd_store *st;
    review_job *r;
    tsd_params p;
    bool color, json_diff;
    int64_t width;
    int rc;

    (void)result;
    tsd_params_init(&p, params, err);
    name = tsd_params_name(&p, "name");
    color = tsd_params_bool(&p, "color", false);
    json_diff = tsd_params_bool(&p, "json_diff", true);
    width = tsd_params_width(&p, "width");
    st = tsd_stores_param(&sn->stores, &p);
    if (tsd_params_error(&p) < 0)
        return tsd_params_error(&p);
    r = new_job(sn, req, st, diff_work);
    if (r == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    rc = ts_store_path(st->store, name, r->key, sizeof(r->key), err);
    if (rc < 0) {
        free(r);
        return rc;
    }
    r->name = name;
    r->color = color;
    r->json_diff = json_diff;
    r->width = (size_t)width;
    r->job.key = r->key; /* after earlier work on this snapshot only */
    tsd_jobs_submit(&r->job);
    return TSD_ASYNC;
}
