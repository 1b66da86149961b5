/*
 * test_proto — the wire format shared by daemon and client: frames (ts_frame),
 * values (ts_wire), messages (ts_message) and paths (ts_paths).
 */
#include <check.h>
#include <msgpack.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "proto/ts_proto.h"
#include "util_test.h"

/* ---- helpers -------------------------------------------------------- */

static struct json_object *decode_ok(const void *data, size_t len)
{
    struct json_object *v = NULL;
    ts_error err;
    int rc = ts_wire_decode(data, len, 0, &v, &err);

    ck_assert_msg(rc == 0, "decode failed: %s: %s", err.code, err.message);
    return v;
}

/* Decode must fail with the given code. */
static void decode_fails(const void *data, size_t len, const char *code)
{
    struct json_object *v = (struct json_object *)0x1;
    ts_error err;
    int rc;

    ts_error_clear(&err);
    rc = ts_wire_decode(data, len, 0, &v, &err);
    ck_assert_int_lt(rc, 0);
    ck_assert_str_eq(err.code, code);
    ck_assert_msg(err.message[0] != '\0', "error without a message");
    ck_assert_ptr_eq(v, (struct json_object *)0x1); /* untouched */
}

static void encode_ok(const struct json_object *v, ts_buf *out)
{
    ts_error err;
    int rc;

    ts_buf_init(out, TS_BUF_UNLIMITED);
    rc = ts_wire_encode(v, out, &err);
    ck_assert_msg(rc == 0, "encode failed: %s: %s", err.code, err.message);
}

/* Encode v, decode the bytes, and check the result equals v exactly
 * (types included: json_object_equal tells int from double). */
static void round_trip(struct json_object *v)
{
    ts_buf b;
    struct json_object *back;

    encode_ok(v, &b);
    back = decode_ok(b.data, b.len);
    ck_assert_msg(json_object_equal(v, back), "round trip changed %s into %s",
                  json_object_to_json_string(v), json_object_to_json_string(back));
    ck_assert_int_eq(json_object_get_type(v), json_object_get_type(back));
    json_object_put(back);
    ts_buf_free(&b);
}

static void expect_bytes(const struct json_object *v, const char *hex)
{
    ts_buf b;
    char got[512] = "";
    size_t i;

    encode_ok(v, &b);
    for (i = 0; i < b.len && i * 2 + 2 < sizeof(got); i++)
        sprintf(got + i * 2, "%02x", (unsigned char)b.data[i]);
    ck_assert_str_eq(got, hex);
    ts_buf_free(&b);
}

static size_t unhex(const char *hex, unsigned char *out)
{
    size_t n = 0;
    unsigned v;

    while (hex[0] && hex[1]) {
        if (hex[0] == ' ') {
            hex++;
            continue;
        }
        sscanf(hex, "%2x", &v);
        out[n++] = (unsigned char)v;
        hex += 2;
    }
    return n;
}

/* ---- frames --------------------------------------------------------- */

START_TEST(frame_header_big_endian)
{
    unsigned char h[4];

    ts_frame_put_header(h, 0x01020304u);
    ck_assert_int_eq(h[0], 1);
    ck_assert_int_eq(h[1], 2);
    ck_assert_int_eq(h[2], 3);
    ck_assert_int_eq(h[3], 4);
    ck_assert_uint_eq(ts_frame_get_header(h), 0x01020304u);
    ts_frame_put_header(h, UINT32_MAX);
    ck_assert_uint_eq(ts_frame_get_header(h), UINT32_MAX);
}
END_TEST

/* Build a stream of frames with payloads of many sizes, feed it in random
 * chunk sizes and check every payload comes out whole and in order. */
START_TEST(frame_reader_random_chunks)
{
    enum { FRAMES = 60 };
    size_t sizes[FRAMES];
    ts_buf stream;
    unsigned seed;
    size_t i, j, k;

    ts_buf_init(&stream, TS_BUF_UNLIMITED);
    for (i = 0; i < FRAMES; i++) {
        unsigned char h[4];
        sizes[i] = i % 7 == 0 ? 1 : (i * 7919) % 20000 + 1;
        ts_frame_put_header(h, (uint32_t)sizes[i]);
        ck_assert_int_eq(ts_buf_append(&stream, h, 4), 0);
        for (j = 0; j < sizes[i]; j++)
            ck_assert_int_eq(ts_buf_appendc(&stream, (char)(i + j * 31)), 0);
    }
    for (seed = 1; seed <= 20; seed++) {
        ts_frame_reader r;
        size_t pos = 0, got = 0;
        srand(seed);
        ts_frame_reader_init(&r, 0);
        while (pos < stream.len) {
            size_t chunk = seed == 1 ? 1 : (size_t)(rand() % 9000) + 1;
            if (chunk > stream.len - pos)
                chunk = stream.len - pos;
            while (chunk > 0) {
                size_t used = 0;
                ts_error err;
                int rc = ts_frame_reader_feed(&r, stream.data + pos, chunk, &used, &err);
                ck_assert_int_ge(rc, 0);
                ck_assert_uint_le(used, chunk);
                pos += used;
                chunk -= used;
                if (rc == 1) {
                    size_t n;
                    unsigned char *p = ts_frame_reader_take(&r, &n);
                    ck_assert_ptr_nonnull(p);
                    ck_assert_uint_eq(n, sizes[got]);
                    for (k = 0; k < n; k++)
                        ck_assert_int_eq(p[k], (unsigned char)(got + k * 31));
                    ck_assert_int_eq(p[n], 0);
                    free(p);
                    got++;
                }
            }
        }
        ck_assert_uint_eq(got, FRAMES);
        ck_assert_int_eq(ts_frame_reader_partial(&r), 0);
        ts_frame_reader_free(&r);
    }
    ts_buf_free(&stream);
}
END_TEST

/* What a reader makes of a stream: its payloads (joined, with their
 * lengths) and how it ended. */
typedef struct stream_result {
    ts_buf payloads;
    size_t count;
    int rc; /* the error, or 0 */
    char code[40];
    int partial; /* the stream ended inside a frame */
} stream_result;

static void read_stream(const unsigned char *data, size_t len, size_t max, unsigned seed,
                        stream_result *out)
{
    ts_frame_reader r;
    size_t pos = 0;

    memset(out, 0, sizeof(*out));
    ts_buf_init(&out->payloads, TS_BUF_UNLIMITED);
    ts_frame_reader_init(&r, max);
    srand(seed);
    while (pos < len && out->rc == 0) {
        size_t chunk = seed == 0 ? len - pos : (size_t)(rand() % 64) + 1;
        ts_error err;
        size_t used = 0;
        int rc;
        if (chunk > len - pos)
            chunk = len - pos;
        rc = ts_frame_reader_feed(&r, data + pos, chunk, &used, &err);
        pos += used;
        if (rc < 0) {
            out->rc = rc;
            snprintf(out->code, sizeof(out->code), "%s", err.code);
        } else if (rc == 1) {
            size_t n;
            unsigned char *p = ts_frame_reader_take(&r, &n);
            ck_assert_uint_le(n, r.max);
            ts_buf_append(&out->payloads, &n, sizeof(n));
            ts_buf_append(&out->payloads, p, n);
            out->count++;
            free(p);
        }
    }
    out->partial = out->rc == 0 && ts_frame_reader_partial(&r);
    ts_frame_reader_free(&r);
}

/* Garbage, truncated and oversized streams give the same payloads and the
 * same verdict however they are cut into chunks. */
START_TEST(frame_reader_chunking_does_not_matter)
{
    unsigned round;

    for (round = 0; round < 300; round++) {
        unsigned char data[600];
        size_t len = 0;
        stream_result whole, chunked;
        unsigned seed;
        srand(round + 1000);
        /* a few well-formed frames, then garbage, then maybe a cut */
        while (len < 300) {
            size_t n = (size_t)(rand() % 40) + 1;
            ts_frame_put_header(data + len, (uint32_t)n);
            len += 4;
            for (size_t i = 0; i < n; i++)
                data[len++] = (unsigned char)rand();
        }
        while (len < 300 + (size_t)(round % 200))
            data[len++] = (unsigned char)(round % 3 == 0 ? 0 : rand());
        if (round % 5 == 0)
            len -= (size_t)(rand() % 30);
        read_stream(data, len, 64, 0, &whole);
        for (seed = 1; seed <= 5; seed++) {
            read_stream(data, len, 64, seed + round * 7, &chunked);
            ck_assert_uint_eq(chunked.count, whole.count);
            ck_assert_uint_eq(chunked.payloads.len, whole.payloads.len);
            ck_assert(whole.payloads.len == 0 ||
                      memcmp(chunked.payloads.data, whole.payloads.data, whole.payloads.len) == 0);
            ck_assert_int_eq(chunked.rc, whole.rc);
            ck_assert_str_eq(chunked.code, whole.code);
            ck_assert_int_eq(chunked.partial, whole.partial);
            ts_buf_free(&chunked.payloads);
        }
        ck_assert_uint_ge(whole.count, 1);
        ck_assert(whole.rc == 0 || strcmp(whole.code, "frame_too_large") == 0 ||
                  strcmp(whole.code, "bad_frame") == 0);
        ts_buf_free(&whole.payloads);
    }
}
END_TEST

