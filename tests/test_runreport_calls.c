/*
 * test_runreport_calls — the call lists a run report carries for its FAILED
 * checks (lib/runreport/ts_runreport_calls.c, the JSON report's "calls" and
 * checks[].baseline_id): each distinct list once, given by an earlier check
 * or by the name's repeats, read back and merged to the same bytes, the
 * bounds (a list too long is named, not carried), and hostile "calls"
 * refused.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"
#include "lib/runreport/ts_runreport.h"
#include "util_test.h"

#define T0 1735732800000LL

static void add_run(ts_runreport *r, const char *id)
{
    ts_runreport_run run = {.id = id, .opened_ms = T0, .closed_ms = T0 + 1000};
    ts_error err;

    ck_assert_msg(ts_runreport_add_run(r, &run, &err) == 0, "%s", err.message);
}

/* A check of the last run; calls and baseline are JSON texts or NULL. */
static void add(ts_runreport *r, const char *name, const char *outcome, const char *calls,
                const char *baseline)
{
    struct json_object *c = calls != NULL ? util_json_c_parse(calls) : NULL;
    struct json_object *b = baseline != NULL ? util_json_c_parse(baseline) : NULL;
    ts_runreport_check chk = {
        .name = name,
        .outcome = outcome,
        .score = 0.5,
        .min_score = 1,
        .message = "m",
        .calls = c,
        .baseline = b,
    };
    ts_error err;

    ck_assert_msg(ts_runreport_add_check(r, &chk, &err) == 0, "%s", err.message);
    json_object_put(c);
    json_object_put(b);
}

static char *render(ts_runreport *r)
{
    ts_error err;
    ts_buf b;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_msg(ts_runreport_json(r, &b, &err) == 0, "%s", err.message);
    return ts_buf_detach(&b, NULL);
}

static struct json_object *member(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;

    ck_assert_msg(json_object_object_get_ex(o, key, &v), "no %s", key);
    return v;
}

static const char *id_of(const char *calls, char out[TS_RUNREPORT_CALLS_ID_LEN + 1])
{
    struct json_object *c = util_json_c_parse(calls);

    ck_assert_int_eq(ts_runreport_calls_id(c, out, NULL), 0);
    json_object_put(c);
    return out;
}

#define OBSERVED "[{\"tool\": \"search\", \"args\": {\"q\": \"new\"}}]"
#define BASELINE "[{\"tool\": \"search\", \"args\": {\"q\": \"old\"}}]"

START_TEST(failed_checks_carry_both_lists_once)
{
    ts_runreport *r = ts_runreport_new();
    char oid[20], bid[20];
    struct json_object *o, *calls, *checks, *want;
    char *text;

    id_of(OBSERVED, oid);
    id_of(BASELINE, bid);
    add_run(r, "r1");
    add(r, "a", "FAILED", OBSERVED, BASELINE);
    add(r, "b", "FAILED", OBSERVED, BASELINE);
    add(r, "c", "PASSED", BASELINE, BASELINE); /* no baseline kept: not FAILED */
    text = render(r);
    o = util_json_c_parse(text);
    calls = member(o, "calls");
    ck_assert_int_eq(json_object_object_length(calls), 2);
    want = util_json_c_parse(OBSERVED);
    ck_assert_str_eq(json_object_to_json_string(member(calls, oid)),
                     json_object_to_json_string(want));
    json_object_put(want);
    ck_assert_ptr_nonnull(member(calls, bid));
    ck_assert_int_eq(json_object_get_int(member(o, "calls_omitted")), 0);
    checks = member(o, "checks");
    ck_assert_str_eq(
        json_object_get_string(member(json_object_array_get_idx(checks, 1), "baseline_id")), bid);
    ck_assert_ptr_null(member(json_object_array_get_idx(checks, 2), "baseline_id"));
    ck_assert_ptr_nonnull(ts_runreport_calls_of(r, oid));
    json_object_put(o);
    free(text);
    ts_runreport_free(r);
}
END_TEST

