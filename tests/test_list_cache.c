/*
 * test_list_cache — the listing's fast paths: the one-pass scan of a
 * snapshot file (ts_snapshot_scan) never accepts what the parser refuses and
 * gives exactly the parser's members; the summary cache (ts_list_cache)
 * gives the listing an uncached one gives, sees edits, additions, removals,
 * files made invalid and racy rewrites, keeps nothing it may not trust, and
 * stays within its budget.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/check/ts_check.h"
#include "lib/store/ts_store.h"
#include "lib/snapshot/ts_snapshot.h"
#include "util_test.h"

/* ---- the scan against the parser --------------------------------------- */

static const char BASE[] =
    "{\n  \"schema_version\": 1,\n  \"name\": \"tests/test_a.py::test_b\",\n"
    "  \"created_at\": \"2025-06-01T12:05:00.123456+00:00\",\n"
    "  \"updated_at\": \"2025-06-02T12:05:00.654321+00:00\",\n"
    "  \"toolscore_version\": \"1.8.1\",\n  \"approved\": true,\n  \"source\": \"trace\",\n"
    "  \"calls\": [\n    {\n      \"tool\": \"search\",\n      \"args\": {\n"
    "        \"q\": \"caf\xc3\xa9 \\\"x\\\" \\n\",\n        \"n\": -12,\n        \"f\": 1.5e-7,\n"
    "        \"l\": [true, false, null, {}, []]\n      }\n    },\n"
    "    {\n      \"tool\": \"book\",\n      \"args\": null\n    }\n  ]\n}\n";

/* The scan of text[0..len) agrees with ts_snapshot_parse_ex: when it says
 * yes, the parser accepts the file, with both timestamps, and the same
 * members. Returns whether the scan said yes. */
static bool scan_agrees(const char *text, size_t len)
{
    ts_snapshot_scan m;
    ts_snapshot *s = NULL;
    ts_error err;
    bool given = false;
    bool yes = ts_snapshot_scan_summary(text, len, &m);
    int rc;

    if (!yes)
        return false;
    rc = ts_snapshot_parse_ex(text, len, "f", &s, &given, &err);
    ck_assert_msg(rc == 0, "scanned as valid but the parser says: %s (%.*s)", err.message,
                  (int)(len < 300 ? len : 300), text);
    ck_assert(given);
    ck_assert_uint_eq(m.name_len, strlen(s->name));
    ck_assert(memcmp(m.name, s->name, m.name_len) == 0);
    ck_assert_uint_eq(m.source_len, strlen(s->source));
    ck_assert(memcmp(m.source, s->source, m.source_len) == 0);
    ck_assert_uint_eq(m.created_len, strlen(s->created_at));
    ck_assert(memcmp(m.created_at, s->created_at, m.created_len) == 0);
    ck_assert_uint_eq(m.updated_len, strlen(s->updated_at));
    ck_assert(memcmp(m.updated_at, s->updated_at, m.updated_len) == 0);
    ck_assert_int_eq(m.approved, s->approved);
    ck_assert_uint_eq(m.calls, json_object_array_length(s->calls));
    ts_snapshot_free(s);
    return true;
}

static bool scan_agrees_str(const char *text)
{
    return scan_agrees(text, strlen(text));
}

/* BASE with the first occurrence of from replaced by to. */
static char *variant(const char *from, const char *to)
{
    const char *at = strstr(BASE, from);
    char *out;

    ck_assert_msg(at != NULL, "'%s' not in the base file", from);
    out = malloc(sizeof(BASE) + strlen(to));
    ck_assert_ptr_nonnull(out);
    memcpy(out, BASE, (size_t)(at - BASE));
    strcpy(out + (at - BASE), to);
    strcat(out, at + strlen(from));
    return out;
}

START_TEST(scan_reads_usual_files)
{
    ck_assert(scan_agrees_str(BASE));
    /* what the store writes, and the reference tool's files */
    ck_assert(scan_agrees_str("{\"name\": \"a\", \"created_at\": \"t\", \"updated_at\": \"u\", "
                              "\"calls\": []}"));
    ck_assert(scan_agrees_str("{\"calls\": [{\"tool\": \"x\"}], \"updated_at\": \"u\", "
                              "\"name\": \"\xe6\x97\xa5\xe6\x9c\xac\", \"created_at\": \"t\", "
                              "\"extra\": {\"k\": [1, 2.5, -0, 1E+2]}}  \n\n"));
}
END_TEST

