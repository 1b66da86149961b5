/*
 * ts_message — encoding and decoding protocol messages (see ts_proto.h).
 */
#include "proto/ts_proto.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* ---- encoding ------------------------------------------------------- */

#define FIRST_ROOM 2000 /* bytes a frame being built starts with */

typedef struct frame_builder {
    ts_buf buf;
    ts_wire_writer w;
    size_t max_frame;
} frame_builder;

static void builder_start(frame_builder *b, size_t max_frame)
{
    static const unsigned char zero[TS_FRAME_HEADER_SIZE] = {0};

    b->max_frame = max_frame ? max_frame : TS_FRAME_DEFAULT_MAX;
    if (b->max_frame > TS_FRAME_LIMIT_MAX)
        b->max_frame = TS_FRAME_LIMIT_MAX;
    ts_buf_init(&b->buf, TS_FRAME_HEADER_SIZE + b->max_frame);
    /* most messages fit at once: one allocation instead of several doublings */
    if (b->max_frame >= FIRST_ROOM)
        ts_buf_reserve(&b->buf, FIRST_ROOM);
    ts_buf_append(&b->buf, zero, sizeof(zero)); /* header, patched at the end */
    ts_wire_writer_init(&b->w, &b->buf);
}

/* 0, or the frame's failure in err: the buffer's own (too large, out of
 * memory) said for the frame, a value's as its packer said it. */
static int builder_status(frame_builder *b, const char *what, ts_error *err)
{
    int rc = ts_buf_error(&b->buf);

    if (rc == -E2BIG)
        return ts_error_set(err, -E2BIG, TS_ERR_TOO_LARGE,
                            "%s exceeds the maximum frame size of %zu bytes", what, b->max_frame);
    if (rc < 0)
        return ts_error_set(err, rc, TS_ERR_NO_MEMORY, "cannot allocate the %s", what);
    return ts_wire_writer_error(&b->w);
}

static void builder_key(frame_builder *b, const char *key)
{
    size_t len = strlen(key);

    msgpack_pack_str(&b->w.pk, len);
    msgpack_pack_str_body(&b->w.pk, key, len);
}

/* Patch the header and append the frame to out; always frees b. */
static int builder_finish(frame_builder *b, ts_buf *out, const char *what, ts_error *err)
{
    int rc = builder_status(b, what, err);

    if (rc == 0) {
        ts_frame_put_header((unsigned char *)b->buf.data,
                            (uint32_t)(b->buf.len - TS_FRAME_HEADER_SIZE));
        rc = ts_buf_append(out, b->buf.data, b->buf.len);
        if (rc < 0)
            rc = ts_error_set(err, rc, rc == -E2BIG ? TS_ERR_TOO_LARGE : TS_ERR_NO_MEMORY,
                              "no room for the %s in the output buffer", what);
    }
    ts_buf_free(&b->buf);
    return rc;
}

int ts_message_encode_request(ts_buf *out, uint64_t id, const char *method,
                              const struct json_object *params, size_t max_frame, ts_error *err)
{
    return ts_message_encode_request_with(out, id, method, params, NULL, NULL, max_frame, err);
}

/* The params map: params' members, then key: value when key is set. */
static void builder_params(frame_builder *b, const struct json_object *params, const char *key,
                           const struct json_object *value, ts_error *err)
{
    if (key == NULL) {
        ts_wire_pack(&b->w, params, 1, err);
        return;
    }
    ts_wire_pack_map(&b->w, (size_t)json_object_object_length(params) + 1, err);
    ts_wire_pack_members(&b->w, params, 1, err);
    ts_wire_pack_str(&b->w, key, strlen(key), err);
    ts_wire_pack(&b->w, value, 2, err);
}

