/*
 * ts_rules_order — the order modes (docs/rules.md): how the two call lists
 * are aligned before scoring when `order` is not strict.
 *
 * unordered: the calls of each tool are paired, expected with actual, by
 * the assignment that maximises the number of equal argument values (the
 * comparison scoring uses, matchers included); calls of different tools are
 * never paired. Among the best assignments the one that keeps the original
 * order wins: expected calls in order each take the earliest actual call
 * some best assignment gives them (the lexicographically first one). The
 * actual list is then rewritten in the expected list's order (each expected
 * call's partner at its place), the unpaired actual calls after them in
 * their own order, and scored as usual: a reordering alone scores 1.0.
 * superset: the same, with the unpaired actual calls dropped. subset: the
 * same, with the unpaired expected calls dropped, unless the actual list is
 * empty (an empty actual list still fails unless nothing was expected).
 *
 * The assignment: a square cost matrix per tool (the smaller side padded
 * with dummy calls of cost 0, real pairs costing minus their equal values)
 * solved by the Hungarian algorithm (O(n^3), potentials kept), then, among
 * the optimal assignments, the lexicographically first: an optimal
 * assignment is exactly a perfect matching on the edges the potentials make
 * tight, so each expected call in turn is moved to its earliest tight
 * partner along an alternating cycle of tight edges avoiding the calls
 * already fixed. A tool with more than TS_RULES_EXACT_MAX calls on one side
 * is paired greedily instead (each expected call in order takes the unused
 * actual call with the most equal values, the earliest on ties).
 */
#include "ts_rules_internal.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TS_RULES_EXACT_MAX 600
#define COST_INF (INT64_MAX / 4)

typedef struct tool_call {
    const char *tool;
    size_t len;
    size_t index; /* in its list */
} tool_call;

