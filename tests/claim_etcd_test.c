/* claim_etcd_test.c — the etcd part of test_claim, against a real etcd
 * started here (random free loopback ports, a temp data dir, ended by PID
 * with SIGKILL): a single member, then a 3-member cluster.
 *
 * Single member: lowest free node; 8 processes race for 4 nodes (each node
 * once); kill -9 of a holder: another takes its node after the lease expires
 * and starts after the dead holder's mark; SIGSTOP of a holder past its TTL:
 * after SIGCONT it admits nothing more (fenced) while another holds the
 * node; foreign data in a node or mark key; a mark of another epoch; an
 * unreachable endpoint, a wrong URL, a server that is not etcd (garbage,
 * JSON of another shape), fail-over past a dead endpoint; a mark write
 * delayed past a newer one is refused and a mark is never lowered (a proxy
 * that holds a write back); a revoked lease, or a keepalive answered
 * "TTL":"0", is a lost claim; a claim given up while etcd does not answer
 * leaves no node key behind once it answers again; a forked child cannot use
 * its parent's claim;
 * admits are not held up by a mark write that waits on a slow etcd.
 * Cluster: kill -9 of the leader while a holder admits: the claim lives on
 * through the other members; SIGSTOP of every member: admits stop before
 * the deadline and resume after SIGCONT. */
#define _GNU_SOURCE
#include "test_claim.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TTL_MS 2000

/* ---- a raw HTTP client for setting up and inspecting etcd ---------------- */

int claim_test_free_port(void) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof a;
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) < 0 ||
        getsockname(s, (struct sockaddr *)&a, &l) < 0) {
        if (s >= 0)
            close(s);
        return -1;
    }
    close(s);
    return ntohs(a.sin_port);
}

/* POSTs body (or GETs if NULL) to 127.0.0.1:port path; the answer's body in
 * out. Returns the HTTP status, or -1. (One at a time: the proxy's threads
 * call it too.) */
static pthread_mutex_t http_mu = PTHREAD_MUTEX_INITIALIZER;
static int http_locked(int port, const char *path, const char *body, char *out, size_t cap);
static int http(int port, const char *path, const char *body, char *out, size_t cap) {
    pthread_mutex_lock(&http_mu);
    int status = http_locked(port, path, body, out, cap);
    pthread_mutex_unlock(&http_mu);
    return status;
}

static int http_locked(int port, const char *path, const char *body, char *out, size_t cap) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct timeval tv = {2, 0};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) < 0) {
        if (s >= 0)
            close(s);
        return -1;
    }
    char req[4096];
    int n = body ? snprintf(req, sizeof req, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: "
                            "close\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
                            path, strlen(body), body)
                 : snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: "
                            "close\r\n\r\n", path);
    if (write(s, req, (size_t)n) != n) {
        close(s);
        return -1;
    }
    static char buf[1 << 16];
    size_t len = 0;
    ssize_t r;
    while (len < sizeof buf - 1 && (r = read(s, buf + len, sizeof buf - 1 - len)) > 0)
        len += (size_t)r;
    close(s);
    buf[len] = '\0';
    int status = 0;
    if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1)
        return -1;
    char *b = strstr(buf, "\r\n\r\n");
    const char *te = strcasestr(buf, "\r\ntransfer-encoding: chunked");
    if (b && te && te < b) {
        /* (the gateway streams keepalive answers: the chunks joined) */
        char *in = b + 4;
        size_t o = 0;
        unsigned long chunk;
        char *end;
        while ((chunk = strtoul(in, &end, 16)) > 0 && end != in && (end = strstr(end, "\r\n")) &&
               o + chunk < cap && strlen(end + 2) >= chunk) {
            memcpy(out + o, end + 2, chunk);
            o += chunk;
            in = end + 2 + chunk + 2;
        }
        out[o] = '\0';
        return status;
    }
    snprintf(out, cap, "%s", b ? b + 4 : "");
    return status;
}

static void b64(const char *in, char *out) {
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(in), o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)(unsigned char)in[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)(unsigned char)in[i + 1] << 8;
        if (i + 2 < n)
            v |= (unsigned char)in[i + 2];
        out[o++] = t[v >> 18];
        out[o++] = t[(v >> 12) & 63];
        out[o++] = i + 1 < n ? t[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? t[v & 63] : '=';
    }
    out[o] = '\0';
}

static int etcd_put(int port, const char *key, const char *value) {
    char k[512], v[1024], body[2048], out[4096];
    b64(key, k);
    b64(value, v);
    snprintf(body, sizeof body, "{\"key\":\"%s\",\"value\":\"%s\"}", k, v);
    return http(port, "/v3/kv/put", body, out, sizeof out) == 200 ? 0 : -1;
}

/* Decodes base64 into out (NUL-terminated); -1 if malformed. */
static int unb64(const char *in, size_t n, char *out, size_t cap) {
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    uint32_t v = 0;
    int bits = 0;
    for (size_t i = 0; i < n && in[i] != '='; i++) {
        const char *p = strchr(t, in[i]);
        if (!p || !in[i])
            return -1;
        v = v << 6 | (uint32_t)(p - t);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (o + 1 >= cap)
                return -1;
            out[o++] = (char)(v >> bits & 0xff);
        }
    }
    out[o] = '\0';
    return 0;
}

/* The value of key (decoded) into out; 1, 0 if absent, -1 on error. */
static int etcd_get(int port, const char *key, char *out, size_t cap) {
    char k[512], body[1024], ans[8192];
    b64(key, k);
    snprintf(body, sizeof body, "{\"key\":\"%s\"}", k);
    if (http(port, "/v3/kv/range", body, ans, sizeof ans) != 200)
        return -1;
    const char *v = strstr(ans, "\"value\":\"");
    if (!v)
        return 0;
    v += 9;
    const char *end = strchr(v, '"');
    return end && unb64(v, (size_t)(end - v), out, cap) == 0 ? 1 : -1;
}

/* The mark_ms in a mark key, or -1. */
static int64_t etcd_mark(int port, const char *key) {
    char v[1024];
    const char *p;
    if (etcd_get(port, key, v, sizeof v) != 1 || !(p = strstr(v, "\"mark_ms\":")))
        return -1;
    return strtoll(p + 10, NULL, 10);
}

/* A field of a key's kv ("lease", "mod_revision"), or -1. */
static int64_t etcd_field(int port, const char *key, const char *field) {
    char k[512], body[1024], ans[8192], want[64];
    b64(key, k);
    snprintf(body, sizeof body, "{\"key\":\"%s\"}", k);
    snprintf(want, sizeof want, "\"%s\":\"", field);
    const char *p;
    if (http(port, "/v3/kv/range", body, ans, sizeof ans) != 200 || !(p = strstr(ans, want)))
        return -1;
    return strtoll(p + strlen(want), NULL, 10);
}

static int etcd_del(int port, const char *key) {
    char k[512], body[1024], out[4096];
    b64(key, k);
    snprintf(body, sizeof body, "{\"key\":\"%s\"}", k);
    return http(port, "/v3/kv/deleterange", body, out, sizeof out) == 200 ? 0 : -1;
}

/* ---- etcd processes -------------------------------------------------------- */

