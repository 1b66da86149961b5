/*
 * test_daemon_contract — statements of docs/protocol.md a client written
 * from that page relies on, each shown over a real toolscored socket: what
 * happens after stop; the error codes of a broken snapshot file, of calls
 * versus formats, of approve with names and all, of the run methods; the
 * version_mismatch message for any 64-bit version; list cursors as
 * positions (a retried page is the same page); replies nested deeper than
 * requests; the order of a request map's keys; decode errors before
 * hello_required; the empty snapshot name; save writing a snapshot as
 * given, refusing what it could not read back, replacing the baseline.
 */
#include <check.h>
#include <msgpack.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/base/ts_base.h"
#include "proto/ts_proto.h"
#include "util_daemon.h"
#include "util_test.h"

#define CALLS "[{\"tool\": \"search\", \"args\": {\"q\": \"NYC\"}}]"

/* {"store": the daemon's store} plus the members of the JSON text extra. */
static struct json_object *store_params(const char *extra)
{
    struct json_object *p = extra != NULL ? tjson(extra) : json_object_new_object();

    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    return p;
}

static struct json_object *check_params(const char *name, const char *actual)
{
    struct json_object *p = store_params(NULL);

    json_object_object_add(p, "name", json_object_new_string(name));
    json_object_object_add(p, "actual", tjson(actual));
    return p;
}

/* Call and require ok; params are released. */
static struct json_object *ok_put(const char *method, struct json_object *params)
{
    struct json_object *r = tdaemon_ok(tdaemon_fx_conn, method, params);

    json_object_put(params);
    return r;
}

/* Call and require an error code; params are released; the message. */
static const char *err_put(const char *method, struct json_object *params, const char *code)
{
    const char *m = tdaemon_err(tdaemon_fx_conn, method, params, code);

    json_object_put(params);
    return m;
}

static void write_file(const char *path, const char *text)
{
    FILE *f;

    mkdir(tdaemon_fx.store, 0700);
    f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

static bool exists(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0;
}

/* A frame around raw msgpack bytes built by build. */
static void send_built(int fd, void (*build)(msgpack_packer *pk))
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    unsigned char header[TS_FRAME_HEADER_SIZE];

    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    build(&pk);
    ts_frame_put_header(header, (uint32_t)sb.size);
    ck_assert(tdaemon_send_raw(fd, header, sizeof(header)) == 0);
    ck_assert(tdaemon_send_raw(fd, sb.data, sb.size) == 0);
    msgpack_sbuffer_destroy(&sb);
}

static void key(msgpack_packer *pk, const char *k)
{
    msgpack_pack_str(pk, strlen(k));
    msgpack_pack_str_body(pk, k, strlen(k));
}

/* Read one reply: its error code ("" for ok) and whether its id is nil
 * (*id otherwise). */
static const char *read_reply(int fd, bool *id_nil, uint64_t *id)
{
    static char code[64];
    struct json_object *reply = NULL, *error = NULL, *idv = NULL;

    ck_assert_msg(tdaemon_read(fd, &reply, 10000) == 0, "no reply");
    json_object_object_get_ex(reply, "id", &idv);
    *id_nil = idv == NULL;
    *id = idv != NULL ? json_object_get_uint64(idv) : 0;
    code[0] = '\0';
    if (json_object_object_get_ex(reply, "error", &error) && error != NULL)
        snprintf(code, sizeof(code), "%s", tstr(error, "code"));
    json_object_put(reply);
    return code;
}

/* ---- stop ------------------------------------------------------------- */

/* After the stop reply nothing more is read: a request pipelined behind
 * stop and a request on another connection get no reply, each connection
 * ends, the socket goes and the daemon exits 0. */
