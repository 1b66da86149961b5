/*
 * util_rules — helpers of the comparison-rules suites (see util_rules.h).
 */
#include "util_rules.h"

#include <check.h>
#include <string.h>

#include "util_test.h"

ts_rules *util_rules_of(const char *text)
{
    ts_rules *r = NULL;
    ts_error err;

    if (text == NULL)
        return NULL;
    ck_assert_msg(ts_rules_parse(text, strlen(text), "rules", &r, &err) == 0, "%s", err.message);
    return r;
}

util_rules_outcome util_rules_run(const char *rules, const char *expected, const char *actual,
                                  const ts_score_options *opt)
{
    struct json_object *e = util_json_c_parse(expected), *a = util_json_c_parse(actual);
    util_rules_outcome o;
    ts_error err;

    o.rules = util_rules_of(rules);
    ck_assert_msg(ts_rules_evaluate(o.rules, e, a, opt, false, &o.result, &o.applied, &err) == 0,
                  "%s", err.message);
    json_object_put(e);
    json_object_put(a);
    return o;
}

void util_rules_done(util_rules_outcome *o)
{
    ts_score_result_free(&o->result);
    ts_rules_applied_free(&o->applied);
    ts_rules_unref(o->rules);
}
