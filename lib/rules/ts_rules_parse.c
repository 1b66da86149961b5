/*
 * ts_rules_parse — a rules file's text to compiled rules, with every error
 * placed at a line and column of the text (ts_rules_parse, ts_rules.h).
 *
 * The text is read by the strict JSON reader first (syntax errors come
 * with its line and column). json-c keeps no positions, so when the rules
 * object is refused, the place ts_rules_build names (a chain of keys and
 * indexes) is found again by a small scanner over the text, which the
 * reader has already proved to be valid JSON. The same scanner refuses
 * duplicate keys, which the reader would let the last one win: a rules
 * file whose second "ignore" silently replaced the first would disable
 * rules without a word.
 */
#include "ts_rules_internal.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"

typedef struct scanner {
    const char *s;
    size_t len, pos;
} scanner;

static void skip_ws(scanner *sc)
{
    while (sc->pos < sc->len && (sc->s[sc->pos] == ' ' || sc->s[sc->pos] == '\t' ||
                                 sc->s[sc->pos] == '\n' || sc->s[sc->pos] == '\r'))
        sc->pos++;
}

static unsigned hex4(const char *s)
{
    unsigned v = 0;

    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        v |= (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

static size_t put_utf8(char *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/*
 * The string at sc->pos (its opening quote), decoded into a new buffer
 * (*out, *out_len; NULL out: only skipped). The text is valid JSON.
 */
static int scan_string(scanner *sc, char **out, size_t *out_len)
{
    size_t start = ++sc->pos, n = 0;
    char *buf = NULL;

    while (sc->pos < sc->len && sc->s[sc->pos] != '"')
        sc->pos += sc->s[sc->pos] == '\\' ? 2 : 1;
    if (out == NULL) {
        sc->pos++;
        return 0;
    }
    buf = malloc(sc->pos - start + 1);
    if (buf == NULL)
        return -ENOMEM;
    for (size_t i = start; i < sc->pos; i++) {
        char c = sc->s[i];
        if (c != '\\') {
            buf[n++] = c;
            continue;
        }
        c = sc->s[++i];
        switch (c) {
        case 'b':
            buf[n++] = '\b';
            break;
        case 'f':
            buf[n++] = '\f';
            break;
        case 'n':
            buf[n++] = '\n';
            break;
        case 'r':
            buf[n++] = '\r';
            break;
        case 't':
            buf[n++] = '\t';
            break;
        case 'u': {
            uint32_t cp = hex4(sc->s + i + 1);
            i += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && i + 6 < sc->pos && sc->s[i + 1] == '\\') {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (hex4(sc->s + i + 3) - 0xdc00);
                i += 6;
            }
            n += put_utf8(buf + n, cp);
            break;
        }
        default: /* " \ / */
            buf[n++] = c;
        }
    }
    sc->pos++;
    buf[n] = '\0';
    *out = buf;
    *out_len = n;
    return 0;
}

static int skip_value(scanner *sc);

/* Skip the object or array at sc->pos (close is its closing bracket). */
static int skip_container(scanner *sc, char close)
{
    int rc = 0;

    sc->pos++;
    skip_ws(sc);
    if (sc->pos < sc->len && sc->s[sc->pos] == close) {
        sc->pos++;
        return 0;
    }
    while (rc == 0 && sc->pos < sc->len) {
        if (close == '}') {
            rc = scan_string(sc, NULL, NULL);
            skip_ws(sc);
            sc->pos++; /* ':' */
            skip_ws(sc);
        }
        if (rc == 0)
            rc = skip_value(sc);
        skip_ws(sc);
        if (sc->pos < sc->len && sc->s[sc->pos] == ',') {
            sc->pos++;
            skip_ws(sc);
            continue;
        }
        sc->pos++; /* close */
        break;
    }
    return rc;
}

static int skip_value(scanner *sc)
{
    skip_ws(sc);
    if (sc->pos >= sc->len)
        return 0;
    switch (sc->s[sc->pos]) {
    case '"':
        return scan_string(sc, NULL, NULL);
    case '{':
        return skip_container(sc, '}');
    case '[':
        return skip_container(sc, ']');
    default:
        while (sc->pos < sc->len && strchr(",]} \t\r\n", sc->s[sc->pos]) == NULL)
            sc->pos++;
        return 0;
    }
}

/* 1-based line and column (code points) of offset. */
static void position(const char *s, size_t len, size_t offset, size_t *line, size_t *column)
{
    *line = 1;
    *column = 1;
    for (size_t i = 0; i < offset && i < len; i++) {
        if (s[i] == '\n') {
            (*line)++;
            *column = 1;
        } else if (((unsigned char)s[i] & 0xc0) != 0x80) {
            (*column)++;
        }
    }
}

/* ---------------------------------------------------------------------------
 * Duplicate keys
 * ------------------------------------------------------------------------- */

typedef struct seen_key {
    char *key;
    size_t len;
    size_t at; /* offset of the key */
} seen_key;

static int compare_seen(const void *pa, const void *pb)
{
    const seen_key *a = pa, *b = pb;
    int c = memcmp(a->key, b->key, a->len < b->len ? a->len : b->len);

    if (c != 0)
        return c;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

static int find_duplicates(scanner *sc, size_t *dup_at, char **dup_key);

/* The object at sc->pos: its members' values are searched too. */
static int object_duplicates(scanner *sc, size_t *dup_at, char **dup_key)
{
    seen_key *keys = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;

    sc->pos++;
    skip_ws(sc);
    while (rc == 0 && sc->pos < sc->len && sc->s[sc->pos] == '"') {
        seen_key k = {NULL, 0, sc->pos};
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 8;
            seen_key *p = realloc(keys, ncap * sizeof(*p));
            if (p == NULL) {
                rc = -ENOMEM;
                break;
            }
            keys = p;
            cap = ncap;
        }
        rc = scan_string(sc, &k.key, &k.len);
        if (rc < 0)
            break;
        keys[n++] = k;
        skip_ws(sc);
        sc->pos++; /* ':' */
        skip_ws(sc);
        rc = find_duplicates(sc, dup_at, dup_key);
        skip_ws(sc);
        if (sc->pos < sc->len && sc->s[sc->pos] == ',') {
            sc->pos++;
            skip_ws(sc);
        }
    }
    if (rc == 0 && *dup_key == NULL && n > 1) {
        qsort(keys, n, sizeof(*keys), compare_seen);
        for (size_t i = 1; i < n; i++) {
            if (keys[i].len == keys[i - 1].len &&
                memcmp(keys[i].key, keys[i - 1].key, keys[i].len) == 0 &&
                (*dup_key == NULL || keys[i].at < *dup_at)) {
                free(*dup_key);
                *dup_key = strdup(keys[i].key);
                *dup_at = keys[i].at;
                if (*dup_key == NULL)
                    rc = -ENOMEM;
            }
        }
    }
    for (size_t i = 0; i < n; i++)
        free(keys[i].key);
    free(keys);
    skip_ws(sc);
    if (sc->pos < sc->len && sc->s[sc->pos] == '}')
        sc->pos++;
    return rc;
}

/* The first duplicate key in the value at sc->pos (*dup_key stays NULL
 * when there is none). */
static int find_duplicates(scanner *sc, size_t *dup_at, char **dup_key)
{
    int rc = 0;

    skip_ws(sc);
    if (sc->pos >= sc->len || *dup_key != NULL)
        return skip_value(sc);
    if (sc->s[sc->pos] == '{')
        return object_duplicates(sc, dup_at, dup_key);
    if (sc->s[sc->pos] != '[')
        return skip_value(sc);
    sc->pos++;
    skip_ws(sc);
    while (rc == 0 && sc->pos < sc->len && sc->s[sc->pos] != ']') {
        rc = find_duplicates(sc, dup_at, dup_key);
        skip_ws(sc);
        if (sc->pos < sc->len && sc->s[sc->pos] == ',')
            sc->pos++;
        skip_ws(sc);
    }
    sc->pos++;
    return rc;
}

/* ---------------------------------------------------------------------------
 * Locating a place
 * ------------------------------------------------------------------------- */

/* Move into member key of the object at sc->pos; *at is the key's offset. */
static int enter_key(scanner *sc, const char *key, size_t *at)
{
    skip_ws(sc);
    if (sc->pos >= sc->len || sc->s[sc->pos] != '{')
        return -ENOENT;
    sc->pos++;
    for (;;) {
        size_t key_at, len;
        char *name = NULL;
        bool same;
        skip_ws(sc);
        if (sc->pos >= sc->len || sc->s[sc->pos] != '"')
            return -ENOENT;
        key_at = sc->pos;
        if (scan_string(sc, &name, &len) < 0)
            return -ENOMEM;
        same = strlen(key) == len && memcmp(name, key, len) == 0;
        free(name);
        skip_ws(sc);
        sc->pos++; /* ':' */
        skip_ws(sc);
        if (same) {
            *at = key_at;
            return 0;
        }
        skip_value(sc);
        skip_ws(sc);
        if (sc->pos >= sc->len || sc->s[sc->pos] != ',')
            return -ENOENT;
        sc->pos++;
    }
}

static int enter_index(scanner *sc, size_t index, size_t *at)
{
    skip_ws(sc);
    if (sc->pos >= sc->len || sc->s[sc->pos] != '[')
        return -ENOENT;
    sc->pos++;
    for (size_t i = 0;; i++) {
        skip_ws(sc);
        if (i == index) {
            *at = sc->pos;
            return 0;
        }
        skip_value(sc);
        skip_ws(sc);
        if (sc->pos >= sc->len || sc->s[sc->pos] != ',')
            return -ENOENT;
        sc->pos++;
    }
}

/* Offset of where in text (the root value when where is empty). */
static size_t locate(const char *text, size_t len, const ts_rules_where *where)
{
    scanner sc = {text, len, 0};
    size_t at;

    skip_ws(&sc);
    at = sc.pos;
    for (int i = 0; i < where->n; i++) {
        int rc = where->at[i].key != NULL ? enter_key(&sc, where->at[i].key, &at)
                                          : enter_index(&sc, where->at[i].index, &at);
        if (rc < 0)
            break;
    }
    return at;
}

int ts_rules_parse(const char *text, size_t len, const char *source, ts_rules **out, ts_error *err)
{
    struct json_object *obj = NULL;
    ts_rules_where where;
    scanner sc = {text, len, 0};
    size_t dup_at = 0, line, column;
    char *dup_key = NULL;
    int rc;

    if (source == NULL)
        source = "rules";
    if (len > TS_RULES_FILE_MAX)
        return ts_error_set(err, -EFBIG, TS_ERR_INVALID_RULES,
                            "%s: the rules file is over %u bytes", source, TS_RULES_FILE_MAX);
    rc = ts_json_parse(text, len, 0, &obj, err);
    if (rc < 0) {
        if (err != NULL) /* one code for every way a rules file is wrong */
            snprintf(err->code, sizeof(err->code), "%s", TS_ERR_INVALID_RULES);
        return ts_error_prefix(err, rc, "%s", source);
    }
    rc = find_duplicates(&sc, &dup_at, &dup_key);
    if (rc == 0 && dup_key != NULL) {
        position(text, len, dup_at, &line, &column);
        rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_RULES,
                          "%s: line %zu, column %zu: duplicate key '%.200s' (a second value "
                          "would replace the first)",
                          source, line, column, dup_key);
    } else if (rc < 0) {
        rc = ts_error_set(err, rc, TS_ERR_NO_MEMORY, "out of memory");
    }
    free(dup_key);
    if (rc == 0) {
        rc = ts_rules_build(obj, out, &where, err);
        if (rc == -EINVAL || rc == -E2BIG) {
            position(text, len, locate(text, len, &where), &line, &column);
            ts_error_prefix(err, rc, "%s: line %zu, column %zu", source, line, column);
        } else if (rc < 0) {
            ts_error_prefix(err, rc, "%s", source);
        }
        json_object_put(where.holder);
    }
    json_object_put(obj);
    return rc;
}
