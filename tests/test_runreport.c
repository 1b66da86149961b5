/*
 * test_runreport — run reports (lib/runreport/ts_runreport*): the JSON report and its
 * round trip, JUnit as CI reads it (validated with xmllint against the
 * JUnit schema in tests/data/junit.xsd), merging shards, duplicates and
 * orphans across them, repeats (distinct call lists, pass^k, pass@k, the
 * bound), and hostile report files.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/json/ts_json.h"
#include "lib/runreport/ts_runreport.h"
#include "util_test.h"

#define T0 1735732800000LL /* 2025-01-01T12:00:00.000Z */

static void add_run(ts_runreport *r, const char *id, const char *label, bool partial,
                    const char *reason)
{
    ts_runreport_run run = {
        .id = id,
        .store = "/work/project/.toolscore/snapshots",
        .label = label,
        .host = "ci-1",
        .opened_ms = T0,
        .closed_ms = T0 + 5000,
        .partial = partial,
        .reasons = &reason,
        .nreasons = reason != NULL ? 1 : 0,
    };
    ts_error err;

    ck_assert_msg(ts_runreport_add_run(r, &run, &err) == 0, "%s", err.message);
}

static void add_check(ts_runreport *r, const char *name, const char *test, const char *outcome,
                      double ms, const char *calls)
{
    struct json_object *c = calls != NULL ? util_json_c_parse(calls) : NULL;
    ts_runreport_check chk = {
        .name = name,
        .test = test,
        .outcome = outcome,
        .score = strcmp(outcome, "PASSED") == 0   ? 1.0
                 : strcmp(outcome, "FAILED") == 0 ? 0.5
                                                  : -1,
        .min_score = 1.0,
        .duration_ms = ms,
        .message = "the message",
        .report =
            strcmp(outcome, "FAILED") == 0 ? "Drift report\nvalue changed at calls[0]\n" : NULL,
        .calls = c,
    };
    ts_error err;

    ck_assert_msg(ts_runreport_add_check(r, &chk, &err) == 0, "%s", err.message);
    json_object_put(c);
}

static char *render_json(ts_runreport *r)
{
    ts_error err;
    ts_buf b;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_msg(ts_runreport_json(r, &b, &err) == 0, "%s", err.message);
    return ts_buf_detach(&b, NULL);
}

static char *render_junit(ts_runreport *r)
{
    ts_error err;
    ts_buf b;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_msg(ts_runreport_junit(r, &b, &err) == 0, "%s", err.message);
    return ts_buf_detach(&b, NULL);
}

/* xmllint --schema tests/data/junit.xsd on xml: its exit status. */
static int validate_junit(const char *xml)
{
    char *dir = util_make_temp_dir("ts-junit");
    char *file;
    char *cmd;
    int rc;

    ck_assert_int_ge(asprintf(&file, "%s/junit.xml", dir), 0);
    util_write_file(file, xml, strlen(xml));
    ck_assert_int_ge(asprintf(&cmd, "xmllint --noout --schema '%s/tests/data/junit.xsd' '%s' 2>&1",
                              util_source_dir(), file),
                     0);
    rc = system(cmd);
    util_remove_tree(dir);
    free(dir);
    free(file);
    free(cmd);
    return rc;
}

static struct json_object *parse(const char *text)
{
    return util_json_c_parse(text);
}

static struct json_object *path(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;

    ck_assert_msg(json_object_object_get_ex(o, key, &v), "no key %s", key);
    return v;
}

static void names_of(const char *test, const char *want_class, const char *want_name)
{
    ts_buf cls, nm;

    ts_buf_init(&cls, TS_BUF_UNLIMITED);
    ts_buf_init(&nm, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_runreport_junit_names(test, "snap", &cls, &nm), 0);
    ck_assert_str_eq(cls.data ? cls.data : "", want_class);
    ck_assert_str_eq(nm.data ? nm.data : "", want_name);
    ts_buf_free(&cls);
    ts_buf_free(&nm);
}

START_TEST(junit_names_as_pytest_writes_them)
{
    names_of("tests/test_a.py::TestX::test_y[p]", "tests.test_a.TestX", "test_y[p]");
    names_of("tests/test_par.py::test_2", "tests.test_par", "test_2");
    names_of("test_top.py::test_x", "test_top", "test_x");
    names_of("a/b.py::Outer::Inner::test_z", "a.b.Outer.Inner", "test_z");
    /* Params may hold "::" and "/": only the part before "[" is split. */
    names_of("t.py::test_p[a::b/c.py]", "t", "test_p[a::b/c.py]");
    names_of("some jest test > case", "toolscore", "some jest test > case");
    names_of(NULL, "toolscore", "snap");
    names_of("", "toolscore", "snap");
}
END_TEST

