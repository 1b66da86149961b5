/*
 * test_client_check — the check method of libtoolscore-client: replies read in
 * place (ts_client_check_outcome) agree with the json-c tree of
 * ts_client_check for every canned reply of the fake server and for the real
 * daemon's answers, refuse what is not a check result and survive random
 * mutations; the request packed straight from the arguments is byte for byte
 * the params tree's.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client/toolscore_client.h"
#include "lib/base/ts_base.h"
#include "client/ts_client_internal.h"
#include "proto/ts_proto.h"
#include "lib/snapshot/ts_snapshot.h"
#include "lib/store/ts_store.h"
#include "util_client.h"
#include "util_daemon.h"
#include "util_test.h"

/* ---- checks read in place (ts_client_check_outcome) ------------------ */

/* A check of name through both calls, with the same arguments otherwise. */
typedef struct both_ways {
    int tree_rc, typed_rc;
    ts_error tree_err, typed_err;
    struct json_object *tree;
    ts_check_outcome typed;
} both_ways;

static void check_both_ways(ts_client *c, const ts_check_args *a, both_ways *b)
{
    memset(b, 0, sizeof(*b));
    b->tree_rc = ts_client_check(c, a, &b->tree, &b->tree_err);
    b->typed_rc = ts_client_check_outcome(c, a, &b->typed, &b->typed_err);
}

static void both_ways_free(both_ways *b)
{
    json_object_put(b->tree);
    ts_check_outcome_free(&b->typed);
}

/* The typed outcome says what the tree says: outcome, message, file,
 * score (-1 without a result), passed and report. */
static void same_as_tree(const ts_check_outcome *o, struct json_object *tree)
{
    struct json_object *result = json_object_object_get(tree, "result");
    struct json_object *report = json_object_object_get(tree, "report");

    ck_assert_str_eq(o->outcome, tstr(tree, "outcome"));
    ck_assert_str_eq(o->message, tstr(tree, "message"));
    ck_assert_str_eq(o->file, tstr(tree, "file"));
    if (result == NULL) {
        ck_assert(o->score == -1.0);
        ck_assert(!o->passed);
    } else {
        ck_assert(o->score == json_object_get_double(json_object_object_get(result, "score")));
        ck_assert(o->passed == json_object_get_boolean(json_object_object_get(result, "passed")));
    }
    if (report == NULL)
        ck_assert_ptr_null(o->report);
    else
        ck_assert_str_eq(o->report, json_object_get_string(report));
}

/* Both calls succeed and agree; the outcome is want. */
static void both_agree(ts_client *c, const ts_check_args *a, const char *want)
{
    both_ways b;

    check_both_ways(c, a, &b);
    ck_assert_msg(b.tree_rc == 0, "%s: %s", b.tree_err.code, b.tree_err.message);
    ck_assert_msg(b.typed_rc == 0, "%s: %s", b.typed_err.code, b.typed_err.message);
    ck_assert_str_eq(b.typed.outcome, want);
    same_as_tree(&b.typed, b.tree);
    both_ways_free(&b);
}

/* Both calls fail alike, with the daemon's code (an error reply). */
static void both_refused(ts_client *c, const ts_check_args *a, const char *code)
{
    both_ways b;

    check_both_ways(c, a, &b);
    ck_assert_int_eq(b.tree_rc, TS_CLIENT_EREMOTE);
    ck_assert_int_eq(b.typed_rc, TS_CLIENT_EREMOTE);
    ck_assert_str_eq(b.tree_err.code, code);
    ck_assert_str_eq(b.typed_err.code, code);
    ck_assert_str_eq(b.typed_err.message, b.tree_err.message);
    ck_assert_ptr_null(b.typed.message);
    ck_assert_ptr_null(b.typed.file);
    both_ways_free(&b);
}

/* Replies of the usual and of unusual forms read in place (or, for an id
 * written as a signed int, through the full decoder) give what the tree
 * gives; an error reply gives the same code and message. */