typedef struct member {
    pid_t pid;
    int client, peer;
    char id[32]; /* member_id, from its status */
} member;

typedef struct cluster {
    member m[3];
    int n;
    char spec[512]; /* etcd=URL,URL,URL */
} cluster;

static int etcd_healthy(int port) {
    char out[4096];
    return http(port, "/health", NULL, out, sizeof out) == 200 && strstr(out, "\"true\"");
}

static int cluster_start(cluster *cl, const char *bin, const char *base, int n) {
    memset(cl, 0, sizeof *cl);
    cl->n = n;
    char initial[1024] = "";
    size_t il = 0;
    for (int i = 0; i < n; i++) {
        cl->m[i].client = claim_test_free_port();
        cl->m[i].peer = claim_test_free_port();
        il += (size_t)snprintf(initial + il, sizeof initial - il, "%sm%d=http://127.0.0.1:%d",
                               i ? "," : "", i, cl->m[i].peer);
    }
    size_t sl = (size_t)snprintf(cl->spec, sizeof cl->spec, "etcd=");
    for (int i = 0; i < n; i++)
        sl += (size_t)snprintf(cl->spec + sl, sizeof cl->spec - sl, "%shttp://127.0.0.1:%d",
                               i ? "," : "", cl->m[i].client);
    for (int i = 0; i < n; i++) {
        char name[16], data[600], client[64], peer[64], logp[640], token[64];
        snprintf(name, sizeof name, "m%d", i);
        snprintf(data, sizeof data, "%s/etcd-%d-%d", base, n, i);
        snprintf(logp, sizeof logp, "%s.log", data);
        snprintf(client, sizeof client, "http://127.0.0.1:%d", cl->m[i].client);
        snprintf(peer, sizeof peer, "http://127.0.0.1:%d", cl->m[i].peer);
        snprintf(token, sizeof token, "toid-test-%ld-%d", (long)getpid(), n);
        pid_t pid = fork();
        if (pid == 0) {
            int fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (fd >= 0) {
                dup2(fd, 1);
                dup2(fd, 2);
            }
            execl(bin, bin, "--name", name, "--data-dir", data, "--listen-client-urls", client,
                  "--advertise-client-urls", client, "--listen-peer-urls", peer,
                  "--initial-advertise-peer-urls", peer, "--initial-cluster", initial,
                  "--initial-cluster-state", "new", "--initial-cluster-token", token,
                  (char *)NULL);
            _exit(127);
        }
        cl->m[i].pid = pid;
    }
    int64_t end = claim_test_mono() + 30000;
    for (int i = 0; i < n; i++)
        while (!etcd_healthy(cl->m[i].client)) {
            if (claim_test_mono() > end) {
                fprintf(stderr, "etcd member %d did not become healthy (see %s/etcd-%d-%d.log)\n",
                        i, base, n, i);
                return -1;
            }
            claim_test_sleep(100);
        }
    /* member ids, for finding the leader */
    for (int i = 0; i < n; i++) {
        char out[4096];
        if (http(cl->m[i].client, "/v3/maintenance/status", "{}", out, sizeof out) == 200) {
            char *p = strstr(out, "\"member_id\":\"");
            if (p)
                sscanf(p + 13, "%31[0-9]", cl->m[i].id);
        }
    }
    return 0;
}

/* The index of the leader among the live members, or -1. */
static int cluster_leader(cluster *cl) {
    for (int i = 0; i < cl->n; i++) {
        char out[4096], leader[32] = "";
        if (!cl->m[i].pid || http(cl->m[i].client, "/v3/maintenance/status", "{}", out,
                                  sizeof out) != 200)
            continue;
        char *p = strstr(out, "\"leader\":\"");
        if (p && sscanf(p + 10, "%31[0-9]", leader) == 1)
            for (int j = 0; j < cl->n; j++)
                if (cl->m[j].pid && strcmp(cl->m[j].id, leader) == 0)
                    return j;
    }
    return -1;
}

static void cluster_stop(cluster *cl) {
    for (int i = 0; i < cl->n; i++)
        if (cl->m[i].pid > 0) {
            kill(cl->m[i].pid, SIGCONT);
            kill(cl->m[i].pid, SIGTERM);
        }
    for (int i = 0; i < cl->n; i++) {
        if (cl->m[i].pid <= 0)
            continue;
        int64_t end = claim_test_mono() + 5000;
        while (waitpid(cl->m[i].pid, NULL, WNOHANG) == 0) {
            if (claim_test_mono() > end) {
                kill(cl->m[i].pid, SIGKILL);
                waitpid(cl->m[i].pid, NULL, 0);
                break;
            }
            claim_test_sleep(20);
        }
        cl->m[i].pid = 0;
    }
}

/* ---- a server that is not etcd ---------------------------------------------- */

typedef struct fake {
    int fd, port;
    const char *answer; /* the whole HTTP answer */
    pthread_t t;
} fake;

static void *fake_run(void *arg) {
    fake *f = arg;
    for (;;) {
        int c = accept(f->fd, NULL, NULL);
        if (c < 0)
            return NULL;
        char buf[4096];
        ssize_t r = read(c, buf, sizeof buf);
        (void)r;
        ssize_t w = write(c, f->answer, strlen(f->answer));
        (void)w;
        close(c);
    }
}

/* A listening socket on a free loopback port: *fd and *port, then a thread
 * running run(arg) to accept on it. Returns 0, or -1. */
