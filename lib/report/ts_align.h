/*
 * ts_align — lining up two lists of tool calls for the drift report: the
 * calls that did not change first, then the others by tool name, each pass
 * as Python's difflib.SequenceMatcher(None, a, b, autojunk=False) does.
 */
#ifndef TS_ALIGN_H
#define TS_ALIGN_H

#include <stddef.h>

#include <json-c/json.h>

/* One opcode, as SequenceMatcher.get_opcodes() gives them: expected[i1:i2]
 * corresponds to actual[j1:j2]. */
typedef struct ts_align_op {
    char tag; /* 'e' equal, 'r' replace, 'd' delete, 'i' insert */
    size_t i1, i2, j1, j2;
} ts_align_op;

/* Matching (expected, actual) pairs one pass of the search may visit
 * before it gives up (some tens of milliseconds of work). */
#define TS_ALIGN_BUDGET ((size_t)1 << 24)

/*
 * Opcodes for two validated calls lists (ts_calls_validate), covering both
 * lists in order: 'e' blocks pair calls of the same tool, 'r' blocks pair
 * calls of different tools (as many as both sides have, the rest left
 * over), 'd' and 'i' blocks are calls of one side only.
 *
 * First pass: difflib over whole calls (tool and args equal as strict
 * scoring compares them; args absent or null is a value of its own). Second
 * pass: each stretch between the calls so matched, difflib over tool names.
 * Lists whose calls are all different align exactly as difflib aligns
 * their tool names (the reference tool's rows). When a pass would visit
 * more than TS_ALIGN_BUDGET pairs (long lists of few distinct calls,
 * reordered), it aligns the cheap way instead: the common head and tail
 * equal, difflib between them, and failing that the middle one block.
 * *ops (owned by the caller, free()) is set on success; the only error is
 * -ENOMEM.
 */
int ts_align_calls(const struct json_object *expected, const struct json_object *actual,
                   ts_align_op **ops, size_t *n_ops);

#endif
