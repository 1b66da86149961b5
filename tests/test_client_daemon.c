/*
 * test_client_daemon — libtoolscore-client against the real toolscored
 * ($TS_BUILD_DIR/toolscored): auto-start and calls, a daemon restarted right
 * after a reply, version mismatch, listing pages, a small frame limit, the
 * daemon found from the environment, the package or PATH, the build's
 * version and stop if idle, one client per thread.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client/toolscore_client.h"
#include "lib/base/ts_base.h"
#include "client/ts_client_internal.h"
#include "proto/ts_proto.h"
#include "lib/snapshot/ts_snapshot.h"
#include "lib/store/ts_store.h"
#include "util_client.h"
#include "util_daemon.h"
#include "util_test.h"

START_TEST(real_daemon_autostart_and_calls)
{
    tdaemon d;
    ts_client *c;
    ts_error err;
    struct json_object *res = NULL;
    struct json_object *calls =
        json_tokener_parse("[{\"tool\": \"search\", \"args\": {\"q\": 1}}]");
    ts_check_args *a = ts_check_args_new();
    int64_t first_pid;
    int rc;

    tdaemon_prepare(&d);
    c = util_autostart_client(d.socket, &err, &rc);
    ck_assert_msg(rc == 0, "autostart: %s: %s", err.code, err.message);
    ck_assert_int_eq(util_daemons_on(d.socket, NULL), 1);
    ck_assert_int_eq(ts_client_status(c, &res, &err), 0);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(res, "socket")), d.socket);
    json_object_put(res);

    ts_check_args_set_store(a, d.store);
    ts_check_args_set_name(a, "flow");
    ts_check_args_set_actual(a, calls);
    ck_assert_int_eq(ts_client_check(c, a, &res, &err), 0);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(res, "outcome")), "CREATED");
    json_object_put(res);
    ck_assert_int_eq(ts_client_show(c, d.store, "missing", &res, &err), TS_CLIENT_EREMOTE);
    ck_assert_str_eq(err.code, "not_found");
    ck_assert_int_eq(ts_client_approve(c, d.store, (const char *[]){"flow"}, 1, false, &res, &err),
                     0);
    json_object_put(res);
    ck_assert_int_eq(ts_client_check(c, a, &res, &err), 0);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(res, "outcome")), "PASSED");
    json_object_put(res);

    ck_assert_int_eq(ts_client_stop(c, &err), 0);
    util_wait_no_daemon(d.socket);
    /* the same client, idle while its daemon went away: the next call
     * starts a new daemon and goes through */
    first_pid = json_object_get_int64(
        json_object_object_get((struct json_object *)ts_client_server_info(c), "pid"));
    ck_assert_int_eq(ts_client_list(c, d.store, false, &res, &err), 0);
    ck_assert_int_eq(json_object_array_length(json_object_object_get(res, "snapshots")), 1);
    json_object_put(res);
    ck_assert_int_ne(json_object_get_int64(json_object_object_get(
                         (struct json_object *)ts_client_server_info(c), "pid")),
                     first_pid);
    ck_assert_int_eq(util_daemons_on(d.socket, NULL), 1);
    util_stop_and_close(c, d.socket);
    tdaemon_cleanup(&d);
    json_object_put(calls);
    ts_check_args_free(a);
}
END_TEST

/*
 * The daemon stopped (SIGTERM) or killed right after answering and a new
 * one started at once: the client's next requests, sent at once, reach the
 * new daemon, each applied once.
 */
START_TEST(real_daemon_restarted_right_after_reply)
{
    tdaemon d;
    ts_client *c;
    ts_error err;
    struct json_object *res = NULL;
    struct json_object *calls = json_tokener_parse("[{\"tool\": \"a\", \"args\": {}}]");
    ts_check_args *a = ts_check_args_new();
    int round;

    tdaemon_prepare(&d);
    tdaemon_start(&d, NULL);
    c = util_client_connect(d.socket);
    ts_check_args_set_store(a, d.store);
    ts_check_args_set_actual(a, calls);
    for (round = 0; round < 2; round++) {
        char name[32];

        ck_assert_int_eq(ts_client_ping(c, &err), 0);
        ck_assert_int_eq(util_server_pid(c), d.pid);
        if (round == 0)
            tdaemon_stop_ok(&d);
        else
            tdaemon_kill(&d);
        tdaemon_start(&d, NULL);
        snprintf(name, sizeof(name), "after_restart_%d", round);
        ts_check_args_set_name(a, name);
        ck_assert_msg(ts_client_check(c, a, &res, &err) == 0, "%s: %s", err.code, err.message);
        ck_assert_str_eq(json_object_get_string(json_object_object_get(res, "outcome")), "CREATED");
        json_object_put(res);
        ck_assert_int_eq(util_server_pid(c), d.pid);
        ck_assert_int_eq(ts_client_list(c, d.store, true, &res, &err), 0);
        ck_assert_int_eq(json_object_get_int(json_object_object_get(res, "total")), round + 1);
        json_object_put(res);
    }
    ts_client_close(c);
    tdaemon_stop_ok(&d);
    tdaemon_cleanup(&d);
    json_object_put(calls);
    ts_check_args_free(a);
}
END_TEST

