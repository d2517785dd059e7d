/* fmt_uuidv7.c — UUIDv7 (RFC 9562 §5.7): 48-bit Unix ms | ver 7 | 12 bits |
 * var 0b10 | 62 bits; 36 lower-case hex digits with hyphens; 16 bytes. */
#define _POSIX_C_SOURCE 200809L    /* clock_gettime, for gen_owner.h */
#include "codec.h"
#include "gen.h"
#include "simd.h"
#include "gen_owner.h"

/* Offsets of the 32 hex digits in the 36-character form. */
static const uint8_t digit_at[32] = {
    0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 14, 15, 16, 17,
    19, 20, 21, 22, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35};

/* Any UUID's 36 characters -> 16 bytes, whatever its version: 0, or
 * TOID_ECHAR with *err_pos at the first character that is not a hex digit
 * (or not a hyphen at 8, 13, 18, 23). */
int toid__uuid_text_decode(const char *s, uint8_t *bin, size_t *err_pos) {
    uint8_t out[16];
    unsigned bad = 0;
    for (int i = 0; i < 16; i++) {
        unsigned hi = toid__hex_dec[(unsigned char)s[digit_at[2 * i]]];
        unsigned lo = toid__hex_dec[(unsigned char)s[digit_at[2 * i + 1]]];
        bad |= hi | lo;
        out[i] = (uint8_t)((hi << 4) | (lo & 15u));
    }
    bool hyphens = s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-';
    if ((bad & 0x80u) || !hyphens) {
        if (err_pos) {
            size_t p = 0;
            for (; p < 36; p++) {
                bool want_hyphen = p == 8 || p == 13 || p == 18 || p == 23;
                unsigned char c = (unsigned char)s[p];
                if (want_hyphen ? c != '-' : toid__hex_dec[c] == TOID__BAD)
                    break;
            }
            *err_pos = p;
        }
        return TOID_ECHAR;
    }
    memcpy(bin, out, 16);
    return 0;
}

static int uuidv7_decode_scalar(const char *s, size_t len, uint8_t *bin, size_t *err_pos) {
    if (len != 36)
        return TOID_ELENGTH;
    uint8_t out[16];
    int rc = toid__uuid_text_decode(s, out, err_pos);
    if (rc < 0)
        return rc;
    bool version = (out[6] >> 4) == 7, variant = (out[8] >> 6) == 2;
    if (!version || !variant) {
        if (err_pos)
            *err_pos = version ? 19 : 14;
        return TOID_ECHAR;
    }
    memcpy(bin, out, 16);
    return 0;
}

#if TOID__HAVE_SIMD
static int uuidv7_decode_simd(const char *s, size_t len, uint8_t *bin, size_t *err_pos) {
    if (len == 36 && TOID__SIMD(uuid_decode)(s, bin) == 0)
        return 0;
    return uuidv7_decode_scalar(s, len, bin, err_pos);   /* anything it does not accept: the scalar code says why */
}
#endif

static int uuidv7_decode(const char *s, size_t len, uint8_t *bin, size_t *err_pos) {
    return TOID__PICK(uuidv7_decode_simd, uuidv7_decode_scalar, (s, len, bin, err_pos));
}

static void uuid_encode_scalar(const uint8_t *bin, char *out) {
    char hex[32];
    toid__hex_put(bin, 16, hex);
    memcpy(out, hex, 8);
    out[8] = '-';
    memcpy(out + 9, hex + 8, 4);
    out[13] = '-';
    memcpy(out + 14, hex + 12, 4);
    out[18] = '-';
    memcpy(out + 19, hex + 16, 4);
    out[23] = '-';
    memcpy(out + 24, hex + 20, 12);
}

/* 16 bytes -> the 36 characters of a UUID, whatever its version. */
void toid__uuid_text_encode(const uint8_t *bin, char *out) {
    TOID__PICK(TOID__SIMD(uuid_encode), uuid_encode_scalar, (bin, out));
}

/* RFC 9562 §6.2 method 1: a 42-bit counter in rand_a (12 bits) and the top
 * 30 bits of rand_b, started at a random value with its top bit clear each
 * ms and incremented within it; the last 32 bits are random per ID. When the
 * counter overflows the timestamp moves 1 ms ahead (§6.2) under ADVANCE. */
