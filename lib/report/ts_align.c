/*
 * ts_align — lining up two call lists (see ts_report.h).
 *
 * Two passes of difflib's SequenceMatcher (without junk): first over whole
 * calls (equal calls, equal ids: a call that did not change anchors the
 * alignment), then, inside each stretch the first pass could not match,
 * over tool names (a changed call pairs with a call of the same tool).
 *
 * The matcher does as difflib does: find the longest matching block
 * (earliest in a, then in b), recurse on both sides, merge adjacent blocks,
 * and turn the gaps between blocks into replace/delete/insert opcodes. The
 * j2len rows are arrays indexed by position, cleared entry by entry, so a
 * search costs the number of matching pairs it visits. Those visits are
 * counted against a budget (TS_ALIGN_BUDGET per pass); when it runs out
 * the lists are aligned the cheap way (see ts_report.h).
 */
#include "lib/report/ts_report.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/score/ts_score.h"

/* One call seen by the id assignment. */
typedef struct call_ref {
    const char *name;
    size_t len;
    struct json_object *args; /* whole calls: the args, or NULL when absent or null */
    uint64_t hash;            /* whole calls: of the tool and the args */
    int *id;
} call_ref;

static int compare_names(const call_ref *a, const call_ref *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int d = memcmp(a->name, b->name, n);

    if (d != 0)
        return d;
    return a->len < b->len ? -1 : a->len > b->len ? 1 : 0;
}

static int compare_by_name(const void *pa, const void *pb)
{
    return compare_names(pa, pb);
}

static int compare_by_hash(const void *pa, const void *pb)
{
    const call_ref *a = pa, *b = pb;

    if (a->hash != b->hash)
        return a->hash < b->hash ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id; /* stable: by position */
}

static void collect(const struct json_object *list, size_t from, size_t to, int *ids,
                    call_ref *refs)
{
    for (size_t i = from; i < to; i++) {
        struct json_object *call = json_object_array_get_idx(list, i), *args = NULL;
        struct json_object *tool = json_object_object_get(call, "tool");
        call_ref *r = &refs[i - from];
        r->name = json_object_get_string(tool);
        r->len = (size_t)json_object_get_string_len(tool);
        json_object_object_get_ex(call, "args", &args);
        r->args = json_object_is_type(args, json_type_object) ? args : NULL;
        r->hash = 0;
        r->id = &ids[i];
    }
}

/* Ids by tool name for expected[ga..gb) and actual[ta..tb) (equal names,
 * equal ids, numbered from 0); returns the number of names. */
static int name_ids(const struct json_object *expected, size_t ga, size_t gb,
                    const struct json_object *actual, size_t ta, size_t tb, int *a, int *b,
                    size_t *names)
{
    size_t n = (gb - ga) + (tb - ta), k = 0;
    call_ref *refs = malloc((n + 1) * sizeof(*refs));

    if (refs == NULL)
        return -ENOMEM;
    collect(expected, ga, gb, a, refs);
    collect(actual, ta, tb, b, refs + (gb - ga));
    qsort(refs, n, sizeof(*refs), compare_by_name);
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && compare_names(&refs[i - 1], &refs[i]) != 0)
            k++;
        *refs[i].id = (int)k;
    }
    *names = n > 0 ? k + 1 : 0;
    free(refs);
    return 0;
}

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
}

static uint64_t hash_bytes(const char *s, size_t len, uint64_t h)
{
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    return mix(h ^ len);
}

/* A hash of v under the comparison ids use (ts_values_equal strict:
 * types kept, keys in any order, -0.0 as 0.0). */
static uint64_t hash_value(const struct json_object *v)
{
    enum json_type t = json_object_get_type(v);
    uint64_t h = mix((uint64_t)t + 1);
    double d;

    switch (t) {
    case json_type_null:
        return h;
    case json_type_boolean:
        return mix(h ^ (uint64_t)json_object_get_boolean(v));
    case json_type_int:
        return mix(h ^ (uint64_t)json_object_get_int64(v) ^ mix(json_object_get_uint64(v)));
    case json_type_double:
        d = json_object_get_double(v);
        if (d == 0.0)
            d = 0.0;
        {
            uint64_t bits;
            memcpy(&bits, &d, sizeof(bits));
            return mix(h ^ bits);
        }
    case json_type_string:
        return hash_bytes(json_object_get_string((struct json_object *)v),
                          (size_t)json_object_get_string_len(v), h);
    case json_type_array:
        for (size_t i = 0; i < json_object_array_length(v); i++)
            h = mix(h * 31 + hash_value(json_object_array_get_idx(v, i)));
        return h;
    case json_type_object: {
        uint64_t sum = 0; /* commutative: key order does not count */
        json_object_object_foreach((struct json_object *)v, key, val)
        {
            sum += mix(hash_bytes(key, strlen(key), 7) ^ hash_value(val));
        }
        return mix(h ^ sum);
    }
    }
    return h;
}

