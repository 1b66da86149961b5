/*
 * test_daemon_wire — what toolscored does with what arrives on its socket:
 * garbage, truncated, zero-length and oversized frames, wrong msgpack types,
 * requests before hello, other protocol versions, unknown methods, clients
 * vanishing mid-request, pipelining, the connection limit. In every case the
 * offending connection gets a clear error (when possible) and every other
 * client keeps being served.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <time.h>
#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "lib/base/ts_base.h"
#include "proto/ts_proto.h"
#include "util_daemon.h"
#include "util_test.h"
#include "ts_version.h"

static void bystander_still_served(void)
{
    json_object_put(tdaemon_ok(tdaemon_fx_conn, "ping", NULL));
    tdaemon_serves(tdaemon_fx.socket);
}

/* Read the error reply the daemon sends before closing; return its code. */
static const char *read_error(int fd, bool want_nil_id)
{
    static char code[64];
    struct json_object *reply = NULL;
    struct json_object *error = NULL, *id = NULL;

    ck_assert_msg(tdaemon_read(fd, &reply, 5000) == 0, "no error reply");
    ck_assert_msg(json_object_object_get_ex(reply, "error", &error) && error != NULL, "%s",
                  json_object_to_json_string(reply));
    ck_assert_msg(strlen(tstr(error, "message")) > 0, "an error needs a message");
    json_object_object_get_ex(reply, "id", &id);
    if (want_nil_id)
        ck_assert_msg(id == NULL, "id should be nil: %s", json_object_to_json_string(reply));
    snprintf(code, sizeof(code), "%s", tstr(error, "code"));
    json_object_put(reply);
    return code;
}

/* A frame around raw msgpack bytes. */
static void send_payload(int fd, const void *payload, uint32_t len)
{
    unsigned char header[4];

    ts_frame_put_header(header, len);
    ck_assert(tdaemon_send_raw(fd, header, 4) == 0);
    ck_assert(tdaemon_send_raw(fd, payload, len) == 0);
}

START_TEST(garbage_bytes)
{
    int fd = tdaemon_connect(tdaemon_fx.socket);
    const char garbage[] = "\x00\x00\x00\x05\xc1\xc1\xc1\xc1\xc1";

    ck_assert(tdaemon_send_raw(fd, garbage, sizeof(garbage) - 1) == 0);
    ck_assert_str_eq(read_error(fd, true), "bad_frame");
    ck_assert(tdaemon_closed(fd, 3000));
    close(fd);
    bystander_still_served();
}
END_TEST

START_TEST(http_request)
{
    int fd = tdaemon_connect_raw(tdaemon_fx.socket);
    const char *http = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";

    ck_assert(fd >= 0);
    tdaemon_send_raw(fd, http, strlen(http)); /* "GET " is a 1.1 GB length */
    ck_assert_str_eq(read_error(fd, true), "frame_too_large");
    ck_assert(tdaemon_closed(fd, 3000));
    close(fd);
    bystander_still_served();
}
END_TEST

START_TEST(oversized_and_empty_frames)
{
    int fd = tdaemon_connect(tdaemon_fx.socket);
    unsigned char header[4];

    ts_frame_put_header(header, 65537);
    ck_assert(tdaemon_send_raw(fd, header, 4) == 0);
    ck_assert_str_eq(read_error(fd, true), "frame_too_large");
    ck_assert(tdaemon_closed(fd, 3000));
    close(fd);

    fd = tdaemon_connect(tdaemon_fx.socket);
    ts_frame_put_header(header, 0);
    ck_assert(tdaemon_send_raw(fd, header, 4) == 0);
    ck_assert_str_eq(read_error(fd, true), "bad_frame");
    ck_assert(tdaemon_closed(fd, 3000));
    close(fd);

    /* a real request just over the limit, pipelined behind a good one */
    fd = tdaemon_connect(tdaemon_fx.socket);
    struct json_object *p = json_object_new_object();
    char *big = malloc(70000);
    memset(big, 'x', 69999);
    big[69999] = '\0';
    json_object_object_add(p, "pad", json_object_new_string(big));
    free(big);
    tdaemon_send(fd, 1, "ping", NULL);
    /* the daemon may refuse the frame at its header and close before the
     * rest is written: the send may then fail with EPIPE, and what the
     * daemon said is still there to read */
    int rc = tdaemon_try_send(fd, 2, "ping", p);
    ck_assert_msg(rc == 0 || rc == -EPIPE || rc == -ECONNRESET, "send: %s", strerror(-rc));
    json_object_put(p);
    struct json_object *r = NULL;
    ck_assert(tdaemon_read(fd, &r, 5000) == 0);
    json_object_put(r); /* the good one was answered */
    ck_assert_str_eq(read_error(fd, true), "frame_too_large");
    ck_assert(tdaemon_closed(fd, 3000));
    close(fd);
    bystander_still_served();
}
END_TEST

