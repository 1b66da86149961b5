/*
 * tsctl_conn — tsctl's side of the daemon connection: connecting through the
 * client library (with auto-start), one request at a time with the exit
 * code its failure maps to, the store parameter every store request
 * carries, and small accessors for reply fields.
 */
#include "client/tsctl/tsctl.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/toolscore_client.h"
#include "lib/snapshot/ts_snapshot.h"
#include "proto/ts_proto.h"
#include "lib/store/ts_store.h"
#include "ts_version.h"

bool tsctl_interactive(void)
{
    return isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1;
}

struct json_object *tsctl_get(const struct json_object *obj, const char *key)
{
    struct json_object *v = NULL;

    if (!json_object_is_type(obj, json_type_object))
        return NULL;
    json_object_object_get_ex(obj, key, &v);
    return v;
}

const char *tsctl_str(const struct json_object *obj, const char *key, const char *fallback)
{
    struct json_object *v = tsctl_get(obj, key);

    return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : fallback;
}

long long tsctl_int(const struct json_object *obj, const char *key, long long fallback)
{
    struct json_object *v = tsctl_get(obj, key);

    if (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double))
        return (long long)json_object_get_int64(v);
    return fallback;
}

bool tsctl_bool(const struct json_object *obj, const char *key)
{
    struct json_object *v = tsctl_get(obj, key);

    return json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

int tsctl_root_choice(const tsctl_ctx *ctx, char *out, size_t outsz, char *why, size_t whysz)
{
    const char *given = ctx->dir != NULL ? ctx->dir : ctx->dir_env;
    ts_project_root found;
    ts_error err;

    if (given != NULL) {
        if (why != NULL)
            snprintf(why, whysz, "%s", ctx->dir != NULL ? "given with --dir" : "$TOOLSCORE_DIR");
        if (snprintf(out, outsz, "%s", given) >= (int)outsz)
            return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "snapshot root path too long");
        return 0;
    }
    if (ts_project_find_root(NULL, &found, &err) < 0)
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "cannot find the snapshot root: %s", err.message);
    if (why != NULL)
        ts_project_describe(&found, why, whysz);
    /* under the current directory itself: said as the old default was */
    if (strcmp(found.base, found.start) == 0)
        snprintf(found.root, sizeof(found.root), "%s", TS_PROJECT_DIR);
    if (snprintf(out, outsz, "%s", found.root) >= (int)outsz)
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "snapshot root path too long");
    return 0;
}

int tsctl_store_root(const tsctl_ctx *ctx, char *out, size_t outsz)
{
    char dir[TS_PATHS_MAX];
    struct stat st;
    ts_error err;
    int rc = tsctl_root_choice(ctx, dir, sizeof(dir), NULL, 0);

    if (rc != 0)
        return rc;
    if (ts_paths_resolve(dir, out, outsz, &err) < 0)
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "invalid snapshot root '%s': %s", dir,
                          err.message);
    /* An absent root is fine (created on the first write); a file is not. */
    if (stat(out, &st) == 0 && !S_ISDIR(st.st_mode))
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "invalid snapshot root '%s': not a directory",
                          dir);
    return 0;
}

/* path said relative to the current directory when it is below it. */
static const char *below_cwd(const char *path, const char *cwd)
{
    size_t n = strlen(cwd);

    if (strcmp(cwd, "/") != 0 && strncmp(path, cwd, n) == 0 && path[n] == '/')
        return path + n + 1;
    return path;
}

