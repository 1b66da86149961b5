/*
 * util_daemon — start, talk to and stop a real toolscored in tests
 * (see util_daemon.h).
 */
#include "util_daemon.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proto/ts_proto.h"
#include "lib/json/ts_json.h"
#include "lib/snapshot/ts_snapshot.h"
#include "util_test.h"

static unsigned long long next_id = 1000;

static long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *tdaemon_binary(void)
{
    static char path[1024];
    const char *build = getenv("TS_BUILD_DIR");

    snprintf(path, sizeof(path), "%s/toolscored", build != NULL ? build : "build");
    return path;
}

void tdaemon_prepare(tdaemon *d)
{
    char tmpl[] = "/tmp/tsd-test-XXXXXX";

    memset(d, 0, sizeof(*d));
    ck_assert_msg(mkdtemp(tmpl) != NULL, "mkdtemp: %s", strerror(errno));
    snprintf(d->dir, sizeof(d->dir), "%s", tmpl);
    snprintf(d->socket, sizeof(d->socket), "%s/run/toolscored.sock", d->dir);
    snprintf(d->store, sizeof(d->store), "%s/store", d->dir);
    snprintf(d->log, sizeof(d->log), "%s/daemon.log", d->dir);
    snprintf(d->out, sizeof(d->out), "%s/stdout", d->dir);
}

/*
 * Run argv in a child of its own process group, with its output in out_path
 * (or nowhere). The child is killed when the test process exits: a failed
 * assertion ends a test at once, before it could stop what it started.
 */
static pid_t spawn(const char *const *argv, const char *out_path)
{
    pid_t parent = getpid();
    pid_t pid = fork();

    ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
            _exit(127);
        int fd = out_path != NULL ? open(out_path, O_WRONLY | O_CREAT | O_APPEND, 0600)
                                  : open("/dev/null", O_WRONLY);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        setpgid(0, 0);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Wait for pid up to timeout_ms; exit status, 128+sig, or -1 on timeout. */
static int wait_pid(pid_t pid, int timeout_ms)
{
    long long deadline = now_ms() + timeout_ms;
    int status;

    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);

        if (r == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (r < 0)
            return -1;
        if (now_ms() > deadline)
            return -1;
        usleep(5000);
    }
}

