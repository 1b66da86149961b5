/*
 * tspy_convert — Python values to the protocol's msgpack (tspy.h,
 * tspy_pack), modelled on CPython's Modules/_json.c: exact built-in types
 * first (no attribute lookups, no Python code run), then subclasses the
 * way json.dumps treats them, then the slow path for the objects agent
 * SDKs return (pydantic v2 model_dump(mode="json"), to_dict(),
 * to_json_dict(), pydantic v1 dict(), dataclasses.asdict). The bytes are
 * those the client library packs for the equal json-c value (integers and
 * headers in their smallest form, floats as float 64), so that a replay's
 * calls meet the daemon's cached bytes of its baseline; tspy_to_json gives
 * the json-c value by decoding them.
 *
 * The path of the value being converted lives on the C stack as a chain of
 * tspy_path links, turned into text (actual[0]['args']['conn']) only when
 * an error is raised, so a value that converts costs no string work. The
 * containers (and slow-path objects) on the current path are kept on a
 * stack to refuse cycles instead of recursing into them.
 *
 * Reference counts: every borrowed item of a container is held (INCREF)
 * while it is converted, because the slow path runs Python code that may
 * change the container; a container whose size changed meanwhile is
 * refused (its count was written first).
 */
#include "tspy.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lib/base/ts_base.h"
#include "proto/ts_proto.h"

/* One step from the root to the value being converted. */
typedef struct tspy_path {
    const struct tspy_path *parent;
    PyObject *key;    /* a dict key (borrowed, held by the caller), or NULL */
    Py_ssize_t index; /* the list/tuple index when key is NULL and via is NULL */
    const char *via;  /* a slow-path call, e.g. "model_dump(mode='json')" */
} tspy_path;

typedef struct tspy_conv {
    const char *root;
    ts_buf *out;
    PyObject *stack[TSPY_MAX_DEPTH + 1]; /* containers on the current path */
    int depth;
} tspy_conv;

static PyObject *str_model_dump;
static PyObject *str_to_dict;
static PyObject *str_to_json_dict;
static PyObject *str_dict;
static PyObject *str_dataclass_fields;
static PyObject *str_mode;
static PyObject *str_json;
static PyObject *kwargs_mode_json;
static PyObject *empty_tuple;
static PyObject *dataclasses_asdict;

static int interned(PyObject **slot, const char *s)
{
    if (*slot == NULL)
        *slot = PyUnicode_InternFromString(s);
    return *slot != NULL ? 0 : -1;
}

static int conv_init(void)
{
    if (kwargs_mode_json != NULL)
        return 0;
    if (interned(&str_model_dump, "model_dump") < 0 || interned(&str_to_dict, "to_dict") < 0 ||
        interned(&str_to_json_dict, "to_json_dict") < 0 || interned(&str_dict, "dict") < 0 ||
        interned(&str_dataclass_fields, "__dataclass_fields__") < 0 ||
        interned(&str_mode, "mode") < 0 || interned(&str_json, "json") < 0)
        return -1;
    empty_tuple = PyTuple_New(0);
    if (empty_tuple == NULL)
        return -1;
    kwargs_mode_json = PyDict_New();
    if (kwargs_mode_json == NULL || PyDict_SetItem(kwargs_mode_json, str_mode, str_json) < 0) {
        Py_CLEAR(kwargs_mode_json);
        return -1;
    }
    return 0;
}

/* ---- error messages ------------------------------------------------- */

/* Append one path step to the list parts (text pieces, root first). */
static int path_text_step(PyObject *parts, const tspy_path *p)
{
    PyObject *piece;
    int rc;

    if (p->via != NULL)
        piece = PyUnicode_FromFormat(".%s", p->via);
    else if (p->key != NULL)
        piece = PyUnicode_FromFormat("[%R]", p->key);
    else
        piece = PyUnicode_FromFormat("[%zd]", p->index);
    if (piece == NULL)
        return -1;
    rc = PyList_Append(parts, piece);
    Py_DECREF(piece);
    return rc;
}

