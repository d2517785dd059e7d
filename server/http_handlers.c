/* http_handlers.c — the HTTP API: /v1/new, /v1/inspect, /v1/range,
 * /v1/convert, /v1/formats, /healthz, /metrics; the page and /v1/layout
 * come from page.c. */
#define _GNU_SOURCE
#include "handlers.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "claims.h"
#include "ids.h"
#include "metrics.h"
#include "page.h"

const char http_refusal[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
                            "Content-Length: 21\r\nRetry-After: 1\r\nConnection: close\r\n\r\n"
                            "too many connections\n";

static const char *reason(int status) {
    switch (status) {
    case 200: return "OK";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
    }
}

/* "Date: ..." for this second, cached per thread. */
static const char *date_header(void) {
    static _Thread_local char buf[64];
    static _Thread_local time_t last;
    time_t now = time(NULL);
    if (now != last) {
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(buf, sizeof buf, "Date: %a, %d %b %Y %H:%M:%S GMT\r\n", &tm);
        last = now;
    }
    return buf;
}

typedef struct reply {
    int status;
    const char *ctype;
    const char *extra;     /* more header lines, each ending in CRLF, or NULL */
    int keep_alive;
    int head;              /* HEAD: no body */
    int http10;            /* an HTTP/1.0 client: keep-alive must be said */
    const char *cors;      /* --cors: the Access-Control-Allow-Origin value, or NULL */
} reply;

static int emit(sbuf *out, const reply *r, const char *body, size_t blen) {
    int rc = sbuf_printf(out, "HTTP/1.1 %d %s\r\nServer: toidd\r\n%s", r->status,
                         reason(r->status), date_header());
    if (r->status == 204)   /* no body and no Content-Length (RFC 9110 8.6) */
        blen = 0;
    else
        rc |= sbuf_printf(out, "Content-Type: %s\r\nContent-Length: %zu\r\n", r->ctype, blen);
    if (r->cors)
        rc |= sbuf_printf(out, "Access-Control-Allow-Origin: %s\r\n", r->cors);
    rc |= sbuf_printf(out, "%s%s\r\n",
                      r->keep_alive ? (r->http10 ? "Connection: keep-alive\r\n" : "")
                                    : "Connection: close\r\n",
                      r->extra ? r->extra : "");
    if (rc == 0 && !r->head)
        rc = sbuf_add(out, body, blen);
    if (rc == 0)   /* (a response that did not fit is answered again: counted then) */
        METRIC_ADD(http_status[r->status], 1);
    return rc;
}

/* A JSON string's characters (the messages here are ASCII without quotes,
 * but an ID echoed back may hold anything). */
static void json_escape(sbuf *b, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\')
            sbuf_printf(b, "\\%c", ch);
        else if (ch < 0x20 || ch >= 0x7f)
            sbuf_printf(b, "\\u%04x", ch);
        else
            sbuf_add(b, &s[i], 1);
    }
}

/* An error: JSON {"error":..., "message":...} if the client wants JSON,
 * otherwise a line of text. */
static int error_reply(sbuf *out, scratch *sc, reply r, int json, const char *cls,
                       const char *msg, long pos) {
    sbuf_reset(&sc->body);
    if (json) {
        sbuf_printf(&sc->body, "{\"error\":\"%s\",\"message\":\"", cls);
        json_escape(&sc->body, msg, strlen(msg));
        if (pos >= 0)
            sbuf_printf(&sc->body, "\",\"position\":%ld}\n", pos);
        else
            sbuf_str(&sc->body, "\"}\n");
        r.ctype = "application/json";
    } else {
        sbuf_printf(&sc->body, "%s\n", msg);
        r.ctype = "text/plain; charset=utf-8";
    }
    return emit(out, &r, sc->body.data, sc->body.len);
}

/* 404 for a name that is no format, in the library's words (a near name
 * suggested: toid_format_name_error), as every front end says it. */
