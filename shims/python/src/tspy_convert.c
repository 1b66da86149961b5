/*
 * tspy_convert — Python values to the client library's json-c values
 * (tspy.h, tspy_to_json), modelled on CPython's Modules/_json.c: exact
 * built-in types first (no attribute lookups, no Python code run), then
 * subclasses the way json.dumps treats them, then the slow path for the
 * objects agent SDKs return (pydantic v2 model_dump(mode="json"),
 * to_dict(), to_json_dict(), pydantic v1 dict(), dataclasses.asdict).
 *
 * The path of the value being converted lives on the C stack as a chain of
 * tspy_path links, turned into text (actual[0]['args']['conn']) only when
 * an error is raised, so a value that converts costs no string work. The
 * containers (and slow-path objects) on the current path are kept on a
 * stack to refuse cycles instead of recursing into them.
 *
 * Reference counts: every borrowed item of a container is held (INCREF)
 * while it is converted, because the slow path runs Python code that may
 * change the container; json-c values are owned by the caller of
 * tspy_to_json from the moment they are returned.
 */
#include "tspy.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* One step from the root to the value being converted. */
typedef struct tspy_path {
    const struct tspy_path *parent;
    PyObject *key;    /* a dict key (borrowed, held by the caller), or NULL */
    Py_ssize_t index; /* the list/tuple index when key is NULL and via is NULL */
    const char *via;  /* a slow-path call, e.g. "model_dump(mode='json')" */
} tspy_path;

