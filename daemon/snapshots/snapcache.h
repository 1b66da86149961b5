/*
 * snapcache — parsed snapshots of one store kept for replays on the loop
 * thread, never answering with a file that changed.
 *
 * An entry is the snapshot parsed from a file with the file's stamp (dev,
 * inode, size, mtime, ctime: ts_file_stamp) as it was when read. It is used
 * only when one lstat of the file now gives the same stamp AND the stamp is
 * trusted by the racy-timestamp rule (ts_check_stamp_trusted with
 * TS_CHECK_RACY_NS, against the moment the file was read): a file written
 * within one timestamp tick of our read is read again until its
 * timestamps are old enough. What it cannot see is the system clock set
 * back by more than the margin.
 *
 * Loop thread only. At most TSD_SNAPCACHE_MAX entries per store, and
 * about TSD_SNAPCACHE_BYTES for the entries of every store together (a
 * budget the caches share: an entry weighs TSD_SNAPCACHE_PARSED_FACTOR
 * times its file, what the file takes parsed), the store's least recently
 * used dropped first; only small files are kept (the fast path's limit).
 * Owns its entries' snapshots.
 */
#ifndef TSD_SNAPCACHE_H
#define TSD_SNAPCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/ts_base.h"
#include "lib/rules/ts_rules.h"
#include "lib/score/ts_score.h"
#include "lib/snapshot/ts_snapshot.h"
#include "lib/store/ts_store.h"

#define TSD_SNAPCACHE_MAX 16384
#define TSD_SNAPCACHE_BUCKETS 4096
#define TSD_SNAPCACHE_BYTES (128u << 20)
#define TSD_SNAPCACHE_PARSED_FACTOR 28

/* Bytes the caches sharing it hold together (loop thread only). */
typedef struct tsd_snapcache_budget {
    size_t used; /* at most TSD_SNAPCACHE_BYTES */
} tsd_snapcache_budget;

typedef struct tsd_snapcache_entry tsd_snapcache_entry;

typedef struct tsd_snapcache {
    tsd_snapcache_entry *buckets[TSD_SNAPCACHE_BUCKETS];
    tsd_snapcache_entry *lru_head, *lru_tail; /* most recently used first */
    size_t count;
    tsd_snapcache_budget *budget; /* shared; NULL: only the count bounds it */
} tsd_snapcache;

/*
 * name's snapshot into *out (borrowed: valid until the next call on this
 * cache), from the cache when a stat of the file (ts_store_stat) gives the
 * stamp it was read with and that stamp is trusted, else read with
 * ts_store_load_small(max_bytes) and kept. Errors as ts_store_load_small
 * (-ENOENT, -EFBIG, ...).
 */
int tsd_snapcache_load(tsd_snapcache *cache, ts_store *store, const char *name, size_t max_bytes,
                       const ts_snapshot **out, ts_error *err);

/*
 * name's cached snapshot when one lstat() of its file's whole path (the
 * store's key, then the file name) finds the very stamp it was read with,
 * and that stamp is trusted; -EAGAIN for anything else (no entry, a stat
 * failing, another stamp), with nothing dropped or read: the caller then
 * takes the usual way (tsd_stores_get, tsd_snapcache_load).
 *
 * Why one stat of the whole path is enough, without the stat of the root
 * that the usual way makes: a stamp holds the file's inode and its ctime,
 * and the ctime of an inode changes whenever it is written, renamed,
 * linked or unlinked. So an equal stamp found through the path now means
 * the path now leads to the very file that was read, unchanged since: the
 * content is the cached one whatever the directories on the way are. A
 * root replaced by another directory, moved away, removed or pinned
 * elsewhere leads to another inode, a new ctime or nothing, and goes the
 * usual way (which refuses, reopens or re-reads as before).
 */
int tsd_snapcache_load_quick(tsd_snapcache *cache, const char *name, const ts_snapshot **out);

/*
 * The compact JSON text of calls and its text id (ts_runreport_text_id),
 * when calls is the object the last tsd_snapcache_self_score of name gave
 * (a replay of the snapshot's own calls): worked out once per entry and
 * its rules, borrowed until the next call on this cache. -ENOENT for any
 * other object (the caller serializes it itself), -ENOMEM.
 */
int tsd_snapcache_calls_text(tsd_snapcache *cache, const char *name,
                             const struct json_object *calls, const char **text, size_t *len,
                             const char **id);

/* name's file (ts_store_path) into out when name has an entry: no hashing
 * of the name. False when it has none (or out is too small). */
bool tsd_snapcache_path(tsd_snapcache *cache, const char *name, char *out, size_t outsz);

/*
 * Whether bytes[0..len), a check's observed value as its client sent it,
 * are byte for byte the msgpack that a client's library sends for a list
 * equal to the calls of name's cached snapshot (the one the last
 * tsd_snapcache_load of name returned): then decoding, extracting
 * ("auto") and validating them would give exactly those calls. The
 * snapshot's encoding is made on first use and kept with the entry. False
 * when name is not cached, or when extracting its calls would not hand
 * them back unchanged.
 */
bool tsd_snapcache_same_calls(tsd_snapcache *cache, const char *name, const void *bytes,
                              size_t len);

/*
 * The calls of name's cached snapshot scored against themselves with opt
 * under rules (NULL: none): what a replay of an equal observed list gives.
 * Computed once per options and rules object (the last ones are kept, with
 * a reference to the rules) and shared into *out (ts_score_result_share;
 * release it with ts_score_result_free), and packed as a check reply's
 * result (ts_message_pack_score_result) appended to packed; what the rules
 * did (ts_rules_applied_to_json), packed, is appended to rules_packed
 * (nothing when no rules applied); *calls is a new reference to the
 * snapshot's calls as the rules redact them (the observed calls such a
 * replay stands for). Errors as ts_rules_evaluate; "internal" when name is
 * not cached.
 */
int tsd_snapcache_self_score(tsd_snapcache *cache, const char *name, const ts_score_options *opt,
                             ts_rules *rules, ts_score_result *out, ts_buf *packed,
                             ts_buf *rules_packed, struct json_object **calls, ts_error *err);

/* Drop every entry. */
void tsd_snapcache_clear(tsd_snapcache *cache);

#endif
