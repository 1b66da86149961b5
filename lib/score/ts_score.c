/*
 * ts_score — scoring a list of actual tool calls against an expected list
 * (docs/scoring.md): every metric of the composite score and the result's
 * key table. The value comparison is in ts_values.c, the options and their
 * validation in ts_score_options.c.
 *
 * Tool names are mapped to small integer ids (in byte order, which is code
 * point order for UTF-8) once per evaluation, so set operations, counting,
 * the Levenshtein distance and the argument alignment all work on int arrays.
 */
#include "lib/score/ts_score.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"

#define THRESHOLD_EPSILON 1e-9

/* ---------------------------------------------------------------------------
 * Calls as ids
 * ------------------------------------------------------------------------- */

typedef struct call_view {
    const char *tool;
    size_t tool_len;
    struct json_object *args; /* NULL when absent or null */
    int id;                   /* index of the tool name in the sorted distinct names */
} call_view;

typedef struct call_lists {
    call_view *gold;
    call_view *trace;
    size_t n_gold, n_trace;
    size_t n_names;
    const call_view **names; /* one call per distinct name, sorted */
    size_t *gold_count;      /* per id */
    size_t *trace_count;
} call_lists;

static int compare_names(const char *a, size_t la, const char *b, size_t lb)
{
    int c = memcmp(a, b, la < lb ? la : lb);

    if (c != 0)
        return c;
    return la < lb ? -1 : la > lb ? 1 : 0;
}

static int compare_call_ptrs(const void *pa, const void *pb)
{
    const call_view *a = *(const call_view *const *)pa;
    const call_view *b = *(const call_view *const *)pb;

    return compare_names(a->tool, a->tool_len, b->tool, b->tool_len);
}

static void view_calls(const struct json_object *calls, call_view *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct json_object *item = json_object_array_get_idx(calls, i);
        struct json_object *tool = json_object_object_get(item, "tool");
        struct json_object *args = NULL;
        out[i].tool = json_object_get_string(tool);
        out[i].tool_len = (size_t)json_object_get_string_len(tool);
        json_object_object_get_ex(item, "args", &args);
        out[i].args = args;
        out[i].id = -1;
    }
}

static void call_lists_free(call_lists *cl)
{
    free(cl->gold);
    free(cl->trace);
    free(cl->names);
    free(cl->gold_count);
    free(cl->trace_count);
}

/* Assign ids in sorted name order and count each name on both sides. */
static int assign_ids(call_lists *cl)
{
    size_t total = cl->n_gold + cl->n_trace;
    call_view **all = malloc((total ? total : 1) * sizeof(*all));
    size_t k = 0;

    if (all == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < cl->n_gold; i++)
        all[k++] = &cl->gold[i];
    for (size_t i = 0; i < cl->n_trace; i++)
        all[k++] = &cl->trace[i];
    qsort(all, total, sizeof(*all), compare_call_ptrs);
    cl->names = malloc((total ? total : 1) * sizeof(*cl->names));
    if (cl->names == NULL) {
        free(all);
        return -ENOMEM;
    }
    for (size_t i = 0; i < total; i++) {
        if (i == 0 || compare_call_ptrs(&all[i - 1], &all[i]) != 0)
            cl->names[cl->n_names++] = all[i];
        all[i]->id = (int)cl->n_names - 1;
    }
    free(all);
    cl->gold_count = calloc(cl->n_names + 1, sizeof(size_t));
    cl->trace_count = calloc(cl->n_names + 1, sizeof(size_t));
    if (cl->gold_count == NULL || cl->trace_count == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < cl->n_gold; i++)
        cl->gold_count[cl->gold[i].id]++;
    for (size_t i = 0; i < cl->n_trace; i++)
        cl->trace_count[cl->trace[i].id]++;
    return 0;
}