typedef struct tspy_conv {
    const char *root;
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

/* ---- the walk ------------------------------------------------------- */

static int convert(tspy_conv *cv, PyObject *obj, const tspy_path *p, struct json_object **out);

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

static int convert_string(const tspy_conv *cv, PyObject *obj, const tspy_path *p,
                          struct json_object **out)
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
    *out = json_object_new_string_len(s, (int)len);
    if (*out == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static int convert_int(const tspy_conv *cv, PyObject *obj, const tspy_path *p,
                       struct json_object **out)
{
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);

    if (overflow == 0) {
        if (v == -1 && PyErr_Occurred())
            return -1;
        *out = json_object_new_int64(v);
    } else if (overflow > 0) {
        unsigned long long u = PyLong_AsUnsignedLongLong(obj);

        if (u == (unsigned long long)-1 && PyErr_Occurred()) {
            if (!PyErr_ExceptionMatches(PyExc_OverflowError))
                return -1;
            return raise_int_range(cv, p, obj);
        }
        *out = json_object_new_uint64(u);
    } else {
        return raise_int_range(cv, p, obj);
    }
    if (*out == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static int convert_float(const tspy_conv *cv, PyObject *obj, const tspy_path *p,
                         struct json_object **out)
{
    double d = PyFloat_AsDouble(obj);

    if (d == -1.0 && PyErr_Occurred())
        return -1;
    if (!isfinite(d))
        return raise_at(cv, p, PyExc_ValueError,
                        PyUnicode_FromFormat("the float %R is not a JSON number", obj),
                        " (NaN and infinity cannot be stored in a snapshot)");
    *out = json_object_new_double(d);
    if (*out == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* Items of a list or tuple (exact or subclass) into a json-c array. */
static int convert_sequence(tspy_conv *cv, PyObject *seq, const tspy_path *p,
                            struct json_object **out)
{
    struct json_object *arr;
    Py_ssize_t i;

    if (enter(cv, seq, p) < 0)
        return -1;
    arr = json_object_new_array_ext((int)Py_MIN(PySequence_Fast_GET_SIZE(seq), 1 << 20));
    if (arr == NULL) {
        leave(cv);
        PyErr_NoMemory();
        return -1;
    }
    /* The size is read again each step: slow-path code may shrink a list. */
    for (i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        struct json_object *v = NULL;
        tspy_path step = {p, NULL, i, NULL};
        int rc;

        Py_INCREF(item);
        rc = convert(cv, item, &step, &v);
        Py_DECREF(item);
        if (rc < 0 || json_object_array_add(arr, v) < 0) {
            if (rc == 0) {
                json_object_put(v);
                PyErr_NoMemory();
            }
            json_object_put(arr);
            leave(cv);
            return -1;
        }
    }
    leave(cv);
    *out = arr;
    return 0;
}

static int convert_key(const tspy_conv *cv, PyObject *key, const tspy_path *p, const char **s)
{
    Py_ssize_t len;

    if (!PyUnicode_Check(key))
        return raise_at(
            cv, p, tspy_exc_not_json,
            PyUnicode_FromFormat("a dict key of type '%s' (%R)", Py_TYPE(key)->tp_name, key),
            ": JSON object keys must be str");
    *s = PyUnicode_AsUTF8AndSize(key, &len);
    if (*s == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError))
            return -1;
        PyErr_Clear();
        return raise_at(cv, p, PyExc_ValueError,
                        PyUnicode_FromString("a dict key that is not valid Unicode text"),
                        " (it holds a lone surrogate)");
    }
    if ((size_t)len != strlen(*s))
        return raise_at(cv, p, PyExc_ValueError,
                        PyUnicode_FromString("a dict key holding the character U+0000"),
                        " (object keys cannot hold NUL)");
    return 0;
}

static int convert_dict(tspy_conv *cv, PyObject *dict, const tspy_path *p, struct json_object **out)
{
    struct json_object *o;
    PyObject *key;
    PyObject *value;
    Py_ssize_t pos = 0;

    if (enter(cv, dict, p) < 0)
        return -1;
    o = json_object_new_object();
    if (o == NULL) {
        leave(cv);
        PyErr_NoMemory();
        return -1;
    }
    /* PyDict_Next stays memory-safe if slow-path code changes the dict
     * (it bounds its position by the current table); key and value are
     * held while in use. */
    while (PyDict_Next(dict, &pos, &key, &value)) {
        struct json_object *v = NULL;
        tspy_path step = {p, key, 0, NULL};
        const char *k = NULL;
        int rc;

        Py_INCREF(key);
        Py_INCREF(value);
        rc = convert_key(cv, key, &step, &k);
        if (rc == 0)
            rc = convert(cv, value, &step, &v);
        /* Distinct str keys have distinct UTF-8: the key is new. */
        if (rc == 0 && json_object_object_add_ex(o, k, v, JSON_C_OBJECT_ADD_KEY_IS_NEW) < 0) {
            json_object_put(v);
            PyErr_NoMemory();
            rc = -1;
        }
        Py_DECREF(key);
        Py_DECREF(value);
        if (rc < 0) {
            json_object_put(o);
            leave(cv);
            return -1;
        }
    }
    leave(cv);
    *out = o;
    return 0;
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
static int convert_slow(tspy_conv *cv, PyObject *obj, const tspy_path *p, struct json_object **out)
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

        rc = convert(cv, plain, &step, out);
        leave(cv);
    }
    Py_DECREF(plain);
    return rc;
}

static int convert(tspy_conv *cv, PyObject *obj, const tspy_path *p, struct json_object **out)
{
    PyTypeObject *t = Py_TYPE(obj);

    *out = NULL;
    /* Exact types: the common case, no Python code runs. */
    if (t == &PyUnicode_Type)
        return convert_string(cv, obj, p, out);
    if (t == &PyDict_Type)
        return convert_dict(cv, obj, p, out);
    if (t == &PyList_Type || t == &PyTuple_Type)
        return convert_sequence(cv, obj, p, out);
    if (obj == Py_None)
        return 0;
    if (obj == Py_True || obj == Py_False) {
        *out = json_object_new_boolean(obj == Py_True);
        return 0;
    }
    if (t == &PyLong_Type)
        return convert_int(cv, obj, p, out);
    if (t == &PyFloat_Type)
        return convert_float(cv, obj, p, out);
    /* Subclasses, as json.dumps reads them (a str Enum is its string, an
     * IntEnum its int, a namedtuple an array, an OrderedDict an object). */
    if (PyUnicode_Check(obj))
        return convert_string(cv, obj, p, out);
    if (PyLong_Check(obj))
        return convert_int(cv, obj, p, out);
    if (PyFloat_Check(obj))
        return convert_float(cv, obj, p, out);
    if (PyDict_Check(obj))
        return convert_dict(cv, obj, p, out);
    if (PyList_Check(obj) || PyTuple_Check(obj))
        return convert_sequence(cv, obj, p, out);
    return convert_slow(cv, obj, p, out);
}

int tspy_to_json(PyObject *obj, const char *root, struct json_object **out)
{
    tspy_conv *cv;
    int rc;

    *out = NULL;
    if (conv_init() < 0)
        return -1;
    cv = PyMem_Malloc(sizeof(*cv));
    if (cv == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    cv->root = root;
    cv->depth = 0;
    if (Py_EnterRecursiveCall(" while converting a value to JSON") < 0) {
        PyMem_Free(cv);
        return -1;
    }
    rc = convert(cv, obj, NULL, out);
    Py_LeaveRecursiveCall();
    PyMem_Free(cv);
    return rc;
}
