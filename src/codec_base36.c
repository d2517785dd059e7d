/* codec_base36.c — base36 (Nanoflake): 0-9 a-z, decoded case-insensitively,
 * encoded lower case and zero-padded to 13 digits so that text order is
 * numeric order. Values are 63-bit. */
#include "codec.h"
#include "table.h"

#define DEC(c) (TOID__IN(c, '0', '9') ? (c) - '0' \
    : TOID__IN(c, 'a', 'z') ? (c) - 'a' + 10 \
    : TOID__IN(c, 'A', 'Z') ? (c) - 'A' + 10 : TOID__BAD)
#define DIGIT(v) ((v) < 10 ? '0' + (v) : 'a' + (v) - 10)
#define PAIR(i) DIGIT((i) / 36), DIGIT((i) % 36)
#define T12(b) TOID__T4(PAIR, b), TOID__T4(PAIR, (b) + 4), TOID__T4(PAIR, (b) + 8)

const uint8_t toid__base36_dec[256] = {TOID__TABLE256(DEC)};
/* The 1296 two-digit groups 00..zz. */
static const char pairs[1296 * 2] = {
#define T108(b) T12(b), T12((b) + 12), T12((b) + 24), T12((b) + 36), T12((b) + 48), \
    T12((b) + 60), T12((b) + 72), T12((b) + 84), T12((b) + 96)
    T108(0), T108(108), T108(216), T108(324), T108(432), T108(540),
    T108(648), T108(756), T108(864), T108(972), T108(1080), T108(1188)
#undef T108
};

/* Two digits per step (v < 36^2k), with the divisions by a constant that the
 * compiler turns into multiplications; three independent chains. */
static inline void put_pairs32(uint32_t v, char *out, int npairs) {
    for (int i = npairs - 1; i >= 0; i--) {
        memcpy(out + 2 * i, pairs + 2 * (v % 1296u), 2);
        v /= 1296u;
    }
}

void toid__base36_encode13(uint64_t v, char *out) {
    /* 36^13 > 2^63 > 36^12: split as d0 | 4 digits | 4 digits | 4 digits. */
    const uint64_t p4 = 1679616u;          /* 36^4 */
    const uint64_t p8 = p4 * p4;           /* 36^8 */
    uint64_t top = v / p8;                 /* < 36^5: 5 digits */
    uint64_t low = v % p8;
    uint32_t a = (uint32_t)(top / 36u), b = (uint32_t)(top % 36u);
    uint32_t c = (uint32_t)(low / p4), d = (uint32_t)(low % p4);
    put_pairs32(a, out, 2);                /* digits 0..3 */
    out[4] = pairs[2 * b + 1];             /* digit 4 */
    put_pairs32(c, out + 5, 2);            /* 5..8 */
    put_pairs32(d, out + 9, 2);            /* 9..12 */
}

/* 4 digits as a sum of independent products. */
static inline uint64_t get4(const char *s, unsigned *bad) {
    unsigned d0 = toid__base36_dec[(unsigned char)s[0]], d1 = toid__base36_dec[(unsigned char)s[1]];
    unsigned d2 = toid__base36_dec[(unsigned char)s[2]], d3 = toid__base36_dec[(unsigned char)s[3]];
    *bad |= d0 | d1 | d2 | d3;
    return (d0 & 63u) * 46656u + (d1 & 63u) * 1296u + (d2 & 63u) * 36u + (d3 & 63u);
}

int toid__base36_decode(const char *s, size_t len, uint64_t *v, size_t *err_pos) {
    if (len == 13) {        /* the canonical length: d0 | 3 x 4 digits, side by side */
        unsigned bad = 0, d0 = toid__base36_dec[(unsigned char)s[0]];
        bad |= d0;
        uint64_t a = get4(s + 1, &bad), b = get4(s + 5, &bad), c = get4(s + 9, &bad);
        if (bad & 0x80u) {
            if (err_pos)
                *err_pos = toid__first_bad(s, len, toid__base36_dec);
            return TOID_ECHAR;
        }
        const uint64_t p4 = 1679616u, p8 = p4 * p4, p12 = p8 * p4;   /* 36^12 < 2^63 */
        uint64_t rest = a * p8 + b * p4 + c;
        if (d0 > 1 || (d0 == 1 && rest > (UINT64_MAX >> 1) - p12))
            return TOID_EOVERFLOW;
        *v = d0 * p12 + rest;
        return 0;
    }
    uint64_t acc = 0;
    unsigned bad = 0;
    /* All but the last digit fit: 36^12 < 2^63. */
    for (size_t i = 0; i + 1 < len; i++) {
        unsigned d = toid__base36_dec[(unsigned char)s[i]];
        bad |= d;
        acc = acc * 36u + (d & 63u);
    }
    unsigned last = toid__base36_dec[(unsigned char)s[len - 1]];
    bad |= last;
    if (bad & 0x80u) {
        if (err_pos)
            *err_pos = toid__first_bad(s, len, toid__base36_dec);
        return TOID_ECHAR;
    }
    const uint64_t max = UINT64_MAX >> 1;
    if (acc > (max - last) / 36u)
        return TOID_EOVERFLOW;
    *v = acc * 36u + last;
    return 0;
}