START_TEST(real_daemon_version_mismatch)
{
    tdaemon d;
    ts_client_options o;
    ts_client *c = NULL;
    ts_error err;
    int rc;

    tdaemon_prepare(&d);
    c = util_autostart_client(d.socket, &err, &rc);
    ck_assert_int_eq(rc, 0);
    ts_client_close(c);
    c = NULL;
    ts_client_options_init(&o);
    o.socket_path = d.socket;
    o.autostart = false;
    o.protocol = 2;
    ck_assert_int_eq(ts_client_connect(&o, &c, &err), TS_CLIENT_EREMOTE);
    ck_assert_str_eq(err.code, "version_mismatch");
    ck_assert_str_eq(err.message, "client speaks protocol 2, server speaks protocol 1");
    /* a fresh client of the right version still gets in */
    c = util_autostart_client(d.socket, &err, &rc);
    ck_assert_int_eq(rc, 0);
    util_stop_and_close(c, d.socket);
    tdaemon_cleanup(&d);
}
END_TEST

/* A daemon accepting small requests still sends large replies: the client
 * refuses an oversized request locally and reads a reply larger than the
 * daemon's --max-frame. */
/* ts_client_list fetches every page: a store of more than two pages comes
 * back whole, in name order, with its total and no cursor left. */
START_TEST(real_daemon_list_pages)
{
    const int n = 2 * TS_CLIENT_LIST_PAGE + 3;
    struct json_object *calls = json_tokener_parse("[{\"tool\": \"t\", \"args\": {}}]");
    struct json_object *res = NULL, *items;
    ts_store *store;
    tdaemon d;
    ts_client *c;
    ts_error err;
    char name[64], path[PATH_MAX];

    tdaemon_prepare(&d);
    ck_assert_int_eq(mkdir(d.store, 0700), 0);
    ck_assert_int_eq(ts_store_open(d.store, &store, &err), 0);
    for (int i = 0; i < n; i++) {
        ts_snapshot *snap = NULL;
        ts_buf data;
        FILE *f;

        snprintf(name, sizeof(name), "page-%06d", i);
        ck_assert_int_eq(ts_snapshot_new(name, calls, "trace", &snap, &err), 0);
        ts_buf_init(&data, TS_SNAPSHOT_MAX_BYTES);
        ck_assert_int_eq(ts_snapshot_serialize(snap, &data, &err), 0);
        ck_assert_int_eq(ts_store_path(store, name, path, sizeof(path), &err), 0);
        f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fwrite(data.data, 1, data.len, f), data.len);
        fclose(f);
        ts_buf_free(&data);
        ts_snapshot_free(snap);
    }
    ts_store_close(store);
    tdaemon_start(&d, NULL);
    c = util_client_connect(d.socket);
    ck_assert_int_eq(ts_client_list(c, d.store, false, &res, &err), 0);
    items = json_object_object_get(res, "snapshots");
    ck_assert_int_eq(json_object_array_length(items), n);
    ck_assert_int_eq(json_object_get_int(json_object_object_get(res, "total")), n);
    ck_assert(json_object_object_get(res, "next") == NULL);
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "page-%06d", i);
        ck_assert_str_eq(tstr(json_object_array_get_idx(items, (size_t)i), "name"), name);
    }
    json_object_put(res);
    /* one page at a time by hand */
    ck_assert_int_eq(ts_client_list_page(c, d.store, false, 2, NULL, &res, &err), 0);
    ck_assert_int_eq(json_object_array_length(json_object_object_get(res, "snapshots")), 2);
    ck_assert(json_object_is_type(json_object_object_get(res, "next"), json_type_string));
    json_object_put(res);
    ts_client_close(c);
    tdaemon_stop_ok(&d);
    tdaemon_cleanup(&d);
    json_object_put(calls);
}
END_TEST