START_TEST(frame_reader_refuses_oversized_header_at_once)
{
    ts_frame_reader r;
    unsigned char h[4];
    size_t used;
    ts_error err;

    ts_frame_reader_init(&r, 1000);
    ts_frame_put_header(h, 1001);
    ck_assert_int_eq(ts_frame_reader_feed(&r, h, 3, &used, &err), 0);
    ck_assert_int_eq(ts_frame_reader_feed(&r, h + 3, 1, &used, &err), -EMSGSIZE);
    ck_assert_str_eq(err.code, "frame_too_large");
    ck_assert_ptr_nonnull(strstr(err.message, "1001"));
    ck_assert_ptr_nonnull(strstr(err.message, "1000"));
    ck_assert_ptr_null(r.payload); /* nothing was allocated for it */
    /* sticky */
    ck_assert_int_eq(ts_frame_reader_feed(&r, "x", 1, &used, &err), -EMSGSIZE);
    ck_assert_uint_eq(used, 0);
    ts_frame_reader_free(&r);

    /* the exact maximum is accepted; the default maximum is 16 MiB */
    ts_frame_reader_init(&r, 1000);
    ts_frame_put_header(h, 1000);
    ck_assert_int_eq(ts_frame_reader_feed(&r, h, 4, &used, &err), 0);
    ts_frame_reader_free(&r);
    ts_frame_reader_init(&r, 0);
    ck_assert_uint_eq(r.max, 16u << 20);
    ts_frame_put_header(h, (16u << 20) + 1);
    ck_assert_int_eq(ts_frame_reader_feed(&r, h, 4, &used, &err), -EMSGSIZE);
    ts_frame_reader_free(&r);
}
END_TEST

START_TEST(frame_reader_zero_length_and_truncation)
{
    ts_frame_reader r;
    unsigned char h[4] = {0, 0, 0, 0};
    unsigned char part[6] = {0, 0, 0, 5, 'a', 'b'};
    size_t used;
    ts_error err;

    ts_frame_reader_init(&r, 0);
    ck_assert_int_eq(ts_frame_reader_feed(&r, h, 4, &used, &err), -EBADMSG);
    ck_assert_str_eq(err.code, "bad_frame");
    ts_frame_reader_free(&r);

    ts_frame_reader_init(&r, 0);
    ck_assert_int_eq(ts_frame_reader_partial(&r), 0);
    ck_assert_int_eq(ts_frame_reader_feed(&r, part, 2, &used, &err), 0);
    ck_assert_int_eq(ts_frame_reader_partial(&r), 1); /* half a header */
    ck_assert_int_eq(ts_frame_reader_feed(&r, part + 2, 4, &used, &err), 0);
    ck_assert_int_eq(ts_frame_reader_partial(&r), 1); /* 2 of 5 payload bytes */
    ck_assert_ptr_null(ts_frame_reader_take(&r, NULL));
    ts_frame_reader_free(&r);
}
END_TEST

START_TEST(frame_reader_stops_at_frame_end)
{
    ts_frame_reader r;
    unsigned char two[] = {0, 0, 0, 1, 0xc0, 0, 0, 0, 1, 0xc3};
    size_t used, n;
    ts_error err;
    unsigned char *p;

    ts_frame_reader_init(&r, 0);
    ck_assert_int_eq(ts_frame_reader_feed(&r, two, sizeof(two), &used, &err), 1);
    ck_assert_uint_eq(used, 5);
    /* feeding before taking is refused, nothing consumed */
    ck_assert_int_eq(ts_frame_reader_feed(&r, two + 5, 5, &used, &err), -EBUSY);
    ck_assert_uint_eq(used, 0);
    p = ts_frame_reader_take(&r, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(p[0], 0xc0);
    free(p);
    ck_assert_int_eq(ts_frame_reader_feed(&r, two + 5, 5, &used, &err), 1);
    p = ts_frame_reader_take(&r, &n);
    ck_assert_int_eq(p[0], 0xc3);
    free(p);
    ts_frame_reader_free(&r);
}
END_TEST

/* ---- values --------------------------------------------------------- */

START_TEST(wire_round_trip_scalars)
{
    static const int64_t ints[] = {
        0,         1,  127, 128, 255,  256,  65535,  65536,  4294967295LL,  4294967296LL,
        INT64_MAX, -1, -32, -33, -128, -129, -32768, -32769, -2147483648LL, -2147483649LL,
        INT64_MIN};
    static const double doubles[] = {
        0.0, -0.0, 1.0, -1.5, 0.1, 1e300, -1e-300, 5e-324, 1.7976931348623157e308, 3.0};
    size_t i;
    struct json_object *v;

    for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        v = json_object_new_int64(ints[i]);
        round_trip(v);
        json_object_put(v);
    }
    v = json_object_new_uint64(UINT64_MAX);
    round_trip(v);
    json_object_put(v);
    v = json_object_new_uint64((uint64_t)INT64_MAX + 1);
    round_trip(v);
    json_object_put(v);
    for (i = 0; i < sizeof(doubles) / sizeof(doubles[0]); i++) {
        struct json_object *back;
        ts_buf b;
        v = json_object_new_double(doubles[i]);
        encode_ok(v, &b);
        back = decode_ok(b.data, b.len);
        ck_assert(json_object_is_type(back, json_type_double));
        ck_assert(memcmp(&doubles[i], &(double){json_object_get_double(back)}, 8) == 0);
        json_object_put(back);
        ts_buf_free(&b);
        json_object_put(v);
    }
    round_trip(NULL);
    v = json_object_new_boolean(1);
    round_trip(v);
    json_object_put(v);
    v = json_object_new_boolean(0);
    round_trip(v);
    json_object_put(v);
}
END_TEST

START_TEST(wire_round_trip_strings)
{
    static const size_t lens[] = {0, 1, 31, 32, 255, 256, 65535, 65536, 200000};
    size_t i, j;

    for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        char *s = malloc(lens[i] + 1);
        struct json_object *v;
        for (j = 0; j < lens[i]; j++)
            s[j] = (char)('a' + j % 26);
        v = json_object_new_string_len(s, (int)lens[i]);
        round_trip(v);
        json_object_put(v);
        free(s);
    }
    {
        /* multi-byte UTF-8 and an embedded NUL (U+0000 is valid) */
        const char u[] = "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80 \x00z";
        struct json_object *v = json_object_new_string_len(u, (int)sizeof(u) - 1);
        round_trip(v);
        json_object_put(v);
    }
}
END_TEST

START_TEST(wire_round_trip_containers_keep_order)
{
    struct json_object *v =
        json_tokener_parse("{\"zeta\": 1, \"alpha\": [1, 2.5, \"x\", null, true, {}],"
                           " \"mid\": {\"b\": {\"c\": [[], [{}]]}, \"a\": -7}, \"\": \"\"}");
    struct json_object *back;
    ts_buf b;
    const char *keys[] = {"zeta", "alpha", "mid", ""};
    size_t i = 0;

    ck_assert_ptr_nonnull(v);
    round_trip(v);
    encode_ok(v, &b);
    back = decode_ok(b.data, b.len);
    json_object_object_foreach(back, key, val)
    {
        (void)val;
        ck_assert_str_eq(key, keys[i++]);
    }
    ck_assert_uint_eq(i, 4);
    json_object_put(back);
    ts_buf_free(&b);
    json_object_put(v);
}
END_TEST

START_TEST(wire_int_and_float_distinct)
{
    struct json_object *i = json_object_new_int64(1);
    struct json_object *d = json_object_new_double(1.0);
    struct json_object *back;
    ts_buf b;

    expect_bytes(i, "01");
    expect_bytes(d, "cb3ff0000000000000");
    encode_ok(d, &b);
    back = decode_ok(b.data, b.len);
    ck_assert(json_object_is_type(back, json_type_double));
    ck_assert(!json_object_equal(back, i));
    json_object_put(back);
    ts_buf_free(&b);
    json_object_put(i);
    json_object_put(d);

    /* float32 on the wire becomes a double, 1.5f exactly */
    {
        unsigned char f32[] = {0xca, 0x3f, 0xc0, 0x00, 0x00};
        back = decode_ok(f32, sizeof(f32));
        ck_assert(json_object_is_type(back, json_type_double));
        ck_assert(json_object_get_double(back) == 1.5);
        json_object_put(back);
    }
    /* every integer encoding decodes to an integer */
    {
        const char *hex[] = {
            "05",   "cc05",   "cd0005",     "ce00000005",        "cf0000000000000005",
            "d005", "d10005", "d200000005", "d30000000000000005"};
        size_t k;
        for (k = 0; k < sizeof(hex) / sizeof(hex[0]); k++) {
            unsigned char raw[16];
            size_t n = unhex(hex[k], raw);
            back = decode_ok(raw, n);
            ck_assert(json_object_is_type(back, json_type_int));
            ck_assert_int_eq(json_object_get_int64(back), 5);
            json_object_put(back);
        }
    }
}
END_TEST

/* What msgpack-c's own packer writes for v (the reference encoding). */
static void msgpack_c_pack(msgpack_packer *pk, struct json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null:
        msgpack_pack_nil(pk);
        break;
    case json_type_boolean:
        if (json_object_get_boolean(v))
            msgpack_pack_true(pk);
        else
            msgpack_pack_false(pk);
        break;
    case json_type_int:
        if (json_object_get_int64(v) == INT64_MAX)
            msgpack_pack_uint64(pk, json_object_get_uint64(v));
        else
            msgpack_pack_int64(pk, json_object_get_int64(v));
        break;
    case json_type_double:
        msgpack_pack_double(pk, json_object_get_double(v));
        break;
    case json_type_string:
        msgpack_pack_str(pk, (size_t)json_object_get_string_len(v));
        msgpack_pack_str_body(pk, json_object_get_string(v), (size_t)json_object_get_string_len(v));
        break;
    case json_type_array:
        msgpack_pack_array(pk, json_object_array_length(v));
        for (size_t i = 0; i < json_object_array_length(v); i++)
            msgpack_c_pack(pk, json_object_array_get_idx(v, i));
        break;
    case json_type_object:
        msgpack_pack_map(pk, (size_t)json_object_object_length(v));
        json_object_object_foreach(v, key, child)
        {
            msgpack_pack_str(pk, strlen(key));
            msgpack_pack_str_body(pk, key, strlen(key));
            msgpack_c_pack(pk, child);
        }
        break;
    }
}