/* One run with a check of each outcome. */
static ts_runreport *every_outcome(void)
{
    ts_runreport *r = ts_runreport_new();

    add_run(r, "run1", "pytest", false, NULL);
    add_check(r, "created", "tests/test_a.py::test_created", "CREATED", 2.5, "[]");
    add_check(r, "pending", "tests/test_a.py::test_pending", "PENDING", 1.25, "[]");
    add_check(r, "updated", "tests/test_a.py::test_updated", "UPDATED", 3, "[]");
    add_check(r, "passed", "tests/test_a.py::TestX::test_y[p]", "PASSED", 12.5, "[]");
    add_check(r, "failed", "tests/test_a.py::test_failed", "FAILED", 0.25, "[]");
    add_check(r, "missing", "tests/test_a.py::test_missing", "ERROR_MISSING_IN_CI", 1, "[]");
    add_check(r, "unreviewed", NULL, "ERROR_PENDING_IN_CI", 1, "[]");
    return r;
}

START_TEST(junit_outcomes)
{
    ts_runreport *r = every_outcome();
    char *xml = render_junit(r);

    /* The schema is not vacuous: what tsctl wrote before is refused
     * (attributes on testsuites, output inside a testcase, no properties). */
    ck_assert_int_ne(validate_junit("<?xml version=\"1.0\"?>\n<testsuites name=\"t\">"
                                    "<testsuite name=\"s\" package=\"p\" id=\"0\" "
                                    "timestamp=\"2025-01-01T00:00:00\" hostname=\"h\" "
                                    "tests=\"1\" failures=\"0\" errors=\"0\" time=\"0\">"
                                    "<properties/><testcase classname=\"c\" name=\"n\" "
                                    "time=\"0\"/><system-out/><system-err/></testsuite>"
                                    "</testsuites>\n"),
                     0);
    ck_assert_int_ne(validate_junit("<?xml version=\"1.0\"?>\n<testsuites><testsuite "
                                    "name=\"s\" package=\"p\" id=\"0\" "
                                    "timestamp=\"2025-01-01T00:00:00\" hostname=\"h\" "
                                    "tests=\"1\" failures=\"0\" errors=\"0\" time=\"0\">"
                                    "<properties/><testcase classname=\"c\" name=\"n\" "
                                    "time=\"0\"><system-out>x</system-out></testcase>"
                                    "<system-out/><system-err/></testsuite></testsuites>\n"),
                     0);

    ck_assert_msg(validate_junit(xml) == 0, "not valid JUnit:\n%s", xml);
    ck_assert_ptr_nonnull(strstr(
        xml, "<testsuite name=\"toolscore pytest\" package=\"toolscore\" id=\"0\" "
             "timestamp=\"2025-01-01T12:00:00\" hostname=\"ci-1\" tests=\"7\" failures=\"1\" "
             "errors=\"2\" skipped=\"3\" time=\"0.0215\">"));
    ck_assert_ptr_nonnull(strstr(xml, "<testcase classname=\"tests.test_a\" name=\"test_created\" "
                                      "time=\"0.0025\">\n      <skipped message=\"CREATED: the "
                                      "message\"/>"));
    ck_assert_ptr_nonnull(strstr(xml, "name=\"test_pending\" time=\"0.00125\">\n      <skipped "
                                      "message=\"PENDING: "));
    ck_assert_ptr_nonnull(strstr(xml, "name=\"test_updated\" time=\"0.003\">\n      <skipped "
                                      "message=\"UPDATED: "));
    ck_assert_ptr_nonnull(strstr(xml, "<testcase classname=\"tests.test_a.TestX\" "
                                      "name=\"test_y[p]\" time=\"0.0125\"/>"));
    ck_assert_ptr_nonnull(strstr(xml, "name=\"test_failed\" time=\"0.00025\">\n      <failure "
                                      "type=\"FAILED\" message=\"the message\">Drift "
                                      "report\nvalue changed at calls[0]\n</failure>"));
    ck_assert_ptr_nonnull(strstr(xml, "name=\"test_missing\" time=\"0.001\">\n      <error "
                                      "type=\"ERROR_MISSING_IN_CI\" message=\"the message\">"));
    ck_assert_ptr_nonnull(strstr(xml,
                                 "<testcase classname=\"toolscore\" name=\"unreviewed\" "
                                 "time=\"0.001\">\n      <error type=\"ERROR_PENDING_IN_CI\""));
    ck_assert_ptr_nonnull(strstr(xml, "<property name=\"toolscore.run\" value=\"run1\"/>"));
    ck_assert_ptr_nonnull(strstr(xml, "<property name=\"toolscore.complete\" value=\"true\"/>"));
    ck_assert_ptr_nonnull(strstr(xml, "<system-out>toolscore: 1 snapshot created"));
    free(xml);
    ts_runreport_free(r);
}
END_TEST