START_TEST(stop_reads_nothing_after_it)
{
    tdaemon d;
    ts_buf frames;
    ts_error err;
    struct json_object *reply = NULL, *ok = NULL;
    int a, b;

    tdaemon_prepare(&d);
    tdaemon_start(&d, NULL);
    a = tdaemon_connect(d.socket);
    b = tdaemon_connect(d.socket);
    ts_buf_init(&frames, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_message_encode_request(&frames, 1, "stop", NULL, 0, &err), 0);
    ck_assert_int_eq(ts_message_encode_request(&frames, 2, "ping", NULL, 0, &err), 0);
    ck_assert_int_eq(tdaemon_send_raw(a, frames.data, frames.len), 0); /* one write */
    ts_buf_free(&frames);
    ck_assert_int_eq(tdaemon_read(a, &reply, 10000), 0);
    ck_assert(json_object_object_get_ex(reply, "ok", &ok) && json_object_get_boolean(ok));
    json_object_put(reply);
    reply = NULL;
    ck_assert_int_eq(tdaemon_read(a, &reply, 10000), -EPIPE); /* the ping: never answered */
    ck_assert(tdaemon_closed(b, 10000));
    ck_assert_int_eq(tdaemon_wait(&d, 10000), 0);
    ck_assert(!exists(d.socket));
    ck_assert_int_lt(tdaemon_connect_raw(d.socket), 0);
    close(a);
    close(b);
    tdaemon_cleanup(&d);
}
END_TEST

/* ---- snapshot files that are no snapshot ------------------------------ */

START_TEST(not_json_is_invalid_snapshot)
{
    const char *path = tdaemon_snapshot_path(tdaemon_fx.store, "bad");
    struct json_object *p;
    char deep[1024];
    size_t n = 0;

    write_file(path, "{\"name\": \"bad\", \"calls\": [\n  oops\n]}\n");
    p = store_params("{\"name\": \"bad\"}");
    ck_assert_ptr_nonnull(strstr(err_put("show", p, "invalid_snapshot"), "line 2, column 3"));
    ck_assert_ptr_nonnull(
        strstr(err_put("check", check_params("bad", CALLS), "invalid_snapshot"), "bad-"));
    /* nested deeper than a file may be (129 levels) */
    n += (size_t)snprintf(deep, sizeof(deep), "{\"name\": \"bad\", \"calls\": [");
    for (int i = 0; i < 127; i++)
        deep[n++] = '[';
    for (int i = 0; i < 127; i++)
        deep[n++] = ']';
    snprintf(deep + n, sizeof(deep) - n, "]}");
    write_file(path, deep);
    ck_assert_ptr_nonnull(
        strstr(err_put("show", store_params("{\"name\": \"bad\"}"), "invalid_snapshot"),
               "nesting deeper than 128 levels"));
    json_object_put(ok_put("ping", NULL)); /* and the connection serves on */
}
END_TEST

/* ---- replies deeper than requests ------------------------------------- */

/* A snapshot file of exactly 128 levels: the object (1), calls (2), a call
 * (3), its args (4) and 124 arrays inside. */
static void write_deepest(const char *name, bool approved)
{
    char text[2048];
    size_t n = 0;

    n += (size_t)snprintf(text, sizeof(text),
                          "{\"schema_version\": 1, \"name\": \"%s\", \"created_at\": "
                          "\"2025-06-01T12:00:00.000001+00:00\", \"updated_at\": "
                          "\"2025-06-01T12:00:00.000001+00:00\", \"toolscore_version\": \"1.8.1\", "
                          "\"approved\": %s, \"source\": \"pytest\", \"calls\": [{\"tool\": \"t\", "
                          "\"args\": {\"x\": ",
                          name, approved ? "true" : "false");
    for (int i = 0; i < 124; i++)
        text[n++] = '[';
    for (int i = 0; i < 124; i++)
        text[n++] = ']';
    snprintf(text + n, sizeof(text) - n, "}}]}\n");
    write_file(tdaemon_snapshot_path(tdaemon_fx.store, name), text);
}

static int depth_of(const struct json_object *v)
{
    int most = 0;

    if (json_object_is_type(v, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(v); i++) {
            int d = depth_of(json_object_array_get_idx(v, i));
            most = d > most ? d : most;
        }
        return most + 1;
    }
    if (json_object_is_type(v, json_type_object)) {
        json_object_object_foreach((struct json_object *)v, k, child)
        {
            int d = depth_of(child);
            (void)k;
            most = d > most ? d : most;
        }
        return most + 1;
    }
    return 0;
}

