/*
 * ts_client_store — the store paths of one ts_client: a few recent
 * resolutions of the caller's store strings to the absolute,
 * symlink-resolved form requests carry (docs/protocol.md, "Stores"), each
 * reused only while two stat() calls prove it still holds, or with none
 * when the caller's string is its own resolution (below).
 *
 * Why the two stats suffice. An entry holds the caller's string S, its
 * resolution R (symlink-free when made) and the (st_dev, st_ino) of the
 * directory R named then. It is reused only when stat(S) and stat(R) (the
 * latter skipped when S is R, byte for byte) both succeed and both give that
 * same directory. A directory has exactly one canonical path: it cannot be
 * hard-linked, so it has one parent and one name there. The first stat says
 * S names the directory it named when R was computed (a re-pointed symlink,
 * a chdir under a relative S, a directory replaced or removed all change
 * what S names and fail it); the second says R still reaches that directory
 * (a directory moved away, with R now missing or naming a recreated one,
 * fails it). So the request names the directory the caller means, by a path
 * that reaches exactly that directory. On its side the daemon uses an open
 * store under that key only while stat(key) still names the directory the
 * store holds open, and otherwise resolves the key again itself (daemon
 * stores.c): it never writes elsewhere than where the key leads.
 *
 * A string that is its own resolution (S is R, byte for byte: the shims
 * resolve their root once and pass that) needs neither stat. Resolving S
 * again gives S again while no component of it became a symbolic link, so
 * what the client would send is S whatever the directory at S now is
 * (replaced, removed, recreated): the daemon's stat of the key is the one
 * that tells. A component turned into a symbolic link is the case the stats
 * do not see either (below), and the same age limit covers it.
 *
 * Not covered, as without the cache: bind mounts (one directory reachable
 * under two symlink-free paths). Not covered by the stats: a directory on R
 * replaced by a symlink leading back to the same directory (`mv proj proj2
 * && ln -s proj2 proj` under a store proj/snaps). Both stats still find the
 * same directory, so R reaches the right place but is no longer
 * symlink-free, and a daemon that also receives the new canonical spelling
 * from other clients keeps two stores for one directory. That is why an
 * entry is also re-resolved once it is TS_CLIENT_STORE_MAX_AGE_MS old: such
 * a change is seen within that time, as it was seen within one request
 * without the cache. Only directories are kept (a store is one; a regular
 * file can have several hard-linked names); a store that does not exist yet
 * is resolved afresh on every call until it does.
 */
#include "ts_client_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* See the header comment: the longest an entry is reused without a full
 * resolution. Read from the coarse clock (no system call). */
#define TS_CLIENT_STORE_MAX_AGE_MS 1000

static int64_t coarse_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void slot_clear(ts_client_store_slot *s)
{
    free(s->input);
    free(s->resolved);
    memset(s, 0, sizeof(*s));
}

void ts_client__stores_clear(ts_client *c)
{
    for (size_t i = 0; i < TS_CLIENT_STORE_SLOTS; i++)
        slot_clear(&c->stores[i]);
}

/* The entry for the caller's string store, or NULL. */
static ts_client_store_slot *slot_find(ts_client *c, const char *store)
{
    for (size_t i = 0; i < TS_CLIENT_STORE_SLOTS; i++) {
        ts_client_store_slot *s = &c->stores[i];
        if (s->input != NULL && strcmp(s->input, store) == 0)
            return s;
    }
    return NULL;
}

static bool same_directory(const char *path, const ts_client_store_slot *s)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_dev == s->dev &&
           st.st_ino == s->ino;
}

/* True when s may be used for store now (the header comment says why). */
static bool slot_holds(const ts_client_store_slot *s, const char *store)
{
    int64_t age = coarse_ms() - s->resolved_ms;

    if (age < 0 || age >= TS_CLIENT_STORE_MAX_AGE_MS)
        return false;
    if (strcmp(store, s->resolved) == 0)
        return true; /* its own resolution: see the header comment */
    if (!same_directory(store, s))
        return false;
    return same_directory(s->resolved, s);
}

/* The slot to fill for a new string: an empty one, else the least recently
 * used. */
static ts_client_store_slot *slot_victim(ts_client *c)
{
    ts_client_store_slot *victim = &c->stores[0];

    for (size_t i = 0; i < TS_CLIENT_STORE_SLOTS; i++) {
        ts_client_store_slot *s = &c->stores[i];
        if (s->input == NULL)
            return s;
        if (s->used < victim->used)
            victim = s;
    }
    return victim;
}

/*
 * Remember that store resolved to resolved, if resolved is a directory now
 * (its identity is taken after the resolution: at the next use both strings
 * must still reach it). s is store's current entry or NULL. Out of memory
 * only means nothing is remembered.
 */
static void remember(ts_client *c, ts_client_store_slot *s, const char *store, const char *resolved)
{
    struct stat st;

    if (stat(resolved, &st) < 0 || !S_ISDIR(st.st_mode)) {
        if (s != NULL)
            slot_clear(s);
        return;
    }
    if (s == NULL) {
        s = slot_victim(c);
        slot_clear(s);
        s->input = strdup(store);
    } else {
        free(s->resolved);
    }
    s->resolved = strdup(resolved);
    if (s->input == NULL || s->resolved == NULL) {
        slot_clear(s);
        return;
    }
    s->resolved_len = strlen(resolved);
    s->dev = st.st_dev;
    s->ino = st.st_ino;
    s->resolved_ms = coarse_ms();
    s->used = ++c->stores_tick;
}

int ts_client__store_path(ts_client *c, const char *store, char *out, size_t outsz, ts_error *err)
{
    ts_client_store_slot *s = slot_find(c, store);
    int rc;

    if (s != NULL && s->resolved_len < outsz && slot_holds(s, store)) {
        memcpy(out, s->resolved, s->resolved_len + 1);
        s->used = ++c->stores_tick;
        return 0;
    }
    rc = ts_paths_resolve(store, out, outsz, err);
    if (rc < 0) {
        if (s != NULL)
            slot_clear(s);
        return rc;
    }
    remember(c, s, store, out);
    return 0;
}