/* "actual[0]['args']" for the chain ending at p (root when p is NULL). */
static PyObject *path_text(const tspy_conv *cv, const tspy_path *p)
{
    PyObject *parts = PyList_New(0);
    PyObject *sep = NULL;
    PyObject *text = NULL;
    const tspy_path *q;

    if (parts == NULL)
        return NULL;
    for (q = p; q != NULL; q = q->parent)
        if (path_text_step(parts, q) < 0)
            goto out;
    if (PyList_Reverse(parts) < 0)
        goto out;
    sep = PyUnicode_FromString(cv->root);
    if (sep == NULL || PyList_Insert(parts, 0, sep) < 0)
        goto out;
    Py_SETREF(sep, PyUnicode_FromString(""));
    if (sep != NULL)
        text = PyUnicode_Join(sep, parts);
out:
    Py_XDECREF(sep);
    Py_DECREF(parts);
    return text;
}

/* Raise exc with "<what> at <path><tail>"; what and tail are formats of
 * PyUnicode_FromFormat already rendered by the caller. Returns -1. */
static int raise_at(const tspy_conv *cv, const tspy_path *p, PyObject *exc, PyObject *what,
                    const char *tail)
{
    PyObject *where;

    if (what == NULL)
        return -1;
    where = path_text(cv, p);
    if (where != NULL)
        PyErr_Format(exc, "%U at %U%s", what, where, tail);
    Py_XDECREF(where);
    Py_DECREF(what);
    return -1;
}

static int raise_not_json(const tspy_conv *cv, const tspy_path *p, PyObject *obj)
{
    return raise_at(
        cv, p, tspy_exc_not_json,
        PyUnicode_FromFormat("a value of type '%s' cannot be sent as JSON", Py_TYPE(obj)->tp_name),
        ": it is not a JSON value (dict, list, tuple, str, int, float, bool, None) "
        "and has no model_dump(), to_dict(), to_json_dict() or dict() method, nor "
        "dataclass fields");
}

static int raise_int_range(const tspy_conv *cv, const tspy_path *p, PyObject *obj)
{
    size_t bits;
    PyObject *what;

    PyErr_Clear();
    bits = _PyLong_NumBits(obj);
    if (bits != (size_t)-1 && bits <= 256)
        what = PyUnicode_FromFormat("the integer %S is out of range", obj);
    else
        what = PyUnicode_FromFormat("an integer of %zu bits is out of range", bits);
    return raise_at(cv, p, PyExc_ValueError, what,
                    " (JSON values sent to toolscored hold integers from -2**63 to 2**64-1)");
}

/* A Python exception raised by a slow-path method: add where it happened
 * (PEP 678 note when the interpreter has add_note) and let it propagate. */
static int note_slow_path_error(const tspy_conv *cv, const tspy_path *p, PyObject *obj,
                                const char *method)
{
    PyObject *type;
    PyObject *value;
    PyObject *tb;
    PyObject *where;

    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    where = path_text(cv, p);
    if (where != NULL && value != NULL && PyObject_HasAttrString(value, "add_note")) {
        PyObject *r =
            PyObject_CallMethod(value, "add_note", "N",
                                PyUnicode_FromFormat("raised by %s() of '%s' at %U, "
                                                     "converting it to JSON",
                                                     method, Py_TYPE(obj)->tp_name, where));
        Py_XDECREF(r);
    }
    PyErr_Clear();
    Py_XDECREF(where);
    if (tb != NULL && value != NULL)
        PyException_SetTraceback(value, tb);
    PyErr_Restore(type, value, tb);
    return -1;
}

/* ---- msgpack ---------------------------------------------------------- */

/* The packing of proto/ts_wire_pack.c, byte for byte. A failed append
 * (out of memory) sticks in the buffer and is raised at the end. */
static void put_typed(ts_buf *b, unsigned char type, uint64_t v, size_t width)
{
    unsigned char t[9];

    t[0] = type;
    for (size_t i = 0; i < width; i++)
        t[1 + i] = (unsigned char)(v >> (8 * (width - 1 - i)));
    ts_buf_append(b, t, 1 + width);
}

