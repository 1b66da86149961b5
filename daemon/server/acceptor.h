/*
 * acceptor — taking new connections off the listening socket, also when the
 * daemon has run out of file descriptors.
 *
 * libuv's own accept loop meets EMFILE by accepting and closing the pending
 * connections in silence: the client sees its connection reset and cannot
 * tell why. The acceptor watches the listening socket itself (uv_poll) and
 * keeps one reserved descriptor (an open /dev/null). When accept() fails
 * with EMFILE or ENFILE it gives the reserve up, accepts the pending
 * connection with the freed slot, sends it one error reply (id nil, code
 * "busy", a message naming the descriptor limit), closes it and takes the
 * reserve back: every refused client learns why, and no connection waits
 * in the backlog, so the loop does not spin on a socket that stays
 * readable. When the reserve cannot be taken back (another thread took the
 * slot) the acceptor stops watching the socket for a short pause.
 *
 * Owns the listening descriptor (closed by tsd_acceptor_close), the reserve
 * and its two handles.
 */
#ifndef TSD_ACCEPTOR_H
#define TSD_ACCEPTOR_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#define TSD_ACCEPT_PAUSE_MS 100 /* no reserve left: wait this long, try again */
#define TSD_ACCEPT_BATCH 128    /* connections taken per wake-up, at most */

/* Called with each accepted connection's descriptor, which it then owns. */
typedef void (*tsd_accept_fn)(void *data, int fd);

typedef struct tsd_acceptor {
    uv_poll_t poll;
    uv_timer_t pause;
    int fd;         /* listening socket; -1 once closed */
    int reserve_fd; /* /dev/null held for one refused client; -1 while given up */
    bool polling;
    bool open;              /* handles initialized and not closed */
    uint64_t refused;       /* answered "busy" since the last accepted connection */
    uint64_t refused_total; /* answered "busy" since the start */
    tsd_accept_fn on_accept;
    void *data;
} tsd_acceptor;

/*
 * Start accepting on listen_fd (a listening, non-blocking or blocking Unix
 * stream socket; the acceptor owns it from now on, also on failure). Each
 * connection goes to fn(data, fd). Returns 0 or a negative libuv error.
 */
int tsd_acceptor_start(tsd_acceptor *a, uv_loop_t *loop, int listen_fd, tsd_accept_fn fn,
                       void *data);

/* Stop accepting: close the handles, the listening socket and the reserve.
 * Idempotent. New connection attempts are refused by the kernel from now. */
void tsd_acceptor_close(tsd_acceptor *a);

#endif
