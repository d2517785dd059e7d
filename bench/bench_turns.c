/* bench_turns.c — where the time of two threads on one generator goes.
 * A generator's IDs have one order, so two threads that both make IDs on
 * one generator take turns as its owner (gen.c, "turns"): one thread's rate
 * is their ceiling, and what they lose below it is the handing over. This
 * program stamps every ID with a cycle counter read after the call (the
 * arrays written beforehand, so no page fault lands in a gap), for one
 * thread alone and for two threads on one fresh generator, and splits the
 * two threads' time while both run:
 *   - in a turn: the gaps between consecutive IDs of one thread, beside one
 *     thread's gaps alone (a generator whose owner is asked for a turn
 *     checks that at each ID);
 *   - switches: the gap from a turn's last ID to the next turn's first, and
 *     what the new owner's first FIRST IDs take above the turn's median gap
 *     (its state's cache lines coming over, its first ID on the general path);
 *   - noise: gaps over 10 us in either (the virtual CPU taken away, an
 *     interrupt), counted apart so that they do not read as the protocol's.
 * ULID, SCRU160 and UUIDv7, the formats whose per-ms capacity one thread
 * does not fill. Interleaved rounds (one thread, then two, per format),
 * medians over the rounds.
 *   usage: bench_turns [ROUNDS] [IDS_PER_THREAD]     (defaults 7, 200000) */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include "toid.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline uint64_t ticks(void) { return __rdtsc(); }
#elif defined(__aarch64__)
static inline uint64_t ticks(void) {
    uint64_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
}
#else
static inline uint64_t ticks(void) { return bench_now_ns(); }
#endif

#define MAX_ROUNDS 31
#define FIRST 5             /* a new owner's first IDs, counted as the switch's */
#define NOISE_NS 10000.0    /* a gap longer than this is the machine's, not the protocol's */

static long ids = 200000;
static uint64_t *stamps[2];
static struct {
    _Alignas(64) toid_gen g;
} room;

static void *maker(void *arg) {
    uint64_t *t = arg;
    char text[TOID_TEXT_MAX];
    for (long i = 0; i < ids; i++) {
        toid_gen_next_text(&room.g, text, sizeof text);
        t[i] = ticks();
    }
    bench_sink += (uint8_t)text[3];
    return NULL;
}

/* Runs `threads` makers on a fresh generator of format f; returns ns per tick. */
static double run(toid_format f, int threads) {
    toid_gen_config c;
    toid_gen_config_default(f, &c);
    if (toid_gen_init(&room.g, &c) != 0) {
        fprintf(stderr, "bench_turns: cannot initialise a %s generator\n", toid_format_get(f)->name);
        exit(1);
    }
    pthread_t th[2];
    uint64_t n0 = bench_now_ns(), k0 = ticks();
    for (int i = 0; i < threads; i++)
        pthread_create(&th[i], NULL, maker, stamps[i]);
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    return (double)(bench_now_ns() - n0) / (double)(ticks() - k0);
}

typedef struct figures {
    double one;             /* one thread alone: ns per ID, noise left out */
    double two;             /* two threads while both run: ns per ID (of either), noise left out */
    double in_turn;         /* two threads: ns per ID within turns, noise left out */
    double turn_us;         /* mean length of a turn */
    double gap_median;      /* a switch's gap, median */
    double gap_mean;        /* ... mean */
    double first_extra;     /* the new owner's first FIRST IDs above the turn's median gap, mean */
    double switch_share;    /* switches (gaps and first IDs) in the two threads' quiet time */
    double noise_one, noise_two;    /* share of time in gaps over NOISE_NS */
} figures;

static void one_thread(double ns_per_tick, figures *fg) {
    const uint64_t *t = stamps[0];
    double quiet = 0, noise = 0;
    long n = 0;
    for (long i = 1; i < ids; i++) {
        double gap = (double)(t[i] - t[i - 1]) * ns_per_tick;
        if (gap > NOISE_NS) {
            noise += gap;
        } else {
            quiet += gap;
            n++;
        }
    }
    fg->one = quiet / (double)n;
    fg->noise_one = noise / (quiet + noise);
}

/* The two threads' stamps merged by time, from when both have made an ID
 * to when the first of them ends. */
