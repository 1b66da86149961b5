/*
 * test_wire_cursor — reading msgpack in place (proto/ts_proto.h) and
 * decoding a map with one member kept as bytes (ts_wire_decode_prefix_raw,
 * ts_message_decode_request_raw). The full decoder (ts_wire_decode) is the
 * reference: the cursor must find the same extent for every value it
 * accepts, and a member kept as bytes must decode to the same value, with
 * the same errors, as when decoded in place.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "proto/ts_proto.h"
#include "util_test.h"

static void encode_text(const char *json, ts_buf *out)
{
    struct json_object *v = util_json_c_parse(json);
    ts_error err;

    ts_buf_init(out, TS_BUF_UNLIMITED);
    ck_assert_msg(ts_wire_encode(v, out, &err) == 0, "encode: %s", err.message);
    json_object_put(v);
}

/* A copy of exactly n bytes, so that ASan sees any read past them. */
static unsigned char *exact_copy(const void *data, size_t n)
{
    unsigned char *p = malloc(n + 1);

    ck_assert_ptr_nonnull(p);
    memcpy(p, data, n);
    return p;
}

START_TEST(cursor_reads_members_in_place)
{
    ts_buf b;
    ts_wire_cursor c;
    uint32_t n = 0;
    const char *s;
    size_t len;
    double d;
    bool flag;
    ts_error err;

    encode_text("{\"outcome\": \"PASSED\", \"score\": 0.75, \"n\": -70000, \"big\": 300, "
                "\"ok\": true, \"none\": null, \"list\": [1, [2, {\"x\": \"y\"}], \"z\"], "
                "\"h\\u00e9\": \"\\u00e9t\\u00e9\"}",
                &b);
    ts_wire_cursor_init(&c, b.data, b.len);
    ck_assert_int_eq(ts_wire_cursor_peek(&c), TS_WIRE_KIND_MAP);
    ck_assert_int_eq(ts_wire_cursor_map(&c, &n, &err), 0);
    ck_assert_uint_eq(n, 8);

    ck_assert_int_eq(ts_wire_cursor_str(&c, &s, &len, &err), 0);
    ck_assert_int_eq((int)len, 7);
    ck_assert(memcmp(s, "outcome", 7) == 0);
    ck_assert_int_eq(ts_wire_cursor_str(&c, &s, &len, &err), 0);
    ck_assert(len == 6 && memcmp(s, "PASSED", 6) == 0);

    ck_assert_int_eq(ts_wire_cursor_skip(&c, 0, &err), 0); /* "score" */
    ck_assert_int_eq(ts_wire_cursor_peek(&c), TS_WIRE_KIND_FLOAT);
    ck_assert_int_eq(ts_wire_cursor_number(&c, &d, &err), 0);
    ck_assert(d == 0.75);

    ck_assert_int_eq(ts_wire_cursor_skip(&c, 0, &err), 0);
    ck_assert_int_eq(ts_wire_cursor_number(&c, &d, &err), 0);
    ck_assert(d == -70000.0);
    ck_assert_int_eq(ts_wire_cursor_skip(&c, 0, &err), 0);
    ck_assert_int_eq(ts_wire_cursor_number(&c, &d, &err), 0);
    ck_assert(d == 300.0);

    ck_assert_int_eq(ts_wire_cursor_skip(&c, 0, &err), 0);
    ck_assert_int_eq(ts_wire_cursor_bool(&c, &flag, &err), 0);
    ck_assert(flag);
    ck_assert_int_eq(ts_wire_cursor_skip(&c, 0, &err), 0);
    ck_assert_int_eq(ts_wire_cursor_nil(&c, &err), 0);

    ck_assert_int_eq(ts_wire_cursor_skip(&c, 0, &err), 0); /* "list" */
    ck_assert_int_eq(ts_wire_cursor_skip(&c, 0, &err), 0); /* the whole list */
    ck_assert_int_eq(ts_wire_cursor_str(&c, &s, &len, &err), 0);
    ck_assert(len == 3 && memcmp(s, "h\xc3\xa9", 3) == 0);
    ck_assert_int_eq(ts_wire_cursor_skip(&c, 0, &err), 0);
    ck_assert_int_eq(ts_wire_cursor_peek(&c), TS_WIRE_KIND_END);
    ck_assert_uint_eq(ts_wire_cursor_offset(&c), b.len);
    ck_assert_uint_eq(ts_wire_cursor_left(&c), 0);
    ts_buf_free(&b);
}
END_TEST

