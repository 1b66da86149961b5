/*
 * tsctl_eval — the commands that need no daemon: `tsctl eval` (scoring two
 * files in-process), `tsctl extract` (the calls of a response or trace file)
 * and `tsctl snapshots path` (the file a name maps to).
 */
#include "client/tsctl/tsctl.h"

#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "lib/extract/ts_extract.h"
#include "lib/base/ts_base.h"
#include "lib/snapshot/ts_snapshot.h"
#include "lib/rules/ts_rules.h"
#include "lib/score/ts_score.h"

/*
 * The expected calls of EXPECTED: a JSON array of calls, or a snapshot file
 * (an object with a "calls" array). Returns a new reference or exits 2.
 */
static int expected_calls(const tsctl_ctx *ctx, const char *path, struct json_object **out)
{
    struct json_object *doc = NULL;
    struct json_object *calls = NULL;
    ts_error err;
    int rc;

    rc = tsctl_read_json(ctx, path, &doc);
    if (rc != 0)
        return rc;
    if (json_object_is_type(doc, json_type_array)) {
        calls = json_object_get(doc);
    } else if (json_object_is_type(doc, json_type_object) &&
               json_object_object_get_ex(doc, "calls", &calls) &&
               json_object_is_type(calls, json_type_array)) {
        json_object_get(calls);
    } else {
        json_object_put(doc);
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE,
                          "%s: expected a JSON array of calls or a snapshot file", path);
    }
    json_object_put(doc);
    if (ts_calls_validate(calls, "expected", &err) < 0) {
        json_object_put(calls);
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "%s: %s", path, err.message);
    }
    *out = calls;
    return 0;
}

/* The calls extracted from a response or trace file. */
static int extracted_calls(const tsctl_ctx *ctx, const char *path, const char *format,
                           struct json_object **out)
{
    struct json_object *doc = NULL;
    ts_error err;
    int rc;

    rc = tsctl_read_json(ctx, path, &doc);
    if (rc != 0)
        return rc;
    rc = ts_extract(doc, format, TS_EXTRACT_FILE, out, &err);
    json_object_put(doc);
    if (rc < 0)
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "%s: %s", path, err.message);
    return 0;
}

/* True when both lists hold the same calls as JSON (key order aside):
 * then there is no drift to report. */
static bool calls_identical(const struct json_object *a, const struct json_object *b)
{
    return ts_values_equal(a, b, true, false);
}

static void print_tools(const char *label, const struct json_object *list)
{
    size_t n = json_object_array_length(list);
    size_t i;

    printf("%-15s", label);
    if (n == 0)
        printf(" -");
    for (i = 0; i < n; i++) {
        printf("%s%s", i ? ", " : " ", json_object_get_string(json_object_array_get_idx(list, i)));
    }
    printf("\n");
}

/* What the rules hid, after the score line. */
static void print_notes(const ts_rules_applied *applied)
{
    ts_buf notes;

    ts_buf_init(&notes, 1u << 20);
    if (ts_rules_applied_notes(applied, &notes) == 0 && notes.len > 0)
        fwrite(notes.data, 1, notes.len, stdout);
    ts_buf_free(&notes);
}

/* The result's JSON, with "rules" (what they did) when rules applied. */
static struct json_object *result_json(const ts_score_result *r, const ts_rules_applied *applied)
{
    struct json_object *j = ts_score_result_to_json(r);
    struct json_object *rules = ts_rules_applied_to_json(applied);

    if (j != NULL && rules != NULL && json_object_object_add(j, "rules", rules) == 0)
        return j;
    if (rules != NULL) {
        json_object_put(rules);
        json_object_put(j);
        return NULL;
    }
    return j;
}

static void print_metrics(const tsctl_ctx *ctx, const ts_score_result *r,
                          const ts_rules_applied *applied)
{
    static const struct {
        const char *key;
        size_t offset;
    } rows[] = {
        {"invocation_accuracy", offsetof(ts_score_result, invocation_accuracy)},
        {"selection_accuracy", offsetof(ts_score_result, selection_accuracy)},
        {"argument_precision", offsetof(ts_score_result, argument_precision)},
        {"argument_recall", offsetof(ts_score_result, argument_recall)},
        {"argument_f1", offsetof(ts_score_result, argument_f1)},
        {"edit_distance", offsetof(ts_score_result, edit_distance)},
        {"normalized_distance", offsetof(ts_score_result, normalized_distance)},
        {"sequence_accuracy", offsetof(ts_score_result, sequence_accuracy)},
        {"redundant_rate", offsetof(ts_score_result, redundant_rate)},
        {"tool_correctness", offsetof(ts_score_result, tool_correctness)},
        {"trajectory_accuracy", offsetof(ts_score_result, trajectory_accuracy)},
        {"step_match_rate", offsetof(ts_score_result, step_match_rate)},
        {"path_efficiency", offsetof(ts_score_result, path_efficiency)},
    };
    bool c = ctx->color_out;
    size_t i;

    printf("%sscore %.4f  grade %c  %s%s%s (min_score %.2f)\n", tsctl_c(c, TSCTL_BOLD), r->score,
           r->grade, tsctl_c(c, r->passed ? TSCTL_GREEN : TSCTL_RED),
           r->passed ? "passed" : "failed", tsctl_c(c, TSCTL_RESET), r->min_score);
    print_notes(applied);
    printf("\n%-22s %s\n", "Metric", "Value");
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const double *v = (const double *)(const void *)((const char *)r + rows[i].offset);

        printf("%-22s %.4f\n", rows[i].key, *v);
    }
    printf("%-22s %lld\n", "redundant_count", (long long)r->redundant_count);
    printf("%-22s %lld\n\n", "total_calls", (long long)r->total_calls);
    print_tools("expected_tools", r->expected_tools);
    print_tools("called_tools", r->called_tools);
    print_tools("missing_tools", r->missing_tools);
    print_tools("extra_tools", r->extra_tools);
}