static int call_lists_init(call_lists *cl, const struct json_object *expected,
                           const struct json_object *actual)
{
    memset(cl, 0, sizeof(*cl));
    cl->n_gold = json_object_array_length(expected);
    cl->n_trace = json_object_array_length(actual);
    cl->gold = calloc(cl->n_gold + 1, sizeof(call_view));
    cl->trace = calloc(cl->n_trace + 1, sizeof(call_view));
    if (cl->gold == NULL || cl->trace == NULL)
        return -ENOMEM;
    view_calls(expected, cl->gold, cl->n_gold);
    view_calls(actual, cl->trace, cl->n_trace);
    return assign_ids(cl);
}

/* ---------------------------------------------------------------------------
 * Metrics
 * ------------------------------------------------------------------------- */

static double clamp01(double v)
{
    return v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
}

static void score_sets(const call_lists *cl, ts_score_result *r)
{
    size_t gold_names = 0, trace_names = 0, common = 0;
    size_t selected = 0, redundant = 0;

    for (size_t id = 0; id < cl->n_names; id++) {
        bool in_gold = cl->gold_count[id] > 0, in_trace = cl->trace_count[id] > 0;
        gold_names += in_gold;
        trace_names += in_trace;
        common += in_gold && in_trace;
        if (in_gold)
            selected += cl->trace_count[id];
        if (cl->trace_count[id] > cl->gold_count[id])
            redundant += cl->trace_count[id] - cl->gold_count[id];
    }
    if (cl->n_gold == 0 || cl->n_trace == 0) {
        r->invocation_accuracy = (cl->n_gold == 0 && cl->n_trace == 0) ? 1.0 : 0.0;
    } else {
        double penalty = (double)((trace_names - common) + (gold_names - common));
        r->invocation_accuracy = clamp01(((double)common - 0.5 * penalty) / (double)gold_names);
    }
    if (cl->n_trace == 0)
        r->selection_accuracy = cl->n_gold == 0 ? 1.0 : 0.0;
    else if (cl->n_gold == 0)
        r->selection_accuracy = 0.0;
    else
        r->selection_accuracy = (double)selected / (double)cl->n_trace;
    r->redundant_count = (int64_t)redundant;
    r->total_calls = (int64_t)cl->n_trace;
    r->redundant_rate = cl->n_trace ? (double)redundant / (double)cl->n_trace : 0.0;
    if (cl->n_gold == 0)
        r->tool_correctness = cl->n_trace == 0 ? 1.0 : 0.0;
    else
        r->tool_correctness = (double)common / (double)gold_names;
}

/*
 * Levenshtein distance over id arrays (unit costs).
 *
 * The common prefix and suffix are dropped first (they do not change the
 * distance, and a replay that drifted usually differs in a few calls). The
 * rest runs Myers' bit-parallel algorithm in Hyyrö's blocked form: the
 * shorter list (the pattern) is cut into blocks of 64 calls, each column of
 * the DP table is advanced 64 rows per word operation, O(n * ceil(m / 64))
 * time. The pattern's match masks are kept sparse, per id a list of
 * (block, mask) in block order, so memory is O(n_names + m) however many
 * distinct tools there are.
 */
typedef uint64_t lev_word;

typedef struct lev_mask {
    size_t block;
    lev_word bits;
} lev_mask;

typedef struct lev_block {
    lev_word pv, mv; /* vertical +1 / -1 deltas of the block's rows */
} lev_block;

/* Advance one block by one column; hin is the horizontal delta entering its
 * first row (-1, 0, +1); returns the delta leaving its row `out_bit`. */
