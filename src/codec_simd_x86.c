/* codec_simd_x86.c — UUID, ULID and SCRU160 text with SSSE3 (x86-64). Each function
 * is compiled for SSSE3 alone (target attribute), so the library still runs
 * on any x86-64; simd.c calls them only where CPUID says SSSE3 is there.
 * The scalar codecs in fmt_uuidv7.c, fmt_ulid.c and fmt_scru160.c are the reference:
 * tests/test_simd.c and fuzz/fuzz_simd.c compare the two. */
#include "simd.h"

#if TOID__HAVE_SIMD && defined(__x86_64__)
#include "codec.h"

#include <immintrin.h>

#define SSSE3 __attribute__((target("ssse3")))

/* ---- UUID: 16 bytes <-> 8-4-4-4-12 hex ---- */

/* 16 bytes -> their 32 lower-case hex digits: *a digits 0..15, *c 16..31. */
SSSE3 static inline void hex_digits(__m128i b, __m128i *a, __m128i *c) {
    const __m128i digits = _mm_setr_epi8('0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f');
    const __m128i low4 = _mm_set1_epi8(0x0F);
    __m128i hi = _mm_and_si128(_mm_srli_epi16(b, 4), low4), lo = _mm_and_si128(b, low4);
    *a = _mm_shuffle_epi8(digits, _mm_unpacklo_epi8(hi, lo));
    *c = _mm_shuffle_epi8(digits, _mm_unpackhi_epi8(hi, lo));
}

SSSE3 void toid__uuid_encode_ssse3(const uint8_t *bin, char *out) {
    __m128i a, c;
    hex_digits(_mm_loadu_si128((const __m128i *)(const void *)bin), &a, &c);
    /* out[0..15]: 8 digits, '-', 4, '-', 2 */
    __m128i o0 = _mm_or_si128(_mm_shuffle_epi8(a, _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, -1, 8, 9, 10, 11, -1, 12, 13)),
                              _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, '-', 0, 0, 0, 0, '-', 0, 0));
    /* out[16..31]: 2, '-', 4, '-', 8, from digits 14..29 (one alignr) */
    __m128i o1 = _mm_or_si128(_mm_shuffle_epi8(_mm_alignr_epi8(c, a, 14),
                                               _mm_setr_epi8(0, 1, -1, 2, 3, 4, 5, -1, 6, 7, 8, 9, 10, 11, 12, 13)),
                              _mm_setr_epi8(0, 0, '-', 0, 0, 0, 0, '-', 0, 0, 0, 0, 0, 0, 0, 0));
    _mm_storeu_si128((__m128i *)(void *)out, o0);
    _mm_storeu_si128((__m128i *)(void *)(out + 16), o1);
    uint32_t tail = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(c, 12));   /* out[32..35] */
    memcpy(out + 32, &tail, 4);
}

/* n >= 16 bytes -> 2n hex digits: 16 bytes at a time, then 8 and 4 (the
 * digits of a short load's zero bytes are not stored), the last 0..3 bytes
 * from the scalar table. No store overlaps another: measured steadier than
 * one overlapping last 16. */
SSSE3 void toid__hex_encode_ssse3(const uint8_t *bytes, size_t n, char *out) {
    __m128i a, c;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        hex_digits(_mm_loadu_si128((const __m128i *)(const void *)(bytes + i)), &a, &c);
        _mm_storeu_si128((__m128i *)(void *)(out + 2 * i), a);
        _mm_storeu_si128((__m128i *)(void *)(out + 2 * i + 16), c);
    }
    if (i + 8 <= n) {
        hex_digits(_mm_loadl_epi64((const __m128i *)(const void *)(bytes + i)), &a, &c);
        _mm_storeu_si128((__m128i *)(void *)(out + 2 * i), a);
        i += 8;
    }
    if (i + 4 <= n) {
        uint32_t w;
        memcpy(&w, bytes + i, 4);
        hex_digits(_mm_cvtsi32_si128((int)w), &a, &c);
        _mm_storel_epi64((__m128i *)(void *)(out + 2 * i), a);
        i += 4;
    }
    toid__hex_put(bytes + i, n - i, out + 2 * i);
}

