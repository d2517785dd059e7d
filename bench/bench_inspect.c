/* bench_inspect.c — the inspection renderers through the public API: median
 * (min) ns per toid_inspect_json() and per toid_describe() for each format,
 * beside the floor of toid_inspect() alone (the fields every renderer reads
 * first). Two pools per format: IDs just generated (consecutive, mostly the
 * same ms: what `toid new --json` and `toid inspect` of a log see) and random
 * values over the whole time span (a new day on every call). Rounds are
 * interleaved (inspect, json, describe, inspect, ...), each timed by this
 * thread's CPU time, so a busy machine weighs on all three alike.
 *   usage: bench_inspect [RUNS] [OPS_PER_RUN]   (defaults 11, 200000) */
#include "bench.h"
#include "toid.h"

#include <stdio.h>
#include <string.h>

#define POOL 1024

static uint8_t bins[POOL][TOID_BIN_MAX];

enum op { INSPECT, JSON, DESCRIBE, OPS };
static const char *const op_names[OPS] = {"inspect (floor)", "inspect_json", "describe"};

/* One timed run of one op over the pool: ns per op. */
static double run_once(toid_format f, enum op op, long ops) {
    uint64_t acc = 0;
    char json[512];
    toid_field fl[TOID_FIELDS_MAX];
    toid_fields v;
    uint64_t t0 = bench_cpu_ns();
    for (long i = 0; i < ops; i++) {
        const uint8_t *b = bins[(unsigned)i & (POOL - 1)];
        switch (op) {
        case INSPECT: acc += (uint64_t)toid_inspect(f, b, TOID_EPOCH_DEFAULT, &v) + v.has + (uint64_t)v.ts; break;
        case JSON: acc += (uint64_t)toid_inspect_json(f, b, TOID_EPOCH_DEFAULT, json, sizeof json) + (uint8_t)json[40]; break;
        case DESCRIBE: acc += (uint64_t)toid_describe(f, b, TOID_EPOCH_DEFAULT, fl) + (uint8_t)fl[3].value[5]; break;
        default: break;
        }
    }
    uint64_t t1 = bench_cpu_ns();
    bench_sink += acc;
    return (double)(t1 - t0) / (double)ops;
}

/* Random valid values of f. */
static void fill_random(toid_format f) {
    for (int i = 0; i < POOL; i++)
        bench_random_value(f, bins[i]);
}

/* IDs as the default generator makes them, one after another (a batch may
 * stop short at the end of a ms: ask again). */
static int fill_generated(toid_format f) {
    uint8_t all[POOL * TOID_BIN_MAX];
    size_t have = 0, size = toid_bin_size(f);
    for (int tries = 0; have < POOL && tries < 1000; tries++) {
        size_t made = 0;
        toid_new_batch(f, all + have * size, POOL - have, &made);
        have += made;
    }
    if (have < POOL)
        return -1;
    for (int i = 0; i < POOL; i++)
        memcpy(bins[i], all + (size_t)i * size, size);
    return 0;
}

int main(int argc, char **argv) {
    int runs = argc > 1 && atoi(argv[1]) > 0 && atoi(argv[1]) <= 64 ? atoi(argv[1]) : 11;
    long ops = argc > 2 && atol(argv[2]) > 0 ? atol(argv[2]) : 200000;
    printf("# bench_inspect %d %ld — thread CPU time, median (min) ns/op of %d interleaved runs x %ld ops\n",
           runs, ops, runs, ops);
    printf("%-22s %-9s %17s %17s %17s\n", "format", "pool", op_names[INSPECT], op_names[JSON],
           op_names[DESCRIBE]);
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        for (int pool = 0; pool < 2; pool++) {
            if (pool == 0 && fill_generated((toid_format)f) < 0) {
                printf("%-22s %-9s (the default generator makes none here)\n",
                       toid_format_get((toid_format)f)->name, "generated");
                continue;
            }
            if (pool == 1)
                fill_random((toid_format)f);
            double per[OPS][64], med[OPS], mins[OPS];
            for (int r = 0; r < runs; r++)
                for (int op = 0; op < OPS; op++)
                    per[op][r] = run_once((toid_format)f, (enum op)op, ops);
            for (int op = 0; op < OPS; op++) {
                mins[op] = per[op][0];
                for (int r = 1; r < runs; r++)
                    mins[op] = per[op][r] < mins[op] ? per[op][r] : mins[op];
                med[op] = bench_median(per[op], runs);
            }
            printf("%-22s %-9s %7.1f (%7.1f) %7.1f (%7.1f) %7.1f (%7.1f)\n",
                   toid_format_get((toid_format)f)->name, pool ? "random" : "generated", med[0], mins[0],
                   med[1], mins[1], med[2], mins[2]);
        }
    }
    return 0;
}
