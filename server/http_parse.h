/* http_parse.h — a strict, bounded HTTP/1.x request-head parser (RFC 9112).
 * Pure: no allocation, no I/O; the request's strings point into the input. */
#ifndef TOIDD_HTTP_PARSE_H
#define TOIDD_HTTP_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* Errors are negated HTTP status codes. */
enum {
    HTTP_NEED_MORE = 0,
    HTTP_E_BAD_REQUEST = -400,
    HTTP_E_URI_TOO_LONG = -414,
    HTTP_E_HEADERS_TOO_LARGE = -431,
    HTTP_E_NOT_IMPLEMENTED = -501,
    HTTP_E_VERSION = -505
};

typedef struct http_limits {
    size_t max_line;        /* request line, CRLF included */
    size_t max_head;        /* request line + header fields + final CRLF */
    unsigned max_fields;    /* header fields */
} http_limits;

typedef struct http_request {
    const char *method;
    size_t method_len;
    const char *target;     /* origin-form: starts with '/' */
    size_t target_len;
    int minor;              /* HTTP/1.<minor>: 0 or 1 */
    int keep_alive;         /* resolved from the version and Connection */
    int accept_json;        /* Accept prefers application/json to text/plain */
    int has_host;
    int has_body;           /* Content-Length > 0 */
    const char *err;        /* on error: what was wrong (static text) */
} http_request;

/*
 * Parses one request head at the start of buf. Returns its length (> 0) when
 * a complete, valid head is there; HTTP_NEED_MORE when it may still become
 * one; otherwise a negative HTTP_E_* (req->err says why). A request with a
 * body (Content-Length > 0 or any Transfer-Encoding) is refused: this server
 * takes GET and HEAD only.
 */
long http_parse(const char *buf, size_t len, const http_limits *lim, http_request *req);

#endif
