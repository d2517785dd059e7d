/* fuzz_simd.c — the SIMD codecs against the scalar reference: the input as
 * text (its whole length, and cut to each format's text length) through
 * both decoders, which must agree on the return code, the bytes and the
 * error position; its first bytes as a value through both encoders, which
 * must write the same text; and up to 64 bytes through both hex encoders. Where the CPU has no SIMD path both runs
 * are scalar and agree trivially. */
#include "toid.h"

#include <stdlib.h>
#include <string.h>

#define REQUIRE(c) do { if (!(c)) abort(); } while (0)

static const toid_format formats[] = {TOID_UUIDV7, TOID_ULID, TOID_SCRU160};

static void same_decode(toid_format f, const char *text, size_t len) {
    uint8_t a[TOID_BIN_MAX], b[TOID_BIN_MAX];
    size_t pa = 12345, pb = 12345;
    memset(a, 0x5A, sizeof a);
    memset(b, 0x5A, sizeof b);
    toid_simd_select(TOID_SIMD_AUTO);
    int ra = toid_decode(f, text, len, a, &pa);
    toid_simd_select(TOID_SIMD_OFF);
    int rb = toid_decode(f, text, len, b, &pb);
    REQUIRE(ra == rb && pa == pb && memcmp(a, b, sizeof a) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        toid_format f = formats[i];
        size_t len = toid_format_get(f)->text_len;
        same_decode(f, (const char *)data, size);
        if (size >= len)
            same_decode(f, (const char *)data + size - len, len);
        if (f == TOID_SCRU160 && size >= 40)        /* its hex form */
            same_decode(f, (const char *)data + size - 40, 40);
        if (size >= toid_bin_size(f)) {
            char ta[TOID_TEXT_MAX], tb[TOID_TEXT_MAX];
            toid_simd_select(TOID_SIMD_AUTO);
            int na = toid_encode(f, data, ta, sizeof ta);
            toid_simd_select(TOID_SIMD_OFF);
            int nb = toid_encode(f, data, tb, sizeof tb);
            REQUIRE(na == nb && strcmp(ta, tb) == 0);
        }
    }
    /* toid_hex_encode of the whole input (to 64 bytes: the SIMD path takes 16 and up) */
    size_t n = size < 64 ? size : 64;
    char ha[2 * 64 + 1], hb[2 * 64 + 1];
    toid_simd_select(TOID_SIMD_AUTO);
    int na = toid_hex_encode(data, n, ha, sizeof ha);
    toid_simd_select(TOID_SIMD_OFF);
    int nb = toid_hex_encode(data, n, hb, sizeof hb);
    REQUIRE(na == nb && na == (int)(2 * n) && strcmp(ha, hb) == 0);
    return 0;
}
