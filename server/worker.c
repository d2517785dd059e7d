/* worker.c — the event loop: accept, read, parse, answer, write; bounded
 * buffers, backpressure, timeouts (idle, slow request, slow reader), drain.
 * Level-triggered epoll; each connection belongs to one worker. */
#define _GNU_SOURCE
#include "worker.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "handlers.h"
#include "http_parse.h"
#include "metrics.h"
#include "resp_parse.h"
#include "tls.h"
#include "util.h"

atomic_int g_draining;
atomic_int g_workers_live;
static atomic_long g_open_total;

enum { K_LISTEN, K_WAKE, K_CONN };
enum { ST_OPEN, ST_CLOSING, ST_LINGER };

#define HIGH_WATER (64 * 1024)  /* stop reading requests above this much pending output */
#define LINGER_MS 2000          /* after our FIN, how long to drain the peer's input */
#define TICK_MS 250
#define MAX_REFUSING 64         /* refused connections lingering per worker */

typedef struct lst_obj {
    int kind;
    worker_listener *l;
    int64_t paused_until;      /* out of file descriptors: not polled until then */
} lst_obj;

typedef struct conn {
    int kind;
    int fd;
    int proto;
    int state;
    int peer_eof;
    int counted;               /* counts toward --max-connections (not a refusal) */
    uint32_t events;           /* registered epoll events */
    char *in;
    size_t in_len;
    sbuf out;
    int64_t last_active;       /* accept or last complete request */
    int64_t req_start;         /* first byte of the pending partial request, 0 if none */
    int64_t last_progress;     /* last write progress while output was pending */
    int64_t linger_deadline;
    resp_session *sess;        /* RESP connections: protocol, auth, name, MULTI */
    SSL *ssl;                  /* a TLS listener's connection: its session, else NULL */
    int tls_unchecked;         /* its first byte not yet seen (tls_gate) */
    int tls_broken;            /* a TLS error ended it: no close_notify */
    int read_wants_write;      /* the last TLS read waits for the socket writable */
    int write_wants_read;      /* the last TLS write waits for it readable */
    struct conn *prev, *next;
} conn;

typedef struct loop {
    worker *w;
    int epfd;
    lst_obj lobj[WORKER_MAX_LISTENERS];
    int wake_kind;
    conn head;                 /* list sentinel */
    long nconns;
    long nrefusing;            /* refused connections lingering to deliver the refusal */
    size_t in_cap;
    http_limits hl;
    resp_limits rl;
    scratch sc;
    int64_t now;
    int draining;
    int64_t drain_deadline;
} loop;

static const char *const proto_name[PROTO_COUNT] = {"http", "resp"};

/* Client-caused events (malformed requests, timeouts, refusals) are logged
 * at most LOG_BURST times a second per worker; the rest are counted and
 * summed up in the next second's first line. */
#define LOG_BURST 10
static _Thread_local int64_t log_second;
static _Thread_local unsigned log_count, log_suppressed;

static int log_ok(int64_t now_ms) {
    int64_t sec = now_ms / 1000;
    if (sec != log_second) {
        if (log_suppressed)
            log_info("%u more client events not logged in the last second (see /metrics)",
                     log_suppressed);
        log_second = sec;
        log_count = log_suppressed = 0;
    }
    if (log_count < LOG_BURST) {
        log_count++;
        return 1;
    }
    log_suppressed++;
    return 0;
}

