/*
 * snapshots — the store methods' module (snapshots.h): its state, its
 * hooks (the pinned store opened at start, store locks looked at every
 * second, status's members about stores, the store_busy reply's socket),
 * its table of methods, and rm.
 */
#include "snapshots_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/snapshots/snapshots.h"
#include "lib/base/ts_base.h"
#include "lib/store/ts_store.h"

/* ---- rm --------------------------------------------------------------- */

/* rm runs as an inline job of its store (server.h, jobs): after every
 * earlier request on the same snapshot, on the loop thread. */
typedef struct rm_job {
    tsd_job job;
    tsd_snapshots *sn;
    tsd_request *req;
    char *key;
} rm_job;

/* The snapshot named by params["name"] in params["store"]: its store and
 * file. */
static int param_snapshot(tsd_snapshots *sn, const struct json_object *params, const char **name,
                          tsd_store **st, char *file, size_t filesz, ts_error *err)
{
    tsd_params p;
    int rc;

    tsd_params_init(&p, params, err);
    *name = tsd_params_name(&p, "name");
    *st = tsd_stores_param(&sn->stores, &p);
    rc = tsd_params_error(&p);
    return rc < 0 ? rc : ts_store_path((*st)->store, *name, file, filesz, err);
}

static int rm_now(tsd_snapshots *sn, const struct json_object *params, struct json_object **result,
                  ts_error *err)
{
    const char *name;
    tsd_store *st;
    char file[PATH_MAX];
    int rc = param_snapshot(sn, params, &name, &st, file, sizeof(file), err);

    if (rc == 0)
        rc = ts_store_remove(st->store, name, 0, err);
    if (rc < 0)
        return rc;
    /* its kept observation goes with it (one unlinkat) */
    if (tsd_obs_has(&st->obs, tsd_obs_file_of(file)) &&
        tsd_obs_remove(&st->obs, tsd_obs_file_of(file), NULL) >= 0)
        tsd_obs_forget(&st->obs, tsd_obs_file_of(file));
    *result = json_object_new_object();
    json_object_object_add(*result, "name", json_object_new_string(name));
    json_object_object_add(*result, "file", json_object_new_string(file));
    return 0;
}

static void rm_work(tsd_job *job)
{
    rm_job *c = (rm_job *)job;
    struct json_object *result = NULL;
    ts_error err;
    int rc;

    ts_error_clear(&err);
    rc = rm_now(c->sn, tsd_request_params(c->req), &result, &err);
    tsd_request_finish(c->req, rc, result, &err);
    json_object_put(result);
}

static void rm_done(tsd_job *job)
{
    rm_job *c = (rm_job *)job;

    free(c->key);
    free(c);
}

int tsd_rm(void *state, tsd_request *req, const struct json_object *params,
           struct json_object **result, ts_error *err)
{
    tsd_snapshots *sn = state;
    const char *name;
    char file[PATH_MAX];
    tsd_store *st;
    rm_job *c;
    ts_error ignored;
    tsd_params p;

    (void)result;
    tsd_params_init(&p, params, err);
    st = tsd_stores_param(&sn->stores, &p);
    if (tsd_params_error(&p) < 0)
        return tsd_params_error(&p);
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    /* Keyed by the snapshot's file, as check and record are; a bad name
     * queues behind the whole store and fails in rm_now. */
    tsd_params_init(&p, params, &ignored);
    name = tsd_params_string(&p, "name", false);
    if (name != NULL && ts_store_path(st->store, name, file, sizeof(file), NULL) == 0) {
        c->key = strdup(file);
        if (c->key == NULL) {
            free(c);
            return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
        }
    }
    c->sn = sn;
    c->req = req;
    c->job.loop = sn->loop;
    c->job.queue = &st->jobs;
    c->job.key = c->key;
    c->job.on_pool = false;
    c->job.work_fn = rm_work;
    c->job.done_fn = rm_done;
    tsd_jobs_submit(&c->job);
    return TSD_ASYNC;
}

/* ---- the module ------------------------------------------------------- */

/* run.open's store (daemon/runs): the store at root, opened as any request
 * opens it (pinned root, lock, store_busy), and its key. */
static int run_store(void *arg, const char *root, char **key, ts_error *err)
{
    tsd_snapshots *sn = arg;
    tsd_store *st = NULL;
    int rc = tsd_stores_get(&sn->stores, root, &st, err);

    return rc < 0 ? rc : tsd_stores_normalize(&sn->stores, root, key, err);
}

