/*
 * ts_wire_pack — json-c values -> msgpack with the protocol's rules (see
 * ts_proto.h): the encoding half of ts_wire.
 */
#include "proto/ts_proto.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- encoding ------------------------------------------------------- */

/*
 * Bytes go straight into the writer's buffer: values are small and many (a
 * check's calls are a few hundred tokens), so a header costs one bounds
 * check and a store rather than a call through msgpack-c's write callback.
 * The encodings are msgpack-c's own (smallest forms; the str8 type; floats
 * as float64), byte for byte: the protocol's examples and test_proto's
 * expected bytes hold them, and msgpack-c's packer on w->pk may still be
 * mixed in (it appends through writer_append, in order).
 */
static int writer_append(void *data, const char *buf, size_t len)
{
    ts_wire_writer *w = data;
    int rc;

    if (w->rc < 0)
        return -1;
    rc = ts_buf_append(w->out, buf, len);
    if (rc < 0) {
        w->rc = rc;
        return -1;
    }
    return 0;
}

void ts_wire_writer_init(ts_wire_writer *w, ts_buf *out)
{
    w->out = out;
    w->rc = 0;
    w->max_depth = TS_WIRE_MAX_DEPTH;
    msgpack_packer_init(&w->pk, w, writer_append);
}

int ts_wire_writer_error(const ts_wire_writer *w)
{
    return w->rc;
}

/* A value that cannot be sent (rc from ts_error_set): the writer's first
 * failure, kept. */
static int refuse(ts_wire_writer *w, int rc)
{
    if (w->rc == 0)
        w->rc = rc;
    return w->rc;
}

/* Room for n more bytes at the end of the buffer, or NULL (w->rc set). */
static unsigned char *writer_room(ts_wire_writer *w, size_t n)
{
    ts_buf *b = w->out;
    int rc;

    if (w->rc < 0)
        return NULL;
    if (n >= b->cap - b->len || n > b->max - b->len) {
        rc = ts_buf_reserve(b, n);
        if (rc < 0) {
            w->rc = rc;
            return NULL;
        }
    }
    return (unsigned char *)b->data + b->len;
}

static void writer_done(ts_wire_writer *w, size_t n)
{
    w->out->len += n;
    w->out->data[w->out->len] = '\0';
}

static void put_bytes(ts_wire_writer *w, const void *data, size_t n)
{
    unsigned char *p = writer_room(w, n);

    if (p != NULL) {
        memcpy(p, data, n);
        writer_done(w, n);
    }
}

/* A type byte followed by v as a width-byte big-endian number. */
static void put_typed(ts_wire_writer *w, unsigned char type, uint64_t v, size_t width)
{
    unsigned char *p = writer_room(w, 1 + width);

    if (p == NULL)
        return;
    p[0] = type;
    for (size_t i = 0; i < width; i++)
        p[1 + i] = (unsigned char)(v >> (8 * (width - 1 - i)));
    writer_done(w, 1 + width);
}

static void put_byte(ts_wire_writer *w, unsigned char b)
{
    put_typed(w, b, 0, 0);
}

static void put_uint(ts_wire_writer *w, uint64_t u)
{
    if (u < 128)
        put_byte(w, (unsigned char)u);
    else if (u < 256)
        put_typed(w, 0xcc, u, 1);
    else if (u < 65536)
        put_typed(w, 0xcd, u, 2);
    else if (u <= UINT32_MAX)
        put_typed(w, 0xce, u, 4);
    else
        put_typed(w, 0xcf, u, 8);
}

/* A signed int as msgpack-c packs an int64: positive forms for i >= 0. */
static void put_int(ts_wire_writer *w, int64_t i)
{
    if (i >= 0)
        put_uint(w, (uint64_t)i);
    else if (i >= -32)
        put_byte(w, (unsigned char)(uint64_t)i);
    else if (i >= INT8_MIN)
        put_typed(w, 0xd0, (uint64_t)i, 1);
    else if (i >= INT16_MIN)
        put_typed(w, 0xd1, (uint64_t)i, 2);
    else if (i >= INT32_MIN)
        put_typed(w, 0xd2, (uint64_t)i, 4);
    else
        put_typed(w, 0xd3, (uint64_t)i, 8);
}

