/* fmt_scru160.c — SCRU160: 48-bit ms | 16-bit counter | 16-bit random16 |
 * 80-bit random80; 32 base32hex symbols (exactly 160 bits) or 40 hex; 20
 * bytes. Timestamps 0 and 2^48-1 are reserved: decoded, never generated. */
#include "codec.h"

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
};
