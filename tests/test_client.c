/*
 * test_client — libtoolscore-client against an in-test fake server (a
 * thread speaking the protocol through proto/, with methods that misbehave
 * on purpose) and against the real toolscored ($TS_BUILD_DIR/toolscored):
 * connect, hello and versions, calls and errors, pipelining, broken and
 * garbage replies, timeouts, typed helpers, fork safety, auto-start,
 * sixteen clients auto-starting at once, an auto-started program that exits
 * at once, and a daemon out of file descriptors.
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

#include "toolscore_client.h"
#include "ts_client_internal.h"
#include "ts_message.h"
#include "ts_paths.h"
#include "ts_buf.h"
#include "ts_snapshot.h"
#include "ts_store.h"
#include "util_daemon.h"
#include "util_test.h"

/* ---- the fake server ------------------------------------------------ */

#define FAKE_CONNS 16
#define FAKE_LOG 512

typedef struct fake_entry {
    int conn;       /* connection number, from 0 in accept order */
    long hello_pid; /* for hello: the pid the client announced */
    char method[32];
    struct json_object *params;
} fake_entry;

typedef struct fake {
    char dir[64];
    char sock[TS_PATHS_MAX];
    int listen_fd;
    int wake[2];
    size_t max_frame; /* announced in hello */
    pthread_t thread;
    pthread_mutex_t mu;
    fake_entry log[FAKE_LOG];
    int nlog;
    int nconn;
    int nclosed; /* connections the server has closed */
} fake;

typedef struct fake_conn {
    int fd;
    int number;
    ts_frame_reader reader;
} fake_conn;

static void fake_write(int fd, const ts_buf *b)
{
    size_t off = 0;

    while (off < b->len) {
        ssize_t n = send(fd, b->data + off, b->len - off, MSG_NOSIGNAL);
        if (n <= 0)
            return;
        off += (size_t)n;
    }
}

static void fake_record(fake *f, int conn, const ts_request *req)
{
    fake_entry *e;

    pthread_mutex_lock(&f->mu);
    if (f->nlog < FAKE_LOG) {
        e = &f->log[f->nlog++];
        e->conn = conn;
        snprintf(e->method, sizeof(e->method), "%s", req->method);
        e->params = json_object_get(req->params);
        e->hello_pid = strcmp(req->method, "hello") == 0
                           ? (long)json_object_get_int64(json_object_object_get(req->params, "pid"))
                           : 0;
    }
    pthread_mutex_unlock(&f->mu);
}

/* ---- canned check replies (a check whose name starts with "reply:") --- */

/* A msgpack str of fewer than 32 bytes, an unsigned int, a JSON value. */
static void mp_str(ts_buf *b, const char *s)
{
    size_t n = strlen(s);

    ck_assert_uint_lt(n, 32);
    ts_buf_appendc(b, (char)(0xa0 | n));
    ts_buf_append(b, s, n);
}

static void mp_uint(ts_buf *b, uint64_t v)
{
    ts_buf_appendc(b, (char)0xcf);
    for (int i = 7; i >= 0; i--)
        ts_buf_appendc(b, (char)(v >> (8 * i)));
}

static void mp_json(ts_buf *b, const char *json)
{
    struct json_object *v = json_tokener_parse(json);

    ck_assert_msg(v != NULL || strcmp(json, "null") == 0, "bad JSON in the test: %s", json);
    ck_assert_int_eq(ts_wire_encode(v, b, NULL), 0);
    json_object_put(v);
}

#define CANNED_RESULT                                                                              \
    "{\"outcome\": \"FAILED\", \"name\": \"n\", \"file\": \"/s/n-1.json\", "                       \
    "\"message\": \"drifted\", \"result\": {\"score\": 0.25, \"grade\": \"F\", \"passed\": "       \
    "false}, "                                                                                     \
    "\"report\": \"line 1\\nline 2\"}"

/* The payload of an ok reply {id, ok: true, result} (id as uint 64). */
static void ok_payload(ts_buf *b, uint64_t id, const char *result_json)
{
    ts_buf_appendc(b, (char)0x83);
    mp_str(b, "id");
    mp_uint(b, id);
    mp_str(b, "ok");
    ts_buf_appendc(b, (char)0xc3);
    mp_str(b, "result");
    mp_json(b, result_json);
}

/* A daemon's PASSED reply with every scoring key, changed at random by
 * seed: one to three bytes replaced, and one time in three cut short. The
 * id's 8 bytes are left alone, so the reply still answers the request. */
static void mutant_payload(ts_buf *b, uint64_t id, unsigned seed)
{
    static const char rich[] =
        "{\"outcome\": \"PASSED\", \"name\": \"replay_0\", \"file\": "
        "\"/s/replay_0-1d4e4c35.json\", "
        "\"message\": \"snapshot 'replay_0' matches its approved baseline (score 1.00)\", "
        "\"result\": {\"score\": 0.9999999999999999, \"grade\": \"A\", \"invocation_accuracy\": "
        "1.0, \"edit_distance\": 0.0, \"redundant_count\": 0, \"total_calls\": 10, "
        "\"expected_tools\": [\"tool_0\", \"tool_1\"], \"called_tools\": [\"tool_0\", "
        "\"tool_1\"], \"missing_tools\": [], \"extra_tools\": [], \"passed\": true, "
        "\"min_score\": 1.0}, \"report\": null}";
    size_t id_end;
    unsigned n;

    ok_payload(b, id, rich);
    id_end = 1 + 3 + 9; /* map header, "id", uint 64 */
    n = 1 + util_next_random(&seed) % 3;
    for (unsigned i = 0; i < n; i++) {
        size_t at = id_end + util_next_random(&seed) % (b->len - id_end);
        b->data[at] = (char)util_next_random(&seed);
    }
    if (util_next_random(&seed) % 3 == 0)
        b->len = id_end + util_next_random(&seed) % (b->len - id_end);
}

/* The payload the check named kind ("reply:...") is answered with. */
static void canned_payload(ts_buf *b, uint64_t id, const char *kind)
{
    if (strcmp(kind, "reply:unusual") == 0) {
        /* envelope keys in another order, an unknown envelope key, unknown
         * result members before and after the known ones */
        ts_buf_appendc(b, (char)0x84);
        mp_str(b, "result");
        mp_json(b, "{\"future\": [1, {\"x\": [2.5, null]}], \"report\": null, \"outcome\": "
                   "\"PASSED\", \"file\": \"/s/f.json\", \"message\": \"fine\", \"result\": "
                   "{\"grade\": \"A\", \"passed\": true, \"tools\": [\"a\"], \"score\": 1}, "
                   "\"name\": \"n\", \"later\": {}}");
        mp_str(b, "extra");
        mp_json(b, "{\"a\": [1, 2, \"three\"]}");
        mp_str(b, "ok");
        ts_buf_appendc(b, (char)0xc3);
        mp_str(b, "id");
        ts_buf_appendc(b, (char)0xcd); /* uint 16 */
        ts_buf_appendc(b, (char)(id >> 8));
        ts_buf_appendc(b, (char)id);
    } else if (strcmp(kind, "reply:signed-id") == 0) {
        /* a valid reply the in-place reading leaves to the full decoder */
        ts_buf_appendc(b, (char)0x83);
        mp_str(b, "id");
        ts_buf_appendc(b, (char)0xd3);
        for (int i = 7; i >= 0; i--)
            ts_buf_appendc(b, (char)(id >> (8 * i)));
        mp_str(b, "ok");
        ts_buf_appendc(b, (char)0xc3);
        mp_str(b, "result");
        mp_json(b, CANNED_RESULT);
    } else if (strcmp(kind, "reply:garbage") == 0) {
        ts_buf_appendc(b, (char)0xc1);
    } else if (strcmp(kind, "reply:truncated") == 0) {
        ok_payload(b, id, CANNED_RESULT);
        b->len -= 3;
    } else if (strcmp(kind, "reply:trailing") == 0) {
        ok_payload(b, id, CANNED_RESULT);
        ts_buf_appendc(b, (char)0xc0);
    } else if (strcmp(kind, "reply:dup-envelope") == 0) {
        ts_buf_appendc(b, (char)0x84);
        mp_str(b, "id");
        mp_uint(b, id);
        mp_str(b, "ok");
        ts_buf_appendc(b, (char)0xc3);
        mp_str(b, "result");
        mp_json(b, CANNED_RESULT);
        mp_str(b, "ok");
        ts_buf_appendc(b, (char)0xc3);
    } else if (strcmp(kind, "reply:dup-outcome") == 0) {
        ts_buf_appendc(b, (char)0x83);
        mp_str(b, "id");
        mp_uint(b, id);
        mp_str(b, "ok");
        ts_buf_appendc(b, (char)0xc3);
        mp_str(b, "result");
        ts_buf_appendc(b, (char)0x84);
        mp_str(b, "outcome");
        mp_str(b, "PASSED");
        mp_str(b, "file");
        mp_str(b, "/s/f.json");
        mp_str(b, "message");
        mp_str(b, "m");
        mp_str(b, "outcome");
        mp_str(b, "FAILED");
    } else if (strcmp(kind, "reply:bad-utf8") == 0) {
        ts_buf_appendc(b, (char)0x83);
        mp_str(b, "id");
        mp_uint(b, id);
        mp_str(b, "ok");
        ts_buf_appendc(b, (char)0xc3);
        mp_str(b, "result");
        ts_buf_appendc(b, (char)0x83);
        mp_str(b, "outcome");
        mp_str(b, "PASSED");
        mp_str(b, "file");
        mp_str(b, "/s/f.json");
        mp_str(b, "message");
        ts_buf_appendc(b, (char)0xa2);
        ts_buf_append(b, "\xc3\x28", 2);
    } else if (strcmp(kind, "reply:no-outcome") == 0) {
        ok_payload(b, id, "{\"file\": \"/s/f.json\", \"message\": \"m\"}");
    } else if (strcmp(kind, "reply:int-outcome") == 0) {
        ok_payload(b, id, "{\"outcome\": 5, \"file\": \"/s/f.json\", \"message\": \"m\"}");
    } else if (strcmp(kind, "reply:long-outcome") == 0) {
        ok_payload(b, id,
                   "{\"outcome\": \"PASSED_BUT_WITH_A_VERY_LONG_OUTCOME_NAME\", "
                   "\"file\": \"/s/f.json\", \"message\": \"m\"}");
    } else if (strcmp(kind, "reply:score-string") == 0) {
        ok_payload(b, id,
                   "{\"outcome\": \"PASSED\", \"file\": \"/s/f.json\", \"message\": \"m\", "
                   "\"result\": {\"score\": \"1\", \"passed\": true}}");
    } else if (strcmp(kind, "reply:no-score") == 0) {
        ok_payload(b, id,
                   "{\"outcome\": \"PASSED\", \"file\": \"/s/f.json\", \"message\": \"m\", "
                   "\"result\": {\"passed\": true}}");
    } else if (strcmp(kind, "reply:report-int") == 0) {
        ok_payload(b, id,
                   "{\"outcome\": \"FAILED\", \"file\": \"/s/f.json\", \"message\": \"m\", "
                   "\"report\": 7}");
    } else if (strcmp(kind, "reply:result-list") == 0) {
        ok_payload(b, id, "[1, 2]");
    } else if (strcmp(kind, "reply:nil-result") == 0) {
        ok_payload(b, id, "null");
    } else if (strcmp(kind, "reply:wrong-id") == 0) {
        ok_payload(b, id + 1000, CANNED_RESULT);
    } else if (strncmp(kind, "reply:mutant:", 13) == 0) {
        mutant_payload(b, id, (unsigned)strtoul(kind + 13, NULL, 10));
    } else {
        ok_payload(b, id, CANNED_RESULT); /* reply:plain, reply:split */
    }
}

