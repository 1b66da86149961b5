/*
 * ts_html — the HTML report's page (see ts_html.h): the template's markers
 * filled in, each with the escape of where it stands. The header (title,
 * summary line, the counts as filter buttons, the runs) is written here as
 * HTML, so the page says what happened even before its script ran; the
 * rest is the data island the script renders from.
 */
#include "ts_html_internal.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <sha2.h>

#include "lib/json/ts_json.h"

#define DEFAULT_TITLE "toolscore run report"

void ts_html_options_default(ts_html_options *opt)
{
    memset(opt, 0, sizeof(*opt));
}

static void text(ts_buf *out, const char *s)
{
    ts_html_escape_text(s, strlen(s), out);
}

/* The filter buttons, in the order of the filters. */
static void chips(ts_buf *out, const tsh_counts *c)
{
    const int64_t *o = c->outcomes;
    const struct {
        const char *filter, *key, *label;
        int64_t n;
    } chip[] = {
        {"all", "a", "all", o[0] + o[1] + o[2] + o[3] + o[4] + o[5] + o[6]},
        {"failed", "f", "failed", o[4]},
        {"errors", "e", "CI errors", o[5] + o[6]},
        {"created", "c", "created", o[0]},
        {"pending", "p", "pending", o[2]},
        {"updated", "u", "updated", o[1]},
        {"flaky", "y", "flaky", c->flaky},
        {"passed", "s", "passed", o[3]},
    };

    for (size_t i = 0; i < sizeof(chip) / sizeof(chip[0]); i++)
        ts_buf_appendf(out,
                       "<button type=\"button\" class=\"chip chip-%s\" data-filter=\"%s\" "
                       "title=\"key: %s\" aria-pressed=\"false\"><span class=\"n\">%lld</span> "
                       "%s</button>\n",
                       chip[i].filter, chip[i].filter, chip[i].key, (long long)chip[i].n,
                       chip[i].label);
}

static void cell(ts_buf *out, struct json_object *v, const char *none)
{
    ts_buf_appends(out, "<td>");
    text(out,
         v != NULL && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : none);
    ts_buf_appends(out, "</td>");
}

/* The runs the report covers, as a table (from the island's runs). */
static void runs(ts_buf *out, const struct json_object *island)
{
    const struct json_object *rs = json_object_object_get(island, "runs");
    size_t n = json_object_array_length(rs);

    ts_buf_appendf(out, "<details class=\"runs\"><summary>%zu run%s</summary>\n", n,
                   n == 1 ? "" : "s");
    ts_buf_appends(out, "<table><thead><tr><th>run</th><th>label</th><th>host</th><th>opened</th>"
                        "<th>closed</th><th>state</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < n; i++) {
        const struct json_object *r = json_object_array_get_idx(rs, i);
        struct json_object *store = json_object_object_get(r, "store");
        const struct json_object *reasons = json_object_object_get(r, "reasons");
        bool partial = json_object_get_boolean(json_object_object_get(r, "partial"));
        bool closed = json_object_object_get(r, "closed") != NULL;

        ts_buf_appends(out, "<tr><td class=\"mono\" title=\"store: ");
        ts_html_escape_attr(store != NULL ? json_object_get_string(store) : "unknown",
                            store != NULL ? (size_t)json_object_get_string_len(store) : 7, out);
        ts_buf_appends(out, "\">");
        text(out, json_object_get_string(json_object_object_get(r, "id")));
        ts_buf_appends(out, "</td>");
        cell(out, json_object_object_get(r, "label"), "");
        cell(out, json_object_object_get(r, "host"), "");
        cell(out, json_object_object_get(r, "opened"), "");
        cell(out, json_object_object_get(r, "closed"), "open");
        ts_buf_appends(out, "<td>");
        text(out, partial ? "partial" : closed ? "complete" : "open");
        for (size_t k = 0; partial && k < json_object_array_length(reasons); k++) {
            ts_buf_appends(out, k == 0 ? " (" : ", ");
            text(out, json_object_get_string(json_object_array_get_idx(reasons, k)));
            if (k + 1 == json_object_array_length(reasons))
                ts_buf_appends(out, ")");
        }
        ts_buf_appends(out, "</td></tr>\n");
    }
    ts_buf_appends(out, "</tbody></table></details>\n");
}

/* The base64 SHA-256 of the page's script: its Content-Security-Policy
 * lets that script run and no other (an injected one would not, were an
 * escape ever wrong), and forbids every fetch (the page is offline). */
static void script_hash(ts_buf *out)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    uint8_t d[SHA256_DIGEST_LENGTH + 1] = {0};
    char s[48];
    size_t n = 0;
    SHA2_CTX ctx;

    SHA256Init(&ctx);
    SHA256Update(&ctx, (const uint8_t *)ts_html_script, ts_html_script_len);
    SHA256Final(d, &ctx);
    for (size_t i = 0; i < SHA256_DIGEST_LENGTH; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 |
                     (i + 2 < SHA256_DIGEST_LENGTH ? d[i + 2] : 0);

        s[n++] = b64[v >> 18 & 63];
        s[n++] = b64[v >> 12 & 63];
        s[n++] = i + 1 < SHA256_DIGEST_LENGTH ? b64[v >> 6 & 63] : '=';
        s[n++] = i + 2 < SHA256_DIGEST_LENGTH ? b64[v & 63] : '=';
    }
    ts_buf_append(out, s, n);
}

