/*
 * dispatch — the method table and the handlers other than check/record
 * (see dispatch.h).
 */
#include "dispatch.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "jobs.h"
#include "listing.h"
#include "log.h"
#include "params.h"
#include "ts_json.h"
#include "ts_name.h"
#include "ts_snapshot.h"
#include "ts_store.h"

typedef int (*method_fn)(tsd_server *srv, tsd_request *req, const struct json_object *params,
                         struct json_object **result, ts_error *err);

/* The store named by params["store"], opened on first use. */
static int param_store(tsd_server *srv, const struct json_object *params, tsd_store **st,
                       ts_error *err)
{
    const char *root = NULL;
    int rc = tsd_param_string(params, "store", true, &root, err);

    if (rc == 0)
        rc = tsd_stores_get(&srv->stores, root, st, err);
    return rc;
}

/* ---- session ---------------------------------------------------------- */

static int do_hello(tsd_server *srv, tsd_request *req, const struct json_object *params,
                    struct json_object **result, ts_error *err)
{
    const char *client = NULL;
    int64_t pid = 0;
    int rc = ts_message_check_hello(params, err);

    if (rc == 0)
        rc = tsd_param_string(params, "client", false, &client, err);
    if (rc == 0)
        rc = tsd_param_int(params, "pid", 0, &pid, err);
    if (rc < 0)
        return rc;
    snprintf(req->conn->client, sizeof(req->conn->client), "%s",
             client != NULL ? client : "unknown");
    req->conn->hello_done = true;
    tsd_debug("connection %llu: hello from %s (pid %lld)", (unsigned long long)req->conn->id,
              req->conn->client, (long long)pid);
    *result = json_object_new_object();
    json_object_object_add(*result, "protocol", json_object_new_int(TS_PROTOCOL_VERSION));
    json_object_object_add(*result, "server", json_object_new_string("toolscored/" TS_VERSION));
    json_object_object_add(*result, "pid", json_object_new_int64((int64_t)getpid()));
    json_object_object_add(*result, "max_frame",
                           json_object_new_int64((int64_t)srv->options->max_frame));
    return 0;
}

static int do_ping(tsd_server *srv, tsd_request *req, const struct json_object *params,
                   struct json_object **result, ts_error *err)
{
    (void)srv;
    (void)req;
    (void)params;
    (void)err;
    *result = json_object_new_object();
    return 0;
}

static int do_status(tsd_server *srv, tsd_request *req, const struct json_object *params,
                     struct json_object **result, ts_error *err)
{
    struct json_object *o = json_object_new_object();

    (void)req;
    (void)params;
    (void)err;
    json_object_object_add(o, "pid", json_object_new_int64((int64_t)getpid()));
    json_object_object_add(o, "version", json_object_new_string(TS_VERSION));
    json_object_object_add(o, "socket", json_object_new_string(srv->listener->path));
    json_object_object_add(
        o, "uptime_s",
        json_object_new_double((double)(tsd_server_now_ms(srv) - srv->started_ms) / 1000.0));
    json_object_object_add(o, "stores_open", json_object_new_int64((int64_t)srv->stores.count));
    json_object_object_add(o, "requests_served",
                           json_object_new_int64((int64_t)srv->requests_served));
    json_object_object_add(o, "runs_open", json_object_new_int64((int64_t)srv->runs.open_count));
    json_object_object_add(o, "connections", json_object_new_int64((int64_t)srv->connection_count));
    json_object_object_add(o, "refused_busy",
                           json_object_new_int64((int64_t)srv->acceptor.refused_total));
    json_object_object_add(o, "store", tsd_json_string_or_null(srv->options->store_root));
    json_object_object_add(o, "stores_exposed", tsd_stores_exposed(&srv->stores));
    *result = o;
    return 0;
}

