/*
 * ts_buf — growable byte buffer with a hard maximum and sticky errors (see
 * ts_base.h).
 */
#include "lib/base/ts_base.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ts_buf_init(ts_buf *b, size_t max)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->max = max;
    b->error = 0;
}

static void release(ts_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void ts_buf_free(ts_buf *b)
{
    release(b);
    b->error = 0;
}

/* The first failure: contents freed, the error kept for every later call. */
static int fail(ts_buf *b, int rc)
{
    release(b);
    b->error = rc;
    return rc;
}

int ts_buf_error(const ts_buf *b)
{
    return b->error;
}

int ts_buf_fail(ts_buf *b, int rc)
{
    if (b->error == 0 && rc < 0)
        fail(b, rc);
    return b->error;
}

void ts_buf_reset(ts_buf *b)
{
    b->len = 0;
    b->error = 0;
    if (b->data != NULL)
        b->data[0] = '\0';
}

int ts_buf_reserve(ts_buf *b, size_t n)
{
    size_t need;
    size_t cap;
    char *p;

    if (b->error < 0)
        return b->error;
    if (n > b->max || b->len > b->max - n)
        return fail(b, -E2BIG);
    need = b->len + n + 1;
    if (need <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > ((size_t)-1) / 2 ? need : cap * 2;
    p = realloc(b->data, cap);
    if (p == NULL)
        return fail(b, -ENOMEM);
    b->data = p;
    b->cap = cap;
    return 0;
}

int ts_buf_append(ts_buf *b, const void *data, size_t len)
{
    int rc = ts_buf_reserve(b, len);

    if (rc < 0)
        return rc;
    if (len > 0)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return 0;
}

int ts_buf_appends(ts_buf *b, const char *s)
{
    return ts_buf_append(b, s, strlen(s));
}

int ts_buf_appendc(ts_buf *b, char c)
{
    return ts_buf_append(b, &c, 1);
}

int ts_buf_vappendf(ts_buf *b, const char *fmt, va_list ap)
{
    va_list copy;
    int n;
    int rc;

    va_copy(copy, ap);
    n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0)
        return b->error < 0 ? b->error : fail(b, -EINVAL);
    rc = ts_buf_reserve(b, (size_t)n);
    if (rc < 0)
        return rc;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return 0;
}

int ts_buf_appendf(ts_buf *b, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = ts_buf_vappendf(b, fmt, ap);
    va_end(ap);
    return rc;
}

char *ts_buf_detach(ts_buf *b, size_t *len)
{
    char *p = b->data;

    if (len != NULL)
        *len = b->error < 0 ? 0 : b->len;
    if (b->error < 0)
        p = NULL;
    else if (p == NULL)
        p = calloc(1, 1);
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->error = 0;
    return p;
}