START_TEST(truncated_frame_and_disconnect)
{
    for (int i = 0; i < 20; i++) {
        int fd = tdaemon_connect(tdaemon_fx.socket);
        unsigned char header[4];

        ts_frame_put_header(header, 1000);
        tdaemon_send_raw(fd, header, 4);
        tdaemon_send_raw(fd, "\x81\xa2id", 4);
        close(fd);
        /* half a header */
        fd = tdaemon_connect(tdaemon_fx.socket);
        tdaemon_send_raw(fd, header, 2);
        close(fd);
    }
    bystander_still_served();
}
END_TEST

START_TEST(disconnect_mid_request)
{
    /* requests whose client is gone before the reply: checks that write */
    for (int i = 0; i < 20; i++) {
        int fd = tdaemon_connect(tdaemon_fx.socket);
        struct json_object *p = json_object_new_object();
        char name[32];

        snprintf(name, sizeof(name), "gone-%d", i);
        json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
        json_object_object_add(p, "name", json_object_new_string(name));
        json_object_object_add(p, "actual", tjson("[{\"tool\": \"t\", \"args\": {}}]"));
        tdaemon_send(fd, 7, "check", p);
        tdaemon_send(fd, 8, "list", p);
        json_object_put(p);
        close(fd);
    }
    bystander_still_served();
    /* every write was still done */
    struct json_object *p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    struct json_object *r = tdaemon_ok(tdaemon_fx_conn, "list", p);
    struct json_object *items = NULL;
    json_object_object_get_ex(r, "snapshots", &items);
    ck_assert_int_eq(json_object_array_length(items), 20);
    json_object_put(r);
    json_object_put(p);
}
END_TEST

/* msgpack payloads of the wrong shape. */
static void pack_and_send(int fd, void (*build)(msgpack_packer *pk))
{
    msgpack_sbuffer sb;
    msgpack_packer pk;

    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    build(&pk);
    send_payload(fd, sb.data, (uint32_t)sb.size);
    msgpack_sbuffer_destroy(&sb);
}

static void key(msgpack_packer *pk, const char *k)
{
    msgpack_pack_str(pk, strlen(k));
    msgpack_pack_str_body(pk, k, strlen(k));
}

static void build_array(msgpack_packer *pk)
{
    msgpack_pack_array(pk, 2);
    msgpack_pack_int(pk, 1);
    msgpack_pack_int(pk, 2);
}

static void build_string_id(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 2);
    key(pk, "id");
    key(pk, "one");
    key(pk, "method");
    key(pk, "ping");
}

static void build_int_method(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 2);
    key(pk, "id");
    msgpack_pack_uint64(pk, 5);
    key(pk, "method");
    msgpack_pack_int(pk, 12);
}

static void build_array_params(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 3);
    key(pk, "id");
    msgpack_pack_uint64(pk, 6);
    key(pk, "method");
    key(pk, "ping");
    key(pk, "params");
    msgpack_pack_array(pk, 0);
}

static void build_bin_param(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 3);
    key(pk, "id");
    msgpack_pack_uint64(pk, 9);
    key(pk, "method");
    key(pk, "ping");
    key(pk, "params");
    msgpack_pack_map(pk, 1);
    key(pk, "blob");
    msgpack_pack_bin(pk, 3);
    msgpack_pack_bin_body(pk, "abc", 3);
}

