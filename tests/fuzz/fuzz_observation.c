/*
 * fuzz_observation — arbitrary bytes as a kept observation's file (the
 * daemon's state directory): ts_observation_parse either refuses them with
 * a code and a one-line message, or gives an observation whose file is a
 * fixed point (it parses again to the same bytes) with the same calls, and
 * whose calls have an id that its own serialization keeps.
 */
#include <string.h>

#include "fuzz.h"
#include "fuzz_common.h"
#include "lib/base/ts_base.h"
#include "lib/check/ts_check.h"
#include "lib/json/ts_json.h"

static void fuzz_write(const ts_observation *o, ts_buf *out)
{
    ts_error err;
    int rc;

    ts_buf_init(out, TS_OBSERVATION_MAX_BYTES * 2);
    rc = ts_observation_serialize(o, out, &err);
    FUZZ_CHECK(rc == 0 || rc == -E2BIG, "serializing a parsed observation failed: %s", err.message);
}

int ts_fuzz_observation(const uint8_t *data, size_t size)
{
    ts_observation *o = NULL;
    ts_observation *again = NULL;
    char id[TS_OBSERVATION_ID_LEN + 1];
    ts_buf first, second;
    ts_error err;
    int rc = ts_observation_parse((const char *)data, size, "fuzz", &o, &err);

    if (rc < 0) {
        FUZZ_CHECK(o == NULL, "observation returned on failure");
        FUZZ_CHECK(err.code[0] != '\0' && strncmp(err.message, "fuzz: ", 6) == 0,
                   "error without the file's name: %s", err.message);
        FUZZ_CHECK(strchr(err.message, '\n') == NULL, "message not one line: %s", err.message);
        return 0;
    }
    FUZZ_CHECK(o->name != NULL && o->calls != NULL, "parsed observation without name or calls");
    FUZZ_CHECK(strlen(o->baseline) == TS_OBSERVATION_ID_LEN, "baseline %s", o->baseline);
    fuzz_write(o, &first);
    if (first.data != NULL) {
        rc = ts_observation_parse(first.data, first.len, "written", &again, &err);
        FUZZ_CHECK(rc == 0, "a written observation does not parse: %s", err.message);
        FUZZ_CHECK(ts_json_equal(o->calls, again->calls), "the calls changed");
        FUZZ_CHECK(strcmp(o->baseline, again->baseline) == 0, "the baseline changed");
        fuzz_write(again, &second);
        FUZZ_CHECK(first.len == second.len && memcmp(first.data, second.data, first.len) == 0,
                   "the file is not a fixed point");
        ts_buf_free(&second);
        ts_observation_free(again);
    }
    FUZZ_CHECK(ts_observation_calls_id(o->calls, id, &err) == 0, "no id: %s", err.message);
    FUZZ_CHECK(ts_json_equal(o->calls, o->calls), "calls not equal to themselves");
    ts_buf_free(&first);
    ts_observation_free(o);
    return 0;
}

#ifdef TS_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return ts_fuzz_observation(data, size);
}
#endif
