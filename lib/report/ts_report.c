/*
 * ts_report — the drift report (see ts_report.h, docs/internals/report.md).
 *
 * The two lists are aligned once (ts_align) into rows; each row is a pair,
 * a missing or an extra call, and a pair is unchanged or changed. The parts
 * then write from those rows, in this order, separated by blank lines:
 * the table (ts_report_table.c), the score line and the caller's notes,
 * the difference lines (ts_report_diff.c), the tips, and the JSON diff
 * (ts_jsondiff). Nothing here prints: text goes to the caller's ts_buf,
 * whose sticky error is looked at once at the end.
 */
#include "lib/report/ts_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_report_internal.h"

#define JSON_DIFF_CONTEXT 3
#define JSON_DIFF_LINES_MAX 200
#define TIP_NAMES_MAX 5 /* tool names listed in one tip */

void ts_report_options_default(ts_report_options *opt)
{
    memset(opt, 0, sizeof(*opt));
    opt->json_diff = true;
}

/* ---- score digits ---- */

static double printed(double v, int decimals)
{
    char text[64];

    snprintf(text, sizeof(text), "%.*f", decimals, v);
    return strtod(text, NULL);
}

int ts_report_threshold_decimals(double min_score)
{
    for (int d = 2; d < 17; d++) {
        if (!isfinite(min_score) || printed(min_score, d) == min_score)
            return d;
    }
    return 17;
}

int ts_report_score_decimals(double score, double min_score, bool passed)
{
    int td = ts_report_threshold_decimals(min_score);
    double threshold = printed(min_score, td);

    if (!isfinite(score) || !isfinite(min_score))
        return 2;
    for (int d = 2; d < 17; d += d == 2 ? 2 : 1) {
        double s = printed(score, d);
        if (passed ? s >= threshold : s < threshold)
            return d;
    }
    return passed ? td : 17; /* a pass within scoring's tolerance: as the threshold */
}

/* ---- the rows ---- */

static ts_report_call *calls_view(const struct json_object *list, size_t *n)
{
    ts_report_call *c;

    *n = json_object_array_length(list);
    c = calloc(*n + 1, sizeof(*c));
    for (size_t i = 0; c != NULL && i < *n; i++) {
        struct json_object *item = json_object_array_get_idx(list, i);
        struct json_object *tool = json_object_object_get(item, "tool"), *args = NULL;
        c[i].tool = json_object_get_string(tool);
        c[i].tool_len = (size_t)json_object_get_string_len(tool);
        json_object_object_get_ex(item, "args", &args);
        c[i].args = json_object_is_type(args, json_type_object) ? args : NULL;
    }
    return c;
}

static void add_row(ts_report_ctx *c, size_t g, size_t t)
{
    ts_report_row *row = &c->rows[c->n_rows++];

    row->g = g;
    row->t = t;
    if (t == TS_REPORT_NONE)
        row->kind = TS_REPORT_MISSING;
    else if (g == TS_REPORT_NONE)
        row->kind = TS_REPORT_EXTRA;
    else if (ts_report__pair_identical(&c->gold[g], &c->trace[t]))
        row->kind = TS_REPORT_SAME;
    else
        row->kind = TS_REPORT_CHANGED;
    c->n_changed += row->kind != TS_REPORT_SAME;
}

/* Rows in alignment order: a block pairs as many calls as it can, then
 * lists the expected calls left (missing), then the actual ones (extra). */
static int build_rows(ts_report_ctx *c)
{
    c->rows = malloc((c->ng + c->nt + 1) * sizeof(*c->rows));
    if (c->rows == NULL)
        return -ENOMEM;
    for (size_t k = 0; k < c->n_ops; k++) {
        const ts_align_op *op = &c->ops[k];
        size_t ng = op->i2 - op->i1, nt = op->j2 - op->j1, paired = ng < nt ? ng : nt;
        for (size_t p = 0; p < paired; p++)
            add_row(c, op->i1 + p, op->j1 + p);
        for (size_t p = paired; p < ng; p++)
            add_row(c, op->i1 + p, TS_REPORT_NONE);
        for (size_t p = paired; p < nt; p++)
            add_row(c, TS_REPORT_NONE, op->j1 + p);
    }
    return 0;
}

static void ctx_free(ts_report_ctx *c)
{
    free(c->gold);
    free(c->trace);
    free(c->ops);
    free(c->rows);
}

