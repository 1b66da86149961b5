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
#ifndef TS_RULES_PATH_H
#define TS_RULES_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/ts_error.h"

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

#endif
