/*
 * tsctl_runs — what the commands about runs share (tsctl run, report
 * merge, report html, orphans): loading report files, writing report
 * files, describing a run, printing duplicate claims and flaky lines, and
 * the findings rule of the exit status (FAILED checks, CI errors, duplicate
 * claims and, in CI, flaky names make a green command red).
 */
#include "client/tsctl/tsctl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
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

int tsctl_make_dirs_for(const tsctl_ctx *ctx, const char *path)
{
    char dir[PATH_MAX];
    struct stat st;
    size_t len;

    if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "cannot write %s: path too long", path);
    len = strlen(dir);
    while (len > 0 && dir[len - 1] != '/') /* the directory part, "" for none */
        len--;
    while (len > 1 && dir[len - 1] == '/')
        len--;
    dir[len] = '\0';
    for (size_t i = 1; i <= len; i++) {
        if (dir[i] != '/' && dir[i] != '\0')
            continue;
        dir[i] = '\0';
        if (mkdir(dir, 0777) < 0 && errno != EEXIST)
            return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "cannot write %s: cannot create %s: %s", path,
                              dir, strerror(errno));
        if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
            return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "cannot write %s: %s is not a directory", path,
                              dir);
        if (i < len)
            dir[i] = '/';
    }
    return 0;
}

int tsctl_write_file(const tsctl_ctx *ctx, const char *path, const char *data, size_t len)
{
    int fd;
    size_t done = 0;
    int rc = tsctl_make_dirs_for(ctx, path);

    if (rc != 0)
        return rc;
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
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
