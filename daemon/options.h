/*
 * options — the daemon's command line.
 *
 *   toolscored [--socket PATH] [--store DIR] [--foreground] [--idle-timeout S]
 *              [--log-level debug|info|warn|error] [--log-file F]
 *              [--max-frame BYTES] [--memory-budget SIZE] [--hello-timeout S]
 *              [--frame-timeout S] [--state-dir DIR] [--runs-keep N]
 *              [--runs-max-age AGE] [-h|--help] [--version]
 *
 * Owns the strings it returns (tsd_options_free).
 */
#ifndef TSD_OPTIONS_H
#define TSD_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"
#include "ts_error.h"

#define TSD_DEFAULT_MAX_FRAME (16u << 20)
#define TSD_MIN_MAX_FRAME 1024u
#define TSD_MAX_MAX_FRAME (1u << 30)
#define TSD_DEFAULT_MEMORY_BUDGET (512ull << 20)
#define TSD_MIN_MEMORY_BUDGET (32ull << 20)
#define TSD_MAX_MEMORY_BUDGET (1024ull << 30)
#define TSD_DEFAULT_HELLO_TIMEOUT_MS 5000
#define TSD_DEFAULT_FRAME_TIMEOUT_MS 30000
#define TSD_DEFAULT_RUNS_KEEP 100
#define TSD_DEFAULT_RUNS_MAX_AGE_S (7 * 86400)

typedef enum tsd_action { TSD_RUN = 0, TSD_HELP, TSD_VERSION } tsd_action;

typedef struct tsd_options {
    tsd_action action;
    char *socket_path; /* NULL: the default path (or the activated socket) */
    char *store_root;  /* NULL: any store; else the one absolute root served */
    bool foreground;
    uint64_t idle_timeout_ms; /* 0: never */
    tsd_log_level log_level;
    char *log_file; /* NULL: stderr with --foreground, else nowhere */
    size_t max_frame;
    size_t memory_budget;      /* bytes (budget.h) */
    uint64_t hello_timeout_ms; /* limits.h */
    uint64_t frame_timeout_ms;
    char *state_dir;        /* NULL: ts_state_default_path */
    size_t runs_keep;       /* closed runs kept */
    int64_t runs_max_age_s; /* runs closed or idle longer ago are dropped */
    /* started by a client's auto-start (TOOLSCORED_AUTO_STARTED=1 in the
     * environment, not an option): a client of another build may stop it
     * when it is idle and start its own (docs/packaging.md) */
    bool auto_started;
} tsd_options;

/*
 * Parse argv into opt. Errors (code "invalid_argument") name the option and
 * the problem, e.g. "--idle-timeout: not a number of seconds: 'x'".
 * --store is resolved to an absolute, symlink-free path (ts_paths_resolve).
 */
int tsd_options_parse(int argc, char **argv, tsd_options *opt, ts_error *err);
void tsd_options_free(tsd_options *opt);

/* The --help text. */
const char *tsd_options_usage(void);

#endif
