/*
 * util_report — shared helpers of the report suites (see util_report.h).
 */
#include "util_report.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "util_test.h"

char *util_report_with(const char *expected, const char *actual, bool strict,
                       const ts_report_options *opt)
{
    struct json_object *g = util_json_c_parse(expected), *t = util_json_c_parse(actual);
    ts_score_options so;
    ts_score_result r;
    ts_error err;
    ts_buf out;

    ts_score_options_default(&so);
    so.strict = strict;
    ck_assert_int_eq(ts_evaluate(g, t, &so, &r, &err), 0);
    ts_buf_init(&out, TS_BUF_UNLIMITED);
    ck_assert_msg(ts_report_drift(g, t, &r, opt, &out, &err) == 0, "%s", err.message);
    ts_score_result_free(&r);
    json_object_put(g);
    json_object_put(t);
    return ts_buf_detach(&out, NULL);
}

char *util_report(const char *expected, const char *actual, bool strict, bool color)
{
    ts_report_options opt;

    ts_report_options_default(&opt);
    opt.color = color;
    opt.json_diff = false;
    return util_report_with(expected, actual, strict, &opt);
}

void util_assert_report(const char *expected, const char *actual, bool strict, const char *want)
{
    char *got = util_report(expected, actual, strict, false);

    ck_assert_msg(strcmp(got, want) == 0, "report differs:\n--- got\n%s--- want\n%s", got, want);
    free(got);
}

char *util_report_differences(const char *expected, const char *actual)
{
    ts_report_options opt;
    char *text, *out, *o;

    ts_report_options_default(&opt);
    opt.width = 200;
    opt.json_diff = false;
    text = util_report_with(expected, actual, false, &opt);
    out = calloc(strlen(text) + 1, 1);
    ck_assert_ptr_nonnull(out);
    o = out;
    for (char *s = text; *s;) {
        char *nl = strchr(s, '\n');
        size_t len = (size_t)(nl - s) + 1;
        if (strncmp(s, "  calls[", 8) == 0 || strncmp(s, "+ calls[", 8) == 0 ||
            strncmp(s, "- calls[", 8) == 0 || strncmp(s, "      ", 6) == 0 ||
            strncmp(s, "  \xe2\x80\xa6 and", 9) == 0) {
            memcpy(o, s, len);
            o += len;
        }
        s = nl + 1;
    }
    free(text);
    return out;
}

size_t util_count(const char *hay, const char *needle)
{
    size_t n = 0;

    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}
