/*
 * observations — a store's kept observations: the index (loop thread) and
 * the files (any thread); see snapshots_internal.h.
 */
#include "snapshots_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/linkhash.h>

#include "lib/base/ts_base.h"
#include "lib/snapshot/ts_snapshot.h"

typedef struct obs_entry {
    char *file; /* the key */
    size_t bytes;
    uint64_t seq;
} obs_entry;

static void entry_free(struct lh_entry *e)
{
    obs_entry *entry = (obs_entry *)lh_entry_v(e);

    free(entry->file);
    free(entry);
}

/* Insert or refresh file in the index (no bounds applied). */
static void index_put(tsd_obs *obs, const char *file, size_t bytes, uint64_t seq)
{
    obs_entry *entry = NULL;

    if (obs->index == NULL)
        return;
    if (lh_table_lookup_ex(obs->index, file, (void **)&entry)) {
        obs->bytes -= entry->bytes;
        entry->bytes = bytes;
        entry->seq = seq;
        obs->bytes += bytes;
        return;
    }
    entry = calloc(1, sizeof(*entry));
    if (entry != NULL)
        entry->file = strdup(file);
    if (entry == NULL || entry->file == NULL ||
        lh_table_insert(obs->index, entry->file, entry) < 0) {
        if (entry != NULL)
            free(entry->file);
        free(entry);
        tsd_warn("out of memory indexing the observation %s", file);
        return;
    }
    entry->bytes = bytes;
    entry->seq = seq;
    obs->count++;
    obs->bytes += bytes;
}

void tsd_obs_forget(tsd_obs *obs, const char *file)
{
    obs_entry *entry = NULL;

    if (obs->index == NULL || !lh_table_lookup_ex(obs->index, file, (void **)&entry))
        return;
    obs->count--;
    obs->bytes -= entry->bytes;
    lh_table_delete(obs->index, file);
}

bool tsd_obs_has(const tsd_obs *obs, const char *file)
{
    return obs->count > 0 && lh_table_lookup_ex(obs->index, file, NULL);
}

/* ---- opening: the directory and its index ------------------------------- */

typedef struct found_file {
    char *file;
    size_t bytes;
    int64_t mtime_ns;
} found_file;

static int by_mtime(const void *a, const void *b)
{
    const found_file *x = a;
    const found_file *y = b;

    if (x->mtime_ns != y->mtime_ns)
        return x->mtime_ns < y->mtime_ns ? -1 : 1;
    return strcmp(x->file, y->file);
}

/* The index of the files in obs->dir, oldest first. */
static void read_index(tsd_obs *obs, const char *root)
{
    char **names = NULL;
    size_t n = 0;
    found_file *found;
    size_t kept = 0;
    ts_error err;

    if (ts_state_clean_temps(obs->dir, &err) < 0)
        tsd_warn("store %s: observations: %s", root, err.message);
    if (ts_state_list(obs->dir, &names, &n, &err) < 0) {
        tsd_warn("store %s: cannot list its observations: %s", root, err.message);
        return;
    }
    found = calloc(n + 1, sizeof(*found));
    for (size_t i = 0; found != NULL && i < n; i++) {
        struct stat st;

        if (fstatat(obs->dir, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
            continue;
        found[kept].file = names[i];
        found[kept].bytes = (size_t)st.st_size;
        found[kept].mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
        kept++;
    }
    if (found != NULL) {
        qsort(found, kept, sizeof(*found), by_mtime);
        for (size_t i = 0; i < kept; i++)
            index_put(obs, found[i].file, found[i].bytes, ++obs->seq);
    }
    free(found);
    ts_state_names_free(names, n);
}

void tsd_obs_open(tsd_obs *obs, const ts_state *state, const char *root)
{
    char key[TS_STATE_STORE_KEY_LEN + 1];
    char rel[sizeof("stores//observations") + TS_STATE_STORE_KEY_LEN];
    int store_dir = -1;
    ts_error err;

    memset(obs, 0, sizeof(*obs));
    obs->dir = -1;
    if (state == NULL)
        return;
    obs->index = lh_kchar_table_new(64, entry_free);
    if (obs->index == NULL) {
        tsd_warn("store %s: out of memory; no observations are kept for it", root);
        return;
    }
    ts_state_store_key(root, key);
    snprintf(rel, sizeof(rel), "stores/%s/observations", key);
    /* the store's directory first: it names its root (a key collision is refused) */
    if (ts_state_store_dir(state, root, true, &store_dir, &err) < 0 ||
        ts_state_dir(state, rel, true, &obs->dir, &err) < 0) {
        tsd_warn("store %s: no observations are kept for it: %s", root, err.message);
        obs->dir = -1;
    }
    if (store_dir >= 0)
        close(store_dir);
    if (obs->dir >= 0)
        read_index(obs, root);
    if (obs->count > 0)
        tsd_info("store %s: %zu kept observation(s)", root, obs->count);
}

void tsd_obs_close(tsd_obs *obs)
{
    if (obs->dir >= 0)
        close(obs->dir);
    obs->dir = -1;
    if (obs->index != NULL)
        lh_table_free(obs->index);
    obs->index = NULL;
    obs->count = 0;
    obs->bytes = 0;
}

/* ---- bounds ------------------------------------------------------------- */

/* Whether file's snapshot has no job of st queued or running. */
static bool file_idle(struct tsd_store *st, const char *file)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof(path), "%s/%s", ts_store_root(st->store), file);

    return n > 0 && (size_t)n < sizeof(path) && tsd_jobs_idle(&st->jobs, path);
}

