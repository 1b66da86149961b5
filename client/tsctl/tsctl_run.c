/*
 * tsctl_run — `tsctl run -- CMD` and `tsctl record` (command and trace
 * modes): open a run on the daemon, run CMD with TOOLSCORE_RUN,
 * TOOLSCORE_SOCKET and TOOLSCORE_DIR exported so every worker joins it, then
 * close the run and print its one summary line and the names two tests
 * claimed, and write the JUnit / JSON reports (the daemon renders them,
 * run.report). Exits with CMD's exit code, except that a CMD that exits 0
 * while the run has FAILED checks, CI errors or names claimed by two tests
 * exits 1 (unless --no-fail-on-findings).
 */
#include "client/tsctl/tsctl.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/toolscore_client.h"
#include "lib/extract/ts_extract.h"
#include "proto/ts_proto.h"

/* Run CMD with the run's environment; returns its exit status (128+signal
 * when killed, 127 when it cannot be started). */
static int run_child(const tsctl_ctx *ctx, char **cmd, const char *run_id, const char *root,
                     bool record, bool update)
{
    struct sigaction ignore;
    struct sigaction old_int;
    struct sigaction old_quit;
    char socket[TS_PATHS_MAX];
    char width[16];
    pid_t pid;
    int status = 0;

    /* Workers may change directory: export the socket as an absolute path. */
    if (tsctl_socket_path(ctx)[0] == '/' || getcwd(socket, sizeof(socket) / 2) == NULL)
        snprintf(socket, sizeof(socket), "%s", tsctl_socket_path(ctx));
    else
        snprintf(socket + strlen(socket), sizeof(socket) - strlen(socket), "/%s",
                 tsctl_socket_path(ctx));
    memset(&ignore, 0, sizeof(ignore));
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ignore, &old_int);
    sigaction(SIGQUIT, &ignore, &old_quit);
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        tsctl_fail(ctx, 0, "cannot start '%s': %s", cmd[0], strerror(errno));
        status = 127;
        goto out;
    }
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        setenv("TOOLSCORE_RUN", run_id, 1);
        setenv("TOOLSCORE_SOCKET", socket, 1);
        setenv("TOOLSCORE_DIR", root, 1);
        snprintf(width, sizeof(width), "%u", tsctl_report_width());
        setenv("TOOLSCORE_REPORT_WIDTH", width, 1);
        if (ctx->no_json_diff)
            setenv("TOOLSCORE_NO_JSON_DIFF", "1", 1);
        if (record) {
            setenv("TOOLSCORE_RECORD", "1", 1);
            if (update)
                setenv("TOOLSCORE_RECORD_UPDATE", "1", 1);
        }
        execvp(cmd[0], cmd);
        fprintf(stderr, "tsctl %s: cannot run '%s': %s\n", ctx->command, cmd[0], strerror(errno));
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            status = 127 << 8;
            break;
        }
    }
    if (WIFEXITED(status))
        status = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        status = 128 + WTERMSIG(status);
out:
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    return status;
}

static size_t print_duplicates(const tsctl_ctx *ctx, const struct json_object *summary)
{
    struct json_object *dups = tsctl_get(summary, "duplicates");
    size_t n = json_object_is_type(dups, json_type_array) ? json_object_array_length(dups) : 0;

    for (size_t i = 0; i < n; i++) {
        struct json_object *d = json_object_array_get_idx(dups, i);
        struct json_object *tests = tsctl_get(d, "tests");
        size_t nt =
            json_object_is_type(tests, json_type_array) ? json_object_array_length(tests) : 0;
        const char **names = calloc(nt ? nt : 1, sizeof(char *));

        for (size_t j = 0; names != NULL && j < nt; j++)
            names[j] = json_object_get_string(json_object_array_get_idx(tests, j));
        if (names != NULL)
            tsctl_print_duplicate(ctx, tsctl_str(d, "name", "?"), names, nt);
        free(names);
    }
    return n;
}

/* A report file can be written (its missing directories made, as the
 * pytest and Node options make them): checked before the command runs. */
static int check_writable(const tsctl_ctx *ctx, const char *path)
{
    int fd;

    if (path == NULL)
        return 0;
    if (tsctl_make_dirs_for(ctx, path) != 0)
        return TSCTL_EXIT_USAGE;
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (fd < 0)
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "cannot write %s: %s", path, strerror(errno));
    close(fd);
    return 0;
}

/* Remove the report file path that could not be written whole: a report is
 * there whole or not at all. Only a regular file is removed (never
 * /dev/stdout, a FIFO, a device). */
static void discard_report(const char *path)
{
    struct stat st;

    if (path != NULL && lstat(path, &st) == 0 && S_ISREG(st.st_mode))
        unlink(path);
}

