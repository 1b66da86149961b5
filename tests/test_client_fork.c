/*
 * test_client_fork — a ts_client used across fork(): the child's first call
 * connects anew (its own hello) and leaves the parent's stream alone, a reply
 * pipelined before the fork stays the parent's, every generation connects once;
 * and the same against the real daemon.
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

/* A child inherits the client: its first call must open its own
 * connection (with its own hello) and leave the parent's stream alone. */
START_TEST(fork_child_reconnects)
{
    fake f;
    ts_client *c;
    ts_error err;
    pid_t pid;
    int status;
    int i, parent_conn_requests = 0;

    fake_start(&f);
    c = util_client_connect(f.sock);
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int ok = ts_client_ping(c, &err) == 0 && ts_client_ping(c, &err) == 0;
        ts_client_close(c);
        _exit(ok ? 0 : 1);
    }
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* the parent's connection still works after the child closed its copy */
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ck_assert_int_eq(f.nconn, 2);
    pthread_mutex_lock(&f.mu);
    for (i = 0; i < f.nlog; i++) {
        if (f.log[i].conn == 0) {
            parent_conn_requests++;
            if (strcmp(f.log[i].method, "hello") == 0)
                ck_assert_int_eq(f.log[i].hello_pid, getpid());
        } else {
            ck_assert_int_eq(f.log[i].conn, 1);
            if (strcmp(f.log[i].method, "hello") == 0)
                ck_assert_int_eq(f.log[i].hello_pid, pid);
        }
    }
    pthread_mutex_unlock(&f.mu);
    ck_assert_int_eq(parent_conn_requests, 3); /* hello, ping, ping */
    ck_assert_int_eq(f.nlog, 6);

    /* a child that only closes what it inherited leaves the parent's
     * connection working and sends nothing */
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        ts_client_close(c);
        _exit(0);
    }
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ck_assert_int_eq(f.nconn, 2);
    ck_assert_int_eq(f.nlog, 7);
    ck_assert_int_eq(f.log[6].conn, 0);
    ts_client_close(c);
    fake_stop(&f);
}
END_TEST

/* A child forked while the parent has a pipelined request in flight: the
 * child finds nothing to receive (the reply is the parent's, on the
 * parent's stream) and calls on its own connection; the parent then
 * receives its reply. */
START_TEST(fork_child_leaves_pipelined_reply)
{
    fake f;
    ts_client *c;
    ts_error err;
    uint64_t sent = 0, got = 0;
    pid_t pid;
    int status;
    int conn;

    fake_start(&f);
    c = util_client_connect(f.sock);
    ck_assert_int_eq(ts_client_send(c, "echo", NULL, &sent, &err), 0);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int ok = ts_client_receive(c, NULL, NULL, &err) == -EINVAL &&
                 strcmp(err.code, "invalid_argument") == 0 && ts_client_ping(c, &err) == 0 &&
                 ts_client_receive(c, NULL, NULL, &err) == -EINVAL;
        ts_client_close(c);
        _exit(ok ? 0 : 1);
    }
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ck_assert_int_eq(ts_client_receive(c, &got, NULL, &err), 0);
    ck_assert_int_eq(got, sent);
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ck_assert_int_eq(f.nconn, 2);
    ck_assert_int_eq(fake_count(&f, "echo", &conn), 1);
    ck_assert_int_eq(conn, 0);
    ck_assert_int_eq(fake_count(&f, "ping", &conn), 2);
    ck_assert_int_eq(conn, 0); /* the parent's, after the child's on 1 */
    ck_assert_int_eq(f.log[f.nlog - 2].conn, 1);
    ck_assert_int_eq(f.log[f.nlog - 2].hello_pid, 0);
    ck_assert_str_eq(f.log[f.nlog - 2].method, "ping");
    ts_client_close(c);
    fake_stop(&f);
}
END_TEST

typedef struct fork_job {
    ts_client *c;
    pid_t child;
    int status;
} fork_job;

/* In a thread of its own: fork a child that pings, forks a grandchild that
 * pings, then pings again on its own connection. */
