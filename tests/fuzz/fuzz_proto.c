/*
 * fuzz_proto — arbitrary bytes as a client's (or server's) byte stream:
 * the frame reader is fed them in chunks whose sizes come from the input
 * itself; every complete payload is decoded as a msgpack value, a request and
 * a reply. Checked for every input:
 *   - the reader never hands out more than its maximum, and once failed it
 *     stays failed with the same code;
 *   - a refused payload gives a code and a one-line message;
 *   - a decoded value, request or ok reply re-encodes and decodes back to an
 *     equal one (value, id, method, params, result).
 *
 * Input: byte 0 picks the chunk pattern and byte 1 the reader's maximum
 * (small maxima reach the too-large path); the rest is the stream.
 */
#include <string.h>

#include "fuzz.h"
#include "fuzz_common.h"
#include "lib/base/ts_base.h"
#include "proto/ts_proto.h"

static void fuzz_check_err(const ts_error *err, const char *what)
{
    FUZZ_CHECK(err->code[0] != '\0' && err->message[0] != '\0', "%s: empty error", what);
    FUZZ_CHECK(strchr(err->message, '\n') == NULL, "%s: message not one line: %s", what,
               err->message);
}

/* Decode one frame (header + payload) made by an encoder. */
static unsigned char *fuzz_unframe(const ts_buf *frame, size_t *len)
{
    ts_frame_reader r;
    unsigned char *payload;
    size_t used = 0;
    ts_error err;
    int rc;

    ts_frame_reader_init(&r, 0);
    rc = ts_frame_reader_feed(&r, frame->data, frame->len, &used, &err);
    FUZZ_CHECK(rc == 1 && used == frame->len, "an encoded frame does not read back (rc %d)", rc);
    payload = ts_frame_reader_take(&r, len);
    FUZZ_CHECK(payload != NULL, "no payload");
    ts_frame_reader_free(&r);
    return payload;
}

static void fuzz_value(const unsigned char *p, size_t n)
{
    struct json_object *v = NULL, *back = NULL;
    ts_error err;
    ts_buf b;
    int rc;

    rc = ts_wire_decode(p, n, 0, &v, &err);
    if (rc < 0) {
        fuzz_check_err(&err, "ts_wire_decode");
        return;
    }
    ts_buf_init(&b, TS_FRAME_DEFAULT_MAX * 2);
    rc = ts_wire_encode(v, &b, &err);
    FUZZ_CHECK(rc == 0, "re-encoding a decoded value failed: %s", err.message);
    rc = ts_wire_decode(b.data, b.len, 0, &back, &err);
    FUZZ_CHECK(rc == 0, "re-encoded value does not decode: %s", err.message);
    FUZZ_CHECK(json_object_equal(v, back), "value changed in a round trip");
    json_object_put(back);
    json_object_put(v);
    ts_buf_free(&b);
}

static void fuzz_request(const unsigned char *p, size_t n)
{
    ts_request req, back;
    unsigned char *payload;
    size_t len;
    ts_error err;
    ts_buf b;
    int rc;

    rc = ts_message_decode_request(p, n, &req, &err);
    if (rc < 0) {
        fuzz_check_err(&err, "ts_message_decode_request");
        ts_request_free(&req);
        return;
    }
    FUZZ_CHECK(req.has_id && req.method != NULL, "request without id or method");
    FUZZ_CHECK(json_object_is_type(req.params, json_type_object), "params not an object");
    ts_buf_init(&b, TS_FRAME_DEFAULT_MAX * 2);
    rc = ts_message_encode_request(&b, req.id, req.method, req.params, 0, &err);
    FUZZ_CHECK(rc == 0, "re-encoding a request failed: %s", err.message);
    payload = fuzz_unframe(&b, &len);
    rc = ts_message_decode_request(payload, len, &back, &err);
    FUZZ_CHECK(rc == 0, "re-encoded request does not decode: %s", err.message);
    FUZZ_CHECK(back.id == req.id && strcmp(back.method, req.method) == 0 &&
                   json_object_equal(back.params, req.params),
               "request changed in a round trip");
    (void)ts_message_check_hello(req.params, &err);
    ts_request_free(&back);
    ts_request_free(&req);
    free(payload);
    ts_buf_free(&b);
}

/*
 * The daemon's way in: params' "actual" kept as bytes, decoded afterwards.
 * Whatever the full decode accepts comes out equal; whatever it refuses is
 * refused in one of the two steps; the cursor's skip never reads outside
 * the payload (the extent it finds is that of the full decode).
 */
/* The daemon's choice: check's observed calls. */
static const char *raw_actual(const char *method)
{
    return strcmp(method, "check") == 0 ? "actual" : NULL;
}

