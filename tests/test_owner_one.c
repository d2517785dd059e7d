/* test_owner_one.c — the one-ID path of src/gen_owner.h (each format's pure
 * core inlined with the tick, which finds the last ID's ms by comparing the
 * clock's reading with where that ms starts) gives what the generic path
 * gives, both for the generator's owner and for a generator several threads
 * use (under the lock: ULID, UUIDv7; by compare-and-swap: the formats whose
 * state is one word). Each case drives two generators of the same
 * configuration with the same scripted clock (toid_set_clock): the first
 * owned by this thread, or (the "nobody's" cases) made nobody's while
 * ownership is switched off, as without membarrier(2); the second nobody's
 * and with the specialised path switched off for it, so that every ID
 * takes the generic path (the lock or the compare-and-swap, and the
 * generic tick). At each step both must return the same code and status
 * and IDs of the same ms; nanoflake, which draws no random bytes, the same
 * bytes. The script walks through ms and second boundaries, steps back
 * within and across seconds, bursts that exhaust a ms, and calls of the
 * generic path on the owned generator in between (batches, toid_gen_next_at)
 * that move its last ms behind the specialised path's back.
 *   usage: test_owner_one [--list] [CASE...] [STEPS]
 */
#define _GNU_SOURCE
#include "check.h"
#include "toid.h"
#include "../src/gen_state.h"     /* white box: the generator's state */

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

extern int toid__test_owner_off, toid__test_nobodys_one_off;
extern toid_gen *toid__ready[TOID_FORMAT_COUNT];

static long steps = 3000;
static long failed_before;      /* check_failed when the case began: a walk stops at its first failure */

/* The scripted clock's start, in µs: a whole second a day before the real
 * clock (setup), so that the process-wide generators the cases leave
 * behind are behind the real clock, not ahead of it. */
static int64_t t0_us;
#define T0 t0_us

static int64_t clock_us;
static long clock_reads;        /* the scripted clock's readings so far */
static int64_t scripted(void *ctx) {
    (void)ctx;
    clock_reads++;
    return __atomic_load_n(&clock_us, __ATOMIC_RELAXED);
}

static int ones_entropy(void *ctx, uint8_t *buf, size_t n) {
    (void)ctx;
    memset(buf, 1, n);
    return 0;
}

/* The generic twin's IDs: with gen_owner.h's path for a nobody's generator declined. */
static int generic_next(toid_gen *g, uint8_t *out, unsigned *st) {
    toid__test_nobodys_one_off = 1;
    int rc = toid_gen_next(g, out, st);
    toid__test_nobodys_one_off = 0;
    return rc;
}

static int generic_next_text(toid_gen *g, char *out, size_t size) {
    toid__test_nobodys_one_off = 1;
    int rc = toid_gen_next_text(g, out, size);
    toid__test_nobodys_one_off = 0;
    return rc;
}

/* The formats updated under the lock (the others, one word, by a
 * compare-and-swap). Only the lock's path keeps where the last ms starts
 * (tick_ms), which shows that the specialised path made an ID. */
static bool lock_format(toid_format f) { return f == TOID_ULID || f == TOID_UUIDV7; }

typedef struct twin {
    toid_format f;
    toid_gen *owned, *generic;
    uint8_t last_owned[TOID_BIN_MAX], last_generic[TOID_BIN_MAX];
    bool any;
    bool may_reset;     /* uuidv7 RESET: IDs may start afresh, lower */
    bool see_path;      /* tick_ms shows the specialised path's IDs (not by compare-and-swap) */
    long by_one_read;   /* IDs of the first twin that read the clock once (a declined path reads it again) */
    long by_owner_path; /* IDs that opened a ms on the owned twin, seen to take the specialised path */
    long same_bytes, compared;
} twin;

static toid_gen *new_gen(const toid_gen_config *c) {
    size_t size = toid_gen_size(c->format);
    toid_gen *g = aligned_alloc(64, (size + 63) / 64 * 64);
    if (!g || toid_gen_init_size(g, size, c) < 0)
        abort();
    return g;
}

