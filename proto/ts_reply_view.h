/*
 * ts_reply_view — an ok reply read in place, without json-c values.
 *
 * The common reply, {"id": uint, "ok": true, "result": value} (keys in any
 * order, unknown keys skipped), is checked with the msgpack cursor
 * (ts_wire_cursor.h) and its result located as bytes inside the payload,
 * for a caller that reads a few members of the result where they lie.
 *
 * This is a fast path, not a second envelope decoder: anything else (an
 * error reply, an id nil or written as a signed int, a duplicate envelope
 * key, a malformed payload) is refused without a reason, and the caller
 * decodes the payload with ts_message_decode_reply, which tells what it is
 * and produces the same errors for every reply. Values skipped here
 * (unknown envelope keys) are checked for their structure only (lengths,
 * nesting, byte 0xc1), as ts_wire_cursor_skip does.
 */
#ifndef TS_REPLY_VIEW_H
#define TS_REPLY_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ts_reply_view {
    uint64_t id;
    const unsigned char *result; /* the result value's bytes, inside the payload */
    size_t result_len;
} ts_reply_view;

/*
 * True when payload[0..len) is a well-formed ok reply with an unsigned id,
 * filling *out (whose result points into payload). False otherwise: decode
 * the payload with ts_message_decode_reply.
 *
 * The result is not walked twice: when it is the envelope's last member
 * (where every encoder here writes it), it is not skipped but taken to run
 * to the end of the payload, so the caller, which reads it anyway, must
 * read exactly one value from result[0..result_len) and refuse the reply
 * when bytes are left after it. Elsewhere in the envelope it is skipped and
 * result_len is its exact size.
 */
bool ts_reply_view_ok(const void *payload, size_t len, ts_reply_view *out);

#endif
