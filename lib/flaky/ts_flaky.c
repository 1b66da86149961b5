/*
 * ts_flaky — the analysis of one repeated name (see ts_flaky.h).
 *
 * 1. The lists become forms (ts_flaky_forms.c) and the forms groups: the
 *    distinct observations as compared, each with its observations and
 *    outcomes. One group: not flaky.
 * 2. Groups that hold the same calls in another order are reorderings; the
 *    paths are then found with every list in (tool, text) order, so a
 *    reordering alone varies nothing but the order.
 * 3. Every group is lined up with the reference: index by index when the
 *    tools line up, else as the drift report aligns two lists. A position
 *    of the reference, or a call of another group that the reference
 *    lacks, is a slot; a slot missing from some observations is a call
 *    "present in P of N".
 * 4. Each slot's calls are compared with its first call, value by value:
 *    every path where one differs is a varied path, whose values are then
 *    counted over all the observations holding the slot.
 */
#include "ts_flaky_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/ts_report.h"
#include "lib/json/ts_json.h"

typedef struct fl_group {
    size_t form; /* its first form */
    int64_t count;
    int64_t outcomes[TS_RUNREPORT_OUTCOMES];
    const size_t *view;        /* the form's call indexes in analysis order */
    struct json_object *calls; /* those calls as a list */
} fl_group;

typedef struct fl_at {
    size_t group, idx; /* a slot's call: group's view index idx */
} fl_at;

typedef struct fl_slot {
    const char *tool;
    size_t tool_len;
    size_t display; /* the index paths name */
    bool extra;     /* a call the reference lacks: ... */
    size_t gap;     /* ... placed before the reference's call gap, */
    size_t ordinal; /* ... the ordinal-th of its tool there */
    uint64_t hash;  /* of gap, ordinal and tool (extras) */
    fl_at *at;
    size_t nat, capat;
    int64_t present;
} fl_slot;

typedef struct fl_entry {
    size_t slot;
    bool call;
    fl_seg *segs;
    size_t nsegs;
    uint64_t hash;
    ts_flaky_path out;
} fl_entry;

typedef struct fl_ctx {
    const ts_runreport_repeat *rep;
    fl_form *forms;
    size_t nforms;
    fl_group *groups;
    size_t ngroups;
    size_t ref;
    size_t *identity; /* 0, 1, 2, ... for views in order */
    fl_slot *slots;
    size_t nslots, capslots;
    size_t *extra_map; /* open addressing: extra slot index + 1 */
    size_t extra_cap, nextra;
    fl_entry *entries;
    size_t nentries, capentries;
    size_t *entry_map; /* open addressing: entry index + 1 */
    size_t entry_cap;
    uint64_t *untracked; /* hashes of paths past TS_FLAKY_TRACKED */
    size_t nuntracked, capuntracked;
    fl_seg *stack;
    size_t depth, capstack;
    int64_t analysed;
    int rc;
} fl_ctx;

/* ---- groups ------------------------------------------------------------ */

static int group_forms(fl_ctx *x, bool multiset)
{
    free(x->groups);
    x->ngroups = 0;
    x->groups = calloc(x->nforms ? x->nforms : 1, sizeof(*x->groups));
    if (x->groups == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < x->nforms; i++) {
        const ts_runreport_list *l = &x->rep->lists[x->forms[i].list];
        fl_group *g = NULL;

        for (size_t j = 0; j < x->ngroups && g == NULL; j++) {
            if (fl_forms_same(&x->forms[x->groups[j].form], &x->forms[i], multiset))
                g = &x->groups[j];
        }
        if (g == NULL) {
            g = &x->groups[x->ngroups++];
            g->form = i;
        }
        g->count += l->count;
        for (int o = 0; o < TS_RUNREPORT_OUTCOMES; o++)
            g->outcomes[o] += l->outcomes[o];
    }
    return 0;
}

/* The reference: the pending recording (the list CREATED) before
 * approval, else the most PASSED observations, then the most
 * observations, then the first seen. */
