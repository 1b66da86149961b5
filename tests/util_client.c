/*
 * util_client — helpers of the client suites (see util_client.h).
 */
#include "util_client.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/base/ts_base.h"
#include "proto/ts_proto.h"
#include "util_daemon.h"
#include "util_test.h"

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

/* The start of an ok reply: a map of members (< 16) entries, id (as
 * uint 64), ok: true, and the key "result" (its value comes next). */
static void ok_head(ts_buf *b, uint64_t id, unsigned members)
{
    ts_buf_appendc(b, (char)(0x80 | members));
    mp_str(b, "id");
    mp_uint(b, id);
    mp_str(b, "ok");
    ts_buf_appendc(b, (char)0xc3);
    mp_str(b, "result");
}

/* The payload of an ok reply {id, ok: true, result} (id as uint 64). */
static void ok_payload(ts_buf *b, uint64_t id, const char *result_json)
{
    ok_head(b, id, 3);
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
        ok_head(b, id, 4);
        mp_json(b, CANNED_RESULT);
        mp_str(b, "ok");
        ts_buf_appendc(b, (char)0xc3);
    } else if (strcmp(kind, "reply:dup-outcome") == 0) {
        ok_head(b, id, 3);
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
        ok_head(b, id, 3);
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
               strcmp(json_object_get_string(json_object_object_get(req->params, "to")), f->sock) !=
                   0) {
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
    if (strcmp(req->method, "stray") == 0) {
        pthread_mutex_lock(&f->mu);
        f->nstray++;
        pthread_mutex_unlock(&f->mu);
    }
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
void fake_start_at(fake *f, const char *sock, size_t max_frame)
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

void fake_start(fake *f)
{
    fake_start_at(f, NULL, 0);
}

void fake_stop(fake *f)
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
const fake_entry *fake_last(fake *f, const char *method)
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
int fake_count(fake *f, const char *method, int *last_conn)
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

/* A counter of the fake server (read under its lock) and the value awaited. */
typedef struct fake_count_wait {
    fake *f;
    const int *counter;
    int n;
} fake_count_wait;

static bool fake_count_reached(void *arg)
{
    fake_count_wait *w = arg;
    int now;

    pthread_mutex_lock(&w->f->mu);
    now = *w->counter;
    pthread_mutex_unlock(&w->f->mu);
    return now >= w->n;
}

void fake_wait_closed(fake *f, int n)
{
    fake_count_wait w = {f, &f->nclosed, n};

    ck_assert_msg(util_wait_for(fake_count_reached, &w, UTIL_WAIT_MS),
                  "the fake server did not close %d connection(s) within %d ms", n, UTIL_WAIT_MS);
}

void fake_wait_strays(fake *f, int n)
{
    fake_count_wait w = {f, &f->nstray, n};

    ck_assert_msg(util_wait_for(fake_count_reached, &w, UTIL_WAIT_MS),
                  "the fake server did not write %d unasked frame(s) within %d ms", n,
                  UTIL_WAIT_MS);
}

ts_client *util_client_connect(const char *sock)
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

int64_t util_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct json_object *fake_param(const fake_entry *e, const char *key)
{
    ck_assert_ptr_nonnull(e);
    return json_object_object_get(e->params, key);
}

/* ---- the real daemon ------------------------------------------------ */

const char *const util_idle_args[] = {"--idle-timeout", "20", NULL};

ts_client *util_autostart_client(const char *sock, ts_error *err, int *rc)
{
    ts_client_options o;
    ts_client *c = NULL;

    ts_client_options_init(&o);
    o.socket_path = sock;
    o.daemon_path = tdaemon_binary();
    o.daemon_args = util_idle_args; /* never outlive a failed test by long */
    o.connect_timeout_ms = 20000;
    *rc = ts_client_connect(&o, &c, err);
    return c;
}

/* Processes whose command line mentions sock (the daemons serving it). */
int util_daemons_on(const char *sock, pid_t *one)
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

/* Up to 20 s: a deadline that only a daemon that does not stop reaches
 * (a sanitized daemon on a loaded machine takes a while to exit). */
void util_wait_no_daemon(const char *sock)
{
    int i;

    for (i = 0; i < 400 && util_daemons_on(sock, NULL) > 0; i++)
        usleep(50000);
    ck_assert_int_eq(util_daemons_on(sock, NULL), 0);
}

/* Stop the daemon through c, close c and wait until no daemon serves sock. */
void util_stop_and_close(ts_client *c, const char *sock)
{
    ts_error err;

    ck_assert_int_eq(ts_client_stop(c, &err), 0);
    ts_client_close(c);
    util_wait_no_daemon(sock);
}

/* The pid of the daemon c is connected to (from its hello). */
int64_t util_server_pid(const ts_client *c)
{
    return json_object_get_int64(
        json_object_object_get((struct json_object *)ts_client_server_info(c), "pid"));
}
