/*
 * test_report_golden — the drift report of realistic drifts, compared with
 * the reports kept in tests/data/report/<case>.w<width>.txt at widths 60,
 * 100 and 200 (the JSON diff included): a nested change with a call added,
 * a call removed, two calls swapped, long values, unicode and wide
 * characters, tools and keys changed, and one change in 500 and in 50,000
 * calls. Every line fits the width (a single unbreakable word aside), and
 * the long lists fold to a few lines.
 *
 * The small cases are tests/data/report/<case>.json ({"expected",
 * "actual"}); the long lists are generated here. After a deliberate change
 * of the layout, TS_UPDATE_GOLDEN=1 rewrites the kept reports (then read
 * the diff before committing it).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/ts_report.h"
#include "util_test.h"

typedef struct golden_case {
    const char *name;
    int generated;    /* calls in a generated list; 0: read tests/data/report/<name>.json */
    size_t max_lines; /* at most this many lines at every width; 0: no limit */
} golden_case;

static const golden_case cases[] = {
    {"nested_change_and_added_call", 0, 0},
    {"removed_call", 0, 0},
    {"reordered_calls", 0, 0},
    {"long_values", 0, 0},
    {"unicode_wide", 0, 0},
    {"keys_and_tool_changed", 0, 0},
    {"calls_500", 500, 29},
    {"calls_50000", 50000, 39},
};

static const size_t widths[] = {60, 100, 200};

#define N_CASES (sizeof(cases) / sizeof(cases[0]))

/* n calls of seven tools in turn; the actual list differs in one value of
 * the middle call ("limit" 10 becomes 20). */
static void generate(int n, struct json_object **expected, struct json_object **actual)
{
    static const char *const tools[] = {"search",     "fetch_page",    "summarize",  "lookup_user",
                                        "send_email", "create_ticket", "get_weather"};

    *expected = json_object_new_array();
    *actual = json_object_new_array();
    for (int side = 0; side < 2; side++) {
        for (int i = 0; i < n; i++) {
            struct json_object *call = json_object_new_object(), *args = json_object_new_object();
            char query[32];
            snprintf(query, sizeof(query), "item %d", i);
            json_object_object_add(call, "tool", json_object_new_string(tools[i % 7]));
            json_object_object_add(args, "query", json_object_new_string(query));
            json_object_object_add(args, "page", json_object_new_int(i % 5));
            json_object_object_add(args, "limit",
                                   json_object_new_int(side == 1 && i == n / 2 ? 20 : 10));
            json_object_object_add(call, "args", args);
            json_object_array_add(side == 0 ? *expected : *actual, call);
        }
    }
}

static void load(const golden_case *c, struct json_object **expected, struct json_object **actual)
{
    char rel[256];
    char *text;
    struct json_object *doc;

    if (c->generated > 0) {
        generate(c->generated, expected, actual);
        return;
    }
    snprintf(rel, sizeof(rel), "report/%s.json", c->name);
    text = util_read_data(rel, NULL);
    doc = util_json_c_parse(text);
    free(text);
    *expected = json_object_get(json_object_object_get(doc, "expected"));
    *actual = json_object_get(json_object_object_get(doc, "actual"));
    json_object_put(doc);
}

/* Every line at most width cells, unless it is one word (after its
 * indentation and a tip's bullet) that no line could hold. */
static void assert_fits(const char *text, size_t width, const char *what)
{
    size_t lines = 0;

    for (const char *s = text; *s; lines++) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        size_t cells = ts_repr_width(s, len);
        if (cells > width) {
            const char *w = s, *end = s + len;
            while (w < end && (*w == ' ' || (unsigned char)*w >= 0x80))
                w++; /* indentation and "•" */
            ck_assert_msg(memchr(w, ' ', (size_t)(end - w)) == NULL,
                          "%s: line %zu has %zu cells (width %zu): %.*s", what, lines + 1, cells,
                          width, (int)len, s);
        }
        ck_assert_msg(nl != NULL, "%s: the last line has no newline", what);
        s = nl + 1;
    }
}

static size_t count_lines(const char *text)
{
    size_t n = 0;

    for (const char *s = text; (s = strchr(s, '\n')) != NULL; s++)
        n++;
    return n;
}