static int do_stop(tsd_server *srv, tsd_request *req, const struct json_object *params,
                   struct json_object **result, ts_error *err)
{
    (void)params;
    (void)err;
    tsd_info("stop requested by pid %ld", (long)req->conn->pid);
    srv->stop_requested = true;
    *result = json_object_new_object();
    return 0;
}

/* ---- snapshots -------------------------------------------------------- */

static int do_check(tsd_server *srv, tsd_request *req, const struct json_object *params,
                    struct json_object **result, ts_error *err)
{
    (void)req;
    return tsd_check(srv, req, params, result, err);
}

static int do_record(tsd_server *srv, tsd_request *req, const struct json_object *params,
                     struct json_object **result, ts_error *err)
{
    (void)req;
    return tsd_record(srv, req, params, result, err);
}

/* Approve every name in names (all must exist), sharing one directory sync. */
static int approve_names(tsd_store *st, ts_snapshot **snaps, size_t n, struct json_object *out,
                         ts_error *err)
{
    char file[PATH_MAX];
    bool wrote = false;
    int rc = 0;

    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!snaps[i]->approved) {
            rc = ts_snapshot_approve(snaps[i], err);
            if (rc == 0)
                rc = ts_store_save(st->store, snaps[i], TS_STORE_NO_DIRSYNC, err);
            wrote = true;
        }
        if (rc == 0)
            rc = ts_store_path(st->store, snaps[i]->name, file, sizeof(file), err);
        if (rc == 0) {
            struct json_object *e = json_object_new_object();

            json_object_object_add(e, "name", json_object_new_string(snaps[i]->name));
            json_object_object_add(
                e, "calls",
                json_object_new_int64((int64_t)json_object_array_length(snaps[i]->calls)));
            json_object_object_add(e, "created_at", json_object_new_string(snaps[i]->created_at));
            json_object_object_add(e, "updated_at", json_object_new_string(snaps[i]->updated_at));
            json_object_object_add(e, "file", json_object_new_string(file));
            json_object_array_add(out, e);
        }
    }
    /* Acknowledged only once every rename is durable. */
    if (wrote) {
        int sync_rc = ts_store_sync(st->store, rc == 0 ? err : NULL);

        if (rc == 0)
            rc = sync_rc;
    }
    return rc;
}

