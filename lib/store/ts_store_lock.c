/*
 * ts_store_lock — the single-daemon lock of a store (see ts_store.h).
 */
#include "lib/store/ts_store.h"
#include "ts_store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOCK_NAME_IN_ROOT ".toolscored.lock"
#define PARENT_NAME ".toolscore"
#define READ_ATTEMPTS 20 /* a holder between flock and writing: 20 x 5 ms */

struct ts_store_lock {
    int dirfd;
    int fd;
    bool read_only; /* an existing file locked without the right to write it */
    char name[256];
};

static bool no_permission(int rc)
{
    return rc == -EACCES || rc == -EPERM || rc == -EROFS;
}

int ts_store_lock_where(const char *root, char *dir, size_t dirsz, char *name, size_t namesz)
{
    size_t len = strlen(root);
    const char *base;
    const char *pslash;
    int n;

    while (len > 1 && root[len - 1] == '/')
        len--;
    base = root + len;
    while (base > root && base[-1] != '/')
        base--;
    /* the parent: root[0 .. base - 1) */
    pslash = base - 1;
    while (pslash > root && pslash[-1] != '/')
        pslash--;
    if (base > root + 1 && (size_t)(base - 1 - pslash) == strlen(PARENT_NAME) &&
        memcmp(pslash, PARENT_NAME, strlen(PARENT_NAME)) == 0 && root + len > base) {
        n = snprintf(dir, dirsz, "%.*s", (int)(base - 1 - root), root);
        if (n < 0 || (size_t)n >= dirsz)
            return -ENAMETOOLONG;
        n = snprintf(name, namesz, "%.*s.lock", (int)(root + len - base), base);
        return n < 0 || (size_t)n >= namesz ? -ENAMETOOLONG : 0;
    }
    n = snprintf(dir, dirsz, "%.*s", (int)len, root);
    if (n < 0 || (size_t)n >= dirsz)
        return -ENAMETOOLONG;
    n = snprintf(name, namesz, "%s", LOCK_NAME_IN_ROOT);
    return n < 0 || (size_t)n >= namesz ? -ENAMETOOLONG : 0;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {0, (long)ms * 1000000L};

    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* What the holder wrote: "<pid>\n<socket>\n". */
static void read_owner(int fd, ts_store_lock_owner *owner)
{
    char buf[TS_STORE_LOCK_SOCKET_MAX + 64];

    owner->pid = 0;
    owner->socket[0] = '\0';
    for (int attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
        ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
        char *nl;
        char *end;

        if (n > 0) {
            buf[n] = '\0';
            nl = strchr(buf, '\n');
            /* complete: two lines */
            if (nl != NULL && strchr(nl + 1, '\n') != NULL) {
                owner->pid = strtol(buf, NULL, 10);
                end = strchr(nl + 1, '\n');
                *end = '\0';
                snprintf(owner->socket, sizeof(owner->socket), "%s", nl + 1);
                return;
            }
        }
        sleep_ms(5);
    }
}

/* True when dirfd/name is the file open as fd (not a replacement). */
static bool same_file_at(int dirfd, const char *name, int fd)
{
    struct stat at, held;

    return fstatat(dirfd, name, &at, AT_SYMLINK_NOFOLLOW) == 0 && fstat(fd, &held) == 0 &&
           at.st_dev == held.st_dev && at.st_ino == held.st_ino;
}

static int busy(const char *path, const ts_store_lock_owner *owner, ts_error *err)
{
    if (owner->socket[0] != '\0')
        return ts_error_set(err, -EBUSY, TS_ERR_STORE_BUSY,
                            "the store is served by another toolscored (pid %ld, socket %s; "
                            "it holds %s)",
                            owner->pid, owner->socket, path);
    return ts_error_set(err, -EBUSY, TS_ERR_STORE_BUSY,
                        "the store is served by another toolscored (it holds %s)", path);
}

/* Record who holds the lock: pid and socket, written whole through a
 * descriptor of its own (the lock is held on a read-only one, which does
 * not keep the file system from being remounted read-only). */
static int write_owner(int dirfd, const char *name, const char *socket)
{
    char buf[TS_STORE_LOCK_SOCKET_MAX + 64];
    int n = snprintf(buf, sizeof(buf), "%ld\n%s\n", (long)getpid(), socket ? socket : "");
    int fd;
    int rc = 0;

    if (n < 0 || (size_t)n >= sizeof(buf))
        return -ENAMETOOLONG;
    fd = openat(dirfd, name, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (pwrite(fd, buf, (size_t)n, 0) != n)
        rc = -errno;
    if (close(fd) < 0 && rc == 0)
        rc = -errno;
    return rc;
}

int ts_store_lock_take(const char *root, const char *socket, bool create, ts_store_lock **out,
                       ts_store_lock_owner *owner, ts_error *err)
{
    char dir[4096];
    char name[256];
    char path[4096 + 256];
    ts_store_lock *lock;
    int dirfd;
    int rc;

    *out = NULL;
    if (ts_store_lock_where(root, dir, sizeof(dir), name, sizeof(name)) < 0)
        return ts_error_set(err, -ENAMETOOLONG, TS_ERR_INVALID_ARGUMENT,
                            "snapshot root path is too long: %s", root);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (create) {
        char failed[4096] = "";

        rc = ts_store__make_dirs(dir, NULL, failed, sizeof(failed));
        if (no_permission(rc)) {
            ts_error_set(err, rc, TS_ERR_IO, "cannot create %s for the store's lock: %s", dir,
                         strerror(-rc));
            return TS_STORE_LOCK_UNLOCKABLE;
        }
        if (rc < 0)
            return ts_error_set(err, rc, TS_ERR_IO, "cannot create %s: %s", dir, strerror(-rc));
    }
    dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0 && errno == ENOENT && !create)
        return 1;
    if (dirfd < 0)
        return ts_error_set(err, -errno, TS_ERR_IO, "cannot open %s: %s", dir, strerror(errno));
    for (int attempt = 0; attempt < 100; attempt++) {
        int fd = openat(dirfd, name, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        bool read_only = false;

        /* a directory we may not write (a read-only checkout, another
         * user's .toolscore): lock an existing file read-only, or not at all */
        if (fd < 0 && no_permission(-errno)) {
            int saved = errno;

            fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
            read_only = fd >= 0;
            if (fd < 0) {
                close(dirfd);
                ts_error_set(err, -saved, TS_ERR_IO, "cannot create the store's lock %s: %s", path,
                             strerror(saved));
                return TS_STORE_LOCK_UNLOCKABLE;
            }
        }
        if (fd < 0) {
            rc = -errno;
            close(dirfd);
            return ts_error_set(err, rc, TS_ERR_IO, "cannot open the store's lock %s: %s", path,
                                strerror(-rc));
        }
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
            rc = errno == EWOULDBLOCK ? -EBUSY : -errno;
            if (rc == -EBUSY)
                read_owner(fd, owner);
            close(fd);
            close(dirfd);
            if (rc == -EBUSY)
                return busy(path, owner, err);
            return ts_error_set(err, rc, TS_ERR_IO, "cannot lock %s: %s", path, strerror(-rc));
        }
        /* a holder that let go removed the file between our open and our
         * flock: a lock on an unlinked file guards nothing, try again */
        if (!same_file_at(dirfd, name, fd)) {
            close(fd);
            continue;
        }
        rc = read_only ? 0 : write_owner(dirfd, name, socket);
        if (no_permission(rc)) { /* ours, but the file system is read-only now */
            rc = 0;
            read_only = true;
        }
        if (rc < 0) {
            unlinkat(dirfd, name, 0);
            close(fd);
            close(dirfd);
            return ts_error_set(err, rc, TS_ERR_IO, "cannot write the store's lock %s: %s", path,
                                strerror(-rc));
        }
        lock = calloc(1, sizeof(*lock));
        if (lock == NULL) {
            unlinkat(dirfd, name, 0);
            close(fd);
            close(dirfd);
            return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
        }
        lock->dirfd = dirfd;
        lock->fd = fd;
        lock->read_only = read_only;
        snprintf(lock->name, sizeof(lock->name), "%s", name);
        *out = lock;
        return 0;
    }
    close(dirfd);
    return ts_error_set(err, -EAGAIN, TS_ERR_IO, "cannot take the store's lock %s", path);
}

bool ts_store_lock_held(const ts_store_lock *lock)
{
    return same_file_at(lock->dirfd, lock->name, lock->fd);
}

void ts_store_lock_release(ts_store_lock *lock)
{
    if (lock == NULL)
        return;
    if (!lock->read_only && same_file_at(lock->dirfd, lock->name, lock->fd))
        unlinkat(lock->dirfd, lock->name, 0);
    close(lock->fd);
    close(lock->dirfd);
    free(lock);
}
