/*
 * ts_html_escape — the escapes of the HTML report (see ts_html.h): HTML
 * text, double-quoted attributes and the JSON data island.
 */
#include "lib/html/ts_html.h"

#include <stdint.h>
#include <string.h>

#include "lib/base/ts_base.h"

static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */

enum { TEXT, ATTR, JSON };

/* The reference or escape that stands for code point cp in context, or
 * NULL when cp is written as it is. */
static const char *escape_of(uint32_t cp, int context)
{
    if (context == JSON) {
        switch (cp) {
        case '<':
            return "\\u003c";
        case '>':
            return "\\u003e";
        case '&':
            return "\\u0026";
        case 0x2028:
            return "\\u2028";
        case 0x2029:
            return "\\u2029";
        default:
            return NULL;
        }
    }
    switch (cp) {
    case '&':
        return "&amp;";
    case '<':
        return "&lt;";
    case '>':
        return "&gt;";
    case '"':
        return "&quot;";
    case '\'':
        return "&#39;";
    case '\t':
        return context == ATTR ? "&#9;" : NULL;
    case '\n':
        return context == ATTR ? "&#10;" : NULL;
    case '\r':
        return context == ATTR ? "&#13;" : NULL;
    default:
        return NULL;
    }
}

/* A control character HTML does not want as such (C0 but tab and line
 * breaks, DEL, C1), or a noncharacter. */
static bool unwanted(uint32_t cp)
{
    return (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || (cp >= 0x7F && cp < 0xA0) ||
           (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE;
}

static int escape(const char *s, size_t len, int context, ts_buf *out)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t run = 0; /* start of the bytes copied as they are */
    size_t i = 0;

    while (i < len) {
        uint32_t cp = p[i];
        size_t n = 1;
        const char *rep = NULL;

        if (cp >= 0x80) {
            n = ts_utf8_decode(p + i, len - i, &cp);
            if (n == 0) {
                n = 1;
                rep = replacement;
            }
        }
        if (rep == NULL)
            rep = escape_of(cp, context);
        /* The data island is JSON: a control character there is already
         * an escape (the writer's), bytes above are left to JSON. */
        if (rep == NULL && context != JSON && unwanted(cp))
            rep = replacement;
        if (rep != NULL) {
            ts_buf_append(out, s + run, i - run);
            ts_buf_appends(out, rep);
            run = i + n;
        }
        i += n;
    }
    ts_buf_append(out, s + run, len - run);
    return ts_buf_error(out);
}

int ts_html_escape_text(const char *s, size_t len, ts_buf *out)
{
    return escape(s, len, TEXT, out);
}

int ts_html_escape_attr(const char *s, size_t len, ts_buf *out)
{
    return escape(s, len, ATTR, out);
}

int ts_html_escape_json(const char *s, size_t len, ts_buf *out)
{
    return escape(s, len, JSON, out);
}
