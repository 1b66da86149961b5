/*
 * test_client_fake — libtoolscore-client against an in-test fake server
 * (tests/util_client.c) whose methods misbehave on purpose: connect, hello and
 * versions, calls and errors, pipelining, replies split across reads, broken
 * connections, frames never asked for, garbage replies, timeouts, frame
 * limits, long socket paths, the typed helpers' params and the check
 * arguments.
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

/* ---- against the fake server ---------------------------------------- */

START_TEST(connect_hello_and_call)
{
    fake f;
    ts_client *c;
    ts_error err;
    struct json_object *params = json_tokener_parse("{\"i\": 3, \"d\": 3.0, \"s\": \"\\u00e9\"}");
    struct json_object *res = NULL;
    const fake_entry *hello;

    fake_start(&f);
    c = util_client_connect(f.sock);
    hello = fake_last(&f, "hello");
    ck_assert_ptr_nonnull(hello);
    ck_assert_int_eq(json_object_get_int(json_object_object_get(hello->params, "protocol")), 1);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(hello->params, "client")),
                     "test_client/1");
    ck_assert_int_eq(hello->hello_pid, getpid());
    ck_assert_str_eq(json_object_get_string(json_object_object_get(
                         (struct json_object *)ts_client_server_info(c), "server")),
                     "fake/1");
    ck_assert_str_eq(ts_client_socket_path(c), f.sock);

    ck_assert_int_eq(ts_client_call(c, "echo", params, &res, &err), 0);
    ck_assert(json_object_equal(json_object_object_get(res, "params"), params));
    ck_assert(json_object_is_type(
        json_object_object_get(json_object_object_get(res, "params"), "d"), json_type_double));
    json_object_put(res);
    ck_assert_int_eq(ts_client_ping(c, &err), 0);

    /* an error reply: the server's code and message, connection kept */
    ck_assert_int_eq(ts_client_call(c, "fail", NULL, &res, &err), TS_CLIENT_EREMOTE);
    ck_assert_str_eq(err.code, "not_found");
    ck_assert_str_eq(err.message, "no such thing");
    ck_assert(!ts_client_error_is_connection(&err));
    ck_assert_ptr_null(res);
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ck_assert_int_eq(f.nconn, 1);
    ts_client_close(c);
    fake_stop(&f);
    json_object_put(params);
}
END_TEST

START_TEST(no_daemon_without_autostart)
{
    ts_client_options o;
    ts_client *c = NULL;
    ts_error err;
    int64_t start = util_now_ms();

    ts_client_options_init(&o);
    o.socket_path = "/tmp/ts-client-no-such-dir/x.sock";
    o.autostart = false;
    ck_assert_int_eq(ts_client_connect(&o, &c, &err), -ENOENT);
    ck_assert_ptr_null(c);
    ck_assert_str_eq(err.code, "unavailable");
    ck_assert_ptr_nonnull(strstr(err.message, "/tmp/ts-client-no-such-dir/x.sock"));
    ck_assert(ts_client_error_is_connection(&err));
    ck_assert_int_lt(util_now_ms() - start, 1000);
}
END_TEST

START_TEST(autostart_without_binary)
{
    ts_client_options o;
    ts_client *c = NULL;
    ts_error err;
    char dir[] = "/tmp/ts-client-XXXXXX";
    char sock[128], file[128];
    FILE *fp;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(sock, sizeof(sock), "%s/x.sock", dir);
    ts_client_options_init(&o);
    o.socket_path = sock;
    setenv("TOOLSCORED", "/nonexistent/toolscored", 1);
    ck_assert_int_lt(ts_client_connect(&o, &c, &err), 0);
    ck_assert_str_eq(err.code, "unavailable");
    ck_assert_ptr_nonnull(strstr(err.message, "TOOLSCORED=/nonexistent/toolscored"));
    ck_assert_ptr_nonnull(strstr(err.message, sock));
    o.daemon_path = "/nonexistent/other";
    ck_assert_int_lt(ts_client_connect(&o, &c, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "/nonexistent/other"));
    /* not executable */
    snprintf(file, sizeof(file), "%s/daemon", dir);
    fp = fopen(file, "w");
    ck_assert_ptr_nonnull(fp);
    fputs("not a program\n", fp);
    fclose(fp);
    ck_assert_int_eq(chmod(file, 0600), 0);
    o.daemon_path = file;
    ck_assert_int_lt(ts_client_connect(&o, &c, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "not an executable"));
    /* executable, but exec fails: the exec error is reported at once */
    ck_assert_int_eq(chmod(file, 0700), 0);
    ck_assert_int_lt(ts_client_connect(&o, &c, &err), 0);
    ck_assert_str_eq(err.code, "unavailable");
    ck_assert_ptr_nonnull(strstr(err.message, "cannot start"));
    ck_assert_ptr_nonnull(strstr(err.message, strerror(ENOEXEC)));
    unlink(file);
    unsetenv("TOOLSCORED");
    rmdir(dir);
}
END_TEST