START_TEST(wrong_types)
{
    void (*builders[])(msgpack_packer *) = {build_array, build_string_id};

    for (size_t i = 0; i < 2; i++) {
        int fd = tdaemon_connect(tdaemon_fx.socket);
        pack_and_send(fd, builders[i]);
        ck_assert_str_eq(read_error(fd, true), "bad_request");
        ck_assert(tdaemon_closed(fd, 3000));
        close(fd);
    }
    /* the id was read: the error carries it and the connection stays */
    void (*with_id[])(msgpack_packer *) = {build_int_method, build_array_params, build_bin_param};
    for (size_t i = 0; i < 3; i++) {
        int fd = tdaemon_connect(tdaemon_fx.socket);
        struct json_object *reply = NULL, *id = NULL;

        pack_and_send(fd, with_id[i]);
        ck_assert(tdaemon_read(fd, &reply, 5000) == 0);
        ck_assert(json_object_object_get_ex(reply, "id", &id) && id != NULL);
        struct json_object *error = NULL;
        json_object_object_get_ex(reply, "error", &error);
        ck_assert_str_eq(tstr(error, "code"), "bad_request");
        json_object_put(reply);
        json_object_put(tdaemon_ok(fd, "ping", NULL));
        close(fd);
    }
    bystander_still_served();
}
END_TEST

/* Values nested deeper than 128 levels: "limit", for that request only
 * (packed by hand: the client library refuses to encode them). */
static int deep_levels_; /* levels of the request built_deep packs, its own map the first */

static void build_deep(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 3);
    key(pk, "id");
    msgpack_pack_uint64(pk, 77);
    key(pk, "method");
    key(pk, "ping");
    key(pk, "params");
    msgpack_pack_map(pk, 1);
    key(pk, "deep");
    for (int i = 2; i < deep_levels_; i++)
        msgpack_pack_array(pk, 1);
    msgpack_pack_nil(pk);
}

START_TEST(nesting_limit)
{
    int fd = tdaemon_connect(tdaemon_fx.socket);
    struct json_object *reply = NULL, *error = NULL, *id = NULL;

    /* 128 levels are accepted; 129 are refused, the message saying 128 */
    deep_levels_ = 128;
    pack_and_send(fd, build_deep);
    ck_assert(tdaemon_read(fd, &reply, 5000) == 0);
    ck_assert(json_object_get_boolean(json_object_object_get(reply, "ok")));
    json_object_put(reply);
    for (int levels = 129; levels <= 200; levels += 71) {
        deep_levels_ = levels;
        pack_and_send(fd, build_deep);
        ck_assert(tdaemon_read(fd, &reply, 5000) == 0);
        ck_assert(json_object_object_get_ex(reply, "error", &error) && error != NULL);
        ck_assert_str_eq(tstr(error, "code"), "limit");
        ck_assert_msg(strstr(tstr(error, "message"), "request nested deeper than 128 levels") !=
                          NULL,
                      "%s", tstr(error, "message"));
        ck_assert(json_object_object_get_ex(reply, "id", &id) && id != NULL);
        ck_assert_int_eq(json_object_get_int64(id), 77);
        json_object_put(reply);
    }
    json_object_put(tdaemon_ok(fd, "ping", NULL));
    close(fd);
    bystander_still_served();
}
END_TEST

/*
 * A request whose params member "actual" is broken (the daemon keeps a
 * check's "actual" as bytes until it needs them): invalid UTF-8, a bin
 * inside, a second "actual", nesting past the limit. Packed by hand after a
 * valid store and name.
 */
static int broken_how_;
static const char *broken_method_;

