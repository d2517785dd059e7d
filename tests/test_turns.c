/* test_turns.c — two threads on one generator take turns as its owner
 * (gen.c, "turns"). What must hold:
 *  - two threads that both make IDs hand the generator back and forth, each
 *    turn on the owner's path, and their IDs are unique and in one order: an
 *    ID is greater than every ID whose call ended before its call began
 *    (every ordered format);
 *  - an owner that stopped making IDs is not waited for long: the caller
 *    takes the generator for good (MANY) after the idle time if the owner
 *    sleeps, has ended, or runs other code; one that is only preempted
 *    (runnable, but not getting a CPU) is waited for the whole patience,
 *    before the first turn as after;
 *  - a third thread that finds a turn asked for makes the generator MANY,
 *    and the asker then goes on without its turn;
 *  - a forked child does not hand its generator to the parent's asker.
 * The waits are made deterministic by the turns' constants (a turn of a
 * few IDs, and an owner judged stopped only after a generous idle time:
 * 20 ms where two threads play, since once the turns are done the first
 * thread to end may leave the other waiting for its turn; 1 ms where the
 * test stops it), and by threads whose state the kernel reports the same
 * way on every scheduler (running, sleeping, ended; starved: see below).
 * The one time the test measures is a lower bound (a wait of at least).
 * Built also under ThreadSanitizer (fewer turns).
 *   usage: test_turns [--list] [CASE...] [TURNS]
 */
#define _GNU_SOURCE
#include "check.h"
#include "new_gen.h"
#include "toid.h"

#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern uint32_t toid__turn_ids;
extern int64_t toid__turn_us, toid__turn_idle_us, toid__turn_patience_us;

#define OWNER_MANY 1u
#define NEVER 10000000     /* us: 10 s, a wait the test never reaches */

static long turns = 200;   /* handovers the two threads make */

static bool owned_by_thread(const toid_gen *g) { return __atomic_load_n(&g->h.owner, __ATOMIC_ACQUIRE) > 3; }


/* Turns of `ids` IDs (or `us`), an owner judged idle after `idle` us
 * without an ID (0: never), an asker's whole wait `patience` us. */
static void set_turns(uint32_t ids, int64_t us, int64_t idle, int64_t patience) {
    toid__turn_ids = ids;
    toid__turn_us = us;
    toid__turn_idle_us = idle;
    toid__turn_patience_us = patience;
}

static void default_turns(void) { set_turns(1024, 40, 50, 2000); }

/* Turns of 8 IDs between two threads that play until `turns` were handed
 * over: only an owner that has ended (the first player done) is taken. */
static void play_turns(void) { set_turns(8, NEVER, 20000, NEVER); }

/* ---- the calls' log: one order across threads ----
 * Each call notes how many calls had ended when it began, and its ID goes
 * to the slot of the order in which it ended. Afterwards each ID must be
 * greater than every ID in the slots before its noted count. */
#define LOG_MAX 400000
static toid_format log_fmt;
static uint8_t *log_ids;
static long *log_began;
static long log_ended;
static int log_errors;

static void log_start(toid_format f) {
    log_fmt = f;
    log_ended = 0;
    log_errors = 0;
    if (!log_ids) {
        log_ids = malloc((size_t)LOG_MAX * TOID_BIN_MAX);
        log_began = malloc(LOG_MAX * sizeof *log_began);
        if (!log_ids || !log_began)
            abort();
    }
}

/* One ID of g, logged; false when the log is full or the call failed. */
static bool logged_id(toid_gen *g) {
    uint8_t id[TOID_BIN_MAX];
    long began = __atomic_load_n(&log_ended, __ATOMIC_ACQUIRE);
    if (toid_gen_next(g, id, NULL) < 0) {
        __atomic_fetch_add(&log_errors, 1, __ATOMIC_RELAXED);
        return false;
    }
    long slot = __atomic_fetch_add(&log_ended, 1, __ATOMIC_ACQ_REL);
    if (slot >= LOG_MAX)
        return false;
    size_t n = toid_bin_size(log_fmt);
    memcpy(log_ids + (size_t)slot * n, id, n);
    log_began[slot] = began;
    return true;
}