START_TEST(socket_from_environment)
{
    fake f;
    ts_client *c;
    ts_client_options o;
    ts_error err;
    char path[TS_PATHS_MAX];

    fake_start(&f);
    setenv("TOOLSCORE_SOCKET", f.sock, 1);
    ck_assert_int_eq(ts_client_default_socket(path, sizeof(path), &err), 0);
    ck_assert_str_eq(path, f.sock);
    ts_client_options_init(&o);
    o.autostart = false;
    ck_assert_int_eq(ts_client_connect(&o, &c, &err), 0);
    ck_assert_str_eq(ts_client_socket_path(c), f.sock);
    ts_client_close(c);
    unsetenv("TOOLSCORE_SOCKET");
    setenv("XDG_RUNTIME_DIR", "/run/user/77", 1);
    ck_assert_int_eq(ts_client_default_socket(path, sizeof(path), &err), 0);
    ck_assert_str_eq(path, "/run/user/77/toolscore/toolscored.sock");
    /* a relative socket path is made absolute at connect time */
    ck_assert_int_eq(chdir(f.dir), 0);
    o.socket_path = "fake.sock";
    ck_assert_int_eq(ts_client_connect(&o, &c, &err), 0);
    ck_assert_str_eq(ts_client_socket_path(c), f.sock);
    ts_client_close(c);
    fake_stop(&f);
}
END_TEST

START_TEST(version_mismatch_from_fake)
{
    fake f;
    ts_client_options o;
    ts_client *c = NULL;
    ts_error err;

    fake_start(&f);
    ts_client_options_init(&o);
    o.socket_path = f.sock;
    o.autostart = false;
    o.protocol = 7;
    ck_assert_int_eq(ts_client_connect(&o, &c, &err), TS_CLIENT_EREMOTE);
    ck_assert_ptr_null(c);
    ck_assert_str_eq(err.code, "version_mismatch");
    ck_assert_str_eq(err.message, "client speaks protocol 7, server speaks protocol 1");
    ck_assert(ts_client_error_is_connection(&err));
    fake_stop(&f);
}
END_TEST

START_TEST(pipelining_in_order)
{
    fake f;
    ts_client *c;
    ts_error err;
    uint64_t ids[50];
    int i;

    fake_start(&f);
    c = util_client_connect(f.sock);
    for (i = 0; i < 50; i++) {
        struct json_object *p = json_object_new_object();
        json_object_object_add(p, "n", json_object_new_int(i));
        ck_assert_int_eq(ts_client_send(c, "echo", p, &ids[i], &err), 0);
        json_object_put(p);
        if (i > 0)
            ck_assert_uint_gt(ids[i], ids[i - 1]);
    }
    /* a plain call while replies are outstanding is refused, not confused */
    ck_assert_int_eq(ts_client_call(c, "ping", NULL, NULL, &err), -EBUSY);
    for (i = 0; i < 50; i++) {
        struct json_object *res = NULL;
        uint64_t id = 0;
        ck_assert_int_eq(ts_client_receive(c, &id, &res, &err), 0);
        ck_assert_uint_eq(id, ids[i]);
        ck_assert_int_eq(
            json_object_get_int(json_object_object_get(json_object_object_get(res, "params"), "n")),
            i);
        json_object_put(res);
    }
    ck_assert_int_eq(ts_client_receive(c, NULL, NULL, &err), -EINVAL);
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ts_client_close(c);
    fake_stop(&f);
}
END_TEST

/* Replies cut across reads (headers and payloads in pieces, a piece ending
 * two bytes short of the frame, a piece starting with bytes that look like
 * a frame header) and replies read whole, one after the other on one
 * connection, each arrive intact. */
START_TEST(replies_split_across_reads)
{
    static const char *const methods[] = {"split", "echo", "split", "cut", "echo", "split"};
    static const char looks_like_header[] = {0, 0, 0, 5, 'a', 'b', 'c', 'd', 'e', 'f'};
    fake f;
    ts_client *c;
    ts_error err;
    uint64_t ids[6];
    struct json_object *res = NULL;
    size_t i;

    fake_start(&f);
    c = util_client_connect(f.sock);
    for (i = 0; i < 6; i++) {
        struct json_object *p = json_object_new_object();
        json_object_object_add(p, "n", json_object_new_int((int)i));
        json_object_object_add(
            p, "s", json_object_new_string_len(looks_like_header, sizeof(looks_like_header)));
        ck_assert_int_eq(ts_client_send(c, methods[i], p, &ids[i], &err), 0);
        json_object_put(p);
    }
    for (i = 0; i < 6; i++) {
        uint64_t id = 0;
        ck_assert_int_eq(ts_client_receive(c, &id, &res, &err), 0);
        ck_assert_uint_eq(id, ids[i]);
        ck_assert_str_eq(json_object_get_string(json_object_object_get(res, "method")), methods[i]);
        ck_assert_int_eq(
            json_object_get_int(json_object_object_get(json_object_object_get(res, "params"), "n")),
            (int)i);
        ck_assert_int_eq(json_object_get_string_len(
                             json_object_object_get(json_object_object_get(res, "params"), "s")),
                         sizeof(looks_like_header));
        json_object_put(res);
    }
    ck_assert_int_eq(ts_client_call(c, "cut", NULL, &res, &err), 0);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(res, "method")), "cut");
    json_object_put(res);
    ck_assert_int_eq(ts_client_call(c, "split", NULL, &res, &err), 0);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(res, "method")), "split");
    json_object_put(res);
    ck_assert_int_eq(ts_client_call(c, "echo", NULL, &res, &err), 0);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(res, "method")), "echo");
    json_object_put(res);
    ck_assert_int_eq(f.nconn, 1);
    ts_client_close(c);
    fake_stop(&f);
}
END_TEST

