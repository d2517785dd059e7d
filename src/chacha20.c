/* chacha20.c — the ChaCha20 block function (RFC 8439 §2.3), the keystream
 * under toid's CSPRNG: one block (checked against the RFC's vectors), 4
 * consecutive blocks at once: with SSE2 where the CPU has it (every x86-64),
 * with NEON on aarch64 (every ARMv8-A core), otherwise portable C with the
 * blocks as lanes of arrays; and 16 at once
 * for the CSPRNG's refill: with AVX-512 where CPUID has it (toid_simd_select
 * level 3), else with AVX2 (level 2; two interleaved sets of 8), else four times 4.
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

/* The 20 rounds of the SIMD versions: Q is their quarter round on x[16],
 * one register per state word. */
#define ROUNDS(Q, x)                                                                    \
    for (int r = 0; r < 10; r++) {                                                      \
        Q(x[0], x[4], x[8], x[12]); Q(x[1], x[5], x[9], x[13]);                         \
        Q(x[2], x[6], x[10], x[14]); Q(x[3], x[7], x[11], x[15]);                       \
        Q(x[0], x[5], x[10], x[15]); Q(x[1], x[6], x[11], x[12]);                       \
        Q(x[2], x[7], x[8], x[13]); Q(x[3], x[4], x[9], x[14]);                         \
    }

/* The 16 input words of a block, its counter word 0. */
#define STATE_WORDS(key, nonce)                                                             \
    {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574, key[0], key[1], key[2], key[3], key[4], \
     key[5], key[6], key[7], 0, nonce[0], nonce[1], nonce[2]}

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
    const uint32_t words[16] = STATE_WORDS(key, nonce);
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
    const uint32_t words[16] = STATE_WORDS(key, nonce);
    __m128i in[16], x[16];
    for (int i = 0; i < 16; i++)
        in[i] = _mm_set1_epi32((int)words[i]);
    in[12] = _mm_add_epi32(_mm_set1_epi32((int)counter), _mm_set_epi32(3, 2, 1, 0));
    for (int i = 0; i < 16; i++)
        x[i] = in[i];
    ROUNDS(SQR, x);
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

#if defined(__aarch64__) && defined(__ARM_NEON) && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TOID__CHACHA_NEON 1
#include <arm_neon.h>

/* NEON (every ARMv8-A core): the SSE2 version's 4 blocks in the 4 lanes of
 * one register per state word. A rotation is a shift and a shift-insert
 * (by 16: the halves swapped); the same 4x4 transposes on the way out. */
#define ROTN(v, n) vsriq_n_u32(vshlq_n_u32(v, n), v, 32 - (n))
#define NQR(a, b, c, d)                                                                       \
    a = vaddq_u32(a, b); d = veorq_u32(d, a); d = vreinterpretq_u32_u16(vrev32q_u16(vreinterpretq_u16_u32(d))); \
    c = vaddq_u32(c, d); b = veorq_u32(b, c); b = ROTN(b, 12);                                \
    a = vaddq_u32(a, b); d = veorq_u32(d, a); d = ROTN(d, 8);                                 \
    c = vaddq_u32(c, d); b = veorq_u32(b, c); b = ROTN(b, 7)

