/*
 * shim_open — an LD_PRELOAD fault injector for tests: makes open() of
 * /dev/null fail with EMFILE while a control file exists, so a process
 * cannot take back a descriptor it keeps in reserve; and makes the
 * creation of chosen files slow, so a job writing one stays pending.
 *
 * Environment (read at every call):
 *   TS_SHIM_OPEN_CONTROL  path of the control file; while it exists, opening
 *                         /dev/null fails with EMFILE. Unset: no effect.
 *   TS_SHIM_OPEN_SLOW_NAME  while the file TS_SHIM_OPEN_SLOW_CONTROL exists,
 *                         an openat() with O_CREAT of a path holding this
 *                         text first sleeps TS_SHIM_OPEN_SLOW_MS (default
 *                         1000) milliseconds. Unset: no effect.
 *
 * Built by the Makefile as $(BUILD)/tests/shim_open.so, without sanitizer
 * flags; used by tests/test_daemon_faults.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int (*open_fn)(const char *, int, ...);

int open(const char *path, int flags, ...);
int open64(const char *path, int flags, ...);
int openat(int dir, const char *path, int flags, ...);
int openat64(int dir, const char *path, int flags, ...);

static int refused(const char *path)
{
    const char *control = getenv("TS_SHIM_OPEN_CONTROL");

    return path != NULL && strcmp(path, "/dev/null") == 0 && control != NULL &&
           control[0] != '\0' && access(control, F_OK) == 0;
}

static int call_next(const char *name, const char *path, int flags, mode_t mode)
{
    open_fn next = (open_fn)(uintptr_t)dlsym(RTLD_NEXT, name);

    if (next == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return next(path, flags, mode);
}

static mode_t mode_arg(int flags, va_list ap)
{
    if ((flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE)
        return (mode_t)va_arg(ap, int);
    return 0;
}

int open(const char *path, int flags, ...)
{
    va_list ap;
    mode_t mode;

    va_start(ap, flags);
    mode = mode_arg(flags, ap);
    va_end(ap);
    if (refused(path)) {
        errno = EMFILE;
        return -1;
    }
    return call_next("open", path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    va_list ap;
    mode_t mode;

    va_start(ap, flags);
    mode = mode_arg(flags, ap);
    va_end(ap);
    if (refused(path)) {
        errno = EMFILE;
        return -1;
    }
    return call_next("open64", path, flags, mode);
}

/* TS_SHIM_OPEN_SLOW_NAME: creating a file whose path holds it is slow. */
static void maybe_slow(const char *path, int flags)
{
    const char *name = getenv("TS_SHIM_OPEN_SLOW_NAME");
    const char *control = getenv("TS_SHIM_OPEN_SLOW_CONTROL");
    const char *ms_s = getenv("TS_SHIM_OPEN_SLOW_MS");
    long ms = ms_s != NULL ? strtol(ms_s, NULL, 10) : 1000;
    struct timespec ts;

    if (name == NULL || name[0] == '\0' || path == NULL || (flags & O_CREAT) == 0 ||
        strstr(path, name) == NULL || ms <= 0 || control == NULL || access(control, F_OK) != 0)
        return;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

typedef int (*openat_fn)(int, const char *, int, ...);

static int openat_next(const char *name, int dir, const char *path, int flags, mode_t mode)
{
    openat_fn next = (openat_fn)(uintptr_t)dlsym(RTLD_NEXT, name);

    if (next == NULL) {
        errno = ENOSYS;
        return -1;
    }
    maybe_slow(path, flags);
    return next(dir, path, flags, mode);
}

int openat(int dir, const char *path, int flags, ...)
{
    va_list ap;
    mode_t mode;

    va_start(ap, flags);
    mode = mode_arg(flags, ap);
    va_end(ap);
    return openat_next("openat", dir, path, flags, mode);
}

int openat64(int dir, const char *path, int flags, ...)
{
    va_list ap;
    mode_t mode;

    va_start(ap, flags);
    mode = mode_arg(flags, ap);
    va_end(ap);
    return openat_next("openat64", dir, path, flags, mode);
}