START_TEST(broken_connection_reconnects)
{
    fake f;
    ts_client *c;
    ts_error err;

    fake_start(&f);
    c = util_client_connect(f.sock);
    ck_assert_int_lt(ts_client_call(c, "drop", NULL, NULL, &err), 0);
    ck_assert_str_eq(err.code, "disconnected");
    ck_assert(ts_client_error_is_connection(&err));
    /* the next call connects again (and says hello again) */
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ck_assert_int_eq(f.nconn, 2);

    /* a daemon that closed an idle connection (restart, idle timeout) is
     * noticed before the next request, which goes out on a new connection */
    ck_assert_int_eq(ts_client_call(c, "bye", NULL, NULL, &err), 0);
    fake_wait_closed(&f, 2); /* "drop"'s connection, then this one */
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ck_assert_int_eq(f.nconn, 3);
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ck_assert_int_eq(f.nconn, 3);

    /* an error with id nil ends the connection too; the next call recovers */
    ck_assert_int_eq(ts_client_call(c, "nilerr", NULL, NULL, &err), TS_CLIENT_EREMOTE);
    ck_assert_str_eq(err.code, "limit");
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ck_assert_int_eq(f.nconn, 4);
    ts_client_close(c);
    fake_stop(&f);
}
END_TEST

/* Longer than the client's idle interval (TS_CLIENT_PROBE_IDLE_MS, 500 ms):
 * a connection idle this long is probed before a request. */
#define IDLE_LONG_US 700000

/*
 * A daemon that closes a connection right after a reply (stop, restart):
 * the next request, sent at once, is refused by the closed socket and goes
 * out once, on a new connection. After a long idle the close is noticed
 * before sending. Either way the caller sees no error and the request
 * reaches the server exactly once.
 */
START_TEST(closed_after_reply_resends_once)
{
    fake f;
    ts_client *c;
    ts_error err;
    int conn;

    fake_start(&f);
    c = util_client_connect(f.sock);
    ck_assert_int_eq(ts_client_call(c, "bye", NULL, NULL, &err), 0);
    fake_wait_closed(&f, 1);
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ck_assert_int_eq(f.nconn, 2);
    ck_assert_int_eq(fake_count(&f, "ping", &conn), 1);
    ck_assert_int_eq(conn, 1);
    ck_assert_int_eq(fake_count(&f, "hello", &conn), 2);

    ck_assert_int_eq(ts_client_call(c, "bye", NULL, NULL, &err), 0);
    fake_wait_closed(&f, 2);
    usleep(IDLE_LONG_US);
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ck_assert_int_eq(f.nconn, 3);
    ck_assert_int_eq(fake_count(&f, "ping", &conn), 2);
    ck_assert_int_eq(conn, 2);

    /* with the connection alive, nothing is resent and nothing reconnects */
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    usleep(IDLE_LONG_US);
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ck_assert_int_eq(f.nconn, 3);
    ck_assert_int_eq(fake_count(&f, "ping", &conn), 4);
    ts_client_close(c);
    fake_stop(&f);
}
END_TEST

/*
 * A server writing a frame nobody asked for (toolscored never does): after
 * a long idle the probe notices it and the request goes out on a new
 * connection. Soon after a reply the probe is skipped: the frame is then
 * read in place of the next reply, whose id it does not carry, so the call
 * fails with bad_reply rather than return it; either way the caller never
 * gets the unasked frame as its answer, and the next call works.
 */
