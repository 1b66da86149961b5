/*
 * ts_align — SequenceMatcher opcodes over tool names (see ts_align.h).
 *
 * Tool names become integer ids (equal names, equal ids); then, as difflib
 * does without junk: find the longest matching block (earliest in a, then in
 * b), recurse on both sides, merge adjacent blocks, and turn the gaps between
 * blocks into replace/delete/insert opcodes. The j2len rows are arrays
 * indexed by position, cleared entry by entry, so a search costs the number
 * of matching pairs it visits.
 */
#include "ts_align.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct name_ref {
    const char *name;
    size_t len;
    int *id;
} name_ref;

static int compare_refs(const void *pa, const void *pb)
{
    const name_ref *a = pa, *b = pb;
    size_t n = a->len < b->len ? a->len : b->len;
    int d = memcmp(a->name, b->name, n);

    if (d != 0)
        return d;
    return a->len < b->len ? -1 : a->len > b->len ? 1 : 0;
}

static void collect(const struct json_object *list, int *ids, name_ref *refs)
{
    size_t n = json_object_array_length(list);

    for (size_t i = 0; i < n; i++) {
        struct json_object *tool =
            json_object_object_get(json_object_array_get_idx(list, i), "tool");
        refs[i].name = json_object_get_string(tool);
        refs[i].len = (size_t)json_object_get_string_len(tool);
        refs[i].id = &ids[i];
    }
}

/* Ids for both lists (equal names, equal ids); returns the number of names. */
static size_t assign_ids(const struct json_object *expected, const struct json_object *actual,
                         int *a, int *b, name_ref *refs)
{
    size_t na = json_object_array_length(expected), nb = json_object_array_length(actual);
    size_t names = 0;

    collect(expected, a, refs);
    collect(actual, b, refs + na);
    qsort(refs, na + nb, sizeof(*refs), compare_refs);
    for (size_t i = 0; i < na + nb; i++) {
        if (i > 0 && compare_refs(&refs[i - 1], &refs[i]) != 0)
            names++;
        *refs[i].id = (int)names;
    }
    return na + nb > 0 ? names + 1 : 0;
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

static int matcher_init(matcher *m, const int *a, size_t na, const int *b, size_t nb, size_t names)
{
    size_t *fill;

    memset(m, 0, sizeof(*m));
    m->a = a;
    m->b = b;
    m->na = na;
    m->nb = nb;
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
 * block in a[alo:ahi] x b[blo:bhi], earliest in a, then earliest in b. */
static block longest_match(matcher *m, size_t alo, size_t ahi, size_t blo, size_t bhi)
{
    block best = {alo, blo, 0};

    m->n_prev = 0;
    for (size_t i = alo; i < ahi; i++) {
        int id = m->a[i];
        m->n_cur = 0;
        for (size_t p = m->b2j_start[id]; p < m->b2j_start[id + 1]; p++) {
            size_t j = m->b2j[p], k;
            if (j < blo)
                continue;
            if (j >= bhi)
                break;
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
    while (top > 0) {
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

int ts_align_calls(const struct json_object *expected, const struct json_object *actual,
                   ts_align_op **ops, size_t *n_ops)
{
    size_t na = json_object_array_length(expected), nb = json_object_array_length(actual);
    int *a = malloc((na + 1) * sizeof(int)), *b = malloc((nb + 1) * sizeof(int));
    name_ref *refs = malloc((na + nb + 1) * sizeof(*refs));
    matcher m;
    int rc = -ENOMEM;

    memset(&m, 0, sizeof(m));
    if (a != NULL && b != NULL && refs != NULL) {
        size_t names = assign_ids(expected, actual, a, b, refs);
        rc = matcher_init(&m, a, na, b, nb, names);
        if (rc == 0)
            rc = matching_blocks(&m);
        if (rc == 0)
            rc = opcodes(&m, ops, n_ops);
    }
    matcher_free(&m);
    free(refs);
    free(a);
    free(b);
    return rc;
}