START_TEST(check_outcome_reads_replies)
{
    static const char *const kinds[] = {"reply:plain", "reply:unusual", "reply:signed-id",
                                        "reply:split"};
    fake f;
    ts_client *c;
    ts_check_args *a = ts_check_args_new();
    struct json_object *calls = json_tokener_parse("[]");
    char store[TS_PATHS_MAX];

    fake_start(&f);
    c = util_client_connect(f.sock);
    snprintf(store, sizeof(store), "%s", f.dir);
    ts_check_args_set_store(a, store);
    ts_check_args_set_actual(a, calls);
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        ts_check_args_set_name(a, kinds[i]);
        both_agree(c, a, strcmp(kinds[i], "reply:unusual") == 0 ? "PASSED" : "FAILED");
    }
    {
        ts_check_outcome o;
        ts_error err;

        ts_check_args_set_name(a, "reply:plain");
        ck_assert_int_eq(ts_client_check_outcome(c, a, &o, &err), 0);
        ck_assert(o.score == 0.25 && !o.passed);
        ck_assert_str_eq(o.report, "line 1\nline 2");
        ck_assert_str_eq(o.file, "/s/n-1.json");
        ts_check_outcome_free(&o);
        ck_assert_ptr_null(o.message);
        ts_check_outcome_free(&o); /* twice is fine */
        ts_check_args_set_name(a, "reply:unusual");
        ck_assert_int_eq(ts_client_check_outcome(c, a, &o, &err), 0);
        ck_assert(o.score == 1.0 && o.passed);
        ck_assert_ptr_null(o.report);
        ts_check_outcome_free(&o);
    }
    ts_check_args_set_name(a, "reply:plain");
    ck_assert_int_eq(ts_client_check_outcome(c, a, NULL, NULL), 0); /* outcome not wanted */
    ts_check_args_set_name(a, "reply:error");
    both_refused(c, a, "not_found");
    ck_assert_int_eq(ts_client_check_outcome(c, a, NULL, NULL), TS_CLIENT_EREMOTE);
    ck_assert_int_eq(f.nconn, 1); /* none of these broke the connection */
    ts_client_close(c);
    fake_stop(&f);
    json_object_put(calls);
    ts_check_args_free(a);
}
END_TEST

/* Garbage, truncated and malformed replies, and results that are not a
 * check's, are refused with bad_reply, leaving nothing in the outcome; the
 * connection is dropped and the next call works. Envelope faults are
 * refused by ts_client_check too; a result of the wrong shape only by the
 * typed call, which needs its members. */
START_TEST(check_outcome_refuses_bad_replies)
{
    static const struct {
        const char *kind;
        bool tree_refuses;
    } cases[] = {
        {"reply:garbage", true},       {"reply:truncated", true},     {"reply:trailing", true},
        {"reply:dup-envelope", true},  {"reply:bad-utf8", true},      {"reply:wrong-id", true},
        {"reply:dup-outcome", true},   {"reply:no-outcome", false},   {"reply:int-outcome", false},
        {"reply:long-outcome", false}, {"reply:score-string", false}, {"reply:no-score", false},
        {"reply:report-int", false},   {"reply:result-list", false},  {"reply:nil-result", false},
    };
    fake f;
    ts_client *c;
    ts_check_args *a = ts_check_args_new();
    ts_error err;
    struct json_object *calls = json_tokener_parse("[]");

    fake_start(&f);
    c = util_client_connect(f.sock);
    ts_check_args_set_store(a, f.dir);
    ts_check_args_set_actual(a, calls);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        both_ways b;

        ts_check_args_set_name(a, cases[i].kind);
        check_both_ways(c, a, &b);
        ck_assert_msg(b.typed_rc < 0 && strcmp(b.typed_err.code, "bad_reply") == 0,
                      "%s: typed call gave %d %s: %s", cases[i].kind, b.typed_rc, b.typed_err.code,
                      b.typed_err.message);
        ck_assert_msg(b.typed.message == NULL && b.typed.file == NULL && b.typed.report == NULL &&
                          b.typed.outcome[0] == '\0',
                      "%s: the refused outcome holds something", cases[i].kind);
        if (cases[i].tree_refuses)
            ck_assert_msg(b.tree_rc < 0 && strcmp(b.tree_err.code, "bad_reply") == 0,
                          "%s: ts_client_check gave %d %s", cases[i].kind, b.tree_rc,
                          b.tree_err.code);
        else
            ck_assert_msg(b.tree_rc == 0, "%s: ts_client_check gave %d %s", cases[i].kind,
                          b.tree_rc, b.tree_err.code);
        ck_assert(ts_client_error_is_connection(&b.typed_err));
        both_ways_free(&b);
        ck_assert_int_eq(ts_client_ping(c, &err), 0);
    }
    ts_client_close(c);
    fake_stop(&f);
    json_object_put(calls);
    ts_check_args_free(a);
}
END_TEST

