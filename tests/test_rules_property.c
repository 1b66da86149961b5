/*
 * test_rules_property — properties of scoring under comparison rules
 * (docs/rules.md, docs/scoring.md): the unordered assignment is the
 * lexicographically first best one (against brute force, on values equal
 * in some ways only, lenient and strict); no rules, or rules that touch
 * nothing, give exactly today's numbers on the compatibility vectors;
 * ignore rules give exactly what deleting the same values by hand gives
 * (so rules never raise a score above that); a matcher lies between the
 * plain score and making the values it relaxes equal by hand; a list
 * compared with itself is perfect under any rules.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"
#include "lib/rules/ts_rules.h"
#include "lib/score/ts_score.h"
#include "util_rules.h"
#include "util_test.h"

#define PERFECT 0.9999999999999999

static char *compact(const struct json_object *v)
{
    return util_json_compact(v);
}

/* ---- the best assignment against brute force ----------------------------- */

#define BF_MAX 6

/* Values that are equal in some ways and not others: numbers across types,
 * double rounding, whitespace, containers. */
static const char *const tricky[] = {"1",
                                     "1.0",
                                     "true",
                                     "0",
                                     "false",
                                     "-0.0",
                                     "null",
                                     "\"x\"",
                                     "\" x\"",
                                     "\"x \"",
                                     "[1]",
                                     "[1.0]",
                                     "[true]",
                                     "{\"k\": 1}",
                                     "{\"k\": true}",
                                     "{\"k\": 1, \"j\": [\" x\"]}",
                                     "{\"j\": [\" x\"], \"k\": 1.0}",
                                     "9007199254740993",
                                     "9007199254740992.0",
                                     "18446744073709551615",
                                     "1.8446744073709552e19",
                                     "[{\"a\": null}]",
                                     "2",
                                     "2.5"};

/* Number of expected keys equal in actual (the plain comparison). */
static size_t bf_weight(struct json_object *e, struct json_object *a, bool strict)
{
    struct json_object *ea = json_object_object_get(e, "args");
    struct json_object *aa = json_object_object_get(a, "args");
    size_t n = 0;

    if (ea == NULL || aa == NULL)
        return 0;
    json_object_object_foreach(ea, k, v)
    {
        struct json_object *w;
        if (json_object_object_get_ex(aa, k, &w) && ts_values_equal(v, w, strict, true))
            n++;
    }
    return n;
}

/*
 * The lexicographically first optimal assignment of one tool's calls
 * (expected i takes actual col[i], -1 none; columns compared as values
 * with -1 after every real one), by trying every injection.
 */
static void bf_search(size_t i, size_t ne, size_t na, size_t w[BF_MAX][BF_MAX], long *cur,
                      bool *used, size_t sum, long *best, size_t *best_sum, bool *have)
{
    size_t need = ne < na ? ne : na, assigned = 0;

    if (i == ne) {
        for (size_t k = 0; k < ne; k++)
            assigned += cur[k] >= 0;
        if (assigned != need)
            return;
        if (!*have || sum > *best_sum) {
            memcpy(best, cur, ne * sizeof(long));
            *best_sum = sum;
            *have = true;
        }
        return;
    }
    for (long j = 0; j <= (long)na; j++) {
        long c = j == (long)na ? -1 : j;
        if (c >= 0 && used[c])
            continue;
        cur[i] = c;
        if (c >= 0)
            used[c] = true;
        bf_search(i + 1, ne, na, w, cur, used, sum + (c >= 0 ? w[i][c] : 0), best, best_sum, have);
        if (c >= 0)
            used[c] = false;
    }
}

