/*
 * test_check — the snapshot state machine, approval, trace import and the
 * racy-timestamp rule (lib/check/ts_check.c).
 *
 * Every row of docs/snapshots.md's state table is driven as the daemon
 * drives it (decide, read, decide, evaluate, decide), and every outcome
 * message is compared with the exact text users see; so are what becomes of
 * the kept observation, the pending-differs warning, an update that finds
 * its calls already approved, and what accept and reject do.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lib/check/ts_check.h"
#include "lib/json/ts_json.h"
#include "lib/score/ts_score.h"
#include "lib/snapshot/ts_snapshot.h"
#include "util_test.h"

typedef struct flags {
    bool ci, update, allow_pending;
} flags;

/* A snapshot argument of run_check meaning "a file that is no snapshot". */
static const ts_snapshot unreadable_file;
#define UNREADABLE (&unreadable_file)

/* A check's run to DONE as the daemon does it: snapshot NULL is a missing
 * file; calls are scored against it when the machine asks. Returns the
 * decision; *message is the outcome's message (freed by the caller). */
static ts_check_decision run_check(const char *name, flags f, const ts_snapshot *snapshot,
                                   struct json_object *calls, char **message, int *reads,
                                   int *evaluations)
{
    ts_score_options opt;
    ts_score_result score;
    ts_check_input in;
    ts_check_decision d;
    ts_error err;
    bool scored = false;

    ts_score_options_default(&opt);
    ts_check_input_init(&in, name, &opt);
    in.ci = f.ci;
    in.update = f.update;
    in.allow_pending = f.allow_pending;
    in.calls = calls;
    *reads = *evaluations = 0;
    for (ts_check_decide(&in, &d); d.step != TS_CHECK_DONE; ts_check_decide(&in, &d)) {
        if (d.step == TS_CHECK_READ) {
            ck_assert_int_eq(*reads, 0);
            (*reads)++;
            in.state = snapshot == UNREADABLE ? TS_CHECK_UNREADABLE : ts_check_state_of(snapshot);
            in.snapshot = snapshot == UNREADABLE ? NULL : snapshot;
        } else {
            ck_assert_int_eq(d.step, TS_CHECK_EVALUATE);
            ck_assert_int_eq(*evaluations, 0);
            (*evaluations)++;
            ck_assert_int_eq(ts_check_evaluate(&in, &score, NULL, &err), 0);
            in.score = &score;
            scored = true;
        }
    }
    *message = ts_check_message(&in, &d);
    ck_assert_ptr_nonnull(*message);
    if (scored)
        ts_score_result_free(&score);
    return d;
}

static ts_snapshot *snapshot_of(const char *name, const char *letters, bool approved)
{
    struct json_object *calls = util_calls_of_letters(letters);
    ts_snapshot *s = NULL;
    ts_error err;

    ck_assert_int_eq(ts_snapshot_new(name, calls, "pytest", &s, &err), 0);
    json_object_put(calls);
    s->approved = approved;
    return s;
}

static void assert_outcome(ts_check_decision d, ts_check_outcome outcome, const char *name)
{
    ck_assert_int_eq(d.step, TS_CHECK_DONE);
    ck_assert_int_eq(d.outcome, outcome);
    ck_assert_str_eq(ts_check_outcome_name(d.outcome), name);
}

START_TEST(missing_locally_creates_unapproved)
{
    struct json_object *calls = util_calls_of_letters("ab");
    char *msg;
    int reads, evals;
    ts_check_decision d = run_check("t::a", (flags){0}, NULL, calls, &msg, &reads, &evals);

    assert_outcome(d, TS_CHECK_CREATED, "CREATED");
    ck_assert(d.write);
    ck_assert(!d.approved);
    ck_assert(!d.may_exist); /* the read found no file: no created_at to keep */
    ck_assert(!d.evaluated);
    ck_assert_int_eq(d.keep, TS_CHECK_KEEP_DROP); /* an observation of a removed file is stale */
    ck_assert_int_eq(reads, 1);
    ck_assert_int_eq(evals, 0);
    ck_assert_str_eq(
        msg, "snapshot 't::a' created - review it, then approve with `tsctl approve 't::a'`");
    free(msg);
    json_object_put(calls);
}
END_TEST

