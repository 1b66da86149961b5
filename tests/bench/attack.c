/*
 * attack — misbehaving clients against one daemon, with a well-behaved
 * client measuring what it still gets (tests/test_bounds.sh, make stress).
 *
 *   attack --socket S --seconds T [--slow N] [--nonread N] [--partial N]
 *          [--partial-bytes B] [--idle N] [--half N] [--ping N] [--churn N]
 *          [--probe] [--status] [--store DIR --name NAME --calls FILE] [--pid P]
 *
 * slow:     N connections sending their hello one byte a second; one the
 *           daemon closes is opened again at once.
 * nonread:  N connections that say hello, then write check requests of
 *           NAME as fast as the socket takes them and never read a reply.
 * partial:  N connections that say hello, then write all but the last byte
 *           of one frame announcing B bytes (default 16 MiB - 1) and stall;
 *           one the daemon closes is opened again.
 * idle:     N connections that say hello and then hold still.
 * half:     N connections that say hello, then write half of a ping frame
 *           and stall; one the daemon closes is opened again.
 * ping:     N connections that say hello, then ping every 20 ms (reading
 *           the answers); one the daemon closes is opened again.
 * churn:    N connections that say hello, close after 30 ms and connect
 *           again at once, over and over.
 * probe:    one client (the C library), connected before the attack starts,
 *           replaying NAME back to back; latency of every round trip once
 *           the attackers have been at it for 300 ms.
 * status:   every 200 ms a fresh connection asks for the status (must
 *           succeed whatever the others do), timed from connect to answer.
 * pid:      the daemon, whose resident memory is sampled every 20 ms.
 *
 * Prints one line of key=value fields: seconds, probe_ops probe_errors
 * probe_p50_us probe_p99_us probe_max_us, status_ok status_failed,
 * status_max_us, rss_peak_kb, conns_max (the most connections the daemon
 * reported in a status), slow_reconnects partial_reconnects
 * reserved_reconnects (connections the daemon closed and that were opened
 * again; reserved: half, ping and churn), nonread_bytes (request bytes the
 * non-readers got written: bounded when the daemon stops reading them).
 * The last status error, if any, goes to stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <json-c/json.h>

#include "bench_client.h"
#include "bench_common.h"
#include "client/toolscore_client.h"
#include "lib/base/ts_base.h"
#include "proto/ts_proto.h"

enum kind { SLOW, NONREAD, PARTIAL, IDLE, HALF, PING, CHURN, KINDS };

typedef struct attacker {
    enum kind kind;
    int fd;
    size_t sent;      /* bytes of out written */
    size_t out_len;   /* bytes to write (slow: 1 a second) */
    char *out;        /* what this connection writes */
    uint64_t next_ns; /* slow: when the next byte goes */
    bool said_hello;  /* hello reply read (nonread, partial, idle) */
    size_t got;       /* bytes of the hello reply read */
} attacker;

static const char *socket_path;
static const char *store, *name, *calls_path;
static char *calls_json;
static int seconds = 10;
static size_t partial_bytes = (16u << 20) - 1;
static pid_t daemon_pid;
static atomic_bool stopping;
static atomic_bool measuring;       /* the attack is under way */
static atomic_bool probe_connected; /* the probe holds its connection */
static atomic_bool placed;          /* every attacker connected, all but the slow said hello */
static _Atomic long rss_peak_kb, conns_max;
static _Atomic long status_ok, status_failed;
static _Atomic uint64_t nonread_bytes;
static _Atomic long slow_reconnects, partial_reconnects, reserved_reconnects;
static _Atomic uint64_t status_max_ns;
static char status_error[1200];
static char *partial_frame; /* the one frame every partial attacker sends */
static pthread_mutex_t status_lock = PTHREAD_MUTEX_INITIALIZER;

static int dial(void)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

    if (fd < 0)
        return -1;
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", socket_path);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EINPROGRESS) {
        close(fd);
        return -1;
    }
    return fd;
}

/* One request frame, malloc'd. */
static char *frame(uint64_t id, const char *method, struct json_object *params, size_t *len)
{
    ts_buf b;
    ts_error err;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    if (ts_message_encode_request(&b, id, method, params, 0, &err) < 0)
        bench_die("cannot encode %s: %s", method, err.message);
    json_object_put(params);
    return ts_buf_detach(&b, len);
}

