/*
 * ts_store_commit — group commit of a store's writes (see ts_store_internal.h
 * and docs/internals/store.md).
 *
 * A write is durable once its temp file's data is synced, the file renamed
 * into place, and the root directory synced after the rename. Synced one by
 * one, each write costs two flushes of the device's cache. Here concurrent
 * writers of one store share them: the commit rounds below cover everyone
 * waiting with one sync, whatever their number. The state (the waiting list,
 * the renames waiting for the next round) lives in the ts_store under its
 * sync_lock; the waiters live on their callers' stacks.
 */
#include "ts_store_internal.h"

#include <errno.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/statfs.h>
#include <unistd.h>

/*
 * Whether a group of new files may share one syncfs. Not on btrfs: its
 * fsync writes one file's log cheaply while a syncfs commits a whole
 * transaction. Elsewhere a syncfs costs about what one fsync does (one
 * flush of the device's cache) however many files it covers.
 */
static bool group_sync_allowed(ts_store *store, int dirfd)
{
    int kind = atomic_load(&store->fs_kind);
    struct statfs fs;

    if (kind == TS_STORE_FS_UNKNOWN) {
        kind = TS_STORE_FS_GROUP_SYNC;
        if (fstatfs(dirfd, &fs) < 0 || fs.f_type == BTRFS_SUPER_MAGIC)
            kind = TS_STORE_FS_FILE_SYNC;
        atomic_store(&store->fs_kind, kind);
    }
    return kind == TS_STORE_FS_GROUP_SYNC;
}

static bool is_save(const ts_store_sync_waiter *w)
{
    return w->temp != NULL;
}

static void fail(ts_store_sync_waiter *w, int rc, const char *failed)
{
    if (w->rc == 0) {
        w->rc = rc;
        w->failed = failed;
    }
}

/* A commit without company: the save's fsync and rename, then the root's
 * fsync (when wanted). */
static void commit_alone(int dirfd, ts_store_sync_waiter *me)
{
    if (is_save(me)) {
        if (fsync(me->fd) < 0) {
            fail(me, -errno, "fsync failed");
            return;
        }
        if (renameat(dirfd, me->temp, dirfd, me->file) < 0) {
            fail(me, -errno, "rename failed");
            return;
        }
        me->renamed = true;
    }
    if (me->dirsync && fsync(dirfd) < 0)
        fail(me, -errno, "fsync of the snapshot root failed");
}

/* Every waiter of list gets rc (when negative: failed), is marked done and
 * woken. Called with sync_lock held. */
static void finish_all(ts_store_sync_waiter *list, int rc, const char *failed)
{
    ts_store_sync_waiter *next;

    for (ts_store_sync_waiter *w = list; w != NULL; w = next) {
        next = w->next;
        if (rc < 0)
            fail(w, rc, failed);
        w->done = true;
        pthread_cond_signal(&w->wake);
    }
}

/*
 * The one sync of a round covering group and pending (below): a lone save
 * commits alone; changes to the root only need its fsync; anything else
 * one syncfs, which writes every dirty file of the file system and flushes
 * the device's cache once for all of them. Then the group's saves are
 * renamed into place: those that want the root synced go to *renamed, the
 * rest of the group to *finished.
 */
