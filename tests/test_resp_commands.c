/* test_resp_commands.c — toidd's RESP command table (server/resp_commands.c)
 * through resp_handle, without sockets: the arity COMMAND reports is the
 * arity enforced, for every row; the ok/error counts in the metrics are one
 * per reply (EXEC's parts, not EXEC); MULTI queues and aborts by the rows'
 * flags; AUTH gates by them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "handlers.h"
#include "metrics.h"

static server_config cfg;
static scratch sc;
static sbuf out;

/* The reply of session s to one inline command line (no CRLF), as text. */
static const char *run(resp_session *s, const char *line) {
    static resp_cmd cmd;
    static char in[512];
    static const resp_limits lim = {1024, RESP_MAX_INLINE, RESP_MAX_ARGS};
    snprintf(in, sizeof in, "%s\r\n", line);
    sbuf_reset(&out);
    if (resp_parse(in, strlen(in), &lim, &cmd) <= 0 || cmd.argc == 0)
        return "(parse error)";
    if (resp_handle(&cmd, s, &out, &sc, &cfg) < 0)
        return "(overflow)";
    /* a copy with its NUL: the reply may fill out to its limit */
    static char *text;
    free(text);
    text = malloc(out.len + 1);
    if (!text)
        return "(out of memory)";
    memcpy(text, out.data ? out.data : "", out.len);
    text[out.len] = '\0';
    return text;
}

/* Every row COMMAND lists: called with one argument too few (where the
 * name alone is not enough) and one too many (where there is a maximum),
 * it is Redis's arity error naming it. */
TEST_CASE(arity_is_commands) {
    resp_session *s = resp_session_open(-1, &cfg);
    char reply[8192];
    snprintf(reply, sizeof reply, "%s", run(s, "COMMAND"));
    int count = 0, listed = atoi(reply + 1);
    for (const char *p = strstr(reply, "*6\r\n$"); p; p = strstr(p + 1, "*6\r\n$")) {
        char name[32];
        int arity;
        if (sscanf(p, "*6\r\n$%*d\r\n%31[^\r]\r\n:%d", name, &arity) != 2)
            break;
        count++;
        char want[96], line[96];
        snprintf(want, sizeof want, "-ERR wrong number of arguments for '%s' command\r\n", name);
        int min = arity < 0 ? -arity : arity;
        if (min > 1) {   /* one argument too few */
            int n = snprintf(line, sizeof line, "%s", name);
            for (int a = 2; a < min; a++)
                n += snprintf(line + n, sizeof line - (size_t)n, " x");
            CHECK_MSG(strcmp(run(s, line), want) == 0, "%s with %d arguments: %s", name, min - 1,
                      run(s, line));
        }
        if (arity > 0) {   /* one too many */
            int n = snprintf(line, sizeof line, "%s", name);
            for (int a = 1; a <= arity; a++)
                n += snprintf(line + n, sizeof line - (size_t)n, " x");
            CHECK_MSG(strcmp(run(s, line), want) == 0, "%s with %d arguments: %s", name, arity + 1,
                      run(s, line));
        }
    }
    CHECK_EQ_INT(count, listed);
    CHECK(count >= 16);
    char n[16];
    snprintf(n, sizeof n, ":%d\r\n", count);
    CHECK_EQ_STR(run(s, "COMMAND COUNT"), n);
    CHECK_EQ_STR(run(s, "COMMAND INFO watch nope"), "*2\r\n*-1\r\n*-1\r\n");   /* unlisted */
    resp_session_close(s);
}

/* One count per reply: ok for any reply but an error, error for '-'. */
TEST_CASE(metrics_once_per_reply) {
    resp_session *s = resp_session_open(-1, &cfg);
    unsigned long long ok0 = g_metrics.resp_ok, err0 = g_metrics.resp_err;
    CHECK_EQ_STR(run(s, "PING"), "+PONG\r\n");
    CHECK_EQ_STR(run(s, "ECHO"), "-ERR wrong number of arguments for 'echo' command\r\n");
    CHECK_EQ_STR(run(s, "NOPE"), "-ERR unknown command 'NOPE'\r\n");
    CHECK_EQ_INT(g_metrics.resp_ok - ok0, 1);
    CHECK_EQ_INT(g_metrics.resp_err - err0, 2);
    /* MULTI, QUEUED twice, EXEC: EXEC's two parts count, EXEC itself not */
    ok0 = g_metrics.resp_ok, err0 = g_metrics.resp_err;
    CHECK_EQ_STR(run(s, "MULTI"), "+OK\r\n");
    CHECK_EQ_STR(run(s, "PING"), "+QUEUED\r\n");
    CHECK_EQ_STR(run(s, "SELECT 1"), "+QUEUED\r\n");
    CHECK_EQ_STR(run(s, "EXEC"),
                 "*2\r\n+PONG\r\n-ERR DB index is out of range (toidd has database 0 only)\r\n");
    CHECK_EQ_INT(g_metrics.resp_ok - ok0, 4);
    CHECK_EQ_INT(g_metrics.resp_err - err0, 1);
    resp_session_close(s);
}

