/*
 * tspy_module — toolscored._native: the Client type (one connection to
 * toolscored through libtoolscore-client, linked into this module) and its
 * methods, one per protocol method the Python package uses
 * (docs/protocol.md, "Methods"). Arguments are checked and converted with
 * the GIL held; the request itself runs without it, under the client's own
 * lock, so other Python threads run meanwhile and two threads never share
 * the connection at once. The connection is made on first use and made
 * again by the library after a fork or a broken connection.
 */
#include "tspy.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/snapshot/ts_snapshot.h"
#include "proto/ts_proto.h"
#include "lib/store/ts_store.h"
#include "ts_version.h"

typedef struct tspy_client {
    PyObject_HEAD ts_client *client;
    char *socket; /* asked for, or NULL: $TOOLSCORE_SOCKET or the default */
    char *client_name;
    char *tsctl; /* how the user runs tsctl, for the commands checks print; NULL: "tsctl" */
    bool autostart;
    int connect_timeout_ms;
    pid_t pid;              /* the process that made lock */
    unsigned long fork_gen; /* fork_generation then */
    pthread_mutex_t lock;
    ts_check_args *check_args; /* reused by every check, under lock */
} tspy_client;

/* One request: fn runs on the connection without the GIL. */
typedef int (*tspy_op_fn)(ts_client *c, void *arg, struct json_object **res, ts_error *err);

/* Bumped in every child made by fork() (a pthread_atfork child handler), so
 * that a lock made before a fork is seen without a getpid() per request;
 * when the handler could not be registered, pids are compared. */
static atomic_ulong fork_generation;
static bool forks_tracked;

static void on_fork_child(void)
{
    atomic_fetch_add_explicit(&fork_generation, 1, memory_order_relaxed);
}

static void client_lock(tspy_client *self)
{
    unsigned long gen = atomic_load_explicit(&fork_generation, memory_order_relaxed);

    /* A forked child has one thread: a lock another thread held at the
     * fork is made anew instead of waited for. */
    if (self->fork_gen != gen || (!forks_tracked && self->pid != getpid())) {
        pthread_mutex_init(&self->lock, NULL);
        self->pid = getpid();
        self->fork_gen = gen;
    }
    pthread_mutex_lock(&self->lock);
}

static int client_connect(tspy_client *self, ts_error *err)
{
    ts_client_options o;

    if (self->client != NULL)
        return 0;
    ts_client_options_init(&o);
    o.socket_path = self->socket;
    o.client_name = self->client_name;
    o.autostart = self->autostart;
    o.connect_timeout_ms = self->connect_timeout_ms;
    return ts_client_connect(&o, &self->client, err);
}

/* The socket this client talks to, for error messages. */
static const char *client_socket(tspy_client *self, char *buf, size_t bufsz)
{
    ts_error err;

    if (self->client != NULL)
        return ts_client_socket_path(self->client);
    if (self->socket != NULL)
        return self->socket;
    if (ts_client_default_socket(buf, bufsz, &err) == 0)
        return buf;
    return NULL;
}

/* Run fn on the connection (connecting first when needed); the result as
 * a Python value, or NULL with the matching exception set. */
static PyObject *run_op(tspy_client *self, tspy_op_fn fn, void *arg)
{
    struct json_object *res = NULL;
    ts_error err;
    char sockbuf[4096];
    const char *sock;
    PyObject *out;
    int rc;

    memset(&err, 0, sizeof(err));
    Py_BEGIN_ALLOW_THREADS;
    client_lock(self);
    rc = client_connect(self, &err);
    if (rc == 0)
        rc = fn(self->client, arg, &res, &err);
    pthread_mutex_unlock(&self->lock);
    Py_END_ALLOW_THREADS;
    if (rc < 0) {
        sock = client_socket(self, sockbuf, sizeof(sockbuf));
        return tspy_raise(&err, sock);
    }
    out = tspy_from_json(res);
    json_object_put(res);
    return out;
}

/* ---- the type ------------------------------------------------------- */

