/*
 * test_client_store — the store path resolutions a client remembers
 * (client/ts_client_store.c), reused only while stat() shows they still hold:
 * against the fake server, and against the real daemon with symlinks
 * switched, directories renamed and recreated, relative paths from two
 * directories, a store missing then created, and a parent replaced by a
 * symlink.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client/toolscore_client.h"
#include "lib/base/ts_base.h"
#include "client/ts_client_internal.h"
#include "proto/ts_proto.h"
#include "lib/snapshot/ts_snapshot.h"
#include "lib/store/ts_store.h"
#include "util_client.h"
#include "util_daemon.h"
#include "util_test.h"

/* The store sent is the canonical path of what the string names now: after
 * a symlink is re-pointed between two calls, after a change of working
 * directory, and after the directory itself moved. */
START_TEST(store_resolution_follows_changes)
{
    fake f;
    ts_client *c;
    ts_error err;
    char a[TS_PATHS_MAX], b[TS_PATHS_MAX], link[TS_PATHS_MAX], cwd[TS_PATHS_MAX];
    char cwd_b[TS_PATHS_MAX];

    fake_start(&f);
    c = util_client_connect(f.sock);
    snprintf(a, sizeof(a), "%s/a", f.dir);
    snprintf(b, sizeof(b), "%s/b", f.dir);
    snprintf(link, sizeof(link), "%s/current", f.dir);
    ck_assert_int_eq(mkdir(a, 0755), 0);
    ck_assert_int_eq(mkdir(b, 0755), 0);
    ck_assert_int_eq(symlink("a", link), 0);
    ck_assert_int_eq(ts_client_list(c, link, false, NULL, &err), 0);
    ck_assert_str_eq(json_object_get_string(fake_param(fake_last(&f, "list"), "store")), a);
    ck_assert_int_eq(ts_client_list(c, link, false, NULL, &err), 0);
    ck_assert_str_eq(json_object_get_string(fake_param(fake_last(&f, "list"), "store")), a);
    ck_assert_int_eq(unlink(link), 0);
    ck_assert_int_eq(symlink("b", link), 0);
    ck_assert_int_eq(ts_client_list(c, link, false, NULL, &err), 0);
    ck_assert_str_eq(json_object_get_string(fake_param(fake_last(&f, "list"), "store")), b);

    ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
    ck_assert_int_eq(mkdir(strcat(strcpy(link, a), "/s"), 0755), 0);
    ck_assert_int_eq(mkdir(strcat(strcpy(link, b), "/s"), 0755), 0);
    ck_assert_int_eq(chdir(a), 0);
    ck_assert_int_eq(ts_client_list(c, "s", false, NULL, &err), 0);
    ck_assert_str_eq(json_object_get_string(fake_param(fake_last(&f, "list"), "store")),
                     strcat(strcpy(link, a), "/s"));
    ck_assert_int_eq(chdir(b), 0);
    ck_assert_int_eq(ts_client_list(c, "s", false, NULL, &err), 0);
    ck_assert_str_eq(json_object_get_string(fake_param(fake_last(&f, "list"), "store")),
                     strcat(strcpy(link, b), "/s"));
    /* the directory moved (same inode), then named from its new place */
    ck_assert_int_eq(chdir(a), 0);
    ck_assert_int_eq(ts_client_list(c, "s", false, NULL, &err), 0);
    ck_assert_int_eq(rename(strcat(strcpy(link, b), "/s"), strcat(strcpy(cwd_b, b), "/t")), 0);
    ck_assert_int_eq(rename(strcat(strcpy(link, a), "/s"), strcat(strcpy(cwd_b, b), "/s")), 0);
    ck_assert_int_eq(chdir(b), 0);
    ck_assert_int_eq(ts_client_list(c, "s", false, NULL, &err), 0);
    ck_assert_str_eq(json_object_get_string(fake_param(fake_last(&f, "list"), "store")),
                     strcat(strcpy(link, b), "/s"));
    ck_assert_int_eq(chdir(cwd), 0);
    ts_client_close(c);
    fake_stop(&f);
}
END_TEST

/* ---- store path resolutions (against the real daemon) ----------------- */

/*
 * The client remembers a few store resolutions and reuses one only while
 * stat() shows both the caller's string and the remembered path still reach
 * the directory resolved then (client/ts_client_store.c). Each test below
 * changes what a string names between two checks in a way that one of those
 * checks alone (or a remembered missing store) would miss, and looks where
 * the check went: the outcome, and the directory of the snapshot file the
 * daemon names.
 */