static void two_threads(double ns_per_tick, figures *fg) {
    static double gaps[4096], turn_gaps[400000];
    const uint64_t *a = stamps[0], *b = stamps[1];
    uint64_t from = a[0] > b[0] ? a[0] : b[0], to = a[ids - 1] < b[ids - 1] ? a[ids - 1] : b[ids - 1];
    long i = 0, j = 0, switches = 0, n_turn = 0, n_quiet = 0, since_switch = FIRST;
    double quiet = 0, noise = 0, in_switches = 0, first_sum = 0;
    int last = -1;
    uint64_t prev = 0;
    while (i < ids || j < ids) {
        int who = j >= ids || (i < ids && a[i] < b[j]) ? 0 : 1;
        uint64_t t = who ? b[j++] : a[i++];
        if (t < from || t > to) {
            last = -1;
            continue;
        }
        if (last >= 0) {
            double gap = (double)(t - prev) * ns_per_tick;
            if (gap > NOISE_NS) {
                noise += gap;
                since_switch = FIRST;   /* a turn's first IDs after the machine's pause are not the switch's */
            } else {
                quiet += gap;
                n_quiet++;
                if (who != last) {
                    if (switches < (long)(sizeof gaps / sizeof gaps[0]))
                        gaps[switches] = gap;
                    switches++;
                    in_switches += gap;
                    since_switch = 0;
                } else if (since_switch < FIRST) {
                    first_sum += gap;
                    since_switch++;
                } else if (n_turn < (long)(sizeof turn_gaps / sizeof turn_gaps[0])) {
                    turn_gaps[n_turn++] = gap;
                }
            }
        }
        last = who;
        prev = t;
    }
    double turn_sum = 0;
    for (long k = 0; k < n_turn; k++)
        turn_sum += turn_gaps[k];
    fg->two = quiet / (double)n_quiet;
    fg->in_turn = n_turn ? turn_sum / (double)n_turn : 0;
    long kept = switches < (long)(sizeof gaps / sizeof gaps[0]) ? switches : (long)(sizeof gaps / sizeof gaps[0]);
    double median_turn_gap = n_turn ? bench_median(turn_gaps, (int)n_turn) : 0;
    fg->gap_median = kept ? bench_median(gaps, (int)kept) : 0;
    fg->gap_mean = switches ? in_switches / (double)switches : 0;
    fg->first_extra = switches ? first_sum / (double)switches - FIRST * median_turn_gap : 0;
    if (fg->first_extra < 0)
        fg->first_extra = 0;
    fg->switch_share = (in_switches + fg->first_extra * (double)switches) / quiet;
    fg->turn_us = switches ? (quiet + noise) / 1000.0 / (double)(switches + 1) : 0;
    fg->noise_two = noise / (quiet + noise);
}

int main(int argc, char **argv) {
    int rounds = argc > 1 && atoi(argv[1]) > 0 && atoi(argv[1]) <= MAX_ROUNDS ? atoi(argv[1]) : 7;
    if (argc > 2 && atol(argv[2]) > 1000)
        ids = atol(argv[2]);
    for (int k = 0; k < 2; k++) {
        stamps[k] = malloc((size_t)ids * sizeof *stamps[k]);
        if (!stamps[k]) {
            fprintf(stderr, "bench_turns: out of memory\n");
            return 1;
        }
        memset(stamps[k], 1, (size_t)ids * sizeof *stamps[k]);     /* no page faults while timing */
    }
    static const toid_format formats[] = {TOID_ULID, TOID_SCRU160, TOID_UUIDV7};
    enum { NF = sizeof formats / sizeof formats[0], NV = 11 };
    double v[NF][NV][MAX_ROUNDS];
    for (int r = 0; r < rounds; r++)
        for (int f = 0; f < NF; f++) {
            figures fg;
            one_thread(run(formats[f], 1), &fg);
            two_threads(run(formats[f], 2), &fg);
            double row[NV] = {fg.one,           fg.two,          fg.one / fg.two,   fg.in_turn,
                              fg.turn_us,       fg.gap_median,   fg.gap_mean,       fg.first_extra,
                              fg.switch_share,  fg.noise_one,    fg.noise_two};
            for (int c = 0; c < NV; c++)
                v[f][c][r] = row[c];
        }
    printf("# bench_turns %d %ld — medians of %d interleaved rounds; ns per ID from a cycle counter read\n"
           "# after each call, gaps over %.0f us left out as the machine's (their share: noise)\n",
           rounds, ids, rounds, NOISE_NS / 1000);
    printf("%-8s %7s %7s %6s %8s | %6s %7s %7s %7s %7s | %6s %6s\n", "", "1 thr", "2 thr", "2 thr", "in a",
           "turn", "switch", "switch", "first 5", "switch", "noise", "noise");
    printf("%-8s %7s %7s %6s %8s | %6s %7s %7s %7s %7s | %6s %6s\n", "format", "ns/ID", "ns/ID", "/ 1",
           "turn", "us", "median", "mean", "extra", "share", "1 thr", "2 thr");
    for (int f = 0; f < NF; f++) {
        double m[NV];
        for (int c = 0; c < NV; c++)
            m[c] = bench_median(v[f][c], rounds);
        printf("%-8s %7.1f %7.1f %5.2fx %8.1f | %6.1f %7.0f %7.0f %7.0f %6.1f%% | %5.1f%% %5.1f%%\n",
               toid_format_get(formats[f])->name, m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], 100 * m[8],
               100 * m[9], 100 * m[10]);
    }
    printf("\n2 thr / 1: the two threads' rate over one thread's in the same round (then the median),\n"
           "both without the noise; 1.00 is the ceiling (one order: one thread at a time). switch share:\n"
           "the switches' gaps and the new owners' first %d IDs above the turn's median gap, in the two\n"
           "threads' time: the handing over's own cost. One thread's ns/ID moves from round to round\n"
           "with the machine; the switch share does not.\n", FIRST);
    return 0;
}
