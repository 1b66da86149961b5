/*
 * ts_snapshot — the snapshot model and its file format (see ts_snapshot.h and
 * docs/internals/store.md).
 *
 * Reading is tolerant of every file the reference tool writes and strict
 * about types: only "name" and "calls" are required; a missing
 * schema_version is 1, a missing approved is false, a missing source is
 * "pytest", a missing toolscore_version is "" (a rewrite stamps ours), a
 * missing timestamp is the
 * other timestamp (or now). Unknown top-level keys are ignored. Writing
 * always produces all eight keys in the fixed order.
 */
#include "lib/snapshot/ts_snapshot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/json/ts_json.h"
#include "ts_version.h"

void ts_timestamp_now(char out[TS_TIMESTAMP_MAX])
{
    struct timespec ts;
    struct tm tm;
    char text[128];
    size_t len;

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    len = (size_t)snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02d.%06ld+00:00",
                           tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                           tm.tm_sec, ts.tv_nsec / 1000);
    if (len >= TS_TIMESTAMP_MAX)
        len = TS_TIMESTAMP_MAX - 1; /* only for years past 9999 */
    memcpy(out, text, len);
    out[len] = '\0';
}

/* ---- calls -------------------------------------------------------------- */

static int calls_error(ts_error *err, size_t index, const char *what)
{
    return ts_error_set(err, -EINVAL, TS_ERR_INVALID_CALLS, "calls[%zu]: %s", index, what);
}

static int validate_call(const struct json_object *call, size_t index, ts_error *err)
{
    struct json_object *tool = NULL;
    struct json_object *args = NULL;
    size_t len;

    if (!json_object_is_type(call, json_type_object))
        return calls_error(err, index, "a call must be an object");
    if (!json_object_object_get_ex(call, "tool", &tool))
        return calls_error(err, index, "missing \"tool\"");
    if (!json_object_is_type(tool, json_type_string))
        return calls_error(err, index, "\"tool\" must be a string");
    len = (size_t)json_object_get_string_len(tool);
    if (len == 0)
        return calls_error(err, index, "\"tool\" is empty");
    if (len > TS_SNAPSHOT_MAX_TOOL_BYTES)
        return calls_error(err, index, "\"tool\" is longer than 1024 bytes");
    if (memchr(json_object_get_string(tool), '\0', len) != NULL)
        return calls_error(err, index, "\"tool\" contains a NUL character");
    /* args null is kept: on an expected call it means "don't check arguments"
     * (docs/scoring.md), and the reference tool writes it for such calls. */
    if (json_object_object_get_ex(call, "args", &args) && args != NULL &&
        !json_object_is_type(args, json_type_object))
        return calls_error(err, index, "\"args\" must be an object or null");
    return 0;
}

int ts_snapshot_validate_calls(const struct json_object *calls, ts_error *err)
{
    size_t n;

    if (calls == NULL || !json_object_is_type(calls, json_type_array))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_CALLS, "calls must be an array");
    n = json_object_array_length(calls);
    if (n > TS_SNAPSHOT_MAX_CALLS)
        return ts_error_set(err, -E2BIG, TS_ERR_LIMIT, "%zu calls is more than the limit of %d", n,
                            TS_SNAPSHOT_MAX_CALLS);
    for (size_t i = 0; i < n; i++) {
        int rc = validate_call(json_object_array_get_idx(calls, i), i, err);

        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ---- construction ------------------------------------------------------- */

void ts_snapshot_uncharge(ts_snapshot *s)
{
    if (s != NULL && s->charge > 0 && s->give != NULL)
        s->give(s->give_arg, s->charge);
    if (s != NULL)
        s->charge = 0;
}

void ts_snapshot_free(ts_snapshot *s)
{
    if (s == NULL)
        return;
    free(s->name);
    free(s->toolscore_version);
    free(s->source);
    json_object_put(s->calls);
    ts_snapshot_uncharge(s); /* after the values are freed */
    free(s);
}

static int no_memory(ts_error *err)
{
    return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
}

bool ts_snapshot_source_known(const char *source)
{
    static const char *const known[] = {"pytest", "vitest", "jest",  "node",
                                        "tsctl",  "trace",  "record"};

    for (size_t i = 0; source != NULL && i < sizeof(known) / sizeof(known[0]); i++) {
        if (strcmp(source, known[i]) == 0)
            return true;
    }
    return false;
}

int ts_snapshot_new(const char *name, struct json_object *calls, const char *source,
                    ts_snapshot **out, ts_error *err)
{
    ts_snapshot *s;
    int rc;

    if (name == NULL)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "snapshot name is missing");
    rc = ts_name_validate(name, strlen(name), err);
    if (rc < 0)
        return rc;
    rc = ts_snapshot_validate_calls(calls, err);
    if (rc < 0)
        return rc;
    if (source == NULL || source[0] == '\0' || strlen(source) > TS_SNAPSHOT_MAX_META_BYTES ||
        !ts_utf8_valid(source, strlen(source)))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "invalid snapshot source");
    s = calloc(1, sizeof(*s));
    if (s == NULL)
        return no_memory(err);
    s->schema_version = TS_SNAPSHOT_SCHEMA_VERSION;
    s->name = strdup(name);
    s->toolscore_version = strdup(TS_VERSION);
    s->source = strdup(source);
    if (s->name == NULL || s->toolscore_version == NULL || s->source == NULL) {
        ts_snapshot_free(s);
        return no_memory(err);
    }
    s->calls = json_object_get(calls);
    ts_timestamp_now(s->created_at);
    memcpy(s->updated_at, s->created_at, sizeof(s->updated_at));
    *out = s;
    return 0;
}

