/*
 * check — method "check": parameters, the replay plan and the pool job
 * around lib/check/ts_check's state machine (see snapshots_internal.h).
 *
 * Every check follows one plan (tsd_check):
 * 1. Where it runs. A check that writes nothing (no update), in a small
 *    request, of a snapshot with no job of its file queued or running, is
 *    answered on the loop thread at once (answer_on_loop); anything else
 *    (a write, a creation, a large request, snapshot or list) is a pool job
 *    keyed by the snapshot's file (check_work), so the order per file is
 *    the order of arrival.
 * 2. The snapshot, on the loop: from the store's cache, proved unchanged by
 *    one lstat of its whole path before the store is even looked up
 *    (tsd_snapcache_load_quick); else the store is looked up and the cache
 *    loads the file (small files only) when its stamp changed.
 * 3. The observed calls, on the loop: when the client sent the baseline's
 *    own bytes (the usual passing replay) they are neither decoded nor
 *    scored: the snapshot's calls stand for them and the cache keeps their
 *    score against themselves; a replay that passed so leaves the entry
 *    slim, answering the next one of those bytes without the snapshot's
 *    tree (answer_slim); otherwise the raw value is decoded, then
 *    extracted and validated.
 * 4. The state machine (ts_check_decide): outcome, message, report, and
 *    what becomes of the name's kept observation (snapshots_internal.h): a
 *    FAILED check or a PENDING one that differs writes the calls observed,
 *    a passing one drops an observation kept before. That file work is the
 *    pool's: a loop replay that has some is finished by a small job of its
 *    file (keep_work), so a later check of the file still waits for it.
 * The raw value (the request's "actual" left as bytes by the decoder) is
 * decoded before anything goes to the pool: its bytes live only while
 * dispatch runs.
 */
#include "snapshots_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/check/ts_check.h"
#include "lib/report/ts_report.h"
#include "lib/rules/ts_rules.h"
#include "lib/score/ts_score.h"
#include "lib/snapshot/ts_snapshot.h"
#include "lib/store/ts_store.h"

/* Checks answered on the loop thread come in a request of at most
 * TSD_LOOP_MAX_BYTES, read a snapshot file of at most that size and score
 * at most TSD_LOOP_MAX_CALLS observed calls (about 0.3 ms of loop time);
 * larger ones go to the thread pool so that one long replay does not stall
 * every other client (docs/internals/daemon.md has the measurements). */
#define TSD_LOOP_MAX_BYTES (16u << 10)
#define TSD_LOOP_MAX_CALLS 64

/* A check between the loop thread (parse, plan, answer) and, when the plan
 * says so, a pool thread (extract, read, evaluate, write). */
typedef struct check_job {
    tsd_job job;
    tsd_snapshots *sn;
    tsd_request *req;
    tsd_check_request rq; /* points into tsd_request_params(req) */
    tsd_store *st;
    ts_rules *rules;           /* in force: the project's with rq.rules merged over (NULL: none) */
    size_t *redacted;          /* per redact pattern: values redacted in the observed calls */
    struct json_object *calls; /* the observed calls, once extracted */
    tsd_check_outcome out;
    ts_observation *keep; /* the observation to write (decision keep WRITE), or NULL */
    size_t kept_bytes;    /* its file's size, once written */
    bool kept, dropped;   /* the pool wrote it / removed the name's observation */
    bool slim_after;      /* passed as a replay of the baseline's own bytes: slim its entry */
    int keep_rc;          /* < 0: it was not kept, keep_err says why (logged on the loop) */
    int rc;
    char *busy;              /* store_busy from the pool: the holder's socket */
    tsd_run_observation obs; /* the run's record, prepared on the pool (runs.h) */
    /* A loop replay's baseline: a reference to its cached snapshot's calls,
     * which a job keeping its observation outlives when other checks evict
     * the entry meanwhile; NULL on the pool, where obs holds it. */
    struct json_object *baseline;
    /* Not zeroed when made (check_new): clearing 5 KiB was a fifth of a
     * replay's work on the loop. */
    char file[PATH_MAX];
    ts_error err;
    ts_error keep_err;
} check_job;