/* Files the scan leaves to the parser, valid or not: it never says yes
 * when the parser refuses, and gives the parser's members when it does. */
START_TEST(scan_unsure_or_right_on_edges)
{
    static const char *const replacements[][2] = {
        {"\"schema_version\": 1", "\"schema_version\": 2"},
        {"\"schema_version\": 1", "\"schema_version\": 1.0"},
        {"\"schema_version\": 1", "\"schema_version\": \"1\""},
        {"\"schema_version\": 1", "\"schema_version\": 10"},
        {"\"schema_version\": 1,", ""},
        {"\"name\": \"tests/test_a.py::test_b\"", "\"name\": \"\""},
        {"\"name\": \"tests/test_a.py::test_b\"", "\"name\": 5"},
        {"\"name\": \"tests/test_a.py::test_b\"", "\"name\": \"a\\u0000b\""},
        {"\"name\": \"tests/test_a.py::test_b\"", "\"name\": \"a\\nb\""},
        {"\"name\": \"tests/test_a.py::test_b\"", "\"name\": \"\\u00e9\""},
        {"\"name\": \"tests/test_a.py::test_b\",", ""},
        {"\"name\": \"tests/test_a.py::test_b\",", "\"name\": \"a\", \"name\": \"b\","},
        {"\"created_at\": \"2025-06-01T12:05:00.123456+00:00\",", ""},
        {"\"updated_at\": \"2025-06-02T12:05:00.654321+00:00\",", ""},
        {"\"created_at\": \"2025-06-01T12:05:00.123456+00:00\"",
         "\"created_at\": \"2025-06-01T12:05:00.123456+00:00-and-far-too-long-for-a-stamp\""},
        {"\"created_at\": \"2025", "\"created_at\": \"\\t2025"},
        {"\"created_at\": \"2025-06-01T12:05:00.123456+00:00\"", "\"created_at\": null"},
        {"\"approved\": true", "\"approved\": 1"},
        {"\"approved\": true", "\"approved\": false"},
        {"\"approved\": true", "\"approved\": tru"},
        {"\"approved\": true,", ""},
        {"\"source\": \"trace\"", "\"source\": 3"},
        {"\"source\": \"trace\",", ""},
        {"\"source\": \"trace\"", "\"source\": \"a\\\"b\""},
        {"\"toolscore_version\": \"1.8.1\"", "\"toolscore_version\": \"1\\\\8\""},
        {"\"toolscore_version\": \"1.8.1\"", "\"toolscore_version\": false"},
        {"\"calls\": [", "\"calls\": {\"a\": ["},
        {"\"tool\": \"search\"", "\"tool\": \"\""},
        {"\"tool\": \"search\"", "\"tool\": \"\\\\\""},
        {"\"tool\": \"search\"", "\"tool\": 1"},
        {"\"tool\": \"search\"", "\"tool\": \"a\", \"tool\": \"\""},
        {"\"tool\": \"search\",", ""},
        {"\"args\": null", "\"args\": 5"},
        {"\"args\": null", "\"args\": []"},
        {"\"args\": null", "\"args\": {}, \"args\": 1"},
        {"\"n\": -12", "\"n\": 012"},
        {"\"n\": -12", "\"n\": 18446744073709551615"},
        {"\"n\": -12", "\"n\": 18446744073709551616"},
        {"\"n\": -12", "\"n\": -9223372036854775809"},
        {"\"n\": -12", "\"n\": 1e400"},
        {"\"n\": -12", "\"n\": 1e99"},
        {"\"n\": -12", "\"n\": 1.5E-99"},
        {"\"n\": -12", "\"n\": NaN"},
        {"\"n\": -12", "\"n\": -Infinity"},
        {"\"n\": -12", "\"n\": 1."},
        {"\"n\": -12", "\"n\": .5"},
        {"\"n\": -12", "\"n\": +1"},
        {"\"n\": -12", "\"n\": 1e"},
        {"\"n\": -12", "\"n\": \"\\ud83d\\ude00\""},
        {"\"n\": -12", "\"n\": \"\\ud83d\""},
        {"\"n\": -12", "\"n\": \"\\udc00\""},
        {"\"n\": -12", "\"n\": \"\\x\""},
        {"\"n\": -12", "\"n\": 'a'"},
        {"\"n\": -12", "\"n\": [1,]"},
        {"\"n\": -12", "\"n\": {\"a\" 1}"},
        {"\"n\": -12", "\"n\": {\"a\": 1,}"},
        {"\"n\": -12", "\"n\": [1 2]"},
        {"\"n\": -12", "\"n\": \"\xc3\""},
        {"\"n\": -12", "\"n\": \"\xed\xa0\x80\""},
        {"\"n\": -12", "\"n\": \"\xc0\xaf\""},
        {"\"n\": -12", "\"n\": \"\xf4\x90\x80\x80\""},
        {"\"n\": -12", "\"n\": \"a\tb\""},
        {"\"n\": -12", "\"n\": \"a\x7f\""},
        {"\"n\": -12", "\"n\": truex"},
        {"\"n\": -12", "\"n\": nul"},
        {"\"n\": -12", "\"n\": -12 /* c */"},
        {"\"n\": -12", "\"n\\u0000\": 1"},
        {"\"n\": -12", "\"n\": \"\\/\\b\\f\\r\\t\""},
        {"{\n  \"schema", "\xef\xbb\xbf{\n  \"schema"},
        {"{\n  \"schema", "[{\n  \"schema"},
        {"]\n}\n", "]\n}\n}"},
        {"]\n}\n", "]\n} x"},
        {"]\n}\n", "]\n}{}"},
        {"]\n}\n", "]\n}\f"},
        {"]\n}\n", "]\n}\n\t \r\n"},
        {"]\n}\n", "]\n"},
    };
    size_t n = sizeof(replacements) / sizeof(replacements[0]);
    int accepted = 0;

    for (size_t i = 0; i < n; i++) {
        char *text = variant(replacements[i][0], replacements[i][1]);

        if (scan_agrees(text, strlen(text)))
            accepted++;
        free(text);
    }
    /* some edges are plainly valid and read by the scan */
    ck_assert_int_ge(accepted, 8);
    /* deep nesting: the scan stops at 64 levels, the parser at 128 */
    for (int depth = 60; depth <= 140; depth += 10) {
        char text[1024];
        int k = snprintf(text, sizeof(text),
                         "{\"name\": \"a\", \"created_at\": \"t\", "
                         "\"updated_at\": \"t\", \"calls\": [], \"x\": ");

        for (int d = 0; d < depth; d++)
            text[k++] = '[';
        for (int d = 0; d < depth; d++)
            text[k++] = ']';
        text[k++] = '}';
        text[k] = '\0';
        scan_agrees(text, (size_t)k);
    }
    /* empty, truncated and garbage files; a NUL after the object */
    ck_assert(!scan_agrees("", 0));
    ck_assert(!scan_agrees(BASE, sizeof(BASE)));
    for (size_t cut = 0; cut + 1 < sizeof(BASE) - 2; cut += 7)
        ck_assert(!scan_agrees(BASE, cut));
}
END_TEST

