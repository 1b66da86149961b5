/*
 * test_html — the HTML report's renderer (lib/html/ts_html*): the escape of
 * every context (HTML text, attributes, the JSON data island: "</script>",
 * "<!--", U+2028/2029), a report full of hostile strings rendered inert
 * (its values only as escaped text or inside the island, read back
 * exactly), hostile report trees refused naming the member with nothing
 * appended, the empty run, orphans only for complete runs, the flaky names
 * (the report's section, else its repeats), the FAILED checks' alignment,
 * the script-hash CSP, and the same bytes for the same report. The page in
 * a browser is tests/test_html_page.sh's.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sha2.h>

#include "lib/html/ts_html.h"
#include "lib/json/ts_json.h"
#include "lib/runreport/ts_runreport.h"
#include "util_test.h"

static char *esc(int (*fn)(const char *, size_t, ts_buf *), const char *s, size_t len)
{
    ts_buf b;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_int_eq(fn(s, len, &b), 0);
    if (b.data == NULL)
        return strdup("");
    return ts_buf_detach(&b, NULL);
}

START_TEST(escapes_html_text_and_attributes)
{
    const char *tin = "<script>a&b \"q\" 'x'</script>\n\tend";
    const char *ain = "x\"><img src=x onerror=alert(1)>\n\r\t";
    char *t = esc(ts_html_escape_text, tin, strlen(tin));
    char *a = esc(ts_html_escape_attr, ain, strlen(ain));
    const char *bin = "a\xff\xfe"
                      "b\x01\x1b[31mc\x7f";
    char *bad = esc(ts_html_escape_text, bin, strlen(bin));
    char *ok = esc(ts_html_escape_text, "caf\xc3\xa9 \xe2\x80\xa8 \xf0\x9f\x98\x80", 14);

    ck_assert_str_eq(t, "&lt;script&gt;a&amp;b &quot;q&quot; &#39;x&#39;&lt;/script&gt;\n\tend");
    ck_assert_str_eq(a, "x&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&#10;&#13;&#9;");
    /* bytes that are not UTF-8, control characters and DEL: U+FFFD */
    ck_assert_str_eq(bad, "a\xef\xbf\xbd\xef\xbf\xbd"
                          "b\xef\xbf\xbd\xef\xbf\xbd[31mc\xef\xbf\xbd");
    ck_assert_str_eq(ok, "caf\xc3\xa9 \xe2\x80\xa8 \xf0\x9f\x98\x80");
    free(t);
    free(a);
    free(bad);
    free(ok);
}
END_TEST

START_TEST(escapes_the_data_island)
{
    const char *json = "{\"n\": \"</script><!-- <script>&\xe2\x80\xa8\xe2\x80\xa9\\u0000\"}";
    char *e = esc(ts_html_escape_json, json, strlen(json));
    struct json_object *back = NULL;

    ck_assert_str_eq(e, "{\"n\": \"\\u003c/script\\u003e\\u003c!-- \\u003cscript\\u003e\\u0026"
                        "\\u2028\\u2029\\u0000\"}");
    /* the same JSON value */
    ck_assert_int_eq(ts_json_parse(e, strlen(e), 0, &back, NULL), 0);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(back, "n")),
                     "</script><!-- <script>&\xe2\x80\xa8\xe2\x80\xa9");
    json_object_put(back);
    free(e);
}
END_TEST

/* ---- pages ------------------------------------------------------------- */

#define EVIL "</script><script>alert(1)</script><img src=x onerror=alert(2)><!-- \xe2\x80\xa8"

/* A report of one run: the checks given as (name, outcome, observed,
 * baseline) with JSON texts. */
