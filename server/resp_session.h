/* resp_session.h — what toidd keeps per RESP connection: the protocol
 * version (HELLO 2|3), authentication (--requirepass), the client's name,
 * and the commands queued by MULTI. Every open session is in one registry,
 * so that CLIENT LIST and INFO's clients section see all of them. */
#ifndef TOIDD_RESP_SESSION_H
#define TOIDD_RESP_SESSION_H

#include <stdatomic.h>
#include <stdint.h>

#include "config.h"
#include "util.h"

#define RESP_NAME_MAX 64        /* CLIENT SETNAME, lib-name, lib-ver */
#define RESP_MULTI_MAX_CMDS 1024
#define RESP_MULTI_MAX_BYTES (256 * 1024)

typedef struct resp_session {
    uint64_t id;                /* CLIENT ID: unique in this process, from 1 */
    int fd;
    int proto;                  /* 2 or 3 */
    int authed;                 /* 1 when no password is required */
    int multi;                  /* between MULTI and EXEC/DISCARD */
    int multi_dirty;            /* a command was refused while queueing: EXEC aborts */
    _Atomic unsigned queued;    /* (CLIENT LIST reads it from other threads) */
    sbuf queue;                 /* the queued commands, re-encoded as multibulk */
    char addr[64], laddr[64];   /* peer and local address, "ip:port" or "path:0" */
    int64_t created_ms;
    _Atomic int64_t last_ms;    /* last command (read by CLIENT LIST elsewhere) */
    /* written under the registry lock, as another thread may list them */
    char name[RESP_NAME_MAX + 1], lib_name[RESP_NAME_MAX + 1], lib_ver[RESP_NAME_MAX + 1];
    struct resp_session *prev, *next;
} resp_session;

/* Called once from main before the workers start: the RESP TCP port (for
 * INFO; 0 if none) and the start time. */
void resp_sessions_init(int tcp_port);

/* A session for a newly accepted connection fd (fd may be -1 in tests), in
 * the registry. NULL when out of memory. */
resp_session *resp_session_open(int fd, const server_config *c);
/* Out of the registry, freed. */
void resp_session_close(resp_session *s);

#endif