/* Random damage to a valid file: the scan never accepts what the parser
 * refuses. TS_SCAN_MUTATIONS sets how many files (default 20000). */
START_TEST(scan_never_accepts_what_the_parser_refuses)
{
    static const char alphabet[] = "{}[]\",:\\u0123456789eE.-+ \n\ttfnalsr\xc3\xa9\x80\xff";
    const char *env = getenv("TS_SCAN_MUTATIONS");
    long rounds = env != NULL ? atol(env) : 20000;
    unsigned seed = 1234567;
    size_t base_len = sizeof(BASE) - 1;
    char *text = malloc(base_len * 2 + 16);
    long accepted = 0;

    ck_assert_ptr_nonnull(text);
    for (long r = 0; r < rounds; r++) {
        size_t len = base_len;
        int edits = 1 + (int)(util_next_random(&seed) % 3);

        memcpy(text, BASE, base_len);
        for (int e = 0; e < edits; e++) {
            size_t at = util_next_random(&seed) % len;
            char c = alphabet[util_next_random(&seed) % (sizeof(alphabet) - 1)];

            switch (util_next_random(&seed) % 3) {
            case 0: /* replace */
                text[at] = c;
                break;
            case 1: /* insert */
                memmove(text + at + 1, text + at, len - at);
                text[at] = c;
                len++;
                break;
            default: /* delete */
                memmove(text + at, text + at + 1, len - at - 1);
                len--;
                break;
            }
        }
        text[len] = '\0';
        if (scan_agrees(text, len))
            accepted++;
    }
    /* the damage often lands where it changes nothing that matters */
    ck_assert(rounds < 100 || accepted > 0);
    free(text);
}
END_TEST