/* Asking for the wrong type is bad_request naming both; the cursor stays. */
START_TEST(cursor_wrong_kind_names_it)
{
    ts_buf b;
    ts_wire_cursor c;
    uint32_t n;
    const char *s;
    size_t len;
    bool flag;
    double d;
    ts_error err;

    encode_text("[\"x\"]", &b);
    ts_wire_cursor_init(&c, b.data, b.len);
    ck_assert_int_eq(ts_wire_cursor_map(&c, &n, &err), -EINVAL);
    ck_assert_str_eq(err.code, "bad_request");
    ck_assert_str_eq(err.message, "expected a map at byte 0, got an array");
    ck_assert_int_eq(ts_wire_cursor_array(&c, &n, &err), 0);
    ck_assert_int_eq(ts_wire_cursor_number(&c, &d, &err), -EINVAL);
    ck_assert_int_eq(ts_wire_cursor_bool(&c, &flag, &err), -EINVAL);
    ck_assert_int_eq(ts_wire_cursor_nil(&c, &err), -EINVAL);
    ck_assert_int_eq(ts_wire_cursor_str(&c, &s, &len, &err), 0);
    /* nothing left: truncated, not a type error */
    ck_assert_int_eq(ts_wire_cursor_str(&c, &s, &len, &err), -EBADMSG);
    ck_assert_str_eq(err.code, "bad_frame");
    ts_buf_free(&b);
}
END_TEST

START_TEST(cursor_numbers_of_every_width)
{
    static const struct {
        const char *hex_bytes;
        size_t n;
        double want;
    } cases[] = {
        {"\x05", 1, 5},
        {"\xff", 1, -1},
        {"\xcc\xc8", 2, 200},
        {"\xcd\x01\x00", 3, 256},
        {"\xce\x00\x01\x00\x00", 5, 65536},
        {"\xcf\x00\x00\x00\x01\x00\x00\x00\x00", 9, 4294967296.0},
        {"\xd0\x80", 2, -128},
        {"\xd1\x80\x00", 3, -32768},
        {"\xd2\xff\xfe\x79\x60", 5, -100000},
        {"\xd3\xff\xff\xff\xff\xff\xff\xff\xfe", 9, -2},
        {"\xca\x3f\xc0\x00\x00", 5, 1.5},
        {"\xcb\x40\x09\x21\xfb\x54\x44\x2d\x18", 9, 3.141592653589793},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        unsigned char *p = exact_copy(cases[i].hex_bytes, cases[i].n);
        ts_wire_cursor c;
        ts_error err;
        double d = 0;

        ts_wire_cursor_init(&c, p, cases[i].n);
        ck_assert_msg(ts_wire_cursor_number(&c, &d, &err) == 0, "case %zu: %s", i, err.message);
        ck_assert_msg(d == cases[i].want, "case %zu: %g, want %g", i, d, cases[i].want);
        ck_assert_uint_eq(ts_wire_cursor_left(&c), 0);
        /* and every proper prefix is truncated */
        for (size_t n = 0; n < cases[i].n; n++) {
            ts_wire_cursor_init(&c, p, n);
            ck_assert_int_eq(ts_wire_cursor_number(&c, &d, &err), -EBADMSG);
            ck_assert_str_eq(err.code, "bad_frame");
        }
        free(p);
    }
}
END_TEST

/* Skip and the full decoder agree on the extent of every value the decoder
 * accepts, and skip refuses every proper prefix of it. */
