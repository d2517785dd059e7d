/* handlers.h — requests to responses, for both protocols. */
#ifndef TOIDD_HANDLERS_H
#define TOIDD_HANDLERS_H

#include <stdint.h>

#include "config.h"
#include "http_parse.h"
#include "resp_parse.h"
#include "resp_session.h"
#include "util.h"

/* Per worker: room for one maximal batch. */
typedef struct scratch {
    uint8_t *bin;      /* max_count * TOID_BIN_MAX bytes */
    sbuf body;         /* an HTTP body being built */
} scratch;

int scratch_init(scratch *sc, const server_config *c);
void scratch_free(scratch *sc);

/* Appends the response to req to out. Returns 1 if the connection must be
 * closed after it, 0 to keep it, -1 if out overflowed (close at once). */
int http_handle(const http_request *req, sbuf *out, scratch *sc, const server_config *c,
                int draining);
/* The response to a request that could not be parsed (status 4xx/5xx);
 * the connection is closed after it. */
void http_reply_error(sbuf *out, int status, const char *msg);
/* A 408 for a request not completed in time. */
void http_reply_timeout(sbuf *out);
/* The refusal sent to a connection beyond the limit. */
extern const char http_refusal[];
extern const char resp_refusal[];

/* Appends the reply to cmd from the connection with session s (AUTH gate,
 * MULTI queue, then the command's row: resp_commands.c). Returns 1 when the
 * connection must be closed after the reply (QUIT, HTTP sent to the RESP
 * port), 0, RESP_LATER when nothing was done and cmd must be handled again
 * once out's pending bytes are sent (an EXEC whose reply fits the output
 * limit, but not beside them), or -1 when even an error reply does not fit
 * (close at once). A reply that would pass out's limit is replaced by an
 * error reply saying so. */
enum { RESP_LATER = 2 };
int resp_handle(const resp_cmd *cmd, resp_session *s, sbuf *out, scratch *sc,
                const server_config *c);
/* A protocol error reply (the connection is closed after it). */
void resp_reply_protocol_error(sbuf *out, const char *msg);

#endif
