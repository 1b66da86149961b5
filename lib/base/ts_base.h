/*
 * lib/base — the conventions every module of toolscored shares, and nothing
 * else: one error convention (ts_error: 0 or a negative errno-style code,
 * with a stable code and a message), one growable buffer whose errors stick
 * (ts_buf), one definition of valid UTF-8 (ts_utf8), one whole-write loop
 * for file descriptors (ts_fd), one way to quote a word for a shell
 * (ts_shell) and one string hash for in-memory tables (ts_hash). Depends
 * on nothing of ours; every other folder may include it. Nothing here prints, exits or aborts.
 */
#ifndef TS_BASE_H
#define TS_BASE_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef TS_ERROR_H
#define TS_ERROR_H

/*
 * ts_error — the one error convention of toolscored.
 *
 * Every function that can fail returns 0 on success or a negative errno-style
 * code (-EINVAL, -ENOENT, -EIO, -ENOMEM, -E2BIG, -EEXIST, ...), and fills an
 * optional caller-owned ts_error with a stable machine code (a short string,
 * also used on the wire, see docs/protocol.md) and a human message.
 * Nothing in lib/, proto/ or the client library prints or exits.
 *
 *   ts_error err;
 *   if (ts_store_open(path, &store, &err) < 0)
 *       fprintf(stderr, "%s\n", err.message);
 */
#define TS_ERROR_MESSAGE_MAX 1024

typedef struct ts_error {
    char code[40];                      /* stable code, e.g. "invalid_json" */
    char message[TS_ERROR_MESSAGE_MAX]; /* one line, no trailing newline */
} ts_error;

/* Stable error codes (strings, shared with the wire protocol). */
#define TS_ERR_INVALID_ARGUMENT "invalid_argument" /* bad parameter value */
#define TS_ERR_INVALID_JSON "invalid_json"         /* not parseable JSON */
#define TS_ERR_INVALID_SNAPSHOT "invalid_snapshot" /* JSON, but not a snapshot */
#define TS_ERR_INVALID_CALLS "invalid_calls"       /* calls list fails validation */
#define TS_ERR_FORMAT "format"                     /* extraction failed */
#define TS_ERR_INVALID_RULES "invalid_rules"       /* a rules object or config file is invalid */
#define TS_ERR_NOT_FOUND "not_found"               /* no such snapshot/run/file */
#define TS_ERR_EXISTS "exists"                     /* refusing to overwrite */
#define TS_ERR_TOO_LARGE "too_large"               /* a size limit was hit */
#define TS_ERR_LIMIT "limit"                       /* another limit (depth, count) */
#define TS_ERR_IO "io"                             /* a system call failed */
#define TS_ERR_NO_MEMORY "no_memory"
#define TS_ERR_INTERNAL "internal"

/*
 * Fill err (if not NULL) and return rc, so that failure paths read
 *   return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT, "bad %s", what);
 */