START_TEST(test_assignment_matches_brute_force)
{
    unsigned seed = 12345;

    for (int round = 0; round < 1500; round++) {
        size_t ne = 1 + util_next_random(&seed) % BF_MAX, na = 1 + util_next_random(&seed) % BF_MAX;
        struct json_object *e = json_object_new_array(), *a = json_object_new_array();
        size_t w[BF_MAX][BF_MAX];
        long cur[BF_MAX], best[BF_MAX];
        bool used[BF_MAX] = {false}, have = false;
        size_t best_sum = 0;
        struct json_object *want = json_object_new_array();
        ts_rules *r = util_rules_of("{\"order\": \"unordered\"}");
        ts_score_options opt;
        ts_score_result res;
        ts_rules_applied ap;
        ts_error err;
        char *got_text, *want_text;
        bool hard = round % 3 != 0; /* tricky values, and strict every other round */

        ts_score_options_default(&opt);
        opt.strict = hard && round % 2 == 1;
        for (int side = 0; side < 2; side++) {
            size_t n = side ? na : ne;
            for (size_t i = 0; i < n; i++) {
                char text[512];
                size_t nt = sizeof(tricky) / sizeof(tricky[0]);
                if (hard)
                    snprintf(text, sizeof(text),
                             "{\"tool\": \"s\", \"args\": {\"a\": %s, \"b\": %s, \"c\": %s, "
                             "\"i\": \"%d%zu\"}}",
                             tricky[util_next_random(&seed) % nt],
                             tricky[util_next_random(&seed) % nt],
                             tricky[util_next_random(&seed) % nt], side, i);
                else
                    snprintf(text, sizeof(text),
                             "{\"tool\": \"s\", \"args\": {\"a\": %u, \"b\": %u, \"c\": %u, "
                             "\"i\": \"%d%zu\"}}",
                             util_next_random(&seed) % 2, util_next_random(&seed) % 3,
                             util_next_random(&seed) % 2, side, i);
                json_object_array_add(side ? a : e, util_json_c_parse(text));
            }
        }
        for (size_t i = 0; i < ne; i++)
            for (size_t j = 0; j < na; j++)
                w[i][j] = bf_weight(json_object_array_get_idx(e, i),
                                    json_object_array_get_idx(a, j), opt.strict);
        bf_search(0, ne, na, w, cur, used, 0, best, &best_sum, &have);
        ck_assert(have);
        /* the expected order with partners, then the unpaired in order */
        memset(used, 0, sizeof(used));
        for (size_t i = 0; i < ne; i++) {
            if (best[i] >= 0) {
                used[best[i]] = true;
                json_object_array_add(want, json_object_get(json_object_array_get_idx(a, best[i])));
            }
        }
        for (size_t j = 0; j < na; j++)
            if (!used[j])
                json_object_array_add(want, json_object_get(json_object_array_get_idx(a, j)));
        ck_assert_int_eq(ts_rules_evaluate(r, e, a, &opt, false, &res, &ap, &err), 0);
        got_text = compact(ap.actual);
        want_text = compact(want);
        ck_assert_msg(strcmp(got_text, want_text) == 0, "round %d:\nwant %s\ngot  %s", round,
                      want_text, got_text);
        free(got_text);
        free(want_text);
        ts_score_result_free(&res);
        ts_rules_applied_free(&ap);
        ts_rules_unref(r);
        json_object_put(want);
        json_object_put(e);
        json_object_put(a);
    }
}
END_TEST

START_TEST(test_unordered_large_lists)
{
    /* 10 tools, 100 calls each, the actual list reversed: still 1.0 */
    struct json_object *e = json_object_new_array(), *a = json_object_new_array();
    ts_rules *r = util_rules_of("{\"order\": \"unordered\"}");
    ts_score_result res;
    ts_rules_applied ap;
    ts_error err;

    for (int i = 0; i < 1000; i++) {
        char text[128];
        snprintf(text, sizeof(text), "{\"tool\": \"tool%d\", \"args\": {\"i\": %d, \"k\": %d}}",
                 i % 10, i, i % 7);
        json_object_array_add(e, util_json_c_parse(text));
    }
    for (int i = 999; i >= 0; i--)
        json_object_array_add(a, json_object_get(json_object_array_get_idx(e, (size_t)i)));
    ck_assert_int_eq(ts_rules_evaluate(r, e, a, NULL, false, &res, &ap, &err), 0);
    ck_assert_double_eq(res.score, PERFECT);
    ts_score_result_free(&res);
    ts_rules_applied_free(&ap);
    ts_rules_unref(r);
    json_object_put(e);
    json_object_put(a);
}
END_TEST