/*
 * The rules in force for c: the store's project file with the check's
 * "rules" merged over it. A project file that is not valid fails every
 * check of its store. Loop thread.
 */
static int check_rules(check_job *c, ts_error *err)
{
    ts_rules *project = NULL;
    int rc = tsd_rulescache_get(&c->st->rules, &project, err);

    if (rc == 0 && c->rules == NULL)
        rc = ts_rules_merge(project, c->rq.rules, &c->rules, err);
    ts_rules_unref(project);
    if (rc == 0 && ts_rules_empty(c->rules)) {
        ts_rules_unref(c->rules);
        c->rules = NULL;
    }
    return rc;
}

/* The observed calls with the redact rules applied, before anything keeps,
 * compares or reports them. */
static int redact_calls(check_job *c, ts_error *err)
{
    struct json_object *redacted = NULL;
    int rc;

    if (!ts_rules_has_redact(c->rules) || c->calls == NULL)
        return 0;
    if (c->redacted == NULL)
        c->redacted = calloc(ts_rules_pattern_count(c->rules, 1), sizeof(size_t));
    if (c->redacted == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    rc = ts_rules_redact_counted(c->rules, c->calls, &redacted, c->redacted, err);
    if (rc == 0) {
        json_object_put(c->calls);
        c->calls = redacted;
    }
    return rc;
}

/* The run named by the request, if any: it must exist and be open. */
static int find_run(tsd_snapshots *sn, const char *id, ts_error *err)
{
    tsd_run *run = NULL;
    int rc;

    if (id == NULL)
        return 0;
    rc = tsd_runs_get(sn->runs, id, &run, err);
    if (rc == 0 && run->closed)
        rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                          "run '%s' is closed; it takes no more checks", id);
    return rc;
}

/* ---- the answer ------------------------------------------------------- */

/* What the rules did: packed already (the cache's self score), from this
 * check's evaluation, or (nothing compared) the rules in force with zero
 * counts. */
static void pack_rules(ts_wire_writer *w, const check_job *c, ts_error *err)
{
    const tsd_check_outcome *out = &c->out;
    ts_rules_applied none;
    struct json_object *did = NULL;

    if (out->rules_packed.len > 0) {
        ts_wire_pack_packed(w, out->rules_packed.data, out->rules_packed.len, err);
        return;
    }
    if (out->applied.rules != NULL) {
        did = ts_rules_applied_to_json(&out->applied);
    } else if (ts_rules_applied_none(c->rules, &none) == 0) {
        ts_rules_applied_add_redacted(&none, c->redacted);
        did = ts_rules_applied_to_json(&none);
        ts_rules_applied_free(&none);
    }
    if (did == NULL)
        ts_wire_pack_nil(w, err);
    else
        ts_wire_pack(w, did, 2, err);
    json_object_put(did);
}

/* The reply {outcome, name, file, message, result, report, written, kept[,
 * rules]}, packed
 * straight into the reply frame (the hot path of every replay). */
