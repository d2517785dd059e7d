/* clock.c — CLOCK_REALTIME in microseconds (through the vDSO: no syscall),
 * or the process-wide hook that tests and simulations install. */
#define _POSIX_C_SOURCE 200809L
#include "clock.h"

toid_clock_fn toid__clock_hook;
void *toid__clock_hook_ctx;

int64_t toid__clock_us(void) { return toid__clock_us_inline(); }

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