static void put_uint(ts_buf *b, uint64_t u)
{
    if (u < 128)
        ts_buf_appendc(b, (char)u);
    else if (u < 256)
        put_typed(b, 0xcc, u, 1);
    else if (u < 65536)
        put_typed(b, 0xcd, u, 2);
    else if (u <= UINT32_MAX)
        put_typed(b, 0xce, u, 4);
    else
        put_typed(b, 0xcf, u, 8);
}

static void put_int(ts_buf *b, int64_t i)
{
    if (i >= 0)
        put_uint(b, (uint64_t)i);
    else if (i >= -32)
        ts_buf_appendc(b, (char)(unsigned char)(uint64_t)i);
    else if (i >= INT8_MIN)
        put_typed(b, 0xd0, (uint64_t)i, 1);
    else if (i >= INT16_MIN)
        put_typed(b, 0xd1, (uint64_t)i, 2);
    else if (i >= INT32_MIN)
        put_typed(b, 0xd2, (uint64_t)i, 4);
    else
        put_typed(b, 0xd3, (uint64_t)i, 8);
}

/* The smallest header of a str, array or map of n members. */
static void put_header(ts_buf *b, size_t n, unsigned char fix, size_t fix_max, unsigned char t8,
                       unsigned char t16, unsigned char t32)
{
    if (n <= fix_max)
        ts_buf_appendc(b, (char)(fix | n));
    else if (t8 != 0 && n < 256)
        put_typed(b, t8, n, 1);
    else if (n < 65536)
        put_typed(b, t16, n, 2);
    else
        put_typed(b, t32, n, 4);
}

static void put_str(ts_buf *b, const char *s, size_t len)
{
    put_header(b, len, 0xa0, 31, 0xd9, 0xda, 0xdb);
    ts_buf_append(b, s, len);
}

static void put_double(ts_buf *b, double d)
{
    uint64_t bits;

    memcpy(&bits, &d, sizeof(bits));
    put_typed(b, 0xcb, bits, 8);
}

/* ---- the walk ------------------------------------------------------- */

static int convert(tspy_conv *cv, PyObject *obj, const tspy_path *p);

/* Push a container (or slow-path object) onto the path; refuses a cycle
 * and nesting past the limit. */
static int enter(tspy_conv *cv, PyObject *obj, const tspy_path *p)
{
    int i;

    for (i = 0; i < cv->depth; i++) {
        if (cv->stack[i] == obj)
            return raise_at(cv, p, PyExc_ValueError,
                            PyUnicode_FromFormat("a cyclic reference (a '%s' that contains "
                                                 "itself)",
                                                 Py_TYPE(obj)->tp_name),
                            ": JSON cannot hold cycles");
    }
    if (cv->depth >= TSPY_MAX_DEPTH)
        return raise_at(cv, p, PyExc_ValueError,
                        PyUnicode_FromFormat("values nested deeper than %d levels", TSPY_MAX_DEPTH),
                        "");
    cv->stack[cv->depth++] = obj;
    return 0;
}

static void leave(tspy_conv *cv)
{
    cv->depth--;
}

/* A container whose size changed while its items were converted (slow-path
 * code changed it): its count is written already. */
static int raise_resized(const tspy_conv *cv, const tspy_path *p, PyObject *obj)
{
    return raise_at(cv, p, PyExc_RuntimeError,
                    PyUnicode_FromFormat("a '%s' that changed size while it was converted",
                                         Py_TYPE(obj)->tp_name),
                    "");
}

static int convert_string(const tspy_conv *cv, PyObject *obj, const tspy_path *p)
{
    Py_ssize_t len;
    const char *s = PyUnicode_AsUTF8AndSize(obj, &len);

    if (s == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError))
            return -1;
        PyErr_Clear();
        return raise_at(cv, p, PyExc_ValueError,
                        PyUnicode_FromString("a string that is not valid Unicode text"),
                        " (it holds a lone surrogate, which UTF-8 cannot carry)");
    }
    if (len > INT32_MAX)
        return raise_at(cv, p, PyExc_ValueError, PyUnicode_FromFormat("a string of %zd bytes", len),
                        " is too long");
    put_str(cv->out, s, (size_t)len);
    return 0;
}

