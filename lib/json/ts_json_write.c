/*
 * ts_json_write — JSON text exactly as Python's json.dumps writes it, and
 * doubles exactly as Python's repr(float) (see ts_json.h and
 * docs/internals/json.md).
 */
#include "lib/json/ts_json.h"
#include "ts_json_internal.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TS_JSON_WRITE_MAX_DEPTH 1024 /* recursion guard for built values */

/* ---- doubles ------------------------------------------------------------ */

/* Decimal digits (no trailing zeros) and exponent of a %.*e rendering. */
typedef struct decimal {
    char digits[24];
    int count;
    int exponent; /* value = 0.d1d2... * 10^(exponent + 1) */
} decimal;

/* Split snprintf's "d.ddde+XX" into digits and exponent. */
static void decimal_from_e(const char *text, decimal *dec)
{
    const char *p = text;

    dec->count = 0;
    for (; *p != 'e' && *p != '\0'; p++) {
        if (*p >= '0' && *p <= '9')
            dec->digits[dec->count++] = *p;
    }
    dec->digits[dec->count] = '\0';
    dec->exponent = *p == 'e' ? atoi(p + 1) : 0;
}

static double decimal_value(const decimal *dec)
{
    char text[48];

    snprintf(text, sizeof(text), "%c.%se%d", dec->digits[0], dec->digits + 1, dec->exponent);
    return strtod(text, NULL);
}

/* Add delta (+1 or -1) to the last digit; false if the count would change. */
static bool decimal_step(decimal *dec, int delta)
{
    int i = dec->count - 1;

    if (delta > 0) {
        while (i >= 0 && dec->digits[i] == '9')
            dec->digits[i--] = '0';
        if (i < 0) {
            dec->digits[0] = '1';
            dec->exponent++;
            return true;
        }
        dec->digits[i]++;
        return true;
    }
    while (i >= 0 && dec->digits[i] == '0')
        dec->digits[i--] = '9';
    if (i < 0)
        return false;
    dec->digits[i]--;
    return dec->digits[0] != '0';
}

/*
 * The shortest digits that read back as x (x > 0, finite): for each
 * precision, the correctly rounded digits, or the neighbour on the other side
 * of x when the rounding interval is lopsided (at powers of two).
 */
static void shortest_decimal(double x, decimal *dec)
{
    char text[48];

    /*
     * First 15 digits, correctly rounded: when they read back as x, they
     * are the shortest digits padded with zeros. A decimal of at most 15
     * digits that reads back as x lies within half an ulp of x (under
     * 1.2e-16 of it), closer than half the spacing of 15-digit decimals
     * (5e-16 of it at least): it is the 15-digit rounding. So a value with
     * such a form costs one rendering, and one without any starts at 16.
     * Not so for subnormals, whose ulp is a larger share of them.
     */
    snprintf(text, sizeof(text), "%.14e", x);
    if (x >= DBL_MIN && strtod(text, NULL) == x) {
        decimal_from_e(text, dec);
        while (dec->count > 1 && dec->digits[dec->count - 1] == '0')
            dec->digits[--dec->count] = '\0';
        return;
    }
    for (int precision = x >= DBL_MIN ? 16 : 1; precision <= 17; precision++) {
        decimal other;
        double value;

        snprintf(text, sizeof(text), "%.*e", precision - 1, x);
        decimal_from_e(text, dec);
        value = decimal_value(dec);
        if (value == x || precision == 17)
            break;
        other = *dec;
        if (decimal_step(&other, value > x ? -1 : 1) && decimal_value(&other) == x) {
            *dec = other;
            break;
        }
    }
    while (dec->count > 1 && dec->digits[dec->count - 1] == '0')
        dec->digits[--dec->count] = '\0';
}

/* Python's repr layout of digits (format_float_short, mode 'r'). */
static int decimal_format(const decimal *dec, bool negative, char *out)
{
    int decpt = dec->exponent + 1;
    char *p = out;

    if (negative)
        *p++ = '-';
    if (decpt <= -4 || decpt > 16) {
        *p++ = dec->digits[0];
        if (dec->count > 1) {
            *p++ = '.';
            memcpy(p, dec->digits + 1, (size_t)dec->count - 1);
            p += dec->count - 1;
        }
        p += sprintf(p, "e%c%02d", dec->exponent < 0 ? '-' : '+', abs(dec->exponent));
    } else if (decpt <= 0) {
        p += sprintf(p, "0.%.*s%s", -decpt, "0000", dec->digits);
    } else if (decpt >= dec->count) {
        p += sprintf(p, "%s%.*s.0", dec->digits, decpt - dec->count, "0000000000000000");
    } else {
        p += sprintf(p, "%.*s.%s", decpt, dec->digits, dec->digits + decpt);
    }
    *p = '\0';
    return (int)(p - out);
}

