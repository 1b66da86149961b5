/*
 * ts_repr — Python repr() of JSON values and code-point text helpers
 * (see ts_report.h).
 *
 * Python's str.isprintable() depends on the whole Unicode database; this
 * module escapes the characters a tool call can realistically carry that
 * repr() escapes: C0/C1 controls, DEL, no-break and other separators, line
 * and paragraph separators, soft hyphen, bidi and zero-width format
 * characters, the BOM, private use and surrogates.
 */
#include "lib/report/ts_report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "lib/json/ts_json.h"
#include "lib/base/ts_base.h"

#define ELLIPSIS "\xe2\x80\xa6"

typedef struct cp_range {
    uint32_t first, last;
} cp_range;

/* Two terminal cells: East Asian Wide and Fullwidth (Hangul Jamo, CJK,
 * Kana, Hangul syllables, fullwidth forms, the emoji blocks, the
 * supplementary ideographic planes). */
static const cp_range wide[] = {
    {0x1100, 0x115F},   {0x231A, 0x231B},   {0x2329, 0x232A},   {0x23E9, 0x23EC},
    {0x23F0, 0x23F0},   {0x23F3, 0x23F3},   {0x25FD, 0x25FE},   {0x2614, 0x2615},
    {0x2648, 0x2653},   {0x267F, 0x267F},   {0x2693, 0x2693},   {0x26A1, 0x26A1},
    {0x26AA, 0x26AB},   {0x26BD, 0x26BE},   {0x26C4, 0x26C5},   {0x26CE, 0x26CE},
    {0x26D4, 0x26D4},   {0x26EA, 0x26EA},   {0x26F2, 0x26F3},   {0x26F5, 0x26F5},
    {0x26FA, 0x26FA},   {0x26FD, 0x26FD},   {0x2705, 0x2705},   {0x270A, 0x270B},
    {0x2728, 0x2728},   {0x274C, 0x274C},   {0x274E, 0x274E},   {0x2753, 0x2755},
    {0x2757, 0x2757},   {0x2795, 0x2797},   {0x27B0, 0x27B0},   {0x27BF, 0x27BF},
    {0x2B1B, 0x2B1C},   {0x2B50, 0x2B50},   {0x2B55, 0x2B55},   {0x2E80, 0x303E},
    {0x3041, 0x33FF},   {0x3400, 0x4DBF},   {0x4E00, 0x9FFF},   {0xA000, 0xA4CF},
    {0xA960, 0xA97F},   {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},   {0xFE10, 0xFE19},
    {0xFE30, 0xFE6F},   {0xFF00, 0xFF60},   {0xFFE0, 0xFFE6},   {0x16FE0, 0x16FE4},
    {0x17000, 0x18CFF}, {0x1B000, 0x1B2FF}, {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF},
    {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F251}, {0x1F300, 0x1F64F},
    {0x1F680, 0x1F6FF}, {0x1F7E0, 0x1F7EB}, {0x1F90C, 0x1F9FF}, {0x1FA70, 0x1FAFF},
    {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD},
};

/* No cell of their own: combining marks of the common scripts, zero-width
 * spaces and joiners, variation selectors. */
static const cp_range zero[] = {
    {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x05BF, 0x05BF},   {0x05C1, 0x05C2},
    {0x05C4, 0x05C5}, {0x05C7, 0x05C7}, {0x0610, 0x061A}, {0x064B, 0x065F},   {0x0670, 0x0670},
    {0x06D6, 0x06DC}, {0x06DF, 0x06E4}, {0x06E7, 0x06E8}, {0x06EA, 0x06ED},   {0x0900, 0x0902},
    {0x093A, 0x093A}, {0x093C, 0x093C}, {0x0941, 0x0948}, {0x094D, 0x094D},   {0x0951, 0x0957},
    {0x0E31, 0x0E31}, {0x0E34, 0x0E3A}, {0x0E47, 0x0E4E}, {0x1AB0, 0x1AFF},   {0x1DC0, 0x1DFF},
    {0x200B, 0x200F}, {0x2060, 0x2064}, {0x20D0, 0x20FF}, {0x302A, 0x302D},   {0x3099, 0x309A},
    {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F}, {0xFEFF, 0xFEFF}, {0xE0100, 0xE01EF},
};