/* Checks the log (after every thread is joined): the calls' count, and
 * how many IDs are out of the one order (a repeat is one too). */
static long log_disorder(long *calls) {
    size_t n = toid_bin_size(log_fmt);
    long total = log_ended < LOG_MAX ? log_ended : LOG_MAX, bad = 0;
    /* max[i]: the greatest ID among slots 0..i-1 (by prefix, kept as an index) */
    long *max = malloc((size_t)(total + 1) * sizeof *max);
    if (!max)
        abort();
    max[0] = -1;
    for (long i = 0; i < total; i++)
        max[i + 1] = max[i] < 0 || memcmp(log_ids + (size_t)i * n, log_ids + (size_t)max[i] * n, n) > 0 ? i : max[i];
    for (long i = 0; i < total; i++) {
        long m = max[log_began[i]];
        bad += m >= 0 && memcmp(log_ids + (size_t)i * n, log_ids + (size_t)m * n, n) <= 0;
    }
    free(max);
    *calls = total;
    return bad;
}

/* ---- two threads taking turns ---- */

typedef struct player {
    toid_gen *g;
    bool full;      /* the log filled before the turns were made */
} player;

/* IDs until the generator has handed `turns` turns over (or was taken:
 * the turns are over for good then). The call that ends a turn may go on
 * to ask for the next (an exhausted ms sends it to the general path), so
 * after the last turn one player may wait for a player that has ended. */
static bool turns_to_play(const toid_gen *g) {
    return __atomic_load_n(&g->h.turns.passed, __ATOMIC_RELAXED) < (uint64_t)turns &&
           __atomic_load_n(&g->h.owner, __ATOMIC_RELAXED) != OWNER_MANY;
}

/* Both players start their IDs together: a thread can start 100s of ms
 * after pthread_create on a busy machine, and one player alone would fill
 * the log without a turn. */
static int players_in;

static void start_together(void) {
    __atomic_fetch_add(&players_in, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&players_in, __ATOMIC_ACQUIRE) % 2)
        sched_yield();
}

static void *play(void *arg) {
    player *p = arg;
    start_together();
    while (turns_to_play(p->g))
        if (!logged_id(p->g)) {
            p->full = true;
            break;
        }
    return NULL;
}

/* Two players on g until the turns are played: true if neither filled
 * the log first. */
