/* bits.h — a value of up to 160 bits as three little-endian 64-bit limbs, and
 * bit-field access on it; what layout.c reads and writes fields with. */
#ifndef TOID_BITS_H
#define TOID_BITS_H
#include "format.h"

typedef struct toid__wide { uint64_t w[3]; } toid__wide;

/* n is 8, 16 or 20 (the formats' sizes): whole big-endian words, not bytes
 * (a byte loop into memory here was most of toid_inspect's time). */
static inline toid__wide toid__wide_load(const uint8_t *be, size_t n) {
    toid__wide v = {{0, 0, 0}};
    if (n == 8) {
        v.w[0] = toid__load64(be);
    } else if (n == 16) {
        v.w[1] = toid__load64(be);
        v.w[0] = toid__load64(be + 8);
    } else {
        v.w[2] = (uint64_t)be[0] << 24 | (uint64_t)be[1] << 16 | (uint64_t)be[2] << 8 | be[3];
        v.w[1] = toid__load64(be + 4);
        v.w[0] = toid__load64(be + 12);
    }
    return v;
}

static inline void toid__wide_store(toid__wide v, uint8_t *be, size_t n) {
    if (n == 8) {
        toid__store64(be, v.w[0]);
    } else if (n == 16) {
        toid__store64(be, v.w[1]);
        toid__store64(be + 8, v.w[0]);
    } else {
        be[0] = (uint8_t)(v.w[2] >> 24);
        be[1] = (uint8_t)(v.w[2] >> 16);
        be[2] = (uint8_t)(v.w[2] >> 8);
        be[3] = (uint8_t)v.w[2];
        toid__store64(be + 4, v.w[1]);
        toid__store64(be + 12, v.w[0]);
    }
}

/* width <= 64 bits at shift. */
static inline uint64_t toid__bits_get(const toid__wide *v, unsigned shift, unsigned width) {
    unsigned i = shift / 64, o = shift % 64;
    uint64_t r = v->w[i] >> o;
    if (o && i + 1 < 3)
        r |= v->w[i + 1] << (64 - o);
    if (width < 64)
        r &= (UINT64_C(1) << width) - 1;
    return r;
}

/* ORs x (width <= 64 bits, already masked) in at shift. */
static inline void toid__bits_or(toid__wide *v, unsigned shift, unsigned width, uint64_t x) {
    unsigned i = shift / 64, o = shift % 64;
    v->w[i] |= x << o;
    if (o && o + width > 64 && i + 1 < 3)
        v->w[i + 1] |= x >> (64 - o);
}
#endif