static int ctx_init(ts_report_ctx *c, const struct json_object *expected,
                    const struct json_object *actual, const ts_score_result *r,
                    const ts_report_options *opt, ts_error *err)
{
    int rc = ts_calls_validate(expected, "expected", err);

    memset(c, 0, sizeof(*c));
    if (rc == 0)
        rc = ts_calls_validate(actual, "actual", err);
    if (rc < 0)
        return rc;
    c->width = opt->width == 0 ? TS_REPORT_WIDTH_DEFAULT : opt->width;
    c->width = c->width < TS_REPORT_WIDTH_MIN   ? TS_REPORT_WIDTH_MIN
               : c->width > TS_REPORT_WIDTH_MAX ? TS_REPORT_WIDTH_MAX
                                                : c->width;
    c->color = opt->color;
    c->r = r;
    c->compare = opt->compare;
    c->gold = calls_view(expected, &c->ng);
    c->trace = calls_view(actual, &c->nt);
    rc = c->gold && c->trace ? ts_align_calls(expected, actual, &c->ops, &c->n_ops) : -ENOMEM;
    if (rc == 0)
        rc = build_rows(c);
    if (rc < 0) {
        ctx_free(c);
        return ts_error_set(err, rc, TS_ERR_NO_MEMORY, "out of memory while aligning calls");
    }
    return 0;
}

/* ---- the score line and the notes ---- */

/* Parts joined by "  ·  ", a new line where the next part would pass the
 * width; a part wider than a line is word-wrapped on lines of its own.
 * The first part is painted first_colour. */
static void packed(const ts_report_ctx *c, ts_buf *out, const char *const *parts, size_t n,
                   const char *first_colour)
{
    size_t used = 0;
    bool open = false; /* the current line has text */

    for (size_t k = 0; k < n && ts_buf_error(out) == 0; k++) {
        size_t w = ts_repr_width(parts[k], strlen(parts[k]));
        if (open && used + 5 + w <= c->width) {
            ts_buf_appends(out, "  " TS_REPORT_MIDDLE_DOT "  ");
            used += 5;
        } else if (open) {
            ts_buf_appendc(out, '\n');
            open = false;
            used = 0;
        }
        ts_buf_appends(out, k == 0 ? first_colour : "");
        if (w > c->width) {
            ts_buf lines;
            ts_buf_init(&lines, TS_BUF_UNLIMITED);
            ts_report__wrap(c, &lines, parts[k], strlen(parts[k]), "", "  ");
            if (ts_buf_error(&lines) == 0) /* without its last newline */
                ts_buf_append(out, lines.data, lines.len - 1);
            ts_report__drop(out, &lines);
            ts_buf_appends(out, k == 0 ? ts_report__paint(c, TS_REPORT_RESET) : "");
            ts_buf_appendc(out, '\n');
            continue;
        }
        ts_buf_appends(out, parts[k]);
        ts_buf_appends(out, k == 0 ? ts_report__paint(c, TS_REPORT_RESET) : "");
        used += w;
        open = true;
    }
    if (open)
        ts_buf_appendc(out, '\n');
}

static void score_line(const ts_report_ctx *c, ts_buf *out)
{
    const ts_score_result *r = c->r;
    char score[96], selection[40], args[40], sequence[40];
    const char *parts[] = {score, selection, args, sequence};

    snprintf(score, sizeof(score), "score %.*f %s %.*f required",
             ts_report_score_decimals(r->score, r->min_score, r->passed), r->score,
             r->passed ? ">=" : "<", ts_report_threshold_decimals(r->min_score), r->min_score);
    snprintf(selection, sizeof(selection), "selection %.2f", r->selection_accuracy);
    snprintf(args, sizeof(args), "args %.2f", r->argument_f1);
    snprintf(sequence, sizeof(sequence), "sequence %.2f", r->sequence_accuracy);
    packed(c, out, parts, 4,
           ts_report__paint(c, r->passed ? TS_REPORT_BOLD TS_REPORT_GREEN
                                         : TS_REPORT_BOLD TS_REPORT_RED));
}

/* Each note on lines of its own: its own line breaks kept, control
 * characters escaped, words wrapped to the width. */