static bool play_game(toid_gen *g) {
    player a = {g, false}, b = {g, false};
    pthread_t ta, tb;
    pthread_create(&ta, NULL, play, &a);
    pthread_create(&tb, NULL, play, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    return !a.full && !b.full;
}

TEST_CASE(two_threads_take_turns) {
    play_turns();
    for (int k = 0; k < TOID_FORMAT_COUNT; k++) {
        toid_format f = (toid_format)k;
        if (toid_format_get(f)->random_order)
            continue;
        const char *name = toid_format_get(f)->name;
        toid_gen *g = new_gen(f);
        log_start(f);
        bool played = play_game(g);
        long calls, bad = log_disorder(&calls);
        CHECK_MSG(played && log_errors == 0, "%s: %ld calls, %d errors, and %llu turns of %ld", name,
                  calls, log_errors, (unsigned long long)g->h.turns.passed, turns);
        CHECK_MSG(bad == 0, "%s: %ld of %ld IDs out of the one order", name, bad, calls);
        CHECK_MSG(g->h.turns.passed >= (uint64_t)turns, "%s: turns only, none taken before %ld (%llu)", name,
                  turns, (unsigned long long)g->h.turns.passed);
        free(g);
    }
    default_turns();
}

/* The process-wide generator, configured by main (which must not make it
 * main's: the first worker would find main idle, and take it for good),
 * then two threads' toid_new. */
extern toid_gen *toid__ready[TOID_FORMAT_COUNT];

static void *play_process_wide(void *arg) {
    toid_gen *g = arg;
    uint8_t id[TOID_BIN_MAX];
    start_together();
    while (turns_to_play(g))
        if (toid_new(TOID_SCRU160, id) < 0) {
            __atomic_fetch_add(&log_errors, 1, __ATOMIC_RELAXED);
            break;
        }
    return NULL;
}

TEST_CASE(process_wide_takes_turns) {
    play_turns();
    toid_gen_config c;
    toid_gen_config_default(TOID_SCRU160, &c);
    CHECK_EQ_INT(toid_configure(&c), 0);
    toid_gen *g = toid__ready[TOID_SCRU160];
    CHECK_MSG(g && !owned_by_thread(g), "configured, and nobody's yet");
    log_errors = 0;
    pthread_t ta, tb;
    pthread_create(&ta, NULL, play_process_wide, g);
    pthread_create(&tb, NULL, play_process_wide, g);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    CHECK_EQ_INT(log_errors, 0);
    CHECK_MSG(g->h.turns.passed >= (uint64_t)turns, "%llu turns", (unsigned long long)g->h.turns.passed);
    default_turns();
}

/* ---- an owner that stopped ---- */

static void *one_id(void *arg) {
    logged_id(arg);
    return NULL;
}

static void id_from_new_thread(toid_gen *g) {
    pthread_t t;
    pthread_create(&t, NULL, one_id, g);
    pthread_join(t, NULL);
}

/* The first call of a second thread, the owner (main) sleeping in
 * pthread_join: g is taken for good, and nobody's from then on. */
TEST_CASE(stopped_owner_before_any_turn) {
    set_turns(8, NEVER, 1000, NEVER);
    toid_gen *g = new_gen(TOID_ULID);
    log_start(TOID_ULID);
    logged_id(g);
    CHECK(owned_by_thread(g));
    id_from_new_thread(g);
    CHECK_EQ_INT(g->h.owner, OWNER_MANY);
    CHECK_EQ_INT(g->h.turns.passed, 0);
    logged_id(g);
    long calls;
    CHECK_EQ_INT(log_disorder(&calls), 0);
    CHECK_EQ_INT(calls, 3);
    free(g);
    default_turns();
}

/* An owner that made no ID for the idle time is waited for up to the
 * whole patience if it is only preempted: the kernel has it runnable, but
 * its CPU time hardly moves (taking g would end the turns for good over a
 * hiccup). It is taken at once if it sleeps or has ended, and after a few
 * more looks if it runs other code. Here the owner is a thread that has
 * ended, and the test points the generator's note of the owner's kernel
 * thread id at a helper thread: one that spins (running), one that sleeps,
 * one that is starved, or at the asking thread itself (the note before the
 * new owner has made its first ID). The starved helper shares one CPU with
 * a spinning hog, both pinned there; it runs at SCHED_IDLE (the kernel's
 * lowest weight) and yields whenever it does run: runnable all the time,
 * running almost never, whatever the kernel's fair scheduler (a helper that
 * only yields keeps its fair share on kernels whose yield does not give up
 * the slice). */
enum { HELPER_END, HELPER_SPIN, HELPER_SLEEP, HELPER_STARVED, ASKER_ITSELF };
static int helper_mode;
static long helper_tid;
static int helper_cpu = -1;     /* HELPER_STARVED: the CPU it shares with the hog */
static int hog_in;

static void pin_to(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    CHECK_MSG(sched_setaffinity(0, sizeof set, &set) == 0, "pinned to CPU %d", cpu);
}

/* A CPU this process may use, other than the calling thread's if there is
 * one (so that main's wait goes on beside the starved pair). */
static int another_cpu(void) {
    cpu_set_t set;
    int here = sched_getcpu(), pick = here;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set) && (pick == here || c != here))
                pick = c;
    return pick;
}

static void *hog(void *arg) {
    (void)arg;
    pin_to(helper_cpu);
    __atomic_store_n(&hog_in, 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&helper_mode, __ATOMIC_ACQUIRE) == HELPER_STARVED)
        ;
    return NULL;
}