/* The report files `run` writes, by format (NULL: not asked for). */
enum { REPORT_JUNIT, REPORT_JSON, REPORT_HTML, REPORTS };
static const char *const report_formats[REPORTS] = {"junit", "json", "html"};
static const char *const report_words[REPORTS] = {"JUnit", "JSON", "HTML"};

/* The run's report in format f, written to path (whole or removed). */
static int write_run_report(tsctl_ctx *ctx, const char *run_id, int f, const char *path)
{
    char *text = NULL;
    size_t len = 0;
    ts_error err;
    int rc;

    if (path == NULL)
        return 0;
    if (ts_client_run_report(ctx->client, run_id, report_formats[f], &text, &len, &err) < 0) {
        discard_report(path);
        return tsctl_fail(ctx, tsctl_exit_for_error(&err), "cannot get the %s report: %s",
                          report_words[f], err.message);
    }
    rc = tsctl_write_file(ctx, path, text, len);
    if (rc != 0)
        discard_report(path);
    free(text);
    return rc;
}

/* The shared body of `run` and `record -- CMD`. */
static int run_command(tsctl_ctx *ctx, char **cmd, const char *const reports[REPORTS], bool record,
                       bool update, bool fail_on_findings)
{
    struct json_object *params;
    struct json_object *reply = NULL;
    struct json_object *summary = NULL;
    char root[TS_PATHS_MAX];
    char run_id[256];
    int status;
    int rc = 0;

    if (tsctl_store_root(ctx, root, sizeof(root)) != 0)
        return TSCTL_EXIT_USAGE;
    for (int f = 0; rc == 0 && f < REPORTS; f++)
        rc = check_writable(ctx, reports[f]);
    if (rc != 0)
        return rc;
    params = tsctl_store_params(ctx);
    if (params == NULL)
        return TSCTL_EXIT_USAGE;
    json_object_object_add(params, "label", json_object_new_string(cmd[0]));
    rc = tsctl_call(ctx, "run.open", params, 0, &reply);
    if (rc != 0)
        return rc;
    snprintf(run_id, sizeof(run_id), "%s", tsctl_str(reply, "run", ""));
    json_object_put(reply);
    status = run_child(ctx, cmd, run_id, root, record, update);
    params = json_object_new_object();
    json_object_object_add(params, "run", json_object_new_string(run_id));
    /* The daemon keeps runs across its restarts: this finds the run even
     * when the daemon was stopped or restarted while CMD ran. */
    rc = tsctl_call(ctx, "run.close", params, 0, &summary);
    if (rc == 0) {
        const char *line = tsctl_str(summary, "summary", "");
        struct json_object *counts = tsctl_get(summary, "counts");
        long long failed = tsctl_int(counts, "failed", 0);
        size_t dups, flaky;

        tsctl_last_run_save(ctx, root, run_id);
        if (line[0] != '\0')
            printf("%s\n", line);
        flaky = tsctl_print_flaky_lines(ctx, tsctl_get(summary, "flaky_lines"));
        dups = print_duplicates(ctx, summary);
        for (int f = 0; rc == 0 && f < REPORTS; f++)
            rc = write_run_report(ctx, run_id, f, reports[f]);
        /* A green command does not hide a red snapshot. */
        if (rc == 0 && status == 0 && fail_on_findings &&
            tsctl_findings(failed, (long long)dups, (long long)flaky)) {
            fprintf(stderr,
                    "tsctl %s: the command passed, but the run %s (exit 1; "
                    "--no-fail-on-findings keeps the command's status)\n",
                    ctx->command, tsctl_findings_why(failed, (long long)dups, (long long)flaky));
            status = TSCTL_EXIT_FAILED;
        }
    } else {
        for (int f = 0; f < REPORTS; f++)
            discard_report(reports[f]);
    }
    if (status != 0 || rc == 0)
        rc = status;
    json_object_put(summary);
    return rc;
}

int tsctl_cmd_run(tsctl_ctx *ctx, int argc, char **argv)
{
    const char *reports[REPORTS] = {NULL, NULL, NULL};
    bool no_fail = false;
    const tsctl_option opts[] = {
        {"junit", 0, &reports[REPORT_JUNIT], NULL},
        {"json-report", 0, &reports[REPORT_JSON], NULL},
        {"html", 0, &reports[REPORT_HTML], NULL},
        {"no-fail-on-findings", 0, NULL, &no_fail},
        {"no-json-diff", 0, NULL, &ctx->no_json_diff},
        {NULL, 0, NULL, NULL},
    };
    tsctl_args args;
    int rc;

    rc = tsctl_parse(ctx, argc, argv, opts, TSCTL_PARSE_COMMAND, &args);
    if (rc != 0)
        return rc;
    if (args.npos != 0)
        return tsctl_usage_error(ctx, "unexpected argument '%s' (put the command after --)",
                                 args.pos[0]);
    if (!args.dashdash || args.nrest == 0)
        return tsctl_usage_error(ctx, "missing the command to run after --");
    return run_command(ctx, args.rest, reports, false, false, !no_fail);
}

