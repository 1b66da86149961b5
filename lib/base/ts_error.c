/*
 * ts_error — filling the caller's error object (see ts_base.h).
 */
#include "lib/base/ts_base.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Keep the "one line" promise of ts_base.h whatever the arguments held (a
 * peer's map key, a snapshot name): control bytes become '?'. */
static void one_line(char *s)
{
    for (; *s != '\0'; s++) {
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
    }
}

int ts_error_set(ts_error *err, int rc, const char *code, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL)
        return rc;
    snprintf(err->code, sizeof(err->code), "%s", code ? code : TS_ERR_INTERNAL);
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
    one_line(err->code);
    one_line(err->message);
    return rc;
}

int ts_error_prefix(ts_error *err, int rc, const char *fmt, ...)
{
    char prefix[512];
    char old[TS_ERROR_MESSAGE_MAX];
    size_t used;
    size_t room;
    size_t old_len;
    va_list ap;

    if (err == NULL)
        return rc;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    memcpy(old, err->message, sizeof(old));
    old[sizeof(old) - 1] = '\0';
    /* prefix + ": " always fits; the old message is cut to what is left. */
    used = (size_t)snprintf(err->message, sizeof(err->message), "%s: ", prefix);
    room = sizeof(err->message) - 1 - used;
    old_len = strlen(old);
    if (old_len > room)
        old_len = room;
    memcpy(err->message + used, old, old_len);
    err->message[used + old_len] = '\0';
    one_line(err->message);
    return rc;
}

void ts_error_clear(ts_error *err)
{
    if (err == NULL)
        return;
    err->code[0] = '\0';
    err->message[0] = '\0';
}
