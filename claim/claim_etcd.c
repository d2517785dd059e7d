/* claim_etcd.c — the etcd claim backend: etcd v3's JSON gateway over HTTP
 * (libcurl), answers read with jansson. Checked against etcd 3.4.23:
 *   POST /v3/lease/grant     {"TTL":2}                -> {"ID":"<int64>","TTL":"2"}
 *   POST /v3/lease/keepalive {"ID":"<int64>"}         -> {"result":{"ID":..,"TTL":"2"}};
 *                            a dead (expired, revoked) lease answers 200 too,
 *                            without "TTL" (or with "TTL":"0"): lost
 *   POST /v3/lease/revoke    {"ID":"<int64>"}
 *   POST /v3/kv/range        {"key":b64,"range_end":b64} -> {"kvs":[{"key":b64,
 *                            "create_revision":"N","value":b64,"lease":"N"}]}
 *   POST /v3/kv/txn          {"compare":[...],"success":[...],"failure":[...]}
 *                            -> {"header":{"revision":"N"},"succeeded":true,
 *                            "responses":[...]} ("succeeded" absent when false)
 * int64 values are JSON strings; keys and values base64.
 *
 * Keys (node NNNN zero-padded, so keys sort numerically):
 *   <prefix>/<format>/nodes/<NNNN>  the claim: put if create_revision == 0,
 *                                   with the claimer's lease; value
 *                                   {"toid":"node","host":..,"pid":..,"start_ms":..}
 *   <prefix>/<format>/marks/<NNNN>  the high-water mark, without a lease (it
 *                                   outlives its holder): {"toid":"mark",
 *                                   "format":..,"node":..,"epoch_ms":..,"mark_ms":..};
 *                                   written only by a txn guarded by the node
 *                                   key's create_revision == the holder's, so a
 *                                   fenced-out holder cannot move it, and by the
 *                                   mark key's mod_revision == the one the holder
 *                                   last saw, so a write of ours delayed past a
 *                                   newer one (sent to a member that stalled,
 *                                   then failed over) is refused instead of
 *                                   moving the mark back. On such a refusal the
 *                                   holder reads the mark again and writes only
 *                                   if its own is higher: it never lowers it
 *                                   (except its clean release, which lowers it
 *                                   to the last ID admitted, with the same guard).
 * One lease per claimer, kept alive at TTL/3 by the claimer's thread; the
 * local deadline of its claims = send time of the last successful grant or
 * keepalive (CLOCK_MONOTONIC) + TTL - margin.
 */
#define _GNU_SOURCE
#include "claim_internal.h"
#include "curl_lazy.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_URLS 16
#define POOL 4
#define ANSWER_MAX (8u << 20) /* a range of every node of a format fits easily */

/* A node key whose claim was given up (released, or lapsed and retired) while
 * etcd did not answer its delete. It is on our lease, which the claimer goes
 * on renewing (for its other claims and the next one), and which etcd may
 * have kept through the outage (a new leader gives every lease a fresh TTL):
 * left alone, it would hold its node for as long as the claimer lives,
 * against every claimer, this one too. The thread deletes it, if it is still
 * ours (the same create_revision), after the next renewal etcd answers. */
typedef struct orphan {
    struct orphan *next;
    int64_t create_rev;
    char key[320];
} orphan;

typedef struct etcd {
    char *urls[MAX_URLS];
    int n_urls;
    _Atomic int preferred;       /* the endpoint that answered last */
    pthread_mutex_t pool_mu;     /* the idle curl handles */
    CURL *pool[POOL];
    int n_pool;
    pthread_mutex_t lease_mu;    /* the lease */
    int64_t lease;               /* 0: none */
    int64_t lease_ttl_ms;
    int64_t deadline;            /* of the lease, CLOCK_MONOTONIC ms */
    int64_t next_renew;
    int lapsed_logged;
    char holder[256];            /* the node key's value (JSON) */
    pthread_mutex_t orphan_mu;   /* the orphans; held while the thread deletes them */
    orphan *orphans;
} etcd;

typedef struct etcd_claim {
    int64_t create_rev; /* of the node key, ours */
    /* The mark key as we last saw or wrote it, under k->mu like every mark
     * write: its mod_revision (0: absent), its value (INT64_MIN: none), and
     * whether that value was written by someone else (the previous holder,
     * an operator): we never write below a value of someone else's. */
    int64_t mark_rev;
    int64_t mark_val;
    int mark_foreign;
    char node_key[320];
    char mark_key[320];
} etcd_claim;

static etcd *ED(const toid_claimer *c) { return c->bk; }
/* libcurl's calls: loaded by the first etcd_open(), which fails if they
 * cannot be, so every later caller finds them. */
static const curl_api *CU(void) { return curl_lazy(NULL); }

