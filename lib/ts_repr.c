/*
 * ts_repr — Python repr() of JSON values and code-point text helpers
 * (see ts_repr.h).
 *
 * Python's str.isprintable() depends on the whole Unicode database; this
 * module escapes the characters a tool call can realistically carry that
 * repr() escapes: C0/C1 controls, DEL, no-break and other separators, line
 * and paragraph separators, soft hyphen, bidi and zero-width format
 * characters, the BOM, private use and surrogates.
 */
#include "ts_repr.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ts_json.h"

#define ELLIPSIS "\xe2\x80\xa6"

size_t ts_repr_width(const char *s, size_t len)
{
    size_t n = 0;

    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xc0) != 0x80;
    return n;
}

/* Byte offset just past the first max code points of s[0..len). */
static size_t cut_offset(const char *s, size_t len, size_t max)
{
    size_t points = 0;

    for (size_t i = 0; i < len; i++) {
        if (((unsigned char)s[i] & 0xc0) != 0x80) {
            if (points == max)
                return i;
            points++;
        }
    }
    return len;
}

int ts_repr_append_cut(const char *s, size_t len, size_t max, ts_buf *out)
{
    size_t keep = cut_offset(s, len, max);
    int rc = ts_buf_append(out, s, keep);

    if (rc == 0 && keep < len)
        rc = ts_buf_appends(out, ELLIPSIS);
    return rc;
}

/* ---------------------------------------------------------------------------
 * Python repr() of JSON values
 * ------------------------------------------------------------------------- */

static const char *string_of(const struct json_object *s, size_t *len)
{
    *len = (size_t)json_object_get_string_len(s);
    return json_object_get_string((struct json_object *)s);
}

/* Decode one UTF-8 sequence; returns its length, or 0 when invalid. */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    size_t len;
    uint32_t v;

    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    if ((s[0] & 0xe0) == 0xc0) {
        len = 2;
        v = s[0] & 0x1f;
    } else if ((s[0] & 0xf0) == 0xe0) {
        len = 3;
        v = s[0] & 0x0f;
    } else if ((s[0] & 0xf8) == 0xf0) {
        len = 4;
        v = s[0] & 0x07;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3f);
    }
    *cp = v;
    return len;
}

/* Format characters (Cf) outside the ranges below (Unicode 14, as in
 * Python 3.11), e.g. the tag characters of subdivision flag emoji. */
static bool other_format_character(uint32_t cp)
{
    static const uint32_t ranges[][2] = {
        {0x600, 0x605},     {0x61c, 0x61c},     {0x6dd, 0x6dd},     {0x70f, 0x70f},
        {0x890, 0x891},     {0x8e2, 0x8e2},     {0x180e, 0x180e},   {0x110bd, 0x110bd},
        {0x110cd, 0x110cd}, {0x13430, 0x13438}, {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a},
        {0xe0001, 0xe0001}, {0xe0020, 0xe007f},
    };

    for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
        if (cp >= ranges[i][0] && cp <= ranges[i][1])
            return true;
    }
    return false;
}

/* Characters Python's str.isprintable() rejects, except unassigned ones:
 * controls, separators other than ' ', format characters, surrogates and
 * private use. */
static bool python_printable(uint32_t cp)
{
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0xa0) || cp == 0xad)
        return false;
    if (cp >= 0x600 && other_format_character(cp))
        return false;
    if (cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202f) ||
        (cp >= 0x205f && cp <= 0x206f) || cp == 0x3000 || cp == 0xfeff)
        return false;
    if ((cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0xe000 && cp <= 0xf8ff) ||
        (cp >= 0xfff9 && cp <= 0xfffb) || cp >= 0xf0000)
        return false;
    return true;
}

static int repr_escape(ts_buf *out, uint32_t cp)
{
    switch (cp) {
    case '\n':
        return ts_buf_appends(out, "\\n");
    case '\r':
        return ts_buf_appends(out, "\\r");
    case '\t':
        return ts_buf_appends(out, "\\t");
    }
    if (cp < 0x100)
        return ts_buf_appendf(out, "\\x%02x", (unsigned)cp);
    if (cp < 0x10000)
        return ts_buf_appendf(out, "\\u%04x", (unsigned)cp);
    return ts_buf_appendf(out, "\\U%08x", (unsigned)cp);
}