static int convert_int(const tspy_conv *cv, PyObject *obj, const tspy_path *p)
{
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);

    if (overflow == 0) {
        if (v == -1 && PyErr_Occurred())
            return -1;
        put_int(cv->out, v);
    } else if (overflow > 0) {
        unsigned long long u = PyLong_AsUnsignedLongLong(obj);

        if (u == (unsigned long long)-1 && PyErr_Occurred()) {
            if (!PyErr_ExceptionMatches(PyExc_OverflowError))
                return -1;
            return raise_int_range(cv, p, obj);
        }
        put_uint(cv->out, u);
    } else {
        return raise_int_range(cv, p, obj);
    }
    return 0;
}

static int convert_float(const tspy_conv *cv, PyObject *obj, const tspy_path *p)
{
    double d = PyFloat_AsDouble(obj);

    if (d == -1.0 && PyErr_Occurred())
        return -1;
    if (!isfinite(d))
        return raise_at(cv, p, PyExc_ValueError,
                        PyUnicode_FromFormat("the float %R is not a JSON number", obj),
                        " (NaN and infinity cannot be stored in a snapshot)");
    put_double(cv->out, d);
    return 0;
}

/* Items of a list or tuple (exact or subclass) as an array. */
static int convert_sequence(tspy_conv *cv, PyObject *seq, const tspy_path *p)
{
    Py_ssize_t i, n = PySequence_Fast_GET_SIZE(seq);

    if (enter(cv, seq, p) < 0)
        return -1;
    put_header(cv->out, (size_t)n, 0x90, 15, 0, 0xdc, 0xdd);
    for (i = 0; i < n; i++) {
        tspy_path step = {p, NULL, i, NULL};
        PyObject *item;
        int rc;

        if (PySequence_Fast_GET_SIZE(seq) != n) { /* slow-path code changed it */
            leave(cv);
            return raise_resized(cv, p, seq);
        }
        item = PySequence_Fast_GET_ITEM(seq, i);
        Py_INCREF(item);
        rc = convert(cv, item, &step);
        Py_DECREF(item);
        if (rc < 0) {
            leave(cv);
            return -1;
        }
    }
    leave(cv);
    return PySequence_Fast_GET_SIZE(seq) == n ? 0 : raise_resized(cv, p, seq);
}

static int convert_key(const tspy_conv *cv, PyObject *key, const tspy_path *p)
{
    Py_ssize_t len;
    const char *s;

    if (!PyUnicode_Check(key))
        return raise_at(
            cv, p, tspy_exc_not_json,
            PyUnicode_FromFormat("a dict key of type '%s' (%R)", Py_TYPE(key)->tp_name, key),
            ": JSON object keys must be str");
    s = PyUnicode_AsUTF8AndSize(key, &len);
    if (s == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError))
            return -1;
        PyErr_Clear();
        return raise_at(cv, p, PyExc_ValueError,
                        PyUnicode_FromString("a dict key that is not valid Unicode text"),
                        " (it holds a lone surrogate)");
    }
    if (memchr(s, '\0', (size_t)len) != NULL)
        return raise_at(cv, p, PyExc_ValueError,
                        PyUnicode_FromString("a dict key holding the character U+0000"),
                        " (object keys cannot hold NUL)");
    put_str(cv->out, s, (size_t)len);
    return 0;
}

