/*
 * ts_rules_weight — how well two calls of one tool pair up in the unordered
 * modes: the number of the expected call's arguments the actual call has
 * with an equal value (ts_rules_order.c asks for every pair).
 *
 * Comparing every pair of values would cost n * m comparisons per key, each
 * a hash lookup and a string or number comparison. Instead every value of
 * a key is put in its class of equal values once (ts_values_equal is an
 * equivalence: exact values, or for arguments numbers equal as doubles and
 * strings equal once trimmed, or in strict mode identical types): a value
 * is hashed consistently with the comparison, then compared only with the
 * class representatives of the same hash. A pair's weight is then a count
 * of equal class numbers. A key a matcher can reach is not an equivalence
 * (approx), so its values are compared pair by pair with the matchers.
 */
#include "ts_rules_internal.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ABSENT (-1)

enum { TAG_NULL = 1, TAG_BOOL, TAG_INT, TAG_DOUBLE, TAG_NUM, TAG_STR, TAG_ARR, TAG_OBJ };

static uint64_t mix(uint64_t h, uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull + h;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;

    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t hash_double_bits(double d)
{
    uint64_t bits;

    if (d == 0)
        d = 0; /* -0.0 == 0.0 */
    memcpy(&bits, &d, sizeof(bits));
    return bits;
}

/* An integer as json-c holds it (a uint64 above INT64_MAX included). */
static uint64_t integer_bits(const struct json_object *v)
{
    int64_t s = json_object_get_int64(v);

    if (s == INT64_MAX)
        return json_object_get_uint64(v);
    return (uint64_t)s;
}

/* The exact value of a number, whichever type holds it (bool, int, float):
 * equal exact values hash alike. */
static uint64_t hash_exact_number(const struct json_object *v)
{
    double d;

    if (json_object_is_type(v, json_type_boolean))
        return mix(TAG_INT, json_object_get_boolean(v) ? 1 : 0);
    if (json_object_is_type(v, json_type_int))
        return mix(TAG_INT, integer_bits(v));
    d = json_object_get_double(v);
    if (d == trunc(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0)
        return mix(TAG_INT, (uint64_t)(int64_t)d);
    if (d == trunc(d) && d >= 0 && d < 18446744073709551616.0)
        return mix(TAG_INT, (uint64_t)d);
    return mix(TAG_DOUBLE, hash_double_bits(d));
}

/* Consistent with deep equality (nested values; strict or lenient). */
static uint64_t hash_deep(const struct json_object *v, bool strict)
{
    uint64_t h;

    switch (json_object_get_type(v)) {
    case json_type_null:
        return TAG_NULL;
    case json_type_boolean:
        if (!strict)
            return hash_exact_number(v);
        return mix(TAG_BOOL, json_object_get_boolean(v) ? 1 : 0);
    case json_type_int:
        return strict ? mix(TAG_INT, integer_bits(v)) : hash_exact_number(v);
    case json_type_double:
        return strict ? mix(TAG_DOUBLE, hash_double_bits(json_object_get_double(v)))
                      : hash_exact_number(v);
    case json_type_string:
        return mix(TAG_STR, hash_bytes(json_object_get_string((struct json_object *)v),
                                       (size_t)json_object_get_string_len(v)));
    case json_type_array:
        h = TAG_ARR;
        for (size_t i = 0; i < json_object_array_length(v); i++)
            h = mix(h, hash_deep(json_object_array_get_idx(v, i), strict));
        return h;
    case json_type_object:
        h = mix(TAG_OBJ, (uint64_t)json_object_object_length(v));
        json_object_object_foreach((struct json_object *)v, key, val)
        {
            /* a sum: key order does not matter */
            h += mix(hash_bytes(key, strlen(key)), hash_deep(val, strict));
        }
        return h;
    }
    return 0;
}

/* Consistent with ts_values_equal(a, b, strict, true). */
static uint64_t hash_argument(const struct json_object *v, bool strict)
{
    if (strict)
        return hash_deep(v, true);
    if (json_object_is_type(v, json_type_boolean))
        return mix(TAG_NUM, hash_double_bits(json_object_get_boolean(v) ? 1.0 : 0.0));
    if (json_object_is_type(v, json_type_int)) {
        int64_t s = json_object_get_int64(v);
        double d = s == INT64_MAX ? (double)json_object_get_uint64(v) : (double)s;
        return mix(TAG_NUM, hash_double_bits(d));
    }
    if (json_object_is_type(v, json_type_double))
        return mix(TAG_NUM, hash_double_bits(json_object_get_double(v)));
    if (json_object_is_type(v, json_type_string)) {
        const char *s = json_object_get_string((struct json_object *)v);
        size_t start, end;
        ts_strip_span(s, (size_t)json_object_get_string_len(v), &start, &end);
        return mix(TAG_STR, hash_bytes(s + start, end - start));
    }
    return hash_deep(v, false);
}

/* ---------------------------------------------------------------------------
 * Keys and classes
 * ------------------------------------------------------------------------- */

typedef struct key_slot {
    const char *key; /* NULL: free */
    uint64_t hash;
    uint32_t index;
} key_slot;

typedef struct class_slot {
    const struct json_object *rep; /* the class's first value */
    uint64_t hash;                 /* of key and value */
    uint32_t key;
    int32_t id;
    bool used;
} class_slot;

struct ts_rules_weights {
    ts_rules_applied *applied;
    const char *tool;
    size_t tool_len;
    bool strict;
    size_t ne, na, nkeys;
    const char **keys;                   /* nkeys, in the order first seen */
    bool *relaxed;                       /* per key: matchers reach it */
    int32_t *e, *a;                      /* ne * nkeys, na * nkeys: class, ABSENT */
    const struct json_object **ev, **av; /* values, for relaxed keys */
    key_slot *key_table;
    size_t key_cap;
    class_slot *classes;
    size_t class_cap;
    int32_t next_class;
};

static long key_find(const ts_rules_weights *w, const char *key, uint64_t h)
{
    for (size_t i = h & (w->key_cap - 1);; i = (i + 1) & (w->key_cap - 1)) {
        if (w->key_table[i].key == NULL)
            return -1;
        if (w->key_table[i].hash == h && strcmp(w->key_table[i].key, key) == 0)
            return (long)w->key_table[i].index;
    }
}

static void key_add(ts_rules_weights *w, const char *key, uint64_t h)
{
    size_t i = h & (w->key_cap - 1);

    while (w->key_table[i].key != NULL)
        i = (i + 1) & (w->key_cap - 1);
    w->key_table[i].key = key;
    w->key_table[i].hash = h;
    w->key_table[i].index = (uint32_t)w->nkeys;
    w->keys[w->nkeys++] = key;
}

static int32_t class_of(ts_rules_weights *w, uint32_t key, const struct json_object *v)
{
    uint64_t h = mix(hash_argument(v, w->strict), key);

    for (size_t i = h & (w->class_cap - 1);; i = (i + 1) & (w->class_cap - 1)) {
        class_slot *c = &w->classes[i];
        if (!c->used) {
            c->used = true;
            c->rep = v;
            c->hash = h;
            c->key = key;
            c->id = w->next_class++;
            return c->id;
        }
        if (c->hash == h && c->key == key && ts_values_equal(c->rep, v, w->strict, true))
            return c->id;
    }
}

static size_t power_of_two(size_t n)
{
    size_t p = 16;

    while (p < n)
        p *= 2;
    return p;
}

void ts_rules_weights_free(ts_rules_weights *w)
{
    if (w == NULL)
        return;
    free(w->keys);
    free(w->relaxed);
    free(w->e);
    free(w->a);
    free(w->ev);
    free(w->av);
    free(w->key_table);
    free(w->classes);
    free(w);
}

/* Every key of the expected calls, and how many values there are. */
static int collect_keys(ts_rules_weights *w, struct json_object *const *e_args,
                        struct json_object *const *a_args, size_t *values)
{
    size_t total = 0;

    for (size_t i = 0; i < w->ne; i++)
        total += e_args[i] ? (size_t)json_object_object_length(e_args[i]) : 0;
    *values = total;
    for (size_t j = 0; j < w->na; j++)
        *values += a_args[j] ? (size_t)json_object_object_length(a_args[j]) : 0;
    w->key_cap = power_of_two(2 * total + 1);
    w->key_table = calloc(w->key_cap, sizeof(*w->key_table));
    w->keys = malloc((total + 1) * sizeof(*w->keys));
    if (w->key_table == NULL || w->keys == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < w->ne; i++) {
        if (e_args[i] == NULL)
            continue;
        json_object_object_foreach(e_args[i], key, val)
        {
            uint64_t h = hash_bytes(key, strlen(key));
            (void)val;
            if (key_find(w, key, h) < 0)
                key_add(w, key, h);
        }
    }
    return 0;
}

/* The class (or value) of each argument of list at keys of w. */
static void fill(ts_rules_weights *w, struct json_object *const *args, size_t n, int32_t *classes,
                 const struct json_object **values)
{
    for (size_t i = 0; i < n; i++) {
        if (args[i] == NULL)
            continue;
        json_object_object_foreach(args[i], key, val)
        {
            long k = key_find(w, key, hash_bytes(key, strlen(key)));
            if (k < 0)
                continue;
            if (w->relaxed[k]) {
                classes[i * w->nkeys + (size_t)k] = 0;
                values[i * w->nkeys + (size_t)k] = val;
            } else {
                classes[i * w->nkeys + (size_t)k] = class_of(w, (uint32_t)k, val);
            }
        }
    }
}

int ts_rules_weights_new(ts_rules_applied *a, const char *tool, size_t tool_len,
                         struct json_object *const *e_args, size_t ne,
                         struct json_object *const *a_args, size_t na, bool strict,
                         ts_rules_weights **out)
{
    ts_rules_weights *w = calloc(1, sizeof(*w));
    size_t values = 0, cells;
    int rc;

    if (w == NULL)
        return -ENOMEM;
    w->applied = a;
    w->tool = tool;
    w->tool_len = tool_len;
    w->strict = strict;
    w->ne = ne;
    w->na = na;
    rc = collect_keys(w, e_args, a_args, &values);
    cells = w->nkeys ? w->nkeys : 1;
    if (rc == 0) {
        w->relaxed = calloc(cells, sizeof(bool));
        w->e = malloc(ne * cells * sizeof(int32_t));
        w->a = malloc(na * cells * sizeof(int32_t));
        w->ev = calloc(ne * cells, sizeof(*w->ev));
        w->av = calloc(na * cells, sizeof(*w->av));
        w->class_cap = power_of_two(2 * values + 1);
        w->classes = calloc(w->class_cap, sizeof(*w->classes));
        if (w->relaxed == NULL || w->e == NULL || w->a == NULL || w->ev == NULL || w->av == NULL ||
            w->classes == NULL)
            rc = -ENOMEM;
    }
    if (rc < 0) {
        ts_rules_weights_free(w);
        return rc;
    }
    for (size_t k = 0; k < w->nkeys; k++)
        w->relaxed[k] = ts_rules_key_relaxed(a, tool, tool_len, w->keys[k]);
    for (size_t i = 0; i < ne * cells; i++)
        w->e[i] = ABSENT;
    for (size_t i = 0; i < na * cells; i++)
        w->a[i] = ABSENT;
    fill(w, e_args, ne, w->e, w->ev);
    fill(w, a_args, na, w->a, w->av);
    *out = w;
    return 0;
}

size_t ts_rules_weight(const ts_rules_weights *w, size_t i, size_t j)
{
    const int32_t *e = w->e + i * w->nkeys, *a = w->a + j * w->nkeys;
    size_t n = 0;

    for (size_t k = 0; k < w->nkeys; k++) {
        if (e[k] == ABSENT || a[k] == ABSENT)
            continue;
        if (!w->relaxed[k])
            n += e[k] == a[k];
        else
            n += ts_rules_value_equal(w->applied, w->tool, w->tool_len, w->keys[k],
                                      w->ev[i * w->nkeys + k], w->av[j * w->nkeys + k], w->strict);
    }
    return n;
}
