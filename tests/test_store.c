/*
 * test_store — the snapshot root directory (lib/store/ts_store.c): absent roots,
 * durable saves, symbolic links, listing problems, temp-file cleanup, stamps,
 * failures half way through a save, and several threads at once.
 *
 * Each test works in its own fresh directory under $TMPDIR (or /tmp).
 */
#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/json/ts_json.h"
#include "lib/snapshot/ts_snapshot.h"
#include "lib/store/ts_store.h"
#include "util_test.h"
#include "ts_version.h"

static char workdir[512];
static char root[600];

static void make_workdir(void)
{
    const char *tmp = getenv("TMPDIR");

    snprintf(workdir, sizeof(workdir), "%s/ts-store-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(workdir));
    snprintf(root, sizeof(root), "%s/project/.toolscore/snapshots", workdir);
}

static void remove_tree(const char *path)
{
    if (util_remove_tree(path) != 0)
        fprintf(stderr, "could not remove %s\n", path);
}

static void setup(void)
{
    make_workdir();
}

static void teardown(void)
{
    remove_tree(workdir);
}

static void in_root(const char *file, char *out, size_t outsz)
{
    snprintf(out, outsz, "%s/%s", root, file);
}

static void mkdir_root(void)
{
    char cmd[800];

    snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", root);
    ck_assert_int_eq(system(cmd), 0);
}

static ts_store *open_store(void)
{
    ts_store *store = NULL;
    ts_error err;

    ck_assert_msg(ts_store_open(root, &store, &err) == 0, "%s", err.message);
    return store;
}

/* A snapshot named name with n calls of tool "t" and an argument of pad bytes. */
static void save_ok(ts_store *store, const ts_snapshot *s)
{
    ts_error err;

    ck_assert_msg(ts_store_save(store, s, 0, &err) == 0, "%s", err.message);
}

START_TEST(colliding_names_never_touch_each_others_file)
{
    ts_store *store = open_store();
    char a[160], b[160], fa[TS_FILENAME_MAX], fb[TS_FILENAME_MAX], path[1200];
    ts_snapshot *sa, *sb, *got = NULL;
    char *before, *after;
    ts_error err;

    util_colliding_names(a, b, sizeof(a));
    ck_assert_int_eq(ts_name_to_filename(a, strlen(a), fa, sizeof(fa), &err), 0);
    ck_assert_int_eq(ts_name_to_filename(b, strlen(b), fb, sizeof(fb), &err), 0);
    ck_assert_str_eq(fa, fb);
    sa = util_make_snapshot(a, 2, 0);
    sb = util_make_snapshot(b, 3, 0);
    save_ok(store, sa);
    in_root(fa, path, sizeof(path));
    before = util_read_file(path, NULL);
    /* replacing, removing, reading it for the other name: "collision" */
    ck_assert_int_eq(ts_store_save(store, sb, 0, &err), -EEXIST);
    ck_assert_str_eq(err.code, "collision");
    ck_assert_ptr_nonnull(strstr(err.message, a));
    ck_assert_ptr_nonnull(strstr(err.message, b));
    ck_assert_int_eq(ts_store_remove(store, b, 0, &err), -EEXIST);
    ck_assert_str_eq(err.code, "collision");
    ck_assert_int_eq(ts_store_load(store, b, &got, NULL, &err), -EEXIST);
    ck_assert_str_eq(err.code, "collision");
    ck_assert_int_eq(ts_store_approve(store, b, &err), -EEXIST);
    after = util_read_file(path, NULL);
    ck_assert_str_eq(before, after);
    free(after);
    /* a file moved under another file name is no collision: invalid_snapshot */
    ck_assert_int_eq(ts_store_remove(store, "elsewhere", 0, &err), -ENOENT);
    /* under its own name it goes, and then the other name may have it */
    ck_assert_int_eq(ts_store_remove(store, a, 0, &err), 0);
    save_ok(store, sb);
    ck_assert_int_eq(ts_store_load(store, b, &got, NULL, &err), 0);
    ts_snapshot_free(got);
    free(before);
    ts_snapshot_free(sa);
    ts_snapshot_free(sb);
    ts_store_close(store);
}
END_TEST

START_TEST(absent_root_is_an_empty_store)
{
    ts_store *store = open_store();
    ts_store_listing listing;
    ts_file_stamp stamp;
    ts_snapshot *s = NULL;
    struct stat st;
    ts_error err;

    ck_assert_int_eq(ts_store_list(store, &listing, &err), 0);
    ck_assert_int_eq((int)listing.count, 0);
    ck_assert_int_eq((int)listing.problem_count, 0);
    ts_store_listing_free(&listing);
    ck_assert_int_eq(ts_store_load(store, "x", &s, NULL, &err), -ENOENT);
    ck_assert_str_eq(err.code, "not_found");
    ck_assert_ptr_null(s);
    ck_assert_int_eq(ts_store_stat(store, "x", &stamp, &err), 0);
    ck_assert(!stamp.exists);
    ck_assert_int_eq(ts_store_remove(store, "x", 0, &err), -ENOENT);
    ck_assert_int_eq(ts_store_approve(store, "x", &err), -ENOENT);
    ck_assert_int_eq(ts_store_sync(store, &err), 0);
    ck_assert_int_eq(ts_store_cleanup_temp(store, &err), 0);
    ck_assert_str_eq(ts_store_root(store), root);
    /* Nothing was created by reading. */
    ck_assert_int_eq(stat(root, &st), -1);
    ts_store_close(store);
}
END_TEST

START_TEST(open_refuses_bad_roots)
{
    char file[700];
    ts_store *store = NULL;
    ts_error err;

    snprintf(file, sizeof(file), "%s/plain", workdir);
    util_write_file(file, "x", 1);
    ck_assert_int_eq(ts_store_open(file, &store, &err), -ENOTDIR);
    ck_assert_str_eq(err.code, "io");
    ck_assert_ptr_nonnull(strstr(err.message, file));
    ck_assert_int_eq(ts_store_open("", &store, &err), -EINVAL);
    ck_assert_int_eq(ts_store_open(NULL, &store, &err), -EINVAL);
    ck_assert_ptr_null(store);
}
END_TEST

START_TEST(save_creates_root_and_writes_exact_bytes)
{
    ts_store *store = open_store();
    ts_snapshot *s = util_make_snapshot("tests/test_agent.py::test_booking", 2, 3);
    ts_snapshot *back = NULL;
    ts_file_stamp stamp;
    ts_file_stamp stamp2;
    char path[1400];
    char api_path[1400];
    ts_buf expected;
    struct stat st;
    ts_error err;
    char *bytes;
    size_t len;

    save_ok(store, s);
    in_root("tests__test_agent.py__test_booking-5befce50.json", path, sizeof(path));
    ck_assert_int_eq(ts_store_path(store, s->name, api_path, sizeof(api_path), &err), 0);
    ck_assert_str_eq(api_path, path);
    bytes = util_read_file_if_exists(path, &len);
    ck_assert_ptr_nonnull(bytes);
    ts_buf_init(&expected, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_snapshot_serialize(s, &expected, &err), 0);
    ck_assert_int_eq((int)len, (int)expected.len);
    ck_assert(memcmp(bytes, expected.data, len) == 0);
    /* No temp file left behind, and only the one file. */
    ck_assert_int_eq(util_count_entries(root, ""), 1);

    ck_assert_int_eq(ts_store_load(store, s->name, &back, &stamp, &err), 0);
    ck_assert_str_eq(back->name, s->name);
    ck_assert(stamp.exists);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq(stamp.ino, (uint64_t)st.st_ino);
    ck_assert_uint_eq(stamp.size, (uint64_t)st.st_size);
    ck_assert_int_eq(ts_store_stat(store, s->name, &stamp2, &err), 0);
    ck_assert(ts_file_stamp_equal(&stamp, &stamp2));
    /* A new save is a new file (rename): the stamp changes. */
    save_ok(store, s);
    ck_assert_int_eq(ts_store_stat(store, s->name, &stamp2, &err), 0);
    ck_assert(!ts_file_stamp_equal(&stamp, &stamp2));

    ts_buf_free(&expected);
    free(bytes);
    ts_snapshot_free(back);
    ts_snapshot_free(s);
    ts_store_close(store);
}
END_TEST

/* Reference files: load, save unchanged -> same bytes; approve changes only
 * "approved" and "updated_at". */
START_TEST(reference_files_round_trip_through_the_store)
{
    static const char *const files[] = {
        "floats_and_ints-75b53452.json",
        "no_args-7066a219.json",
        "tests__test_flights.py__test_books_a_flight-a17e174d.json",
    };
    ts_store *store;
    ts_error err;

    mkdir_root();
    store = open_store();
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char from[1024];
        char to[1400];
        char *orig;
        char *again;
        size_t len;
        ts_snapshot *s = NULL;
        char *line_a;
        char *line_b;
        char *save_a = NULL;
        char *save_b = NULL;
        int differing = 0;

        snprintf(from, sizeof(from), "%s/tests/data/compat/%s", util_source_dir(), files[i]);
        orig = util_read_file_if_exists(from, &len);
        ck_assert_ptr_nonnull(orig);
        in_root(files[i], to, sizeof(to));
        util_write_file(to, orig, len);
        {
            ts_snapshot *parsed = NULL;
            ts_store_listing listing;

            ck_assert_int_eq(ts_snapshot_parse(orig, len, files[i], &parsed, &err), 0);
            ck_assert_msg(ts_store_load(store, parsed->name, &s, NULL, &err) == 0, "%s",
                          err.message);
            ts_snapshot_free(parsed);
            ck_assert_int_eq(ts_store_list(store, &listing, &err), 0);
            ck_assert_int_eq((int)listing.problem_count, 0);
            ck_assert_int_eq((int)listing.count, (int)i + 1);
            ts_store_listing_free(&listing);
        }
        ck_assert_ptr_nonnull(s);
        save_ok(store, s);
        again = util_read_file_if_exists(to, NULL);
        ck_assert_str_eq(again, orig);
        free(again);

        ck_assert_int_eq(s->approved ? 0 : ts_store_approve(store, s->name, &err), 0);
        again = util_read_file_if_exists(to, NULL);
        line_a = strtok_r(orig, "\n", &save_a);
        line_b = strtok_r(again, "\n", &save_b);
        while (line_a != NULL && line_b != NULL) {
            if (strcmp(line_a, line_b) != 0) {
                differing++;
                /* an approval rewrites the file as this version's
                 * (docs/snapshots.md: a re-save differs in updated_at and
                 * toolscore_version only), plus the flag itself */
                ck_assert_msg(strstr(line_a, "\"updated_at\"") || strstr(line_a, "\"approved\"") ||
                                  strstr(line_a, "\"toolscore_version\""),
                              "unexpected change: %s -> %s", line_a, line_b);
                if (strstr(line_a, "\"toolscore_version\""))
                    ck_assert_str_eq(line_b, "  \"toolscore_version\": \"" TS_VERSION "\",");
            }
            line_a = strtok_r(NULL, "\n", &save_a);
            line_b = strtok_r(NULL, "\n", &save_b);
        }
        ck_assert_ptr_null(line_a);
        ck_assert_ptr_null(line_b);
        ck_assert_int_eq(differing, s->approved                                     ? 0
                                    : strcmp(s->toolscore_version, TS_VERSION) != 0 ? 3
                                                                                    : 2);
        free(again);
        free(orig);
        ts_snapshot_free(s);
    }
    ts_store_close(store);
}
END_TEST

