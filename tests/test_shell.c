/*
 * test_shell — a word quoted by lib/base/ts_shell reads back as exactly
 * that word in real shells: every hostile name below is quoted, handed to
 * bash, zsh and, for the plain single-quoted form, dash as
 * `printf %s WORD`, and the bytes printed must be the name's. Also the
 * forms themselves (always quoted, no empty '' run, one line) and the
 * `--` before a word that starts with '-'.
 */
#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/base/ts_base.h"
#include "util_test.h"

static const char *const hostile[] = {
    "tests/a.py::test_weather[Oslo]",
    "tests/agent.test.ts::booking agent > openai style",
    "a; touch pwned",
    "$(touch pwned)`touch pwned`$HOME",
    "it's",
    "'",
    "''",
    "a''b",
    "'lead and trail'",
    "\"double\" and \\ backslash\\",
    "a\\'b",
    "line one\nline two",
    "tab\there",
    "cr\rhere",
    "esc \x1b[31m red",
    "bell \x07 del \x7f",
    "Ünïcödé 東京 ✈",
    "nel \xc2\x85 c1",
    "bidi \xe2\x80\xae reversed",
    "zero\xe2\x80\x8bwidth",
    "wild * ? [a-z] {a,b} ~ ~root",
    "=cmd",
    "^x #y ! !! !-1",
    "it's!here",
    "new\nline's !x \\",
    "-x",
    "--all",
    "",
    " ",
    "%1 & | < >> 2>&1",
};

/* What `SHELL -c 'printf %s WORD'` prints, into out (every shell is
 * required: scripts/deps.sh installs zsh for the tests). */
static void run_shell(const char *shell, const char *word, ts_buf *out)
{
    int fds[2];
    pid_t pid;
    char buf[512];
    ssize_t n;
    int status;
    ts_buf script;

    ck_assert_msg(access(shell, X_OK) == 0, "%s is missing (scripts/deps.sh test installs it)",
                  shell);
    ts_buf_init(&script, TS_BUF_UNLIMITED);
    ts_buf_appends(&script, "printf %s ");
    ts_buf_appends(&script, word);
    ck_assert_int_eq(pipe(fds), 0);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);

        dup2(null, 0);
        dup2(fds[1], 1);
        close(fds[0]);
        execl(shell, shell, "-c", script.data, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    while ((n = read(fds[0], buf, sizeof(buf))) > 0)
        ts_buf_append(out, buf, (size_t)n);
    close(fds[0]);
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s failed on %s", shell,
                  script.data);
    ts_buf_free(&script);
}

static void round_trip(const char *shell, const char *name, const char *quoted)
{
    ts_buf got;

    ts_buf_init(&got, TS_BUF_UNLIMITED);
    run_shell(shell, quoted, &got);
    ck_assert_msg(got.len == strlen(name) && (got.len == 0 || memcmp(got.data, name, got.len) == 0),
                  "%s read %s back as [%.*s], not [%s]", shell, quoted, (int)got.len,
                  got.data ? got.data : "", name);
    ts_buf_free(&got);
}

START_TEST(hostile_names_read_back_exactly)
{
    const char *name = hostile[_i];
    ts_buf q;

    ts_buf_init(&q, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_shell_quote(&q, name, strlen(name)), 0);
    /* one line, always quoted */
    ck_assert_ptr_null(memchr(q.data, '\n', q.len));
    ck_assert_ptr_null(memchr(q.data, '\r', q.len));
    ck_assert(q.data[0] == '\'' || q.data[0] == '\\' || q.data[0] == '$');
    round_trip("/bin/bash", name, q.data);
    round_trip("/usr/bin/zsh", name, q.data);
    if (q.data[0] != '$') /* $'...' is not dash's */
        round_trip("/bin/dash", name, q.data);
    ts_buf_free(&q);
}
END_TEST

static void assert_quoted(const char *name, const char *want)
{
    ts_buf q;

    ts_buf_init(&q, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_shell_quote(&q, name, strlen(name)), 0);
    ck_assert_str_eq(q.data, want);
    ts_buf_free(&q);
}

START_TEST(the_forms)
{
    assert_quoted("tests/a.py::test_b", "'tests/a.py::test_b'");
    assert_quoted("", "''");
    assert_quoted("it's", "'it'\\''s'");
    assert_quoted("'", "\\'");
    assert_quoted("''", "\\'\\'");
    assert_quoted("a''b", "'a'\\'\\''b'");
    assert_quoted("Oslo ✈", "'Oslo ✈'");
    assert_quoted("a\nb", "$'a\\nb'");
    assert_quoted("it's\t\\", "$'it\\x27s\\t\\\\'");
    assert_quoted("x\x1by", "$'x\\x1by'");
    assert_quoted("bidi \xe2\x80\xae", "$'bidi \\xe2\\x80\\xae'");
    assert_quoted("bad \xff utf-8", "$'bad \\xff utf-8'");
}
END_TEST

/* What ts_shell_quote writes between plain single quotes shows as itself. */
START_TEST(text_that_shows_as_itself)
{
    ck_assert(ts_shell_shows("npx tsctl", 9));
    ck_assert(
        ts_shell_shows("'/p/my venv/bin/tsctl' \u2708", strlen("'/p/my venv/bin/tsctl' \u2708")));
    ck_assert(ts_shell_shows("", 0));
    ck_assert(!ts_shell_shows("a\nb", 3));
    ck_assert(!ts_shell_shows("x\x1b[2J", 6));
    ck_assert(!ts_shell_shows("bidi \xe2\x80\xae", 8));
    ck_assert(!ts_shell_shows("bad \xff", 5));
    ck_assert(!ts_shell_shows("nul\0x", 5));
}
END_TEST

START_TEST(a_command_with_a_name)
{
    ts_buf b;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_shell_command(&b, "tsctl accept", "a b"), 0);
    ck_assert_str_eq(b.data, "tsctl accept 'a b'");
    ts_buf_reset(&b);
    ck_assert_int_eq(ts_shell_command(&b, "tsctl accept", "-x"), 0);
    ck_assert_str_eq(b.data, "tsctl accept -- '-x'");
    ts_buf_free(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("shell");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, hostile_names_read_back_exactly, 0,
                        (int)(sizeof(hostile) / sizeof(hostile[0])));
    tcase_add_test(tc, the_forms);
    tcase_add_test(tc, text_that_shows_as_itself);
    tcase_add_test(tc, a_command_with_a_name);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
