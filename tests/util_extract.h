/*
 * util_extract — helpers of the extraction suites (test_extract,
 * test_extract_js): fixtures and assertions on ts_extract.
 */
#ifndef UTIL_EXTRACT_H
#define UTIL_EXTRACT_H

#include <check.h>

#include <json-c/json.h>

#include "lib/base/ts_base.h"
#include "lib/extract/ts_extract.h"

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

/* input (JSON text) extracts, as a response in format (NULL: auto), to want
 * (JSON text). */
void assert_extracts(const char *input, const char *format, const char *want);

/* input (JSON text) is detected as format want (NULL: as none). */
void assert_detects(const char *input, const char *want);

/* The fixture pair <name>.json / <name>.expected.json: detection picks
 * format, and the input extracts to the expected calls both auto-detected
 * and with format given, as a response and as a file. */
void assert_fixture_detected(const char *name, const char *format);

#endif