START_TEST(approve_sets_approved_and_updated_at)
{
    ts_store *store = open_store();
    ts_snapshot *s = util_make_snapshot("flow", 1, 1);
    ts_snapshot *back = NULL;
    ts_error err;

    snprintf(s->updated_at, sizeof(s->updated_at), "2020-01-01T00:00:00.000000+00:00");
    free(s->toolscore_version);
    s->toolscore_version = strdup(""); /* as read from a file without one */
    save_ok(store, s);
    ck_assert_int_eq(ts_store_approve(store, "flow", &err), 0);
    ck_assert_int_eq(ts_store_load(store, "flow", &back, NULL, &err), 0);
    ck_assert(back->approved);
    ck_assert_str_eq(back->created_at, s->created_at);
    ck_assert_str_ne(back->updated_at, "2020-01-01T00:00:00.000000+00:00");
    /* the rewrite is this version's (docs/snapshots.md: a re-save differs only
     * in updated_at and toolscore_version) */
    ck_assert_str_eq(back->toolscore_version, TS_VERSION);
    ts_snapshot_free(back);
    ts_snapshot_free(s);
    ts_store_close(store);
}
END_TEST

START_TEST(names_never_leave_the_root)
{
    ts_store *store = open_store();
    ts_snapshot *s = util_make_snapshot("../../evil", 1, 1);
    char path[1400];
    char outside[700];
    struct stat st;

    save_ok(store, s);
    in_root("__..__evil-1361ca8c.json", path, sizeof(path));
    ck_assert_int_eq(stat(path, &st), 0);
    snprintf(outside, sizeof(outside), "%s/project/evil", workdir);
    ck_assert_int_eq(stat(outside, &st), -1);
    ck_assert_int_eq(util_count_entries(root, ""), 1);
    ts_snapshot_free(s);
    ts_store_close(store);
}
END_TEST

