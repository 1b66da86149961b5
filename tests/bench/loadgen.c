/*
 * loadgen — N client threads, each with its own connection, sending
 * requests back to back (one outstanding request per connection) and
 * timing each round trip.
 *
 *   loadgen --mode echo   --socket S --size BYTES  --clients N (--seconds T | --count K)
 *   loadgen --mode check  --socket S --store DIR --name NAME --calls FILE ...
 *   loadgen --mode record --socket S --store DIR --prefix P --calls FILE --count K ...
 *
 * echo:   writes BYTES and reads BYTES back (the reference: echo_server).
 * check:  the check method on NAME with the calls of FILE (an approved
 *         snapshot replays; every reply must be PASSED).
 * record: each request checks a new name "<P>_<client>_<seq>" (outcome
 *         CREATED, acknowledged once the file is durable).
 *
 * Prints one line of key=value fields: mode clients ops errors seconds
 * ops_per_s p50_us p99_us max_us, and for one client the bytes moved per
 * request (req_bytes resp_bytes, from /proc/self/io).
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "bench_common.h"
#include "bench_client.h"

typedef struct options {
    const char *mode;
    const char *socket;
    const char *store;
    const char *name;
    const char *prefix;
    const char *calls;
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
    long ops, errors;
    char first_error[512];
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
    } else {
        char name[256];
        snprintf(name, sizeof(name), "%s_%03d_%07ld", opt->prefix, w->index, seq);
        rc = bench_conn_check(w->conn, opt->store, name, w->payload, "CREATED", err, sizeof(err));
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

static void worker_setup(worker *w)
{
    const options *opt = w->opt;
    if (strcmp(opt->mode, "echo") == 0) {
        w->fd = echo_connect(opt->socket);
        w->payload = malloc(opt->size);
        if (!w->payload)
            bench_die("out of memory");
        memset(w->payload, 'x', opt->size);
        return;
    }
    char err[512];
    w->conn = bench_conn_open(opt->socket, err, sizeof(err));
    if (!w->conn)
        bench_die("client %d: %s", w->index, err);
    w->payload = read_file(opt->calls);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    const options *opt = w->opt;
    worker_setup(w);
    long seq = 0;
    for (long i = 0; i < opt->warmup; i++)
        one_request(w, seq++);
    w->errors = 0;
    w->first_error[0] = '\0';
    pthread_barrier_wait(w->barrier);
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
    if (w->fd > 0)
        close(w->fd);
    free(w->payload);
    return NULL;
}

static void usage(void)
{
    bench_die("usage: loadgen --mode echo|check|record --socket PATH [--clients N] "
              "[--seconds T | --count K] [--warmup K] [--size BYTES] [--store DIR] "
              "[--name NAME] [--prefix P] [--calls FILE]");
}

static void parse_options(int argc, char **argv, options *opt)
{
    static const struct option longopts[] = {
        {"mode", required_argument, NULL, 'm'},    {"socket", required_argument, NULL, 's'},
        {"store", required_argument, NULL, 'd'},   {"name", required_argument, NULL, 'n'},
        {"prefix", required_argument, NULL, 'p'},  {"calls", required_argument, NULL, 'c'},
        {"clients", required_argument, NULL, 'C'}, {"seconds", required_argument, NULL, 'T'},
        {"count", required_argument, NULL, 'K'},   {"warmup", required_argument, NULL, 'W'},
        {"size", required_argument, NULL, 'S'},    {NULL, 0, NULL, 0}};
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
    uint64_t r0, w0, r1, w1;
    bench_io_bytes(&r0, &w0);
    uint64_t start = bench_now_ns();
    for (int i = 0; i < opt.clients; i++)
        pthread_join(threads[i], NULL);
    double secs = (double)(bench_now_ns() - start) / 1e9;
    bench_io_bytes(&r1, &w1);

    bench_lat all = {0};
    long ops = 0, errors = 0;
    const char *first_error = NULL;
    for (int i = 0; i < opt.clients; i++) {
        bench_lat_merge(&all, &workers[i].lat);
        bench_lat_free(&workers[i].lat);
        ops += workers[i].ops;
        errors += workers[i].errors;
        if (!first_error && workers[i].errors)
            first_error = workers[i].first_error;
    }
    double p50 = (double)bench_lat_pct(&all, 50) / 1e3;
    double p99 = (double)bench_lat_pct(&all, 99) / 1e3;
    double max = all.n ? (double)all.v[all.n - 1] / 1e3 : 0;
    char bytes[128] = "";
    if (opt.clients == 1 && ops > 0)
        snprintf(bytes, sizeof(bytes), " req_bytes=%.0f resp_bytes=%.0f",
                 (double)(w1 - w0) / (double)ops, (double)(r1 - r0) / (double)ops);
    bench_result("mode=%s clients=%d ops=%ld errors=%ld seconds=%.3f ops_per_s=%.1f "
                 "p50_us=%.1f p99_us=%.1f max_us=%.1f%s",
                 opt.mode, opt.clients, ops, errors, secs, secs > 0 ? (double)ops / secs : 0, p50,
                 p99, max, bytes);
    if (first_error)
        fprintf(stderr, "loadgen: %ld errors, first: %s\n", errors, first_error);
    bench_lat_free(&all);
    free(workers);
    free(threads);
    return errors ? 1 : 0;
}
