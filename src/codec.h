/*
 * codec.h — the alphabets: 256-entry decode tables (0xFF = not in the
 * alphabet) and the small inline loops every format's codec is built from.
 * The tables live in codec_<alphabet>.c, one file per alphabet.
 */
#ifndef TOID_CODEC_H
#define TOID_CODEC_H

#include "format.h"

#define TOID__BAD 0xFF

extern const uint8_t toid__crockford32_dec[256] TOID__HIDDEN;
extern const char toid__crockford32_enc[32] TOID__HIDDEN;
extern const uint8_t toid__base32hex_dec[256] TOID__HIDDEN;
extern const char toid__base32hex_enc[32] TOID__HIDDEN;
extern const uint8_t toid__hex_dec[256] TOID__HIDDEN;
extern const char toid__hex_pairs[512] TOID__HIDDEN;
extern const uint8_t toid__base36_dec[256] TOID__HIDDEN;
extern const uint8_t toid__base58_dec[256] TOID__HIDDEN;

/* The offset of the first byte of s[0..n) that dec does not accept (n if none). */
size_t toid__first_bad(const char *s, size_t n, const uint8_t *dec) TOID__HIDDEN;

/* n (<= 12) base32 symbols -> their 5n-bit value. Invalid symbols set bits
 * of *bad (their table entry is 0xFF); the value is then meaningless.
 * Two independent halves, so the shift-or chains run side by side. */
static inline uint64_t toid__b32_get(const char *s, int n, const uint8_t *dec, unsigned *bad) {
    uint64_t hi = 0, lo = 0;
    unsigned acc = 0;
    int h = n / 2;
    for (int i = 0; i < h; i++) {
        unsigned a = dec[(unsigned char)s[i]], b = dec[(unsigned char)s[h + i]];
        acc |= a | b;
        hi = (hi << 5) | (a & 31u);
        lo = (lo << 5) | (b & 31u);
    }
    if (n & 1) {
        unsigned c = dec[(unsigned char)s[n - 1]];
        acc |= c;
        lo = (lo << 5) | (c & 31u);
    }
    *bad |= acc;
    return (hi << (5 * (n - h))) | lo;
}

/* The low 5n bits of v as n base32 symbols. */
static inline void toid__b32_put(uint64_t v, int n, const char *enc, char *out) {
    for (int i = n - 1; i >= 0; i--) {
        out[i] = enc[v & 31u];
        v >>= 5;
    }
}

/* The 36-character text of a UUID of any version <-> its 16 bytes
 * (fmt_uuidv7.c): lower-case hex with hyphens at 8, 13, 18, 23. decode
 * takes exactly 36 characters and returns 0, or TOID_ECHAR with *err_pos
 * (if not NULL) at the first character out of place. */
void toid__uuid_text_encode(const uint8_t *bin, char *out) TOID__HIDDEN;
int toid__uuid_text_decode(const char *s, uint8_t *bin, size_t *err_pos) TOID__HIDDEN;

/* (*hi:*lo) = (*hi:*lo) * 58 + d, a 128-bit step in 32-bit pieces (portable:
 * no __int128); the base-58 decoder and uid11's prefix ranges use it. */
static inline void toid__mul58_add(uint64_t *hi, uint64_t *lo, unsigned d) {
    uint64_t l0 = (*lo & 0xFFFFFFFFu) * 58u + d;
    uint64_t l1 = (*lo >> 32) * 58u + (l0 >> 32);
    *lo = (l1 << 32) | (l0 & 0xFFFFFFFFu);
    *hi = *hi * 58u + (l1 >> 32);
}

/* Four bytes as eight lower-case hex digits in one 64-bit word, first byte
 * in the low lane (little-endian hosts): the bytes spread into 16-bit lanes,
 * each lane into its two nibbles, then '0' or 'a' - 10 added to each. */
static inline uint64_t toid__hex4(const uint8_t *b) {
    uint64_t v = (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24;
    v = (v | v << 16) & UINT64_C(0x0000ffff0000ffff);
    v = (v | v << 8) & UINT64_C(0x00ff00ff00ff00ff);
    v = (v >> 4 & UINT64_C(0x000f000f000f000f)) | (v & UINT64_C(0x000f000f000f000f)) << 8;
    uint64_t letters = (v + UINT64_C(0x0606060606060606)) >> 4 & UINT64_C(0x0101010101010101);
    return v + UINT64_C(0x3030303030303030) + letters * ('a' - '0' - 10);
}

/* n bytes -> 2n lower-case hex digits: a word per four bytes, then pairs. */
static inline void toid__hex_put(const uint8_t *b, size_t n, char *out) {
    size_t words = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    words = n / 4;
    for (size_t w = 0; w < words; w++) {
        uint64_t x = toid__hex4(b + 4 * w);
        memcpy(out + 8 * w, &x, 8);
    }
#endif
    for (size_t i = 4 * words; i < n; i++)
        memcpy(out + 2 * i, toid__hex_pairs + 2 * b[i], 2);
}

/* 13 base36 digits, lower case, zero-padded, of v (< 36^13). */
void toid__base36_encode13(uint64_t v, char *out) TOID__HIDDEN;
/* 1..13 base36 digits (any case) -> v <= 2^63-1. The caller checked len. */
int toid__base36_decode(const char *s, size_t len, uint64_t *v, size_t *err_pos) TOID__HIDDEN;

/* 11 Base58 digits, MSB first, padded with '1'. */
void toid__base58_encode11(uint64_t v, char *out) TOID__HIDDEN;
/* 0..11 Base58 digits -> the value they spell, as a 128-bit quantity split in
 * hi:lo (hi > 0 means above 2^64-1). TOID_ECHAR with *err_pos. */
int toid__base58_decode(const char *s, size_t len, uint64_t *hi, uint64_t *lo,
                        size_t *err_pos) TOID__HIDDEN;
/* Exactly 11 Base58 digits -> v; TOID_ECHAR or TOID_EOVERFLOW. Fast path. */
int toid__base58_decode11(const char *s, uint64_t *v, size_t *err_pos) TOID__HIDDEN;

#endif
