/*
 * tsctl_review — `tsctl review`: walking pending snapshots and failed checks
 * on a terminal, one key per item.
 *
 * An item of the daemon's review data is either a pending snapshot (its
 * calls, and the previously approved calls as baseline when there are any)
 * or an approved snapshot whose last check FAILED (its calls are the
 * baseline, observed the calls that failed). Accepting a failed check saves
 * the observed calls as the approved baseline without rerunning anything.
 */
#include "tsctl.h"

#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "ts_buf.h"
#include "ts_json.h"
#include "ts_paths.h"
#include "ts_report.h"
#include "ts_score.h"

typedef struct review_counts {
    int accepted, rejected, skipped;
} review_counts;

static bool item_is_failed_check(const struct json_object *item)
{
    struct json_object *observed = tsctl_get(item, "observed");

    return tsctl_bool(item, "approved") && json_object_is_type(observed, json_type_array);
}

static size_t count_of(const struct json_object *calls)
{
    return json_object_is_type(calls, json_type_array) ? json_object_array_length(calls) : 0;
}

static void print_calls(const struct json_object *calls)
{
    size_t n = count_of(calls);
    size_t i;

    for (i = 0; i < n; i++) {
        struct json_object *call = json_object_array_get_idx(calls, i);
        struct json_object *args = NULL;
        ts_buf b;

        ts_buf_init(&b, 1 << 20);
        if (json_object_object_get_ex(call, "args", &args) && args != NULL)
            ts_json_write_compact(args, &b, NULL);
        printf("  %zu. %s %s\n", i + 1, tsctl_str(call, "tool", "?"),
               b.data ? b.data : "(any args)");
        ts_buf_free(&b);
    }
    if (n == 0)
        printf("  (no calls)\n");
}

/* Print the drift of actual against expected (the drift report of a check). */
static void print_drift(const tsctl_ctx *ctx, const struct json_object *expected,
                        const struct json_object *actual)
{
    ts_score_options opt;
    ts_score_result r;
    ts_error err;

    ts_score_options_default(&opt);
    if (ts_evaluate(expected, actual, &opt, &r, &err) < 0) {
        printf("  (cannot compare: %s)\n", err.message);
        return;
    }
    tsctl_print_report(ctx, expected, actual, &r, NULL);
    ts_score_result_free(&r);
}

static void show_item(const tsctl_ctx *ctx, const struct json_object *item, size_t i, size_t n)
{
    const char *name = tsctl_str(item, "name", "?");
    struct json_object *calls = tsctl_get(item, "calls");
    struct json_object *baseline = tsctl_get(item, "baseline");
    bool c = ctx->color_out;

    printf("\n%s[%zu/%zu]%s ", tsctl_c(c, TSCTL_BOLD), i + 1, n, tsctl_c(c, TSCTL_RESET));
    if (item_is_failed_check(item)) {
        struct json_object *observed = tsctl_get(item, "observed");

        printf("%sfailed check%s '%s': %zu observed call(s) against %zu approved\n",
               tsctl_c(c, TSCTL_RED), tsctl_c(c, TSCTL_RESET), name, count_of(observed),
               count_of(calls));
        printf("Observed calls:\n");
        print_calls(observed);
        printf("\n");
        print_drift(ctx, calls, observed);
        return;
    }
    printf("%spending snapshot%s '%s' (%zu call(s))\n", tsctl_c(c, TSCTL_YELLOW),
           tsctl_c(c, TSCTL_RESET), name, count_of(calls));
    print_calls(calls);
    if (json_object_is_type(baseline, json_type_array)) {
        printf("\nAgainst the previously approved calls:\n");
        print_drift(ctx, baseline, calls);
    }
}

/* Read one key from the terminal without waiting for Enter; -1 on EOF. */
static int read_key(void)
{
    struct termios old;
    struct termios raw;
    unsigned char ch;
    ssize_t n;
    bool restore = tcgetattr(STDIN_FILENO, &old) == 0;

    if (restore) {
        raw = old;
        raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
        raw.c_cc[VMIN] = 1;
        raw.c_cc[VTIME] = 0;
        tcsetattr(STDIN_FILENO, TCSANOW, &raw);
    }
    n = read(STDIN_FILENO, &ch, 1);
    if (restore)
        tcsetattr(STDIN_FILENO, TCSANOW, &old);
    return n == 1 ? ch : -1;
}