int tsctl_need_store(const tsctl_ctx *ctx)
{
    char dir[TS_PATHS_MAX], root[TS_PATHS_MAX], why[TS_PATHS_MAX + 128];
    ts_project_stores others = {0};
    ts_project_root found;
    struct stat st;
    ts_error err;
    int rc = tsctl_root_choice(ctx, dir, sizeof(dir), why, sizeof(why));

    if (rc == 0)
        rc = tsctl_store_root(ctx, root, sizeof(root));
    if (rc != 0 || stat(root, &st) == 0)
        return rc;
    fprintf(stderr, "tsctl %s: no snapshot store at %s (%s): no snapshot was recorded there\n",
            ctx->command, root, why);
    /* where the walk began (no --dir, no TOOLSCORE_DIR): stores below it */
    if (ctx->dir == NULL && ctx->dir_env == NULL && ts_project_find_root(NULL, &found, &err) == 0 &&
        ts_project_stores_below(found.base, 8, &others, &err) == 0 && others.n > 0) {
        fprintf(stderr, "  snapshot stores below %s:\n", found.base);
        for (size_t i = 0; i < others.n; i++)
            fprintf(stderr, "    %s\n", below_cwd(others.paths[i], found.start));
        if (others.more)
            fprintf(stderr, "    ... (more)\n");
        fprintf(stderr, "  run tsctl in the project of the one you mean, or give --dir PATH\n");
    } else {
        fprintf(stderr, "  run tsctl in the project whose tests record snapshots, or give "
                        "--dir PATH\n");
    }
    ts_project_stores_free(&others);
    return TSCTL_EXIT_FAILED;
}

struct json_object *tsctl_store_params(const tsctl_ctx *ctx)
{
    char root[TS_PATHS_MAX];
    struct json_object *params;

    if (tsctl_store_root(ctx, root, sizeof(root)) != 0)
        return NULL;
    params = json_object_new_object();
    if (params != NULL)
        json_object_object_add(params, "store", json_object_new_string(root));
    return params;
}

/* Remember the socket path in use (for messages, exports and stop). */
static void note_socket(tsctl_ctx *ctx)
{
    ts_error err;

    if (ctx->client != NULL)
        snprintf(ctx->socket_path, sizeof(ctx->socket_path), "%s",
                 ts_client_socket_path(ctx->client));
    else if (ctx->socket != NULL)
        snprintf(ctx->socket_path, sizeof(ctx->socket_path), "%s", ctx->socket);
    else if (ts_client_default_socket(ctx->socket_path, sizeof(ctx->socket_path), &err) < 0)
        snprintf(ctx->socket_path, sizeof(ctx->socket_path), "(default socket)");
}

const char *tsctl_socket_path(const tsctl_ctx *ctx)
{
    /* where the connection is now: store_busy may have moved it */
    return ctx->client != NULL ? ts_client_socket_path(ctx->client) : ctx->socket_path;
}

/* Print the unreachable message (naming the socket) and return exit 3. */
static int unreachable(tsctl_ctx *ctx, const ts_error *err, bool quiet)
{
    ctx->unreachable = true;
    /* a daemon that did not answer within the deadline is not asked again
     * in this command (each ask would wait as long) */
    if (strcmp(err->code, TS_CLIENT_ERR_TIMEOUT) == 0 && !ctx->timed_out) {
        ctx->timed_out = true;
        ctx->timeout_error = *err;
    }
    if (strstr(err->message, ctx->socket_path) != NULL)
        ts_error_set(&ctx->last_error, 0, err->code, "cannot reach the daemon: %s", err->message);
    else
        ts_error_set(&ctx->last_error, 0, err->code, "cannot reach the daemon at %s: %s",
                     ctx->socket_path, err->message);
    if (!quiet)
        tsctl_fail(ctx, TSCTL_EXIT_UNREACHABLE, "%s", ctx->last_error.message);
    return TSCTL_EXIT_UNREACHABLE;
}

/* Say once that the daemon is another build than this tsctl (one a client
 * started and that was idle was replaced already: docs/packaging.md). */
static void note_other_build(tsctl_ctx *ctx)
{
    const char *theirs = ts_client_server_version(ctx->client);

    if (ctx->build_noted || theirs == NULL || strcmp(theirs, TS_VERSION) == 0)
        return;
    ctx->build_noted = true;
    fprintf(stderr,
            "%snote:%s the daemon at %s is toolscored %s, this tsctl is %s (another build; "
            "`tsctl stop` lets the next command start this build's)\n",
            tsctl_c(ctx->color_err, TSCTL_YELLOW), tsctl_c(ctx->color_err, TSCTL_RESET),
            ctx->socket_path, theirs, TS_VERSION);
}