static char *hello_frame(size_t *len)
{
    struct json_object *p = json_object_new_object();

    json_object_object_add(p, "protocol", json_object_new_int(1));
    json_object_object_add(p, "client", json_object_new_string("attack"));
    return frame(1, "hello", p, len);
}

/* The non-readers' stream: the check of NAME, over and over (one frame,
 * written again and again; ids repeat, which the daemon does not mind). */
static char *check_frame(size_t *len)
{
    struct json_object *p = json_object_new_object();

    json_object_object_add(p, "store", json_object_new_string(store));
    json_object_object_add(p, "name", json_object_new_string(name));
    json_object_object_add(p, "actual", json_tokener_parse(calls_json));
    json_object_object_add(p, "format", json_object_new_string("calls"));
    return frame(2, "check", p, len);
}

static void attacker_open(attacker *a)
{
    size_t len = 0;
    char *hello = hello_frame(&len);

    a->fd = dial();
    a->sent = 0;
    a->got = 0;
    a->said_hello = false;
    a->next_ns = bench_now_ns();
    if (a->out != partial_frame)
        free(a->out);
    a->out = hello;
    a->out_len = len;
}

/* After the hello reply: what the connection goes on to write. */
static void attacker_next(attacker *a)
{
    size_t len = 0;

    if (a->out != partial_frame)
        free(a->out);
    a->out = NULL;
    a->out_len = 0;
    a->sent = 0;
    if (a->kind == NONREAD) {
        a->out = check_frame(&len);
        a->out_len = len;
    } else if (a->kind == PARTIAL) {
        a->out = partial_frame;
        a->out_len = 4 + partial_bytes - 1;
    } else if (a->kind == HALF || a->kind == PING) {
        a->out = frame(2, "ping", json_object_new_object(), &len);
        a->out_len = a->kind == HALF ? len / 2 : len;
        a->next_ns = bench_now_ns() + 20000000ull;
    } else if (a->kind == CHURN) {
        a->next_ns = bench_now_ns() + 30000000ull; /* when it leaves */
    }
}

/* The daemon closed it (or it broke): open again, counted. */
static void attacker_reopen(attacker *a)
{
    if (a->fd >= 0)
        close(a->fd);
    if (a->kind == SLOW)
        slow_reconnects++;
    if (a->kind == PARTIAL)
        partial_reconnects++;
    if (a->kind == HALF || a->kind == PING || a->kind == CHURN)
        reserved_reconnects++;
    attacker_open(a);
}

/* Read what the daemon sent: the hello reply (then the next stage), or
 * the end of the connection. Non-readers never read after hello. */
static void attacker_read(attacker *a)
{
    char buf[4096];
    ssize_t n = recv(a->fd, buf, sizeof(buf), 0);

    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        attacker_reopen(a);
        return;
    }
    if (n > 0 && a->said_hello && a->kind == PING)
        return; /* a ping's answer */
    if (n < 0 || a->said_hello || a->kind == SLOW)
        return;
    a->got += (size_t)n;
    if (a->got >= 4) {
        a->said_hello = true;
        attacker_next(a);
    }
}

static void attacker_write(attacker *a, uint64_t now)
{
    size_t want = a->out_len - a->sent;
    ssize_t n;

    if (a->kind == SLOW) {
        if (now < a->next_ns || want == 0)
            return;
        want = 1;
        a->next_ns = now + 1000000000ull;
    }
    if (want == 0) {
        if (a->kind == NONREAD && a->said_hello)
            a->sent = 0; /* the same check again */
        if (a->kind == PING && a->said_hello && now >= a->next_ns) {
            a->sent = 0; /* the next ping */
            a->next_ns = now + 20000000ull;
        }
        return;
    }
    n = send(a->fd, a->out + a->sent, want, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
        a->sent += (size_t)n;
        if (a->kind == NONREAD && a->said_hello)
            nonread_bytes += (uint64_t)n;
    } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
        attacker_reopen(a);
    }
}

