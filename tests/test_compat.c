/*
 * test_compat — differential test vectors for files: the C code against the
 * reference tool's rules as CPython runs them (docs/internals/compat.md).
 *
 * tests/data/compat-vectors/ is written by tests/compat/gen_vectors.py (a
 * development tool; this test never runs Python):
 *   json.vec       random JSON texts with json.dumps(json.loads(text),
 *                  indent=2, ensure_ascii=False) and the compact form;
 *   reader.vec     mutated texts, read or refused as json.loads does;
 *   names.vec      snapshot names with the file name of docs/snapshots.md;
 *   snapshots.vec  snapshot files whose calls' args are json.vec documents.
 * Bytes must be identical. Each test goes through its whole file and then
 * lists the first mismatches, so one run shows the extent of a problem.
 * Scores and repr() are in test_compat_score.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sha1.h>

#include "lib/json/ts_json.h"
#include "lib/snapshot/ts_snapshot.h"
#include "lib/store/ts_store.h"
#include "util_test.h"
#include "util_vectors.h"

static void check_written(vec_mismatches *m, size_t index, const char *form,
                          const struct json_object *v, const vec_record *want, bool pretty)
{
    ts_buf out;
    ts_error err;
    int rc;
    char label[64];

    ts_buf_init(&out, TS_BUF_UNLIMITED);
    rc = pretty ? ts_json_write_pretty(v, &out, &err) : ts_json_write_compact(v, &out, &err);
    snprintf(label, sizeof(label), "document %zu, %s", index, form);
    if (rc < 0)
        vec_mismatch(m, "%s: writer failed: %s", label, err.message);
    else if (!vec_same_bytes(want->data, want->len, out.data, out.len))
        vec_bytes_mismatch(m, label, want->data, want->len, out.data, out.len);
    ts_buf_free(&out);
}

START_TEST(json_documents_match_python)
{
    vec_mismatches m = {"json", 0};
    vec_file f;
    vec_record input, pretty, compact;
    size_t n = 0;

    vec_open(&f, "json.vec");
    while (vec_next(&f, &input)) {
        struct json_object *v = NULL;
        ts_error err;

        ck_assert_str_eq(input.tag, "input");
        vec_expect(&f, "pretty", &pretty);
        vec_expect(&f, "compact", &compact);
        if (ts_json_parse(input.data, input.len, 0, &v, &err) < 0) {
            vec_mismatch(&m, "document %zu: reader refused what Python reads: %s\n  input: %.*s", n,
                         err.message, (int)(input.len < 200 ? input.len : 200), input.data);
        } else {
            check_written(&m, n, "pretty", v, &pretty, true);
            check_written(&m, n, "compact", v, &compact, false);
            json_object_put(v);
        }
        n++;
    }
    vec_close(&f);
    printf("json: %zu documents, %zu mismatches\n", n, m.count);
    ck_assert_int_ge(n, 2000);
    ck_assert_msg(m.count == 0, "%zu of %zu documents differ from Python (first ones above)",
                  m.count, n);
}
END_TEST

/* ---- (a') the reader: accept and refuse as Python does ------------------- */

START_TEST(reader_accepts_and_refuses_like_python)
{
    vec_mismatches m = {"reader", 0};
    vec_file f;
    vec_record input, want;
    size_t n = 0, accepted = 0;

    vec_open(&f, "reader.vec");
    while (vec_next(&f, &input)) {
        struct json_object *v = NULL;
        ts_error err;
        int rc;

        ck_assert_str_eq(input.tag, "input");
        ck_assert(vec_next(&f, &want));
        rc = ts_json_parse(input.data, input.len, 0, &v, &err);
        if (strcmp(want.tag, "compact") == 0) {
            vec_record expect = want;
            char label[64];
            accepted++;
            snprintf(label, sizeof(label), "text %zu", n);
            if (rc < 0)
                vec_mismatch(&m, "text %zu: refused (%s) what Python reads\n  input: %.*s", n,
                             err.message, (int)input.len, input.data);
            else
                check_written(&m, n, label, v, &expect, false);
        } else {
            ck_assert_str_eq(want.tag, "refused");
            if (rc == 0)
                vec_mismatch(&m, "text %zu: read what is refused (%.*s)\n  input: %.*s", n,
                             (int)want.len, want.data, (int)input.len, input.data);
            else if (err.message[0] == '\0' || (strcmp(err.code, TS_ERR_INVALID_JSON) != 0 &&
                                                strcmp(err.code, TS_ERR_LIMIT) != 0))
                vec_mismatch(&m, "text %zu: refused with code '%s' and message '%s'", n, err.code,
                             err.message);
        }
        json_object_put(v);
        n++;
    }
    vec_close(&f);
    printf("reader: %zu mutated texts (%zu read by Python), %zu mismatches\n", n, accepted,
           m.count);
    ck_assert_int_ge(n, 1500);
    ck_assert_int_ge(accepted, 100);
    ck_assert_int_ge(n - accepted, 1000);
    ck_assert_msg(m.count == 0, "%zu of %zu texts read differently from Python", m.count, n);
}
END_TEST