/* `tsctl record --from-trace FILE --name NAME [--format F] [--update]`. */
static int record_trace(tsctl_ctx *ctx, const char *trace, const char *name, const char *format,
                        bool update)
{
    struct json_object *doc = NULL;
    struct json_object *calls = NULL;
    struct json_object *reply = NULL;
    char root[TS_PATHS_MAX];
    ts_error err;
    int rc;

    rc = tsctl_check_format(ctx, format);
    if (rc == 0)
        rc = tsctl_store_root(ctx, root, sizeof(root));
    if (rc == 0)
        rc = tsctl_read_json(ctx, trace, &doc);
    if (rc != 0)
        return rc;
    rc = ts_extract(doc, format, TS_EXTRACT_FILE, &calls, &err);
    json_object_put(doc);
    if (rc == 0) {
        /* a recorded trace is a concrete observation: {"tool", "args"} only */
        struct json_object *raw = calls;
        rc = ts_extract_normalize(raw, &calls, &err);
        json_object_put(raw);
    }
    if (rc < 0)
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "%s: %s", trace, err.message);
    rc = tsctl_call_record(ctx, name, calls, "trace", update, TSCTL_CALL_QUIET, &reply);
    if (rc != 0) {
        if (strcmp(ctx->last_error.code, "exists") == 0)
            return tsctl_fail(ctx, TSCTL_EXIT_FAILED,
                              "snapshot '%s' already exists; use --update to overwrite it", name);
        return tsctl_fail(ctx, rc, "%s", ctx->last_error.message);
    }
    if (ctx->json) {
        rc = tsctl_print_json(ctx, reply);
    } else if (strcmp(tsctl_str(reply, "outcome", ""), "UPDATED") == 0 &&
               tsctl_get(reply, "written") != NULL && !tsctl_bool(reply, "written")) {
        printf("snapshot '%s' unchanged: the calls of %s are already its approved ones: %s\n", name,
               trace, tsctl_str(reply, "file", "?"));
    } else if (strcmp(tsctl_str(reply, "outcome", ""), "UPDATED") == 0) {
        printf("snapshot '%s' updated from %s (calls overwritten and approved): %s\n", name, trace,
               tsctl_str(reply, "file", "?"));
    } else {
        printf("snapshot '%s' recorded from %s (pending approval): %s\n"
               "Review it, then approve with `",
               name, trace, tsctl_str(reply, "file", "?"));
        tsctl_print_command(stdout, "tsctl approve", name);
        printf("`.\n");
    }
    json_object_put(reply);
    return rc;
}

int tsctl_cmd_record(tsctl_ctx *ctx, int argc, char **argv)
{
    const char *trace = NULL;
    const char *name = NULL;
    const char *format = NULL;
    bool update = false;
    const tsctl_option opts[] = {
        {"from-trace", 0, &trace, NULL},
        {"name", 0, &name, NULL},
        {"format", 0, &format, NULL},
        {"update", 0, NULL, &update},
        {"no-json-diff", 0, NULL, &ctx->no_json_diff},
        {NULL, 0, NULL, NULL},
    };
    tsctl_args args;
    bool command;
    int rc;

    rc = tsctl_parse(ctx, argc, argv, opts, TSCTL_PARSE_COMMAND | TSCTL_PARSE_JSON, &args);
    if (rc != 0)
        return rc;
    if (args.npos != 0)
        return tsctl_usage_error(ctx, "unexpected argument '%s' (put the command after --)",
                                 args.pos[0]);
    command = args.dashdash && args.nrest > 0;
    if (trace != NULL && command)
        return tsctl_usage_error(ctx, "give either --from-trace FILE or -- CMD, not both");
    if (trace == NULL && !command)
        return tsctl_usage_error(ctx, "expected -- CMD [ARGS...] or --from-trace FILE --name NAME");
    if (trace != NULL && name == NULL)
        return tsctl_usage_error(ctx, "--from-trace needs --name NAME");
    if (trace == NULL && (name != NULL || format != NULL))
        return tsctl_usage_error(ctx, "--name and --format only go with --from-trace");
    if (trace != NULL)
        return record_trace(ctx, trace, name, format, update);
    if (ctx->json)
        return tsctl_usage_error(ctx, "--json only goes with --from-trace");
    return run_command(ctx, args.rest, (const char *const[REPORTS]){NULL, NULL, NULL}, true, update,
                       true);
}