/* The encoder writes its bytes itself; they must be msgpack-c's, for every
 * size class of int, str, array and map, on both sides of each boundary. */
START_TEST(wire_encoder_matches_msgpack_c)
{
    static const int64_t edges[] = {0,
                                    31,
                                    32,
                                    127,
                                    128,
                                    255,
                                    256,
                                    65535,
                                    65536,
                                    4294967295LL,
                                    4294967296LL,
                                    INT64_MAX - 1,
                                    -1,
                                    -31,
                                    -32,
                                    -33,
                                    -127,
                                    -128,
                                    -129,
                                    -32767,
                                    -32768,
                                    -32769,
                                    -2147483647LL,
                                    -2147483648LL,
                                    -2147483649LL,
                                    INT64_MIN};
    static const size_t sizes[] = {0, 1, 15, 16, 31, 32, 255, 256, 65535, 65536, 70000};
    struct json_object *all = json_object_new_array();
    msgpack_sbuffer sb;
    msgpack_packer pk;
    ts_buf ours;
    char *text;

    for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
        json_object_array_add(all, json_object_new_int64(edges[i]));
        json_object_array_add(all, json_object_new_double((double)edges[i] + 0.5));
    }
    json_object_array_add(all, json_object_new_uint64(UINT64_MAX));
    json_object_array_add(all, json_object_new_uint64((uint64_t)INT64_MAX + 1));
    json_object_array_add(all, json_object_new_double(-0.0));
    json_object_array_add(all, json_object_new_double(1e-310));
    json_object_array_add(all, json_object_new_boolean(1));
    json_object_array_add(all, json_object_new_boolean(0));
    json_object_array_add(all, NULL);
    text = malloc(70001);
    memset(text, 'x', 70000);
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        struct json_object *arr = json_object_new_array();
        struct json_object *map = json_object_new_object();
        for (size_t k = 0; k < sizes[i]; k++) {
            char key[24];
            snprintf(key, sizeof(key), "%zu", k);
            json_object_array_add(arr, json_object_new_int((int)k % 3 - 1));
            json_object_object_add(map, key, NULL);
        }
        json_object_array_add(all, json_object_new_string_len(text, (int)sizes[i]));
        json_object_array_add(all, arr);
        json_object_array_add(all, map);
    }
    free(text);

    encode_ok(all, &ours);
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_c_pack(&pk, all);
    ck_assert_uint_eq(ours.len, sb.size);
    for (size_t i = 0; i < sb.size; i++)
        ck_assert_msg(ours.data[i] == sb.data[i], "byte %zu differs", i);
    msgpack_sbuffer_destroy(&sb);
    ts_buf_free(&ours);
    json_object_put(all);
}
END_TEST

START_TEST(wire_smallest_encodings)
{
    struct json_object *v;

    v = json_object_new_int64(-1);
    expect_bytes(v, "ff");
    json_object_put(v);
    v = json_object_new_int64(200);
    expect_bytes(v, "ccc8");
    json_object_put(v);
    v = json_object_new_int64(-200);
    expect_bytes(v, "d1ff38");
    json_object_put(v);
    v = json_object_new_uint64(UINT64_MAX);
    expect_bytes(v, "cfffffffffffffffff");
    json_object_put(v);
    v = json_object_new_string("hi");
    expect_bytes(v, "a26869");
    json_object_put(v);
    v = json_tokener_parse("{\"a\":[null,false,true]}");
    expect_bytes(v, "81a16193c0c2c3");
    json_object_put(v);
}
END_TEST

START_TEST(wire_refuses_invalid_utf8)
{
    static const char *bad[] = {
        "a1ff",         /* 0xff never appears in UTF-8 */
        "a2c080",       /* overlong NUL */
        "a3eda080",     /* UTF-16 surrogate */
        "a4f4908080",   /* above U+10FFFF */
        "a2e282",       /* truncated sequence */
        "a180",         /* lone continuation byte */
        "d903e08080",   /* overlong 3-byte form, str8 */
        "81a2c3286101", /* invalid key */
    };
    size_t i;
    unsigned char raw[32];
    struct json_object *v;
    ts_buf b;
    ts_error err;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        decode_fails(raw, unhex(bad[i], raw), "bad_request");
    /* encoding refuses it too, naming the problem, and leaves out as it was */
    v = json_object_new_string_len("ok\xff", 3);
    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ts_buf_appends(&b, "keep");
    ck_assert_int_eq(ts_wire_encode(v, &b, &err), -EINVAL);
    ck_assert_str_eq(err.code, "invalid_argument");
    ck_assert_ptr_nonnull(strstr(err.message, "UTF-8"));
    ck_assert_uint_eq(b.len, 4);
    ts_buf_free(&b);
    json_object_put(v);
    v = json_object_new_object();
    json_object_object_add(v, "k\xc3", json_object_new_int(1));
    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_wire_encode(v, &b, &err), -EINVAL);
    ts_buf_free(&b);
    json_object_put(v);
}
END_TEST

static struct json_object *nested_arrays(int depth)
{
    struct json_object *v = json_object_new_int(1);
    int i;

    for (i = 0; i < depth; i++) {
        struct json_object *a = json_object_new_array();
        json_object_array_add(a, v);
        v = a;
    }
    return v;
}

/* A writer's first failure sticks: later packs return it without writing
 * or touching their err, so a message is checked once at the end. */
START_TEST(wire_writer_errors_stick)
{
    ts_wire_writer w;
    ts_error err, later;
    ts_buf out;
    size_t len;

    ts_buf_init(&out, TS_BUF_UNLIMITED);
    ts_wire_writer_init(&w, &out);
    ck_assert_int_eq(ts_wire_pack_map(&w, 2, &err), 0);
    ck_assert_int_eq(ts_wire_pack_str(&w, "k", 1, &err), 0);
    len = out.len;
    ck_assert_int_eq(ts_wire_pack_str(&w, "\xff", 1, &err), -EINVAL);
    ck_assert_str_eq(err.code, TS_ERR_INVALID_ARGUMENT);
    ts_error_clear(&later);
    ck_assert_int_eq(ts_wire_pack_str(&w, "ok", 2, &later), -EINVAL);
    ck_assert_int_eq(ts_wire_pack_int(&w, 1, &later), -EINVAL);
    ck_assert_int_eq(ts_wire_pack_double(&w, 1.5, &later), -EINVAL);
    ck_assert_int_eq(ts_wire_pack_nil(&w, &later), -EINVAL);
    ck_assert_str_eq(later.code, ""); /* the message is the failing call's */
    ck_assert_uint_eq(out.len, len);  /* nothing written after the failure */
    ck_assert_int_eq(ts_wire_writer_error(&w), -EINVAL);
    ck_assert_int_eq(ts_buf_error(&out), 0); /* the value's failure, not the buffer's */

    /* the buffer's own failure: too large, seen by the writer and the buffer */
    ts_buf_free(&out);
    ts_buf_init(&out, 4);
    ts_wire_writer_init(&w, &out);
    ck_assert_int_eq(ts_wire_pack_str(&w, "long string", 11, &err), -E2BIG);
    ck_assert_str_eq(err.code, TS_ERR_TOO_LARGE);
    ck_assert_int_eq(ts_wire_pack_nil(&w, &later), -E2BIG);
    ck_assert_int_eq(ts_buf_error(&out), -E2BIG);
    ts_buf_free(&out);
}
END_TEST

START_TEST(wire_depth_limit)
{
    unsigned char raw[512];
    struct json_object *v;
    ts_buf b;
    ts_error err;
    int i;

    /* 128 levels decode (msgpack-c's own unpacker would stop at 32) */
    for (i = 0; i < 128; i++)
        raw[i] = 0x91;
    raw[128] = 0x01;
    v = decode_ok(raw, 129);
    json_object_put(v);
    /* 129 do not */
    for (i = 0; i < 129; i++)
        raw[i] = 0x91;
    raw[129] = 0x01;
    decode_fails(raw, 130, "limit");
    /* maps count as levels too */
    for (i = 0; i < 129; i++) {
        raw[i * 3] = 0x81;
        raw[i * 3 + 1] = 0xa1;
        raw[i * 3 + 2] = 'k';
    }
    raw[129 * 3] = 0xc0;
    decode_fails(raw, 129 * 3 + 1, "limit");
    /* a custom limit */
    ck_assert_int_eq(ts_wire_decode(raw, 3 * 3 + 1 + 0, 2, &v, &err) < 0, 1);

    v = nested_arrays(128);
    round_trip(v);
    json_object_put(v);
    v = nested_arrays(129);
    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_wire_encode(v, &b, &err), -E2BIG);
    ck_assert_str_eq(err.code, "limit");
    ts_buf_free(&b);
    json_object_put(v);
}
END_TEST

