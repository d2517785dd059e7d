/* resp_handlers.c — the RESP data commands: ID.NEW, ID.INSPECT, PING, ECHO,
 * CONFIG GET, SELECT 0. The session commands (HELLO, AUTH, INFO, CLIENT,
 * MULTI/EXEC/DISCARD, QUIT, RESET) are in resp_admin.c; the command table,
 * COMMAND and the gate in front of all of them in resp_commands.c. */
#include "resp_commands.h"

#include <stdio.h>
#include <string.h>

#include "ids.h"
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

/* "ERR unknown format 'X' (did you mean Y?)": the library's words, as
 * every front end says it (toid_format_name_error). */
static int err_unknown_format(sbuf *o, const char *name, size_t n) {
    char msg[320] = "ERR ";
    if (toid_format_name_error(name, n, msg + 4, sizeof msg - 4) < 0)
        snprintf(msg + 4, sizeof msg - 4, "unknown format");
    return err(o, msg);
}

/* ID.NEW's COUNT: 1 to 7 digits, at most --max-count. 0, or -1. */
static int new_count(const resp_cmd *cmd, const server_config *c, unsigned long *n) {
    const char *v = cmd->argv[2];
    size_t l = cmd->argl[2];
    *n = 0;
    if (l < 1 || l > 7)
        return -1;
    for (size_t i = 0; i < l; i++) {
        if (v[i] < '0' || v[i] > '9')
            return -1;
        *n = *n * 10 + (unsigned long)(v[i] - '0');
    }
    return *n <= c->max_count ? 0 : -1;
}

static size_t digits(size_t n) {
    size_t d = 1;
    while (n >= 10) {
        n /= 10;
        d++;
    }
    return d;
}

/* The bytes of a bulk string of n bytes: "$n\r\n", the bytes, "\r\n". */
static size_t bulk_size(size_t n) { return 1 + digits(n) + 2 + n + 2; }

size_t resp_reply_size(const resp_cmd *cmd, const server_config *c) {
    const char *name = cmd->argv[0];
    size_t nl = cmd->argl[0];
    toid_format f;
    unsigned long n = 1;
    if (ieq(name, nl, "ID.NEW") && (cmd->argc == 2 || cmd->argc == 3) &&
        ids_lookup(cmd->argv[1], cmd->argl[1], &f) == 0 && ids_enabled(f) &&
        (cmd->argc == 2 || new_count(cmd, c, &n) == 0)) {
        size_t each = bulk_size(toid_format_get(f)->text_len);
        return cmd->argc == 2 ? each : 1 + digits(n) + 2 + n * each;   /* "*n\r\n" and n IDs */
    }
    if (ieq(name, nl, "PING") && cmd->argc <= 2)
        return cmd->argc == 2 ? bulk_size(cmd->argl[1]) : 7;   /* "+PONG\r\n" */
    if (ieq(name, nl, "ECHO") && cmd->argc == 2)
        return bulk_size(cmd->argl[1]);
    return 0;
}

int resp_cmd_new(const resp_cmd *cmd, resp_session *s, sbuf *o, scratch *sc,
                 const server_config *c) {
    (void)s;
    toid_format f;
    char msg[200];
    if (ids_lookup(cmd->argv[1], cmd->argl[1], &f) < 0) {
        return err_unknown_format(o, cmd->argv[1], cmd->argl[1]);
    }
    unsigned long n = 1;
    if (cmd->argc == 3) {
        if (new_count(cmd, c, &n) < 0) {
            snprintf(msg, sizeof msg, "ERR count must be an integer from 0 to %u", c->max_count);
            return err(o, msg);
        }
        if (n == 0) {   /* as the CLI's --count 0: no IDs, none spent */
            if (!ids_enabled(f)) {
                snprintf(msg, sizeof msg, "ERR %s",
                         ids_strerror(toid_format_get(f)->generates ? IDS_EDISABLED : IDS_EREADONLY));
                return err(o, msg);
            }
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
    /* (the encoder's NUL after each text lands where its "\r" goes: no
     * byte past the reply is needed, so a reply may fill the limit exactly) */
    char *w = sbuf_room(o, n * each);
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
    return 0;
}

int resp_cmd_inspect(const resp_cmd *cmd, resp_session *s, sbuf *o, scratch *sc,
                     const server_config *c) {
    (void)s, (void)sc, (void)c;
    int f = -1;
    char msg[256];
    if (cmd->argc == 3) {
        toid_format ff;
        if (ids_lookup(cmd->argv[1], cmd->argl[1], &ff) < 0) {
            return err_unknown_format(o, cmd->argv[1], cmd->argl[1]);
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
    return bulk(o, json, (size_t)len);
}

int resp_cmd_config(const resp_cmd *cmd, resp_session *s, sbuf *o, scratch *sc,
                    const server_config *c) {
    (void)sc, (void)c;
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
    int r = resp_map(o, found, s->proto);
    for (size_t i = 0; i < 2 * found; i++)
        r |= bulk_str(o, hit[i]);
    return r;
}

int resp_cmd_ping(const resp_cmd *cmd, resp_session *s, sbuf *o, scratch *sc,
                  const server_config *c) {
    (void)s, (void)sc, (void)c;
    return cmd->argc == 2 ? bulk(o, cmd->argv[1], cmd->argl[1]) : sbuf_str(o, "+PONG\r\n");
}

int resp_cmd_echo(const resp_cmd *cmd, resp_session *s, sbuf *o, scratch *sc,
                  const server_config *c) {
    (void)s, (void)sc, (void)c;
    return bulk(o, cmd->argv[1], cmd->argl[1]);
}

int resp_cmd_select(const resp_cmd *cmd, resp_session *s, sbuf *o, scratch *sc,
                    const server_config *c) {
    (void)s, (void)sc, (void)c;
    if (cmd->argl[1] == 1 && cmd->argv[1][0] == '0')
        return sbuf_str(o, "+OK\r\n");
    return err(o, "ERR DB index is out of range (toidd has database 0 only)");
}