static size_t reference(const fl_ctx *x, bool pending)
{
    size_t best = 0;

    for (size_t i = 1; i < x->ngroups; i++) {
        const fl_group *g = &x->groups[i], *b = &x->groups[best];

        if (pending ? g->outcomes[TS_RUNREPORT_CREATED] > b->outcomes[TS_RUNREPORT_CREATED] ||
                          (g->outcomes[TS_RUNREPORT_CREATED] == b->outcomes[TS_RUNREPORT_CREATED] &&
                           g->count > b->count)
                    : g->outcomes[TS_RUNREPORT_PASSED] > b->outcomes[TS_RUNREPORT_PASSED] ||
                          (g->outcomes[TS_RUNREPORT_PASSED] == b->outcomes[TS_RUNREPORT_PASSED] &&
                           g->count > b->count))
            best = i;
    }
    return best;
}

static int make_views(fl_ctx *x, bool multiset)
{
    for (size_t i = 0; i < x->ngroups; i++) {
        fl_group *g = &x->groups[i];
        const fl_form *f = &x->forms[g->form];

        g->view = multiset ? f->sorted : x->identity;
        g->calls = json_object_new_array_ext((int)(f->n ? f->n : 1));
        if (g->calls == NULL)
            return -ENOMEM;
        for (size_t j = 0; j < f->n; j++) {
            if (json_object_array_add(
                    g->calls, json_object_get(json_object_array_get_idx(f->cmp, g->view[j]))) < 0)
                return -ENOMEM;
        }
    }
    return 0;
}

/* ---- slots ------------------------------------------------------------- */

static const struct json_object *group_call(const fl_ctx *x, size_t group, size_t idx)
{
    return json_object_array_get_idx(x->groups[group].calls, idx);
}

static const char *call_tool(const struct json_object *call, size_t *len)
{
    struct json_object *t = json_object_object_get(call, "tool");

    *len = (size_t)json_object_get_string_len(t);
    return json_object_get_string(t);
}

static bool same_tool(const fl_ctx *x, size_t ga, size_t ia, size_t gb, size_t ib)
{
    size_t la, lb;
    const char *ta = call_tool(group_call(x, ga, ia), &la);
    const char *tb = call_tool(group_call(x, gb, ib), &lb);

    return la == lb && memcmp(ta, tb, la) == 0;
}

static int slot_add_at(fl_slot *s, size_t group, size_t idx)
{
    if (s->nat == s->capat) {
        size_t cap = s->capat ? s->capat * 2 : 4;
        fl_at *a = realloc(s->at, cap * sizeof(*a));

        if (a == NULL)
            return -ENOMEM;
        s->at = a;
        s->capat = cap;
    }
    s->at[s->nat++] = (fl_at){group, idx};
    return 0;
}

static long slot_new(fl_ctx *x, size_t group, size_t idx)
{
    const fl_group *g = &x->groups[group];
    fl_slot *s;

    if (x->nslots == x->capslots) {
        size_t cap = x->capslots ? x->capslots * 2 : 64;
        fl_slot *a = realloc(x->slots, cap * sizeof(*a));

        if (a == NULL)
            return -ENOMEM;
        x->slots = a;
        x->capslots = cap;
    }
    s = &x->slots[x->nslots];
    memset(s, 0, sizeof(*s));
    s->tool = call_tool(group_call(x, group, idx), &s->tool_len);
    s->display = x->forms[g->form].orig[g->view[idx]];
    if (slot_add_at(s, group, idx) < 0)
        return -ENOMEM;
    return (long)x->nslots++;
}

static uint64_t extra_hash(size_t gap, size_t ordinal, const char *tool, size_t len)
{
    uint64_t h = 1469598103934665603ULL ^ ((uint64_t)gap * 0x9E3779B97F4A7C15ULL) ^ ordinal;

    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)tool[i]) * 1099511628211ULL;
    return h;
}

static int extra_map_grow(fl_ctx *x)
{
    size_t cap = x->extra_cap ? x->extra_cap * 2 : 256;
    size_t *m = calloc(cap, sizeof(size_t));

    if (m == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < x->nslots; i++) {
        size_t s;

        if (!x->slots[i].extra)
            continue;
        for (s = x->slots[i].hash & (cap - 1); m[s] != 0; s = (s + 1) & (cap - 1))
            ;
        m[s] = i + 1;
    }
    free(x->extra_map);
    x->extra_map = m;
    x->extra_cap = cap;
    return 0;
}

/* The slot of an extra call of group (view index idx), the ordinal-th of
 * its tool before the reference's call gap: found or made. */
