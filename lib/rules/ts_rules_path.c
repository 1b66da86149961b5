/*
 * ts_rules_path — parsing path patterns and walking them as one automaton
 * (ts_rules_internal.h).
 *
 * Pattern i with n segments owns the n + 1 bits [base_i, base_i + n]: bit
 * base_i + k means "segments 0..k-1 matched so far", bit base_i + n is
 * acceptance. A `**` segment at position k loops on any step and may also
 * be skipped (zero levels), so entering position k enters k + 1 too; that
 * closure is applied whenever a bit is set. All patterns share one state,
 * so stepping is one pass over the state's set bits.
 */
#include "ts_rules_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define INDEX_MAX 0x7fffffffu

typedef enum seg_type {
    SEG_KEY,       /* .key */
    SEG_ANY_KEY,   /* .* */
    SEG_ANY_DEPTH, /* .** */
    SEG_INDEX,     /* [N] */
    SEG_ANY_INDEX, /* [*] */
} seg_type;

typedef struct segment {
    seg_type type;
    char *key; /* SEG_KEY: owned, key_len bytes (+ NUL) */
    size_t key_len;
    size_t index; /* SEG_INDEX */
} segment;

typedef struct pattern {
    ts_rules_kind kind;
    size_t number; /* within its kind */
    bool any_tool; /* TOOL is `*` */
    char *tool;    /* else: owned */
    size_t tool_len;
    segment *segs;
    size_t n_segs;
    size_t base; /* its first bit */
} pattern;

struct ts_rules_path_set {
    pattern *patterns;
    size_t n, cap;
    size_t count[TS_RULES_KINDS];
    size_t bits, words;
    uint32_t *bit_pattern;                  /* per bit: its pattern */
    ts_rules_state *accept[TS_RULES_KINDS]; /* acceptance bits of each kind */
    ts_rules_state *alive[TS_RULES_KINDS];  /* every bit of each kind */
    bool compiled;
};

/* ---------------------------------------------------------------------------
 * Parsing
 * ------------------------------------------------------------------------- */

typedef struct parser {
    const char *s;
    size_t len, pos;
    const char *whole; /* for messages */
    size_t whole_len;
    ts_error *err;
} parser;

/* Column (code points, from 1) of byte offset at. */
static size_t column_of(const parser *p, size_t at)
{
    size_t col = 1;

    for (size_t i = 0; i < at && i < p->len; i++)
        col += ((unsigned char)p->s[i] & 0xc0) != 0x80;
    return col;
}

static int bad(const parser *p, size_t at, const char *why)
{
    return ts_error_set(p->err, -EINVAL, TS_ERR_INVALID_RULES, "pattern '%.*s', column %zu: %s",
                        (int)(p->whole_len > 200 ? 200 : p->whole_len), p->whole, column_of(p, at),
                        why);
}

static bool is_special(char c)
{
    return c == '.' || c == '[' || c == '*' || c == '"';
}

static int take_name(char **out, size_t *out_len, const char *from, size_t len)
{
    char *s = malloc(len + 1);

    if (s == NULL)
        return -ENOMEM;
    memcpy(s, from, len);
    s[len] = '\0';
    *out = s;
    *out_len = len;
    return 0;
}

/* A quoted name at p->pos (the opening quote); escapes \" and \\. */
static int parse_quoted(parser *p, char **out, size_t *out_len)
{
    size_t open = p->pos, n = 0;
    char *s = malloc(p->len - open + 1);

    if (s == NULL)
        return -ENOMEM;
    p->pos++;
    for (;;) {
        char c;
        if (p->pos >= p->len) {
            free(s);
            return bad(p, open, "a quoted key without its closing '\"'");
        }
        c = p->s[p->pos];
        if (c == '"')
            break;
        if (c == '\\') {
            if (p->pos + 1 >= p->len || (p->s[p->pos + 1] != '"' && p->s[p->pos + 1] != '\\')) {
                free(s);
                return bad(p, p->pos, "in a quoted key only \\\" and \\\\ are escapes");
            }
            p->pos++;
            c = p->s[p->pos];
        }
        s[n++] = c;
        p->pos++;
    }
    p->pos++;
    s[n] = '\0';
    *out = s;
    *out_len = n;
    return 0;
}

/* A bare name at p->pos: up to '.', '[' or the end. */
static int parse_bare(parser *p, char **out, size_t *out_len)
{
    size_t start = p->pos;

    while (p->pos < p->len && !is_special(p->s[p->pos]))
        p->pos++;
    if (p->pos < p->len && (p->s[p->pos] == '*' || p->s[p->pos] == '"'))
        return bad(p, p->pos,
                   "a key holding '*' or '\"' must be quoted (\"...\"); * alone is any key");
    return take_name(out, out_len, p->s + start, p->pos - start);
}