START_TEST(symbolic_links_are_never_followed)
{
    ts_store *store;
    ts_snapshot *s = util_make_snapshot("linked", 1, 1);
    ts_snapshot *back = NULL;
    ts_store_listing listing;
    char target[700];
    char link_path[1400];
    char file[TS_FILENAME_MAX];
    ts_buf text;
    ts_error err;
    char *after;

    mkdir_root();
    store = open_store();
    /* A valid snapshot outside the root, linked from inside it. */
    ts_buf_init(&text, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_snapshot_serialize(s, &text, &err), 0);
    snprintf(target, sizeof(target), "%s/outside.json", workdir);
    util_write_file(target, text.data, text.len);
    ck_assert_int_eq(ts_name_to_filename("linked", 6, file, sizeof(file), &err), 0);
    in_root(file, link_path, sizeof(link_path));
    ck_assert_int_eq(symlink(target, link_path), 0);

    ck_assert_int_eq(ts_store_load(store, "linked", &back, NULL, &err), -ELOOP);
    ck_assert_ptr_nonnull(strstr(err.message, "symbolic link"));
    ck_assert_ptr_nonnull(strstr(err.message, link_path));
    ck_assert_int_eq(ts_store_list(store, &listing, &err), 0);
    ck_assert_int_eq((int)listing.count, 0);
    ck_assert_int_eq((int)listing.problem_count, 1);
    ck_assert_str_eq(listing.problems[0].file, file);
    ck_assert_ptr_nonnull(strstr(listing.problems[0].message, "symbolic link"));
    ts_store_listing_free(&listing);

    /* Saving replaces the link itself; the outside file is untouched. */
    s->approved = true;
    save_ok(store, s);
    after = util_read_file_if_exists(target, NULL);
    ck_assert_str_eq(after, text.data);
    ck_assert_int_eq(ts_store_load(store, "linked", &back, NULL, &err), 0);
    ck_assert(back->approved);
    ts_snapshot_free(back);
    free(after);
    ts_buf_free(&text);
    ts_snapshot_free(s);
    ts_store_close(store);
}
END_TEST

START_TEST(non_regular_files_are_refused)
{
    ts_store *store;
    ts_snapshot *s = NULL;
    char file[TS_FILENAME_MAX];
    char path[1400];
    ts_error err;

    mkdir_root();
    store = open_store();
    ck_assert_int_eq(ts_name_to_filename("fifo", 4, file, sizeof(file), &err), 0);
    in_root(file, path, sizeof(path));
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    /* Must not block waiting for a writer. */
    ck_assert_int_eq(ts_store_load(store, "fifo", &s, NULL, &err), -EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "not a regular file"));
    ck_assert_int_eq(ts_name_to_filename("dir", 3, file, sizeof(file), &err), 0);
    in_root(file, path, sizeof(path));
    ck_assert_int_eq(mkdir(path, 0700), 0);
    ck_assert_int_lt(ts_store_load(store, "dir", &s, NULL, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, path));
    ck_assert_ptr_null(s);
    ts_store_close(store);
}
END_TEST

START_TEST(corrupt_files_give_clear_errors)
{
    static const struct {
        const char *content;
        const char *message_part;
    } cases[] = {
        {"", "line 1, column 1: unexpected end of input"},
        {"{\"schema_version\": 1, \"name\": \"c\", \"calls\": [", "unexpected end of input"},
        {"\xff\xfe{}", "invalid UTF-8"},
        {"[1, 2]", "not a JSON object"},
        {"{\"name\": \"c\"}", "\"calls\" is missing"},
        {"{\"name\": \"c\", \"calls\": [{\"tool\": 3}]}", "\"tool\" must be a string"},
        {"{\"name\": \"other\", \"calls\": []}", "holds snapshot 'other', not 'c'"},
    };
    ts_store *store;
    char file[TS_FILENAME_MAX];
    char path[1400];
    ts_error err;

    mkdir_root();
    store = open_store();
    ck_assert_int_eq(ts_name_to_filename("c", 1, file, sizeof(file), &err), 0);
    in_root(file, path, sizeof(path));
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ts_snapshot *s = NULL;

        util_write_file(path, cases[i].content, strlen(cases[i].content));
        ck_assert_int_lt(ts_store_load(store, "c", &s, NULL, &err), 0);
        ck_assert_ptr_null(s);
        ck_assert_msg(strstr(err.message, cases[i].message_part) != NULL, "%s", err.message);
        ck_assert_msg(strncmp(err.message, path, strlen(path)) == 0, "no path in: %s", err.message);
    }
    ts_store_close(store);
}
END_TEST

