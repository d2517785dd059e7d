/* resp_handlers.c — the RESP data commands: ID.NEW, ID.INSPECT, PING, ECHO,
 * COMMAND, CONFIG GET, SELECT 0. The session commands (HELLO, AUTH, INFO,
 * CLIENT, MULTI/EXEC/DISCARD, QUIT, RESET) and the gate in front of both
 * are in resp_admin.c. */
#include "handlers.h"

#include <stdio.h>
#include <string.h>

#include "ids.h"
#include "metrics.h"
#include "resp_reply.h"

#define ieq resp_ieq
#define bulk resp_bulk
#define bulk_str resp_bulk_str
#define array resp_array
#define err resp_err
#define printable resp_printable

const char resp_refusal[] = "-ERR max number of clients reached\r\n";

void resp_reply_protocol_error(sbuf *out, const char *msg) {
    char line[160];
    snprintf(line, sizeof line, "ERR Protocol error: %s", msg);
    err(out, line);
}

static int cmd_new(const resp_cmd *cmd, sbuf *o, scratch *sc, const server_config *c) {
    if (cmd->argc < 2 || cmd->argc > 3)
        return err(o, "ERR wrong number of arguments for 'id.new' command");
    toid_format f;
    char msg[200], arg[48];
    if (ids_lookup(cmd->argv[1], cmd->argl[1], &f) < 0) {
        printable(arg, sizeof arg, cmd->argv[1], cmd->argl[1]);
        snprintf(msg, sizeof msg, "ERR unknown format '%s'", arg);
        return err(o, msg);
    }
    unsigned long n = 1;
    if (cmd->argc == 3) {
        const char *s = cmd->argv[2];
        size_t l = cmd->argl[2];
        n = 0;
        int ok = l >= 1 && l <= 7;
        for (size_t i = 0; ok && i < l; i++) {
            if (s[i] < '0' || s[i] > '9')
                ok = 0;
            else
                n = n * 10 + (unsigned long)(s[i] - '0');
        }
        if (!ok || n > c->max_count) {
            snprintf(msg, sizeof msg, "ERR count must be an integer from 0 to %u", c->max_count);
            return err(o, msg);
        }
        if (n == 0) {   /* as the CLI's --count 0: no IDs, none spent */
            if (!ids_enabled(f)) {
                snprintf(msg, sizeof msg, "ERR %s", ids_strerror(IDS_EDISABLED));
                return err(o, msg);
            }
            METRIC_ADD(resp_ok, 1);
            return array(o, 0);
        }
    }
    int rc = ids_new(f, sc->bin, n);
    if (rc < 0) {
        snprintf(msg, sizeof msg, "%s %s", ids_error_is_temporary(rc) ? "TRYAGAIN" : "ERR",
                 ids_strerror(rc));
        return err(o, msg);
    }
    if (cmd->argc == 3 && array(o, n) < 0)
        return -1;
    /* every text of a format has the same length: the "$LEN\r\n" header is
     * written once and copied, the texts encoded in place */
    size_t bs = toid_bin_size(f), tl = toid_format_get(f)->text_len;
    _Static_assert(TOID_TEXT_MAX < 100, "a text length has at most two digits");
    char head[8];
    size_t hl = 0;
    head[hl++] = '$';
    if (tl >= 10)
        head[hl++] = (char)('0' + tl / 10);
    head[hl++] = (char)('0' + tl % 10);
    head[hl++] = '\r';
    head[hl++] = '\n';
    size_t each = hl + tl + 2;
    char *w = sbuf_room(o, n * each + 1);   /* + 1: the encoder's NUL */
    if (!w)
        return -1;
    char *p = w;
    for (size_t i = 0; i < n; i++) {
        memcpy(p, head, hl);
        p += hl;
        if (toid_encode(f, sc->bin + i * bs, p, tl + 1) != (int)tl)
            return -1;
        p += tl;
        *p++ = '\r';
        *p++ = '\n';
    }
    o->len += (size_t)(p - w);
    METRIC_ADD(resp_ok, 1);
    return 0;
}

static int cmd_inspect(const resp_cmd *cmd, sbuf *o) {
    if (cmd->argc < 2 || cmd->argc > 3)
        return err(o, "ERR wrong number of arguments for 'id.inspect' command");
    int f = -1;
    char msg[256], arg[48];
    if (cmd->argc == 3) {
        toid_format ff;
        if (ids_lookup(cmd->argv[1], cmd->argl[1], &ff) < 0) {
            printable(arg, sizeof arg, cmd->argv[1], cmd->argl[1]);
            snprintf(msg, sizeof msg, "ERR unknown format '%s'", arg);
            return err(o, msg);
        }
        f = (int)ff;
    }
    char json[640], why[200];
    size_t pos = 0;
    int len = ids_inspect(f, cmd->argv[cmd->argc - 1], cmd->argl[cmd->argc - 1], json,
                          sizeof json, &pos, why, sizeof why);
    if (len < 0) {
        snprintf(msg, sizeof msg, "ERR invalid id: %s", why);
        return err(o, msg);
    }
    METRIC_ADD(resp_ok, 1);
    return bulk(o, json, (size_t)len);
}