static int push_segment(pattern *pt, segment seg)
{
    segment *segs = realloc(pt->segs, (pt->n_segs + 1) * sizeof(*segs));

    if (segs == NULL) {
        free(seg.key);
        return -ENOMEM;
    }
    pt->segs = segs;
    pt->segs[pt->n_segs++] = seg;
    return 0;
}

/* After `*` or `**`: the segment ends here. */
static int after_wildcard(parser *p)
{
    if (p->pos < p->len && p->s[p->pos] != '.' && p->s[p->pos] != '[')
        return bad(p, p->pos, "* and ** stand alone between dots (quote a key holding '*')");
    return 0;
}

static int parse_index(parser *p, segment *seg)
{
    size_t open = p->pos;
    size_t value = 0, digits = 0;

    p->pos++;
    if (p->pos < p->len && p->s[p->pos] == '*') {
        p->pos++;
        seg->type = SEG_ANY_INDEX;
    } else {
        while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
            value = value * 10 + (size_t)(p->s[p->pos] - '0');
            if (value > INDEX_MAX)
                return bad(p, open + 1, "the index is too large");
            p->pos++;
            digits++;
        }
        if (digits == 0)
            return bad(p, p->pos, "expected an index (a number from 0) or * inside [...]");
        seg->type = SEG_INDEX;
        seg->index = value;
    }
    if (p->pos >= p->len || p->s[p->pos] != ']')
        return bad(p, p->pos, "expected ']'");
    p->pos++;
    return 0;
}

static int parse_dot_segment(parser *p, segment *seg)
{
    int rc;

    p->pos++; /* the dot */
    if (p->pos >= p->len)
        return bad(p, p->pos, "the pattern ends with '.'");
    switch (p->s[p->pos]) {
    case '*':
        p->pos++;
        seg->type = SEG_ANY_KEY;
        if (p->pos < p->len && p->s[p->pos] == '*') {
            p->pos++;
            seg->type = SEG_ANY_DEPTH;
        }
        return after_wildcard(p);
    case '"':
        seg->type = SEG_KEY;
        rc = parse_quoted(p, &seg->key, &seg->key_len);
        if (rc == 0 && p->pos < p->len && p->s[p->pos] != '.' && p->s[p->pos] != '[') {
            free(seg->key);
            seg->key = NULL;
            return bad(p, p->pos, "expected '.' or '[' after a quoted key");
        }
        return rc;
    case '.':
    case '[':
        return bad(p, p->pos, "an empty key (write \"\" for the empty key)");
    default:
        seg->type = SEG_KEY;
        return parse_bare(p, &seg->key, &seg->key_len);
    }
}

static int parse_tool(parser *p, pattern *pt)
{
    int rc = 0;

    if (p->len == 0)
        return bad(p, 0, "an empty pattern (a path starts at a call: TOOL.args.KEY)");
    switch (p->s[0]) {
    case '*':
        if (p->len > 1 && p->s[1] == '*')
            return bad(p, 0, "a path starts with a tool name or *, not **");
        p->pos = 1;
        pt->any_tool = true;
        return after_wildcard(p);
    case '"':
        rc = parse_quoted(p, &pt->tool, &pt->tool_len);
        if (rc == 0 && pt->tool_len == 0)
            return bad(p, 0, "an empty tool name");
        return rc;
    case '.':
    case '[':
        return bad(p, 0, "a path starts with a tool name or * (TOOL.args.KEY)");
    default:
        return parse_bare(p, &pt->tool, &pt->tool_len);
    }
}

/* The first segment after the tool must reach the call's args. */
static int check_first(parser *p, const pattern *pt, size_t first_at)
{
    const segment *s;

    if (pt->n_segs == 0)
        return bad(p, p->len, "a path names something inside a call: TOOL.args.KEY");
    s = &pt->segs[0];
    if (s->type == SEG_ANY_KEY || s->type == SEG_ANY_DEPTH)
        return 0;
    if (s->type == SEG_KEY && s->key_len == 4 && memcmp(s->key, "args", 4) == 0)
        return 0;
    return bad(p, first_at, "rules look at arguments: the path goes on with .args (TOOL.args.KEY)");
}