START_TEST(wire_refuses_non_json_values)
{
    static const struct {
        const char *hex;
        const char *code;
    } cases[] = {
        {"c40161", "bad_request"},             /* bin8 */
        {"c5000161", "bad_request"},           /* bin16 */
        {"c600000001ff", "bad_request"},       /* bin32 */
        {"d40100", "bad_request"},             /* fixext1 */
        {"c7010100", "bad_request"},           /* ext8 */
        {"d6ffffffffff", "bad_request"},       /* timestamp32 */
        {"c1", "bad_frame"},                   /* never-used type byte */
        {"81c001", "bad_request"},             /* nil key */
        {"8101c3", "bad_request"},             /* int key */
        {"8291c0c0a16101", "bad_request"},     /* array key */
        {"82a16101a16102", "bad_request"},     /* duplicate key */
        {"81a2610001", "bad_request"},         /* key with NUL */
        {"cb7ff8000000000000", "bad_request"}, /* NaN */
        {"cb7ff0000000000000", "bad_request"}, /* +inf */
        {"caff800000", "bad_request"},         /* float32 -inf */
        {"c0c0", "bad_frame"},                 /* two values */
        {"", "bad_frame"},                     /* nothing */
        {"dd7fffffff", "bad_frame"},           /* array announcing 2^31-1 elements */
        {"dfffffffff", "bad_frame"},           /* map announcing 2^32-1 pairs */
        {"dbffffffff61", "bad_frame"},         /* str announcing 4 GiB */
        {"92c0", "bad_frame"},                 /* array short of elements */
        {"81a161", "bad_frame"},               /* map short of a value */
    };
    unsigned char raw[64];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = unhex(cases[i].hex, raw);
        decode_fails(raw, n, cases[i].code);
    }
    {
        struct json_object *v = json_object_new_double(NAN);
        ts_buf b;
        ts_error err;
        ts_buf_init(&b, TS_BUF_UNLIMITED);
        ck_assert_int_eq(ts_wire_encode(v, &b, &err), -EINVAL);
        ts_buf_free(&b);
        json_object_put(v);
    }
}
END_TEST

/* Every proper prefix of a valid encoding is truncated: bad_frame, never a
 * crash or a read past the end (run under ASan). */
START_TEST(wire_truncated_prefixes)
{
    struct json_object *v = json_tokener_parse(
        "{\"id\": 4294967296, \"s\": \"h\\u00e9llo\", \"a\": [1.5, -3, null, true, "
        "{\"k\": [\"x\", 300, -70000]}], \"u\": 18446744073709551615}");
    ts_buf b;
    size_t n;

    encode_ok(v, &b);
    for (n = 0; n < b.len; n++) {
        unsigned char *copy = malloc(n + 1); /* exact size so ASan sees overreads */
        memcpy(copy, b.data, n);
        decode_fails(copy, n, "bad_frame");
        free(copy);
    }
    ts_buf_free(&b);
    json_object_put(v);
}
END_TEST

/* Random bytes and random mutations of valid encodings: the decoder returns
 * a value or one of the documented codes, and never crashes. */
START_TEST(wire_garbage)
{
    struct json_object *seed = json_tokener_parse(
        "{\"id\": 7, \"method\": \"check\", \"params\": {\"a\": [1, 2.5, \"x\", {\"b\": null}]}}");
    ts_buf b;
    int round;

    encode_ok(seed, &b);
    srand(42);
    for (round = 0; round < 20000; round++) {
        unsigned char buf[96];
        size_t n, i;
        struct json_object *v = NULL;
        ts_error err;
        int rc;
        if (round % 2) {
            n = (size_t)(rand() % (int)sizeof(buf));
            for (i = 0; i < n; i++)
                buf[i] = (unsigned char)rand();
        } else {
            n = b.len;
            memcpy(buf, b.data, n);
            for (i = 0; i < 3; i++)
                buf[rand() % (int)n] = (unsigned char)rand();
        }
        rc = ts_wire_decode(buf, n, 0, &v, &err);
        if (rc == 0) {
            json_object_put(v);
            continue;
        }
        ck_assert_msg(strcmp(err.code, "bad_frame") == 0 || strcmp(err.code, "bad_request") == 0 ||
                          strcmp(err.code, "limit") == 0 || strcmp(err.code, "too_large") == 0,
                      "unexpected code %s", err.code);
        {
            ts_request req;
            rc = ts_message_decode_request(buf, n, &req, &err);
            ts_request_free(&req);
        }
    }
    ts_buf_free(&b);
    json_object_put(seed);
}
END_TEST

START_TEST(wire_excerpt_is_one_printable_line)
{
    char out[16];

    ts_wire_excerpt("plain", out, sizeof(out));
    ck_assert_str_eq(out, "plain");
    ts_wire_excerpt("a\nb\tc\x7f\x1b[31m", out, sizeof(out));
    ck_assert_str_eq(out, "a?b?c??[31m");
    ts_wire_excerpt("exactly 15 byte", out, sizeof(out));
    ck_assert_str_eq(out, "exactly 15 byte");
    ts_wire_excerpt("sixteen bytes!!!", out, sizeof(out));
    ck_assert_str_eq(out, "sixteen byte...");
    /* never cut inside a character */
    ts_wire_excerpt("\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac", out,
                    sizeof(out));
    ck_assert_str_eq(out, "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac...");
    ck_assert(ts_wire_utf8_valid(out, strlen(out)));
    ts_wire_excerpt("\xff\xfe", out, sizeof(out));
    ck_assert_str_eq(out, "??");
    ts_wire_excerpt("abc", out, 2);
    ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(wire_errors_name_keys_printably)
{
    /* {"a\nb": 1, "a\nb": 2}: the duplicate key is named without its newline */
    unsigned char raw[32];
    size_t n = unhex("82a3610a6201a3610a6202", raw);
    struct json_object *v = NULL;
    ts_request req;
    ts_error err;

    ck_assert_int_lt(ts_wire_decode(raw, n, 0, &v, &err), 0);
    ck_assert_ptr_null(strchr(err.message, '\n'));
    ck_assert_ptr_nonnull(strstr(err.message, "a?b"));
    /* an unknown request key with a control character */
    n = unhex("83a2696401a66d6574686f64a170a3781b7901", raw);
    ck_assert_int_lt(ts_message_decode_request(raw, n, &req, &err), 0);
    ck_assert_ptr_null(strchr(err.message, 0x1b));
    ck_assert_ptr_nonnull(strstr(err.message, "x?y"));
    ts_request_free(&req);
}
END_TEST

/* ---- messages ------------------------------------------------------- */

static void frame_payload(const ts_buf *frame, const unsigned char **payload, size_t *len)
{
    ck_assert_uint_ge(frame->len, 5);
    *len = ts_frame_get_header((const unsigned char *)frame->data);
    ck_assert_uint_eq(*len + 4, frame->len);
    *payload = (const unsigned char *)frame->data + 4;
}

/* The price of a msgpack value is what decoding it really takes, measured
 * (never less, not much more), whatever its shape; a broken value is
 * priced up to where it breaks. */
START_TEST(wire_price_holds_to_the_measurement)
{
    static const char *const items[] = {
        "{}",
        "[]",
        "0",
        "null",
        "true",
        "-12345678901",
        "1.5",
        "\"\"",
        "\"a short string\"",
        "\"a string of more than twenty-three bytes\"",
        "{\"a\": 1}",
        "{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9,\"j\":10,\"k\":"
        "11,"
        "\"l\":12}",
        "{\"tool\": \"search\", \"args\": {\"query\": \"flights\", \"page\": 2, \"filters\": "
        "{\"tags\": [\"x\", \"y\"], \"max\": 1.25}}}",
        "[[[[[[[[[[0]]]]]]]]]]",
        "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]"};

    for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
        struct json_object *item = util_json_c_parse(items[i]);
        struct json_object *list = json_object_new_array();
        struct json_object *v = NULL;
        size_t price = 0;
        ts_error err;
        ts_buf b;

        for (int n = 0; n < 20000; n++)
            json_object_array_add(list, json_object_get(item));
        encode_ok(list, &b);
        json_object_put(list);
        json_object_put(item);
        ck_assert_int_eq(ts_wire_price(b.data, b.len, 0, &price, &err), 0);
#if !defined(__SANITIZE_ADDRESS__)
        size_t before = util_heap_in_use();
        ck_assert_int_eq(ts_wire_decode(b.data, b.len, 0, &v, &err), 0);
        size_t used = util_heap_in_use() - before;

        ck_assert_msg(price >= used, "%s x 20000: priced %zu, takes %zu", items[i], price, used);
        ck_assert_msg(price <= used + used / 4 + 4096, "%s x 20000: priced %zu, takes only %zu",
                      items[i], price, used);
#else
        ck_assert_int_eq(ts_wire_decode(b.data, b.len, 0, &v, &err), 0);
        ck_assert_uint_ge(price, b.len);
#endif
        json_object_put(v);
        ts_buf_free(&b);
    }

    /* 4 MB of empty maps: 3 GB once decoded, priced without allocating */
    size_t n = 4u << 20;
    unsigned char *bomb = malloc(n + 5);
    size_t price = 0;
    ts_error err;

    ck_assert_ptr_nonnull(bomb);
    bomb[0] = 0xdd;
    bomb[1] = (unsigned char)(n >> 24);
    bomb[2] = (unsigned char)(n >> 16);
    bomb[3] = (unsigned char)(n >> 8);
    bomb[4] = (unsigned char)n;
    memset(bomb + 5, 0x80, n);
    ck_assert_int_eq(ts_wire_price(bomb, n + 5, 0, &price, &err), 0);
    ck_assert_uint_ge(price, (size_t)n * 784);
    /* broken half way: an error, and the price of what came before, which
     * a decode would have built before it failed there */
    bomb[5 + n / 2] = 0xc1;
    ck_assert_int_eq(ts_wire_price(bomb, n + 5, 0, &price, &err), -EBADMSG);
    ck_assert_str_eq(err.code, "bad_frame");
    ck_assert_uint_ge(price, (size_t)(n / 2) * 784);
    ck_assert_uint_lt(price, (size_t)n * 784);
    /* too deep: the decoder's limit and message */
    memset(bomb, 0x91, 129);
    bomb[129] = 0x01;
    ck_assert_int_eq(ts_wire_price(bomb, 130, 0, &price, &err), -E2BIG);
    ck_assert_str_eq(err.code, "limit");
    free(bomb);
}
END_TEST

