/* test_resp_parse.c — toidd's RESP2 request parser (server/resp_parse.c):
 * multibulk and inline commands, quotes, limits and protocol errors. Every
 * input is placed right before a PROT_NONE page (guard_page.h), so a read
 * past the input crashes the test: valid commands, every proper prefix of
 * them (need more), commands over each limit, each class of malformed one. */
#include "guard_page.h"   /* first: it asks for MAP_ANONYMOUS */

#include <string.h>

#include "check.h"
#include "resp_parse.h"

static guard_page guard;
static const resp_limits lim = {32, 128, 4};

static long parse_n(const char *s, size_t n, resp_cmd *cmd) {
    return resp_parse(guard_put(&guard, s, n), n, &lim, cmd);
}

static long parse(const char *s, resp_cmd *cmd) { return parse_n(s, strlen(s), cmd); }

static int arg_is(const resp_cmd *cmd, int i, const char *want, size_t wl) {
    return i < cmd->argc && cmd->argl[i] == wl && memcmp(cmd->argv[i], want, wl) == 0;
}
#define ARG_IS(cmd, i, lit) arg_is(cmd, i, lit, sizeof lit - 1)

static void check_prefixes_need_more(const char *s, size_t n) {
    for (size_t k = 0; k < n; k++) {
        resp_cmd cmd;
        long r = parse_n(s, k, &cmd);
        CHECK_MSG(r == RESP_NEED_MORE, "prefix %zu of \"%.30s\": %ld", k, s, r);
    }
}

TEST_CASE(multibulk) {
    resp_cmd cmd;
    const char *s = "*3\r\n$6\r\nID.NEW\r\n$4\r\nulid\r\n$2\r\n10\r\n";
    CHECK_EQ_INT(parse(s, &cmd), (long)strlen(s));
    CHECK_EQ_INT(cmd.argc, 3);
    CHECK(ARG_IS(&cmd, 0, "ID.NEW") && ARG_IS(&cmd, 1, "ulid") && ARG_IS(&cmd, 2, "10"));
    check_prefixes_need_more(s, strlen(s));
    /* binary arguments: CR, LF and NUL inside a bulk string */
    static const char bin[] = "*2\r\n$4\r\nECHO\r\n$5\r\na\r\n\0b\r\n";
    CHECK_EQ_INT(parse_n(bin, sizeof bin - 1, &cmd), (long)sizeof bin - 1);
    CHECK(ARG_IS(&cmd, 1, "a\r\n\0b"));
    check_prefixes_need_more(bin, sizeof bin - 1);
    /* the longest argument and the most arguments the limits allow */
    const char *full = "*4\r\n$1\r\na\r\n$0\r\n\r\n$1\r\nc\r\n"
                       "$32\r\n0123456789abcdef0123456789abcdef\r\n";
    CHECK_EQ_INT(parse(full, &cmd), (long)strlen(full));
    CHECK_EQ_INT(cmd.argc, 4);
    CHECK(ARG_IS(&cmd, 1, ""));
    /* empty and null multibulks: consumed, no command */
    CHECK_EQ_INT(parse("*0\r\n", &cmd), 4);
    CHECK_EQ_INT(cmd.argc, 0);
    CHECK_EQ_INT(parse("*-1\r\n", &cmd), 5);
    CHECK_EQ_INT(cmd.argc, 0);
    /* any negative count is no command either, as in Redis (up to 18 digits) */
    CHECK_EQ_INT(parse("*-2\r\n", &cmd), 5);
    CHECK_EQ_INT(cmd.argc, 0);
    CHECK_EQ_INT(parse("*-99999999999\r\nPING\r\n", &cmd), 15);
    CHECK_EQ_INT(cmd.argc, 0);
    CHECK_EQ_INT(parse("*-123456789012345678\r\n", &cmd), 22);
    check_prefixes_need_more("*-2\r\n", 5);
    check_prefixes_need_more("*-123456789012345678\r\n", 22);
    /* $0: an empty argument (an empty name: an unknown command) */
    CHECK_EQ_INT(parse("*1\r\n$0\r\n\r\n", &cmd), 10);
    CHECK(cmd.argc == 1 && ARG_IS(&cmd, 0, ""));
    /* pipelined: the first command only */
    const char *two = "*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING\r\n";
    CHECK_EQ_INT(parse(two, &cmd), 14);
}

