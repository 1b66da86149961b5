/*
 * run_methods — run.partial and run.report (see run_methods.h).
 */
#include "daemon/runs/run_methods.h"

#include <stdlib.h>
#include <string.h>

#include "daemon/server/jobs.h"
#include "daemon/server/log.h"
#include "daemon/server/params.h"
#include "daemon/server/request.h"
#include "daemon/runs/run_report.h"
#include "daemon/runs/runs.h"
#include "lib/base/ts_base.h"

int tsd_run_partial_method(tsd_server *srv, tsd_request *req, const struct json_object *params,
                           struct json_object **result, ts_error *err)
{
    const char *reasons[TS_RUNREPORT_MAX_REASONS];
    struct json_object *list = NULL;
    tsd_run *run = NULL;
    size_t n = 0;
    tsd_params p;
    const char *id;
    int rc;

    (void)req;
    tsd_params_init(&p, params, err);
    id = tsd_params_string(&p, "run", true);
    if (id != NULL)
        tsd_params_fail(&p, tsd_runs_get(&srv->runs, id, &run, err));
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
        rc = tsd_run_mark_partial(&srv->runs, run, reasons, n, err);
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
    size_t end = offset + TSD_RUN_REPORT_PAGE;

    if (end >= len)
        return len;
    while (end > offset && ((unsigned char)text[end] & 0xC0) == 0x80)
        end--;
    return end;
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

int tsd_run_report_method(tsd_server *srv, tsd_request *req, const struct json_object *params,
                          struct json_object **result, ts_error *err)
{
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
        rc = tsd_runs_get(&srv->runs, id, &run, err);
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
    j->state = srv->state;
    snprintf(j->format, sizeof(j->format), "%s", format);
    j->offset = offset;
    ts_buf_init(&j->text, TS_BUF_UNLIMITED);
    j->work.data = j;
    tsd_jobs_size_pool();
    rc = uv_queue_work(srv->loop, &j->work, report_work, report_done);
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
    tsd_server *srv;
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
    tsd_run *run = tsd_runs_find(&j->srv->runs, j->meta.id);

    if (status < 0 && j->rc == 0)
        j->rc = ts_error_set(&j->err, -ECANCELED, TS_ERR_INTERNAL, "cancelled");
    if (j->rc < 0) {
        tsd_warn("run %s: no flaky lines: %s", j->meta.id, j->err.message);
        json_object_put(j->lines);
        j->lines = json_object_new_array();
    } else if (run != NULL && run->closed) {
        tsd_run_keep_flaky(&j->srv->runs, run, j->lines);
    }
    json_object_object_add(j->summary, "flaky_lines", j->lines);
    tsd_request_finish(j->req, 0, j->summary, NULL);
    json_object_put(j->summary);
    tsd_run_meta_free(&j->meta);
    free(j);
}

int tsd_run_summary_answer(tsd_server *srv, tsd_request *req, tsd_run *run,
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
    j->srv = srv;
    j->req = req;
    j->state = srv->state;
    j->summary = summary;
    j->work.data = j;
    tsd_jobs_size_pool();
    rc = uv_queue_work(srv->loop, &j->work, flaky_work, flaky_done);
    if (rc < 0) {
        tsd_run_meta_free(&j->meta);
        json_object_put(summary);
        free(j);
        return ts_error_set(err, -EIO, TS_ERR_INTERNAL, "cannot queue the flaky lines: %s",
                            uv_strerror(rc));
    }
    return TSD_ASYNC;
}
