/*
 * test_daemon_rules — comparison rules through a real daemon (docs/rules.md,
 * docs/protocol.md "check"): the project's config.json beside the store
 * (read at every check, a change applies to the next one, a malformed file
 * an error for every check and record of that store while other stores are
 * served), the check's rules param merged over it, redaction before
 * anything is written, kept or reported, the reply's "rules" key (and its
 * absence without rules), and the replay of the baseline's own bytes
 * answering exactly as the usual path does under rules.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util_daemon.h"
#include "util_test.h"

#define SHORTCUT_LINE "the observed calls are the baseline's own bytes"

static struct json_object *member(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;

    json_object_object_get_ex(o, key, &v);
    return v;
}

#define WITH_ID_1 "[{\"tool\": \"search\", \"args\": {\"q\": \"x\", \"request_id\": \"r-1\"}}]"
#define WITH_ID_2 "[{\"tool\": \"search\", \"args\": {\"q\": \"x\", \"request_id\": \"r-2\"}}]"

START_TEST(no_rules_no_rules_key)
{
    static const char *const configs[] = {NULL, "{}", "{\"order\": \"strict\", \"ignore\": []}",
                                          "{\"tools\": {\"x\": {\"ignore\": false}}}"};

    for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) {
        char name[32];
        struct json_object *r;
        tdaemon_fx_write_config(configs[i]);
        snprintf(name, sizeof(name), "plain%zu", i);
        r = tdaemon_fx_check_ok(name, WITH_ID_1, NULL);
        ck_assert_str_eq(tstr(r, "outcome"), "CREATED");
        ck_assert_msg(member(r, "rules") == NULL && !json_object_object_get_ex(r, "rules", NULL),
                      "a rules key without rules (%s)", configs[i] ? configs[i] : "no file");
        json_object_put(r);
        tdaemon_fx_approve(name);
        r = tdaemon_fx_check_ok(name, WITH_ID_2, NULL);
        ck_assert_str_eq(tstr(r, "outcome"), "FAILED");
        ck_assert(!json_object_object_get_ex(r, "rules", NULL));
        ck_assert_ptr_null(strstr(tstr(r, "report"), "by rules"));
        json_object_put(r);
    }
}
END_TEST

START_TEST(project_rules_apply_and_follow_the_file)
{
    struct json_object *r, *rules, *ignored;

    ck_assert_str_eq(tdaemon_fx_outcome("ids", WITH_ID_1, NULL), "CREATED");
    tdaemon_fx_approve("ids");
    ck_assert_str_eq(tdaemon_fx_outcome("ids", WITH_ID_2, NULL), "FAILED");
    tdaemon_fx_write_config("{\"ignore\": [\"*.args.request_id\"]}");
    r = tdaemon_fx_check_ok("ids", WITH_ID_2, NULL);
    ck_assert_str_eq(tstr(r, "outcome"), "PASSED");
    rules = member(r, "rules");
    ck_assert_ptr_nonnull(rules);
    ck_assert_str_eq(tstr(rules, "order"), "strict");
    ignored = json_object_array_get_idx(member(rules, "ignored"), 0);
    ck_assert_str_eq(tstr(ignored, "pattern"), "*.args.request_id");
    ck_assert_int_eq(json_object_get_int(member(ignored, "expected")), 1);
    ck_assert_int_eq(json_object_get_int(member(ignored, "actual")), 1);
    json_object_put(r);
    /* edited: the next check sees it */
    tdaemon_fx_write_config("{\"ignore\": [\"*.args.q\"]}");
    ck_assert_str_eq(tdaemon_fx_outcome("ids", WITH_ID_2, NULL), "FAILED");
    /* removed: no rules */
    tdaemon_fx_write_config(NULL);
    ck_assert_str_eq(tdaemon_fx_outcome("ids", WITH_ID_2, NULL), "FAILED");
    /* kept past the racy margin, then changed: still seen at once */
    tdaemon_fx_write_config("{\"ignore\": [\"*.args.request_id\"]}");
    sleep(4);
    ck_assert_str_eq(tdaemon_fx_outcome("ids", WITH_ID_2, NULL), "PASSED");
    ck_assert_str_eq(tdaemon_fx_outcome("ids", WITH_ID_2, NULL), "PASSED");
    tdaemon_fx_write_config("{\"ignore\": [\"*.args.qq\"]}");
    ck_assert_str_eq(tdaemon_fx_outcome("ids", WITH_ID_2, NULL), "FAILED");
}
END_TEST