static int extra_at(fl_ctx *x, size_t gap, size_t ordinal, size_t group, size_t idx)
{
    size_t len, s;
    const char *tool = call_tool(group_call(x, group, idx), &len);
    uint64_t h = extra_hash(gap, ordinal, tool, len);
    long n;

    if ((x->nextra + 1) * 2 > x->extra_cap && extra_map_grow(x) < 0)
        return -ENOMEM;
    for (s = h & (x->extra_cap - 1); x->extra_map[s] != 0; s = (s + 1) & (x->extra_cap - 1)) {
        fl_slot *e = &x->slots[x->extra_map[s] - 1];

        if (e->hash == h && e->gap == gap && e->ordinal == ordinal && e->tool_len == len &&
            memcmp(e->tool, tool, len) == 0)
            return slot_add_at(e, group, idx);
    }
    n = slot_new(x, group, idx);
    if (n < 0)
        return -ENOMEM;
    x->slots[n].extra = true;
    x->slots[n].gap = gap;
    x->slots[n].ordinal = ordinal;
    x->slots[n].hash = h;
    x->extra_map[s] = (size_t)n + 1;
    x->nextra++;
    return 0;
}

/* The extras of one opcode: actual[j1..j2) not paired, before the
 * reference's call gap; ordinal counts earlier extras of the same tool. */
static int extras(fl_ctx *x, size_t group, size_t gap, const size_t *js, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        size_t ordinal = 0;

        for (size_t p = 0; p < k && p < 64; p++)
            ordinal += same_tool(x, group, js[p], group, js[k]);
        if (extra_at(x, gap, k < 64 ? ordinal : k, group, js[k]) < 0)
            return -ENOMEM;
    }
    return 0;
}

static bool tools_line_up(const fl_ctx *x, size_t g)
{
    const fl_group *a = &x->groups[x->ref], *b = &x->groups[g];
    size_t n = json_object_array_length(a->calls);

    if (n != json_object_array_length(b->calls))
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!same_tool(x, x->ref, i, g, i))
            return false;
    }
    return true;
}

/* Pair group g's calls with the reference's slots (0 .. n-1). */
static int line_up(fl_ctx *x, size_t g)
{
    ts_align_op *ops = NULL;
    size_t nops = 0;
    size_t *js = NULL;
    int rc = 0;

    if (tools_line_up(x, g)) {
        for (size_t i = 0; i < json_object_array_length(x->groups[g].calls) && rc == 0; i++)
            rc = slot_add_at(&x->slots[i], g, i);
        return rc;
    }
    if (ts_align_calls(x->groups[x->ref].calls, x->groups[g].calls, &ops, &nops) < 0)
        return -ENOMEM;
    js = malloc((json_object_array_length(x->groups[g].calls) + 1) * sizeof(size_t));
    if (js == NULL)
        rc = -ENOMEM;
    for (size_t o = 0; o < nops && rc == 0; o++) {
        const ts_align_op *op = &ops[o];
        size_t m = op->tag == 'd' || op->tag == 'i'    ? 0
                   : op->i2 - op->i1 < op->j2 - op->j1 ? op->i2 - op->i1
                                                       : op->j2 - op->j1;
        size_t nj = 0;

        for (size_t t = 0; t < m && rc == 0; t++) {
            if (same_tool(x, x->ref, op->i1 + t, g, op->j1 + t))
                rc = slot_add_at(&x->slots[op->i1 + t], g, op->j1 + t);
            else
                js[nj++] = op->j1 + t;
        }
        for (size_t j = op->j1 + m; j < op->j2 && op->tag != 'd'; j++)
            js[nj++] = j;
        if (rc == 0)
            rc = extras(x, g, op->i1, js, nj);
    }
    free(js);
    free(ops);
    return rc;
}

/* ---- varied paths ------------------------------------------------------ */

static uint64_t entry_hash(size_t slot, const fl_seg *segs, size_t n)
{
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)slot * 0x9E3779B97F4A7C15ULL;

    for (size_t i = 0; i < n; i++) {
        if (segs[i].key != NULL) {
            for (const char *c = segs[i].key; *c; c++)
                h = (h ^ (unsigned char)*c) * 1099511628211ULL;
            h = (h ^ 0xFF) * 1099511628211ULL;
        } else {
            h = (h ^ (segs[i].index + 0x100)) * 1099511628211ULL;
        }
        h = (h ^ 0xFE) * 1099511628211ULL;
    }
    return h;
}