/* The file is being rewritten by this version: updated_at = now and our
 * version string (a re-save differs from the old file in these two only). */
static int stamp_rewrite(ts_snapshot *s, ts_error *err)
{
    char *version = strdup(TS_VERSION);

    if (version == NULL)
        return no_memory(err);
    free(s->toolscore_version);
    s->toolscore_version = version;
    ts_timestamp_now(s->updated_at);
    return 0;
}

int ts_snapshot_set_calls(ts_snapshot *s, struct json_object *calls, ts_error *err)
{
    int rc = ts_snapshot_validate_calls(calls, err);

    if (rc == 0)
        rc = stamp_rewrite(s, err);
    if (rc < 0)
        return rc;
    json_object_get(calls);
    json_object_put(s->calls);
    s->calls = calls;
    return 0;
}

int ts_snapshot_approve(ts_snapshot *s, ts_error *err)
{
    int rc = stamp_rewrite(s, err);

    if (rc == 0)
        s->approved = true;
    return rc;
}

ts_snapshot *ts_snapshot_copy(const ts_snapshot *s)
{
    ts_snapshot *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return NULL;
    *c = *s;
    c->charge = 0; /* the copy took nothing from a budget */
    c->give = NULL;
    c->give_arg = NULL;
    c->name = strdup(s->name);
    c->toolscore_version = strdup(s->toolscore_version);
    c->source = strdup(s->source);
    c->calls = ts_json_copy(s->calls);
    if (c->name == NULL || c->toolscore_version == NULL || c->source == NULL ||
        (s->calls != NULL && c->calls == NULL)) {
        ts_snapshot_free(c);
        return NULL;
    }
    return c;
}

/* ---- parsing ------------------------------------------------------------ */

/* An "invalid_snapshot" error: "<what>: "<key>" <problem>". */
static int field_error(ts_error *err, const char *what, const char *key, const char *problem)
{
    return ts_error_set(err, -EINVAL, TS_ERR_INVALID_SNAPSHOT, "%s: \"%s\" %s", what, key, problem);
}

/* The string member key (NULL if absent); an error if it has another type. */
static int get_string(struct json_object *root, const char *key, const char *what, size_t max,
                      const char **out, ts_error *err)
{
    struct json_object *v = NULL;

    *out = NULL;
    if (!json_object_object_get_ex(root, key, &v))
        return 0;
    if (!json_object_is_type(v, json_type_string))
        return field_error(err, what, key, "must be a string");
    if ((size_t)json_object_get_string_len(v) > max)
        return field_error(err, what, key, "is too long");
    if (memchr(json_object_get_string(v), '\0', (size_t)json_object_get_string_len(v)) != NULL)
        return field_error(err, what, key, "contains a NUL character");
    *out = json_object_get_string(v);
    return 0;
}

static int parse_schema_version(struct json_object *root, const char *what, ts_snapshot *s,
                                ts_error *err)
{
    struct json_object *v = NULL;
    int64_t version;

    s->schema_version = TS_SNAPSHOT_SCHEMA_VERSION;
    if (!json_object_object_get_ex(root, "schema_version", &v))
        return 0;
    if (!json_object_is_type(v, json_type_int))
        return field_error(err, what, "schema_version", "must be an integer");
    version = json_object_get_int64(v);
    if (version != TS_SNAPSHOT_SCHEMA_VERSION) {
        ts_error_set(err, -EINVAL, TS_ERR_INVALID_SNAPSHOT,
                     "schema_version %lld is not supported (this version reads %d)",
                     (long long)version, TS_SNAPSHOT_SCHEMA_VERSION);
        return ts_error_prefix(err, -EINVAL, "%s", what);
    }
    return 0;
}

