/*
 * tspy_errors — the exceptions toolscored._native raises for the client
 * library's errors (tspy.h). The classes are defined in Python
 * (toolscored/_errors.py) so that users import and catch them from the
 * package; this file fetches them once and picks one per error code.
 */
#include "tspy.h"

#include <string.h>

static PyObject *cls_error;
static PyObject *cls_unavailable;
static PyObject *cls_not_found;
static PyObject *cls_invalid;
static PyObject *cls_invalid_snapshot;
static PyObject *cls_format;
static PyObject *cls_storage;
PyObject *tspy_exc_not_json;

int tspy_errors_init(void)
{
    PyObject *mod = PyImport_ImportModule("toolscored._errors");

    if (mod == NULL)
        return -1;
    cls_error = PyObject_GetAttrString(mod, "ToolscoreError");
    cls_unavailable = PyObject_GetAttrString(mod, "DaemonUnavailableError");
    cls_not_found = PyObject_GetAttrString(mod, "NotFoundError");
    cls_invalid = PyObject_GetAttrString(mod, "InvalidInputError");
    cls_invalid_snapshot = PyObject_GetAttrString(mod, "InvalidSnapshotError");
    cls_format = PyObject_GetAttrString(mod, "FormatError");
    cls_storage = PyObject_GetAttrString(mod, "StorageError");
    tspy_exc_not_json = PyObject_GetAttrString(mod, "NotJSONSerializableError");
    Py_DECREF(mod);
    if (cls_error == NULL || cls_unavailable == NULL || cls_not_found == NULL ||
        cls_invalid == NULL || cls_invalid_snapshot == NULL || cls_format == NULL ||
        cls_storage == NULL || tspy_exc_not_json == NULL)
        return -1;
    return 0;
}

/* Codes of the daemon that mean "the input you sent is wrong". */
static bool is_input_error(const char *code)
{
    static const char *const codes[] = {
        "invalid_argument", "invalid_calls", "invalid_json", "invalid_rules",
        "format",           "too_large",     "limit",        "store_refused"};
    size_t i;

    for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
        if (strcmp(code, codes[i]) == 0)
            return true;
    return false;
}

/* Raise cls(message, code) with that instance; NULL. */
static PyObject *raise_with_code(PyObject *cls, PyObject *msg, const char *code)
{
    PyObject *exc;

    if (msg == NULL)
        return NULL;
    exc = PyObject_CallFunction(cls, "Os", msg, code);
    Py_DECREF(msg);
    if (exc == NULL)
        return NULL;
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
    return NULL;
}

PyObject *tspy_raise_format(const char *message)
{
    return raise_with_code(cls_format, PyUnicode_FromString(message), "format");
}

PyObject *tspy_raise(const ts_error *err, const char *socket)
{
    PyObject *cls = cls_error;
    PyObject *msg;

    if (ts_client_error_is_connection(err)) {
        cls = cls_unavailable;
        /* Every connection error names the socket it was about. */
        if (socket != NULL && strstr(err->message, socket) == NULL)
            msg = PyUnicode_FromFormat("%s (socket %s)", err->message, socket);
        else
            msg = PyUnicode_FromString(err->message);
    } else {
        if (strcmp(err->code, "not_found") == 0)
            cls = cls_not_found;
        else if (strcmp(err->code, "invalid_snapshot") == 0)
            cls = cls_invalid_snapshot;
        else if (strcmp(err->code, "format") == 0)
            cls = cls_format;
        else if (strcmp(err->code, "io") == 0)
            cls = cls_storage;
        else if (is_input_error(err->code))
            cls = cls_invalid;
        msg = PyUnicode_FromString(err->message);
    }
    return raise_with_code(cls, msg, err->code);
}
