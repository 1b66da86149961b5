/*
 * fuzz_runreport — arbitrary bytes as a shard's JSON report
 * (docs/reports.md), checking that ts_runreport_add_json either refuses
 * them with a code and a one-line message, adding nothing, or reads a report
 * whose JSON form is a fixed point (it reads again and renders the same
 * bytes), whose JUnit holds no byte XML 1.0 forbids, and which is refused
 * when given a second time (its runs are in already), and whose HTML page
 * (lib/html/ts_html) holds its two script elements and no other markup the
 * report could have brought in.
 */
#include <string.h>
#include <strings.h>

#include "fuzz.h"
#include "fuzz_common.h"
#include "lib/base/ts_base.h"
#include "lib/html/ts_html.h"
#include "lib/runreport/ts_runreport.h"

/* Occurrences of s (ASCII, lower case) in the page, case-insensitively. */
static size_t count_ci(const char *page, size_t len, const char *s)
{
    size_t n = strlen(s), found = 0;

    for (size_t i = 0; i + n <= len; i++)
        found += strncasecmp(page + i, s, n) == 0;
    return found;
}

/* The page of r: made, with its own two scripts and no markup from r. */
static void fuzz_html(ts_runreport *r)
{
    struct json_object *tree = NULL;
    ts_buf page;
    ts_error err;
    int rc = ts_runreport_json_tree(r, &tree, &err);

    FUZZ_CHECK(rc == 0, "no JSON tree of a report that was read: %s", err.message);
    ts_buf_init(&page, TS_BUF_UNLIMITED);
    rc = ts_html_render(tree, NULL, &page, &err);
    FUZZ_CHECK(rc == 0, "no page of a report that was read: %s", err.message);
    FUZZ_CHECK(count_ci(page.data, page.len, "<script") == 2 &&
                   count_ci(page.data, page.len, "</script") == 2,
               "the report brought a script element into the page");
    FUZZ_CHECK(count_ci(page.data, page.len, "<!--") == 0, "a comment in the page");
    FUZZ_CHECK(count_ci(page.data, page.len, "<img") == 0, "an image in the page");
    ts_buf_free(&page);
    json_object_put(tree);
}

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
    fuzz_html(r);
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
