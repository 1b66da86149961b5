/*
 * ts_html_internal — what the files of ts_html share: reading the JSON
 * report's members (each checked, errors naming the member), the data
 * island's parts (ts_html_data.c: runs and checks; ts_html_sections.c:
 * duplicates, repeats, flaky names, orphans), the counts the page's header
 * is written from, and the template (generated at build time).
 */
#ifndef TS_HTML_INTERNAL_H
#define TS_HTML_INTERNAL_H

#include <stdint.h>

#include "lib/html/ts_html.h"

enum { TSH_NULLABLE = 1, TSH_OPTIONAL = 2 };

/* The member key of o, of type (json_type_double takes ints too): *out
 * NULL when null and TSH_NULLABLE, or absent and TSH_OPTIONAL; else
 * "invalid_argument" naming where.key. */
int tsh_member(const struct json_object *o, const char *key, json_type type, int flags,
               const char *where, struct json_object **out, ts_error *err);

/* What the header shows: checks per outcome (the report's order:
 * CREATED .. ERROR_PENDING_IN_CI) and flaky names. */
typedef struct tsh_counts {
    int64_t outcomes[7];
    int64_t flaky;
} tsh_counts;

/* island.runs, island.checks, island.details and island.calls (the FAILED
 * checks' lists) from report; counts filled. */
int tsh_island_checks(const struct json_object *report, struct json_object *island,
                      tsh_counts *counts, ts_error *err);

/* island.duplicates, island.repeats (their lists' calls joined to
 * island.calls), island.flaky (the report's section, when it has one),
 * island.flaky_names, island.orphans and island.orphans_note. */
int tsh_island_sections(const struct json_object *report, const ts_html_options *opt,
                        struct json_object *island, tsh_counts *counts, ts_error *err);

/* The template (scripts/embed.sh from lib/html/). */
extern const char ts_html_page[], ts_html_style[], ts_html_script[];
extern const size_t ts_html_page_len, ts_html_style_len, ts_html_script_len;

#endif
