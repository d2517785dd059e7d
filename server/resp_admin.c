/* resp_admin.c — RESP sessions and what Redis client libraries send around
 * the data commands, with their default settings: HELLO 2|3 (RESP3 maps,
 * nulls and verbatim strings), AUTH (--requirepass), INFO (ioredis's ready
 * check), CLIENT ID/INFO/LIST/SETNAME/GETNAME/SETINFO, MULTI/EXEC/DISCARD
 * (redis-py's default pipeline), QUIT, RESET. Their rows (arity, when they
 * may run) are in resp_commands.c. */
#define _GNU_SOURCE
#include "resp_commands.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "claims.h"
#include "ids.h"
#include "metrics.h"
#include "resp_reply.h"

/* The registry of open sessions (CLIENT LIST). The lock also covers the
 * fields another thread may read there: name, lib-name/ver, proto, multi. */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static resp_session reg_head = {.prev = &reg_head, .next = &reg_head};
static atomic_ullong next_id = 1;
static int64_t started_ms;
static int resp_tcp_port;

void resp_sessions_init(int tcp_port) {
    started_ms = mono_ms();
    resp_tcp_port = tcp_port;
}

/* "ip:port" of a socket address (or "path:0" for a Unix-domain one). */
static void addr_text(const struct sockaddr_storage *ss, socklen_t len, char *dst, size_t cap) {
    char ip[INET6_ADDRSTRLEN] = "?";
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
        inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
        snprintf(dst, cap, "%s:%u", ip, ntohs(a->sin_port));
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
        inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
        snprintf(dst, cap, "%s:%u", ip, ntohs(a->sin6_port));
    } else if (ss->ss_family == AF_UNIX && len > offsetof(struct sockaddr_un, sun_path)) {
        const struct sockaddr_un *a = (const struct sockaddr_un *)ss;
        snprintf(dst, cap, "%.*s:0", (int)(len - offsetof(struct sockaddr_un, sun_path)),
                 a->sun_path);
    } else {
        snprintf(dst, cap, "/unix:0");
    }
    for (char *p = dst; *p; p++)   /* one token in CLIENT LIST's line */
        if (*p <= ' ' || *p > '~')
            *p = '?';
}

resp_session *resp_session_open(int fd, const server_config *c) {
    resp_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->id = atomic_fetch_add(&next_id, 1);
    s->fd = fd;
    s->proto = 2;
    s->authed = c->requirepass[0] == '\0';
    sbuf_init(&s->queue, RESP_MULTI_MAX_BYTES);
    s->created_ms = mono_ms();
    atomic_store_explicit(&s->last_ms, s->created_ms, memory_order_relaxed);
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (fd >= 0 && getpeername(fd, (struct sockaddr *)&ss, &len) == 0)
        addr_text(&ss, len, s->addr, sizeof s->addr);
    len = sizeof ss;
    if (fd >= 0 && getsockname(fd, (struct sockaddr *)&ss, &len) == 0)
        addr_text(&ss, len, s->laddr, sizeof s->laddr);
    pthread_mutex_lock(&reg_lock);
    s->next = reg_head.next;
    s->prev = &reg_head;
    reg_head.next->prev = s;
    reg_head.next = s;
    pthread_mutex_unlock(&reg_lock);
    return s;
}

void resp_session_close(resp_session *s) {
    pthread_mutex_lock(&reg_lock);
    s->prev->next = s->next;
    s->next->prev = s->prev;
    pthread_mutex_unlock(&reg_lock);
    sbuf_free(&s->queue);
    free(s);
}

/* One CLIENT LIST line (ending in '\n'); the caller holds reg_lock. */
static int client_line(sbuf *o, const resp_session *s, int64_t now) {
    int64_t last = atomic_load_explicit(&s->last_ms, memory_order_relaxed);
    return sbuf_printf(o,
                       "id=%llu addr=%s laddr=%s fd=%d name=%s age=%lld idle=%lld flags=%s db=0 "
                       "multi=%d user=default resp=%d lib-name=%s lib-ver=%s\n",
                       (unsigned long long)s->id, s->addr, s->laddr, s->fd, s->name,
                       (long long)((now - s->created_ms) / 1000), (long long)((now - last) / 1000),
                       s->multi ? "x" : "N", s->multi ? (int)s->queued : -1, s->proto,
                       s->lib_name, s->lib_ver);
}