START_TEST(missing_in_ci_writes_nothing)
{
    struct json_object *calls = util_calls_of_letters("ab");
    char *msg;
    int reads, evals;
    ts_check_decision d = run_check("t::a", (flags){.ci = true}, NULL, calls, &msg, &reads, &evals);

    assert_outcome(d, TS_CHECK_ERROR_MISSING_IN_CI, "ERROR_MISSING_IN_CI");
    ck_assert(!d.write);
    ck_assert(!d.evaluated);
    ck_assert_int_eq(d.keep, TS_CHECK_KEEP_NONE);
    ck_assert_str_eq(msg, "snapshot 't::a' does not exist; snapshots cannot be created in CI. Run "
                          "the test locally to record it, then accept it with `tsctl accept "
                          "'t::a'` (or review everything with `tsctl review`).");
    free(msg);
    json_object_put(calls);
}
END_TEST

START_TEST(missing_in_ci_with_allow_pending_creates)
{
    struct json_object *calls = util_calls_of_letters("a");
    char *msg;
    int reads, evals;
    ts_check_decision d = run_check("n", (flags){.ci = true, .allow_pending = true}, NULL, calls,
                                    &msg, &reads, &evals);

    assert_outcome(d, TS_CHECK_CREATED, "CREATED");
    ck_assert(d.write);
    ck_assert(!d.approved);
    free(msg);
    json_object_put(calls);
}
END_TEST

START_TEST(pending_is_never_evaluated)
{
    ts_snapshot *snap = snapshot_of("p", "ab", false);
    struct json_object *calls = util_calls_of_letters("xyz"); /* would fail if scored */
    char *msg;
    int reads, evals;
    ts_check_decision d = run_check("p", (flags){0}, snap, calls, &msg, &reads, &evals);

    assert_outcome(d, TS_CHECK_PENDING, "PENDING");
    ck_assert(!d.write);
    ck_assert(!d.evaluated);
    ck_assert_int_eq(evals, 0);
    ck_assert(d.differs);
    ck_assert_int_eq(d.keep, TS_CHECK_KEEP_WRITE);
    ck_assert_str_eq(msg, "snapshot 'p' pending approval; the calls observed now differ from the "
                          "recording - `tsctl accept 'p'` records them");
    free(msg);
    d = run_check("p", (flags){.ci = true, .allow_pending = true}, snap, calls, &msg, &reads,
                  &evals);
    assert_outcome(d, TS_CHECK_PENDING, "PENDING");
    free(msg);
    d = run_check("p", (flags){.ci = true}, snap, calls, &msg, &reads, &evals);
    assert_outcome(d, TS_CHECK_ERROR_PENDING_IN_CI, "ERROR_PENDING_IN_CI");
    ck_assert(!d.write);
    ck_assert_int_eq(evals, 0);
    ck_assert_int_eq(d.keep, TS_CHECK_KEEP_NONE); /* CI keeps nothing for review */
    ck_assert_str_eq(msg, "snapshot 'p' is pending approval; an unapproved snapshot cannot be used "
                          "as a baseline in CI. Accept it locally with `tsctl accept 'p'` (or "
                          "review everything with `tsctl review`).");
    free(msg);
    json_object_put(calls);
    ts_snapshot_free(snap);
}
END_TEST

START_TEST(approved_passes_or_fails_by_score)
{
    ts_snapshot *snap = snapshot_of("b", "ab", true);
    struct json_object *same = util_calls_of_letters("ab");
    struct json_object *other = util_calls_of_letters("ba");
    flags modes[] = {{0}, {.ci = true}, {.ci = true, .allow_pending = true}};
    char *msg;
    int reads, evals;

    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        ts_check_decision d = run_check("b", modes[i], snap, same, &msg, &reads, &evals);

        assert_outcome(d, TS_CHECK_PASSED, "PASSED");
        ck_assert(d.evaluated);
        ck_assert(!d.report);
        ck_assert(!d.write);
        ck_assert_int_eq(d.keep, TS_CHECK_KEEP_DROP); /* superseded by a passing check */
        ck_assert_int_eq(evals, 1);
        ck_assert_str_eq(msg, "snapshot 'b' matches its approved baseline (score 1.00)");
        free(msg);
        d = run_check("b", modes[i], snap, other, &msg, &reads, &evals);
        assert_outcome(d, TS_CHECK_FAILED, "FAILED");
        ck_assert(d.evaluated);
        ck_assert(d.report);
        ck_assert(!d.write);
        ck_assert_int_eq(d.keep, TS_CHECK_KEEP_WRITE);
        ck_assert_str_eq(msg, "snapshot 'b' drifted from its approved baseline "
                              "(score 0.80 < 1.00 required)");
        free(msg);
    }
    json_object_put(same);
    json_object_put(other);
    ts_snapshot_free(snap);
}
END_TEST

