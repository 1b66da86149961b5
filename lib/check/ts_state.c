/*
 * ts_state — the daemon's state directory (see ts_check.h).
 */
#include "lib/check/ts_check.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <sha1.h>

#include "lib/base/ts_base.h"

#define STATE_NAME_MAX 255
#define TEMP_SUFFIX ".tmp"
/* The root file of a store directory holds a path of at most PATH_MAX. */
#define ROOT_FILE_MAX (PATH_MAX + 1)

struct ts_state {
    int fd;
    char *path;
};

int ts_state_default_path(char *out, size_t outsz, ts_error *err)
{
    const char *xdg = getenv("XDG_STATE_HOME");
    const char *home = getenv("HOME");
    int n;

    if (xdg != NULL && xdg[0] == '/')
        n = snprintf(out, outsz, "%s/toolscore", xdg);
    else if (home != NULL && home[0] == '/')
        n = snprintf(out, outsz, "%s/.local/state/toolscore", home);
    else
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "no state directory: neither XDG_STATE_HOME nor HOME is an absolute "
                            "path (give one with --state-dir)");
    if (n < 0 || (size_t)n >= outsz)
        return ts_error_set(err, -E2BIG, TS_ERR_TOO_LARGE, "state directory path too long");
    return 0;
}

bool ts_state_name_valid(const char *name)
{
    size_t len;

    if (name == NULL || name[0] == '\0' || name[0] == '.')
        return false;
    len = strnlen(name, STATE_NAME_MAX + 1);
    return len <= STATE_NAME_MAX && memchr(name, '/', len) == NULL;
}

/* mkdir -p of an absolute path, 0700 for the parts it creates. */
static int make_dirs(const char *path)
{
    char buf[PATH_MAX];
    size_t len = strlen(path);

    if (len >= sizeof(buf))
        return -ENAMETOOLONG;
    memcpy(buf, path, len + 1);
    for (char *p = buf + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0700) < 0 && errno != EEXIST)
            return -errno;
        *p = '/';
    }
    if (mkdir(buf, 0700) < 0 && errno != EEXIST)
        return -errno;
    return 0;
}

/* Open path as a directory; a symbolic link only when this uid owns it. */
static int open_top(const char *path, int *out, ts_error *err)
{
    struct stat link;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (fd < 0 && (errno == ELOOP || errno == ENOTDIR) && lstat(path, &link) == 0 &&
        S_ISLNK(link.st_mode)) {
        if (link.st_uid != geteuid())
            return ts_error_set(err, -EPERM, TS_ERR_IO,
                                "state directory %s is a symbolic link owned by uid %ld, not by "
                                "this user (uid %ld): refusing it",
                                path, (long)link.st_uid, (long)geteuid());
        fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    if (fd < 0)
        return ts_error_set(err, -errno, TS_ERR_IO, "cannot open state directory %s: %s", path,
                            strerror(errno));
    *out = fd;
    return 0;
}

int ts_state_open(const char *path, ts_state **out, ts_error *err)
{
    struct stat st;
    ts_state *s;
    int fd = -1;
    int rc;

    if (path == NULL || path[0] != '/')
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "state directory must be an absolute path: '%s'",
                            path == NULL ? "" : path);
    rc = make_dirs(path);
    if (rc < 0)
        return ts_error_set(err, rc, TS_ERR_IO, "cannot create state directory %s: %s", path,
                            strerror(-rc));
    rc = open_top(path, &fd, err);
    if (rc < 0)
        return rc;
    if (fstat(fd, &st) < 0) {
        rc = ts_error_set(err, -errno, TS_ERR_IO, "cannot stat state directory %s: %s", path,
                          strerror(errno));
        goto fail;
    }
    if (st.st_uid != geteuid()) {
        rc = ts_error_set(err, -EPERM, TS_ERR_IO,
                          "state directory %s is owned by uid %ld, not by this user (uid %ld)",
                          path, (long)st.st_uid, (long)geteuid());
        goto fail;
    }
    if ((st.st_mode & 077) != 0) {
        rc = ts_error_set(err, -EPERM, TS_ERR_IO,
                          "state directory %s is open to other users (mode %04o); run "
                          "chmod 700 %s",
                          path, (unsigned)(st.st_mode & 07777), path);
        goto fail;
    }
    s = calloc(1, sizeof(*s));
    if (s == NULL || (s->path = strdup(path)) == NULL) {
        free(s);
        rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
        goto fail;
    }
    s->fd = fd;
    *out = s;
    return 0;
fail:
    close(fd);
    return rc;
}

