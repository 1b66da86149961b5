/*
 * loadgen — N client threads, each with its own connection, sending
 * requests back to back (one outstanding request per connection) and
 * timing each round trip.
 *
 *   loadgen --mode echo   --socket S --size BYTES  --clients N (--seconds T | --count K)
 *   loadgen --mode check  --socket S --store DIR --name NAME --calls FILE ...
 *   loadgen --mode record --socket S --store DIR --prefix P --calls FILE --count K ...
 *   loadgen --mode mix    --socket S --store DIR --name NAME --prefix P --calls FILE ...
 *   loadgen --mode hold   --socket S --clients N --seconds T [--ready FILE]
 *
 * echo:   writes BYTES and reads BYTES back (the reference: echo_server).
 * check:  the check method on NAME with the calls of FILE (an approved
 *         snapshot replays; every reply must be PASSED).
 * record: each request checks a new name "<P>_<client>_<seq>" (outcome
 *         CREATED, acknowledged once the file is durable).
 * mix:    of every 10 requests, 1 lists the store, 2 check one of 4 names
 *         of the client's own ("<P>_<client>_<k>": CREATED the first time,
 *         PENDING after), 7 replay NAME (PASSED).
 * hold:   connects every client (a failed connection is an error, not
 *         fatal), holds the connections for T seconds, then asks for the
 *         status on each; ops counts the connections that did both. With
 *         --ready FILE it creates FILE once every client has connected (or
 *         been refused) and holds the connections until FILE is removed
 *         (T seconds at most), so a test acts while they are held.
 *
 * Prints one line of key=value fields: mode clients ops errors seconds
 * ops_per_s p50_us p99_us max_us connect_errors, and for one client in
 * check mode the bytes of a request and of its reply (req_bytes resp_bytes).
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "bench_common.h"
#include "bench_client.h"

/*
 * Byte counters. The client library talks through send() and recv(); these
 * definitions in the program take the place of libc's for the library
 * linked into it (a static archive), so a run can report how many bytes a
 * request and its reply really are, framing included.
 */
static _Atomic uint64_t bytes_sent, bytes_received;

/* hold with --ready: set once the ready file was created. */
static atomic_bool ready_made;

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
    ssize_t n = sendto(fd, buf, len, flags, NULL, 0);
    if (n > 0)
        bytes_sent += (uint64_t)n;
    return n;
}

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
    ssize_t n = recvfrom(fd, buf, len, flags, NULL, NULL);
    if (n > 0)
        bytes_received += (uint64_t)n;
    return n;
}

typedef struct options {
    const char *mode;
    const char *socket;
    const char *store;
    const char *name;
    const char *prefix;
    const char *calls;
    const char *ready; /* hold: created once connected, held while it exists */
    int clients;
    double seconds;
    long count;
    long warmup;
    size_t size;
} options;

typedef struct worker {
    int index;
    const options *opt;
    pthread_barrier_t *barrier;
    int fd;           /* echo */
    bench_conn *conn; /* check / record */
    char *payload;
    bench_lat lat;
    long ops, errors, connect_errors;
    char first_error[1024];
} worker;

static void note_error(worker *w, const char *msg)
{
    if (w->errors++ == 0)
        snprintf(w->first_error, sizeof(w->first_error), "%s", msg);
}

static int echo_connect(const char *path)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
        bench_die("connect %s: %s", path, strerror(errno));
    return fd;
}

