/* bench_rng.c — the CSPRNG in bulk: ns per byte of toid_random_bytes in
 * 4 KiB draws on each ChaCha20 path the CPU has: 16 blocks at a time with
 * AVX-512, two sets of 8 with AVX2, 4 with SSE2 (the scalar level, TOID_SIMD=off);
 * interleaved rounds, thread CPU time, median (min). Floor: memset of the
 * same buffer. Linked with the static library for its test hook, which
 * picks a level below the best.
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

int toid__test_simd_level(int level);     /* simd.c: min(level, the CPU's best) */

/* level < 0: the floor */
static double ns_per_byte(int level, long bytes) {
    static uint8_t buf[DRAW];
    if (level >= 0)
        toid__test_simd_level(level);
    uint64_t t0 = cpu_ns();
    for (long done = 0; done < bytes; done += DRAW) {
        if (level >= 0)
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
    static const struct { int level; const char *name; } paths[] = {
        {3, "ChaCha20 x16, AVX-512"}, {2, "ChaCha20 2x8, AVX2"}, {0, "ChaCha20 x4, SSE2 (TOID_SIMD=off)"}, {-1, "floor: memset"}};
    enum { NPATHS = sizeof paths / sizeof paths[0] };
    int best = toid__test_simd_level(99);
    double t[NPATHS][MAX_ROUNDS];
    ns_per_byte(best, 1 << 20);       /* seeds the thread's CSPRNG */
    for (int r = 0; r < rounds; r++)
        for (int p = 0; p < NPATHS; p++)
            if (paths[p].level <= best)
                t[p][r] = ns_per_byte(paths[p].level, bytes);
    toid_simd_select(TOID_SIMD_AUTO);
    printf("# bench_rng %d %ld — %d interleaved rounds x %ld MiB in %d-byte draws, thread CPU time, ns/B median (min)\n",
           rounds, bytes >> 20, rounds, bytes >> 20, DRAW);
    for (int p = 0; p < NPATHS; p++) {
        if (paths[p].level > best) {
            printf("%-34s (not on this CPU)\n", paths[p].name);
            continue;
        }
        printf("%-34s %6.3f (%6.3f)\n", paths[p].name, bench_median(t[p], rounds), v_min(t[p], rounds));
    }
    return 0;
}
