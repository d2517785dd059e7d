/* codec_simd_neon.c — UUID, ULID and SCRU160 text with NEON (aarch64), the
 * counterparts of codec_simd_x86.c's SSSE3 functions with the same contracts:
 * the encoders write the scalar code's text byte for byte, the decoders only
 * ever accept (anything else goes to the scalar decoder, which says why).
 * NEON (Advanced SIMD) is part of every ARMv8-A core, so nothing is detected:
 * simd.c's level 1 on aarch64 is this file. tests/test_simd.c compares it
 * with the scalar code under qemu-aarch64 (tests/simd_neon_test.sh).
 *
 * The decoders look each character up in the scalar codec's own 256-entry
 * table (its 128 entries from '0' on, two 64-byte TBX lookups), so a NEON
 * decoder cannot accept a character the scalar one refuses. */
#include "simd.h"

#if defined(__aarch64__) && TOID__HAVE_SIMD
#include "codec.h"

#include <arm_neon.h>

/* ---- shared pieces ---- */

/* 16 bytes -> their 32 lower-case hex digits: *a digits 0..15, *c 16..31. */
static inline void hex_digits(uint8x16_t b, uint8x16_t *a, uint8x16_t *c) {
    static const uint8_t digits[16] = "0123456789abcdef";
    uint8x16_t table = vld1q_u8(digits);
    uint8x16_t hi = vshrq_n_u8(b, 4), lo = vandq_u8(b, vdupq_n_u8(0x0F));
    *a = vqtbl1q_u8(table, vzip1q_u8(hi, lo));
    *c = vqtbl1q_u8(table, vzip2q_u8(hi, lo));
}

/* Characters -> their values in the scalar decode table dec; *bad gets
 * 0xFF where the table says TOID__BAD. Characters below '0' or from 0xB0 up
 * are outside both lookups and keep the 0xFF they start with: no alphabet
 * here has a symbol there. */
static inline uint8x16_t table_values(const uint8_t *dec, uint8x16_t c, uint8x16_t *bad) {
    uint8x16x4_t t0 = {{vld1q_u8(dec + 0x30), vld1q_u8(dec + 0x40), vld1q_u8(dec + 0x50), vld1q_u8(dec + 0x60)}};
    uint8x16x4_t t1 = {{vld1q_u8(dec + 0x70), vld1q_u8(dec + 0x80), vld1q_u8(dec + 0x90), vld1q_u8(dec + 0xA0)}};
    uint8x16_t i = vsubq_u8(c, vdupq_n_u8(0x30));
    uint8x16_t v = vqtbx4q_u8(vdupq_n_u8(TOID__BAD), t0, i);
    v = vqtbx4q_u8(v, t1, vsubq_u8(i, vdupq_n_u8(64)));     /* i < 64 wraps to >= 192: kept */
    *bad = vorrq_u8(*bad, vceqq_u8(v, vdupq_n_u8(TOID__BAD)));
    return v;
}

static inline bool any(uint8x16_t bad) {
    return vmaxvq_u8(bad) != 0;
}

/* 32 hex digit values (a: digits 0..15, b: 16..31) -> 16 bytes. */
static inline uint8x16_t hex_pairs(uint8x16_t a, uint8x16_t b) {
    return vsliq_n_u8(vuzp2q_u8(a, b), vuzp1q_u8(a, b), 4);   /* high digit << 4 | low digit */
}

/* 16 symbol values -> two 40-bit groups, one in each 64-bit lane (values
 * 0..7 in the low lane, the first of them most significant). */
static inline uint64x2_t join_groups(uint8x16_t v) {
    uint16x8_t x16 = vreinterpretq_u16_u8(v);
    uint16x8_t p10 = vorrq_u16(vshlq_n_u16(vandq_u16(x16, vdupq_n_u16(0xFF)), 5), vshrq_n_u16(x16, 8));
    uint32x4_t x32 = vreinterpretq_u32_u16(p10);
    uint32x4_t p20 = vorrq_u32(vshlq_n_u32(vandq_u32(x32, vdupq_n_u32(0xFFFF)), 10), vshrq_n_u32(x32, 16));
    uint64x2_t x64 = vreinterpretq_u64_u32(p20);
    return vorrq_u64(vshlq_n_u64(vandq_u64(x64, vdupq_n_u64(0xFFFFFFFFu)), 20), vshrq_n_u64(x64, 32));
}