static int serve_start(int *fd, int *port, pthread_t *t, void *(*run)(void *), void *arg) {
    *fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof a;
    if (*fd < 0 || bind(*fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(*fd, 16) < 0 ||
        getsockname(*fd, (struct sockaddr *)&a, &l) < 0)
        return -1;
    *port = ntohs(a.sin_port);
    return pthread_create(t, NULL, run, arg) == 0 ? 0 : -1;
}

/* Stops accepting and joins the thread (connections already accepted end
 * when their clients close them). */
static void serve_stop(int fd, pthread_t t) {
    shutdown(fd, SHUT_RDWR);
    close(fd);
    pthread_join(t, NULL);
}

static int fake_start(fake *f, const char *answer) {
    f->answer = answer;
    return serve_start(&f->fd, &f->port, &f->t, fake_run, f);
}

static void fake_stop(fake *f) { serve_stop(f->fd, f->t); }

/* ---- a proxy in front of etcd ----------------------------------------------------
 * Speaks HTTP/1.1 with keep-alive to the claim backend (curl) and passes
 * each request on to the real etcd, except:
 *   capture: the next mark write (a txn putting mark_key) is kept and its
 *            connection closed unanswered, as a member that stalls and then
 *            applies it late would: the backend fails over, and the test
 *            replays it later;
 *   ttl0:    keepalives are answered {"result":{..,"TTL":"0"}};
 *   stall:   the next mark write is held (holding = 1) until the test sets
 *            release, then passed on: a slow etcd;
 *   down:    every request's connection is closed unanswered, and nothing
 *            reaches etcd: an etcd that does not answer.
 * Several proxies may share one state (the capture is taken once). */

typedef struct proxy_state {
    int etcd_port;
    _Atomic int capture, ttl0, stall, holding, release, down;
    char mark_b64[400];
    pthread_mutex_t mu;
    char captured[8192];
    int n_captured;
} proxy_state;

typedef struct proxy {
    int fd, port;
    pthread_t t;
    proxy_state *st;
} proxy;

typedef struct proxy_conn {
    int fd;
    proxy_state *st;
} proxy_conn;

static int write_str(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void *proxy_conn_run(void *arg) {
    proxy_conn pc = *(proxy_conn *)arg;
    free(arg);
    enum { CAP = 65536 };
    char *buf = malloc(CAP), *out = malloc(CAP), *reply = malloc(CAP + 200);
    char *body = malloc(CAP);
    size_t len = 0;
    if (!buf || !out || !reply || !body)
        goto done;
    buf[0] = '\0';
    for (;;) {
        char *eoh;
        while (!(eoh = strstr(buf, "\r\n\r\n"))) {
            ssize_t r = len < CAP - 1 ? read(pc.fd, buf + len, CAP - 1 - len) : -1;
            if (r <= 0)
                goto done;
            len += (size_t)r;
            buf[len] = '\0';
        }
        char path[512] = "";
        sscanf(buf, "POST %511s", path);
        const char *cl = strcasestr(buf, "\r\ncontent-length:");
        size_t body_len = cl && cl < eoh ? strtoul(cl + 17, NULL, 10) : 0;
        const char *ex = strcasestr(buf, "\r\nexpect: 100-continue");
        size_t head = (size_t)(eoh + 4 - buf);
        if (ex && ex < eoh && len == head && write_str(pc.fd, "HTTP/1.1 100 Continue\r\n\r\n", 25))
            goto done;
        while (len < head + body_len) {
            ssize_t r = len < CAP - 1 ? read(pc.fd, buf + len, CAP - 1 - len) : -1;
            if (r <= 0)
                goto done;
            len += (size_t)r;
        }
        snprintf(body, CAP, "%.*s", (int)body_len, buf + head);
        memmove(buf, buf + head + body_len, len - head - body_len);
        len -= head + body_len;
        buf[len] = '\0';
        proxy_state *st = pc.st;
        if (atomic_load(&st->down))
            goto done;
        if (strcmp(path, "/v3/kv/txn") == 0 && strstr(body, st->mark_b64) &&
            strstr(body, "request_put") && atomic_exchange(&st->capture, 0)) {
            pthread_mutex_lock(&st->mu);
            snprintf(st->captured, sizeof st->captured, "%s", body);
            st->n_captured++;
            pthread_mutex_unlock(&st->mu);
            goto done; /* unanswered */
        }
        if (strcmp(path, "/v3/kv/txn") == 0 && strstr(body, st->mark_b64) &&
            strstr(body, "request_put") && atomic_exchange(&st->stall, 0)) {
            atomic_store(&st->holding, 1);
            while (!atomic_load(&st->release))
                claim_test_sleep(5);
            atomic_store(&st->holding, 0);
        }
        int status;
        if (strcmp(path, "/v3/lease/keepalive") == 0 && atomic_load(&st->ttl0)) {
            char id[32] = "0";
            const char *p = strstr(body, "\"ID\":\"");
            if (p)
                sscanf(p + 6, "%31[0-9]", id);
            snprintf(out, CAP, "{\"result\":{\"header\":{\"revision\":\"1\"},\"ID\":\"%s\","
                     "\"TTL\":\"0\"}}", id);
            status = 200;
        } else if ((status = http(st->etcd_port, path, body, out, CAP)) < 0) {
            goto done;
        }
        int n = snprintf(reply, CAP + 200, "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
                         "Content-Length: %zu\r\n\r\n%s", status, strlen(out), out);
        if (write_str(pc.fd, reply, (size_t)n) < 0)
            goto done;
    }
done:
    close(pc.fd);
    free(buf);
    free(out);
    free(reply);
    free(body);
    return NULL;
}

static void *proxy_run(void *arg) {
    proxy *p = arg;
    for (;;) {
        int c = accept(p->fd, NULL, NULL);
        if (c < 0)
            return NULL;
        proxy_conn *pc = malloc(sizeof *pc);
        pthread_t t;
        if (!pc) {
            close(c);
            continue;
        }
        pc->fd = c;
        pc->st = p->st;
        if (pthread_create(&t, NULL, proxy_conn_run, pc) != 0) {
            close(c);
            free(pc);
            continue;
        }
        pthread_detach(t);
    }
}

/* A proxy state for etcd on port, watching mark_key's writes (NULL: none). */
static void proxy_state_init(proxy_state *st, int port, const char *mark_key) {
    memset(st, 0, sizeof *st);
    st->etcd_port = port;
    pthread_mutex_init(&st->mu, NULL);
    if (mark_key)
        b64(mark_key, st->mark_b64);
    else
        snprintf(st->mark_b64, sizeof st->mark_b64, "(none)");
}

static int proxy_start(proxy *p, proxy_state *st) {
    p->st = st;
    return serve_start(&p->fd, &p->port, &p->t, proxy_run, p);
}

static void proxy_stop(proxy *p) { serve_stop(p->fd, p->t); }

/* Starts p (checked) and writes the spec of a claimer that talks only to it. */
static int proxy_spec(proxy *p, proxy_state *st, char *spec, size_t cap) {
    if (proxy_start(p, st) != 0) {
        CHECK_MSG(0, "proxy starts");
        return -1;
    }
    snprintf(spec, cap, "etcd=http://127.0.0.1:%d", p->port);
    return 0;
}

/* ---- the tests ---------------------------------------------------------------- */

static void etcd_opts(toid_claimer_opts *o, const char *prefix) {
    tc_opts(o);
    o->ttl_ms = TTL_MS;
    o->prefix = prefix;
}

/* Waits until a claim of [lo, hi] succeeds; returns the ms it took, or -1. */
static int64_t acquire_wait(toid_claimer *c, toid_format f, uint32_t lo, uint32_t hi,
                            toid_claim **k, int max_ms) {
    int64_t t0 = claim_test_mono();
    while (claim_test_mono() - t0 < max_ms) {
        int rc = tc_acquire(c, f, 0, lo, hi, k);
        if (rc == 0)
            return claim_test_mono() - t0;
        if (rc != TOID_CLAIM_EBUSY)
            return -1;
        claim_test_sleep(50);
    }
    return -1;
}

static void test_basics(cluster *cl) {
    toid_claimer_opts o;
    etcd_opts(&o, "/t1");
    toid_claimer *a, *b;
    CHECK_EQ_INT(tc_open(cl->spec, &o, &a), 0);
    CHECK_EQ_INT(tc_open(cl->spec, &o, &b), 0);
    toid_claim *k0, *k1, *kx = NULL;
    CHECK_EQ_INT(tc_acquire(a, TOID_NANOFLAKE, 0, 0, 1023, &k0), 0);
    CHECK_EQ_INT(toid_claim_node(k0), 0);
    CHECK_EQ_INT(tc_acquire(b, TOID_NANOFLAKE, 0, 0, 1023, &k1), 0);
    CHECK_EQ_INT(toid_claim_node(k1), 1);
    tc_clear();
    CHECK_EQ_INT(tc_acquire(b, TOID_NANOFLAKE, 0, 0, 0, &kx), TOID_CLAIM_EBUSY);
    CHECK_MSG(strstr(tc_last(), "nanoflake node 0 is held by another generator (host ") &&
              strstr(tc_last(), "/t1/nanoflake/nodes/0000"), "msg: %s", tc_last());
    /* every node of a range held: the holders named */
    tc_clear();
    CHECK_EQ_INT(tc_acquire(b, TOID_NANOFLAKE, 0, 0, 1, &kx), TOID_CLAIM_EBUSY);
    CHECK_MSG(strstr(tc_last(), "no free node of nanoflake in 0-1 (etcd backend): every one is held: "
                                "0 by host ") && strstr(tc_last(), ", 1 by host "), "msg: %s", tc_last());
    /* a claimer does not take its own node twice */
    CHECK_EQ_INT(tc_acquire(a, TOID_NANOFLAKE, 0, 0, 0, &kx), TOID_CLAIM_EBUSY);
    int64_t left = 0;
    CHECK(toid_claim_valid(k0, &left) && left > 0 && left <= TTL_MS);
    int64_t now = toid_clock_now(NULL);
    CHECK_EQ_INT(toid_claim_admit(k0, now, now + 3000), 0); /* a write the admit waits for */
    /* renewals keep it valid past the TTL */
    claim_test_sleep(TTL_MS + 1000);
    CHECK(toid_claim_valid(k0, &left) && left > 0);
    toid_claim_stats st;
    toid_claimer_stats(a, &st);
    CHECK(st.renewals >= 2 && st.request_writes >= 1 && st.mark_writes >= 2 && st.lost == 0);
    /* a clean release lowers the mark; the next holder starts after it */
    toid_claim_release(k0, 1);
    CHECK_EQ_INT(tc_acquire(b, TOID_NANOFLAKE, 0, 0, 0, &kx), 0);
    CHECK(toid_clock_now(NULL) > now + 3000);
    CHECK_EQ_INT(toid_claim_admit(kx, now + 3000, now + 3000), TOID_CLAIM_EBEHIND);
    toid_claim_release(kx, 1);
    toid_claim_release(k1, 0);
    /* released keys are gone: node 0 and 1 free again */
    CHECK_EQ_INT(tc_acquire(b, TOID_NANOFLAKE, 0, 0, 3, &kx), 0);
    CHECK_EQ_INT(kx ? toid_claim_node(kx) : 99, 0);
    toid_claimer_close(a);
    toid_claimer_close(b);
}

/* 8 processes race for 4 nodes; then kill -9 of one, SIGSTOP of another. */
static void test_race_and_death(cluster *cl) {
    toid_claimer_opts o;
    etcd_opts(&o, "/t2");
    pid_t pid[8];
    int fd[8];
    for (int i = 0; i < 8; i++)
        pid[i] = tc_spawn_holder(cl->spec, &o, TOID_ULID_FLAKE_SCALABLE, 0, 3, &fd[i]);
    uint32_t node[8];
    int64_t top[8];
    int holders = 0, seen[4] = {0, 0, 0, 0};
    for (int i = 0; i < 8; i++) {
        if (tc_read_report(fd[i], &node[i], &top[i], 15000) == 0 && node[i] < 4) {
            holders++;
            seen[node[i]]++;
        } else {
            node[i] = 99;
            tc_reap(pid[i]);
            pid[i] = 0;
        }
    }
    CHECK_EQ_INT(holders, 4);
    CHECK(seen[0] == 1 && seen[1] == 1 && seen[2] == 1 && seen[3] == 1);
    /* kill -9 the holder of node 2: after the lease expires another takes it
     * and starts after the dead holder's mark */
    int victim = -1, stopped = -1;
    for (int i = 0; i < 8; i++) {
        if (node[i] == 2)
            victim = i;
        if (node[i] == 3)
            stopped = i;
    }
    if (victim < 0 || stopped < 0)
        return;
    claim_test_sleep(300);
    tc_read_report(fd[victim], &node[victim], &top[victim], 1000);
    tc_reap(pid[victim]);
    pid[victim] = 0;
    int64_t killed_at = toid_clock_now(NULL);
    toid_claimer *c;
    toid_claim *k = NULL;
    CHECK_EQ_INT(tc_open(cl->spec, &o, &c), 0);
    int64_t took = acquire_wait(c, TOID_ULID_FLAKE_SCALABLE, 0, 3, &k, TTL_MS + 15000);
    CHECK_MSG(took >= 0 && k && toid_claim_node(k) == 2, "another takes node 2 (took %lld ms)",
              (long long)took);
    printf("  holder killed: node taken again after %lld ms (TTL %d ms)\n", (long long)took,
           TTL_MS);
    if (k) {
        CHECK_EQ_INT(toid_claim_admit(k, top[victim], top[victim]), TOID_CLAIM_EBEHIND);
        CHECK_EQ_INT(toid_claim_admit(k, killed_at, killed_at), TOID_CLAIM_EBEHIND);
        toid_claim_release(k, 1);
    }
    /* SIGSTOP the holder of node 3 past its TTL; another takes the node;
     * after SIGCONT the first admits nothing more */
    tc_read_report(fd[stopped], &node[stopped], &top[stopped], 1000);
    kill(pid[stopped], SIGSTOP);
    int64_t t_stop = toid_clock_now(NULL);
    k = NULL;
    took = acquire_wait(c, TOID_ULID_FLAKE_SCALABLE, 3, 3, &k, TTL_MS + 15000);
    int64_t t_taken = toid_clock_now(NULL);
    CHECK_MSG(took >= 0 && k, "node 3 taken from a stopped holder");
    if (k) {
        /* (at once: seconds later, on a machine loaded enough to delay a
         * renewal past the 2 s TTL, the claim is rightly fenced) */
        int64_t now = toid_clock_now(NULL);
        CHECK_EQ_INT(toid_claim_admit(k, now, now), 0);
    }
    kill(pid[stopped], SIGCONT);
    claim_test_sleep(500);
    uint32_t n3;
    int64_t top3 = 0;
    CHECK(tc_read_report(fd[stopped], &n3, &top3, 2000) == 0);
    CHECK_MSG(top3 < t_taken, "the stopped holder admitted %lld after its node was taken at "
              "%lld (stopped at %lld)", (long long)top3, (long long)t_taken, (long long)t_stop);
    if (k)
        toid_claim_release(k, 1);
    toid_claimer_close(c);
    for (int i = 0; i < 8; i++) {
        tc_reap(pid[i]);
        close(fd[i]);
    }
}

static void test_bad_data(cluster *cl) {
    int port = cl->m[0].client;
    toid_claimer_opts o;
    etcd_opts(&o, "/t3");
    toid_claimer *c;
    toid_claim *k = NULL;
    CHECK_EQ_INT(tc_open(cl->spec, &o, &c), 0);
    /* foreign data in a node key */
    CHECK(etcd_put(port, "/t3/nanoflake/nodes/0007", "hello") == 0);
    tc_clear();
    CHECK_EQ_INT(tc_acquire(c, TOID_NANOFLAKE, 0, 7, 7, &k), TOID_CLAIM_ECORRUPT);
    CHECK_MSG(strstr(tc_last(), "key /t3/nanoflake/nodes/0007 holds foreign data") &&
              strstr(tc_last(), "http://127.0.0.1:"), "msg: %s", tc_last());
    tc_clear();
    CHECK_EQ_INT(tc_acquire(c, TOID_NANOFLAKE, 0, 5, 9, &k), TOID_CLAIM_ECORRUPT);
    CHECK_MSG(strstr(tc_last(), "/t3/nanoflake/nodes/0007 holds foreign data"), "msg: %s",
              tc_last());
    etcd_del(port, "/t3/nanoflake/nodes/0007");
    /* foreign data in a mark key; the node is not left held */
    CHECK(etcd_put(port, "/t3/nanoflake/marks/0008", "{\"mark\":1}") == 0);
    tc_clear();
    CHECK_EQ_INT(tc_acquire(c, TOID_NANOFLAKE, 0, 8, 8, &k), TOID_CLAIM_ECORRUPT);
    CHECK_MSG(strstr(tc_last(), "key /t3/nanoflake/marks/0008 holds foreign data"), "msg: %s",
              tc_last());
    /* a mark of another epoch */
    CHECK(etcd_put(port, "/t3/nanoflake/marks/0008", "{\"toid\":\"mark\",\"format\":\"nanoflake\","
                   "\"node\":8,\"epoch_ms\":5,\"mark_ms\":10}") == 0);
    tc_clear();
    CHECK_EQ_INT(tc_acquire(c, TOID_NANOFLAKE, 0, 8, 8, &k), TOID_CLAIM_ECORRUPT);
    CHECK_MSG(strstr(tc_last(), "written for another epoch"), "msg: %s", tc_last());
    CHECK_EQ_INT(tc_acquire(c, TOID_NANOFLAKE, 5, 8, 8, &k), 0);
    if (k)
        toid_claim_release(k, 0);
    toid_claimer_close(c);

    /* endpoints that are not (working) etcd: EIO naming the endpoint */
    char spec[512];
    int dead = claim_test_free_port();
    snprintf(spec, sizeof spec, "etcd=http://127.0.0.1:%d", dead);
    CHECK_EQ_INT(tc_open(spec, &o, &c), 0);
    tc_clear();
    CHECK_EQ_INT(toid_claim_acquire(c, TOID_NANOFLAKE, 0, 0, 3, &k), TOID_CLAIM_EIO);
    char want[64];
    snprintf(want, sizeof want, "http://127.0.0.1:%d", dead);
    CHECK_MSG(strstr(tc_last(), want), "names the endpoint: %s", tc_last());
    toid_claimer_close(c);
    snprintf(spec, sizeof spec, "etcd=http://127.0.0.1:%d/not/etcd", port);
    CHECK_EQ_INT(tc_open(spec, &o, &c), 0);
    tc_clear();
    CHECK_EQ_INT(toid_claim_acquire(c, TOID_NANOFLAKE, 0, 0, 3, &k), TOID_CLAIM_EIO);
    CHECK_MSG(strstr(tc_last(), "/not/etcd/v3/kv/range: HTTP status 404"), "msg: %s", tc_last());
    toid_claimer_close(c);
    static const char *const answers[] = {
        "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<html>hello</html>",
        "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{\"kvs\":\"x\",\"header\":{}}",
        "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{}",
        "HTTP/1.0 500 Oops\r\n\r\n",
        "garbage\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof answers / sizeof answers[0]; i++) {
        fake f;
        if (fake_start(&f, answers[i]) != 0) {
            CHECK_MSG(0, "fake server");
            continue;
        }
        snprintf(spec, sizeof spec, "etcd=http://127.0.0.1:%d", f.port);
        snprintf(want, sizeof want, "http://127.0.0.1:%d", f.port);
        CHECK_EQ_INT(tc_open(spec, &o, &c), 0);
        tc_clear();
        int rc = toid_claim_acquire(c, TOID_NANOFLAKE, 0, 0, 3, &k);
        CHECK_MSG(rc == TOID_CLAIM_EIO && strstr(tc_last(), want),
                  "answer %zu: rc %d, msg: %s", i, rc, tc_last());
        tc_clear();
        rc = toid_claim_acquire(c, TOID_NANOFLAKE, 0, 2, 2, &k); /* no range: the lease */
        CHECK_MSG(rc == TOID_CLAIM_EIO && strstr(tc_last(), want),
                  "answer %zu (one node): rc %d, msg: %s", i, rc, tc_last());
        toid_claimer_close(c);
        fake_stop(&f);
    }
    /* fail-over past a dead endpoint */
    snprintf(spec, sizeof spec, "etcd=http://127.0.0.1:%d,http://127.0.0.1:%d", dead, port);
    CHECK_EQ_INT(tc_open(spec, &o, &c), 0);
    CHECK_EQ_INT(tc_acquire(c, TOID_NANOFLAKE, 0, 0, 3, &k), 0);
    toid_claimer_close(c);
    /* bad specs */
    CHECK_EQ_INT(tc_open("etcd", &o, &c), TOID_EINVAL);
    CHECK_EQ_INT(tc_open("etcd=ftp://x", &o, &c), TOID_EINVAL);
    CHECK_EQ_INT(tc_open("etcd=http://a,,http://b", &o, &c), TOID_EINVAL);
}

/* Opens a claimer on spec and claims nanoflake node (checked); 0 if both
 * worked, else -1 with nothing left open. */
static int open_and_claim(const char *spec, const toid_claimer_opts *o, uint32_t node,
                          toid_claimer **c, toid_claim **k) {
    *k = NULL;
    CHECK_EQ_INT(tc_open(spec, o, c), 0);
    if (!*c)
        return -1;
    CHECK_EQ_INT(tc_acquire(*c, TOID_NANOFLAKE, 0, node, node, k), 0);
    if (!*k) {
        toid_claimer_close(*c);
        return -1;
    }
    return 0;
}

/* Finding F1: a mark write can never move the mark back. A write of ours
 * that a stalled member applies late (captured by a proxy, the backend
 * failing over to a second one, then replayed by hand after a newer write)
 * is refused by etcd; a higher mark written behind the holder's back is
 * kept (not written over with a lower one), a lower one is written over. */
static void test_mark_guard(cluster *cl) {
    int port = cl->m[0].client;
    const char *mkey = "/t5/nanoflake/marks/0000";
    proxy_state st;
    proxy_state_init(&st, port, mkey);
    proxy pa, pb;
    if (proxy_start(&pa, &st) != 0 || proxy_start(&pb, &st) != 0) {
        CHECK_MSG(0, "proxies start");
        return;
    }
    char spec[256];
    snprintf(spec, sizeof spec, "etcd=http://127.0.0.1:%d,http://127.0.0.1:%d", pa.port, pb.port);
    toid_claimer_opts o;
    etcd_opts(&o, "/t5");
    o.ttl_ms = 10000; /* (renewals through the proxies on a loaded machine) */
    o.request_timeout_ms = 5000;
    toid_claimer *c;
    toid_claim *k;
    if (open_and_claim(spec, &o, 0, &c, &k) != 0) {
        proxy_stop(&pa);
        proxy_stop(&pb);
        return;
    }
    int64_t now = toid_clock_now(NULL);
    /* a write is needed (past the reservation): the first proxy to see it
     * keeps it unanswered; the backend fails over to the other */
    atomic_store(&st.capture, 1);
    CHECK_EQ_INT(toid_claim_admit(k, now, now + 5000), 0);
    pthread_mutex_lock(&st.mu);
    int captured = st.n_captured;
    char stale[8192];
    snprintf(stale, sizeof stale, "%s", st.captured);
    pthread_mutex_unlock(&st.mu);
    CHECK_EQ_INT(captured, 1);
    int64_t m1 = etcd_mark(port, mkey);
    CHECK_MSG(m1 >= now + 5000, "mark %lld after the fail-over", (long long)m1);
    CHECK_EQ_INT(toid_claim_admit(k, now, now + 10000), 0);
    int64_t m2 = etcd_mark(port, mkey);
    CHECK_MSG(m2 >= now + 10000, "mark %lld", (long long)m2);
    /* the stalled member applies the old write now: refused */
    char ans[8192];
    CHECK_EQ_INT(http(port, "/v3/kv/txn", stale, ans, sizeof ans), 200);
    CHECK_MSG(strstr(ans, "\"header\"") && !strstr(ans, "\"succeeded\":true"),
              "the late write is refused: %s", ans);
    int64_t m3 = etcd_mark(port, mkey);
    CHECK_MSG(m3 >= m2, "the mark went back from %lld to %lld", (long long)m2, (long long)m3);
    /* behind the holder's back, higher: kept, the admit needs no lower write */
    char v[512];
    int64_t high = now + 600000;
    snprintf(v, sizeof v, "{\"toid\":\"mark\",\"format\":\"nanoflake\",\"node\":0,"
             "\"epoch_ms\":0,\"mark_ms\":%lld}", (long long)high);
    CHECK(etcd_put(port, mkey, v) == 0);
    CHECK_EQ_INT(toid_claim_admit(k, now, now + 15000), 0);
    CHECK_EQ_INT(toid_claim_admit(k, now, now + 16000), 0);
    CHECK_EQ_INT(etcd_mark(port, mkey), high);
    /* behind its back, lower: read again and written over with its own */
    snprintf(v, sizeof v, "{\"toid\":\"mark\",\"format\":\"nanoflake\",\"node\":0,"
             "\"epoch_ms\":0,\"mark_ms\":%lld}", (long long)now);
    CHECK(etcd_put(port, mkey, v) == 0);
    CHECK_EQ_INT(toid_claim_admit(k, now, now + 700000), 0);
    int64_t m4 = etcd_mark(port, mkey);
    CHECK_MSG(m4 >= now + 700000, "mark %lld", (long long)m4);
    toid_claim_stats cs;
    toid_claimer_stats(c, &cs);
    CHECK_EQ_INT(cs.lost, 0);
    toid_claim_release(k, 0);
    toid_claimer_close(c);
    proxy_stop(&pa);
    proxy_stop(&pb);
}

/* Wait (bounded, generously: a busy machine) for a message, for a lost
 * claim, for renewals; 1 once seen, 0 if not within max_ms. */
static int wait_logged(const char *needle, int max_ms) {
    int64_t t0 = claim_test_mono();
    while (!tc_logged(needle) && claim_test_mono() - t0 < max_ms)
        claim_test_sleep(20);
    return tc_logged(needle);
}

static int wait_stats(toid_claimer *c, uint64_t lost, uint64_t renewals, int max_ms,
                      toid_claim_stats *cs) {
    int64_t t0 = claim_test_mono();
    for (;;) {
        toid_claimer_stats(c, cs);
        if (cs->lost >= lost && cs->renewals >= renewals)
            return 1;
        if (claim_test_mono() - t0 >= max_ms)
            return 0;
        claim_test_sleep(20);
    }
}

/* Finding F5: a lease that etcd no longer has (revoked with etcdctl lease
 * revoke, here through the gateway; or a keepalive answered "TTL":"0") is a
 * lost claim: the holder says so and stops admitting; a new claim works. */
static void test_lease_gone(cluster *cl) {
    int port = cl->m[0].client;
    toid_claimer_opts o;
    etcd_opts(&o, "/t6");
    o.ttl_ms = 5000; /* well past the waits below: only the loss can end the claim */
    o.request_timeout_ms = 3000;
    toid_claimer *c;
    toid_claim *k = NULL;
    CHECK_EQ_INT(tc_open(cl->spec, &o, &c), 0);
    CHECK_EQ_INT(tc_acquire(c, TOID_NANOFLAKE, 0, 0, 0, &k), 0);
    int64_t lease = etcd_field(port, "/t6/nanoflake/nodes/0000", "lease");
    CHECK(lease > 0);
    char body[128], ans[4096];
    snprintf(body, sizeof body, "{\"ID\":\"%lld\"}", (long long)lease);
    tc_clear();
    CHECK_EQ_INT(http(port, "/v3/lease/revoke", body, ans, sizeof ans), 200);
    CHECK_MSG(wait_logged("is gone (expired or revoked)", 20000),
              "the keepalive finds the revoked lease gone");
    toid_claim_stats cs;
    toid_claimer_stats(c, &cs);
    CHECK(cs.lost >= 1);
    int64_t now = toid_clock_now(NULL);
    CHECK_EQ_INT(k ? toid_claim_admit(k, now, now) : 0, TOID_CLAIM_ELOST);
    CHECK_EQ_INT(k ? toid_claim_valid(k, NULL) : 1, 0);
    toid_claim_release(k, 0);
    k = NULL;
    CHECK_EQ_INT(tc_acquire(c, TOID_NANOFLAKE, 0, 0, 0, &k), 0); /* a new lease */
    now = toid_clock_now(NULL);
    CHECK_EQ_INT(k ? toid_claim_admit(k, now, now) : -1, 0);
    toid_claimer_close(c);

    /* "TTL":"0" in a keepalive answer (the only endpoint: a proxy saying so) */
    proxy_state st;
    proxy_state_init(&st, port, NULL);
    proxy px;
    char spec[128];
    if (proxy_spec(&px, &st, spec, sizeof spec) != 0)
        return;
    k = NULL;
    CHECK_EQ_INT(tc_open(spec, &o, &c), 0);
    CHECK_EQ_INT(tc_acquire(c, TOID_NANOFLAKE, 0, 1, 1, &k), 0);
    now = toid_clock_now(NULL);
    CHECK_EQ_INT(k ? toid_claim_admit(k, now, now) : -1, 0);
    tc_clear();
    atomic_store(&st.ttl0, 1);
    /* (the mark writes still succeed: the lease is alive in etcd; only the
     * keepalive's answer can end the claim as lost) */
    CHECK_MSG(wait_stats(c, 1, 0, 20000, &cs),
              "a keepalive answered TTL 0 ends the claim (lost %llu)",
              (unsigned long long)cs.lost);
    CHECK(tc_logged("is gone (expired or revoked)"));
    now = toid_clock_now(NULL);
    CHECK_EQ_INT(k ? toid_claim_admit(k, now, now) : 0, TOID_CLAIM_ELOST);
    toid_claimer_close(c);
    proxy_stop(&px);
}

/* Issue 27: a claim given up while etcd does not answer (here a proxy, its
 * only endpoint, closes every request unanswered until the claim is past its
 * deadline and released) leaves its node key behind, on the claimer's lease,
 * which etcd still has (or, in an outage, renews for a new leader) and the
 * claimer goes on renewing. The claimer deletes that key once etcd answers:
 * the node is free again, for another claimer and for this one's range
 * (whose hint would skip it), while the lease lives on. (The key used to stay
 * for as long as the claimer lived: both toidd of server_claims' cluster
 * could end up skipping their own old keys, every node "held", for good.) */
static void test_orphan(cluster *cl) {
    int port = cl->m[0].client;
    const char *key = "/t8/nanoflake/nodes/0000";
    toid_claimer_opts o;
    etcd_opts(&o, "/t8");
    o.ttl_ms = 9000;    /* etcd keeps the lease 5 s past the local deadline: */
    o.margin_ms = 5000; /* time to give the claim up and answer again before it ends */
    proxy_state st;
    proxy_state_init(&st, port, NULL);
    proxy px;
    char spec[128];
    if (proxy_spec(&px, &st, spec, sizeof spec) != 0)
        return;
    toid_claimer *c, *b;
    toid_claim *k = NULL, *kb = NULL;
    CHECK_EQ_INT(tc_open(spec, &o, &c), 0);
    CHECK_EQ_INT(tc_acquire(c, TOID_NANOFLAKE, 0, 0, 1, &k), 0);
    if (!k) {
        toid_claimer_close(c);
        proxy_stop(&px);
        return;
    }
    CHECK_EQ_INT(toid_claim_node(k), 0);
    int64_t lease = etcd_field(port, key, "lease");
    CHECK(lease > 0);
    tc_clear();
    atomic_store(&st.down, 1);
    int64_t t0 = claim_test_mono();
    while (toid_claim_valid(k, NULL) && claim_test_mono() - t0 < 20000)
        claim_test_sleep(20);
    CHECK_MSG(!toid_claim_valid(k, NULL), "the claim lapses while etcd does not answer");
    toid_claim_release(k, 0); /* its delete gets no answer, and never reaches etcd */
    CHECK_MSG(tc_logged("was not deleted (no answer)"), "the key left behind is said: %s",
              tc_last());
    CHECK_MSG(etcd_field(port, key, "lease") == lease, "the key is still there, on the lease");
    toid_claim_stats s0, s1;
    toid_claimer_stats(c, &s0);
    atomic_store(&st.down, 0);
    /* (bounded generously: the next renewal attempt deletes it) */
    t0 = claim_test_mono();
    while (etcd_field(port, key, "lease") != -1 && claim_test_mono() - t0 < 20000)
        claim_test_sleep(50);
    CHECK_MSG(etcd_field(port, key, "lease") == -1, "the key left behind is deleted once etcd "
              "answers (after %lld ms it is still there)", (long long)(claim_test_mono() - t0));
    CHECK(tc_logged("left behind when its claim was given up while etcd did not answer, deleted"));
    /* deleted by the claimer, not ended with the lease: the lease lives on */
    CHECK_MSG(wait_stats(c, 0, s0.renewals + 1, 20000, &s1), "renewals go on");
    CHECK_EQ_INT(s1.lost, 0);
    char body[128], ans[4096];
    snprintf(body, sizeof body, "{\"ID\":\"%lld\"}", (long long)lease);
    CHECK(http(port, "/v3/lease/timetolive", body, ans, sizeof ans) == 200 &&
          strstr(ans, "\"TTL\":\"") && !strstr(ans, "\"TTL\":\"-1\""));
    /* the node is free: another claimer takes it, then this one's range
     * starts at node 0 again once that one is gone */
    CHECK_EQ_INT(tc_open(cl->spec, &o, &b), 0);
    CHECK_EQ_INT(tc_acquire(b, TOID_NANOFLAKE, 0, 0, 0, &kb), 0);
    toid_claimer_close(b);
    k = NULL;
    CHECK_EQ_INT(acquire_wait(c, TOID_NANOFLAKE, 0, 1, &k, 20000) >= 0, 1);
    CHECK_EQ_INT(k ? (int)toid_claim_node(k) : -1, 0);
    toid_claimer_close(c);
    proxy_stop(&px);
}

/* An admit from another thread, for test_slow_write. */
typedef struct admit_job {
    toid_claim *k;
    int64_t t;
    _Atomic int done;
    int rc;
} admit_job;

static void *admit_run(void *arg) {
    admit_job *j = arg;
    j->rc = toid_claim_admit(j->k, j->t, j->t);
    atomic_store(&j->done, 1);
    return NULL;
}

/* Finding F3: while the background thread waits on a slow etcd for a mark
 * write, admits within the durable mark are not held up (the thread holds
 * no lock across network I/O that an admit or its wake-up needs). */
static void test_slow_write(cluster *cl) {
    proxy_state st;
    proxy_state_init(&st, cl->m[0].client, "/t8/nanoflake/marks/0000");
    proxy px;
    char spec[128];
    if (proxy_spec(&px, &st, spec, sizeof spec) != 0)
        return;
    toid_claimer_opts o;
    etcd_opts(&o, "/t8");
    o.ttl_ms = 60000;              /* (the held write may last: the deadline is far) */
    o.request_timeout_ms = 60000;
    toid_claimer *c;
    toid_claim *k;
    if (open_and_claim(spec, &o, 0, &c, &k) != 0) {
        proxy_stop(&px);
        return;
    }
    int64_t t0 = toid_clock_now(NULL);
    CHECK_EQ_INT(toid_claim_admit(k, t0, t0 + 5000), 0); /* durable: t0 + 5300 */
    /* past half the reservation: the admit wakes the thread, whose write
     * the proxy holds */
    atomic_store(&st.stall, 1);
    CHECK_EQ_INT(toid_claim_admit(k, t0 + 5200, t0 + 5200), 0);
    int64_t w0 = claim_test_mono();
    while (!atomic_load(&st.holding) && claim_test_mono() - w0 < 20000)
        claim_test_sleep(10);
    CHECK_MSG(atomic_load(&st.holding), "the thread's mark write reached the proxy");
    /* another admit within the mark (and past half of it: it wakes the
     * thread again) returns while the write is still held */
    admit_job j = {.k = k, .t = t0 + 5210};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, admit_run, &j) == 0);
    w0 = claim_test_mono();
    while (!atomic_load(&j.done) && claim_test_mono() - w0 < 20000)
        claim_test_sleep(10);
    int held = atomic_load(&st.holding);
    CHECK_MSG(atomic_load(&j.done) && held, "an admit returned while the thread's write was "
              "held (done %d, held %d)", atomic_load(&j.done), held);
    atomic_store(&st.release, 1);
    pthread_join(t, NULL);
    CHECK_EQ_INT(j.rc, 0);
    toid_claim_release(k, 1);
    toid_claimer_close(c);
    proxy_stop(&px);
}

