/*
 * ts_wire — msgpack <-> json-c conversion with the protocol's rules
 * (see ts_wire.h).
 */
#include "ts_wire.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ts_frame.h"
#include "ts_json.h"
#include "ts_wire_cursor.h"

/* ---- UTF-8 ---------------------------------------------------------- */

/* Length of the UTF-8 sequence starting at s[0..len), or 0 if invalid. */
static size_t utf8_sequence(const unsigned char *s, size_t len)
{
    unsigned char c = s[0];
    size_t n;
    size_t i;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4;
    else
        return 0;
    if (len < n)
        return 0;
    for (i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if (c == 0xe0 && s[1] < 0xa0) /* overlong */
        return 0;
    if (c == 0xed && s[1] >= 0xa0) /* surrogates */
        return 0;
    if (c == 0xf0 && s[1] < 0x90) /* overlong */
        return 0;
    if (c == 0xf4 && s[1] >= 0x90) /* above U+10FFFF */
        return 0;
    return n;
}

/* The same rules as the JSON reader's: one definition of valid UTF-8. */
bool ts_wire_utf8_valid(const char *s, size_t len)
{
    return ts_utf8_valid(s, len);
}

void ts_wire_excerpt(const char *s, char *out, size_t outsz)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s);
    size_t room; /* bytes of s that may be copied (the output has as many) */
    size_t o = 0;

    if (outsz < 4) {
        if (outsz > 0)
            out[0] = '\0';
        return;
    }
    room = len <= outsz - 1 ? len : outsz - 4; /* leave room for "..." */
    while (o < len) {
        size_t n = utf8_sequence(p + o, len - o);
        if (n == 0)
            n = 1; /* an invalid byte, shown as '?' */
        if (o + n > room)
            break;
        if (n == 1 && (p[o] < 0x20 || p[o] >= 0x7f))
            out[o] = '?';
        else
            memcpy(out + o, p + o, n);
        o += n;
    }
    if (o < len) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
}

/* ---- decoding ------------------------------------------------------- */

typedef struct decoder {
    const unsigned char *start;
    const unsigned char *p;
    const unsigned char *end;
    int max_depth;
    ts_wire_raw_member *raw; /* a top-level member kept as bytes, or NULL */
    bool raw_skip_failed;    /* its value's structure was broken */
    ts_error *err;
} decoder;

static size_t dec_offset(const decoder *d)
{
    return (size_t)(d->p - d->start);
}

static size_t dec_left(const decoder *d)
{
    return (size_t)(d->end - d->p);
}

static int dec_truncated(decoder *d, const char *what)
{
    return ts_error_set(d->err, -EBADMSG, TS_ERR_BAD_FRAME,
                        "truncated msgpack value: %s at byte %zu needs more bytes than the %zu "
                        "left",
                        what, dec_offset(d), dec_left(d));
}

/* Read an n-byte big-endian unsigned number (n = 1, 2, 4, 8). */
static int dec_uint(decoder *d, size_t n, const char *what, uint64_t *out)
{
    uint64_t v = 0;
    size_t i;

    if (dec_left(d) < n)
        return dec_truncated(d, what);
    for (i = 0; i < n; i++)
        v = (v << 8) | d->p[i];
    d->p += n;
    *out = v;
    return 0;
}

static int dec_new(decoder *d, struct json_object *v, struct json_object **out)
{
    if (v == NULL)
        return ts_error_set(d->err, -ENOMEM, TS_ERR_NO_MEMORY, "cannot allocate a value");
    *out = v;
    return 0;
}

static int dec_signed(decoder *d, size_t n, struct json_object **out)
{
    uint64_t u;
    int64_t v;
    int rc = dec_uint(d, n, "an int", &u);

    if (rc < 0)
        return rc;
    if (n == 1)
        v = (int8_t)u;
    else if (n == 2)
        v = (int16_t)u;
    else if (n == 4)
        v = (int32_t)u;
    else
        v = (int64_t)u;
    return dec_new(d, json_object_new_int64(v), out);
}

static int dec_unsigned(decoder *d, size_t n, struct json_object **out)
{
    uint64_t u;
    int rc = dec_uint(d, n, "a uint", &u);

    if (rc < 0)
        return rc;
    if (u > (uint64_t)INT64_MAX)
        return dec_new(d, json_object_new_uint64(u), out);
    return dec_new(d, json_object_new_int64((int64_t)u), out);
}