START_TEST(junit_escapes_hostile_text)
{
    ts_runreport *r = ts_runreport_new();
    ts_runreport_check c = {
        .name = "a\"b<c>&d'\x01\t",
        .test = "t.py::test_\"q\"[\x1b[31mred\x1b[0m\xef\xbf\xbe]",
        .outcome = "FAILED",
        .score = 0,
        .min_score = 1,
        .message = "line one\nline two \x1b[1mbold\x1b[0m \x02 \xc2\x85",
        .report = "]]> <![CDATA[ & </failure>\r\n\x7f",
    };
    ts_error err;
    char *xml;

    add_run(r, "run-<&>", "label \"q\"", true, "-k 'x and not y'");
    ck_assert_int_eq(ts_runreport_add_check(r, &c, &err), 0);
    xml = render_junit(r);
    ck_assert_msg(validate_junit(xml) == 0, "not valid JUnit:\n%s", xml);
    ck_assert_ptr_null(strstr(xml, "\x1b"));
    ck_assert_ptr_nonnull(strstr(xml, "name=\"test_&quot;q&quot;[red\xEF\xBF\xBD]\""));
    ck_assert_ptr_nonnull(strstr(xml, "message=\"line one&#10;line two bold \xEF\xBF\xBD "
                                      "\xEF\xBF\xBD\""));
    ck_assert_ptr_nonnull(strstr(xml, "]]&gt; &lt;![CDATA[ &amp; &lt;/failure&gt;&#13;\n"));
    ck_assert_ptr_nonnull(strstr(xml, "value=\"-k 'x and not y'\""));
    ck_assert_ptr_nonnull(strstr(xml, "<property name=\"toolscore.complete\" value=\"false\"/>"));
    free(xml);
    ts_runreport_free(r);
}
END_TEST

START_TEST(json_report_fields_and_round_trip)
{
    ts_runreport *r = every_outcome();
    ts_runreport *back = ts_runreport_new();
    char *text = render_json(r);
    char *again;
    struct json_object *o = parse(text);
    struct json_object *run = json_object_array_get_idx(path(o, "runs"), 0);
    struct json_object *chk = json_object_array_get_idx(path(o, "checks"), 4);
    ts_error err;

    ck_assert_str_eq(json_object_get_string(path(o, "format")), "toolscore-run-report");
    ck_assert_int_eq(json_object_get_int(path(o, "version")), 1);
    ck_assert(json_object_get_boolean(path(o, "complete")));
    ck_assert_str_eq(json_object_get_string(path(run, "id")), "run1");
    ck_assert_str_eq(json_object_get_string(path(run, "opened")), "2025-01-01T12:00:00.000Z");
    ck_assert_str_eq(json_object_get_string(path(run, "closed")), "2025-01-01T12:00:05.000Z");
    ck_assert_str_eq(json_object_get_string(path(o, "summary")),
                     "toolscore: 1 snapshot created (pending approval), 1 updated, 1 pending, 1 "
                     "passed, 3 failed");
    ck_assert_int_eq(json_object_get_int(path(path(o, "counts"), "failed")), 3);
    ck_assert_int_eq(json_object_get_int(path(path(o, "counts"), "errors")), 2);
    ck_assert_int_eq(json_object_get_int(path(path(o, "counts"), "checks")), 7);
    ck_assert_str_eq(json_object_get_string(path(chk, "name")), "failed");
    ck_assert_str_eq(json_object_get_string(path(chk, "outcome")), "FAILED");
    ck_assert(json_object_get_double(path(chk, "score")) == 0.5);
    ck_assert(json_object_get_double(path(chk, "min_score")) == 1.0);
    ck_assert(json_object_get_double(path(chk, "duration_ms")) == 0.25);
    ck_assert_str_eq(json_object_get_string(path(chk, "report")),
                     "Drift report\nvalue changed at calls[0]\n");
    ck_assert_int_eq((int)strlen(json_object_get_string(path(chk, "calls_id"))), 16);
    ck_assert_int_eq(json_object_object_length(path(o, "referenced")), 7);
    /* Read back and rendered again: the same bytes. */
    ck_assert_msg(ts_runreport_add_json(back, text, strlen(text), &err) == 0, "%s", err.message);
    again = render_json(back);
    ck_assert_str_eq(again, text);
    free(again);
    free(text);
    json_object_put(o);
    ts_runreport_free(back);
    ts_runreport_free(r);
}
END_TEST