static bool entry_is(const fl_entry *e, size_t slot, const fl_seg *segs, size_t n)
{
    if (e->slot != slot || e->nsegs != n || e->call)
        return false;
    for (size_t i = 0; i < n; i++) {
        if ((e->segs[i].key == NULL) != (segs[i].key == NULL) ||
            (segs[i].key != NULL ? strcmp(e->segs[i].key, segs[i].key) != 0
                                 : e->segs[i].index != segs[i].index))
            return false;
    }
    return true;
}

static int map_grow(fl_ctx *x)
{
    size_t cap = x->entry_cap ? x->entry_cap * 2 : 256;
    size_t *m = calloc(cap, sizeof(size_t));

    if (m == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < x->nentries; i++) {
        size_t s = x->entries[i].hash & (cap - 1);

        while (m[s] != 0)
            s = (s + 1) & (cap - 1);
        m[s] = i + 1;
    }
    free(x->entry_map);
    x->entry_map = m;
    x->entry_cap = cap;
    return 0;
}

static int untracked_add(fl_ctx *x, uint64_t h)
{
    for (size_t i = 0; i < x->nuntracked; i++) {
        if (x->untracked[i] == h)
            return 0;
    }
    if (x->nuntracked >= TS_FLAKY_TRACKED) /* counted no further */
        return 0;
    if (x->nuntracked == x->capuntracked) {
        size_t cap = x->capuntracked ? x->capuntracked * 2 : 64;
        uint64_t *a = realloc(x->untracked, cap * sizeof(*a));

        if (a == NULL)
            return -ENOMEM;
        x->untracked = a;
        x->capuntracked = cap;
    }
    x->untracked[x->nuntracked++] = h;
    return 0;
}

static fl_entry *entry_new(fl_ctx *x, size_t slot, bool call)
{
    fl_entry *e;

    if (x->nentries == x->capentries) {
        size_t cap = x->capentries ? x->capentries * 2 : 32;
        fl_entry *a = realloc(x->entries, cap * sizeof(*a));

        if (a == NULL)
            return NULL;
        x->entries = a;
        x->capentries = cap;
    }
    e = &x->entries[x->nentries];
    memset(e, 0, sizeof(*e));
    e->slot = slot;
    e->call = call;
    x->nentries++;
    return e;
}

/* The current path (x->stack) of slot varied. */
static void record(fl_ctx *x, size_t slot)
{
    uint64_t h = entry_hash(slot, x->stack, x->depth);
    size_t s;
    fl_entry *e;

    if (x->rc < 0)
        return;
    if ((x->nentries + 1) * 2 > x->entry_cap && map_grow(x) < 0) {
        x->rc = -ENOMEM;
        return;
    }
    for (s = h & (x->entry_cap - 1); x->entry_map[s] != 0; s = (s + 1) & (x->entry_cap - 1)) {
        const fl_entry *old = &x->entries[x->entry_map[s] - 1];

        if (old->hash == h && entry_is(old, slot, x->stack, x->depth))
            return;
    }
    if (x->nentries >= TS_FLAKY_TRACKED) {
        if (untracked_add(x, h) < 0)
            x->rc = -ENOMEM;
        return;
    }
    e = entry_new(x, slot, false);
    if (e == NULL || (e->segs = calloc(x->depth ? x->depth : 1, sizeof(fl_seg))) == NULL) {
        x->rc = -ENOMEM;
        return;
    }
    e->hash = h;
    x->entry_map[s] = x->nentries;
    for (size_t i = 0; i < x->depth; i++) {
        e->segs[i].index = x->stack[i].index;
        if (x->stack[i].key != NULL && (e->segs[i].key = strdup(x->stack[i].key)) == NULL) {
            x->rc = -ENOMEM;
            return;
        }
        e->nsegs++;
    }
}

static bool push(fl_ctx *x, const char *key, size_t index)
{
    if (x->depth == x->capstack) {
        size_t cap = x->capstack ? x->capstack * 2 : 16;
        fl_seg *a = realloc(x->stack, cap * sizeof(*a));

        if (a == NULL) {
            x->rc = -ENOMEM;
            return false;
        }
        x->stack = a;
        x->capstack = cap;
    }
    x->stack[x->depth++] = (fl_seg){(char *)key, index};
    return true;
}