/* The corpus of the snapshot fuzzer and the JSON test files. */
START_TEST(scan_agrees_on_corpus_files)
{
    static const char *const dirs[] = {"tests/fuzz/corpus/snapshot", "tests/data/json"};

    for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
        char cmd[1024];
        char line[1024];
        FILE *ls;

        snprintf(cmd, sizeof(cmd), "ls '%s/%s'", util_source_dir(), dirs[d]);
        ls = popen(cmd, "r");
        ck_assert_ptr_nonnull(ls);
        while (fgets(line, sizeof(line), ls) != NULL) {
            char path[2048];
            size_t len;
            char *text;

            line[strcspn(line, "\n")] = '\0';
            snprintf(path, sizeof(path), "%s/%s/%s", util_source_dir(), dirs[d], line);
            text = util_read_file(path, &len);
            scan_agrees(text, len);
            free(text);
        }
        pclose(ls);
    }
}
END_TEST

/* ---- the cache ----------------------------------------------------------- */

static char *root_;
static ts_store *store_;
static ts_list_budget budget_;

static void setup(void)
{
    ts_error err;

    root_ = util_make_temp_dir("ts-listcache");
    ck_assert_int_eq(ts_store_open(root_, &store_, &err), 0);
    atomic_init(&budget_.used, 0);
    budget_.max = 64u << 20;
}

static void teardown(void)
{
    ts_store_close(store_);
    util_remove_tree(root_);
    free(root_);
}

static void save(const char *name, const char *tool, bool approved)
{
    char calls[256];
    struct json_object *c;
    ts_snapshot *s;
    ts_error err;

    snprintf(calls, sizeof(calls), "[{\"tool\": \"%s\", \"args\": {}}]", tool);
    c = util_json_c_parse(calls);
    ck_assert_int_eq(ts_snapshot_new(name, c, "pytest", &s, &err), 0);
    s->approved = approved;
    ck_assert_int_eq(ts_store_save(store_, s, 0, &err), 0);
    ts_snapshot_free(s);
    json_object_put(c);
}

static char *file_of(const char *name)
{
    char path[4096];
    ts_error err;

    ck_assert_int_eq(ts_store_path(store_, name, path, sizeof(path), &err), 0);
    return strdup(path);
}

/* A listing as text: every item and problem, one line each. */
static char *render(const ts_store_summaries *s)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);

    for (size_t i = 0; i < s->count; i++) {
        const ts_store_summary *it = &s->items[i];

        fprintf(f, "%s|%s|%s|%d|%zu|%s|%s\n", it->name, it->file, it->source, it->approved,
                it->calls, it->created_at, it->updated_at);
    }
    for (size_t i = 0; i < s->problem_count; i++)
        fprintf(f, "problem %s: %s\n", s->problems[i].file, s->problems[i].message);
    fclose(f);
    return out;
}

/* List with cache and without; both must be equal. Returns the text. */
static char *list_both(ts_list_cache *cache)
{
    ts_store_summaries a, b;
    ts_error err;
    char *ta;
    char *tb;

    ck_assert_int_eq(ts_store_list_summaries_cached(store_, cache, &a, &err), 0);
    ck_assert_int_eq(ts_store_list_summaries(store_, &b, &err), 0);
    ta = render(&a);
    tb = render(&b);
    if (strcmp(ta, tb) != 0)
        fprintf(stderr, "cached:\n%s\nuncached:\n%s\n", ta, tb);
    ck_assert_msg(strcmp(ta, tb) == 0, "the cached listing differs from the uncached one");
    ts_store_summaries_free(&a);
    ts_store_summaries_free(&b);
    free(tb);
    return ta;
}