static int dec_float(decoder *d, size_t n, struct json_object **out)
{
    size_t at = dec_offset(d);
    uint64_t u;
    double v;
    int rc = dec_uint(d, n, "a float", &u);

    if (rc < 0)
        return rc;
    if (n == 4) {
        uint32_t u32 = (uint32_t)u;
        float f;
        memcpy(&f, &u32, sizeof(f));
        v = f;
    } else {
        memcpy(&v, &u, sizeof(v));
    }
    if (!isfinite(v))
        return ts_error_set(d->err, -EINVAL, TS_ERR_BAD_REQUEST,
                            "float at byte %zu is NaN or infinite, which JSON cannot hold",
                            at > 0 ? at - 1 : 0);
    return dec_new(d, json_object_new_double(v), out);
}

/* Point *s at a string body of len bytes and check it is UTF-8. */
static int dec_str_body(decoder *d, uint64_t len, const char **s)
{
    size_t at = dec_offset(d);

    if (dec_left(d) < len)
        return dec_truncated(d, "a str");
    if (len > INT32_MAX)
        return ts_error_set(d->err, -E2BIG, TS_ERR_TOO_LARGE, "str at byte %zu is over 2 GiB", at);
    *s = (const char *)d->p;
    if (!ts_wire_utf8_valid(*s, (size_t)len))
        return ts_error_set(d->err, -EINVAL, TS_ERR_BAD_REQUEST,
                            "str at byte %zu is not valid UTF-8", at);
    d->p += len;
    return 0;
}

/* For a type byte b just read: 1 and the length of a str (its length field
 * consumed), 0 if b is not a str type, or a negative error. */
static int dec_str_header(decoder *d, unsigned char b, uint64_t *len)
{
    int rc;

    if (b >= 0xa0 && b <= 0xbf) {
        *len = b & 0x1f;
        return 1;
    }
    if (b == 0xd9)
        rc = dec_uint(d, 1, "a str8 length", len);
    else if (b == 0xda)
        rc = dec_uint(d, 2, "a str16 length", len);
    else if (b == 0xdb)
        rc = dec_uint(d, 4, "a str32 length", len);
    else
        return 0;
    return rc < 0 ? rc : 1;
}

static int dec_value(decoder *d, int depth, struct json_object **out);

static int dec_depth(decoder *d, int depth, size_t at)
{
    if (depth + 1 > d->max_depth)
        return ts_error_set(d->err, -E2BIG, TS_ERR_LIMIT,
                            "value nested deeper than %d levels at byte %zu", d->max_depth, at);
    return 0;
}

static int dec_array(decoder *d, uint64_t count, int depth, size_t at, struct json_object **out)
{
    struct json_object *arr;
    struct json_object *item;
    uint64_t i;
    int rc = dec_depth(d, depth, at);

    if (rc < 0)
        return rc;
    if (count > dec_left(d)) /* every element takes at least one byte */
        return ts_error_set(d->err, -EBADMSG, TS_ERR_BAD_FRAME,
                            "array at byte %zu announces %llu elements but only %zu bytes follow",
                            at, (unsigned long long)count, dec_left(d));
    if (count > INT32_MAX)
        return ts_error_set(d->err, -E2BIG, TS_ERR_TOO_LARGE,
                            "array at byte %zu announces too many elements", at);
    arr = json_object_new_array_ext(count > 0 ? (int)count : 1);
    if (arr == NULL)
        return ts_error_set(d->err, -ENOMEM, TS_ERR_NO_MEMORY, "cannot allocate an array");
    for (i = 0; i < count; i++) {
        rc = dec_value(d, depth + 1, &item);
        if (rc < 0)
            goto fail;
        if (json_object_array_add(arr, item) < 0) {
            json_object_put(item);
            rc = ts_error_set(d->err, -ENOMEM, TS_ERR_NO_MEMORY, "cannot grow an array");
            goto fail;
        }
    }
    *out = arr;
    return 0;
fail:
    json_object_put(arr);
    return rc;
}

/* Read one map key (a str without NUL bytes) into a fresh NUL-terminated
 * string. */
/* Release a key from dec_key (heap or inline) and clear it. */
static void dec_key_free(const char *inline_key, char **key)
{
    if (*key != inline_key)
        free(*key);
    *key = NULL;
}

/* Keys up to this many bytes are copied to the caller's buffer instead of
 * the heap (json-c copies the key again when it is added). */
#define DEC_KEY_INLINE 64

