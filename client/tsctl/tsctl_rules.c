/*
 * tsctl_rules — comparison rules on the command line (docs/rules.md):
 * `tsctl rules check [FILE]`,
 * which validates the project's (or a given) rules file and prints what
 * each pattern matches in the store's snapshots, and which snapshots still
 * hold a value a redact rule would hide. Runs in-process on lib/ (reading
 * the snapshot files, writing nothing); needs no daemon.
 */
#include "client/tsctl/tsctl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/base/ts_base.h"
#include "lib/rules/ts_rules.h"
#include "lib/store/ts_store.h"

static const char *const kind_names[] = {"ignore", "redact", "match"};

static const char *plural(size_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* "3 values in 2 snapshots", "no match". */
static void describe(char *out, size_t outsz, size_t values, size_t lists, const char *unit)
{
    if (values == 0)
        snprintf(out, outsz, "no match");
    else
        snprintf(out, outsz, "%zu %s%s in %zu %s", values, unit, values == 1 ? "" : "s", lists,
                 plural(lists, "snapshot", "snapshots"));
}

typedef struct leak {
    char *name, *file;
} leak;

typedef struct check_state {
    ts_rules_census census;
    leak *leaks;
    size_t n_leaks;
    size_t snapshots;
    size_t problems;
} check_state;

static int add_leak(check_state *st, const char *name, const char *file)
{
    leak *l = realloc(st->leaks, (st->n_leaks + 1) * sizeof(*l));

    if (l == NULL)
        return -ENOMEM;
    st->leaks = l;
    l[st->n_leaks].name = strdup(name);
    l[st->n_leaks].file = strdup(file);
    if (l[st->n_leaks].name == NULL || l[st->n_leaks].file == NULL) {
        free(l[st->n_leaks].name);
        free(l[st->n_leaks].file);
        return -ENOMEM;
    }
    st->n_leaks++;
    return 0;
}

/* Every snapshot of the root through the census. A missing root holds
 * none. */
static int survey(const tsctl_ctx *ctx, const ts_rules *rules, check_state *st)
{
    ts_store *store = NULL;
    ts_store_listing listing;
    struct stat sb;
    ts_error err;
    int rc;

    if (stat(ctx->dir, &sb) < 0 && errno == ENOENT)
        return 0;
    if (ts_store_open(ctx->dir, &store, &err) < 0)
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "%s: %s", ctx->dir, err.message);
    rc = ts_store_list(store, &listing, &err);
    if (rc < 0) {
        ts_store_close(store);
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "%s: %s", ctx->dir, err.message);
    }
    st->snapshots = listing.count;
    st->problems = listing.problem_count;
    for (size_t i = 0; rc == 0 && i < listing.count; i++) {
        bool redactable = false;
        char path[4096];
        rc = ts_rules_census_add(rules, listing.items[i]->calls, &st->census, &redactable);
        if (rc == 0 && redactable) {
            snprintf(path, sizeof(path), "%s/%s", ctx->dir, listing.files[i]);
            rc = add_leak(st, listing.items[i]->name, path);
        }
    }
    ts_store_listing_free(&listing);
    ts_store_close(store);
    return rc < 0 ? tsctl_fail(ctx, TSCTL_EXIT_FAILED, "out of memory") : 0;
}

static int print_text(const tsctl_ctx *ctx, const char *file, const ts_rules *rules,
                      const check_state *st)
{
    tsctl_table t;
    char what[128], counts[128];

    printf("%s: valid; order %s\n", file, ts_rules_order_name(ts_rules_order_of(rules)));
    printf("%s: %zu %s%s\n", ctx->dir, st->snapshots,
           plural(st->snapshots, "snapshot", "snapshots"),
           st->problems > 0 ? " (and unreadable files: see tsctl status)" : "");
    tsctl_table_init(&t, 3);
    {
        const char *header[3] = {"Rule", "Pattern", "In the snapshots"};
        tsctl_table_add(&t, header);
    }
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; i < ts_rules_pattern_count(rules, k); i++) {
            const char *cells[3] = {kind_names[k], what, counts};
            if (k == 2)
                snprintf(what, sizeof(what), "%s (%s)", ts_rules_pattern(rules, k, i),
                         ts_rules_matcher_name(rules, i));
            else
                snprintf(what, sizeof(what), "%s", ts_rules_pattern(rules, k, i));
            describe(counts, sizeof(counts), st->census.values[k][i], st->census.lists[k][i],
                     "value");
            tsctl_table_add(&t, cells);
        }
    }
    for (size_t i = 0; i < ts_rules_tool_count(rules); i++) {
        const char *cells[3] = {"tools", what, counts};
        snprintf(what, sizeof(what), "%s (ignore)", ts_rules_tool(rules, i));
        describe(counts, sizeof(counts), st->census.tool_calls[i], st->census.tool_lists[i],
                 "call");
        tsctl_table_add(&t, cells);
    }
    tsctl_table_print(&t, stdout, false);
    tsctl_table_free(&t);
    if (st->n_leaks > 0) {
        printf("\n%zu %s still %s a value a redact rule would hide (re-record %s):\n", st->n_leaks,
               plural(st->n_leaks, "snapshot", "snapshots"), plural(st->n_leaks, "holds", "hold"),
               plural(st->n_leaks, "it", "them"));
        for (size_t i = 0; i < st->n_leaks; i++)
            printf("  %s (%s)\n", st->leaks[i].name, st->leaks[i].file);
    }
    return 0;
}