static void build_broken_actual(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 3);
    key(pk, "id");
    msgpack_pack_uint64(pk, 31);
    key(pk, "method");
    key(pk, broken_method_);
    key(pk, "params");
    msgpack_pack_map(pk, broken_how_ == 2 ? 4 : 3);
    key(pk, "store");
    key(pk, tdaemon_fx.store);
    key(pk, "name");
    key(pk, "broken");
    key(pk, "actual");
    msgpack_pack_array(pk, 1);
    switch (broken_how_) {
    case 0:
        msgpack_pack_map(pk, 1);
        key(pk, "tool");
        msgpack_pack_str(pk, 2);
        msgpack_pack_str_body(pk, "\xff\xfe", 2);
        break;
    case 1:
        msgpack_pack_map(pk, 2);
        key(pk, "tool");
        key(pk, "t");
        key(pk, "args");
        msgpack_pack_bin(pk, 3);
        msgpack_pack_bin_body(pk, "abc", 3);
        break;
    case 2:
        msgpack_pack_nil(pk);
        key(pk, "actual");
        msgpack_pack_array(pk, 0);
        break;
    default:
        for (int i = 0; i < 200; i++)
            msgpack_pack_array(pk, 1);
        msgpack_pack_nil(pk);
        break;
    }
}

START_TEST(broken_actual)
{
    static const char *const codes[] = {"bad_request", "bad_request", "bad_request", "limit"};
    static const char *const says[] = {"UTF-8", "bin", "duplicate map key \"actual\"",
                                       "deeper than"};
    static const char *const methods[] = {"check", "ping"};
    int fd = tdaemon_connect(tdaemon_fx.socket);

    for (size_t m = 0; m < 2; m++) {
        for (int how = 0; how < 4; how++) {
            struct json_object *reply = NULL, *error = NULL, *id = NULL;

            broken_how_ = how;
            broken_method_ = methods[m];
            pack_and_send(fd, build_broken_actual);
            ck_assert(tdaemon_read(fd, &reply, 5000) == 0);
            ck_assert_msg(json_object_object_get_ex(reply, "error", &error) && error != NULL,
                          "%s %d accepted: %s", methods[m], how, json_object_to_json_string(reply));
            ck_assert_str_eq(tstr(error, "code"), codes[how]);
            ck_assert_msg(strstr(tstr(error, "message"), says[how]) != NULL, "%s %d: %s",
                          methods[m], how, tstr(error, "message"));
            ck_assert(json_object_object_get_ex(reply, "id", &id) && id != NULL);
            ck_assert_int_eq(json_object_get_int64(id), 31);
            json_object_put(reply);
            json_object_put(tdaemon_ok(fd, "ping", NULL)); /* the connection stays */
        }
    }
    close(fd);
    bystander_still_served();
}
END_TEST

/* A check whose params come before its method (any key order is valid):
 * the daemon decodes them whole, and the answers are the usual ones. */
static const char *ordered_name_;

static void build_params_first(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 3);
    key(pk, "params");
    msgpack_pack_map(pk, 3);
    key(pk, "store");
    key(pk, tdaemon_fx.store);
    key(pk, "name");
    key(pk, ordered_name_);
    key(pk, "actual");
    msgpack_pack_array(pk, 1);
    msgpack_pack_map(pk, 1);
    key(pk, "tool");
    key(pk, "t");
    key(pk, "id");
    msgpack_pack_uint64(pk, 41);
    key(pk, "method");
    key(pk, "check");
}

START_TEST(params_before_method)
{
    static const char *const outcomes[] = {"CREATED", "PENDING"};
    int fd = tdaemon_connect(tdaemon_fx.socket);

    ordered_name_ = "ordered";
    for (size_t i = 0; i < 2; i++) {
        struct json_object *reply = NULL, *result = NULL;

        pack_and_send(fd, build_params_first);
        ck_assert(tdaemon_read(fd, &reply, 5000) == 0);
        ck_assert_msg(json_object_object_get_ex(reply, "result", &result) && result != NULL,
                      "refused: %s", json_object_to_json_string(reply));
        ck_assert_str_eq(tstr(result, "outcome"), outcomes[i]);
        json_object_put(reply);
    }
    close(fd);
    bystander_still_served();
}
END_TEST

