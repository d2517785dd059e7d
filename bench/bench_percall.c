/* bench_percall.c — one ID per call on the process-wide generator, next to
 * the floor of the same work done by hand in the same run:
 *   ulid      toid_new_text   floor: clock read + 128-bit increment + encode
 *   uuidv7    toid_new_text   floor: clock read + 10 bytes of the buffered
 *                             CSPRNG (toid_random_bytes) + version/variant + encode
 *   nanoflake toid_new (bin)  floor: clock read
 *   scru160   toid_new_text   floor: clock read + counter increment + 12 bytes
 *                             of the CSPRNG + encode
 * The floors encode with the library's own toid_encode, so a faster encoder
 * lowers both sides and the ratio measures the generator's plumbing (lock,
 * fork check, state, dispatch).
 *
 * Rounds are interleaved (every variant once per round, in turn), so a burst
 * of load from other processes hits all of them alike. A round is bursts of
 * 2000 calls, each started right after a ms tick and timed alone, so
 * nanoflake's ceiling (4096 IDs a ms, then it waits for the next ms) never
 * counts as cost. Time is this thread's CPU time (time spent preempted does
 * not count) and the wall clock; the table shows the median and the minimum
 * over the rounds.
 *
 *   usage: bench_percall [ROUNDS] [CALLS_PER_ROUND]      (defaults 9, 200000)
 *          bench_percall --only NAME CALLS   runs one variant's loop (in the
 *          function `measured`) for callgrind: see bench/callgrind_counts.sh */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include "toid.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef void (*loop_fn)(long n);

/* ---- the library ---- */
/* n IDs of f as text, from g, or from the process-wide generator (NULL) */
static void text_loop(toid_format f, toid_gen *g, long n) {
    char t[TOID_TEXT_MAX];
    size_t last = toid_format_get(f)->text_len - 1;
    uint64_t acc = 0;
    for (long i = 0; i < n; i++) {
        if (g)
            toid_gen_next_text(g, t, sizeof t);
        else
            toid_new_text(f, t, sizeof t);
        acc += (uint8_t)t[last];
    }
    bench_sink += acc;
}

/* n nanoflakes, binary: the same */
static void bin_loop(toid_gen *g, long n) {
    uint8_t b[8];
    uint64_t acc = 0;
    for (long i = 0; i < n; i++) {
        if (g)
            toid_gen_next(g, b, NULL);
        else
            toid_new(TOID_NANOFLAKE, b);
        acc += b[7];
    }
    bench_sink += acc;
}

static void lib_text(toid_format f, long n) { text_loop(f, NULL, n); }
static void lib_ulid(long n) { lib_text(TOID_ULID, n); }
static void lib_uuidv7(long n) { lib_text(TOID_UUIDV7, n); }
static void lib_scru160(long n) { lib_text(TOID_SCRU160, n); }

static void lib_nanoflake(long n) { bin_loop(NULL, n); }

/* ---- the same on a generator that a second thread has used once: it is
 * then nobody's own, and each ID takes the lock (ULID, UUIDv7) or a
 * compare-and-swap (nanoflake, SCRU160): what every ID costs in a program
 * whose threads share a generator. ---- */
static toid_gen many[TOID_FORMAT_COUNT];

static void *take_over(void *arg) {
    uint8_t id[TOID_BIN_MAX];
    toid_gen_next(arg, id, NULL);
    return NULL;
}

static void many_init(toid_format f) {
    toid_gen_config c;
    toid_gen_config_default(f, &c);
    toid_gen_init(&many[f], &c);
    uint8_t id[TOID_BIN_MAX];
    toid_gen_next(&many[f], id, NULL);      /* ours, then the other thread's call takes it over */
    pthread_t t;
    pthread_create(&t, NULL, take_over, &many[f]);
    pthread_join(t, NULL);
}

static void many_text(toid_format f, long n) { text_loop(f, &many[f], n); }

static void many_ulid(long n) { many_text(TOID_ULID, n); }
static void many_uuidv7(long n) { many_text(TOID_UUIDV7, n); }
static void many_scru160(long n) { many_text(TOID_SCRU160, n); }

static void many_nanoflake(long n) { bin_loop(&many[TOID_NANOFLAKE], n); }

/* ---- the floors ---- */
static int64_t clock_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void put64(uint8_t *p, uint64_t v) {
    for (int k = 0; k < 8; k++)
        p[k] = (uint8_t)(v >> (56 - 8 * k));
}

