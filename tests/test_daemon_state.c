/*
 * test_daemon_state — the snapshot state machine over a real toolscored
 * socket: every row of docs/snapshots.md's table locally, in CI and with
 * allow_pending/update, the exact messages, concurrent creators and
 * approvers, files changed behind the daemon's back, record/list/show/rm,
 * runs (summary, duplicates, orphans, review) and bad parameters.
 */
#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/snapshot/ts_snapshot.h"
#include "lib/report/ts_report.h"
#include "util_daemon.h"
#include "util_test.h"
#include "ts_version.h"

#define CALLS_A                                                                                    \
    "[{\"tool\": \"search\", \"args\": {\"q\": \"NYC\"}}, {\"tool\": \"book\", \"args\": "         \
    "{\"id\": 42}}]"
#define CALLS_B                                                                                    \
    "[{\"tool\": \"search\", \"args\": {\"q\": \"LAX\"}}, {\"tool\": \"book\", \"args\": "         \
    "{\"id\": 42}}]"

/* params for check: store, name, actual + "key=bool" flags. */
static struct json_object *check_params(const char *name, const char *calls, const char *flags)
{
    struct json_object *p = json_object_new_object();

    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    json_object_object_add(p, "name", json_object_new_string(name));
    json_object_object_add(p, "actual", tjson(calls));
    if (flags != NULL) {
        char buf[256];
        snprintf(buf, sizeof(buf), "%s", flags);
        for (char *tok = strtok(buf, " "); tok != NULL; tok = strtok(NULL, " "))
            json_object_object_add(p, tok, json_object_new_boolean(1));
    }
    return p;
}

/* Run one check; returns the result object (caller puts it). */
static struct json_object *check(int fd, const char *name, const char *calls, const char *flags)
{
    struct json_object *p = check_params(name, calls, flags);
    struct json_object *r = tdaemon_ok(fd, "check", p);

    json_object_put(p);
    return r;
}

static void expect_outcome(const char *name, const char *calls, const char *flags,
                           const char *outcome)
{
    struct json_object *r = check(tdaemon_fx_conn, name, calls, flags);

    ck_assert_msg(strcmp(tstr(r, "outcome"), outcome) == 0, "check %s [%s]: want %s, got %s", name,
                  flags ? flags : "", outcome, json_object_to_json_string(r));
    json_object_put(r);
}

/* value serializes exactly as the JSON text does. */
static void assert_json(struct json_object *value, const char *text)
{
    struct json_object *want = tjson(text);

    ck_assert_str_eq(json_object_to_json_string(value), json_object_to_json_string(want));
    json_object_put(want);
}

static const char *snapshot_file(const char *name)
{
    return tdaemon_snapshot_path(tdaemon_fx.store, name);
}

static bool file_exists(const char *name)
{
    struct stat st;
    return stat(snapshot_file(name), &st) == 0;
}

static void approve(int fd, const char *name)
{
    struct json_object *p = json_object_new_object();
    struct json_object *names = json_object_new_array();

    json_object_array_add(names, json_object_new_string(name));
    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    json_object_object_add(p, "names", names);
    json_object_put(tdaemon_ok(fd, "approve", p));
    json_object_put(p);
}

static ts_snapshot *read_snapshot(const char *name)
{
    char *text = tdaemon_slurp(snapshot_file(name));
    ts_snapshot *s = NULL;
    ts_error err;

    ck_assert_msg(text != NULL, "no file for %s", name);
    ck_assert_msg(ts_snapshot_parse(text, strlen(text), name, &s, &err) == 0, "%s: %s", name,
                  err.message);
    free(text);
    return s;
}

START_TEST(local_rows)
{
    struct json_object *r = check(tdaemon_fx_conn, "tests/a.py::test_one", CALLS_A, NULL);
    ck_assert_str_eq(tstr(r, "outcome"), "CREATED");
    ck_assert_str_eq(tstr(r, "message"), "snapshot 'tests/a.py::test_one' created - review it, "
                                         "then approve with `tsctl approve`");
    ck_assert_str_eq(tstr(r, "file"), snapshot_file("tests/a.py::test_one"));
    json_object_put(r);
    ts_snapshot *s = read_snapshot("tests/a.py::test_one");
    ck_assert(!s->approved);
    ck_assert_str_eq(s->source, "pytest");
    ck_assert_int_eq(json_object_array_length(s->calls), 2);
    ts_snapshot_free(s);

    r = check(tdaemon_fx_conn, "tests/a.py::test_one", CALLS_A, NULL);
    ck_assert_str_eq(tstr(r, "outcome"), "PENDING");
    ck_assert_str_eq(tstr(r, "message"), "snapshot 'tests/a.py::test_one' pending approval - "
                                         "run `tsctl approve` to use it as a baseline");
    json_object_put(r);
    /* other calls than the recording: PENDING warns, and they are kept */
    r = check(tdaemon_fx_conn, "tests/a.py::test_one", CALLS_B, NULL);
    ck_assert_str_eq(tstr(r, "outcome"), "PENDING");
    ck_assert_str_eq(tstr(r, "message"),
                     "snapshot 'tests/a.py::test_one' pending approval; the calls observed now "
                     "differ from the recording - `tsctl accept tests/a.py::test_one` records "
                     "them");
    ck_assert(json_object_get_boolean(json_object_object_get(r, "kept")));
    ck_assert(!json_object_get_boolean(json_object_object_get(r, "written")));
    json_object_put(r);
    /* PENDING never writes: the recorded calls stay. */
    s = read_snapshot("tests/a.py::test_one");
    assert_json(s->calls, CALLS_A);
    ts_snapshot_free(s);

    approve(tdaemon_fx_conn, "tests/a.py::test_one");
    r = check(tdaemon_fx_conn, "tests/a.py::test_one", CALLS_A, NULL);
    ck_assert_str_eq(tstr(r, "outcome"), "PASSED");
    struct json_object *res = NULL;
    ck_assert(json_object_object_get_ex(r, "result", &res) && res != NULL);
    struct json_object *score = NULL;
    ck_assert(json_object_object_get_ex(res, "score", &score));
    ck_assert(json_object_get_double(score) > 0.999);
    json_object_put(r);

    r = check(tdaemon_fx_conn, "tests/a.py::test_one", CALLS_B, NULL);
    ck_assert_str_eq(tstr(r, "outcome"), "FAILED");
    ck_assert_msg(strstr(tstr(r, "report"), "Expected vs Actual Tool Calls") != NULL, "%s",
                  tstr(r, "report"));
    ck_assert_msg(strstr(tstr(r, "report"), "\033[") == NULL, "colour without color=true");
    json_object_put(r);
    /* colour is the caller's choice, per request */
    r = check(tdaemon_fx_conn, "tests/a.py::test_one", CALLS_B, "color");
    ck_assert_str_eq(tstr(r, "outcome"), "FAILED");
    ck_assert_msg(strstr(tstr(r, "report"), "\033[") != NULL, "no colour with color=true");
    json_object_put(r);
    /* and so are the report's width and its JSON diff */
    {
        struct json_object *p = check_params("tests/a.py::test_one", CALLS_B, NULL);
        const char *report;
        json_object_object_add(p, "width", json_object_new_int(40));
        json_object_object_add(p, "json_diff", json_object_new_boolean(0));
        r = tdaemon_ok(tdaemon_fx_conn, "check", p);
        report = tstr(r, "report");
        ck_assert_str_eq(tstr(r, "outcome"), "FAILED");
        ck_assert_msg(strstr(report, "@@") == NULL, "a JSON diff with json_diff=false");
        for (const char *line = report; *line;) {
            const char *nl = strchr(line, '\n');
            ck_assert_msg(nl != NULL && ts_repr_width(line, (size_t)(nl - line)) <= 40,
                          "wider than 40: %s", line);
            line = nl + 1;
        }
        json_object_put(r);
        json_object_object_del(p, "width");
        json_object_object_del(p, "json_diff");
        r = tdaemon_ok(tdaemon_fx_conn, "check", p);
        ck_assert_msg(strstr(tstr(r, "report"), "\n- expected\n+ actual\n\n@@ ") != NULL, "%s",
                      tstr(r, "report"));
        json_object_put(r);
        json_object_put(p);
    }

    r = check(tdaemon_fx_conn, "tests/a.py::test_one", CALLS_B, "update");
    ck_assert_str_eq(tstr(r, "outcome"), "UPDATED");
    ck_assert_str_eq(tstr(r, "message"),
                     "snapshot 'tests/a.py::test_one' updated (calls overwritten and approved)");
    json_object_put(r);
    s = read_snapshot("tests/a.py::test_one");
    ck_assert(s->approved);
    ts_snapshot_free(s);
    expect_outcome("tests/a.py::test_one", CALLS_B, NULL, "PASSED");
    expect_outcome("tests/a.py::test_one", CALLS_A, NULL, "FAILED");
    /* update on a missing name writes it approved */
    expect_outcome("fresh", CALLS_A, "update", "UPDATED");
    expect_outcome("fresh", CALLS_A, NULL, "PASSED");
}
END_TEST

