/*
 * tsctl_snapshots — the store upkeep commands that go through the daemon:
 * `tsctl snapshots list|show|rm` and `tsctl approve`.
 */
#include "client/tsctl/tsctl.h"

#include <stdlib.h>
#include <string.h>

#include "client/toolscore_client.h"
#include "lib/json/ts_json.h"

static void print_problems(const tsctl_ctx *ctx, const struct json_object *result)
{
    struct json_object *problems = tsctl_get(result, "problems");
    size_t i;

    if (!json_object_is_type(problems, json_type_array))
        return;
    for (i = 0; i < json_object_array_length(problems); i++) {
        struct json_object *p = json_object_array_get_idx(problems, i);

        fprintf(stderr, "%swarning:%s unreadable snapshot file %s: %s\n",
                tsctl_c(ctx->color_err, TSCTL_YELLOW), tsctl_c(ctx->color_err, TSCTL_RESET),
                tsctl_str(p, "file", "?"), tsctl_str(p, "message", "?"));
    }
}

/* The columns a snapshot table can have (list and approve). */
typedef enum column { COL_STATUS, COL_NAME, COL_CALLS, COL_UPDATED, COL_SOURCE, COL_AGE } column;

static const char *const column_titles[] = {"Status", "Name", "Calls", "Updated", "Source", "Age"};

/* The text of one cell; buf holds it when it is made here. */
static const char *cell(const struct json_object *s, column c, char *buf, size_t bufsz)
{
    switch (c) {
    case COL_STATUS:
        return tsctl_bool(s, "approved") ? "✓ approved" : "○ pending";
    case COL_NAME:
        return tsctl_str(s, "name", "?");
    case COL_CALLS:
        snprintf(buf, bufsz, "%lld", tsctl_int(s, "calls", 0));
        return buf;
    case COL_UPDATED:
        tsctl_short_time(tsctl_str(s, "updated_at", "?"), buf, bufsz);
        return buf;
    case COL_SOURCE:
        return tsctl_str(s, "source", "?");
    case COL_AGE:
        tsctl_age(tsctl_str(s, "created_at", NULL), buf, bufsz);
        return buf;
    }
    return "?";
}

/* Print list (snapshot summaries) as a table of the given columns. */
static int print_snapshot_table(const tsctl_ctx *ctx, const column *cols, size_t ncols,
                                const struct json_object *list)
{
    char bufs[6][64];
    const char *row[6];
    tsctl_table t;
    size_t i;
    size_t c;

    tsctl_table_init(&t, ncols);
    for (c = 0; c < ncols; c++)
        row[c] = column_titles[cols[c]];
    for (i = 0; i <= json_object_array_length(list); i++) {
        if (i > 0) {
            for (c = 0; c < ncols; c++)
                row[c] =
                    cell(json_object_array_get_idx(list, i - 1), cols[c], bufs[c], sizeof(bufs[c]));
        }
        if (tsctl_table_add(&t, row) < 0) {
            tsctl_table_free(&t);
            return tsctl_fail(ctx, TSCTL_EXIT_FAILED, "out of memory");
        }
    }
    tsctl_table_print(&t, stdout, ctx->color_out);
    tsctl_table_free(&t);
    return TSCTL_EXIT_OK;
}

static int print_list_table(const tsctl_ctx *ctx, const struct json_object *list)
{
    static const column cols[] = {COL_STATUS, COL_NAME, COL_CALLS, COL_UPDATED, COL_SOURCE};

    if (json_object_array_length(list) == 0) {
        printf("No snapshots found.\n");
        return TSCTL_EXIT_OK;
    }
    return print_snapshot_table(ctx, cols, 5, list);
}

/* The list request for one page (cursor NULL: the first). */
static int list_page(tsctl_ctx *ctx, bool pending, const char *cursor, struct json_object **result)
{
    struct json_object *params = tsctl_store_params(ctx);

    if (params == NULL)
        return TSCTL_EXIT_USAGE;
    json_object_object_add(params, "pending", json_object_new_boolean(pending));
    json_object_object_add(params, "limit", json_object_new_int64(TS_CLIENT_LIST_PAGE));
    if (cursor != NULL)
        json_object_object_add(params, "cursor", json_object_new_string(cursor));
    return tsctl_call(ctx, "list", params, 0, result);
}