static int dec_key(decoder *d, struct json_object *map, char inline_key[DEC_KEY_INLINE], char **key)
{
    size_t at = dec_offset(d);
    uint64_t len = 0;
    const char *s;
    unsigned char b;
    int rc;

    if (dec_left(d) < 1)
        return dec_truncated(d, "a map key");
    b = *d->p++;
    rc = dec_str_header(d, b, &len);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return ts_error_set(d->err, -EINVAL, TS_ERR_BAD_REQUEST,
                            "map key at byte %zu is not a string (type byte 0x%02x)", at, b);
    rc = dec_str_body(d, len, &s);
    if (rc < 0)
        return rc;
    if (memchr(s, '\0', (size_t)len) != NULL)
        return ts_error_set(d->err, -EINVAL, TS_ERR_BAD_REQUEST,
                            "map key at byte %zu contains a NUL byte", at);
    if (len < DEC_KEY_INLINE) {
        memcpy(inline_key, s, (size_t)len);
        inline_key[len] = '\0';
        *key = inline_key;
    } else {
        *key = strndup(s, (size_t)len);
        if (*key == NULL)
            return ts_error_set(d->err, -ENOMEM, TS_ERR_NO_MEMORY, "cannot allocate a key");
    }
    if (json_object_object_get_ex(map, *key, NULL)) {
        char shown[104];
        ts_wire_excerpt(*key, shown, sizeof(shown));
        rc = ts_error_set(d->err, -EINVAL, TS_ERR_BAD_REQUEST,
                          "duplicate map key \"%s\" at byte %zu", shown, at);
        dec_key_free(inline_key, key);
        return rc;
    }
    return 0;
}

/*
 * The value of the top-level member d->raw->key, just after its key: its
 * extent only (ts_wire_cursor_skip), remembered in d->raw. A second member
 * of that key is a duplicate, as in any map.
 */
static int dec_raw_member(decoder *d, const char *key, size_t key_at)
{
    size_t at = dec_offset(d);
    ts_wire_cursor c;
    int rc;

    if (d->raw->found) {
        char shown[104];
        ts_wire_excerpt(key, shown, sizeof(shown));
        return ts_error_set(d->err, -EINVAL, TS_ERR_BAD_REQUEST,
                            "duplicate map key \"%s\" at byte %zu", shown, key_at);
    }
    c.start = d->start;
    c.p = d->p;
    c.end = d->end;
    rc = ts_wire_cursor_skip(&c, d->max_depth - 1, d->err);
    if (rc < 0) {
        d->raw_skip_failed = true;
        return rc;
    }
    d->raw->found = true;
    d->raw->at = at;
    d->raw->len = ts_wire_cursor_offset(&c) - at;
    d->p = c.p;
    return 0;
}

static int dec_map(decoder *d, uint64_t count, int depth, size_t at, struct json_object **out)
{
    struct json_object *map;
    struct json_object *value;
    char inline_key[DEC_KEY_INLINE];
    char *key = NULL;
    uint64_t i;
    int rc = dec_depth(d, depth, at);

    if (rc < 0)
        return rc;
    if (count > dec_left(d) / 2) /* every pair takes at least two bytes */
        return ts_error_set(d->err, -EBADMSG, TS_ERR_BAD_FRAME,
                            "map at byte %zu announces %llu pairs but only %zu bytes follow", at,
                            (unsigned long long)count, dec_left(d));
    map = json_object_new_object();
    if (map == NULL)
        return ts_error_set(d->err, -ENOMEM, TS_ERR_NO_MEMORY, "cannot allocate a map");
    for (i = 0; i < count; i++) {
        size_t key_at = dec_offset(d);
        rc = dec_key(d, map, inline_key, &key);
        if (rc < 0)
            goto fail;
        if (depth == 0 && d->raw != NULL && strcmp(key, d->raw->key) == 0) {
            rc = dec_raw_member(d, key, key_at);
            if (rc < 0)
                goto fail;
            dec_key_free(inline_key, &key);
            continue;
        }
        rc = dec_value(d, depth + 1, &value);
        if (rc < 0)
            goto fail;
        if (json_object_object_add_ex(map, key, value, JSON_C_OBJECT_ADD_KEY_IS_NEW) < 0) {
            json_object_put(value);
            rc = ts_error_set(d->err, -ENOMEM, TS_ERR_NO_MEMORY, "cannot grow a map");
            goto fail;
        }
        dec_key_free(inline_key, &key);
    }
    *out = map;
    return 0;
fail:
    dec_key_free(inline_key, &key);
    json_object_put(map);
    return rc;
}

