/*
 * fsync_ref — the reference for the record benchmark: one process writing
 * snapshot files one by one, each durably (temp file, write, fsync, rename,
 * fsync the directory), the same files the record benchmark asks the daemon
 * to create.
 *
 *   fsync_ref --dir DIR --count N [--calls C] [--threads T]
 *
 * With --threads, T threads of the process each write N/T of the files the
 * same way, at the same time, into the same directory: what T concurrent
 * durable creations cost without a daemon (no protocol, no JSON), the limit
 * of a daemon serving T clients that each have one request in flight.
 *
 * Prints one line: mode=fsync_ref clients(=threads) ops seconds ops_per_s
 * p50_us p99_us max_us.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_common.h"

typedef struct writer {
    int dirfd;
    long first, count; /* the files it writes */
    char **data;
    size_t *lens;
    char (*files)[256];
    bench_lat lat;
} writer;

static void *writer_main(void *arg)
{
    writer *w = arg;
    for (long i = w->first; i < w->first + w->count; i++) {
        uint64_t t0 = bench_now_ns();
        int rc = bench_durable_write(w->dirfd, w->files[i], w->data[i], w->lens[i]);
        if (rc < 0)
            bench_die("%s: %s", w->files[i], strerror(-rc));
        bench_lat_add(&w->lat, bench_now_ns() - t0);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {{"dir", required_argument, NULL, 'd'},
                                             {"count", required_argument, NULL, 'n'},
                                             {"calls", required_argument, NULL, 'c'},
                                             {"threads", required_argument, NULL, 't'},
                                             {NULL, 0, NULL, 0}};
    const char *dir = NULL;
    long count = 0;
    int calls = 10;
    int threads = 1;
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
        case 't':
            threads = atoi(optarg);
            break;
        default:
            bench_die("usage: fsync_ref --dir DIR --count N [--calls C] [--threads T]");
        }
    }
    if (!dir || count <= 0 || calls < 0 || threads < 1 || threads > 256 || count < threads)
        bench_die("usage: fsync_ref --dir DIR --count N [--calls C] [--threads T] (1 <= T <= "
                  "min(N, 256))");
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        bench_die("%s: %s", dir, strerror(errno));
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0)
        bench_die("%s: %s", dir, strerror(errno));

    /* Prepare the bytes first: only the writes are timed. */
    char **data = calloc((size_t)count, sizeof(*data));
    size_t *lens = calloc((size_t)count, sizeof(*lens));
    char(*files)[256] = calloc((size_t)count, sizeof(*files));
    if (!data || !lens || !files)
        bench_die("out of memory");
    for (long i = 0; i < count; i++) {
        char name[128];
        bench_name(name, sizeof(name), "ref", i);
        bench_file_name(files[i], sizeof(files[i]), name);
        data[i] = bench_snapshot_file(name, calls, 0, 0, &lens[i]);
    }

    /* Each thread writes an equal share (the last one the remainder). */
    writer *w = calloc((size_t)threads, sizeof(*w));
    pthread_t *tid = calloc((size_t)threads, sizeof(*tid));
    if (!w || !tid)
        bench_die("out of memory");
    for (int t = 0; t < threads; t++) {
        w[t] = (writer){.dirfd = dirfd, .data = data, .lens = lens, .files = files};
        w[t].first = count / threads * t;
        w[t].count = t == threads - 1 ? count - w[t].first : count / threads;
    }
    uint64_t start = bench_now_ns();
    for (int t = 0; t < threads; t++)
        if (pthread_create(&tid[t], NULL, writer_main, &w[t]) != 0)
            bench_die("cannot start a thread");
    bench_lat lat = {0};
    for (int t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        bench_lat_merge(&lat, &w[t].lat);
        bench_lat_free(&w[t].lat);
    }
    double secs = (double)(bench_now_ns() - start) / 1e9;
    double p50 = (double)bench_lat_pct(&lat, 50) / 1e3;
    double p99 = (double)bench_lat_pct(&lat, 99) / 1e3;
    double max = (double)lat.v[lat.n - 1] / 1e3;
    bench_result("mode=fsync_ref clients=%d ops=%ld errors=0 seconds=%.3f ops_per_s=%.1f "
                 "p50_us=%.1f p99_us=%.1f max_us=%.1f",
                 threads, count, secs, (double)count / secs, p50, p99, max);
    for (long i = 0; i < count; i++)
        free(data[i]);
    free(data);
    free(lens);
    free(files);
    free(w);
    free(tid);
    bench_lat_free(&lat);
    close(dirfd);
    return 0;
}
