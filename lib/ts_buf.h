/*
 * ts_buf — a growable byte buffer with a maximum size fixed at creation.
 *
 * An append that would pass the maximum, or that cannot allocate, fails with
 * -E2BIG / -ENOMEM and frees the buffer (it is left empty and reusable), so no
 * caller ever holds a half-built result. The data is always NUL-terminated
 * (the NUL is not counted in len) once anything was appended.
 *
 *   ts_buf b;
 *   ts_buf_init(&b, 1 << 20);
 *   if (ts_buf_appendf(&b, "%d calls", n) < 0) ...;
 *   ...use b.data, b.len...
 *   ts_buf_free(&b);
 */
#ifndef TS_BUF_H
#define TS_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct ts_buf {
    char *data;   /* owned; NULL until the first append */
    size_t len;   /* bytes used, excluding the terminating NUL */
    size_t cap;   /* bytes allocated */
    size_t max;   /* largest len allowed */
} ts_buf;

#define TS_BUF_UNLIMITED ((size_t)-1 / 2)

void ts_buf_init(ts_buf *b, size_t max);
int ts_buf_append(ts_buf *b, const void *data, size_t len);
int ts_buf_appends(ts_buf *b, const char *s);
int ts_buf_appendc(ts_buf *b, char c);
int ts_buf_appendf(ts_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ts_buf_vappendf(ts_buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Make room for n more bytes without changing len (-E2BIG/-ENOMEM, freed). */
int ts_buf_reserve(ts_buf *b, size_t n);
/* Forget the contents, keep the allocation. */
void ts_buf_reset(ts_buf *b);
/* Take ownership of the data (never NULL: "" when empty); b is left empty. */
char *ts_buf_detach(ts_buf *b, size_t *len);
void ts_buf_free(ts_buf *b);

#endif
