/*
 * util_report — the drift report of two call lists given as JSON text, for
 * the report suites (tests/test_report*.c): scored with default options
 * (strict when asked) and written with the given options, or at width 100
 * without the JSON diff; only the difference lines; counting substrings.
 * Failures fail the running Check test.
 */
#ifndef UTIL_REPORT_H
#define UTIL_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/report/ts_report.h"

/* The report of expected vs actual written with opt (NULL: the defaults);
 * the caller frees the text. */
char *util_report_with(const char *expected, const char *actual, bool strict,
                       const ts_report_options *opt);

/* The report at width 100 without the JSON diff, coloured when asked. */
char *util_report(const char *expected, const char *actual, bool strict, bool color);

/* util_report(..., false) is exactly want. */
void util_assert_report(const char *expected, const char *actual, bool strict, const char *want);

/* Only the difference lines of the report at width 200 (lines starting
 * "  calls[", "+ calls[", "- calls[", six spaces, or "  … and"). */
char *util_report_differences(const char *expected, const char *actual);

/* How many times needle occurs in hay (overlaps counted). */
size_t util_count(const char *hay, const char *needle);

#endif
