/*
 * ts_wire — msgpack -> json-c conversion with the protocol's rules, and
 * UTF-8 helpers (see ts_proto.h; the encoding half is ts_wire_pack.c).
 */
#include "proto/ts_proto.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"
#include "lib/base/ts_base.h"

/* ---- UTF-8 ---------------------------------------------------------- */

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
        uint32_t cp;
        size_t n = ts_utf8_decode(p + o, len - o, &cp);
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