START_TEST(cursor_skip_agrees_with_decoder)
{
    static const char *const values[] = {
        "null",
        "0",
        "-1",
        "18446744073709551615",
        "-9223372036854775808",
        "1.5e300",
        "\"\"",
        "\"a string that is longer than thirty-one bytes, to be a str8\"",
        "[]",
        "{}",
        "[[[[[[]]]]]]",
        "{\"a\": {\"b\": {\"c\": [1, 2, {\"d\": null}]}}, \"e\": true}",
        "[{\"tool\": \"search\", \"args\": {\"query\": \"x\", \"limit\": 3}}, "
        "{\"tool\": \"fetch\", \"args\": null}]",
    };
    ts_buf big;

    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]) + 1; i++) {
        ts_buf b;
        ts_wire_cursor c;
        ts_error err;

        if (i < sizeof(values) / sizeof(values[0])) {
            encode_text(values[i], &b);
        } else {
            /* a str32 and an array16 and a map16 */
            struct json_object *arr = json_object_new_array();
            struct json_object *map = json_object_new_object();
            char *s = malloc(70000);
            memset(s, 'q', 69999);
            s[69999] = '\0';
            for (int k = 0; k < 300; k++) {
                char key[16];
                snprintf(key, sizeof(key), "k%d", k);
                json_object_array_add(arr, json_object_new_int(k));
                json_object_object_add(map, key, json_object_new_int(-k));
            }
            json_object_array_add(arr, json_object_new_string(s));
            json_object_array_add(arr, map);
            ts_buf_init(&b, TS_BUF_UNLIMITED);
            ck_assert_int_eq(ts_wire_encode(arr, &b, &err), 0);
            json_object_put(arr);
            free(s);
        }
        /* the value, then trailing bytes that must be left alone */
        ts_buf_init(&big, TS_BUF_UNLIMITED);
        ck_assert_int_eq(ts_buf_append(&big, b.data, b.len), 0);
        ck_assert_int_eq(ts_buf_append(&big, "\xc0\xc3", 2), 0);
        ts_wire_cursor_init(&c, big.data, big.len);
        ck_assert_msg(ts_wire_cursor_skip(&c, 0, &err) == 0, "value %zu: %s", i, err.message);
        ck_assert_uint_eq(ts_wire_cursor_offset(&c), b.len);

        for (size_t n = 0; n < b.len; n += (b.len > 4096 ? 997 : 1)) {
            unsigned char *p = exact_copy(b.data, n);
            ts_wire_cursor_init(&c, p, n);
            ck_assert_msg(ts_wire_cursor_skip(&c, 0, &err) == -EBADMSG,
                          "value %zu: prefix of %zu bytes skipped", i, n);
            ck_assert_str_eq(err.code, "bad_frame");
            free(p);
        }
        ts_buf_free(&big);
        ts_buf_free(&b);
    }
}
END_TEST

START_TEST(cursor_skip_depth_and_bad_bytes)
{
    unsigned char deep[TS_WIRE_MAX_DEPTH + 2];
    ts_wire_cursor c;
    ts_error err;

    /* max_depth counts the value's own container */
    memset(deep, 0x91, sizeof(deep)); /* [[[...]]] */
    deep[sizeof(deep) - 1] = 0xc0;
    ts_wire_cursor_init(&c, deep, 4);
    deep[3] = 0xc0; /* [[[nil]]]: three levels */
    ck_assert_int_eq(ts_wire_cursor_skip(&c, 3, &err), 0);
    ts_wire_cursor_init(&c, deep, 4);
    ck_assert_int_eq(ts_wire_cursor_skip(&c, 2, &err), -E2BIG);
    ck_assert_str_eq(err.code, "limit");
    deep[3] = 0x91;
    ts_wire_cursor_init(&c, deep, sizeof(deep));
    ck_assert_int_eq(ts_wire_cursor_skip(&c, 0, &err), -E2BIG); /* 129 levels */
    ts_wire_cursor_init(&c, deep + 2, sizeof(deep) - 2);        /* 127 levels */
    ck_assert_int_eq(ts_wire_cursor_skip(&c, 0, &err), 0);

    /* 0xc1 is never valid, even where only the structure is looked at */
    ts_wire_cursor_init(&c, "\x92\x01\xc1", 3);
    ck_assert_int_eq(ts_wire_cursor_skip(&c, 0, &err), -EBADMSG);
    ck_assert_str_eq(err.message, "byte 0xc1 at byte 2 is never used in msgpack");
    /* a count past the bytes present fails at once */
    ts_wire_cursor_init(&c, "\xdd\xff\xff\xff\xff\x01", 6);
    ck_assert_int_eq(ts_wire_cursor_skip(&c, 0, &err), -EBADMSG);
    /* bin and ext are skipped whole (the decoder refuses them later) */
    ts_wire_cursor_init(&c,
                        "\x93\xc4\x02zz\xd6\x01"
                        "abcd\xc7\x01\x05q\xc0",
                        16);
    ck_assert_int_eq(ts_wire_cursor_skip(&c, 0, &err), 0);
    ck_assert_uint_eq(ts_wire_cursor_left(&c), 1);
    /* a str with invalid UTF-8 is refused when read */
    {
        const char *s;
        size_t len;
        ts_wire_cursor_init(&c, "\xa2\xc3\x28", 3);
        ck_assert_int_eq(ts_wire_cursor_str(&c, &s, &len, &err), -EINVAL);
        ck_assert_str_eq(err.code, "bad_request");
    }
}
END_TEST