static ts_runreport *report(bool partial, const char *const (*checks)[4], size_t n)
{
    ts_runreport *r = ts_runreport_new();
    const char *reasons[] = {EVIL};
    ts_runreport_run run = {.id = "run-" EVIL,
                            .store = "/s/" EVIL,
                            .label = EVIL,
                            .host = EVIL,
                            .opened_ms = 1735732800000LL,
                            .closed_ms = 1735732805000LL,
                            .partial = partial,
                            .reasons = reasons,
                            .nreasons = partial ? 1 : 0};
    ts_error err;

    ck_assert_msg(ts_runreport_add_run(r, &run, &err) == 0, "%s", err.message);
    for (size_t i = 0; i < n; i++) {
        struct json_object *obs = checks[i][2] ? util_json_c_parse(checks[i][2]) : NULL;
        struct json_object *base = checks[i][3] ? util_json_c_parse(checks[i][3]) : NULL;
        ts_runreport_check c = {.name = checks[i][0],
                                .test = "tests/t.py::" EVIL,
                                .outcome = checks[i][1],
                                .score = 0.5,
                                .min_score = 1,
                                .duration_ms = 1.25,
                                .message = EVIL,
                                .report = strcmp(checks[i][1], "FAILED") == 0 ? EVIL "\n" : NULL,
                                .calls = obs,
                                .baseline = base};

        ck_assert_msg(ts_runreport_add_check(r, &c, &err) == 0, "%s", err.message);
        json_object_put(obs);
        json_object_put(base);
    }
    return r;
}

static char *render(ts_runreport *r, const ts_html_options *opt)
{
    struct json_object *tree = NULL;
    ts_error err;
    ts_buf b;

    ck_assert_int_eq(ts_runreport_json_tree(r, &tree, &err), 0);
    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_msg(ts_html_render(tree, opt, &b, &err) == 0, "%s", err.message);
    json_object_put(tree);
    return ts_buf_detach(&b, NULL);
}

static size_t count(const char *page, const char *s)
{
    size_t n = 0;

    for (const char *p = page; (p = strcasestr(p, s)) != NULL; p++)
        n++;
    return n;
}

/* The data island, parsed. */
static struct json_object *island(const char *page)
{
    const char *start = strstr(page, "id=\"toolscore-data\">");
    const char *end;
    struct json_object *o = NULL;
    ts_error err;

    ck_assert_ptr_nonnull(start);
    start += strlen("id=\"toolscore-data\">");
    end = strstr(start, "</script>");
    ck_assert_ptr_nonnull(end);
    for (const char *p = start; p < end; p++) {
        ck_assert_msg(*p != '<' && *p != '>' && *p != '&', "markup in the island");
        ck_assert_msg(memcmp(p, "\xe2\x80\xa8", 3) != 0 && memcmp(p, "\xe2\x80\xa9", 3) != 0,
                      "U+2028 or U+2029 as such in the island");
    }
    ck_assert_msg(ts_json_parse(start, (size_t)(end - start), 0, &o, &err) == 0, "%s", err.message);
    return o;
}

static struct json_object *at(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;

    ck_assert_msg(json_object_object_get_ex(o, key, &v), "no %s", key);
    return v;
}

#define OBS "[{\"tool\": \"search\", \"args\": {\"q\": \"" EVIL "\"}}, {\"tool\": \"book\"}]"
#define BASE "[{\"tool\": \"search\", \"args\": {\"q\": \"flights\"}}, {\"tool\": \"book\"}]"

