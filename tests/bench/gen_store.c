/*
 * gen_store — writes a store of generated snapshot files directly (no
 * daemon), byte-exact as the store writes them, for the scale benchmarks;
 * or prints the calls JSON those snapshots hold.
 *
 *   gen_store --dir DIR --count N [--calls C] [--prefix P] [--pending-every K]
 *   gen_store --print-calls C [--variant V]
 *
 * Snapshot i is named "<P>_<i, 7 digits>" (P defaults to "gen") and holds
 * C calls (default 10); every K-th one is left pending (default: none), the
 * rest are approved. Files are written plainly, then the file system is
 * synced once (syncfs): a generated store is input, not a durability test.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_common.h"

static void write_plain(int dirfd, const char *file, const char *data, size_t len)
{
    int fd = openat(dirfd, file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        bench_die("%s: %s", file, strerror(errno));
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n <= 0)
            bench_die("%s: write: %s", file, strerror(errno));
        data += n;
        len -= (size_t)n;
    }
    close(fd);
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {{"dir", required_argument, NULL, 'd'},
                                             {"count", required_argument, NULL, 'n'},
                                             {"calls", required_argument, NULL, 'c'},
                                             {"prefix", required_argument, NULL, 'p'},
                                             {"pending-every", required_argument, NULL, 'k'},
                                             {"print-calls", required_argument, NULL, 'P'},
                                             {"variant", required_argument, NULL, 'v'},
                                             {NULL, 0, NULL, 0}};
    const char *dir = NULL, *prefix = "gen";
    long count = -1, pending_every = 0;
    int calls = 10, print_calls = -1, variant = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            dir = optarg;
            break;
        case 'n':
            count = atol(optarg);
            break;
        case 'c':
            calls = atoi(optarg);
            break;
        case 'p':
            prefix = optarg;
            break;
        case 'k':
            pending_every = atol(optarg);
            break;
        case 'P':
            print_calls = atoi(optarg);
            break;
        case 'v':
            variant = atoi(optarg);
            break;
        default:
            bench_die("usage: gen_store --dir DIR --count N | --print-calls C");
        }
    }
    if (print_calls >= 0) {
        char *json = bench_calls_json(print_calls, variant);
        printf("%s\n", json);
        free(json);
        return 0;
    }
    if (!dir || count < 0 || calls < 0)
        bench_die("usage: gen_store --dir DIR --count N [--calls C] [--prefix P]");
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        bench_die("%s: %s", dir, strerror(errno));
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0)
        bench_die("%s: %s", dir, strerror(errno));
    for (long i = 0; i < count; i++) {
        char name[128], file[256];
        size_t len;
        bench_name(name, sizeof(name), prefix, i);
        bench_file_name(file, sizeof(file), name);
        int approved = !(pending_every > 0 && i % pending_every == pending_every - 1);
        char *data = bench_snapshot_file(name, calls, 0, approved, &len);
        write_plain(dirfd, file, data, len);
        free(data);
    }
    if (syncfs(dirfd) < 0)
        bench_die("syncfs %s: %s", dir, strerror(errno));
    close(dirfd);
    return 0;
}