/* Answer a check named "reply:..." with its canned reply; error replies
 * through the encoder. */
static void canned_reply(ts_buf *out, uint64_t id, const char *kind)
{
    ts_buf payload;
    unsigned char header[TS_FRAME_HEADER_SIZE];

    if (strcmp(kind, "reply:error") == 0) {
        ts_message_encode_error(out, &id, "not_found", "no run named 'x'", NULL);
        return;
    }
    ts_buf_init(&payload, TS_BUF_UNLIMITED);
    canned_payload(&payload, id, kind);
    ts_frame_put_header(header, (uint32_t)payload.len);
    ts_buf_append(out, header, sizeof(header));
    ts_buf_append(out, payload.data, payload.len);
    ts_buf_free(&payload);
}

static const char *check_name(const ts_request *req)
{
    struct json_object *name = NULL;

    if (strcmp(req->method, "check") != 0 || !json_object_object_get_ex(req->params, "name", &name))
        return "";
    return json_object_get_string(name);
}

/* Answer one request; returns 0 to keep the connection, -1 to close it. */
static int fake_answer(fake *f, fake_conn *c, const ts_request *req)
{
    ts_buf out;
    ts_error err;
    struct json_object *res;
    int keep = 0;

    ts_buf_init(&out, TS_BUF_UNLIMITED);
    fake_record(f, c->number, req);
    if (strcmp(req->method, "hello") == 0) {
        if (ts_message_check_hello(req->params, &err) < 0) {
            ts_message_encode_error(&out, &req->id, err.code, err.message, NULL);
            keep = -1;
        } else {
            res = json_object_new_object();
            json_object_object_add(res, "protocol", json_object_new_int(1));
            json_object_object_add(res, "server", json_object_new_string("fake/1"));
            json_object_object_add(res, "pid", json_object_new_int64(getpid()));
            json_object_object_add(res, "max_frame", json_object_new_int64((int64_t)f->max_frame));
            ts_message_encode_result(&out, req->id, res, 0, NULL);
            json_object_put(res);
        }
    } else if (strncmp(check_name(req), "reply:", 6) == 0) {
        canned_reply(&out, req->id, check_name(req));
    } else if (strcmp(req->method, "redirect") == 0 &&
               strcmp(json_object_get_string(json_object_object_get(req->params, "to")),
                      f->sock) != 0) {
        /* another daemon holds the store: store_busy naming its socket */
        ts_message_encode_error_socket(
            &out, &req->id, "store_busy", "the store is served by another toolscored",
            json_object_get_string(json_object_object_get(req->params, "to")), NULL);
    } else if (strcmp(req->method, "fail") == 0) {
        ts_message_encode_error(&out, &req->id, "not_found", "no such thing", NULL);
    } else if (strcmp(req->method, "hang") == 0) {
        /* no reply */
    } else if (strcmp(req->method, "drop") == 0) {
        keep = -1;
    } else if (strcmp(req->method, "bye") == 0) {
        ts_message_encode_result(&out, req->id, NULL, 0, NULL);
        keep = -1;
    } else if (strcmp(req->method, "garbage") == 0) {
        static const char bad[] = {0, 0, 0, 1, (char)0xc1};
        ts_buf_append(&out, bad, sizeof(bad));
    } else if (strcmp(req->method, "huge") == 0) {
        static const char big[] = {0x7f, (char)0xff, (char)0xff, (char)0xff, 0};
        ts_buf_append(&out, big, sizeof(big));
    } else if (strcmp(req->method, "nilerr") == 0) {
        ts_message_encode_error(&out, NULL, "limit", "too many connections", NULL);
        keep = -1;
    } else if (strcmp(req->method, "wrongid") == 0) {
        ts_message_encode_result(&out, req->id + 1000, NULL, 0, NULL);
    } else if (strcmp(req->method, "stray") == 0) {
        /* the reply, then later the same reply again, unasked, on an open
         * connection (the daemon never does this) */
        ts_message_encode_result(&out, req->id, NULL, 0, NULL);
        fake_write(c->fd, &out);
        usleep(20000);
    } else {
        /* echo: every other method answers {method, params} */
        res = json_object_new_object();
        json_object_object_add(res, "method", json_object_new_string(req->method));
        json_object_object_add(res, "params", json_object_get(req->params));
        ts_message_encode_result(&out, req->id, res, 0, NULL);
        json_object_put(res);
    }
    if (strcmp(req->method, "split") == 0 || strcmp(check_name(req), "reply:split") == 0) {
        /* the echo reply in 3-byte pieces, each read on its own */
        for (size_t off = 0; off < out.len; off += 3) {
            size_t n = out.len - off < 3 ? out.len - off : 3;
            if (send(c->fd, out.data + off, n, MSG_NOSIGNAL) != (ssize_t)n)
                break;
            usleep(1000);
        }
        ts_buf_free(&out);
        return keep;
    }
    if (strcmp(req->method, "cut") == 0) {
        /* the echo reply in two pieces: cut where the bytes 0 0 0 5 start
         * in the params, else two bytes before the end */
        static const char mark[] = {0, 0, 0, 5};
        const char *at = memmem(out.data, out.len, mark, sizeof(mark));
        size_t cuts[3] = {0, at ? (size_t)(at - out.data) : out.len - 2, out.len};

        for (int i = 0; i < 2; i++) {
            ssize_t n = (ssize_t)(cuts[i + 1] - cuts[i]);
            if (send(c->fd, out.data + cuts[i], (size_t)n, MSG_NOSIGNAL) != n)
                break;
            usleep(5000);
        }
        ts_buf_free(&out);
        return keep;
    }
    fake_write(c->fd, &out);
    ts_buf_free(&out);
    return keep;
}

/* Feed what arrived on c; -1 when the connection is over. */
static int fake_read(fake *f, fake_conn *c)
{
    char buf[65536];
    ssize_t n = recv(c->fd, buf, sizeof(buf), 0);
    size_t pos = 0;

    if (n <= 0)
        return -1;
    while (pos < (size_t)n) {
        size_t used = 0;
        ts_error err;
        int rc = ts_frame_reader_feed(&c->reader, buf + pos, (size_t)n - pos, &used, &err);
        pos += used;
        if (rc < 0)
            return -1;
        if (rc == 1) {
            size_t len;
            unsigned char *payload = ts_frame_reader_take(&c->reader, &len);
            ts_request req;
            int keep = -1;
            if (ts_message_decode_request(payload, len, &req, &err) == 0)
                keep = fake_answer(f, c, &req);
            ts_request_free(&req);
            free(payload);
            if (keep < 0)
                return -1;
        }
    }
    return 0;
}

static void fake_close_conn(fake_conn *c)
{
    close(c->fd);
    ts_frame_reader_free(&c->reader);
    c->fd = -1;
}

static void *fake_main(void *arg)
{
    fake *f = arg;
    fake_conn conns[FAKE_CONNS];
    struct pollfd p[FAKE_CONNS + 2];
    int i;

    for (i = 0; i < FAKE_CONNS; i++)
        conns[i].fd = -1;
    for (;;) {
        int n = 0;
        p[n++] = (struct pollfd){f->wake[0], POLLIN, 0};
        p[n++] = (struct pollfd){f->listen_fd, POLLIN, 0};
        for (i = 0; i < FAKE_CONNS; i++)
            p[n++] = (struct pollfd){conns[i].fd, POLLIN, 0};
        if (poll(p, (nfds_t)n, -1) < 0)
            continue;
        if (p[0].revents)
            break;
        if (p[1].revents & POLLIN) {
            int fd = accept4(f->listen_fd, NULL, NULL, SOCK_CLOEXEC);
            for (i = 0; fd >= 0 && i < FAKE_CONNS; i++) {
                if (conns[i].fd < 0) {
                    conns[i].fd = fd;
                    pthread_mutex_lock(&f->mu);
                    conns[i].number = f->nconn++;
                    pthread_mutex_unlock(&f->mu);
                    ts_frame_reader_init(&conns[i].reader, 0);
                    fd = -1;
                }
            }
            if (fd >= 0)
                close(fd);
        }
        for (i = 0; i < FAKE_CONNS; i++) {
            if (conns[i].fd >= 0 && (p[i + 2].revents & (POLLIN | POLLHUP | POLLERR)) &&
                fake_read(f, &conns[i]) < 0) {
                fake_close_conn(&conns[i]);
                pthread_mutex_lock(&f->mu);
                f->nclosed++;
                pthread_mutex_unlock(&f->mu);
            }
        }
    }
    for (i = 0; i < FAKE_CONNS; i++)
        if (conns[i].fd >= 0)
            fake_close_conn(&conns[i]);
    return NULL;
}