START_TEST(unasked_frame_never_taken_as_reply)
{
    fake f;
    ts_client *c;
    ts_error err;
    struct json_object *res = (struct json_object *)0x1;
    int conn;
    int rc;

    fake_start(&f);
    c = util_client_connect(f.sock);
    ck_assert_int_eq(ts_client_call(c, "stray", NULL, NULL, &err), 0);
    fake_wait_strays(&f, 1);
    usleep(IDLE_LONG_US);
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ck_assert_int_eq(f.nconn, 2);
    ck_assert_int_eq(fake_count(&f, "ping", &conn), 1);
    ck_assert_int_eq(conn, 1);

    ck_assert_int_eq(ts_client_call(c, "stray", NULL, NULL, &err), 0);
    fake_wait_strays(&f, 2); /* the unasked frame has arrived */
    rc = ts_client_call(c, "echo", NULL, &res, &err);
    if (rc == 0) {
        ck_assert_str_eq(json_object_get_string(json_object_object_get(res, "method")), "echo");
        json_object_put(res);
    } else {
        ck_assert_int_eq(rc, -EPROTO);
        ck_assert_str_eq(err.code, "bad_reply");
        ck_assert_ptr_null(res);
    }
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ck_assert_int_eq(f.nconn, 3);
    ts_client_close(c);
    fake_stop(&f);
}
END_TEST

START_TEST(bad_replies)
{
    fake f;
    ts_client *c;
    ts_error err;
    struct json_object *res = (struct json_object *)0x1;

    fake_start(&f);
    c = util_client_connect(f.sock);
    ck_assert_int_lt(ts_client_call(c, "garbage", NULL, &res, &err), 0);
    ck_assert_str_eq(err.code, "bad_reply");
    ck_assert_ptr_null(res);
    ck_assert_int_lt(ts_client_call(c, "huge", NULL, &res, &err), 0);
    ck_assert_str_eq(err.code, "frame_too_large");
    ck_assert_ptr_nonnull(strstr(err.message, "16777216"));
    ck_assert_int_lt(ts_client_call(c, "wrongid", NULL, &res, &err), 0);
    ck_assert_str_eq(err.code, "bad_reply");
    ck_assert(ts_client_error_is_connection(&err));
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ts_client_close(c);
    fake_stop(&f);
}
END_TEST

START_TEST(request_timeout)
{
    fake f;
    ts_client_options o;
    ts_client *c;
    ts_error err;
    int64_t start;

    fake_start(&f);
    ts_client_options_init(&o);
    o.socket_path = f.sock;
    o.autostart = false;
    o.request_timeout_ms = 300;
    ck_assert_int_eq(ts_client_connect(&o, &c, &err), 0);
    start = util_now_ms();
    ck_assert_int_eq(ts_client_call(c, "hang", NULL, NULL, &err), -ETIMEDOUT);
    ck_assert_str_eq(err.code, "timeout");
    ck_assert_int_ge(util_now_ms() - start, 250);
    ck_assert_int_lt(util_now_ms() - start, 3000);
    ck_assert_int_eq(ts_client_ping(c, &err), 0); /* a fresh connection */
    ts_client_close(c);
    fake_stop(&f);
}
END_TEST

/* The default deadlines, overridden by TOOLSCORE_TIMEOUT (seconds): a reply
 * that does not come fails with "timeout", naming the daemon (socket, pid
 * from its hello), the request and what to do; a value that is no number
 * of seconds is refused at connect, naming the variable. */
START_TEST(request_deadline_from_the_environment)
{
    fake f;
    ts_client_options o;
    ts_client *c;
    ts_error err;
    char want[4400];
    int64_t start;

    fake_start(&f);
    ts_client_options_init(&o);
    o.socket_path = f.sock;
    o.autostart = false;
    setenv("TOOLSCORE_TIMEOUT", "0.3", 1);
    ck_assert_int_eq(ts_client_connect(&o, &c, &err), 0);
    start = util_now_ms();
    ck_assert_int_eq(ts_client_call(c, "hang", NULL, NULL, &err), -ETIMEDOUT);
    ck_assert_str_eq(err.code, "timeout");
    ck_assert_int_ge(util_now_ms() - start, 250);
    ck_assert_int_lt(util_now_ms() - start, 3000);
    snprintf(want, sizeof(want),
             "toolscored (pid %ld, socket %s) did not answer hang within 0.300 s", (long)getpid(),
             f.sock);
    ck_assert_msg(strstr(err.message, want) != NULL, "%s", err.message);
    ck_assert_ptr_nonnull(strstr(err.message, "TOOLSCORE_TIMEOUT"));
    ck_assert(ts_client_error_is_connection(&err));
    ck_assert_int_eq(ts_client_ping(c, &err), 0); /* a fresh connection */
    ts_client_close(c);
    for (size_t i = 0; i < 4; i++) {
        static const char *const bad[] = {"soon", "-1", "1e3", "90000"};

        setenv("TOOLSCORE_TIMEOUT", bad[i], 1);
        ck_assert_int_eq(ts_client_connect(&o, &c, &err), -EINVAL);
        ck_assert_str_eq(err.code, "invalid_argument");
        ck_assert_ptr_nonnull(strstr(err.message, "TOOLSCORE_TIMEOUT is '"));
    }
    /* the option wins over the environment */
    o.request_timeout_ms = 200;
    ck_assert_int_eq(ts_client_connect(&o, &c, &err), 0);
    ck_assert_int_eq(ts_client_call(c, "hang", NULL, NULL, &err), -ETIMEDOUT);
    ck_assert_ptr_nonnull(strstr(err.message, "within 0.200 s"));
    ts_client_close(c);
    unsetenv("TOOLSCORE_TIMEOUT");
    fake_stop(&f);
}
END_TEST