static void floor_ulid(long n) {
    static uint64_t hi, lo;
    static int64_t last = -1;
    char t[TOID_TEXT_MAX];
    uint8_t b[16];
    uint64_t acc = 0;
    for (long i = 0; i < n; i++) {
        int64_t ms = clock_ms();
        if (ms == last) {
            if (++lo == 0)
                hi++;
        } else {
            hi = (uint64_t)ms << 16 | (hi & 0xFFFF);
            last = ms;
        }
        put64(b, hi);
        put64(b + 8, lo);
        toid_encode(TOID_ULID, b, t, sizeof t);
        acc += (uint8_t)t[25];
    }
    bench_sink += acc;
}

static void floor_uuidv7(long n) {
    char t[TOID_TEXT_MAX];
    uint8_t b[16];
    uint64_t acc = 0;
    for (long i = 0; i < n; i++) {
        uint64_t ms = (uint64_t)clock_ms();
        toid_random_bytes(b + 6, 10);
        for (int k = 0; k < 6; k++)
            b[k] = (uint8_t)(ms >> (40 - 8 * k));
        b[6] = (uint8_t)(0x70 | (b[6] & 0x0F));
        b[8] = (uint8_t)(0x80 | (b[8] & 0x3F));
        toid_encode(TOID_UUIDV7, b, t, sizeof t);
        acc += (uint8_t)t[35];
    }
    bench_sink += acc;
}

static void floor_clock(long n) {
    struct timespec ts;
    uint64_t acc = 0;
    for (long i = 0; i < n; i++) {
        clock_gettime(CLOCK_REALTIME, &ts);
        acc += (uint64_t)ts.tv_nsec;
    }
    bench_sink += acc;
}

static void floor_scru160(long n) {
    static int64_t last = -1;
    static uint32_t counter;
    char t[TOID_TEXT_MAX];
    uint8_t b[20];
    uint64_t acc = 0;
    for (long i = 0; i < n; i++) {
        int64_t ms = clock_ms();
        counter = ms == last ? counter + 1 : 0;
        last = ms;
        toid_random_bytes(b + 8, 12);
        put64(b, (uint64_t)ms << 16 | (counter & 0xFFFF));
        toid_encode(TOID_SCRU160, b, t, sizeof t);
        acc += (uint8_t)t[31];
    }
    bench_sink += acc;
}

/* What any thread-safe process-wide generator pays at least per ID: one
 * uncontended atomic read-modify-write (a compare-and-swap to take a lock
 * or publish a state) and a release store. Not in the floors above. */
