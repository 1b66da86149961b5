/*
 * test_store_commit — the group commit of a store's writes
 * (lib/store/ts_store_commit.c), watched from inside the process.
 *
 * This program defines fsync, syncfs, renameat, unlinkat and write itself
 * (the store's calls resolve to them; each makes the system call directly),
 * so it can log every such call on one event clock, slow down the root's
 * fsyncs (so that writers pile up into commit rounds) or hold them until
 * the test lets them go, and make a kind of fsync fail. From the log each
 * acknowledged change is checked the way a crash would judge it: a save's
 * temp file was fsynced after its last write and before the rename, and
 * the root was fsynced by a call that started after the rename (or the
 * unlink, or the ts_store_sync call) and ended before the caller got its
 * answer. syncfs is never a durable sync of new files on every file system
 * (docs/internals/store.md), so the store must never call it: the wrapper
 * counts the calls.
 *
 * Each test works in its own fresh directory under $TMPDIR (or /tmp).
 */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/store/ts_store.h"
#include "lib/store/ts_store_internal.h"
#include "util_test.h"

/* ---- the logged system calls ---- */

enum { EV_WRITE, EV_FSYNC_FILE, EV_FSYNC_DIR, EV_RENAME, EV_UNLINK };
enum { FAIL_NONE, FAIL_FILE_FSYNC, FAIL_DIR_FSYNC };

typedef struct io_event {
    int kind;
    long start, end; /* event clock before and after the call */
    uint64_t ino;    /* the file written or synced; a rename's file after it */
    char name[TS_STORE_FILE_NAME_LIMIT + 1]; /* renamed to / unlinked */
} io_event;

#define EVENTS_MAX 16384
static io_event events[EVENTS_MAX];
static atomic_int event_count;
static atomic_long event_clock;
static atomic_bool tracing;      /* log the calls */
static atomic_int dir_delay_us;  /* each fsync of a directory first sleeps this long */
static atomic_bool dir_held;     /* ... and waits while this is set */
static atomic_int failing;       /* FAIL_*: that kind of sync fails with EIO */
static atomic_long syncfs_calls; /* every syncfs, logged or not */

static long tick(void)
{
    return atomic_fetch_add(&event_clock, 1) + 1;
}

static void record(int kind, long start, long end, uint64_t ino, const char *name)
{
    int i;

    if (!atomic_load(&tracing))
        return;
    i = atomic_fetch_add(&event_count, 1);
    if (i >= EVENTS_MAX)
        return; /* reported by events_logged() */
    events[i].kind = kind;
    events[i].start = start;
    events[i].end = end;
    events[i].ino = ino;
    snprintf(events[i].name, sizeof(events[i].name), "%s", name != NULL ? name : "");
}

static int events_logged(void)
{
    int n = atomic_load(&event_count);

    ck_assert_msg(n <= EVENTS_MAX, "%d events: the log holds %d", n, EVENTS_MAX);
    return n;
}

static int fail_with_eio(int kind)
{
    if (atomic_load(&failing) != kind)
        return 0;
    errno = EIO;
    return 1;
}

int fsync(int fd)
{
    struct stat st;
    bool dir;
    long start;
    int rc;

    if (fstat(fd, &st) < 0)
        return -1;
    dir = S_ISDIR(st.st_mode);
    if (dir && atomic_load(&dir_delay_us) > 0)
        usleep((useconds_t)atomic_load(&dir_delay_us));
    while (dir && atomic_load(&dir_held))
        usleep(1000);
    if (fail_with_eio(dir ? FAIL_DIR_FSYNC : FAIL_FILE_FSYNC))
        return -1;
    start = tick();
    rc = (int)syscall(SYS_fsync, fd);
    if (rc == 0)
        record(dir ? EV_FSYNC_DIR : EV_FSYNC_FILE, start, tick(), (uint64_t)st.st_ino, NULL);
    return rc;
}

int syncfs(int fd)
{
    atomic_fetch_add(&syncfs_calls, 1);
    return (int)syscall(SYS_syncfs, fd);
}

