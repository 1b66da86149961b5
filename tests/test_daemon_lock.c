/*
 * test_daemon_lock — one store, one daemon: two daemons on different
 * sockets asked for one store. The first to touch it holds its lock; the
 * other answers store_busy naming the holder's socket (and touches nothing
 * of the store); the client library sends the request there, so under 300
 * names checked through both at once every name is CREATED exactly once,
 * and no approval is undone.
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/toolscore_client.h"
#include "util_daemon.h"
#include "util_test.h"

#define NAMES 300
#define PAIRS 4
#define APPROVALS 72

static tdaemon a, b;
static char store[700];
static const char calls_text[] = "[{\"tool\": \"pay\", \"args\": {\"to\": \"alice\", \"n\": 1}}]";

static void setup(void)
{
    char proj[600], preload[1400];

    tdaemon_prepare(&a);
    tdaemon_prepare(&b);
    tdaemon_start(&a, NULL);
    /* b's disk is slow (every file sync takes 30 ms): without the lock, a
     * CREATED it decided before a created and approved the file would
     * land after the approval and undo it */
    tdaemon_preload("shim_fsync.so", preload, sizeof(preload));
    const char *prefix[] = {"env", preload, "TS_SHIM_FSYNC_SLOW_MS=30", NULL};
    tdaemon_start_wrapped(&b, prefix, NULL, 10000);
    snprintf(proj, sizeof(proj), "%s/proj", a.dir);
    ck_assert_int_eq(mkdir(proj, 0755), 0);
    snprintf(store, sizeof(store), "%s/.toolscore/snapshots", proj);
}

static void teardown(void)
{
    if (a.pid > 0)
        tdaemon_stop_ok(&a);
    if (b.pid > 0)
        tdaemon_stop_ok(&b);
    tdaemon_cleanup(&a);
    tdaemon_cleanup(&b);
}

static struct json_object *check_params(const char *name)
{
    struct json_object *p = json_object_new_object();

    json_object_object_add(p, "store", json_object_new_string(store));
    json_object_object_add(p, "name", json_object_new_string(name));
    json_object_object_add(p, "actual", tjson(calls_text));
    return p;
}

/* tdaemon_ok, params taken over. */
static struct json_object *ok_put(int fd, const char *method, struct json_object *params)
{
    struct json_object *r = tdaemon_ok(fd, method, params);

    json_object_put(params);
    return r;
}

/* The error of a raw request on fd (a new reference), which must fail. */
static struct json_object *raw_error(int fd, const char *method, struct json_object *params)
{
    struct json_object *r = tdaemon_call(fd, method, params);
    struct json_object *error = NULL;

    json_object_put(params);
    ck_assert_msg(json_object_object_get_ex(r, "error", &error), "%s succeeded",
                  json_object_to_json_string(r));
    json_object_get(error);
    json_object_put(r);
    return error;
}

START_TEST(second_daemon_answers_store_busy)
{
    int fa = tdaemon_connect(a.socket);
    int fb = tdaemon_connect(b.socket);
    struct json_object *e;
    struct json_object *p;
    char lock[800];
    char want[700];
    char *text;

    json_object_put(ok_put(fa, "check", check_params("first")));
    snprintf(lock, sizeof(lock), "%s/proj/.toolscore/snapshots.lock", a.dir);
    text = util_read_file(lock, NULL);
    snprintf(want, sizeof(want), "%ld\n%s\n", (long)a.pid, a.socket);
    ck_assert_str_eq(text, want);
    free(text);
    /* every method on the store, through b: store_busy with a's socket */
    e = raw_error(fb, "check", check_params("second"));
    ck_assert_str_eq(tstr(e, "code"), "store_busy");
    ck_assert_str_eq(tstr(e, "socket"), a.socket);
    ck_assert_ptr_nonnull(strstr(tstr(e, "message"), a.socket));
    json_object_put(e);
    p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string(store));
    e = raw_error(fb, "list", json_object_get(p));
    ck_assert_str_eq(tstr(e, "code"), "store_busy");
    json_object_put(e);
    e = raw_error(fb, "run.open", p);
    ck_assert_str_eq(tstr(e, "code"), "store_busy");
    ck_assert_str_eq(tstr(e, "socket"), a.socket);
    json_object_put(e);
    /* b wrote nothing */
    ck_assert_int_eq(util_count_entries(store, "second-"), 0);
    /* once a is gone, b takes the store */
    close(fa);
    tdaemon_stop_ok(&a);
    a.pid = 0;
    json_object_put(ok_put(fb, "check", check_params("second")));
    text = util_read_file(lock, NULL);
    snprintf(want, sizeof(want), "%ld\n%s\n", (long)b.pid, b.socket);
    ck_assert_str_eq(text, want);
    free(text);
    close(fb);
}
END_TEST