static int unknown_format(sbuf *out, scratch *sc, reply r, int json, const char *name, size_t n) {
    char msg[300];
    if (toid_format_name_error(name, n, msg, sizeof msg) < 0)
        snprintf(msg, sizeof msg, "unknown format");
    r.status = 404;
    return error_reply(out, sc, r, json, "not_found", msg, -1);
}

void http_reply_error(sbuf *out, int status, const char *msg) {
    reply r = {status, "text/plain; charset=utf-8", NULL, 0, 0, 0, NULL};
    char body[160];
    int n = snprintf(body, sizeof body, "%s\n", msg);
    emit(out, &r, body, (size_t)n < sizeof body ? (size_t)n : sizeof body - 1);
}

void http_reply_timeout(sbuf *out) { http_reply_error(out, 408, "request not completed in time"); }

/* Percent-decodes s[0..n) into dst (n bytes are enough). Returns the length,
 * or -1 for a malformed escape, or for an encoded '/' when no_slash (a path
 * is split at its literal slashes only, so an encoded one is refused rather
 * than guessed at). */
static long pct_decode(const char *s, size_t n, char *dst, int no_slash) {
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '%') {
            dst[j++] = s[i];
            continue;
        }
        int hi = i + 2 < n ? hex_value(s[i + 1]) : -1, lo = hi >= 0 ? hex_value(s[i + 2]) : -1;
        if (lo < 0 || (no_slash && hi * 16 + lo == '/'))
            return -1;
        dst[j++] = (char)(hi * 16 + lo);
        i += 2;
    }
    return (long)j;
}

/* The next name=value pair of the query q[0..n) from *at (pairs split at
 * '&', empty ones skipped): 1 with the name and the value percent-decoded
 * into name (ncap bytes) and value (vcap), *nl and *vl their lengths (-1:
 * no '=', longer than the buffer, or a bad escape), and the name as sent
 * in *raw, *rawl; 0 at the end. '+' is itself (a space is %20). */
static int query_next(const char *q, size_t n, size_t *at, char *name, size_t ncap, long *nl,
                      char *value, size_t vcap, long *vl, const char **raw, size_t *rawl) {
    size_t i = *at;
    while (i < n && q[i] == '&')
        i++;
    if (i >= n)
        return 0;
    size_t s = i;
    while (i < n && q[i] != '&')
        i++;
    *at = i;
    const char *eq = memchr(q + s, '=', i - s);
    *raw = q + s;
    *rawl = eq ? (size_t)(eq - (q + s)) : i - s;
    *nl = *vl = -1;
    if (eq && *rawl <= ncap && (size_t)(q + i - eq - 1) <= vcap) {
        *nl = pct_decode(q + s, *rawl, name, 0);
        *vl = pct_decode(eq + 1, (size_t)(q + i - eq - 1), value, 0);
    }
    return 1;
}

/* The longest time text /v1/range and /v1/new's at= take (percent-encoded:
 * the decoded one is no longer). */
#define TIME_TEXT_MAX 96

/* /v1/new's parameters: count=N (from 0 to max; default 1) and at=TIME (an
 * ID at that time, its first ms: TIME_TEXT_MAX bytes into at, *atl its
 * length, -1 without), each at most once (which of two was meant cannot be
 * told: neither is taken). 0, or -1 with the error message in msg. */