/* The commands in messages and a failure's last lines name the snapshot
 * quoted for a shell (lib/base's ts_shell); CREATED names its file. */
START_TEST(commands_name_the_snapshot_quoted)
{
    const char *name = "t.py::it's [Oslo] > x";
    ts_snapshot *snap = snapshot_of(name, "ab", true);
    struct json_object *other = util_calls_of_letters("ba");
    ts_score_options opt;
    ts_score_result score;
    ts_check_input in;
    ts_check_decision d;
    ts_buf b;
    char *msg;

    ts_score_options_default(&opt);
    ts_check_input_init(&in, name, &opt);
    in.file = "/p/.toolscore/snapshots/x.json";
    in.calls = other;
    in.state = TS_CHECK_MISSING;
    ts_check_decide(&in, &d);
    msg = ts_check_message(&in, &d);
    ck_assert_str_eq(msg, "snapshot 't.py::it's [Oslo] > x' created: "
                          "/p/.toolscore/snapshots/x.json - review it, then approve with "
                          "`tsctl approve 't.py::it'\\''s [Oslo] > x'`");
    free(msg);
    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_check_next_steps(&in, &d, &b), 0);
    ck_assert_uint_eq(b.len, 0); /* only a failure ends with them */

    in.state = TS_CHECK_APPROVED;
    in.snapshot = snap;
    ts_check_decide(&in, &d);
    ck_assert_int_eq(ts_check_evaluate(&in, &score, NULL, NULL), 0);
    in.score = &score;
    ts_check_decide(&in, &d);
    ck_assert_int_eq(d.outcome, TS_CHECK_FAILED);
    ck_assert_int_eq(ts_check_next_steps(&in, &d, &b), 0);
    ck_assert_str_eq(b.data, "To accept the observed calls:\n"
                             "  tsctl accept 't.py::it'\\''s [Oslo] > x'\n"
                             "To review everything:\n"
                             "  tsctl review\n");
    ts_buf_reset(&b);
    in.ci = true;
    ck_assert_int_eq(ts_check_next_steps(&in, &d, &b), 0);
    ck_assert_str_eq(b.data, "Run the test locally, then accept with:\n"
                             "  tsctl accept 't.py::it'\\''s [Oslo] > x'\n"
                             "To review everything:\n"
                             "  tsctl review\n");
    ts_buf_free(&b);
    ts_score_result_free(&score);
    json_object_put(other);
    ts_snapshot_free(snap);
}
END_TEST

/* A client whose user runs tsctl otherwise (npx, a venv not activated)
 * gets every printed command starting with its own words. */
