/*
 * ts_client_api — the typed helpers of libtoolscore-client: one function per
 * protocol method, building its params (docs/protocol.md "Methods") and
 * calling it through ts_client_call. Store paths are resolved here to the
 * absolute, symlink-resolved form the daemon keys stores by (through the
 * client's cache of resolutions, ts_client_store.c).
 */
#include "ts_client_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/base/ts_base.h"

/* Params under construction; the first failure sticks and is reported once. */
typedef struct params {
    ts_client *client;
    struct json_object *obj;
    const char *big_key; /* one large borrowed value, packed as it is */
    const struct json_object *big_value;
    int rc;
    ts_error *err;
} params;

static void params_start(params *p, ts_client *c, ts_error *err)
{
    p->client = c;
    p->big_key = NULL;
    p->big_value = NULL;
    p->obj = json_object_new_object();
    p->err = err;
    p->rc = p->obj ? 0 : ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
}

static void put(params *p, const char *key, struct json_object *v)
{
    if (p->rc < 0) {
        json_object_put(v);
        return;
    }
    if (json_object_object_add(p->obj, key, v) < 0) {
        json_object_put(v);
        p->rc = ts_error_set(p->err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
}

/* A required string. */
static void put_required(params *p, const char *key, const char *value)
{
    if (p->rc == 0 && (value == NULL || value[0] == '\0'))
        p->rc = ts_error_set(p->err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "'%s' is required", key);
    if (p->rc == 0)
        put(p, key, json_object_new_string(value));
}

/* A snapshot name: required, but the empty name is a name. */
static void put_name(params *p, const char *name)
{
    if (p->rc == 0 && name == NULL)
        p->rc = ts_error_set(p->err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "'name' is required");
    if (p->rc == 0)
        put(p, "name", json_object_new_string(name));
}

/* An optional string: sent as given, or not at all when NULL. */
static void put_optional(params *p, const char *key, const char *value)
{
    if (value != NULL)
        put(p, key, json_object_new_string(value));
}

static void put_bool(params *p, const char *key, bool value)
{
    put(p, key, json_object_new_boolean(value));
}

/* A required borrowed value (the calls of a check or record): not copied
 * into the params but packed straight from the caller's value when the
 * request is sent, so the caller's value is only read. */
static void put_borrowed(params *p, const char *key, const struct json_object *value)
{
    if (p->rc == 0 && value == NULL)
        p->rc = ts_error_set(p->err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "'%s' is required", key);
    if (p->rc == 0) {
        p->big_key = key;
        p->big_value = value;
    }
}

/* The store param: the snapshot root resolved to its canonical form (or
 * the client's remembered resolution while it provably holds). */
static void put_store(params *p, const char *store)
{
    char resolved[TS_PATHS_MAX];

    if (p->rc < 0)
        return;
    if (store == NULL || store[0] == '\0') {
        p->rc = ts_error_set(p->err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "'store' is required");
        return;
    }
    p->rc = ts_client__store_path(p->client, store, resolved, sizeof(resolved), p->err);
    if (p->rc == 0)
        put(p, "store", json_object_new_string(resolved));
}

/* Call method with the built params; always releases them. */
static int params_call(ts_client *c, params *p, const char *method, struct json_object **result)
{
    int rc = p->rc;

    if (result != NULL)
        *result = NULL;
    if (rc == 0)
        rc = ts_client__call_with(c, method, p->obj, p->big_key, p->big_value, result, p->err);
    json_object_put(p->obj);
    return rc;
}

int ts_client_ping(ts_client *c, ts_error *err)
{
    return ts_client_call(c, "ping", NULL, NULL, err);
}

void ts_record_args_init(ts_record_args *a)
{
    memset(a, 0, sizeof(*a));
}

int ts_client_record(ts_client *c, const ts_record_args *a, struct json_object **result,
                     ts_error *err)
{
    params p;

    params_start(&p, c, err);
    put_store(&p, a->store);
    put_name(&p, a->name);
    put_borrowed(&p, "calls", a->calls);
    put(&p, "source", json_object_new_string(a->source ? a->source : "trace"));
    put(&p, "format", json_object_new_string(a->format ? a->format : "auto"));
    put_bool(&p, "update", a->update);
    return params_call(c, &p, "record", result);
}

int ts_client_save(ts_client *c, const char *store, const struct json_object *snapshot,
                   struct json_object **result, ts_error *err)
{
    params p;

    params_start(&p, c, err);
    put_store(&p, store);
    if (p.rc == 0 && snapshot != NULL && !json_object_is_type(snapshot, json_type_object))
        p.rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "'snapshot' must be an object");
    put_borrowed(&p, "snapshot", snapshot);
    return params_call(c, &p, "save", result);
}

int ts_client_approve(ts_client *c, const char *store, const char *const *names, size_t count,
                      bool all, struct json_object **result, ts_error *err)
{
    params p;
    struct json_object *list;
    size_t i;

    params_start(&p, c, err);
    put_store(&p, store);
    if (all) {
        put_bool(&p, "all", true);
        return params_call(c, &p, "approve", result);
    }
    if (p.rc == 0 && (names == NULL || count == 0))
        p.rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "approve needs names or all");
    list = json_object_new_array();
    for (i = 0; p.rc == 0 && i < count; i++) {
        if (names[i] == NULL)
            p.rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "name %zu is NULL", i);
        else
            json_object_array_add(list, json_object_new_string(names[i]));
    }
    put(&p, "names", list);
    return params_call(c, &p, "approve", result);
}