static int dec_refused(decoder *d, const char *what, size_t at)
{
    return ts_error_set(d->err, -EINVAL, TS_ERR_BAD_REQUEST,
                        "%s at byte %zu is not allowed (values follow the JSON data model)", what,
                        at);
}

/* Containers and strings with explicit length fields. */
static int dec_sized(decoder *d, unsigned char b, int depth, size_t at, struct json_object **out)
{
    static const size_t width[] = {2, 4};
    uint64_t count;
    int rc;

    if (b == 0xdc || b == 0xdd) {
        rc = dec_uint(d, width[b - 0xdc], "an array length", &count);
        return rc < 0 ? rc : dec_array(d, count, depth, at, out);
    }
    rc = dec_uint(d, width[b - 0xde], "a map length", &count);
    return rc < 0 ? rc : dec_map(d, count, depth, at, out);
}

static int dec_string(decoder *d, uint64_t len, struct json_object **out)
{
    const char *s;
    int rc = dec_str_body(d, len, &s);

    if (rc < 0)
        return rc;
    return dec_new(d, json_object_new_string_len(s, (int)len), out);
}

static int dec_value(decoder *d, int depth, struct json_object **out)
{
    size_t at = dec_offset(d);
    uint64_t len;
    unsigned char b;
    int rc;

    if (dec_left(d) < 1)
        return dec_truncated(d, "a value");
    b = *d->p++;
    *out = NULL;
    if (b <= 0x7f)
        return dec_new(d, json_object_new_int64(b), out);
    if (b >= 0xe0)
        return dec_new(d, json_object_new_int64((int8_t)b), out);
    if (b <= 0x8f)
        return dec_map(d, b & 0x0f, depth, at, out);
    if (b <= 0x9f)
        return dec_array(d, b & 0x0f, depth, at, out);
    rc = dec_str_header(d, b, &len);
    if (rc < 0)
        return rc;
    if (rc > 0)
        return dec_string(d, len, out);
    switch (b) {
    case 0xc0:
        return 0; /* nil: the NULL value */
    case 0xc2:
        return dec_new(d, json_object_new_boolean(0), out);
    case 0xc3:
        return dec_new(d, json_object_new_boolean(1), out);
    case 0xc4:
    case 0xc5:
    case 0xc6:
        return dec_refused(d, "bin", at);
    case 0xc7:
    case 0xc8:
    case 0xc9:
    case 0xd4:
    case 0xd5:
    case 0xd6:
    case 0xd7:
    case 0xd8:
        return dec_refused(d, "ext", at);
    case 0xca:
        return dec_float(d, 4, out);
    case 0xcb:
        return dec_float(d, 8, out);
    case 0xcc:
        return dec_unsigned(d, 1, out);
    case 0xcd:
        return dec_unsigned(d, 2, out);
    case 0xce:
        return dec_unsigned(d, 4, out);
    case 0xcf:
        return dec_unsigned(d, 8, out);
    case 0xd0:
        return dec_signed(d, 1, out);
    case 0xd1:
        return dec_signed(d, 2, out);
    case 0xd2:
        return dec_signed(d, 4, out);
    case 0xd3:
        return dec_signed(d, 8, out);
    case 0xdc:
    case 0xdd:
    case 0xde:
    case 0xdf:
        return dec_sized(d, b, depth, at, out);
    default: /* 0xc1 */
        return ts_error_set(d->err, -EBADMSG, TS_ERR_BAD_FRAME,
                            "byte 0x%02x at byte %zu is not a msgpack type", b, at);
    }
}

static void dec_init(decoder *d, const void *data, size_t len, int max_depth, ts_error *err)
{
    d->start = data;
    d->p = data;
    d->end = d->start + len;
    d->max_depth = max_depth > 0 ? max_depth : TS_WIRE_MAX_DEPTH;
    d->raw = NULL;
    d->raw_skip_failed = false;
    d->err = err;
}

int ts_wire_decode_prefix(const void *data, size_t len, int max_depth, struct json_object **out,
                          size_t *used, ts_error *err)
{
    return ts_wire_decode_prefix_raw(data, len, max_depth, NULL, out, used, err);
}

int ts_wire_decode_prefix_raw(const void *data, size_t len, int max_depth, ts_wire_raw_member *raw,
                              struct json_object **out, size_t *used, ts_error *err)
{
    decoder d;
    struct json_object *v = NULL;
    int rc;

