/*
 * run_report — a run's report from its files (see runs_internal.h).
 */
#include "runs_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/html/ts_html.h"
#include "lib/flaky/ts_flaky.h"
#include "lib/runreport/ts_runreport.h"

/* Report texts by id: a line holds a text the first time it is seen in
 * the run; later lines name it. */
typedef struct texts {
    char **ids; /* open addressing by id */
    char **values;
    size_t n, cap;
} texts;

static const char *texts_get(const texts *t, const char *id)
{
    if (t->cap == 0)
        return NULL;
    for (size_t s = ts_hash_string(id) & (t->cap - 1); t->ids[s] != NULL;
         s = (s + 1) & (t->cap - 1)) {
        if (strcmp(t->ids[s], id) == 0)
            return t->values[s];
    }
    return NULL;
}

static int texts_put(texts *t, const char *id, const char *value)
{
    size_t s;

    if (texts_get(t, id) != NULL)
        return 0;
    if ((t->n + 1) * 2 > t->cap) {
        texts bigger = {NULL, NULL, 0, t->cap ? t->cap * 2 : 64};

        bigger.ids = calloc(bigger.cap, sizeof(char *));
        bigger.values = calloc(bigger.cap, sizeof(char *));
        if (bigger.ids == NULL || bigger.values == NULL) {
            free(bigger.ids);
            free(bigger.values);
            return -ENOMEM;
        }
        for (size_t i = 0; i < t->cap; i++) {
            if (t->ids[i] == NULL)
                continue;
            for (s = ts_hash_string(t->ids[i]) & (bigger.cap - 1); bigger.ids[s] != NULL;
                 s = (s + 1) & (bigger.cap - 1))
                ;
            bigger.ids[s] = t->ids[i];
            bigger.values[s] = t->values[i];
        }
        free(t->ids);
        free(t->values);
        bigger.n = t->n;
        *t = bigger;
    }
    for (s = ts_hash_string(id) & (t->cap - 1); t->ids[s] != NULL; s = (s + 1) & (t->cap - 1))
        ;
    t->ids[s] = strdup(id);
    t->values[s] = strdup(value);
    if (t->ids[s] == NULL || t->values[s] == NULL) {
        free(t->ids[s]);
        free(t->values[s]);
        t->ids[s] = t->values[s] = NULL;
        return -ENOMEM;
    }
    t->n++;
    return 0;
}

static void texts_free(texts *t)
{
    for (size_t i = 0; i < t->cap; i++) {
        free(t->ids[i]);
        free(t->values[i]);
    }
    free(t->ids);
    free(t->values);
}

/* The rules objects of the run by id: a line holds one the first time the
 * run saw it; later lines name it. Few per run. */
typedef struct rules_seen {
    char (*ids)[TS_RUNREPORT_CALLS_ID_LEN + 1];
    struct json_object **objs;
    size_t n;
} rules_seen;

static const struct json_object *rules_get(const rules_seen *r, const char *id)
{
    for (size_t i = r->n; id != NULL && i-- > 0;) {
        if (strcmp(r->ids[i], id) == 0)
            return r->objs[i];
    }
    return NULL;
}

static int rules_put(rules_seen *r, const char *id, const struct json_object *obj)
{
    void *ids, *objs;

    if (rules_get(r, id) != NULL)
        return 0;
    ids = realloc(r->ids, (r->n + 1) * sizeof(*r->ids));
    if (ids != NULL)
        r->ids = ids;
    objs = realloc(r->objs, (r->n + 1) * sizeof(*r->objs));
    if (objs != NULL)
        r->objs = objs;
    if (ids == NULL || objs == NULL)
        return -ENOMEM;
    snprintf(r->ids[r->n], sizeof(r->ids[r->n]), "%s", id);
    r->objs[r->n++] = json_object_get((struct json_object *)obj);
    return 0;
}

static void rules_free(rules_seen *r)
{
    for (size_t i = 0; i < r->n; i++)
        json_object_put(r->objs[i]);
    free(r->ids);
    free(r->objs);
}

typedef struct render_ctx {
    ts_runreport *report;
    texts reports;
    rules_seen rules;
    bool no_reports; /* the drift reports are not needed */
} render_ctx;

static int add_line(const tsd_run_line *l, void *arg, ts_error *err)
{
    render_ctx *rc = arg;
    ts_runreport_check c;
    const char *report = NULL;

    if ((!rc->no_reports && l->report != NULL &&
         texts_put(&rc->reports, l->report_id, l->report) < 0) ||
        (l->rules != NULL && rules_put(&rc->rules, l->rules_id, l->rules) < 0))
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    if (l->report_id != NULL && !rc->no_reports)
        report = l->report != NULL ? l->report : texts_get(&rc->reports, l->report_id);
    memset(&c, 0, sizeof(c));
    c.name = l->name;
    c.test = l->test;
    c.outcome = l->outcome;
    c.unchanged = l->unchanged;
    c.score = l->score;
    c.min_score = l->min_score;
    c.duration_ms = l->duration_ms;
    c.message = l->message;
    c.report = report;
    c.calls_id = l->calls_id;
    c.calls = l->calls;
    c.baseline_id = l->baseline_id;
    c.baseline = l->baseline;
    c.rules = rules_get(&rc->rules, l->rules_id);
    return ts_runreport_add_check(rc->report, &c, err);
}