/* ---- (b) names ---------------------------------------------------------- */

START_TEST(file_names_match_python)
{
    vec_mismatches m = {"name", 0};
    vec_file f;
    vec_record name, file;
    size_t n = 0;

    vec_open(&f, "names.vec");
    while (vec_next(&f, &name)) {
        char out[TS_FILENAME_MAX];
        ts_error err;

        ck_assert_str_eq(name.tag, "name");
        vec_expect(&f, "file", &file);
        if (ts_name_to_filename(name.data, name.len, out, sizeof(out), &err) < 0)
            vec_mismatch(&m, "name %zu (%.*s): refused: %s", n, (int)name.len, name.data,
                         err.message);
        else if (!vec_same_bytes(file.data, file.len, out, strlen(out)))
            vec_mismatch(&m, "name %zu (%.*s):\n  python: %.*s\n  C:      %s", n, (int)name.len,
                         name.data, (int)file.len, file.data, out);
        n++;
    }
    vec_close(&f);
    printf("names: %zu names, %zu mismatches\n", n, m.count);
    ck_assert_int_ge(n, 2000);
    ck_assert_msg(m.count == 0, "%zu of %zu file names differ from Python", m.count, n);
}
END_TEST

/* ---- snapshot files ----------------------------------------------------- */

/* The tab-separated fields of a "snapshot" record. */
typedef struct snapshot_meta {
    char created[TS_TIMESTAMP_MAX];
    char updated[TS_TIMESTAMP_MAX];
    char version[64];
    bool approved;
    char source[16];
    size_t docs[8];
    size_t n_docs;
} snapshot_meta;

static void copy_field(char *dst, size_t dstsz, const char *src, size_t len)
{
    ck_assert_uint_lt(len, dstsz);
    memcpy(dst, src, len);
    dst[len] = '\0';
}

static void parse_meta(const vec_record *r, snapshot_meta *meta)
{
    char fields[6][256];
    size_t k = 0, start = 0;
    char *p;

    for (size_t i = 0; i <= r->len; i++) {
        if (i == r->len || r->data[i] == '\t') {
            ck_assert_uint_lt(k, 6);
            copy_field(fields[k++], sizeof(fields[0]), r->data + start, i - start);
            start = i + 1;
        }
    }
    ck_assert_uint_eq(k, 6);
    copy_field(meta->created, sizeof(meta->created), fields[0], strlen(fields[0]));
    copy_field(meta->updated, sizeof(meta->updated), fields[1], strlen(fields[1]));
    copy_field(meta->version, sizeof(meta->version), fields[2], strlen(fields[2]));
    meta->approved = strcmp(fields[3], "true") == 0;
    copy_field(meta->source, sizeof(meta->source), fields[4], strlen(fields[4]));
    meta->n_docs = 0;
    for (p = fields[5]; *p != '\0';) {
        ck_assert_uint_lt(meta->n_docs, 8);
        meta->docs[meta->n_docs++] = strtoul(p, &p, 10);
        if (*p == ',')
            p++;
    }
    ck_assert_uint_ge(meta->n_docs, 1);
}