static int gate_take(void *arg, size_t bytes, const char *path, ts_error *err)
{
    char what[PATH_MAX + 16];

    snprintf(what, sizeof(what), "snapshot file %s", path);
    return tsd_server_memory_take(arg, bytes, TSD_MEMORY_WAIT_POOL_MS, what, err);
}

static void gate_give(void *arg, size_t bytes)
{
    tsd_server_memory_give(arg, bytes);
}

static int snapshots_open(tsd_server *srv, void **state, ts_error *err)
{
    tsd_snapshots *sn = calloc(1, sizeof(*sn));

    if (sn == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    sn->runs = tsd_server_module_state(srv, &tsd_runs_module);
    if (sn->runs == NULL) {
        free(sn);
        return ts_error_set(err, -EINVAL, TS_ERR_INTERNAL,
                            "the snapshots module needs the runs module, served before it");
    }
    sn->server = srv;
    sn->loop = tsd_server_loop(srv);
    sn->stores.pinned = tsd_server_options(srv)->store_root;
    /* what the store's files take parsed is priced and taken from the
     * memory budget; the caches keep to an eighth of it */
    sn->stores.gate.take = gate_take;
    sn->stores.gate.give = gate_give;
    sn->stores.gate.arg = srv;
    sn->stores.caches_max = (size_t)(tsd_server_options(srv)->memory_budget / 8);
    sn->stores.snap_budget.max =
        sn->stores.caches_max < TSD_SNAPCACHE_BYTES ? sn->stores.caches_max : TSD_SNAPCACHE_BYTES;
    sn->stores.state = tsd_server_state(srv);
    sn->stores.socket = tsd_server_socket(srv);
    tsd_runs_set_store(sn->runs, run_store, sn);
    *state = sn;
    return 0;
}

/* A pinned store is opened at start, so a crash's stray temp files are
 * cleaned before the first request (other stores: on first use). */
static void snapshots_started(void *state)
{
    tsd_snapshots *sn = state;
    const char *root = sn->stores.pinned;
    tsd_store *st = NULL;
    char *busy = NULL;
    ts_error err;

    if (root == NULL)
        return;
    if (tsd_stores_get(&sn->stores, root, &st, &err) < 0 ||
        tsd_store_lock_for_write(&sn->stores, st, &busy, &err) < 0)
        tsd_warn("store %s: %s", root, err.message);
    free(busy);
}

static void snapshots_tick(void *state)
{
    tsd_snapshots *sn = state;

    tsd_stores_check_locks(&sn->stores);
}

static void snapshots_status(void *state, struct json_object *o)
{
    tsd_snapshots *sn = state;

    json_object_object_add(o, "stores_open", json_object_new_int64((int64_t)sn->stores.count));
    json_object_object_add(o, "store", tsd_json_string_or_null(sn->stores.pinned));
    json_object_object_add(o, "stores_exposed", tsd_stores_exposed(&sn->stores));
}

static const char *snapshots_busy_socket(void *state)
{
    tsd_snapshots *sn = state;

    return tsd_stores_busy_socket(&sn->stores);
}

static void snapshots_close(void *state)
{
    tsd_snapshots *sn = state;

    tsd_listings_free(sn);
    tsd_stores_close_all(&sn->stores);
    free(sn);
}

/* Each method queues its own job on its store (check, record, approve,
 * list, show, rm, the review methods): the core runs none of them itself. */
static const tsd_method snapshots_methods[] = {
    /* the observed calls, compared with the baseline's bytes first */
    {"check", tsd_check, "actual"}, {"record", tsd_record, NULL}, {"save", tsd_save_method, NULL},
    {"approve", tsd_approve, NULL}, {"list", tsd_list, NULL},     {"show", tsd_show, NULL},
    {"rm", tsd_rm, NULL},           {"review", tsd_review, NULL}, {"diff", tsd_diff, NULL},
    {"accept", tsd_accept, NULL},   {"reject", tsd_reject, NULL}, {"orphans", tsd_orphans, NULL},
};

const tsd_module tsd_snapshots_module = {
    .name = "snapshots",
    .methods = snapshots_methods,
    .method_count = sizeof(snapshots_methods) / sizeof(snapshots_methods[0]),
    .open = snapshots_open,
    .started = snapshots_started,
    .tick = snapshots_tick,
    .status = snapshots_status,
    .busy_socket = snapshots_busy_socket,
    .close = snapshots_close,
};
