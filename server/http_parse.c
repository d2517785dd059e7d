/* http_parse.c — strict HTTP/1.x request heads: table-driven character
 * classes, CRLF only, no obs-fold, bounded line, head and field count. */
#include "http_parse.h"

#include <string.h>

#define C_TCHAR 1u  /* token characters (method, field names) */
#define C_URI 2u    /* request-target characters (origin-form) */
#define C_VALUE 4u  /* field-value characters: VCHAR, obs-text, SP, HTAB */

static const unsigned char cls[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0,  /* 00 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* 10 */
    4, 7, 4, 5, 7, 7, 7, 7, 6, 6, 7, 7, 6, 7, 7, 6,  /* 20 */
    7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 6, 6, 4, 6, 4, 6,  /* 30 */
    6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,  /* 40 */
    7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 4, 4, 4, 5, 7,  /* 50 */
    5, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,  /* 60 */
    7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 4, 5, 4, 7, 0,  /* 70 */
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,  /* 80 */
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,  /* 90 */
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,  /* a0 */
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,  /* b0 */
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,  /* c0 */
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,  /* d0 */
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,  /* e0 */
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,  /* f0 */
};

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

long http_parse(const char *buf, size_t len, const http_limits *lim, http_request *req) {
    memset(req, 0, sizeof *req);
    /* 1. The request line must end within max_line. */
    size_t scan = len < lim->max_line ? len : lim->max_line;
    const char *nl = memchr(buf, '\n', scan);
    if (!nl)
        return len >= lim->max_line ? fail(req, HTTP_E_URI_TOO_LONG, "request line too long")
                                    : HTTP_NEED_MORE;
    size_t line_len = (size_t)(nl - buf);
    if (line_len == 0 || buf[line_len - 1] != '\r')
        return fail(req, HTTP_E_BAD_REQUEST, "request line must end with CRLF");
    /* 2. The head must end (CRLF CRLF) within max_head. */
    scan = len < lim->max_head ? len : lim->max_head;
    const char *end = NULL;
    if (scan >= 4) {
        for (const char *p = buf + line_len - 1; p + 4 <= buf + scan; p++) {
            p = memchr(p, '\r', (size_t)(buf + scan - p));
            if (!p || p + 4 > buf + scan)
                break;
            if (p[1] == '\n' && p[2] == '\r' && p[3] == '\n') {
                end = p + 4;
                break;
            }
        }
    }
    if (!end)
        return len >= lim->max_head ? fail(req, HTTP_E_HEADERS_TOO_LARGE, "request head too large")
                                    : HTTP_NEED_MORE;
    size_t head_len = (size_t)(end - buf);

    /* 3. method SP request-target SP HTTP-version CRLF */
    size_t i = 0;
    while (i < line_len && (cls[(unsigned char)buf[i]] & C_TCHAR))
        i++;
    if (i == 0 || buf[i] != ' ')
        return fail(req, HTTP_E_BAD_REQUEST, "bad method");
    req->method = buf;
    req->method_len = i;
    size_t t = ++i;
    while (i < line_len && (cls[(unsigned char)buf[i]] & C_URI))
        i++;
    if (i == t || buf[i] != ' ' || buf[t] != '/')
        return fail(req, HTTP_E_BAD_REQUEST, "bad request-target");
    req->target = buf + t;
    req->target_len = i - t;
    i++;
    /* "HTTP/" DIGIT "." DIGIT CR */
    if (line_len - i != 9 || memcmp(buf + i, "HTTP/", 5) != 0 || buf[i + 6] != '.' ||
        buf[i + 5] < '0' || buf[i + 5] > '9' || buf[i + 7] < '0' || buf[i + 7] > '9')
        return fail(req, HTTP_E_BAD_REQUEST, "bad HTTP version");
    if (buf[i + 5] != '1')
        return fail(req, HTTP_E_VERSION, "HTTP version not supported");
    req->minor = buf[i + 7] - '0';
    if (req->minor > 1)
        req->minor = 1;   /* a higher 1.x minor is answered as 1.1 */

    /* 4. header fields: name ":" OWS value OWS CRLF */
    int conn_close = 0, conn_keep = 0, hosts = 0, lengths = 0;
    accept_state acc = {0, {0, 0}, {0, 0}};
    unsigned fields = 0;
    i = line_len + 1;
    while (i < head_len - 2) {
        if (++fields > lim->max_fields)
            return fail(req, HTTP_E_HEADERS_TOO_LARGE, "too many header fields");
        size_t ns = i;
        while (cls[(unsigned char)buf[i]] & C_TCHAR)
            i++;
        if (i == ns || buf[i] != ':')
            return fail(req, HTTP_E_BAD_REQUEST, "bad header field name");
        size_t nlen = i - ns;
        i++;
        while (buf[i] == ' ' || buf[i] == '\t')
            i++;
        size_t vs = i;
        while (cls[(unsigned char)buf[i]] & C_VALUE)
            i++;
        if (buf[i] != '\r' || buf[i + 1] != '\n')
            return fail(req, HTTP_E_BAD_REQUEST, "bad header field value");
        size_t ve = i;
        while (ve > vs && (buf[ve - 1] == ' ' || buf[ve - 1] == '\t'))
            ve--;
        i += 2;
        const char *name = buf + ns, *val = buf + vs;
        size_t vlen = ve - vs;
        if (ieq(name, nlen, "host")) {
            hosts++;
        } else if (ieq(name, nlen, "content-length")) {
            if (vlen == 0 || vlen > 18)
                return fail(req, HTTP_E_BAD_REQUEST, "bad Content-Length");
            for (size_t k = 0; k < vlen; k++) {
                if (val[k] < '0' || val[k] > '9')
                    return fail(req, HTTP_E_BAD_REQUEST, "bad Content-Length");
                if (val[k] != '0')
                    req->has_body = 1;
            }
            lengths++;
        } else if (ieq(name, nlen, "transfer-encoding")) {
            return fail(req, HTTP_E_NOT_IMPLEMENTED, "Transfer-Encoding not supported");
        } else if (ieq(name, nlen, "connection")) {
            connection_tokens(val, vlen, &conn_close, &conn_keep);
        } else if (ieq(name, nlen, "accept")) {
            accept_field(&acc, val, vlen);
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
    return (long)head_len;
}
