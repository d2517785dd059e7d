/* flake13.h — the 13-symbol Crockford base32 text of a 63-bit value, shared
 * by ulid-flake and ulid-flake-scalable (65 bits of text: first symbol 0..7). */
#ifndef TOID_FLAKE13_H
#define TOID_FLAKE13_H
#include "codec.h"

static inline int toid__flake13_decode(const char *s, size_t len, uint8_t *bin, size_t *err_pos) {
    if (len != 13)
        return TOID_ELENGTH;
    unsigned bad = 0;
    const uint8_t *t = toid__crockford32_dec;
    uint64_t a = toid__b32_get(s, 1, t, &bad);
    uint64_t b = toid__b32_get(s + 1, 12, t, &bad);
    if (bad & 0x80u) {
        if (err_pos)
            *err_pos = toid__first_bad(s, 13, t);
        return TOID_ECHAR;
    }
    if (a > 7)
        return TOID_EOVERFLOW;
    toid__store64(bin, (a << 60) | b);
    return 0;
}

static inline void toid__flake13_encode(const uint8_t *bin, char *out) {
    uint64_t v = toid__load64(bin);
    out[0] = toid__crockford32_enc[v >> 60];
    toid__b32_put(v, 12, toid__crockford32_enc, out + 1);
}

/* 2024-01-01T00:00:00.000Z */
#define TOID__EPOCH_2024 INT64_C(1704067200000)
#define TOID__MAX63 (UINT64_MAX >> 1)
#endif