static int client_init(tspy_client *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"socket",      "autostart", "connect_timeout_ms",
                             "client_name", "tsctl",     NULL};
    const char *socket = NULL;
    const char *name = "toolscored-python/" TS_VERSION;
    const char *tsctl = NULL;
    int autostart = 1;
    int timeout = 5000;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|z$pizz:Client", kwlist, &socket, &autostart,
                                     &timeout, &name, &tsctl))
        return -1;
    if (socket != NULL && socket[0] == '\0')
        socket = NULL;
    if (timeout < 0) {
        PyErr_SetString(PyExc_ValueError, "connect_timeout_ms must not be negative");
        return -1;
    }
    free(self->socket);
    free(self->client_name);
    free(self->tsctl);
    self->socket = socket != NULL ? strdup(socket) : NULL;
    self->client_name = name != NULL ? strdup(name) : NULL;
    self->tsctl = tsctl != NULL ? strdup(tsctl) : NULL;
    if ((socket != NULL && self->socket == NULL) || (name != NULL && self->client_name == NULL) ||
        (tsctl != NULL && self->tsctl == NULL)) {
        PyErr_NoMemory();
        return -1;
    }
    self->autostart = autostart != 0;
    self->connect_timeout_ms = timeout;
    return 0;
}

static PyObject *client_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    tspy_client *self = (tspy_client *)type->tp_alloc(type, 0);

    (void)args;
    (void)kwds;
    if (self == NULL)
        return NULL;
    self->autostart = true;
    self->connect_timeout_ms = 5000;
    self->pid = getpid();
    self->fork_gen = atomic_load_explicit(&fork_generation, memory_order_relaxed);
    pthread_mutex_init(&self->lock, NULL);
    return (PyObject *)self;
}

static void client_dealloc(tspy_client *self)
{
    ts_client_close(self->client);
    ts_check_args_free(self->check_args);
    free(self->socket);
    free(self->client_name);
    free(self->tsctl);
    pthread_mutex_destroy(&self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *client_close_method(tspy_client *self, PyObject *unused)
{
    (void)unused;
    Py_BEGIN_ALLOW_THREADS;
    client_lock(self);
    ts_client_close(self->client);
    self->client = NULL;
    pthread_mutex_unlock(&self->lock);
    Py_END_ALLOW_THREADS;
    Py_RETURN_NONE;
}

static PyObject *client_get_socket(tspy_client *self, void *closure)
{
    char buf[4096];
    const char *s = client_socket(self, buf, sizeof(buf));

    (void)closure;
    if (s == NULL)
        Py_RETURN_NONE;
    return PyUnicode_DecodeFSDefault(s);
}

/* ---- check ---------------------------------------------------------- */

/* A check: its arguments, and where the result's bytes go. */
typedef struct check_op {
    tspy_client *self;
    const tspy_check_params *p;
    ts_buf result;
} check_op;

static int op_check(ts_client *c, void *arg, struct json_object **res, ts_error *err)
{
    check_op *op = arg;

    *res = NULL;
    if (op->self->check_args == NULL && (op->self->check_args = ts_check_args_new()) == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    return tspy_check_call(c, op->self->check_args, op->p, &op->result, err);
}

static PyObject *client_check(tspy_client *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"store",  "name",  "actual", "format",        "min_score", "weights",
                             "strict", "ci",    "update", "allow_pending", "run",       "test",
                             "color",  "rules", "width",  "json_diff",     NULL};
    tspy_check_params p;
    check_op op;
    PyObject *actual;
    PyObject *weights = Py_None;
    PyObject *rules = Py_None;
    ts_buf packed;
    struct json_object *jweights = NULL;
    struct json_object *jrules = NULL;
    int strict = 0, ci = 0, update = 0, allow_pending = 0, color = 0, json_diff = 1;
    int width = 0;
    PyObject *out;

    memset(&p, 0, sizeof(p));
    p.min_score = 1.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "ssO|$zdOppppzzpOip:check", kwlist, &p.store,
                                     &p.name, &actual, &p.format, &p.min_score, &weights, &strict,
                                     &ci, &update, &allow_pending, &p.run, &p.test, &color, &rules,
                                     &width, &json_diff))
        return NULL;
    if (width < 0 || width > 65535) {
        PyErr_Format(PyExc_ValueError, "width must be 0 to 65535 columns, not %d", width);
        return NULL;
    }
    if (actual == Py_None)
        return tspy_raise_format("actual is None: pass the agent's response or a list of "
                                 "{\"tool\", \"args\"} calls");
    if (weights != Py_None && !PyDict_Check(weights)) {
        PyErr_Format(PyExc_TypeError, "weights must be a dict or None, not '%s'",
                     Py_TYPE(weights)->tp_name);
        return NULL;
    }
    if (rules != Py_None && !PyDict_Check(rules)) {
        PyErr_Format(PyExc_TypeError, "rules must be a dict or None, not '%s'",
                     Py_TYPE(rules)->tp_name);
        return NULL;
    }
    ts_buf_init(&packed, TS_BUF_UNLIMITED);
    if (tspy_pack(actual, "actual", &packed) < 0) {
        ts_buf_free(&packed);
        return NULL;
    }
    if ((weights != Py_None && tspy_to_json(weights, "weights", &jweights) < 0) ||
        (rules != Py_None && tspy_to_json(rules, "rules", &jrules) < 0)) {
        ts_buf_free(&packed);
        json_object_put(jweights);
        return NULL;
    }
    p.actual = packed.data;
    p.actual_len = packed.len;
    p.weights = jweights;
    p.rules = jrules;
    p.strict = strict;
    p.ci = ci;
    p.update = update;
    p.allow_pending = allow_pending;
    p.color = color;
    p.width = (unsigned)width;
    p.json_diff = json_diff;
    op.self = self;
    op.p = &p;
    p.tsctl = self->tsctl;
    ts_buf_init(&op.result, TS_BUF_UNLIMITED);
    out = run_op(self, op_check, &op);
    if (out == Py_None) {
        Py_DECREF(out);
        out = tspy_from_msgpack(op.result.data, op.result.len);
    }
    ts_buf_free(&op.result);
    ts_buf_free(&packed);
    json_object_put(jweights);
    json_object_put(jrules);
    return out;
}