static void conn_close(loop *L, conn *c, int drop_reason) {
    if (drop_reason >= 0)
        METRIC_ADD(dropped[drop_reason], 1);
    epoll_ctl(L->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->prev->next = c->next;
    c->next->prev = c->prev;
    L->nconns--;
    if (c->counted) {
        atomic_fetch_sub(&g_open_total, 1);
        atomic_fetch_sub_explicit(&g_metrics.open[c->proto], 1, memory_order_relaxed);
    } else {
        L->nrefusing--;
    }
    if (c->sess)
        resp_session_close(c->sess);
    if (c->ssl)
        tls_session_free(c->ssl);
    free(c->in);
    sbuf_free(&c->out);
    free(c);
}

static void conn_set_events(loop *L, conn *c) {
    uint32_t ev = 0;
    size_t pending = sbuf_pending(&c->out);
    /* (draining: input is no longer polled; conn_flush reads what the socket
     * holds once the output is out) */
    if (c->state == ST_LINGER ||
        (c->state == ST_OPEN && !c->peer_eof && !L->draining && pending < HIGH_WATER))
        ev |= EPOLLIN;
    if (pending > 0 || c->read_wants_write)
        ev |= EPOLLOUT;
    if (c->write_wants_read)
        ev |= EPOLLIN;
    if (ev != c->events) {
        struct epoll_event e = {.events = ev, .data.ptr = c};
        epoll_ctl(L->epfd, EPOLL_CTL_MOD, c->fd, &e);
        c->events = ev;
    }
}

/* Parses and answers the complete requests in c->in, while the output is
 * below the high-water mark. Returns -1 if c had to be dropped. */
static int conn_process(loop *L, conn *c) {
    size_t used = 0;
    if (sbuf_pending(&c->out) == 0)
        c->last_progress = L->now;
    while (c->state == ST_OPEN && used < c->in_len && sbuf_pending(&c->out) < HIGH_WATER) {
        const char *p = c->in + used;
        size_t n = c->in_len - used;
        int rc;
        if (c->proto == PROTO_HTTP) {
            http_request req;
            long r = http_parse(p, n, &L->hl, &req);
            if (r == HTTP_NEED_MORE)
                break;
            if (r < 0) {
                if (log_ok(L->now))
                    log_info("http: malformed request (%s): answered %ld and closing", req.err, -r);
                http_reply_error(&c->out, (int)-r, req.err);
                c->state = ST_CLOSING;
                used = c->in_len;
                break;
            }
            size_t keep = sbuf_pending(&c->out);   /* (compacted, never consumed, meanwhile) */
            rc = http_handle(&req, &c->out, &L->sc, L->w->cfg, L->draining);
            if (rc < 0) {
                /* the response does not fit beside the pending ones (a
                 * pipelined page at a small --max-output-bytes): dropped,
                 * and the request answered again once they are sent (only
                 * /v1/new makes anything, and its responses always fit
                 * beside less than HIGH_WATER); alone, a 500 and a close */
                c->out.len = c->out.off + keep;
                if (keep > 0)
                    break;
                http_reply_error(&c->out, 500,
                                 "the response would pass the output limit (--max-output-bytes)");
                rc = 1;
            }
            used += (size_t)r;
        } else {
            resp_cmd cmd;
            long r = resp_parse(p, n, &L->rl, &cmd);
            if (r == RESP_NEED_MORE)
                break;
            if (r < 0) {
                if (log_ok(L->now))
                    log_info("resp: protocol error (%s): closing", cmd.err);
                resp_reply_protocol_error(&c->out, cmd.err);
                c->state = ST_CLOSING;
                used = c->in_len;
                break;
            }
            if (cmd.argc == 0) {
                used += (size_t)r;
                continue;
            }
            rc = resp_handle(&cmd, c->sess, &c->out, &L->sc, L->w->cfg);
            if (rc == RESP_LATER && sbuf_pending(&c->out) > 0)
                break;   /* left in c->in: handled again once the output is sent (conn_flush) */
            used += (size_t)r;
        }
        c->last_active = L->now;
        c->req_start = 0;
        if (rc < 0) {
            log_warn("%s: output limit passed: dropping the connection", proto_name[c->proto]);
            conn_close(L, c, DROP_OUTPUT_LIMIT);
            return -1;
        }
        if (rc == 1) {
            c->state = ST_CLOSING;
            used = c->in_len;
        }
    }
    if (used > 0) {
        memmove(c->in, c->in + used, c->in_len - used);
        c->in_len -= used;
    }
    if (c->in_len > 0 && c->req_start == 0)
        c->req_start = L->now;
    if (c->in_len == 0)
        c->req_start = 0;
    return 0;
}

/* One read from c's socket (through TLS on a TLS listener): read(2)'s
 * result; a TLS failure is -1 with errno EPROTO (logged), a TLS read that
 * must wait -1 with EAGAIN. */
static ssize_t conn_recv(loop *L, conn *c, char *buf, size_t n) {
    if (!c->ssl)
        return read(c->fd, buf, n);
    int wants = 0;
    char why[200];
    ssize_t r = tls_read(c->ssl, buf, n, &wants, why, sizeof why);
    c->read_wants_write = r == TLS_AGAIN && wants == TLS_WANTS_WRITE;
    if (r >= 0)
        return r;
    if (r == TLS_AGAIN) {
        errno = EAGAIN;
        return -1;
    }
    c->tls_broken = 1;
    if (r == TLS_FAILED) {
        METRIC_ADD(tls_failed[c->proto], 1);
        if (log_ok(L->now))
            log_info("%s tls: %s: closing", proto_name[c->proto], why);
        errno = EPROTO;
    } else if (errno == 0 || errno == EAGAIN) {
        errno = ECONNRESET;
    }
    return -1;
}

/* One write to c's socket, as send(2) (through TLS on a TLS listener). */
static ssize_t conn_send(conn *c, const char *p, size_t n) {
    if (!c->ssl)
        return send(c->fd, p, n, MSG_NOSIGNAL);
    int wants = 0;
    ssize_t r = tls_write(c->ssl, p, n, &wants);
    c->write_wants_read = r == TLS_AGAIN && wants == TLS_WANTS_READ;
    if (r > 0)
        return r;
    if (r == TLS_AGAIN) {
        errno = EAGAIN;
        return -1;
    }
    c->tls_broken = 1;
    errno = EPIPE;
    return -1;
}

/* One read of what the socket holds into c->in (room must be left): returns
 * read(2)'s result; a first byte starts the request clock. */
static ssize_t conn_fill(loop *L, conn *c) {
    ssize_t r = conn_recv(L, c, c->in + c->in_len, L->in_cap - c->in_len);
    if (r > 0) {
        if (c->in_len == 0)
            c->req_start = L->now;
        c->in_len += (size_t)r;
    }
    return r;
}

/* Writes pending output; after it drains, answers requests held back by the
 * high-water mark, and closes a closing connection. */
static void conn_flush(loop *L, conn *c) {
    for (;;) {
        while (sbuf_pending(&c->out) > 0) {
            ssize_t n = conn_send(c, c->out.data + c->out.off, sbuf_pending(&c->out));
            if (n > 0) {
                sbuf_consume(&c->out, (size_t)n);
                c->last_progress = L->now;
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                break;
            conn_close(L, c, -1);   /* the peer is gone */
            return;
        }
        if (sbuf_pending(&c->out) > 0)
            break;
        if (c->state == ST_CLOSING) {
            if (c->peer_eof) {
                conn_close(L, c, -1);
                return;
            }
            if (c->ssl && !c->tls_broken)
                tls_close_notify(c->ssl);
            shutdown(c->fd, SHUT_WR);
            c->state = ST_LINGER;
            c->linger_deadline = L->now + LINGER_MS;
            break;
        }
        if (c->state != ST_OPEN)
            break;
        /* Requests held back while the output was full? */
        if (c->in_len > 0) {
            if (conn_process(L, c) < 0)
                return;
            if (sbuf_pending(&c->out) > 0 || c->state != ST_OPEN)
                continue;
        }
        /* Draining: what the client sent before the signal is answered too.
         * Read what the socket already holds, without waiting for more
         * (input is not polled while draining). And TLS: bytes OpenSSL read
         * from the socket but has not returned yet (no event announces them). */
        int tls_held = c->ssl && !c->tls_unchecked && tls_has_buffered(c->ssl);
        if ((L->draining || tls_held) && !c->peer_eof && c->in_len < L->in_cap) {
            ssize_t r = conn_fill(L, c);
            if (r > 0) {
                if (conn_process(L, c) < 0)
                    return;
                continue;
            }
            if (r == 0)
                c->peer_eof = 1;
        }
        /* The peer has finished sending, or the server is draining, and every
         * complete request received is answered. */
        if (c->peer_eof || L->draining) {
            c->state = ST_CLOSING;
            continue;
        }
        break;
    }
    if (c->out.off == c->out.len && c->out.cap > 65536 && c->state == ST_OPEN) {
        sbuf_free(&c->out);   /* give a big buffer back once it is empty */
    }
    conn_set_events(L, c);
}

/* A TLS connection's first byte: a handshake record goes on (1); another
 * byte is a plain-text client on the TLS port, told so in its protocol and
 * closed (0, as when the byte is not there yet or the peer is gone). */
static int tls_gate(loop *L, conn *c) {
    static const char http_plain[] =
        "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
        "Content-Length: 42\r\nConnection: close\r\n\r\n"
        "This port speaks TLS: use https:// here.\r\n";
    static const char resp_plain[] =
        "-ERR this port speaks TLS: connect with TLS (redis-cli --tls, rediss://)\r\n";
    unsigned char b;
    ssize_t r = recv(c->fd, &b, 1, MSG_PEEK);
    if (r < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (r <= 0) {
        conn_close(L, c, -1);
        return 0;
    }
    if (b == TLS_RECORD_HANDSHAKE) {
        c->tls_unchecked = 0;
        return 1;
    }
    METRIC_ADD(tls_plaintext[c->proto], 1);
    if (log_ok(L->now))
        log_info("%s tls: a plain-text client on the TLS port: told so, closing",
                 proto_name[c->proto]);
    tls_session_free(c->ssl);
    c->ssl = NULL;
    if (c->proto == PROTO_HTTP)
        sbuf_add(&c->out, http_plain, sizeof http_plain - 1);
    else
        sbuf_add(&c->out, resp_plain, sizeof resp_plain - 1);
    c->state = ST_CLOSING;
    conn_flush(L, c);
    return 0;
}

static void conn_readable(loop *L, conn *c) {
    if (c->state == ST_LINGER) {
        char tmp[4096];
        for (int i = 0; i < 16; i++) {
            ssize_t r = read(c->fd, tmp, sizeof tmp);
            if (r > 0)
                continue;
            if (r < 0 && (errno == EAGAIN || errno == EINTR))
                return;
            conn_close(L, c, -1);
            return;
        }
        return;
    }
    if (c->state != ST_OPEN || c->in_len >= L->in_cap) {
        if (c->write_wants_read)
            conn_flush(L, c);   /* the TLS write that waited reads what it needs */
        else
            conn_set_events(L, c);
        return;
    }
    if (c->tls_unchecked && !tls_gate(L, c))
        return;
    ssize_t r = conn_fill(L, c);
    if (r < 0) {
        if (errno == EAGAIN || errno == EINTR)
            return;
        conn_close(L, c, -1);
        return;
    }
    if (r == 0)
        c->peer_eof = 1;   /* answer what is complete, then close (conn_flush) */
    if (conn_process(L, c) < 0)
        return;
    conn_flush(L, c);
}

static void do_accept(loop *L, lst_obj *lo) {
    const server_config *cfg = L->w->cfg;
    worker_listener *l = lo->l;
    for (int i = 0; i < 64; i++) {
        int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                /* The pending connection stays queued and the listener stays
                 * readable: stop polling it for a while instead of spinning. */
                log_warn("accept: %s: pausing the %s listener for 100 ms", strerror(errno),
                         proto_name[l->proto]);
                epoll_ctl(L->epfd, EPOLL_CTL_DEL, l->fd, NULL);
                lo->paused_until = L->now + 100;
            }
            return;
        }
        int counted = 1;
        if (atomic_fetch_add(&g_open_total, 1) >= (long)cfg->max_connections) {
            atomic_fetch_sub(&g_open_total, 1);
            METRIC_ADD(refused[l->proto], 1);
            if (log_ok(L->now))
                log_warn("%s: connection refused: --max-connections (%u) reached",
                         proto_name[l->proto], cfg->max_connections);
            /* (a TLS client could not read a plain-text refusal: closed) */
            if (L->nrefusing >= MAX_REFUSING || l->tls) {
                close(fd);
                continue;
            }
            counted = 0;   /* kept briefly to deliver the refusal, then closed */
        }
        conn *c = calloc(1, sizeof *c);
        char *in = c ? malloc(L->in_cap) : NULL;
        if (in && counted && l->proto == PROTO_RESP && !(c->sess = resp_session_open(fd, cfg))) {
            free(in);
            in = NULL;
        }
        if (in && l->tls && !(c->ssl = tls_session_new(fd))) {
            if (c->sess)
                resp_session_close(c->sess);
            free(in);
            in = NULL;
        }
        if (!in) {
            free(c);
            close(fd);
            if (counted)
                atomic_fetch_sub(&g_open_total, 1);
            log_err("out of memory for a connection");
            return;
        }
        if (l->tcp) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        }
        c->kind = K_CONN;
        c->fd = fd;
        c->tls_unchecked = c->ssl != NULL;
        c->proto = l->proto;
        c->in = in;
        sbuf_init(&c->out, cfg->max_output);
        c->last_active = c->last_progress = L->now;
        c->events = EPOLLIN;
        struct epoll_event e = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(L->epfd, EPOLL_CTL_ADD, fd, &e) < 0) {
            log_err("epoll_ctl: %s", strerror(errno));
            close(fd);
            if (c->sess)
                resp_session_close(c->sess);
            if (c->ssl)
                tls_session_free(c->ssl);
            free(in);
            free(c);
            if (counted)
                atomic_fetch_sub(&g_open_total, 1);
            return;
        }
        c->next = L->head.next;
        c->prev = &L->head;
        L->head.next->prev = c;
        L->head.next = c;
        L->nconns++;
        c->counted = counted;
        if (!counted) {
            L->nrefusing++;
            const char *msg = l->proto == PROTO_HTTP ? http_refusal : resp_refusal;
            sbuf_add(&c->out, msg, strlen(msg));
            c->state = ST_CLOSING;
            conn_flush(L, c);
            continue;
        }
        METRIC_ADD(open[l->proto], 1);
        METRIC_ADD(accepted[l->proto], 1);
    }
}