int ts_message_encode_request_with(ts_buf *out, uint64_t id, const char *method,
                                   const struct json_object *params, const char *key,
                                   const struct json_object *value, size_t max_frame, ts_error *err)
{
    frame_builder b;
    struct json_object *empty = NULL;
    int rc;

    if (method == NULL || method[0] == '\0' || strlen(method) > TS_METHOD_MAX)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "method name must be 1 to %d bytes", TS_METHOD_MAX);
    if (params != NULL && !json_object_is_type(params, json_type_object))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "params of %s must be an object",
                            method);
    if (params == NULL) {
        empty = json_object_new_object();
        if (empty == NULL)
            return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "cannot allocate params");
        params = empty;
    }
    if (key != NULL && json_object_object_get_ex(params, key, NULL))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "params already have a member '%s'", key);
    builder_start(&b, max_frame);
    msgpack_pack_map(&b.w.pk, 3);
    builder_key(&b, "id");
    msgpack_pack_uint64(&b.w.pk, id);
    builder_key(&b, "method");
    msgpack_pack_str(&b.w.pk, strlen(method));
    msgpack_pack_str_body(&b.w.pk, method, strlen(method));
    builder_key(&b, "params");
    builder_params(&b, params, key, value, err);
    json_object_put(empty);
    rc = builder_status(&b, "request", err);
    if (rc < 0) {
        ts_buf_free(&b.buf);
        return rc;
    }
    return builder_finish(&b, out, "request", err);
}

/* The packer of a result given as a json-c tree. */
static int pack_tree(ts_wire_writer *w, void *arg, ts_error *err)
{
    return ts_wire_pack(w, arg, 1, err);
}

int ts_message_encode_result(ts_buf *out, uint64_t id, const struct json_object *result,
                             size_t max_frame, ts_error *err)
{
    /* ts_wire_pack only reads the tree */
    return ts_message_encode_result_with(out, id, pack_tree, (struct json_object *)result,
                                         max_frame, err);
}

int ts_message_encode_result_with(ts_buf *out, uint64_t id, ts_message_packer pack, void *arg,
                                  size_t max_frame, ts_error *err)
{
    frame_builder b;
    int rc;

    builder_start(&b, max_frame);
    b.w.max_depth = TS_WIRE_REPLY_MAX_DEPTH;
    msgpack_pack_map(&b.w.pk, 3);
    builder_key(&b, "id");
    msgpack_pack_uint64(&b.w.pk, id);
    builder_key(&b, "ok");
    msgpack_pack_true(&b.w.pk);
    builder_key(&b, "result");
    rc = pack(&b.w, arg, err);
    if (rc == 0 || ts_buf_error(&b.buf) < 0)
        rc = builder_status(&b, "reply", err);
    if (rc < 0) {
        ts_buf_free(&b.buf);
        return rc;
    }
    return builder_finish(&b, out, "reply", err);
}

int ts_message_pack_score_result(ts_wire_writer *w, const ts_score_result *r, int depth,
                                 ts_error *err)
{
    ts_wire_pack_map(w, ts_score_key_count, err);
    for (size_t i = 0; i < ts_score_key_count; i++) {
        const ts_score_key *k = &ts_score_keys[i];
        const void *m = ts_score_member(r, k);
        const struct json_object *list;

        ts_wire_pack_str(w, k->name, strlen(k->name), err);
        switch (k->type) {
        case TS_SCORE_DOUBLE:
            ts_wire_pack_double(w, *(const double *)m, err);
            break;
        case TS_SCORE_INT:
            ts_wire_pack_int(w, *(const int64_t *)m, err);
            break;
        case TS_SCORE_GRADE:
            ts_wire_pack_str(w, (const char *)m, *(const char *)m != '\0', err);
            break;
        case TS_SCORE_BOOL:
            ts_wire_pack_bool(w, *(const bool *)m, err);
            break;
        case TS_SCORE_TOOLS:
            list = *(struct json_object *const *)m;
            if (list == NULL)
                ts_wire_pack_array(w, 0, err);
            else
                ts_wire_pack(w, list, depth + 1, err);
            break;
        }
    }
    return ts_wire_writer_error(w);
}

static int encode_error(ts_buf *out, const uint64_t *id, const char *code, const char *message,
                        const char *socket, ts_error *err);

int ts_message_encode_error(ts_buf *out, const uint64_t *id, const char *code, const char *message,
                            ts_error *err)
{
    return encode_error(out, id, code, message, NULL, err);
}

int ts_message_encode_error_socket(ts_buf *out, const uint64_t *id, const char *code,
                                   const char *message, const char *socket, ts_error *err)
{
    return encode_error(out, id, code, message, socket, err);
}

