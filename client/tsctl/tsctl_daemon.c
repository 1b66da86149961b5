/*
 * tsctl_daemon — `tsctl status` and `tsctl stop`: the commands about the
 * daemon itself. Neither starts a daemon: no daemon answering is exit 3.
 */
#include "client/tsctl/tsctl.h"

#include <errno.h>
#include <sys/stat.h>
#include <time.h>

#include "client/toolscore_client.h"
#include "proto/ts_proto.h"
#include "ts_version.h"

static void print_uptime(long long s)
{
    if (s >= 86400)
        printf("%lldd %lldh %lldm\n", s / 86400, s % 86400 / 3600, s % 3600 / 60);
    else if (s >= 3600)
        printf("%lldh %lldm %llds\n", s / 3600, s % 3600 / 60, s % 60);
    else if (s >= 60)
        printf("%lldm %llds\n", s / 60, s % 60);
    else
        printf("%llds\n", s);
}

/* The store check of status: list the snapshot root (--dir) when it exists
 * and gather the files in it that are not readable snapshots. Returns
 * {root, snapshots, problems: [{file, message}]} or NULL when there is no
 * root to check or the daemon refuses it (a --store daemon, another root). */
static struct json_object *store_check(tsctl_ctx *ctx)
{
    char root[TS_PATHS_MAX];
    struct json_object *params;
    struct json_object *result = NULL;
    struct json_object *check;
    struct json_object *problems;
    struct json_object *list;
    struct stat st;

    if (tsctl_store_root(ctx, root, sizeof(root)) != 0)
        return NULL;
    if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode))
        return NULL;
    params = json_object_new_object();
    if (params == NULL)
        return NULL;
    json_object_object_add(params, "store", json_object_new_string(root));
    /* One page is enough: the problems come with the first, `total` counts
     * all (and a small store leaves no listing open in the daemon). */
    json_object_object_add(params, "limit", json_object_new_int64(TS_CLIENT_LIST_PAGE));
    if (tsctl_call(ctx, "list", params, TSCTL_CALL_QUIET | TSCTL_CALL_NO_AUTOSTART, &result) != 0)
        return NULL;
    list = tsctl_get(result, "snapshots");
    problems = tsctl_get(result, "problems");
    check = json_object_new_object();
    if (check != NULL) {
        json_object_object_add(check, "root", json_object_new_string(root));
        json_object_object_add(
            check, "snapshots",
            json_object_new_int64(tsctl_int(result, "total",
                                            json_object_is_type(list, json_type_array)
                                                ? (long long)json_object_array_length(list)
                                                : 0)));
        json_object_object_add(check, "problems",
                               json_object_is_type(problems, json_type_array)
                                   ? json_object_get(problems)
                                   : json_object_new_array());
    }
    json_object_put(result);
    return check;
}

static void print_store_check(const tsctl_ctx *ctx, struct json_object *check)
{
    struct json_object *problems = tsctl_get(check, "problems");
    long long n = tsctl_int(check, "snapshots", 0);
    size_t np = json_object_array_length(problems);
    size_t i;

    printf("  store:            %s: %lld snapshot%s", tsctl_str(check, "root", "?"), n,
           n == 1 ? "" : "s");
    if (np > 0)
        printf(", %s%zu unreadable file%s%s", tsctl_c(ctx->color_out, TSCTL_YELLOW), np,
               np == 1 ? "" : "s", tsctl_c(ctx->color_out, TSCTL_RESET));
    printf("\n");
    for (i = 0; i < np; i++)
        printf("  unreadable:       %s\n",
               tsctl_str(json_object_array_get_idx(problems, i), "message", "?"));
}

/* {path, why}: the snapshot root this command uses and why, or NULL. */
static struct json_object *root_choice(const tsctl_ctx *ctx)
{
    char dir[TS_PATHS_MAX];
    char root[TS_PATHS_MAX];
    char why[TS_PATHS_MAX + 128];
    struct json_object *o;

    if (tsctl_root_choice(ctx, dir, sizeof(dir), why, sizeof(why)) != 0 ||
        tsctl_store_root(ctx, root, sizeof(root)) != 0)
        return NULL;
    o = json_object_new_object();
    if (o != NULL) {
        json_object_object_add(o, "path", json_object_new_string(root));
        json_object_object_add(o, "why", json_object_new_string(why));
    }
    return o;
}

/* Stores other users can write: a warning line each. */
static void print_exposed(const tsctl_ctx *ctx, struct json_object *exposed)
{
    size_t n =
        json_object_is_type(exposed, json_type_array) ? json_object_array_length(exposed) : 0;

    for (size_t i = 0; i < n; i++)
        printf("  %swarning:%s          %s: other users can plant or replace its snapshots\n",
               tsctl_c(ctx->color_out, TSCTL_YELLOW), tsctl_c(ctx->color_out, TSCTL_RESET),
               tsctl_str(json_object_array_get_idx(exposed, i), "problem", "?"));
}