static void blocks_neon(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint8_t *out) {
    const uint32_t words[16] = STATE_WORDS(key, nonce);
    const uint32_t lanes[4] = {0, 1, 2, 3};
    uint32x4_t in[16], x[16];
    for (int i = 0; i < 16; i++)
        in[i] = vdupq_n_u32(words[i]);
    in[12] = vaddq_u32(vdupq_n_u32(counter), vld1q_u32(lanes));
    for (int i = 0; i < 16; i++)
        x[i] = in[i];
    ROUNDS(NQR, x);
    for (int i = 0; i < 16; i++)
        x[i] = vaddq_u32(x[i], in[i]);
    /* words w..w+3 of the 4 blocks -> 16 bytes of each block */
    for (int w = 0; w < 16; w += 4) {
        uint64x2_t t0 = vreinterpretq_u64_u32(vzip1q_u32(x[w], x[w + 1]));
        uint64x2_t t1 = vreinterpretq_u64_u32(vzip1q_u32(x[w + 2], x[w + 3]));
        uint64x2_t t2 = vreinterpretq_u64_u32(vzip2q_u32(x[w], x[w + 1]));
        uint64x2_t t3 = vreinterpretq_u64_u32(vzip2q_u32(x[w + 2], x[w + 3]));
        vst1q_u8(out + 0 * 64 + 4 * w, vreinterpretq_u8_u64(vzip1q_u64(t0, t1)));
        vst1q_u8(out + 1 * 64 + 4 * w, vreinterpretq_u8_u64(vzip2q_u64(t0, t1)));
        vst1q_u8(out + 2 * 64 + 4 * w, vreinterpretq_u8_u64(vzip1q_u64(t2, t3)));
        vst1q_u8(out + 3 * 64 + 4 * w, vreinterpretq_u8_u64(vzip2q_u64(t2, t3)));
    }
}
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* AVX2: 16 blocks as two sets of 8 (x: blocks 0..7, y: 8..15), one ymm
 * register per state word and set (the 8 blocks in its 8 lanes). The
 * rotations by 16 and 8 are byte shuffles, 12 and 7 two shifts and an or.
 * On the way out, per set, a 4x4 transpose per 128-bit half: the low half
 * holds blocks 0..3, the high half 4..7. Compiled for AVX2 alone; called
 * only where CPUID has it.
 * Why two sets: on Zen 5 a vector add, xor, shift or shuffle has a latency
 * of 2 cycles, and a quarter round is a chain of 14 dependent steps, so one
 * set's 4 independent quarter rounds leave the ALUs half idle: 8 blocks in
 * registers are bound at about 0.33 ns/B (20 x 14 x 2 cycles per 512 bytes
 * at 3.3 GHz, an estimate). The former 8-block kernel, called twice, also had 18
 * values for 16 registers, and gcc's spills (14 stores and 13 reloads a
 * double round) landed on that chain: 0.49 ns/B. With two sets interleaved
 * the out-of-order core has two independent chains; their 32 words cannot
 * live in 16 registers, so the state stays in memory and each quarter
 * round loads its 4 words of both sets, works on them in 10 registers and
 * stores them back (64 stores a double round of 16 blocks, no other
 * spills). The empty asm statement tells the compiler that the arrays are
 * read and written there; without it gcc keeps them in registers and
 * spills at its own choosing (the kernel alone in a loop: 0.43 ns/B
 * against 0.35).
 * `bench_rng 9 64` (median of 9), Zen 5 EPYC: 0.42 ns/B against 0.49 for
 * the former kernel, both through the CSPRNG's buffer; 0.36 since large
 * draws skip it (entropy.c), about the kernel alone in a loop (0.35). */
#define AVX2 __attribute__((target("avx2")))
#define ROT8(v, n) _mm256_or_si256(_mm256_slli_epi32(v, n), _mm256_srli_epi32(v, 32 - (n)))
#define AQR(a, b, c, d)                                                                    \
    a = _mm256_add_epi32(a, b); d = _mm256_shuffle_epi8(_mm256_xor_si256(d, a), rot16);     \
    c = _mm256_add_epi32(c, d); b = _mm256_xor_si256(b, c); b = ROT8(b, 12);                \
    a = _mm256_add_epi32(a, b); d = _mm256_shuffle_epi8(_mm256_xor_si256(d, a), rot8);      \
    c = _mm256_add_epi32(c, d); b = _mm256_xor_si256(b, c); b = ROT8(b, 7)
/* The quarter round on words a, b, c, d of both sets, from memory to memory. */
#define AQR2(a, b, c, d)                                                                   \
    do {                                                                                   \
        __m256i xa = x[a], xb = x[b], xc = x[c], xd = x[d];                                \
        __m256i ya = y[a], yb = y[b], yc = y[c], yd = y[d];                                \
        AQR(xa, xb, xc, xd);                                                               \
        AQR(ya, yb, yc, yd);                                                               \
        x[a] = xa; x[b] = xb; x[c] = xc; x[d] = xd;                                        \
        y[a] = ya; y[b] = yb; y[c] = yc; y[d] = yd;                                        \
        __asm__("" : "+m"(x), "+m"(y));                                                    \
    } while (0)