static void floor_lock(long n) {
    static int word;
    uint64_t acc = 0;
    for (long i = 0; i < n; i++) {
        int c = 0;
        __atomic_compare_exchange_n(&word, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
        acc += (uint64_t)c;
        __atomic_store_n(&word, 0, __ATOMIC_RELEASE);
    }
    bench_sink += acc;
}

typedef struct variant {
    const char *name;
    loop_fn lib, floor, many;
    const char *floor_name;
    double goal;
} variant;

static const variant variants[] = {
    {"ulid", lib_ulid, floor_ulid, many_ulid, "clock+incr+encode", 1.10},
    {"uuidv7", lib_uuidv7, floor_uuidv7, many_uuidv7, "clock+10B rng+encode", 1.15},
    {"nanoflake(bin)", lib_nanoflake, floor_clock, many_nanoflake, "clock read", 1.15},
    {"scru160", lib_scru160, floor_scru160, many_scru160, "clock+incr+12B rng+encode", 1.20},
};
#define NV (sizeof variants / sizeof variants[0])

static uint64_t cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double v_min(const double *v, int n) {
    double m = v[0];
    for (int i = 1; i < n; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

#define MAX_ROUNDS 64
#define BURST 2000

/* Waits (untimed) for the next ms of the clock. */
static void next_tick(void) {
    int64_t ms = clock_ms();
    while (clock_ms() == ms)
        ;
}

/* ns per call of fn over `calls` calls in bursts after a ms tick. */
static void timed(loop_fn fn, long calls, double *cpu_per, double *wall_per) {
    uint64_t cpu = 0, wall = 0;
    for (long done = 0; done < calls; done += BURST) {
        long n = calls - done < BURST ? calls - done : BURST;
        next_tick();
        uint64_t c0 = cpu_ns(), w0 = bench_now_ns();
        fn(n);
        uint64_t c1 = cpu_ns(), w1 = bench_now_ns();
        cpu += c1 - c0;
        wall += w1 - w0;
    }
    *cpu_per = (double)cpu / (double)calls;
    *wall_per = (double)wall / (double)calls;
}

/* The loop callgrind counts (--toggle-collect=measured). */
__attribute__((noinline)) void measured(loop_fn fn, long n);
__attribute__((noinline)) void measured(loop_fn fn, long n) { fn(n); }

static int only(const char *name, long n) {
    for (size_t v = 0; v < NV; v++) {
        char floor_name[64], many_name[64];
        snprintf(floor_name, sizeof floor_name, "%s-floor", variants[v].name);
        snprintf(many_name, sizeof many_name, "%s-shared", variants[v].name);
        loop_fn fn = strcmp(name, variants[v].name) == 0 ? variants[v].lib
                     : strcmp(name, floor_name) == 0   ? variants[v].floor
                     : strcmp(name, many_name) == 0    ? variants[v].many
                                                       : NULL;
        if (fn) {
            next_tick();
            fn(1000);           /* first-use costs (seeding, page set-up) outside the count */
            measured(fn, n);
            return 0;
        }
    }
    fprintf(stderr, "bench_percall: no variant %s\n", name);
    return 2;
}

int main(int argc, char **argv) {
    int rounds = 9;
    long calls = 200000;
    if (argc == 4 && strcmp(argv[1], "--only") == 0) {
        many_init(TOID_ULID);
        many_init(TOID_UUIDV7);
        many_init(TOID_NANOFLAKE);
        many_init(TOID_SCRU160);
        return only(argv[2], atol(argv[3]) > 0 ? atol(argv[3]) : 100000);
    }
    if (argc > 1 && atoi(argv[1]) > 0 && atoi(argv[1]) <= MAX_ROUNDS)
        rounds = atoi(argv[1]);
    if (argc > 2 && atol(argv[2]) > 0)
        calls = atol(argv[2]);
    /* warm up: seeds every thread CSPRNG and process-wide generator */
    many_init(TOID_ULID);
    many_init(TOID_UUIDV7);
    many_init(TOID_NANOFLAKE);
    many_init(TOID_SCRU160);
    for (size_t v = 0; v < NV; v++) {
        variants[v].lib(10000);
        variants[v].floor(10000);
    }
    static double cpu[NV][3][MAX_ROUNDS], wall[NV][3][MAX_ROUNDS], lock_cpu[MAX_ROUNDS], lock_wall[MAX_ROUNDS];
    for (int r = 0; r < rounds; r++) {
        timed(floor_lock, calls, &lock_cpu[r], &lock_wall[r]);
        for (size_t v = 0; v < NV; v++)
            for (int side = 0; side < 3; side++) {
                loop_fn fn = side == 2 ? variants[v].many : side ? variants[v].floor : variants[v].lib;
                timed(fn, calls, &cpu[v][side][r], &wall[v][side][r]);
            }
    }
    double lock_med = bench_median(lock_cpu, rounds);
    printf("# bench_percall %d %ld — %d interleaved rounds x %ld calls, ns/call\n", rounds, calls, rounds,
           calls);
    printf("# thread CPU time: median (min); wall clock: median. ratio = median / floor median\n");
    printf("# toid: the process-wide generator, used by this thread alone (so it is this thread's: no lock,\n"
           "# no CAS). shared: a generator another thread has used once, so each ID takes the lock or a CAS\n"
           "# (uncontended here); lock = one uncontended CAS + release store: %.1f ns (min %.1f)\n",
           lock_med, v_min(lock_cpu, rounds));
    printf("%-15s %15s %8s | %-26s %15s %8s | %6s %5s %-6s | %15s %6s\n", "format", "toid cpu", "wall", "floor",
           "floor cpu", "wall", "ratio", "goal", "", "shared cpu", "ratio");
    for (size_t v = 0; v < NV; v++) {
        double lmin = v_min(cpu[v][0], rounds), fmin = v_min(cpu[v][1], rounds), mmin = v_min(cpu[v][2], rounds);
        double lmed = bench_median(cpu[v][0], rounds), fmed = bench_median(cpu[v][1], rounds);
        double mmed = bench_median(cpu[v][2], rounds);
        double lw = bench_median(wall[v][0], rounds), fw = bench_median(wall[v][1], rounds);
        double ratio = lmed / fmed;
        printf("%-15s %6.1f (%6.1f) %8.1f | %-26s %6.1f (%6.1f) %8.1f | %5.2fx %4.2fx %-6s | %6.1f (%6.1f) "
               "%5.2fx\n",
               variants[v].name, lmed, lmin, lw, variants[v].floor_name, fmed, fmin, fw, ratio, variants[v].goal,
               ratio <= variants[v].goal ? "met" : "missed", mmed, mmin, mmed / fmed);
    }
    return 0;
}
