/*
 * ts_error — filling the caller's error object (see ts_error.h).
 */
#include "ts_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int ts_error_set(ts_error *err, int rc, const char *code, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL)
        return rc;
    snprintf(err->code, sizeof(err->code), "%s", code ? code : TS_ERR_INTERNAL);
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
    return rc;
}

int ts_error_prefix(ts_error *err, int rc, const char *fmt, ...)
{
    char prefix[512];
    char old[TS_ERROR_MESSAGE_MAX];
    va_list ap;

    if (err == NULL)
        return rc;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    memcpy(old, err->message, sizeof(old));
    snprintf(err->message, sizeof(err->message), "%s: %s", prefix, old);
    return rc;
}

void ts_error_clear(ts_error *err)
{
    if (err == NULL)
        return;
    err->code[0] = '\0';
    err->message[0] = '\0';
}