/* ---- runs, listing and the rest -------------------------------------- */

typedef struct op_args {
    const char *store;
    const char *name; /* a snapshot name, a run id or a label */
    const char *run;
    bool flag;
    const char *const *names;
    size_t count;
} op_args;

static int op_run_open(ts_client *c, void *arg, struct json_object **res, ts_error *err)
{
    const op_args *a = arg;

    return ts_client_run_open(c, a->store, a->name, res, err);
}

static int op_run_join(ts_client *c, void *arg, struct json_object **res, ts_error *err)
{
    return ts_client_run_join(c, ((const op_args *)arg)->run, res, err);
}

static int op_run_close(ts_client *c, void *arg, struct json_object **res, ts_error *err)
{
    return ts_client_run_close(c, ((const op_args *)arg)->run, res, err);
}

static int op_run_partial(ts_client *c, void *arg, struct json_object **res, ts_error *err)
{
    const op_args *a = arg;

    *res = NULL;
    return ts_client_run_partial(c, a->run, a->names, a->count, err);
}

/* run.report: the text comes back as a JSON string for tspy_from_json. */
static int op_run_report(ts_client *c, void *arg, struct json_object **res, ts_error *err)
{
    const op_args *a = arg;
    char *text = NULL;
    size_t len = 0;
    int rc = ts_client_run_report(c, a->run, a->name, &text, &len, err);

    if (rc == 0) {
        *res = json_object_new_string_len(text, (int)len);
        free(text);
        if (*res == NULL)
            rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    return rc;
}

static int op_run_summary(ts_client *c, void *arg, struct json_object **res, ts_error *err)
{
    return ts_client_run_summary(c, ((const op_args *)arg)->run, res, err);
}

static int op_orphans(ts_client *c, void *arg, struct json_object **res, ts_error *err)
{
    const op_args *a = arg;

    return ts_client_orphans(c, a->store, a->run, res, err);
}

static int op_list(ts_client *c, void *arg, struct json_object **res, ts_error *err)
{
    const op_args *a = arg;

    return ts_client_list(c, a->store, a->flag, res, err);
}

static int op_show(ts_client *c, void *arg, struct json_object **res, ts_error *err)
{
    const op_args *a = arg;

    return ts_client_show(c, a->store, a->name, res, err);
}

static int op_rm(ts_client *c, void *arg, struct json_object **res, ts_error *err)
{
    const op_args *a = arg;

    return ts_client_rm(c, a->store, a->name, res, err);
}

/* save: the snapshot converted beforehand (with the GIL). */
typedef struct save_args {
    const char *store;
    const struct json_object *snapshot;
} save_args;

static int op_save(ts_client *c, void *arg, struct json_object **res, ts_error *err)
{
    const save_args *a = arg;

    return ts_client_save(c, a->store, a->snapshot, res, err);
}

static int op_approve(ts_client *c, void *arg, struct json_object **res, ts_error *err)
{
    const op_args *a = arg;

    return ts_client_approve(c, a->store, a->names, a->count, a->flag, res, err);
}

static int op_status(ts_client *c, void *arg, struct json_object **res, ts_error *err)
{
    (void)arg;
    return ts_client_status(c, res, err);
}

static int op_ping(ts_client *c, void *arg, struct json_object **res, ts_error *err)
{
    (void)arg;
    *res = NULL;
    return ts_client_ping(c, err);
}

static PyObject *client_run_open(tspy_client *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"store", "label", NULL};
    op_args a = {0};

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "s|z:run_open", kwlist, &a.store, &a.name))
        return NULL;
    return run_op(self, op_run_open, &a);
}

