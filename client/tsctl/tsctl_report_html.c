/*
 * tsctl_report_html — `tsctl report html`: the HTML report of a run (one
 * self-contained page, lib/html/ts_html) written to a file. Of a run the daemon
 * keeps (--run, else TOOLSCORE_RUN, else the last run tsctl closed on this
 * store): the daemon renders it (run.report, format "html"). Of the JSON
 * reports of CI shards (--from-reports): rendered here, without a daemon;
 * when together they are complete, the orphans are those of the local
 * store (--dir), read here too.
 */
#include "client/tsctl/tsctl.h"

#include <stdlib.h>
#include <string.h>

#include "lib/base/ts_base.h"
#include "lib/html/ts_html.h"
#include "proto/ts_proto.h"
#include "lib/runreport/ts_runreport.h"

/* The page of the shards' reports, into out. 0 or an exit code. */
static int html_of_reports(tsctl_ctx *ctx, char *const *paths, int n, ts_buf *out,
                           long long *checks)
{
    struct json_object *tree = NULL;
    struct json_object *orphans = NULL;
    ts_runreport *r = NULL;
    char root[TS_PATHS_MAX];
    char note[sizeof(((ts_error *)0)->message) + TS_PATHS_MAX + 64];
    ts_html_options opt;
    ts_error err;
    int rc = tsctl_reports_load(ctx, paths, n, &r);

    if (rc != 0)
        return rc;
    *checks = (long long)ts_runreport_checks(r);
    ts_html_options_default(&opt);
    if (ts_runreport_complete(r) && tsctl_store_root(ctx, root, sizeof(root)) == 0) {
        if (ts_runreport_orphans(r, root, &orphans, &err) < 0) {
            snprintf(note, sizeof(note),
                     "The store %s could not be read, so orphans are not known: %s", root,
                     err.message);
            opt.orphans_note = note;
        }
        opt.orphans = orphans;
    }
    if (ts_runreport_json_tree(r, &tree, &err) < 0 || ts_html_render(tree, &opt, out, &err) < 0)
        rc = tsctl_fail(ctx, TSCTL_EXIT_FAILED, "cannot render the HTML report: %s", err.message);
    json_object_put(tree);
    json_object_put(orphans);
    ts_runreport_free(r);
    return rc;
}

/* The page of a run the daemon keeps, into out. 0 or an exit code. */
static int html_of_run(tsctl_ctx *ctx, const char *run, ts_buf *out, long long *checks)
{
    struct json_object *params = json_object_new_object();
    struct json_object *summary = NULL;
    char root[TS_PATHS_MAX];
    char last[256];
    char *text = NULL;
    size_t len = 0;
    ts_error err;
    int rc;

    if (run == NULL && getenv("TOOLSCORE_RUN") != NULL && getenv("TOOLSCORE_RUN")[0] != '\0')
        run = getenv("TOOLSCORE_RUN");
    if (run == NULL && tsctl_store_root(ctx, root, sizeof(root)) == 0 &&
        tsctl_last_run_load(ctx, root, last, sizeof(last)) == 0)
        run = last;
    if (run == NULL) {
        json_object_put(params);
        return tsctl_usage_error(ctx, "needs --run ID (the \"run\" of tsctl run --json-report), "
                                      "or --from-reports SHARD.json...");
    }
    json_object_object_add(params, "run", json_object_new_string(run));
    rc = tsctl_call(ctx, "run.summary", params, 0, &summary);
    if (rc != 0)
        return rc;
    *checks = tsctl_int(tsctl_get(summary, "counts"), "checks", 0);
    json_object_put(summary);
    if (ts_client_run_report(ctx->client, run, "html", &text, &len, &err) < 0)
        return tsctl_fail(ctx, tsctl_exit_for_error(&err), "cannot get the HTML report: %s",
                          err.message);
    ts_buf_append(out, text, len);
    free(text);
    return ts_buf_error(out) < 0 ? tsctl_fail(ctx, TSCTL_EXIT_FAILED, "out of memory") : 0;
}

int tsctl_cmd_report_html(tsctl_ctx *ctx, int argc, char **argv)
{
    const char *run = NULL;
    const char *output = NULL;
    bool from_reports = false;
    const tsctl_option opts[] = {
        {"run", 0, &run, NULL},
        {"from-reports", 0, NULL, &from_reports},
        {"output", 'o', &output, NULL},
        {NULL, 0, NULL, NULL},
    };
    long long checks = 0;
    tsctl_args args;
    ts_buf page;
    int rc;

    rc = tsctl_parse(ctx, argc, argv, opts, 0, &args);
    if (rc != 0)
        return rc;
    if (output == NULL || output[0] == '\0')
        return tsctl_usage_error(ctx, "needs -o FILE (where to write the page)");
    rc = tsctl_want_run_or_reports(ctx, &args, run, from_reports);
    if (rc != 0)
        return rc;
    ts_buf_init(&page, TS_BUF_UNLIMITED);
    rc = from_reports ? html_of_reports(ctx, args.pos, args.npos, &page, &checks)
                      : html_of_run(ctx, run, &page, &checks);
    if (rc == 0)
        rc = tsctl_write_file(ctx, output, page.data != NULL ? page.data : "", page.len);
    if (rc == 0)
        printf("toolscore: wrote %s (%lld check%s, %zu KiB)\n", output, checks,
               checks == 1 ? "" : "s", (page.len + 1023) / 1024);
    ts_buf_free(&page);
    return rc;
}