static int encode_error(ts_buf *out, const uint64_t *id, const char *code, const char *message,
                        const char *socket, ts_error *err)
{
    char clean_code[64];
    char clean_message[TS_ERROR_MESSAGE_MAX];
    frame_builder b;

    /* one printable line of valid UTF-8, whatever went into the message */
    ts_wire_excerpt(code && code[0] ? code : TS_ERR_INTERNAL, clean_code, sizeof(clean_code));
    ts_wire_excerpt(message ? message : "", clean_message, sizeof(clean_message));
    builder_start(&b, TS_FRAME_DEFAULT_MAX);
    msgpack_pack_map(&b.w.pk, 3);
    builder_key(&b, "id");
    if (id != NULL)
        msgpack_pack_uint64(&b.w.pk, *id);
    else
        msgpack_pack_nil(&b.w.pk);
    builder_key(&b, "ok");
    msgpack_pack_false(&b.w.pk);
    builder_key(&b, "error");
    msgpack_pack_map(&b.w.pk, socket != NULL ? 3 : 2);
    builder_key(&b, "code");
    builder_key(&b, clean_code);
    builder_key(&b, "message");
    builder_key(&b, clean_message);
    if (socket != NULL) {
        builder_key(&b, "socket");
        builder_key(&b, socket);
    }
    return builder_finish(&b, out, "error reply", err);
}

/* ---- decoding requests ---------------------------------------------- */

static const char *type_name(const struct json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null:
        return "nil";
    case json_type_boolean:
        return "a boolean";
    case json_type_int:
        return "an integer";
    case json_type_double:
        return "a float";
    case json_type_string:
        return "a string";
    case json_type_object:
        return "a map";
    case json_type_array:
        return "an array";
    }
    return "an unknown type";
}

/* Read a top-level map header: 1 and *count if the value is a map, 0 if it
 * is something else (nothing consumed), negative when truncated. */
static int read_map_header(const unsigned char *p, size_t len, uint64_t *count, size_t *used,
                           ts_error *err)
{
    size_t width;
    size_t i;

    if (len == 0)
        return ts_error_set(err, -EBADMSG, TS_ERR_BAD_FRAME, "empty payload: no msgpack value");
    if (p[0] >= 0x80 && p[0] <= 0x8f) {
        *count = p[0] & 0x0f;
        *used = 1;
        return 1;
    }
    if (p[0] != 0xde && p[0] != 0xdf)
        return 0;
    width = p[0] == 0xde ? 2 : 4;
    if (len < 1 + width)
        return ts_error_set(err, -EBADMSG, TS_ERR_BAD_FRAME,
                            "truncated msgpack value: map length at byte 1");
    *count = 0;
    for (i = 0; i < width; i++)
        *count = (*count << 8) | p[1 + i];
    *used = 1 + width;
    return 1;
}

#define shape_error(err, ...) ts_error_set(err, -EINVAL, TS_ERR_BAD_REQUEST, __VA_ARGS__)

/* Read an id value: a non-negative integer. */
static int read_id(const struct json_object *v, uint64_t *id)
{
    if (!json_object_is_type(v, json_type_int))
        return -EINVAL;
    if (json_object_get_int64(v) < 0)
        return -EINVAL;
    *id = json_object_get_uint64(v);
    return 0;
}

static int request_field(ts_request *req, const char *key, struct json_object *value,
                         unsigned *seen, ts_error *err)
{
    static const char *const keys[] = {"id", "method", "params"};
    char shown[68];
    unsigned i;

    for (i = 0; i < 3; i++) {
        if (strcmp(key, keys[i]) != 0)
            continue;
        if (*seen & (1u << i))
            return ts_error_set(err, -EINVAL, TS_ERR_BAD_REQUEST, "duplicate key \"%s\" in request",
                                key);
        *seen |= 1u << i;
    }
    if (strcmp(key, "id") == 0) {
        if (read_id(value, &req->id) < 0)
            return shape_error(err, "request id must be a non-negative integer, got %s",
                               type_name(value));
        req->has_id = true;
        return 0;
    }
    if (strcmp(key, "method") == 0) {
        if (!json_object_is_type(value, json_type_string))
            return shape_error(err, "request method must be a string, got %s", type_name(value));
        if (json_object_get_string_len(value) == 0 ||
            json_object_get_string_len(value) > TS_METHOD_MAX ||
            memchr(json_object_get_string(value), '\0',
                   (size_t)json_object_get_string_len(value)) != NULL)
            return shape_error(err, "request method %s", "must be 1 to 64 bytes without NUL");
        req->method = strdup(json_object_get_string(value));
        if (req->method == NULL)
            return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "cannot allocate the method");
        return 0;
    }
    if (strcmp(key, "params") == 0) {
        if (value == NULL)
            return 0; /* nil = {} */
        if (!json_object_is_type(value, json_type_object))
            return shape_error(err, "request params must be a map, got %s", type_name(value));
        req->params = json_object_get(value);
        return 0;
    }
    ts_wire_excerpt(key, shown, sizeof(shown));
    return ts_error_set(err, -EINVAL, TS_ERR_BAD_REQUEST,
                        "unknown request key \"%s\" (allowed: id, method, params)", shown);
}

