/*
 * ts_rules — comparison rules (docs/rules.md): what a replay may ignore,
 * redact or relax, and how the two call lists are aligned.
 *
 * A rules object comes from the project file `.toolscore/config.json`
 * (ts_rules_parse, errors naming the file, line and column) or from a
 * caller (the check's `rules` param, `--rules FILE`: ts_rules_from_json /
 * ts_rules_parse), merged over the project's (ts_rules_merge: lists
 * concatenate, scalars replace). It is compiled once: its path patterns
 * into one automaton (ts_rules_path), its regular expressions with
 * regcomp; a compiled ts_rules is immutable and reference counted, so a
 * daemon caches one per store and stamp and lends it to any number of
 * threads at once.
 *
 * Applying it (ts_rules_evaluate): calls of ignored tools leave both lists,
 * redacted values become "[redacted]" on both sides, ignored values leave
 * both sides, the order mode permutes (and for superset/subset trims) the
 * lists, then ts_score scores them with the matchers relaxing the values
 * they name. With no rules (NULL or an empty object) every number is
 * exactly ts_evaluate's.
 *
 *   ts_rules *rules;
 *   if (ts_rules_parse(text, len, ".toolscore/config.json", &rules, &err) < 0) ...
 *   ts_rules_applied applied;
 *   ts_rules_evaluate(rules, expected, actual, &opt, false, &result, &applied, &err);
 *   ... report applied.expected / applied.actual, notes from ts_rules_applied_notes ...
 *   ts_rules_applied_free(&applied);
 *   ts_rules_unref(rules);
 */
#ifndef TS_RULES_H
#define TS_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "lib/base/ts_base.h"
#include "lib/score/ts_score.h"

#define TS_RULES_FILE_MAX (1u << 20)       /* bytes of a rules file */
#define TS_RULES_REDACTED "[redacted]"     /* what a redacted value becomes */
#define TS_RULES_CONFIG_NAME "config.json" /* beside the snapshot root */

typedef enum ts_rules_order {
    TS_RULES_ORDER_STRICT = 0, /* as the reference: position by position */
    TS_RULES_ORDER_UNORDERED,  /* actual permuted to the best match */
    TS_RULES_ORDER_SUPERSET,   /* and unmatched actual calls dropped */
    TS_RULES_ORDER_SUBSET,     /* and unmatched expected calls dropped */
} ts_rules_order;

typedef struct ts_rules ts_rules;

/*
 * Parse and compile the rules object in text[0..len) (JSON). source names
 * it in every error (a file name, "rules"). Errors, code "invalid_rules"
 * (or "invalid_json" for text that is not JSON), each naming source, the
 * line and column, and the key or pattern: invalid JSON, a duplicate key,
 * an unknown key anywhere, a value of the wrong type, a pattern that does
 * not parse (with its column), an invalid regular expression, a negative
 * tolerance, an unknown order. *out holds one reference.
 */
int ts_rules_parse(const char *text, size_t len, const char *source, ts_rules **out, ts_error *err);

/* The same for a value already parsed (a request's param): errors name
 * source and the key path ("rules: ignore[1]: pattern ..."), no position. */
int ts_rules_from_json(const struct json_object *obj, const char *source, ts_rules **out,
                       ts_error *err);

/*
 * over merged over base (either may be NULL): `ignore` and `redact`
 * concatenate (base's first), `order` is over's when given, `match` and
 * `tools` merge entry by entry with over's entry replacing base's. *out is
 * a new reference (to base or over themselves when the other is empty).
 */
int ts_rules_merge(ts_rules *base, ts_rules *over, ts_rules **out, ts_error *err);

/* A new reference to r (NULL stays NULL). Thread-safe. */
ts_rules *ts_rules_ref(ts_rules *r);

/* Drop a reference; the last one frees. Thread-safe. NULL is a no-op. */
void ts_rules_unref(ts_rules *r);

/* True when r is NULL or gives no rule at all (`{}`): scoring is plain. */
bool ts_rules_empty(const ts_rules *r);

/* The rules as an object with every given key, normalized (borrowed). */
const struct json_object *ts_rules_object(const ts_rules *r);

ts_rules_order ts_rules_order_of(const ts_rules *r);

/* "strict", "unordered", "superset", "subset". */
const char *ts_rules_order_name(ts_rules_order order);

/* True when r ignores calls of some tool (`tools.NAME.ignore`): the only
 * rule under which a list compared with itself scores other than plainly
 * (fewer calls, other tool lists). */
bool ts_rules_drops_tools(const ts_rules *r);

/* True when r has `redact` patterns. */
bool ts_rules_has_redact(const ts_rules *r);

/*
 * The project file of a snapshot root: `config.json` in the root's parent
 * (`.toolscore/config.json` for the default root `.toolscore/snapshots`),
 * into out. -ENAMETOOLONG when it does not fit.
 */
int ts_rules_config_path(const char *root, char *out, size_t outsz);

/*
 * calls (validated) with every value a `redact` pattern names replaced by
 * "[redacted]": what is stored, kept or reported of observed calls. *out
 * is a new reference: calls itself when nothing was redacted (also for
 * NULL or empty rules), else a new list sharing the unchanged calls.
 * *count (may be NULL) is the number of values replaced (a value already
 * "[redacted]" is not counted).
 */
int ts_rules_redact(const ts_rules *r, struct json_object *calls, struct json_object **out,
                    size_t *count, ts_error *err);

/* As ts_rules_redact, adding the values replaced per redact pattern to
 * counts[0 .. ts_rules_pattern_count(r, 1)) (counts may be NULL). */
int ts_rules_redact_counted(const ts_rules *r, struct json_object *calls, struct json_object **out,
                            size_t *counts, ts_error *err);

