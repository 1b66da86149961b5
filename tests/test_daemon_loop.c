/*
 * test_daemon_loop — no request holds up the event loop: while one client
 * has a 29 MiB snapshot shown (read, parsed and encoded: half a second of
 * work), or sends a request whose params hold a map of a million keys
 * (about a second to decode), another client's pings keep being answered
 * at once. The probe measures each ping's round trip; the largest must
 * stay far under the time one such request takes: under PROBE_MAX_MS, or
 * half of one request's measured time when a loaded machine makes that
 * longer (a ping held up behind a request on the loop waits for nearly
 * all of it, however slow the machine).
 */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <msgpack.h>

#include "util_daemon.h"
#include "util_test.h"

#define BIG_CALLS 100000      /* the most a snapshot holds */
#define BIG_BYTES (29u << 20) /* about the file the review measured */
#define MAP_KEYS 1000000
#define PROBE_MAX_MS 250     /* one such request on the loop took 500 ms and more */
#define PROBE_START_MS 20000 /* the deadline for the probe's first ping */

static long long now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* A snapshot file of BIG_CALLS calls making about BIG_BYTES, as the store
 * writes them. */
static void write_big_snapshot(const char *path)
{
    size_t pad = BIG_BYTES / BIG_CALLS - 120;
    char *filler = malloc(pad + 1);
    FILE *f = fopen(path, "w");

    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(filler);
    memset(filler, 'x', pad);
    filler[pad] = '\0';
    fputs("{\n  \"schema_version\": 1,\n  \"name\": \"big\",\n  \"created_at\": "
          "\"2025-06-01T12:00:00+00:00\",\n  \"updated_at\": \"2025-06-01T12:00:00+00:00\",\n"
          "  \"toolscore_version\": \"1.8.1\",\n  \"approved\": true,\n  \"source\": "
          "\"pytest\",\n  \"calls\": [\n",
          f);
    for (int i = 0; i < BIG_CALLS; i++)
        fprintf(f,
                "    {\n      \"tool\": \"tool_%d\",\n      \"args\": {\n        \"i\": %d,\n"
                "        \"text\": \"%s\"\n      }\n    }%s\n",
                i % 50, i, filler, i + 1 < BIG_CALLS ? "," : "");
    fputs("  ]\n}\n", f);
    fclose(f);
    free(filler);
}

typedef struct probe {
    const char *socket;
    atomic_bool stop;
    long long max_us;
    atomic_long pings;
} probe;

static void *probe_run(void *arg)
{
    probe *p = arg;
    int fd = tdaemon_connect(p->socket);

    while (!p->stop) {
        long long t0 = now_us();
        struct json_object *r = tdaemon_ok(fd, "ping", NULL);
        long long us = now_us() - t0;

        json_object_put(r);
        if (us > p->max_us)
            p->max_us = us;
        p->pings++;
        usleep(1000);
    }
    close(fd);
    return NULL;
}

/* Start the probe; returns once its first ping was answered. */
static void probe_start(probe *p, pthread_t *t, const char *socket)
{
    long long deadline = now_us() + PROBE_START_MS * 1000LL;

    memset(p, 0, sizeof(*p));
    p->socket = socket;
    ck_assert_int_eq(pthread_create(t, NULL, probe_run, p), 0);
    while (atomic_load(&p->pings) == 0) {
        ck_assert_msg(now_us() < deadline, "the probe's first ping was not answered within %d ms",
                      PROBE_START_MS);
        usleep(1000);
    }
}

/* Stop the probe; request_us is what one of the requests it ran beside
 * took. */
static void probe_stop(probe *p, pthread_t t, const char *what, long long request_us)
{
    long long bound_us = PROBE_MAX_MS * 1000LL;

    if (request_us / 2 > bound_us)
        bound_us = request_us / 2;
    p->stop = true;
    pthread_join(t, NULL);
    fprintf(stderr, "test_daemon_loop: %s: %ld pings, the slowest %lld ms\n", what,
            atomic_load(&p->pings), p->max_us / 1000);
    ck_assert_int_gt(atomic_load(&p->pings), 5);
    ck_assert_msg(p->max_us < bound_us, "%s: a ping took %lld ms (bound %lld ms)", what,
                  p->max_us / 1000, bound_us / 1000);
}

