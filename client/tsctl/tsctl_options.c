/*
 * tsctl_options — every option tsctl reads from its command line, in one
 * place (see tsctl.h): the parser every command uses (long and short
 * options, values as `--opt V` or `--opt=V`, the common options --dir,
 * --socket, --json, -h/--help and --version, the common options before
 * the command word), and the values that need checking (--format,
 * --min-score, --weights: the scoring options check and eval share).
 *
 * Options may come before or after positional arguments; "--" ends option
 * parsing (record and run take the command to run after it). Common options
 * may also stand before the command word: `tsctl --dir D snapshots list`.
 */
#include "client/tsctl/tsctl.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/extract/ts_extract.h"
#include "lib/json/ts_json.h"
#include "lib/score/ts_score.h"
#include "ts_version.h"

#define TSCTL_MAX_POS 256

/* ---- the parser --------------------------------------------------------- */

int tsctl_usage_error(const tsctl_ctx *ctx, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "tsctl%s%s: ", ctx->command ? " " : "", ctx->command ? ctx->command : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see 'tsctl%s%s --help')\n", ctx->command ? " " : "",
            ctx->command ? ctx->command : "");
    return TSCTL_EXIT_USAGE;
}

int tsctl_want_args(const tsctl_ctx *ctx, const tsctl_args *args, int count, const char *what)
{
    if (args->npos == count)
        return 0;
    if (count == 0)
        return tsctl_usage_error(ctx, "unexpected argument '%s'", args->pos[0]);
    return tsctl_usage_error(ctx, "expected %s (got %d)", what, args->npos);
}

/* Drop repeated names from names[0..count) in place; the new count. */
static int unique_names(char **names, int count)
{
    int kept = 0;
    int i;
    int j;

    for (i = 0; i < count; i++) {
        for (j = 0; j < kept; j++) {
            if (strcmp(names[j], names[i]) == 0)
                break;
        }
        if (j == kept)
            names[kept++] = names[i];
    }
    return kept;
}

int tsctl_want_names_or_all(const tsctl_ctx *ctx, tsctl_args *args, bool all)
{
    if (all && args->npos > 0)
        return tsctl_usage_error(ctx, "give NAMEs or --all, not both");
    if (!all && args->npos == 0)
        return tsctl_usage_error(ctx, "expected NAME... or --all");
    args->npos = unique_names(args->pos, args->npos);
    return 0;
}

int tsctl_want_run_or_reports(const tsctl_ctx *ctx, const tsctl_args *args, const char *run,
                              bool from_reports)
{
    if (from_reports && run != NULL)
        return tsctl_usage_error(ctx, "give either --run ID or --from-reports, not both");
    if (from_reports && args->npos == 0)
        return tsctl_usage_error(ctx, "--from-reports needs one or more SHARD.json files");
    if (!from_reports)
        return tsctl_want_args(ctx, args, 0, NULL);
    return 0;
}

static const tsctl_option *find_long(const tsctl_option *opts, const char *name, size_t len)
{
    for (; opts != NULL && opts->name != NULL; opts++) {
        if (strlen(opts->name) == len && strncmp(opts->name, name, len) == 0)
            return opts;
    }
    return NULL;
}

static const tsctl_option *find_short(const tsctl_option *opts, char c)
{
    for (; opts != NULL && opts->name != NULL; opts++) {
        if (opts->short_name == c)
            return opts;
    }
    return NULL;
}

/* Handle a common option; returns 1 when it matched, 0 when not, or an exit
 * code / TSCTL_DONE (--version) / TSCTL_HELP (--help) via *rc. */
static int common_option(tsctl_ctx *ctx, const char *name, size_t len, bool json_ok, int *rc)
{
    *rc = 0;
    if ((len == 4 && strncmp(name, "help", 4) == 0)) {
        *rc = TSCTL_HELP; /* main prints it */
        return 1;
    }
    if (len == 7 && strncmp(name, "version", 7) == 0) {
        printf("tsctl %s\n", TS_VERSION);
        *rc = TSCTL_DONE;
        return 1;
    }
    if (len == 4 && strncmp(name, "json", 4) == 0) {
        if (!json_ok) {
            *rc = tsctl_usage_error(ctx, "--json is not supported by this command");
            return 1;
        }
        ctx->json = true;
        return 1;
    }
    return 0;
}

