/* test_threads.c — 8 threads x N IDs per format (default 500,000) on the
 * process-wide generator: no duplicates, and strictly increasing within each
 * thread (uid11: times non-decreasing, its values being random within a ms).
 * Then the same with a clock hook that sleeps 0-50 us after reading the
 * clock, with every format on the ERROR clock policy: a thread that read an
 * older ms than another had already used must not be told the clock went
 * back. Built also under ThreadSanitizer with a smaller N.
 *   usage: test_threads [--list] [CASE...] [N_PER_THREAD]
 */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "count_dups.h"
#include "toid.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#define THREADS 8

static long per_thread = 500000;
static toid_format cur;
static uint8_t *ids;        /* THREADS * per_thread slots of 20 bytes */
static int errors[THREADS], order_bad[THREADS];
static int last_error;

static void *worker(void *arg) {
    int t = (int)(intptr_t)arg;
    size_t size = toid_bin_size(cur);
    uint8_t *out = ids + (size_t)t * (size_t)per_thread * 20;
    toid_fields prev_f = {0}, f;
    for (long i = 0; i < per_thread; i++) {
        uint8_t *slot = out + 20 * i;
        int rc = toid_new(cur, slot);
        if (rc < 0) {
            errors[t]++;
            __atomic_store_n(&last_error, rc, __ATOMIC_RELAXED);
            /* counted as an error; a unique marker keeps it out of the duplicate count */
            memset(slot, 0xFF, 12);
            uint64_t mark = (uint64_t)t << 32 | (uint64_t)i;
            memcpy(slot + 12, &mark, 8);
            continue;
        }
        memset(slot + size, 0, 20 - size);
        if (i && !errors[t]) {
            if (cur == TOID_UID11) {
                toid_inspect(cur, slot, TOID_EPOCH_DEFAULT, &f);
                toid_inspect(cur, slot - 20, TOID_EPOCH_DEFAULT, &prev_f);
                order_bad[t] += f.unix_ms < prev_f.unix_ms;
            } else {
                order_bad[t] += memcmp(slot - 20, slot, size) >= 0;
            }
        }
    }
    return NULL;
}


static void run_format(toid_format f, const char *label) {
    cur = f;
    memset(errors, 0, sizeof errors);
    memset(order_bad, 0, sizeof order_bad);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    long n = THREADS * per_thread, err = 0, bad = 0;
    for (int t = 0; t < THREADS; t++) {
        err += errors[t];
        bad += order_bad[t];
    }
    long dup = count_dups(ids, n);
    const char *name = toid_format_get(f)->name;
    CHECK_MSG(err == 0, "%s %s: %ld errors (last: %s)", name, label, err, toid_err_name(last_error));
    CHECK_MSG(dup == 0, "%s %s: %ld duplicates", name, label, dup);
    CHECK_MSG(bad == 0, "%s %s: %ld out of order within a thread", name, label, bad);
    printf("%-20s %s: %d threads x %ld IDs, %ld duplicates, %ld errors\n", name, label, THREADS, per_thread, dup, err);
}

/* the slow clock: the real time, then a pause of 0-50 us before returning it */
static int64_t slow_clock(void *ctx) {
    (void)ctx;
    struct timespec now, pause;
    clock_gettime(CLOCK_REALTIME, &now);
    static __thread unsigned seed = 1;
    if (seed == 1)
        seed = (unsigned)(uintptr_t)&seed;
    seed = seed * 1103515245u + 12345u;
    pause.tv_sec = 0;
    pause.tv_nsec = (long)((seed >> 8) % 51) * 1000;
    nanosleep(&pause, NULL);
    return (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000;
}

static long full_per_thread = 500000;   /* the parameter */

/* the process-wide generators: they wait when a ms is full (ulid-flake's
 * default is the spec's error, which 8 threads reach within a ms) */
TEST_CASE(shared) {
    per_thread = full_per_thread;
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) if (GENERATES(f)) {
        toid_gen_config c;
        toid_gen_config_default((toid_format)f, &c);
        c.on_exhausted = f == TOID_UUIDV7 ? TOID_EXHAUSTED_ADVANCE : TOID_EXHAUSTED_WAIT;
        CHECK_EQ_INT(toid_configure(&c), 0);
    }
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) if (GENERATES(f))
        run_format((toid_format)f, "shared");
}

/* slow clock reads, and "clock behind" is an error for every format */
TEST_CASE(slow_clock) {
    long full = full_per_thread;
    per_thread = full / 50 > 1000 ? full / 50 : full;
    toid_set_clock(slow_clock, NULL);
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) if (GENERATES(f)) {
        toid_gen_config c;
        toid_gen_config_default((toid_format)f, &c);
        c.on_exhausted = f == TOID_UUIDV7 ? TOID_EXHAUSTED_ADVANCE : TOID_EXHAUSTED_WAIT;
        if (f != TOID_UUIDV7)      /* uuidv7 runs ahead of the clock by design (ADVANCE) */
            c.on_behind = TOID_BEHIND_ERROR;
        CHECK_EQ_INT(toid_configure(&c), 0);
        run_format((toid_format)f, "slow clock");
    }
    toid_set_clock(NULL, NULL);
}

static int setup(int nparam, char **param) {
    if (nparam > 1 || (nparam == 1 && atol(param[0]) <= 0)) {
        fprintf(stderr, "usage: test_threads [--list] [CASE...] [N_PER_THREAD]\n");
        return 2;
    }
    if (nparam == 1)
        full_per_thread = atol(param[0]);
    ids = malloc((size_t)THREADS * (size_t)full_per_thread * 20);
    return ids ? 0 : 2;
}

static void teardown(void) { free(ids); }

int main(int argc, char **argv) {
    return check_main(argc, argv, setup, teardown);
}
