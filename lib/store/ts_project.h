/*
 * ts_project — the project a command runs in: which snapshot root it uses
 * when none is given (no --dir, no TOOLSCORE_DIR), found from the directory
 * it starts in (docs/snapshots.md, "The store"):
 *
 * 1. the nearest `.toolscore/snapshots` walking up from the start
 *    directory, stopping at the repository root (the first directory on
 *    the way that holds `.git`, a directory or a worktree's file) or at `/`;
 * 2. if there is none, `.toolscore/snapshots` under that repository root;
 * 3. outside a repository, `.toolscore/snapshots` under the start directory.
 *
 * So `cd sub && tsctl check ...` uses the project's store, never a second
 * one in `sub/`. Shared by tsctl and the Python package (the pytest plugin
 * keeps pytest's rootdir rule). Only stat(2) calls; nothing is created.
 *
 *   ts_project_root r;
 *   char why[512];
 *   if (ts_project_find_root(cwd, &r, &err) == 0)
 *       ts_project_describe(&r, why, sizeof(why));  // "found walking up from ..."
 */
#ifndef TS_PROJECT_H
#define TS_PROJECT_H

#include <limits.h>
#include <stddef.h>

#include "lib/base/ts_error.h"

#define TS_PROJECT_DIR ".toolscore/snapshots" /* the root under a project directory */

typedef enum ts_project_reason {
    TS_PROJECT_FOUND = 1,  /* an existing root in start or a directory above it */
    TS_PROJECT_REPOSITORY, /* none exists: under the repository root */
    TS_PROJECT_START,      /* none exists, no repository: under the start directory */
} ts_project_reason;

typedef struct ts_project_root {
    char root[PATH_MAX];  /* <base>/.toolscore/snapshots */
    char base[PATH_MAX];  /* the directory the root is under */
    char start[PATH_MAX]; /* where the walk started */
    ts_project_reason reason;
} ts_project_root;

/*
 * The snapshot root of a command started in start (an absolute path, as
 * getcwd() gives it; NULL: the current directory) into *out. Errors:
 * "invalid_argument" for a start that is not absolute, "too_large" for
 * paths past PATH_MAX, "io" when the current directory cannot be read.
 */
int ts_project_find_root(const char *start, ts_project_root *out, ts_error *err);

/*
 * Why r was chosen, one line without the root itself, into out:
 * "found in the current directory", "found walking up from START",
 * "none found up to the repository root BASE, which holds .git",
 * "none found and not in a repository: under the current directory".
 * Cut to outsz. Returns out.
 */
const char *ts_project_describe(const ts_project_root *r, char *out, size_t outsz);

#endif