START_TEST(hostile_values_render_inert)
{
    const char *const checks[][4] = {
        {"a" EVIL, "FAILED", OBS, BASE},
        {"b" EVIL, "PASSED", BASE, NULL},
        {"c" EVIL, "ERROR_MISSING_IN_CI", OBS, NULL},
    };
    ts_runreport *r = report(false, checks, 3);
    struct json_object *orphans = util_json_c_parse("[\"o"
                                                    "<img src=x onerror=alert(3)>\"]");
    ts_html_options opt;
    struct json_object *d, *rows, *details, *calls;
    char *page;

    ts_html_options_default(&opt);
    opt.orphans = orphans;
    opt.title = "T" EVIL;
    page = render(r, &opt);
    /* The page's own two scripts, and nothing the report brought. */
    ck_assert_int_eq(count(page, "<script"), 2);
    ck_assert_int_eq(count(page, "</script"), 2);
    ck_assert_int_eq(count(page, "<img"), 0);
    ck_assert_int_eq(count(page, "<!--"), 0);
    ck_assert_ptr_nonnull(strstr(page, "<title>T&lt;/script&gt;&lt;script&gt;alert(1)"));
    /* attribute (the run's store) and text (its label) */
    ck_assert_ptr_nonnull(strstr(page, "title=\"store: /s/&lt;/script&gt;"));
    ck_assert_ptr_nonnull(strstr(page, "<td>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"
                                       "&lt;img src=x onerror=alert(2)&gt;&lt;!-- \xe2\x80\xa8"));
    d = island(page);
    rows = at(d, "checks");
    details = at(d, "details");
    calls = at(d, "calls");
    ck_assert_int_eq(json_object_array_length(rows), 3);
    ck_assert_str_eq(
        json_object_get_string(json_object_array_get_idx(json_object_array_get_idx(rows, 0), 0)),
        "a" EVIL);
    /* PASSED has no details; FAILED has its lists, by id, and their alignment */
    ck_assert_int_eq(
        json_object_get_int(json_object_array_get_idx(json_object_array_get_idx(rows, 1), 6)), -1);
    ck_assert_int_eq(json_object_array_length(details), 2);
    {
        struct json_object *f = json_object_array_get_idx(details, 0);
        const char *oid = json_object_get_string(json_object_array_get_idx(f, 2));
        const char *bid = json_object_get_string(json_object_array_get_idx(f, 3));
        struct json_object *ops = json_object_array_get_idx(f, 4);

        ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(f, 0)), EVIL);
        ck_assert_str_eq(
            json_object_get_string(json_object_object_get(
                json_object_object_get(json_object_array_get_idx(at(calls, oid), 0), "args"), "q")),
            EVIL);
        ck_assert_ptr_nonnull(at(calls, bid));
        ck_assert_int_eq(json_object_array_length(ops), 1);
        ck_assert_int_eq(
            json_object_get_int(json_object_array_get_idx(json_object_array_get_idx(ops, 0), 2)),
            2);
        ck_assert_str_eq(
            json_object_get_string(json_object_array_get_idx(json_object_array_get_idx(ops, 0), 0)),
            "e"); /* the same tools: search's args changed, book equal */
    }
    /* the CI error: no baseline, no alignment */
    ck_assert_ptr_null(json_object_array_get_idx(json_object_array_get_idx(details, 1), 3));
    ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(at(d, "orphans"), 0)),
                     "o<img src=x onerror=alert(3)>");
    json_object_put(d);
    free(page);
    json_object_put(orphans);
    ts_runreport_free(r);
}
END_TEST

START_TEST(same_report_same_bytes_and_the_csp_hash)
{
    const char *const checks[][4] = {{"n", "FAILED", OBS, BASE}};
    ts_runreport *r = report(false, checks, 1);
    char *a = render(r, NULL);
    char *b = render(r, NULL);
    const char *csp = strstr(a, "script-src 'sha256-");
    const char *body = strstr(a, "<script>");
    const char *end;
    uint8_t digest[SHA256_DIGEST_LENGTH];
    char want[64];
    SHA2_CTX ctx;
    FILE *f;

    ck_assert_str_eq(a, b);
    ck_assert_ptr_nonnull(csp);
    ck_assert_ptr_nonnull(body);
    body += strlen("<script>");
    end = strstr(body, "</script>");
    SHA256Init(&ctx);
    SHA256Update(&ctx, (const uint8_t *)body, (size_t)(end - body));
    SHA256Final(digest, &ctx);
    /* base64 through the shell's coreutils, as a second opinion */
    f = fopen("/tmp/ts-test-html-digest", "wb");
    ck_assert_ptr_nonnull(f);
    fwrite(digest, 1, sizeof(digest), f);
    fclose(f);
    f = popen("base64 -w0 /tmp/ts-test-html-digest", "r");
    ck_assert_ptr_nonnull(fgets(want, sizeof(want), f));
    pclose(f);
    unlink("/tmp/ts-test-html-digest");
    ck_assert_msg(strncmp(csp + strlen("script-src 'sha256-"), want, strlen(want)) == 0,
                  "the CSP hash is not the script's (%s)", want);
    free(a);
    free(b);
    ts_runreport_free(r);
}
END_TEST

START_TEST(the_empty_run)
{
    ts_runreport *r = report(false, NULL, 0);
    char *page = render(r, NULL);
    struct json_object *d = island(page);

    ck_assert_ptr_nonnull(strstr(page, "toolscore: nothing was checked"));
    ck_assert_ptr_nonnull(strstr(page, "<span class=\"n\">0</span> all"));
    ck_assert_int_eq(json_object_array_length(at(d, "checks")), 0);
    /* complete, but no store was read */
    ck_assert_ptr_null(at(d, "orphans"));
    ck_assert_ptr_nonnull(strstr(json_object_get_string(at(d, "orphans_note")), "not read"));
    json_object_put(d);
    free(page);
    ts_runreport_free(r);
}
END_TEST