/* Updates that wrote nothing: counted as unchanged (part of updated), marked
 * on the check, read back and merged; a count above updated is refused. */
START_TEST(unchanged_updates)
{
    ts_runreport *r = ts_runreport_new();
    ts_runreport *back = ts_runreport_new();
    ts_runreport_check chk = {.name = "same",
                              .outcome = "UPDATED",
                              .score = -1,
                              .min_score = 1.0,
                              .message = "m",
                              .unchanged = true};
    struct json_object *o;
    char *text, *again, *bad;
    ts_error err;
    ts_buf b;

    add_run(r, "run1", "pytest", false, NULL);
    add_check(r, "changed", NULL, "UPDATED", 1, "[]");
    ck_assert_msg(ts_runreport_add_check(r, &chk, &err) == 0, "%s", err.message);
    text = render_json(r);
    o = parse(text);
    ck_assert_str_eq(json_object_get_string(path(o, "summary")),
                     "toolscore: 1 updated, 1 unchanged");
    ck_assert_int_eq(json_object_get_int(path(path(o, "counts"), "updated")), 2);
    ck_assert_int_eq(json_object_get_int(path(path(o, "counts"), "unchanged")), 1);
    ck_assert(json_object_get_boolean(
        path(json_object_array_get_idx(path(o, "checks"), 1), "unchanged")));
    ck_assert(!json_object_object_get_ex(json_object_array_get_idx(path(o, "checks"), 0),
                                         "unchanged", NULL));
    ck_assert_msg(ts_runreport_add_json(back, text, strlen(text), &err) == 0, "%s", err.message);
    again = render_json(back);
    ck_assert_str_eq(again, text);
    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_runreport_summary(back, &b), 0);
    ck_assert_str_eq(b.data, "toolscore: 1 updated, 1 unchanged");
    ts_buf_free(&b);
    /* more unchanged than updated: not a report */
    bad = strdup(text);
    memcpy(strstr(bad, "\"unchanged\": 1"), "\"unchanged\": 3", 14);
    ts_runreport_free(back);
    back = ts_runreport_new();
    ck_assert_int_eq(ts_runreport_add_json(back, bad, strlen(bad), &err), -EINVAL);
    ck_assert_msg(strstr(err.message, "unchanged counts updates") != NULL, "%s", err.message);
    free(bad);
    free(again);
    free(text);
    json_object_put(o);
    ts_runreport_free(back);
    ts_runreport_free(r);
}
END_TEST

/* Three shards, as three CI machines' daemons would report them. */
static char *shard(int i)
{
    char id[16];
    char *text;
    ts_runreport *r = ts_runreport_new();

    snprintf(id, sizeof(id), "shard%d", i);
    add_run(r, id, "pytest", i == 2, i == 2 ? "2 test(s) deselected" : NULL);
    if (i == 0) {
        add_check(r, "a", "tests/test_a.py::test_a", "PASSED", 1, "[{\"tool\": \"x\"}]");
        add_check(r, "shared", "tests/test_a.py::test_shared", "PASSED", 1, "[]");
        add_check(r, "flaky", "tests/test_f.py::test_f", "PASSED", 1, "[{\"tool\": \"f\"}]");
    } else if (i == 1) {
        add_check(r, "b", "tests/test_b.py::test_b", "FAILED", 2, "[{\"tool\": \"y\"}]");
        add_check(r, "shared", "tests/test_b.py::test_other", "PASSED", 1, "[]");
        add_check(r, "flaky", "tests/test_f.py::test_f", "FAILED", 1, "[{\"tool\": \"g\"}]");
    } else {
        add_check(r, "c", "tests/test_c.py::test_c", "CREATED", 3, "[]");
    }
    text = render_json(r);
    ts_runreport_free(r);
    return text;
}

