/*
 * util_vectors — see util_vectors.h.
 */
#include "util_vectors.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util_test.h"
/* ---- reading the record files ------------------------------------------ */

void vec_open(vec_file *f, const char *name)
{
    snprintf(f->path, sizeof(f->path), "%s/tests/data/compat-vectors/%s", util_source_dir(), name);
    f->data = util_read_file(f->path, &f->len);
    ck_assert_msg(f->len >= 1, "%s is empty", f->path);
    f->pos = 0;
}

void vec_close(vec_file *f)
{
    free(f->data);
    f->data = NULL;
}

/* The next record ("<tag> <len>\n<len bytes>\n"), skipping '#' lines; false
 * at the end of the file. A malformed file fails the test. */
bool vec_next(vec_file *f, vec_record *r)
{
    while (f->pos < f->len && f->data[f->pos] == '#') {
        const char *nl = memchr(f->data + f->pos, '\n', f->len - f->pos);
        ck_assert_msg(nl != NULL, "%s: unterminated comment", f->path);
        f->pos = (size_t)(nl - f->data) + 1;
    }
    if (f->pos >= f->len)
        return false;
    {
        const char *line = f->data + f->pos;
        const char *nl = memchr(line, '\n', f->len - f->pos);
        const char *space = memchr(line, ' ', f->len - f->pos);
        char *end;
        unsigned long long n;

        ck_assert_msg(nl != NULL && space != NULL && space < nl &&
                          (size_t)(space - line) < sizeof(r->tag),
                      "%s: bad record header at byte %zu", f->path, f->pos);
        memcpy(r->tag, line, (size_t)(space - line));
        r->tag[space - line] = '\0';
        n = strtoull(space + 1, &end, 10);
        ck_assert_msg(end == nl, "%s: bad record length at byte %zu", f->path, f->pos);
        f->pos = (size_t)(nl - f->data) + 1;
        ck_assert_msg(n < f->len - f->pos && f->data[f->pos + n] == '\n',
                      "%s: record '%s' at byte %zu runs past its length", f->path, r->tag, f->pos);
        r->data = f->data + f->pos;
        r->len = (size_t)n;
        f->pos += (size_t)n + 1;
    }
    return true;
}

/* The next record, which must carry tag. */
void vec_expect(vec_file *f, const char *tag, vec_record *r)
{
    ck_assert_msg(vec_next(f, r), "%s: ends where a '%s' record was expected", f->path, tag);
    ck_assert_msg(strcmp(r->tag, tag) == 0, "%s: found '%s' where '%s' was expected", f->path,
                  r->tag, tag);
}

/* ---- reporting mismatches ------------------------------------------------ */

void vec_mismatch(vec_mismatches *m, const char *fmt, ...)
{
    va_list ap;

    if (m->count++ >= VEC_MAX_REPORTED)
        return;
    fprintf(stderr, "%s mismatch: ", m->what);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* Print the first difference of two byte strings with some context. */
void vec_bytes_mismatch(vec_mismatches *m, const char *label, const char *want, size_t want_len,
                        const char *got, size_t got_len)
{
    size_t i = 0;
    size_t from;

    while (i < want_len && i < got_len && want[i] == got[i])
        i++;
    from = i > 40 ? i - 40 : 0;
    vec_mismatch(m, "%s: first difference at byte %zu\n  python: ...%.*s...\n  C:      ...%.*s...",
                 label, i, (int)((want_len - from) < 80 ? want_len - from : 80), want + from,
                 (int)((got_len - from) < 80 ? got_len - from : 80), got + from);
}

bool vec_same_bytes(const char *a, size_t alen, const char *b, size_t blen)
{
    return alen == blen && memcmp(a, b, alen) == 0;
}

/* ---- json.vec documents -------------------------------------------------- */

/* Every input record of json.vec (pointers into f->data). */
vec_document *vec_load_documents(vec_file *f, size_t *count)
{
    vec_record r;
    size_t n = 0, cap = 256;
    vec_document *docs = malloc(cap * sizeof(*docs));

    ck_assert_ptr_nonnull(docs);
    while (vec_next(f, &r)) {
        ck_assert_msg(strcmp(r.tag, "input") == 0, "json.vec: '%s' where 'input' was expected",
                      r.tag);
        if (n == cap) {
            cap *= 2;
            docs = realloc(docs, cap * sizeof(*docs));
            ck_assert_ptr_nonnull(docs);
        }
        docs[n].input = r.data;
        docs[n].input_len = r.len;
        n++;
        vec_expect(f, "pretty", &r);
        vec_expect(f, "compact", &r);
    }
    *count = n;
    return docs;
}

/* ---- UTF-8 ----------------------------------------------------------------- */

size_t vec_utf8_put(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}
