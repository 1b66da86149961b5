/*
 * ts_runreport_junit — a run report as JUnit XML, in the strict form of the
 * common JUnit schema (the Apache Ant format that Jenkins and GitLab read):
 *
 *   <testsuites>
 *     <testsuite name package id timestamp hostname tests failures errors
 *                skipped time>          one per run
 *       <properties>                   run id, store, label, completeness
 *       <testcase classname name time> one per check, at most one of
 *         <skipped message>            CREATED / UPDATED / PENDING
 *         <failure type message>       FAILED, with the drift report
 *         <error type message>         the CI errors
 *       <system-out>                   the run's summary line
 *       <system-err>
 *   and, when two tests claimed one name, one more testsuite with an
 *   <error> testcase per such name.
 *
 * Text is escaped for XML 1.0: markup characters as entities, ANSI colour
 * sequences dropped, characters XML forbids replaced by U+FFFD; in
 * attributes, line breaks and tabs as character references.
 */
#include "ts_runreport_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/base/ts_base.h"

#define REPLACEMENT "\xEF\xBF\xBD"

/* Skip an ANSI escape sequence at s (ESC [ ... final byte); its length. */
static size_t ansi_length(const char *s, size_t len)
{
    size_t i = 2;

    if (len < 2 || s[0] != 0x1b || s[1] != '[')
        return 0;
    while (i < len && !(s[i] >= '@' && s[i] <= '~'))
        i++;
    return i < len ? i + 1 : len;
}

/* Append s escaped; attribute escaping when attr. */
static int xml_escape(ts_buf *b, const char *s, bool attr)
{
    size_t len = s != NULL ? strlen(s) : 0;
    size_t i = 0;
    int rc = 0;

    while (rc == 0 && i < len) {
        unsigned char ch = (unsigned char)s[i];
        uint32_t cp;
        size_t n;

        if (ch == 0x1b && (n = ansi_length(s + i, len - i)) > 0) {
            i += n;
            continue;
        }
        switch (ch) {
        case '&':
            rc = ts_buf_appends(b, "&amp;");
            break;
        case '<':
            rc = ts_buf_appends(b, "&lt;");
            break;
        case '>':
            rc = ts_buf_appends(b, "&gt;");
            break;
        case '"':
            rc = ts_buf_appends(b, "&quot;");
            break;
        case '\n':
            rc = ts_buf_appends(b, attr ? "&#10;" : "\n");
            break;
        case '\r':
            rc = ts_buf_appends(b, "&#13;");
            break;
        case '\t':
            rc = ts_buf_appends(b, attr ? "&#9;" : "\t");
            break;
        default:
            if (ch < 0x20) {
                rc = ts_buf_appends(b, REPLACEMENT);
                break;
            }
            if (ch < 0x80) {
                rc = ts_buf_appendc(b, (char)ch);
                break;
            }
            n = ts_utf8_decode((const unsigned char *)s + i, len - i, &cp);
            if (n == 0) {
                rc = ts_buf_appends(b, REPLACEMENT);
                break;
            }
            /* U+FFFE, U+FFFF and the C1 controls are not XML characters
             * (C1 are allowed but discouraged; readers choke on them). */
            if (cp == 0xFFFE || cp == 0xFFFF || (cp >= 0x80 && cp <= 0x9F))
                rc = ts_buf_appends(b, REPLACEMENT);
            else
                rc = ts_buf_append(b, s + i, n);
            i += n;
            continue;
        }
        i++;
    }
    return rc;
}

/* Seconds of ms with 3 to 6 decimals ("0.000312", "0.002", "1.250"). */
static void seconds(double ms, char out[48])
{
    size_t len;

    snprintf(out, 48, "%.6f", ms > 0 ? ms / 1000.0 : 0.0);
    len = strlen(out);
    while (len > 0 && out[len - 1] == '0' && out[len - 4] != '.')
        out[--len] = '\0';
}

