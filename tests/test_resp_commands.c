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
    sbuf_add(&out, "", 1);
    return out.data;
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
