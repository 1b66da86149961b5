/*
 * check — checks and trace imports: parameters, scheduling and I/O around
 * lib/ts_check's state machine (see check.h).
 */
#include "check.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs.h"
#include "log.h"
#include "params.h"
#include "snapcache.h"
#include "ts_check.h"
#include "ts_extract.h"
#include "ts_name.h"
#include "ts_report.h"
#include "ts_score.h"
#include "ts_snapshot.h"
#include "ts_store.h"

#define REPORT_MAX (4u << 20)
#define TSD_CHECK_WIDTH_MAX 65535 /* the check's width param (the report clamps it) */

/* Checks answered on the loop thread (try_fast_path) come in a request of
 * at most TSD_FAST_MAX_BYTES, read a snapshot file of at most that size and
 * score at most TSD_FAST_MAX_CALLS observed calls (about 0.3 ms of loop
 * time); larger ones go to the thread pool so that one long replay does not
 * stall every other client (docs/internals/daemon.md has the measurements). */
#define TSD_FAST_MAX_BYTES (16u << 10)
#define TSD_FAST_MAX_CALLS 64

typedef struct check_request {
    const char *store;
    const char *name;
    const char *format;
    const char *run;
    const char *test;
    struct json_object *actual; /* borrowed raw value */
    ts_score_options score;
    bool ci, update, allow_pending, color, json_diff;
    int64_t width; /* the report's width; 0: its default */
} check_request;

/* What one pass of the state machine produced. */
typedef struct check_outcome {
    ts_check_decision decision; /* outcome, what to write, whether evaluated */
    char *message;
    ts_score_result scored; /* the scoring keys, when evaluated */
    char *report;           /* drift report, or NULL */
    double score;           /* < 0 when not evaluated */
    /* scored, already packed (borrowed from the snapshot cache: used only
     * by a reply made before the loop touches the cache again), or NULL */
    const void *scored_packed;
    size_t scored_packed_len;
} check_outcome;

static int parse_name(const struct json_object *params, const char **name, ts_error *err)
{
    int rc = tsd_param_string(params, "name", true, name, err);

    if (rc == 0)
        rc = ts_name_validate(*name, strlen(*name), err);
    return rc;
}

static int parse_format(const struct json_object *params, const char **format, ts_error *err)
{
    int rc = tsd_param_string(params, "format", false, format, err);

    if (rc == 0 && *format != NULL && !ts_extract_format_known(*format))
        return ts_error_set(err, -EINVAL, TS_ERR_FORMAT, "unknown format '%s' (supported: %s)",
                            *format, ts_extract_format_list());
    return rc;
}

/* raw_actual: "actual" was left as bytes (decoded later, if needed). */
static int parse_check(const struct json_object *params, bool raw_actual, check_request *rq,
                       ts_error *err)
{
    struct json_object *weights = NULL;
    int rc;

    memset(rq, 0, sizeof(*rq));
    ts_score_options_default(&rq->score);
    rc = tsd_param_string(params, "store", true, &rq->store, err);
    if (rc == 0)
        rc = parse_name(params, &rq->name, err);
    if (rc == 0 && !raw_actual)
        rc = tsd_param_value(params, "actual", &rq->actual, err);
    if (rc == 0)
        rc = parse_format(params, &rq->format, err);
    if (rc == 0)
        rc = tsd_param_number(params, "min_score", 1.0, &rq->score.min_score, err);
    if (rc == 0)
        rc = ts_score_check_min(rq->score.min_score, err);
    if (rc == 0)
        rc = tsd_param_object(params, "weights", &weights, err);
    if (rc == 0 && weights != NULL)
        rc = ts_weights_from_json(weights, &rq->score.weights, err);
    if (rc == 0)
        rc = tsd_param_bool(params, "strict", false, &rq->score.strict, err);
    if (rc == 0)
        rc = tsd_param_bool(params, "ci", false, &rq->ci, err);
    if (rc == 0)
        rc = tsd_param_bool(params, "update", false, &rq->update, err);
    if (rc == 0)
        rc = tsd_param_bool(params, "allow_pending", false, &rq->allow_pending, err);
    if (rc == 0)
        rc = tsd_param_bool(params, "color", false, &rq->color, err);
    if (rc == 0)
        rc = tsd_param_int(params, "width", 0, &rq->width, err);
    if (rc == 0 && (rq->width < 0 || rq->width > TSD_CHECK_WIDTH_MAX))
        rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                          "width must be an integer from 0 to %d, got %" PRId64,
                          TSD_CHECK_WIDTH_MAX, rq->width);
    if (rc == 0)
        rc = tsd_param_bool(params, "json_diff", true, &rq->json_diff, err);
    if (rc == 0)
        rc = tsd_param_string(params, "run", false, &rq->run, err);
    if (rc == 0)
        rc = tsd_param_string(params, "test", false, &rq->test, err);
    return rc;
}

