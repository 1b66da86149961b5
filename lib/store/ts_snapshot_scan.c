/*
 * ts_snapshot_scan — a listing's members of a snapshot file in one pass
 * over its bytes (see ts_store.h).
 *
 * A recursive descent over RFC 8259 JSON that allocates nothing. Every rule
 * below is the parser's rule or stricter: the syntax of ts_json_parse
 * (strict grammar, UTF-8, escapes, no NaN/Infinity, integers within 64
 * bits, finite doubles, nesting), then the members as ts_snapshot_parse
 * reads them. Where checking a rule exactly would take more than a glance
 * (\u escapes and surrogate pairs, numbers near the edge of their type),
 * the scan is simply not sure and the parser decides.
 */
#include "lib/store/ts_store.h"

#include <stdint.h>
#include <string.h>

#include "lib/json/ts_json.h"
#include "lib/snapshot/ts_snapshot.h"

#define SCAN_MAX_DEPTH 64             /* deeper: not sure (the parser allows TS_JSON_MAX_DEPTH) */
#define INTEGER_DIGITS_MAX 18         /* any such integer fits in 64 bits */
#define DOUBLE_DIGITS_MAX 300         /* before the point: finite without exponent */
#define DOUBLE_EXP_DIGITS_MAX 2       /* |exponent| <= 99 ... */
#define DOUBLE_EXP_INT_DIGITS_MAX 200 /* ... with at most 200 digits before the point */

typedef struct scanner {
    const unsigned char *p;
    const unsigned char *end;
} scanner;

/* A scanned string: raw bytes between the quotes. */
typedef struct str {
    const char *s;
    size_t len;
    bool escaped; /* has a (non-\u) escape: the raw bytes are not the value */
} str;

static bool value(scanner *sc, int depth);

static void skip_ws(scanner *sc)
{
    while (sc->p < sc->end && (*sc->p == ' ' || *sc->p == '\n' || *sc->p == '\r' || *sc->p == '\t'))
        sc->p++;
}

/* Skip whitespace; true when c comes next (not consumed). */
static bool next_is(scanner *sc, unsigned char c)
{
    skip_ws(sc);
    return sc->p < sc->end && *sc->p == c;
}