void ts_state_close(ts_state *st)
{
    if (st == NULL)
        return;
    close(st->fd);
    free(st->path);
    free(st);
}

const char *ts_state_path(const ts_state *st)
{
    return st->path;
}

/* Open (creating when asked) the directory name in dir. */
static int open_child_dir(int dir, const char *name, bool create, int *out, ts_error *err)
{
    int fd;

    if (create && mkdirat(dir, name, 0700) < 0 && errno != EEXIST)
        return ts_error_set(err, -errno, TS_ERR_IO, "cannot create state directory %s: %s", name,
                            strerror(errno));
    fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return ts_error_set(err, -ENOENT, TS_ERR_NOT_FOUND, "no state directory %s", name);
    if (fd < 0)
        return ts_error_set(err, -errno, TS_ERR_IO, "cannot open state directory %s: %s", name,
                            strerror(errno));
    *out = fd;
    return 0;
}

int ts_state_dir(const ts_state *st, const char *rel, bool create, int *fd, ts_error *err)
{
    char part[STATE_NAME_MAX + 1];
    const char *p = rel;
    int cur = st->fd;
    int rc = 0;

    if (rel == NULL || rel[0] == '\0')
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "empty state directory name");
    while (*p != '\0') {
        const char *slash = strchr(p, '/');
        size_t len = slash == NULL ? strlen(p) : (size_t)(slash - p);
        int next = -1;

        if (len == 0 || len > STATE_NAME_MAX) {
            rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                              "invalid state directory name '%s'", rel);
            break;
        }
        memcpy(part, p, len);
        part[len] = '\0';
        if (!ts_state_name_valid(part)) {
            rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                              "invalid state directory name '%s'", rel);
            break;
        }
        rc = open_child_dir(cur, part, create, &next, err);
        if (rc < 0)
            break;
        if (cur != st->fd)
            close(cur);
        cur = next;
        p += len;
        if (*p == '/')
            p++;
    }
    if (rc < 0) {
        if (cur != st->fd)
            close(cur);
        return rc;
    }
    *fd = cur;
    return 0;
}

void ts_state_store_key(const char *root, char out[TS_STATE_STORE_KEY_LEN + 1])
{
    uint8_t digest[SHA1_DIGEST_LENGTH];
    SHA1_CTX ctx;

    SHA1Init(&ctx);
    SHA1Update(&ctx, (const uint8_t *)root, strlen(root));
    SHA1Final(digest, &ctx);
    for (size_t i = 0; i < TS_STATE_STORE_KEY_LEN / 2; i++)
        snprintf(out + 2 * i, 3, "%02x", digest[i]);
    out[TS_STATE_STORE_KEY_LEN] = '\0';
}

int ts_state_store_dir(const ts_state *st, const char *root, bool create, int *fd, ts_error *err)
{
    char rel[sizeof("stores/") + TS_STATE_STORE_KEY_LEN];
    char key[TS_STATE_STORE_KEY_LEN + 1];
    char *held = NULL;
    size_t len;
    int dir;
    int rc;

    if (root == NULL || root[0] != '/')
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "store root must be an absolute path");
    ts_state_store_key(root, key);
    snprintf(rel, sizeof(rel), "stores/%s", key);
    rc = ts_state_dir(st, rel, create, &dir, err);
    if (rc < 0)
        return rc;
    rc = ts_state_read_file(dir, "root", ROOT_FILE_MAX, &held, &len, err);
    if (rc == -ENOENT && create) {
        size_t rlen = strlen(root);
        char *line = malloc(rlen + 2);

        if (line == NULL) {
            rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
        } else {
            memcpy(line, root, rlen);
            line[rlen] = '\n';
            line[rlen + 1] = '\0';
            rc = ts_state_write_file(dir, "root", line, rlen + 1, false, err);
            free(line);
        }
    } else if (rc == 0) {
        if (len > 0 && held[len - 1] == '\n')
            held[--len] = '\0';
        if (strcmp(held, root) != 0)
            rc = ts_error_set(err, -EEXIST, TS_ERR_INTERNAL,
                              "state directory %s/%s belongs to store %s, not %s", st->path, rel,
                              held, root);
    } else if (rc == -ENOENT) {
        rc = 0; /* not created yet and not asked to: an empty store state */
    }
    free(held);
    if (rc < 0) {
        close(dir);
        return rc;
    }
    *fd = dir;
    return 0;
}