/*
 * Extract and validate the calls of a raw value (a value of the request's
 * params). A raw list of calls is shared, not copied: params and calls are
 * only read, and stay with one thread at a time (the loop, or the pool thread
 * of the request's job), so json-c's non-atomic reference counts are safe.
 * Kept calls (a FAILED check's observed calls) keep only that part of the
 * params alive.
 */
static int extract_calls(struct json_object *raw, const char *format, ts_extract_origin origin,
                         struct json_object **calls, ts_error *err)
{
    int rc = ts_extract_shared(raw, format, origin, calls, err);

    if (rc < 0)
        return rc;
    rc = ts_snapshot_validate_calls(*calls, err);
    if (rc < 0) {
        json_object_put(*calls);
        *calls = NULL;
    }
    return rc;
}

/*
 * Write calls as name's snapshot: approved, source, keeping created_at of an
 * existing readable file (looked up only when may_exist: a creation that just
 * found no file skips that lookup, which on a large directory contends with
 * the other writers' creates and renames). On return the file is durable
 * (ts_store_save shares the rename and the root's fsync with the store's
 * concurrent writers: lib/ts_store_commit.c). When only the root's fsync
 * failed, the file is in place but not durable: that error goes to
 * job->sync_rc/sync_err for the reply (sync_failed) and 0 is returned, so
 * the outcome is still worked out.
 */
static int write_snapshot(ts_store *store, const char *name, struct json_object *calls,
                          const char *source, bool approved, bool may_exist, tsd_job *job,
                          ts_error *err)
{
    ts_snapshot *old = NULL;
    ts_snapshot *snap = NULL;
    ts_error ignored;
    bool placed;
    int rc = ts_snapshot_new(name, calls, source, &snap, err);

    if (rc < 0)
        return rc;
    snap->approved = approved;
    if (may_exist && ts_store_load(store, name, &old, NULL, &ignored) == 0) {
        memcpy(snap->created_at, old->created_at, sizeof(snap->created_at));
        ts_snapshot_free(old);
    }
    rc = ts_store_save_placed(store, snap, 0, &placed, err);
    if (rc < 0 && placed) {
        job->sync_rc = rc; /* answered by sync_failed */
        job->sync_err = *err;
        rc = 0;
    }
    ts_snapshot_free(snap);
    return rc;
}

/* The state machine's input for rq and the observed calls. */
static void check_input(const check_request *rq, const struct json_object *calls,
                        ts_check_input *in)
{
    ts_check_input_init(in, rq->name, &rq->score);
    in->ci = rq->ci;
    in->update = rq->update;
    in->allow_pending = rq->allow_pending;
    in->calls = calls;
}

/*
 * Take in (the file read, or update on) to its outcome: evaluate when the
 * state machine asks, then the message and, for FAILED, the report, all
 * into out; what to write is left in out->decision. known: the score of
 * these calls, already worked out (taken over: released when not used),
 * or NULL.
 */
static int settle(const check_request *rq, ts_check_input *in, ts_score_result *known,
                  check_outcome *out, ts_error *err)
{
    ts_check_decision *d = &out->decision;
    ts_buf report;
    int rc = 0;

    ts_check_decide(in, d);
    if (d->step == TS_CHECK_EVALUATE) {
        if (known != NULL) {
            out->scored = *known; /* owned by out from here */
            known = NULL;
        } else {
            rc = ts_check_evaluate(in, &out->scored, err);
        }
        if (rc < 0)
            return rc;
        out->score = out->scored.score;
        in->score = &out->scored;
        ts_check_decide(in, d);
    }
    if (known != NULL)
        ts_score_result_free(known);
    out->message = ts_check_message(in, d);
    if (d->report) {
        ts_report_options opt;
        ts_report_options_default(&opt);
        opt.width = (size_t)rq->width;
        opt.color = rq->color;
        opt.json_diff = rq->json_diff;
        ts_buf_init(&report, REPORT_MAX);
        rc = ts_report_drift(in->snapshot->calls, in->calls, in->score, &opt, &report, err);
        out->report = rc == 0 ? ts_buf_detach(&report, NULL) : NULL;
        ts_buf_free(&report);
    }
    return rc;
}