/* The line of text listing name ("name|..."), as a new string. */
static char *line_of(const char *text, const char *name)
{
    char key[64];
    const char *at;

    snprintf(key, sizeof(key), "\n%s|", name);
    at = strncmp(text, key + 1, strlen(key + 1)) == 0 ? text : strstr(text, key);
    ck_assert_msg(at != NULL, "%s is not listed", name);
    if (*at == '\n')
        at++;
    return strndup(at, strcspn(at, "\n"));
}

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

/* Replace the bytes "from" by "to" (same length) in the file in place and
 * put its old mtime back: same inode, same size, same mtime. */
static void rewrite_in_place(const char *path, const char *from, const char *to)
{
    struct stat before;
    struct timespec times[2];
    size_t len;
    char *text = util_read_file(path, &len);
    char *at = strstr(text, from);
    FILE *f;

    ck_assert_ptr_nonnull(at);
    ck_assert_uint_eq(strlen(from), strlen(to));
    memcpy(at, to, strlen(to));
    ck_assert_int_eq(stat(path, &before), 0);
    f = fopen(path, "r+");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    fclose(f);
    times[0] = before.st_atim;
    times[1] = before.st_mtim;
    ck_assert_int_eq(utimensat(AT_FDCWD, path, times, 0), 0);
    free(text);
}

START_TEST(cache_sees_every_change)
{
    ts_list_cache *cache;
    ts_list_cache_stats st;
    char *text;
    char *path;
    char *line;

    /* margin 0: a file written before a listing started is trusted */
    ck_assert_int_eq(ts_list_cache_new(&budget_, 0, &cache), 0);
    text = list_both(cache); /* the root does not exist yet */
    ck_assert_str_eq(text, "");
    free(text);
    for (int i = 0; i < 20; i++) {
        char name[32];

        snprintf(name, sizeof(name), "snap-%02d", i);
        save(name, "aaaa", i % 2 == 0);
    }
    pause_ms(5);
    free(list_both(cache));
    ts_list_cache_get_stats(cache, &st);
    ck_assert_uint_eq(st.read, 20);
    ck_assert_uint_eq(st.entries, 20);
    ck_assert_uint_eq(budget_.used, st.bytes);
    free(list_both(cache));
    ts_list_cache_get_stats(cache, &st);
    ck_assert_uint_eq(st.reused, 20);
    ck_assert_uint_eq(st.read, 0);

    /* an edit in place, same size, old mtime put back */
    path = file_of("snap-03");
    rewrite_in_place(path, "\"aaaa\"", "\"bbbb\"");
    rewrite_in_place(path, "\"approved\": false", "\"approved\": true ");
    text = list_both(cache);
    line = line_of(text, "snap-03");
    ck_assert_ptr_nonnull(strstr(line, "|pytest|1|1|"));
    free(line);
    ts_list_cache_get_stats(cache, &st);
    ck_assert_uint_eq(st.read, 1);
    ck_assert_uint_eq(st.reused, 19);
    free(text);
    free(path);

    /* an addition, a removal, a rewrite by rename */
    save("snap-new", "cccc", false);
    path = file_of("snap-07");
    ck_assert_int_eq(unlink(path), 0);
    free(path);
    save("snap-08", "dddd", true);
    text = list_both(cache);
    ck_assert_ptr_nonnull(strstr(text, "snap-new|"));
    ck_assert_ptr_null(strstr(text, "snap-07|"));
    free(text);
    ts_list_cache_get_stats(cache, &st);
    ck_assert_uint_eq(st.read, 2);

    /* a file made invalid, then valid again */
    path = file_of("snap-10");
    rewrite_in_place(path, "\"calls\"", "\"callz\"");
    text = list_both(cache);
    ck_assert_ptr_null(strstr(text, "snap-10|"));
    ck_assert_ptr_nonnull(strstr(text, "problem snap-10-"));
    ck_assert_ptr_nonnull(strstr(text, "\"calls\" is missing"));
    free(text);
    text = list_both(cache); /* still reported: problems are never cached */
    ck_assert_ptr_nonnull(strstr(text, "\"calls\" is missing"));
    free(text);
    rewrite_in_place(path, "\"callz\"", "\"calls\"");
    text = list_both(cache);
    ck_assert_ptr_nonnull(strstr(text, "snap-10|"));
    free(text);
    free(path);

    /* another file put where a snapshot was (a name that does not hash) */
    {
        char *a = file_of("snap-11");
        char *b = file_of("snap-12");

        ck_assert_int_eq(rename(a, b), 0);
        text = list_both(cache);
        ck_assert_ptr_nonnull(strstr(text, "holds snapshot 'snap-11'"));
        free(text);
        free(a);
        free(b);
    }
    /* everything removed, root included */
    ck_assert_int_eq(util_remove_tree(root_), 0);
    text = list_both(cache);
    ck_assert_str_eq(text, "");
    free(text);
    ts_list_cache_get_stats(cache, &st);
    ck_assert_uint_eq(st.entries, 0);
    ck_assert_uint_eq(budget_.used, 0);
    ts_list_cache_free(cache);
}
END_TEST