/* Every tick: linger, slow-reader, slow-request and idle timeouts. */
static void sweep(loop *L) {
    const server_config *cfg = L->w->cfg;
    conn *next;
    for (conn *c = L->head.next; c != &L->head; c = next) {
        next = c->next;
        int64_t now = L->now;
        if (L->draining && now >= L->drain_deadline) {
            conn_close(L, c, DROP_DRAIN);    /* the drain's bound comes first */
        } else if (c->state == ST_LINGER) {
            if (now >= c->linger_deadline)
                conn_close(L, c, -1);
        } else if (sbuf_pending(&c->out) > 0) {
            if (now - c->last_progress >= (int64_t)cfg->write_timeout_ms) {
                if (log_ok(now))
                    log_info("%s: client read nothing for %u ms: dropped", proto_name[c->proto],
                             cfg->write_timeout_ms);
                conn_close(L, c, DROP_WRITE_TIMEOUT);
            }
        } else if (c->in_len > 0 && c->req_start &&
                   now - c->req_start >= (int64_t)cfg->request_timeout_ms) {
            if (log_ok(now))
                log_info("%s: request not completed within %u ms: closing", proto_name[c->proto],
                         cfg->request_timeout_ms);
            METRIC_ADD(dropped[DROP_REQUEST_TIMEOUT], 1);
            c->in_len = 0;
            c->req_start = 0;
            if (c->proto == PROTO_HTTP && c->state == ST_OPEN) {
                http_reply_timeout(&c->out);
                c->state = ST_CLOSING;
                conn_flush(L, c);
            } else {
                conn_close(L, c, -1);
            }
        } else if (c->ssl && c->state == ST_OPEN && !tls_handshake_done(c->ssl) &&
                   now - c->last_active >= (int64_t)cfg->request_timeout_ms) {
            if (log_ok(now))
                log_info("%s tls: handshake not completed within %u ms: closing",
                         proto_name[c->proto], cfg->request_timeout_ms);
            conn_close(L, c, DROP_REQUEST_TIMEOUT);
        } else if (c->in_len == 0 && c->state == ST_OPEN &&
                   now - c->last_active >= (int64_t)cfg->idle_timeout_ms) {
            conn_close(L, c, DROP_IDLE);
        }
    }
}