START_TEST(ci_rows)
{
    struct json_object *r = check(tdaemon_fx_conn, "n", CALLS_A, "ci");
    ck_assert_str_eq(tstr(r, "outcome"), "ERROR_MISSING_IN_CI");
    ck_assert_str_eq(tstr(r, "message"),
                     "snapshot 'n' does not exist; snapshots cannot be created in CI. Run the "
                     "test locally to record it, review it, then approve with `tsctl approve`.");
    json_object_put(r);
    ck_assert_msg(!file_exists("n"), "a file was written in CI");
    struct stat st;
    ck_assert_msg(stat(tdaemon_fx.store, &st) != 0, "the store root was created in CI");

    expect_outcome("n", CALLS_A, NULL, "CREATED");
    r = check(tdaemon_fx_conn, "n", CALLS_A, "ci");
    ck_assert_str_eq(tstr(r, "outcome"), "ERROR_PENDING_IN_CI");
    ck_assert_str_eq(tstr(r, "message"),
                     "snapshot 'n' is pending approval; an unapproved snapshot cannot be used "
                     "as a baseline in CI. Approve it locally with `tsctl approve`.");
    json_object_put(r);

    /* allow_pending: the missing and pending rows behave as locally */
    expect_outcome("m", CALLS_A, "ci allow_pending", "CREATED");
    ck_assert(file_exists("m"));
    expect_outcome("m", CALLS_A, "ci allow_pending", "PENDING");
    expect_outcome("n", CALLS_A, "ci allow_pending", "PENDING");

    /* approved snapshots are evaluated in CI, with or without allow_pending */
    approve(tdaemon_fx_conn, "n");
    expect_outcome("n", CALLS_A, "ci", "PASSED");
    expect_outcome("n", CALLS_B, "ci", "FAILED");
    expect_outcome("n", CALLS_B, "ci allow_pending", "FAILED");
    /* update in CI: same as locally */
    expect_outcome("n", CALLS_B, "ci update", "UPDATED");
    expect_outcome("n", CALLS_B, "ci", "PASSED");
    expect_outcome("u", CALLS_B, "ci update", "UPDATED");
    ck_assert(file_exists("u"));
}
END_TEST

/* The daemon never reads its own environment for the mode flags. */
START_TEST(daemon_env_ignored)
{
    tdaemon other;
    const char *extra[] = {NULL};

    tdaemon_prepare(&other);
    setenv("CI", "1", 1);
    setenv("TOOLSCORE_RECORD_UPDATE", "1", 1);
    tdaemon_start(&other, extra);
    unsetenv("CI");
    unsetenv("TOOLSCORE_RECORD_UPDATE");
    int fd = tdaemon_connect(other.socket);
    struct json_object *p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string(other.store));
    json_object_object_add(p, "name", json_object_new_string("x"));
    json_object_object_add(p, "actual", tjson(CALLS_A));
    struct json_object *r = tdaemon_ok(fd, "check", p);
    ck_assert_str_eq(tstr(r, "outcome"), "CREATED");
    json_object_put(r);
    r = tdaemon_ok(fd, "check", p);
    ck_assert_str_eq(tstr(r, "outcome"), "PENDING");
    json_object_put(r);
    json_object_put(p);
    close(fd);
    tdaemon_stop_ok(&other);
    tdaemon_cleanup(&other);
}
END_TEST

/* Raw provider responses are extracted by the daemon. */
START_TEST(extracts_actual)
{
    const char *openai =
        "{\"choices\": [{\"message\": {\"tool_calls\": [{\"function\": "
        "{\"name\": \"search\", \"arguments\": \"{\\\"q\\\": \\\"NYC\\\"}\"}}]}}]}";
    expect_outcome("o", openai, NULL, "CREATED");
    ts_snapshot *s = read_snapshot("o");
    assert_json(s->calls, "[{\"tool\": \"search\", \"args\": "
                          "{\"q\": \"NYC\"}}]");
    ts_snapshot_free(s);

    struct json_object *p = check_params("o", "{\"nothing\": 1}", NULL);
    const char *msg = tdaemon_err(tdaemon_fx_conn, "check", p, "format");
    ck_assert_msg(strstr(msg, "detect") != NULL || strstr(msg, "format") != NULL, "%s", msg);
    json_object_object_add(p, "format", json_object_new_string("nosuchformat"));
    tdaemon_err(tdaemon_fx_conn, "check", p, "format");
    json_object_put(p);
}
END_TEST