START_TEST(real_daemon_small_max_frame)
{
    static const char *const extra[] = {"--max-frame", "4096", "--idle-timeout", "20", NULL};
    tdaemon d;
    ts_client *c;
    ts_error err;
    ts_check_args *a = ts_check_args_new();
    struct json_object *calls = json_tokener_parse("[{\"tool\": \"t\", \"args\": {}}]");
    struct json_object *big = json_object_new_array();
    struct json_object *res = NULL;
    char name[64];
    int i;

    tdaemon_prepare(&d);
    tdaemon_start(&d, extra);
    c = util_client_connect(d.socket);
    ck_assert_int_eq(json_object_get_int(json_object_object_get(
                         (struct json_object *)ts_client_server_info(c), "max_frame")),
                     4096);
    ts_check_args_set_store(a, d.store);
    ts_check_args_set_actual(a, calls);
    for (i = 0; i < 60; i++) {
        snprintf(name, sizeof(name), "a-fairly-long-snapshot-name-number-%03d", i);
        ts_check_args_set_name(a, name);
        ck_assert_int_eq(ts_client_check(c, a, NULL, &err), 0);
    }
    ck_assert_int_eq(ts_client_list(c, d.store, false, &res, &err), 0);
    ck_assert_int_eq(json_object_array_length(json_object_object_get(res, "snapshots")), 60);
    ck_assert_int_gt(strlen(json_object_to_json_string(res)), 8192);
    json_object_put(res);
    for (i = 0; i < 200; i++)
        json_object_array_add(big, json_object_new_string("0123456789012345678901234567890"));
    ts_check_args_set_name(a, "big");
    ts_check_args_set_actual(a, big);
    ck_assert_int_eq(ts_client_check(c, a, NULL, &err), -E2BIG);
    ck_assert_str_eq(err.code, "too_large");
    ck_assert_ptr_nonnull(strstr(err.message, "4096"));
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ts_client_close(c);
    tdaemon_stop_ok(&d);
    tdaemon_cleanup(&d);
    json_object_put(calls);
    json_object_put(big);
    ts_check_args_free(a);
}
END_TEST

/* A long pipelined batch before any reply is read: the daemon stops
 * reading the connection once its replies pile up, and the library reads
 * them while it waits to send, so neither side waits for the other. */
START_TEST(real_daemon_long_pipelined_batch)
{
    enum { BATCH = 30000 };
    tdaemon d;
    ts_client *c;
    ts_error err;
    struct json_object *params = json_object_new_object();
    uint64_t id = 0;

    tdaemon_prepare(&d);
    tdaemon_start(&d, NULL);
    c = util_client_connect(d.socket);
    json_object_object_add(params, "pad", json_object_new_string("0123456789abcdef0123456789"));
    for (int i = 0; i < BATCH; i++)
        ck_assert_int_eq(ts_client_send(c, i % 2 ? "ping" : "status", params, &id, &err), 0);
    for (int i = 0; i < BATCH; i++) {
        uint64_t got = 0;

        ck_assert_msg(ts_client_receive(c, &got, NULL, &err) == 0, "reply %d: %s", i, err.message);
        ck_assert_uint_eq(got, id - (uint64_t)(BATCH - 1 - i));
    }
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ts_client_close(c);
    json_object_put(params);
    tdaemon_stop_ok(&d);
    tdaemon_cleanup(&d);
}
END_TEST

/* The daemon is found through $TOOLSCORED, then on PATH. */
START_TEST(real_daemon_found_by_env_and_path)
{
    const char *how[] = {"TOOLSCORED", "PATH"};
    char dir[PATH_MAX];
    char *path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    size_t i;

    snprintf(dir, sizeof(dir), "%s", tdaemon_binary());
    *strrchr(dir, '/') = '\0';
    for (i = 0; i < 2; i++) {
        tdaemon d;
        ts_client_options o;
        ts_client *c = NULL;
        ts_error err;
        pid_t pid = 0;

        tdaemon_prepare(&d);
        if (i == 0) {
            setenv("TOOLSCORED", tdaemon_binary(), 1);
            setenv("PATH", "/nonexistent", 1);
        } else {
            unsetenv("TOOLSCORED");
            setenv("PATH", dir, 1);
        }
        ts_client_options_init(&o);
        o.socket_path = d.socket;
        o.daemon_args = util_idle_args;
        o.connect_timeout_ms = 10000;
        ck_assert_msg(ts_client_connect(&o, &c, &err) == 0, "%s: %s", how[i], err.message);
        setenv("PATH", path, 1);
        unsetenv("TOOLSCORED");
        ck_assert_int_eq(util_daemons_on(d.socket, &pid), 1);
        util_stop_and_close(c, d.socket);
        tdaemon_cleanup(&d);
    }
    free(path);
}
END_TEST

/* Without $TOOLSCORED the package's own daemon comes before PATH; when
 * neither serves, the error names the three places and why each failed. */