/* Policies that never wait (a wait would read the real clock's passing). */
static void twin_init(twin *t, toid_format f, toid_on_behind behind, uint32_t allow_ms, bool locked) {
    toid_gen_config c;
    toid_gen_config_default(f, &c);
    c.on_exhausted = f == TOID_UUIDV7 ? TOID_EXHAUSTED_ADVANCE : TOID_EXHAUSTED_ERROR;
    c.on_behind = behind;
    c.behind_allow_ms = allow_ms;
    memset(t, 0, sizeof *t);
    t->f = f;
    t->may_reset = behind == TOID_BEHIND_RESET;
    t->see_path = !locked || lock_format(f);
    t->owned = new_gen(&c);
    t->generic = new_gen(&c);
    __atomic_store_n(&clock_us, T0 - 10000000, __ATOMIC_RELAXED);
    uint8_t id[TOID_BIN_MAX];
    toid__test_owner_off = 1;       /* the generic twin's first ID makes it nobody's */
    CHECK_EQ_INT(generic_next(t->generic, id, NULL), 0);
    toid__test_owner_off = locked;
    CHECK_EQ_INT(toid_gen_next(t->owned, id, NULL), 0);
    toid__test_owner_off = 0;
    if (locked)
        CHECK_MSG(toid__h(t->owned)->owner == 1, "%s: nobody owns the first generator", toid_format_get(f)->name);
    else
        CHECK_MSG(toid__h(t->owned)->owner > 3, "%s: this thread owns the first generator", toid_format_get(f)->name);
    CHECK_MSG(toid__h(t->generic)->owner == 1, "%s: nobody owns the second", toid_format_get(f)->name);
}

static void twin_free(twin *t) {
    free(t->owned);
    free(t->generic);
}

static int64_t ms_of(const twin *t, const uint8_t *id) {
    int64_t ms = INT64_MIN;
    toid_time_of(t->f, id, toid__h(t->owned)->epoch_ms, &ms);
    return ms;
}

/* Checks two results of one step, and each generator's order. */
static void compare(twin *t, const char *what, int ra, const uint8_t *a, unsigned sa, int rb, const uint8_t *b,
                    unsigned sb) {
    const char *name = toid_format_get(t->f)->name;
    size_t n = toid_bin_size(t->f);
    int64_t now = __atomic_load_n(&clock_us, __ATOMIC_RELAXED) - T0;
    /* The random bits running out (ulid-flake's random increments) is the
     * one result that may differ: each twin drew its own. */
    if (ra != rb && (ra == TOID_EOVERFLOW || rb == TOID_EOVERFLOW))
        return;
    CHECK_MSG(ra == rb, "%s %s at T0%+lld us: owned path %d, generic %d", name, what, (long long)now, ra, rb);
    if (ra != 0 || rb != 0)
        return;
    CHECK_MSG(sa == sb, "%s %s at T0%+lld us: status %u, generic %u", name, what, (long long)now, sa, sb);
    CHECK_MSG(ms_of(t, a) == ms_of(t, b), "%s %s at T0%+lld us: ms %lld, generic %lld", name, what,
              (long long)now, (long long)ms_of(t, a), (long long)ms_of(t, b));
    if (t->f == TOID_NANOFLAKE)     /* no random bits: the very same ID */
        CHECK_MSG(memcmp(a, b, n) == 0, "%s %s at T0%+lld us: not the generic path's ID", name, what,
                  (long long)now);
    t->compared++;
    t->same_bytes += memcmp(a, b, n) == 0;
    /* order, unless a reset (seen in the status; text and batches give none) */
    if (t->any && !(t->may_reset && (sa == 0 || (sa & TOID_ST_RESET)))) {
        CHECK_MSG(memcmp(t->last_owned, a, n) < 0, "%s %s at T0%+lld us: owned path out of order", name, what,
                  (long long)now);
        CHECK_MSG(memcmp(t->last_generic, b, n) < 0, "%s %s: generic path out of order", name, what);
    }
    memcpy(t->last_owned, a, n);
    memcpy(t->last_generic, b, n);
    t->any = true;
}

/* One ID from each at the scripted time, as binary or as text. */
static void step(twin *t, bool text) {
    uint8_t a[TOID_BIN_MAX], b[TOID_BIN_MAX];
    unsigned sa = 0, sb = 0;
    int ra, rb;
    if (text) {
        char ta[TOID_TEXT_MAX], tb[TOID_TEXT_MAX];
        ra = toid_gen_next_text(t->owned, ta, sizeof ta);
        rb = generic_next_text(t->generic, tb, sizeof tb);
        if (ra > 0 && toid_decode(t->f, ta, (size_t)ra, a, NULL) < 0)
            ra = -999;
        if (rb > 0 && toid_decode(t->f, tb, (size_t)rb, b, NULL) < 0)
            rb = -999;
        ra = ra > 0 ? 0 : ra;
        rb = rb > 0 ? 0 : rb;
        sa = sb = 0;
    } else {
        long reads = clock_reads;
        ra = toid_gen_next(t->owned, a, &sa);
        t->by_one_read += ra == 0 && clock_reads - reads == 1;
        rb = generic_next(t->generic, b, &sb);
        /* an ID that opened a ms came from the specialised path, which alone
         * keeps where that ms starts (a reset is the generic path's) */
        if (t->see_path && ra == 0 && (sa & TOID_ST_NEW_MS) && !(sa & TOID_ST_RESET)) {
            CHECK_MSG(toid__h(t->owned)->tick_ms == toid__h(t->owned)->last_ms, "%s: the owner's path did not make the ID",
                      toid_format_get(t->f)->name);
            t->by_owner_path++;
        }
    }
    compare(t, text ? "text" : "next", ra, a, sa, rb, b, sb);
}

