/*
 * test_daemon_review — kept observations and the review methods over a real
 * toolscored socket: the check reply's written and kept (answered on the
 * loop and on the pool), what supersedes an observation (a passing check,
 * an update, record, rm, a changed file), approve's flags, the bounds per
 * store (count and size), observations that outlive a kill -9, the state
 * directory refused at start, and bad params of accept / reject / diff /
 * review.
 */
#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util_daemon.h"
#include "util_test.h"

#define CALLS_A "[{\"tool\": \"search\", \"args\": {\"q\": \"NYC\"}}]"
#define CALLS_B "[{\"tool\": \"search\", \"args\": {\"q\": \"LAX\"}}]"

static char state_dir[600];
static int conn = -1;

/* Start the fixture's daemon with its own state directory. */
static void start(void)
{
    const char *args[] = {"--state-dir", state_dir, NULL};

    snprintf(state_dir, sizeof(state_dir), "%s/state", tdaemon_fx.dir);
    tdaemon_start(&tdaemon_fx, args);
    conn = tdaemon_connect(tdaemon_fx.socket);
}

static void stop(void)
{
    close(conn);
    conn = -1;
    tdaemon_stop_ok(&tdaemon_fx);
}

static struct json_object *store_params(void)
{
    struct json_object *p = json_object_new_object();

    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    return p;
}

static struct json_object *check_params(const char *name, const char *calls, bool update)
{
    struct json_object *p = store_params();

    json_object_object_add(p, "name", json_object_new_string(name));
    json_object_object_add(p, "actual", tjson(calls));
    if (update)
        json_object_object_add(p, "update", json_object_new_boolean(1));
    return p;
}

static bool member_bool(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;

    ck_assert_msg(json_object_object_get_ex(o, key, &v) &&
                      json_object_is_type(v, json_type_boolean),
                  "no boolean %s in %s", key, json_object_to_json_string(o));
    return json_object_get_boolean(v);
}

/* A check: its outcome, and written / kept into *written / *kept. */
static void check(const char *name, const char *calls, bool update, const char *outcome,
                  bool written, bool kept)
{
    struct json_object *p = check_params(name, calls, update);
    struct json_object *r = tdaemon_ok(conn, "check", p);

    ck_assert_msg(strcmp(tstr(r, "outcome"), outcome) == 0, "%s: %s", name,
                  json_object_to_json_string(r));
    ck_assert_msg(member_bool(r, "written") == written, "%s written: %s", name,
                  json_object_to_json_string(r));
    ck_assert_msg(member_bool(r, "kept") == kept, "%s kept: %s", name,
                  json_object_to_json_string(r));
    json_object_put(r);
    json_object_put(p);
}

static struct json_object *names_params(const char *name)
{
    struct json_object *p = store_params();
    struct json_object *names = json_object_new_array();

    json_object_array_add(names, json_object_new_string(name));
    json_object_object_add(p, "names", names);
    return p;
}

static void call_ok(const char *method, struct json_object *p)
{
    json_object_put(tdaemon_ok(conn, method, p));
    json_object_put(p);
}

/* Whether diff finds an observation for name. */
static bool kept(const char *name)
{
    struct json_object *p = store_params();
    struct json_object *r;
    bool ok;

    json_object_object_add(p, "name", json_object_new_string(name));
    r = tdaemon_call(conn, "diff", p);
    ok = member_bool(r, "ok");
    if (!ok) {
        struct json_object *e = json_object_object_get(r, "error");
        ck_assert_str_eq(tstr(e, "code"), "not_found");
    }
    json_object_put(r);
    json_object_put(p);
    return ok;
}

/* Files in the store's observations directory. */
static int observation_files(void)
{
    char path[PATH_MAX];
    DIR *d = opendir(state_dir);
    struct dirent *e;
    int n = -1;

    ck_assert_ptr_nonnull(d);
    snprintf(path, sizeof(path), "%s/stores", state_dir);
    closedir(d);
    d = opendir(path);
    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/stores/%s/observations", state_dir, e->d_name);
        n = util_count_entries(path, "");
    }
    closedir(d);
    return n;
}

