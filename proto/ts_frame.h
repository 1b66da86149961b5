/*
 * ts_frame — the framing layer of the toolscored protocol.
 *
 * A frame is a 4-byte unsigned big-endian payload length N (1 <= N <= max)
 * followed by N payload bytes holding one msgpack value (docs/protocol.md).
 * This module writes frame headers and owns an incremental frame reader: it
 * accepts bytes in chunks of any size (one byte at a time or many frames at
 * once), refuses a header announcing more than the maximum before any payload
 * is buffered, and hands out each complete payload to the caller.
 *
 * The reader grows its payload buffer as bytes arrive (never allocating the
 * announced length up front), so a peer that announces 16 MiB and sends
 * nothing costs nothing.
 *
 *   ts_frame_reader r;
 *   ts_frame_reader_init(&r, TS_FRAME_DEFAULT_MAX);
 *   while (len > 0) {
 *       size_t used;
 *       int rc = ts_frame_reader_feed(&r, p, len, &used, &err);
 *       p += used, len -= used;
 *       if (rc < 0) ...close the connection...;
 *       if (rc == 1) { payload = ts_frame_reader_take(&r, &n); ...; free(payload); }
 *   }
 *   ts_frame_reader_free(&r);
 */
#ifndef TS_FRAME_H
#define TS_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/ts_error.h"

#define TS_FRAME_HEADER_SIZE 4
#define TS_FRAME_DEFAULT_MAX ((size_t)16 << 20) /* 16 MiB of payload */
#define TS_FRAME_LIMIT_MAX ((size_t)UINT32_MAX) /* largest max a header can express */

/* Stable wire error codes of the framing layer. */
#define TS_ERR_BAD_FRAME "bad_frame"             /* not a well-formed frame/value */
#define TS_ERR_FRAME_TOO_LARGE "frame_too_large" /* announced length over the max */

/* Write the header for a payload of len bytes into out[0..4). */
void ts_frame_put_header(unsigned char out[TS_FRAME_HEADER_SIZE], uint32_t len);

/* Read the payload length from a 4-byte header. */
uint32_t ts_frame_get_header(const unsigned char in[TS_FRAME_HEADER_SIZE]);

/*
 * Check an announced payload length against max: 0 is "bad_frame" (-EBADMSG),
 * over max is "frame_too_large" (-EMSGSIZE, the message names both numbers).
 */
int ts_frame_check_length(uint32_t len, size_t max, ts_error *err);

typedef struct ts_frame_reader {
    size_t max;                                 /* largest payload accepted */
    unsigned char header[TS_FRAME_HEADER_SIZE]; /* header bytes seen so far */
    size_t header_len;                          /* 0..4 */
    size_t need;                                /* payload length, once the header is read */
    unsigned char *payload;                     /* owned, grows as bytes arrive */
    size_t have;                                /* payload bytes received */
    size_t cap;                                 /* payload bytes allocated */
    int failed;                                 /* sticky error (negative) or 0 */
    int ready;                                  /* a complete payload waits to be taken */
} ts_frame_reader;

/* Prepare r for a stream; max 0 means TS_FRAME_DEFAULT_MAX. */
void ts_frame_reader_init(ts_frame_reader *r, size_t max);

/*
 * Feed up to len bytes of the stream. Consumes bytes only up to the end of the
 * current frame and sets *consumed to the count used; the caller feeds the
 * rest after taking the payload. Returns:
 *    1  a complete payload is ready: take it with ts_frame_reader_take()
 *       before feeding more (feeding first returns -EBUSY);
 *    0  all bytes consumed, more are needed;
 *   <0  the stream is broken ("frame_too_large" -EMSGSIZE, "bad_frame"
 *       -EBADMSG for a zero length, "no_memory" -ENOMEM); the reader stays
 *       failed and returns the same code on every later feed.
 */
int ts_frame_reader_feed(ts_frame_reader *r, const void *data, size_t len, size_t *consumed,
                         ts_error *err);

/*
 * Take the ready payload: returns a malloc'ed buffer the caller frees (with a
 * NUL byte after the len bytes, not counted), or NULL when none is ready.
 * The reader then waits for the next frame's header.
 */
unsigned char *ts_frame_reader_take(ts_frame_reader *r, size_t *len);

/* True when the reader holds a partial frame (bytes of a header or payload):
 * an end of stream now means the peer sent a truncated frame. */
int ts_frame_reader_partial(const ts_frame_reader *r);

/* Release the buffers; r may be initialized again. */
void ts_frame_reader_free(ts_frame_reader *r);

#endif