/* Start a fake server on sock (NULL: a fresh temporary directory). */
static void fake_start_at(fake *f, const char *sock, size_t max_frame)
{
    ts_sockaddr addr;
    ts_error err;

    memset(f, 0, sizeof(*f));
    snprintf(f->dir, sizeof(f->dir), "/tmp/ts-client-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(f->dir));
    if (sock != NULL)
        snprintf(f->sock, sizeof(f->sock), "%s", sock);
    else
        snprintf(f->sock, sizeof(f->sock), "%s/fake.sock", f->dir);
    f->max_frame = max_frame ? max_frame : TS_FRAME_DEFAULT_MAX;
    pthread_mutex_init(&f->mu, NULL);
    ck_assert_int_eq(pipe2(f->wake, O_CLOEXEC), 0);
    f->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_eq(ts_paths_sockaddr(f->sock, &addr, &err), 0);
    ck_assert_int_eq(bind(f->listen_fd, (struct sockaddr *)&addr.addr, addr.len), 0);
    ts_paths_sockaddr_release(&addr);
    ck_assert_int_eq(listen(f->listen_fd, 64), 0);
    ck_assert_int_eq(pthread_create(&f->thread, NULL, fake_main, f), 0);
}

static void fake_start(fake *f)
{
    fake_start_at(f, NULL, 0);
}

static void fake_stop(fake *f)
{
    int i;

    ck_assert_int_eq(write(f->wake[1], "x", 1), 1);
    pthread_join(f->thread, NULL);
    close(f->listen_fd);
    close(f->wake[0]);
    close(f->wake[1]);
    for (i = 0; i < f->nlog; i++)
        json_object_put(f->log[i].params);
    ck_assert_int_eq(util_remove_tree(f->dir), 0);
}

/* The last logged request of method (NULL if none); params borrowed. */
static const fake_entry *fake_last(fake *f, const char *method)
{
    const fake_entry *found = NULL;
    int i;

    pthread_mutex_lock(&f->mu);
    for (i = 0; i < f->nlog; i++)
        if (strcmp(f->log[i].method, method) == 0)
            found = &f->log[i];
    pthread_mutex_unlock(&f->mu);
    return found;
}

/* How many requests of method the server saw, and on which connection the
 * last one came (-1: none). */
static int fake_count(fake *f, const char *method, int *last_conn)
{
    int n = 0;
    int i;

    *last_conn = -1;
    pthread_mutex_lock(&f->mu);
    for (i = 0; i < f->nlog; i++) {
        if (strcmp(f->log[i].method, method) == 0) {
            n++;
            *last_conn = f->log[i].conn;
        }
    }
    pthread_mutex_unlock(&f->mu);
    return n;
}

/* Wait until the server has closed n connections in all. */
static void fake_wait_closed(fake *f, int n)
{
    int i;

    for (i = 0; i < 5000; i++) {
        int closed;
        pthread_mutex_lock(&f->mu);
        closed = f->nclosed;
        pthread_mutex_unlock(&f->mu);
        if (closed >= n)
            return;
        usleep(1000);
    }
    ck_abort_msg("the fake server did not close %d connection(s)", n);
}

static ts_client *connect_to(const char *sock)
{
    ts_client_options o;
    ts_client *c = NULL;
    ts_error err;
    int rc;

    ts_client_options_init(&o);
    o.socket_path = sock;
    o.autostart = false;
    o.client_name = "test_client/1";
    rc = ts_client_connect(&o, &c, &err);
    ck_assert_msg(rc == 0, "connect %s: %s: %s", sock, err.code, err.message);
    return c;
}

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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
    c = connect_to(f.sock);
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
    int64_t start = now_ms();

    ts_client_options_init(&o);
    o.socket_path = "/tmp/ts-client-no-such-dir/x.sock";
    o.autostart = false;
    ck_assert_int_eq(ts_client_connect(&o, &c, &err), -ENOENT);
    ck_assert_ptr_null(c);
    ck_assert_str_eq(err.code, "unavailable");
    ck_assert_ptr_nonnull(strstr(err.message, "/tmp/ts-client-no-such-dir/x.sock"));
    ck_assert(ts_client_error_is_connection(&err));
    ck_assert_int_lt(now_ms() - start, 1000);
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
    c = connect_to(f.sock);
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
    c = connect_to(f.sock);
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
    c = connect_to(f.sock);
    ck_assert_int_lt(ts_client_call(c, "drop", NULL, NULL, &err), 0);
    ck_assert_str_eq(err.code, "disconnected");
    ck_assert(ts_client_error_is_connection(&err));
    /* the next call connects again (and says hello again) */
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ck_assert_int_eq(f.nconn, 2);

    /* a daemon that closed an idle connection (restart, idle timeout) is
     * noticed before the next request, which goes out on a new connection */
    ck_assert_int_eq(ts_client_call(c, "bye", NULL, NULL, &err), 0);
    usleep(50000);
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
    c = connect_to(f.sock);
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
    c = connect_to(f.sock);
    ck_assert_int_eq(ts_client_call(c, "stray", NULL, NULL, &err), 0);
    usleep(IDLE_LONG_US);
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ck_assert_int_eq(f.nconn, 2);
    ck_assert_int_eq(fake_count(&f, "ping", &conn), 1);
    ck_assert_int_eq(conn, 1);

    ck_assert_int_eq(ts_client_call(c, "stray", NULL, NULL, &err), 0);
    usleep(60000); /* the unasked frame has arrived */
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
    c = connect_to(f.sock);
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
    start = now_ms();
    ck_assert_int_eq(ts_client_call(c, "hang", NULL, NULL, &err), -ETIMEDOUT);
    ck_assert_str_eq(err.code, "timeout");
    ck_assert_int_ge(now_ms() - start, 250);
    ck_assert_int_lt(now_ms() - start, 3000);
    ck_assert_int_eq(ts_client_ping(c, &err), 0); /* a fresh connection */
    ts_client_close(c);
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
    c = connect_to(f.sock);
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
    c = connect_to(path);
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ts_client_close(c);
    fake_stop(&f);
    ck_assert_int_eq(util_remove_tree(dir), 0);
}
END_TEST

static struct json_object *param(const fake_entry *e, const char *key)
{
    ck_assert_ptr_nonnull(e);
    return json_object_object_get(e->params, key);
}

START_TEST(typed_helpers_send_documented_params)
{
    fake f;
    ts_client *c;
    ts_error err;
    ts_check_args a;
    ts_record_args r;
    struct json_object *calls = json_tokener_parse("[{\"tool\": \"t\", \"args\": {}}]");
    struct json_object *weights = json_tokener_parse("{\"tool\": 2}");
    struct json_object *res = NULL;
    const char *names[] = {"a", "b"};
    char store[TS_PATHS_MAX], want[TS_PATHS_MAX];
    const fake_entry *e;

    fake_start(&f);
    c = connect_to(f.sock);
    /* the store is sent absolute and symlink-resolved, even when missing */
    snprintf(store, sizeof(store), "%s/link", f.dir);
    ck_assert_int_eq(symlink(".", store), 0);
    snprintf(store, sizeof(store), "%s/link/snaps", f.dir);
    snprintf(want, sizeof(want), "%s/snaps", f.dir);

    ts_check_args_init(&a);
    a.store = store;
    a.name = "flow";
    a.actual = calls;
    a.weights = weights;
    a.ci = true;
    a.run = "r1";
    a.test = "t::x";
    ck_assert_int_eq(ts_client_check(c, &a, &res, &err), 0);
    json_object_put(res);
    e = fake_last(&f, "check");
    ck_assert_str_eq(json_object_get_string(param(e, "store")), want);
    ck_assert_str_eq(json_object_get_string(param(e, "name")), "flow");
    ck_assert(json_object_equal(param(e, "actual"), calls));
    ck_assert(json_object_equal(param(e, "weights"), weights));
    ck_assert(json_object_get_boolean(param(e, "ci")));
    ck_assert_str_eq(json_object_get_string(param(e, "run")), "r1");
    ck_assert_str_eq(json_object_get_string(param(e, "test")), "t::x");
    /* members at their protocol default are left out (the daemon reads
     * an absent one as its default) */
    static const char *const defaults[] = {"format", "min_score",     "strict",
                                           "update", "allow_pending", "color"};
    for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
        ck_assert_msg(!json_object_object_get_ex(e->params, defaults[i], NULL), "%s was sent",
                      defaults[i]);
    /* and every other value is sent as given */
    a.format = "openai";
    a.min_score = 0.5;
    a.strict = a.update = a.allow_pending = a.color = true;
    ck_assert_int_eq(ts_client_check(c, &a, &res, &err), 0);
    json_object_put(res);
    e = fake_last(&f, "check");
    ck_assert_str_eq(json_object_get_string(param(e, "format")), "openai");
    ck_assert(json_object_is_type(param(e, "min_score"), json_type_double));
    ck_assert(json_object_get_double(param(e, "min_score")) == 0.5);
    for (size_t i = 2; i < sizeof(defaults) / sizeof(defaults[0]); i++)
        ck_assert_msg(json_object_get_boolean(param(e, defaults[i])), "%s", defaults[i]);
    a.min_score = 0; /* 0 is not the default */
    ck_assert_int_eq(ts_client_check(c, &a, &res, &err), 0);
    json_object_put(res);
    e = fake_last(&f, "check");
    ck_assert(json_object_get_double(param(e, "min_score")) == 0.0);
    a.name = ""; /* the empty name is a name */
    ck_assert_int_eq(ts_client_check(c, &a, &res, &err), 0);
    json_object_put(res);
    ck_assert_str_eq(json_object_get_string(param(fake_last(&f, "check"), "name")), "");
    ts_check_args_init(&a);
    a.store = store;
    a.actual = calls;
    /* required params are checked before anything is sent */
    a.name = NULL;
    ck_assert_int_eq(ts_client_check(c, &a, &res, &err), -EINVAL);
    ck_assert_str_eq(err.code, "invalid_argument");
    ck_assert_ptr_nonnull(strstr(err.message, "name"));
    a.name = "flow";
    a.actual = NULL;
    ck_assert_int_eq(ts_client_check(c, &a, &res, &err), -EINVAL);
    a.store = NULL;
    ck_assert_int_eq(ts_client_check(c, &a, &res, &err), -EINVAL);

    ts_record_args_init(&r);
    r.store = store;
    r.name = "imported";
    r.calls = calls;
    r.update = true;
    ck_assert_int_eq(ts_client_record(c, &r, NULL, &err), 0);
    e = fake_last(&f, "record");
    ck_assert_str_eq(json_object_get_string(param(e, "source")), "trace");
    ck_assert(json_object_get_boolean(param(e, "update")));

    ck_assert_int_eq(ts_client_approve(c, store, names, 2, false, NULL, &err), 0);
    e = fake_last(&f, "approve");
    ck_assert_int_eq(json_object_array_length(param(e, "names")), 2);
    ck_assert_ptr_null(param(e, "all"));
    ck_assert_int_eq(ts_client_approve(c, store, NULL, 0, true, NULL, &err), 0);
    e = fake_last(&f, "approve");
    ck_assert(json_object_get_boolean(param(e, "all")));
    ck_assert_int_eq(ts_client_approve(c, store, NULL, 0, false, NULL, &err), -EINVAL);

    ck_assert_int_eq(ts_client_list(c, store, true, NULL, &err), 0);
    ck_assert(json_object_get_boolean(param(fake_last(&f, "list"), "pending")));
    ck_assert_int_eq(ts_client_show(c, store, "flow", NULL, &err), 0);
    ck_assert_str_eq(json_object_get_string(param(fake_last(&f, "show"), "name")), "flow");
    ck_assert_int_eq(ts_client_rm(c, store, "flow", NULL, &err), 0);
    ck_assert_str_eq(json_object_get_string(param(fake_last(&f, "rm"), "store")), want);
    ck_assert_int_eq(ts_client_run_open(c, store, "label", NULL, &err), 0);
    ck_assert_str_eq(json_object_get_string(param(fake_last(&f, "run.open"), "label")), "label");
    ck_assert_int_eq(ts_client_run_join(c, "r1", NULL, &err), 0);
    ck_assert_int_eq(ts_client_run_close(c, "r1", NULL, &err), 0);
    ck_assert_int_eq(ts_client_run_summary(c, "r1", NULL, &err), 0);
    ck_assert_str_eq(json_object_get_string(param(fake_last(&f, "run.summary"), "run")), "r1");
    ck_assert_int_eq(ts_client_run_join(c, NULL, NULL, &err), -EINVAL);
    ck_assert_int_eq(ts_client_review(c, store, NULL, NULL, &err), 0);
    ck_assert_ptr_null(param(fake_last(&f, "review"), "run"));
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
}
END_TEST

