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

static inline void put5(uint32_t v, char *out) {
    for (int i = 4; i >= 0; i--) {
        out[i] = enc[v % 58u];
        v /= 58u;
    }
}

void toid__base58_encode11(uint64_t v, char *out) {
    /* d0 | 5 digits | 5 digits: two independent 32-bit chains. */
    uint64_t r = v % P10;
    out[0] = enc[v / P10];
    put5((uint32_t)(r / P5), out + 1);
    put5((uint32_t)(r % P5), out + 6);
}

static inline uint32_t get5(const char *s, unsigned *bad) {
    uint32_t v = 0;
    for (int i = 0; i < 5; i++) {
        unsigned d = toid__base58_dec[(unsigned char)s[i]];
        *bad |= d;
        v = v * 58u + (d & 63u);
    }
    return v;
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
        /* (h:l) = (h:l) * 58 + d, in 32-bit pieces to stay portable. */
        uint64_t l0 = (l & 0xFFFFFFFFu) * 58u + d;
        uint64_t l1 = (l >> 32) * 58u + (l0 >> 32);
        l = (l1 << 32) | (l0 & 0xFFFFFFFFu);
        h = h * 58u + (l1 >> 32);
    }
    *hi = h;
    *lo = l;
    return 0;
}