START_TEST(merge_three_shards)
{
    ts_runreport *m = ts_runreport_new();
    ts_runreport_repeat *reps = NULL;
    size_t nreps = 0;
    ts_error err;
    char *xml;
    char *json;
    struct json_object *o;

    for (int i = 0; i < 3; i++) {
        char *t = shard(i);

        ck_assert_msg(ts_runreport_add_json(m, t, strlen(t), &err) == 0, "%s", err.message);
        free(t);
    }
    ck_assert_int_eq((int)ts_runreport_run_count(m), 3);
    ck_assert_int_eq((int)ts_runreport_checks(m), 7);
    ck_assert(!ts_runreport_complete(m));
    ck_assert(ts_runreport_references(m, "a"));
    ck_assert(ts_runreport_references(m, "b"));
    ck_assert(ts_runreport_references(m, "c"));
    ck_assert(!ts_runreport_references(m, "never"));
    /* "shared": one test on shard 0, another on shard 1. */
    ck_assert_int_eq((int)ts_runreport_duplicates(m), 1);
    json = render_json(m);
    o = parse(json);
    ck_assert_str_eq(json_object_get_string(path(o, "summary")),
                     "toolscore: 1 snapshot created (pending approval), 4 passed, 2 failed");
    ck_assert_str_eq(
        json_object_get_string(path(json_object_array_get_idx(path(o, "duplicates"), 0), "name")),
        "shared");
    ck_assert_int_eq((int)json_object_array_length(
                         path(json_object_array_get_idx(path(o, "duplicates"), 0), "tests")),
                     2);
    /* "flaky" and "shared" were seen once per shard: repeats across shards. */
    ck_assert_int_eq(ts_runreport_repeats(m, &reps, &nreps, &err), 0);
    ck_assert_int_eq((int)nreps, 2);
    ck_assert_str_eq(reps[1].name, "shared");
    ck_assert_int_eq((int)reps[1].nlists, 1);
    ck_assert_int_eq(reps[1].pass_all, 1);
    ck_assert_str_eq(reps[0].name, "flaky");
    ck_assert_int_eq((int)reps[0].observations, 2);
    ck_assert_int_eq((int)reps[0].nlists, 2);
    ck_assert_int_eq(reps[0].pass_all, 0);
    ck_assert_int_eq(reps[0].pass_any, 1);
    free(reps);
    xml = render_junit(m);
    ck_assert_msg(validate_junit(xml) == 0, "not valid JUnit:\n%s", xml);
    ck_assert_ptr_nonnull(strstr(xml, "id=\"2\""));
    ck_assert_ptr_nonnull(strstr(xml, "<testcase classname=\"toolscore.duplicates\" "
                                      "name=\"shared\""));
    ck_assert_ptr_nonnull(strstr(xml, "<error type=\"duplicate_claim\""));
    ck_assert_ptr_nonnull(strstr(xml, "value=\"2 test(s) deselected\""));
    /* A merged report merges again: the same report. */
    {
        ts_runreport *again = ts_runreport_new();
        char *json2;

        ck_assert_int_eq(ts_runreport_add_json(again, json, strlen(json), &err), 0);
        json2 = render_json(again);
        ck_assert_str_eq(json2, json);
        free(json2);
        /* The same shard twice is refused, and adds nothing. */
        char *t = shard(1);
        ck_assert_int_eq(ts_runreport_add_json(again, t, strlen(t), &err), -EINVAL);
        ck_assert_ptr_nonnull(strstr(err.message, "shard1"));
        ck_assert_int_eq((int)ts_runreport_checks(again), 7);
        free(t);
        ts_runreport_free(again);
    }
    json_object_put(o);
    free(json);
    free(xml);
    ts_runreport_free(m);
}
END_TEST

