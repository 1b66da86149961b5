/*
 * ts_report_text — the small writers the drift report's parts share
 * (ts_report_internal.h): names, calls and values as text, row labels,
 * word wrapping, colour, and the keys of an object in order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"
#include "lib/report/ts_report.h"
#include "ts_report_internal.h"

const char *ts_report__paint(const ts_report_ctx *c, const char *code)
{
    return c->color ? code : "";
}

void ts_report__repeat(ts_buf *out, char ch, size_t n)
{
    char chunk[64];

    memset(chunk, ch, sizeof(chunk));
    while (n > 0 && ts_buf_error(out) == 0) {
        size_t k = n < sizeof(chunk) ? n : sizeof(chunk);
        ts_buf_append(out, chunk, k);
        n -= k;
    }
}

void ts_report__drop(ts_buf *out, ts_buf *tmp)
{
    ts_buf_fail(out, ts_buf_error(tmp));
    ts_buf_free(tmp);
}

void ts_report__name(ts_buf *out, const char *s, size_t len)
{
    size_t run = 0, i = 0;

    while (i < len) {
        unsigned char ch = (unsigned char)s[i];
        uint32_t cp;
        size_t n = ch < 0x80 ? 1 : ts_utf8_decode((const unsigned char *)s + i, len - i, &cp);
        if (n > 0 && ch >= 0x20 && ch != 0x7f) {
            i += n;
            continue;
        }
        /* a control character or a byte that is not UTF-8 */
        ts_buf_append(out, s + run, i - run);
        ts_buf_appendf(out, "\\x%02x", ch);
        run = ++i;
    }
    ts_buf_append(out, s + run, len - run);
}

/* What stands for a value too long to render whole. */
static const char *placeholder(const struct json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_string:
        return "'" TS_REPORT_ELLIPSIS "'";
    case json_type_array:
        return "[" TS_REPORT_ELLIPSIS "]";
    case json_type_object:
        return "{" TS_REPORT_ELLIPSIS "}";
    default:
        return TS_REPORT_ELLIPSIS;
    }
}

/* repr(v), cut to cut code points (0: whole). */
static void repr_cut(ts_buf *out, const struct json_object *v, size_t cut)
{
    ts_buf tmp;

    ts_buf_init(&tmp, TS_REPORT_VALUE_MAX);
    if (ts_repr_value(v, &tmp) == -E2BIG)
        ts_buf_appends(out, placeholder(v));
    else if (ts_buf_error(&tmp) < 0)
        ts_buf_fail(out, ts_buf_error(&tmp));
    else if (cut == 0)
        ts_buf_append(out, tmp.data ? tmp.data : "", tmp.len);
    else
        ts_repr_append_cut(tmp.data ? tmp.data : "", tmp.len, cut, out);
    ts_buf_free(&tmp);
}

void ts_report__call(ts_buf *out, const ts_report_call *call, size_t cut)
{
    bool first = true;

    ts_report__name(out, call->tool, call->tool_len);
    ts_buf_appendc(out, '(');
    if (call->args == NULL)
        ts_buf_appends(out, TS_REPORT_ELLIPSIS "any args" TS_REPORT_ELLIPSIS);
    else {
        json_object_object_foreach(call->args, key, val)
        {
            if (ts_buf_error(out) < 0)
                break;
            if (!first)
                ts_buf_appends(out, ", ");
            ts_report__name(out, key, strlen(key));
            ts_buf_appendc(out, '=');
            repr_cut(out, val, cut);
            first = false;
        }
    }
    ts_buf_appendc(out, ')');
}

void ts_report__json_value(ts_buf *out, const struct json_object *v)
{
    ts_buf tmp;
    int rc;

    ts_buf_init(&tmp, TS_REPORT_VALUE_MAX);
    rc = ts_json_write_compact(v, &tmp, NULL);
    if (rc == -EINVAL) { /* NaN or invalid UTF-8: as Python would show it */
        ts_buf_free(&tmp);
        rc = ts_repr_value(v, &tmp);
    }
    if (rc == -E2BIG)
        ts_buf_appendf(out, "%s (longer than %u bytes)", placeholder(v), TS_REPORT_VALUE_MAX);
    else if (rc < 0)
        ts_buf_fail(out, rc);
    else
        ts_buf_append(out, tmp.data ? tmp.data : "", tmp.len);
    ts_buf_free(&tmp);
}

void ts_report__row_label(ts_buf *out, const ts_report_row *row)
{
    if (row->g == TS_REPORT_NONE)
        ts_buf_appendf(out, "+%zu", row->t);
    else if (row->t == TS_REPORT_NONE)
        ts_buf_appendf(out, "-%zu", row->g);
    else if (row->g == row->t)
        ts_buf_appendf(out, "%zu", row->g);
    else
        ts_buf_appendf(out, "%zu" TS_REPORT_ARROW "%zu", row->g, row->t);
}

void ts_report__wrap(const ts_report_ctx *c, ts_buf *out, const char *text, size_t len,
                     const char *first, const char *next)
{
    size_t used = ts_repr_width(first, strlen(first)), indent = ts_repr_width(next, strlen(next));
    size_t i = 0;
    bool empty = true; /* no word on this line yet */

    ts_buf_appends(out, first);
    while (i < len && ts_buf_error(out) == 0) {
        size_t start, w;
        while (i < len && text[i] == ' ')
            i++;
        start = i;
        while (i < len && text[i] != ' ')
            i++;
        if (i == start)
            break;
        w = ts_repr_width(text + start, i - start);
        if (!empty && used + 1 + w > c->width) {
            ts_buf_appendc(out, '\n');
            ts_buf_appends(out, next);
            used = indent;
            empty = true;
        }
        if (!empty) {
            ts_buf_appendc(out, ' ');
            used++;
        }
        ts_buf_append(out, text + start, i - start);
        used += w;
        empty = false;
    }
    ts_buf_appendc(out, '\n');
}

void ts_report__path_key(ts_buf *out, const char *key, bool first)
{
    size_t len = strlen(key);
    bool plain = len > 0 && ts_utf8_valid(key, len);

    for (size_t i = 0; i < len && plain; i++) {
        unsigned char ch = (unsigned char)key[i];
        plain = ch > 0x20 && ch != 0x7f && strchr(".[]\"'\\", ch) == NULL;
    }
    if (plain) {
        ts_buf_appendf(out, "%s%s", first ? "" : ".", key);
        return;
    }
    ts_buf_appendc(out, '[');
    if (ts_json_write_string(key, len, out) == -EINVAL) /* not UTF-8 */
        ts_repr_string(key, len, out);
    ts_buf_appendc(out, ']');
}

static int key_cmp(const void *pa, const void *pb)
{
    return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

const char **ts_report__sorted_keys(const struct json_object *obj, size_t *n)
{
    const char **keys;
    size_t k = 0;

    *n = obj ? (size_t)json_object_object_length(obj) : 0;
    keys = malloc((*n + 1) * sizeof(*keys));
    if (keys == NULL)
        return NULL;
    if (obj != NULL) {
        json_object_object_foreach((struct json_object *)obj, key, val)
        {
            (void)val;
            keys[k++] = key;
        }
    }
    qsort(keys, *n, sizeof(*keys), key_cmp);
    return keys;
}
