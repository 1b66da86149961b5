/*
 * ts_store — the snapshot root directory (see ts_store.h and
 * docs/internals/store.md).
 *
 * The only state is the root path and the root's directory descriptor, which
 * is opened lazily (the root may not exist yet) and published once with an
 * atomic compare-and-swap, so threads working on different names never share
 * anything mutable. Every file is reached with *at() calls relative to that
 * descriptor and O_NOFOLLOW; names map to file names without '/' (ts_name),
 * so nothing can be read or written outside the root. Listing and temp-file
 * cleanup are in ts_store_list.c, the group commit of writes in
 * ts_store_commit.c.
 */
#include "lib/store/ts_store.h"
#include "ts_store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/base/ts_base.h"
#include "lib/json/ts_json.h"
#include "lib/snapshot/ts_snapshot.h"

/* ---- small helpers ------------------------------------------------------ */

int ts_store__sys_error(ts_error *err, int rc, const char *path, const char *what)
{
    return ts_error_set(err, rc, TS_ERR_IO, "%s: %s: %s", path, what, strerror(-rc));
}

int ts_store__no_memory(ts_error *err)
{
    return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
}

/* fsync the directory at path[0..len) (NUL at len); 0 or -errno. */
static int fsync_dir_at(char *path, size_t len)
{
    char keep = path[len];
    int fd;
    int rc = 0;

    path[len] = '\0';
    fd = open(len > 0 ? path : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || fsync(fd) < 0)
        rc = -errno;
    if (fd >= 0)
        close(fd);
    path[len] = keep;
    return rc;
}

int ts_store__make_dirs(const char *path, bool *made_last, char *failed, size_t failedsz)
{
    char buf[PATH_MAX];
    size_t len = strlen(path);
    size_t made[64];
    size_t nmade = 0;
    int rc = 0;

    if (len >= sizeof(buf))
        return -ENAMETOOLONG;
    memcpy(buf, path, len + 1);
    while (len > 1 && buf[len - 1] == '/')
        buf[--len] = '\0';
    for (size_t i = 1; i <= len && rc == 0; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        buf[i] = '\0';
        /* 0755 minus the umask: a store others can write is no baseline
         * (ts_store_exposure) */
        if (mkdir(buf, 0755) == 0) {
            if (nmade < sizeof(made) / sizeof(made[0]))
                made[nmade++] = i;
            if (i == len && made_last != NULL)
                *made_last = true;
        } else if (errno != EEXIST) {
            rc = -errno;
            snprintf(failed, failedsz, "%s", buf);
        }
        if (i < len)
            buf[i] = '/';
    }
    /* a new directory is there after a power loss only once the directory
     * holding its entry is synced: each new one's parent */
    for (size_t k = 0; k < nmade && rc == 0; k++) {
        size_t slash = made[k];

        while (slash > 0 && buf[slash - 1] != '/')
            slash--;
        if (slash > 0)
            slash--; /* the parent: up to its last slash */
        rc = fsync_dir_at(buf, slash);
        if (rc < 0)
            snprintf(failed, failedsz, "%.*s", (int)(slash > 0 ? slash : 1), slash > 0 ? buf : "/");
    }
    return rc;
}

/* Create path and its missing parents (mkdir -p), durably; *made_last:
 * this call made path itself. */
static int mkdir_parents(const char *path, bool *made_last, ts_error *err)
{
    char failed[PATH_MAX] = "";
    int rc = ts_store__make_dirs(path, made_last, failed, sizeof(failed));

    if (rc == -ENAMETOOLONG && failed[0] == '\0')
        return ts_store__sys_error(err, rc, path, "cannot create directory");
    if (rc < 0)
        return ts_store__sys_error(err, rc, failed, "cannot create directory");
    return 0;
}