/* Finding F2 on etcd: the child of a holder cannot use its claim; its
 * close revokes nothing, deletes nothing: the parent renews on. */
static void test_fork_etcd(cluster *cl) {
    toid_claimer_opts o;
    etcd_opts(&o, "/t7");
    toid_claimer *c;
    toid_claim *k = NULL;
    CHECK_EQ_INT(tc_open(cl->spec, &o, &c), 0);
    CHECK_EQ_INT(tc_acquire(c, TOID_NANOFLAKE, 0, 3, 3, &k), 0);
    if (!k) {
        toid_claimer_close(c);
        return;
    }
    tc_fork_check(c, k, cl->spec, &o, TOID_NANOFLAKE);
    /* the lease lives on: renewals go on after the child's close */
    toid_claim_stats s0, s1;
    toid_claimer_stats(c, &s0);
    CHECK_MSG(wait_stats(c, 0, s0.renewals + 2, 20000, &s1),
              "renewals after the child's close");
    CHECK_EQ_INT(s1.lost, 0);
    CHECK(etcd_field(cl->m[0].client, "/t7/nanoflake/nodes/0003", "lease") > 0);
    int64_t now = toid_clock_now(NULL);
    CHECK_EQ_INT(toid_claim_admit(k, now, now), 0);
    toid_claimer_close(c);
}