/* ---- properties ----------------------------------------------------------- */

/* Every scoring number, exactly (bit for bit), and the lists. */
static void assert_same_result(const ts_score_result *a, const ts_score_result *b, int round)
{
    struct json_object *ja = ts_score_result_to_json(a), *jb = ts_score_result_to_json(b);
    char *ta = compact(ja), *tb = compact(jb);

    ck_assert_msg(strcmp(ta, tb) == 0, "round %d:\n%s\n%s", round, ta, tb);
    free(ta);
    free(tb);
    json_object_put(ja);
    json_object_put(jb);
}

START_TEST(test_compat_vectors_unchanged)
{
    /* every scored case of the compatibility vectors: with no rules, empty
     * rules and rules that touch nothing, the very same result */
    const char *variants[] = {
        NULL, "{}",
        "{\"ignore\": [\"zz-none.args.x\"], \"redact\": [\"zz-none.args.k\"], "
        "\"match\": {\"zz-none.args.q\": {\"regex\": \".\"}}, \"tools\": "
        "{\"zz-none\": {\"ignore\": true}}}"};
    char *text = util_read_data("compat-vectors/scores.jsonl", NULL);
    char *line = text, *next;
    int cases = 0;

    for (; line != NULL && *line != '\0'; line = next) {
        struct json_object *rec, *e, *a, *wj;
        ts_score_options opt;
        ts_score_result plain;
        ts_error err;
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        rec = util_json_c_parse(line);
        if (json_object_object_get(rec, "result") == NULL) {
            json_object_put(rec);
            continue;
        }
        e = json_object_object_get(rec, "expected");
        a = json_object_object_get(rec, "actual");
        ts_score_options_default(&opt);
        opt.strict = json_object_get_boolean(json_object_object_get(rec, "strict"));
        opt.min_score = json_object_get_double(json_object_object_get(rec, "min_score"));
        wj = json_object_object_get(rec, "weights");
        ck_assert_int_eq(ts_weights_from_json(wj, &opt.weights, &err), 0);
        ck_assert_int_eq(ts_evaluate(e, a, &opt, &plain, &err), 0);
        for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
            ts_rules *r = util_rules_of(variants[v]);
            ts_score_result got;
            ts_rules_applied ap;
            ck_assert_int_eq(ts_rules_evaluate(r, e, a, &opt, false, &got, &ap, &err), 0);
            assert_same_result(&plain, &got, cases);
            ts_score_result_free(&got);
            ts_rules_applied_free(&ap);
            ts_rules_unref(r);
        }
        ts_score_result_free(&plain);
        json_object_put(rec);
        cases++;
    }
    ck_assert_int_gt(cases, 500);
    free(text);
}
END_TEST

/* A random value of small keys a, b, c, arrays and scalars. */
static struct json_object *random_value(unsigned *seed, int depth)
{
    unsigned kind = util_next_random(seed) % (depth > 2 ? 3 : 5);
    static const char *keys[] = {"a", "b", "c"};

    switch (kind) {
    case 0:
        return json_object_new_int((int)(util_next_random(seed) % 3));
    case 1:
        return json_object_new_string(util_next_random(seed) % 2 ? "x" : "y");
    case 2:
        return util_next_random(seed) % 4 == 0 ? NULL : json_object_new_boolean(1);
    case 3: {
        struct json_object *arr = json_object_new_array();
        unsigned n = util_next_random(seed) % 3;
        for (unsigned i = 0; i < n; i++)
            json_object_array_add(arr, random_value(seed, depth + 1));
        return arr;
    }
    default: {
        struct json_object *obj = json_object_new_object();
        for (int i = 0; i < 3; i++) {
            if (util_next_random(seed) % 2)
                json_object_object_add(obj, keys[i], random_value(seed, depth + 1));
        }
        return obj;
    }
    }
}