/* Record every path below the current one where a and b differ (a side
 * not present differs from any value). */
static void collect(fl_ctx *x, size_t slot, const struct json_object *a, bool has_a,
                    const struct json_object *b, bool has_b)
{
    if (x->rc < 0)
        return;
    if (has_a && has_b) {
        if (json_object_is_type(a, json_type_object) && json_object_is_type(b, json_type_object)) {
            json_object_object_foreach((struct json_object *)a, ka, va)
            {
                struct json_object *vb = NULL;
                bool in_b = json_object_object_get_ex(b, ka, &vb);

                if (push(x, ka, 0)) {
                    collect(x, slot, va, true, vb, in_b);
                    x->depth--;
                }
            }
            json_object_object_foreach((struct json_object *)b, kb, vb2)
            {
                (void)vb2;
                if (!json_object_object_get_ex(a, kb, NULL) && push(x, kb, 0)) {
                    record(x, slot);
                    x->depth--;
                }
            }
            return;
        }
        if (json_object_is_type(a, json_type_array) && json_object_is_type(b, json_type_array)) {
            size_t na = json_object_array_length(a), nb = json_object_array_length(b);

            for (size_t i = 0; i < (na > nb ? na : nb); i++) {
                if (!push(x, NULL, i))
                    return;
                if (i < na && i < nb)
                    collect(x, slot, json_object_array_get_idx(a, i), true,
                            json_object_array_get_idx(b, i), true);
                else
                    record(x, slot);
                x->depth--;
            }
            return;
        }
        if (ts_json_equal(a, b))
            return;
    }
    record(x, slot);
}

static const char *call_text(const fl_ctx *x, const fl_at *at)
{
    const fl_group *g = &x->groups[at->group];

    return x->forms[g->form].texts[g->view[at->idx]];
}

static void slot_paths(fl_ctx *x, size_t slot)
{
    const fl_slot *s = &x->slots[slot];
    const struct json_object *first = group_call(x, s->at[0].group, s->at[0].idx);
    const char *first_text = call_text(x, &s->at[0]);

    for (size_t i = 1; i < s->nat && x->rc == 0; i++) {
        if (strcmp(call_text(x, &s->at[i]), first_text) == 0)
            continue;
        x->depth = 0;
        collect(x, slot, first, true, group_call(x, s->at[i].group, s->at[i].idx), true);
    }
}

/* The value at e's path in call, or false when there is none. */
static bool value_at(const struct json_object *call, const fl_seg *segs, size_t n,
                     const struct json_object **out)
{
    const struct json_object *v = call;

    for (size_t i = 0; i < n; i++) {
        struct json_object *next = NULL;

        if (segs[i].key != NULL) {
            if (!json_object_is_type(v, json_type_object) ||
                !json_object_object_get_ex(v, segs[i].key, &next))
                return false;
        } else {
            if (!json_object_is_type(v, json_type_array) ||
                segs[i].index >= json_object_array_length(v))
                return false;
            next = json_object_array_get_idx(v, segs[i].index);
        }
        v = next;
    }
    *out = v;
    return true;
}

typedef struct fl_value {
    const struct json_object *v;
    int64_t count;
    size_t first;
} fl_value;

