/*
 * check — the record -> approve -> replay state machine of snapshots.md for
 * one request (method "check"), and trace import (method "record").
 *
 * Runs on the loop thread, so requests for one name are applied strictly in
 * arrival order: of several checks of one missing name exactly the first
 * creates it, the others see it pending; an approve is never undone by a
 * check. A reply is produced only after its write is durable.
 */
#ifndef TSD_CHECK_H
#define TSD_CHECK_H

#include <json-c/json.h>

#include "server.h"
#include "ts_error.h"

/* check {store, name, actual, format, min_score, weights, strict, ci, update,
 * allow_pending, run, test, color} -> {outcome, name, file, message, result,
 * report}. */
int tsd_check(tsd_server *srv, const struct json_object *params, struct json_object **result,
              ts_error *err);

/* record {store, name, calls, source, update, format} -> {outcome, name, file}. */
int tsd_record(tsd_server *srv, const struct json_object *params, struct json_object **result,
               ts_error *err);

#endif