static struct json_object *random_calls(unsigned *seed)
{
    struct json_object *calls = json_object_new_array();
    unsigned n = util_next_random(seed) % 4;

    for (unsigned i = 0; i < n; i++) {
        struct json_object *c = json_object_new_object(), *args = json_object_new_object();
        static const char *keys[] = {"a", "b", "c"};
        json_object_object_add(c, "tool",
                               json_object_new_string(util_next_random(seed) % 2 ? "t1" : "t2"));
        for (int k = 0; k < 3; k++) {
            if (util_next_random(seed) % 3)
                json_object_object_add(args, keys[k], random_value(seed, 1));
        }
        json_object_object_add(c, "args", args);
        json_object_array_add(calls, c);
    }
    return calls;
}

/* A random pattern over the same keys: TOOL.args then 1 to 3 segments. */
static void random_pattern(unsigned *seed, char *out, size_t outsz, char segs[4][8], int *nsegs)
{
    static const char *tools[] = {"*", "t1"};
    static const char *choice[] = {"a", "b", "c", "*", "**", "[0]", "[*]"};
    size_t len;

    *nsegs = 1 + (int)(util_next_random(seed) % 3);
    len = (size_t)snprintf(out, outsz, "%s.args", tools[util_next_random(seed) % 2]);
    segs[0][0] = out[0] == '*' ? '*' : '1';
    for (int i = 1; i <= *nsegs; i++) {
        const char *s = choice[util_next_random(seed) % 7];
        snprintf(segs[i], sizeof(segs[i]), "%s", s);
        len += (size_t)snprintf(out + len, outsz - len, "%s%s", s[0] == '[' ? "" : ".", s);
    }
}

/* The naive matcher of a path under args (comp[1..nc), comp[0] is "args")
 * against the segments after `.args`, segs[1..nsegs]. */
static bool naive_match(char segs[4][8], int si, int nsegs, const char **comp, int ci, int nc)
{
    if (si > nsegs)
        return ci == nc;
    if (strcmp(segs[si], "**") == 0) {
        for (int k = ci; k <= nc; k++) {
            if (naive_match(segs, si + 1, nsegs, comp, k, nc))
                return true;
        }
        return false;
    }
    if (ci == nc)
        return false;
    if (strcmp(segs[si], "*") == 0) {
        if (comp[ci][0] == '[')
            return false;
    } else if (strcmp(segs[si], "[*]") == 0) {
        if (comp[ci][0] != '[')
            return false;
    } else if (strcmp(segs[si], comp[ci]) != 0) {
        return false;
    }
    return naive_match(segs, si + 1, nsegs, comp, ci + 1, nc);
}

/* Delete by hand, from v at path comp[0..nc), what the patterns name. */
static void hand_delete(struct json_object *v, char pats[][4][8], const int *npats, int count,
                        const char **comp, int nc)
{
    char idx[16][24];

    if (nc >= 14)
        return;
    if (json_object_is_type(v, json_type_object)) {
        const char *keys[8];
        int nk = 0;
        json_object_object_foreach(v, key, child)
        {
            (void)child;
            keys[nk++] = key;
        }
        for (int k = 0; k < nk; k++) {
            bool hit = false;
            comp[nc] = keys[k];
            for (int p = 0; p < count && !hit; p++)
                hit = naive_match(pats[p], 1, npats[p], comp, 1, nc + 1);
            if (hit)
                json_object_object_del(v, keys[k]);
            else
                hand_delete(json_object_object_get(v, keys[k]), pats, npats, count, comp, nc + 1);
        }
    } else if (json_object_is_type(v, json_type_array)) {
        size_t n = json_object_array_length(v);
        for (size_t i = n; i-- > 0;) {
            bool hit = false;
            snprintf(idx[nc], sizeof(idx[nc]), "[%zu]", i);
            comp[nc] = idx[nc];
            for (int p = 0; p < count && !hit; p++)
                hit = naive_match(pats[p], 1, npats[p], comp, 1, nc + 1);
            if (hit)
                json_object_array_del_idx(v, i, 1);
            else
                hand_delete(json_object_array_get_idx(v, i), pats, npats, count, comp, nc + 1);
        }
    }
}

