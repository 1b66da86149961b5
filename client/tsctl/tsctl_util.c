/*
 * tsctl_util — helpers every tsctl command uses: error messages and exit
 * codes, reading JSON input files, printing JSON, ages and times, aligned
 * tables, environment flags.
 */
#include "client/tsctl/tsctl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/base/ts_base.h"
#include "lib/json/ts_json.h"
#include "lib/report/ts_report.h"
#include "lib/rules/ts_rules.h"
#include "lib/score/ts_score.h"

int tsctl_fail(const tsctl_ctx *ctx, int code, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "tsctl%s%s: ", ctx->command ? " " : "", ctx->command ? ctx->command : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return code;
}

int tsctl_exit_for_error(const ts_error *err)
{
    static const char *const usage_codes[] = {
        TS_ERR_INVALID_ARGUMENT, TS_ERR_INVALID_JSON, TS_ERR_INVALID_SNAPSHOT, TS_ERR_INVALID_CALLS,
        TS_ERR_INVALID_RULES,    TS_ERR_FORMAT,       TS_ERR_TOO_LARGE,        TS_ERR_LIMIT,
        "bad_request",           "store_refused",
    };
    size_t i;

    for (i = 0; i < sizeof(usage_codes) / sizeof(usage_codes[0]); i++) {
        if (strcmp(err->code, usage_codes[i]) == 0)
            return TSCTL_EXIT_USAGE;
    }
    return TSCTL_EXIT_FAILED;
}

/* Read all of fd into b (bounded by b->max). 0 or -errno / -E2BIG. */
static int read_all(int fd, ts_buf *b)
{
    char chunk[65536];
    ssize_t n;

    for (;;) {
        n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            return 0;
        if (ts_buf_append(b, chunk, (size_t)n) < 0)
            return ts_buf_error(b);
    }
}

int tsctl_read_file(const tsctl_ctx *ctx, const char *path, size_t max, ts_buf *b)
{
    const char *what = strcmp(path, "-") == 0 ? "<stdin>" : path;
    int fd = STDIN_FILENO;
    int rc;

    if (strcmp(path, "-") != 0) {
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "cannot read %s: %s", path, strerror(errno));
    }
    ts_buf_init(b, max);
    rc = read_all(fd, b);
    if (fd != STDIN_FILENO)
        close(fd);
    if (rc == -E2BIG) {
        ts_buf_free(b);
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "cannot read %s: larger than %zu bytes", what,
                          max);
    }
    if (rc < 0) {
        ts_buf_free(b);
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "cannot read %s: %s", what, strerror(-rc));
    }
    return 0;
}

int tsctl_read_text(const tsctl_ctx *ctx, const char *path, ts_buf *out)
{
    return tsctl_read_file(ctx, path, TS_JSON_MAX_BYTES, out);
}

int tsctl_read_json(const tsctl_ctx *ctx, const char *path, struct json_object **out)
{
    const char *what = strcmp(path, "-") == 0 ? "<stdin>" : path;
    ts_buf b;
    ts_error err;
    int rc;

    rc = tsctl_read_file(ctx, path, TS_JSON_MAX_BYTES, &b);
    if (rc != 0)
        return rc;
    rc = ts_json_parse(b.data ? b.data : "", b.len, 0, out, &err);
    ts_buf_free(&b);
    if (rc < 0)
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "%s: %s", what, err.message);
    return 0;
}

int tsctl_print_json(const tsctl_ctx *ctx, const struct json_object *v)
{
    ts_buf b;
    ts_error err;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    if (ts_json_write_pretty(v, &b, &err) < 0) {
        ts_buf_free(&b);
        return tsctl_fail(ctx, TSCTL_EXIT_FAILED, "cannot write JSON: %s", err.message);
    }
    fwrite(b.data ? b.data : "null", 1, b.data ? b.len : 4, stdout);
    fputc('\n', stdout);
    ts_buf_free(&b);
    return 0;
}

/* Seconds since the epoch of "YYYY-MM-DDTHH:MM:SS..." (UTC), or -1. */
static time_t parse_time(const char *timestamp)
{
    struct tm tm;
    const char *end;

    if (timestamp == NULL)
        return (time_t)-1;
    memset(&tm, 0, sizeof(tm));
    end = strptime(timestamp, "%Y-%m-%dT%H:%M:%S", &tm);
    if (end == NULL)
        return (time_t)-1;
    return timegm(&tm);
}

