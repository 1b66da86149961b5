/*
 * ts_utf8 — the one UTF-8 decoder (see ts_base.h).
 */
#include "lib/base/ts_base.h"

size_t ts_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
    unsigned char c = len > 0 ? s[0] : 0;
    size_t n;
    uint32_t v;
    uint32_t min;

    if (len == 0)
        return 0;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        v = c & 0x1F;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        v = c & 0x0F;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        v = c & 0x07;
        min = 0x10000;
    } else {
        return 0;
    }
    if (len < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

/* Offset of the first invalid byte, or len (inlined into both callers). */
static size_t first_invalid(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    uint32_t cp;

    while (i < len) {
        size_t n;

        if (p[i] < 0x80) {
            i++;
            continue;
        }
        n = ts_utf8_decode(p + i, len - i, &cp);
        if (n == 0)
            return i;
        i += n;
    }
    return len;
}

size_t ts_utf8_first_invalid(const char *s, size_t len)
{
    return first_invalid(s, len);
}

bool ts_utf8_valid(const char *s, size_t len)
{
    return first_invalid(s, len) == len;
}

size_t ts_utf8_cut(const char *s, size_t len, size_t max)
{
    if (len <= max)
        return len;
    while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
        max--;
    return max;
}
