/*
 * ts_flaky_text — how a flaky name is written: its paths in the drift
 * report's style (`calls[1].args.query`, `calls[0].args["a.b"]`) and in
 * the rules' syntax (`search.args.query`, `search.args."a.b"`), its line
 * in the run's summary, its entry in the JSON report. It calls nothing of
 * the analysis: ts_flaky.c and ts_flaky_report.c call it.
 */
#include "ts_flaky_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"
#include "lib/base/ts_base.h"

/* ---- paths ------------------------------------------------------------- */

void fl_path_report(ts_buf *out, size_t call, const fl_seg *segs, size_t n)
{
    ts_buf_appendf(out, "calls[%zu]", call);
    for (size_t i = 0; i < n; i++) {
        const char *key = segs[i].key;
        size_t len;
        bool plain;

        if (key == NULL) {
            ts_buf_appendf(out, "[%zu]", segs[i].index);
            continue;
        }
        len = strlen(key);
        plain = len > 0 && ts_utf8_valid(key, len);
        for (size_t j = 0; j < len && plain; j++) {
            unsigned char ch = (unsigned char)key[j];

            plain = ch > 0x20 && ch != 0x7f && strchr(".[]\"'\\", ch) == NULL;
        }
        if (plain) {
            ts_buf_appendf(out, ".%s", key);
            continue;
        }
        ts_buf_appendc(out, '[');
        if (ts_json_write_string(key, len, out) < 0)
            ts_buf_appends(out, "\"?\"");
        ts_buf_appendc(out, ']');
    }
}

/* A tool name or key as the rules' path syntax takes it: bare unless it
 * is empty or holds '.', '[', '*' or '"' (then quoted, \" and \\ escaped). */
static void rule_name(ts_buf *out, const char *s, size_t len)
{
    bool bare = len > 0;

    for (size_t i = 0; i < len && bare; i++)
        bare = strchr(".[*\"", s[i]) == NULL;
    if (bare) {
        ts_buf_append(out, s, len);
        return;
    }
    ts_buf_appendc(out, '"');
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '"' || s[i] == '\\')
            ts_buf_appendc(out, '\\');
        ts_buf_appendc(out, s[i]);
    }
    ts_buf_appendc(out, '"');
}

void fl_path_rule(ts_buf *out, const char *tool, size_t tool_len, const fl_seg *segs, size_t n,
                  const bool *star)
{
    rule_name(out, tool, tool_len);
    for (size_t i = 0; i < n; i++) {
        if (segs[i].key == NULL) {
            if (star != NULL && star[i])
                ts_buf_appends(out, "[*]");
            else
                ts_buf_appendf(out, "[%zu]", segs[i].index);
        } else {
            ts_buf_appendc(out, '.');
            rule_name(out, segs[i].key, strlen(segs[i].key));
        }
    }
}

/* ---- the line ---------------------------------------------------------- */

static void path_text(ts_buf *out, const ts_flaky_path *p)
{
    ts_buf_appends(out, p->path);
    if (p->call)
        ts_buf_appendf(out, " present in %lld of %lld", (long long)p->present, (long long)p->of);
    else if (p->present == p->of)
        ts_buf_appendf(out, " (%lld values)", (long long)p->values);
    else if (p->values <= 1)
        ts_buf_appendf(out, " present in %lld of %lld", (long long)p->present, (long long)p->of);
    else
        ts_buf_appendf(out, " (%lld values, present in %lld of %lld)", (long long)p->values,
                       (long long)p->present, (long long)p->of);
}

/* The name, cut at a character boundary past TS_FLAKY_NAME_MAX bytes. */
static void name_text(ts_buf *out, const char *name)
{
    size_t len = strlen(name);
    size_t keep = ts_utf8_cut(name, len, TS_FLAKY_NAME_MAX);

    ts_buf_append(out, name, keep);
    if (keep < len)
        ts_buf_appends(out, "...");
}

int fl_line(ts_flaky *f)
{
    size_t shown = f->npaths < TS_FLAKY_LINE_PATHS ? f->npaths : TS_FLAKY_LINE_PATHS;
    size_t more = f->npaths - shown + f->paths_omitted;
    ts_buf b;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ts_buf_appends(&b, "flaky: ");
    name_text(&b, f->name);
    ts_buf_appendf(&b, " \xe2\x80\x94 %lld runs, %lld distinct%s", (long long)f->observations,
                   (long long)f->distinct, f->pending ? " (pending approval)" : "");
    for (size_t i = 0; i < shown; i++) {
        ts_buf_appends(&b, i == 0 ? "; varied: " : ", ");
        path_text(&b, &f->paths[i]);
    }
    if (more > 0)
        ts_buf_appendf(&b, ", and %zu more", more);
    if (f->reordered)
        ts_buf_appendf(&b, "; reordered in %lld of %lld", (long long)f->reordered_count,
                       (long long)f->analysed);
    f->line = ts_buf_detach(&b, NULL);
    return f->line != NULL ? 0 : -ENOMEM;
}

/* ---- the JSON report's entry -------------------------------------------- */

static struct json_object *tristate(int v)
{
    return v < 0 ? NULL : json_object_new_boolean(v);
}

static struct json_object *path_json(const ts_flaky_path *p)
{
    struct json_object *o = json_object_new_object();

    json_object_object_add(o, "path", json_object_new_string(p->path));
    if (!p->call) {
        struct json_object *samples = json_object_new_array();

        for (size_t i = 0; i < p->nsamples; i++) {
            struct json_object *s = json_object_new_object();

            json_object_object_add(s, "value", ts_json_copy(p->samples[i].value));
            json_object_object_add(s, "count", json_object_new_int64(p->samples[i].count));
            json_object_array_add(samples, s);
        }
        json_object_object_add(o, "values", json_object_new_int64(p->values));
        json_object_object_add(o, "samples", samples);
    }
    if (p->call || p->present < p->of) {
        json_object_object_add(o, "present", json_object_new_int64(p->present));
        json_object_object_add(o, "of", json_object_new_int64(p->of));
    }
    return o;
}

struct json_object *ts_flaky_json(const ts_flaky *f)
{
    struct json_object *o = json_object_new_object();
    struct json_object *varied = json_object_new_array();

    if (o == NULL || varied == NULL) {
        json_object_put(o);
        json_object_put(varied);
        return NULL;
    }
    for (size_t i = 0; i < f->npaths; i++)
        json_object_array_add(varied, path_json(&f->paths[i]));
    json_object_object_add(o, "name", json_object_new_string(f->name));
    json_object_object_add(o, "observations", json_object_new_int64(f->observations));
    json_object_object_add(o, "distinct", json_object_new_int64(f->distinct));
    json_object_object_add(o, "k", json_object_new_int64(f->k));
    json_object_object_add(o, "pass^k", tristate(f->pass_all));
    json_object_object_add(o, "pass@k", tristate(f->pass_any));
    json_object_object_add(o, "pending", json_object_new_boolean(f->pending));
    json_object_object_add(o, "reordered", json_object_new_boolean(f->reordered));
    json_object_object_add(o, "varied", varied);
    json_object_object_add(o, "line", json_object_new_string(f->line ? f->line : ""));
    return o;
}
