"""How much the CPython limited API (an abi3 wheel) would cost the Python
extension per check (docs/pytest.md, "One wheel per interpreter").

Compiles one converter three times: the full API as tspy_convert.c uses it,
the limited API of 3.9 (what a cp39-abi3 wheel may call: a str's UTF-8 only
through a new bytes object, list items through function calls) and the
limited API of 3.10 (PyUnicode_AsUTF8AndSize allowed). Each turns the same
value, ten tool calls as a test passes them, into json-c objects, as a check
does before it is sent; the time per value is printed for each, best of 7.
Run with the Python to measure (its headers and json-c's are needed):
    python3 tests/bench/limited_api.py
Not part of make check or make bench (a one-off decision, kept to be re-run).
"""

import importlib.util
import os
import subprocess
import sys
import sysconfig
import tempfile
import timeit

SOURCE = r"""
#include <Python.h>
#include <json-c/json.h>

static struct json_object *conv(PyObject *o)
{
    if (o == Py_None) return NULL;
    if (o == Py_True || o == Py_False) return json_object_new_boolean(o == Py_True);
    if (PyLong_CheckExact(o)) return json_object_new_int64(PyLong_AsLongLong(o));
    if (PyFloat_CheckExact(o)) {
#ifdef Py_LIMITED_API
        return json_object_new_double(PyFloat_AsDouble(o));
#else
        return json_object_new_double(PyFloat_AS_DOUBLE(o));
#endif
    }
    if (PyUnicode_CheckExact(o)) {
#if defined(Py_LIMITED_API) && Py_LIMITED_API < 0x030a0000
        PyObject *b = PyUnicode_AsUTF8String(o);
        char *s; Py_ssize_t n;
        struct json_object *j;
        if (b == NULL || PyBytes_AsStringAndSize(b, &s, &n) < 0) { Py_XDECREF(b); return NULL; }
        j = json_object_new_string_len(s, (int)n);
        Py_DECREF(b);
        return j;
#else
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(o, &n);
        return s ? json_object_new_string_len(s, (int)n) : NULL;
#endif
    }
    if (PyList_CheckExact(o)) {
        struct json_object *a = json_object_new_array();
#ifdef Py_LIMITED_API
        Py_ssize_t n = PyList_Size(o);
        for (Py_ssize_t i = 0; i < n; i++) json_object_array_add(a, conv(PyList_GetItem(o, i)));
#else
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(o); i++) json_object_array_add(a, conv(PyList_GET_ITEM(o, i)));
#endif
        return a;
    }
    if (PyDict_CheckExact(o)) {
        struct json_object *d = json_object_new_object();
        PyObject *k, *v; Py_ssize_t pos = 0;
        while (PyDict_Next(o, &pos, &k, &v)) {
#if defined(Py_LIMITED_API) && Py_LIMITED_API < 0x030a0000
            PyObject *b = PyUnicode_AsUTF8String(k);
            char *s; Py_ssize_t n;
            PyBytes_AsStringAndSize(b, &s, &n);
            json_object_object_add_ex(d, s, conv(v), 0);
            Py_DECREF(b);
#else
            Py_ssize_t n;
            json_object_object_add_ex(d, PyUnicode_AsUTF8AndSize(k, &n), conv(v), 0);
#endif
        }
        return d;
    }
    return NULL;
}

static PyObject *walk(PyObject *self, PyObject *arg)
{
    (void)self;
    json_object_put(conv(arg));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {{"walk", walk, METH_O, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, MODNAME, NULL, -1, methods};
PyMODINIT_FUNC PYINIT(void) { return PyModule_Create(&def); }
"""

CALLS = [{"tool": f"tool_{i}", "args": {"destination": "NYC", "origin": "SFO", "passengers": 2,
                                      "budget": 450.5, "dates": ["2025-06-01", "2025-06-05"],
                                      "flexible": True, "notes": "window seat, no red-eye",
                                      "loyalty": {"program": "star", "number": "AB123456"}}}
         for i in range(10)]


def build(tmp, name, limited):
    inc = sysconfig.get_paths()["include"]
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "json-c"], check=True,
                           capture_output=True, text=True).stdout.split()
    src = os.path.join(tmp, name + ".c")
    with open(src, "w") as f:
        f.write(f'#define MODNAME "{name}"\n#define PYINIT PyInit_{name}\n')
        if limited:
            f.write(f"#define Py_LIMITED_API {limited}\n")
        f.write(SOURCE)
    out = os.path.join(tmp, name + sysconfig.get_config_var("EXT_SUFFIX"))
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-Werror=implicit-function-declaration",
                    "-I", inc, src, "-o", out] + flags, check=True)
    spec = importlib.util.spec_from_file_location(name, out)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    with tempfile.TemporaryDirectory() as tmp:
        kinds = [("full", None), ("limited_39", "0x03090000")]
        if sys.version_info >= (3, 10):
            kinds.append(("limited_310", "0x030a0000"))
        mods = {k: build(tmp, k, v) for k, v in kinds}
        best = {k: float("inf") for k in mods}
        n = 20000
        for _ in range(15):  # interleaved, so that a busy moment hits all alike
            for name, mod in mods.items():
                t = timeit.timeit(lambda: mod.walk(CALLS), number=n) / n * 1e6
                best[name] = min(best[name], t)
        print(f"CPython {sys.version.split()[0]}:")
        for name in mods:
            print(f"  {name:12s} {best[name]:6.2f} µs per 10-call value  "
                  f"({best[name] / best['full']:.2f}x)")


if __name__ == "__main__":
    main()