/*
 * A value of at most three decimals (a score of 1.0 or 0.75, a duration to
 * the microsecond), written from its integer of thousandths: when
 * k / 1000 reads back as the value, that decimal of at most 15 digits is
 * its shortest form (see shortest_decimal), and from 0.001 to 1e12 its
 * layout is the fixed one. -1 for any other value.
 */
static int format_thousandths(double d, char *out)
{
    double a = fabs(d), t = a * 1000.0;
    char *p = out;
    long long k, whole;
    int frac, digits = 3;

    if (!(t >= 1.0 && t < 1e15) || t != floor(t) || t / 1000.0 != a)
        return -1;
    k = (long long)t;
    whole = k / 1000;
    frac = (int)(k % 1000);
    if (signbit(d))
        *p++ = '-';
    p += sprintf(p, "%lld.", whole);
    if (frac == 0) {
        *p++ = '0';
    } else {
        while (frac % 10 == 0) {
            frac /= 10;
            digits--;
        }
        p += sprintf(p, "%0*d", digits, frac);
    }
    *p = '\0';
    return (int)(p - out);
}

int ts_json_format_double(double d, char *out)
{
    decimal dec;
    locale_t previous;
    int n;

    if (!isfinite(d))
        return -EINVAL;
    if (d == 0) {
        strcpy(out, signbit(d) ? "-0.0" : "0.0");
        return (int)strlen(out);
    }
    n = format_thousandths(d, out);
    if (n > 0)
        return n;
    previous = ts_json__c_locale_enter();
    shortest_decimal(fabs(d), &dec);
    ts_json__c_locale_leave(previous);
    return decimal_format(&dec, signbit(d) != 0, out);
}

/* ---- writing ------------------------------------------------------------ */

int ts_json_write_string(const char *s, size_t len, ts_buf *out)
{
    static const char hex[] = "0123456789abcdef";
    size_t run = 0;

    if (!ts_utf8_valid(s, len))
        return -EINVAL;
    ts_buf_appendc(out, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[7] = {'\\', 0, 0, 0, 0, 0, 0};
        size_t esc_len = 2;

        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        ts_buf_append(out, s + run, i - run);
        run = i + 1;
        switch (c) {
        case '"':
        case '\\':
            esc[1] = (char)c;
            break;
        case '\n':
            esc[1] = 'n';
            break;
        case '\r':
            esc[1] = 'r';
            break;
        case '\t':
            esc[1] = 't';
            break;
        case '\b':
            esc[1] = 'b';
            break;
        case '\f':
            esc[1] = 'f';
            break;
        default:
            memcpy(esc + 1, "u00", 3);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 0xF];
            esc_len = 6;
            break;
        }
        if (ts_buf_append(out, esc, esc_len) < 0)
            break;
    }
    ts_buf_append(out, s + run, len - run);
    ts_buf_appendc(out, '"');
    return ts_buf_error(out);
}

/*
 * One document being written: the buffer's own error sticks in out; the
 * first error of the value itself (invalid UTF-8, NaN, depth) in rc, with
 * err set. Nothing is written once either is set.
 */
typedef struct json_writer {
    ts_buf *out;
    bool pretty;
    ts_error *err;
    int rc;
} json_writer;

static void write_value(json_writer *w, const struct json_object *v, int level);

static bool writing(const json_writer *w)
{
    return w->rc == 0 && ts_buf_error(w->out) == 0;
}

static void refuse(json_writer *w, int rc, const char *code, const char *message)
{
    if (w->rc == 0)
        w->rc = ts_error_set(w->err, rc, code, "%s", message);
}

/* Newline plus indentation (pretty), or the ", " separator's space. */
static void write_break(json_writer *w, int level)
{
    if (!w->pretty)
        return;
    ts_buf_appendc(w->out, '\n');
    for (int i = 0; i < level; i++)
        ts_buf_append(w->out, "  ", 2);
}

static void write_separator(json_writer *w, int level)
{
    ts_buf_appendc(w->out, ',');
    if (!w->pretty)
        ts_buf_appendc(w->out, ' ');
    write_break(w, level);
}

