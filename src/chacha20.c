/* chacha20.c — the ChaCha20 block function (RFC 8439 §2.3), the keystream
 * under toid's CSPRNG: one block (checked against the RFC's vectors), 4
 * consecutive blocks at once: with SSE2 where the CPU has it (every x86-64),
 * otherwise portable C with the blocks as lanes of arrays; and 8 at once,
 * with AVX2 where CPUID has it (toid_simd_select level 2), else twice 4.
 * All are checked against the one-block function. */
#include "os.h"
#include "simd.h"

#define ROTL(v, n) (((v) << (n)) | ((v) >> (32 - (n))))
#define QR(a, b, c, d)                                   \
    a += b; d ^= a; d = ROTL(d, 16);                     \
    c += d; b ^= c; b = ROTL(b, 12);                     \
    a += b; d ^= a; d = ROTL(d, 8);                      \
    c += d; b ^= c; b = ROTL(b, 7)

void toid__chacha20_block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3],
                          uint8_t out[64]) {
    uint32_t in[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574,
                       key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7],
                       counter, nonce[0], nonce[1], nonce[2]};
    uint32_t x[16];
    memcpy(x, in, sizeof x);
    for (int i = 0; i < 10; i++) {
        QR(x[0], x[4], x[8], x[12]);
        QR(x[1], x[5], x[9], x[13]);
        QR(x[2], x[6], x[10], x[14]);
        QR(x[3], x[7], x[11], x[15]);
        QR(x[0], x[5], x[10], x[15]);
        QR(x[1], x[6], x[11], x[12]);
        QR(x[2], x[7], x[8], x[13]);
        QR(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; i++) {
        uint32_t v = x[i] + in[i];
        out[4 * i] = (uint8_t)v;                 /* little-endian words */
        out[4 * i + 1] = (uint8_t)(v >> 8);
        out[4 * i + 2] = (uint8_t)(v >> 16);
        out[4 * i + 3] = (uint8_t)(v >> 24);
    }
}

#define LANES TOID__CHACHA_LANES
#define VQR(a, b, c, d)                                                   \
    for (int l = 0; l < LANES; l++) {                                     \
        x[a][l] += x[b][l]; x[d][l] ^= x[a][l]; x[d][l] = ROTL(x[d][l], 16); \
        x[c][l] += x[d][l]; x[b][l] ^= x[c][l]; x[b][l] = ROTL(x[b][l], 12); \
        x[a][l] += x[b][l]; x[d][l] ^= x[a][l]; x[d][l] = ROTL(x[d][l], 8);  \
        x[c][l] += x[d][l]; x[b][l] ^= x[c][l]; x[b][l] = ROTL(x[b][l], 7);  \
    }

static void blocks_portable(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3],
                            uint8_t *out) {
    const uint32_t words[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574,
                                key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7],
                                0, nonce[0], nonce[1], nonce[2]};
    uint32_t x[16][LANES], in[16][LANES];
    for (int i = 0; i < 16; i++)
        for (int l = 0; l < LANES; l++)
            in[i][l] = words[i];
    for (int l = 0; l < LANES; l++)
        in[12][l] = counter + (uint32_t)l;
    memcpy(x, in, sizeof x);
    for (int r = 0; r < 10; r++) {
        VQR(0, 4, 8, 12) VQR(1, 5, 9, 13) VQR(2, 6, 10, 14) VQR(3, 7, 11, 15)
        VQR(0, 5, 10, 15) VQR(1, 6, 11, 12) VQR(2, 7, 8, 13) VQR(3, 4, 9, 14)
    }
    for (int l = 0; l < LANES; l++)
        for (int i = 0; i < 16; i++) {
            uint32_t v = x[i][l] + in[i][l];
            uint8_t *o = out + 64 * l + 4 * i;
            o[0] = (uint8_t)v;
            o[1] = (uint8_t)(v >> 8);
            o[2] = (uint8_t)(v >> 16);
            o[3] = (uint8_t)(v >> 24);
        }
}

#if defined(__SSE2__)
#include <emmintrin.h>

/* SSE2: the same 4 blocks with one register per state word (the 4 blocks in
 * its 4 lanes), then a 4x4 transpose per group of words on the way out. */
#define ROTV(v, n) _mm_or_si128(_mm_slli_epi32(v, n), _mm_srli_epi32(v, 32 - (n)))
#define SQR(a, b, c, d)                                                        \
    a = _mm_add_epi32(a, b); d = _mm_xor_si128(d, a); d = ROTV(d, 16);         \
    c = _mm_add_epi32(c, d); b = _mm_xor_si128(b, c); b = ROTV(b, 12);         \
    a = _mm_add_epi32(a, b); d = _mm_xor_si128(d, a); d = ROTV(d, 8);          \
    c = _mm_add_epi32(c, d); b = _mm_xor_si128(b, c); b = ROTV(b, 7)