START_TEST(commands_start_with_the_clients_tsctl)
{
    ts_snapshot *pending = snapshot_of("p", "ab", false);
    ts_snapshot *approved = snapshot_of("p", "ab", true);
    struct json_object *other = util_calls_of_letters("ba");
    ts_score_options opt;
    ts_score_result score;
    ts_check_input in;
    ts_check_decision d;
    ts_buf b;
    char *msg;

    ts_score_options_default(&opt);
    ts_check_input_init(&in, "p", &opt);
    in.tsctl = "'/my venv/bin/tsctl'";
    in.calls = other;
    in.state = TS_CHECK_MISSING;
    ts_check_decide(&in, &d);
    msg = ts_check_message(&in, &d);
    ck_assert_str_eq(msg, "snapshot 'p' created - review it, then approve with "
                          "`'/my venv/bin/tsctl' approve 'p'`");
    free(msg);

    in.tsctl = "npx tsctl";
    in.state = TS_CHECK_UNAPPROVED;
    in.snapshot = pending;
    ts_check_decide(&in, &d);
    msg = ts_check_message(&in, &d);
    ck_assert_str_eq(msg, "snapshot 'p' pending approval; the calls observed now differ from "
                          "the recording - `npx tsctl accept 'p'` records them");
    free(msg);
    in.ci = true;
    ts_check_decide(&in, &d);
    msg = ts_check_message(&in, &d);
    ck_assert_ptr_nonnull(strstr(msg, "Accept it locally with `npx tsctl accept 'p'` (or review "
                                      "everything with `npx tsctl review`)."));
    free(msg);
    in.state = TS_CHECK_MISSING;
    in.snapshot = NULL;
    ts_check_decide(&in, &d);
    msg = ts_check_message(&in, &d);
    ck_assert_ptr_nonnull(strstr(msg, "then accept it with `npx tsctl accept 'p'` (or review "
                                      "everything with `npx tsctl review`)."));
    free(msg);

    in.ci = false;
    in.state = TS_CHECK_APPROVED;
    in.snapshot = approved;
    ts_check_decide(&in, &d);
    ck_assert_int_eq(ts_check_evaluate(&in, &score, NULL, NULL), 0);
    in.score = &score;
    ts_check_decide(&in, &d);
    ck_assert_int_eq(d.outcome, TS_CHECK_FAILED);
    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_check_next_steps(&in, &d, &b), 0);
    ck_assert_str_eq(b.data, "To accept the observed calls:\n"
                             "  npx tsctl accept 'p'\n"
                             "To review everything:\n"
                             "  npx tsctl review\n");
    ts_buf_free(&b);
    ts_score_result_free(&score);
    json_object_put(other);
    ts_snapshot_free(pending);
    ts_snapshot_free(approved);
}
END_TEST

START_TEST(update_reads_then_overwrites)
{
    ts_snapshot *pending = snapshot_of("u", "ab", false);
    ts_snapshot *approved = snapshot_of("u", "ab", true);
    const ts_snapshot *files[] = {pending, approved, NULL, UNREADABLE};
    struct json_object *calls = util_calls_of_letters("c");
    flags modes[] = {{.update = true}, {.update = true, .ci = true}};
    char *msg;
    int reads, evals;

    for (size_t i = 0; i < 2; i++) {
        for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
            ts_check_decision d = run_check("u", modes[i], files[f], calls, &msg, &reads, &evals);

            assert_outcome(d, TS_CHECK_UPDATED, "UPDATED");
            ck_assert(d.write);
            ck_assert(!d.unchanged);
            ck_assert(d.approved);
            ck_assert(d.may_exist == (files[f] != NULL)); /* keep an existing file's created_at */
            ck_assert(!d.evaluated);
            ck_assert_int_eq(d.keep, TS_CHECK_KEEP_DROP);
            ck_assert_int_eq(reads, 1);
            ck_assert_int_eq(evals, 0);
            ck_assert_str_eq(msg, "snapshot 'u' updated (calls overwritten and approved)");
            free(msg);
        }
    }
    json_object_put(calls);
    ts_snapshot_free(pending);
    ts_snapshot_free(approved);
}
END_TEST

START_TEST(update_of_approved_calls_writes_nothing)
{
    ts_snapshot *approved = snapshot_of("u", "ab", true);
    ts_snapshot *pending = snapshot_of("u", "ab", false);
    struct json_object *same = util_calls_of_letters("ab");
    char *msg;
    int reads, evals;
    ts_check_decision d =
        run_check("u", (flags){.update = true}, approved, same, &msg, &reads, &evals);

    assert_outcome(d, TS_CHECK_UPDATED, "UPDATED"); /* the outcome stays UPDATED */
    ck_assert(d.unchanged);
    ck_assert(!d.write);
    ck_assert(!d.evaluated);
    ck_assert_int_eq(d.keep, TS_CHECK_KEEP_DROP);
    ck_assert_str_eq(msg, "snapshot 'u' unchanged (its calls are already the approved ones)");
    free(msg);
    /* the same calls pending: the update approves them, so it writes */
    d = run_check("u", (flags){.update = true}, pending, same, &msg, &reads, &evals);
    ck_assert(d.write && d.approved && !d.unchanged);
    free(msg);
    json_object_put(same);
    ts_snapshot_free(approved);
    ts_snapshot_free(pending);
}
END_TEST