/* ---- base64 ----------------------------------------------------------------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *b64_encode(const char *in, size_t n) {
    char *out = malloc(4 * ((n + 2) / 3) + 1), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)(unsigned char)in[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)(unsigned char)in[i + 1] << 8;
        if (i + 2 < n)
            v |= (unsigned char)in[i + 2];
        *o++ = b64[v >> 18];
        *o++ = b64[(v >> 12) & 63];
        *o++ = i + 1 < n ? b64[(v >> 6) & 63] : '=';
        *o++ = i + 2 < n ? b64[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

/* Decodes NUL-terminated base64; returns a NUL-terminated buffer and *n, or NULL. */
static char *b64_decode(const char *in, size_t *n) {
    size_t len = strlen(in);
    if (len % 4)
        return NULL;
    char *out = malloc(len / 4 * 3 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        uint32_t v = 0;
        int pad = 0;
        for (int j = 0; j < 4; j++) {
            char ch = in[i + j];
            const char *p = ch ? strchr(b64, ch) : NULL;
            if (ch == '=' && i + 4 == len && j >= 2) {
                pad++;
                v <<= 6;
            } else if (p && !pad) {
                v = v << 6 | (uint32_t)(p - b64);
            } else {
                free(out);
                return NULL;
            }
        }
        out[o++] = (char)(v >> 16);
        if (pad < 2)
            out[o++] = (char)(v >> 8);
        if (pad < 1)
            out[o++] = (char)v;
    }
    out[o] = '\0';
    *n = o;
    return out;
}

/* ---- JSON helpers -------------------------------------------------------------- */

/* An int64 that the gateway renders as a string (or, leniently, a number).
 * Returns 1 and *v, 0 if absent, -1 if malformed. */
static int j_int64(const json_t *obj, const char *name, int64_t *v) {
    json_t *x = json_object_get(obj, name);
    if (!x)
        return 0;
    if (json_is_integer(x)) {
        *v = (int64_t)json_integer_value(x);
        return 1;
    }
    if (!json_is_string(x))
        return -1;
    const char *s = json_string_value(x);
    char *end;
    errno = 0;
    long long r = strtoll(s, &end, 10);
    if (errno || end == s || *end)
        return -1;
    *v = (int64_t)r;
    return 1;
}

/* A new empty object. Never json_object() in this file: the PostgreSQL
 * extension links this library into a module of the server, whose executable
 * exports a json_object of its own (the SQL function json_object(text[])),
 * and the module's reference, looked up in the global scope, binds to the
 * server's: the claims worker crashed (SIGSEGV) on its first etcd claim.
 * json_pack makes the object inside jansson, whose own calls bind to its own
 * functions. (ext/postgres/symbols_test.sh, ctest pg_symbols, keeps the
 * module clear of such namesakes.) */
static json_t *j_object(void) { return json_pack("{}"); }

static json_t *j_b64(const char *s) {
    char *e = b64_encode(s, strlen(s));
    json_t *j = e ? json_string(e) : NULL;
    free(e);
    return j;
}

static json_t *j_i64(int64_t v) {
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    return json_string(buf);
}

/* ---- HTTP ------------------------------------------------------------------------ */

typedef struct answer {
    char *data;
    size_t len;
    int too_big;
} answer;

static size_t on_data(char *p, size_t size, size_t n, void *ctx) {
    answer *a = ctx;
    size_t add = size * n;
    if (a->len + add > ANSWER_MAX) {
        a->too_big = 1;
        return 0;
    }
    char *d = realloc(a->data, a->len + add + 1);
    if (!d)
        return 0;
    memcpy(d + a->len, p, add);
    a->len += add;
    d[a->len] = '\0';
    a->data = d;
    return add;
}

static CURL *handle_get(etcd *e) {
    CURL *h = NULL;
    pthread_mutex_lock(&e->pool_mu);
    if (e->n_pool > 0)
        h = e->pool[--e->n_pool];
    pthread_mutex_unlock(&e->pool_mu);
    return h ? h : CU()->easy_init();
}

static void handle_put(etcd *e, CURL *h) {
    pthread_mutex_lock(&e->pool_mu);
    if (e->n_pool < POOL) {
        e->pool[e->n_pool++] = h;
        h = NULL;
    }
    pthread_mutex_unlock(&e->pool_mu);
    if (h)
        CU()->easy_cleanup(h);
}

/*
 * POSTs body to path, starting with the endpoint that answered last and
 * failing over to the others on any failure (connection, timeout, a status
 * other than 200, an answer that is not a JSON object). Returns 0 with the
 * answer in *out, the endpoint in *url and the CLOCK_MONOTONIC send time of
 * the attempt that answered in *sent; or TOID_CLAIM_EIO after logging what
 * every endpoint said.
 */