static int compare_values(const void *a, const void *b)
{
    const fl_value *x = a, *y = b;

    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Count e's values over the observations holding its slot. */
static int tally(fl_ctx *x, fl_entry *e)
{
    const fl_slot *s = &x->slots[e->slot];
    fl_value *vals = calloc(s->nat ? s->nat : 1, sizeof(*vals));
    size_t nv = 0;

    if (vals == NULL)
        return -ENOMEM;
    e->out.of = s->present;
    for (size_t i = 0; i < s->nat; i++) {
        const struct json_object *v;
        int64_t count = x->groups[s->at[i].group].count;
        size_t j;

        if (!value_at(group_call(x, s->at[i].group, s->at[i].idx), e->segs, e->nsegs, &v))
            continue;
        e->out.present += count;
        for (j = 0; j < nv && !ts_json_equal(vals[j].v, v); j++)
            ;
        if (j == nv)
            vals[nv++] = (fl_value){v, 0, j};
        vals[j].count += count;
    }
    qsort(vals, nv, sizeof(*vals), compare_values);
    e->out.values = (int64_t)nv;
    for (size_t j = 0; j < nv && j < TS_FLAKY_SAMPLES; j++)
        e->out.samples[e->out.nsamples++] = (ts_flaky_sample){vals[j].v, vals[j].count};
    free(vals);
    return 0;
}

/* ---- putting it together ----------------------------------------------- */

static int compare_entries(const void *a, const void *b, void *arg)
{
    const fl_ctx *x = arg;
    const fl_entry *p = *(fl_entry *const *)a, *q = *(fl_entry *const *)b;
    size_t dp = x->slots[p->slot].display, dq = x->slots[q->slot].display;

    if (dp != dq)
        return dp < dq ? -1 : 1;
    if (p->slot != q->slot)
        return p->slot < q->slot ? -1 : 1;
    if (p->call != q->call)
        return p->call ? -1 : 1;
    /* Keys by name before indexes, indexes by number, shorter first. */
    for (size_t i = 0; i < p->nsegs && i < q->nsegs; i++) {
        const fl_seg *u = &p->segs[i], *w = &q->segs[i];
        int c;

        if ((u->key == NULL) != (w->key == NULL))
            return u->key != NULL ? -1 : 1;
        c = u->key != NULL ? strcmp(u->key, w->key) : (u->index > w->index) - (u->index < w->index);
        if (c != 0)
            return c;
    }
    return (p->nsegs > q->nsegs) - (p->nsegs < q->nsegs);
}

static int list_paths(fl_ctx *x, ts_flaky *f, fl_entry **order)
{
    size_t n = x->nentries < TS_FLAKY_PATHS ? x->nentries : TS_FLAKY_PATHS;

    f->paths = calloc(n ? n : 1, sizeof(*f->paths));
    if (f->paths == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const fl_entry *e = order[i];
        ts_buf b;

        ts_buf_init(&b, TS_BUF_UNLIMITED);
        fl_path_report(&b, x->slots[e->slot].display, e->segs, e->nsegs);
        f->paths[i] = e->out;
        f->paths[i].path = ts_buf_detach(&b, NULL);
        if (f->paths[i].path == NULL)
            return -ENOMEM;
        f->npaths++;
    }
    f->paths_omitted = x->nentries - n + x->nuntracked;
    return 0;
}

static int analyse(fl_ctx *x, const ts_rules *rules, ts_flaky *f)
{
    bool multiset = ts_rules_order_of(rules) != TS_RULES_ORDER_STRICT;
    size_t maxn = 1, nref;
    fl_entry **order = NULL;
    fl_varied *varied = NULL;
    int rc;

    if (fl_forms_build(x->rep, rules, &x->forms, &x->nforms) < 0 || group_forms(x, multiset) < 0)
        return -ENOMEM;
    for (size_t i = 0; i < x->ngroups; i++)
        x->analysed += x->groups[i].count;
    f->analysed = x->analysed;
    f->distinct = (int64_t)x->ngroups;
    f->flaky = x->ngroups >= 2;
    if (!f->flaky)
        return 0;
    /* Reorderings: a group holding an earlier one's calls in another order. */
    for (size_t i = 1; !multiset && i < x->ngroups; i++) {
        for (size_t j = 0; j < i; j++) {
            if (fl_forms_same(&x->forms[x->groups[j].form], &x->forms[x->groups[i].form], true)) {
                f->reordered = true;
                f->reordered_count += x->groups[i].count;
                break;
            }
        }
    }
    if (f->reordered && group_forms(x, true) < 0)
        return -ENOMEM;
    for (size_t i = 0; i < x->nforms; i++)
        maxn = x->forms[i].n > maxn ? x->forms[i].n : maxn;
    x->identity = malloc(maxn * sizeof(size_t));
    if (x->identity == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < maxn; i++)
        x->identity[i] = i;
    if (make_views(x, multiset || f->reordered) < 0)
        return -ENOMEM;
    x->ref = reference(x, f->pending);
    nref = json_object_array_length(x->groups[x->ref].calls);
    for (size_t i = 0; i < nref; i++) {
        if (slot_new(x, x->ref, i) < 0)
            return -ENOMEM;
    }
    for (size_t g = 0; g < x->ngroups; g++) {
        if (g != x->ref && line_up(x, g) < 0)
            return -ENOMEM;
    }
    for (size_t s = 0; s < x->nslots; s++) {
        fl_slot *sl = &x->slots[s];

        for (size_t i = 0; i < sl->nat; i++)
            sl->present += x->groups[sl->at[i].group].count;
        if (sl->present < x->analysed) {
            fl_entry *e = entry_new(x, s, true);

            if (e == NULL)
                return -ENOMEM;
            e->out.call = true;
            e->out.present = sl->present;
            e->out.of = x->analysed;
        }
        slot_paths(x, s);
        if (x->rc < 0)
            return x->rc;
    }
    order = malloc((x->nentries ? x->nentries : 1) * sizeof(*order));
    varied = calloc(x->nentries ? x->nentries : 1, sizeof(*varied));
    rc = order == NULL || varied == NULL ? -ENOMEM : 0;
    for (size_t i = 0; i < x->nentries && rc == 0; i++) {
        fl_entry *e = &x->entries[i];

        order[i] = e;
        if (!e->call)
            rc = tally(x, e);
    }
    if (rc == 0) {
        qsort_r(order, x->nentries, sizeof(*order), compare_entries, x);
        rc = list_paths(x, f, order);
    }
    for (size_t i = 0; i < x->nentries && rc == 0; i++) {
        const fl_entry *e = order[i];
        const fl_slot *s = &x->slots[e->slot];

        varied[i] = (fl_varied){s->tool, s->tool_len, e->call, e->segs, e->nsegs};
    }
    if (rc == 0)
        rc = fl_suggest(x->rep, rules, varied, x->nentries, f->reordered && !multiset, &f->suggest);
    free(order);
    free(varied);
    return rc;
}

static void ctx_free(fl_ctx *x)
{
    for (size_t i = 0; i < x->ngroups; i++)
        json_object_put(x->groups[i].calls);
    free(x->groups);
    for (size_t i = 0; i < x->nslots; i++)
        free(x->slots[i].at);
    free(x->slots);
    free(x->extra_map);
    for (size_t i = 0; i < x->nentries; i++) {
        for (size_t j = 0; j < x->entries[i].nsegs; j++)
            free(x->entries[i].segs[j].key);
        free(x->entries[i].segs);
    }
    free(x->entries);
    free(x->entry_map);
    free(x->untracked);
    free(x->stack);
    free(x->identity);
    fl_forms_free(x->forms, x->nforms);
}

int ts_flaky_analyse(const ts_runreport_repeat *rep, const ts_rules *rules, ts_flaky *f,
                     ts_error *err)
{
    fl_ctx x;
    int rc;

    memset(f, 0, sizeof(*f));
    memset(&x, 0, sizeof(x));
    f->name = rep->name;
    f->observations = rep->observations;
    f->k = rep->k;
    f->pass_all = rep->pass_all;
    f->pass_any = rep->pass_any;
    f->pending = rep->k == 0 && rep->outcomes[TS_RUNREPORT_CREATED] +
                                        rep->outcomes[TS_RUNREPORT_PENDING] +
                                        rep->outcomes[TS_RUNREPORT_ERROR_PENDING_IN_CI] >
                                    0;
    x.rep = rep;
    rc = analyse(&x, rules, f);
    if (rc == 0 && f->flaky) {
        /* The samples point into the groups' calls: keep them. */
        f->held = json_object_new_array();
        for (size_t i = 0; f->held != NULL && i < x.ngroups; i++)
            json_object_array_add(f->held, json_object_get(x.groups[i].calls));
        rc = f->held == NULL ? -ENOMEM : fl_line(f);
    }
    ctx_free(&x);
    if (rc < 0) {
        ts_flaky_free(f);
        f->name = rep->name;
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory analysing '%s'",
                            rep->name);
    }
    return 0;
}

void ts_flaky_free(ts_flaky *f)
{
    for (size_t i = 0; f->paths != NULL && i < f->npaths; i++)
        free(f->paths[i].path);
    free(f->paths);
    json_object_put(f->suggest);
    json_object_put(f->held);
    free(f->line);
    memset(f, 0, sizeof(*f));
}