/* 8 symbol values (5 bits each) in 16-bit lanes: the window of bytes k, k + 1
 * that windows picks for each (byte k + 1 in the lane's low byte; index 0xFF
 * reads 0), shifted right by shifts (negative counts) and masked. The same
 * windows as the SSSE3 code's, whose multiply-high by 2^e is a shift right
 * by 16 - e. */
static inline uint16x8_t symbols(uint8x16_t b, const uint8_t *windows, const int16_t *shifts) {
    uint16x8_t w = vreinterpretq_u16_u8(vqtbl1q_u8(b, vld1q_u8(windows)));
    return vandq_u16(vshlq_u16(w, vld1q_s16(shifts)), vdupq_n_u16(31));
}

static inline uint8x16_t narrow(uint16x8_t a, uint16x8_t b) {
    return vuzp1q_u8(vreinterpretq_u8_u16(a), vreinterpretq_u8_u16(b));
}

/* symbols 0.., 8.. of a ULID; symbols 10.., 18.. of a ULID and each SCRU160 group */
static const int16_t from0[8] = {-5, -8, -11, -6, -9, -4, -7, -10};
static const int16_t from10[8] = {-11, -6, -9, -4, -7, -10, -5, -8};
/* the windows of the last 16 symbols of 16 bytes (ULID's 10..25, SCRU160's
 * 16..31 from its bytes 4..19) */
static const uint8_t last_lo[16] = {7, 6, 7, 6, 8, 7, 8, 7, 9, 8, 10, 9, 10, 9, 11, 10};
static const uint8_t last_hi[16] = {12, 11, 12, 11, 13, 12, 13, 12, 14, 13, 15, 14, 15, 14, 0xFF, 15};

/* 16 symbols from b (8 of windows wa with shifts sa, 8 of wb with sb) in
 * the 32-symbol alphabet, stored at out. */
static inline void put16(uint8x16_t b, const uint8_t *wa, const int16_t *sa, const uint8_t *wb, const int16_t *sb,
                         const char *alphabet, char *out) {
    uint8x16x2_t t = {{vld1q_u8((const uint8_t *)alphabet), vld1q_u8((const uint8_t *)alphabet + 16)}};
    uint8x16_t v = narrow(symbols(b, wa, sa), symbols(b, wb, sb));
    vst1q_u8((uint8_t *)out, vqtbl2q_u8(t, v));
}

/* ---- UUID: 16 bytes <-> 8-4-4-4-12 hex ---- */

void toid__uuid_encode_neon(const uint8_t *bin, char *out) {
    static const uint8_t at0[16] = {0, 1, 2, 3, 4, 5, 6, 7, 0xFF, 8, 9, 10, 11, 0xFF, 12, 13};
    static const uint8_t at1[16] = {14, 15, 0xFF, 16, 17, 18, 19, 0xFF, 20, 21, 22, 23, 24, 25, 26, 27};
    static const uint8_t hyphens0[16] = {0, 0, 0, 0, 0, 0, 0, 0, '-', 0, 0, 0, 0, '-', 0, 0};
    static const uint8_t hyphens1[16] = {0, 0, '-', 0, 0, 0, 0, '-', 0, 0, 0, 0, 0, 0, 0, 0};
    uint8x16x2_t d;
    hex_digits(vld1q_u8(bin), &d.val[0], &d.val[1]);
    /* TBX keeps the hyphen where the index is out of range */
    vst1q_u8((uint8_t *)out, vqtbx2q_u8(vld1q_u8(hyphens0), d, vld1q_u8(at0)));
    vst1q_u8((uint8_t *)out + 16, vqtbx2q_u8(vld1q_u8(hyphens1), d, vld1q_u8(at1)));
    uint32_t tail = vgetq_lane_u32(vreinterpretq_u32_u8(d.val[1]), 3);     /* digits 28..31 */
    memcpy(out + 32, &tail, 4);
}

