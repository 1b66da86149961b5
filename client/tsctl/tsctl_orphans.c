/*
 * tsctl_orphans — `tsctl orphans`: the snapshots of the store that no check
 * of a run referenced, either of one run the daemon keeps (--run, else
 * TOOLSCORE_RUN, else the last run tsctl closed on this store) or of the
 * JSON reports of CI shards (--from-reports). It says which runs it used
 * (on stderr, so the names on stdout stay scriptable), and refuses
 * --delete when a run was partial (a shim said not every test ran) or is
 * still open, unless --force: snapshots of tests that did not run only
 * look unused.
 */
#include "client/tsctl/tsctl.h"

#include <stdlib.h>
#include <string.h>

#include "lib/base/ts_base.h"
#include "proto/ts_proto.h"
#include "lib/runreport/ts_runreport.h"

/* The runs compared with, for the message and the partial rule. */
typedef struct orphan_source {
    ts_runreport *reports;   /* --from-reports, else NULL */
    struct json_object *run; /* the daemon's run object, else NULL */
} orphan_source;

/* The daemon's description of a run (orphans' "run", as run.summary) as a
 * ts_runreport_run;
 * reasons point into run and into the array reasons. */
static void run_of_json(const struct json_object *o, const char **reasons, size_t max,
                        ts_runreport_run *out)
{
    struct json_object *rs = tsctl_get(o, "partial_reasons");

    memset(out, 0, sizeof(*out));
    out->id = tsctl_str(o, "run", "?");
    out->label = tsctl_str(o, "label", NULL);
    out->host = tsctl_str(o, "host", NULL);
    out->closed_ms = -1;
    if (ts_runreport_parse_time(tsctl_str(o, "opened", ""), &out->opened_ms) < 0)
        out->opened_ms = 0;
    if (ts_runreport_parse_time(tsctl_str(o, "closed_at", ""), &out->closed_ms) < 0)
        out->closed_ms = -1;
    out->partial = tsctl_bool(o, "partial");
    out->checks = tsctl_int(tsctl_get(o, "counts"), "checks", 0);
    for (size_t i = 0; json_object_is_type(rs, json_type_array) &&
                       i < json_object_array_length(rs) && out->nreasons < max;
         i++)
        reasons[out->nreasons++] = json_object_get_string(json_object_array_get_idx(rs, i));
    out->reasons = reasons;
}

/* Print which runs were used; true when each is closed and complete. */
static bool describe_sources(const orphan_source *src)
{
    const char *reasons[TS_RUNREPORT_MAX_REASONS];
    ts_runreport_run run;
    bool complete = true;
    size_t n = src->reports != NULL ? ts_runreport_run_count(src->reports) : 1;
    ts_buf line;

    ts_buf_init(&line, TS_BUF_UNLIMITED);
    for (size_t i = 0; i < n; i++) {
        if (src->reports != NULL)
            ts_runreport_run_at(src->reports, i, &run);
        else
            run_of_json(src->run, reasons, TS_RUNREPORT_MAX_REASONS, &run);
        complete = complete && !run.partial && run.closed_ms >= 0;
        ts_buf_reset(&line);
        ts_buf_appends(&line, "toolscore: orphans of ");
        tsctl_describe_run(&run, &line);
        fprintf(stderr, "%s\n", line.data != NULL ? line.data : "");
    }
    ts_buf_free(&line);
    return complete;
}

/* The store's snapshots that no report references, as a new array. */
static int names_from_reports(tsctl_ctx *ctx, ts_runreport *r, struct json_object **out)
{
    struct json_object *params = tsctl_store_params(ctx);
    struct json_object *reply = NULL;
    struct json_object *snaps;
    struct json_object *names;
    int rc;

    if (params == NULL)
        return TSCTL_EXIT_USAGE;
    rc = tsctl_call(ctx, "list", params, 0, &reply);
    if (rc != 0)
        return rc;
    snaps = tsctl_get(reply, "snapshots");
    names = json_object_new_array();
    for (size_t i = 0;
         json_object_is_type(snaps, json_type_array) && i < json_object_array_length(snaps); i++) {
        const char *name = tsctl_str(json_object_array_get_idx(snaps, i), "name", NULL);

        if (name != NULL && !ts_runreport_references(r, name))
            json_object_array_add(names, json_object_new_string(name));
    }
    json_object_put(reply);
    *out = names;
    return 0;
}

/* The orphans of one run the daemon keeps. */
static int names_from_run(tsctl_ctx *ctx, const char *run, orphan_source *src,
                          struct json_object **out)
{
    struct json_object *params;
    struct json_object *reply = NULL;
    char root[TS_PATHS_MAX];
    char last[256];
    int rc;