/* A store without .toolscore: the lock is inside the root. */
START_TEST(custom_root_lock)
{
    int fa = tdaemon_connect(a.socket);
    int fb = tdaemon_connect(b.socket);
    struct json_object *p = json_object_new_object();
    struct json_object *e;
    char lock[800];

    json_object_object_add(p, "store", json_object_new_string(a.store));
    json_object_object_add(p, "name", json_object_new_string("x"));
    json_object_object_add(p, "actual", tjson(calls_text));
    json_object_put(tdaemon_ok(fb, "check", p));
    snprintf(lock, sizeof(lock), "%s/.toolscored.lock", a.store);
    ck_assert_int_eq(access(lock, F_OK), 0);
    e = raw_error(fa, "check", p);
    ck_assert_str_eq(tstr(e, "code"), "store_busy");
    ck_assert_str_eq(tstr(e, "socket"), b.socket);
    json_object_put(e);
    /* the listing knows nothing of the lock file */
    p = json_object_new_object();
    json_object_object_add(p, "store", json_object_new_string(a.store));
    e = ok_put(fb, "list", p);
    ck_assert_int_eq(json_object_array_length(json_object_object_get(e, "problems")), 0);
    ck_assert_int_eq(json_object_array_length(json_object_object_get(e, "snapshots")), 1);
    json_object_put(e);
    close(fa);
    close(fb);
}
END_TEST

/* One client thread: its daemon, the names it checks, what it saw. */
typedef struct worker {
    const char *socket;
    int first, count;            /* names first .. first + count - 1 */
    bool approve;                /* approve each name right after checking it */
    pthread_barrier_t *together; /* the pair meets here before each name */
    char outcomes[NAMES][32];
    char ended_on[512]; /* the socket its connection ended on */
    char error[1200];
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    ts_client_options o;
    ts_client *c = NULL;
    ts_check_args *args = ts_check_args_new();
    struct json_object *calls = tjson(calls_text);
    ts_error err;

    ts_client_options_init(&o);
    o.socket_path = w->socket;
    o.autostart = false;
    if (ts_client_connect(&o, &c, &err) < 0) {
        snprintf(w->error, sizeof(w->error), "connect: %s", err.message);
        /* the other of the pair must not wait for this one */
        for (int i = 0; i < w->count; i++)
            pthread_barrier_wait(w->together);
        goto done;
    }
    ts_check_args_set_store(args, store);
    ts_check_args_set_actual(args, calls);
    for (int i = w->first; i < w->first + w->count; i++) {
        char name[32];
        ts_check_outcome out;

        snprintf(name, sizeof(name), "name_%03d", i);
        ts_check_args_set_name(args, name);
        pthread_barrier_wait(w->together);
        if (ts_client_check_outcome(c, args, &out, &err) < 0) {
            snprintf(w->error, sizeof(w->error), "check %s: %s: %s", name, err.code, err.message);
            for (int k = i + 1; k < w->first + w->count; k++)
                pthread_barrier_wait(w->together);
            goto done;
        }
        snprintf(w->outcomes[i], sizeof(w->outcomes[i]), "%s", out.outcome);
        ts_check_outcome_free(&out);
        if (w->approve) {
            const char *names[] = {name};

            if (ts_client_approve(c, store, names, 1, false, NULL, &err) < 0) {
                snprintf(w->error, sizeof(w->error), "approve %s: %s", name, err.message);
                for (int k = i + 1; k < w->first + w->count; k++)
                    pthread_barrier_wait(w->together);
                goto done;
            }
        }
    }
    snprintf(w->ended_on, sizeof(w->ended_on), "%s", ts_client_socket_path(c));
done:
    ts_check_args_free(args);
    json_object_put(calls);
    ts_client_close(c);
    return NULL;
}