START_TEST(orphans_of_complete_runs_only)
{
    struct json_object *orphans = util_json_c_parse("[\"unused\"]");
    ts_runreport *r = report(true, NULL, 0);
    ts_html_options opt;
    struct json_object *d;
    char *page;

    ts_html_options_default(&opt);
    opt.orphans = orphans;
    page = render(r, &opt);
    d = island(page);
    ck_assert_ptr_null(at(d, "orphans"));
    ck_assert_ptr_nonnull(strstr(json_object_get_string(at(d, "orphans_note")), "complete runs"));
    ck_assert_ptr_nonnull(strstr(page, "partial (&lt;/script&gt;"));
    json_object_put(d);
    free(page);
    ts_runreport_free(r);
    json_object_put(orphans);
}
END_TEST

START_TEST(flaky_names_from_repeats_or_the_section)
{
    const char *const checks[][4] = {
        {"f", "PASSED", BASE, NULL},
        {"f", "FAILED", OBS, BASE},
        {"same", "PASSED", BASE, NULL},
        {"same", "PASSED", BASE, NULL},
    };
    ts_runreport *r = report(false, checks, 4);
    struct json_object *tree = NULL;
    struct json_object *d;
    ts_buf b;
    char *page = render(r, NULL);

    d = island(page);
    ck_assert_int_eq(json_object_array_length(at(d, "flaky_names")), 1);
    ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(at(d, "flaky_names"), 0)),
                     "f");
    ck_assert_ptr_nonnull(strstr(page, "<span class=\"n\">1</span> flaky"));
    ck_assert_int_eq(json_object_array_length(at(d, "repeats")), 2);
    /* the report's own flaky section (lib/flaky/ts_flaky): "f" varied */
    ck_assert_int_eq(json_object_array_length(at(d, "flaky")), 1);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(
                         json_object_array_get_idx(at(d, "flaky"), 0), "name")),
                     "f");
    json_object_put(d);
    free(page);
    /* A report without a flaky section (a shard's older file): the names
     * whose repeats saw two lists. */
    ck_assert_int_eq(ts_runreport_json_tree(r, &tree, NULL), 0);
    json_object_object_del(tree, "flaky");
    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_html_render(tree, NULL, &b, NULL), 0);
    d = island(b.data);
    ck_assert_int_eq(json_object_array_length(at(d, "flaky_names")), 1);
    ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(at(d, "flaky_names"), 0)),
                     "f");
    ck_assert_ptr_null(at(d, "flaky"));
    json_object_put(d);
    ts_buf_free(&b);
    /* A report with a flaky section: its names, its entries as they are. */
    json_object_object_add(
        tree, "flaky",
        util_json_c_parse("[{\"name\": \"same\", \"line\": \"flaky: same\", \"varied\": []}]"));
    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_html_render(tree, NULL, &b, NULL), 0);
    d = island(b.data);
    ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(at(d, "flaky_names"), 0)),
                     "same");
    ck_assert_str_eq(json_object_get_string(json_object_object_get(
                         json_object_array_get_idx(at(d, "flaky"), 0), "line")),
                     "flaky: same");
    json_object_put(d);
    ts_buf_free(&b);
    json_object_put(tree);
    ts_runreport_free(r);
}
END_TEST

/* A valid report tree with member path replaced by the JSON value. */
static void assert_refused(const char *key, int index, const char *member, const char *value,
                           const char *want)
{
    const char *const checks[][4] = {{"n", "FAILED", OBS, BASE}};
    ts_runreport *r = report(false, checks, 1);
    struct json_object *tree = NULL;
    struct json_object *target;
    ts_error err;
    ts_buf b;

    ck_assert_int_eq(ts_runreport_json_tree(r, &tree, NULL), 0);
    target = tree;
    if (key != NULL && index >= 0)
        target = json_object_array_get_idx(json_object_object_get(tree, key), (size_t)index);
    else if (key != NULL)
        target = json_object_object_get(tree, key);
    json_object_object_add(target, member, value ? util_json_c_parse(value) : NULL);
    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ts_buf_appends(&b, "kept");
    ck_assert_int_lt(ts_html_render(tree, NULL, &b, &err), 0);
    ck_assert_msg(strstr(err.message, want) != NULL, "'%s' does not say '%s'", err.message, want);
    ck_assert_str_eq(b.data, "kept"); /* nothing appended */
    ts_buf_free(&b);
    json_object_put(tree);
    ts_runreport_free(r);
}

