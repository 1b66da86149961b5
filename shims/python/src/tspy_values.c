/*
 * tspy_values — the daemon's values to Python values: from the client
 * library's json-c values (tspy_from_json) and straight from a reply's
 * msgpack bytes (tspy_from_msgpack, a check's result: no json-c tree in
 * between). null to None, booleans, integers (int64 and uint64 kept
 * exact), floats, strings (UTF-8), arrays to lists, maps to dicts in their
 * key order.
 */
#include "tspy.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "proto/ts_proto.h"

static PyObject *from_int(const struct json_object *v)
{
    int64_t i = json_object_get_int64(v);

    /* json-c clamps a uint64 above INT64_MAX to INT64_MAX here. */
    if (i == INT64_MAX) {
        uint64_t u = json_object_get_uint64(v);

        return PyLong_FromUnsignedLongLong(u);
    }
    return PyLong_FromLongLong(i);
}

static PyObject *from_array(const struct json_object *v)
{
    size_t n = json_object_array_length(v);
    PyObject *list = PyList_New((Py_ssize_t)n);
    size_t i;

    if (list == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        PyObject *item = tspy_from_json(json_object_array_get_idx(v, i));

        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

static PyObject *from_object(const struct json_object *v)
{
    PyObject *dict = PyDict_New();

    if (dict == NULL)
        return NULL;
    json_object_object_foreach((struct json_object *)v, key, member)
    {
        PyObject *value = tspy_from_json(member);
        int rc;

        if (value == NULL) {
            Py_DECREF(dict);
            return NULL;
        }
        rc = PyDict_SetItemString(dict, key, value);
        Py_DECREF(value);
        if (rc < 0) {
            Py_DECREF(dict);
            return NULL;
        }
    }
    return dict;
}

PyObject *tspy_from_json(const struct json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null:
        Py_RETURN_NONE;
    case json_type_boolean:
        return PyBool_FromLong(json_object_get_boolean(v));
    case json_type_int:
        return from_int(v);
    case json_type_double:
        return PyFloat_FromDouble(json_object_get_double(v));
    case json_type_string:
        return PyUnicode_DecodeUTF8(json_object_get_string((struct json_object *)v),
                                    json_object_get_string_len(v), "strict");
    case json_type_array:
        return from_array(v);
    case json_type_object:
        return from_object(v);
    }
    PyErr_SetString(PyExc_SystemError, "toolscored: a reply value of unknown type");
    return NULL;
}

/* ---- msgpack ---------------------------------------------------------- */

typedef struct reader {
    const unsigned char *start, *p, *end;
} reader;

static PyObject *bad(const reader *r, const char *what)
{
    PyErr_Format(PyExc_ValueError, "toolscored: a reply value the protocol refuses: %s at byte %zu",
                 what, (size_t)(r->p - r->start));
    return NULL;
}

/* The next n bytes as a big-endian unsigned number (n <= 8), or false when
 * fewer are left. */
static bool take(reader *r, size_t n, uint64_t *v)
{
    if ((size_t)(r->end - r->p) < n)
        return false;
    *v = 0;
    for (size_t i = 0; i < n; i++)
        *v = (*v << 8) | r->p[i];
    r->p += n;
    return true;
}

static PyObject *read_value(reader *r, int depth);

static PyObject *read_str(reader *r, uint64_t n)
{
    PyObject *s;

    if ((uint64_t)(r->end - r->p) < n)
        return bad(r, "a string cut short");
    s = PyUnicode_DecodeUTF8((const char *)r->p, (Py_ssize_t)n, "strict");
    if (s == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError))
            return NULL;
        PyErr_Clear();
        return bad(r, "a string that is not valid UTF-8");
    }
    r->p += n;
    return s;
}