/* A client name or library field: printable ASCII without blanks, as
 * Redis requires (it is one token of a CLIENT LIST line). */
static int settable(const char *v, size_t n) {
    if (n > RESP_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] <= ' ' || v[i] > '~')
            return 0;
    return 1;
}

static void set_field(char *dst, const char *v, size_t n) {
    pthread_mutex_lock(&reg_lock);
    memcpy(dst, v, n);
    dst[n] = '\0';
    pthread_mutex_unlock(&reg_lock);
}

static int ok(sbuf *o) { return sbuf_str(o, "+OK\r\n"); }

/* Whether session t is one CLIENT LIST's "ID id ..." (argv[from..argc)) names. */
static int id_listed(const resp_session *t, const resp_cmd *cmd, int from) {
    char idt[24];
    int il = snprintf(idt, sizeof idt, "%llu", (unsigned long long)t->id);
    for (int a = from; a < cmd->argc; a++)
        if (cmd->argl[a] == (size_t)il && memcmp(cmd->argv[a], idt, (size_t)il) == 0)
            return 1;
    return 0;
}

/* CLIENT INFO (only_self) and CLIENT LIST: every RESP connection ([TYPE
 * normal] accepted; ID filters). */
static int client_list(const resp_cmd *cmd, resp_session *s, sbuf *o, int only_self) {
    int ids_from = 0;
    if (!only_self && cmd->argc >= 3) {
        if (resp_ieq(cmd->argv[2], cmd->argl[2], "ID") && cmd->argc >= 4) {
            ids_from = 3;
        } else if (!(cmd->argc == 4 && resp_ieq(cmd->argv[2], cmd->argl[2], "TYPE") &&
                     resp_ieq(cmd->argv[3], cmd->argl[3], "NORMAL"))) {
            return resp_err(o, "ERR syntax error (CLIENT LIST [TYPE normal] [ID id ...])");
        }
    }
    sbuf text;
    sbuf_init(&text, (size_t)1 << 26);
    int64_t now = mono_ms();
    int r = 0;
    pthread_mutex_lock(&reg_lock);
    for (resp_session *t = reg_head.next; t != &reg_head; t = t->next)
        if ((!only_self || t == s) && (!ids_from || id_listed(t, cmd, ids_from)))
            r |= client_line(&text, t, now);
    pthread_mutex_unlock(&reg_lock);
    r = r == 0 ? resp_verbatim(o, text.data ? text.data : "", text.len, s->proto)
               : resp_err(o, "ERR client list too long");
    sbuf_free(&text);
    return r;
}

static int client_id(const resp_cmd *cmd, resp_session *s, sbuf *o) {
    (void)cmd;
    return resp_int(o, (long long)s->id);
}

static int client_info(const resp_cmd *cmd, resp_session *s, sbuf *o) {
    return client_list(cmd, s, o, 1);
}

static int client_list_all(const resp_cmd *cmd, resp_session *s, sbuf *o) {
    return client_list(cmd, s, o, 0);
}

static int client_setname(const resp_cmd *cmd, resp_session *s, sbuf *o) {
    if (!settable(cmd->argv[2], cmd->argl[2]))
        return resp_err(o, "ERR Client names cannot contain spaces, newlines or special "
                           "characters (and toidd keeps at most 64 bytes).");
    set_field(s->name, cmd->argv[2], cmd->argl[2]);
    return ok(o);
}

static int client_getname(const resp_cmd *cmd, resp_session *s, sbuf *o) {
    (void)cmd;
    return s->name[0] ? resp_bulk_str(o, s->name) : resp_null(o, s->proto);
}

