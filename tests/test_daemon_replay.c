/*
 * test_daemon_replay — replays whose observed calls are byte for byte what a
 * client sends for the baseline's own calls. The daemon answers those
 * without decoding, extracting or scoring the calls (daemon/check.c, step 3
 * of the replay plan); everything else takes the usual path. Each test sends the
 * baseline's calls as the file holds them (the bytes the shortcut knows) and
 * the same calls with their keys in another order (equal JSON, other
 * bytes: the usual path), and requires the same answer from both. The
 * daemon's debug log tells which path a check took.
 */
#include <check.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/snapshot/ts_snapshot.h"
#include "lib/runreport/ts_runreport.h"
#include "util_daemon.h"
#include "util_test.h"

#define SHORTCUT_LINE "the observed calls are the baseline's own bytes"

#define CALLS_M                                                                                    \
    "[{\"tool\": \"search\", \"args\": {\"q\": \"NYC\", \"limit\": 3, \"tags\": [\"a\", "          \
    "\"b\"]}}, "                                                                                   \
    "{\"tool\": \"book\", \"args\": {\"id\": 42, \"when\": {\"day\": 1.5, \"late\": false}}}, "    \
    "{\"tool\": \"search\", \"args\": {\"q\": \"  LAX \", \"limit\": 3}}]"
#define CACHE_READ_LINE "read from its file" /* a snapshot read into the cache */
#define CALLS_N "[{\"tool\": \"pay\", \"args\": {\"amount\": 10, \"currency\": \"EUR\"}}]"

static const char *snapshot_path(const char *name)
{
    return tdaemon_snapshot_path(tdaemon_fx.store, name);
}

/* The calls of name's snapshot file, keys in the file's order. */
static struct json_object *file_calls(const char *name)
{
    char *text = tdaemon_slurp(snapshot_path(name));
    ts_snapshot *s = NULL;
    struct json_object *calls;
    ts_error err;

    ck_assert_msg(text != NULL, "no file for %s", name);
    ck_assert_msg(ts_snapshot_parse(text, strlen(text), name, &s, &err) == 0, "%s", err.message);
    calls = json_object_get(s->calls);
    ts_snapshot_free(s);
    free(text);
    return calls;
}

/* A copy of v with the keys of every object in reverse order. */
static struct json_object *reversed(struct json_object *v)
{
    struct json_object *out;

    if (json_object_is_type(v, json_type_array)) {
        out = json_object_new_array();
        for (size_t i = 0; i < json_object_array_length(v); i++)
            json_object_array_add(out, reversed(json_object_array_get_idx(v, i)));
        return out;
    }
    if (!json_object_is_type(v, json_type_object))
        return json_object_get(v);
    const char *keys[64];
    size_t n = 0;
    json_object_object_foreach(v, k, val)
    {
        (void)val;
        ck_assert(n < 64);
        keys[n++] = k;
    }
    out = json_object_new_object();
    while (n-- > 0) {
        struct json_object *member = NULL;
        json_object_object_get_ex(v, keys[n], &member);
        json_object_object_add(out, keys[n], reversed(member));
    }
    return out;
}

/* The whole reply to a check of name with actual and extra params (JSON
 * text or NULL), as text; without its drift report when report_shown is
 * false (a report shows the observed arguments in their own order), only
 * whether there was one. */
static char *check_reply_as(const char *name, struct json_object *actual, const char *extra,
                            bool report_shown)
{
    struct json_object *p = extra != NULL ? tjson(extra) : json_object_new_object();
    struct json_object *reply;
    char *text;

    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    json_object_object_add(p, "name", json_object_new_string(name));
    json_object_object_add(p, "actual", json_object_get(actual));
    reply = tdaemon_call(tdaemon_fx_conn, "check", p);
    /* the id differs from call to call: compare the rest */
    json_object_object_del(reply, "id");
    if (!report_shown) {
        struct json_object *result = NULL, *report = NULL;
        if (json_object_object_get_ex(reply, "result", &result) &&
            json_object_object_get_ex(result, "report", &report) && report != NULL)
            json_object_object_add(result, "report", json_object_new_string("(a report)"));
    }
    text = strdup(json_object_to_json_string(reply));
    json_object_put(reply);
    json_object_put(p);
    return text;
}

static char *check_reply(const char *name, struct json_object *actual, const char *extra)
{
    return check_reply_as(name, actual, extra, true);
}

/* Check name both ways; the answers must be equal (but for the text of a
 * drift report), and only the first may take the shortcut (taken: whether
 * it must). Returns the answer. */