/* Open the root by its path (making it first with create). */
static int open_root(ts_store *store, bool create, int *fd, ts_error *err)
{
    int opened = open(store->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (opened < 0 && errno == ENOENT && create) {
        bool made = false;
        int rc = mkdir_parents(store->root, &made, err);

        if (made)
            atomic_store(&store->root_made, true);
        if (rc < 0)
            return rc;
        opened = open(store->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    if (opened < 0) {
        if (errno == ENOENT && !create)
            return 1;
        return ts_store__sys_error(err, -errno, store->root, "cannot open the snapshot root");
    }
    *fd = opened;
    return 0;
}

/*
 * The root's descriptor for one operation into *fd; give it back with
 * ts_store__dir_release. Returns 0, 1 when the root does not exist and create is
 * false, or a negative code. With create, makes the root first.
 *
 * The first descriptor opened is kept for the store's life with its dev/ino.
 * One stat() of the path tells whether it still names that directory: the
 * held descriptor pins the inode, so its number cannot be reused by another
 * directory while we hold it. If the directory has since been removed or
 * moved away (a user deleted the root, a checkout or a restore recreated
 * it), the path is opened again for this operation only: a cached descriptor
 * cannot be swapped while other threads may be using it.
 */
int ts_store__dir(ts_store *store, bool create, int *fd, ts_error *err)
{
    ts_store_root_handle *held = atomic_load(&store->held);
    ts_store_root_handle *expected = NULL;
    ts_store_root_handle *fresh;
    struct stat st;
    int rc;

    if (held != NULL && stat(store->root, &st) == 0 && (uint64_t)st.st_dev == held->dev &&
        (uint64_t)st.st_ino == held->ino) {
        *fd = held->fd;
        return 0;
    }
    rc = open_root(store, create, fd, err);
    if (rc != 0 || held != NULL)
        return rc;
    fresh = malloc(sizeof(*fresh));
    if (fresh == NULL || fstat(*fd, &st) < 0) {
        free(fresh);
        return 0; /* used for this operation only */
    }
    fresh->fd = *fd;
    fresh->dev = (uint64_t)st.st_dev;
    fresh->ino = (uint64_t)st.st_ino;
    if (!atomic_compare_exchange_strong(&store->held, &expected, fresh)) {
        close(*fd); /* another thread got there first */
        free(fresh);
        *fd = expected->fd;
    }
    return 0;
}

void ts_store__dir_release(ts_store *store, int fd)
{
    ts_store_root_handle *held = atomic_load(&store->held);

    if (held == NULL || fd != held->fd)
        close(fd);
}

bool ts_store_root_is(const ts_store *store, uint64_t dev, uint64_t ino)
{
    ts_store_root_handle *held = atomic_load(&((ts_store *)store)->held);

    return held != NULL && held->dev == dev && held->ino == ino;
}

/* The file name of name, refusing names the file system cannot hold. */
int ts_store__file_of(const char *name, char *file, ts_error *err)
{
    size_t len;
    int rc;

    if (name == NULL)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "snapshot name is missing");
    rc = ts_name_to_filename(name, strlen(name), file, TS_FILENAME_MAX, err);
    if (rc < 0)
        return rc;
    len = strlen(file);
    if (len > TS_STORE_FILE_NAME_LIMIT)
        return ts_error_set(err, -ENAMETOOLONG, TS_ERR_INVALID_ARGUMENT,
                            "the file name for snapshot '%s' would be %zu bytes, over the "
                            "file system's %d-byte limit",
                            name, len, TS_STORE_FILE_NAME_LIMIT);
    return 0;
}

void ts_store__join_path(const ts_store *store, const char *file, char *out, size_t outsz)
{
    snprintf(out, outsz, "%s/%s", store->root, file);
}

void ts_file_stamp_from_stat(const struct stat *st, ts_file_stamp *stamp)
{
    stamp->exists = true;
    stamp->dev = (uint64_t)st->st_dev;
    stamp->ino = (uint64_t)st->st_ino;
    stamp->size = (uint64_t)st->st_size;
    stamp->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
    stamp->ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
}

static void stamp_absent(ts_file_stamp *stamp)
{
    memset(stamp, 0, sizeof(*stamp));
}

/* ---- open / close ------------------------------------------------------- */

int ts_store_open(const char *root, ts_store **out, ts_error *err)
{
    ts_store *store;
    int fd;
    int rc;

    if (root == NULL || root[0] == '\0')
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "snapshot root is empty");
    if (strlen(root) > PATH_MAX - TS_FILENAME_MAX - 2)
        return ts_error_set(err, -ENAMETOOLONG, TS_ERR_INVALID_ARGUMENT,
                            "snapshot root path is too long");
    store = calloc(1, sizeof(*store));
    if (store == NULL)
        return ts_store__no_memory(err);
    store->root = strdup(root);
    atomic_init(&store->held, NULL);
    atomic_init(&store->root_made, false);
    pthread_mutex_init(&store->sync_lock, NULL);
    if (store->root == NULL) {
        free(store);
        return ts_store__no_memory(err);
    }
    rc = ts_store__dir(store, false, &fd, err);
    if (rc < 0) {
        ts_store_close(store);
        return rc;
    }
    *out = store;
    return 0;
}

void ts_store_close(ts_store *store)
{
    ts_store_root_handle *held;

    if (store == NULL)
        return;
    held = atomic_load(&store->held);
    if (held != NULL) {
        close(held->fd);
        free(held);
    }
    pthread_mutex_destroy(&store->sync_lock);
    free(store->root);
    free(store);
}

const char *ts_store_root(const ts_store *store)
{
    return store->root;
}

bool ts_store_take_root_made(ts_store *store)
{
    return atomic_exchange(&store->root_made, false);
}

int ts_store_path(const ts_store *store, const char *name, char *out, size_t outsz, ts_error *err)
{
    char file[TS_FILENAME_MAX];
    int rc = ts_store__file_of(name, file, err);

    if (rc < 0)
        return rc;
    if (strlen(store->root) + 1 + strlen(file) >= outsz)
        return ts_error_set(err, -ENAMETOOLONG, TS_ERR_INVALID_ARGUMENT, "path buffer too small");
    ts_store__join_path(store, file, out, outsz);
    return 0;
}

/* ---- reading ------------------------------------------------------------ */

/*
 * Read fd to its end into out (whose maximum is one byte over the limit, so
 * that a file that grew past the limit after fstat is noticed). The buffer
 * starts at the size fstat gave plus one byte (to see the end of file in the
 * same read), and grows only for a file that grew meanwhile: no 64 KiB
 * buffer per small file, whose free would make malloc consolidate its heap.
 */
static int read_all(int fd, const char *path, size_t expected, ts_buf *out, ts_error *err)
{
    int rc = ts_buf_reserve(out, expected < out->max ? expected + 1 : out->max);

    while (rc == 0) {
        size_t room = out->cap - 1 - out->len; /* ts_buf keeps one byte for the NUL */
        ssize_t n;

        if (room > out->max - out->len)
            room = out->max - out->len;
        if (room == 0 && out->len < out->max) {
            size_t grow = out->len < 65536 ? 65536 : out->len;

            rc = ts_buf_reserve(out, grow < out->max - out->len ? grow : out->max - out->len);
            continue;
        }
        if (room == 0)
            break;
        n = read(fd, out->data + out->len, room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return ts_store__sys_error(err, -errno, path, "read failed");
        if (n == 0)
            return 0;
        out->len += (size_t)n;
        out->data[out->len] = '\0';
        /* A short read ending at the size fstat gave is the end of the file
         * (one that grew would have filled the room): no second read. */
        if ((size_t)n < room && out->len == expected)
            return 0;
    }
    if (rc == -ENOMEM)
        return ts_store__no_memory(err);
    return ts_error_set(err, -E2BIG, TS_ERR_TOO_LARGE, "%s: file is over the %u-byte limit", path,
                        TS_SNAPSHOT_MAX_BYTES);
}

/* Read the regular file dirfd/file (never through a link) into out; a file
 * over small_max bytes (when below the snapshot limit) is -EFBIG, not read. */
static int read_file(int dirfd, const char *file, const char *path, size_t small_max, ts_buf *out,
                     ts_file_stamp *stamp, ts_error *err)
{
    struct stat st;
    int fd = openat(dirfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    int rc = 0;

    if (fd < 0) {
        if (errno == ENOENT)
            return ts_error_set(err, -ENOENT, TS_ERR_NOT_FOUND, "%s: no such snapshot file", path);
        if (errno == ELOOP)
            return ts_error_set(err, -ELOOP, TS_ERR_IO,
                                "%s: is a symbolic link; snapshot files are never read "
                                "through links",
                                path);
        return ts_store__sys_error(err, -errno, path, "cannot open");
    }
    if (fstat(fd, &st) < 0) {
        rc = ts_store__sys_error(err, -errno, path, "cannot stat");
    } else if (!S_ISREG(st.st_mode)) {
        rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_SNAPSHOT, "%s: not a regular file", path);
    } else if ((uint64_t)st.st_size > TS_SNAPSHOT_MAX_BYTES) {
        rc = ts_error_set(err, -E2BIG, TS_ERR_TOO_LARGE,
                          "%s: file of %lld bytes is over the %u-byte limit", path,
                          (long long)st.st_size, TS_SNAPSHOT_MAX_BYTES);
    } else if ((uint64_t)st.st_size > small_max) {
        rc = ts_error_set(err, -EFBIG, TS_ERR_TOO_LARGE,
                          "%s: file of %lld bytes is over the %zu bytes asked for", path,
                          (long long)st.st_size, small_max);
    }
    if (rc == 0 && stamp != NULL)
        ts_file_stamp_from_stat(&st, stamp);
    ts_buf_init(out, TS_SNAPSHOT_MAX_BYTES + 1);
    if (rc == 0)
        rc = read_all(fd, path, (size_t)st.st_size, out, err);
    if (rc == 0 && out->len > small_max)
        rc = ts_error_set(err, -EFBIG, TS_ERR_TOO_LARGE, "%s: file grew over %zu bytes", path,
                          small_max);
    close(fd);
    if (rc < 0)
        ts_buf_free(out);
    return rc;
}

void ts_store_set_gate(ts_store *store, const ts_store_gate *gate)
{
    if (gate != NULL)
        store->gate = *gate;
    else
        memset(&store->gate, 0, sizeof(store->gate));
}

int ts_store__parse(const ts_store *store, const ts_buf *data, const char *path, ts_snapshot **out,
                    bool *timestamps_given, ts_error *err)
{
    const char *text = data->data ? data->data : "";
    const ts_store_gate *gate = &store->gate;
    size_t price = 0;
    int rc;

    if (gate->take != NULL) {
        price = ts_json_price(text, data->len);
        rc = gate->take(gate->arg, price, path, err);
        if (rc < 0)
            return rc;
    }
    rc = ts_snapshot_parse_ex(text, data->len, path, out, timestamps_given, err);
    if (rc < 0 || gate->take == NULL) {
        if (gate->give != NULL)
            gate->give(gate->arg, price);
        return rc;
    }
    (*out)->charge = price;
    (*out)->give = gate->give;
    (*out)->give_arg = gate->arg;
    return 0;
}

/* Read and parse dirfd/file (at most small_max bytes, else -EFBIG). */
static int load_file_max(const ts_store *store, int dirfd, const char *file, const char *path,
                         size_t small_max, ts_snapshot **out, ts_file_stamp *stamp, ts_error *err)
{
    ts_buf data;
    int rc = read_file(dirfd, file, path, small_max, &data, stamp, err);

    if (rc < 0)
        return rc;
    rc = ts_store__parse(store, &data, path, out, NULL, err);
    ts_buf_free(&data);
    return rc;
}

int ts_store__read_file(int dirfd, const char *file, const char *path, ts_buf *out,
                        ts_file_stamp *stamp, ts_error *err)
{
    return read_file(dirfd, file, path, SIZE_MAX, out, stamp, err);
}

/* The error of a name that has no snapshot file. */
static int no_snapshot(ts_error *err, const char *name)
{
    return ts_error_set(err, -ENOENT, TS_ERR_NOT_FOUND, "no snapshot named '%s'", name);
}

/*
 * name's file name into file and the root into *dirfd (release it with
 * ts_store__dir_release); a root that does not exist is name's not_found
 * error.
 */
static int open_named(ts_store *store, const char *name, char *file, int *dirfd, ts_error *err)
{
    int rc = ts_store__file_of(name, file, err);

    if (rc < 0)
        return rc;
    rc = ts_store__dir(store, false, dirfd, err);
    if (rc == 1)
        return no_snapshot(err, name);
    return rc;
}

/*
 * The error of a file (path, named file in the root) that holds the
 * snapshot held where name was asked for, refusing doing (e.g. "removing
 * it"): "collision" when held's file name is this one too, else
 * "invalid_snapshot".
 */
static int name_mismatch(const char *path, const char *file, const char *held, const char *name,
                         const char *doing, ts_error *err)
{
    char held_file[TS_FILENAME_MAX];
    ts_error ignored;

    if (ts_name_to_filename(held, strlen(held), held_file, sizeof(held_file), &ignored) == 0 &&
        strcmp(held_file, file) == 0)
        return ts_error_set(err, -EEXIST, TS_ERR_COLLISION,
                            "%s holds snapshot '%.300s', and '%.300s' maps to the same file name "
                            "(the same stem and 8 hex digits of SHA-1, as the reference tool "
                            "names files): the two names collide; %s refused, '%.300s' is kept "
                            "(rename one of the two snapshots)",
                            path, held, name, doing, held);
    return ts_error_set(err, -EINVAL, TS_ERR_INVALID_SNAPSHOT,
                        "%s: holds snapshot '%.300s', not '%.300s'; %s refused", path, held, name,
                        doing);
}

/*
 * Before dirfd/file is replaced or removed for name (doing says which):
 * 0 when it is absent, holds name or no readable snapshot; else the
 * mismatch's error (ts_store.h, "collision").
 */
static int holds_name(const ts_store *store, int dirfd, const char *file, const char *path,
                      const char *name, const char *doing, ts_error *err)
{
    char held[TS_NAME_MAX_BYTES + 1];
    ts_snapshot_scan m;
    ts_snapshot *s = NULL;
    ts_error ignored;
    ts_buf data;
    int rc = read_file(dirfd, file, path, SIZE_MAX, &data, NULL, &ignored);

    if (rc < 0)
        return 0; /* absent, or nothing readable to keep */
    if (ts_snapshot_scan_summary(data.data ? data.data : "", data.len, &m) &&
        m.name_len <= TS_NAME_MAX_BYTES) {
        memcpy(held, m.name, m.name_len);
        held[m.name_len] = '\0';
        rc = 1;
    } else if (ts_store__parse(store, &data, path, &s, NULL, &ignored) == 0) {
        snprintf(held, sizeof(held), "%s", s->name);
        ts_snapshot_free(s);
        rc = 1;
    }
    ts_buf_free(&data);
    if (rc != 1 || strcmp(held, name) == 0)
        return 0;
    return name_mismatch(path, file, held, name, doing, err);
}

/* Load name from the root dirfd (see ts_store_load). */
static int load_in(ts_store *store, int dirfd, const char *name, const char *file, size_t small_max,
                   ts_snapshot **out, ts_file_stamp *stamp, ts_error *err)
{
    char path[PATH_MAX];
    ts_snapshot *s = NULL;
    int rc;

    ts_store__join_path(store, file, path, sizeof(path));
    rc = load_file_max(store, dirfd, file, path, small_max, &s, stamp, err);
    if (rc == -ENOENT)
        return no_snapshot(err, name);
    if (rc < 0)
        return rc;
    if (strcmp(s->name, name) != 0) {
        rc = name_mismatch(path, file, s->name, name, "reading it", err);
        ts_snapshot_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

int ts_store_load(ts_store *store, const char *name, ts_snapshot **out, ts_file_stamp *stamp,
                  ts_error *err)
{
    return ts_store_load_small(store, name, SIZE_MAX, out, stamp, err);
}

int ts_store_load_small(ts_store *store, const char *name, size_t max_bytes, ts_snapshot **out,
                        ts_file_stamp *stamp, ts_error *err)
{
    char file[TS_FILENAME_MAX];
    int dirfd;
    int rc;

    if (stamp != NULL)
        stamp_absent(stamp);
    rc = open_named(store, name, file, &dirfd, err);
    if (rc < 0)
        return rc;
    rc = load_in(store, dirfd, name, file, max_bytes, out, stamp, err);
    ts_store__dir_release(store, dirfd);
    return rc;
}

int ts_store_stat(ts_store *store, const char *name, ts_file_stamp *stamp, ts_error *err)
{
    char file[TS_FILENAME_MAX];
    char path[PATH_MAX];
    struct stat st;
    int dirfd;
    int rc;

    stamp_absent(stamp);
    rc = ts_store__file_of(name, file, err);
    if (rc < 0)
        return rc;
    rc = ts_store__dir(store, false, &dirfd, err);
    if (rc != 0)
        return rc < 0 ? rc : 0;
    if (fstatat(dirfd, file, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        ts_file_stamp_from_stat(&st, stamp);
    } else if (errno != ENOENT) {
        ts_store__join_path(store, file, path, sizeof(path));
        rc = ts_store__sys_error(err, -errno, path, "cannot stat");
    }
    ts_store__dir_release(store, dirfd);
    return rc;
}

bool ts_file_stamp_equal(const ts_file_stamp *a, const ts_file_stamp *b)
{
    if (!a->exists || !b->exists)
        return a->exists == b->exists;
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns;
}

/* ---- writing ------------------------------------------------------------ */

/* ".<file>.<16 hex>.tmp", the <file> part cut (at a character) to fit. */
static int temp_name(const char *file, char *out, size_t outsz)
{
    static atomic_uint_fast64_t fallback_counter;
    unsigned char random[TS_STORE_TEMP_RANDOM_HEX / 2];
    size_t keep = strlen(file);
    size_t room = TS_STORE_FILE_NAME_LIMIT - (1 + 1 + TS_STORE_TEMP_RANDOM_HEX + 4);
    char hex[TS_STORE_TEMP_RANDOM_HEX + 1];

    if (getrandom(random, sizeof(random), 0) != (ssize_t)sizeof(random)) {
        /* No entropy source: pid, time and a counter are unique enough. */
        uint64_t v = ((uint64_t)getpid() << 40) ^ (uint64_t)time(NULL) ^
                     (atomic_fetch_add(&fallback_counter, 1) << 20);

        memcpy(random, &v, sizeof(random));
    }
    for (size_t i = 0; i < sizeof(random); i++)
        snprintf(hex + 2 * i, 3, "%02x", random[i]);
    keep = ts_utf8_cut(file, keep, room);
    if ((size_t)snprintf(out, outsz, ".%.*s.%s.tmp", (int)keep, file, hex) >= outsz)
        return -ENAMETOOLONG;
    return 0;
}

/* The root directory's fsync, shared (ts_store__commit). */
static int shared_fsync(ts_store *store, int dirfd)
{
    ts_store_sync_waiter me = {.dirsync = true};

    ts_store__commit(store, dirfd, &me);
    return me.rc;
}

/* A new temp file in the root, open for writing; its name into temp. */
static int create_temp(int dirfd, const char *file, const char *path, char *temp, size_t tempsz,
                       int *out, ts_error *err)
{
    int fd = -1;
    int rc;

    for (int attempt = 0; attempt < 8 && fd < 0; attempt++) {
        rc = temp_name(file, temp, tempsz);
        if (rc < 0)
            return ts_store__sys_error(err, rc, path, "cannot name a temporary file");
        /* 0644 minus the umask, whatever the file being replaced had: an
         * old file's mode (setuid, world-writable, a planted placeholder's)
         * is never copied */
        fd = openat(dirfd, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    TS_STORE_FILE_MODE);
        if (fd < 0 && errno != EEXIST)
            return ts_store__sys_error(err, -errno, path, "cannot create a temporary file");
    }
    if (fd < 0)
        return ts_store__sys_error(err, -EEXIST, path, "cannot create a temporary file");
    *out = fd;
    return 0;
}

/* Temp file, fsynced, renamed into place (*placed), the root fsynced
 * (unless TS_STORE_NO_DIRSYNC): the durable part of ts_store_save. */
static int save_in(ts_store *store, int dirfd, const char *file, const char *name,
                   const ts_buf *data, int flags, bool *placed, ts_error *err)
{
    char temp[TS_STORE_FILE_NAME_LIMIT + 1];
    char path[PATH_MAX];
    ts_store_sync_waiter me = {.temp = temp, .file = file};
    int fd = -1;
    int rc;

    ts_store__join_path(store, file, path, sizeof(path));
    rc = holds_name(store, dirfd, file, path, name, "replacing it", err);
    if (rc < 0)
        return rc;
    rc = create_temp(dirfd, file, path, temp, sizeof(temp), &fd, err);
    if (rc < 0)
        return rc;
    rc = ts_fd_write_all(fd, data->data, data->len);
    if (rc < 0)
        ts_store__sys_error(err, rc, path, "write failed");
    if (rc == 0 && fsync(fd) < 0)
        rc = ts_store__sys_error(err, -errno, path, "fsync failed");
    if (close(fd) < 0 && rc == 0)
        rc = ts_store__sys_error(err, -errno, path, "close failed");
    if (rc == 0) {
        me.dirsync = !(flags & TS_STORE_NO_DIRSYNC);
        ts_store__commit(store, dirfd, &me);
        rc = me.rc;
        if (rc < 0)
            ts_store__sys_error(err, rc, me.renamed ? store->root : path, me.failed);
    }
    if (!me.renamed)
        unlinkat(dirfd, temp, 0);
    *placed = me.renamed;
    return rc;
}

int ts_store_save_placed(ts_store *store, const ts_snapshot *s, int flags, bool *placed,
                         ts_error *err)
{
    char file[TS_FILENAME_MAX];
    ts_buf data;
    int dirfd;
    int rc;

    *placed = false;
    rc = ts_store__file_of(s->name, file, err);
    if (rc < 0)
        return rc;
    ts_buf_init(&data, TS_SNAPSHOT_MAX_BYTES);
    rc = ts_snapshot_serialize(s, &data, err);
    if (rc == 0)
        rc = ts_store__dir(store, true, &dirfd, err);
    if (rc == 0) {
        rc = save_in(store, dirfd, file, s->name, &data, flags, placed, err);
        ts_store__dir_release(store, dirfd);
    }
    ts_buf_free(&data);
    return rc;
}

int ts_store_save(ts_store *store, const ts_snapshot *s, int flags, ts_error *err)
{
    bool placed;

    return ts_store_save_placed(store, s, flags, &placed, err);
}

int ts_store_remove(ts_store *store, const char *name, int flags, ts_error *err)
{
    char file[TS_FILENAME_MAX];
    char path[PATH_MAX];
    int dirfd;
    int rc = open_named(store, name, file, &dirfd, err);

    if (rc < 0)
        return rc;
    ts_store__join_path(store, file, path, sizeof(path));
    rc = holds_name(store, dirfd, file, path, name, "removing it", err);
    if (rc < 0) {
        ts_store__dir_release(store, dirfd);
        return rc;
    }
    if (unlinkat(dirfd, file, 0) < 0) {
        if (errno == ENOENT)
            rc = no_snapshot(err, name);
        else
            rc = ts_store__sys_error(err, -errno, path, "cannot remove");
    } else if (!(flags & TS_STORE_NO_DIRSYNC)) {
        rc = shared_fsync(store, dirfd);
        if (rc < 0)
            ts_store__sys_error(err, rc, store->root, "fsync of the snapshot root failed");
    }
    ts_store__dir_release(store, dirfd);
    return rc;
}

int ts_store_sync(ts_store *store, ts_error *err)
{
    int dirfd;
    int rc = ts_store__dir(store, false, &dirfd, err);

    if (rc != 0)
        return rc < 0 ? rc : 0;
    rc = shared_fsync(store, dirfd);
    if (rc < 0)
        ts_store__sys_error(err, rc, store->root, "fsync of the snapshot root failed");
    ts_store__dir_release(store, dirfd);
    return rc;
}

int ts_store_approve(ts_store *store, const char *name, ts_error *err)
{
    ts_snapshot *s = NULL;
    int rc = ts_store_load(store, name, &s, NULL, err);

    if (rc < 0)
        return rc;
    rc = ts_snapshot_approve(s, err);
    if (rc == 0)
        rc = ts_store_save(store, s, 0, err);
    ts_snapshot_free(s);
    return rc;
}