START_TEST(pending_with_the_recorded_calls_drops_the_observation)
{
    ts_snapshot *snap = snapshot_of("p", "ab", false);
    struct json_object *same = util_calls_of_letters("ab");
    char *msg;
    int reads, evals;
    ts_check_decision d = run_check("p", (flags){0}, snap, same, &msg, &reads, &evals);

    assert_outcome(d, TS_CHECK_PENDING, "PENDING");
    ck_assert(!d.differs);
    ck_assert_int_eq(d.keep, TS_CHECK_KEEP_DROP);
    ck_assert_str_eq(
        msg, "snapshot 'p' pending approval - run `tsctl approve 'p'` to use it as a baseline");
    free(msg);
    d = run_check("p", (flags){.ci = true}, snap, same, &msg, &reads, &evals);
    ck_assert(!d.differs);
    free(msg);
    json_object_put(same);
    ts_snapshot_free(snap);
}
END_TEST

START_TEST(an_unreadable_file_is_left_to_the_caller)
{
    struct json_object *calls = util_calls_of_letters("a");
    ts_check_input in;
    ts_check_decision d;
    ts_score_options opt;

    ts_score_options_default(&opt);
    ts_check_input_init(&in, "x", &opt);
    in.calls = calls;
    in.state = TS_CHECK_UNREADABLE;
    ts_check_decide(&in, &d);
    ck_assert_int_eq(d.step, TS_CHECK_DONE);
    ck_assert_int_eq(d.outcome, TS_CHECK_NO_OUTCOME);
    ck_assert(!d.write);
    ck_assert_ptr_null(ts_check_message(&in, &d));
    json_object_put(calls);
}
END_TEST

/* ts_json_equal (ordered: ts_json_identical) on two JSON texts. */
static bool same_texts(const char *a, const char *b, bool ordered)
{
    struct json_object *x = NULL;
    struct json_object *y = NULL;
    bool eq;

    ck_assert_int_eq(ts_json_parse(a, strlen(a), 0, &x, NULL), 0);
    ck_assert_int_eq(ts_json_parse(b, strlen(b), 0, &y, NULL), 0);
    eq = ordered ? ts_json_identical(x, y) : ts_json_equal(x, y);
    ck_assert(eq == (ordered ? ts_json_identical(y, x) : ts_json_equal(y, x)));
    if (ordered && eq)
        ck_assert(ts_json_equal(x, y));
    json_object_put(x);
    json_object_put(y);
    return eq;
}

static bool equal_texts(const char *a, const char *b)
{
    return same_texts(a, b, false);
}

START_TEST(calls_equal_is_exact_json)
{
    ck_assert(equal_texts("[{\"tool\":\"a\",\"args\":{\"x\":1,\"y\":[true,null,\"s\"]}}]",
                          "[{\"args\":{\"y\":[true,null,\"s\"],\"x\":1},\"tool\":\"a\"}]"));
    ck_assert(!equal_texts("[{\"tool\":\"a\",\"args\":{\"x\":1}}]",
                           "[{\"tool\":\"a\",\"args\":{\"x\":1.0}}]"));
    ck_assert(!equal_texts("[{\"tool\":\"a\",\"args\":{\"x\":0.0}}]",
                           "[{\"tool\":\"a\",\"args\":{\"x\":-0.0}}]"));
    ck_assert(!equal_texts("[{\"tool\":\"a\",\"args\":{\"x\":9223372036854775807}}]",
                           "[{\"tool\":\"a\",\"args\":{\"x\":9223372036854775808}}]"));
    ck_assert(!equal_texts("[{\"tool\":\"a\",\"args\":{\"x\":-1}}]",
                           "[{\"tool\":\"a\",\"args\":{\"x\":18446744073709551615}}]"));
    ck_assert(
        !equal_texts("[{\"tool\":\"a\"},{\"tool\":\"b\"}]", "[{\"tool\":\"b\"},{\"tool\":\"a\"}]"));
    ck_assert(!equal_texts("[{\"tool\":\"a\",\"args\":{}}]", "[{\"tool\":\"a\"}]"));
    ck_assert(!equal_texts("[{\"tool\":\"a\",\"args\":null}]", "[{\"tool\":\"a\",\"args\":{}}]"));
    ck_assert(!equal_texts("[{\"tool\":\"a\\u0000b\"}]", "[{\"tool\":\"a\"}]"));
    ck_assert(!equal_texts("[{\"tool\":\"a\",\"args\":{\"x\":\"1\"}}]",
                           "[{\"tool\":\"a\",\"args\":{\"x\":1}}]"));
    ck_assert(!equal_texts("[{\"tool\":\"a\",\"args\":{\"x\":[1]}}]",
                           "[{\"tool\":\"a\",\"args\":{\"x\":[1,1]}}]"));
    ck_assert(equal_texts("[]", "[]"));
    ck_assert(!equal_texts("[]", "[{\"tool\":\"a\"}]"));
}
END_TEST