/* The store sent is the canonical path of what the string names now: after
 * a symlink is re-pointed between two calls, after a change of working
 * directory, and after the directory itself moved. */
START_TEST(store_resolution_follows_changes)
{
    fake f;
    ts_client *c;
    ts_error err;
    char a[TS_PATHS_MAX], b[TS_PATHS_MAX], link[TS_PATHS_MAX], cwd[TS_PATHS_MAX];
    char cwd_b[TS_PATHS_MAX];

    fake_start(&f);
    c = connect_to(f.sock);
    snprintf(a, sizeof(a), "%s/a", f.dir);
    snprintf(b, sizeof(b), "%s/b", f.dir);
    snprintf(link, sizeof(link), "%s/current", f.dir);
    ck_assert_int_eq(mkdir(a, 0755), 0);
    ck_assert_int_eq(mkdir(b, 0755), 0);
    ck_assert_int_eq(symlink("a", link), 0);
    ck_assert_int_eq(ts_client_list(c, link, false, NULL, &err), 0);
    ck_assert_str_eq(json_object_get_string(param(fake_last(&f, "list"), "store")), a);
    ck_assert_int_eq(ts_client_list(c, link, false, NULL, &err), 0);
    ck_assert_str_eq(json_object_get_string(param(fake_last(&f, "list"), "store")), a);
    ck_assert_int_eq(unlink(link), 0);
    ck_assert_int_eq(symlink("b", link), 0);
    ck_assert_int_eq(ts_client_list(c, link, false, NULL, &err), 0);
    ck_assert_str_eq(json_object_get_string(param(fake_last(&f, "list"), "store")), b);

    ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
    ck_assert_int_eq(mkdir(strcat(strcpy(link, a), "/s"), 0755), 0);
    ck_assert_int_eq(mkdir(strcat(strcpy(link, b), "/s"), 0755), 0);
    ck_assert_int_eq(chdir(a), 0);
    ck_assert_int_eq(ts_client_list(c, "s", false, NULL, &err), 0);
    ck_assert_str_eq(json_object_get_string(param(fake_last(&f, "list"), "store")),
                     strcat(strcpy(link, a), "/s"));
    ck_assert_int_eq(chdir(b), 0);
    ck_assert_int_eq(ts_client_list(c, "s", false, NULL, &err), 0);
    ck_assert_str_eq(json_object_get_string(param(fake_last(&f, "list"), "store")),
                     strcat(strcpy(link, b), "/s"));
    /* the directory moved (same inode), then named from its new place */
    ck_assert_int_eq(chdir(a), 0);
    ck_assert_int_eq(ts_client_list(c, "s", false, NULL, &err), 0);
    ck_assert_int_eq(rename(strcat(strcpy(link, b), "/s"), strcat(strcpy(cwd_b, b), "/t")), 0);
    ck_assert_int_eq(rename(strcat(strcpy(link, a), "/s"), strcat(strcpy(cwd_b, b), "/s")), 0);
    ck_assert_int_eq(chdir(b), 0);
    ck_assert_int_eq(ts_client_list(c, "s", false, NULL, &err), 0);
    ck_assert_str_eq(json_object_get_string(param(fake_last(&f, "list"), "store")),
                     strcat(strcpy(link, b), "/s"));
    ck_assert_int_eq(chdir(cwd), 0);
    ts_client_close(c);
    fake_stop(&f);
}
END_TEST

/* ---- checks read in place (ts_client_check_outcome) ------------------ */

/* A check of name through both calls, with the same arguments otherwise. */
typedef struct both_ways {
    int tree_rc, typed_rc;
    ts_error tree_err, typed_err;
    struct json_object *tree;
    ts_check_outcome typed;
} both_ways;

static void check_both_ways(ts_client *c, const ts_check_args *a, both_ways *b)
{
    memset(b, 0, sizeof(*b));
    b->tree_rc = ts_client_check(c, a, &b->tree, &b->tree_err);
    b->typed_rc = ts_client_check_outcome(c, a, &b->typed, &b->typed_err);
}

static void both_ways_free(both_ways *b)
{
    json_object_put(b->tree);
    ts_check_outcome_free(&b->typed);
}

/* The typed outcome says what the tree says: outcome, message, file,
 * score (-1 without a result), passed and report. */
static void same_as_tree(const ts_check_outcome *o, struct json_object *tree)
{
    struct json_object *result = json_object_object_get(tree, "result");
    struct json_object *report = json_object_object_get(tree, "report");

    ck_assert_str_eq(o->outcome, tstr(tree, "outcome"));
    ck_assert_str_eq(o->message, tstr(tree, "message"));
    ck_assert_str_eq(o->file, tstr(tree, "file"));
    if (result == NULL) {
        ck_assert(o->score == -1.0);
        ck_assert(!o->passed);
    } else {
        ck_assert(o->score == json_object_get_double(json_object_object_get(result, "score")));
        ck_assert(o->passed == json_object_get_boolean(json_object_object_get(result, "passed")));
    }
    if (report == NULL)
        ck_assert_ptr_null(o->report);
    else
        ck_assert_str_eq(o->report, json_object_get_string(report));
}

/* Both calls succeed and agree; the outcome is want. */
static void both_agree(ts_client *c, const ts_check_args *a, const char *want)
{
    both_ways b;

    check_both_ways(c, a, &b);
    ck_assert_msg(b.tree_rc == 0, "%s: %s", b.tree_err.code, b.tree_err.message);
    ck_assert_msg(b.typed_rc == 0, "%s: %s", b.typed_err.code, b.typed_err.message);
    ck_assert_str_eq(b.typed.outcome, want);
    same_as_tree(&b.typed, b.tree);
    both_ways_free(&b);
}

/* Both calls fail alike, with the daemon's code (an error reply). */
static void both_refused(ts_client *c, const ts_check_args *a, const char *code)
{
    both_ways b;

    check_both_ways(c, a, &b);
    ck_assert_int_eq(b.tree_rc, TS_CLIENT_EREMOTE);
    ck_assert_int_eq(b.typed_rc, TS_CLIENT_EREMOTE);
    ck_assert_str_eq(b.tree_err.code, code);
    ck_assert_str_eq(b.typed_err.code, code);
    ck_assert_str_eq(b.typed_err.message, b.tree_err.message);
    ck_assert_ptr_null(b.typed.message);
    ck_assert_ptr_null(b.typed.file);
    both_ways_free(&b);
}

/* Replies of the usual and of unusual forms read in place (or, for an id
 * written as a signed int, through the full decoder) give what the tree
 * gives; an error reply gives the same code and message. */
START_TEST(check_outcome_reads_replies)
{
    static const char *const kinds[] = {"reply:plain", "reply:unusual", "reply:signed-id",
                                        "reply:split"};
    fake f;
    ts_client *c;
    ts_check_args a;
    struct json_object *calls = json_tokener_parse("[]");
    char store[TS_PATHS_MAX];

    fake_start(&f);
    c = connect_to(f.sock);
    snprintf(store, sizeof(store), "%s", f.dir);
    ts_check_args_init(&a);
    a.store = store;
    a.actual = calls;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        a.name = kinds[i];
        both_agree(c, &a, strcmp(kinds[i], "reply:unusual") == 0 ? "PASSED" : "FAILED");
    }
    {
        ts_check_outcome o;
        ts_error err;

        a.name = "reply:plain";
        ck_assert_int_eq(ts_client_check_outcome(c, &a, &o, &err), 0);
        ck_assert(o.score == 0.25 && !o.passed);
        ck_assert_str_eq(o.report, "line 1\nline 2");
        ck_assert_str_eq(o.file, "/s/n-1.json");
        ts_check_outcome_free(&o);
        ck_assert_ptr_null(o.message);
        ts_check_outcome_free(&o); /* twice is fine */
        a.name = "reply:unusual";
        ck_assert_int_eq(ts_client_check_outcome(c, &a, &o, &err), 0);
        ck_assert(o.score == 1.0 && o.passed);
        ck_assert_ptr_null(o.report);
        ts_check_outcome_free(&o);
    }
    a.name = "reply:plain";
    ck_assert_int_eq(ts_client_check_outcome(c, &a, NULL, NULL), 0); /* outcome not wanted */
    a.name = "reply:error";
    both_refused(c, &a, "not_found");
    ck_assert_int_eq(ts_client_check_outcome(c, &a, NULL, NULL), TS_CLIENT_EREMOTE);
    ck_assert_int_eq(f.nconn, 1); /* none of these broke the connection */
    ts_client_close(c);
    fake_stop(&f);
    json_object_put(calls);
}
END_TEST

