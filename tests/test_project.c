/*
 * test_project — the default snapshot root found from the start directory
 * (lib/store/ts_project.c): the nearest existing root walking up, stopping at the
 * repository root; none found, the repository root's, or the start
 * directory's outside a repository; and why, in words.
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/store/ts_store.h"
#include "util_test.h"

static char *tmp;

static void setup(void)
{
    char *made = util_make_temp_dir("ts-project");
    char real[PATH_MAX];

    /* /tmp may be a symbolic link: the walk sees real paths, as getcwd gives */
    ck_assert_ptr_nonnull(realpath(made, real));
    free(made);
    tmp = strdup(real);
}

static void teardown(void)
{
    util_remove_tree(tmp);
    free(tmp);
}

/* mkdir -p tmp/rel; the absolute path (static). */
static const char *dir(const char *rel)
{
    static char path[PATH_MAX];
    char *p;

    snprintf(path, sizeof(path), "%s/%s", tmp, rel);
    for (p = path + strlen(tmp) + 1; *p != '\0'; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0700);
            *p = '/';
        }
    }
    mkdir(path, 0700);
    return path;
}

static void touch(const char *rel)
{
    char path[PATH_MAX];

    snprintf(path, sizeof(path), "%s/%s", tmp, rel);
    util_write_file(path, "gitdir: elsewhere\n", 18);
}

/* The root found from tmp/rel: its path relative to tmp ("" when outside). */
static const char *found(const char *rel, ts_project_reason want)
{
    static char out[PATH_MAX];
    char start[PATH_MAX];
    ts_project_root r;
    ts_error err;
    size_t n = strlen(tmp);

    snprintf(start, sizeof(start), "%s", dir(rel));
    ck_assert_int_eq(ts_project_find_root(start, &r, &err), 0);
    ck_assert_int_eq(r.reason, want);
    ck_assert_str_eq(r.start, start);
    ck_assert_msg(strncmp(r.root, tmp, n) == 0, "root %s outside %s", r.root, tmp);
    snprintf(out, sizeof(out), "%s", r.root + n + 1);
    return out;
}

START_TEST(nearest_existing_root_walking_up)
{
    dir("proj/.git");
    dir("proj/.toolscore/snapshots");
    dir("proj/a/b/c");
    ck_assert_str_eq(found("proj/a/b/c", TS_PROJECT_FOUND), "proj/.toolscore/snapshots");
    ck_assert_str_eq(found("proj", TS_PROJECT_FOUND), "proj/.toolscore/snapshots");
    /* a nearer one wins */
    dir("proj/a/.toolscore/snapshots");
    ck_assert_str_eq(found("proj/a/b/c", TS_PROJECT_FOUND), "proj/a/.toolscore/snapshots");
    ck_assert_str_eq(found("proj/a", TS_PROJECT_FOUND), "proj/a/.toolscore/snapshots");
}
END_TEST

START_TEST(none_found_in_a_repository_uses_its_root)
{
    dir("repo/.git");
    ck_assert_str_eq(found("repo/src/deep/er", TS_PROJECT_REPOSITORY), "repo/.toolscore/snapshots");
    ck_assert_str_eq(found("repo", TS_PROJECT_REPOSITORY), "repo/.toolscore/snapshots");
    /* a worktree or submodule has a .git file: the first one up is the root */
    dir("repo/sub");
    touch("repo/sub/.git");
    ck_assert_str_eq(found("repo/sub/x", TS_PROJECT_REPOSITORY), "repo/sub/.toolscore/snapshots");
}
END_TEST

START_TEST(the_walk_stops_at_the_repository_root)
{
    /* a root above the repository is another project's: not taken */
    dir(".toolscore/snapshots");
    dir("outer/repo/.git");
    ck_assert_str_eq(found("outer/repo/pkg", TS_PROJECT_REPOSITORY),
                     "outer/repo/.toolscore/snapshots");
    /* outside the repository the one above is found */
    ck_assert_str_eq(found("outer/elsewhere", TS_PROJECT_FOUND), ".toolscore/snapshots");
}
END_TEST

