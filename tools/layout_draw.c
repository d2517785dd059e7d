/* layout_draw.c — toid inspect --layout: the picture of one ID as the specs
 * draw their formats (32 bits a row, RFC style), with the ID's own bits in
 * the cells, the canonical text with each field's characters marked, and a
 * legend of the values. Every fact comes from toid_layout() and
 * toid_layout_value(); this file only draws. Colour (ANSI SGR) marks each
 * field's bits, characters and legend line in one colour. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROW_BITS 32
#define INDENT "  "

/* A colour per field, in order; fixed bits are dim. */
static const char *const palette[] = {"\033[36m", "\033[33m", "\033[35m", "\033[32m",
                                      "\033[34m", "\033[31m"};
#define DIM "\033[2m"
#define RESET "\033[0m"

typedef struct pen {
    char *buf;
    size_t len, cap;
    int color;
} pen;

static void pen_add(pen *p, const char *s, size_t n) {
    if (p->len + n > p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 4096;
        while (cap < p->len + n)
            cap *= 2;
        char *b = realloc(p->buf, cap);
        if (!b) {
            cli_fail("out of memory");
            cli_exit(CLI_EXIT_FAIL);
        }
        p->buf = b;
        p->cap = cap;
    }
    memcpy(p->buf + p->len, s, n);
    p->len += n;
}

static void pen_str(pen *p, const char *s) { pen_add(p, s, strlen(s)); }

static void pen_rep(pen *p, char c, size_t n) {
    while (n--)
        pen_add(p, &c, 1);
}

/* Fixed bits dim; the others take the palette in order (the time first). */
static const char *color_of(const toid_layout_field *l, int i) {
    if (l[i].kind == TOID_LAYOUT_FIXED)
        return DIM;
    int k = 0;
    for (int j = 0; j < i; j++)
        k += l[j].kind != TOID_LAYOUT_FIXED;
    return palette[k % (int)(sizeof palette / sizeof *palette)];
}

static void pen_on(pen *p, const toid_layout_field *l, int i) {
    if (p->color)
        pen_str(p, color_of(l, i));
}

static void pen_off(pen *p) {
    if (p->color)
        pen_str(p, RESET);
}

/* The field that holds bit b. */
static int field_at(const toid_layout_field *l, int n, unsigned b) {
    int i = 0;
    while (i + 1 < n && b >= l[i].bit_offset + l[i].bit_width)
        i++;
    return i;
}

/* A label of exactly `width` characters: the name centred, or the fixed
 * value, or as much of the name as fits. */
static void label(pen *p, const toid_layout_field *f, size_t width) {
    char name[32];
    size_t n = strlen(f->name);
    memcpy(name, f->name, n < sizeof name ? n + 1 : sizeof name);
    if (n > width && f->kind == TOID_LAYOUT_FIXED) {
        n = (size_t)snprintf(name, sizeof name, "%llu", (unsigned long long)f->fixed_value);
    }
    if (n > width)
        n = width;
    size_t left = (width - n) / 2;
    pen_rep(p, ' ', left);
    pen_add(p, name, n);
    pen_rep(p, ' ', width - n - left);
}

static void bit_ruler(pen *p) {
    pen_str(p, INDENT " ");
    for (int b = 0; b < ROW_BITS; b += 10) {   /* the tens, over their first bit */
        pen_add(p, &"0123456789"[b / 10], 1);
        if (b + 10 < ROW_BITS)
            pen_rep(p, ' ', 19);
    }
    pen_str(p, "\n");
    pen_str(p, INDENT " ");
    for (int b = 0; b < ROW_BITS; b++) {
        pen_add(p, &"0123456789"[b % 10], 1);
        pen_str(p, b + 1 < ROW_BITS ? " " : "\n");
    }
}

static void rule(pen *p) {
    pen_str(p, INDENT);
    for (int b = 0; b < ROW_BITS; b++)
        pen_str(p, "+-");
    pen_str(p, "+\n");
}

/* One 32-bit row: the labels of its fields, then its bits. */
static void bit_row(pen *p, const toid_layout_field *l, int n, const uint8_t *bin, unsigned row) {
    unsigned lo = row * ROW_BITS, hi = lo + ROW_BITS;
    for (int line = 0; line < 2; line++) {
        pen_str(p, INDENT "|");
        unsigned b = lo;
        while (b < hi) {
            int i = field_at(l, n, b);
            unsigned end = l[i].bit_offset + l[i].bit_width;
            if (end > hi)
                end = hi;
            pen_on(p, l, i);
            if (line == 0) {
                label(p, &l[i], 2 * (end - b) - 1);
            } else {
                for (unsigned k = b; k < end; k++) {
                    pen_add(p, (bin[k / 8] >> (7 - k % 8) & 1u) ? "1" : "0", 1);
                    if (k + 1 < end)
                        pen_str(p, " ");
                }
            }
            pen_off(p);
            pen_str(p, "|");
            b = end;
        }
        pen_str(p, "\n");
    }
    rule(p);
}

