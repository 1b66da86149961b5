/*
 * test_store_lock — one store, one daemon (lib/store/ts_store_lock.c): where the
 * lock lives, a second holder refused with the first one's pid and socket,
 * no directory made unless asked, the file removed on release, and a lock
 * freed by the kernel when its holder dies.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/store/ts_store.h"
#include "util_test.h"

static char *tmp;

static void setup(void)
{
    tmp = util_make_temp_dir("ts-store-lock");
}

static void teardown(void)
{
    util_remove_tree(tmp);
    free(tmp);
}

START_TEST(where_the_lock_lives)
{
    char dir[512];
    char name[256];

    ck_assert_int_eq(
        ts_store_lock_where("/p/.toolscore/snapshots", dir, sizeof(dir), name, sizeof(name)), 0);
    ck_assert_str_eq(dir, "/p/.toolscore");
    ck_assert_str_eq(name, "snapshots.lock");
    ck_assert_int_eq(
        ts_store_lock_where("/p/.toolscore/other/", dir, sizeof(dir), name, sizeof(name)), 0);
    ck_assert_str_eq(dir, "/p/.toolscore");
    ck_assert_str_eq(name, "other.lock");
    ck_assert_int_eq(ts_store_lock_where("/.toolscore/s", dir, sizeof(dir), name, sizeof(name)), 0);
    ck_assert_str_eq(dir, "/.toolscore");
    /* any other root: inside the root */
    ck_assert_int_eq(ts_store_lock_where("/srv/snaps", dir, sizeof(dir), name, sizeof(name)), 0);
    ck_assert_str_eq(dir, "/srv/snaps");
    ck_assert_str_eq(name, ".toolscored.lock");
    ck_assert_int_eq(ts_store_lock_where("/p/x.toolscore/s", dir, sizeof(dir), name, sizeof(name)),
                     0);
    ck_assert_str_eq(dir, "/p/x.toolscore/s");
    ck_assert_int_eq(ts_store_lock_where("/p/.toolscore", dir, sizeof(dir), name, sizeof(name)), 0);
    ck_assert_str_eq(dir, "/p/.toolscore");
    ck_assert_str_eq(name, ".toolscored.lock");
    ck_assert_int_eq(ts_store_lock_where("/srv/snaps", dir, 4, name, sizeof(name)), -ENAMETOOLONG);
}
END_TEST

START_TEST(second_holder_is_told_who_holds_it)
{
    char root[600];
    char file[700];
    ts_store_lock *a = NULL;
    ts_store_lock *b = NULL;
    ts_store_lock_owner owner;
    ts_error err;
    char *text;

    snprintf(root, sizeof(root), "%s/proj/.toolscore/snapshots", tmp);
    snprintf(file, sizeof(file), "%s/proj/.toolscore/snapshots.lock", tmp);
    /* no directory and no create: nothing taken, nothing made */
    ck_assert_int_eq(ts_store_lock_take(root, "/run/a.sock", false, &a, &owner, &err), 1);
    ck_assert_ptr_null(a);
    ck_assert_int_ne(access(file, F_OK), 0);
    /* create makes .toolscore, not the snapshot directory */
    ck_assert_int_eq(ts_store_lock_take(root, "/run/a.sock", true, &a, &owner, &err), 0);
    ck_assert_ptr_nonnull(a);
    ck_assert_int_ne(access(root, F_OK), 0);
    text = util_read_file(file, NULL);
    char want[64];
    snprintf(want, sizeof(want), "%ld\n/run/a.sock\n", (long)getpid());
    ck_assert_str_eq(text, want);
    free(text);
    /* another open file description of the lock is refused */
    ck_assert_int_eq(ts_store_lock_take(root, "/run/b.sock", true, &b, &owner, &err), -EBUSY);
    ck_assert_ptr_null(b);
    ck_assert_str_eq(err.code, "store_busy");
    ck_assert_int_eq(owner.pid, (long)getpid());
    ck_assert_str_eq(owner.socket, "/run/a.sock");
    ck_assert_ptr_nonnull(strstr(err.message, "/run/a.sock"));
    ck_assert_ptr_nonnull(strstr(err.message, file));
    /* released: the file goes, the next holder gets it */
    ts_store_lock_release(a);
    ck_assert_int_ne(access(file, F_OK), 0);
    ck_assert_int_eq(ts_store_lock_take(root, "/run/b.sock", false, &b, &owner, &err), 0);
    ts_store_lock_release(b);
    ts_store_lock_release(NULL);
}
END_TEST

