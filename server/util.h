/* util.h — logging, a bounded byte buffer, time. */
#ifndef TOIDD_UTIL_H
#define TOIDD_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* One line on stderr, written with a single write(2): "toidd: LEVEL: msg". */
void log_msg(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define log_info(...) log_msg("info", __VA_ARGS__)
#define log_warn(...) log_msg("warning", __VA_ARGS__)
#define log_err(...) log_msg("error", __VA_ARGS__)

/* A byte buffer that grows up to max bytes. data[off..len) is pending. */
typedef struct sbuf {
    char *data;
    size_t off, len, cap, max;
} sbuf;

void sbuf_init(sbuf *b, size_t max);
void sbuf_free(sbuf *b);
/* Room for extra more bytes: returns a pointer to write at, or NULL if that
 * would pass max (or memory ran out). Commit with b->len += n. */
char *sbuf_room(sbuf *b, size_t extra);
int sbuf_add(sbuf *b, const void *p, size_t n);
int sbuf_str(sbuf *b, const char *s);
/* Appends printf-style text of any length: 0, or -1 past the buffer's max. */
int sbuf_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline size_t sbuf_pending(const sbuf *b) { return b->len - b->off; }
/* Drops n pending bytes from the front. */
void sbuf_consume(sbuf *b, size_t n);
void sbuf_reset(sbuf *b);

/* The value of a hex digit (either case), or -1. */
static inline int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* CLOCK_MONOTONIC in ms. */
int64_t mono_ms(void);

#endif