static int call_until(toid_claimer *c, const char *path, json_t *body, json_t **out,
                      const char **url, int64_t *sent, int64_t until) {
    etcd *e = ED(c);
    *out = NULL;
    char *text = json_dumps(body, JSON_COMPACT);
    if (!text) {
        claim_log(c, TOID_CLAIM_LOG_ERR, "etcd: out of memory");
        return TOID_CLAIM_EIO;
    }
    CURL *h = handle_get(e);
    if (!h) {
        free(text);
        claim_log(c, TOID_CLAIM_LOG_ERR, "etcd: cannot make a curl handle");
        return TOID_CLAIM_EIO;
    }
    char why[1024] = "";
    size_t wl = 0;
    int first = atomic_load(&e->preferred), rc = TOID_CLAIM_EIO;
    struct curl_slist *hdr = CU()->slist_append(NULL, "Content-Type: application/json");
    for (int i = 0; i < e->n_urls && rc != 0; i++) {
        int u = (first + i) % e->n_urls;
        long timeout = (long)c->o.request_timeout_ms;
        int64_t left = until == INT64_MAX ? timeout : until - claim_mono_ms();
        if (left <= 0) {
            int n = snprintf(why + wl, sizeof why - wl, "%s(the claim's deadline passed)",
                             wl ? "; " : "");
            wl += n > 0 && (size_t)n < sizeof why - wl ? (size_t)n : 0;
            break;
        }
        if (left < timeout)
            timeout = (long)left;
        char full[1200];
        snprintf(full, sizeof full, "%s%s", e->urls[u], path);
        answer a = {NULL, 0, 0};
        CU()->easy_reset(h);
        CU()->easy_setopt(h, CURLOPT_URL, full);
        CU()->easy_setopt(h, CURLOPT_POSTFIELDS, text);
        CU()->easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
        CU()->easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
        CU()->easy_setopt(h, CURLOPT_WRITEDATA, &a);
        CU()->easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
        CU()->easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout);
        CU()->easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, timeout);
        CU()->easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
        int64_t t = claim_mono_ms();
        CURLcode cr = CU()->easy_perform(h);
        long status = 0;
        CU()->easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
        const char *bad = NULL;
        char detail[200] = "";
        json_t *j = NULL;
        if (cr != CURLE_OK) {
            bad = a.too_big ? "answer too large" : CU()->easy_strerror(cr);
        } else if (status != 200) {
            snprintf(detail, sizeof detail, "HTTP status %ld (is this etcd's v3 gateway?)", status);
            bad = detail;
        } else {
            json_error_t je;
            j = a.data ? json_loadb(a.data, a.len, 0, &je) : NULL;
            if (!json_is_object(j)) {
                bad = "the answer is not etcd's JSON";
                json_decref(j);
                j = NULL;
            }
        }
        free(a.data);
        if (!bad) {
            atomic_store(&e->preferred, u);
            *out = j;
            *url = e->urls[u];
            *sent = t;
            rc = 0;
        } else if (wl < sizeof why - 1) {
            int n = snprintf(why + wl, sizeof why - wl, "%s%s: %s", wl ? "; " : "", full, bad);
            wl += n > 0 ? (size_t)n : 0;
        }
    }
    CU()->slist_free_all(hdr);
    handle_put(e, h);
    free(text);
    if (rc != 0)
        claim_log(c, TOID_CLAIM_LOG_ERR, "etcd: no endpoint answered: %s", why);
    return rc;
}

static int call(toid_claimer *c, const char *path, json_t *body, json_t **out, const char **url,
                int64_t *sent) {
    return call_until(c, path, body, out, url, sent, INT64_MAX);
}

/* ---- the lease ------------------------------------------------------------------ */

/* Grants a lease if there is none. Called with lease_mu held. */
static int lease_ensure(toid_claimer *c) {
    etcd *e = ED(c);
    if (e->lease)
        return 0;
    json_t *body = json_pack("{s:I}", "TTL", (json_int_t)(c->o.ttl_ms / 1000)), *ans;
    const char *url;
    int64_t sent;
    int rc = call(c, "/v3/lease/grant", body, &ans, &url, &sent);
    json_decref(body);
    if (rc < 0)
        return rc;
    int64_t id = 0, ttl = 0;
    if (j_int64(ans, "ID", &id) != 1 || j_int64(ans, "TTL", &ttl) != 1 || id == 0 || ttl <= 0) {
        const char *err = json_string_value(json_object_get(ans, "error"));
        claim_log(c, TOID_CLAIM_LOG_ERR, "etcd %s: lease grant refused or not understood%s%s",
                  url, err ? ": " : "", err ? err : "");
        json_decref(ans);
        return TOID_CLAIM_EIO;
    }
    json_decref(ans);
    e->lease = id;
    /* a longer TTL than asked may be granted; the shorter is the safe one */
    e->lease_ttl_ms = ttl * 1000 < (int64_t)c->o.ttl_ms ? ttl * 1000 : (int64_t)c->o.ttl_ms;
    e->deadline = sent + e->lease_ttl_ms - (int64_t)c->o.margin_ms;
    e->next_renew = sent + e->lease_ttl_ms / 3;
    e->lapsed_logged = 0;
    return 0;
}

static void orphans_delete(toid_claimer *c);
static void orphans_free(etcd *e);
static void orphan_forget(etcd *e, const char *key, int64_t create_rev);