START_TEST(deepest_snapshot_shows_and_reviews)
{
    struct json_object *r, *snap = NULL, *items = NULL;

    write_deepest("deep", false);
    r = ok_put("show", store_params("{\"name\": \"deep\"}"));
    ck_assert(json_object_object_get_ex(r, "snapshot", &snap));
    ck_assert_int_eq(depth_of(snap), 128); /* 130 levels in the reply */
    json_object_put(r);
    r = ok_put("review", store_params(NULL));
    ck_assert(json_object_object_get_ex(r, "items", &items));
    ck_assert_int_eq(json_object_array_length(items), 1);
    ck_assert_str_eq(tstr(json_object_array_get_idx(items, 0), "kind"), "pending");
    json_object_put(r);
    /* approved, it is a baseline a check replays and reports on */
    write_deepest("deep", true);
    r = ok_put("check", check_params("deep", CALLS));
    ck_assert_str_eq(tstr(r, "outcome"), "FAILED");
    ck_assert_ptr_nonnull(strstr(tstr(r, "report"), "Expected vs Actual"));
    json_object_put(r);
}
END_TEST

/* ---- invalid_calls and format ----------------------------------------- */

START_TEST(invalid_calls_versus_format)
{
    static const struct {
        const char *actual, *format, *code;
    } cases[] = {
        /* the value's shape is not one the format reads: format */
        {"{\"foo\": 1}", NULL, "format"},
        {"\"text\"", NULL, "format"},
        {"[1, 2]", NULL, "format"},
        {"[{\"tool\": \"a\"}, 5]", NULL, "format"},
        {"[{\"tool\": \"a\"}, {\"name\": \"b\"}]", NULL, "format"},
        {"{\"tool\": \"a\"}", "calls", "format"},
        {"[{\"tool\": \"a\"}]", "openai", "format"},
        {"[{\"tool\": \"a\"}]", "bogus", "format"},
        {"[{\"tool\": \"a\"}]", "langchain", "format"}, /* check: trace files only */
        /* the calls are there but not valid calls: invalid_calls */
        {"[{\"tool\": 5}]", NULL, "invalid_calls"},
        {"[{\"tool\": \"\"}]", NULL, "invalid_calls"},
        {"[{\"tool\": \"a\\u0000b\"}]", NULL, "invalid_calls"},
        {"[{\"tool\": \"a\", \"args\": \"x\"}]", NULL, "invalid_calls"},
        {"[{\"tool\": \"a\", \"args\": [1]}]", "calls", "invalid_calls"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct json_object *p = check_params("c", cases[i].actual);
        struct json_object *r;

        if (cases[i].format != NULL)
            json_object_object_add(p, "format", json_object_new_string(cases[i].format));
        err_put("check", p, cases[i].code);
        if (cases[i].format != NULL && strcmp(cases[i].format, "langchain") == 0)
            continue; /* record reads a trace, where langchain is a format */
        p = store_params(NULL);
        json_object_object_add(p, "name", json_object_new_string("r"));
        json_object_object_add(p, "calls", tjson(cases[i].actual));
        if (cases[i].format != NULL)
            json_object_object_add(p, "format", json_object_new_string(cases[i].format));
        err_put("record", p, cases[i].code);
        r = ok_put("list", store_params(NULL));
        ck_assert_int_eq(json_object_get_int(json_object_object_get(r, "total")), 0);
        json_object_put(r);
    }
}
END_TEST

/* ---- approve ---------------------------------------------------------- */

START_TEST(approve_names_or_all)
{
    struct json_object *r;

    json_object_put(ok_put("check", check_params("a", CALLS)));
    ck_assert_ptr_nonnull(strstr(
        err_put("approve", store_params("{\"names\": [\"a\"], \"all\": true}"), "invalid_argument"),
        "not both"));
    ck_assert_ptr_nonnull(strstr(
        err_put("approve", store_params("{\"names\": [], \"all\": true}"), "invalid_argument"),
        "not both"));
    err_put("approve", store_params("{\"all\": false}"), "invalid_argument");
    err_put("approve", store_params("{\"names\": [\"a\", \"nope\"]}"), "not_found");
    /* nothing was approved by any of them */
    r = ok_put("show", store_params("{\"name\": \"a\"}"));
    ck_assert(!json_object_get_boolean(
        json_object_object_get(json_object_object_get(r, "snapshot"), "approved")));
    json_object_put(r);
    r = ok_put("approve", store_params("{\"names\": []}"));
    ck_assert_int_eq(json_object_array_length(json_object_object_get(r, "approved")), 0);
    json_object_put(r);
    r = ok_put("approve", store_params("{\"names\": [\"a\"], \"all\": false}"));
    ck_assert_int_eq(json_object_array_length(json_object_object_get(r, "approved")), 1);
    json_object_put(r);
}
END_TEST

/* ---- the run methods' errors ------------------------------------------ */

static struct json_object *run_params(const char *run)
{
    struct json_object *p = json_object_new_object();

    json_object_object_add(p, "run", json_object_new_string(run));
    return p;
}

START_TEST(run_method_errors)
{
    struct json_object *r, *p;
    char run[128], other[600];

    err_put("run.join", run_params("nope"), "not_found");
    err_put("run.close", run_params("nope"), "not_found");
    err_put("run.summary", run_params("nope"), "not_found");
    p = store_params(NULL);
    json_object_object_add(p, "run", json_object_new_string("nope"));
    err_put("orphans", p, "not_found");
    p = store_params(NULL);
    json_object_object_add(p, "run", json_object_new_string("nope"));
    err_put("review", p, "not_found");
    p = check_params("x", CALLS);
    json_object_object_add(p, "run", json_object_new_string("nope"));
    err_put("check", p, "not_found");
    p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string("relative/dir"));
    err_put("run.open", p, "invalid_argument");
    err_put("run.join", json_object_new_object(), "invalid_argument"); /* run missing */

    r = ok_put("run.open", store_params(NULL));
    snprintf(run, sizeof(run), "%s", tstr(r, "run"));
    json_object_put(r);
    p = store_params(NULL);
    json_object_object_add(p, "run", json_object_new_string(run));
    ck_assert_ptr_nonnull(strstr(err_put("orphans", p, "invalid_argument"), "still open"));
    json_object_put(ok_put("run.close", run_params(run)));
    json_object_put(ok_put("run.close", run_params(run))); /* closing twice is allowed */
    ck_assert_ptr_nonnull(
        strstr(err_put("run.join", run_params(run), "invalid_argument"), "closed"));
    snprintf(other, sizeof(other), "%s-other", tdaemon_fx.store);
    p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string(other));
    json_object_object_add(p, "run", json_object_new_string(run));
    ck_assert_ptr_nonnull(strstr(err_put("orphans", p, "invalid_argument"), "belongs to"));
    json_object_put(ok_put("run.summary", run_params(run)));

    /* 256 open runs at most; closed ones make room */
    for (int i = 0; i < 256; i++)
        json_object_put(ok_put("run.open", store_params(NULL)));
    err_put("run.open", store_params(NULL), "limit");
}
END_TEST

