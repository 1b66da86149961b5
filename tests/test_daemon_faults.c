/*
 * test_daemon_faults — toolscored under injected system-call failures
 * (LD_PRELOAD shims, tests/shim_*.c):
 * - shim_fsync: the directory fsync shared by a group of writes (group
 *   commit, lib/store/ts_store.c) fails with EIO. Every write of the group must be
 *   answered "written but not durable", none acknowledged; the daemon stays
 *   up and serves the next write once the fault is cleared.
 * - shim_fsync, data mode: the fsync of the new files' data fails with EIO.
 *   Every write must fail before its file is renamed into place: no new
 *   file, no temp file left, a replaced snapshot keeps its old content;
 *   afterwards the same writes succeed.
 * - shim_open: out of descriptors, the daemon cannot reopen the reserve it
 *   answers refused clients through; it must not spin, and must serve the
 *   waiting client once a descriptor frees up.
 * - shim_accept: the whole system out of descriptors (ENFILE): each new
 *   client gets a "busy" error naming that, the daemon's own clients keep
 *   working, `status` counts the refusals, and new clients are served once
 *   the condition clears.
 *
 * Under a sanitizer build the daemon needs the ASan runtime first in the
 * preload list: the test finds the runtime it runs with itself (the same
 * one the daemon links) in /proc/self/maps and puts it in front
 * (tdaemon_preload).
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
#include "util_test.h"

#define WRITERS 8
#define FAULT_DELAY_MS "300"

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
    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
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

/* Start the daemon under shim_fsync; the fault's control file and log
 * paths into control and log. data: the fault hits data syncs. */
static void start_with_fsync_shim(bool data, char *control, char *log, size_t sz)
{
    char preload[1400];
    char env_control[700], env_log[700];

    tdaemon_preload("shim_fsync.so", preload, sizeof(preload));
    snprintf(control, sz, "%s/fault-on", tdaemon_fx.dir);
    snprintf(log, sz, "%s/fault.log", tdaemon_fx.dir);
    snprintf(env_control, sizeof(env_control), "TS_SHIM_FSYNC_CONTROL=%s", control);
    snprintf(env_log, sizeof(env_log), "TS_SHIM_FSYNC_LOG=%s", log);
    const char *prefix[] = {"env",
                            preload,
                            env_control,
                            env_log,
                            "TS_SHIM_FSYNC_DELAY_MS=" FAULT_DELAY_MS,
                            data ? "TS_SHIM_FSYNC_DATA=1" : "TS_SHIM_FSYNC_DATA=0",
                            NULL};
    tdaemon_start_wrapped(&tdaemon_fx, prefix, NULL, 10000);
}

/* Lines of the shim's log that are exactly line. */
static int count_log(const char *path, const char *line)
{
    char *text = tdaemon_slurp(path);
    size_t len = strlen(line);
    int n = 0;

    for (const char *p = text; p != NULL && *p != '\0';) {
        const char *end = strchr(p, '\n');

        if (end == NULL)
            break;
        if ((size_t)(end - p) == len && strncmp(p, line, len) == 0)
            n++;
        p = end + 1;
    }
    free(text);
    return n;
}

/*
 * WRITERS writes at once, request ids 100 + i, each on its own connection
 * in conns so that they run together: records and checks that create "w<i>"
 * with calls n = i, or with replace_first, writer 0 replaces "before"
 * (record with update) and every n is 100 + i.
 */
static void send_writes(int *conns, bool replace_first)
{
    for (int i = 0; i < WRITERS; i++) {
        char name[32];
        const char *method = i % 2 ? "check" : "record";
        struct json_object *p;

        snprintf(name, sizeof(name), "w%d", i);
        conns[i] = tdaemon_connect(tdaemon_fx.socket);
        if (replace_first)
            p = write_params(method, i == 0 ? "before" : name, 100 + i);
        else
            p = write_params(method, name, i);
        if (replace_first && i == 0)
            json_object_object_add(p, "update", json_object_new_boolean(1));
        tdaemon_send(conns[i], 100 + (unsigned)i, method, p);
        json_object_put(p);
    }
}

START_TEST(group_dirsync_failure)
{
    char control[600], log[600];
    int conns[WRITERS];
    int fd;

    start_with_fsync_shim(false, control, log, sizeof(control));

    /* The store exists and works before the fault. */
    fd = tdaemon_connect(tdaemon_fx.socket);
    struct json_object *p = write_params("record", "before", 0);
    json_object_put(tdaemon_ok(fd, "record", p));
    json_object_put(p);

    /* Fault on: several writes at once. */
    set_fault(control, true);
    send_writes(conns, false);
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
        ck_assert_msg(file_named(tdaemon_fx.store, want), "no file for w%d", i);
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
    tdaemon_stop_ok(&tdaemon_fx);
}
END_TEST

