/* gen.c — the generic generator around the per-format pure cores: config
 * and defaults, the clock-behind policies and the format's time span (the
 * tick), then, for toid_gen_next and friends, the clock, entropy drawn
 * before the lock, a short lock (or none, for a generator one thread owns),
 * fork detection and the waits. */
#define _GNU_SOURCE
#include "clock.h"
#include "gen_owner.h"
#include "simd.h"

#include <errno.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHUNK 32            /* IDs made per lock hold in a batch */
#define ENTROPY_MAX 14      /* the most any core draws per ID, normally */

/* A CAS format's state of record: the word, except while a thread owns the
 * generator; then it is the head (last_ms, seq, last), which the owner keeps
 * without packing it after each ID, and disown() packs it into the word. */
static inline bool owned_by_a_thread(const toid_gen *g) {
    return __atomic_load_n(&toid__h(g)->owner, __ATOMIC_RELAXED) > TOID__OWNER_REVOKING;
}

/* Tag 0 makes uid11's core clear its issued-value set on the next ID (see
 * fmt_uid11.c), so the 32 KiB are never cleared here. */
static void forget_state(toid_gen *g) {
    toid__h(g)->last_ms = INT64_MIN;
    toid__h(g)->tick_ms = INT64_MAX;   /* no ms start kept (gen_owner.h) */
    toid__h(g)->tick_sec = 0;
    toid__h(g)->tick_ns = 0;
    __atomic_store_n(&toid__h(g)->word, 0, __ATOMIC_RELEASE);
    memset(toid__h(g)->last, 0, sizeof toid__h(g)->last);
    toid__h(g)->seq = 0;
    toid__h(g)->tag = 0;
}

/* uid11's issued-value set: the memory right after the toid_gen, which
 * toid_gen_init_size checked is there. NULL for the formats without one. */
static uint32_t *seen_of(toid_gen *g, const toid__format *fmt) {
    return fmt->info.random_order ? toid__uid11_seen(g) : NULL;
}

size_t toid_gen_size(toid_format f) {
    const toid__format *fmt = toid__format_of(f);
    if (!fmt)
        return 0;
    return fmt->info.random_order ? sizeof(toid_gen_uid11) : sizeof(toid_gen);
}

static int shared_lock_init(toid_gen *g);

int toid_gen_init_size(toid_gen *g, size_t size, const toid_gen_config *cfg) {
    toid_gen_config c;
    int64_t epoch;
    if (!g || toid__resolve_config(cfg, TOID_FOR_GEN_INIT, &c, &epoch, NULL, 0) < 0)
        return TOID_EINVAL;
    if (size < toid_gen_size(c.format))
        return TOID_EBUFFER;
    if ((c.flags & TOID_GEN_SHARED) && shared_lock_init(g) < 0)
        return TOID_EINVAL;
    toid__h(g)->cfg = c;
    toid__h(g)->epoch_ms = epoch;
    forget_state(g);
    toid__h(g)->fork_generation = toid__fork_generation();
    toid__h(g)->lock = 0;
    toid__h(g)->owner = (c.flags & TOID_GEN_UNLOCKED) ? TOID__OWNER_UNLOCKED
                 : (c.flags & TOID_GEN_SHARED)  ? TOID__OWNER_MANY
                                                : TOID__OWNER_NONE;
    toid__h(g)->busy = 0;
    toid__h(g)->state = TOID__GEN_READY;
    return 0;
}

int toid_gen_init(toid_gen *g, const toid_gen_config *cfg) {
    return toid_gen_init_size(g, sizeof *g, cfg);
}

/* The clock-behind policy and the span: which ms the next ID gets. micros
 * is 0..999 already (the callers split the clock's reading once). */
static int make_tick(toid__core *c, const toid__format *fmt, int64_t ms, unsigned micros) {
    const toid_gen_head *g = c->g;
    toid__tick *t = &c->t;
    if (g->last_ms != INT64_MIN && ms < g->last_ms) {
        uint64_t behind = (uint64_t)(g->last_ms - ms);
        toid_on_behind p = g->cfg.on_behind;
        if ((p == TOID_BEHIND_KEEP || p == TOID_BEHIND_RESET) && behind <= g->cfg.behind_allow_ms) {
            ms = g->last_ms;
            c->status |= TOID_ST_ROLLBACK;
        } else if (p == TOID_BEHIND_RESET) {
            c->status |= TOID_ST_RESET;
        } else {
            return TOID_ECLOCK;
        }
    }
    /* before the epoch wraps to 2^64 - d, which has bits above ts_bits too */
    if (((uint64_t)ms - (uint64_t)g->epoch_ms) >> fmt->info.ts_bits)
        return TOID_ERANGE;
    TOID__ASSERT(g->last_ms == INT64_MIN || ms >= g->last_ms || (c->status & TOID_ST_RESET));
    t->ms = ms;
    t->micros = micros;
    t->same = ms == g->last_ms;
    t->may_advance = g->cfg.on_exhausted == TOID_EXHAUSTED_ADVANCE;
    return 0;
}

int toid_gen_next_at(toid_gen *g, int64_t unix_ms, unsigned micros, toid_entropy_fn entropy,
                     void *ctx, uint8_t *out, unsigned *status) {
    if (!g || !(toid__h(g)->state & TOID__GEN_READY) || !entropy || !out)
        return TOID_EINVAL;
    const toid__format *fmt = toid__format_of(toid__h(g)->cfg.format);
    if (!fmt)
        return TOID_EINVAL;
    toid__core c = {.g = toid__h(g), .seen = seen_of(g, fmt), .entropy = entropy, .ctx = ctx};
    bool by_word = fmt->pack && !owned_by_a_thread(g);    /* where the state of record is */
    if (by_word)
        fmt->unpack(__atomic_load_n(&toid__h(g)->word, __ATOMIC_ACQUIRE), toid__h(g));
    int rc = make_tick(&c, fmt, unix_ms, micros % 1000);
    if (rc == 0)
        rc = fmt->next(&c, out);
    if (rc == 0 && by_word)
        __atomic_store_n(&toid__h(g)->word, fmt->pack(toid__h(g)), __ATOMIC_RELEASE);
    if (status)
        *status = rc == 0 ? c.status : 0;
    return rc;
}

/* ---- the wrapper: clock, entropy, lock, fork, waits ---- */

/* The lock: one int in the generator (plain data, so the generator can
 * live in shared memory). 0 free, 1 held, 2 held with sleepers. A short spin,
 * then sleep in the kernel (futex) so a preempted holder is not starved by
 * spinning waiters; unlock wakes one sleeper only when there is one. The
 * futex is not private, so a generator in shared memory works across
 * processes too.
 *
 * Unlock without a second atomic read-modify-write (an xchg cost ~7 ns here,
 * half of an uncontended lock/unlock pair): when the word reads 1 (no
 * sleepers) it is released by a plain store. Mutual exclusion does not
 * depend on it: only the holder ever writes 0, and every acquirer takes the
 * lock by compare-and-swap or exchange. What the store can lose is a wake-up:
 * a waiter that set 2 between our load and our store, and whose futex call
 * found 2 before our store landed (the holder preempted between two adjacent
 * instructions), sleeps on. So sleepers sleep at most SLEEP_NS at a time and
 * then try again: a lost wake-up costs one such sleep, never a hang. */
