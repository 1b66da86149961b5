/*
 * run_records — a run's files in the state directory (see runs_internal.h).
 */
#include "runs_internal.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sha1.h>

#include "lib/json/ts_json.h"
#include "lib/check/ts_check.h"

#define HASHES_MAGIC "tsrefs1"

/* ---- run.json ---------------------------------------------------------- */

void tsd_run_meta_free(tsd_run_meta *m)
{
    free(m->store);
    free(m->label);
    free(m->host);
    free(m->socket);
    for (size_t i = 0; i < m->nreasons; i++)
        free(m->reasons[i]);
    free(m->reasons);
    json_object_put(m->duplicates);
    json_object_put(m->flaky_lines);
    memset(m, 0, sizeof(*m));
}

static char *dup_or_null(const char *s, bool *fail)
{
    char *d = s != NULL ? strdup(s) : NULL;

    if (s != NULL && d == NULL)
        *fail = true;
    return d;
}

int tsd_run_meta_copy(tsd_run_meta *dst, const tsd_run_meta *src)
{
    bool fail = false;

    *dst = *src;
    dst->store = dup_or_null(src->store, &fail);
    dst->label = dup_or_null(src->label, &fail);
    dst->host = dup_or_null(src->host, &fail);
    dst->socket = dup_or_null(src->socket, &fail);
    dst->reasons = NULL;
    dst->nreasons = 0;
    dst->duplicates = src->duplicates != NULL ? ts_json_copy(src->duplicates) : NULL;
    if (src->duplicates != NULL && dst->duplicates == NULL)
        fail = true;
    dst->flaky_lines = src->flaky_lines != NULL ? ts_json_copy(src->flaky_lines) : NULL;
    if (src->flaky_lines != NULL && dst->flaky_lines == NULL)
        fail = true;
    if (src->nreasons > 0) {
        dst->reasons = calloc(src->nreasons, sizeof(char *));
        fail = fail || dst->reasons == NULL;
        for (size_t i = 0; dst->reasons != NULL && i < src->nreasons; i++) {
            dst->reasons[i] = dup_or_null(src->reasons[i], &fail);
            dst->nreasons++;
        }
    }
    if (fail) {
        tsd_run_meta_free(dst);
        return -ENOMEM;
    }
    return 0;
}

static struct json_object *str_or_null(const char *s)
{
    return s != NULL ? json_object_new_string(s) : NULL;
}

static struct json_object *time_or_null(int64_t ms)
{
    char t[32];

    if (ms < 0)
        return NULL;
    ts_runreport_format_time(ms, t);
    return json_object_new_string(t);
}

int tsd_run_meta_write(int dir, const tsd_run_meta *m, ts_error *err)
{
    struct json_object *o = json_object_new_object();
    struct json_object *reasons = json_object_new_array();
    ts_buf b;
    int rc;

    for (size_t i = 0; i < m->nreasons; i++)
        json_object_array_add(reasons, json_object_new_string(m->reasons[i]));
    json_object_object_add(o, "version", json_object_new_int(1));
    json_object_object_add(o, "id", json_object_new_string(m->id));
    json_object_object_add(o, "store", str_or_null(m->store));
    json_object_object_add(o, "label", str_or_null(m->label));
    json_object_object_add(o, "host", str_or_null(m->host));
    json_object_object_add(o, "socket", str_or_null(m->socket));
    json_object_object_add(o, "opened", time_or_null(m->opened_ms));
    json_object_object_add(o, "closed", time_or_null(m->closed_ms));
    json_object_object_add(o, "partial", json_object_new_boolean(m->partial));
    json_object_object_add(o, "partial_reasons", reasons);
    if (m->has_counts) {
        struct json_object *c = json_object_new_object();

        json_object_object_add(c, "created", json_object_new_int64(m->counts.created));
        json_object_object_add(c, "updated", json_object_new_int64(m->counts.updated));
        json_object_object_add(c, "unchanged", json_object_new_int64(m->counts.unchanged));
        json_object_object_add(c, "pending", json_object_new_int64(m->counts.pending));
        json_object_object_add(c, "passed", json_object_new_int64(m->counts.passed));
        json_object_object_add(c, "failed", json_object_new_int64(m->counts.failed));
        json_object_object_add(c, "errors", json_object_new_int64(m->counts.errors));
        json_object_object_add(o, "counts", c);
        json_object_object_add(o, "checks", json_object_new_int64(m->checks));
        json_object_object_add(o, "duplicates", json_object_get(m->duplicates));
        if (m->flaky_lines != NULL)
            json_object_object_add(o, "flaky_lines", json_object_get(m->flaky_lines));
    }
    ts_buf_init(&b, TSD_RUN_JSON_MAX);
    rc = ts_json_write_pretty(o, &b, err);
    json_object_put(o);
    if (rc == 0)
        rc = ts_buf_appendc(&b, '\n') < 0
                 ? ts_error_set(err, -E2BIG, TS_ERR_TOO_LARGE, "run.json too large")
                 : 0;
    if (rc == 0)
        rc = ts_state_write_file(dir, "run.json", b.data, b.len, false, err);
    ts_buf_free(&b);
    return rc;
}

