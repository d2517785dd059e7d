/* clock.h — the clock read inline, for the one-ID path (no call around the
 * vDSO's) and for clock.c's toid__clock_us: one definition. Needs the POSIX
 * clock (_POSIX_C_SOURCE or _GNU_SOURCE before any include). */
#ifndef TOID_CLOCK_H
#define TOID_CLOCK_H
#include "os.h"

#include <time.h>

/* Unix microseconds from CLOCK_REALTIME, or from the hook when one is set. */
static inline __attribute__((always_inline)) int64_t toid__clock_us_inline(void) {
    toid_clock_fn fn = __atomic_load_n(&toid__clock_hook, __ATOMIC_ACQUIRE);
    if (__builtin_expect(fn != NULL, 0))
        return fn(__atomic_load_n(&toid__clock_hook_ctx, __ATOMIC_ACQUIRE));
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}
/* The same reading as a timespec: the clock's own, or the hook's
 * microseconds split (floored, so the second and the ms agree with the
 * clock's for any time). For the owner's one-ID path (gen_owner.h), which
 * compares the reading with a ms's start rather than converting it. */
void toid__clock_hook_timespec(struct timespec *ts) TOID__HIDDEN;
static inline __attribute__((always_inline)) void toid__clock_timespec(struct timespec *ts) {
    if (__builtin_expect(__atomic_load_n(&toid__clock_hook, __ATOMIC_ACQUIRE) != NULL, 0))
        toid__clock_hook_timespec(ts);
    else
        clock_gettime(CLOCK_REALTIME, ts);
}
#endif