static void start_drain(loop *L) {
    L->draining = 1;
    L->drain_deadline = L->now + (int64_t)L->w->cfg->drain_timeout_ms;
    epoll_ctl(L->epfd, EPOLL_CTL_DEL, L->w->wake_fd, NULL);
    for (int i = 0; i < L->w->nlisteners; i++) {
        worker_listener *l = &L->w->listeners[i];
        epoll_ctl(L->epfd, EPOLL_CTL_DEL, l->fd, NULL);   /* shared: main closes it */
    }
    conn *next;
    for (conn *c = L->head.next; c != &L->head; c = next) {
        next = c->next;
        if (c->state != ST_OPEN)
            continue;
        if (sbuf_pending(&c->out) == 0) {
            conn_close(L, c, DROP_DRAIN);   /* idle, or only a partial request */
        } else {
            /* finish the response, answer the complete requests held back
             * behind it (HTTP: the next one says Connection: close), then
             * close (conn_flush) */
            conn_set_events(L, c);
        }
    }
}

void *worker_main(void *arg) {
    worker *w = arg;
    loop *L = calloc(1, sizeof *L);
    if (!L) {
        log_err("worker %d: out of memory: exiting", w->id);
        _exit(1);   /* a worker short would leave its listening socket unserved */
    }
    L->w = w;
    L->head.next = L->head.prev = &L->head;
    L->hl.max_line = w->cfg->max_head;
    L->hl.max_head = w->cfg->max_head;
    L->hl.max_fields = 100;
    L->rl.max_bulk = 1024;
    L->rl.max_inline = 4096;
    L->rl.max_args = RESP_MAX_ARGS;
    size_t resp_max = RESP_MAX_ARGS * (L->rl.max_bulk + 16) + 16;
    L->in_cap = (w->cfg->max_head > resp_max ? w->cfg->max_head : resp_max) + 1;
    L->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (L->epfd < 0 || scratch_init(&L->sc, w->cfg) < 0) {
        log_err("worker %d: cannot start: %s: exiting", w->id, strerror(errno));
        _exit(1);   /* the state is safe at every instant */
    }
    for (int i = 0; i < w->nlisteners; i++) {
        L->lobj[i].kind = K_LISTEN;
        L->lobj[i].l = &w->listeners[i];
        /* one shared socket per address: a connection wakes one worker */
        struct epoll_event e = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.ptr = &L->lobj[i]};
        epoll_ctl(L->epfd, EPOLL_CTL_ADD, w->listeners[i].fd, &e);
    }
    L->wake_kind = K_WAKE;
    struct epoll_event we = {.events = EPOLLIN, .data.ptr = &L->wake_kind};
    epoll_ctl(L->epfd, EPOLL_CTL_ADD, w->wake_fd, &we);
    L->now = mono_ms();
    if (atomic_load(&g_draining))
        start_drain(L);
    int64_t last_sweep = L->now;
    struct epoll_event evs[64];
    while (!L->draining || L->nconns > 0) {
        int n = epoll_wait(L->epfd, evs, 64, TICK_MS);
        L->now = mono_ms();
        int wake = 0;
        for (int i = 0; i < n; i++) {
            int kind = *(int *)evs[i].data.ptr;
            if (kind == K_WAKE) {
                wake = 1;   /* after the batch: draining closes connections */
            } else if (kind == K_LISTEN) {
                if (!L->draining)
                    do_accept(L, (lst_obj *)evs[i].data.ptr);
            } else {
                conn *c = evs[i].data.ptr;
                /* Only c's own events close c inside a batch (each connection
                 * appears once in it), so c is valid here. */
                if (evs[i].events & (EPOLLERR | EPOLLHUP) && !(evs[i].events & EPOLLIN)) {
                    conn_close(L, c, -1);
                    continue;
                }
                if (evs[i].events & EPOLLIN || (evs[i].events & EPOLLOUT && c->read_wants_write)) {
                    conn_readable(L, c);   /* (a TLS read that waited to write goes on) */
                } else if (evs[i].events & EPOLLOUT) {
                    conn_flush(L, c);
                }
            }
        }
        if (!L->draining && (wake || atomic_load(&g_draining)))
            start_drain(L);
        if (L->now - last_sweep >= TICK_MS) {
            sweep(L);
            last_sweep = L->now;
            for (int i = 0; i < w->nlisteners && !L->draining; i++) {
                lst_obj *lo = &L->lobj[i];
                if (lo->paused_until && L->now >= lo->paused_until) {
                    struct epoll_event e = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.ptr = lo};
                    epoll_ctl(L->epfd, EPOLL_CTL_ADD, lo->l->fd, &e);
                    lo->paused_until = 0;
                }
            }
        }
    }
    while (L->head.next != &L->head)
        conn_close(L, L->head.next, DROP_DRAIN);
    close(L->epfd);
    scratch_free(&L->sc);
    free(L);
    atomic_fetch_sub(&g_workers_live, 1);
    return NULL;
}