static bool in_ranges(uint32_t cp, const cp_range *r, size_t n)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp < r[mid].first)
            hi = mid;
        else if (cp > r[mid].last)
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

/* The code point starting at s[*i]; *i moves past it. A byte that does not
 * start a valid sequence counts as one code point of its own. */
static uint32_t next_code_point(const unsigned char *s, size_t len, size_t *i)
{
    uint32_t cp = s[*i];
    size_t n = ts_utf8_decode(s + *i, len - *i, &cp);

    *i += n > 0 ? n : 1;
    return cp;
}

size_t ts_repr_char_width(uint32_t cp)
{
    if (cp >= 0x300 && in_ranges(cp, zero, sizeof(zero) / sizeof(zero[0])))
        return 0;
    if (cp >= 0x1100 && in_ranges(cp, wide, sizeof(wide) / sizeof(wide[0])))
        return 2;
    return 1;
}

size_t ts_repr_width(const char *s, size_t len)
{
    size_t n = 0;

    for (size_t i = 0; i < len;) {
        if ((unsigned char)s[i] < 0x80) { /* ASCII, the usual case */
            n++;
            i++;
            continue;
        }
        n += ts_repr_char_width(next_code_point((const unsigned char *)s, len, &i));
    }
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

    ts_buf_append(out, s, keep);
    if (keep < len)
        ts_buf_appends(out, ELLIPSIS);
    return ts_buf_error(out);
}

/* ---------------------------------------------------------------------------
 * Python repr() of JSON values
 * ------------------------------------------------------------------------- */

static const char *string_of(const struct json_object *s, size_t *len)
{
    *len = (size_t)json_object_get_string_len(s);
    return json_object_get_string((struct json_object *)s);
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

    ts_buf_appendc(out, quote);
    for (size_t i = 0; i < len && ts_buf_error(out) == 0;) {
        uint32_t cp;
        size_t n = ts_utf8_decode(u + i, len - i, &cp);
        if (n == 0) {
            ts_buf_appendf(out, "\\x%02x", u[i]);
            i++;
            continue;
        }
        if (cp == '\\' || cp == (uint32_t)quote)
            ts_buf_appendf(out, "\\%c", (char)cp);
        else if (!python_printable(cp))
            repr_escape(out, cp);
        else
            ts_buf_append(out, s + i, n);
        i += n;
    }
    ts_buf_appendc(out, quote);
    return ts_buf_error(out);
}

static int repr_array(ts_buf *out, const struct json_object *v)
{
    size_t n = json_object_array_length(v);

    ts_buf_appendc(out, '[');
    for (size_t i = 0; i < n && ts_buf_error(out) == 0; i++) {
        if (i > 0)
            ts_buf_appends(out, ", ");
        ts_repr_value(json_object_array_get_idx(v, i), out);
    }
    ts_buf_appendc(out, ']');
    return ts_buf_error(out);
}

static int repr_object(ts_buf *out, const struct json_object *v)
{
    bool first = true;

    ts_buf_appendc(out, '{');
    json_object_object_foreach((struct json_object *)v, key, val)
    {
        if (ts_buf_error(out) < 0)
            break;
        if (!first)
            ts_buf_appends(out, ", ");
        ts_repr_string(key, strlen(key), out);
        ts_buf_appends(out, ": ");
        ts_repr_value(val, out);
        first = false;
    }
    ts_buf_appendc(out, '}');
    return ts_buf_error(out);
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
    if (rc < 0)
        ts_buf_fail(out, rc);
    else
        ts_repr_append_cut(tmp.data ? tmp.data : "", tmp.len, max, out);
    ts_buf_free(&tmp);
    return ts_buf_error(out);
}