static void sha1_hex(const char *data, size_t len, char out[41])
{
    static const char hex[] = "0123456789abcdef";
    uint8_t digest[SHA1_DIGEST_LENGTH];
    SHA1_CTX ctx;

    SHA1Init(&ctx);
    SHA1Update(&ctx, (const uint8_t *)data, len);
    SHA1Final(digest, &ctx);
    for (int i = 0; i < SHA1_DIGEST_LENGTH; i++) {
        out[2 * i] = hex[digest[i] >> 4];
        out[2 * i + 1] = hex[digest[i] & 0xF];
    }
    out[40] = '\0';
}

/* {"tool": tool, "args": <document>} */
static struct json_object *make_call(const vec_record *tool, const vec_document *doc)
{
    struct json_object *call = json_object_new_object();
    struct json_object *args = NULL;
    ts_error err;

    ck_assert_msg(ts_json_parse(doc->input, doc->input_len, 0, &args, &err) == 0, "%s",
                  err.message);
    ck_assert(json_object_is_type(args, json_type_object));
    json_object_object_add(call, "tool", json_object_new_string_len(tool->data, (int)tool->len));
    json_object_object_add(call, "args", args);
    return call;
}

/* A snapshot built with ts_snapshot_new and the vector's metadata. */
static ts_snapshot *build_snapshot(const vec_record *name, const snapshot_meta *meta,
                                   struct json_object *calls, vec_mismatches *m, size_t index)
{
    ts_snapshot *s = NULL;
    ts_error err;
    char *name_z = strndup(name->data, name->len);

    ck_assert_ptr_nonnull(name_z);
    if (ts_snapshot_new(name_z, calls, meta->source, &s, &err) < 0) {
        vec_mismatch(m, "snapshot %zu: ts_snapshot_new refused: %s", index, err.message);
        free(name_z);
        return NULL;
    }
    free(name_z);
    copy_field(s->created_at, sizeof(s->created_at), meta->created, strlen(meta->created));
    copy_field(s->updated_at, sizeof(s->updated_at), meta->updated, strlen(meta->updated));
    free(s->toolscore_version);
    s->toolscore_version = strdup(meta->version);
    ck_assert_ptr_nonnull(s->toolscore_version);
    s->approved = meta->approved;
    return s;
}

static bool serialize(const ts_snapshot *s, ts_buf *out, vec_mismatches *m, size_t index)
{
    ts_error err;

    ts_buf_init(out, TS_BUF_UNLIMITED);
    if (ts_snapshot_serialize(s, out, &err) < 0) {
        vec_mismatch(m, "snapshot %zu: serialize failed: %s", index, err.message);
        ts_buf_free(out);
        return false;
    }
    return true;
}

/* Python's file read back and written again: the same bytes. */
static void check_resave(const char *data, size_t len, vec_mismatches *m, size_t index)
{
    ts_snapshot *s = NULL;
    ts_error err;
    ts_buf out;

    if (ts_snapshot_parse(data, len, "vector.json", &s, &err) < 0) {
        vec_mismatch(m, "snapshot %zu: reading the file Python wrote failed: %s", index,
                     err.message);
        return;
    }
    if (serialize(s, &out, m, index)) {
        if (!vec_same_bytes(data, len, out.data, out.len))
            vec_bytes_mismatch(m, "re-saved snapshot", data, len, out.data, out.len);
        ts_buf_free(&out);
    }
    ts_snapshot_free(s);
}

/* One record group of snapshots.vec, with its calls built. */
typedef struct snapshot_vector {
    snapshot_meta meta;
    struct json_object *calls; /* owned */
    vec_record name;
    vec_record filename;
    vec_record want; /* "file" (the bytes) or "sha1" */
} snapshot_vector;

/* The next snapshot vector of f; false at the end of the file. */
static bool next_snapshot_vector(vec_file *f, const vec_document *docs, size_t n_docs,
                                 snapshot_vector *v)
{
    vec_record rec, tool;

    if (!vec_next(f, &rec))
        return false;
    ck_assert_str_eq(rec.tag, "snapshot");
    parse_meta(&rec, &v->meta);
    v->calls = json_object_new_array();
    for (size_t i = 0; i < v->meta.n_docs; i++) {
        ck_assert_uint_lt(v->meta.docs[i], n_docs);
        vec_expect(f, "tool", &tool);
        json_object_array_add(v->calls, make_call(&tool, &docs[v->meta.docs[i]]));
    }
    vec_expect(f, "name", &v->name);
    vec_expect(f, "filename", &v->filename);
    ck_assert(vec_next(f, &v->want));
    return true;
}