START_TEST(oversized_file_is_refused)
{
    ts_store *store;
    ts_snapshot *s = NULL;
    char file[TS_FILENAME_MAX];
    char path[1400];
    ts_error err;
    int fd;

    mkdir_root();
    store = open_store();
    ck_assert_int_eq(ts_name_to_filename("big", 3, file, sizeof(file), &err), 0);
    in_root(file, path, sizeof(path));
    fd = open(path, O_WRONLY | O_CREAT, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, (off_t)TS_SNAPSHOT_MAX_BYTES + 1), 0); /* sparse */
    close(fd);
    ck_assert_int_eq(ts_store_load(store, "big", &s, NULL, &err), -E2BIG);
    ck_assert_str_eq(err.code, "too_large");
    ck_assert_ptr_nonnull(strstr(err.message, path));

    /* Exactly at the limit is fine: a snapshot padded with whitespace. */
    {
        ts_snapshot *at_limit = util_make_snapshot("big", 3, 10);
        ts_buf text;
        char *padded = malloc(TS_SNAPSHOT_MAX_BYTES);

        ts_buf_init(&text, TS_BUF_UNLIMITED);
        ck_assert_int_eq(ts_snapshot_serialize(at_limit, &text, &err), 0);
        memset(padded, ' ', TS_SNAPSHOT_MAX_BYTES);
        memcpy(padded, text.data, text.len);
        util_write_file(path, padded, TS_SNAPSHOT_MAX_BYTES);
        ck_assert_msg(ts_store_load(store, "big", &s, NULL, &err) == 0, "%s", err.message);
        ck_assert_int_eq((int)json_object_array_length(s->calls), 3);
        ts_snapshot_free(s);
        ts_snapshot_free(at_limit);
        ts_buf_free(&text);
        free(padded);
    }
    ts_store_close(store);
}
END_TEST

START_TEST(listing_sorts_and_reports_problems)
{
    static const char *const names[] = {"zeta", "alpha", "tests/t.py::b", "tests/t.py::a"};
    ts_store *store = open_store();
    ts_store_listing listing;
    ts_snapshot *moved = util_make_snapshot("moved", 1, 1);
    ts_buf text;
    char path[1400];
    ts_error err;

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        ts_snapshot *s = util_make_snapshot(names[i], 1, 1);

        save_ok(store, s);
        ts_snapshot_free(s);
    }
    in_root("garbage.json", path, sizeof(path));
    util_write_file(path, "{not json", 9);
    in_root("array.json", path, sizeof(path));
    util_write_file(path, "[]", 2);
    /* A valid snapshot under a file name its name does not hash to. */
    ts_buf_init(&text, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_snapshot_serialize(moved, &text, &err), 0);
    in_root("renamed-by-hand.json", path, sizeof(path));
    util_write_file(path, text.data, text.len);
    /* Ignored: not *.json, hidden, temp files. */
    in_root("notes.txt", path, sizeof(path));
    util_write_file(path, "x", 1);
    in_root(".hidden.json", path, sizeof(path));
    util_write_file(path, "x", 1);
    in_root(".alpha-0.json.0123456789abcdef.tmp", path, sizeof(path));
    util_write_file(path, "x", 1);

    ck_assert_int_eq(ts_store_list(store, &listing, &err), 0);
    ck_assert_int_eq((int)listing.count, 4);
    ck_assert_str_eq(listing.items[0]->name, "alpha");
    ck_assert_str_eq(listing.items[1]->name, "tests/t.py::a");
    ck_assert_str_eq(listing.items[2]->name, "tests/t.py::b");
    ck_assert_str_eq(listing.items[3]->name, "zeta");
    ck_assert_str_eq(listing.files[1], "tests__t.py__a-d1c2c4fa.json");
    ck_assert_int_eq((int)listing.problem_count, 3);
    ck_assert_str_eq(listing.problems[0].file, "array.json");
    ck_assert_ptr_nonnull(strstr(listing.problems[0].message, "not a JSON object"));
    ck_assert_str_eq(listing.problems[1].file, "garbage.json");
    ck_assert_ptr_nonnull(strstr(listing.problems[1].message, "/garbage.json: line 1, column 2"));
    ck_assert_str_eq(listing.problems[2].file, "renamed-by-hand.json");
    ck_assert_ptr_nonnull(strstr(listing.problems[2].message, "holds snapshot 'moved'"));
    ck_assert_ptr_nonnull(strstr(listing.problems[2].message, "moved-"));
    ts_store_listing_free(&listing);
    ts_buf_free(&text);
    ts_snapshot_free(moved);
    ts_store_close(store);
}
END_TEST

/* Summaries list what ts_store_list lists, also past the size where files
 * are read on several threads: same names in the same order, same problems,
 * summary fields from the files. */
START_TEST(summaries_match_the_listing)
{
    ts_store *store = open_store();
    ts_store_listing listing;
    ts_store_summaries sums;
    ts_error err;
    char name[32], path[1400];
    int n = 700;

    mkdir_root();
    for (int i = 0; i < n; i++) {
        ts_snapshot *s;
        ts_buf text;

        snprintf(name, sizeof(name), "s%04d", (i * 389) % n); /* not in name order */
        s = util_make_snapshot(name, i % 5 + 1, 1);
        s->approved = i % 3 == 0;
        ts_buf_init(&text, TS_BUF_UNLIMITED);
        ck_assert_int_eq(ts_snapshot_serialize(s, &text, &err), 0);
        ck_assert_int_eq(ts_store_path(store, name, path, sizeof(path), &err), 0);
        util_write_file(path, text.data, text.len); /* no fsync: fast */
        ts_buf_free(&text);
        ts_snapshot_free(s);
    }
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof(name), "bad%02d.json", i);
        in_root(name, path, sizeof(path));
        util_write_file(path, "{", 1);
    }
    ck_assert_int_eq(ts_store_list(store, &listing, &err), 0);
    ck_assert_int_eq(ts_store_list_summaries(store, &sums, &err), 0);
    ck_assert_int_eq((int)listing.count, n);
    ck_assert_int_eq((int)sums.count, n);
    ck_assert_int_eq((int)listing.problem_count, 40);
    ck_assert_int_eq((int)sums.problem_count, 40);
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "s%04d", i);
        ck_assert_str_eq(listing.items[i]->name, name);
        ck_assert_str_eq(sums.items[i].name, name);
        ck_assert_str_eq(sums.items[i].file, listing.files[i]);
        ck_assert_int_eq(sums.items[i].approved, listing.items[i]->approved);
        ck_assert_uint_eq(sums.items[i].calls, json_object_array_length(listing.items[i]->calls));
        ck_assert_str_eq(sums.items[i].source, "pytest");
        ck_assert_str_eq(sums.items[i].created_at, listing.items[i]->created_at);
    }
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof(name), "bad%02d.json", i);
        ck_assert_str_eq(listing.problems[i].file, name);
        ck_assert_str_eq(sums.problems[i].file, name);
        ck_assert_str_eq(sums.problems[i].message, listing.problems[i].message);
    }
    ts_store_listing_free(&listing);
    ts_store_summaries_free(&sums);
    ts_store_close(store);
}
END_TEST