/* The oldest entry but keep that may be removed now, or NULL. */
static obs_entry *oldest(struct tsd_store *st, const char *keep)
{
    obs_entry *best = NULL;
    struct lh_entry *e;

    lh_foreach(st->obs.index, e)
    {
        obs_entry *entry = (obs_entry *)lh_entry_v(e);

        if (strcmp(entry->file, keep) == 0 || (best != NULL && entry->seq > best->seq))
            continue;
        if (file_idle(st, entry->file))
            best = entry;
    }
    return best;
}

void tsd_obs_noted(struct tsd_store *st, const char *file, size_t bytes)
{
    tsd_obs *obs = &st->obs;

    index_put(obs, file, bytes, ++obs->seq);
    while (obs->count > TSD_OBS_MAX_COUNT || obs->bytes > TSD_OBS_MAX_BYTES) {
        obs_entry *victim = oldest(st, file);
        char name[TS_FILENAME_MAX];

        if (victim == NULL)
            break;
        snprintf(name, sizeof(name), "%s", victim->file);
        /* One unlinkat on the loop; the file is the oldest of the store's. */
        if (unlinkat(obs->dir, name, 0) < 0 && errno != ENOENT)
            tsd_warn("store %s: cannot remove the observation %s: %s", st->root, name,
                     strerror(errno));
        tsd_info("store %s: observation %s dropped (%zu kept, %zu bytes: the oldest go)", st->root,
                 name, obs->count, obs->bytes);
        tsd_obs_forget(obs, name);
    }
}

/* ---- the files ------------------------------------------------------------ */

const char *tsd_obs_file_of(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash != NULL ? slash + 1 : path;
}

static int no_directory(ts_error *err)
{
    return ts_error_set(err, -ENOENT, TS_ERR_NOT_FOUND,
                        "this store keeps no observations (its state directory could not be "
                        "opened; see the daemon's log)");
}

int tsd_obs_write(const tsd_obs *obs, const char *file, const ts_observation *o, size_t *bytes,
                  ts_error *err)
{
    ts_buf b;
    int rc;

    if (obs->dir < 0)
        return no_directory(err);
    ts_buf_init(&b, TS_OBSERVATION_MAX_BYTES + 1);
    rc = ts_observation_serialize(o, &b, err);
    if (rc == 0)
        rc = ts_state_write_file(obs->dir, file, b.data, b.len, false, err);
    if (rc == 0)
        *bytes = b.len;
    ts_buf_free(&b);
    return rc;
}

int tsd_obs_remove(const tsd_obs *obs, const char *file, ts_error *err)
{
    int rc;

    if (obs->dir < 0)
        return 0;
    rc = ts_state_remove_file(obs->dir, file, err);
    if (rc == -ENOENT)
        return 0;
    return rc < 0 ? rc : 1;
}

int tsd_obs_read(const tsd_obs *obs, const char *file, ts_observation **out, ts_error *err)
{
    char expected[TS_FILENAME_MAX];
    char *data = NULL;
    size_t len = 0;
    ts_observation *o = NULL;
    int rc;

    if (obs->dir < 0)
        return no_directory(err);
    rc = ts_state_read_file(obs->dir, file, TS_OBSERVATION_MAX_BYTES, &data, &len, err);
    if (rc == 0)
        rc = ts_observation_parse(data, len, file, &o, err);
    free(data);
    if (rc == 0 &&
        (ts_name_to_filename(o->name, strlen(o->name), expected, sizeof(expected), NULL) < 0 ||
         strcmp(expected, file) != 0)) {
        rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_SNAPSHOT,
                          "%s: the observation of '%s' belongs in %s", file, o->name, expected);
        ts_observation_free(o);
        o = NULL;
    }
    if (rc == 0)
        *out = o;
    return rc;
}

int tsd_obs_list(const tsd_obs *obs, char ***files, size_t *count, ts_error *err)
{
    if (obs->dir < 0) {
        *files = NULL;
        *count = 0;
        return 0;
    }
    return ts_state_list(obs->dir, files, count, err);
}
