/*
 * tsctl_pager — showing a long text on a terminal a screen at a time, for
 * `tsctl review`: $PAGER when it is set and not empty (as git does), else
 * a small pager of our own (space: next screen, enter: next line, q: the
 * rest is skipped). A text that fits the terminal is printed as it is.
 */
#include "client/tsctl/tsctl.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

int tsctl_read_key(void)
{
    struct termios old;
    struct termios raw;
    unsigned char ch;
    ssize_t n;
    bool restore = tcgetattr(STDIN_FILENO, &old) == 0;

    if (restore) {
        raw = old;
        raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
        raw.c_cc[VMIN] = 1;
        raw.c_cc[VTIME] = 0;
        tcsetattr(STDIN_FILENO, TCSANOW, &raw);
    }
    n = read(STDIN_FILENO, &ch, 1);
    if (restore)
        tcsetattr(STDIN_FILENO, TCSANOW, &old);
    return n == 1 ? ch : -1;
}

/* The terminal's rows (24 when it does not say). */
static size_t terminal_rows(void)
{
    struct winsize ws;
    const char *lines = getenv("LINES");

    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0)
        return ws.ws_row;
    if (lines != NULL && atoi(lines) > 0)
        return (size_t)atoi(lines);
    return 24;
}

static size_t count_lines(const char *text)
{
    size_t n = 0;

    for (const char *p = text; *p != '\0'; p++)
        n += *p == '\n';
    return n + (text[0] != '\0' && text[strlen(text) - 1] != '\n');
}

/* Through $PAGER; false when it could not be started. */
static bool external(const char *pager, const char *text)
{
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    FILE *f;
    bool ok;

    fflush(stdout);
    f = popen(pager, "w");
    if (f == NULL) {
        signal(SIGPIPE, old);
        return false;
    }
    fputs(text, f);
    ok = pclose(f) != -1;
    signal(SIGPIPE, old);
    return ok;
}

void tsctl_page(const tsctl_ctx *ctx, const char *text)
{
    size_t rows = terminal_rows();
    size_t screen = rows > 3 ? rows - 2 : 1;
    const char *pager = getenv("PAGER");
    const char *p = text;
    size_t total = count_lines(text);
    size_t line = 0;
    size_t left = screen;
    bool c = ctx->color_out;

    if (total + 3 <= rows) {
        fputs(text, stdout);
        return;
    }
    if (pager != NULL && pager[0] != '\0' && external(pager, text))
        return;
    while (*p != '\0') {
        const char *nl = strchr(p, '\n');
        size_t len = nl != NULL ? (size_t)(nl - p) + 1 : strlen(p);
        int key;

        fwrite(p, 1, len, stdout);
        p += len;
        line++;
        if (--left > 0 || *p == '\0')
            continue;
        printf("%s-- more (%zu of %zu lines): space next page, enter next line, q skip the rest "
               "--%s",
               tsctl_c(c, TSCTL_DIM), line, total, tsctl_c(c, TSCTL_RESET));
        fflush(stdout);
        key = tsctl_read_key();
        printf("\r\033[K");
        if (key == 'q' || key == 'Q' || key < 0) {
            printf("%s(%zu more lines skipped)%s\n", tsctl_c(c, TSCTL_DIM), total - line,
                   tsctl_c(c, TSCTL_RESET));
            return;
        }
        left = key == '\n' || key == '\r' ? 1 : screen;
    }
    if (p > text && p[-1] != '\n')
        putchar('\n');
}