START_TEST(remove_is_durable_and_reports_missing)
{
    ts_store *store = open_store();
    ts_snapshot *s = util_make_snapshot("gone", 1, 1);
    ts_snapshot *back = NULL;
    ts_error err;

    save_ok(store, s);
    ck_assert_int_eq(ts_store_remove(store, "gone", 0, &err), 0);
    ck_assert_int_eq(ts_store_load(store, "gone", &back, NULL, &err), -ENOENT);
    ck_assert_int_eq(ts_store_remove(store, "gone", 0, &err), -ENOENT);
    ck_assert_str_eq(err.code, "not_found");
    ck_assert_int_eq(util_count_entries(root, ""), 0);
    ts_snapshot_free(s);
    ts_store_close(store);
}
END_TEST

START_TEST(batched_saves_without_dirsync)
{
    ts_store *store = open_store();
    ts_store_listing listing;
    ts_error err;

    for (int i = 0; i < 20; i++) {
        char name[32];
        ts_snapshot *s;

        snprintf(name, sizeof(name), "batch-%02d", i);
        s = util_make_snapshot(name, 1, 1);
        ck_assert_int_eq(ts_store_save(store, s, TS_STORE_NO_DIRSYNC, &err), 0);
        ts_snapshot_free(s);
    }
    ck_assert_int_eq(ts_store_sync(store, &err), 0);
    ck_assert_int_eq(ts_store_remove(store, "batch-00", TS_STORE_NO_DIRSYNC, &err), 0);
    ck_assert_int_eq(ts_store_sync(store, &err), 0);
    ck_assert_int_eq(ts_store_list(store, &listing, &err), 0);
    ck_assert_int_eq((int)listing.count, 19);
    ts_store_listing_free(&listing);
    ts_store_close(store);
}
END_TEST

START_TEST(cleanup_removes_only_our_temp_files)
{
    static const char *const keep[] = {".x.json.0123456789abcdeg.tmp", "a.tmp", ".tmp",
                                       ".x.json.0123456789ABCDEF.tmp", "x-1.json"};
    ts_store *store;
    char path[1400];
    ts_error err;

    mkdir_root();
    store = open_store();
    in_root(".x-12345678.json.0123456789abcdef.tmp", path, sizeof(path));
    util_write_file(path, "partial", 7);
    in_root(".y-12345678.json.fedcba9876543210.tmp", path, sizeof(path));
    util_write_file(path, "", 0);
    for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
        in_root(keep[i], path, sizeof(path));
        util_write_file(path, "k", 1);
    }
    ck_assert_int_eq(ts_store_cleanup_temp(store, &err), 2);
    ck_assert_int_eq(util_count_entries(root, ""), 5);
    ck_assert_int_eq(ts_store_cleanup_temp(store, &err), 0);
    ts_store_close(store);
}
END_TEST

/* A planted file's mode is never copied: its replacement is a new file of
 * ours with mode 0644 minus the umask (no setuid bit, nothing others can
 * write), whoever owned the old one. */
START_TEST(modes_of_planted_files_are_not_copied)
{
    static const mode_t planted[] = {04777, 0666, 02775, 0600};
    ts_store *store = open_store();
    ts_snapshot *s = util_make_snapshot("perm", 1, 1);
    char path[1400];
    struct stat st;
    ts_error err;
    mode_t old_mask = umask(022);

    ck_assert_int_eq(ts_store_path(store, "perm", path, sizeof(path), &err), 0);
    save_ok(store, s); /* the root exists */
    for (size_t i = 0; i < sizeof(planted) / sizeof(planted[0]); i++) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, "{}", 2), 2);
        close(fd);
        ck_assert_int_eq(chmod(path, planted[i]), 0);
        if (geteuid() == 0)
            ck_assert_int_eq(chown(path, 65534, 65534), 0); /* another user's */
        save_ok(store, s);
        ck_assert_int_eq(lstat(path, &st), 0);
        ck_assert_msg((st.st_mode & 07777) == 0644, "planted %04o became %04o", planted[i],
                      (unsigned)(st.st_mode & 07777));
        ck_assert_int_eq(st.st_uid, geteuid());
    }
    /* the umask is honoured */
    umask(077);
    save_ok(store, s);
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert_int_eq((int)(st.st_mode & 07777), 0600);
    /* approve rewrites through the same path */
    ck_assert_int_eq(chmod(path, 04777), 0);
    umask(022);
    ck_assert_int_eq(ts_store_approve(store, "perm", &err), 0);
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert_int_eq((int)(st.st_mode & 07777), 0644);
    umask(old_mask);
    ts_snapshot_free(s);
    ts_store_close(store);
}
END_TEST

/* Directories a store creates are 0755 minus the umask, and a root others
 * can write is reported (with the directory, the owner or group, and the
 * mode). */