#define COUNTER_MAX ((UINT64_C(1) << 42) - 1)

/* The counter of an ID from its two big-endian words: rand_a (12 bits) and
 * the top 30 bits of rand_b. */
static uint64_t counter_of(const uint8_t *id) {
    return (toid__gen_load64(id) & 0xFFF) << 30 | (toid__gen_load64(id + 8) >> 32 & 0x3FFFFFFF);
}

static inline __attribute__((always_inline)) int uuidv7_next(toid__core *c, uint8_t *out) {
    toid_gen_head *g = c->g;
    const toid__tick *t = &c->t;
    uint8_t rnd[10];
    int64_t ms = t->ms;
    unsigned st = TOID__NEW_OR_SAME(t);
    uint64_t counter = t->same ? counter_of(g->last) + 1 : COUNTER_MAX + 1;
    bool fresh = counter > COUNTER_MAX;     /* a new ms, or the counter ran out */
    if (t->same && fresh) {
        if (!t->may_advance)
            return TOID_EEXHAUSTED;
        if (ms + 1 > (INT64_C(1) << 48) - 1)
            return TOID_ERANGE;
        ms++;
        st = TOID_ST_ADVANCED | TOID_ST_NEW_MS;
    }
    int rc = toid__draw(c, rnd, fresh ? 10 : 4);   /* 32 random bits, + a counter start */
    if (rc < 0)
        return rc;
    if (fresh)      /* rnd[4..9], big-endian: the low 48 bits of rnd[2..9] */
        counter = toid__gen_load64(rnd + 2) & (COUNTER_MAX >> 1);
    uint64_t r32 = toid__gen_load32(rnd);   /* bytes 12..15 are rnd[0..3], as before */
    /* ms | ver 7 | counter's top 12 bits; var 0b10 | its low 30 bits | 32 random bits */
    uint64_t hi = (uint64_t)ms << 16 | 0x7000 | counter >> 30;
    uint64_t lo = UINT64_C(0x8000000000000000) | (counter & 0x3FFFFFFF) << 32 | r32;
    toid__gen_store64(g->last, hi);
    toid__gen_store64(g->last + 8, lo);
    g->last_ms = ms;
    memcpy(out, g->last, 16);
    c->status |= st;
    return 0;
}

static const uint8_t fixed_mask[16] = {0, 0, 0, 0, 0, 0, 0xF0, 0, 0xC0};
static const uint8_t fixed_bits[16] = {0, 0, 0, 0, 0, 0, 0x70, 0, 0x80};

/* RFC 9562's names for the bits after the timestamp (toid_layout). */
static const toid__span layout_extra[4] = {
    {"ver", 48, 4}, {"rand_a", 52, 12}, {"var", 64, 2}, {"rand_b", 66, 62}};

TOID__ONE(uuidv7_one, toid__fmt_uuidv7, uuidv7_next)

const toid__format toid__fmt_uuidv7 = {
    .info = {
        .format = TOID_UUIDV7, .name = "uuidv7", .bits = 128, .bin_size = 16,
        .text_len = 36, .text_len_min = 36, .alphabet = "hex",
        .ts_bits = 48, .spec = "RFC 9562, section 5.7",
        .detect_rank = 1, .generates = 1, .detected = 1, .text_lower = 1,
    },
    TOID__DECODE_SIMD(uuidv7_decode, uuidv7_decode_scalar, uuidv7_decode_simd),
    TOID__ENCODE_SIMD(toid__uuid_text_encode, uuid_encode_scalar, uuid_encode),
    .ts_shift = 80, .nfields = 0,
    .fixed_mask = fixed_mask, .fixed_bits = fixed_bits,
    .extra = layout_extra, .nextra = 4,
    .next = uuidv7_next,
    .one = uuidv7_one, .new_bin = uuidv7_one_new, .new_text = uuidv7_one_text, .per_thread_ok = true,
    .default_on_exhausted = TOID_EXHAUSTED_ADVANCE,
    .default_on_behind = TOID_BEHIND_RESET, .entropy_per_id = 4,   /* 10 on a new ms */
};