/* Identical: equal and written the same, so object keys in the same order. */
START_TEST(identical_json_keeps_key_order)
{
    ck_assert(same_texts("{\"a\":1,\"b\":{\"c\":[1,{\"d\":2,\"e\":3}]}}",
                         "{\"a\":1,\"b\":{\"c\":[1,{\"d\":2,\"e\":3}]}}", true));
    ck_assert(!same_texts("{\"a\":1,\"b\":2}", "{\"b\":2,\"a\":1}", true));
    ck_assert(!same_texts("{\"b\":{\"c\":[{\"d\":2,\"e\":3}]}}",
                          "{\"b\":{\"c\":[{\"e\":3,\"d\":2}]}}", true));
    ck_assert(!same_texts("{\"a\":1}", "{\"a\":1.0}", true));
    ck_assert(!same_texts("{\"a\":1}", "{\"b\":1}", true));
    ck_assert(!same_texts("{\"a\":1}", "{\"a\":1,\"b\":2}", true));
    ck_assert(same_texts("[]", "[]", true));
}
END_TEST

START_TEST(a_known_score_skips_evaluation)
{
    ts_snapshot *snap = snapshot_of("k", "ab", true);
    ts_score_options opt;
    ts_score_result r;
    ts_check_input in;
    ts_check_decision d;
    ts_error err;
    char *msg;

    ts_score_options_default(&opt);
    ts_check_input_init(&in, "k", &opt);
    in.state = ts_check_state_of(snap);
    in.snapshot = snap;
    in.calls = snap->calls;
    ts_check_decide(&in, &d);
    ck_assert_int_eq(d.step, TS_CHECK_EVALUATE);
    ck_assert_ptr_null(ts_check_message(&in, &d)); /* not decided yet */
    ck_assert_int_eq(ts_check_evaluate(&in, &r, NULL, &err), 0);
    r.passed = false; /* the outcome follows the score it is given */
    r.score = 0.5;
    in.score = &r;
    ts_check_decide(&in, &d);
    ck_assert_int_eq(d.outcome, TS_CHECK_FAILED);
    msg = ts_check_message(&in, &d);
    ck_assert_str_eq(msg, "snapshot 'k' drifted from its approved baseline "
                          "(score 0.50 < 1.00 required)");
    free(msg);
    ts_score_result_free(&r);
    ts_snapshot_free(snap);
}
END_TEST

START_TEST(evaluate_needs_both_lists)
{
    ts_score_options opt;
    ts_score_result r;
    ts_check_input in;
    ts_error err;

    ts_score_options_default(&opt);
    ts_check_input_init(&in, "e", &opt);
    ck_assert_int_eq(ts_check_evaluate(&in, &r, NULL, &err), -EINVAL);
    ck_assert_str_eq(err.code, TS_ERR_INTERNAL);
}
END_TEST

START_TEST(outcome_names_round_trip)
{
    const char *names[] = {"CREATED",
                           "UPDATED",
                           "PENDING",
                           "PASSED",
                           "FAILED",
                           "ERROR_MISSING_IN_CI",
                           "ERROR_PENDING_IN_CI"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        ts_check_outcome o = ts_check_outcome_parse(names[i]);

        ck_assert_int_ne(o, TS_CHECK_NO_OUTCOME);
        ck_assert_str_eq(ts_check_outcome_name(o), names[i]);
    }
    ck_assert_int_eq(ts_check_outcome_parse("passed"), TS_CHECK_NO_OUTCOME);
    ck_assert_int_eq(ts_check_outcome_parse(""), TS_CHECK_NO_OUTCOME);
    ck_assert_int_eq(ts_check_outcome_parse(NULL), TS_CHECK_NO_OUTCOME);
    ck_assert_str_eq(ts_check_outcome_name(TS_CHECK_NO_OUTCOME), "");
    ck_assert_str_eq(ts_check_outcome_name((ts_check_outcome)99), "");
}
END_TEST

