/*
 * show — show and orphans, read, rendered and encoded on the pool (see
 * snapshots_internal.h).
 */
#include "snapshots_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/snapshot/ts_snapshot.h"
#include "lib/store/ts_store.h"
#include "proto/ts_proto.h"

/* One show or orphans between its lookup and its reply. */
typedef struct read_job {
    tsd_job job;
    tsd_request *req;
    tsd_store *st;
    char *name;                   /* show: the snapshot's name (a copy) */
    char file[PATH_MAX];          /* show: its file; the job's key */
    ts_store_listing listing;     /* orphans */
    tsd_snapshots *sn;            /* orphans */
    char run[TSD_RUN_ID_LEN + 1]; /* orphans: its run's id */
    int rc;
    ts_error err;
    char *frame; /* the reply, encoded on the pool */
    size_t frame_len;
} read_job;

static read_job *read_job_new(tsd_snapshots *sn, tsd_request *req, tsd_store *st)
{
    read_job *j = calloc(1, sizeof(*j));

    if (j == NULL)
        return NULL;
    j->req = req;
    j->st = st;
    j->sn = sn;
    j->job.loop = sn->loop;
    j->job.queue = &st->jobs;
    j->job.on_pool = true;
    ts_error_clear(&j->err);
    return j;
}

/* Make j heavy when the file at path is large (server.h): its memory
 * estimated; refused when the budget can never hold it. */
static int weigh(tsd_snapshots *sn, read_job *j, const char *path, ts_error *err)
{
    struct stat st;

    if (stat(path, &st) < 0 || (uint64_t)st.st_size <= TSD_JOBS_HEAVY_BYTES)
        return 0;
    j->job.heavy = true;
    j->job.estimate = (size_t)st.st_size * TSD_JOBS_PARSED_FACTOR;
    return tsd_server_refuse_heavy(sn->server, j->job.estimate, "reading this snapshot", err);
}

static void read_done(tsd_job *job)
{
    read_job *j = (read_job *)job;

    tsd_request_finish_encoded(j->req, j->rc, &j->err, j->frame, j->frame_len);
    free(j->name);
    free(j);
}

/* ---- show ----------------------------------------------------------- */

static void show_work(tsd_job *job)
{
    read_job *j = (read_job *)job;
    struct json_object *result = NULL;
    ts_snapshot *snap = NULL;

    j->rc = ts_store_load(j->st->store, j->name, &snap, NULL, &j->err);
    if (j->rc == 0) {
        result = json_object_new_object();
        json_object_object_add(result, "snapshot", ts_snapshot_to_json(snap));
        json_object_object_add(result, "file", json_object_new_string(j->file));
    }
    ts_snapshot_free(snap);
    tsd_request_encode(j->req, j->rc, result, NULL, NULL, &j->err, &j->frame, &j->frame_len);
    json_object_put(result);
}

int tsd_show(void *state, tsd_request *req, const struct json_object *params,
             struct json_object **result, ts_error *err)
{
    tsd_snapshots *sn = state;
    const char *name;
    tsd_store *st;
    read_job *j;
    tsd_params p;
    int rc;

    (void)result;
    tsd_params_init(&p, params, err);
    name = tsd_params_name(&p, "name");
    st = tsd_stores_param(&sn->stores, &p);
    rc = tsd_params_error(&p);
    if (rc < 0)
        return rc;
    j = read_job_new(sn, req, st);
    if (j == NULL || (j->name = strdup(name)) == NULL) {
        free(j);
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    rc = ts_store_path(st->store, name, j->file, sizeof(j->file), err);
    if (rc == 0)
        rc = weigh(sn, j, j->file, err);
    if (rc < 0) {
        free(j->name);
        free(j);
        return rc;
    }
    j->job.key = j->file;
    j->job.work_fn = show_work;
    j->job.done_fn = read_done;
    tsd_jobs_submit(&j->job);
    return TSD_ASYNC;
}

/* ---- orphans -------------------------------------------------------- */

/* The store's snapshots were read on the pool; which ones the run never
 * referenced is the run's to say, on the loop (the run may even have been
 * dropped meanwhile). */
static void orphans_done(tsd_job *job)
{
    read_job *j = (read_job *)job;
    tsd_run *run = tsd_runs_find(j->sn->runs, j->run);
    struct json_object *result = NULL;

    if (j->rc == 0 && run == NULL)
        j->rc = ts_error_set(&j->err, -ENOENT, TS_ERR_NOT_FOUND, "no run '%s'", j->run);
    if (j->rc == 0) {
        struct json_object *names = json_object_new_array();

        for (size_t i = 0; i < j->listing.count; i++)
            if (!tsd_run_references(run, j->listing.items[i]->name))
                json_object_array_add(names, json_object_new_string(j->listing.items[i]->name));
        result = json_object_new_object();
        json_object_object_add(result, "names", names);
        json_object_object_add(result, "run", tsd_run_summary(run));
        ts_store_listing_free(&j->listing);
    }
    tsd_request_finish(j->req, j->rc, result, &j->err);
    json_object_put(result);
    free(j);
}

static void orphans_work(tsd_job *job)
{
    read_job *j = (read_job *)job;

    j->rc = ts_store_list(j->st->store, &j->listing, &j->err);
}

int tsd_orphans(void *state, tsd_request *req, const struct json_object *params,
                struct json_object **result, ts_error *err)
{
    tsd_snapshots *sn = state;
    tsd_store *st = NULL;
    tsd_run *run = NULL;
    const char *id;
    read_job *j;
    tsd_params p;
    int rc;

    (void)result;
    tsd_params_init(&p, params, err);
    id = tsd_params_string(&p, "run", true);
    if (id != NULL)
        tsd_params_fail(&p, tsd_runs_get(sn->runs, id, &run, err));
    if (run != NULL && !run->closed)
        tsd_params_fail(&p, ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                                         "run '%s' is still open; orphans are known once it is "
                                         "closed",
                                         run->id));
    st = tsd_stores_param(&sn->stores, &p);
    rc = tsd_params_error(&p);
    if (rc == 0 && strcmp(st->root, run->store) != 0)
        rc =
            ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                         "run '%s' belongs to the store %s, not %s", run->id, run->store, st->root);
    if (rc < 0)
        return rc;
    j = read_job_new(sn, req, st);
    if (j == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    snprintf(j->run, sizeof(j->run), "%s", run->id);
    j->job.key = NULL; /* the whole store, after its earlier work */
    j->job.read_only = true;
    j->job.heavy = true; /* it parses every snapshot of the store */
    j->job.work_fn = orphans_work;
    j->job.done_fn = orphans_done;
    tsd_jobs_submit(&j->job);
    return TSD_ASYNC;
}