static void write_array(json_writer *w, const struct json_object *v, int level)
{
    size_t n = json_object_array_length(v);

    if (n == 0) {
        ts_buf_append(w->out, "[]", 2);
        return;
    }
    ts_buf_appendc(w->out, '[');
    write_break(w, level + 1);
    for (size_t i = 0; i < n && writing(w); i++) {
        if (i > 0)
            write_separator(w, level + 1);
        write_value(w, json_object_array_get_idx(v, i), level + 1);
    }
    write_break(w, level);
    ts_buf_appendc(w->out, ']');
}

static void write_object(json_writer *w, const struct json_object *v, int level)
{
    struct lh_entry *e = json_object_get_object(v)->head;
    bool first = true;

    if (e == NULL) {
        ts_buf_append(w->out, "{}", 2);
        return;
    }
    ts_buf_appendc(w->out, '{');
    write_break(w, level + 1);
    for (; e != NULL && writing(w); e = e->next) {
        const char *key = (const char *)lh_entry_k(e);

        if (!first)
            write_separator(w, level + 1);
        first = false;
        if (ts_json_write_string(key, strlen(key), w->out) == -EINVAL) {
            refuse(w, -EINVAL, TS_ERR_INVALID_ARGUMENT, "object key is not valid UTF-8");
            return;
        }
        ts_buf_append(w->out, ": ", 2);
        write_value(w, (const struct json_object *)lh_entry_v(e), level + 1);
    }
    write_break(w, level);
    ts_buf_appendc(w->out, '}');
}

static void write_int(json_writer *w, const struct json_object *v)
{
    struct json_object *o = (struct json_object *)v;
    int64_t i = json_object_get_int64(o);

    /* json-c keeps integers above INT64_MAX as uint64; get_uint64 is exact
     * for every non-negative value of either kind. */
    if (i < 0)
        ts_buf_appendf(w->out, "%lld", (long long)i);
    else
        ts_buf_appendf(w->out, "%llu", (unsigned long long)json_object_get_uint64(o));
}

static void write_value(json_writer *w, const struct json_object *v, int level)
{
    struct json_object *o = (struct json_object *)v;
    char num[TS_JSON_DOUBLE_MAX];
    int n;

    if (level > TS_JSON_WRITE_MAX_DEPTH) {
        if (w->rc == 0)
            w->rc = ts_error_set(w->err, -ELOOP, TS_ERR_LIMIT, "value nested deeper than %d levels",
                                 TS_JSON_WRITE_MAX_DEPTH);
        return;
    }
    switch (json_object_get_type(o)) {
    case json_type_null:
        ts_buf_append(w->out, "null", 4);
        return;
    case json_type_boolean:
        ts_buf_appends(w->out, json_object_get_boolean(o) ? "true" : "false");
        return;
    case json_type_int:
        write_int(w, v);
        return;
    case json_type_double:
        n = ts_json_format_double(json_object_get_double(o), num);
        if (n < 0)
            refuse(w, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                   "NaN and Infinity cannot be written as JSON");
        else
            ts_buf_append(w->out, num, (size_t)n);
        return;
    case json_type_string:
        if (ts_json_write_string(json_object_get_string(o), (size_t)json_object_get_string_len(o),
                                 w->out) == -EINVAL)
            refuse(w, -EINVAL, TS_ERR_INVALID_ARGUMENT, "string is not valid UTF-8");
        return;
    case json_type_array:
        write_array(w, v, level);
        return;
    case json_type_object:
        write_object(w, v, level);
        return;
    }
    refuse(w, -EINVAL, TS_ERR_INTERNAL, "unknown JSON value type");
}

static int write_document(const struct json_object *v, ts_buf *out, bool pretty, ts_error *err)
{
    json_writer w = {.out = out, .pretty = pretty, .err = err, .rc = 0};
    size_t start = out->len;
    int rc;

    write_value(&w, v, 0);
    rc = ts_buf_error(out);
    if (rc == -E2BIG)
        return ts_error_set(err, rc, TS_ERR_TOO_LARGE, "JSON output over %zu bytes", out->max);
    if (rc < 0)
        return ts_error_set(err, rc, TS_ERR_NO_MEMORY, "out of memory writing JSON");
    if (w.rc < 0 && out->data != NULL) {
        /* Do not leave half a value behind in the caller's buffer. */
        out->len = start;
        out->data[start] = '\0';
    }
    return w.rc;
}

int ts_json_write_pretty(const struct json_object *v, ts_buf *out, ts_error *err)
{
    return write_document(v, out, true, err);
}

int ts_json_write_compact(const struct json_object *v, ts_buf *out, ts_error *err)
{
    return write_document(v, out, false, err);
}