/* The generic path on both (the owned one's last ms then moves without the
 * specialised path). */
static void generic_on_both(twin *t, unsigned kind) {
    uint8_t a[3 * TOID_BIN_MAX], b[3 * TOID_BIN_MAX];
    size_t n = toid_bin_size(t->f);
    if (kind == 0) {
        size_t ma = 0, mb = 0;
        int ra = toid_gen_batch(t->owned, a, 3, &ma);
        int rb = toid_gen_batch(t->generic, b, 3, &mb);
        if (ra != TOID_EOVERFLOW && rb != TOID_EOVERFLOW)
            CHECK_MSG(ma == mb, "%s batch: %zu and %zu made", toid_format_get(t->f)->name, ma, mb);
        for (size_t k = 0; k < ma && k < mb; k++)
            compare(t, "batch", 0, a + k * n, 0, 0, b + k * n, 0);
        if (ma == 0 || mb == 0)
            compare(t, "batch", ra < 0 ? ra : 0, a, 0, rb < 0 ? rb : 0, b, 0);
    } else {
        /* a later ms than the clock's (the state moves ahead of the clock) */
        int64_t ms = __atomic_load_n(&clock_us, __ATOMIC_RELAXED) / 1000 + (int64_t)kind;
        unsigned sa = 0, sb = 0;
        int ra = toid_gen_next_at(t->owned, ms, 0, ones_entropy, NULL, a, &sa);
        int rb = toid_gen_next_at(t->generic, ms, 0, ones_entropy, NULL, b, &sb);
        compare(t, "next_at", ra, a, sa, rb, b, sb);
    }
}

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* The scripted walk: fixed edges first, then `steps` random moves. */
static void walk(twin *t) {
    static const int64_t edges[] = {
        0, 0, 1, 999, 1000, 1000, 1999, 2500, 1500 /* back 1 ms */, 2999, 3000,
        999999, 1000000 /* a new second */, 1000999, 2000500, 2000400 /* earlier in the same ms */,
        1999999 /* back into the second before */, 5000000,
    };
    for (size_t k = 0; k < sizeof edges / sizeof edges[0]; k++) {
        __atomic_store_n(&clock_us, T0 + edges[k], __ATOMIC_RELAXED);
        step(t, k % 3 == 2);
    }
    if (check_failed > failed_before)
        return;
    /* a burst in one ms: sequences and counters run out the same way */
    __atomic_store_n(&clock_us, T0 + 6000000, __ATOMIC_RELAXED);
    for (int k = 0; k < 4100; k++)
        step(t, false);
    /* far behind, beyond the allowance, then forward again */
    __atomic_store_n(&clock_us, T0 - 20000000, __ATOMIC_RELAXED);
    step(t, false);
    int64_t now = T0 + 7000000;
    static const int64_t moves[] = {0, 0, 1, 7, 250, 999, 1000, 1001, 2000, -300, -1000, -1500, 999000, 1000000};
    for (long k = 0; k < steps; k++) {
        uint64_t r = rnd();
        now += moves[r % (sizeof moves / sizeof moves[0])];
        __atomic_store_n(&clock_us, now, __ATOMIC_RELAXED);
        unsigned what = (unsigned)(r >> 32) % 16;
        if (what == 0)
            generic_on_both(t, 0);
        else if (what == 1)
            generic_on_both(t, 1 + (unsigned)(r >> 40) % 3);
        else
            step(t, what == 2);
        if (check_failed > failed_before)
            return;
    }
}