static void *helper(void *arg) {
    (void)arg;
    if (helper_mode == HELPER_STARVED) {
        pin_to(helper_cpu);
        struct sched_param idle = {0};
        CHECK_MSG(sched_setscheduler(0, SCHED_IDLE, &idle) == 0, "SCHED_IDLE");
    }
    __atomic_store_n(&helper_tid, (long)syscall(SYS_gettid), __ATOMIC_RELEASE);
    for (int m; (m = __atomic_load_n(&helper_mode, __ATOMIC_ACQUIRE)) != HELPER_END;)
        if (m == HELPER_SLEEP)
            usleep(1000);
        else if (m == HELPER_STARVED)
            sched_yield();
    return NULL;
}

/* A new generator of f owned by a thread that has ended: after 4 turns of
 * two threads (with_turns) or after one ID of one (none). */
static toid_gen *stopped_owner(toid_format f, bool with_turns) {
    toid_gen *g = new_gen(f);
    log_start(f);
    if (with_turns) {
        play_turns();
        turns = 4;
        /* the last asker may be stranded (play's note) and take g: again */
        for (int tries = 0; tries < 5 && !owned_by_thread(g); tries++) {
            if (tries) {
                free(g);
                g = new_gen(f);
                log_start(f);
            }
            CHECK(play_game(g));
        }
        turns = 200;
        CHECK(g->h.turns.passed >= 4);
    } else {
        id_from_new_thread(g);
        CHECK_EQ_INT(g->h.turns.passed, 0);
    }
    CHECK(owned_by_thread(g));
    return g;
}

/* g's owner noted as a thread in `mode`: the microseconds main's next ID
 * waited (main asks for a turn, and takes g when it judges the owner
 * stopped, or its patience ran out). */