START_TEST(outside_a_repository_uses_the_start_directory)
{
    ts_project_root r;
    ts_error err;
    char why[512];
    const char *start = dir("plain/x/y");

    /* the temporary directory's parents (/tmp, /) hold neither a root nor .git */
    ck_assert_int_eq(ts_project_find_root(start, &r, &err), 0);
    ck_assert_int_eq(r.reason, TS_PROJECT_START);
    ck_assert_str_eq(r.base, start);
    ck_assert_str_eq(found("plain/x/y", TS_PROJECT_START), "plain/x/y/.toolscore/snapshots");
    ts_project_describe(&r, why, sizeof(why));
    ck_assert_str_eq(why, "none found and not in a repository: under the current directory");
}
END_TEST

START_TEST(a_file_in_the_way_is_chosen_not_skipped)
{
    dir("p/.git");
    dir("p/.toolscore");
    touch("p/.toolscore/snapshots");
    ck_assert_str_eq(found("p/q", TS_PROJECT_FOUND), "p/.toolscore/snapshots");
}
END_TEST

START_TEST(descriptions_say_why)
{
    ts_project_root r;
    ts_error err;
    char why[PATH_MAX + 128];
    char want[PATH_MAX + 128];

    dir("w/.git");
    dir("w/.toolscore/snapshots");
    ck_assert_int_eq(ts_project_find_root(dir("w"), &r, &err), 0);
    ck_assert_str_eq(ts_project_describe(&r, why, sizeof(why)), "found in the current directory");
    ck_assert_int_eq(ts_project_find_root(dir("w/sub"), &r, &err), 0);
    snprintf(want, sizeof(want), "found walking up from %s/w/sub", tmp);
    ck_assert_str_eq(ts_project_describe(&r, why, sizeof(why)), want);
    dir("v/.git");
    ck_assert_int_eq(ts_project_find_root(dir("v/sub"), &r, &err), 0);
    snprintf(want, sizeof(want), "none found up to the repository root %s/v, which holds .git",
             tmp);
    ck_assert_str_eq(ts_project_describe(&r, why, sizeof(why)), want);
}
END_TEST

START_TEST(start_defaults_to_the_current_directory)
{
    char cwd[PATH_MAX];
    ts_project_root r;
    ts_error err;

    dir("c/.git");
    dir("c/.toolscore/snapshots");
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
    ck_assert_int_eq(chdir(dir("c/d/e")), 0);
    ck_assert_int_eq(ts_project_find_root(NULL, &r, &err), 0);
    ck_assert_int_eq(chdir(cwd), 0);
    ck_assert_int_eq(r.reason, TS_PROJECT_FOUND);
    ck_assert_str_eq(r.base + strlen(tmp), "/c");
}
END_TEST

START_TEST(bad_starts_are_refused)
{
    ts_project_root r;
    ts_error err;
    char *longest = malloc(PATH_MAX + 10);

    ck_assert_int_eq(ts_project_find_root("relative/dir", &r, &err), -EINVAL);
    ck_assert_str_eq(err.code, TS_ERR_INVALID_ARGUMENT);
    longest[0] = '/';
    memset(longest + 1, 'a', PATH_MAX + 5);
    longest[PATH_MAX + 6] = '\0';
    ck_assert_int_eq(ts_project_find_root(longest, &r, &err), -E2BIG);
    ck_assert_str_eq(err.code, TS_ERR_TOO_LARGE);
    free(longest);
    /* "/" and trailing slashes */
    ck_assert_int_eq(ts_project_find_root("/", &r, &err), 0);
    ck_assert_str_eq(r.start, "/");
    ck_assert_int_eq(ts_project_find_root("//", &r, &err), 0);
    ck_assert_str_eq(r.start, "/");
}
END_TEST

/* The paths of s relative to tmp, joined with ",". */
static const char *rel_list(const ts_project_stores *s)
{
    static char out[4096];
    size_t n = strlen(tmp), used = 0;

    out[0] = '\0';
    for (size_t i = 0; i < s->n; i++) {
        ck_assert_msg(strncmp(s->paths[i], tmp, n) == 0, "%s outside %s", s->paths[i], tmp);
        used += (size_t)snprintf(out + used, sizeof(out) - used, "%s%s", i ? "," : "",
                                 s->paths[i] + n + 1);
    }
    return out;
}

