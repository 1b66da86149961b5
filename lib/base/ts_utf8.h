/*
 * ts_utf8 — the one definition of valid UTF-8 and its decoder, shared by
 * the JSON reader and writer, the wire format, names, scoring's
 * whitespace trimming and the report's repr() and widths.
 *
 * Valid means RFC 3629: shortest form only (no overlongs), no surrogates
 * (U+D800-DFFF), nothing beyond U+10FFFF.
 */
#ifndef TS_UTF8_H
#define TS_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Length of the valid UTF-8 sequence at s[0..len) (1 to 4), or 0 if it is
 * invalid (overlong, surrogate, beyond U+10FFFF, truncated, stray
 * continuation byte) or len is 0. *cp receives the code point.
 */
size_t ts_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp);

/* Offset of the first byte of s[0..len) that does not start a valid
 * sequence, or len when all of it is valid. */
size_t ts_utf8_first_invalid(const char *s, size_t len);

/* True when s[0..len) is valid UTF-8. */
bool ts_utf8_valid(const char *s, size_t len);

#endif
