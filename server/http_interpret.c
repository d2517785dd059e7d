/* http_interpret.c — what a request's header fields mean to this server:
 * Host (exactly one in HTTP/1.1), Content-Length (a body is refused),
 * Transfer-Encoding (not implemented), Connection (keep-alive) and Accept
 * (text/plain or application/json). The fields come tokenised from
 * http_parse_head. */
#include "http_parse.h"

#include <string.h>

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* Case-insensitive equality of s[0..n) and the lower-case literal lit. */
static int ieq(const char *s, size_t n, const char *lit) {
    size_t m = strlen(lit);
    if (n != m)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (lower((unsigned char)s[i]) != lit[i])
            return 0;
    return 1;
}

/* Content negotiation between the two representations this server has,
 * text/plain and application/json (RFC 9110 12.5.1): for each, the q of the
 * most specific media range that matches it (type/subtype over type/ over
 * any), over every Accept field of the request. */
typedef struct accept_state {
    int present;                /* an Accept field was seen */
    int spec[2];                /* 0 unmatched, 1 any, 2 type, 3 exact */
    int q[2];                   /* 0..1000 */
} accept_state;
enum { REP_TEXT, REP_JSON };

/* A qvalue ("0", "0.5", "1", "1.000"): 0..1000, or -1 if malformed. */
static int qvalue(const char *v, size_t n) {
    if (n == 0 || (v[0] != '0' && v[0] != '1'))
        return -1;
    if (n == 1)
        return (v[0] - '0') * 1000;
    if (v[1] != '.' || n > 5)
        return -1;
    int q = (v[0] - '0') * 1000, scale = 100;
    for (size_t i = 2; i < n; i++, scale /= 10) {
        if (v[i] < '0' || v[i] > '9')
            return -1;
        q += (v[i] - '0') * scale;
    }
    return q > 1000 ? -1 : q;
}

static void accept_field(accept_state *st, const char *v, size_t n) {
    static const char *const type[2] = {"text", "application"};
    static const char *const sub[2] = {"plain", "json"};
    st->present = 1;
    size_t i = 0;
    while (i < n) {
        size_t s = i;
        while (i < n && v[i] != ',')
            i++;
        size_t e = i++;
        while (s < e && (v[s] == ' ' || v[s] == '\t'))
            s++;
        size_t t = s;
        while (t < e && v[t] != ';' && v[t] != ' ' && v[t] != '\t')
            t++;
        const char *slash = memchr(v + s, '/', t - s);
        if (!slash)
            continue;
        size_t tl = (size_t)(slash - (v + s)), sl = t - s - tl - 1;
        const char *sb = slash + 1;
        int q = 1000;
        size_t k = t;
        while (k < e) {         /* the q parameter, if any */
            if (v[k++] != ';')
                continue;
            while (k < e && (v[k] == ' ' || v[k] == '\t'))
                k++;
            if (k + 1 < e && (v[k] == 'q' || v[k] == 'Q') && v[k + 1] == '=') {
                size_t d = k + 2, m = d;
                while (m < e && v[m] != ';' && v[m] != ' ' && v[m] != '\t')
                    m++;
                q = qvalue(v + d, m - d);
            }
        }
        if (q < 0)
            continue;           /* a malformed range is ignored */
        for (int r = 0; r < 2; r++) {
            int spec = 0;
            if (tl == 1 && v[s] == '*' && sl == 1 && *sb == '*')
                spec = 1;
            else if (ieq(v + s, tl, type[r]))
                spec = sl == 1 && *sb == '*' ? 2 : ieq(sb, sl, sub[r]) ? 3 : 0;
            /* the most specific range decides; among equals, the highest q */
            if (spec > st->spec[r] || (spec && spec == st->spec[r] && q > st->q[r])) {
                st->spec[r] = spec;
                st->q[r] = q;
            }
        }
    }
}

/* JSON when it is acceptable and either preferred (higher q) or, at equal
 * q, named more specifically than text (application/json beside a wildcard);
 * otherwise text, also when the client accepts neither. */
static int accept_wants_json(const accept_state *st) {
    if (!st->present || st->spec[REP_JSON] == 0 || st->q[REP_JSON] == 0)
        return 0;
    int qt = st->spec[REP_TEXT] ? st->q[REP_TEXT] : 0;
    return st->q[REP_JSON] > qt ||
           (st->q[REP_JSON] == qt && st->spec[REP_JSON] > st->spec[REP_TEXT]);
}

static long fail(http_request *req, long code, const char *why) {
    req->err = why;
    return code;
}

/* Connection: a comma-separated list of tokens. */
static void connection_tokens(const char *v, size_t n, int *close, int *keep) {
    size_t i = 0;
    while (i < n) {
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        size_t s = i;
        while (i < n && v[i] != ',' && v[i] != ' ' && v[i] != '\t')
            i++;
        if (ieq(v + s, i - s, "close"))
            *close = 1;
        else if (ieq(v + s, i - s, "keep-alive"))
            *keep = 1;
    }
}

/* Content-Length: 1 to 18 digits; 1 if it is not zero. -1 if malformed. */
static int content_length(const char *v, size_t n) {
    if (n == 0 || n > 18)
        return -1;
    int body = 0;
    for (size_t k = 0; k < n; k++) {
        if (v[k] < '0' || v[k] > '9')
            return -1;
        body |= v[k] != '0';
    }
    return body;
}

long http_request_interpret(http_request *req, const http_field *fields, unsigned nfields) {
    int conn_close = 0, conn_keep = 0, hosts = 0, lengths = 0;
    accept_state acc = {0, {0, 0}, {0, 0}};
    for (unsigned k = 0; k < nfields; k++) {
        const http_field *f = &fields[k];
        if (ieq(f->name, f->name_len, "host")) {
            hosts++;
        } else if (ieq(f->name, f->name_len, "content-length")) {
            int body = content_length(f->value, f->value_len);
            if (body < 0)
                return fail(req, HTTP_E_BAD_REQUEST, "bad Content-Length");
            req->has_body |= body;
            lengths++;
        } else if (ieq(f->name, f->name_len, "transfer-encoding")) {
            return fail(req, HTTP_E_NOT_IMPLEMENTED, "Transfer-Encoding not supported");
        } else if (ieq(f->name, f->name_len, "connection")) {
            connection_tokens(f->value, f->value_len, &conn_close, &conn_keep);
        } else if (ieq(f->name, f->name_len, "accept")) {
            accept_field(&acc, f->value, f->value_len);
        }
    }
    if (hosts > 1)
        return fail(req, HTTP_E_BAD_REQUEST, "more than one Host");
    if (lengths > 1)
        return fail(req, HTTP_E_BAD_REQUEST, "more than one Content-Length");
    if (req->minor == 1 && hosts == 0)
        return fail(req, HTTP_E_BAD_REQUEST, "HTTP/1.1 request without Host");
    req->has_host = hosts == 1;
    req->accept_json = accept_wants_json(&acc);
    req->keep_alive = req->minor == 1 ? !conn_close : (conn_keep && !conn_close);
    return 0;
}
