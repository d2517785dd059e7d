/* flake13.h — the 13-symbol Crockford base32 text of a 63-bit value, shared
 * by ulid-flake and ulid-flake-scalable (65 bits of text: first symbol 0..7). */
#ifndef TOID_FLAKE13_H
#define TOID_FLAKE13_H
#include "codec.h"
#include "gen.h"

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

/* The "+n entropy" rule of both Ulid-Flake variants (Go/Python reference
 * behaviour): a new ms draws fresh random bits; the same ms adds an n-byte
 * big-endian integer, redrawn while it is 0; past the field's maximum it is
 * the overflow error and nothing changes. */
static inline int toid__flake_next(toid__core *c, uint8_t *out, unsigned rbits, unsigned sid_bits) {
    const toid_gen_head *g = c->g;
    const uint64_t max_r = (UINT64_C(1) << rbits) - 1;
    uint8_t b[3];
    uint64_t r;
    if (!c->t.same) {
        int rc = toid__draw(c, b, (rbits + 7) / 8);
        if (rc < 0)
            return rc;
        r = toid__be(b, (rbits + 7) / 8) & max_r;
    } else {
        uint64_t inc = 0;
        for (int tries = 0; inc == 0; tries++) {
            if (tries == 64)
                return TOID_EENTROPY;     /* a source of only zeros */
            int rc = toid__draw(c, b, g->cfg.entropy_bytes);
            if (rc < 0)
                return rc;
            inc = toid__be(b, g->cfg.entropy_bytes);
        }
        r = ((toid__load64(g->last) >> sid_bits) & max_r) + inc;
        if (r > max_r)
            return TOID_EOVERFLOW;
    }
    return toid__issue64(c, toid__ts(c) << 20 | r << sid_bits | g->cfg.node, out);
}

/* The state in one word: the last ID (63 bits) and a mark bit. */
static inline uint64_t toid__flake_pack(const toid_gen_head *g) {
    return g->last_ms == INT64_MIN ? 0 : toid__load64(g->last) << 1 | 1;
}

static inline void toid__flake_unpack(uint64_t w, toid_gen_head *g) {
    toid__store64(g->last, w >> 1);
    g->last_ms = w ? g->epoch_ms + (int64_t)(w >> 21) : INT64_MIN;
}

/* Nanoflake's text (1..13 base36 digits in, 13 out) and binary forms,
 * shared by nanoflake-ref24 (fmt_nanoflake.c). */
int toid__nanoflake_decode(const char *s, size_t len, uint8_t *bin, size_t *err_pos) TOID__HIDDEN;
void toid__nanoflake_encode(const uint8_t *bin, char *out) TOID__HIDDEN;

/* 2024-01-01T00:00:00.000Z */
#define TOID__EPOCH_2024 INT64_C(1704067200000)
#define TOID__MAX63 (UINT64_MAX >> 1)
#endif
