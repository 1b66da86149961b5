/*
 * html_bench — the HTML report of a large run, made in-process (lib/html/ts_html),
 * for the browser half of the benchmark (tests/bench/html_bench.py).
 *
 *   html_bench [--checks N] [--failed F] [--repeat R] --out DIR
 *
 * One run of N checks (default 10,000) of which F FAILED (default 1,000,
 * each with its drift report, as the daemon writes it, and its baseline and
 * observed calls), a few CREATED, PENDING and CI errors, 50 flaky names
 * (observed three times, two lists), written as DIR/report.json and
 * DIR/page.html, plus DIR/static.html: the reference page, the same rows as
 * plain static HTML (what a generator without a script would write). Prints
 *   mode=html checks=N failed=F html_bytes=... json_bytes=...
 *   static_bytes=... html_ms=... json_ms=...
 * html_ms: rendering the page (tree to HTML), against json_ms, writing the
 * same report as JSON (references in the same run; the median of R runs).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "bench_common.h"
#include "lib/html/ts_html.h"
#include "lib/json/ts_json.h"
#include "lib/report/ts_report.h"
#include "lib/runreport/ts_runreport.h"
#include "lib/score/ts_score.h"

/* A list of 6 calls; variant changes one argument value. */
static struct json_object *calls(int i, int variant)
{
    char text[1024];

    snprintf(text, sizeof(text),
             "[{\"tool\": \"search_flights\", \"args\": {\"from\": \"PAR\", \"to\": \"NYC\", "
             "\"date\": \"2025-0%d-1%d\", \"passengers\": %d}},"
             " {\"tool\": \"get_weather\", \"args\": {\"city\": \"New York\", \"days\": 3}},"
             " {\"tool\": \"search_hotels\", \"args\": {\"city\": \"New York\", \"stars\": %d, "
             "\"max_price\": %d}},"
             " {\"tool\": \"book_flight\", \"args\": {\"flight_id\": \"AF%04d\", \"seat\": "
             "\"%s\"}},"
             " {\"tool\": \"book_hotel\", \"args\": {\"hotel_id\": \"H%05d\", \"nights\": 4}},"
             " {\"tool\": \"send_email\", \"args\": {\"to\": \"user%d@example.com\", \"subject\": "
             "\"Your trip to New York\"}}]",
             1 + i % 9, i % 10, 1 + (i + variant) % 4, 3 + variant % 2, 200 + 10 * (i % 30),
             i % 10000, variant ? "aisle" : "window", i, i);
    return json_tokener_parse(text);
}

static void add(ts_runreport *r, const char *name, const char *outcome, struct json_object *obs,
                struct json_object *base)
{
    ts_runreport_check c = {.name = name,
                            .test = name,
                            .outcome = outcome,
                            .score = 1,
                            .min_score = 1,
                            .duration_ms = 0.3,
                            .message = "",
                            .calls = obs};
    ts_score_options so;
    ts_score_result sr;
    ts_report_options ro;
    char message[600];
    ts_error err;
    ts_buf report;

    ts_buf_init(&report, TS_BUF_UNLIMITED);
    if (strcmp(outcome, "FAILED") == 0) {
        ts_score_options_default(&so);
        if (ts_evaluate(base, obs, &so, &sr, &err) < 0)
            bench_die("ts_evaluate: %s", err.message);
        ts_report_options_default(&ro);
        ro.width = 100;
        if (ts_report_drift(base, obs, &sr, &ro, &report, &err) < 0)
            bench_die("ts_report_drift: %s", err.message);
        c.score = sr.score;
        ts_score_result_free(&sr);
        c.report = report.data;
        c.baseline = base;
        snprintf(message, sizeof(message),
                 "snapshot '%s' drifted from its approved baseline (score %.2f < 1.00 required)",
                 name, c.score);
        c.message = message;
    } else if (strcmp(outcome, "PASSED") != 0) {
        c.score = -1;
    }
    if (ts_runreport_add_check(r, &c, &err) < 0)
        bench_die("ts_runreport_add_check: %s", err.message);
    ts_buf_free(&report);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static void write_file(const char *dir, const char *name, const char *data, size_t len)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0)
        bench_die("cannot write %s", path);
}

/* The reference page: every row as static HTML, and a filter that toggles
 * each row (what a page without lazy rendering does). */