/* Smallest header of a str, array or map of n members. */
static void put_container(ts_wire_writer *w, size_t n, unsigned char fix, size_t fix_max,
                          unsigned char t8, unsigned char t16, unsigned char t32)
{
    if (n < fix_max)
        put_byte(w, (unsigned char)(fix | n));
    else if (t8 != 0 && n < 256)
        put_typed(w, t8, n, 1);
    else if (n < 65536)
        put_typed(w, t16, n, 2);
    else
        put_typed(w, t32, n, 4);
}

/* After bytes were put: 0, or the buffer's failure (w->rc, set by this very
 * call: every public packer returns at once once w->rc is set) in err. */
static int writer_status(ts_wire_writer *w, ts_error *err)
{
    if (w->rc == 0)
        return 0;
    if (w->rc == -E2BIG)
        return ts_error_set(err, -E2BIG, TS_ERR_TOO_LARGE,
                            "encoded value exceeds the limit of %zu bytes", w->out->max);
    if (w->rc < 0)
        return ts_error_set(err, w->rc, TS_ERR_NO_MEMORY, "cannot allocate the encoded value");
    return 0;
}

/* True when s[0..len) is all ASCII (then valid UTF-8 at once). */
static bool all_ascii(const char *s, size_t len)
{
    unsigned char high = 0;

    for (size_t i = 0; i < len; i++)
        high |= (unsigned char)s[i];
    return high < 0x80;
}

/* A string that is not valid UTF-8: refused, unless the writer failed
 * before (then nothing is touched). Out of the hot path. */
static __attribute__((noinline, cold)) int string_refused(ts_wire_writer *w, const char *what,
                                                          ts_error *err)
{
    if (w->rc < 0)
        return w->rc;
    return refuse(w, ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                                  "%s is not valid UTF-8 and cannot be sent", what));
}

/* A string the fast path does not take: long, no room yet, or after a
 * failure. */
static __attribute__((noinline)) int string_slow(ts_wire_writer *w, const char *s, size_t len,
                                                 ts_error *err)
{
    if (w->rc < 0)
        return w->rc;
    put_container(w, len, 0xa0, 32, 0xd9, 0xda, 0xdb);
    put_bytes(w, s, len);
    return writer_status(w, err);
}

/*
 * A str, header and body. The usual one (short, valid, the buffer has room,
 * no failure yet) is written in place; anything else goes the slow way.
 */
static int pack_string(ts_wire_writer *w, const char *s, size_t len, const char *what,
                       ts_error *err)
{
    ts_buf *b = w->out;
    unsigned char *p;

    if (!all_ascii(s, len) && !ts_utf8_valid(s, len))
        return string_refused(w, what, err);
    if (len >= 256 || w->rc != 0 || len + 2 >= b->cap - b->len || len + 2 > b->max - b->len)
        return string_slow(w, s, len, err);
    p = (unsigned char *)b->data + b->len;
    if (len < 32) {
        *p++ = (unsigned char)(0xa0 | len);
    } else {
        *p++ = 0xd9;
        *p++ = (unsigned char)len;
    }
    memcpy(p, s, len);
    p += len;
    *p = '\0';
    b->len = (size_t)((char *)p - b->data);
    return 0;
}

static int pack_int(ts_wire_writer *w, const struct json_object *v, ts_error *err)
{
    int64_t i = json_object_get_int64(v);

    if (w->rc < 0)
        return w->rc;
    /* json-c clamps a uint64 above INT64_MAX to INT64_MAX when read as int64 */
    if (i == INT64_MAX)
        put_uint(w, json_object_get_uint64(v));
    else
        put_int(w, i);
    return writer_status(w, err);
}

static int pack_double(ts_wire_writer *w, double d, ts_error *err)
{
    uint64_t bits;

    if (w->rc < 0)
        return w->rc;
    if (!isfinite(d))
        return refuse(w, ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                                      "NaN or infinite number cannot be sent (JSON has none)"));
    memcpy(&bits, &d, sizeof(bits));
    put_typed(w, 0xcb, bits, 8);
    return writer_status(w, err);
}

static int pack_depth(ts_wire_writer *w, int depth, ts_error *err)
{
    if (depth + 1 > w->max_depth)
        return refuse(w, ts_error_set(err, -E2BIG, TS_ERR_LIMIT,
                                      "value nested deeper than %d levels", w->max_depth));
    return 0;
}