static char *both_ways(const char *name, struct json_object *same, const char *extra, bool taken)
{
    struct json_object *other = reversed(same);
    int before = tdaemon_fx_log_count(SHORTCUT_LINE);
    char *a = check_reply_as(name, same, extra, false);
    int middle = tdaemon_fx_log_count(SHORTCUT_LINE);
    char *b = check_reply_as(name, other, extra, false);

    ck_assert_msg(middle == before + (taken ? 1 : 0), "%s %s: shortcut %s", name,
                  extra ? extra : "{}", taken ? "not taken" : "taken");
    ck_assert_msg(tdaemon_fx_log_count(SHORTCUT_LINE) == middle,
                  "reordered keys took the shortcut");
    ck_assert_msg(strcmp(a, b) == 0, "%s %s:\n  same bytes: %s\n  reordered:  %s", name,
                  extra ? extra : "{}", a, b);
    free(b);
    json_object_put(other);
    return a;
}

static void expect_in(const char *reply, const char *want)
{
    ck_assert_msg(strstr(reply, want) != NULL, "no %s in %s", want, reply);
}

static void update(const char *name, const char *calls)
{
    struct json_object *actual = tjson(calls);
    char *r = check_reply(name, actual, "{\"update\": true}");

    expect_in(r, "\"UPDATED\"");
    free(r);
    json_object_put(actual);
}

/* Every scoring option, switched back and forth between two snapshots:
 * the kept self score follows the options and the snapshot. */
START_TEST(same_answer_for_every_option)
{
    static const char *const options[] = {
        NULL,
        "{\"strict\": true}",
        "{\"min_score\": 0.5}",
        "{\"weights\": {\"selection_accuracy\": 3, \"argument_f1\": 1, "
        "\"sequence_accuracy\": 0, \"redundant_rate\": 1}}",
        "{\"strict\": true, \"weights\": {\"argument_f1\": 5}}",
        "{\"color\": true, \"min_score\": 0.0}",
        NULL,
    };
    struct json_object *m, *n;

    update("trip", CALLS_M);
    update("pay", CALLS_N);
    /* past the snapshot cache's 3 s margin: the files are then kept, with
     * their self scores, from one check to the next */
    sleep(4);
    m = file_calls("trip");
    n = file_calls("pay");
    for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
        char *r = both_ways("trip", m, options[i], true);
        expect_in(r, "\"PASSED\"");
        free(r);
        r = both_ways("pay", n, options[i], true);
        expect_in(r, "\"PASSED\"");
        free(r);
    }
    /* another snapshot's calls: not the shortcut, FAILED with a report */
    char *r = both_ways("pay", m, NULL, false);
    expect_in(r, "\"FAILED\"");
    free(r);
    json_object_put(m);
    json_object_put(n);
}
END_TEST

static void write_file(const char *name, const char *tool, bool approved)
{
    tdaemon_write_snapshot(tdaemon_fx.store, name, tool, approved);
}

/* The snapshot changed behind the daemon's back: old bytes no longer match,
 * the new file's do; pending and CI rules apply as usual. */
START_TEST(follows_the_file)
{
    struct json_object *old_calls, *new_calls;
    char *r;

    update("moving", CALLS_M);
    old_calls = file_calls("moving");
    r = both_ways("moving", old_calls, NULL, true);
    expect_in(r, "\"PASSED\"");
    free(r);

    write_file("moving", "other", true);
    new_calls = file_calls("moving");
    r = both_ways("moving", old_calls, NULL, false);
    expect_in(r, "\"FAILED\"");
    free(r);
    r = both_ways("moving", new_calls, NULL, true);
    expect_in(r, "\"PASSED\"");
    free(r);

    write_file("moving", "other", false);
    r = both_ways("moving", new_calls, NULL, true);
    expect_in(r, "\"PENDING\"");
    free(r);
    r = both_ways("moving", new_calls, "{\"ci\": true}", true);
    expect_in(r, "\"ERROR_PENDING_IN_CI\"");
    free(r);

    unlink(snapshot_path("moving"));
    r = check_reply("moving", new_calls, "{\"ci\": true}");
    expect_in(r, "\"ERROR_MISSING_IN_CI\"");
    free(r);
    json_object_put(old_calls);
    json_object_put(new_calls);
}
END_TEST

/* Only the "auto" format may take the shortcut; an explicit format gets the
 * usual extraction (and its answer). */
START_TEST(explicit_format_goes_the_usual_way)
{
    static const char *const formats[] = {"{\"format\": \"auto\"}", "{\"format\": \"openai\"}",
                                          "{\"format\": \"anthropic\"}"};
    struct json_object *m;

    update("fmt", CALLS_M);
    m = file_calls("fmt");
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
        char *r = both_ways("fmt", m, formats[i], i == 0);
        free(r);
    }
    json_object_put(m);
}
END_TEST

