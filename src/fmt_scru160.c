/* fmt_scru160.c — SCRU160: 48-bit ms | 16-bit counter | 16-bit random16 |
 * 80-bit random80; 32 base32hex symbols (exactly 160 bits) or 40 hex; 20
 * bytes. Timestamps 0 and 2^48-1 are reserved: decoded, never generated. */
#define _POSIX_C_SOURCE 200809L    /* clock_gettime, for gen_owner.h */
#include "codec.h"
#include "gen.h"
#include "simd.h"
#include "gen_owner.h"

/* 32 base32hex symbols: 8 symbols <-> 5 bytes, four times. Each 40-bit group
 * goes out as one 8-byte big-endian store into a scratch buffer (the next
 * group's store overwrites the 3 spare bytes). Measured faster here than
 * composing the 160 bits in registers, which spilled. */
static int scru160_decode32(const char *s, uint8_t *bin, size_t *err_pos) {
    const uint8_t *t = toid__base32hex_dec;
    unsigned bad = 0;
    uint64_t g0 = toid__b32_get(s, 8, t, &bad), g1 = toid__b32_get(s + 8, 8, t, &bad);
    uint64_t g2 = toid__b32_get(s + 16, 8, t, &bad), g3 = toid__b32_get(s + 24, 8, t, &bad);
    if (bad & 0x80u) {
        if (err_pos)
            *err_pos = toid__first_bad(s, 32, t);
        return TOID_ECHAR;
    }
    uint8_t out[24];
    toid__store64(out, g0 << 24);
    toid__store64(out + 5, g1 << 24);
    toid__store64(out + 10, g2 << 24);
    toid__store64(out + 15, g3 << 24);
    memcpy(bin, out, 20);
    return 0;
}

/* 40 hex digits, any case. */
static int scru160_decode40(const char *s, uint8_t *bin, size_t *err_pos) {
    uint8_t out[20];
    unsigned bad = 0;
    for (int i = 0; i < 20; i++) {
        unsigned hi = toid__hex_dec[(unsigned char)s[2 * i]];
        unsigned lo = toid__hex_dec[(unsigned char)s[2 * i + 1]];
        bad |= hi | lo;
        out[i] = (uint8_t)((hi << 4) | (lo & 15u));
    }
    if (bad & 0x80u) {
        if (err_pos)
            *err_pos = toid__first_bad(s, 40, toid__hex_dec);
        return TOID_ECHAR;
    }
    memcpy(bin, out, 20);
    return 0;
}

static int scru160_decode_scalar(const char *s, size_t len, uint8_t *bin, size_t *err_pos) {
    if (len == 32)
        return scru160_decode32(s, bin, err_pos);
    if (len == 40)
        return scru160_decode40(s, bin, err_pos);
    return TOID_ELENGTH;
}

#if TOID__HAVE_SIMD
static int scru160_decode_simd(const char *s, size_t len, uint8_t *bin, size_t *err_pos) {
    if (len == 32 && TOID__SIMD(scru160_decode32)(s, bin) == 0)
        return 0;
    if (len == 40 && TOID__SIMD(hex40_decode)(s, bin) == 0)
        return 0;
    return scru160_decode_scalar(s, len, bin, err_pos);  /* anything they do not accept: the scalar code says why */
}
#endif

static int scru160_decode(const char *s, size_t len, uint8_t *bin, size_t *err_pos) {
    return TOID__PICK(scru160_decode_simd, scru160_decode_scalar, (s, len, bin, err_pos));
}

static void scru160_encode_scalar(const uint8_t *bin, char *out) {
    for (int i = 0; i < 4; i++) {
        const uint8_t *p = bin + 5 * i;
        uint64_t g = ((uint64_t)p[0] << 32) | ((uint64_t)p[1] << 24) | ((uint64_t)p[2] << 16) |
                     ((uint64_t)p[3] << 8) | p[4];
        toid__b32_put(g, 8, toid__base32hex_enc, out + 8 * i);
    }
}