START_TEST(group_datasync_failure)
{
    char control[600], log[600], cmd[1400];
    int conns[WRITERS];
    int fd;

    start_with_fsync_shim(true, control, log, sizeof(control));
    fd = tdaemon_connect(tdaemon_fx.socket);
    struct json_object *p = write_params("record", "before", 0);
    json_object_put(tdaemon_ok(fd, "record", p));
    json_object_put(p);

    /* Fault on: writer 0 replaces "before", the others create. */
    set_fault(control, true);
    send_writes(conns, true);
    for (int i = 0; i < WRITERS; i++) {
        struct json_object *reply = NULL, *error = NULL, *ok = NULL;
        char name[32];

        ck_assert_int_eq(tdaemon_read(conns[i], &reply, 15000), 0);
        ck_assert(json_object_object_get_ex(reply, "ok", &ok));
        ck_assert_msg(!json_object_get_boolean(ok), "write %d was acknowledged: %s", i,
                      json_object_to_json_string(reply));
        ck_assert(json_object_object_get_ex(reply, "error", &error));
        ck_assert_str_eq(tstr(error, "code"), "io");
        const char *msg = tstr(error, "message");
        ck_assert_msg(strstr(msg, "fsync failed") != NULL, "write %d: %s", i, msg);
        ck_assert_msg(strstr(msg, "written but is not durable") == NULL, "write %d: %s", i, msg);
        json_object_put(reply);
        snprintf(name, sizeof(name), "w%d", i);
        ck_assert_msg(i == 0 || !file_named(tdaemon_fx.store, name), "%s was renamed into place",
                      name);
    }
    /* Each write's own fsync failed; none was left half done. */
    ck_assert_int_eq(count_log(log, "data EIO"), WRITERS);
    snprintf(cmd, sizeof(cmd), "ls -a '%s' | grep -q '\\.tmp$'", tdaemon_fx.store);
    ck_assert_msg(system(cmd) != 0, "temp files left in %s", tdaemon_fx.store);
    snprintf(cmd, sizeof(cmd), "grep -q '\"n\": 0' '%s'/before-*.json", tdaemon_fx.store);
    ck_assert_msg(system(cmd) == 0, "the replaced snapshot lost its old content");
    for (int i = 0; i < WRITERS; i++) {
        json_object_put(tdaemon_ok(conns[i], "ping", NULL));
        close(conns[i]);
    }

    /* Fault cleared: the same writes now succeed. */
    set_fault(control, false);
    for (int i = 1; i < WRITERS; i++) {
        char name[32];

        snprintf(name, sizeof(name), "w%d", i);
        p = write_params("record", name, i);
        struct json_object *r = tdaemon_ok(fd, "record", p);
        ck_assert_str_eq(tstr(r, "outcome"), "CREATED");
        json_object_put(r);
        json_object_put(p);
        ck_assert(file_named(tdaemon_fx.store, name));
    }
    close(fd);
    tdaemon_stop_ok(&tdaemon_fx);
}
END_TEST

/* CPU time (user + system, clock ticks) process pid used so far. */
static long cpu_ticks(pid_t pid)
{
    char path[64], buf[1024];
    unsigned long utime = 0, stime = 0;
    FILE *fp;
    char *p;

    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    fp = fopen(path, "r");
    ck_assert_ptr_nonnull(fp);
    ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), fp));
    fclose(fp);
    p = strrchr(buf, ')'); /* the command name may hold spaces */
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(
        sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime), 2);
    return (long)(utime + stime);
}

/* Send hello on a new raw connection; its reply, or NULL when none came
 * within wait_ms (the connection waits in the daemon's backlog). */
static struct json_object *hello_on(int fd, int wait_ms)
{
    struct json_object *hello = json_object_new_object();
    struct json_object *reply = NULL;

    json_object_object_add(hello, "protocol", json_object_new_int(1));
    json_object_object_add(hello, "client", json_object_new_string("test/1"));
    tdaemon_try_send(fd, 1, "hello", hello); /* a refused one may be closed already */
    json_object_put(hello);
    if (tdaemon_read(fd, &reply, wait_ms) == -ETIMEDOUT)
        return NULL;
    ck_assert_ptr_nonnull(reply);
    return reply;
}

static bool reply_ok(struct json_object *reply)
{
    struct json_object *ok = NULL;

    return json_object_object_get_ex(reply, "ok", &ok) && json_object_get_boolean(ok);
}

/* Out of descriptors with no reserve to answer through (it cannot be
 * reopened): a new client waits, the daemon does not spin on its readable
 * listening socket, the waiting client is served as soon as a descriptor
 * frees up, and once the reserve can be opened again a refused client gets
 * "busy" again. */
