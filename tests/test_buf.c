/*
 * test_buf — the growable buffer and its sticky errors (lib/base/ts_buf.c), and
 * the writers built on it: a report, a JSON document and a snapshot file
 * written into buffers of every small maximum are either whole and equal
 * to the unlimited output, or an error with nothing left to take.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/ts_base.h"
#include "lib/json/ts_json.h"
#include "lib/report/ts_report.h"
#include "lib/snapshot/ts_snapshot.h"
#include "util_test.h"

START_TEST(appends_grow_and_terminate)
{
    ts_buf b;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_buf_appends(&b, "abc"), 0);
    ck_assert_int_eq(ts_buf_appendc(&b, '-'), 0);
    ck_assert_int_eq(ts_buf_appendf(&b, "%d/%s", 42, "x"), 0);
    for (int i = 0; i < 1000; i++)
        ck_assert_int_eq(ts_buf_append(&b, "0123456789", 10), 0);
    ck_assert_uint_eq(b.len, 8 + 10000);
    ck_assert_int_eq(memcmp(b.data, "abc-42/x0123", 12), 0);
    ck_assert_int_eq(b.data[b.len], '\0');
    ck_assert_int_eq(ts_buf_error(&b), 0);
    ts_buf_free(&b);
}
END_TEST

START_TEST(a_failure_sticks)
{
    ts_buf b;

    ts_buf_init(&b, 8);
    ck_assert_int_eq(ts_buf_appends(&b, "12345"), 0);
    ck_assert_int_eq(ts_buf_appends(&b, "6789"), -E2BIG); /* 9 > 8 */
    ck_assert_int_eq(ts_buf_error(&b), -E2BIG);
    ck_assert_ptr_null(b.data); /* freed: nothing half-built to take */
    ck_assert_uint_eq(b.len, 0);
    /* Later appends do nothing, even ones that would fit. */
    ck_assert_int_eq(ts_buf_appendc(&b, 'x'), -E2BIG);
    ck_assert_int_eq(ts_buf_appendf(&b, "%d", 1), -E2BIG);
    ck_assert_int_eq(ts_buf_reserve(&b, 1), -E2BIG);
    ck_assert_ptr_null(b.data);
    ck_assert_uint_eq(b.len, 0);
    /* The first error is the one kept. */
    ck_assert_int_eq(ts_buf_fail(&b, -ENOMEM), -E2BIG);
    ck_assert_ptr_null(ts_buf_detach(&b, NULL));
    /* detach leaves it as after init: usable again */
    ck_assert_int_eq(ts_buf_error(&b), 0);
    ck_assert_int_eq(ts_buf_appends(&b, "ok"), 0);
    ck_assert_str_eq(b.data, "ok");
    ts_buf_free(&b);
}
END_TEST

START_TEST(reset_and_free_clear_the_error)
{
    ts_buf b;
    size_t len = 99;
    char *s;

    ts_buf_init(&b, 4);
    ck_assert_int_eq(ts_buf_appends(&b, "too long"), -E2BIG);
    ts_buf_reset(&b);
    ck_assert_int_eq(ts_buf_error(&b), 0);
    ck_assert_int_eq(ts_buf_appends(&b, "abcd"), 0);
    ck_assert_str_eq(b.data, "abcd");
    ts_buf_reset(&b);
    ck_assert_uint_eq(b.len, 0);
    ck_assert_str_eq(b.data, "");
    ck_assert_int_eq(ts_buf_appends(&b, "abcde"), -E2BIG);
    ts_buf_free(&b);
    ck_assert_int_eq(ts_buf_error(&b), 0);
    s = ts_buf_detach(&b, &len); /* empty, not failed: "" */
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(s, "");
    ck_assert_uint_eq(len, 0);
    free(s);
}
END_TEST

START_TEST(fail_marks_a_buffer)
{
    ts_buf b;
    size_t len = 99;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_buf_fail(&b, 0), 0); /* 0 is no failure */
    ck_assert_int_eq(ts_buf_appends(&b, "part"), 0);
    ck_assert_int_eq(ts_buf_fail(&b, -ENOMEM), -ENOMEM);
    ck_assert_int_eq(ts_buf_appends(&b, "more"), -ENOMEM);
    ck_assert_ptr_null(ts_buf_detach(&b, &len));
    ck_assert_uint_eq(len, 0);
    ts_buf_free(&b);
}
END_TEST

