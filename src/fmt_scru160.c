/* fmt_scru160.c — SCRU160: 48-bit ms | 16-bit counter | 16-bit random16 |
 * 80-bit random80; 32 base32hex symbols (exactly 160 bits) or 40 hex; 20
 * bytes. Timestamps 0 and 2^48-1 are reserved: decoded, never generated. */
#include "codec.h"
#include "gen.h"

/* 8 symbols <-> 5 bytes, four times. */
static int scru160_decode(const char *s, size_t len, uint8_t *bin, size_t *err_pos) {
    uint8_t out[20];
    if (len == 32) {
        unsigned bad = 0;
        uint64_t g[4];
        for (int i = 0; i < 4; i++)
            g[i] = toid__b32_get(s + 8 * i, 8, toid__base32hex_dec, &bad);
        if (bad & 0x80u) {
            if (err_pos)
                *err_pos = toid__first_bad(s, 32, toid__base32hex_dec);
            return TOID_ECHAR;
        }
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 5; j++)
                out[5 * i + j] = (uint8_t)(g[i] >> (32 - 8 * j));
    } else if (len == 40) {
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
    } else {
        return TOID_ELENGTH;
    }
    memcpy(bin, out, 20);
    return 0;
}

static void scru160_encode(const uint8_t *bin, char *out) {
    for (int i = 0; i < 4; i++) {
        const uint8_t *p = bin + 5 * i;
        uint64_t g = ((uint64_t)p[0] << 32) | ((uint64_t)p[1] << 24) | ((uint64_t)p[2] << 16) |
                     ((uint64_t)p[3] << 8) | p[4];
        toid__b32_put(g, 8, toid__base32hex_enc, out + 8 * i);
    }
}

/* Counter: a 15-bit random start each ms, + 1 (or, in MICROS mode, the
 * microsecond in the top 10 bits and a 6-bit count, never going down);
 * random16 and random80 fresh for every ID. The reserved timestamps 0 and
 * 2^48-1 are never generated. */
static int scru160_next(toid_gen *g, const toid__tick *t, toid_entropy_fn e, void *ctx, uint8_t *out,
                        unsigned *status) {
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
    int rc = toid__draw(e, ctx, id + 8, 12);       /* random16 | random80 */
    if (rc < 0)
        return rc;
    if (!t->same && g->cfg.counter_mode != TOID_COUNTER_MICROS) {
        uint8_t c[2];
        if ((rc = toid__draw(e, ctx, c, 2)) < 0)
            return rc;
        counter = ((uint32_t)c[0] << 8 | c[1]) & 0x7FFF;
    }
    for (int k = 0; k < 6; k++)
        id[k] = (uint8_t)((uint64_t)t->ms >> (40 - 8 * k));
    id[6] = (uint8_t)(counter >> 8);
    id[7] = (uint8_t)counter;
    toid__commit(g, t->ms, id, 20);
    memcpy(out, id, 20);
    *status |= TOID__NEW_OR_SAME(t);
    return 0;
}

const toid__format toid__fmt_scru160 = {
    .info = {
        .format = TOID_SCRU160, .name = "scru160", .bits = 160, .bin_size = 20,
        .text_len = 32, .text_len_min = 32, .text_len_alt = 40, .alphabet = "base32hex",
        .ts_bits = 48, .spec = "SCRU160 specification",
    },
    .decode = scru160_decode, .encode = scru160_encode,
    .ts_shift = 112, .nfields = 3,
    .fields = {{TOID_FIELD_COUNTER, 96, 16}, {TOID_FIELD_RANDOM16, 80, 16},
               {TOID_FIELD_RANDOM80, 0, 80}},
    .has_reserved = true,
    .next = scru160_next, .default_on_exhausted = TOID_EXHAUSTED_WAIT,
    .default_on_behind = TOID_BEHIND_KEEP, .entropy_per_id = 12,  /* 14 on a new ms */
};