/* A later check names its lists by id only (what a run's records hold once
 * a list was written): the report has them from the earlier check. */
START_TEST(lists_named_by_id_come_from_earlier_checks)
{
    ts_runreport *r = ts_runreport_new();
    char oid[20], bid[20];
    ts_runreport_check chk = {.name = "a", .outcome = "FAILED", .message = "m"};
    struct json_object *o;
    char *text;

    add_run(r, "r1");
    add(r, "a", "PASSED", OBSERVED, NULL); /* the name's list, seen passing first */
    add(r, "z", "FAILED", "[{\"tool\": \"x\"}]", BASELINE);
    chk.calls_id = id_of(OBSERVED, oid);
    chk.baseline_id = id_of(BASELINE, bid);
    ck_assert_int_eq(ts_runreport_add_check(r, &chk, NULL), 0);
    text = render(r);
    o = util_json_c_parse(text);
    ck_assert_int_eq(json_object_object_length(member(o, "calls")), 3);
    ck_assert_ptr_nonnull(member(member(o, "calls"), oid));
    ck_assert_int_eq(json_object_get_int(member(o, "calls_omitted")), 0);
    json_object_put(o);
    free(text);
    ts_runreport_free(r);
}
END_TEST

START_TEST(read_back_and_merged_to_the_same_bytes)
{
    ts_runreport *a = ts_runreport_new();
    ts_runreport *b = ts_runreport_new();
    ts_runreport *m = ts_runreport_new();
    ts_runreport *again = ts_runreport_new();
    char *ta, *tb, *tm, *tagain;
    struct json_object *o;
    ts_error err;

    add_run(a, "shard1");
    add(a, "a", "FAILED", OBSERVED, BASELINE);
    add_run(b, "shard2");
    add(b, "b", "FAILED", OBSERVED, "[{\"tool\": \"other\"}]");
    add(b, "b", "FAILED", OBSERVED, "[{\"tool\": \"other\"}]"); /* a repeat: lists by id */
    ta = render(a);
    tb = render(b);
    ck_assert_msg(ts_runreport_add_json(m, ta, strlen(ta), &err) == 0, "%s", err.message);
    ck_assert_msg(ts_runreport_add_json(m, tb, strlen(tb), &err) == 0, "%s", err.message);
    tm = render(m);
    o = util_json_c_parse(tm);
    ck_assert_int_eq(json_object_object_length(member(o, "calls")), 3);
    json_object_put(o);
    ck_assert_msg(ts_runreport_add_json(again, tm, strlen(tm), &err) == 0, "%s", err.message);
    tagain = render(again);
    ck_assert_str_eq(tagain, tm);
    free(ta);
    free(tb);
    free(tm);
    free(tagain);
    ts_runreport_free(a);
    ts_runreport_free(b);
    ts_runreport_free(m);
    ts_runreport_free(again);
}
END_TEST

/* A report of version 1 before "calls" existed still reads. */
START_TEST(reports_without_calls_read)
{
    const char *text =
        "{\"format\": \"toolscore-run-report\", \"version\": 1, \"runs\": [{\"id\": \"r\", "
        "\"store\": null, \"label\": null, \"host\": null, \"opened\": "
        "\"2025-01-01T00:00:00.000Z\", \"closed\": null, \"partial\": false, "
        "\"partial_reasons\": [], \"counts\": {\"created\": 0, \"updated\": 0, \"pending\": 0, "
        "\"passed\": 0, \"failed\": 1, \"errors\": 0, \"checks\": 1}}], \"counts\": "
        "{\"created\": 0, \"updated\": 0, \"pending\": 0, \"passed\": 0, \"failed\": 1, "
        "\"errors\": 0, \"checks\": 1}, \"checks\": [{\"run\": \"r\", \"name\": \"n\", \"test\": "
        "null, \"outcome\": \"FAILED\", \"score\": 0.5, \"min_score\": 1, \"duration_ms\": 1, "
        "\"message\": \"m\", \"report\": \"x\", \"calls_id\": \"0123456789abcdef\"}], "
        "\"checks_omitted\": 0, \"referenced\": {}, \"repeats\": []}";
    ts_runreport *r = ts_runreport_new();
    struct json_object *o;
    ts_error err;
    char *out;

    ck_assert_msg(ts_runreport_add_json(r, text, strlen(text), &err) == 0, "%s", err.message);
    out = render(r);
    o = util_json_c_parse(out);
    ck_assert_int_eq(json_object_object_length(member(o, "calls")), 0);
    ck_assert_int_eq(json_object_get_int(member(o, "calls_omitted")), 1); /* named, not known */
    json_object_put(o);
    free(out);
    ts_runreport_free(r);
}
END_TEST