int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)
{
    long start = tick();
    struct stat st;
    int rc;

#ifdef SYS_renameat
    rc = (int)syscall(SYS_renameat, olddirfd, oldpath, newdirfd, newpath);
#else
    rc = (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, 0);
#endif
    if (rc == 0) {
        long end = tick();

        if (fstatat(newdirfd, newpath, &st, AT_SYMLINK_NOFOLLOW) == 0)
            record(EV_RENAME, start, end, (uint64_t)st.st_ino, newpath);
    }
    return rc;
}

int unlinkat(int dirfd, const char *path, int flags)
{
    long start = tick();
    int rc = (int)syscall(SYS_unlinkat, dirfd, path, flags);

    if (rc == 0)
        record(EV_UNLINK, start, tick(), 0, path);
    return rc;
}

ssize_t write(int fd, const void *buf, size_t count)
{
    long start = tick();
    ssize_t n = (ssize_t)syscall(SYS_write, fd, buf, count);
    int saved = errno;
    struct stat st;

    if (n > 0 && atomic_load(&tracing) && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        record(EV_WRITE, start, tick(), (uint64_t)st.st_ino, NULL);
    errno = saved;
    return n;
}

/* ---- fixtures and helpers ---- */

static char workdir[512];
static char root[600];

static void setup(void)
{
    const char *tmp = getenv("TMPDIR");

    snprintf(workdir, sizeof(workdir), "%s/ts-commit-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(workdir));
    snprintf(root, sizeof(root), "%s/snapshots", workdir);
    atomic_store(&tracing, false);
    atomic_store(&event_count, 0);
    atomic_store(&dir_delay_us, 0);
    atomic_store(&dir_held, false);
    atomic_store(&failing, FAIL_NONE);
}

static void teardown(void)
{
    atomic_store(&tracing, false);
    atomic_store(&failing, FAIL_NONE);
    if (util_remove_tree(workdir) != 0)
        fprintf(stderr, "could not remove %s\n", workdir);
}

static ts_store *open_store(void)
{
    ts_store *store = NULL;
    ts_error err;

    ck_assert_msg(ts_store_open(root, &store, &err) == 0, "%s", err.message);
    return store;
}

/* A store whose root exists and is held open (a ts_store_sync of a root
 * that does not exist syncs nothing). */
static ts_store *held_store(void)
{
    ts_store *store = open_store();
    ts_snapshot *s = util_make_snapshot("first", 1, 0);
    ts_error err;

    ck_assert_int_eq(ts_store_save(store, s, 0, &err), 0);
    ck_assert_int_eq(ts_store_remove(store, "first", 0, &err), 0);
    ts_snapshot_free(s);
    return store;
}

/* Number of calls in name's snapshot, 0 when there is none. */
static int calls_in(ts_store *store, const char *name)
{
    ts_snapshot *s = NULL;
    ts_error err;
    int rc = ts_store_load(store, name, &s, NULL, &err);
    int n;

    if (rc == -ENOENT)
        return 0;
    ck_assert_msg(rc == 0, "%s: %s", name, err.message);
    n = (int)json_object_array_length(s->calls);
    ts_snapshot_free(s);
    return n;
}

/* Temp files in the root. */
static int temp_files(void)
{
    return util_count_entries(root, ".");
}

/* The file name of name in the store (what renameat and unlinkat see). */
static void file_of(ts_store *store, const char *name, char *out, size_t outsz)
{
    char path[PATH_MAX];
    ts_error err;

    ck_assert_int_eq(ts_store_path(store, name, path, sizeof(path), &err), 0);
    snprintf(out, outsz, "%s", strrchr(path, '/') + 1);
}

/* ---- what one call did, and its check against the log ---- */

enum { OP_SAVE, OP_REMOVE, OP_SYNC };

typedef struct op_done {
    int kind;
    bool dirsync;
    long start, end; /* event clock around the call */
    char file[TS_STORE_FILE_NAME_LIMIT + 1];
} op_done;

/* The one event of kind on file within (start, end); fails if not one. */
static const io_event *only_event(int kind, const char *file, long start, long end)
{
    const io_event *found = NULL;
    int n = events_logged();

    for (int i = 0; i < n; i++) {
        const io_event *e = &events[i];

        if (e->kind != kind || strcmp(e->name, file) != 0 || e->start < start || e->end > end)
            continue;
        ck_assert_msg(found == NULL, "%s: two %s within one call", file,
                      kind == EV_RENAME ? "renames" : "unlinks");
        found = e;
    }
    ck_assert_msg(found != NULL, "%s: no %s within its call", file,
                  kind == EV_RENAME ? "rename" : "unlink");
    return found;
}

/* Whether an fsync of the root started after after and ended before
 * before. */
static bool root_synced(long after, long before)
{
    int n = events_logged();

    for (int i = 0; i < n; i++) {
        const io_event *e = &events[i];

        if (e->kind == EV_FSYNC_DIR && e->start > after && e->end < before)
            return true;
    }
    return false;
}

/* Whether file ino, last written before the rename renamed, was fsynced
 * before that rename began. */
static bool data_synced(uint64_t ino, long call_start, const io_event *renamed)
{
    long written = 0;
    int n = events_logged();

    for (int i = 0; i < n; i++) {
        const io_event *e = &events[i];

        if (e->kind == EV_WRITE && e->ino == ino && e->start > call_start &&
            e->end < renamed->start && e->end > written)
            written = e->end;
    }
    ck_assert_msg(written > 0, "%s: no write of its temp file before the rename", renamed->name);
    for (int i = 0; i < n; i++) {
        const io_event *e = &events[i];

        if (e->kind == EV_FSYNC_FILE && e->ino == ino && e->start > written &&
            e->end < renamed->start)
            return true;
    }
    return false;
}

/* The checks described at the top of this file, for one call that
 * returned 0. */
static void check_durable(const op_done *op)
{
    const io_event *e;

    switch (op->kind) {
    case OP_SAVE:
        e = only_event(EV_RENAME, op->file, op->start, op->end);
        ck_assert_msg(data_synced(e->ino, op->start, e), "%s: temp file not fsynced before rename",
                      op->file);
        if (op->dirsync)
            ck_assert_msg(root_synced(e->end, op->end),
                          "%s: save acknowledged without an fsync of the root after its rename",
                          op->file);
        break;
    case OP_REMOVE:
        e = only_event(EV_UNLINK, op->file, op->start, op->end);
        if (op->dirsync)
            ck_assert_msg(root_synced(e->end, op->end),
                          "%s: remove acknowledged without an fsync of the root after the unlink",
                          op->file);
        break;
    default:
        ck_assert_msg(root_synced(op->start, op->end),
                      "ts_store_sync returned without an fsync of the root that started after "
                      "the call");
    }
}

/* ---- many writers of one store ---- */

#define SLOTS 6

typedef struct writer {
    ts_store *store;
    int id;
    int ops;
    int expect[SLOTS]; /* calls in slot's snapshot, 0: none */
    op_done *done;     /* ops entries */
    int failures;
    ts_error first_error;
} writer;

static void failed(writer *w, const ts_error *err)
{
    if (w->failures++ == 0)
        w->first_error = *err;
}

/* One operation of writer w, chosen by i: saves with and without the root's
 * sync (new names and replacements), removes with and without it, and
 * ts_store_sync, all on one store. */
static void one_op(writer *w, int i)
{
    op_done *op = &w->done[i];
    int slot = (i * 5 + w->id) % SLOTS;
    int pick = (i * 7 + w->id * 3) % 5;
    char name[64];
    ts_error err;
    int rc;

    snprintf(name, sizeof(name), "writer-%d::slot-%d", w->id, slot);
    file_of(w->store, name, op->file, sizeof(op->file));
    op->dirsync = pick != 1 && !(pick == 3 && i % 2);
    if (pick == 2) {
        op->kind = OP_SYNC;
        op->start = tick();
        rc = ts_store_sync(w->store, &err);
        op->end = tick();
    } else if (pick == 3 && w->expect[slot] > 0) {
        op->kind = OP_REMOVE;
        op->start = tick();
        rc = ts_store_remove(w->store, name, op->dirsync ? 0 : TS_STORE_NO_DIRSYNC, &err);
        op->end = tick();
        if (rc == 0)
            w->expect[slot] = 0;
    } else {
        ts_snapshot *s = util_make_snapshot(name, i % 4 + 1, 0);

        op->kind = OP_SAVE;
        op->start = tick();
        rc = ts_store_save(w->store, s, op->dirsync ? 0 : TS_STORE_NO_DIRSYNC, &err);
        op->end = tick();
        if (rc == 0)
            w->expect[slot] = i % 4 + 1;
        ts_snapshot_free(s);
    }
    if (rc < 0) {
        op->kind = -1; /* nothing to check */
        failed(w, &err);
    }
}

static void *writer_main(void *arg)
{
    writer *w = arg;

    for (int i = 0; i < w->ops; i++)
        one_op(w, i);
    return NULL;
}

/* n writers of ops operations each on store, at once; then every call is
 * checked against the log and every snapshot against what its writer last
 * did. */
static void run_writers(ts_store *store, int n, int ops)
{
    pthread_t threads[32];
    writer writers[32];
    ts_store_listing listing;
    ts_error err;
    int expected = 0;
    int wanting = 0; /* acknowledged calls that needed the root fsynced */
    int dir_fsyncs = 0;

    ck_assert_int_le(n, 32);
    atomic_store(&tracing, true);
    for (int t = 0; t < n; t++) {
        writers[t] = (writer){.store = store, .id = t, .ops = ops};
        writers[t].done = calloc((size_t)ops, sizeof(op_done));
        ck_assert_int_eq(pthread_create(&threads[t], NULL, writer_main, &writers[t]), 0);
    }
    for (int t = 0; t < n; t++)
        ck_assert_int_eq(pthread_join(threads[t], NULL), 0);
    atomic_store(&tracing, false);
    for (int t = 0; t < n; t++) {
        writer *w = &writers[t];

        ck_assert_msg(w->failures == 0, "writer %d: %d failed call(s), first: %s", t, w->failures,
                      w->first_error.message);
        for (int i = 0; i < ops; i++) {
            check_durable(&w->done[i]);
            wanting += w->done[i].kind >= 0 && (w->done[i].dirsync || w->done[i].kind == OP_SYNC);
        }
        for (int slot = 0; slot < SLOTS; slot++) {
            char name[64];

            snprintf(name, sizeof(name), "writer-%d::slot-%d", t, slot);
            ck_assert_int_eq(calls_in(store, name), w->expect[slot]);
            expected += w->expect[slot] > 0;
        }
        free(w->done);
    }
    for (int i = 0; i < events_logged(); i++)
        dir_fsyncs += events[i].kind == EV_FSYNC_DIR;
    /* the writers shared the root's fsyncs: fewer than the calls that
     * needed one */
    ck_assert_msg(dir_fsyncs < wanting, "%d root fsyncs for %d calls that needed one", dir_fsyncs,
                  wanting);
    ck_assert_int_eq(temp_files(), 0);
    ck_assert_int_eq(ts_store_list(store, &listing, &err), 0);
    ck_assert_int_eq((int)listing.problem_count, 0);
    ck_assert_int_eq((int)listing.count, expected);
    ts_store_listing_free(&listing);
}

/*
 * 16 threads mixing saves with and without TS_STORE_NO_DIRSYNC, removes
 * and ts_store_sync on one store, the root's fsyncs slowed down so that
 * they gather into commit rounds: every call returns, each change it
 * acknowledged was made durable in order, every snapshot holds what its
 * writer last saved, and no temp file remains.
 */
START_TEST(writers_mixing_saves_removes_and_syncs)
{
    ts_store *store = held_store();
    long syncfs_before = atomic_load(&syncfs_calls);

    atomic_store(&dir_delay_us, 1000);
    run_writers(store, 16, 24);
    ck_assert_int_eq(atomic_load(&syncfs_calls) - syncfs_before, 0);
    ts_store_close(store);
}
END_TEST

/* ---- two saves of one file in one round ---- */

typedef struct one_saver {
    ts_store *store;
    const char *name;
    int calls;
    int rc;
    ts_error err;
} one_saver;

static void *one_saver_main(void *arg)
{
    one_saver *o = arg;
    ts_snapshot *s = util_make_snapshot(o->name, o->calls, 0);

    o->rc = ts_store_save(o->store, s, 0, &o->err);
    ts_snapshot_free(s);
    return NULL;
}

/* Wait (up to 20 s) until the store's commit state is running a round with
 * want callers waiting for the next one. */
static void wait_for_waiting(ts_store *store, int want)
{
    for (int tries = 0; tries < UTIL_WAIT_MS; tries++) {
        int n = 0;
        bool running;

        pthread_mutex_lock(&store->sync_lock);
        running = store->sync_running;
        for (ts_store_sync_waiter *w = store->sync_waiting; w != NULL; w = w->next)
            n++;
        pthread_mutex_unlock(&store->sync_lock);
        if (running && n == want)
            return;
        usleep(1000);
    }
    ck_abort_msg("no round running with %d caller(s) waiting", want);
}

/*
 * Two saves of one file that end up in one round (the second starts once
 * the first waits, behind a round held at its root's fsync until both
 * wait): the file holds the later one, as if each had renamed its own file
 * in turn.
 */
START_TEST(saves_of_one_file_in_one_round_keep_the_later)
{
    ts_store *store = held_store();
    one_saver lead = {.store = store, .name = "other", .calls = 1};
    one_saver first = {.store = store, .name = "same", .calls = 1};
    one_saver second = {.store = store, .name = "same", .calls = 2};
    pthread_t threads[3];

    atomic_store(&dir_held, true); /* the lead's round waits at the root's fsync */
    ck_assert_int_eq(pthread_create(&threads[0], NULL, one_saver_main, &lead), 0);
    wait_for_waiting(store, 0);
    ck_assert_int_eq(pthread_create(&threads[1], NULL, one_saver_main, &first), 0);
    wait_for_waiting(store, 1);
    ck_assert_int_eq(pthread_create(&threads[2], NULL, one_saver_main, &second), 0);
    wait_for_waiting(store, 2);
    atomic_store(&dir_held, false);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
    ck_assert_msg(lead.rc == 0 && first.rc == 0 && second.rc == 0, "%s / %s / %s", lead.err.message,
                  first.err.message, second.err.message);
    ck_assert_int_eq(calls_in(store, "same"), 2);
    ck_assert_int_eq(temp_files(), 0);
    ts_store_close(store);
}
END_TEST

/* ---- syncs that fail ---- */

typedef struct failing_saver {
    ts_store *store;
    int id;
    int rc;
    bool placed;
    ts_error err;
} failing_saver;

static void *failing_saver_main(void *arg)
{
    failing_saver *f = arg;
    char name[64];
    ts_snapshot *s;

    snprintf(name, sizeof(name), "saver-%d", f->id);
    s = util_make_snapshot(name, 3, 0);
    f->rc = ts_store_save_placed(f->store, s, 0, &f->placed, &f->err);
    ts_snapshot_free(s);
    return NULL;
}

/*
 * Concurrent saves whose fsyncs fail: those of their temp files fail
 * naming the fsync, keep the old content and leave no temp file; the
 * root's shared fsync fails every save of its round naming the root, with
 * the new content in place. Every call returns, and once the fault is gone
 * the store syncs again.
 */
static void concurrent_failing_saves(int fault)
{
    enum { SAVERS = 12 };
    ts_store *store = open_store();
    pthread_t threads[SAVERS];
    failing_saver savers[SAVERS];
    ts_error err;

    for (int i = 0; i < SAVERS; i++) {
        char name[64];
        ts_snapshot *s;

        snprintf(name, sizeof(name), "saver-%d", i);
        s = util_make_snapshot(name, 1, 0);
        ck_assert_int_eq(ts_store_save(store, s, 0, &err), 0);
        ts_snapshot_free(s);
    }
    atomic_store(&dir_delay_us, 2000);
    atomic_store(&failing, fault);
    for (int i = 0; i < SAVERS; i++) {
        savers[i] = (failing_saver){.store = store, .id = i};
        ck_assert_int_eq(pthread_create(&threads[i], NULL, failing_saver_main, &savers[i]), 0);
    }
    for (int i = 0; i < SAVERS; i++)
        ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
    atomic_store(&failing, FAIL_NONE);
    for (int i = 0; i < SAVERS; i++) {
        failing_saver *f = &savers[i];
        char name[64];

        snprintf(name, sizeof(name), "saver-%d", i);
        ck_assert_int_eq(f->rc, -EIO);
        ck_assert_str_eq(f->err.code, "io");
        if (fault == FAIL_DIR_FSYNC) {
            ck_assert(f->placed);
            ck_assert_msg(strstr(f->err.message, "fsync of the snapshot root failed") != NULL, "%s",
                          f->err.message);
            ck_assert_int_eq(calls_in(store, name), 3);
        } else {
            ck_assert(!f->placed);
            ck_assert_msg(strstr(f->err.message, ": fsync failed: ") != NULL, "%s", f->err.message);
            ck_assert_int_eq(calls_in(store, name), 1);
        }
    }
    ck_assert_int_eq(temp_files(), 0);
    ck_assert_int_eq(ts_store_sync(store, &err), 0);
    ts_store_close(store);
}

START_TEST(failing_root_fsync_fails_its_round)
{
    concurrent_failing_saves(FAIL_DIR_FSYNC);
}
END_TEST

START_TEST(failing_file_fsyncs_leave_old_content)
{
    concurrent_failing_saves(FAIL_FILE_FSYNC);
}
END_TEST

/* A lone save whose file fsync fails: the step is named, the old content
 * stays, no temp file. One whose root fsync fails: placed, the root named,
 * no temp file. */
START_TEST(failing_lone_syncs_name_their_step)
{
    ts_store *store = open_store();
    ts_snapshot *one = util_make_snapshot("lone", 1, 0);
    ts_snapshot *two = util_make_snapshot("lone", 2, 0);
    bool placed = true;
    ts_error err;

    ck_assert_int_eq(ts_store_save(store, one, 0, &err), 0);
    atomic_store(&failing, FAIL_FILE_FSYNC);
    ck_assert_int_eq(ts_store_save_placed(store, two, 0, &placed, &err), -EIO);
    ck_assert(!placed);
    ck_assert_msg(strstr(err.message, ": fsync failed: ") != NULL, "%s", err.message);
    ck_assert_int_eq(calls_in(store, "lone"), 1);
    ck_assert_int_eq(temp_files(), 0);
    atomic_store(&failing, FAIL_DIR_FSYNC);
    ck_assert_int_eq(ts_store_save_placed(store, two, 0, &placed, &err), -EIO);
    ck_assert(placed);
    ck_assert_msg(strstr(err.message, "fsync of the snapshot root failed") != NULL, "%s",
                  err.message);
    ck_assert_int_eq(ts_store_remove(store, "lone", 0, &err), -EIO);
    ck_assert_msg(strstr(err.message, "fsync of the snapshot root failed") != NULL, "%s",
                  err.message);
    ck_assert_int_eq(ts_store_sync(store, &err), -EIO);
    atomic_store(&failing, FAIL_NONE);
    ck_assert_int_eq(calls_in(store, "lone"), 0);
    ck_assert_int_eq(temp_files(), 0);
    ck_assert_int_eq(ts_store_sync(store, &err), 0);
    ts_snapshot_free(one);
    ts_snapshot_free(two);
    ts_store_close(store);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("store_commit");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, writers_mixing_saves_removes_and_syncs);
    tcase_add_test(tc, saves_of_one_file_in_one_round_keep_the_later);
    tcase_add_test(tc, failing_root_fsync_fails_its_round);
    tcase_add_test(tc, failing_file_fsyncs_leave_old_content);
    tcase_add_test(tc, failing_lone_syncs_name_their_step);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
