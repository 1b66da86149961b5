/*
 * tsctl_suggest — `tsctl rules suggest [--run ID] [--write]` (docs/rules.md,
 * "Repeats"): the rules that would make a run's flaky names stable, learnt
 * from the run's own observations (lib/flaky/ts_flaky), printed as one rules
 * object and, with --write, merged into the project's config.json: its
 * other keys and values and their order kept, the file replaced whole
 * (temp file, fsync, rename), created when absent; a file that is not a
 * valid rules object is an error naming it and is never overwritten.
 */
#include "client/tsctl/tsctl.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/toolscore_client.h"
#include "lib/base/ts_base.h"
#include "lib/flaky/ts_flaky.h"
#include "lib/json/ts_json.h"
#include "proto/ts_proto.h"
#include "lib/rules/ts_rules.h"
#include "lib/runreport/ts_runreport.h"

/* The run's JSON report, read into a new report. 0 or an exit code. */
static int load_run(tsctl_ctx *ctx, const char *run, const char *root, ts_runreport **out)
{
    struct json_object *params = json_object_new_object();
    struct json_object *summary = NULL;
    const char *store;
    char *text = NULL;
    size_t len = 0;
    ts_error err;
    int rc;

    json_object_object_add(params, "run", json_object_new_string(run));
    rc = tsctl_call(ctx, "run.summary", params, 0, &summary);
    if (rc != 0)
        return rc;
    store = tsctl_str(summary, "store", "");
    if (strcmp(store, root) != 0) {
        rc = tsctl_fail(ctx, TSCTL_EXIT_USAGE,
                        "run %s belongs to the store %s, not %s (give --dir for its store)", run,
                        store, root);
        json_object_put(summary);
        return rc;
    }
    json_object_put(summary);
    if (ts_client_run_report(ctx->client, run, "json", &text, &len, &err) < 0)
        return tsctl_fail(ctx, tsctl_exit_for_error(&err), "cannot get the run's report: %s",
                          err.message);
    *out = ts_runreport_new();
    if (*out == NULL)
        rc = tsctl_fail(ctx, TSCTL_EXIT_FAILED, "out of memory");
    else if (ts_runreport_add_json(*out, text, len, &err) < 0)
        rc = tsctl_fail(ctx, TSCTL_EXIT_FAILED, "the run's report cannot be read: %s", err.message);
    free(text);
    if (rc != 0) {
        ts_runreport_free(*out);
        *out = NULL;
    }
    return rc;
}

/* Write text to path whole: a temp file beside it, fsynced, renamed over
 * it, with mode. 0 or an exit code. */
static int replace_file(const tsctl_ctx *ctx, const char *path, const char *text, size_t len,
                        mode_t mode)
{
    char tmp[PATH_MAX];
    size_t done = 0;
    int fd;

    if (snprintf(tmp, sizeof(tmp), "%s.tmp-XXXXXX", path) >= (int)sizeof(tmp))
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "%s: path too long", path);
    fd = mkstemp(tmp);
    if (fd < 0)
        return tsctl_fail(ctx, TSCTL_EXIT_FAILED, "cannot write %s: %s", path, strerror(errno));
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);

        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            break;
        done += (size_t)w;
    }
    if (done < len || fchmod(fd, mode) < 0 || fsync(fd) < 0 || close(fd) < 0 ||
        rename(tmp, path) < 0) {
        int e = errno;

        unlink(tmp);
        return tsctl_fail(ctx, TSCTL_EXIT_FAILED, "cannot write %s: %s", path, strerror(e));
    }
    return 0;
}