/* Options of the common set taking a value: returns the slot or NULL. */
static const char **common_value_slot(tsctl_ctx *ctx, const char *name, size_t len)
{
    if (len == 3 && strncmp(name, "dir", 3) == 0)
        return &ctx->dir;
    if (len == 6 && strncmp(name, "socket", 6) == 0)
        return &ctx->socket;
    return NULL;
}

static int parse_long(tsctl_ctx *ctx, int argc, char **argv, int *i, const tsctl_option *opts,
                      bool json_ok)
{
    const char *arg = argv[*i] + 2;
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    const tsctl_option *o = find_long(opts, arg, len);
    const char **slot = NULL;
    bool *flag = NULL;
    int rc;

    if (o != NULL) {
        slot = o->value;
        flag = o->flag;
    } else if (common_option(ctx, arg, len, json_ok, &rc)) {
        if (eq != NULL && rc == 0)
            return tsctl_usage_error(ctx, "option '--%.*s' takes no value", (int)len, arg);
        return rc;
    } else {
        slot = common_value_slot(ctx, arg, len);
        if (slot == NULL)
            return tsctl_usage_error(ctx, "unknown option '--%.*s'", (int)len, arg);
    }
    if (flag != NULL) {
        if (eq != NULL)
            return tsctl_usage_error(ctx, "option '--%.*s' takes no value", (int)len, arg);
        *flag = true;
        return 0;
    }
    if (eq != NULL) {
        *slot = eq + 1;
        return 0;
    }
    if (*i + 1 >= argc)
        return tsctl_usage_error(ctx, "option '--%s' needs a value", arg);
    *i += 1;
    *slot = argv[*i];
    return 0;
}

static int parse_short(tsctl_ctx *ctx, int argc, char **argv, int *i, const tsctl_option *opts)
{
    const char *arg = argv[*i];
    const tsctl_option *o;
    int rc;

    if (strcmp(arg, "-h") == 0) {
        common_option(ctx, "help", 4, true, &rc);
        return rc;
    }
    if (arg[2] != '\0')
        return tsctl_usage_error(ctx, "unknown option '%s'", arg);
    o = find_short(opts, arg[1]);
    if (o == NULL)
        return tsctl_usage_error(ctx, "unknown option '%s'", arg);
    if (o->flag != NULL) {
        *o->flag = true;
        return 0;
    }
    if (*i + 1 >= argc)
        return tsctl_usage_error(ctx, "option '%s' needs a value", arg);
    *i += 1;
    *o->value = argv[*i];
    return 0;
}

int tsctl_parse(tsctl_ctx *ctx, int argc, char **argv, const tsctl_option *opts, int flags,
                tsctl_args *args)
{
    static char *pos[TSCTL_MAX_POS];
    int i;
    int rc;

    memset(args, 0, sizeof(*args));
    args->pos = pos;
    /* A --json given before the command word must be one it accepts too. */
    if (ctx->json && !(flags & TSCTL_PARSE_JSON))
        return tsctl_usage_error(ctx, "--json is not supported by this command");
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (strcmp(a, "--") == 0 && (flags & TSCTL_PARSE_COMMAND)) {
            args->dashdash = true;
            args->rest = argv + i + 1;
            args->nrest = argc - i - 1;
            break;
        }
        if (strcmp(a, "--") == 0) {
            for (i++; i < argc; i++) {
                if (args->npos >= TSCTL_MAX_POS)
                    return tsctl_usage_error(ctx, "too many arguments");
                pos[args->npos++] = argv[i];
            }
            break;
        }
        if (a[0] == '-' && a[1] == '-') {
            rc = parse_long(ctx, argc, argv, &i, opts, (flags & TSCTL_PARSE_JSON) != 0);
        } else if (a[0] == '-' && a[1] != '\0') {
            rc = parse_short(ctx, argc, argv, &i, opts);
        } else {
            if (args->npos >= TSCTL_MAX_POS)
                return tsctl_usage_error(ctx, "too many arguments");
            pos[args->npos++] = argv[i];
            rc = 0;
        }
        if (rc != 0)
            return rc;
    }
    /* An explicit empty --socket is a mistake, not "the default socket"
     * (an empty TOOLSCORE_SOCKET is unset, like an empty TOOLSCORE_DIR). */
    if (ctx->socket != NULL && ctx->socket[0] == '\0')
        return tsctl_usage_error(ctx, "invalid socket path '': empty path");
    return 0;
}

