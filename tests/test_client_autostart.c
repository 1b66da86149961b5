/*
 * test_client_autostart — starting the daemon from the client: a daemon that
 * cannot start, an auto-started program that exits at once (the client says
 * why, at once), a daemon out of file descriptors, a refused socket
 * directory, and sixteen clients auto-starting at once ending with one
 * daemon.
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

/* A started daemon that exits at once (here: an option it refuses) fails
 * the connect at once, not after the connect budget, and the error names
 * its exit status and what it printed. */
START_TEST(real_daemon_that_cannot_start)
{
    static const char *const bad_args[] = {"--log-level", "loud", NULL};
    tdaemon d;
    ts_client_options o;
    ts_client *c = NULL;
    ts_error err;
    int64_t start = util_now_ms();

    tdaemon_prepare(&d);
    ts_client_options_init(&o);
    o.socket_path = d.socket;
    o.daemon_path = tdaemon_binary();
    o.daemon_args = bad_args;
    o.connect_timeout_ms = 5000;
    ck_assert_int_lt(ts_client_connect(&o, &c, &err), 0);
    ck_assert_ptr_null(c);
    ck_assert_int_lt(util_now_ms() - start, 2000); /* a sanity bound, far below the 5 s budget */
    ck_assert_str_eq(err.code, "unavailable");
    ck_assert_msg(strstr(err.message, d.socket) != NULL, "%s", err.message);
    ck_assert_msg(strstr(err.message, "exited with status 2: toolscored: --log-level: expected "
                                      "debug, info, warn or error, got 'loud'") != NULL,
                  "%s", err.message);
    ck_assert_ptr_null(strchr(err.message, '\n'));
    util_wait_no_daemon(d.socket);
    tdaemon_cleanup(&d);
}
END_TEST

/* Write an executable shell script at dir/name. */
static void write_script(char *path, size_t pathsz, const char *dir, const char *name,
                         const char *body)
{
    FILE *fp;

    snprintf(path, pathsz, "%s/%s", dir, name);
    fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fprintf(fp, "#!/bin/sh\n%s\n", body);
    ck_assert_int_eq(fclose(fp), 0);
    ck_assert_int_eq(chmod(path, 0700), 0);
}

/* Connect with daemon as the program to auto-start (5 s budget); returns
 * the milliseconds it took to fail. */
static int64_t connect_fails(const char *sock, const char *daemon, int budget_ms, ts_error *err)
{
    ts_client_options o;
    ts_client *c = NULL;
    int64_t start = util_now_ms();

    ts_client_options_init(&o);
    o.socket_path = sock;
    o.daemon_path = daemon;
    o.connect_timeout_ms = budget_ms;
    ck_assert_int_lt(ts_client_connect(&o, &c, err), 0);
    ck_assert_ptr_null(c);
    ck_assert_str_eq(err->code, "unavailable");
    ck_assert_ptr_null(strchr(err->message, '\n'));
    return util_now_ms() - start;
}

/* Programs that are no daemon at all: each failure arrives at once and says
 * how the program ended; one that runs but never listens still costs the
 * whole budget and says so. */