/* A method of one run id: run_join, run_close, run_summary. */
static PyObject *run_method(tspy_client *self, PyObject *args, const char *fmt, tspy_op_fn fn)
{
    op_args a = {0};

    if (!PyArg_ParseTuple(args, fmt, &a.run))
        return NULL;
    return run_op(self, fn, &a);
}

static PyObject *client_run_join(tspy_client *self, PyObject *args)
{
    return run_method(self, args, "s:run_join", op_run_join);
}

static PyObject *client_run_close(tspy_client *self, PyObject *args)
{
    return run_method(self, args, "s:run_close", op_run_close);
}

static PyObject *client_run_summary(tspy_client *self, PyObject *args)
{
    return run_method(self, args, "s:run_summary", op_run_summary);
}

static PyObject *client_orphans(tspy_client *self, PyObject *args)
{
    op_args a = {0};

    if (!PyArg_ParseTuple(args, "ss:orphans", &a.store, &a.run))
        return NULL;
    return run_op(self, op_orphans, &a);
}

static PyObject *client_list(tspy_client *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"store", "pending", NULL};
    op_args a = {0};
    int pending = 0;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "s|$p:list", kwlist, &a.store, &pending))
        return NULL;
    a.flag = pending;
    return run_op(self, op_list, &a);
}

static PyObject *client_show(tspy_client *self, PyObject *args)
{
    op_args a = {0};

    if (!PyArg_ParseTuple(args, "ss:show", &a.store, &a.name))
        return NULL;
    return run_op(self, op_show, &a);
}

static PyObject *client_rm(tspy_client *self, PyObject *args)
{
    op_args a = {0};

    if (!PyArg_ParseTuple(args, "ss:rm", &a.store, &a.name))
        return NULL;
    return run_op(self, op_rm, &a);
}

static PyObject *client_save(tspy_client *self, PyObject *args)
{
    save_args a = {0};
    PyObject *snapshot;
    struct json_object *j = NULL;
    PyObject *out;

    if (!PyArg_ParseTuple(args, "sO!:save", &a.store, &PyDict_Type, &snapshot))
        return NULL;
    if (tspy_to_json(snapshot, "snapshot", &j) < 0)
        return NULL;
    a.snapshot = j;
    out = run_op(self, op_save, &a);
    json_object_put(j);
    return out;
}

/*
 * obj (a list or tuple of str, named what in errors) as a NUL-ended array of
 * UTF-8 strings borrowed from it: *seq holds the references (Py_XDECREF it)
 * and *list the array (PyMem_Free it), also on failure. -1 with a Python
 * error set (TypeError for one str or an item that is not a str).
 */
static int str_list(PyObject *obj, const char *what, PyObject **seq, const char ***list, size_t *n)
{
    *seq = NULL;
    *list = NULL;
    if (PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be a list of str, not one str", what);
        return -1;
    }
    *seq = PySequence_Fast(obj, what);
    if (*seq == NULL) {
        PyErr_Format(PyExc_TypeError, "%s must be a list of str", what);
        return -1;
    }
    *n = (size_t)PySequence_Fast_GET_SIZE(*seq);
    *list = PyMem_Calloc(*n + 1, sizeof(**list));
    if (*list == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < *n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(*seq, (Py_ssize_t)i);

        if (!PyUnicode_Check(item)) {
            PyErr_Format(PyExc_TypeError, "%s[%zu] is a '%s', not a str", what, i,
                         Py_TYPE(item)->tp_name);
            return -1;
        }
        if (((*list)[i] = PyUnicode_AsUTF8(item)) == NULL)
            return -1;
    }
    return 0;
}