static int sync_round(int dirfd, ts_store_sync_waiter *group, bool any_pending,
                      ts_store_sync_waiter **finished, ts_store_sync_waiter **renamed)
{
    ts_store_sync_waiter *next;
    bool saves = false;
    int rc;

    *finished = NULL;
    *renamed = NULL;
    for (ts_store_sync_waiter *w = group; w != NULL; w = w->next)
        saves = saves || is_save(w);
    if (!any_pending && group->next == NULL) {
        commit_alone(dirfd, group);
        *finished = group;
        return 0;
    }
    if (any_pending || saves)
        rc = syncfs(dirfd) < 0 ? -errno : 0;
    else
        rc = fsync(dirfd) < 0 ? -errno : 0;
    for (ts_store_sync_waiter *w = group; w != NULL; w = next) {
        next = w->next;
        if (rc < 0) {
            fail(w, rc,
                 is_save(w) ? "syncfs of the snapshot's file system failed"
                            : "fsync of the snapshot root failed");
        } else if (is_save(w) && renameat(dirfd, w->temp, dirfd, w->file) < 0) {
            fail(w, -errno, "rename failed");
        } else if (is_save(w)) {
            w->renamed = true;
        }
        /* Only a rename of this round waits for the next sync: a waiter
         * that renamed alone before joining (no group sync) is covered by
         * this one. */
        if (is_save(w) && w->renamed && w->dirsync) {
            w->next = *renamed;
            *renamed = w;
        } else {
            w->next = *finished;
            *finished = w;
        }
    }
    return rc;
}

/*
 * One commit round, run by the leader with sync_lock held (released while
 * it syncs): everyone waiting, plus the saves the previous round renamed
 * (sync_pending), share one sync (sync_round). It makes the waiting saves'
 * temp files durable, and the pending renames and the changes of waiters
 * that want only the root synced, all made before it started. The waiting
 * saves are then renamed into place: the next round's sync covers them, or
 * when nobody is waiting for one, an fsync of the root run here. Under
 * load, a round costs one syncfs whatever its size, and each save waits
 * for two rounds. Then the lead goes to someone waiting, if anyone is.
 */
static void lead_round(ts_store *store, int dirfd)
{
    ts_store_sync_waiter *group = store->sync_waiting;
    ts_store_sync_waiter *pending = store->sync_pending;
    ts_store_sync_waiter *finished;
    ts_store_sync_waiter *renamed;
    int rc;

    store->sync_waiting = NULL;
    store->sync_pending = NULL;
    pthread_mutex_unlock(&store->sync_lock);
    rc = sync_round(dirfd, group, pending != NULL, &finished, &renamed);
    pthread_mutex_lock(&store->sync_lock);
    finish_all(pending, rc, "fsync of the snapshot root failed");
    finish_all(finished, 0, NULL);
    if (renamed != NULL && store->sync_waiting == NULL) {
        /* Nobody to run the next round: sync the renames here. */
        pthread_mutex_unlock(&store->sync_lock);
        rc = fsync(dirfd) < 0 ? -errno : 0;
        pthread_mutex_lock(&store->sync_lock);
        finish_all(renamed, rc, "fsync of the snapshot root failed");
        renamed = NULL;
    }
    store->sync_pending = renamed;
    if (store->sync_waiting != NULL) {
        store->sync_waiting->lead = true; /* sync_running stays true */
        pthread_cond_signal(&store->sync_waiting->wake);
    } else {
        store->sync_running = false;
    }
}

void ts_store__commit(ts_store *store, int dirfd, ts_store_sync_waiter *me)
{
    ts_store_root_handle *held = atomic_load(&store->held);

    if (held == NULL || held->fd != dirfd) {
        commit_alone(dirfd, me);
        return;
    }
    if (is_save(me) && !group_sync_allowed(store, dirfd)) {
        bool dirsync = me->dirsync;

        me->dirsync = false;
        commit_alone(dirfd, me);
        if (me->rc < 0 || !dirsync)
            return;
        me->temp = NULL; /* now only the root's fsync, shared */
        me->dirsync = true;
    }
    pthread_cond_init(&me->wake, NULL);
    pthread_mutex_lock(&store->sync_lock);
    me->next = store->sync_waiting;
    store->sync_waiting = me;
    if (!store->sync_running) {
        store->sync_running = true;
        me->lead = true;
    }
    for (;;) {
        while (!me->done && !me->lead)
            pthread_cond_wait(&me->wake, &store->sync_lock);
        if (me->done)
            break;
        me->lead = false;
        lead_round(store, dirfd);
    }
    pthread_mutex_unlock(&store->sync_lock);
    pthread_cond_destroy(&me->wake);
}
