/*
 * coldstart — starts the daemon on a store and times what a user waits for:
 * the first answered check, then listing the whole store, then the daemon's
 * resident memory.
 *
 *   coldstart --daemon BIN --socket S --store DIR --name NAME --calls FILE
 *             --expect N [--log FILE] [--settle-ms MS]
 *
 * The clock starts just before the daemon is executed. The first request is
 * a check of NAME (an approved snapshot of the store) that must pass; it is
 * retried every 0.5 ms until the daemon answers. Then the store is listed
 * twice through the daemon (the count must be N). With
 * --settle-ms, it then waits that long (past the daemon's racy-timestamp
 * margin for files written just before), lists twice more and times the
 * last listing: every summary then comes from the daemon's listing cache
 * (list_cached_ms; -1 without --settle-ms). VmRSS is read after the last
 * listing. The daemon is stopped with SIGTERM at the end.
 *
 * Prints: mode=coldstart snapshots first_ms list_ok list_error list_ms list2_ms
 *         list_cached_ms rss_kb stop_status
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_client.h"
#include "bench_common.h"

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        bench_die("%s: %s", path, strerror(errno));
    char *data = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&data, &len);
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        fwrite(chunk, 1, n, mem);
    fclose(f);
    fclose(mem);
    return data;
}

static pid_t start_daemon(const char *bin, const char *socket, const char *log)
{
    pid_t pid = fork();
    if (pid < 0)
        bench_die("fork: %s", strerror(errno));
    if (pid > 0)
        return pid;
    int fd = open(log ? log : "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
    }
    execl(bin, bin, "--socket", socket, "--foreground", "--log-level", "warn", (char *)NULL);
    _exit(127);
}

static int stop_daemon(pid_t pid)
{
    kill(pid, SIGTERM);
    for (int i = 0; i < 1000; i++) {
        int status;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

static double ms_since(uint64_t t0)
{
    return (double)(bench_now_ns() - t0) / 1e6;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {{"daemon", required_argument, NULL, 'D'},
                                             {"socket", required_argument, NULL, 's'},
                                             {"store", required_argument, NULL, 'd'},
                                             {"name", required_argument, NULL, 'n'},
                                             {"calls", required_argument, NULL, 'c'},
                                             {"expect", required_argument, NULL, 'e'},
                                             {"log", required_argument, NULL, 'l'},
                                             {"settle-ms", required_argument, NULL, 'S'},
                                             {NULL, 0, NULL, 0}};
    const char *bin = NULL, *socket = NULL, *store = NULL, *name = NULL, *calls_path = NULL;
    const char *log = NULL;
    long expect = -1;
    long settle_ms = -1;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'D':
            bin = optarg;
            break;
        case 's':
            socket = optarg;
            break;
        case 'd':
            store = optarg;
            break;
        case 'n':
            name = optarg;
            break;
        case 'c':
            calls_path = optarg;
            break;
        case 'e':
            expect = atol(optarg);
            break;
        case 'l':
            log = optarg;
            break;
        case 'S':
            settle_ms = atol(optarg);
            break;
        default:
            bench_die("usage: coldstart --daemon BIN --socket S --store DIR --name NAME "
                      "--calls FILE --expect N");
        }
    }
    if (!bin || !socket || !store || !name || !calls_path || expect < 0)
        bench_die("usage: coldstart --daemon BIN --socket S --store DIR --name NAME --calls FILE "
                  "--expect N");
    char *calls = read_file(calls_path);
    char err[512];

    uint64_t t0 = bench_now_ns();
    pid_t pid = start_daemon(bin, socket, log);
    bench_conn *conn = NULL;
    for (;;) {
        conn = bench_conn_open(socket, err, sizeof(err));
        if (conn)
            break;
        if (waitpid(pid, NULL, WNOHANG) == pid)
            bench_die("the daemon exited before answering (last error: %s)", err);
        if (ms_since(t0) > 60000) {
            stop_daemon(pid);
            bench_die("no answer within 60 s: %s", err);
        }
        nanosleep(&(struct timespec){0, 500000}, NULL);
    }
    int rc = bench_conn_check(conn, store, name, calls, "PASSED", err, sizeof(err));
    double first_ms = ms_since(t0);
    if (rc < 0) {
        stop_daemon(pid);
        bench_die("first check: %s", err);
    }

    /* A failed listing is a result too (list_ok=0, the error's code in
     * list_error, its message on stderr): the memory is still measured. */
    double list_ms[2];
    char list_error[64] = "none";
    int list_ok = 1;
    for (int i = 0; i < 2; i++) {
        long count = -1;
        uint64_t t1 = bench_now_ns();
        rc = bench_conn_list(conn, store, &count, err, sizeof(err));
        list_ms[i] = ms_since(t1);
        if (rc == 0 && count == expect)
            continue;
        if (rc == 0)
            snprintf(err, sizeof(err), "list: %ld snapshots, expected %ld", count, expect);
        fprintf(stderr, "coldstart: %s\n", err);
        if (list_ok) {
            /* "list: CODE: message" -> CODE */
            const char *code = strncmp(err, "list: ", 6) == 0 ? err + 6 : err;
            size_t n = strcspn(code, ": ");
            snprintf(list_error, sizeof(list_error), "%.*s", (int)n, code);
        }
        list_ok = 0;
    }
    double cached_ms = -1;
    if (settle_ms >= 0 && list_ok) {
        nanosleep(&(struct timespec){settle_ms / 1000, (settle_ms % 1000) * 1000000L}, NULL);
        for (int i = 0; i < 2 && list_ok; i++) {
            long count = -1;
            uint64_t t1 = bench_now_ns();
            rc = bench_conn_list(conn, store, &count, err, sizeof(err));
            cached_ms = ms_since(t1);
            if (rc < 0 || count != expect) {
                fprintf(stderr, "coldstart: cached listing: %s\n", rc < 0 ? err : "wrong count");
                list_ok = 0;
            }
        }
    }
    long rss = bench_rss_kb(pid); /* with the listing cache full, after --settle-ms */
    bench_conn_close(conn);
    int status = stop_daemon(pid);
    bench_result("mode=coldstart snapshots=%ld first_ms=%.1f list_ok=%d list_error=%s "
                 "list_ms=%.1f list2_ms=%.1f list_cached_ms=%.1f rss_kb=%ld stop_status=%d",
                 expect, first_ms, list_ok, list_error, list_ms[0], list_ms[1], cached_ms, rss,
                 status);
    free(calls);
    return 0;
}