START_TEST(message_request_round_trip)
{
    struct json_object *params = json_tokener_parse("{\"name\": \"flow\", \"min_score\": 1.0}");
    ts_buf out;
    ts_request req;
    ts_error err;
    const unsigned char *p;
    size_t n;

    ts_buf_init(&out, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_message_encode_request(&out, 42, "check", params, 0, &err), 0);
    frame_payload(&out, &p, &n);
    ck_assert_int_eq(ts_message_decode_request(p, n, &req, &err), 0);
    ck_assert(req.has_id);
    ck_assert_uint_eq(req.id, 42);
    ck_assert_str_eq(req.method, "check");
    ck_assert(json_object_equal(req.params, params));
    ck_assert(
        json_object_is_type(json_object_object_get(req.params, "min_score"), json_type_double));
    ts_request_free(&req);

    /* NULL params are sent as {}; the id uses the whole uint64 range */
    ts_buf_reset(&out);
    ck_assert_int_eq(ts_message_encode_request(&out, UINT64_MAX, "ping", NULL, 0, &err), 0);
    frame_payload(&out, &p, &n);
    ck_assert_int_eq(ts_message_decode_request(p, n, &req, &err), 0);
    ck_assert_uint_eq(req.id, UINT64_MAX);
    ck_assert(json_object_is_type(req.params, json_type_object));
    ck_assert_int_eq(json_object_object_length(req.params), 0);
    ts_request_free(&req);
    ts_buf_free(&out);
    json_object_put(params);
}
END_TEST

/* The request with one more member packed from the caller's value equals
 * the request whose params hold that member; a member already in params is
 * refused and leaves out unchanged. */
START_TEST(message_request_with_borrowed_member)
{
    struct json_object *params = json_tokener_parse("{\"name\": \"flow\", \"strict\": true}");
    struct json_object *actual =
        json_tokener_parse("[{\"tool\": \"search\", \"args\": {\"q\": \"x\", \"n\": [1, 2.5]}}]");
    struct json_object *whole = json_tokener_parse("{\"name\": \"flow\", \"strict\": true}");
    ts_buf with, plain;
    ts_request req;
    ts_error err;
    const unsigned char *p;
    size_t n;

    json_object_object_add(whole, "actual", json_object_get(actual));
    ts_buf_init(&with, TS_BUF_UNLIMITED);
    ts_buf_init(&plain, TS_BUF_UNLIMITED);
    ck_assert_int_eq(
        ts_message_encode_request_with(&with, 7, "check", params, "actual", actual, 0, &err), 0);
    ck_assert_int_eq(ts_message_encode_request(&plain, 7, "check", whole, 0, &err), 0);
    ck_assert_uint_eq(with.len, plain.len);
    ck_assert_int_eq(memcmp(with.data, plain.data, with.len), 0);
    frame_payload(&with, &p, &n);
    ck_assert_int_eq(ts_message_decode_request(p, n, &req, &err), 0);
    ck_assert(json_object_equal(req.params, whole));
    ts_request_free(&req);
    /* params untouched: the borrowed value was not added to them */
    ck_assert_int_eq(json_object_object_length(params), 2);

    ts_buf_reset(&with);
    ck_assert_int_eq(
        ts_message_encode_request_with(&with, 8, "check", params, "name", actual, 0, &err),
        -EINVAL);
    ck_assert_str_eq(err.code, TS_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err.message, "'name'"));
    ck_assert_uint_eq(with.len, 0);
    ts_buf_free(&with);
    ts_buf_free(&plain);
    json_object_put(params);
    json_object_put(actual);
    json_object_put(whole);
}
END_TEST

static int pack_pair(ts_wire_writer *w, void *arg, ts_error *err)
{
    const char *bad = arg;
    int rc = ts_wire_pack_map(w, 1, err);

    if (rc == 0)
        rc = ts_wire_pack_str(w, "k", 1, err);
    if (rc == 0)
        rc = ts_wire_pack_str(w, bad, strlen(bad), err);
    return rc;
}

/* A result written by a packer decodes like the same result given as a
 * tree; a packer's failure is returned and out stays unchanged. */
