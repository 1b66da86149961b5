/*
 * lib/rules, inside the folder only: the path language of rules
 * (ts_rules_path) and the helpers the rule files share (parsing, matching,
 * ordering, weights, evaluation). The folder's contract is ts_rules.h.
 */
#ifndef TS_RULES_INTERNAL_H
#define TS_RULES_INTERNAL_H

#include <regex.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "lib/base/ts_base.h"
#include "lib/rules/ts_rules.h"

/*
 * ts_rules_path — the path patterns of comparison rules (docs/rules.md):
 * parsing, and matching compiled patterns against the values of tool calls.
 *
 * A pattern starts at a call: TOOL (a tool name or `*`), then `.key` (a
 * literal key, `"..."` quoted when it holds `.`, `[`, `*` or `"`, with `\"`
 * and `\\` inside quotes), `.*` (any one key), `.**` (any depth, zero or
 * more levels), `[N]` (array index N) and `[*]` (any index). The first
 * segment after TOOL names the call's `args` (`.args`, `.*` or `.**`):
 * rules look at arguments only.
 *
 * A set holds many patterns, each with a kind (ignore, redact, match) and
 * compiles them into one automaton whose state is a bit set of positions
 * in the patterns. A walker keeps one state per level of the value it
 * walks: start at a call's tool, then step by each key or index on the way
 * down, and ask which pattern accepts where it stands. Stepping writes into
 * a caller's state; nothing allocates per value.
 *
 * A compiled set is immutable: any number of threads may walk it at once.
 */
/* What a pattern does (the rules object's list it came from). */
typedef enum ts_rules_kind {
    TS_RULES_IGNORE = 0,
    TS_RULES_REDACT = 1,
    TS_RULES_MATCH = 2,
} ts_rules_kind;

#define TS_RULES_KINDS 3
#define TS_RULES_KIND_BIT(k) (1u << (k))
#define TS_RULES_PATTERN_MAX 4096  /* bytes of one pattern */
#define TS_RULES_PATTERNS_MAX 4096 /* patterns in one set */

typedef struct ts_rules_path_set ts_rules_path_set;

/* One state of a walk: ts_rules_path_words(set) words. */
typedef uint64_t ts_rules_state;

/* An empty set; NULL when out of memory. */
ts_rules_path_set *ts_rules_path_set_new(void);
void ts_rules_path_set_free(ts_rules_path_set *set);

/*
 * Parse pattern[0..len) and add it with kind; its number within its kind
 * (0, 1, ... in the order added) is what ts_rules_path_accepts returns.
 * -EINVAL when it does not parse: err names the pattern and the column (in
 * code points, from 1) of the problem ("pattern '*.args..x', column 8: an
 * empty key (quote it as \"\")"). Only before ts_rules_path_compile.
 */
int ts_rules_path_set_add(ts_rules_path_set *set, const char *pattern, size_t len,
                          ts_rules_kind kind, ts_error *err);

/* Finish the set: after this it is only walked. -ENOMEM or 0. */
int ts_rules_path_compile(ts_rules_path_set *set);

/* Words of one state (at least 1). */
size_t ts_rules_path_words(const ts_rules_path_set *set);

/* Patterns of kind in the set. */
size_t ts_rules_path_count(const ts_rules_path_set *set, ts_rules_kind kind);

/*
 * The state at a call of tool[0..len), with only the patterns of the kinds
 * in kinds (TS_RULES_KIND_BIT ORed). False when no pattern can match
 * anything below (the walk can stop).
 */
bool ts_rules_path_start(const ts_rules_path_set *set, const char *tool, size_t len, unsigned kinds,
                         ts_rules_state *out);

/* The state after the object key key[0..len) from in; false when empty. */
bool ts_rules_path_step_key(const ts_rules_path_set *set, const ts_rules_state *in, const char *key,
                            size_t len, ts_rules_state *out);

/* The state after the array index index from in; false when empty. */
bool ts_rules_path_step_index(const ts_rules_path_set *set, const ts_rules_state *in, size_t index,
                              ts_rules_state *out);

/*
 * Which pattern of kind accepts the value where state stands: the first
 * one added (lowest number) when first, else the last one; -1 for none.
 */
long ts_rules_path_accepts(const ts_rules_path_set *set, const ts_rules_state *state,
                           ts_rules_kind kind, bool first);

/* True when a pattern of kind is still alive in state (may accept here or
 * below). */
bool ts_rules_path_alive(const ts_rules_path_set *set, const ts_rules_state *state,
                         ts_rules_kind kind);

/*
 * ts_rules_internal — the compiled rules object shared by the ts_rules*
 * files (ts_rules.c builds it, ts_rules_parse.c locates its errors in the
 * text, ts_rules_apply.c removes and redacts, ts_rules_match.c relaxes,
 * ts_rules_order.c aligns, ts_rules_eval.c puts it together). Not for use
 * outside lib/rules/ts_rules*.
 */
typedef enum ts_matcher_kind {
    TS_MATCHER_NONE, /* turned off ({"set": false}): plain comparison */
    TS_MATCHER_REGEX,
    TS_MATCHER_APPROX,
    TS_MATCHER_SET,
    TS_MATCHER_TYPE,
} ts_matcher_kind;