static int parse_query(const char *q, size_t n, unsigned max, unsigned long *count, char *at_text,
                       long *atl, char *msg, size_t cap) {
    *count = 1;
    *atl = -1;
    int seen = 0;
    size_t at = 0, rawl;
    char name[16], value[TIME_TEXT_MAX];
    long nl, vl;
    const char *raw;
    while (query_next(q, n, &at, name, sizeof name, &nl, value, sizeof value, &vl, &raw, &rawl)) {
        int is_count = nl == 5 && memcmp(name, "count", 5) == 0;
        int is_at = nl == 2 && memcmp(name, "at", 2) == 0;
        if (is_count && seen) {
            snprintf(msg, cap, "the parameter count is given more than once: give it once, an "
                               "integer from 0 to %u", max);
            return -1;
        }
        if (is_at && *atl >= 0) {
            snprintf(msg, cap, "the parameter at is given more than once: give it once");
            return -1;
        }
        if (is_at) {
            if (vl < 1) {
                snprintf(msg, cap, "at: not a time of at most %d characters, percent-encoded",
                         TIME_TEXT_MAX);
                return -1;
            }
            memcpy(at_text, value, (size_t)vl);
            *atl = vl;
            continue;
        }
        seen |= is_count;
        unsigned long v = 0;
        int ok = is_count && vl >= 1 && vl <= 7;
        for (long k = 0; ok && k < vl; k++) {
            if (value[k] < '0' || value[k] > '9')
                ok = 0;
            else
                v = v * 10 + (unsigned long)(value[k] - '0');
        }
        if (!ok || v > max) {
            snprintf(msg, cap, "the parameters are count, an integer from 0 to %u, and at=TIME", max);
            return -1;
        }
        *count = v;
    }
    return 0;
}

/* from=TIME and to=TIME (optional) of /v1/range, each at most once, into
 * from and to (TIME_TEXT_MAX bytes each; *tl -1 without to). 0, or -1 with
 * the error message in msg. */
static int parse_range_query(const char *q, size_t n, char *from, long *fl, char *to, long *tl,
                             char *msg, size_t cap) {
    size_t at = 0, rawl;
    char name[8], value[TIME_TEXT_MAX];
    long nl, vl;
    const char *raw;
    *fl = *tl = -1;
    while (query_next(q, n, &at, name, sizeof name, &nl, value, sizeof value, &vl, &raw, &rawl)) {
        int is_from = nl == 4 && memcmp(name, "from", 4) == 0;
        int is_to = nl == 2 && memcmp(name, "to", 2) == 0;
        if (!is_from && !is_to) {
            snprintf(msg, cap, "the parameters are from=TIME and to=TIME (got '%.*s%s')",
                     (int)(rawl < 32 ? rawl : 32), raw, rawl > 32 ? "..." : "");
            return -1;
        }
        if (is_from ? *fl >= 0 : *tl >= 0) {
            snprintf(msg, cap, "the parameter %s is given more than once: give it once",
                     is_from ? "from" : "to");
            return -1;
        }
        if (vl < 0) {
            snprintf(msg, cap, "%s: not a time of at most %d characters, percent-encoded "
                               "(too long, or a bad escape)", is_from ? "from" : "to", TIME_TEXT_MAX);
            return -1;
        }
        memcpy(is_from ? from : to, value, (size_t)vl);
        *(is_from ? fl : tl) = vl;
    }
    if (*fl < 0) {
        snprintf(msg, cap, "from=TIME is required (2024-01-01, 2024-01-01T10:30Z, now, ...)");
        return -1;
    }
    return 0;
}

/* The body length of n IDs of text length tl, as text lines or a JSON array
 * ("[]\n" for none). */
static size_t new_body_len(size_t n, size_t tl, int json) {
    return json ? (n ? 2 + n * (tl + 2) + (n - 1) + 1 : 3) : n * (tl + 1);
}