typedef struct store_env {
    tdaemon d;
    ts_client *c;
    char base[PATH_MAX]; /* the test's directory, symlink-resolved */
    char cwd[PATH_MAX];  /* the working directory to restore */
    struct json_object *calls;
} store_env;

static void store_env_start(store_env *e)
{
    tdaemon_prepare(&e->d);
    tdaemon_start(&e->d, util_idle_args);
    e->c = util_client_connect(e->d.socket);
    ck_assert_ptr_nonnull(realpath(e->d.dir, e->base));
    ck_assert_ptr_nonnull(getcwd(e->cwd, sizeof(e->cwd)));
    e->calls = json_tokener_parse("[{\"tool\": \"search\", \"args\": {\"q\": 1}}]");
}

static void store_env_stop(store_env *e)
{
    ck_assert_int_eq(chdir(e->cwd), 0);
    ts_client_close(e->c);
    tdaemon_stop_ok(&e->d);
    tdaemon_cleanup(&e->d);
    json_object_put(e->calls);
}

/* base/rel into out. */
static const char *under(const store_env *e, const char *rel, char *out, size_t outsz)
{
    int n = snprintf(out, outsz, "%s/%s", e->base, rel);

    ck_assert(n > 0 && (size_t)n < outsz);
    return out;
}

/* Point the symlink base/link at target (relative to base). */
static void point_link(const store_env *e, const char *link, const char *target)
{
    char path[PATH_MAX];

    under(e, link, path, sizeof(path));
    ck_assert(unlink(path) == 0 || errno == ENOENT);
    ck_assert_int_eq(symlink(target, path), 0);
}

static void make_dir(const store_env *e, const char *rel)
{
    char path[PATH_MAX];

    ck_assert_int_eq(mkdir(under(e, rel, path, sizeof(path)), 0755), 0);
}

/* Check "flow" in store (ci as given): the outcome must be want and the
 * snapshot file must lie directly in base/dir. */
static void check_lands(store_env *e, const char *store, bool ci, const char *want, const char *dir)
{
    ts_check_args *a = ts_check_args_new();
    ts_error err;
    struct json_object *res = NULL;
    char expect[PATH_MAX];
    const char *file;
    size_t n;
    int rc;

    ts_check_args_set_store(a, store);
    ts_check_args_set_name(a, "flow");
    ts_check_args_set_actual(a, e->calls);
    ts_check_args_set_ci(a, ci);
    rc = ts_client_check(e->c, a, &res, &err);
    ck_assert_msg(rc == 0, "check in %s: %s: %s", store, err.code, err.message);
    under(e, dir, expect, sizeof(expect));
    file = tstr(res, "file");
    n = strlen(expect);
    ck_assert_msg(strcmp(tstr(res, "outcome"), want) == 0 && strncmp(file, expect, n) == 0 &&
                      file[n] == '/' && strchr(file + n + 1, '/') == NULL,
                  "check in %s: %s with file %s, expected %s in %s/", store, tstr(res, "outcome"),
                  file, want, expect);
    json_object_put(res);
    ts_check_args_free(a);
}

/* A symlinked store path whose link is switched to another directory
 * between two checks: the second goes to the new directory. */
START_TEST(store_symlink_switched)
{
    store_env e;
    char link[PATH_MAX];

    store_env_start(&e);
    make_dir(&e, "a");
    make_dir(&e, "b");
    point_link(&e, "current", "a");
    under(&e, "current", link, sizeof(link));
    check_lands(&e, link, false, "CREATED", "a");
    check_lands(&e, link, false, "PENDING", "a");
    point_link(&e, "current", "b");
    check_lands(&e, link, false, "CREATED", "b");
    check_lands(&e, link, false, "PENDING", "b");
    point_link(&e, "current", "a");
    check_lands(&e, link, false, "PENDING", "a");
    store_env_stop(&e);
}
END_TEST

/* A store directory renamed away and a new one made at the same path:
 * named directly, the new one is used; named through a symlink that now
 * follows the moved directory, the moved one is (never the new, empty one
 * at the remembered path). */