/* True when tree (a check result ts_client_check returned) has the shape
 * ts_client_check_outcome reads: the oracle of the test below. */
static bool check_result_shape(struct json_object *tree)
{
    struct json_object *v = NULL;
    struct json_object *r = NULL;

    if (!json_object_is_type(tree, json_type_object))
        return false;
    if (!json_object_object_get_ex(tree, "outcome", &v) ||
        !json_object_is_type(v, json_type_string) || json_object_get_string_len(v) == 0 ||
        json_object_get_string_len(v) > 31)
        return false;
    if (!json_object_object_get_ex(tree, "file", &v) || !json_object_is_type(v, json_type_string))
        return false;
    if (!json_object_object_get_ex(tree, "message", &v) ||
        !json_object_is_type(v, json_type_string))
        return false;
    if (json_object_object_get_ex(tree, "report", &v) && v != NULL &&
        !json_object_is_type(v, json_type_string))
        return false;
    if (!json_object_object_get_ex(tree, "result", &r) || r == NULL)
        return true;
    return json_object_is_type(r, json_type_object) && json_object_object_get_ex(r, "score", &v) &&
           (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) &&
           json_object_object_get_ex(r, "passed", &v) && json_object_is_type(v, json_type_boolean);
}

/*
 * Replies changed at random, each answered to both calls: whenever the full
 * decoder takes the reply and its result has a check result's shape, the
 * typed call gives the same members; when the shape is wrong, bad_reply.
 * When the full decoder refuses the reply, the typed call refuses it too
 * (bad_reply) unless the fault lies only in what it skips. Nothing crashes
 * or leaks (the sanitizer run), and the connection always recovers.
 */
START_TEST(check_outcome_random_replies)
{
    fake f;
    ts_client *c;
    ts_check_args *a = ts_check_args_new();
    struct json_object *calls = json_tokener_parse("[]");
    char name[64];
    int agreed = 0, refused = 0, lenient = 0;

    fake_start(&f);
    c = util_client_connect(f.sock);
    ts_check_args_set_store(a, f.dir);
    ts_check_args_set_actual(a, calls);
    for (unsigned seed = 1; seed <= 1500; seed++) {
        both_ways b;

        snprintf(name, sizeof(name), "reply:mutant:%u", seed);
        ts_check_args_set_name(a, name);
        check_both_ways(c, a, &b);
        if (b.tree_rc == 0 && check_result_shape(b.tree)) {
            ck_assert_msg(b.typed_rc == 0, "seed %u: %s: %s", seed, b.typed_err.code,
                          b.typed_err.message);
            same_as_tree(&b.typed, b.tree);
            agreed++;
        } else if (b.tree_rc == 0 || strcmp(b.tree_err.code, "bad_reply") == 0) {
            ck_assert_msg(b.typed_rc == 0 || strcmp(b.typed_err.code, "bad_reply") == 0,
                          "seed %u: %d %s", seed, b.typed_rc, b.typed_err.code);
            if (b.tree_rc == 0)
                ck_assert_msg(b.typed_rc < 0, "seed %u: a result of the wrong shape was read",
                              seed);
            if (b.typed_rc == 0)
                lenient++;
            else
                refused++;
        } else {
            ck_abort_msg("seed %u: ts_client_check gave %s: %s", seed, b.tree_err.code,
                         b.tree_err.message);
        }
        both_ways_free(&b);
    }
    /* the mutations reach every branch */
    ck_assert_int_gt(agreed, 50);
    ck_assert_int_gt(refused, 500);
    ck_assert_int_eq(ts_client_ping(c, NULL), 0);
    ts_client_close(c);
    fake_stop(&f);
    json_object_put(calls);
    (void)lenient;
    ts_check_args_free(a);
}
END_TEST

