/*
 * ts_client_check — a check's result read in place: the members of
 * {outcome, name, file, message, result: {score, passed, ...}|nil,
 * report: str|nil} (docs/protocol.md, "check") that ts_check_outcome holds,
 * taken from the reply's msgpack bytes with the cursor (ts_wire_cursor.h)
 * instead of a json-c tree. Other members, known or not, are skipped (their
 * structure checked, their contents not). A result of another shape is
 * refused with "bad_reply", naming what was wrong.
 */
#include "ts_client_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_wire_cursor.h"

void ts_check_outcome_free(ts_check_outcome *out)
{
    if (out == NULL)
        return;
    free(out->message);
    free(out->report);
    free(out->file);
    memset(out, 0, sizeof(*out));
    out->score = -1.0;
}

/* A refusal: the cursor's own message (if any) kept after ours. */
static int refuse(ts_error *err, const ts_error *why, const char *what)
{
    if (why != NULL)
        return ts_error_set(err, -EPROTO, TS_CLIENT_ERR_BAD_REPLY, "check reply: %s: %s", what,
                            why->message);
    return ts_error_set(err, -EPROTO, TS_CLIENT_ERR_BAD_REPLY, "check reply: %s", what);
}

/* Members read, each at most once. */
enum {
    SEEN_OUTCOME = 1,
    SEEN_FILE = 2,
    SEEN_MESSAGE = 4,
    SEEN_RESULT = 8,
    SEEN_REPORT = 16,
    SEEN_SCORE = 32,
    SEEN_PASSED = 64
};

typedef struct check_reader {
    ts_wire_cursor cur;
    ts_check_outcome *out;
    unsigned seen;
    ts_error why; /* the cursor's error */
    ts_error *err;
} check_reader;

static bool key_is(const char *key, size_t len, const char *name)
{
    return strlen(name) == len && memcmp(key, name, len) == 0;
}

/* A member may come once; a second one is refused like a duplicate key. */
static int first_time(check_reader *r, unsigned bit, const char *name)
{
    char what[64];

    if ((r->seen & bit) == 0) {
        r->seen |= bit;
        return 0;
    }
    snprintf(what, sizeof(what), "'%s' appears twice", name);
    return refuse(r->err, NULL, what);
}