static void *fork_from_thread(void *arg)
{
    fork_job *job = arg;
    ts_error err;

    job->child = fork();
    if (job->child == 0) {
        int ok = ts_client_ping(job->c, &err) == 0;
        pid_t grandchild = fork();
        int status = -1;

        if (grandchild == 0) {
            ok = ts_client_ping(job->c, &err) == 0 && ts_client_ping(job->c, &err) == 0;
            ts_client_close(job->c);
            _exit(ok ? 0 : 1);
        }
        ok = ok && grandchild > 0 && waitpid(grandchild, &status, 0) == grandchild &&
             WIFEXITED(status) && WEXITSTATUS(status) == 0 && ts_client_ping(job->c, &err) == 0;
        ts_client_close(job->c);
        _exit(ok ? 0 : 1);
    }
    if (job->child > 0)
        waitpid(job->child, &job->status, 0);
    return NULL;
}

/* Every generation opens its own connection, whichever thread forked, and
 * none touches its parent's: a child, its own child (the grandchild), and
 * the parent keep working, each on one connection of its own. */
START_TEST(fork_generations_each_connect)
{
    fake f;
    fork_job job = {NULL, -1, -1};
    pthread_t thread;
    ts_error err;
    long pids[3] = {0, 0, 0};
    int per_conn[3] = {0, 0, 0};
    int i;

    fake_start(&f);
    job.c = util_client_connect(f.sock);
    ck_assert_int_eq(ts_client_ping(job.c, &err), 0);
    ck_assert_int_eq(pthread_create(&thread, NULL, fork_from_thread, &job), 0);
    pthread_join(thread, NULL);
    ck_assert_int_gt(job.child, 0);
    ck_assert(WIFEXITED(job.status) && WEXITSTATUS(job.status) == 0);
    ck_assert_int_eq(ts_client_ping(job.c, &err), 0);
    ck_assert_int_eq(f.nconn, 3);
    pthread_mutex_lock(&f.mu);
    for (i = 0; i < f.nlog; i++) {
        ck_assert_int_lt(f.log[i].conn, 3);
        per_conn[f.log[i].conn]++;
        if (strcmp(f.log[i].method, "hello") == 0)
            pids[f.log[i].conn] = f.log[i].hello_pid;
    }
    pthread_mutex_unlock(&f.mu);
    ck_assert_int_eq(pids[0], getpid());
    ck_assert_int_eq(pids[1], job.child);
    ck_assert(pids[2] > 0 && pids[2] != pids[0] && pids[2] != pids[1]);
    ck_assert_int_eq(per_conn[0], 3); /* hello, ping, ping */
    ck_assert_int_eq(per_conn[1], 3); /* the child's hello, ping, ping */
    ck_assert_int_eq(per_conn[2], 3); /* the grandchild's hello, ping, ping */
    ts_client_close(job.c);
    fake_stop(&f);
}
END_TEST

START_TEST(real_daemon_fork_safety)
{
    tdaemon d;
    ts_client *c;
    ts_error err;
    struct json_object *res = NULL;
    pid_t pid;
    int status, rc;
    int i;

    tdaemon_prepare(&d);
    c = util_autostart_client(d.socket, &err, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int ok = 1;
        for (i = 0; i < 20 && ok; i++)
            ok = ts_client_list(c, d.store, false, NULL, &err) == 0;
        ts_client_close(c);
        _exit(ok ? 0 : 1);
    }
    /* the parent keeps talking at the same time */
    for (i = 0; i < 20; i++)
        ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* the child's own connection is gone once the daemon saw it close
     * (20 s at most); the parent's is the one left */
    for (i = 0; i < 1000; i++) {
        int conns;
        ck_assert_int_eq(ts_client_status(c, &res, &err), 0);
        conns = json_object_get_int(json_object_object_get(res, "connections"));
        json_object_put(res);
        if (conns == 1)
            break;
        usleep(20000);
    }
    ck_assert_msg(i < 1000, "the daemon still counts the child's connection after 20 s");
    util_stop_and_close(c, d.socket);
    tdaemon_cleanup(&d);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("client_fork");
    TCase *tc0 = tcase_create("fake server");
    TCase *tc1 = tcase_create("real daemon");

    tcase_add_test(tc0, fork_child_reconnects);
    tcase_add_test(tc0, fork_child_leaves_pipelined_reply);
    tcase_add_test(tc0, fork_generations_each_connect);
    suite_add_tcase(s, tc0);
    tcase_add_test(tc1, real_daemon_fork_safety);
    suite_add_tcase(s, tc1);
    return util_run_suite(s);
}
