/* resp_commands.c — the RESP command table, COMMAND (which replies from
 * it), and resp_handle, the gate in front of every command: HTTP sniffing,
 * authentication, MULTI queueing, then the command's row. */
#include "resp_commands.h"

#include <stdio.h>
#include <string.h>

#include "resp_reply.h"

static resp_handler cmd_command;

/* In COMMAND's order (redis-cli and client libraries read it). */
static const resp_command commands[] = {
    {"ID.NEW", resp_cmd_new, 2, 3, 0, "fast"},
    {"ID.INSPECT", resp_cmd_inspect, 2, 3, 0, "fast"},
    {"PING", resp_cmd_ping, 1, 2, 0, "fast"},
    {"QUIT", resp_cmd_quit, 1, -1, RESP_CMD_NOAUTH | RESP_CMD_SESSION, "fast"},
    {"HELLO", resp_cmd_hello, 1, -1, RESP_CMD_NOAUTH | RESP_CMD_SESSION | RESP_CMD_NOT_IN_MULTI,
     "fast"},
    {"COMMAND", cmd_command, 1, -1, 0, "loading"},
    {"CONFIG", resp_cmd_config, 2, -1, 0, "admin"},
    {"CLIENT", resp_cmd_client, 2, -1, 0, "fast"},
    {"SELECT", resp_cmd_select, 2, 2, 0, "fast"},
    {"ECHO", resp_cmd_echo, 2, 2, 0, "fast"},
    {"INFO", resp_cmd_info, 1, -1, 0, "fast"},
    {"AUTH", resp_cmd_auth, 2, 3, RESP_CMD_NOAUTH | RESP_CMD_SESSION | RESP_CMD_NOT_IN_MULTI,
     "fast"},
    {"MULTI", resp_cmd_multi, 1, 1, RESP_CMD_SESSION, "fast"},
    {"EXEC", resp_cmd_exec, 1, 1, RESP_CMD_SESSION | RESP_CMD_COUNTS_OWN, "fast"},
    {"DISCARD", resp_cmd_discard, 1, 1, RESP_CMD_SESSION, "fast"},
    {"RESET", resp_cmd_reset, 1, 1, RESP_CMD_NOAUTH | RESP_CMD_SESSION, "fast"},
    /* refused with a reason (toidd keeps no keys) rather than as unknown */
    {"WATCH", resp_cmd_watch, 1, -1, RESP_CMD_SESSION | RESP_CMD_UNLISTED, "fast"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

const resp_command *resp_command_find(const char *name, size_t len) {
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (resp_ieq(name, len, commands[i].name))
            return &commands[i];
    return NULL;
}

/* The name as COMMAND and the arity error show it: lower case. */
static void lower_name(const resp_command *row, char *dst, size_t cap) {
    size_t i = 0;
    for (; row->name[i] && i + 1 < cap; i++) {
        char ch = row->name[i];
        dst[i] = ch >= 'A' && ch <= 'Z' ? (char)(ch + 32) : ch;
    }
    dst[i] = '\0';
}

int resp_command_run(const resp_command *row, const resp_cmd *cmd, resp_session *s, sbuf *o,
                     scratch *sc, const server_config *c) {
    if (cmd->argc < row->min_args || (row->max_args >= 0 && cmd->argc > row->max_args)) {
        char name[32], msg[96];
        lower_name(row, name, sizeof name);
        snprintf(msg, sizeof msg, "ERR wrong number of arguments for '%s' command", name);
        return resp_err(o, msg) < 0 ? -1 : 0;
    }
    size_t mark = o->len;
    int r = row->run(cmd, s, o, sc, c);
    /* an error reply ('-') was counted by resp_err; any other is a success */
    if (r >= 0 && !(row->flags & RESP_CMD_COUNTS_OWN) && o->len > mark && o->data[mark] != '-')
        resp_count_ok();
    return r;
}

/* COMMAND's view of a row: name, arity (negative: at least), flags,
 * first/last key, step (toidd's commands take no keys). */
static int command_info(sbuf *o, const resp_command *row) {
    char name[32];
    lower_name(row, name, sizeof name);
    int arity = row->min_args == row->max_args ? row->min_args : -row->min_args;
    return resp_array(o, 6) | resp_bulk_str(o, name) | sbuf_printf(o, ":%d\r\n", arity) |
           resp_array(o, 1) | sbuf_printf(o, "+%s\r\n", row->command_flag) |
           sbuf_str(o, ":0\r\n:0\r\n:0\r\n");
}

static const resp_command *listed(const char *name, size_t len) {
    const resp_command *row = resp_command_find(name, len);
    return row && !(row->flags & RESP_CMD_UNLISTED) ? row : NULL;
}

static int cmd_command(const resp_cmd *cmd, resp_session *s, sbuf *o, scratch *sc,
                       const server_config *c) {
    (void)sc, (void)c;
    size_t n = 0;
    for (size_t i = 0; i < NCOMMANDS; i++)
        n += !(commands[i].flags & RESP_CMD_UNLISTED);
    int r = 0;
    if (cmd->argc == 1) {
        r |= resp_array(o, n);
        for (size_t i = 0; i < NCOMMANDS; i++)
            if (!(commands[i].flags & RESP_CMD_UNLISTED))
                r |= command_info(o, &commands[i]);
    } else if (resp_ieq(cmd->argv[1], cmd->argl[1], "COUNT") && cmd->argc == 2) {
        r |= sbuf_printf(o, ":%zu\r\n", n);
    } else if (resp_ieq(cmd->argv[1], cmd->argl[1], "DOCS")) {
        r |= resp_array(o, 0);   /* no documentation: clients fall back to none */
    } else if (resp_ieq(cmd->argv[1], cmd->argl[1], "INFO")) {
        r |= resp_array(o, (size_t)(cmd->argc - 2));
        for (int a = 2; a < cmd->argc; a++) {
            const resp_command *row = listed(cmd->argv[a], cmd->argl[a]);
            r |= row ? command_info(o, row) : resp_null_array(o, s->proto);
        }
    } else {
        return resp_err(o, "ERR unknown subcommand of 'command' (COUNT, DOCS, INFO)");
    }
    return r;
}

static int unknown(sbuf *o, const char *name, size_t nl) {
    char msg[100], arg[48];
    resp_printable(arg, sizeof arg, name, nl);
    snprintf(msg, sizeof msg, "ERR unknown command '%s'", arg);
    return resp_err(o, msg);
}

/* Queues cmd for EXEC, re-encoded as multibulk (its arguments may point into
 * the connection's input, which moves on). 0, or -1 when the queue is full. */
static int queue_cmd(resp_session *s, const resp_cmd *cmd) {
    if (s->queued >= RESP_MULTI_MAX_CMDS)
        return -1;
    size_t mark = s->queue.len;
    int r = sbuf_printf(&s->queue, "*%d\r\n", cmd->argc);
    for (int a = 0; a < cmd->argc && r == 0; a++)
        r = resp_bulk(&s->queue, cmd->argv[a], cmd->argl[a]);
    if (r < 0) {
        s->queue.len = mark;
        return -1;
    }
    s->queued++;
    return 0;
}

/* Inside MULTI: a known command is queued; an unknown one (checked now, as
 * Redis does, so that a typo aborts the transaction rather than failing
 * inside it) or one past the queue's bounds makes EXEC abort. */
static int queue_or_refuse(const resp_command *row, const resp_cmd *cmd, resp_session *s,
                           sbuf *o) {
    if (!row) {
        s->multi_dirty = 1;
        return unknown(o, cmd->argv[0], cmd->argl[0]);
    }
    if (queue_cmd(s, cmd) < 0) {
        s->multi_dirty = 1;
        return resp_err(o, "ERR too many commands in this MULTI (at most 1024, 256 KiB)");
    }
    resp_count_ok();
    return sbuf_str(o, "+QUEUED\r\n");
}

int resp_handle(const resp_cmd *cmd, resp_session *s, sbuf *o, scratch *sc,
                const server_config *c) {
    const char *name = cmd->argv[0];
    size_t nl = cmd->argl[0];
    if (resp_ieq(name, nl, "POST") || resp_ieq(name, nl, "HOST:")) {
        /* HTTP sent to the RESP port (e.g. a browser made to post here, as
         * against Redis): answer once and close, as Redis does for exactly
         * these two (a "GET key" is a Redis command like any other). */
        int r = resp_err(o, "ERR this is the RESP port of toidd, not HTTP: closing");
        return r < 0 ? -1 : 1;
    }
    atomic_store_explicit(&s->last_ms, mono_ms(), memory_order_relaxed);
    const resp_command *row = resp_command_find(name, nl);
    unsigned flags = row ? row->flags : 0;
    int r;
    if (!s->authed && !(flags & RESP_CMD_NOAUTH)) {
        r = resp_err(o, "NOAUTH Authentication required.");
    } else if (s->multi && !(flags & RESP_CMD_SESSION)) {
        r = queue_or_refuse(row, cmd, s, o);
    } else if (!row) {
        r = unknown(o, name, nl);
    } else if (s->multi && (flags & RESP_CMD_NOT_IN_MULTI)) {
        s->multi_dirty = 1;
        r = resp_err(o, "ERR Command not allowed inside a transaction");
    } else {
        size_t keep = sbuf_pending(o);   /* (o may be compacted, never consumed, meanwhile) */
        r = resp_command_run(row, cmd, s, o, sc, c);
        if (r < 0) {
            /* the reply does not fit: what it wrote is dropped, an error
             * says why, and the connection stays usable */
            char msg[120];
            o->len = o->off + keep;
            snprintf(msg, sizeof msg,
                     "ERR the reply would pass the output limit of %zu bytes (--max-output-bytes)",
                     o->max);
            r = resp_err(o, msg);
        }
    }
    return r < 0 ? -1 : r;
}