static void blocks_sse2(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint8_t *out) {
    const uint32_t words[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574,
                                key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7],
                                0, nonce[0], nonce[1], nonce[2]};
    __m128i in[16], x[16];
    for (int i = 0; i < 16; i++)
        in[i] = _mm_set1_epi32((int)words[i]);
    in[12] = _mm_add_epi32(_mm_set1_epi32((int)counter), _mm_set_epi32(3, 2, 1, 0));
    for (int i = 0; i < 16; i++)
        x[i] = in[i];
    for (int r = 0; r < 10; r++) {
        SQR(x[0], x[4], x[8], x[12]);
        SQR(x[1], x[5], x[9], x[13]);
        SQR(x[2], x[6], x[10], x[14]);
        SQR(x[3], x[7], x[11], x[15]);
        SQR(x[0], x[5], x[10], x[15]);
        SQR(x[1], x[6], x[11], x[12]);
        SQR(x[2], x[7], x[8], x[13]);
        SQR(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; i++)
        x[i] = _mm_add_epi32(x[i], in[i]);
    /* words w..w+3 of the 4 blocks -> 16 bytes of each block */
    for (int w = 0; w < 16; w += 4) {
        __m128i t0 = _mm_unpacklo_epi32(x[w], x[w + 1]), t1 = _mm_unpacklo_epi32(x[w + 2], x[w + 3]);
        __m128i t2 = _mm_unpackhi_epi32(x[w], x[w + 1]), t3 = _mm_unpackhi_epi32(x[w + 2], x[w + 3]);
        _mm_storeu_si128((__m128i *)(void *)(out + 0 * 64 + 4 * w), _mm_unpacklo_epi64(t0, t1));
        _mm_storeu_si128((__m128i *)(void *)(out + 1 * 64 + 4 * w), _mm_unpackhi_epi64(t0, t1));
        _mm_storeu_si128((__m128i *)(void *)(out + 2 * 64 + 4 * w), _mm_unpacklo_epi64(t2, t3));
        _mm_storeu_si128((__m128i *)(void *)(out + 3 * 64 + 4 * w), _mm_unpackhi_epi64(t2, t3));
    }
}
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* AVX2: 8 blocks, one register per state word (the 8 blocks in its 8 lanes).
 * The rotations by 16 and 8 are byte shuffles. On the way out, a 4x4
 * transpose per 128-bit half: the low half holds blocks 0..3, the high half
 * blocks 4..7. Compiled for AVX2 alone; called only where CPUID has it. */
#define AVX2 __attribute__((target("avx2")))
#define ROT8(v, n) _mm256_or_si256(_mm256_slli_epi32(v, n), _mm256_srli_epi32(v, 32 - (n)))
#define AQR(a, b, c, d)                                                                    \
    a = _mm256_add_epi32(a, b); d = _mm256_shuffle_epi8(_mm256_xor_si256(d, a), rot16);     \
    c = _mm256_add_epi32(c, d); b = _mm256_xor_si256(b, c); b = ROT8(b, 12);                \
    a = _mm256_add_epi32(a, b); d = _mm256_shuffle_epi8(_mm256_xor_si256(d, a), rot8);      \
    c = _mm256_add_epi32(c, d); b = _mm256_xor_si256(b, c); b = ROT8(b, 7)

AVX2 static void blocks_avx2(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint8_t *out) {
    const uint32_t words[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574,
                                key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7],
                                0, nonce[0], nonce[1], nonce[2]};
    const __m256i rot16 = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,
                                           2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
    const __m256i rot8 = _mm256_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14,
                                          3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14);
    __m256i in[16], x[16];
    for (int i = 0; i < 16; i++)
        in[i] = _mm256_set1_epi32((int)words[i]);
    in[12] = _mm256_add_epi32(_mm256_set1_epi32((int)counter), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    for (int i = 0; i < 16; i++)
        x[i] = in[i];
    for (int r = 0; r < 10; r++) {
        AQR(x[0], x[4], x[8], x[12]);
        AQR(x[1], x[5], x[9], x[13]);
        AQR(x[2], x[6], x[10], x[14]);
        AQR(x[3], x[7], x[11], x[15]);
        AQR(x[0], x[5], x[10], x[15]);
        AQR(x[1], x[6], x[11], x[12]);
        AQR(x[2], x[7], x[8], x[13]);
        AQR(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; i++)
        x[i] = _mm256_add_epi32(x[i], in[i]);
    for (int w = 0; w < 16; w += 4) {
        __m256i t0 = _mm256_unpacklo_epi32(x[w], x[w + 1]), t1 = _mm256_unpacklo_epi32(x[w + 2], x[w + 3]);
        __m256i t2 = _mm256_unpackhi_epi32(x[w], x[w + 1]), t3 = _mm256_unpackhi_epi32(x[w + 2], x[w + 3]);
        __m256i r[4] = {_mm256_unpacklo_epi64(t0, t1), _mm256_unpackhi_epi64(t0, t1),
                        _mm256_unpacklo_epi64(t2, t3), _mm256_unpackhi_epi64(t2, t3)};
        for (int b = 0; b < 4; b++) {      /* r[b]: block b (low half) and block b + 4 (high half) */
            _mm_storeu_si128((__m128i *)(void *)(out + b * 64 + 4 * w), _mm256_castsi256_si128(r[b]));
            _mm_storeu_si128((__m128i *)(void *)(out + (b + 4) * 64 + 4 * w), _mm256_extracti128_si256(r[b], 1));
        }
    }
}
#endif

void toid__chacha20_blocks8(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint8_t *out) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (toid__simd() >= 2) {
        blocks_avx2(key, counter, nonce, out);
        return;
    }
#endif
    toid__chacha20_blocks(key, counter, nonce, out);
    toid__chacha20_blocks(key, counter + TOID__CHACHA_LANES, nonce, out + 64 * TOID__CHACHA_LANES);
}

void toid__chacha20_blocks(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint8_t *out) {
#if defined(__SSE2__) && TOID__CHACHA_LANES == 4
    blocks_sse2(key, counter, nonce, out);
#else
    blocks_portable(key, counter, nonce, out);
#endif
}

/* For the tests: the portable version of the same function. */
void toid__chacha20_blocks_portable(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3],
                                    uint8_t *out) {
    blocks_portable(key, counter, nonce, out);
}