static void check_snapshot(const snapshot_vector *v, vec_mismatches *m, size_t index, size_t *full)
{
    ts_snapshot *s = build_snapshot(&v->name, &v->meta, v->calls, m, index);
    char file_name[TS_FILENAME_MAX] = "";
    ts_error err;
    ts_buf out;

    if (ts_name_to_filename(v->name.data, v->name.len, file_name, sizeof(file_name), &err) < 0 ||
        !vec_same_bytes(v->filename.data, v->filename.len, file_name, strlen(file_name)))
        vec_mismatch(m, "snapshot %zu: file name %s, python %.*s", index, file_name,
                     (int)v->filename.len, v->filename.data);

    if (s == NULL || !serialize(s, &out, m, index)) {
        ts_snapshot_free(s);
        return;
    }
    if (strcmp(v->want.tag, "file") == 0) {
        (*full)++;
        if (!vec_same_bytes(v->want.data, v->want.len, out.data, out.len))
            vec_bytes_mismatch(m, "snapshot file", v->want.data, v->want.len, out.data, out.len);
        check_resave(v->want.data, v->want.len, m, index);
    } else {
        char hex[41];
        char line[64];
        ck_assert_str_eq(v->want.tag, "sha1");
        sha1_hex(out.data, out.len, hex);
        snprintf(line, sizeof(line), "%s %zu", hex, out.len);
        if (!vec_same_bytes(v->want.data, v->want.len, line, strlen(line)))
            vec_mismatch(m,
                         "snapshot %zu (%s): SHA-1 and length of the file\n  python: %.*s\n"
                         "  C:      %s\n  C wrote:\n%s",
                         index, s->name, (int)v->want.len, v->want.data, line, out.data);
        /* Our own bytes (equal to Python's when the hash matched) re-save
         * unchanged. */
        check_resave(out.data, out.len, m, index);
    }
    ts_buf_free(&out);
    ts_snapshot_free(s);
}

START_TEST(snapshot_files_match_python)
{
    vec_mismatches m = {"snapshot", 0};
    vec_file docs_file, f;
    snapshot_vector v;
    vec_document *docs;
    size_t n_docs, n = 0, full = 0, calls = 0;

    vec_open(&docs_file, "json.vec");
    docs = vec_load_documents(&docs_file, &n_docs);
    vec_open(&f, "snapshots.vec");
    while (next_snapshot_vector(&f, docs, n_docs, &v)) {
        calls += v.meta.n_docs;
        check_snapshot(&v, &m, n, &full);
        json_object_put(v.calls);
        n++;
    }
    vec_close(&f);
    free(docs);
    vec_close(&docs_file);
    printf("snapshots: %zu files (%zu compared in full, the rest by SHA-1), %zu calls, "
           "%zu mismatches\n",
           n, full, calls, m.count);
    ck_assert_int_ge(n, 400);
    ck_assert_int_ge(full, 20);
    ck_assert_int_ge(calls, 1200);
    ck_assert_msg(m.count == 0, "%zu snapshot files differ from Python", m.count);
}
END_TEST

/* ---- the store: the reference's directory layout ------------------------- */

static void write_file(const char *dir, const vec_record *file_name, const vec_record *data)
{
    char path[2048];

    snprintf(path, sizeof(path), "%s/%.*s", dir, (int)file_name->len, file_name->data);
    util_write_file(path, data->data, data->len);
}

/* The file dir/<file_name> holds exactly want's bytes. */
static bool file_holds(const char *dir, const vec_record *file_name, const vec_record *want)
{
    char path[2048];
    char *data = malloc(want->len + 2);
    FILE *fp;
    size_t n;
    bool same;

    snprintf(path, sizeof(path), "%s/%.*s", dir, (int)file_name->len, file_name->data);
    ck_assert_ptr_nonnull(data);
    fp = fopen(path, "rb");
    if (fp == NULL) {
        free(data);
        return false;
    }
    n = fread(data, 1, want->len + 1, fp);
    fclose(fp);
    same = vec_same_bytes(want->data, want->len, data, n);
    free(data);
    return same;
}

