/*
 * ts_extract_collect — calls gathered from several places of one response:
 * de-duplication by the SDK's call id and assembly of streamed chunks.
 *
 * The TypeScript SDKs repeat one call in several places of one object (a
 * result's top-level toolCalls, its steps, its response messages, a run
 * state's copies) and stream a call as a start, argument fragments and a
 * final complete chunk. A walker reports every sighting here; a call is
 * kept once, at the place it was first seen, and emitted when the walk is
 * over. A sighting without an id is never merged with another (two
 * identical calls with different ids, or none, are two calls), except a
 * fragment without an id, which continues the latest call. LangChain's
 * streamed fragments also name their place (a message id and an index):
 * interleaved streams (subgraphs running in parallel) are assembled per
 * place, and one call id is streamed at one place only.
 */
#include "ts_extract_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

struct extract_pending {
    char *id;   /* owned copy of the call id; NULL when none was seen */
    char *slot; /* owned: the place its fragments were streamed at, or NULL */
    char *name; /* owned, NUL-terminated; NULL until a name is seen */
    size_t name_len;
    const struct json_object *args; /* complete arguments (borrowed from the input) */
    bool complete;                  /* args is the whole value (NULL: absent) */
    char *text;                     /* concatenated argument fragments */
    size_t text_len;
    size_t text_cap;
};

/* The id of a sighting: a non-empty string, else none. */
static const char *id_text(const struct json_object *id)
{
    if (!is_type(id, json_type_string) || json_object_get_string_len(id) == 0)
        return NULL;
    return string_of(id);
}

int ts_extract__collect_init(extract_collect *c, extract_ctx *ctx)
{
    memset(c, 0, sizeof(*c));
    c->ctx = ctx;
    c->ids = json_object_new_object();
    return c->ids == NULL ? ts_extract__no_memory(ctx) : 0;
}

void ts_extract__collect_free(extract_collect *c)
{
    size_t i;

    for (i = 0; i < c->len; i++) {
        free(c->items[i].id);
        free(c->items[i].slot);
        free(c->items[i].name);
        free(c->items[i].text);
    }
    free(c->items);
    json_object_put(c->ids);
    json_object_put(c->slots);
    memset(c, 0, sizeof(*c));
}

