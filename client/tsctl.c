/*
 * tsctl — the command line of toolscored: main, the command table with every
 * command's help, and finding the command a command line names. Options
 * are parsed in tsctl_options.c.
 */
#include "tsctl.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TSCTL_DEFAULT_DIR ".toolscore/snapshots"

const tsctl_command *tsctl_current;

static const char common_help[] =
    "Common options:\n"
    "  --dir PATH      snapshot root (default .toolscore/snapshots, or $TOOLSCORE_DIR)\n"
    "  --socket PATH   daemon socket (default: $TOOLSCORE_SOCKET, else the daemon's default)\n"
    "  -h, --help      show this help\n"
    "  --version       print the version\n";

static const tsctl_command commands[] = {
    {"check", "check calls against a snapshot (record, replay or update)",
     "Usage: tsctl check NAME (--calls FILE | --calls -) [--format F] [--min-score X]\n"
     "                   [--strict] [--weights JSON] [--update] [--allow-pending]\n"
     "                   [--test ID] [--no-json-diff] [--json]\n"
     "\n"
     "One pass of the snapshot state machine through the daemon: a missing snapshot\n"
     "is recorded as pending (CREATED), a pending one is left alone (PENDING), an\n"
     "approved one is replayed (PASSED or FAILED, with the drift report), and with\n"
     "--update the calls are overwritten and approved (UPDATED). With CI set and\n"
     "non-empty, missing and pending snapshots fail instead (unless --allow-pending).\n"
     "\n"
     "Options:\n"
     "  --calls FILE       the actual calls or raw agent response (- for stdin)\n"
     "  --format F         extraction format of the input (default auto)\n"
     "  --min-score X      score needed to pass a replay, in [0, 1] (default 1.0)\n"
     "  --strict           type-exact argument comparison\n"
     "  --weights JSON     metric weights, inline JSON or @FILE\n"
     "  --update           overwrite and approve the snapshot (also\n"
     "                     TOOLSCORE_RECORD_UPDATE=1)\n"
     "  --allow-pending    missing/pending snapshots warn instead of failing in CI\n"
     "  --test ID          the test claiming NAME in the run (also TOOLSCORE_TEST)\n"
     "  --no-json-diff     leave the JSON diff out of the drift report\n"
     "  --json             print {outcome, name, file, message, result, report}\n"
     "\n"
     "The drift report fits TOOLSCORE_REPORT_WIDTH, else COLUMNS, else the\n"
     "terminal, else 100 columns. Joins the run named by TOOLSCORE_RUN when set.\n"
     "Exit 0 for CREATED, PENDING, UPDATED and PASSED; 1 for FAILED and the CI\n"
     "errors.\n",
     tsctl_cmd_check},
    {"record", "record snapshots by running a command, or import a trace",
     "Usage: tsctl record [--update] [--no-json-diff] -- CMD [ARGS...]\n"
     "       tsctl record --from-trace FILE --name NAME [--format F] [--update]\n"
     "\n"
     "Command mode runs CMD as a run (see tsctl run) with TOOLSCORE_RECORD=1 in its\n"
     "environment (and TOOLSCORE_RECORD_UPDATE=1 with --update), prints the run's\n"
     "summary line and exits with CMD's exit code.\n"
     "\n"
     "Trace mode imports the calls of FILE as snapshot NAME (source \"trace\"): pending\n"
     "when new; refused (exit 1) when NAME exists, unless --update, which overwrites\n"
     "and approves.\n"
     "\n"
     "Options:\n"
     "  --update           overwrite and approve\n"
     "  --no-json-diff     command mode: drift reports without their JSON diff\n"
     "  --from-trace FILE  the trace file to import\n"
     "  --name NAME        the snapshot name (trace mode)\n"
     "  --format F         trace format (default auto)\n"
     "  --json             trace mode: print {outcome, name, file}\n",
     tsctl_cmd_record},
    {"approve", "approve pending snapshots",
     "Usage: tsctl approve NAME... | --all\n"
     "\n"
     "Approves the named pending snapshots (or every pending one with --all) and\n"
     "prints a table Name / Calls / Age. An unknown NAME fails (exit 1) before\n"
     "anything is approved.\n"
     "\n"
     "Options:\n"
     "  --all    approve every pending snapshot\n"
     "  --json   print the approved snapshots as a JSON array\n",
     tsctl_cmd_approve},
    {"snapshots list", "list snapshots",
     "Usage: tsctl snapshots list [--pending] [--json]\n"
     "\n"
     "A table Status (✓ approved / ○ pending) / Name / Calls / Updated / Source,\n"
     "sorted by name.\n"
     "\n"
     "Options:\n"
     "  --pending   only unapproved snapshots\n"
     "  --json      an array of {name, approved, calls, created_at, updated_at,\n"
     "              source, file}\n",
     tsctl_cmd_snapshots_list},
    {"snapshots show", "show one snapshot's metadata and calls",
     "Usage: tsctl snapshots show NAME [--json]\n"
     "\n"
     "Prints the metadata, then each call (\"Call i — tool\") with its args as\n"
     "indented JSON. --json prints the snapshot file's object.\n",
     tsctl_cmd_snapshots_show},
    {"snapshots rm", "delete a snapshot",
     "Usage: tsctl snapshots rm NAME [--yes]\n"
     "\n"
     "Deletes snapshot NAME. Asks y/N on a terminal unless --yes; without a\n"
     "terminal and without --yes it refuses (exit 2).\n"
     "\n"
     "Options:\n"
     "  -y, --yes   do not ask\n",
     tsctl_cmd_snapshots_rm},
    {"snapshots path", "print the file a snapshot name maps to",
     "Usage: tsctl snapshots path NAME\n"
     "\n"
     "Prints the path of the file NAME maps to under the snapshot root, whether\n"
     "or not it exists. Needs no daemon.\n",
     tsctl_cmd_snapshots_path},
    {"run", "run a test command as one run and summarize it",
     "Usage: tsctl run [--junit FILE] [--json-report FILE] [--no-json-diff]\n"
     "                 -- CMD [ARGS...]\n"
     "\n"
     "Opens a run on the daemon and runs CMD with TOOLSCORE_RUN and\n"
     "TOOLSCORE_SOCKET exported, so every worker process of CMD joins it, and\n"
     "TOOLSCORE_REPORT_WIDTH (this terminal's width) for the drift reports. Then\n"
     "prints the one summary line for all workers, the names two different tests\n"
     "claimed, and exits with CMD's exit code.\n"
     "\n"
     "Options:\n"
     "  --junit FILE         write JUnit XML, one testcase per snapshot check\n"
     "  --json-report FILE   write the same as JSON\n"
     "  --no-json-diff       drift reports without their JSON diff\n"
     "                       (TOOLSCORE_NO_JSON_DIFF=1 for CMD)\n",
     tsctl_cmd_run},
    {"eval", "score actual calls against expected calls (no daemon)",
     "Usage: tsctl eval EXPECTED ACTUAL [--format F] [--strict] [--weights JSON]\n"
     "                  [--min-score X] [--no-json-diff] [--json]\n"
     "\n"
     "Scores ACTUAL (a trace file in any supported format) against EXPECTED (a\n"
     "JSON array of calls or a snapshot file) and prints the metrics, then the\n"
     "drift report when the calls differ. With --min-score, exits 1 when the\n"
     "score is below it.\n"
     "\n"
     "Options:\n"
     "  --format F       extraction format of ACTUAL (default auto)\n"
     "  --strict         type-exact argument comparison\n"
     "  --weights JSON   metric weights, inline JSON or @FILE, keys\n"
     "                   selection_accuracy, argument_f1, sequence_accuracy,\n"
     "                   redundant_rate\n"
     "  --min-score X    threshold in [0, 1]\n"
     "  --no-json-diff   leave the JSON diff out of the drift report\n"
     "  --json           the metrics as JSON (no report)\n",
     tsctl_cmd_eval},
    {"extract", "print the calls extracted from a response or trace file",
     "Usage: tsctl extract FILE [--format F]\n"
     "\n"
     "Prints the calls extracted from FILE (- for stdin) as JSON.\n"
     "\n"
     "Options:\n"
     "  --format F   format of FILE (default auto): calls, openai, openai-responses,\n"
     "               anthropic, gemini, langgraph, openai-agents, claude-agent-sdk,\n"
     "               pydantic-ai, mcp, vercel-ai, openai-agents-js, mastra, langchain,\n"
     "               custom\n",
     tsctl_cmd_extract},
    {"review", "accept or reject pending snapshots and failed checks interactively",
     "Usage: tsctl review [--run ID]\n"
     "\n"
     "On a terminal, walks each pending snapshot and each failed check of the last\n"
     "runs, shows its calls and the drift against the previous baseline (or the\n"
     "observed calls of the failed check), and reads one key:\n"
     "  a  accept (approve; for a failed check, save the observed calls)\n"
     "  r  reject (delete a pending snapshot / keep the old baseline)\n"
     "  s  skip\n"
     "  q  quit\n"
     "Without a terminal it prints what it would review and exits 2.\n"
     "\n"
     "Options:\n"
     "  --run ID   review the failed checks of this run (default: any)\n",
     tsctl_cmd_review},
    {"orphans", "list snapshots no check of a run referenced",
     "Usage: tsctl orphans [--run ID] [--delete --yes] [--json]\n"
     "\n"
     "Lists the snapshots that no check of a complete (closed) run referenced.\n"
     "\n"
     "Options:\n"
     "  --run ID   the run to compare with (default: $TOOLSCORE_RUN, else the\n"
     "             last run tsctl run/record closed on this store)\n"
     "  --delete   delete the orphans (needs --yes)\n"
     "  -y, --yes  confirm --delete\n"
     "  --json     print the names as a JSON array\n",
     tsctl_cmd_orphans},
    {"status", "show whether a daemon answers, and its state",
     "Usage: tsctl status [--json]\n"
     "\n"
     "Prints the daemon's pid, version, socket, uptime, stores open, requests\n"
     "served and runs open, then checks the snapshot root (--dir, when it\n"
     "exists): how many snapshots it holds and every file in it that is not a\n"
     "readable snapshot, with its path (--json: store_check). Does not start a\n"
     "daemon; exit 3 if none answers.\n",
     tsctl_cmd_status},
    {"stop", "ask the daemon to finish in-flight work and exit",
     "Usage: tsctl stop\n"
     "\n"
     "Asks the daemon to finish in-flight requests and exit. Does not start a\n"
     "daemon; exit 3 if none answers.\n",
     tsctl_cmd_stop},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

void tsctl_print_main_help(FILE *f)
{
    size_t i;

    fprintf(f, "Usage: tsctl [COMMON OPTIONS] COMMAND [ARGS...]\n\n"
               "Snapshot testing for AI-agent tool calls: record, approve, replay.\n\n"
               "Commands:\n");
    for (i = 0; i < NCOMMANDS; i++) {
        fprintf(f, "  ");
        tsctl_pad(f, commands[i].name, 17);
        fprintf(f, "%s\n", commands[i].summary);
    }
    fprintf(f,
            "\n%s\nRun 'tsctl help COMMAND' or 'tsctl COMMAND --help' for its options.\n"
            "Exit codes: 0 success, 1 failed, 2 bad usage or input, 3 daemon "
            "unreachable.\n",
            common_help);
}

void tsctl_print_help(void)
{
    if (tsctl_current != NULL)
        printf("%s\n%s", tsctl_current->help, common_help);
    else
        tsctl_print_main_help(stdout);
}

static bool color_wanted(int fd)
{
    const char *no = getenv("NO_COLOR");

    if (no != NULL && no[0] != '\0')
        return false;
    return isatty(fd) == 1;
}

static const tsctl_command *find_command(const char *name)
{
    size_t i;

    for (i = 0; i < NCOMMANDS; i++) {
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    }
    return NULL;
}

static int snapshots_help(void)
{
    size_t i;

    printf("Usage: tsctl snapshots list|show|rm|path ...\n\nSubcommands:\n");
    for (i = 0; i < NCOMMANDS; i++) {
        if (strncmp(commands[i].name, "snapshots ", 10) == 0) {
            printf("  ");
            tsctl_pad(stdout, commands[i].name + 10, 8);
            printf("%s\n", commands[i].summary);
        }
    }
    printf("\nRun 'tsctl snapshots SUBCOMMAND --help' for its options.\n");
    return TSCTL_EXIT_OK;
}

/* Resolve "snapshots SUB" or a single command word at argv[0]; returns the
 * number of words consumed (0 on error, after printing the reason). */
static int resolve_command(tsctl_ctx *ctx, int argc, char **argv, const tsctl_command **out,
                           int *rc)
{
    char name[64];

    if (strcmp(argv[0], "snapshots") == 0) {
        if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
            if (argc < 2) {
                ctx->command = "snapshots";
                *rc = tsctl_usage_error(ctx, "missing subcommand (list, show, rm or path)");
            } else {
                *rc = snapshots_help();
            }
            return 0;
        }
        snprintf(name, sizeof(name), "snapshots %s", argv[1]);
        *out = find_command(name);
        if (*out == NULL) {
            ctx->command = "snapshots";
            *rc = tsctl_usage_error(ctx, "unknown subcommand '%s'", argv[1]);
            return 0;
        }
        return 2;
    }
    if (strcmp(argv[0], "help") == 0) {
        /* `tsctl help [COMMAND...]` is `tsctl [COMMAND...] --help`. */
        if (argc == 1) {
            tsctl_print_main_help(stdout);
            *rc = TSCTL_EXIT_OK;
            return 0;
        }
        if (strcmp(argv[1], "snapshots") == 0 && argc == 2) {
            *rc = snapshots_help();
            return 0;
        }
        snprintf(name, sizeof(name), "%s%s%s", argv[1], argc > 2 ? " " : "",
                 argc > 2 ? argv[2] : "");
        *out = find_command(name);
        if (*out == NULL) {
            *rc = tsctl_usage_error(ctx, "no help for unknown command '%s'", name);
            return 0;
        }
        printf("%s\n%s", (*out)->help, common_help);
        *rc = TSCTL_EXIT_OK;
        return 0;
    }
    *out = find_command(argv[0]);
    if (*out == NULL) {
        *rc = tsctl_usage_error(ctx, "unknown command '%s'", argv[0]);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    tsctl_ctx ctx;
    const tsctl_command *cmd = NULL;
    const char *env;
    int first;
    int used;
    int rc = 0;

    memset(&ctx, 0, sizeof(ctx));
    env = getenv("TOOLSCORE_DIR");
    ctx.dir = (env != NULL && env[0] != '\0') ? env : TSCTL_DEFAULT_DIR;
    env = getenv("TOOLSCORE_SOCKET");
    ctx.socket = (env != NULL && env[0] != '\0') ? env : NULL;
    ctx.color_out = color_wanted(STDOUT_FILENO);
    ctx.color_err = color_wanted(STDERR_FILENO);

    first = tsctl_parse_leading(&ctx, argc, argv, &rc);
    if (first < 0)
        return rc;
    used = resolve_command(&ctx, argc - first, argv + first, &cmd, &rc);
    if (used == 0)
        return rc;
    tsctl_current = cmd;
    ctx.command = cmd->name;
    /* The command sees argv[0] = its (last) word, then its own arguments. */
    rc = cmd->run(&ctx, argc - first - used + 1, argv + first + used - 1);
    tsctl_disconnect(&ctx);
    if (rc == TSCTL_DONE)
        rc = TSCTL_EXIT_OK;
    if (fflush(stdout) != 0 && rc == TSCTL_EXIT_OK) {
        fprintf(stderr, "tsctl %s: cannot write output\n", cmd->name);
        rc = TSCTL_EXIT_FAILED;
    }
    return rc;
}