static size_t count_entries(const char *dir)
{
    char command[512];
    FILE *p;
    size_t n = 0;

    snprintf(command, sizeof(command), "ls -A '%s' | wc -l", dir);
    p = popen(command, "r");
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(fscanf(p, "%zu", &n), 1);
    pclose(p);
    return n;
}

/*
 * A root the reference tool wrote (its files under its file names) lists
 * every snapshot with no problem and loads each by name; snapshots saved
 * through ts_store land under the reference's file names with its bytes.
 */
START_TEST(store_uses_the_reference_layout)
{
    vec_mismatches m = {"store", 0};
    vec_file docs_file, f;
    snapshot_vector v;
    vec_document *docs;
    size_t n_docs, full = 0;
    char *python_root = util_make_temp_dir("ts-compat");
    char *our_root = util_make_temp_dir("ts-compat");
    ts_store *theirs = NULL, *ours = NULL;
    ts_store_listing listing;
    ts_error err;

    vec_open(&docs_file, "json.vec");
    docs = vec_load_documents(&docs_file, &n_docs);
    vec_open(&f, "snapshots.vec");
    ck_assert_int_eq(ts_store_open(python_root, &theirs, &err), 0);
    ck_assert_int_eq(ts_store_open(our_root, &ours, &err), 0);
    while (next_snapshot_vector(&f, docs, n_docs, &v)) {
        ts_snapshot *s = NULL;
        char *name = strndup(v.name.data, v.name.len);

        if (strcmp(v.want.tag, "file") != 0) {
            json_object_put(v.calls);
            free(name);
            continue;
        }
        full++;
        write_file(python_root, &v.filename, &v.want);
        /* Read back from the reference's file by name. */
        if (ts_store_load(theirs, name, &s, NULL, &err) < 0) {
            vec_mismatch(&m, "loading '%s' from the reference's root: %s", name, err.message);
        } else {
            ts_buf out;
            if (serialize(s, &out, &m, full)) {
                if (!vec_same_bytes(v.want.data, v.want.len, out.data, out.len))
                    vec_bytes_mismatch(&m, "loaded snapshot", v.want.data, v.want.len, out.data,
                                       out.len);
                ts_buf_free(&out);
            }
            ts_snapshot_free(s);
        }
        /* Written by us: the reference's file name and bytes. */
        s = build_snapshot(&v.name, &v.meta, v.calls, &m, full);
        if (s != NULL && ts_store_save(ours, s, 0, &err) < 0)
            vec_mismatch(&m, "saving '%s': %s", name, err.message);
        else if (s != NULL && !file_holds(our_root, &v.filename, &v.want))
            vec_mismatch(&m, "'%s' is not stored as %.*s with the reference's bytes", name,
                         (int)v.filename.len, v.filename.data);
        ts_snapshot_free(s);
        json_object_put(v.calls);
        free(name);
    }
    ck_assert_int_eq(ts_store_list(theirs, &listing, &err), 0);
    if (listing.count != full || listing.problem_count != 0)
        vec_mismatch(&m, "listing the reference's root: %zu snapshots (of %zu), %zu problems%s%s",
                     listing.count, full, listing.problem_count, listing.problem_count ? ": " : "",
                     listing.problem_count ? listing.problems[0].message : "");
    ts_store_listing_free(&listing);
    if (count_entries(our_root) != full)
        vec_mismatch(&m, "our root holds %zu entries for %zu snapshots", count_entries(our_root),
                     full);
    ts_store_close(theirs);
    ts_store_close(ours);
    vec_close(&f);
    free(docs);
    vec_close(&docs_file);
    ck_assert_int_eq(util_remove_tree(python_root), 0);
    ck_assert_int_eq(util_remove_tree(our_root), 0);
    free(python_root);
    free(our_root);
    printf("store: %zu snapshots through both roots, %zu mismatches\n", full, m.count);
    ck_assert_int_ge(full, 20);
    ck_assert_msg(m.count == 0, "%zu store mismatches", m.count);
}
END_TEST

