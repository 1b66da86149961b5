/*
 * ts_store_list — listing the snapshot root and cleaning stray temp files
 * (ts_store_list, ts_store_list_summaries[_cached], ts_store_cleanup_temp;
 * see ts_store.h, ts_store.h and docs/internals/store.md).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/store/ts_store.h"
#include "lib/snapshot/ts_snapshot.h"
#include "ts_store_internal.h"

/* ---- listing ------------------------------------------------------------ */

typedef struct list_entry {
    ts_snapshot *snapshot;      /* a full listing */
    char *file;                 /* a full listing */
    const ts_list_summary *sum; /* a summary listing: from the cache or owned */
    bool sum_owned;             /* sum was allocated by this listing */
    bool keep;                  /* sum may be kept in the cache */
} list_entry;

typedef struct list_state {
    list_entry *entries;
    size_t count;
    size_t cap;
    ts_store_problem *problems;
    size_t problem_count;
    size_t problem_cap;
    bool summaries;       /* keep summaries, free each snapshot at once */
    ts_list_cache *cache; /* summary listings: reuse and keep summaries */
    int64_t now_ns;       /* when the listing started (the racy rule) */
    size_t reused, read;  /* files answered from the cache, read */
} list_state;

static bool grow(void **items, size_t *cap, size_t count, size_t size)
{
    void *p;
    size_t want;

    if (count < *cap)
        return true;
    want = *cap ? *cap * 2 : 16;
    p = realloc(*items, want * size);
    if (p == NULL)
        return false;
    *items = p;
    *cap = want;
    return true;
}

static int add_problem(list_state *st, const char *file, const char *message)
{
    ts_store_problem *p;

    if (!grow((void **)&st->problems, &st->problem_cap, st->problem_count, sizeof(*p)))
        return -ENOMEM;
    p = &st->problems[st->problem_count];
    p->file = strdup(file);
    p->message = strdup(message);
    if (p->file == NULL || p->message == NULL) {
        free(p->file);
        free(p->message);
        return -ENOMEM;
    }
    st->problem_count++;
    return 0;
}

static list_entry *new_entry(list_state *st)
{
    list_entry *e;

    if (!grow((void **)&st->entries, &st->cap, st->count, sizeof(*e)))
        return NULL;
    e = &st->entries[st->count];
    memset(e, 0, sizeof(*e));
    return e;
}

/* Add s (taken over) as read from file, to a full listing. */
static int add_snapshot(list_state *st, const char *file, ts_snapshot *s)
{
    list_entry *e = new_entry(st);

    if (e != NULL)
        e->file = strdup(file);
    if (e == NULL || e->file == NULL) {
        ts_snapshot_free(s);
        return -ENOMEM;
    }
    e->snapshot = s;
    st->count++;
    return 0;
}

/* Add the summary sum to a summary listing (owned: taken over). */
static int add_summary(list_state *st, const ts_list_summary *sum, bool owned, bool keep)
{
    list_entry *e = new_entry(st);

    if (e == NULL) {
        if (owned)
            free((void *)sum);
        return -ENOMEM;
    }
    e->sum = sum;
    e->sum_owned = owned;
    e->keep = keep;
    st->count++;
    return 0;
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s);
    size_t m = strlen(suffix);

    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* 1 when the snapshot name may be listed as file; 0 when it was reported
 * as a problem (its name does not hash to file); < 0 out of memory. */
static int check_file_name(list_state *st, const char *file, const char *path, const char *name)
{
    char expected[TS_FILENAME_MAX];
    char *message = NULL;
    ts_error err;
    int rc = ts_store__file_of(name, expected, &err);

    if (rc == 0 && strcmp(expected, file) == 0)
        return 1;
    if (asprintf(&message,
                 "%s: holds snapshot '%s', whose file name is %s; rename the file or "
                 "fix its name",
                 path, name, rc < 0 ? err.message : expected) < 0)
        return -ENOMEM;
    rc = add_problem(st, file, message);
    free(message);
    return rc;
}

/* A listable snapshot read from a file: the parsed snapshot (a full
 * listing) or its summary (a summary listing). */
typedef struct read_result {
    ts_snapshot *snapshot;
    ts_list_summary *sum;
    bool timestamps_given;
} read_result;