/* COMMAND's view of our commands: name, arity, flags, first/last key, step. */
static const struct {
    const char *name, *upper;
    int arity;
    const char *flag;
} commands[] = {
    {"id.new", "ID.NEW", -2, "fast"},     {"id.inspect", "ID.INSPECT", -2, "fast"},
    {"ping", "PING", -1, "fast"},         {"quit", "QUIT", -1, "fast"},
    {"hello", "HELLO", -1, "fast"},       {"command", "COMMAND", -1, "loading"},
    {"config", "CONFIG", -2, "admin"},   {"client", "CLIENT", -2, "fast"},
    {"select", "SELECT", 2, "fast"},      {"echo", "ECHO", 2, "fast"},
    {"info", "INFO", -1, "fast"},         {"auth", "AUTH", -2, "fast"},
    {"multi", "MULTI", 1, "fast"},        {"exec", "EXEC", 1, "fast"},
    {"discard", "DISCARD", 1, "fast"},    {"reset", "RESET", 1, "fast"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static int command_info(sbuf *o, size_t i) {
    return array(o, 6) | bulk_str(o, commands[i].name) |
           sbuf_printf(o, ":%d\r\n", commands[i].arity) | array(o, 1) |
           sbuf_printf(o, "+%s\r\n", commands[i].flag) | sbuf_str(o, ":0\r\n:0\r\n:0\r\n");
}

static int cmd_command(const resp_cmd *cmd, sbuf *o, int proto) {
    int r = 0;
    if (cmd->argc == 1) {
        r |= array(o, NCOMMANDS);
        for (size_t i = 0; i < NCOMMANDS; i++)
            r |= command_info(o, i);
    } else if (ieq(cmd->argv[1], cmd->argl[1], "COUNT") && cmd->argc == 2) {
        r |= sbuf_printf(o, ":%zu\r\n", NCOMMANDS);
    } else if (ieq(cmd->argv[1], cmd->argl[1], "DOCS")) {
        r |= array(o, 0);   /* no documentation: clients fall back to none */
    } else if (ieq(cmd->argv[1], cmd->argl[1], "INFO")) {
        r |= array(o, (size_t)(cmd->argc - 2));
        for (int a = 2; a < cmd->argc; a++) {
            size_t k = 0;
            while (k < NCOMMANDS && !ieq(cmd->argv[a], cmd->argl[a], commands[k].upper))
                k++;
            r |= k < NCOMMANDS ? command_info(o, k) : resp_null_array(o, proto);
        }
    } else {
        return err(o, "ERR unknown subcommand of 'command' (COUNT, DOCS, INFO)");
    }
    METRIC_ADD(resp_ok, 1);
    return r;
}

static int cmd_config(const resp_cmd *cmd, sbuf *o, int proto) {
    if (cmd->argc < 3 || !ieq(cmd->argv[1], cmd->argl[1], "GET"))
        return err(o, "ERR only CONFIG GET is supported");
    /* What redis-benchmark and redis-cli ask for; anything else is absent. */
    static const char *const known[][2] = {{"save", ""}, {"appendonly", "no"}};
    size_t found = 0;
    const char *hit[2 * RESP_MAX_ARGS];
    for (int a = 2; a < cmd->argc; a++)
        for (size_t k = 0; k < 2; k++) {
            size_t m = strlen(known[k][0]);
            if (cmd->argl[a] == m && strncmp(cmd->argv[a], known[k][0], m) == 0) {
                hit[2 * found] = known[k][0];
                hit[2 * found + 1] = known[k][1];
                found++;
            }
        }
    int r = resp_map(o, found, proto);
    for (size_t i = 0; i < 2 * found; i++)
        r |= bulk_str(o, hit[i]);
    METRIC_ADD(resp_ok, 1);
    return r;
}

int resp_data_command(const resp_cmd *cmd, int proto, sbuf *o, scratch *sc,
                      const server_config *c) {
    const char *name = cmd->argv[0];
    size_t nl = cmd->argl[0];
    int r;
    if (ieq(name, nl, "ID.NEW")) {
        r = cmd_new(cmd, o, sc, c);
    } else if (ieq(name, nl, "ID.INSPECT")) {
        r = cmd_inspect(cmd, o);
    } else if (ieq(name, nl, "PING")) {
        if (cmd->argc > 2) {
            r = err(o, "ERR wrong number of arguments for 'ping' command");
        } else {
            r = cmd->argc == 2 ? bulk(o, cmd->argv[1], cmd->argl[1]) : sbuf_str(o, "+PONG\r\n");
            METRIC_ADD(resp_ok, 1);
        }
    } else if (ieq(name, nl, "COMMAND")) {
        r = cmd_command(cmd, o, proto);
    } else if (ieq(name, nl, "CONFIG")) {
        r = cmd_config(cmd, o, proto);
    } else if (ieq(name, nl, "SELECT")) {
        if (cmd->argc == 2 && cmd->argl[1] == 1 && cmd->argv[1][0] == '0') {
            r = sbuf_str(o, "+OK\r\n");
            METRIC_ADD(resp_ok, 1);
        } else {
            r = err(o, "ERR DB index is out of range (toidd has database 0 only)");
        }
    } else if (ieq(name, nl, "ECHO")) {
        if (cmd->argc != 2) {
            r = err(o, "ERR wrong number of arguments for 'echo' command");
        } else {
            r = bulk(o, cmd->argv[1], cmd->argl[1]);
            METRIC_ADD(resp_ok, 1);
        }
    } else {
        return RESP_NOT_MINE;
    }
    return r < 0 ? -1 : 0;
}