/* ---- the check request's bytes ---------------------------------------- */

/*
 * The check request as the typed helpers used to build it: a json-c params
 * object filled in this order with the members not at their protocol
 * default, and actual added by ts_message_encode_request_with. The request
 * packed straight from the arguments must be the same bytes.
 */
static int tree_check_frame(ts_buf *out, uint64_t id, const ts_check_args *a, const char *store,
                            size_t max_frame, ts_error *err)
{
    struct json_object *p = json_object_new_object();
    struct json_object *weights = NULL;
    int rc;

    json_object_object_add(p, "store", json_object_new_string(store));
    json_object_object_add(p, "name", json_object_new_string(a->name));
    if (a->format != NULL && strcmp(a->format, "auto") != 0)
        json_object_object_add(p, "format", json_object_new_string(a->format));
    if (a->min_score != 1.0)
        json_object_object_add(p, "min_score", json_object_new_double(a->min_score));
    if (a->weights != NULL) {
        ck_assert_int_eq(json_object_deep_copy((struct json_object *)a->weights, &weights, NULL),
                         0);
        json_object_object_add(p, "weights", weights);
    }
    if (a->strict)
        json_object_object_add(p, "strict", json_object_new_boolean(1));
    if (a->ci)
        json_object_object_add(p, "ci", json_object_new_boolean(1));
    if (a->update)
        json_object_object_add(p, "update", json_object_new_boolean(1));
    if (a->allow_pending)
        json_object_object_add(p, "allow_pending", json_object_new_boolean(1));
    if (a->run != NULL)
        json_object_object_add(p, "run", json_object_new_string(a->run));
    if (a->test != NULL)
        json_object_object_add(p, "test", json_object_new_string(a->test));
    if (a->source != NULL)
        json_object_object_add(p, "source", json_object_new_string(a->source));
    if (a->tsctl != NULL)
        json_object_object_add(p, "tsctl", json_object_new_string(a->tsctl));
    if (a->color)
        json_object_object_add(p, "color", json_object_new_boolean(1));
    if (a->width != 0)
        json_object_object_add(p, "width", json_object_new_int64(a->width));
    if (a->no_json_diff)
        json_object_object_add(p, "json_diff", json_object_new_boolean(0));
    if (a->rules != NULL) {
        struct json_object *rules = NULL;
        ck_assert_int_eq(json_object_deep_copy((struct json_object *)a->rules, &rules, NULL), 0);
        json_object_object_add(p, "rules", rules);
    }
    rc = ts_message_encode_request_with(out, id, "check", p, "actual", a->actual, max_frame, err);
    json_object_put(p);
    return rc;
}