static int compare_tool_calls(const void *pa, const void *pb)
{
    const tool_call *a = pa, *b = pb;
    int c = memcmp(a->tool, b->tool, a->len < b->len ? a->len : b->len);

    if (c != 0)
        return c;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* The calls of list sorted by (tool, index). */
static tool_call *by_tool(struct json_object *list, size_t n)
{
    tool_call *tc = malloc((n ? n : 1) * sizeof(*tc));

    if (tc == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        struct json_object *tool =
            json_object_object_get(json_object_array_get_idx(list, i), "tool");
        tc[i].tool = json_object_get_string(tool);
        tc[i].len = (size_t)json_object_get_string_len(tool);
        tc[i].index = i;
    }
    qsort(tc, n, sizeof(*tc), compare_tool_calls);
    return tc;
}

static struct json_object *args_of(struct json_object *list, size_t i)
{
    struct json_object *args = NULL;

    json_object_object_get_ex(json_object_array_get_idx(list, i), "args", &args);
    return args;
}

/* ---------------------------------------------------------------------------
 * The exact assignment
 * ------------------------------------------------------------------------- */

typedef struct assignment {
    size_t n;       /* square size */
    int64_t *cost;  /* n * n, row i col j at [i * n + j] */
    int64_t *u, *v; /* potentials, 1-based (index 0 unused by rows) */
    size_t *row_of; /* per column (1-based), its row (1-based) */
    size_t *col_of; /* per row (1-based), its column */
} assignment;

static void assignment_free(assignment *as)
{
    free(as->cost);
    free(as->u);
    free(as->v);
    free(as->row_of);
    free(as->col_of);
}

static int64_t cost_at(const assignment *as, size_t i, size_t j) /* 1-based */
{
    return as->cost[(i - 1) * as->n + (j - 1)];
}

/* Minimum-cost perfect matching (e-maxx's Hungarian algorithm). */
static int hungarian(assignment *as)
{
    size_t n = as->n;
    int64_t *minv = malloc((n + 1) * sizeof(*minv));
    size_t *way = malloc((n + 1) * sizeof(*way));
    bool *used = malloc((n + 1) * sizeof(*used));
    int rc = 0;

    as->u = calloc(n + 1, sizeof(int64_t));
    as->v = calloc(n + 1, sizeof(int64_t));
    as->row_of = calloc(n + 1, sizeof(size_t));
    as->col_of = calloc(n + 1, sizeof(size_t));
    if (minv == NULL || way == NULL || used == NULL || as->u == NULL || as->v == NULL ||
        as->row_of == NULL || as->col_of == NULL) {
        rc = -ENOMEM;
        goto out;
    }
    for (size_t i = 1; i <= n; i++) {
        size_t j0 = 0;
        as->row_of[0] = i;
        for (size_t j = 0; j <= n; j++) {
            minv[j] = COST_INF;
            used[j] = false;
        }
        do {
            size_t i0 = as->row_of[j0], j1 = 0;
            int64_t delta = COST_INF;
            used[j0] = true;
            for (size_t j = 1; j <= n; j++) {
                if (used[j])
                    continue;
                int64_t cur = cost_at(as, i0, j) - as->u[i0] - as->v[j];
                if (cur < minv[j]) {
                    minv[j] = cur;
                    way[j] = j0;
                }
                if (minv[j] < delta) {
                    delta = minv[j];
                    j1 = j;
                }
            }
            for (size_t j = 0; j <= n; j++) {
                if (used[j]) {
                    as->u[as->row_of[j]] += delta;
                    as->v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (as->row_of[j0] != 0);
        do {
            size_t j1 = way[j0];
            as->row_of[j0] = as->row_of[j1];
            j0 = j1;
        } while (j0 != 0);
    }
    for (size_t j = 1; j <= n; j++)
        as->col_of[as->row_of[j]] = j;
out:
    free(minv);
    free(way);
    free(used);
    return rc;
}

static bool tight(const assignment *as, size_t i, size_t j)
{
    return cost_at(as, i, j) - as->u[i] - as->v[j] == 0;
}

/* An alternating path of tight edges from row r to column target, through
 * rows neither fixed nor visited; on success the matching is shifted along
 * it (r takes a new column, and so on, until target is taken). */
static bool reroute(assignment *as, size_t r, size_t target, const bool *fixed, bool *visited)
{
    visited[r] = true;
    for (size_t c = 1; c <= as->n; c++) {
        size_t owner;
        if (c == as->col_of[r] || !tight(as, r, c))
            continue;
        owner = as->row_of[c];
        if (c == target ||
            (!fixed[owner] && !visited[owner] && reroute(as, owner, target, fixed, visited))) {
            as->col_of[r] = c;
            as->row_of[c] = r;
            return true;
        }
    }
    return false;
}

/* Among the optimal matchings, the lexicographically first for rows
 * 1..rows (real expected calls) over columns 1..cols (real actual calls,
 * before the dummies). */
static int lexicographic(assignment *as, size_t rows, size_t cols)
{
    bool *fixed = calloc(as->n + 1, sizeof(bool));
    bool *visited = calloc(as->n + 1, sizeof(bool));

    if (fixed == NULL || visited == NULL) {
        free(fixed);
        free(visited);
        return -ENOMEM;
    }
    for (size_t i = 1; i <= rows; i++) {
        size_t own = as->col_of[i];
        memset(visited, 0, (as->n + 1) * sizeof(bool));
        visited[i] = true;
        for (size_t j = 1; j <= cols && j < own; j++) {
            size_t owner = as->row_of[j];
            if (!tight(as, i, j) || fixed[owner] || visited[owner])
                continue;
            /* i takes j; j's owner must reach i's column */
            if (reroute(as, owner, own, fixed, visited)) {
                as->col_of[i] = j;
                as->row_of[j] = i;
                break;
            }
        }
        fixed[i] = true;
    }
    free(fixed);
    free(visited);
    return 0;
}

/* ---------------------------------------------------------------------------
 * Pairing one tool's calls
 * ------------------------------------------------------------------------- */

typedef struct pairing {
    ts_rules_applied *a;
    struct json_object *expected, *actual;
    bool strict;
    long *partner; /* per expected index: its actual partner, or -1 */
} pairing;

static int pair_greedy(pairing *pg, const ts_rules_weights *w, const tool_call *e, size_t ne,
                       const tool_call *t, size_t na)
{
    bool *taken = calloc(na + 1, sizeof(bool));

    if (taken == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < ne; i++) {
        long best = -1;
        size_t best_w = 0;
        for (size_t j = 0; j < na; j++) {
            size_t wij;
            if (taken[j])
                continue;
            wij = ts_rules_weight(w, i, j);
            if (best < 0 || wij > best_w) {
                best = (long)j;
                best_w = wij;
            }
        }
        if (best < 0)
            break;
        taken[best] = true;
        pg->partner[e[i].index] = (long)t[best].index;
    }
    free(taken);
    return 0;
}

static int pair_exact(pairing *pg, const ts_rules_weights *w, const tool_call *e, size_t ne,
                      const tool_call *t, size_t na)
{
    assignment as;
    size_t n = ne > na ? ne : na;
    int rc;

    memset(&as, 0, sizeof(as));
    as.n = n;
    as.cost = calloc(n * n, sizeof(int64_t));
    if (as.cost == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < ne; i++) {
        for (size_t j = 0; j < na; j++)
            as.cost[i * n + j] = -(int64_t)ts_rules_weight(w, i, j);
    }
    rc = hungarian(&as);
    if (rc == 0)
        rc = lexicographic(&as, ne, na);
    for (size_t i = 1; rc == 0 && i <= ne; i++) {
        size_t j = as.col_of[i];
        if (j >= 1 && j <= na)
            pg->partner[e[i - 1].index] = (long)t[j - 1].index;
    }
    assignment_free(&as);
    return rc;
}

/* The args of the calls of one tool, for the weights. */
static struct json_object **args_array(struct json_object *list, const tool_call *c, size_t n)
{
    struct json_object **args = malloc((n ? n : 1) * sizeof(*args));

    for (size_t i = 0; args != NULL && i < n; i++) {
        args[i] = args_of(list, c[i].index);
        if (!json_object_is_type(args[i], json_type_object))
            args[i] = NULL;
    }
    return args;
}

static int pair_tool(pairing *pg, const tool_call *e, size_t ne, const tool_call *t, size_t na)
{
    struct json_object **ea, **aa;
    ts_rules_weights *w = NULL;
    int rc;

    if (ne == 0 || na == 0)
        return 0;
    if (ne == 1 && na == 1) {
        pg->partner[e[0].index] = (long)t[0].index;
        return 0;
    }
    ea = args_array(pg->expected, e, ne);
    aa = args_array(pg->actual, t, na);
    rc = ea == NULL || aa == NULL
             ? -ENOMEM
             : ts_rules_weights_new(pg->a, e[0].tool, e[0].len, ea, ne, aa, na, pg->strict, &w);
    if (rc == 0 && (ne > TS_RULES_EXACT_MAX || na > TS_RULES_EXACT_MAX))
        rc = pair_greedy(pg, w, e, ne, t, na);
    else if (rc == 0)
        rc = pair_exact(pg, w, e, ne, t, na);
    ts_rules_weights_free(w);
    free(ea);
    free(aa);
    return rc;
}

/* Walk both sorted lists tool by tool. */
static int pair_all(pairing *pg, const tool_call *e, size_t ne, const tool_call *t, size_t na)
{
    size_t i = 0, j = 0;
    int rc = 0;

    while (rc == 0 && i < ne && j < na) {
        int c = compare_tool_calls(&(tool_call){e[i].tool, e[i].len, 0},
                                   &(tool_call){t[j].tool, t[j].len, 0});
        size_t i_end = i, j_end = j;
        if (c < 0) {
            i++;
            continue;
        }
        if (c > 0) {
            j++;
            continue;
        }
        while (i_end < ne && e[i_end].len == e[i].len &&
               memcmp(e[i_end].tool, e[i].tool, e[i].len) == 0)
            i_end++;
        while (j_end < na && t[j_end].len == t[j].len &&
               memcmp(t[j_end].tool, t[j].tool, t[j].len) == 0)
            j_end++;
        rc = pair_tool(pg, e + i, i_end - i, t + j, j_end - j);
        i = i_end;
        j = j_end;
    }
    return rc;
}

/* ---------------------------------------------------------------------------
 * The aligned lists
 * ------------------------------------------------------------------------- */

static int push(struct json_object *list, struct json_object *item)
{
    return json_object_array_add(list, json_object_get(item)) < 0 ? -ENOMEM : 0;
}

static int build_lists(const pairing *pg, ts_rules_order order, ts_rules_applied *a,
                       struct json_object **e_out, struct json_object **a_out)
{
    size_t ne = json_object_array_length(pg->expected);
    size_t na = json_object_array_length(pg->actual);
    bool *paired = calloc(na + 1, sizeof(bool));
    bool drop_expected = order == TS_RULES_ORDER_SUBSET && na > 0;
    struct json_object *el = json_object_new_array(), *al = json_object_new_array();
    int rc = paired == NULL || el == NULL || al == NULL ? -ENOMEM : 0;

    for (size_t i = 0; rc == 0 && i < ne; i++) {
        long j = pg->partner[i];
        if (j < 0 && drop_expected) {
            a->dropped_expected++;
            continue;
        }
        rc = push(el, json_object_array_get_idx(pg->expected, i));
        if (rc == 0 && j >= 0) {
            paired[j] = true;
            rc = push(al, json_object_array_get_idx(pg->actual, (size_t)j));
        }
    }
    for (size_t j = 0; rc == 0 && j < na; j++) {
        if (paired[j])
            continue;
        if (order == TS_RULES_ORDER_SUPERSET)
            a->dropped_actual++;
        else
            rc = push(al, json_object_array_get_idx(pg->actual, j));
    }
    for (size_t k = 0; rc == 0 && k < json_object_array_length(al); k++) {
        if (k >= na || json_object_array_get_idx(al, k) != json_object_array_get_idx(pg->actual, k))
            a->moved++;
    }
    free(paired);
    if (rc < 0) {
        json_object_put(el);
        json_object_put(al);
        return rc;
    }
    if (a->dropped_expected == 0) { /* the expected list itself, unchanged */
        json_object_put(el);
        el = json_object_get(pg->expected);
    }
    *e_out = el;
    *a_out = al;
    return 0;
}

int ts_rules_align(const ts_rules *r, struct json_object *expected, struct json_object *actual,
                   bool strict, ts_rules_applied *a, struct json_object **expected_out,
                   struct json_object **actual_out)
{
    size_t ne = json_object_array_length(expected), na = json_object_array_length(actual);
    pairing pg = {a, expected, actual, strict, NULL};
    tool_call *e = NULL, *t = NULL;
    int rc = 0;

    if (r->order == TS_RULES_ORDER_STRICT) {
        *expected_out = json_object_get(expected);
        *actual_out = json_object_get(actual);
        return 0;
    }
    pg.partner = malloc((ne ? ne : 1) * sizeof(long));
    e = by_tool(expected, ne);
    t = by_tool(actual, na);
    if (pg.partner == NULL || e == NULL || t == NULL)
        rc = -ENOMEM;
    for (size_t i = 0; rc == 0 && i < ne; i++)
        pg.partner[i] = -1;
    if (rc == 0)
        rc = pair_all(&pg, e, ne, t, na);
    if (rc == 0)
        rc = build_lists(&pg, r->order, a, expected_out, actual_out);
    free(pg.partner);
    free(e);
    free(t);
    return rc;
}
