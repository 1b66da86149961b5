/*
 * tsctl — the command line of toolscored: main, the command table with every
 * command's help, and finding the command a command line names. Options
 * are parsed in tsctl_options.c.
 */
#include "client/tsctl/tsctl.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char common_help[] =
    "Common options:\n"
    "  --dir PATH      snapshot root (default $TOOLSCORE_DIR, else the nearest\n"
    "                  .toolscore/snapshots up to the repository root: tsctl status)\n"
    "  --socket PATH   daemon socket (default: $TOOLSCORE_SOCKET, else the daemon's default)\n"
    "  -h, --help      show this help\n"
    "  --version       print the version\n";

static const tsctl_command commands[] = {
    {"check", "check calls against a snapshot (record, replay or update)",
     "Usage: tsctl check NAME (--calls FILE | --calls -) [--format F] [--min-score X]\n"
     "                   [--strict] [--weights JSON] [--update] [--allow-pending]\n"
     "                   [--test ID] [--rules FILE] [--no-json-diff] [--json]\n"
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
     "  --rules FILE       comparison rules for this check (docs/rules.md), merged\n"
     "                     over the project's .toolscore/config.json\n"
     "  --no-json-diff     leave the JSON diff out of the drift report\n"
     "  --json             print {outcome, name, file, message, result, report},\n"
     "                     and rules (what they did) when rules are in force\n"
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
     "Approves the named pending snapshots (or every pending one with --all) as\n"
     "recorded and prints a table Name / Calls / Age of those it approved. A NAME\n"
     "already approved is left as it is and said so (exit 0); when the daemon\n"
     "kept the calls of its last FAILED check, `tsctl accept NAME` takes them.\n"
     "An unknown NAME fails (exit 1) before anything is approved.\n"
     "\n"
     "Options:\n"
     "  --all    approve every pending snapshot\n"
     "  --json   print the snapshots as a JSON array (changed: whether this\n"
     "           approve approved it; observation: whether calls observed since\n"
     "           are kept, which `tsctl accept` would take instead)\n",
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
     "Usage: tsctl run [--junit FILE] [--json-report FILE] [--html FILE]\n"
     "                 [--no-fail-on-findings] [--no-json-diff] -- CMD [ARGS...]\n"
     "\n"
     "Opens a run on the daemon and runs CMD with TOOLSCORE_RUN and\n"
     "TOOLSCORE_SOCKET exported, so every worker process of CMD joins it, and\n"
     "TOOLSCORE_REPORT_WIDTH (this terminal's width) for the drift reports. Then\n"
     "prints the one summary line for all workers and the names two different\n"
     "tests claimed. The run survives a daemon restart while CMD runs.\n"
     "\n"
     "Exits with CMD's exit code, except that when CMD exits 0 but the run has\n"
     "FAILED checks, CI errors or names claimed by two tests, it exits 1.\n"
     "\n"
     "Options:\n"
     "  --junit FILE             write JUnit XML, one testcase per snapshot check\n"
     "                           (CREATED/PENDING/UPDATED skipped, FAILED a failure\n"
     "                           with the drift report, CI errors errors)\n"
     "  --json-report FILE       write the JSON report (the input of tsctl report\n"
     "                           merge and tsctl orphans --from-reports)\n"
     "  --html FILE              write the run's HTML page (tsctl report html)\n"
     "  --no-fail-on-findings    exit with CMD's code whatever the run found\n"
     "  --no-json-diff           drift reports without their JSON diff\n"
     "                           (TOOLSCORE_NO_JSON_DIFF=1 for CMD)\n",
     tsctl_cmd_run},
    {"eval", "score actual calls against expected calls (no daemon)",
     "Usage: tsctl eval EXPECTED ACTUAL [--format F] [--strict] [--weights JSON]\n"
     "                  [--min-score X] [--rules FILE] [--no-json-diff] [--json]\n"
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
     "  --rules FILE     comparison rules (ignore, redact, match, order, tools;\n"
     "                   docs/rules.md): what they hid is printed after the score\n"
     "  --no-json-diff   leave the JSON diff out of the drift report\n"
     "  --json           the metrics as JSON (no report; with \"rules\": what they\n"
     "                   did, when rules are given)\n",
     tsctl_cmd_eval},
    {"rules check", "validate a rules file and show what its patterns match",
     "Usage: tsctl rules check [FILE] [--json]\n"
     "\n"
     "Validates FILE, or the project's rules file (config.json beside the snapshot\n"
     "root: .toolscore/config.json for the default root), and prints what each\n"
     "pattern matches in the snapshots of the root, and the snapshots that still\n"
     "hold a value a redact rule would hide. Needs no daemon.\n"
     "\n"
     "Exit 0 when the file is valid (or there is no project file), 1 when a\n"
     "snapshot still holds a value to redact, 2 when the file is invalid (the\n"
     "error names the file, the line and column, and the key or pattern).\n"
     "\n"
     "Options:\n"
     "  --json   {file, valid, rules, snapshots, patterns: [{kind, pattern | tool,\n"
     "           matcher?, values, snapshots}], redactable: [{name, file}]}\n",
     tsctl_cmd_rules_check},
    {"rules suggest", "print (and write) the rules that make a run's flaky names stable",
     "Usage: tsctl rules suggest [--run ID] [--write]\n"
     "\n"
     "Reads the run's observations (--run ID, else TOOLSCORE_RUN, else the last run\n"
     "tsctl run or tsctl record closed on the store), prints each flaky name's line\n"
     "on stderr and, on stdout, the rules object (ignore patterns TOOL.args.PATH,\n"
     "tools.NAME.ignore for calls present in only some observations, order:\n"
     "unordered for reorderings) under which every name's observations compare\n"
     "alike. Checked by applying it over the rules the checks were made with.\n"
     "\n"
     "Options:\n"
     "  --run ID   the run (the \"run\" of tsctl run --json-report)\n"
     "  --write    merge the rules into the project's config.json (beside the\n"
     "             snapshot root: .toolscore/config.json for the default root),\n"
     "             keeping its other keys and their order; created when absent.\n"
     "             A file that is not a valid rules file is an error (exit 2) and\n"
     "             is left as it was.\n",
     tsctl_cmd_rules_suggest},
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
    {"accept", "make kept observations the approved baselines (no test re-run)",
     "Usage: tsctl accept NAME... | --all [--run ID] [--json]\n"
     "\n"
     "Writes the calls the daemon kept for each NAME (those of its last FAILED\n"
     "check, or of a PENDING check that observed other calls than the recording)\n"
     "as its new approved baseline, in one durable write each, and prints what\n"
     "changed. A pending snapshot without a kept observation is approved as\n"
     "recorded. An observation whose snapshot changed since it was kept no\n"
     "longer applies: it is dropped and nothing is written (exit 1 for a NAME).\n"
     "An unknown NAME fails (exit 1) before anything is changed.\n"
     "\n"
     "Options:\n"
     "  --all      accept the whole review queue (tsctl review --list)\n"
     "  --run ID   with --all: only the observations of checks of run ID\n"
     "  --json     print the reply's list of {name, file, action, calls, ...}\n",
     tsctl_cmd_accept},
    {"reject", "drop kept observations and delete pending snapshots",
     "Usage: tsctl reject NAME... | --all [--run ID] [--json]\n"
     "\n"
     "Drops the calls the daemon kept for each NAME; a pending snapshot is\n"
     "deleted, an approved baseline is kept. An unknown NAME fails (exit 1)\n"
     "before anything is changed.\n"
     "\n"
     "Options:\n"
     "  --all      reject the whole review queue\n"
     "  --run ID   with --all: only the observations of checks of run ID\n"
     "  --json     print the reply's list of {name, file, deleted, dropped}\n",
     tsctl_cmd_reject},
    {"diff", "the drift report of a snapshot against its kept observation",
     "Usage: tsctl diff NAME [--no-json-diff] [--json]\n"
     "\n"
     "Prints the drift report between snapshot NAME and the calls the daemon kept\n"
     "for it (its last FAILED check, or a PENDING check that observed other\n"
     "calls), without a terminal and without running the test again. Exit 1 when\n"
     "no observation is kept for NAME.\n"
     "\n"
     "Options:\n"
     "  --no-json-diff   leave the JSON diff out of the report\n"
     "  --json           {name, file, kind, approved, calls, observation, result,\n"
     "                   report, baseline, observed}\n",
     tsctl_cmd_diff},
    {"review", "walk the review queue on a terminal: accept, reject, skip",
     "Usage: tsctl review [--run ID] [--list [--json]]\n"
     "\n"
     "On a terminal, walks the review queue: each pending snapshot (its calls)\n"
     "and each kept observation (the drift report against the snapshot, paged\n"
     "when longer than the screen; $PAGER when set), and reads one key:\n"
     "  a  accept (tsctl accept NAME: the observed calls become the baseline; a\n"
     "     pending snapshot without an observation is approved)\n"
     "  r  reject (tsctl reject NAME: drop the observation; delete a pending\n"
     "     snapshot)\n"
     "  s  skip\n"
     "  q  quit\n"
     "Without a terminal it prints the queue and exits 2; --list prints it and\n"
     "exits 0.\n"
     "\n"
     "Options:\n"
     "  --run ID   only the observations of checks of run ID (and the pending\n"
     "             snapshots)\n"
     "  --list     print the queue, no terminal needed\n"
     "  --json     with --list: the queue as a JSON array of {name, file, kind,\n"
     "             approved, calls, observation}\n",
     tsctl_cmd_review},
    {"orphans", "list snapshots no check of a run referenced",
     "Usage: tsctl orphans [--run ID] [--delete --yes [--force]] [--json]\n"
     "       tsctl orphans --from-reports SHARD.json... [--delete --yes [--force]] [--json]\n"
     "\n"
     "Lists the snapshots of the store that no check of a closed run referenced,\n"
     "and says on stderr which run it used: its id, when it ran, how many checks,\n"
     "complete or partial. With --from-reports, the runs are those of the JSON\n"
     "reports of CI shards (tsctl run --json-report on each machine), and a\n"
     "snapshot is an orphan when no shard referenced it.\n"
     "\n"
     "--delete refuses when a run is partial (a test framework said not every\n"
     "test ran: -k, deselection, --lf, collection errors) unless --force.\n"
     "\n"
     "Options:\n"
     "  --run ID         the run to compare with (default: $TOOLSCORE_RUN, else the\n"
     "                   last run tsctl run/record closed on this store)\n"
     "  --from-reports   the arguments are JSON report files\n"
     "  --delete         delete the orphans (needs --yes)\n"
     "  -y, --yes        confirm --delete\n"
     "  --force          delete even after a partial run\n"
     "  --json           print the names as a JSON array\n",
     tsctl_cmd_orphans},
    {"report merge", "join the JSON reports of CI shards into one summary and JUnit file",
     "Usage: tsctl report merge SHARD.json... [--junit FILE] [--json-report FILE]\n"
     "                          [--no-fail-on-findings]\n"
     "\n"
     "Reads the JSON reports of several runs (tsctl run --json-report, one per CI\n"
     "machine) and prints one summary line for all of them, the partial runs, and\n"
     "the snapshots that two tests claimed across shards. Needs no daemon.\n"
     "Exits 1 when a check FAILED, a CI error happened or a name was claimed twice\n"
     "(unless --no-fail-on-findings), 2 when a file is not a report.\n"
     "\n"
     "Options:\n"
     "  --junit FILE             write one JUnit XML file for all shards\n"
     "  --json-report FILE       write the merged JSON report\n"
     "  --no-fail-on-findings    exit 0 whatever the checks found\n",
     tsctl_cmd_report_merge},
    {"report html", "write a run's report as one self-contained HTML page",
     "Usage: tsctl report html [--run ID | --from-reports SHARD.json...] -o FILE\n"
     "\n"
     "Writes the report of a run as ONE HTML file that needs nothing else (no\n"
     "network; open it from disk or publish it as a CI artifact): the summary,\n"
     "the counts, filters and search, each check with its drift report and, for a\n"
     "FAILED one, the expected and actual calls side by side and the tsctl accept\n"
     "command to copy; flaky names, names claimed by two tests, and the orphans\n"
     "of a complete run. Of a run the daemon keeps (--run ID, else\n"
     "$TOOLSCORE_RUN, else the last run tsctl run/record closed on this store),\n"
     "or of the JSON reports of CI shards (--from-reports, no daemon needed; the\n"
     "orphans are then the local store's, --dir).\n"
     "\n"
     "Options:\n"
     "  --run ID          the run (default: $TOOLSCORE_RUN, else the last run)\n"
     "  --from-reports    the arguments are JSON report files\n"
     "  -o, --output FILE where to write the page (required)\n",
     tsctl_cmd_report_html},
    {"status", "show whether a daemon answers, and its state",
     "Usage: tsctl status [--json]\n"
     "\n"
     "Prints the daemon's pid, version, socket, uptime, stores open, requests\n"
     "served and runs open, the snapshot root this command uses and why (--dir,\n"
     "$TOOLSCORE_DIR, or found from the current directory; --json: root), then\n"
     "checks that root when it exists: how many snapshots it holds and every\n"
     "file in it that is not a readable snapshot, with its path (--json:\n"
     "store_check). Does not start a daemon; exit 3 if none answers.\n",
     tsctl_cmd_status},
    {"stop", "ask the daemon to finish in-flight work and exit",
     "Usage: tsctl stop\n"
     "\n"
     "Asks the daemon to finish in-flight requests and exit. Does not start a\n"
     "daemon; exit 3 if none answers.\n",
     tsctl_cmd_stop},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void print_main_help(FILE *f)
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

/* --help: cmd's help and the common options, or (cmd NULL) the main help. */
static void print_help(const tsctl_command *cmd)
{
    if (cmd != NULL)
        printf("%s\n%s", cmd->help, common_help);
    else
        print_main_help(stdout);
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

/* True when some command is "WORD SUB" (a group: snapshots, report). */
static bool is_group(const char *word)
{
    size_t len = strlen(word);

    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (strncmp(commands[i].name, word, len) == 0 && commands[i].name[len] == ' ')
            return true;
    }
    return false;
}

/* The subcommands of group word joined by sep ("list|show|rm|path"). */
static void group_subcommands(const char *word, const char *sep, char *out, size_t outsz)
{
    size_t len = strlen(word);

    out[0] = '\0';
    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (strncmp(commands[i].name, word, len) != 0 || commands[i].name[len] != ' ')
            continue;
        snprintf(out + strlen(out), outsz - strlen(out), "%s%s", out[0] ? sep : "",
                 commands[i].name + len + 1);
    }
}