START_TEST(reply_says_written_and_kept)
{
    start();
    check("a", CALLS_A, false, "CREATED", true, false);
    check("a", CALLS_A, false, "PENDING", false, false);
    check("a", CALLS_B, false, "PENDING", false, true); /* differs: kept */
    ck_assert(kept("a"));
    check("a", CALLS_A, false, "PENDING", false, false); /* the recording again: dropped */
    ck_assert(!kept("a"));
    call_ok("approve", names_params("a"));
    /* replays of a small cached snapshot are answered on the loop; the
     * observation work of one goes through a job of its file */
    check("a", CALLS_A, false, "PASSED", false, false);
    check("a", CALLS_B, false, "FAILED", false, true);
    ck_assert(kept("a"));
    check("a", CALLS_B, false, "FAILED", false, true);  /* replaced by the newer one */
    check("a", CALLS_A, false, "PASSED", false, false); /* superseded by a passing check */
    ck_assert(!kept("a"));
    check("a", CALLS_B, false, "FAILED", false, true);
    check("a", CALLS_B, true, "UPDATED", true, false); /* superseded by an update */
    ck_assert(!kept("a"));
    check("a", CALLS_B, true, "UPDATED", false, false); /* already the approved calls */
    ck_assert_int_eq(observation_files(), 0);
    stop();
}
END_TEST

START_TEST(record_rm_and_approve)
{
    struct json_object *p, *r, *e;

    start();
    check("r", CALLS_A, false, "CREATED", true, false);
    call_ok("approve", names_params("r"));
    check("r", CALLS_B, false, "FAILED", false, true);
    /* approve of an approved snapshot changes nothing and says an observation is kept */
    p = names_params("r");
    r = tdaemon_ok(conn, "approve", p);
    e = json_object_array_get_idx(json_object_object_get(r, "approved"), 0);
    ck_assert(!member_bool(e, "changed"));
    ck_assert(member_bool(e, "observation"));
    json_object_put(r);
    json_object_put(p);
    ck_assert(kept("r"));
    /* a trace imported over it supersedes the observation */
    p = store_params();
    json_object_object_add(p, "name", json_object_new_string("r"));
    json_object_object_add(p, "calls", tjson(CALLS_A));
    json_object_object_add(p, "update", json_object_new_boolean(1));
    r = tdaemon_ok(conn, "record", p);
    ck_assert(!member_bool(r, "written")); /* the approved calls already */
    json_object_put(r);
    json_object_put(p);
    ck_assert(!kept("r"));
    check("r", CALLS_B, false, "FAILED", false, true);
    p = store_params();
    json_object_object_add(p, "name", json_object_new_string("r"));
    call_ok("rm", p);
    ck_assert(!kept("r"));
    ck_assert_int_eq(observation_files(), 0);
    /* a pending snapshot approved keeps its observation, which now differs
     * from the approved recording */
    check("p", CALLS_A, false, "CREATED", true, false);
    check("p", CALLS_B, false, "PENDING", false, true);
    p = names_params("p");
    r = tdaemon_ok(conn, "approve", p);
    e = json_object_array_get_idx(json_object_object_get(r, "approved"), 0);
    ck_assert(member_bool(e, "changed"));
    ck_assert(member_bool(e, "observation"));
    json_object_put(r);
    json_object_put(p);
    p = store_params();
    json_object_object_add(p, "name", json_object_new_string("p"));
    r = tdaemon_ok(conn, "diff", p);
    ck_assert_str_eq(tstr(r, "kind"), "failed");
    json_object_put(r);
    json_object_put(p);
    stop();
}
END_TEST

START_TEST(kept_across_kill_9)
{
    struct json_object *p, *r, *items;

    start();
    check("k1", CALLS_A, false, "CREATED", true, false);
    check("k2", CALLS_A, false, "CREATED", true, false);
    call_ok("approve", names_params("k1"));
    check("k1", CALLS_B, false, "FAILED", false, true);
    check("k2", CALLS_B, false, "PENDING", false, true);
    close(conn);
    tdaemon_kill(&tdaemon_fx);
    start();
    p = store_params();
    r = tdaemon_ok(conn, "review", p);
    items = json_object_object_get(r, "items");
    ck_assert_int_eq(json_object_array_length(items), 2);
    ck_assert_str_eq(tstr(json_object_array_get_idx(items, 0), "name"), "k1");
    ck_assert_str_eq(tstr(json_object_array_get_idx(items, 0), "kind"), "failed");
    ck_assert_str_eq(tstr(json_object_array_get_idx(items, 1), "kind"), "pending");
    json_object_put(r);
    json_object_put(p);
    /* the index was read again: a passing replay on the loop drops it */
    check("k1", CALLS_A, false, "PASSED", false, false);
    ck_assert(!kept("k1"));
    p = store_params();
    json_object_object_add(p, "all", json_object_new_boolean(1));
    r = tdaemon_ok(conn, "accept", p);
    ck_assert_int_eq(json_object_array_length(json_object_object_get(r, "accepted")), 1);
    json_object_put(r);
    json_object_put(p);
    check("k2", CALLS_B, false, "PASSED", false, false);
    ck_assert_int_eq(observation_files(), 0);
    stop();
}
END_TEST