/* A run opened on the fixture's store; its id into run. */
static void open_run(char *run, size_t runsz)
{
    struct json_object *p = json_object_new_object(), *r;

    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    r = tdaemon_ok(tdaemon_fx_conn, "run.open", p);
    snprintf(run, runsz, "%s", tstr(r, "run"));
    json_object_put(r);
    json_object_put(p);
}

/* A check that took the shortcut counts in its run like any other. */
START_TEST(counts_in_runs)
{
    struct json_object *p, *r, *m;
    char run[64], extra[128];
    int before;

    update("inrun", CALLS_M);
    m = file_calls("inrun");
    open_run(run, sizeof(run));

    snprintf(extra, sizeof(extra), "{\"run\": \"%s\", \"test\": \"t::one\"}", run);
    before = tdaemon_fx_log_count(SHORTCUT_LINE);
    char *reply = check_reply("inrun", m, extra);
    expect_in(reply, "\"PASSED\"");
    free(reply);
    ck_assert_int_eq(tdaemon_fx_log_count(SHORTCUT_LINE), before + 1);

    p = json_object_new_object();
    json_object_object_add(p, "run", json_object_new_string(run));
    r = tdaemon_ok(tdaemon_fx_conn, "run.summary", p);
    ck_assert_str_eq(tstr(r, "summary"), "toolscore: 1 passed");
    json_object_put(r);
    /* The check is in the run's report, with its observation. */
    json_object_object_add(p, "format", json_object_new_string("json"));
    r = tdaemon_ok(tdaemon_fx_conn, "run.report", p);
    struct json_object *report = tjson(tstr(r, "text"));
    struct json_object *checks = NULL;
    json_object_object_get_ex(report, "checks", &checks);
    ck_assert_int_eq(json_object_array_length(checks), 1);
    ck_assert_str_eq(tstr(json_object_array_get_idx(checks, 0), "test"), "t::one");
    /* the id of the calls observed: the snapshot's own (their text is the
     * cache's on this path) */
    char want_id[TS_RUNREPORT_CALLS_ID_LEN + 1];
    ck_assert_int_eq(ts_runreport_calls_id(m, want_id, NULL), 0);
    ck_assert_str_eq(tstr(json_object_array_get_idx(checks, 0), "calls_id"), want_id);
    json_object_put(report);
    json_object_put(r);
    json_object_put(p);
    json_object_put(m);
}
END_TEST

/*
 * A suite of 2,000 approved snapshots replayed twice: the second pass
 * reads no file, every snapshot is still cached (a suite cycling through
 * more snapshots than the cache holds would read every one again).
 */
START_TEST(cache_holds_a_large_suite)
{
    enum { N = 2000 };
    const char *actual = "[{\"tool\": \"t\", \"args\": {}}]";
    char name[32];
    int before;

    mkdir(tdaemon_fx.store, 0755);
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof(name), "suite_%04d", i);
        tdaemon_write_snapshot(tdaemon_fx.store, name, "t", true);
    }
    usleep(3200 * 1000); /* past the racy-timestamp margin, as a committed baseline */
    for (int pass = 0; pass < 2; pass++) {
        before = tdaemon_fx_log_count(CACHE_READ_LINE);
        for (int i = 0; i < N; i++) {
            snprintf(name, sizeof(name), "suite_%04d", i);
            ck_assert_str_eq(tdaemon_fx_outcome(name, actual, NULL), "PASSED");
        }
        if (pass == 0)
            ck_assert_int_eq(tdaemon_fx_log_count(CACHE_READ_LINE) - before, N);
        else
            ck_assert_int_eq(tdaemon_fx_log_count(CACHE_READ_LINE) - before, 0);
    }
}
END_TEST

/* Calls whose parsed tree is large for their file (nested objects), so a
 * few dozen snapshots fill the cache of a 32 MiB daemon; tagged by i.
 * args_first: each call's keys in the other order (equal JSON, other
 * bytes: a replay of them takes the usual way and leaves its entry whole). */
