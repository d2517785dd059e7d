/* gen_owner.h — one thread's generator: the owner's bracket (gen.c's "one
 * thread's generator" explains the protocol), and the owner's one ID
 * specialised per format (toid__format's one, new_bin, new_text); the same
 * specialised ID for a generator several threads use: under the lock (ULID,
 * UUIDv7), or on a snapshot of the one-word state published by
 * compare-and-swap (the other ordered formats).
 *
 * Why a specialised ID: one ID per call is what users make most, and for a
 * generator that one thread uses (the common case) the generic path's
 * generality was most of what an ID cost above its clock read: the tick built
 * in a struct for any format, a division of the clock's microseconds, an
 * indirect call to the core and one from it to the entropy, two functions'
 * frames. Each format instantiates toid__owner_one() below with its own pure
 * core (TOID__ONE), so the core is inlined into one function with the tick,
 * its time span is a constant and its entropy a direct call; the protocol is
 * still written once, here, for every format. Anything unusual declines
 * (TOID__ESLOW) before changing anything, and gen.c's generic path does the
 * ID instead. For a generator several threads use the same holds (a
 * multi-threaded program's process-wide generator is nobody's for good, so
 * its every ID came to the generic path: 356 instructions for a ULID
 * against the owner's 166, 204 now; SCRU160 509, 349 now). */
#ifndef TOID_GEN_OWNER_H
#define TOID_GEN_OWNER_H
#include "clock.h"
#include "gen.h"
#include "simd.h"

#include <pthread.h>

/* g->owner: who may make IDs without an atomic read-modify-write. Any
 * other value is the owning thread. */
#define TOID__OWNER_NONE 0u       /* no thread has made an ID yet */
#define TOID__OWNER_MANY 1u       /* several threads: the lock or the CAS, for good */
#define TOID__OWNER_REVOKING 2u   /* a second thread is taking it from the owner */
#define TOID__OWNER_UNLOCKED 3u   /* TOID_GEN_UNLOCKED: whoever calls, on the caller's word that one thread does */

/* Internal, never returned to users: the owner's one-ID path declines; the
 * generic path makes the ID (nothing was changed). */
#define TOID__ESLOW (-1001)

static inline uint64_t toid__self_id(void) {
#if (defined(__x86_64__) || defined(__aarch64__)) && defined(__GNUC__) && (__GNUC__ >= 11 || defined(__clang__))
    return (uint64_t)(uintptr_t)__builtin_thread_pointer();
#else
    return (uint64_t)(uintptr_t)pthread_self();
#endif
}

/* Who the caller is, as g->owner names it. */
static inline uint64_t toid__caller_id(const toid_gen *g) {
    return (toid__h(g)->cfg.flags & TOID_GEN_UNLOCKED) ? TOID__OWNER_UNLOCKED : toid__self_id();
}

/* The owner's bracket around its IDs: busy made odd, then owner read again
 * (the disowner's membarrier does the rest). 1: in, make the IDs, then
 * toid__leave_owned; 0: g was taken meanwhile (settle, then lock or CAS);
 * TOID_EINVAL: busy was already odd, so a signal handler interrupted this
 * thread's own ID of g (it cannot wait for it, and must not repeat it).
 * busy counts up, odd inside an ID and even outside. */