/* ---- hello ------------------------------------------------------------ */

START_TEST(version_mismatch_message_any_version)
{
    static const char *const versions[] = {"18446744073709551615",
                                           "9223372036854775808",
                                           "9223372036854775807",
                                           "-9223372036854775808",
                                           "0",
                                           "2"};

    for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
        char text[128], want[128];
        int fd = tdaemon_connect_raw(tdaemon_fx.socket);
        struct json_object *hello;

        ck_assert(fd >= 0);
        snprintf(text, sizeof(text), "{\"protocol\": %s}", versions[i]);
        snprintf(want, sizeof(want), "client speaks protocol %s, server speaks protocol 1",
                 versions[i]);
        hello = tjson(text);
        ck_assert_str_eq(tdaemon_err(fd, "hello", hello, "version_mismatch"), want);
        json_object_put(hello);
        ck_assert(tdaemon_closed(fd, 5000));
        close(fd);
    }
}
END_TEST

/* ---- the request map -------------------------------------------------- */

static void bin_params_then_id(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 3);
    key(pk, "method");
    key(pk, "ping");
    key(pk, "params");
    msgpack_pack_map(pk, 1);
    key(pk, "blob");
    msgpack_pack_bin(pk, 3);
    msgpack_pack_bin_body(pk, "abc", 3);
    key(pk, "id");
    msgpack_pack_uint64(pk, 7);
}

