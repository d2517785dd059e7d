/* bench_codec.c — text codecs through the public API: median ns per encode
 * and per decode for each format (and SCRU160's hex form), next to the floor
 * of the same loop copying the text. Values cycle through a pool so nothing
 * is constant-folded.
 *   usage: bench_codec [RUNS] [OPS_PER_RUN]   (defaults 15, 2000000) */
#include "bench.h"
#include "toid.h"

#include <stdio.h>
#include <string.h>

#define POOL 1024

static uint64_t rng = 42;
static uint64_t next_u64(void) {
    uint64_t z = (rng += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static uint8_t bins[POOL][TOID_BIN_MAX];
static char texts[POOL][TOID_TEXT_MAX];
static size_t lens[POOL];
static int runs = 15;
static long ops = 2000000;

enum op { ENCODE, DECODE, HEX_ENCODE, HEX_DECODE, COPY };

static double measure(toid_format f, enum op op) {
    double per[64];
    size_t bsize = toid_bin_size(f);
    for (int r = 0; r < runs; r++) {
        uint64_t acc = 0;
        char out[TOID_TEXT_MAX];
        uint8_t bin[TOID_BIN_MAX];
        uint64_t t0 = bench_now_ns();
        for (long i = 0; i < ops; i++) {
            unsigned k = (unsigned)i & (POOL - 1);
            switch (op) {
            case ENCODE: acc += (uint64_t)toid_encode(f, bins[k], out, sizeof out) + (uint8_t)out[7]; break;
            case DECODE: acc += (uint64_t)toid_decode(f, texts[k], lens[k], bin, NULL) + bin[3]; break;
            case HEX_ENCODE: acc += (uint64_t)toid_hex_encode(bins[k], bsize, out, sizeof out) + (uint8_t)out[7]; break;
            case HEX_DECODE: acc += (uint64_t)toid_decode(f, texts[k], 40, bin, NULL) + bin[3]; break;
            case COPY: memcpy(out, texts[k], 32); acc += (uint8_t)out[k & 31]; break;
            }
        }
        uint64_t t1 = bench_now_ns();
        bench_sink += acc;
        per[r] = (double)(t1 - t0) / (double)ops;
    }
    return bench_median(per, runs);
}

static void fill(toid_format f, int hex) {
    const toid_format_info *info = toid_format_get(f);
    for (int i = 0; i < POOL; i++) {
        for (size_t b = 0; b < info->bin_size; b++)
            bins[i][b] = (uint8_t)next_u64();
        if (info->int_max == UINT64_MAX >> 1)
            bins[i][0] &= 0x7F;
        if (f == TOID_UUIDV7) {
            bins[i][6] = (uint8_t)((bins[i][6] & 0x0F) | 0x70);
            bins[i][8] = (uint8_t)((bins[i][8] & 0x3F) | 0x80);
        }
        if (hex)
            lens[i] = (size_t)toid_hex_encode(bins[i], info->bin_size, texts[i], TOID_TEXT_MAX);
        else
            lens[i] = (size_t)toid_encode(f, bins[i], texts[i], TOID_TEXT_MAX);
    }
}

int main(int argc, char **argv) {
    if (argc > 1)
        runs = atoi(argv[1]) > 0 && atoi(argv[1]) <= 64 ? atoi(argv[1]) : runs;
    if (argc > 2)
        ops = atol(argv[2]) > 0 ? atol(argv[2]) : ops;
    printf("# bench_codec %d %ld — median of %d runs x %ld ops, ns/op\n", runs, ops, runs, ops);
    fill(TOID_ULID, 0);
    double floor_ns = measure(TOID_ULID, COPY);
    printf("%-28s %8s %8s\n", "codec", "encode", "decode");
    printf("%-28s %8.2f %8s   (the loop copying 32 bytes: the floor)\n", "floor", floor_ns, "");
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        const toid_format_info *info = toid_format_get((toid_format)f);
        if (f == TOID_ULID_FLAKE_SCALABLE || f == TOID_UID11_SEQ)
            continue;   /* the same codec as ulid-flake / uid11 */
        fill((toid_format)f, 0);
        char label[64];
        snprintf(label, sizeof label, "%s (%s-%u)", info->name, info->alphabet, info->text_len);
        double e = measure((toid_format)f, ENCODE), d = measure((toid_format)f, DECODE);
        printf("%-28s %8.2f %8.2f\n", label, e, d);
        if (f == TOID_SCRU160) {
            fill((toid_format)f, 1);
            e = measure((toid_format)f, HEX_ENCODE);
            d = measure((toid_format)f, HEX_DECODE);
            printf("%-28s %8.2f %8.2f\n", "scru160 (hex-40)", e, d);
        }
    }
    return 0;
}
