/* bench_gen.c — generating IDs, next to the physical floor measured in the
 * same run: one CLOCK_REALTIME read, and 16 bytes from the CSPRNG.
 * Per format: the cost of one ID per call as text (process-wide generator,
 * and a private unlocked generator) and of batches of 64 (binary, and then
 * encoded as text) — each the median over bursts that start right after a
 * ms tick, so a format's per-ms ceiling (nanoflake 4096 IDs/ms, ulid-flake-
 * scalable ~128) does not count as cost; the sustained rate of a tight loop
 * on the shared generator, which does include the ceiling; and 2 threads —
 * each with its own generator, and both on one generator, and 4 on one —
 * as a speed-up over one thread (with its own generator; alone on that one
 * generator, which it then owns); and 2 threads on the process-wide generator made one per
 * thread (TOID_GEN_PER_THREAD: ULID, UUIDv7, SCRU160) over one thread in the
 * same mode. Nanoflake's sustained rate per generator id is measured over a
 * full second.
 *   usage: bench_gen [RUNS] [IDS_PER_RUN]     (defaults 7, 300000) */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include "toid.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static int runs = 7;
static long ops = 300000;

typedef double (*measure_fn)(toid_format f);

#define BURST 32
#define BURSTS 1500

/* Waits (untimed) for the next ms of the clock. */
static void next_tick(void) {
    int64_t ms = toid_clock_now(NULL);
    while (toid_clock_now(NULL) == ms)
        ;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef void (*burst_fn)(toid_format f, int n);

/* Median ns per ID over BURSTS bursts of n IDs, each after a ms tick. */
static double burst_median(burst_fn fn, toid_format f, int n) {
    static double v[BURSTS];
    for (int b = 0; b < BURSTS; b++) {
        next_tick();
        uint64_t t0 = bench_now_ns();
        fn(f, n);
        v[b] = (double)(bench_now_ns() - t0) / n;
    }
    qsort(v, BURSTS, sizeof v[0], cmp_double);
    return v[BURSTS / 2];
}

static void burst_shared(toid_format f, int n) {
    char t[TOID_TEXT_MAX];
    for (int i = 0; i < n; i++)
        toid_new_text(f, t, sizeof t);
    bench_sink += (uint8_t)t[3];
}

static toid_gen_uid11 burst_room;     /* room for any format */
static void burst_private(toid_format f, int n) {
    char t[TOID_TEXT_MAX];
    (void)f;
    for (int i = 0; i < n; i++)
        toid_gen_next_text(&burst_room.g, t, sizeof t);
    bench_sink += (uint8_t)t[3];
}

static void burst_batch(toid_format f, int n) {
    uint8_t buf[64 * TOID_BIN_MAX];
    (void)f;
    toid_gen_batch(&burst_room.g, buf, (size_t)n, NULL);
    bench_sink += buf[7];
}

static void burst_batch_text(toid_format f, int n) {
    uint8_t buf[64 * TOID_BIN_MAX];
    char t[TOID_TEXT_MAX];
    size_t size = toid_bin_size(f);
    toid_gen_batch(&burst_room.g, buf, (size_t)n, NULL);
    for (int k = 0; k < n; k++)
        toid_encode(f, buf + size * (size_t)k, t, sizeof t);
    bench_sink += (uint8_t)t[3];
}

/* The median of `runs` runs of fn; *lo and *hi (if given) get the least
 * and the greatest. */
static double spread_of(measure_fn fn, toid_format f, double *lo, double *hi) {
    double v[64];
    for (int r = 0; r < runs; r++)
        v[r] = fn(f);
    double m = bench_median(v, runs);     /* sorts v */
    if (lo)
        *lo = v[0];
    if (hi)
        *hi = v[runs - 1];
    return m;
}

static double median_of(measure_fn fn, toid_format f) { return spread_of(fn, f, NULL, NULL); }

static double floor_clock(toid_format f) {
    (void)f;
    struct timespec ts;
    uint64_t acc = 0, t0 = bench_now_ns();
    for (long i = 0; i < ops; i++) {
        clock_gettime(CLOCK_REALTIME, &ts);
        acc += (uint64_t)ts.tv_nsec;
    }
    bench_sink += acc;
    return (double)(bench_now_ns() - t0) / (double)ops;
}

static double floor_entropy(toid_format f) {
    (void)f;
    uint8_t b[16];
    uint64_t acc = 0, t0 = bench_now_ns();
    for (long i = 0; i < ops; i++) {
        toid_random_bytes(b, 16);
        acc += b[3];
    }
    bench_sink += acc;
    return (double)(bench_now_ns() - t0) / (double)ops;
}

static double one_text_shared(toid_format f) {
    char t[TOID_TEXT_MAX];
    uint64_t acc = 0, t0 = bench_now_ns();
    for (long i = 0; i < ops; i++) {
        toid_new_text(f, t, sizeof t);
        acc += (uint8_t)t[5];
    }
    bench_sink += acc;
    return (double)(bench_now_ns() - t0) / (double)ops;
}

static toid_gen_uid11 private_room[2];  /* room for any format */
static struct {
    _Alignas(64) toid_gen_uid11 u;
} one_room;                             /* one thread-safe generator for two threads */

static void init_gen(toid_gen *g, toid_format f, uint32_t node, uint32_t flags) {
    toid_gen_config c;
    toid_gen_config_default(f, &c);
    c.flags = flags;
    c.node = f == TOID_NANOFLAKE || f == TOID_ULID_FLAKE_SCALABLE ? node : 0;   /* a generator id each */
    if (f != TOID_UUIDV7)
        c.on_exhausted = TOID_EXHAUSTED_WAIT;
    if (toid_gen_init_size(g, TOID_GEN_SIZE_MAX, &c) != 0) {     /* g: in a toid_gen_uid11 */
        fprintf(stderr, "bench_gen: cannot initialise a %s generator\n", toid_format_get(f)->name);
        exit(1);
    }
}

static void init_private(toid_gen *g, toid_format f, uint32_t node) { init_gen(g, f, node, TOID_GEN_UNLOCKED); }

/* ---- two threads ---- */
typedef struct job {
    toid_format f;
    toid_gen *g;
    long n;
} job;

/* n IDs as text from j->g, or (NULL) from the process-wide generator */
static void *thread_main(void *arg) {
    job *j = arg;
    char t[TOID_TEXT_MAX];
    uint64_t acc = 0;
    for (long i = 0; i < j->n; i++) {
        if (j->g)
            toid_gen_next_text(j->g, t, sizeof t);
        else
            toid_new_text(j->f, t, sizeof t);
        acc += (uint8_t)t[5];
    }
    bench_sink += acc;
    return NULL;
}

/* Runs the jobs, a thread each: IDs per second of them all. */
static double run_jobs(job *jobs, int threads) {
    pthread_t th[4];
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < threads; i++)
        pthread_create(&th[i], NULL, thread_main, &jobs[i]);
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    return (double)threads * (double)ops * 1e9 / (double)(bench_now_ns() - t0);
}