START_TEST(message_result_written_by_a_packer)
{
    struct json_object *want = json_tokener_parse("{\"k\": \"v\"}");
    ts_buf out;
    ts_reply reply;
    ts_error err;
    const unsigned char *p;
    size_t n;

    ts_buf_init(&out, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_message_encode_result_with(&out, 5, pack_pair, "v", 0, &err), 0);
    frame_payload(&out, &p, &n);
    ck_assert_int_eq(ts_message_decode_reply(p, n, &reply, &err), 0);
    ck_assert(reply.ok);
    ck_assert_uint_eq(reply.id, 5);
    ck_assert(json_object_equal(reply.result, want));
    ts_reply_free(&reply);

    ts_buf_reset(&out);
    ck_assert_int_eq(ts_message_encode_result_with(&out, 6, pack_pair, "\xff", 0, &err), -EINVAL);
    ck_assert_str_eq(err.code, TS_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(out.len, 0);
    ts_buf_free(&out);
    json_object_put(want);
}
END_TEST

/* The scoring result packed without a tree is byte for byte the packed
 * ts_score_result_to_json, for passing, failing, empty and redundant lists. */
START_TEST(message_score_result_packs_like_its_json)
{
    static const char *const cases[][2] = {
        {"[{\"tool\": \"a\", \"args\": {\"x\": 1}}, {\"tool\": \"b\"}]",
         "[{\"tool\": \"a\", \"args\": {\"x\": 1}}, {\"tool\": \"b\"}]"},
        {"[{\"tool\": \"a\", \"args\": {\"x\": 1}}, {\"tool\": \"b\"}]",
         "[{\"tool\": \"c\", \"args\": {\"x\": 2}}, {\"tool\": \"a\"}, {\"tool\": \"a\"}]"},
        {"[]", "[]"},
        {"[]", "[{\"tool\": \"only\"}]"},
        {"[{\"tool\": \"\\u00e9t\\u00e9\", \"args\": {\"k\": \"v\"}}]", "[]"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct json_object *gold = json_tokener_parse(cases[i][0]);
        struct json_object *trace = json_tokener_parse(cases[i][1]);
        struct json_object *tree;
        ts_score_options opt;
        ts_score_result r;
        ts_wire_writer w;
        ts_buf direct, via;
        ts_error err;

        ts_score_options_default(&opt);
        opt.min_score = i % 2 ? 0.5 : 1.0;
        ck_assert_int_eq(ts_evaluate(gold, trace, &opt, &r, &err), 0);
        tree = ts_score_result_to_json(&r);
        ck_assert_ptr_nonnull(tree);
        ts_buf_init(&direct, TS_BUF_UNLIMITED);
        ts_buf_init(&via, TS_BUF_UNLIMITED);
        ts_wire_writer_init(&w, &direct);
        ck_assert_int_eq(ts_message_pack_score_result(&w, &r, 0, &err), 0);
        ck_assert_int_eq(ts_wire_encode(tree, &via, &err), 0);
        ck_assert_msg(direct.len == via.len && memcmp(direct.data, via.data, via.len) == 0,
                      "case %zu: %zu bytes packed, %zu bytes from the tree", i, direct.len,
                      via.len);
        ts_buf_free(&direct);
        ts_buf_free(&via);
        json_object_put(tree);
        ts_score_result_free(&r);
        json_object_put(gold);
        json_object_put(trace);
    }
}
END_TEST

START_TEST(message_request_params_optional)
{
    unsigned char raw[64];
    size_t n;
    ts_request req;
    ts_error err;

    /* {"id": 1, "method": "ping"} */
    n = unhex("82a2696401a66d6574686f64a470696e67", raw);
    ck_assert_int_eq(ts_message_decode_request(raw, n, &req, &err), 0);
    ck_assert_int_eq(json_object_object_length(req.params), 0);
    ts_request_free(&req);
    /* {"method": "ping", "params": nil, "id": 1}: any order, nil params */
    n = unhex("83a66d6574686f64a470696e67a6706172616d73c0a2696401", raw);
    ck_assert_int_eq(ts_message_decode_request(raw, n, &req, &err), 0);
    ck_assert_uint_eq(req.id, 1);
    ts_request_free(&req);
}
END_TEST

static void request_fails(const char *hex, const char *code, int has_id, uint64_t id)
{
    unsigned char raw[128];
    size_t n = unhex(hex, raw);
    ts_request req;
    ts_error err;

    ts_error_clear(&err);
    ck_assert_int_lt(ts_message_decode_request(raw, n, &req, &err), 0);
    ck_assert_msg(strcmp(err.code, code) == 0, "%s: expected %s, got %s (%s)", hex, code, err.code,
                  err.message);
    ck_assert_int_eq(req.has_id, has_id);
    if (has_id)
        ck_assert_uint_eq(req.id, id);
    ts_request_free(&req);
}

START_TEST(message_request_wrong_shapes)
{
    request_fails("93010203", "bad_request", 0, 0);                           /* array */
    request_fails("a3616263", "bad_request", 0, 0);                           /* string */
    request_fails("c0", "bad_request", 0, 0);                                 /* nil */
    request_fails("81a66d6574686f64a470696e67", "bad_request", 0, 0);         /* no id */
    request_fails("81a2696401", "bad_request", 1, 1);                         /* no method */
    request_fails("82a26964ffa66d6574686f64a470696e67", "bad_request", 0, 0); /* id -1 */
    request_fails("82a26964cb3ff0000000000000a66d6574686f64a170", "bad_request", 0, 0); /* 1.0 */
    request_fails("82a26964a131a66d6574686f64a170", "bad_request", 0, 0);               /* id "1" */
    request_fails("82a2696405a66d6574686f6407", "bad_request", 1, 5); /* method int */
    request_fails("82a2696405a66d6574686f64a0", "bad_request", 1, 5); /* method "" */
    request_fails("83a2696405a66d6574686f64a170a6706172616d7390", "bad_request", 1, 5);
    request_fails("83a2696405a66d6574686f64a170a178c0", "bad_request", 1, 5); /* unknown key */
    request_fails("83a2696405a2696406a66d6574686f64", "bad_request", 1, 5);   /* duplicate id */
    request_fails("84a2696405a66d6574686f64a170a6706172616d7380a17801", "bad_request", 0, 0);
    request_fails("8201a170", "bad_request", 0, 0); /* int key */
    /* a refused value after the id: the id is known, so the server can
     * answer it and keep the connection */
    request_fails("83a2696409a66d6574686f64a170a6706172616d7381a162c40100", "bad_request", 1, 9);
    /* the id after the refused value: not known */
    request_fails("83a66d6574686f64a170a6706172616d7381a162c40100a2696409", "bad_request", 0, 0);
    /* undecodable */
    request_fails("83a2696409a66d6574686f64", "bad_frame", 1, 9);
    request_fails("dfff", "bad_frame", 0, 0);
    request_fails("81a2696401c0", "bad_frame", 1, 1); /* trailing byte */
    request_fails("", "bad_frame", 0, 0);
}
END_TEST

START_TEST(message_request_depth_counts_envelope)
{
    /* params nested so that the whole request is 128 levels: accepted;
     * one more: "limit", with the id known */
    ts_buf out;
    ts_request req;
    ts_error err;
    struct json_object *params = json_object_new_object();
    const unsigned char *p;
    size_t n;

    json_object_object_add(params, "x", nested_arrays(126));
    ts_buf_init(&out, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_message_encode_request(&out, 3, "check", params, 0, &err), 0);
    frame_payload(&out, &p, &n);
    ck_assert_int_eq(ts_message_decode_request(p, n, &req, &err), 0);
    ts_request_free(&req);
    json_object_put(params);

    params = json_object_new_object();
    json_object_object_add(params, "x", nested_arrays(127));
    ts_buf_reset(&out);
    ck_assert_int_eq(ts_message_encode_request(&out, 3, "check", params, 0, &err), -E2BIG);
    ck_assert_str_eq(err.code, "limit");
    ck_assert_uint_eq(out.len, 0);
    json_object_put(params);
    ts_buf_free(&out);
}
END_TEST

START_TEST(message_request_too_large)
{
    struct json_object *params = json_object_new_object();
    char *big = malloc(2000);
    ts_buf out;
    ts_error err;

    memset(big, 'x', 2000);
    json_object_object_add(params, "blob", json_object_new_string_len(big, 2000));
    ts_buf_init(&out, TS_BUF_UNLIMITED);
    ts_buf_appends(&out, "earlier frames");
    ck_assert_int_eq(ts_message_encode_request(&out, 1, "check", params, 1000, &err), -E2BIG);
    ck_assert_str_eq(err.code, "too_large");
    ck_assert_ptr_nonnull(strstr(err.message, "1000"));
    ck_assert_str_eq(out.data, "earlier frames"); /* untouched */
    ck_assert_int_eq(ts_message_encode_request(&out, 1, "check", params, 3000, &err), 0);
    ck_assert_uint_gt(out.len, 2014);
    ck_assert_int_eq(ts_message_encode_request(&out, 1, "", params, 0, &err), -EINVAL);
    ck_assert_int_eq(ts_message_encode_request(&out, 1, "check",
                                               json_object_object_get(params, "blob"), 0, &err),
                     -EINVAL);
    ts_buf_free(&out);
    free(big);
    json_object_put(params);
}
END_TEST

START_TEST(message_replies)
{
    struct json_object *result = json_tokener_parse("{\"outcome\": \"PASSED\", \"score\": 1.0}");
    ts_buf out;
    ts_reply reply;
    ts_error err;
    const unsigned char *p;
    size_t n;
    uint64_t id = 77;

    ts_buf_init(&out, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_message_encode_result(&out, 77, result, 0, &err), 0);
    frame_payload(&out, &p, &n);
    ck_assert_int_eq(ts_message_decode_reply(p, n, &reply, &err), 0);
    ck_assert(reply.ok);
    ck_assert(reply.has_id);
    ck_assert_uint_eq(reply.id, 77);
    ck_assert(json_object_equal(reply.result, result));
    ts_reply_free(&reply);

    /* null result */
    ts_buf_reset(&out);
    ck_assert_int_eq(ts_message_encode_result(&out, 1, NULL, 0, &err), 0);
    frame_payload(&out, &p, &n);
    ck_assert_int_eq(ts_message_decode_reply(p, n, &reply, &err), 0);
    ck_assert(reply.ok);
    ck_assert_ptr_null(reply.result);
    ts_reply_free(&reply);

    /* error with an id, and error with nil id and invalid UTF-8 in the message */
    ts_buf_reset(&out);
    ck_assert_int_eq(ts_message_encode_error(&out, &id, "not_found", "no snapshot named x", &err),
                     0);
    frame_payload(&out, &p, &n);
    ck_assert_int_eq(ts_message_decode_reply(p, n, &reply, &err), 0);
    ck_assert(!reply.ok);
    ck_assert(reply.has_id);
    ck_assert_uint_eq(reply.id, 77);
    ck_assert_str_eq(reply.error.code, "not_found");
    ck_assert_str_eq(reply.error.message, "no snapshot named x");
    ck_assert_ptr_null(reply.error_socket);
    ts_reply_free(&reply);

    /* store_busy carries the holder's socket as a third member */
    ts_buf_reset(&out);
    ck_assert_int_eq(ts_message_encode_error_socket(&out, &id, "store_busy", "held",
                                                    "/run/user/1/toolscore/toolscored.sock", &err),
                     0);
    frame_payload(&out, &p, &n);
    ck_assert_int_eq(ts_message_decode_reply(p, n, &reply, &err), 0);
    ck_assert_str_eq(reply.error.code, "store_busy");
    ck_assert_str_eq(reply.error_socket, "/run/user/1/toolscore/toolscored.sock");
    ts_reply_free(&reply);
    ts_buf_reset(&out);
    ck_assert_int_eq(
        ts_message_encode_error(&out, NULL, "bad_frame", "bad \xff byte\n\xc3\xa9", &err), 0);
    frame_payload(&out, &p, &n);
    ck_assert_int_eq(ts_message_decode_reply(p, n, &reply, &err), 0);
    ck_assert(!reply.has_id);
    ck_assert_str_eq(reply.error.message, "bad ? byte?\xc3\xa9");
    ts_reply_free(&reply);
    ts_buf_free(&out);
    json_object_put(result);
}
END_TEST

START_TEST(message_reply_wrong_shapes)
{
    static const char *bad[] = {
        "90",                                           /* not a map */
        "81a26f6bc3",                                   /* no id */
        "82a26964a178a26f6bc3",                         /* id a string */
        "82a2696401a26f6b01",                           /* ok not a bool */
        "82a2696401a26f6bc3",                           /* ok without result */
        "83a26964c0a26f6bc3a6726573756c74c0",           /* ok with id nil */
        "82a2696401a26f6bc2",                           /* error reply without error */
        "83a2696401a26f6bc2a56572726f7201",             /* error not a map */
        "83a2696401a26f6bc2a56572726f7281a4636f6465a0", /* empty code, no message */
        "83a2696401a26f6bc2a56572726f7282a4636f6465a20061a76d657373616765a0", /* NUL in code */
        "83a2696401a26f6bc2a56572726f7282a4636f6465a26120a76d657373616765a0", /* space */
        "c1",                                                                 /* garbage */
    };
    unsigned char raw[128];
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ts_reply reply;
        ts_error err;
        size_t n = unhex(bad[i], raw);
        ck_assert_int_lt(ts_message_decode_reply(raw, n, &reply, &err), 0);
        ck_assert_msg(strcmp(err.code, "bad_reply") == 0 || strcmp(err.code, "bad_frame") == 0,
                      "%s: %s", bad[i], err.code);
        ts_reply_free(&reply);
    }
    {
        /* a message is handed on as one printable line */
        ts_reply reply;
        ts_error err;
        size_t n =
            unhex("83a2696401a26f6bc2a56572726f7282a4636f6465a178a76d657373616765a3610a62", raw);
        ck_assert_int_eq(ts_message_decode_reply(raw, n, &reply, &err), 0);
        ck_assert_str_eq(reply.error.code, "x");
        ck_assert_str_eq(reply.error.message, "a?b");
        ts_reply_free(&reply);
    }
    {
        /* unknown keys in a reply are ignored */
        ts_reply reply;
        ts_error err;
        size_t n = unhex("84a2696401a26f6bc3a6726573756c74c0a57a7a7a7a7a01", raw);
        ck_assert_int_eq(ts_message_decode_reply(raw, n, &reply, &err), 0);
        ts_reply_free(&reply);
    }
}
END_TEST

START_TEST(message_hello_version)
{
    struct json_object *p = json_tokener_parse("{\"protocol\": 1, \"client\": \"t/1\"}");
    ts_error err;

    ck_assert_int_eq(ts_message_check_hello(p, &err), 0);
    json_object_put(p);
    p = json_tokener_parse("{\"protocol\": 2}");
    ck_assert_int_lt(ts_message_check_hello(p, &err), 0);
    ck_assert_str_eq(err.code, "version_mismatch");
    ck_assert_str_eq(err.message, "client speaks protocol 2, server speaks protocol 1");
    json_object_put(p);
    p = json_tokener_parse("{\"protocol\": \"1\"}");
    ck_assert_int_lt(ts_message_check_hello(p, &err), 0);
    ck_assert_str_eq(err.code, "invalid_argument");
    json_object_put(p);
}
END_TEST

/*
 * The byte-level examples of docs/protocol.md (section 9) are what the
 * encoders produce: the four hex dumps, in order, are the hello request, its
 * reply, a not_found error and a version_mismatch error.
 */
static size_t doc_dumps(const char *text, ts_buf *dumps, size_t max)
{
    const char *line = strstr(text, "## 9.");
    size_t n = 0;
    int in_dump = 0;

    ck_assert_ptr_nonnull(line);
    while (line != NULL && *line != '\0' && n < max) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        unsigned offset;
        int hex_line = len > 8 && isxdigit((unsigned char)line[0]) &&
                       isxdigit((unsigned char)line[1]) && isxdigit((unsigned char)line[2]) &&
                       isxdigit((unsigned char)line[3]) && line[4] == ' ' && line[5] == ' ' &&
                       sscanf(line, "%4x", &offset) == 1;
        if (hex_line) {
            const char *p = line + 6;
            unsigned byte;
            if (!in_dump)
                ts_buf_init(&dumps[n], TS_BUF_UNLIMITED);
            in_dump = 1;
            ck_assert_uint_eq(offset, dumps[n].len);
            while (p < line + len && *p != '|') {
                if (*p == ' ') {
                    p++;
                    continue;
                }
                ck_assert_int_eq(sscanf(p, "%2x", &byte), 1);
                ts_buf_appendc(&dumps[n], (char)byte);
                p += 2;
            }
        } else if (in_dump) {
            in_dump = 0;
            n++;
        }
        line = end ? end + 1 : NULL;
    }
    return n;
}