int tdaemon_run(const char *const *argv, char *out, size_t outsz, int timeout_ms)
{
    char path[] = "/tmp/tsd-run-XXXXXX";
    int fd = mkstemp(path);
    pid_t pid;
    int status;

    ck_assert(fd >= 0);
    close(fd);
    pid = spawn(argv, path);
    status = wait_pid(pid, timeout_ms);
    if (status < 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    if (out != NULL && outsz > 0) {
        char *text = tdaemon_slurp(path);

        snprintf(out, outsz, "%s", text != NULL ? text : "");
        free(text);
    }
    unlink(path);
    return status;
}

static bool answers_ping(const char *path)
{
    struct json_object *reply = NULL;
    int fd = tdaemon_connect_raw(path);
    bool ok = false;

    if (fd < 0)
        return false;
    struct json_object *hello = json_object_new_object();
    json_object_object_add(hello, "protocol", json_object_new_int(1));
    json_object_object_add(hello, "client", json_object_new_string("test/1"));
    tdaemon_send(fd, 1, "hello", hello);
    json_object_put(hello);
    if (tdaemon_read(fd, &reply, 2000) == 0) {
        struct json_object *okv = NULL;
        ok = json_object_object_get_ex(reply, "ok", &okv) && json_object_get_boolean(okv);
        json_object_put(reply);
    }
    close(fd);
    return ok;
}

void tdaemon_start_wrapped(tdaemon *d, const char *const *prefix, const char *const *extra,
                           int wait_ms)
{
    const char *argv[64];
    size_t n = 0;
    long long deadline;

    for (size_t i = 0; prefix != NULL && prefix[i] != NULL; i++)
        argv[n++] = prefix[i];
    argv[n++] = tdaemon_binary();
    argv[n++] = "--foreground";
    argv[n++] = "--socket";
    argv[n++] = d->socket;
    argv[n++] = "--log-file";
    argv[n++] = d->log;
    argv[n++] = "--log-level";
    argv[n++] = "debug";
    for (size_t i = 0; extra != NULL && extra[i] != NULL && n < 62; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    d->pid = spawn(argv, d->out);
    deadline = now_ms() + wait_ms;
    while (!answers_ping(d->socket)) {
        int status = wait_pid(d->pid, 0);

        if (status >= 0) {
            char *out = tdaemon_slurp(d->out);
            d->pid = 0;
            ck_abort_msg("toolscored exited with %d before serving: %s", status,
                         out != NULL ? out : "");
        }
        if (now_ms() > deadline) {
            tdaemon_kill(d);
            ck_abort_msg("toolscored did not answer on %s within %d ms", d->socket, wait_ms);
        }
        usleep(10000);
    }
}

void tdaemon_start(tdaemon *d, const char *const *extra)
{
    tdaemon_start_wrapped(d, NULL, extra, 20000);
}

int tdaemon_stop(tdaemon *d, int timeout_ms)
{
    int status;

    if (d->pid <= 0)
        return -1;
    kill(d->pid, SIGTERM);
    status = wait_pid(d->pid, timeout_ms);
    if (status < 0)
        tdaemon_kill(d);
    d->pid = 0;
    return status;
}

const char *const tdaemon_valgrind[] = {"valgrind", "-q", "--leak-check=full", "--error-exitcode=1",
                                        NULL};

void tdaemon_stop_ok(tdaemon *d)
{
    tdaemon_stop_ok_within(d, 20000);
}

void tdaemon_stop_ok_within(tdaemon *d, int timeout_ms)
{
    int status = tdaemon_stop(d, timeout_ms);

    if (status != 0) {
        char *out = tdaemon_slurp(d->out);
        ck_abort_msg("toolscored exited with %d: %s", status, out != NULL ? out : "");
    }
}

void tdaemon_kill(tdaemon *d)
{
    if (d->pid <= 0)
        return;
    kill(d->pid, SIGKILL);
    waitpid(d->pid, NULL, 0);
    d->pid = 0;
}

int tdaemon_wait(tdaemon *d, int timeout_ms)
{
    int status = wait_pid(d->pid, timeout_ms);

    if (status >= 0)
        d->pid = 0;
    return status;
}

void tdaemon_cleanup(tdaemon *d)
{
    tdaemon_kill(d);
    if (d->dir[0] == '/') {
        const char *argv[] = {"rm", "-rf", d->dir, NULL};
        tdaemon_run(argv, NULL, 0, 10000);
    }
}

int tdaemon_connect_raw(const char *path)
{
    ts_sockaddr addr;
    int fd;
    int rc;

    if (ts_paths_sockaddr(path, &addr, NULL) < 0)
        return -ENAMETOOLONG;
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        ts_paths_sockaddr_release(&addr);
        return -errno;
    }
    rc = connect(fd, (struct sockaddr *)&addr.addr, addr.len);
    if (rc < 0)
        rc = -errno;
    ts_paths_sockaddr_release(&addr);
    if (rc < 0) {
        close(fd);
        return rc;
    }
    return fd;
}

int tdaemon_connect(const char *path)
{
    int fd = tdaemon_connect_raw(path);
    struct json_object *hello = json_object_new_object();

    ck_assert_msg(fd >= 0, "connect %s: %s", path, strerror(-fd));
    json_object_object_add(hello, "protocol", json_object_new_int(1));
    json_object_object_add(hello, "client", json_object_new_string("test/1"));
    json_object_object_add(hello, "pid", json_object_new_int64(getpid()));
    json_object_put(tdaemon_ok(fd, "hello", hello));
    json_object_put(hello);
    return fd;
}

void tdaemon_serves(const char *path)
{
    int fd = tdaemon_connect(path);

    json_object_put(tdaemon_ok(fd, "ping", NULL));
    close(fd);
}

int tdaemon_send_raw(int fd, const void *data, size_t len)
{
    const char *p = data;

    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int tdaemon_try_send(int fd, unsigned long long id, const char *method, struct json_object *params)
{
    ts_buf buf;
    ts_error err;
    int rc;

    ts_buf_init(&buf, TS_BUF_UNLIMITED);
    rc = ts_message_encode_request(&buf, id, method, params, (size_t)1 << 30, &err);
    ck_assert_msg(rc == 0, "encode %s: %s", method, err.message);
    rc = tdaemon_send_raw(fd, buf.data, buf.len);
    ts_buf_free(&buf);
    return rc;
}

void tdaemon_send(int fd, unsigned long long id, const char *method, struct json_object *params)
{
    int rc = tdaemon_try_send(fd, id, method, params);

    ck_assert_msg(rc == 0, "send %s: %s", method, strerror(-rc));
}

static int read_full(int fd, void *data, size_t len, long long deadline)
{
    char *p = data;

    while (len > 0) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        long long left = deadline - now_ms();
        ssize_t n;

        if (left <= 0 || poll(&pfd, 1, (int)left) == 0)
            return -ETIMEDOUT;
        n = recv(fd, p, len, 0);
        if (n == 0)
            return -EPIPE;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno == ECONNRESET ? -EPIPE : -errno;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int tdaemon_read(int fd, struct json_object **reply, int timeout_ms)
{
    long long deadline = now_ms() + timeout_ms;
    unsigned char header[4];
    unsigned char *payload;
    uint32_t len;
    ts_error err;
    int rc = read_full(fd, header, sizeof(header), deadline);

    if (rc < 0)
        return rc;
    len = ts_frame_get_header(header);
    ck_assert_msg(len > 0 && len <= (1u << 30), "reply frame length %u", len);
    payload = malloc(len);
    ck_assert(payload != NULL);
    rc = read_full(fd, payload, len, deadline);
    if (rc == 0) {
        rc = ts_wire_decode(payload, len, TS_WIRE_REPLY_MAX_DEPTH, reply, &err);
        ck_assert_msg(rc == 0, "reply does not decode: %s", err.message);
    }
    free(payload);
    return rc;
}

struct json_object *tdaemon_call(int fd, const char *method, struct json_object *params)
{
    struct json_object *reply = NULL;
    struct json_object *id = NULL;
    unsigned long long want = ++next_id;
    int rc;

    tdaemon_send(fd, want, method, params);
    rc = tdaemon_read(fd, &reply, 30000);
    ck_assert_msg(rc == 0, "%s: no reply: %s", method, strerror(-rc));
    ck_assert_msg(json_object_object_get_ex(reply, "id", &id) && id != NULL &&
                      (unsigned long long)json_object_get_int64(id) == want,
                  "%s: reply id does not match: %s", method, json_object_to_json_string(reply));
    return reply;
}

struct json_object *tdaemon_ok(int fd, const char *method, struct json_object *params)
{
    struct json_object *reply = tdaemon_call(fd, method, params);
    struct json_object *ok = NULL;
    struct json_object *result = NULL;

    ck_assert_msg(json_object_object_get_ex(reply, "ok", &ok) && json_object_get_boolean(ok),
                  "%s failed: %s", method, json_object_to_json_string(reply));
    json_object_object_get_ex(reply, "result", &result);
    json_object_get(result);
    json_object_put(reply);
    return result;
}

const char *tdaemon_err(int fd, const char *method, struct json_object *params, const char *code)
{
    static char message[2048];
    struct json_object *reply = tdaemon_call(fd, method, params);
    struct json_object *error = NULL;

    ck_assert_msg(json_object_object_get_ex(reply, "error", &error) && error != NULL,
                  "%s: expected error %s, got %s", method, code, json_object_to_json_string(reply));
    ck_assert_msg(strcmp(tstr(error, "code"), code) == 0, "%s: expected error %s, got %s", method,
                  code, json_object_to_json_string(reply));
    snprintf(message, sizeof(message), "%s", tstr(error, "message"));
    json_object_put(reply);
    return message;
}

struct json_object *tjson(const char *text)
{
    struct json_object *v = NULL;
    ts_error err;
    int rc = ts_json_parse(text, strlen(text), 0, &v, &err);

    ck_assert_msg(rc == 0, "bad JSON in test: %s: %s", err.message, text);
    return v;
}

const char *tstr(struct json_object *obj, const char *key)
{
    struct json_object *v = NULL;

    if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_string))
        return "";
    return json_object_get_string(v);
}

bool tdaemon_closed(int fd, int timeout_ms)
{
    long long deadline = now_ms() + timeout_ms;
    char buf[4096];

    for (;;) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        long long left = deadline - now_ms();

        if (left <= 0 || poll(&pfd, 1, (int)left) == 0)
            return false;
        ssize_t n = recv(fd, buf, sizeof(buf), 0);
        if (n == 0 || (n < 0 && errno == ECONNRESET))
            return true;
        if (n < 0 && errno != EINTR)
            return true;
    }
}