bool tsd_run_report_format_known(const char *format)
{
    return format != NULL && (strcmp(format, "json") == 0 || strcmp(format, "junit") == 0 ||
                              strcmp(format, "html") == 0);
}

/* The HTML report of r; a complete run shows its store's orphans. */
static int render_html(ts_runreport *r, const char *store, ts_buf *out, ts_error *err)
{
    struct json_object *tree = NULL;
    struct json_object *orphans = NULL;
    ts_html_options opt;
    char note[sizeof(((ts_error *)0)->message) + 64];
    ts_error serr;
    int rc = ts_runreport_json_tree(r, &tree, err);

    ts_html_options_default(&opt);
    if (rc == 0 && ts_runreport_complete(r) && store != NULL) {
        if (ts_runreport_orphans(r, store, &orphans, &serr) < 0) {
            snprintf(note, sizeof(note),
                     "The store could not be read, so orphans are not known: %s", serr.message);
            opt.orphans_note = note;
        }
        opt.orphans = orphans;
    }
    if (rc == 0)
        rc = ts_html_render(tree, &opt, out, err);
    json_object_put(orphans);
    json_object_put(tree);
    return rc;
}

/* The report of meta's run read from its records into ctx (ctx->report
 * made here; the caller frees ctx's parts). */
static int load(const ts_state *state, const tsd_run_meta *meta, render_ctx *ctx, ts_error *err)
{
    ts_runreport_run run;
    char rel[96];
    int dir = -1;
    int rc;

    snprintf(rel, sizeof(rel), "runs/%s", meta->id);
    rc = ts_state_dir(state, rel, false, &dir, err);
    if (rc == -ENOENT)
        return ts_error_set(err, -ENOENT, TS_ERR_NOT_FOUND,
                            "run '%s' is no longer kept (its files are gone)", meta->id);
    if (rc < 0)
        return rc;
    ctx->report = ts_runreport_new();
    if (ctx->report == NULL) {
        close(dir);
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    memset(&run, 0, sizeof(run));
    run.id = meta->id;
    run.store = meta->store;
    run.label = meta->label;
    run.host = meta->host;
    run.opened_ms = meta->opened_ms;
    run.closed_ms = meta->closed_ms;
    run.partial = meta->partial;
    run.reasons = (const char *const *)meta->reasons;
    run.nreasons = meta->nreasons;
    rc = ts_runreport_add_run(ctx->report, &run, err);
    if (rc == 0)
        rc = tsd_run_lines_read(dir, add_line, ctx, NULL, NULL, err);
    close(dir);
    return rc;
}

static void ctx_free(render_ctx *ctx)
{
    texts_free(&ctx->reports);
    rules_free(&ctx->rules);
    ts_runreport_free(ctx->report);
}

int tsd_run_render(const ts_state *state, const tsd_run_meta *meta, const char *format, ts_buf *out,
                   ts_error *err)
{
    render_ctx ctx = {NULL, {NULL, NULL, 0, 0}, {NULL, NULL, 0}, false};
    int rc = load(state, meta, &ctx, err);

    if (rc == 0 && strcmp(format, "html") == 0)
        rc = render_html(ctx.report, meta->store, out, err);
    else if (rc == 0)
        rc = strcmp(format, "junit") == 0 ? ts_runreport_junit(ctx.report, out, err)
                                          : ts_runreport_json(ctx.report, out, err);
    ctx_free(&ctx);
    return rc;
}

int tsd_run_flaky_lines(const ts_state *state, const tsd_run_meta *meta, struct json_object **out,
                        ts_error *err)
{
    render_ctx ctx = {NULL, {NULL, NULL, 0, 0}, {NULL, NULL, 0}, true};
    ts_flaky *flaky = NULL;
    size_t n = 0;
    int rc = load(state, meta, &ctx, err);

    *out = NULL;
    if (rc == 0)
        rc = ts_flaky_report(ctx.report, &flaky, &n, err);
    if (rc == 0) {
        *out = json_object_new_array();
        for (size_t i = 0; *out != NULL && i < n && i < TSD_RUN_FLAKY_LINES; i++)
            json_object_array_add(*out, json_object_new_string(flaky[i].line));
        if (*out != NULL && n > TSD_RUN_FLAKY_LINES) {
            char more[128];

            snprintf(more, sizeof(more),
                     "flaky: ... and %zu more flaky names (the JSON report lists them all)",
                     n - TSD_RUN_FLAKY_LINES);
            json_object_array_add(*out, json_object_new_string(more));
        }
        if (*out == NULL)
            rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    ts_flaky_list_free(flaky, n);
    ctx_free(&ctx);
    return rc;
}