START_TEST(approve_changes_only_pending)
{
    ts_snapshot *pending = snapshot_of("a", "a", false);
    ts_snapshot *approved = snapshot_of("b", "b", true);
    char before[TS_TIMESTAMP_MAX];
    ts_error err;
    bool write = true;

    ck_assert(ts_check_approve_selects(pending));
    ck_assert(!ts_check_approve_selects(approved));
    memcpy(before, approved->updated_at, sizeof(before));
    ck_assert_int_eq(ts_check_approve(approved, &write, &err), 0);
    ck_assert(!write);
    ck_assert(approved->approved);
    ck_assert_str_eq(approved->updated_at, before);
    strcpy(pending->updated_at, "2020-01-01T00:00:00.000000+00:00");
    ck_assert_int_eq(ts_check_approve(pending, &write, &err), 0);
    ck_assert(write);
    ck_assert(pending->approved);
    ck_assert_str_ne(pending->updated_at, "2020-01-01T00:00:00.000000+00:00");
    ck_assert(!ts_check_approve_selects(pending));
    ts_snapshot_free(pending);
    ts_snapshot_free(approved);
}
END_TEST

START_TEST(record_rules)
{
    ts_snapshot *approved = snapshot_of("r", "ab", true);
    ts_snapshot *pending = snapshot_of("r", "ab", false);
    struct json_object *calls = util_calls_of_letters("ab");
    struct json_object *other = util_calls_of_letters("c");
    ts_check_decision d;
    ts_error err;

    ck_assert_int_eq(ts_check_record("r", "/s/r-1.json", false, NULL, calls, false, &d, &err), 0);
    assert_outcome(d, TS_CHECK_CREATED, "CREATED");
    ck_assert(d.write && !d.approved && !d.may_exist);
    ck_assert_int_eq(d.keep, TS_CHECK_KEEP_DROP);
    ck_assert_int_eq(ts_check_record("r", "/s/r-1.json", false, NULL, calls, true, &d, &err), 0);
    assert_outcome(d, TS_CHECK_UPDATED, "UPDATED");
    ck_assert(d.write && d.approved && !d.may_exist);
    ck_assert_int_eq(ts_check_record("r", "/s/r-1.json", true, NULL, calls, true, &d, &err), 0);
    assert_outcome(d, TS_CHECK_UPDATED, "UPDATED");
    ck_assert(d.write && d.approved && d.may_exist); /* unreadable: overwritten */
    ck_assert_int_eq(ts_check_record("r", "/s/r-1.json", true, approved, other, true, &d, &err), 0);
    ck_assert(d.write && !d.unchanged);
    ck_assert_int_eq(ts_check_record("r", "/s/r-1.json", true, pending, calls, true, &d, &err), 0);
    ck_assert(d.write && d.approved && !d.unchanged); /* the update approves */
    ck_assert_int_eq(ts_check_record("r", "/s/r-1.json", true, approved, calls, true, &d, &err), 0);
    assert_outcome(d, TS_CHECK_UPDATED, "UPDATED");
    ck_assert(!d.write && d.unchanged); /* already the approved calls: nothing written */
    ck_assert_int_eq(d.keep, TS_CHECK_KEEP_DROP);
    ck_assert_int_eq(ts_check_record("r", "/s/r-1.json", true, approved, calls, false, &d, &err),
                     -EEXIST);
    ck_assert(!d.write);
    ck_assert_str_eq(err.code, TS_ERR_EXISTS);
    ck_assert_str_eq(err.message, "snapshot 'r' already exists (/s/r-1.json); record with update "
                                  "to overwrite and approve it");
    json_object_put(calls);
    json_object_put(other);
    ts_snapshot_free(approved);
    ts_snapshot_free(pending);
}
END_TEST