static int64_t etcd_tick(toid_claimer *c, int64_t now) {
    etcd *e = ED(c);
    int renewed = 0;
    pthread_mutex_lock(&e->lease_mu);
    int64_t id = e->lease, next = e->next_renew;
    pthread_mutex_unlock(&e->lease_mu);
    if (!id)
        return now + 1000;
    if (now < next)
        return next;
    json_t *body = j_object(), *ans;
    json_object_set_new(body, "ID", j_i64(id));
    const char *url;
    int64_t sent;
    int rc = call(c, "/v3/lease/keepalive", body, &ans, &url, &sent);
    json_decref(body);
    int64_t ttl = 0;
    json_t *res = rc == 0 ? json_object_get(ans, "result") : NULL;
    int have_ttl = res ? j_int64(res, "TTL", &ttl) : -1;
    pthread_mutex_lock(&e->lease_mu);
    if (e->lease != id) { /* replaced meanwhile */
        pthread_mutex_unlock(&e->lease_mu);
        json_decref(ans);
        return claim_mono_ms();
    }
    if (rc == 0 && have_ttl == 1 && ttl > 0) {
        atomic_fetch_add_explicit(&c->renewals, 1, memory_order_relaxed);
        int64_t t = ttl * 1000 < e->lease_ttl_ms ? ttl * 1000 : e->lease_ttl_ms;
        e->deadline = sent + t - (int64_t)c->o.margin_ms;
        e->next_renew = sent + e->lease_ttl_ms / 3;
        if (e->lapsed_logged)
            claim_log(c, TOID_CLAIM_LOG_INFO, "etcd %s: lease renewed again", url);
        e->lapsed_logged = 0;
        int64_t d = e->deadline;
        pthread_mutex_unlock(&e->lease_mu);
        claim_set_deadlines(c, d);
        renewed = 1;
    } else if (rc == 0 && res && (have_ttl == 0 || (have_ttl == 1 && ttl <= 0))) {
        /* etcd answers a keepalive of a dead lease (expired or revoked) with
         * 200 and no TTL (a TTL of 0 is omitted from its JSON); "TTL":"0"
         * says the same: the lease is gone, and the node keys with it */
        atomic_fetch_add_explicit(&c->renewal_failures, 1, memory_order_relaxed);
        e->lease = 0;
        pthread_mutex_unlock(&e->lease_mu);
        char why[400];
        snprintf(why, sizeof why, "etcd %s says lease %" PRId64 " is gone (expired or revoked)",
                 url, id);
        claim_log(c, TOID_CLAIM_LOG_ERR, "%s: its claims are lost", why);
        claim_lose_all(c, why);
        pthread_mutex_lock(&e->orphan_mu);
        orphans_free(e); /* (their keys went with the lease) */
        pthread_mutex_unlock(&e->orphan_mu);
    } else {
        atomic_fetch_add_explicit(&c->renewal_failures, 1, memory_order_relaxed);
        if (rc == 0)
            claim_log(c, TOID_CLAIM_LOG_ERR, "etcd %s: keepalive answer not understood", url);
        /* try again soon, until the deadline tells admits to stop */
        e->next_renew = claim_mono_ms() + (e->lease_ttl_ms / 10 > 100 ? e->lease_ttl_ms / 10 : 100);
        if (claim_mono_ms() >= e->deadline && !e->lapsed_logged) {
            e->lapsed_logged = 1;
            claim_log(c, TOID_CLAIM_LOG_ERR, "etcd: lease %" PRId64 " not renewed in time: "
                      "past the claims' deadline, no IDs of their nodes until a renewal "
                      "succeeds", id);
        }
        pthread_mutex_unlock(&e->lease_mu);
    }
    json_decref(ans);
    if (renewed)
        orphans_delete(c); /* etcd answers again: the keys left behind go */
    pthread_mutex_lock(&e->lease_mu);
    next = e->next_renew;
    pthread_mutex_unlock(&e->lease_mu);
    return next;
}

/* ---- keys and values ------------------------------------------------------------ */

static void node_key(const toid_claimer *c, toid_format f, uint32_t n, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/%s/nodes/%04" PRIu32, c->prefix, toid_format_get(f)->name, n);
}

static void mark_key(const toid_claimer *c, toid_format f, uint32_t n, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/%s/marks/%04" PRIu32, c->prefix, toid_format_get(f)->name, n);
}

/* A kv's value, decoded and parsed as JSON with "toid": kind; NULL if it is
 * not (foreign data). */
static json_t *kv_json(const json_t *kv, const char *kind) {
    const char *v = json_string_value(json_object_get(kv, "value"));
    size_t n;
    char *raw = v ? b64_decode(v, &n) : NULL;
    if (!raw)
        return NULL;
    json_t *j = json_loadb(raw, n, 0, NULL);
    free(raw);
    const char *k = json_string_value(json_object_get(j, "toid"));
    if (!json_is_object(j) || !k || strcmp(k, kind) != 0) {
        json_decref(j);
        return NULL;
    }
    return j;
}

/* "host H, pid P" from a node key's value, for messages. */
static void describe_holder(const json_t *holder, char *buf, size_t cap) {
    const char *host = json_string_value(json_object_get(holder, "host"));
    json_int_t pid = json_integer_value(json_object_get(holder, "pid"));
    snprintf(buf, cap, "host %s, pid %lld", host ? host : "?", (long long)pid);
}

/* The kvs of a range response inside a txn's responses[i] ("response_range"). */
static json_t *txn_kvs(const json_t *ans, size_t i) {
    json_t *r = json_array_get(json_object_get(ans, "responses"), i);
    return json_object_get(json_object_get(r, "response_range"), "kvs");
}

/* The node keys of f in [lo, hi]: held[n - lo] = 1 for each, and (who not
 * NULL) who[n - lo] = its holder's host and pid. */
static int node_keys(toid_claimer *c, toid_format f, uint32_t lo, uint32_t hi, uint8_t *held,
                     char (*who)[64]) {
    char from[320], to[320];
    node_key(c, f, 0, from, sizeof from);
    from[strlen(from) - 4] = '\0'; /* ".../nodes/" */
    snprintf(to, sizeof to, "%s", from);
    to[strlen(to) - 1] = '/' + 1;  /* ".../nodes0": the end of the prefix */
    json_t *body = j_object(), *ans;
    json_object_set_new(body, "key", j_b64(from));
    json_object_set_new(body, "range_end", j_b64(to));
    const char *url;
    int64_t sent;
    int rc = call(c, "/v3/kv/range", body, &ans, &url, &sent);
    json_decref(body);
    if (rc < 0)
        return rc;
    json_t *kvs = json_object_get(ans, "kvs");
    if (!json_object_get(ans, "header") || (kvs && !json_is_array(kvs))) {
        claim_log(c, TOID_CLAIM_LOG_ERR, "etcd %s: a range of %s* answered something that is "
                  "not etcd's", url, from);
        json_decref(ans);
        return TOID_CLAIM_EIO;
    }
    size_t i;
    json_t *kv;
    size_t plen = strlen(from);
    json_array_foreach(kvs, i, kv) {
        const char *k64 = json_string_value(json_object_get(kv, "key"));
        size_t kn;
        char *key = k64 ? b64_decode(k64, &kn) : NULL;
        if (!key || kn != plen + 4 || memcmp(key, from, plen) != 0) {
            free(key);
            continue; /* not a node key (deeper, or another name): not ours to judge */
        }
        char *end;
        unsigned long n = strtoul(key + plen, &end, 10);
        json_t *holder = NULL;
        if (*end || n < lo || n > hi) {
            free(key);
            continue;
        }
        if (!(holder = kv_json(kv, "node"))) {
            claim_log(c, TOID_CLAIM_LOG_ERR, "etcd %s: key %s holds foreign data (not a toid "
                      "claim): refusing to guess whether node %lu is free; remove the key",
                      url, key, n);
            free(key);
            json_decref(ans);
            return TOID_CLAIM_ECORRUPT;
        }
        if (who)
            describe_holder(holder, who[n - lo], sizeof who[n - lo]);
        json_decref(holder);
        free(key);
        held[n - lo] = 1;
    }
    json_decref(ans);
    return 0;
}