START_TEST(hello_rules)
{
    int fd = tdaemon_connect_raw(tdaemon_fx.socket);

    ck_assert(fd >= 0);
    ck_assert_ptr_nonnull(strstr(tdaemon_err(fd, "ping", NULL, "hello_required"), "hello"));
    tdaemon_err(fd, "nosuch", NULL, "hello_required");
    struct json_object *hello = tjson("{\"protocol\": 2, \"client\": \"future/9\"}");
    const char *msg = tdaemon_err(fd, "hello", hello, "version_mismatch");
    ck_assert_str_eq(msg, "client speaks protocol 2, server speaks protocol 1");
    json_object_put(hello);
    ck_assert(tdaemon_closed(fd, 3000));
    close(fd);

    fd = tdaemon_connect_raw(tdaemon_fx.socket);
    hello = tjson("{\"protocol\": \"1\"}");
    tdaemon_err(fd, "hello", hello, "invalid_argument");
    json_object_put(hello);
    hello = tjson("{\"protocol\": 1, \"client\": \"t\", \"pid\": 1}");
    struct json_object *r = tdaemon_ok(fd, "hello", hello);
    struct json_object *v = NULL;
    ck_assert(json_object_object_get_ex(r, "max_frame", &v));
    ck_assert_int_eq(json_object_get_int64(v), 65536);
    ck_assert_str_eq(tstr(r, "server"), "toolscored/" TS_VERSION);
    json_object_put(r);
    json_object_put(hello);
    ck_assert_ptr_nonnull(
        strstr(tdaemon_err(fd, "frobnicate", NULL, "unknown_method"), "frobnicate"));
    json_object_put(tdaemon_ok(fd, "ping", NULL));
    close(fd);
}
END_TEST

START_TEST(pipelining_in_order)
{
    int fd = tdaemon_connect(tdaemon_fx.socket);

    for (unsigned long long i = 1; i <= 2000; i++)
        tdaemon_send(fd, i, i % 3 ? "ping" : "status", NULL);
    for (unsigned long long i = 1; i <= 2000; i++) {
        struct json_object *r = NULL, *id = NULL, *ok = NULL;

        ck_assert(tdaemon_read(fd, &r, 10000) == 0);
        json_object_object_get_ex(r, "id", &id);
        json_object_object_get_ex(r, "ok", &ok);
        ck_assert_int_eq((unsigned long long)json_object_get_int64(id), i);
        ck_assert(json_object_get_boolean(ok));
        json_object_put(r);
    }
    close(fd);
}
END_TEST

static long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One ping request frame of id i into buf (msgpack by hand). */
static size_t ping_frame(unsigned char *buf, uint32_t i)
{
    static const unsigned char tail[] = {0xa6, 'm', 'e',  't', 'h', 'o', 'd', 0xa4, 'p', 'i',
                                         'n',  'g', 0xa6, 'p', 'a', 'r', 'a', 'm',  's', 0x80};
    size_t n = 4;

    buf[n++] = 0x83;
    buf[n++] = 0xa2;
    buf[n++] = 'i';
    buf[n++] = 'd';
    buf[n++] = 0xce;
    buf[n++] = (unsigned char)(i >> 24);
    buf[n++] = (unsigned char)(i >> 16);
    buf[n++] = (unsigned char)(i >> 8);
    buf[n++] = (unsigned char)i;
    memcpy(buf + n, tail, sizeof(tail));
    n += sizeof(tail);
    buf[0] = buf[1] = 0;
    buf[2] = (unsigned char)((n - 4) >> 8);
    buf[3] = (unsigned char)(n - 4);
    return n;
}

/* The status member key of the bystander's status, as an integer. */
static int64_t status_int(const char *key)
{
    struct json_object *st = tdaemon_ok(tdaemon_fx_conn, "status", NULL);
    struct json_object *v = NULL;
    int64_t n;

    ck_assert_msg(json_object_object_get_ex(st, key, &v), "status has no %s", key);
    n = json_object_get_int64(v);
    json_object_put(st);
    return n;
}

/*
 * A client that writes requests and never reads a reply is paused: the
 * daemon stops reading it once about a megabyte of its replies is unread,
 * so its writes stall and the daemon holds little for it; once it reads,
 * every request is answered, in order, none refused.
 */