static int handle_new(sbuf *out, scratch *sc, reply r, int json, const char *name, size_t nlen,
                      const char *query, size_t qlen, const server_config *c) {
    toid_format f;
    char msg[128];
    if (ids_lookup(name, nlen, &f) < 0 || nlen == 0) {
        return unknown_format(out, sc, r, json, name, nlen);
    }
    unsigned long n;
    char at_text[TIME_TEXT_MAX];
    long atl;
    int64_t at_ms = 0;
    if (parse_query(query, qlen, c->max_count, &n, at_text, &atl, msg, sizeof msg) < 0) {
        r.status = 400;
        return error_reply(out, sc, r, json, "invalid", msg, -1);
    }
    if (atl >= 0 && toid_parse_time(at_text, (size_t)atl, &at_ms) < 0) {
        r.status = 400;
        return error_reply(out, sc, r, json, "invalid",
                           "at: not a time: expected " TOID_TIME_EXPECTED, -1);
    }
    size_t tl = toid_format_get(f)->text_len;
    if ((r.head || n == 0) && ids_enabled(f)) {
        /* HEAD is safe (RFC 9110 9.3.2): the headers GET would send, and no
         * IDs are made, so none is spent */
        r.ctype = json ? "application/json" : "text/plain; charset=utf-8";
        r.extra = "Cache-Control: no-store\r\n";
        return emit(out, &r, json ? "[]\n" : "", new_body_len(n, tl, json));
    }
    int rc = atl >= 0 ? ids_new_at(f, at_ms, sc->bin, n) : ids_new(f, sc->bin, n);
    if (rc < 0) {
        if (rc == IDS_EDISABLED || rc == IDS_EREADONLY) {
            r.status = 404;
        } else if (rc == IDS_EAT || rc == TOID_ERANGE) {
            r.status = 400;     /* the request asks for what cannot be made */
        } else if (ids_error_is_temporary(rc)) {
            r.status = 503;
            r.extra = "Retry-After: 1\r\n";
        } else {
            r.status = 500;
        }
        char why[256];     /* the library's words for a format that cannot be made at a time */
        if (rc != IDS_EAT || toid_at_time_explain(f, why, sizeof why) <= 0)
            snprintf(why, sizeof why, "%s", ids_strerror(rc));
        return error_reply(out, sc, r, json,
                           rc == IDS_EDISABLED || rc == IDS_EREADONLY ? "not_found"
                           : rc == IDS_EAT                           ? "invalid"
                                                                     : ids_err_name(rc),
                           why, -1);
    }
    size_t bs = toid_bin_size(f);
    sbuf_reset(&sc->body);
    char *w = sbuf_room(&sc->body, n * (TOID_TEXT_MAX + 3) + 4);
    if (!w)
        return -1;
    char *p = w;
    if (!json) {                /* lines: one call, one check for the batch */
        size_t written = 0;
        if (toid_encode_batch(f, sc->bin, n, '\n', p, n * (TOID_TEXT_MAX + 3) + 4, &written) < 0)
            return -1;
        p += written;
    } else {
        *p++ = '[';
        for (size_t i = 0; i < n; i++) {
            if (i)
                *p++ = ',';
            *p++ = '"';
            int len = toid_encode(f, sc->bin + i * bs, p, TOID_TEXT_MAX);
            if (len < 0)
                return -1;
            p += len;
            *p++ = '"';
        }
        *p++ = ']';
        *p++ = '\n';
    }
    sc->body.len += (size_t)(p - w);
    if (sc->body.len != new_body_len(n, tl, json))
        return -1;
    r.ctype = json ? "application/json" : "text/plain; charset=utf-8";
    r.extra = "Cache-Control: no-store\r\n";
    return emit(out, &r, sc->body.data, sc->body.len);
}

static int handle_inspect(sbuf *out, scratch *sc, reply r, const char *rest, size_t n) {
    const char *slash = memchr(rest, '/', n);
    int f = -1;
    const char *id = rest;
    size_t idlen = n;
    if (slash) {
        toid_format ff;
        if (ids_lookup(rest, (size_t)(slash - rest), &ff) < 0) {
            return unknown_format(out, sc, r, 1, rest, (size_t)(slash - rest));
        }
        f = (int)ff;
        id = slash + 1;
        idlen = n - (size_t)(slash - rest) - 1;
    }
    char json[640], why[200];
    size_t pos = 0;
    int len = ids_inspect(f, id, idlen, json, sizeof json, &pos, why, sizeof why);
    if (len < 0) {
        r.status = 400;
        return error_reply(out, sc, r, 1, len == IDS_ENOTDETECTED ? "undetected" : toid_err_name(len),
                           why, len == TOID_ECHAR ? (long)pos : -1);
    }
    json[len++] = '\n';
    r.ctype = "application/json";
    return emit(out, &r, json, (size_t)len);
}