int ts_client_list_page(ts_client *c, const char *store, bool pending, size_t limit,
                        const char *cursor, struct json_object **result, ts_error *err)
{
    params p;

    params_start(&p, c, err);
    put_store(&p, store);
    put_bool(&p, "pending", pending);
    if (limit > 0 && p.rc == 0)
        put(&p, "limit", json_object_new_int64((int64_t)limit));
    if (cursor != NULL && p.rc == 0)
        put(&p, "cursor", json_object_new_string(cursor));
    return params_call(c, &p, "list", result);
}

/* Move the snapshots of page to the end of those of into. */
static int append_snapshots(struct json_object *into, struct json_object *page, ts_error *err)
{
    struct json_object *dst = NULL;
    struct json_object *src = NULL;

    if (!json_object_object_get_ex(into, "snapshots", &dst) ||
        !json_object_object_get_ex(page, "snapshots", &src) ||
        !json_object_is_type(dst, json_type_array) || !json_object_is_type(src, json_type_array))
        return ts_error_set(err, -EPROTO, TS_ERR_BAD_FRAME, "a list reply has no snapshots array");
    for (size_t i = 0; i < json_object_array_length(src); i++) {
        if (json_object_array_add(dst, json_object_get(json_object_array_get_idx(src, i))) < 0)
            return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    return 0;
}

int ts_client_list(ts_client *c, const char *store, bool pending, struct json_object **result,
                   ts_error *err)
{
    struct json_object *all = NULL;
    struct json_object *next = NULL;
    char cursor[128];
    int rc = ts_client_list_page(c, store, pending, TS_CLIENT_LIST_PAGE, NULL, &all, err);

    while (rc == 0 && json_object_object_get_ex(all, "next", &next) &&
           json_object_is_type(next, json_type_string)) {
        struct json_object *page = NULL;

        snprintf(cursor, sizeof(cursor), "%s", json_object_get_string(next));
        rc = ts_client_list_page(c, store, pending, TS_CLIENT_LIST_PAGE, cursor, &page, err);
        if (rc == 0)
            rc = append_snapshots(all, page, err);
        if (rc == 0)
            json_object_object_add(all, "next",
                                   json_object_get(json_object_object_get(page, "next")));
        json_object_put(page);
    }
    if (rc < 0 || result == NULL) {
        json_object_put(all);
        all = NULL;
    }
    if (result != NULL)
        *result = all;
    return rc;
}

/* Methods taking {store, name}. */
static int store_name_call(ts_client *c, const char *method, const char *store, const char *name,
                           struct json_object **result, ts_error *err)
{
    params p;

    params_start(&p, c, err);
    put_store(&p, store);
    put_name(&p, name);
    return params_call(c, &p, method, result);
}

int ts_client_show(ts_client *c, const char *store, const char *name, struct json_object **result,
                   ts_error *err)
{
    return store_name_call(c, "show", store, name, result, err);
}

int ts_client_rm(ts_client *c, const char *store, const char *name, struct json_object **result,
                 ts_error *err)
{
    return store_name_call(c, "rm", store, name, result, err);
}

int ts_client_run_open(ts_client *c, const char *store, const char *label,
                       struct json_object **result, ts_error *err)
{
    params p;

    params_start(&p, c, err);
    put_store(&p, store);
    put_optional(&p, "label", label);
    return params_call(c, &p, "run.open", result);
}

/* Methods taking {run}. */
static int run_call(ts_client *c, const char *method, const char *run, struct json_object **result,
                    ts_error *err)
{
    params p;

    params_start(&p, c, err);
    put_required(&p, "run", run);
    return params_call(c, &p, method, result);
}

int ts_client_run_join(ts_client *c, const char *run, struct json_object **result, ts_error *err)
{
    return run_call(c, "run.join", run, result, err);
}

int ts_client_run_close(ts_client *c, const char *run, struct json_object **result, ts_error *err)
{
    return run_call(c, "run.close", run, result, err);
}

int ts_client_run_summary(ts_client *c, const char *run, struct json_object **result, ts_error *err)
{
    return run_call(c, "run.summary", run, result, err);
}

int ts_client_run_partial(ts_client *c, const char *run, const char *const *reasons, size_t n,
                          ts_error *err)
{
    struct json_object *list = json_object_new_array();
    params p;

    params_start(&p, c, err);
    put_required(&p, "run", run);
    for (size_t i = 0; list != NULL && i < n; i++) {
        if (reasons[i] == NULL ||
            json_object_array_add(list, json_object_new_string(reasons[i])) < 0) {
            json_object_put(list);
            list = NULL;
        }
    }
    if (list == NULL && p.rc == 0)
        p.rc =
            ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "reasons: each must be a string");
    put(&p, "reasons", list);
    return params_call(c, &p, "run.partial", NULL);
}

