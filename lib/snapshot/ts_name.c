/*
 * ts_name — snapshot names to file names (see ts_snapshot.h and
 * docs/internals/store.md). The mapping is the reference tool's, so both read
 * and write the same files:
 *   stem = name with "::" -> "__", then each of / \ : [ ] < > | * ? " and
 *          every Unicode whitespace code point (Python's str.isspace) -> "__",
 *          leading/trailing '.' stripped, "" -> "snapshot", first 100 code
 *          points kept;
 *   file = stem + "-" + first 8 hex digits of SHA-1(name) + ".json".
 * The stem never contains '/' and never starts with '.', so it cannot leave
 * the root or be "." or "..".
 */
#include "lib/snapshot/ts_snapshot.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <sha1.h>

#include "lib/json/ts_json.h"

#define STEM_MAX_CODE_POINTS 100

/* Python's str.isspace() set. */
static bool unicode_space(uint32_t cp)
{
    if ((cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20))
        return true;
    switch (cp) {
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
        return true;
    default:
        return cp >= 0x2000 && cp <= 0x200A;
    }
}

static bool replaced_ascii(unsigned char c)
{
    return c != '\0' && strchr("/\\:[]<>|*?\"", c) != NULL;
}

/* Code point and length of the (valid) UTF-8 sequence at s. */
static size_t decode(const unsigned char *s, uint32_t *cp)
{
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    if (s[0] < 0xE0) {
        *cp = ((uint32_t)(s[0] & 0x1F) << 6) | (s[1] & 0x3F);
        return 2;
    }
    if (s[0] < 0xF0) {
        *cp = ((uint32_t)(s[0] & 0x0F) << 12) | ((uint32_t)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
        return 3;
    }
    *cp = ((uint32_t)(s[0] & 0x07) << 18) | ((uint32_t)(s[1] & 0x3F) << 12) |
          ((uint32_t)(s[2] & 0x3F) << 6) | (s[3] & 0x3F);
    return 4;
}

int ts_name_validate(const char *name, size_t len, ts_error *err)
{
    if (name == NULL)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "snapshot name is missing");
    if (len > TS_NAME_MAX_BYTES)
        return ts_error_set(err, -E2BIG, TS_ERR_TOO_LARGE,
                            "snapshot name of %zu bytes is longer than %d bytes", len,
                            TS_NAME_MAX_BYTES);
    if (memchr(name, '\0', len) != NULL)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "snapshot name contains a NUL byte");
    if (!ts_utf8_valid(name, len))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "snapshot name is not valid UTF-8");
    return 0;
}

void ts_name_hash8(const char *name, size_t len, char out[9])
{
    static const char hex[] = "0123456789abcdef";
    uint8_t digest[SHA1_DIGEST_LENGTH];
    SHA1_CTX ctx;

    SHA1Init(&ctx);
    SHA1Update(&ctx, (const uint8_t *)name, len);
    SHA1Final(digest, &ctx);
    for (int i = 0; i < 4; i++) {
        out[2 * i] = hex[digest[i] >> 4];
        out[2 * i + 1] = hex[digest[i] & 0xF];
    }
    out[8] = '\0';
}

/*
 * Steps 1 and 2 into stem (room for 2 * len + 1 bytes): "::" and every
 * replaced character become "__". Returns the stem's length.
 */
static size_t stem_replace(const char *name, size_t len, char *stem)
{
    const unsigned char *s = (const unsigned char *)name;
    size_t i = 0;
    size_t n = 0;

    while (i < len) {
        uint32_t cp;
        size_t step;

        if (s[i] == ':' && i + 1 < len && s[i + 1] == ':') {
            memcpy(stem + n, "__", 2);
            n += 2;
            i += 2;
            continue;
        }
        step = decode(s + i, &cp);
        if ((cp < 0x80 && replaced_ascii((unsigned char)cp)) || unicode_space(cp)) {
            memcpy(stem + n, "__", 2);
            n += 2;
        } else {
            memcpy(stem + n, s + i, step);
            n += step;
        }
        i += step;
    }
    stem[n] = '\0';
    return n;
}

/* Steps 3 to 5 on stem[0..n): strip dots, default, cut. Returns the length. */
static size_t stem_finish(char *stem, size_t n)
{
    size_t start = 0;
    size_t count = 0;
    size_t i;

    while (start < n && stem[start] == '.')
        start++;
    while (n > start && stem[n - 1] == '.')
        n--;
    memmove(stem, stem + start, n - start);
    n -= start;
    if (n == 0) {
        memcpy(stem, "snapshot", 9);
        return 8;
    }
    for (i = 0; i < n; i++) {
        if (((unsigned char)stem[i] & 0xC0) == 0x80)
            continue;
        if (count == STEM_MAX_CODE_POINTS)
            break;
        count++;
    }
    stem[i] = '\0';
    return i;
}

int ts_name_to_filename(const char *name, size_t len, char *out, size_t outsz, ts_error *err)
{
    /* Worst case: every byte an ASCII character replaced by two. */
    char stem[2 * TS_NAME_MAX_BYTES + 1];
    char hash[9];
    size_t n;
    int rc = ts_name_validate(name, len, err);

    if (rc < 0)
        return rc;
    n = stem_finish(stem, stem_replace(name, len, stem));
    ts_name_hash8(name, len, hash);
    if (outsz < n + sizeof("-12345678.json"))
        return ts_error_set(err, -ENAMETOOLONG, TS_ERR_INVALID_ARGUMENT,
                            "file name buffer of %zu bytes is too small", outsz);
    snprintf(out, outsz, "%.*s-%s.json", (int)n, stem, hash);
    return 0;
}