/* Kill -9 of the leader while a holder admits; then SIGSTOP of every member. */
static void test_cluster(cluster *cl) {
    toid_claimer_opts o;
    etcd_opts(&o, "/t4");
    o.ttl_ms = 3000; /* an election fits in a renewal interval */
    int fd;
    pid_t holder = tc_spawn_holder(cl->spec, &o, TOID_NANOFLAKE, 0, 9, &fd);
    uint32_t node;
    int64_t top0 = 0, top1 = 0;
    CHECK(tc_read_report(fd, &node, &top0, 15000) == 0);
    toid_claimer *c;
    toid_claim *k = NULL;
    CHECK_EQ_INT(tc_open(cl->spec, &o, &c), 0);
    CHECK_EQ_INT(tc_acquire(c, TOID_NANOFLAKE, 0, 0, 9, &k), 0);
    int leader = cluster_leader(cl);
    CHECK(leader >= 0);
    if (leader >= 0 && k) {
        kill(cl->m[leader].pid, SIGKILL);
        waitpid(cl->m[leader].pid, NULL, 0);
        cl->m[leader].pid = 0;
        int64_t t_kill = toid_clock_now(NULL);
        /* load: admits every ms for two TTLs; the claim is never lost */
        int64_t end = claim_test_mono() + 2 * (int64_t)o.ttl_ms, admitted_after = 0;
        while (claim_test_mono() < end) {
            int64_t now = toid_clock_now(NULL);
            if (toid_claim_admit(k, now, now) == 0 && now > t_kill + (int64_t)o.ttl_ms)
                admitted_after++;
            claim_test_sleep(1);
        }
        toid_claim_stats st;
        toid_claimer_stats(c, &st);
        CHECK_EQ_INT(st.lost, 0);
        CHECK_MSG(admitted_after > 0 && toid_claim_valid(k, NULL),
                  "the claim lives on after the leader's death");
        claim_test_sleep(300);
        CHECK(tc_read_report(fd, &node, &top1, 2000) == 0);
        CHECK_MSG(top1 > t_kill + (int64_t)o.ttl_ms, "the holder child still admits "
                  "(%lld after the kill at %lld)", (long long)top1, (long long)t_kill);
    }
    tc_reap(holder);
    close(fd);
    /* every member stopped: admits stop before the deadline; resume after */
    if (k) {
        int64_t left = 0;
        toid_claim_valid(k, &left);
        for (int i = 0; i < cl->n; i++)
            if (cl->m[i].pid)
                kill(cl->m[i].pid, SIGSTOP);
        int64_t t0 = claim_test_mono(), refused_after = -1;
        while (claim_test_mono() - t0 < 3 * (int64_t)o.ttl_ms) {
            int64_t now = toid_clock_now(NULL);
            if (toid_claim_admit(k, now, now) != 0) {
                refused_after = claim_test_mono() - t0;
                break;
            }
            claim_test_sleep(5);
        }
        /* (the deadline is at most TTL - margin after the stop; a second
         * more for a loaded machine) */
        CHECK_MSG(refused_after >= 0 && refused_after <= (int64_t)o.ttl_ms + 1000,
                  "admits refused %lld ms after the stop (TTL %u ms)", (long long)refused_after,
                  o.ttl_ms);
        printf("  all members stopped: admits refused after %lld ms (TTL %u ms, margin %u ms)\n",
               (long long)refused_after, o.ttl_ms, o.ttl_ms / 5);
        claim_test_sleep(500);
        for (int i = 0; i < cl->n; i++)
            if (cl->m[i].pid)
                kill(cl->m[i].pid, SIGCONT);
        /* resumes: by a renewal, or (the lease expired meanwhile) a new claim */
        int64_t t1 = claim_test_mono();
        int resumed = 0;
        while (!resumed && claim_test_mono() - t1 < 20000) {
            int64_t now = toid_clock_now(NULL);
            if (toid_claim_admit(k, now, now) == 0) {
                resumed = 1;
            } else if (toid_claim_valid(k, NULL) == 0) {
                toid_claim_stats st;
                toid_claimer_stats(c, &st);
                if (st.lost > 0) { /* lost: claim again */
                    toid_claim_release(k, 0);
                    k = NULL;
                    resumed = acquire_wait(c, TOID_NANOFLAKE, 0, 9, &k, 15000) >= 0;
                    break;
                }
            }
            claim_test_sleep(20);
        }
        CHECK_MSG(resumed, "admits resume after SIGCONT");
        printf("  all members continued: admits resumed after %lld ms\n",
               (long long)(claim_test_mono() - t1));
    }
    toid_claimer_close(c);
}