static struct json_object *counted(const char *kind, const char *pattern, const char *matcher,
                                   size_t values, size_t lists)
{
    struct json_object *o = json_object_new_object();

    json_object_object_add(o, "kind", json_object_new_string(kind));
    json_object_object_add(o, kind[0] == 't' ? "tool" : "pattern", json_object_new_string(pattern));
    if (matcher != NULL)
        json_object_object_add(o, "matcher", json_object_new_string(matcher));
    json_object_object_add(o, "values", json_object_new_int64((int64_t)values));
    json_object_object_add(o, "snapshots", json_object_new_int64((int64_t)lists));
    return o;
}

static int print_json(const tsctl_ctx *ctx, const char *file, const ts_rules *rules,
                      const check_state *st)
{
    struct json_object *o = json_object_new_object(), *list = json_object_new_array();
    struct json_object *leaks = json_object_new_array();
    int rc;

    json_object_object_add(o, "file", json_object_new_string(file));
    json_object_object_add(o, "valid", json_object_new_boolean(1));
    json_object_object_add(o, "rules",
                           json_object_get((struct json_object *)ts_rules_object(rules)));
    json_object_object_add(o, "snapshots", json_object_new_int64((int64_t)st->snapshots));
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; i < ts_rules_pattern_count(rules, k); i++)
            json_object_array_add(list, counted(kind_names[k], ts_rules_pattern(rules, k, i),
                                                k == 2 ? ts_rules_matcher_name(rules, i) : NULL,
                                                st->census.values[k][i], st->census.lists[k][i]));
    }
    for (size_t i = 0; i < ts_rules_tool_count(rules); i++)
        json_object_array_add(list, counted("tools", ts_rules_tool(rules, i), NULL,
                                            st->census.tool_calls[i], st->census.tool_lists[i]));
    json_object_object_add(o, "patterns", list);
    for (size_t i = 0; i < st->n_leaks; i++) {
        struct json_object *l = json_object_new_object();
        json_object_object_add(l, "name", json_object_new_string(st->leaks[i].name));
        json_object_object_add(l, "file", json_object_new_string(st->leaks[i].file));
        json_object_array_add(leaks, l);
    }
    json_object_object_add(o, "redactable", leaks);
    rc = tsctl_print_json(ctx, o);
    json_object_put(o);
    return rc;
}

int tsctl_cmd_rules_check(tsctl_ctx *given, int argc, char **argv)
{
    char project[4096];
    char dir[4096];
    const char *file;
    ts_rules *rules = NULL;
    check_state st;
    tsctl_args args;
    tsctl_ctx local;
    tsctl_ctx *ctx = &local;
    struct stat sb;
    int rc;

    rc = tsctl_parse(given, argc, argv, NULL, TSCTL_PARSE_JSON, &args);
    if (rc == 0 && args.npos > 1)
        rc = tsctl_usage_error(given, "at most one FILE");
    /* the snapshot root this command uses (--dir, TOOLSCORE_DIR, the project's) */
    if (rc == 0)
        rc = tsctl_root_choice(given, dir, sizeof(dir), NULL, 0);
    if (rc != 0)
        return rc;
    local = *given;
    local.dir = dir;
    if (args.npos == 1) {
        file = args.pos[0];
    } else {
        if (ts_rules_config_path(ctx->dir, project, sizeof(project)) < 0)
            return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "%s: path too long", ctx->dir);
        file = project;
        if (stat(file, &sb) < 0 && errno == ENOENT) {
            printf("%s: no rules file, so no rules apply (docs/rules.md)\n", file);
            return TSCTL_EXIT_OK;
        }
    }
    rc = tsctl_read_rules(ctx, file, &rules);
    if (rc != 0)
        return rc;
    memset(&st, 0, sizeof(st));
    if (ts_rules_census_init(rules, &st.census) < 0)
        rc = tsctl_fail(ctx, TSCTL_EXIT_FAILED, "out of memory");
    if (rc == 0)
        rc = survey(ctx, rules, &st);
    if (rc == 0)
        rc = ctx->json ? print_json(ctx, file, rules, &st) : print_text(ctx, file, rules, &st);
    if (rc == 0 && st.n_leaks > 0)
        rc = TSCTL_EXIT_FAILED;
    for (size_t i = 0; i < st.n_leaks; i++) {
        free(st.leaks[i].name);
        free(st.leaks[i].file);
    }
    free(st.leaks);
    ts_rules_census_free(&st.census);
    ts_rules_unref(rules);
    return rc;
}
