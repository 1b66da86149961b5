/*
 * test_fuzz_corpus — replays every file of tests/fuzz/corpus/<harness>/
 * through that harness's entry point (tests/fuzz/fuzz_<harness>.c) in the
 * normal test build, so an input that once crashed, leaked or broke an
 * invariant stays fixed. Each file runs in its own child process: a crash or
 * an abort fails the test with the file's name.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz/fuzz.h"
#include "fuzz/fuzz_extract.c"
#include "fuzz/fuzz_proto.c"
#include "fuzz/fuzz_report.c"
#include "fuzz/fuzz_rules.c"
#include "fuzz/fuzz_runreport.c"
#include "fuzz/fuzz_snapshot.c"
#include "util_test.h"

typedef int (*fuzz_entry)(const uint8_t *data, size_t size);

typedef struct harness {
    const char *name; /* tests/fuzz/corpus/<name>/ */
    fuzz_entry entry;
} harness;

static const harness harnesses[] = {
    {"extract", ts_fuzz_extract}, {"proto", ts_fuzz_proto},         {"report", ts_fuzz_report},
    {"rules", ts_fuzz_rules},     {"runreport", ts_fuzz_runreport}, {"snapshot", ts_fuzz_snapshot},
};

#define HARNESS_COUNT (sizeof(harnesses) / sizeof(harnesses[0]))

/* Run entry on the file's bytes in a child; returns the wait status. */
static int replay(fuzz_entry entry, const char *path)
{
    size_t len;
    uint8_t *data = (uint8_t *)util_read_file(path, &len);
    pid_t pid;
    int status = 0;

    fflush(NULL);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        entry(data, len);
        free(data);
        exit(0); /* not _exit: leak checkers report at exit */
    }
    free(data);
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    return status;
}

static int is_regular_entry(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

START_TEST(test_replay_corpus)
{
    const harness *h = &harnesses[_i];
    char dir[1024], path[2048];
    struct dirent **names;
    int n, i;

    snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", util_source_dir(), h->name);
    n = scandir(dir, &names, is_regular_entry, alphasort);
    ck_assert_msg(n > 0, "no seed files in %s", dir);
    for (i = 0; i < n; i++) {
        int status;

        snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
        status = replay(h->entry, path);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "fuzz_%s on %s: %s %d (run it alone to see the report)", h->name, path,
                      WIFSIGNALED(status) ? "signal" : "exit status",
                      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        free(names[i]);
    }
    free(names);
}
END_TEST

/* Every corpus directory belongs to a harness replayed here. */
START_TEST(test_every_corpus_has_a_harness)
{
    char dir[1024];
    struct dirent **names;
    int n, i;
    size_t k;

    snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus", util_source_dir());
    n = scandir(dir, &names, is_regular_entry, alphasort);
    ck_assert_msg(n > 0, "no corpus directories in %s", dir);
    for (i = 0; i < n; i++) {
        int found = 0;

        for (k = 0; k < HARNESS_COUNT; k++)
            found |= strcmp(names[i]->d_name, harnesses[k].name) == 0;
        ck_assert_msg(found, "tests/fuzz/corpus/%s has no harness in test_fuzz_corpus",
                      names[i]->d_name);
        free(names[i]);
    }
    free(names);
}
END_TEST

static Suite *fuzz_corpus_suite(void)
{
    Suite *s = suite_create("fuzz_corpus");
    TCase *tc = tcase_create("replay");

    tcase_add_loop_test(tc, test_replay_corpus, 0, (int)HARNESS_COUNT);
    tcase_add_test(tc, test_every_corpus_has_a_harness);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return util_run_suite(fuzz_corpus_suite());
}