static int connect_daemon(tsctl_ctx *ctx, bool autostart, bool quiet)
{
    ts_client_options opt;
    ts_error err;

    if (ctx->client != NULL)
        return 0;
    if (ctx->timed_out)
        return unreachable(ctx, &ctx->timeout_error, quiet);
    ts_client_options_init(&opt);
    opt.socket_path = ctx->socket;
    opt.client_name = "tsctl/" TS_VERSION;
    opt.autostart = autostart;
    note_socket(ctx);
    if (ts_client_connect(&opt, &ctx->client, &err) < 0) {
        ctx->client = NULL;
        return unreachable(ctx, &err, quiet);
    }
    note_socket(ctx);
    note_other_build(ctx);
    return 0;
}

void tsctl_disconnect(tsctl_ctx *ctx)
{
    const char *started = ctx->client != NULL ? ts_client_started_elsewhere(ctx->client) : NULL;

    if (started != NULL)
        fprintf(stderr,
                "tsctl: note: no daemon answered at %s, so one was started there; but the store "
                "is served by the daemon at %s, which answered instead, and the one started was "
                "stopped (a mistyped --socket or TOOLSCORE_SOCKET?)\n",
                started, ts_client_socket_path(ctx->client));
    ts_client_close(ctx->client);
    ctx->client = NULL;
}

/* Connect for a request (ctx->last_error cleared): 0 or the exit code. */
static int call_start(tsctl_ctx *ctx, int flags)
{
    ts_error_clear(&ctx->last_error);
    ctx->unreachable = false;
    return connect_daemon(ctx, (flags & TSCTL_CALL_NO_AUTOSTART) == 0,
                          (flags & TSCTL_CALL_QUIET) != 0);
}

/* A request's return rc (err with it) as tsctl's exit code, said unless
 * quiet. */
static int call_end(tsctl_ctx *ctx, int rc, const ts_error *err, int flags)
{
    bool quiet = (flags & TSCTL_CALL_QUIET) != 0;
    int code;

    if (rc == 0)
        return 0;
    if (ts_client_error_is_connection(err))
        return unreachable(ctx, err, quiet);
    ctx->last_error = *err;
    code = tsctl_exit_for_error(err);
    if (!quiet)
        tsctl_fail(ctx, code, "%s", err->message);
    return code;
}

int tsctl_call(tsctl_ctx *ctx, const char *method, struct json_object *params, int flags,
               struct json_object **result)
{
    ts_error err;
    int rc;

    *result = NULL;
    rc = call_start(ctx, flags);
    if (rc != 0) {
        json_object_put(params);
        return rc;
    }
    rc = ts_client_call(ctx->client, method, params, result, &err);
    json_object_put(params);
    return call_end(ctx, rc, &err, flags);
}

int tsctl_call_check(tsctl_ctx *ctx, const ts_check_args *args, struct json_object **result)
{
    ts_error err;
    int rc;

    *result = NULL;
    rc = call_start(ctx, 0);
    if (rc != 0)
        return rc;
    rc = ts_client_check(ctx->client, args, result, &err);
    return call_end(ctx, rc, &err, 0);
}

int tsctl_call_name(tsctl_ctx *ctx, const char *method, const char *name, int flags,
                    struct json_object **result)
{
    struct json_object *params = tsctl_store_params(ctx);

    *result = NULL;
    if (params == NULL)
        return TSCTL_EXIT_USAGE;
    json_object_object_add(params, "name", json_object_new_string(name));
    return tsctl_call(ctx, method, params, flags, result);
}

