/*
 * tspy_values — the client library's json-c values to Python values
 * (tspy.h, tspy_from_json): null to None, booleans, integers (int64 and
 * uint64 kept exact), floats, strings (UTF-8, checked by the wire reader
 * already), arrays to lists, objects to dicts in their key order.
 */
#include "tspy.h"

#include <stdint.h>

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