/* Load the snapshots to approve: names given (all must exist) or all pending. */
static int approve_targets(tsd_store *st, const struct json_object *names, bool all,
                           ts_snapshot ***out, size_t *count, ts_error *err)
{
    size_t n = all ? 0 : json_object_array_length(names);
    ts_snapshot **snaps;
    int rc = 0;

    if (all) {
        ts_store_listing listing;

        rc = ts_store_list(st->store, &listing, err);
        if (rc < 0)
            return rc;
        snaps = calloc(listing.count + 1, sizeof(*snaps));
        for (size_t i = 0; snaps != NULL && i < listing.count && rc == 0; i++) {
            if (listing.items[i]->approved)
                continue;
            snaps[n] = ts_snapshot_copy(listing.items[i]);
            if (snaps[n++] == NULL)
                rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
        }
        ts_store_listing_free(&listing);
    } else {
        snaps = calloc(n + 1, sizeof(*snaps));
        for (size_t i = 0; snaps != NULL && i < n && rc == 0; i++) {
            const char *name = json_object_get_string(json_object_array_get_idx(names, i));

            rc = ts_store_load(st->store, name, &snaps[i], NULL, err);
            if (rc == -ENOENT)
                ts_error_set(err, rc, TS_ERR_NOT_FOUND,
                             "no snapshot named '%s'; nothing was approved", name);
        }
    }
    if (snaps == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    *out = snaps;
    *count = n;
    return rc;
}

static void free_snapshots(ts_snapshot **snaps, size_t n)
{
    for (size_t i = 0; snaps != NULL && i < n; i++)
        ts_snapshot_free(snaps[i]);
    free(snaps);
}

static int check_names(const struct json_object *names, ts_error *err)
{
    if (!json_object_is_type(names, json_type_array))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "'names' must be an array of strings");
    for (size_t i = 0; i < json_object_array_length(names); i++) {
        struct json_object *v = json_object_array_get_idx(names, i);

        if (!json_object_is_type(v, json_type_string))
            return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                                "'names' item %zu must be a string", i);
        int rc =
            ts_name_validate(json_object_get_string(v), (size_t)json_object_get_string_len(v), err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* approve as a whole-store pool job: loading and the durable writes on a
 * pool thread, forgetting FAILED observations on the loop thread. */
typedef struct approve_job {
    tsd_job job;
    tsd_request *req;
    tsd_store *st;
    const struct json_object *names; /* in req->params; NULL with all */
    struct json_object *approved;    /* the reply's list */
    ts_error err;
    int rc;
} approve_job;

static void approve_work(tsd_job *job)
{
    approve_job *a = (approve_job *)job;
    ts_snapshot **snaps = NULL;
    size_t n = 0;

    a->rc = approve_targets(a->st, a->names, a->names == NULL, &snaps, &n, &a->err);
    if (a->rc == 0) {
        a->approved = json_object_new_array();
        a->rc = approve_names(a->st, snaps, n, a->approved, &a->err);
    }
    free_snapshots(snaps, n);
}

static void approve_done(tsd_job *job)
{
    approve_job *a = (approve_job *)job;
    struct json_object *result = NULL;
    size_t n = a->approved != NULL ? json_object_array_length(a->approved) : 0;

    if (a->rc == 0) {
        for (size_t i = 0; i < n; i++) {
            struct json_object *e = json_object_array_get_idx(a->approved, i);
            tsd_store_note_failure(a->st, ts_json_get_string(e, "name"), NULL);
        }
        if (n > 0)
            tsd_info("store %s: approved %zu snapshot(s)", a->st->root, n);
        result = json_object_new_object();
        json_object_object_add(result, "approved", json_object_get(a->approved));
    }
    tsd_request_finish(a->req, a->rc, result, &a->err);
    json_object_put(result);
    json_object_put(a->approved);
    free(a);
}

static int do_approve(tsd_server *srv, tsd_request *req, const struct json_object *params,
                      struct json_object **result, ts_error *err)
{
    struct json_object *names = NULL;
    tsd_store *st = NULL;
    approve_job *a;
    bool all = false;
    int rc = tsd_param_bool(params, "all", false, &all, err);

    (void)result;
    if (rc == 0 && all && json_object_object_get_ex(params, "names", &names) && names != NULL)
        rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                          "give either 'names' or 'all': true, not both");
    if (rc == 0 && !all)
        rc = tsd_param_value(params, "names", &names, err);
    if (rc == 0 && !all)
        rc = check_names(names, err);
    if (rc == 0)
        rc = param_store(srv, params, &st, err);
    if (rc < 0)
        return rc;
    a = calloc(1, sizeof(*a));
    if (a == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    a->req = req;
    a->st = st;
    a->names = all ? NULL : names;
    ts_error_clear(&a->err);
    a->job.loop = srv->loop;
    a->job.store = st;
    a->job.key = NULL; /* the whole store: after every earlier check, before every later one */
    a->job.on_pool = true;
    a->job.work_fn = approve_work;
    a->job.done_fn = approve_done;
    tsd_jobs_submit(&a->job);
    return TSD_ASYNC;
}

static int do_list(tsd_server *srv, tsd_request *req, const struct json_object *params,
                   struct json_object **result, ts_error *err)
{
    return tsd_list(srv, req, params, result, err);
}

static int do_show(tsd_server *srv, tsd_request *req, const struct json_object *params,
                   struct json_object **result, ts_error *err)
{
    const char *name = NULL;
    ts_snapshot *snap = NULL;
    tsd_store *st = NULL;
    char file[PATH_MAX];
    int rc = tsd_param_string(params, "name", true, &name, err);

    (void)req;
    if (rc == 0)
        rc = ts_name_validate(name, strlen(name), err);
    if (rc == 0)
        rc = param_store(srv, params, &st, err);
    if (rc == 0)
        rc = ts_store_path(st->store, name, file, sizeof(file), err);
    if (rc == 0)
        rc = ts_store_load(st->store, name, &snap, NULL, err);
    if (rc < 0)
        return rc;
    *result = json_object_new_object();
    json_object_object_add(*result, "snapshot", ts_snapshot_to_json(snap));
    json_object_object_add(*result, "file", json_object_new_string(file));
    ts_snapshot_free(snap);
    return 0;
}

static int do_rm(tsd_server *srv, tsd_request *req, const struct json_object *params,
                 struct json_object **result, ts_error *err)
{
    const char *name = NULL;
    tsd_store *st = NULL;
    char file[PATH_MAX];
    int rc = tsd_param_string(params, "name", true, &name, err);

    (void)req;
    if (rc == 0)
        rc = ts_name_validate(name, strlen(name), err);
    if (rc == 0)
        rc = param_store(srv, params, &st, err);
    if (rc == 0)
        rc = ts_store_path(st->store, name, file, sizeof(file), err);
    if (rc == 0)
        rc = ts_store_remove(st->store, name, 0, err);
    if (rc < 0)
        return rc;
    tsd_store_note_failure(st, name, NULL);
    *result = json_object_new_object();
    json_object_object_add(*result, "name", json_object_new_string(name));
    json_object_object_add(*result, "file", json_object_new_string(file));
    return 0;
}

/* ---- runs ------------------------------------------------------------- */

static int param_run(tsd_server *srv, const struct json_object *params, tsd_run **run,
                     ts_error *err)
{
    const char *id = NULL;
    int rc = tsd_param_string(params, "run", true, &id, err);

    if (rc == 0)
        rc = tsd_runs_get(&srv->runs, id, run, err);
    return rc;
}

static int do_run_open(tsd_server *srv, tsd_request *req, const struct json_object *params,
                       struct json_object **result, ts_error *err)
{
    const char *root = NULL, *label = NULL;
    char *key = NULL;
    tsd_run *run = NULL;
    int rc = tsd_param_string(params, "store", true, &root, err);

    (void)req;
    if (rc == 0)
        rc = tsd_param_string(params, "label", false, &label, err);
    if (rc == 0)
        rc = tsd_stores_normalize(&srv->stores, root, &key, err);
    if (rc == 0)
        rc = tsd_runs_open(&srv->runs, key, label, &run, err);
    free(key);
    if (rc < 0)
        return rc;
    tsd_info("run %s opened on %s%s%s", run->id, run->store, label ? ": " : "", label ? label : "");
    *result = json_object_new_object();
    json_object_object_add(*result, "run", json_object_new_string(run->id));
    return 0;
}

static int do_run_join(tsd_server *srv, tsd_request *req, const struct json_object *params,
                       struct json_object **result, ts_error *err)
{
    tsd_run *run = NULL;
    int rc = param_run(srv, params, &run, err);

    (void)req;
    if (rc == 0 && run->closed)
        rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "run '%s' is closed", run->id);
    if (rc < 0)
        return rc;
    *result = json_object_new_object();
    json_object_object_add(*result, "run", json_object_new_string(run->id));
    json_object_object_add(*result, "store", json_object_new_string(run->store));
    return 0;
}

static int do_run_close(tsd_server *srv, tsd_request *req, const struct json_object *params,
                        struct json_object **result, ts_error *err)
{
    tsd_run *run = NULL;
    int rc = param_run(srv, params, &run, err);

    (void)req;
    if (rc < 0)
        return rc;
    if (!run->closed)
        tsd_info("run %s closed", run->id);
    tsd_runs_close(&srv->runs, run);
    *result = tsd_run_summary(run);
    return 0;
}

static int do_run_summary(tsd_server *srv, tsd_request *req, const struct json_object *params,
                          struct json_object **result, ts_error *err)
{
    tsd_run *run = NULL;
    int rc = param_run(srv, params, &run, err);

    (void)req;
    if (rc < 0)
        return rc;
    *result = tsd_run_summary(run);
    return 0;
}

/* ---- review and orphans ----------------------------------------------- */

static struct json_object *review_item(const ts_snapshot *s, struct json_object *observed)
{
    struct json_object *o = json_object_new_object();

    json_object_object_add(o, "name", json_object_new_string(s->name));
    json_object_object_add(o, "approved", json_object_new_boolean(s->approved));
    json_object_object_add(o, "calls", json_object_get(s->calls));
    json_object_object_add(o, "baseline", s->approved ? json_object_get(s->calls) : NULL);
    json_object_object_add(o, "observed", json_object_get(observed));
    return o;
}

static int do_review(tsd_server *srv, tsd_request *req, const struct json_object *params,
                     struct json_object **result, ts_error *err)
{
    const char *run_id = NULL;
    struct json_object *failed;
    ts_store_listing listing;
    tsd_store *st = NULL;
    tsd_run *run = NULL;
    int rc = tsd_param_string(params, "run", false, &run_id, err);

    (void)req;
    if (rc == 0 && run_id != NULL)
        rc = tsd_runs_get(&srv->runs, run_id, &run, err);
    if (rc == 0)
        rc = param_store(srv, params, &st, err);
    if (rc == 0)
        rc = ts_store_list(st->store, &listing, err);
    if (rc < 0)
        return rc;
    failed = run != NULL ? run->failed : st->failed;
    struct json_object *items = json_object_new_array();
    for (size_t i = 0; i < listing.count; i++) {
        const ts_snapshot *s = listing.items[i];
        struct json_object *observed = NULL;
        bool has_failure = s->approved && json_object_object_get_ex(failed, s->name, &observed);

        if (!s->approved || has_failure)
            json_object_array_add(items, review_item(s, has_failure ? observed : NULL));
    }
    ts_store_listing_free(&listing);
    *result = json_object_new_object();
    json_object_object_add(*result, "items", items);
    return 0;
}

static int do_orphans(tsd_server *srv, tsd_request *req, const struct json_object *params,
                      struct json_object **result, ts_error *err)
{
    ts_store_listing listing;
    tsd_store *st = NULL;
    tsd_run *run = NULL;
    int rc = param_run(srv, params, &run, err);

    (void)req;
    if (rc == 0 && !run->closed)
        rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                          "run '%s' is still open; orphans are known once it is closed", run->id);
    if (rc == 0)
        rc = param_store(srv, params, &st, err);
    if (rc == 0 && strcmp(st->root, run->store) != 0)
        rc =
            ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                         "run '%s' belongs to the store %s, not %s", run->id, run->store, st->root);
    if (rc == 0)
        rc = ts_store_list(st->store, &listing, err);
    if (rc < 0)
        return rc;
    struct json_object *names = json_object_new_array();
    for (size_t i = 0; i < listing.count; i++) {
        if (!tsd_run_references(run, listing.items[i]->name))
            json_object_array_add(names, json_object_new_string(listing.items[i]->name));
    }
    ts_store_listing_free(&listing);
    *result = json_object_new_object();
    json_object_object_add(*result, "names", names);
    return 0;
}

