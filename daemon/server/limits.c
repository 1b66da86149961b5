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

/* How readily a connection in a reserved slot gives its place to a
 * newcomer (server_internal.h): 0 not at all, else the higher the sooner;
 * why says it, for the log. An operator's client writes each of its
 * frames whole and its next request as soon as the last answer arrives,
 * so only what it never does is given up at once. */
static int evictable(const tsd_conn *c, uint64_t now, const char **why)
{
    bool waiting = c->requests_head != NULL || c->decoding > 0;

    if (c->served && !waiting && c->frame_started_ms == 0 &&
        idle_for(c, now) >= TSD_EVICT_GRACE_MS) {
        *why = "answered already";
        return 3;
    }
    if (c->frame_started_ms != 0) {
        *why = "a frame under way";
        return 2;
    }
    if (!c->hello_done && !waiting && now - c->accepted_ms >= TSD_EVICT_GRACE_MS) {
        *why = "no hello yet";
        return 2;
    }
    if (c->hello_done && !waiting && idle_for(c, now) >= TSD_EVICT_GRACE_MS) {
        *why = "idle";
        return 1;
    }
    return 0;
}

/* Reserved slots held by connections of process pid. */
static size_t reserved_by(const tsd_server *srv, const tsd_conn *newcomer, pid_t pid)
{
    size_t n = 0;

    for (const tsd_conn *c = srv->conns; c != NULL; c = c->next)
        n += c != newcomer && c->reserved && !c->closing && c->pid == pid;
    return n;
}

/*
 * When no connection of the reserved slots may be evicted for what it
 * does: a newcomer of a process holding none of them takes the place of
 * one of a process holding several (the one holding the most, its oldest
 * connection), unless that one waits for an answer. A process that opens
 * connections in a loop cannot keep the slots young against another.
 */
static tsd_conn *fair_share_victim(const tsd_server *srv, const tsd_conn *newcomer)
{
    tsd_conn *victim = NULL;
    size_t victim_holds = 1;

    if (reserved_by(srv, newcomer, newcomer->pid) > 0)
        return NULL;
    for (tsd_conn *c = srv->conns; c != NULL; c = c->next) {
        size_t holds;

        if (c == newcomer || !c->reserved || c->closing || c->requests_head != NULL ||
            c->decoding > 0)
            continue;
        holds = reserved_by(srv, newcomer, c->pid);
        if (holds >= victim_holds && holds >= 2) {
            victim = c;
            victim_holds = holds;
        }
    }
    return victim;
}

tsd_slot tsd_limits_admit(tsd_server *srv, tsd_conn *newcomer)
{
    uint64_t now = tsd_server_now_ms(srv);
    tsd_conn *victim = NULL;
    const char *victim_why = "";
    int victim_rank = 0;
    size_t general = 0;
    size_t reserved = 0;

    for (tsd_conn *c = srv->conns; c != NULL; c = c->next) {
        const char *why = "";
        int rank;

        if (c == newcomer || c->closing)
            continue;
        if (!c->reserved) {
            general++;
            continue;
        }
        reserved++;
        rank = evictable(c, now, &why);
        /* the list is newest first: on a tie the older one replaces it */
        if (rank > 0 && rank >= victim_rank) {
            victim = c;
            victim_rank = rank;
            victim_why = why;
        }
    }
    if (general < TSD_MAX_CONNECTIONS)
        return TSD_SLOT_GENERAL;
    if (reserved < TSD_RESERVED_SLOTS)
        return TSD_SLOT_RESERVED;
    if (victim == NULL && (victim = fair_share_victim(srv, newcomer)) != NULL)
        victim_why = "its process holds several of them";
    if (victim != NULL) {
        char why[200];

        snprintf(why, sizeof(why),
                 "its place in a slot kept for status and stop was given to a newcomer (%s, "
                 "%llu ms after it connected)",
                 victim_why, (unsigned long long)(now - victim->accepted_ms));
        close_for(victim, why);
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
        uint64_t hello_by =
            c->reserved && hello_ms > TSD_RESERVED_FRAME_MS ? TSD_RESERVED_FRAME_MS : hello_ms;
        uint64_t frame_by =
            c->reserved && frame_ms > TSD_RESERVED_FRAME_MS ? TSD_RESERVED_FRAME_MS : frame_ms;

        if (!c->hello_done && now - c->accepted_ms >= hello_by) {
            snprintf(why, sizeof(why), "no hello within %llu ms of connecting%s",
                     (unsigned long long)hello_by,
                     c->reserved ? " (in a slot kept for status and stop)" : "");
            close_for(c, why);
        } else if (c->frame_started_ms != 0 && !c->paused &&
                   now - c->frame_started_ms >= frame_by) {
            snprintf(why, sizeof(why), "a frame left incomplete for %llu ms%s",
                     (unsigned long long)frame_by,
                     c->reserved ? " (in a slot kept for status and stop)" : "");
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