static void hand_ignore(struct json_object *calls, char pats[][4][8], const int *npats, int count)
{
    for (size_t i = 0; i < json_object_array_length(calls); i++) {
        struct json_object *c = json_object_array_get_idx(calls, i);
        const char *tool = json_object_get_string(json_object_object_get(c, "tool"));
        const char *comp[16] = {"args"};
        char mine[4][4][8];
        int nmine[4], m = 0;
        bool whole = false;
        for (int p = 0; p < count; p++) {
            if (pats[p][0][0] == '*' || strcmp(tool, "t1") == 0) {
                memcpy(mine[m], pats[p], sizeof(mine[m]));
                nmine[m++] = npats[p];
            }
        }
        for (int p = 0; p < m; p++)
            whole |= naive_match(mine[p], 1, nmine[p], comp, 1, 1);
        if (whole)
            json_object_object_del(c, "args");
        else
            hand_delete(json_object_object_get(c, "args"), mine, nmine, m, comp, 1);
    }
}

START_TEST(test_property_ignore_equals_deleting_by_hand)
{
    unsigned seed = 777;

    for (int round = 0; round < 2000; round++) {
        struct json_object *e = random_calls(&seed), *a = random_calls(&seed);
        struct json_object *he = ts_json_copy(e), *ha = ts_json_copy(a);
        char pats[3][4][8], pattern[3][64], text[256];
        int npats[3], count = 1 + (int)(util_next_random(&seed) % 3);
        ts_score_result with, by_hand;
        ts_rules_applied ap;
        ts_rules *r;
        ts_error err;
        size_t len = (size_t)snprintf(text, sizeof(text), "{\"ignore\": [");

        for (int p = 0; p < count; p++) {
            random_pattern(&seed, pattern[p], sizeof(pattern[p]), pats[p], &npats[p]);
            len += (size_t)snprintf(text + len, sizeof(text) - len, "%s\"%s\"", p ? ", " : "",
                                    pattern[p]);
        }
        snprintf(text + len, sizeof(text) - len, "]}");
        r = util_rules_of(text);
        hand_ignore(he, pats, npats, count);
        hand_ignore(ha, pats, npats, count);
        ck_assert_int_eq(ts_rules_evaluate(r, e, a, NULL, false, &with, &ap, &err), 0);
        ck_assert_int_eq(ts_evaluate(he, ha, NULL, &by_hand, &err), 0);
        ck_assert_msg(with.score <= by_hand.score, "round %d: rules raised the score", round);
        assert_same_result(&with, &by_hand, round);
        {
            char *got = compact(ap.actual), *want = compact(ha);
            ck_assert_msg(strcmp(got, want) == 0, "round %d %s:\n%s\n%s", round, text, got, want);
            free(got);
            free(want);
        }
        ts_score_result_free(&with);
        ts_score_result_free(&by_hand);
        ts_rules_applied_free(&ap);
        ts_rules_unref(r);
        json_object_put(e);
        json_object_put(a);
        json_object_put(he);
        json_object_put(ha);
    }
}
END_TEST

