/*
 * test_daemon_faults — toolscored under injected system-call failures: the
 * LD_PRELOAD shim tests/shim_fsync.c makes the directory fsync shared by a
 * group of writes (group commit, daemon/jobs.c) fail with EIO. Every write
 * of the group must be answered "written but not durable", none
 * acknowledged; the daemon stays up and serves the next write once the
 * fault is cleared.
 *
 * Under a sanitizer build the daemon needs the ASan runtime first in the
 * preload list: the test finds the runtime it runs with itself (the same
 * one the daemon links) in /proc/self/maps and puts it in front.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util_daemon.h"

#define WRITERS 8
#define FAULT_DELAY_MS "300"

static tdaemon daemon_;

static void setup(void)
{
    tdaemon_prepare(&daemon_);
}

static void teardown(void)
{
    tdaemon_cleanup(&daemon_);
}

/* Path of the ASan runtime this process runs with, or "" (not ASan). */
static void asan_runtime(char *out, size_t outsz)
{
    FILE *fp = fopen("/proc/self/maps", "r");
    char line[4096];

    out[0] = '\0';
    if (fp == NULL)
        return;
    while (fgets(line, sizeof(line), fp) != NULL) {
        char *path = strchr(line, '/');

        if (path == NULL || strstr(path, "/libasan.so") == NULL)
            continue;
        path[strcspn(path, "\n")] = '\0';
        snprintf(out, outsz, "%s", path);
        break;
    }
    fclose(fp);
}

static int count_lines(const char *path)
{
    char *text = tdaemon_slurp(path);
    int n = 0;

    for (const char *p = text; p != NULL && *p != '\0'; p++)
        n += *p == '\n';
    free(text);
    return n;
}

static void set_fault(const char *control, bool on)
{
    if (on) {
        int fd = open(control, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

        ck_assert_int_ge(fd, 0);
        close(fd);
    } else {
        ck_assert_int_eq(unlink(control), 0);
    }
}

static struct json_object *write_params(const char *method, const char *name, int i)
{
    struct json_object *p = json_object_new_object();
    char calls[128];

    snprintf(calls, sizeof(calls), "[{\"tool\": \"save\", \"args\": {\"n\": %d}}]", i);
    json_object_object_add(p, "store", json_object_new_string(daemon_.store));
    json_object_object_add(p, "name", json_object_new_string(name));
    json_object_object_add(p, strcmp(method, "record") == 0 ? "calls" : "actual", tjson(calls));
    return p;
}

static bool file_named(const char *dir, const char *name)
{
    char cmd[1200];

    snprintf(cmd, sizeof(cmd), "ls '%s' | grep -q '^%s-.*\\.json$'", dir, name);
    return system(cmd) == 0;
}

START_TEST(group_dirsync_failure)
{
    char shim[600], preload[1400], asan[600];
    char control[600], log[600], env_control[700], env_log[700];
    const char *build = getenv("TS_BUILD_DIR");
    int conns[WRITERS];
    int fd;

    snprintf(shim, sizeof(shim), "%s/tests/shim_fsync.so", build != NULL ? build : "build");
    ck_assert_msg(access(shim, R_OK) == 0, "%s missing (make builds it)", shim);
    asan_runtime(asan, sizeof(asan));
    snprintf(preload, sizeof(preload), "LD_PRELOAD=%s%s%s", asan, asan[0] ? " " : "", shim);
    snprintf(control, sizeof(control), "%s/fault-on", daemon_.dir);
    snprintf(log, sizeof(log), "%s/fault.log", daemon_.dir);
    snprintf(env_control, sizeof(env_control), "TS_SHIM_FSYNC_CONTROL=%s", control);
    snprintf(env_log, sizeof(env_log), "TS_SHIM_FSYNC_LOG=%s", log);
    const char *prefix[] = {
        "env", preload, env_control, env_log, "TS_SHIM_FSYNC_DELAY_MS=" FAULT_DELAY_MS, NULL};
    tdaemon_start_wrapped(&daemon_, prefix, NULL, 10000);

    /* The store exists and works before the fault. */
    fd = tdaemon_connect(daemon_.socket);
    struct json_object *p = write_params("record", "before", 0);
    json_object_put(tdaemon_ok(fd, "record", p));
    json_object_put(p);

    /* Fault on: several writes at once, records and checks that create,
     * each on its own connection so they run together. */
    set_fault(control, true);
    for (int i = 0; i < WRITERS; i++) {
        char name[32];
        const char *method = i % 2 ? "check" : "record";

        snprintf(name, sizeof(name), "w%d", i);
        conns[i] = tdaemon_connect(daemon_.socket);
        p = write_params(method, name, i);
        tdaemon_send(conns[i], 100 + (unsigned)i, method, p);
        json_object_put(p);
    }
    for (int i = 0; i < WRITERS; i++) {
        struct json_object *reply = NULL, *error = NULL, *ok = NULL, *id = NULL;
        char want[64];

        ck_assert_int_eq(tdaemon_read(conns[i], &reply, 15000), 0);
        ck_assert(json_object_object_get_ex(reply, "ok", &ok));
        ck_assert(json_object_object_get_ex(reply, "id", &id));
        ck_assert_int_eq(json_object_get_int64(id), 100 + i);
        ck_assert_msg(!json_object_get_boolean(ok), "write %d was acknowledged: %s", i,
                      json_object_to_json_string(reply));
        ck_assert(json_object_object_get_ex(reply, "error", &error));
        ck_assert_str_eq(tstr(error, "code"), "io");
        snprintf(want, sizeof(want), "snapshot 'w%d' was written but is not durable", i);
        ck_assert_msg(strstr(tstr(error, "message"), want) != NULL, "write %d: %s", i,
                      tstr(error, "message"));
        ck_assert_msg(strstr(tstr(error, "message"), "fsync of the snapshot root failed") != NULL,
                      "write %d: %s", i, tstr(error, "message"));
        json_object_put(reply);
        /* the file itself was renamed into place */
        snprintf(want, sizeof(want), "w%d", i);
        ck_assert_msg(file_named(daemon_.store, want), "no file for w%d", i);
    }
    /* Fewer failed directory fsyncs than writes: writes shared one. */
    int failures = count_lines(log);
    ck_assert_msg(failures >= 1 && failures < WRITERS,
                  "%d failed directory fsyncs for %d writes: no group formed", failures, WRITERS);

    /* The daemon is up; every connection still serves. */
    for (int i = 0; i < WRITERS; i++) {
        json_object_put(tdaemon_ok(conns[i], "ping", NULL));
        close(conns[i]);
    }

    /* Fault cleared: the next writes are acknowledged, reads work. */
    set_fault(control, false);
    p = write_params("record", "after", 1);
    struct json_object *r = tdaemon_ok(fd, "record", p);
    ck_assert_str_eq(tstr(r, "outcome"), "CREATED");
    json_object_put(r);
    json_object_put(p);
    p = write_params("record", "w0", 0);
    tdaemon_err(fd, "record", p, "exists"); /* written, only not durable */
    json_object_object_add(p, "update", json_object_new_boolean(1));
    r = tdaemon_ok(fd, "record", p);
    ck_assert_str_eq(tstr(r, "outcome"), "UPDATED");
    json_object_put(r);
    json_object_put(p);
    ck_assert_int_eq(count_lines(log), failures);
    close(fd);
    tdaemon_stop_ok(&daemon_);
}
END_TEST

static Suite *faults_suite(void)
{
    Suite *s = suite_create("daemon_faults");
    TCase *tc = tcase_create("faults");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, group_dirsync_failure);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(faults_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