START_TEST(bounded_per_store)
{
    char name[32];
    char calls[128];

    start();
    /* 1,010 FAILED names: the first 10 go, the newest 1,000 stay */
    for (int i = 0; i < 1010; i++) {
        struct json_object *p;

        snprintf(name, sizeof(name), "n%04d", i);
        check(name, CALLS_A, true, "UPDATED", true, false);
        snprintf(calls, sizeof(calls), "[{\"tool\": \"search\", \"args\": {\"q\": %d}}]", i);
        p = check_params(name, calls, false);
        json_object_put(tdaemon_ok(conn, "check", p));
        json_object_put(p);
    }
    ck_assert_int_eq(observation_files(), 1000);
    ck_assert(!kept("n0000"));
    ck_assert(!kept("n0009"));
    ck_assert(kept("n0010"));
    ck_assert(kept("n1009"));
    stop();
}
END_TEST

START_TEST(too_large_is_not_kept)
{
    size_t n = 96u << 10;
    char *blob = malloc(n + 1);
    struct json_object *p, *r, *actual;

    start();
    check("big", CALLS_A, false, "CREATED", true, false);
    call_ok("approve", names_params("big"));
    memset(blob, 'x', n);
    blob[n] = '\0';
    /* 9 MiB of observed calls, more than an observation may hold */
    actual = tjson(CALLS_A);
    for (int i = 0; i < 96; i++) {
        struct json_object *call = json_object_new_object();
        struct json_object *args = json_object_new_object();

        json_object_object_add(args, "v", json_object_new_string(blob));
        json_object_object_add(call, "tool", json_object_new_string("blob"));
        json_object_object_add(call, "args", args);
        json_object_array_add(actual, call);
    }
    p = store_params();
    json_object_object_add(p, "name", json_object_new_string("big"));
    json_object_object_add(p, "actual", actual);
    r = tdaemon_ok(conn, "check", p);
    ck_assert_str_eq(tstr(r, "outcome"), "FAILED");
    ck_assert(!member_bool(r, "kept"));
    json_object_put(r);
    json_object_put(p);
    free(blob);
    ck_assert(!kept("big"));
    tdaemon_serves(tdaemon_fx.socket);
    stop();
}
END_TEST

/* method with params p (consumed) must fail with code. */
static void refused(const char *method, struct json_object *p, const char *code)
{
    tdaemon_err(conn, method, p, code);
    json_object_put(p);
}

/* diff reports what the check reported: the same options, rules and text
 * (the check's then ends with the commands that accept it and review all) */
START_TEST(diff_is_the_checks_report)
{
    struct json_object *p, *r, *d;
    char *checked;

    start();
    check("ru", "[{\"tool\": \"s\", \"args\": {\"q\": \"NYC\", \"id\": 1}}]", false, "CREATED",
          true, false);
    call_ok("approve", names_params("ru"));
    p = check_params("ru", "[{\"tool\": \"s\", \"args\": {\"q\": \"LAX\", \"id\": 2}}]", false);
    json_object_object_add(p, "rules", tjson("{\"ignore\": [\"*.args.id\"]}"));
    json_object_object_add(p, "min_score", json_object_new_double(0.9));
    json_object_object_add(p, "width", json_object_new_int(72));
    r = tdaemon_ok(conn, "check", p);
    ck_assert_str_eq(tstr(r, "outcome"), "FAILED");
    checked = strdup(tstr(r, "report"));
    json_object_put(r);
    json_object_put(p);
    ck_assert_ptr_nonnull(strstr(checked, "ignored"));
    d = store_params();
    json_object_object_add(d, "name", json_object_new_string("ru"));
    json_object_object_add(d, "width", json_object_new_int(72));
    r = tdaemon_ok(conn, "diff", d);
    /* the check's text is the same report, then the commands that end a failure */
    ck_assert_uint_gt(strlen(checked), strlen(tstr(r, "report")));
    ck_assert_str_eq(checked + strlen(tstr(r, "report")),
                     "\nTo accept the observed calls:\n  tsctl accept 'ru'\n"
                     "To review everything:\n  tsctl review\n");
    checked[strlen(tstr(r, "report"))] = '\0';
    ck_assert_str_eq(tstr(r, "report"), checked);
    ck_assert(!member_bool(json_object_object_get(r, "result"), "passed"));
    json_object_put(r);
    json_object_object_add(d, "width", json_object_new_int(70000));
    tdaemon_err(conn, "diff", d, "invalid_argument");
    json_object_put(d);
    free(checked);
    stop();
}
END_TEST

