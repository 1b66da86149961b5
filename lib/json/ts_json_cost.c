/*
 * ts_json_cost — what json-c allocates for a tree of values, priced before
 * the tree is built (see ts_json.h and docs/internals/json.md, "Prices").
 *
 * The prices are glibc heap chunks (the request plus 8 bytes of header,
 * rounded up to 16) of json-c 0.16's structures, measured with mallinfo2
 * (tests/test_json.c, "prices" holds them to the measurement): a value of
 * a scalar type is one 64-byte chunk; a string one chunk of its bytes plus
 * 49; an object a 784-byte hash table of 16 slots, doubled each time it is
 * two thirds full, plus a copy of each key; an array a small header plus 8
 * bytes a slot. Where the price and the allocation differ, the price is the
 * larger.
 */
#include "lib/json/ts_json.h"

#include <stdint.h>

/* A glibc chunk for a request of n bytes; past 128 KiB a mapping of its
 * own, whole pages and one more. */
static size_t chunk(size_t n)
{
    size_t c = (n + 8 + 15) & ~(size_t)15;

    if (c >= (128u << 10))
        return ((c + 4095) & ~(size_t)4095) + 4096;
    return c < 32 ? 32 : c;
}

size_t ts_json_cost_string(size_t len)
{
    size_t c = chunk(len + 49);

    return c < 80 ? 80 : c;
}

size_t ts_json_cost_key(size_t len)
{
    return chunk(len + 1);
}

size_t ts_json_cost_object(size_t members)
{
    size_t slots = 16;

    /* lh_table_insert doubles the table when it is 66% full */
    while (members > 0 && (members - 1) * 100 >= slots * 66)
        slots *= 2;
    return 144 + chunk(40 * slots);
}

size_t ts_json_cost_array(size_t count)
{
    /* json_tokener shrinks an array to its length once it is closed (the
     * shrunk chunk keeps a little slack: a sixteenth here) */
    return count == 0 ? 144 : 128 + chunk(8 * count) + count / 2;
}

size_t ts_json_cost_array_sized(size_t count)
{
    /* json_object_new_array_ext(count), then count adds: the last add
     * doubles the slots */
    return count == 0 ? 144 : 120 + chunk(16 * count);
}

/* ---- the price of a JSON text --------------------------------------------- */

/* Containers open at once that the walk tracks; deeper ones (which the
 * parser refuses anyway) are priced as if they had no members. */
#define PRICE_DEPTH 256

typedef struct price_walk {
    const unsigned char *p, *end;
    size_t cost;
    int depth;                      /* containers open */
    size_t counts[PRICE_DEPTH + 1]; /* values in each open container */
    bool objects[PRICE_DEPTH + 1];  /* whether it is an object */
} price_walk;

static void add(price_walk *w, size_t cost)
{
    w->cost = w->cost > SIZE_MAX - cost ? SIZE_MAX : w->cost + cost;
}

/* A value begins: one more member of the container it is in. */
static void member(price_walk *w)
{
    if (w->depth > 0 && w->depth <= PRICE_DEPTH)
        w->counts[w->depth]++;
}

/* A string from its opening quote: its raw length (escapes counted as
 * written: never less than what they decode to). */
static size_t string_length(price_walk *w)
{
    const unsigned char *start = ++w->p;

    while (w->p < w->end && *w->p != '"')
        w->p += *w->p == '\\' && w->p + 1 < w->end ? 2 : 1;
    size_t len = (size_t)(w->p - start);
    if (w->p < w->end)
        w->p++;
    return len;
}

/* True when the next byte that is not white space is a colon. */
static bool colon_follows(const price_walk *w)
{
    for (const unsigned char *q = w->p; q < w->end; q++)
        if (*q != ' ' && *q != '\t' && *q != '\n' && *q != '\r')
            return *q == ':';
    return false;
}

static void number(price_walk *w)
{
    bool integer = true;

    while (w->p < w->end) {
        unsigned char c = *w->p;

        if (c == '.' || c == 'e' || c == 'E')
            integer = false;
        else if (!(c == '-' || c == '+' || (c >= '0' && c <= '9')))
            break;
        w->p++;
    }
    /* json_tokener keeps a double's text beside it (a second chunk) */
    add(w, integer ? 64 : 96);
}

size_t ts_json_price(const char *buf, size_t len)
{
    price_walk w = {.p = (const unsigned char *)buf, .end = (const unsigned char *)buf + len};

    while (w.p < w.end) {
        unsigned char c = *w.p;

        switch (c) {
        case '"': {
            bool key = false;
            size_t n = string_length(&w);

            if (w.depth > 0 && w.depth <= PRICE_DEPTH && w.objects[w.depth])
                key = colon_follows(&w);
            if (key) {
                add(&w, ts_json_cost_key(n));
            } else {
                member(&w);
                add(&w, ts_json_cost_string(n));
            }
            continue;
        }
        case '{':
        case '[':
            member(&w);
            w.depth++;
            if (w.depth <= PRICE_DEPTH) {
                w.counts[w.depth] = 0;
                w.objects[w.depth] = c == '{';
            } else {
                add(&w, ts_json_cost_object(0));
            }
            break;
        case '}':
        case ']':
            if (w.depth > 0 && w.depth <= PRICE_DEPTH)
                add(&w, w.objects[w.depth] ? ts_json_cost_object(w.counts[w.depth])
                                           : ts_json_cost_array(w.counts[w.depth]));
            if (w.depth > 0)
                w.depth--;
            break;
        case 't':
        case 'f':
        case 'n':
            member(&w);
            add(&w, c == 'n' ? 0 : 64);
            while (w.p < w.end && *w.p >= 'a' && *w.p <= 'z')
                w.p++;
            continue;
        default:
            if (c == '-' || (c >= '0' && c <= '9')) {
                member(&w);
                number(&w);
                continue;
            }
            break;
        }
        w.p++;
    }
    /* containers left open (a truncated text) */
    for (; w.depth > 0; w.depth--)
        if (w.depth <= PRICE_DEPTH)
            add(&w, w.objects[w.depth] ? ts_json_cost_object(w.counts[w.depth])
                                       : ts_json_cost_array(w.counts[w.depth]));
    return w.cost;
}