/* Garbage, truncated and malformed replies, and results that are not a
 * check's, are refused with bad_reply, leaving nothing in the outcome; the
 * connection is dropped and the next call works. Envelope faults are
 * refused by ts_client_check too; a result of the wrong shape only by the
 * typed call, which needs its members. */
START_TEST(check_outcome_refuses_bad_replies)
{
    static const struct {
        const char *kind;
        bool tree_refuses;
    } cases[] = {
        {"reply:garbage", true},       {"reply:truncated", true},     {"reply:trailing", true},
        {"reply:dup-envelope", true},  {"reply:bad-utf8", true},      {"reply:wrong-id", true},
        {"reply:dup-outcome", true},   {"reply:no-outcome", false},   {"reply:int-outcome", false},
        {"reply:long-outcome", false}, {"reply:score-string", false}, {"reply:no-score", false},
        {"reply:report-int", false},   {"reply:result-list", false},  {"reply:nil-result", false},
    };
    fake f;
    ts_client *c;
    ts_check_args a;
    ts_error err;
    struct json_object *calls = json_tokener_parse("[]");

    fake_start(&f);
    c = connect_to(f.sock);
    ts_check_args_init(&a);
    a.store = f.dir;
    a.actual = calls;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        both_ways b;

        a.name = cases[i].kind;
        check_both_ways(c, &a, &b);
        ck_assert_msg(b.typed_rc < 0 && strcmp(b.typed_err.code, "bad_reply") == 0,
                      "%s: typed call gave %d %s: %s", cases[i].kind, b.typed_rc, b.typed_err.code,
                      b.typed_err.message);
        ck_assert_msg(b.typed.message == NULL && b.typed.file == NULL && b.typed.report == NULL &&
                          b.typed.outcome[0] == '\0',
                      "%s: the refused outcome holds something", cases[i].kind);
        if (cases[i].tree_refuses)
            ck_assert_msg(b.tree_rc < 0 && strcmp(b.tree_err.code, "bad_reply") == 0,
                          "%s: ts_client_check gave %d %s", cases[i].kind, b.tree_rc,
                          b.tree_err.code);
        else
            ck_assert_msg(b.tree_rc == 0, "%s: ts_client_check gave %d %s", cases[i].kind,
                          b.tree_rc, b.tree_err.code);
        ck_assert(ts_client_error_is_connection(&b.typed_err));
        both_ways_free(&b);
        ck_assert_int_eq(ts_client_ping(c, &err), 0);
    }
    ts_client_close(c);
    fake_stop(&f);
    json_object_put(calls);
}
END_TEST

/* True when tree (a check result ts_client_check returned) has the shape
 * ts_client_check_outcome reads: the oracle of the test below. */
static bool check_result_shape(struct json_object *tree)
{
    struct json_object *v = NULL;
    struct json_object *r = NULL;

    if (!json_object_is_type(tree, json_type_object))
        return false;
    if (!json_object_object_get_ex(tree, "outcome", &v) ||
        !json_object_is_type(v, json_type_string) || json_object_get_string_len(v) == 0 ||
        json_object_get_string_len(v) > 31)
        return false;
    if (!json_object_object_get_ex(tree, "file", &v) || !json_object_is_type(v, json_type_string))
        return false;
    if (!json_object_object_get_ex(tree, "message", &v) ||
        !json_object_is_type(v, json_type_string))
        return false;
    if (json_object_object_get_ex(tree, "report", &v) && v != NULL &&
        !json_object_is_type(v, json_type_string))
        return false;
    if (!json_object_object_get_ex(tree, "result", &r) || r == NULL)
        return true;
    return json_object_is_type(r, json_type_object) && json_object_object_get_ex(r, "score", &v) &&
           (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) &&
           json_object_object_get_ex(r, "passed", &v) && json_object_is_type(v, json_type_boolean);
}

/*
 * Replies changed at random, each answered to both calls: whenever the full
 * decoder takes the reply and its result has a check result's shape, the
 * typed call gives the same members; when the shape is wrong, bad_reply.
 * When the full decoder refuses the reply, the typed call refuses it too
 * (bad_reply) unless the fault lies only in what it skips. Nothing crashes
 * or leaks (the sanitizer run), and the connection always recovers.
 */
START_TEST(check_outcome_random_replies)
{
    fake f;
    ts_client *c;
    ts_check_args a;
    struct json_object *calls = json_tokener_parse("[]");
    char name[64];
    int agreed = 0, refused = 0, lenient = 0;

    fake_start(&f);
    c = connect_to(f.sock);
    ts_check_args_init(&a);
    a.store = f.dir;
    a.actual = calls;
    a.name = name;
    for (unsigned seed = 1; seed <= 1500; seed++) {
        both_ways b;

        snprintf(name, sizeof(name), "reply:mutant:%u", seed);
        check_both_ways(c, &a, &b);
        if (b.tree_rc == 0 && check_result_shape(b.tree)) {
            ck_assert_msg(b.typed_rc == 0, "seed %u: %s: %s", seed, b.typed_err.code,
                          b.typed_err.message);
            same_as_tree(&b.typed, b.tree);
            agreed++;
        } else if (b.tree_rc == 0 || strcmp(b.tree_err.code, "bad_reply") == 0) {
            ck_assert_msg(b.typed_rc == 0 || strcmp(b.typed_err.code, "bad_reply") == 0,
                          "seed %u: %d %s", seed, b.typed_rc, b.typed_err.code);
            if (b.tree_rc == 0)
                ck_assert_msg(b.typed_rc < 0, "seed %u: a result of the wrong shape was read",
                              seed);
            if (b.typed_rc == 0)
                lenient++;
            else
                refused++;
        } else {
            ck_abort_msg("seed %u: ts_client_check gave %s: %s", seed, b.tree_err.code,
                         b.tree_err.message);
        }
        both_ways_free(&b);
    }
    /* the mutations reach every branch */
    ck_assert_int_gt(agreed, 50);
    ck_assert_int_gt(refused, 500);
    ck_assert_int_eq(ts_client_ping(c, NULL), 0);
    ts_client_close(c);
    fake_stop(&f);
    json_object_put(calls);
    (void)lenient;
}
END_TEST

/* ---- the check request's bytes ---------------------------------------- */

/*
 * The check request as the typed helpers used to build it: a json-c params
 * object filled in this order with the members not at their protocol
 * default, and actual added by ts_message_encode_request_with. The request
 * packed straight from the arguments must be the same bytes.
 */
static int tree_check_frame(ts_buf *out, uint64_t id, const ts_check_args *a, const char *store,
                            size_t max_frame, ts_error *err)
{
    struct json_object *p = json_object_new_object();
    struct json_object *weights = NULL;
    int rc;

    json_object_object_add(p, "store", json_object_new_string(store));
    json_object_object_add(p, "name", json_object_new_string(a->name));
    if (a->format != NULL && strcmp(a->format, "auto") != 0)
        json_object_object_add(p, "format", json_object_new_string(a->format));
    if (a->min_score != 1.0)
        json_object_object_add(p, "min_score", json_object_new_double(a->min_score));
    if (a->weights != NULL) {
        ck_assert_int_eq(json_object_deep_copy((struct json_object *)a->weights, &weights, NULL),
                         0);
        json_object_object_add(p, "weights", weights);
    }
    if (a->strict)
        json_object_object_add(p, "strict", json_object_new_boolean(1));
    if (a->ci)
        json_object_object_add(p, "ci", json_object_new_boolean(1));
    if (a->update)
        json_object_object_add(p, "update", json_object_new_boolean(1));
    if (a->allow_pending)
        json_object_object_add(p, "allow_pending", json_object_new_boolean(1));
    if (a->run != NULL)
        json_object_object_add(p, "run", json_object_new_string(a->run));
    if (a->test != NULL)
        json_object_object_add(p, "test", json_object_new_string(a->test));
    if (a->color)
        json_object_object_add(p, "color", json_object_new_boolean(1));
    rc = ts_message_encode_request_with(out, id, "check", p, "actual", a->actual, max_frame, err);
    json_object_put(p);
    return rc;
}

/* Both ways give the same bytes, or the same error. */
static void same_check_bytes(const ts_check_args *a, const char *store, uint64_t id,
                             size_t max_frame, const char *what)
{
    ts_buf tree, direct;
    ts_error tree_err, direct_err;
    int tree_rc, direct_rc;

    ts_buf_init(&tree, TS_BUF_UNLIMITED);
    ts_buf_init(&direct, TS_BUF_UNLIMITED);
    tree_rc = tree_check_frame(&tree, id, a, store, max_frame, &tree_err);
    direct_rc = ts_client__encode_check(&direct, id, a, store, max_frame, &direct_err);
    ck_assert_msg(tree_rc == direct_rc, "%s: %d vs %d", what, tree_rc, direct_rc);
    if (tree_rc < 0) {
        ck_assert_str_eq(direct_err.code, tree_err.code);
        ck_assert_str_eq(direct_err.message, tree_err.message);
        ck_assert_uint_eq(direct.len, 0);
    } else {
        ck_assert_msg(tree.len == direct.len && memcmp(tree.data, direct.data, tree.len) == 0,
                      "%s: %zu bytes packed directly differ from the %zu of the tree", what,
                      direct.len, tree.len);
    }
    ts_buf_free(&tree);
    ts_buf_free(&direct);
}

