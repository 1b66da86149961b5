/*
 * options — parsing the daemon's command line (see server.h).
 */
#include "daemon/server/server.h"

#include "proto/ts_proto.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: toolscored [OPTIONS]\n"
    "\n"
    "Serve snapshot stores to toolscore clients over a Unix socket.\n"
    "\n"
    "  --socket PATH        listen on PATH (default $XDG_RUNTIME_DIR/toolscore/\n"
    "                       toolscored.sock, or /tmp/toolscore-UID/toolscored.sock)\n"
    "  --store DIR          serve only the snapshot root DIR; refuse others\n"
    "  --foreground         log to stderr and print the socket path when ready\n"
    "  --idle-timeout S     exit after S seconds without a client (0: never; the\n"
    "                       default, but for a daemon a client started: 900, or\n"
    "                       $TOOLSCORED_IDLE_TIMEOUT)\n"
    "  --log-level LEVEL    debug, info (default), warn or error\n"
    "  --log-file FILE      append the log to FILE\n"
    "  --max-frame BYTES    largest request frame accepted (default 16777216)\n"
    "  --memory-budget SIZE resident memory the daemon keeps under, in bytes or\n"
    "                       with K, M or G (default 512M, at least 32M)\n"
    "  --hello-timeout S    close a connection without hello after S seconds\n"
    "                       (default 5)\n"
    "  --frame-timeout S    close a connection that leaves a frame incomplete\n"
    "                       for S seconds (default 30)\n"
    "  --state-dir DIR      keep runs and observations in DIR (default\n"
    "                       $XDG_STATE_HOME/toolscore, or ~/.local/state/toolscore)\n"
    "  --runs-keep N        closed runs kept for reports and orphans (default 100)\n"
    "  --runs-max-age AGE   drop runs closed (or idle) longer ago, e.g. 7d, 12h, 90m,\n"
    "                       3600s (default 7d)\n"
    "  -h, --help           show this help and exit\n"
    "  --version            print the version and exit\n";

const char *tsd_options_usage(void)
{
    return usage_text;
}

static int dup_into(char **slot, const char *value, ts_error *err)
{
    char *copy = strdup(value);

    if (copy == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    free(*slot);
    *slot = copy;
    return 0;
}

static int parse_seconds_of(const char *option, double min, const char *value, uint64_t *ms,
                            ts_error *err)
{
    char *end = NULL;
    double s;

    errno = 0;
    s = strtod(value, &end);
    if (value[0] == '\0' || end == NULL || *end != '\0' || errno != 0 || !isfinite(s) || s < min ||
        s > 31536000.0)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "%s: not a number of seconds (%g to 31536000): '%s'", option, min,
                            value);
    *ms = (uint64_t)(s * 1000.0 + 0.5);
    if (s > 0 && *ms == 0)
        *ms = 1;
    return 0;
}

static int parse_seconds(const char *value, uint64_t *ms, ts_error *err)
{
    return parse_seconds_of("--idle-timeout", 0, value, ms, err);
}

int tsd_options_auto_started(tsd_options *opt, const char *env, ts_error *err)
{
    opt->auto_started = true;
    if (opt->idle_timeout_given)
        return 0;
    if (env == NULL || env[0] == '\0') {
        opt->idle_timeout_ms = TSD_DEFAULT_AUTO_IDLE_TIMEOUT_MS;
        return 0;
    }
    return parse_seconds_of(TSD_IDLE_TIMEOUT_ENV, 0, env, &opt->idle_timeout_ms, err);
}

static int parse_frame(const char *value, size_t *out, ts_error *err)
{
    char *end = NULL;
    unsigned long long n;

    errno = 0;
    n = strtoull(value, &end, 10);
    if (value[0] < '0' || value[0] > '9' || *end != '\0' || errno != 0 || n < TSD_MIN_MAX_FRAME ||
        n > TSD_MAX_MAX_FRAME)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "--max-frame: expected a number of bytes from %u to %u, got '%s'",
                            TSD_MIN_MAX_FRAME, TSD_MAX_MAX_FRAME, value);
    *out = (size_t)n;
    return 0;
}

/* --memory-budget: bytes, or a number with K, M or G (powers of 1024). */
static int parse_budget(const char *value, size_t *out, ts_error *err)
{
    char *end = NULL;
    unsigned long long n;
    unsigned shift = 0;

    errno = 0;
    n = strtoull(value, &end, 10);
    if (end != NULL && end[0] != '\0' && end[1] == '\0') {
        switch (end[0]) {
        case 'k':
        case 'K':
            shift = 10;
            end++;
            break;
        case 'm':
        case 'M':
            shift = 20;
            end++;
            break;
        case 'g':
        case 'G':
            shift = 30;
            end++;
            break;
        default:
            break;
        }
    }
    if (value[0] < '0' || value[0] > '9' || *end != '\0' || errno != 0 ||
        n > (TSD_MAX_MEMORY_BUDGET >> shift) || (n << shift) < TSD_MIN_MEMORY_BUDGET)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "--memory-budget: expected a size from 32M to 1024G (bytes, or a "
                            "number with K, M or G), got '%s'",
                            value);
    *out = (size_t)(n << shift);
    return 0;
}

/* --store: resolved to an absolute, symlink-free path (relative to the
 * working directory), as clients name stores. */
static int parse_store(const char *value, char **out, ts_error *err)
{
    char resolved[TS_PATHS_MAX];
    int rc = ts_paths_resolve(value, resolved, sizeof(resolved), err);

    if (rc < 0)
        return ts_error_prefix(err, rc, "--store");
    return dup_into(out, resolved, err);
}

