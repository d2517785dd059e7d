/* bench_gen_shared.c — the cost of a process-shared generator
 * (TOID_GEN_SHARED, in MAP_SHARED memory) beside a process-private one, in
 * the same run: 1, 2 and 4 forked processes each make IDS IDs by
 * toid_gen_next (one ID a call); "private" gives each process its own
 * generator (node formats: a node each), "shared" makes them all use one.
 * Two figures, ns per ID, medians of RUNS: wall time from a start signal to
 * the last process's end over all IDs the group made (fork not counted), and
 * the CPU time (user + system) the processes spent over the same IDs, which
 * a busy machine disturbs less (it includes the fork's child side, ~0.1 ms,
 * but not time asleep in the lock).
 * More processes than cores measure contention, not speed-up. Formats with
 * a per-ms ceiling (nanoflake 4096/ms per node, ulid-flake-scalable) may be
 * bounded by it, and one shared generator has one ceiling for the group.
 *   usage: bench_gen_shared [RUNS] [IDS]     (defaults 5, 200000) */
#define _GNU_SOURCE
#include "bench.h"
#include "toid.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static int runs = 5;
static long ids = 200000;

typedef struct area {
    toid_gen_uid11 room;    /* a generator of any format */
    int failed;
} area;

static area *a;
static int start_pipe[2];   /* a byte per child: go */

static int init(toid_gen *g, toid_format f, uint32_t flags, uint32_t node) {
    toid_gen_config c;
    toid_gen_config_default(f, &c);
    c.flags = flags;
    if (f == TOID_NANOFLAKE || f == TOID_ULID_FLAKE_SCALABLE)
        c.node = node;
    if (f != TOID_UUIDV7)
        c.on_exhausted = TOID_EXHAUSTED_WAIT;
    return toid_gen_init_size(g, TOID_GEN_SIZE_MAX, &c);     /* g: in a toid_gen_uid11 */
}

static void child(toid_format f, int shared, uint32_t node) {
    static toid_gen_uid11 own;
    toid_gen *g = shared ? &a->room.g : &own.g;
    if (!shared && init(&own.g, f, 0, node) != 0)
        _exit(1);
    uint8_t id[TOID_BIN_MAX];
    uint64_t acc = 0;
    char go;
    if (read(start_pipe[0], &go, 1) != 1)
        _exit(1);
    for (long i = 0; i < ids; i++) {
        if (toid_gen_next(g, id, NULL) != 0)
            __atomic_store_n(&a->failed, 1, __ATOMIC_RELAXED);
        acc += id[7];
    }
    bench_sink += acc;
    _exit(0);
}

static double cpu_ns(void) {
    struct rusage u;
    getrusage(RUSAGE_CHILDREN, &u);
    return ((double)u.ru_utime.tv_sec + (double)u.ru_stime.tv_sec) * 1e9 +
           ((double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_usec) * 1e3;
}

/* ns per ID of the group for one run: wall, and CPU into *cpu */
static double once(toid_format f, int procs, int shared, double *cpu) {
    pid_t pid[4];
    double c0 = cpu_ns();
    if (shared && init(&a->room.g, f, TOID_GEN_SHARED, 1) != 0) {
        fprintf(stderr, "bench_gen_shared: cannot initialise %s\n", toid_format_get(f)->name);
        exit(1);
    }
    for (int p = 0; p < procs; p++)
        if ((pid[p] = fork()) == 0)
            child(f, shared, (uint32_t)p + 1);
    usleep(20000);      /* let the children reach the start line */
    uint64_t t0 = bench_now_ns();
    if (write(start_pipe[1], "gggg", (size_t)procs) != procs)
        exit(1);
    for (int p = 0; p < procs; p++)
        waitpid(pid[p], NULL, 0);
    *cpu = (cpu_ns() - c0) / ((double)ids * procs);
    return (double)(bench_now_ns() - t0) / ((double)ids * procs);
}

static double median(toid_format f, int procs, int shared, double *cpu) {
    double v[64], c[64];
    for (int r = 0; r < runs; r++)
        v[r] = once(f, procs, shared, &c[r]);
    *cpu = bench_median(c, runs);
    return bench_median(v, runs);
}

int main(int argc, char **argv) {
    if (argc > 1 && atoi(argv[1]) > 0 && atoi(argv[1]) <= 64)
        runs = atoi(argv[1]);
    if (argc > 2 && atol(argv[2]) > 0)
        ids = atol(argv[2]);
    if (pipe(start_pipe) != 0)
        return 1;
    a = mmap(NULL, sizeof *a, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (a == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    printf("# bench_gen_shared %d %ld — ns per ID (wall of the group, and CPU), medians of %d runs,\n"
           "# %ld IDs per process by toid_gen_next; %ld online CPUs\n",
           runs, ids, runs, ids, sysconf(_SC_NPROCESSORS_ONLN));
    printf("%-20s %6s %-15s | %-15s | %-15s\n", "", "", "1 process", "2 processes", "4 processes");
    printf("%-20s %6s %7s %7s | %7s %7s | %7s %7s\n", "format", "ns/ID", "private", "shared", "private", "shared",
           "private", "shared");
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) if (toid_format_get((toid_format)f)->generates) {
        toid_format fmt = (toid_format)f;
        double w[6], c[6];
        for (int k = 0; k < 6; k++)
            w[k] = median(fmt, 1 << (k / 2), k % 2, &c[k]);
        printf("%-20s %6s %7.1f %7.1f | %7.1f %7.1f | %7.1f %7.1f\n", toid_format_get(fmt)->name, "wall", w[0], w[1],
               w[2], w[3], w[4], w[5]);
        printf("%-20s %6s %7.1f %7.1f | %7.1f %7.1f | %7.1f %7.1f\n", "", "CPU", c[0], c[1], c[2], c[3], c[4], c[5]);
    }
    if (a->failed) {
        fprintf(stderr, "bench_gen_shared: a generator call failed\n");
        return 1;
    }
    return 0;
}
