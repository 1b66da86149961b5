/*
 * queue — the review queue of one store, read on a pool thread (see
 * snapshots_internal.h).
 */
#include "snapshots_internal.h"

#include <stdlib.h>
#include <string.h>

#include "lib/check/ts_check.h"
#include "lib/report/ts_report.h"
#include "lib/rules/ts_rules.h"
#include "lib/store/ts_store.h"

#define REPORT_MAX (4u << 20)

int tsd_queue_item_init(tsd_queue_item *item, const char *name, ts_error *err)
{
    int rc;

    memset(item, 0, sizeof(*item));
    rc = ts_name_to_filename(name, strlen(name), item->file, sizeof(item->file), err);
    if (rc < 0)
        return rc;
    item->name = strdup(name);
    if (item->name == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    return 0;
}

static void item_free(tsd_queue_item *item)
{
    free(item->name);
    free(item->problem);
    ts_snapshot_free(item->snapshot);
    ts_observation_free(item->obs);
}

void tsd_queue_free(tsd_queue *q)
{
    for (size_t i = 0; i < q->count; i++)
        item_free(&q->items[i]);
    free(q->items);
    q->items = NULL;
    q->count = 0;
    ts_state_names_free(q->bad_files, q->bad_count);
    q->bad_files = NULL;
    q->bad_count = 0;
}

/* Whether item's observation was compared with the snapshot there now. */
static int match(tsd_queue_item *item, ts_error *err)
{
    char id[TS_OBSERVATION_ID_LEN + 1];
    int rc;

    item->matches = false;
    if (item->obs == NULL || item->snapshot == NULL)
        return 0;
    rc = ts_observation_calls_id(item->snapshot->calls, id, err);
    if (rc == 0)
        item->matches = strcmp(id, item->obs->baseline) == 0;
    return rc;
}

/* Read item's observation (obs_file says whether a file is there). */
static int read_observation(tsd_store *st, tsd_queue_item *item, ts_error *err)
{
    ts_error why;
    int rc = tsd_obs_read(&st->obs, item->file, &item->obs, &why);

    item->obs_file = rc != -ENOENT;
    if (rc == 0 || rc == -ENOENT)
        return 0;
    if (strcmp(why.code, TS_ERR_INVALID_SNAPSHOT) == 0 || strcmp(why.code, TS_ERR_TOO_LARGE) == 0)
        return 0; /* one that is no observation: the caller drops it */
    if (err != NULL)
        *err = why;
    return rc;
}

int tsd_queue_load(tsd_store *st, tsd_queue_item *item, ts_error *err)
{
    int rc;

    if (item->snapshot == NULL) {
        rc = ts_store_load(st->store, item->name, &item->snapshot, NULL, err);
        if (rc < 0 && rc != -ENOENT)
            return rc;
    }
    item->exists = item->snapshot != NULL;
    if (item->snapshot != NULL) {
        item->approved = item->snapshot->approved;
        item->calls = json_object_array_length(item->snapshot->calls);
    }
    if (item->obs == NULL && !item->obs_file) {
        rc = read_observation(st, item, err);
        if (rc < 0)
            return rc;
    }
    return match(item, err);
}

/* ---- building a queue -------------------------------------------------- */

/* Room for one more item in q (capacity *cap). NULL when out of memory. */
static tsd_queue_item *push(tsd_queue *q, size_t *cap)
{
    if (q->count == *cap) {
        size_t n = *cap == 0 ? 16 : *cap * 2;
        tsd_queue_item *items = realloc(q->items, n * sizeof(*items));

        if (items == NULL)
            return NULL;
        q->items = items;
        *cap = n;
    }
    memset(&q->items[q->count], 0, sizeof(q->items[0]));
    return &q->items[q->count++];
}

static int by_file(const void *a, const void *b)
{
    return strcmp(((const tsd_queue_item *)a)->file, ((const tsd_queue_item *)b)->file);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const tsd_queue_item *)a)->name, ((const tsd_queue_item *)b)->name);
}

