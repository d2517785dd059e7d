/* bench_rng.c — the CSPRNG in bulk: ns per byte of toid_random_bytes in
 * 4 KiB draws, ChaCha20 8 blocks at a time with AVX2 (where the CPU has it)
 * beside 4 blocks with SSE2 (toid_simd_select(TOID_SIMD_OFF)), interleaved
 * rounds, thread CPU time, median (min). Floor: memset of the same buffer.
 *   usage: bench_rng [ROUNDS] [MIB_PER_ROUND]      (defaults 9, 64) */
#include "bench.h"
#include "toid.h"

#include <stdio.h>
#include <string.h>

#define DRAW 4096
#define MAX_ROUNDS 64

static uint64_t cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double ns_per_byte(int mode, long bytes) {
    static uint8_t buf[DRAW];
    if (mode >= 0)
        toid_simd_select(mode);
    uint64_t t0 = cpu_ns();
    for (long done = 0; done < bytes; done += DRAW) {
        if (mode >= 0)
            toid_random_bytes(buf, DRAW);
        else
            memset(buf, (int)done, DRAW);
        bench_sink += buf[done & (DRAW - 1)];
    }
    return (double)(cpu_ns() - t0) / (double)bytes;
}

static double v_min(const double *v, int n) {
    double m = v[0];
    for (int i = 1; i < n; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 && atoi(argv[1]) > 0 && atoi(argv[1]) <= MAX_ROUNDS ? atoi(argv[1]) : 9;
    long bytes = (argc > 2 && atol(argv[2]) > 0 ? atol(argv[2]) : 64) << 20;
    int level = toid_simd_select(TOID_SIMD_AUTO);
    double fast[MAX_ROUNDS], sse2[MAX_ROUNDS], floor_v[MAX_ROUNDS];
    ns_per_byte(TOID_SIMD_AUTO, 1 << 20);       /* seeds the thread's CSPRNG */
    for (int r = 0; r < rounds; r++) {
        fast[r] = ns_per_byte(TOID_SIMD_AUTO, bytes);
        sse2[r] = ns_per_byte(TOID_SIMD_OFF, bytes);
        floor_v[r] = ns_per_byte(-1, bytes);
    }
    toid_simd_select(TOID_SIMD_AUTO);
    printf("# bench_rng %d %ld — %d interleaved rounds x %ld MiB in %d-byte draws, thread CPU time, ns/B median (min)\n",
           rounds, bytes >> 20, rounds, bytes >> 20, DRAW);
    printf("%-34s %6.3f (%6.3f)\n", level >= 2 ? "ChaCha20 x8, AVX2" : "ChaCha20 x8 (no AVX2 here: 2 x SSE2)",
           bench_median(fast, rounds), v_min(fast, rounds));
    printf("%-34s %6.3f (%6.3f)\n", "ChaCha20 x4, SSE2 (TOID_SIMD=off)", bench_median(sse2, rounds), v_min(sse2, rounds));
    printf("%-34s %6.3f (%6.3f)\n", "floor: memset", bench_median(floor_v, rounds), v_min(floor_v, rounds));
    return 0;
}