START_TEST(hostile_trees_are_refused)
{
    ts_error err;
    ts_buf b;
    struct json_object *notobj = util_json_c_parse("[1]");
    struct json_object *bad_orphans = util_json_c_parse("{\"a\": 1}");
    const char *const checks[][4] = {{"n", "PASSED", BASE, NULL}};
    ts_runreport *r = report(false, checks, 1);
    struct json_object *tree = NULL;
    ts_html_options opt;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_int_lt(ts_html_render(notobj, NULL, &b, &err), 0);
    ck_assert_str_eq(err.code, "invalid_argument");
    assert_refused(NULL, -1, "format", "\"other\"", "not a toolscore run report");
    assert_refused(NULL, -1, "version", "2", "version 2");
    assert_refused(NULL, -1, "checks", "{}", "checks: must be an array");
    assert_refused("checks", 0, "name", "7", "checks[0].name: must be a string");
    assert_refused("checks", 0, "outcome", "\"<b>\"", "checks[0].outcome: not an outcome");
    assert_refused("checks", 0, "run", "\"elsewhere\"", "not one of the report's runs");
    assert_refused("checks", 0, "calls_id", "\"</script>\"", "16 lower-case hex digits");
    assert_refused("runs", 0, "id", "null", "runs[0].id: must not be null");
    assert_refused("runs", 0, "partial_reasons", "[1]", "must hold strings");
    assert_refused(NULL, -1, "calls", "{\"<x>\": []}", "calls: must map list ids");
    assert_refused(NULL, -1, "duplicates", "[{\"name\": \"x\", \"tests\": [1]}]",
                   "duplicates[0]: tests must hold strings");
    assert_refused(NULL, -1, "repeats", "[{\"name\": 1}]", "repeats[0].name: must be a string");
    assert_refused(NULL, -1, "flaky", "[{\"name\": []}]", "flaky[0].name: must be a string");
    ck_assert_int_eq(ts_runreport_json_tree(r, &tree, NULL), 0);
    ts_html_options_default(&opt);
    opt.orphans = bad_orphans;
    ck_assert_int_lt(ts_html_render(tree, &opt, &b, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "orphans"));
    ck_assert_ptr_null(b.data);
    ts_buf_free(&b);
    json_object_put(tree);
    json_object_put(notobj);
    json_object_put(bad_orphans);
    ts_runreport_free(r);
}
END_TEST

/* A page past its buffer's limit: too_large, nothing half written. */
START_TEST(the_size_limit)
{
    const char *const checks[][4] = {{"n", "FAILED", OBS, BASE}};
    ts_runreport *r = report(false, checks, 1);
    struct json_object *tree = NULL;
    ts_error err;
    ts_buf b;

    ck_assert_int_eq(ts_runreport_json_tree(r, &tree, NULL), 0);
    ts_buf_init(&b, 4096);
    ck_assert_int_lt(ts_html_render(tree, NULL, &b, &err), 0);
    ck_assert_str_eq(err.code, "too_large");
    ck_assert_ptr_null(ts_buf_detach(&b, NULL));
    ts_buf_free(&b);
    json_object_put(tree);
    ts_runreport_free(r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("html");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, escapes_html_text_and_attributes);
    tcase_add_test(tc, escapes_the_data_island);
    tcase_add_test(tc, hostile_values_render_inert);
    tcase_add_test(tc, same_report_same_bytes_and_the_csp_hash);
    tcase_add_test(tc, the_empty_run);
    tcase_add_test(tc, orphans_of_complete_runs_only);
    tcase_add_test(tc, flaky_names_from_repeats_or_the_section);
    tcase_add_test(tc, hostile_trees_are_refused);
    tcase_add_test(tc, the_size_limit);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