/* Leading common options before the command word. Returns the index of the
 * command word, or -1 with *rc set. */
int tsctl_parse_leading(tsctl_ctx *ctx, int argc, char **argv, int *rc)
{
    int i;

    *rc = 0;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (a[0] != '-' || strcmp(a, "-") == 0)
            return i;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            *rc = TSCTL_HELP;
            return -1;
        }
        if (strncmp(a, "--", 2) != 0) {
            *rc = tsctl_usage_error(ctx, "unknown option '%s'", a);
            return -1;
        }
        *rc = parse_long(ctx, argc, argv, &i, NULL, true);
        if (*rc == TSCTL_DONE) {
            *rc = TSCTL_EXIT_OK;
            return -1;
        }
        if (*rc != 0)
            return -1;
    }
    *rc = tsctl_usage_error(ctx, "missing command");
    return -1;
}

/* ---- values ------------------------------------------------------------- */

int tsctl_parse_weights(const tsctl_ctx *ctx, const char *text, ts_weights *out,
                        struct json_object **json_out)
{
    struct json_object *obj = NULL;
    ts_error err;
    int rc;

    if (text[0] == '@') {
        rc = tsctl_read_json(ctx, text + 1, &obj);
        if (rc != 0)
            return rc;
    } else {
        rc = ts_json_parse(text, strlen(text), 0, &obj, &err);
        if (rc < 0)
            return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "invalid --weights: %s", err.message);
    }
    if (!json_object_is_type(obj, json_type_object)) {
        json_object_put(obj);
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE,
                          "invalid --weights: expected a JSON object such as "
                          "'{\"selection_accuracy\": 1}'");
    }
    rc = ts_weights_from_json(obj, out, &err);
    if (rc < 0) {
        json_object_put(obj);
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "invalid --weights: %s", err.message);
    }
    if (json_out != NULL)
        *json_out = obj;
    else
        json_object_put(obj);
    return 0;
}

int tsctl_parse_min_score(const tsctl_ctx *ctx, const char *text, double *out)
{
    char *end = NULL;
    double v;

    errno = 0;
    v = strtod(text, &end);
    if (text[0] == '\0' || end == text || *end != '\0' || errno != 0 || !isfinite(v))
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "invalid --min-score '%s': not a number", text);
    if (v < 0.0 || v > 1.0)
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE,
                          "invalid --min-score '%s': must lie between 0 and 1", text);
    *out = v;
    return 0;
}

int tsctl_check_format(const tsctl_ctx *ctx, const char *format)
{
    if (format == NULL || ts_extract_format_known(format))
        return 0;
    return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "unknown format '%s' (supported: %s)", format,
                      ts_extract_format_list());
}

int tsctl_scoring_parse(const tsctl_ctx *ctx, const tsctl_scoring_opts *s, ts_score_options *out,
                        struct json_object **weights_json)
{
    int rc;

    ts_score_options_default(out);
    out->strict = s->strict;
    if (weights_json != NULL)
        *weights_json = NULL;
    rc = tsctl_check_format(ctx, s->format);
    if (rc == 0 && s->min_score != NULL)
        rc = tsctl_parse_min_score(ctx, s->min_score, &out->min_score);
    if (rc == 0 && s->weights != NULL)
        rc = tsctl_parse_weights(ctx, s->weights, &out->weights, weights_json);
    return rc;
}