START_TEST(autostarted_program_that_exits)
{
    tdaemon d;
    ts_error err;
    char path[700];
    int64_t ms;

    tdaemon_prepare(&d);
    /* exits 1 without a word (TOOLSCORED=/bin/false) */
    setenv("TOOLSCORED", "/bin/false", 1);
    ms = connect_fails(d.socket, NULL, 5000, &err);
    unsetenv("TOOLSCORED");
    ck_assert_int_lt(ms, 2000);
    ck_assert_msg(strstr(err.message, "started /bin/false, but it exited with status 1") != NULL,
                  "%s", err.message);

    /* says why on stderr (several lines: the first is kept), exits 7 */
    write_script(path, sizeof(path), d.dir, "noisy",
                 "echo >&2\necho 'fake daemon: cannot open the widget' >&2\n"
                 "echo 'second line' >&2\nexit 7");
    ms = connect_fails(d.socket, path, 5000, &err);
    ck_assert_int_lt(ms, 2000);
    ck_assert_msg(
        strstr(err.message, "exited with status 7: fake daemon: cannot open the widget") != NULL,
        "%s", err.message);
    ck_assert_ptr_null(strstr(err.message, "second line"));

    /* the same from a caller that ignores SIGCHLD (the watcher must still
     * collect the daemon's status) */
    signal(SIGCHLD, SIG_IGN);
    ms = connect_fails(d.socket, path, 5000, &err);
    signal(SIGCHLD, SIG_DFL);
    ck_assert_int_lt(ms, 2000);
    ck_assert_msg(
        strstr(err.message, "exited with status 7: fake daemon: cannot open the widget") != NULL,
        "%s", err.message);

    /* the same from a caller whose descriptors 0-2 are closed (the watcher's
     * pipes then start at 0): a child process tries, and says by its exit
     * code whether the message named status 7 */
    {
        pid_t pid = fork();
        int status = 0;

        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            ts_client_options o;
            ts_client *c = NULL;

            close(0);
            close(1);
            close(2);
            ts_client_options_init(&o);
            o.socket_path = d.socket;
            o.daemon_path = path;
            o.connect_timeout_ms = 5000;
            if (ts_client_connect(&o, &c, &err) == 0)
                _exit(2);
            _exit(strstr(err.message, "exited with status 7: fake daemon") != NULL ? 0 : 3);
        }
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "with fds 0-2 closed: status %d", status);
    }

    /* killed by a signal */
    write_script(path, sizeof(path), d.dir, "killed", "kill -KILL $$");
    ms = connect_fails(d.socket, path, 5000, &err);
    ck_assert_int_lt(ms, 2000);
    ck_assert_msg(strstr(err.message, "it was killed by signal 9") != NULL, "%s", err.message);

    /* binary garbage on stderr comes back as one printable line */
    write_script(path, sizeof(path), d.dir, "garbage",
                 "printf 'bad\\001\\033[31mred\\r\\n' >&2; exit 1");
    ms = connect_fails(d.socket, path, 5000, &err);
    ck_assert_int_lt(ms, 2000);
    ck_assert_msg(strstr(err.message, "exited with status 1: bad") != NULL, "%s", err.message);
    for (const char *p = err.message; *p != '\0'; p++)
        ck_assert_msg((unsigned char)*p >= 0x20, "control byte in: %s", err.message);

    /* runs but never listens: the budget is spent, and the message says so */
    write_script(path, sizeof(path), d.dir, "silent", "exec sleep 3");
    ms = connect_fails(d.socket, path, 600, &err);
    ck_assert_int_ge(ms, 550);
    ck_assert_msg(strstr(err.message, "did not answer within 600 ms") != NULL, "%s", err.message);
    tdaemon_cleanup(&d);
}
END_TEST

/* Say hello on a raw connection: 1 when served, 0 when answered "busy"
 * (id nil) and closed; anything else fails the test. */
static int raw_hello(int fd)
{
    struct json_object *hello = json_object_new_object();
    struct json_object *reply = NULL, *error = NULL, *ok = NULL;
    int served;

    json_object_object_add(hello, "protocol", json_object_new_int(1));
    json_object_object_add(hello, "client", json_object_new_string("test/1"));
    /* a refused connection may be closed before the hello is sent: its
     * reply is read all the same */
    tdaemon_try_send(fd, 1, "hello", hello);
    json_object_put(hello);
    ck_assert_int_eq(tdaemon_read(fd, &reply, 5000), 0);
    ck_assert(json_object_object_get_ex(reply, "ok", &ok));
    served = json_object_get_boolean(ok);
    if (!served) {
        ck_assert(json_object_object_get_ex(reply, "error", &error));
        ck_assert_str_eq(tstr(error, "code"), "busy");
        ck_assert(json_object_is_type(json_object_object_get(reply, "id"), json_type_null));
        ck_assert(tdaemon_closed(fd, 2000));
    }
    json_object_put(reply);
    return served;
}