/* Random bytes and mutations: whenever the full decoder accepts a value,
 * skip finds its extent; skip never reads outside the bytes (ASan). */
START_TEST(cursor_skip_garbage)
{
    ts_buf seed;
    unsigned rnd = 7;

    encode_text("{\"id\": 7, \"method\": \"check\", \"params\": {\"actual\": [{\"tool\": \"t\", "
                "\"args\": {\"q\": \"x\", \"n\": [1, 2.5, null]}}], \"name\": \"n\"}}",
                &seed);
    for (int round = 0; round < 20000; round++) {
        unsigned char buf[96];
        size_t n = seed.len;
        struct json_object *v = NULL;
        ts_wire_cursor c;
        size_t used = 0;
        ts_error err;
        unsigned char *p;
        int rc;

        memcpy(buf, seed.data, n);
        if (round % 2) {
            n = util_next_random(&rnd) % sizeof(buf);
            for (size_t i = 0; i < n; i++)
                buf[i] = (unsigned char)util_next_random(&rnd);
        } else {
            for (int i = 0; i < 3; i++)
                buf[util_next_random(&rnd) % n] = (unsigned char)util_next_random(&rnd);
        }
        p = exact_copy(buf, n);
        ts_wire_cursor_init(&c, p, n);
        rc = ts_wire_cursor_skip(&c, 0, &err);
        if (ts_wire_decode_prefix(p, n, 0, &v, &used, &err) == 0) {
            ck_assert_msg(rc == 0, "round %d: skip refused what decode took", round);
            ck_assert_uint_eq(ts_wire_cursor_offset(&c), used);
            json_object_put(v);
        }
        free(p);
    }
    ts_buf_free(&seed);
}
END_TEST

/* ---- a member kept as bytes ---------------------------------------- */

/*
 * Decode map bytes both ways: in full, and with raw_key kept aside then
 * decoded. Good bytes give the same value; broken bytes fail both ways, with
 * the same error unless the kept member was skipped over and a later member
 * failed first (two errors in one frame: either may be named).
 */
static void raw_agrees(const unsigned char *data, size_t len, const char *raw_key)
{
    struct json_object *full = NULL, *part = NULL, *member = NULL;
    ts_wire_raw_member raw = {.key = raw_key};
    ts_error e_full, e_part;
    size_t used_full = 0, used_part = 0;
    int rc_full = ts_wire_decode_prefix(data, len, 0, &full, &used_full, &e_full);
    int rc_part = ts_wire_decode_prefix_raw(data, len, 0, &raw, &part, &used_part, &e_part);
    bool later_member_failed = rc_part < 0 && raw.found;

    if (rc_part == 0 && raw.found) {
        rc_part = ts_wire_decode_member(data, &raw, 0, &member, &e_part);
        if (rc_part == 0)
            json_object_object_add(part, raw_key, member);
        else
            json_object_put(part);
    }
    if (rc_full < 0) {
        ck_assert_msg(rc_part < 0, "kept aside, broken bytes were accepted (%s)", e_full.message);
        if (!later_member_failed) {
            ck_assert_str_eq(e_part.code, e_full.code);
            ck_assert_str_eq(e_part.message, e_full.message);
        }
        return;
    }
    ck_assert_msg(rc_part == 0, "kept aside, good bytes were refused: %s", e_part.message);
    ck_assert_uint_eq(used_part, used_full);
    /* same members (the kept one comes last in part) */
    ck_assert_msg(json_object_equal(full, part), "%s != %s", json_object_to_json_string(full),
                  json_object_to_json_string(part));
    json_object_put(full);
    json_object_put(part);
}