/* x + in as 8 blocks of keystream at out. */
AVX2 static void store8_avx2(const __m256i x[16], const __m256i in[16], uint8_t *out) {
    __m256i q[4][4];     /* q[w/4][b]: words w..w+3 of block b (low half) and block b + 4 (high half) */
    for (int w = 0; w < 16; w += 4) {
        __m256i a0 = _mm256_add_epi32(x[w], in[w]), a1 = _mm256_add_epi32(x[w + 1], in[w + 1]);
        __m256i a2 = _mm256_add_epi32(x[w + 2], in[w + 2]), a3 = _mm256_add_epi32(x[w + 3], in[w + 3]);
        __m256i t0 = _mm256_unpacklo_epi32(a0, a1), t1 = _mm256_unpacklo_epi32(a2, a3);
        __m256i t2 = _mm256_unpackhi_epi32(a0, a1), t3 = _mm256_unpackhi_epi32(a2, a3);
        q[w / 4][0] = _mm256_unpacklo_epi64(t0, t1);
        q[w / 4][1] = _mm256_unpackhi_epi64(t0, t1);
        q[w / 4][2] = _mm256_unpacklo_epi64(t2, t3);
        q[w / 4][3] = _mm256_unpackhi_epi64(t2, t3);
    }
    for (int b = 0; b < 4; b++) {     /* 32-byte stores: two halves joined */
        _mm256_storeu_si256((__m256i *)(void *)(out + b * 64), _mm256_permute2x128_si256(q[0][b], q[1][b], 0x20));
        _mm256_storeu_si256((__m256i *)(void *)(out + b * 64 + 32), _mm256_permute2x128_si256(q[2][b], q[3][b], 0x20));
        _mm256_storeu_si256((__m256i *)(void *)(out + (b + 4) * 64), _mm256_permute2x128_si256(q[0][b], q[1][b], 0x31));
        _mm256_storeu_si256((__m256i *)(void *)(out + (b + 4) * 64 + 32),
                            _mm256_permute2x128_si256(q[2][b], q[3][b], 0x31));
    }
}

AVX2 static void blocks_avx2(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint8_t *out) {
    const uint32_t words[16] = STATE_WORDS(key, nonce);
    const __m256i rot16 = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,
                                           2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
    const __m256i rot8 = _mm256_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14,
                                          3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14);
    __m256i in[16], x[16], y[16];
    for (int i = 0; i < 16; i++)
        in[i] = _mm256_set1_epi32((int)words[i]);
    in[12] = _mm256_add_epi32(_mm256_set1_epi32((int)counter), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    for (int i = 0; i < 16; i++)
        x[i] = y[i] = in[i];
    y[12] = _mm256_add_epi32(in[12], _mm256_set1_epi32(8));
    for (int r = 0; r < 10; r++) {
        AQR2(0, 4, 8, 12); AQR2(1, 5, 9, 13); AQR2(2, 6, 10, 14); AQR2(3, 7, 11, 15);
        AQR2(0, 5, 10, 15); AQR2(1, 6, 11, 12); AQR2(2, 7, 8, 13); AQR2(3, 4, 9, 14);
    }
    store8_avx2(x, in, out);
    in[12] = _mm256_add_epi32(in[12], _mm256_set1_epi32(8));     /* the counters of blocks 8..15 */
    store8_avx2(y, in, out + 8 * 64);
}

/* AVX-512: 16 blocks, one zmm register per state word; rotations are one
 * instruction (vprold), and the 32 registers hold the state and the inputs
 * with no spills. On the way out the 4x4 transpose within each 128-bit lane
 * as above, then the lanes regrouped so that one 64-byte store writes one
 * block. Measured against 8 blocks in ymm registers with the same
 * rotations (AVX-512VL): 0.23 ns/B against 0.45 on a Zen 4/5 EPYC. Compiled
 * for AVX-512F alone; called only where CPUID has F, VL and VBMI (level 3:
 * CPUs that do not lower their clock for zmm work). */