static PyObject *client_approve(tspy_client *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"store", "names", "all", NULL};
    op_args a = {0};
    PyObject *names = NULL;
    PyObject *seq = NULL;
    const char **list = NULL;
    int all = 0;
    PyObject *out = NULL;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "s|O$p:approve", kwlist, &a.store, &names, &all))
        return NULL;
    if (names != NULL && names != Py_None) {
        if (str_list(names, "names", &seq, &list, &a.count) < 0)
            goto out;
        a.names = list;
    }
    a.flag = all;
    out = run_op(self, op_approve, &a);
out:
    PyMem_Free(list);
    Py_XDECREF(seq);
    return out;
}

static PyObject *client_run_partial(tspy_client *self, PyObject *args)
{
    op_args a = {0};
    PyObject *reasons = NULL;
    PyObject *seq = NULL;
    const char **list = NULL;
    PyObject *out = NULL;

    if (!PyArg_ParseTuple(args, "sO:run_partial", &a.run, &reasons))
        return NULL;
    if (str_list(reasons, "reasons", &seq, &list, &a.count) == 0) {
        a.names = list;
        out = run_op(self, op_run_partial, &a);
    }
    PyMem_Free(list);
    Py_XDECREF(seq);
    return out;
}

static PyObject *client_run_report(tspy_client *self, PyObject *args)
{
    op_args a = {0};

    if (!PyArg_ParseTuple(args, "ss:run_report", &a.run, &a.name))
        return NULL;
    return run_op(self, op_run_report, &a);
}

static PyObject *client_status(tspy_client *self, PyObject *unused)
{
    (void)unused;
    return run_op(self, op_status, NULL);
}

static PyObject *client_ping(tspy_client *self, PyObject *unused)
{
    (void)unused;
    return run_op(self, op_ping, NULL);
}

#define KW_METHOD(fn) ((PyCFunction)(void (*)(void))(fn))

static PyMethodDef client_methods[] = {
    {"check", KW_METHOD(client_check), METH_VARARGS | METH_KEYWORDS,
     "check(store, name, actual, *, format=None, min_score=1.0, weights=None, strict=False, "
     "ci=False, update=False, allow_pending=False, run=None, test=None, color=False, "
     "rules=None, width=0, json_diff=True) -> dict\n"
     "One pass of the snapshot state machine; the daemon's check result."},
    {"run_open", KW_METHOD(client_run_open), METH_VARARGS | METH_KEYWORDS,
     "run_open(store, label=None) -> {'run': id}"},
    {"run_join", (PyCFunction)client_run_join, METH_VARARGS, "run_join(run) -> {run, store}"},
    {"run_close", (PyCFunction)client_run_close, METH_VARARGS,
     "run_close(run) -> the run's summary"},
    {"run_partial", (PyCFunction)client_run_partial, METH_VARARGS,
     "run_partial(run, reasons) -> None: mark the open run partial (not every test ran)"},
    {"run_report", (PyCFunction)client_run_report, METH_VARARGS,
     "run_report(run, format) -> str: the run's JSON report or JUnit XML"},
    {"run_summary", (PyCFunction)client_run_summary, METH_VARARGS,
     "run_summary(run) -> the run's summary"},
    {"orphans", (PyCFunction)client_orphans, METH_VARARGS,
     "orphans(store, run) -> {'names': [...]}"},
    {"list", KW_METHOD(client_list), METH_VARARGS | METH_KEYWORDS,
     "list(store, *, pending=False) -> {snapshots, problems, total, next}"},
    {"show", (PyCFunction)client_show, METH_VARARGS, "show(store, name) -> {snapshot, file}"},
    {"rm", (PyCFunction)client_rm, METH_VARARGS, "rm(store, name) -> {name, file}"},
    {"save", (PyCFunction)client_save, METH_VARARGS,
     "save(store, snapshot) -> {name, file}: the snapshot (a dict of a snapshot file's members)\n"
     "written as given"},
    {"approve", KW_METHOD(client_approve), METH_VARARGS | METH_KEYWORDS,
     "approve(store, names=None, *, all=False) -> {'approved': [...]}"},
    {"status", (PyCFunction)client_status, METH_NOARGS, "status() -> the daemon's status"},
    {"ping", (PyCFunction)client_ping, METH_NOARGS, "ping() -> None"},
    {"close", (PyCFunction)client_close_method, METH_NOARGS,
     "close(): drop the connection (the next call connects again)"},
    {NULL, NULL, 0, NULL},
};