/* A daemon out of file descriptors answers a new client "busy" with the
 * reason, at once (no reset, no wait for the connect budget); its
 * connected clients carry on, and once descriptors free up it serves new
 * clients again. */
START_TEST(real_daemon_out_of_descriptors)
{
    enum { MAX_HELD = 200 };
    static const char *const limit[] = {"sh", "-c", "ulimit -n 40 && exec \"$@\"", "sh", NULL};
    int held[MAX_HELD];
    int n = 0;
    tdaemon d;
    ts_client_options o;
    ts_client *c = NULL;
    ts_error err;
    int64_t start;
    int i;

    tdaemon_prepare(&d);
    tdaemon_start_wrapped(&d, limit, NULL, 10000);
    /* Fill the daemon's descriptor table with connections. */
    for (;;) {
        int fd = tdaemon_connect_raw(d.socket);

        ck_assert_int_ge(fd, 0);
        if (!raw_hello(fd)) {
            close(fd);
            break;
        }
        ck_assert_int_lt(n, MAX_HELD); /* the limit must be hit long before */
        held[n++] = fd;
    }
    ck_assert_int_gt(n, 5);

    /* The library turns the refusal into the daemon's error, at once. */
    ts_client_options_init(&o);
    o.socket_path = d.socket;
    o.autostart = false;
    start = util_now_ms();
    ck_assert_int_eq(ts_client_connect(&o, &c, &err), TS_CLIENT_EREMOTE);
    ck_assert_int_lt(util_now_ms() - start, 2000);
    ck_assert_ptr_null(c);
    ck_assert_str_eq(err.code, "busy");
    ck_assert_msg(strstr(err.message, "cannot accept more connections: it has used all 40 file "
                                      "descriptors") != NULL,
                  "%s", err.message);
    /* so does an auto-starting client: the daemon answered, nothing starts */
    o.autostart = true;
    o.daemon_path = "/bin/false";
    ck_assert_int_eq(ts_client_connect(&o, &c, &err), TS_CLIENT_EREMOTE);
    ck_assert_str_eq(err.code, "busy");

    /* Connected clients are unaffected. */
    for (i = 0; i < n; i++) {
        struct json_object *r = tdaemon_ok(held[i], "ping", NULL);
        json_object_put(r);
    }

    /* Descriptors free up: new clients are served again. */
    for (i = 0; i < 4; i++)
        close(held[--n]);
    o.autostart = false;
    start = util_now_ms();
    for (;;) {
        int rc = ts_client_connect(&o, &c, &err);

        if (rc == 0)
            break;
        /* the daemon may not have seen the closes yet */
        ck_assert_msg(rc == TS_CLIENT_EREMOTE && strcmp(err.code, "busy") == 0, "%s: %s", err.code,
                      err.message);
        ck_assert_msg(util_now_ms() - start < 20000, "still busy 20 s after the closes");
        usleep(20000);
    }
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    {
        struct json_object *st = NULL;

        ck_assert_int_eq(ts_client_status(c, &st, &err), 0);
        /* the raw client and the two library clients at least */
        ck_assert_int_ge(json_object_get_int64(json_object_object_get(st, "refused_busy")), 3);
        json_object_put(st);
    }
    ts_client_close(c);
    for (i = 0; i < n; i++)
        close(held[i]);
    tdaemon_serves(d.socket);
    tdaemon_stop_ok(&d);
    {
        char *log = tdaemon_slurp(d.log);
        ck_assert_ptr_nonnull(log);
        ck_assert_ptr_nonnull(strstr(log, "out of file descriptors"));
        ck_assert_ptr_nonnull(strstr(log, "accepting connections again"));
        free(log);
    }
    tdaemon_cleanup(&d);
}
END_TEST

/* A socket directory the daemon would refuse (open to others): the client
 * says so at once, naming the directory and its mode, and starts nothing. */