static int pack_check_reply(ts_wire_writer *w, void *arg, ts_error *err)
{
    const check_job *c = arg;
    const tsd_check_outcome *out = &c->out;
    const char *strings[][2] = {{"outcome", ts_check_outcome_name(out->decision.outcome)},
                                {"name", c->rq.name},
                                {"file", c->file},
                                {"message", out->message}};
    int failed = 0;
    bool rules = out->rules_packed.len > 0 || out->applied.rules != NULL || c->rules != NULL;

    ts_wire_pack_map(w, rules ? 9 : 8, err);
    for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
        ts_wire_pack_str(w, strings[i][0], strlen(strings[i][0]), err);
        ts_wire_pack_str(w, strings[i][1], strlen(strings[i][1]), err);
    }
    ts_wire_pack_str(w, "result", 6, err);
    if (!out->decision.evaluated)
        ts_wire_pack_nil(w, err);
    else if (out->scored_packed.len > 0)
        ts_wire_pack_packed(w, out->scored_packed.data, out->scored_packed.len, err);
    else
        ts_message_pack_score_result(w, &out->scored, 2, err);
    ts_wire_pack_str(w, "report", 6, err);
    if (out->report != NULL && out->next_steps != NULL) {
        ts_buf text;

        ts_buf_init(&text, TS_BUF_UNLIMITED);
        ts_buf_appends(&text, out->report);
        ts_buf_appendc(&text, '\n');
        ts_buf_appends(&text, out->next_steps);
        if (ts_buf_error(&text) < 0) {
            ts_wire_pack_nil(w, err);
            failed = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
        } else {
            ts_wire_pack_str(w, text.data, text.len, err);
        }
        ts_buf_free(&text);
    } else if (out->report != NULL) {
        ts_wire_pack_str(w, out->report, strlen(out->report), err);
    } else {
        ts_wire_pack_nil(w, err);
    }
    ts_wire_pack_str(w, "written", 7, err);
    ts_wire_pack_bool(w, out->written, err);
    ts_wire_pack_str(w, "kept", 4, err);
    ts_wire_pack_bool(w, c->kept, err);
    if (rules) {
        ts_wire_pack_str(w, "rules", 5, err);
        pack_rules(w, c, err);
    }
    return failed < 0 ? failed : ts_wire_writer_error(w);
}

static void check_free(check_job *c)
{
    ts_observation_free(c->keep);
    free(c->busy);
    json_object_put(c->calls);
    json_object_put(c->baseline);
    if (c->out.decision.evaluated)
        ts_score_result_free(&c->out.scored);
    ts_buf_free(&c->out.scored_packed);
    ts_buf_free(&c->out.rules_packed);
    ts_rules_applied_free(&c->out.applied);
    ts_rules_unref(c->rules);
    ts_rules_unref(c->rq.rules);
    free(c->redacted);
    free(c->out.message);
    free(c->out.report);
    free(c->out.next_steps);
    tsd_run_observation_free(&c->obs);
    free(c);
}

/* What the pool did to the name's kept observation, into the store's index. */
static void note_keep(check_job *c)
{
    const char *file = tsd_obs_file_of(c->file);

    if (c->kept)
        tsd_obs_noted(c->st, file, c->kept_bytes);
    else if (c->dropped)
        tsd_obs_forget(&c->st->obs, file);
    if (c->keep_rc < 0)
        tsd_warn("check %s: its observed calls are not kept: %s", c->rq.name, c->keep_err.message);
}