#define SLEEP_NS 1000000
static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static long futex(int *addr, int op, int val) {
    struct timespec bound = {0, SLEEP_NS};
    return syscall(SYS_futex, addr, op, val, op == FUTEX_WAIT ? &bound : NULL, NULL, 0);
}

/* Contention: two threads that want the same generator at once. Each of
 * them touching its cache line (a load, a failed compare-and-swap) moves the
 * line between their cores, ~130 ns here, several times an ID's whole cost.
 * So a thread that found the generator taken waits without touching it, for
 * a time that doubles while it keeps finding it taken: the holder meanwhile
 * makes its next IDs on a line that stays in its core, and the two take the
 * generator in turns of many IDs, not one. One order for all IDs allows no
 * better: each turn moves the line. A pause is 10-140 cycles depending on
 * the CPU (19 ns here). */
#define BACKOFF_MIN 128
#define BACKOFF_MAX 512
#define BACKOFF_TRIES 4     /* then sleep (the lock): ~27 us of pauses here */

static inline void backoff(unsigned *wait) {
    for (unsigned i = 0; i < *wait; i++)
        cpu_relax();
    if (*wait < BACKOFF_MAX)
        *wait *= 2;
}

void toid__lock_contended(toid_gen *g) {
    int c;
    unsigned wait = BACKOFF_MIN;
    for (int tries = 0; tries < BACKOFF_TRIES; tries++) {
        backoff(&wait);
        c = 0;
        if (__atomic_load_n(&toid__h(g)->lock, __ATOMIC_RELAXED) == 0 &&
            __atomic_compare_exchange_n(&toid__h(g)->lock, &c, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return;
    }
    while (__atomic_exchange_n(&toid__h(g)->lock, 2, __ATOMIC_ACQUIRE) != 0)
        futex(&toid__h(g)->lock, FUTEX_WAIT, 2);
}

void toid__unlock_sleepers(toid_gen *g) {
    if (__atomic_exchange_n(&toid__h(g)->lock, 0, __ATOMIC_RELEASE) == 2)
        futex(&toid__h(g)->lock, FUTEX_WAKE, 1);
}

static void sleep_us(long us) {
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* ---- one thread's generator ----
 *
 * Most generators are used by one thread (a CLI, a single-threaded service,
 * a thread's own generator), and for them the lock's compare-and-swap was
 * the largest cost of an ID after the clock read (6.5 ns of ~55 here). So the
 * first thread to make an ID owns the generator (g->owner = its thread
 * pointer) and makes its IDs with plain loads and stores, bracketed by
 * g->busy. The first call from any other thread takes g from its owner
 * for good: from then on (MANY) every thread takes the lock or the
 * compare-and-swap. g->owner only ever moves NONE -> a thread ->
 * REVOKING -> MANY (and back to NONE in a forked child's reset), so a
 * thread that has lost g never gets it back, and only the owner ever
 * writes busy while busy matters. (Until issue 25 a second thread could
 * also be handed the generator for a turn and hand it back; the owner
 * could then change while a thread was between reading it and using the
 * state, and one such window made duplicates. Measured when they went,
 * interleaved on one machine, the turns made two busy threads on one
 * generator no faster than the lock or compare-and-swap does, ~0.9-1.0x
 * one thread: README, Speed. TOID_GEN_PER_THREAD gives ~1.9x.)
 *
 * The taking (revocation) is an asymmetric Dekker handshake. The owner makes
 * busy odd, then reads owner (only a compiler barrier between). The revoker
 * stores owner = REVOKING, then membarrier(2) runs a full memory barrier on
 * every CPU that runs a thread of this process, then it reads busy. Either
 * the owner read owner after that barrier ran on its CPU, and so sees
 * REVOKING and backs out, or its odd busy was visible before, and the revoker
 * waits for busy to be even (stored with release after the ID). The owner pays no
 * fence per ID; the revoker pays one system call, once per generator. Claims
 * and the move to REVOKING are made holding the lock, so they are ordered
 * with each other and with every locked ID; the wait is made without it (see
 * disown). REVOKING rather than MANY while the revoker waits keeps every
 * thread off the state (the compare-and-swap formats' word included: it is
 * the state of record only from MANY on, when disown has packed the owner's
 * head into it) until the owner's last plain store is out: they see neither
 * MANY nor themselves, and wait for MANY. A taken owner that was between
 * reading owner and making busy odd writes busy once more after the taking;
 * harmless, since nobody reads busy after MANY.
 *
 * Cancellation: nothing inside an ID is a cancellation point (the CSPRNG
 * reseeds by the raw system call), and disown, which every other thread of
 * g waits for, runs with cancellation disabled. A thread that leaves an ID
 * any other way (longjmp out of a signal handler, pthread_exit in one) is
 * not supported: toid.h says so.
 *
 * Without membarrier(2) (Linux < 4.14, a seccomp filter) nothing is owned: a
 * claim gives MANY. A new thread may reuse an exited thread's pointer, and
 * so its ownership: harmless, the exited thread is out of any ID. */
int toid__test_owner_off;    /* tests: claims give MANY, as without membarrier(2) */
int toid__test_nobodys_one_off; /* tests: gen_owner.h's path declines for a nobody's generator (lock or CAS) */

static long membarrier(int cmd) { return syscall(SYS_membarrier, cmd, 0, 0); }

/* membarrier(2) registered for this process (and, the registration being
 * inherited, its children): 1, or -1 when unavailable; 0 before the first try. */
static int barrier_state;

static bool barrier_ready(void) {
    int st = __atomic_load_n(&barrier_state, __ATOMIC_ACQUIRE);
    if (st == 0) {
        long q = membarrier(MEMBARRIER_CMD_QUERY);
        st = q >= 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
                     membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0
                 ? 1
                 : -1;
        __atomic_store_n(&barrier_state, st, __ATOMIC_RELEASE);
    }
    return st > 0 && !__atomic_load_n(&toid__test_owner_off, __ATOMIC_RELAXED);
}

/* One step of a wait for another thread that may be preempted: a pause for
 * the first 100 looks, then 50 us of sleep, so that it can run whatever
 * our priority. */
static void wait_step(int spins) {
    if (spins < 100)
        cpu_relax();
    else
        sleep_us(50);
}

/* Waits while g->owner reads REVOKING (the revoker waits in turn for an
 * owner that may be preempted inside an ID). */
static void wait_revoked(toid_gen *g) {
    for (int spins = 0; __atomic_load_n(&toid__h(g)->owner, __ATOMIC_ACQUIRE) == TOID__OWNER_REVOKING; spins++)
        wait_step(spins);
}

/* Takes g from its owner, once g->owner reads REVOKING (which the caller
 * stored holding the lock, and only it), for good. Not holding the lock:
 * the wait may be long (the owner preempted inside an ID, or in a system
 * call to reseed its CSPRNG), and a fork() meanwhile must not leave the
 * child's copy of the lock held by a thread it does not have. The caller
 * has disabled cancellation (the sleep is a cancellation point): a revoker
 * cancelled here would leave g REVOKING, and every thread of g waiting. */
static __attribute__((noinline)) void disown(toid_gen *g) {
    TOID__ASSERT(__atomic_load_n(&toid__h(g)->owner, __ATOMIC_RELAXED) == TOID__OWNER_REVOKING);
    if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0 && membarrier(MEMBARRIER_CMD_GLOBAL) != 0)
        sleep_us(1000);     /* cannot happen once registered; a store buffer drains far sooner */
    for (int spins = 0; __atomic_load_n(&toid__h(g)->busy, __ATOMIC_ACQUIRE) & 1u; spins++)
        wait_step(spins);   /* the owner inside its ID (preempted, or reseeding) */
    const toid__format *fmt = toid__format_of(toid__h(g)->cfg.format);
    if (fmt->pack) {        /* the head was the state of record: now the word is */
        uint64_t w = fmt->pack(toid__h(g));
#ifndef NDEBUG
        toid_gen_head back = *toid__h(g);   /* the word holds the whole state */
        fmt->unpack(w, &back);
        TOID__ASSERT(back.last_ms == toid__h(g)->last_ms && fmt->pack(&back) == w);
#endif
        __atomic_store_n(&toid__h(g)->word, w, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&toid__h(g)->owner, TOID__OWNER_MANY, __ATOMIC_RELEASE);
}

/* Thread `me` found g neither its own nor MANY: claims it if nobody has made
 * an ID yet, or takes it from its owner for good; or waits while another
 * thread takes it. After it, g->owner was seen as me or MANY (another
 * thread may take g from me at once: callers read owner again). */
static __attribute__((noinline)) void settle_owner(toid_gen *g, uint64_t me) {
    for (;;) {
        uint64_t o = __atomic_load_n(&toid__h(g)->owner, __ATOMIC_ACQUIRE);
        if (o == me || o == TOID__OWNER_MANY)
            return;
        if (o == TOID__OWNER_REVOKING) {
            wait_revoked(g);
            continue;
        }
        bool taker = false;
        int cancel;     /* from the claim or REVOKING to MANY: no cancellation (see disown) */
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
        toid__lock(g);
        o = __atomic_load_n(&toid__h(g)->owner, __ATOMIC_ACQUIRE);
        if (o == TOID__OWNER_NONE) {
            __atomic_store_n(&toid__h(g)->owner, barrier_ready() ? me : TOID__OWNER_MANY, __ATOMIC_RELEASE);
        } else if (o != me && o != TOID__OWNER_MANY && o != TOID__OWNER_REVOKING) {
            __atomic_store_n(&toid__h(g)->owner, TOID__OWNER_REVOKING, __ATOMIC_RELAXED);
            taker = true;
        }
        toid__unlock(g);
        if (taker)
            disown(g);
        pthread_setcancelstate(cancel, NULL);
    }
}

/* g as thread `me` may use it: true when it is me's alone (the caller then
 * enters busy, which checks again), false when it is MANY. Never anything
 * else: the compare-and-swap formats' word is the state of record only
 * from MANY on, so a thread that went to it while g was REVOKING (before
 * disown packed the owner's head into it) computed from a stale word, and
 * disown's packing then overwrote what it had published. That was issue
 * 25's duplicates: a thread's settle_owner saw it own g, another thread took
 * g before the caller read owner again, and the caller read "not mine" as
 * MANY. */
static inline __attribute__((always_inline)) bool owned_by(toid_gen *g, uint64_t me) {
    uint64_t o = __atomic_load_n(&toid__h(g)->owner, __ATOMIC_ACQUIRE);
    while (__builtin_expect(o != me && o != TOID__OWNER_MANY, 0)) {
        settle_owner(g, me);
        o = __atomic_load_n(&toid__h(g)->owner, __ATOMIC_ACQUIRE);
    }
    return o == me;
}

/* Random bytes drawn before the lock, handed out inside it: each format's
 * per-ID minimum. A core that needs more (a new ms, a redraw) takes them from
 * the thread's CSPRNG buffer, which toid__entropy_prepare readied before the
 * lock, so no system call happens under it. */
typedef struct pool {
    const uint8_t *p;
    size_t left;
    bool unprepared;    /* toid__entropy_prepare was skipped: past the pool, TOID__ERETRY unless ready */
} pool;

static int from_pool(void *ctx, uint8_t *buf, size_t n) {
    pool *q = ctx;
    if (q->left >= n) {
        if (n <= 16)
            toid__copy_small(buf, q->p, n);
        else
            memcpy(buf, q->p, n);
        q->p += n;
        q->left -= n;
        return 0;
    }
    if (q->unprepared)
        return toid__random_bytes_if_ready(buf, n);
    return toid__random_bytes_nosyscall(buf, n);
}

/* g->fork_generation while a thread resets g after a fork (generations
 * count from 1 and never get here). */
#define FORK_RESETTING UINT64_MAX

/* A child process must not go on with its parent's state, unless the
 * generator is shared: then the state is the group's, and a child is one
 * more member (fork_generation is per process, so in a shared generator it
 * never matches every member: they all come here, and leave at once). */
static __attribute__((noinline)) int check_fork_slow(toid_gen *g, const toid__format *fmt, uint64_t gen) {
    if (toid__h(g)->cfg.flags & TOID_GEN_SHARED)
        return 0;
    uint64_t seen = __atomic_load_n(&toid__h(g)->fork_generation, __ATOMIC_ACQUIRE);
    if (seen != gen) {
        if (seen != FORK_RESETTING && __atomic_compare_exchange_n(&toid__h(g)->fork_generation, &seen, FORK_RESETTING,
                                                                  false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            /* The first thread of this process here since the fork. No other
             * thread of ours is inside g (each comes through this check
             * first), and the parent's threads are not here, whatever they
             * held: the lock, the ownership, an ID half made. So reset them
             * all, without the lock (a copy of it may be held by nobody). */
            __atomic_store_n(&toid__h(g)->lock, 0, __ATOMIC_RELAXED);
            forget_state(g);
            if (!(toid__h(g)->cfg.flags & TOID_GEN_UNLOCKED))
                toid__h(g)->owner = TOID__OWNER_NONE;
            toid__h(g)->busy = 0;
            if (fmt->info.node_bits)
                toid__h(g)->state |= TOID__GEN_FORKED;
            __atomic_store_n(&toid__h(g)->fork_generation, gen, __ATOMIC_RELEASE);
        } else {
            while (__atomic_load_n(&toid__h(g)->fork_generation, __ATOMIC_ACQUIRE) != gen)
                sched_yield();      /* another thread of ours is resetting it */
        }
    }
    return (toid__h(g)->state & TOID__GEN_FORKED) ? TOID_EFORKED : 0;
}

static inline __attribute__((always_inline)) int check_fork(toid_gen *g, const toid__format *fmt) {
    if (__builtin_expect(toid__fork_checked(g), 1))
        return 0;
    return check_fork_slow(g, fmt, toid__fork_generation_fast());
}

static int64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until the clock reads at least `target` ms. The bound is real time
 * (CLOCK_MONOTONIC, from `deadline`), not the ID clock, which may be stuck or
 * hooked. Returns 0 when the clock got there, -1 when the bound ran out. */
static int wait_until(int64_t target, int64_t deadline) {
    for (;;) {
        int64_t now = toid__clock_us();
        if (now / 1000 >= target)
            return 0;
        if (mono_ms() > deadline)
            return -1;
        long gap = (long)(target * 1000 - now);
        sleep_us(gap > 200 ? 200 : gap < 1 ? 1 : gap);
    }
}

static int cmp_u64_be(const void *a, const void *b) { return memcmp(a, b, 8); }

/* ---- the process-shared lock (TOID_GEN_SHARED) ----
 *
 * Why a robust pthread mutex rather than our own owner-TID lock word: death
 * must be detected exactly, not guessed. glibc registers a robust mutex in
 * the owning thread's robust list, which the kernel walks when the thread
 * dies (however it dies: SIGKILL included) and marks the mutex
 * FUTEX_OWNER_DIED, so the next locker gets EOWNERDEAD. The list entries
 * live in the mutex itself and are only followed in the owner's own address
 * space, so the mutex works in MAP_SHARED memory mapped at different
 * addresses. A TID word with liveness checks (kill(tid, 0)) would race with
 * TID reuse and cannot see a process in another PID namespace; the kernel's
 * robust list has neither problem. The mutex is plain data in the generator
 * (64 bytes reserved; glibc's is 40 on x86-64, 48 on aarch64).
 *
 * What a dead holder may have left: a torn state (any of last_ms, last[],
 * seq, tag, seen[] half-written) and IDs in its output buffer that callers
 * could still see if that buffer is shared. Repair does not try to read the
 * state: before each ID the holder records, in fence_ms, the latest ms that
 * ID can take (the tick's ms, + 1 where uuidv7 may advance), and only then
 * lets the core touch the state. A compiler barrier keeps that order; a
 * killed thread stops at an instruction boundary and the kernel's exit
 * path orders its stores before the robust futex is released, so the next
 * owner sees the fence of every ID the dead one began. Every ID issued
 * before has a ms <= max(fence_ms, last_ms) too (ms never goes back under
 * the lock, except by uuidv7's RESET, which gives up monotonicity anyway).
 * The repair forgets the state and has the core make one throw-away ID at
 * ms m = max(fence_ms, last_ms) + 1: a fresh ms, strictly later than any ID
 * the dead holder or anyone before it could have made, so the stream goes on
 * monotonic and without repeats; the next IDs keep m while the clock is
 * behind it (on_behind KEEP/RESET; ERROR and WAIT see a step back of a ms or
 * two). fence_ms = m is stored first, so a repairer that dies too leaves a
 * bound behind, and `repair` stays set until a repair succeeds. */
_Static_assert(sizeof(pthread_mutex_t) <= sizeof(((toid_gen_head *)0)->shared_lock),
               "pthread_mutex_t fits toid_gen_head.shared_lock");
_Static_assert(_Alignof(pthread_mutex_t) <= _Alignof(uint64_t), "pthread_mutex_t alignment");

static pthread_mutex_t *shared_mutex(toid_gen *g) { return (pthread_mutex_t *)(void *)toid__h(g)->shared_lock; }

static int shared_lock_init(toid_gen *g) {
    pthread_mutexattr_t a;
    int rc = pthread_mutexattr_init(&a);
    if (rc != 0)
        return -1;
    rc = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    if (rc == 0)
        rc = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    if (rc == 0)
        rc = pthread_mutex_init(shared_mutex(g), &a);
    pthread_mutexattr_destroy(&a);
    if (rc != 0)
        return -1;
    toid__h(g)->fence_ms = INT64_MIN;
    toid__h(g)->repair = 0;
    return 0;
}

void (*toid__test_shared_hold)(toid_gen *g, const uint8_t *id, int after);
int toid__test_skip_repair;

static int repair_entropy(void *ctx, uint8_t *buf, size_t n) {
    (void)ctx;
    return toid_random_bytes(buf, n);
}

static int repair_state(toid_gen *g, const toid__format *fmt) {
    int64_t fence = __atomic_load_n(&toid__h(g)->fence_ms, __ATOMIC_ACQUIRE);
    int64_t top = fence > toid__h(g)->last_ms ? fence : toid__h(g)->last_ms;
    if (top == INT64_MIN || toid__test_skip_repair)
        return 0;                       /* nothing was ever issued */
    int64_t m = top + 1;
    if (m - toid__h(g)->epoch_ms > (INT64_C(1) << fmt->info.ts_bits) - 1)
        return TOID_ERANGE;
    __atomic_store_n(&toid__h(g)->fence_ms, m, __ATOMIC_RELEASE);
    forget_state(g);
    toid__core c = {.g = toid__h(g), .seen = seen_of(g, fmt), .entropy = repair_entropy,
                    .t = {.ms = m, .micros = 0, .same = false, .may_advance = false}};
    uint8_t scratch[TOID_BIN_MAX];
    return fmt->next(&c, scratch);
}

static int shared_lock(toid_gen *g, const toid__format *fmt) {
    int rc = pthread_mutex_lock(shared_mutex(g));
    if (rc == EOWNERDEAD) {
        __atomic_store_n(&toid__h(g)->repair, 1, __ATOMIC_RELAXED);
        pthread_mutex_consistent(shared_mutex(g));
    } else if (rc != 0) {
        return TOID_EINVAL;             /* not initialised with TOID_GEN_SHARED */
    }
    if (__builtin_expect(__atomic_load_n(&toid__h(g)->repair, __ATOMIC_RELAXED), 0)) {
        if ((rc = repair_state(g, fmt)) < 0) {
            pthread_mutex_unlock(shared_mutex(g));
            return rc;
        }
        __atomic_store_n(&toid__h(g)->repair, 0, __ATOMIC_RELAXED);
    }
    return 0;
}

/* How chunk_held holds the generator. */
typedef enum hold {
    HOLD_LOCK,      /* the private lock */
    HOLD_SHARED,    /* the process-shared lock, with its fence before each ID (see above) */
    HOLD_OWNER      /* nothing to take: the calling thread owns g and is inside busy */
} hold;

/* Makes up to `chunk` IDs holding g from the clock reading *now. Returns 0
 * or the error that stopped it; *last gets the last ID's ms. `how` is a
 * constant at each call. */
static inline __attribute__((always_inline)) int
chunk_held(toid_gen *g, const toid__format *fmt, int64_t *now, size_t chunk, pool *q, uint8_t *out,
           size_t *made, unsigned *st_all, int64_t *last, hold how) {
    size_t size = fmt->info.bin_size;
    int64_t ms = *now / 1000;
    unsigned micros = (unsigned)(*now % 1000);
    int reread = 0, rc = 0;
    bool shared = how == HOLD_SHARED;
    if (how == HOLD_LOCK) {
        toid__lock(g);
    } else if (how == HOLD_SHARED && (rc = shared_lock(g, fmt)) < 0) {
        *last = 0;
        return rc;
    }
    toid__core c = {.g = toid__h(g), .seen = seen_of(g, fmt), .entropy = from_pool, .ctx = q};
#ifndef NDEBUG
    uint8_t prev[TOID_BIN_MAX];
    bool had_prev = false;
#endif
    while (chunk) {
        c.status = 0;
        rc = make_tick(&c, fmt, ms, micros);
        if (rc == TOID_ECLOCK && !reread) {
            /* Another thread may have read a later clock and issued first:
             * read again, now that we hold the lock, before calling it a
             * step back. */
            reread = 1;
            *now = toid__clock_us();
            ms = *now / 1000;
            micros = (unsigned)(*now % 1000);
            continue;
        }
        if (rc == 0 && shared) {
            __atomic_store_n(&toid__h(g)->fence_ms, c.t.ms + c.t.may_advance, __ATOMIC_RELAXED);
            __atomic_signal_fence(__ATOMIC_SEQ_CST);    /* the fence before any state or output */
            if (toid__test_shared_hold)
                toid__test_shared_hold(g, out, 0);
        }
        if (rc == 0)
            rc = fmt->next(&c, out);
        if (rc < 0)
            break;
        /* within a generator every ID is above the one before (uid11: random
         * within its ms; a RESET gives order up) */
        TOID__ASSERT(fmt->info.random_order || (c.status & TOID_ST_RESET) || size > sizeof prev ||
                     !had_prev || memcmp(prev, out, size) < 0);
#ifndef NDEBUG
        memcpy(prev, out, size);
        had_prev = true;
#endif
        if (shared && toid__test_shared_hold)
            toid__test_shared_hold(g, out, 1);
        *st_all |= c.status;
        (*made)++;
        out += size;
        chunk--;
    }
    *last = toid__h(g)->last_ms;
    if (how == HOLD_LOCK)
        toid__unlock(g);
    else if (how == HOLD_SHARED)
        pthread_mutex_unlock(shared_mutex(g));
    return rc;
}

static int chunk_locked(toid_gen *g, const toid__format *fmt, int64_t *now, size_t chunk, pool *q,
                        uint8_t *out, size_t *made, unsigned *st_all, int64_t *last) {
    return chunk_held(g, fmt, now, chunk, q, out, made, st_all, last, HOLD_LOCK);
}

static int chunk_shared(toid_gen *g, const toid__format *fmt, int64_t *now, size_t chunk, pool *q,
                        uint8_t *out, size_t *made, unsigned *st_all, int64_t *last) {
    return chunk_held(g, fmt, now, chunk, q, out, made, st_all, last, HOLD_SHARED);
}

/* The same without a lock, for formats whose state is one word: the chunk
 * is computed from a snapshot of the word by the same pure core, on a copy
 * of the generator's head, and published with one compare-and-swap; a lost
 * race recomputes the chunk from the new word (reusing the same random bytes,
 * since the losing IDs were never issued). Without a lock, other threads may
 * publish later ms at any moment, so a step back is checked with a fresh
 * clock reading: it is genuine only if that reading, taken after the word was
 * published (and so after its publisher read the clock), is still behind. */
static inline __attribute__((always_inline)) int
chunk_cas(toid_gen *g, const toid__format *fmt, int64_t *now, size_t chunk, pool *q, uint8_t *out, size_t *made,
          unsigned *st_all, int64_t *last) {
    size_t size = fmt->info.bin_size;
    TOID__ASSERT(__atomic_load_n(&toid__h(g)->owner, __ATOMIC_ACQUIRE) == TOID__OWNER_MANY);
    toid_gen_head h;
    h.cfg = toid__h(g)->cfg;
    h.epoch_ms = toid__h(g)->epoch_ms;
    int rc = 0;
    unsigned wait = BACKOFF_MIN;
    for (;;) {
        uint64_t old = __atomic_load_n(&toid__h(g)->word, __ATOMIC_ACQUIRE);
        fmt->unpack(old, &h);
        pool attempt = *q;
        toid__core c = {.g = &h, .entropy = from_pool, .ctx = &attempt};
        size_t k = 0;
        rc = 0;
        while (k < chunk) {
            rc = make_tick(&c, fmt, *now / 1000, (unsigned)(*now % 1000));
            if (rc == 0)
                rc = fmt->next(&c, out + k * size);
            if (rc < 0)
                break;
            k++;
        }
        if (rc == TOID_ECLOCK && k == 0) {
            *now = toid__clock_us();
            if (*now / 1000 >= h.last_ms)
                continue;       /* we had lost a race, not the clock */
        }
        if (k && !__atomic_compare_exchange_n(&toid__h(g)->word, &old, fmt->pack(&h), false, __ATOMIC_ACQ_REL,
                                              __ATOMIC_ACQUIRE)) {
            backoff(&wait);     /* another thread published first: let it go on, then redo the chunk */
            continue;
        }
        *q = attempt;
        *st_all |= c.status;
        *made += k;
        *last = h.last_ms;
        return rc;
    }
}

/* chunk_held for the owning thread `me`, inside busy. False when g was
 * taken from it since owned_by() said it was its: nothing made then. */
static inline __attribute__((always_inline)) bool
chunk_owned(toid_gen *g, uint64_t me, const toid__format *fmt, int64_t *now, size_t chunk, pool *q, uint8_t *out,
            size_t *made, unsigned *st_all, int64_t *last, int *rc) {
    uint32_t busy;
    int in = toid__enter_owned(g, me, &busy);
    if (in <= 0) {
        *rc = in;
        return in < 0;
    }
#ifndef NDEBUG
    /* inside busy; a thread taking g may have stored REVOKING since (it
     * waits for this chunk to end), nothing else */
    uint64_t o = __atomic_load_n(&toid__h(g)->owner, __ATOMIC_RELAXED);
    TOID__ASSERT((toid__h(g)->busy & 1u) && (o == me || o == TOID__OWNER_REVOKING));
#endif
    *rc = chunk_held(g, fmt, now, chunk, q, out, made, st_all, last, HOLD_OWNER);
    toid__leave_owned(g, busy);
    return true;
}

/* Up to `chunk` IDs by whichever way g is held: its owner's, the
 * compare-and-swap, the lock, or the shared lock. */
static inline __attribute__((always_inline)) int
make_chunk(toid_gen *g, const toid__format *fmt, int64_t *now, size_t chunk, pool *q, uint8_t *out, size_t *made,
           unsigned *st_all, int64_t *last) {
    uint64_t me = toid__caller_id(g);
    int rc;
    while (owned_by(g, me))
        if (chunk_owned(g, me, fmt, now, chunk, q, out, made, st_all, last, &rc))
            return rc;
    /* the word, or the head under the lock, is the state of record only now */
    TOID__ASSERT(__atomic_load_n(&toid__h(g)->owner, __ATOMIC_ACQUIRE) == TOID__OWNER_MANY);
    if (fmt->pack)
        return chunk_cas(g, fmt, now, chunk, q, out, made, st_all, last);
    if (__builtin_expect(!(toid__h(g)->cfg.flags & TOID_GEN_SHARED), 1))
        return chunk_locked(g, fmt, now, chunk, q, out, made, st_all, last);
    return chunk_shared(g, fmt, now, chunk, q, out, made, st_all, last);
}

static int produce(toid_gen *g, uint8_t *out, size_t n, size_t *made_out, unsigned *status_out) {
    size_t made = 0;
    unsigned st_all = 0;
    int rc = 0;
    if (!g || !(toid__h(g)->state & TOID__GEN_READY) || (!out && n))
        return TOID_EINVAL;
    const toid__format *fmt = toid__format_of(toid__h(g)->cfg.format);
    size_t size = fmt->info.bin_size;
    if ((rc = check_fork(g, fmt)) < 0)
        goto done;
    int64_t now = toid__clock_us();
    uint8_t entropy[CHUNK * ENTROPY_MAX];
    while (made < n) {
        size_t chunk = n - made < CHUNK ? n - made : CHUNK;
        size_t need = chunk * fmt->entropy_per_id;
        if (!fmt->no_entropy && (rc = toid__entropy_prepare()) < 0)
            goto done;
        if (need && (rc = toid_random_bytes(entropy, need)) < 0)
            goto done;
        pool q = {entropy, need, false};
        int64_t last;
        rc = make_chunk(g, fmt, &now, chunk, &q, out + made * size, &made, &st_all, &last);
        if (rc == 0)
            continue;
        bool exhausted = rc == TOID_EEXHAUSTED || rc == TOID_EOVERFLOW;
        bool wait_next = exhausted && toid__h(g)->cfg.on_exhausted == TOID_EXHAUSTED_WAIT;
        bool wait_back = rc == TOID_ECLOCK && toid__h(g)->cfg.on_behind == TOID_BEHIND_WAIT;
        if (!wait_next && !wait_back)
            goto done;
        /* each wait has its own bound: a long batch may wait many times */
        if (wait_until(wait_next ? last + 1 : last, mono_ms() + toid__h(g)->cfg.wait_max_ms) < 0)
            goto done;
        st_all |= TOID_ST_WAITED;
        now = toid__clock_us();
        rc = 0;
    }
done:
    if (rc < 0 && out && made < n)     /* no losing candidate past the IDs made (see produce_one_general) */
        memset(out + made * size, 0, (n - made) * size);
    if (fmt && fmt->info.random_order && made > 1)
        qsort(out, made, size, cmp_u64_be);
    if (made_out)
        *made_out = made;
    if (status_out)
        *status_out = st_all;
    return rc < 0 ? rc : (int)made;
}

/* One ID: the call users make most. First the format's owner path
 * (gen_owner.h), which makes it when the calling thread owns g and nothing
 * is unusual; otherwise produce() for n = 1 with its plumbing taken out: the
 * caller checked g once; no chunk loop; the fork check inline. A format that
 * draws no random bytes per ID (ULID: only on a new ms) skips the CSPRNG
 * readiness check: if its core does need bytes that the thread's CSPRNG
 * cannot give without a system call, the core fails before changing anything
 * (TOID__ERETRY) and produce() redoes the ID. Any other error, and every
 * wait, is produce()'s too: it starts again from a fresh clock reading. The
 * shared-memory mode and uid11 (sorted batches) always take produce(). */
static __attribute__((noinline)) int produce_one_general(toid_gen *g, const toid__format *fmt, uint8_t *out,
                                                         unsigned *status) {
    int rc;
    if (__builtin_expect((toid__h(g)->cfg.flags & TOID_GEN_SHARED) || fmt->info.random_order, 0))
        goto slow;
    if ((rc = check_fork(g, fmt)) < 0)
        goto fail;
    int64_t now = toid__clock_us_inline();
    uint8_t entropy[ENTROPY_MAX];
    pool q = {entropy, fmt->entropy_per_id, false};
    if (q.left) {
        if (toid_random_bytes(entropy, q.left) < 0) {   /* readies (seeds, reseeds) the CSPRNG too */
            rc = TOID_EENTROPY;
            goto fail;
        }
    } else {
        q.unprepared = !fmt->no_entropy;
    }
    size_t made = 0;
    unsigned st = 0;
    int64_t last;
    rc = make_chunk(g, fmt, &now, 1, &q, out, &made, &st, &last);
    if (__builtin_expect(rc == 0, 1)) {
        if (status)
            *status = st;
        return 0;
    }
    if (rc == TOID_EINVAL)
        goto fail;      /* re-entered (toid__enter_owned): nothing more to try */
slow:
    rc = produce(g, out, 1, NULL, status);
    if (rc >= 0)
        return 0;
fail:
    /* out may hold a candidate of an attempt that lost its compare-and-swap
     * (here, or on gen_owner.h's path before): for a format without random
     * bits that can be an ID another thread issued, so it must not look like
     * an ID to a caller that ignores the error */
    memset(out, 0, fmt->info.bin_size);
    return rc;
}

/* (A separate function, so that the owner's path does not pay the general
 * one's stack frame and saved registers; and the owner is checked here too,
 * so that a generator another thread owns does not pay a call to `one`
 * that declines.) */
static inline __attribute__((always_inline)) int produce_one(toid_gen *g, const toid__format *fmt, uint8_t *out,
                                                            unsigned *status) {
    uint64_t o = __atomic_load_n(&toid__h(g)->owner, __ATOMIC_RELAXED);
    if (__builtin_expect(fmt->one != NULL && (o == toid__caller_id(g) || o == TOID__OWNER_MANY), 1)) {
        int st = fmt->one(g, out);
        if (__builtin_expect(st >= 0, 1)) {
            if (status)
                *status = (unsigned)st;
            return 0;
        }
        if (st == TOID_EINVAL)
            return st;
    }
    return produce_one_general(g, fmt, out, status);
}

int toid_gen_next(toid_gen *g, uint8_t *out, unsigned *status) {
    if (!g || !(toid__h(g)->state & TOID__GEN_READY) || !out)
        return TOID_EINVAL;
    return produce_one(g, toid__format_of(toid__h(g)->cfg.format), out, status);
}

/* One ID of g as text: toid_gen_next_text and toid_new_text (g checked by
 * the caller). The format's encoder straight, without toid_encode's checks
 * again. */
static inline __attribute__((always_inline)) int next_text(toid_gen *g, char *out, size_t out_size) {
    const toid__format *fmt = toid__format_of(toid__h(g)->cfg.format);
    uint8_t bin[TOID_BIN_MAX];
    if (!out)
        return TOID_EINVAL;
    if (out_size <= fmt->info.text_len)
        return TOID_EBUFFER;
    int rc = produce_one(g, fmt, bin, NULL);
    if (rc < 0)
        return rc;
    toid__encoder(fmt)(bin, out);
    out[fmt->info.text_len] = '\0';
    return (int)fmt->info.text_len;
}

int toid_gen_next_text(toid_gen *g, char *out, size_t out_size) {
    if (!g || !(toid__h(g)->state & TOID__GEN_READY))
        return TOID_EINVAL;
    return next_text(g, out, out_size);
}

int toid_gen_batch(toid_gen *g, uint8_t *out, size_t n, size_t *made) {
    return produce(g, out, n, made, NULL);
}

int toid_gen_batch_status(toid_gen *g, uint8_t *out, size_t n, size_t *made, unsigned *status) {
    return produce(g, out, n, made, status);
}

/* ---- the process-wide generators ---- */

/* Each on its own 64-byte boundary, so that the head's first cache line
 * holds the configuration (read by every ID, written never) and the second
 * the state and the lock (written by every ID): threads sharing a generator
 * then pass one line between their cores per ID, not two. (owner and busy
 * are on the third line: the owner's ID writes two lines, both staying in
 * its core while it is the only thread.) */
static struct {
    _Alignas(64) toid_gen g;
} defaults[TOID_FORMAT_COUNT];
/* uid11's, with room for its issued-value set (its slot above stays unused). */
static struct {
    _Alignas(64) toid_gen_uid11 u;
} default_uid11;
_Static_assert(offsetof(toid_gen_head, last_ms) == 64 && offsetof(toid_gen_head, state) < 128,
               "the configuration fills the head's first cache line, the state and lock the second");
_Static_assert(sizeof(toid_gen) <= 256, "a generator of any format but uid11 stays small");
/* The generator of each format once it is initialised, NULL before. */
toid_gen *toid__ready[TOID_FORMAT_COUNT];
/* Serialises the process-wide generators' set-up and toid_configure. A fork
 * waits for it (the atfork handlers below): a child must not inherit it held
 * by a thread it does not have, or the child's first ID of a format not yet
 * set up, and any toid_configure there, would wait for ever; and waiting
 * means the child sees no set-up or configuration half written.
 * init_owner names the thread that holds it, so that the thread that
 * forks, which holds it from our prepare handler to our parent or child
 * handler, may still set up and configure in between: an application's
 * atfork handler may call toid_configure (registered before ours, its
 * prepare handler runs after ours and its child handler before ours), and
 * a fork from a signal handler that interrupted that thread's set-up must
 * not wait for itself. */
static pthread_mutex_t init_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t init_atfork_once = PTHREAD_ONCE_INIT;
static uint64_t init_owner;                 /* toid__self_id of the holder, 0 if none */
static _Thread_local bool init_taken_for_fork;
static void init_atfork(void);

/* Takes init_mutex unless this thread holds it already: true if it took it
 * (then init_unlock(true) gives it back). */
static bool init_lock(void) {
    pthread_once(&init_atfork_once, init_atfork);
    uint64_t me = toid__self_id();
    if (__atomic_load_n(&init_owner, __ATOMIC_RELAXED) == me)
        return false;
    pthread_mutex_lock(&init_mutex);
    __atomic_store_n(&init_owner, me, __ATOMIC_RELAXED);
    return true;
}

static void init_unlock(bool taken) {
    if (!taken)
        return;
    __atomic_store_n(&init_owner, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&init_mutex);
}

static void init_fork_prepare(void) { init_taken_for_fork = init_lock(); }
static void init_fork_done(void) { init_unlock(init_taken_for_fork); }

/* fork.c registers its own atfork handler on its first use: done here
 * first, never under init_mutex, because glibc holds its atfork lock while a
 * fork runs the prepare handlers, one of which waits for init_mutex. */
static void init_atfork(void) {
    (void)toid__fork_generation();
    pthread_atfork(init_fork_prepare, init_fork_done, init_fork_done);
}

static __attribute__((noinline)) toid_gen *default_gen_init(toid_format f) {
    if (!toid__format_of(f)->info.generates)
        return NULL;                /* a read-only variant: never a generator */
    bool taken = init_lock();
    toid_gen *g = toid__ready[f];
    if (!g) {
        g = toid_gen_size(f) > sizeof(toid_gen) ? &default_uid11.u.g : &defaults[f].g;
        /* set up once: after TOID_GEN_PER_THREAD it is published again as it
         * was, and goes on from its last ID (toid.h) */
        if (!(toid__h(g)->state & TOID__GEN_READY)) {
            toid_gen_config c;
            toid_gen_config_default(f, &c);
            toid_gen_init_size(g, toid_gen_size(f), &c);
        }
        __atomic_store_n(&toid__ready[f], g, __ATOMIC_RELEASE);
    }
    init_unlock(taken);
    return g;
}

static toid_gen *default_gen(toid_format f) {
    if ((unsigned)f >= TOID_FORMAT_COUNT)
        return NULL;
    toid_gen *g = __atomic_load_n(&toid__ready[f], __ATOMIC_ACQUIRE);
    return __builtin_expect(g != NULL, 1) ? g : default_gen_init(f);
}

/* ---- TOID_GEN_PER_THREAD: the process-wide generator, one per thread ----
 *
 * toid_configure with the flag records the configuration under a new
 * version and sets toid__ready[f] to NULL, so the format's entries
 * (gen_owner.h) come to toid__new_general, which finds the calling thread's
 * generator: made on its first ID (and again when the version moved), owned
 * by it, so its IDs take the owner's path; freed by a thread-specific-data
 * destructor when the thread ends. A forked child's thread keeps its
 * parent's thread's generators, which reset on their first ID there like any
 * other (fork_generation). */
typedef struct thread_gens {
    toid_gen *g[TOID_FORMAT_COUNT];
    uint32_t version[TOID_FORMAT_COUNT];    /* per_thread_version[f] when g[f] was made */
} thread_gens;

static __thread thread_gens *mine __attribute__((tls_model("initial-exec")));
static pthread_key_t mine_key;
static pthread_once_t mine_once = PTHREAD_ONCE_INIT;
static bool mine_key_made;
static uint32_t per_thread_version[TOID_FORMAT_COUNT];  /* 0: one generator for all threads */
static uint32_t versions;
static toid_gen_config per_thread_cfg[TOID_FORMAT_COUNT];

/* The thread's generators at its end. A later destructor (another key's)
 * that makes an ID starts a new set, which the next destructor round frees;
 * made in the last round (PTHREAD_DESTRUCTOR_ITERATIONS), it is lost, as
 * any thread-specific data is. */
static void free_mine(void *p) {
    thread_gens *t = p;
    for (int f = 0; f < TOID_FORMAT_COUNT; f++)
        free(t->g[f]);
    free(t);
    mine = NULL;    /* a later destructor of this thread making IDs starts again */
}

static void make_key(void) { mine_key_made = pthread_key_create(&mine_key, free_mine) == 0; }

static __attribute__((noinline)) toid_gen *thread_gen_make(toid_format f, uint32_t version) {
    thread_gens *t = mine;
    if (!t) {
        pthread_once(&mine_once, make_key);
        if (!mine_key_made || !(t = calloc(1, sizeof *t)))
            return NULL;
        if (pthread_setspecific(mine_key, t) != 0) {
            free(t);
            return NULL;
        }
        mine = t;
    }
    size_t size = toid_gen_size(f);
    if (!t->g[f] && !(t->g[f] = aligned_alloc(64, (size + 63) / 64 * 64)))
        return NULL;
    /* Without init_mutex: toid_configure wrote the configuration before its
     * release store of the version, which the caller loaded with acquire
     * (and configure is not called while threads generate). A lock here,
     * taken by every new thread, could be held by one when another forks,
     * and the child's copy of it would stay held. */
    toid_gen_config c = per_thread_cfg[f];
    c.flags &= ~TOID_GEN_PER_THREAD;
    if (toid_gen_init_size(t->g[f], size, &c) < 0)     /* cannot fail: toid_configure resolved c */
        return NULL;
    t->version[f] = version;
    return t->g[f];
}

/* The process-wide generator of f for the calling thread: the one, or in
 * TOID_GEN_PER_THREAD its own. */
static inline toid_gen *process_gen(toid_format f) {
    if ((unsigned)f >= TOID_FORMAT_COUNT)
        return NULL;
    uint32_t v = __atomic_load_n(&per_thread_version[f], __ATOMIC_ACQUIRE);
    if (__builtin_expect(v == 0, 1))
        return default_gen(f);
    thread_gens *t = mine;
    if (__builtin_expect(t != NULL && t->version[f] == v, 1))
        return t->g[f];
    return thread_gen_make(f, v);
}

/* toid_new and toid_new_text: the format's own entry (gen_owner.h), which
 * comes back here unless the calling thread owns the generator, and in
 * TOID_GEN_PER_THREAD always. */
int toid__new_general(toid_format f, uint8_t *out) {
    toid_gen *g = process_gen(f);
    if (!g || !out)
        return TOID_EINVAL;
    return produce_one(g, toid__format_of(f), out, NULL);
}

int toid__new_text_general(toid_format f, char *out, size_t out_size) {
    toid_gen *g = process_gen(f);
    return g ? next_text(g, out, out_size) : TOID_EINVAL;
}

int toid_new(toid_format f, uint8_t *out) {
    const toid__format *fmt = toid__format_of(f);
    if (__builtin_expect(fmt != NULL && fmt->new_bin != NULL, 1))
        return fmt->new_bin(out);
    return toid__new_general(f, out);
}

int toid_new_text(toid_format f, char *out, size_t out_size) {
    const toid__format *fmt = toid__format_of(f);
    if (__builtin_expect(fmt != NULL && fmt->new_text != NULL, 1))
        return fmt->new_text(out, out_size);
    return toid__new_text_general(f, out, out_size);
}

int toid_new_batch(toid_format f, uint8_t *out, size_t n, size_t *made) {
    toid_gen *g = process_gen(f);
    return g ? toid_gen_batch(g, out, n, made) : TOID_EINVAL;
}

int toid_configure(const toid_gen_config *cfg) {
    toid_gen_config c;
    int64_t epoch;
    if (toid__resolve_config(cfg, TOID_FOR_CONFIGURE, &c, &epoch, NULL, 0) < 0)
        return TOID_EINVAL;
    if (c.flags & TOID_GEN_PER_THREAD) {
        bool taken = init_lock();
        per_thread_cfg[c.format] = c;
        if (++versions == 0)    /* 0 means off */
            versions = 1;
        __atomic_store_n(&per_thread_version[c.format], versions, __ATOMIC_RELEASE);
        __atomic_store_n(&toid__ready[c.format], NULL, __ATOMIC_RELEASE);    /* the entries come to process_gen */
        init_unlock(taken);
        return 0;
    }
    __atomic_store_n(&per_thread_version[c.format], 0, __ATOMIC_RELEASE);
    toid_gen *g = default_gen(cfg->format);
    int cancel;     /* init_mutex is held below, and waiting for a taking sleeps */
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
    bool taken = init_lock();
    /* in a forked child, first undo what the parent's threads left (the lock,
     * the ownership); then take g from another thread that owns it, so that
     * its next ID sees the new configuration; as the owner, change it inside
     * busy, so that a thread taking g by force meanwhile waits for the
     * change before it packs the state. A g nobody owns yet is changed
     * holding the lock only (not claimed: a program that configures in main
     * and makes IDs in other threads would otherwise find main the owner,
     * and go MANY at the first of them). */
    (void)check_fork(g, toid__format_of(toid__h(g)->cfg.format));
    uint64_t me = toid__self_id();
    uint32_t busy = 0;
    int in = 0;
    toid__lock(g);
    if (__atomic_load_n(&toid__h(g)->owner, __ATOMIC_ACQUIRE) != TOID__OWNER_NONE) {
        toid__unlock(g);
        while (owned_by(g, me) && (in = toid__enter_owned(g, me, &busy)) == 0)
            ;
        toid__lock(g);
    }
    /* The last ID stays the last when the new settings make IDs of the same
     * space (format, epoch, node, counter usage): the next ID sorts above
     * it, as without the call (a nanoflake of the same node and ms would
     * otherwise start again at sequence 0 and repeat IDs). Other settings
     * start a new stream (toid.h says so). The state of record is where it
     * was: the head (owned by us, or under the lock), or the word (MANY). */
    bool same_space = toid__h(g)->cfg.format == c.format && toid__h(g)->epoch_ms == epoch && toid__h(g)->cfg.node == c.node &&
                      toid__h(g)->cfg.counter_mode == c.counter_mode;
    toid__h(g)->cfg = c;
    toid__h(g)->epoch_ms = epoch;
    if (!same_space)
        forget_state(g);
    toid__h(g)->fork_generation = toid__fork_generation();
    toid__h(g)->state = TOID__GEN_READY;
    toid__unlock(g);
    if (in == 1)
        toid__leave_owned(g, busy);
    init_unlock(taken);
    pthread_setcancelstate(cancel, NULL);
    return 0;
}