START_TEST(request_over_server_max_frame)
{
    fake f;
    ts_client *c;
    ts_error err;
    struct json_object *p = json_object_new_object();
    char big[3000];

    memset(big, 'x', sizeof(big));
    json_object_object_add(p, "blob", json_object_new_string_len(big, sizeof(big)));
    fake_start_at(&f, NULL, 2048);
    c = util_client_connect(f.sock);
    ck_assert_int_eq(ts_client_call(c, "echo", p, NULL, &err), -E2BIG);
    ck_assert_str_eq(err.code, "too_large");
    ck_assert_ptr_nonnull(strstr(err.message, "2048"));
    ck_assert_int_eq(ts_client_ping(c, &err), 0); /* nothing was sent */
    ck_assert_int_eq(f.nconn, 1);
    ts_client_close(c);
    fake_stop(&f);
    json_object_put(p);
}
END_TEST

START_TEST(long_socket_path)
{
    fake f;
    char dir[] = "/tmp/ts-client-XXXXXX";
    char path[TS_PATHS_MAX];
    ts_client *c;
    ts_error err;
    int i;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s", dir);
    for (i = 0; i < 3; i++) {
        strcat(path, "/a-rather-long-directory-name-for-a-socket-path");
        ck_assert_int_eq(mkdir(path, 0700), 0);
    }
    strcat(path, "/toolscored.sock");
    ck_assert_uint_gt(strlen(path), 107);
    fake_start_at(&f, path, 0);
    c = util_client_connect(path);
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ts_client_close(c);
    fake_stop(&f);
    ck_assert_int_eq(util_remove_tree(dir), 0);
}
END_TEST