/* Remember the outcome (store, run) and answer; c is freed. Loop thread. */
static void check_done(tsd_job *job)
{
    check_job *c = (check_job *)job;

    note_keep(c);
    if (c->rc == 0 && job->sync_rc < 0)
        c->rc = tsd_save_not_durable(job, c->rq.name, &c->err);
    if (c->rc == 0) {
        ts_check_outcome outcome = c->out.decision.outcome;
        bool failed = outcome == TS_CHECK_FAILED;
        double ms = (double)(uv_hrtime() - tsd_request_start_ns(c->req)) / 1e6;
        tsd_run *run = c->rq.run != NULL ? tsd_runs_find(c->sn->runs, c->rq.run) : NULL;

        if (run != NULL && !run->closed) {
            const char *text, *id;
            size_t len;

            /* a replay of the snapshot's own calls answered on the loop: their
             * text is the cache's */
            if (!c->obs.ready && !c->job.on_pool && c->st != NULL &&
                tsd_snapcache_calls_text(&c->st->cache, c->rq.name, c->calls, &text, &len, &id) ==
                    0)
                tsd_run_observe_text(&c->obs, text, len, id, c->out.report,
                                     failed ? c->baseline : NULL, ts_rules_object(c->rules), NULL);
            tsd_run_check rec = {c->rq.name,
                                 c->rq.test,
                                 ts_check_outcome_name(outcome),
                                 c->out.score,
                                 c->rq.score.min_score,
                                 ms,
                                 c->out.message,
                                 outcome == TS_CHECK_UPDATED && c->out.decision.unchanged,
                                 c->out.report,
                                 c->calls,
                                 failed ? c->baseline : NULL,
                                 ts_rules_object(c->rules)};
            ts_error rerr;

            /* a check its run could not record is not answered as if it
             * were: the run is marked incomplete, the caller told */
            c->rc = tsd_run_record(c->sn->runs, run, &rec, &c->obs, tsd_runs_now_ms(), &rerr);
            if (c->rc < 0)
                ts_error_set(&c->err, c->rc, rerr.code,
                             "the check of '%.200s' was done (%s) but %s", c->rq.name,
                             ts_check_outcome_name(outcome), rerr.message);
        }
    }
    /* what answered it stays cached without its trees */
    if (c->rc == 0 && c->slim_after && c->out.decision.outcome == TS_CHECK_PASSED)
        tsd_snapcache_slim(&c->st->cache, c->rq.name);
    tsd_stores_note_busy(&c->sn->stores, c->busy);
    tsd_request_finish_packed(c->req, c->rc, pack_check_reply, c, &c->err);
    check_free(c);
}

/*
 * The observation to keep when the decision says so (FAILED, or PENDING
 * with other calls than the recording), with snap's calls as the baseline
 * it was compared with. Where snap is at hand: the loop (a cached snapshot;
 * on_loop) or the pool. A failure keeps nothing; the check's answer stands.
 */
