/* resp_reply.c — RESP2/RESP3 reply writers (see resp_reply.h). */
#include "resp_reply.h"

#include <string.h>

#include "metrics.h"

int resp_ieq(const char *s, size_t n, const char *upper) {
    size_t m = strlen(upper);
    if (n != m)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'a' && c <= 'z')
            c = (char)(c - 32);
        if (c != upper[i])
            return 0;
    }
    return 1;
}

int resp_bulk(sbuf *o, const char *s, size_t n) {
    return sbuf_printf(o, "$%zu\r\n", n) | sbuf_add(o, s, n) | sbuf_add(o, "\r\n", 2);
}

int resp_bulk_str(sbuf *o, const char *s) { return resp_bulk(o, s, strlen(s)); }

int resp_array(sbuf *o, size_t n) { return sbuf_printf(o, "*%zu\r\n", n); }

int resp_int(sbuf *o, long long v) { return sbuf_printf(o, ":%lld\r\n", v); }

int resp_map(sbuf *o, size_t pairs, int proto) {
    return proto >= 3 ? sbuf_printf(o, "%%%zu\r\n", pairs) : resp_array(o, 2 * pairs);
}

int resp_null(sbuf *o, int proto) { return sbuf_str(o, proto >= 3 ? "_\r\n" : "$-1\r\n"); }

int resp_null_array(sbuf *o, int proto) { return sbuf_str(o, proto >= 3 ? "_\r\n" : "*-1\r\n"); }

int resp_verbatim(sbuf *o, const char *s, size_t n, int proto) {
    if (proto < 3)
        return resp_bulk(o, s, n);
    return sbuf_printf(o, "=%zu\r\ntxt:", n + 4) | sbuf_add(o, s, n) | sbuf_add(o, "\r\n", 2);
}

int resp_err(sbuf *o, const char *msg) {
    METRIC_ADD(resp_err, 1);
    return sbuf_printf(o, "-%s\r\n", msg);
}

void resp_count_ok(void) { METRIC_ADD(resp_ok, 1); }

void resp_printable(char *dst, size_t cap, const char *s, size_t n) {
    size_t j = 0;
    for (size_t i = 0; i < n && j + 4 < cap; i++)
        dst[j++] = (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\'') ? s[i] : '?';
    if (n > cap - 4) {
        dst[j++] = '.';
        dst[j++] = '.';
    }
    dst[j] = '\0';
}