static int pack_object(ts_wire_writer *w, const struct json_object *v, int depth, ts_error *err)
{
    int rc = w->rc < 0 ? w->rc : pack_depth(w, depth, err);

    if (rc < 0)
        return rc;
    put_container(w, (size_t)json_object_object_length(v), 0x80, 16, 0, 0xde, 0xdf);
    rc = writer_status(w, err);
    if (rc < 0)
        return rc;
    return ts_wire_pack_members(w, v, depth, err);
}

int ts_wire_pack_members(ts_wire_writer *w, const struct json_object *obj, int depth, ts_error *err)
{
    int rc;

    if (w->rc < 0)
        return w->rc;
    json_object_object_foreach((struct json_object *)obj, key, child)
    {
        rc = pack_string(w, key, strlen(key), "a key", err);
        if (rc < 0)
            return rc;
        rc = ts_wire_pack(w, child, depth + 1, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int pack_array(ts_wire_writer *w, const struct json_object *v, int depth, ts_error *err)
{
    size_t n = json_object_array_length(v);
    size_t i;
    int rc = w->rc < 0 ? w->rc : pack_depth(w, depth, err);

    if (rc < 0)
        return rc;
    put_container(w, n, 0x90, 16, 0, 0xdc, 0xdd);
    rc = writer_status(w, err);
    for (i = 0; i < n && rc == 0; i++)
        rc = ts_wire_pack(w, json_object_array_get_idx(v, i), depth + 1, err);
    return rc;
}

int ts_wire_pack_packed(ts_wire_writer *w, const void *bytes, size_t len, ts_error *err)
{
    if (w->rc < 0)
        return w->rc;
    put_bytes(w, bytes, len);
    return writer_status(w, err);
}

int ts_wire_pack_nil(ts_wire_writer *w, ts_error *err)
{
    if (w->rc < 0)
        return w->rc;
    put_byte(w, 0xc0);
    return writer_status(w, err);
}

int ts_wire_pack_bool(ts_wire_writer *w, bool b, ts_error *err)
{
    if (w->rc < 0)
        return w->rc;
    put_byte(w, b ? 0xc3 : 0xc2);
    return writer_status(w, err);
}

int ts_wire_pack_int(ts_wire_writer *w, int64_t i, ts_error *err)
{
    if (w->rc < 0)
        return w->rc;
    put_int(w, i);
    return writer_status(w, err);
}

int ts_wire_pack_double(ts_wire_writer *w, double d, ts_error *err)
{
    return pack_double(w, d, err);
}

int ts_wire_pack_str(ts_wire_writer *w, const char *s, size_t len, ts_error *err)
{
    return pack_string(w, s, len, "a string", err);
}

int ts_wire_pack_map(ts_wire_writer *w, size_t n, ts_error *err)
{
    if (w->rc < 0)
        return w->rc;
    put_container(w, n, 0x80, 16, 0, 0xde, 0xdf);
    return writer_status(w, err);
}

int ts_wire_pack_array(ts_wire_writer *w, size_t n, ts_error *err)
{
    if (w->rc < 0)
        return w->rc;
    put_container(w, n, 0x90, 16, 0, 0xdc, 0xdd);
    return writer_status(w, err);
}

/* Every branch returns at once after an earlier failure (the packers
 * check w->rc before touching err). */
int ts_wire_pack(ts_wire_writer *w, const struct json_object *v, int depth, ts_error *err)
{
    switch (json_object_get_type(v)) {
    case json_type_null:
        return ts_wire_pack_nil(w, err);
    case json_type_boolean:
        return ts_wire_pack_bool(w, json_object_get_boolean(v), err);
    case json_type_int:
        return pack_int(w, v, err);
    case json_type_double:
        return pack_double(w, json_object_get_double(v), err);
    case json_type_string:
        return pack_string(w, json_object_get_string((struct json_object *)v),
                           (size_t)json_object_get_string_len(v), "a string", err);
    case json_type_object:
        return pack_object(w, v, depth, err);
    case json_type_array:
        return pack_array(w, v, depth, err);
    }
    if (w->rc < 0)
        return w->rc;
    return refuse(w, ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "unknown value type"));
}

int ts_wire_encode(const struct json_object *v, ts_buf *out, ts_error *err)
{
    ts_wire_writer w;
    size_t mark = out->len;
    int rc;

    ts_wire_writer_init(&w, out);
    rc = ts_wire_pack(&w, v, 0, err);
    if (rc < 0 && out->data != NULL && out->len >= mark)
        out->len = mark; /* drop the partial value, keep what was there */
    return rc;
}