static long wait_for_stopped_owner(toid_gen *g, int mode, int64_t patience_us) {
    pthread_t th, tg;
    __atomic_store_n(&helper_tid, 0, __ATOMIC_RELAXED);
    if (mode == ASKER_ITSELF) {
        helper_tid = (long)syscall(SYS_gettid);
    } else {
        __atomic_store_n(&helper_mode, mode, __ATOMIC_RELEASE);
        if (mode == HELPER_STARVED) {
            helper_cpu = another_cpu();
            __atomic_store_n(&hog_in, 0, __ATOMIC_RELAXED);
            pthread_create(&tg, NULL, hog, NULL);
            while (!__atomic_load_n(&hog_in, __ATOMIC_ACQUIRE))
                usleep(100);
        }
        pthread_create(&th, NULL, helper, NULL);
        while (!__atomic_load_n(&helper_tid, __ATOMIC_ACQUIRE))
            usleep(100);
    }
    g->h.turns.owner_tid = (uint64_t)helper_tid;
    set_turns(8, NEVER, 1000, patience_us);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    logged_id(g);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (mode != ASKER_ITSELF) {
        __atomic_store_n(&helper_mode, HELPER_END, __ATOMIC_RELEASE);
        pthread_join(th, NULL);
        if (mode == HELPER_STARVED)
            pthread_join(tg, NULL);
    }
    default_turns();
    CHECK_EQ_INT(g->h.owner, OWNER_MANY);
    long calls;
    CHECK_EQ_INT(log_disorder(&calls), 0);
    CHECK_EQ_INT(log_errors, 0);
    free(g);
    return (t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000;
}

/* A CAS format: the head, then the word, is the state of record. */
#define STOPPED_FORMAT TOID_NANOFLAKE

TEST_CASE(preempted_owner_is_waited_for) {
    for (int with_turns = 0; with_turns < 2; with_turns++) {
        long waited = wait_for_stopped_owner(stopped_owner(STOPPED_FORMAT, with_turns), HELPER_STARVED, 20000);
        CHECK_MSG(waited >= 20000, "a starved owner (%s turns) is waited for the whole patience: %ld us",
                  with_turns ? "after" : "before any", waited);
    }
    long waited = wait_for_stopped_owner(stopped_owner(STOPPED_FORMAT, true), ASKER_ITSELF, 20000);
    CHECK_MSG(waited >= 20000, "a note naming the asker (the new owner not yet run) waits: %ld us", waited);
}

TEST_CASE(stopped_owner_is_taken) {
    static const int modes[] = {HELPER_SPIN, HELPER_SLEEP};
    static const char *what[] = {"running other code", "sleeping"};
    for (int with_turns = 0; with_turns < 2; with_turns++)
        for (int m = 0; m < 2; m++) {
            long waited = wait_for_stopped_owner(stopped_owner(STOPPED_FORMAT, with_turns), modes[m], NEVER);
            CHECK_MSG(waited < NEVER / 2, "an owner %s (%s turns) is taken without the patience: %ld us", what[m],
                      with_turns ? "after" : "before any", waited);
        }
}

/* ---- a third thread ---- */

typedef struct runner {
    toid_gen *g;
    uint64_t id;    /* the thread's name as g->h.owner has it */
} runner;

/* Claims g, then makes IDs while g is its (it is until the third thread). */
static void *owner_runs(void *arg) {
    runner *r = arg;
    logged_id(r->g);
    __atomic_store_n(&r->id, __atomic_load_n(&r->g->h.owner, __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
    while (__atomic_load_n(&r->g->h.owner, __ATOMIC_ACQUIRE) == r->id)
        if (!logged_id(r->g))
            break;
    return NULL;
}

/* A new generator of f, owned by thread *to making IDs, with thread *ta
 * asking for a turn that never comes by itself. */
static toid_gen *owner_and_asker(toid_format f, runner *owner, pthread_t *to, pthread_t *ta) {
    set_turns(1u << 30, NEVER, 0, NEVER);   /* the owner's turn never ends by itself */
    toid_gen *g = new_gen(f);
    log_start(f);
    *owner = (runner){g, 0};
    pthread_create(to, NULL, owner_runs, owner);
    while (!__atomic_load_n(&owner->id, __ATOMIC_ACQUIRE))
        usleep(100);
    pthread_create(ta, NULL, one_id, g);    /* asks for a turn, and waits */
    while (!__atomic_load_n(&g->h.turns.want, __ATOMIC_ACQUIRE))
        usleep(100);
    return g;
}

TEST_CASE(third_thread_makes_many) {
    runner owner;
    pthread_t to, ta;
    toid_gen *g = owner_and_asker(TOID_UUIDV7, &owner, &to, &ta);
    logged_id(g);                           /* main, third: takes g for good */
    CHECK_EQ_INT(__atomic_load_n(&g->h.owner, __ATOMIC_ACQUIRE), OWNER_MANY);   /* the asker may still run */
    pthread_join(ta, NULL);
    pthread_join(to, NULL);
    CHECK_EQ_INT(g->h.turns.passed, 0);
    CHECK_EQ_INT(g->h.turns.want, 0);
    long calls;
    CHECK_EQ_INT(log_disorder(&calls), 0);
    CHECK_EQ_INT(log_errors, 0);
    CHECK(calls >= 3);
    free(g);
    default_turns();
}

/* ---- fork ---- */

/* fork() while a thread waits for its turn: the child has neither that
 * thread nor the owner; its first ID claims g, and its owner's path must not
 * hand g to the parent's asker (which would leave the child's next ID to
 * take g back by force). */
TEST_CASE(child_forgets_asker) {
    runner owner;
    pthread_t to, ta;
    toid_gen *g = owner_and_asker(TOID_ULID, &owner, &to, &ta);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(20);      /* a hang would be the failure */
        uint8_t x[16], y[16];
        int ok = toid_gen_next(g, x, NULL) == 0 && toid_gen_next(g, y, NULL) == 0 && memcmp(x, y, 16) < 0 &&
                 owned_by_thread(g) && g->h.turns.want == 0 && g->h.turns.passed == 0;
        _exit(ok ? 0 : 1);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child kept its generator (status %d)", st);
    __atomic_store_n(&g->h.turns.due, 0, __ATOMIC_RELAXED);   /* the parent's owner: your turn is over */
    pthread_join(ta, NULL);
    pthread_join(to, NULL);     /* it stops once the asker has g */
    long calls;
    CHECK_EQ_INT(log_disorder(&calls), 0);
    CHECK_EQ_INT(log_errors, 0);
    free(g);
    default_turns();
}

static int setup(int nparam, char **param) {
    if (nparam > 0)
        turns = atol(param[0]);
    return turns > 0 ? 0 : 2;
}

int main(int argc, char **argv) { return check_main(argc, argv, setup, NULL); }