START_TEST(a_list_too_long_is_named_not_carried)
{
    ts_runreport *r = ts_runreport_new();
    size_t n = TS_RUNREPORT_CALLS_LIST_MAX + 100;
    char *big = malloc(n + 64);
    struct json_object *o;
    char *text;

    ck_assert_ptr_nonnull(big);

    size_t len = (size_t)snprintf(big, n + 64, "[{\"tool\": \"t\", \"args\": {\"s\": \"");

    memset(big + len, 'x', n);
    strcpy(big + len + n, "\"}}]");
    add_run(r, "r");
    add(r, "n", "FAILED", big, BASELINE);
    text = render(r);
    o = util_json_c_parse(text);
    ck_assert_int_eq(json_object_object_length(member(o, "calls")), 1); /* the baseline */
    ck_assert_int_eq(json_object_get_int(member(o, "calls_omitted")), 1);
    json_object_put(o);
    free(text);
    free(big);
    ts_runreport_free(r);
}
END_TEST

static void assert_refused(const char *calls, const char *want)
{
    ts_runreport *r = ts_runreport_new();
    char *good, *bad, *at;
    ts_error err;

    add_run(r, "r");
    add(r, "n", "FAILED", OBSERVED, BASELINE);
    good = render(r);
    ts_runreport_free(r);
    at = strstr(good, "\"calls\": {");
    ck_assert_ptr_nonnull(at);
    ck_assert_int_ge(asprintf(&bad, "%.*s\"calls\": %s, \"ignored\": {%s", (int)(at - good), good,
                              calls, at + strlen("\"calls\": {")),
                     0);
    r = ts_runreport_new();
    ck_assert_msg(ts_runreport_add_json(r, bad, strlen(bad), &err) < 0, "accepted %s", calls);
    ck_assert_msg(strstr(err.message, want) != NULL, "'%s' does not say '%s'", err.message, want);
    ck_assert_int_eq((int)ts_runreport_checks(r), 0);
    ts_runreport_free(r);
    free(good);
    free(bad);
}

START_TEST(hostile_calls_are_refused)
{
    char oid[20];
    char *s;

    assert_refused("[]", "calls: must be an object");
    assert_refused("{\"<script>\": []}", "not a list id");
    assert_refused("{\"0123456789abcdef\": {}}", "must be an array");
    assert_refused("{\"0123456789abcdef\": [{\"args\": {}}]}", "missing 'tool'");
    assert_refused("{\"0123456789abcdef\": [{\"tool\": \"x\"}]}", "do not have this id");
    id_of(OBSERVED, oid);
    ck_assert_int_ge(asprintf(&s, "{\"%s\": [{\"tool\": \"evil\"}]}", oid), 0);
    assert_refused(s, "do not have this id");
    free(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("runreport_calls");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, failed_checks_carry_both_lists_once);
    tcase_add_test(tc, lists_named_by_id_come_from_earlier_checks);
    tcase_add_test(tc, read_back_and_merged_to_the_same_bytes);
    tcase_add_test(tc, reports_without_calls_read);
    tcase_add_test(tc, a_list_too_long_is_named_not_carried);
    tcase_add_test(tc, hostile_calls_are_refused);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