#define AVX512 __attribute__((target("avx512f")))
#define ZQR(a, b, c, d)                                                                    \
    a = _mm512_add_epi32(a, b); d = _mm512_rol_epi32(_mm512_xor_si512(d, a), 16);           \
    c = _mm512_add_epi32(c, d); b = _mm512_rol_epi32(_mm512_xor_si512(b, c), 12);           \
    a = _mm512_add_epi32(a, b); d = _mm512_rol_epi32(_mm512_xor_si512(d, a), 8);            \
    c = _mm512_add_epi32(c, d); b = _mm512_rol_epi32(_mm512_xor_si512(b, c), 7)

AVX512 static void blocks_avx512(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint8_t *out) {
    const uint32_t words[16] = STATE_WORDS(key, nonce);
    __m512i in[16], x[16];
    for (int i = 0; i < 16; i++)
        in[i] = _mm512_set1_epi32((int)words[i]);
    in[12] = _mm512_add_epi32(_mm512_set1_epi32((int)counter),
                              _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    for (int i = 0; i < 16; i++)
        x[i] = in[i];
    ROUNDS(ZQR, x);
    /* q[w/4][b]: 128-bit lane j holds words w..w+3 of block 4j + b */
    __m512i q[4][4];
    for (int w = 0; w < 16; w += 4) {
        __m512i a0 = _mm512_add_epi32(x[w], in[w]), a1 = _mm512_add_epi32(x[w + 1], in[w + 1]);
        __m512i a2 = _mm512_add_epi32(x[w + 2], in[w + 2]), a3 = _mm512_add_epi32(x[w + 3], in[w + 3]);
        __m512i t0 = _mm512_unpacklo_epi32(a0, a1), t1 = _mm512_unpacklo_epi32(a2, a3);
        __m512i t2 = _mm512_unpackhi_epi32(a0, a1), t3 = _mm512_unpackhi_epi32(a2, a3);
        q[w / 4][0] = _mm512_unpacklo_epi64(t0, t1);
        q[w / 4][1] = _mm512_unpackhi_epi64(t0, t1);
        q[w / 4][2] = _mm512_unpacklo_epi64(t2, t3);
        q[w / 4][3] = _mm512_unpackhi_epi64(t2, t3);
    }
    for (int b = 0; b < 4; b++) {
        /* lanes (j of words 0..3, j of 4..7) for j = 0,1 and 2,3, then the block's 4 lanes */
        __m512i lo01 = _mm512_shuffle_i32x4(q[0][b], q[1][b], 0x44), hi01 = _mm512_shuffle_i32x4(q[2][b], q[3][b], 0x44);
        __m512i lo23 = _mm512_shuffle_i32x4(q[0][b], q[1][b], 0xEE), hi23 = _mm512_shuffle_i32x4(q[2][b], q[3][b], 0xEE);
        _mm512_storeu_si512((void *)(out + (0 + b) * 64), _mm512_shuffle_i32x4(lo01, hi01, 0x88));
        _mm512_storeu_si512((void *)(out + (4 + b) * 64), _mm512_shuffle_i32x4(lo01, hi01, 0xDD));
        _mm512_storeu_si512((void *)(out + (8 + b) * 64), _mm512_shuffle_i32x4(lo23, hi23, 0x88));
        _mm512_storeu_si512((void *)(out + (12 + b) * 64), _mm512_shuffle_i32x4(lo23, hi23, 0xDD));
    }
}

#endif

void toid__chacha20_blocks16(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint8_t *out) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    int level = toid__simd();
    if (level >= 3) {
        blocks_avx512(key, counter, nonce, out);
        return;
    }
    if (level >= 2) {
        blocks_avx2(key, counter, nonce, out);
        return;
    }
#endif
    for (int i = 0; i < 16; i += TOID__CHACHA_LANES)
        toid__chacha20_blocks(key, counter + (uint32_t)i, nonce, out + 64 * i);
}

void toid__chacha20_blocks(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint8_t *out) {
#if defined(__SSE2__) && TOID__CHACHA_LANES == 4
    blocks_sse2(key, counter, nonce, out);
#elif defined(TOID__CHACHA_NEON) && TOID__CHACHA_LANES == 4
    blocks_neon(key, counter, nonce, out);
#else
    blocks_portable(key, counter, nonce, out);
#endif
}

/* For the tests: the portable version of the same function. */
void toid__chacha20_blocks_portable(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3],
                                    uint8_t *out) {
    blocks_portable(key, counter, nonce, out);
}
