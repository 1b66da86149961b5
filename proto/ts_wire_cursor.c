/*
 * ts_wire_cursor — reading msgpack in place (see ts_proto.h).
 */
#include "proto/ts_proto.h"

#include "lib/json/ts_json.h"

#include <errno.h>
#include <string.h>

void ts_wire_cursor_init(ts_wire_cursor *c, const void *data, size_t len)
{
    c->start = data;
    c->p = data;
    c->end = c->p + len;
}

size_t ts_wire_cursor_offset(const ts_wire_cursor *c)
{
    return (size_t)(c->p - c->start);
}

size_t ts_wire_cursor_left(const ts_wire_cursor *c)
{
    return (size_t)(c->end - c->p);
}

static int truncated(const ts_wire_cursor *c, size_t at, const char *what, ts_error *err)
{
    return ts_error_set(err, -EBADMSG, TS_ERR_BAD_FRAME,
                        "truncated msgpack value: %s at byte %zu needs more bytes than the %zu "
                        "left",
                        what, at, (size_t)(c->end - c->start) - at);
}

static const char *kind_name(ts_wire_kind k)
{
    static const char *const names[] = {"nothing", "nil",      "a bool", "an int",    "a float",
                                        "a str",   "an array", "a map",  "bin or ext"};
    return names[k];
}

static int wrong_kind(const ts_wire_cursor *c, const char *wanted, ts_error *err)
{
    ts_wire_kind k = ts_wire_cursor_peek(c);

    if (k == TS_WIRE_KIND_END)
        return truncated(c, ts_wire_cursor_offset(c), wanted, err);
    return ts_error_set(err, -EINVAL, TS_ERR_BAD_REQUEST, "expected %s at byte %zu, got %s", wanted,
                        ts_wire_cursor_offset(c), kind_name(k));
}

ts_wire_kind ts_wire_cursor_peek(const ts_wire_cursor *c)
{
    unsigned char b;

    if (c->p >= c->end)
        return TS_WIRE_KIND_END;
    b = *c->p;
    if (b <= 0x7f || b >= 0xe0 || (b >= 0xcc && b <= 0xd3))
        return TS_WIRE_KIND_INT;
    if (b <= 0x8f || b == 0xde || b == 0xdf)
        return TS_WIRE_KIND_MAP;
    if (b <= 0x9f || b == 0xdc || b == 0xdd)
        return TS_WIRE_KIND_ARRAY;
    if (b <= 0xbf || (b >= 0xd9 && b <= 0xdb))
        return TS_WIRE_KIND_STR;
    if (b == 0xc0)
        return TS_WIRE_KIND_NIL;
    if (b == 0xc2 || b == 0xc3)
        return TS_WIRE_KIND_BOOL;
    if (b == 0xca || b == 0xcb)
        return TS_WIRE_KIND_FLOAT;
    return TS_WIRE_KIND_OTHER;
}

/* Read an n-byte big-endian unsigned at the cursor (n <= 8). */
static int read_uint(ts_wire_cursor *c, size_t n, const char *what, uint64_t *out, ts_error *err)
{
    uint64_t v = 0;

    if (ts_wire_cursor_left(c) < n)
        return truncated(c, ts_wire_cursor_offset(c), what, err);
    for (size_t i = 0; i < n; i++)
        v = (v << 8) | c->p[i];
    c->p += n;
    *out = v;
    return 0;
}

/* A container header of the kind want (map or array): its member count. */
static int container(ts_wire_cursor *c, ts_wire_kind want, uint32_t *count, ts_error *err)
{
    const char *what = want == TS_WIRE_KIND_MAP ? "a map" : "an array";
    unsigned char b;
    uint64_t n;
    int rc;

    if (ts_wire_cursor_peek(c) != want)
        return wrong_kind(c, what, err);
    b = *c->p++;
    if (b <= 0x9f) {
        *count = b & 0x0f;
        return 0;
    }
    rc = read_uint(c, (b == 0xdc || b == 0xde) ? 2 : 4, what, &n, err);
    if (rc == 0)
        *count = (uint32_t)n;
    return rc;
}

int ts_wire_cursor_map(ts_wire_cursor *c, uint32_t *count, ts_error *err)
{
    return container(c, TS_WIRE_KIND_MAP, count, err);
}

int ts_wire_cursor_array(ts_wire_cursor *c, uint32_t *count, ts_error *err)
{
    return container(c, TS_WIRE_KIND_ARRAY, count, err);
}

/* The length of the str whose type byte b was just consumed. */
static int str_length(ts_wire_cursor *c, unsigned char b, uint64_t *len, ts_error *err)
{
    if (b >= 0xa0 && b <= 0xbf) {
        *len = b & 0x1f;
        return 0;
    }
    return read_uint(c, (size_t)1 << (b - 0xd9), "a str length", len, err);
}