/* Both ways give the same bytes, or the same error. */
static void same_check_bytes(const ts_check_args *a, const char *store, uint64_t id,
                             size_t max_frame, const char *what)
{
    ts_buf tree, direct;
    ts_error tree_err, direct_err;
    int tree_rc, direct_rc;

    ts_buf_init(&tree, TS_BUF_UNLIMITED);
    ts_buf_init(&direct, TS_BUF_UNLIMITED);
    tree_rc = tree_check_frame(&tree, id, a, store, max_frame, &tree_err);
    direct_rc = ts_client__encode_check(&direct, id, a, store, max_frame, &direct_err);
    ck_assert_msg(tree_rc == direct_rc, "%s: %d vs %d", what, tree_rc, direct_rc);
    if (tree_rc < 0) {
        ck_assert_str_eq(direct_err.code, tree_err.code);
        ck_assert_str_eq(direct_err.message, tree_err.message);
        ck_assert_uint_eq(direct.len, 0);
    } else {
        ck_assert_msg(tree.len == direct.len && memcmp(tree.data, direct.data, tree.len) == 0,
                      "%s: %zu bytes packed directly differ from the %zu of the tree", what,
                      direct.len, tree.len);
    }
    ts_buf_free(&tree);
    ts_buf_free(&direct);
}

START_TEST(check_request_bytes_unchanged)
{
    static const uint64_t ids[] = {0,
                                   1,
                                   127,
                                   128,
                                   255,
                                   256,
                                   65535,
                                   65536,
                                   4294967295u,
                                   4294967296u,
                                   1u << 31,
                                   12345678901234ull,
                                   18446744073709551615ull};
    struct json_object *calls = json_tokener_parse(
        "[{\"tool\": \"search\", \"args\": {\"q\": \"caf\\u00e9 \\ud834\\udd1e\", \"n\": -3, "
        "\"big\": 18446744073709551615, \"neg\": -9223372036854775808, \"f\": 0.1, "
        "\"whole\": 2.0, \"none\": null, \"yes\": true, \"list\": [[], {}, [1, [2, [3]]]]}}]");
    struct json_object *weights = json_tokener_parse(
        "{\"tool\": 2, \"args\": 0.5, \"nested\": {\"x\": [1, 2.0, null, true]}}");
    struct json_object *rules = json_tokener_parse(
        "{\"ignore\": [\"*.args.request_id\"], \"order\": \"unordered\", \"match\": "
        "{\"s.args.q\": {\"regex\": \"^a\"}}, \"tools\": {\"log\": {\"ignore\": true}}}");
    struct json_object *nan_weights = json_object_new_object();
    struct json_object *deep = json_object_new_array();
    struct json_object *big = json_object_new_array();
    char long_name[70000];
    char *text = malloc(300);
    ts_check_args *a = ts_check_args_new();

    /* the defaults, and every id width */
    ts_check_args_set_name(a, "flow");
    ts_check_args_set_actual(a, calls);
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
        same_check_bytes(a, "/s", ids[i], 0, "defaults");
    /* every argument given */
    ts_check_args_set_weights(a, weights);
    ts_check_args_set_run(a, "r-0123456789abcdef");
    ts_check_args_set_test(a, "tests/test_x.py::test_y[param-1]");
    ts_check_args_set_format(a, "openai");
    ts_check_args_set_min_score(a, 0.75);
    ts_check_args_set_strict(a, true);
    ts_check_args_set_ci(a, true);
    ts_check_args_set_update(a, true);
    ts_check_args_set_allow_pending(a, true);
    ts_check_args_set_color(a, true);
    ts_check_args_set_width(a, 132);
    ts_check_args_set_json_diff(a, false);
    ts_check_args_set_source(a, "vitest");
    ts_check_args_set_tsctl(a, "'/home/user/my project/.venv/bin/tsctl'");
    same_check_bytes(a, "/home/user/my project/.toolscore/snapshots", 7, 0, "everything");
    ts_check_args_set_source(a, NULL);
    ts_check_args_set_tsctl(a, NULL);
    ts_check_args_set_width(a, 65535); /* the widest: a uint16 in msgpack */
    same_check_bytes(a, "/s", 7, 0, "widest report");
    ts_check_args_set_rules(a, rules);
    same_check_bytes(a, "/s", 7, 0, "comparison rules");
    ts_check_args_set_rules(a, NULL);
    same_check_bytes(a, "/s", 7, 0, "rules cleared");
    ts_check_args_set_min_score(a, 0.0);
    ts_check_args_set_run(a, NULL);
    same_check_bytes(a, "/s", 8, 0, "no run, min_score 0");
    ts_check_args_set_min_score(a, 1e-300);
    ts_check_args_set_test(a, NULL);
    ts_check_args_set_weights(a, NULL);
    same_check_bytes(a, "/s", 9, 0, "tiny min_score");
    /* strings of each length class: fixstr, str 8, str 16, str 32 */
    memset(text, 'n', 299);
    text[299] = '\0';
    ts_check_args_set_name(a, text);
    same_check_bytes(a, "/s", 10, 0, "str 16 name");
    text[40] = '\0';
    ts_check_args_set_name(a, text);
    same_check_bytes(a, "/s", 11, 0, "str 8 name");
    memset(long_name, 'x', sizeof(long_name) - 1);
    long_name[sizeof(long_name) - 1] = '\0';
    ts_check_args_set_name(a, long_name);
    same_check_bytes(a, "/s", 12, 0, "str 32 name");
    ts_check_args_set_name(a, "caf\xc3\xa9 \xe2\x98\x95");
    same_check_bytes(a, "/s", 13, 0, "UTF-8 name");

    /* the same errors */
    ts_check_args_set_name(a, "\xff");
    same_check_bytes(a, "/s", 14, 0, "invalid UTF-8 name");
    ts_check_args_set_name(a, "flow");
    same_check_bytes(a, "/s/\xc3", 15, 0, "invalid UTF-8 store");
    ts_check_args_set_min_score(a, NAN);
    same_check_bytes(a, "/s", 16, 0, "NaN min_score");
    ts_check_args_set_min_score(a, 1.0);
    json_object_object_add(nan_weights, "tool", json_object_new_double(INFINITY));
    ts_check_args_set_weights(a, nan_weights);
    same_check_bytes(a, "/s", 17, 0, "infinite weight");
    ts_check_args_set_weights(a, NULL);
    {
        struct json_object *inner = deep;

        for (int i = 0; i < 140; i++) {
            struct json_object *next = json_object_new_array();
            json_object_array_add(inner, next);
            inner = next;
        }
    }
    ts_check_args_set_actual(a, deep);
    same_check_bytes(a, "/s", 18, 0, "too deep");
    for (int i = 0; i < 200; i++)
        json_object_array_add(big, json_object_new_string("0123456789012345678901234567890"));
    ts_check_args_set_actual(a, big);
    same_check_bytes(a, "/s", 19, 2048, "over max_frame");
    same_check_bytes(a, "/s", 20, 0, "within the default max_frame");
    json_object_put(calls);
    json_object_put(weights);
    json_object_put(rules);
    json_object_put(nan_weights);
    json_object_put(deep);
    json_object_put(big);
    free(text);
    ts_check_args_free(a);
}
END_TEST

