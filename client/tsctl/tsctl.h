/*
 * client/tsctl — the command line over the client library (git's builtin/
 * shape): the interface its files share.
 *
 * tsctl.c owns main and the table of commands with their help texts; each
 * tsctl_<group>.c is one group of commands (tsctl_cmd_* entries) and calls
 * only the helpers below it, never another command's file: tsctl_options.c
 * (the option parser, the common options), tsctl_conn.c (the daemon
 * connection, its errors as exit codes), tsctl_runs.c (what the commands
 * about runs share), tsctl_util.c and tsctl_pager.c. Nothing here is a
 * library: these functions print to stdout/stderr and return tsctl exit
 * codes.
 */
#ifndef TSCTL_H
#define TSCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <json-c/json.h>

#include "client/toolscore_client.h"
#include "lib/base/ts_base.h"
#include "lib/score/ts_score.h"

/* Exit codes: the public contract of docs/tsctl.1. */
#define TSCTL_EXIT_OK 0
#define TSCTL_EXIT_FAILED 1      /* the thing asked about failed */
#define TSCTL_EXIT_USAGE 2       /* bad usage or bad input */
#define TSCTL_EXIT_UNREACHABLE 3 /* the daemon could not be reached or started */

/* Returned by tsctl_parse when --version was handled: exit 0. */
#define TSCTL_DONE (-1)
/* Returned by tsctl_parse when --help was asked for: the command returns
 * it, and main (tsctl.c, which owns the help texts) prints the help of the
 * command, then exits 0. */
#define TSCTL_HELP (-2)

struct ts_client;

typedef struct tsctl_ctx {
    const char *command;      /* "eval", "snapshots list", ... for messages */
    const char *dir;          /* snapshot root given with --dir, or NULL */
    const char *dir_env;      /* TOOLSCORE_DIR when set and not empty, or NULL */
    const char *socket;       /* --socket or TOOLSCORE_SOCKET; NULL = the default */
    bool json;                /* --json */
    bool color_out;           /* colour on stdout (a terminal and no NO_COLOR) */
    bool color_err;           /* colour on stderr */
    struct ts_client *client; /* open connection, or NULL */
    char socket_path[4096];   /* the socket in use (filled on connecting) */
    ts_error last_error;      /* the last failed request's error (tsctl_call) */
    bool unreachable;         /* the last failure was the daemon not answering */
    bool timed_out;           /* a request's deadline passed: later ones fail at once */
    ts_error timeout_error;   /* ... with this */
    bool no_json_diff;        /* --no-json-diff (check, record, run, eval) */
    bool build_noted;         /* a daemon of another build was said (or status shows it) */
} tsctl_ctx;

/* One option a command accepts besides the common ones. */
typedef struct tsctl_option {
    const char *name;   /* long name without "--" */
    char short_name;    /* 0 for none */
    const char **value; /* set for options taking a value */
    bool *flag;         /* set for flags */
} tsctl_option;

/* The positional arguments after parsing. */
typedef struct tsctl_args {
    char **pos; /* positional arguments (before any "--") */
    int npos;
    char **rest; /* everything after "--" (NULL-terminated), or NULL */
    int nrest;
    bool dashdash; /* a "--" was present */
} tsctl_args;

typedef struct tsctl_command {
    const char *name;    /* "eval", "snapshots list" */
    const char *summary; /* one line for the command list */
    const char *help;    /* full help text: usage line, description, options */
    int (*run)(tsctl_ctx *ctx, int argc, char **argv);
} tsctl_command;

/* Flags for tsctl_parse. */
#define TSCTL_PARSE_JSON 0x1 /* the command accepts --json */
#define TSCTL_PARSE_COMMAND                                                                        \
    0x2 /* what follows "--" is a command (args->rest);                                            \
           otherwise it is more positional arguments */

/*
 * Parse argv (argv[0] is the command word) against opts (terminated by an
 * entry with a NULL name) plus the common options. Returns 0, TSCTL_DONE
 * (version printed), TSCTL_HELP (help asked for), or TSCTL_EXIT_USAGE after printing a one-line
 * reason. args->pos points into a static array valid until the next call.
 */
int tsctl_parse(tsctl_ctx *ctx, int argc, char **argv, const tsctl_option *opts, int flags,
                tsctl_args *args);