/* A replay of an existing snapshot (read just before), nothing written.
 * known as for settle. */
static int replay(const check_request *rq, const ts_snapshot *snap, struct json_object *calls,
                  ts_score_result *known, check_outcome *out, ts_error *err)
{
    ts_check_input in;

    check_input(rq, calls, &in);
    in.state = ts_check_state_of(snap);
    in.snapshot = snap;
    return settle(rq, &in, known, out, err);
}

/* The whole state machine on a pool thread: read, evaluate, write. */
static int state_machine(const check_request *rq, ts_store *store, struct json_object *calls,
                         check_outcome *out, tsd_job *job, ts_error *err)
{
    const ts_check_decision *d = &out->decision;
    ts_snapshot *snap = NULL;
    ts_check_input in;
    int rc;

    check_input(rq, calls, &in);
    ts_check_decide(&in, &out->decision);
    if (d->step == TS_CHECK_READ) {
        rc = ts_store_load(store, rq->name, &snap, NULL, err);
        if (rc < 0 && rc != -ENOENT)
            return rc;
        in.state = ts_check_state_of(snap);
        in.snapshot = snap;
    }
    rc = settle(rq, &in, NULL, out, err);
    if (rc == 0 && d->write)
        rc = write_snapshot(store, rq->name, calls, "pytest", d->approved, d->may_exist, job, err);
    ts_snapshot_free(snap);
    return rc;
}

/* The run named by the request, if any: it must exist and be open. */
static int find_run(tsd_server *srv, const char *id, tsd_run **run, ts_error *err)
{
    int rc;

    *run = NULL;
    if (id == NULL)
        return 0;
    rc = tsd_runs_get(&srv->runs, id, run, err);
    if (rc == 0 && (*run)->closed)
        rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                          "run '%s' is closed; it takes no more checks", id);
    return rc;
}

/* A check between the loop thread (parse, then record the outcome) and a
 * pool thread (extract, read, evaluate, write). */
typedef struct check_job {
    tsd_job job;
    tsd_server *srv;
    tsd_request *req;
    check_request rq; /* points into req->params */
    tsd_store *st;
    char file[PATH_MAX];
    struct json_object *calls;
    check_outcome out;
    ts_error err;
    int rc;
    /* What try_identical found when it read the cache through the root
     * seen: no small snapshot file, or the snapshot (borrowed from the
     * cache; only until the loop calls the cache again: try_fast_path) */
    bool not_for_loop;
    const ts_snapshot *loaded;
} check_job;

static void check_work(tsd_job *job)
{
    check_job *c = (check_job *)job;

    c->rc = 0;
    if (c->calls == NULL) /* else extracted by try_fast_path */
        c->rc = extract_calls(c->rq.actual, c->rq.format, TS_EXTRACT_RESPONSE, &c->calls, &c->err);
    if (c->rc == 0)
        c->rc = state_machine(&c->rq, c->st->store, c->calls, &c->out, &c->job, &c->err);
    if (c->rc == 0 && c->out.message == NULL)
        c->rc = ts_error_set(&c->err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
}

/*
 * The root's fsync after a write failed (write_snapshot): the file was
 * renamed into place (later requests see it) but a crash may still lose it
 * or bring the old file back. The write is answered with that error, never
 * acknowledged.
 */
static int sync_failed(const tsd_job *job, const char *name, ts_error *err)
{
    *err = job->sync_err;
    return ts_error_prefix(err, job->sync_rc,
                           "snapshot '%s' was written but is not durable (a crash may lose it)",
                           name);
}

/* The reply {outcome, name, file, message, result, report}, packed straight
 * into the reply frame (the hot path of every replay). */
static int pack_check_reply(ts_wire_writer *w, void *arg, ts_error *err)
{
    const check_job *c = arg;
    const check_outcome *out = &c->out;
    const char *strings[][2] = {{"outcome", ts_check_outcome_name(out->decision.outcome)},
                                {"name", c->rq.name},
                                {"file", c->file},
                                {"message", out->message}};

    ts_wire_pack_map(w, 6, err);
    for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
        ts_wire_pack_str(w, strings[i][0], strlen(strings[i][0]), err);
        ts_wire_pack_str(w, strings[i][1], strlen(strings[i][1]), err);
    }
    ts_wire_pack_str(w, "result", 6, err);
    if (!out->decision.evaluated)
        ts_wire_pack_nil(w, err);
    else if (out->scored_packed != NULL)
        ts_wire_pack_packed(w, out->scored_packed, out->scored_packed_len, err);
    else
        ts_message_pack_score_result(w, &out->scored, 2, err);
    ts_wire_pack_str(w, "report", 6, err);
    if (out->report != NULL)
        ts_wire_pack_str(w, out->report, strlen(out->report), err);
    else
        ts_wire_pack_nil(w, err);
    return ts_wire_writer_error(w);
}

