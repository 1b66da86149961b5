/*
 * util_daemon — test helpers for driving a real toolscored: start one on a
 * private socket and store in a fresh temporary directory, talk to it over
 * the socket with proto's messages (or raw bytes), and stop or kill it.
 *
 * Used by tests/test_daemon_*.c. Every helper fails the running Check test
 * (ck_abort_msg) on unexpected errors, so a test reads as a list of steps.
 */
#ifndef UTIL_DAEMON_H
#define UTIL_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <check.h>
#include <json-c/json.h>

typedef struct tdaemon {
    pid_t pid;
    char dir[256];    /* private temporary directory (0700) */
    char socket[512]; /* dir/run/toolscored.sock */
    char store[512];  /* dir/store: an absolute snapshot root */
    char log[512];    /* dir/daemon.log (the daemon's --log-file) */
    char out[512];    /* dir/stdout: what the daemon printed */
} tdaemon;

/* Path of the built daemon ($TS_BUILD_DIR/toolscored). */
const char *tdaemon_binary(void);

/* Make the temporary directory and paths (no daemon yet). */
void tdaemon_prepare(tdaemon *d);

/*
 * Start toolscored --foreground --socket d->socket --log-file d->log plus
 * extra (NULL-terminated, may be NULL) and wait until the socket answers a
 * ping. prefix (may be NULL) is a NULL-terminated argv run in front of the
 * daemon (valgrind, setpriv, ...).
 */
void tdaemon_start(tdaemon *d, const char *const *extra);
void tdaemon_start_wrapped(tdaemon *d, const char *const *prefix, const char *const *extra,
                           int wait_ms);

/* Run argv to completion; its stdout+stderr are captured into out (NUL-
 * terminated, cut to outsz). Returns the exit status (128+signal if killed). */
int tdaemon_run(const char *const *argv, char *out, size_t outsz, int timeout_ms);

/* SIGTERM, wait (at most timeout_ms), return the exit status. */
int tdaemon_stop(tdaemon *d, int timeout_ms);

/* SIGTERM and require a clean exit 0 (under a sanitizer build this also
 * fails on leaks); the daemon's output is shown on failure. _within waits
 * timeout_ms for it (a daemon under valgrind stops slowly), not 20 s. */
void tdaemon_stop_ok(tdaemon *d);
void tdaemon_stop_ok_within(tdaemon *d, int timeout_ms);

/* The prefix (tdaemon_start_wrapped) that runs the daemon under valgrind,
 * whose exit status is then 1 on any error or leak: stopped with
 * tdaemon_stop_ok_within, the test fails with valgrind's report. */
extern const char *const tdaemon_valgrind[];

/* SIGKILL and reap. */
void tdaemon_kill(tdaemon *d);

/* Wait for the process to exit by itself; exit status, or -1 on timeout. */
int tdaemon_wait(tdaemon *d, int timeout_ms);

/* Remove the temporary directory (rm -rf). */
void tdaemon_cleanup(tdaemon *d);

/* Connect to path; -errno on failure (no hello). */
int tdaemon_connect_raw(const char *path);

/* Connect and say hello; aborts the test on failure. */
int tdaemon_connect(const char *path);

/* A fresh connection to path says hello and answers a ping (or the test
 * fails). */
void tdaemon_serves(const char *path);

/* Send one request frame. */
void tdaemon_send(int fd, unsigned long long id, const char *method, struct json_object *params);

/* Send one request frame; 0 or -errno (the peer may have closed, e.g. after
 * an error reply it sent at accept, which can still be read). */
int tdaemon_try_send(int fd, unsigned long long id, const char *method, struct json_object *params);

/* Send raw bytes. Returns 0 or -errno (the peer may have closed). */
int tdaemon_send_raw(int fd, const void *data, size_t len);

/*
 * Read one reply envelope as a JSON object {"id", "ok", "result"|"error"}.
 * Returns 0, -ECONNRESET / 0-byte EOF as -EPIPE, or -ETIMEDOUT.
 */
int tdaemon_read(int fd, struct json_object **reply, int timeout_ms);

/*
 * One request/reply. Returns the reply envelope (caller puts it). The reply
 * id must match.
 */
struct json_object *tdaemon_call(int fd, const char *method, struct json_object *params);

/* Call and require ok: returns a new reference to the result. */
struct json_object *tdaemon_ok(int fd, const char *method, struct json_object *params);

/* Call and require an error with this code; returns the error message (static). */
const char *tdaemon_err(int fd, const char *method, struct json_object *params, const char *code);

/* Parse a JSON literal (aborts on error). */
struct json_object *tjson(const char *text);

/* The string at key of an object ("" if absent). */
const char *tstr(struct json_object *obj, const char *key);

/* True when the peer closed the connection (read returns EOF within ms). */
bool tdaemon_closed(int fd, int timeout_ms);

/* Read a whole file into a new string (NULL if absent). */
char *tdaemon_slurp(const char *path);

/* The file of snapshot name in the store directory dir (static buffer). */
const char *tdaemon_snapshot_path(const char *dir, const char *name);

/* Path of the ASan runtime this process runs with, or "" (not ASan): what a
 * program preloaded under the daemon (LD_PRELOAD) must come after. */
void tdaemon_asan_runtime(char *out, size_t outsz);

/* "LD_PRELOAD=..." for the test shim $TS_BUILD_DIR/tests/<shim> (after the
 * ASan runtime when this process runs with one), into out: an argument of
 * env in tdaemon_start_wrapped's prefix. The test fails when the shim is
 * not built. */
void tdaemon_preload(const char *shim, char *out, size_t outsz);

/*
 * Write name's snapshot file into dir by hand, as an editor or a checkout
 * would: unlink, then write (a new inode, often with the same number) an
 * approved or pending snapshot of one call of tool with empty args.
 */
void tdaemon_write_snapshot(const char *dir, const char *name, const char *tool, bool approved);

/*
 * The fixture of the daemon suites. For every test of the TCase it makes a
 * private daemon directory (tdaemon_prepare) in tdaemon_fx; with start it
 * also starts the daemon with args (extra arguments, NULL-ended, or NULL)
 * and connects tdaemon_fx_conn to it (hello said). After the test the
 * connection is closed, a started daemon must stop cleanly (exit 0) and
 * the directory is removed. Without start a test starts what it needs in
 * tdaemon_fx itself. The TCase times out after timeout_s seconds.
 */
extern tdaemon tdaemon_fx;
extern int tdaemon_fx_conn;
TCase *tdaemon_fixture_case(const char *name, bool start, const char *const *args, int timeout_s);

/* Requests on the fixture's daemon (tdaemon_fx_conn) and store. */

/* Write the project file of the fixture's store (config.json in its
 * parent) with text, or remove it for NULL; its path (static buffer). */
const char *tdaemon_fx_write_config(const char *text);

/* check params for name and actual (JSON text), extra members (JSON object
 * text or NULL), in store (NULL: the fixture's). */
struct json_object *tdaemon_fx_check_params(const char *store, const char *name, const char *actual,
                                            const char *extra);

/* The result of a check in the fixture's store that must succeed. */
struct json_object *tdaemon_fx_check_ok(const char *name, const char *actual, const char *extra);

/* That check's outcome ("PASSED", ...; static buffer). */
const char *tdaemon_fx_outcome(const char *name, const char *actual, const char *extra);

/* How many times text stands in the fixture daemon's log (the debug lines
 * saying which path a request took). */
int tdaemon_fx_log_count(const char *text);

/* Approve name in the fixture's store (must succeed). */
void tdaemon_fx_approve(const char *name);

#endif