static int meta_bad(ts_error *err, const char *what)
{
    return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "run.json: %s", what);
}

static int meta_string(struct json_object *o, const char *key, bool nullable, char **out,
                       ts_error *err)
{
    struct json_object *v = NULL;

    if (!json_object_object_get_ex(o, key, &v) || (v == NULL && !nullable) ||
        (v != NULL && !json_object_is_type(v, json_type_string)))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "run.json: \"%s\" missing or not a string", key);
    if (v != NULL && (*out = strdup(json_object_get_string(v))) == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    return 0;
}

static int meta_time(struct json_object *o, const char *key, bool nullable, int64_t *out,
                     ts_error *err)
{
    char *s = NULL;
    int rc = meta_string(o, key, nullable, &s, err);

    *out = -1;
    if (rc == 0 && s != NULL && ts_runreport_parse_time(s, out) < 0)
        rc =
            ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "run.json: \"%s\" is no time", key);
    free(s);
    return rc;
}

static int meta_counts(struct json_object *o, tsd_run_meta *m, ts_error *err)
{
    static const char *const keys[] = {"created", "updated", "pending",
                                       "passed",  "failed",  "errors"};
    int64_t *slots[] = {&m->counts.created, &m->counts.updated, &m->counts.pending,
                        &m->counts.passed,  &m->counts.failed,  &m->counts.errors};
    struct json_object *c = NULL;
    struct json_object *v = NULL;

    if (!json_object_object_get_ex(o, "counts", &c))
        return 0;
    if (!json_object_is_type(c, json_type_object))
        return meta_bad(err, "\"counts\" is not an object");
    for (size_t i = 0; i < 6; i++) {
        if (!json_object_object_get_ex(c, keys[i], &v) || !json_object_is_type(v, json_type_int) ||
            json_object_get_int64(v) < 0)
            return meta_bad(err, "a count is missing or not a count");
        *slots[i] = json_object_get_int64(v);
    }
    /* of updated; run.json of earlier versions has none */
    if (json_object_object_get_ex(c, "unchanged", &v)) {
        if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0 ||
            json_object_get_int64(v) > m->counts.updated)
            return meta_bad(err, "\"unchanged\" is not a count of updated");
        m->counts.unchanged = json_object_get_int64(v);
    }
    if (!json_object_object_get_ex(o, "checks", &v) || !json_object_is_type(v, json_type_int))
        return meta_bad(err, "\"checks\" missing");
    m->checks = json_object_get_int64(v);
    if (json_object_object_get_ex(o, "duplicates", &v) && v != NULL) {
        if (!json_object_is_type(v, json_type_array))
            return meta_bad(err, "\"duplicates\" is not an array");
        m->duplicates = json_object_get(v);
    }
    if (json_object_object_get_ex(o, "flaky_lines", &v) && v != NULL) {
        if (!json_object_is_type(v, json_type_array))
            return meta_bad(err, "\"flaky_lines\" is not an array");
        for (size_t i = 0; i < json_object_array_length(v); i++) {
            if (!json_object_is_type(json_object_array_get_idx(v, i), json_type_string))
                return meta_bad(err, "\"flaky_lines\" holds something other than lines");
        }
        m->flaky_lines = json_object_get(v);
    }
    m->has_counts = true;
    return 0;
}