START_TEST(real_daemon_found_in_the_package)
{
    char *path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    char pkg[600];
    tdaemon d;
    ts_client_options o;
    ts_client *c = NULL;
    ts_error err;
    pid_t pid = 0;
    int fd;

    tdaemon_prepare(&d);
    unsetenv("TOOLSCORED");
    setenv("PATH", "/nonexistent", 1);
    ck_assert_int_eq(ts_client_set_package_daemon(tdaemon_binary()), 0);
    ts_client_options_init(&o);
    o.socket_path = d.socket;
    o.daemon_args = util_idle_args;
    o.connect_timeout_ms = 10000;
    ck_assert_msg(ts_client_connect(&o, &c, &err) == 0, "%s", err.message);
    ck_assert_int_eq(util_daemons_on(d.socket, &pid), 1);
    util_stop_and_close(c, d.socket);

    /* the package's daemon is missing, then not executable */
    snprintf(pkg, sizeof(pkg), "%s/pkg-toolscored", d.dir);
    ck_assert_int_eq(ts_client_set_package_daemon(pkg), 0);
    ck_assert_int_lt(ts_client_connect(&o, &c, &err), 0);
    ck_assert_str_eq(err.code, "unavailable");
    ck_assert_msg(strstr(err.message, "TOOLSCORED is not set, ") != NULL, "%s", err.message);
    ck_assert_msg(strstr(err.message, pkg) != NULL, "%s", err.message);
    ck_assert_msg(strstr(err.message, " does not exist, and PATH has no toolscored") != NULL, "%s",
                  err.message);
    fd = open(pkg, O_WRONLY | O_CREAT | O_EXCL, 0644);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_lt(ts_client_connect(&o, &c, &err), 0);
    ck_assert_msg(strstr(err.message, " is not executable (mode 0644), and PATH has no") != NULL,
                  "%s", err.message);

    /* $TOOLSCORED that does not work is an error, not a reason to look on */
    setenv("TOOLSCORED", pkg, 1);
    ck_assert_int_eq(ts_client_set_package_daemon(tdaemon_binary()), 0);
    ck_assert_int_lt(ts_client_connect(&o, &c, &err), 0);
    ck_assert_msg(strstr(err.message, "is not an executable file (point it at a toolscored") !=
                      NULL,
                  "%s", err.message);
    unsetenv("TOOLSCORED");
    ck_assert_int_eq(ts_client_set_package_daemon(NULL), 0);
    setenv("PATH", path, 1);
    free(path);
    tdaemon_cleanup(&d);
}
END_TEST

/* hello and status say the daemon's version and whether a client started
 * it; stop {if_idle} stops only a daemon with no run open and no other
 * client. */
START_TEST(real_daemon_version_and_stop_if_idle)
{
    tdaemon d;
    ts_client *c1;
    ts_client *c2;
    ts_client *c = NULL;
    ts_error err;
    struct json_object *params = json_object_new_object();
    struct json_object *res = NULL;
    struct json_object *v = NULL;
    char run[128];
    int rc;

    tdaemon_prepare(&d);
    tdaemon_start(&d, NULL);
    c1 = util_client_connect(d.socket);
    ck_assert_str_eq(ts_client_server_version(c1), ts_client_version());
    ck_assert(json_object_object_get_ex(ts_client_server_info(c1), "auto_started", &v));
    ck_assert(!json_object_get_boolean(v));
    c2 = util_client_connect(d.socket);
    json_object_object_add(params, "if_idle", json_object_new_boolean(1));
    ck_assert_int_eq(ts_client_call(c1, "stop", params, NULL, &err), TS_CLIENT_EREMOTE);
    ck_assert_str_eq(err.code, "in_use");
    ck_assert_msg(strstr(err.message, "(0 runs open, 1 other connection)") != NULL, "%s",
                  err.message);
    ts_client_close(c2);
    /* a run open keeps it too (the closed connection may take a moment to
     * be counted out) */
    ck_assert_int_eq(ts_client_run_open(c1, d.store, "t", &res, &err), 0);
    snprintf(run, sizeof(run), "%s", json_object_get_string(json_object_object_get(res, "run")));
    json_object_put(res);
    for (int i = 0; i < 500; i++) {
        rc = ts_client_call(c1, "stop", params, NULL, &err);
        if (rc == TS_CLIENT_EREMOTE && strstr(err.message, "1 run open, 0 other") != NULL)
            break;
        usleep(10000);
    }
    ck_assert_msg(strstr(err.message, "(1 run open, 0 other connections)") != NULL, "%s",
                  err.message);
    ck_assert_int_eq(ts_client_run_close(c1, run, &res, &err), 0);
    json_object_put(res);
    ck_assert_int_eq(ts_client_call(c1, "stop", params, NULL, &err), 0);
    ck_assert_int_eq(tdaemon_wait(&d, 10000), 0);
    ts_client_close(c1);
    json_object_put(params);
    tdaemon_cleanup(&d);

    /* a daemon a client started says so */
    tdaemon_prepare(&d);
    c = util_autostart_client(d.socket, &err, &rc);
    ck_assert_msg(rc == 0, "%s", err.message);
    ck_assert(json_object_object_get_ex(ts_client_server_info(c), "auto_started", &v));
    ck_assert(json_object_get_boolean(v));
    ck_assert_str_eq(ts_client_server_version(c), ts_client_version());
    util_stop_and_close(c, d.socket);
    tdaemon_cleanup(&d);
}
END_TEST