static void *attackers_run(void *arg)
{
    size_t n = 0;
    attacker *list = arg;
    struct pollfd *pfd;

    while (list[n].kind != (enum kind) - 1)
        n++;
    pfd = calloc(n ? n : 1, sizeof(*pfd));
    /* the kinds meant for the reserved slots connect once the others hold
     * the general ones */
    bool general_placed = false;

    for (size_t i = 0; i < n; i++)
        if (list[i].kind < HALF)
            attacker_open(&list[i]);
    while (!stopping) {
        uint64_t now = bench_now_ns();

        if (!general_placed) {
            general_placed = true;
            for (size_t i = 0; i < n && general_placed; i++)
                general_placed = list[i].kind >= HALF || list[i].kind == SLOW ||
                                 (list[i].fd >= 0 && list[i].said_hello);
        }
        for (size_t i = 0; i < n; i++) {
            attacker *a = &list[i];

            if (a->kind >= HALF && !general_placed) {
                pfd[i].fd = -1;
                continue;
            }
            bool writing = a->sent < a->out_len && (a->kind != SLOW || now >= a->next_ns);

            if (a->kind == NONREAD && a->said_hello)
                writing = true;
            if (a->fd < 0) {
                attacker_reopen(a);
                pfd[i].fd = -1;
                continue;
            }
            if (a->kind == CHURN && a->said_hello && now >= a->next_ns) {
                attacker_reopen(a); /* leaves, and comes back at once */
                pfd[i].fd = -1;
                continue;
            }
            if (a->kind == PING && a->said_hello && a->sent == a->out_len && now >= a->next_ns)
                writing = true;
            pfd[i].fd = a->fd;
            pfd[i].events = (short)((a->kind == NONREAD && a->said_hello ? 0 : POLLIN) |
                                    (writing && a->kind != SLOW ? POLLOUT : 0));
            pfd[i].revents = 0;
            if (a->kind == SLOW && writing)
                attacker_write(a, now);
        }
        if (!placed) {
            bool all = true;

            for (size_t i = 0; i < n && all; i++)
                all = (list[i].kind >= HALF && general_placed) || /* they come and go */
                      (list[i].fd >= 0 && (list[i].kind == SLOW || list[i].said_hello));
            placed = all;
        }
        if (poll(pfd, n, 5) < 0 && errno != EINTR)
            break;
        now = bench_now_ns();
        for (size_t i = 0; i < n; i++) {
            attacker *a = &list[i];

            if (pfd[i].fd < 0 || a->fd != pfd[i].fd)
                continue;
            /* a non-reader never reads a reply: only the end of its
             * connection is looked at */
            bool reads = !(a->kind == NONREAD && a->said_hello);

            if ((pfd[i].revents & (POLLHUP | POLLERR)) || (reads && (pfd[i].revents & POLLIN))) {
                attacker_read(a);
                if (a->fd != pfd[i].fd)
                    continue;
            }
            if (pfd[i].revents & POLLOUT)
                attacker_write(a, now);
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (list[i].fd >= 0)
            close(list[i].fd);
        if (list[i].out != partial_frame)
            free(list[i].out);
    }
    free(pfd);
    return NULL;
}

/* ---- the well-behaved ones ------------------------------------------- */

static bench_lat probe_lat;
static _Atomic long probe_ops, probe_errors;

static void probe_error(const char *what)
{
    if (probe_errors++ < 3)
        fprintf(stderr, "attack: probe: %s\n", what);
}

static void *probe_run(void *arg)
{
    char err[512];
    bench_conn *c = NULL;

    (void)arg;
    while (!stopping) {
        uint64_t t0 = bench_now_ns();
        int rc;

        if (c == NULL) {
            c = bench_conn_open(socket_path, err, sizeof(err));
            if (c == NULL) {
                probe_error(err);
                usleep(100000);
                continue;
            }
            if (measuring)
                bench_lat_add(&probe_lat, bench_now_ns() - t0);
            t0 = bench_now_ns();
            probe_connected = true;
        }
        rc = bench_conn_check(c, store, name, calls_json, "PASSED", err, sizeof(err));
        if (measuring) {
            bench_lat_add(&probe_lat, bench_now_ns() - t0);
            probe_ops++;
        }
        if (rc < 0) {
            probe_error(err);
            bench_conn_close(c);
            c = NULL;
        }
        usleep(2000);
    }
    bench_conn_close(c);
    return NULL;
}

static void *status_run(void *arg)
{
    (void)arg;
    while (!stopping) {
        ts_client_options o;
        ts_client *c = NULL;
        struct json_object *r = NULL;
        ts_error e;

        uint64_t t0 = bench_now_ns();

        ts_client_options_init(&o);
        o.socket_path = socket_path;
        o.autostart = false;
        o.connect_timeout_ms = 2000;
        o.request_timeout_ms = 5000;
        if (ts_client_connect(&o, &c, &e) == 0 && ts_client_status(c, &r, &e) == 0) {
            struct json_object *v = NULL;
            uint64_t took = bench_now_ns() - t0;

            if (took > status_max_ns)
                status_max_ns = took;
            status_ok++;
            if (json_object_object_get_ex(r, "connections", &v) &&
                json_object_get_int64(v) > conns_max)
                conns_max = json_object_get_int64(v);
        } else {
            status_failed++;
            pthread_mutex_lock(&status_lock);
            snprintf(status_error, sizeof(status_error), "%s: %s", e.code, e.message);
            pthread_mutex_unlock(&status_lock);
        }
        json_object_put(r);
        ts_client_close(c);
        usleep(200000);
    }
    return NULL;
}

static void *rss_run(void *arg)
{
    (void)arg;
    while (!stopping) {
        long kb = bench_rss_kb(daemon_pid);

        if (kb > rss_peak_kb)
            rss_peak_kb = kb;
        usleep(20000);
    }
    return NULL;
}

/* Wait until *flag is set; gives up (the program dies saying why) after
 * 20 s, a deadline only a daemon that does not serve reaches. */
static void wait_for(atomic_bool *flag, const char *why)
{
    uint64_t deadline = bench_now_ns() + 20000000000ull;

    while (!*flag) {
        if (bench_now_ns() > deadline)
            bench_die("%s within 20 s", why);
        usleep(1000);
    }
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "re");
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n;

    if (f == NULL)
        bench_die("cannot open %s", path);
    n = getdelim(&buf, &cap, '\0', f);
    fclose(f);
    if (n < 0)
        bench_die("cannot read %s", path);
    return buf;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"socket", 1, 0, 's'},  {"seconds", 1, 0, 't'}, {"slow", 1, 0, 'l'},
        {"nonread", 1, 0, 'n'}, {"partial", 1, 0, 'p'}, {"partial-bytes", 1, 0, 'b'},
        {"idle", 1, 0, 'i'},    {"probe", 0, 0, 'P'},   {"status", 0, 0, 'S'},
        {"store", 1, 0, 'd'},   {"name", 1, 0, 'N'},    {"calls", 1, 0, 'c'},
        {"pid", 1, 0, 'k'},     {"half", 1, 0, 'h'},    {"ping", 1, 0, 'g'},
        {"churn", 1, 0, 'r'},   {0, 0, 0, 0},
    };
    int counts[KINDS] = {0};
    bool probe = false, status = false;
    pthread_t attackers_t, probe_t, status_t, rss_t;
    attacker *list;
    struct rlimit rl;
    size_t total, k = 0;
    int opt;

    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (opt) {
        case 's':
            socket_path = optarg;
            break;
        case 't':
            seconds = atoi(optarg);
            break;
        case 'l':
            counts[SLOW] = atoi(optarg);
            break;
        case 'n':
            counts[NONREAD] = atoi(optarg);
            break;
        case 'p':
            counts[PARTIAL] = atoi(optarg);
            break;
        case 'b':
            partial_bytes = (size_t)strtoull(optarg, NULL, 10);
            break;
        case 'i':
            counts[IDLE] = atoi(optarg);
            break;
        case 'P':
            probe = true;
            break;
        case 'S':
            status = true;
            break;
        case 'd':
            store = optarg;
            break;
        case 'N':
            name = optarg;
            break;
        case 'c':
            calls_path = optarg;
            break;
        case 'k':
            daemon_pid = (pid_t)atol(optarg);
            break;
        case 'h':
            counts[HALF] = atoi(optarg);
            break;
        case 'g':
            counts[PING] = atoi(optarg);
            break;
        case 'r':
            counts[CHURN] = atoi(optarg);
            break;
        default:
            bench_die("usage: see the comment at the top of tests/bench/attack.c");
        }
    }
    if (socket_path == NULL || strlen(socket_path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
        bench_die("--socket PATH (short enough for a socket address) is required");
    if ((probe || counts[NONREAD] > 0) && (store == NULL || name == NULL || calls_path == NULL))
        bench_die("--probe and --nonread need --store, --name and --calls");
    if (calls_path != NULL)
        calls_json = slurp(calls_path);
    signal(SIGPIPE, SIG_IGN);
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (counts[PARTIAL] > 0) {
        partial_frame = malloc(4 + partial_bytes);
        if (partial_frame == NULL)
            bench_die("out of memory");
        partial_frame[0] = (char)(partial_bytes >> 24);
        partial_frame[1] = (char)(partial_bytes >> 16);
        partial_frame[2] = (char)(partial_bytes >> 8);
        partial_frame[3] = (char)partial_bytes;
        memset(partial_frame + 4, 0xc0, partial_bytes); /* nils: never completed anyway */
    }
    total = 0;
    for (int kind = 0; kind < KINDS; kind++)
        total += (size_t)counts[kind];
    list = calloc(total + 1, sizeof(*list));
    if (list == NULL)
        bench_die("out of memory");
    /* the trickling hellos last: the others must hold their slots; the
     * kinds meant for the reserved slots after the ones filling the rest */
    static const enum kind order[] = {NONREAD, PARTIAL, IDLE, SLOW, HALF, PING, CHURN};
    for (int o = 0; o < (int)(sizeof(order) / sizeof(order[0])); o++)
        for (int i = 0, kind = order[o]; i < counts[kind]; i++) {
            list[k].kind = (enum kind)kind;
            list[k++].fd = -1;
        }
    list[k].kind = (enum kind) - 1;
    /* the well-behaved client holds its connection before the attack, as a
     * test worker would */
    if (probe) {
        pthread_create(&probe_t, NULL, probe_run, NULL);
        wait_for(&probe_connected, "the probe did not connect");
    }
    pthread_create(&attackers_t, NULL, attackers_run, list);
    if (daemon_pid > 0)
        pthread_create(&rss_t, NULL, rss_run, NULL);
    wait_for(&placed, "the attackers did not take their places");
    measuring = true;
    if (status)
        pthread_create(&status_t, NULL, status_run, NULL);
    sleep((unsigned)seconds);
    stopping = true;
    pthread_join(attackers_t, NULL);
    if (probe)
        pthread_join(probe_t, NULL);
    if (status)
        pthread_join(status_t, NULL);
    if (daemon_pid > 0)
        pthread_join(rss_t, NULL);
    if (status_error[0] != '\0')
        fprintf(stderr, "attack: last status error: %s\n", status_error);
    bench_result("seconds=%d probe_ops=%ld probe_errors=%ld probe_p50_us=%llu probe_p99_us=%llu "
                 "probe_max_us=%llu status_ok=%ld status_failed=%ld status_max_us=%llu "
                 "rss_peak_kb=%ld conns_max=%ld slow_reconnects=%ld partial_reconnects=%ld "
                 "reserved_reconnects=%ld nonread_bytes=%llu",
                 seconds, (long)probe_ops, (long)probe_errors,
                 (unsigned long long)(bench_lat_pct(&probe_lat, 50) / 1000),
                 (unsigned long long)(bench_lat_pct(&probe_lat, 99) / 1000),
                 (unsigned long long)(bench_lat_pct(&probe_lat, 100) / 1000), (long)status_ok,
                 (long)status_failed, (unsigned long long)(status_max_ns / 1000), (long)rss_peak_kb,
                 (long)conns_max, (long)slow_reconnects, (long)partial_reconnects,
                 (long)reserved_reconnects, (unsigned long long)nonread_bytes);
    bench_lat_free(&probe_lat);
    free(partial_frame);
    free(list);
    free(calls_json);
    return 0;
}