/* Merge suggestion into the project's config.json of root. */
static int write_config(const tsctl_ctx *ctx, const char *root,
                        const struct json_object *suggestion)
{
    char path[PATH_MAX], real[PATH_MAX];
    struct json_object *config = NULL;
    ts_rules *rules = NULL;
    mode_t mode = 0644;
    bool changed = false;
    struct stat st;
    ts_error err;
    ts_buf b;
    int rc = 0;

    if (ts_rules_config_path(root, path, sizeof(path)) < 0)
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "%s: path too long", root);
    /* A config.json that is a link is written where it points. */
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && realpath(path, real) != NULL)
        snprintf(path, sizeof(path), "%s", real);
    if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode))
            return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "%s is not a regular file (not changed)",
                              path);
        mode = st.st_mode & 07777;
        rc = tsctl_read_file(ctx, path, TS_RULES_FILE_MAX, &b);
        if (rc != 0)
            return rc;
        /* Only a valid rules file is changed: its errors name the line. */
        if (ts_rules_parse(b.data ? b.data : "", b.len, path, &rules, &err) < 0 ||
            ts_json_parse(b.data ? b.data : "", b.len, 0, &config, &err) < 0)
            rc = tsctl_fail(ctx, TSCTL_EXIT_USAGE, "%s (the file was not changed)", err.message);
        ts_rules_unref(rules);
        ts_buf_free(&b);
        if (rc != 0)
            return rc;
    } else if (errno == ENOENT) {
        config = json_object_new_object();
    } else {
        return tsctl_fail(ctx, TSCTL_EXIT_FAILED, "cannot read %s: %s", path, strerror(errno));
    }
    rc = ts_flaky_rules_merge(config, suggestion, &changed, &err);
    if (rc == 0)
        rc = ts_rules_from_json(config, path, &rules, &err);
    ts_rules_unref(rules);
    if (rc < 0) {
        json_object_put(config);
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "%s: %s (the file was not changed)", path,
                          err.message);
    }
    if (!changed) {
        fprintf(stderr, "tsctl rules suggest: %s already holds these rules\n", path);
        json_object_put(config);
        return 0;
    }
    ts_buf_init(&b, TS_RULES_FILE_MAX);
    rc = ts_json_write_pretty(config, &b, &err) < 0 || ts_buf_appendc(&b, '\n') < 0
             ? tsctl_fail(ctx, TSCTL_EXIT_FAILED, "cannot write %s: the rules are too large", path)
             : replace_file(ctx, path, b.data, b.len, mode);
    if (rc == 0)
        fprintf(stderr, "tsctl rules suggest: merged the rules into %s\n", path);
    ts_buf_free(&b);
    json_object_put(config);
    return rc;
}

int tsctl_cmd_rules_suggest(tsctl_ctx *ctx, int argc, char **argv)
{
    const char *run = NULL;
    bool write = false;
    const tsctl_option opts[] = {
        {"run", 0, &run, NULL},
        {"write", 0, NULL, &write},
        {NULL, 0, NULL, NULL},
    };
    struct json_object *suggestion = NULL;
    char root[TS_PATHS_MAX], last[256];
    ts_runreport *report = NULL;
    ts_flaky *flaky = NULL;
    size_t n = 0, unstable = 0;
    tsctl_args args;
    ts_error err;
    ts_buf out;
    int rc;

    rc = tsctl_parse(ctx, argc, argv, opts, 0, &args);
    if (rc == 0 && args.npos > 0)
        rc = tsctl_usage_error(ctx, "unexpected argument '%s'", args.pos[0]);
    if (rc == 0 && tsctl_store_root(ctx, root, sizeof(root)) != 0)
        rc = TSCTL_EXIT_USAGE;
    if (rc != 0)
        return rc;
    if (run == NULL && getenv("TOOLSCORE_RUN") != NULL && getenv("TOOLSCORE_RUN")[0] != '\0')
        run = getenv("TOOLSCORE_RUN");
    if (run == NULL && tsctl_last_run_load(ctx, root, last, sizeof(last)) == 0)
        run = last;
    if (run == NULL)
        return tsctl_usage_error(ctx, "needs --run ID (no run of tsctl run or tsctl record on "
                                      "this store is known)");
    rc = load_run(ctx, run, root, &report);
    if (rc == 0 && ts_flaky_report(report, &flaky, &n, &err) < 0)
        rc = tsctl_fail(ctx, TSCTL_EXIT_FAILED, "%s", err.message);
    suggestion = json_object_new_object();
    for (size_t i = 0; rc == 0 && i < n; i++) {
        fprintf(stderr, "%s\n", flaky[i].line);
        if (flaky[i].suggest == NULL) {
            unstable++;
            fprintf(stderr, "  no ignore or order rule makes %s stable\n", flaky[i].name);
        } else if (ts_flaky_rules_merge(suggestion, flaky[i].suggest, NULL, &err) < 0) {
            rc = tsctl_fail(ctx, TSCTL_EXIT_FAILED, "%s", err.message);
        }
    }
    if (rc == 0 && n == 0)
        fprintf(stderr, "tsctl rules suggest: run %s has no flaky names: nothing to suggest\n",
                run);
    else if (rc == 0)
        fprintf(stderr,
                "tsctl rules suggest: run %s: %zu flaky name%s; these rules make %s stable:\n", run,
                n, n == 1 ? "" : "s",
                unstable > 0 ? "the others"
                : n == 1     ? "it"
                             : "them");
    ts_buf_init(&out, TS_BUF_UNLIMITED);
    if (rc == 0 && (ts_json_write_pretty(suggestion, &out, &err) < 0 || ts_buf_error(&out) < 0))
        rc = tsctl_fail(ctx, TSCTL_EXIT_FAILED, "%s", err.message);
    if (rc == 0)
        printf("%s\n", out.data);
    if (rc == 0 && write && json_object_object_length(suggestion) > 0)
        rc = write_config(ctx, root, suggestion);
    ts_buf_free(&out);
    json_object_put(suggestion);
    ts_flaky_list_free(flaky, n);
    ts_runreport_free(report);
    return rc;
}