static int group_help(const char *word)
{
    size_t len = strlen(word);
    char subs[256];

    group_subcommands(word, "|", subs, sizeof(subs));
    printf("Usage: tsctl %s %s ...\n\nSubcommands:\n", word, subs);
    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (strncmp(commands[i].name, word, len) == 0 && commands[i].name[len] == ' ') {
            printf("  ");
            tsctl_pad(stdout, commands[i].name + len + 1, 8);
            printf("%s\n", commands[i].summary);
        }
    }
    printf("\nRun 'tsctl %s SUBCOMMAND --help' for its options.\n", word);
    return TSCTL_EXIT_OK;
}

/* "unknown command 'W'", with "; did you mean 'X'?" for a misspelt command
 * word, a group's subcommand given alone ("list": "snapshots list"), or
 * (group non-NULL) a misspelt subcommand of group. */
static int unknown_command(tsctl_ctx *ctx, const char *group, const char *word)
{
    static char words[NCOMMANDS + 1][32];
    const char *list[NCOMMANDS + 1];
    const char *guess = NULL;
    char full[64];
    size_t glen = group != NULL ? strlen(group) : 0;
    size_t n = 0;

    for (size_t i = 0; i < NCOMMANDS; i++) {
        const char *name = commands[i].name;
        const char *space = strchr(name, ' ');
        size_t k;

        if (group != NULL) { /* the group's subcommands */
            if (strncmp(name, group, glen) == 0 && name[glen] == ' ')
                snprintf(words[n++], sizeof(words[0]), "%s", name + glen + 1);
            continue;
        }
        if (space != NULL && strcmp(space + 1, word) == 0) { /* "list" for "snapshots list" */
            snprintf(full, sizeof(full), "%s", name);
            guess = full;
        }
        /* the command's first word, once */
        snprintf(words[n], sizeof(words[0]), "%.*s",
                 (int)(space != NULL ? (size_t)(space - name) : strlen(name)), name);
        for (k = 0; k < n && strcmp(words[k], words[n]) != 0; k++)
            ;
        if (k == n)
            n++;
    }
    if (group == NULL)
        snprintf(words[n++], sizeof(words[0]), "help");
    for (size_t i = 0; i < n; i++)
        list[i] = words[i];
    if (guess == NULL)
        guess = tsctl_did_you_mean(word, strlen(word), list, n);
    if (group != NULL)
        ctx->command = group;
    if (guess != NULL)
        return tsctl_usage_error(ctx, "unknown %s '%s'; did you mean '%s'?",
                                 group != NULL ? "subcommand" : "command", word, guess);
    return tsctl_usage_error(ctx, "unknown %s '%s'", group != NULL ? "subcommand" : "command",
                             word);
}