/*
 * The common options before the command word (argv[0] is "tsctl"): the
 * index of the command word, or -1 with *rc the exit status (0 after
 * --version, TSCTL_HELP for --help, TSCTL_EXIT_USAGE after printing why).
 */
int tsctl_parse_leading(tsctl_ctx *ctx, int argc, char **argv, int *rc);

/* Parse a --weights value: inline JSON, or @FILE. 0 or TSCTL_EXIT_USAGE. */
struct ts_weights;
int tsctl_parse_weights(const tsctl_ctx *ctx, const char *text, struct ts_weights *out,
                        struct json_object **json_out);

/* Parse a --min-score value (a number in [0, 1]). 0 or TSCTL_EXIT_USAGE. */
int tsctl_parse_min_score(const tsctl_ctx *ctx, const char *text, double *out);

/* Check a --format value. 0 or TSCTL_EXIT_USAGE. */
int tsctl_check_format(const tsctl_ctx *ctx, const char *format);

/* The scoring options of check and eval, as given on the command line. */
typedef struct tsctl_scoring_opts {
    const char *format, *min_score, *weights;
    bool strict;
} tsctl_scoring_opts;

/* Their entries in a command's option table. */
/* clang-format off */
#define TSCTL_SCORING_OPTIONS(s)                                                                   \
    {"format", 0, &(s)->format, NULL}, {"min-score", 0, &(s)->min_score, NULL},                    \
    {"weights", 0, &(s)->weights, NULL}, {"strict", 0, NULL, &(s)->strict}
/* clang-format on */

/*
 * The scoring options checked (--format, then --min-score, then --weights)
 * into out (defaults for those not given), the parsed weights object into
 * *weights_json when it is not NULL (NULL when not given). 0 or
 * TSCTL_EXIT_USAGE after printing why.
 */
struct ts_score_options;
int tsctl_scoring_parse(const tsctl_ctx *ctx, const tsctl_scoring_opts *s,
                        struct ts_score_options *out, struct json_object **weights_json);

/*
 * Require exactly count positional arguments (what names them in the
 * message, e.g. "one NAME"). 0 or TSCTL_EXIT_USAGE after printing why.
 */
int tsctl_want_args(const tsctl_ctx *ctx, const tsctl_args *args, int count, const char *what);

/*
 * Require NAME... or --all (all), not both and not neither; the names kept
 * in args with repeats dropped (first one kept, in place). 0 or
 * TSCTL_EXIT_USAGE after printing why.
 */
int tsctl_want_names_or_all(const tsctl_ctx *ctx, tsctl_args *args, bool all);

/*
 * Require one source of a run's results, not both: --from-reports
 * (from_reports) with one or more SHARD.json files as the positional
 * arguments, or else a run (--run's value run, or the default one when it
 * is NULL) and no positional arguments. 0 or TSCTL_EXIT_USAGE after
 * printing why.
 */
int tsctl_want_run_or_reports(const tsctl_ctx *ctx, const tsctl_args *args, const char *run,
                              bool from_reports);