/* A summary listing: the summary of the file's bytes, scanned or (when the
 * scan is not sure) parsed; 1, or 0 when it was reported as a problem. */
static int summarize(const ts_store *store, list_state *st, const char *file, const char *path,
                     const ts_buf *data, const ts_file_stamp *stamp, read_result *out)
{
    char name[TS_NAME_MAX_BYTES + 1];
    ts_snapshot_scan m;
    ts_snapshot *s = NULL;
    ts_error err;
    int rc;

    if (ts_snapshot_scan_summary(data->data ? data->data : "", data->len, &m)) {
        memcpy(name, m.name, m.name_len);
        name[m.name_len] = '\0';
        out->timestamps_given = true;
    } else {
        rc = ts_store__parse(store, data, path, &s, &out->timestamps_given, &err);
        if (rc == -ENOMEM)
            return rc;
        if (rc < 0)
            return add_problem(st, file, err.message);
        ts_list_summary_members(s, &m);
        snprintf(name, sizeof(name), "%s", s->name);
    }
    rc = check_file_name(st, file, path, name);
    if (rc > 0) {
        out->sum = ts_list_summary_new(stamp, file, &m);
        if (out->sum == NULL)
            rc = -ENOMEM;
    }
    ts_snapshot_free(s);
    return rc;
}

/* A full listing: the parsed snapshot; 1, or 0 when it was reported. */
static int parse_full(const ts_store *store, list_state *st, const char *file, const char *path,
                      const ts_buf *data, read_result *out)
{
    ts_error err;
    int rc = ts_store__parse(store, data, path, &out->snapshot, NULL, &err);

    if (rc == -ENOMEM)
        return rc;
    if (rc < 0)
        return add_problem(st, file, err.message);
    rc = check_file_name(st, file, path, out->snapshot->name);
    if (rc <= 0) {
        ts_snapshot_free(out->snapshot);
        out->snapshot = NULL;
    }
    return rc;
}

/* Read and validate dirfd/file; 1 when it is a listable snapshot (in out,
 * with its stamp), 0 when it was reported as a problem or is gone. */
static int read_one(ts_store *store, int dirfd, const char *file, list_state *st, read_result *out,
                    ts_file_stamp *stamp)
{
    char path[PATH_MAX];
    ts_buf data;
    ts_error err;
    int rc;

    memset(out, 0, sizeof(*out));
    ts_store__join_path(store, file, path, sizeof(path));
    rc = ts_store__read_file(dirfd, file, path, &data, stamp, &err);
    st->read++;
    if (rc == -ENOMEM)
        return rc;
    if (rc == -ENOENT)
        return 0; /* removed while we were listing */
    if (rc < 0)
        return add_problem(st, file, err.message);
    if (st->summaries)
        rc = summarize(store, st, file, path, &data, stamp, out);
    else
        rc = parse_full(store, st, file, path, &data, out);
    ts_buf_free(&data);
    return rc;
}

/* The summary of file from the cache when its stamp did not change: 1 (and
 * added), 0 when it must be read, -ENOENT when it is gone. */