START_TEST(non_reader_is_paused)
{
    enum { MAX_PINGS = 400000 };
    int fd = tdaemon_connect(tdaemon_fx.socket);
    unsigned char frame[64];
    uint32_t sent = 0;
    uint32_t got = 0;
    long long deadline = now_ms() + UTIL_WAIT_MS;

    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    /* write until the writes stall with the daemon saying it paused us */
    while (sent < MAX_PINGS) {
        size_t len = ping_frame(frame, sent + 1);
        ssize_t n = send(fd, frame, len, MSG_NOSIGNAL);

        if (n == (ssize_t)len) {
            sent++;
            continue;
        }
        ck_assert_msg(n < 0 && errno == EAGAIN, "send: %s", strerror(errno));
        if (status_int("connections_paused") >= 1)
            break;
        ck_assert_msg(now_ms() < deadline, "not paused after %u unanswered pings and %d ms", sent,
                      UTIL_WAIT_MS);
        usleep(10000);
    }
    ck_assert_msg(sent < MAX_PINGS, "the daemon read %u unanswered pings", sent);
    ck_assert_int_ge(status_int("connections_paused"), 1);
    /* what it holds for the paused client: its unread replies, bounded */
    ck_assert_int_lt(status_int("memory_held"), 4 << 20);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    /* once it reads, every request is answered, in order */
    while (got < sent) {
        struct json_object *r = NULL, *id = NULL, *ok = NULL;

        ck_assert(tdaemon_read(fd, &r, 10000) == 0);
        json_object_object_get_ex(r, "id", &id);
        json_object_object_get_ex(r, "ok", &ok);
        ck_assert_int_eq((uint32_t)json_object_get_int64(id), got + 1);
        ck_assert(json_object_get_boolean(ok));
        json_object_put(r);
        got++;
    }
    json_object_put(tdaemon_ok(fd, "ping", NULL));
    close(fd);
    bystander_still_served();
}
END_TEST

static bool only_the_bystander(void *unused)
{
    (void)unused;
    return status_int("connections") == 1;
}

static bool reserved_all_taken(void *unused)
{
    (void)unused;
    return status_int("connections_reserved") == 8;
}

/* hello on a raw connection; true when it was answered ok */
static bool raw_hello(int fd)
{
    struct json_object *hello = tjson("{\"protocol\": 1}");
    struct json_object *r = NULL;
    bool ok;

    tdaemon_send(fd, 1, "hello", hello);
    json_object_put(hello);
    if (tdaemon_read(fd, &r, 5000) != 0)
        return false;
    ok = json_object_get_boolean(json_object_object_get(r, "ok"));
    json_object_put(r);
    return ok;
}

/*
 * 512 slots, one held by the bystander: the other 511 are taken and kept;
 * 8 more are kept for status and stop, served only those, and a newcomer
 * that finds them taken by idle connections takes the idlest one's place,
 * so status is always answered.
 */