static void fuzz_request_raw(const unsigned char *p, size_t n)
{
    ts_request full, raw;
    ts_error err;
    ts_wire_cursor c;
    struct json_object *v = NULL;
    size_t used = 0;
    int rc_full = ts_message_decode_request(p, n, &full, &err);
    int rc_raw = ts_message_decode_request_raw(p, n, raw_actual, &raw, &err);

    if (rc_raw == 0 && raw.raw.found)
        rc_raw = ts_message_expand_raw(&raw, raw.params, &err);
    if (rc_raw < 0)
        fuzz_check_err(&err, "ts_message_decode_request_raw");
    FUZZ_CHECK((rc_full < 0) == (rc_raw < 0), "full decode %d, kept-aside decode %d", rc_full,
               rc_raw);
    if (rc_full == 0)
        FUZZ_CHECK(json_object_equal(full.params, raw.params), "params differ");
    ts_request_free(&full);
    ts_request_free(&raw);

    ts_wire_cursor_init(&c, p, n);
    if (ts_wire_cursor_skip(&c, 0, &err) < 0)
        fuzz_check_err(&err, "ts_wire_cursor_skip");
    if (ts_wire_decode_prefix(p, n, 0, &v, &used, &err) == 0) {
        FUZZ_CHECK(ts_wire_cursor_offset(&c) == used, "skip and decode disagree on the extent");
        json_object_put(v);
    }
}

static void fuzz_reply(const unsigned char *p, size_t n)
{
    ts_reply reply, back;
    unsigned char *payload;
    size_t len;
    ts_error err;
    ts_buf b;
    int rc;

    memset(&reply, 0, sizeof(reply));
    rc = ts_message_decode_reply(p, n, &reply, &err);
    if (rc < 0) {
        fuzz_check_err(&err, "ts_message_decode_reply");
        ts_reply_free(&reply);
        return;
    }
    FUZZ_CHECK(reply.ok || reply.error.code[0] != '\0', "error reply decoded with an empty code");
    ts_buf_init(&b, TS_FRAME_DEFAULT_MAX * 2);
    if (reply.ok) {
        FUZZ_CHECK(reply.has_id, "ok reply without id");
        rc = ts_message_encode_result(&b, reply.id, reply.result, 0, &err);
    } else {
        rc = ts_message_encode_error(&b, reply.has_id ? &reply.id : NULL, reply.error.code,
                                     reply.error.message, &err);
    }
    FUZZ_CHECK(rc == 0, "re-encoding a reply failed: %s", err.message);
    payload = fuzz_unframe(&b, &len);
    memset(&back, 0, sizeof(back));
    rc = ts_message_decode_reply(payload, len, &back, &err);
    FUZZ_CHECK(rc == 0, "re-encoded reply does not decode: %s", err.message);
    FUZZ_CHECK(back.ok == reply.ok && back.has_id == reply.has_id &&
                   (!reply.has_id || back.id == reply.id),
               "reply envelope changed in a round trip");
    if (reply.ok)
        FUZZ_CHECK(json_object_equal(back.result, reply.result), "result changed");
    else
        FUZZ_CHECK(strcmp(back.error.code, reply.error.code) == 0, "error code changed");
    ts_reply_free(&back);
    ts_reply_free(&reply);
    free(payload);
    ts_buf_free(&b);
}

int ts_fuzz_proto(const uint8_t *data, size_t size)
{
    static const size_t chunks[] = {1, 2, 3, 4, 5, 7, 64, (size_t)-1};
    ts_frame_reader r;
    size_t chunk, max, pos = 2;
    int failed = 0;
    ts_error err;

    if (size < 2)
        return 0;
    chunk = chunks[data[0] % (sizeof(chunks) / sizeof(chunks[0]))];
    max = data[1] < 128 ? (size_t)data[1] * 16 + 1 : 0;
    ts_frame_reader_init(&r, max);
    if (max == 0)
        max = TS_FRAME_DEFAULT_MAX;
    while (pos < size) {
        size_t n = size - pos < chunk ? size - pos : chunk;
        size_t used = 0;
        int rc = ts_frame_reader_feed(&r, data + pos, n, &used, &err);

        FUZZ_CHECK(used <= n, "consumed more than given");
        if (rc < 0) {
            fuzz_check_err(&err, "ts_frame_reader_feed");
            FUZZ_CHECK(failed == 0 || failed == rc, "error code changed from %d to %d", failed, rc);
            FUZZ_CHECK(ts_frame_reader_feed(&r, data + pos, n, &used, &err) == rc,
                       "a failed reader recovered");
            failed = rc;
            break;
        }
        pos += used;
        if (rc == 1) {
            size_t len = 0;
            unsigned char *payload = ts_frame_reader_take(&r, &len);

            FUZZ_CHECK(payload != NULL && len > 0 && len <= max, "payload of %zu bytes", len);
            fuzz_value(payload, len);
            fuzz_request(payload, len);
            fuzz_request_raw(payload, len);
            fuzz_reply(payload, len);
            free(payload);
        } else {
            FUZZ_CHECK(used == n, "partial consumption without a frame");
        }
    }
    (void)ts_frame_reader_partial(&r);
    ts_frame_reader_free(&r);
    return 0;
}

#ifdef TS_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return ts_fuzz_proto(data, size);
}
#endif
