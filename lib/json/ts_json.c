/*
 * ts_json — strict bounded JSON reader over json-c (see ts_json.h and
 * docs/internals/json.md). The writer is in ts_json_write.c.
 *
 * Reading happens in two passes. A lexical pass (json_lex_*) walks the bytes
 * once and checks everything json-c is lenient about or reports poorly:
 * UTF-8, raw control characters, escapes and surrogate pairs, the number
 * grammar, integers beyond 64 bits, doubles that overflow, NaN/Infinity and
 * other bare words, "\u0000" in object keys, and the nesting depth. json-c
 * then builds the tree and checks the structure (with a backstop depth limit
 * and JSON_TOKENER_STRICT, which also refuses trailing content). json-c 0.16
 * corrupts some escaped surrogate pairs (see pair_mangled_by_json_c); a text
 * that has one is handed to json-c with those pairs written as raw UTF-8.
 */
#include "lib/json/ts_json.h"
#include "ts_json_internal.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the "C" locale for number conversions ------------------------------ */

static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static locale_t c_locale = (locale_t)0;

static void c_locale_init(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

locale_t ts_json__c_locale_enter(void)
{
    pthread_once(&c_locale_once, c_locale_init);
    if (c_locale == (locale_t)0)
        return (locale_t)0;
    return uselocale(c_locale);
}

void ts_json__c_locale_leave(locale_t previous)
{
    if (previous != (locale_t)0)
        uselocale(previous);
}

/* ---- error positions ---------------------------------------------------- */

/* 1-based line and column (in code points) of offset in buf. */
static void text_position(const char *buf, size_t len, size_t offset, size_t *line, size_t *column)
{
    size_t l = 1;
    size_t c = 1;

    if (offset > len)
        offset = len;
    for (size_t i = 0; i < offset; i++) {
        unsigned char b = (unsigned char)buf[i];

        if (b == '\n') {
            l++;
            c = 1;
        } else if ((b & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *column = c;
}

static int syntax_error(ts_error *err, const char *buf, size_t len, size_t offset, const char *what)
{
    size_t line;
    size_t column;

    text_position(buf, len, offset, &line, &column);
    return ts_error_set(err, -EINVAL, TS_ERR_INVALID_JSON, "line %zu, column %zu: %s", line, column,
                        what);
}

/* ---- the lexical pass --------------------------------------------------- */

typedef struct json_lex {
    const char *buf;
    size_t len;
    size_t pos;
    int depth;
    int max_depth;
    size_t fail_at;       /* where the error is, for the message */
    const char *fail_why; /* static text */
    char why[96];         /* or formatted text */
    bool mangled_pairs;   /* an escaped pair json-c would corrupt was seen */
} json_lex;

static int lex_fail(json_lex *lx, size_t at, const char *why)
{
    lx->fail_at = at;
    lx->fail_why = why;
    return -1;
}

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Read the 4 hex digits of a \u escape at lx->buf[at]; -1 if malformed. */
static long lex_hex4(const json_lex *lx, size_t at)
{
    long v = 0;

    if (at + 4 > lx->len)
        return -1;
    for (size_t i = 0; i < 4; i++) {
        int h = hex_value(lx->buf[at + i]);

        if (h < 0)
            return -1;
        v = (v << 4) | h;
    }
    return v;
}

/* The code point of a high and a low surrogate. */
static uint32_t surrogate_pair(long high, long low)
{
    return 0x10000 + (((uint32_t)high & 0x3FF) << 10) + ((uint32_t)low & 0x3FF);
}

/*
 * json-c 0.16 decodes an escaped pair and then tests the code point, not the
 * escape, for being a surrogate, with 16-bit masks: every code point whose
 * low 16 bits fall in D800-DFFF (U+1D800-1DFFF, U+2D800-2DFFF (CJK Extension
 * F), ... U+10D800-10DFFF) comes out as U+FFFD. Python reads them correctly.
 */
static bool pair_mangled_by_json_c(long high, long low)
{
    return (surrogate_pair(high, low) & 0xF800) == 0xD800;
}

/* A \u escape starting at the backslash; advances *i past it (and its pair). */
static int lex_unicode_escape(json_lex *lx, size_t *i, bool *has_nul)
{
    size_t start = *i;
    long v = lex_hex4(lx, start + 2);
    long low;

    if (v < 0)
        return lex_fail(lx, start, "invalid \\u escape (4 hex digits expected)");
    *i = start + 6;
    if (v == 0)
        *has_nul = true;
    if (v >= 0xDC00 && v <= 0xDFFF)
        return lex_fail(lx, start, "lone low surrogate in \\u escape");
    if (v < 0xD800 || v > 0xDBFF)
        return 0;
    if (*i + 1 >= lx->len || lx->buf[*i] != '\\' || lx->buf[*i + 1] != 'u')
        return lex_fail(lx, start, "lone high surrogate in \\u escape");
    low = lex_hex4(lx, *i + 2);
    if (low < 0xDC00 || low > 0xDFFF)
        return lex_fail(lx, start, "lone high surrogate in \\u escape");
    if (pair_mangled_by_json_c(v, low))
        lx->mangled_pairs = true;
    *i += 6;
    return 0;
}

/* A string starting at the opening quote; sets lx->pos after the closing one. */
static int lex_string(json_lex *lx, bool *has_nul)
{
    size_t i = lx->pos + 1;

    *has_nul = false;
    while (i < lx->len) {
        unsigned char c = (unsigned char)lx->buf[i];

        if (c == '"') {
            lx->pos = i + 1;
            return 0;
        }
        if (c < 0x20) {
            snprintf(lx->why, sizeof(lx->why), "control character U+%04X in string", c);
            return lex_fail(lx, i, lx->why);
        }
        if (c != '\\') {
            i++;
            continue;
        }
        if (i + 1 >= lx->len)
            break;
        if (lx->buf[i + 1] == 'u') {
            if (lex_unicode_escape(lx, &i, has_nul) < 0)
                return -1;
            continue;
        }
        if (strchr("\"\\/bfnrt", lx->buf[i + 1]) == NULL || lx->buf[i + 1] == '\0')
            return lex_fail(lx, i, "invalid escape in string");
        i += 2;
    }
    return lex_fail(lx, lx->len, "unterminated string");
}

static size_t lex_digits(const json_lex *lx, size_t i)
{
    while (i < lx->len && lx->buf[i] >= '0' && lx->buf[i] <= '9')
        i++;
    return i;
}

/* An integer literal (no fraction, no exponent) must fit int64 or uint64. */
static bool integer_fits(const char *s, size_t n)
{
    static const char int64_min[] = "9223372036854775808";
    static const char uint64_max[] = "18446744073709551615";
    const char *limit = uint64_max;
    size_t limit_len = sizeof(uint64_max) - 1;

    if (s[0] == '-') {
        s++;
        n--;
        limit = int64_min;
        limit_len = sizeof(int64_min) - 1;
    }
    if (n != limit_len)
        return n < limit_len;
    return memcmp(s, limit, n) <= 0;
}

static bool double_finite(const char *s, size_t n)
{
    char small[128];
    char *text = n < sizeof(small) ? small : malloc(n + 1);
    locale_t previous;
    double d;

    if (text == NULL)
        return true; /* out of memory: json-c fails on its own allocation next */
    memcpy(text, s, n);
    text[n] = '\0';
    previous = ts_json__c_locale_enter();
    d = strtod(text, NULL);
    ts_json__c_locale_leave(previous);
    if (text != small)
        free(text);
    return isfinite(d);
}

/* A number per RFC 8259: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int lex_number(json_lex *lx)
{
    size_t start = lx->pos;
    size_t i = start;
    bool integer = true;

    if (lx->buf[i] == '-')
        i++;
    if (i < lx->len && lx->buf[i] == 'I')
        return lex_fail(lx, start, "NaN and Infinity are not valid JSON");
    if (i >= lx->len || lx->buf[i] < '0' || lx->buf[i] > '9')
        return lex_fail(lx, start, "invalid number");
    if (lx->buf[i] == '0')
        i++;
    else
        i = lex_digits(lx, i);
    if (i < lx->len && lx->buf[i] >= '0' && lx->buf[i] <= '9')
        return lex_fail(lx, start, "invalid number (leading zero)");
    if (i < lx->len && lx->buf[i] == '.') {
        size_t d = lex_digits(lx, i + 1);

        if (d == i + 1)
            return lex_fail(lx, start, "invalid number (digit expected after '.')");
        i = d;
        integer = false;
    }
    if (i < lx->len && (lx->buf[i] == 'e' || lx->buf[i] == 'E')) {
        size_t d = i + 1;

        if (d < lx->len && (lx->buf[d] == '+' || lx->buf[d] == '-'))
            d++;
        if (lex_digits(lx, d) == d)
            return lex_fail(lx, start, "invalid number (digit expected in exponent)");
        i = lex_digits(lx, d);
        integer = false;
    }
    if (integer && !integer_fits(lx->buf + start, i - start))
        return lex_fail(lx, start, "integer out of range (beyond 64 bits)");
    if (!integer && !double_finite(lx->buf + start, i - start))
        return lex_fail(lx, start, "number out of range (overflows a double)");
    lx->pos = i;
    return 0;
}

static int lex_word(json_lex *lx)
{
    static const char *const words[] = {"true", "false", "null"};
    size_t start = lx->pos;
    size_t i = start;

    while (i < lx->len &&
           ((lx->buf[i] >= 'a' && lx->buf[i] <= 'z') || (lx->buf[i] >= 'A' && lx->buf[i] <= 'Z')))
        i++;
    for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
        if (i - start == strlen(words[w]) && memcmp(lx->buf + start, words[w], i - start) == 0) {
            lx->pos = i;
            return 0;
        }
    }
    if ((i - start == 3 && memcmp(lx->buf + start, "NaN", 3) == 0) ||
        (i - start == 8 && memcmp(lx->buf + start, "Infinity", 8) == 0))
        return lex_fail(lx, start, "NaN and Infinity are not valid JSON");
    return lex_fail(lx, start, "unexpected character");
}

/* True when the next non-whitespace byte after pos is ':' (a key ended). */
static bool lex_followed_by_colon(const json_lex *lx)
{
    size_t i = lx->pos;

    while (i < lx->len && is_ws(lx->buf[i]))
        i++;
    return i < lx->len && lx->buf[i] == ':';
}

static int lex_token(json_lex *lx)
{
    char c = lx->buf[lx->pos];
    bool has_nul;
    size_t start = lx->pos;

    if (c == '"') {
        if (lex_string(lx, &has_nul) < 0)
            return -1;
        if (has_nul && lex_followed_by_colon(lx))
            return lex_fail(lx, start, "object key contains \\u0000");
        return 0;
    }
    if (c == '-' || (c >= '0' && c <= '9'))
        return lex_number(lx);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return lex_word(lx);
    if (c == '[' || c == '{') {
        if (++lx->depth > lx->max_depth) {
            snprintf(lx->why, sizeof(lx->why), "nesting deeper than %d levels", lx->max_depth);
            return lex_fail(lx, start, lx->why);
        }
    } else if (c == ']' || c == '}') {
        lx->depth--;
    } else if (c == '\0') {
        return lex_fail(lx, start, "NUL byte");
    } else if (c != ',' && c != ':' && !is_ws(c)) {
        return lex_fail(lx, start, "unexpected character");
    }
    lx->pos++;
    return 0;
}

/*
 * The lexical pass over the whole input; 0, or an error filled in err with
 * *fail_at set to its offset (SIZE_MAX for invalid UTF-8, which always wins).
 */
static int json_lex_check(const char *buf, size_t len, int max_depth, size_t *fail_at,
                          bool *mangled_pairs, ts_error *err)
{
    json_lex lx = {.buf = buf, .len = len, .max_depth = max_depth};
    size_t bad = ts_utf8_first_invalid(buf, len);
    int rc = 0;

    *fail_at = SIZE_MAX;
    *mangled_pairs = false;
    if (bad < len)
        return syntax_error(err, buf, len, bad, "invalid UTF-8");
    while (lx.pos < len && rc == 0)
        rc = lex_token(&lx);
    *mangled_pairs = lx.mangled_pairs;
    if (rc < 0) {
        *fail_at = lx.fail_at;
        if (lx.fail_why == lx.why && strncmp(lx.why, "nesting", 7) == 0) {
            size_t line;
            size_t column;

            text_position(buf, len, lx.fail_at, &line, &column);
            return ts_error_set(err, -EINVAL, TS_ERR_LIMIT, "line %zu, column %zu: %s", line,
                                column, lx.fail_why);
        }
        return syntax_error(err, buf, len, lx.fail_at, lx.fail_why);
    }
    return 0;
}

/* ---- parsing ------------------------------------------------------------ */

static const char *tokener_message(enum json_tokener_error e)
{
    switch (e) {
    case json_tokener_continue:
    case json_tokener_error_parse_eof:
        return "unexpected end of input";
    case json_tokener_error_depth:
        return "nesting too deep";
    default:
        return json_tokener_error_desc(e);
    }
}

/* json-c over the whole input: the value (or NULL), its error and where. */
static int tokener_run(const char *buf, size_t len, int max_depth, struct json_object **v,
                       enum json_tokener_error *e, size_t *offset)
{
    struct json_tokener *tok = json_tokener_new_ex(max_depth + 2);

    if (tok == NULL)
        return -ENOMEM;
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    *v = json_tokener_parse_ex(tok, buf, (int)len);
    *e = json_tokener_get_error(tok);
    *offset = json_tokener_get_parse_end(tok);
    if (*v == NULL && *e == json_tokener_continue) {
        /* End of input: a NUL tells json-c that a top-level scalar is done. */
        *v = json_tokener_parse_ex(tok, "", 1);
        *e = json_tokener_get_error(tok);
        *offset = len;
    }
    json_tokener_free(tok);
    if (*e != json_tokener_success) {
        json_object_put(*v);
        *v = NULL;
    }
    return 0;
}

static size_t utf8_encode4(uint32_t cp, char *out)
{
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/*
 * A copy of buf (which passed the lexical pass) in which every escaped pair
 * that json-c would corrupt is written as raw UTF-8; everything else,
 * including all other escapes, is copied as it is. NULL when out of memory.
 */
static char *unescape_mangled_pairs(const char *buf, size_t len, size_t *out_len)
{
    json_lex lx = {.buf = buf, .len = len};
    char *out = malloc(len + 1);
    bool in_string = false;
    size_t n = 0;
    size_t i = 0;

    if (out == NULL)
        return NULL;
    while (i < len) {
        long high;
        long low;

        if (buf[i] == '"')
            in_string = !in_string;
        if (!in_string || buf[i] != '\\') {
            out[n++] = buf[i++];
            continue;
        }
        if (buf[i + 1] != 'u') {
            out[n++] = buf[i++];
            out[n++] = buf[i++];
            continue;
        }
        high = lex_hex4(&lx, i + 2);
        if (high >= 0xD800 && high <= 0xDBFF) {
            low = lex_hex4(&lx, i + 8);
            if (pair_mangled_by_json_c(high, low)) {
                n += utf8_encode4(surrogate_pair(high, low), out + n);
                i += 12;
                continue;
            }
        }
        memcpy(out + n, buf + i, 6);
        n += 6;
        i += 6;
    }
    out[n] = '\0';
    *out_len = n;
    return out;
}

/* json-c again, over the text with the pairs it would corrupt unescaped. */
static int reparse_mangled_pairs(const char *buf, size_t len, int max_depth, struct json_object **v,
                                 ts_error *err)
{
    enum json_tokener_error e;
    size_t offset;
    size_t fixed_len;
    char *fixed = unescape_mangled_pairs(buf, len, &fixed_len);
    int rc;

    if (fixed == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    json_object_put(*v);
    *v = NULL;
    rc = tokener_run(fixed, fixed_len, max_depth, v, &e, &offset);
    free(fixed);
    if (rc < 0)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    if (e != json_tokener_success)
        return ts_error_set(err, -EINVAL, TS_ERR_INTERNAL,
                            "text with escaped surrogate pairs could not be read again");
    return 0;
}

int ts_json_parse(const char *buf, size_t len, int max_depth, struct json_object **out,
                  ts_error *err)
{
    struct json_object *v = NULL;
    enum json_tokener_error e;
    size_t lex_at;
    size_t offset;
    bool mangled_pairs;
    int lex_rc;

    if (max_depth <= 0)
        max_depth = TS_JSON_MAX_DEPTH;
    if (len > TS_JSON_MAX_BYTES)
        return ts_error_set(err, -E2BIG, TS_ERR_TOO_LARGE,
                            "document of %zu bytes is over the %u-byte limit", len,
                            TS_JSON_MAX_BYTES);
    lex_rc = json_lex_check(buf, len, max_depth, &lex_at, &mangled_pairs, err);
    if (lex_rc < 0 && lex_at == SIZE_MAX)
        return lex_rc;
    if (tokener_run(buf, len, max_depth, &v, &e, &offset) < 0)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    /* Report whichever problem comes first in the text. */
    if (e != json_tokener_success && (lex_rc == 0 || offset < lex_at))
        return syntax_error(err, buf, len, offset, tokener_message(e));
    if (lex_rc < 0) {
        json_object_put(v);
        return lex_rc;
    }
    if (mangled_pairs) {
        /* Errors come from the original text (right offsets); the value
         * from the repaired one. */
        int rc = reparse_mangled_pairs(buf, len, max_depth, &v, err);
        if (rc < 0)
            return rc;
    }
    *out = v; /* NULL for the document "null" */
    return 0;
}

/* ---- helpers ------------------------------------------------------------ */

struct json_object *ts_json_copy(const struct json_object *v)
{
    struct json_object *copy = NULL;

    if (v == NULL)
        return NULL;
    if (json_object_deep_copy((struct json_object *)v, &copy, NULL) < 0)
        return NULL;
    return copy;
}

const char *ts_json_get_string(const struct json_object *obj, const char *key)
{
    struct json_object *v = NULL;

    if (obj == NULL || !json_object_is_type(obj, json_type_object))
        return NULL;
    if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

const char *ts_json_kind_word(const struct json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null:
        return "null";
    case json_type_boolean:
        return "a boolean";
    case json_type_int:
    case json_type_double:
        return "a number";
    case json_type_string:
        return "a string";
    case json_type_array:
        return "a list";
    case json_type_object:
        return "an object";
    }
    return "something else";
}

/* The same JSON; with ordered, also with the object keys in the same order
 * (the same text once written). */
static bool same_json(const struct json_object *a, const struct json_object *b, bool ordered)
{
    enum json_type type = json_object_get_type(a);

    if (a == b)
        return true;
    if (type != json_object_get_type(b))
        return false;
    switch (type) {
    case json_type_null:
        return true;
    case json_type_boolean:
        return json_object_get_boolean(a) == json_object_get_boolean(b);
    case json_type_int:
        /* Both readings: int64 tells negatives apart, uint64 the values past
         * INT64_MAX (each reading saturates where the other is exact). */
        return json_object_get_int64(a) == json_object_get_int64(b) &&
               json_object_get_uint64(a) == json_object_get_uint64(b);
    case json_type_double: {
        double x = json_object_get_double(a);
        double y = json_object_get_double(b);

        return (x == y && signbit(x) == signbit(y)) || (isnan(x) && isnan(y));
    }
    case json_type_string:
        return json_object_get_string_len(a) == json_object_get_string_len(b) &&
               memcmp(json_object_get_string((struct json_object *)a),
                      json_object_get_string((struct json_object *)b),
                      (size_t)json_object_get_string_len(a)) == 0;
    case json_type_array: {
        size_t n = json_object_array_length(a);

        if (n != json_object_array_length(b))
            return false;
        for (size_t i = 0; i < n; i++) {
            if (!same_json(json_object_array_get_idx(a, i), json_object_array_get_idx(b, i),
                           ordered))
                return false;
        }
        return true;
    }
    case json_type_object: {
        struct json_object_iterator ib = json_object_iter_begin((struct json_object *)b);

        if (json_object_object_length(a) != json_object_object_length(b))
            return false;
        json_object_object_foreach((struct json_object *)a, key, value)
        {
            struct json_object *other = NULL;

            if (ordered) {
                if (strcmp(key, json_object_iter_peek_name(&ib)) != 0)
                    return false;
                other = json_object_iter_peek_value(&ib);
                json_object_iter_next(&ib);
            } else if (!json_object_object_get_ex(b, key, &other)) {
                return false;
            }
            if (!same_json(value, other, ordered))
                return false;
        }
        return true;
    }
    }
    return false;
}

bool ts_json_equal(const struct json_object *a, const struct json_object *b)
{
    return same_json(a, b, false);
}

bool ts_json_identical(const struct json_object *a, const struct json_object *b)
{
    return same_json(a, b, true);
}