int tsd_run_meta_read(int dir, tsd_run_meta *m, ts_error *err)
{
    struct json_object *o = NULL;
    struct json_object *v = NULL;
    char *text = NULL;
    char *id = NULL;
    size_t len;
    int rc;

    memset(m, 0, sizeof(*m));
    rc = ts_state_read_file(dir, "run.json", TSD_RUN_JSON_MAX, &text, &len, err);
    if (rc == 0)
        rc = ts_json_parse(text, len, 0, &o, err);
    free(text);
    if (rc < 0)
        return rc;
    if (!json_object_is_type(o, json_type_object))
        rc = meta_bad(err, "not an object");
    if (rc == 0)
        rc = meta_string(o, "id", false, &id, err);
    if (rc == 0 && strlen(id) >= sizeof(m->id))
        rc = meta_bad(err, "\"id\" too long");
    if (rc == 0)
        snprintf(m->id, sizeof(m->id), "%s", id);
    free(id);
    if (rc == 0)
        rc = meta_string(o, "store", false, &m->store, err);
    if (rc == 0)
        rc = meta_string(o, "label", true, &m->label, err);
    if (rc == 0)
        rc = meta_string(o, "host", true, &m->host, err);
    if (rc == 0)
        rc = meta_string(o, "socket", true, &m->socket, err);
    if (rc == 0)
        rc = meta_time(o, "opened", false, &m->opened_ms, err);
    if (rc == 0)
        rc = meta_time(o, "closed", true, &m->closed_ms, err);
    if (rc == 0 && json_object_object_get_ex(o, "partial", &v))
        m->partial = json_object_get_boolean(v);
    if (rc == 0 && json_object_object_get_ex(o, "partial_reasons", &v) &&
        json_object_is_type(v, json_type_array)) {
        size_t n = json_object_array_length(v);

        if (n > TS_RUNREPORT_MAX_REASONS)
            n = TS_RUNREPORT_MAX_REASONS;
        m->reasons = calloc(n ? n : 1, sizeof(char *));
        for (size_t i = 0; m->reasons != NULL && i < n; i++) {
            const char *s = json_object_get_string(json_object_array_get_idx(v, i));

            if ((m->reasons[m->nreasons] = strdup(s != NULL ? s : "")) != NULL)
                m->nreasons++;
        }
    }
    if (rc == 0)
        rc = meta_counts(o, m, err);
    json_object_put(o);
    if (rc < 0)
        tsd_run_meta_free(m);
    return rc;
}

/* ---- observations and lines ------------------------------------------ */

/* tsd_run_observe, the calls given as their object or (calls_text not
 * NULL) as their compact text and its id. */
static int observe(tsd_run_observation *o, const struct json_object *calls, const char *calls_text,
                   size_t calls_len, const char *calls_id, const char *report,
                   const struct json_object *baseline, const struct json_object *rules,
                   ts_error *err)
{
    int rc = 0;

    memset(o, 0, sizeof(*o));
    ts_buf_init(&o->calls_text, TS_BUF_UNLIMITED);
    ts_buf_init(&o->report_text, TS_BUF_UNLIMITED);
    ts_buf_init(&o->baseline_text, TS_BUF_UNLIMITED);
    ts_buf_init(&o->rules_text, TS_BUF_UNLIMITED);
    if (rules != NULL) {
        rc = ts_json_write_compact(rules, &o->rules_text, err);
        if (rc == 0)
            ts_runreport_text_id(o->rules_text.data ? o->rules_text.data : "", o->rules_text.len,
                                 o->rules_id);
    }
    if (rc == 0 && calls_text != NULL) {
        if (ts_buf_append(&o->calls_text, calls_text, calls_len) < 0)
            rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
        else
            snprintf(o->calls_id, sizeof(o->calls_id), "%s", calls_id);
    } else if (rc == 0 && calls != NULL) {
        /* The id is ts_runreport_calls_id's: the SHA-1 of this text. */
        rc = ts_json_write_compact(calls, &o->calls_text, err);
        if (rc == 0)
            ts_runreport_text_id(o->calls_text.data ? o->calls_text.data : "", o->calls_text.len,
                                 o->calls_id);
    }
    if (rc == 0 && report != NULL) {
        if (ts_runreport_cut(report, strlen(report), TS_RUNREPORT_REPORT_MAX, &o->report_text) < 0)
            rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
        else
            ts_runreport_text_id(o->report_text.data ? o->report_text.data : "", o->report_text.len,
                                 o->report_id);
    }
    if (rc == 0 && baseline != NULL) {
        rc = ts_json_write_compact(baseline, &o->baseline_text, err);
        if (rc == 0)
            ts_runreport_text_id(o->baseline_text.data ? o->baseline_text.data : "",
                                 o->baseline_text.len, o->baseline_id);
    }
    if (rc < 0) {
        tsd_run_observation_free(o);
        return rc;
    }
    o->ready = true;
    return 0;
}

