/*
 * test_observation — the kept observation's file (lib/check/ts_observation.c):
 * what is written reads back the same, the calls id, and every file that is
 * not exactly an observation refused with a message naming the file and
 * what is wrong.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"
#include "lib/check/ts_check.h"
#include "lib/score/ts_score.h"
#include "util_test.h"

static ts_observation *make(const char *name, const char *outcome, const char *run)
{
    struct json_object *calls = util_calls_of_letters("abc");
    struct json_object *baseline = util_calls_of_letters("ab");
    struct json_object *rules = util_json_c_parse("{\"ignore\": [\"*.args.request_id\"]}");
    ts_score_options opt;
    ts_observation *o = NULL;
    ts_error err;

    ts_score_options_default(&opt);
    opt.min_score = 0.75;
    opt.strict = true;
    opt.weights.selection_accuracy = 0.1;
    opt.weights.argument_f1 = 0.2;
    opt.weights.sequence_accuracy = 0.3;
    opt.weights.redundant_rate = 0.4;
    ck_assert_int_eq(
        ts_observation_new(name, calls, outcome, baseline, run, "t.py::t", &opt, rules, &o, &err),
        0);
    json_object_put(calls);
    json_object_put(baseline);
    json_object_put(rules);
    return o;
}

/* o written, as a new string. */
static char *written(const ts_observation *o)
{
    ts_buf b;
    ts_error err;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_observation_serialize(o, &b, &err), 0);
    return ts_buf_detach(&b, NULL);
}

START_TEST(round_trip)
{
    ts_observation *o = make("flow::α", "FAILED", "r-1");
    char *text = written(o);
    ts_observation *back = NULL;
    char id[TS_OBSERVATION_ID_LEN + 1];
    struct json_object *baseline = util_calls_of_letters("ab");
    ts_error err;
    char *again;

    ck_assert_int_eq(ts_observation_parse(text, strlen(text), "obs", &back, &err), 0);
    ck_assert_str_eq(back->name, "flow::α");
    ck_assert_str_eq(back->outcome, "FAILED");
    ck_assert_str_eq(back->run, "r-1");
    ck_assert_str_eq(back->test, "t.py::t");
    ck_assert_str_eq(back->observed_at, o->observed_at);
    ck_assert_int_eq(ts_observation_calls_id(baseline, id, &err), 0);
    ck_assert_str_eq(back->baseline, id);
    ck_assert(ts_score_options_equal(&back->options, &o->options)); /* exact doubles */
    ck_assert(json_object_equal(back->calls, o->calls));
    ck_assert(json_object_equal(back->rules, o->rules));
    again = written(back); /* a fixed point */
    ck_assert_str_eq(again, text);
    free(again);
    free(text);
    ts_observation_free(back);
    ts_observation_free(o);
    json_object_put(baseline);
}
END_TEST

START_TEST(null_run_and_test)
{
    struct json_object *calls = util_calls_of_letters("a");
    ts_score_options opt;
    ts_observation *o = NULL;
    ts_observation *back = NULL;
    ts_error err;
    char *text;

    ts_score_options_default(&opt);
    ck_assert_int_eq(
        ts_observation_new("p", calls, "PENDING", calls, NULL, NULL, &opt, NULL, &o, &err), 0);
    text = written(o);
    ck_assert_ptr_nonnull(strstr(text, "\"run\": null"));
    ck_assert_ptr_nonnull(strstr(text, "\"rules\": null"));
    ck_assert_int_eq(ts_observation_parse(text, strlen(text), "obs", &back, &err), 0);
    ck_assert_ptr_null(back->run);
    ck_assert_ptr_null(back->test);
    ck_assert_str_eq(back->outcome, "PENDING");
    ck_assert_int_eq(
        ts_observation_new("p", calls, "PASSED", calls, NULL, NULL, &opt, NULL, &o, &err), -EINVAL);
    free(text);
    ts_observation_free(back);
    ts_observation_free(o);
    json_object_put(calls);
}
END_TEST

START_TEST(calls_id_is_sha1_of_compact_json)
{
    struct json_object *calls = util_json_c_parse("[{\"tool\": \"a\", \"args\": {\"x\": 1}}]");
    char id[TS_OBSERVATION_ID_LEN + 1];
    ts_error err;

    ck_assert_int_eq(ts_observation_calls_id(calls, id, &err), 0);
    /* python3 -c 'import hashlib,json; print(hashlib.sha1(json.dumps(
     *   [{"tool":"a","args":{"x":1}}], ensure_ascii=False).encode()).hexdigest())' */
    ck_assert_str_eq(id, "403aa04b914da5cc471f1a3bde38f5f313c4b469");
    json_object_put(calls);
}
END_TEST

START_TEST(long_labels_are_cut_at_a_character)
{
    struct json_object *calls = util_calls_of_letters("a");
    char label[TS_OBSERVATION_MAX_LABEL + 8];
    ts_score_options opt;
    ts_observation *o = NULL;
    ts_error err;

    memset(label, 'x', TS_OBSERVATION_MAX_LABEL - 1);
    memcpy(label + TS_OBSERVATION_MAX_LABEL - 1, "é", 2); /* straddles the limit */
    strcpy(label + TS_OBSERVATION_MAX_LABEL + 1, "tail");
    ts_score_options_default(&opt);
    ck_assert_int_eq(
        ts_observation_new("n", calls, "FAILED", calls, label, label, &opt, NULL, &o, &err), 0);
    ck_assert_uint_eq(strlen(o->run), TS_OBSERVATION_MAX_LABEL - 1);
    ck_assert_uint_eq(strlen(o->test), TS_OBSERVATION_MAX_LABEL - 1);
    ts_observation_free(o);
    json_object_put(calls);
}
END_TEST