/* A str member into a new NUL-terminated copy. */
static int read_string(check_reader *r, const char *name, char **into)
{
    const char *s;
    size_t len;
    char what[64];

    if (ts_wire_cursor_str(&r->cur, &s, &len, &r->why) < 0) {
        snprintf(what, sizeof(what), "'%s' is not a string", name);
        return refuse(r->err, &r->why, what);
    }
    *into = malloc(len + 1);
    if (*into == NULL)
        return ts_error_set(r->err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    memcpy(*into, s, len);
    (*into)[len] = '\0';
    return 0;
}

static int read_outcome(check_reader *r)
{
    const char *s;
    size_t len;

    if (ts_wire_cursor_str(&r->cur, &s, &len, &r->why) < 0)
        return refuse(r->err, &r->why, "'outcome' is not a string");
    if (len == 0 || len >= sizeof(r->out->outcome))
        return refuse(r->err, NULL, "'outcome' is empty or longer than 31 bytes");
    memcpy(r->out->outcome, s, len);
    r->out->outcome[len] = '\0';
    return 0;
}

/* The scoring map: score and passed are read, the rest skipped. */
static int read_scoring(check_reader *r)
{
    uint32_t count;
    int rc = 0;

    if (ts_wire_cursor_peek(&r->cur) == TS_WIRE_KIND_NIL)
        return ts_wire_cursor_nil(&r->cur, NULL);
    if (ts_wire_cursor_map(&r->cur, &count, &r->why) < 0)
        return refuse(r->err, &r->why, "'result' is neither a map nor nil");
    for (uint32_t i = 0; rc == 0 && i < count; i++) {
        const char *key;
        size_t len;

        if (ts_wire_cursor_str(&r->cur, &key, &len, &r->why) < 0)
            return refuse(r->err, &r->why, "a key of 'result' is not a string");
        if (key_is(key, len, "score")) {
            rc = first_time(r, SEEN_SCORE, "result.score");
            if (rc == 0 && ts_wire_cursor_number(&r->cur, &r->out->score, &r->why) < 0)
                rc = refuse(r->err, &r->why, "'result.score' is not a number");
        } else if (key_is(key, len, "passed")) {
            rc = first_time(r, SEEN_PASSED, "result.passed");
            if (rc == 0 && ts_wire_cursor_bool(&r->cur, &r->out->passed, &r->why) < 0)
                rc = refuse(r->err, &r->why, "'result.passed' is not a bool");
        } else if (ts_wire_cursor_skip(&r->cur, 0, &r->why) < 0) {
            rc = refuse(r->err, &r->why, "a member of 'result' is malformed");
        }
    }
    if (rc == 0 && (r->seen & (SEEN_SCORE | SEEN_PASSED)) != (SEEN_SCORE | SEEN_PASSED))
        rc = refuse(r->err, NULL, "'result' lacks score or passed");
    return rc;
}

static int read_report(check_reader *r)
{
    if (ts_wire_cursor_peek(&r->cur) == TS_WIRE_KIND_NIL)
        return ts_wire_cursor_nil(&r->cur, NULL);
    return read_string(r, "report", &r->out->report);
}

/* One member of the result map, by its key. */
static int read_member(check_reader *r, const char *key, size_t len)
{
    int rc;

    if (key_is(key, len, "outcome")) {
        rc = first_time(r, SEEN_OUTCOME, "outcome");
        return rc < 0 ? rc : read_outcome(r);
    }
    if (key_is(key, len, "file")) {
        rc = first_time(r, SEEN_FILE, "file");
        return rc < 0 ? rc : read_string(r, "file", &r->out->file);
    }
    if (key_is(key, len, "message")) {
        rc = first_time(r, SEEN_MESSAGE, "message");
        return rc < 0 ? rc : read_string(r, "message", &r->out->message);
    }
    if (key_is(key, len, "result")) {
        rc = first_time(r, SEEN_RESULT, "result");
        return rc < 0 ? rc : read_scoring(r);
    }
    if (key_is(key, len, "report")) {
        rc = first_time(r, SEEN_REPORT, "report");
        return rc < 0 ? rc : read_report(r);
    }
    if (ts_wire_cursor_skip(&r->cur, 0, &r->why) < 0)
        return refuse(r->err, &r->why, "a member is malformed");
    return 0;
}

static int read_all(check_reader *r)
{
    const unsigned need = SEEN_OUTCOME | SEEN_FILE | SEEN_MESSAGE;
    uint32_t count;
    int rc = 0;

    if (ts_wire_cursor_map(&r->cur, &count, &r->why) < 0)
        return refuse(r->err, &r->why, "the result is not a map");
    for (uint32_t i = 0; rc == 0 && i < count; i++) {
        const char *key;
        size_t len;

        if (ts_wire_cursor_str(&r->cur, &key, &len, &r->why) < 0)
            return refuse(r->err, &r->why, "a key is not a string");
        rc = read_member(r, key, len);
    }
    if (rc == 0 && ts_wire_cursor_left(&r->cur) != 0)
        rc = refuse(r->err, NULL, "bytes follow the result");
    if (rc == 0 && (r->seen & need) != need)
        rc = refuse(r->err, NULL, "outcome, file or message is missing");
    return rc;
}

int ts_client__read_check_outcome(const unsigned char *data, size_t len, void *arg, ts_error *err)
{
    check_reader r;
    int rc;

    memset(&r, 0, sizeof(r));
    ts_wire_cursor_init(&r.cur, data, len);
    r.out = arg;
    r.err = err;
    ts_check_outcome_free(r.out);
    rc = read_all(&r);
    if (rc < 0)
        ts_check_outcome_free(r.out);
    return rc;
}