static void walk_format(toid_format f, toid_on_behind behind, uint32_t allow_ms, bool locked) {
    failed_before = check_failed;
    toid_set_clock(scripted, NULL);
    twin t;
    twin_init(&t, f, behind, allow_ms, locked);
    walk(&t);
    if (t.see_path)
        CHECK_MSG(t.by_owner_path > 100, "%s: %ld IDs opened a ms on the %s path", toid_format_get(f)->name,
                  t.by_owner_path, locked ? "locked" : "owner's");
    else    /* by compare-and-swap: the IDs made without a second clock reading
             * (a path that declined after its reading would have read it
             * again in the generic path; one that declined before reading
             * is not seen here: bench/callgrind_counts.sh's shared column is) */
        CHECK_MSG(t.by_one_read > 100, "%s: %ld IDs on the compare-and-swap path", toid_format_get(f)->name,
                  t.by_one_read);
    twin_free(&t);
    toid_set_clock(NULL, NULL);
    if (f == TOID_NANOFLAKE)
        CHECK_MSG(t.same_bytes == t.compared || check_failed > failed_before,
                  "nanoflake: %ld of %ld IDs the same bytes", t.same_bytes, t.compared);
}

/* Each ordered format, with the clock-behind policy that keeps the last ms
 * (the step backs are then IDs, with TOID_ST_ROLLBACK), and with the one
 * that refuses them (TOID_ECLOCK from both). */
TEST_CASE(same_as_generic_keep) {
    for (int k = 0; k < TOID_FORMAT_COUNT; k++) if (GENERATES(k))
        if (!toid_format_get((toid_format)k)->random_order)
            walk_format((toid_format)k, TOID_BEHIND_KEEP, 10000, false);
}

TEST_CASE(same_as_generic_error) {
    for (int k = 0; k < TOID_FORMAT_COUNT; k++) if (GENERATES(k))
        if (!toid_format_get((toid_format)k)->random_order)
            walk_format((toid_format)k, TOID_BEHIND_ERROR, 0, false);
}

TEST_CASE(uuidv7_reset) {
    walk_format(TOID_UUIDV7, TOID_BEHIND_RESET, 2, false);
}

/* The same walks on a generator nobody owns, whose IDs then take the path
 * under the lock or by compare-and-swap: each ordered format, each policy. */
TEST_CASE(nobodys_same_as_generic) {
    for (int k = 0; k < TOID_FORMAT_COUNT; k++) if (GENERATES(k))
        if (!toid_format_get((toid_format)k)->random_order) {
            walk_format((toid_format)k, TOID_BEHIND_KEEP, 10000, true);
            walk_format((toid_format)k, TOID_BEHIND_ERROR, 0, true);
        }
    walk_format(TOID_UUIDV7, TOID_BEHIND_RESET, 2, true);
}

/* Times outside the span (before a configurable epoch, past its last ms):
 * TOID_ERANGE from both, and nothing changed. */
TEST_CASE(outside_span) {
    failed_before = check_failed;
    toid_set_clock(scripted, NULL);
    for (int k = 0; k < TOID_FORMAT_COUNT; k++) if (GENERATES(k)) {
        toid_format f = (toid_format)k;
        const toid_format_info *info = toid_format_get(f);
        if (info->random_order || !info->epoch_configurable)
            continue;
        for (int top = 0; top < 2; top++) {
            toid_gen_config c;
            toid_gen_config_default(f, &c);
            c.on_behind = TOID_BEHIND_ERROR;
            /* the span starts at T0; or the clock nears its end, at base */
            if (!top)
                c.epoch_ms = T0 / 1000;
            twin t = {.f = f};
            t.owned = new_gen(&c);
            t.generic = new_gen(&c);
            static const int64_t script[2][6] = {
                {-5000, -1, 0, 0, 1500, 999},           /* before the epoch, then in */
                {0, 1000, 3999, 4000, 4001, 1000000},   /* up to the last ms, then past it */
            };
            int64_t last_ms = toid__h(t.owned)->epoch_ms + (INT64_C(1) << info->ts_bits) - 1;
            int64_t base = top ? (last_ms - 3) * 1000 : T0;
            for (int i = 0; i < 6; i++) {
                __atomic_store_n(&clock_us, base + script[top][i], __ATOMIC_RELAXED);
                uint8_t a[TOID_BIN_MAX], b[TOID_BIN_MAX];
                unsigned sa = 0, sb = 0;
                int ra = toid_gen_next(t.owned, a, &sa);
                toid__test_owner_off = 1;
                int rb = generic_next(t.generic, b, &sb);
                toid__test_owner_off = 0;
                compare(&t, top ? "past the span" : "before the epoch", ra, a, sa, rb, b, sb);
            }
            CHECK_MSG(toid__h(t.owned)->owner > 3, "%s: owned", info->name);
            twin_free(&t);
        }
    }
    toid_set_clock(NULL, NULL);
}

static void *one_of_each(void *arg) {
    (void)arg;
    uint8_t id[TOID_BIN_MAX];
    for (int k = 0; k < TOID_FORMAT_COUNT; k++) if (GENERATES(k))
        toid_new((toid_format)k, id);
    return NULL;
}

