/*
 * fuzz_runreport — arbitrary bytes as a shard's JSON report
 * (docs/reports.md), checking that ts_runreport_add_json either refuses
 * them with a code and a one-line message, adding nothing, or reads a report
 * whose JSON form is a fixed point (it reads again and renders the same
 * bytes), whose JUnit holds no byte XML 1.0 forbids, and which is refused
 * when given a second time (its runs are in already).
 */
#include <string.h>

#include "fuzz.h"
#include "fuzz_common.h"
#include "ts_buf.h"
#include "ts_runreport.h"

static void fuzz_render(ts_runreport *r, bool junit, ts_buf *out)
{
    ts_error err;
    int rc;

    ts_buf_init(out, TS_BUF_UNLIMITED);
    rc = junit ? ts_runreport_junit(r, out, &err) : ts_runreport_json(r, out, &err);
    FUZZ_CHECK(rc == 0, "rendering a report that was read failed: %s", err.message);
}

int ts_fuzz_runreport(const uint8_t *data, size_t size)
{
    ts_runreport *r = ts_runreport_new();
    ts_runreport *again = ts_runreport_new();
    ts_buf first, second, xml;
    ts_error err;
    int rc;

    FUZZ_CHECK(r != NULL && again != NULL, "out of memory");
    rc = ts_runreport_add_json(r, (const char *)data, size, &err);
    if (rc < 0) {
        FUZZ_CHECK(err.code[0] != '\0' && err.message[0] != '\0', "empty error");
        FUZZ_CHECK(strchr(err.message, '\n') == NULL, "message not one line: %s", err.message);
        FUZZ_CHECK(ts_runreport_run_count(r) == 0 && ts_runreport_checks(r) == 0,
                   "a refused report added something");
        goto out;
    }
    fuzz_render(r, false, &first);
    rc = ts_runreport_add_json(again, first.data, first.len, &err);
    FUZZ_CHECK(rc == 0, "a rendered report does not read back: %s\n%s", err.message, first.data);
    fuzz_render(again, false, &second);
    FUZZ_CHECK(first.len == second.len && memcmp(first.data, second.data, first.len) == 0,
               "the JSON report is not a fixed point:\n%s\n---\n%s", first.data, second.data);
    fuzz_render(r, true, &xml);
    for (size_t i = 0; i < xml.len; i++) {
        unsigned char c = (unsigned char)xml.data[i];

        FUZZ_CHECK(c >= 0x20 || c == '\n' || c == '\t', "byte %#x in the JUnit XML", c);
    }
    if (ts_runreport_run_count(r) > 0) {
        rc = ts_runreport_add_json(r, first.data, first.len, &err);
        FUZZ_CHECK(rc < 0, "the same runs were added twice");
    }
    ts_buf_free(&first);
    ts_buf_free(&second);
    ts_buf_free(&xml);
out:
    ts_runreport_free(r);
    ts_runreport_free(again);
    return 0;
}

#ifdef TS_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return ts_fuzz_runreport(data, size);
}
#endif