START_TEST(bad_params)
{
    struct json_object *p = check_params("x", CALLS_A, NULL);

    json_object_object_add(p, "store", json_object_new_string("relative/store"));
    ck_assert_ptr_nonnull(
        strstr(tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_argument"), "absolute"));
    json_object_object_add(p, "store", json_object_new_int(3));
    tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_argument");
    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    json_object_object_add(p, "min_score", json_object_new_double(1.5));
    tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_argument");
    json_object_object_add(p, "min_score", json_object_new_string("high"));
    tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_argument");
    json_object_object_add(p, "min_score", json_object_new_double(0.5));
    json_object_object_add(p, "ci", json_object_new_string("yes"));
    ck_assert_ptr_nonnull(
        strstr(tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_argument"), "'ci'"));
    json_object_object_del(p, "ci");
    json_object_object_add(p, "weights", tjson("{\"bogus\": 1}"));
    tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_argument");
    json_object_object_del(p, "weights");
    json_object_object_add(p, "width", json_object_new_int(-1));
    ck_assert_ptr_nonnull(
        strstr(tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_argument"), "width"));
    json_object_object_add(p, "width", json_object_new_int(65536));
    tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_argument");
    json_object_object_add(p, "width", json_object_new_string("wide"));
    tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_argument");
    json_object_object_add(p, "width", json_object_new_int(65535));
    json_object_object_add(p, "json_diff", json_object_new_string("no"));
    ck_assert_ptr_nonnull(
        strstr(tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_argument"), "json_diff"));
    json_object_object_del(p, "json_diff");
    json_object_object_del(p, "width");
    json_object_object_add(p, "actual", tjson("[{\"tool\": 5}]"));
    tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_calls");
    json_object_object_add(p, "actual", tjson(CALLS_A));
    char *longname = malloc(5000);
    memset(longname, 'n', 4999);
    longname[4999] = '\0';
    json_object_object_add(p, "name", json_object_new_string(longname));
    free(longname);
    ck_assert_ptr_nonnull(strstr(tdaemon_err(tdaemon_fx_conn, "check", p, "too_large"), "4096"));
    json_object_object_add(p, "name", json_object_new_string_len("a\0b", 3));
    ck_assert_ptr_nonnull(
        strstr(tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_argument"), "NUL"));
    json_object_object_del(p, "name");
    tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_argument");
    json_object_put(p);
    /* nothing was written by refused requests */
    struct stat st;
    ck_assert(stat(tdaemon_fx.store, &st) != 0);
    /* and the connection still serves */
    expect_outcome("x", CALLS_A, NULL, "CREATED");
}
END_TEST

START_TEST(pinned_store)
{
    tdaemon pinned;
    char root[600];

    tdaemon_prepare(&pinned);
    snprintf(root, sizeof(root), "--store=%s", pinned.store);
    const char *extra[] = {root, NULL};
    /* a pinned store's stray temp files go at start, before any request */
    char temp[800];
    struct stat st;
    ck_assert(mkdir(pinned.store, 0700) == 0);
    snprintf(temp, sizeof(temp), "%s/.y-12345678.json.0123456789abcdef.tmp", pinned.store);
    FILE *f = fopen(temp, "w");
    fclose(f);
    tdaemon_start(&pinned, extra);
    ck_assert_msg(stat(temp, &st) != 0, "stray temp file of the pinned store kept");
    int fd = tdaemon_connect(pinned.socket);
    struct json_object *p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    json_object_object_add(p, "name", json_object_new_string("x"));
    json_object_object_add(p, "actual", tjson(CALLS_A));
    const char *msg = tdaemon_err(fd, "check", p, "store_refused");
    ck_assert_msg(strstr(msg, pinned.store) != NULL, "%s", msg);
    json_object_object_add(p, "store", json_object_new_string(pinned.store));
    struct json_object *r = tdaemon_ok(fd, "check", p);
    ck_assert_str_eq(tstr(r, "outcome"), "CREATED");
    json_object_put(r);
    json_object_put(p);
    close(fd);
    tdaemon_stop_ok(&pinned);
    tdaemon_cleanup(&pinned);
}
END_TEST

START_TEST(record_list_show_rm)
{
    struct json_object *p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    json_object_object_add(p, "name", json_object_new_string("traced"));
    json_object_object_add(p, "calls", tjson(CALLS_A));
    struct json_object *r = tdaemon_ok(tdaemon_fx_conn, "record", p);
    ck_assert_str_eq(tstr(r, "outcome"), "CREATED");
    json_object_put(r);
    ts_snapshot *s = read_snapshot("traced");
    ck_assert_str_eq(s->source, "trace");
    ck_assert(!s->approved);
    ts_snapshot_free(s);
    ck_assert_ptr_nonnull(strstr(tdaemon_err(tdaemon_fx_conn, "record", p, "exists"), "traced"));
    json_object_object_add(p, "update", json_object_new_boolean(1));
    r = tdaemon_ok(tdaemon_fx_conn, "record", p);
    ck_assert_str_eq(tstr(r, "outcome"), "UPDATED");
    json_object_put(r);
    s = read_snapshot("traced");
    ck_assert(s->approved);
    ts_snapshot_free(s);
    json_object_put(p);

    expect_outcome("pending-one", CALLS_B, NULL, "CREATED");
    p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    r = tdaemon_ok(tdaemon_fx_conn, "list", p);
    struct json_object *items = NULL;
    ck_assert(json_object_object_get_ex(r, "snapshots", &items));
    ck_assert_int_eq(json_object_array_length(items), 2);
    ck_assert_str_eq(tstr(json_object_array_get_idx(items, 0), "name"), "pending-one");
    ck_assert_str_eq(tstr(json_object_array_get_idx(items, 1), "name"), "traced");
    json_object_put(r);
    json_object_object_add(p, "pending", json_object_new_boolean(1));
    r = tdaemon_ok(tdaemon_fx_conn, "list", p);
    json_object_object_get_ex(r, "snapshots", &items);
    ck_assert_int_eq(json_object_array_length(items), 1);
    json_object_put(r);

    /* an unreadable file is a problem, not a failure */
    char junk[700];
    snprintf(junk, sizeof(junk), "%s/junk-00000000.json", tdaemon_fx.store);
    FILE *f = fopen(junk, "w");
    fputs("{not json", f);
    fclose(f);
    json_object_object_del(p, "pending");
    r = tdaemon_ok(tdaemon_fx_conn, "list", p);
    struct json_object *problems = NULL;
    ck_assert(json_object_object_get_ex(r, "problems", &problems));
    ck_assert_int_eq(json_object_array_length(problems), 1);
    ck_assert_ptr_nonnull(strstr(tstr(json_object_array_get_idx(problems, 0), "file"), "junk"));
    json_object_put(r);

    json_object_object_add(p, "name", json_object_new_string("traced"));
    r = tdaemon_ok(tdaemon_fx_conn, "show", p);
    struct json_object *snap = NULL;
    ck_assert(json_object_object_get_ex(r, "snapshot", &snap));
    ck_assert_str_eq(tstr(snap, "name"), "traced");
    ck_assert_str_eq(tstr(r, "file"), snapshot_file("traced"));
    json_object_put(r);
    r = tdaemon_ok(tdaemon_fx_conn, "rm", p);
    ck_assert_str_eq(tstr(r, "name"), "traced");
    json_object_put(r);
    ck_assert(!file_exists("traced"));
    tdaemon_err(tdaemon_fx_conn, "rm", p, "not_found");
    tdaemon_err(tdaemon_fx_conn, "show", p, "not_found");
    json_object_put(p);

    /* a pending file written by another version (the reference tool's) */
    {
        FILE *pf = fopen(snapshot_file("pending-one"), "w");
        ck_assert_ptr_nonnull(pf);
        fputs("{\n  \"schema_version\": 1,\n  \"name\": \"pending-one\",\n  \"created_at\": "
              "\"2025-06-01T12:00:00+00:00\",\n  \"updated_at\": \"2025-06-01T12:00:00+00:00\",\n"
              "  \"toolscore_version\": \"1.8.1\",\n  \"approved\": false,\n  \"source\": "
              "\"pytest\",\n  \"calls\": []\n}\n",
              pf);
        ck_assert_int_eq(fclose(pf), 0);
    }

    /* approve: an unknown name approves nothing */
    p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    json_object_object_add(p, "names", tjson("[\"pending-one\", \"nope\"]"));
    ck_assert_ptr_nonnull(strstr(tdaemon_err(tdaemon_fx_conn, "approve", p, "not_found"), "nope"));
    s = read_snapshot("pending-one");
    ck_assert(!s->approved);
    ts_snapshot_free(s);
    json_object_object_del(p, "names");
    json_object_object_add(p, "all", json_object_new_boolean(1));
    r = tdaemon_ok(tdaemon_fx_conn, "approve", p);
    struct json_object *approved = NULL;
    ck_assert(json_object_object_get_ex(r, "approved", &approved));
    ck_assert_int_eq(json_object_array_length(approved), 1);
    ck_assert_str_eq(tstr(json_object_array_get_idx(approved, 0), "name"), "pending-one");
    json_object_put(r);
    json_object_put(p);
    s = read_snapshot("pending-one");
    ck_assert(s->approved);
    /* rewritten as this version's file, created_at kept */
    ck_assert_str_eq(s->toolscore_version, TS_VERSION);
    ck_assert_str_eq(s->created_at, "2025-06-01T12:00:00+00:00");
    ts_snapshot_free(s);
}
END_TEST

/* Fork n workers; each runs fn(i) on its own connection after a barrier:
 * every worker connects and says so on the ready pipe, and once all have,
 * the go pipe closes and they start together. */
static void run_workers(int n, void (*fn)(int index, int fd), int barrier_fd_unused)
{
    int go[2], ready[2];
    pid_t pids[64];
    int connected = 0;

    (void)barrier_fd_unused;
    ck_assert(pipe(go) == 0 && pipe(ready) == 0);
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        ck_assert(pids[i] >= 0);
        if (pids[i] == 0) {
            char c;
            close(go[1]);
            close(ready[0]);
            int fd = tdaemon_connect(tdaemon_fx.socket);
            if (write(ready[1], "r", 1) != 1)
                _exit(4);
            close(ready[1]);
            if (read(go[0], &c, 1) != 0)
                _exit(3);
            fn(i, fd);
            _exit(0);
        }
    }
    close(go[0]);
    close(ready[1]);
    while (connected < n) {
        struct pollfd p = {.fd = ready[0], .events = POLLIN};
        char buf[64];
        ssize_t got;

        ck_assert_msg(poll(&p, 1, UTIL_WAIT_MS) == 1, "%d of %d workers connected within %d ms",
                      connected, n, UTIL_WAIT_MS);
        got = read(ready[0], buf, sizeof(buf));
        ck_assert_msg(got > 0, "a worker ended before it connected (%d of %d connected)", connected,
                      n);
        connected += (int)got;
    }
    close(ready[0]);
    close(go[1]);
    for (int i = 0; i < n; i++) {
        int status;
        ck_assert(waitpid(pids[i], &status, 0) == pids[i]);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "worker %d failed (%d)", i,
                      status);
    }
}

static char outcome_dir[600];

static void same_name_worker(int index, int fd)
{
    struct json_object *r = check(fd, "race::one", CALLS_A, NULL);
    char path[700];

    snprintf(path, sizeof(path), "%s/%d.%s", outcome_dir, index, tstr(r, "outcome"));
    FILE *f = fopen(path, "w");
    if (f != NULL)
        fclose(f);
    json_object_put(r);
}

static int count_outcomes(const char *outcome, int n)
{
    int count = 0;
    char path[700];
    struct stat st;

    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof(path), "%s/%d.%s", outcome_dir, i, outcome);
        if (stat(path, &st) == 0)
            count++;
    }
    return count;
}

START_TEST(one_created_among_32)
{
    snprintf(outcome_dir, sizeof(outcome_dir), "%s/outcomes", tdaemon_fx.dir);
    ck_assert(mkdir(outcome_dir, 0700) == 0);
    run_workers(32, same_name_worker, -1);
    ck_assert_int_eq(count_outcomes("CREATED", 32), 1);
    ck_assert_int_eq(count_outcomes("PENDING", 32), 31);
    ts_snapshot *s = read_snapshot("race::one");
    ck_assert(!s->approved);
    ts_snapshot_free(s);
    struct json_object *p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    struct json_object *r = tdaemon_ok(tdaemon_fx_conn, "list", p);
    struct json_object *items = NULL, *problems = NULL;
    json_object_object_get_ex(r, "snapshots", &items);
    json_object_object_get_ex(r, "problems", &problems);
    ck_assert_int_eq(json_object_array_length(items), 1);
    ck_assert_int_eq(json_object_array_length(problems), 0);
    json_object_put(r);
    json_object_put(p);
}
END_TEST

static void busy_worker(int index, int fd)
{
    char name[64];

    for (int k = 0; k < 10; k++) {
        snprintf(name, sizeof(name), "approve::%d", index);
        json_object_put(check(fd, name, CALLS_A, NULL)); /* PENDING or PASSED */
        json_object_put(check(fd, name, CALLS_B, NULL)); /* PENDING or FAILED */
        snprintf(name, sizeof(name), "new::%d::%d", index, k);
        json_object_put(check(fd, name, CALLS_B, NULL)); /* CREATED: a write */
    }
}

static void approver(int index, int fd)
{
    if (index != 32)
        busy_worker(index, fd);
    else
        for (int i = 0; i < 32; i++) {
            char name[64];
            snprintf(name, sizeof(name), "approve::%d", i);
            approve(fd, name);
        }
}

START_TEST(approvals_kept_under_load)
{
    char name[64];

    for (int i = 0; i < 32; i++) {
        snprintf(name, sizeof(name), "approve::%d", i);
        expect_outcome(name, CALLS_A, NULL, "CREATED");
    }
    run_workers(33, approver, -1);
    for (int i = 0; i < 32; i++) {
        snprintf(name, sizeof(name), "approve::%d", i);
        ts_snapshot *s = read_snapshot(name);
        ck_assert_msg(s->approved, "approval of %s was lost", name);
        assert_json(s->calls, CALLS_A);
        ts_snapshot_free(s);
        expect_outcome(name, CALLS_A, NULL, "PASSED");
    }
    struct json_object *p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    struct json_object *r = tdaemon_ok(tdaemon_fx_conn, "list", p);
    struct json_object *items = NULL, *problems = NULL;
    json_object_object_get_ex(r, "snapshots", &items);
    json_object_object_get_ex(r, "problems", &problems);
    ck_assert_int_eq(json_object_array_length(items), 32 + 32 * 10);
    ck_assert_int_eq(json_object_array_length(problems), 0);
    json_object_put(r);
    json_object_put(p);
}
END_TEST

/* An approved snapshot file of name, with one call of tool, written into
 * the directory dir by hand (tdaemon_write_snapshot). */
static void replace_file_in(const char *dir, const char *name, const char *tool)
{
    tdaemon_write_snapshot(dir, name, tool, true);
}

static void replace_file(const char *name, const char *tool)
{
    replace_file_in(tdaemon_fx.store, name, tool);
}

START_TEST(sees_changes_behind_its_back)
{
    expect_outcome("behind", "[{\"tool\": \"aaaa\", \"args\": {}}]", "update", "UPDATED");
    for (int i = 0; i < 100; i++) {
        const char *tool = (i % 2) ? "aaaa" : "bbbb";
        const char *other = (i % 2) ? "bbbb" : "aaaa";
        char calls[128], wrong[128];

        replace_file("behind", tool);
        snprintf(calls, sizeof(calls), "[{\"tool\": \"%s\", \"args\": {}}]", tool);
        snprintf(wrong, sizeof(wrong), "[{\"tool\": \"%s\", \"args\": {}}]", other);
        expect_outcome("behind", calls, NULL, "PASSED");
        expect_outcome("behind", wrong, NULL, "FAILED");
    }
    /* deleted behind its back: missing again */
    unlink(snapshot_file("behind"));
    expect_outcome("behind", "[{\"tool\": \"aaaa\", \"args\": {}}]", NULL, "CREATED");
    /* made pending behind its back */
    expect_outcome("behind", "[{\"tool\": \"aaaa\", \"args\": {}}]", NULL, "PENDING");
    replace_file("behind", "cccc");
    expect_outcome("behind", "[{\"tool\": \"cccc\", \"args\": {}}]", NULL, "PASSED");
}
END_TEST

/* The same after the daemon had time to trust what it read (the snapshot
 * cache of replays keeps files whose timestamps are older than a few
 * seconds): a rewrite in place and an unlink + create, both of the same size
 * and with the old mtime put back, are seen by the next check. */
START_TEST(sees_changes_behind_its_back_when_old)
{
    const char *a = "[{\"tool\": \"aaaa\", \"args\": {}}]";
    const char *b = "[{\"tool\": \"bbbb\", \"args\": {}}]";
    struct stat before, after;
    struct timespec times[2];
    const char *path;

    expect_outcome("old", a, "update", "UPDATED"); /* makes the store */
    replace_file("old", "aaaa");
    path = snapshot_file("old");
    ck_assert_int_eq(stat(path, &before), 0);
    sleep(4);                                 /* past the cache's 3 s margin */
    expect_outcome("old", a, NULL, "PASSED"); /* read and kept */
    expect_outcome("old", a, NULL, "PASSED"); /* from the cache */
    expect_outcome("old", b, NULL, "FAILED");

    /* in place: same inode, same size, old mtime back; only ctime moves */
    FILE *f = fopen(path, "r+");
    ck_assert_ptr_nonnull(f);
    char text[1024];
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    text[n] = '\0';
    char *tool = strstr(text, "aaaa");
    ck_assert_ptr_nonnull(tool);
    memcpy(tool, "bbbb", 4);
    rewind(f);
    ck_assert_uint_eq(fwrite(text, 1, n, f), n);
    fclose(f);
    times[0] = before.st_atim;
    times[1] = before.st_mtim;
    ck_assert_int_eq(utimensat(AT_FDCWD, path, times, 0), 0);
    ck_assert_int_eq(stat(path, &after), 0);
    ck_assert_int_eq(after.st_size, before.st_size);
    ck_assert_int_eq(after.st_ino, before.st_ino);
    ck_assert(after.st_mtim.tv_sec == before.st_mtim.tv_sec &&
              after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
    expect_outcome("old", b, NULL, "PASSED");
    expect_outcome("old", a, NULL, "FAILED");

    /* unlink + create, old mtime back */
    replace_file("old", "aaaa");
    ck_assert_int_eq(utimensat(AT_FDCWD, path, times, 0), 0);
    expect_outcome("old", a, NULL, "PASSED");
    expect_outcome("old", b, NULL, "FAILED");
}
END_TEST

/* The whole root removed or moved away and recreated (a checkout, a restore
 * from backup): the next check sees the new directory, not the old one. */
START_TEST(sees_root_replaced)
{
    char cmd[2048], moved[700];

    /* moved away (the old directory lives on elsewhere) */
    expect_outcome("r1", CALLS_A, "update", "UPDATED");
    expect_outcome("r1", CALLS_A, NULL, "PASSED");
    snprintf(moved, sizeof(moved), "%s.old", tdaemon_fx.store);
    ck_assert_int_eq(rename(tdaemon_fx.store, moved), 0);
    ck_assert_int_eq(mkdir(tdaemon_fx.store, 0700), 0);
    replace_file("r1", "other");
    expect_outcome("r1", "[{\"tool\": \"other\", \"args\": {}}]", NULL, "PASSED");
    expect_outcome("r2", CALLS_A, NULL, "CREATED");
    ck_assert(file_exists("r2"));

    /* removed */
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tdaemon_fx.store);
    ck_assert_int_eq(system(cmd), 0);
    expect_outcome("r1", CALLS_A, NULL, "CREATED");
    ck_assert(file_exists("r1"));
}
END_TEST

/* The outcome of a check of name in store with one call of tool, or the
 * code of the error it got (static). */
static const char *outcome_in(int fd, const char *store, const char *name, const char *tool)
{
    static char got[128];
    char calls[128];
    struct json_object *p = json_object_new_object();
    struct json_object *reply, *part = NULL;

    snprintf(calls, sizeof(calls), "[{\"tool\": \"%s\", \"args\": {}}]", tool);
    json_object_object_add(p, "store", json_object_new_string(store));
    json_object_object_add(p, "name", json_object_new_string(name));
    json_object_object_add(p, "actual", tjson(calls));
    reply = tdaemon_call(fd, "check", p);
    if (json_object_object_get_ex(reply, "result", &part) && part != NULL)
        snprintf(got, sizeof(got), "%s", tstr(part, "outcome"));
    else if (json_object_object_get_ex(reply, "error", &part) && part != NULL)
        snprintf(got, sizeof(got), "error %s", tstr(part, "code"));
    else
        ck_abort_msg("no result, no error: %s", json_object_to_json_string(reply));
    json_object_put(reply);
    json_object_put(p);
    return got;
}

/* A store under base (base/p/store, snapshot "r" of tool aaaa) and another
 * (base/q/store, "r" of tool bbbb), for replaced_roots_when_cached. */
static void two_stores(const char *base)
{
    char cmd[1200], dir[800];

    snprintf(cmd, sizeof(cmd), "mkdir -p '%s/p/store' '%s/q/store'", base, base);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(dir, sizeof(dir), "%s/p/store", base);
    replace_file_in(dir, "r", "aaaa");
    snprintf(dir, sizeof(dir), "%s/q/store", base);
    replace_file_in(dir, "r", "bbbb");
}

#define EXPECT_OUTCOME(fd, store, tool, want)                                                      \
    ck_assert_str_eq(outcome_in(fd, store, "r", tool), want)

/*
 * The replacements of sees_root_replaced, each made right after checks
 * answered from the snapshot cache (where the root is stat'ed once per check,
 * by the store lookup): base/p/store replaced by a link to another store, its
 * parent replaced by a link, the root replaced by a link to itself moved
 * away, moved away and recreated, removed. A daemon pinned to base/p/store
 * refuses what now resolves elsewhere; one not pinned serves the other store.
 */
static void root_replacements(int fd, const char *base, bool pinned)
{
    char store[800], away[800], parent[800], parent_away[800], other[800], other_parent[800];
    const char *elsewhere = pinned ? "error store_refused" : "PASSED";

    snprintf(store, sizeof(store), "%s/p/store", base);
    snprintf(away, sizeof(away), "%s/p/store.away", base);
    snprintf(parent, sizeof(parent), "%s/p", base);
    snprintf(parent_away, sizeof(parent_away), "%s/p.away", base);
    snprintf(other, sizeof(other), "%s/q/store", base);
    snprintf(other_parent, sizeof(other_parent), "%s/q", base);
    EXPECT_OUTCOME(fd, store, "aaaa", "PASSED"); /* read and kept */
    EXPECT_OUTCOME(fd, store, "aaaa", "PASSED"); /* from the cache */
    EXPECT_OUTCOME(fd, store, "bbbb", "FAILED");

    /* the root replaced by a link to the other store, then put back */
    ck_assert_int_eq(rename(store, away), 0);
    ck_assert_int_eq(symlink(other, store), 0);
    EXPECT_OUTCOME(fd, store, "bbbb", elsewhere);
    ck_assert_int_eq(unlink(store), 0);
    ck_assert_int_eq(rename(away, store), 0);
    EXPECT_OUTCOME(fd, store, "aaaa", "PASSED");
    EXPECT_OUTCOME(fd, store, "bbbb", "FAILED");

    /* its parent replaced by a link to the other store's, then put back */
    ck_assert_int_eq(rename(parent, parent_away), 0);
    ck_assert_int_eq(symlink(other_parent, parent), 0);
    EXPECT_OUTCOME(fd, store, "bbbb", elsewhere);
    ck_assert_int_eq(unlink(parent), 0);
    ck_assert_int_eq(rename(parent_away, parent), 0);
    EXPECT_OUTCOME(fd, store, "aaaa", "PASSED");

    /* the root moved away and the path made a link to it: the same
     * directory, still served (the path names what the store holds open) */
    ck_assert_int_eq(rename(store, away), 0);
    ck_assert_int_eq(symlink(away, store), 0);
    EXPECT_OUTCOME(fd, store, "aaaa", "PASSED");
    EXPECT_OUTCOME(fd, store, "bbbb", "FAILED");
    ck_assert_int_eq(unlink(store), 0);
    ck_assert_int_eq(rename(away, store), 0);
    EXPECT_OUTCOME(fd, store, "aaaa", "PASSED");

    /* moved away and recreated with another snapshot r */
    ck_assert_int_eq(rename(store, away), 0);
    ck_assert_int_eq(mkdir(store, 0700), 0);
    replace_file_in(store, "r", "cccc");
    EXPECT_OUTCOME(fd, store, "cccc", "PASSED");
    EXPECT_OUTCOME(fd, store, "aaaa", "FAILED");

    /* removed: r is missing */
    char cmd[1000];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", store);
    ck_assert_int_eq(system(cmd), 0);
    EXPECT_OUTCOME(fd, store, "aaaa", "CREATED");
}

START_TEST(replaced_roots_when_cached)
{
    char base[PATH_MAX], pinned_base[PATH_MAX], pin[PATH_MAX + 20];
    tdaemon pinned;

    ck_assert_ptr_nonnull(realpath(tdaemon_fx.dir, base));
    two_stores(base);
    tdaemon_prepare(&pinned);
    ck_assert_ptr_nonnull(realpath(pinned.dir, pinned_base));
    two_stores(pinned_base);
    snprintf(pin, sizeof(pin), "--store=%s/p/store", pinned_base);
    const char *extra[] = {pin, NULL};
    tdaemon_start(&pinned, extra);
    int fd = tdaemon_connect(pinned.socket);
    sleep(4); /* past the snapshot cache's 3 s margin */
    root_replacements(tdaemon_fx_conn, base, false);
    root_replacements(fd, pinned_base, true);
    close(fd);
    tdaemon_stop_ok(&pinned);
    tdaemon_cleanup(&pinned);
}
END_TEST

/* Garbage where a snapshot should be: a clear error for that check, nothing
 * overwritten, and the daemon carries on. */
START_TEST(corrupt_snapshot_files)
{
    static const char *const garbage[] = {
        "",
        "{",
        "{\"name\": \"bad\"}",
        "[1, 2]",
        "{\"name\": 5, \"calls\": []}",
        "\xff\xfe{}",
        "{\"name\": \"bad\", \"calls\": [{\"args\": {}}]}",
    };

    expect_outcome("bad", CALLS_A, NULL, "CREATED");
    for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
        FILE *f = fopen(snapshot_file("bad"), "w");
        fputs(garbage[i], f);
        fclose(f);
        struct json_object *p = check_params("bad", CALLS_A, NULL);
        struct json_object *reply = tdaemon_call(tdaemon_fx_conn, "check", p);
        struct json_object *error = NULL;
        ck_assert_msg(json_object_object_get_ex(reply, "error", &error) && error != NULL,
                      "garbage %zu accepted: %s", i, json_object_to_json_string(reply));
        const char *code = tstr(error, "code");
        ck_assert_msg(strcmp(code, "invalid_snapshot") == 0, "garbage %zu: code %s", i, code);
        ck_assert_msg(strstr(tstr(error, "message"), "bad-") != NULL,
                      "the message should name the file: %s", tstr(error, "message"));
        json_object_put(reply);
        /* the garbage is left for a person to look at, not overwritten */
        char *text = tdaemon_slurp(snapshot_file("bad"));
        ck_assert_str_eq(text, garbage[i]);
        free(text);
        json_object_put(p);
    }
    /* a symbolic link where the file should be is not followed */
    unlink(snapshot_file("bad"));
    ck_assert(symlink("/etc/passwd", snapshot_file("bad")) == 0);
    struct json_object *p = check_params("bad", CALLS_A, NULL);
    struct json_object *reply = tdaemon_call(tdaemon_fx_conn, "check", p);
    struct json_object *error = NULL;
    ck_assert(json_object_object_get_ex(reply, "error", &error) && error != NULL);
    json_object_put(reply);
    json_object_put(p);
    expect_outcome("good", CALLS_A, NULL, "CREATED");
}
END_TEST

static struct json_object *run_check(const char *run, const char *test, const char *name,
                                     const char *calls)
{
    struct json_object *p = check_params(name, calls, NULL);
    json_object_object_add(p, "run", json_object_new_string(run));
    if (test != NULL)
        json_object_object_add(p, "test", json_object_new_string(test));
    struct json_object *r = tdaemon_ok(tdaemon_fx_conn, "check", p);
    json_object_put(p);
    return r;
}

START_TEST(runs)
{
    expect_outcome("keep", CALLS_A, "update", "UPDATED");
    expect_outcome("orphan", CALLS_A, "update", "UPDATED");
    expect_outcome("drift", CALLS_A, "update", "UPDATED");

    struct json_object *p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    json_object_object_add(p, "label", json_object_new_string("suite"));
    struct json_object *r = tdaemon_ok(tdaemon_fx_conn, "run.open", p);
    char run[64];
    snprintf(run, sizeof(run), "%s", tstr(r, "run"));
    ck_assert_int_gt(strlen(run), 8);
    json_object_put(r);
    json_object_put(p);

    p = json_object_new_object();
    json_object_object_add(p, "run", json_object_new_string(run));
    r = tdaemon_ok(tdaemon_fx_conn, "run.join", p);
    ck_assert_str_eq(tstr(r, "store"), tdaemon_fx.store);
    json_object_put(r);

    json_object_put(run_check(run, "t::a", "keep", CALLS_A));
    json_object_put(run_check(run, "t::b", "keep", CALLS_A)); /* claimed twice */
    json_object_put(run_check(run, "t::c", "new1", CALLS_A));
    json_object_put(run_check(run, "t::d", "new2", CALLS_A));
    r = run_check(run, "t::e", "drift", CALLS_B);
    ck_assert_str_eq(tstr(r, "outcome"), "FAILED");
    json_object_put(r);

    r = tdaemon_ok(tdaemon_fx_conn, "run.summary", p);
    ck_assert_str_eq(tstr(r, "summary"),
                     "toolscore: 2 snapshots created (pending approval), 2 passed, 1 failed");
    struct json_object *counts = NULL, *v = NULL, *checks = NULL, *dups = NULL;
    ck_assert(json_object_object_get_ex(r, "counts", &counts));
    json_object_object_get_ex(counts, "created", &v);
    ck_assert_int_eq(json_object_get_int(v), 2);
    json_object_object_get_ex(counts, "passed", &v);
    ck_assert_int_eq(json_object_get_int(v), 2);
    json_object_object_get_ex(counts, "failed", &v);
    ck_assert_int_eq(json_object_get_int(v), 1);
    json_object_object_get_ex(counts, "checks", &v);
    ck_assert_int_eq(json_object_get_int(v), 5);
    json_object_object_get_ex(r, "duplicates", &dups);
    ck_assert_int_eq(json_object_array_length(dups), 1);
    ck_assert_str_eq(tstr(json_object_array_get_idx(dups, 0), "name"), "keep");
    json_object_put(r);

    /* The checks themselves are in the run's report. */
    struct json_object *rp = json_object_new_object();
    json_object_object_add(rp, "run", json_object_new_string(run));
    json_object_object_add(rp, "format", json_object_new_string("json"));
    r = tdaemon_ok(tdaemon_fx_conn, "run.report", rp);
    ck_assert_str_eq(tstr(r, "format"), "json");
    ck_assert(json_object_object_get_ex(r, "next", &v) && v == NULL);
    struct json_object *report = util_json_c_parse(tstr(r, "text"));
    json_object_put(r);
    json_object_object_get_ex(report, "checks", &checks);
    ck_assert_int_eq(json_object_array_length(checks), 5);
    struct json_object *c4 = json_object_array_get_idx(checks, 4);
    ck_assert_str_eq(tstr(c4, "name"), "drift");
    ck_assert_str_eq(tstr(c4, "test"), "t::e");
    ck_assert_str_eq(tstr(c4, "outcome"), "FAILED");
    ck_assert(json_object_object_get_ex(c4, "duration_ms", &v) && v != NULL);
    ck_assert(json_object_get_double(v) > 0);
    ck_assert_ptr_nonnull(strstr(tstr(c4, "report"), "Expected vs Actual"));
    json_object_put(report);
    json_object_object_add(rp, "format", json_object_new_string("yaml"));
    tdaemon_err(tdaemon_fx_conn, "run.report", rp, "invalid_argument");
    json_object_put(rp);

    /* orphans need a closed run */
    struct json_object *op = json_object_new_object();
    json_object_object_add(op, "store", json_object_new_string(tdaemon_fx.store));
    json_object_object_add(op, "run", json_object_new_string(run));
    tdaemon_err(tdaemon_fx_conn, "orphans", op, "invalid_argument");

    /* review: pending ones and the FAILED one with its observation */
    r = tdaemon_ok(tdaemon_fx_conn, "review", op);
    struct json_object *items = NULL;
    json_object_object_get_ex(r, "items", &items);
    ck_assert_int_eq(json_object_array_length(items), 3);
    int seen_drift = 0;
    for (size_t i = 0; i < json_object_array_length(items); i++) {
        struct json_object *it = json_object_array_get_idx(items, i);
        if (strcmp(tstr(it, "name"), "drift") == 0) {
            struct json_object *obs = NULL;
            ck_assert(json_object_object_get_ex(it, "observation", &obs) && obs != NULL);
            ck_assert_str_eq(tstr(obs, "outcome"), "FAILED");
            ck_assert_str_eq(tstr(obs, "run"), run);
            ck_assert_str_eq(tstr(obs, "test"), "t::e");
            ck_assert_str_eq(tstr(it, "kind"), "failed");
            seen_drift = 1;
        } else {
            ck_assert_str_eq(tstr(it, "kind"), "pending");
        }
    }
    ck_assert(seen_drift);
    json_object_put(r);
    /* diff: the observed calls against the baseline */
    struct json_object *dp = json_object_new_object();
    json_object_object_add(dp, "store", json_object_new_string(tdaemon_fx.store));
    json_object_object_add(dp, "name", json_object_new_string("drift"));
    r = tdaemon_ok(tdaemon_fx_conn, "diff", dp);
    assert_json(json_object_object_get(r, "observed"), CALLS_B);
    assert_json(json_object_object_get(r, "baseline"), CALLS_A);
    ck_assert_ptr_nonnull(strstr(tstr(r, "report"), "Expected vs Actual"));
    json_object_put(r);
    json_object_put(dp);

    r = tdaemon_ok(tdaemon_fx_conn, "run.close", p);
    struct json_object *closed = NULL;
    json_object_object_get_ex(r, "closed", &closed);
    ck_assert(json_object_get_boolean(closed));
    json_object_put(r);
    r = tdaemon_ok(tdaemon_fx_conn, "orphans", op);
    struct json_object *names = NULL;
    json_object_object_get_ex(r, "names", &names);
    ck_assert_int_eq(json_object_array_length(names), 1);
    ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(names, 0)), "orphan");
    json_object_put(r);

    /* a closed run takes no more checks; an unknown run is not_found */
    struct json_object *cp = check_params("keep", CALLS_A, NULL);
    json_object_object_add(cp, "run", json_object_new_string(run));
    tdaemon_err(tdaemon_fx_conn, "check", cp, "invalid_argument");
    json_object_object_add(cp, "run", json_object_new_string("nosuchrun"));
    tdaemon_err(tdaemon_fx_conn, "check", cp, "not_found");
    json_object_put(cp);
    json_object_object_add(p, "run", json_object_new_string("nosuchrun"));
    tdaemon_err(tdaemon_fx_conn, "run.summary", p, "not_found");
    json_object_put(p);
    json_object_put(op);
}
END_TEST

/* Limits on what a check carries: calls per snapshot; an absent store root
 * lists as empty. */
/* list params: {store, pending?, limit?, cursor?} */
static struct json_object *list_params(const char *store, int limit, const char *cursor)
{
    struct json_object *p = json_object_new_object();

    json_object_object_add(p, "store", json_object_new_string(store));
    if (limit > 0)
        json_object_object_add(p, "limit", json_object_new_int(limit));
    if (cursor != NULL)
        json_object_object_add(p, "cursor", json_object_new_string(cursor));
    return p;
}

/* tdaemon_ok / tdaemon_err that also put their params. */
static struct json_object *ok_put(const char *method, struct json_object *p)
{
    struct json_object *r = tdaemon_ok(tdaemon_fx_conn, method, p);

    json_object_put(p);
    return r;
}

static const char *err_put(const char *method, struct json_object *p, const char *code)
{
    const char *m = tdaemon_err(tdaemon_fx_conn, method, p, code);

    json_object_put(p);
    return m;
}

/* The names of a list result, comma-separated, into out. */
static const char *listed_names(struct json_object *r, char *out, size_t outsz)
{
    struct json_object *items = json_object_object_get(r, "snapshots");
    size_t used = 0;

    out[0] = '\0';
    for (size_t i = 0; i < json_object_array_length(items); i++)
        used += (size_t)snprintf(out + used, outsz - used, "%s%s", i ? "," : "",
                                 tstr(json_object_array_get_idx(items, i), "name"));
    return out;
}

static int64_t total_of(struct json_object *r)
{
    return json_object_get_int64(json_object_object_get(r, "total"));
}

/* Pages of one listing are one view of the store as it was read: a name
 * added or removed between pages changes the next listing, not this one. */
START_TEST(list_pages)
{
    char name[16], names[1024], cursor[128], path[1024];
    struct json_object *r, *p;
    FILE *f;

    for (int i = 0; i < 25; i++) {
        snprintf(name, sizeof(name), "p%02d", i);
        expect_outcome(name, CALLS_A, NULL, "CREATED");
    }
    snprintf(path, sizeof(path), "%s/garbage.json", tdaemon_fx.store);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{", f);
    fclose(f);

    r = ok_put("list", list_params(tdaemon_fx.store, 10, NULL));
    ck_assert_str_eq(listed_names(r, names, sizeof(names)),
                     "p00,p01,p02,p03,p04,p05,p06,p07,p08,p09");
    ck_assert_int_eq(total_of(r), 25);
    ck_assert_int_eq(json_object_array_length(json_object_object_get(r, "problems")), 1);
    ck_assert(json_object_is_type(json_object_object_get(r, "next"), json_type_string));
    snprintf(cursor, sizeof(cursor), "%s", tstr(r, "next"));
    json_object_put(r);

    /* between pages: one added after the cursor, one removed before it is sent */
    expect_outcome("p99", CALLS_A, NULL, "CREATED");
    p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    json_object_object_add(p, "name", json_object_new_string("p15"));
    json_object_put(ok_put("rm", p));

    /* a cursor is a position: asked for twice (a retry), the same page */
    for (int retry = 0; retry < 2; retry++) {
        r = ok_put("list", list_params(tdaemon_fx.store, 10, cursor));
        ck_assert_str_eq(listed_names(r, names, sizeof(names)),
                         "p10,p11,p12,p13,p14,p15,p16,p17,p18,p19");
        ck_assert_int_eq(total_of(r), 25);
        ck_assert_int_eq(json_object_array_length(json_object_object_get(r, "problems")), 0);
        ck_assert_str_ne(tstr(r, "next"), cursor);
        if (retry == 1)
            snprintf(cursor, sizeof(cursor), "%s", tstr(r, "next"));
        json_object_put(r);
    }
    /* another page size for the last page, which a retry gets again too */
    for (int retry = 0; retry < 2; retry++) {
        r = ok_put("list", list_params(tdaemon_fx.store, 100, cursor));
        ck_assert_str_eq(listed_names(r, names, sizeof(names)), "p20,p21,p22,p23,p24");
        ck_assert(json_object_object_get(r, "next") == NULL);
        json_object_put(r);
    }

    /* a new listing sees the change; without a limit, one page */
    r = ok_put("list", list_params(tdaemon_fx.store, 0, NULL));
    ck_assert_int_eq(total_of(r), 25);
    ck_assert_int_eq(json_object_array_length(json_object_object_get(r, "snapshots")), 25);
    ck_assert(json_object_object_get(r, "next") == NULL);
    ck_assert_ptr_null(strstr(listed_names(r, names, sizeof(names)), "p15"));
    ck_assert_ptr_nonnull(strstr(names, "p99"));
    json_object_put(r);

    /* pending only, paged */
    approve(tdaemon_fx_conn, "p00");
    p = list_params(tdaemon_fx.store, 24, NULL);
    json_object_object_add(p, "pending", json_object_new_boolean(1));
    r = ok_put("list", p);
    ck_assert_int_eq(total_of(r), 24);
    ck_assert_ptr_null(strstr(listed_names(r, names, sizeof(names)), "p00"));
    ck_assert(json_object_object_get(r, "next") == NULL);
    json_object_put(r);
}
END_TEST

START_TEST(list_bad_paging)
{
    static const char *const bad_limits[] = {"0", "-1", "1000001", "\"ten\"", "true", "1.5", "[]"};
    struct json_object *p, *r;
    char other[1100], cursor[128];

    for (size_t i = 0; i < sizeof(bad_limits) / sizeof(bad_limits[0]); i++) {
        p = list_params(tdaemon_fx.store, 0, NULL);
        json_object_object_add(p, "limit", tjson(bad_limits[i]));
        ck_assert_ptr_nonnull(strstr(err_put("list", p, "invalid_argument"), "limit"));
    }
    p = list_params(tdaemon_fx.store, 0, NULL);
    json_object_object_add(p, "cursor", json_object_new_int(5));
    ck_assert_ptr_nonnull(strstr(err_put("list", p, "invalid_argument"), "cursor"));
    ck_assert_ptr_nonnull(
        strstr(err_put("list", list_params(tdaemon_fx.store, 1, "nope"), "invalid_argument"),
               "unknown or expired"));
    ck_assert_ptr_nonnull(
        strstr(err_put("list", list_params(tdaemon_fx.store, 1, ""), "invalid_argument"),
               "unknown or expired"));

    /* a cursor belongs to its store */
    expect_outcome("a", CALLS_A, NULL, "CREATED");
    expect_outcome("b", CALLS_A, NULL, "CREATED");
    r = ok_put("list", list_params(tdaemon_fx.store, 1, NULL));
    snprintf(cursor, sizeof(cursor), "%s", tstr(r, "next"));
    ck_assert(cursor[0] != '\0');
    json_object_put(r);
    snprintf(other, sizeof(other), "%s-other", tdaemon_fx.store);
    ck_assert_ptr_nonnull(strstr(err_put("list", list_params(other, 1, cursor), "invalid_argument"),
                                 "belongs to the store"));
    /* still usable from its own store */
    r = ok_put("list", list_params(tdaemon_fx.store, 1, cursor));
    ck_assert_str_eq(
        tstr(json_object_array_get_idx(json_object_object_get(r, "snapshots"), 0), "name"), "b");
    json_object_put(r);

    /* at most 16 unfinished listings are held: a 17th drops the least
     * recently used */
    char held[17][128];
    for (int i = 0; i < 17; i++) {
        r = ok_put("list", list_params(tdaemon_fx.store, 1, NULL));
        snprintf(held[i], sizeof(held[i]), "%s", tstr(r, "next"));
        json_object_put(r);
    }
    ck_assert_ptr_nonnull(
        strstr(err_put("list", list_params(tdaemon_fx.store, 1, held[0]), "invalid_argument"),
               "unknown or expired"));
    for (int i = 1; i < 17; i++) {
        r = ok_put("list", list_params(tdaemon_fx.store, 1, held[i]));
        ck_assert_str_eq(
            tstr(json_object_array_get_idx(json_object_object_get(r, "snapshots"), 0), "name"),
            "b");
        json_object_put(r);
    }
}
END_TEST

START_TEST(limits_and_empty_store)
{
    struct json_object *p = json_object_new_object();
    struct json_object *calls = json_object_new_array();

    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    struct json_object *r = tdaemon_ok(tdaemon_fx_conn, "list", p);
    struct json_object *items = NULL;
    ck_assert(json_object_object_get_ex(r, "snapshots", &items));
    ck_assert_int_eq(json_object_array_length(items), 0);
    json_object_put(r);
    json_object_object_add(p, "all", json_object_new_boolean(1));
    r = tdaemon_ok(tdaemon_fx_conn, "approve", p);
    ck_assert(json_object_object_get_ex(r, "approved", &items));
    ck_assert_int_eq(json_object_array_length(items), 0);
    json_object_put(r);

    for (int i = 0; i < 100001; i++) {
        struct json_object *c = json_object_new_object();
        json_object_object_add(c, "tool", json_object_new_string("t"));
        json_object_array_add(calls, c);
    }
    json_object_object_add(p, "name", json_object_new_string("huge"));
    json_object_object_add(p, "actual", calls);
    ck_assert_ptr_nonnull(strstr(tdaemon_err(tdaemon_fx_conn, "check", p, "limit"), "100000"));
    json_object_array_del_idx(calls, 0, 1);
    r = tdaemon_ok(tdaemon_fx_conn, "check", p); /* exactly at the limit */
    ck_assert_str_eq(tstr(r, "outcome"), "CREATED");
    json_object_put(r);
    json_object_put(p);
}
END_TEST

/* Pipelined requests on one snapshot apply in arrival order, whichever kind
 * of work they are (checks run on the thread pool, approve/rm/list on the
 * loop), and the replies come back in request order. */
START_TEST(pipelined_order)
{
    static const char *const steps[][3] = {
        {"check", CALLS_A, "CREATED"}, {"check", CALLS_B, "PENDING"}, {"approve", NULL, NULL},
        {"check", CALLS_A, "PASSED"},  {"check", CALLS_B, "FAILED"},  {"rm", NULL, NULL},
        {"check", CALLS_B, "CREATED"}, {"list", NULL, NULL},          {"check", CALLS_B, "PENDING"},
    };
    size_t n = sizeof(steps) / sizeof(steps[0]);

    for (int round = 0; round < 20; round++) {
        char name[32];

        snprintf(name, sizeof(name), "piped-%d", round);
        for (size_t i = 0; i < n; i++) {
            struct json_object *p = json_object_new_object();

            json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
            if (strcmp(steps[i][0], "approve") == 0) {
                struct json_object *names = json_object_new_array();
                json_object_array_add(names, json_object_new_string(name));
                json_object_object_add(p, "names", names);
            } else if (strcmp(steps[i][0], "list") != 0) {
                json_object_object_add(p, "name", json_object_new_string(name));
            }
            if (steps[i][1] != NULL)
                json_object_object_add(p, "actual", tjson(steps[i][1]));
            tdaemon_send(tdaemon_fx_conn, 100 + i, steps[i][0], p);
            json_object_put(p);
        }
        for (size_t i = 0; i < n; i++) {
            struct json_object *r = NULL, *id = NULL, *ok = NULL, *result = NULL;

            ck_assert(tdaemon_read(tdaemon_fx_conn, &r, 10000) == 0);
            json_object_object_get_ex(r, "id", &id);
            ck_assert_int_eq(json_object_get_int64(id), (int64_t)(100 + i));
            json_object_object_get_ex(r, "ok", &ok);
            ck_assert_msg(json_object_get_boolean(ok), "%s: %s", steps[i][0],
                          json_object_to_json_string(r));
            json_object_object_get_ex(r, "result", &result);
            if (steps[i][2] != NULL)
                ck_assert_msg(strcmp(tstr(result, "outcome"), steps[i][2]) == 0,
                              "round %d step %zu: want %s, got %s", round, i, steps[i][2],
                              json_object_to_json_string(result));
            json_object_put(r);
        }
    }
}
END_TEST

/* More stores than the daemon keeps open: the least recently used idle one
 * is closed and reopened on its next use, with its files intact. */
START_TEST(many_stores)
{
    char root[700];

    for (int i = 0; i < 300; i++) {
        struct json_object *p = json_object_new_object();

        snprintf(root, sizeof(root), "%s/many/%d", tdaemon_fx.dir, i);
        json_object_object_add(p, "store", json_object_new_string(root));
        json_object_object_add(p, "name", json_object_new_string("one"));
        json_object_object_add(p, "actual", tjson(CALLS_A));
        json_object_object_add(p, "update", json_object_new_boolean(1));
        struct json_object *r = tdaemon_ok(tdaemon_fx_conn, "check", p);
        ck_assert_str_eq(tstr(r, "outcome"), "UPDATED");
        json_object_put(r);
        json_object_put(p);
    }
    struct json_object *st = tdaemon_ok(tdaemon_fx_conn, "status", NULL);
    struct json_object *n = NULL;
    json_object_object_get_ex(st, "stores_open", &n);
    ck_assert_int_le(json_object_get_int64(n), 256);
    json_object_put(st);
    for (int i = 0; i < 300; i += 37) {
        struct json_object *p = json_object_new_object();

        snprintf(root, sizeof(root), "%s/many/%d", tdaemon_fx.dir, i);
        json_object_object_add(p, "store", json_object_new_string(root));
        json_object_object_add(p, "name", json_object_new_string("one"));
        json_object_object_add(p, "actual", tjson(CALLS_A));
        struct json_object *r = tdaemon_ok(tdaemon_fx_conn, "check", p);
        ck_assert_str_eq(tstr(r, "outcome"), "PASSED");
        json_object_put(r);
        json_object_put(p);
    }
}
END_TEST

/* A crash leaves temp files; the daemon removes them when it opens the store. */
START_TEST(stray_temp_files_cleaned)
{
    char path[800];
    struct stat st;

    ck_assert(mkdir(tdaemon_fx.store, 0700) == 0);
    snprintf(path, sizeof(path), "%s/.x-12345678.json.0123456789abcdef.tmp", tdaemon_fx.store);
    FILE *f = fopen(path, "w");
    fputs("{\"half\": ", f);
    fclose(f);
    expect_outcome("after-crash", CALLS_A, NULL, "CREATED");
    ck_assert_msg(stat(path, &st) != 0, "stray temp file still there");
    ck_assert(file_exists("after-crash"));
}
END_TEST

static Suite *state_suite(void)
{
    Suite *s = suite_create("daemon_state");
    TCase *tc = tdaemon_fixture_case("state", true, NULL, 60);

    tcase_add_test(tc, local_rows);
    tcase_add_test(tc, ci_rows);
    tcase_add_test(tc, daemon_env_ignored);
    tcase_add_test(tc, extracts_actual);
    tcase_add_test(tc, bad_params);
    tcase_add_test(tc, pinned_store);
    tcase_add_test(tc, record_list_show_rm);
    tcase_add_test(tc, one_created_among_32);
    tcase_add_test(tc, approvals_kept_under_load);
    tcase_add_test(tc, sees_changes_behind_its_back);
    tcase_add_test(tc, sees_changes_behind_its_back_when_old);
    tcase_add_test(tc, sees_root_replaced);
    tcase_add_test(tc, replaced_roots_when_cached);
    tcase_add_test(tc, corrupt_snapshot_files);
    tcase_add_test(tc, runs);
    tcase_add_test(tc, stray_temp_files_cleaned);
    tcase_add_test(tc, limits_and_empty_store);
    tcase_add_test(tc, list_pages);
    tcase_add_test(tc, list_bad_paging);
    tcase_add_test(tc, pipelined_order);
    tcase_add_test(tc, many_stores);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return util_run_suite(state_suite());
}