/* /v1/range/FORMAT?from=TIME[&to=TIME] (ids_range_json). */
static int handle_range(sbuf *out, scratch *sc, reply r, const char *name, size_t nlen,
                        const char *query, size_t qlen) {
    toid_format f;
    if (nlen == 0 || ids_lookup(name, nlen, &f) < 0) {
        return unknown_format(out, sc, r, 1, name, nlen);
    }
    char from[TIME_TEXT_MAX], to[TIME_TEXT_MAX], msg[200];
    long fl, tl;
    if (parse_range_query(query, qlen, from, &fl, to, &tl, msg, sizeof msg) < 0) {
        r.status = 400;
        return error_reply(out, sc, r, 1, "invalid", msg, -1);
    }
    sbuf_reset(&sc->body);
    int rc = ids_range_json(f, from, (size_t)fl, tl >= 0 ? to : NULL, tl >= 0 ? (size_t)tl : 0,
                            &sc->body, msg, sizeof msg);
    if (rc == TOID_EBUFFER)
        return -1;
    if (rc < 0) {
        r.status = 400;
        return error_reply(out, sc, r, 1, toid_err_name(rc), msg, -1);
    }
    r.ctype = "application/json";
    return emit(out, &r, sc->body.data, sc->body.len);
}

/* /v1/convert/ID: a ULID or a UUID as both (ids_convert_json). */
static int handle_convert(sbuf *out, scratch *sc, reply r, const char *id, size_t n) {
    char json[128], why[200];
    size_t pos = 0;
    int len = ids_convert_json(id, n, json, sizeof json - 1, &pos, why, sizeof why);
    if (len == TOID_EBUFFER)
        return -1;
    if (len < 0) {
        r.status = 400;
        return error_reply(out, sc, r, 1, toid_err_name(len), why,
                           len == TOID_ECHAR ? (long)pos : -1);
    }
    json[len++] = '\n';
    r.ctype = "application/json";
    return emit(out, &r, json, (size_t)len);
}

/* What a route's handler answers with. */
typedef struct route_ctx {
    sbuf *out;
    scratch *sc;
    reply r;                /* status 200 and the request's headers, to adjust */
    int json;               /* the client prefers JSON (Accept) */
    const char *query;      /* after '?' (empty if none) */
    size_t query_len;
    const server_config *c;
    int draining;
} route_ctx;

/* A route's handler: rest is the path after the route's own (prefix
 * routes). Returns as emit. */
typedef int route_handler(route_ctx *x, const char *rest, size_t rest_len);

/* Readiness (/readyz, and /healthz as before): 503 while draining or while
 * a format cannot issue IDs now (claims_health: no node, claim lost or past
 * its deadline, a mark write stalled; ids_health: the clock behind), with a
 * line per format saying why; else 200 "ok". */
static int route_readyz(route_ctx *x, const char *rest, size_t rest_len) {
    (void)rest, (void)rest_len;
    sbuf_reset(&x->sc->body);
    if (x->draining) {
        x->r.status = 503;
        return emit(x->out, &x->r, "draining\n", 9);
    }
    int bad = claims_health(&x->sc->body);
    bad |= ids_health(&x->sc->body);
    if (bad) {
        x->r.status = 503;
        x->r.extra = "Retry-After: 1\r\n";
        return emit(x->out, &x->r, x->sc->body.data, x->sc->body.len);
    }
    return emit(x->out, &x->r, "ok\n", 3);
}

/* Liveness (/livez): the process answers; what it cannot serve is
 * readiness's business (a restart would not bring a disk or etcd back). */
static int route_livez(route_ctx *x, const char *rest, size_t rest_len) {
    (void)rest, (void)rest_len;
    return emit(x->out, &x->r, "ok\n", 3);
}