static char *render(struct json_object *expected, struct json_object *actual, size_t width)
{
    ts_score_result r;
    ts_report_options opt;
    ts_error err;
    ts_buf out;

    ck_assert_int_eq(ts_evaluate(expected, actual, NULL, &r, &err), 0);
    ts_report_options_default(&opt);
    opt.width = width;
    ts_buf_init(&out, TS_BUF_UNLIMITED);
    ck_assert_msg(ts_report_drift(expected, actual, &r, &opt, &out, &err) == 0, "%s", err.message);
    ts_score_result_free(&r);
    return ts_buf_detach(&out, NULL);
}

START_TEST(golden_reports)
{
    const golden_case *c = &cases[_i];
    struct json_object *expected, *actual;
    const char *update = getenv("TS_UPDATE_GOLDEN");

    load(c, &expected, &actual);
    for (size_t k = 0; k < sizeof(widths) / sizeof(widths[0]); k++) {
        char rel[256], what[300], path[1024];
        char *got = render(expected, actual, widths[k]);
        char *want;

        snprintf(rel, sizeof(rel), "report/%s.w%zu.txt", c->name, widths[k]);
        snprintf(what, sizeof(what), "%s at width %zu", c->name, widths[k]);
        assert_fits(got, widths[k], what);
        if (c->max_lines > 0)
            ck_assert_msg(count_lines(got) <= c->max_lines, "%s: %zu lines, at most %zu", what,
                          count_lines(got), c->max_lines);
        if (update != NULL && update[0] != '\0') {
            snprintf(path, sizeof(path), "%s/tests/data/%s", util_source_dir(), rel);
            util_write_file(path, got, strlen(got));
        }
        want = util_read_data(rel, NULL);
        ck_assert_msg(strcmp(got, want) == 0,
                      "%s differs from tests/data/%s:\n--- got\n%s--- kept\n%s", what, rel, got,
                      want);
        free(want);
        free(got);
    }
    json_object_put(expected);
    json_object_put(actual);
}
END_TEST

/* What the goldens show, said outright: each difference by index and tool
 * at its deepest path, added and missing calls whole, the 0-based indices
 * of the table and the lines agreeing, the score never shown as passing. */
START_TEST(golden_content)
{
    struct json_object *expected, *actual;
    char *text;

    load(&cases[0], &expected, &actual);
    text = render(expected, actual, 100);
    ck_assert_ptr_nonnull(
        strstr(text, "\n  calls[4] book_flight  args.passenger.loyalty.tier: \"gold\" → "
                     "\"platinum\"\n"));
    ck_assert_ptr_nonnull(strstr(text, "\n+ calls[6] refund(order_id='A-1', amount=20.0)\n"));
    ck_assert_ptr_nonnull(strstr(text, "\n 4 | book_flight("));
    ck_assert_ptr_nonnull(strstr(text, "| passenger.loyalty.tier: 'gold' ≠ 'platinum'\n"));
    ck_assert_ptr_nonnull(strstr(text, "\n+6 | — EXTRA —"));
    ck_assert_ptr_nonnull(strstr(text, "new tool the baseline never calls: 'refund'"));
    ck_assert_ptr_null(strstr(text, "redundant"));
    ck_assert_ptr_nonnull(strstr(text, "\n-          \"tier\": \"gold\",\n+          \"tier\": "
                                       "\"platinum\",\n"));
    free(text);
    json_object_put(expected);
    json_object_put(actual);

    load(&cases[1], &expected, &actual);
    text = render(expected, actual, 100);
    ck_assert_ptr_nonnull(strstr(text, "\n- calls[2] search_hotels(city='New York', nights=3, "
                                       "max_price=250)\n"));
    free(text);
    json_object_put(expected);
    json_object_put(actual);

    load(&cases[6], &expected, &actual);
    text = render(expected, actual, 100);
    ck_assert_ptr_nonnull(strstr(text, "… 248 unchanged calls (calls[0]..calls[247]) …\n"));
    ck_assert_ptr_nonnull(strstr(text, "\n  calls[250] create_ticket  args.limit: 10 → 20\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nscore 0.9998 < 1.00 required"));
    free(text);
    json_object_put(expected);
    json_object_put(actual);
}
END_TEST

static Suite *golden_suite(void)
{
    Suite *s = suite_create("report_golden");
    TCase *tc = tcase_create("golden");

    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, golden_reports, 0, (int)N_CASES);
    tcase_add_test(tc, golden_content);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return util_run_suite(golden_suite());
}
