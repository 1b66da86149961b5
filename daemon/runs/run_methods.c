/*
 * run_methods — the run methods and the runs module (see runs.h and
 * runs_internal.h).
 */
#include "runs_internal.h"

#include <stdlib.h>
#include <string.h>

#include "lib/base/ts_base.h"

static int summary_answer(tsd_runs *runs, tsd_request *req, tsd_run *run,
                          struct json_object **result, ts_error *err);

/* The run named by params["run"] (required). */
static tsd_run *param_run(tsd_runs *runs, tsd_params *p)
{
    const char *id = tsd_params_string(p, "run", true);
    tsd_run *run = NULL;

    if (id != NULL)
        tsd_params_fail(p, tsd_runs_get(runs, id, &run, p->err));
    return tsd_params_error(p) < 0 ? NULL : run;
}

static int run_partial(void *state, tsd_request *req, const struct json_object *params,
                       struct json_object **result, ts_error *err)
{
    tsd_runs *runs = state;
    const char *reasons[TS_RUNREPORT_MAX_REASONS];
    struct json_object *list = NULL;
    tsd_run *run;
    size_t n = 0;
    tsd_params p;
    int rc;

    (void)req;
    tsd_params_init(&p, params, err);
    run = param_run(runs, &p);
    rc = tsd_params_error(&p);
    if (rc == 0 && (!json_object_object_get_ex(params, "reasons", &list) ||
                    !json_object_is_type(list, json_type_array)))
        rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                          "'reasons' must be an array of strings (why not every test ran)");
    if (rc == 0 && json_object_array_length(list) > TS_RUNREPORT_MAX_REASONS)
        rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "'reasons': at most %d reasons",
                          TS_RUNREPORT_MAX_REASONS);
    for (size_t i = 0; rc == 0 && i < json_object_array_length(list); i++) {
        struct json_object *r = json_object_array_get_idx(list, i);

        if (!json_object_is_type(r, json_type_string) || json_object_get_string_len(r) == 0)
            rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                              "'reasons' must hold non-empty strings");
        else
            reasons[n++] = json_object_get_string(r);
    }
    if (rc == 0 && n == 0)
        rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                          "'reasons' must name at least one reason");
    if (rc == 0)
        rc = tsd_run_mark_partial(runs, run, reasons, n, err);
    if (rc < 0)
        return rc;
    tsd_info("run %s marked partial: %s%s", run->id, reasons[0], n > 1 ? ", ..." : "");
    *result = tsd_run_summary(run);
    return 0;
}

/* ---- run.report --------------------------------------------------------- */

typedef struct report_job {
    uv_work_t work;
    tsd_request *req;
    const ts_state *state;
    tsd_run_meta meta;
    char format[8];
    int64_t offset;
    int rc;
    ts_error err;
    ts_buf text;
} report_job;

/* The end of the page that starts at offset: at most TSD_RUN_REPORT_PAGE
 * bytes, at a UTF-8 character boundary. */
static size_t page_end(const char *text, size_t len, size_t offset)
{
    return offset + ts_utf8_cut(text + offset, len - offset, TSD_RUN_REPORT_PAGE);
}

static void report_work(uv_work_t *w)
{
    report_job *j = w->data;

    ts_error_clear(&j->err);
    j->rc = tsd_run_render(j->state, &j->meta, j->format, &j->text, &j->err);
}

static void report_done(uv_work_t *w, int status)
{
    report_job *j = w->data;
    struct json_object *result = NULL;
    const char *text = j->text.data ? j->text.data : "";
    size_t len = j->text.len;

    if (status < 0 && j->rc == 0)
        j->rc = ts_error_set(&j->err, -ECANCELED, TS_ERR_INTERNAL, "the report was cancelled");
    if (j->rc == 0 &&
        ((size_t)j->offset > len ||
         ((size_t)j->offset < len && ((unsigned char)text[j->offset] & 0xC0) == 0x80)))
        j->rc = ts_error_set(&j->err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                             "'offset' %lld is not the start of a page of this report (%zu bytes)",
                             (long long)j->offset, len);
    if (j->rc == 0) {
        size_t end = page_end(text, len, (size_t)j->offset);

        result = json_object_new_object();
        json_object_object_add(result, "format", json_object_new_string(j->format));
        json_object_object_add(
            result, "text", json_object_new_string_len(text + j->offset, (int)(end - j->offset)));
        json_object_object_add(result, "offset", json_object_new_int64(j->offset));
        json_object_object_add(result, "total", json_object_new_int64((int64_t)len));
        json_object_object_add(result, "next",
                               end < len ? json_object_new_int64((int64_t)end) : NULL);
    }
    tsd_request_finish(j->req, j->rc, result, &j->err);
    json_object_put(result);
    ts_buf_free(&j->text);
    tsd_run_meta_free(&j->meta);
    free(j);
}

