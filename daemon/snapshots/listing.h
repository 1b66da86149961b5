/*
 * listing — the list method: the store's snapshot summaries, whole or in
 * pages.
 *
 * A listing without a cursor reads the whole store as a whole-store job on
 * the thread pool (ts_store_list_summaries_cached: every file read and
 * validated, except those whose summary the store's listing cache holds
 * for an unchanged stamp; docs/internals/list_cache.md), after every
 * earlier request of the store and before every later one. With a limit,
 * the first page is answered and the whole listing is held; each cursor
 * ("next") names that listing and the position of the page after the one
 * sent, so the pages of one listing are one consistent view of the store
 * as it was when the listing was read (nothing is listed twice or skipped,
 * total holds for every page) and a cursor asked for again gives the same
 * page again. A held listing is dropped after TSD_LISTING_IDLE_MS without a
 * page (its last page included), or when TSD_LISTINGS_MAX newer ones are
 * held. Owns the held listings (tsd_server.listings).
 */
#ifndef TSD_LISTING_H
#define TSD_LISTING_H

#include <json-c/json.h>

#include "daemon/server/server.h"
#include "lib/base/ts_base.h"

#define TSD_LISTINGS_MAX 16           /* held listings (paged) */
#define TSD_LISTING_IDLE_MS 60000     /* a held listing unused this long is dropped */
#define TSD_LISTING_LIMIT_MAX 1000000 /* largest page */

/* list {store, pending, limit, cursor} -> {snapshots, problems, total, next}. */
int tsd_list(tsd_server *srv, tsd_request *req, const struct json_object *params,
             struct json_object **result, ts_error *err);

/* Drop every held listing (at stop). */
void tsd_listings_free(tsd_server *srv);

#endif