static int etcd_held(toid_claimer *c, toid_format f, uint32_t lo, uint32_t hi, uint8_t *held) {
    return node_keys(c, f, lo, hi, held, NULL);
}

static void etcd_holders(toid_claimer *c, toid_format f, uint32_t lo, uint32_t hi, char (*who)[64]) {
    uint8_t *held = calloc((size_t)(hi - lo) + 1, 1);
    if (held)
        node_keys(c, f, lo, hi, held, who);
    free(held);
}

/* Reads the mark from a range's kvs into *prev (INT64_MIN if there is
 * none) and its mod_revision into *rev (0 if none); 0, or ECORRUPT. */
static int parse_mark(toid_claimer *c, toid_claim *k, const json_t *kvs, const char *url,
                      int64_t *prev, int64_t *rev) {
    etcd_claim *ec = k->bk;
    json_t *kv = json_array_get(kvs, 0);
    *prev = INT64_MIN;
    *rev = 0;
    if (!kv)
        return 0;
    json_t *m = kv_json(kv, "mark");
    int64_t epoch = 0, mark = 0, node = -1, mod = 0;
    const char *fmt = json_string_value(json_object_get(m, "format"));
    if (!m || !fmt || j_int64(m, "epoch_ms", &epoch) != 1 || j_int64(m, "mark_ms", &mark) != 1 ||
        j_int64(m, "node", &node) != 1 || strcmp(fmt, toid_format_get(k->format)->name) != 0 ||
        node != (int64_t)k->node || j_int64(kv, "mod_revision", &mod) != 1 || mod <= 0) {
        claim_log(c, TOID_CLAIM_LOG_ERR, "etcd %s: key %s holds foreign data (not a toid mark "
                  "for %s): the IDs issued before cannot be ruled out; refusing it", url,
                  ec->mark_key, k->name);
        json_decref(m);
        return TOID_CLAIM_ECORRUPT;
    }
    json_decref(m);
    if (epoch != k->epoch_ms) {
        k->other_epoch = 1;    /* (in a range search the node is passed over) */
        claim_log(c, k->single ? TOID_CLAIM_LOG_ERR : TOID_CLAIM_LOG_WARN,
                  "etcd %s: key %s was written for another epoch (%" PRId64 " ms) than the "
                  "configured %" PRId64 " ms: IDs could repeat; %s", url, ec->mark_key, epoch,
                  k->epoch_ms, k->single ? "refusing it" : "passing the node over");
        return TOID_CLAIM_ECORRUPT;
    }
    *prev = mark;
    *rev = mod;
    return 0;
}