START_TEST(real_daemon_refused_socket_dir)
{
    tdaemon d;
    ts_client_options o;
    ts_client *c = NULL;
    ts_error err;
    char dir[600];
    char sock[700];
    int64_t start = util_now_ms();

    tdaemon_prepare(&d);
    snprintf(dir, sizeof(dir), "%s/run", d.dir);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    ck_assert_int_eq(chmod(dir, 0755), 0);
    snprintf(sock, sizeof(sock), "%s/toolscored.sock", dir);
    ts_client_options_init(&o);
    o.socket_path = sock;
    o.daemon_path = tdaemon_binary();
    o.daemon_args = util_idle_args;
    o.connect_timeout_ms = 5000;
    ck_assert_int_lt(ts_client_connect(&o, &c, &err), 0);
    ck_assert_ptr_null(c);
    ck_assert_str_eq(err.code, "unavailable");
    ck_assert_ptr_nonnull(strstr(err.message, sock));
    ck_assert_ptr_nonnull(strstr(err.message, "0755"));
    ck_assert_ptr_null(strchr(err.message, '\n'));
    ck_assert_int_lt(util_now_ms() - start, 1000);
    ck_assert_int_ne(access(sock, F_OK), 0);
    tdaemon_cleanup(&d);
}
END_TEST

/* Sixteen processes find no daemon at the same moment and all auto-start:
 * they all end up talking to one and the same daemon. */
START_TEST(real_daemon_sixteen_autostarts_one_daemon)
{
    enum { N = 16 };
    tdaemon d;
    int fds[2];
    pid_t kids[N];
    long pids[N];
    pid_t daemon_pid = 0;
    ts_client *c;
    ts_error err;
    int i, rc, status;

    tdaemon_prepare(&d);
    ck_assert_int_eq(pipe(fds), 0);
    for (i = 0; i < N; i++) {
        kids[i] = fork();
        ck_assert_int_ge(kids[i], 0);
        if (kids[i] == 0) {
            long server = -1;
            close(fds[0]);
            c = util_autostart_client(d.socket, &err, &rc);
            if (rc == 0) {
                server = (long)json_object_get_int64(
                    json_object_object_get((struct json_object *)ts_client_server_info(c), "pid"));
                if (ts_client_ping(c, &err) < 0)
                    server = -2;
                ts_client_close(c);
            }
            if (write(fds[1], &server, sizeof(server)) != sizeof(server))
                _exit(2);
            _exit(rc == 0 ? 0 : 1);
        }
    }
    close(fds[1]);
    for (i = 0; i < N; i++)
        ck_assert_int_eq(read(fds[0], &pids[i], sizeof(pids[i])), sizeof(pids[i]));
    close(fds[0]);
    for (i = 0; i < N; i++) {
        ck_assert_int_eq(waitpid(kids[i], &status, 0), kids[i]);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "client %d failed", i);
        ck_assert_int_gt(pids[i], 0);
        ck_assert_int_eq(pids[i], pids[0]);
    }
    /* the losers of the lock race are gone (20 s at most); one daemon
     * serves the socket */
    for (i = 0; i < 400 && util_daemons_on(d.socket, NULL) > 1; i++)
        usleep(50000);
    ck_assert_int_eq(util_daemons_on(d.socket, &daemon_pid), 1);
    ck_assert_int_eq(daemon_pid, pids[0]);
    c = util_autostart_client(d.socket, &err, &rc);
    ck_assert_int_eq(rc, 0);
    util_stop_and_close(c, d.socket);
    tdaemon_cleanup(&d);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("client_autostart");
    TCase *tc0 = tcase_create("real daemon");

    tcase_add_test(tc0, real_daemon_that_cannot_start);
    tcase_add_test(tc0, autostarted_program_that_exits);
    tcase_add_test(tc0, real_daemon_out_of_descriptors);
    tcase_add_test(tc0, real_daemon_refused_socket_dir);
    tcase_add_test(tc0, real_daemon_sixteen_autostarts_one_daemon);
    suite_add_tcase(s, tc0);
    return util_run_suite(s);
}