int tsd_run_observe(tsd_run_observation *o, const struct json_object *calls, const char *report,
                    const struct json_object *baseline, const struct json_object *rules,
                    ts_error *err)
{
    return observe(o, calls, NULL, 0, NULL, report, baseline, rules, err);
}

int tsd_run_observe_text(tsd_run_observation *o, const char *calls_text, size_t calls_len,
                         const char *calls_id, const char *report,
                         const struct json_object *baseline, const struct json_object *rules,
                         ts_error *err)
{
    return observe(o, NULL, calls_text, calls_len, calls_id, report, baseline, rules, err);
}

void tsd_run_observation_free(tsd_run_observation *o)
{
    ts_buf_free(&o->calls_text);
    ts_buf_free(&o->report_text);
    ts_buf_free(&o->baseline_text);
    ts_buf_free(&o->rules_text);
    o->ready = false;
}

static void key(ts_buf *b, const char *k, bool first)
{
    ts_buf_appends(b, first ? "{\"" : ", \"");
    ts_buf_appends(b, k);
    ts_buf_appends(b, "\": ");
}

static void string_or_null(ts_buf *b, const char *s)
{
    if (s == NULL)
        ts_buf_appends(b, "null");
    else
        ts_json_write_string(s, strlen(s), b);
}

static void number_or_null(ts_buf *b, double d)
{
    char num[TS_JSON_DOUBLE_MAX];

    if (d < 0 || ts_json_format_double(d, num) < 0)
        ts_buf_appends(b, "null");
    else
        ts_buf_appends(b, num);
}

int tsd_run_line_encode(const tsd_run_line *l, ts_buf *out, ts_error *err)
{
    key(out, "name", true);
    string_or_null(out, l->name);
    key(out, "test", false);
    string_or_null(out, l->test);
    key(out, "outcome", false);
    string_or_null(out, l->outcome);
    if (l->unchanged) {
        key(out, "unchanged", false);
        ts_buf_appends(out, "true");
    }
    key(out, "score", false);
    number_or_null(out, l->score);
    key(out, "min_score", false);
    number_or_null(out, l->min_score);
    key(out, "ms", false);
    number_or_null(out, l->duration_ms < 0 ? 0 : l->duration_ms);
    key(out, "message", false);
    string_or_null(out, l->message != NULL ? l->message : "");
    key(out, "report_id", false);
    string_or_null(out, l->report_id);
    if (l->report != NULL) {
        key(out, "report", false);
        string_or_null(out, l->report);
    }
    key(out, "calls_id", false);
    string_or_null(out, l->calls_id);
    if (l->calls_text != NULL) {
        key(out, "calls", false);
        ts_buf_appends(out, l->calls_text);
    }
    if (l->baseline_id != NULL) {
        key(out, "baseline_id", false);
        string_or_null(out, l->baseline_id);
    }
    if (l->baseline_text != NULL) {
        key(out, "baseline", false);
        ts_buf_appends(out, l->baseline_text);
    }
    if (l->rules_id != NULL) {
        key(out, "rules_id", false);
        string_or_null(out, l->rules_id);
    }
    if (l->rules_text != NULL) {
        key(out, "rules", false);
        ts_buf_appends(out, l->rules_text);
    }
    if (ts_buf_appends(out, "}\n") < 0)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    return 0;
}

/* The string member key (NULL when absent or null); false when present
 * and not a string. */
static bool line_string(struct json_object *o, const char *key, const char **out)
{
    struct json_object *v = NULL;

    *out = NULL;
    if (!json_object_object_get_ex(o, key, &v) || v == NULL)
        return true;
    if (!json_object_is_type(v, json_type_string))
        return false;
    *out = json_object_get_string(v);
    return true;
}