static int echo_once(worker *w)
{
    size_t size = w->opt->size;
    size_t off = 0;
    while (off < size) {
        ssize_t n = write(w->fd, w->payload + off, size - off);
        if (n <= 0)
            return -1;
        off += (size_t)n;
    }
    static __thread char in[1 << 16];
    size_t got = 0;
    while (got < size) {
        size_t want = size - got < sizeof(in) ? size - got : sizeof(in);
        ssize_t n = read(w->fd, in, want);
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    return 0;
}

/* One request of the mix: list, a check of one of the worker's own names,
 * or a replay of the approved snapshot. */
static int mix_request(worker *w, long seq, char *err, size_t errsz)
{
    const options *opt = w->opt;
    long kind = seq % 10;
    if (kind == 0) {
        long count;
        return bench_conn_list(w->conn, opt->store, &count, err, errsz);
    }
    if (kind <= 2) {
        char name[256];
        snprintf(name, sizeof(name), "%s_%03d_%ld", opt->prefix, w->index, (seq / 10) % 4);
        return bench_conn_check(w->conn, opt->store, name, w->payload, "CREATED|PENDING", err,
                                errsz);
    }
    return bench_conn_check(w->conn, opt->store, opt->name, w->payload, "PASSED", err, errsz);
}

/* hold: the connection is open; wait (T seconds, or while the ready file
 * exists), then one status request. */
static void hold_connection(worker *w)
{
    char err[512];
    uint64_t deadline = bench_now_ns() + (uint64_t)(w->opt->seconds * 1e9);
    while (bench_now_ns() < deadline) {
        if (w->opt->ready && atomic_load(&ready_made) && access(w->opt->ready, F_OK) != 0)
            break;
        usleep(10000);
    }
    if (bench_conn_status(w->conn, err, sizeof(err)) < 0) {
        note_error(w, err);
        return;
    }
    w->ops++;
}

/* One request of the selected mode; seq numbers the requests of a worker. */
static int one_request(worker *w, long seq)
{
    const options *opt = w->opt;
    char err[512] = "";
    int rc;
    if (strcmp(opt->mode, "echo") == 0) {
        rc = echo_once(w);
        if (rc < 0)
            snprintf(err, sizeof(err), "echo failed: %s", strerror(errno));
    } else if (strcmp(opt->mode, "check") == 0) {
        rc = bench_conn_check(w->conn, opt->store, opt->name, w->payload, "PASSED", err,
                              sizeof(err));
    } else if (strcmp(opt->mode, "record") == 0) {
        char name[256];
        snprintf(name, sizeof(name), "%s_%03d_%07ld", opt->prefix, w->index, seq);
        rc = bench_conn_check(w->conn, opt->store, name, w->payload, "CREATED", err, sizeof(err));
    } else {
        rc = mix_request(w, seq, err, sizeof(err));
    }
    if (rc < 0)
        note_error(w, err);
    return rc;
}

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

/* Connect; 0, or -1 with the error noted (the worker then does nothing). */
static int worker_setup(worker *w)
{
    const options *opt = w->opt;
    if (strcmp(opt->mode, "echo") == 0) {
        w->fd = echo_connect(opt->socket);
        w->payload = malloc(opt->size);
        if (!w->payload)
            bench_die("out of memory");
        memset(w->payload, 'x', opt->size);
        return 0;
    }
    char err[512];
    w->conn = bench_conn_open(opt->socket, err, sizeof(err));
    if (!w->conn) {
        char msg[600];
        snprintf(msg, sizeof(msg), "connect: %s", err);
        note_error(w, msg);
        w->connect_errors++;
        return -1;
    }
    if (opt->calls)
        w->payload = read_file(opt->calls);
    return 0;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    const options *opt = w->opt;
    int connected = worker_setup(w) == 0;
    long seq = 0;
    if (connected && strcmp(opt->mode, "hold") != 0 && opt->warmup > 0) {
        for (long i = 0; i < opt->warmup; i++)
            one_request(w, seq++);
        w->errors = 0;
        w->first_error[0] = '\0';
    }
    pthread_barrier_wait(w->barrier);
    if (!connected)
        return NULL;
    if (strcmp(opt->mode, "hold") == 0) {
        hold_connection(w);
        bench_conn_close(w->conn);
        return NULL;
    }
    uint64_t start = bench_now_ns();
    uint64_t deadline = start + (uint64_t)(opt->seconds * 1e9);
    for (long i = 0;; i++) {
        if (opt->count > 0 ? i >= opt->count : bench_now_ns() >= deadline)
            break;
        uint64_t t0 = bench_now_ns();
        int rc = one_request(w, seq++);
        if (rc == 0) {
            bench_lat_add(&w->lat, bench_now_ns() - t0);
            w->ops++;
        }
    }
    if (w->conn)
        bench_conn_close(w->conn);
    if (w->fd >= 0)
        close(w->fd);
    free(w->payload);
    return NULL;
}

static void usage(void)
{
    bench_die("usage: loadgen --mode echo|check|record|mix|hold --socket PATH [--clients N] "
              "[--seconds T | --count K] [--warmup K] [--size BYTES] [--store DIR] "
              "[--name NAME] [--prefix P] [--calls FILE] [--ready FILE]");
}

static void parse_options(int argc, char **argv, options *opt)
{
    static const struct option longopts[] = {
        {"mode", required_argument, NULL, 'm'},
        {"socket", required_argument, NULL, 's'},
        {"store", required_argument, NULL, 'd'},
        {"name", required_argument, NULL, 'n'},
        {"prefix", required_argument, NULL, 'p'},
        {"calls", required_argument, NULL, 'c'},
        {"clients", required_argument, NULL, 'C'},
        {"seconds", required_argument, NULL, 'T'},
        {"count", required_argument, NULL, 'K'},
        {"warmup", required_argument, NULL, 'W'},
        {"size", required_argument, NULL, 'S'},
        {"ready", required_argument, NULL, 'R'},
        {NULL, 0, NULL, 0},
    };
    *opt = (options){.clients = 1, .seconds = 2.0, .warmup = 20, .size = 512, .prefix = "rec"};
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'm':
            opt->mode = optarg;
            break;
        case 's':
            opt->socket = optarg;
            break;
        case 'd':
            opt->store = optarg;
            break;
        case 'n':
            opt->name = optarg;
            break;
        case 'p':
            opt->prefix = optarg;
            break;
        case 'c':
            opt->calls = optarg;
            break;
        case 'C':
            opt->clients = atoi(optarg);
            break;
        case 'T':
            opt->seconds = atof(optarg);
            break;
        case 'K':
            opt->count = atol(optarg);
            break;
        case 'W':
            opt->warmup = atol(optarg);
            break;
        case 'S':
            opt->size = (size_t)atol(optarg);
            break;
        case 'R':
            opt->ready = optarg;
            break;
        default:
            usage();
        }
    }
    if (!opt->mode || !opt->socket || opt->clients < 1 || opt->clients > 4096)
        usage();
    if (strcmp(opt->mode, "echo") == 0) {
        if (opt->size < 1 || opt->size > (1u << 24))
            usage();
    } else if (strcmp(opt->mode, "check") == 0) {
        if (!opt->store || !opt->name || !opt->calls)
            usage();
    } else if (strcmp(opt->mode, "record") == 0) {
        if (!opt->store || !opt->calls)
            usage();
        opt->warmup = 0; /* every record creates a file: count them all */
    } else if (strcmp(opt->mode, "mix") == 0) {
        if (!opt->store || !opt->name || !opt->calls)
            usage();
        opt->warmup = 0;
    } else if (strcmp(opt->mode, "hold") == 0) {
        opt->count = 0;
    } else {
        usage();
    }
}

