/*
 * ts_frame — frame headers and the incremental frame reader (see ts_proto.h).
 */
#include "proto/ts_proto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* First allocation for a payload; later growth doubles, capped at need. */
#define TS_FRAME_FIRST_CHUNK 4096

void ts_frame_put_header(unsigned char out[TS_FRAME_HEADER_SIZE], uint32_t len)
{
    out[0] = (unsigned char)(len >> 24);
    out[1] = (unsigned char)(len >> 16);
    out[2] = (unsigned char)(len >> 8);
    out[3] = (unsigned char)len;
}

uint32_t ts_frame_get_header(const unsigned char in[TS_FRAME_HEADER_SIZE])
{
    return ((uint32_t)in[0] << 24) | ((uint32_t)in[1] << 16) | ((uint32_t)in[2] << 8) |
           (uint32_t)in[3];
}

int ts_frame_check_length(uint32_t len, size_t max, ts_error *err)
{
    if (len == 0)
        return ts_error_set(err, -EBADMSG, TS_ERR_BAD_FRAME,
                            "frame announces an empty payload (length 0)");
    if ((size_t)len > max)
        return ts_error_set(err, -EMSGSIZE, TS_ERR_FRAME_TOO_LARGE,
                            "frame of %lu bytes exceeds the maximum frame size of %zu bytes",
                            (unsigned long)len, max);
    return 0;
}

void ts_frame_reader_init(ts_frame_reader *r, size_t max)
{
    memset(r, 0, sizeof(*r));
    r->max = max ? max : TS_FRAME_DEFAULT_MAX;
    if (r->max > TS_FRAME_LIMIT_MAX)
        r->max = TS_FRAME_LIMIT_MAX;
}

/* Back to waiting for a header, forgetting (not freeing) the payload; max
 * and a sticky failure stay. */
static void reader_restart(ts_frame_reader *r)
{
    r->payload = NULL;
    r->cap = 0;
    r->have = 0;
    r->need = 0;
    r->header_len = 0;
    r->ready = 0;
}

void ts_frame_reader_free(ts_frame_reader *r)
{
    free(r->payload);
    reader_restart(r);
}

int ts_frame_reader_partial(const ts_frame_reader *r)
{
    return r->header_len > 0 && !r->ready;
}

/* Make room for the next n payload bytes (n <= need - have). */
static int reader_grow(ts_frame_reader *r, size_t n, ts_error *err)
{
    size_t want = r->have + n + 1; /* + the NUL handed out with the payload */
    size_t cap = r->cap;
    unsigned char *p;

    if (want <= cap)
        return 0;
    if (cap < TS_FRAME_FIRST_CHUNK)
        cap = TS_FRAME_FIRST_CHUNK;
    while (cap < want)
        cap *= 2;
    if (cap > r->need + 1)
        cap = r->need + 1;
    p = realloc(r->payload, cap);
    if (p == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "cannot allocate %zu bytes for a frame",
                            cap);
    r->payload = p;
    r->cap = cap;
    return 0;
}

static int reader_fail(ts_frame_reader *r, int rc)
{
    r->failed = rc;
    return rc;
}

/* Consume header bytes; once complete, validate the announced length. */
static int reader_header(ts_frame_reader *r, const unsigned char *p, size_t len, size_t *used,
                         ts_error *err)
{
    size_t n = TS_FRAME_HEADER_SIZE - r->header_len;
    uint32_t announced;
    int rc;

    if (n > len)
        n = len;
    memcpy(r->header + r->header_len, p, n);
    r->header_len += n;
    *used = n;
    if (r->header_len < TS_FRAME_HEADER_SIZE)
        return 0;
    announced = ts_frame_get_header(r->header);
    rc = ts_frame_check_length(announced, r->max, err);
    if (rc < 0)
        return reader_fail(r, rc);
    r->need = announced;
    r->have = 0;
    return 0;
}

int ts_frame_reader_feed(ts_frame_reader *r, const void *data, size_t len, size_t *consumed,
                         ts_error *err)
{
    const unsigned char *p = data;
    size_t used = 0;
    size_t n;
    int rc;

    *consumed = 0;
    if (r->failed < 0)
        return ts_error_set(err, r->failed,
                            r->failed == -EMSGSIZE ? TS_ERR_FRAME_TOO_LARGE : TS_ERR_BAD_FRAME,
                            "the frame stream is already broken");
    if (r->ready)
        return ts_error_set(err, -EBUSY, TS_ERR_INTERNAL,
                            "a complete frame must be taken before feeding more bytes");
    while (used < len) {
        if (r->header_len < TS_FRAME_HEADER_SIZE) {
            rc = reader_header(r, p + used, len - used, &n, err);
            used += n;
            *consumed = used;
            if (rc < 0)
                return rc;
            continue;
        }
        n = r->need - r->have;
        if (n > len - used)
            n = len - used;
        rc = reader_grow(r, n, err);
        if (rc < 0)
            return reader_fail(r, rc);
        memcpy(r->payload + r->have, p + used, n);
        r->have += n;
        used += n;
        *consumed = used;
        if (r->have == r->need) {
            r->ready = 1;
            return 1;
        }
    }
    return 0;
}

unsigned char *ts_frame_reader_take(ts_frame_reader *r, size_t *len)
{
    unsigned char *payload;

    if (!r->ready)
        return NULL;
    payload = r->payload;
    payload[r->have] = '\0';
    if (len != NULL)
        *len = r->have;
    reader_restart(r);
    return payload;
}
