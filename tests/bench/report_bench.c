/*
 * report_bench — the drift report in-process (ts_report_drift, no socket).
 *
 *   report_bench [--calls C] [--changes K] [--repeat R]
 *
 * Two lists of C calls (default 1,000) that differ in K values spread over
 * the list (default 10), scored once; then R reports of them at width 100
 * with the JSON diff (what a FAILED check's reply carries). Prints one line:
 *   mode=report calls=C changes=K repeat=R ms_per_report=... score_ms=...
 *   write_ms=... lines=...
 * with two references measured in the same run: score_ms, one evaluation
 * of the same two lists (what the check did before the report), and
 * write_ms, writing both lists as pretty JSON (the text the JSON diff is
 * about).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "bench_common.h"
#include "lib/json/ts_json.h"
#include "lib/report/ts_report.h"
#include "lib/score/ts_score.h"

static struct json_object *calls(int n)
{
    char *text = bench_calls_json(n, 0);
    struct json_object *v = json_tokener_parse(text);

    free(text);
    if (v == NULL)
        bench_die("generated calls do not parse");
    return v;
}

/* K changes spread evenly: "limit" set to -1 in every (n / k)-th call. */
static void change(struct json_object *list, int k)
{
    int n = (int)json_object_array_length(list);

    for (int i = 0; i < k; i++) {
        struct json_object *call = json_object_array_get_idx(list, (size_t)(i * n / k + n / k / 2));
        json_object_object_add(json_object_object_get(call, "args"), "limit",
                               json_object_new_int(-1));
    }
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {{"calls", required_argument, NULL, 'c'},
                                             {"changes", required_argument, NULL, 'k'},
                                             {"repeat", required_argument, NULL, 'r'},
                                             {NULL, 0, NULL, 0}};
    int n = 1000, k = 10, repeat = 200, c;
    struct json_object *expected, *actual;
    ts_score_options so;
    ts_score_result r;
    ts_report_options opt;
    ts_error err;
    size_t lines = 0;
    uint64_t t0;
    double report_ms, score_ms, write_ms;

    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 'c')
            n = atoi(optarg);
        else if (c == 'k')
            k = atoi(optarg);
        else if (c == 'r')
            repeat = atoi(optarg);
        else
            bench_die("usage: report_bench [--calls C] [--changes K] [--repeat R]");
    }
    if (n < 1 || k < 1 || k > n || repeat < 1)
        bench_die("report_bench: counts must be positive, changes at most calls");
    expected = calls(n);
    actual = calls(n);
    change(actual, k);
    ts_score_options_default(&so);

    t0 = bench_now_ns();
    for (int i = 0; i < repeat; i++) {
        if (ts_evaluate(expected, actual, &so, &r, &err) < 0)
            bench_die("ts_evaluate: %s", err.message);
        ts_score_result_free(&r);
    }
    score_ms = (double)(bench_now_ns() - t0) / 1e6 / repeat;

    t0 = bench_now_ns();
    for (int i = 0; i < repeat; i++) {
        ts_buf b;
        ts_buf_init(&b, TS_BUF_UNLIMITED);
        if (ts_json_write_pretty(expected, &b, &err) < 0 ||
            ts_json_write_pretty(actual, &b, &err) < 0)
            bench_die("ts_json_write_pretty: %s", err.message);
        ts_buf_free(&b);
    }
    write_ms = (double)(bench_now_ns() - t0) / 1e6 / repeat;

    if (ts_evaluate(expected, actual, &so, &r, &err) < 0)
        bench_die("ts_evaluate: %s", err.message);
    ts_report_options_default(&opt);
    t0 = bench_now_ns();
    for (int i = 0; i < repeat; i++) {
        ts_buf b;
        ts_buf_init(&b, TS_BUF_UNLIMITED);
        if (ts_report_drift(expected, actual, &r, &opt, &b, &err) < 0)
            bench_die("ts_report_drift: %s", err.message);
        if (i == 0)
            for (size_t j = 0; j < b.len; j++)
                lines += b.data[j] == '\n';
        ts_buf_free(&b);
    }
    report_ms = (double)(bench_now_ns() - t0) / 1e6 / repeat;
    ts_score_result_free(&r);
    printf("mode=report calls=%d changes=%d repeat=%d ms_per_report=%.3f score_ms=%.3f "
           "write_ms=%.3f lines=%zu\n",
           n, k, repeat, report_ms, score_ms, write_ms, lines);
    json_object_put(expected);
    json_object_put(actual);
    return 0;
}
