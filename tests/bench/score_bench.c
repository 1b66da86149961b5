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
 *   mode=score_unordered ...: R evaluations under `order: unordered`
 *     (docs/rules.md) of two 1,000-call lists, 10 tools of 100 calls each,
 *     the actual list shuffled with a tenth of its values changed and many
 *     ties among the rest, ms_per_eval; and as its reference strict_ms: the
 *     same two lists scored in strict order.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "bench_common.h"
#include "lib/rules/ts_rules.h"
#include "lib/score/ts_score.h"

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

/* 1,000 calls of 10 tools; variant 1 is shuffled and a tenth changed. */
static struct json_object *parallel_calls(int variant)
{
    struct json_object *list = json_object_new_array();
    int order[1000];

    for (int i = 0; i < 1000; i++)
        order[i] = i;
    if (variant) { /* a fixed shuffle (a linear congruential generator) */
        unsigned seed = 42;
        for (int i = 999; i > 0; i--) {
            int j;
            seed = seed * 1103515245u + 12345u;
            j = (int)((seed >> 8) % (unsigned)(i + 1));
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    }
    for (int k = 0; k < 1000; k++) {
        int i = order[k];
        char text[160];
        snprintf(text, sizeof(text),
                 "{\"tool\": \"tool_%d\", \"args\": {\"query\": \"value %d\", \"limit\": %d, "
                 "\"page\": %d}}",
                 i % 10, (i / 10) % 50, i % 7, variant && i % 10 == 3 ? 99 : (i / 10) % 20);
        json_object_array_add(list, json_tokener_parse(text));
    }
    return list;
}

static double unordered_ms(const ts_rules *rules, struct json_object *expected,
                           struct json_object *actual, const ts_score_options *opt, int repeat)
{
    uint64_t start = bench_now_ns();

    for (int r = 0; r < repeat; r++) {
        ts_score_result res;
        ts_rules_applied applied;
        ts_error err;
        if (ts_rules_evaluate(rules, expected, actual, opt, false, &res, &applied, &err) < 0)
            bench_die("ts_rules_evaluate: %s", err.message);
        ts_score_result_free(&res);
        ts_rules_applied_free(&applied);
    }
    return (double)(bench_now_ns() - start) / 1e6 / repeat;
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

    static const char unordered[] = "{\"order\": \"unordered\"}";
    ts_rules *rules = NULL;
    ts_error err;
    if (ts_rules_parse(unordered, strlen(unordered), "bench", &rules, &err) < 0)
        bench_die("rules: %s", err.message);
    expected = parallel_calls(0);
    actual = parallel_calls(1);
    double strict_ms = unordered_ms(NULL, expected, actual, &opt, repeat);
    double unordered_time = unordered_ms(rules, expected, actual, &opt, repeat);
    bench_result("mode=score_unordered calls=1000 tools=10 repeat=%d ms_per_eval=%.3f "
                 "strict_ms=%.3f",
                 repeat, unordered_time, strict_ms);
    ts_rules_unref(rules);
    json_object_put(expected);
    json_object_put(actual);
    return 0;
}