char *tdaemon_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    size_t len = 0;
    size_t cap = 0;

    if (f == NULL)
        return NULL;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            data = realloc(data, cap);
            ck_assert(data != NULL);
        }
        size_t n = fread(data + len, 1, 4096, f);
        len += n;
        if (n == 0)
            break;
    }
    fclose(f);
    data[len] = '\0';
    return data;
}

const char *tdaemon_snapshot_path(const char *dir, const char *name)
{
    static char path[1024];
    char file[TS_FILENAME_MAX];

    ck_assert(ts_name_to_filename(name, strlen(name), file, sizeof(file), NULL) == 0);
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    return path;
}

void tdaemon_write_snapshot(const char *dir, const char *name, const char *tool, bool approved)
{
    const char *path = tdaemon_snapshot_path(dir, name);
    char text[1024];
    FILE *f;

    snprintf(text, sizeof(text),
             "{\n  \"schema_version\": 1,\n  \"name\": \"%s\",\n  \"created_at\": "
             "\"2025-06-01T12:00:00+00:00\",\n  \"updated_at\": \"2025-06-01T12:00:00+00:00\",\n"
             "  \"toolscore_version\": \"1.8.1\",\n  \"approved\": %s,\n  \"source\": "
             "\"pytest\",\n  \"calls\": [\n    {\n      \"tool\": \"%s\",\n      \"args\": {}\n"
             "    }\n  ]\n}\n",
             name, approved ? "true" : "false", tool);
    unlink(path);
    f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* ---- the fixture ------------------------------------------------------ */

tdaemon tdaemon_fx;
int tdaemon_fx_conn = -1;
static bool fx_start;
static const char *const *fx_args;

static void fx_setup(void)
{
    tdaemon_prepare(&tdaemon_fx);
    tdaemon_fx_conn = -1;
    if (!fx_start)
        return;
    tdaemon_start(&tdaemon_fx, fx_args);
    tdaemon_fx_conn = tdaemon_connect(tdaemon_fx.socket);
}

static void fx_teardown(void)
{
    if (tdaemon_fx_conn >= 0)
        close(tdaemon_fx_conn);
    tdaemon_fx_conn = -1;
    if (fx_start)
        tdaemon_stop_ok(&tdaemon_fx);
    tdaemon_cleanup(&tdaemon_fx);
}

TCase *tdaemon_fixture_case(const char *name, bool start, const char *const *args, int timeout_s)
{
    TCase *tc = tcase_create(name);

    fx_start = start;
    fx_args = args;
    tcase_add_checked_fixture(tc, fx_setup, fx_teardown);
    tcase_set_timeout(tc, timeout_s);
    return tc;
}

const char *tdaemon_fx_write_config(const char *text)
{
    static char path[600];

    snprintf(path, sizeof(path), "%s/config.json", tdaemon_fx.dir);
    if (text == NULL)
        unlink(path);
    else
        util_write_file(path, text, strlen(text));
    return path;
}

struct json_object *tdaemon_fx_check_params(const char *store, const char *name, const char *actual,
                                            const char *extra)
{
    struct json_object *p = extra != NULL ? tjson(extra) : json_object_new_object();

    json_object_object_add(p, "store", json_object_new_string(store ? store : tdaemon_fx.store));
    json_object_object_add(p, "name", json_object_new_string(name));
    json_object_object_add(p, "actual", tjson(actual));
    return p;
}

struct json_object *tdaemon_fx_check_ok(const char *name, const char *actual, const char *extra)
{
    struct json_object *p = tdaemon_fx_check_params(NULL, name, actual, extra);
    struct json_object *r = tdaemon_ok(tdaemon_fx_conn, "check", p);

    json_object_put(p);
    return r;
}

const char *tdaemon_fx_outcome(const char *name, const char *actual, const char *extra)
{
    static char outcome[64];
    struct json_object *r = tdaemon_fx_check_ok(name, actual, extra);

    snprintf(outcome, sizeof(outcome), "%s", tstr(r, "outcome"));
    json_object_put(r);
    return outcome;
}

int tdaemon_fx_log_count(const char *text)
{
    char *log = tdaemon_slurp(tdaemon_fx.log);
    int n = 0;

    for (const char *p = log; p != NULL && (p = strstr(p, text)) != NULL; p++)
        n++;
    free(log);
    return n;
}

void tdaemon_fx_approve(const char *name)
{
    struct json_object *p = json_object_new_object(), *names = json_object_new_array(), *r;

    json_object_object_add(p, "store", json_object_new_string(tdaemon_fx.store));
    json_object_array_add(names, json_object_new_string(name));
    json_object_object_add(p, "names", names);
    r = tdaemon_ok(tdaemon_fx_conn, "approve", p);
    json_object_put(r);
    json_object_put(p);
}

void tdaemon_asan_runtime(char *out, size_t outsz)
{
    FILE *fp = fopen("/proc/self/maps", "r");
    char line[4096];

    out[0] = '\0';
    if (fp == NULL)
        return;
    while (fgets(line, sizeof(line), fp) != NULL) {
        char *path = strchr(line, '/');

        if (path == NULL || strstr(path, "/libasan.so") == NULL)
            continue;
        path[strcspn(path, "\n")] = '\0';
        snprintf(out, outsz, "%s", path);
        break;
    }
    fclose(fp);
}

void tdaemon_preload(const char *shim, char *out, size_t outsz)
{
    const char *build = getenv("TS_BUILD_DIR");
    char path[600], asan[600];

    snprintf(path, sizeof(path), "%s/tests/%s", build != NULL ? build : "build", shim);
    ck_assert_msg(access(path, R_OK) == 0, "%s missing (make builds it)", path);
    tdaemon_asan_runtime(asan, sizeof(asan));
    snprintf(out, outsz, "LD_PRELOAD=%s%s%s", asan, asan[0] ? " " : "", path);
}
