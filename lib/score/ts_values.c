/*
 * ts_values — the value comparison of scoring (docs/scoring.md): lenient
 * (numbers by value, strings trimmed of Unicode whitespace) and strict.
 */
#include "lib/score/ts_score.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lib/base/ts_base.h"

/* ---------------------------------------------------------------------------
 * Value comparison
 * ------------------------------------------------------------------------- */

/* An integer as json-c holds it: int64, or uint64 above INT64_MAX. */
typedef struct json_integer {
    bool big; /* value > INT64_MAX, held in u */
    int64_t s;
    uint64_t u;
} json_integer;

static json_integer integer_of(const struct json_object *v)
{
    json_integer n = {false, 0, 0};

    if (json_object_is_type(v, json_type_boolean)) {
        n.s = json_object_get_boolean(v) ? 1 : 0;
        return n;
    }
    n.s = json_object_get_int64(v);
    if (n.s == INT64_MAX) {
        uint64_t u = json_object_get_uint64(v);
        if (u > (uint64_t)INT64_MAX) {
            n.big = true;
            n.u = u;
        }
    }
    return n;
}

static bool integers_equal(json_integer a, json_integer b)
{
    if (a.big != b.big)
        return false;
    return a.big ? a.u == b.u : a.s == b.s;
}

/* Exact mathematical comparison (no rounding of the integer to a double). */
static bool integer_equals_double(json_integer n, double d)
{
    if (!isfinite(d) || d != trunc(d))
        return false;
    if (n.big) {
        if (d < 9223372036854775808.0 || d >= 18446744073709551616.0)
            return false;
        return (uint64_t)d == n.u;
    }
    if (d < -9223372036854775808.0 || d >= 9223372036854775808.0)
        return false;
    return (int64_t)d == n.s;
}

static bool is_number(const struct json_object *v)
{
    return json_object_is_type(v, json_type_boolean) || json_object_is_type(v, json_type_int) ||
           json_object_is_type(v, json_type_double);
}

static bool numbers_equal(const struct json_object *a, const struct json_object *b)
{
    bool a_double = json_object_is_type(a, json_type_double);
    bool b_double = json_object_is_type(b, json_type_double);

    if (a_double && b_double)
        return json_object_get_double(a) == json_object_get_double(b);
    if (a_double)
        return integer_equals_double(integer_of(b), json_object_get_double(a));
    if (b_double)
        return integer_equals_double(integer_of(a), json_object_get_double(b));
    return integers_equal(integer_of(a), integer_of(b));
}

static bool strings_equal(const struct json_object *a, const struct json_object *b)
{
    size_t la = (size_t)json_object_get_string_len(a);
    size_t lb = (size_t)json_object_get_string_len(b);

    return la == lb && memcmp(json_object_get_string((struct json_object *)a),
                              json_object_get_string((struct json_object *)b), la) == 0;
}

static bool deep_equal(const struct json_object *a, const struct json_object *b, bool strict);

static bool arrays_equal(const struct json_object *a, const struct json_object *b, bool strict)
{
    size_t n = json_object_array_length(a);

    if (n != json_object_array_length(b))
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!deep_equal(json_object_array_get_idx(a, i), json_object_array_get_idx(b, i), strict))
            return false;
    }
    return true;
}

static bool objects_equal(const struct json_object *a, const struct json_object *b, bool strict)
{
    if (json_object_object_length(a) != json_object_object_length(b))
        return false;
    json_object_object_foreach((struct json_object *)a, key, va)
    {
        struct json_object *vb;
        if (!json_object_object_get_ex(b, key, &vb))
            return false;
        if (!deep_equal(va, vb, strict))
            return false;
    }
    return true;
}

/* json-c holds JSON null as a NULL pointer. */
static bool deep_equal(const struct json_object *a, const struct json_object *b, bool strict)
{
    enum json_type ta = json_object_get_type(a);
    enum json_type tb = json_object_get_type(b);

    if (!strict && is_number(a) && is_number(b))
        return numbers_equal(a, b);
    if (ta != tb)
        return false;
    switch (ta) {
    case json_type_null:
        return true;
    case json_type_boolean:
        return json_object_get_boolean(a) == json_object_get_boolean(b);
    case json_type_int:
    case json_type_double:
        return numbers_equal(a, b);
    case json_type_string:
        return strings_equal(a, b);
    case json_type_array:
        return arrays_equal(a, b, strict);
    case json_type_object:
        return objects_equal(a, b, strict);
    }
    return false;
}

/* Python's str.isspace() set (what str.strip() removes). */
static bool is_unicode_space(uint32_t cp)
{
    return (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x20) || cp == 0x85 || cp == 0xa0 ||
           cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 ||
           cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

/* Byte length of the whitespace character starting at s (n bytes available),
 * 0 if there is none. Only 1- to 3-byte sequences can be whitespace. */
static size_t space_at(const unsigned char *s, size_t n)
{
    uint32_t cp;
    size_t len = ts_utf8_decode(s, n, &cp);

    return len > 0 && is_unicode_space(cp) ? len : 0;
}

/* Narrow [*start, *end) to exclude leading and trailing whitespace. */
static void trim_span(const unsigned char *s, size_t *start, size_t *end)
{
    size_t k;

    for (k = space_at(s + *start, *end - *start); k > 0; k = space_at(s + *start, *end - *start))
        *start += k;
    for (;;) {
        size_t step = 0;
        for (k = 1; k <= 3 && k <= *end - *start; k++) {
            if (space_at(s + *end - k, k) == k) {
                step = k;
                break;
            }
        }
        if (step == 0)
            break;
        *end -= step;
    }
}

void ts_strip_span(const char *s, size_t len, size_t *start, size_t *end)
{
    *start = 0;
    *end = len;
    trim_span((const unsigned char *)s, start, end);
}

static bool strings_equal_trimmed(const struct json_object *a, const struct json_object *b)
{
    const unsigned char *sa =
        (const unsigned char *)json_object_get_string((struct json_object *)a);
    const unsigned char *sb =
        (const unsigned char *)json_object_get_string((struct json_object *)b);
    size_t a0 = 0, a1 = (size_t)json_object_get_string_len(a);
    size_t b0 = 0, b1 = (size_t)json_object_get_string_len(b);

    trim_span(sa, &a0, &a1);
    trim_span(sb, &b0, &b1);
    return a1 - a0 == b1 - b0 && memcmp(sa + a0, sb + b0, a1 - a0) == 0;
}

/* A number as the nearest double, as Python's float() rounds an int. */
static double as_double(const struct json_object *v)
{
    json_integer n;

    if (json_object_is_type(v, json_type_double))
        return json_object_get_double(v);
    n = integer_of(v);
    return n.big ? (double)n.u : (double)n.s;
}

bool ts_values_equal(const struct json_object *a, const struct json_object *b, bool strict,
                     bool top_level)
{
    if (deep_equal(a, b, strict))
        return true;
    if (strict || !top_level)
        return false;
    /* The reference compares two top-level numbers as float(e) == float(a). */
    if (is_number(a) && is_number(b))
        return as_double(a) == as_double(b);
    if (!json_object_is_type(a, json_type_string) || !json_object_is_type(b, json_type_string))
        return false;
    return strings_equal_trimmed(a, b);
}