int ts_runreport_junit_names(const char *test, const char *name, ts_buf *classname,
                             ts_buf *case_name)
{
    const char *bracket;
    const char *sep;
    const char *last;
    size_t path_len;
    int rc = 0;

    if (test == NULL || test[0] == '\0') {
        if (ts_buf_appends(classname, "toolscore") < 0)
            return -ENOMEM;
        return ts_buf_appends(case_name, name != NULL ? name : "");
    }
    /* pytest: the params ("[...]") may hold "::"; only the part before
     * them is split. */
    bracket = strchr(test, '[');
    path_len = bracket != NULL ? (size_t)(bracket - test) : strlen(test);
    sep = memmem(test, path_len, "::", 2);
    if (sep == NULL) {
        if (ts_buf_appends(classname, "toolscore") < 0)
            return -ENOMEM;
        return ts_buf_appends(case_name, test);
    }
    last = sep;
    for (const char *p = sep; (p = memmem(p, path_len - (size_t)(p - test), "::", 2)) != NULL;
         p += 2)
        last = p;
    /* The file part: "/" to ".", without ".py". */
    {
        size_t file_len = (size_t)(sep - test);

        if (file_len >= 3 && memcmp(sep - 3, ".py", 3) == 0)
            file_len -= 3;
        for (size_t i = 0; rc == 0 && i < file_len; i++)
            rc = ts_buf_appendc(classname, test[i] == '/' ? '.' : test[i]);
    }
    /* The classes between the file and the test, "::" to ".". */
    for (const char *p = sep; rc == 0 && p < last;) {
        const char *next = memmem(p + 2, (size_t)(last - p), "::", 2);

        if (next == NULL || next > last)
            next = last;
        rc = ts_buf_appendc(classname, '.');
        if (rc == 0)
            rc = ts_buf_append(classname, p + 2, (size_t)(next - p - 2));
        p = next;
    }
    if (rc == 0)
        rc = ts_buf_appends(case_name, last + 2);
    return rc < 0 ? -ENOMEM : 0;
}

static int property(ts_buf *b, const char *name, const char *value)
{
    int rc = ts_buf_appendf(b, "      <property name=\"%s\" value=\"", name);

    if (rc == 0)
        rc = xml_escape(b, value, true);
    return rc == 0 ? ts_buf_appends(b, "\"/>\n") : rc;
}

static int testcase(ts_buf *b, const rr_check *c)
{
    ts_buf cls, nm;
    char secs[48];
    const char *oname = ts_runreport_outcome_name(c->outcome);
    int rc;

    ts_buf_init(&cls, TS_BUF_UNLIMITED);
    ts_buf_init(&nm, TS_BUF_UNLIMITED);
    rc = ts_runreport_junit_names(c->test, c->name, &cls, &nm);
    seconds(c->duration_ms, secs);
    if (rc == 0)
        rc = ts_buf_appends(b, "    <testcase classname=\"");
    if (rc == 0)
        rc = xml_escape(b, cls.data ? cls.data : "", true);
    if (rc == 0)
        rc = ts_buf_appends(b, "\" name=\"");
    if (rc == 0)
        rc = xml_escape(b, nm.data ? nm.data : "", true);
    ts_buf_free(&cls);
    ts_buf_free(&nm);
    if (rc == 0)
        rc = ts_buf_appendf(b, "\" time=\"%s\"", secs);
    if (rc < 0)
        return rc;
    switch (c->outcome) {
    case TS_RUNREPORT_PASSED:
        return ts_buf_appends(b, "/>\n");
    case TS_RUNREPORT_CREATED:
    case TS_RUNREPORT_UPDATED:
    case TS_RUNREPORT_PENDING:
        rc = ts_buf_appendf(b, ">\n      <skipped message=\"%s: ", oname);
        if (rc == 0)
            rc = xml_escape(b, c->message, true);
        return rc == 0 ? ts_buf_appends(b, "\"/>\n    </testcase>\n") : rc;
    default:
        rc = ts_buf_appendf(b, ">\n      <%s type=\"%s\" message=\"",
                            c->outcome == TS_RUNREPORT_FAILED ? "failure" : "error", oname);
        if (rc == 0)
            rc = xml_escape(b, c->message, true);
        if (rc == 0)
            rc = ts_buf_appends(b, "\">");
        if (rc == 0)
            rc = xml_escape(b, c->report != NULL && c->report[0] ? c->report : c->message, false);
        if (rc == 0)
            rc = ts_buf_appendf(b, "</%s>\n    </testcase>\n",
                                c->outcome == TS_RUNREPORT_FAILED ? "failure" : "error");
        return rc;
    }
}