int ts_client_run_report(ts_client *c, const char *run, const char *format, char **text,
                         size_t *len, ts_error *err)
{
    ts_buf all;
    int64_t offset = 0;
    int rc = 0;

    *text = NULL;
    *len = 0;
    ts_buf_init(&all, TS_BUF_UNLIMITED);
    /* Every page, until "next" is nil; each page's offset is the next's. */
    for (;;) {
        struct json_object *page = NULL;
        struct json_object *v = NULL;
        params p;

        params_start(&p, c, err);
        put_required(&p, "run", run);
        put_required(&p, "format", format);
        if (offset > 0)
            put(&p, "offset", json_object_new_int64(offset));
        rc = params_call(c, &p, "run.report", &page);
        if (rc < 0)
            break;
        if (!json_object_object_get_ex(page, "text", &v) ||
            !json_object_is_type(v, json_type_string)) {
            json_object_put(page);
            rc = ts_error_set(err, -EPROTO, "bad_reply", "run.report: the reply has no text");
            break;
        }
        if (ts_buf_append(&all, json_object_get_string(v), (size_t)json_object_get_string_len(v)) <
            0) {
            json_object_put(page);
            rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
            break;
        }
        v = NULL;
        if (!json_object_object_get_ex(page, "next", &v) || v == NULL) {
            json_object_put(page);
            break;
        }
        if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) <= offset) {
            json_object_put(page);
            rc = ts_error_set(err, -EPROTO, "bad_reply",
                              "run.report: the reply's next is no offset after this page");
            break;
        }
        offset = json_object_get_int64(v);
        json_object_put(page);
    }
    if (rc < 0) {
        ts_buf_free(&all);
        return rc;
    }
    *text = ts_buf_detach(&all, len);
    return 0;
}

int ts_client_review(ts_client *c, const char *store, const char *run, struct json_object **result,
                     ts_error *err)
{
    params p;

    params_start(&p, c, err);
    put_store(&p, store);
    put_optional(&p, "run", run);
    return params_call(c, &p, "review", result);
}

int ts_client_orphans(ts_client *c, const char *store, const char *run, struct json_object **result,
                      ts_error *err)
{
    params p;

    params_start(&p, c, err);
    put_store(&p, store);
    put_required(&p, "run", run);
    return params_call(c, &p, "orphans", result);
}

int ts_client_status(ts_client *c, struct json_object **result, ts_error *err)
{
    return ts_client_call(c, "status", NULL, result, err);
}

int ts_client_stop(ts_client *c, ts_error *err)
{
    return ts_client_call(c, "stop", NULL, NULL, err);
}