START_TEST(malformed_project_file_fails_every_check_of_its_store)
{
    char other[600], msg[1024];
    struct json_object *p, *r;
    const char *config_path = tdaemon_fx_write_config(
        "{\n  \"ignore\": [\"*.args.request_id\"],\n  \"ordr\": \"unordered\"\n}\n");

    p = tdaemon_fx_check_params(NULL, "broken", WITH_ID_1, NULL);
    snprintf(msg, sizeof(msg), "%s", tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_rules"));
    ck_assert_msg(strstr(msg, config_path) != NULL, "file not named: %s", msg);
    ck_assert_msg(strstr(msg, "line 3, column 3") != NULL, "no position: %s", msg);
    ck_assert_msg(strstr(msg, "unknown key 'ordr'") != NULL, "key not named: %s", msg);
    /* every check, again, and a record too; nothing was written */
    tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_rules");
    json_object_put(p);
    p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    json_object_object_add(p, "name", json_object_new_string("imported"));
    json_object_object_add(p, "calls", tjson(WITH_ID_1));
    tdaemon_err(tdaemon_fx_conn, "record", p, "invalid_rules");
    json_object_put(p);
    ck_assert_int_eq(access(tdaemon_snapshot_path(tdaemon_fx.store, "broken"), F_OK), -1);
    /* another store is served as usual */
    snprintf(other, sizeof(other), "%s/elsewhere/snaps", tdaemon_fx.dir);
    p = tdaemon_fx_check_params(other, "fine", WITH_ID_1, NULL);
    r = tdaemon_ok(tdaemon_fx_conn, "check", p);
    ck_assert_str_eq(tstr(r, "outcome"), "CREATED");
    json_object_put(r);
    json_object_put(p);
    /* syntax errors, patterns, regexes: each named with its place */
    tdaemon_fx_write_config("{\"ignore\": [\"*.args..x\"]}");
    p = tdaemon_fx_check_params(NULL, "broken", WITH_ID_1, NULL);
    snprintf(msg, sizeof(msg), "%s", tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_rules"));
    ck_assert_msg(strstr(msg, "line 1, column 13: ignore[0]: pattern '*.args..x', column 8") !=
                      NULL,
                  "%s", msg);
    tdaemon_fx_write_config("{\"match\": {\"*.args.q\": {\"regex\": \"(\"}}}");
    snprintf(msg, sizeof(msg), "%s", tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_rules"));
    ck_assert_msg(strstr(msg, "invalid regular expression") != NULL, "%s", msg);
    tdaemon_fx_write_config("{\"ignore\": [");
    snprintf(msg, sizeof(msg), "%s", tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_rules"));
    ck_assert_msg(strstr(msg, "line 1, column 13") != NULL, "%s", msg);
    /* fixed: served again */
    tdaemon_fx_write_config("{\"ignore\": [\"*.args.request_id\"]}");
    r = tdaemon_ok(tdaemon_fx_conn, "check", p);
    ck_assert_str_eq(tstr(r, "outcome"), "CREATED");
    json_object_put(r);
    json_object_put(p);
}
END_TEST

START_TEST(rules_param_merged_over_the_project)
{
    const char *reordered =
        "[{\"tool\": \"book\"}, {\"tool\": \"search\", \"args\": {\"q\": \"x\", "
        "\"request_id\": \"r-9\"}}]";
    struct json_object *p, *r, *rules;
    char msg[1024];

    tdaemon_fx_write_config("{\"ignore\": [\"*.args.request_id\"]}");
    tdaemon_fx_outcome("merged",
                       "[{\"tool\": \"search\", \"args\": {\"q\": \"x\", \"request_id\": "
                       "\"r-1\"}}, {\"tool\": \"book\"}]",
                       NULL);
    tdaemon_fx_approve("merged");
    ck_assert_str_eq(tdaemon_fx_outcome("merged", reordered, NULL), "FAILED");
    r = tdaemon_fx_check_ok("merged", reordered, "{\"rules\": {\"order\": \"unordered\"}}");
    ck_assert_str_eq(tstr(r, "outcome"), "PASSED");
    rules = member(r, "rules");
    ck_assert_str_eq(tstr(rules, "order"), "unordered");
    ck_assert_int_eq(json_object_array_length(member(rules, "ignored")), 1);
    ck_assert_int_eq(json_object_get_int(member(rules, "moved")), 2);
    json_object_put(r);
    /* a bad param: named "rules", with the key or pattern */
    p = tdaemon_fx_check_params(NULL, "merged", reordered,
                                "{\"rules\": {\"order\": \"sideways\"}}");
    snprintf(msg, sizeof(msg), "%s", tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_rules"));
    ck_assert_msg(strncmp(msg, "rules: 'order' must be one of", 29) == 0, "%s", msg);
    json_object_put(p);
    p = tdaemon_fx_check_params(NULL, "merged", reordered, "{\"rules\": {\"ignore\": [\"*.x\"]}}");
    snprintf(msg, sizeof(msg), "%s", tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_rules"));
    ck_assert_msg(strstr(msg, "rules: ignore[0]: pattern '*.x', column 3") != NULL, "%s", msg);
    json_object_put(p);
    p = tdaemon_fx_check_params(NULL, "merged", reordered, "{\"rules\": [\"*.args.x\"]}");
    tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_argument");
    json_object_put(p);
    /* nil is no rules */
    r = tdaemon_fx_check_ok("merged", reordered, "{\"rules\": null}");
    ck_assert_str_eq(tstr(r, "outcome"), "FAILED");
    json_object_put(r);
}
END_TEST

START_TEST(redacted_before_anything_is_kept)
{
    const char *secret1 = "[{\"tool\": \"login\", \"args\": {\"user\": \"u\", \"api_key\": "
                          "\"sk-SECRET-1\"}}]";
    const char *secret2 = "[{\"tool\": \"login\", \"args\": {\"user\": \"v\", \"api_key\": "
                          "\"sk-SECRET-2\"}}]";
    struct json_object *p, *r, *redacted;
    char *file, *text;

    tdaemon_fx_write_config("{\"redact\": [\"*.args.api_key\"]}");
    r = tdaemon_fx_check_ok("secret", secret1, NULL);
    ck_assert_str_eq(tstr(r, "outcome"), "CREATED");
    redacted = json_object_array_get_idx(member(member(r, "rules"), "redacted"), 0);
    ck_assert_int_eq(json_object_get_int(member(redacted, "actual")), 1);
    json_object_put(r);
    file = tdaemon_slurp(tdaemon_snapshot_path(tdaemon_fx.store, "secret"));
    ck_assert_ptr_nonnull(file);
    ck_assert_ptr_null(strstr(file, "sk-SECRET"));
    ck_assert_ptr_nonnull(strstr(file, "\"api_key\": \"[redacted]\""));
    free(file);
    tdaemon_fx_approve("secret");
    /* another key: the same value compares as redacted on both sides */
    ck_assert_str_eq(tdaemon_fx_outcome("secret",
                                        "[{\"tool\": \"login\", \"args\": {\"user\": \"u\", "
                                        "\"api_key\": \"sk-other\"}}]",
                                        NULL),
                     "PASSED");
    /* FAILED: neither the report nor the kept observation holds the secret */
    r = tdaemon_fx_check_ok("secret", secret2, NULL);
    ck_assert_str_eq(tstr(r, "outcome"), "FAILED");
    ck_assert_ptr_null(strstr(tstr(r, "report"), "sk-SECRET"));
    ck_assert_ptr_nonnull(
        strstr(tstr(r, "report"), "redacted by rules: 1 value at *.args.api_key"));
    json_object_put(r);
    p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    r = tdaemon_ok(tdaemon_fx_conn, "review", p);
    text = strdup(json_object_to_json_string(r));
    ck_assert_ptr_nonnull(strstr(text, "secret"));
    ck_assert_msg(strstr(text, "sk-SECRET") == NULL, "kept: %s", text);
    free(text);
    json_object_put(r);
    json_object_put(p);
    /* a trace import is redacted too */
    p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    json_object_object_add(p, "name", json_object_new_string("imported"));
    json_object_object_add(p, "calls", tjson(secret1));
    r = tdaemon_ok(tdaemon_fx_conn, "record", p);
    json_object_put(r);
    json_object_put(p);
    file = tdaemon_slurp(tdaemon_snapshot_path(tdaemon_fx.store, "imported"));
    ck_assert_ptr_null(strstr(file, "sk-SECRET"));
    free(file);
}
END_TEST

/* The reply to the baseline's own bytes (the shortcut) and to the same
 * calls with other bytes (the usual path) are the same under rules. */
START_TEST(own_bytes_answer_as_the_usual_path_under_rules)
{
    static const char *const rules[] = {
        "{\"tools\": {\"log\": {\"ignore\": true}}}",
        "{\"ignore\": [\"*.args.when\"], \"order\": \"unordered\"}",
        "{\"match\": {\"*.args.q\": {\"regex\": \"^never$\"}}, \"redact\": [\"*.args.q\"]}",
    };
    const char *calls = "[{\"tool\": \"search\", \"args\": {\"q\": \"x\", \"when\": 1}}, "
                        "{\"tool\": \"log\", \"args\": {\"m\": \"hi\"}}]";
    const char *same_other_bytes = "[{\"args\": {\"when\": 1, \"q\": \"x\"}, \"tool\": "
                                   "\"search\"}, {\"args\": {\"m\": \"hi\"}, \"tool\": \"log\"}]";
    struct json_object *r;
    char *file;

    r = tdaemon_fx_check_ok("own", calls, "{\"update\": true}");
    json_object_put(r);
    file = tdaemon_slurp(tdaemon_snapshot_path(tdaemon_fx.store, "own"));
    free(file);
    sleep(4); /* past the snapshot cache's margin: the file is kept */
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        struct json_object *a, *b;
        const char *ta, *tb;
        int before;
        tdaemon_fx_write_config(rules[i]);
        /* the file as the daemon wrote it: the calls' keys in its order */
        before = tdaemon_fx_log_count(SHORTCUT_LINE);
        a = tdaemon_fx_check_ok("own", calls, NULL);
        ck_assert_msg(tdaemon_fx_log_count(SHORTCUT_LINE) == before + 1, "%s: no shortcut",
                      rules[i]);
        b = tdaemon_fx_check_ok("own", same_other_bytes, NULL);
        ck_assert_int_eq(tdaemon_fx_log_count(SHORTCUT_LINE), before + 1);
        ta = json_object_to_json_string(a);
        tb = json_object_to_json_string(b);
        ck_assert_msg(strcmp(ta, tb) == 0, "%s:\n  own bytes: %s\n  usual:     %s", rules[i], ta,
                      tb);
        ck_assert_str_eq(tstr(a, "outcome"), "PASSED");
        ck_assert_ptr_nonnull(member(a, "rules"));
        if (i == 0)
            ck_assert_int_eq(json_object_get_int(member(member(a, "result"), "total_calls")), 1);
        /* and again: from the cache, keyed by the rules */
        json_object_put(b);
        b = tdaemon_fx_check_ok("own", calls, NULL);
        ck_assert_str_eq(json_object_to_json_string(b), ta);
        json_object_put(a);
        json_object_put(b);
    }
}
END_TEST

START_TEST(unordered_large_lists_on_the_pool)
{
    char *e = malloc(1 << 16), *a = malloc(1 << 16);
    size_t le = 0, la = 0;
    struct json_object *r;

    le += (size_t)snprintf(e + le, 1 << 16, "[");
    la += (size_t)snprintf(a + la, 1 << 16, "[");
    for (int i = 0; i < 200; i++) {
        le +=
            (size_t)snprintf(e + le, (1 << 16) - le, "%s{\"tool\": \"t%d\", \"args\": {\"i\": %d}}",
                             i ? ", " : "", i % 5, i);
        la +=
            (size_t)snprintf(a + la, (1 << 16) - la, "%s{\"tool\": \"t%d\", \"args\": {\"i\": %d}}",
                             i ? ", " : "", (199 - i) % 5, 199 - i);
    }
    snprintf(e + le, (1 << 16) - le, "]");
    snprintf(a + la, (1 << 16) - la, "]");
    r = tdaemon_fx_check_ok("big", e, "{\"update\": true}");
    json_object_put(r);
    ck_assert_str_eq(tdaemon_fx_outcome("big", a, NULL), "FAILED");
    tdaemon_fx_write_config("{\"order\": \"unordered\"}");
    r = tdaemon_fx_check_ok("big", a, NULL);
    ck_assert_str_eq(tstr(r, "outcome"), "PASSED");
    ck_assert_int_eq(json_object_get_int(member(member(r, "rules"), "moved")), 200);
    json_object_put(r);
    free(e);
    free(a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("daemon_rules");
    TCase *tc = tdaemon_fixture_case("rules", true, NULL, 60);

    tcase_add_test(tc, no_rules_no_rules_key);
    tcase_add_test(tc, project_rules_apply_and_follow_the_file);
    tcase_add_test(tc, malformed_project_file_fails_every_check_of_its_store);
    tcase_add_test(tc, rules_param_merged_over_the_project);
    tcase_add_test(tc, redacted_before_anything_is_kept);
    tcase_add_test(tc, own_bytes_answer_as_the_usual_path_under_rules);
    tcase_add_test(tc, unordered_large_lists_on_the_pool);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
