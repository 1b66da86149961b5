/*
 * save — a snapshot written from a pool job, and the method "save": a
 * snapshot sent whole by a client, written as given (see snapshots_internal.h).
 */
#include "snapshots_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/snapshot/ts_snapshot.h"

/* Write snap; a file renamed into place whose root's fsync failed is a
 * success here, answered by tsd_save_not_durable in the job's done. */
static int save_placed(ts_store *store, const ts_snapshot *snap, tsd_job *job, ts_error *err)
{
    bool placed = false;
    int rc = ts_store_save_placed(store, snap, 0, &placed, err);

    if (rc < 0 && placed) {
        job->sync_rc = rc;
        job->sync_err = *err;
        rc = 0;
    }
    return rc;
}

int tsd_save(ts_store *store, const char *name, struct json_object *calls, const char *source,
             bool approved, bool may_exist, tsd_job *job, ts_error *err)
{
    ts_snapshot *old = NULL;
    ts_snapshot *snap = NULL;
    ts_error ignored;
    int rc = ts_snapshot_new(name, calls, source, &snap, err);

    if (rc < 0)
        return rc;
    snap->approved = approved;
    if (may_exist && ts_store_load(store, name, &old, NULL, &ignored) == 0) {
        memcpy(snap->created_at, old->created_at, sizeof(snap->created_at));
        ts_snapshot_free(old);
    }
    rc = save_placed(store, snap, job, err);
    ts_snapshot_free(snap);
    return rc;
}

int tsd_save_not_durable(const tsd_job *job, const char *name, ts_error *err)
{
    *err = job->sync_err;
    return ts_error_prefix(err, job->sync_rc,
                           "snapshot '%s' was written but is not durable (a crash may lose it)",
                           name);
}

/* ---- the method "save" ------------------------------------------------ */

/* One save between its lookup and its reply. */
typedef struct save_job {
    tsd_job job;
    tsd_request *req;
    tsd_store *st;
    const struct json_object *snapshot; /* in req->params */
    const char *name;                   /* snapshot.name, in req->params */
    char file[PATH_MAX];
    bool dropped;    /* the name's kept observation was removed */
    tsd_stores *srv; /* the registry (its socket, for the lock) */
    char *busy;      /* store_busy from the pool: the holder's socket */
    ts_error err;
    int rc;
} save_job;

/* "snapshot 'NAME'" for messages, NAME cut after 60 bytes (at a character
 * boundary) with "...". */
static void snapshot_what(const char *name, char *out, size_t outsz)
{
    size_t len = strlen(name);
    size_t cut = ts_utf8_cut(name, len, 60);

    snprintf(out, outsz, "snapshot '%.*s%s'", (int)cut, name, cut < len ? "..." : "");
}

static void save_work(tsd_job *job)
{
    save_job *j = (save_job *)job;
    ts_snapshot *snap = NULL;
    char what[96];
    int rc;

    snapshot_what(j->name, what, sizeof(what));
    rc = ts_snapshot_from_json(j->snapshot, what, &snap, &j->err);
    /* the first write of a store not on disk yet: its lock first */
    if (rc == 0)
        rc = tsd_store_lock_for_write(j->srv, j->st, &j->busy, &j->err);
    if (rc == 0)
        rc = save_placed(j->st->store, snap, &j->job, &j->err);
    /* only a check says that it made its store (check.c, note_new_store) */
    (void)ts_store_take_root_made(j->st->store);
    /* a file written: the observation kept against the old one is stale */
    if (rc == 0)
        j->dropped = tsd_obs_remove(&j->st->obs, tsd_obs_file_of(j->file), NULL) > 0;
    ts_snapshot_free(snap);
    j->rc = rc;
}

static void save_done(tsd_job *job)
{
    save_job *j = (save_job *)job;
    struct json_object *result = NULL;

    if (j->rc == 0 && job->sync_rc < 0)
        j->rc = tsd_save_not_durable(job, j->name, &j->err);
    if (j->dropped)
        tsd_obs_forget(&j->st->obs, tsd_obs_file_of(j->file));
    if (j->rc == 0) {
        result = json_object_new_object();
        json_object_object_add(result, "name", json_object_new_string(j->name));
        json_object_object_add(result, "file", json_object_new_string(j->file));
    }
    tsd_stores_note_busy(j->srv, j->busy);
    tsd_request_finish(j->req, j->rc, result, &j->err);
    json_object_put(result);
    free(j->busy);
    free(j);
}

/* snapshot.name: what the file is named after (checked as a name). */
static const char *snapshot_name(tsd_params *p, const struct json_object *snapshot)
{
    struct json_object *v = NULL;
    int rc;

    if (snapshot == NULL || tsd_params_error(p) < 0)
        return NULL;
    if (!json_object_object_get_ex(snapshot, "name", &v) ||
        !json_object_is_type(v, json_type_string)) {
        tsd_params_fail(p, ts_error_set(p->err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                                        "'snapshot' must have a string \"name\""));
        return NULL;
    }
    rc = ts_name_validate(json_object_get_string(v), (size_t)json_object_get_string_len(v), p->err);
    if (rc < 0) {
        tsd_params_fail(p, ts_error_prefix(p->err, rc, "'snapshot' \"name\""));
        return NULL;
    }
    return json_object_get_string(v);
}

int tsd_save_method(void *state, tsd_request *req, const struct json_object *params,
                    struct json_object **result, ts_error *err)
{
    tsd_snapshots *sn = state;
    save_job *j = calloc(1, sizeof(*j));
    const struct json_object *snapshot;
    const char *root;
    tsd_params p;
    int rc;

    (void)result;
    if (j == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    tsd_params_init(&p, params, err);
    root = tsd_params_string(&p, "store", true);
    snapshot = tsd_params_object(&p, "snapshot");
    if (snapshot == NULL && tsd_params_error(&p) == 0)
        tsd_params_fail(
            &p, ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "'snapshot' is required"));
    j->name = snapshot_name(&p, snapshot);
    rc = tsd_params_error(&p);
    if (rc == 0)
        rc = tsd_stores_get(&sn->stores, root, &j->st, err);
    if (rc == 0)
        rc = ts_store_path(j->st->store, j->name, j->file, sizeof(j->file), err);
    if (rc < 0) {
        free(j);
        return rc;
    }
    j->snapshot = snapshot;
    j->req = req;
    j->srv = &sn->stores;
    ts_error_clear(&j->err);
    j->job.loop = sn->loop;
    j->job.queue = &j->st->jobs;
    j->job.key = j->file;
    j->job.on_pool = true;
    j->job.work_fn = save_work;
    j->job.done_fn = save_done;
    tsd_jobs_submit(&j->job);
    return TSD_ASYNC;
}