/* A body that fill writes into the scratch body, answered as ctype. */
static int emit_filled(route_ctx *x, int (*fill)(sbuf *), const char *ctype) {
    sbuf_reset(&x->sc->body);
    if (fill(&x->sc->body) < 0)
        return -1;
    x->r.ctype = ctype;
    return emit(x->out, &x->r, x->sc->body.data, x->sc->body.len);
}

static int route_metrics(route_ctx *x, const char *rest, size_t rest_len) {
    (void)rest, (void)rest_len;
    return emit_filled(x, metrics_render, "text/plain; version=0.0.4; charset=utf-8");
}

static int route_formats(route_ctx *x, const char *rest, size_t rest_len) {
    (void)rest, (void)rest_len;
    return emit_filled(x, ids_formats_json, "application/json");
}

static int route_new(route_ctx *x, const char *rest, size_t rest_len) {
    return handle_new(x->out, x->sc, x->r, x->json, rest, rest_len, x->query, x->query_len, x->c);
}

static int route_inspect(route_ctx *x, const char *rest, size_t rest_len) {
    return handle_inspect(x->out, x->sc, x->r, rest, rest_len);
}

static int route_range(route_ctx *x, const char *rest, size_t rest_len) {
    return handle_range(x->out, x->sc, x->r, rest, rest_len, x->query, x->query_len);
}

static int route_convert(route_ctx *x, const char *rest, size_t rest_len) {
    return handle_convert(x->out, x->sc, x->r, rest, rest_len);
}

enum {
    ROUTE_PREFIX = 1,       /* the path starts with the route's (else: equals it) */
    ROUTE_QUERY = 2         /* takes query parameters (elsewhere they are a 400) */
};

/* The API's resources; the page's (/, /app.js, /style.css, /v1/layout/)
 * are page_route's. */
static const struct route {
    const char *path;
    unsigned flags;
    route_handler *run;
} routes[] = {
    {"/healthz", 0, route_readyz},
    {"/readyz", 0, route_readyz},
    {"/livez", 0, route_livez},
    {"/metrics", 0, route_metrics},
    {"/v1/formats", 0, route_formats},
    {"/v1/new/", ROUTE_PREFIX | ROUTE_QUERY, route_new},
    {"/v1/inspect/", ROUTE_PREFIX, route_inspect},
    {"/v1/range/", ROUTE_PREFIX | ROUTE_QUERY, route_range},
    {"/v1/convert/", ROUTE_PREFIX, route_convert},
};

static const struct route *find_route(const char *path, size_t len) {
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        size_t m = strlen(routes[i].path);
        if ((routes[i].flags & ROUTE_PREFIX ? len >= m : len == m) &&
            memcmp(path, routes[i].path, m) == 0)
            return &routes[i];
    }
    return NULL;
}

/* A request with a body: the body is not read, so the connection closes
 * after the answer; a method this server does not take is said first
 * (POST: 405). */
static int refuse_body(const http_request *req, sbuf *out, scratch *sc, reply r, int get_or_head) {
    r.keep_alive = 0;
    if (get_or_head) {
        r.status = 413;
        return error_reply(out, sc, r, req->accept_json, "invalid", "request bodies are not accepted",
                           -1);
    }
    r.status = 405;
    r.extra = "Allow: GET, HEAD\r\n";
    return error_reply(out, sc, r, req->accept_json, "method", "only GET and HEAD", -1);
}

/* A GET or HEAD of target: the path percent-decoded, then its route (or
 * the page's, or 404). */
