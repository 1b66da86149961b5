/*
 * ts_reply_view — an ok reply read in place (see ts_proto.h).
 */
#include "proto/ts_proto.h"

#include <string.h>

enum { SEEN_ID = 1, SEEN_OK = 2, SEEN_RESULT = 4 };

/* An id as the encoders write it: a positive fixint or uint 8/16/32/64. */
static bool read_id(ts_wire_cursor *c, uint64_t *id)
{
    unsigned char b;
    size_t n;
    uint64_t v = 0;

    if (c->p >= c->end)
        return false;
    b = *c->p;
    if (b <= 0x7f) {
        c->p++;
        *id = b;
        return true;
    }
    if (b < 0xcc || b > 0xcf)
        return false;
    n = (size_t)1 << (b - 0xcc);
    if ((size_t)(c->end - c->p) < 1 + n)
        return false;
    for (size_t i = 1; i <= n; i++)
        v = (v << 8) | c->p[i];
    c->p += 1 + n;
    *id = v;
    return true;
}

/* One envelope member whose key is key[0..len); last when no member
 * follows it. */
static bool member(ts_wire_cursor *c, const char *key, size_t len, bool last, unsigned *seen,
                   ts_reply_view *out)
{
    const unsigned char *at;
    bool ok = false;

    if (len == 2 && memcmp(key, "id", 2) == 0) {
        if (*seen & SEEN_ID)
            return false;
        *seen |= SEEN_ID;
        return read_id(c, &out->id);
    }
    if (len == 2 && memcmp(key, "ok", 2) == 0) {
        if (*seen & SEEN_OK)
            return false;
        *seen |= SEEN_OK;
        return ts_wire_cursor_bool(c, &ok, NULL) == 0 && ok;
    }
    at = c->p;
    if (len == 6 && memcmp(key, "result", 6) == 0) {
        if (*seen & SEEN_RESULT)
            return false;
        *seen |= SEEN_RESULT;
        if (last) {
            /* the usual place: the rest of the payload, which the reader
             * walks anyway (and must find to be exactly one value) */
            c->p = c->end;
        } else if (ts_wire_cursor_skip(c, 0, NULL) < 0) {
            return false;
        }
        out->result = at;
        out->result_len = (size_t)(c->p - at);
        return true;
    }
    return ts_wire_cursor_skip(c, 0, NULL) == 0;
}

bool ts_reply_view_ok(const void *payload, size_t len, ts_reply_view *out)
{
    ts_wire_cursor c;
    uint32_t count;
    unsigned seen = 0;

    memset(out, 0, sizeof(*out));
    ts_wire_cursor_init(&c, payload, len);
    if (ts_wire_cursor_map(&c, &count, NULL) < 0)
        return false;
    for (uint32_t i = 0; i < count; i++) {
        const char *key;
        size_t klen;

        if (ts_wire_cursor_str(&c, &key, &klen, NULL) < 0 ||
            !member(&c, key, klen, i + 1 == count, &seen, out))
            return false;
    }
    return seen == (SEEN_ID | SEEN_OK | SEEN_RESULT) && ts_wire_cursor_left(&c) == 0;
}
