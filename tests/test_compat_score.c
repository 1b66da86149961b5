/*
 * test_compat_score — differential test vectors for numbers and text shown
 * to users: scores and repr() against CPython (docs/internals/compat.md).
 *
 *   scores.jsonl   call lists, options and every metric of docs/scoring.md, by a
 *                  Python transcription of docs/scoring.md (and inputs it refuses);
 *   printable.txt  which assigned code points repr() prints or escapes;
 *   repr.vec       repr() of json.vec documents.
 * Numbers within 1e-12, grades, pass flags, counts, lists and text exact.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/extract/ts_extract.h"
#include "lib/json/ts_json.h"
#include "lib/report/ts_report.h"
#include "lib/score/ts_score.h"
#include "util_test.h"
#include "util_vectors.h"

#define TOLERANCE 1e-12

/* ---- (c) scoring -------------------------------------------------------- */

/* The "result" array of scores.jsonl, in this order. */
static const char *const result_keys[] = {
    "score",
    "grade",
    "passed",
    "invocation_accuracy",
    "selection_accuracy",
    "argument_precision",
    "argument_recall",
    "argument_f1",
    "edit_distance",
    "normalized_distance",
    "sequence_accuracy",
    "redundant_count",
    "total_calls",
    "redundant_rate",
    "tool_correctness",
    "trajectory_accuracy",
    "step_match_rate",
    "path_efficiency",
    "expected_tools",
    "called_tools",
    "missing_tools",
    "extra_tools",
};

#define N_RESULT_KEYS (sizeof(result_keys) / sizeof(result_keys[0]))

static double metric(const ts_score_result *r, const char *key)
{
    const struct {
        const char *key;
        double value;
    } table[] = {
        {"score", r->score},
        {"invocation_accuracy", r->invocation_accuracy},
        {"selection_accuracy", r->selection_accuracy},
        {"argument_precision", r->argument_precision},
        {"argument_recall", r->argument_recall},
        {"argument_f1", r->argument_f1},
        {"edit_distance", r->edit_distance},
        {"normalized_distance", r->normalized_distance},
        {"sequence_accuracy", r->sequence_accuracy},
        {"redundant_count", (double)r->redundant_count},
        {"total_calls", (double)r->total_calls},
        {"redundant_rate", r->redundant_rate},
        {"tool_correctness", r->tool_correctness},
        {"trajectory_accuracy", r->trajectory_accuracy},
        {"step_match_rate", r->step_match_rate},
        {"path_efficiency", r->path_efficiency},
    };

    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        if (strcmp(table[i].key, key) == 0)
            return table[i].value;
    }
    ck_abort_msg("no metric %s", key);
    return NAN;
}

static const struct json_object *tool_list(const ts_score_result *r, const char *key)
{
    if (strcmp(key, "expected_tools") == 0)
        return r->expected_tools;
    if (strcmp(key, "called_tools") == 0)
        return r->called_tools;
    if (strcmp(key, "missing_tools") == 0)
        return r->missing_tools;
    return r->extra_tools;
}

typedef struct score_stats {
    size_t errors;
    size_t cases;
    size_t numbers;
    size_t bit_exact;
} score_stats;

/* Compare one key of the C result with Python's value; false on mismatch. */
static bool compare_key(const ts_score_result *r, const char *key, const struct json_object *want,
                        score_stats *st, char *why, size_t whysz)
{
    if (strcmp(key, "grade") == 0) {
        const char *g = json_object_get_string((struct json_object *)want);
        snprintf(why, whysz, "grade: python %s, C %c", g, r->grade);
        return g[0] == r->grade && g[1] == '\0';
    }
    if (strcmp(key, "passed") == 0) {
        bool p = json_object_get_boolean(want);
        snprintf(why, whysz, "passed: python %d, C %d", p, r->passed);
        return p == r->passed;
    }
    if (json_object_is_type(want, json_type_array)) {
        char *a = util_json_compact(want);
        char *b = util_json_compact(tool_list(r, key));
        bool same = strcmp(a, b) == 0;
        snprintf(why, whysz, "%s: python %s, C %s", key, a, b);
        free(a);
        free(b);
        return same;
    }
    {
        double w = json_object_get_double(want);
        double c = metric(r, key);
        st->numbers++;
        st->bit_exact += memcmp(&w, &c, sizeof(w)) == 0;
        snprintf(why, whysz, "%s: python %.17g, C %.17g", key, w, c);
        if (json_object_is_type(want, json_type_int))
            return w == c;
        return fabs(w - c) <= TOLERANCE;
    }
}

/* ts_evaluate_validated (the daemon's replay, on lists it validated
 * before) scores exactly as ts_evaluate. */
