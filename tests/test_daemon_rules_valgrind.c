/*
 * test_daemon_rules_valgrind — every path of comparison rules through a
 * daemon run under valgrind (the project file with each kind of rule, the
 * rules param merged and refused, redaction on check and record, a
 * malformed file and its fix, the cached self score of the baseline's own
 * bytes): no error and no leak. A sanitizer build checks the same through
 * test_daemon_rules, whose every stop must be clean under LSan.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util_daemon.h"
#include "util_test.h"

#ifndef __SANITIZE_ADDRESS__
/* Every path of the rules under valgrind (a sanitizer build checks the
 * same with LSan at each fixture's clean stop). */
START_TEST(valgrind_clean_with_rules)
{
    const char *calls = "[{\"tool\": \"s\", \"args\": {\"q\": \"weather in x\", \"id\": 1, "
                        "\"key\": \"k1\", \"t\": 0.5, \"l\": [1, 2]}}, {\"tool\": \"log\"}, "
                        "{\"tool\": \"b\", \"args\": {\"n\": 1}}]";
    const char *drifted = "[{\"tool\": \"b\", \"args\": {\"n\": 2}}, {\"tool\": \"s\", \"args\": "
                          "{\"q\": \"weather in y\", \"id\": 2, \"key\": \"k2\", \"t\": 0.55, "
                          "\"l\": [2, 1]}}]";
    struct json_object *p;

    tdaemon_fx_write_config(
        "{\"ignore\": [\"*.args.id\"], \"redact\": [\"*.args.key\"], \"order\": "
        "\"unordered\", \"match\": {\"s.args.q\": {\"regex\": \"^weather in \"}, "
        "\"*.args.t\": {\"approx\": 0.1}, \"*.args.l\": {\"set\": true}}, \"tools\": "
        "{\"log\": {\"ignore\": true}}}");
    tdaemon_start_wrapped(&tdaemon_fx, tdaemon_valgrind, NULL, 30000);
    tdaemon_fx_conn = tdaemon_connect(tdaemon_fx.socket);
    ck_assert_str_eq(tdaemon_fx_outcome("vg", calls, NULL), "CREATED");
    tdaemon_fx_approve("vg");
    for (int i = 0; i < 3; i++) {
        ck_assert_str_eq(tdaemon_fx_outcome("vg", calls, NULL), "PASSED");
        ck_assert_str_eq(tdaemon_fx_outcome("vg", drifted, NULL), "FAILED");
        ck_assert_str_eq(
            tdaemon_fx_outcome("vg", drifted, "{\"rules\": {\"ignore\": [\"b.args.n\"]}}"),
            "PASSED");
    }
    p = tdaemon_fx_check_params(NULL, "vg", calls, "{\"rules\": {\"ignore\": [\"*.x\"]}}");
    tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_rules");
    json_object_put(p);
    p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    json_object_object_add(p, "name", json_object_new_string("vg-import"));
    json_object_object_add(p, "calls", tjson(calls));
    json_object_put(tdaemon_ok(tdaemon_fx_conn, "record", p));
    json_object_put(p);
    tdaemon_fx_write_config("{\"ignore\": [\"*.args..x\"]}");
    p = tdaemon_fx_check_params(NULL, "vg", calls, NULL);
    tdaemon_err(tdaemon_fx_conn, "check", p, "invalid_rules");
    json_object_put(p);
    tdaemon_fx_write_config(NULL);
    ck_assert_str_eq(tdaemon_fx_outcome("vg", drifted, NULL), "FAILED");
    close(tdaemon_fx_conn);
    tdaemon_fx_conn = -1;
    tdaemon_stop_ok_within(&tdaemon_fx, 30000);
}
END_TEST
#endif

int main(void)
{
    Suite *s = suite_create("daemon_rules_valgrind");

#ifndef __SANITIZE_ADDRESS__ /* valgrind cannot run a sanitized daemon */
    TCase *tc = tdaemon_fixture_case("valgrind", false, NULL, 240);
    tcase_add_test(tc, valgrind_clean_with_rules);
    suite_add_tcase(s, tc);
#endif
    return util_run_suite(s);
}