START_TEST(stores_below_a_directory)
{
    ts_project_stores s;
    ts_error err;
    char root[PATH_MAX];

    dir("mono/.git");
    dir("mono/.toolscore/snapshots"); /* the directory's own: left out */
    dir("mono/packages/a/.toolscore/snapshots");
    dir("mono/packages/b/tests/.toolscore/snapshots");
    dir("mono/node_modules/dep/.toolscore/snapshots"); /* never searched */
    dir("mono/.hidden/x/.toolscore/snapshots");        /* nor hidden directories */
    dir("mono/vendor/other/.git");                     /* nor another repository */
    dir("mono/vendor/other/.toolscore/snapshots");
    dir("mono/deep/1/2/3/4/5/6/7/.toolscore/snapshots"); /* past the depth */
    snprintf(root, sizeof(root), "%s/mono/link", tmp);
    ck_assert_int_eq(symlink(dir("mono/packages/a"), root), 0); /* links never followed */
    ck_assert_int_eq(ts_project_stores_below(dir("mono"), 10, &s, &err), 0);
    ck_assert_str_eq(rel_list(&s), "mono/packages/a/.toolscore/snapshots,"
                                   "mono/packages/b/tests/.toolscore/snapshots");
    ck_assert(!s.more);
    ts_project_stores_free(&s);
    ck_assert_int_eq(ts_project_stores_below(dir("mono"), 1, &s, &err), 0);
    ck_assert_uint_eq(s.n, 1);
    ck_assert(s.more);
    ts_project_stores_free(&s);
    ck_assert_int_eq(ts_project_stores_below(dir("mono/packages/b/tests"), 10, &s, &err), 0);
    ck_assert_uint_eq(s.n, 0);
    ts_project_stores_free(&s);
}
END_TEST

START_TEST(other_stores_of_the_repository)
{
    ts_project_stores s;
    ts_error err;
    char root[PATH_MAX];

    dir("repo/.git");
    dir("repo/.toolscore/snapshots");
    dir("repo/tests/.toolscore/snapshots");
    dir("repo/tests/unit/.toolscore/snapshots");
    dir("repo/other/.toolscore/snapshots"); /* a sibling project: not above nor below */
    /* a store made under tests/: the repository's, above it, and one below */
    snprintf(root, sizeof(root), "%s/repo/tests/.toolscore/snapshots", tmp);
    ck_assert_int_eq(ts_project_other_stores(root, 10, &s, &err), 0);
    ck_assert_str_eq(rel_list(&s),
                     "repo/.toolscore/snapshots,repo/tests/unit/.toolscore/snapshots");
    ts_project_stores_free(&s);
    /* the repository's own: every store below it */
    snprintf(root, sizeof(root), "%s/repo/.toolscore/snapshots", tmp);
    ck_assert_int_eq(ts_project_other_stores(root, 10, &s, &err), 0);
    ck_assert_str_eq(rel_list(&s), "repo/other/.toolscore/snapshots,"
                                   "repo/tests/.toolscore/snapshots,"
                                   "repo/tests/unit/.toolscore/snapshots");
    ts_project_stores_free(&s);
    /* outside a repository, or a root of another shape: nothing to say */
    dir("loose/.toolscore/snapshots");
    dir("loose/sub/.toolscore/snapshots");
    snprintf(root, sizeof(root), "%s/loose/.toolscore/snapshots", tmp);
    ck_assert_int_eq(ts_project_other_stores(root, 10, &s, &err), 0);
    ck_assert_uint_eq(s.n, 0);
    snprintf(root, sizeof(root), "%s/repo/custom-root", tmp);
    ck_assert_int_eq(ts_project_other_stores(root, 10, &s, &err), 0);
    ck_assert_uint_eq(s.n, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("project");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, nearest_existing_root_walking_up);
    tcase_add_test(tc, none_found_in_a_repository_uses_its_root);
    tcase_add_test(tc, the_walk_stops_at_the_repository_root);
    tcase_add_test(tc, outside_a_repository_uses_the_start_directory);
    tcase_add_test(tc, a_file_in_the_way_is_chosen_not_skipped);
    tcase_add_test(tc, descriptions_say_why);
    tcase_add_test(tc, start_defaults_to_the_current_directory);
    tcase_add_test(tc, bad_starts_are_refused);
    tcase_add_test(tc, stores_below_a_directory);
    tcase_add_test(tc, other_stores_of_the_repository);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