static void static_page(ts_runreport *r, struct json_object *tree, ts_buf *out)
{
    struct json_object *checks = json_object_object_get(tree, "checks");

    (void)r;
    ts_buf_appends(out, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>static</title>"
                        "</head><body><ol id=\"l\">\n");
    for (size_t i = 0; i < json_object_array_length(checks); i++) {
        struct json_object *c = json_object_array_get_idx(checks, i);
        const char *name = json_object_get_string(json_object_object_get(c, "name"));
        const char *outcome = json_object_get_string(json_object_object_get(c, "outcome"));

        ts_buf_appendf(out, "<li class=\"%s\"><b>%s</b> ", outcome, outcome);
        ts_html_escape_text(name, strlen(name), out);
        ts_buf_appends(out, " <span>0.3 ms</span></li>\n");
    }
    ts_buf_appends(out, "</ol><script>window.filter=function(o){var l=document.getElementById('l')"
                        ".children;for(var i=0;i<l.length;i++)l[i].hidden=o!=='all'&&l[i]."
                        "className!==o;};requestAnimationFrame(function(){requestAnimationFrame("
                        "function(){performance.mark('toolscore-painted');});});</script>"
                        "</body></html>\n");
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {{"checks", required_argument, NULL, 'n'},
                                             {"failed", required_argument, NULL, 'f'},
                                             {"repeat", required_argument, NULL, 'r'},
                                             {"out", required_argument, NULL, 'o'},
                                             {NULL, 0, NULL, 0}};
    int n = 10000, failed = 1000, repeat = 5, c;
    const char *dir = NULL;
    ts_runreport *r = ts_runreport_new();
    ts_runreport_run run = {.id = "0123456789abcdef0123456789abcdef",
                            .store = "/ci/project/.toolscore/snapshots",
                            .label = "pytest",
                            .host = "ci-1",
                            .opened_ms = 1735732800000LL,
                            .closed_ms = 1735732990000LL};
    struct json_object *tree = NULL;
    double html_ms[32], json_ms[32];
    ts_buf page, json, ref;
    ts_error err;
    char name[160];

    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 'n')
            n = atoi(optarg);
        else if (c == 'f')
            failed = atoi(optarg);
        else if (c == 'r')
            repeat = atoi(optarg);
        else if (c == 'o')
            dir = optarg;
        else
            bench_die("usage: html_bench [--checks N] [--failed F] [--repeat R] --out DIR");
    }
    if (dir == NULL || n < 100 || failed < 0 || failed > n / 2 || repeat < 1 || repeat > 32)
        bench_die("html_bench: --out DIR, at least 100 checks, failed at most half, repeat 1-32");
    if (ts_runreport_add_run(r, &run, &err) < 0)
        bench_die("%s", err.message);
    for (int i = 0; i < n; i++) {
        int every = n / (failed ? failed : 1);
        struct json_object *base = calls(i, 0);
        struct json_object *obs = NULL;
        const char *outcome = "PASSED";

        snprintf(name, sizeof(name),
                 "tests/agents/test_module_%03d.py::test_trip_planner[case-%05d]", i % 100, i);
        if (failed > 0 && i % every == every / 2 && i / every < failed) {
            outcome = "FAILED";
            obs = calls(i, 1 + i % 3);
        } else if (i % 997 == 1) {
            outcome = "CREATED";
        } else if (i % 991 == 2) {
            outcome = "PENDING";
        } else if (i % 983 == 3) {
            outcome = "ERROR_MISSING_IN_CI";
        }
        add(r, name, outcome, obs != NULL ? obs : base, base);
        if (i % (n / 50) == 7) { /* a flaky name: two more observations, one of them new */
            struct json_object *other = calls(i, 2);

            add(r, name, "PASSED", base, base);
            add(r, name, "FAILED", other, base);
            json_object_put(other);
        }
        json_object_put(obs);
        json_object_put(base);
    }
    if (ts_runreport_json_tree(r, &tree, &err) < 0)
        bench_die("%s", err.message);
    for (int k = 0; k < repeat; k++) {
        uint64_t t0 = bench_now_ns();

        ts_buf_init(&page, TS_BUF_UNLIMITED);
        if (ts_html_render(tree, NULL, &page, &err) < 0)
            bench_die("ts_html_render: %s", err.message);
        html_ms[k] = (double)(bench_now_ns() - t0) / 1e6;
        t0 = bench_now_ns();
        ts_buf_init(&json, TS_BUF_UNLIMITED);
        if (ts_runreport_json(r, &json, &err) < 0)
            bench_die("ts_runreport_json: %s", err.message);
        json_ms[k] = (double)(bench_now_ns() - t0) / 1e6;
        if (k + 1 < repeat) {
            ts_buf_free(&page);
            ts_buf_free(&json);
        }
    }
    qsort(html_ms, (size_t)repeat, sizeof(double), compare_double);
    qsort(json_ms, (size_t)repeat, sizeof(double), compare_double);
    ts_buf_init(&ref, TS_BUF_UNLIMITED);
    static_page(r, tree, &ref);
    write_file(dir, "page.html", page.data, page.len);
    write_file(dir, "report.json", json.data, json.len);
    write_file(dir, "static.html", ref.data, ref.len);
    printf("mode=html checks=%lld failed=%d html_bytes=%zu json_bytes=%zu static_bytes=%zu "
           "html_ms=%.1f json_ms=%.1f\n",
           (long long)ts_runreport_checks(r), failed, page.len, json.len, ref.len,
           html_ms[repeat / 2], json_ms[repeat / 2]);
    ts_buf_free(&page);
    ts_buf_free(&json);
    ts_buf_free(&ref);
    json_object_put(tree);
    ts_runreport_free(r);
    return 0;
}
