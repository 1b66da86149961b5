/*
 * tsctl_review — `tsctl review`: walking the review queue on a terminal, one
 * key per item, a pager for long reports; `--list [--json]` without one.
 *
 * The queue is the daemon's (method review): every pending snapshot, and
 * every kept observation (the calls of a name's last FAILED check, or of a
 * PENDING check that saw other calls than the recording). Each item is
 * shown with the daemon's diff (an observation) or its calls (a pending
 * snapshot), and decided with accept or reject: nothing is run again.
 */
#include "client/tsctl/tsctl.h"

#include <stdlib.h>
#include <string.h>

#include "lib/base/ts_base.h"
#include "lib/json/ts_json.h"
#include "proto/ts_proto.h"

typedef struct review_counts {
    int accepted, rejected, skipped;
} review_counts;

static size_t count_of(const struct json_object *array)
{
    return json_object_is_type(array, json_type_array) ? json_object_array_length(array) : 0;
}

static const struct json_object *observation_of(const struct json_object *item)
{
    return tsctl_get(item, "observation");
}

/* One line about item: what it is and its calls. */
static void describe(const tsctl_ctx *ctx, const struct json_object *item, ts_buf *b)
{
    const struct json_object *obs = observation_of(item);
    const char *name = tsctl_str(item, "name", "?");
    bool c = ctx->color_out;

    if (tsctl_get(item, "problem") != NULL)
        ts_buf_appendf(b, "%sunreadable%s        '%s': %s", tsctl_c(c, TSCTL_RED),
                       tsctl_c(c, TSCTL_RESET), name, tsctl_str(item, "problem", ""));
    else if (tsctl_bool(item, "approved"))
        ts_buf_appendf(b, "%sfailed check%s      '%s': %lld observed call(s) against %lld approved",
                       tsctl_c(c, TSCTL_RED), tsctl_c(c, TSCTL_RESET), name,
                       tsctl_int(obs, "calls", 0), tsctl_int(item, "calls", 0));
    else if (obs != NULL)
        ts_buf_appendf(b,
                       "%spending snapshot%s  '%s' (%lld call(s)); a later check observed %lld "
                       "other call(s)",
                       tsctl_c(c, TSCTL_YELLOW), tsctl_c(c, TSCTL_RESET), name,
                       tsctl_int(item, "calls", 0), tsctl_int(obs, "calls", 0));
    else
        ts_buf_appendf(b, "%spending snapshot%s  '%s' (%lld call(s))", tsctl_c(c, TSCTL_YELLOW),
                       tsctl_c(c, TSCTL_RESET), name, tsctl_int(item, "calls", 0));
    if (obs != NULL && tsctl_get(obs, "run") != NULL)
        ts_buf_appendf(b, ", run %s", tsctl_str(obs, "run", ""));
}

/* The queue as lines (no terminal, or --list). */
static int print_queue(const tsctl_ctx *ctx, const struct json_object *items)
{
    size_t n = count_of(items);

    if (ctx->json)
        return tsctl_print_json(ctx, items);
    if (n == 0) {
        printf("Nothing to review: no pending snapshots and no kept observations.\n");
        return 0;
    }
    printf("%zu item(s) to review:\n", n);
    for (size_t i = 0; i < n; i++) {
        ts_buf b;

        ts_buf_init(&b, TS_BUF_UNLIMITED);
        describe(ctx, json_object_array_get_idx(items, i), &b);
        printf("  %s\n", b.data != NULL ? b.data : "");
        ts_buf_free(&b);
    }
    return 0;
}

/* A pending snapshot's calls, one per line, into b. */
static void append_calls(const struct json_object *calls, ts_buf *b)
{
    size_t n = count_of(calls);

    for (size_t i = 0; i < n; i++) {
        struct json_object *call = json_object_array_get_idx(calls, i);
        struct json_object *args = NULL;

        ts_buf_appendf(b, "  calls[%zu] %s ", i, tsctl_str(call, "tool", "?"));
        if (json_object_object_get_ex(call, "args", &args) && args != NULL)
            ts_json_write_compact(args, b, NULL);
        else
            ts_buf_appends(b, "(any args)");
        ts_buf_appendc(b, '\n');
    }
    if (n == 0)
        ts_buf_appends(b, "  (no calls)\n");
}