static PyObject *client_get_server_version(tspy_client *self, void *closure)
{
    char version[256] = "";
    const char *v;

    (void)closure;
    client_lock(self);
    v = self->client != NULL ? ts_client_server_version(self->client) : NULL;
    if (v != NULL)
        snprintf(version, sizeof(version), "%s", v);
    pthread_mutex_unlock(&self->lock);
    if (version[0] == '\0')
        Py_RETURN_NONE;
    return PyUnicode_FromString(version);
}

static PyObject *client_get_started_elsewhere(tspy_client *self, void *closure)
{
    char path[TS_PATHS_MAX] = "";
    const char *v;

    (void)closure;
    client_lock(self);
    v = self->client != NULL ? ts_client_started_elsewhere(self->client) : NULL;
    if (v != NULL)
        snprintf(path, sizeof(path), "%s", v);
    pthread_mutex_unlock(&self->lock);
    if (path[0] == '\0')
        Py_RETURN_NONE;
    return PyUnicode_DecodeFSDefault(path);
}

static PyGetSetDef client_getset[] = {
    {"socket_path", (getter)client_get_socket, NULL, "the socket this client talks to", NULL},
    {"server_version", (getter)client_get_server_version, NULL,
     "the connected daemon's version (None before the first request, or when it did not say)",
     NULL},
    {"started_elsewhere", (getter)client_get_started_elsewhere, NULL,
     "the socket this client started a daemon on before the store's daemon, on another socket, "
     "answered instead (a mistyped socket; the one started was stopped), or None",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject client_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "toolscored._native.Client",
    .tp_basicsize = sizeof(tspy_client),
    .tp_dealloc = (destructor)client_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Client(socket=None, *, autostart=True, connect_timeout_ms=5000, client_name=None, "
              "tsctl=None)\n"
              "One connection to toolscored, made on first use. tsctl: how the user runs tsctl "
              "(shell text), which the commands its checks print start with.",
    .tp_methods = client_methods,
    .tp_getset = client_getset,
    .tp_init = (initproc)client_init,
    .tp_new = client_new,
};

/* ---- module functions ------------------------------------------------ */

static PyObject *mod_to_json(PyObject *mod, PyObject *args)
{
    PyObject *obj;
    const char *root = "value";
    struct json_object *v = NULL;
    PyObject *out;

    (void)mod;
    if (!PyArg_ParseTuple(args, "O|s:to_json", &obj, &root))
        return NULL;
    if (tspy_to_json(obj, root, &v) < 0)
        return NULL;
    out = tspy_from_json(v);
    json_object_put(v);
    return out;
}

static PyObject *mod_from_msgpack(PyObject *mod, PyObject *args)
{
    Py_buffer data;
    PyObject *out;

    (void)mod;
    if (!PyArg_ParseTuple(args, "y*:from_msgpack", &data))
        return NULL;
    out = tspy_from_msgpack(data.buf, (size_t)data.len);
    PyBuffer_Release(&data);
    return out;
}

static PyObject *mod_to_msgpack(PyObject *mod, PyObject *args)
{
    PyObject *obj;
    const char *root = "value";
    ts_buf b;
    PyObject *out = NULL;

    (void)mod;
    if (!PyArg_ParseTuple(args, "O|s:to_msgpack", &obj, &root))
        return NULL;
    ts_buf_init(&b, TS_BUF_UNLIMITED);
    if (tspy_pack(obj, root, &b) == 0)
        out = PyBytes_FromStringAndSize(b.data, (Py_ssize_t)b.len);
    ts_buf_free(&b);
    return out;
}

static PyObject *raise_lib_error(const ts_error *err)
{
    PyErr_SetString(PyExc_ValueError, err->message);
    return NULL;
}

static PyObject *mod_snapshot_filename(PyObject *mod, PyObject *args)
{
    const char *name;
    Py_ssize_t len;
    char out[1024];
    ts_error err;

    (void)mod;
    if (!PyArg_ParseTuple(args, "s#:snapshot_filename", &name, &len))
        return NULL;
    if (ts_name_to_filename(name, (size_t)len, out, sizeof(out), &err) < 0)
        return raise_lib_error(&err);
    return PyUnicode_DecodeFSDefault(out);
}

static PyObject *mod_resolve_store(PyObject *mod, PyObject *args)
{
    PyObject *path;
    char out[PATH_MAX * 2];
    ts_error err;
    int rc;

    (void)mod;
    if (!PyArg_ParseTuple(args, "O&:resolve_store", PyUnicode_FSConverter, &path))
        return NULL;
    rc = ts_paths_resolve(PyBytes_AS_STRING(path), out, sizeof(out), &err);
    Py_DECREF(path);
    if (rc < 0)
        return raise_lib_error(&err);
    return PyUnicode_DecodeFSDefault(out);
}

static PyObject *mod_default_root(PyObject *mod, PyObject *args)
{
    ts_project_root found;
    char why[PATH_MAX + 128];
    ts_error err;

    (void)mod;
    (void)args;
    if (ts_project_find_root(NULL, &found, &err) < 0)
        return raise_lib_error(&err);
    ts_project_describe(&found, why, sizeof(why));
    return Py_BuildValue("(NN)", PyUnicode_DecodeFSDefault(found.root),
                         PyUnicode_DecodeFSDefault(why));
}

static PyMethodDef module_methods[] = {
    {"default_root", (PyCFunction)mod_default_root, METH_NOARGS,
     "default_root() -> (root, why): the snapshot root of the current directory when none is\n"
     "given: the nearest .toolscore/snapshots up to the repository root, else the repository\n"
     "root's, else the current directory's (the rule tsctl follows)"},
    {"snapshot_filename", (PyCFunction)mod_snapshot_filename, METH_VARARGS,
     "snapshot_filename(name) -> the snapshot's file name in its root (<stem>-<sha1[:8]>.json)"},
    {"resolve_store", (PyCFunction)mod_resolve_store, METH_VARARGS,
     "resolve_store(path) -> the absolute, symlink-resolved root, as the daemon names it"},
    {"to_msgpack", (PyCFunction)mod_to_msgpack, METH_VARARGS,
     "to_msgpack(value, root='value') -> bytes: value as a check sends it (one msgpack value)"},
    {"from_msgpack", (PyCFunction)mod_from_msgpack, METH_VARARGS,
     "from_msgpack(data) -> the Python value of one msgpack value, as a check's result is read\n"
     "(raises ValueError for what the protocol refuses)"},
    {"to_json", (PyCFunction)mod_to_json, METH_VARARGS,
     "to_json(value, root='value') -> the JSON value a check would send for value\n"
     "(raises TypeError/ValueError naming what cannot be converted)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "toolscored._native",
    .m_doc = "The C half of the toolscored package: libtoolscore-client and value conversion.",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__native(void);

/* The daemon this package ships, bin/toolscored in this module's directory
 * (docs/pytest.md): auto-start looks there after $TOOLSCORED, before PATH. */
static void set_package_daemon(void)
{
    char dir[PATH_MAX];
    char path[PATH_MAX];
    Dl_info info;
    char *slash;
    int n;

    if (dladdr((void *)PyInit__native, &info) == 0 || info.dli_fname == NULL ||
        realpath(info.dli_fname, dir) == NULL)
        return;
    slash = strrchr(dir, '/');
    if (slash == NULL)
        return;
    *slash = '\0';
    n = snprintf(path, sizeof(path), "%s/bin/toolscored", dir);
    if (n > 0 && (size_t)n < sizeof(path))
        ts_client_set_package_daemon(path);
}

PyMODINIT_FUNC PyInit__native(void)
{
    PyObject *m;

    set_package_daemon();
    if (tspy_errors_init() < 0)
        return NULL;
    if (!forks_tracked)
        forks_tracked = pthread_atfork(NULL, NULL, on_fork_child) == 0;
    if (PyType_Ready(&client_type) < 0)
        return NULL;
    m = PyModule_Create(&native_module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&client_type);
    if (PyModule_AddObject(m, "Client", (PyObject *)&client_type) < 0 ||
        PyModule_AddStringConstant(m, "__version__", TS_VERSION) < 0 ||
        PyModule_AddIntConstant(m, "MAX_DEPTH", TSPY_MAX_DEPTH) < 0) {
        Py_DECREF(&client_type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
