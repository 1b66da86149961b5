/*
 * ts_runreport_rules — the comparison rules a report's names were checked
 * with, kept once per distinct rules object: a run checks most names under
 * the same few rules, so each name holds a reference to one shared copy
 * (ts_flaky tells its observations apart under them).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json/ts_json.h"
#include "ts_runreport_internal.h"

static int rules_rehash(ts_runreport *r, size_t cap)
{
    rr_rules *slots = calloc(cap, sizeof(*slots));

    if (slots == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < r->rules_cap; i++) {
        size_t s;

        if (r->rules[i].obj == NULL)
            continue;
        for (s = r->rules[i].hash & (cap - 1); slots[s].obj != NULL; s = (s + 1) & (cap - 1))
            ;
        slots[s] = r->rules[i];
    }
    free(r->rules);
    r->rules = slots;
    r->rules_cap = cap;
    return 0;
}

int rr_rules_intern(ts_runreport *r, const struct json_object *obj, struct json_object **out)
{
    ts_buf text;
    uint64_t h;
    size_t s;

    *out = NULL;
    if (obj == NULL)
        return 0;
    ts_buf_init(&text, TS_BUF_UNLIMITED);
    if (ts_json_write_compact(obj, &text, NULL) < 0 || ts_buf_error(&text) < 0) {
        ts_buf_free(&text);
        return -ENOMEM;
    }
    h = ts_hash(text.data, text.len);
    ts_buf_free(&text);
    if ((r->nrules + 1) * 2 > r->rules_cap &&
        rules_rehash(r, r->rules_cap ? r->rules_cap * 2 : 16) < 0)
        return -ENOMEM;
    for (s = h & (r->rules_cap - 1); r->rules[s].obj != NULL; s = (s + 1) & (r->rules_cap - 1)) {
        if (r->rules[s].hash == h &&
            json_object_equal((struct json_object *)obj, r->rules[s].obj)) {
            *out = json_object_get(r->rules[s].obj);
            return 0;
        }
    }
    r->rules[s].obj = ts_json_copy(obj);
    if (r->rules[s].obj == NULL)
        return -ENOMEM;
    r->rules[s].hash = h;
    r->nrules++;
    *out = json_object_get(r->rules[s].obj);
    return 0;
}

void rr_rules_free(ts_runreport *r)
{
    for (size_t i = 0; i < r->rules_cap; i++)
        json_object_put(r->rules[i].obj);
    free(r->rules);
    r->rules = NULL;
    r->rules_cap = r->nrules = 0;
}