/* The data island's JSON, escaped for its element. */
static int data(ts_buf *out, const struct json_object *island, ts_error *err)
{
    ts_buf json;
    int rc;

    ts_buf_init(&json, TS_BUF_UNLIMITED);
    rc = ts_json_write_compact(island, &json, err);
    if (rc == 0)
        ts_html_escape_json(json.data ? json.data : "", json.len, out);
    ts_buf_free(&json);
    return rc;
}

/* Write the template with its markers filled in. */
static int page(ts_buf *out, const struct json_object *report, const struct json_object *island,
                const tsh_counts *counts, const ts_html_options *opt, ts_error *err)
{
    const char *t = ts_html_page;
    const char *end = ts_html_page + ts_html_page_len;
    struct json_object *summary = json_object_object_get(report, "summary");

    while (t < end) {
        const char *open = strstr(t, "{{");
        const char *close;
        size_t n;
        int rc = 0;

        if (open == NULL) {
            ts_buf_append(out, t, (size_t)(end - t));
            break;
        }
        ts_buf_append(out, t, (size_t)(open - t));
        close = strstr(open, "}}");
        if (close == NULL)
            return ts_error_set(err, -EINVAL, TS_ERR_INTERNAL, "the page's template is broken");
        n = (size_t)(close - open - 2);
#define IS(name) (n == sizeof(name) - 1 && memcmp(open + 2, name, n) == 0)
        if (IS("title"))
            text(out, opt->title != NULL ? opt->title : DEFAULT_TITLE);
        else if (IS("summary"))
            text(out, summary != NULL && json_object_get_string_len(summary) > 0
                          ? json_object_get_string(summary)
                          : "toolscore: nothing was checked");
        else if (IS("chips"))
            chips(out, counts);
        else if (IS("runs"))
            runs(out, island);
        else if (IS("style"))
            ts_buf_append(out, ts_html_style, ts_html_style_len);
        else if (IS("script_hash"))
            script_hash(out);
        else if (IS("script"))
            ts_buf_append(out, ts_html_script, ts_html_script_len);
        else if (IS("data"))
            rc = data(out, island, err);
        else
            return ts_error_set(err, -EINVAL, TS_ERR_INTERNAL,
                                "the page's template has an unknown marker '%.*s'", (int)n,
                                open + 2);
#undef IS
        if (rc < 0)
            return rc;
        t = close + 2;
    }
    return 0;
}

int ts_html_render(const struct json_object *report, const ts_html_options *opt, ts_buf *out,
                   ts_error *err)
{
    ts_html_options defaults;
    struct json_object *island, *format, *version, *summary, *complete, *omitted;
    tsh_counts counts;
    size_t start = out->len;
    int rc;

    if (opt == NULL) {
        ts_html_options_default(&defaults);
        opt = &defaults;
    }
    memset(&counts, 0, sizeof(counts));
    if (!json_object_is_type(report, json_type_object))
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "report: not a JSON object");
    rc = tsh_member(report, "format", json_type_string, 0, "", &format, err);
    if (rc == 0 && strcmp(json_object_get_string(format), "toolscore-run-report") != 0)
        rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "not a toolscore run report");
    if (rc == 0)
        rc = tsh_member(report, "version", json_type_int, 0, "", &version, err);
    if (rc == 0 && json_object_get_int64(version) != 1)
        rc = ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                          "report version %lld: this version renders version 1",
                          (long long)json_object_get_int64(version));
    if (rc == 0)
        rc = tsh_member(report, "summary", json_type_string, TSH_OPTIONAL, "", &summary, err);
    if (rc == 0)
        rc = tsh_member(report, "complete", json_type_boolean, TSH_OPTIONAL, "", &complete, err);
    if (rc == 0)
        rc = tsh_member(report, "checks_omitted", json_type_int, TSH_OPTIONAL, "", &omitted, err);
    if (rc < 0)
        return rc;
    island = json_object_new_object();
    json_object_object_add(island, "summary",
                           summary != NULL ? json_object_get(summary) : json_object_new_string(""));
    json_object_object_add(island, "complete",
                           json_object_new_boolean(complete && json_object_get_boolean(complete)));
    json_object_object_add(island, "omitted",
                           json_object_new_int64(omitted ? json_object_get_int64(omitted) : 0));
    rc = tsh_island_checks(report, island, &counts, err);
    if (rc == 0)
        rc = tsh_island_sections(report, opt, island, &counts, err);
    if (rc == 0)
        rc = page(out, report, island, &counts, opt, err);
    json_object_put(island);
    if (rc == 0 && ts_buf_error(out) < 0)
        rc = ts_error_set(err, ts_buf_error(out), TS_ERR_TOO_LARGE,
                          "the HTML report passes its size limit");
    if (rc < 0 && ts_buf_error(out) == 0 && out->data != NULL) {
        out->len = start; /* nothing appended */
        out->data[start] = '\0';
    }
    return rc;
}