START_TEST(typed_helpers_send_documented_params)
{
    fake f;
    ts_client *c;
    ts_error err;
    ts_check_args *a = ts_check_args_new();
    ts_record_args r;
    struct json_object *calls = json_tokener_parse("[{\"tool\": \"t\", \"args\": {}}]");
    struct json_object *weights = json_tokener_parse("{\"tool\": 2}");
    struct json_object *res = NULL;
    struct json_object *snap;
    const char *names[] = {"a", "b"};
    char store[TS_PATHS_MAX], want[TS_PATHS_MAX];
    const fake_entry *e;

    fake_start(&f);
    c = util_client_connect(f.sock);
    /* the store is sent absolute and symlink-resolved, even when missing */
    snprintf(store, sizeof(store), "%s/link", f.dir);
    ck_assert_int_eq(symlink(".", store), 0);
    snprintf(store, sizeof(store), "%s/link/snaps", f.dir);
    snprintf(want, sizeof(want), "%s/snaps", f.dir);

    ts_check_args_set_store(a, store);
    ts_check_args_set_name(a, "flow");
    ts_check_args_set_actual(a, calls);
    ts_check_args_set_weights(a, weights);
    ts_check_args_set_ci(a, true);
    ts_check_args_set_run(a, "r1");
    ts_check_args_set_test(a, "t::x");
    ck_assert_int_eq(ts_client_check(c, a, &res, &err), 0);
    json_object_put(res);
    e = fake_last(&f, "check");
    ck_assert_str_eq(json_object_get_string(fake_param(e, "store")), want);
    ck_assert_str_eq(json_object_get_string(fake_param(e, "name")), "flow");
    ck_assert(json_object_equal(fake_param(e, "actual"), calls));
    ck_assert(json_object_equal(fake_param(e, "weights"), weights));
    ck_assert(json_object_get_boolean(fake_param(e, "ci")));
    ck_assert_str_eq(json_object_get_string(fake_param(e, "run")), "r1");
    ck_assert_str_eq(json_object_get_string(fake_param(e, "test")), "t::x");
    /* members at their protocol default are left out (the daemon reads
     * an absent one as its default) */
    static const char *const defaults[] = {"format", "min_score",     "strict",
                                           "update", "allow_pending", "color"};
    for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
        ck_assert_msg(!json_object_object_get_ex(e->params, defaults[i], NULL), "%s was sent",
                      defaults[i]);
    ck_assert(!json_object_object_get_ex(e->params, "width", NULL));
    ck_assert(!json_object_object_get_ex(e->params, "json_diff", NULL));
    ck_assert(!json_object_object_get_ex(e->params, "tsctl", NULL));
    /* and every other value is sent as given */
    ts_check_args_set_format(a, "openai");
    ts_check_args_set_min_score(a, 0.5);
    ts_check_args_set_strict(a, true);
    ts_check_args_set_update(a, true);
    ts_check_args_set_allow_pending(a, true);
    ts_check_args_set_color(a, true);
    ts_check_args_set_width(a, 80);
    ts_check_args_set_json_diff(a, false);
    ts_check_args_set_tsctl(a, "npx tsctl");
    ck_assert_int_eq(ts_client_check(c, a, &res, &err), 0);
    json_object_put(res);
    e = fake_last(&f, "check");
    ck_assert_str_eq(json_object_get_string(fake_param(e, "tsctl")), "npx tsctl");
    ck_assert(json_object_is_type(fake_param(e, "width"), json_type_int));
    ck_assert_int_eq(json_object_get_int64(fake_param(e, "width")), 80);
    ck_assert(json_object_is_type(fake_param(e, "json_diff"), json_type_boolean));
    ck_assert(!json_object_get_boolean(fake_param(e, "json_diff")));
    ck_assert_str_eq(json_object_get_string(fake_param(e, "format")), "openai");
    ck_assert(json_object_is_type(fake_param(e, "min_score"), json_type_double));
    ck_assert(json_object_get_double(fake_param(e, "min_score")) == 0.5);
    for (size_t i = 2; i < sizeof(defaults) / sizeof(defaults[0]); i++)
        ck_assert_msg(json_object_get_boolean(fake_param(e, defaults[i])), "%s", defaults[i]);
    ts_check_args_set_min_score(a, 0); /* 0 is not the default */
    ts_check_args_set_width(a, 70000); /* past the protocol's limit: sent as it */
    ts_check_args_set_json_diff(a, true);
    ck_assert_int_eq(ts_client_check(c, a, &res, &err), 0);
    json_object_put(res);
    e = fake_last(&f, "check");
    ck_assert(json_object_get_double(fake_param(e, "min_score")) == 0.0);
    ck_assert_int_eq(json_object_get_int64(fake_param(e, "width")), TS_CHECK_WIDTH_MAX);
    ck_assert(!json_object_object_get_ex(e->params, "json_diff", NULL));
    ts_check_args_set_name(a, ""); /* the empty name is a name */
    ck_assert_int_eq(ts_client_check(c, a, &res, &err), 0);
    json_object_put(res);
    ck_assert_str_eq(json_object_get_string(fake_param(fake_last(&f, "check"), "name")), "");
    ts_check_args_free(a);
    a = ts_check_args_new();
    ts_check_args_set_store(a, store);
    ts_check_args_set_actual(a, calls);
    /* required params are checked before anything is sent */
    ts_check_args_set_name(a, NULL);
    ck_assert_int_eq(ts_client_check(c, a, &res, &err), -EINVAL);
    ck_assert_str_eq(err.code, "invalid_argument");
    ck_assert_ptr_nonnull(strstr(err.message, "name"));
    ts_check_args_set_name(a, "flow");
    ts_check_args_set_actual(a, NULL);
    ck_assert_int_eq(ts_client_check(c, a, &res, &err), -EINVAL);
    ts_check_args_set_store(a, NULL);
    ck_assert_int_eq(ts_client_check(c, a, &res, &err), -EINVAL);

    ts_record_args_init(&r);
    r.store = store;
    r.name = "imported";
    r.calls = calls;
    r.update = true;
    ck_assert_int_eq(ts_client_record(c, &r, NULL, &err), 0);
    e = fake_last(&f, "record");
    ck_assert_str_eq(json_object_get_string(fake_param(e, "source")), "trace");
    ck_assert(json_object_get_boolean(fake_param(e, "update")));

    /* save: the snapshot object sent as it is, only read */
    snap = json_tokener_parse("{\"name\": \"s\", \"approved\": true, \"calls\": []}");
    ck_assert_int_eq(ts_client_save(c, store, snap, NULL, &err), 0);
    e = fake_last(&f, "save");
    ck_assert_str_eq(json_object_get_string(fake_param(e, "store")), want);
    ck_assert_str_eq(json_object_to_json_string_ext(fake_param(e, "snapshot"), 0),
                     json_object_to_json_string_ext(snap, 0));
    ck_assert_int_eq(json_object_get_int(json_object_object_get(snap, "approved")), 1);
    ck_assert_int_eq(ts_client_save(c, store, NULL, NULL, &err), -EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "snapshot"));
    ck_assert_int_eq(ts_client_save(c, store, calls, NULL, &err), -EINVAL);
    ck_assert_str_eq(err.message, "'snapshot' must be an object");
    json_object_put(snap);

    ck_assert_int_eq(ts_client_approve(c, store, names, 2, false, NULL, &err), 0);
    e = fake_last(&f, "approve");
    ck_assert_int_eq(json_object_array_length(fake_param(e, "names")), 2);
    ck_assert_ptr_null(fake_param(e, "all"));
    ck_assert_int_eq(ts_client_approve(c, store, NULL, 0, true, NULL, &err), 0);
    e = fake_last(&f, "approve");
    ck_assert(json_object_get_boolean(fake_param(e, "all")));
    ck_assert_int_eq(ts_client_approve(c, store, NULL, 0, false, NULL, &err), -EINVAL);

    ck_assert_int_eq(ts_client_list(c, store, true, NULL, &err), 0);
    ck_assert(json_object_get_boolean(fake_param(fake_last(&f, "list"), "pending")));
    ck_assert_int_eq(ts_client_show(c, store, "flow", NULL, &err), 0);
    ck_assert_str_eq(json_object_get_string(fake_param(fake_last(&f, "show"), "name")), "flow");
    ck_assert_int_eq(ts_client_rm(c, store, "flow", NULL, &err), 0);
    /* the empty name is a name; a missing one is refused before sending */
    ck_assert_int_eq(ts_client_show(c, store, "", NULL, &err), 0);
    ck_assert_str_eq(json_object_get_string(fake_param(fake_last(&f, "show"), "name")), "");
    ck_assert_int_eq(ts_client_rm(c, store, "", NULL, &err), 0);
    ck_assert_str_eq(json_object_get_string(fake_param(fake_last(&f, "rm"), "name")), "");
    ck_assert_int_eq(ts_client_show(c, store, NULL, NULL, &err), -EINVAL);
    ck_assert_str_eq(err.message, "'name' is required");
    ck_assert_str_eq(json_object_get_string(fake_param(fake_last(&f, "rm"), "store")), want);
    ck_assert_int_eq(ts_client_run_open(c, store, "label", NULL, &err), 0);
    ck_assert_str_eq(json_object_get_string(fake_param(fake_last(&f, "run.open"), "label")),
                     "label");
    ck_assert_int_eq(ts_client_run_join(c, "r1", NULL, &err), 0);
    ck_assert_int_eq(ts_client_run_close(c, "r1", NULL, &err), 0);
    ck_assert_int_eq(ts_client_run_summary(c, "r1", NULL, &err), 0);
    ck_assert_str_eq(json_object_get_string(fake_param(fake_last(&f, "run.summary"), "run")), "r1");
    ck_assert_int_eq(ts_client_run_join(c, NULL, NULL, &err), -EINVAL);
    ck_assert_int_eq(ts_client_review(c, store, NULL, NULL, &err), 0);
    ck_assert_ptr_null(fake_param(fake_last(&f, "review"), "run"));
    ck_assert_int_eq(ts_client_orphans(c, store, "r1", NULL, &err), 0);
    ck_assert_int_eq(ts_client_status(c, &res, &err), 0);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(res, "method")), "status");
    json_object_put(res);
    ck_assert_int_eq(ts_client_stop(c, &err), 0);
    ck_assert_ptr_nonnull(fake_last(&f, "stop"));
    ts_client_close(c);
    fake_stop(&f);
    json_object_put(calls);
    json_object_put(weights);
    ts_check_args_free(a);
}
END_TEST