static worker workers[2 * PAIRS];
static pthread_barrier_t barriers[PAIRS];

/* PAIRS pairs of threads, one of each on a and on b, each pair going
 * through the same names, starting each name together. */
static void run_pairs(int names, bool approve_on_a)
{
    pthread_t t[2 * PAIRS];
    int per = names / PAIRS;

    memset(workers, 0, sizeof(workers));
    for (int i = 0; i < PAIRS; i++)
        pthread_barrier_init(&barriers[i], NULL, 2);
    for (int i = 0; i < 2 * PAIRS; i++) {
        workers[i].socket = i % 2 == 0 ? a.socket : b.socket;
        workers[i].first = (i / 2) * per;
        workers[i].count = per;
        workers[i].approve = approve_on_a && i % 2 == 0;
        workers[i].together = &barriers[i / 2];
    }
    for (int i = 0; i < 2 * PAIRS; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, work, &workers[i]), 0);
    for (int i = 0; i < 2 * PAIRS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < PAIRS; i++)
        pthread_barrier_destroy(&barriers[i]);
    for (int i = 0; i < 2 * PAIRS; i++)
        ck_assert_msg(workers[i].error[0] == '\0', "worker %d: %s", i, workers[i].error);
}

START_TEST(concurrent_names_created_once)
{
    int created = 0;
    const char *holder;

    run_pairs(NAMES, false);
    for (int n = 0; n < NAMES; n++) {
        int here = 0;

        for (int i = 0; i < 2 * PAIRS; i++)
            here += strcmp(workers[i].outcomes[n], "CREATED") == 0;
        ck_assert_msg(here == 1, "name_%03d was CREATED %d times", n, here);
        created += here;
    }
    ck_assert_int_eq(created, NAMES);
    ck_assert_int_eq(util_count_entries(store, "name_"), NAMES);
    /* every client ended on the daemon holding the store */
    holder = workers[0].ended_on;
    for (int i = 0; i < 2 * PAIRS; i++)
        ck_assert_str_eq(workers[i].ended_on, holder);
    ck_assert(strcmp(holder, a.socket) == 0 || strcmp(holder, b.socket) == 0);
}
END_TEST

START_TEST(approvals_are_not_undone)
{
    int fa;

    run_pairs(APPROVALS, true);
    fa = tdaemon_connect(a.socket);
    for (int n = 0; n < APPROVALS; n++) {
        char name[32];
        struct json_object *p = json_object_new_object();
        struct json_object *r;
        struct json_object *snap = NULL;
        struct json_object *approved = NULL;

        snprintf(name, sizeof(name), "name_%03d", n);
        json_object_object_add(p, "store", json_object_new_string(store));
        json_object_object_add(p, "name", json_object_new_string(name));
        r = tdaemon_call(fa, "show", p);
        json_object_put(p);
        if (json_object_object_get_ex(r, "error", &snap)) {
            /* a is not the holder: ask b */
            int fb = tdaemon_connect(b.socket);

            json_object_put(r);
            p = json_object_new_object();
            json_object_object_add(p, "store", json_object_new_string(store));
            json_object_object_add(p, "name", json_object_new_string(name));
            r = ok_put(fb, "show", p);
            close(fb);
        }
        ck_assert(json_object_object_get_ex(
            json_object_object_get(r, "result") != NULL ? json_object_object_get(r, "result") : r,
            "snapshot", &snap));
        ck_assert(json_object_object_get_ex(snap, "approved", &approved));
        ck_assert_msg(json_object_get_boolean(approved), "%s lost its approval", name);
        json_object_put(r);
    }
    close(fa);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("daemon_lock");
    TCase *tc = tcase_create("two daemons");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, second_daemon_answers_store_busy);
    tcase_add_test(tc, custom_root_lock);
    tcase_add_test(tc, concurrent_names_created_once);
    tcase_add_test(tc, approvals_are_not_undone);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