static int etcd_take(toid_claimer *c, toid_claim *k, int64_t *prev) {
    etcd *e = ED(c);
    etcd_claim *ec = calloc(1, sizeof *ec);
    if (!ec) {
        claim_log(c, TOID_CLAIM_LOG_ERR, "out of memory");
        return TOID_CLAIM_EIO;
    }
    node_key(c, k->format, k->node, ec->node_key, sizeof ec->node_key);
    mark_key(c, k->format, k->node, ec->mark_key, sizeof ec->mark_key);
    k->bk = ec;
    pthread_mutex_lock(&e->lease_mu);
    int rc = lease_ensure(c);
    int64_t lease = e->lease, deadline = e->deadline;
    pthread_mutex_unlock(&e->lease_mu);
    if (rc < 0)
        goto fail;
    /* if create_revision(node) == 0: put it with our lease; either way read
     * the node and the mark */
    json_t *body = json_pack(
        "{s:[{s:o,s:s,s:s,s:s}],s:[{s:{s:o,s:o,s:o}},{s:{s:o}}],s:[{s:{s:o}},{s:{s:o}}]}",
        "compare", "key", j_b64(ec->node_key), "target", "CREATE", "create_revision", "0",
        "result", "EQUAL",
        "success", "request_put", "key", j_b64(ec->node_key), "value", j_b64(e->holder), "lease",
        j_i64(lease), "request_range", "key", j_b64(ec->mark_key),
        "failure", "request_range", "key", j_b64(ec->node_key), "request_range", "key",
        j_b64(ec->mark_key));
    json_t *ans = NULL;
    const char *url;
    int64_t sent;
    rc = body ? call(c, "/v3/kv/txn", body, &ans, &url, &sent) : TOID_CLAIM_EIO;
    json_decref(body);
    if (rc < 0)
        goto fail;
    int64_t rev = 0;
    json_t *hdr = json_object_get(ans, "header");
    json_t *resp = json_object_get(ans, "responses");
    if (!hdr || j_int64(hdr, "revision", &rev) != 1 || !json_is_array(resp) ||
        json_array_size(resp) != 2) {
        const char *err = json_string_value(json_object_get(ans, "error"));
        claim_log(c, TOID_CLAIM_LOG_ERR, "etcd %s: the claim of %s was not understood%s%s", url,
                  ec->node_key, err ? ": " : "", err ? err : "");
        rc = TOID_CLAIM_EIO;
        goto fail_ans;
    }
    if (json_is_true(json_object_get(ans, "succeeded"))) {
        ec->create_rev = rev; /* the put's revision is the key's create_revision */
    } else {
        json_t *kv = json_array_get(txn_kvs(ans, 0), 0);
        json_t *holder = kv ? kv_json(kv, "node") : NULL;
        int64_t their_lease = 0, crev = 0;
        if (kv && !holder) {
            claim_log(c, TOID_CLAIM_LOG_ERR, "etcd %s: key %s holds foreign data (not a toid "
                      "claim): refusing it; remove the key", url, ec->node_key);
            rc = TOID_CLAIM_ECORRUPT;
            goto fail_ans;
        }
        if (kv && j_int64(kv, "lease", &their_lease) == 1 && their_lease == lease &&
            j_int64(kv, "create_revision", &crev) == 1 &&
            !claim_held_here(c, k->format, k->node)) {
            /* ours, though no claim of ours has it: an earlier attempt of this
             * txn was applied, then its answer was lost and we failed over; or
             * an orphan (a claim of ours given up in an outage) */
            orphan_forget(e, ec->node_key, crev);
            ec->create_rev = crev;
        } else {
            if (k->single) {
                char who[300] = "gone since";
                if (holder)
                    describe_holder(holder, who, sizeof who);
                claim_log(c, TOID_CLAIM_LOG_ERR, "%s node %" PRIu32 " is held by another "
                          "generator (%s; etcd key %s): refusing a second generator with the "
                          "same id", toid_format_get(k->format)->name, k->node, who,
                          ec->node_key);
            }
            json_decref(holder);
            rc = TOID_CLAIM_EBUSY;
            goto fail_ans;
        }
        json_decref(holder);
    }
    rc = parse_mark(c, k, txn_kvs(ans, 1), url, prev, &ec->mark_rev);
    ec->mark_val = *prev;
    ec->mark_foreign = 1;
    json_decref(ans);
    if (rc < 0) {
        k->bk = ec; /* give it back: the node is ours now */
        c->be->drop(k, 1);
        return rc;
    }
    atomic_store(&k->deadline_mono, deadline);
    return 0;
fail_ans:
    json_decref(ans);
fail:
    free(ec);
    k->bk = NULL;
    return rc;
}

/* Deletes node_key if it is still the one made at create_rev (ours). 1:
 * deleted, 0: not ours (gone, or another holder's), or an error. */
static int delete_if_ours(toid_claimer *c, const char *node_key, int64_t create_rev,
                          const char **url) {
    json_t *body = json_pack("{s:[{s:o,s:s,s:o,s:s}],s:[{s:{s:o}}]}", "compare", "key",
                             j_b64(node_key), "target", "CREATE", "create_revision",
                             j_i64(create_rev), "result", "EQUAL", "success",
                             "request_delete_range", "key", j_b64(node_key));
    json_t *ans;
    int64_t sent;
    int rc = body ? call(c, "/v3/kv/txn", body, &ans, url, &sent) : TOID_CLAIM_EIO;
    json_decref(body);
    if (rc < 0)
        return rc;
    if (!json_object_get(ans, "header")) {
        const char *err = json_string_value(json_object_get(ans, "error"));
        claim_log(c, TOID_CLAIM_LOG_ERR, "etcd %s: a txn on %s was not understood%s%s", *url,
                  node_key, err ? ": " : "", err ? err : "");
        json_decref(ans);
        return TOID_CLAIM_EIO;
    }
    rc = json_is_true(json_object_get(ans, "succeeded"));
    json_decref(ans);
    return rc;
}

/* ---- orphans (see struct orphan) ------------------------------------------------ */

/* Called with orphan_mu held, or in a child of fork() (no lock). */
static void orphans_free(etcd *e) {
    while (e->orphans) {
        orphan *o = e->orphans;
        e->orphans = o->next;
        free(o);
    }
}

static void orphan_add(toid_claimer *c, const char *key, int64_t create_rev) {
    etcd *e = ED(c);
    orphan *o = calloc(1, sizeof *o);
    if (!o) {
        claim_log(c, TOID_CLAIM_LOG_ERR, "etcd: out of memory: %s stays until the lease ends",
                  key);
        return;
    }
    snprintf(o->key, sizeof o->key, "%s", key);
    o->create_rev = create_rev;
    pthread_mutex_lock(&e->orphan_mu);
    o->next = e->orphans;
    e->orphans = o;
    pthread_mutex_unlock(&e->orphan_mu);
    claim_log(c, TOID_CLAIM_LOG_WARN, "etcd: %s was not deleted (no answer): it is deleted when "
              "etcd answers again", key);
}

/* The thread's, after a renewal etcd answered: deletes the orphans, until
 * etcd fails to answer one (the rest wait for the next renewal). */