/* True for the bytes a string may hold as they are (printable ASCII). */
static bool plain(unsigned char c)
{
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* The string at sc->p (its opening quote). */
static bool string(scanner *sc, str *out)
{
    const unsigned char *p = sc->p + 1;

    out->s = (const char *)p;
    out->escaped = false;
    for (;;) {
        while (p < sc->end && plain(*p))
            p++;
        if (p >= sc->end)
            return false;
        if (*p == '"')
            break;
        if (*p == '\\') {
            if (p + 1 >= sc->end || p[1] == 'u' || p[1] == '\0' ||
                strchr("\"\\/bfnrt", p[1]) == NULL)
                return false; /* \u escapes: the parser decides */
            out->escaped = true;
            p += 2;
        } else if (*p >= 0x80) {
            uint32_t cp;
            size_t n = ts_utf8_decode(p, (size_t)(sc->end - p), &cp);

            if (n == 0)
                return false;
            p += n;
        } else {
            return false; /* a control character */
        }
    }
    out->len = (size_t)(p - (const unsigned char *)out->s);
    sc->p = p + 1;
    return true;
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* Digits from sc->p on; how many. */
static size_t digits(scanner *sc)
{
    const unsigned char *start = sc->p;

    while (sc->p < sc->end && is_digit(*sc->p))
        sc->p++;
    return (size_t)(sc->p - start);
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, well inside its type's range. */
static bool number(scanner *sc)
{
    size_t int_digits;
    size_t exp_digits = 0;
    bool integer = true;

    if (sc->p < sc->end && *sc->p == '-')
        sc->p++;
    if (sc->p >= sc->end || !is_digit(*sc->p))
        return false;
    if (*sc->p == '0') {
        sc->p++;
        int_digits = 1;
        if (sc->p < sc->end && is_digit(*sc->p))
            return false; /* leading zero */
    } else {
        int_digits = digits(sc);
    }
    if (sc->p < sc->end && *sc->p == '.') {
        sc->p++;
        if (digits(sc) == 0)
            return false;
        integer = false;
    }
    if (sc->p < sc->end && (*sc->p == 'e' || *sc->p == 'E')) {
        sc->p++;
        if (sc->p < sc->end && (*sc->p == '+' || *sc->p == '-'))
            sc->p++;
        exp_digits = digits(sc);
        if (exp_digits == 0 || exp_digits > DOUBLE_EXP_DIGITS_MAX ||
            int_digits > DOUBLE_EXP_INT_DIGITS_MAX)
            return false;
        integer = false;
    }
    if (integer)
        return int_digits <= INTEGER_DIGITS_MAX;
    return int_digits <= DOUBLE_DIGITS_MAX;
}

static bool literal(scanner *sc, const char *word)
{
    size_t n = strlen(word);

    if ((size_t)(sc->end - sc->p) < n || memcmp(sc->p, word, n) != 0)
        return false;
    sc->p += n;
    return true;
}

/* After a member or element: true at the closing c (consumed, *done set)
 * or at a comma (consumed). */
static bool separator(scanner *sc, unsigned char close, bool *done)
{
    skip_ws(sc);
    if (sc->p >= sc->end)
        return false;
    if (*sc->p == ',') {
        sc->p++;
        *done = false;
        return true;
    }
    if (*sc->p == close) {
        sc->p++;
        *done = true;
        return true;
    }
    return false;
}

/* A key and its colon; sc->p then at the value. */
static bool key(scanner *sc, str *k)
{
    if (!next_is(sc, '"') || !string(sc, k) || !next_is(sc, ':'))
        return false;
    sc->p++;
    skip_ws(sc);
    return true;
}

/* True when k is the key name (a key with escapes is never one of ours). */
static bool key_is(const str *k, const char *name)
{
    return !k->escaped && k->len == strlen(name) && memcmp(k->s, name, k->len) == 0;
}

/* The object at sc->p (its '{'), members of any value. */
static bool object(scanner *sc, int depth)
{
    bool done = false;
    str k;

    if (depth > SCAN_MAX_DEPTH)
        return false;
    sc->p++;
    if (next_is(sc, '}')) {
        sc->p++;
        return true;
    }
    while (!done) {
        if (!key(sc, &k) || !value(sc, depth) || !separator(sc, '}', &done))
            return false;
    }
    return true;
}

/* The array at sc->p (its '['), elements of any value. */
static bool array(scanner *sc, int depth)
{
    bool done = false;

    if (depth > SCAN_MAX_DEPTH)
        return false;
    sc->p++;
    if (next_is(sc, ']')) {
        sc->p++;
        return true;
    }
    while (!done) {
        if (!value(sc, depth) || !separator(sc, ']', &done))
            return false;
    }
    return true;
}

/* Any value, in a container at depth. */
static bool value(scanner *sc, int depth)
{
    str s;

    skip_ws(sc);
    if (sc->p >= sc->end)
        return false;
    switch (*sc->p) {
    case '"':
        return string(sc, &s);
    case '{':
        return object(sc, depth + 1);
    case '[':
        return array(sc, depth + 1);
    case 't':
        return literal(sc, "true");
    case 'f':
        return literal(sc, "false");
    case 'n':
        return literal(sc, "null");
    default:
        return number(sc);
    }
}

/* A string value of at most max raw bytes; without escapes when plain. */
static bool string_value(scanner *sc, size_t max, bool plain_only, str *out)
{
    return next_is(sc, '"') && string(sc, out) && out->len <= max && (!plain_only || !out->escaped);
}

/* One call: an object with a non-empty string "tool" of at most
 * TS_SNAPSHOT_MAX_TOOL_BYTES and "args" an object or null when present. */
static bool call(scanner *sc, int depth)
{
    bool tool = false;
    bool args = false;
    bool done = false;
    str k;
    str t;

    if (!next_is(sc, '{') || depth > SCAN_MAX_DEPTH)
        return false;
    sc->p++;
    if (next_is(sc, '}'))
        return false; /* no "tool" */
    while (!done) {
        bool ok;

        if (!key(sc, &k))
            return false;
        if (key_is(&k, "tool")) {
            ok = !tool && string_value(sc, TS_SNAPSHOT_MAX_TOOL_BYTES, false, &t) && t.len > 0;
            tool = true;
        } else if (key_is(&k, "args")) {
            ok = !args && sc->p < sc->end &&
                 (*sc->p == '{' ? object(sc, depth + 1) : literal(sc, "null"));
            args = true;
        } else {
            ok = value(sc, depth);
        }
        if (!ok || !separator(sc, '}', &done))
            return false;
    }
    return tool;
}

/* The calls array at sc->p (its '['). */
static bool calls(scanner *sc, size_t *count)
{
    bool done = false;

    *count = 0;
    if (!next_is(sc, '['))
        return false;
    sc->p++;
    if (next_is(sc, ']')) {
        sc->p++;
        return true;
    }
    while (!done) {
        if (!call(sc, 3) || !separator(sc, ']', &done))
            return false;
        if (++*count > TS_SNAPSHOT_MAX_CALLS)
            return false;
    }
    return true;
}

enum member {
    M_SCHEMA,
    M_NAME,
    M_CREATED,
    M_UPDATED,
    M_VERSION,
    M_APPROVED,
    M_SOURCE,
    M_CALLS,
    M_OTHER
};

static enum member member_of(const str *k)
{
    static const char *const names[] = {"schema_version",    "name",     "created_at", "updated_at",
                                        "toolscore_version", "approved", "source",     "calls"};

    for (int m = 0; m < M_OTHER; m++) {
        if (key_is(k, names[m]))
            return (enum member)m;
    }
    return M_OTHER;
}

/* schema_version: exactly the integer 1. */
static bool schema_version(scanner *sc)
{
    if (!literal(sc, "1"))
        return false;
    return sc->p >= sc->end ||
           !(is_digit(*sc->p) || *sc->p == '.' || *sc->p == 'e' || *sc->p == 'E');
}

/* One top-level member's value, as ts_snapshot_parse reads it. */
static bool member(scanner *sc, enum member m, ts_snapshot_scan *out)
{
    str s;

    switch (m) {
    case M_SCHEMA:
        return schema_version(sc);
    case M_NAME:
        if (!string_value(sc, TS_NAME_MAX_BYTES, true, &s) ||
            ts_name_validate(s.s, s.len, NULL) < 0)
            return false;
        out->name = s.s;
        out->name_len = s.len;
        return true;
    case M_CREATED:
    case M_UPDATED:
        if (!string_value(sc, TS_TIMESTAMP_MAX - 1, true, &s))
            return false;
        if (m == M_CREATED) {
            out->created_at = s.s;
            out->created_len = s.len;
        } else {
            out->updated_at = s.s;
            out->updated_len = s.len;
        }
        return true;
    case M_VERSION:
        return string_value(sc, TS_SNAPSHOT_MAX_META_BYTES, false, &s);
    case M_SOURCE:
        if (!string_value(sc, TS_SNAPSHOT_MAX_META_BYTES, true, &s))
            return false;
        out->source = s.s;
        out->source_len = s.len;
        return true;
    case M_APPROVED:
        out->approved = sc->p < sc->end && *sc->p == 't';
        return literal(sc, out->approved ? "true" : "false");
    case M_CALLS:
        return calls(sc, &out->calls);
    default:
        return value(sc, 1);
    }
}

bool ts_snapshot_scan_summary(const char *buf, size_t len, ts_snapshot_scan *out)
{
    scanner sc = {(const unsigned char *)buf, (const unsigned char *)buf + len};
    unsigned seen = 0;
    bool done = false;

    memset(out, 0, sizeof(*out));
    out->source = "pytest";
    out->source_len = 6;
    if (len > TS_JSON_MAX_BYTES || len > TS_SNAPSHOT_MAX_BYTES || !next_is(&sc, '{'))
        return false;
    sc.p++;
    if (next_is(&sc, '}'))
        return false; /* no name, no calls */
    while (!done) {
        enum member m;
        str k;

        if (!key(&sc, &k))
            return false;
        m = member_of(&k);
        if (m != M_OTHER && (seen & (1u << m)) != 0)
            return false; /* given twice: the parser keeps the last */
        seen |= 1u << m;
        if (!member(&sc, m, out) || !separator(&sc, '}', &done))
            return false;
    }
    skip_ws(&sc);
    return sc.p == sc.end && (seen & (1u << M_NAME)) && (seen & (1u << M_CALLS)) &&
           (seen & (1u << M_CREATED)) && (seen & (1u << M_UPDATED));
}