/* Append bytes to a growing string (*buf, *len, *cap). */
static int append_text(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (n == 0)
        return 0;
    if (n >= (size_t)INT_MAX - *len) /* json-c strings hold at most INT_MAX bytes */
        return -ENOMEM;
    if (*len + n + 1 > *cap) {
        size_t want = *cap ? *cap : 64;
        char *grown;

        while (want < *len + n + 1)
            want *= 2;
        grown = realloc(*buf, want);
        if (grown == NULL)
            return -ENOMEM;
        *buf = grown;
        *cap = want;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = '\0';
    return 0;
}

/* Add a name fragment to a call (a streamed name arrives in pieces). */
static int add_name(extract_collect *c, extract_pending *p, const struct json_object *name)
{
    size_t cap = p->name ? p->name_len + 1 : 0;

    if (!is_type(name, json_type_string) || json_object_get_string_len(name) == 0)
        return 0;
    if (append_text(&p->name, &p->name_len, &cap, string_of(name),
                    (size_t)json_object_get_string_len(name)) < 0)
        return ts_extract__no_memory(c->ctx);
    return 0;
}

/* Map key (ids or slots) to the call at index. */
static int bind(extract_collect *c, struct json_object *map, const char *key, size_t index)
{
    struct json_object *n = json_object_new_int64((int64_t)index);

    if (n == NULL || json_object_object_add(map, key, n) < 0) {
        json_object_put(n);
        return ts_extract__no_memory(c->ctx);
    }
    return 0;
}

/* The index of the call key maps to, or -1 (key or map NULL: -1). */
static ptrdiff_t lookup(const struct json_object *map, const char *key)
{
    struct json_object *index;

    if (map == NULL || key == NULL ||
        !json_object_object_get_ex((struct json_object *)map, key, &index))
        return -1;
    return (ptrdiff_t)json_object_get_int64(index);
}

/* Give the call at index the id (it had none). */
static int set_id(extract_collect *c, size_t index, const char *id)
{
    c->items[index].id = strdup(id);
    if (c->items[index].id == NULL)
        return ts_extract__no_memory(c->ctx);
    return bind(c, c->ids, id, index);
}

/* Append a streamed name fragment and argument fragment (strings, else
 * ignored) to p; argument fragments are dropped once p is complete. */
static int add_fragments(extract_collect *c, extract_pending *p,
                         const struct json_object *name_part, const struct json_object *args_part)
{
    int rc = add_name(c, p, name_part);

    if (rc < 0 || p->complete || !is_type(args_part, json_type_string))
        return rc;
    if (append_text(&p->text, &p->text_len, &p->text_cap, string_of(args_part),
                    (size_t)json_object_get_string_len(args_part)) < 0)
        return ts_extract__no_memory(c->ctx);
    return 0;
}

/* The call registered under id, or a new one (registered when id is set). */
static int pending_for(extract_collect *c, const char *id, extract_pending **out, bool *fresh)
{
    ptrdiff_t known = lookup(c->ids, id);

    *fresh = false;
    if (known >= 0) {
        *out = &c->items[known];
        return 0;
    }
    if (c->len == c->cap) {
        size_t want = c->cap ? c->cap * 2 : 8;
        extract_pending *grown;

        if (want > SIZE_MAX / sizeof(*grown))
            return ts_extract__no_memory(c->ctx);
        grown = realloc(c->items, want * sizeof(*grown));
        if (grown == NULL)
            return ts_extract__no_memory(c->ctx);
        c->items = grown;
        c->cap = want;
    }
    *out = &c->items[c->len++];
    memset(*out, 0, sizeof(**out));
    *fresh = true;
    return id != NULL ? set_id(c, c->len - 1, id) : 0;
}

int ts_extract__collect_call(extract_collect *c, const struct json_object *id,
                             const struct json_object *name, const struct json_object *args)
{
    extract_pending *p;
    bool fresh;
    int rc = pending_for(c, id_text(id), &p, &fresh);

    if (rc < 0)
        return rc;
    if (!fresh && p->complete)
        return 0; /* the same call seen again elsewhere */
    p->complete = true;
    p->args = args;
    return p->name_len == 0 ? add_name(c, p, name) : 0;
}

int ts_extract__collect_start(extract_collect *c, const struct json_object *id,
                              const struct json_object *name)
{
    extract_pending *p;
    bool fresh;
    int rc = pending_for(c, id_text(id), &p, &fresh);

    if (rc < 0)
        return rc;
    return p->name_len == 0 ? add_name(c, p, name) : 0;
}

int ts_extract__collect_delta(extract_collect *c, const struct json_object *id,
                              const struct json_object *name_part,
                              const struct json_object *args_part)
{
    extract_pending *p;
    bool fresh;
    int rc;

    if (id_text(id) == NULL && c->len > 0) {
        p = &c->items[c->len - 1];
    } else {
        rc = pending_for(c, id_text(id), &p, &fresh);
        if (rc < 0)
            return rc;
    }
    return add_fragments(c, p, name_part, args_part);
}

/* The call a fragment at slot continues, or -1 for a new call; an error
 * when its id is a call streamed at another place. */
static int slot_target(extract_collect *c, const char *slot, const char *id, const char *where,
                       ptrdiff_t *out)
{
    ptrdiff_t at = lookup(c->slots, slot);
    ptrdiff_t known = lookup(c->ids, id);

    /* another id at a known place is another call (LangChain's merge too) */
    if (at >= 0 && id != NULL && c->items[at].id != NULL && strcmp(c->items[at].id, id) != 0)
        at = -1;
    if (at < 0)
        at = known;
    if (known >= 0 &&
        (known != at || (c->items[known].slot != NULL && strcmp(c->items[known].slot, slot) != 0)))
        return ts_extract__shape_error(
            c->ctx, "%s: call '%.64s' at %.200s was already streamed at %.200s", where, id, slot,
            c->items[known].slot != NULL ? c->items[known].slot : "another place");
    *out = at;
    return 0;
}

int ts_extract__collect_slot_delta(extract_collect *c, const char *slot,
                                   const struct json_object *id,
                                   const struct json_object *name_part,
                                   const struct json_object *args_part, const char *where)
{
    const char *id_str = id_text(id);
    extract_pending *p;
    ptrdiff_t at = -1;
    bool fresh;
    int rc;

    if (c->slots == NULL && (c->slots = json_object_new_object()) == NULL)
        return ts_extract__no_memory(c->ctx);
    rc = slot_target(c, slot, id_str, where, &at);
    if (rc < 0)
        return rc;
    if (at < 0) {
        rc = pending_for(c, id_str, &p, &fresh);
        at = (ptrdiff_t)(p - c->items);
    } else if (id_str != NULL && c->items[at].id == NULL) {
        rc = set_id(c, (size_t)at, id_str);
    }
    if (rc == 0 && c->items[at].slot == NULL) {
        c->items[at].slot = strdup(slot);
        rc = c->items[at].slot == NULL ? ts_extract__no_memory(c->ctx) : 0;
    }
    if (rc == 0)
        rc = bind(c, c->slots, slot, (size_t)at);
    return rc < 0 ? rc : add_fragments(c, &c->items[at], name_part, args_part);
}

int ts_extract__collect_finish(extract_collect *c)
{
    size_t i;
    int rc = 0;

    for (i = 0; i < c->len && rc == 0; i++) {
        const extract_pending *p = &c->items[i];
        struct json_object *name, *text = NULL;

        if (p->name_len == 0)
            continue; /* calls without a name are dropped */
        name = json_object_new_string_len(p->name, (int)p->name_len);
        if (!p->complete && p->text_len > 0)
            text = json_object_new_string_len(p->text, (int)p->text_len);
        if (name == NULL || (!p->complete && p->text_len > 0 && text == NULL))
            rc = ts_extract__no_memory(c->ctx);
        else
            rc = ts_extract__add_call_value(c->ctx, name, p->complete ? p->args : text);
        json_object_put(name);
        json_object_put(text);
    }
    return rc;
}