START_TEST(show_of_a_huge_snapshot)
{
    char path[700];
    probe p;
    pthread_t t;
    int fd;
    long long t0, show_us;

    snprintf(path, sizeof(path), "%s", tdaemon_snapshot_path(tdaemon_fx.store, "big"));
    mkdir(tdaemon_fx.store, 0755);
    write_big_snapshot(path);
    fd = tdaemon_connect(tdaemon_fx.socket);
    probe_start(&p, &t, tdaemon_fx.socket);
    t0 = now_us();
    for (int i = 0; i < 3; i++) {
        struct json_object *params = json_object_new_object();
        struct json_object *r;
        struct json_object *error = NULL;

        json_object_object_add(params, "store", json_object_new_string(tdaemon_fx.store));
        json_object_object_add(params, "name", json_object_new_string("big"));
        r = tdaemon_call(fd, "show", params);
        json_object_put(params);
        /* more than a reply holds: too_large, after all the work */
        ck_assert(json_object_object_get_ex(r, "error", &error));
        ck_assert_str_eq(tstr(error, "code"), "too_large");
        json_object_put(r);
    }
    show_us = (now_us() - t0) / 3;
    fprintf(stderr, "test_daemon_loop: one show of %u MiB takes %lld ms\n", BIG_BYTES >> 20,
            show_us / 1000);
    probe_stop(&p, t, "during the shows", show_us);
    close(fd);
}
END_TEST

/* A ping whose params hold a map of MAP_KEYS keys, as one frame. */
static char *huge_map_request(size_t *len)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    char key[16];
    char *frame;

    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 3);
    msgpack_pack_str_with_body(&pk, "id", 2);
    msgpack_pack_uint64(&pk, 77);
    msgpack_pack_str_with_body(&pk, "method", 6);
    msgpack_pack_str_with_body(&pk, "ping", 4);
    msgpack_pack_str_with_body(&pk, "params", 6);
    msgpack_pack_map(&pk, 1);
    msgpack_pack_str_with_body(&pk, "keys", 4);
    msgpack_pack_map(&pk, MAP_KEYS);
    for (int i = 0; i < MAP_KEYS; i++) {
        int n = snprintf(key, sizeof(key), "k%07d", i);

        msgpack_pack_str_with_body(&pk, key, (size_t)n);
        msgpack_pack_int(&pk, i);
    }
    *len = 4 + sb.size;
    frame = malloc(*len);
    ck_assert_ptr_nonnull(frame);
    frame[0] = (char)(sb.size >> 24);
    frame[1] = (char)(sb.size >> 16);
    frame[2] = (char)(sb.size >> 8);
    frame[3] = (char)sb.size;
    memcpy(frame + 4, sb.data, sb.size);
    msgpack_sbuffer_destroy(&sb);
    return frame;
}

START_TEST(request_with_a_million_keys)
{
    size_t len = 0;
    char *frame = huge_map_request(&len);
    probe p;
    pthread_t t;
    int fd = tdaemon_connect(tdaemon_fx.socket);
    struct json_object *r = NULL;
    long long t0, request_us;

    probe_start(&p, &t, tdaemon_fx.socket);
    t0 = now_us();
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(tdaemon_send_raw(fd, frame, len), 0);
        ck_assert_int_eq(tdaemon_read(fd, &r, 60000), 0);
        ck_assert(json_object_get_boolean(json_object_object_get(r, "ok")));
        ck_assert_int_eq(json_object_get_int64(json_object_object_get(r, "id")), 77);
        json_object_put(r);
    }
    request_us = (now_us() - t0) / 2;
    fprintf(stderr, "test_daemon_loop: one request of %zu MiB with %d keys takes %lld ms\n",
            len >> 20, MAP_KEYS, request_us / 1000);
    /* the connection stays in order: a ping behind it is answered after it */
    json_object_put(tdaemon_ok(fd, "ping", NULL));
    probe_stop(&p, t, "during the decodes", request_us);
    close(fd);
    free(frame);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("daemon_loop");
    TCase *tc = tdaemon_fixture_case("loop", true, NULL, 120);

    tcase_add_test(tc, show_of_a_huge_snapshot);
    tcase_add_test(tc, request_with_a_million_keys);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