static void same_bytes(const ts_buf *doc, const ts_buf *made, const char *what)
{
    ck_assert_msg(doc->len == made->len && memcmp(doc->data, made->data, doc->len) == 0,
                  "docs/protocol.md's %s (%zu bytes) is not what the encoder makes (%zu bytes)",
                  what, doc->len, made->len);
}

START_TEST(protocol_doc_examples_match_the_encoder)
{
    char path[PATH_MAX];
    ts_buf dumps[4], made;
    struct json_object *v;
    ts_error err;
    uint64_t id = 2;
    size_t n, i;
    char *text;

    snprintf(path, sizeof(path), "%s/docs/protocol.md", util_source_dir());
    text = util_read_file(path, NULL);
    n = doc_dumps(text, dumps, 4);
    ck_assert_uint_eq(n, 4);

    ts_buf_init(&made, TS_BUF_UNLIMITED);
    v = json_tokener_parse("{\"protocol\": 1, \"client\": \"tsctl/0.1.0\", \"pid\": 4242}");
    ck_assert_int_eq(ts_message_encode_request(&made, 1, "hello", v, 0, &err), 0);
    same_bytes(&dumps[0], &made, "hello request");
    json_object_put(v);
    ts_buf_reset(&made);
    v = json_tokener_parse("{\"protocol\": 1, \"server\": \"toolscored/0.1.0\", \"pid\": 4243,"
                           " \"max_frame\": 16777216}");
    ck_assert_int_eq(ts_message_encode_result(&made, 1, v, 0, &err), 0);
    same_bytes(&dumps[1], &made, "hello reply");
    json_object_put(v);
    ts_buf_reset(&made);
    ck_assert_int_eq(
        ts_message_encode_error(&made, &id, "not_found", "no snapshot named 'x'", &err), 0);
    same_bytes(&dumps[2], &made, "not_found reply");
    ts_buf_reset(&made);
    id = 1;
    ck_assert_int_eq(ts_message_encode_error(&made, &id, "version_mismatch",
                                             "client speaks protocol 2, server speaks protocol 1",
                                             &err),
                     0);
    same_bytes(&dumps[3], &made, "version_mismatch reply");
    ts_buf_free(&made);
    for (i = 0; i < n; i++)
        ts_buf_free(&dumps[i]);
    free(text);
}
END_TEST

/* ---- paths ---------------------------------------------------------- */

START_TEST(paths_default_socket)
{
    char out[TS_PATHS_MAX];
    char want[256];
    ts_error err;

    setenv("XDG_RUNTIME_DIR", "/run/user/1234", 1);
    ck_assert_int_eq(ts_paths_default_socket(out, sizeof(out), &err), 0);
    ck_assert_str_eq(out, "/run/user/1234/toolscore/toolscored.sock");
    unsetenv("XDG_RUNTIME_DIR");
    ck_assert_int_eq(ts_paths_default_socket(out, sizeof(out), &err), 0);
    snprintf(want, sizeof(want), "/tmp/toolscore-%lu/toolscored.sock", (unsigned long)getuid());
    ck_assert_str_eq(out, want);
    setenv("XDG_RUNTIME_DIR", "relative/dir", 1); /* not absolute: ignored */
    ck_assert_int_eq(ts_paths_default_socket(out, sizeof(out), &err), 0);
    ck_assert_str_eq(out, want);
    ck_assert_int_eq(ts_paths_default_socket(out, 10, &err), -ENAMETOOLONG);
}
END_TEST

START_TEST(paths_resolve)
{
    char *tmp = util_make_temp_dir("ts-proto");
    char path[TS_PATHS_MAX], out[TS_PATHS_MAX], want[TS_PATHS_MAX];
    ts_error err;

    snprintf(path, sizeof(path), "%s/real", tmp);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    snprintf(path, sizeof(path), "%s/link", tmp);
    ck_assert_int_eq(symlink("real", path), 0);

    /* existing, through a symlink */
    ck_assert_int_eq(ts_paths_resolve(path, out, sizeof(out), &err), 0);
    snprintf(want, sizeof(want), "%s/real", tmp);
    ck_assert_str_eq(out, want);
    /* missing below a symlink: the existing part is resolved */
    snprintf(path, sizeof(path), "%s/link/snaps/./deep//x", tmp);
    ck_assert_int_eq(ts_paths_resolve(path, out, sizeof(out), &err), 0);
    snprintf(want, sizeof(want), "%s/real/snaps/deep/x", tmp);
    ck_assert_str_eq(out, want);
    /* ".." inside the missing part */
    snprintf(path, sizeof(path), "%s/link/a/b/../c", tmp);
    ck_assert_int_eq(ts_paths_resolve(path, out, sizeof(out), &err), 0);
    snprintf(want, sizeof(want), "%s/real/a/c", tmp);
    ck_assert_str_eq(out, want);
    /* relative to the working directory */
    ck_assert_int_eq(chdir(tmp), 0);
    ck_assert_int_eq(ts_paths_resolve(".toolscore/snapshots", out, sizeof(out), &err), 0);
    snprintf(want, sizeof(want), "%s/.toolscore/snapshots", tmp);
    ck_assert_str_eq(out, want);
    ck_assert_int_eq(ts_paths_resolve("link", out, sizeof(out), &err), 0);
    snprintf(want, sizeof(want), "%s/real", tmp);
    ck_assert_str_eq(out, want);
    /* a file in the way */
    ck_assert_int_eq(close(open("file", O_CREAT | O_WRONLY, 0600)), 0);
    ck_assert_int_eq(ts_paths_resolve("file/x", out, sizeof(out), &err), -ENOTDIR);
    ck_assert_ptr_nonnull(strstr(err.message, "file"));
    ck_assert_int_eq(ts_paths_resolve("", out, sizeof(out), &err), -EINVAL);
    ck_assert_int_eq(ts_paths_resolve("/", out, sizeof(out), &err), 0);
    ck_assert_str_eq(out, "/");
    ck_assert_int_eq(ts_paths_resolve("/nonexistent-ts-dir/a", out, sizeof(out), &err), 0);
    ck_assert_str_eq(out, "/nonexistent-ts-dir/a");
    ck_assert_int_eq(ts_paths_resolve(tmp, out, 5, &err), -ENAMETOOLONG);
    ck_assert_int_eq(util_remove_tree(tmp), 0);
    free(tmp);
}
END_TEST

