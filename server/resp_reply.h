/* resp_reply.h — writers of RESP2/RESP3 replies into an sbuf, and the
 * case-insensitive command-name comparison both command files use. Each
 * writer returns 0, or -1 if the buffer's limit was passed. Where RESP3 has
 * its own type (map, null, verbatim string) the writer takes the
 * connection's protocol version (2 or 3). */
#ifndef TOIDD_RESP_REPLY_H
#define TOIDD_RESP_REPLY_H

#include <stddef.h>

#include "util.h"

/* 1 if s[0..n) equals the upper-case ASCII literal upper, ignoring case. */
int resp_ieq(const char *s, size_t n, const char *upper);

int resp_bulk(sbuf *o, const char *s, size_t n);
int resp_bulk_str(sbuf *o, const char *s);
int resp_array(sbuf *o, size_t n);
int resp_int(sbuf *o, long long v);
/* A map of pairs key/value pairs: RESP3 '%', RESP2 a flat array of 2*pairs. */
int resp_map(sbuf *o, size_t pairs, int proto);
/* The null reply: RESP3 '_', RESP2 the null bulk string "$-1". */
int resp_null(sbuf *o, int proto);
/* The null array of RESP2 ("*-1": EXEC aborted, COMMAND INFO of an unknown
 * name); RESP3 '_'. */
int resp_null_array(sbuf *o, int proto);
/* Text meant for people (INFO, CLIENT INFO): RESP3 verbatim "txt", RESP2
 * a bulk string. */
int resp_verbatim(sbuf *o, const char *s, size_t n, int proto);
/* "-MSG": msg starts with the error code ("ERR ...", "NOAUTH ...") and holds
 * no CR or LF. Counted as an error reply in the metrics. */
int resp_err(sbuf *o, const char *msg);
/* Counts a successful reply in the metrics. */
void resp_count_ok(void);

/* Copies at most cap - 4 printable bytes of an argument for an error message
 * ('?' for the others and for quotes; ".." when cut). */
void resp_printable(char *dst, size_t cap, const char *s, size_t n);

#endif