/* ".<name>.<16 hex>.tmp" into out. */
static int temp_name(const char *name, char *out, size_t outsz)
{
    unsigned char random[8];
    char hex[2 * sizeof(random) + 1];
    int n;

    if (getrandom(random, sizeof(random), 0) != (ssize_t)sizeof(random)) {
        static unsigned counter;
        uint64_t v = ((uint64_t)getpid() << 32) ^
                     (uint64_t)__atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);

        memcpy(random, &v, sizeof(random));
    }
    for (size_t i = 0; i < sizeof(random); i++)
        snprintf(hex + 2 * i, 3, "%02x", random[i]);
    n = snprintf(out, outsz, ".%s.%s" TEMP_SUFFIX, name, hex);
    return n < 0 || (size_t)n >= outsz ? -ENAMETOOLONG : 0;
}

int ts_state_write_file(int dir, const char *name, const void *data, size_t len, bool durable,
                        ts_error *err)
{
    char temp[STATE_NAME_MAX + 32];
    int fd;
    int rc;

    if (!ts_state_name_valid(name))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "invalid state file name '%s'",
                            name == NULL ? "" : name);
    if (temp_name(name, temp, sizeof(temp)) < 0)
        return ts_error_set(err, -ENAMETOOLONG, TS_ERR_INVALID_ARGUMENT,
                            "state file name too long: '%s'", name);
    fd = openat(dir, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return ts_error_set(err, -errno, TS_ERR_IO, "cannot create state file %s: %s", temp,
                            strerror(errno));
    rc = ts_fd_write_all(fd, data, len);
    if (rc == 0 && durable && fsync(fd) < 0)
        rc = -errno;
    if (close(fd) < 0 && rc == 0)
        rc = -errno;
    if (rc == 0 && renameat(dir, temp, dir, name) < 0)
        rc = -errno;
    if (rc < 0) {
        unlinkat(dir, temp, 0);
        return ts_error_set(err, rc, TS_ERR_IO, "cannot write state file %s: %s", name,
                            strerror(-rc));
    }
    if (durable && fsync(dir) < 0)
        return ts_error_set(err, -errno, TS_ERR_IO, "cannot sync the directory of %s: %s", name,
                            strerror(errno));
    return 0;
}

int ts_state_read_file(int dir, const char *name, size_t max, char **data, size_t *len,
                       ts_error *err)
{
    struct stat st;
    char *buf;
    size_t got = 0;
    int fd;

    if (!ts_state_name_valid(name))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "invalid state file name '%s'",
                            name == NULL ? "" : name);
    fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return ts_error_set(err, -ENOENT, TS_ERR_NOT_FOUND, "no state file %s", name);
    if (fd < 0)
        return ts_error_set(err, -errno, TS_ERR_IO, "cannot open state file %s: %s", name,
                            strerror(errno));
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return ts_error_set(err, -EINVAL, TS_ERR_IO, "state file %s is not a regular file", name);
    }
    if ((uint64_t)st.st_size > max) {
        close(fd);
        return ts_error_set(err, -E2BIG, TS_ERR_TOO_LARGE,
                            "state file %s is %lld bytes, more than %zu", name,
                            (long long)st.st_size, max);
    }
    buf = malloc((size_t)st.st_size + 1);
    if (buf == NULL) {
        close(fd);
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int rc = -errno;

            free(buf);
            close(fd);
            return ts_error_set(err, rc, TS_ERR_IO, "cannot read state file %s: %s", name,
                                strerror(-rc));
        }
        if (n == 0)
            break; /* shrank while read: what is there */
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    *data = buf;
    *len = got;
    return 0;
}

int ts_state_append_open(int dir, const char *name, int *fd, ts_error *err)
{
    int f;

    if (!ts_state_name_valid(name))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "invalid state file name '%s'",
                            name == NULL ? "" : name);
    f = openat(dir, name, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (f < 0)
        return ts_error_set(err, -errno, TS_ERR_IO, "cannot open state file %s: %s", name,
                            strerror(errno));
    *fd = f;
    return 0;
}

