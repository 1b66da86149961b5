/*
 * util_rules — helpers of the comparison-rules suites (test_rules_eval,
 * test_rules_property): compiling a rules text and scoring two call lists
 * (JSON text) under it. Fail the running test on unexpected errors.
 */
#ifndef UTIL_RULES_H
#define UTIL_RULES_H

#include "lib/rules/ts_rules.h"
#include "lib/score/ts_score.h"

/* The rules of text compiled (source "rules"); NULL for NULL. */
ts_rules *util_rules_of(const char *text);

/* A scoring under rules: the result, what the rules did, the rules. */
typedef struct util_rules_outcome {
    ts_score_result result;
    ts_rules_applied applied;
    ts_rules *rules;
} util_rules_outcome;

/* actual scored against expected (JSON texts) under rules (text or NULL)
 * with opt (NULL: defaults). Release with util_rules_done. */
util_rules_outcome util_rules_run(const char *rules, const char *expected, const char *actual,
                                  const ts_score_options *opt);
void util_rules_done(util_rules_outcome *o);

#endif
