/*
 * tsctl_report — run reports on the command line: `tsctl report merge`
 * (the JSON reports of CI shards joined into one summary line, one JUnit
 * file and one JSON report, lib/runreport/ts_runreport). What it shares
 * with `tsctl run`, `tsctl orphans` and `tsctl report html` is
 * tsctl_runs.c.
 */
#include "client/tsctl/tsctl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/base/ts_base.h"
#include "lib/flaky/ts_flaky.h"
#include "lib/runreport/ts_runreport.h"

/* The duplicates of a report, printed; their number. */
static size_t print_duplicates(const tsctl_ctx *ctx, ts_runreport *r)
{
    ts_runreport_claim *dups = NULL;
    size_t n = 0;
    ts_error err;

    if (ts_runreport_duplicate_list(r, &dups, &n, &err) < 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        tsctl_print_duplicate(ctx, dups[i].name, dups[i].tests, dups[i].ntests);
    free(dups);
    return n;
}

/* The flaky names of a report, their lines printed; their number. */
static size_t print_flaky(const tsctl_ctx *ctx, ts_runreport *r)
{
    ts_flaky *flaky = NULL;
    size_t n = 0;
    ts_error err;

    if (ts_flaky_report(r, &flaky, &n, &err) < 0) {
        fprintf(stderr, "tsctl %s: cannot tell the flaky names: %s\n", ctx->command, err.message);
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        printf("%s\n", flaky[i].line);
    ts_flaky_list_free(flaky, n);
    return n;
}

/* Write the JUnit and JSON forms of r where asked. 0 or an exit code. */
static int write_outputs(const tsctl_ctx *ctx, ts_runreport *r, const char *junit, const char *json)
{
    ts_error err;
    ts_buf b;
    int rc = 0;

    if (junit != NULL) {
        ts_buf_init(&b, TS_BUF_UNLIMITED);
        if (ts_runreport_junit(r, &b, &err) < 0)
            rc = tsctl_fail(ctx, TSCTL_EXIT_FAILED, "cannot render the JUnit report: %s",
                            err.message);
        else
            rc = tsctl_write_file(ctx, junit, b.data, b.len);
        ts_buf_free(&b);
    }
    if (json != NULL && rc == 0) {
        ts_buf_init(&b, TS_BUF_UNLIMITED);
        if (ts_runreport_json(r, &b, &err) < 0)
            rc = tsctl_fail(ctx, TSCTL_EXIT_FAILED, "cannot render the JSON report: %s",
                            err.message);
        else
            rc = tsctl_write_file(ctx, json, b.data, b.len);
        ts_buf_free(&b);
    }
    return rc;
}

int tsctl_cmd_report_merge(tsctl_ctx *ctx, int argc, char **argv)
{
    const char *junit = NULL;
    const char *json = NULL;
    bool no_fail = false;
    const tsctl_option opts[] = {
        {"junit", 0, &junit, NULL},
        {"json-report", 0, &json, NULL},
        {"no-fail-on-findings", 0, NULL, &no_fail},
        {NULL, 0, NULL, NULL},
    };
    ts_runreport *r = NULL;
    ts_summary_counts c;
    tsctl_args args;
    size_t dups, flaky;
    ts_buf line;
    int rc;

    rc = tsctl_parse(ctx, argc, argv, opts, 0, &args);
    if (rc != 0)
        return rc;
    if (args.npos == 0)
        return tsctl_usage_error(ctx, "expected one or more SHARD.json files");
    rc = tsctl_reports_load(ctx, args.pos, args.npos, &r);
    if (rc != 0)
        return rc;
    rc = write_outputs(ctx, r, junit, json);
    ts_buf_init(&line, TS_BUF_UNLIMITED);
    ts_buf_appendf(&line, "toolscore: merged %d report%s: %zu run%s, %lld check%s\n", args.npos,
                   args.npos == 1 ? "" : "s", ts_runreport_run_count(r),
                   ts_runreport_run_count(r) == 1 ? "" : "s", (long long)ts_runreport_checks(r),
                   ts_runreport_checks(r) == 1 ? "" : "s");
    for (size_t i = 0; i < ts_runreport_run_count(r); i++) {
        ts_runreport_run run;

        ts_runreport_run_at(r, i, &run);
        if (!run.partial && run.closed_ms >= 0)
            continue;
        ts_buf_appends(&line, "toolscore: note: ");
        tsctl_describe_run(&run, &line);
        ts_buf_appendc(&line, '\n');
    }
    fputs(line.data != NULL ? line.data : "", stdout);
    ts_buf_reset(&line);
    ts_runreport_summary(r, &line);
    if (line.len > 0)
        printf("%s\n", line.data);
    ts_buf_free(&line);
    flaky = print_flaky(ctx, r);
    dups = print_duplicates(ctx, r);
    c = ts_runreport_counts(r);
    ts_runreport_free(r);
    if (rc == 0 && !no_fail &&
        tsctl_findings(c.failed + c.errors, (long long)dups, (long long)flaky))
        rc = TSCTL_EXIT_FAILED;
    return rc;
}