int tsctl_cmd_status(tsctl_ctx *ctx, int argc, char **argv)
{
    struct json_object *root;
    struct json_object *check;
    struct json_object *result = NULL;
    tsctl_args args;
    bool c = ctx->color_out;
    int rc;

    rc = tsctl_parse(ctx, argc, argv, NULL, TSCTL_PARSE_JSON, &args);
    if (rc == 0)
        rc = tsctl_want_args(ctx, &args, 0, NULL);
    if (rc != 0)
        return rc;
    ctx->build_noted = true; /* status shows both versions itself */
    /* the store first, so that the daemon has it open when it says which
     * open stores other users can write */
    check = store_check(ctx);
    rc = tsctl_call(ctx, "status", json_object_new_object(), TSCTL_CALL_NO_AUTOSTART, &result);
    if (rc != 0) {
        json_object_put(check);
        return rc;
    }
    root = root_choice(ctx);
    if (ctx->json) {
        json_object_object_add(result, "client_version", json_object_new_string(TS_VERSION));
        json_object_object_add(result, "store_check", check);
        json_object_object_add(result, "root", root);
        check = NULL;
        root = NULL;
        rc = tsctl_print_json(ctx, result);
    } else {
        printf("%s●%s toolscored is running\n", tsctl_c(c, TSCTL_GREEN), tsctl_c(c, TSCTL_RESET));
        printf("  pid:              %lld\n", tsctl_int(result, "pid", 0));
        printf("  version:          %s%s\n", tsctl_str(result, "version", "?"),
               tsctl_bool(result, "auto_started") ? " (started by a client)" : "");
        if (strcmp(tsctl_str(result, "version", "?"), TS_VERSION) != 0)
            printf("  %stsctl version:%s    %s (another build: `tsctl stop` lets the next command "
                   "start this build's daemon)\n",
                   tsctl_c(c, TSCTL_YELLOW), tsctl_c(c, TSCTL_RESET), TS_VERSION);
        printf("  socket:           %s\n", tsctl_str(result, "socket", tsctl_socket_path(ctx)));
        printf("  uptime:           ");
        print_uptime(tsctl_int(result, "uptime_s", 0));
        printf("  stores open:      %lld\n", tsctl_int(result, "stores_open", 0));
        printf("  requests served:  %lld\n", tsctl_int(result, "requests_served", 0));
        printf("  runs open:        %lld\n", tsctl_int(result, "runs_open", 0));
        printf("  connections:      %lld\n", tsctl_int(result, "connections", 0));
        if (root != NULL)
            printf("  snapshot root:    %s (%s)\n", tsctl_str(root, "path", "?"),
                   tsctl_str(root, "why", "?"));
        if (check != NULL)
            print_store_check(ctx, check);
        print_exposed(ctx, tsctl_get(result, "stores_exposed"));
    }
    json_object_put(root);
    json_object_put(check);
    json_object_put(result);
    return rc;
}

/* Wait up to about ten seconds for the socket file to go away. */
static bool wait_gone(const char *socket)
{
    struct timespec pause = {0, 20 * 1000 * 1000};
    struct stat st;
    int i;

    for (i = 0; i < 500; i++) {
        if (stat(socket, &st) < 0 && errno == ENOENT)
            return true;
        nanosleep(&pause, NULL);
    }
    return false;
}

int tsctl_cmd_stop(tsctl_ctx *ctx, int argc, char **argv)
{
    struct json_object *status = NULL;
    struct json_object *result = NULL;
    long long pid;
    tsctl_args args;
    int rc;

    rc = tsctl_parse(ctx, argc, argv, NULL, 0, &args);
    if (rc == 0)
        rc = tsctl_want_args(ctx, &args, 0, NULL);
    if (rc != 0)
        return rc;
    rc = tsctl_call(ctx, "status", json_object_new_object(), TSCTL_CALL_NO_AUTOSTART, &status);
    if (rc != 0)
        return rc;
    pid = tsctl_int(status, "pid", 0);
    json_object_put(status);
    rc = tsctl_call(ctx, "stop", json_object_new_object(), TSCTL_CALL_NO_AUTOSTART, &result);
    if (rc != 0)
        return rc;
    json_object_put(result);
    tsctl_disconnect(ctx);
    if (!wait_gone(tsctl_socket_path(ctx)))
        return tsctl_fail(ctx, TSCTL_EXIT_FAILED,
                          "toolscored (pid %lld) accepted the stop request but has not exited",
                          pid);
    printf("toolscored (pid %lld) stopped.\n", pid);
    return TSCTL_EXIT_OK;
}
