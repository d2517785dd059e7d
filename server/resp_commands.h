/* resp_commands.h — the RESP command table: one row per command, and
 * everything about a command that is not its own work comes from its row —
 * lookup by name, the arity check and its error, whether it runs before
 * AUTH or inside MULTI, the count of successful replies in the metrics, and
 * COMMAND's reply (as Redis drives all of these from its command table). */
#ifndef TOIDD_RESP_COMMANDS_H
#define TOIDD_RESP_COMMANDS_H

#include "handlers.h"

/* A command's own work: writes its reply to out. Returns 0, 1 when the
 * connection must be closed after the reply (QUIT), RESP_LATER (EXEC: ask
 * again once the pending output is sent), or -1 on overflow. Its
 * arguments were checked against the row's arity; it counts no metrics
 * (resp_err counts error replies, resp_command_run the others). */
typedef int resp_handler(const resp_cmd *cmd, resp_session *s, sbuf *out, scratch *sc,
                         const server_config *c);

enum {
    RESP_CMD_NOAUTH = 1,        /* runs before AUTH when a password is required */
    RESP_CMD_SESSION = 2,       /* acts on the session at once: never queued by MULTI */
    RESP_CMD_NOT_IN_MULTI = 4,  /* refused inside MULTI (the transaction then aborts) */
    RESP_CMD_UNLISTED = 8,      /* left out of COMMAND's reply */
    RESP_CMD_COUNTS_OWN = 16    /* its reply is not counted: its parts are (EXEC) */
};

typedef struct resp_command {
    const char *name;           /* upper case; COMMAND shows it in lower case */
    resp_handler *run;
    int min_args, max_args;     /* argc, the name included; max -1: no limit */
    unsigned flags;             /* RESP_CMD_* */
    const char *command_flag;   /* COMMAND's flag: "fast", "admin" or "loading" */
} resp_command;

/* The row of the command named name[0..len) (any case), or NULL. */
const resp_command *resp_command_find(const char *name, size_t len);

/* Runs cmd by its row: the arity check (Redis's error when it fails), the
 * handler, and the count of a successful reply. Returns as the handler. */
int resp_command_run(const resp_command *row, const resp_cmd *cmd, resp_session *s, sbuf *out,
                     scratch *sc, const server_config *c);

/* The size of the reply cmd gets when it succeeds, where that is known
 * before it runs (ID.NEW, PING, ECHO); 0 for the others. EXEC adds these
 * up to refuse, before running anything, a transaction whose reply would
 * pass the output limit. */
size_t resp_reply_size(const resp_cmd *cmd, const server_config *c);

/* The handlers (resp_handlers.c: the data commands; resp_admin.c: the
 * session's). */
resp_handler resp_cmd_new, resp_cmd_inspect, resp_cmd_ping, resp_cmd_echo, resp_cmd_select,
    resp_cmd_config;
resp_handler resp_cmd_quit, resp_cmd_hello, resp_cmd_auth, resp_cmd_client, resp_cmd_info,
    resp_cmd_multi, resp_cmd_exec, resp_cmd_discard, resp_cmd_reset, resp_cmd_watch;

#endif