int tsctl_call_record(tsctl_ctx *ctx, const char *name, struct json_object *calls,
                      const char *source, bool update, int flags, struct json_object **result)
{
    struct json_object *params = tsctl_store_params(ctx);

    *result = NULL;
    if (params == NULL) {
        json_object_put(calls);
        return TSCTL_EXIT_USAGE;
    }
    json_object_object_add(params, "name", json_object_new_string(name));
    json_object_object_add(params, "calls", calls);
    json_object_object_add(params, "source", json_object_new_string(source));
    json_object_object_add(params, "update", json_object_new_boolean(update));
    json_object_object_add(params, "format", json_object_new_string("calls"));
    return tsctl_call(ctx, "record", params, flags, result);
}

int tsctl_call_approve(tsctl_ctx *ctx, char *const *names, int count, bool all,
                       struct json_object **result)
{
    struct json_object *params = tsctl_store_params(ctx);
    struct json_object *list;
    int i;

    *result = NULL;
    if (params == NULL)
        return TSCTL_EXIT_USAGE;
    if (all) {
        json_object_object_add(params, "all", json_object_new_boolean(true));
    } else {
        list = json_object_new_array();
        for (i = 0; i < count; i++)
            json_object_array_add(list, json_object_new_string(names[i]));
        json_object_object_add(params, "names", list);
    }
    return tsctl_call(ctx, "approve", params, 0, result);
}

int tsctl_call_decide(tsctl_ctx *ctx, const char *method, char *const *names, int count, bool all,
                      const char *run, struct json_object **result)
{
    struct json_object *params = tsctl_store_params(ctx);
    struct json_object *list;

    *result = NULL;
    if (params == NULL)
        return TSCTL_EXIT_USAGE;
    if (all) {
        json_object_object_add(params, "all", json_object_new_boolean(true));
        if (run != NULL)
            json_object_object_add(params, "run", json_object_new_string(run));
    } else {
        list = json_object_new_array();
        for (int i = 0; i < count; i++)
            json_object_array_add(list, json_object_new_string(names[i]));
        json_object_object_add(params, "names", list);
    }
    json_object_object_add(params, "color", json_object_new_boolean(ctx->color_out));
    json_object_object_add(params, "width", json_object_new_int64(tsctl_report_width()));
    return tsctl_call(ctx, method, params, 0, result);
}

/* The file remembering the last run closed on root: beside the socket (a
 * directory only we can write), named after the root's hash. */
static int last_run_path(const tsctl_ctx *ctx, const char *root, char *out, size_t outsz)
{
    const char *slash = strrchr(ctx->socket_path, '/');
    char hash[9];
    int n;

    if (slash == NULL)
        return -ENOENT;
    ts_name_hash8(root, strlen(root), hash);
    n = snprintf(out, outsz, "%.*s/last-run-%s", (int)(slash - ctx->socket_path), ctx->socket_path,
                 hash);
    return n > 0 && (size_t)n < outsz ? 0 : -ENAMETOOLONG;
}

void tsctl_last_run_save(const tsctl_ctx *ctx, const char *root, const char *run)
{
    char path[TS_PATHS_MAX];
    char tmp[TS_PATHS_MAX + 16];
    FILE *f;

    if (last_run_path(ctx, root, path, sizeof(path)) < 0)
        return;
    snprintf(tmp, sizeof(tmp), "%s.%ld", path, (long)getpid());
    f = fopen(tmp, "we");
    if (f == NULL)
        return;
    fprintf(f, "%s\n", run);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        unlink(tmp);
}

int tsctl_last_run_load(tsctl_ctx *ctx, const char *root, char *out, size_t outsz)
{
    char path[TS_PATHS_MAX];
    FILE *f;
    bool ok;

    if (ctx->socket_path[0] == '\0')
        note_socket(ctx);
    if (last_run_path(ctx, root, path, sizeof(path)) < 0)
        return -ENOENT;
    f = fopen(path, "re");
    if (f == NULL)
        return -ENOENT;
    ok = fgets(out, (int)outsz, f) != NULL;
    fclose(f);
    if (!ok)
        return -ENOENT;
    out[strcspn(out, "\r\n")] = '\0';
    return out[0] != '\0' ? 0 : -ENOENT;
}
