/*
 * bench_common — helpers shared by the benchmark programs (see the header).
 */
#include "bench_common.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sha1.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/base/ts_base.h"

uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void bench_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

void bench_lat_add(bench_lat *l, uint64_t ns)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 4096;
        uint64_t *v = realloc(l->v, cap * sizeof(*v));
        if (!v)
            bench_die("out of memory for latency samples");
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = ns;
}

void bench_lat_merge(bench_lat *into, const bench_lat *from)
{
    for (size_t i = 0; i < from->n; i++)
        bench_lat_add(into, from->v[i]);
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint64_t bench_lat_pct(bench_lat *l, double p)
{
    if (l->n == 0)
        return 0;
    qsort(l->v, l->n, sizeof(*l->v), compare_u64);
    size_t rank = (size_t)((p / 100.0) * (double)l->n + 0.999999);
    if (rank < 1)
        rank = 1;
    if (rank > l->n)
        rank = l->n;
    return l->v[rank - 1];
}

void bench_lat_free(bench_lat *l)
{
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

long bench_rss_kb(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long kb = -1;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kb = strtol(line + 6, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kb;
}

void bench_name(char *out, size_t outsz, const char *prefix, long i)
{
    snprintf(out, outsz, "%s_%07ld", prefix, i);
}

void bench_file_name(char *out, size_t outsz, const char *name)
{
    char hex[SHA1_DIGEST_STRING_LENGTH];
    SHA1Data((const uint8_t *)name, strlen(name), hex);
    snprintf(out, outsz, "%s-%.8s.json", name, hex);
}

/* A growable string for the hand-written JSON (dies on allocation failure). */
typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void text_add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void text_add(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            bench_die("formatting failed");
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = (t->cap ? t->cap : 256) * 2 + (size_t)n;
        char *s = realloc(t->s, cap);
        if (!s)
            bench_die("out of memory");
        t->s = s;
        t->cap = cap;
    }
}

char *bench_calls_json(int ncalls, int variant)
{
    text t = {0};
    text_add(&t, "[");
    for (int i = 0; i < ncalls; i++)
        text_add(&t,
                 "%s{\"tool\": \"tool_%d\", \"args\": {\"query\": \"value %d\", \"limit\": %d}}",
                 i ? ", " : "", i % 7, i + variant, i + variant);
    text_add(&t, "]");
    return t.s;
}

char *bench_snapshot_file(const char *name, int ncalls, int variant, int approved, size_t *len)
{
    static const char stamp[] = "2026-01-01T00:00:00.000000+00:00";
    text t = {0};
    text_add(&t,
             "{\n  \"schema_version\": 1,\n  \"name\": \"%s\",\n  \"created_at\": \"%s\",\n"
             "  \"updated_at\": \"%s\",\n  \"toolscore_version\": \"0.1.0\",\n"
             "  \"approved\": %s,\n  \"source\": \"pytest\",\n  \"calls\": [",
             name, stamp, stamp, approved ? "true" : "false");
    for (int i = 0; i < ncalls; i++)
        text_add(&t,
                 "%s\n    {\n      \"tool\": \"tool_%d\",\n      \"args\": {\n"
                 "        \"query\": \"value %d\",\n        \"limit\": %d\n      }\n    }",
                 i ? "," : "", i % 7, i + variant, i + variant);
    text_add(&t, ncalls ? "\n  ]\n}\n" : "]\n}\n");
    *len = t.len;
    return t.s;
}

int bench_durable_write(int dirfd, const char *file, const char *data, size_t len)
{
    static _Atomic unsigned long counter; /* fsync_ref --threads */
    char tmp[600];
    snprintf(tmp, sizeof(tmp), ".%s.%lu.tmp", file, counter++);
    int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    int rc = ts_fd_write_all(fd, data, len);
    if (rc == 0 && fsync(fd) < 0)
        rc = -errno;
    if (close(fd) < 0 && rc == 0)
        rc = -errno;
    if (rc == 0 && renameat(dirfd, tmp, dirfd, file) < 0)
        rc = -errno;
    if (rc == 0 && fsync(dirfd) < 0)
        rc = -errno;
    if (rc < 0)
        unlinkat(dirfd, tmp, 0);
    return rc;
}

void bench_result(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}