/*
 * A depth error of a value decoded under the envelope (the member decoders
 * count from the member), said in the request's terms: its own map is the
 * first of its TS_WIRE_MAX_DEPTH levels, and bytes count from the payload
 * (base: where the member's bytes start). Other errors pass as they are.
 */
static int request_depth_error(ts_error *err, int rc, size_t base)
{
    const char *at;
    unsigned long long n;

    if (rc != -E2BIG || err == NULL || strcmp(err->code, TS_ERR_LIMIT) != 0)
        return rc;
    at = strstr(err->message, " at byte ");
    if (at != NULL && sscanf(at, " at byte %llu", &n) == 1)
        return ts_error_set(err, rc, TS_ERR_LIMIT,
                            "request nested deeper than %d levels (its own map is the first) at "
                            "byte %llu",
                            TS_WIRE_MAX_DEPTH, n + (unsigned long long)base);
    return ts_error_set(err, rc, TS_ERR_LIMIT,
                        "request nested deeper than %d levels (its own map is the first)",
                        TS_WIRE_MAX_DEPTH);
}

/* Decode one key/value pair of the envelope at payload[*pos..len). */
static int request_pair(ts_request *req, const unsigned char *payload, size_t len, size_t *pos,
                        unsigned *seen, ts_message_raw_choice choose, ts_error *err)
{
    ts_wire_raw_member *raw = NULL;
    struct json_object *key = NULL;
    struct json_object *value = NULL;
    size_t used = 0;
    int rc;

    rc = ts_wire_decode_prefix(payload + *pos, len - *pos, 1, &key, &used, err);
    if (rc < 0)
        return rc == -E2BIG ? shape_error(err, "request keys must be %s", "strings") : rc;
    *pos += used;
    if (!json_object_is_type(key, json_type_string)) {
        rc = shape_error(err, "request keys must be strings, got %s", type_name(key));
        goto out;
    }
    /* The method's member is left as bytes when the method came first (the
     * order clients send); params before the method are decoded whole. */
    if (choose != NULL && req->method != NULL &&
        strcmp(json_object_get_string(key), "params") == 0 && !(*seen & 4u)) {
        req->raw.key = choose(req->method);
        raw = req->raw.key != NULL ? &req->raw : NULL;
    }
    rc = ts_wire_decode_prefix_raw(payload + *pos, len - *pos, TS_WIRE_MAX_DEPTH - 1, raw, &value,
                                   &used, err);
    if (rc < 0) {
        rc = request_depth_error(err, rc, *pos);
        goto out;
    }
    if (raw != NULL) {
        req->raw_data = payload + *pos;
        req->raw_base = *pos;
    }
    *pos += used;
    rc = request_field(req, json_object_get_string(key), value, seen, err);
out:
    json_object_put(key);
    json_object_put(value);
    return rc;
}

int ts_message_decode_request(const void *payload, size_t len, ts_request *req, ts_error *err)
{
    return ts_message_decode_request_raw(payload, len, NULL, req, err);
}

int ts_message_expand_raw(const ts_request *req, struct json_object *params, ts_error *err)
{
    struct json_object *value = NULL;
    int rc;

    if (!req->raw.found)
        return 0;
    rc = ts_wire_decode_member(req->raw_data, &req->raw, TS_WIRE_MAX_DEPTH - 1, &value, err);
    if (rc < 0)
        return request_depth_error(err, rc, req->raw_base);
    if (json_object_object_add(params, req->raw.key, value) < 0) {
        json_object_put(value);
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "cannot grow a map");
    }
    return 0;
}

