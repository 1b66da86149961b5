/*
 * read_store — the I/O floor of listing a store: one process reads every
 * *.json file of a directory once (readdir, openat, read, close), without
 * parsing. The reference for `snapshots list` through the daemon.
 *
 *   read_store DIR      prints mode=read_store files bytes ms
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"

int main(int argc, char **argv)
{
    if (argc != 2)
        bench_die("usage: read_store DIR");
    uint64_t start = bench_now_ns();
    DIR *d = opendir(argv[1]);
    if (!d)
        bench_die("%s: %s", argv[1], strerror(errno));
    static char buf[1 << 16];
    long files = 0, bytes = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 6 || e->d_name[0] == '.' || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
            bench_die("%s: %s", e->d_name, strerror(errno));
        ssize_t n;
        while ((n = read(fd, buf, sizeof(buf))) > 0)
            bytes += n;
        close(fd);
        files++;
    }
    closedir(d);
    double ms = (double)(bench_now_ns() - start) / 1e6;
    bench_result("mode=read_store files=%ld bytes=%ld ms=%.1f", files, bytes, ms);
    return 0;
}