/* The canonical text, each field's characters in its colour, and under it
 * a bracket per field that has characters: [name---]. */
static void text_lines(pen *p, toid_format f, const toid_layout_field *l, int n,
                       const uint8_t *bin) {
    char text[TOID_TEXT_MAX];
    int tl = toid_encode(f, bin, text, sizeof text);
    int spans = 0;
    for (int i = 0; i < n; i++)
        spans += l[i].char_start >= 0;
    pen_str(p, INDENT);
    int c = 0;
    while (c < tl) {                       /* runs of one owner (-1: none) */
        int owner = -1;
        for (int i = 0; i < n; i++)
            if (l[i].char_start >= 0 && c >= l[i].char_start)
                owner = c < l[i].char_start + (int)l[i].char_len ? i : -1;
        int end = owner >= 0 ? l[owner].char_start + (int)l[owner].char_len : c + 1;
        if (owner >= 0)
            pen_on(p, l, owner);
        pen_add(p, text + c, (size_t)(end - c));
        if (owner >= 0)
            pen_off(p);
        c = end;
    }
    pen_str(p, "\n");
    if (!spans) {
        pen_str(p, INDENT "(");
        pen_str(p, toid_format_get(f)->alphabet);
        pen_str(p, ": every character depends on the whole value)\n");
        return;
    }
    pen_str(p, INDENT);
    int col = 0;
    for (int i = 0; i < n; i++) {
        if (l[i].char_start < 0)
            continue;
        pen_rep(p, ' ', (size_t)(l[i].char_start - col));
        size_t w = l[i].char_len;
        pen_on(p, l, i);
        if (w == 1) {
            pen_add(p, l[i].name, 1);
        } else {
            size_t inner = w - 2, nl = strlen(l[i].name);
            if (nl > inner)
                nl = inner;
            pen_str(p, "[");
            pen_add(p, l[i].name, nl);
            pen_rep(p, '-', inner - nl);
            pen_str(p, "]");
        }
        pen_off(p);
        col = l[i].char_start + (int)w;
    }
    pen_str(p, "\n");
}

/* "name  bits A..B  chars C..D  value" per field. */
static void legend(pen *p, toid_format f, const toid_layout_field *l, int n, const uint8_t *bin,
                   int64_t epoch_ms) {
    char line[256], value[48], chars[24], time[64] = "";
    toid_field d[TOID_FIELDS_MAX];
    int nd = toid_describe(f, bin, epoch_ms, d);
    for (int i = 0; i < nd; i++)
        if (d[i].id == TOID_FIELD_TIME)
            snprintf(time, sizeof time, " (%s)", d[i].value);
    snprintf(line, sizeof line, INDENT "%-9s %-9s %-7s %s\n", "field", "bits", "chars", "value");
    pen_str(p, line);
    for (int i = 0; i < n; i++) {
        char bits[24];
        if (toid_layout_value(f, bin, epoch_ms, &l[i], value, sizeof value) < 0)
            snprintf(value, sizeof value, "?");
        snprintf(bits, sizeof bits, "%u..%u", l[i].bit_offset,
                 l[i].bit_offset + l[i].bit_width - 1);
        if (l[i].char_start >= 0)
            snprintf(chars, sizeof chars, "%d..%u", l[i].char_start,
                     (unsigned)l[i].char_start + l[i].char_len - 1);
        else
            snprintf(chars, sizeof chars, "-");
        pen_str(p, INDENT);
        pen_on(p, l, i);
        snprintf(line, sizeof line, "%-9s", l[i].name);
        pen_str(p, line);
        pen_off(p);
        snprintf(line, sizeof line, " %-9s %-7s %s%s%s\n", bits, chars, value,
                 l[i].kind == TOID_LAYOUT_TIME ? time : "",
                 l[i].kind == TOID_LAYOUT_FIXED ? " (fixed)" : "");
        pen_str(p, line);
    }
}

void layout_draw(toid_format f, const uint8_t *bin, int64_t epoch_ms, int color) {
    toid_layout_field l[TOID_LAYOUT_MAX];
    int n = toid_layout(f, l);
    if (n <= 0)
        return;
    pen p = {NULL, 0, 0, color};
    pen_str(&p, "\n");
    text_lines(&p, f, l, n, bin);
    pen_str(&p, "\n");
    bit_ruler(&p);
    rule(&p);
    for (unsigned r = 0; r < 8u * toid_bin_size(f) / ROW_BITS; r++)
        bit_row(&p, l, n, bin, r);
    pen_str(&p, "\n");
    legend(&p, f, l, n, bin, epoch_ms);
    out_write(p.buf, p.len);
    free(p.buf);
}

int layout_color(const char *when) {
    if (strcmp(when, "always") == 0)
        return 1;
    if (strcmp(when, "never") == 0)
        return 0;
    if (strcmp(when, "auto") != 0)
        return -1;
    const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
    if (no && *no)
        return 0;
    if (term && strcmp(term, "dumb") == 0)
        return 0;
    return isatty(STDOUT_FILENO);
}