static void same_as_validated(const struct json_object *expected, const struct json_object *actual,
                              const ts_score_options *opt, const ts_score_result *r)
{
    ts_score_result again;
    struct json_object *a, *b;
    ts_error err;

    ck_assert_int_eq(ts_evaluate_validated(expected, actual, opt, &again, &err), 0);
    a = ts_score_result_to_json(r);
    b = ts_score_result_to_json(&again);
    ck_assert(json_object_equal(a, b));
    json_object_put(a);
    json_object_put(b);
    ts_score_result_free(&again);
}

/* Evaluate one case (actual through extraction, as the daemon does). */
static int run_case(struct json_object *c, ts_score_result *r, ts_error *err)
{
    ts_score_options opt;
    struct json_object *actual = NULL;
    int rc;

    ts_score_options_default(&opt);
    rc = ts_weights_from_json(json_object_object_get(c, "weights"), &opt.weights, err);
    if (rc < 0)
        return rc;
    opt.strict = json_object_get_boolean(json_object_object_get(c, "strict"));
    opt.min_score = json_object_get_double(json_object_object_get(c, "min_score"));
    rc = ts_extract(json_object_object_get(c, "actual"), NULL, TS_EXTRACT_RESPONSE, &actual, err);
    if (rc < 0)
        return rc;
    rc = ts_evaluate(json_object_object_get(c, "expected"), actual, &opt, r, err);
    if (rc == 0)
        same_as_validated(json_object_object_get(c, "expected"), actual, &opt, r);
    json_object_put(actual);
    return rc;
}

/* A case docs/scoring.md refuses: C must refuse it too, with its message for
 * a bad calls list ("item at index i ..."). */
static void check_score_error(struct json_object *c, size_t index, vec_mismatches *m,
                              score_stats *st)
{
    const char *why = json_object_get_string(json_object_object_get(c, "error"));
    ts_score_result r;
    ts_error err;

    st->errors++;
    if (run_case(c, &r, &err) == 0) {
        vec_mismatch(m, "case %zu: C scored what docs/scoring.md refuses (%s): score %.17g", index,
                     why, r.score);
        ts_score_result_free(&r);
        return;
    }
    if (strncmp(why, "item at index", 13) == 0 && strstr(err.message, why) == NULL)
        vec_mismatch(m, "case %zu: message \"%s\" does not say \"%s\"", index, err.message, why);
}

static void check_score_case(const char *line, size_t len, size_t index, vec_mismatches *m,
                             score_stats *st)
{
    struct json_object *c = NULL;
    struct json_object *want;
    ts_score_result r;
    ts_error err;

    ck_assert_msg(ts_json_parse(line, len, 0, &c, &err) == 0, "scores.jsonl line %zu: %s",
                  index + 1, err.message);
    want = json_object_object_get(c, "result");
    if (want == NULL) {
        check_score_error(c, index, m, st);
        json_object_put(c);
        return;
    }
    ck_assert_uint_eq(json_object_array_length(want), N_RESULT_KEYS);
    if (run_case(c, &r, &err) < 0) {
        vec_mismatch(m, "case %zu: C refused what Python scores: %s\n  %.*s", index, err.message,
                     (int)(len < 300 ? len : 300), line);
        json_object_put(c);
        return;
    }
    for (size_t k = 0; k < N_RESULT_KEYS; k++) {
        char why[512];
        if (!compare_key(&r, result_keys[k], json_object_array_get_idx(want, k), st, why,
                         sizeof(why))) {
            vec_mismatch(m, "case %zu: %s\n  %.*s", index, why, (int)(len < 400 ? len : 400), line);
            break;
        }
    }
    st->cases++;
    ts_score_result_free(&r);
    json_object_put(c);
}

START_TEST(scores_match_python)
{
    vec_mismatches m = {"score", 0};
    score_stats st = {0, 0, 0, 0};
    vec_file f;
    size_t index = 0;

    vec_open(&f, "scores.jsonl");
    while (f.pos < f.len) {
        const char *line = f.data + f.pos;
        const char *nl = memchr(line, '\n', f.len - f.pos);
        ck_assert_ptr_nonnull(nl);
        check_score_case(line, (size_t)(nl - line), index++, &m, &st);
        f.pos = (size_t)(nl - f.data) + 1;
    }
    vec_close(&f);
    printf("scores: %zu cases, %zu numbers (%zu bit-identical), %zu refused inputs, "
           "%zu mismatches\n",
           st.cases, st.numbers, st.bit_exact, st.errors, m.count);
    ck_assert_int_ge(st.cases, 1000);
    ck_assert_int_ge(st.errors, 10);
    ck_assert_msg(m.count == 0, "%zu of %zu scoring cases differ from Python", m.count, index);
}
END_TEST