/* Remember the outcome (store, run) and answer. */
static void check_done(tsd_job *job)
{
    check_job *c = (check_job *)job;

    if (c->rc == 0 && job->sync_rc < 0) {
        c->rc = sync_failed(job, c->rq.name, &c->err);
        /* The file was replaced: a FAILED observation no longer applies. */
        tsd_store_note_failure(c->st, c->rq.name, NULL);
    }
    if (c->rc == 0) {
        ts_check_outcome outcome = c->out.decision.outcome;
        bool failed = outcome == TS_CHECK_FAILED;
        double ms = (double)(uv_hrtime() - c->req->start_ns) / 1e6;
        tsd_run *run = c->rq.run != NULL ? tsd_runs_find(&c->srv->runs, c->rq.run) : NULL;

        if (failed || outcome == TS_CHECK_PASSED || outcome == TS_CHECK_UPDATED)
            tsd_store_note_failure(c->st, c->rq.name, failed ? c->calls : NULL);
        if (run != NULL &&
            tsd_run_record(run, c->rq.name, c->rq.test, ts_check_outcome_name(outcome),
                           c->out.score, ms, c->out.message, c->out.report, c->calls) < 0)
            tsd_warn("run %s: out of memory recording a check", run->id);
    }
    tsd_request_finish_packed(c->req, c->rc, pack_check_reply, c, &c->err);
    json_object_put(c->calls);
    if (c->out.decision.evaluated)
        ts_score_result_free(&c->out.scored);
    free(c->out.message);
    free(c->out.report);
    free(c);
}

/*
 * The replay fast path: a check that writes nothing (no update, the snapshot
 * exists and is small) runs here on the loop thread, without the round trip
 * through the thread pool. Only called when no job of the snapshot is queued
 * or running, so the order per snapshot is that of a job started now. True
 * when the check was answered (c is freed); false when it must go to the
 * pool (a write, a large snapshot or call list), with what it extracted
 * kept in c. seen: what the store lookup of this request saw of the root,
 * just before on this thread (never kept in c: the pool runs later).
 */