int ts_message_decode_request_raw(const void *payload, size_t len, ts_message_raw_choice choose,
                                  ts_request *req, ts_error *err)
{
    const unsigned char *p = payload;
    struct json_object *whole = NULL;
    uint64_t count = 0;
    uint64_t i;
    size_t pos = 0;
    unsigned seen = 0;
    int rc;

    memset(req, 0, sizeof(*req));
    rc = read_map_header(p, len, &count, &pos, err);
    if (rc < 0)
        return rc;
    if (rc == 0) {
        /* Not a map: decode it anyway so that garbage is told apart from a
         * well-formed value of the wrong type. */
        rc = ts_wire_decode(p, len, 0, &whole, err);
        if (rc < 0)
            return rc;
        rc = shape_error(err, "a request must be a map, got %s", type_name(whole));
        json_object_put(whole);
        return rc;
    }
    if (count > 3)
        return ts_error_set(err, -EINVAL, TS_ERR_BAD_REQUEST,
                            "a request map has at most 3 keys (id, method, params), got %llu",
                            (unsigned long long)count);
    for (i = 0; i < count; i++) {
        rc = request_pair(req, p, len, &pos, &seen, choose, err);
        if (rc < 0)
            return rc;
    }
    if (pos != len)
        return ts_error_set(err, -EBADMSG, TS_ERR_BAD_FRAME,
                            "%zu unexpected bytes after the request (a frame holds exactly one "
                            "value)",
                            len - pos);
    if (!req->has_id)
        return ts_error_set(err, -EINVAL, TS_ERR_BAD_REQUEST, "request has no id");
    if (req->method == NULL)
        return ts_error_set(err, -EINVAL, TS_ERR_BAD_REQUEST, "request has no method");
    if (req->params == NULL) {
        req->params = json_object_new_object();
        if (req->params == NULL)
            return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "cannot allocate params");
    }
    return 0;
}

bool ts_message_peek_id(const void *payload, size_t len, uint64_t *id)
{
    ts_wire_cursor c;
    uint32_t count;

    ts_wire_cursor_init(&c, payload, len);
    if (ts_wire_cursor_map(&c, &count, NULL) < 0)
        return false;
    for (uint32_t i = 0; i < count && i < 3; i++) {
        const char *key;
        size_t klen;
        unsigned char b;

        if (ts_wire_cursor_str(&c, &key, &klen, NULL) < 0)
            return false;
        if (klen != 2 || memcmp(key, "id", 2) != 0) {
            if (ts_wire_cursor_skip(&c, 0, NULL) < 0)
                return false;
            continue;
        }
        if (ts_wire_cursor_left(&c) == 0)
            return false;
        b = *c.p;
        if (b <= 0x7f) {
            *id = b;
            return true;
        }
        if (b < 0xcc || b > 0xcf)
            return false;
        size_t n = (size_t)1 << (b - 0xcc);
        uint64_t v = 0;

        if (ts_wire_cursor_left(&c) < 1 + n)
            return false;
        for (size_t k = 1; k <= n; k++)
            v = (v << 8) | c.p[k];
        *id = v;
        return true;
    }
    return false;
}

void ts_request_free(ts_request *req)
{
    free(req->method);
    json_object_put(req->params);
    memset(req, 0, sizeof(*req));
}

/* ---- decoding replies ----------------------------------------------- */

#define reply_error(err, ...) ts_error_set(err, -EPROTO, TS_ERR_BAD_REPLY, __VA_ARGS__)

/* An error code: 1 to 39 bytes of printable ASCII without spaces. */
static bool code_valid(const struct json_object *code)
{
    const char *s = json_object_get_string((struct json_object *)code);
    size_t len = (size_t)json_object_get_string_len(code);
    size_t i;

    if (len == 0 || len >= sizeof(((ts_error *)0)->code))
        return false;
    for (i = 0; i < len; i++)
        if (s[i] <= 0x20 || s[i] >= 0x7f)
            return false;
    return true;
}