static int parse_approved(struct json_object *root, const char *what, ts_snapshot *s, ts_error *err)
{
    struct json_object *v = NULL;

    s->approved = false;
    if (!json_object_object_get_ex(root, "approved", &v))
        return 0;
    if (!json_object_is_type(v, json_type_boolean))
        return field_error(err, what, "approved", "must be true or false");
    s->approved = json_object_get_boolean(v);
    return 0;
}

static int parse_name(struct json_object *root, const char *what, ts_snapshot *s, ts_error *err)
{
    const char *name;
    int rc = get_string(root, "name", what, TS_NAME_MAX_BYTES, &name, err);

    if (rc < 0)
        return rc;
    if (name == NULL)
        return field_error(err, what, "name", "is missing");
    rc = ts_name_validate(name, strlen(name), err);
    if (rc < 0) {
        if (err != NULL)
            snprintf(err->code, sizeof(err->code), "%s", TS_ERR_INVALID_SNAPSHOT);
        return ts_error_prefix(err, rc, "%s: \"name\"", what);
    }
    s->name = strdup(name);
    return s->name == NULL ? no_memory(err) : 0;
}

static int parse_timestamps(struct json_object *root, const char *what, ts_snapshot *s,
                            ts_error *err)
{
    const char *created;
    const char *updated;
    int rc = get_string(root, "created_at", what, TS_TIMESTAMP_MAX - 1, &created, err);

    if (rc == 0)
        rc = get_string(root, "updated_at", what, TS_TIMESTAMP_MAX - 1, &updated, err);
    if (rc < 0)
        return rc;
    if (created == NULL)
        created = updated;
    if (updated == NULL)
        updated = created;
    if (created == NULL) {
        ts_timestamp_now(s->created_at);
        memcpy(s->updated_at, s->created_at, sizeof(s->updated_at));
        return 0;
    }
    snprintf(s->created_at, sizeof(s->created_at), "%s", created);
    snprintf(s->updated_at, sizeof(s->updated_at), "%s", updated);
    return 0;
}

static int parse_metadata(struct json_object *root, const char *what, ts_snapshot *s, ts_error *err)
{
    const char *version;
    const char *source;
    int rc = get_string(root, "toolscore_version", what, TS_SNAPSHOT_MAX_META_BYTES, &version, err);

    if (rc == 0)
        rc = get_string(root, "source", what, TS_SNAPSHOT_MAX_META_BYTES, &source, err);
    if (rc < 0)
        return rc;
    s->toolscore_version = strdup(version ? version : "");
    s->source = strdup(source ? source : "pytest");
    if (s->toolscore_version == NULL || s->source == NULL)
        return no_memory(err);
    return 0;
}

static int parse_calls(struct json_object *root, const char *what, ts_snapshot *s, ts_error *err)
{
    struct json_object *calls = NULL;
    int rc;

    if (!json_object_object_get_ex(root, "calls", &calls))
        return field_error(err, what, "calls", "is missing");
    if (!json_object_is_type(calls, json_type_array))
        return field_error(err, what, "calls", "must be an array");
    rc = ts_snapshot_validate_calls(calls, err);
    if (rc < 0) {
        if (err != NULL && strcmp(err->code, TS_ERR_INVALID_CALLS) == 0)
            snprintf(err->code, sizeof(err->code), "%s", TS_ERR_INVALID_SNAPSHOT);
        return ts_error_prefix(err, rc, "%s", what);
    }
    s->calls = json_object_get(calls);
    return 0;
}

static int snapshot_from_json(struct json_object *root, const char *what, ts_snapshot *s,
                              ts_error *err)
{
    int rc;

    if (!json_object_is_type(root, json_type_object))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_SNAPSHOT,
                            "%s: not a JSON object (a snapshot file holds one object)", what);
    rc = parse_schema_version(root, what, s, err);
    if (rc == 0)
        rc = parse_name(root, what, s, err);
    if (rc == 0)
        rc = parse_timestamps(root, what, s, err);
    if (rc == 0)
        rc = parse_metadata(root, what, s, err);
    if (rc == 0)
        rc = parse_approved(root, what, s, err);
    if (rc == 0)
        rc = parse_calls(root, what, s, err);
    return rc;
}

