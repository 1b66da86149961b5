/*
 * request — one request from its frame to its reply (see server_internal.h;
 * what a method sees of it is in server.h).
 */
#include "server_internal.h"

#include <stdlib.h>
#include <string.h>

#include "lib/base/ts_base.h"
#include "lib/store/ts_store.h" /* TS_ERR_STORE_BUSY: its reply names a socket */

static void warn_bad_request(const tsd_conn *conn, const ts_error *err);

/* r is answered: its payload no longer counts for its connection. */
static void uncount(tsd_request *r)
{
    if (r->conn != NULL)
        r->conn->request_bytes -= r->counted;
    r->counted = 0;
}

/* The params of a large request are freed on the pool: freeing a million
 * values takes as long as decoding them. What they took from the budget is
 * given back there, and the heap trimmed after a large one. */
typedef struct put_job {
    uv_work_t work;
    struct json_object *value;
    tsd_server *srv;
    size_t charged;
} put_job;

static void put_work(uv_work_t *work)
{
    put_job *p = work->data;

    json_object_put(p->value);
    tsd_budget_give(&p->srv->budget, p->charged);
}

static void put_done(uv_work_t *work, int status)
{
    (void)status;
    free(work->data);
}

static void request_free(tsd_request *r)
{
    put_job *p = NULL;

    if (r->params != NULL &&
        (r->payload_len > TSD_DECODE_ON_LOOP_MAX || r->charged > TSD_MEMORY_FREE_PRICE))
        p = malloc(sizeof(*p));
    if (p != NULL) {
        p->value = r->params;
        p->srv = r->server;
        p->charged = r->charged;
        p->work.data = p;
        if (uv_queue_work(r->server->loop, &p->work, put_work, put_done) == 0) {
            r->params = NULL;
            r->charged = 0;
        } else {
            free(p);
        }
    }
    free(r->frame);
    free(r->method);
    json_object_put(r->params);
    tsd_budget_give(&r->server->budget, r->charged);
    free(r);
}

/* A new request at the tail of conn's queue; id NULL for a connection-level
 * error (answered with id nil, then the connection closes). */
static tsd_request *request_new(tsd_conn *conn, const uint64_t *id)
{
    tsd_request *r = calloc(1, sizeof(*r));

    if (r == NULL)
        return NULL;
    r->server = conn->server;
    r->conn = conn;
    r->has_id = id != NULL;
    r->id = id != NULL ? *id : 0;
    r->close_after = id == NULL;
    r->start_ns = uv_hrtime();
    if (conn->requests_tail != NULL)
        conn->requests_tail->next = r;
    else
        conn->requests_head = r;
    conn->requests_tail = r;
    conn->request_count++;
    return r;
}

void tsd_requests_flush(tsd_conn *conn)
{
    while (conn->requests_head != NULL && conn->requests_head->done) {
        tsd_request *r = conn->requests_head;

        conn->requests_head = r->next;
        if (conn->requests_head == NULL)
            conn->requests_tail = NULL;
        conn->request_count--;
        conn->waiting_bytes -= r->frame_len;
        if (r->frame != NULL && !uv_is_closing((uv_handle_t *)&conn->handle)) {
            tsd_conn_send(conn, r->frame, r->frame_len);
            r->frame = NULL; /* tsd_conn_send owns it */
        }
        if (r->close_after)
            tsd_conn_close(conn);
        request_free(r);
    }
    if (conn->closing)
        tsd_conn_close(conn);
    else
        tsd_conn_changed(conn);
}

/* Encode the reply of r into *frame: the result from a json-c tree, or
 * written by pack when it is set. Touches nothing but r's id and the
 * options (any thread). *frame NULL when out of memory. */
