/*
 * ts_flaky_suggest — the rules that would make a flaky name stable, and
 * merging rules into a project's rules object (`tsctl rules suggest
 * --write`).
 *
 * From what varied: an `ignore` pattern `TOOL.args.PATH` per varied value
 * (never `*` for the tool: the narrowest pattern that names it), a
 * `tools.NAME.ignore` per call present in only some observations (no path
 * reaches a whole call), `order: "unordered"` for reorderings. An array
 * index stays literal unless more than TS_FLAKY_GENERALISE patterns differ
 * only by it (`trace[0].id` ... `trace[5].id` become `trace[*].id`), and
 * a pattern below another one of the same tool is dropped. Each candidate
 * is checked by applying it (merged over the rules in force) to every
 * list; when it is not enough, wider ones are tried in turn: every index
 * `[*]`, then the tools' whole `args`, then the tools' calls.
 */
#include "ts_flaky_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"

typedef struct fl_pat {
    const char *tool;
    size_t tool_len;
    const fl_seg *segs;
    size_t nsegs;
    bool *star;
    bool dead;
} fl_pat;

typedef struct fl_tool {
    const char *tool;
    size_t len;
} fl_tool;

typedef struct fl_cand {
    fl_pat *pats;
    size_t npats;
    fl_tool *tools;
    size_t ntools;
} fl_cand;

static bool tool_in(const fl_cand *c, const char *tool, size_t len)
{
    for (size_t i = 0; i < c->ntools; i++) {
        if (c->tools[i].len == len && memcmp(c->tools[i].tool, tool, len) == 0)
            return true;
    }
    return false;
}

static void add_tool(fl_cand *c, const char *tool, size_t len)
{
    if (!tool_in(c, tool, len))
        c->tools[c->ntools++] = (fl_tool){tool, len};
}

static char *pat_text(const fl_pat *p)
{
    ts_buf b;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    fl_path_rule(&b, p->tool, p->tool_len, p->segs, p->nsegs, p->star);
    return ts_buf_detach(&b, NULL);
}

/* Whether q lies below p (or is p): same tool, p's steps a prefix of q's,
 * a starred index of p covering any index. */
static bool covers(const fl_pat *p, const fl_pat *q)
{
    if (p->tool_len != q->tool_len || memcmp(p->tool, q->tool, p->tool_len) != 0 ||
        p->nsegs > q->nsegs)
        return false;
    for (size_t i = 0; i < p->nsegs; i++) {
        const fl_seg *a = &p->segs[i], *b = &q->segs[i];

        if ((a->key == NULL) != (b->key == NULL))
            return false;
        if (a->key != NULL ? strcmp(a->key, b->key) != 0
                           : !p->star[i] && (q->star[i] || a->index != b->index))
            return false;
    }
    return true;
}

/* Drop patterns of ignored tools and patterns below (or equal to) an
 * earlier, or a shorter, one. */
static void prune(fl_cand *c)
{
    for (size_t i = 0; i < c->npats; i++) {
        fl_pat *q = &c->pats[i];

        if (tool_in(c, q->tool, q->tool_len))
            q->dead = true;
        for (size_t j = 0; j < c->npats && !q->dead; j++) {
            const fl_pat *p = &c->pats[j];

            if (j != i && !p->dead && covers(p, q) && (!covers(q, p) || j < i))
                q->dead = true;
        }
    }
}

/* Star the index at depth d of every live pattern in a group of more than
 * TS_FLAKY_GENERALISE that differ only there. -ENOMEM or 0. */
static int generalise_at(fl_cand *c, size_t d)
{
    char **forms = calloc(c->npats ? c->npats : 1, sizeof(char *));
    int rc = forms == NULL ? -ENOMEM : 0;

    for (size_t i = 0; i < c->npats && rc == 0; i++) {
        fl_pat *p = &c->pats[i];

        if (p->dead || d >= p->nsegs || p->segs[d].key != NULL || p->star[d])
            continue;
        p->star[d] = true;
        forms[i] = pat_text(p);
        p->star[d] = false;
        if (forms[i] == NULL)
            rc = -ENOMEM;
    }
    for (size_t i = 0; i < c->npats && rc == 0; i++) {
        size_t same = 0;

        if (forms[i] == NULL)
            continue;
        for (size_t j = 0; j < c->npats; j++)
            same += forms[j] != NULL && strcmp(forms[i], forms[j]) == 0;
        if (same <= TS_FLAKY_GENERALISE)
            continue;
        for (size_t j = i; j < c->npats; j++) {
            if (forms[j] != NULL && j != i && strcmp(forms[i], forms[j]) == 0) {
                c->pats[j].star[d] = true;
                free(forms[j]);
                forms[j] = NULL;
            }
        }
        c->pats[i].star[d] = true;
    }
    for (size_t i = 0; forms != NULL && i < c->npats; i++)
        free(forms[i]);
    free(forms);
    return rc;
}