/* The source of name's snapshot file, as written. */
static char *file_source(const char *name)
{
    struct json_object *o = json_object_from_file(tdaemon_snapshot_path(tdaemon_fx.store, name));
    char *out;

    ck_assert_ptr_nonnull(o);
    out = strdup(tstr(o, "source"));
    json_object_put(o);
    return out;
}

/* A check's source is the snapshot's: written by CREATED and UPDATED, kept
 * with an observation and written by accepting it; unknown ones refused. */
START_TEST(the_source_of_a_check)
{
    struct json_object *p;
    char *src;

    start();
    p = check_params("s", CALLS_A, false);
    json_object_object_add(p, "source", json_object_new_string("vitest"));
    json_object_put(tdaemon_ok(conn, "check", p));
    json_object_put(p);
    src = file_source("s");
    ck_assert_str_eq(src, "vitest");
    free(src);
    call_ok("approve", names_params("s"));
    p = check_params("s", CALLS_B, false);
    json_object_object_add(p, "source", json_object_new_string("jest"));
    json_object_put(tdaemon_ok(conn, "check", p));
    json_object_put(p);
    call_ok("accept", names_params("s"));
    src = file_source("s");
    ck_assert_str_eq(src, "jest");
    free(src);
    /* without one: pytest, as the reference writes it */
    check("s", CALLS_A, true, "UPDATED", true, false);
    src = file_source("s");
    ck_assert_str_eq(src, "pytest");
    free(src);
    p = check_params("t", CALLS_A, false);
    json_object_object_add(p, "source", json_object_new_string("mocha"));
    refused("check", p, "invalid_argument");
    p = check_params("t", CALLS_A, false);
    json_object_object_add(p, "source", json_object_new_int(3));
    refused("check", p, "invalid_argument");
    stop();
}
END_TEST

/* A check's "tsctl" starts every command its texts print (the message,
 * the failure's last lines); the run's record keeps the report alone. Text
 * that would not show as itself, or none, is refused. */
START_TEST(the_tsctl_of_a_check)
{
    struct json_object *p, *r;
    char *hidden;

    start();
    p = check_params("n", CALLS_A, false);
    json_object_object_add(p, "tsctl", json_object_new_string("npx tsctl"));
    r = tdaemon_ok(conn, "check", p);
    ck_assert_str_eq(tstr(r, "outcome"), "CREATED");
    ck_assert_ptr_nonnull(strstr(tstr(r, "message"), "then approve with `npx tsctl approve 'n'`"));
    json_object_put(r);
    json_object_put(p);
    call_ok("approve", names_params("n"));
    p = check_params("n", CALLS_B, false);
    json_object_object_add(p, "tsctl", json_object_new_string("'/p/my venv/bin/tsctl'"));
    r = tdaemon_ok(conn, "check", p);
    ck_assert_str_eq(tstr(r, "outcome"), "FAILED");
    ck_assert_ptr_nonnull(strstr(tstr(r, "report"), "\nTo accept the observed calls:\n"
                                                    "  '/p/my venv/bin/tsctl' accept 'n'\n"
                                                    "To review everything:\n"
                                                    "  '/p/my venv/bin/tsctl' review\n"));
    json_object_put(r);
    json_object_put(p);
    /* without one: tsctl */
    p = check_params("n", CALLS_B, false);
    r = tdaemon_ok(conn, "check", p);
    ck_assert_ptr_nonnull(strstr(tstr(r, "report"), "\n  tsctl accept 'n'\n"));
    json_object_put(r);
    json_object_put(p);
    const char *bad[] = {"", "tsctl\n; rm -rf ~", "\x1b[2Jtsctl"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        p = check_params("n", CALLS_B, false);
        json_object_object_add(p, "tsctl", json_object_new_string(bad[i]));
        refused("check", p, "invalid_argument");
    }
    hidden = calloc(1, 5000);
    ck_assert_ptr_nonnull(hidden);
    memset(hidden, 'x', 4999);
    p = check_params("n", CALLS_B, false);
    json_object_object_add(p, "tsctl", json_object_new_string(hidden));
    refused("check", p, "invalid_argument");
    free(hidden);
    p = check_params("n", CALLS_B, false);
    json_object_object_add(p, "tsctl", json_object_new_int(3));
    refused("check", p, "invalid_argument");
    stop();
}
END_TEST

