/* bench_codec.c — text codecs through the public API: median ns per encode
 * and per decode for each format (and SCRU160's hex form), next to the floor
 * of the same loop copying the text; ULID, UUID and SCRU160 (both forms) also on the scalar path
 * (toid_simd_select(TOID_SIMD_OFF)) beside their SIMD path. Values cycle through a pool so nothing
 * is constant-folded.
 *   usage: bench_codec [RUNS] [OPS_PER_RUN]   (defaults 15, 2000000)
 *          bench_codec --only FORMAT encode|decode|copy|hex-encode [OPS]  one loop, in the
 *          function `measured`, for callgrind: see bench/callgrind_counts.sh */
#include "bench.h"
#include "toid.h"

#include <stdio.h>
#include <string.h>

#define POOL 1024

static uint8_t bins[POOL][TOID_BIN_MAX];
static char texts[POOL][TOID_TEXT_MAX];
static size_t lens[POOL];
static int runs = 15;
static long ops = 2000000;

enum op { ENCODE, DECODE, HEX_ENCODE, HEX_DECODE, COPY };

static double last_min;     /* the fastest run of the last measure() */

/* Median ns per op of the runs, by this thread's CPU time (time preempted
 * by other processes does not count); last_min gets the fastest run. */
static double measure(toid_format f, enum op op) {
    double per[64];
    size_t bsize = toid_bin_size(f);
    for (int r = 0; r < runs; r++) {
        uint64_t acc = 0;
        char out[TOID_TEXT_MAX];
        uint8_t bin[TOID_BIN_MAX];
        uint64_t t0 = bench_cpu_ns();
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
        uint64_t t1 = bench_cpu_ns();
        bench_sink += acc;
        per[r] = (double)(t1 - t0) / (double)ops;
    }
    last_min = per[0];
    for (int r = 1; r < runs; r++)
        last_min = per[r] < last_min ? per[r] : last_min;
    return bench_median(per, runs);
}

static void fill(toid_format f, int hex) {
    const toid_format_info *info = toid_format_get(f);
    for (int i = 0; i < POOL; i++) {
        bench_random_value(f, bins[i]);
        if (hex)
            lens[i] = (size_t)toid_hex_encode(bins[i], info->bin_size, texts[i], TOID_TEXT_MAX);
        else
            lens[i] = (size_t)toid_encode(f, bins[i], texts[i], TOID_TEXT_MAX);
    }
}

/* The loop callgrind counts (--toggle-collect=measured). */
__attribute__((noinline)) void measured(toid_format f, enum op op);
__attribute__((noinline)) void measured(toid_format f, enum op op) { bench_sink += (uint64_t)measure(f, op); }

int main(int argc, char **argv) {
    if (argc >= 4 && strcmp(argv[1], "--only") == 0) {     /* bench_codec --only FORMAT encode|decode|copy|hex-encode [OPS] */
        int f = toid_format_by_name(argv[2], strlen(argv[2]));
        if (f < 0)
            return 2;
        runs = 1;
        ops = argc > 4 && atol(argv[4]) > 0 ? atol(argv[4]) : 100000;
        int hex = strcmp(argv[3], "hex-encode") == 0;
        fill((toid_format)f, hex);
        measured((toid_format)f, hex ? HEX_ENCODE
                                 : strcmp(argv[3], "decode") == 0 ? DECODE : strcmp(argv[3], "copy") == 0 ? COPY : ENCODE);
        return 0;
    }
    if (argc > 1)
        runs = atoi(argv[1]) > 0 && atoi(argv[1]) <= 64 ? atoi(argv[1]) : runs;
    if (argc > 2)
        ops = atol(argv[2]) > 0 ? atol(argv[2]) : ops;
    printf("# bench_codec %d %ld — median of %d runs x %ld ops, ns/op\n", runs, ops, runs, ops);
    fill(TOID_ULID, 0);
    double floor_ns = measure(TOID_ULID, COPY), floor_min = last_min;
    printf("# thread CPU time, median (min) ns/op\n");
    printf("%-28s %15s %15s\n", "codec", "encode", "decode");
    printf("%-28s %6.2f (%6.2f) %15s   (the loop copying 32 bytes: the floor)\n", "floor", floor_ns, floor_min, "");
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        const toid_format_info *info = toid_format_get((toid_format)f);
        if (f == TOID_ULID_FLAKE_SCALABLE || f == TOID_UID11_SEQ)
            continue;   /* the same codec as ulid-flake / uid11 */
        fill((toid_format)f, 0);
        char label[64];
        snprintf(label, sizeof label, "%s (%s-%u)", info->name, info->alphabet, info->text_len);
        double e = measure((toid_format)f, ENCODE), em = last_min, d = measure((toid_format)f, DECODE), dm = last_min;
        printf("%-28s %6.2f (%6.2f) %6.2f (%6.2f)\n", label, e, em, d, dm);
        if (f == TOID_ULID || f == TOID_UUIDV7 || f == TOID_SCRU160) {   /* the same codec on its scalar path */
            int level = toid_simd_select(TOID_SIMD_QUERY);
            toid_simd_select(TOID_SIMD_OFF);
            e = measure((toid_format)f, ENCODE);
            em = last_min;
            d = measure((toid_format)f, DECODE);
            dm = last_min;
            toid_simd_select(TOID_SIMD_AUTO);
            printf("%-28s %6.2f (%6.2f) %6.2f (%6.2f)   (scalar; the line above: SIMD level %d)\n", "  scalar", e, em,
                   d, dm, level);
        }
        if (f == TOID_SCRU160) {
            fill((toid_format)f, 1);
            e = measure((toid_format)f, HEX_ENCODE);
            em = last_min;
            d = measure((toid_format)f, HEX_DECODE);
            dm = last_min;
            printf("%-28s %6.2f (%6.2f) %6.2f (%6.2f)\n", "scru160 (hex-40)", e, em, d, dm);
            toid_simd_select(TOID_SIMD_OFF);
            e = measure((toid_format)f, HEX_ENCODE);
            em = last_min;
            d = measure((toid_format)f, HEX_DECODE);
            dm = last_min;
            toid_simd_select(TOID_SIMD_AUTO);
            printf("%-28s %6.2f (%6.2f) %6.2f (%6.2f)   (scalar)\n", "  scalar", e, em, d, dm);
        }
    }
    return 0;
}