static inline __attribute__((always_inline)) int toid__enter_owned(toid_gen *g, uint64_t me, uint32_t *busy) {
    uint32_t b = *busy = __atomic_load_n(&toid__h(g)->busy, __ATOMIC_RELAXED);
    if (__builtin_expect(b & 1u, 0))
        return TOID_EINVAL;
    __atomic_store_n(&toid__h(g)->busy, b + 1u, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (__builtin_expect(__atomic_load_n(&toid__h(g)->owner, __ATOMIC_RELAXED) == me, 1))
        return 1;
    __atomic_store_n(&toid__h(g)->busy, b + 2u, __ATOMIC_RELEASE);
    return 0;
}

/* Leaves the ID that toid__enter_owned entered at busy count `entered`. */
static inline __attribute__((always_inline)) void toid__leave_owned(toid_gen *g, uint32_t entered) {
    TOID__ASSERT(__atomic_load_n(&toid__h(g)->busy, __ATOMIC_RELAXED) == entered + 1u);
    __atomic_store_n(&toid__h(g)->busy, entered + 2u, __ATOMIC_RELEASE);
}

/* The generator's lock (gen.c describes it): the uncontended halves, inline;
 * gen.c's contended halves back off, then sleep, and wake sleepers. */
void toid__lock_contended(toid_gen *g) TOID__HIDDEN;
void toid__unlock_sleepers(toid_gen *g) TOID__HIDDEN;

static inline __attribute__((always_inline)) void toid__lock(toid_gen *g) {
    if (toid__h(g)->cfg.flags & TOID_GEN_UNLOCKED)
        return;
    int c = 0;
    if (__builtin_expect(!__atomic_compare_exchange_n(&toid__h(g)->lock, &c, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED), 0))
        toid__lock_contended(g);
}

static inline __attribute__((always_inline)) void toid__unlock(toid_gen *g) {
    if (toid__h(g)->cfg.flags & TOID_GEN_UNLOCKED)
        return;
    if (__builtin_expect(__atomic_load_n(&toid__h(g)->lock, __ATOMIC_RELAXED) == 1, 1))
        __atomic_store_n(&toid__h(g)->lock, 0, __ATOMIC_RELEASE);
    else
        toid__unlock_sleepers(g);
}

/* g is this process's to use as it is: no fork since it was last checked,
 * and not a node format's child copy awaiting toid_gen_init. */
static inline __attribute__((always_inline)) bool toid__fork_checked(const toid_gen *g) {
    return toid__fork_generation_seen() == __atomic_load_n(&toid__h(g)->fork_generation, __ATOMIC_ACQUIRE) &&
           !(toid__h(g)->state & TOID__GEN_FORKED);
}

/* The owner's entropy: the thread's CSPRNG itself (it may make a system
 * call to seed or reseed: the owner holds no lock). */
static inline int toid__owner_entropy(void *ctx, uint8_t *buf, size_t n) {
    (void)ctx;
    return toid_random_bytes(buf, n);
}

/* The lock holder's: the thread's CSPRNG if it needs no system call (no
 * seeding or reseeding under the lock); else TOID__ERETRY, and the core's
 * error makes the path decline: the generic path readies it first. */
static inline int toid__locked_entropy(void *ctx, uint8_t *buf, size_t n) {
    (void)ctx;
    return toid__random_bytes_if_ready(buf, n);
}

/* Tests: the path for a nobody's generator (under the lock or by
 * compare-and-swap) declines, so that a twin generator shows what the
 * generic path makes. */
extern int toid__test_nobodys_one_off TOID__HIDDEN;

/* How toid__owner_one holds g (a constant at each call). */
typedef enum toid__hold {
    TOID__AS_OWNER,     /* g->owner names the caller: plain stores inside busy */
    TOID__UNDER_LOCK,   /* MANY, a format whose state is not one word (ULID, UUIDv7): the lock */
    TOID__BY_CAS        /* MANY, a format whose state is one word: a snapshot, published by compare-and-swap */
} toid__hold;

/* Takes g for one ID on toid__owner_one's path: as its owner `me`
 * (toid__enter_owned's result), or as one of several threads (g->owner
 * was MANY): by its lock, or (BY_CAS) nothing to take. 1 when taken; 0
 * (the caller declines) when MANY no longer holds (only a fork's reset
 * moves it: a child's thread may have read its parent's MANY). Read with
 * acquire: disown stores MANY (release) without the lock, after the old
 * owner's last plain stores, and the lock alone does not order them before
 * our reads. */
static inline __attribute__((always_inline)) int toid__take_one(toid_gen *g, uint64_t me, toid__hold how,
                                                                uint32_t *busy) {
    if (how == TOID__AS_OWNER)
        return toid__enter_owned(g, me, busy);
    if (how == TOID__UNDER_LOCK)
        toid__lock(g);
    if (__builtin_expect(__atomic_load_n(&toid__h(g)->owner, __ATOMIC_ACQUIRE) == TOID__OWNER_MANY, 1))
        return 1;
    if (how == TOID__UNDER_LOCK)
        toid__unlock(g);
    return 0;
}

static inline __attribute__((always_inline)) void toid__give_one(toid_gen *g, toid__hold how,
                                                                 uint32_t busy) {
    if (how == TOID__UNDER_LOCK)
        toid__unlock(g);
    else if (how == TOID__AS_OWNER)
        toid__leave_owned(g, busy);
}

/* One ID of g, with `core` inlined, for a caller that found g->owner
 * naming it, `me` (toid__caller_id); or MANY in a generator not in shared
 * memory: then under the lock, or for a format whose state is one word on
 * a snapshot of that word published by compare-and-swap, as the generic
 * path would take it. The ID's TOID_ST_* status bits (>= 0); TOID_EINVAL
 * for a call that re-entered this thread's own ID of g (a signal handler:
 * see toid__enter_owned); or TOID__ESLOW (a fork, the clock behind the last
 * ID or outside the span, any error of the core, g taken meanwhile, the
 * CSPRNG not ready under the lock, the compare-and-swap lost). Nothing was
 * changed unless it returns >= 0. The clock (or the hook) is read once,
 * before g is taken. */
static inline __attribute__((always_inline)) int
toid__owner_one(toid_gen *g, uint64_t me, uint8_t *out, const toid__format *fmt,
                int (*core)(toid__core *, uint8_t *), toid__hold how) {
    toid_gen_head *h = toid__h(g), snap;
    if (__builtin_expect(!toid__fork_checked(g), 0))
        return TOID__ESLOW;
    struct timespec ts;
    toid__clock_timespec(&ts);
    uint32_t ns = (uint32_t)ts.tv_nsec;
    uint32_t busy = 0;
    int in = toid__take_one(g, me, how, &busy);
    if (__builtin_expect(in != 1, 0))
        return in < 0 ? in : TOID__ESLOW;   /* re-entered: refused before touching anything */
    uint64_t word = 0;
    if (how == TOID__BY_CAS) {  /* the core works on a copy; the word is the state of record */
        word = __atomic_load_n(&toid__h(g)->word, __ATOMIC_ACQUIRE);
        snap.cfg = toid__h(g)->cfg;
        snap.epoch_ms = toid__h(g)->epoch_ms;
        if (fmt->unpack)
            fmt->unpack(word, &snap);
        h = &snap;
    }
    /* make_tick's work for the common case. In the last ID's ms, found by
     * comparing the reading with where that ms starts (kept by the last
     * ID that opened a ms; not by the compare-and-swap, whose threads
     * could not keep it consistent) rather than by converting it: the ID
     * then depends on the clock only through a predicted branch, not
     * through a chain of multiplies after the read (the clock's read is
     * ordered, so such a chain delays the next ID's). Else, converted: not
     * behind the last ID (none reads INT64_MIN), inside the span. */
    int64_t ms = h->last_ms;
    bool same = how != TOID__BY_CAS && ts.tv_sec == h->tick_sec && ns - h->tick_ns < 1000000u && h->tick_ms == ms;
    if (!same) {
        ms = (int64_t)ts.tv_sec * 1000 + ns / 1000000u;
        if (__builtin_expect(ms < h->last_ms || (((uint64_t)ms - (uint64_t)h->epoch_ms) >> fmt->info.ts_bits), 0)) {
            toid__give_one(g, how, busy);
            return TOID__ESLOW;
        }
        same = ms == h->last_ms;
    }
    toid__core c;
    c.g = h;
    c.seen = NULL;
    c.entropy = how == TOID__UNDER_LOCK ? toid__locked_entropy : toid__owner_entropy;
    c.ctx = NULL;
    c.status = 0;
    c.t.ms = ms;
    c.t.micros = ns / 1000u % 1000u;
    c.t.same = same;
    c.t.may_advance = h->cfg.on_exhausted == TOID_EXHAUSTED_ADVANCE;
    int rc = core(&c, out);
    if (__builtin_expect(rc == 0, 1)) {
        rc = (int)c.status;
        if (how == TOID__BY_CAS) {
            if (!fmt->pack || !__atomic_compare_exchange_n(&toid__h(g)->word, &word, fmt->pack(&snap), false, __ATOMIC_ACQ_REL,
                                             __ATOMIC_RELAXED))
                rc = TOID__ESLOW;   /* another thread published first: the generic path redoes it */
        } else if (!same) {     /* where ms starts, for the IDs after (valid while ms stays the last ID's) */
            h->tick_sec = ts.tv_sec;
            h->tick_ns = ns - ns % 1000000u;
            h->tick_ms = ms;
        }
    } else {
        rc = TOID__ESLOW;
    }
    toid__give_one(g, how, busy);
    return rc;
}

/* One ID of g on toid__owner_one's path, if g takes it: owned by the
 * caller, or MANY outside shared memory; TOID__ESLOW otherwise. */
static inline __attribute__((always_inline)) int
toid__gen_one(toid_gen *g, uint8_t *out, const toid__format *fmt, int (*core)(toid__core *, uint8_t *)) {
    uint64_t o = __atomic_load_n(&toid__h(g)->owner, __ATOMIC_RELAXED), me = toid__caller_id(g);
    if (__builtin_expect(o == me, 1))
        return toid__owner_one(g, me, out, fmt, core, TOID__AS_OWNER);
    if (o == TOID__OWNER_MANY && !(toid__h(g)->cfg.flags & TOID_GEN_SHARED) &&
        !__atomic_load_n(&toid__test_nobodys_one_off, __ATOMIC_RELAXED))
        return toid__owner_one(g, me, out, fmt, core, fmt->pack ? TOID__BY_CAS : TOID__UNDER_LOCK);
    return TOID__ESLOW;
}

/* The process-wide generators (gen.c): each format's once initialised, NULL
 * before; and toid_new / toid_new_text for any caller, which the entries
 * below fall back on. */
extern toid_gen *toid__ready[TOID_FORMAT_COUNT] TOID__HIDDEN;
int toid__new_general(toid_format f, uint8_t *out) TOID__HIDDEN;
int toid__new_text_general(toid_format f, char *out, size_t out_size) TOID__HIDDEN;

/* The process-wide generator of fmt, once set up: its one ID by `core`
 * (toid__gen_one's result); TOID__ESLOW before. */
static inline __attribute__((always_inline)) int
toid__process_one(uint8_t *out, const toid__format *fmt, int (*core)(toid__core *, uint8_t *)) {
    toid_gen *g = __atomic_load_n(&toid__ready[fmt->info.format], __ATOMIC_ACQUIRE);
    return __builtin_expect(g != NULL, 1) ? toid__gen_one(g, out, fmt, core) : TOID__ESLOW;
}

/* A format's owner entries (its toid__format's one, new_bin and new_text),
 * `fmt` being a toid__format defined in the same file and `core` its pure
 * core:
 *   name:          one ID of g by toid__gen_one (the `one` slot);
 *   name##_new:    toid_new of the format, whole: the process-wide generator
 *                  by toid__gen_one, else toid__new_general;
 *   name##_text:   toid_new_text of the format, the same way, encoding with
 *                  the level's encoder.
 * toid_new and toid_new_text jump to them, so one function makes the ID. */
#define TOID__ONE(name, fmt, core) \
    static int name(toid_gen *g, uint8_t *out) { return toid__gen_one(g, out, &(fmt), core); } \
    static int name##_new(uint8_t *out) { \
        int st = out ? toid__process_one(out, &(fmt), core) : TOID__ESLOW; \
        if (__builtin_expect(st >= 0, 1)) \
            return 0; \
        return st == TOID_EINVAL ? st : toid__new_general((fmt).info.format, out); \
    } \
    static int name##_text(char *out, size_t out_size) { \
        uint8_t bin[TOID_BIN_MAX]; \
        int st = out && out_size > (fmt).info.text_len ? toid__process_one(bin, &(fmt), core) : TOID__ESLOW; \
        if (__builtin_expect(st >= 0, 1)) { \
            toid__encoder(&(fmt))(bin, out); \
            out[(fmt).info.text_len] = '\0'; \
            return (int)(fmt).info.text_len; \
        } \
        return st == TOID_EINVAL ? st : toid__new_text_general((fmt).info.format, out, out_size); \
    }
#endif
