/* resp_parse.c — RESP2 request framing, strict and bounded. */
#include "resp_parse.h"

#include <string.h>

static long fail(resp_cmd *cmd, const char *why) {
    cmd->err = why;
    return RESP_ERROR;
}

/* A decimal line after a type byte at buf[*pos]: digits (or "-1") then CRLF.
 * Returns 1 with *out, 0 for need more, -1 for a bad line. */
static int number_line(const char *buf, size_t len, size_t *pos, long *out) {
    size_t i = *pos + 1;
    int neg = 0;
    long v = 0;
    size_t digits = 0;
    if (i < len && buf[i] == '-') {
        neg = 1;
        i++;
    }
    while (i < len && buf[i] >= '0' && buf[i] <= '9') {
        if (++digits > 9)
            return -1;
        v = v * 10 + (buf[i] - '0');
        i++;
    }
    if (i >= len)
        return digits > 9 ? -1 : 0;
    if (digits == 0 || buf[i] != '\r')
        return -1;
    if (i + 1 >= len)
        return 0;
    if (buf[i + 1] != '\n')
        return -1;
    *out = neg ? -v : v;
    *pos = i + 2;
    return 1;
}

static long multibulk(const char *buf, size_t len, const resp_limits *lim, resp_cmd *cmd) {
    size_t pos = 0;
    long n;
    int r = number_line(buf, len, &pos, &n);
    if (r < 0)
        return fail(cmd, "invalid multibulk length");
    if (r == 0)
        return RESP_NEED_MORE;
    if (n <= 0)
        return (long)pos;   /* *0 and *-1: nothing to do */
    if ((unsigned long)n > lim->max_args || n > RESP_MAX_ARGS)
        return fail(cmd, "too many arguments");
    for (long k = 0; k < n; k++) {
        if (pos >= len)
            return RESP_NEED_MORE;
        if (buf[pos] != '$')
            return fail(cmd, "expected '$'");
        long blen;
        r = number_line(buf, len, &pos, &blen);
        if (r < 0 || (r > 0 && blen < 0))
            return fail(cmd, "invalid bulk length");
        if (r == 0)
            return RESP_NEED_MORE;
        if ((unsigned long)blen > lim->max_bulk)
            return fail(cmd, "argument too long");
        if (len - pos < (size_t)blen + 2)
            return RESP_NEED_MORE;
        if (buf[pos + (size_t)blen] != '\r' || buf[pos + (size_t)blen + 1] != '\n')
            return fail(cmd, "bulk string not followed by CRLF");
        cmd->argv[k] = buf + pos;
        cmd->argl[k] = (size_t)blen;
        pos += (size_t)blen + 2;
    }
    cmd->argc = (int)n;
    return (long)pos;
}

static long inline_cmd(const char *buf, size_t len, const resp_limits *lim, resp_cmd *cmd) {
    size_t scan = len < lim->max_inline ? len : lim->max_inline;
    const char *nl = memchr(buf, '\n', scan);
    if (!nl)
        return len >= lim->max_inline ? fail(cmd, "too big inline request") : RESP_NEED_MORE;
    size_t end = (size_t)(nl - buf);
    size_t line = end;
    if (line > 0 && buf[line - 1] == '\r')
        line--;
    size_t i = 0;
    int argc = 0;
    for (;;) {
        while (i < line && (buf[i] == ' ' || buf[i] == '\t'))
            i++;
        if (i >= line)
            break;
        size_t s = i;
        while (i < line && buf[i] != ' ' && buf[i] != '\t') {
            if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
                return fail(cmd, "control character in inline request");
            i++;
        }
        if ((unsigned)argc >= lim->max_args || argc >= RESP_MAX_ARGS)
            return fail(cmd, "too many arguments");
        cmd->argv[argc] = buf + s;
        cmd->argl[argc] = i - s;
        argc++;
    }
    cmd->argc = argc;
    return (long)end + 1;
}

long resp_parse(const char *buf, size_t len, const resp_limits *lim, resp_cmd *cmd) {
    cmd->argc = 0;
    cmd->err = NULL;
    if (len == 0)
        return RESP_NEED_MORE;
    if (buf[0] == '*')
        return multibulk(buf, len, lim, cmd);
    return inline_cmd(buf, len, lim, cmd);
}
