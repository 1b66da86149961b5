/*
 * test_daemon_budget_valgrind — the paths of the memory budget, of
 * colliding names and of a run's records through a daemon run under
 * valgrind: a frame refused by its price before it is decoded (answered
 * with its id), a snapshot file refused by its price, a large drift
 * reported with its value cut, a name whose file another name holds
 * refused for check, rm and save, checks recorded in a run, status: no
 * error and no leak. A sanitizer build checks the same paths with LSan at
 * the clean stops of test_memory.sh's and the other suites' daemons.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util_daemon.h"
#include "util_test.h"

#ifndef __SANITIZE_ADDRESS__
/* A check request whose "actual" is an array of n empty maps, framed. */
static unsigned char *bomb_frame(const char *store, size_t n, size_t *len)
{
    char head[600];
    int hl = snprintf(head, sizeof(head),
                      "\x83\xa2id\x07\xa6method\xa5"
                      "check\xa6params\x83\xa5store\xd9%c%s\xa4name\xa4"
                      "bomb\xa6"
                      "actual",
                      (char)strlen(store), store);
    size_t payload = (size_t)hl + 5 + n;
    unsigned char *f = malloc(4 + payload);

    ck_assert_ptr_nonnull(f);
    f[0] = (unsigned char)(payload >> 24);
    f[1] = (unsigned char)(payload >> 16);
    f[2] = (unsigned char)(payload >> 8);
    f[3] = (unsigned char)payload;
    memcpy(f + 4, head, (size_t)hl);
    f[4 + hl] = 0xdd;
    f[5 + hl] = (unsigned char)(n >> 24);
    f[6 + hl] = (unsigned char)(n >> 16);
    f[7 + hl] = (unsigned char)(n >> 8);
    f[8 + hl] = (unsigned char)n;
    memset(f + 9 + hl, 0x80, n);
    *len = 4 + payload;
    return f;
}

START_TEST(valgrind_clean_through_the_budget)
{
    /* the default budget: valgrind's own memory is resident too */
    const char *calls = "[{\"tool\": \"s\", \"args\": {\"q\": \"x\"}}]";
    struct json_object *p, *reply = NULL, *error = NULL;
    char a[160], b[160], path[1200], *big;
    unsigned char *frame;
    size_t len;
    FILE *f;

    tdaemon_start_wrapped(&tdaemon_fx, tdaemon_valgrind, NULL, 30000);
    tdaemon_fx_conn = tdaemon_connect(tdaemon_fx.socket);
    /* 1 MB of empty maps (800 MB decoded, over 60% of 512 MiB): too_large,
     * with its id, nothing decoded */
    frame = bomb_frame(tdaemon_fx.store, 1u << 20, &len);
    (void)tdaemon_send_raw(tdaemon_fx_conn, frame, len);
    free(frame);
    ck_assert(tdaemon_read(tdaemon_fx_conn, &reply, 60000) == 0);
    ck_assert_msg(json_object_object_get_ex(reply, "id", NULL), "%s",
                  json_object_to_json_string(reply));
    ck_assert(json_object_object_get_ex(reply, "error", &error));
    ck_assert_str_eq(tstr(error, "code"), "too_large");
    ck_assert_int_eq(json_object_get_int64(json_object_object_get(reply, "id")), 7);
    json_object_put(reply);
    /* a snapshot file of 1.5 MB of empty objects (400 MB parsed): refused by its price */
    snprintf(path, sizeof(path), "mkdir -p '%s'", tdaemon_fx.store);
    ck_assert_int_eq(system(path), 0);
    snprintf(path, sizeof(path), "%s", tdaemon_snapshot_path(tdaemon_fx.store, "dense"));
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(
        "{\"schema_version\": 1, \"name\": \"dense\", \"approved\": true, \"source\": \"pytest\", "
        "\"calls\": [{\"tool\": \"t\", \"args\": {\"v\": [",
        f);
    for (int i = 0; i < 500000; i++)
        fputs(i ? ",{}" : "{}", f);
    fputs("]}}]}\n", f);
    fclose(f);
    p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    json_object_object_add(p, "name", json_object_new_string("dense"));
    ck_assert_ptr_nonnull(strstr(tdaemon_err(tdaemon_fx_conn, "show", p, "too_large"), "budget"));
    json_object_put(p);
    /* a drift of a value past what a report shows whole: FAILED, cut */
    ck_assert_str_eq(tdaemon_fx_outcome("vg", calls, NULL), "CREATED");
    tdaemon_fx_approve("vg");
    big = malloc((1u << 20) + 200);
    ck_assert_ptr_nonnull(big);
    len = (size_t)sprintf(big, "[{\"tool\": \"s\", \"args\": {\"q\": \"");
    memset(big + len, 'y', 1u << 20);
    strcpy(big + len + (1u << 20), "\"}}]");
    ck_assert_str_eq(tdaemon_fx_outcome("vg", big, NULL), "FAILED");
    free(big);
    /* colliding names: the other name's check, rm and save refused */
    util_colliding_names(a, b, sizeof(a));
    ck_assert_str_eq(tdaemon_fx_outcome(a, calls, NULL), "CREATED");
    p = tdaemon_fx_check_params(NULL, b, calls, NULL);
    tdaemon_err(tdaemon_fx_conn, "check", p, "collision");
    json_object_put(p);
    p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    json_object_object_add(p, "name", json_object_new_string(b));
    tdaemon_err(tdaemon_fx_conn, "rm", p, "collision");
    json_object_put(p);
    p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    json_object_object_add(
        p, "snapshot", tjson("{\"name\": \"placeholder\", \"calls\": [], \"source\": \"pytest\"}"));
    json_object_object_add(json_object_object_get(p, "snapshot"), "name",
                           json_object_new_string(b));
    tdaemon_err(tdaemon_fx_conn, "save", p, "collision");
    json_object_put(p);
    /* checks recorded in a run, the run closed */
    p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    reply = tdaemon_ok(tdaemon_fx_conn, "run.open", p);
    json_object_put(p);
    {
        char extra[128];

        snprintf(extra, sizeof(extra), "{\"run\": \"%s\"}", tstr(reply, "run"));
        ck_assert_str_eq(tdaemon_fx_outcome("vg", calls, extra), "PASSED");
        p = json_object_new_object();
        json_object_object_add(p, "run", json_object_new_string(tstr(reply, "run")));
        json_object_put(tdaemon_ok(tdaemon_fx_conn, "run.close", p));
        json_object_put(p);
    }
    json_object_put(reply);
    json_object_put(tdaemon_ok(tdaemon_fx_conn, "status", NULL));
    close(tdaemon_fx_conn);
    tdaemon_fx_conn = -1;
    tdaemon_stop_ok_within(&tdaemon_fx, 60000);
}
END_TEST
#endif

int main(void)
{
    Suite *s = suite_create("daemon_budget_valgrind");

#ifndef __SANITIZE_ADDRESS__ /* valgrind cannot run a sanitized daemon */
    TCase *tc = tdaemon_fixture_case("valgrind", false, NULL, 300);
    tcase_add_test(tc, valgrind_clean_through_the_budget);
    suite_add_tcase(s, tc);
#endif
    return util_run_suite(s);
}