/* text with the member key's value replaced by value (JSON), parsed: the
 * error message must hold want. */
static void refused(const char *key, const char *value, const char *want)
{
    ts_observation *o = make("n", "FAILED", "r");
    char *text = written(o);
    struct json_object *obj = util_json_c_parse(text);
    ts_observation *back = NULL;
    ts_error err;
    char *bad;

    if (value == NULL)
        json_object_object_del(obj, key);
    else
        json_object_object_add(obj, key, util_json_c_parse(value));
    bad = util_json_compact(obj);
    ck_assert_int_lt(
        ts_observation_parse(bad, strlen(bad), "stores/k/observations/n.json", &back, &err), 0);
    ck_assert_ptr_null(back);
    ck_assert_str_eq(err.code, TS_ERR_INVALID_SNAPSHOT);
    ck_assert_msg(strstr(err.message, "stores/k/observations/n.json: ") == err.message &&
                      strstr(err.message, want) != NULL,
                  "%s=%s: '%s' lacks '%s'", key, value ? value : "(absent)", err.message, want);
    free(bad);
    json_object_put(obj);
    free(text);
    ts_observation_free(o);
}

START_TEST(hostile_files_are_refused)
{
    refused("observation", "2", "unknown observation version");
    refused("observation", "\"1\"", "wrong type of member observation");
    refused("name", NULL, "missing member name");
    refused("name", "7", "wrong type of member name");
    refused("outcome", "\"PASSED\"", "unknown outcome PASSED");
    refused("baseline", "\"abc\"", "baseline is not a calls id");
    refused("baseline", "\"403AA04B914DA5CC471F1A3BDE38F5F313C4B469\"", "not a calls id");
    refused("observed_at",
            "\"" /* longer than a timestamp */
            "2025-01-01T00:00:00.000000+00:00 and much more text after it\"",
            "member too long: observed_at");
    refused("run", "[]", "wrong type of member run");
    refused("min_score", "1.5", "min_score out of [0, 1]");
    refused("min_score", "\"1\"", "wrong number min_score");
    refused("strict", "1", "wrong type of member strict");
    refused("weights", "{\"selection_accuracy\": 1}", "exactly the four weights");
    refused("weights",
            "{\"selection_accuracy\": -1, \"argument_f1\": 1, \"sequence_accuracy\": 1, "
            "\"redundant_rate\": 1}",
            "negative weight selection_accuracy");
    refused("weights",
            "{\"selection_accuracy\": 0, \"argument_f1\": 0, \"sequence_accuracy\": 0, "
            "\"redundant_rate\": 0}",
            "add up to 0");
    refused("rules", "[]", "wrong type of member rules");
    refused("rules", "{\"ignore\": 3}", "rules");
    refused("rules", "{\"nosuch\": []}", "rules");
    refused("calls", "{}", "wrong type of member calls");
    refused("calls", "[{\"args\": {}}]", "tool");
    refused("calls", "[{\"tool\": \"\"}]", "tool");
}
END_TEST

START_TEST(broken_text_is_refused)
{
    const char *texts[] = {"", "{", "[]", "null", "{\"observation\": 1", "\xff"};
    ts_observation *back = NULL;
    ts_error err;
    char *big;

    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        ck_assert_int_lt(ts_observation_parse(texts[i], strlen(texts[i]), "f", &back, &err), 0);
        ck_assert_str_eq(err.code, TS_ERR_INVALID_SNAPSHOT);
        ck_assert_msg(strncmp(err.message, "f: ", 3) == 0, "%s", err.message);
    }
    big = calloc(1, TS_OBSERVATION_MAX_BYTES + 2);
    memset(big, ' ', TS_OBSERVATION_MAX_BYTES + 1);
    ck_assert_int_eq(ts_observation_parse(big, TS_OBSERVATION_MAX_BYTES + 1, "f", &back, &err),
                     -E2BIG);
    ck_assert_str_eq(err.code, TS_ERR_TOO_LARGE);
    free(big);
}
END_TEST

START_TEST(too_large_observations_are_not_written)
{
    struct json_object *calls = json_object_new_array();
    struct json_object *args = json_object_new_object();
    char *value = malloc(TS_OBSERVATION_MAX_BYTES);
    ts_score_options opt;
    ts_observation *o = NULL;
    ts_error err;
    ts_buf b;

    memset(value, 'v', TS_OBSERVATION_MAX_BYTES - 1);
    value[TS_OBSERVATION_MAX_BYTES - 1] = '\0';
    json_object_object_add(args, "v", json_object_new_string(value));
    struct json_object *call = json_object_new_object();
    json_object_object_add(call, "tool", json_object_new_string("t"));
    json_object_object_add(call, "args", args);
    json_object_array_add(calls, call);
    ts_score_options_default(&opt);
    ck_assert_int_eq(
        ts_observation_new("n", calls, "FAILED", calls, NULL, NULL, &opt, NULL, &o, &err), 0);
    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_observation_serialize(o, &b, &err), -E2BIG);
    ck_assert_str_eq(err.code, TS_ERR_TOO_LARGE);
    ck_assert_ptr_nonnull(strstr(err.message, "observation of 'n'"));
    ts_buf_free(&b);
    ts_observation_free(o);
    json_object_put(calls);
    free(value);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("observation");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, round_trip);
    tcase_add_test(tc, null_run_and_test);
    tcase_add_test(tc, calls_id_is_sha1_of_compact_json);
    tcase_add_test(tc, long_labels_are_cut_at_a_character);
    tcase_add_test(tc, hostile_files_are_refused);
    tcase_add_test(tc, broken_text_is_refused);
    tcase_add_test(tc, too_large_observations_are_not_written);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