static int parse_pattern(parser *p, pattern *pt)
{
    size_t first_at = 0;
    int rc;

    if (memchr(p->s, '\0', p->len) != NULL)
        return bad(p, (size_t)((const char *)memchr(p->s, '\0', p->len) - p->s), "a NUL byte");
    rc = parse_tool(p, pt);
    while (rc == 0 && p->pos < p->len) {
        segment seg = {SEG_KEY, NULL, 0, 0};
        size_t at = p->pos;
        if (pt->n_segs == 0)
            first_at = at + 1;
        if (p->s[p->pos] == '.')
            rc = parse_dot_segment(p, &seg);
        else if (p->s[p->pos] == '[')
            rc = pt->n_segs == 0 ? bad(p, at, "a call is an object: [N] cannot follow the tool")
                                 : parse_index(p, &seg);
        else
            rc = bad(p, at, "expected '.' or '['");
        if (rc == 0)
            rc = push_segment(pt, seg);
    }
    if (rc == 0)
        rc = check_first(p, pt, first_at);
    return rc;
}

static void pattern_free(pattern *pt)
{
    for (size_t i = 0; i < pt->n_segs; i++)
        free(pt->segs[i].key);
    free(pt->segs);
    free(pt->tool);
}

/* ---------------------------------------------------------------------------
 * The set
 * ------------------------------------------------------------------------- */

ts_rules_path_set *ts_rules_path_set_new(void)
{
    return calloc(1, sizeof(ts_rules_path_set));
}

void ts_rules_path_set_free(ts_rules_path_set *set)
{
    if (set == NULL)
        return;
    for (size_t i = 0; i < set->n; i++)
        pattern_free(&set->patterns[i]);
    free(set->patterns);
    free(set->bit_pattern);
    for (int k = 0; k < TS_RULES_KINDS; k++) {
        free(set->accept[k]);
        free(set->alive[k]);
    }
    free(set);
}

int ts_rules_path_set_add(ts_rules_path_set *set, const char *text, size_t len, ts_rules_kind kind,
                          ts_error *err)
{
    parser p = {text, len, 0, text, len, err};
    pattern pt;
    int rc;

    if (set->compiled || (unsigned)kind >= TS_RULES_KINDS)
        return ts_error_set(err, -EINVAL, TS_ERR_INTERNAL, "pattern added to a compiled set");
    if (set->n >= TS_RULES_PATTERNS_MAX)
        return ts_error_set(err, -E2BIG, TS_ERR_INVALID_RULES, "more than %d patterns",
                            TS_RULES_PATTERNS_MAX);
    if (len > TS_RULES_PATTERN_MAX)
        return ts_error_set(err, -E2BIG, TS_ERR_INVALID_RULES,
                            "pattern '%.40s...' is over %d bytes", text, TS_RULES_PATTERN_MAX);
    memset(&pt, 0, sizeof(pt));
    pt.kind = kind;
    rc = parse_pattern(&p, &pt);
    if (rc == 0 && set->n == set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 8;
        pattern *ps = realloc(set->patterns, cap * sizeof(*ps));
        if (ps == NULL) {
            rc = -ENOMEM;
        } else {
            set->patterns = ps;
            set->cap = cap;
        }
    }
    if (rc < 0) {
        pattern_free(&pt);
        return rc == -ENOMEM ? ts_error_set(err, rc, TS_ERR_NO_MEMORY, "out of memory") : rc;
    }
    pt.number = set->count[kind]++;
    set->patterns[set->n++] = pt;
    return 0;
}

static void set_bit(ts_rules_state *s, size_t bit)
{
    s[bit / 64] |= (ts_rules_state)1 << (bit % 64);
}

int ts_rules_path_compile(ts_rules_path_set *set)
{
    size_t bits = 0;

    for (size_t i = 0; i < set->n; i++) {
        set->patterns[i].base = bits;
        bits += set->patterns[i].n_segs + 1;
    }
    set->bits = bits;
    set->words = bits / 64 + 1;
    set->bit_pattern = malloc((bits ? bits : 1) * sizeof(uint32_t));
    if (set->bit_pattern == NULL)
        return -ENOMEM;
    for (int k = 0; k < TS_RULES_KINDS; k++) {
        set->accept[k] = calloc(set->words, sizeof(ts_rules_state));
        set->alive[k] = calloc(set->words, sizeof(ts_rules_state));
        if (set->accept[k] == NULL || set->alive[k] == NULL)
            return -ENOMEM;
    }
    for (size_t i = 0; i < set->n; i++) {
        const pattern *pt = &set->patterns[i];
        for (size_t k = 0; k <= pt->n_segs; k++) {
            set->bit_pattern[pt->base + k] = (uint32_t)i;
            set_bit(set->alive[pt->kind], pt->base + k);
        }
        set_bit(set->accept[pt->kind], pt->base + pt->n_segs);
    }
    set->compiled = true;
    return 0;
}