static bool same_call(const call_ref *a, const call_ref *b)
{
    if (compare_names(a, b) != 0 || (a->args == NULL) != (b->args == NULL))
        return false;
    return a->args == NULL || ts_values_equal(a->args, b->args, true, false);
}

#define SAME_HASH_IDS 8 /* distinct calls compared within one hash value */

/* Ids by whole call for both lists (equal tool and args, equal ids; args
 * absent or null a value of its own); returns the number of distinct calls.
 * Calls whose hashes collide are compared; past SAME_HASH_IDS distinct ones
 * under one hash, a call gets an id of its own (only alignment suffers). */
static int call_ids(const struct json_object *expected, size_t na, const struct json_object *actual,
                    size_t nb, int *a, int *b, size_t *count)
{
    size_t n = na + nb, next = 0;
    call_ref *refs = malloc((n + 1) * sizeof(*refs));

    if (refs == NULL)
        return -ENOMEM;
    collect(expected, 0, na, a, refs);
    collect(actual, 0, nb, b, refs + na);
    for (size_t i = 0; i < n; i++)
        refs[i].hash = mix(hash_bytes(refs[i].name, refs[i].len, 1) ^
                           (refs[i].args ? hash_value(refs[i].args) : 0x9e3779b97f4a7c15ULL));
    qsort(refs, n, sizeof(*refs), compare_by_hash);
    for (size_t i = 0; i < n;) {
        size_t j = i, reps[SAME_HASH_IDS], n_reps = 0;
        while (j < n && refs[j].hash == refs[i].hash)
            j++;
        for (size_t k = i; k < j; k++) {
            size_t r = 0;
            while (r < n_reps && !same_call(&refs[reps[r]], &refs[k]))
                r++;
            if (r < n_reps) {
                *refs[k].id = *refs[reps[r]].id;
                continue;
            }
            *refs[k].id = (int)next++;
            if (n_reps < SAME_HASH_IDS)
                reps[n_reps++] = k;
        }
        i = j;
    }
    *count = next;
    free(refs);
    return 0;
}

typedef struct block {
    size_t i, j, size;
} block;

typedef struct matcher {
    const int *a, *b;
    size_t na, nb;
    size_t *b2j_start; /* per id: offsets into b2j (positions of id in b) */
    size_t *b2j;
    size_t *prev, *cur;         /* j2len rows, indexed by j + 1 */
    size_t *prev_set, *cur_set; /* which entries of prev/cur are non-zero */
    size_t n_prev, n_cur;
    block *blocks;
    size_t n_blocks;
    size_t *budget; /* matching pairs that may still be visited (shared) */
} matcher;

static void matcher_free(matcher *m)
{
    free(m->b2j_start);
    free(m->b2j);
    free(m->prev);
    free(m->cur);
    free(m->prev_set);
    free(m->cur_set);
    free(m->blocks);
}

static int matcher_init(matcher *m, const int *a, size_t na, const int *b, size_t nb, size_t names,
                        size_t *budget)
{
    size_t *fill;

    memset(m, 0, sizeof(*m));
    m->a = a;
    m->b = b;
    m->na = na;
    m->nb = nb;
    m->budget = budget;
    m->b2j_start = calloc(names + 1, sizeof(size_t));
    m->b2j = malloc((nb + 1) * sizeof(size_t));
    m->prev = calloc(nb + 2, sizeof(size_t));
    m->cur = calloc(nb + 2, sizeof(size_t));
    m->prev_set = malloc((nb + 1) * sizeof(size_t));
    m->cur_set = malloc((nb + 1) * sizeof(size_t));
    m->blocks = malloc((na + 2) * sizeof(block));
    fill = calloc(names + 1, sizeof(size_t));
    if (!m->b2j_start || !m->b2j || !m->prev || !m->cur || !m->prev_set || !m->cur_set ||
        !m->blocks || !fill) {
        free(fill);
        return -ENOMEM;
    }
    for (size_t j = 0; j < nb; j++)
        m->b2j_start[b[j] + 1]++;
    for (size_t id = 0; id < names; id++)
        m->b2j_start[id + 1] += m->b2j_start[id];
    for (size_t j = 0; j < nb; j++)
        m->b2j[m->b2j_start[b[j]] + fill[b[j]]++] = j;
    free(fill);
    return 0;
}

/* SequenceMatcher.find_longest_match without junk: the longest matching
 * block in a[alo:ahi] x b[blo:bhi], earliest in a, then earliest in b.
 * Each visited pair spends one unit of the budget; once it is spent the
 * search goes on without looking (the caller then discards the result). */
