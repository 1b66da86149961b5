/*
 * ts_state — the daemon's state directory: what a daemon keeps across its
 * own restarts that is not a snapshot (runs, kept observations).
 *
 *   STATE/                         0700, owned by the daemon's uid
 *     runs/<run id>/               one run and its check records
 *     stores/<key>/                one store; key: 16 hex digits of SHA-1(root)
 *       root                       the store's absolute root path, one line
 *       observations/              kept observations, one file per name
 *
 * The default STATE is $XDG_STATE_HOME/toolscore, else
 * $HOME/.local/state/toolscore (ts_state_default_path). Every directory is
 * created 0700 and reached through descriptors without following symbolic
 * links below STATE. Files are replaced whole (a temp file `.NAME.<hex>.tmp`
 * renamed over NAME), so a reader never sees a torn file; with `durable`
 * the temp file is fsynced before the rename and the directory after it.
 *
 * Every function is safe to call from any thread on one ts_state (only
 * descriptor-relative system calls). The caller owns returned descriptors
 * and strings.
 *
 *   ts_state *st;
 *   int dir;
 *   if (ts_state_open(path, &st, &err) == 0 &&
 *       ts_state_dir(st, "runs/r1", true, &dir, &err) == 0)
 *       ts_state_write_file(dir, "run.json", text, len, false, &err);
 */
#ifndef TS_STATE_H
#define TS_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/base/ts_error.h"

typedef struct ts_state ts_state;

/* Length of a store key (hex digits, without the NUL). */
#define TS_STATE_STORE_KEY_LEN 16

/*
 * The default state directory into out: $XDG_STATE_HOME/toolscore when that
 * is an absolute path, else $HOME/.local/state/toolscore. "invalid_argument"
 * when neither variable gives an absolute path, "too_large" when out is too
 * small.
 */
int ts_state_default_path(char *out, size_t outsz, ts_error *err);

/*
 * Open (creating it and its missing parents 0700) the state directory at
 * path, which must be absolute. The directory must be owned by this
 * process's effective uid and give no access to group or others; a
 * symbolic link at path is followed only when it belongs to this uid.
 * Refusals name the path and what is wrong ("io", "invalid_argument").
 */
int ts_state_open(const char *path, ts_state **out, ts_error *err);

/* Close st (NULL is fine). */
void ts_state_close(ts_state *st);

/* The absolute path st was opened at. */
const char *ts_state_path(const ts_state *st);

/*
 * Open the directory rel under the state directory ("runs", "runs/<id>",
 * components separated by '/', each a valid state name, see
 * ts_state_name_valid), creating missing components 0700 when create is
 * true. -ENOENT ("not_found") when a component is missing and create is
 * false. The caller closes *fd.
 */
int ts_state_dir(const ts_state *st, const char *rel, bool create, int *fd, ts_error *err);

/* The store key of an absolute root path into out (TS_STATE_STORE_KEY_LEN + 1 bytes). */
void ts_state_store_key(const char *root, char out[TS_STATE_STORE_KEY_LEN + 1]);

/*
 * Open the state directory of the store at root ("stores/<key>"), creating
 * it with its `root` file when create is true. A directory whose `root`
 * file names another path (a key collision) is "internal".
 */
int ts_state_store_dir(const ts_state *st, const char *root, bool create, int *fd, ts_error *err);

/*
 * True when name can be a file or directory name in the state directory:
 * 1 to 255 bytes, no '/', no NUL, not starting with '.' (temp files and
 * "."/".." are reserved).
 */
bool ts_state_name_valid(const char *name);

/*
 * Replace dir/name with len bytes of data (temp file, rename; with durable,
 * fsync of the file before and of the directory after). The file is 0600.
 */
int ts_state_write_file(int dir, const char *name, const void *data, size_t len, bool durable,
                        ts_error *err);

/*
 * Read dir/name whole into a NUL-terminated malloc'ed buffer (*data, *len
 * without the NUL). -ENOENT ("not_found") when absent, -E2BIG ("too_large")
 * when longer than max bytes; a symbolic link is not followed.
 */
int ts_state_read_file(int dir, const char *name, size_t max, char **data, size_t *len,
                       ts_error *err);

/*
 * Open dir/name for appending records (created 0600 when missing; never
 * through a symbolic link). The caller closes *fd.
 */
int ts_state_append_open(int dir, const char *name, int *fd, ts_error *err);

/* Remove the file dir/name; -ENOENT ("not_found") when absent. */
int ts_state_remove_file(int dir, const char *name, ts_error *err);

/*
 * Remove the directory dir/name and everything in it (one level of files
 * and directories below it, recursively), never following symbolic links.
 * Absent is not an error.
 */
int ts_state_remove_tree(int dir, const char *name, ts_error *err);

/*
 * The valid names in dir (ts_state_name_valid: temp files and dot files are
 * left out), sorted bytewise, as a malloc'ed array of malloc'ed strings
 * (ts_state_names_free).
 */
int ts_state_list(int dir, char ***names, size_t *count, ts_error *err);
void ts_state_names_free(char **names, size_t count);

/* Remove the temp files (`.NAME.<hex>.tmp`) a crash left in dir. */
int ts_state_clean_temps(int dir, ts_error *err);

#endif
