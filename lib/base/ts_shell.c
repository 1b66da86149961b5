/*
 * ts_shell — words quoted for a POSIX shell, so that a printed command
 * pasted into bash or zsh does what it says (see ts_base.h).
 */
#include "lib/base/ts_base.h"

#include <string.h>

/* A code point that does not show as itself on a terminal: C0 and C1
 * controls, DEL, and the invisible format characters and separators
 * (soft hyphen, zero-width characters, bidirectional controls, line and
 * paragraph separators, the byte order mark). */
static bool hidden(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0xad || cp == 0x61c || cp == 0x180e ||
           (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
           (cp >= 0x2060 && cp <= 0x206f) || cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb);
}

/* Whether s[0..len) holds a byte that is not valid UTF-8 or a hidden character. */
static bool needs_escapes(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;

    while (i < len) {
        uint32_t cp;
        size_t n = ts_utf8_decode(u + i, len - i, &cp);

        if (n == 0 || hidden(cp))
            return true;
        i += n;
    }
    return false;
}

/* 'a'\''b': single-quoted runs, each ' outside them as \' (no empty '' run,
 * so zsh's RC_QUOTES reads it alike). */
static int single_quoted(ts_buf *out, const char *s, size_t len)
{
    bool open = false;

    if (len == 0)
        return ts_buf_appends(out, "''");
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\'') {
            if (open)
                ts_buf_appendc(out, '\'');
            open = false;
            ts_buf_appends(out, "\\'");
            continue;
        }
        if (!open)
            ts_buf_appendc(out, '\'');
        open = true;
        ts_buf_appendc(out, s[i]);
    }
    if (open)
        ts_buf_appendc(out, '\'');
    return ts_buf_error(out);
}

/* $'...' (bash, zsh, ksh, POSIX.1-2024): visible characters as they are,
 * \\ and \x27 for the backslash and the quote (so a history expansion's
 * scanner sees one quoted word), \n \t \r, and every byte of anything
 * hidden or invalid as \xHH (exact whatever the locale). */
static int ansi_c_quoted(ts_buf *out, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;

    ts_buf_appends(out, "$'");
    while (i < len) {
        uint32_t cp = 0;
        size_t n = ts_utf8_decode(u + i, len - i, &cp);

        if (n == 0 || hidden(cp)) {
            if (n == 1 && cp == '\n')
                ts_buf_appends(out, "\\n");
            else if (n == 1 && cp == '\t')
                ts_buf_appends(out, "\\t");
            else if (n == 1 && cp == '\r')
                ts_buf_appends(out, "\\r");
            else
                for (size_t k = 0; k < (n == 0 ? 1 : n); k++) {
                    char e[4] = {'\\', 'x', hex[u[i + k] >> 4], hex[u[i + k] & 15]};

                    ts_buf_append(out, e, 4);
                }
            i += n == 0 ? 1 : n;
            continue;
        }
        if (cp == '\\')
            ts_buf_appends(out, "\\\\");
        else if (cp == '\'')
            ts_buf_appends(out, "\\x27");
        else
            ts_buf_append(out, s + i, n);
        i += n;
    }
    ts_buf_appendc(out, '\'');
    return ts_buf_error(out);
}

bool ts_shell_shows(const char *s, size_t len)
{
    return !needs_escapes(s, len);
}

int ts_shell_quote(ts_buf *out, const char *s, size_t len)
{
    return needs_escapes(s, len) ? ansi_c_quoted(out, s, len) : single_quoted(out, s, len);
}

int ts_shell_command(ts_buf *out, const char *command, const char *word)
{
    ts_buf_appends(out, command);
    /* a word that starts with '-' would be read as an option */
    ts_buf_appends(out, word[0] == '-' ? " -- " : " ");
    return ts_shell_quote(out, word, strlen(word));
}