int ts_wire_cursor_str(ts_wire_cursor *c, const char **s, size_t *len, ts_error *err)
{
    size_t at = ts_wire_cursor_offset(c);
    uint64_t n;
    int rc;

    if (ts_wire_cursor_peek(c) != TS_WIRE_KIND_STR)
        return wrong_kind(c, "a str", err);
    rc = str_length(c, *c->p++, &n, err);
    if (rc < 0)
        return rc;
    if (ts_wire_cursor_left(c) < n)
        return truncated(c, at, "a str", err);
    if (!ts_utf8_valid((const char *)c->p, (size_t)n))
        return ts_error_set(err, -EINVAL, TS_ERR_BAD_REQUEST, "str at byte %zu is not valid UTF-8",
                            at);
    *s = (const char *)c->p;
    *len = (size_t)n;
    c->p += n;
    return 0;
}

int ts_wire_cursor_bool(ts_wire_cursor *c, bool *b, ts_error *err)
{
    if (ts_wire_cursor_peek(c) != TS_WIRE_KIND_BOOL)
        return wrong_kind(c, "a bool", err);
    *b = *c->p++ == 0xc3;
    return 0;
}

int ts_wire_cursor_nil(ts_wire_cursor *c, ts_error *err)
{
    if (ts_wire_cursor_peek(c) != TS_WIRE_KIND_NIL)
        return wrong_kind(c, "nil", err);
    c->p++;
    return 0;
}

/* An int whose type byte b was just consumed, as a double. */
static int int_value(ts_wire_cursor *c, unsigned char b, double *d, ts_error *err)
{
    uint64_t u;
    int rc;

    if (b <= 0x7f) {
        *d = b;
        return 0;
    }
    if (b >= 0xe0) {
        *d = (int8_t)b;
        return 0;
    }
    rc = read_uint(c, (size_t)1 << ((b - 0xcc) & 3), "an int", &u, err);
    if (rc < 0)
        return rc;
    if (b <= 0xcf) {
        *d = (double)u;
    } else {
        unsigned bits = 8u << ((b - 0xd0) & 3);
        /* sign-extend the bits-wide two's complement value */
        int64_t v = bits == 64
                        ? (int64_t)u
                        : (int64_t)(u ^ (1ull << (bits - 1))) - (int64_t)(1ull << (bits - 1));
        *d = (double)v;
    }
    return 0;
}

int ts_wire_cursor_number(ts_wire_cursor *c, double *d, ts_error *err)
{
    ts_wire_kind k = ts_wire_cursor_peek(c);
    unsigned char b;
    uint64_t u;
    int rc;

    if (k != TS_WIRE_KIND_INT && k != TS_WIRE_KIND_FLOAT)
        return wrong_kind(c, "a number", err);
    b = *c->p++;
    if (k == TS_WIRE_KIND_INT)
        return int_value(c, b, d, err);
    rc = read_uint(c, b == 0xca ? 4 : 8, "a float", &u, err);
    if (rc < 0)
        return rc;
    if (b == 0xca) {
        uint32_t bits32 = (uint32_t)u;
        float f;
        memcpy(&f, &bits32, sizeof(f));
        *d = f;
    } else {
        memcpy(d, &u, sizeof(*d));
    }
    return 0;
}

/* Bytes after the type byte b of a scalar, str or bin/ext payload, before
 * any length field is read: the fixed part (-1 for a variable one). */
static int scalar_size(unsigned char b)
{
    static const signed char sizes[] = {/* 0xc0 nil */ 0,
                                        /* 0xc1 */ -2,
                                        /* 0xc2 false */ 0,
                                        /* 0xc3 true */ 0,
                                        /* 0xc4-0xc6 bin8/16/32 */ -1,
                                        -1,
                                        -1,
                                        /* 0xc7-0xc9 ext8/16/32 */ -1,
                                        -1,
                                        -1,
                                        /* 0xca float32 */ 4,
                                        /* 0xcb float64 */ 8,
                                        /* 0xcc-0xcf uint8..64 */ 1,
                                        2,
                                        4,
                                        8,
                                        /* 0xd0-0xd3 int8..64 */ 1,
                                        2,
                                        4,
                                        8,
                                        /* 0xd4-0xd8 fixext 1/2/4/8/16 (+1 type byte) */ 2,
                                        3,
                                        5,
                                        9,
                                        17,
                                        /* 0xd9-0xdb str8/16/32 */ -1,
                                        -1,
                                        -1};

    return sizes[b - 0xc0];
}

/* Skip a variable-size payload (bin, ext, str) whose type byte b was
 * consumed: length field, ext type byte, payload (*n bytes). */