static int lev_advance(lev_block *blk, lev_word eq, int hin, unsigned out_bit)
{
    lev_word pv = blk->pv, mv = blk->mv;
    lev_word xv = eq | mv;
    lev_word xh, ph, mh;
    int hout = 0;

    if (hin < 0)
        eq |= 1;
    xh = (((eq & pv) + pv) ^ pv) | eq;
    ph = mv | ~(xh | pv);
    mh = pv & xh;
    if ((ph >> out_bit) & 1)
        hout = 1;
    else if ((mh >> out_bit) & 1)
        hout = -1;
    ph <<= 1;
    mh <<= 1;
    if (hin < 0)
        mh |= 1;
    else if (hin > 0)
        ph |= 1;
    blk->pv = mh | ~(xv | ph);
    blk->mv = ph & xv;
    return hout;
}

/* The sparse match masks of pattern b[0..m): masks[first[id] ..
 * first[id + 1]) are id's (block, bits) in block order. */
static int lev_masks(const call_view *b, size_t m, size_t n_names, size_t **first_out,
                     lev_mask **masks_out)
{
    size_t *first = calloc(n_names + 2, sizeof(*first));
    size_t *last = malloc((n_names + 1) * sizeof(*last));
    lev_mask *masks = malloc((m ? m : 1) * sizeof(*masks));
    size_t total = 0;

    if (first == NULL || last == NULL || masks == NULL) {
        free(first);
        free(last);
        free(masks);
        return -ENOMEM;
    }
    for (size_t id = 0; id <= n_names; id++)
        last[id] = SIZE_MAX;
    for (size_t i = 0; i < m; i++) { /* entries per id: one per block it occurs in */
        size_t id = (size_t)b[i].id;
        if (last[id] != i / 64) {
            last[id] = i / 64;
            first[id + 1]++;
        }
    }
    for (size_t id = 0; id <= n_names; id++) {
        size_t count = first[id + 1];
        first[id + 1] = total;
        total += count;
        last[id] = SIZE_MAX;
    }
    /* first[id + 1] is now id's write position; it ends at id's end */
    for (size_t i = 0; i < m; i++) {
        size_t id = (size_t)b[i].id;
        if (last[id] != i / 64) {
            last[id] = i / 64;
            masks[first[id + 1]].block = i / 64;
            masks[first[id + 1]].bits = 0;
            first[id + 1]++;
        }
        masks[first[id + 1] - 1].bits |= (lev_word)1 << (i % 64);
    }
    free(last);
    *first_out = first; /* id's entries: [first[id], first[id + 1]) */
    *masks_out = masks;
    return 0;
}

static int levenshtein(const call_view *a, size_t n, const call_view *b, size_t m, size_t n_names,
                       size_t *out)
{
    size_t *first = NULL;
    lev_mask *masks = NULL;
    lev_block *blocks;
    size_t nblocks, score;
    unsigned last_bit;
    int rc;

    if (n < m) {
        const call_view *t = a;
        size_t tn = n;
        a = b;
        n = m;
        b = t;
        m = tn;
    }
    while (m > 0 && a[0].id == b[0].id) {
        a++;
        b++;
        n--;
        m--;
    }
    while (m > 0 && a[n - 1].id == b[m - 1].id) {
        n--;
        m--;
    }
    if (m == 0) {
        *out = n;
        return 0;
    }
    nblocks = (m + 63) / 64;
    last_bit = (unsigned)((m - 1) % 64);
    blocks = malloc(nblocks * sizeof(*blocks));
    rc = blocks == NULL ? -ENOMEM : lev_masks(b, m, n_names, &first, &masks);
    if (rc < 0) {
        free(blocks);
        return rc;
    }
    for (size_t k = 0; k < nblocks; k++) {
        blocks[k].pv = ~(lev_word)0; /* column 0: D[i][0] = i, every step +1 */
        blocks[k].mv = 0;
    }
    score = m;
    for (size_t j = 0; j < n; j++) {
        size_t id = (size_t)a[j].id;
        size_t e = first[id], end = first[id + 1];
        int h = 1; /* row 0: D[0][j] = j */

        for (size_t k = 0; k < nblocks; k++) {
            lev_word eq = 0;
            if (e < end && masks[e].block == k)
                eq = masks[e++].bits;
            h = lev_advance(&blocks[k], eq, h, k + 1 < nblocks ? 63 : last_bit);
        }
        score = (size_t)((long long)score + h);
    }
    *out = score;
    free(blocks);
    free(first);
    free(masks);
    return 0;
}