START_TEST(store_directories_and_exposure)
{
    char *tmp = util_make_temp_dir("ts-store-exp");
    char dir[1200];
    char why[512];
    struct stat st;
    ts_store *store = NULL;
    ts_snapshot *s = util_make_snapshot("x", 1, 1);
    ts_error err;
    mode_t old_mask = umask(0);

    snprintf(dir, sizeof(dir), "%s/proj/.toolscore/snapshots", tmp);
    ck_assert_int_eq(ts_store_open(dir, &store, &err), 0);
    ck_assert_int_eq(ts_store_exposure(store, why, sizeof(why), &err), 0); /* no root yet */
    save_ok(store, s);
    ck_assert_int_eq(stat(dir, &st), 0);
    ck_assert_int_eq((int)(st.st_mode & 07777), 0755);
    ck_assert_int_eq(ts_store_exposure(store, why, sizeof(why), &err), 0);
    ck_assert_int_eq(chmod(dir, 0777), 0);
    ck_assert_int_eq(ts_store_exposure(store, why, sizeof(why), &err), 1);
    ck_assert_ptr_nonnull(strstr(why, dir));
    ck_assert_ptr_nonnull(strstr(why, "writable by every user (mode 0777)"));
    ck_assert_int_eq(chmod(dir, 01777), 0); /* sticky: others still plant new names */
    ck_assert_int_eq(ts_store_exposure(store, why, sizeof(why), &err), 1);
    ck_assert_int_eq(chmod(dir, 0755), 0);
    /* the project's .toolscore above it */
    snprintf(dir, sizeof(dir), "%s/proj/.toolscore", tmp);
    ck_assert_int_eq(chmod(dir, 0777), 0);
    ck_assert_int_eq(ts_store_exposure(store, why, sizeof(why), &err), 1);
    ck_assert_ptr_nonnull(strstr(why, ".toolscore is writable by every user"));
    ck_assert_int_eq(chmod(dir, 0755), 0);
    if (geteuid() == 0) {
        snprintf(dir, sizeof(dir), "%s/proj/.toolscore/snapshots", tmp);
        ck_assert_int_eq(chown(dir, 65534, 65534), 0);
        ck_assert_int_eq(ts_store_exposure(store, why, sizeof(why), &err), 1);
        ck_assert_ptr_nonnull(strstr(why, "is owned by uid 65534"));
        ck_assert_int_eq(chown(dir, 0, 0), 0);
    }
    ck_assert_int_eq(ts_store_exposure(store, why, sizeof(why), &err), 0);
    umask(old_mask);
    ts_snapshot_free(s);
    ts_store_close(store);
    ck_assert_int_eq(util_remove_tree(tmp), 0);
    free(tmp);
}
END_TEST

START_TEST(long_names)
{
    ts_store *store = open_store();
    char name[1024];
    size_t n = 0;
    ts_snapshot *s;
    ts_snapshot *back = NULL;
    ts_error err;

    /* 80 three-byte characters: a 254-byte file name; the temp name is cut. */
    for (int i = 0; i < 80; i++)
        n += (size_t)sprintf(name + n, "\xe2\x82\xac");
    s = util_make_snapshot(name, 1, 1);
    save_ok(store, s);
    ck_assert_int_eq(ts_store_load(store, name, &back, NULL, &err), 0);
    ts_snapshot_free(back);
    ts_snapshot_free(s);
    ck_assert_int_eq(util_count_entries(root, ""), 1);
    /* 100 of them: 314 bytes, more than any file system takes. */
    for (int i = 80; i < 100; i++)
        n += (size_t)sprintf(name + n, "\xe2\x82\xac");
    s = util_make_snapshot(name, 1, 1);
    ck_assert_int_eq(ts_store_save(store, s, 0, &err), -ENAMETOOLONG);
    ck_assert_ptr_nonnull(strstr(err.message, "255-byte limit"));
    ck_assert_int_eq(ts_store_load(store, name, &back, NULL, &err), -ENAMETOOLONG);
    ts_snapshot_free(s);
    ck_assert_int_eq(ts_store_load(store, "", &back, NULL, &err), -ENOENT); /* a name, absent */
    ck_assert_int_eq(util_count_entries(root, ""), 1);
    ts_store_close(store);
}
END_TEST

/*
 * In a child process: save a large version of "victim" over a small one in
 * a store where writing cannot finish. The old file must stay byte for byte,
 * no temp file may remain, and the error must be returned.
 * Exit codes: 0 = property held; 10+ = which check failed.
 */
static int failing_save_child(const char *dir, const char *old_bytes, size_t old_len,
                              int expected_errno)
{
    ts_store *store = NULL;
    ts_snapshot *big = util_make_snapshot("victim", 200, 100);
    ts_error err;
    char path[1400];
    char *now;
    size_t len;
    int rc;

    if (ts_store_open(dir, &store, &err) < 0)
        return 10;
    rc = ts_store_save(store, big, 0, &err);
    if (rc != -expected_errno) {
        fprintf(stderr, "save returned %d (%s)\n", rc, err.message);
        return 11;
    }
    if (strstr(err.message, "victim-") == NULL || strcmp(err.code, "io") != 0)
        return 12;
    if (ts_store_path(store, "victim", path, sizeof(path), &err) < 0)
        return 13;
    now = util_read_file_if_exists(path, &len);
    if (now == NULL || len != old_len || memcmp(now, old_bytes, len) != 0)
        return 14;
    if (util_count_entries(dir, ".") != 0)
        return 15; /* a temp file was left */
    free(now);
    ts_snapshot_free(big);
    ts_store_close(store);
    return 0;
}

/* Save a small "victim" into dir; returns its bytes. */
static char *save_small_victim(const char *dir, size_t *len)
{
    ts_store *store = NULL;
    ts_snapshot *small = util_make_snapshot("victim", 1, 1);
    ts_error err;
    char path[1400];
    char *bytes;

    ck_assert_int_eq(ts_store_open(dir, &store, &err), 0);
    save_ok(store, small);
    ck_assert_int_eq(ts_store_path(store, "victim", path, sizeof(path), &err), 0);
    bytes = util_read_file_if_exists(path, len);
    ts_snapshot_free(small);
    ts_store_close(store);
    return bytes;
}

static void assert_child_ok(pid_t pid)
{
    int status = 0;

    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status), "child died from signal %d", WTERMSIG(status));
    ck_assert_msg(WEXITSTATUS(status) == 0, "check %d failed in the child", WEXITSTATUS(status));
}

/* The file size limit makes write() fail with EFBIG half way (no root needed). */
START_TEST(failed_save_leaves_old_file_intact_fsize)
{
    size_t old_len;
    char *old = save_small_victim(root, &old_len);
    pid_t pid = fork();

    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        struct rlimit lim = {.rlim_cur = 4096, .rlim_max = 4096};

        signal(SIGXFSZ, SIG_IGN);
        if (setrlimit(RLIMIT_FSIZE, &lim) < 0)
            _exit(2);
        _exit(failing_save_child(root, old, old_len, EFBIG));
    }
    assert_child_ok(pid);
    free(old);
}
END_TEST