static void id_then_bin_params(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 3);
    key(pk, "id");
    msgpack_pack_uint64(pk, 7);
    key(pk, "method");
    key(pk, "ping");
    key(pk, "params");
    msgpack_pack_map(pk, 1);
    key(pk, "blob");
    msgpack_pack_bin(pk, 3);
    msgpack_pack_bin_body(pk, "abc", 3);
}

static void unknown_key_then_id(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 3);
    key(pk, "extra");
    msgpack_pack_true(pk);
    key(pk, "id");
    msgpack_pack_uint64(pk, 8);
    key(pk, "method");
    key(pk, "ping");
}

static void id_then_unknown_key(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 3);
    key(pk, "id");
    msgpack_pack_uint64(pk, 8);
    key(pk, "method");
    key(pk, "ping");
    key(pk, "extra");
    msgpack_pack_true(pk);
}

static void id_last(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 3);
    key(pk, "params");
    msgpack_pack_map(pk, 0);
    key(pk, "method");
    key(pk, "ping");
    key(pk, "id");
    msgpack_pack_uint64(pk, 9);
}

/* Keys in any order are accepted; a refused request is answered with its
 * id only when the id came before the refused part. */
START_TEST(request_key_order)
{
    static struct {
        void (*build)(msgpack_packer *pk);
        const char *code;
        bool id_nil;
    } cases[] = {
        {id_last, "", false},
        {id_then_bin_params, "bad_request", false},
        {id_then_unknown_key, "bad_request", false},
        {bin_params_then_id, "bad_request", true},
        {unknown_key_then_id, "bad_request", true},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int fd = tdaemon_connect(tdaemon_fx.socket);
        bool id_nil = false;
        uint64_t id = 0;

        send_built(fd, cases[i].build);
        ck_assert_str_eq(read_reply(fd, &id_nil, &id), cases[i].code);
        ck_assert_msg(id_nil == cases[i].id_nil, "case %zu: id nil %d", i, id_nil);
        if (id_nil) {
            ck_assert(tdaemon_closed(fd, 5000)); /* a connection-level error */
        } else {
            ck_assert(id >= 7 && id <= 9);
            json_object_put(tdaemon_ok(fd, "ping", NULL)); /* the connection stays */
        }
        close(fd);
    }
}
END_TEST

/* Before hello: a request that does not decode gets its decode error; one
 * that decodes gets hello_required, whatever its method or params. */
START_TEST(decode_errors_before_hello_required)
{
    int fd = tdaemon_connect_raw(tdaemon_fx.socket);
    struct json_object *p;
    bool id_nil = false;
    uint64_t id = 0;

    ck_assert(fd >= 0);
    send_built(fd, id_then_bin_params);
    ck_assert_str_eq(read_reply(fd, &id_nil, &id), "bad_request");
    ck_assert(!id_nil && id == 7);
    tdaemon_err(fd, "nosuch", NULL, "hello_required");
    p = tjson("{\"store\": 5}");
    tdaemon_err(fd, "check", p, "hello_required");
    json_object_put(p);
    p = tjson("{\"protocol\": 1}");
    json_object_put(tdaemon_ok(fd, "hello", p));
    json_object_put(tdaemon_ok(fd, "hello", p)); /* hello again: the same answer */
    json_object_put(p);
    json_object_put(tdaemon_ok(fd, "ping", NULL));
    send_built(fd, unknown_key_then_id);
    ck_assert_str_eq(read_reply(fd, &id_nil, &id), "bad_request");
    ck_assert(id_nil);
    ck_assert(tdaemon_closed(fd, 5000));
    close(fd);
}
END_TEST

/* ---- list cursors ----------------------------------------------------- */