static int accept_item(tsctl_ctx *ctx, const struct json_object *item)
{
    const char *name = tsctl_str(item, "name", "?");
    struct json_object *reply = NULL;
    char *names[1];
    int rc;

    if (item_is_failed_check(item)) {
        rc = tsctl_call_record(ctx, name, json_object_get(tsctl_get(item, "observed")), "pytest",
                               true, 0, &reply);
        if (rc == 0)
            printf("Accepted: snapshot '%s' updated with the observed calls and approved.\n", name);
    } else {
        names[0] = (char *)name;
        rc = tsctl_call_approve(ctx, names, 1, false, &reply);
        if (rc == 0)
            printf("Accepted: snapshot '%s' approved.\n", name);
    }
    json_object_put(reply);
    return rc;
}

static int reject_item(tsctl_ctx *ctx, const struct json_object *item)
{
    const char *name = tsctl_str(item, "name", "?");
    struct json_object *reply = NULL;
    int rc;

    if (item_is_failed_check(item)) {
        printf("Rejected: snapshot '%s' keeps its approved baseline.\n", name);
        return 0;
    }
    rc = tsctl_call_name(ctx, "rm", name, 0, &reply);
    json_object_put(reply);
    if (rc == 0)
        printf("Rejected: pending snapshot '%s' deleted.\n", name);
    return rc;
}

/* Ask for a key for item; returns 0 to go on, 1 to quit, or an exit code
 * (> 1) when a request failed. */
static int decide(tsctl_ctx *ctx, const struct json_object *item, review_counts *counts)
{
    bool c = ctx->color_out;
    int key;
    int rc;

    for (;;) {
        printf("%s[a]ccept  [r]eject  [s]kip  [q]uit%s ? ", tsctl_c(c, TSCTL_BOLD),
               tsctl_c(c, TSCTL_RESET));
        fflush(stdout);
        key = read_key();
        printf("%c\n", key > ' ' && key < 127 ? key : ' ');
        switch (key) {
        case 'a':
        case 'A':
            rc = accept_item(ctx, item);
            counts->accepted += rc == 0;
            return rc;
        case 'r':
        case 'R':
            rc = reject_item(ctx, item);
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

static void print_would_review(const struct json_object *items)
{
    size_t n = count_of(items);
    size_t i;

    printf("tsctl review needs a terminal; it would review %zu item(s):\n", n);
    for (i = 0; i < n; i++) {
        struct json_object *item = json_object_array_get_idx(items, i);

        if (item_is_failed_check(item))
            printf("  failed check      %s (%zu observed call(s))\n", tsctl_str(item, "name", "?"),
                   count_of(tsctl_get(item, "observed")));
        else
            printf("  pending snapshot  %s (%zu call(s))\n", tsctl_str(item, "name", "?"),
                   count_of(tsctl_get(item, "calls")));
    }
}

int tsctl_cmd_review(tsctl_ctx *ctx, int argc, char **argv)
{
    const char *run = NULL;
    const tsctl_option opts[] = {
        {"run", 0, &run, NULL},
        {NULL, 0, NULL, NULL},
    };
    struct json_object *params;
    struct json_object *reply = NULL;
    struct json_object *items;
    review_counts counts = {0, 0, 0};
    tsctl_args args;
    size_t n;
    size_t i;
    int rc;

    rc = tsctl_parse(ctx, argc, argv, opts, 0, &args);
    if (rc == 0)
        rc = tsctl_want_args(ctx, &args, 0, NULL);
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
    if (!tsctl_interactive()) {
        print_would_review(items);
        json_object_put(reply);
        return TSCTL_EXIT_USAGE;
    }
    if (n == 0) {
        printf("Nothing to review: no pending snapshots and no failed checks.\n");
        json_object_put(reply);
        return TSCTL_EXIT_OK;
    }
    for (i = 0; i < n && rc == 0; i++) {
        show_item(ctx, json_object_array_get_idx(items, i), i, n);
        rc = decide(ctx, json_object_array_get_idx(items, i), &counts);
    }
    printf("\nReviewed: %d accepted, %d rejected, %d skipped", counts.accepted, counts.rejected,
           counts.skipped);
    if (counts.accepted + counts.rejected + counts.skipped < (int)n)
        printf(", %d left", (int)n - counts.accepted - counts.rejected - counts.skipped);
    printf(".\n");
    json_object_put(reply);
    return rc == 1 ? TSCTL_EXIT_OK : rc;
}