int ts_error_set(ts_error *err, int rc, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Prefix err->message with "<prefix>: " (e.g. a file name). Returns rc. */
int ts_error_prefix(ts_error *err, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Reset err to "no error" (empty code and message). */
void ts_error_clear(ts_error *err);

#endif /* TS_ERROR_H */

/*
 * ts_buf — a growable byte buffer with a maximum size fixed at creation, and
 * errors that stick.
 *
 * An append that would pass the maximum, or that cannot allocate, fails with
 * -E2BIG / -ENOMEM: the buffer frees its contents and remembers the error,
 * and every later append does nothing and returns that error. So a writer
 * appends without checking each step and looks once at the end
 * (ts_buf_error); no caller can take a half-built result, since
 * ts_buf_detach of a failed buffer gives NULL. The data is always
 * NUL-terminated (the NUL is not counted in len) once anything was appended.
 *
 *   ts_buf b;
 *   ts_buf_init(&b, 1 << 20);
 *   ts_buf_appendf(&b, "%d calls", n);
 *   ts_buf_appends(&b, " checked");
 *   if (ts_buf_error(&b) < 0) ...;
 *   ...use b.data, b.len...
 *   ts_buf_free(&b);
 */
typedef struct ts_buf {
    char *data; /* owned; NULL until the first append */
    size_t len; /* bytes used, excluding the terminating NUL */
    size_t cap; /* bytes allocated */
    size_t max; /* largest len allowed */
    int error;  /* 0, or the first failure (-E2BIG, -ENOMEM): then empty */
} ts_buf;

#define TS_BUF_UNLIMITED ((size_t)-1 / 2)

void ts_buf_init(ts_buf *b, size_t max);

/* Appends: 0, or the buffer's error (the first failure, kept: the contents
 * are freed and later appends do nothing). */
int ts_buf_append(ts_buf *b, const void *data, size_t len);
int ts_buf_appends(ts_buf *b, const char *s);
int ts_buf_appendc(ts_buf *b, char c);
int ts_buf_appendf(ts_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ts_buf_vappendf(ts_buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Make room for n more bytes without changing len (fails as an append). */
int ts_buf_reserve(ts_buf *b, size_t n);
/* 0, or the error of the first append that failed. */
int ts_buf_error(const ts_buf *b);
/* Fail b with rc (< 0) as a failed append does, unless it failed already;
 * returns b's error. For a writer whose part built elsewhere (a temporary
 * buffer) failed, so that b's own writer sees it at the end. */
int ts_buf_fail(ts_buf *b, int rc);
/* Forget the contents and any error, keep the allocation. */
void ts_buf_reset(ts_buf *b);
/* Take ownership of the data ("" when empty; NULL when the buffer failed
 * or out of memory); b is left empty, as after ts_buf_init. */
char *ts_buf_detach(ts_buf *b, size_t *len);
/* Free the contents; b is left empty, as after ts_buf_init. */
void ts_buf_free(ts_buf *b);

/*
 * ts_utf8 — the one definition of valid UTF-8 and its decoder, shared by
 * the JSON reader and writer, the wire format, names, scoring's
 * whitespace trimming and the report's repr() and widths.
 *
 * Valid means RFC 3629: shortest form only (no overlongs), no surrogates
 * (U+D800-DFFF), nothing beyond U+10FFFF.
 */
/*
 * Length of the valid UTF-8 sequence at s[0..len) (1 to 4), or 0 if it is
 * invalid (overlong, surrogate, beyond U+10FFFF, truncated, stray
 * continuation byte) or len is 0. *cp receives the code point.
 */
size_t ts_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp);

/* Offset of the first byte of s[0..len) that does not start a valid
 * sequence, or len when all of it is valid. */
size_t ts_utf8_first_invalid(const char *s, size_t len);

/* True when s[0..len) is valid UTF-8. */
bool ts_utf8_valid(const char *s, size_t len);

/* How much of s[0..len) to keep to cut it to at most max bytes without
 * splitting a character: len when it fits, else max or less, backed off
 * over continuation bytes. */
size_t ts_utf8_cut(const char *s, size_t len, size_t max);

/*
 * ts_fd — writing to a file descriptor whole: the one write loop the
 * store's temp files, the state directory's files and the daemon's run
 * records share (a short write continues, EINTR retries).
 */
/*
 * write(2) all of data[0..len) to fd, at its offset (at the end with
 * O_APPEND). 0, or -errno of the write that failed (part may be written).
 */
int ts_fd_write_all(int fd, const void *data, size_t len);

/*
 * ts_hash — FNV-1a (64 bits), the hash of the in-memory tables keyed by
 * names, file names and texts (run reports, the list cache, the snapshot
 * cache, the daemon's logging slots). Not for anything on disk or on the
 * wire, and no defence against chosen keys.
 */
static inline uint64_t ts_hash(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ULL;

    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

/* ts_hash of the NUL-terminated s (one pass, no strlen first). */
static inline uint64_t ts_hash_string(const char *s)
{
    uint64_t h = 1469598103934665603ULL;

    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/*
 * ts_shell — a word quoted for a POSIX shell: every command toolscored
 * prints with a snapshot name in it (`tsctl accept 'NAME'`) is built here,
 * so that pasting it into bash or zsh, interactive or not, runs exactly
 * that command with exactly that name, whatever it holds (spaces, ; > |,
 * quotes, $, globs like [Oslo], ! for history expansion, non-ASCII).
 *
 * The word is always quoted: 'tests/a.py::test[x]', a quote as 'it'\''s'.
 * A word holding a character that does not show as itself on a terminal
 * (a control character such as a newline, DEL, C1 controls, zero-width and
 * bidirectional format characters) or bytes that are not UTF-8 is written
 * as $'...' instead (bash, zsh, ksh, POSIX.1-2024): $'a\nb', each such
 * byte as \xHH, so the text printed stays on one line and copies whole.
 */
/* Append s[0..len) quoted. 0, or out's error. */
int ts_shell_quote(ts_buf *out, const char *s, size_t len);

/* Whether s[0..len) is valid UTF-8 whose every character shows as itself
 * on a terminal (what ts_shell_quote puts between plain single quotes). */
bool ts_shell_shows(const char *s, size_t len);

/* Append "COMMAND 'WORD'" (command as it is, word quoted; "COMMAND --
 * '-WORD'" when the word starts with '-', which tsctl would read as an
 * option). 0, or out's error. */
int ts_shell_command(ts_buf *out, const char *command, const char *word);

#endif