static void notes(const ts_report_ctx *c, const ts_report_options *opt, ts_buf *out)
{
    for (size_t k = 0; k < opt->n_notes && ts_buf_error(out) == 0; k++) {
        const char *s = opt->notes[k] ? opt->notes[k] : "";
        do {
            const char *nl = strchr(s, '\n');
            size_t len = nl ? (size_t)(nl - s) : strlen(s);
            ts_buf text;
            ts_buf_init(&text, TS_BUF_UNLIMITED);
            ts_report__name(&text, s, len);
            if (ts_buf_error(&text) == 0)
                ts_report__wrap(c, out, text.data ? text.data : "", text.len, "", "  ");
            ts_report__drop(out, &text);
            s = nl ? nl + 1 : NULL;
        } while (s != NULL);
    }
}

/* ---- tips ---- */

typedef struct name_count {
    const char *name;
    size_t len;
    bool actual;
} name_count;

static int name_cmp(const void *pa, const void *pb)
{
    const name_count *a = pa, *b = pb;
    size_t n = a->len < b->len ? a->len : b->len;
    int d = memcmp(a->name, b->name, n);

    return d != 0 ? d : a->len < b->len ? -1 : a->len > b->len ? 1 : 0;
}

/* "N extra calls of expected tools ('search' 3 times, 1 expected; ...)":
 * tools of the baseline called more often than it calls them (a tool the
 * baseline never calls is a new tool, not a repeated one). */
static void repeated_tip(const ts_report_ctx *c, ts_buf *text)
{
    size_t n = c->ng + c->nt, extra = 0, listed = 0;
    name_count *all = malloc((n + 1) * sizeof(*all));
    ts_buf names;

    if (all == NULL) {
        ts_buf_fail(text, -ENOMEM);
        return;
    }
    for (size_t i = 0; i < c->ng; i++)
        all[i] = (name_count){c->gold[i].tool, c->gold[i].tool_len, false};
    for (size_t i = 0; i < c->nt; i++)
        all[c->ng + i] = (name_count){c->trace[i].tool, c->trace[i].tool_len, true};
    qsort(all, n, sizeof(*all), name_cmp);
    ts_buf_init(&names, TS_BUF_UNLIMITED);
    for (size_t i = 0; i < n;) {
        size_t j = i, g = 0, t = 0;
        while (j < n && name_cmp(&all[i], &all[j]) == 0) {
            t += all[j].actual;
            g += !all[j].actual;
            j++;
        }
        if (g > 0 && t > g) {
            extra += t - g;
            if (listed++ < TIP_NAMES_MAX) {
                ts_buf_appends(&names, listed > 1 ? "; " : "");
                ts_repr_string(all[i].name, all[i].len, &names);
                ts_buf_appendf(&names, " %zu times, %zu expected", t, g);
            } else if (listed == TIP_NAMES_MAX + 1) {
                ts_buf_appends(&names, "; " TS_REPORT_ELLIPSIS);
            }
        }
        i = j;
    }
    if (extra > 0 && ts_buf_error(&names) == 0)
        ts_buf_appendf(text,
                       "%zu extra call%s of expected tools (%s): the agent repeats calls the "
                       "baseline makes fewer times",
                       extra, extra == 1 ? "" : "s", names.data);
    ts_report__drop(text, &names);
    free(all);
}

/* "'a', 'b'" from a list of names (at most TIP_NAMES_MAX, then "…"). */
static void name_list(ts_buf *out, const struct json_object *list)
{
    size_t n = json_object_array_length(list);

    for (size_t k = 0; k < n && k <= TIP_NAMES_MAX; k++) {
        struct json_object *s = json_object_array_get_idx(list, k);
        if (k > 0)
            ts_buf_appends(out, ", ");
        if (k == TIP_NAMES_MAX)
            ts_buf_appends(out, TS_REPORT_ELLIPSIS);
        else
            ts_repr_string(json_object_get_string(s), (size_t)json_object_get_string_len(s), out);
    }
}

static size_t list_length(const struct json_object *list)
{
    return json_object_is_type(list, json_type_array) ? json_object_array_length(list) : 0;
}

static void tip(const ts_report_ctx *c, ts_buf *out, ts_buf *text, bool *first)
{
    if (ts_buf_error(text) == 0 && text->len > 0) {
        if (*first)
            ts_buf_appendf(out, "\n%sTips:%s\n", ts_report__paint(c, TS_REPORT_BOLD),
                           ts_report__paint(c, TS_REPORT_RESET));
        *first = false;
        ts_report__wrap(c, out, text->data, text->len, "  " TS_REPORT_BULLET " ", "    ");
    }
    ts_buf_fail(out, ts_buf_error(text));
    ts_buf_reset(text);
}