typedef struct ts_matcher {
    ts_matcher_kind kind;
    bool compiled; /* re holds a compiled expression */
    regex_t re;
    double tolerance; /* approx */
} ts_matcher;

struct ts_rules {
    atomic_int refs;
    struct json_object *object; /* the validated object (owned copy) */
    ts_rules_order order;
    bool order_given;
    const char **patterns[TS_RULES_KINDS]; /* borrowed from object */
    size_t n_patterns[TS_RULES_KINDS];
    ts_matcher *matchers; /* per match pattern */
    const char **tools;   /* ignored tools, in the object's order */
    size_t n_tools;
    size_t *tools_by_name; /* indexes into tools, sorted by name */
    ts_rules_path_set *paths;
    bool empty;
};

/* Where in the rules object an error is: up to 4 keys or indexes. The keys
 * point into holder, which the caller releases (json_object_put). */
typedef struct ts_rules_where {
    struct json_object *holder;
    int n;
    struct {
        const char *key; /* NULL: an array index */
        size_t index;
    } at[4];
} ts_rules_where;

/*
 * Validate and compile obj. On error err's message is the problem without
 * source or position ("ignore[1]: pattern ..."), and *where says where it
 * is, for the caller to prefix.
 */
int ts_rules_build(const struct json_object *obj, ts_rules **out, ts_rules_where *where,
                   ts_error *err);

/* The index (ts_rules order) of tool[0..len) among the ignored tools, or
 * -1. */
long ts_rules_tool_index(const ts_rules *r, const char *tool, size_t len);

/* Deepest levels a walk needs state for (the JSON depth limit and the
 * levels above a value). */
#define TS_RULES_WALK_DEPTH 140

/* A walk's state stack: words per level, depth levels (on the stack when
 * small, else one allocation per walk). */
typedef struct ts_rules_stack {
    ts_rules_state small[2 * TS_RULES_WALK_DEPTH];
    ts_rules_state *states;
    size_t words, depth;
} ts_rules_stack;

int ts_rules_stack_init(ts_rules_stack *s, const ts_rules *r, size_t depth);
ts_rules_state *ts_rules_stack_at(ts_rules_stack *s, size_t level);
void ts_rules_stack_free(ts_rules_stack *s);

/* A comparison's scratch: the walk stack of the matchers, and whether
 * matcher outcomes are counted (only while ts_score's argument pass runs). */
struct ts_rules_work {
    ts_rules_stack stack;
    bool counting;
    const ts_rules *rules;
    size_t *passed, *failed; /* the applied's counters (heap: stable when it is copied) */
};

/* a->work for a->rules and a's matcher counters (allocated first); -ENOMEM
 * or 0. */
int ts_rules_work_init(ts_rules_applied *a);
void ts_rules_work_free(ts_rules_applied *a);

/*
 * The argument comparison under the matchers of a->rules (ts_value_compare's
 * contract, ctx is a->work, so a ts_rules_applied may be copied): a value a matcher names
 * passes when it is equal as ts_values_equal says, or when the matcher
 * accepts it; containers holding such values are compared member by
 * member. Counts outcomes while work->counting and top_level.
 */
bool ts_rules_args_equal(void *ctx, const char *tool, size_t tool_len, const char *key,
                         const struct json_object *expected, const struct json_object *actual,
                         bool strict, bool top_level);

/* Whether matchers can reach argument key of tool's calls (its values are
 * then compared with ts_rules_value_equal, not as plain values). */
bool ts_rules_key_relaxed(ts_rules_applied *a, const char *tool, size_t tool_len, const char *key);

/* Argument key's values compared as scoring compares them (matchers
 * included, nothing counted). */
bool ts_rules_value_equal(ts_rules_applied *a, const char *tool, size_t tool_len, const char *key,
                          const struct json_object *expected, const struct json_object *actual,
                          bool strict);

/*
 * The weights of pairing the calls of one tool (ts_rules_weight.c): for
 * expected args e_args[0..ne) and actual args a_args[0..na) (NULL: absent
 * or null), ts_rules_weight(w, i, j) is the number of expected i's keys
 * whose value actual j has equal. Borrows everything given.
 */
typedef struct ts_rules_weights ts_rules_weights;
int ts_rules_weights_new(ts_rules_applied *a, const char *tool, size_t tool_len,
                         struct json_object *const *e_args, size_t ne,
                         struct json_object *const *a_args, size_t na, bool strict,
                         ts_rules_weights **out);
size_t ts_rules_weight(const ts_rules_weights *w, size_t i, size_t j);
void ts_rules_weights_free(ts_rules_weights *w);

/*
 * Remove ignored tools' calls, redact and remove values of calls (one
 * list, validated). side 0 expected, 1 actual: which counters of a are
 * added to (a may be NULL). kinds: which of ignore / redact apply. *out is
 * a new reference (calls itself when nothing changed).
 */
int ts_rules_transform(const ts_rules *r, struct json_object *calls, bool drop_tools,
                       unsigned kinds, int side, ts_rules_applied *a, struct json_object **out);

/*
 * The order mode of r on two transformed lists: *expected_out and
 * *actual_out are new references (the inputs themselves under strict).
 */
int ts_rules_align(const ts_rules *r, struct json_object *expected, struct json_object *actual,
                   bool strict, ts_rules_applied *a, struct json_object **expected_out,
                   struct json_object **actual_out);

#endif