/* Every page of the listing, the snapshots of later pages appended to the
 * first page's. */
static int list_all(tsctl_ctx *ctx, bool pending, struct json_object **result)
{
    struct json_object *next;
    char cursor[128];
    int rc = list_page(ctx, pending, NULL, result);

    while (rc == 0 && json_object_is_type(next = tsctl_get(*result, "next"), json_type_string)) {
        struct json_object *page = NULL;
        struct json_object *all = tsctl_get(*result, "snapshots");
        struct json_object *more;

        snprintf(cursor, sizeof(cursor), "%s", json_object_get_string(next));
        rc = list_page(ctx, pending, cursor, &page);
        if (rc != 0)
            break;
        more = tsctl_get(page, "snapshots");
        if (!json_object_is_type(all, json_type_array) ||
            !json_object_is_type(more, json_type_array)) {
            json_object_put(page);
            rc = tsctl_fail(ctx, TSCTL_EXIT_FAILED, "the daemon sent no snapshot list");
            break;
        }
        for (size_t i = 0; i < json_object_array_length(more); i++)
            json_object_array_add(all, json_object_get(json_object_array_get_idx(more, i)));
        json_object_object_add(*result, "next", json_object_get(tsctl_get(page, "next")));
        json_object_put(page);
    }
    if (rc != 0) {
        json_object_put(*result);
        *result = NULL;
    }
    return rc;
}

int tsctl_cmd_snapshots_list(tsctl_ctx *ctx, int argc, char **argv)
{
    bool pending = false;
    const tsctl_option opts[] = {
        {"pending", 0, NULL, &pending},
        {NULL, 0, NULL, NULL},
    };
    struct json_object *result = NULL;
    struct json_object *list;
    tsctl_args args;
    int rc;

    rc = tsctl_parse(ctx, argc, argv, opts, TSCTL_PARSE_JSON, &args);
    if (rc == 0)
        rc = tsctl_want_args(ctx, &args, 0, NULL);
    if (rc == 0)
        rc = tsctl_need_store(ctx);
    if (rc != 0)
        return rc;
    rc = list_all(ctx, pending, &result);
    if (rc != 0)
        return rc;
    list = tsctl_get(result, "snapshots");
    if (!json_object_is_type(list, json_type_array)) {
        json_object_put(result);
        return tsctl_fail(ctx, TSCTL_EXIT_FAILED, "the daemon sent no snapshot list");
    }
    print_problems(ctx, result);
    rc = ctx->json ? tsctl_print_json(ctx, list) : print_list_table(ctx, list);
    json_object_put(result);
    return rc;
}

static void print_indented_json(const struct json_object *v, const char *indent)
{
    ts_buf b;
    const char *p;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    if (ts_json_write_pretty(v, &b, NULL) < 0 || b.data == NULL) {
        ts_buf_free(&b);
        printf("%s?\n", indent);
        return;
    }
    for (p = b.data; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);

        printf("%s%.*s\n", indent, (int)len, p);
        p += len + (nl ? 1 : 0);
    }
    ts_buf_free(&b);
}

static void print_snapshot(const tsctl_ctx *ctx, const struct json_object *snap, const char *file)
{
    struct json_object *calls = tsctl_get(snap, "calls");
    bool approved = tsctl_bool(snap, "approved");
    bool c = ctx->color_out;
    size_t n = json_object_is_type(calls, json_type_array) ? json_object_array_length(calls) : 0;
    size_t i;

    printf("%sName:%s     %s\n", tsctl_c(c, TSCTL_BOLD), tsctl_c(c, TSCTL_RESET),
           tsctl_str(snap, "name", "?"));
    printf("File:     %s\n", file);
    printf("Status:   %s%s%s\n", tsctl_c(c, approved ? TSCTL_GREEN : TSCTL_YELLOW),
           approved ? "✓ approved" : "○ pending", tsctl_c(c, TSCTL_RESET));
    printf("Source:   %s\n", tsctl_str(snap, "source", "?"));
    printf("Created:  %s\n", tsctl_str(snap, "created_at", "?"));
    printf("Updated:  %s\n", tsctl_str(snap, "updated_at", "?"));
    printf("Version:  %s\n", tsctl_str(snap, "toolscore_version", "?"));
    printf("Calls:    %zu\n", n);
    for (i = 0; i < n; i++) {
        struct json_object *call = json_object_array_get_idx(calls, i);
        struct json_object *call_args = NULL;

        printf("\n%sCall %zu — %s%s\n", tsctl_c(c, TSCTL_BOLD), i + 1, tsctl_str(call, "tool", "?"),
               tsctl_c(c, TSCTL_RESET));
        if (!json_object_object_get_ex(call, "args", &call_args) || call_args == NULL)
            printf("  (any args: arguments are not checked)\n");
        else
            print_indented_json(call_args, "  ");
    }
}