static bool line_number(struct json_object *o, const char *key, double *out)
{
    struct json_object *v = NULL;

    *out = -1;
    if (!json_object_object_get_ex(o, key, &v) || v == NULL)
        return true;
    if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
        return false;
    *out = json_object_get_double(v);
    return *out >= 0;
}

static bool id_ok(const char *id)
{
    return id == NULL || (strlen(id) == TS_RUNREPORT_CALLS_ID_LEN &&
                          strspn(id, "0123456789abcdef") == TS_RUNREPORT_CALLS_ID_LEN);
}

/* The record of one parsed line; false when it is not one. */
static bool line_decode(struct json_object *o, tsd_run_line *l)
{
    struct json_object *calls = NULL, *rules = NULL;
    struct json_object *baseline = NULL, *unchanged = NULL;

    memset(l, 0, sizeof(*l));
    if (!json_object_is_type(o, json_type_object) || !line_string(o, "name", &l->name) ||
        !line_string(o, "test", &l->test) || !line_string(o, "outcome", &l->outcome) ||
        !line_string(o, "message", &l->message) || !line_string(o, "report_id", &l->report_id) ||
        !line_string(o, "report", &l->report) || !line_string(o, "calls_id", &l->calls_id) ||
        !line_string(o, "baseline_id", &l->baseline_id) ||
        !line_string(o, "rules_id", &l->rules_id) || !line_number(o, "score", &l->score) ||
        !line_number(o, "min_score", &l->min_score) || !line_number(o, "ms", &l->duration_ms))
        return false;
    if (json_object_object_get_ex(o, "unchanged", &unchanged)) {
        if (!json_object_is_type(unchanged, json_type_boolean))
            return false;
        l->unchanged = json_object_get_boolean(unchanged);
    }
    if (l->name == NULL || ts_runreport_outcome_of(l->outcome) < 0 || !id_ok(l->report_id) ||
        !id_ok(l->calls_id) || !id_ok(l->baseline_id) || !id_ok(l->rules_id) ||
        (l->report != NULL && l->report_id == NULL))
        return false;
    if (json_object_object_get_ex(o, "rules", &rules) && rules != NULL) {
        if (!json_object_is_type(rules, json_type_object) || l->rules_id == NULL)
            return false;
        l->rules = rules;
    }
    if (json_object_object_get_ex(o, "calls", &calls) && calls != NULL) {
        if (!json_object_is_type(calls, json_type_array) || l->calls_id == NULL)
            return false;
        l->calls = calls;
    }
    if (json_object_object_get_ex(o, "baseline", &baseline) && baseline != NULL) {
        if (!json_object_is_type(baseline, json_type_array) || l->baseline_id == NULL)
            return false;
        l->baseline = baseline;
    }
    if (l->message == NULL)
        l->message = "";
    if (l->duration_ms < 0)
        l->duration_ms = 0;
    return true;
}

