/*
 * ts_align — lining up two lists of tool calls by tool name, the way Python's
 * difflib.SequenceMatcher(None, names_a, names_b, autojunk=False) does, so
 * that the drift report's rows match the reference tool's.
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

/*
 * Opcodes for two validated calls lists (ts_calls_validate): blocks of equal
 * tool names and the replace/delete/insert blocks between them, covering
 * both lists in order. *ops (owned by the caller, free()) is set on success;
 * the only error is -ENOMEM.
 */
int ts_align_calls(const struct json_object *expected, const struct json_object *actual,
                   ts_align_op **ops, size_t *n_ops);

#endif