START_TEST(accept_and_reject_rules)
{
    ts_snapshot *approved = snapshot_of("a", "ab", true);
    ts_snapshot *pending = snapshot_of("p", "ab", false);
    ts_check_reject_plan plan;

    /* a kept observation against the calls on disk now: written approved */
    ck_assert_int_eq(ts_check_accept(approved, true, true), TS_CHECK_ACCEPT_OBSERVED);
    ck_assert_int_eq(ts_check_accept(pending, true, true), TS_CHECK_ACCEPT_OBSERVED);
    /* the snapshot changed or went away since: superseded, nothing written */
    ck_assert_int_eq(ts_check_accept(approved, true, false), TS_CHECK_ACCEPT_SUPERSEDED);
    ck_assert_int_eq(ts_check_accept(NULL, true, true), TS_CHECK_ACCEPT_SUPERSEDED);
    /* nothing kept: a pending snapshot is approved as recorded */
    ck_assert_int_eq(ts_check_accept(pending, false, false), TS_CHECK_ACCEPT_RECORDING);
    ck_assert_int_eq(ts_check_accept(approved, false, false), TS_CHECK_ACCEPT_NOTHING);
    ck_assert_int_eq(ts_check_accept(NULL, false, false), TS_CHECK_ACCEPT_UNKNOWN);

    plan = ts_check_reject(pending, true);
    ck_assert(plan.known && plan.remove_snapshot && plan.drop_observation);
    plan = ts_check_reject(pending, false);
    ck_assert(plan.known && plan.remove_snapshot && !plan.drop_observation);
    plan = ts_check_reject(approved, true); /* the approved baseline stays */
    ck_assert(plan.known && !plan.remove_snapshot && plan.drop_observation);
    plan = ts_check_reject(approved, false);
    ck_assert(plan.known && !plan.remove_snapshot && !plan.drop_observation);
    plan = ts_check_reject(NULL, true);
    ck_assert(plan.known && !plan.remove_snapshot && plan.drop_observation);
    plan = ts_check_reject(NULL, false);
    ck_assert(!plan.known);
    ts_snapshot_free(approved);
    ts_snapshot_free(pending);
}
END_TEST

START_TEST(racy_stamps_are_not_trusted)
{
    const int64_t read = 100 * 1000000000LL;
    const int64_t m = TS_CHECK_RACY_NS;

    ck_assert(ts_check_stamp_trusted(read - m - 1, read - m - 1, read, m));
    ck_assert(!ts_check_stamp_trusted(read - m, read - m - 1, read, m)); /* mtime on the edge */
    ck_assert(!ts_check_stamp_trusted(read - m - 1, read - m, read, m)); /* ctime on the edge */
    ck_assert(!ts_check_stamp_trusted(read, read, read, m));
    ck_assert(!ts_check_stamp_trusted(read + 5, read - m - 1, read, m)); /* written after */
    ck_assert(ts_check_stamp_trusted(read - 1, read - 1, read, 0));
    ck_assert(!ts_check_stamp_trusted(read, read - 1, read, 0));
    ck_assert_int_ge(TS_CHECK_RACY_NS, 2 * 1000000000LL); /* covers 1-2 s timestamp ticks */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("check");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, missing_locally_creates_unapproved);
    tcase_add_test(tc, missing_in_ci_writes_nothing);
    tcase_add_test(tc, missing_in_ci_with_allow_pending_creates);
    tcase_add_test(tc, pending_is_never_evaluated);
    tcase_add_test(tc, approved_passes_or_fails_by_score);
    tcase_add_test(tc, commands_name_the_snapshot_quoted);
    tcase_add_test(tc, commands_start_with_the_clients_tsctl);
    tcase_add_test(tc, update_reads_then_overwrites);
    tcase_add_test(tc, update_of_approved_calls_writes_nothing);
    tcase_add_test(tc, pending_with_the_recorded_calls_drops_the_observation);
    tcase_add_test(tc, an_unreadable_file_is_left_to_the_caller);
    tcase_add_test(tc, calls_equal_is_exact_json);
    tcase_add_test(tc, identical_json_keeps_key_order);
    tcase_add_test(tc, a_known_score_skips_evaluation);
    tcase_add_test(tc, evaluate_needs_both_lists);
    tcase_add_test(tc, outcome_names_round_trip);
    tcase_add_test(tc, approve_changes_only_pending);
    tcase_add_test(tc, record_rules);
    tcase_add_test(tc, accept_and_reject_rules);
    tcase_add_test(tc, racy_stamps_are_not_trusted);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