/*
 * A full file system: as root, a 64 KiB tmpfs in a private mount namespace
 * (gone when the child exits). Without the privilege to mount, the same
 * property is shown with the file size limit instead.
 */
START_TEST(failed_save_leaves_old_file_intact_full_disk)
{
    char mnt[700];
    pid_t pid;

    snprintf(mnt, sizeof(mnt), "%s/tmpfs", workdir);
    ck_assert_int_eq(mkdir(mnt, 0700), 0);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        bool mounted = geteuid() == 0 && unshare(CLONE_NEWNS) == 0 &&
                       mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
                       mount("tmpfs", mnt, "tmpfs", 0, "size=64k") == 0;
        size_t old_len;
        char *old = save_small_victim(mnt, &old_len);
        char filler[900];
        int fd;
        int rc;

        if (!mounted) {
            struct rlimit lim = {.rlim_cur = 4096, .rlim_max = 4096};

            fprintf(stderr, "no tmpfs (not root or no mount privilege): using RLIMIT_FSIZE\n");
            signal(SIGXFSZ, SIG_IGN);
            if (setrlimit(RLIMIT_FSIZE, &lim) < 0)
                _exit(2);
            _exit(failing_save_child(mnt, old, old_len, EFBIG));
        }
        /* Fill the file system to the last page. */
        snprintf(filler, sizeof(filler), "%s/filler", mnt);
        fd = open(filler, O_WRONLY | O_CREAT, 0600);
        if (fd < 0)
            _exit(3);
        for (;;) {
            char block[1024];

            memset(block, 'f', sizeof(block));
            if (write(fd, block, sizeof(block)) < 0)
                break;
        }
        close(fd);
        rc = failing_save_child(mnt, old, old_len, ENOSPC);
        _exit(rc);
    }
    assert_child_ok(pid);
}
END_TEST

/* The root deleted (or recreated by a checkout) while the store is open:
 * the store follows the path, not the old directory. */
START_TEST(root_removed_and_recreated_while_open)
{
    ts_store *store = open_store();
    ts_store *other;
    ts_snapshot *a = util_make_snapshot("a", 1, 1);
    ts_snapshot *b = util_make_snapshot("b", 1, 1);
    ts_snapshot *back = NULL;
    ts_store_listing listing;
    ts_file_stamp stamp;
    char path[1400];
    ts_error err;

    save_ok(store, a);
    remove_tree(root);
    ck_assert_int_eq(ts_store_load(store, "a", &back, NULL, &err), -ENOENT);
    ck_assert_int_eq(ts_store_list(store, &listing, &err), 0);
    ck_assert_int_eq((int)listing.count, 0);
    ts_store_listing_free(&listing);
    ck_assert_int_eq(ts_store_stat(store, "a", &stamp, &err), 0);
    ck_assert(!stamp.exists);
    /* A save makes the root again, where the path says. */
    save_ok(store, b);
    ck_assert_int_eq(ts_store_path(store, "b", path, sizeof(path), &err), 0);
    ck_assert_int_eq(access(path, F_OK), 0);
    ck_assert_int_eq(ts_store_load(store, "b", &back, NULL, &err), 0);
    ts_snapshot_free(back);
    /* Written by someone else into the new directory: visible here. */
    other = open_store();
    save_ok(other, a);
    ts_store_close(other);
    ck_assert_int_eq(ts_store_load(store, "a", &back, NULL, &err), 0);
    ts_snapshot_free(back);
    ck_assert_int_eq(ts_store_remove(store, "a", 0, &err), 0);
    ck_assert_int_eq(ts_store_list(store, &listing, &err), 0);
    ck_assert_int_eq((int)listing.count, 1);
    ts_store_listing_free(&listing);
    ts_snapshot_free(a);
    ts_snapshot_free(b);
    ts_store_close(store);
}
END_TEST

/* Whether name's file exists by ts_store_stat. */
static bool exists_now(ts_store *store, const char *name)
{
    ts_file_stamp stamp;
    ts_error err;

    ck_assert_int_eq(ts_store_stat(store, name, &stamp, &err), 0);
    return stamp.exists;
}

/* ts_store_stat follows the root path: a root moved away and recreated,
 * replaced by a link, or removed is what the next stat sees. */
START_TEST(stat_follows_the_root_path)
{
    ts_store *store = open_store();
    ts_store *there = NULL;
    ts_snapshot *a = util_make_snapshot("a", 1, 1);
    ts_snapshot *b = util_make_snapshot("b", 1, 1);
    ts_file_stamp stamp;
    struct stat st;
    char moved[700], elsewhere[700];
    ts_error err;

    /* no root yet */
    ck_assert(!exists_now(store, "a"));
    save_ok(store, a);
    ck_assert_int_eq(stat(root, &st), 0);
    ck_assert(ts_store_root_is(store, (uint64_t)st.st_dev, (uint64_t)st.st_ino));
    ck_assert(exists_now(store, "a"));
    ck_assert(!exists_now(store, "b"));
    ck_assert_int_eq(ts_store_stat(store, NULL, &stamp, &err), -EINVAL);
    ck_assert(!stamp.exists);
    ck_assert_int_eq(ts_store_stat(store, "", &stamp, &err), 0); /* a name */
    ck_assert(!stamp.exists);
    ck_assert_int_lt(ts_store_stat(store, "a\xff", &stamp, &err), 0);
    ck_assert_str_eq(err.code, "invalid_argument");

    /* moved away and recreated: the new, empty directory */
    snprintf(moved, sizeof(moved), "%s.moved", root);
    ck_assert_int_eq(rename(root, moved), 0);
    mkdir_root();
    ck_assert(!exists_now(store, "a"));

    /* replaced by a link to another directory: that directory */
    snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", workdir);
    ck_assert_int_eq(ts_store_open(elsewhere, &there, &err), 0);
    save_ok(there, b);
    ts_store_close(there);
    remove_tree(root);
    ck_assert_int_eq(symlink(elsewhere, root), 0);
    ck_assert(!exists_now(store, "a"));
    ck_assert(exists_now(store, "b"));

    /* replaced by a link to the held directory where it was moved: held */
    ck_assert_int_eq(unlink(root), 0);
    ck_assert_int_eq(symlink(moved, root), 0);
    ck_assert(exists_now(store, "a"));
    ck_assert(!exists_now(store, "b"));

    /* removed: nothing there */
    ck_assert_int_eq(unlink(root), 0);
    ck_assert(!exists_now(store, "a"));
    ts_snapshot_free(a);
    ts_snapshot_free(b);
    ts_store_close(store);
}
END_TEST