START_TEST(paths_sockaddr_long_paths)
{
    char *tmp = util_make_temp_dir("ts-proto");
    char dir[TS_PATHS_MAX], sock[TS_PATHS_MAX * 2];
    ts_sockaddr a, b;
    ts_error err;
    int srv, cli;
    size_t i;

    /* short: used as is */
    snprintf(sock, sizeof(sock), "%s/s.sock", tmp);
    ck_assert_int_eq(ts_paths_sockaddr(sock, &a, &err), 0);
    ck_assert_str_eq(a.addr.sun_path, sock);
    ck_assert_int_eq(a.dirfd, -1);
    ts_paths_sockaddr_release(&a);

    /* a directory path of ~200 bytes: bind and connect through its fd */
    snprintf(dir, sizeof(dir), "%s", tmp);
    for (i = 0; i < 4; i++) {
        size_t n = strlen(dir);
        snprintf(dir + n, sizeof(dir) - n, "/%s",
                 "dddddddddddddddddddddddddddddddddddddddddddddddd");
        ck_assert_int_eq(mkdir(dir, 0700), 0);
    }
    snprintf(sock, sizeof(sock), "%s/toolscored.sock", dir);
    ck_assert_uint_gt(strlen(sock), TS_PATHS_SUN_MAX);
    ck_assert_int_eq(ts_paths_sockaddr(sock, &a, &err), 0);
    ck_assert_int_ge(a.dirfd, 0);
    srv = socket(AF_UNIX, SOCK_STREAM, 0);
    ck_assert_int_eq(bind(srv, (struct sockaddr *)&a.addr, a.len), 0);
    ck_assert_int_eq(listen(srv, 1), 0);
    ts_paths_sockaddr_release(&a);
    ck_assert_int_eq(access(sock, F_OK), 0); /* the socket is where the path says */
    ck_assert_int_eq(ts_paths_sockaddr(sock, &b, &err), 0);
    cli = socket(AF_UNIX, SOCK_STREAM, 0);
    ck_assert_int_eq(connect(cli, (struct sockaddr *)&b.addr, b.len), 0);
    ts_paths_sockaddr_release(&b);
    ts_paths_sockaddr_release(&b); /* twice is fine */
    close(cli);
    close(srv);

    /* a file name too long even alone: refused, naming the limit */
    snprintf(sock, sizeof(sock), "%s/", tmp);
    for (i = 0; i < 120; i++)
        strcat(sock, "s");
    ck_assert_int_eq(ts_paths_sockaddr(sock, &a, &err), -ENAMETOOLONG);
    ck_assert_ptr_nonnull(strstr(err.message, "107"));
    /* a missing directory */
    snprintf(sock, sizeof(sock), "%s/missing/%s", dir, "toolscored.sock");
    ck_assert_int_eq(ts_paths_sockaddr(sock, &a, &err), -ENOENT);
    ck_assert_int_eq(ts_paths_sockaddr("", &a, &err), -EINVAL);
    ck_assert_int_eq(util_remove_tree(tmp), 0);
    free(tmp);
}
END_TEST

START_TEST(paths_socket_dir_rule)
{
    char *tmp = util_make_temp_dir("ts-proto");
    char file[TS_PATHS_MAX];
    struct stat st;
    ts_error err;

    /* ours and 0700: accepted */
    ck_assert_int_eq(chmod(tmp, 0700), 0);
    ck_assert_int_eq(stat(tmp, &st), 0);
    ck_assert_int_eq(ts_paths_check_socket_dir(tmp, &st, &err), 0);
    /* group or other access: refused, naming the directory and the mode */
    ck_assert_int_eq(chmod(tmp, 0750), 0);
    ck_assert_int_eq(stat(tmp, &st), 0);
    ck_assert_int_eq(ts_paths_check_socket_dir(tmp, &st, &err), -EPERM);
    ck_assert_ptr_nonnull(strstr(err.message, tmp));
    ck_assert_ptr_nonnull(strstr(err.message, "0750"));
    /* another owner: refused */
    ck_assert_int_eq(chmod(tmp, 0700), 0);
    ck_assert_int_eq(stat(tmp, &st), 0);
    st.st_uid = geteuid() + 1;
    ck_assert_int_eq(ts_paths_check_socket_dir(tmp, &st, &err), -EPERM);
    /* not a directory: refused */
    snprintf(file, sizeof(file), "%s/file", tmp);
    ck_assert_int_eq(close(open(file, O_CREAT | O_WRONLY, 0600)), 0);
    ck_assert_int_eq(stat(file, &st), 0);
    ck_assert_int_eq(ts_paths_check_socket_dir(file, &st, &err), -EPERM);
    ck_assert_ptr_nonnull(strstr(err.message, "not a directory"));
    ck_assert_int_eq(util_remove_tree(tmp), 0);
    free(tmp);
}
END_TEST

/* A client trusts a directory of its own or root's with no group/other
 * access; the socket directory is opened without following a link. */
START_TEST(paths_socket_dir_trust_and_links)
{
    char *tmp = util_make_temp_dir("ts-proto");
    char link[TS_PATHS_MAX];
    char missing[TS_PATHS_MAX];
    struct stat st;
    ts_error err;
    int fd = -1;

    ck_assert_int_eq(chmod(tmp, 0700), 0);
    ck_assert_int_eq(ts_paths_open_socket_dir(tmp, O_PATH, &fd, &st, &err), 0);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(ts_paths_trust_socket_dir(tmp, &st, &err), 0);
    st.st_uid = 0; /* root's: trusted by a client, not the daemon's own */
    ck_assert_int_eq(ts_paths_trust_socket_dir(tmp, &st, &err), 0);
    if (geteuid() != 0) {
        ck_assert_int_eq(ts_paths_check_socket_dir(tmp, &st, &err), -EPERM);
        ck_assert_ptr_nonnull(strstr(err.message, "owned by uid 0"));
    }
    st.st_uid = geteuid() + 1;
    ck_assert_int_eq(ts_paths_trust_socket_dir(tmp, &st, &err), -EPERM);
    if (geteuid() != 0)
        ck_assert_ptr_nonnull(strstr(err.message, "or root"));
    st.st_uid = geteuid();
    st.st_mode = S_IFDIR | 0777;
    ck_assert_int_eq(ts_paths_trust_socket_dir(tmp, &st, &err), -EPERM);
    ck_assert_ptr_nonnull(strstr(err.message, "mode 0777"));
    /* a link to our own 0700 directory is refused, naming its owner */
    snprintf(link, sizeof(link), "%s/link", tmp);
    ck_assert_int_eq(symlink(tmp, link), 0);
    ck_assert_int_eq(ts_paths_open_socket_dir(link, O_PATH, &fd, &st, &err), -ELOOP);
    ck_assert_int_eq(fd, -1);
    ck_assert_ptr_nonnull(strstr(err.message, "is a symbolic link (owned by uid"));
    ck_assert_int_eq(ts_paths_open_socket_dir(link, O_RDONLY, &fd, &st, &err), -ELOOP);
    snprintf(missing, sizeof(missing), "%s/missing", tmp);
    ck_assert_int_eq(ts_paths_open_socket_dir(missing, O_PATH, &fd, &st, &err), -ENOENT);
    ck_assert_str_eq(err.code, "not_found");
    ck_assert_int_eq(ts_paths_socket_dir_of("/a/b.sock", missing, sizeof(missing)), 0);
    ck_assert_str_eq(missing, "/a");
    ck_assert_int_eq(ts_paths_socket_dir_of("/b.sock", missing, sizeof(missing)), 0);
    ck_assert_str_eq(missing, "/");
    ck_assert_int_eq(util_remove_tree(tmp), 0);
    free(tmp);
}
END_TEST

static Suite *proto_suite(void)
{
    Suite *s = suite_create("proto");
    TCase *frame = tcase_create("frame");
    TCase *wire = tcase_create("wire");
    TCase *message = tcase_create("message");
    TCase *paths = tcase_create("paths");

    tcase_add_test(frame, frame_header_big_endian);
    tcase_add_test(frame, frame_reader_random_chunks);
    tcase_add_test(frame, frame_reader_chunking_does_not_matter);
    tcase_add_test(frame, frame_reader_refuses_oversized_header_at_once);
    tcase_add_test(frame, frame_reader_zero_length_and_truncation);
    tcase_add_test(frame, frame_reader_stops_at_frame_end);
    tcase_add_test(wire, wire_round_trip_scalars);
    tcase_add_test(wire, wire_round_trip_strings);
    tcase_add_test(wire, wire_round_trip_containers_keep_order);
    tcase_add_test(wire, wire_int_and_float_distinct);
    tcase_add_test(wire, wire_smallest_encodings);
    tcase_add_test(wire, wire_encoder_matches_msgpack_c);
    tcase_add_test(wire, wire_refuses_invalid_utf8);
    tcase_add_test(wire, wire_writer_errors_stick);
    tcase_add_test(wire, wire_depth_limit);
    tcase_add_test(wire, wire_refuses_non_json_values);
    tcase_add_test(wire, wire_truncated_prefixes);
    tcase_add_test(wire, wire_garbage);
    tcase_add_test(wire, wire_excerpt_is_one_printable_line);
    tcase_add_test(wire, wire_errors_name_keys_printably);
    tcase_add_test(message, message_request_round_trip);
    tcase_add_test(message, message_request_params_optional);
    tcase_add_test(message, message_request_with_borrowed_member);
    tcase_add_test(message, message_result_written_by_a_packer);
    tcase_add_test(message, message_score_result_packs_like_its_json);
    tcase_add_test(message, message_request_wrong_shapes);
    tcase_add_test(message, message_request_depth_counts_envelope);
    tcase_add_test(message, wire_price_holds_to_the_measurement);
    tcase_add_test(message, message_request_too_large);
    tcase_add_test(message, message_replies);
    tcase_add_test(message, message_reply_wrong_shapes);
    tcase_add_test(message, message_hello_version);
    tcase_add_test(message, protocol_doc_examples_match_the_encoder);
    tcase_add_test(paths, paths_default_socket);
    tcase_add_test(paths, paths_resolve);
    tcase_add_test(paths, paths_sockaddr_long_paths);
    tcase_add_test(paths, paths_socket_dir_rule);
    tcase_add_test(paths, paths_socket_dir_trust_and_links);
    suite_add_tcase(s, frame);
    suite_add_tcase(s, wire);
    suite_add_tcase(s, message);
    suite_add_tcase(s, paths);
    return s;
}

int main(void)
{
    return util_run_suite(proto_suite());
}