/* The etcd binary (the program's parameter); 0 if it is there, else the
 * case skips, saying so. */
static int etcd_installed(void) {
    const char *bin = claim_test_etcd;
    if (!bin || !bin[0] || access(bin, X_OK) != 0 || strstr(bin, "NOTFOUND")) {
        check_skip("etcd is not installed (Debian: apt-get install etcd-server); the etcd "
                   "claim tests did not run");
        return -1;
    }
    return 0;
}

/* one member, started once for all of its checks (a start takes seconds) */
TEST_CASE(etcd_member) {
    if (etcd_installed() < 0)
        return;
    cluster one;
    if (cluster_start(&one, claim_test_etcd, claim_test_base, 1) < 0) {
        CHECK_MSG(0, "a single etcd member starts");
        cluster_stop(&one);
        return;
    }
    printf("single member: %s\n", one.spec);
    test_basics(&one);
    test_race_and_death(&one);
    test_bad_data(&one);
    test_mark_guard(&one);
    test_lease_gone(&one);
    test_orphan(&one);
    test_fork_etcd(&one);
    test_slow_write(&one);
    cluster_stop(&one);
}

TEST_CASE(etcd_cluster) {
    if (etcd_installed() < 0)
        return;
    cluster three;
    if (cluster_start(&three, claim_test_etcd, claim_test_base, 3) < 0) {
        CHECK_MSG(0, "a 3-member etcd cluster starts");
        cluster_stop(&three);
        return;
    }
    printf("3 members: %s\n", three.spec);
    test_cluster(&three);
    cluster_stop(&three);
}