static int reply_error_object(ts_reply *reply, struct json_object *e, ts_error *err)
{
    struct json_object *code = NULL;
    struct json_object *message = NULL;
    struct json_object *socket = NULL;

    if (!json_object_is_type(e, json_type_object))
        return reply_error(err, "reply error must be a map, got %s", type_name(e));
    json_object_object_get_ex(e, "code", &code);
    json_object_object_get_ex(e, "message", &message);
    if (!json_object_is_type(code, json_type_string))
        return reply_error(err, "reply error code must be a string, got %s", type_name(code));
    if (!code_valid(code))
        return reply_error(err, "reply error code must be 1 to %zu printable ASCII characters",
                           sizeof(reply->error.code) - 1);
    if (!json_object_is_type(message, json_type_string))
        return reply_error(err, "reply error message must be a string, got %s", type_name(message));
    if (json_object_object_get_ex(e, "socket", &socket) &&
        json_object_is_type(socket, json_type_string) && json_object_get_string_len(socket) > 0) {
        reply->error_socket = strdup(json_object_get_string(socket));
        if (reply->error_socket == NULL)
            return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    snprintf(reply->error.code, sizeof(reply->error.code), "%s", json_object_get_string(code));
    /* shown to people: one printable line whatever the server sent */
    ts_wire_excerpt(json_object_get_string(message), reply->error.message,
                    sizeof(reply->error.message));
    return 0;
}

static int reply_fields(ts_reply *reply, struct json_object *v, ts_error *err)
{
    struct json_object *id = NULL;
    struct json_object *ok = NULL;
    struct json_object *field = NULL;

    if (!json_object_is_type(v, json_type_object))
        return reply_error(err, "a reply must be a map, got %s", type_name(v));
    if (!json_object_object_get_ex(v, "id", &id))
        return reply_error(err, "reply has %s", "no id");
    if (id != NULL) {
        if (read_id(id, &reply->id) < 0)
            return reply_error(err, "reply id must be a non-negative integer or nil, got %s",
                               type_name(id));
        reply->has_id = true;
    }
    if (!json_object_object_get_ex(v, "ok", &ok) || !json_object_is_type(ok, json_type_boolean))
        return reply_error(err, "reply ok must be a boolean, got %s", type_name(ok));
    reply->ok = json_object_get_boolean(ok);
    if (reply->ok) {
        if (!reply->has_id) /* only an error may answer no request in particular */
            return reply_error(err, "ok reply has %s", "id nil (only an error reply may)");
        if (!json_object_object_get_ex(v, "result", &field))
            return reply_error(err, "ok reply has %s", "no result");
        reply->result = json_object_get(field);
        return 0;
    }
    if (!json_object_object_get_ex(v, "error", &field))
        return reply_error(err, "error reply has %s", "no error");
    return reply_error_object(reply, field, err);
}

int ts_message_decode_reply(const void *payload, size_t len, ts_reply *reply, ts_error *err)
{
    struct json_object *v = NULL;
    int rc;

    memset(reply, 0, sizeof(*reply));
    rc = ts_wire_decode(payload, len, TS_WIRE_REPLY_MAX_DEPTH, &v, err);
    if (rc < 0)
        return ts_error_prefix(err, rc, "undecodable reply");
    rc = reply_fields(reply, v, err);
    json_object_put(v);
    if (rc < 0) {
        json_object_put(reply->result);
        reply->result = NULL;
        free(reply->error_socket);
        reply->error_socket = NULL;
    }
    return rc;
}

void ts_reply_free(ts_reply *reply)
{
    json_object_put(reply->result);
    free(reply->error_socket);
    memset(reply, 0, sizeof(*reply));
}

/* ---- hello ---------------------------------------------------------- */

int ts_message_check_hello(const struct json_object *params, ts_error *err)
{
    struct json_object *protocol = NULL;
    int64_t version;

    if (!json_object_object_get_ex(params, "protocol", &protocol) ||
        !json_object_is_type(protocol, json_type_int))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "hello needs \"protocol\": an integer (this server speaks "
                            "protocol %d)",
                            TS_PROTOCOL_VERSION);
    version = json_object_get_int64(protocol);
    if (version == INT64_MAX && json_object_get_uint64(protocol) > (uint64_t)INT64_MAX)
        return ts_error_set(err, -EPROTONOSUPPORT, TS_ERR_VERSION_MISMATCH,
                            "client speaks protocol %llu, server speaks protocol %d",
                            (unsigned long long)json_object_get_uint64(protocol),
                            TS_PROTOCOL_VERSION);
    if (version != TS_PROTOCOL_VERSION)
        return ts_error_set(err, -EPROTONOSUPPORT, TS_ERR_VERSION_MISMATCH,
                            "client speaks protocol %lld, server speaks protocol %d",
                            (long long)version, TS_PROTOCOL_VERSION);
    return 0;
}