START_TEST(raw_member_decodes_like_in_place)
{
    static const char *const maps[] = {
        "{\"store\": \"/s\", \"actual\": [{\"tool\": \"t\", \"args\": {\"q\": 1}}], \"x\": 2}",
        "{\"actual\": null}",
        "{\"actual\": {\"deep\": [[[[1]]]]}, \"after\": \"y\"}",
        "{\"other\": 1}",
        "{}",
        "[\"actual\", 1]",
    };
    ts_buf b;

    for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
        encode_text(maps[i], &b);
        raw_agrees((const unsigned char *)b.data, b.len, "actual");
        ts_buf_free(&b);
    }
}
END_TEST

START_TEST(raw_member_errors)
{
    ts_wire_raw_member raw = {.key = "actual"};
    struct json_object *v = NULL;
    size_t used;
    ts_error err;
    /* {"actual": "\xff" (invalid UTF-8), "b": 1}: structure fine, decoded later */
    static const unsigned char bad_utf8[] = "\x82\xa6"
                                            "actual"
                                            "\xa1\xff"
                                            "\xa1"
                                            "b"
                                            "\x01";
    /* {"actual": 1, "actual": 2} */
    static const unsigned char dup[] = "\x82\xa6"
                                       "actual"
                                       "\x01\xa6"
                                       "actual"
                                       "\x02";
    /* {"actual": [1, <0xc1>]} : broken structure, the full decoder's error */
    static const unsigned char broken[] = "\x81\xa6"
                                          "actual"
                                          "\x92\x01\xc1";

    ck_assert_int_eq(
        ts_wire_decode_prefix_raw(bad_utf8, sizeof(bad_utf8) - 1, 0, &raw, &v, &used, &err), 0);
    ck_assert(raw.found);
    ck_assert_int_eq(json_object_object_length(v), 1);
    json_object_put(v);
    ck_assert_int_eq(ts_wire_decode_member(bad_utf8, &raw, 0, &v, &err), -EINVAL);
    ck_assert_str_eq(err.code, "bad_request");
    ck_assert_str_eq(err.message, "str at byte 9 is not valid UTF-8");
    raw_agrees(bad_utf8, sizeof(bad_utf8) - 1, "actual");

    ck_assert_int_eq(ts_wire_decode_prefix_raw(dup, sizeof(dup) - 1, 0, &raw, &v, &used, &err),
                     -EINVAL);
    ck_assert_str_eq(err.message, "duplicate map key \"actual\" at byte 9");
    raw_agrees(dup, sizeof(dup) - 1, "actual");

    ck_assert_int_eq(
        ts_wire_decode_prefix_raw(broken, sizeof(broken) - 1, 0, &raw, &v, &used, &err), -EBADMSG);
    ck_assert(!raw.found);
    raw_agrees(broken, sizeof(broken) - 1, "actual");
}
END_TEST

/* Mutated params maps: kept aside or not, the same value or error. */
START_TEST(raw_member_garbage)
{
    ts_buf seed;
    unsigned rnd = 11;

    encode_text("{\"store\": \"/s\", \"actual\": [{\"tool\": \"t\", \"args\": {\"q\": \"x\", "
                "\"n\": [1, 2.5, null]}}], \"name\": \"n\", \"strict\": false}",
                &seed);
    for (int round = 0; round < 20000; round++) {
        unsigned char *p = exact_copy(seed.data, seed.len);
        for (int i = 0; i < 2; i++)
            p[util_next_random(&rnd) % seed.len] = (unsigned char)util_next_random(&rnd);
        raw_agrees(p, seed.len, "actual");
        free(p);
    }
    ts_buf_free(&seed);
}
END_TEST