/* The typed check and ts_client_check agree against the daemon, for every
 * outcome and for error replies, on the same state. */
START_TEST(real_daemon_check_outcome_matches_tree)
{
    tdaemon d;
    ts_client *c;
    ts_error err;
    ts_check_args *a = ts_check_args_new();
    ts_check_outcome created;
    struct json_object *res = NULL;
    struct json_object *calls = json_tokener_parse("[{\"tool\": \"search\", \"args\": {\"q\": 1}}, "
                                                   "{\"tool\": \"open\", \"args\": {\"id\": 7}}]");
    struct json_object *other = json_tokener_parse("[{\"tool\": \"delete\", \"args\": {}}]");
    struct json_object *bad = json_tokener_parse("{\"not\": \"calls\"}");

    tdaemon_prepare(&d);
    tdaemon_start(&d, util_idle_args);
    c = util_client_connect(d.socket);
    ts_check_args_set_store(a, d.store);
    ts_check_args_set_name(a, "flow");
    ts_check_args_set_actual(a, calls);
    /* CREATED changes the state: typed first, then the snapshot is removed
     * and the tree call creates it again */
    ck_assert_int_eq(ts_client_check_outcome(c, a, &created, &err), 0);
    ck_assert_str_eq(created.outcome, "CREATED");
    ck_assert_int_eq(ts_client_rm(c, d.store, "flow", NULL, &err), 0);
    ck_assert_int_eq(ts_client_check(c, a, &res, &err), 0);
    same_as_tree(&created, res);
    json_object_put(res);
    ts_check_outcome_free(&created);

    both_agree(c, a, "PENDING");
    ck_assert_int_eq(ts_client_approve(c, d.store, (const char *[]){"flow"}, 1, false, NULL, &err),
                     0);
    both_agree(c, a, "PASSED");
    ts_check_args_set_actual(a, other);
    both_agree(c, a, "FAILED");
    ts_check_args_set_min_score(a, 0.0);
    both_agree(c, a, "PASSED");
    ts_check_args_set_min_score(a, 1.0);
    ts_check_args_set_color(a, true);
    both_agree(c, a, "FAILED");
    ts_check_args_set_color(a, false);
    ts_check_args_set_name(a, "never-recorded");
    ts_check_args_set_ci(a, true);
    both_agree(c, a, "ERROR_MISSING_IN_CI");
    ts_check_args_set_ci(a, false);
    ts_check_args_set_run(a, "no-such-run");
    both_refused(c, a, "not_found");
    ts_check_args_set_run(a, NULL);
    ts_check_args_set_actual(a, bad);
    both_refused(c, a, "format");
    ts_check_args_set_name(a, "\xff");
    ts_check_args_set_actual(a, calls);
    {
        both_ways b;

        check_both_ways(c, a, &b); /* refused before sending: invalid UTF-8 */
        ck_assert_int_lt(b.typed_rc, 0);
        ck_assert_int_eq(b.typed_rc, b.tree_rc);
        ck_assert_str_eq(b.typed_err.code, b.tree_err.code);
        both_ways_free(&b);
    }
    ts_client_close(c);
    tdaemon_stop_ok(&d);
    tdaemon_cleanup(&d);
    json_object_put(calls);
    json_object_put(other);
    json_object_put(bad);
    ts_check_args_free(a);
}
END_TEST