int ts_snapshot_parse(const char *buf, size_t len, const char *what, ts_snapshot **out,
                      ts_error *err)
{
    return ts_snapshot_parse_ex(buf, len, what, out, NULL, err);
}

int ts_snapshot_from_json(const struct json_object *root, const char *what, ts_snapshot **out,
                          ts_error *err)
{
    ts_snapshot *s = calloc(1, sizeof(*s));
    int rc;

    if (s == NULL)
        return no_memory(err);
    /* read only: snapshot_from_json takes a reference to calls, nothing else */
    rc = snapshot_from_json((struct json_object *)root, what ? what : "snapshot", s, err);
    if (rc < 0) {
        ts_snapshot_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

/* True when root has both timestamps as members (of whatever type). */
static bool has_timestamps(struct json_object *root)
{
    return json_object_is_type(root, json_type_object) &&
           json_object_object_get_ex(root, "created_at", NULL) &&
           json_object_object_get_ex(root, "updated_at", NULL);
}

int ts_snapshot_parse_ex(const char *buf, size_t len, const char *what, ts_snapshot **out,
                         bool *timestamps_given, ts_error *err)
{
    struct json_object *root = NULL;
    ts_snapshot *s;
    int rc;

    if (what == NULL)
        what = "snapshot";
    if (len > TS_SNAPSHOT_MAX_BYTES) {
        ts_error_set(err, -E2BIG, TS_ERR_TOO_LARGE, "file of %zu bytes is over the %u-byte limit",
                     len, TS_SNAPSHOT_MAX_BYTES);
        return ts_error_prefix(err, -E2BIG, "%s", what);
    }
    rc = ts_json_parse(buf, len, TS_SNAPSHOT_MAX_DEPTH, &root, err);
    if (rc < 0) {
        /* not JSON, or nested too deep: the file is no snapshot (the
         * message keeps the parser's line and column) */
        if (rc != -ENOMEM && err != NULL)
            snprintf(err->code, sizeof(err->code), "%s", TS_ERR_INVALID_SNAPSHOT);
        return ts_error_prefix(err, rc, "%s", what);
    }
    s = calloc(1, sizeof(*s));
    if (s == NULL) {
        json_object_put(root);
        return no_memory(err);
    }
    rc = snapshot_from_json(root, what, s, err);
    if (timestamps_given != NULL)
        *timestamps_given = has_timestamps(root);
    json_object_put(root);
    if (rc < 0) {
        ts_snapshot_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

/* ---- writing ------------------------------------------------------------ */

/* Add key: value to o; false (and v released) when anything is missing. */
static bool add_member(struct json_object *o, const char *key, struct json_object *v)
{
    if (v == NULL)
        return false;
    if (json_object_object_add(o, key, v) < 0) {
        json_object_put(v);
        return false;
    }
    return true;
}

struct json_object *ts_snapshot_to_json(const ts_snapshot *s)
{
    struct json_object *o = json_object_new_object();
    bool ok = o != NULL;

    ok = ok && add_member(o, "schema_version", json_object_new_int(s->schema_version));
    ok = ok && add_member(o, "name", json_object_new_string(s->name));
    ok = ok && add_member(o, "created_at", json_object_new_string(s->created_at));
    ok = ok && add_member(o, "updated_at", json_object_new_string(s->updated_at));
    ok = ok && add_member(o, "toolscore_version", json_object_new_string(s->toolscore_version));
    ok = ok && add_member(o, "approved", json_object_new_boolean(s->approved));
    ok = ok && add_member(o, "source", json_object_new_string(s->source));
    ok = ok &&
         add_member(o, "calls", s->calls ? json_object_get(s->calls) : json_object_new_array());
    if (!ok) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

int ts_snapshot_serialize(const ts_snapshot *s, ts_buf *out, ts_error *err)
{
    struct json_object *o = ts_snapshot_to_json(s);
    int rc;

    if (o == NULL)
        return no_memory(err);
    rc = ts_json_write_pretty(o, out, err);
    if (rc == 0)
        rc = ts_buf_appendc(out, '\n');
    if (rc == -E2BIG)
        ts_error_set(err, rc, TS_ERR_TOO_LARGE, "snapshot '%s' is too large to write", s->name);
    json_object_put(o);
    return rc;
}
