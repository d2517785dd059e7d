/* chacha20.c — the ChaCha20 block function (RFC 8439 §2.3), the keystream
 * under toid's CSPRNG: one block (checked against the RFC's vectors), and 8
 * consecutive blocks at once with the blocks as lanes of plain C arrays,
 * which compilers turn into SIMD without intrinsics (checked against the
 * one-block function). */
#include "os.h"

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

void toid__chacha20_blocks(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3],
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