static int reuse_one(int dirfd, const char *file, list_state *st)
{
    const ts_list_summary *sum = ts_list_cache__find(st->cache, file);
    ts_file_stamp now = {0};
    struct stat sb;

    if (sum == NULL)
        return 0;
    if (fstatat(dirfd, file, &sb, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? -ENOENT : 0;
    if (!S_ISREG(sb.st_mode))
        return 0;
    now.exists = true;
    now.dev = (uint64_t)sb.st_dev;
    now.ino = (uint64_t)sb.st_ino;
    now.size = (uint64_t)sb.st_size;
    now.mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
    now.ctime_ns = (int64_t)sb.st_ctim.tv_sec * 1000000000 + sb.st_ctim.tv_nsec;
    if (!ts_list_summary__same_file(sum, &now))
        return 0;
    st->reused++;
    return add_summary(st, sum, false, true) < 0 ? -ENOMEM : 1;
}

/* One directory entry that looks like a snapshot file. */
static int list_one(ts_store *store, int dirfd, const char *file, list_state *st)
{
    read_result r;
    ts_file_stamp stamp;
    int rc;

    if (st->cache != NULL) {
        rc = reuse_one(dirfd, file, st);
        if (rc == 1 || rc == -ENOENT)
            return 0; /* reused, or removed while we were listing */
        if (rc < 0)
            return rc;
    }
    rc = read_one(store, dirfd, file, st, &r, &stamp);
    if (rc <= 0)
        return rc;
    if (!st->summaries)
        return add_snapshot(st, file, r.snapshot);
    return add_summary(st, r.sum, true,
                       st->cache != NULL && r.timestamps_given &&
                           ts_list_cache__trusted(st->cache, r.sum, st->now_ns));
}

static const char *entry_name(const list_entry *e)
{
    return e->snapshot != NULL ? e->snapshot->name : ts_list_summary_name(e->sum);
}

static int compare_entries(const void *a, const void *b)
{
    return strcmp(entry_name(a), entry_name(b));
}

static int compare_problems(const void *a, const void *b)
{
    const ts_store_problem *x = a;
    const ts_store_problem *y = b;

    return strcmp(x->file, y->file);
}

static int compare_places(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const list_entry *)a)->sum;
    uintptr_t y = (uintptr_t)((const list_entry *)b)->sum;

    return (x > y) - (x < y);
}

/*
 * Sort a summary listing by name, cheaply when most summaries come from the
 * cache: the cache keeps them in name order, so those are sorted by their
 * place in its block (no string compared), the others by name, and the two
 * runs merged. False when out of memory (the caller sorts by name).
 */
static bool sort_cached(list_state *st)
{
    list_entry *merged;
    size_t hits = 0;
    size_t i;
    size_t j;
    size_t k = 0;

    for (i = 0; i < st->count; i++) {
        if (!st->entries[i].sum_owned) {
            list_entry tmp = st->entries[hits];

            st->entries[hits++] = st->entries[i];
            st->entries[i] = tmp;
        }
    }
    qsort(st->entries, hits, sizeof(*st->entries), compare_places);
    qsort(st->entries + hits, st->count - hits, sizeof(*st->entries), compare_entries);
    if (hits == 0 || hits == st->count)
        return true;
    merged = malloc(st->count * sizeof(*merged));
    if (merged == NULL)
        return false;
    for (i = 0, j = hits; i < hits || j < st->count;) {
        if (j == st->count || (i < hits && compare_entries(&st->entries[i], &st->entries[j]) < 0))
            merged[k++] = st->entries[i++];
        else
            merged[k++] = st->entries[j++];
    }
    memcpy(st->entries, merged, st->count * sizeof(*merged));
    free(merged);
    return true;
}

static void list_sort(list_state *st)
{
    if (st->count > 1 && !(st->cache != NULL && sort_cached(st)))
        qsort(st->entries, st->count, sizeof(*st->entries), compare_entries);
    if (st->problem_count > 1)
        qsort(st->problems, st->problem_count, sizeof(*st->problems), compare_problems);
}

/* Move the sorted entries into the caller's listing. */
static int list_finish(list_state *st, ts_store_listing *out)
{
    list_sort(st);
    out->items = calloc(st->count + 1, sizeof(*out->items));
    out->files = calloc(st->count + 1, sizeof(*out->files));
    if (out->items == NULL || out->files == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < st->count; i++) {
        out->items[i] = st->entries[i].snapshot;
        out->files[i] = st->entries[i].file;
    }
    out->count = st->count;
    out->problems = st->problems;
    out->problem_count = st->problem_count;
    free(st->entries);
    memset(st, 0, sizeof(*st));
    return 0;
}

static void problems_free(ts_store_problem *problems, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free(problems[i].file);
        free(problems[i].message);
    }
    free(problems);
}

static void list_state_free(list_state *st)
{
    for (size_t i = 0; i < st->count; i++) {
        ts_snapshot_free(st->entries[i].snapshot);
        free(st->entries[i].file);
        if (st->entries[i].sum_owned)
            free((void *)st->entries[i].sum);
    }
    free(st->entries);
    problems_free(st->problems, st->problem_count);
    memset(st, 0, sizeof(*st));
}