START_TEST(repeats_of_one_name)
{
    ts_runreport *r = ts_runreport_new();
    const char *calls[5] = {
        "[{\"tool\": \"book\", \"args\": {\"id\": 1, \"q\": \"a\"}}]",
        "[{\"tool\": \"book\", \"args\": {\"id\": 2, \"q\": \"a\"}}]",
        "[{\"tool\": \"book\", \"args\": {\"id\": 1, \"q\": \"a\"}}]",
        "[{\"tool\": \"book\", \"args\": {\"id\": 3, \"q\": \"b\"}}]",
        "[{\"tool\": \"book\", \"args\": {\"id\": 2, \"q\": \"a\"}}]",
    };
    const char *outcomes[5] = {"PASSED", "FAILED", "PASSED", "FAILED", "FAILED"};
    ts_runreport_repeat *reps;
    size_t n;
    ts_error err;
    char *json;
    struct json_object *o, *rep, *lists;

    add_run(r, "run1", NULL, false, NULL);
    for (int i = 0; i < 5; i++)
        add_check(r, "tests/t.py::test_book", "tests/t.py::test_book", outcomes[i], 1, calls[i]);
    add_check(r, "once", "tests/t.py::test_once", "PASSED", 1, "[]");
    add_check(r, "pending", "tests/t.py::test_p", "CREATED", 1, "[]");
    add_check(r, "pending", "tests/t.py::test_p", "PENDING", 1, "[{\"tool\": \"z\"}]");
    ck_assert_int_eq(ts_runreport_repeats(r, &reps, &n, &err), 0);
    ck_assert_int_eq((int)n, 2);
    ck_assert_str_eq(reps[0].name, "pending");
    ck_assert_int_eq((int)reps[0].k, 0);
    ck_assert_int_eq(reps[0].pass_all, -1);
    ck_assert_int_eq((int)reps[0].nlists, 2);
    ck_assert_str_eq(reps[1].name, "tests/t.py::test_book");
    ck_assert_int_eq((int)reps[1].observations, 5);
    ck_assert_int_eq((int)reps[1].outcomes[TS_RUNREPORT_PASSED], 2);
    ck_assert_int_eq((int)reps[1].outcomes[TS_RUNREPORT_FAILED], 3);
    ck_assert_int_eq((int)reps[1].k, 5);
    ck_assert_int_eq(reps[1].pass_all, 0);
    ck_assert_int_eq(reps[1].pass_any, 1);
    ck_assert_int_eq((int)reps[1].nlists, 3);
    ck_assert_int_eq((int)reps[1].lists[0].count, 2);
    ck_assert_int_eq((int)reps[1].lists[1].count, 2);
    ck_assert_int_eq((int)reps[1].lists[2].count, 1);
    ck_assert_int_eq((int)reps[1].lists[0].outcomes[TS_RUNREPORT_PASSED], 2);
    ck_assert_int_eq((int)reps[1].unlisted, 0);
    {
        char *got = util_json_compact(reps[1].lists[2].calls);

        ck_assert_str_eq(got, "[{\"tool\": \"book\", \"args\": {\"id\": 3, \"q\": \"b\"}}]");
        free(got);
    }
    free(reps);
    json = render_json(r);
    o = parse(json);
    ck_assert_int_eq((int)json_object_array_length(path(o, "repeats")), 2);
    rep = json_object_array_get_idx(path(o, "repeats"), 1);
    ck_assert_int_eq(json_object_get_int(path(rep, "observations")), 5);
    ck_assert_int_eq(json_object_get_int(path(rep, "distinct")), 3);
    ck_assert_int_eq(json_object_get_int(path(rep, "k")), 5);
    ck_assert(!json_object_get_boolean(path(rep, "pass^k")));
    ck_assert(json_object_get_boolean(path(rep, "pass@k")));
    ck_assert_int_eq(json_object_get_int(path(path(rep, "outcomes"), "FAILED")), 3);
    lists = path(rep, "lists");
    ck_assert_int_eq(json_object_get_int(path(json_object_array_get_idx(lists, 1), "count")), 2);
    rep = json_object_array_get_idx(path(o, "repeats"), 0);
    ck_assert(json_object_is_type(path(rep, "pass^k"), json_type_null));
    json_object_put(o);
    free(json);
    ts_runreport_free(r);
}
END_TEST

START_TEST(repeats_keep_the_first_hundred_lists)
{
    ts_runreport *r = ts_runreport_new();
    ts_runreport_repeat *reps;
    ts_runreport *back = ts_runreport_new();
    size_t n;
    ts_error err;
    char *json;
    char *again;

    add_run(r, "run1", NULL, false, NULL);
    for (int i = 0; i < 150; i++) {
        char calls[64];

        snprintf(calls, sizeof(calls), "[{\"tool\": \"t\", \"args\": {\"i\": %d}}]", i % 130);
        add_check(r, "n", NULL, "FAILED", 1, calls);
    }
    ck_assert_int_eq(ts_runreport_repeats(r, &reps, &n, &err), 0);
    ck_assert_int_eq((int)n, 1);
    ck_assert_int_eq((int)reps[0].observations, 150);
    ck_assert_int_eq((int)reps[0].nlists, TS_RUNREPORT_MAX_LISTS);
    /* 0..99 kept (20 of them seen twice), 100..129 not kept. */
    ck_assert_int_eq((int)reps[0].unlisted, 30);
    ck_assert_int_eq((int)reps[0].lists[0].count, 2);
    ck_assert_int_eq((int)reps[0].lists[99].count, 1);
    free(reps);
    json = render_json(r);
    ck_assert_int_eq(ts_runreport_add_json(back, json, strlen(json), &err), 0);
    again = render_json(back);
    ck_assert_str_eq(again, json);
    free(again);
    free(json);
    ts_runreport_free(back);
    ts_runreport_free(r);
}
END_TEST

