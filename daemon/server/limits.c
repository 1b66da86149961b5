/*
 * limits — connection deadlines and slots (see server_internal.h).
 */
#include "server_internal.h"

#include <stdio.h>
#include <string.h>

/* Close conn at once with an error of id nil naming the limit: whatever
 * it holds is let go now, whether it reads or not. */
static void close_for(tsd_conn *conn, const char *why)
{
    tsd_warn("connection %llu (pid %ld) closed: %s", (unsigned long long)conn->id, (long)conn->pid,
             why);
    tsd_conn_kill(conn, TS_ERR_LIMIT, why);
}

/* How long conn has been idle: nothing unanswered and no frame arriving
 * (0 while it is busy). */
static uint64_t idle_for(const tsd_conn *conn, uint64_t now)
{
    if (conn->requests_head != NULL || conn->decoding > 0 || conn->frame_started_ms != 0 ||
        conn->queued_replies > 0)
        return 0;
    return now - conn->active_ms;
}

tsd_slot tsd_limits_admit(tsd_server *srv, tsd_conn *newcomer)
{
    uint64_t now = tsd_server_now_ms(srv);
    tsd_conn *idlest = NULL;
    uint64_t idlest_for = 0;
    size_t general = 0;
    size_t reserved = 0;

    for (tsd_conn *c = srv->conns; c != NULL; c = c->next) {
        uint64_t idle;

        if (c == newcomer || c->closing)
            continue;
        if (!c->reserved) {
            general++;
            continue;
        }
        reserved++;
        idle = idle_for(c, now);
        if (idle >= TSD_EVICT_AFTER_MS && idle > idlest_for) {
            idlest = c;
            idlest_for = idle;
        }
    }
    if (general < TSD_MAX_CONNECTIONS)
        return TSD_SLOT_GENERAL;
    if (reserved < TSD_RESERVED_SLOTS)
        return TSD_SLOT_RESERVED;
    if (idlest != NULL) {
        char why[160];

        snprintf(why, sizeof(why), "idle for %llu ms in a slot kept for status and stop",
                 (unsigned long long)idlest_for);
        close_for(idlest, why);
        return TSD_SLOT_RESERVED;
    }
    return TSD_SLOT_NONE;
}

/* conn holds a request the daemon has not read for TSD_BUDGET_WAIT_MS
 * because it is over its memory budget. */
static bool waits_for_budget(const tsd_server *srv, const tsd_conn *c, uint64_t now)
{
    return c->paused && (c->frame_started_ms != 0 || c->pending_len > 0) &&
           now - c->paused_ms >= TSD_BUDGET_WAIT_MS && tsd_conn_waits_for_budget(srv, c);
}

void tsd_limits_enforce(tsd_server *srv, uint64_t now)
{
    uint64_t hello_ms = srv->options->hello_timeout_ms;
    uint64_t frame_ms = srv->options->frame_timeout_ms;
    char why[160];

    for (tsd_conn *c = srv->conns; c != NULL; c = c->next) {
        if (c->closing)
            continue;
        if (!c->hello_done && now - c->accepted_ms >= hello_ms) {
            snprintf(why, sizeof(why), "no hello within %llu ms of connecting",
                     (unsigned long long)hello_ms);
            close_for(c, why);
        } else if (c->frame_started_ms != 0 && !c->paused &&
                   now - c->frame_started_ms >= frame_ms) {
            snprintf(why, sizeof(why), "a frame left incomplete for %llu ms",
                     (unsigned long long)frame_ms);
            close_for(c, why);
        } else if (waits_for_budget(srv, c, now)) {
            char busy[400];
            const tsd_budget *b = &srv->budget;

            snprintf(busy, sizeof(busy),
                     "the daemon is over its memory budget (%zu MiB resident, %zu MiB held, "
                     "--memory-budget %zu MiB) and has not read this connection's request for "
                     "%d ms: it was not executed; send it again once the daemon has room",
                     b->rss >> 20, (b->held + b->modules_held + tsd_budget_values(b)) >> 20,
                     b->limit >> 20, TSD_BUDGET_WAIT_MS);
            tsd_warn("connection %llu (pid %ld) closed: %s", (unsigned long long)c->id,
                     (long)c->pid, busy);
            tsd_conn_kill(c, TS_ERR_BUSY, busy);
        } else if (c->reserved && idle_for(c, now) >= TSD_RESERVED_IDLE_MS) {
            snprintf(why, sizeof(why), "idle for %d ms in a slot kept for status and stop",
                     TSD_RESERVED_IDLE_MS);
            close_for(c, why);
        }
    }
}

bool tsd_limits_method_allowed(const tsd_conn *conn, const char *method, char *why, size_t whysz)
{
    static const char *const operator_methods[] = {"hello", "ping", "status", "stop"};

    if (!conn->reserved)
        return true;
    for (size_t i = 0; i < sizeof(operator_methods) / sizeof(operator_methods[0]); i++)
        if (strcmp(method, operator_methods[i]) == 0)
            return true;
    snprintf(why, whysz,
             "all %d connection slots are taken; this connection has one of the %d kept for "
             "status and stop, so %.64s is not served on it",
             TSD_MAX_CONNECTIONS, TSD_RESERVED_SLOTS, method);
    return false;
}

void tsd_status_limits(const tsd_server *srv, size_t own, struct json_object *o)
{
    const tsd_budget *b = &srv->budget;
    size_t values = tsd_budget_values(b);

    values -= own < values ? own : values; /* the status request's own */
    size_t reserved = 0;

    for (const tsd_conn *c = srv->conns; c != NULL; c = c->next)
        reserved += c->reserved && !c->closing;
    json_object_object_add(o, "connections_reserved", json_object_new_int64((int64_t)reserved));
    json_object_object_add(o, "connections_paused", json_object_new_int64((int64_t)b->paused));
    json_object_object_add(o, "memory_budget", json_object_new_int64((int64_t)b->limit));
    json_object_object_add(o, "memory_held",
                           json_object_new_int64((int64_t)(b->held + b->modules_held + values)));
    json_object_object_add(o, "memory_values", json_object_new_int64((int64_t)values));
    json_object_object_add(o, "memory_refused", json_object_new_int64((int64_t)b->refused));
    json_object_object_add(o, "memory_resident", json_object_new_int64((int64_t)b->rss));
}