static void encode_frame(const tsd_request *r, int rc, const struct json_object *result,
                         ts_message_packer pack, void *arg, const ts_error *err, const char *busy,
                         char **frame, size_t *frame_len)
{
    size_t max = r->server->options->max_frame;
    ts_error enc;
    ts_buf buf;

    /* Replies may need the protocol's default size even when requests are
     * limited further (a long listing). */
    if (max < TS_FRAME_DEFAULT_MAX)
        max = TS_FRAME_DEFAULT_MAX;
    ts_buf_init(&buf, TS_BUF_UNLIMITED);
    if (rc >= 0 && pack != NULL &&
        ts_message_encode_result_with(&buf, r->id, pack, arg, max, &enc) == 0)
        goto done;
    if (rc >= 0 && pack == NULL && ts_message_encode_result(&buf, r->id, result, max, &enc) == 0)
        goto done;
    if (rc >= 0) {
        ts_buf_reset(&buf);
        tsd_warn("%s: cannot send the reply: %s", r->method ? r->method : "?", enc.message);
        err = &enc;
    }
    /* store_busy names the socket of the daemon holding the store, where
     * the client sends the request again (docs/protocol.md) */
    if (strcmp(err->code, TS_ERR_STORE_BUSY) != 0)
        busy = NULL;
    if (ts_message_encode_error_socket(&buf, r->has_id ? &r->id : NULL, err->code, err->message,
                                       busy != NULL && busy[0] == '/' ? busy : NULL, &enc) < 0) {
        ts_buf_free(&buf);
        *frame = NULL;
        *frame_len = 0;
        return;
    }
done:
    *frame = ts_buf_detach(&buf, frame_len);
}

static void encode_reply(tsd_request *r, int rc, const struct json_object *result,
                         ts_message_packer pack, void *arg, const ts_error *err)
{
    encode_frame(r, rc, result, pack, arg, err, tsd_dispatch_busy_socket(r->server), &r->frame,
                 &r->frame_len);
    if (r->frame == NULL)
        r->close_after = true; /* out of memory: the client sees the connection end */
}

void tsd_request_encode(const tsd_request *r, int rc, const struct json_object *result,
                        ts_message_packer pack, void *arg, ts_error *err, char **frame, size_t *len)
{
    if (rc < 0 && err->code[0] == '\0')
        ts_error_set(err, rc, TS_ERR_INTERNAL, "%s failed: %s", r->method ? r->method : "request",
                     strerror(-rc));
    encode_frame(r, rc, result, pack, arg, err, NULL, frame, len);
}

static void finish(tsd_request *r, int rc, const struct json_object *result, ts_message_packer pack,
                   void *arg, ts_error *err);

void tsd_request_finish(tsd_request *r, int rc, const struct json_object *result, ts_error *err)
{
    finish(r, rc, result, NULL, NULL, err);
}

void tsd_request_finish_packed(tsd_request *r, int rc, ts_message_packer pack, void *arg,
                               ts_error *err)
{
    finish(r, rc, NULL, pack, arg, err);
}

/* What finishing r takes apart from encoding: the log, the counts, the
 * reply's slot filled (r->frame set), the replies flushed. */
static void complete(tsd_request *r, int rc, const ts_error *err);

static void finish(tsd_request *r, int rc, const struct json_object *result, ts_message_packer pack,
                   void *arg, ts_error *err)
{
    if (rc < 0 && err->code[0] == '\0')
        ts_error_set(err, rc, TS_ERR_INTERNAL, "%s failed: %s", r->method ? r->method : "request",
                     strerror(-rc));
    encode_reply(r, rc, result, pack, arg, err);
    complete(r, rc, err);
}

void tsd_request_finish_encoded(tsd_request *r, int rc, const ts_error *err, char *frame,
                                size_t len)
{
    r->frame = frame;
    r->frame_len = len;
    if (frame == NULL)
        r->close_after = true; /* out of memory: the client sees the connection end */
    complete(r, rc, err);
}