/* --runs-keep: 1 to 100000. */
static int parse_keep(const char *value, size_t *out, ts_error *err)
{
    char *end = NULL;
    unsigned long long n;

    errno = 0;
    n = strtoull(value, &end, 10);
    if (value[0] < '0' || value[0] > '9' || *end != '\0' || errno != 0 || n < 1 || n > 100000)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "--runs-keep: expected a number of runs from 1 to 100000, got '%s'",
                            value);
    *out = (size_t)n;
    return 0;
}

/* --runs-max-age: a number with an optional unit s, m, h or d (seconds by
 * default), from 1 second to 10 years. */
static int parse_age(const char *value, int64_t *out_s, ts_error *err)
{
    char *end = NULL;
    unsigned long long n;
    int64_t unit = 1;

    errno = 0;
    n = strtoull(value, &end, 10);
    if (end != NULL && end != value && *end != '\0' && end[1] == '\0') {
        unit = *end == 's' ? 1 : *end == 'm' ? 60 : *end == 'h' ? 3600 : *end == 'd' ? 86400 : 0;
        end++;
    }
    if (value[0] < '0' || value[0] > '9' || *end != '\0' || errno != 0 || unit == 0 || n < 1 ||
        n > 3650ULL * 86400 / (unsigned long long)unit)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "--runs-max-age: expected an age like 7d, 12h, 90m or 3600s (1 second "
                            "to 10 years), got '%s'",
                            value);
    *out_s = (int64_t)n * unit;
    return 0;
}

/* Split "--opt=value" or take the next argument as the value. */
static int option_value(int argc, char **argv, int *i, const char *name, const char **value,
                        ts_error *err)
{
    const char *arg = argv[*i];
    size_t n = strlen(name);

    if (strncmp(arg, name, n) == 0 && arg[n] == '=') {
        *value = arg + n + 1;
        return 0;
    }
    if (*i + 1 >= argc)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "%s needs a value", name);
    *i += 1;
    *value = argv[*i];
    return 0;
}

static bool is_option(const char *arg, const char *name)
{
    size_t n = strlen(name);

    return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

static int parse_one(int argc, char **argv, int *i, tsd_options *opt, ts_error *err)
{
    const char *arg = argv[*i];
    const char *value = NULL;
    int rc;

    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
        opt->action = TSD_HELP;
        return 0;
    }
    if (strcmp(arg, "--version") == 0) {
        opt->action = TSD_VERSION;
        return 0;
    }
    if (strcmp(arg, "--foreground") == 0) {
        opt->foreground = true;
        return 0;
    }
    static const char *const valued[] = {
        "--socket",       "--store",         "--idle-timeout",  "--log-level",
        "--log-file",     "--max-frame",     "--state-dir",     "--runs-keep",
        "--runs-max-age", "--memory-budget", "--hello-timeout", "--frame-timeout",
    };
    for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]); k++) {
        if (!is_option(arg, valued[k]))
            continue;
        rc = option_value(argc, argv, i, valued[k], &value, err);
        if (rc < 0)
            return rc;
        switch (k) {
        case 0:
            if (value[0] == '\0')
                return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "--socket: empty path");
            return dup_into(&opt->socket_path, value, err);
        case 1:
            return parse_store(value, &opt->store_root, err);
        case 2:
            opt->idle_timeout_given = true;
            return parse_seconds(value, &opt->idle_timeout_ms, err);
        case 3:
            if (tsd_log_level_parse(value, &opt->log_level) < 0)
                return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                                    "--log-level: expected debug, info, warn or error, got '%s'",
                                    value);
            return 0;
        case 4:
            return dup_into(&opt->log_file, value, err);
        case 5:
            return parse_frame(value, &opt->max_frame, err);
        case 6:
            if (value[0] != '/')
                return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                                    "--state-dir: must be an absolute path, got '%s'", value);
            return dup_into(&opt->state_dir, value, err);
        case 7:
            return parse_keep(value, &opt->runs_keep, err);
        case 8:
            return parse_age(value, &opt->runs_max_age_s, err);
        case 9:
            return parse_budget(value, &opt->memory_budget, err);
        case 10:
            return parse_seconds_of(valued[k], 0.1, value, &opt->hello_timeout_ms, err);
        default:
            return parse_seconds_of(valued[k], 0.1, value, &opt->frame_timeout_ms, err);
        }
    }
    if (arg[0] == '-')
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "unknown option '%s'", arg);
    return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "unexpected argument '%s'", arg);
}

int tsd_options_parse(int argc, char **argv, tsd_options *opt, ts_error *err)
{
    memset(opt, 0, sizeof(*opt));
    opt->log_level = TSD_LOG_INFO;
    opt->max_frame = TSD_DEFAULT_MAX_FRAME;
    opt->memory_budget = TSD_DEFAULT_MEMORY_BUDGET;
    opt->hello_timeout_ms = TSD_DEFAULT_HELLO_TIMEOUT_MS;
    opt->frame_timeout_ms = TSD_DEFAULT_FRAME_TIMEOUT_MS;
    opt->runs_keep = TSD_DEFAULT_RUNS_KEEP;
    opt->runs_max_age_s = TSD_DEFAULT_RUNS_MAX_AGE_S;
    for (int i = 1; i < argc; i++) {
        int rc = parse_one(argc, argv, &i, opt, err);

        if (rc < 0) {
            tsd_options_free(opt);
            return rc;
        }
        if (opt->action != TSD_RUN)
            return 0;
    }
    return 0;
}

void tsd_options_free(tsd_options *opt)
{
    free(opt->socket_path);
    free(opt->store_root);
    free(opt->log_file);
    free(opt->state_dir);
    opt->state_dir = NULL;
    opt->socket_path = NULL;
    opt->store_root = NULL;
    opt->log_file = NULL;
}
