/*
 * dispatch — the method table and the handlers of the small methods (see
 * dispatch.h).
 */
#include "dispatch.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accept.h"
#include "approve.h"
#include "check.h"
#include "jobs.h"
#include "listing.h"
#include "log.h"
#include "params.h"
#include "observations.h"
#include "record.h"
#include "request.h"
#include "review.h"
#include "show.h"
#include "run_methods.h"
#include "ts_snapshot.h"
#include "ts_store.h"
#include "ts_version.h"

typedef int (*method_fn)(tsd_server *srv, tsd_request *req, const struct json_object *params,
                         struct json_object **result, ts_error *err);

/* ---- session ---------------------------------------------------------- */

static int do_hello(tsd_server *srv, tsd_request *req, const struct json_object *params,
                    struct json_object **result, ts_error *err)
{
    const char *client;
    int64_t pid;
    tsd_params p;
    int rc = ts_message_check_hello(params, err);

    if (rc < 0)
        return rc;
    tsd_params_init(&p, params, err);
    client = tsd_params_string(&p, "client", false);
    pid = tsd_params_int(&p, "pid", 0);
    if (tsd_params_error(&p) < 0)
        return tsd_params_error(&p);
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
    json_object_object_add(*result, "version", json_object_new_string(TS_VERSION));
    json_object_object_add(*result, "auto_started",
                           json_object_new_boolean(srv->options->auto_started));
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
    json_object_object_add(o, "auto_started", json_object_new_boolean(srv->options->auto_started));
    json_object_object_add(o, "socket", json_object_new_string(srv->listener->path));
    json_object_object_add(
        o, "uptime_s",
        json_object_new_double((double)(tsd_server_now_ms(srv) - srv->started_ms) / 1000.0));
    json_object_object_add(o, "stores_open", json_object_new_int64((int64_t)srv->stores.count));
    json_object_object_add(o, "requests_served",
                           json_object_new_int64((int64_t)srv->requests_served));
    json_object_object_add(o, "runs_open", json_object_new_int64((int64_t)srv->runs.open_count));
    json_object_object_add(o, "runs_kept",
                           json_object_new_int64((int64_t)tsd_runs_kept(&srv->runs)));
    json_object_object_add(o, "runs_memory",
                           json_object_new_int64((int64_t)tsd_runs_memory(&srv->runs)));
    json_object_object_add(o, "state_dir", json_object_new_string(ts_state_path(srv->state)));
    json_object_object_add(o, "connections", json_object_new_int64((int64_t)srv->connection_count));
    json_object_object_add(o, "refused_busy",
                           json_object_new_int64((int64_t)srv->acceptor.refused_total));
    json_object_object_add(o, "store", tsd_json_string_or_null(srv->options->store_root));
    json_object_object_add(o, "stores_exposed", tsd_stores_exposed(&srv->stores));
    tsd_status_limits(srv, o);
    *result = o;
    return 0;
}

/* stop's answer when if_idle is set and the daemon is in use. */
#define TSD_ERR_IN_USE "in_use"

static int do_stop(tsd_server *srv, tsd_request *req, const struct json_object *params,
                   struct json_object **result, ts_error *err)
{
    tsd_params p;
    bool if_idle;

    tsd_params_init(&p, params, err);
    if_idle = tsd_params_bool(&p, "if_idle", false);
    if (tsd_params_error(&p) < 0)
        return tsd_params_error(&p);
    /* idle: no run open, no other client connected (a client of another
     * build replacing an auto-started daemon never stops one in use) */
    if (if_idle && (srv->runs.open_count > 0 || srv->connection_count > 1))
        return ts_error_set(err, -EBUSY, TSD_ERR_IN_USE,
                            "not stopped: the daemon is in use (%zu run%s open, %zu other "
                            "connection%s)",
                            srv->runs.open_count, srv->runs.open_count == 1 ? "" : "s",
                            srv->connection_count - 1, srv->connection_count == 2 ? "" : "s");
    tsd_info("stop requested by pid %ld%s", (long)req->conn->pid,
             if_idle ? " (if idle: a client of another build replaces this daemon)" : "");
    srv->stop_requested = true;
    *result = json_object_new_object();
    return 0;
}