/* One client per thread: eight threads connecting (the first ones racing to
 * auto-start the daemon) and calling at the same time do not disturb each
 * other. */
typedef struct thread_job {
    const char *sock;
    const char *store;
    int index;
    int failures;
    char why[TS_ERROR_MESSAGE_MAX + 64];
} thread_job;

static void *thread_worker(void *arg)
{
    thread_job *job = arg;
    ts_client *c;
    ts_error err;
    ts_check_args *a = ts_check_args_new();
    struct json_object *calls;
    struct json_object *res = NULL;
    char name[32];
    int rc, i;

    c = util_autostart_client(job->sock, &err, &rc);
    if (rc < 0) {
        job->failures++;
        snprintf(job->why, sizeof(job->why), "connect: %s", err.message);
        ts_check_args_free(a);
        return NULL;
    }
    calls = json_tokener_parse("[{\"tool\": \"t\", \"args\": {\"n\": 1}}]");
    ts_check_args_set_store(a, job->store);
    ts_check_args_set_actual(a, calls);
    for (i = 0; i < 25; i++) {
        snprintf(name, sizeof(name), "thread-%d-%d", job->index, i);
        ts_check_args_set_name(a, name);
        rc = ts_client_check(c, a, &res, &err);
        if (rc < 0 ||
            strcmp(json_object_get_string(json_object_object_get(res, "name")), name) != 0) {
            job->failures++;
            snprintf(job->why, sizeof(job->why), "check %s: %s", name,
                     rc < 0 ? err.message : "reply for another name");
        }
        json_object_put(res);
        res = NULL;
    }
    json_object_put(calls);
    ts_client_close(c);
    ts_check_args_free(a);
    return NULL;
}

START_TEST(real_daemon_one_client_per_thread)
{
    enum { THREADS = 8 };
    tdaemon d;
    pthread_t threads[THREADS];
    thread_job jobs[THREADS];
    ts_client *c;
    ts_error err;
    struct json_object *res = NULL;
    int i, rc;

    tdaemon_prepare(&d);
    for (i = 0; i < THREADS; i++) {
        jobs[i] = (thread_job){d.socket, d.store, i, 0, ""};
        ck_assert_int_eq(pthread_create(&threads[i], NULL, thread_worker, &jobs[i]), 0);
    }
    for (i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        ck_assert_msg(jobs[i].failures == 0, "thread %d: %s", i, jobs[i].why);
    }
    c = util_autostart_client(d.socket, &err, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(ts_client_list(c, d.store, false, &res, &err), 0);
    ck_assert_int_eq(json_object_array_length(json_object_object_get(res, "snapshots")),
                     THREADS * 25);
    json_object_put(res);
    ck_assert_int_eq(util_daemons_on(d.socket, NULL), 1);
    util_stop_and_close(c, d.socket);
    tdaemon_cleanup(&d);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("client_daemon");
    TCase *tc0 = tcase_create("real daemon");

    tcase_add_test(tc0, real_daemon_autostart_and_calls);
    tcase_add_test(tc0, real_daemon_restarted_right_after_reply);
    tcase_add_test(tc0, real_daemon_version_mismatch);
    tcase_add_test(tc0, real_daemon_list_pages);
    tcase_add_test(tc0, real_daemon_small_max_frame);
    tcase_add_test(tc0, real_daemon_long_pipelined_batch);
    tcase_add_test(tc0, real_daemon_found_by_env_and_path);
    tcase_add_test(tc0, real_daemon_found_in_the_package);
    tcase_add_test(tc0, real_daemon_version_and_stop_if_idle);
    tcase_add_test(tc0, real_daemon_one_client_per_thread);
    suite_add_tcase(s, tc0);
    return util_run_suite(s);
}
