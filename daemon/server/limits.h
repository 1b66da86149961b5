/*
 * limits — bounds in time and number on connections: the hello and frame
 * timeouts, and the connection slots.
 *
 * A connection that has not completed hello 5 s after it was accepted, or
 * that leaves a frame incomplete for 30 s (--hello-timeout,
 * --frame-timeout), is answered an error of id nil ("limit") and closed; an idle connection
 * (no partial frame) is kept however long, as test workers hold theirs
 * between tests.
 *
 * Slots: TSD_MAX_CONNECTIONS connections, plus TSD_RESERVED_SLOTS kept for
 * an operator. A newcomer that finds the general slots full takes a
 * reserved one, where only hello, ping, status and stop are served
 * (anything else: "limit"); a reserved connection is closed once it has
 * been idle (nothing unanswered, no frame arriving) for
 * TSD_RESERVED_IDLE_MS, and a newcomer that finds the reserved slots full
 * too evicts the one idle longest, if it has been idle
 * TSD_EVICT_AFTER_MS. So connections flooding in hold the general slots
 * at most until their hello deadline, never the reserved ones against a
 * `tsctl status` or `tsctl stop`; a newcomer is refused ("limit") only
 * while all reserved slots are busy answering.
 */
#ifndef TSD_LIMITS_H
#define TSD_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TSD_MAX_CONNECTIONS 512   /* general connection slots */
#define TSD_RESERVED_SLOTS 8      /* more, for status and stop */
#define TSD_RESERVED_IDLE_MS 1000 /* a reserved slot idle this long is closed */
#define TSD_EVICT_AFTER_MS 50     /* ... and may be taken by a newcomer */
#define TSD_LIMITS_TICK_MS 100    /* deadlines are checked this often */

struct tsd_conn;
struct tsd_server;

/* Where a newcomer goes. */
typedef enum tsd_slot { TSD_SLOT_GENERAL = 0, TSD_SLOT_RESERVED, TSD_SLOT_NONE } tsd_slot;

/*
 * The slot for newcomer (already in the server's list, not counted yet),
 * evicting an idle reserved connection when every slot is taken (see
 * above).
 */
tsd_slot tsd_limits_admit(struct tsd_server *srv, struct tsd_conn *newcomer);

/* Close the connections past their hello, frame or reserved-slot
 * deadline (now: the loop's clock in ms). */
void tsd_limits_enforce(struct tsd_server *srv, uint64_t now);

/* True when conn may run method (always, but in a reserved slot); else
 * why names the rule. */
bool tsd_limits_method_allowed(const struct tsd_conn *conn, const char *method, char *why,
                               size_t whysz);

/* status's members about these limits and the memory budget: connections
 * in reserved slots and paused, the budget, what connections and runs
 * hold, the resident size. */
struct json_object;
void tsd_status_limits(const struct tsd_server *srv, struct json_object *o);

#endif