/* toid_new and toid_new_text (each format's own entry) against a generic
 * twin: on the process-wide generator that this thread then owns; or
 * (locked) once another thread has made an ID too, so that they are
 * nobody's and their IDs take the lock or the compare-and-swap. */
static void process_wide(bool locked) {
    failed_before = check_failed;
    toid_set_clock(scripted, NULL);
    /* the nobody's walk starts later than any other case leaves the
     * process-wide generators (process_wide_entries: about 1 s after T0,
     * and nanoflake's last ID at the real clock, a day after T0), so that
     * its IDs follow the clock rather than the last ms */
    int64_t base = locked ? T0 + INT64_C(2) * 86400 * 1000000 : T0;
    if (locked) {   /* IDs from another thread, then this one: the generators are nobody's */
        __atomic_store_n(&clock_us, base, __ATOMIC_RELAXED);
        pthread_t th;
        pthread_create(&th, NULL, one_of_each, NULL);
        pthread_join(th, NULL);
        one_of_each(NULL);
    }
    for (int k = 0; k < TOID_FORMAT_COUNT; k++) if (GENERATES(k)) {
        toid_format f = (toid_format)k;
        if (toid_format_get(f)->random_order)
            continue;
        toid_gen_config c;
        toid_gen_config_default(f, &c);
        toid_gen *generic = new_gen(&c);
        uint8_t a[TOID_BIN_MAX], b[TOID_BIN_MAX];
        char text[TOID_TEXT_MAX];
        twin t = {.f = f, .owned = generic, .generic = generic};
        int64_t us = base + 123456;
        long opened = 0;
        for (int i = 0; i < 3000; i++) {
            us += (int64_t)(rnd() % 700);
            __atomic_store_n(&clock_us, us, __ATOMIC_RELAXED);
            toid_gen *pw = __atomic_load_n(&toid__ready[f], __ATOMIC_ACQUIRE);
            int64_t before = pw ? toid__h(pw)->last_ms : INT64_MIN;
            int ra;
            if (i % 2) {
                ra = toid_new_text(f, text, sizeof text);
                if (ra > 0)
                    ra = toid_decode(f, text, (size_t)ra, a, NULL) < 0 ? -999 : 0;
            } else {
                ra = toid_new(f, a);
            }
            pw = __atomic_load_n(&toid__ready[f], __ATOMIC_ACQUIRE);
            if (locked && lock_format(f) && ra == 0 && toid__h(pw)->last_ms != before) {
                /* a ms opened on the path under the lock, which keeps where it starts */
                CHECK_MSG(toid__h(pw)->owner == 1 && toid__h(pw)->tick_ms == toid__h(pw)->last_ms,
                          "%s: the process-wide generator's ID did not take the locked path", toid_format_get(f)->name);
                opened++;
            }
            toid__test_owner_off = i == 0;      /* the twin's first ID makes it nobody's */
            int rb = generic_next(generic, b, NULL);
            toid__test_owner_off = 0;
            compare(&t, i % 2 ? "toid_new_text" : "toid_new", ra, a, 0, rb, b, 0);
            if (check_failed > failed_before)
                break;
        }
        if (locked && lock_format(f))
            CHECK_MSG(opened > 100, "%s: %ld IDs opened a ms under the lock", toid_format_get(f)->name, opened);
        free(generic);
    }
    toid_set_clock(NULL, NULL);
}

TEST_CASE(process_wide_entries) {
    process_wide(false);
    uint8_t id[TOID_BIN_MAX];
    CHECK_EQ_INT(toid_new(TOID_NANOFLAKE, id), 0);      /* the real clock again */
    /* the errors of the entries are the general ones */
    CHECK_EQ_INT(toid_new(TOID_NANOFLAKE, NULL), TOID_EINVAL);
    CHECK_EQ_INT(toid_new_text(TOID_ULID, NULL, 27), TOID_EINVAL);
    char small[26];
    CHECK_EQ_INT(toid_new_text(TOID_ULID, small, sizeof small), TOID_EBUFFER);
    CHECK_EQ_INT(toid_new((toid_format)TOID_FORMAT_COUNT, id), TOID_EINVAL);
}

TEST_CASE(process_wide_nobodys) {
    process_wide(true);
}

static int setup(int nparam, char **param) {
    t0_us = (toid_clock_now(NULL) / 1000 - 86400) * 1000000;
    if (nparam > 0)
        steps = atol(param[0]);
    return steps > 0 ? 0 : 2;
}

int main(int argc, char **argv) { return check_main(argc, argv, setup, NULL); }