/* Print a one-line usage error for ctx->command; returns TSCTL_EXIT_USAGE. */
int tsctl_usage_error(const tsctl_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Print "tsctl COMMAND: message" on stderr and return code. */
int tsctl_fail(const tsctl_ctx *ctx, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Map a library/daemon error code string to a tsctl exit code. */
int tsctl_exit_for_error(const ts_error *err);

/*
 * Read and parse a JSON file (path "-" is stdin). On failure prints the
 * reason naming the file (line and column for syntax errors) and returns
 * TSCTL_EXIT_USAGE; 0 on success with *out owned by the caller.
 */
int tsctl_read_json(const tsctl_ctx *ctx, const char *path, struct json_object **out);

/* Read the whole file at path ("-": stdin), at most max bytes, into b (the
 * caller frees it). 0 or TSCTL_EXIT_USAGE after printing why. */
struct ts_buf;
int tsctl_read_file(const tsctl_ctx *ctx, const char *path, size_t max, struct ts_buf *b);

/* A rules file (docs/rules.md) read and compiled (*out: one reference).
 * 0 or TSCTL_EXIT_USAGE after printing the error (file, line, column). */
struct ts_rules;
int tsctl_read_rules(const tsctl_ctx *ctx, const char *path, struct ts_rules **out);

/* tsctl_read_file with the JSON reader's limit (TS_JSON_MAX_BYTES). */
int tsctl_read_text(const tsctl_ctx *ctx, const char *path, struct ts_buf *out);

/* Print v as pretty JSON (python indent=2) plus newline on stdout. */
int tsctl_print_json(const tsctl_ctx *ctx, const struct json_object *v);

/* "today", "1 day ago", "N days ago" for an ISO-8601 timestamp. */
void tsctl_age(const char *timestamp, char *out, size_t outsz);

/* "2025-06-01 12:05" from an ISO-8601 timestamp (UTC). */
void tsctl_short_time(const char *timestamp, char *out, size_t outsz);

/* ANSI colour helpers: return the code when on, "" when off. */
const char *tsctl_c(bool on, const char *code);
#define TSCTL_GREEN "\033[32m"
#define TSCTL_RED "\033[31m"
#define TSCTL_YELLOW "\033[33m"
#define TSCTL_BOLD "\033[1m"
#define TSCTL_DIM "\033[2m"
#define TSCTL_RESET "\033[0m"

/* The candidate word[0..len) is most likely a misspelling of (a few
 * letters inserted, removed, changed or swapped: 1 for words of up to 3
 * letters, 2 up to 6, else 3), or NULL: what "did you mean" proposes. */
const char *tsctl_did_you_mean(const char *word, size_t len, const char *const *candidates,
                               size_t n);

/* Print "COMMAND 'NAME'" on f, the name quoted for a shell (lib/base's
 * ts_shell_command): every command tsctl prints with a name in it. */
void tsctl_print_command(FILE *f, const char *command, const char *name);

/* Display width of a UTF-8 string in terminal cells (ts_repr_width). */
size_t tsctl_width(const char *s);

/* Print s padded with spaces to width columns. */
void tsctl_pad(FILE *f, const char *s, size_t width);

/* A simple text table: rows of cells, printed with aligned columns. */
typedef struct tsctl_table {
    size_t ncols;
    size_t nrows; /* including the header row */
    char **cells; /* nrows * ncols owned strings */
} tsctl_table;

void tsctl_table_init(tsctl_table *t, size_t ncols);
/* Append a row of ncols strings (copied). */
int tsctl_table_add(tsctl_table *t, const char *const *cells);
void tsctl_table_print(const tsctl_table *t, FILE *f, bool color);
void tsctl_table_free(tsctl_table *t);

/* Truthiness of TOOLSCORE_RECORD_UPDATE: set and, once trimmed of whitespace
 * as Python's str.strip() trims it (Unicode whitespace included), not empty,
 * 0, false or no (ASCII case-insensitive). */
bool tsctl_env_truthy(const char *value);

/* True when the CI variable is set and non-empty. */
bool tsctl_env_ci(void);

/*
 * The drift report's width: TOOLSCORE_REPORT_WIDTH (what an outer `tsctl
 * run` or `record` measured for its workers), else COLUMNS, else the width
 * of the terminal on stdout, else 100. A value that is not a positive
 * integer is passed over.
 */
unsigned tsctl_report_width(void);

/* Whether the report ends with its JSON diff: not with --no-json-diff, nor
 * when TOOLSCORE_NO_JSON_DIFF is truthy (an outer run's --no-json-diff). */
bool tsctl_json_diff_wanted(const tsctl_ctx *ctx);

/* Print the drift report of actual against expected scored as r (width,
 * colour and JSON diff as this tsctl was asked; with applied rules, their
 * notes and comparison), or "(cannot compare: ...)" when it cannot be
 * written. applied may be NULL. */
struct ts_rules_applied;
void tsctl_print_report(const tsctl_ctx *ctx, const struct json_object *expected,
                        const struct json_object *actual, const ts_score_result *r,
                        const struct ts_rules_applied *applied);

/* Close ctx->client if open. */
void tsctl_disconnect(tsctl_ctx *ctx);

/*
 * New params object for a store request: {"store": <absolute, resolved
 * root>}. NULL after printing the reason (the caller returns
 * TSCTL_EXIT_USAGE).
 */
struct json_object *tsctl_store_params(const tsctl_ctx *ctx);

/*
 * The snapshot root this command uses, as given: --dir, else
 * $TOOLSCORE_DIR, else the project's (lib/store/ts_project: the nearest
 * .toolscore/snapshots walking up from the current directory to the
 * repository root, ...; said relative, .toolscore/snapshots, when it is
 * under the current directory itself) into out; why it was chosen into
 * why (whysz bytes; why may be NULL). 0, or TSCTL_EXIT_USAGE after
 * printing the reason.
 */
int tsctl_root_choice(const tsctl_ctx *ctx, char *out, size_t outsz, char *why, size_t whysz);

/* The absolute, symlink-resolved snapshot root (tsctl_root_choice) into
 * out (TS_PATHS_MAX bytes). 0, or TSCTL_EXIT_USAGE after printing the
 * reason. */
int tsctl_store_root(const tsctl_ctx *ctx, char *out, size_t outsz);

/*
 * For the commands that read or change what a store holds (snapshots list,
 * show, rm, approve, accept, reject, diff, review, orphans): 0 when the
 * snapshot root (tsctl_store_root) exists; else prints on stderr where it
 * looked and why (tsctl_root_choice), the stores found below the directory
 * the walk started from, and what to do, and returns TSCTL_EXIT_FAILED: a
 * store that does not exist is never reported as an empty one.
 */
int tsctl_need_store(const tsctl_ctx *ctx);

/*
 * One request to the daemon (connecting with autostart when not connected).
 * params is consumed. On success *result is a new reference (may be NULL for
 * an empty result) and 0 is returned. On failure the reason is printed
 * (unless TSCTL_CALL_QUIET), ctx->last_error holds it and the exit code is
 * returned: 3 when the daemon cannot be reached, 2 for bad input, 1 otherwise.
 */
#define TSCTL_CALL_QUIET 0x1
#define TSCTL_CALL_NO_AUTOSTART 0x2
int tsctl_call(tsctl_ctx *ctx, const char *method, struct json_object *params, int flags,
               struct json_object **result);

/* check with args (ts_client_check), its reply and failures as tsctl_call's. */
int tsctl_call_check(tsctl_ctx *ctx, const ts_check_args *args, struct json_object **result);

/* A request on one snapshot: {store, name} to method ("show", "rm"). */
int tsctl_call_name(tsctl_ctx *ctx, const char *method, const char *name, int flags,
                    struct json_object **result);

/* record {store, name, calls (consumed), source, update} of plain calls. */
int tsctl_call_record(tsctl_ctx *ctx, const char *name, struct json_object *calls,
                      const char *source, bool update, int flags, struct json_object **result);

/* approve names[0..count), or every pending snapshot with all. */
int tsctl_call_approve(tsctl_ctx *ctx, char *const *names, int count, bool all,
                       struct json_object **result);

/* accept or reject (method) names[0..count), or the whole queue with all
 * (only run's observations when run is not NULL). */
int tsctl_call_decide(tsctl_ctx *ctx, const char *method, char *const *names, int count, bool all,
                      const char *run, struct json_object **result);

/* Print what an accept changed (the reply's "accepted" list): one block per
 * snapshot, then a count line. Returns how many were accepted or approved. */
int tsctl_print_accepted(const tsctl_ctx *ctx, const struct json_object *list);

/* Print what a reject changed (the reply's "rejected" list). */
void tsctl_print_rejected(const tsctl_ctx *ctx, const struct json_object *list);

/*
 * The last run `tsctl run`/`tsctl record` closed on the store root, kept in a
 * small file beside the socket (last-run-<hash of root>), so that
 * `tsctl orphans` knows it without --run. Saving is best effort; loading
 * returns 0 with the id in out, or -ENOENT.
 */
void tsctl_last_run_save(const tsctl_ctx *ctx, const char *root, const char *run);
int tsctl_last_run_load(tsctl_ctx *ctx, const char *root, char *out, size_t outsz);

/* The socket path in use (after connecting), for messages and exports. */
const char *tsctl_socket_path(const tsctl_ctx *ctx);

/* Field helpers on a JSON reply. */
const char *tsctl_str(const struct json_object *obj, const char *key, const char *fallback);
long long tsctl_int(const struct json_object *obj, const char *key, long long fallback);
bool tsctl_bool(const struct json_object *obj, const char *key);
struct json_object *tsctl_get(const struct json_object *obj, const char *key);

/* True when stdin and stdout are both terminals (prompts, review). */
bool tsctl_interactive(void);

/* One key from the terminal without waiting for Enter; -1 on end of input. */
int tsctl_read_key(void);

/* Show text on the terminal a screen at a time when it is longer than one
 * ($PAGER when set and not empty, else tsctl's own pager). */
void tsctl_page(const tsctl_ctx *ctx, const char *text);

/* Runs and run reports (tsctl_runs.c). */
struct ts_runreport;
struct ts_runreport_run;

/* Load and merge the JSON report files paths[0..n) into a new report.
 * 0, or an exit code after printing which file was wrong and why. */
int tsctl_reports_load(const tsctl_ctx *ctx, char *const *paths, int n, struct ts_runreport **out);

/* Make the missing directories above the file path (mkdir -p, 0777 less
 * the umask, as pytest's --junitxml does). 0, or TSCTL_EXIT_USAGE after
 * printing why (one of them is a file, or cannot be made). */
int tsctl_make_dirs_for(const tsctl_ctx *ctx, const char *path);

/* Write data to path (created or truncated; its missing directories made
 * first). 0, or an exit code. */
int tsctl_write_file(const tsctl_ctx *ctx, const char *path, const char *data, size_t len);

/* "run ID (label) on HOST, opened ..., closed ..., N checks, complete" (or
 * "partial (reasons)", "still open") appended to out. */
void tsctl_describe_run(const struct ts_runreport_run *run, struct ts_buf *out);

/* "toolscore: error: snapshot 'NAME' was claimed by more than one test: A, B". */
void tsctl_print_duplicate(const tsctl_ctx *ctx, const char *name, const char *const *tests,
                           size_t ntests);

/* The findings that turn a green command red (tsctl run, report merge):
 * FAILED checks or CI errors, names claimed by two tests, and, when the
 * run is in CI (tsctl_env_ci), flaky names. */
bool tsctl_findings(long long failed_or_errors, long long duplicates, long long flaky);

/* Why tsctl_findings holds, for the message: "has FAILED checks or CI
 * errors", "has snapshots claimed by more than one test", "has flaky
 * snapshots (in CI)". */
const char *tsctl_findings_why(long long failed_or_errors, long long duplicates, long long flaky);

/* Print the flaky lines of a summary (an array of strings; anything else
 * prints nothing); their number. */
size_t tsctl_print_flaky_lines(const tsctl_ctx *ctx, const struct json_object *lines);

/* Commands (one group per file). */
int tsctl_cmd_eval(tsctl_ctx *ctx, int argc, char **argv);
int tsctl_cmd_rules_suggest(tsctl_ctx *ctx, int argc, char **argv);
int tsctl_cmd_extract(tsctl_ctx *ctx, int argc, char **argv);
int tsctl_cmd_snapshots_path(tsctl_ctx *ctx, int argc, char **argv);
int tsctl_cmd_snapshots_list(tsctl_ctx *ctx, int argc, char **argv);
int tsctl_cmd_snapshots_show(tsctl_ctx *ctx, int argc, char **argv);
int tsctl_cmd_snapshots_rm(tsctl_ctx *ctx, int argc, char **argv);
int tsctl_cmd_approve(tsctl_ctx *ctx, int argc, char **argv);
int tsctl_cmd_check(tsctl_ctx *ctx, int argc, char **argv);
int tsctl_cmd_record(tsctl_ctx *ctx, int argc, char **argv);
int tsctl_cmd_run(tsctl_ctx *ctx, int argc, char **argv);
int tsctl_cmd_review(tsctl_ctx *ctx, int argc, char **argv);
int tsctl_cmd_accept(tsctl_ctx *ctx, int argc, char **argv);
int tsctl_cmd_reject(tsctl_ctx *ctx, int argc, char **argv);
int tsctl_cmd_diff(tsctl_ctx *ctx, int argc, char **argv);
int tsctl_cmd_orphans(tsctl_ctx *ctx, int argc, char **argv);
int tsctl_cmd_report_merge(tsctl_ctx *ctx, int argc, char **argv);
int tsctl_cmd_report_html(tsctl_ctx *ctx, int argc, char **argv);
int tsctl_cmd_status(tsctl_ctx *ctx, int argc, char **argv);
int tsctl_cmd_stop(tsctl_ctx *ctx, int argc, char **argv);
int tsctl_cmd_rules_check(tsctl_ctx *ctx, int argc, char **argv);

#endif