static void nested_calls_as(char *out, size_t outsz, int i, bool args_first)
{
    size_t n = (size_t)snprintf(out, outsz, "[");

    for (int c = 0; c < 32; c++) {
        n += (size_t)snprintf(out + n, outsz - n, "%s{", c ? ", " : "");
        if (!args_first)
            n += (size_t)snprintf(out + n, outsz - n, "\"tool\": \"t%d\", ", i);
        n += (size_t)snprintf(out + n, outsz - n, "\"args\": {");
        for (int k = 0; k < 8; k++)
            n +=
                (size_t)snprintf(out + n, outsz - n, "%s\"a%d\": {\"v\": %d}", k ? ", " : "", k, c);
        n += (size_t)snprintf(out + n, outsz - n, "}");
        if (args_first)
            n += (size_t)snprintf(out + n, outsz - n, ", \"tool\": \"t%d\"", i);
        n += (size_t)snprintf(out + n, outsz - n, "}");
    }
    snprintf(out + n, outsz - n, "]");
}

static void nested_calls(char *out, size_t outsz, int i)
{
    nested_calls_as(out, outsz, i, false);
}

/* The check of name with calls, sent on fd (its answer read later). */
static void send_check(int fd, const char *name, const char *calls, const char *extra)
{
    struct json_object *p = tdaemon_fx_check_params(NULL, name, calls, extra);

    tdaemon_send(fd, 7, "check", p);
    json_object_put(p);
}

/*
 * A FAILED replay answered from the cache keeps its observation by a job
 * of its file (here made slow: creating the file takes 3 s). While that job
 * is pending, other checks fill the cache and evict the snapshot; the run
 * then still records the failure against the baseline it was compared with
 * (the check holds its own reference to it).
 */
START_TEST(failed_replay_outlives_its_cache_entry)
{
    enum { N = 200 };
    char preload[1400], calls[16384], name[32], extra[128], run[64];
    char control[600], control_env[700];
    struct json_object *p, *r, *victim;
    struct pollfd pfd;
    int other, before;

    tdaemon_preload("shim_open.so", preload, sizeof(preload));
    snprintf(control, sizeof(control), "%s/slow", tdaemon_fx.dir);
    snprintf(control_env, sizeof(control_env), "TS_SHIM_OPEN_SLOW_CONTROL=%s", control);
    const char *prefix[] = {
        "env", preload, control_env, "TS_SHIM_OPEN_SLOW_NAME=victim", "TS_SHIM_OPEN_SLOW_MS=3000",
        NULL};
    const char *args[] = {"--memory-budget", "32M", NULL};
    /* the fixture's daemon again, with the shim and a small budget */
    close(tdaemon_fx_conn);
    tdaemon_stop_ok(&tdaemon_fx);
    tdaemon_start_wrapped(&tdaemon_fx, prefix, args, 10000);
    tdaemon_fx_conn = tdaemon_connect(tdaemon_fx.socket);
    other = tdaemon_connect(tdaemon_fx.socket);

    for (int i = 0; i <= N; i++) {
        snprintf(name, sizeof(name), i == N ? "victim" : "filler_%03d", i);
        nested_calls(calls, sizeof(calls), i);
        update(name, calls);
    }
    struct stat sb;
    ck_assert_int_eq(stat(snapshot_path("victim"), &sb), 0);
    ck_assert_msg(sb.st_size < 16384, "a %lld-byte file is not replayed on the loop",
                  (long long)sb.st_size);
    victim = file_calls("victim");
    sleep(4); /* past the snapshot cache's 3 s margin */

    open_run(run, sizeof(run));
    snprintf(extra, sizeof(extra), "{\"run\": \"%s\"}", run);

    /* cached (slim after passing), then failed on the loop (the file read
     * again for its tree): its observation's job waits 3 s */
    nested_calls(calls, sizeof(calls), N);
    ck_assert_str_eq(tdaemon_fx_outcome("victim", calls, NULL), "PASSED");
    before = tdaemon_fx_log_count("victim read from its file");
    nested_calls(calls, sizeof(calls), 0);
    util_write_file(control, "", 0);
    send_check(tdaemon_fx_conn, "victim", calls, extra);
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof(name), "filler_%03d", i);
        nested_calls_as(calls, sizeof(calls), i, true);
        send_check(other, name, calls, NULL);
        r = NULL;
        ck_assert_int_eq(tdaemon_read(other, &r, 10000), 0);
        ck_assert_msg(strstr(json_object_to_json_string(r), "\"PASSED\"") != NULL, "%s: %s", name,
                      json_object_to_json_string(r));
        json_object_put(r);
    }
    pfd.fd = tdaemon_fx_conn;
    pfd.events = POLLIN;
    ck_assert_msg(poll(&pfd, 1, 0) == 0, "the failed check was answered before the others ran");
    r = NULL;
    ck_assert_int_eq(tdaemon_read(tdaemon_fx_conn, &r, 20000), 0);
    ck_assert_msg(strstr(json_object_to_json_string(r), "\"FAILED\"") != NULL, "%s",
                  json_object_to_json_string(r));
    json_object_put(r);
    unlink(control);

    /* the snapshot was evicted meanwhile: checking it reads its file again */
    nested_calls(calls, sizeof(calls), N);
    ck_assert_str_eq(tdaemon_fx_outcome("victim", calls, NULL), "PASSED");
    ck_assert_int_eq(tdaemon_fx_log_count("victim read from its file"), before + 2);

    /* the run's record of the failure names the baseline it was compared with */
    char want_id[TS_RUNREPORT_CALLS_ID_LEN + 1];
    ck_assert_int_eq(ts_runreport_calls_id(victim, want_id, NULL), 0);
    p = json_object_new_object();
    json_object_object_add(p, "run", json_object_new_string(run));
    json_object_object_add(p, "format", json_object_new_string("json"));
    r = tdaemon_ok(tdaemon_fx_conn, "run.report", p);
    struct json_object *report = tjson(tstr(r, "text")), *checks = NULL;
    json_object_object_get_ex(report, "checks", &checks);
    ck_assert_int_eq(json_object_array_length(checks), 1);
    ck_assert_str_eq(tstr(json_object_array_get_idx(checks, 0), "outcome"), "FAILED");
    ck_assert_str_eq(tstr(json_object_array_get_idx(checks, 0), "baseline_id"), want_id);
    json_object_put(report);
    json_object_put(r);
    json_object_put(p);
    json_object_put(victim);
    close(other);
}
END_TEST

