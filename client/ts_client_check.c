/*
 * ts_client_check — the check method: its request packed straight from
 * its ts_check_args (no json-c params tree; the bytes are those the params
 * tree gave) and its reply either as a json-c tree (ts_client_check) or
 * read in place (ts_client_check_outcome): the members of {outcome, name,
 * file, message, result: {score, passed, ...}|nil, report: str|nil}
 * (docs/protocol.md, "check") that ts_check_outcome holds, taken from the
 * reply's msgpack bytes with the cursor (ts_proto.h). Other members,
 * known or not, are skipped (their structure checked, their contents not).
 * A result of another shape is refused with "bad_reply", naming what was
 * wrong.
 */
#include "ts_client_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/score/ts_score.h"
#include "proto/ts_proto.h"

/* ---- the request --------------------------------------------------- */

/* A check's params: the caller's arguments and the store resolved. */
typedef struct check_request {
    const ts_check_args *args;
    const char *store;
} check_request;

static void pack_key(ts_wire_writer *w, const char *key, ts_error *err)
{
    ts_wire_pack_str(w, key, strlen(key), err);
}

static void pack_string_member(ts_wire_writer *w, const char *key, const char *value, ts_error *err)
{
    pack_key(w, key, err);
    ts_wire_pack_str(w, value, strlen(value), err);
}

static void pack_bool_member(ts_wire_writer *w, const char *key, bool value, ts_error *err)
{
    pack_key(w, key, err);
    ts_wire_pack_bool(w, value, err);
}

/* A borrowed value of the caller's (weights, actual), packed as it is: it
 * sits two containers deep (the envelope, the params). */
static void pack_value_member(ts_wire_writer *w, const char *key, const struct json_object *value,
                              ts_error *err)
{
    pack_key(w, key, err);
    ts_wire_pack(w, value, 2, err);
}

/* A member at its protocol default is left out (the daemon reads an
 * absent member as its default, docs/protocol.md "check"). */
static bool format_given(const ts_check_args *a)
{
    return a->format != NULL && strcmp(a->format, "auto") != 0;
}

static bool min_score_given(const ts_check_args *a)
{
    return !(a->min_score == 1.0); /* NaN too: the daemon refuses it */
}

/*
 * The params of check, in the order the typed helpers have always sent
 * them (they were a json-c object packed in insertion order, then actual):
 * store, name, format, min_score (a float), weights, strict, ci, update,
 * allow_pending, run, test, source, tsctl, color, width, json_diff, rules, actual, each
 * member other than store, name and actual only when not at its default
 * (format "auto", min_score 1.0, false, NULL, width 0, json_diff true).
 * Fewer members are less work on both ends of every replay.
 * tests/test_client.c compares the bytes with that way.
 */
static int pack_check_params(ts_wire_writer *w, const void *arg, ts_error *err)
{
    const check_request *r = arg;
    const ts_check_args *a = r->args;
    const struct {
        const char *key;
        bool value;
    } flags[] = {{"strict", a->strict},
                 {"ci", a->ci},
                 {"update", a->update},
                 {"allow_pending", a->allow_pending}};
    size_t n = 3 + format_given(a) + min_score_given(a) + (a->weights != NULL) + a->strict + a->ci +
               a->update + a->allow_pending + (a->run != NULL) + (a->test != NULL) +
               (a->source != NULL) + (a->tsctl != NULL) + a->color + (a->width != 0) +
               a->no_json_diff + (a->rules != NULL);

    ts_wire_pack_map(w, n, err);
    pack_string_member(w, "store", r->store, err);
    pack_string_member(w, "name", a->name, err);
    if (format_given(a))
        pack_string_member(w, "format", a->format, err);
    if (min_score_given(a)) {
        pack_key(w, "min_score", err);
        ts_wire_pack_double(w, a->min_score, err);
    }
    if (a->weights != NULL)
        pack_value_member(w, "weights", a->weights, err);
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
        if (flags[i].value)
            pack_bool_member(w, flags[i].key, true, err);
    if (a->run != NULL)
        pack_string_member(w, "run", a->run, err);
    if (a->test != NULL)
        pack_string_member(w, "test", a->test, err);
    if (a->source != NULL)
        pack_string_member(w, "source", a->source, err);
    if (a->tsctl != NULL)
        pack_string_member(w, "tsctl", a->tsctl, err);
    if (a->color)
        pack_bool_member(w, "color", true, err);
    if (a->width != 0) {
        pack_key(w, "width", err);
        ts_wire_pack_int(w, (int64_t)a->width, err);
    }
    if (a->no_json_diff)
        pack_bool_member(w, "json_diff", false, err);
    if (a->rules != NULL)
        pack_value_member(w, "rules", a->rules, err);
    if (a->actual_packed != NULL) {
        pack_key(w, "actual", err);
        ts_wire_pack_packed(w, a->actual_packed, a->actual_packed_len, err);
    } else {
        pack_value_member(w, "actual", a->actual, err);
    }
    return ts_wire_writer_error(w);
}