START_TEST(list_cursor_is_a_position)
{
    struct json_object *r, *p;
    char first[128], second[128], bad[160];

    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof(name), "n%d", i);
        json_object_put(ok_put("check", check_params(name, CALLS)));
    }
    r = ok_put("list", store_params("{\"limit\": 2}"));
    snprintf(first, sizeof(first), "%s", tstr(r, "next"));
    json_object_put(r);
    /* the same cursor twice, with other limits: the page starts at n2 both times */
    for (int limit = 1; limit <= 2; limit++) {
        p = store_params(NULL);
        json_object_object_add(p, "cursor", json_object_new_string(first));
        json_object_object_add(p, "limit", json_object_new_int(limit));
        r = ok_put("list", p);
        ck_assert_str_eq(
            tstr(json_object_array_get_idx(json_object_object_get(r, "snapshots"), 0), "name"),
            "n2");
        ck_assert_int_eq(json_object_array_length(json_object_object_get(r, "snapshots")), limit);
        ck_assert_int_eq(json_object_get_int(json_object_object_get(r, "total")), 5);
        snprintf(second, sizeof(second), "%s", tstr(r, "next"));
        json_object_put(r);
    }
    /* without a limit, the rest; then that page again */
    for (int retry = 0; retry < 2; retry++) {
        p = store_params(NULL);
        json_object_object_add(p, "cursor", json_object_new_string(second));
        r = ok_put("list", p);
        ck_assert_int_eq(json_object_array_length(json_object_object_get(r, "snapshots")), 1);
        ck_assert(json_object_object_get(r, "next") == NULL);
        json_object_put(r);
    }
    /* a position past the end names no page */
    snprintf(bad, sizeof(bad), "%.*s-99", (int)(strrchr(first, '-') - first), first);
    p = store_params(NULL);
    json_object_object_add(p, "cursor", json_object_new_string(bad));
    ck_assert_ptr_nonnull(strstr(err_put("list", p, "invalid_argument"), "unknown or expired"));
}
END_TEST

/* ---- the empty name --------------------------------------------------- */

START_TEST(empty_name_end_to_end)
{
    struct json_object *r, *items;

    r = ok_put("check", check_params("", CALLS));
    ck_assert_str_eq(tstr(r, "outcome"), "CREATED");
    ck_assert_ptr_nonnull(strstr(tstr(r, "file"), "/snapshot-da39a3ee.json"));
    {
        char want[PATH_MAX + 100];

        snprintf(want, sizeof(want),
                 "snapshot '' created: %s - review it, then approve with `tsctl approve ''`",
                 tstr(r, "file"));
        ck_assert_str_eq(tstr(r, "message"), want);
    }
    json_object_put(r);
    ck_assert(exists(tdaemon_snapshot_path(tdaemon_fx.store, "")));
    r = ok_put("list", store_params(NULL));
    items = json_object_object_get(r, "snapshots");
    ck_assert_int_eq(json_object_array_length(items), 1);
    ck_assert_str_eq(tstr(json_object_array_get_idx(items, 0), "name"), "");
    ck_assert_int_eq(json_object_array_length(json_object_object_get(r, "problems")), 0);
    json_object_put(r);
    json_object_put(ok_put("approve", store_params("{\"names\": [\"\"]}")));
    r = ok_put("check", check_params("", CALLS));
    ck_assert_str_eq(tstr(r, "outcome"), "PASSED");
    json_object_put(r);
    r = ok_put("show", store_params("{\"name\": \"\"}"));
    ck_assert_str_eq(tstr(json_object_object_get(r, "snapshot"), "name"), "");
    json_object_put(r);
    r = ok_put("record", store_params("{\"name\": \"\", \"calls\": [], \"update\": true}"));
    ck_assert_str_eq(tstr(r, "outcome"), "UPDATED");
    json_object_put(r);
    json_object_put(ok_put("rm", store_params("{\"name\": \"\"}")));
    ck_assert(!exists(tdaemon_snapshot_path(tdaemon_fx.store, "")));
}
END_TEST

/* ---- save: a snapshot written as given ------------------------------- */

/* The store lists total snapshots. */
static void r_list_total(int total)
{
    struct json_object *r = ok_put("list", store_params(NULL));

    ck_assert_int_eq(json_object_get_int(json_object_object_get(r, "total")), total);
    json_object_put(r);
}

/* {"store", "snapshot": the JSON text snap} */
static struct json_object *save_params(const char *snap)
{
    struct json_object *p = store_params(NULL);

    json_object_object_add(p, "snapshot", tjson(snap));
    return p;
}

