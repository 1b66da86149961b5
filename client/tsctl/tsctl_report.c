/*
 * tsctl_report — run reports on the command line: `tsctl report merge`
 * (the JSON reports of CI shards joined into one summary line, one JUnit
 * file and one JSON report, lib/ts_runreport), and what `tsctl run` and
 * `tsctl orphans` share with it: loading report files, writing report
 * files, describing a run, printing duplicate claims and flaky lines, and
 * the findings rule of the exit status (FAILED checks, CI errors, duplicate
 * claims and, in CI, flaky names make a green command red).
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

int tsctl_reports_load(const tsctl_ctx *ctx, char *const *paths, int n, ts_runreport **out)
{
    ts_runreport *r = ts_runreport_new();
    ts_error err;
    ts_buf text;
    int rc = 0;

    if (r == NULL)
        return tsctl_fail(ctx, TSCTL_EXIT_FAILED, "out of memory");
    for (int i = 0; rc == 0 && i < n; i++) {
        rc = tsctl_read_text(ctx, paths[i], &text);
        if (rc != 0)
            break;
        if (ts_runreport_add_json(r, text.data ? text.data : "", text.len, &err) < 0)
            rc = tsctl_fail(ctx, TSCTL_EXIT_USAGE, "%s: %s",
                            strcmp(paths[i], "-") == 0 ? "<stdin>" : paths[i], err.message);
        ts_buf_free(&text);
    }
    if (rc != 0) {
        ts_runreport_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

int tsctl_write_file(const tsctl_ctx *ctx, const char *path, const char *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    size_t done = 0;

    if (fd < 0)
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "cannot write %s: %s", path, strerror(errno));
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);

        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            int e = errno;

            close(fd);
            return tsctl_fail(ctx, TSCTL_EXIT_FAILED, "cannot write %s: %s", path, strerror(e));
        }
        done += (size_t)w;
    }
    if (close(fd) < 0)
        return tsctl_fail(ctx, TSCTL_EXIT_FAILED, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

/* "2025-06-01 12:05:00 UTC" of ms since the epoch. */
static void utc(int64_t ms, char out[40])
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(out, 40, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

void tsctl_describe_run(const ts_runreport_run *run, ts_buf *out)
{
    long long checks = (long long)run->checks;
    char opened[40];
    char closed[40];

    utc(run->opened_ms, opened);
    ts_buf_appendf(out, "run %s", run->id);
    if (run->label != NULL && run->label[0] != '\0')
        ts_buf_appendf(out, " (%s)", run->label);
    if (run->host != NULL && run->host[0] != '\0')
        ts_buf_appendf(out, " on %s", run->host);
    ts_buf_appendf(out, ", opened %s", opened);
    if (run->closed_ms >= 0) {
        utc(run->closed_ms, closed);
        ts_buf_appendf(out, ", closed %s", closed);
    }
    ts_buf_appendf(out, ", %lld check%s, ", checks, checks == 1 ? "" : "s");
    if (run->partial) {
        ts_buf_appends(out, "partial");
        for (size_t i = 0; i < run->nreasons; i++)
            ts_buf_appendf(out, "%s%s", i == 0 ? " (" : "; ", run->reasons[i]);
        if (run->nreasons > 0)
            ts_buf_appendc(out, ')');
    } else if (run->closed_ms < 0) {
        ts_buf_appends(out, "still open");
    } else {
        ts_buf_appends(out, "complete");
    }
}

void tsctl_print_duplicate(const tsctl_ctx *ctx, const char *name, const char *const *tests,
                           size_t ntests)
{
    printf("%stoolscore: error:%s snapshot '%s' was claimed by more than one test:",
           tsctl_c(ctx->color_out, TSCTL_RED), tsctl_c(ctx->color_out, TSCTL_RESET), name);
    for (size_t j = 0; j < ntests; j++)
        printf("%s %s", j ? "," : "", tests[j]);
    printf("\n");
}

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

bool tsctl_findings(long long failed_or_errors, long long duplicates, long long flaky)
{
    return failed_or_errors > 0 || duplicates > 0 || (flaky > 0 && tsctl_env_ci());
}

const char *tsctl_findings_why(long long failed_or_errors, long long duplicates, long long flaky)
{
    if (failed_or_errors > 0)
        return "has FAILED checks or CI errors";
    if (duplicates > 0)
        return "has snapshots claimed by more than one test";
    return flaky > 0 ? "has flaky snapshots (in CI)" : "has no findings";
}

size_t tsctl_print_flaky_lines(const tsctl_ctx *ctx, const struct json_object *lines)
{
    size_t n = json_object_is_type(lines, json_type_array) ? json_object_array_length(lines) : 0;
    size_t printed = 0;

    (void)ctx;
    for (size_t i = 0; i < n; i++) {
        struct json_object *l = json_object_array_get_idx(lines, i);

        if (!json_object_is_type(l, json_type_string))
            continue;
        printf("%s\n", json_object_get_string(l));
        printed++;
    }
    return printed;
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