static void star_all(fl_cand *c)
{
    for (size_t i = 0; i < c->npats; i++) {
        for (size_t d = 0; d < c->pats[i].nsegs; d++)
            c->pats[i].star[d] = c->pats[i].segs[d].key == NULL;
    }
}

/* The candidate as a rules object (NULL: out of memory, or empty). */
static struct json_object *cand_json(const fl_cand *c, bool reordered, bool *oom)
{
    struct json_object *o = json_object_new_object();
    struct json_object *ignore = json_object_new_array();
    struct json_object *tools = json_object_new_object();

    *oom = o == NULL || ignore == NULL || tools == NULL;
    for (size_t i = 0; i < c->npats && !*oom; i++) {
        char *t;
        bool seen = false;

        if (c->pats[i].dead)
            continue;
        t = pat_text(&c->pats[i]);
        if (t == NULL) {
            *oom = true;
            break;
        }
        for (size_t j = 0; j < json_object_array_length(ignore) && !seen; j++)
            seen = strcmp(json_object_get_string(json_object_array_get_idx(ignore, j)), t) == 0;
        if (!seen)
            json_object_array_add(ignore, json_object_new_string(t));
        free(t);
    }
    for (size_t i = 0; i < c->ntools && !*oom; i++) {
        struct json_object *entry = json_object_new_object();
        char *name = strndup(c->tools[i].tool, c->tools[i].len);

        *oom = entry == NULL || name == NULL;
        if (!*oom) {
            json_object_object_add(entry, "ignore", json_object_new_boolean(1));
            json_object_object_add(tools, name, entry);
        } else {
            json_object_put(entry);
        }
        free(name);
    }
    if (!*oom && json_object_array_length(ignore) > 0)
        json_object_object_add(o, "ignore", json_object_get(ignore));
    if (!*oom && reordered)
        json_object_object_add(o, "order", json_object_new_string("unordered"));
    if (!*oom && json_object_object_length(tools) > 0)
        json_object_object_add(o, "tools", json_object_get(tools));
    json_object_put(ignore);
    json_object_put(tools);
    if (*oom || json_object_object_length(o) == 0) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

/* 1 when suggestion (over rules) makes rep stable, 0 when not, -ENOMEM. */
static int works(const ts_runreport_repeat *rep, const ts_rules *rules,
                 const struct json_object *suggestion)
{
    ts_rules *s = NULL, *m = NULL;
    ts_error err;
    int rc;

    rc = ts_rules_from_json(suggestion, NULL, &s, &err);
    if (rc < 0)
        return rc == -ENOMEM ? -ENOMEM : 0;
    rc = ts_rules_merge((ts_rules *)rules, s, &m, &err);
    ts_rules_unref(s);
    if (rc < 0)
        return -ENOMEM;
    rc = fl_stable_under(rep, m);
    ts_rules_unref(m);
    return rc;
}

/* Try c: *out set when it works. */
static int attempt(const ts_runreport_repeat *rep, const ts_rules *rules, const fl_cand *c,
                   bool reordered, struct json_object **out)
{
    bool oom;
    struct json_object *o = cand_json(c, reordered, &oom);
    int rc;

    if (oom)
        return -ENOMEM;
    if (o == NULL)
        return 0;
    rc = works(rep, rules, o);
    if (rc == 1) {
        *out = o;
        return 1;
    }
    json_object_put(o);
    return rc;
}

static int search(const ts_runreport_repeat *rep, const ts_rules *rules, fl_cand *c, bool reordered,
                  struct json_object **out)
{
    size_t depth = 0;
    int rc;

