/*
 * tsctl_accept — `tsctl accept`, `tsctl reject` and `tsctl diff`: deciding
 * about the review queue without running a test again (the daemon's kept
 * observations: the calls of the last FAILED check of a name, or of a
 * PENDING check that observed other calls than the recording).
 */
#include "client/tsctl/tsctl.h"

#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"

/* "FAILED check" / "pending check" for an entry's outcome. */
static const char *observed_by(const struct json_object *e)
{
    const char *outcome = tsctl_str(e, "outcome", "");

    return strcmp(outcome, "PENDING") == 0 ? "a pending check" : "a FAILED check";
}

/* text with every line indented by two spaces. */
static void print_indented(const char *text)
{
    const char *p = text;

    while (p != NULL && *p != '\0') {
        const char *nl = strchr(p, '\n');
        size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);

        printf("  %.*s\n", (int)len, p);
        p = nl != NULL ? nl + 1 : NULL;
    }
}

int tsctl_print_accepted(const tsctl_ctx *ctx, const struct json_object *list)
{
    size_t n = json_object_array_length(list);
    bool c = ctx->color_out;
    int done = 0;

    for (size_t i = 0; i < n; i++) {
        struct json_object *e = json_object_array_get_idx(list, i);
        const char *name = tsctl_str(e, "name", "?");
        const char *action = tsctl_str(e, "action", "");

        if (strcmp(action, "accepted") == 0) {
            printf("%sAccepted%s '%s': the calls observed by %s (%lld; the baseline had "
                   "%lld) are its approved baseline now.\n",
                   tsctl_c(c, TSCTL_GREEN), tsctl_c(c, TSCTL_RESET), name, observed_by(e),
                   tsctl_int(e, "calls", 0), tsctl_int(e, "previous_calls", 0));
            if (tsctl_get(e, "report") != NULL)
                print_indented(tsctl_str(e, "report", ""));
            done++;
        } else if (strcmp(action, "approved") == 0) {
            printf("%sApproved%s '%s' as recorded (%lld call(s)).\n", tsctl_c(c, TSCTL_GREEN),
                   tsctl_c(c, TSCTL_RESET), name, tsctl_int(e, "calls", 0));
            done++;
        } else if (strcmp(action, "superseded") == 0) {
            printf("%s'%s': the observation kept for it no longer applies%s (the snapshot "
                   "changed or was removed since it was observed); dropped, nothing written.\n",
                   tsctl_c(c, TSCTL_YELLOW), name, tsctl_c(c, TSCTL_RESET));
        } else {
            printf("'%s' is already approved and no observation is kept for it: nothing to "
                   "accept.\n",
                   name);
        }
    }
    if (n == 0)
        printf("Nothing to accept: no pending snapshots and no kept observations.\n");
    else
        printf("\nAccepted %d snapshot(s).\n", done);
    return done;
}

void tsctl_print_rejected(const tsctl_ctx *ctx, const struct json_object *list)
{
    size_t n = json_object_array_length(list);
    int done = 0;

    (void)ctx;
    for (size_t i = 0; i < n; i++) {
        struct json_object *e = json_object_array_get_idx(list, i);
        const char *name = tsctl_str(e, "name", "?");

        if (tsctl_bool(e, "deleted")) {
            printf("Rejected '%s': the pending snapshot was deleted.\n", name);
            done++;
        } else if (tsctl_bool(e, "dropped")) {
            printf("Rejected '%s': the observed calls were dropped; its approved baseline "
                   "stays.\n",
                   name);
            done++;
        } else {
            printf("'%s' is approved and no observation is kept for it: nothing to reject.\n",
                   name);
        }
    }
    if (n == 0)
        printf("Nothing to reject: no pending snapshots and no kept observations.\n");
    else
        printf("\nRejected %d snapshot(s).\n", done);
}