/* ---- repr(): what Python prints and what it escapes ---------------------- */

/* repr() of the one-character string cp as Python writes it, given whether
 * str.isprintable() holds for it. */
static void python_repr_char(uint32_t cp, bool printable, char *out)
{
    size_t n;

    if (cp == '\'')
        strcpy(out, "\"'\"");
    else if (cp == '\\')
        strcpy(out, "'\\\\'");
    else if (cp == '\n' || cp == '\r' || cp == '\t')
        sprintf(out, "'\\%c'", cp == '\n' ? 'n' : cp == '\r' ? 'r' : 't');
    else if (printable) {
        out[0] = '\'';
        n = vec_utf8_put(cp, out + 1);
        out[n + 1] = '\'';
        out[n + 2] = '\0';
    } else if (cp < 0x100)
        sprintf(out, "'\\x%02x'", (unsigned)cp);
    else if (cp < 0x10000)
        sprintf(out, "'\\u%04x'", (unsigned)cp);
    else
        sprintf(out, "'\\U%08x'", (unsigned)cp);
}

/*
 * Every assigned code point (Python 3.11, Unicode 14) as a one-character
 * string through ts_repr_string: the drift report shows values as the
 * reference does, so the characters repr() escapes must be escaped and all
 * others written as they are.
 */
START_TEST(repr_escapes_exactly_what_python_does)
{
    vec_mismatches m = {"repr", 0};
    vec_file f;
    size_t checked = 0;
    char *line;
    char *save = NULL;

    vec_open(&f, "printable.txt");
    for (line = strtok_r(f.data, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        unsigned first, last;
        char kind;

        if (line[0] == '#')
            continue;
        ck_assert_int_eq(sscanf(line, "%x %x %c", &first, &last, &kind), 3);
        for (uint32_t cp = first; cp <= last; cp++) {
            char utf8[4];
            char want[16];
            size_t n = vec_utf8_put(cp, utf8);
            ts_buf out;

            python_repr_char(cp, kind == 'P', want);
            ts_buf_init(&out, TS_BUF_UNLIMITED);
            ck_assert_int_eq(ts_repr_string(utf8, n, &out), 0);
            if (strcmp(out.data, want) != 0)
                vec_mismatch(&m, "U+%04X: python %s, C %s", (unsigned)cp, want, out.data);
            ts_buf_free(&out);
            checked++;
        }
    }
    vec_close(&f);
    printf("repr: %zu code points, %zu mismatches\n", checked, m.count);
    ck_assert_uint_ge(checked, 280000);
    ck_assert_msg(m.count == 0, "%zu characters written unlike Python's repr", m.count);
}
END_TEST

/* Whole values through ts_repr_value: quotes, escapes, True/False/None,
 * float and integer forms, list and dict layout. */
START_TEST(repr_of_values_matches_python)
{
    vec_mismatches m = {"repr", 0};
    vec_file docs_file, f;
    vec_record index_rec, want;
    vec_document *docs;
    size_t n_docs, n = 0;

    vec_open(&docs_file, "json.vec");
    docs = vec_load_documents(&docs_file, &n_docs);
    vec_open(&f, "repr.vec");
    while (vec_next(&f, &index_rec)) {
        struct json_object *v = NULL;
        size_t index = strtoul(index_rec.data, NULL, 10);
        ts_error err;
        ts_buf out;

        ck_assert_str_eq(index_rec.tag, "doc");
        vec_expect(&f, "repr", &want);
        ck_assert_uint_lt(index, n_docs);
        ck_assert_int_eq(ts_json_parse(docs[index].input, docs[index].input_len, 0, &v, &err), 0);
        ts_buf_init(&out, TS_BUF_UNLIMITED);
        ck_assert_int_eq(ts_repr_value(v, &out), 0);
        if (!vec_same_bytes(want.data, want.len, out.data, out.len))
            vec_bytes_mismatch(&m, "repr", want.data, want.len, out.data, out.len);
        ts_buf_free(&out);
        json_object_put(v);
        n++;
    }
    vec_close(&f);
    free(docs);
    vec_close(&docs_file);
    printf("repr: %zu values, %zu mismatches\n", n, m.count);
    ck_assert_uint_ge(n, 400);
    ck_assert_msg(m.count == 0, "%zu values written unlike Python's repr", m.count);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("compat_score");
    TCase *tc = tcase_create("vectors");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, scores_match_python);
    tcase_add_test(tc, repr_escapes_exactly_what_python_does);
    tcase_add_test(tc, repr_of_values_matches_python);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