static block longest_match(matcher *m, size_t alo, size_t ahi, size_t blo, size_t bhi)
{
    block best = {alo, blo, 0};

    m->n_prev = 0;
    for (size_t i = alo; i<ahi && * m->budget> 0; i++) {
        int id = m->a[i];
        m->n_cur = 0;
        for (size_t p = m->b2j_start[id]; p < m->b2j_start[id + 1]; p++) {
            size_t j = m->b2j[p], k;
            if (j < blo)
                continue;
            if (j >= bhi || *m->budget == 0)
                break;
            (*m->budget)--;
            k = m->prev[j] + 1; /* prev is indexed by j + 1, so prev[j] is j - 1 */
            m->cur[j + 1] = k;
            m->cur_set[m->n_cur++] = j + 1;
            if (k > best.size) {
                best.i = i + 1 - k;
                best.j = j + 1 - k;
                best.size = k;
            }
        }
        for (size_t p = 0; p < m->n_prev; p++)
            m->prev[m->prev_set[p]] = 0;
        {
            size_t *t = m->prev, *ts = m->prev_set;
            m->prev = m->cur;
            m->prev_set = m->cur_set;
            m->n_prev = m->n_cur;
            m->cur = t;
            m->cur_set = ts;
        }
    }
    for (size_t p = 0; p < m->n_prev; p++)
        m->prev[m->prev_set[p]] = 0;
    return best;
}

static int compare_blocks(const void *pa, const void *pb)
{
    const block *a = pa, *b = pb;

    return a->i < b->i ? -1 : a->i > b->i ? 1 : 0;
}

typedef struct range {
    size_t alo, ahi, blo, bhi;
} range;

/* SequenceMatcher.get_matching_blocks, merged, without the sentinel. */
static int matching_blocks(matcher *m)
{
    range *stack = malloc((m->na + 2) * sizeof(*stack));
    size_t top = 0, merged = 0;

    if (stack == NULL)
        return -ENOMEM;
    stack[top++] = (range){0, m->na, 0, m->nb};
    while (top > 0 && *m->budget > 0) {
        range r = stack[--top];
        block x = longest_match(m, r.alo, r.ahi, r.blo, r.bhi);
        if (x.size == 0)
            continue;
        m->blocks[m->n_blocks++] = x;
        if (r.alo < x.i && r.blo < x.j)
            stack[top++] = (range){r.alo, x.i, r.blo, x.j};
        if (x.i + x.size < r.ahi && x.j + x.size < r.bhi)
            stack[top++] = (range){x.i + x.size, r.ahi, x.j + x.size, r.bhi};
    }
    free(stack);
    if (*m->budget == 0)
        return -E2BIG;
    qsort(m->blocks, m->n_blocks, sizeof(block), compare_blocks);
    for (size_t k = 0; k < m->n_blocks; k++) {
        block *last = merged ? &m->blocks[merged - 1] : NULL;
        if (last && last->i + last->size == m->blocks[k].i &&
            last->j + last->size == m->blocks[k].j)
            last->size += m->blocks[k].size;
        else
            m->blocks[merged++] = m->blocks[k];
    }
    m->n_blocks = merged;
    return 0;
}

/* SequenceMatcher.get_ts_align_ops; *ops is owned by the caller. */
static int opcodes(matcher *m, ts_align_op **ops, size_t *n_ops)
{
    size_t i = 0, j = 0, n = 0;
    ts_align_op *o = malloc((2 * m->n_blocks + 2) * sizeof(*o));

    if (o == NULL)
        return -ENOMEM;
    for (size_t k = 0; k <= m->n_blocks; k++) {
        block b = k < m->n_blocks ? m->blocks[k] : (block){m->na, m->nb, 0};
        char tag = 0;
        if (i < b.i && j < b.j)
            tag = 'r';
        else if (i < b.i)
            tag = 'd';
        else if (j < b.j)
            tag = 'i';
        if (tag)
            o[n++] = (ts_align_op){tag, i, b.i, j, b.j};
        i = b.i + b.size;
        j = b.j + b.size;
        if (b.size)
            o[n++] = (ts_align_op){'e', b.i, i, b.j, j};
    }
    *ops = o;
    *n_ops = n;
    return 0;
}

/* Opcodes under construction. */
typedef struct op_list {
    ts_align_op *ops;
    size_t n, cap;
} op_list;

/* Append op, merged into the last one when both are equal blocks that
 * touch. */
static int push(op_list *l, ts_align_op op)
{
    ts_align_op *last = l->n > 0 ? &l->ops[l->n - 1] : NULL;

    if (op.i1 == op.i2 && op.j1 == op.j2)
        return 0;
    if (last != NULL && last->tag == 'e' && op.tag == 'e' && last->i2 == op.i1 &&
        last->j2 == op.j1) {
        last->i2 = op.i2;
        last->j2 = op.j2;
        return 0;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        ts_align_op *p = realloc(l->ops, cap * sizeof(*p));
        if (p == NULL)
            return -ENOMEM;
        l->ops = p;
        l->cap = cap;
    }
    l->ops[l->n++] = op;
    return 0;
}