int tsctl_cmd_snapshots_show(tsctl_ctx *ctx, int argc, char **argv)
{
    struct json_object *result = NULL;
    struct json_object *snap;
    tsctl_args args;
    int rc;

    rc = tsctl_parse(ctx, argc, argv, NULL, TSCTL_PARSE_JSON, &args);
    if (rc == 0)
        rc = tsctl_want_args(ctx, &args, 1, "one NAME");
    if (rc == 0)
        rc = tsctl_need_store(ctx);
    if (rc != 0)
        return rc;
    rc = tsctl_call_name(ctx, "show", args.pos[0], 0, &result);
    if (rc != 0)
        return rc;
    snap = tsctl_get(result, "snapshot");
    if (!json_object_is_type(snap, json_type_object)) {
        json_object_put(result);
        return tsctl_fail(ctx, TSCTL_EXIT_FAILED, "the daemon sent no snapshot");
    }
    if (ctx->json)
        rc = tsctl_print_json(ctx, snap);
    else
        print_snapshot(ctx, snap, tsctl_str(result, "file", "?"));
    json_object_put(result);
    return rc;
}

/* Ask "question [y/N] " on the terminal; true only for y/yes. */
static bool confirm(const char *question)
{
    char line[64];
    size_t len;

    printf("%s [y/N] ", question);
    fflush(stdout);
    if (fgets(line, sizeof(line), stdin) == NULL)
        return false;
    len = strcspn(line, "\r\n");
    line[len] = '\0';
    return strcmp(line, "y") == 0 || strcmp(line, "Y") == 0 || strcmp(line, "yes") == 0 ||
           strcmp(line, "YES") == 0 || strcmp(line, "Yes") == 0;
}

/* Whether the last request failed because the snapshot's file exists but is
 * not a readable snapshot (as opposed to no such name or no daemon). */
static bool unreadable_snapshot(const tsctl_ctx *ctx)
{
    static const char *const codes[] = {TS_ERR_INVALID_JSON, TS_ERR_INVALID_SNAPSHOT,
                                        TS_ERR_INVALID_CALLS, TS_ERR_LIMIT, TS_ERR_TOO_LARGE};
    size_t i;

    if (ctx->unreachable)
        return false;
    for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        if (strcmp(ctx->last_error.code, codes[i]) == 0)
            return true;
    }
    return false;
}