static void orphans_delete(toid_claimer *c) {
    etcd *e = ED(c);
    pthread_mutex_lock(&e->orphan_mu);
    while (e->orphans) {
        orphan *o = e->orphans;
        const char *url = "";
        int rc = delete_if_ours(c, o->key, o->create_rev, &url);
        if (rc < 0)
            break;
        claim_log(c, TOID_CLAIM_LOG_INFO, "etcd %s: %s, left behind when its claim was given "
                  "up while etcd did not answer, %s", url, o->key,
                  rc == 1 ? "deleted" : "is gone already (or another holder's)");
        e->orphans = o->next;
        free(o);
    }
    pthread_mutex_unlock(&e->orphan_mu);
}

/* key (made at create_rev) is taken over by a new claim: no longer an orphan
 * to delete. (One the thread deleted a moment ago, after take's txn read it,
 * is not found here: that claim then fails its first guarded mark write, as
 * lost, and the next attempt finds the node free.) */
static void orphan_forget(etcd *e, const char *key, int64_t create_rev) {
    pthread_mutex_lock(&e->orphan_mu);
    for (orphan **p = &e->orphans; *p; p = &(*p)->next)
        if ((*p)->create_rev == create_rev && strcmp((*p)->key, key) == 0) {
            orphan *o = *p;
            *p = o->next;
            free(o);
            break;
        }
    pthread_mutex_unlock(&e->orphan_mu);
}

/* One guarded write of the mark: "if the node key is still ours and the
 * mark key is at mark_rev, put mark; else read both". 1: written (mark_rev
 * moved to the txn's revision); 0: a compare failed, *node_ours says
 * whether the node key is still ours, and *cur and *cur_rev are the mark as it
 * is now; or an error. */
static int mark_txn(toid_claim *k, int64_t mark, int64_t until, const char **url, int *node_ours,
                    int64_t *cur, int64_t *cur_rev) {
    etcd_claim *ec = k->bk;
    char value[256];
    snprintf(value, sizeof value, "{\"toid\":\"mark\",\"format\":\"%s\",\"node\":%" PRIu32
             ",\"epoch_ms\":%" PRId64 ",\"mark_ms\":%" PRId64 "}",
             toid_format_get(k->format)->name, k->node, k->epoch_ms, mark);
    json_t *body = json_pack(
        "{s:[{s:o,s:s,s:o,s:s},{s:o,s:s,s:o,s:s}],s:[{s:{s:o,s:o}}],"
        "s:[{s:{s:o}},{s:{s:o}}]}",
        "compare", "key", j_b64(ec->node_key), "target", "CREATE", "create_revision",
        j_i64(ec->create_rev), "result", "EQUAL", "key", j_b64(ec->mark_key), "target", "MOD",
        "mod_revision", j_i64(ec->mark_rev), "result", "EQUAL",
        "success", "request_put", "key", j_b64(ec->mark_key), "value", j_b64(value),
        "failure", "request_range", "key", j_b64(ec->node_key), "request_range", "key",
        j_b64(ec->mark_key));
    json_t *ans = NULL;
    int64_t sent, rev = 0;
    int rc = body ? call_until(k->c, "/v3/kv/txn", body, &ans, url, &sent, until)
                  : TOID_CLAIM_EIO;
    json_decref(body);
    if (rc < 0)
        return rc;
    json_t *hdr = json_object_get(ans, "header");
    if (!hdr || j_int64(hdr, "revision", &rev) != 1 || rev <= 0) {
        const char *err = json_string_value(json_object_get(ans, "error"));
        claim_log(k->c, TOID_CLAIM_LOG_ERR, "etcd %s: a write of %s was not understood%s%s",
                  *url, ec->mark_key, err ? ": " : "", err ? err : "");
        json_decref(ans);
        return TOID_CLAIM_EIO;
    }
    if (json_is_true(json_object_get(ans, "succeeded"))) {
        ec->mark_rev = rev; /* one txn, one revision: the put's mod_revision */
        ec->mark_val = mark;
        ec->mark_foreign = 0;
        json_decref(ans);
        return 1;
    }
    json_t *node = json_array_get(txn_kvs(ans, 0), 0);
    int64_t crev = 0;
    *node_ours = node && j_int64(node, "create_revision", &crev) == 1 && crev == ec->create_rev;
    rc = *node_ours ? parse_mark(k->c, k, txn_kvs(ans, 1), *url, cur, cur_rev) : 0;
    json_decref(ans);
    return rc;
}

static int etcd_write_mark(toid_claim *k, int64_t mark, int64_t until) {
    etcd_claim *ec = k->bk;
    const char *url = "";
    if (ec->mark_foreign && mark <= ec->mark_val)
        return 0; /* someone else's higher mark is there: durable already, kept */
    /* A few rounds: each refusal means someone wrote the mark since we last
     * saw it (a delayed write of ours, or an operator); we read it again. */
    for (int round = 0; round < 4; round++) {
        int ours = 0;
        int64_t cur = INT64_MIN, cur_rev = 0;
        int rc = mark_txn(k, mark, until, &url, &ours, &cur, &cur_rev);
        if (rc != 0)
            return rc < 0 ? rc : 0;
        if (!ours) {
            claim_log(k->c, TOID_CLAIM_LOG_ERR, "etcd %s: %s is no longer ours (another holder, "
                      "or expired): its mark was not moved", url, ec->node_key);
            return TOID_CLAIM_ELOST;
        }
        ec->mark_rev = cur_rev;
        ec->mark_val = cur;
        ec->mark_foreign = 1;
        if (cur >= mark) {
            /* already at or past ours: durable as far as we need; never lowered */
            claim_log(k->c, TOID_CLAIM_LOG_INFO, "etcd %s: the mark of %s was moved to %" PRId64
                      " by another write; %" PRId64 " is not written over it", url, k->name, cur,
                      mark);
            return 0;
        }
        claim_log(k->c, TOID_CLAIM_LOG_WARN, "etcd %s: the mark of %s was changed to %" PRId64
                  " by another write (revision %" PRId64 "): writing %" PRId64 " over it", url,
                  k->name, cur, cur_rev, mark);
    }
    claim_log(k->c, TOID_CLAIM_LOG_ERR, "etcd %s: the mark of %s keeps changing under its holder: "
              "not written", url, k->name);
    return TOID_CLAIM_EIO;
}