START_TEST(save_writes_as_given)
{
    static const char given[] =
        "{\"schema_version\": 1, \"name\": \"flows/é b\", \"created_at\": "
        "\"2020-01-01T00:00:00+00:00\", \"updated_at\": \"2020-01-02T00:00:00.5+00:00\", "
        "\"toolscore_version\": \"1.10.0\", \"approved\": true, \"source\": \"record\", "
        "\"calls\": [{\"tool\": \"search\", \"args\": {\"q\": \"NYC\", \"n\": 1.0}}, "
        "{\"tool\": \"any\", \"args\": null}], \"extra\": 1}";
    static const char want[] = "{\n"
                               "  \"schema_version\": 1,\n"
                               "  \"name\": \"flows/é b\",\n"
                               "  \"created_at\": \"2020-01-01T00:00:00+00:00\",\n"
                               "  \"updated_at\": \"2020-01-02T00:00:00.5+00:00\",\n"
                               "  \"toolscore_version\": \"1.10.0\",\n"
                               "  \"approved\": true,\n"
                               "  \"source\": \"record\",\n"
                               "  \"calls\": [\n"
                               "    {\n"
                               "      \"tool\": \"search\",\n"
                               "      \"args\": {\n"
                               "        \"q\": \"NYC\",\n"
                               "        \"n\": 1.0\n"
                               "      }\n"
                               "    },\n"
                               "    {\n"
                               "      \"tool\": \"any\",\n"
                               "      \"args\": null\n"
                               "    }\n"
                               "  ]\n"
                               "}\n";
    const char *path = tdaemon_snapshot_path(tdaemon_fx.store, "flows/é b");
    struct json_object *r;
    char *text;

    r = ok_put("save", save_params(given));
    ck_assert_str_eq(tstr(r, "name"), "flows/é b");
    ck_assert_str_eq(tstr(r, "file"), path);
    json_object_put(r);
    text = tdaemon_slurp(path);
    ck_assert_str_eq(text, want); /* every member as given; unknown ones dropped */
    free(text);
    /* defaults for what is left out, as a file read with them missing */
    r = ok_put("save", save_params("{\"name\": \"d\", \"calls\": []}"));
    json_object_put(r);
    r = ok_put("show", store_params("{\"name\": \"d\"}"));
    ck_assert_str_eq(tstr(json_object_object_get(r, "snapshot"), "source"), "pytest");
    ck_assert(!json_object_get_boolean(
        json_object_object_get(json_object_object_get(r, "snapshot"), "approved")));
    json_object_put(r);
    /* the empty name is a name */
    json_object_put(ok_put("save", save_params("{\"name\": \"\", \"calls\": []}")));
    ck_assert(exists(tdaemon_snapshot_path(tdaemon_fx.store, "")));
}
END_TEST

/* What the daemon could not read back is refused, and a refused save
 * leaves the file there as it was. */
START_TEST(save_refuses_what_it_cannot_read)
{
    static const struct {
        const char *snapshot, *code;
    } cases[] = {
        {"[1]", "invalid_argument"},
        {"{\"calls\": []}", "invalid_argument"},
        {"{\"name\": 5, \"calls\": []}", "invalid_argument"},
        {"{\"name\": \"a\\u0000b\", \"calls\": []}", "invalid_argument"},
        {"{\"name\": \"g\"}", "invalid_snapshot"},
        {"{\"name\": \"g\", \"calls\": {}}", "invalid_snapshot"},
        {"{\"name\": \"g\", \"calls\": [{\"args\": {}}]}", "invalid_snapshot"},
        {"{\"name\": \"g\", \"calls\": [{\"tool\": \"t\", \"args\": [1]}]}", "invalid_snapshot"},
        {"{\"name\": \"g\", \"calls\": [], \"approved\": \"yes\"}", "invalid_snapshot"},
        {"{\"name\": \"g\", \"calls\": [], \"schema_version\": 2}", "invalid_snapshot"},
        {"{\"name\": \"g\", \"calls\": [], \"created_at\": 5}", "invalid_snapshot"},
        {"{\"name\": \"g\", \"calls\": [], \"source\": null}", "invalid_snapshot"},
    };
    const char *path = tdaemon_snapshot_path(tdaemon_fx.store, "g");
    const char *m;
    char *before, *after;

    json_object_put(ok_put("save", save_params("{\"name\": \"g\", \"approved\": true, "
                                               "\"calls\": [{\"tool\": \"t\", \"args\": {}}]}")));
    before = tdaemon_slurp(path);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        m = err_put("save", save_params(cases[i].snapshot), cases[i].code);
        ck_assert_msg(m[0] != '\0', "%s", cases[i].snapshot);
        if (strcmp(cases[i].code, "invalid_snapshot") == 0)
            ck_assert_msg(strncmp(m, "snapshot 'g'", 12) == 0, "%s", m);
    }
    err_put("save", store_params(NULL), "invalid_argument");
    err_put("save", store_params("{\"snapshot\": \"x\"}"), "invalid_argument");
    /* a name over 4096 bytes; one whose file name would pass 255 bytes */
    for (size_t i = 0; i < 2; i++) {
        struct json_object *snap = tjson("{\"calls\": []}");
        struct json_object *p = store_params(NULL);
        char name[4200] = "";

        for (size_t n = 0; n < (i == 0 ? 4097u : 100u); n++)
            strcat(name, i == 0 ? "x" : "\xf0\x9f\x98\x80");
        json_object_object_add(snap, "name", json_object_new_string(name));
        json_object_object_add(p, "snapshot", snap);
        m = err_put("save", p, i == 0 ? "too_large" : "invalid_argument");
        ck_assert_msg(strstr(m, i == 0 ? "4096" : "255") != NULL, "%s", m);
    }
    after = tdaemon_slurp(path);
    ck_assert_str_eq(after, before);
    free(before);
    free(after);
    r_list_total(1);
}
END_TEST