static void prepare_keep(check_job *c, const ts_snapshot *snap, bool on_loop)
{
    struct json_object *calls = c->calls;

    if (c->out.decision.keep != TS_CHECK_KEEP_WRITE || snap == NULL)
        return;
    /* On the loop the calls may be the cache's (its baseline, or the
     * redacted list it keeps): a copy goes to the pool thread, never a
     * shared reference (json-c's counts are not atomic). */
    if (on_loop)
        calls = ts_json_copy(calls);
    else
        json_object_get(calls);
    if (calls == NULL)
        c->keep_rc = ts_error_set(&c->keep_err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    else
        c->keep_rc = ts_observation_new(
            c->rq.name, calls, ts_check_outcome_name(c->out.decision.outcome), snap->calls,
            c->rq.run, c->rq.test, &c->rq.score,
            c->rules != NULL ? ts_rules_object(c->rules) : NULL, &c->keep, &c->keep_err);
    /* accepting it later writes the source of the check that observed it */
    if (c->keep_rc == 0 && strcmp(c->rq.source, "pytest") != 0 &&
        (c->keep->source = strdup(c->rq.source)) == NULL)
        c->keep_rc = ts_error_set(&c->keep_err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    json_object_put(calls);
}

/* The file work on the kept observation: write c->keep, or drop the
 * name's. Pool thread. */
static void keep_files(check_job *c)
{
    const char *file = tsd_obs_file_of(c->file);
    int rc;

    if (c->keep != NULL) {
        c->keep_rc = tsd_obs_write(&c->st->obs, file, c->keep, &c->kept_bytes, &c->keep_err);
        c->kept = c->keep_rc == 0;
    } else if (c->out.decision.keep == TS_CHECK_KEEP_DROP) {
        rc = tsd_obs_remove(&c->st->obs, file, &c->keep_err);
        c->dropped = rc > 0;
        if (rc < 0)
            c->keep_rc = rc;
    }
}

/* A loop replay's observation work, as a job of its file. */
static void keep_work(tsd_job *job)
{
    keep_files((check_job *)job);
}

/* ---- on a pool thread --------------------------------------------------- */

/* Read name's snapshot for the state machine. An update goes on over a
 * file that is no readable snapshot (it overwrites it). */
static int read_snapshot(check_job *c, ts_check_input *in, ts_snapshot **snap)
{
    ts_error why;
    int rc = ts_store_load(c->st->store, c->rq.name, snap, NULL, c->rq.update ? &why : &c->err);

    if (rc == -ENOENT) {
        in->state = TS_CHECK_MISSING;
        return 0;
    }
    if (rc < 0 && c->rq.update) {
        tsd_info("check %s: update overwrites an unreadable file: %s", c->rq.name, why.message);
        in->state = TS_CHECK_UNREADABLE;
        return 0;
    }
    if (rc == 0) {
        in->state = ts_check_state_of(*snap);
        in->snapshot = *snap;
    }
    return rc;
}

/* The check that made its store's root: its message names the other stores
 * of the repository (a second store above or below one that exists, e.g.
 * tests run from a subdirectory), once. Pool thread. */
static void note_new_store(check_job *c)
{
    const char *root = ts_store_root(c->st->store);
    ts_project_stores others;
    ts_error err;
    ts_buf b;

    if (ts_project_other_stores(root, 3, &others, &err) < 0 || others.n == 0)
        return;
    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ts_buf_appendf(&b,
                   "%s; warning: this made a second snapshot store in the repository, %s, "
                   "beside ",
                   c->out.message, root);
    for (size_t i = 0; i < others.n; i++)
        ts_buf_appendf(&b, "%s%s", i > 0 ? ", " : "", others.paths[i]);
    if (others.more)
        ts_buf_appends(&b, " and more");
    tsd_info("store %s made; the repository has others, first %s", root, others.paths[0]);
    if (ts_buf_error(&b) == 0) {
        free(c->out.message);
        c->out.message = ts_buf_detach(&b, NULL);
    }
    ts_buf_free(&b);
    ts_project_stores_free(&others);
}

static void check_work(tsd_job *job)
{
    check_job *c = (check_job *)job;
    const ts_check_decision *d = &c->out.decision;
    ts_snapshot *snap = NULL;
    ts_check_input in;
    int rc = 0;

    if (c->calls == NULL) { /* else extracted (and redacted) on the loop already */
        rc =
            tsd_observed_calls(c->rq.actual, c->rq.format, TS_EXTRACT_RESPONSE, &c->calls, &c->err);
        if (rc == 0)
            rc = redact_calls(c, &c->err);
    }
    if (rc == 0) {
        tsd_check_input(&c->rq, c->file, c->rules, c->calls, &in);
        ts_check_decide(&in, &c->out.decision);
    }
    if (rc == 0 && d->step == TS_CHECK_READ)
        rc = read_snapshot(c, &in, &snap);
    if (rc == 0)
        rc = tsd_check_settle(&c->rq, &in, NULL, c->redacted, &c->out, &c->err);
    /* the first write of a store not on disk yet: its lock first */
    if (rc == 0 && d->write)
        rc = tsd_store_lock_for_write(&c->sn->stores, c->st, &c->busy, &c->err);
    if (rc == 0 && d->write)
        rc = tsd_save(c->st->store, c->rq.name, c->calls, c->rq.source, d->approved, d->may_exist,
                      &c->job, &c->err);
    c->out.written = rc == 0 && d->write;
    if (c->out.written && ts_store_take_root_made(c->st->store))
        note_new_store(c);
    if (rc == 0) {
        prepare_keep(c, snap, false);
        keep_files(c);
    }
    /* The run's record of large calls is prepared here, off the loop. */
    if (rc == 0 && c->rq.run != NULL)
        tsd_run_observe(&c->obs, c->calls, c->out.report,
                        d->outcome == TS_CHECK_FAILED && snap != NULL ? snap->calls : NULL,
                        ts_rules_object(c->rules), NULL);
    ts_snapshot_free(snap);
    c->rc = rc;
}

/* ---- on the loop thread ------------------------------------------------- */

/* The raw value of "actual" (required), decoding it into the params when
 * the decoder left it as bytes. Loop thread, while dispatch runs. */
static int take_actual(check_job *c, ts_error *err)
{
    tsd_params p;
    int rc;

    if (c->rq.actual != NULL)
        return 0;
    rc = tsd_request_expand_raw(c->req, err);
    if (rc < 0)
        return rc;
    tsd_params_init(&p, tsd_request_params(c->req), err);
    c->rq.actual = tsd_params_value(&p, "actual");
    return tsd_params_error(&p);
}

/* The raw value of "actual" when it may be the baseline's own bytes (no
 * format but "auto" asked for), else NULL. */
static const void *raw_auto(const check_job *c, size_t *len)
{
    if (c->rq.format != NULL && strcmp(c->rq.format, "auto") != 0)
        return NULL;
    return tsd_request_raw(c->req, len);
}

/*
 * The observed calls of a loop replay of snap: the snapshot's own when the
 * client sent their bytes (*known then holds their score against
 * themselves when snap is approved), else the raw value decoded, extracted
 * and validated. 1 when the replay is too much for the loop (the calls are
 * kept in c for the pool).
 */
static int loop_calls(check_job *c, const ts_snapshot *snap, ts_score_result *known,
                      bool *have_known)
{
    size_t len = 0;
    const void *raw = raw_auto(c, &len);
    int rc;

    *have_known = false;
    if (raw != NULL && tsd_snapcache_same_calls(&c->st->cache, c->rq.name, raw, len)) {
        tsd_debug("check %s: the observed calls are the baseline's own bytes", c->rq.name);
        if (!snap->approved) {
            c->calls = json_object_get(snap->calls);
            return redact_calls(c, &c->err); /* as observed calls are */
        }
        /* the calls redacted, their score and what the rules did: all kept
         * in the cache for these rules */
        rc = tsd_snapcache_self_score(&c->st->cache, c->rq.name, &c->rq.score, c->rules, known,
                                      &c->out.scored_packed, &c->out.rules_packed, &c->calls,
                                      &c->err);
        *have_known = rc == 0;
        return rc;
    }
    rc = take_actual(c, &c->err);
    if (rc == 0)
        rc =
            tsd_observed_calls(c->rq.actual, c->rq.format, TS_EXTRACT_RESPONSE, &c->calls, &c->err);
    if (rc == 0)
        rc = redact_calls(c, &c->err);
    if (rc == 0 && json_object_array_length(c->calls) > TSD_LOOP_MAX_CALLS)
        return 1;
    return rc;
}

/* Queue c as a pool job of its file doing work. */
static void submit(check_job *c, void (*work)(tsd_job *job))
{
    c->job.loop = c->sn->loop;
    c->job.queue = &c->st->jobs;
    c->job.key = c->file; /* two names never share a file, but key what is written */
    c->job.on_pool = true;
    c->job.work_fn = work;
    c->job.done_fn = check_done;
    tsd_jobs_submit(&c->job);
}

/* The end of a check answered on the loop with snap (rc: how settling
 * went): answered now, or by a job of its file writing or dropping its
 * observation (c is the job's then). True. */
static bool finish_on_loop(check_job *c, const ts_snapshot *snap, int rc)
{
    c->baseline = json_object_get(snap->calls);
    c->rc = rc;
    if (rc == 0) {
        prepare_keep(c, snap, true);
        if (c->keep != NULL || (c->out.decision.keep == TS_CHECK_KEEP_DROP &&
                                tsd_obs_has(&c->st->obs, tsd_obs_file_of(c->file)))) {
            submit(c, keep_work);
            return true;
        }
    }
    check_done(&c->job);
    return true;
}

/*
 * Steps 3 and 4 of the plan for snap, found in the cache just now: true
 * when the check was answered, or is finished by a job of its file writing
 * or dropping its observation (c is the job's then), false when it goes to
 * the pool (what it extracted kept in c).
 */
static bool answer_on_loop(check_job *c, const ts_snapshot *snap)
{
    ts_score_result known;
    ts_check_input in;
    bool have_known;
    int rc = loop_calls(c, snap, &known, &have_known);

    if (rc > 0)
        return false;
    if (rc == 0) {
        tsd_check_input(&c->rq, c->file, c->rules, c->calls, &in);
        in.state = ts_check_state_of(snap);
        in.snapshot = snap;
        rc = tsd_check_settle(&c->rq, &in, have_known ? &known : NULL, c->redacted, &c->out,
                              &c->err);
    }
    c->slim_after = have_known;
    return finish_on_loop(c, snap, rc);
}

/*
 * Steps 3 and 4 for snap's slim entry (snapshots_internal.h): the replay of
 * the bytes it was slimmed for, under the same options and rules, passes
 * with the kept score and text (true: answered); anything else goes the
 * usual way (false, nothing kept in c).
 */
static bool answer_slim(check_job *c, const ts_snapshot *snap)
{
    size_t len = 0;
    const void *raw = raw_auto(c, &len);
    tsd_snapcache_text text;
    ts_score_result known;
    ts_check_input in;
    int rc;

    if (raw == NULL ||
        tsd_snapcache_known(&c->st->cache, c->rq.name, raw, len, &c->rq.score, c->rules, &known,
                            &c->out.scored_packed, &c->out.rules_packed, &text) < 0)
        return false;
    tsd_debug("check %s: the observed calls are the baseline's own bytes (slim)", c->rq.name);
    /* the run's record: the calls' text is the cache's */
    rc = c->rq.run != NULL ? tsd_run_observe_text(&c->obs, text.text, text.len, text.id, NULL, NULL,
                                                  ts_rules_object(c->rules), &c->err)
                           : 0;
    if (rc < 0) {
        ts_score_result_free(&known);
        return finish_on_loop(c, snap, rc);
    }
    tsd_check_input(&c->rq, c->file, c->rules, NULL, &in);
    in.state = TS_CHECK_APPROVED;
    in.snapshot = snap;
    rc = tsd_check_settle(&c->rq, &in, &known, c->redacted, &c->out, &c->err);
    return finish_on_loop(c, snap, rc);
}

/* Step 2 the quick way: the store open under this very key, nothing of the
 * file queued, and name's snapshot cached and unchanged (one lstat of its
 * path, no lookup of the store; *slim: its entry is slim); the file's path
 * into c. NULL otherwise. */
static const ts_snapshot *cached_quick(check_job *c, bool *slim)
{
    const ts_snapshot *snap = NULL;
    int rc;

    c->st = tsd_stores_peek(&c->sn->stores, c->rq.store);
    if (c->st == NULL || !tsd_snapcache_path(&c->st->cache, c->rq.name, c->file, sizeof(c->file)))
        return NULL;
    if (!tsd_jobs_idle(&c->st->jobs, c->file))
        return NULL;
    rc = tsd_snapcache_load_quick(&c->st->cache, c->rq.name, &snap);
    *slim = rc == 1;
    return rc < 0 ? NULL : snap;
}

/* Step 2 the usual way, after the store lookup: name's small snapshot
 * through the cache, or NULL for the pool (a job of the file queued, a
 * creation, a large or unreadable file: the pool reads it and says why). */
static const ts_snapshot *cached_snapshot(check_job *c)
{
    const ts_snapshot *snap = NULL;
    ts_error ignored;

    if (!tsd_jobs_idle(&c->st->jobs, c->file) ||
        tsd_snapcache_load(&c->st->cache, c->st->store, c->rq.name, TSD_LOOP_MAX_BYTES, &snap,
                           &ignored) < 0)
        return NULL;
    return snap;
}

/* The store and the snapshot's file, the usual way. */
static int find_store(check_job *c, ts_error *err)
{
    int rc = tsd_stores_get(&c->sn->stores, c->rq.store, &c->st, err);

    if (rc == 0 && !tsd_snapcache_path(&c->st->cache, c->rq.name, c->file, sizeof(c->file)))
        rc = ts_store_path(c->st->store, c->rq.name, c->file, sizeof(c->file), err);
    return rc;
}

/*
 * Steps 1 to 4 of the plan: 1 when the check was answered on the loop (c
 * is freed), 0 when it goes to the pool (store and file found, what was
 * extracted kept in c), or a negative code of the store lookup.
 */
static int try_loop(check_job *c, ts_error *err)
{
    bool may = !c->rq.update && tsd_request_payload_len(c->req) <= TSD_LOOP_MAX_BYTES;
    bool slim = false;
    const ts_snapshot *snap = may ? cached_quick(c, &slim) : NULL;
    int rc;

    if (snap == NULL) {
        rc = find_store(c, err);
        if (rc < 0)
            return rc;
    }
    rc = check_rules(c, err);
    if (rc < 0)
        return rc;
    if (slim && answer_slim(c, snap))
        return 1;
    if (snap == NULL || slim) /* a slim entry's file is read again */
        snap = may ? cached_snapshot(c) : NULL;
    return snap != NULL && answer_on_loop(c, snap) ? 1 : 0;
}

/* A check that parses a large baseline or large observed calls is heavy
 * (server.h), its memory estimated: one stat of the file, for a check going
 * to the pool. Refused when the budget can never hold it. */
static int weigh_check(check_job *c, ts_error *err)
{
    struct stat st;
    size_t file = stat(c->file, &st) == 0 ? (size_t)st.st_size : 0;

    if (tsd_request_payload_len(c->req) <= TSD_JOBS_HEAVY_BYTES && file <= TSD_JOBS_HEAVY_BYTES)
        return 0;
    c->job.heavy = true;
    c->job.estimate = file * TSD_JOBS_PARSED_FACTOR + tsd_request_payload_len(c->req) * 4;
    return tsd_server_refuse_heavy(c->sn->server, c->job.estimate, "this check", err);
}

/* A new check of req, everything before its buffers zeroed. */
static check_job *check_new(tsd_snapshots *sn, tsd_request *req)
{
    check_job *c = malloc(sizeof(*c));

    if (c == NULL)
        return NULL;
    memset(c, 0, offsetof(check_job, file));
    c->file[0] = '\0';
    ts_error_clear(&c->err);
    ts_error_clear(&c->keep_err);
    c->sn = sn;
    c->req = req;
    c->out.score = -1;
    ts_buf_init(&c->out.scored_packed, TS_BUF_UNLIMITED);
    ts_buf_init(&c->out.rules_packed, TS_BUF_UNLIMITED);
    return c;
}

int tsd_check(void *state, tsd_request *req, const struct json_object *params,
              struct json_object **result, ts_error *err)
{
    tsd_snapshots *sn = state;
    check_job *c = check_new(sn, req);
    size_t raw_len;
    int rc;

    (void)result;
    if (c == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    rc = tsd_check_parse(params, tsd_request_raw(req, &raw_len) != NULL, &c->rq, err);
    if (rc == 0)
        rc = find_run(sn, c->rq.run, err);
    /* a run unknown here, of a store another daemon holds: the run is that
     * daemon's (a client sent to it by store_busy, whose workers started
     * here first): store_busy sends the check there, run and all */
    if (rc == -ENOENT) {
        ts_error busy;

        if (find_store(c, &busy) < 0 && strcmp(busy.code, TS_ERR_STORE_BUSY) == 0) {
            *err = busy;
            rc = -EBUSY;
        }
    }
    if (rc == 0)
        rc = try_loop(c, err);
    if (rc > 0)
        return TSD_ASYNC;
    if (rc == 0 && c->calls == NULL)
        rc = take_actual(c, err); /* its bytes live only while dispatch runs */
    if (rc == 0)
        rc = weigh_check(c, err);
    if (rc < 0) {
        check_free(c);
        return rc;
    }
    submit(c, check_work);
    return TSD_ASYNC;
}