/* With the real margin, a file written within the last seconds is never
 * kept: rewritten in place within the same second, with the same size and
 * mtime, the next listing still sees the new contents. */
START_TEST(cache_keeps_nothing_racy)
{
    ts_list_cache *cache;
    ts_list_cache_stats st;
    char *text;
    char *path;
    char *line;

    ck_assert_int_eq(ts_list_cache_new(&budget_, TS_CHECK_RACY_NS, &cache), 0);
    save("racy", "aaaa", true);
    free(list_both(cache));
    ts_list_cache_get_stats(cache, &st);
    ck_assert_uint_eq(st.read, 1);
    ck_assert_uint_eq(st.entries, 0);
    path = file_of("racy");
    rewrite_in_place(path, "\"aaaa\"", "\"bbbb\"");
    rewrite_in_place(path, "\"approved\": true,", "\"approved\":false,");
    text = list_both(cache);
    line = line_of(text, "racy");
    ck_assert_ptr_nonnull(strstr(line, "|pytest|0|1|"));
    free(line);
    free(text);
    ts_list_cache_get_stats(cache, &st);
    ck_assert_uint_eq(st.read, 1);
    ck_assert_uint_eq(st.reused, 0);
    free(path);
    ts_list_cache_free(cache);
}
END_TEST

/* A file that did not give its timestamps lists them as "now" every time:
 * never kept. */
START_TEST(cache_skips_files_without_timestamps)
{
    char path[4096];
    ts_list_cache *cache;
    ts_list_cache_stats st;
    ts_store_summaries s;
    ts_error err;
    char *text;

    save("stamped", "aaaa", true); /* makes the root */
    ck_assert_int_eq(ts_store_path(store_, "bare", path, sizeof(path), &err), 0);
    text = strdup("{\"name\": \"bare\", \"calls\": []}\n");
    util_write_file(path, text, strlen(text));
    free(text);
    pause_ms(5);
    ck_assert_int_eq(ts_list_cache_new(&budget_, 0, &cache), 0);
    ck_assert_int_eq(ts_store_list_summaries_cached(store_, cache, &s, &err), 0);
    ck_assert_uint_eq(s.count, 2);
    ts_store_summaries_free(&s);
    ts_list_cache_get_stats(cache, &st);
    ck_assert_uint_eq(st.entries, 1);
    ck_assert_int_eq(ts_store_list_summaries_cached(store_, cache, &s, &err), 0);
    ts_list_cache_get_stats(cache, &st);
    ck_assert_uint_eq(st.reused, 1);
    ck_assert_uint_eq(st.read, 1);
    ts_store_summaries_free(&s);
    ts_list_cache_free(cache);
}
END_TEST

/* Two caches share a small budget: what does not fit is read again, the
 * listings stay right, and freeing gives the bytes back. */
