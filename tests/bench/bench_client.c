/*
 * bench_client — the benchmark programs' requests, on the client library.
 */
#include "bench_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "client/toolscore_client.h"

struct bench_conn {
    ts_client *client;
    struct json_object *calls; /* the last calls text parsed, reused */
    const char *calls_text;
    ts_check_args *args; /* reused by every check, as a shim would */
};

bench_conn *bench_conn_open(const char *socket, char *err, size_t errsz)
{
    ts_client_options opt;
    ts_error e;
    ts_client_options_init(&opt);
    opt.socket_path = socket;
    opt.client_name = "toolscore-bench/0.1.0";
    opt.autostart = false;
    opt.connect_timeout_ms = 2000;
    bench_conn *c = calloc(1, sizeof(*c));
    if (c)
        c->args = ts_check_args_new();
    if (!c || !c->args) {
        snprintf(err, errsz, "out of memory");
        free(c);
        return NULL;
    }
    if (ts_client_connect(&opt, &c->client, &e) < 0) {
        snprintf(err, errsz, "%s: %s", e.code, e.message);
        ts_check_args_free(c->args);
        free(c);
        return NULL;
    }
    return c;
}

void bench_conn_close(bench_conn *c)
{
    if (!c)
        return;
    ts_client_close(c->client);
    json_object_put(c->calls);
    ts_check_args_free(c->args);
    free(c);
}

/* True when outcome is one of the '|'-separated names in want. */
static int outcome_matches(const char *outcome, const char *want)
{
    size_t len = strlen(outcome);
    const char *p = want;
    while (*p) {
        const char *end = strchr(p, '|');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && strncmp(p, outcome, n) == 0)
            return 1;
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

int bench_conn_check(bench_conn *c, const char *store, const char *name, const char *calls_json,
                     const char *want_outcome, char *err, size_t errsz)
{
    if (c->calls_text != calls_json) {
        json_object_put(c->calls);
        c->calls = json_tokener_parse(calls_json);
        c->calls_text = calls_json;
        if (!c->calls) {
            snprintf(err, errsz, "the calls are not valid JSON");
            return -1;
        }
    }
    ts_check_args_set_store(c->args, store);
    ts_check_args_set_name(c->args, name);
    ts_check_args_set_actual(c->args, c->calls);
    ts_check_outcome res;
    ts_error e;
    if (ts_client_check_outcome(c->client, c->args, &res, &e) < 0) {
        snprintf(err, errsz, "check %s: %s: %s", name, e.code, e.message);
        return -1;
    }
    int rc = 0;
    if (!outcome_matches(res.outcome, want_outcome)) {
        snprintf(err, errsz, "check %s: outcome %s, expected %s", name, res.outcome, want_outcome);
        rc = -1;
    }
    ts_check_outcome_free(&res);
    return rc;
}

int bench_conn_list(bench_conn *c, const char *store, long *count, char *err, size_t errsz)
{
    struct json_object *res = NULL, *items = NULL;
    ts_error e;
    if (ts_client_list(c->client, store, false, &res, &e) < 0) {
        snprintf(err, errsz, "list: %s: %s", e.code, e.message);
        return -1;
    }
    if (!json_object_object_get_ex(res, "snapshots", &items) ||
        !json_object_is_type(items, json_type_array)) {
        json_object_put(res);
        snprintf(err, errsz, "list: the reply has no snapshots array");
        return -1;
    }
    *count = (long)json_object_array_length(items);
    json_object_put(res);
    return 0;
}

int bench_conn_status(bench_conn *c, char *err, size_t errsz)
{
    ts_error e;
    struct json_object *res = NULL;
    if (ts_client_status(c->client, &res, &e) < 0) {
        snprintf(err, errsz, "status: %s: %s", e.code, e.message);
        return -1;
    }
    json_object_put(res);
    return 0;
}
