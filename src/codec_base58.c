/* codec_base58.c — Base58 with the Bitcoin alphabet (uid11): case-sensitive,
 * no 0 O I l; fixed 11 digits MSB first, left-padded with '1'. */
#include "codec.h"
#include "table.h"

#define DEC(c) (TOID__IN(c, '1', '9') ? (c) - '1' \
    : TOID__IN(c, 'A', 'H') ? (c) - 'A' + 9 \
    : TOID__IN(c, 'J', 'N') ? (c) - 'J' + 17 \
    : TOID__IN(c, 'P', 'Z') ? (c) - 'P' + 22 \
    : TOID__IN(c, 'a', 'k') ? (c) - 'a' + 33 \
    : TOID__IN(c, 'm', 'z') ? (c) - 'm' + 44 : TOID__BAD)

const uint8_t toid__base58_dec[256] = {TOID__TABLE256(DEC)};
static const char enc[58] = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

#define P5 656356768u                   /* 58^5 < 2^32 */
#define P10 ((uint64_t)P5 * P5)         /* 58^10 */

/* The 3364 two-digit groups, so encoding divides half as often. */
#define DIGIT(v) ((v) < 9 ? '1' + (v) : (v) < 17 ? 'A' + (v) - 9 : (v) < 22 ? 'J' + (v) - 17 \
    : (v) < 33 ? 'P' + (v) - 22 : (v) < 44 ? 'a' + (v) - 33 : 'm' + (v) - 44)
#define PAIR(i) DIGIT((i) / 58), DIGIT((i) % 58)
#define T4(b) PAIR(b), PAIR((b) + 1), PAIR((b) + 2), PAIR((b) + 3)
#define T116(b) T4(b), T4((b) + 4), T4((b) + 8), T4((b) + 12), T4((b) + 16), T4((b) + 20), T4((b) + 24), \
    T4((b) + 28), T4((b) + 32), T4((b) + 36), T4((b) + 40), T4((b) + 44), T4((b) + 48), T4((b) + 52), \
    T4((b) + 56), T4((b) + 60), T4((b) + 64), T4((b) + 68), T4((b) + 72), T4((b) + 76), T4((b) + 80), \
    T4((b) + 84), T4((b) + 88), T4((b) + 92), T4((b) + 96), T4((b) + 100), T4((b) + 104), T4((b) + 108), \
    T4((b) + 112)
static const char pairs[3364 * 2] = {
    T116(0), T116(116), T116(232), T116(348), T116(464), T116(580), T116(696), T116(812), T116(928),
    T116(1044), T116(1160), T116(1276), T116(1392), T116(1508), T116(1624), T116(1740), T116(1856),
    T116(1972), T116(2088), T116(2204), T116(2320), T116(2436), T116(2552), T116(2668), T116(2784),
    T116(2900), T116(3016), T116(3132), T116(3248)};

/* 5 digits of v < 58^5: 1 + 2 + 2 */
static inline void put5(uint32_t v, char *out) {
    uint32_t a = v / 3364u, b = v % 3364u;        /* a < 58^3 */
    memcpy(out + 3, pairs + 2 * b, 2);
    memcpy(out + 1, pairs + 2 * (a % 3364u), 2);
    out[0] = enc[a / 3364u];
}

void toid__base58_encode11(uint64_t v, char *out) {
    /* d0 | 5 digits | 5 digits: two independent 32-bit chains. */
    uint64_t r = v % P10;
    out[0] = enc[v / P10];
    put5((uint32_t)(r / P5), out + 1);
    put5((uint32_t)(r % P5), out + 6);
}

/* 5 digits as a sum of independent products (no multiply chain). */
static inline uint32_t get5(const char *s, unsigned *bad) {
    unsigned d0 = toid__base58_dec[(unsigned char)s[0]], d1 = toid__base58_dec[(unsigned char)s[1]];
    unsigned d2 = toid__base58_dec[(unsigned char)s[2]], d3 = toid__base58_dec[(unsigned char)s[3]];
    unsigned d4 = toid__base58_dec[(unsigned char)s[4]];
    *bad |= d0 | d1 | d2 | d3 | d4;
    return (d0 & 63u) * 11316496u + (d1 & 63u) * 195112u + (d2 & 63u) * 3364u + (d3 & 63u) * 58u + (d4 & 63u);
}

int toid__base58_decode11(const char *s, uint64_t *v, size_t *err_pos) {
    unsigned bad = 0;
    unsigned d0 = toid__base58_dec[(unsigned char)s[0]];
    bad |= d0;
    uint32_t a = get5(s + 1, &bad), b = get5(s + 6, &bad);
    if (bad & 0x80u) {
        if (err_pos)
            *err_pos = toid__first_bad(s, 11, toid__base58_dec);
        return TOID_ECHAR;
    }
    uint64_t rest = (uint64_t)a * P5 + b;   /* < 58^10 */
    /* 42 * 58^10 < 2^64 < 43 * 58^10 */
    if (d0 > 42u)
        return TOID_EOVERFLOW;
    uint64_t top = (uint64_t)d0 * P10;
    if (rest > UINT64_MAX - top)
        return TOID_EOVERFLOW;
    *v = top + rest;
    return 0;
}

int toid__base58_decode(const char *s, size_t len, uint64_t *hi, uint64_t *lo,
                        size_t *err_pos) {
    uint64_t h = 0, l = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned d = toid__base58_dec[(unsigned char)s[i]];
        if (d == TOID__BAD) {
            if (err_pos)
                *err_pos = i;
            return TOID_ECHAR;
        }
        toid__mul58_add(&h, &l, d);
    }
    *hi = h;
    *lo = l;
    return 0;
}