int tsctl_cmd_eval(tsctl_ctx *ctx, int argc, char **argv)
{
    tsctl_scoring_opts scoring = {0};
    const char *rules_file = NULL;
    const tsctl_option opts[] = {
        TSCTL_SCORING_OPTIONS(&scoring),
        {"rules", 0, &rules_file, NULL},
        {"no-json-diff", 0, NULL, &ctx->no_json_diff},
        {NULL, 0, NULL, NULL},
    };
    struct json_object *expected = NULL;
    struct json_object *actual = NULL;
    ts_rules *rules = NULL;
    ts_rules_applied applied;
    ts_score_options options;
    ts_score_result result;
    ts_error err;
    tsctl_args args;
    int rc;

    rc = tsctl_parse(ctx, argc, argv, opts, TSCTL_PARSE_JSON, &args);
    if (rc == 0)
        rc = tsctl_want_args(ctx, &args, 2, "two files, EXPECTED and ACTUAL");
    if (rc == 0 && strcmp(args.pos[0], "-") == 0 && strcmp(args.pos[1], "-") == 0)
        rc = tsctl_usage_error(ctx, "only one of EXPECTED and ACTUAL can be - (standard input)");
    if (rc != 0)
        return rc;
    rc = tsctl_scoring_parse(ctx, &scoring, &options, NULL);
    if (rc == 0 && rules_file != NULL)
        rc = tsctl_read_rules(ctx, rules_file, &rules);
    if (rc == 0)
        rc = expected_calls(ctx, args.pos[0], &expected);
    if (rc == 0)
        rc = extracted_calls(ctx, args.pos[1], scoring.format, &actual);
    if (rc != 0)
        goto out;
    if (ts_rules_evaluate(rules, expected, actual, &options, false, &result, &applied, &err) < 0) {
        ts_rules_applied_free(&applied);
        rc = tsctl_fail(ctx, TSCTL_EXIT_USAGE, "%s", err.message);
        goto out;
    }
    if (ctx->json) {
        struct json_object *j = result_json(&result, &applied);

        rc = j != NULL ? tsctl_print_json(ctx, j)
                       : tsctl_fail(ctx, TSCTL_EXIT_FAILED, "out of memory");
        json_object_put(j);
    } else {
        /* with rules, the lists as compared, and what the rules hid */
        const struct json_object *ce = applied.rules != NULL ? applied.expected : expected;
        const struct json_object *ca = applied.rules != NULL ? applied.actual : actual;
        bool report = !calls_identical(ce, ca);

        print_metrics(ctx, &result, report ? NULL : &applied);
        if (report) {
            printf("\n");
            tsctl_print_report(ctx, ce, ca, &result, &applied);
        }
    }
    if (rc == 0 && scoring.min_score != NULL && !result.passed)
        rc = TSCTL_EXIT_FAILED;
    ts_score_result_free(&result);
    ts_rules_applied_free(&applied);
out:
    ts_rules_unref(rules);
    json_object_put(expected);
    json_object_put(actual);
    return rc;
}

int tsctl_cmd_extract(tsctl_ctx *ctx, int argc, char **argv)
{
    const char *format = NULL;
    const tsctl_option opts[] = {
        {"format", 0, &format, NULL},
        {NULL, 0, NULL, NULL},
    };
    struct json_object *calls = NULL;
    tsctl_args args;
    int rc;

    rc = tsctl_parse(ctx, argc, argv, opts, TSCTL_PARSE_JSON, &args);
    if (rc == 0)
        rc = tsctl_want_args(ctx, &args, 1, "one FILE");
    if (rc != 0)
        return rc;
    rc = tsctl_check_format(ctx, format);
    if (rc == 0)
        rc = extracted_calls(ctx, args.pos[0], format, &calls);
    if (rc == 0)
        rc = tsctl_print_json(ctx, calls);
    json_object_put(calls);
    return rc;
}

int tsctl_cmd_snapshots_path(tsctl_ctx *ctx, int argc, char **argv)
{
    char file[TS_FILENAME_MAX];
    char dir[PATH_MAX];
    size_t dirlen;
    ts_error err;
    tsctl_args args;
    int rc;

    rc = tsctl_parse(ctx, argc, argv, NULL, 0, &args);
    if (rc == 0)
        rc = tsctl_want_args(ctx, &args, 1, "one NAME");
    if (rc == 0)
        rc = tsctl_root_choice(ctx, dir, sizeof(dir), NULL, 0);
    if (rc != 0)
        return rc;
    if (ts_name_to_filename(args.pos[0], strlen(args.pos[0]), file, sizeof(file), &err) < 0)
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "invalid name: %s", err.message);
    dirlen = strlen(dir);
    while (dirlen > 1 && dir[dirlen - 1] == '/')
        dirlen--;
    if (dirlen == 1 && dir[0] == '/')
        printf("/%s\n", file);
    else
        printf("%.*s/%s\n", (int)dirlen, dir, file);
    return TSCTL_EXIT_OK;
}
