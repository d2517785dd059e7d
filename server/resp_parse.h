/* resp_parse.h — RESP2 requests: multibulk (*N $len ...) and inline commands
 * (split at blanks; "double" quotes with \n \r \t \b \a \xHH and \c escapes
 * and 'single' quotes with \' as Redis reads them). Pure: no allocation, no
 * I/O; arguments point into the input, or into the command's own buffer
 * where quotes were undone. */
#ifndef TOIDD_RESP_PARSE_H
#define TOIDD_RESP_PARSE_H

#include <stddef.h>

#define RESP_MAX_ARGS 16

enum { RESP_NEED_MORE = 0, RESP_ERROR = -1 };

typedef struct resp_limits {
    size_t max_bulk;     /* bytes of one multibulk argument */
    size_t max_inline;   /* bytes of one inline command line */
    unsigned max_args;   /* arguments, at most RESP_MAX_ARGS */
} resp_limits;

/* The longest inline command line; resp_limits.max_inline is capped to it. */
#define RESP_MAX_INLINE 4096

typedef struct resp_cmd {
    int argc;            /* 0 for an empty command (ignored, as Redis does) */
    const char *argv[RESP_MAX_ARGS];
    size_t argl[RESP_MAX_ARGS];
    const char *err;     /* on RESP_ERROR: the protocol error, static text */
    /* quoted inline arguments, unescaped: their argv point here */
    char unquoted[RESP_MAX_INLINE];
} resp_cmd;

/* Parses one command at the start of buf: returns its length (> 0),
 * RESP_NEED_MORE, or RESP_ERROR (a protocol error: the stream cannot be
 * resynchronised and the connection should be closed after replying). */
long resp_parse(const char *buf, size_t len, const resp_limits *lim, resp_cmd *cmd);

#endif