START_TEST(store_renamed_and_recreated)
{
    store_env e;
    char path[PATH_MAX], moved[PATH_MAX], link[PATH_MAX];

    store_env_start(&e);
    make_dir(&e, "s");
    under(&e, "s", path, sizeof(path));
    check_lands(&e, path, false, "CREATED", "s");
    check_lands(&e, path, false, "PENDING", "s");
    ck_assert_int_eq(rename(path, under(&e, "s.old", moved, sizeof(moved))), 0);
    make_dir(&e, "s");
    check_lands(&e, path, false, "CREATED", "s");

    make_dir(&e, "t");
    point_link(&e, "link", "t");
    under(&e, "link", link, sizeof(link));
    check_lands(&e, link, false, "CREATED", "t");
    check_lands(&e, link, false, "PENDING", "t");
    ck_assert_int_eq(
        rename(under(&e, "t", path, sizeof(path)), under(&e, "t.moved", moved, sizeof(moved))), 0);
    point_link(&e, "link", "t.moved");
    make_dir(&e, "t");
    check_lands(&e, link, false, "PENDING", "t.moved");
    ck_assert_int_eq(util_count_entries(path, ""), 0);
    store_env_stop(&e);
}
END_TEST

/* A relative store path used from two working directories names two
 * stores. */
START_TEST(store_relative_from_two_directories)
{
    store_env e;
    char dir[PATH_MAX];

    store_env_start(&e);
    make_dir(&e, "w1");
    make_dir(&e, "w1/snaps");
    make_dir(&e, "w2");
    make_dir(&e, "w2/snaps");
    ck_assert_int_eq(chdir(under(&e, "w1", dir, sizeof(dir))), 0);
    check_lands(&e, "snaps", false, "CREATED", "w1/snaps");
    check_lands(&e, "snaps", false, "PENDING", "w1/snaps");
    ck_assert_int_eq(chdir(under(&e, "w2", dir, sizeof(dir))), 0);
    check_lands(&e, "snaps", false, "CREATED", "w2/snaps");
    check_lands(&e, "snaps", false, "PENDING", "w2/snaps");
    ck_assert_int_eq(chdir(under(&e, "w1", dir, sizeof(dir))), 0);
    check_lands(&e, "snaps", false, "PENDING", "w1/snaps");
    store_env_stop(&e);
}
END_TEST

/* A store that does not exist yet: each check resolves it afresh until the
 * check that creates it; from then on it exists and is the one used. */
START_TEST(store_missing_then_created)
{
    store_env e;
    char store[PATH_MAX], path[PATH_MAX];
    struct stat st;

    store_env_start(&e);
    make_dir(&e, "a");
    make_dir(&e, "b");
    point_link(&e, "link", "a");
    under(&e, "link/new", store, sizeof(store));
    /* in CI a missing snapshot creates nothing: the store stays missing */
    check_lands(&e, store, true, "ERROR_MISSING_IN_CI", "a/new");
    ck_assert_int_eq(stat(under(&e, "a/new", path, sizeof(path)), &st), -1);
    point_link(&e, "link", "b");
    check_lands(&e, store, false, "CREATED", "b/new");
    check_lands(&e, store, false, "PENDING", "b/new");
    /* back to a, where the store is still missing (b/new stays) */
    point_link(&e, "link", "a");
    check_lands(&e, store, false, "CREATED", "a/new");
    check_lands(&e, store, false, "PENDING", "a/new");
    store_env_stop(&e);
}
END_TEST

/* A directory on the store's path moved and replaced by a symlink to its new
 * place: the remembered path still reaches the same directory, so the stats
 * cannot tell; the entry's age bound makes the client send the new
 * canonical path within a second. */
START_TEST(store_parent_replaced_by_symlink)
{
    store_env e;
    char store[PATH_MAX], from[PATH_MAX], to[PATH_MAX];

    store_env_start(&e);
    make_dir(&e, "proj");
    make_dir(&e, "proj/snaps");
    under(&e, "proj/snaps", store, sizeof(store));
    check_lands(&e, store, false, "CREATED", "proj/snaps");
    ck_assert_int_eq(
        rename(under(&e, "proj", from, sizeof(from)), under(&e, "proj2", to, sizeof(to))), 0);
    point_link(&e, "proj", "proj2");
    usleep(1100 * 1000);
    check_lands(&e, store, false, "PENDING", "proj2/snaps");
    store_env_stop(&e);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("client_store");
    TCase *tc0 = tcase_create("fake server");
    TCase *tc1 = tcase_create("real daemon");

    tcase_add_test(tc0, store_resolution_follows_changes);
    suite_add_tcase(s, tc0);
    tcase_add_test(tc1, store_symlink_switched);
    tcase_add_test(tc1, store_renamed_and_recreated);
    tcase_add_test(tc1, store_relative_from_two_directories);
    tcase_add_test(tc1, store_missing_then_created);
    tcase_add_test(tc1, store_parent_replaced_by_symlink);
    suite_add_tcase(s, tc1);
    return util_run_suite(s);
}