/* A private stream over the root (each caller its own, for threads). */
static int open_root_stream(ts_store *store, int dirfd, DIR **out, ts_error *err)
{
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (fd < 0)
        return ts_store__sys_error(err, -errno, store->root, "cannot read the directory");
    *out = fdopendir(fd);
    if (*out == NULL) {
        int rc = -errno;

        close(fd);
        return ts_store__sys_error(err, rc, store->root, "cannot read the directory");
    }
    return 0;
}

/*
 * Reading and parsing the files is spread over up to SCAN_THREADS_MAX
 * threads (one per CPU, the caller's included) once the root holds at least
 * SCAN_PARALLEL_MIN snapshot files: parsing dominates a listing, and every
 * file is independent. Each thread fills its own list_state, taking
 * SCAN_CHUNK names at a time; the states are joined (and sorted) afterwards.
 * Files whose summary comes from the cache cost one lstat each, also
 * spread over the threads.
 */
#define SCAN_THREADS_MAX 4
#define SCAN_PARALLEL_MIN 512
#define SCAN_CHUNK 64

typedef struct scan_shared {
    ts_store *store;
    int dirfd;
    char **names;
    size_t count;
    atomic_size_t next;
    atomic_int rc;
} scan_shared;

typedef struct scan_worker {
    scan_shared *sh;
    list_state st;
    pthread_t tid;
} scan_worker;

static void scan_range(scan_shared *sh, list_state *st)
{
    for (;;) {
        size_t i = atomic_fetch_add(&sh->next, SCAN_CHUNK);
        size_t end = i + SCAN_CHUNK < sh->count ? i + SCAN_CHUNK : sh->count;

        if (i >= sh->count || atomic_load(&sh->rc) < 0)
            return;
        for (; i < end; i++) {
            int rc = list_one(sh->store, sh->dirfd, sh->names[i], st);

            if (rc < 0) {
                atomic_store(&sh->rc, rc);
                return;
            }
        }
    }
}

static void *scan_thread(void *arg)
{
    scan_worker *w = arg;

    scan_range(w->sh, &w->st);
    return NULL;
}

/* Move the entries and problems of from to the end of into's. */
static int join_state(list_state *into, list_state *from)
{
    into->reused += from->reused;
    into->read += from->read;
    for (size_t i = 0; i < from->count; i++) {
        if (!grow((void **)&into->entries, &into->cap, into->count, sizeof(*into->entries)))
            return -ENOMEM;
        into->entries[into->count++] = from->entries[i];
        memset(&from->entries[i], 0, sizeof(from->entries[i]));
    }
    for (size_t i = 0; i < from->problem_count; i++) {
        if (!grow((void **)&into->problems, &into->problem_cap, into->problem_count,
                  sizeof(*into->problems)))
            return -ENOMEM;
        into->problems[into->problem_count++] = from->problems[i];
        from->problems[i].file = NULL;
        from->problems[i].message = NULL;
    }
    return 0;
}

/* The snapshot file names of the root (hidden files skipped). */
static int read_names(ts_store *store, int dirfd, char ***names, size_t *count, ts_error *err)
{
    size_t cap = 0;
    struct dirent *de;
    DIR *dir = NULL;
    int rc = open_root_stream(store, dirfd, &dir, err);

    *names = NULL;
    *count = 0;
    if (rc < 0)
        return rc;
    while (rc == 0) {
        errno = 0;
        de = readdir(dir);
        if (de == NULL) {
            if (errno != 0)
                rc = ts_store__sys_error(err, -errno, store->root, "cannot read the directory");
            break;
        }
        if (de->d_name[0] == '.' || !has_suffix(de->d_name, ".json"))
            continue;
        if (!grow((void **)names, &cap, *count, sizeof(**names))) {
            rc = -ENOMEM;
            break;
        }
        (*names)[*count] = strdup(de->d_name);
        if ((*names)[*count] == NULL)
            rc = -ENOMEM;
        else
            (*count)++;
    }
    closedir(dir);
    return rc;
}

static size_t scan_threads(size_t count)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);

    if (count < SCAN_PARALLEL_MIN || cpus <= 1)
        return 1;
    return cpus < SCAN_THREADS_MAX ? (size_t)cpus : SCAN_THREADS_MAX;
}

