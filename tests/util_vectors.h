/*
 * util_vectors — reading the differential test vectors of
 * tests/data/compat-vectors/ (written by tests/compat/gen_vectors.py) and
 * reporting mismatches, for test_compat and test_compat_score.
 *
 * Record files: each record is "<tag> <byte length>\n", the bytes, "\n";
 * lines starting with '#' between records are comments. A malformed file
 * fails the running test.
 */
#ifndef UTIL_VECTORS_H
#define UTIL_VECTORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VEC_MAX_REPORTED 8 /* mismatches printed per test */

typedef struct vec_file {
    char *data;
    size_t len;
    size_t pos;
    char path[1024];
} vec_file;

typedef struct vec_record {
    char tag[32];
    const char *data;
    size_t len;
} vec_record;

typedef struct vec_mismatches {
    const char *what;
    size_t count;
} vec_mismatches;

typedef struct vec_document {
    const char *input;
    size_t input_len;
} vec_document;

/* Read tests/data/compat-vectors/<name> (under $TS_SOURCE_DIR) whole. */
void vec_open(vec_file *f, const char *name);
void vec_close(vec_file *f);

/* The next record, skipping comments; false at the end of the file. */
bool vec_next(vec_file *f, vec_record *r);

/* The next record, which must carry tag. */
void vec_expect(vec_file *f, const char *tag, vec_record *r);

/* Count a mismatch; print it (to stderr) while fewer than VEC_MAX_REPORTED. */
void vec_mismatch(vec_mismatches *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A mismatch of two byte strings, shown around their first difference. */
void vec_bytes_mismatch(vec_mismatches *m, const char *label, const char *want, size_t want_len,
                        const char *got, size_t got_len);

bool vec_same_bytes(const char *a, size_t alen, const char *b, size_t blen);

/* The input texts of json.vec, in order (pointers into f's data, which must
 * stay open); free() the array. */
vec_document *vec_load_documents(vec_file *f, size_t *count);

/* UTF-8 of cp into out (up to 4 bytes); returns the length. */
size_t vec_utf8_put(uint32_t cp, char *out);

#endif