/* ---- several threads at once ---- */

typedef struct worker {
    ts_store *store;
    int id;
    int failures;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;

    for (int round = 0; round < 30; round++) {
        char name[64];
        ts_snapshot *s;
        ts_snapshot *back = NULL;
        ts_error err;

        snprintf(name, sizeof(name), "thread-%d::case-%d", w->id, round % 5);
        s = util_make_snapshot(name, round % 4 + 1, (size_t)round);
        if (ts_store_save(w->store, s, 0, &err) < 0)
            w->failures++;
        else if (ts_store_load(w->store, name, &back, NULL, &err) < 0 ||
                 json_object_array_length(back->calls) != (size_t)(round % 4 + 1))
            w->failures++;
        if (round % 7 == 6 && ts_store_remove(w->store, name, 0, &err) < 0)
            w->failures++;
        ts_snapshot_free(back);
        ts_snapshot_free(s);
    }
    return NULL;
}

START_TEST(threads_on_different_names)
{
    enum { THREADS = 8 };
    ts_store *store = open_store(); /* the root does not exist yet: all race to make it */
    pthread_t threads[THREADS];
    worker workers[THREADS];
    ts_store_listing listing;
    ts_error err;

    for (int i = 0; i < THREADS; i++) {
        workers[i] = (worker){.store = store, .id = i};
        ck_assert_int_eq(pthread_create(&threads[i], NULL, worker_main, &workers[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        ck_assert_int_eq(workers[i].failures, 0);
    }
    ck_assert_int_eq(ts_store_list(store, &listing, &err), 0);
    ck_assert_int_eq((int)listing.problem_count, 0);
    ck_assert_int_gt((int)listing.count, 0);
    ck_assert_int_le((int)listing.count, THREADS * 5);
    ts_store_listing_free(&listing);
    ck_assert_int_eq(util_count_entries(root, "."), 0);
    ts_store_close(store);
}
END_TEST

/* The daemon's write: save without the directory fsync, then ts_store_sync
 * (shared with the other threads' saves and syncs). */
static void *sync_worker_main(void *arg)
{
    worker *w = arg;

    for (int round = 0; round < 20; round++) {
        char name[64];
        ts_snapshot *s;
        ts_error err;
        int flags = (w->id + round) % 2 ? TS_STORE_NO_DIRSYNC : 0;

        snprintf(name, sizeof(name), "sync-%d-%d", w->id, round);
        s = util_make_snapshot(name, 1, (size_t)round);
        if (ts_store_save(w->store, s, flags, &err) < 0 || ts_store_sync(w->store, &err) < 0)
            w->failures++;
        ts_snapshot_free(s);
    }
    return NULL;
}

START_TEST(threads_sharing_directory_fsyncs)
{
#define SYNC_THREADS 8
    ts_store *store = open_store();
    pthread_t threads[SYNC_THREADS];
    worker workers[SYNC_THREADS];
    ts_store_listing listing;
    ts_error err;

    for (int i = 0; i < SYNC_THREADS; i++) {
        workers[i] = (worker){.store = store, .id = i};
        ck_assert_int_eq(pthread_create(&threads[i], NULL, sync_worker_main, &workers[i]), 0);
    }
    for (int i = 0; i < SYNC_THREADS; i++) {
        pthread_join(threads[i], NULL);
        ck_assert_int_eq(workers[i].failures, 0);
    }
    ck_assert_int_eq(ts_store_list(store, &listing, &err), 0);
    ck_assert_int_eq((int)listing.problem_count, 0);
    ck_assert_int_eq((int)listing.count, SYNC_THREADS * 20);
    ts_store_listing_free(&listing);
    ck_assert_int_eq(util_count_entries(root, "."), 0);
    ts_store_close(store);
#undef SYNC_THREADS
}
END_TEST

int main(void)
{
    Suite *s = suite_create("store");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, absent_root_is_an_empty_store);
    tcase_add_test(tc, open_refuses_bad_roots);
    tcase_add_test(tc, save_creates_root_and_writes_exact_bytes);
    tcase_add_test(tc, reference_files_round_trip_through_the_store);
    tcase_add_test(tc, approve_sets_approved_and_updated_at);
    tcase_add_test(tc, names_never_leave_the_root);
    tcase_add_test(tc, symbolic_links_are_never_followed);
    tcase_add_test(tc, non_regular_files_are_refused);
    tcase_add_test(tc, corrupt_files_give_clear_errors);
    tcase_add_test(tc, oversized_file_is_refused);
    tcase_add_test(tc, listing_sorts_and_reports_problems);
    tcase_add_test(tc, summaries_match_the_listing);
    tcase_add_test(tc, remove_is_durable_and_reports_missing);
    tcase_add_test(tc, batched_saves_without_dirsync);
    tcase_add_test(tc, cleanup_removes_only_our_temp_files);
    tcase_add_test(tc, modes_of_planted_files_are_not_copied);
    tcase_add_test(tc, store_directories_and_exposure);
    tcase_add_test(tc, long_names);
    tcase_add_test(tc, colliding_names_never_touch_each_others_file);
    tcase_add_test(tc, failed_save_leaves_old_file_intact_fsize);
    tcase_add_test(tc, failed_save_leaves_old_file_intact_full_disk);
    tcase_add_test(tc, root_removed_and_recreated_while_open);
    tcase_add_test(tc, stat_follows_the_root_path);
    tcase_add_test(tc, threads_on_different_names);
    tcase_add_test(tc, threads_sharing_directory_fsyncs);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