/* Packed calls must be one whole value that fits two levels down in a
 * request (the envelope, the params). */
static int check_packed_actual(const ts_check_args *a, ts_error *err)
{
    ts_wire_cursor cur;
    ts_error why;

    ts_wire_cursor_init(&cur, a->actual_packed, a->actual_packed_len);
    if (ts_wire_cursor_skip(&cur, TS_WIRE_MAX_DEPTH - 2, &why) < 0)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "'actual' (packed) is not one msgpack value: %s", why.message);
    if (ts_wire_cursor_left(&cur) != 0)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "'actual' (packed) has %zu byte(s) after its value",
                            ts_wire_cursor_left(&cur));
    return 0;
}

int ts_client__encode_check(ts_buf *out, uint64_t id, const ts_check_args *a, const char *store,
                            size_t max_frame, ts_error *err)
{
    check_request r = {a, store};

    return ts_client__encode_request(out, id, "check", pack_check_params, &r, max_frame, err);
}

/* The required arguments, checked before anything is sent (in this order,
 * with these messages, as for every typed helper), and the store resolved
 * into store. */
static int check_prepare(ts_client *c, const ts_check_args *a, char *store, size_t storesz,
                         ts_error *err)
{
    int rc;

    if (a == NULL)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "no check arguments");
    if (a->error < 0)
        return ts_error_set(err, a->error, TS_ERR_NO_MEMORY,
                            "out of memory while setting the check's arguments");
    if (a->store == NULL || a->store[0] == '\0')
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "'store' is required");
    rc = ts_client__store_path(c, a->store, store, storesz, err);
    if (rc < 0)
        return rc;
    if (a->name == NULL) /* "" is a valid name */
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "'name' is required");
    if (a->actual_packed != NULL)
        return check_packed_actual(a, err);
    if (a->actual == NULL)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "'actual' is required");
    return 0;
}

/* ---- the reply read in place ---------------------------------------- */

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
    SEEN_KEPT = 32 /* and up: the members of kept_members */
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

/* A member (prefix + name) may come once; a second one is refused like a
 * duplicate key. */