/* ---- snapshots -------------------------------------------------------- */

/* The snapshot named by params["name"] in params["store"]: its store and
 * file. */
static int param_snapshot(tsd_server *srv, const struct json_object *params, const char **name,
                          tsd_store **st, char *file, size_t filesz, ts_error *err)
{
    tsd_params p;
    int rc;

    tsd_params_init(&p, params, err);
    *name = tsd_params_name(&p, "name");
    *st = tsd_stores_param(&srv->stores, &p);
    rc = tsd_params_error(&p);
    return rc < 0 ? rc : ts_store_path((*st)->store, *name, file, filesz, err);
}

static int do_rm(tsd_server *srv, tsd_request *req, const struct json_object *params,
                 struct json_object **result, ts_error *err)
{
    const char *name;
    tsd_store *st;
    char file[PATH_MAX];
    int rc = param_snapshot(srv, params, &name, &st, file, sizeof(file), err);

    (void)req;
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

/* ---- runs ------------------------------------------------------------- */

/* The run named by params["run"] (required). */
static tsd_run *param_run(tsd_server *srv, tsd_params *p)
{
    const char *id = tsd_params_string(p, "run", true);
    tsd_run *run = NULL;

    if (id != NULL)
        tsd_params_fail(p, tsd_runs_get(&srv->runs, id, &run, p->err));
    return tsd_params_error(p) < 0 ? NULL : run;
}

/* A method on one run: params["run"] and nothing else. */
static int param_run_only(tsd_server *srv, const struct json_object *params, tsd_run **run,
                          ts_error *err)
{
    tsd_params p;

    tsd_params_init(&p, params, err);
    *run = param_run(srv, &p);
    return tsd_params_error(&p);
}

static int do_run_open(tsd_server *srv, tsd_request *req, const struct json_object *params,
                       struct json_object **result, ts_error *err)
{
    const char *root, *label;
    char *key = NULL;
    tsd_store *st = NULL;
    tsd_run *run = NULL;
    tsd_params p;
    int rc;

    (void)req;
    tsd_params_init(&p, params, err);
    root = tsd_params_string(&p, "store", true);
    label = tsd_params_string(&p, "label", false);
    rc = tsd_params_error(&p);
    /* a store another daemon holds: the run is opened there (store_busy) */
    if (rc == 0)
        rc = tsd_stores_get(&srv->stores, root, &st, err);
    if (rc == 0)
        rc = tsd_stores_normalize(&srv->stores, root, &key, err);
    if (rc == 0)
        rc = tsd_runs_open(&srv->runs, key, label, tsd_runs_now_ms(), &run, err);
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
    int rc = param_run_only(srv, params, &run, err);

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
    int rc = param_run_only(srv, params, &run, err);

    if (rc < 0)
        return rc;
    if (!run->closed)
        tsd_info("run %s closed", run->id);
    tsd_runs_close(&srv->runs, run, tsd_runs_now_ms());
    return tsd_run_summary_answer(srv, req, run, result, err);
}

static int do_run_summary(tsd_server *srv, tsd_request *req, const struct json_object *params,
                          struct json_object **result, ts_error *err)
{
    tsd_run *run = NULL;
    int rc = param_run_only(srv, params, &run, err);

    if (rc < 0)
        return rc;
    return tsd_run_summary_answer(srv, req, run, result, err);
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
    const char *name;
    char file[PATH_MAX];
    tsd_store *st;
    store_call *c;
    ts_error ignored;
    tsd_params p;