TEST_CASE(inline) {
    static const struct {
        const char *line;
        int argc;
        const char *arg1;   /* the second argument, unquoted */
        size_t arg1_len;
    } cases[] = {
        {"PING\r\n", 1, NULL, 0},
        {"PING\n", 1, NULL, 0},
        {"  ID.NEW \t ulid  \r\n", 2, "ulid", 4},
        {"ECHO \"a b\\n\\x41\\\"\"\r\n", 2, "a b\nA\"", 6},
        {"ECHO 'it\\'s'\r\n", 2, "it's", 4},
        {"ECHO ab\"c d\"\r\n", 2, "abc d", 5},   /* a quote may open inside a token */
        {"ECHO \"\"\r\n", 2, "", 0},
        {"ECHO \x80\xff\r\n", 2, "\x80\xff", 2},
        {"\r\n", 0, NULL, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        resp_cmd cmd;
        const char *s = cases[i].line;
        CHECK_EQ_INT(parse(s, &cmd), (long)strlen(s));
        CHECK_MSG(cmd.argc == cases[i].argc, "inline case %zu: argc %d", i, cmd.argc);
        if (cases[i].arg1)
            CHECK_MSG(arg_is(&cmd, 1, cases[i].arg1, cases[i].arg1_len), "inline case %zu", i);
        check_prefixes_need_more(s, strlen(s));
    }
}

/* Each limit: at it parses, past it is a protocol error. */
TEST_CASE(oversize) {
    resp_cmd cmd;
    /* a bulk argument of max_bulk + 1 bytes: refused once its length is read */
    CHECK_EQ_INT(parse("*1\r\n$33\r\n", &cmd), RESP_ERROR);
    CHECK_EQ_INT(parse("*1\r\n$32\r\n", &cmd), RESP_NEED_MORE);
    /* max_args + 1 arguments, multibulk and inline */
    CHECK_EQ_INT(parse("*5\r\n", &cmd), RESP_ERROR);
    CHECK_EQ_INT(parse("a b c d\r\n", &cmd), 9);
    CHECK_EQ_INT(parse("a b c d e\r\n", &cmd), RESP_ERROR);
    /* an inline line with no LF within max_inline bytes */
    char line[256];
    memset(line, 'x', sizeof line);
    CHECK_EQ_INT(parse_n(line, lim.max_inline, &cmd), RESP_ERROR);
    CHECK_EQ_INT(parse_n(line, lim.max_inline - 1, &cmd), RESP_NEED_MORE);
    line[lim.max_inline - 1] = '\n';
    CHECK_EQ_INT(parse_n(line, lim.max_inline, &cmd), (long)lim.max_inline);
    /* a length of ten digits */
    CHECK_EQ_INT(parse("*1\r\n$1234567890\r\n", &cmd), RESP_ERROR);
    CHECK_EQ_INT(parse("*1234567890", &cmd), RESP_ERROR);
}

/* One command for each protocol error; every prefix of it either needs more
 * or is the same error. */
TEST_CASE(malformed) {
    static const char *const cases[] = {
        "*x\r\n",                          /* multibulk length not a number */
        "*\r\n",                           /* no digits */
        "*1\n",                            /* LF without CR */
        "*1\rx",                           /* CR without LF */
        "*1\r\n:4\r\nPING\r\n",            /* not '$' */
        "*1\r\n$-1\r\n",                   /* null bulk as an argument */
        "*1\r\n$-2\r\n",                   /* negative bulk length */
        "*1\r\n$-0\r\n\r\n",               /* "-0": not how Redis writes 0 */
        "*1\r\n$04\r\nPING\r\n",           /* a leading zero */
        "*-0\r\n",                         /* the same in a count */
        "*01\r\n$4\r\nPING\r\n",
        "*+1\r\n$4\r\nPING\r\n",           /* a sign other than '-' */
        "*-1234567890123456789\r\n",       /* 19 digits */
        "*1\r\n$x\r\n",                    /* bulk length not a number */
        "*1\r\n$4\r\nPINGxx",              /* bulk not followed by CRLF */
        "*2\r\n$4\r\nPING\r\n*1\r\n",      /* a new command where an argument belongs */
        "ECHO \"abc\r\n",                  /* unbalanced double quote */
        "ECHO 'abc\r\n",                   /* unbalanced single quote */
        "ECHO \"a\"b\r\n",                 /* closing quote not ending the token */
        "ECHO a\x01\r\n",                  /* control character */
        "ECHO \"a\x7f\"x\r\n",             /* quote closed mid-token */
        "EC\x1bHO\r\n",                    /* control character in the name */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        resp_cmd cmd;
        const char *s = cases[i];
        long r = parse(s, &cmd);
        CHECK_MSG(r == RESP_ERROR && cmd.err != NULL, "malformed case %zu: %ld", i, r);
        for (size_t k = 0; k < strlen(s); k++) {
            r = parse_n(s, k, &cmd);
            CHECK_MSG(r == RESP_NEED_MORE || r == RESP_ERROR, "malformed case %zu, prefix %zu: %ld",
                      i, k, r);
        }
    }
}

GUARD_PAGE_MAIN(guard, 4096)
