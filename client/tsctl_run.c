/*
 * tsctl_run — `tsctl run -- CMD` and `tsctl record` (command and trace
 * modes): open a run on the daemon, run CMD with TOOLSCORE_RUN,
 * TOOLSCORE_SOCKET and TOOLSCORE_DIR exported so every worker joins it, then
 * close the run and print its one summary line, the names two tests claimed,
 * and write the JUnit / JSON reports. Exits with CMD's exit code.
 */
#include "tsctl.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ts_buf.h"
#include "ts_json.h"
#include "ts_paths.h"

/* Append s XML-escaped: markup characters as entities, ANSI colour
 * sequences dropped, characters XML 1.0 forbids replaced by U+FFFD. */
static void xml_escape(ts_buf *b, const char *s)
{
    for (; s != NULL && *s; s++) {
        unsigned char ch = (unsigned char)*s;

        if (ch == 0x1b && s[1] == '[') {
            s += 2;
            while (*s && !((*s >= '@' && *s <= '~')))
                s++;
            if (*s == '\0')
                return;
            continue;
        }
        switch (ch) {
        case '&':
            ts_buf_appends(b, "&amp;");
            break;
        case '<':
            ts_buf_appends(b, "&lt;");
            break;
        case '>':
            ts_buf_appends(b, "&gt;");
            break;
        case '"':
            ts_buf_appends(b, "&quot;");
            break;
        case '\'':
            ts_buf_appends(b, "&apos;");
            break;
        default:
            if (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r')
                ts_buf_appends(b, "\xEF\xBF\xBD");
            else
                ts_buf_appendc(b, (char)ch);
        }
    }
}

static bool outcome_failed(const char *outcome)
{
    return strcmp(outcome, "FAILED") == 0 || strncmp(outcome, "ERROR_", 6) == 0;
}

/* The JUnit XML of a run summary, one testcase per check: 0, or the
 * buffer's error (then b holds nothing). */
static int junit_xml(const struct json_object *summary, ts_buf *b)
{
    struct json_object *checks = tsctl_get(summary, "checks");
    size_t n = json_object_is_type(checks, json_type_array) ? json_object_array_length(checks) : 0;
    size_t failures = 0;
    double total = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        struct json_object *c = json_object_array_get_idx(checks, i);

        if (outcome_failed(tsctl_str(c, "outcome", "")))
            failures++;
        total += (double)tsctl_int(c, "duration_ms", 0) / 1000.0;
    }
    ts_buf_appends(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    ts_buf_appendf(b,
                   "<testsuites name=\"toolscore\" tests=\"%zu\" failures=\"%zu\" "
                   "errors=\"0\" time=\"%.3f\">\n",
                   n, failures, total);
    ts_buf_appendf(b,
                   "  <testsuite name=\"toolscore snapshots\" tests=\"%zu\" failures=\"%zu\" "
                   "errors=\"0\" skipped=\"0\" time=\"%.3f\">\n",
                   n, failures, total);
    for (i = 0; i < n; i++) {
        struct json_object *c = json_object_array_get_idx(checks, i);
        const char *outcome = tsctl_str(c, "outcome", "?");
        const char *test = tsctl_str(c, "test", NULL);
        const char *report = tsctl_str(c, "report", NULL);

        ts_buf_appends(b, "    <testcase classname=\"");
        xml_escape(b, test && test[0] ? test : "toolscore");
        ts_buf_appends(b, "\" name=\"");
        xml_escape(b, tsctl_str(c, "name", "?"));
        ts_buf_appendf(b, "\" time=\"%.3f\">\n", (double)tsctl_int(c, "duration_ms", 0) / 1000.0);
        if (outcome_failed(outcome)) {
            ts_buf_appends(b, "      <failure type=\"");
            xml_escape(b, outcome);
            ts_buf_appends(b, "\" message=\"");
            xml_escape(b, tsctl_str(c, "message", outcome));
            ts_buf_appends(b, "\">");
            xml_escape(b, report && report[0] ? report : tsctl_str(c, "message", outcome));
            ts_buf_appends(b, "</failure>\n");
        } else {
            ts_buf_appends(b, "      <system-out>");
            xml_escape(b, outcome);
            if (tsctl_str(c, "message", "")[0] != '\0') {
                ts_buf_appends(b, ": ");
                xml_escape(b, tsctl_str(c, "message", ""));
            }
            ts_buf_appends(b, "</system-out>\n");
        }
        ts_buf_appends(b, "    </testcase>\n");
    }
    ts_buf_appends(b, "  </testsuite>\n</testsuites>\n");
    return ts_buf_error(b);
}

/* Close the report file f that could not be written whole, removing it
 * when it is a regular file: a report is there whole or not at all. */
static void discard_report(FILE *f, const char *path)
{
    struct stat st;

    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode))
        unlink(path);
    fclose(f);
}

/* Write the report in b (built by its writer, which may have failed) to
 * the already opened report file f. 0 or an exit code. */