/* The opening tag of a testsuite (through <properties>). */
static int suite_open(ts_buf *b, const char *label, size_t id, const char *host, int64_t opened,
                      size_t tests, size_t failures, size_t errors, size_t skipped, double ms)
{
    char stamp[32];
    char secs[48];
    time_t t = (time_t)((opened > 0 ? opened : 0) / 1000);
    struct tm tm;
    int rc;

    gmtime_r(&t, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    seconds(ms, secs);
    rc = ts_buf_appends(b, "  <testsuite name=\"toolscore");
    if (rc == 0 && label != NULL && label[0] != '\0') {
        rc = ts_buf_appendc(b, ' ');
        if (rc == 0)
            rc = xml_escape(b, label, true);
    }
    if (rc == 0)
        rc = ts_buf_appendf(b, "\" package=\"toolscore\" id=\"%zu\" timestamp=\"%s\" hostname=\"",
                            id, stamp);
    if (rc == 0)
        rc = xml_escape(b, host != NULL && host[0] != '\0' ? host : "localhost", true);
    if (rc == 0)
        rc = ts_buf_appendf(b,
                            "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
                            "time=\"%s\">\n    <properties>\n",
                            tests, failures, errors, skipped, secs);
    return rc;
}

static int run_suite(ts_buf *b, const ts_runreport *r, size_t ri)
{
    const rr_run *run = &r->runs[ri];
    size_t tests = 0, failures = 0, errors = 0, skipped = 0;
    double ms = 0;
    ts_buf line;
    int rc;

    for (size_t i = 0; i < r->nchecks; i++) {
        const rr_check *c = &r->checks[i];

        if (c->run != ri)
            continue;
        tests++;
        ms += c->duration_ms;
        failures += c->outcome == TS_RUNREPORT_FAILED;
        errors += c->outcome == TS_RUNREPORT_ERROR_MISSING_IN_CI ||
                  c->outcome == TS_RUNREPORT_ERROR_PENDING_IN_CI;
        skipped += c->outcome == TS_RUNREPORT_CREATED || c->outcome == TS_RUNREPORT_UPDATED ||
                   c->outcome == TS_RUNREPORT_PENDING;
    }
    rc = suite_open(b, run->label, ri, run->host, run->opened_ms, tests, failures, errors, skipped,
                    ms);
    if (rc == 0)
        rc = property(b, "toolscore.run", run->id);
    if (rc == 0 && run->store != NULL)
        rc = property(b, "toolscore.store", run->store);
    if (rc == 0)
        rc = property(b, "toolscore.complete",
                      !run->partial && run->closed_ms >= 0 ? "true" : "false");
    for (size_t i = 0; rc == 0 && i < run->nreasons; i++)
        rc = property(b, "toolscore.partial_reason", run->reasons[i]);
    if (rc == 0)
        rc = ts_buf_appends(b, "    </properties>\n");
    for (size_t i = 0; rc == 0 && i < r->nchecks; i++) {
        if (r->checks[i].run == ri)
            rc = testcase(b, &r->checks[i]);
    }
    ts_buf_init(&line, 4096);
    if (rc == 0)
        rc = ts_report_summary(&run->counts, &line);
    if (rc == 0)
        rc = ts_buf_appends(b, "    <system-out>");
    if (rc == 0)
        rc = xml_escape(b, line.data, false);
    ts_buf_free(&line);
    if (rc == 0)
        rc = ts_buf_appends(b, "</system-out>\n    <system-err></system-err>\n  </testsuite>\n");
    return rc;
}

/* The testsuite of names claimed by two or more tests. */
static int duplicates_suite(ts_buf *b, const ts_runreport *r)
{
    size_t ndup = ts_runreport_duplicates(r);
    size_t *idx;
    int rc;

    if (ndup == 0)
        return 0;
    idx = rr_sorted_names(r);
    if (idx == NULL)
        return -ENOMEM;
    rc = suite_open(b, "duplicate claims", r->nruns, r->nruns ? r->runs[0].host : NULL,
                    r->nruns ? r->runs[0].opened_ms : 0, ndup, 0, ndup, 0, 0);
    if (rc == 0)
        rc = ts_buf_appends(b, "    </properties>\n");
    for (size_t i = 0; rc == 0 && i < r->nnames; i++) {
        const rr_name *n = r->names[idx[i]];

        if (n->ntests < 2)
            continue;
        rc = ts_buf_appends(b, "    <testcase classname=\"toolscore.duplicates\" name=\"");
        if (rc == 0)
            rc = xml_escape(b, n->name, true);
        if (rc == 0)
            rc = ts_buf_appends(b, "\" time=\"0.000\">\n      <error type=\"duplicate_claim\" "
                                   "message=\"snapshot '");
        if (rc == 0)
            rc = xml_escape(b, n->name, true);
        if (rc == 0)
            rc = ts_buf_appends(b, "' was claimed by more than one test\">");
        for (size_t t = 0; rc == 0 && t < n->ntests; t++) {
            rc = xml_escape(b, n->tests[t], false);
            if (rc == 0)
                rc = ts_buf_appendc(b, '\n');
        }
        if (rc == 0)
            rc = ts_buf_appends(b, "</error>\n    </testcase>\n");
    }
    if (rc == 0)
        rc = ts_buf_appends(b, "    <system-out></system-out>\n    <system-err></system-err>\n"
                               "  </testsuite>\n");
    free(idx);
    return rc;
}

int ts_runreport_junit(ts_runreport *r, ts_buf *out, ts_error *err)
{
    int rc = ts_buf_appends(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");

    for (size_t i = 0; rc == 0 && i < r->nruns; i++)
        rc = run_suite(out, r, i);
    if (rc == 0)
        rc = duplicates_suite(out, r);
    if (rc == 0)
        rc = ts_buf_appends(out, "</testsuites>\n");
    if (rc == -E2BIG)
        return ts_error_set(err, rc, TS_ERR_TOO_LARGE, "the JUnit report is too large");
    if (rc < 0)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    return 0;
}