/* ts_client_check_bytes hands over the result that ts_client_check gives
 * as a tree, the calls sent packed or as a tree. */
static int keep_result(const unsigned char *data, size_t len, void *arg, ts_error *err)
{
    ts_buf *b = arg;

    (void)err;
    ts_buf_reset(b);
    return ts_buf_append(b, data, len);
}

static int refuse_result(const unsigned char *data, size_t len, void *arg, ts_error *err)
{
    (void)data;
    (void)len;
    (void)arg;
    return ts_error_set(err, -EPROTO, "bad_reply", "not what the reader wanted");
}

static void bytes_agree(ts_client *c, ts_check_args *a, const struct json_object *calls,
                        const char *outcome)
{
    ts_buf packed, got;
    ts_error err;
    struct json_object *tree = NULL;
    struct json_object *decoded = NULL;

    ts_buf_init(&packed, TS_BUF_UNLIMITED);
    ts_buf_init(&got, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_wire_encode(calls, &packed, &err), 0);
    ts_check_args_set_actual_packed(a, packed.data, packed.len);
    ck_assert_int_eq(ts_client_check_bytes(c, a, keep_result, &got, &err), 0);
    ck_assert_int_eq(ts_wire_decode(got.data, got.len, TS_WIRE_REPLY_MAX_DEPTH, &decoded, &err), 0);
    ts_check_args_set_actual(a, calls);
    ck_assert_int_eq(ts_client_check(c, a, &tree, &err), 0);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(decoded, "outcome")), outcome);
    ck_assert_msg(json_object_equal(decoded, tree), "%s: the bytes read %s, the tree %s", outcome,
                  json_object_to_json_string(decoded), json_object_to_json_string(tree));
    json_object_put(decoded);
    json_object_put(tree);
    ts_buf_free(&packed);
    ts_buf_free(&got);
}