/* n >= 16 bytes -> 2n hex digits: 16 bytes at a time, then 8, the last 0..7
 * from the scalar table. */
void toid__hex_encode_neon(const uint8_t *bytes, size_t n, char *out) {
    uint8x16_t a, c;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        hex_digits(vld1q_u8(bytes + i), &a, &c);
        vst1q_u8((uint8_t *)out + 2 * i, a);
        vst1q_u8((uint8_t *)out + 2 * i + 16, c);
    }
    if (i + 8 <= n) {
        hex_digits(vcombine_u8(vld1_u8(bytes + i), vdup_n_u8(0)), &a, &c);
        vst1q_u8((uint8_t *)out + 2 * i, a);
        i += 8;
    }
    toid__hex_put(bytes + i, n - i, out + 2 * i);
}

int toid__uuid_decode_neon(const char *s, uint8_t *bin) {
    static const uint8_t take0[16] = {0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 14, 15, 16, 17};      /* of s[0..31] */
    static const uint8_t take1[16] = {3, 4, 5, 6, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31}; /* of s[16..31] s[20..35] */
    if (s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-')
        return -1;
    const uint8_t *u = (const uint8_t *)s;
    uint8x16x2_t lo = {{vld1q_u8(u), vld1q_u8(u + 16)}}, hi = {{vld1q_u8(u + 16), vld1q_u8(u + 20)}};
    uint8x16_t bad = vdupq_n_u8(0);
    uint8x16_t v0 = table_values(toid__hex_dec, vqtbl2q_u8(lo, vld1q_u8(take0)), &bad);
    uint8x16_t v1 = table_values(toid__hex_dec, vqtbl2q_u8(hi, vld1q_u8(take1)), &bad);
    if (any(bad))
        return -1;
    uint8x16_t bytes = hex_pairs(v0, v1);
    if ((vgetq_lane_u8(bytes, 6) & 0xF0u) != 0x70u || (vgetq_lane_u8(bytes, 8) & 0xC0u) != 0x80u)
        return -1;      /* not version 7, variant 0b10 */
    vst1q_u8(bin, bytes);
    return 0;
}

/* ---- ULID: 16 bytes <-> 26 Crockford base32 symbols ----
 * 130 bits of text for 128 of value: symbols 0 and 1 are byte 0 (3 + 5
 * bits), then bytes 1..15 are three 40-bit groups of 8 symbols each. */

void toid__ulid_encode_neon(const uint8_t *bin, char *out) {
    static const uint8_t w0[16] = {0, 0xFF, 1, 0, 2, 1, 2, 1, 3, 2, 3, 2, 4, 3, 5, 4};
    static const uint8_t w8[16] = {5, 4, 6, 5, 7, 6, 7, 6, 8, 7, 8, 7, 9, 8, 10, 9};
    uint8x16_t b = vld1q_u8(bin);
    /* out[0..15], then out[10..25] over the overlap */
    put16(b, w0, from0, w8, from0, toid__crockford32_enc, out);
    put16(b, last_lo, from10, last_hi, from10, toid__crockford32_enc, out + 10);
}

int toid__ulid_decode_neon(const char *s, uint8_t *bin) {
    static const uint8_t take[16] = {0xFF, 4, 3, 2, 1, 0, 12, 11, 10, 9, 8, 28, 27, 26, 25, 24};
    unsigned v0 = toid__crockford32_dec[(unsigned char)s[0]], v1 = toid__crockford32_dec[(unsigned char)s[1]];
    if (v0 > 7 || v1 > 31)      /* a bad symbol (0xFF), or more than 128 bits */
        return -1;
    const uint8_t *u = (const uint8_t *)s;
    uint8x16_t bad = vdupq_n_u8(0);
    uint8x16_t a = table_values(toid__crockford32_dec, vld1q_u8(u + 2), &bad);     /* 2..17 */
    uint8x16_t b = table_values(toid__crockford32_dec, vld1q_u8(u + 10), &bad);    /* 10..25 */
    if (any(bad))
        return -1;
    /* the groups' 5 low bytes, big-endian: bytes 1..5 and 6..10 from a, 11..15 from b's second group */
    uint8x16x2_t g = {{vreinterpretq_u8_u64(join_groups(a)), vreinterpretq_u8_u64(join_groups(b))}};
    uint8x16_t r = vqtbl2q_u8(g, vld1q_u8(take));
    vst1q_u8(bin, vsetq_lane_u8((uint8_t)(v0 << 5 | v1), r, 0));
    return 0;
}

/* ---- SCRU160: 20 bytes <-> 32 base32hex symbols (4 groups of 40 bits),
 * and 40 hex digits -> 20 bytes ---- */

void toid__scru160_encode_neon(const uint8_t *bin, char *out) {
    static const uint8_t w0[16] = {1, 0, 1, 0, 2, 1, 2, 1, 3, 2, 4, 3, 4, 3, 5, 4};
    static const uint8_t w1[16] = {6, 5, 6, 5, 7, 6, 7, 6, 8, 7, 9, 8, 9, 8, 10, 9};
    put16(vld1q_u8(bin), w0, from10, w1, from10, toid__base32hex_enc, out);                   /* bytes 0..15 */
    put16(vld1q_u8(bin + 4), last_lo, from10, last_hi, from10, toid__base32hex_enc, out + 16); /* 4..19 */
}

int toid__scru160_decode32_neon(const char *s, uint8_t *bin) {
    static const uint8_t head[16] = {4, 3, 2, 1, 0, 12, 11, 10, 9, 8, 20, 19, 18, 17, 16, 28};
    static const uint8_t tail[8] = {27, 26, 25, 24, 0xFF, 0xFF, 0xFF, 0xFF};
    const uint8_t *u = (const uint8_t *)s;
    uint8x16_t bad = vdupq_n_u8(0);
    uint8x16_t va = table_values(toid__base32hex_dec, vld1q_u8(u), &bad);
    uint8x16_t vb = table_values(toid__base32hex_dec, vld1q_u8(u + 16), &bad);
    if (any(bad))
        return -1;
    /* groups 0, 1 and 2, 3, each 5 bytes big-endian from its lane's low 5 */
    uint8x16x2_t g = {{vreinterpretq_u8_u64(join_groups(va)), vreinterpretq_u8_u64(join_groups(vb))}};
    vst1q_u8(bin, vqtbl2q_u8(g, vld1q_u8(head)));
    uint32_t last = vget_lane_u32(vreinterpret_u32_u8(vqtbl2_u8(g, vld1_u8(tail))), 0);
    memcpy(bin + 16, &last, 4);
    return 0;
}

int toid__hex40_decode_neon(const char *s, uint8_t *bin) {
    const uint8_t *u = (const uint8_t *)s;
    uint8x16_t bad = vdupq_n_u8(0);
    uint8x16_t v0 = table_values(toid__hex_dec, vld1q_u8(u), &bad);
    uint8x16_t v1 = table_values(toid__hex_dec, vld1q_u8(u + 16), &bad);
    uint8x16_t v2 = table_values(toid__hex_dec, vld1q_u8(u + 24), &bad);     /* 24..39 */
    if (any(bad))
        return -1;
    uint8x16_t last = hex_pairs(v2, v2);            /* bytes 12..19, twice */
    vst1q_u8(bin, hex_pairs(v0, v1));
    uint32_t tail = vgetq_lane_u32(vreinterpretq_u32_u8(last), 1);          /* bytes 16..19 */
    memcpy(bin + 16, &tail, 4);
    return 0;
}
#endif
