/* fmt_ulid.c — ULID: 48-bit Unix ms | 80-bit random, 26 Crockford base32
 * symbols (130 bits, so the first symbol is 0..7), 16 bytes big-endian. */
#define _POSIX_C_SOURCE 200809L    /* clock_gettime, for gen_owner.h */
#include "codec.h"
#include "gen.h"
#include "simd.h"
#include "gen_owner.h"

#define M60 ((UINT64_C(1) << 60) - 1)

/* 26 symbols = 2 | 12 | 12: three independent 60-bit-or-less chains. */
static int ulid_decode_scalar(const char *s, size_t len, uint8_t *bin, size_t *err_pos) {
    if (len != 26)
        return TOID_ELENGTH;
    unsigned bad = 0;
    const uint8_t *t = toid__crockford32_dec;
    uint64_t a = toid__b32_get(s, 2, t, &bad);
    uint64_t b = toid__b32_get(s + 2, 12, t, &bad);
    uint64_t c = toid__b32_get(s + 14, 12, t, &bad);
    if (bad & 0x80u) {
        if (err_pos)
            *err_pos = toid__first_bad(s, 26, t);
        return TOID_ECHAR;
    }
    if (a > 0xFF)               /* first symbol above 7: more than 128 bits */
        return TOID_EOVERFLOW;
    toid__store64(bin, (a << 56) | (b >> 4));
    toid__store64(bin + 8, (b << 60) | c);
    return 0;
}

#if TOID__HAVE_SIMD
static int ulid_decode_simd(const char *s, size_t len, uint8_t *bin, size_t *err_pos) {
    if (len == 26 && TOID__SIMD(ulid_decode)(s, bin) == 0)
        return 0;
    return ulid_decode_scalar(s, len, bin, err_pos);   /* anything it does not accept: the scalar code says why */
}
#endif

static int ulid_decode(const char *s, size_t len, uint8_t *bin, size_t *err_pos) {
    return TOID__PICK(ulid_decode_simd, ulid_decode_scalar, (s, len, bin, err_pos));
}

static void ulid_encode_scalar(const uint8_t *bin, char *out) {
    uint64_t hi = toid__load64(bin), lo = toid__load64(bin + 8);
    const char *e = toid__crockford32_enc;
    toid__b32_put(hi >> 56, 2, e, out);
    toid__b32_put(((hi << 4) | (lo >> 60)) & M60, 12, e, out + 2);
    toid__b32_put(lo & M60, 12, e, out + 14);
}

static void ulid_encode(const uint8_t *bin, char *out) {
    TOID__PICK(TOID__SIMD(ulid_encode), ulid_encode_scalar, (bin, out));
}

/* Same ms: the 80 random bits + 1 with carry; a carry out of them is the
 * spec's overflow error, never a carry into the timestamp. */
static inline __attribute__((always_inline)) int ulid_next(toid__core *c, uint8_t *out) {
    toid_gen_head *g = c->g;
    const toid__tick *t = &c->t;
    uint64_t hi, lo;        /* hi: 48-bit ms | top 16 random bits; lo: the other 64 */
    if (t->same) {
        hi = toid__gen_load64(g->last);
        lo = toid__gen_load64(g->last + 8) + 1;
        if (lo == 0) {
            if ((hi & 0xFFFF) == 0xFFFF)
                return TOID_EOVERFLOW;     /* all 80 random bits were ones */
            hi++;
        }
    } else {
        uint8_t r[10];
        int rc = toid__draw(c, r, 10);
        if (rc < 0)
            return rc;
        hi = (uint64_t)t->ms << 16 | (uint64_t)r[0] << 8 | r[1];
        lo = toid__gen_load64(r + 2);
    }
    toid__gen_store64(g->last, hi);
    toid__gen_store64(g->last + 8, lo);
    g->last_ms = t->ms;
    memcpy(out, g->last, 16);
    c->status |= TOID__NEW_OR_SAME(t);
    return 0;
}

TOID__ONE(ulid_one, toid__fmt_ulid, ulid_next)

const toid__format toid__fmt_ulid = {
    .info = {
        .format = TOID_ULID, .name = "ulid", .bits = 128, .bin_size = 16,
        .text_len = 26, .text_len_min = 26, .alphabet = "crockford32",
        .ts_bits = 48, .spec = "ULID specification",
        .detect_rank = 2, .generates = 1, .detected = 1,
    },
    TOID__DECODE_SIMD(ulid_decode, ulid_decode_scalar, ulid_decode_simd),
    TOID__ENCODE_SIMD(ulid_encode, ulid_encode_scalar, ulid_encode),
    .ts_shift = 80, .nfields = 1,
    .fields = {{TOID_FIELD_RANDOM, 0, 80}},
    .next = ulid_next,
    .one = ulid_one, .new_bin = ulid_one_new, .new_text = ulid_one_text, .per_thread_ok = true,
    .default_on_exhausted = TOID_EXHAUSTED_ERROR,
    .default_on_behind = TOID_BEHIND_KEEP, .entropy_per_id = 0,   /* 10 on a new ms */
};

/* ULID <-> UUID: the same 16 bytes, no version fix-up (ulid/javascript's
 * ulidToUUID / uuidToULID). */
int toid_ulid_to_uuid(const char *text, size_t len, char *out, size_t out_size,
                      size_t *err_pos) {
    uint8_t bin[16];
    int rc = ulid_decode(text, len, bin, err_pos);
    if (rc < 0)
        return rc;
    if (out_size < 37)
        return TOID_EBUFFER;
    toid__uuid_text_encode(bin, out);
    out[36] = '\0';
    return 36;
}

int toid_uuid_to_ulid(const char *text, size_t len, char *out, size_t out_size,
                      size_t *err_pos) {
    if (len != 36)
        return TOID_ELENGTH;
    uint8_t bin[16];
    int rc = toid__uuid_text_decode(text, bin, err_pos);
    if (rc < 0)
        return rc;
    if (out_size < 27)
        return TOID_EBUFFER;
    ulid_encode(bin, out);
    out[26] = '\0';
    return 26;
}
