/*
 * util_test — small helpers shared by the Check suites: reading whole files
 * (the test data under tests/data/ in particular), JSON text to values and
 * back, call lists for scoring and alignment tests, snapshots and directory
 * counts for store tests, a reproducible random generator, and running a
 * suite from main().
 *
 * Every helper fails the running Check test (ck_assert) on unexpected
 * errors, so a test reads as a list of steps.
 */
#ifndef UTIL_TEST_H
#define UTIL_TEST_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * A passing assertion records nothing. Check's own ck_assert_msg (which every
 * typed ck_assert_* goes through) sends each passing assertion to the
 * parent process as "the last point reached", and the suites that assert in
 * loops of thousands of rounds spent more time in that than in what they
 * test (most of make asan's time in test_proto). A failure is reported as
 * before, with its message, file and line; a crash names its test and the
 * last explicit mark_point().
 */
#undef ck_assert_msg
#define ck_assert_msg(expr, ...)                                                                   \
    ((expr)                                                                                        \
         ? (void)0                                                                                 \
         : _ck_assert_failed(__FILE__, __LINE__, "Assertion '" #expr "' failed", ##__VA_ARGS__))

#include <json-c/json.h>

/* The source tree: $TS_SOURCE_DIR, or "." when it is not set. */
const char *util_source_dir(void);

/*
 * The whole file at path, NUL-terminated (the terminator is not counted in
 * *len; len may be NULL); the caller frees it. Fails the test when the file
 * cannot be opened or read.
 */
char *util_read_file(const char *path, size_t *len);

/* Like util_read_file, but NULL (and *len untouched) when the file cannot be
 * opened, e.g. because it does not exist. */
char *util_read_file_if_exists(const char *path, size_t *len);

/* Create or replace the file at path with data[0..len). */
void util_write_file(const char *path, const void *data, size_t len);

/* util_read_file of $TS_SOURCE_DIR/tests/data/<rel>. */
char *util_read_data(const char *rel, size_t *len);

/* text parsed by json-c (not by the reader under test); fails the test on
 * bad JSON. The caller puts the value. */
struct json_object *util_json_c_parse(const char *text);

/* v as one-line JSON written by ts_json_write_compact (keys in their
 * order); the caller frees the text. */
char *util_json_compact(const struct json_object *v);

/* A fresh directory /tmp/<prefix>-XXXXXX, as its real path (symbolic links
 * resolved); the caller frees the string and removes the directory. */
char *util_make_temp_dir(const char *prefix);

/* rm -rf path; returns system()'s status (0 when removed). */
int util_remove_tree(const char *path);

/* A snapshot named name (source "pytest") with n calls of tool "t", each
 * with args {"i": index, "pad": pad times "x"}; the caller frees it. */
struct ts_snapshot *util_make_snapshot(const char *name, int n, size_t pad);

/* Entries of the directory dir whose name starts with prefix ("." and ".."
 * not counted): util_count_entries(root, ".") counts temp files. */
int util_count_entries(const char *dir, const char *prefix);

/* A list of calls without arguments, one per character of s, each named by
 * its character: "abc" is [{"tool": "a"}, {"tool": "b"}, {"tool": "c"}]. */
struct json_object *util_calls_of_letters(const char *s);

/* Two names of one file name (the same stem and 8 hex digits of SHA-1),
 * found by brute force (a birthday search: about 80,000 names), into a
 * and b (sz bytes each, 160 are enough). */
void util_colliding_names(char *a, char *b, size_t sz);

/* Bytes of glibc's heap in use (mallinfo2), for measuring what building a
 * value takes; meaningless under a sanitizer, whose allocator is not glibc's. */
size_t util_heap_in_use(void);

/*
 * Waiting for a condition: poll holds(arg) every 5 ms until it returns true
 * (then true) or timeout_ms passed (then false, for the test to fail saying
 * what did not happen). UTIL_WAIT_MS is the usual deadline: it only ends a
 * test whose condition never comes; on a loaded machine the condition
 * comes late and the test waits for it.
 */
#define UTIL_WAIT_MS 20000
bool util_wait_for(bool (*holds)(void *arg), void *arg, int timeout_ms);

/* The next number (0..32767) of a small reproducible generator. */
unsigned util_next_random(unsigned *seed);

/* Run every test of s (the runner frees s); returns main()'s exit status:
 * 0 when all passed, 1 otherwise. */
int util_run_suite(Suite *s);

#endif