START_TEST(connection_limit)
{
    struct rlimit rl = {4096, 4096};
    int general[511];
    int reserved[8];
    int closed = 0;
    int fd;
    struct json_object *r = NULL, *error = NULL, *params;

    setrlimit(RLIMIT_NOFILE, &rl);
    /* start from exactly one open connection (the bystander) */
    ck_assert_msg(util_wait_for(only_the_bystander, NULL, UTIL_WAIT_MS),
                  "connections of earlier tests still open after %d ms", UTIL_WAIT_MS);
    for (int i = 0; i < 511; i++) {
        general[i] = tdaemon_connect_raw(tdaemon_fx.socket);
        ck_assert(general[i] >= 0);
    }
    for (int i = 0; i < 8; i++) {
        reserved[i] = tdaemon_connect_raw(tdaemon_fx.socket);
        ck_assert(reserved[i] >= 0);
    }
    /* the daemon accepts them as its loop gets to them: status may be
     * read first */
    ck_assert_msg(util_wait_for(reserved_all_taken, NULL, UTIL_WAIT_MS),
                  "the 8 reserved slots were not all taken within %d ms", UTIL_WAIT_MS);
    ck_assert_int_eq(status_int("connections"), 520);
    /* a reserved slot serves status, not a store request */
    ck_assert(raw_hello(reserved[0]));
    tdaemon_send(reserved[0], 2, "status", NULL);
    ck_assert(tdaemon_read(reserved[0], &r, 5000) == 0);
    ck_assert(json_object_get_boolean(json_object_object_get(r, "ok")));
    json_object_put(r);
    params = tjson("{\"store\": \"/nonexistent\"}");
    tdaemon_send(reserved[0], 3, "list", params);
    json_object_put(params);
    ck_assert(tdaemon_read(reserved[0], &r, 5000) == 0);
    ck_assert(json_object_object_get_ex(r, "error", &error));
    ck_assert_str_eq(tstr(error, "code"), "limit");
    ck_assert_ptr_nonnull(strstr(tstr(error, "message"), "kept for status and stop"));
    json_object_put(r);
    /* every slot taken: a newcomer's status is answered, in the place of
     * the one that had its answers (its grace of 5 ms after its last one
     * past: TSD_EVICT_GRACE_MS), before those that never said hello */
    usleep(20000);
    fd = tdaemon_connect_raw(tdaemon_fx.socket);
    ck_assert(raw_hello(fd));
    tdaemon_send(fd, 2, "status", NULL);
    ck_assert(tdaemon_read(fd, &r, 5000) == 0);
    ck_assert(json_object_get_boolean(json_object_object_get(r, "ok")));
    json_object_put(r);
    ck_assert(tdaemon_closed(reserved[0], 5000));
    /* a reserved slot takes small frames only (hello, ping, status, stop):
     * one announcing 8 KiB is refused at its header */
    {
        unsigned char big[4 + 100] = {0, 0, 0x20, 0};

        memset(big + 4, 0xc0, 100);
        ck_assert_int_eq(tdaemon_send_raw(fd, big, sizeof(big)), 0);
        ck_assert(tdaemon_read(fd, &r, 5000) == 0);
        ck_assert(json_object_object_get_ex(r, "error", &error));
        ck_assert_str_eq(tstr(error, "code"), "limit");
        ck_assert_ptr_nonnull(strstr(tstr(error, "message"), "slot kept for status and stop"));
        json_object_put(r);
        ck_assert(tdaemon_closed(fd, 5000));
    }
    /* in a reserved slot hello is due within 500 ms (TSD_RESERVED_FRAME_MS):
     * the others, which never said it, are let go */
    for (int i = 1; i < 8; i++)
        closed += tdaemon_closed(reserved[i], 5000);
    ck_assert_int_eq(closed, 7);
    /* the general slots were never touched */
    for (int i = 0; i < 511; i++)
        ck_assert(!tdaemon_closed(general[i], 1));
    close(fd);
    for (int i = 0; i < 511; i++)
        close(general[i]);
    for (int i = 0; i < 8; i++)
        close(reserved[i]);
    ck_assert_msg(util_wait_for(only_the_bystander, NULL, UTIL_WAIT_MS),
                  "the closed connections still counted after %d ms", UTIL_WAIT_MS);
    bystander_still_served();
}
END_TEST

static Suite *wire_suite(void)
{
    Suite *s = suite_create("daemon_wire");
    static const char *const wire_args[] = {"--max-frame", "65536", NULL};
    TCase *tc = tdaemon_fixture_case("wire", true, wire_args, 60);

    tcase_add_test(tc, garbage_bytes);
    tcase_add_test(tc, http_request);
    tcase_add_test(tc, oversized_and_empty_frames);
    tcase_add_test(tc, truncated_frame_and_disconnect);
    tcase_add_test(tc, disconnect_mid_request);
    tcase_add_test(tc, wrong_types);
    tcase_add_test(tc, nesting_limit);
    tcase_add_test(tc, broken_actual);
    tcase_add_test(tc, params_before_method);
    tcase_add_test(tc, hello_rules);
    tcase_add_test(tc, pipelining_in_order);
    tcase_add_test(tc, non_reader_is_paused);
    tcase_add_test(tc, connection_limit);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return util_run_suite(wire_suite());
}