/* ---- ordering on the store ------------------------------------------- */

/* A method run as an inline job of its store (jobs.h): after every earlier
 * conflicting request of that store, on the loop thread. */
typedef struct store_call {
    tsd_job job;
    tsd_server *srv;
    tsd_request *req;
    method_fn fn;
    char *key;
} store_call;

static void store_call_work(tsd_job *job)
{
    store_call *c = (store_call *)job;
    struct json_object *result = NULL;
    ts_error err;
    int rc;

    ts_error_clear(&err);
    rc = c->fn(c->srv, c->req, c->req->params, &result, &err);
    tsd_request_finish(c->req, rc, result, &err);
    json_object_put(result);
}

static void store_call_done(tsd_job *job)
{
    store_call *c = (store_call *)job;

    free(c->key);
    free(c);
}

/* Queue fn behind the store's earlier work on the same name (by_name, when
 * the request names one) or on the whole store. */
static int submit_store_call(tsd_server *srv, tsd_request *req, method_fn fn, bool by_name,
                             ts_error *err)
{
    const char *name = NULL;
    char file[PATH_MAX];
    tsd_store *st = NULL;
    store_call *c;
    int rc = param_store(srv, req->params, &st, err);

    if (rc < 0)
        return rc;
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    /* Keyed by the snapshot's file, as check and record are; a bad name
     * queues behind the whole store and fails in fn. */
    if (by_name && tsd_param_string(req->params, "name", false, &name, NULL) == 0 && name != NULL &&
        ts_store_path(st->store, name, file, sizeof(file), NULL) == 0) {
        c->key = strdup(file);
        if (c->key == NULL) {
            free(c);
            return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
        }
    }
    c->srv = srv;
    c->req = req;
    c->fn = fn;
    c->job.loop = srv->loop;
    c->job.store = st;
    c->job.key = c->key;
    c->job.on_pool = false;
    c->job.work_fn = store_call_work;
    c->job.done_fn = store_call_done;
    tsd_jobs_submit(&c->job);
    return TSD_ASYNC;
}

