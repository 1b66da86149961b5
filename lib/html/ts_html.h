/*
 * ts_html — the HTML report of a run: ONE self-contained page (no network,
 * no CDN; it works from file:// and as a CI artifact) made from the JSON
 * report (docs/reports.md) and a template checked into the repository
 * (lib/html/: the page, its style sheet and its script, turned into C at
 * build time by scripts/embed.sh). The page shows the summary line and the
 * counts at once; the script reads the run's data from a JSON data island
 * and builds the list of checks, the filters, the search, the details of a
 * check on expand (the drift report, the expected | actual calls side by
 * side with the differing paths marked, `tsctl accept NAME` to copy), the
 * flaky names, the names two tests claimed and the orphans.
 *
 *   struct json_object *tree;
 *   ts_runreport_json_tree(report, &tree, &err);
 *   ts_html_options opt;
 *   ts_html_options_default(&opt);
 *   ts_html_render(tree, &opt, &out, &err);
 *
 * Every value of the report is untrusted (names, tests, arguments, drift
 * reports): each is escaped for where it goes, HTML text, a quoted
 * attribute, or the data island (no "<", ">", "&", U+2028, U+2029 left as
 * such in it, so no "</script>" or "<!--" can end or change the element).
 * Pure: no I/O; deterministic (the same report, the same bytes).
 */
#ifndef TS_HTML_H
#define TS_HTML_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "lib/base/ts_base.h"

typedef struct ts_html_options {
    /* The store's snapshots no check of the report referenced: an array of
     * names, shown only when the report is complete; NULL: not known. */
    const struct json_object *orphans;
    /* Why the orphans are not shown, when orphans is NULL (NULL: the
     * page says they are known for complete runs only). */
    const char *orphans_note;
    const char *title; /* NULL: "toolscore run report" */
} ts_html_options;

void ts_html_options_default(ts_html_options *opt);

/*
 * Append the page for report (a JSON report as ts_runreport_json_tree
 * gives it, or as read from a file) to out. The members the page uses are
 * checked: a tree that is not such a report is "invalid_argument" naming
 * the member ("checks[3].name: must be a string"); out's limit is
 * "too_large"; nothing is appended on error.
 */
int ts_html_render(const struct json_object *report, const ts_html_options *opt, ts_buf *out,
                   ts_error *err);

/* Escapes, appending to out (all return out's error, 0 or -ENOMEM/-E2BIG).
 * Bytes that are not UTF-8 and control characters other than tab, line
 * feed and carriage return become U+FFFD in each. */

/* HTML text (element content): & < > " ' as character references. */
int ts_html_escape_text(const char *s, size_t len, ts_buf *out);

/* A double-quoted attribute value: as text, and tab / line breaks as
 * character references. */
int ts_html_escape_attr(const char *s, size_t len, ts_buf *out);

/* JSON text (as ts_json_write_compact writes it) for a
 * <script type="application/json"> element: "<", ">", "&", U+2028 and
 * U+2029 written as \uXXXX escapes (they only occur inside strings, where
 * the escape means the same character), so the element holds no markup. */
int ts_html_escape_json(const char *s, size_t len, ts_buf *out);

#endif