START_TEST(check_request_bytes_unchanged)
{
    static const uint64_t ids[] = {0,
                                   1,
                                   127,
                                   128,
                                   255,
                                   256,
                                   65535,
                                   65536,
                                   4294967295u,
                                   4294967296u,
                                   1u << 31,
                                   12345678901234ull,
                                   18446744073709551615ull};
    struct json_object *calls = json_tokener_parse(
        "[{\"tool\": \"search\", \"args\": {\"q\": \"caf\\u00e9 \\ud834\\udd1e\", \"n\": -3, "
        "\"big\": 18446744073709551615, \"neg\": -9223372036854775808, \"f\": 0.1, "
        "\"whole\": 2.0, \"none\": null, \"yes\": true, \"list\": [[], {}, [1, [2, [3]]]]}}]");
    struct json_object *weights = json_tokener_parse(
        "{\"tool\": 2, \"args\": 0.5, \"nested\": {\"x\": [1, 2.0, null, true]}}");
    struct json_object *nan_weights = json_object_new_object();
    struct json_object *deep = json_object_new_array();
    struct json_object *big = json_object_new_array();
    char long_name[70000];
    char *text = malloc(300);
    ts_check_args a;

    /* the defaults, and every id width */
    ts_check_args_init(&a);
    a.name = "flow";
    a.actual = calls;
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
        same_check_bytes(&a, "/s", ids[i], 0, "defaults");
    /* every argument given */
    a.weights = weights;
    a.run = "r-0123456789abcdef";
    a.test = "tests/test_x.py::test_y[param-1]";
    a.format = "openai";
    a.min_score = 0.75;
    a.strict = a.ci = a.update = a.allow_pending = a.color = true;
    same_check_bytes(&a, "/home/user/my project/.toolscore/snapshots", 7, 0, "everything");
    a.min_score = 0.0;
    a.run = NULL;
    same_check_bytes(&a, "/s", 8, 0, "no run, min_score 0");
    a.min_score = 1e-300;
    a.test = NULL;
    a.weights = NULL;
    same_check_bytes(&a, "/s", 9, 0, "tiny min_score");
    /* strings of each length class: fixstr, str 8, str 16, str 32 */
    memset(text, 'n', 299);
    text[299] = '\0';
    a.name = text;
    same_check_bytes(&a, "/s", 10, 0, "str 16 name");
    text[40] = '\0';
    same_check_bytes(&a, "/s", 11, 0, "str 8 name");
    memset(long_name, 'x', sizeof(long_name) - 1);
    long_name[sizeof(long_name) - 1] = '\0';
    a.name = long_name;
    same_check_bytes(&a, "/s", 12, 0, "str 32 name");
    a.name = "caf\xc3\xa9 \xe2\x98\x95";
    same_check_bytes(&a, "/s", 13, 0, "UTF-8 name");

    /* the same errors */
    a.name = "\xff";
    same_check_bytes(&a, "/s", 14, 0, "invalid UTF-8 name");
    a.name = "flow";
    same_check_bytes(&a, "/s/\xc3", 15, 0, "invalid UTF-8 store");
    a.min_score = NAN;
    same_check_bytes(&a, "/s", 16, 0, "NaN min_score");
    a.min_score = 1.0;
    json_object_object_add(nan_weights, "tool", json_object_new_double(INFINITY));
    a.weights = nan_weights;
    same_check_bytes(&a, "/s", 17, 0, "infinite weight");
    a.weights = NULL;
    {
        struct json_object *inner = deep;

        for (int i = 0; i < 140; i++) {
            struct json_object *next = json_object_new_array();
            json_object_array_add(inner, next);
            inner = next;
        }
    }
    a.actual = deep;
    same_check_bytes(&a, "/s", 18, 0, "too deep");
    for (int i = 0; i < 200; i++)
        json_object_array_add(big, json_object_new_string("0123456789012345678901234567890"));
    a.actual = big;
    same_check_bytes(&a, "/s", 19, 2048, "over max_frame");
    same_check_bytes(&a, "/s", 20, 0, "within the default max_frame");
    json_object_put(calls);
    json_object_put(weights);
    json_object_put(nan_weights);
    json_object_put(deep);
    json_object_put(big);
    free(text);
}
END_TEST

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
    c = connect_to(f.sock);
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
    c = connect_to(f.sock);
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
    job.c = connect_to(f.sock);
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

/* ---- against the real daemon ---------------------------------------- */

static const char *const idle_args[] = {"--idle-timeout", "20", NULL};

static ts_client *autostart_client(const char *sock, ts_error *err, int *rc)
{
    ts_client_options o;
    ts_client *c = NULL;

    ts_client_options_init(&o);
    o.socket_path = sock;
    o.daemon_path = tdaemon_binary();
    o.daemon_args = idle_args; /* never outlive a failed test by long */
    o.connect_timeout_ms = 10000;
    *rc = ts_client_connect(&o, &c, err);
    return c;
}

/* Processes whose command line mentions sock (the daemons serving it). */
static int daemons_on(const char *sock, pid_t *one)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int count = 0;

    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL) {
        char path[300], cmd[4096], state = 0;
        FILE *fp;
        size_t n, i;
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
        fp = fopen(path, "r");
        if (fp == NULL)
            continue;
        if (fscanf(fp, "%*d %*s %c", &state) != 1)
            state = 0;
        fclose(fp);
        if (state == 'Z' || state == 0)
            continue;
        snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
        fp = fopen(path, "r");
        if (fp == NULL)
            continue;
        n = fread(cmd, 1, sizeof(cmd) - 1, fp);
        fclose(fp);
        for (i = 0; i < n; i++)
            if (cmd[i] == '\0')
                cmd[i] = ' ';
        cmd[n] = '\0';
        if (strstr(cmd, "toolscored") != NULL && strstr(cmd, sock) != NULL) {
            count++;
            if (one != NULL)
                *one = (pid_t)atoi(e->d_name);
        }
    }
    closedir(d);
    return count;
}

static void wait_no_daemon(const char *sock)
{
    int i;

    for (i = 0; i < 100 && daemons_on(sock, NULL) > 0; i++)
        usleep(50000);
    ck_assert_int_eq(daemons_on(sock, NULL), 0);
}

/* Stop the daemon through c, close c and wait until no daemon serves sock. */
static void stop_and_close(ts_client *c, const char *sock)
{
    ts_error err;

    ck_assert_int_eq(ts_client_stop(c, &err), 0);
    ts_client_close(c);
    wait_no_daemon(sock);
}

START_TEST(real_daemon_autostart_and_calls)
{
    tdaemon d;
    ts_client *c;
    ts_error err;
    struct json_object *res = NULL;
    struct json_object *calls =
        json_tokener_parse("[{\"tool\": \"search\", \"args\": {\"q\": 1}}]");
    ts_check_args a;
    int64_t first_pid;
    int rc;

    tdaemon_prepare(&d);
    c = autostart_client(d.socket, &err, &rc);
    ck_assert_msg(rc == 0, "autostart: %s: %s", err.code, err.message);
    ck_assert_int_eq(daemons_on(d.socket, NULL), 1);
    ck_assert_int_eq(ts_client_status(c, &res, &err), 0);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(res, "socket")), d.socket);
    json_object_put(res);

    ts_check_args_init(&a);
    a.store = d.store;
    a.name = "flow";
    a.actual = calls;
    ck_assert_int_eq(ts_client_check(c, &a, &res, &err), 0);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(res, "outcome")), "CREATED");
    json_object_put(res);
    ck_assert_int_eq(ts_client_show(c, d.store, "missing", &res, &err), TS_CLIENT_EREMOTE);
    ck_assert_str_eq(err.code, "not_found");
    ck_assert_int_eq(ts_client_approve(c, d.store, (const char *[]){"flow"}, 1, false, &res, &err),
                     0);
    json_object_put(res);
    ck_assert_int_eq(ts_client_check(c, &a, &res, &err), 0);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(res, "outcome")), "PASSED");
    json_object_put(res);

    ck_assert_int_eq(ts_client_stop(c, &err), 0);
    wait_no_daemon(d.socket);
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
    ck_assert_int_eq(daemons_on(d.socket, NULL), 1);
    stop_and_close(c, d.socket);
    tdaemon_cleanup(&d);
    json_object_put(calls);
}
END_TEST

