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

/* Accept: does a media range name application/json with a q above 0? */
static int accepts_json(const char *v, size_t n) {
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
        if (!ieq(v + s, t - s, "application/json"))
            continue;
        /* a parameter q=0 (or 0.0, 0.000) refuses it */
        int zero = 0;
        size_t k = t;
        while (k < e) {
            if (v[k++] != ';')
                continue;
            while (k < e && (v[k] == ' ' || v[k] == '\t'))
                k++;
            if (k + 1 < e && (v[k] == 'q' || v[k] == 'Q') && v[k + 1] == '=') {
                size_t d = k + 2, m = d;
                while (m < e && v[m] != ';' && v[m] != ' ' && v[m] != '\t')
                    m++;
                zero = m > d && v[d] == '0';
                for (size_t x = d + 1; zero && x < m; x++)
                    if (v[x] != '.' && v[x] != '0')
                        zero = 0;
            }
        }
        if (!zero)
            return 1;
    }
    return 0;
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
            if (accepts_json(val, vlen))
                req->accept_json = 1;
        }
    }
    if (hosts > 1)
        return fail(req, HTTP_E_BAD_REQUEST, "more than one Host");
    if (lengths > 1)
        return fail(req, HTTP_E_BAD_REQUEST, "more than one Content-Length");
    if (req->minor == 1 && hosts == 0)
        return fail(req, HTTP_E_BAD_REQUEST, "HTTP/1.1 request without Host");
    req->has_host = hosts == 1;
    req->keep_alive = req->minor == 1 ? !conn_close : (conn_keep && !conn_close);
    return (long)head_len;
}
