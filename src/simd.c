/* simd.c — which codec implementation runs: detected once from CPUID on
 * x86-64 (aarch64 always has NEON) (and
 * TOID_SIMD=off in the environment), switchable with toid_simd_select so the
 * tests and CI run the SIMD and the scalar paths on the same inputs. */
#define _GNU_SOURCE
#include "simd.h"

#include <stdlib.h>

int toid__simd_level = -1;
uint8_t toid__codec_slot;

/* The codec slot of level l, written after the level. Two racing writers
 * (toid_simd_select in two threads) may leave the slot of the other's level
 * for a moment: both encoders write the same text, so only speed differs. */
static void publish(int l) {
    __atomic_store_n(&toid__codec_slot, (uint8_t)(l > 0 ? 2 : 1), __ATOMIC_RELAXED);
}

/* What this CPU and build can run. */
static int best_level(void) {
#if TOID__HAVE_SIMD && defined(__aarch64__)
    return 1;       /* NEON (Advanced SIMD) is part of every ARMv8-A core */
#elif TOID__HAVE_SIMD
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("ssse3"))
        return 0;
    if (!__builtin_cpu_supports("avx2"))
        return 1;
    /* AVX-512 only where it does not slow the core down: VBMI marks Ice Lake
     * and later, and AMD Zen 4 and later; Skylake-X and Cascade Lake, which
     * lower the clock of the whole core for a while after zmm work, keep
     * AVX2 */
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                   __builtin_cpu_supports("avx512vbmi")
               ? 3
               : 2;
#else
    return 0;
#endif
}

int toid__simd_init(void) {
    const char *env = secure_getenv("TOID_SIMD");
    int l = env && (env[0] == '0' || env[0] == 'o' || env[0] == 'O' || env[0] == 'n' || env[0] == 'N') ? 0
                                                                                                      : best_level();
    int unset = -1;
    /* a racing first use, or toid_simd_select before, may have set it: keep theirs */
    if (!__atomic_compare_exchange_n(&toid__simd_level, &unset, l, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return unset;
    publish(l);
    return l;
}

int toid_simd_select(int mode) {
    if (mode < 0)
        return toid__simd();
    int l = mode == TOID_SIMD_OFF ? 0 : best_level();
    __atomic_store_n(&toid__simd_level, l, __ATOMIC_RELAXED);
    publish(l);
    return l;
}

/* For the tests: level min(level, what the CPU has), so each path below the
 * best runs on the same inputs. */
int toid__test_simd_level(int level) {
    int best = best_level(), l = level < best ? level : best;
    __atomic_store_n(&toid__simd_level, l, __ATOMIC_RELAXED);
    publish(l);
    return l;
}
