/*
 * daemon/snapshots — the store methods of the protocol (docs/protocol.md):
 * check, record, approve, list, show, rm, review, diff, accept, reject,
 * orphans, over the snapshot stores the daemon serves (opened on first
 * use, one lock per store, their kept observations and caches). Each
 * request on a store's files is a job of that store, ordered per snapshot
 * (daemon/server/server.h, jobs). The module needs the runs module
 * (daemon/runs), served before it: a check in a run is recorded there.
 *
 *   const tsd_module *modules[] = {&tsd_runs_module, &tsd_snapshots_module};
 *   tsd_server_run(&opt, &listener, state, modules, 2);
 */
#ifndef TSD_SNAPSHOTS_H
#define TSD_SNAPSHOTS_H

#include "daemon/server/server.h"

extern const tsd_module tsd_snapshots_module;

#endif