/* Read every snapshot file of the root into st. */
static int list_scan(ts_store *store, list_state *st, ts_error *err)
{
    scan_worker workers[SCAN_THREADS_MAX];
    scan_shared sh;
    size_t started = 0;
    size_t threads;
    int dirfd;
    int rc = ts_store__dir(store, false, &dirfd, err);

    if (rc != 0)
        return rc < 0 ? rc : 0;
    memset(&sh, 0, sizeof(sh));
    sh.store = store;
    sh.dirfd = dirfd;
    atomic_init(&sh.next, 0);
    atomic_init(&sh.rc, 0);
    rc = read_names(store, dirfd, &sh.names, &sh.count, err);
    threads = rc == 0 ? scan_threads(sh.count) : 1;
    for (size_t i = 1; i < threads; i++) {
        memset(&workers[started], 0, sizeof(workers[started]));
        workers[started].sh = &sh;
        workers[started].st.summaries = st->summaries;
        workers[started].st.cache = st->cache;
        workers[started].st.now_ns = st->now_ns;
        if (pthread_create(&workers[started].tid, NULL, scan_thread, &workers[started]) != 0)
            break; /* fewer threads: the others do the work */
        started++;
    }
    if (rc == 0)
        scan_range(&sh, st);
    for (size_t i = 0; i < started; i++) {
        pthread_join(workers[i].tid, NULL);
        if (atomic_load(&sh.rc) == 0 && join_state(st, &workers[i].st) < 0)
            atomic_store(&sh.rc, -ENOMEM);
        list_state_free(&workers[i].st);
    }
    if (rc == 0)
        rc = atomic_load(&sh.rc);
    for (size_t i = 0; i < sh.count; i++)
        free(sh.names[i]);
    free(sh.names);
    ts_store__dir_release(store, dirfd);
    return rc;
}

int ts_store_list(ts_store *store, ts_store_listing *out, ts_error *err)
{
    list_state st = {0};
    int rc;

    memset(out, 0, sizeof(*out));
    rc = list_scan(store, &st, err);
    if (rc == 0)
        rc = list_finish(&st, out);
    if (rc < 0) {
        list_state_free(&st);
        ts_store_listing_free(out);
        if (rc == -ENOMEM)
            return ts_store__no_memory(err);
        return rc;
    }
    return 0;
}

/* The sorted summaries of st as the caller's listing: one array of items
 * and one block of their strings. */
static int summaries_finish(list_state *st, ts_store_summaries *out)
{
    size_t bytes = 1;
    char *p;

    for (size_t i = 0; i < st->count; i++) {
        const ts_list_summary *sum = st->entries[i].sum;

        bytes += (size_t)sum->file_len + sum->name_len + sum->source_len + 3;
    }
    out->items = calloc(st->count + 1, sizeof(*out->items));
    out->strings = malloc(bytes);
    if (out->items == NULL || out->strings == NULL)
        return -ENOMEM;
    p = out->strings;
    for (size_t i = 0; i < st->count; i++) {
        const ts_list_summary *sum = st->entries[i].sum;
        ts_store_summary *item = &out->items[i];

        item->file = p;
        memcpy(p, ts_list_summary_file(sum), (size_t)sum->file_len + 1);
        p += sum->file_len + 1;
        item->name = p;
        memcpy(p, ts_list_summary_name(sum), (size_t)sum->name_len + 1);
        p += sum->name_len + 1;
        item->source = p;
        memcpy(p, ts_list_summary_source(sum), (size_t)sum->source_len + 1);
        p += sum->source_len + 1;
        item->approved = sum->approved;
        item->calls = sum->calls;
        memcpy(item->created_at, ts_list_summary_created(sum), (size_t)sum->created_len + 1);
        memcpy(item->updated_at, ts_list_summary_updated(sum), (size_t)sum->updated_len + 1);
    }
    out->count = st->count;
    out->problems = st->problems;
    out->problem_count = st->problem_count;
    st->problems = NULL;
    st->problem_count = 0;
    return 0;
}

/* Leave in the cache the summaries of st that may be kept (the lock is
 * released). */