/*
 * Slim entries: a replay that passed keeps only what answers the next one
 * (packed calls, self score, text), so a 32 MiB daemon, whose cache holds
 * about 20 of these snapshots parsed, holds 150 for a suite replaying
 * them again: the second pass reads no file. A replay that is not the
 * same (other options, other calls) reads the file again and answers as
 * before, the drift reported against the baseline.
 */
START_TEST(slim_entries_hold_a_suite)
{
    enum { N = 150 };
    const char *args[] = {"--memory-budget", "32M", NULL};
    char calls[16384], name[32];
    int before;

    close(tdaemon_fx_conn);
    tdaemon_stop_ok(&tdaemon_fx);
    tdaemon_start(&tdaemon_fx, args);
    tdaemon_fx_conn = tdaemon_connect(tdaemon_fx.socket);
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof(name), "slim_%03d", i);
        nested_calls(calls, sizeof(calls), i);
        update(name, calls);
    }
    sleep(4); /* past the snapshot cache's 3 s margin */
    for (int pass = 0; pass < 2; pass++) {
        int reads = tdaemon_fx_log_count(CACHE_READ_LINE);
        int slim = tdaemon_fx_log_count("own bytes (slim)");

        for (int i = 0; i < N; i++) {
            snprintf(name, sizeof(name), "slim_%03d", i);
            nested_calls(calls, sizeof(calls), i);
            ck_assert_str_eq(tdaemon_fx_outcome(name, calls, NULL), "PASSED");
        }
        ck_assert_int_eq(tdaemon_fx_log_count(CACHE_READ_LINE) - reads, pass == 0 ? N : 0);
        ck_assert_int_eq(tdaemon_fx_log_count("own bytes (slim)") - slim, pass == 0 ? 0 : N);
    }
    /* other options: the file is read again, the answer the same */
    before = tdaemon_fx_log_count(CACHE_READ_LINE);
    nested_calls(calls, sizeof(calls), 7);
    ck_assert_str_eq(tdaemon_fx_outcome("slim_007", calls, "{\"min_score\": 0.5}"), "PASSED");
    ck_assert_int_eq(tdaemon_fx_log_count(CACHE_READ_LINE), before + 1);
    /* slimmed again, then other calls: FAILED, the drift against the baseline */
    struct json_object *r = tdaemon_fx_check_ok("slim_008", calls, NULL);
    ck_assert_str_eq(tstr(r, "outcome"), "FAILED");
    ck_assert_msg(strstr(tstr(r, "report"), "t8") != NULL && strstr(tstr(r, "report"), "t7"),
                  "the drift names both lists' tools: %s", tstr(r, "report"));
    json_object_put(r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("daemon_replay");
    TCase *tc = tdaemon_fixture_case("replay", true, NULL, 120);

    tcase_add_test(tc, same_answer_for_every_option);
    tcase_add_test(tc, follows_the_file);
    tcase_add_test(tc, explicit_format_goes_the_usual_way);
    tcase_add_test(tc, counts_in_runs);
    tcase_add_test(tc, cache_holds_a_large_suite);
    tcase_add_test(tc, failed_replay_outlives_its_cache_entry);
    tcase_add_test(tc, slim_entries_hold_a_suite);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