/* The error of reading text as a report; "" when it was read. */
static void assert_refused(const char *text, const char *want)
{
    ts_runreport *r = ts_runreport_new();
    ts_error err;
    int rc = ts_runreport_add_json(r, text, strlen(text), &err);

    ck_assert_msg(rc < 0, "accepted: %s", text);
    ck_assert_msg(strstr(err.message, want) != NULL, "error '%s' does not say '%s'", err.message,
                  want);
    ck_assert_int_eq((int)ts_runreport_run_count(r), 0);
    ck_assert_int_eq((int)ts_runreport_checks(r), 0);
    ts_runreport_free(r);
}

/* A valid one-run report with one check, with the check's JSON replaced. */
static char *report_with_check(const char *check)
{
    char *t;

    ck_assert_int_ge(
        asprintf(&t,
                 "{\"format\": \"toolscore-run-report\", \"version\": 1, \"runs\": [{\"id\": "
                 "\"r\", \"store\": null, \"label\": null, \"host\": null, \"opened\": "
                 "\"2025-01-01T00:00:00.000Z\", \"closed\": null, \"partial\": false, "
                 "\"partial_reasons\": [], \"counts\": {\"created\": 0, \"updated\": 0, "
                 "\"pending\": 0, \"passed\": 1, \"failed\": 0, \"errors\": 0, \"checks\": 1}}], "
                 "\"counts\": {\"created\": 0, \"updated\": 0, \"pending\": 0, \"passed\": 1, "
                 "\"failed\": 0, \"errors\": 0, \"checks\": 1}, \"checks\": [%s], "
                 "\"checks_omitted\": 0, \"referenced\": {}, \"repeats\": []}",
                 check),
        0);
    return t;
}

START_TEST(hostile_reports_are_refused)
{
    const char *good = "{\"run\": \"r\", \"name\": \"n\", \"test\": null, \"outcome\": "
                       "\"PASSED\", \"score\": 1.0, \"min_score\": 1, \"duration_ms\": 2, "
                       "\"message\": \"m\", \"report\": null, \"calls_id\": null}";
    char *t = report_with_check(good);
    ts_runreport *r = ts_runreport_new();
    ts_error err;

    ck_assert_msg(ts_runreport_add_json(r, t, strlen(t), &err) == 0, "%s", err.message);
    ck_assert(ts_runreport_references(r, "n"));
    ts_runreport_free(r);
    free(t);
    assert_refused("not json", "line 1");
    assert_refused("[]", "not a JSON object");
    assert_refused("{\"format\": \"junit\"}", "not a toolscore run report");
    assert_refused("{\"format\": \"toolscore-run-report\", \"version\": 2}", "newer");
    assert_refused("{\"format\": \"toolscore-run-report\", \"version\": 1}", "runs: missing");
    t = report_with_check("{\"run\": \"r\", \"name\": \"n\", \"test\": null, \"outcome\": "
                          "\"GREEN\", \"score\": 1, \"min_score\": 1, \"duration_ms\": 2, "
                          "\"message\": \"m\", \"report\": null, \"calls_id\": null}");
    assert_refused(t, "checks[0].outcome: not an outcome");
    free(t);
    t = report_with_check("{\"run\": \"other\", \"name\": \"n\", \"test\": null, \"outcome\": "
                          "\"PASSED\", \"score\": 1, \"min_score\": 1, \"duration_ms\": 2, "
                          "\"message\": \"m\", \"report\": null, \"calls_id\": null}");
    assert_refused(t, "checks[0].run: not one of the report's runs");
    free(t);
    t = report_with_check("{\"run\": \"r\", \"name\": 7, \"test\": null, \"outcome\": "
                          "\"PASSED\", \"score\": 1, \"min_score\": 1, \"duration_ms\": 2, "
                          "\"message\": \"m\", \"report\": null, \"calls_id\": null}");
    assert_refused(t, "checks[0].name: must be a string");
    free(t);
    t = report_with_check("{\"run\": \"r\", \"name\": \"n\", \"test\": null, \"outcome\": "
                          "\"PASSED\", \"score\": 1, \"min_score\": 1, \"duration_ms\": -2, "
                          "\"message\": \"m\", \"report\": null, \"calls_id\": null}");
    assert_refused(t, "duration_ms must not be negative");
    free(t);
    t = report_with_check("{\"run\": \"r\", \"name\": \"n\", \"test\": null, \"outcome\": "
                          "\"PASSED\", \"score\": 1, \"min_score\": 1, \"duration_ms\": 2, "
                          "\"message\": \"m\", \"report\": null, \"calls_id\": \"../etc\"}");
    assert_refused(t, "checks[0].calls_id: must be 16 lower-case hex digits");
    free(t);
    /* Counts that do not match the checks listed. */
    t = report_with_check("");
    assert_refused(t, "the checks listed and omitted are not the checks counted");
    free(t);
}
END_TEST