static int client_setinfo(const resp_cmd *cmd, resp_session *s, sbuf *o) {
    char *dst = resp_ieq(cmd->argv[2], cmd->argl[2], "LIB-NAME")  ? s->lib_name
                : resp_ieq(cmd->argv[2], cmd->argl[2], "LIB-VER") ? s->lib_ver
                                                                  : NULL;
    if (!dst)
        return resp_err(o, "ERR Unrecognized option (CLIENT SETINFO LIB-NAME|LIB-VER value)");
    if (!settable(cmd->argv[3], cmd->argl[3]))
        return resp_err(o, "ERR lib-name and lib-ver cannot contain spaces, newlines or "
                           "special characters (at most 64 bytes).");
    set_field(dst, cmd->argv[3], cmd->argl[3]);
    return ok(o);
}

/* toidd keeps no keys: nothing to evict or touch */
static int client_no_op(const resp_cmd *cmd, resp_session *s, sbuf *o) {
    (void)cmd, (void)s;
    return ok(o);
}

/* CLIENT's subcommands with the argc each takes (-1: any); a call that
 * matches no row is an unknown subcommand, as in Redis. */
static const struct {
    const char *name;
    int argc;
    int (*run)(const resp_cmd *cmd, resp_session *s, sbuf *o);
} client_subcommands[] = {
    {"ID", 2, client_id},           {"INFO", 2, client_info},
    {"LIST", -1, client_list_all},  {"SETNAME", 3, client_setname},
    {"GETNAME", 2, client_getname}, {"SETINFO", 4, client_setinfo},
    {"NO-EVICT", 3, client_no_op},  {"NO-TOUCH", 3, client_no_op},
};

int resp_cmd_client(const resp_cmd *cmd, resp_session *s, sbuf *o, scratch *sc,
                    const server_config *c) {
    (void)sc, (void)c;
    for (size_t i = 0; i < sizeof client_subcommands / sizeof client_subcommands[0]; i++)
        if (resp_ieq(cmd->argv[1], cmd->argl[1], client_subcommands[i].name) &&
            (client_subcommands[i].argc < 0 || client_subcommands[i].argc == cmd->argc))
            return client_subcommands[i].run(cmd, s, o);
    return resp_err(o, "ERR unknown subcommand of 'client' (ID, INFO, LIST, SETNAME, GETNAME, "
                       "SETINFO, NO-EVICT, NO-TOUCH)");
}

/* INFO [section ...]: server, clients, persistence, stats (every section for
 * none, "all", "default" or "everything"); unknown sections are empty. */
int resp_cmd_info(const resp_cmd *cmd, resp_session *s, sbuf *o, scratch *sc,
                  const server_config *c) {
    enum { SERVER = 1, CLIENTS = 2, PERSISTENCE = 4, STATS = 8 };
    unsigned want = cmd->argc == 1 ? ~0u : 0;
    for (int a = 1; a < cmd->argc; a++) {
        const char *v = cmd->argv[a];
        size_t n = cmd->argl[a];
        if (resp_ieq(v, n, "ALL") || resp_ieq(v, n, "DEFAULT") || resp_ieq(v, n, "EVERYTHING"))
            want = ~0u;
        else if (resp_ieq(v, n, "SERVER"))
            want |= SERVER;
        else if (resp_ieq(v, n, "CLIENTS"))
            want |= CLIENTS;
        else if (resp_ieq(v, n, "PERSISTENCE"))
            want |= PERSISTENCE;
        else if (resp_ieq(v, n, "STATS"))
            want |= STATS;
    }
    char text[2048];
    size_t len = 0;
#define ADD(...) len += (size_t)snprintf(text + len, sizeof text - len, __VA_ARGS__)
    int64_t up = (mono_ms() - started_ms) / 1000;
    if (want & SERVER) {
        /* redis_version: the Redis protocol level toidd follows (clients
         * gate features on it); toidd's own version is the next line */
        /* toidd_ready: /readyz's answer (1: every format can issue IDs now;
         * 0: see /readyz for why) */
        sbuf_reset(&sc->body);
        int unready = claims_health(&sc->body) | ids_health(&sc->body);
        ADD("# Server\r\nredis_version:7.0.0\r\ntoidd_version:%s\r\nredis_mode:standalone\r\n"
            "os:Linux\r\narch_bits:%d\r\nprocess_id:%ld\r\ntcp_port:%d\r\n"
            "uptime_in_seconds:%lld\r\nuptime_in_days:%lld\r\ntoidd_ready:%d\r\n",
            TOID_VERSION_STRING, (int)(8 * sizeof(void *)), (long)getpid(), resp_tcp_port,
            (long long)up, (long long)(up / 86400), !unready);
    }
    if (want & CLIENTS) {
        ADD("%s# Clients\r\nconnected_clients:%lld\r\nmaxclients:%u\r\n", len ? "\r\n" : "",
            (long long)atomic_load(&g_metrics.open[PROTO_RESP]), c->max_connections);
    }
    if (want & PERSISTENCE) {   /* the state directory is ready before any client is served */
        ADD("%s# Persistence\r\nloading:0\r\nasync_loading:0\r\n", len ? "\r\n" : "");
    }
    if (want & STATS) {
        unsigned long long issued = 0;
        for (int f = 0; f < TOID_FORMAT_COUNT; f++)
            issued += atomic_load(&g_metrics.issued[f]);
        ADD("%s# Stats\r\ntotal_connections_received:%llu\r\ntotal_commands_processed:%llu\r\n"
            "rejected_connections:%llu\r\ntoidd_ids_issued:%llu\r\n",
            len ? "\r\n" : "", (unsigned long long)atomic_load(&g_metrics.accepted[PROTO_RESP]),
            (unsigned long long)(atomic_load(&g_metrics.resp_ok) +
                                 atomic_load(&g_metrics.resp_err)),
            (unsigned long long)atomic_load(&g_metrics.refused[PROTO_RESP]), issued);
    }
#undef ADD
    if (len >= sizeof text)
        len = sizeof text - 1;
    return resp_verbatim(o, text, len, s->proto);
}

