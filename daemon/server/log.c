/*
 * log — level-filtered, line-oriented event log (see server.h).
 */
#include "daemon/server/server.h"

#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static FILE *log_stream;
static int log_owned;
static tsd_log_level log_min = TSD_LOG_INFO;

static const char *const level_names[] = {"debug", "info", "warn", "error"};

int tsd_log_level_parse(const char *s, tsd_log_level *out)
{
    for (int i = 0; i < 4; i++) {
        if (strcmp(s, level_names[i]) == 0) {
            *out = (tsd_log_level)i;
            return 0;
        }
    }
    return -EINVAL;
}

int tsd_log_open(tsd_log_level min, const char *path, int to_stderr, ts_error *err)
{
    log_min = min;
    if (path != NULL) {
        int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);

        if (fd < 0)
            return ts_error_set(err, -errno, TS_ERR_IO, "cannot open log file %s: %s", path,
                                strerror(errno));
        log_stream = fdopen(fd, "a");
        if (log_stream == NULL) {
            close(fd);
            return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "cannot open log file %s", path);
        }
        setvbuf(log_stream, NULL, _IOLBF, 0);
        log_owned = 1;
    } else if (to_stderr) {
        log_stream = stderr;
        log_owned = 0;
    }
    return 0;
}

void tsd_log_close(void)
{
    if (log_stream != NULL && log_owned)
        fclose(log_stream);
    log_stream = NULL;
    log_owned = 0;
}

void tsd_log(tsd_log_level level, const char *fmt, ...)
{
    struct timespec ts;
    struct tm tm;
    char when[40];
    char line[2048];
    va_list ap;

    if (log_stream == NULL || level < log_min)
        return;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    /* One event, one line: a message carrying a newline is flattened. */
    for (char *p = line; *p != '\0'; p++) {
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    }
    fprintf(log_stream, "%s.%03ldZ toolscored[%ld] %s: %s\n", when, ts.tv_nsec / 1000000L,
            (long)getpid(), level_names[level], line);
    fflush(log_stream);
}