/* What item shows: the diff of its observation, or a pending snapshot's
 * calls, into b. 0, or the exit code of a request that failed. */
static int item_text(tsctl_ctx *ctx, const struct json_object *item, ts_buf *b)
{
    const char *name = tsctl_str(item, "name", "?");
    struct json_object *params;
    struct json_object *reply = NULL;
    int rc;

    if (tsctl_get(item, "problem") != NULL)
        return 0;
    if (observation_of(item) == NULL) {
        rc = tsctl_call_name(ctx, "show", name, 0, &reply);
        if (rc == 0) {
            ts_buf_appends(b, "Recorded calls:\n");
            append_calls(tsctl_get(tsctl_get(reply, "snapshot"), "calls"), b);
        }
        json_object_put(reply);
        return rc;
    }
    params = tsctl_store_params(ctx);
    if (params == NULL)
        return TSCTL_EXIT_USAGE;
    json_object_object_add(params, "name", json_object_new_string(name));
    json_object_object_add(params, "color", json_object_new_boolean(ctx->color_out));
    json_object_object_add(params, "width", json_object_new_int64(tsctl_report_width()));
    rc = tsctl_call(ctx, "diff", params, 0, &reply);
    if (rc == 0) {
        const char *report = tsctl_str(reply, "report", "");

        ts_buf_appendf(b, "%s against the calls observed %s:\n\n",
                       tsctl_bool(item, "approved") ? "The approved baseline" : "The recording",
                       tsctl_str(observation_of(item), "observed_at", ""));
        ts_buf_appends(b, report);
        if (report[0] != '\0' && report[strlen(report) - 1] != '\n')
            ts_buf_appendc(b, '\n');
    }
    json_object_put(reply);
    return rc;
}

/* accept or reject name (one item); prints what changed. */
static int decide_one(tsctl_ctx *ctx, const char *method, const char *name)
{
    struct json_object *reply = NULL;
    char *names[1] = {(char *)name};
    int rc = tsctl_call_decide(ctx, method, names, 1, false, NULL, &reply);
    struct json_object *list;

    if (rc != 0)
        return rc;
    list = tsctl_get(reply, strcmp(method, "accept") == 0 ? "accepted" : "rejected");
    for (size_t i = 0; i < count_of(list); i++) {
        struct json_object *e = json_object_array_get_idx(list, i);
        const char *action = tsctl_str(e, "action", "");

        if (strcmp(method, "reject") == 0)
            printf(tsctl_bool(e, "deleted") ? "Rejected: pending snapshot '%s' deleted.\n"
                                            : "Rejected: '%s' keeps its approved baseline.\n",
                   name);
        else if (strcmp(action, "accepted") == 0)
            printf("Accepted: '%s' has the observed calls as its approved baseline.\n", name);
        else if (strcmp(action, "approved") == 0)
            printf("Accepted: snapshot '%s' approved.\n", name);
        else if (strcmp(action, "superseded") == 0)
            printf("Not accepted: the observation of '%s' no longer applies (dropped).\n", name);
        else
            printf("'%s' is already approved: nothing to accept.\n", name);
    }
    json_object_put(reply);
    return 0;
}

/* Ask for a key for item; 0 to go on, 1 to quit, or an exit code (> 1)
 * when a request failed. */