static int first_time(check_reader *r, unsigned bit, const char *prefix, const char *name)
{
    char what[96];

    if ((r->seen & bit) == 0) {
        r->seen |= bit;
        return 0;
    }
    snprintf(what, sizeof(what), "'%s%s' appears twice", prefix, name);
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

/* The members of the score result (lib/score/ts_score's table) an outcome holds;
 * the others are skipped. */
static const size_t kept_members[] = {offsetof(ts_score_result, score),
                                      offsetof(ts_score_result, passed)};

#define KEPT_COUNT (sizeof(kept_members) / sizeof(kept_members[0]))

/* The table's entries of the kept members, in kept_members' order (found
 * once per process). */
static const ts_score_key *kept_keys[KEPT_COUNT];
static pthread_once_t kept_once = PTHREAD_ONCE_INIT;

static void find_kept_keys(void)
{
    for (size_t j = 0; j < KEPT_COUNT; j++) {
        for (size_t i = 0; kept_keys[j] == NULL && i < ts_score_key_count; i++) {
            if (ts_score_keys[i].offset == kept_members[j])
                kept_keys[j] = &ts_score_keys[i];
        }
    }
}

/* One kept member k of the result into scratch, as k's type says. */
static int read_kept(check_reader *r, const ts_score_key *k, ts_score_result *scratch)
{
    void *m = (char *)scratch + k->offset;
    char what[64];

    if (k->type == TS_SCORE_BOOL && ts_wire_cursor_bool(&r->cur, m, &r->why) < 0) {
        snprintf(what, sizeof(what), "'result.%s' is not a bool", k->name);
        return refuse(r->err, &r->why, what);
    }
    if (k->type == TS_SCORE_DOUBLE && ts_wire_cursor_number(&r->cur, m, &r->why) < 0) {
        snprintf(what, sizeof(what), "'result.%s' is not a number", k->name);
        return refuse(r->err, &r->why, what);
    }
    return 0;
}

/* The scoring map: the kept members are read, the rest skipped. */
static int read_scoring(check_reader *r)
{
    const ts_score_key *const *kept = kept_keys;
    const unsigned need = (SEEN_KEPT << KEPT_COUNT) - SEEN_KEPT;
    ts_score_result scratch;
    uint32_t count;
    int rc = 0;

    if (ts_wire_cursor_peek(&r->cur) == TS_WIRE_KIND_NIL)
        return ts_wire_cursor_nil(&r->cur, NULL);
    if (ts_wire_cursor_map(&r->cur, &count, &r->why) < 0)
        return refuse(r->err, &r->why, "'result' is neither a map nor nil");
    pthread_once(&kept_once, find_kept_keys);
    memset(&scratch, 0, sizeof(scratch));
    for (uint32_t i = 0; rc == 0 && i < count; i++) {
        const char *key;
        size_t len, j = 0;

        if (ts_wire_cursor_str(&r->cur, &key, &len, &r->why) < 0)
            return refuse(r->err, &r->why, "a key of 'result' is not a string");
        while (j < KEPT_COUNT && !(kept[j]->len == len && memcmp(kept[j]->name, key, len) == 0))
            j++;
        if (j == KEPT_COUNT) {
            if (ts_wire_cursor_skip(&r->cur, 0, &r->why) < 0)
                rc = refuse(r->err, &r->why, "a member of 'result' is malformed");
            continue;
        }
        rc = first_time(r, SEEN_KEPT << j, "result.", kept[j]->name);
        if (rc == 0)
            rc = read_kept(r, kept[j], &scratch);
    }
    if (rc == 0 && (r->seen & need) != need)
        rc = refuse(r->err, NULL, "'result' lacks score or passed");
    r->out->score = rc == 0 ? scratch.score : r->out->score;
    r->out->passed = rc == 0 && scratch.passed;
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
        rc = first_time(r, SEEN_OUTCOME, "", "outcome");
        return rc < 0 ? rc : read_outcome(r);
    }
    if (key_is(key, len, "file")) {
        rc = first_time(r, SEEN_FILE, "", "file");
        return rc < 0 ? rc : read_string(r, "file", &r->out->file);
    }
    if (key_is(key, len, "message")) {
        rc = first_time(r, SEEN_MESSAGE, "", "message");
        return rc < 0 ? rc : read_string(r, "message", &r->out->message);
    }
    if (key_is(key, len, "result")) {
        rc = first_time(r, SEEN_RESULT, "", "result");
        return rc < 0 ? rc : read_scoring(r);
    }
    if (key_is(key, len, "report")) {
        rc = first_time(r, SEEN_REPORT, "", "report");
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

/* The reader of a check's result into the ts_check_outcome arg (see
 * ts_client__call_packed). */
static int read_check_outcome(const unsigned char *data, size_t len, void *arg, ts_error *err)
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

/* ---- the calls ---------------------------------------------------- */

int ts_client_check(ts_client *c, const ts_check_args *a, struct json_object **result,
                    ts_error *err)
{
    char store[TS_PATHS_MAX];
    check_request r = {a, store};
    int rc;

    if (result != NULL)
        *result = NULL;
    rc = check_prepare(c, a, store, sizeof(store), err);
    if (rc < 0)
        return rc;
    return ts_client__call_packed(c, "check", pack_check_params, &r, result, NULL, NULL, err);
}

int ts_client_check_bytes(ts_client *c, const ts_check_args *a, ts_client_result_bytes read,
                          void *arg, ts_error *err)
{
    char store[TS_PATHS_MAX];
    check_request r = {a, store};
    int rc = check_prepare(c, a, store, sizeof(store), err);

    if (rc < 0)
        return rc;
    return ts_client__call_packed(c, "check", pack_check_params, &r, NULL, read, arg, err);
}

int ts_client_check_outcome(ts_client *c, const ts_check_args *a, ts_check_outcome *out,
                            ts_error *err)
{
    char store[TS_PATHS_MAX];
    check_request r = {a, store};
    ts_check_outcome unwanted;
    int rc;

    if (out == NULL)
        out = &unwanted;
    memset(out, 0, sizeof(*out));
    out->score = -1.0;
    rc = check_prepare(c, a, store, sizeof(store), err);
    if (rc == 0)
        rc = ts_client__call_packed(c, "check", pack_check_params, &r, NULL, read_check_outcome,
                                    out, err);
    if (out == &unwanted)
        ts_check_outcome_free(out);
    return rc;
}
