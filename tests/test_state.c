/*
 * test_state — the daemon's state directory (lib/check/ts_state.c): where it is,
 * who may own it, whole-file replacement, store directories, listing,
 * removal, and the symbolic links and names it refuses.
 */
#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/check/ts_check.h"
#include "util_test.h"

static char *tmp;

static void setup(void)
{
    tmp = util_make_temp_dir("ts-state");
}

static void teardown(void)
{
    util_remove_tree(tmp);
    free(tmp);
}

static char *path_in(const char *rel)
{
    char *p;

    ck_assert_int_ge(asprintf(&p, "%s/%s", tmp, rel), 0);
    return p;
}

START_TEST(default_path_from_environment)
{
    char out[PATH_MAX];
    ts_error err;

    setenv("XDG_STATE_HOME", "/x/state", 1);
    setenv("HOME", "/home/u", 1);
    ck_assert_int_eq(ts_state_default_path(out, sizeof(out), &err), 0);
    ck_assert_str_eq(out, "/x/state/toolscore");
    setenv("XDG_STATE_HOME", "relative/not/used", 1);
    ck_assert_int_eq(ts_state_default_path(out, sizeof(out), &err), 0);
    ck_assert_str_eq(out, "/home/u/.local/state/toolscore");
    unsetenv("XDG_STATE_HOME");
    ck_assert_int_eq(ts_state_default_path(out, sizeof(out), &err), 0);
    ck_assert_str_eq(out, "/home/u/.local/state/toolscore");
    unsetenv("HOME");
    ck_assert_int_eq(ts_state_default_path(out, sizeof(out), &err), -EINVAL);
    ck_assert_str_eq(err.code, "invalid_argument");
    ck_assert_ptr_nonnull(strstr(err.message, "--state-dir"));
    setenv("HOME", "/home/u", 1);
    ck_assert_int_eq(ts_state_default_path(out, 8, &err), -E2BIG);
}
END_TEST

START_TEST(open_creates_private_directories)
{
    char *path = path_in("a/b/toolscore");
    ts_state *st = NULL;
    struct stat sb;
    ts_error err;

    ck_assert_msg(ts_state_open(path, &st, &err) == 0, "%s", err.message);
    ck_assert_str_eq(ts_state_path(st), path);
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_int_eq(sb.st_mode & 0777, 0700);
    ts_state_close(st);
    /* Opening again is fine. */
    ck_assert_int_eq(ts_state_open(path, &st, &err), 0);
    ts_state_close(st);
    ck_assert_int_eq(ts_state_open("relative/path", &st, &err), -EINVAL);
    free(path);
}
END_TEST

START_TEST(open_refuses_a_directory_open_to_others)
{
    char *path = path_in("open");
    ts_state *st = NULL;
    ts_error err;

    ck_assert_int_eq(mkdir(path, 0755), 0);
    ck_assert_int_eq(chmod(path, 0755), 0);
    ck_assert_int_lt(ts_state_open(path, &st, &err), 0);
    ck_assert_ptr_null(st);
    ck_assert_ptr_nonnull(strstr(err.message, "open to other users"));
    ck_assert_ptr_nonnull(strstr(err.message, path));
    free(path);
}
END_TEST

START_TEST(open_follows_only_our_own_symlink)
{
    char *real = path_in("real");
    char *link = path_in("link");
    ts_state *st = NULL;
    ts_error err;

    ck_assert_int_eq(mkdir(real, 0700), 0);
    ck_assert_int_eq(symlink(real, link), 0);
    ck_assert_msg(ts_state_open(link, &st, &err) == 0, "%s", err.message);
    ts_state_close(st);
    if (geteuid() == 0) {
        /* A link planted by another user is refused. */
        ck_assert_int_eq(lchown(link, 4242, 4242), 0);
        st = NULL;
        ck_assert_int_lt(ts_state_open(link, &st, &err), 0);
        ck_assert_ptr_null(st);
        ck_assert_ptr_nonnull(strstr(err.message, "symbolic link owned by uid 4242"));
        /* And a directory owned by another user. */
        ck_assert_int_eq(chown(real, 4242, 4242), 0);
        ck_assert_int_lt(ts_state_open(real, &st, &err), 0);
        ck_assert_ptr_nonnull(strstr(err.message, "owned by uid 4242"));
    }
    free(real);
    free(link);
}
END_TEST