/* Hex digits (any case) -> their values; *bad gets 0xFF where a byte is not
 * a hex digit. Signed compares: bytes >= 0x80 are negative, so never in range. */
SSSE3 static inline __m128i hex_values(__m128i c, __m128i *bad) {
    __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(c, _mm_set1_epi8('0' - 1)), _mm_cmpgt_epi8(_mm_set1_epi8('9' + 1), c));
    __m128i lower = _mm_or_si128(c, _mm_set1_epi8(0x20));
    __m128i alpha = _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)),
                                  _mm_cmpgt_epi8(_mm_set1_epi8('f' + 1), lower));
    *bad = _mm_or_si128(*bad, _mm_andnot_si128(_mm_or_si128(digit, alpha), _mm_set1_epi8(-1)));
    return _mm_or_si128(_mm_and_si128(digit, _mm_sub_epi8(c, _mm_set1_epi8('0'))),
                        _mm_and_si128(alpha, _mm_sub_epi8(lower, _mm_set1_epi8('a' - 10))));
}

SSSE3 int toid__uuid_decode_ssse3(const char *s, uint8_t *bin) {
    if (s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-')
        return -1;
    /* three loads inside the 36 bytes: s[0..15], s[16..31], s[20..35] */
    __m128i l0 = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i l1 = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
    __m128i l2 = _mm_loadu_si128((const __m128i *)(const void *)(s + 20));
    /* the 32 digits without the hyphens: s[0..7] s[9..12] s[14..17] | s[19..22] s[24..35] */
    __m128i d0 = _mm_or_si128(
        _mm_shuffle_epi8(l0, _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 14, 15, -1, -1)),
        _mm_shuffle_epi8(l1, _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1)));
    __m128i d1 = _mm_or_si128(
        _mm_shuffle_epi8(l1, _mm_setr_epi8(3, 4, 5, 6, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1)),
        _mm_shuffle_epi8(l2, _mm_setr_epi8(-1, -1, -1, -1, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)));
    __m128i bad = _mm_setzero_si128();
    __m128i v0 = hex_values(d0, &bad), v1 = hex_values(d1, &bad);
    if (_mm_movemask_epi8(bad))
        return -1;
    /* digit pairs -> bytes: high * 16 + low */
    const __m128i pair = _mm_set1_epi16(0x0110);
    __m128i bytes = _mm_packus_epi16(_mm_maddubs_epi16(v0, pair), _mm_maddubs_epi16(v1, pair));
    unsigned ver = (unsigned)_mm_extract_epi16(bytes, 3) & 0xF0u;      /* byte 6 */
    unsigned var = (unsigned)_mm_extract_epi16(bytes, 4) & 0xC0u;      /* byte 8 */
    if (ver != 0x70u || var != 0x80u)
        return -1;
    _mm_storeu_si128((__m128i *)(void *)bin, bytes);
    return 0;
}

/* ---- ULID: 16 bytes <-> 26 Crockford base32 symbols ----
 * 130 bits of text for 128 of value: symbols 0 and 1 are byte 0 (3 + 5
 * bits), then bytes 1..15 are three 40-bit groups of 8 symbols each. */