/* ---- the table -------------------------------------------------------- */

typedef enum method_order {
    ORDER_NONE = 0, /* no store files: run at once */
    ORDER_SELF,     /* the method queues its own job (check, record) */
    ORDER_NAME,     /* after earlier work on params.name */
    ORDER_STORE     /* after all earlier work on the store */
} method_order;

static const struct {
    const char *name;
    method_fn fn;
    method_order order;
} methods[] = {
    {"hello", do_hello, ORDER_NONE},         {"ping", do_ping, ORDER_NONE},
    {"check", do_check, ORDER_SELF},         {"record", do_record, ORDER_SELF},
    {"approve", do_approve, ORDER_SELF},     {"list", do_list, ORDER_SELF},
    {"show", do_show, ORDER_NAME},           {"rm", do_rm, ORDER_NAME},
    {"run.open", do_run_open, ORDER_NONE},   {"run.join", do_run_join, ORDER_NONE},
    {"run.close", do_run_close, ORDER_NONE}, {"run.summary", do_run_summary, ORDER_NONE},
    {"review", do_review, ORDER_STORE},      {"orphans", do_orphans, ORDER_STORE},
    {"status", do_status, ORDER_NONE},       {"stop", do_stop, ORDER_NONE},
};

int tsd_dispatch(tsd_server *srv, tsd_request *req, const char *method, struct json_object *params,
                 struct json_object **result, ts_error *err)
{
    *result = NULL;
    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
        if (strcmp(method, methods[i].name) != 0)
            continue;
        if (!req->conn->hello_done && methods[i].fn != do_hello)
            return ts_error_set(err, -EPROTO, TS_ERR_HELLO_REQUIRED,
                                "the first request on a connection must be hello, not %s", method);
        if (methods[i].order == ORDER_NAME || methods[i].order == ORDER_STORE)
            return submit_store_call(srv, req, methods[i].fn, methods[i].order == ORDER_NAME, err);
        return methods[i].fn(srv, req, params, result, err);
    }
    if (!req->conn->hello_done)
        return ts_error_set(err, -EPROTO, TS_ERR_HELLO_REQUIRED,
                            "the first request on a connection must be hello");
    return ts_error_set(err, -ENOSYS, TS_ERR_UNKNOWN_METHOD, "unknown method '%.200s'", method);
}