START_TEST(write_read_replace_remove)
{
    char *path = path_in("st");
    ts_state *st;
    ts_error err;
    char *data;
    size_t len;
    int dir;

    ck_assert_int_eq(ts_state_open(path, &st, &err), 0);
    ck_assert_msg(ts_state_dir(st, "runs/r1", true, &dir, &err) == 0, "%s", err.message);
    ck_assert_int_eq(ts_state_write_file(dir, "run.json", "{\"a\": 1}", 8, false, &err), 0);
    ck_assert_int_eq(ts_state_read_file(dir, "run.json", 100, &data, &len, &err), 0);
    ck_assert_uint_eq(len, 8);
    ck_assert_str_eq(data, "{\"a\": 1}");
    free(data);
    ck_assert_int_eq(ts_state_write_file(dir, "run.json", "{}", 2, true, &err), 0);
    ck_assert_int_eq(ts_state_read_file(dir, "run.json", 100, &data, &len, &err), 0);
    ck_assert_str_eq(data, "{}");
    free(data);
    ck_assert_int_eq(ts_state_read_file(dir, "run.json", 1, &data, &len, &err), -E2BIG);
    ck_assert_str_eq(err.code, "too_large");
    /* No temp file is left behind by a write. */
    ck_assert_int_eq(util_count_entries(path, ""), 1);
    ck_assert_int_eq(ts_state_remove_file(dir, "run.json", &err), 0);
    ck_assert_int_eq(ts_state_remove_file(dir, "run.json", &err), -ENOENT);
    ck_assert_int_eq(ts_state_read_file(dir, "run.json", 100, &data, &len, &err), -ENOENT);
    ck_assert_str_eq(err.code, "not_found");
    close(dir);
    ck_assert_int_eq(ts_state_dir(st, "runs/absent", false, &dir, &err), -ENOENT);
    ts_state_close(st);
    free(path);
}
END_TEST

START_TEST(names_are_one_plain_component)
{
    char *path = path_in("st");
    ts_state *st;
    ts_error err;
    char long_name[300];
    int dir;

    memset(long_name, 'a', sizeof(long_name) - 1);
    long_name[sizeof(long_name) - 1] = '\0';
    ck_assert(ts_state_name_valid("run.json"));
    ck_assert(!ts_state_name_valid(""));
    ck_assert(!ts_state_name_valid("."));
    ck_assert(!ts_state_name_valid(".."));
    ck_assert(!ts_state_name_valid(".hidden"));
    ck_assert(!ts_state_name_valid("a/b"));
    ck_assert(!ts_state_name_valid(long_name));
    ck_assert_int_eq(ts_state_open(path, &st, &err), 0);
    ck_assert_int_eq(ts_state_dir(st, "runs/../x", true, &dir, &err), -EINVAL);
    ck_assert_int_eq(ts_state_dir(st, "/abs", true, &dir, &err), -EINVAL);
    ck_assert_int_eq(ts_state_dir(st, "a//b", true, &dir, &err), -EINVAL);
    ck_assert_int_eq(ts_state_dir(st, "runs", true, &dir, &err), 0);
    ck_assert_int_eq(ts_state_write_file(dir, "../escape", "x", 1, false, &err), -EINVAL);
    ck_assert_int_eq(ts_state_write_file(dir, ".x.tmp", "x", 1, false, &err), -EINVAL);
    close(dir);
    ts_state_close(st);
    free(path);
}
END_TEST

START_TEST(symlinks_below_the_top_are_never_followed)
{
    char *path = path_in("st");
    char *outside = path_in("outside");
    char *link;
    char *secret;
    ts_state *st;
    ts_error err;
    char *data;
    size_t len;
    int dir, other;

    ck_assert_int_eq(mkdir(outside, 0700), 0);
    secret = path_in("outside/secret");
    util_write_file(secret, "secret", 6);
    ck_assert_int_eq(ts_state_open(path, &st, &err), 0);
    ck_assert_int_eq(ts_state_dir(st, "runs", true, &dir, &err), 0);
    /* A directory link and a file link planted in the state directory. */
    ck_assert_int_ge(asprintf(&link, "%s/runs/evil", path), 0);
    ck_assert_int_eq(symlink(outside, link), 0);
    free(link);
    ck_assert_int_ge(asprintf(&link, "%s/runs/file", path), 0);
    ck_assert_int_eq(symlink(secret, link), 0);
    free(link);
    ck_assert_int_lt(ts_state_dir(st, "runs/evil", false, &other, &err), 0);
    ck_assert_int_lt(ts_state_read_file(dir, "file", 100, &data, &len, &err), 0);
    ck_assert_int_lt(ts_state_append_open(dir, "file", &other, &err), 0);
    /* Replacing the link replaces the link, not the file it points to. */
    ck_assert_int_eq(ts_state_write_file(dir, "file", "mine", 4, false, &err), 0);
    free(data = util_read_file(secret, &len));
    ck_assert_uint_eq(len, 6);
    /* Removing a tree that is a link removes the link, not what it names. */
    ck_assert_msg(ts_state_remove_tree(dir, "evil", &err) == 0, "%s", err.message);
    ck_assert_int_eq(access(secret, F_OK), 0);
    ck_assert_int_eq(access(outside, F_OK), 0);
    close(dir);
    ts_state_close(st);
    free(secret);
    free(outside);
    free(path);
}
END_TEST

