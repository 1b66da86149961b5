/*
 * main — toolscored's entry point: options, logging, the listening socket
 * (own or socket-activated), then the server loop until a graceful stop.
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/runs/runs.h"
#include "daemon/server/server.h"
#include "daemon/snapshots/snapshots.h"
#include "lib/check/ts_check.h"
#include "proto/ts_proto.h"
#include "ts_version.h"

/* What the daemon serves besides the server's own methods, in the order
 * they are opened (the store methods record their checks in runs). */
static const tsd_module *const modules[] = {&tsd_runs_module, &tsd_snapshots_module};

/* Exit statuses (docs/toolscored.8). A client that auto-started a daemon
 * tells "another daemon already serves this socket" (it will answer) from a
 * real failure to start by the status. */
#define TSD_EXIT_START_FAILED 1
#define TSD_EXIT_ALREADY_RUNNING 3
/* Set to "1" by the clients that start the daemon themselves. */
#define TSD_AUTO_STARTED_ENV "TOOLSCORED_AUTO_STARTED"

/* Open the listener: systemd's socket when one was passed, else our own. */
static int open_listener(const tsd_options *opt, tsd_listener *l, ts_error *err)
{
    bool activated = false;
    char path[TS_PATHS_MAX];
    int rc = tsd_listener_from_env(l, &activated, err);

    if (rc < 0 || activated) {
        if (activated && opt->socket_path != NULL)
            tsd_info("socket activation: serving the passed socket, not --socket %s",
                     opt->socket_path);
        return rc;
    }
    if (opt->socket_path != NULL)
        return tsd_listener_open(opt->socket_path, l, err);
    rc = ts_paths_default_socket(path, sizeof(path), err);
    if (rc == 0)
        rc = tsd_listener_open(path, l, err);
    return rc;
}

/* The state directory (runs, kept observations): --state-dir, else the
 * default. The daemon does not start without it. */
static int open_state(const tsd_options *opt, ts_state **out, ts_error *err)
{
    char path[TS_PATHS_MAX];
    int rc = 0;

    if (opt->state_dir != NULL)
        snprintf(path, sizeof(path), "%s", opt->state_dir);
    else
        rc = ts_state_default_path(path, sizeof(path), err);
    if (rc == 0)
        rc = ts_state_open(path, out, err);
    return rc; /* the messages name the state directory */
}

int main(int argc, char **argv)
{
    tsd_options opt;
    tsd_listener listener;
    ts_state *state = NULL;
    ts_error err;
    int rc;

    ts_error_clear(&err);
    if (tsd_options_parse(argc, argv, &opt, &err) < 0) {
        fprintf(stderr, "toolscored: %s\n%s", err.message, "try 'toolscored --help'\n");
        return 2;
    }
    if (opt.action == TSD_HELP) {
        fputs(tsd_options_usage(), stdout);
        tsd_options_free(&opt);
        return 0;
    }
    if (opt.action == TSD_VERSION) {
        printf("toolscored %s\n", TS_VERSION);
        tsd_options_free(&opt);
        return 0;
    }
    opt.auto_started =
        getenv(TSD_AUTO_STARTED_ENV) != NULL && strcmp(getenv(TSD_AUTO_STARTED_ENV), "1") == 0;
    unsetenv(TSD_AUTO_STARTED_ENV);
    signal(SIGPIPE, SIG_IGN);
    /* Blocks of 128 KiB and more always get a mapping of their own: glibc
     * would otherwise raise this threshold after the first big free and carve
     * later big blocks (a listing of many snapshots) from its arenas, which
     * then stay resident at their peak (docs/internals/list_cache.md). */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    tsd_notify_init();
    rc = tsd_log_open(opt.log_level, opt.log_file, opt.foreground, &err);
    if (rc == 0)
        rc = open_state(&opt, &state, &err);
    if (rc == 0)
        rc = open_listener(&opt, &listener, &err);
    if (rc < 0) {
        /* Start-up errors always reach the caller, foreground or not. */
        fprintf(stderr, "toolscored: %s\n", err.message);
        tsd_log(TSD_LOG_ERROR, "%s", err.message);
        tsd_log_close();
        tsd_notify_done();
        tsd_options_free(&opt);
        ts_state_close(state);
        return rc == -EADDRINUSE && strcmp(err.code, TS_ERR_BUSY) == 0 ? TSD_EXIT_ALREADY_RUNNING
                                                                       : TSD_EXIT_START_FAILED;
    }
    /* Hold no directory busy (paths given relative were resolved above). */
    if (chdir("/") < 0)
        tsd_warn("chdir /: %s", strerror(errno));
    rc = tsd_server_run(&opt, &listener, state, modules, sizeof(modules) / sizeof(modules[0]));
    tsd_listener_release(&listener, true);
    ts_state_close(state);
    tsd_info("stopped");
    tsd_log_close();
    tsd_notify_done();
    tsd_options_free(&opt);
    return rc < 0 ? 1 : 0;
}
