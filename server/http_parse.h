/* http_parse.h — a strict, bounded HTTP/1.x request-head parser (RFC 9112),
 * in two layers as picohttpparser has them: http_parse_head frames the head
 * and tokenises the request line and the header fields (syntax only);
 * http_request_interpret gives the fields their meaning (Host,
 * Content-Length, Transfer-Encoding, Connection, Accept). http_parse does
 * both. Pure: no allocation, no I/O; the strings point into the input. */
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

/* The most header fields a head may have, whatever the limits say. */
#define HTTP_MAX_FIELDS 100

typedef struct http_limits {
    size_t max_line;        /* request line, CRLF included */
    size_t max_head;        /* request line + header fields + final CRLF */
    unsigned max_fields;    /* header fields (capped to HTTP_MAX_FIELDS) */
} http_limits;

/* One header field as tokenised: the name, and the value without the
 * optional white space around it. */
typedef struct http_field {
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
} http_field;

typedef struct http_request {
    /* from the request line (http_parse_head) */
    const char *method;
    size_t method_len;
    const char *target;     /* origin-form: starts with '/' */
    size_t target_len;
    int minor;              /* HTTP/1.<minor>: 0 or 1 */
    /* from the header fields (http_request_interpret) */
    int keep_alive;         /* resolved from the version and Connection */
    int accept_json;        /* Accept prefers application/json to text/plain */
    int has_host;
    int has_body;           /* Content-Length > 0 */
    const char *err;        /* on error: what was wrong (static text) */
} http_request;

/*
 * Frames one request head at the start of buf and tokenises it: the request
 * line into req (method, target, minor; the rest zeroed) and the header
 * fields into fields[0..*nfields) (room for lim->max_fields, at most
 * HTTP_MAX_FIELDS). Returns the head's length (> 0), HTTP_NEED_MORE when it
 * may still become a complete head, or a negative HTTP_E_* (req->err says
 * why). Reads nothing at or beyond buf + len.
 */
long http_parse_head(const char *buf, size_t len, const http_limits *lim, http_request *req,
                     http_field *fields, unsigned *nfields);

/*
 * The meaning of the tokenised fields for this server: sets keep_alive,
 * accept_json, has_host and has_body of req (whose minor is set). Returns 0,
 * or a negative HTTP_E_* with req->err: more than one Host or
 * Content-Length, a malformed Content-Length, no Host in HTTP/1.1, any
 * Transfer-Encoding (a body this server does not take).
 */
long http_request_interpret(http_request *req, const http_field *fields, unsigned nfields);

/*
 * Parses one request head at the start of buf (http_parse_head, then
 * http_request_interpret). Returns its length (> 0) when a complete, valid
 * head is there; HTTP_NEED_MORE when it may still become one; otherwise a
 * negative HTTP_E_* (req->err says why). A request with a body
 * (Content-Length > 0 or any Transfer-Encoding) is refused: this server
 * takes GET and HEAD only.
 */
long http_parse(const char *buf, size_t len, const http_limits *lim, http_request *req);

#endif