/* Inside MULTI: session rows run at once, NOT_IN_MULTI rows and unknown
 * names abort the transaction, others are queued. */
TEST_CASE(multi_by_flags) {
    resp_session *s = resp_session_open(-1, &cfg);
    CHECK_EQ_STR(run(s, "MULTI"), "+OK\r\n");
    CHECK_EQ_STR(run(s, "MULTI"), "-ERR MULTI calls can not be nested\r\n");
    CHECK_EQ_STR(run(s, "HELLO 3"), "-ERR Command not allowed inside a transaction\r\n");
    CHECK_EQ_STR(run(s, "EXEC"), "-EXECABORT Transaction discarded because of previous errors.\r\n");
    CHECK_EQ_STR(run(s, "MULTI"), "+OK\r\n");
    CHECK_EQ_STR(run(s, "id.nope"), "-ERR unknown command 'id.nope'\r\n");
    CHECK_EQ_STR(run(s, "DISCARD"), "+OK\r\n");
    CHECK_EQ_STR(run(s, "EXEC"), "-ERR EXEC without MULTI\r\n");
    CHECK_EQ_STR(run(s, "WATCH k"), "-ERR WATCH is not supported: toidd keeps no keys\r\n");
    resp_session_close(s);
}

/* With a password: only the NOAUTH rows run before AUTH. */
TEST_CASE(auth_by_flags) {
    strcpy(cfg.requirepass, "pw");
    resp_session *s = resp_session_open(-1, &cfg);
    CHECK_EQ_STR(run(s, "PING"), "-NOAUTH Authentication required.\r\n");
    CHECK_EQ_STR(run(s, "NOPE"), "-NOAUTH Authentication required.\r\n");
    CHECK_EQ_STR(run(s, "AUTH bad"),
                 "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
    CHECK_EQ_STR(run(s, "RESET"), "+RESET\r\n");
    CHECK_EQ_STR(run(s, "AUTH default pw"), "+OK\r\n");
    CHECK_EQ_STR(run(s, "PING"), "+PONG\r\n");
    CHECK_EQ_STR(run(s, "QUIT"), "+OK\r\n");
    resp_session_close(s);
    cfg.requirepass[0] = '\0';
}

/* HELLO checks every argument before it applies any: an error changes
 * neither the authentication, nor the protocol, nor the name. */
TEST_CASE(hello_all_or_nothing) {
    strcpy(cfg.requirepass, "pw");
    resp_session *s = resp_session_open(-1, &cfg);
    static const struct {
        const char *line, *reply;
    } refused[] = {
        {"HELLO 3 AUTH default pw BOGUS", "-ERR Syntax error in HELLO option 'BOGUS'\r\n"},
        {"HELLO 3 AUTH default pw SETNAME a BOGUS", "-ERR Syntax error in HELLO option 'BOGUS'\r\n"},
        {"HELLO 3 AUTH default nope BOGUS", "-ERR Syntax error in HELLO option 'BOGUS'\r\n"},
        {"HELLO 3 AUTH default pw SETNAME", "-ERR Syntax error in HELLO option 'SETNAME'\r\n"},
        {"HELLO 3 AUTH default pw AUTH default", "-ERR Syntax error in HELLO option 'AUTH'\r\n"},
        {"HELLO 3 AUTH default pw SETNAME \"a b\"",
         "-ERR Client names cannot contain spaces, newlines or special characters.\r\n"},
        {"HELLO 3 SETNAME \"a b\" AUTH default nope",
         "-ERR Client names cannot contain spaces, newlines or special characters.\r\n"},
        {"HELLO 4 AUTH default pw", "-NOPROTO unsupported protocol version\r\n"},
        {"HELLO x AUTH default pw", "-ERR Protocol version is not an integer or out of range\r\n"},
        {"HELLO 3 AUTH default nope SETNAME a",
         "-WRONGPASS invalid username-password pair or user is disabled.\r\n"},
        /* the last AUTH is the one tried */
        {"HELLO 3 AUTH default pw AUTH default nope",
         "-WRONGPASS invalid username-password pair or user is disabled.\r\n"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        CHECK_MSG(strcmp(run(s, refused[i].line), refused[i].reply) == 0, "%s: %s",
                  refused[i].line, run(s, refused[i].line));
        CHECK_MSG(strcmp(run(s, "PING"), "-NOAUTH Authentication required.\r\n") == 0,
                  "after %s: still not authenticated", refused[i].line);
    }
    CHECK_EQ_INT(s->proto, 2);
    CHECK_EQ_STR(s->name, "");
    /* the last AUTH and SETNAME win; all three applied together */
    CHECK(strncmp(run(s, "HELLO 3 AUTH default nope AUTH default pw SETNAME a SETNAME b"), "%7\r\n",
                  4) == 0);
    CHECK_EQ_INT(s->proto, 3);
    CHECK_EQ_STR(s->name, "b");
    /* authenticated: a refused HELLO leaves protocol, name and authentication */
    CHECK_EQ_STR(run(s, "HELLO 2 SETNAME c BOGUS"), "-ERR Syntax error in HELLO option 'BOGUS'\r\n");
    CHECK_EQ_STR(run(s, "HELLO 2 SETNAME c AUTH default nope"),
                 "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
    CHECK_EQ_INT(s->proto, 3);
    CHECK_EQ_STR(s->name, "b");
    CHECK_EQ_STR(run(s, "PING"), "+PONG\r\n");
    resp_session_close(s);
    cfg.requirepass[0] = '\0';
}

/* Replies past the output buffer's limit: an EXEC whose known size passes
 * it is refused before anything runs; one that fits exactly is answered;
 * one that fits only once the pending output is sent is RESP_LATER; a
 * reply of unknown size that passes it is replaced by an error. (ID.NEW's
 * sizes: server_attacks, against a real server.) */
TEST_CASE(output_limit) {
    resp_session *s = resp_session_open(-1, &cfg);
    char want[256], echo[128];
    /* ECHO of 100 bytes: "$100\r\n", 100 bytes, "\r\n": 108 bytes */
    memset(echo, 'e', 100);
    strcpy(echo + 100, "");
    char line[140];
    snprintf(line, sizeof line, "ECHO %s", echo);
    size_t exact = 5 + 12 * 108;   /* "*12\r\n" and 12 of them */
    sbuf_free(&out);
    sbuf_init(&out, exact);
    CHECK_EQ_STR(run(s, "MULTI"), "+OK\r\n");
    for (int i = 0; i < 12; i++)
        CHECK_EQ_STR(run(s, line), "+QUEUED\r\n");
    const char *r = run(s, "EXEC");   /* fills the limit to the byte */
    CHECK_MSG(strncmp(r, "*12\r\n$100\r\neee", 14) == 0 && strlen(r) == exact, "%.40s: %zu",
              r, strlen(r));
    CHECK_EQ_STR(run(s, "MULTI"), "+OK\r\n");
    for (int i = 0; i < 12; i++)
        CHECK_EQ_STR(run(s, line), "+QUEUED\r\n");
    CHECK_EQ_STR(run(s, "PING"), "+QUEUED\r\n");
    snprintf(want, sizeof want,
             "-ERR EXEC refused: its reply would be %zu bytes, past the output limit of %zu bytes "
             "(--max-output-bytes); the transaction is discarded, nothing ran\r\n",
             exact + 7, exact);
    CHECK_EQ_STR(run(s, "EXEC"), want);
    CHECK_EQ_STR(run(s, "EXEC"), "-ERR EXEC without MULTI\r\n");
    /* fits the limit, not beside pending output: later, nothing done */
    CHECK_EQ_STR(run(s, "MULTI"), "+OK\r\n");
    CHECK_EQ_STR(run(s, line), "+QUEUED\r\n");
    static resp_cmd cmd;
    static const resp_limits lim = {1024, RESP_MAX_INLINE, RESP_MAX_ARGS};
    CHECK(resp_parse("EXEC\r\n", 6, &lim, &cmd) == 6);
    sbuf_reset(&out);
    CHECK(sbuf_room(&out, exact) != NULL);
    out.len = exact - 111;   /* pending replies: 111 bytes left, 112 needed */
    CHECK_EQ_INT(resp_handle(&cmd, s, &out, &sc, &cfg), RESP_LATER);
    CHECK_EQ_INT(out.len, exact - 111);
    CHECK_EQ_INT(s->multi, 1);
    out.len = exact - 112;
    CHECK_EQ_INT(resp_handle(&cmd, s, &out, &sc, &cfg), 0);
    CHECK_EQ_INT(out.len, exact);
    CHECK_EQ_INT(s->multi, 0);
    /* sizes not known in advance (INFO: some 380 bytes): the reply is
     * replaced by an error */
    sbuf_free(&out);
    sbuf_init(&out, 256);
    CHECK_EQ_STR(run(s, "INFO"),
                 "-ERR the reply would pass the output limit of 256 bytes (--max-output-bytes)\r\n");
    CHECK_EQ_STR(run(s, "MULTI"), "+OK\r\n");
    CHECK_EQ_STR(run(s, "CLIENT SETNAME ran"), "+QUEUED\r\n");
    CHECK_EQ_STR(run(s, "INFO"), "+QUEUED\r\n");
    CHECK_EQ_STR(run(s, "EXEC"),
                 "-ERR EXEC's reply would pass the output limit of 256 bytes "
                 "(--max-output-bytes): its commands ran, their replies are dropped\r\n");
    CHECK_EQ_STR(s->name, "ran");
    CHECK_EQ_STR(run(s, "PING"), "+PONG\r\n");
    sbuf_free(&out);
    sbuf_init(&out, 1 << 20);
    resp_session_close(s);
}

static int setup(int nparam, char **param) {
    (void)nparam;
    (void)param;
    cfg.max_count = 10;
    if (scratch_init(&sc, &cfg) < 0)
        return 2;
    sbuf_init(&out, 1 << 20);
    resp_sessions_init(0);
    return 0;
}

static void teardown(void) {
    sbuf_free(&out);
    scratch_free(&sc);
}

int main(int argc, char **argv) {
    return check_main(argc, argv, setup, teardown);
}