static void tips(const ts_report_ctx *c, ts_buf *out)
{
    const ts_score_result *r = c->r;
    size_t missing = list_length(r->missing_tools), added = list_length(r->extra_tools);
    bool first = true;
    ts_buf text;

    ts_buf_init(&text, TS_BUF_UNLIMITED);
    if (missing > 0) {
        ts_buf_appends(&text, missing == 1 ? "expected tool never called: "
                                           : "expected tools never called: ");
        name_list(&text, r->missing_tools);
        ts_buf_appends(&text, " - check that the agent has access to every expected tool and "
                              "that names match exactly (case-sensitive)");
    }
    tip(c, out, &text, &first);
    if (added > 0) {
        ts_buf_appends(&text, added == 1 ? "new tool the baseline never calls: "
                                         : "new tools the baseline never calls: ");
        name_list(&text, r->extra_tools);
        ts_buf_appends(&text, " - if the agent should call it now, update the baseline");
    }
    tip(c, out, &text, &first);
    if (r->argument_precision < r->argument_recall)
        ts_buf_appendf(&text,
                       "argument precision %.2f is lower than recall %.2f: the agent passes "
                       "extra or wrong arguments",
                       r->argument_precision, r->argument_recall);
    tip(c, out, &text, &first);
    if (r->argument_recall < r->argument_precision)
        ts_buf_appendf(&text,
                       "argument recall %.2f is lower than precision %.2f: the agent leaves "
                       "out expected arguments",
                       r->argument_recall, r->argument_precision);
    tip(c, out, &text, &first);
    if (r->edit_distance > 0)
        ts_buf_appendf(&text,
                       "the sequence of tools differs from the expected one (edit distance "
                       "%.0f): review the agent's planning, or lower min_score if order does "
                       "not matter",
                       r->edit_distance);
    tip(c, out, &text, &first);
    repeated_tip(c, &text);
    tip(c, out, &text, &first);
    ts_buf_free(&text);
}

/* ---- putting it together ---- */

static void json_diff(const ts_report_ctx *c, const struct json_object *expected,
                      const struct json_object *actual, ts_buf *out)
{
    ts_jsondiff_options o = {c->width, c->color, JSON_DIFF_CONTEXT, JSON_DIFF_LINES_MAX};
    ts_buf diff;
    int rc;

    ts_buf_init(&diff, TS_BUF_UNLIMITED);
    rc = ts_jsondiff_calls(expected, actual, c->ops, c->n_ops, &o, &diff);
    if (rc == -EINVAL) {
        static const char note[] = "(no JSON diff: the calls hold values JSON cannot write, "
                                   "such as NaN or text that is not UTF-8)";
        ts_buf_appendc(out, '\n');
        ts_report__wrap(c, out, note, sizeof(note) - 1, "", " ");
    } else if (rc < 0)
        ts_buf_fail(out, rc);
    else if (diff.len > 0) {
        ts_buf_appendc(out, '\n');
        ts_buf_append(out, diff.data, diff.len);
    }
    ts_buf_free(&diff);
}

int ts_report_drift(const struct json_object *expected, const struct json_object *actual,
                    const ts_score_result *r, const ts_report_options *opt, ts_buf *out,
                    ts_error *err)
{
    ts_report_options defaults;
    ts_report_ctx c;
    ts_buf diffs;
    int rc;

    if (r == NULL || out == NULL)
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "no score result to report");
    if (opt == NULL) {
        ts_report_options_default(&defaults);
        opt = &defaults;
    }
    rc = ctx_init(&c, expected, actual, r, opt, err);
    if (rc < 0)
        return rc;
    ts_report__table(&c, out);
    ts_buf_appendc(out, '\n');
    score_line(&c, out);
    notes(&c, opt, out);
    ts_buf_init(&diffs, TS_BUF_UNLIMITED);
    ts_report__differences(&c, &diffs);
    if (diffs.len > 0) {
        ts_buf_appendc(out, '\n');
        ts_buf_append(out, diffs.data, diffs.len);
    }
    ts_report__drop(out, &diffs);
    tips(&c, out);
    if (opt->json_diff)
        json_diff(&c, expected, actual, out);
    ctx_free(&c);
    rc = ts_buf_error(out);
    if (rc == -E2BIG)
        return ts_error_set(err, rc, TS_ERR_TOO_LARGE, "report larger than its buffer allows");
    if (rc < 0)
        return ts_error_set(err, rc, TS_ERR_NO_MEMORY, "out of memory while writing the report");
    return 0;
}