/* A ts_check_args keeps copies of the strings it was given (the caller's
 * may change at once) and borrows the values without touching their
 * reference counts; NULL clears an optional member; a NULL ts_check_args
 * is refused. */
START_TEST(check_args_keep_their_values)
{
    fake f;
    ts_client *c;
    ts_error err;
    ts_check_args *a = ts_check_args_new();
    struct json_object *calls = json_tokener_parse("[{\"tool\": \"t\", \"args\": {\"k\": 1}}]");
    struct json_object *want = json_tokener_parse("[{\"tool\": \"t\", \"args\": {\"k\": 1}}]");
    struct json_object *res = NULL;
    char name[16], run[16];
    const fake_entry *e;

    fake_start(&f);
    c = util_client_connect(f.sock);
    ck_assert_ptr_nonnull(a);
    snprintf(name, sizeof(name), "kept");
    snprintf(run, sizeof(run), "r9");
    ck_assert_int_eq(ts_check_args_set_store(a, f.dir), 0);
    ck_assert_int_eq(ts_check_args_set_name(a, name), 0);
    ck_assert_int_eq(ts_check_args_set_run(a, run), 0);
    ck_assert_int_eq(ts_check_args_set_actual(a, calls), 0);
    memset(name, 'x', sizeof(name) - 1);
    memset(run, 'y', sizeof(run) - 1);
    ck_assert_int_eq(ts_client_check(c, a, &res, &err), 0);
    json_object_put(res);
    e = fake_last(&f, "check");
    ck_assert_str_eq(json_object_get_string(fake_param(e, "name")), "kept");
    ck_assert_str_eq(json_object_get_string(fake_param(e, "run")), "r9");
    ck_assert(json_object_equal(fake_param(e, "actual"), want));
    /* borrowed: the caller's one reference is still the only one */
    ck_assert_int_eq(json_object_put(calls), 1);
    calls = NULL;
    ck_assert_int_eq(ts_check_args_set_actual(a, want), 0);
    /* the same arguments again, changed: run cleared, another name */
    ck_assert_int_eq(ts_check_args_set_run(a, NULL), 0);
    ck_assert_int_eq(ts_check_args_set_name(a, "second"), 0);
    ck_assert_int_eq(ts_client_check(c, a, NULL, &err), 0);
    e = fake_last(&f, "check");
    ck_assert_str_eq(json_object_get_string(fake_param(e, "name")), "second");
    ck_assert(!json_object_object_get_ex(e->params, "run", NULL));
    ck_assert_int_eq(ts_client_check(c, NULL, &res, &err), -EINVAL);
    ck_assert_str_eq(err.code, "invalid_argument");
    ck_assert_int_eq(ts_client_check_outcome(c, NULL, NULL, &err), -EINVAL);
    ts_check_args_free(a);
    ts_check_args_free(NULL);
    json_object_put(want);
    ts_client_close(c);
    fake_stop(&f);
}
END_TEST