/* Symbol values 0..31 -> Crockford's alphabet. */
SSSE3 static inline __m128i crockford_chars(__m128i v) {
    const __m128i lo = _mm_setr_epi8('0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'A', 'B', 'C', 'D', 'E', 'F');
    const __m128i hi = _mm_setr_epi8('G', 'H', 'J', 'K', 'M', 'N', 'P', 'Q', 'R', 'S', 'T', 'V', 'W', 'X', 'Y', 'Z');
    __m128i upper = _mm_cmpgt_epi8(v, _mm_set1_epi8(15));
    return _mm_or_si128(_mm_and_si128(upper, _mm_shuffle_epi8(hi, v)), _mm_andnot_si128(upper, _mm_shuffle_epi8(lo, v)));
}

/* 8 symbols from the bytes the shuffle picks: for symbol i (of the 26; the
 * 130 bits of text start 2 bits above the value) a 16-bit window of bytes k,
 * k + 1 where k = (5i - 2) / 8 (byte -1 and 16 read as 0), shifted right by
 * 11 - o, o = (5i - 2) % 8 (a multiply-high by 2^(5 + o)), masked to 5
 * bits. The window's low byte in the lane is k + 1. Symbols 0..7 and 8..15
 * (and 10..17 and 18..25) are 40 bits apart, so they share the shifts. */
SSSE3 static inline __m128i symbols(__m128i b, __m128i windows, __m128i shifts) {
    return _mm_and_si128(_mm_mulhi_epu16(_mm_shuffle_epi8(b, windows), shifts), _mm_set1_epi16(31));
}

SSSE3 void toid__ulid_encode_ssse3(const uint8_t *bin, char *out) {
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)bin);
    const __m128i from0 = _mm_setr_epi16(2048, 256, 32, 1024, 128, 4096, 512, 64);     /* symbols 0.., 8.. */
    const __m128i from10 = _mm_setr_epi16(32, 1024, 128, 4096, 512, 64, 2048, 256);    /* symbols 10.., 18.. */
    __m128i s0 = symbols(b, _mm_setr_epi8(0, -1, 1, 0, 2, 1, 2, 1, 3, 2, 3, 2, 4, 3, 5, 4), from0);
    __m128i s8 = symbols(b, _mm_setr_epi8(5, 4, 6, 5, 7, 6, 7, 6, 8, 7, 8, 7, 9, 8, 10, 9), from0);
    __m128i s10 = symbols(b, _mm_setr_epi8(7, 6, 7, 6, 8, 7, 8, 7, 9, 8, 10, 9, 10, 9, 11, 10), from10);
    __m128i s18 = symbols(b, _mm_setr_epi8(12, 11, 12, 11, 13, 12, 13, 12, 14, 13, 15, 14, 15, 14, -1, 15), from10);
    /* out[0..15], then out[10..25] over the overlap */
    _mm_storeu_si128((__m128i *)(void *)out, crockford_chars(_mm_packus_epi16(s0, s8)));
    _mm_storeu_si128((__m128i *)(void *)(out + 10), crockford_chars(_mm_packus_epi16(s10, s18)));
}

/* Crockford symbols (any case; no aliases: I L O U are not symbols) -> their
 * values; *bad gets 0xFF where a byte is not a symbol. */
SSSE3 static inline __m128i crockford_values(__m128i c, __m128i *bad) {
    __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(c, _mm_set1_epi8('0' - 1)), _mm_cmpgt_epi8(_mm_set1_epi8('9' + 1), c));
    __m128i u = _mm_and_si128(c, _mm_set1_epi8((char)0xDF));    /* upper case; bytes >= 0x80 stay negative */
    __m128i gt_i = _mm_cmpgt_epi8(u, _mm_set1_epi8('I')), gt_l = _mm_cmpgt_epi8(u, _mm_set1_epi8('L'));
    __m128i gt_o = _mm_cmpgt_epi8(u, _mm_set1_epi8('O')), gt_u = _mm_cmpgt_epi8(u, _mm_set1_epi8('U'));
    __m128i skipped = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(u, _mm_set1_epi8('I')), _mm_cmpeq_epi8(u, _mm_set1_epi8('L'))),
                                   _mm_or_si128(_mm_cmpeq_epi8(u, _mm_set1_epi8('O')), _mm_cmpeq_epi8(u, _mm_set1_epi8('U'))));
    __m128i letter = _mm_andnot_si128(skipped, _mm_and_si128(_mm_cmpgt_epi8(u, _mm_set1_epi8('A' - 1)),
                                                             _mm_cmpgt_epi8(_mm_set1_epi8('Z' + 1), u)));
    *bad = _mm_or_si128(*bad, _mm_andnot_si128(_mm_or_si128(digit, letter), _mm_set1_epi8(-1)));
    /* a letter counts from 10, minus one for each of I L O U below it (the compares are -1) */
    __m128i lv = _mm_add_epi8(_mm_sub_epi8(u, _mm_set1_epi8('A' - 10)),
                              _mm_add_epi8(_mm_add_epi8(gt_i, gt_l), _mm_add_epi8(gt_o, gt_u)));
    return _mm_or_si128(_mm_and_si128(digit, _mm_sub_epi8(c, _mm_set1_epi8('0'))), _mm_and_si128(letter, lv));
}