static void scru160_encode(const uint8_t *bin, char *out) {
    TOID__PICK(TOID__SIMD(scru160_encode), scru160_encode_scalar, (bin, out));
}

/* Counter: a 15-bit random start each ms, + 1 (or, in MICROS mode, the
 * microsecond in the top 10 bits and a 6-bit count, never going down);
 * random16 and random80 fresh for every ID. The reserved timestamps 0 and
 * 2^48-1 are never generated. */
static inline __attribute__((always_inline)) int scru160_next(toid__core *c, uint8_t *out) {
    toid_gen_head *g = c->g;
    const toid__tick *t = &c->t;
    if (t->ms < 1 || t->ms > (INT64_C(1) << 48) - 2)
        return TOID_ERANGE;
    uint32_t last = (uint32_t)g->last[6] << 8 | g->last[7];
    uint32_t counter;
    uint8_t id[20];
    if (g->cfg.counter_mode == TOID_COUNTER_MICROS) {
        uint32_t base = t->micros << 6;
        counter = t->same && last + 1 > base ? last + 1 : base;
    } else {
        counter = t->same ? last + 1 : 0;
    }
    if (counter > 0xFFFF)
        return TOID_EEXHAUSTED;
    int rc = toid__draw(c, id + 8, 12);       /* random16 | random80 */
    if (rc < 0)
        return rc;
    if (!t->same && g->cfg.counter_mode != TOID_COUNTER_MICROS) {
        uint8_t b[2];
        if ((rc = toid__draw(c, b, 2)) < 0)
            return rc;
        counter = ((uint32_t)b[0] << 8 | b[1]) & 0x7FFF;
    }
    toid__gen_store64(id, (uint64_t)t->ms << 16 | counter);
    toid__commit(g, t->ms, id, 20);
    memcpy(out, id, 20);
    c->status |= TOID__NEW_OR_SAME(t);
    return 0;
}

/* The state in one word: 48-bit ms | 16-bit counter (ms 0 is never
 * generated, so 0 means no ID yet). */
static uint64_t scru160_pack(const toid_gen_head *g) {
    return g->last_ms == INT64_MIN ? 0 : (uint64_t)g->last_ms << 16 | (toid__gen_load64(g->last) & 0xFFFF);
}

static void scru160_unpack(uint64_t w, toid_gen_head *g) {
    toid__gen_store64(g->last, w);
    g->last_ms = w ? (int64_t)(w >> 16) : INT64_MIN;
}

TOID__ONE(scru160_one, toid__fmt_scru160, scru160_next)

const toid__format toid__fmt_scru160 = {
    .info = {
        .format = TOID_SCRU160, .name = "scru160", .bits = 160, .bin_size = 20,
        .text_len = 32, .text_len_min = 32, .text_len_alt = 40, .alphabet = "base32hex",
        .ts_bits = 48, .spec = "SCRU160 specification",
        .detect_rank = 3, .generates = 1, .detected = 1,
    },
    TOID__DECODE_SIMD(scru160_decode, scru160_decode_scalar, scru160_decode_simd),
    TOID__ENCODE_SIMD(scru160_encode, scru160_encode_scalar, scru160_encode),
    .ts_shift = 112, .nfields = 3,
    .fields = {{TOID_FIELD_COUNTER, 96, 16}, {TOID_FIELD_RANDOM16, 80, 16},
               {TOID_FIELD_RANDOM80, 0, 80}},
    .has_reserved = true,
    .next = scru160_next,
    .one = scru160_one, .new_bin = scru160_one_new, .new_text = scru160_one_text, .per_thread_ok = true,
    .default_on_exhausted = TOID_EXHAUSTED_WAIT,
    .default_on_behind = TOID_BEHIND_KEEP, .entropy_per_id = 12,  /* 14 on a new ms */
    .pack = scru160_pack, .unpack = scru160_unpack,
};