size_t ts_rules_path_words(const ts_rules_path_set *set)
{
    return set->words ? set->words : 1;
}

size_t ts_rules_path_count(const ts_rules_path_set *set, ts_rules_kind kind)
{
    return (unsigned)kind < TS_RULES_KINDS ? set->count[kind] : 0;
}

/* ---------------------------------------------------------------------------
 * Walking
 * ------------------------------------------------------------------------- */

/* Enter position k of pt, and the positions after any `**` there. */
static void enter(ts_rules_state *out, const pattern *pt, size_t k)
{
    for (;;) {
        set_bit(out, pt->base + k);
        if (k >= pt->n_segs || pt->segs[k].type != SEG_ANY_DEPTH)
            return;
        k++;
    }
}

static bool any_set(const ts_rules_state *s, size_t words)
{
    for (size_t w = 0; w < words; w++) {
        if (s[w] != 0)
            return true;
    }
    return false;
}

bool ts_rules_path_start(const ts_rules_path_set *set, const char *tool, size_t len, unsigned kinds,
                         ts_rules_state *out)
{
    size_t words = ts_rules_path_words(set);

    memset(out, 0, words * sizeof(*out));
    for (size_t i = 0; i < set->n; i++) {
        const pattern *pt = &set->patterns[i];
        if (!(kinds & TS_RULES_KIND_BIT(pt->kind)))
            continue;
        if (!pt->any_tool && (pt->tool_len != len || memcmp(pt->tool, tool, len) != 0))
            continue;
        enter(out, pt, 0);
    }
    return any_set(out, words);
}

/* One step by a key (key != NULL) or an index. */
static bool step(const ts_rules_path_set *set, const ts_rules_state *in, const char *key,
                 size_t key_len, size_t index, ts_rules_state *out)
{
    size_t words = ts_rules_path_words(set);

    memset(out, 0, words * sizeof(*out));
    for (size_t w = 0; w < words; w++) {
        ts_rules_state bits = in[w];
        while (bits != 0) {
            size_t bit = w * 64 + (size_t)__builtin_ctzll(bits);
            const pattern *pt = &set->patterns[set->bit_pattern[bit]];
            size_t k = bit - pt->base;
            bits &= bits - 1;
            if (k >= pt->n_segs)
                continue;
            const segment *seg = &pt->segs[k];
            switch (seg->type) {
            case SEG_ANY_DEPTH:
                enter(out, pt, k);
                break;
            case SEG_KEY:
                if (key != NULL && seg->key_len == key_len && memcmp(seg->key, key, key_len) == 0)
                    enter(out, pt, k + 1);
                break;
            case SEG_ANY_KEY:
                if (key != NULL)
                    enter(out, pt, k + 1);
                break;
            case SEG_INDEX:
                if (key == NULL && seg->index == index)
                    enter(out, pt, k + 1);
                break;
            case SEG_ANY_INDEX:
                if (key == NULL)
                    enter(out, pt, k + 1);
                break;
            }
        }
    }
    return any_set(out, words);
}

bool ts_rules_path_step_key(const ts_rules_path_set *set, const ts_rules_state *in, const char *key,
                            size_t len, ts_rules_state *out)
{
    return step(set, in, key, len, 0, out);
}

bool ts_rules_path_step_index(const ts_rules_path_set *set, const ts_rules_state *in, size_t index,
                              ts_rules_state *out)
{
    return step(set, in, NULL, 0, index, out);
}

long ts_rules_path_accepts(const ts_rules_path_set *set, const ts_rules_state *state,
                           ts_rules_kind kind, bool first)
{
    size_t words = ts_rules_path_words(set);
    long found = -1;

    if ((unsigned)kind >= TS_RULES_KINDS || set->accept[kind] == NULL)
        return -1;
    for (size_t w = 0; w < words; w++) {
        ts_rules_state bits = state[w] & set->accept[kind][w];
        while (bits != 0) {
            size_t bit = w * 64 + (size_t)__builtin_ctzll(bits);
            found = (long)set->patterns[set->bit_pattern[bit]].number;
            if (first)
                return found;
            bits &= bits - 1;
        }
    }
    return found;
}

bool ts_rules_path_alive(const ts_rules_path_set *set, const ts_rules_state *state,
                         ts_rules_kind kind)
{
    size_t words = ts_rules_path_words(set);

    if ((unsigned)kind >= TS_RULES_KINDS || set->alive[kind] == NULL)
        return false;
    for (size_t w = 0; w < words; w++) {
        if (state[w] & set->alive[kind][w])
            return true;
    }
    return false;
}