START_TEST(cache_stays_within_budget)
{
    ts_list_cache *a;
    ts_list_cache *b;
    ts_list_cache_stats sa, sb;

    for (int i = 0; i < 100; i++) {
        char name[32];

        snprintf(name, sizeof(name), "budget-%03d", i);
        save(name, "aaaa", true);
    }
    pause_ms(5);
    budget_.max = 12000;
    ck_assert_int_eq(ts_list_cache_new(&budget_, 0, &a), 0);
    ck_assert_int_eq(ts_list_cache_new(&budget_, 0, &b), 0);
    free(list_both(a));
    ts_list_cache_get_stats(a, &sa);
    ck_assert_uint_gt(sa.entries, 10);
    ck_assert_uint_lt(sa.entries, 100);
    ck_assert_uint_le(sa.bytes, budget_.max);
    free(list_both(b));
    ts_list_cache_get_stats(b, &sb);
    ck_assert_uint_le(sa.bytes + sb.bytes, budget_.max);
    ck_assert_uint_eq(budget_.used, sa.bytes + sb.bytes);
    free(list_both(a));
    ts_list_cache_get_stats(a, &sa);
    ck_assert_uint_eq(sa.reused + sa.read, 100);
    ts_list_cache_free(a);
    ck_assert_uint_eq(budget_.used, sb.bytes);
    ts_list_cache_free(b);
    ck_assert_uint_eq(budget_.used, 0);
}
END_TEST

/* ---- listing while files change ----------------------------------------- */

static atomic_bool writer_stop_;

static void *writer(void *arg)
{
    unsigned seed = 99;

    (void)arg;
    for (int round = 0; !atomic_load(&writer_stop_); round++) {
        char name[32];
        char *path;

        snprintf(name, sizeof(name), "busy-%03u", util_next_random(&seed) % 600);
        switch (round % 3) {
        case 0:
            save(name, (round % 2) ? "aaaa" : "bbbb", round % 5 == 0);
            break;
        case 1:
            path = file_of(name);
            unlink(path);
            free(path);
            break;
        default:
            path = file_of(name);
            util_write_file(path, "{\"broken", 8);
            free(path);
            break;
        }
    }
    return NULL;
}

/* Listings (on several threads, over 512 files) while another thread writes,
 * removes and breaks files; afterwards, cached equals uncached. */
START_TEST(cache_lists_while_files_change)
{
    ts_list_cache *cache;
    pthread_t tid;
    char *text;

    for (int i = 0; i < 600; i++) {
        char name[32];

        snprintf(name, sizeof(name), "busy-%03d", i);
        save(name, "aaaa", true);
    }
    pause_ms(5);
    ck_assert_int_eq(ts_list_cache_new(&budget_, 0, &cache), 0);
    free(list_both(cache));
    atomic_init(&writer_stop_, false);
    ck_assert_int_eq(pthread_create(&tid, NULL, writer, NULL), 0);
    for (int i = 0; i < 20; i++) {
        ts_store_summaries s;
        ts_error err;

        ck_assert_int_eq(ts_store_list_summaries_cached(store_, cache, &s, &err), 0);
        ck_assert_uint_le(s.count + s.problem_count, 600);
        for (size_t k = 0; k < s.count; k++)
            ck_assert_uint_eq(s.items[k].calls, 1);
        ts_store_summaries_free(&s);
    }
    atomic_store(&writer_stop_, true);
    pthread_join(tid, NULL);
    pause_ms(5);
    text = list_both(cache);
    free(text);
    ts_list_cache_free(cache);
}
END_TEST

static Suite *list_cache_suite(void)
{
    Suite *s = suite_create("list_cache");
    TCase *scan = tcase_create("scan");
    TCase *cache = tcase_create("cache");

    tcase_set_timeout(scan, 60);
    tcase_add_test(scan, scan_reads_usual_files);
    tcase_add_test(scan, scan_unsure_or_right_on_edges);
    tcase_add_test(scan, scan_never_accepts_what_the_parser_refuses);
    tcase_add_test(scan, scan_agrees_on_corpus_files);
    suite_add_tcase(s, scan);
    tcase_add_checked_fixture(cache, setup, teardown);
    tcase_set_timeout(cache, 60);
    tcase_add_test(cache, cache_sees_every_change);
    tcase_add_test(cache, cache_keeps_nothing_racy);
    tcase_add_test(cache, cache_skips_files_without_timestamps);
    tcase_add_test(cache, cache_stays_within_budget);
    tcase_add_test(cache, cache_lists_while_files_change);
    suite_add_tcase(s, cache);
    return s;
}

int main(void)
{
    return util_run_suite(list_cache_suite());
}