/* 16 symbol values -> two 40-bit groups, one in each 64-bit lane. */
SSSE3 static inline __m128i join_groups(__m128i v) {
    __m128i p10 = _mm_maddubs_epi16(v, _mm_set1_epi16(0x0120));            /* v0 * 32 + v1: 10 bits */
    __m128i p20 = _mm_madd_epi16(p10, _mm_set1_epi32(0x00010400));         /* * 1024 + next: 20 bits */
    __m128i first = _mm_and_si128(p20, _mm_set_epi32(0, -1, 0, -1));
    return _mm_or_si128(_mm_slli_epi64(first, 20), _mm_srli_epi64(p20, 32));
}

SSSE3 int toid__ulid_decode_ssse3(const char *s, uint8_t *bin) {
    unsigned v0 = toid__crockford32_dec[(unsigned char)s[0]], v1 = toid__crockford32_dec[(unsigned char)s[1]];
    if (v0 > 7 || v1 > 31)      /* a bad symbol (0xFF), or more than 128 bits */
        return -1;
    __m128i bad = _mm_setzero_si128();
    __m128i a = crockford_values(_mm_loadu_si128((const __m128i *)(const void *)(s + 2)), &bad);   /* 2..17 */
    __m128i b = crockford_values(_mm_loadu_si128((const __m128i *)(const void *)(s + 10)), &bad);  /* 10..25 */
    if (_mm_movemask_epi8(bad))
        return -1;
    __m128i ga = join_groups(a), gb = join_groups(b);
    /* the groups' 5 low bytes, big-endian: bytes 1..5 and 6..10 from a, 11..15 from b's second group */
    __m128i r = _mm_or_si128(
        _mm_shuffle_epi8(ga, _mm_setr_epi8(-1, 4, 3, 2, 1, 0, 12, 11, 10, 9, 8, -1, -1, -1, -1, -1)),
        _mm_shuffle_epi8(gb, _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 12, 11, 10, 9, 8)));
    r = _mm_or_si128(r, _mm_cvtsi32_si128((int)(v0 << 5 | v1)));
    _mm_storeu_si128((__m128i *)(void *)bin, r);
    return 0;
}
/* ---- SCRU160: 20 bytes <-> 32 base32hex symbols (4 groups of 40 bits),
 * and 40 hex digits -> 20 bytes ---- */

SSSE3 void toid__scru160_encode_ssse3(const uint8_t *bin, char *out) {
    const __m128i shifts = _mm_setr_epi16(32, 1024, 128, 4096, 512, 64, 2048, 256);
    __m128i b0 = _mm_loadu_si128((const __m128i *)(const void *)bin);          /* bytes 0..15 */
    __m128i b4 = _mm_loadu_si128((const __m128i *)(const void *)(bin + 4));    /* bytes 4..19 */
    __m128i g0 = symbols(b0, _mm_setr_epi8(1, 0, 1, 0, 2, 1, 2, 1, 3, 2, 4, 3, 4, 3, 5, 4), shifts);
    __m128i g1 = symbols(b0, _mm_setr_epi8(6, 5, 6, 5, 7, 6, 7, 6, 8, 7, 9, 8, 9, 8, 10, 9), shifts);
    __m128i g2 = symbols(b4, _mm_setr_epi8(7, 6, 7, 6, 8, 7, 8, 7, 9, 8, 10, 9, 10, 9, 11, 10), shifts);
    __m128i g3 = symbols(b4, _mm_setr_epi8(12, 11, 12, 11, 13, 12, 13, 12, 14, 13, 15, 14, 15, 14, -1, 15), shifts);
    /* 0-9 A-V: '0' + v, and 7 more past 9 */
    const __m128i zero = _mm_set1_epi8('0'), nine = _mm_set1_epi8(9), gap = _mm_set1_epi8('A' - '0' - 10);
    __m128i v0 = _mm_packus_epi16(g0, g1), v1 = _mm_packus_epi16(g2, g3);
    v0 = _mm_add_epi8(_mm_add_epi8(v0, zero), _mm_and_si128(_mm_cmpgt_epi8(v0, nine), gap));
    v1 = _mm_add_epi8(_mm_add_epi8(v1, zero), _mm_and_si128(_mm_cmpgt_epi8(v1, nine), gap));
    _mm_storeu_si128((__m128i *)(void *)out, v0);
    _mm_storeu_si128((__m128i *)(void *)(out + 16), v1);
}