int ts_state_remove_file(int dir, const char *name, ts_error *err)
{
    if (!ts_state_name_valid(name))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "invalid state file name '%s'",
                            name == NULL ? "" : name);
    if (unlinkat(dir, name, 0) == 0)
        return 0;
    if (errno == ENOENT)
        return ts_error_set(err, -ENOENT, TS_ERR_NOT_FOUND, "no state file %s", name);
    return ts_error_set(err, -errno, TS_ERR_IO, "cannot remove state file %s: %s", name,
                        strerror(errno));
}

/* Empty the directory open as fd (depth bounds the recursion). */
static int empty_dir(int fd, int depth)
{
    DIR *d;
    struct dirent *e;
    int dup_fd = dup(fd);
    int rc = 0;

    if (dup_fd < 0)
        return -errno;
    d = fdopendir(dup_fd);
    if (d == NULL) {
        close(dup_fd);
        return -errno;
    }
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (unlinkat(fd, e->d_name, 0) == 0 || errno == ENOENT)
            continue;
        if ((errno == EISDIR || errno == EPERM) && depth > 0) {
            int sub = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

            if (sub < 0) {
                rc = -errno;
                break;
            }
            rc = empty_dir(sub, depth - 1);
            close(sub);
            if (rc == 0 && unlinkat(fd, e->d_name, AT_REMOVEDIR) < 0 && errno != ENOENT)
                rc = -errno;
            if (rc < 0)
                break;
            continue;
        }
        rc = -errno;
        break;
    }
    closedir(d);
    return rc;
}

int ts_state_remove_tree(int dir, const char *name, ts_error *err)
{
    int fd;
    int rc;

    if (!ts_state_name_valid(name))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "invalid state directory name '%s'", name == NULL ? "" : name);
    fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return 0;
    if (fd < 0 && (errno == ELOOP || errno == ENOTDIR)) {
        /* A symbolic link or a file in its place: remove that, nothing it names. */
        if (unlinkat(dir, name, 0) == 0 || errno == ENOENT)
            return 0;
    }
    if (fd < 0)
        return ts_error_set(err, -errno, TS_ERR_IO, "cannot open state directory %s: %s", name,
                            strerror(errno));
    rc = empty_dir(fd, 8);
    close(fd);
    if (rc == 0 && unlinkat(dir, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
        rc = -errno;
    if (rc < 0)
        return ts_error_set(err, rc, TS_ERR_IO, "cannot remove state directory %s: %s", name,
                            strerror(-rc));
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void ts_state_names_free(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

/* A listing of dir from its start (on a copy of the descriptor). */
static int open_listing(int dir, DIR **out, ts_error *err)
{
    int fd = dup(dir);
    DIR *d;

    if (fd < 0)
        return ts_error_set(err, -errno, TS_ERR_IO, "cannot list state directory: %s",
                            strerror(errno));
    d = fdopendir(fd);
    if (d == NULL) {
        int rc = -errno;

        close(fd);
        return ts_error_set(err, rc, TS_ERR_IO, "cannot list state directory: %s", strerror(-rc));
    }
    rewinddir(d);
    *out = d;
    return 0;
}

int ts_state_list(int dir, char ***names, size_t *count, ts_error *err)
{
    DIR *d;
    struct dirent *e;
    char **list = NULL;
    size_t n = 0, cap = 0;
    int rc = open_listing(dir, &d, err);

    if (rc < 0)
        return rc;
    while ((e = readdir(d)) != NULL) {
        if (!ts_state_name_valid(e->d_name))
            continue;
        if (n == cap) {
            size_t ncap = cap == 0 ? 16 : cap * 2;
            char **grown = realloc(list, ncap * sizeof(*grown));

            if (grown == NULL)
                goto oom;
            list = grown;
            cap = ncap;
        }
        list[n] = strdup(e->d_name);
        if (list[n] == NULL)
            goto oom;
        n++;
    }
    closedir(d);
    if (n > 1)
        qsort(list, n, sizeof(*list), compare_names);
    *names = list;
    *count = n;
    return 0;
oom:
    closedir(d);
    ts_state_names_free(list, n);
    return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
}

int ts_state_clean_temps(int dir, ts_error *err)
{
    DIR *d;
    struct dirent *e;
    int rc = open_listing(dir, &d, err);

    if (rc < 0)
        return rc;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);

        if (e->d_name[0] == '.' && len > sizeof(TEMP_SUFFIX) &&
            strcmp(e->d_name + len - (sizeof(TEMP_SUFFIX) - 1), TEMP_SUFFIX) == 0)
            unlinkat(dir, e->d_name, 0);
    }
    closedir(d);
    return 0;
}
