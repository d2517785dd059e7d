/* test_simd.c — the SIMD codecs (UUID, ULID, SCRU160 in both its forms,
 * toid_hex_encode at every length to 64 bytes) against the scalar reference on the same
 * inputs: random values through both encoders (byte for byte the same text),
 * and texts through both decoders (the same return code, bytes and error
 * position): every valid text of those values, each with random mutations
 * (a byte replaced by anything, case flipped, a hyphen moved, I L O U,
 * bytes >= 0x80), and each with a hand-picked edge. Every check runs the
 * SIMD path (toid_simd_select(TOID_SIMD_AUTO)) and the scalar path
 * (TOID_SIMD_OFF) in turn. Where the CPU has no SIMD path, it says so and
 * checks only that both settings agree.
 *   usage: test_simd [--list] [CASE...] [ITERATIONS]      (default 200000) */
#include "check.h"
#include "toid.h"

#include <stdint.h>
#include <stdlib.h>

static uint64_t rng = 0x5eed5eedu;
static uint64_t next_u64(void) {
    uint64_t z = (rng += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

typedef struct result {
    int rc;
    size_t pos;
    uint8_t bin[TOID_BIN_MAX];
} result;

static result decode_with(int mode, toid_format f, const char *text, size_t len) {
    result r;
    memset(&r, 0xA5, sizeof r);         /* untouched bytes must stay untouched on both paths */
    toid_simd_select(mode);
    r.rc = toid_decode(f, text, len, r.bin, &r.pos);
    return r;
}

static long compared;

/* Both decoders on one text: the same outcome, to the byte. */
static void same_decode(toid_format f, const char *text, size_t len) {
    result s = decode_with(TOID_SIMD_AUTO, f, text, len), c = decode_with(TOID_SIMD_OFF, f, text, len);
    compared++;
    if (s.rc != c.rc || memcmp(&s, &c, sizeof s) != 0) {
        CHECK_MSG(0, "%s decode of \"%.*s\": simd rc %d pos %zu, scalar rc %d pos %zu",
                  toid_format_get(f)->name, (int)len, text, s.rc, s.pos, c.rc, c.pos);
        exit(check_report());           /* one is enough to see */
    }
    check_passed++;
}

static void same_encode(toid_format f, const uint8_t *bin, char *text) {
    char a[TOID_TEXT_MAX], b[TOID_TEXT_MAX];
    toid_simd_select(TOID_SIMD_AUTO);
    int na = toid_encode(f, bin, a, sizeof a);
    toid_simd_select(TOID_SIMD_OFF);
    int nb = toid_encode(f, bin, b, sizeof b);
    CHECK_EQ_INT(na, nb);
    if (strcmp(a, b) != 0) {
        CHECK_EQ_STR(a, b);
        exit(check_report());
    }
    strcpy(text, b);
}

/* toid_hex_encode on both paths: the same digits and return */
static void same_hex(const uint8_t *bin, size_t n, char *text) {
    char a[2 * 64 + 1], b[2 * 64 + 1];
    memset(a, 'x', sizeof a);
    memset(b, 'x', sizeof b);
    toid_simd_select(TOID_SIMD_AUTO);
    int na = toid_hex_encode(bin, n, a, sizeof a);
    toid_simd_select(TOID_SIMD_OFF);
    int nb = toid_hex_encode(bin, n, b, sizeof b);
    CHECK_EQ_INT(na, (int)(2 * n));
    CHECK_EQ_INT(nb, na);
    if (memcmp(a, b, sizeof a) != 0) {
        CHECK_EQ_STR(a, b);
        exit(check_report());
    }
    if (text)
        memcpy(text, b, 2 * n + 1);
}

/* every length from 0 to 64 bytes (the SIMD path takes 16 and up, the last
 * 16 overlapping), random bytes, and the digits against a reference */
static void hex_lengths(void) {
    uint8_t bin[64];
    char text[2 * 64 + 1];
    for (int round = 0; round < 200; round++)
        for (size_t n = 0; n <= 64; n++) {
            for (size_t i = 0; i < n; i++)
                bin[i] = (uint8_t)next_u64();
            same_hex(bin, n, text);
            for (size_t i = 0; i < n; i++)
                CHECK("0123456789abcdef"[bin[i] >> 4] == text[2 * i] && "0123456789abcdef"[bin[i] & 15] == text[2 * i + 1]);
        }
}

static const char noise[] = "0123456789abcdefABCDEFghijklmnopqrstuvwxyzGHIJKLMNOPQRSTUVWXYZ-_ \x80\xff\x7f\t/:@[`{";

/* A copy of text with 1..3 random changes. */
static void mutate(const char *text, size_t len, char *out) {
    memcpy(out, text, len);
    int changes = 1 + (int)(next_u64() % 3);
    for (int i = 0; i < changes; i++) {
        size_t at = (size_t)(next_u64() % len);
        switch (next_u64() % 4) {
        case 0: out[at] = (char)next_u64(); break;                                 /* any byte */
        case 1: out[at] = noise[next_u64() % (sizeof noise - 1)]; break;           /* near misses */
        case 2: out[at] = (char)(out[at] ^ 0x20); break;                           /* case flip (and more) */
        default: out[at] = "ILOUilou"[next_u64() % 8]; break;                      /* Crockford's non-symbols */
        }
    }
}

static void value(toid_format f, uint8_t *bin) {
    size_t size = toid_bin_size(f);
    for (size_t i = 0; i < size; i++)
        bin[i] = (uint8_t)next_u64();
    if (f == TOID_UUIDV7 && next_u64() % 8) {       /* mostly valid version and variant */
        bin[6] = (uint8_t)((bin[6] & 0x0F) | 0x70);
        bin[8] = (uint8_t)((bin[8] & 0x3F) | 0x80);
    }
    if (next_u64() % 16 == 0)                        /* runs of the extremes */
        memset(bin + next_u64() % (size - 4), next_u64() % 2 ? 0xFF : 0, 1 + next_u64() % 4);
}

static void run(toid_format f, long iterations) {
    size_t len = toid_format_get(f)->text_len;
    uint8_t bin[TOID_BIN_MAX];
    char text[TOID_TEXT_MAX], bad[TOID_TEXT_MAX];
    for (long i = 0; i < iterations; i++) {
        value(f, bin);
        same_encode(f, bin, text);
        same_decode(f, text, len);
        mutate(text, len, bad);
        same_decode(f, bad, len);
        for (size_t k = 0; k < len; k++)            /* lower case, upper case */
            bad[k] = (char)(i & 1 ? (text[k] >= 'A' && text[k] <= 'Z' ? text[k] + 32 : text[k])
                                  : (text[k] >= 'a' && text[k] <= 'z' ? text[k] - 32 : text[k]));
        same_decode(f, bad, len);
        if (f == TOID_SCRU160) {                    /* its 40-digit hex form */
            char hex[TOID_TEXT_MAX];
            same_hex(bin, 20, hex);
            same_decode(f, hex, 40);
            mutate(hex, 40, bad);
            same_decode(f, bad, 40);
        }
    }
    /* edges: the largest and smallest values, the first ULID symbol at 7 and 8 */
    const char *edges[] = {"7ZZZZZZZZZZZZZZZZZZZZZZZZZ", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "00000000000000000000000000",
                           "zzzzzzzzzzzzzzzzzzzzzzzzzz", "0000000000000000000000000U", "I0000000000000000000000000",
                           "ffffffff-ffff-7fff-bfff-ffffffffffff", "00000000-0000-7000-8000-000000000000",
                           "FFFFFFFF-FFFF-7FFF-BFFF-FFFFFFFFFFFF", "00000000-0000-8000-8000-000000000000",
                           "00000000-0000-7000-c000-000000000000", "00000000-0000-7000-8000-00000000000g",
                           "00000000x0000-7000-8000-000000000000", "000000000-000-7000-8000-000000000000",
                           "VVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVV", "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv", "WVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVV",
                           "00000000000000000000000000000000", "0000000000000000000000000000000w",
                           "ffffffffffffffffffffffffffffffffffffffff", "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFg"};
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++)
        if (strlen(edges[e]) == len || (f == TOID_SCRU160 && strlen(edges[e]) == 40))
            same_decode(f, edges[e], strlen(edges[e]));
}

/* toid_encode_batch: the same texts as one toid_encode each, on both paths,
 * with and without a separator; a short buffer writes nothing. */
static void batch(toid_format f, int mode) {
    enum { N = 37 };
    size_t size = toid_bin_size(f), len = toid_format_get(f)->text_len;
    uint8_t bins[N * TOID_BIN_MAX];
    char out[N * (TOID_TEXT_MAX + 1) + 1], one[TOID_TEXT_MAX];
    for (size_t i = 0; i < N * size; i++)
        bins[i] = (uint8_t)next_u64();
    toid_simd_select(mode);
    for (int sep = 0; sep < 2; sep++) {
        size_t written = 0, step = len + (size_t)sep;
        CHECK_EQ_INT(toid_encode_batch(f, bins, N, sep ? '\n' : '\0', out, sizeof out, &written), 0);
        CHECK_EQ_INT(written, N * step);
        CHECK_EQ_INT(out[written], '\0');
        for (size_t i = 0; i < N; i++) {
            toid_encode(f, bins + i * size, one, sizeof one);
            CHECK(memcmp(out + i * step, one, len) == 0);
            if (sep)
                CHECK_EQ_INT(out[i * step + len], '\n');
        }
        memset(out, 'x', sizeof out);
        CHECK_EQ_INT(toid_encode_batch(f, bins, N, sep ? '\n' : '\0', out, N * step, &written), TOID_EBUFFER);
        CHECK_EQ_INT(out[0], 'x');
    }
    CHECK_EQ_INT(toid_encode_batch(f, NULL, 0, '\n', out, 1, NULL), 0);
    CHECK_EQ_INT(out[0], '\0');
    CHECK_EQ_INT(toid_encode_batch(f, NULL, 1, '\n', out, sizeof out, NULL), TOID_EINVAL);
}

static long iterations = 200000;   /* the parameter */

/* simd.c (hidden; the static library links it): the encoder slot toid_encode
 * takes, 1 scalar, 2 SIMD. The encoders write the same text, so only this
 * shows that OFF really reaches the scalar ones and AUTO the SIMD ones. */
extern uint8_t toid__codec_slot;

/* the selection: OFF and QUERY answer as documented, AUTO the same level
 * again, and toid_encode's encoder slot follows */
TEST_CASE(select) {
    int level = toid_simd_select(TOID_SIMD_AUTO);
#if defined(__aarch64__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    CHECK_EQ_INT(level, 1);         /* NEON is in every ARMv8-A core: the codecs must take it */
#endif
    if (level == 0)
        printf("test_simd: this CPU has no SIMD codec path; checking that both settings agree\n");
    CHECK_EQ_INT(toid__codec_slot, level > 0 ? 2 : 1);
    CHECK_EQ_INT(toid_simd_select(TOID_SIMD_OFF), 0);
    CHECK_EQ_INT(toid__codec_slot, 1);
    CHECK_EQ_INT(toid_simd_select(TOID_SIMD_QUERY), 0);
    CHECK_EQ_INT(toid_simd_select(TOID_SIMD_AUTO), level);
    CHECK_EQ_INT(toid__codec_slot, level > 0 ? 2 : 1);
}

TEST_CASE(codecs) {
    run(TOID_UUIDV7, iterations);
    run(TOID_ULID, iterations);
    run(TOID_SCRU160, iterations);
    hex_lengths();
    printf("simd level %d: %ld texts decoded both ways\n", toid_simd_select(TOID_SIMD_AUTO), compared);
}

TEST_CASE(batches) {
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        batch((toid_format)f, TOID_SIMD_AUTO);
        batch((toid_format)f, TOID_SIMD_OFF);
    }
}

static int setup(int nparam, char **param) {
    if (nparam > 1 || (nparam == 1 && atol(param[0]) <= 0)) {
        fprintf(stderr, "usage: test_simd [--list] [CASE...] [ITERATIONS]\n");
        return 2;
    }
    if (nparam == 1)
        iterations = atol(param[0]);
    return 0;
}

int main(int argc, char **argv) {
    return check_main(argc, argv, setup, NULL);
}