START_TEST(reserve_past_max_fails)
{
    ts_buf b;

    ts_buf_init(&b, 16);
    ck_assert_int_eq(ts_buf_reserve(&b, 16), 0);
    ck_assert_uint_eq(b.len, 0);
    ck_assert_int_eq(ts_buf_reserve(&b, 17), -E2BIG);
    ck_assert_int_eq(ts_buf_appendc(&b, 'a'), -E2BIG);
    ts_buf_free(&b);
}
END_TEST

/* out with maximum max: whole and equal to want, or failed and empty. */
static void assert_whole_or_failed(int rc, ts_buf *out, const char *want, size_t max)
{
    if (rc == 0) {
        ck_assert_msg(out->len == strlen(want) && memcmp(out->data, want, out->len) == 0,
                      "max %zu: output differs from the unlimited one", max);
        return;
    }
    ck_assert_msg(rc == -E2BIG, "max %zu: rc %d", max, rc);
    ck_assert_int_eq(ts_buf_error(out), -E2BIG);
    ck_assert_ptr_null(ts_buf_detach(out, NULL));
}

START_TEST(report_is_never_truncated)
{
    /* a key that needs quoting in a path, unicode, nested values, a new
     * and a missing call, a missing tool: every writer of the report */
    struct json_object *g = util_json_c_parse(
        "[{\"tool\": \"search\", \"args\": {\"q\": \"caf\\u00e9\", \"a.b\": {\"x\": [1, 2]}}},"
        " {\"tool\": \"book\", \"args\": {\"id\": 7}}, {\"tool\": \"gone\"}]");
    struct json_object *t = util_json_c_parse(
        "[{\"tool\": \"search\", \"args\": {\"q\": \"cafe\", \"a.b\": {\"x\": [1, 3]}, \"n\": 1}},"
        " {\"tool\": \"pay\", \"args\": {}}, {\"tool\": \"book\", \"args\": {\"id\": 8}}]");
    ts_score_options opt;
    ts_score_result r;
    ts_error err;
    ts_buf full;
    char *want;

    ts_score_options_default(&opt);
    ck_assert_int_eq(ts_evaluate(g, t, &opt, &r, &err), 0);
    ts_buf_init(&full, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_report_drift(g, t, &r, NULL, &full, &err), 0);
    want = ts_buf_detach(&full, NULL);
    for (size_t max = 0; max <= strlen(want) + 1; max++) {
        ts_buf out;
        int rc;

        ts_buf_init(&out, max);
        rc = ts_report_drift(g, t, &r, NULL, &out, &err);
        assert_whole_or_failed(rc, &out, want, max);
        if (rc < 0)
            ck_assert_str_eq(err.code, TS_ERR_TOO_LARGE);
        ts_buf_free(&out);
    }
    free(want);
    ts_score_result_free(&r);
    json_object_put(g);
    json_object_put(t);
}
END_TEST

START_TEST(json_and_snapshot_are_never_truncated)
{
    struct json_object *v = util_json_c_parse(
        "{\"k\": [1, 2.5, \"t\\u00e9\\n\", {\"n\": null, \"b\": true}], \"e\": {}, \"a\": []}");
    ts_snapshot *snap = util_make_snapshot("tests/t.py::x", 3, 5);
    ts_error err;
    ts_buf full;
    char *want_json, *want_snap;

    ts_buf_init(&full, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_json_write_pretty(v, &full, &err), 0);
    want_json = ts_buf_detach(&full, NULL);
    ck_assert_int_eq(ts_snapshot_serialize(snap, &full, &err), 0);
    want_snap = ts_buf_detach(&full, NULL);
    for (size_t max = 0; max <= strlen(want_snap) + 1; max++) {
        ts_buf out;

        ts_buf_init(&out, max);
        assert_whole_or_failed(ts_json_write_pretty(v, &out, &err), &out, want_json, max);
        ts_buf_free(&out);
        ts_buf_init(&out, max);
        assert_whole_or_failed(ts_snapshot_serialize(snap, &out, &err), &out, want_snap, max);
        ts_buf_free(&out);
    }
    free(want_json);
    free(want_snap);
    ts_snapshot_free(snap);
    json_object_put(v);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("buf");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, appends_grow_and_terminate);
    tcase_add_test(tc, a_failure_sticks);
    tcase_add_test(tc, reset_and_free_clear_the_error);
    tcase_add_test(tc, fail_marks_a_buffer);
    tcase_add_test(tc, reserve_past_max_fails);
    tcase_add_test(tc, report_is_never_truncated);
    tcase_add_test(tc, json_and_snapshot_are_never_truncated);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