void tsctl_age(const char *timestamp, char *out, size_t outsz)
{
    time_t t = parse_time(timestamp);
    long days;

    if (t == (time_t)-1) {
        snprintf(out, outsz, "?");
        return;
    }
    days = (long)((time(NULL) - t) / 86400);
    if (days <= 0)
        snprintf(out, outsz, "today");
    else if (days == 1)
        snprintf(out, outsz, "1 day ago");
    else
        snprintf(out, outsz, "%ld days ago", days);
}

void tsctl_short_time(const char *timestamp, char *out, size_t outsz)
{
    time_t t = parse_time(timestamp);
    struct tm tm;

    if (t == (time_t)-1 || gmtime_r(&t, &tm) == NULL) {
        snprintf(out, outsz, "%s", timestamp ? timestamp : "?");
        return;
    }
    strftime(out, outsz, "%Y-%m-%d %H:%M", &tm);
}

const char *tsctl_c(bool on, const char *code)
{
    return on ? code : "";
}

/* The optimal string alignment distance of a[0..la) and b (adjacent
 * transpositions count one), or max + 1 once it is past max. */
static size_t edit_distance(const char *a, size_t la, const char *b, size_t max)
{
    size_t lb = strlen(b);
    size_t rows[3][65];
    size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

    if (la > 64 || lb > 64)
        return max + 1;
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t best = cur[0] = i;

        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t d = prev[j - 1] + cost;

            if (prev[j] + 1 < d)
                d = prev[j] + 1;
            if (cur[j - 1] + 1 < d)
                d = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                prev2[j - 2] + 1 < d)
                d = prev2[j - 2] + 1;
            cur[j] = d;
            best = d < best ? d : best;
        }
        if (best > max)
            return max + 1;
        size_t *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

const char *tsctl_did_you_mean(const char *word, size_t len, const char *const *candidates,
                               size_t n)
{
    /* as cargo and git do: a few edits, fewer for a short word */
    size_t max = len <= 3 ? 1 : len <= 6 ? 2 : 3;
    const char *best = NULL;
    size_t best_d = max + 1;

    for (size_t i = 0; i < n; i++) {
        size_t d = edit_distance(word, len, candidates[i], max);

        if (d < best_d) {
            best = candidates[i];
            best_d = d;
        }
    }
    return best;
}

void tsctl_print_command(FILE *f, const char *command, const char *name)
{
    ts_buf b;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    if (ts_shell_command(&b, command, name) == 0 && b.data != NULL)
        fputs(b.data, f);
    ts_buf_free(&b);
}

size_t tsctl_width(const char *s)
{
    return ts_repr_width(s, strlen(s));
}

void tsctl_pad(FILE *f, const char *s, size_t width)
{
    size_t w = tsctl_width(s);

    fputs(s, f);
    for (; w < width; w++)
        fputc(' ', f);
}

void tsctl_table_init(tsctl_table *t, size_t ncols)
{
    t->ncols = ncols;
    t->nrows = 0;
    t->cells = NULL;
}

/* A copy of a table cell with control characters made visible (C0, DEL
 * and the UTF-8 encoded C1 range, which some terminals obey as escape
 * sequences): `\t`, `\n`, `\r`, else `\xHH` / `\u00HH`. A name may hold
 * any of them; a table must stay one line per row and never drive the
 * terminal. NULL when out of memory. */
static char *table_cell(const char *text)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)text;
    char *out = malloc(strlen(text) * 6 + 1);
    size_t n = 0;

    if (out == NULL)
        return NULL;
    for (; *p != '\0'; p++) {
        if (*p == '\t' || *p == '\n' || *p == '\r') {
            out[n++] = '\\';
            out[n++] = *p == '\t' ? 't' : *p == '\n' ? 'n' : 'r';
        } else if (*p < 0x20 || *p == 0x7f) {
            out[n++] = '\\';
            out[n++] = 'x';
            out[n++] = hex[*p >> 4];
            out[n++] = hex[*p & 0xf];
        } else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
            memcpy(out + n, "\\u00", 4);
            n += 4;
            out[n++] = hex[p[1] >> 4];
            out[n++] = hex[p[1] & 0xf];
            p++;
        } else {
            out[n++] = (char)*p;
        }
    }
    out[n] = '\0';
    return out;
}

int tsctl_table_add(tsctl_table *t, const char *const *cells)
{
    char **grown = realloc(t->cells, (t->nrows + 1) * t->ncols * sizeof(char *));
    size_t i;

    if (grown == NULL)
        return -ENOMEM;
    t->cells = grown;
    for (i = 0; i < t->ncols; i++) {
        char *copy = table_cell(cells[i] ? cells[i] : "");

        if (copy == NULL) {
            for (; i > 0; i--)
                free(t->cells[t->nrows * t->ncols + i - 1]);
            return -ENOMEM;
        }
        t->cells[t->nrows * t->ncols + i] = copy;
    }
    t->nrows++;
    return 0;
}