static int route_request(const http_request *req, route_ctx *x) {
    const char *raw = req->target;
    size_t tl = req->target_len;
    const char *q = memchr(raw, '?', tl);
    size_t rawl = q ? (size_t)(q - raw) : tl;
    x->query = q ? q + 1 : "";
    x->query_len = q ? tl - rawl - 1 : 0;
    /* the path, percent-decoded; none of this server's paths is longer */
    char t[256] = "";   /* (page_route reads it: quiet a maybe-uninitialized) */
    long pl = rawl <= sizeof t ? pct_decode(raw, rawl, t, 1) : 0;
    const struct route *route = pl > 0 ? find_route(t, (size_t)pl) : NULL;
    page_reply pr;
    int rc;
    if (pl < 0) {
        x->r.status = 400;
        return error_reply(x->out, x->sc, x->r, x->json, "invalid",
                           "bad percent-encoding in the path (or an encoded '/')", -1);
    }
    if (rawl > sizeof t) {
        x->r.status = 404;
        return error_reply(x->out, x->sc, x->r, x->json, "not_found", "no such resource", -1);
    }
    if (x->query_len && !(route && (route->flags & ROUTE_QUERY))) {
        /* named as sent (the request line holds visible ASCII only) */
        size_t nl = 0;
        while (nl < x->query_len && x->query[nl] != '=' && x->query[nl] != '&')
            nl++;
        char msg[96];
        snprintf(msg, sizeof msg, "no query parameters here (got '%.*s%s')",
                 (int)(nl < 32 ? nl : 32), x->query, nl > 32 ? "..." : "");
        x->r.status = 400;
        return error_reply(x->out, x->sc, x->r, x->json, "invalid", msg, -1);
    }
    if (route) {
        size_t m = strlen(route->path);
        return route->run(x, t + m, (size_t)pl - m);
    }
    if ((rc = page_route(t, (size_t)pl, &x->sc->body, &pr)) != 0) {   /* page.c */
        if (rc < 0)
            return -1;
        x->r.status = pr.status;
        x->r.ctype = pr.ctype;
        x->r.extra = pr.extra;
        return emit(x->out, &x->r, pr.body, pr.len);
    }
    x->r.status = 404;
    return error_reply(x->out, x->sc, x->r, x->json, "not_found", "no such resource", -1);
}

int http_handle(const http_request *req, sbuf *out, scratch *sc, const server_config *c,
                int draining) {
    reply r = {200, "text/plain; charset=utf-8", NULL, req->keep_alive && !draining, 0,
               req->minor == 0, c->cors[0] ? c->cors : NULL};
    int get = req->method_len == 3 && memcmp(req->method, "GET", 3) == 0;
    int head = req->method_len == 4 && memcmp(req->method, "HEAD", 4) == 0;
    int options = req->method_len == 7 && memcmp(req->method, "OPTIONS", 7) == 0;
    if (req->has_body) {
        refuse_body(req, out, sc, r, get || head);
        return 1;
    }
    int rc;
    if (options && r.cors) {
        /* a CORS preflight (any path: every resource takes the same methods) */
        r.status = 204;
        r.extra = "Access-Control-Allow-Methods: GET, HEAD\r\n"
                  "Access-Control-Allow-Headers: Accept\r\nAccess-Control-Max-Age: 600\r\n";
        rc = emit(out, &r, NULL, 0);
    } else if (!get && !head) {
        r.status = 405;
        r.extra = "Allow: GET, HEAD\r\n";
        rc = error_reply(out, sc, r, req->accept_json, "method", "only GET and HEAD", -1);
    } else {
        r.head = head;
        route_ctx x = {out, sc, r, req->accept_json, "", 0, c, draining};
        rc = route_request(req, &x);
    }
    if (rc < 0)
        return -1;
    return r.keep_alive ? 0 : 1;
}

int scratch_init(scratch *sc, const server_config *c) {
    sc->bin = malloc((size_t)c->max_count * TOID_BIN_MAX);
    sbuf_init(&sc->body, (size_t)c->max_count * (TOID_TEXT_MAX + 3) + 65536);
    return sc->bin ? 0 : -1;
}

void scratch_free(scratch *sc) {
    free(sc->bin);
    sbuf_free(&sc->body);
}