static int write_report(const tsctl_ctx *ctx, FILE *f, const char *path, const char *what,
                        const ts_buf *b)
{
    int saved;

    if (ts_buf_error(b) < 0) {
        discard_report(f, path);
        return tsctl_fail(ctx, TSCTL_EXIT_FAILED, "cannot format the %s report: %s", what,
                          strerror(-ts_buf_error(b)));
    }
    if (fwrite(b->data, 1, b->len, f) != b->len || fflush(f) != 0) {
        saved = errno;
        discard_report(f, path);
        return tsctl_fail(ctx, TSCTL_EXIT_FAILED, "cannot write %s: %s", path, strerror(saved));
    }
    if (fclose(f) != 0)
        return tsctl_fail(ctx, TSCTL_EXIT_FAILED, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

static int write_reports(const tsctl_ctx *ctx, const struct json_object *summary, FILE *junit,
                         const char *junit_path, FILE *json, const char *json_path)
{
    ts_buf b;
    int rc = 0;

    if (junit != NULL) {
        ts_buf_init(&b, TS_BUF_UNLIMITED);
        junit_xml(summary, &b);
        rc = write_report(ctx, junit, junit_path, "JUnit", &b);
        ts_buf_free(&b);
    }
    if (json != NULL) {
        int rc2;

        ts_buf_init(&b, TS_BUF_UNLIMITED);
        if (ts_json_write_pretty(summary, &b, NULL) < 0)
            ts_buf_fail(&b, -EINVAL); /* the daemon's summary is JSON: not reached */
        ts_buf_appendc(&b, '\n');
        rc2 = write_report(ctx, json, json_path, "JSON", &b);
        ts_buf_free(&b);
        if (rc == 0)
            rc = rc2;
    }
    return rc;
}

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

static void print_duplicates(const tsctl_ctx *ctx, const struct json_object *summary)
{
    struct json_object *dups = tsctl_get(summary, "duplicates");
    size_t i;
    size_t j;

    if (!json_object_is_type(dups, json_type_array))
        return;
    for (i = 0; i < json_object_array_length(dups); i++) {
        struct json_object *d = json_object_array_get_idx(dups, i);
        struct json_object *tests = tsctl_get(d, "tests");

        printf("%stoolscore: error:%s snapshot '%s' was claimed by more than one test:",
               tsctl_c(ctx->color_out, TSCTL_RED), tsctl_c(ctx->color_out, TSCTL_RESET),
               tsctl_str(d, "name", "?"));
        for (j = 0;
             json_object_is_type(tests, json_type_array) && j < json_object_array_length(tests);
             j++)
            printf("%s %s", j ? "," : "",
                   json_object_get_string(json_object_array_get_idx(tests, j)));
        printf("\n");
    }
}

static FILE *open_report(const tsctl_ctx *ctx, const char *path, int *rc)
{
    FILE *f;

    if (path == NULL)
        return NULL;
    f = fopen(path, "we");
    if (f == NULL)
        *rc = tsctl_fail(ctx, TSCTL_EXIT_USAGE, "cannot write %s: %s", path, strerror(errno));
    return f;
}

/* The shared body of `run` and `record -- CMD`. */
static int run_command(tsctl_ctx *ctx, char **cmd, const char *junit_path, const char *json_path,
                       bool record, bool update)
{
    struct json_object *params;
    struct json_object *reply = NULL;
    struct json_object *summary = NULL;
    FILE *junit = NULL;
    FILE *json = NULL;
    char root[TS_PATHS_MAX];
    char run_id[256];
    int status;
    int rc = 0;

    if (tsctl_store_root(ctx, root, sizeof(root)) != 0)
        return TSCTL_EXIT_USAGE;
    junit = open_report(ctx, junit_path, &rc);
    if (rc == 0)
        json = open_report(ctx, json_path, &rc);
    if (rc != 0)
        goto out;
    params = tsctl_store_params(ctx);
    if (params == NULL) {
        rc = TSCTL_EXIT_USAGE;
        goto out;
    }
    json_object_object_add(params, "label", json_object_new_string(cmd[0]));
    rc = tsctl_call(ctx, "run.open", params, 0, &reply);
    if (rc != 0)
        goto out;
    snprintf(run_id, sizeof(run_id), "%s", tsctl_str(reply, "run", ""));
    json_object_put(reply);
    reply = NULL;
    status = run_child(ctx, cmd, run_id, root, record, update);
    params = json_object_new_object();
    json_object_object_add(params, "run", json_object_new_string(run_id));
    rc = tsctl_call(ctx, "run.close", params, 0, &summary);
    if (rc == 0) {
        tsctl_last_run_save(ctx, root, run_id);
        const char *line = tsctl_str(summary, "summary", "");

        if (line[0] != '\0')
            printf("%s\n", line);
        print_duplicates(ctx, summary);
        rc = write_reports(ctx, summary, junit, junit_path, json, json_path);
        junit = json = NULL;
    }
    if (status != 0 || rc == 0)
        rc = status;
out:
    if (junit != NULL)
        fclose(junit);
    if (json != NULL)
        fclose(json);
    json_object_put(summary);
    return rc;
}

int tsctl_cmd_run(tsctl_ctx *ctx, int argc, char **argv)
{
    const char *junit = NULL;
    const char *json = NULL;
    const tsctl_option opts[] = {
        {"junit", 0, &junit, NULL},
        {"json-report", 0, &json, NULL},
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
    return run_command(ctx, args.rest, junit, json, false, false);
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
        return tsctl_record_trace(ctx, trace, name, format, update);
    if (ctx->json)
        return tsctl_usage_error(ctx, "--json only goes with --from-trace");
    return run_command(ctx, args.rest, NULL, NULL, true, update);
}
