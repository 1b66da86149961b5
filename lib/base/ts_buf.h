/*
 * ts_buf — a growable byte buffer with a maximum size fixed at creation, and
 * errors that stick.
 *
 * An append that would pass the maximum, or that cannot allocate, fails with
 * -E2BIG / -ENOMEM: the buffer frees its contents and remembers the error,
 * and every later append does nothing and returns that error. So a writer
 * appends without checking each step and looks once at the end
 * (ts_buf_error); no caller can take a half-built result, since
 * ts_buf_detach of a failed buffer gives NULL. The data is always
 * NUL-terminated (the NUL is not counted in len) once anything was appended.
 *
 *   ts_buf b;
 *   ts_buf_init(&b, 1 << 20);
 *   ts_buf_appendf(&b, "%d calls", n);
 *   ts_buf_appends(&b, " checked");
 *   if (ts_buf_error(&b) < 0) ...;
 *   ...use b.data, b.len...
 *   ts_buf_free(&b);
 */
#ifndef TS_BUF_H
#define TS_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct ts_buf {
    char *data; /* owned; NULL until the first append */
    size_t len; /* bytes used, excluding the terminating NUL */
    size_t cap; /* bytes allocated */
    size_t max; /* largest len allowed */
    int error;  /* 0, or the first failure (-E2BIG, -ENOMEM): then empty */
} ts_buf;

#define TS_BUF_UNLIMITED ((size_t)-1 / 2)

void ts_buf_init(ts_buf *b, size_t max);

/* Appends: 0, or the buffer's error (the first failure, kept: the contents
 * are freed and later appends do nothing). */
int ts_buf_append(ts_buf *b, const void *data, size_t len);
int ts_buf_appends(ts_buf *b, const char *s);
int ts_buf_appendc(ts_buf *b, char c);
int ts_buf_appendf(ts_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ts_buf_vappendf(ts_buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Make room for n more bytes without changing len (fails as an append). */
int ts_buf_reserve(ts_buf *b, size_t n);
/* 0, or the error of the first append that failed. */
int ts_buf_error(const ts_buf *b);
/* Fail b with rc (< 0) as a failed append does, unless it failed already;
 * returns b's error. For a writer whose part built elsewhere (a temporary
 * buffer) failed, so that b's own writer sees it at the end. */
int ts_buf_fail(ts_buf *b, int rc);
/* Forget the contents and any error, keep the allocation. */
void ts_buf_reset(ts_buf *b);
/* Take ownership of the data ("" when empty; NULL when the buffer failed
 * or out of memory); b is left empty, as after ts_buf_init. */
char *ts_buf_detach(ts_buf *b, size_t *len);
/* Free the contents; b is left empty, as after ts_buf_init. */
void ts_buf_free(ts_buf *b);

#endif