    prune(c);
    for (size_t i = 0; i < c->npats; i++)
        depth = c->pats[i].nsegs > depth ? c->pats[i].nsegs : depth;
    for (size_t d = depth; d-- > 0;) {
        if (generalise_at(c, d) < 0)
            return -ENOMEM;
    }
    prune(c);
    rc = attempt(rep, rules, c, reordered, out);
    if (rc != 0)
        return rc;
    star_all(c);
    prune(c);
    rc = attempt(rep, rules, c, reordered, out);
    if (rc != 0)
        return rc;
    /* The tools' whole args: each pattern cut to TOOL.args. */
    for (size_t i = 0; i < c->npats; i++)
        c->pats[i].nsegs = 1;
    prune(c);
    rc = attempt(rep, rules, c, reordered, out);
    if (rc != 0)
        return rc;
    for (size_t i = 0; i < c->npats; i++)
        add_tool(c, c->pats[i].tool, c->pats[i].tool_len);
    prune(c);
    return attempt(rep, rules, c, reordered, out);
}

int fl_suggest(const ts_runreport_repeat *rep, const ts_rules *rules, const fl_varied *v, size_t n,
               bool reordered, struct json_object **out)
{
    fl_cand c = {calloc(n ? n : 1, sizeof(fl_pat)), 0, calloc(n ? 2 * n : 1, sizeof(fl_tool)), 0};
    int rc = c.pats == NULL || c.tools == NULL ? -ENOMEM : 0;

    *out = NULL;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const fl_varied *x = &v[i];

        if (x->call || x->nsegs == 0 || x->segs[0].key == NULL ||
            strcmp(x->segs[0].key, "args") != 0) {
            add_tool(&c, x->tool, x->tool_len); /* no path reaches it */
            continue;
        }
        c.pats[c.npats] = (fl_pat){
            x->tool, x->tool_len, x->segs, x->nsegs, calloc(x->nsegs, sizeof(bool)), false};
        if (c.pats[c.npats].star == NULL)
            rc = -ENOMEM;
        else
            c.npats++;
    }
    if (rc == 0)
        rc = search(rep, rules, &c, reordered, out);
    for (size_t i = 0; c.pats != NULL && i < c.npats; i++)
        free(c.pats[i].star);
    free(c.pats);
    free(c.tools);
    return rc < 0 ? rc : 0;
}

/* ---- merging into a rules object ---------------------------------------- */

static int wrong(ts_error *err, const char *what)
{
    return ts_error_set(err, -EINVAL, TS_ERR_INVALID_RULES, "%s", what);
}

int ts_flaky_rules_merge(struct json_object *base, const struct json_object *add, bool *changed,
                         ts_error *err)
{
    struct json_object *bi = NULL, *bt = NULL, *ai = NULL, *ao = NULL, *at = NULL;
    bool ch = false;

    if (changed != NULL)
        *changed = false;
    if (!json_object_is_type(base, json_type_object))
        return wrong(err, "the rules are not a JSON object");
    if (json_object_object_get_ex(base, "ignore", &bi) && !json_object_is_type(bi, json_type_array))
        return wrong(err, "'ignore' is not a list of patterns");
    if (json_object_object_get_ex(base, "tools", &bt) && !json_object_is_type(bt, json_type_object))
        return wrong(err, "'tools' is not an object");
    json_object_object_get_ex(add, "ignore", &ai);
    json_object_object_get_ex(add, "order", &ao);
    json_object_object_get_ex(add, "tools", &at);
    if (bt != NULL && at != NULL) {
        json_object_object_foreach(at, tool, entry)
        {
            struct json_object *be;

            (void)entry;
            if (json_object_object_get_ex(bt, tool, &be) &&
                !json_object_is_type(be, json_type_object))
                return ts_error_set(err, -EINVAL, TS_ERR_INVALID_RULES,
                                    "'tools.%s' is not an object", tool);
        }
    }
    for (size_t i = 0; ai != NULL && i < json_object_array_length(ai); i++) {
        const char *p = json_object_get_string(json_object_array_get_idx(ai, i));
        bool seen = false;

        for (size_t j = 0; bi != NULL && j < json_object_array_length(bi) && !seen; j++) {
            struct json_object *e = json_object_array_get_idx(bi, j);

            seen = json_object_is_type(e, json_type_string) &&
                   strcmp(json_object_get_string(e), p) == 0;
        }
        if (seen)
            continue;
        if (bi == NULL) {
            bi = json_object_new_array();
            json_object_object_add(base, "ignore", bi);
        }
        json_object_array_add(bi, json_object_new_string(p));
        ch = true;
    }
    if (ao != NULL && json_object_is_type(ao, json_type_string)) {
        struct json_object *bo = NULL;

        if (!json_object_object_get_ex(base, "order", &bo) ||
            !json_object_is_type(bo, json_type_string) ||
            strcmp(json_object_get_string(bo), json_object_get_string(ao)) != 0) {
            json_object_object_add(base, "order",
                                   json_object_new_string(json_object_get_string(ao)));
            ch = true;
        }
    }
    if (at != NULL) {
        json_object_object_foreach(at, tool, entry)
        {
            struct json_object *be = NULL, *ig = NULL;

            (void)entry;
            if (bt == NULL) {
                bt = json_object_new_object();
                json_object_object_add(base, "tools", bt);
            }
            if (!json_object_object_get_ex(bt, tool, &be)) {
                be = json_object_new_object();
                json_object_object_add(bt, tool, be);
            }
            if (!json_object_object_get_ex(be, "ignore", &ig) ||
                !json_object_is_type(ig, json_type_boolean) || !json_object_get_boolean(ig)) {
                json_object_object_add(be, "ignore", json_object_new_boolean(1));
                ch = true;
            }
        }
    }
    if (changed != NULL)
        *changed = ch;
    return 0;
}