/* The pid of the daemon c is connected to (from its hello). */
static int64_t server_pid(const ts_client *c)
{
    return json_object_get_int64(
        json_object_object_get((struct json_object *)ts_client_server_info(c), "pid"));
}

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
    ts_check_args a;
    int round;

    tdaemon_prepare(&d);
    tdaemon_start(&d, NULL);
    c = connect_to(d.socket);
    ts_check_args_init(&a);
    a.store = d.store;
    a.actual = calls;
    for (round = 0; round < 2; round++) {
        char name[32];

        ck_assert_int_eq(ts_client_ping(c, &err), 0);
        ck_assert_int_eq(server_pid(c), d.pid);
        if (round == 0)
            tdaemon_stop_ok(&d);
        else
            tdaemon_kill(&d);
        tdaemon_start(&d, NULL);
        snprintf(name, sizeof(name), "after_restart_%d", round);
        a.name = name;
        ck_assert_msg(ts_client_check(c, &a, &res, &err) == 0, "%s: %s", err.code, err.message);
        ck_assert_str_eq(json_object_get_string(json_object_object_get(res, "outcome")), "CREATED");
        json_object_put(res);
        ck_assert_int_eq(server_pid(c), d.pid);
        ck_assert_int_eq(ts_client_list(c, d.store, true, &res, &err), 0);
        ck_assert_int_eq(json_object_get_int(json_object_object_get(res, "total")), round + 1);
        json_object_put(res);
    }
    ts_client_close(c);
    tdaemon_stop_ok(&d);
    tdaemon_cleanup(&d);
    json_object_put(calls);
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
    c = autostart_client(d.socket, &err, &rc);
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
    c = autostart_client(d.socket, &err, &rc);
    ck_assert_int_eq(rc, 0);
    stop_and_close(c, d.socket);
    tdaemon_cleanup(&d);
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
    c = autostart_client(d.socket, &err, &rc);
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
    /* the child's own connection is gone once the daemon saw it close;
     * the parent's is the one left */
    for (i = 0; i < 100; i++) {
        int conns;
        ck_assert_int_eq(ts_client_status(c, &res, &err), 0);
        conns = json_object_get_int(json_object_object_get(res, "connections"));
        json_object_put(res);
        if (conns == 1)
            break;
        usleep(20000);
    }
    ck_assert_int_lt(i, 100);
    stop_and_close(c, d.socket);
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
    c = connect_to(d.socket);
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
    ts_check_args a;
    struct json_object *calls = json_tokener_parse("[{\"tool\": \"t\", \"args\": {}}]");
    struct json_object *big = json_object_new_array();
    struct json_object *res = NULL;
    char name[64];
    int i;

    tdaemon_prepare(&d);
    tdaemon_start(&d, extra);
    c = connect_to(d.socket);
    ck_assert_int_eq(json_object_get_int(json_object_object_get(
                         (struct json_object *)ts_client_server_info(c), "max_frame")),
                     4096);
    ts_check_args_init(&a);
    a.store = d.store;
    a.actual = calls;
    for (i = 0; i < 60; i++) {
        snprintf(name, sizeof(name), "a-fairly-long-snapshot-name-number-%03d", i);
        a.name = name;
        ck_assert_int_eq(ts_client_check(c, &a, NULL, &err), 0);
    }
    ck_assert_int_eq(ts_client_list(c, d.store, false, &res, &err), 0);
    ck_assert_int_eq(json_object_array_length(json_object_object_get(res, "snapshots")), 60);
    ck_assert_int_gt(strlen(json_object_to_json_string(res)), 8192);
    json_object_put(res);
    for (i = 0; i < 200; i++)
        json_object_array_add(big, json_object_new_string("0123456789012345678901234567890"));
    a.name = "big";
    a.actual = big;
    ck_assert_int_eq(ts_client_check(c, &a, NULL, &err), -E2BIG);
    ck_assert_str_eq(err.code, "too_large");
    ck_assert_ptr_nonnull(strstr(err.message, "4096"));
    ck_assert_int_eq(ts_client_ping(c, &err), 0);
    ts_client_close(c);
    ck_assert_int_eq(tdaemon_stop(&d, 5000), 0);
    tdaemon_cleanup(&d);
    json_object_put(calls);
    json_object_put(big);
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
        o.daemon_args = idle_args;
        o.connect_timeout_ms = 10000;
        ck_assert_msg(ts_client_connect(&o, &c, &err) == 0, "%s: %s", how[i], err.message);
        setenv("PATH", path, 1);
        unsetenv("TOOLSCORED");
        ck_assert_int_eq(daemons_on(d.socket, &pid), 1);
        stop_and_close(c, d.socket);
        tdaemon_cleanup(&d);
    }
    free(path);
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
    ts_check_args a;
    struct json_object *calls;
    struct json_object *res = NULL;
    char name[32];
    int rc, i;

    c = autostart_client(job->sock, &err, &rc);
    if (rc < 0) {
        job->failures++;
        snprintf(job->why, sizeof(job->why), "connect: %s", err.message);
        return NULL;
    }
    calls = json_tokener_parse("[{\"tool\": \"t\", \"args\": {\"n\": 1}}]");
    ts_check_args_init(&a);
    a.store = job->store;
    a.actual = calls;
    for (i = 0; i < 25; i++) {
        snprintf(name, sizeof(name), "thread-%d-%d", job->index, i);
        a.name = name;
        rc = ts_client_check(c, &a, &res, &err);
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
    c = autostart_client(d.socket, &err, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(ts_client_list(c, d.store, false, &res, &err), 0);
    ck_assert_int_eq(json_object_array_length(json_object_object_get(res, "snapshots")),
                     THREADS * 25);
    json_object_put(res);
    ck_assert_int_eq(daemons_on(d.socket, NULL), 1);
    stop_and_close(c, d.socket);
    tdaemon_cleanup(&d);
}
END_TEST

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
    int64_t start = now_ms();

    tdaemon_prepare(&d);
    ts_client_options_init(&o);
    o.socket_path = d.socket;
    o.daemon_path = tdaemon_binary();
    o.daemon_args = bad_args;
    o.connect_timeout_ms = 5000;
    ck_assert_int_lt(ts_client_connect(&o, &c, &err), 0);
    ck_assert_ptr_null(c);
    ck_assert_int_lt(now_ms() - start, 2000); /* a sanity bound, far below the 5 s budget */
    ck_assert_str_eq(err.code, "unavailable");
    ck_assert_msg(strstr(err.message, d.socket) != NULL, "%s", err.message);
    ck_assert_msg(strstr(err.message, "exited with status 2: toolscored: --log-level: expected "
                                      "debug, info, warn or error, got 'loud'") != NULL,
                  "%s", err.message);
    ck_assert_ptr_null(strchr(err.message, '\n'));
    wait_no_daemon(d.socket);
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
    int64_t start = now_ms();

    ts_client_options_init(&o);
    o.socket_path = sock;
    o.daemon_path = daemon;
    o.connect_timeout_ms = budget_ms;
    ck_assert_int_lt(ts_client_connect(&o, &c, err), 0);
    ck_assert_ptr_null(c);
    ck_assert_str_eq(err->code, "unavailable");
    ck_assert_ptr_null(strchr(err->message, '\n'));
    return now_ms() - start;
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
    start = now_ms();
    ck_assert_int_eq(ts_client_connect(&o, &c, &err), TS_CLIENT_EREMOTE);
    ck_assert_int_lt(now_ms() - start, 2000);
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
    start = now_ms();
    for (;;) {
        int rc = ts_client_connect(&o, &c, &err);

        if (rc == 0)
            break;
        /* the daemon may not have seen the closes yet */
        ck_assert_msg(rc == TS_CLIENT_EREMOTE && strcmp(err.code, "busy") == 0, "%s: %s", err.code,
                      err.message);
        ck_assert_int_lt(now_ms() - start, 3000);
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
    int64_t start = now_ms();

    tdaemon_prepare(&d);
    snprintf(dir, sizeof(dir), "%s/run", d.dir);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    ck_assert_int_eq(chmod(dir, 0755), 0);
    snprintf(sock, sizeof(sock), "%s/toolscored.sock", dir);
    ts_client_options_init(&o);
    o.socket_path = sock;
    o.daemon_path = tdaemon_binary();
    o.daemon_args = idle_args;
    o.connect_timeout_ms = 5000;
    ck_assert_int_lt(ts_client_connect(&o, &c, &err), 0);
    ck_assert_ptr_null(c);
    ck_assert_str_eq(err.code, "unavailable");
    ck_assert_ptr_nonnull(strstr(err.message, sock));
    ck_assert_ptr_nonnull(strstr(err.message, "0755"));
    ck_assert_ptr_null(strchr(err.message, '\n'));
    ck_assert_int_lt(now_ms() - start, 1000);
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
            c = autostart_client(d.socket, &err, &rc);
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
    /* the losers of the lock race are gone; one daemon serves the socket */
    for (i = 0; i < 100 && daemons_on(d.socket, NULL) > 1; i++)
        usleep(50000);
    ck_assert_int_eq(daemons_on(d.socket, &daemon_pid), 1);
    ck_assert_int_eq(daemon_pid, pids[0]);
    c = autostart_client(d.socket, &err, &rc);
    ck_assert_int_eq(rc, 0);
    stop_and_close(c, d.socket);
    tdaemon_cleanup(&d);
}
END_TEST

/* The typed check and ts_client_check agree against the daemon, for every
 * outcome and for error replies, on the same state. */
START_TEST(real_daemon_check_outcome_matches_tree)
{
    tdaemon d;
    ts_client *c;
    ts_error err;
    ts_check_args a;
    ts_check_outcome created;
    struct json_object *res = NULL;
    struct json_object *calls = json_tokener_parse("[{\"tool\": \"search\", \"args\": {\"q\": 1}}, "
                                                   "{\"tool\": \"open\", \"args\": {\"id\": 7}}]");
    struct json_object *other = json_tokener_parse("[{\"tool\": \"delete\", \"args\": {}}]");
    struct json_object *bad = json_tokener_parse("{\"not\": \"calls\"}");

    tdaemon_prepare(&d);
    tdaemon_start(&d, idle_args);
    c = connect_to(d.socket);
    ts_check_args_init(&a);
    a.store = d.store;
    a.name = "flow";
    a.actual = calls;
    /* CREATED changes the state: typed first, then the snapshot is removed
     * and the tree call creates it again */
    ck_assert_int_eq(ts_client_check_outcome(c, &a, &created, &err), 0);
    ck_assert_str_eq(created.outcome, "CREATED");
    ck_assert_int_eq(ts_client_rm(c, d.store, "flow", NULL, &err), 0);
    ck_assert_int_eq(ts_client_check(c, &a, &res, &err), 0);
    same_as_tree(&created, res);
    json_object_put(res);
    ts_check_outcome_free(&created);

    both_agree(c, &a, "PENDING");
    ck_assert_int_eq(ts_client_approve(c, d.store, (const char *[]){"flow"}, 1, false, NULL, &err),
                     0);
    both_agree(c, &a, "PASSED");
    a.actual = other;
    both_agree(c, &a, "FAILED");
    a.min_score = 0.0;
    both_agree(c, &a, "PASSED");
    a.min_score = 1.0;
    a.color = true;
    both_agree(c, &a, "FAILED");
    a.color = false;
    a.name = "never-recorded";
    a.ci = true;
    both_agree(c, &a, "ERROR_MISSING_IN_CI");
    a.ci = false;
    a.run = "no-such-run";
    both_refused(c, &a, "not_found");
    a.run = NULL;
    a.actual = bad;
    both_refused(c, &a, "format");
    a.name = "\xff";
    a.actual = calls;
    {
        both_ways b;

        check_both_ways(c, &a, &b); /* refused before sending: invalid UTF-8 */
        ck_assert_int_lt(b.typed_rc, 0);
        ck_assert_int_eq(b.typed_rc, b.tree_rc);
        ck_assert_str_eq(b.typed_err.code, b.tree_err.code);
        both_ways_free(&b);
    }
    ts_client_close(c);
    tdaemon_stop_ok(&d);
    tdaemon_cleanup(&d);
    json_object_put(calls);
    json_object_put(other);
    json_object_put(bad);
}
END_TEST

/* ---- store path resolutions (against the real daemon) ----------------- */

/*
 * The client remembers a few store resolutions and reuses one only while
 * stat() shows both the caller's string and the remembered path still reach
 * the directory resolved then (client/ts_client_store.c). Each test below
 * changes what a string names between two checks in a way that one of those
 * checks alone (or a remembered missing store) would miss, and looks where
 * the check went: the outcome, and the directory of the snapshot file the
 * daemon names.
 */

typedef struct store_env {
    tdaemon d;
    ts_client *c;
    char base[PATH_MAX]; /* the test's directory, symlink-resolved */
    char cwd[PATH_MAX];  /* the working directory to restore */
    struct json_object *calls;
} store_env;

static void store_env_start(store_env *e)
{
    tdaemon_prepare(&e->d);
    tdaemon_start(&e->d, idle_args);
    e->c = connect_to(e->d.socket);
    ck_assert_ptr_nonnull(realpath(e->d.dir, e->base));
    ck_assert_ptr_nonnull(getcwd(e->cwd, sizeof(e->cwd)));
    e->calls = json_tokener_parse("[{\"tool\": \"search\", \"args\": {\"q\": 1}}]");
}

static void store_env_stop(store_env *e)
{
    ck_assert_int_eq(chdir(e->cwd), 0);
    ts_client_close(e->c);
    tdaemon_stop_ok(&e->d);
    tdaemon_cleanup(&e->d);
    json_object_put(e->calls);
}

/* base/rel into out. */
static const char *under(const store_env *e, const char *rel, char *out, size_t outsz)
{
    int n = snprintf(out, outsz, "%s/%s", e->base, rel);

    ck_assert(n > 0 && (size_t)n < outsz);
    return out;
}

/* Point the symlink base/link at target (relative to base). */
static void point_link(const store_env *e, const char *link, const char *target)
{
    char path[PATH_MAX];

    under(e, link, path, sizeof(path));
    ck_assert(unlink(path) == 0 || errno == ENOENT);
    ck_assert_int_eq(symlink(target, path), 0);
}

static void make_dir(const store_env *e, const char *rel)
{
    char path[PATH_MAX];

    ck_assert_int_eq(mkdir(under(e, rel, path, sizeof(path)), 0755), 0);
}

/* Check "flow" in store (ci as given): the outcome must be want and the
 * snapshot file must lie directly in base/dir. */
static void check_lands(store_env *e, const char *store, bool ci, const char *want, const char *dir)
{
    ts_check_args a;
    ts_error err;
    struct json_object *res = NULL;
    char expect[PATH_MAX];
    const char *file;
    size_t n;
    int rc;

    ts_check_args_init(&a);
    a.store = store;
    a.name = "flow";
    a.actual = e->calls;
    a.ci = ci;
    rc = ts_client_check(e->c, &a, &res, &err);
    ck_assert_msg(rc == 0, "check in %s: %s: %s", store, err.code, err.message);
    under(e, dir, expect, sizeof(expect));
    file = tstr(res, "file");
    n = strlen(expect);
    ck_assert_msg(strcmp(tstr(res, "outcome"), want) == 0 && strncmp(file, expect, n) == 0 &&
                      file[n] == '/' && strchr(file + n + 1, '/') == NULL,
                  "check in %s: %s with file %s, expected %s in %s/", store, tstr(res, "outcome"),
                  file, want, expect);
    json_object_put(res);
}

/* A symlinked store path whose link is switched to another directory
 * between two checks: the second goes to the new directory. */
START_TEST(store_symlink_switched)
{
    store_env e;
    char link[PATH_MAX];

    store_env_start(&e);
    make_dir(&e, "a");
    make_dir(&e, "b");
    point_link(&e, "current", "a");
    under(&e, "current", link, sizeof(link));
    check_lands(&e, link, false, "CREATED", "a");
    check_lands(&e, link, false, "PENDING", "a");
    point_link(&e, "current", "b");
    check_lands(&e, link, false, "CREATED", "b");
    check_lands(&e, link, false, "PENDING", "b");
    point_link(&e, "current", "a");
    check_lands(&e, link, false, "PENDING", "a");
    store_env_stop(&e);
}
END_TEST

/* A store directory renamed away and a new one made at the same path:
 * named directly, the new one is used; named through a symlink that now
 * follows the moved directory, the moved one is (never the new, empty one
 * at the remembered path). */
START_TEST(store_renamed_and_recreated)
{
    store_env e;
    char path[PATH_MAX], moved[PATH_MAX], link[PATH_MAX];

    store_env_start(&e);
    make_dir(&e, "s");
    under(&e, "s", path, sizeof(path));
    check_lands(&e, path, false, "CREATED", "s");
    check_lands(&e, path, false, "PENDING", "s");
    ck_assert_int_eq(rename(path, under(&e, "s.old", moved, sizeof(moved))), 0);
    make_dir(&e, "s");
    check_lands(&e, path, false, "CREATED", "s");

    make_dir(&e, "t");
    point_link(&e, "link", "t");
    under(&e, "link", link, sizeof(link));
    check_lands(&e, link, false, "CREATED", "t");
    check_lands(&e, link, false, "PENDING", "t");
    ck_assert_int_eq(
        rename(under(&e, "t", path, sizeof(path)), under(&e, "t.moved", moved, sizeof(moved))), 0);
    point_link(&e, "link", "t.moved");
    make_dir(&e, "t");
    check_lands(&e, link, false, "PENDING", "t.moved");
    ck_assert_int_eq(util_count_entries(path, ""), 0);
    store_env_stop(&e);
}
END_TEST

/* A relative store path used from two working directories names two
 * stores. */
START_TEST(store_relative_from_two_directories)
{
    store_env e;
    char dir[PATH_MAX];

    store_env_start(&e);
    make_dir(&e, "w1");
    make_dir(&e, "w1/snaps");
    make_dir(&e, "w2");
    make_dir(&e, "w2/snaps");
    ck_assert_int_eq(chdir(under(&e, "w1", dir, sizeof(dir))), 0);
    check_lands(&e, "snaps", false, "CREATED", "w1/snaps");
    check_lands(&e, "snaps", false, "PENDING", "w1/snaps");
    ck_assert_int_eq(chdir(under(&e, "w2", dir, sizeof(dir))), 0);
    check_lands(&e, "snaps", false, "CREATED", "w2/snaps");
    check_lands(&e, "snaps", false, "PENDING", "w2/snaps");
    ck_assert_int_eq(chdir(under(&e, "w1", dir, sizeof(dir))), 0);
    check_lands(&e, "snaps", false, "PENDING", "w1/snaps");
    store_env_stop(&e);
}
END_TEST

/* A store that does not exist yet: each check resolves it afresh until the
 * check that creates it; from then on it exists and is the one used. */
START_TEST(store_missing_then_created)
{
    store_env e;
    char store[PATH_MAX], path[PATH_MAX];
    struct stat st;

    store_env_start(&e);
    make_dir(&e, "a");
    make_dir(&e, "b");
    point_link(&e, "link", "a");
    under(&e, "link/new", store, sizeof(store));
    /* in CI a missing snapshot creates nothing: the store stays missing */
    check_lands(&e, store, true, "ERROR_MISSING_IN_CI", "a/new");
    ck_assert_int_eq(stat(under(&e, "a/new", path, sizeof(path)), &st), -1);
    point_link(&e, "link", "b");
    check_lands(&e, store, false, "CREATED", "b/new");
    check_lands(&e, store, false, "PENDING", "b/new");
    /* back to a, where the store is still missing (b/new stays) */
    point_link(&e, "link", "a");
    check_lands(&e, store, false, "CREATED", "a/new");
    check_lands(&e, store, false, "PENDING", "a/new");
    store_env_stop(&e);
}
END_TEST

/* A directory on the store's path moved and replaced by a symlink to its new
 * place: the remembered path still reaches the same directory, so the stats
 * cannot tell; the entry's age bound makes the client send the new
 * canonical path within a second. */
START_TEST(store_parent_replaced_by_symlink)
{
    store_env e;
    char store[PATH_MAX], from[PATH_MAX], to[PATH_MAX];

    store_env_start(&e);
    make_dir(&e, "proj");
    make_dir(&e, "proj/snaps");
    under(&e, "proj/snaps", store, sizeof(store));
    check_lands(&e, store, false, "CREATED", "proj/snaps");
    ck_assert_int_eq(
        rename(under(&e, "proj", from, sizeof(from)), under(&e, "proj2", to, sizeof(to))), 0);
    point_link(&e, "proj", "proj2");
    usleep(1100 * 1000);
    check_lands(&e, store, false, "PENDING", "proj2/snaps");
    store_env_stop(&e);
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
    c = connect_to(a.sock);
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
    c = connect_to(a.sock);
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
    c = connect_to(a.sock);
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

static Suite *client_suite(void)
{
    Suite *s = suite_create("client");
    TCase *fake_tc = tcase_create("fake server");
    TCase *real = tcase_create("real daemon");

    tcase_add_test(fake_tc, connect_hello_and_call);
    tcase_add_test(fake_tc, no_daemon_without_autostart);
    tcase_add_test(fake_tc, autostart_without_binary);
    tcase_add_test(fake_tc, socket_from_environment);
    tcase_add_test(fake_tc, version_mismatch_from_fake);
    tcase_add_test(fake_tc, pipelining_in_order);
    tcase_add_test(fake_tc, replies_split_across_reads);
    tcase_add_test(fake_tc, broken_connection_reconnects);
    tcase_add_test(fake_tc, bad_replies);
    tcase_add_test(fake_tc, request_timeout);
    tcase_add_test(fake_tc, request_over_server_max_frame);
    tcase_add_test(fake_tc, long_socket_path);
    tcase_add_test(fake_tc, typed_helpers_send_documented_params);
    tcase_add_test(fake_tc, store_resolution_follows_changes);
    tcase_add_test(fake_tc, fork_child_reconnects);
    tcase_add_test(fake_tc, fork_child_leaves_pipelined_reply);
    tcase_add_test(fake_tc, fork_generations_each_connect);
    tcase_add_test(fake_tc, closed_after_reply_resends_once);
    tcase_add_test(fake_tc, unasked_frame_never_taken_as_reply);
    tcase_add_test(fake_tc, check_outcome_reads_replies);
    tcase_add_test(fake_tc, check_request_bytes_unchanged);
    tcase_add_test(fake_tc, check_outcome_random_replies);
    tcase_add_test(fake_tc, check_outcome_refuses_bad_replies);
    tcase_add_test(fake_tc, store_busy_is_followed);
    tcase_add_test(real, real_daemon_autostart_and_calls);
    tcase_add_test(real, real_daemon_version_mismatch);
    tcase_add_test(real, real_daemon_restarted_right_after_reply);
    tcase_add_test(real, real_daemon_fork_safety);
    tcase_add_test(real, real_daemon_found_by_env_and_path);
    tcase_add_test(real, real_daemon_small_max_frame);
    tcase_add_test(real, real_daemon_list_pages);
    tcase_add_test(real, real_daemon_one_client_per_thread);
    tcase_add_test(real, real_daemon_that_cannot_start);
    tcase_add_test(real, autostarted_program_that_exits);
    tcase_add_test(real, real_daemon_out_of_descriptors);
    tcase_add_test(real, real_daemon_refused_socket_dir);
    tcase_add_test(real, real_daemon_sixteen_autostarts_one_daemon);
    tcase_add_test(real, real_daemon_check_outcome_matches_tree);
    tcase_add_test(real, store_symlink_switched);
    tcase_add_test(real, store_renamed_and_recreated);
    tcase_add_test(real, store_relative_from_two_directories);
    tcase_add_test(real, store_missing_then_created);
    tcase_add_test(real, store_parent_replaced_by_symlink);
    suite_add_tcase(s, fake_tc);
    suite_add_tcase(s, real);
    return s;
}

int main(void)
{
    return util_run_suite(client_suite());
}
