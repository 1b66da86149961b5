/*
 * util_extract — helpers of the extraction suites (test_extract,
 * test_extract_js): fixtures and assertions on ts_extract.
 */
#ifndef UTIL_EXTRACT_H
#define UTIL_EXTRACT_H

#include <check.h>

#include <json-c/json.h>

#include "ts_buf.h"
#include "ts_extract.h"

/* Parse a JSON text with the project's reader (the test fails on error). */
struct json_object *parse_text(const char *text);

/* tests/data/extract/<name><suffix>, e.g. suffix ".json" or ".expected.json". */
struct json_object *load_fixture(const char *name, const char *suffix);

/* One-line JSON of v, keys in their order, in b (initialized here; the
 * caller frees it). */
const char *compact(const struct json_object *v, ts_buf *b);

/* Assert got and want are the same JSON (values and key order). */
void assert_json_eq(const struct json_object *got, const struct json_object *want,
                    const char *what);

/* Extraction that must succeed; returns the calls (the caller puts them). */
struct json_object *extract_ok(const struct json_object *in, const char *format,
                               ts_extract_origin origin);

/* Extraction that must fail with code "format" and a one-line message
 * containing want. */
void extract_fails(const struct json_object *in, const char *format, ts_extract_origin origin,
                   const char *want);

#endif