/* base32hex symbols (any case) -> their values; *bad as above. */
SSSE3 static inline __m128i base32hex_values(__m128i c, __m128i *bad) {
    __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(c, _mm_set1_epi8('0' - 1)), _mm_cmpgt_epi8(_mm_set1_epi8('9' + 1), c));
    __m128i u = _mm_and_si128(c, _mm_set1_epi8((char)0xDF));
    __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(u, _mm_set1_epi8('A' - 1)), _mm_cmpgt_epi8(_mm_set1_epi8('V' + 1), u));
    *bad = _mm_or_si128(*bad, _mm_andnot_si128(_mm_or_si128(digit, letter), _mm_set1_epi8(-1)));
    return _mm_or_si128(_mm_and_si128(digit, _mm_sub_epi8(c, _mm_set1_epi8('0'))),
                        _mm_and_si128(letter, _mm_sub_epi8(u, _mm_set1_epi8('A' - 10))));
}

SSSE3 int toid__scru160_decode32_ssse3(const char *s, uint8_t *bin) {
    __m128i bad = _mm_setzero_si128();
    __m128i va = base32hex_values(_mm_loadu_si128((const __m128i *)(const void *)s), &bad);
    __m128i vb = base32hex_values(_mm_loadu_si128((const __m128i *)(const void *)(s + 16)), &bad);
    if (_mm_movemask_epi8(bad))
        return -1;
    __m128i ga = join_groups(va), gb = join_groups(vb);    /* groups 0, 1 and 2, 3 */
    __m128i head = _mm_or_si128(
        _mm_shuffle_epi8(ga, _mm_setr_epi8(4, 3, 2, 1, 0, 12, 11, 10, 9, 8, -1, -1, -1, -1, -1, -1)),
        _mm_shuffle_epi8(gb, _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 4, 3, 2, 1, 0, 12)));
    uint32_t tail = (uint32_t)_mm_cvtsi128_si32(
        _mm_shuffle_epi8(gb, _mm_setr_epi8(11, 10, 9, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1)));
    _mm_storeu_si128((__m128i *)(void *)bin, head);
    memcpy(bin + 16, &tail, 4);
    return 0;
}

SSSE3 int toid__hex40_decode_ssse3(const char *s, uint8_t *bin) {
    __m128i bad = _mm_setzero_si128();
    __m128i v0 = hex_values(_mm_loadu_si128((const __m128i *)(const void *)s), &bad);
    __m128i v1 = hex_values(_mm_loadu_si128((const __m128i *)(const void *)(s + 16)), &bad);
    __m128i v2 = hex_values(_mm_loadu_si128((const __m128i *)(const void *)(s + 24)), &bad);   /* 24..39 */
    if (_mm_movemask_epi8(bad))
        return -1;
    const __m128i pair = _mm_set1_epi16(0x0110);
    __m128i head = _mm_packus_epi16(_mm_maddubs_epi16(v0, pair), _mm_maddubs_epi16(v1, pair));   /* bytes 0..15 */
    __m128i last = _mm_packus_epi16(_mm_maddubs_epi16(v2, pair), _mm_setzero_si128());            /* bytes 12..19 */
    uint32_t tail = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(last, 4));
    _mm_storeu_si128((__m128i *)(void *)bin, head);
    memcpy(bin + 16, &tail, 4);
    return 0;
}
#endif
