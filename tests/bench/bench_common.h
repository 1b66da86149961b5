/*
 * bench_common — helpers shared by the benchmark programs of tests/bench/:
 * a monotonic clock, latency samples and their percentiles, resident memory
 * of a process, snapshot files written by hand (byte-exact, as the store
 * writes them) and the durable write sequence the reference writer uses.
 *
 * Benchmark programs are tools, not library code: on a setup failure they
 * print one line to stderr and exit non-zero (bench_die).
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Nanoseconds on CLOCK_MONOTONIC. */
uint64_t bench_now_ns(void);

/* Print "bench: <message>" to stderr and exit 1. */
void bench_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Latency samples in nanoseconds (growable; allocation failure dies). */
typedef struct bench_lat {
    uint64_t *v;
    size_t n, cap;
} bench_lat;

void bench_lat_add(bench_lat *l, uint64_t ns);
void bench_lat_merge(bench_lat *into, const bench_lat *from);
/* The p-th percentile (0 < p <= 100, nearest rank); sorts l. 0 when empty. */
uint64_t bench_lat_pct(bench_lat *l, double p);
void bench_lat_free(bench_lat *l);

/* Resident set size of pid in KiB (VmRSS), or -1. */
long bench_rss_kb(pid_t pid);

/* The snapshot name of item i in a generated set: "<prefix>_<i, 7 digits>".
 * Such names need no file-name escaping, so the file is
 * "<name>-<sha1(name)[0..8)>.json". */
void bench_name(char *out, size_t outsz, const char *prefix, long i);

/* The file name a snapshot name maps to (names from bench_name only). */
void bench_file_name(char *out, size_t outsz, const char *name);

/*
 * The calls JSON (compact) of a generated call list of ncalls calls:
 * [{"tool": "tool_0", "args": {"query": "value 0", "limit": 0}}, ...]
 * variant changes the argument values (a different list of the same shape).
 * Returns a malloc'd string.
 */
char *bench_calls_json(int ncalls, int variant);

/*
 * The exact bytes of a snapshot file (json.dumps(indent=2) + "\n") named name
 * holding bench_calls_json(ncalls, variant). Returns a malloc'd string and
 * its length in *len.
 */
char *bench_snapshot_file(const char *name, int ncalls, int variant, int approved, size_t *len);

/*
 * Write data durably to dirfd/file the way the store does: temp file
 * ".<file>.<n>.tmp", write, fsync, rename over file, fsync the directory.
 * Returns 0 or -errno.
 */
int bench_durable_write(int dirfd, const char *file, const char *data, size_t len);

/* Write argv-style "key=value" result fields on one line to stdout. */
void bench_result(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