static int ask(tsctl_ctx *ctx, const struct json_object *item, review_counts *counts)
{
    const char *name = tsctl_str(item, "name", "?");
    bool c = ctx->color_out;
    int key;
    int rc;

    for (;;) {
        printf("%s[a]ccept  [r]eject  [s]kip  [q]uit%s ? ", tsctl_c(c, TSCTL_BOLD),
               tsctl_c(c, TSCTL_RESET));
        fflush(stdout);
        key = tsctl_read_key();
        printf("%c\n", key > ' ' && key < 127 ? key : ' ');
        switch (key) {
        case 'a':
        case 'A':
            rc = decide_one(ctx, "accept", name);
            counts->accepted += rc == 0;
            return rc;
        case 'r':
        case 'R':
            rc = decide_one(ctx, "reject", name);
            counts->rejected += rc == 0;
            return rc;
        case 's':
        case 'S':
            counts->skipped++;
            return 0;
        case 'q':
        case 'Q':
        case -1:
        case 4: /* Ctrl-D */
            return 1;
        default:
            break;
        }
    }
}

/* Show item [i/n] (paged) and ask what to do with it. */
static int review_item(tsctl_ctx *ctx, const struct json_object *item, size_t i, size_t n,
                       review_counts *counts)
{
    bool c = ctx->color_out;
    ts_buf b;
    int rc;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ts_buf_appendf(&b, "\n%s[%zu/%zu]%s ", tsctl_c(c, TSCTL_BOLD), i + 1, n,
                   tsctl_c(c, TSCTL_RESET));
    describe(ctx, item, &b);
    ts_buf_appendc(&b, '\n');
    rc = item_text(ctx, item, &b);
    if (rc == 0 && b.data != NULL)
        tsctl_page(ctx, b.data);
    ts_buf_free(&b);
    if (rc == 0 && tsctl_get(item, "problem") != NULL) {
        printf("(fix or remove the file, then review again)\n");
        counts->skipped++;
        return 0;
    }
    return rc != 0 ? rc : ask(ctx, item, counts);
}

int tsctl_cmd_review(tsctl_ctx *ctx, int argc, char **argv)
{
    const char *run = NULL;
    bool list = false;
    const tsctl_option opts[] = {
        {"run", 0, &run, NULL},
        {"list", 'l', NULL, &list},
        {NULL, 0, NULL, NULL},
    };
    struct json_object *params;
    struct json_object *reply = NULL;
    struct json_object *items;
    review_counts counts = {0, 0, 0};
    tsctl_args args;
    size_t n;
    int rc;

    rc = tsctl_parse(ctx, argc, argv, opts, TSCTL_PARSE_JSON, &args);
    if (rc == 0)
        rc = tsctl_want_args(ctx, &args, 0, NULL);
    if (rc != 0)
        return rc;
    if (ctx->json && !list)
        return tsctl_usage_error(ctx, "--json goes with --list");
    rc = tsctl_need_store(ctx);
    if (rc != 0)
        return rc;
    params = tsctl_store_params(ctx);
    if (params == NULL)
        return TSCTL_EXIT_USAGE;
    json_object_object_add(params, "run", run ? json_object_new_string(run) : NULL);
    rc = tsctl_call(ctx, "review", params, 0, &reply);
    if (rc != 0)
        return rc;
    items = tsctl_get(reply, "items");
    n = count_of(items);
    if (list || !tsctl_interactive()) {
        if (!list)
            printf("tsctl review needs a terminal (--list prints the queue); it would review:\n");
        rc = print_queue(ctx, items);
        json_object_put(reply);
        return rc != 0 ? rc : list ? TSCTL_EXIT_OK : TSCTL_EXIT_USAGE;
    }
    if (n == 0) {
        printf("Nothing to review: no pending snapshots and no kept observations.\n");
        json_object_put(reply);
        return TSCTL_EXIT_OK;
    }
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = review_item(ctx, json_object_array_get_idx(items, i), i, n, &counts);
    printf("\nReviewed: %d accepted, %d rejected, %d skipped", counts.accepted, counts.rejected,
           counts.skipped);
    if (counts.accepted + counts.rejected + counts.skipped < (int)n)
        printf(", %d left", (int)n - counts.accepted - counts.rejected - counts.skipped);
    printf(".\n");
    json_object_put(reply);
    return rc == 1 ? TSCTL_EXIT_OK : rc;
}