/* store_busy names the socket of the daemon holding the store: the call
 * is answered by that daemon, and the connection stays there. */
START_TEST(store_busy_is_followed)
{
    fake a, b;
    ts_client *c;
    ts_error err;
    struct json_object *params;
    struct json_object *res = NULL;
    uint64_t id = 0;
    int conn;

    fake_start(&a);
    fake_start(&b);
    c = util_client_connect(a.sock);
    params = json_object_new_object();
    json_object_object_add(params, "to", json_object_new_string(b.sock));
    ck_assert_int_eq(ts_client_call(c, "redirect", params, &res, &err), 0);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(res, "method")), "redirect");
    json_object_put(res);
    ck_assert_int_eq(fake_count(&a, "redirect", &conn), 1);
    ck_assert_int_eq(fake_count(&b, "redirect", &conn), 1);
    ck_assert_str_eq(ts_client_socket_path(c), b.sock);
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ck_assert_int_eq(fake_count(&a, "ping", &conn), 0);
    ck_assert_int_eq(fake_count(&b, "ping", &conn), 1);
    ts_client_close(c);

    /* pipelined: the error comes back, later requests go to the holder */
    c = util_client_connect(a.sock);
    ck_assert_int_eq(ts_client_send(c, "redirect", params, &id, &err), 0);
    ck_assert_int_eq(ts_client_receive(c, &id, &res, &err), TS_CLIENT_EREMOTE);
    ck_assert_str_eq(err.code, "store_busy");
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ck_assert_str_eq(ts_client_socket_path(c), b.sock);
    ck_assert_int_eq(fake_count(&b, "ping", &conn), 2);
    ts_client_close(c);
    json_object_put(params);

    /* a holder that does not answer: said, and the connection stays put */
    params = json_object_new_object();
    json_object_object_add(params, "to", json_object_new_string("/nonexistent/ts/x.sock"));
    c = util_client_connect(a.sock);
    ck_assert_int_eq(ts_client_call(c, "redirect", params, &res, &err), TS_CLIENT_EREMOTE);
    ck_assert_str_eq(err.code, "unavailable");
    ck_assert_ptr_nonnull(strstr(err.message, "/nonexistent/ts/x.sock"));
    ck_assert_ptr_nonnull(strstr(err.message, "store_busy"));
    ck_assert_str_eq(ts_client_socket_path(c), a.sock);
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ts_client_close(c);
    json_object_put(params);
    fake_stop(&a);
    fake_stop(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("client_fake");
    TCase *tc0 = tcase_create("fake server");

    tcase_add_test(tc0, connect_hello_and_call);
    tcase_add_test(tc0, no_daemon_without_autostart);
    tcase_add_test(tc0, autostart_without_binary);
    tcase_add_test(tc0, socket_from_environment);
    tcase_add_test(tc0, version_mismatch_from_fake);
    tcase_add_test(tc0, pipelining_in_order);
    tcase_add_test(tc0, replies_split_across_reads);
    tcase_add_test(tc0, broken_connection_reconnects);
    tcase_add_test(tc0, closed_after_reply_resends_once);
    tcase_add_test(tc0, unasked_frame_never_taken_as_reply);
    tcase_add_test(tc0, bad_replies);
    tcase_add_test(tc0, request_timeout);
    tcase_add_test(tc0, request_deadline_from_the_environment);
    tcase_add_test(tc0, request_over_server_max_frame);
    tcase_add_test(tc0, long_socket_path);
    tcase_add_test(tc0, typed_helpers_send_documented_params);
    tcase_add_test(tc0, check_args_keep_their_values);
    tcase_add_test(tc0, store_busy_is_followed);
    suite_add_tcase(s, tc0);
    return util_run_suite(s);
}