START_TEST(real_daemon_check_bytes_match_tree)
{
    tdaemon d;
    ts_client *c;
    ts_error err;
    ts_buf got;
    ts_check_args *a = ts_check_args_new();
    struct json_object *calls = json_tokener_parse("[{\"tool\": \"search\", \"args\": {\"q\": 1, "
                                                   "\"f\": 0.5, \"big\": 18446744073709551615}}]");
    struct json_object *other = json_tokener_parse("[{\"tool\": \"delete\", \"args\": {}}]");
    static const struct {
        const char *bytes;
        size_t len;
        const char *why;
    } refused[] = {
        {"\x91\xc0\xc0", 3, "byte(s) after its value"},
        {"\x92\xc0", 2, "not one msgpack value"},
        {"\xc1", 1, "not one msgpack value"},
    };
    char deep[200];

    tdaemon_prepare(&d);
    tdaemon_start(&d, util_idle_args);
    c = util_client_connect(d.socket);
    ts_buf_init(&got, TS_BUF_UNLIMITED);
    ts_check_args_set_store(a, d.store);
    ts_check_args_set_name(a, "flow");
    ts_check_args_set_actual(a, calls);
    ck_assert_int_eq(ts_client_check(c, a, NULL, &err), 0); /* CREATED */
    bytes_agree(c, a, calls, "PENDING");
    ck_assert_int_eq(ts_client_approve(c, d.store, (const char *[]){"flow"}, 1, false, NULL, &err),
                     0);
    bytes_agree(c, a, calls, "PASSED");
    bytes_agree(c, a, other, "FAILED");
    /* what is not one value is refused before anything is sent */
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        ts_check_args_set_actual_packed(a, refused[i].bytes, refused[i].len);
        ck_assert_int_eq(ts_client_check_bytes(c, a, keep_result, &got, &err), -EINVAL);
        ck_assert_str_eq(err.code, "invalid_argument");
        ck_assert_msg(strstr(err.message, refused[i].why) != NULL, "%s", err.message);
    }
    memset(deep, 0x91, sizeof(deep) - 1);
    deep[sizeof(deep) - 1] = (char)0xc0;
    ts_check_args_set_actual_packed(a, deep, sizeof(deep));
    ck_assert_int_eq(ts_client_check_bytes(c, a, keep_result, &got, &err), -EINVAL);
    /* the reader's failure is the call's; the connection still serves */
    ts_check_args_set_actual(a, calls);
    ck_assert_int_eq(ts_client_check_bytes(c, a, refuse_result, NULL, &err), -EPROTO);
    ck_assert_str_eq(err.code, "bad_reply");
    ck_assert_int_eq(ts_client_check_bytes(c, a, keep_result, &got, &err), 0);
    ts_buf_free(&got);
    ts_client_close(c);
    tdaemon_stop_ok(&d);
    tdaemon_cleanup(&d);
    json_object_put(calls);
    json_object_put(other);
    ts_check_args_free(a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("client_check");
    TCase *tc0 = tcase_create("fake server");
    TCase *tc1 = tcase_create("real daemon");

    tcase_add_test(tc0, check_outcome_reads_replies);
    tcase_add_test(tc0, check_outcome_refuses_bad_replies);
    tcase_add_test(tc0, check_outcome_random_replies);
    tcase_add_test(tc0, check_request_bytes_unchanged);
    suite_add_tcase(s, tc0);
    tcase_add_test(tc1, real_daemon_check_outcome_matches_tree);
    tcase_add_test(tc1, real_daemon_check_bytes_match_tree);
    suite_add_tcase(s, tc1);
    return util_run_suite(s);
}
