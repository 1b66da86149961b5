/*
 * ts_store_commit — group commit of a store's writes (see ts_store_internal.h
 * and docs/internals/store.md).
 *
 * A write is durable once its temp file is fsynced, the file renamed into
 * place, and the root directory fsynced after the rename. Each writer
 * fsyncs its own temp file before it commits (concurrent writers do that
 * in parallel, ts_store.c); the renames and the root's fsync are shared: a commit round renames the
 * temp files of everyone waiting and fsyncs the root once for all of them, whatever their number.
 * The state (the waiting list) lives in the ts_store under its sync_lock; the waiters live on their
 * callers' stacks.
 */
#include "ts_store_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

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

static bool needs_dirsync(const ts_store_sync_waiter *w)
{
    return w->rc == 0 && w->dirsync && (!is_save(w) || w->renamed);
}

/*
 * One commit round for group (the temp files of its saves already
 * fsynced): rename each save into place, then fsync the root once for
 * every rename and every waiter that wants the root synced. Any fsync of
 * the root that starts after a rename returned makes it durable, so one
 * covers them all.
 */
static void run_round(int dirfd, ts_store_sync_waiter *group)
{
    bool dirsync = false;

    for (ts_store_sync_waiter *w = group; w != NULL; w = w->next) {
        if (is_save(w) && w->rc == 0) {
            if (renameat(dirfd, w->temp, dirfd, w->file) < 0)
                fail(w, -errno, "rename failed");
            else
                w->renamed = true;
        }
        dirsync = dirsync || needs_dirsync(w);
    }
    if (!dirsync || fsync(dirfd) == 0)
        return;
    int rc = -errno;

    for (ts_store_sync_waiter *w = group; w != NULL; w = w->next)
        if (needs_dirsync(w))
            fail(w, rc, "fsync of the snapshot root failed");
}

/*
 * The leader's round, with sync_lock held (released while it renames and
 * syncs): it takes everyone waiting, runs the round in their order of
 * arrival (so of two saves of one file, the later one is what stays), marks
 * each member done and wakes it, then hands the lead to one of those who
 * arrived meanwhile.
 */
static void lead_round(ts_store *store, int dirfd)
{
    ts_store_sync_waiter *group = NULL;
    ts_store_sync_waiter *next;

    for (ts_store_sync_waiter *w = store->sync_waiting; w != NULL; w = next) {
        next = w->next; /* the list is newest first: reverse it */
        w->next = group;
        group = w;
    }
    store->sync_waiting = NULL;
    pthread_mutex_unlock(&store->sync_lock);
    run_round(dirfd, group);
    pthread_mutex_lock(&store->sync_lock);
    for (ts_store_sync_waiter *w = group; w != NULL; w = next) {
        next = w->next;
        w->done = true;
        pthread_cond_signal(&w->wake);
    }
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
        run_round(dirfd, me);
        return;
    }
    pthread_cond_init(&me->wake, NULL);
    pthread_mutex_lock(&store->sync_lock);
    me->next = store->sync_waiting;
    store->sync_waiting = me;
    if (!store->sync_running) {
        store->sync_running = true;
        me->lead = true;
    }
    while (!me->done) {
        if (me->lead) {
            me->lead = false;
            lead_round(store, dirfd);
            continue;
        }
        pthread_cond_wait(&me->wake, &store->sync_lock);
    }
    pthread_mutex_unlock(&store->sync_lock);
    pthread_cond_destroy(&me->wake);
}
