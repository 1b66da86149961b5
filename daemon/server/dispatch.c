/*
 * dispatch — the method table: the methods of the served modules, looked
 * up by name, and what a method may ask of the server (see
 * server_internal.h and server.h).
 */
#include "server_internal.h"

#include <string.h>

#include "lib/base/ts_base.h"

#define TSD_METHODS_MAX 64 /* methods served, every module's together */

/* A method served, and the index of its module in the server's table. */
typedef struct method_entry {
    const tsd_method *method;
    size_t module;
} method_entry;

/* The table of the running server (one per process: server_internal.h). */
static method_entry table[TSD_METHODS_MAX];
static size_t table_count;

static const method_entry *lookup(const char *method)
{
    for (size_t i = 0; i < table_count; i++)
        if (strcmp(method, table[i].method->name) == 0)
            return &table[i];
    return NULL;
}

int tsd_dispatch_init(tsd_server *srv, ts_error *err)
{
    table_count = 0;
    for (size_t m = 0; m < srv->module_count; m++) {
        const tsd_module *module = srv->modules[m];

        for (size_t i = 0; i < module->method_count; i++) {
            const tsd_method *method = &module->methods[i];

            if (lookup(method->name) != NULL)
                return ts_error_set(err, -EEXIST, TS_ERR_INTERNAL,
                                    "method %s of %s is served twice", method->name, module->name);
            if (table_count == TSD_METHODS_MAX)
                return ts_error_set(err, -E2BIG, TS_ERR_INTERNAL, "too many methods (at most %d)",
                                    TSD_METHODS_MAX);
            table[table_count].method = method;
            table[table_count++].module = m;
        }
    }
    return 0;
}

void tsd_dispatch_done(tsd_server *srv)
{
    (void)srv;
    table_count = 0;
}

const char *tsd_dispatch_raw_member(const char *method)
{
    const method_entry *e = lookup(method);

    return e != NULL ? e->method->raw_member : NULL;
}

int tsd_dispatch(tsd_server *srv, tsd_request *req, const char *method, struct json_object *params,
                 struct json_object **result, ts_error *err)
{
    const method_entry *e = lookup(method);

    *result = NULL;
    if (e == NULL) {
        if (!req->conn->hello_done)
            return ts_error_set(err, -EPROTO, TS_ERR_HELLO_REQUIRED,
                                "the first request on a connection must be hello");
        return ts_error_set(err, -ENOSYS, TS_ERR_UNKNOWN_METHOD, "unknown method '%.200s'", method);
    }
    if (!req->conn->hello_done && strcmp(e->method->name, "hello") != 0)
        return ts_error_set(err, -EPROTO, TS_ERR_HELLO_REQUIRED,
                            "the first request on a connection must be hello, not %s", method);
    return e->method->fn(srv->module_states[e->module], req, params, result, err);
}

const char *tsd_dispatch_busy_socket(const tsd_server *srv)
{
    for (size_t i = 0; i < srv->module_count; i++) {
        const char *socket = srv->modules[i]->busy_socket != NULL
                                 ? srv->modules[i]->busy_socket(srv->module_states[i])
                                 : NULL;

        if (socket != NULL)
            return socket;
    }
    return NULL;
}

/* ---- what a method may ask of the server (server.h) ------------------- */

void *tsd_server_module_state(const tsd_server *srv, const tsd_module *module)
{
    for (size_t i = 0; i < srv->module_count; i++)
        if (srv->modules[i] == module)
            return srv->module_states[i];
    return NULL;
}

uv_loop_t *tsd_server_loop(const tsd_server *srv)
{
    return srv->loop;
}

uint64_t tsd_server_now_ms(const tsd_server *srv)
{
    return uv_now(srv->loop);
}

const tsd_options *tsd_server_options(const tsd_server *srv)
{
    return srv->options;
}

const ts_state *tsd_server_state(const tsd_server *srv)
{
    return srv->state;
}

const char *tsd_server_socket(const tsd_server *srv)
{
    return srv->listener->path;
}

int tsd_server_refuse_heavy(const tsd_server *srv, size_t estimate, const char *what, ts_error *err)
{
    return tsd_budget_refuse(&srv->budget, estimate, what, err);
}
