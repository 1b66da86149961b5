/*
 * ts_flaky_forms — the lists of a repeat as a check compares them: each
 * stripped by the rules (ignored tools' calls and ignored values out), each
 * call's canonical text (compact JSON, object keys sorted: two agents that
 * emit the same arguments in another key order made the same call), and
 * the calls in (tool, text) order for comparing lists as multisets. Two
 * lists compare alike when their texts are equal in order, or, under a
 * non-strict order mode, as sorted.
 */
#include "ts_flaky_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"
#include "lib/score/ts_score.h"

static uint64_t hash_bytes(uint64_t h, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static int compare_keys(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* v as compact JSON with every object's keys sorted. */
static void canonical(ts_buf *out, const struct json_object *v)
{
    if (json_object_is_type(v, json_type_object)) {
        size_t n = (size_t)json_object_object_length(v), i = 0;
        const char **keys = malloc((n ? n : 1) * sizeof(char *));

        if (keys == NULL) {
            ts_buf_fail(out, -ENOMEM);
            return;
        }
        json_object_object_foreach((struct json_object *)v, key, val)
        {
            (void)val;
            keys[i++] = key;
        }
        qsort(keys, n, sizeof(char *), compare_keys);
        ts_buf_appendc(out, '{');
        for (i = 0; i < n; i++) {
            if (i > 0)
                ts_buf_appendc(out, ',');
            if (ts_json_write_string(keys[i], strlen(keys[i]), out) < 0)
                ts_buf_appends(out, "\"\"");
            ts_buf_appendc(out, ':');
            canonical(out, json_object_object_get(v, keys[i]));
        }
        ts_buf_appendc(out, '}');
        free(keys);
    } else if (json_object_is_type(v, json_type_array)) {
        size_t n = json_object_array_length(v);

        ts_buf_appendc(out, '[');
        for (size_t i = 0; i < n; i++) {
            if (i > 0)
                ts_buf_appendc(out, ',');
            canonical(out, json_object_array_get_idx(v, i));
        }
        ts_buf_appendc(out, ']');
    } else if (ts_json_write_compact(v, out, NULL) < 0 && ts_buf_error(out) == 0) {
        /* Not writable as JSON (not UTF-8, not finite): its bytes, marked. */
        ts_buf_appendf(out, "\x01%s", json_object_to_json_string((struct json_object *)v));
    }
}

static const char *tool_of(const struct json_object *call, size_t *len)
{
    struct json_object *t = json_object_object_get(call, "tool");

    *len = (size_t)json_object_get_string_len(t);
    return json_object_get_string(t);
}

static int compare_calls(const void *a, const void *b, void *arg)
{
    const fl_form *f = arg;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    size_t la, lb;
    const char *ta = tool_of(json_object_array_get_idx(f->cmp, i), &la);
    const char *tb = tool_of(json_object_array_get_idx(f->cmp, j), &lb);
    int c = memcmp(ta, tb, la < lb ? la : lb);

    if (c == 0 && la != lb)
        c = la < lb ? -1 : 1;
    if (c == 0)
        c = strcmp(f->texts[i], f->texts[j]);
    if (c == 0)
        c = i < j ? -1 : i > j;
    return c;
}

static void form_clear(fl_form *f)
{
    for (size_t i = 0; f->texts != NULL && i < f->n; i++)
        free(f->texts[i]);
    free(f->texts);
    free(f->orig);
    free(f->sorted);
    json_object_put(f->cmp);
    memset(f, 0, sizeof(*f));
}

static int form_build(fl_form *f, struct json_object *calls, const ts_rules *rules)
{
    size_t total = json_object_array_length(calls), k = 0;
    ts_error err;

    if (ts_rules_strip(rules, calls, &f->cmp, &err) < 0)
        return -ENOMEM;
    f->n = json_object_array_length(f->cmp);
    f->orig = calloc(f->n ? f->n : 1, sizeof(size_t));
    f->texts = calloc(f->n ? f->n : 1, sizeof(char *));
    f->sorted = calloc(f->n ? f->n : 1, sizeof(size_t));
    if (f->orig == NULL || f->texts == NULL || f->sorted == NULL)
        return -ENOMEM;
    for (size_t j = 0; j < total && k < f->n; j++) {
        size_t len;
        const char *tool = tool_of(json_object_array_get_idx(calls, j), &len);

        if (!ts_rules_tool_ignored(rules, tool, len))
            f->orig[k++] = j;
    }
    f->seq_hash = 1469598103934665603ULL;
    for (size_t i = 0; i < f->n; i++) {
        ts_buf b;

        ts_buf_init(&b, TS_BUF_UNLIMITED);
        canonical(&b, json_object_array_get_idx(f->cmp, i));
        ts_buf_appendc(&b, '\0'); /* "" for an empty text is still a text */
        f->texts[i] = ts_buf_detach(&b, NULL);
        if (f->texts[i] == NULL)
            return -ENOMEM;
        f->seq_hash = hash_bytes(f->seq_hash, f->texts[i], strlen(f->texts[i]) + 1);
        f->sorted[i] = i;
    }
    qsort_r(f->sorted, f->n, sizeof(size_t), compare_calls, f);
    f->set_hash = 1469598103934665603ULL;
    for (size_t i = 0; i < f->n; i++)
        f->set_hash =
            hash_bytes(f->set_hash, f->texts[f->sorted[i]], strlen(f->texts[f->sorted[i]]) + 1);
    return 0;
}

int fl_forms_build(const ts_runreport_repeat *rep, const ts_rules *rules, fl_form **forms,
                   size_t *n)
{
    fl_form *fs = calloc(rep->nlists ? rep->nlists : 1, sizeof(*fs));
    size_t count = 0;

    if (fs == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < rep->nlists; i++) {
        struct json_object *calls = (struct json_object *)rep->lists[i].calls;

        if (calls == NULL || ts_calls_validate(calls, "observed", NULL) < 0)
            continue;
        fs[count].list = i;
        if (form_build(&fs[count], calls, rules) < 0) {
            fl_forms_free(fs, count + 1);
            return -ENOMEM;
        }
        count++;
    }
    *forms = fs;
    *n = count;
    return 0;
}

void fl_forms_free(fl_form *forms, size_t n)
{
    for (size_t i = 0; forms != NULL && i < n; i++)
        form_clear(&forms[i]);
    free(forms);
}

bool fl_forms_same(const fl_form *a, const fl_form *b, bool multiset)
{
    if (a->n != b->n || (multiset ? a->set_hash != b->set_hash : a->seq_hash != b->seq_hash))
        return false;
    for (size_t i = 0; i < a->n; i++) {
        size_t x = multiset ? a->sorted[i] : i, y = multiset ? b->sorted[i] : i;

        if (strcmp(a->texts[x], b->texts[y]) != 0)
            return false;
    }
    return true;
}

int fl_stable_under(const ts_runreport_repeat *rep, const ts_rules *rules)
{
    bool multiset = ts_rules_order_of(rules) != TS_RULES_ORDER_STRICT;
    fl_form *forms;
    size_t n;
    int stable = 1;

    if (fl_forms_build(rep, rules, &forms, &n) < 0)
        return -ENOMEM;
    for (size_t i = 1; i < n && stable; i++)
        stable = fl_forms_same(&forms[0], &forms[i], multiset);
    fl_forms_free(forms, n);
    return stable;
}