static int score_sequence(const call_lists *cl, ts_score_result *r)
{
    size_t d = 0;
    size_t longest = cl->n_gold > cl->n_trace ? cl->n_gold : cl->n_trace;
    int rc = levenshtein(cl->gold, cl->n_gold, cl->trace, cl->n_trace, cl->n_names, &d);

    if (rc < 0)
        return rc;
    r->edit_distance = (double)d;
    r->normalized_distance = (double)d / (double)(longest > 0 ? longest : 1);
    r->sequence_accuracy = 1.0 - r->normalized_distance;
    return 0;
}

/* Trace positions grouped by id (ascending within each id), for lookups of
 * "the first trace call at or after i with this tool". */
typedef struct positions {
    size_t *start; /* n_names + 1 offsets into index */
    size_t *index;
} positions;

static int positions_build(const call_lists *cl, positions *p)
{
    size_t *fill;

    p->start = calloc(cl->n_names + 1, sizeof(size_t));
    p->index = malloc((cl->n_trace + 1) * sizeof(size_t));
    fill = calloc(cl->n_names + 1, sizeof(size_t));
    if (p->start == NULL || p->index == NULL || fill == NULL) {
        free(fill);
        return -ENOMEM;
    }
    for (size_t id = 0; id < cl->n_names; id++)
        p->start[id + 1] = p->start[id] + cl->trace_count[id];
    for (size_t j = 0; j < cl->n_trace; j++) {
        int id = cl->trace[j].id;
        p->index[p->start[id] + fill[id]++] = j;
    }
    free(fill);
    return 0;
}

/* The partner of gold call i: the first trace index j >= i with the same
 * tool, or -1. */