/* IDs per second with `threads` threads (up to 4; private generators for
 * up to 2); per_thread: private generators, else one fresh thread-safe
 * generator for all (one thread alone then owns it: no lock; with more, the
 * lock or the compare-and-swap) */
static double rate(toid_format f, int threads, int per_thread) {
    job jobs[4];
    if (!per_thread)
        init_gen(&one_room.u.g, f, 0, 0);
    for (int i = 0; i < threads; i++) {
        if (per_thread)
            init_private(&private_room[i].g, f, (uint32_t)i);
        jobs[i] = (job){f, per_thread ? &private_room[i].g : &one_room.u.g, ops};
    }
    return run_jobs(jobs, threads);
}

/* The physical floor of two threads on one generator: a cache line handed
 * back and forth between them, each taking its turn (what a generator with
 * one order for all its IDs needs whenever the calling thread changes).
 * ns per hand-off. */
static _Alignas(64) long turn;
static void *hand_off_main(void *arg) {
    long me = (long)(intptr_t)arg;
    for (long i = 0; i < ops; i++) {
        while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) % 2 != me)
            ;
        __atomic_fetch_add(&turn, 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

static double hand_off(toid_format f) {
    (void)f;
    pthread_t th[2];
    turn = 0;
    uint64_t t0 = bench_now_ns();
    for (long i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, hand_off_main, (void *)(intptr_t)i);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    return (double)(bench_now_ns() - t0) / (2.0 * (double)ops);
}

/* The process-wide generator in TOID_GEN_PER_THREAD (toid_new_text from
 * each thread): IDs per second with `threads` threads; 0 for a format that
 * does not take it. Each run's threads are new, so each makes its own. */
static double rate_per_thread(toid_format f, int threads) {
    job jobs[2];
    toid_gen_config c;
    toid_gen_config_default(f, &c);
    if (f != TOID_UUIDV7)
        c.on_exhausted = TOID_EXHAUSTED_WAIT;   /* as main configured the process-wide ones */
    c.flags = TOID_GEN_PER_THREAD;
    if (toid_configure(&c) != 0)
        return 0;
    for (int i = 0; i < threads; i++)
        jobs[i] = (job){f, NULL, ops};
    double r = run_jobs(jobs, threads);
    c.flags = 0;
    toid_configure(&c);
    return r;
}

static double speedup_per_thread(toid_format f) {
    double one = rate_per_thread(f, 1);
    return one > 0 ? rate_per_thread(f, 2) / one : 0;
}

static double speedup_private(toid_format f) { return rate(f, 2, 1) / rate(f, 1, 1); }
static double speedup_shared(toid_format f) { return rate(f, 2, 0) / rate(f, 1, 0); }
static double speedup_shared4(toid_format f) { return rate(f, 4, 0) / rate(f, 1, 0); }

/* nanoflake: IDs per second from one generator id over one second */
static double nanoflake_sustained(toid_format f) {
    uint8_t buf[64 * 8];
    init_private(&private_room[0].g, f, 0);
    uint64_t t0 = bench_now_ns(), n = 0;
    while (bench_now_ns() - t0 < 1000000000u) {
        toid_gen_batch(&private_room[0].g, buf, 64, NULL);
        n += 64;
    }
    return (double)n * 1e9 / (double)(bench_now_ns() - t0);
}

int main(int argc, char **argv) {
    if (argc > 1 && atoi(argv[1]) > 0 && atoi(argv[1]) <= 64)
        runs = atoi(argv[1]);
    if (argc > 2 && atol(argv[2]) > 0)
        ops = atol(argv[2]);
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) if (toid_format_get((toid_format)f)->generates) {      /* the shared generators wait when a ms is full */
        toid_gen_config c;
        toid_gen_config_default((toid_format)f, &c);
        if (f != TOID_UUIDV7)
            c.on_exhausted = TOID_EXHAUSTED_WAIT;
        if (toid_configure(&c) != 0) {
            fprintf(stderr, "bench_gen: cannot configure %s\n", toid_format_get((toid_format)f)->name);
            return 1;
        }
    }
    printf("# bench_gen %d %ld — medians of %d runs x %ld IDs\n", runs, ops, runs, ops);
    double clk = median_of(floor_clock, TOID_ULID);
    double ent = median_of(floor_entropy, TOID_ULID);
    int saved_runs = runs;
    runs = 3;
    double hand = median_of(hand_off, TOID_ULID);
    runs = saved_runs;
    printf("floor: CLOCK_REALTIME read %.1f ns, 16 bytes of entropy %.1f ns\n", clk, ent);
    printf("two threads taking turns on one cache line: %.1f ns a turn (%.1f M turns/s); one generator's\n"
           "IDs have one order, so its line changes threads whenever the calling thread does\n\n",
           hand, 1e3 / hand);
    printf("ns per ID: medians of %d bursts after a ms tick (%d IDs; batches: one of 64)\n", BURSTS, BURST);
    printf("%-20s %8s %8s %8s %8s %7s | %10s %8s %8s %8s %8s\n", "format", "text", "text", "batch64", "batch64",
           "text/", "sustained", "2 thr", "2 thr", "4 thr", "2 thr");
    printf("%-20s %8s %8s %8s %8s %7s | %10s %8s %8s %8s %8s\n", "", "shared", "private", "binary", "+text",
           "clock", "M IDs/s", "own gen", "shared", "shared", "per-thr");
    double ss_lo[TOID_FORMAT_COUNT], ss_hi[TOID_FORMAT_COUNT];
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) if (toid_format_get((toid_format)f)->generates) {
        toid_format fmt = (toid_format)f;
        double shared = burst_median(burst_shared, fmt, BURST);
        init_private(&burst_room.g, fmt, 0);
        double priv = burst_median(burst_private, fmt, BURST);
        double b = burst_median(burst_batch, fmt, 64), bt = burst_median(burst_batch_text, fmt, 64);
        double sustained = 1e3 / median_of(one_text_shared, fmt);
        int saved = runs;
        runs = runs < 5 ? runs : 5;
        double sp = median_of(speedup_private, fmt), ss = spread_of(speedup_shared, fmt, &ss_lo[f], &ss_hi[f]);
        double s4 = median_of(speedup_shared4, fmt);
        double spt = median_of(speedup_per_thread, fmt);
        runs = saved;
        char per[16] = "-";
        if (spt > 0)
            snprintf(per, sizeof per, "%.2fx", spt);
        printf("%-20s %8.1f %8.1f %8.1f %8.1f %7.2f | %10.2f %7.2fx %7.2fx %7.2fx %8s\n",
               toid_format_get(fmt)->name, shared, priv, b, bt, shared / clk, sustained, sp, ss, s4, per);
    }
    printf("\n2 thr shared, the least and the greatest of the runs (the noise of the machine and its host):");
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) if (toid_format_get((toid_format)f)->generates)
        printf("%s %s %.2f-%.2f", f % 4 ? "," : "\n ", toid_format_get((toid_format)f)->name, ss_lo[f], ss_hi[f]);
    printf("\n");
    int saved = runs;
    runs = 3;
    double nf = median_of(nanoflake_sustained, TOID_NANOFLAKE);
    runs = saved;
    printf("\nnanoflake sustained, one generator id: %.3f M IDs/s (%.3f of the 4.096 M/s ceiling)\n", nf / 1e6,
           nf / 4.096e6);
    return 0;
}