/* Compares a password in time independent of where it differs. */
static int password_ok(const server_config *c, const char *p, size_t n) {
    size_t want = strlen(c->requirepass);
    unsigned diff = (unsigned)(n != want);
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)p[i] ^ (unsigned char)c->requirepass[i < want ? i : 0];
    return want > 0 && diff == 0;
}

/* AUTH [user] password, also HELLO's AUTH option: user must be "default".
 * Checks only: returns 1 when the pair is right (nothing written), 0 when
 * an error was written, -1 on overflow. The caller authenticates. */
static int auth_ok(sbuf *o, const server_config *c, const char *user, size_t ul, const char *pass,
                   size_t pl) {
    if (!c->requirepass[0])
        return resp_err(o, "ERR AUTH <password> called without any password configured for "
                           "the default user. Are you sure your configuration is correct?");
    if ((user && !(ul == 7 && memcmp(user, "default", 7) == 0)) || !password_ok(c, pass, pl))
        return resp_err(o, "WRONGPASS invalid username-password pair or user is disabled.");
    return 1;
}

/* HELLO [protover [AUTH user password] [SETNAME name]]: all or nothing, as
 * Redis 7.2 does it. Every argument is checked first, in this order: the
 * version (not a number, then NOPROTO), each option in turn (a syntax error
 * naming it, a bad name), then the password of the last AUTH (WRONGPASS),
 * then that the connection is authenticated (NOAUTH). Any of these errors
 * is the whole reply and changes nothing: not the authentication, the
 * protocol or the name. Only then are the three applied, together. */
