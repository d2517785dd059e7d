/* util.c — logging, buffers, time. */
#define _GNU_SOURCE
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void log_msg(const char *level, const char *fmt, ...) {
    char line[1024];
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    int n = snprintf(line, sizeof line, "toidd: %04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s: ",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                     tm.tm_sec, ts.tv_nsec / 1000000, level);
    if (n < 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (m < 0)
        m = 0;
    size_t len = (size_t)n + (size_t)m;
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
}

void sbuf_init(sbuf *b, size_t max) {
    memset(b, 0, sizeof *b);
    b->max = max;
}

void sbuf_free(sbuf *b) {
    free(b->data);
    sbuf_init(b, b->max);
}

void sbuf_reset(sbuf *b) { b->off = b->len = 0; }

char *sbuf_room(sbuf *b, size_t extra) {
    if (b->off > 0 && b->len + extra > b->cap) {   /* compact first */
        memmove(b->data, b->data + b->off, b->len - b->off);
        b->len -= b->off;
        b->off = 0;
    }
    if (extra > b->max || b->len > b->max - extra)
        return NULL;
    if (b->len + extra > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + extra)
            cap *= 2;
        if (cap > b->max)
            cap = b->max;
        char *d = realloc(b->data, cap);
        if (!d)
            return NULL;
        b->data = d;
        b->cap = cap;
    }
    return b->data + b->len;
}

int sbuf_add(sbuf *b, const void *p, size_t n) {
    char *w = sbuf_room(b, n);
    if (!w)
        return -1;
    if (n)
        memcpy(w, p, n);
    b->len += n;
    return 0;
}

int sbuf_str(sbuf *b, const char *s) { return sbuf_add(b, s, strlen(s)); }

int sbuf_printf(sbuf *b, const char *fmt, ...) {
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    char tmp[512];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    int rc = -1;
    if (n >= 0 && (size_t)n < sizeof tmp) {
        rc = sbuf_add(b, tmp, (size_t)n);
    } else if (n >= 0) {
        /* longer than the stack buffer: format again into the buffer itself
         * (room for the terminating NUL, which is not kept) */
        char *w = sbuf_room(b, (size_t)n + 1);
        if (w) {
            vsnprintf(w, (size_t)n + 1, fmt, again);
            b->len += (size_t)n;
            rc = 0;
        }
    }
    va_end(again);
    va_end(ap);
    return rc;
}

void sbuf_consume(sbuf *b, size_t n) {
    b->off += n;
    if (b->off >= b->len)
        b->off = b->len = 0;
}

int64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