int main(int argc, char **argv)
{
    options opt;
    parse_options(argc, argv, &opt);
    signal(SIGPIPE, SIG_IGN);

    worker *workers = calloc((size_t)opt.clients, sizeof(*workers));
    pthread_t *threads = calloc((size_t)opt.clients, sizeof(*threads));
    pthread_barrier_t barrier;
    if (!workers || !threads)
        bench_die("out of memory");
    pthread_barrier_init(&barrier, NULL, (unsigned)opt.clients + 1);
    for (int i = 0; i < opt.clients; i++) {
        workers[i] = (worker){.index = i, .opt = &opt, .barrier = &barrier, .fd = -1};
        if (pthread_create(&threads[i], NULL, worker_main, &workers[i]) != 0)
            bench_die("pthread_create failed");
    }
    pthread_barrier_wait(&barrier);
    if (opt.ready) {
        FILE *f = fopen(opt.ready, "w");
        if (!f)
            bench_die("%s: %s", opt.ready, strerror(errno));
        fclose(f);
        atomic_store(&ready_made, true);
    }
    uint64_t sent0 = bytes_sent, received0 = bytes_received;
    uint64_t start = bench_now_ns();
    for (int i = 0; i < opt.clients; i++)
        pthread_join(threads[i], NULL);
    double secs = (double)(bench_now_ns() - start) / 1e9;
    uint64_t sent = bytes_sent - sent0, received = bytes_received - received0;

    bench_lat all = {0};
    long ops = 0, errors = 0, connect_errors = 0;
    const char *first_error = NULL;
    for (int i = 0; i < opt.clients; i++) {
        bench_lat_merge(&all, &workers[i].lat);
        bench_lat_free(&workers[i].lat);
        ops += workers[i].ops;
        errors += workers[i].errors;
        connect_errors += workers[i].connect_errors;
        if (!first_error && workers[i].errors)
            first_error = workers[i].first_error;
    }
    double p50 = (double)bench_lat_pct(&all, 50) / 1e3;
    double p99 = (double)bench_lat_pct(&all, 99) / 1e3;
    double max = all.n ? (double)all.v[all.n - 1] / 1e3 : 0;
    char bytes[128] = "";
    if (opt.clients == 1 && ops > 0 && sent > 0)
        snprintf(bytes, sizeof(bytes), " req_bytes=%.0f resp_bytes=%.0f",
                 (double)sent / (double)ops, (double)received / (double)ops);
    bench_result("mode=%s clients=%d ops=%ld errors=%ld seconds=%.3f ops_per_s=%.1f "
                 "p50_us=%.1f p99_us=%.1f max_us=%.1f connect_errors=%ld%s",
                 opt.mode, opt.clients, ops, errors, secs, secs > 0 ? (double)ops / secs : 0, p50,
                 p99, max, connect_errors, bytes);
    if (first_error)
        fprintf(stderr, "loadgen: %ld errors, first: %s\n", errors, first_error);
    bench_lat_free(&all);
    free(workers);
    free(threads);
    return errors ? 1 : 0;
}
