/*
 * tsctl_check — `tsctl check` (one pass of the snapshot state machine
 * through the daemon) and `tsctl record --from-trace` (importing a trace file
 * as a snapshot). The mode flags come from this process's environment:
 * CI (set and non-empty), TOOLSCORE_RECORD_UPDATE (truthy), TOOLSCORE_RUN
 * (the run to join) and TOOLSCORE_TEST (the test claiming the name).
 */
#include "client/tsctl/tsctl.h"

#include <stdlib.h>
#include <string.h>

#include "lib/extract/ts_extract.h"
#include "proto/ts_proto.h"
#include "lib/rules/ts_rules.h"
#include "lib/score/ts_score.h"

/* Exit code for a check outcome. */
static int outcome_exit(const char *outcome)
{
    static const char *const ok[] = {"CREATED", "PENDING", "UPDATED", "PASSED"};
    size_t i;

    for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        if (strcmp(outcome, ok[i]) == 0)
            return TSCTL_EXIT_OK;
    }
    return TSCTL_EXIT_FAILED;
}

static void print_outcome(const tsctl_ctx *ctx, const struct json_object *reply)
{
    const char *outcome = tsctl_str(reply, "outcome", "?");
    const char *message = tsctl_str(reply, "message", "");
    const char *report = tsctl_str(reply, "report", NULL);
    struct json_object *result = tsctl_get(reply, "result");
    const char *color = TSCTL_YELLOW;
    bool c = ctx->color_out;

    if (strcmp(outcome, "PASSED") == 0)
        color = TSCTL_GREEN;
    else if (outcome_exit(outcome) != 0)
        color = TSCTL_RED;
    printf("%s%s%s", tsctl_c(c, color), outcome, tsctl_c(c, TSCTL_RESET));
    if (message[0] != '\0')
        printf("  %s", message);
    else
        printf("  snapshot '%s'", tsctl_str(reply, "name", "?"));
    /* The daemon's messages of a replay carry the score; say it otherwise. */
    if (json_object_is_type(result, json_type_object) && strstr(message, "score") == NULL)
        printf(" (score %.2f)", json_object_get_double(tsctl_get(result, "score")));
    printf("\n");
    if (report != NULL && report[0] != '\0') {
        size_t len = strlen(report);

        printf("\n%s%s", report, report[len - 1] == '\n' ? "" : "\n");
    }
}

/* The reply with exactly the keys of docs/tsctl.1, in its order. */
static struct json_object *check_json(const struct json_object *reply)
{
    static const char *const keys[] = {"outcome", "name", "file", "message", "result", "report"};
    struct json_object *out = json_object_new_object();
    struct json_object *rules = tsctl_get(reply, "rules");
    size_t i;

    for (i = 0; out != NULL && i < sizeof(keys) / sizeof(keys[0]); i++) {
        struct json_object *v = tsctl_get(reply, keys[i]);

        json_object_object_add(out, keys[i], v ? json_object_get(v) : NULL);
    }
    if (out != NULL && rules != NULL) /* only when rules are in force */
        json_object_object_add(out, "rules", json_object_get(rules));
    return out;
}

int tsctl_cmd_check(tsctl_ctx *ctx, int argc, char **argv)
{
    const char *calls_path = NULL;
    const char *test = NULL;
    const char *rules_file = NULL;
    tsctl_scoring_opts scoring = {0};
    bool update = false;
    bool allow_pending = false;
    const tsctl_option opts[] = {
        {"calls", 0, &calls_path, NULL},
        TSCTL_SCORING_OPTIONS(&scoring),
        {"test", 0, &test, NULL},
        {"rules", 0, &rules_file, NULL},
        {"update", 0, NULL, &update},
        {"allow-pending", 0, NULL, &allow_pending},
        {"no-json-diff", 0, NULL, &ctx->no_json_diff},
        {NULL, 0, NULL, NULL},
    };
    struct json_object *actual = NULL;
    struct json_object *weights_json = NULL;
    struct json_object *reply = NULL;
    ts_rules *rules = NULL;
    const char *run = getenv("TOOLSCORE_RUN");
    char root[TS_PATHS_MAX];
    ts_check_args *a = NULL;
    ts_score_options options;
    tsctl_args args;
    int rc;

    rc = tsctl_parse(ctx, argc, argv, opts, TSCTL_PARSE_JSON, &args);
    if (rc == 0)
        rc = tsctl_want_args(ctx, &args, 1, "one NAME");
    if (rc != 0)
        return rc;
    if (calls_path == NULL)
        return tsctl_usage_error(ctx, "missing --calls FILE (or --calls - for stdin)");
    if (test == NULL)
        test = getenv("TOOLSCORE_TEST");
    rc = tsctl_scoring_parse(ctx, &scoring, &options, &weights_json);
    if (rc == 0 && rules_file != NULL) /* checked here: errors with the file's line and column */
        rc = tsctl_read_rules(ctx, rules_file, &rules);
    if (rc == 0)
        rc = tsctl_read_json(ctx, calls_path, &actual);
    if (rc == 0)
        rc = tsctl_store_root(ctx, root, sizeof(root));
    if (rc == 0) {
        a = ts_check_args_new();
        if (a == NULL)
            rc = tsctl_fail(ctx, TSCTL_EXIT_FAILED, "out of memory");
    }
    if (rc == 0) {
        ts_check_args_set_store(a, root);
        ts_check_args_set_name(a, args.pos[0]);
        ts_check_args_set_actual(a, actual);
        ts_check_args_set_format(a, scoring.format);
        ts_check_args_set_min_score(a, options.min_score);
        ts_check_args_set_weights(a, weights_json);
        ts_check_args_set_strict(a, options.strict);
        ts_check_args_set_ci(a, tsctl_env_ci());
        ts_check_args_set_update(a, update || tsctl_env_truthy(getenv("TOOLSCORE_RECORD_UPDATE")));
        ts_check_args_set_allow_pending(a, allow_pending);
        ts_check_args_set_run(a, run && run[0] ? run : NULL);
        ts_check_args_set_test(a, test && test[0] ? test : NULL);
        ts_check_args_set_source(a, "tsctl");
        ts_check_args_set_color(a, ctx->color_out && !ctx->json);
        ts_check_args_set_width(a, tsctl_report_width());
        ts_check_args_set_json_diff(a, tsctl_json_diff_wanted(ctx));
        ts_check_args_set_rules(a, ts_rules_object(rules));
        rc = tsctl_call_check(ctx, a, &reply);
    }
    ts_check_args_free(a);
    ts_rules_unref(rules);
    json_object_put(weights_json);
    json_object_put(actual);
    if (rc != 0)
        return rc;
    if (ctx->json) {
        struct json_object *out = check_json(reply);

        rc = tsctl_print_json(ctx, out);
        json_object_put(out);
    } else {
        print_outcome(ctx, reply);
    }
    if (rc == 0)
        rc = outcome_exit(tsctl_str(reply, "outcome", "?"));
    json_object_put(reply);
    return rc;
}