START_TEST(bad_params)
{
    struct json_object *p;

    start();
    check("x", CALLS_A, false, "CREATED", true, false);
    refused("accept", store_params(), "invalid_argument"); /* neither names nor all */
    p = store_params();
    json_object_object_add(p, "names", json_object_new_string("x"));
    refused("accept", p, "invalid_argument");
    p = names_params("x");
    json_object_object_add(p, "all", json_object_new_boolean(1));
    refused("reject", p, "invalid_argument");
    p = names_params("x");
    json_object_object_add(p, "run", json_object_new_string("r"));
    refused("accept", p, "invalid_argument"); /* run goes with all */
    p = store_params();
    json_object_object_add(p, "all", json_object_new_boolean(1));
    json_object_object_add(p, "run", json_object_new_string("nosuchrun"));
    refused("accept", p, "not_found");
    p = store_params();
    json_object_object_add(p, "run", json_object_new_string("nosuchrun"));
    refused("review", p, "not_found");
    p = store_params();
    json_object_object_add(p, "names", tjson("[\"x\", 7]"));
    refused("reject", p, "invalid_argument");
    refused("accept", names_params("nosuch"), "not_found");
    refused("reject", names_params("nosuch"), "not_found");
    refused("diff", store_params(), "invalid_argument"); /* no name */
    p = store_params();
    json_object_object_add(p, "name", json_object_new_string_len("a\0b", 3));
    refused("diff", p, "invalid_argument");
    p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string("relative"));
    json_object_object_add(p, "name", json_object_new_string("x"));
    refused("diff", p, "invalid_argument");
    /* nothing was changed by any of them */
    check("x", CALLS_A, false, "PENDING", false, false);
    stop();
}
END_TEST

START_TEST(state_dir_refused_at_start)
{
    char out[4096];
    char dir[700];
    const char *relative[] = {tdaemon_binary(), "--socket", tdaemon_fx.socket,
                              "--state-dir",    "rel/dir",  NULL};
    const char *open_to_all[] = {
        tdaemon_binary(), "--foreground", "--socket", tdaemon_fx.socket, "--state-dir", dir, NULL};

    ck_assert_int_eq(tdaemon_run(relative, out, sizeof(out), 10000), 2);
    ck_assert_ptr_nonnull(strstr(out, "--state-dir: must be an absolute path"));
    snprintf(dir, sizeof(dir), "%s/open", tdaemon_fx.dir);
    ck_assert_int_eq(mkdir(dir, 0777), 0);
    ck_assert_int_eq(chmod(dir, 0777), 0);
    ck_assert_int_eq(tdaemon_run(open_to_all, out, sizeof(out), 10000), 1);
    ck_assert_msg(strstr(out, dir) != NULL, "the refusal names the directory: %s", out);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("daemon_review");
    TCase *tc = tdaemon_fixture_case("review", false, NULL, 120);

    tcase_add_test(tc, reply_says_written_and_kept);
    tcase_add_test(tc, record_rm_and_approve);
    tcase_add_test(tc, kept_across_kill_9);
    tcase_add_test(tc, bounded_per_store);
    tcase_add_test(tc, too_large_is_not_kept);
    tcase_add_test(tc, diff_is_the_checks_report);
    tcase_add_test(tc, bad_params);
    tcase_add_test(tc, the_source_of_a_check);
    tcase_add_test(tc, the_tsctl_of_a_check);
    tcase_add_test(tc, state_dir_refused_at_start);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