    if (run == NULL && getenv("TOOLSCORE_RUN") != NULL && getenv("TOOLSCORE_RUN")[0] != '\0')
        run = getenv("TOOLSCORE_RUN");
    if (tsctl_store_root(ctx, root, sizeof(root)) != 0)
        return TSCTL_EXIT_USAGE;
    if (run == NULL && tsctl_last_run_load(ctx, root, last, sizeof(last)) == 0)
        run = last;
    params = tsctl_store_params(ctx);
    if (params == NULL)
        return TSCTL_EXIT_USAGE;
    json_object_object_add(params, "run", run ? json_object_new_string(run) : NULL);
    rc = tsctl_call(ctx, "orphans", params, run == NULL ? TSCTL_CALL_QUIET : 0, &reply);
    if (rc != 0 && run == NULL && !ctx->unreachable)
        return tsctl_usage_error(ctx,
                                 "needs --run ID (the \"run\" of tsctl run --json-report), or "
                                 "--from-reports SHARD.json...: %s",
                                 ctx->last_error.message);
    if (rc != 0 && run == NULL)
        return tsctl_fail(ctx, rc, "%s", ctx->last_error.message);
    if (rc != 0)
        return rc;
    *out = json_object_get(tsctl_get(reply, "names"));
    if (*out == NULL)
        *out = json_object_new_array();
    src->run = json_object_get(tsctl_get(reply, "run"));
    if (src->run == NULL) {
        /* A daemon that does not describe its run: the id is all we know. */
        src->run = json_object_new_object();
        json_object_object_add(src->run, "run", json_object_new_string(run));
    }
    json_object_put(reply);
    return 0;
}

int tsctl_cmd_orphans(tsctl_ctx *ctx, int argc, char **argv)
{
    const char *run = NULL;
    bool delete_them = false;
    bool from_reports = false;
    bool force = false;
    bool yes = false;
    const tsctl_option opts[] = {
        {"run", 0, &run, NULL},
        {"from-reports", 0, NULL, &from_reports},
        {"delete", 0, NULL, &delete_them},
        {"yes", 'y', NULL, &yes},
        {"force", 0, NULL, &force},
        {NULL, 0, NULL, NULL},
    };
    orphan_source src = {NULL, NULL};
    struct json_object *names = NULL;
    tsctl_args args;
    bool complete;
    size_t n;
    int rc;

    rc = tsctl_parse(ctx, argc, argv, opts, TSCTL_PARSE_JSON, &args);
    if (rc != 0)
        return rc;
    rc = tsctl_want_run_or_reports(ctx, &args, run, from_reports);
    if (rc == 0)
        rc = tsctl_need_store(ctx);
    if (rc != 0)
        return rc;
    if (delete_them && !yes)
        return tsctl_usage_error(ctx, "--delete needs --yes");
    if (force && !delete_them)
        return tsctl_usage_error(ctx, "--force only goes with --delete");
    if (from_reports) {
        rc = tsctl_reports_load(ctx, args.pos, args.npos, &src.reports);
        if (rc == 0)
            rc = names_from_reports(ctx, src.reports, &names);
    } else {
        rc = names_from_run(ctx, run, &src, &names);
    }
    if (rc != 0)
        goto out;
    complete = describe_sources(&src);
    n = json_object_array_length(names);
    if (ctx->json)
        rc = tsctl_print_json(ctx, names);
    else if (n == 0)
        printf("No orphaned snapshots.\n");
    for (size_t i = 0; !ctx->json && i < n; i++)
        printf("%s\n", json_object_get_string(json_object_array_get_idx(names, i)));
    if (rc != 0 || !delete_them || n == 0)
        goto out;
    if (!complete && !force) {
        rc = tsctl_fail(ctx, TSCTL_EXIT_FAILED,
                        "not deleting %zu snapshot(s): the run is partial or still open, so "
                        "they may only look unused (rerun every test, or add --force)",
                        n);
        goto out;
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct json_object *rm_reply = NULL;

        rc = tsctl_call_name(ctx, "rm", json_object_get_string(json_object_array_get_idx(names, i)),
                             0, &rm_reply);
        json_object_put(rm_reply);
    }
    if (rc == 0 && !ctx->json)
        printf("Deleted %zu orphaned snapshot(s).\n", n);
out:
    json_object_put(names);
    json_object_put(src.run);
    ts_runreport_free(src.reports);
    return rc;
}