/*
 * calls (validated) as the rules leave them for comparing, before the
 * order mode: calls of ignored tools removed, values an ignore pattern
 * names removed, values a redact pattern names "[redacted]". Two
 * observations that strip to equal lists compare alike against any
 * baseline (ts_flaky tells repeats apart with it). *out is a new
 * reference (calls itself when nothing changed, and for NULL or empty
 * rules); the only error is -ENOMEM.
 */
int ts_rules_strip(const ts_rules *r, struct json_object *calls, struct json_object **out,
                   ts_error *err);

/* What the rules did in one comparison (ts_rules_evaluate). It may be
 * copied (moved) as a whole; compare stays valid until it is freed. */
typedef struct ts_rules_applied {
    ts_rules *rules;              /* a reference, NULL when none applied */
    struct json_object *expected; /* the lists as scored (and to be reported) */
    struct json_object *actual;
    size_t *ignored[2];         /* per ignore pattern: values removed [0] expected, [1] actual */
    size_t *redacted[2];        /* per redact pattern: values replaced */
    size_t *tools[2];           /* per ignored tool (ts_rules order): calls removed */
    size_t *match_passed;       /* per match pattern: comparisons it relaxed and passed */
    size_t *match_failed;       /* ... and failed */
    size_t dropped_expected;    /* subset: expected calls left unmatched and dropped */
    size_t dropped_actual;      /* superset: actual calls left unmatched and dropped */
    size_t moved;               /* unordered modes: calls not at their own position */
    ts_value_compare compare;   /* the comparison scoring used (for the report) */
    bool has_compare;           /* compare is set (the rules have matchers) */
    struct ts_rules_work *work; /* internal: the comparison's scratch state */
} ts_rules_applied;

/*
 * Score actual against expected under r (NULL or empty: exactly
 * ts_evaluate / ts_evaluate_validated, and applied's lists are the inputs).
 * validated: both lists were validated already (ts_evaluate_validated);
 * else they are validated first, with ts_evaluate's errors. applied is
 * always initialized (release it with ts_rules_applied_free, even after a
 * failure); out as ts_evaluate's.
 */
int ts_rules_evaluate(const ts_rules *r, const struct json_object *expected,
                      const struct json_object *actual, const ts_score_options *opt, bool validated,
                      ts_score_result *out, ts_rules_applied *applied, ts_error *err);

void ts_rules_applied_free(ts_rules_applied *a);

/* What r did where nothing was compared (a check that recorded, or found
 * a pending snapshot): the rules in force with every count zero. -ENOMEM
 * or 0; a is always initialized. */
int ts_rules_applied_none(const ts_rules *r, ts_rules_applied *a);

/* Count, as redacted in the observed calls, the values a caller redacted
 * before comparing (ts_rules_redact_counted's counts, per pattern of
 * a->rules). Nothing when a has no rules. */
void ts_rules_applied_add_redacted(ts_rules_applied *a, const size_t *counts);

/* The comparison of applied (the report's table uses it), or NULL when the
 * rules relax nothing. */
const ts_value_compare *ts_rules_applied_compare(const ts_rules_applied *a);

/*
 * "Which rules applied": {order, ignored: [{pattern, expected, actual}],
 * redacted: [...], tools: [{tool, expected, actual}], matched: [{pattern,
 * matcher, passed, failed}], dropped_expected, dropped_actual, moved}, the
 * lists holding only the rules that applied to something (non-zero
 * counts), or NULL (JSON null) when no rules are in force. A new
 * reference.
 */
struct json_object *ts_rules_applied_to_json(const ts_rules_applied *a);

/*
 * The report's lines of what the rules hid ("ignored by rules: 3 values at
 * *.args.request_id"), one per rule with an effect, each ending in '\n';
 * nothing when none had one.
 */
int ts_rules_applied_notes(const ts_rules_applied *a, ts_buf *out);

/* The same lines for ts_report_options.notes: *lines (NULL when there are
 * none) is one allocation holding the pointers and the text; free() it. */
int ts_rules_applied_note_lines(const ts_rules_applied *a, char ***lines, size_t *n);

/*
 * What each pattern of r matches in stored call lists (`tsctl rules
 * check`): per pattern of each list, values matched and lists holding one.
 * redact counts only values not yet "[redacted]" (a stored snapshot that
 * still holds what the rule would hide).
 */
typedef struct ts_rules_census {
    size_t *values[3]; /* [ignore, redact, match][pattern] */
    size_t *lists[3];
    size_t *tool_calls; /* per ignored tool */
    size_t *tool_lists;
    size_t lists_seen;
} ts_rules_census;

int ts_rules_census_init(const ts_rules *r, ts_rules_census *c);
/* Add one validated call list; *redactable (may be NULL) says whether it
 * holds a value a redact pattern would hide. */
int ts_rules_census_add(const ts_rules *r, const struct json_object *calls, ts_rules_census *c,
                        bool *redactable);
void ts_rules_census_free(ts_rules_census *c);

/* The patterns of r, for listing: kind 0 ignore, 1 redact, 2 match. */
size_t ts_rules_pattern_count(const ts_rules *r, int kind);
const char *ts_rules_pattern(const ts_rules *r, int kind, size_t i);
/* The matcher of match pattern i: "regex", "approx", "set", "type" or
 * "none" (a matcher turned off with false). */
const char *ts_rules_matcher_name(const ts_rules *r, size_t i);
/* The ignored tools of r, in the object's order. */
size_t ts_rules_tool_count(const ts_rules *r);
const char *ts_rules_tool(const ts_rules *r, size_t i);
/* True when r ignores the calls of tool[0..len) (`tools.NAME.ignore`). */
bool ts_rules_tool_ignored(const ts_rules *r, const char *tool, size_t len);

#endif
