/*
 * fuzz_snapshot — arbitrary bytes as a snapshot file, checking that
 * ts_snapshot_parse either refuses them with a code and a one-line message
 * or gives a snapshot whose serialization is a fixed point: it parses again,
 * serializes to the same bytes, and a copy serializes to the same bytes.
 * Names (the parsed one and the raw input bytes) map to file names that stay
 * inside the store root. The listing's one-pass scan (ts_snapshot_scan)
 * never accepts bytes the parser refuses, and gives the parser's members.
 */
#include <string.h>

#include "fuzz.h"
#include "fuzz_common.h"
#include "lib/base/ts_base.h"
#include "lib/json/ts_json.h"
#include "lib/snapshot/ts_snapshot.h"
#include "lib/store/ts_store.h"

static void fuzz_serialize(const ts_snapshot *s, ts_buf *out)
{
    ts_error err;
    int rc;

    ts_buf_init(out, (size_t)TS_SNAPSHOT_MAX_BYTES * 4);
    rc = ts_snapshot_serialize(s, out, &err);
    FUZZ_CHECK(rc == 0, "serializing a parsed snapshot failed: %s", err.message);
    FUZZ_CHECK(out->len > 0 && out->data[out->len - 1] == '\n', "no final newline");
}

/* A name's file name stays inside the store root: one path component,
 * never "." or "..", "<stem>-<8 hex>.json", valid UTF-8. */
static void fuzz_file_name(const char *name, size_t len)
{
    char file[TS_FILENAME_MAX];
    ts_error err;
    size_t n, i;
    int rc;

    rc = ts_name_to_filename(name, len, file, sizeof(file), &err);
    if (rc < 0) {
        FUZZ_CHECK(err.code[0] != '\0' && strchr(err.message, '\n') == NULL, "bad error");
        return;
    }
    n = strlen(file);
    FUZZ_CHECK(n > 14 && n < sizeof(file), "file name length %zu", n);
    FUZZ_CHECK(strchr(file, '/') == NULL && strcmp(file, ".") != 0 && strcmp(file, "..") != 0,
               "file name %s leaves the root", file);
    FUZZ_CHECK(file[0] != '.', "hidden file name %s", file);
    FUZZ_CHECK(strcmp(file + n - 5, ".json") == 0 && file[n - 14] == '-', "shape of %s", file);
    for (i = n - 13; i < n - 5; i++)
        FUZZ_CHECK((file[i] >= '0' && file[i] <= '9') || (file[i] >= 'a' && file[i] <= 'f'),
                   "hash of %s", file);
    FUZZ_CHECK(ts_utf8_valid(file, n), "file name is not UTF-8");
}

/* The scan's members m are the parsed snapshot's. */
static void fuzz_same_members(const ts_snapshot_scan *m, const ts_snapshot *s)
{
    FUZZ_CHECK(m->name_len == strlen(s->name) && memcmp(m->name, s->name, m->name_len) == 0,
               "scan name differs");
    FUZZ_CHECK(m->source_len == strlen(s->source) &&
                   memcmp(m->source, s->source, m->source_len) == 0,
               "scan source differs");
    FUZZ_CHECK(m->created_len == strlen(s->created_at) &&
                   memcmp(m->created_at, s->created_at, m->created_len) == 0,
               "scan created_at differs");
    FUZZ_CHECK(m->updated_len == strlen(s->updated_at) &&
                   memcmp(m->updated_at, s->updated_at, m->updated_len) == 0,
               "scan updated_at differs");
    FUZZ_CHECK(m->approved == s->approved, "scan approved differs");
    FUZZ_CHECK(m->calls == json_object_array_length(s->calls), "scan call count differs");
}

int ts_fuzz_snapshot(const uint8_t *data, size_t size)
{
    ts_snapshot_scan m;
    bool scanned = ts_snapshot_scan_summary((const char *)data, size, &m);
    ts_snapshot *s = NULL, *again = NULL, *copy;
    struct json_object *j;
    ts_buf first, second, third;
    ts_error err;
    int rc;

    fuzz_file_name((const char *)data, size < TS_NAME_MAX_BYTES + 8 ? size : TS_NAME_MAX_BYTES + 8);
    rc = ts_snapshot_parse((const char *)data, size, "fuzz.json", &s, &err);
    if (rc < 0) {
        FUZZ_CHECK(!scanned, "the scan accepts what the parser refuses: %s", err.message);
        FUZZ_CHECK(s == NULL, "snapshot returned on failure");
        FUZZ_CHECK(err.code[0] != '\0' && err.message[0] != '\0', "empty error");
        FUZZ_CHECK(strchr(err.message, '\n') == NULL, "message not one line: %s", err.message);
        return 0;
    }
    FUZZ_CHECK(s != NULL && s->name != NULL, "parsed snapshot without a name");
    if (scanned)
        fuzz_same_members(&m, s);
    fuzz_file_name(s->name, strlen(s->name));
    fuzz_serialize(s, &first);
    rc = ts_snapshot_parse(first.data, first.len, "serialized", &again, &err);
    FUZZ_CHECK(rc == 0, "serialized snapshot does not parse: %s\n%s", err.message, first.data);
    fuzz_serialize(again, &second);
    FUZZ_CHECK(first.len == second.len && memcmp(first.data, second.data, first.len) == 0,
               "serialization is not a fixed point:\n%s\n---\n%s", first.data, second.data);
    copy = ts_snapshot_copy(s);
    FUZZ_CHECK(copy != NULL, "copy failed");
    fuzz_serialize(copy, &third);
    FUZZ_CHECK(first.len == third.len && memcmp(first.data, third.data, first.len) == 0,
               "a copy serializes differently");
    j = ts_snapshot_to_json(s);
    FUZZ_CHECK(j != NULL, "to_json failed");
    json_object_put(j);
    ts_buf_free(&first);
    ts_buf_free(&second);
    ts_buf_free(&third);
    ts_snapshot_free(copy);
    ts_snapshot_free(again);
    ts_snapshot_free(s);
    return 0;
}

#ifdef TS_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return ts_fuzz_snapshot(data, size);
}
#endif