    tsd_params_init(&p, req->params, err);
    st = tsd_stores_param(&srv->stores, &p);
    if (tsd_params_error(&p) < 0)
        return tsd_params_error(&p);
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    /* Keyed by the snapshot's file, as check and record are; a bad name
     * queues behind the whole store and fails in fn. */
    tsd_params_init(&p, req->params, &ignored);
    name = by_name ? tsd_params_string(&p, "name", false) : NULL;
    if (name != NULL && ts_store_path(st->store, name, file, sizeof(file), NULL) == 0) {
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
    ORDER_SELF,     /* the method queues its own job (check, record, approve, list, show.c,
                     * the review methods) */
    ORDER_NAME,     /* after earlier work on params.name */
    ORDER_STORE     /* after all earlier work on the store */
} method_order;

/* name, handler, ordering, and the member of its params the decoder leaves
 * as msgpack bytes for the handler (tsd_request_raw), or NULL. */
static const struct {
    const char *name;
    method_fn fn;
    method_order order;
    const char *raw_member;
} methods[] = {
    {"hello", do_hello, ORDER_NONE, NULL},
    {"ping", do_ping, ORDER_NONE, NULL},
    /* the observed calls, compared with the baseline's bytes first */
    {"check", tsd_check, ORDER_SELF, "actual"},
    {"record", tsd_record, ORDER_SELF, NULL},
    {"approve", tsd_approve, ORDER_SELF, NULL},
    {"list", tsd_list, ORDER_SELF, NULL},
    {"show", tsd_show, ORDER_SELF, NULL},
    {"rm", do_rm, ORDER_NAME, NULL},
    {"run.open", do_run_open, ORDER_NONE, NULL},
    {"run.join", do_run_join, ORDER_NONE, NULL},
    {"run.close", do_run_close, ORDER_NONE, NULL},
    {"run.summary", do_run_summary, ORDER_NONE, NULL},
    {"run.partial", tsd_run_partial_method, ORDER_NONE, NULL},
    {"run.report", tsd_run_report_method, ORDER_NONE, NULL},
    {"review", tsd_review, ORDER_SELF, NULL},
    {"diff", tsd_diff, ORDER_SELF, NULL},
    {"accept", tsd_accept, ORDER_SELF, NULL},
    {"reject", tsd_reject, ORDER_SELF, NULL},
    {"orphans", tsd_orphans, ORDER_SELF, NULL},
    {"status", do_status, ORDER_NONE, NULL},
    {"stop", do_stop, ORDER_NONE, NULL},
};

#define METHOD_COUNT (sizeof(methods) / sizeof(methods[0]))

static size_t method_index(const char *method)
{
    size_t i = 0;

    while (i < METHOD_COUNT && strcmp(method, methods[i].name) != 0)
        i++;
    return i;
}

const char *tsd_dispatch_raw_member(const char *method)
{
    size_t i = method_index(method);

    return i < METHOD_COUNT ? methods[i].raw_member : NULL;
}

int tsd_dispatch(tsd_server *srv, tsd_request *req, const char *method, struct json_object *params,
                 struct json_object **result, ts_error *err)
{
    size_t i = method_index(method);

    *result = NULL;
    if (i == METHOD_COUNT) {
        if (!req->conn->hello_done)
            return ts_error_set(err, -EPROTO, TS_ERR_HELLO_REQUIRED,
                                "the first request on a connection must be hello");
        return ts_error_set(err, -ENOSYS, TS_ERR_UNKNOWN_METHOD, "unknown method '%.200s'", method);
    }
    if (!req->conn->hello_done && methods[i].fn != do_hello)
        return ts_error_set(err, -EPROTO, TS_ERR_HELLO_REQUIRED,
                            "the first request on a connection must be hello, not %s", method);
    if (methods[i].order == ORDER_NAME || methods[i].order == ORDER_STORE)
        return submit_store_call(srv, req, methods[i].fn, methods[i].order == ORDER_NAME, err);
    return methods[i].fn(srv, req, params, result, err);
}
