/*
 * ts_flaky_internal — what the files of ts_flaky share: the lists of a
 * repeat as the rules leave them for comparing (forms), grouped into the
 * distinct observations; the path segments of what varied. ts_flaky.c
 * analyses, ts_flaky_suggest.c finds and checks the rules,
 * ts_flaky_text.c writes lines, paths and JSON. Not for use outside
 * lib/flaky/ts_flaky*.
 */
#ifndef TS_FLAKY_INTERNAL_H
#define TS_FLAKY_INTERNAL_H

#include "lib/flaky/ts_flaky.h"

/* One list of a repeat as compared: stripped by the rules, each call's
 * canonical text (keys sorted), its calls in (tool, text) order. */
typedef struct fl_form {
    size_t list;             /* index into the repeat's lists */
    struct json_object *cmp; /* the stripped calls, in their order */
    size_t n;
    size_t *orig;   /* each call's index in the observed list */
    char **texts;   /* each call's canonical text */
    size_t *sorted; /* call indexes in (tool, text) order */
    uint64_t seq_hash, set_hash;
} fl_form;

/* The forms of the known, valid lists of rep under rules (*forms: n of
 * them; fl_forms_free). -ENOMEM is the only error. */
int fl_forms_build(const ts_runreport_repeat *rep, const ts_rules *rules, fl_form **forms,
                   size_t *n);
void fl_forms_free(fl_form *forms, size_t n);

/* Whether two forms compare alike: call by call, or (multiset) as
 * multisets of calls. */
bool fl_forms_same(const fl_form *a, const fl_form *b, bool multiset);

/* Whether rules make every list of rep compare alike (1), or not (0);
 * -ENOMEM. */
int fl_stable_under(const ts_runreport_repeat *rep, const ts_rules *rules);

/* A step of a path below a call: a key, or (key NULL) an array index. */
typedef struct fl_seg {
    char *key;
    size_t index;
} fl_seg;

/* The path of a value below a call in the drift report's style, after
 * "calls[i]": `.args.query`, `.args["a.b"]`, `.args.items[2]`. */
void fl_path_report(ts_buf *out, size_t call, const fl_seg *segs, size_t n);

/* The rules' path of a value below a call of tool: `search.args.query`,
 * `"mcp.search".args."a.b"`; an index i with star[i] (star may be NULL)
 * as `[*]`. For paths starting at "args". */
void fl_path_rule(ts_buf *out, const char *tool, size_t tool_len, const fl_seg *segs, size_t n,
                  const bool *star);

/* What varied at one place (ts_flaky.c gives them to the suggestion). */
typedef struct fl_varied {
    const char *tool; /* the call's tool */
    size_t tool_len;
    bool call;          /* the whole call is present in only some */
    const fl_seg *segs; /* else the path below the call */
    size_t nsegs;
} fl_varied;

/*
 * The rules that make rep stable under rules, from what varied there
 * (v[0..n)) and whether some lists are reorderings: a new object
 * {ignore, order, tools} in *out, NULL when nothing found works. -ENOMEM
 * is the only error.
 */
int fl_suggest(const ts_runreport_repeat *rep, const ts_rules *rules, const fl_varied *v, size_t n,
               bool reordered, struct json_object **out);

/* The line and the pieces of f's text (ts_flaky_text.c). */
int fl_line(ts_flaky *f);

#endif