START_TEST(custom_root_holds_its_own_lock)
{
    char root[600];
    char file[700];
    ts_store_lock *a = NULL;
    ts_store_lock_owner owner;
    ts_error err;
    struct stat st;

    snprintf(root, sizeof(root), "%s/snaps", tmp);
    snprintf(file, sizeof(file), "%s/snaps/.toolscored.lock", tmp);
    ck_assert_int_eq(ts_store_lock_take(root, "/s", false, &a, &owner, &err), 1);
    ck_assert_int_eq(ts_store_lock_take(root, "/s", true, &a, &owner, &err), 0);
    ck_assert_int_eq(stat(file, &st), 0);
    ck_assert_int_eq((int)(st.st_mode & 0777) & ~0644, 0);
    ts_store_lock_release(a);
}
END_TEST

/* A holder killed with SIGKILL leaves its file, not its lock. */
START_TEST(lock_dies_with_its_holder)
{
    char root[600];
    ts_store_lock *a = NULL;
    ts_store_lock_owner owner;
    ts_error err;
    int ready[2];
    char c;
    pid_t pid;
    int status;

    snprintf(root, sizeof(root), "%s/snaps", tmp);
    ck_assert_int_eq(pipe(ready), 0);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        ts_store_lock *held = NULL;

        if (ts_store_lock_take(root, "/run/child.sock", true, &held, &owner, &err) != 0)
            _exit(1);
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    ck_assert_int_eq(read(ready[0], &c, 1), 1);
    ck_assert_int_eq(ts_store_lock_take(root, "/run/me.sock", true, &a, &owner, &err), -EBUSY);
    ck_assert_int_eq(owner.pid, (long)pid);
    ck_assert_str_eq(owner.socket, "/run/child.sock");
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    ck_assert_int_eq(ts_store_lock_take(root, "/run/me.sock", false, &a, &owner, &err), 0);
    ts_store_lock_release(a);
    close(ready[0]);
    close(ready[1]);
}
END_TEST

/* A directory this process may not write: nothing taken, said why. As
 * root (who writes anywhere) the check runs in a child of uid nobody. */
START_TEST(unwritable_directory_is_unlockable)
{
    char root[600];
    pid_t pid;
    int status;

    snprintf(root, sizeof(root), "%s/ro", tmp);
    ck_assert_int_eq(mkdir(root, 0755), 0);
    if (geteuid() != 0)
        ck_assert_int_eq(chmod(root, 0555), 0);
    chmod(tmp, 0755);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        ts_store_lock *l = NULL;
        ts_store_lock_owner owner;
        ts_error err;
        int rc;

        if (geteuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
            _exit(10);
        rc = ts_store_lock_take(root, "/s", false, &l, &owner, &err);
        if (rc != TS_STORE_LOCK_UNLOCKABLE || l != NULL)
            _exit(11);
        if (strstr(err.message, "Permission denied") == NULL)
            _exit(12);
        _exit(0);
    }
    waitpid(pid, &status, 0);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
    chmod(root, 0755);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("store_lock");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, where_the_lock_lives);
    tcase_add_test(tc, second_holder_is_told_who_holds_it);
    tcase_add_test(tc, custom_root_holds_its_own_lock);
    tcase_add_test(tc, lock_dies_with_its_holder);
    tcase_add_test(tc, unwritable_directory_is_unlockable);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
