/*
 * record — a trace imported as a snapshot (see snapshots_internal.h).
 */
#include "snapshots_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/check/ts_check.h"
#include "lib/snapshot/ts_snapshot.h"
#include "lib/store/ts_store.h"

/* A trace import: parsed on the loop thread, written on a pool thread. */
typedef struct record_job {
    tsd_job job;
    tsd_request *req;
    tsd_store *st;
    const char *name, *source, *format; /* in tsd_request_params(req) */
    struct json_object *raw;
    bool update;
    ts_rules *rules; /* the project's, for its redact patterns (NULL: none) */
    char file[PATH_MAX];
    ts_check_outcome outcome;
    bool written; /* the file was written (an update of equal calls writes nothing) */
    bool dropped; /* the name's kept observation was removed */
    ts_error err;
    int rc;
    tsd_stores *srv_stores; /* the registry (its socket, for the lock) */
    char *busy;             /* store_busy from the pool: the holder's socket */
} record_job;

/* Whether name's file is there and, with update, its snapshot (NULL when
 * unreadable: the update overwrites it). */
static int record_existing(record_job *c, bool *exists, ts_snapshot **existing)
{
    ts_file_stamp stamp;
    ts_error ignored;
    int rc;

    *existing = NULL;
    if (!c->update) {
        rc = ts_store_stat(c->st->store, c->name, &stamp, &c->err);
        *exists = rc == 0 && stamp.exists;
        return rc;
    }
    rc = ts_store_load(c->st->store, c->name, existing, NULL, &ignored);
    *exists = rc != -ENOENT;
    return 0;
}

static void record_work(tsd_job *job)
{
    record_job *c = (record_job *)job;
    struct json_object *calls = NULL;
    ts_snapshot *existing = NULL;
    ts_check_decision d;
    bool exists = false;
    int rc = tsd_observed_calls(c->raw, c->format, TS_EXTRACT_FILE, &calls, &c->err);

    if (rc == 0 && ts_rules_has_redact(c->rules)) { /* before anything is written */
        struct json_object *redacted = NULL;
        rc = ts_rules_redact(c->rules, calls, &redacted, NULL, &c->err);
        json_object_put(calls);
        calls = redacted;
    }
    if (rc == 0)
        rc = record_existing(c, &exists, &existing);
    /* the first write of a store not on disk yet: its lock first */
    if (rc == 0)
        rc = tsd_store_lock_for_write(c->srv_stores, c->st, &c->busy, &c->err);
    if (rc == 0)
        rc = ts_check_record(c->name, c->file, exists, existing, calls, c->update, &d, &c->err);
    if (rc == 0 && d.write)
        rc = tsd_save(c->st->store, c->name, calls, c->source, d.approved, d.may_exist, &c->job,
                      &c->err);
    if (rc == 0)
        c->outcome = d.outcome;
    c->written = rc == 0 && d.write;
    /* only a check says that it made its store (check.c, note_new_store) */
    (void)ts_store_take_root_made(c->st->store);
    /* A file written (or one whose write failed after its rename): the
     * name's kept observation no longer applies. */
    if ((rc == 0 && d.keep == TS_CHECK_KEEP_DROP) || c->job.sync_rc < 0)
        c->dropped = tsd_obs_remove(&c->st->obs, tsd_obs_file_of(c->file), NULL) > 0;
    ts_snapshot_free(existing);
    json_object_put(calls);
    c->rc = rc;
}

static void record_done(tsd_job *job)
{
    record_job *c = (record_job *)job;
    struct json_object *result = NULL;

    if (c->rc == 0 && job->sync_rc < 0)
        c->rc = tsd_save_not_durable(job, c->name, &c->err);
    if (c->dropped)
        tsd_obs_forget(&c->st->obs, tsd_obs_file_of(c->file));
    if (c->rc == 0) {
        result = json_object_new_object();
        json_object_object_add(result, "outcome",
                               json_object_new_string(ts_check_outcome_name(c->outcome)));
        json_object_object_add(result, "name", json_object_new_string(c->name));
        json_object_object_add(result, "file", json_object_new_string(c->file));
        json_object_object_add(result, "written", json_object_new_boolean(c->written));
    }
    tsd_stores_note_busy(c->srv_stores, c->busy);
    tsd_request_finish(c->req, c->rc, result, &c->err);
    json_object_put(result);
    free(c->busy);
    ts_rules_unref(c->rules);
    free(c);
}

int tsd_record(void *state, tsd_request *req, const struct json_object *params,
               struct json_object **result, ts_error *err)
{
    tsd_snapshots *sn = state;
    record_job *c = calloc(1, sizeof(*c));
    const char *root;
    tsd_params p;
    int rc;

    (void)result;
    if (c == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    tsd_params_init(&p, params, err);
    root = tsd_params_string(&p, "store", true);
    c->name = tsd_params_name(&p, "name");
    c->raw = tsd_params_value(&p, "calls");
    c->source = tsd_params_source(&p, "trace"); /* an imported snapshot's */
    c->update = tsd_params_bool(&p, "update", false);
    c->format = tsd_params_format(&p, "format");
    rc = tsd_params_error(&p);
    if (rc == 0)
        rc = tsd_stores_get(&sn->stores, root, &c->st, err);
    if (rc == 0)
        rc = ts_store_path(c->st->store, c->name, c->file, sizeof(c->file), err);
    if (rc == 0)
        rc = tsd_rulescache_get(&c->st->rules, &c->rules, err);
    if (rc < 0) {
        ts_rules_unref(c->rules);
        free(c);
        return rc;
    }
    c->req = req;
    c->srv_stores = &sn->stores;
    ts_error_clear(&c->err);
    c->job.loop = sn->loop;
    c->job.queue = &c->st->jobs;
    c->job.key = c->file;
    c->job.on_pool = true;
    c->job.work_fn = record_work;
    c->job.done_fn = record_done;
    tsd_jobs_submit(&c->job);
    return TSD_ASYNC;
}