static int run_report(void *state, tsd_request *req, const struct json_object *params,
                      struct json_object **result, ts_error *err)
{
    tsd_runs *runs = state;
    const char *id, *format;
    int64_t offset;
    tsd_run *run = NULL;
    report_job *j;
    tsd_params p;
    int rc;

    (void)result;
    tsd_params_init(&p, params, err);
    id = tsd_params_string(&p, "run", true);
    format = tsd_params_string(&p, "format", true);
    offset = tsd_params_int(&p, "offset", 0);
    rc = tsd_params_error(&p);
    if (rc == 0 && !tsd_run_report_format_known(format))
        rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                          "'format' must be \"json\", \"junit\" or \"html\", got '%.40s'", format);
    if (rc == 0 && offset < 0)
        rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "'offset' must not be negative");
    if (rc == 0)
        rc = tsd_runs_get(runs, id, &run, err);
    if (rc < 0)
        return rc;
    j = calloc(1, sizeof(*j));
    if (j == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    if (tsd_run_meta_of(run, &j->meta) < 0) {
        free(j);
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    j->req = req;
    j->state = runs->state;
    snprintf(j->format, sizeof(j->format), "%s", format);
    j->offset = offset;
    ts_buf_init(&j->text, TS_BUF_UNLIMITED);
    j->work.data = j;
    tsd_jobs_size_pool();
    rc = uv_queue_work(runs->loop, &j->work, report_work, report_done);
    if (rc < 0) {
        tsd_run_meta_free(&j->meta);
        free(j);
        return ts_error_set(err, -EIO, TS_ERR_INTERNAL, "cannot queue the report: %s",
                            uv_strerror(rc));
    }
    return TSD_ASYNC;
}

/* ---- the summary's flaky lines ------------------------------------------ */

typedef struct flaky_job {
    uv_work_t work;
    tsd_runs *runs;
    tsd_request *req;
    const ts_state *state;
    tsd_run_meta meta;
    struct json_object *summary;
    struct json_object *lines;
    int rc;
    ts_error err;
} flaky_job;

static void flaky_work(uv_work_t *w)
{
    flaky_job *j = w->data;

    ts_error_clear(&j->err);
    j->rc = tsd_run_flaky_lines(j->state, &j->meta, &j->lines, &j->err);
}

static void flaky_done(uv_work_t *w, int status)
{
    flaky_job *j = w->data;
    tsd_run *run = tsd_runs_find(j->runs, j->meta.id);

    if (status < 0 && j->rc == 0)
        j->rc = ts_error_set(&j->err, -ECANCELED, TS_ERR_INTERNAL, "cancelled");
    if (j->rc < 0) {
        tsd_warn("run %s: no flaky lines: %s", j->meta.id, j->err.message);
        json_object_put(j->lines);
        j->lines = json_object_new_array();
    } else if (run != NULL && run->closed) {
        tsd_run_keep_flaky(j->runs, run, j->lines);
    }
    json_object_object_add(j->summary, "flaky_lines", j->lines);
    tsd_request_finish(j->req, 0, j->summary, NULL);
    json_object_put(j->summary);
    tsd_run_meta_free(&j->meta);
    free(j);
}

static int summary_answer(tsd_runs *runs, tsd_request *req, tsd_run *run,
                          struct json_object **result, ts_error *err)
{
    struct json_object *summary = tsd_run_summary(run);
    flaky_job *j;
    int rc;

    if (json_object_object_get_ex(summary, "flaky_lines", NULL)) {
        *result = summary;
        return 0;
    }
    j = calloc(1, sizeof(*j));
    if (j == NULL || tsd_run_meta_of(run, &j->meta) < 0) {
        free(j);
        json_object_put(summary);
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    j->runs = runs;
    j->req = req;
    j->state = runs->state;
    j->summary = summary;
    j->work.data = j;
    tsd_jobs_size_pool();
    rc = uv_queue_work(runs->loop, &j->work, flaky_work, flaky_done);
    if (rc < 0) {
        tsd_run_meta_free(&j->meta);
        json_object_put(summary);
        free(j);
        return ts_error_set(err, -EIO, TS_ERR_INTERNAL, "cannot queue the flaky lines: %s",
                            uv_strerror(rc));
    }
    return TSD_ASYNC;
}

/* ---- run.open, run.join, run.close, run.summary ------------------------ */

/* A method on one run: params["run"] and nothing else. */
static int param_run_only(tsd_runs *runs, const struct json_object *params, tsd_run **run,
                          ts_error *err)
{
    tsd_params p;

    tsd_params_init(&p, params, err);
    *run = param_run(runs, &p);
    return tsd_params_error(&p);
}

static int run_open(void *state, tsd_request *req, const struct json_object *params,
                    struct json_object **result, ts_error *err)
{
    tsd_runs *runs = state;
    const char *root, *label;
    char *key = NULL;
    tsd_run *run = NULL;
    tsd_params p;
    int rc;

    (void)req;
    tsd_params_init(&p, params, err);
    root = tsd_params_string(&p, "store", true);
    label = tsd_params_string(&p, "label", false);
    rc = tsd_params_error(&p);
    /* a store another daemon holds: the run is opened there (store_busy) */
    if (rc == 0 && runs->store_fn != NULL)
        rc = runs->store_fn(runs->store_arg, root, &key, err);
    else if (rc == 0 && (key = strdup(root)) == NULL)
        rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    if (rc == 0)
        rc = tsd_runs_open(runs, key, label, tsd_runs_now_ms(), &run, err);
    free(key);
    if (rc < 0)
        return rc;
    tsd_info("run %s opened on %s%s%s", run->id, run->store, label ? ": " : "", label ? label : "");
    *result = json_object_new_object();
    json_object_object_add(*result, "run", json_object_new_string(run->id));
    return 0;
}

static int run_join(void *state, tsd_request *req, const struct json_object *params,
                    struct json_object **result, ts_error *err)
{
    tsd_runs *runs = state;
    tsd_run *run = NULL;
    int rc = param_run_only(runs, params, &run, err);

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

static int run_close(void *state, tsd_request *req, const struct json_object *params,
                     struct json_object **result, ts_error *err)
{
    tsd_runs *runs = state;
    tsd_run *run = NULL;
    int rc = param_run_only(runs, params, &run, err);

    if (rc < 0)
        return rc;
    if (!run->closed)
        tsd_info("run %s closed", run->id);
    tsd_runs_close(runs, run, tsd_runs_now_ms());
    return summary_answer(runs, req, run, result, err);
}

static int run_summary(void *state, tsd_request *req, const struct json_object *params,
                       struct json_object **result, ts_error *err)
{
    tsd_runs *runs = state;
    tsd_run *run = NULL;
    int rc = param_run_only(runs, params, &run, err);

    if (rc < 0)
        return rc;
    return summary_answer(runs, req, run, result, err);
}

/* ---- the module ------------------------------------------------------- */

void tsd_runs_set_store(tsd_runs *runs, tsd_runs_store_fn fn, void *arg)
{
    runs->store_fn = fn;
    runs->store_arg = arg;
}

static int runs_open(tsd_server *srv, void **state, ts_error *err)
{
    const tsd_options *opt = tsd_server_options(srv);
    tsd_runs *runs = calloc(1, sizeof(*runs));
    int rc;

    if (runs == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    rc = tsd_runs_init(runs, tsd_server_state(srv), tsd_server_socket(srv), opt->runs_keep,
                       opt->runs_max_age_s, tsd_runs_now_ms(), err);
    if (rc < 0) {
        tsd_runs_free(runs);
        free(runs);
        return rc;
    }
    runs->loop = tsd_server_loop(srv);
    *state = runs;
    return 0;
}

static size_t runs_memory(void *state)
{
    return tsd_runs_memory(state);
}

static void runs_status(void *state, struct json_object *o)
{
    tsd_runs *runs = state;

    json_object_object_add(o, "runs_open", json_object_new_int64((int64_t)runs->open_count));
    json_object_object_add(o, "runs_kept", json_object_new_int64((int64_t)tsd_runs_kept(runs)));
    json_object_object_add(o, "runs_memory", json_object_new_int64((int64_t)tsd_runs_memory(runs)));
}

/* Open runs keep the daemon in use (stop {if_idle}). */
static size_t runs_in_use(void *state)
{
    const tsd_runs *runs = state;

    return runs->open_count;
}

static void runs_close(void *state)
{
    tsd_runs_free(state);
    free(state);
}

static const tsd_method runs_methods[] = {
    {"run.open", run_open, NULL},       {"run.join", run_join, NULL},
    {"run.close", run_close, NULL},     {"run.summary", run_summary, NULL},
    {"run.partial", run_partial, NULL}, {"run.report", run_report, NULL},
};

const tsd_module tsd_runs_module = {
    .name = "runs",
    .methods = runs_methods,
    .method_count = sizeof(runs_methods) / sizeof(runs_methods[0]),
    .open = runs_open,
    .memory = runs_memory,
    .status = runs_status,
    .in_use = runs_in_use,
    .close = runs_close,
};