static void cache_finish(list_state *st)
{
    const ts_list_summary **keep = malloc((st->count + 1) * sizeof(*keep));
    size_t n = 0;

    if (keep == NULL) {
        ts_list_cache__end(st->cache, NULL, 0, st->reused, st->read);
        return;
    }
    for (size_t i = 0; i < st->count; i++) {
        if (st->entries[i].keep)
            keep[n++] = st->entries[i].sum;
    }
    ts_list_cache__end(st->cache, keep, n, st->reused, st->read);
    free(keep);
}

int ts_store_list_summaries_cached(ts_store *store, ts_list_cache *cache, ts_store_summaries *out,
                                   ts_error *err)
{
    list_state st = {0};
    int rc;

    memset(out, 0, sizeof(*out));
    st.summaries = true;
    st.cache = cache;
    if (cache != NULL)
        ts_list_cache__begin(cache, &st.now_ns);
    rc = list_scan(store, &st, err);
    if (rc == 0) {
        list_sort(&st);
        rc = summaries_finish(&st, out);
    }
    if (cache != NULL && rc == 0)
        cache_finish(&st);
    else if (cache != NULL)
        ts_list_cache__abort(cache);
    list_state_free(&st);
    if (rc < 0) {
        ts_store_summaries_free(out);
        if (rc == -ENOMEM)
            return ts_store__no_memory(err);
        return rc;
    }
    return 0;
}

int ts_store_list_summaries(ts_store *store, ts_store_summaries *out, ts_error *err)
{
    return ts_store_list_summaries_cached(store, NULL, out, err);
}

void ts_store_summaries_free(ts_store_summaries *summaries)
{
    if (summaries->strings == NULL) {
        for (size_t i = 0; i < summaries->count; i++) {
            free(summaries->items[i].name);
            free(summaries->items[i].file);
            free(summaries->items[i].source);
        }
    }
    free(summaries->strings);
    free(summaries->items);
    problems_free(summaries->problems, summaries->problem_count);
    memset(summaries, 0, sizeof(*summaries));
}

void ts_store_listing_free(ts_store_listing *listing)
{
    for (size_t i = 0; i < listing->count; i++) {
        ts_snapshot_free(listing->items[i]);
        free(listing->files[i]);
    }
    free(listing->items);
    free(listing->files);
    problems_free(listing->problems, listing->problem_count);
    memset(listing, 0, sizeof(*listing));
}

/* ".<anything>.<16 lowercase hex>.tmp": a temp file of ts_store_save. */
static bool is_temp_name(const char *name)
{
    size_t n = strlen(name);
    const char *hex;

    if (n < 1 + 1 + TS_STORE_TEMP_RANDOM_HEX + 4 + 1 || name[0] != '.' || !has_suffix(name, ".tmp"))
        return false;
    hex = name + n - 4 - TS_STORE_TEMP_RANDOM_HEX;
    if (hex[-1] != '.')
        return false;
    for (int i = 0; i < TS_STORE_TEMP_RANDOM_HEX; i++) {
        if (!((hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'a' && hex[i] <= 'f')))
            return false;
    }
    return true;
}

int ts_store_cleanup_temp(ts_store *store, ts_error *err)
{
    struct dirent *de;
    DIR *dir;
    int dirfd;
    int removed = 0;
    int rc = ts_store__dir(store, false, &dirfd, err);

    if (rc != 0)
        return rc < 0 ? rc : 0;
    rc = open_root_stream(store, dirfd, &dir, err);
    if (rc < 0) {
        ts_store__dir_release(store, dirfd);
        return rc;
    }
    for (de = readdir(dir); de != NULL; de = readdir(dir)) {
        struct stat st;

        if (!is_temp_name(de->d_name))
            continue;
        if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
            continue;
        if (unlinkat(dirfd, de->d_name, 0) == 0)
            removed++;
        else if (errno != ENOENT && rc == 0)
            rc = ts_store__sys_error(err, -errno, store->root, "cannot remove a temporary file");
    }
    closedir(dir);
    if (rc == 0 && removed > 0 && fsync(dirfd) < 0)
        rc = ts_store__sys_error(err, -errno, store->root, "fsync of the snapshot root failed");
    ts_store__dir_release(store, dirfd);
    return rc < 0 ? rc : removed;
}