/* Resolve "GROUP SUB" (snapshots list, report merge) or a single command word at argv[0]; returns
 * the number of words consumed (0 on error, after printing the reason). */
static int resolve_command(tsctl_ctx *ctx, int argc, char **argv, const tsctl_command **out,
                           int *rc)
{
    char name[64];

    if (is_group(argv[0])) {
        if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
            if (argc < 2) {
                char subs[256];

                group_subcommands(argv[0], ", ", subs, sizeof(subs));
                ctx->command = argv[0];
                *rc = tsctl_usage_error(ctx, "missing subcommand (%s)", subs);
            } else {
                *rc = group_help(argv[0]);
            }
            return 0;
        }
        snprintf(name, sizeof(name), "%s %s", argv[0], argv[1]);
        *out = find_command(name);
        if (*out == NULL) {
            *rc = unknown_command(ctx, argv[0], argv[1]);
            return 0;
        }
        return 2;
    }
    if (strcmp(argv[0], "help") == 0) {
        /* `tsctl help [COMMAND...]` is `tsctl [COMMAND...] --help`. */
        if (argc == 1) {
            print_main_help(stdout);
            *rc = TSCTL_EXIT_OK;
            return 0;
        }
        if (is_group(argv[1]) && argc == 2) {
            *rc = group_help(argv[1]);
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
        *rc = unknown_command(ctx, NULL, argv[0]);
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
    ctx.dir_env = (env != NULL && env[0] != '\0') ? env : NULL;
    env = getenv("TOOLSCORE_SOCKET");
    ctx.socket = (env != NULL && env[0] != '\0') ? env : NULL;
    ctx.color_out = color_wanted(STDOUT_FILENO);
    ctx.color_err = color_wanted(STDERR_FILENO);

    first = tsctl_parse_leading(&ctx, argc, argv, &rc);
    if (first < 0 && rc == TSCTL_HELP)
        print_help(NULL);
    if (first < 0)
        return rc == TSCTL_HELP ? TSCTL_EXIT_OK : rc;
    used = resolve_command(&ctx, argc - first, argv + first, &cmd, &rc);
    if (used == 0)
        return rc;
    ctx.command = cmd->name;
    /* The command sees argv[0] = its (last) word, then its own arguments. */
    rc = cmd->run(&ctx, argc - first - used + 1, argv + first + used - 1);
    tsctl_disconnect(&ctx);
    if (rc == TSCTL_HELP)
        print_help(cmd);
    if (rc == TSCTL_DONE || rc == TSCTL_HELP)
        rc = TSCTL_EXIT_OK;
    if (fflush(stdout) != 0 && rc == TSCTL_EXIT_OK) {
        fprintf(stderr, "tsctl %s: cannot write output\n", cmd->name);
        rc = TSCTL_EXIT_FAILED;
    }
    return rc;
}