/* The member the daemon leaves as bytes: check's observed calls. */
static const char *raw_actual(const char *method)
{
    return strcmp(method, "check") == 0 ? "actual" : NULL;
}

/* The request envelope: only params' member is kept; decoding it later puts
 * it back in params; other methods' frames decode as before. */
START_TEST(request_raw_member)
{
    struct json_object *params =
        util_json_c_parse("{\"store\": \"/s\", \"name\": \"n\", \"actual\": [{\"tool\": \"t\"}], "
                          "\"x\": {\"actual\": 1}}");
    ts_request req, plain;
    ts_error err;
    ts_buf frame;

    ts_buf_init(&frame, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_message_encode_request(&frame, 9, "check", params, 0, &err), 0);
    ck_assert_int_eq(ts_message_decode_request_raw(frame.data + TS_FRAME_HEADER_SIZE,
                                                   frame.len - TS_FRAME_HEADER_SIZE, raw_actual,
                                                   &req, &err),
                     0);
    ck_assert(req.raw.found);
    ck_assert(!json_object_object_get_ex(req.params, "actual", NULL));
    ck_assert(json_object_object_get_ex(req.params, "x", NULL)); /* nested: not kept */
    ck_assert_int_eq(ts_message_expand_raw(&req, req.params, &err), 0);
    ck_assert_int_eq(ts_message_decode_request(frame.data + TS_FRAME_HEADER_SIZE,
                                               frame.len - TS_FRAME_HEADER_SIZE, &plain, &err),
                     0);
    ck_assert(json_object_equal(req.params, plain.params));
    ck_assert(json_object_equal(plain.params, params));
    ts_request_free(&req);
    ts_request_free(&plain);

    /* another method: nothing is left as bytes */
    ts_buf_reset(&frame);
    ck_assert_int_eq(ts_message_encode_request(&frame, 10, "show", params, 0, &err), 0);
    ck_assert_int_eq(ts_message_decode_request_raw(frame.data + TS_FRAME_HEADER_SIZE,
                                                   frame.len - TS_FRAME_HEADER_SIZE, raw_actual,
                                                   &req, &err),
                     0);
    ck_assert(!req.raw.found);
    ck_assert(json_object_equal(req.params, params));
    ts_request_free(&req);
    ts_buf_free(&frame);

    /* params before the method: decoded whole, as a full decode gives them */
    {
        struct json_object *env = json_object_new_object();

        json_object_object_add(env, "params", json_object_get(params));
        json_object_object_add(env, "id", json_object_new_int(11));
        json_object_object_add(env, "method", json_object_new_string("check"));
        ts_buf_init(&frame, TS_BUF_UNLIMITED);
        ck_assert_int_eq(ts_wire_encode(env, &frame, &err), 0);
        ck_assert_int_eq(
            ts_message_decode_request_raw(frame.data, frame.len, raw_actual, &req, &err), 0);
        ck_assert(!req.raw.found);
        ck_assert_str_eq(req.method, "check");
        ck_assert(json_object_equal(req.params, params));
        ts_request_free(&req);
        ts_buf_free(&frame);
        json_object_put(env);
    }
    json_object_put(params);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("wire_cursor");
    TCase *cursor = tcase_create("cursor");
    TCase *raw = tcase_create("raw");

    tcase_add_test(cursor, cursor_reads_members_in_place);
    tcase_add_test(cursor, cursor_wrong_kind_names_it);
    tcase_add_test(cursor, cursor_numbers_of_every_width);
    tcase_add_test(cursor, cursor_skip_agrees_with_decoder);
    tcase_add_test(cursor, cursor_skip_depth_and_bad_bytes);
    tcase_add_test(cursor, cursor_skip_garbage);
    tcase_add_test(raw, raw_member_decodes_like_in_place);
    tcase_add_test(raw, raw_member_errors);
    tcase_add_test(raw, raw_member_garbage);
    tcase_add_test(raw, request_raw_member);
    suite_add_tcase(s, cursor);
    suite_add_tcase(s, raw);
    return util_run_suite(s);
}
