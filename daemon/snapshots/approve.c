/*
 * approve — method "approve" (see snapshots_internal.h): the snapshots named, or every
 * pending one, approved as lib/check/ts_check says (a pending snapshot becomes
 * approved, an approved one is left as it is) in one whole-store job. Each
 * entry of the reply says whether this approve changed it and whether an
 * observation is kept for it (which approve never touches: it approves the
 * recording, `accept` takes the observed calls).
 */
#include "snapshots_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/check/ts_check.h"
#include "lib/json/ts_json.h"
#include "lib/snapshot/ts_snapshot.h"
#include "lib/store/ts_store.h"

/* Approve every name in names (all must exist), sharing one directory sync. */
static int approve_names(tsd_store *st, ts_snapshot **snaps, size_t n, struct json_object *out,
                         ts_error *err)
{
    char file[PATH_MAX];
    bool wrote = false;
    int rc = 0;

    for (size_t i = 0; i < n && rc == 0; i++) {
        bool write = false;

        rc = ts_check_approve(snaps[i], &write, err);
        if (rc == 0 && write)
            rc = ts_store_save(st->store, snaps[i], TS_STORE_NO_DIRSYNC, err);
        wrote = wrote || write;
        if (rc == 0)
            rc = ts_store_path(st->store, snaps[i]->name, file, sizeof(file), err);
        if (rc == 0) {
            struct json_object *e = json_object_new_object();

            json_object_object_add(e, "name", json_object_new_string(snaps[i]->name));
            json_object_object_add(
                e, "calls",
                json_object_new_int64((int64_t)json_object_array_length(snaps[i]->calls)));
            json_object_object_add(e, "created_at", json_object_new_string(snaps[i]->created_at));
            json_object_object_add(e, "updated_at", json_object_new_string(snaps[i]->updated_at));
            json_object_object_add(e, "file", json_object_new_string(file));
            json_object_object_add(e, "changed", json_object_new_boolean(write));
            json_object_array_add(out, e);
        }
    }
    /* Acknowledged only once every rename is durable. */
    if (wrote) {
        int sync_rc = ts_store_sync(st->store, rc == 0 ? err : NULL);

        if (rc == 0)
            rc = sync_rc;
    }
    return rc;
}

/* Load the snapshots to approve: names given (all must exist) or all pending. */
static int approve_targets(tsd_store *st, const struct json_object *names, bool all,
                           ts_snapshot ***out, size_t *count, ts_error *err)
{
    size_t n = all ? 0 : json_object_array_length(names);
    ts_snapshot **snaps;
    int rc = 0;

    if (all) {
        ts_store_listing listing;

        rc = ts_store_list(st->store, &listing, err);
        if (rc < 0)
            return rc;
        snaps = calloc(listing.count + 1, sizeof(*snaps));
        for (size_t i = 0; snaps != NULL && i < listing.count && rc == 0; i++) {
            if (!ts_check_approve_selects(listing.items[i]))
                continue;
            snaps[n] = ts_snapshot_copy(listing.items[i]);
            if (snaps[n++] == NULL)
                rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
        }
        ts_store_listing_free(&listing);
    } else {
        snaps = calloc(n + 1, sizeof(*snaps));
        for (size_t i = 0; snaps != NULL && i < n && rc == 0; i++) {
            const char *name = json_object_get_string(json_object_array_get_idx(names, i));

            rc = ts_store_load(st->store, name, &snaps[i], NULL, err);
            if (rc == -ENOENT)
                ts_error_set(err, rc, TS_ERR_NOT_FOUND,
                             "no snapshot named '%s'; nothing was approved", name);
        }
    }
    if (snaps == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    *out = snaps;
    *count = n;
    return rc;
}

static void free_snapshots(ts_snapshot **snaps, size_t n)
{
    for (size_t i = 0; snaps != NULL && i < n; i++)
        ts_snapshot_free(snaps[i]);
    free(snaps);
}

/* approve as a whole-store pool job: loading and the durable writes on a
 * pool thread, the kept observations looked up on the loop thread. */
typedef struct approve_job {
    tsd_job job;
    tsd_request *req;
    tsd_store *st;
    const struct json_object *names; /* in tsd_request_params(req); NULL with all */
    struct json_object *approved;    /* the reply's list */
    ts_error err;
    int rc;
} approve_job;

static void approve_work(tsd_job *job)
{
    approve_job *a = (approve_job *)job;
    ts_snapshot **snaps = NULL;
    size_t n = 0;

    a->rc = approve_targets(a->st, a->names, a->names == NULL, &snaps, &n, &a->err);
    if (a->rc == 0) {
        a->approved = json_object_new_array();
        a->rc = approve_names(a->st, snaps, n, a->approved, &a->err);
    }
    free_snapshots(snaps, n);
}

static void approve_done(tsd_job *job)
{
    approve_job *a = (approve_job *)job;
    struct json_object *result = NULL;
    size_t n = a->approved != NULL ? json_object_array_length(a->approved) : 0;

    if (a->rc == 0) {
        size_t changed = 0;

        for (size_t i = 0; i < n; i++) {
            struct json_object *e = json_object_array_get_idx(a->approved, i);
            const char *file = ts_json_get_string(e, "file");

            changed += json_object_get_boolean(json_object_object_get(e, "changed"));
            json_object_object_add(
                e, "observation",
                json_object_new_boolean(file != NULL &&
                                        tsd_obs_has(&a->st->obs, tsd_obs_file_of(file))));
        }
        if (changed > 0)
            tsd_info("store %s: approved %zu snapshot(s)", a->st->root, changed);
        result = json_object_new_object();
        json_object_object_add(result, "approved", json_object_get(a->approved));
    }
    tsd_request_finish(a->req, a->rc, result, &a->err);
    json_object_put(result);
    json_object_put(a->approved);
    free(a);
}

int tsd_approve(void *state, tsd_request *req, const struct json_object *params,
                struct json_object **result, ts_error *err)
{
    tsd_snapshots *sn = state;
    struct json_object *names;
    tsd_store *st;
    approve_job *a;
    tsd_params p;
    bool all;

    (void)result;
    tsd_params_init(&p, params, err);
    names = tsd_params_names_or_all(&p, &all);
    st = tsd_stores_param(&sn->stores, &p);
    if (tsd_params_error(&p) < 0)
        return tsd_params_error(&p);
    a = calloc(1, sizeof(*a));
    if (a == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    a->req = req;
    a->st = st;
    a->names = all ? NULL : names;
    ts_error_clear(&a->err);
    a->job.loop = sn->loop;
    a->job.queue = &st->jobs;
    a->job.key = NULL; /* the whole store: after every earlier check, before every later one */
    a->job.on_pool = true;
    a->job.work_fn = approve_work;
    a->job.done_fn = approve_done;
    tsd_jobs_submit(&a->job);
    return TSD_ASYNC;
}