START_TEST(out_of_descriptors_without_reserve)
{
    enum { MAX_HELD = 200 };
    char preload[1400], control[600], env_control[700];
    int held[MAX_HELD];
    int n = 0;
    int waiting = -1;
    struct json_object *reply;

    tdaemon_preload("shim_open.so", preload, sizeof(preload));
    snprintf(control, sizeof(control), "%s/no-dev-null", tdaemon_fx.dir);
    snprintf(env_control, sizeof(env_control), "TS_SHIM_OPEN_CONTROL=%s", control);
    set_fault(control, true); /* the reserve is never opened */
    const char *prefix[] = {"sh",        "-c", "ulimit -n 40 && exec \"$@\"", "sh", "env", preload,
                            env_control, NULL};
    tdaemon_start_wrapped(&tdaemon_fx, prefix, NULL, 10000);

    while (waiting < 0) {
        int fd = tdaemon_connect_raw(tdaemon_fx.socket);

        ck_assert_int_ge(fd, 0);
        reply = hello_on(fd, 500);
        if (reply == NULL) {
            waiting = fd;
            break;
        }
        ck_assert_msg(reply_ok(reply), "connection %d: %s", n, json_object_to_json_string(reply));
        json_object_put(reply);
        ck_assert_int_lt(n, MAX_HELD);
        held[n++] = fd;
    }
    ck_assert_int_gt(n, 5);

    /* A second of waiting client: the loop sleeps between attempts. */
    long before = cpu_ticks(tdaemon_fx.pid);
    usleep(1000000);
    long used = cpu_ticks(tdaemon_fx.pid) - before;
    ck_assert_msg(used < 30, "the daemon used %ld/100 s of CPU in 1 s out of descriptors", used);

    /* One descriptor frees up: the waiting client is served. */
    close(held[--n]);
    ck_assert_int_eq(tdaemon_read(waiting, &reply, 3000), 0);
    ck_assert_msg(reply_ok(reply), "%s", json_object_to_json_string(reply));
    json_object_put(reply);
    json_object_put(tdaemon_ok(waiting, "ping", NULL));
    held[n++] = waiting;

    /* The reserve can be opened again: it takes the next free descriptor,
     * and a refused client gets "busy" again. */
    set_fault(control, false);
    close(held[0]);
    held[0] = held[--n];
    int fd = tdaemon_connect_raw(tdaemon_fx.socket);
    ck_assert_int_ge(fd, 0);
    reply = hello_on(fd, 3000);
    ck_assert_ptr_nonnull(reply);
    ck_assert_msg(!reply_ok(reply), "%s", json_object_to_json_string(reply));
    ck_assert_str_eq(tstr(json_object_object_get(reply, "error"), "code"), "busy");
    json_object_put(reply);
    close(fd);
    for (int i = 0; i < n; i++) {
        json_object_put(tdaemon_ok(held[i], "ping", NULL));
        close(held[i]);
    }
    tdaemon_serves(tdaemon_fx.socket);
    tdaemon_stop_ok(&tdaemon_fx);
}
END_TEST

START_TEST(system_out_of_descriptors_answers_busy)
{
    char preload[1400], control[600], log[600];
    char env_control[700], env_log[700];
    struct json_object *reply;
    int fd;

    tdaemon_preload("shim_accept.so", preload, sizeof(preload));
    snprintf(control, sizeof(control), "%s/enfile", tdaemon_fx.dir);
    snprintf(log, sizeof(log), "%s/accept.log", tdaemon_fx.dir);
    snprintf(env_control, sizeof(env_control), "TS_SHIM_ACCEPT_CONTROL=%s", control);
    snprintf(env_log, sizeof(env_log), "TS_SHIM_ACCEPT_LOG=%s", log);
    const char *prefix[] = {"env", preload, env_control, env_log, NULL};
    tdaemon_start_wrapped(&tdaemon_fx, prefix, NULL, 10000);
    int held = tdaemon_connect(tdaemon_fx.socket); /* a client from before */

    set_fault(control, true);
    for (int i = 0; i < 3; i++) {
        fd = tdaemon_connect_raw(tdaemon_fx.socket);
        ck_assert_int_ge(fd, 0);
        reply = hello_on(fd, 3000);
        ck_assert_msg(reply != NULL, "refused client %d got no reply", i);
        ck_assert_msg(!reply_ok(reply), "%s", json_object_to_json_string(reply));
        ck_assert_str_eq(tstr(json_object_object_get(reply, "error"), "code"), "busy");
        ck_assert_msg(strstr(tstr(json_object_object_get(reply, "error"), "message"),
                             "the system is out of file descriptors (ENFILE)") != NULL,
                      "%s", json_object_to_json_string(reply));
        json_object_put(reply);
        close(fd);
        json_object_put(tdaemon_ok(held, "ping", NULL));
    }
    ck_assert_int_eq(count_lines(log), 3);
    reply = tdaemon_ok(held, "status", NULL);
    ck_assert_int_eq(json_object_get_int(json_object_object_get(reply, "refused_busy")), 3);
    json_object_put(reply);

    set_fault(control, false);
    fd = tdaemon_connect(tdaemon_fx.socket);
    json_object_put(tdaemon_ok(fd, "ping", NULL));
    close(fd);
    close(held);
    ck_assert_int_eq(count_lines(log), 3);
    tdaemon_stop_ok(&tdaemon_fx);
}
END_TEST

static Suite *faults_suite(void)
{
    Suite *s = suite_create("daemon_faults");
    TCase *tc = tdaemon_fixture_case("faults", false, NULL, 60);

    tcase_add_test(tc, group_dirsync_failure);
    tcase_add_test(tc, group_datasync_failure);
    tcase_add_test(tc, out_of_descriptors_without_reserve);
    tcase_add_test(tc, system_out_of_descriptors_answers_busy);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return util_run_suite(faults_suite());
}