    dec_init(&d, data, len, max_depth, err);
    if (raw != NULL)
        raw->found = false;
    if (raw != NULL && d.max_depth > 1)
        d.raw = raw;
    rc = dec_value(&d, 0, &v);
    if (rc < 0 && d.raw_skip_failed) {
        /* Broken bytes inside the member: the full decode names the error
         * exactly as it would without the member kept aside. */
        raw->found = false;
        return ts_wire_decode_prefix_raw(data, len, max_depth, NULL, out, used, err);
    }
    if (rc < 0)
        return rc;
    *used = dec_offset(&d);
    *out = v;
    return 0;
}

int ts_wire_decode_member(const void *data, const ts_wire_raw_member *raw, int max_depth,
                          struct json_object **out, ts_error *err)
{
    decoder d;
    struct json_object *v = NULL;
    int rc;

    /* the member's value sits one container (the map) below the top */
    dec_init(&d, data, raw->at + raw->len, max_depth, err);
    d.p += raw->at;
    rc = dec_value(&d, 1, &v);
    if (rc < 0)
        return rc;
    *out = v;
    return 0;
}

int ts_wire_decode(const void *data, size_t len, int max_depth, struct json_object **out,
                   ts_error *err)
{
    struct json_object *v = NULL;
    size_t used = 0;
    int rc;

    if (len == 0)
        return ts_error_set(err, -EBADMSG, TS_ERR_BAD_FRAME, "empty payload: no msgpack value");
    rc = ts_wire_decode_prefix(data, len, max_depth, &v, &used, err);
    if (rc < 0)
        return rc;
    if (used != len) {
        json_object_put(v);
        return ts_error_set(err, -EBADMSG, TS_ERR_BAD_FRAME,
                            "%zu unexpected bytes after the msgpack value (a frame holds exactly "
                            "one value)",
                            len - used);
    }
    *out = v;
    return 0;
}

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
    msgpack_packer_init(&w->pk, w, writer_append);
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

static int writer_status(ts_wire_writer *w, ts_error *err)
{
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

/*
 * A str, header and body. The usual one (short, the buffer has room) is
 * written in place; anything else goes through put_container/put_bytes.
 */
static int pack_string(ts_wire_writer *w, const char *s, size_t len, const char *what,
                       ts_error *err)
{
    ts_buf *b = w->out;

    if (!all_ascii(s, len) && !ts_wire_utf8_valid(s, len))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "%s is not valid UTF-8 and cannot be sent", what);
    if (len < 256 && w->rc == 0 && len + 2 < b->cap - b->len && len + 2 <= b->max - b->len) {
        unsigned char *p = (unsigned char *)b->data + b->len;
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
    put_container(w, len, 0xa0, 32, 0xd9, 0xda, 0xdb);
    put_bytes(w, s, len);
    return writer_status(w, err);
}

static int pack_int(ts_wire_writer *w, const struct json_object *v, ts_error *err)
{
    int64_t i = json_object_get_int64(v);

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

    if (!isfinite(d))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "NaN or infinite number cannot be sent (JSON has none)");
    memcpy(&bits, &d, sizeof(bits));
    put_typed(w, 0xcb, bits, 8);
    return writer_status(w, err);
}

static int pack_depth(int depth, ts_error *err)
{
    if (depth + 1 > TS_WIRE_MAX_DEPTH)
        return ts_error_set(err, -E2BIG, TS_ERR_LIMIT, "value nested deeper than %d levels",
                            TS_WIRE_MAX_DEPTH);
    return 0;
}

static int pack_object(ts_wire_writer *w, const struct json_object *v, int depth, ts_error *err)
{
    int rc = pack_depth(depth, err);

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
    int rc = pack_depth(depth, err);

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
    put_bytes(w, bytes, len);
    return writer_status(w, err);
}

int ts_wire_pack_nil(ts_wire_writer *w, ts_error *err)
{
    put_byte(w, 0xc0);
    return writer_status(w, err);
}

int ts_wire_pack_bool(ts_wire_writer *w, bool b, ts_error *err)
{
    put_byte(w, b ? 0xc3 : 0xc2);
    return writer_status(w, err);
}

int ts_wire_pack_int(ts_wire_writer *w, int64_t i, ts_error *err)
{
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
    put_container(w, n, 0x80, 16, 0, 0xde, 0xdf);
    return writer_status(w, err);
}

int ts_wire_pack_array(ts_wire_writer *w, size_t n, ts_error *err)
{
    put_container(w, n, 0x90, 16, 0, 0xdc, 0xdd);
    return writer_status(w, err);
}

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
    return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "unknown value type");
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