static void complete(tsd_request *r, int rc, const ts_error *err)
{
    tsd_server *srv = r->server;
    uint64_t ms = (uv_hrtime() - r->start_ns) / 1000000u;

    if (rc < 0 && strcmp(err->code, TS_ERR_VERSION_MISMATCH) == 0)
        r->close_after = true;
    if (r->method != NULL) {
        srv->requests_served++;
        if (r->conn != NULL && strcmp(r->method, "hello") != 0)
            r->conn->served = true;
        if (ms >= TSD_SLOW_REQUEST_MS)
            tsd_warn("slow request: %s took %llu ms (pid %ld)", r->method, (unsigned long long)ms,
                     r->conn ? (long)r->conn->pid : 0L);
        if (rc < 0)
            tsd_debug("%s: %s: %s", r->method, err->code, err->message);
    }
    r->done = true;
    uncount(r);
    if (r->conn == NULL) {
        request_free(r); /* the client is gone; the work itself was done */
    } else {
        r->conn->waiting_bytes += r->frame_len;
        tsd_requests_flush(r->conn);
    }
    if (srv->stop_requested)
        srv->events.stop(srv, "stop request");
}

static void warn_bad_request(const tsd_conn *conn, const ts_error *err)
{
    tsd_warn("connection %llu (pid %ld): bad request: %s", (unsigned long long)conn->id,
             (long)conn->pid, err->message);
}

struct json_object *tsd_request_params(const tsd_request *r)
{
    return r->params;
}

size_t tsd_request_payload_len(const tsd_request *r)
{
    return r->payload_len;
}

uint64_t tsd_request_start_ns(const tsd_request *r)
{
    return r->start_ns;
}

const void *tsd_request_raw(const tsd_request *r, size_t *len)
{
    if (r->server->dispatching != r || !r->raw.found)
        return NULL;
    *len = r->raw.len;
    return r->raw_data + r->raw.at;
}

int tsd_request_expand_raw(tsd_request *r, ts_error *err)
{
    ts_request view = {.raw = r->raw, .raw_data = r->raw_data};
    int rc;

    if (r->server->dispatching != r || !r->raw.found)
        return 0;
    r->raw.found = false; /* decoded now, or refused: never twice */
    rc = ts_message_expand_raw(&view, r->params, err);
    if (rc < 0 && r->conn != NULL)
        warn_bad_request(r->conn, err);
    return rc;
}

/* Answer with id nil, then close: the connection is beyond repair. */
void tsd_request_connection_error(tsd_conn *conn, const char *code, const char *message)
{
    tsd_request *r = request_new(conn, NULL);
    ts_error err;

    if (r == NULL) {
        tsd_conn_abort(conn);
        return;
    }
    ts_error_set(&err, -EPROTO, code, "%s", message);
    tsd_request_finish(r, -EPROTO, NULL, &err);
}