static long partner_of(const call_lists *cl, const positions *p, size_t i)
{
    int id = cl->gold[i].id;
    size_t lo = p->start[id], hi = p->start[id + 1];

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->index[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->start[id + 1] ? (long)p->index[lo] : -1;
}

static size_t args_length(const struct json_object *args)
{
    return args ? (size_t)json_object_object_length(args) : 0;
}

/* Two argument values of a call of tool g: ts_values_equal, or the
 * caller's comparison when one is given. */
static bool args_equal(const ts_value_compare *cmp, const call_view *g, const char *key,
                       const struct json_object *gv, const struct json_object *tv, bool strict,
                       bool top_level)
{
    if (cmp == NULL)
        return ts_values_equal(gv, tv, strict, top_level);
    return cmp->equal(cmp->ctx, g->tool, g->tool_len, key, gv, tv, strict, top_level);
}

/* Gold keys present in the trace args with an equal value. */
static size_t correct_keys(const ts_value_compare *cmp, const call_view *g,
                           const struct json_object *trace, bool strict)
{
    size_t correct = 0;

    if (g->args == NULL || trace == NULL)
        return 0;
    json_object_object_foreach(g->args, key, gv)
    {
        struct json_object *tv;
        if (json_object_object_get_ex(trace, key, &tv) &&
            args_equal(cmp, g, key, gv, tv, strict, true))
            correct++;
    }
    return correct;
}

static void score_arguments(const call_lists *cl, const positions *p, bool strict,
                            const ts_value_compare *cmp, ts_score_result *r)
{
    size_t correct = 0, expected = 0, actual = 0, vacuous = 0;
    double precision, recall;

    if (cl->n_gold == 0 && cl->n_trace == 0) {
        r->argument_precision = r->argument_recall = r->argument_f1 = 1.0;
        return;
    }
    if (cl->n_gold == 0 || cl->n_trace == 0) {
        r->argument_precision = r->argument_recall = r->argument_f1 = 0.0;
        return;
    }
    for (size_t i = 0; i < cl->n_gold; i++) {
        const call_view *g = &cl->gold[i];
        long j = partner_of(cl, p, i);
        if (g->args == NULL) {
            vacuous += j >= 0;
            continue;
        }
        expected += args_length(g->args);
        if (j < 0)
            continue;
        actual += args_length(cl->trace[j].args);
        correct += correct_keys(cmp, g, cl->trace[j].args, strict);
        if (args_length(g->args) == 0 && args_length(cl->trace[j].args) == 0)
            vacuous++;
    }
    if (expected == 0 && actual == 0 && vacuous > 0) {
        r->argument_precision = r->argument_recall = r->argument_f1 = 1.0;
        return;
    }
    precision = actual ? (double)correct / (double)actual : 0.0;
    recall = expected ? (double)correct / (double)expected : 0.0;
    r->argument_precision = precision;
    r->argument_recall = recall;
    r->argument_f1 = precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0.0;
}

/* Every gold key present in trace with a deep-equal (lenient, untrimmed) value. */
static bool step_matches(const ts_value_compare *cmp, const call_view *g, const call_view *t)
{
    if (g->id != t->id)
        return false;
    if (g->args == NULL)
        return true;
    json_object_object_foreach(g->args, key, gv)
    {
        struct json_object *tv;
        if (t->args == NULL || !json_object_object_get_ex(t->args, key, &tv))
            return false;
        if (!args_equal(cmp, g, key, gv, tv, false, false))
            return false;
    }
    return true;
}

static void score_trajectory(const call_lists *cl, const ts_value_compare *cmp, ts_score_result *r)
{
    size_t matched = 0;
    size_t steps = cl->n_gold < cl->n_trace ? cl->n_gold : cl->n_trace;

    if (cl->n_gold == 0) {
        r->step_match_rate = r->trajectory_accuracy = cl->n_trace == 0 ? 1.0 : 0.0;
        r->path_efficiency = 1.0;
        return;
    }
    if (cl->n_trace == 0) {
        r->step_match_rate = r->trajectory_accuracy = r->path_efficiency = 0.0;
        return;
    }
    for (size_t k = 0; k < steps; k++)
        matched += step_matches(cmp, &cl->gold[k], &cl->trace[k]);
    r->step_match_rate = (double)matched / (double)cl->n_gold;
    r->path_efficiency = cl->n_trace > cl->n_gold ? (double)cl->n_gold / (double)cl->n_trace : 1.0;
    r->trajectory_accuracy = r->step_match_rate * r->path_efficiency;
}

static int add_name(struct json_object *list, const call_view *c)
{
    struct json_object *s = json_object_new_string_len(c->tool, (int)c->tool_len);

    if (s == NULL || json_object_array_add(list, s) < 0) {
        json_object_put(s);
        return -ENOMEM;
    }
    return 0;
}

static int tool_lists(const call_lists *cl, ts_score_result *r)
{
    r->expected_tools = json_object_new_array();
    r->called_tools = json_object_new_array();
    r->missing_tools = json_object_new_array();
    r->extra_tools = json_object_new_array();
    if (!r->expected_tools || !r->called_tools || !r->missing_tools || !r->extra_tools)
        return -ENOMEM;
    for (size_t id = 0; id < cl->n_names; id++) {
        bool in_gold = cl->gold_count[id] > 0, in_trace = cl->trace_count[id] > 0;
        const call_view *c = cl->names[id];
        if (in_gold && add_name(r->expected_tools, c) < 0)
            return -ENOMEM;
        if (in_trace && add_name(r->called_tools, c) < 0)
            return -ENOMEM;
        if (in_gold && !in_trace && add_name(r->missing_tools, c) < 0)
            return -ENOMEM;
        if (in_trace && !in_gold && add_name(r->extra_tools, c) < 0)
            return -ENOMEM;
    }
    return 0;
}

static char grade_of(double score)
{
    if (score >= 0.9)
        return 'A';
    if (score >= 0.8)
        return 'B';
    if (score >= 0.7)
        return 'C';
    if (score >= 0.6)
        return 'D';
    return 'F';
}

static void composite(const ts_weights *w, double min_score, ts_score_result *r)
{
    double threshold = min_score - THRESHOLD_EPSILON;

    /* Left to right, as the reference sums it. */
    r->score = w->selection_accuracy * r->selection_accuracy + w->argument_f1 * r->argument_f1 +
               w->sequence_accuracy * r->sequence_accuracy +
               w->redundant_rate * (1.0 - r->redundant_rate);
    r->grade = grade_of(r->score);
    r->min_score = min_score;
    r->passed = r->score >= (threshold > 0.0 ? threshold : 0.0);
}

static int compute(const call_lists *cl, const ts_score_options *opt, const ts_value_compare *cmp,
                   ts_score_result *r)
{
    positions p = {NULL, NULL};
    int rc;

    score_sets(cl, r);
    rc = score_sequence(cl, r);
    if (rc == 0)
        rc = positions_build(cl, &p);
    if (rc == 0) {
        score_arguments(cl, &p, opt->strict, cmp, r);
        score_trajectory(cl, cmp, r);
        rc = tool_lists(cl, r);
    }
    free(p.start);
    free(p.index);
    if (rc == 0)
        composite(&opt->weights, opt->min_score, r);
    return rc;
}

static int evaluate(const struct json_object *expected, const struct json_object *actual,
                    const ts_score_options *opt, const ts_value_compare *cmp, bool validated,
                    ts_score_result *out, ts_error *err)
{
    ts_score_options defaults;
    ts_score_result r;
    call_lists cl;
    int rc;

    if (opt == NULL) {
        ts_score_options_default(&defaults);
        opt = &defaults;
    }
    rc = ts_score_check_min(opt->min_score, err);
    if (rc == 0)
        rc = ts_weights_check(&opt->weights, err);
    if (rc == 0 && !validated)
        rc = ts_calls_validate(expected, "expected", err);
    if (rc == 0 && !validated)
        rc = ts_calls_validate(actual, "actual", err);
    if (rc < 0)
        return rc;
    memset(&r, 0, sizeof(r));
    r.strict = opt->strict;
    rc = call_lists_init(&cl, expected, actual);
    if (rc == 0)
        rc = compute(&cl, opt, cmp, &r);
    call_lists_free(&cl);
    if (rc < 0) {
        ts_score_result_free(&r);
        return ts_error_set(err, rc, TS_ERR_NO_MEMORY, "out of memory while scoring");
    }
    *out = r;
    return 0;
}

int ts_evaluate(const struct json_object *expected, const struct json_object *actual,
                const ts_score_options *opt, ts_score_result *out, ts_error *err)
{
    return evaluate(expected, actual, opt, NULL, false, out, err);
}

int ts_evaluate_validated(const struct json_object *expected, const struct json_object *actual,
                          const ts_score_options *opt, ts_score_result *out, ts_error *err)
{
    return evaluate(expected, actual, opt, NULL, true, out, err);
}

int ts_evaluate_compare(const struct json_object *expected, const struct json_object *actual,
                        const ts_score_options *opt, const ts_value_compare *compare,
                        bool validated, ts_score_result *out, ts_error *err)
{
    return evaluate(expected, actual, opt, compare, validated, out, err);
}

void ts_score_result_free(ts_score_result *r)
{
    if (r == NULL)
        return;
    json_object_put(r->expected_tools);
    json_object_put(r->called_tools);
    json_object_put(r->missing_tools);
    json_object_put(r->extra_tools);
    r->expected_tools = r->called_tools = r->missing_tools = r->extra_tools = NULL;
}

void ts_score_result_share(ts_score_result *dst, const ts_score_result *src)
{
    *dst = *src;
    json_object_get(dst->expected_tools);
    json_object_get(dst->called_tools);
    json_object_get(dst->missing_tools);
    json_object_get(dst->extra_tools);
}

/* ---------------------------------------------------------------------------
 * Result as JSON
 * ------------------------------------------------------------------------- */

/* clang-format off */
#define KEY(name, type) {#name, sizeof(#name) - 1, type, offsetof(ts_score_result, name)}
/* clang-format on */

const ts_score_key ts_score_keys[] = {
    KEY(score, TS_SCORE_DOUBLE),
    KEY(grade, TS_SCORE_GRADE),
    KEY(invocation_accuracy, TS_SCORE_DOUBLE),
    KEY(selection_accuracy, TS_SCORE_DOUBLE),
    KEY(argument_precision, TS_SCORE_DOUBLE),
    KEY(argument_recall, TS_SCORE_DOUBLE),
    KEY(argument_f1, TS_SCORE_DOUBLE),
    KEY(edit_distance, TS_SCORE_DOUBLE),
    KEY(normalized_distance, TS_SCORE_DOUBLE),
    KEY(sequence_accuracy, TS_SCORE_DOUBLE),
    KEY(redundant_count, TS_SCORE_INT),
    KEY(total_calls, TS_SCORE_INT),
    KEY(redundant_rate, TS_SCORE_DOUBLE),
    KEY(tool_correctness, TS_SCORE_DOUBLE),
    KEY(trajectory_accuracy, TS_SCORE_DOUBLE),
    KEY(step_match_rate, TS_SCORE_DOUBLE),
    KEY(path_efficiency, TS_SCORE_DOUBLE),
    KEY(expected_tools, TS_SCORE_TOOLS),
    KEY(called_tools, TS_SCORE_TOOLS),
    KEY(missing_tools, TS_SCORE_TOOLS),
    KEY(extra_tools, TS_SCORE_TOOLS),
    KEY(passed, TS_SCORE_BOOL),
    KEY(min_score, TS_SCORE_DOUBLE),
};

const size_t ts_score_key_count = sizeof(ts_score_keys) / sizeof(ts_score_keys[0]);

const ts_score_key *ts_score_key_find(const char *name, size_t len)
{
    for (size_t i = 0; i < ts_score_key_count; i++) {
        if (ts_score_keys[i].len == len && memcmp(ts_score_keys[i].name, name, len) == 0)
            return &ts_score_keys[i];
    }
    return NULL;
}

/* The JSON value of r's member k (a new reference; lists shared). */
static struct json_object *member_json(const ts_score_result *r, const ts_score_key *k)
{
    const void *m = ts_score_member(r, k);
    char grade[2] = {0, 0};
    struct json_object *list;

    switch (k->type) {
    case TS_SCORE_DOUBLE:
        return json_object_new_double(*(const double *)m);
    case TS_SCORE_INT:
        return json_object_new_int64(*(const int64_t *)m);
    case TS_SCORE_GRADE:
        grade[0] = *(const char *)m;
        return json_object_new_string(grade);
    case TS_SCORE_BOOL:
        return json_object_new_boolean(*(const bool *)m);
    case TS_SCORE_TOOLS:
        /* A reference, not a copy: the lists are never modified once scored. */
        list = *(struct json_object *const *)m;
        return list == NULL ? json_object_new_array() : json_object_get(list);
    }
    return NULL;
}

struct json_object *ts_score_result_to_json(const ts_score_result *r)
{
    struct json_object *o = json_object_new_object();

    for (size_t i = 0; o != NULL && i < ts_score_key_count; i++) {
        struct json_object *v = member_json(r, &ts_score_keys[i]);

        if (v == NULL || json_object_object_add(o, ts_score_keys[i].name, v) != 0) {
            json_object_put(v);
            json_object_put(o);
            return NULL;
        }
    }
    return o;
}
