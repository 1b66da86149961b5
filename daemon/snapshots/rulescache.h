/*
 * rulescache — the project's rules file of one store (docs/rules.md):
 * `config.json` in the snapshot root's parent, read on every check and
 * compiled again only when it changed.
 *
 * Each check stats the file once. The compiled rules (or the file's error,
 * or "no file") are reused while the stat gives the stamp they were read
 * with and that stamp is older than the racy margin (the snapshot cache's
 * rule: a file written within a timestamp tick of its read could change
 * again unseen); otherwise the file is read and parsed again. A malformed
 * file gives the same error, naming the file, line and column, to every
 * check of its store until it is fixed; other stores are not affected.
 *
 * Loop thread only. The rules handed out are new references (pool jobs
 * keep them while the cache moves on).
 */
#ifndef TSD_RULESCACHE_H
#define TSD_RULESCACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/base/ts_base.h"
#include "lib/rules/ts_rules.h"
#include "lib/store/ts_store.h"

typedef struct tsd_rulescache {
    char *path;          /* the project file (owned) */
    bool held;           /* stamp, rules and error below describe a read */
    ts_file_stamp stamp; /* of the file when read (exists false: no file) */
    int64_t read_ns;     /* CLOCK_REALTIME just before the read */
    ts_rules *rules;     /* compiled, or NULL (no file, or no rule in it) */
    int rc;              /* < 0: the file's error, in err */
    ts_error err;
} tsd_rulescache;

/* The cache of the store at root (absolute). -ENOMEM or -ENAMETOOLONG. */
int tsd_rulescache_init(tsd_rulescache *cache, const char *root);
void tsd_rulescache_free(tsd_rulescache *cache);

/*
 * The project's rules now: *out is a new reference (ts_rules_unref), or
 * NULL when there is no file or it gives no rule. A file that cannot be
 * read or is not valid is an error ("invalid_rules", or "io").
 */
int tsd_rulescache_get(tsd_rulescache *cache, ts_rules **out, ts_error *err);

#endif