/* repr(str): single quotes unless the text has ' and no ". */
int ts_repr_string(const char *s, size_t len, ts_buf *out)
{
    const unsigned char *u = (const unsigned char *)s;
    char quote = memchr(s, '\'', len) && !memchr(s, '"', len) ? '"' : '\'';
    int rc = ts_buf_appendc(out, quote);

    for (size_t i = 0; i < len && rc == 0;) {
        uint32_t cp;
        size_t n = utf8_decode(u + i, len - i, &cp);
        if (n == 0) {
            rc = ts_buf_appendf(out, "\\x%02x", u[i]);
            i++;
            continue;
        }
        if (cp == '\\' || cp == (uint32_t)quote)
            rc = ts_buf_appendf(out, "\\%c", (char)cp);
        else if (!python_printable(cp))
            rc = repr_escape(out, cp);
        else
            rc = ts_buf_append(out, s + i, n);
        i += n;
    }
    return rc ? rc : ts_buf_appendc(out, quote);
}

static int repr_array(ts_buf *out, const struct json_object *v)
{
    size_t n = json_object_array_length(v);
    int rc = ts_buf_appendc(out, '[');

    for (size_t i = 0; i < n && rc == 0; i++) {
        if (i > 0)
            rc = ts_buf_appends(out, ", ");
        if (rc == 0)
            rc = ts_repr_value(json_object_array_get_idx(v, i), out);
    }
    return rc ? rc : ts_buf_appendc(out, ']');
}

static int repr_object(ts_buf *out, const struct json_object *v)
{
    bool first = true;
    int rc = ts_buf_appendc(out, '{');

    json_object_object_foreach((struct json_object *)v, key, val)
    {
        if (rc == 0 && !first)
            rc = ts_buf_appends(out, ", ");
        if (rc == 0)
            rc = ts_repr_string(key, strlen(key), out);
        if (rc == 0)
            rc = ts_buf_appends(out, ": ");
        if (rc == 0)
            rc = ts_repr_value(val, out);
        first = false;
    }
    return rc ? rc : ts_buf_appendc(out, '}');
}

static int repr_integer(ts_buf *out, const struct json_object *v)
{
    int64_t s = json_object_get_int64(v);

    if (s == INT64_MAX) {
        uint64_t u = json_object_get_uint64(v);
        return ts_buf_appendf(out, "%" PRIu64, u);
    }
    return ts_buf_appendf(out, "%" PRId64, s);
}

static int repr_double(ts_buf *out, double d)
{
    char text[TS_JSON_DOUBLE_MAX];

    if (ts_json_format_double(d, text) < 0)
        return ts_buf_appends(out, d != d ? "nan" : d > 0 ? "inf" : "-inf");
    return ts_buf_appends(out, text);
}

int ts_repr_value(const struct json_object *v, ts_buf *out)
{
    size_t len;
    const char *s;

    switch (json_object_get_type(v)) {
    case json_type_null:
        return ts_buf_appends(out, "None");
    case json_type_boolean:
        return ts_buf_appends(out, json_object_get_boolean(v) ? "True" : "False");
    case json_type_int:
        return repr_integer(out, v);
    case json_type_double:
        return repr_double(out, json_object_get_double(v));
    case json_type_string:
        s = string_of(v, &len);
        return ts_repr_string(s, len, out);
    case json_type_array:
        return repr_array(out, v);
    case json_type_object:
        return repr_object(out, v);
    }
    return ts_buf_appends(out, "?");
}

int ts_repr_value_cut(const struct json_object *v, size_t max, ts_buf *out)
{
    ts_buf tmp;
    int rc;

    ts_buf_init(&tmp, out->max);
    rc = ts_repr_value(v, &tmp);
    if (rc == 0)
        rc = ts_repr_append_cut(tmp.data ? tmp.data : "", tmp.len, max, out);
    ts_buf_free(&tmp);
    return rc;
}