static int skip_sized(ts_wire_cursor *c, unsigned char b, size_t at, uint64_t *n, ts_error *err)
{
    size_t width;
    size_t extra = 0;
    int rc;

    if (b >= 0xd9)
        width = (size_t)1 << (b - 0xd9); /* str8/16/32 */
    else if (b <= 0xc6)
        width = (size_t)1 << (b - 0xc4); /* bin8/16/32 */
    else {
        width = (size_t)1 << (b - 0xc7); /* ext8/16/32, then one type byte */
        extra = 1;
    }
    rc = read_uint(c, width, "a length", n, err);
    if (rc < 0)
        return rc;
    if (ts_wire_cursor_left(c) < extra || ts_wire_cursor_left(c) - extra < *n)
        return truncated(c, at, "a value", err);
    c->p += extra + *n;
    return 0;
}

/*
 * Walk one value, iteratively: pending counts the values still to walk at
 * each open container level (maps count keys and values). With cost, what
 * ts_wire_decode builds for it is added there as it goes: each map, array,
 * str and scalar at what json-c allocates for it (lib/json's prices), a
 * str in a key's place as a key.
 */
static int walk(ts_wire_cursor *c, int max_depth, size_t *cost, ts_error *err)
{
    uint64_t pending[TS_WIRE_MAX_DEPTH + 1];
    bool map[TS_WIRE_MAX_DEPTH + 1];
    int depth = 0;

    if (max_depth <= 0 || max_depth > TS_WIRE_MAX_DEPTH)
        max_depth = TS_WIRE_MAX_DEPTH;
    pending[0] = 1;
    map[0] = false;
    for (;;) {
        size_t at = ts_wire_cursor_offset(c);
        uint32_t count = 0;
        uint64_t n;
        bool key;
        unsigned char b;
        int rc;

        while (pending[depth] == 0) {
            if (depth == 0)
                return 0;
            depth--;
        }
        /* in a map, keys come at even counts left (2n, 2n-2, ...) */
        key = map[depth] && pending[depth] % 2 == 0;
        pending[depth]--;
        if (c->p >= c->end)
            return truncated(c, at, "a value", err);
        b = *c->p;
        if (b <= 0x7f || b >= 0xe0) {
            c->p++;
            if (cost != NULL)
                *cost += TS_JSON_COST_SCALAR;
            continue;
        }
        if (b <= 0x9f || (b >= 0xdc && b <= 0xdf)) {
            bool is_map = b <= 0x8f || b >= 0xde;
            rc = container(c, is_map ? TS_WIRE_KIND_MAP : TS_WIRE_KIND_ARRAY, &count, err);
            if (rc < 0)
                return rc;
            if (depth + 1 > max_depth)
                return ts_error_set(err, -E2BIG, TS_ERR_LIMIT,
                                    "value nested deeper than %d levels at byte %zu", max_depth,
                                    at);
            pending[++depth] = is_map ? 2 * (uint64_t)count : count;
            map[depth] = is_map;
            /* each member takes at least one byte: a count past the bytes
             * left is truncated now, not after a long walk */
            if (pending[depth] > ts_wire_cursor_left(c))
                return truncated(c, at, is_map ? "a map" : "an array", err);
            if (cost != NULL)
                *cost += is_map ? ts_json_cost_object(count) : ts_json_cost_array_sized(count);
            continue;
        }
        c->p++;
        if (b <= 0xbf) {
            n = b & 0x1f;
            if (ts_wire_cursor_left(c) < n)
                return truncated(c, at, "a str", err);
            c->p += n;
        } else {
            int size = scalar_size(b);

            if (size == -2)
                return ts_error_set(err, -EBADMSG, TS_ERR_BAD_FRAME,
                                    "byte 0xc1 at byte %zu is never used in msgpack", at);
            if (size < 0) {
                rc = skip_sized(c, b, at, &n, err);
                if (rc < 0)
                    return rc;
            } else {
                if (ts_wire_cursor_left(c) < (size_t)size)
                    return truncated(c, at, "a value", err);
                c->p += size;
            }
        }
        if (cost == NULL || b == 0xc0) /* json-c's null is no allocation */
            continue;
        if (b <= 0xbf || b >= 0xd9) /* str: fixstr, str8/16/32 */
            *cost += key ? ts_json_cost_key((size_t)n) : ts_json_cost_string((size_t)n);
        else
            *cost += TS_JSON_COST_SCALAR;
    }
}

int ts_wire_cursor_skip(ts_wire_cursor *c, int max_depth, ts_error *err)
{
    return walk(c, max_depth, NULL, err);
}

int ts_wire_price(const void *data, size_t len, int max_depth, size_t *cost, ts_error *err)
{
    ts_wire_cursor c;

    ts_wire_cursor_init(&c, data, len);
    *cost = 0;
    return walk(&c, max_depth, cost, err);
}