int resp_cmd_hello(const resp_cmd *cmd, resp_session *s, sbuf *o, scratch *sc,
                   const server_config *c) {
    (void)sc;
    int proto = s->proto;
    if (cmd->argc >= 2) {
        const char *v = cmd->argv[1];
        size_t n = cmd->argl[1];
        if (n == 1 && (v[0] == '2' || v[0] == '3'))
            proto = v[0] - '0';
        else if (n >= 1 && n <= 9 && strspn(v, "0123456789") >= n)
            return resp_err(o, "NOPROTO unsupported protocol version");
        else
            return resp_err(o, "ERR Protocol version is not an integer or out of range");
    }
    const char *name = NULL, *user = NULL, *pass = NULL;
    size_t name_len = 0, user_len = 0, pass_len = 0;
    for (int a = 2; a < cmd->argc; a++) {
        if (resp_ieq(cmd->argv[a], cmd->argl[a], "AUTH") && a + 2 < cmd->argc) {
            user = cmd->argv[a + 1];   /* the last AUTH is the one tried */
            user_len = cmd->argl[a + 1];
            pass = cmd->argv[a + 2];
            pass_len = cmd->argl[a + 2];
            a += 2;
        } else if (resp_ieq(cmd->argv[a], cmd->argl[a], "SETNAME") && a + 1 < cmd->argc) {
            name = cmd->argv[a + 1];   /* the last SETNAME is the one set */
            name_len = cmd->argl[a + 1];
            if (!settable(name, name_len))
                return resp_err(o, "ERR Client names cannot contain spaces, newlines or special "
                                   "characters.");
            a += 1;
        } else {
            char opt[48], msg[96];
            resp_printable(opt, sizeof opt, cmd->argv[a], cmd->argl[a]);
            snprintf(msg, sizeof msg, "ERR Syntax error in HELLO option '%s'", opt);
            return resp_err(o, msg);
        }
    }
    if (pass) {
        int au = auth_ok(o, c, user, user_len, pass, pass_len);
        if (au <= 0)
            return au;   /* the error is the reply */
    } else if (!s->authed) {
        return resp_err(o, "NOAUTH HELLO must be called with the client already authenticated, "
                           "otherwise the HELLO <proto> AUTH <user> <pass> option can be used to "
                           "authenticate the client and select the RESP protocol version at the "
                           "same time");
    }
    if (pass)
        s->authed = 1;
    pthread_mutex_lock(&reg_lock);
    s->proto = proto;
    if (name) {
        memcpy(s->name, name, name_len);
        s->name[name_len] = '\0';
    }
    pthread_mutex_unlock(&reg_lock);
    return resp_map(o, 7, proto) | resp_bulk_str(o, "server") | resp_bulk_str(o, "toidd") |
           resp_bulk_str(o, "version") | resp_bulk_str(o, TOID_VERSION_STRING) |
           resp_bulk_str(o, "proto") | resp_int(o, proto) | resp_bulk_str(o, "id") |
           resp_int(o, (long long)s->id) | resp_bulk_str(o, "mode") |
           resp_bulk_str(o, "standalone") | resp_bulk_str(o, "role") | resp_bulk_str(o, "master") |
           resp_bulk_str(o, "modules") | resp_array(o, 0);
}

static void set_multi(resp_session *s, int on) {
    pthread_mutex_lock(&reg_lock);
    s->multi = on;
    pthread_mutex_unlock(&reg_lock);
    if (!on) {
        s->multi_dirty = 0;
        s->queued = 0;
        sbuf_reset(&s->queue);
    }
}

/* The size of EXEC's reply as far as it is known before anything runs:
 * the array's header and the known sizes of the queued replies. */
static size_t exec_reply_size(const resp_session *s, const server_config *c) {
    char head[32];
    size_t need = (size_t)snprintf(head, sizeof head, "*%u\r\n", s->queued);
    resp_limits lim = {RESP_MULTI_MAX_BYTES, RESP_MAX_INLINE, RESP_MAX_ARGS};
    static _Thread_local resp_cmd q;
    for (size_t pos = 0; pos < s->queue.len;) {
        long used = resp_parse(s->queue.data + pos, s->queue.len - pos, &lim, &q);
        if (used <= 0)
            break;
        pos += (size_t)used;
        need += resp_reply_size(&q, c);
    }
    return need;
}

