/* resp_parse.c — RESP2 request framing, strict and bounded. */
#include "resp_parse.h"

#include <string.h>

#include "util.h"

static long fail(resp_cmd *cmd, const char *why) {
    cmd->err = why;
    return RESP_ERROR;
}

/* A decimal line after a type byte at buf[*pos], written as Redis writes
 * and reads them (string2ll): "0", or digits without a leading zero after
 * an optional '-' (not "-0", "+1", "01" or " 1"), at most 9 digits (18
 * after '-'), then CRLF. Returns 1 with *out, 0 for need more, -1 for a bad line (as soon as
 * no continuation could make it good). */
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
        if (digits == 1 && v == 0)
            return -1;   /* a leading zero, "-0" included */
        if (++digits > (neg ? 18u : 9u))
            return -1;   /* (no count or length of toidd's has 10 digits) */
        v = v * 10 + (buf[i] - '0');
        i++;
    }
    if (neg && digits == 1 && v == 0)
        return -1;       /* "-0" */
    if (i >= len)
        return 0;
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
        return (long)pos;   /* *0, *-1, any *-N: no command, as Redis ignores them */
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

static int blank(char c) { return c == ' ' || c == '\t'; }

/* A token holding quotes, from buf[*i] up to a blank or the end of the line,
 * unescaped into dst. Returns its length, or -1 with *why. Redis's rules: a
 * quote may open anywhere in a token and its closing quote must end the
 * token. */
static long quoted_token(const char *buf, size_t line, size_t *i, char *dst, const char **why) {
    size_t k = *i;
    long n = 0;
    while (k < line && !blank(buf[k])) {
        char q = buf[k];
        if (q != '"' && q != '\'') {
            if ((unsigned char)q < 0x20 || q == 0x7f) {
                *why = "control character in inline request";
                return -1;
            }
            dst[n++] = q;
            k++;
            continue;
        }
        k++;
        for (;;) {
            if (k >= line) {
                *why = "unbalanced quotes in request";
                return -1;
            }
            char c = buf[k];
            if (c == q) {
                k++;
                if (k < line && !blank(buf[k])) {
                    *why = "unbalanced quotes in request";
                    return -1;
                }
                *i = k;
                return n;
            }
            if (c == '\\' && k + 1 < line) {
                char e = buf[k + 1];
                if (q == '\'') {
                    if (e == '\'') {
                        dst[n++] = '\'';
                        k += 2;
                        continue;
                    }
                } else if (e == 'x' && k + 3 < line && hex_value(buf[k + 2]) >= 0 &&
                           hex_value(buf[k + 3]) >= 0) {
                    dst[n++] = (char)(hex_value(buf[k + 2]) * 16 + hex_value(buf[k + 3]));
                    k += 4;
                    continue;
                } else {
                    switch (e) {
                    case 'n': dst[n++] = '\n'; break;
                    case 'r': dst[n++] = '\r'; break;
                    case 't': dst[n++] = '\t'; break;
                    case 'b': dst[n++] = '\b'; break;
                    case 'a': dst[n++] = '\a'; break;
                    default: dst[n++] = e; break;
                    }
                    k += 2;
                    continue;
                }
            }
            dst[n++] = c;
            k++;
        }
    }
    *i = k;
    return n;
}

static long inline_cmd(const char *buf, size_t len, const resp_limits *lim, resp_cmd *cmd) {
    size_t max = lim->max_inline < RESP_MAX_INLINE ? lim->max_inline : RESP_MAX_INLINE;
    size_t scan = len < max ? len : max;
    const char *nl = memchr(buf, '\n', scan);
    if (!nl)
        return len >= max ? fail(cmd, "too big inline request") : RESP_NEED_MORE;
    size_t end = (size_t)(nl - buf);
    size_t line = end;
    if (line > 0 && buf[line - 1] == '\r')
        line--;
    size_t i = 0, used = 0;   /* used: bytes of cmd->unquoted (never more than line) */
    int argc = 0;
    for (;;) {
        while (i < line && blank(buf[i]))
            i++;
        if (i >= line)
            break;
        if ((unsigned)argc >= lim->max_args || argc >= RESP_MAX_ARGS)
            return fail(cmd, "too many arguments");
        size_t s = i;
        while (i < line && !blank(buf[i]) && buf[i] != '"' && buf[i] != '\'') {
            if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
                return fail(cmd, "control character in inline request");
            i++;
        }
        if (i < line && !blank(buf[i])) {      /* a quote: undo it into unquoted */
            i = s;
            const char *why = NULL;
            long n = quoted_token(buf, line, &i, cmd->unquoted + used, &why);
            if (n < 0)
                return fail(cmd, why);
            cmd->argv[argc] = cmd->unquoted + used;
            cmd->argl[argc] = (size_t)n;
            used += (size_t)n;
        } else {
            cmd->argv[argc] = buf + s;
            cmd->argl[argc] = i - s;
        }
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