static void etcd_drop(toid_claim *k, int io) {
    etcd_claim *ec = k->bk;
    if (!ec)
        return;
    /* delete the node key if it is still ours (else it is gone already);
     * not from a child of fork(): the parent holds it */
    if (io && !atomic_load(&k->lost)) {
        const char *url = "";
        if (delete_if_ours(k->c, ec->node_key, ec->create_rev, &url) < 0)
            orphan_add(k->c, ec->node_key, ec->create_rev);
    }
    free(ec);
    k->bk = NULL;
}

/* ---- open / close ----------------------------------------------------------------- */


static int etcd_open(toid_claimer *c, const char *arg, char *err, size_t err_size) {
    if (arg[0] != '=' || !arg[1]) {
        claim_err(err, err_size, "'etcd' needs endpoints: etcd=URL[,URL...], e.g. "
                  "etcd=http://127.0.0.1:2379");
        return TOID_EINVAL;
    }
    const char *why = NULL;
    if (!curl_lazy(&why)) {
        claim_err(err, err_size, "etcd claims need libcurl: %s", why);
        return TOID_CLAIM_EIO;
    }
    etcd *e = calloc(1, sizeof *e);
    if (!e) {
        claim_err(err, err_size, "out of memory");
        return TOID_CLAIM_EIO;
    }
    const char *p = arg + 1;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        while (n > 0 && p[n - 1] == '/')
            n--;
        int scheme = (n > 7 && strncmp(p, "http://", 7) == 0) || (n > 8 && strncmp(p, "https://", 8) == 0);
        if (!scheme || e->n_urls == MAX_URLS || n > 900 || memchr(p, ' ', n)) {
            claim_err(err, err_size, "bad etcd endpoint '%.*s' (http://HOST:PORT or "
                      "https://HOST:PORT, at most %d)", (int)(n > 200 ? 200 : n), p, MAX_URLS);
            for (int i = 0; i < e->n_urls; i++)
                free(e->urls[i]);
            free(e);
            return TOID_EINVAL;
        }
        e->urls[e->n_urls++] = strndup(p, n);
        p = comma ? comma + 1 : p + strlen(p);
    }
    char host[200] = "?";
    gethostname(host, sizeof host - 1);
    json_t *h = json_pack("{s:s,s:s,s:I,s:I}", "toid", "node", "host", host, "pid",
                          (json_int_t)getpid(), "start_ms", (json_int_t)toid_clock_now(NULL));
    char *ht = h ? json_dumps(h, JSON_COMPACT) : NULL;
    snprintf(e->holder, sizeof e->holder, "%s", ht ? ht : "{\"toid\":\"node\"}");
    free(ht);
    json_decref(h);
    pthread_mutex_init(&e->pool_mu, NULL);
    pthread_mutex_init(&e->lease_mu, NULL);
    pthread_mutex_init(&e->orphan_mu, NULL);
    c->bk = e;
    return 0;
}

static void etcd_close(toid_claimer *c, int io) {
    etcd *e = ED(c);
    if (!io) {
        /* A child of fork(): the lease and the connections are the parent's.
         * No revoke, no curl cleanup (a TLS close would write on the
         * parent's connection), no mutex (a thread that did not follow the
         * fork may have held one): the memory only. */
        for (int i = 0; i < e->n_urls; i++)
            free(e->urls[i]);
        orphans_free(e);
        free(e);
        c->bk = NULL;
        return;
    }
    if (e->lease) {
        json_t *body = j_object(), *ans = NULL;
        json_object_set_new(body, "ID", j_i64(e->lease));
        const char *url;
        int64_t sent;
        if (call(c, "/v3/lease/revoke", body, &ans, &url, &sent) == 0)
            json_decref(ans);
        json_decref(body);
    }
    orphans_free(e); /* (the revoke took their keys; without it, they end with the lease) */
    for (int i = 0; i < e->n_pool; i++)
        CU()->easy_cleanup(e->pool[i]);
    for (int i = 0; i < e->n_urls; i++)
        free(e->urls[i]);
    pthread_mutex_destroy(&e->pool_mu);
    pthread_mutex_destroy(&e->lease_mu);
    pthread_mutex_destroy(&e->orphan_mu);
    free(e);
    c->bk = NULL;
}

const claim_backend claim_backend_etcd = {
    .kind = "etcd",
    .info = {.kind = "etcd", .shared_by_hosts = 1, .leases = 1, .takes_prefix_ttl = 1},
    .open = etcd_open,
    .held = etcd_held,
    .holders = etcd_holders,
    .take = etcd_take,
    .write_mark = etcd_write_mark,
    .taken = NULL,
    .drop = etcd_drop,
    .tick = etcd_tick,
    .close = etcd_close,
};