/* accept or reject: NAME... | --all [--run ID] [--json]. */
static int decide(tsctl_ctx *ctx, int argc, char **argv, const char *method)
{
    bool accept = strcmp(method, "accept") == 0;
    const char *run = NULL;
    bool all = false;
    const tsctl_option opts[] = {
        {"all", 'a', NULL, &all},
        {"run", 0, &run, NULL},
        {NULL, 0, NULL, NULL},
    };
    struct json_object *result = NULL;
    struct json_object *list;
    tsctl_args args;
    int rc;

    rc = tsctl_parse(ctx, argc, argv, opts, TSCTL_PARSE_JSON, &args);
    if (rc != 0)
        return rc;
    rc = tsctl_want_names_or_all(ctx, &args, all);
    if (rc != 0)
        return rc;
    if (run != NULL && !all)
        return tsctl_usage_error(ctx, "--run goes with --all");
    rc = tsctl_need_store(ctx);
    if (rc == 0)
        rc = tsctl_call_decide(ctx, method, args.pos, args.npos, all, run, &result);
    if (rc != 0)
        return rc;
    list = tsctl_get(result, accept ? "accepted" : "rejected");
    if (!json_object_is_type(list, json_type_array)) {
        json_object_put(result);
        return tsctl_fail(ctx, TSCTL_EXIT_FAILED, "the daemon sent no %s list",
                          accept ? "accepted" : "rejected");
    }
    if (ctx->json)
        rc = tsctl_print_json(ctx, list);
    else if (accept)
        tsctl_print_accepted(ctx, list);
    else
        tsctl_print_rejected(ctx, list);
    /* NAME asked for and nothing accepted for it: the thing asked about failed */
    for (size_t i = 0; rc == 0 && !all && accept && i < json_object_array_length(list); i++) {
        if (strcmp(tsctl_str(json_object_array_get_idx(list, i), "action", ""), "superseded") == 0)
            rc = TSCTL_EXIT_FAILED;
    }
    json_object_put(result);
    return rc;
}

int tsctl_cmd_accept(tsctl_ctx *ctx, int argc, char **argv)
{
    return decide(ctx, argc, argv, "accept");
}

int tsctl_cmd_reject(tsctl_ctx *ctx, int argc, char **argv)
{
    return decide(ctx, argc, argv, "reject");
}

int tsctl_cmd_diff(tsctl_ctx *ctx, int argc, char **argv)
{
    bool no_json_diff = false;
    const tsctl_option opts[] = {
        {"no-json-diff", 0, NULL, &no_json_diff},
        {NULL, 0, NULL, NULL},
    };
    struct json_object *params;
    struct json_object *result = NULL;
    struct json_object *obs;
    tsctl_args args;
    int rc;

    rc = tsctl_parse(ctx, argc, argv, opts, TSCTL_PARSE_JSON, &args);
    if (rc == 0)
        rc = tsctl_want_args(ctx, &args, 1, "one NAME");
    if (rc == 0)
        rc = tsctl_need_store(ctx);
    if (rc != 0)
        return rc;
    params = tsctl_store_params(ctx);
    if (params == NULL)
        return TSCTL_EXIT_USAGE;
    json_object_object_add(params, "name", json_object_new_string(args.pos[0]));
    json_object_object_add(params, "color", json_object_new_boolean(ctx->color_out && !ctx->json));
    json_object_object_add(params, "width", json_object_new_int64(tsctl_report_width()));
    json_object_object_add(params, "json_diff", json_object_new_boolean(!no_json_diff));
    rc = tsctl_call(ctx, "diff", params, 0, &result);
    if (rc != 0)
        return rc;
    if (ctx->json) {
        rc = tsctl_print_json(ctx, result);
    } else {
        const char *report = tsctl_str(result, "report", "");

        obs = tsctl_get(result, "observation");
        printf("Snapshot '%s' (%s, %lld call(s)) against the calls observed by %s check at "
               "%s%s%s (%lld call(s)):\n\n",
               tsctl_str(result, "name", "?"),
               tsctl_bool(result, "approved") ? "approved" : "pending",
               tsctl_int(result, "calls", 0),
               strcmp(tsctl_str(obs, "outcome", ""), "PENDING") == 0 ? "a pending" : "a FAILED",
               tsctl_str(obs, "observed_at", "?"), tsctl_get(obs, "run") != NULL ? " in run " : "",
               tsctl_get(obs, "run") != NULL ? tsctl_str(obs, "run", "") : "",
               tsctl_int(obs, "calls", 0));
        printf("%s%s", report, report[0] != '\0' && report[strlen(report) - 1] == '\n' ? "" : "\n");
    }
    json_object_put(result);
    return rc;
}
