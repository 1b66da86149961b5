/*
 * score_bench — scoring in-process (ts_evaluate, no socket, no daemon).
 *
 *   score_bench [--checks N] [--large-calls C] [--large-repeat R]
 *
 * Prints two lines:
 *   mode=score_small ...: N evaluations of a 10-call actual list against the
 *     same 10-call expected list (the check a replay makes): ops_per_s,
 *     p50_us, p99_us — the in-process reference for the socket's cost.
 *   mode=score_large ...: R evaluations of two C-call lists (default 1,000;
 *     same tools, different argument values), ms_per_eval; and as its
 *     reference ref_ms: the time of C/10 evaluations of 10-call lists (the
 *     same number of calls in small lists: what linear scaling would cost).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "bench_common.h"
#include "ts_score.h"

static struct json_object *calls(int n, int variant)
{
    char *text = bench_calls_json(n, variant);
    struct json_object *v = json_tokener_parse(text);
    free(text);
    if (!v)
        bench_die("generated calls do not parse");
    return v;
}

static void evaluate(struct json_object *expected, struct json_object *actual,
                     const ts_score_options *opt, int want_pass)
{
    ts_score_result r;
    ts_error err;
    if (ts_evaluate(expected, actual, opt, &r, &err) < 0)
        bench_die("ts_evaluate: %s", err.message);
    if (want_pass >= 0 && (int)r.passed != want_pass)
        bench_die("ts_evaluate: passed=%d, expected %d", (int)r.passed, want_pass);
    ts_score_result_free(&r);
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {{"checks", required_argument, NULL, 'n'},
                                             {"large-calls", required_argument, NULL, 'c'},
                                             {"large-repeat", required_argument, NULL, 'r'},
                                             {NULL, 0, NULL, 0}};
    long checks = 10000;
    int large = 1000, repeat = 20;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'n':
            checks = atol(optarg);
            break;
        case 'c':
            large = atoi(optarg);
            break;
        case 'r':
            repeat = atoi(optarg);
            break;
        default:
            bench_die("usage: score_bench [--checks N] [--large-calls C] [--large-repeat R]");
        }
    }
    if (checks < 1 || large < 10 || repeat < 1)
        bench_die("score_bench: counts must be positive (large-calls >= 10)");
    ts_score_options opt;
    ts_score_options_default(&opt);

    struct json_object *expected = calls(10, 0), *actual = calls(10, 0);
    bench_lat lat = {0};
    uint64_t start = bench_now_ns();
    for (long i = 0; i < checks; i++) {
        uint64_t t0 = bench_now_ns();
        evaluate(expected, actual, &opt, 1);
        bench_lat_add(&lat, bench_now_ns() - t0);
    }
    double secs = (double)(bench_now_ns() - start) / 1e9;
    double p50 = (double)bench_lat_pct(&lat, 50) / 1e3, p99 = (double)bench_lat_pct(&lat, 99) / 1e3;
    bench_result("mode=score_small ops=%ld seconds=%.3f ops_per_s=%.1f p50_us=%.2f p99_us=%.2f",
                 checks, secs, (double)checks / secs, p50, p99);
    bench_lat_free(&lat);

    /* Reference: the same number of calls, as 10-call evaluations. */
    long small_evals = large / 10;
    start = bench_now_ns();
    for (int r = 0; r < repeat; r++)
        for (long i = 0; i < small_evals; i++)
            evaluate(expected, actual, &opt, 1);
    double ref_ms = (double)(bench_now_ns() - start) / 1e6 / repeat;
    json_object_put(expected);
    json_object_put(actual);

    expected = calls(large, 0);
    actual = calls(large, 1);
    start = bench_now_ns();
    for (int r = 0; r < repeat; r++)
        evaluate(expected, actual, &opt, 0);
    double ms = (double)(bench_now_ns() - start) / 1e6 / repeat;
    bench_result("mode=score_large calls=%d repeat=%d ms_per_eval=%.3f ref_ms=%.3f", large, repeat,
                 ms, ref_ms);
    json_object_put(expected);
    json_object_put(actual);
    return 0;
}