int tsd_run_lines_read(int dir, tsd_run_line_fn fn, void *arg, size_t *bad, uint64_t *good_end,
                       ts_error *err)
{
    int fd = openat(dir, "checks.jsonl", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    uint64_t offset = 0;
    size_t skipped = 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    FILE *f;
    int rc = 0;

    if (bad != NULL)
        *bad = 0;
    if (good_end != NULL)
        *good_end = 0;
    if (fd < 0 && errno == ENOENT)
        return 0;
    if (fd < 0 || (f = fdopen(fd, "r")) == NULL) {
        rc = ts_error_set(err, -errno, TS_ERR_IO, "cannot read checks.jsonl: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return rc;
    }
    while (rc == 0 && (n = getline(&line, &cap, f)) > 0) {
        struct json_object *o = NULL;
        tsd_run_line l;
        ts_error ignored;

        if (line[n - 1] != '\n')
            break; /* torn: the last append did not finish */
        offset += (uint64_t)n;
        if ((size_t)n > TSD_RUN_LINE_MAX ||
            ts_json_parse(line, (size_t)n - 1, 0, &o, &ignored) < 0 || !line_decode(o, &l)) {
            skipped++;
        } else {
            rc = fn(&l, arg, err);
        }
        json_object_put(o);
    }
    if (rc == 0 && ferror(f))
        rc = ts_error_set(err, -EIO, TS_ERR_IO, "cannot read checks.jsonl: %s", strerror(errno));
    free(line);
    fclose(f);
    if (bad != NULL)
        *bad = skipped;
    if (good_end != NULL)
        *good_end = offset;
    return rc;
}

/* ---- name hashes ----------------------------------------------------- */

uint64_t tsd_run_name_hash(const char *name)
{
    uint8_t digest[SHA1_DIGEST_LENGTH];
    SHA1_CTX ctx;
    uint64_t h = 0;

    SHA1Init(&ctx);
    SHA1Update(&ctx, (const uint8_t *)name, strlen(name));
    SHA1Final(digest, &ctx);
    for (int i = 0; i < 8; i++)
        h = h << 8 | digest[i];
    return h;
}

bool tsd_run_hashes_has(const uint64_t *a, size_t n, uint64_t h)
{
    size_t lo = 0;
    size_t hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (a[mid] == h)
            return true;
        if (a[mid] < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

int tsd_run_hashes_write(int dir, const uint64_t *referenced, size_t nref, const uint64_t *failed,
                         size_t nfailed, ts_error *err)
{
    size_t len = 24 + 8 * (nref + nfailed);
    unsigned char *buf = malloc(len);
    uint64_t v;
    int rc;

    if (buf == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    memcpy(buf, HASHES_MAGIC, 8);
    v = htole64(nref);
    memcpy(buf + 8, &v, 8);
    v = htole64(nfailed);
    memcpy(buf + 16, &v, 8);
    for (size_t i = 0; i < nref; i++) {
        v = htole64(referenced[i]);
        memcpy(buf + 24 + 8 * i, &v, 8);
    }
    for (size_t i = 0; i < nfailed; i++) {
        v = htole64(failed[i]);
        memcpy(buf + 24 + 8 * (nref + i), &v, 8);
    }
    rc = ts_state_write_file(dir, "referenced", buf, len, false, err);
    free(buf);
    return rc;
}

/* n hashes from p into a new sorted array. */
static int hashes_of(const unsigned char *p, size_t n, uint64_t **out)
{
    uint64_t *a = malloc((n ? n : 1) * sizeof(uint64_t));

    if (a == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        uint64_t v;

        memcpy(&v, p + 8 * i, 8);
        a[i] = le64toh(v);
        if (i > 0 && a[i] <= a[i - 1]) {
            free(a);
            return -EINVAL;
        }
    }
    *out = a;
    return 0;
}

int tsd_run_hashes_read(int dir, uint64_t **referenced, size_t *nref, uint64_t **failed,
                        size_t *nfailed, ts_error *err)
{
    char *data = NULL;
    size_t len = 0;
    uint64_t a, b;
    int rc = ts_state_read_file(dir, "referenced", (size_t)8 * TS_RUNREPORT_MAX_CHECKS * 2 + 24,
                                &data, &len, err);

    *referenced = *failed = NULL;
    *nref = *nfailed = 0;
    if (rc < 0)
        return rc;
    if (len < 24 || memcmp(data, HASHES_MAGIC, 8) != 0) {
        free(data);
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "referenced: not a hash file");
    }
    memcpy(&a, data + 8, 8);
    memcpy(&b, data + 16, 8);
    a = le64toh(a);
    b = le64toh(b);
    if (a > TS_RUNREPORT_MAX_CHECKS || b > TS_RUNREPORT_MAX_CHECKS || len != 24 + 8 * (a + b)) {
        free(data);
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "referenced: wrong length");
    }
    rc = hashes_of((unsigned char *)data + 24, (size_t)a, referenced);
    if (rc == 0) {
        rc = hashes_of((unsigned char *)data + 24 + 8 * a, (size_t)b, failed);
        if (rc < 0) {
            free(*referenced);
            *referenced = NULL;
        }
    }
    free(data);
    if (rc < 0)
        return ts_error_set(err, rc, rc == -ENOMEM ? TS_ERR_NO_MEMORY : TS_ERR_INVALID_ARGUMENT,
                            "referenced: unreadable");
    *nref = (size_t)a;
    *nfailed = (size_t)b;
    return 0;
}