START_TEST(cut_long_reports)
{
    ts_buf b;
    char big[100];

    memset(big, 'x', sizeof(big));
    memcpy(big + 10, "\n", 1);
    memcpy(big + 40, "\n", 1);
    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_runreport_cut(big, sizeof(big), 50, &b), 0);
    ck_assert_int_eq(memcmp(b.data, big, 41), 0);
    ck_assert_str_eq(b.data + 41, "... report cut: 59 of its 100 bytes not kept\n");
    ts_buf_reset(&b);
    /* No line break: cut at a character boundary (é is 2 bytes). */
    ck_assert_int_eq(ts_runreport_cut("\xc3\xa9\xc3\xa9\xc3\xa9", 6, 3, &b), 0);
    ck_assert_str_eq(b.data, "\xc3\xa9\n... report cut: 4 of its 6 bytes not kept\n");
    ts_buf_reset(&b);
    ck_assert_int_eq(ts_runreport_cut("short", 5, 50, &b), 0);
    ck_assert_str_eq(b.data, "short");
    ts_buf_free(&b);
}
END_TEST

START_TEST(times)
{
    char t[32];
    int64_t ms;

    ts_runreport_format_time(T0 + 1234, t);
    ck_assert_str_eq(t, "2025-01-01T12:00:01.234Z");
    ck_assert_int_eq(ts_runreport_parse_time(t, &ms), 0);
    ck_assert(ms == T0 + 1234);
    ck_assert_int_eq(ts_runreport_parse_time("2025-02-30T00:00:00.000Z", &ms), -EINVAL);
    ck_assert_int_eq(ts_runreport_parse_time("2025-01-01T12:00:00Z", &ms), -EINVAL);
    ck_assert_int_eq(ts_runreport_parse_time("2025-01-01 12:00:00.000Z", &ms), -EINVAL);
    ck_assert_int_eq(ts_runreport_parse_time("+025-01-01T12:00:00.000Z", &ms), -EINVAL);
}
END_TEST

START_TEST(invalid_checks_are_refused)
{
    ts_runreport *r = ts_runreport_new();
    ts_runreport_check c = {.name = "n", .outcome = "PASSED", .score = 1};
    ts_error err;

    ck_assert_int_eq(ts_runreport_add_check(r, &c, &err), -EINVAL); /* no run yet */
    add_run(r, "r", NULL, false, NULL);
    c.outcome = "BLUE";
    ck_assert_int_eq(ts_runreport_add_check(r, &c, &err), -EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "BLUE"));
    c.outcome = "PASSED";
    c.calls_id = "zz";
    ck_assert_int_eq(ts_runreport_add_check(r, &c, &err), -EINVAL);
    c.calls_id = NULL;
    c.run = "nope";
    ck_assert_int_eq(ts_runreport_add_check(r, &c, &err), -EINVAL);
    ck_assert_int_eq((int)ts_runreport_checks(r), 0);
    {
        ts_runreport_run dup = {.id = "r", .closed_ms = -1};

        ck_assert_int_eq(ts_runreport_add_run(r, &dup, &err), -EINVAL);
    }
    ts_runreport_free(r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("runreport");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, junit_names_as_pytest_writes_them);
    tcase_add_test(tc, junit_outcomes);
    tcase_add_test(tc, junit_escapes_hostile_text);
    tcase_add_test(tc, json_report_fields_and_round_trip);
    tcase_add_test(tc, unchanged_updates);
    tcase_add_test(tc, merge_three_shards);
    tcase_add_test(tc, repeats_of_one_name);
    tcase_add_test(tc, repeats_keep_the_first_hundred_lists);
    tcase_add_test(tc, hostile_reports_are_refused);
    tcase_add_test(tc, cut_long_reports);
    tcase_add_test(tc, times);
    tcase_add_test(tc, invalid_checks_are_refused);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