/* ---- escaped surrogate pairs (found by the vectors) ----------------------- */

/*
 * json-c 0.16 reads an escaped pair whose code point has its low 16 bits in
 * D800-DFFF (U+1D800-1DFFF, U+2D800-2DFFF, ...) as U+FFFD; Python's
 * json.loads, and so ts_json_parse, read every pair exactly, in keys and in
 * values. Texts written by json.dumps with its default ensure_ascii=True
 * (trace files, messages from Python shims) escape every astral character.
 */
START_TEST(every_escaped_surrogate_pair_reads_exactly)
{
    static const long lows[] = {0xDC00, 0xDE01, 0xDFFF};
    size_t checked = 0;

    for (long high = 0xD800; high <= 0xDBFF; high++) {
        for (size_t k = 0; k < sizeof(lows) / sizeof(lows[0]); k++) {
            uint32_t cp =
                0x10000 + (((uint32_t)high - 0xD800) << 10) + ((uint32_t)lows[k] - 0xDC00);
            struct json_object *v = NULL;
            struct json_object *value = NULL;
            char text[96];
            char want[5];
            char key[16];
            ts_error err;

            snprintf(text, sizeof(text), "{\"k\\u%04lx\\u%04lx\": \"\\u%04lX\\u%04lX.\"}", high,
                     lows[k], high, lows[k]);
            want[vec_utf8_put(cp, want)] = '\0';
            ck_assert_msg(ts_json_parse(text, strlen(text), 0, &v, &err) == 0, "%s: %s", text,
                          err.message);
            snprintf(key, sizeof(key), "k%s", want);
            ck_assert_msg(json_object_object_get_ex(v, key, &value), "%s: key U+%05X misread", text,
                          (unsigned)cp);
            ck_assert_int_eq(json_object_get_string_len(value), 5);
            ck_assert_msg(memcmp(json_object_get_string(value), want, 4) == 0,
                          "%s: value U+%05X misread", text, (unsigned)cp);
            json_object_put(v);
            checked++;
        }
    }
    ck_assert_uint_eq(checked, 3072);
}
END_TEST

/* The repair does not move error positions: a syntax error after such a pair
 * is reported where it is, exactly as after any other pair. */
START_TEST(errors_after_repaired_pairs_keep_their_position)
{
    static const char *const pairs[][2] = {
        {"[\"\\ud836\\udc00\", tru]", "[\"\\ud83d\\ude00\", tru]"},
        {"{\"\\udbb7\\udff5\": 1,}", "{\"\\udbff\\udfff\": 1,}"},
        {"[\"\\ud9b6\\udf0a\",\n \"\\ud800\"]", "[\"\\ud83d\\ude00\",\n \"\\ud800\"]"},
        {"\"\\ud837\\ude09\" 1", "\"\\ud83d\\ude09\" 1"},
    };

    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
        struct json_object *v = NULL;
        ts_error repaired, plain;

        ck_assert_int_lt(ts_json_parse(pairs[i][0], strlen(pairs[i][0]), 0, &v, &repaired), 0);
        ck_assert_ptr_null(v);
        ck_assert_int_lt(ts_json_parse(pairs[i][1], strlen(pairs[i][1]), 0, &v, &plain), 0);
        ck_assert_str_eq(repaired.code, plain.code);
        ck_assert_str_eq(repaired.message, plain.message);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("compat");
    TCase *tc = tcase_create("vectors");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, json_documents_match_python);
    tcase_add_test(tc, reader_accepts_and_refuses_like_python);
    tcase_add_test(tc, file_names_match_python);
    tcase_add_test(tc, snapshot_files_match_python);
    tcase_add_test(tc, store_uses_the_reference_layout);
    suite_add_tcase(s, tc);
    tc = tcase_create("surrogate_pairs");
    tcase_add_test(tc, every_escaped_surrogate_pair_reads_exactly);
    tcase_add_test(tc, errors_after_repaired_pairs_keep_their_position);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