/* A save replaces the baseline: the next check compares with it (never a
 * cached older one), and a kept observation of the old one is dropped. */
START_TEST(save_replaces_the_baseline)
{
    static const char a[] = "[{\"tool\": \"a\", \"args\": {}}]";
    static const char b[] = "[{\"tool\": \"b\", \"args\": {}}]";
    struct json_object *r;

    json_object_put(ok_put("save", save_params("{\"name\": \"s\", \"approved\": true, \"calls\": "
                                               "[{\"tool\": \"a\", \"args\": {}}]}")));
    ck_assert_str_eq(tdaemon_fx_outcome("s", a, NULL), "PASSED");
    ck_assert_str_eq(tdaemon_fx_outcome("s", b, NULL), "FAILED");
    r = ok_put("review", store_params(NULL));
    ck_assert_int_eq(json_object_array_length(json_object_object_get(r, "items")), 1);
    json_object_put(r);
    json_object_put(ok_put("save", save_params("{\"name\": \"s\", \"approved\": true, \"calls\": "
                                               "[{\"tool\": \"b\", \"args\": {}}]}")));
    r = ok_put("review", store_params(NULL));
    ck_assert_int_eq(json_object_array_length(json_object_object_get(r, "items")), 0);
    json_object_put(r);
    ck_assert_str_eq(tdaemon_fx_outcome("s", b, NULL), "PASSED");
    ck_assert_str_eq(tdaemon_fx_outcome("s", a, NULL), "FAILED");
    /* saved pending: the state machine sees a pending snapshot */
    json_object_put(
        ok_put("save", save_params("{\"name\": \"s\", \"approved\": false, \"calls\": []}")));
    ck_assert_str_eq(tdaemon_fx_outcome("s", a, NULL), "PENDING");
}
END_TEST

static Suite *contract_suite(void)
{
    Suite *s = suite_create("daemon_contract");
    TCase *tc = tdaemon_fixture_case("contract", true, NULL, 60);

    tcase_add_test(tc, stop_reads_nothing_after_it);
    tcase_add_test(tc, not_json_is_invalid_snapshot);
    tcase_add_test(tc, deepest_snapshot_shows_and_reviews);
    tcase_add_test(tc, invalid_calls_versus_format);
    tcase_add_test(tc, approve_names_or_all);
    tcase_add_test(tc, run_method_errors);
    tcase_add_test(tc, version_mismatch_message_any_version);
    tcase_add_test(tc, request_key_order);
    tcase_add_test(tc, decode_errors_before_hello_required);
    tcase_add_test(tc, list_cursor_is_a_position);
    tcase_add_test(tc, empty_name_end_to_end);
    tcase_add_test(tc, save_writes_as_given);
    tcase_add_test(tc, save_refuses_what_it_cannot_read);
    tcase_add_test(tc, save_replaces_the_baseline);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return util_run_suite(contract_suite());
}