static char gap_tag(size_t na, size_t nb)
{
    return na == 0 ? 'i' : nb == 0 ? 'd' : 'r';
}

/* difflib's opcodes for a[0..na) x b[0..nb), positions shifted by (da,
 * db), appended to l; -E2BIG when the budget ran out (nothing appended). */
static int difflib_ops(const int *a, size_t na, const int *b, size_t nb, size_t ids, size_t da,
                       size_t db, size_t *budget, op_list *l)
{
    ts_align_op *sub = NULL;
    size_t n_sub = 0;
    matcher m;
    int rc = matcher_init(&m, a, na, b, nb, ids, budget);

    if (rc == 0)
        rc = matching_blocks(&m);
    if (rc == 0)
        rc = opcodes(&m, &sub, &n_sub);
    for (size_t k = 0; rc == 0 && k < n_sub; k++)
        rc = push(l, (ts_align_op){sub[k].tag, sub[k].i1 + da, sub[k].i2 + da, sub[k].j1 + db,
                                   sub[k].j2 + db});
    free(sub);
    matcher_free(&m);
    return rc;
}

/*
 * difflib over ids, or, when that is too costly: the common head and tail
 * of equal ids as equal blocks and difflib (with a fresh budget) between
 * them, or, when that is still too costly, the middle as one block.
 */
static int align_ids(const int *a, size_t na, const int *b, size_t nb, size_t ids, op_list *l)
{
    size_t budget = TS_ALIGN_BUDGET, head = 0, tail = 0, ma, mb, before = l->n;
    int rc = difflib_ops(a, na, b, nb, ids, 0, 0, &budget, l);

    if (rc != -E2BIG)
        return rc;
    l->n = before;
    while (head < na && head < nb && a[head] == b[head])
        head++;
    while (tail < na - head && tail < nb - head && a[na - 1 - tail] == b[nb - 1 - tail])
        tail++;
    ma = na - head - tail;
    mb = nb - head - tail;
    rc = push(l, (ts_align_op){'e', 0, head, 0, head});
    if (rc == 0 && (ma > 0 || mb > 0)) {
        budget = TS_ALIGN_BUDGET;
        before = l->n;
        rc = difflib_ops(a + head, ma, b + head, mb, ids, head, head, &budget, l);
        if (rc == -E2BIG) {
            l->n = before;
            rc = push(l, (ts_align_op){gap_tag(ma, mb), head, na - tail, head, nb - tail});
        }
    }
    if (rc == 0)
        rc = push(l, (ts_align_op){'e', na - tail, na, nb - tail, nb});
    return rc;
}

/* The second pass: a stretch the calls did not match, aligned by tool
 * names (the stretch kept as it is when the budget has run out). */
static int by_names(const struct json_object *expected, const struct json_object *actual,
                    const ts_align_op *gap, int *a, int *b, size_t *budget, op_list *l)
{
    size_t na = gap->i2 - gap->i1, nb = gap->j2 - gap->j1, names, before = l->n;
    int rc;

    if (na == 0 || nb == 0 || *budget == 0)
        return push(l, *gap);
    rc = name_ids(expected, gap->i1, gap->i2, actual, gap->j1, gap->j2, a, b, &names);
    if (rc == 0)
        rc = difflib_ops(a + gap->i1, na, b + gap->j1, nb, names, gap->i1, gap->j1, budget, l);
    if (rc == -E2BIG) {
        l->n = before;
        rc = push(l, *gap);
    }
    return rc;
}

int ts_align_calls(const struct json_object *expected, const struct json_object *actual,
                   ts_align_op **ops, size_t *n_ops)
{
    size_t na = json_object_array_length(expected), nb = json_object_array_length(actual);
    size_t calls = 0, budget = TS_ALIGN_BUDGET;
    int *a = malloc((na + 1) * sizeof(int)), *b = malloc((nb + 1) * sizeof(int));
    op_list first = {NULL, 0, 0}, out = {NULL, 0, 0};
    int rc = a != NULL && b != NULL ? 0 : -ENOMEM;

    if (rc == 0)
        rc = call_ids(expected, na, actual, nb, a, b, &calls);
    if (rc == 0)
        rc = align_ids(a, na, b, nb, calls, &first);
    for (size_t k = 0; rc == 0 && k < first.n; k++)
        rc = first.ops[k].tag == 'e'
                 ? push(&out, first.ops[k])
                 : by_names(expected, actual, &first.ops[k], a, b, &budget, &out);
    free(first.ops);
    free(a);
    free(b);
    if (rc < 0) {
        free(out.ops);
        return rc;
    }
    *ops = out.ops;
    *n_ops = out.n;
    return 0;
}