static bool try_fast_path(check_job *c, const tsd_root_seen *seen)
{
    const ts_snapshot *snap = NULL;
    int rc;

    if (c->rq.update || c->req->payload_len > TSD_FAST_MAX_BYTES || c->not_for_loop)
        return false; /* a write, or a large observed list: extraction alone is long */
    rc = extract_calls(c->rq.actual, c->rq.format, TS_EXTRACT_RESPONSE, &c->calls, &c->err);
    if (rc == 0 && json_object_array_length(c->calls) > TSD_FAST_MAX_CALLS)
        return false;
    if (rc == 0 && c->loaded != NULL) {
        snap = c->loaded; /* read by try_identical just before */
    } else if (rc == 0) {
        rc = tsd_snapcache_load(&c->st->cache, c->st->store, seen->valid ? &seen->root : NULL,
                                c->rq.name, TSD_FAST_MAX_BYTES, &snap, &c->err);
        if (rc == -ENOENT || rc == -EFBIG)
            return false; /* a creation, or too much work for the loop */
    }
    if (rc == 0)
        rc = replay(&c->rq, snap, c->calls, NULL, &c->out, &c->err);
    if (rc == 0 && c->out.message == NULL)
        rc = ts_error_set(&c->err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    c->rc = rc;
    check_done(&c->job);
    return true;
}

/*
 * The replay of observed calls that are byte for byte what a client sends
 * for the baseline's own calls (every passing replay of a list in the
 * snapshot's key order): they are neither decoded, extracted nor scored.
 * The snapshot's calls stand for them (equal by construction: see
 * tsd_snapcache_same_calls) and their score against themselves is kept in
 * the cache. Same conditions as try_fast_path, plus format "auto". True
 * when answered (c is freed); false when the observed value must be decoded
 * and the check go the usual way.
 */
static bool try_identical(check_job *c, const tsd_root_seen *seen, const ts_request *wire)
{
    const ts_snapshot *snap = NULL;
    ts_score_result self;
    bool have_self = false;
    int rc;

    if (c->rq.update || c->req->payload_len > TSD_FAST_MAX_BYTES)
        return false;
    if (c->rq.format != NULL && strcmp(c->rq.format, "auto") != 0)
        return false;
    if (seen == NULL)
        rc = tsd_snapcache_load_quick(&c->st->cache, c->rq.name, &snap);
    else
        rc = tsd_snapcache_load(&c->st->cache, c->st->store, seen->valid ? &seen->root : NULL,
                                c->rq.name, TSD_FAST_MAX_BYTES, &snap, &c->err);
    ts_error_clear(&c->err);
    /* a creation, or too much for the loop: try_fast_path need not look
     * again (a quick miss knows nothing of the file) */
    c->not_for_loop = seen != NULL && (rc == -ENOENT || rc == -EFBIG);
    c->loaded = seen != NULL && rc == 0 ? snap : NULL;
    if (rc < 0 || !tsd_snapcache_same_calls(&c->st->cache, c->rq.name,
                                            wire->raw_data + wire->raw.at, wire->raw.len))
        return false; /* the usual path reads, reports or records it */
    if (snap->approved) {
        rc = tsd_snapcache_self_score(&c->st->cache, c->rq.name, &c->rq.score, &self,
                                      &c->out.scored_packed, &c->out.scored_packed_len, &c->err);
        have_self = rc == 0;
    }
    tsd_debug("check %s: the observed calls are the baseline's own bytes", c->rq.name);
    c->calls = json_object_get(snap->calls);
    if (rc == 0)
        rc = replay(&c->rq, snap, c->calls, have_self ? &self : NULL, &c->out, &c->err);
    if (rc == 0 && c->out.message == NULL)
        rc = ts_error_set(&c->err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    c->rc = rc;
    check_done(&c->job);
    return true;
}

/*
 * try_identical before the store lookup: when the request's store is open
 * under that very key and the snapshot is cached, one lstat() of the file's
 * whole path proves the cached snapshot is what the path leads to now
 * (tsd_snapcache_load_quick), without the stat of the root the lookup
 * makes. False (nothing answered, c as it was) for anything else.
 */
static bool try_quick(check_job *c, const ts_request *wire)
{
    c->st = tsd_stores_peek(&c->srv->stores, c->rq.store);
    if (c->st == NULL || !tsd_snapcache_path(&c->st->cache, c->rq.name, c->file, sizeof(c->file)))
        return false;
    return tsd_jobs_idle(c->st, c->file) && try_identical(c, NULL, wire);
}

int tsd_check(tsd_server *srv, tsd_request *req, const struct json_object *params,
              struct json_object **result, ts_error *err)
{
    check_job *c = calloc(1, sizeof(*c));
    tsd_run *run = NULL;
    tsd_root_seen seen;
    const ts_request *wire = req->wire; /* the observed calls as bytes, or NULL */
    int rc;

    (void)result;
    req->wire = NULL;
    if (c == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    c->srv = srv;
    c->req = req;
    c->out.score = -1;
    ts_error_clear(&c->err);
    rc = parse_check(params, wire != NULL, &c->rq, err);
    if (rc == 0)
        rc = find_run(srv, c->rq.run, &run, err);
    if (rc == 0 && wire != NULL && try_quick(c, wire))
        return TSD_ASYNC;
    if (rc == 0)
        rc = tsd_stores_get_seen(&srv->stores, c->rq.store, &c->st, &seen, err);
    if (rc == 0 && !tsd_snapcache_path(&c->st->cache, c->rq.name, c->file, sizeof(c->file)))
        rc = ts_store_path(c->st->store, c->rq.name, c->file, sizeof(c->file), err);
    if (rc < 0) {
        free(c);
        return rc;
    }
    c->job.loop = srv->loop;
    c->job.store = c->st;
    c->job.key = c->file; /* two names never share a file, but key what is written */
    c->job.on_pool = true;
    c->job.work_fn = check_work;
    c->job.done_fn = check_done;
    if (wire != NULL) {
        if (tsd_jobs_idle(c->st, c->file) && try_identical(c, &seen, wire))
            return TSD_ASYNC;
        rc = tsd_request_decode_raw(req, wire, err);
        if (rc == 0)
            rc = tsd_param_value(params, "actual", &c->rq.actual, err);
        if (rc < 0) {
            free(c);
            return rc;
        }
    }
    if (tsd_jobs_idle(c->st, c->file) && try_fast_path(c, &seen))
        return TSD_ASYNC;
    tsd_jobs_submit(&c->job);
    return TSD_ASYNC;
}

/* A trace import: parsed on the loop thread, written on a pool thread. */
typedef struct record_job {
    tsd_job job;
    tsd_request *req;
    tsd_store *st;
    const char *name, *source, *format;
    struct json_object *raw;
    bool update;
    char file[PATH_MAX];
    ts_check_outcome outcome;
    ts_error err;
    int rc;
} record_job;

static void record_work(tsd_job *job)
{
    record_job *c = (record_job *)job;
    struct json_object *calls = NULL;
    ts_check_decision d;
    ts_file_stamp stamp;
    int rc = extract_calls(c->raw, c->format, TS_EXTRACT_FILE, &calls, &c->err);

    if (rc == 0)
        rc = ts_store_stat(c->st->store, c->name, &stamp, &c->err);
    if (rc == 0)
        rc = ts_check_record(c->name, c->file, stamp.exists, c->update, &d, &c->err);
    if (rc == 0)
        rc = write_snapshot(c->st->store, c->name, calls, c->source, d.approved, d.may_exist,
                            &c->job, &c->err);
    if (rc == 0)
        c->outcome = d.outcome;
    json_object_put(calls);
    c->rc = rc;
}

static void record_done(tsd_job *job)
{
    record_job *c = (record_job *)job;
    struct json_object *result = NULL;

    if (c->rc == 0 && job->sync_rc < 0) {
        c->rc = sync_failed(job, c->name, &c->err);
        tsd_store_note_failure(c->st, c->name, NULL);
    }
    if (c->rc == 0) {
        tsd_store_note_failure(c->st, c->name, NULL);
        result = json_object_new_object();
        json_object_object_add(result, "outcome",
                               json_object_new_string(ts_check_outcome_name(c->outcome)));
        json_object_object_add(result, "name", json_object_new_string(c->name));
        json_object_object_add(result, "file", json_object_new_string(c->file));
    }
    tsd_request_finish(c->req, c->rc, result, &c->err);
    json_object_put(result);
    free(c);
}

int tsd_record(tsd_server *srv, tsd_request *req, const struct json_object *params,
               struct json_object **result, ts_error *err)
{
    const char *store_root = NULL;
    record_job *c = calloc(1, sizeof(*c));
    int rc;

    (void)result;
    if (c == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    rc = tsd_param_string(params, "store", true, &store_root, err);
    if (rc == 0)
        rc = parse_name(params, &c->name, err);
    if (rc == 0)
        rc = tsd_param_value(params, "calls", &c->raw, err);
    if (rc == 0)
        rc = tsd_param_string(params, "source", false, &c->source, err);
    if (rc == 0 && c->source == NULL)
        c->source = "trace";
    if (rc == 0 && strcmp(c->source, "trace") != 0 && strcmp(c->source, "pytest") != 0 &&
        strcmp(c->source, "record") != 0)
        rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                          "'source' must be \"trace\", \"pytest\" or \"record\", got \"%s\"",
                          c->source);
    if (rc == 0)
        rc = tsd_param_bool(params, "update", false, &c->update, err);
    if (rc == 0)
        rc = parse_format(params, &c->format, err);
    if (rc == 0)
        rc = tsd_stores_get(&srv->stores, store_root, &c->st, err);
    if (rc == 0)
        rc = ts_store_path(c->st->store, c->name, c->file, sizeof(c->file), err);
    if (rc < 0) {
        free(c);
        return rc;
    }
    c->req = req;
    ts_error_clear(&c->err);
    c->job.loop = srv->loop;
    c->job.store = c->st;
    c->job.key = c->file;
    c->job.on_pool = true;
    c->job.work_fn = record_work;
    c->job.done_fn = record_done;
    tsd_jobs_submit(&c->job);
    return TSD_ASYNC;
}