static int convert_dict(tspy_conv *cv, PyObject *dict, const tspy_path *p)
{
    Py_ssize_t n = PyDict_GET_SIZE(dict), done = 0;
    PyObject *key;
    PyObject *value;
    Py_ssize_t pos = 0;

    if (enter(cv, dict, p) < 0)
        return -1;
    put_header(cv->out, (size_t)n, 0x80, 15, 0, 0xde, 0xdf);
    /* PyDict_Next stays memory-safe if slow-path code changes the dict
     * (it bounds its position by the current table); key and value are
     * held while in use. */
    while (PyDict_Next(dict, &pos, &key, &value)) {
        tspy_path step = {p, key, 0, NULL};
        int rc;

        if (++done > n || PyDict_GET_SIZE(dict) != n) {
            leave(cv);
            return raise_resized(cv, p, dict);
        }
        Py_INCREF(key);
        Py_INCREF(value);
        rc = convert_key(cv, key, &step);
        if (rc == 0)
            rc = convert(cv, value, &step);
        Py_DECREF(key);
        Py_DECREF(value);
        if (rc < 0) {
            leave(cv);
            return -1;
        }
    }
    leave(cv);
    return done == n && PyDict_GET_SIZE(dict) == n ? 0 : raise_resized(cv, p, dict);
}

/* The bound method attr of obj when it has one that is callable: 1 with a
 * new reference in *m, 0 when absent, -1 on an error other than
 * AttributeError. */
static int lookup_method(PyObject *obj, PyObject *attr, PyObject **m)
{
    *m = PyObject_GetAttr(obj, attr);
    if (*m == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();
        return 0;
    }
    if (!PyCallable_Check(*m)) {
        Py_CLEAR(*m);
        return 0;
    }
    return 1;
}

static int is_dataclass_instance(PyObject *obj)
{
    PyObject *fields;

    if (PyType_Check(obj))
        return 0;
    fields = PyObject_GetAttr((PyObject *)Py_TYPE(obj), str_dataclass_fields);
    if (fields == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();
        return 0;
    }
    Py_DECREF(fields);
    return 1;
}

static PyObject *call_asdict(PyObject *obj)
{
    if (dataclasses_asdict == NULL) {
        PyObject *mod = PyImport_ImportModule("dataclasses");

        if (mod == NULL)
            return NULL;
        dataclasses_asdict = PyObject_GetAttrString(mod, "asdict");
        Py_DECREF(mod);
        if (dataclasses_asdict == NULL)
            return NULL;
    }
    return PyObject_CallOneArg(dataclasses_asdict, obj);
}

/* A value of a JSON type (built-in or subclass): no slow path needed. */
static bool is_json_type(PyObject *obj)
{
    return obj == Py_None || PyUnicode_Check(obj) || PyLong_Check(obj) || PyFloat_Check(obj) ||
           PyDict_Check(obj) || PyList_Check(obj) || PyTuple_Check(obj);
}

/*
 * The slow path: the first of the serialization methods obj has, called,
 * and its result converted. That result must be a JSON value at its top
 * (no second slow step there, so a method returning another such object
 * cannot loop); inside it, values take the slow path again.
 */
static int convert_slow(tspy_conv *cv, PyObject *obj, const tspy_path *p)
{
    static const struct {
        PyObject **attr;
        const char *via;
        bool mode_json;
    } methods[] = {
        {&str_model_dump, "model_dump(mode='json')", true},
        {&str_to_dict, "to_dict()", false},
        {&str_to_json_dict, "to_json_dict()", false},
        {&str_dict, "dict()", false},
    };
    PyObject *m = NULL;
    PyObject *plain = NULL;
    const char *via = NULL;
    size_t i;
    int rc;

    if (PyType_Check(obj))
        return raise_not_json(cv, p, obj);
    for (i = 0; i < sizeof(methods) / sizeof(methods[0]) && plain == NULL; i++) {
        rc = lookup_method(obj, *methods[i].attr, &m);
        if (rc < 0)
            return -1;
        if (rc == 0)
            continue;
        via = methods[i].via;
        plain = methods[i].mode_json ? PyObject_Call(m, empty_tuple, kwargs_mode_json)
                                     : PyObject_CallNoArgs(m);
        Py_DECREF(m);
        if (plain == NULL)
            return note_slow_path_error(cv, p, obj, PyUnicode_AsUTF8(*methods[i].attr));
    }
    if (plain == NULL) {
        rc = is_dataclass_instance(obj);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return raise_not_json(cv, p, obj);
        via = "dataclasses.asdict()";
        plain = call_asdict(obj);
        if (plain == NULL)
            return note_slow_path_error(cv, p, obj, "dataclasses.asdict");
    }
    if (!is_json_type(plain)) {
        rc = raise_at(cv, p, tspy_exc_not_json,
                      PyUnicode_FromFormat("%s of a '%s' returned a '%s', not a JSON value", via,
                                           Py_TYPE(obj)->tp_name, Py_TYPE(plain)->tp_name),
                      "");
        Py_DECREF(plain);
        return rc;
    }
    /* obj stays on the path while its plain form is converted, so an
     * object whose method returns a value holding obj is a cycle. */
    rc = enter(cv, obj, p);
    if (rc == 0) {
        tspy_path step = {p, NULL, 0, via};

        rc = convert(cv, plain, &step);
        leave(cv);
    }
    Py_DECREF(plain);
    return rc;
}