void tsctl_table_print(const tsctl_table *t, FILE *f, bool color)
{
    size_t widths[16] = {0};
    size_t r;
    size_t c;

    for (r = 0; r < t->nrows; r++) {
        for (c = 0; c < t->ncols && c < 16; c++) {
            size_t w = tsctl_width(t->cells[r * t->ncols + c]);

            if (w > widths[c])
                widths[c] = w;
        }
    }
    for (r = 0; r < t->nrows; r++) {
        if (r == 0)
            fputs(tsctl_c(color, TSCTL_BOLD), f);
        for (c = 0; c < t->ncols && c < 16; c++) {
            const char *cell = t->cells[r * t->ncols + c];

            if (c + 1 == t->ncols) {
                fputs(cell, f);
            } else {
                tsctl_pad(f, cell, widths[c]);
                fputs("  ", f);
            }
        }
        if (r == 0)
            fputs(tsctl_c(color, TSCTL_RESET), f);
        fputc('\n', f);
    }
}

void tsctl_table_free(tsctl_table *t)
{
    size_t i;

    for (i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    t->cells = NULL;
    t->nrows = 0;
}

bool tsctl_env_truthy(const char *value)
{
    static const char *const falsy[] = {"", "0", "false", "no"};
    size_t start = 0;
    size_t end;
    size_t i;

    if (value == NULL)
        return false;
    ts_strip_span(value, strlen(value), &start, &end); /* as the reference's str.strip() */
    for (i = 0; i < sizeof(falsy) / sizeof(falsy[0]); i++) {
        if (strlen(falsy[i]) == end - start &&
            strncasecmp(value + start, falsy[i], end - start) == 0)
            return false;
    }
    return true;
}

bool tsctl_env_ci(void)
{
    const char *ci = getenv("CI");

    return ci != NULL && ci[0] != '\0';
}

/* A positive integer of at most 65535 from the environment variable name,
 * or 0. */
static unsigned env_columns(const char *name)
{
    const char *v = getenv(name);
    char *end;
    long n;

    if (v == NULL || v[0] < '0' || v[0] > '9')
        return 0;
    errno = 0;
    n = strtol(v, &end, 10);
    if (errno != 0 || *end != '\0' || n <= 0 || n > 65535)
        return 0;
    return (unsigned)n;
}

unsigned tsctl_report_width(void)
{
    struct winsize ws;
    unsigned n = env_columns("TOOLSCORE_REPORT_WIDTH");

    if (n == 0)
        n = env_columns("COLUMNS");
    if (n == 0 && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        n = ws.ws_col;
    return n > 0 ? n : 100;
}

bool tsctl_json_diff_wanted(const tsctl_ctx *ctx)
{
    return !ctx->no_json_diff && !tsctl_env_truthy(getenv("TOOLSCORE_NO_JSON_DIFF"));
}

void tsctl_print_report(const tsctl_ctx *ctx, const struct json_object *expected,
                        const struct json_object *actual, const ts_score_result *r,
                        const ts_rules_applied *applied)
{
    ts_report_options opt;
    char **notes = NULL;
    ts_error err;
    ts_buf b;

    ts_report_options_default(&opt);
    opt.width = tsctl_report_width();
    opt.color = ctx->color_out;
    opt.json_diff = tsctl_json_diff_wanted(ctx);
    if (applied != NULL && applied->rules != NULL) {
        opt.compare = ts_rules_applied_compare(applied);
        if (ts_rules_applied_note_lines(applied, &notes, &opt.n_notes) == 0)
            opt.notes = (const char *const *)notes;
    }
    ts_buf_init(&b, TS_BUF_UNLIMITED);
    if (ts_report_drift(expected, actual, r, &opt, &b, &err) < 0)
        printf("  (cannot compare: %s)\n", err.message);
    else if (b.len > 0)
        fwrite(b.data, 1, b.len, stdout);
    ts_buf_free(&b);
    free(notes);
}

int tsctl_read_rules(const tsctl_ctx *ctx, const char *path, ts_rules **out)
{
    ts_buf b;
    ts_error err;
    int rc = tsctl_read_file(ctx, path, TS_RULES_FILE_MAX, &b);

    if (rc != 0)
        return rc;
    rc = ts_rules_parse(b.data ? b.data : "", b.len, strcmp(path, "-") == 0 ? "<stdin>" : path, out,
                        &err);
    ts_buf_free(&b);
    if (rc < 0)
        return tsctl_fail(ctx, TSCTL_EXIT_USAGE, "%s", err.message);
    return 0;
}
