/* bits.h — a value of up to 160 bits as three little-endian 64-bit limbs, and
 * bit-field access on it; what layout.c reads and writes fields with. */
#ifndef TOID_BITS_H
#define TOID_BITS_H
#include "format.h"

typedef struct toid__wide { uint64_t w[3]; } toid__wide;

static inline toid__wide toid__wide_load(const uint8_t *be, size_t n) {
    toid__wide v = {{0, 0, 0}};
    for (size_t i = 0; i < n; i++) {
        size_t bit = 8 * (n - 1 - i);
        v.w[bit / 64] |= (uint64_t)be[i] << (bit % 64);
    }
    return v;
}

static inline void toid__wide_store(toid__wide v, uint8_t *be, size_t n) {
    for (size_t i = 0; i < n; i++) {
        size_t bit = 8 * (n - 1 - i);
        be[i] = (uint8_t)(v.w[bit / 64] >> (bit % 64));
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
