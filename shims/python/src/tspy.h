/*
 * tspy.h — the internals of toolscored._native, the CPython extension of
 * the toolscored Python package (docs/pytest.md): Python values to the
 * client library's json-c values and back, the one call of the check API,
 * and the exceptions the module raises. Everything here runs with the GIL
 * held unless a function says otherwise.
 */
#ifndef TSPY_H
#define TSPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>

#include <json-c/json.h>

#include "client/toolscore_client.h"
#include "lib/base/ts_base.h"

/* Containers nested in one converted value: the wire allows 128 levels per
 * frame and a check's `actual` sits two levels deep (docs/protocol.md). */
#define TSPY_MAX_DEPTH 126

/*
 * Convert the Python value obj to a new json-c value in *out (NULL for
 * None: json-c's null), owned by the caller (json_object_put). root names
 * the value in error messages ("actual", "weights"). Exact built-in types
 * first (dict, list, tuple, str, int, float, bool, None), then their
 * subclasses as json.dumps treats them, then the objects agent SDKs return:
 * model_dump(mode="json"), to_dict(), to_json_dict(), dict(), dataclasses.
 * Returns 0, or -1 with a Python exception set: NotJSONSerializableError (a
 * TypeError) for a value of no JSON type, ValueError for NaN/infinity, an integer outside -2**63 ..
 * 2**64-1, a cycle, a string that is not valid Unicode, a key with NUL, or
 * nesting past TSPY_MAX_DEPTH; each message names the type and the path of
 * the value inside obj (e.g. actual[0]['args']['conn']).
 */
int tspy_to_json(PyObject *obj, const char *root, struct json_object **out);

/*
 * Convert obj as tspy_to_json does, appending it to out as one msgpack
 * value: the bytes the client library packs for the equal json-c value.
 * Returns 0, or -1 with the exception set (out as it was before the call).
 * tspy_to_json is this, decoded.
 */
int tspy_pack(PyObject *obj, const char *root, ts_buf *out);

/* A new Python value for the json-c value v (NULL: None); NULL with an
 * exception set on failure. */
PyObject *tspy_from_json(const struct json_object *v);

/*
 * A new Python value for the one msgpack value data[0..len) (a reply's
 * result, as the client library hands it over): what tspy_from_json gives
 * for the same value decoded to json-c (maps to dicts in their key order,
 * 64-bit integers exact). A value the protocol refuses (bin, ext, a key
 * that is not a str, invalid UTF-8, bytes cut short or left over, nesting
 * past TS_WIRE_REPLY_MAX_DEPTH) is a ValueError naming the byte.
 */
PyObject *tspy_from_msgpack(const void *data, size_t len);

/* What one check sends: strings borrowed (UTF-8), values borrowed. */
typedef struct tspy_check_params {
    const char *store;
    const char *name;
    const void *actual; /* one msgpack value (tspy_pack) */
    size_t actual_len;
    const char *format; /* NULL: "auto" */
    double min_score;
    const struct json_object *weights; /* NULL: defaults */
    const struct json_object *rules;   /* comparison rules, NULL: none */
    bool strict;
    bool ci;
    bool update;
    bool allow_pending;
    const char *run;  /* NULL: no run */
    const char *test; /* NULL: no claim */
    bool color;
    unsigned width;    /* the report's width; 0: the daemon's default */
    bool json_diff;    /* the report ends with the JSON diff */
    const char *tsctl; /* how the user runs tsctl (printed commands); NULL: "tsctl" */
} tspy_check_params;

/*
 * The check request on c (the client library's check API, its one caller
 * in this module), with a (kept by the caller between checks, so that its
 * copies of strings that do not change are reused): result gets the
 * msgpack bytes of the reply's result (for tspy_from_msgpack). Returns what
 * ts_client_check_bytes returns. Called WITHOUT the GIL.
 */
int tspy_check_call(ts_client *c, ts_check_args *a, const tspy_check_params *p, ts_buf *result,
                    ts_error *err);

/*
 * The module's exception classes (from toolscored._errors), set by
 * tspy_errors_init. tspy_raise sets the one err calls for:
 * DaemonUnavailableError for a connection failure (its message naming
 * socket), NotFoundError (a KeyError), InvalidSnapshotError and
 * InvalidInputError (ValueErrors) for a broken snapshot and the daemon's
 * input errors, else ToolscoreError; each with .code. Returns NULL.
 * FormatError (an InvalidInputError and a TypeError) for "format",
 * StorageError (an OSError) for "io".
 * tspy_raise_format raises FormatError(message, "format") from the module
 * itself. tspy_exc_not_json is NotJSONSerializableError (a TypeError and
 * a ValueError), which tspy_to_json raises for a value of no JSON type.
 */
extern PyObject *tspy_exc_not_json;
int tspy_errors_init(void);
PyObject *tspy_raise_format(const char *message);
PyObject *tspy_raise(const ts_error *err, const char *socket);

#endif