/* The item for file among the first n of items (sorted by file), or NULL. */
static tsd_queue_item *find_file(tsd_queue_item *items, size_t n, const char *file)
{
    tsd_queue_item key;

    snprintf(key.file, sizeof(key.file), "%s", file);
    return n == 0 ? NULL : bsearch(&key, items, n, sizeof(key), by_file);
}

/* Note file as no observation (q->bad_files). */
static int bad_file(tsd_queue *q, const char *file, ts_error *err)
{
    char **grown = realloc(q->bad_files, (q->bad_count + 1) * sizeof(*grown));

    if (grown == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    q->bad_files = grown;
    q->bad_files[q->bad_count] = strdup(file);
    if (q->bad_files[q->bad_count] == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    q->bad_count++;
    return 0;
}

/* Every observation (of run, if given) as an item, sorted by file. */
static int read_observations(tsd_store *st, const char *run, tsd_queue *q, size_t *cap,
                             ts_error *err)
{
    char **files = NULL;
    size_t n = 0;
    int rc = tsd_obs_list(&st->obs, &files, &n, err);

    for (size_t i = 0; rc == 0 && i < n; i++) {
        tsd_queue_item one;
        tsd_queue_item *slot;

        memset(&one, 0, sizeof(one));
        snprintf(one.file, sizeof(one.file), "%s", files[i]);
        rc = read_observation(st, &one, err);
        if (rc == 0 && one.obs == NULL && one.obs_file)
            rc = bad_file(q, files[i], err);
        if (rc < 0 || one.obs == NULL)
            continue;
        if (run != NULL && (one.obs->run == NULL || strcmp(one.obs->run, run) != 0)) {
            ts_observation_free(one.obs);
            continue;
        }
        one.name = strdup(one.obs->name);
        slot = one.name != NULL ? push(q, cap) : NULL;
        if (slot == NULL) {
            free(one.name);
            ts_observation_free(one.obs);
            rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
            break;
        }
        *slot = one;
    }
    ts_state_names_free(files, n);
    if (rc == 0 && q->count > 1)
        qsort(q->items, q->count, sizeof(q->items[0]), by_file);
    return rc;
}

/* The pending snapshots without an observation, from the listing (q holds
 * the observations, sorted by file). */
static int add_pending(tsd_store *st, ts_list_cache *cache, tsd_queue *q, size_t *cap,
                       ts_error *err)
{
    ts_store_summaries sums;
    size_t observed = q->count;
    int rc = ts_store_list_summaries_cached(st->store, cache, &sums, err);

    if (rc < 0)
        return rc;
    for (size_t i = 0; rc == 0 && i < sums.count; i++) {
        const ts_store_summary *s = &sums.items[i];
        tsd_queue_item *item;

        if (s->approved || find_file(q->items, observed, s->file) != NULL)
            continue; /* an approved one, or one read whole with its observation */
        item = push(q, cap);
        if (item == NULL || (item->name = strdup(s->name)) == NULL) {
            rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
            break;
        }
        snprintf(item->file, sizeof(item->file), "%s", s->file);
        item->exists = true;
        item->approved = false;
        item->calls = s->calls;
    }
    ts_store_summaries_free(&sums);
    return rc;
}

int tsd_queue_read(tsd_store *st, ts_list_cache *cache, const char *run, bool full, tsd_queue *out,
                   ts_error *err)
{
    size_t cap = 0;
    int rc;

    memset(out, 0, sizeof(*out));
    rc = read_observations(st, run, out, &cap, err);
    if (rc == 0)
        rc = add_pending(st, cache, out, &cap, err);
    for (size_t i = 0; rc == 0 && i < out->count; i++) {
        tsd_queue_item *item = &out->items[i];

        ts_error why;

        if (item->obs == NULL && !full)
            continue; /* a pending snapshot as listed */
        rc = tsd_queue_load(st, item, &why);
        if (rc < 0 && strcmp(why.code, TS_ERR_NO_MEMORY) != 0) {
            item->problem = strdup(why.message);
            rc = item->problem != NULL ? 0 : -ENOMEM;
        }
        if (rc < 0)
            ts_error_set(err, rc, TS_ERR_NO_MEMORY, "out of memory");
    }
    if (rc < 0) {
        tsd_queue_free(out);
        return rc;
    }
    if (out->count > 1)
        qsort(out->items, out->count, sizeof(out->items[0]), by_name);
    return 0;
}

int tsd_queue_of_names(tsd_store *st, const struct json_object *names, tsd_queue *out,
                       ts_error *err)
{
    size_t n = json_object_array_length(names);
    size_t cap = 0;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const char *name = json_object_get_string(json_object_array_get_idx(names, i));
        tsd_queue_item one;
        bool seen = false;

        rc = tsd_queue_item_init(&one, name, err);
        for (size_t k = 0; rc == 0 && k < out->count && !seen; k++)
            seen = strcmp(out->items[k].file, one.file) == 0;
        if (rc == 0 && !seen)
            rc = tsd_queue_load(st, &one, err);
        if (rc == 0 && !seen && one.snapshot == NULL && !one.obs_file)
            rc = ts_error_set(err, -ENOENT, TS_ERR_NOT_FOUND,
                              "no snapshot named '%s'; nothing was changed", name);
        tsd_queue_item *slot = rc == 0 && !seen ? push(out, &cap) : NULL;
        if (rc == 0 && !seen && slot == NULL)
            rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
        if (slot != NULL)
            *slot = one;
        else
            item_free(&one);
    }
    if (rc < 0)
        tsd_queue_free(out);
    return rc;
}

int tsd_queue_drift(const tsd_queue_item *item, size_t width, bool color, bool json_diff,
                    struct json_object **score, char **report, ts_error *err)
{
    const ts_observation *o = item->obs;
    ts_rules *rules = NULL;
    ts_rules_applied applied;
    ts_report_options ropt;
    ts_score_result scored;
    ts_check_input in;
    char **notes = NULL;
    ts_buf b;
    int rc = 0;

    memset(&applied, 0, sizeof(applied));
    if (o->rules != NULL)
        rc = ts_rules_from_json(o->rules, "rules", &rules, err);
    if (rc < 0)
        return rc;
    ts_check_input_init(&in, item->name, &o->options);
    in.rules = rules;
    in.snapshot = item->snapshot;
    in.calls = o->calls;
    in.state = TS_CHECK_APPROVED;
    rc = ts_check_evaluate(&in, &scored, &applied, err);
    if (rc < 0) {
        ts_rules_applied_free(&applied);
        ts_rules_unref(rules);
        return rc;
    }
    ts_report_options_default(&ropt);
    ropt.width = width;
    ropt.color = color;
    ropt.json_diff = json_diff;
    if (applied.rules != NULL) { /* the lists as compared, and what was hidden */
        ropt.compare = ts_rules_applied_compare(&applied);
        rc = ts_rules_applied_note_lines(&applied, &notes, &ropt.n_notes);
        ropt.notes = (const char *const *)notes;
    }
    ts_buf_init(&b, REPORT_MAX);
    if (rc == 0)
        rc = ts_report_drift(applied.rules != NULL ? applied.expected : item->snapshot->calls,
                             applied.rules != NULL ? applied.actual : o->calls, &scored, &ropt, &b,
                             err);
    if (rc == 0) {
        *report = ts_buf_detach(&b, NULL);
        *score = ts_score_result_to_json(&scored);
        if (*report == NULL || *score == NULL) {
            free(*report);
            json_object_put(*score);
            rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
        }
    }
    ts_buf_free(&b);
    free(notes);
    ts_score_result_free(&scored);
    ts_rules_applied_free(&applied);
    ts_rules_unref(rules);
    return rc;
}