START_TEST(store_directories_by_root)
{
    char *path = path_in("st");
    char key[TS_STATE_STORE_KEY_LEN + 1];
    char key2[TS_STATE_STORE_KEY_LEN + 1];
    char *rootfile;
    ts_state *st;
    ts_error err;
    char *data;
    size_t len;
    int dir, dir2;

    ts_state_store_key("/p/.toolscore/snapshots", key);
    ts_state_store_key("/q/.toolscore/snapshots", key2);
    ck_assert_uint_eq(strlen(key), TS_STATE_STORE_KEY_LEN);
    ck_assert_str_ne(key, key2);
    ck_assert_int_eq(ts_state_open(path, &st, &err), 0);
    ck_assert_int_eq(ts_state_store_dir(st, "/p/.toolscore/snapshots", false, &dir, &err), -ENOENT);
    ck_assert_msg(ts_state_store_dir(st, "/p/.toolscore/snapshots", true, &dir, &err) == 0, "%s",
                  err.message);
    ck_assert_int_ge(asprintf(&rootfile, "%s/stores/%s/root", path, key), 0);
    data = util_read_file(rootfile, &len);
    ck_assert_str_eq(data, "/p/.toolscore/snapshots\n");
    free(data);
    ck_assert_int_eq(ts_state_store_dir(st, "/p/.toolscore/snapshots", false, &dir2, &err), 0);
    close(dir2);
    /* A directory whose root file names another store is refused. */
    util_write_file(rootfile, "/elsewhere\n", 11);
    ck_assert_int_lt(ts_state_store_dir(st, "/p/.toolscore/snapshots", true, &dir2, &err), 0);
    ck_assert_str_eq(err.code, "internal");
    ck_assert_int_eq(ts_state_store_dir(st, "relative", true, &dir2, &err), -EINVAL);
    close(dir);
    free(rootfile);
    ts_state_close(st);
    free(path);
}
END_TEST

START_TEST(list_remove_tree_and_clean_temps)
{
    char *path = path_in("st");
    ts_state *st;
    ts_error err;
    char **names;
    size_t count;
    int dir, sub, app;

    ck_assert_int_eq(ts_state_open(path, &st, &err), 0);
    ck_assert_int_eq(ts_state_dir(st, "runs", true, &dir, &err), 0);
    ck_assert_int_eq(ts_state_dir(st, "runs/b/deep", true, &sub, &err), 0);
    ck_assert_int_eq(ts_state_write_file(sub, "f", "x", 1, false, &err), 0);
    close(sub);
    ck_assert_int_eq(ts_state_dir(st, "runs/a", true, &sub, &err), 0);
    ck_assert_int_eq(ts_state_append_open(sub, "checks.jsonl", &app, &err), 0);
    ck_assert_int_eq(write(app, "{}\n", 3), 3);
    close(app);
    ck_assert_int_eq(ts_state_append_open(sub, "checks.jsonl", &app, &err), 0);
    ck_assert_int_eq(write(app, "{}\n", 3), 3);
    close(app);
    close(sub);
    {
        char *p;
        char *data;
        size_t len;

        ck_assert_int_ge(asprintf(&p, "%s/runs/a/checks.jsonl", path), 0);
        data = util_read_file(p, &len);
        ck_assert_str_eq(data, "{}\n{}\n");
        free(data);
        free(p);
        ck_assert_int_ge(asprintf(&p, "%s/runs/.c.0123456789abcdef.tmp", path), 0);
        util_write_file(p, "torn", 4);
        free(p);
    }
    ck_assert_int_eq(ts_state_list(dir, &names, &count, &err), 0);
    ck_assert_uint_eq(count, 2);
    ck_assert_str_eq(names[0], "a");
    ck_assert_str_eq(names[1], "b");
    ts_state_names_free(names, count);
    ck_assert_int_eq(util_count_entries(path, ""), 1);
    ck_assert_int_eq(ts_state_clean_temps(dir, &err), 0);
    ck_assert_int_eq(ts_state_remove_tree(dir, "b", &err), 0);
    ck_assert_int_eq(ts_state_remove_tree(dir, "b", &err), 0);
    ck_assert_int_eq(ts_state_list(dir, &names, &count, &err), 0);
    ck_assert_uint_eq(count, 1);
    ck_assert_str_eq(names[0], "a");
    ts_state_names_free(names, count);
    {
        char *runs;

        ck_assert_int_ge(asprintf(&runs, "%s/runs", path), 0);
        ck_assert_int_eq(util_count_entries(runs, "."), 0);
        free(runs);
    }
    close(dir);
    ts_state_close(st);
    free(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("state");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, default_path_from_environment);
    tcase_add_test(tc, open_creates_private_directories);
    tcase_add_test(tc, open_refuses_a_directory_open_to_others);
    tcase_add_test(tc, open_follows_only_our_own_symlink);
    tcase_add_test(tc, write_read_replace_remove);
    tcase_add_test(tc, names_are_one_plain_component);
    tcase_add_test(tc, symlinks_below_the_top_are_never_followed);
    tcase_add_test(tc, store_directories_by_root);
    tcase_add_test(tc, list_remove_tree_and_clean_temps);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