int resp_cmd_exec(const resp_cmd *cmd, resp_session *s, sbuf *o, scratch *sc,
                  const server_config *c) {
    (void)cmd;
    char msg[200];
    if (!s->multi)
        return resp_err(o, "ERR EXEC without MULTI");
    if (s->multi_dirty) {
        set_multi(s, 0);
        return resp_err(o, "EXECABORT Transaction discarded because of previous errors.");
    }
    /* A reply past the output limit cannot be sent: refused before any
     * command runs (no ID is spent), the transaction discarded, the
     * connection kept. One that fits the limit but not beside the replies
     * still pending waits for them to be sent. */
    size_t need = exec_reply_size(s, c);
    if (need > o->max) {
        set_multi(s, 0);
        snprintf(msg, sizeof msg,
                 "ERR EXEC refused: its reply would be %zu bytes, past the output limit of %zu "
                 "bytes (--max-output-bytes); the transaction is discarded, nothing ran",
                 need, o->max);
        return resp_err(o, msg);
    }
    if (need > o->max - sbuf_pending(o))
        return RESP_LATER;
    size_t keep = sbuf_pending(o);
    int r = resp_array(o, s->queued);
    /* the queue holds only known commands, re-encoded by the gate: it
     * parses back whole, and each runs by its row */
    resp_limits lim = {RESP_MULTI_MAX_BYTES, RESP_MAX_INLINE, RESP_MAX_ARGS};
    size_t pos = 0;
    static _Thread_local resp_cmd q;
    while (r == 0 && pos < s->queue.len) {
        long used = resp_parse(s->queue.data + pos, s->queue.len - pos, &lim, &q);
        const resp_command *row = used > 0 ? resp_command_find(q.argv[0], q.argl[0]) : NULL;
        if (!row)
            break;
        pos += (size_t)used;
        r = resp_command_run(row, &q, s, o, sc, c);
    }
    set_multi(s, 0);
    if (r < 0) {
        /* a reply whose size was not known in advance (INFO, CLIENT LIST...)
         * passed the limit: the commands ran, their replies cannot be sent */
        o->len = o->off + keep;
        snprintf(msg, sizeof msg,
                 "ERR EXEC's reply would pass the output limit of %zu bytes "
                 "(--max-output-bytes): its commands ran, their replies are dropped",
                 o->max);
        return resp_err(o, msg);
    }
    return 0;
}

int resp_cmd_multi(const resp_cmd *cmd, resp_session *s, sbuf *o, scratch *sc,
                   const server_config *c) {
    (void)cmd, (void)sc, (void)c;
    if (s->multi)
        return resp_err(o, "ERR MULTI calls can not be nested");
    set_multi(s, 1);
    return ok(o);
}

int resp_cmd_discard(const resp_cmd *cmd, resp_session *s, sbuf *o, scratch *sc,
                     const server_config *c) {
    (void)cmd, (void)sc, (void)c;
    if (!s->multi)
        return resp_err(o, "ERR DISCARD without MULTI");
    set_multi(s, 0);
    return ok(o);
}

int resp_cmd_auth(const resp_cmd *cmd, resp_session *s, sbuf *o, scratch *sc,
                  const server_config *c) {
    (void)sc;
    int r = auth_ok(o, c, cmd->argc == 3 ? cmd->argv[1] : NULL, cmd->argl[1],
                    cmd->argv[cmd->argc - 1], cmd->argl[cmd->argc - 1]);
    if (r == 1)
        s->authed = 1;
    return r == 1 ? ok(o) : r;
}

int resp_cmd_reset(const resp_cmd *cmd, resp_session *s, sbuf *o, scratch *sc,
                   const server_config *c) {
    (void)cmd, (void)sc;
    set_multi(s, 0);
    pthread_mutex_lock(&reg_lock);
    s->proto = 2;
    s->name[0] = '\0';
    pthread_mutex_unlock(&reg_lock);
    s->authed = c->requirepass[0] == '\0';
    return sbuf_str(o, "+RESET\r\n");
}

int resp_cmd_watch(const resp_cmd *cmd, resp_session *s, sbuf *o, scratch *sc,
                   const server_config *c) {
    (void)cmd, (void)sc, (void)c;
    return resp_err(o, s->multi ? "ERR WATCH inside MULTI is not allowed"
                                : "ERR WATCH is not supported: toidd keeps no keys");
}

int resp_cmd_quit(const resp_cmd *cmd, resp_session *s, sbuf *o, scratch *sc,
                  const server_config *c) {
    (void)cmd, (void)s, (void)sc, (void)c;
    return sbuf_str(o, "+OK\r\n") < 0 ? -1 : 1;
}