/* Hand a decoded request to dispatch (it may finish later, from a job). */
static void run_request(tsd_request *r, const char *method, struct json_object *params)
{
    tsd_server *srv = r->server;
    struct json_object *result = NULL;
    ts_error err;
    int rc;

    ts_error_clear(&err);
    r->method = strdup(method);
    r->params = params != NULL ? params : json_object_new_object();
    if (r->method == NULL || r->params == NULL) {
        ts_error_set(&err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
        tsd_request_finish(r, -ENOMEM, NULL, &err);
        return;
    }
    srv->dispatching = r;
    rc = tsd_dispatch(srv, r, r->method, r->params, &result, &err);
    srv->dispatching = NULL; /* r may be gone: a job may have answered it */
    if (rc == TSD_ASYNC)
        return;
    tsd_request_finish(r, rc, result, &err);
    json_object_put(result);
}

/* A decoded request (req): refused when the daemon is stopping or the
 * connection's slot does not serve its method, else dispatched. r holds
 * its slot in the queue already. */
static void start_request(tsd_conn *conn, tsd_request *r, ts_request *req, const void *payload,
                          size_t len)
{
    ts_error err;
    char why[200];

    if (conn->server->stopping) {
        ts_error_set(&err, -ESHUTDOWN, TS_ERR_SHUTTING_DOWN, "the daemon is stopping");
        tsd_request_finish(r, -ESHUTDOWN, NULL, &err);
    } else if (!tsd_limits_method_allowed(conn, req->method, why, sizeof(why))) {
        ts_error_set(&err, -EBUSY, TS_ERR_LIMIT, "%s", why);
        tsd_request_finish(r, -EBUSY, NULL, &err);
    } else {
        struct json_object *params = req->params;

        (void)payload;
        req->params = NULL; /* the request owns them now (jobs may outlive req) */
        r->payload_len = len;
        r->raw = req->raw; /* the bytes stay the caller's payload's */
        r->raw_data = req->raw_data;
        run_request(r, req->method, params);
    }
}

/* A request whose payload could not be decoded: answered with its id when
 * that was read, else with id nil, and the connection closed. */
static void refuse_request(tsd_conn *conn, tsd_request *r, const ts_request *req, int rc,
                           ts_error *err)
{
    warn_bad_request(conn, err);
    if (!req->has_id) {
        r->has_id = false;
        r->close_after = true;
    }
    tsd_request_finish(r, rc, NULL, err);
}

/*
 * A frame between its arrival and its dispatch: priced, admitted by the
 * memory budget, decoded (on the pool when large). Its connection is not
 * read meanwhile (conn->decoding), so its requests are dispatched in
 * arrival order.
 */
typedef struct tsd_incoming {
    uv_work_t work;
    tsd_request *r;
    unsigned char *payload;
    size_t len;
    size_t price;
    uint64_t waiting_since; /* loop clock when it began to wait for room; 0: never */
    ts_request req;
    int rc;
    ts_error err;
    struct tsd_incoming *next; /* waiting for room (the server's list) */
} incoming;

/* d is done with (its request answered or dispatched: r may be gone);
 * conn, its request's connection as it was before, is read again. */
static void incoming_free(incoming *d, tsd_conn *conn)
{
    if (conn != NULL) {
        conn->decoding--;
        if (!conn->closing)
            tsd_conn_changed(conn);
    }
    ts_request_free(&d->req);
    free(d->payload);
    free(d);
}

/* The request's conn is gone: nobody to answer. */
static void drop(incoming *d)
{
    ts_error_set(&d->err, -ECONNRESET, TS_ERR_INTERNAL, "connection closed");
    tsd_request_finish(d->r, -ECONNRESET, NULL, &d->err);
}

static void decode_work(uv_work_t *work)
{
    incoming *d = work->data;

    d->rc = ts_message_decode_request(d->payload, d->len, &d->req, &d->err);
}

static void decode_done(uv_work_t *work, int status)
{
    incoming *d = work->data;
    tsd_request *r = d->r;
    tsd_conn *conn = r->conn;

    (void)status;
    r->has_id = d->req.has_id;
    r->id = d->req.id;
    if (conn == NULL)
        drop(d);
    else if (d->rc < 0)
        refuse_request(conn, r, &d->req, d->rc, &d->err);
    else
        start_request(conn, r, &d->req, d->payload, d->len);
    incoming_free(d, conn);
}

/* Decode the admitted frame d: on the loop, the method's member left as
 * bytes (check's observed calls: a list equal to the baseline's is
 * replayed without decoding it, check.c); large ones whole, on the pool. */
static void decode(incoming *d)
{
    d->work.data = d;
    if (d->len > TSD_DECODE_ON_LOOP_MAX) {
        if (uv_queue_work(d->r->conn->server->loop, &d->work, decode_work, decode_done) == 0)
            return;
        decode_work(&d->work); /* not expected: decode here then */
    } else {
        d->rc = ts_message_decode_request_raw(d->payload, d->len, tsd_dispatch_raw_member, &d->req,
                                              &d->err);
    }
    decode_done(&d->work, 0);
}

/* d's values cannot be taken (err): answered with its id when the payload
 * has a readable one, else with id nil (the connection then closes). */
static void refuse_unread(incoming *d, int rc, ts_error *err)
{
    tsd_request *r = d->r;
    tsd_conn *conn = r->conn;

    r->has_id = ts_message_peek_id(d->payload, d->len, &r->id);
    r->close_after = !r->has_id;
    tsd_warn("connection %llu (pid %ld): request of %zu bytes refused: %s",
             (unsigned long long)conn->id, (long)conn->pid, d->len, err->message);
    tsd_request_finish(r, rc, NULL, err);
    incoming_free(d, conn);
}

static void wait_for_room(tsd_server *srv, incoming *d)
{
    d->next = NULL;
    if (srv->waiting_tail != NULL)
        srv->waiting_tail->next = d;
    else
        srv->waiting_head = d;
    srv->waiting_tail = d;
}

/*
 * Take d's price from the budget and decode it; false when there is no
 * room yet and it may wait longer (the caller keeps it waiting).
 */
static bool admit(tsd_server *srv, incoming *d)
{
    uint64_t now = tsd_server_now_ms(srv);
    ts_error err;
    int rc;

    if (d->r->conn == NULL) {
        drop(d);
        incoming_free(d, NULL);
        return true;
    }
    if (srv->stopping) {
        ts_error_set(&err, -ESHUTDOWN, TS_ERR_SHUTTING_DOWN, "the daemon is stopping");
        refuse_unread(d, -ESHUTDOWN, &err);
        return true;
    }
    rc = tsd_budget_take(&srv->budget, d->price, 0, d->price <= TSD_MEMORY_FREE_PRICE,
                         "this request", &err);
    if (rc == 0) {
        d->r->charged = d->price;
        decode(d);
        return true;
    }
    if (rc == -EBUSY && (d->waiting_since == 0 || now - d->waiting_since < TSD_MEMORY_WAIT_MS)) {
        if (d->waiting_since == 0)
            d->waiting_since = now != 0 ? now : 1;
        return false;
    }
    refuse_unread(d, rc, &err);
    return true;
}

void tsd_requests_admit_waiting(tsd_server *srv)
{
    /* in arrival order: one that does not fit holds up the later ones, so
     * a large request is not starved by small ones */
    while (srv->waiting_head != NULL) {
        incoming *d = srv->waiting_head;

        srv->waiting_head = d->next;
        if (srv->waiting_head == NULL)
            srv->waiting_tail = NULL;
        if (!admit(srv, d)) {
            d->next = srv->waiting_head;
            srv->waiting_head = d;
            if (srv->waiting_tail == NULL)
                srv->waiting_tail = d;
            return;
        }
    }
}

/* A priced frame: admitted now when it may overtake those waiting (they
 * wait for room it does not need), else waiting behind them. */
static void arrive(tsd_server *srv, incoming *d)
{
    if ((d->price <= TSD_MEMORY_FREE_PRICE || srv->waiting_head == NULL) && admit(srv, d))
        return;
    wait_for_room(srv, d);
}

static void price_work(uv_work_t *work)
{
    incoming *d = work->data;
    ts_error ignored;

    /* a broken value is priced up to where it breaks: the decode says why */
    (void)ts_wire_price(d->payload, d->len, 0, &d->price, &ignored);
}

static void price_done(uv_work_t *work, int status)
{
    incoming *d = work->data;
    tsd_server *srv = d->r->server;

    (void)status;
    arrive(srv, d);
}

void tsd_request_handle(tsd_conn *conn, unsigned char *payload, size_t len)
{
    tsd_server *srv = conn->server;
    incoming *d = calloc(1, sizeof(*d));
    tsd_request *r = d != NULL ? request_new(conn, NULL) : NULL;
    ts_error ignored;

    if (r == NULL) {
        free(d);
        free(payload);
        tsd_conn_abort(conn);
        return;
    }
    r->close_after = false; /* its id is read when it is decoded */
    r->counted = len;
    conn->request_bytes += len;
    conn->decoding++;
    d->r = r;
    d->payload = payload;
    d->len = len;
    d->work.data = d;
    if (len > TSD_DECODE_ON_LOOP_MAX &&
        uv_queue_work(srv->loop, &d->work, price_work, price_done) == 0)
        return;
    (void)ts_wire_price(payload, len, 0, &d->price, &ignored);
    arrive(srv, d);
}

void tsd_requests_detach(tsd_conn *conn)
{
    while (conn->requests_head != NULL) {
        tsd_request *r = conn->requests_head;

        conn->requests_head = r->next;
        if (r->done)
            request_free(r);
        else
            r->conn = NULL;
    }
    conn->requests_tail = NULL;
    conn->request_bytes = 0;
    conn->waiting_bytes = 0;
}
