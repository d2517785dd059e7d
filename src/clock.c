/* clock.c — CLOCK_REALTIME in microseconds (through the vDSO: no syscall),
 * or the process-wide hook that tests and simulations install. */
#define _POSIX_C_SOURCE 200809L
#include "clock.h"

toid_clock_fn toid__clock_hook;
void *toid__clock_hook_ctx;

int64_t toid__clock_us(void) { return toid__clock_us_inline(); }

void toid__clock_hook_timespec(struct timespec *ts) {
    int64_t us = toid__clock_us_inline();       /* the hook's, or the clock's if it was just removed */
    int64_t sec = us / 1000000 - (us % 1000000 < 0);
    ts->tv_sec = (time_t)sec;
    ts->tv_nsec = (long)(us - sec * 1000000) * 1000;
}

int64_t toid_clock_now(unsigned *micros) {
    int64_t us = toid__clock_us();
    if (micros)
        *micros = (unsigned)(us % 1000);
    return us / 1000;
}

void toid_set_clock(toid_clock_fn fn, void *ctx) {
    __atomic_store_n(&toid__clock_hook_ctx, ctx, __ATOMIC_RELEASE);
    __atomic_store_n(&toid__clock_hook, fn, __ATOMIC_RELEASE);
}
