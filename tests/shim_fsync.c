/*
 * shim_fsync — an LD_PRELOAD fault injector for tests: makes the fsync of
 * a directory, or the fsync of a file, fail with EIO while a control file
 * exists.
 *
 * Environment (read at every call, so a test can switch the fault on and
 * off while the process runs):
 *   TS_SHIM_FSYNC_CONTROL  path of the control file; while it exists, the
 *                          fsync/fdatasync of a directory fails with EIO
 *                          (everything else is synced as usual). Unset:
 *                          the shim does nothing.
 *   TS_SHIM_FSYNC_DATA     set to 1: the fault hits the syncs of file data
 *                          instead: fsync/fdatasync of anything but a
 *                          directory.
 *   TS_SHIM_FSYNC_DELAY_MS a failing call first sleeps this long (so that
 *                          concurrent writes pile up behind it).
 *   TS_SHIM_FSYNC_LOG      each failure appends one line here: "dirsync EIO"
 *                          or, in data mode, "data EIO".
 *   TS_SHIM_FSYNC_SLOW_MS  every fsync/fdatasync of a file (not a
 *                          directory) first sleeps this long, then syncs
 *                          as usual: a slow disk (no control file needed).
 *
 * Built by the Makefile as $(BUILD)/tests/shim_fsync.so, without sanitizer
 * flags; used by tests/test_daemon_faults.c and tests/test_daemon_lock.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef int (*sync_fn)(int);

int fsync(int fd);
int fdatasync(int fd);

/* True when the fault is on and hits this sync of fd; then waits the delay
 * and logs the failure. */
static int inject(int fd)
{
    const char *control = getenv("TS_SHIM_FSYNC_CONTROL");
    const char *delay = getenv("TS_SHIM_FSYNC_DELAY_MS");
    const char *log = getenv("TS_SHIM_FSYNC_LOG");
    const char *data = getenv("TS_SHIM_FSYNC_DATA");
    int data_mode = data != NULL && strcmp(data, "1") == 0;
    struct stat st;

    if (control == NULL || control[0] == '\0' || access(control, F_OK) != 0)
        return 0;
    if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode) == data_mode)
        return 0;
    if (delay != NULL) {
        long ms = strtol(delay, NULL, 10);
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

        if (ms > 0)
            while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
                ;
    }
    if (log != NULL && log[0] != '\0') {
        int lfd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);

        if (lfd >= 0) {
            const char *line = data_mode ? "data EIO\n" : "dirsync EIO\n";
            ssize_t n = write(lfd, line, strlen(line));

            (void)n;
            close(lfd);
        }
    }
    return 1;
}

static int call_next(const char *name, int fd)
{
    sync_fn next = (sync_fn)(uintptr_t)dlsym(RTLD_NEXT, name);

    if (next == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return next(fd);
}

/* TS_SHIM_FSYNC_SLOW_MS: the sync of a file's data takes this long. */
static void slow(int fd)
{
    const char *slow_ms = getenv("TS_SHIM_FSYNC_SLOW_MS");
    struct stat st;
    long ms;

    if (slow_ms == NULL || (ms = strtol(slow_ms, NULL, 10)) <= 0)
        return;
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) {
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
}

int fsync(int fd)
{
    slow(fd);
    if (inject(fd)) {
        errno = EIO;
        return -1;
    }
    return call_next("fsync", fd);
}

int fdatasync(int fd)
{
    slow(fd);
    if (inject(fd)) {
        errno = EIO;
        return -1;
    }
    return call_next("fdatasync", fd);
}