START_TEST(test_property_matchers_between_plain_and_by_hand)
{
    /* a matcher relaxes: the score lies between the plain one and the one
     * where every value it names is made equal to the baseline's by hand */
    unsigned seed = 99;
    const char *rules = "{\"match\": {\"*.args.a\": {\"approx\": 1}}}";

    for (int round = 0; round < 1000; round++) {
        struct json_object *e = json_object_new_array(), *a = json_object_new_array();
        struct json_object *fixed;
        ts_score_result with, plain, by_hand;
        ts_rules_applied ap;
        ts_rules *r = util_rules_of(rules);
        ts_error err;
        unsigned n = 1 + util_next_random(&seed) % 3;

        for (unsigned i = 0; i < n; i++) {
            char text[128];
            snprintf(text, sizeof(text), "{\"tool\": \"t\", \"args\": {\"a\": %u, \"b\": %u}}",
                     util_next_random(&seed) % 4, util_next_random(&seed) % 2);
            json_object_array_add(e, util_json_c_parse(text));
            snprintf(text, sizeof(text), "{\"tool\": \"t\", \"args\": {\"a\": %u, \"b\": %u}}",
                     util_next_random(&seed) % 4, util_next_random(&seed) % 2);
            json_object_array_add(a, util_json_c_parse(text));
        }
        /* by hand: a value within the tolerance of its partner's becomes equal */
        fixed = ts_json_copy(a);
        for (unsigned i = 0; i < n; i++) {
            struct json_object *ea =
                json_object_object_get(json_object_array_get_idx(e, i), "args");
            struct json_object *fa =
                json_object_object_get(json_object_array_get_idx(fixed, i), "args");
            int x = json_object_get_int(json_object_object_get(ea, "a"));
            int y = json_object_get_int(json_object_object_get(fa, "a"));
            if (abs(x - y) <= 1)
                json_object_object_add(fa, "a", json_object_new_int(x));
        }
        ck_assert_int_eq(ts_rules_evaluate(r, e, a, NULL, false, &with, &ap, &err), 0);
        ck_assert_int_eq(ts_evaluate(e, a, NULL, &plain, &err), 0);
        ck_assert_int_eq(ts_evaluate(e, fixed, NULL, &by_hand, &err), 0);
        ck_assert_msg(with.score >= plain.score, "round %d: a matcher lowered the score", round);
        ck_assert_msg(with.score <= by_hand.score, "round %d: above making it equal by hand",
                      round);
        /* same tool at every position: partners are positional, so equal */
        ck_assert_double_eq(with.score, by_hand.score);
        ts_score_result_free(&with);
        ts_score_result_free(&plain);
        ts_score_result_free(&by_hand);
        ts_rules_applied_free(&ap);
        ts_rules_unref(r);
        json_object_put(e);
        json_object_put(a);
        json_object_put(fixed);
    }
}
END_TEST

START_TEST(test_list_compared_with_itself_under_any_rules)
{
    /* the daemon's replay of the baseline's own calls: a perfect score
     * under any rules (tools.ignore changes only the counts) */
    const char *rules[] = {
        "{\"ignore\": [\"*.args.**\"]}",
        "{\"match\": {\"*.args.q\": {\"regex\": \"^never$\"}, \"*.args.n\": {\"approx\": 0}, "
        "\"*.args.l\": {\"set\": true}, \"*.args.o\": {\"type\": true}}}",
        "{\"order\": \"unordered\"}",
        "{\"order\": \"superset\"}",
        "{\"order\": \"subset\"}",
        "{\"redact\": [\"*.args.q\"]}",
        "{\"tools\": {\"s\": {\"ignore\": true}}}",
    };
    const char *calls = "[{\"tool\": \"s\", \"args\": {\"q\": \"x\", \"n\": 1.5, \"l\": [1, 2], "
                        "\"o\": {\"k\": null}}}, {\"tool\": \"s\", \"args\": {\"q\": \"x\"}}, "
                        "{\"tool\": \"t\", \"args\": null}, {\"tool\": \"s\", \"args\": {}}]";

    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        util_rules_outcome o = util_rules_run(rules[i], calls, calls, NULL);
        ck_assert_msg(o.result.score == PERFECT && o.result.passed, "%s: %.17g", rules[i],
                      o.result.score);
        ck_assert_double_eq(o.result.trajectory_accuracy, 1.0);
        util_rules_done(&o);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rules_property");
    TCase *tc = tcase_create("assignment");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_assignment_matches_brute_force);
    tcase_add_test(tc, test_unordered_large_lists);
    suite_add_tcase(s, tc);
    tc = tcase_create("properties");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_compat_vectors_unchanged);
    tcase_add_test(tc, test_property_ignore_equals_deleting_by_hand);
    tcase_add_test(tc, test_property_matchers_between_plain_and_by_hand);
    tcase_add_test(tc, test_list_compared_with_itself_under_any_rules);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
