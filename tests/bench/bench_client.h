/*
 * bench_client — the few daemon requests the benchmarks make, on top of the
 * client library (client/toolscore_client.h): one connection, check with an
 * expected outcome, list, status. Errors come back as a message in err.
 */
#ifndef BENCH_CLIENT_H
#define BENCH_CLIENT_H

#include <stddef.h>

typedef struct bench_conn bench_conn;

/* Connect to the daemon at socket (no auto-start) and say hello.
 * NULL with err filled when no daemon answers. */
bench_conn *bench_conn_open(const char *socket, char *err, size_t errsz);
void bench_conn_close(bench_conn *c);

/*
 * check name in store (an absolute path) with calls_json (a JSON array of
 * calls; ci, update and allow_pending off). 0 when the outcome is
 * want_outcome, -1 with err filled otherwise.
 */
int bench_conn_check(bench_conn *c, const char *store, const char *name, const char *calls_json,
                     const char *want_outcome, char *err, size_t errsz);

/* list store: the number of snapshots in *count. 0 or -1 with err. */
int bench_conn_list(bench_conn *c, const char *store, long *count, char *err, size_t errsz);

/* status: 0 when the daemon answers, -1 with err. */
int bench_conn_status(bench_conn *c, char *err, size_t errsz);

#endif