static int convert(tspy_conv *cv, PyObject *obj, const tspy_path *p)
{
    PyTypeObject *t = Py_TYPE(obj);

    /* Exact types: the common case, no Python code runs. */
    if (t == &PyUnicode_Type)
        return convert_string(cv, obj, p);
    if (t == &PyDict_Type)
        return convert_dict(cv, obj, p);
    if (t == &PyList_Type || t == &PyTuple_Type)
        return convert_sequence(cv, obj, p);
    if (obj == Py_None) {
        ts_buf_appendc(cv->out, (char)0xc0);
        return 0;
    }
    if (obj == Py_True || obj == Py_False) {
        ts_buf_appendc(cv->out, (char)(obj == Py_True ? 0xc3 : 0xc2));
        return 0;
    }
    if (t == &PyLong_Type)
        return convert_int(cv, obj, p);
    if (t == &PyFloat_Type)
        return convert_float(cv, obj, p);
    /* Subclasses, as json.dumps reads them (a str Enum is its string, an
     * IntEnum its int, a namedtuple an array, an OrderedDict an object). */
    if (PyUnicode_Check(obj))
        return convert_string(cv, obj, p);
    if (PyLong_Check(obj))
        return convert_int(cv, obj, p);
    if (PyFloat_Check(obj))
        return convert_float(cv, obj, p);
    if (PyDict_Check(obj))
        return convert_dict(cv, obj, p);
    if (PyList_Check(obj) || PyTuple_Check(obj))
        return convert_sequence(cv, obj, p);
    return convert_slow(cv, obj, p);
}

int tspy_pack(PyObject *obj, const char *root, ts_buf *out)
{
    tspy_conv *cv;
    size_t mark = out->len;
    int rc;

    if (conv_init() < 0)
        return -1;
    cv = PyMem_Malloc(sizeof(*cv));
    if (cv == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    cv->root = root;
    cv->out = out;
    cv->depth = 0;
    if (Py_EnterRecursiveCall(" while converting a value to JSON") < 0) {
        PyMem_Free(cv);
        return -1;
    }
    rc = convert(cv, obj, NULL);
    Py_LeaveRecursiveCall();
    PyMem_Free(cv);
    if (rc == 0 && ts_buf_error(out) < 0) {
        PyErr_NoMemory();
        rc = -1;
    }
    if (rc < 0 && out->data != NULL && out->len >= mark)
        out->len = mark;
    return rc;
}

int tspy_to_json(PyObject *obj, const char *root, struct json_object **out)
{
    ts_buf b;
    ts_error err;
    int rc;

    *out = NULL;
    ts_buf_init(&b, TS_BUF_UNLIMITED);
    rc = tspy_pack(obj, root, &b);
    if (rc == 0 && ts_wire_decode(b.data, b.len, 0, out, &err) < 0) {
        /* what tspy_pack writes decodes: only memory can fail here */
        PyErr_Format(PyExc_MemoryError, "%s: %s", root, err.message);
        rc = -1;
    }
    ts_buf_free(&b);
    return rc;
}
