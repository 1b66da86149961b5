/*
 * util_client — what the client suites (tests/test_client_*.c) share: a
 * fake server (a thread speaking the protocol through proto/ on a socket of
 * its own, logging every request; a check whose name starts with "reply:"
 * gets a canned or deliberately broken reply), connecting a client without
 * auto-start, and the real daemon's helpers: a client that auto-starts it,
 * the daemons serving a socket, stopping one.
 */
#ifndef UTIL_CLIENT_H
#define UTIL_CLIENT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "client/toolscore_client.h"
#include "proto/ts_proto.h"

#define FAKE_CONNS 16
#define FAKE_LOG 512

typedef struct fake_entry {
    int conn;       /* connection number, from 0 in accept order */
    long hello_pid; /* for hello: the pid the client announced */
    char method[32];
    struct json_object *params;
} fake_entry;

typedef struct fake {
    char dir[64];
    char sock[TS_PATHS_MAX];
    int listen_fd;
    int wake[2];
    size_t max_frame; /* announced in hello */
    pthread_t thread;
    pthread_mutex_t mu;
    fake_entry log[FAKE_LOG];
    int nlog;
    int nconn;
    int nclosed; /* connections the server has closed */
    int nstray;  /* unasked frames it has written (method "stray") */
} fake;

/* Start a fake server on sock (NULL: a fresh temporary directory) whose
 * hello announces max_frame (0: the default). */
void fake_start_at(fake *f, const char *sock, size_t max_frame);
void fake_start(fake *f);
/* Stop it and remove its directory. */
void fake_stop(fake *f);
/* The last logged request of method (NULL if none); params borrowed. */
const fake_entry *fake_last(fake *f, const char *method);
/* How many requests of method the server saw, and on which connection the
 * last one came (-1: none). */
int fake_count(fake *f, const char *method, int *last_conn);
/* Wait (20 s at most) until the server has closed n connections in all. */
void fake_wait_closed(fake *f, int n);
/* Wait (20 s at most) until the server has written n unasked frames in all:
 * the client's socket then holds the last one. */
void fake_wait_strays(fake *f, int n);
/* A logged request's param key (borrowed). */
struct json_object *fake_param(const fake_entry *e, const char *key);

/* A client connected to sock without auto-start (fails the test if not). */
ts_client *util_client_connect(const char *sock);
/* The monotonic clock in ms. */
int64_t util_now_ms(void);

/* Arguments of every daemon the suites start: an idle timeout, so that none
 * outlives a failed test by long. */
extern const char *const util_idle_args[];
/* A client that auto-starts the daemon of the build on sock (10 s budget);
 * *rc is ts_client_connect's. */
ts_client *util_autostart_client(const char *sock, ts_error *err, int *rc);
/* How many processes serve sock (their command line mentions toolscored
 * and sock); one receives a pid of them. */
int util_daemons_on(const char *sock, pid_t *one);
/* Wait (20 s) until no daemon serves sock. */
void util_wait_no_daemon(const char *sock);
/* Stop the daemon through c, close c and wait until no daemon serves sock. */
void util_stop_and_close(ts_client *c, const char *sock);
/* The pid the daemon of c's connection announced in hello. */
int64_t util_server_pid(const ts_client *c);

#endif