int tsctl_cmd_snapshots_rm(tsctl_ctx *ctx, int argc, char **argv)
{
    bool yes = false;
    const tsctl_option opts[] = {
        {"yes", 'y', NULL, &yes},
        {NULL, 0, NULL, NULL},
    };
    struct json_object *result = NULL;
    char question[4200];
    tsctl_args args;
    int rc;

    rc = tsctl_parse(ctx, argc, argv, opts, 0, &args);
    if (rc == 0)
        rc = tsctl_want_args(ctx, &args, 1, "one NAME");
    if (rc == 0)
        rc = tsctl_need_store(ctx);
    if (rc != 0)
        return rc;
    if (!yes && !tsctl_interactive())
        return tsctl_usage_error(ctx, "not a terminal: refusing to delete without --yes");
    rc = tsctl_call_name(ctx, "show", args.pos[0], TSCTL_CALL_QUIET, &result);
    if (rc != 0 && !unreadable_snapshot(ctx))
        return tsctl_fail(ctx, rc, "%s", ctx->last_error.message);
    if (rc != 0) {
        /* The file is there but does not parse (a bad merge, an editor):
         * deleting it is what rm is for. */
        fprintf(stderr, "%swarning:%s %s; deleting the file anyway\n",
                tsctl_c(ctx->color_err, TSCTL_YELLOW), tsctl_c(ctx->color_err, TSCTL_RESET),
                ctx->last_error.message);
        result = json_object_new_object();
    }
    if (!yes) {
        snprintf(question, sizeof(question), "Delete snapshot '%s' (%s)?", args.pos[0],
                 tsctl_str(result, "file", "the unreadable file"));
        if (!confirm(question)) {
            json_object_put(result);
            printf("Aborted.\n");
            return TSCTL_EXIT_OK;
        }
    }
    json_object_put(result);
    rc = tsctl_call_name(ctx, "rm", args.pos[0], 0, &result);
    if (rc != 0)
        return rc;
    printf("Deleted snapshot '%s' (%s).\n", args.pos[0], tsctl_str(result, "file", "?"));
    json_object_put(result);
    return TSCTL_EXIT_OK;
}

/* What approve did, never claiming what it did not change: a table of the
 * snapshots it approved and "Approved N snapshot(s).", then a line for each
 * one that was approved already, and where an observation is kept for a
 * name, the hint that `tsctl accept` takes those calls instead. */
static int print_approved(const tsctl_ctx *ctx, const struct json_object *list)
{
    static const column cols[] = {COL_NAME, COL_CALLS, COL_AGE};
    struct json_object *changed = json_object_new_array();
    size_t n = json_object_array_length(list);
    bool c = ctx->color_out;
    int rc = 0;

    if (changed == NULL)
        return tsctl_fail(ctx, TSCTL_EXIT_FAILED, "out of memory");
    for (size_t i = 0; i < n; i++) {
        struct json_object *e = json_object_array_get_idx(list, i);

        if (tsctl_bool(e, "changed"))
            json_object_array_add(changed, json_object_get(e));
    }
    if (json_object_array_length(changed) > 0) {
        rc = print_snapshot_table(ctx, cols, 3, changed);
        if (rc == 0)
            printf("\n%sApproved %zu snapshot(s).%s\n", tsctl_c(c, TSCTL_GREEN),
                   json_object_array_length(changed), tsctl_c(c, TSCTL_RESET));
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        struct json_object *e = json_object_array_get_idx(list, i);
        const char *name = tsctl_str(e, "name", "?");

        if (!tsctl_bool(e, "changed"))
            printf("'%s' is already approved%s\n", name,
                   tsctl_bool(e, "observation")
                       ? "; its last check did not match: the calls it observed are kept"
                       : ".");
        if (tsctl_bool(e, "observation")) {
            printf("  %s`", tsctl_c(c, TSCTL_BOLD));
            tsctl_print_command(stdout, "tsctl accept", name);
            printf("`%s makes the calls observed last its baseline (`", tsctl_c(c, TSCTL_RESET));
            tsctl_print_command(stdout, "tsctl diff", name);
            printf("` shows them).\n");
        }
    }
    json_object_put(changed);
    return rc;
}

int tsctl_cmd_approve(tsctl_ctx *ctx, int argc, char **argv)
{
    bool all = false;
    const tsctl_option opts[] = {
        {"all", 'a', NULL, &all},
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
    if (rc == 0)
        rc = tsctl_need_store(ctx);
    if (rc != 0)
        return rc;
    rc = tsctl_call_approve(ctx, args.pos, args.npos, all, &result);
    if (rc != 0)
        return rc;
    list = tsctl_get(result, "approved");
    if (!json_object_is_type(list, json_type_array)) {
        json_object_put(result);
        return tsctl_fail(ctx, TSCTL_EXIT_FAILED, "the daemon sent no approval list");
    }
    if (ctx->json)
        rc = tsctl_print_json(ctx, list);
    else if (json_object_array_length(list) == 0)
        printf("No pending snapshots found — nothing to approve.\n");
    else
        rc = print_approved(ctx, list);
    json_object_put(result);
    return rc;
}
