/* bench.h — timing for the benchmark programs: a monotonic ns clock and the
 * median of repeated runs. */
#ifndef TOID_BENCH_H
#define TOID_BENCH_H
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "toid.h"

static inline uint64_t bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int bench_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, bench_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Keeps a value alive so the optimizer cannot drop the work. */
static volatile uint64_t bench_sink;

/* This thread's CPU time in ns: time preempted by other processes does not count. */
static inline uint64_t bench_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* splitmix64 from a fixed seed: the same values in every run. */
static inline uint64_t bench_next_u64(void) {
    static uint64_t state = 42;
    uint64_t z = (state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* A random valid value of f: the top bit of the 63-bit formats clear,
 * uuidv7's version and variant set. */
static inline void bench_random_value(toid_format f, uint8_t *bin) {
    const toid_format_info *info = toid_format_get(f);
    for (size_t b = 0; b < info->bin_size; b++)
        bin[b] = (uint8_t)bench_next_u64();
    if (info->int_max == UINT64_MAX >> 1)
        bin[0] &= 0x7F;
    if (f == TOID_UUIDV7) {
        bin[6] = (uint8_t)((bin[6] & 0x0F) | 0x70);
        bin[8] = (uint8_t)((bin[8] & 0x3F) | 0x80);
    }
}
#endif
