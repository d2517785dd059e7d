/* http_parse.c — framing and tokenising of HTTP/1.x request heads:
 * table-driven character classes, CRLF only, no obs-fold, bounded line,
 * head and field count. What the fields mean is http_interpret.c's. */
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

static long fail(http_request *req, long code, const char *why) {
    req->err = why;
    return code;
}

/* The head's length: the request line ends within max_line (CRLF) and the
 * head (CRLF CRLF) within max_head; *line_len is the request line's length
 * without its LF. 0 for need more, or a negative HTTP_E_*. */
static long frame(const char *buf, size_t len, const http_limits *lim, http_request *req,
                  size_t *line_len) {
    size_t scan = len < lim->max_line ? len : lim->max_line;
    const char *nl = memchr(buf, '\n', scan);
    if (!nl)
        return len >= lim->max_line ? fail(req, HTTP_E_URI_TOO_LONG, "request line too long")
                                    : HTTP_NEED_MORE;
    *line_len = (size_t)(nl - buf);
    if (*line_len == 0 || buf[*line_len - 1] != '\r')
        return fail(req, HTTP_E_BAD_REQUEST, "request line must end with CRLF");
    scan = len < lim->max_head ? len : lim->max_head;
    if (scan >= 4) {
        for (const char *p = buf + *line_len - 1; p + 4 <= buf + scan; p++) {
            p = memchr(p, '\r', (size_t)(buf + scan - p));
            if (!p || p + 4 > buf + scan)
                break;
            if (p[1] == '\n' && p[2] == '\r' && p[3] == '\n')
                return (long)(p + 4 - buf);
        }
    }
    return len >= lim->max_head ? fail(req, HTTP_E_HEADERS_TOO_LARGE, "request head too large")
                                : HTTP_NEED_MORE;
}

/* method SP request-target SP HTTP-version CR: buf[0..line_len) ends in CR. */
static long request_line(const char *buf, size_t line_len, http_request *req) {
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
    return 0;
}

/* One header field, name ":" OWS value OWS CRLF, at buf[*i] (inside a head
 * whose end CRLF CRLF is known, so every scan stops there). */
static long header_field(const char *buf, size_t *i, http_request *req, http_field *f) {
    size_t k = *i, ns = k;
    while (cls[(unsigned char)buf[k]] & C_TCHAR)
        k++;
    if (k == ns || buf[k] != ':')
        return fail(req, HTTP_E_BAD_REQUEST, "bad header field name");
    f->name = buf + ns;
    f->name_len = k - ns;
    k++;
    while (buf[k] == ' ' || buf[k] == '\t')
        k++;
    size_t vs = k;
    while (cls[(unsigned char)buf[k]] & C_VALUE)
        k++;
    if (buf[k] != '\r' || buf[k + 1] != '\n')
        return fail(req, HTTP_E_BAD_REQUEST, "bad header field value");
    size_t ve = k;
    while (ve > vs && (buf[ve - 1] == ' ' || buf[ve - 1] == '\t'))
        ve--;
    f->value = buf + vs;
    f->value_len = ve - vs;
    *i = k + 2;
    return 0;
}

long http_parse_head(const char *buf, size_t len, const http_limits *lim, http_request *req,
                     http_field *fields, unsigned *nfields) {
    memset(req, 0, sizeof *req);
    *nfields = 0;
    size_t line_len = 0;
    long head_len = frame(buf, len, lim, req, &line_len);
    if (head_len <= 0)
        return head_len;
    long r = request_line(buf, line_len, req);
    if (r < 0)
        return r;
    unsigned max = lim->max_fields < HTTP_MAX_FIELDS ? lim->max_fields : HTTP_MAX_FIELDS;
    for (size_t i = line_len + 1; i < (size_t)head_len - 2;) {
        if (*nfields >= max)
            return fail(req, HTTP_E_HEADERS_TOO_LARGE, "too many header fields");
        if ((r = header_field(buf, &i, req, &fields[*nfields])) < 0)
            return r;
        ++*nfields;
    }
    return head_len;
}

long http_parse(const char *buf, size_t len, const http_limits *lim, http_request *req) {
    http_field fields[HTTP_MAX_FIELDS];
    unsigned n;
    long head_len = http_parse_head(buf, len, lim, req, fields, &n);
    if (head_len <= 0)
        return head_len;
    long r = http_request_interpret(req, fields, n);
    return r < 0 ? r : head_len;
}