static PyObject *read_array(reader *r, uint64_t n, int depth)
{
    PyObject *list;

    if (n > (uint64_t)(r->end - r->p))
        return bad(r, "an array longer than its bytes");
    list = PyList_New((Py_ssize_t)n);
    if (list == NULL)
        return NULL;
    for (uint64_t i = 0; i < n; i++) {
        PyObject *item = read_value(r, depth + 1);

        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

static PyObject *read_key(reader *r)
{
    uint64_t n;
    unsigned char t;

    if (r->p >= r->end)
        return bad(r, "a map cut short");
    t = *r->p++;
    if (t >= 0xa0 && t <= 0xbf)
        n = t & 0x1f;
    else if (t == 0xd9 || t == 0xda || t == 0xdb) {
        if (!take(r, (size_t)1 << (t - 0xd9), &n))
            return bad(r, "a string cut short");
    } else {
        r->p--;
        return bad(r, "a map key that is not a string");
    }
    return read_str(r, n);
}

static PyObject *read_map(reader *r, uint64_t n, int depth)
{
    PyObject *dict;

    if (n > (uint64_t)(r->end - r->p) / 2)
        return bad(r, "a map longer than its bytes");
    dict = PyDict_New();
    if (dict == NULL)
        return NULL;
    for (uint64_t i = 0; i < n; i++) {
        const unsigned char *at = r->p;
        PyObject *key = read_key(r);
        PyObject *value = key != NULL ? read_value(r, depth + 1) : NULL;
        int rc = -1;

        if (value != NULL) {
            rc = PyDict_Contains(dict, key);
            if (rc == 1) {
                r->p = at;
                bad(r, "a key that appears twice");
                rc = -1;
            } else if (rc == 0) {
                rc = PyDict_SetItem(dict, key, value);
            }
        }
        Py_XDECREF(key);
        Py_XDECREF(value);
        if (rc < 0) {
            Py_DECREF(dict);
            return NULL;
        }
    }
    return dict;
}

static PyObject *read_value(reader *r, int depth)
{
    unsigned char t;
    uint64_t v;
    double d;
    float f;

    if (depth > TS_WIRE_REPLY_MAX_DEPTH - 1) /* the result sits in the reply's map */
        return bad(r, "values nested too deep");
    if (r->p >= r->end)
        return bad(r, "a value cut short");
    t = *r->p++;
    if (t < 0x80)
        return PyLong_FromLong(t);
    if (t >= 0xe0)
        return PyLong_FromLong((long)t - 0x100);
    if (t <= 0x8f)
        return read_map(r, t & 0x0f, depth);
    if (t <= 0x9f)
        return read_array(r, t & 0x0f, depth);
    if (t <= 0xbf)
        return read_str(r, t & 0x1f);
    switch (t) {
    case 0xc0:
        Py_RETURN_NONE;
    case 0xc2:
        Py_RETURN_FALSE;
    case 0xc3:
        Py_RETURN_TRUE;
    case 0xca:
        if (!take(r, 4, &v))
            break;
        {
            uint32_t bits = (uint32_t)v;

            memcpy(&f, &bits, sizeof(f));
        }
        d = (double)f;
        if (!isfinite(d)) {
            r->p -= 5;
            return bad(r, "a NaN or infinite number");
        }
        return PyFloat_FromDouble(d);
    case 0xcb:
        if (!take(r, 8, &v))
            break;
        memcpy(&d, &v, sizeof(d));
        if (!isfinite(d)) {
            r->p -= 9;
            return bad(r, "a NaN or infinite number");
        }
        return PyFloat_FromDouble(d);
    case 0xcc:
    case 0xcd:
    case 0xce:
    case 0xcf:
        if (!take(r, (size_t)1 << (t - 0xcc), &v))
            break;
        return PyLong_FromUnsignedLongLong(v);
    case 0xd0:
        if (!take(r, 1, &v))
            break;
        return PyLong_FromLong((int8_t)v);
    case 0xd1:
        if (!take(r, 2, &v))
            break;
        return PyLong_FromLong((int16_t)v);
    case 0xd2:
        if (!take(r, 4, &v))
            break;
        return PyLong_FromLong((int32_t)v);
    case 0xd3:
        if (!take(r, 8, &v))
            break;
        return PyLong_FromLongLong((int64_t)v);
    case 0xd9:
    case 0xda:
    case 0xdb:
        if (!take(r, (size_t)1 << (t - 0xd9), &v))
            break;
        return read_str(r, v);
    case 0xdc:
    case 0xdd:
        if (!take(r, (size_t)2 << (t - 0xdc), &v))
            break;
        return read_array(r, v, depth);
    case 0xde:
    case 0xdf:
        if (!take(r, (size_t)2 << (t - 0xde), &v))
            break;
        return read_map(r, v, depth);
    default:
        r->p--;
        return bad(r, "a bin, ext or never-used type byte");
    }
    return bad(r, "a value cut short");
}

PyObject *tspy_from_msgpack(const void *data, size_t len)
{
    reader r = {data, data, (const unsigned char *)data + len};
    PyObject *v = read_value(&r, 1);

    if (v != NULL && r.p != r.end) {
        Py_DECREF(v);
        return bad(&r, "bytes after the value");
    }
    return v;
}
