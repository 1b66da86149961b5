/*
 * session — the server's own methods (server_internal.h): hello opens a
 * session on a connection, ping answers, status says how the daemon is
 * (its own members, then each module's), stop asks for a graceful stop,
 * acted on once its reply is sent (request.c).
 */
#include "server_internal.h"

#include <stdio.h>
#include <unistd.h>

#include "lib/base/ts_base.h"
#include "ts_version.h"

static int do_hello(void *state, tsd_request *req, const struct json_object *params,
                    struct json_object **result, ts_error *err)
{
    tsd_server *srv = state;
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

static int do_ping(void *state, tsd_request *req, const struct json_object *params,
                   struct json_object **result, ts_error *err)
{
    (void)state;
    (void)req;
    (void)params;
    (void)err;
    *result = json_object_new_object();
    return 0;
}

static int do_status(void *state, tsd_request *req, const struct json_object *params,
                     struct json_object **result, ts_error *err)
{
    tsd_server *srv = state;
    struct json_object *o = json_object_new_object();

    (void)req;
    (void)params;
    (void)err;
    json_object_object_add(o, "pid", json_object_new_int64((int64_t)getpid()));
    json_object_object_add(o, "version", json_object_new_string(TS_VERSION));
    json_object_object_add(o, "auto_started", json_object_new_boolean(srv->options->auto_started));
    json_object_object_add(o, "idle_timeout_s",
                           json_object_new_double((double)srv->options->idle_timeout_ms / 1000.0));
    json_object_object_add(o, "socket", json_object_new_string(srv->listener->path));
    json_object_object_add(
        o, "uptime_s",
        json_object_new_double((double)(tsd_server_now_ms(srv) - srv->started_ms) / 1000.0));
    json_object_object_add(o, "requests_served",
                           json_object_new_int64((int64_t)srv->requests_served));
    json_object_object_add(o, "state_dir", json_object_new_string(ts_state_path(srv->state)));
    json_object_object_add(o, "connections", json_object_new_int64((int64_t)srv->connection_count));
    json_object_object_add(o, "refused_busy",
                           json_object_new_int64((int64_t)srv->acceptor.refused_total));
    tsd_status_limits(srv, req->charged, o);
    for (size_t i = 0; i < srv->module_count; i++)
        if (srv->modules[i]->status != NULL)
            srv->modules[i]->status(srv->module_states[i], o);
    *result = o;
    return 0;
}

/* stop's answer when if_idle is set and the daemon is in use. */
#define TSD_ERR_IN_USE "in_use"

/* What the modules say keeps the daemon in use (open runs). */
static size_t modules_in_use(const tsd_server *srv)
{
    size_t n = 0;

    for (size_t i = 0; i < srv->module_count; i++)
        if (srv->modules[i]->in_use != NULL)
            n += srv->modules[i]->in_use(srv->module_states[i]);
    return n;
}

static int do_stop(void *state, tsd_request *req, const struct json_object *params,
                   struct json_object **result, ts_error *err)
{
    tsd_server *srv = state;
    size_t in_use = 0;
    tsd_params p;
    bool if_idle;

    tsd_params_init(&p, params, err);
    if_idle = tsd_params_bool(&p, "if_idle", false);
    if (tsd_params_error(&p) < 0)
        return tsd_params_error(&p);
    /* idle: no run open, no other client connected (a client of another
     * build replacing an auto-started daemon never stops one in use) */
    if (if_idle)
        in_use = modules_in_use(srv);
    if (if_idle && (in_use > 0 || srv->connection_count > 1))
        return ts_error_set(err, -EBUSY, TSD_ERR_IN_USE,
                            "not stopped: the daemon is in use (%zu run%s open, %zu other "
                            "connection%s)",
                            in_use, in_use == 1 ? "" : "s", srv->connection_count - 1,
                            srv->connection_count == 2 ? "" : "s");
    tsd_info("stop requested by pid %ld%s", (long)req->conn->pid,
             if_idle ? " (if idle: a client of another build replaces this daemon)" : "");
    srv->stop_requested = true;
    *result = json_object_new_object();
    return 0;
}

static int session_open(tsd_server *srv, void **state, ts_error *err)
{
    (void)err;
    *state = srv;
    return 0;
}

static const tsd_method session_methods[] = {
    {"hello", do_hello, NULL},
    {"ping", do_ping, NULL},
    {"status", do_status, NULL},
    {"stop", do_stop, NULL},
};

const tsd_module tsd_session_module = {
    .name = "session",
    .methods = session_methods,
    .method_count = sizeof(session_methods) / sizeof(session_methods[0]),
    .open = session_open,
};
