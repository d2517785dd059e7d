/* test_owner.c — a generator used by one thread is that thread's (its IDs
 * take no atomic read-modify-write), and a call from another thread takes it
 * over for good (gen.c, "one thread's generator"; test_handover.c has many
 * fresh generators taken over under CPU contention). What must hold:
 *  - the first thread to make an ID owns the generator, a second thread's
 *    call ends that for good when the owner has stopped making IDs, and with
 *    ownership switched off (as without membarrier(2)) nobody owns it;
 *  - IDs stay unique and in order across the handover, when the owner made
 *    them one by one, in batches, or with toid_gen_next_at (a CAS format's
 *    state is then in the head, not the word, until the handover);
 *  - a handover while the owner is making IDs as fast as it can loses
 *    nothing and repeats
 *    nothing (many rounds, every format but uid11, whose values are random
 *    within a ms);
 *  - a forked child is not held up by an owner of the parent, even one caught
 *    in an ID; toid_configure takes a process-wide generator from its owner.
 * Built also under ThreadSanitizer (fewer rounds).
 *   usage: test_owner [--list] [CASE...] [ROUNDS]
 */
#define _GNU_SOURCE
#include "check.h"
#include "new_gen.h"
#include "toid.h"
#include "../src/gen_state.h"     /* white box: the generator's state */

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

extern int toid__test_owner_off;
typedef ssize_t (*getrandom_fn)(void *buf, size_t n, unsigned flags);
void toid__test_set_getrandom(getrandom_fn fn);
void toid__test_reseed_now(void);

#define OWNER_NONE 0u
#define OWNER_MANY 1u

static long rounds = 40;

static bool owned_by_thread(const toid_gen *g) { return toid__h(g)->owner > 2; }


static int ones_entropy(void *ctx, uint8_t *buf, size_t n) {
    (void)ctx;
    memset(buf, 1, n);
    return 0;
}

/* Formats whose IDs from one generator strictly increase. */
static bool ordered(toid_format f) { return !toid_format_get(f)->random_order; }

typedef struct one_call {
    toid_gen *g;
    uint8_t id[TOID_BIN_MAX];
    int rc;
} one_call;

static void *call_once(void *arg) {
    one_call *c = arg;
    c->rc = toid_gen_next(c->g, c->id, NULL);
    return NULL;
}

static int one_from_other_thread(toid_gen *g, uint8_t *id) {
    one_call c = {.g = g};
    pthread_t t;
    if (pthread_create(&t, NULL, call_once, &c) != 0)
        abort();
    pthread_join(t, NULL);
    memcpy(id, c.id, sizeof c.id);
    return c.rc;
}

TEST_CASE(claimed_then_taken_over) {
    for (int k = 0; k < TOID_FORMAT_COUNT; k++) if (GENERATES(k)) {
        toid_format f = (toid_format)k;
        toid_gen *g = new_gen(f);
        uint8_t a[TOID_BIN_MAX], b[TOID_BIN_MAX];
        size_t n = toid_bin_size(f);
        CHECK_EQ_INT(toid__h(g)->owner, OWNER_NONE);
        CHECK_EQ_INT(toid_gen_next(g, a, NULL), 0);
        CHECK_MSG(owned_by_thread(g), "%s: the first thread owns it", toid_format_get(f)->name);
        CHECK_EQ_INT(one_from_other_thread(g, b), 0);
        CHECK_EQ_INT(toid__h(g)->owner, OWNER_MANY);
        if (ordered(f))
            CHECK_MSG(memcmp(a, b, n) < 0, "%s: the other thread's ID follows the owner's",
                      toid_format_get(f)->name);
        else
            CHECK(memcmp(a, b, n) != 0);
        CHECK_EQ_INT(toid_gen_next(g, a, NULL), 0);     /* the first thread, now through the lock or CAS */
        CHECK_EQ_INT(toid__h(g)->owner, OWNER_MANY);
        if (ordered(f))
            CHECK(memcmp(b, a, n) < 0);
        free(g);
    }
}

TEST_CASE(nobody_owns_without_membarrier) {
    toid__test_owner_off = 1;
    toid_gen *g = new_gen(TOID_ULID);
    uint8_t a[16];
    CHECK_EQ_INT(toid_gen_next(g, a, NULL), 0);
    CHECK_EQ_INT(toid__h(g)->owner, OWNER_MANY);
    toid__test_owner_off = 0;
    free(g);
}

/* TOID_GEN_UNLOCKED: the owner's path for whoever calls (the caller promised
 * one thread), never claimed nor taken over; single IDs, batches and
 * toid_gen_next_at share one state (a CAS format's, in the head). */
TEST_CASE(unlocked_generator) {
    for (int k = 0; k < TOID_FORMAT_COUNT; k++) if (GENERATES(k)) {
        toid_format f = (toid_format)k;
        if (!ordered(f))
            continue;
        toid_gen_config c;
        toid_gen_config_default(f, &c);
        c.flags = TOID_GEN_UNLOCKED;
        c.on_exhausted = TOID_EXHAUSTED_WAIT;
        toid_gen u;
        CHECK_EQ_INT(toid_gen_init(&u, &c), 0);
        size_t n = toid_bin_size(f);
        uint8_t last[TOID_BIN_MAX], id[TOID_BIN_MAX], batch[4 * TOID_BIN_MAX];
        int bad = 0;
        CHECK_EQ_INT(toid_gen_next(&u, last, NULL), 0);
        for (int i = 0; i < 300; i++) {
            const uint8_t *first = id, *newest = id;
            unsigned us;
            int64_t ms = toid_clock_now(&us);
            if (i % 3 == 0) {
                bad += toid_gen_next(&u, id, NULL) < 0;
            } else if (i % 3 == 1) {
                int rc = toid_gen_next_at(&u, ms, us, ones_entropy, NULL, id, NULL);
                if (rc == TOID_EOVERFLOW || rc == TOID_EEXHAUSTED)
                    continue;   /* the ms is full: next_at leaves the wait to its caller */
                bad += rc < 0;
            } else {
                bad += toid_gen_batch(&u, batch, 4, NULL) != 4;
                first = batch;
                newest = batch + 3 * n;
            }
            bad += memcmp(last, first, n) >= 0;
            memcpy(last, newest, n);
        }
        CHECK_MSG(bad == 0, "%s: %d IDs out of order", toid_format_get(f)->name, bad);
        CHECK_MSG(toid__h(&u)->owner == 3, "%s: UNLOCKED keeps its own mark (owner %llu)", toid_format_get(f)->name,
                  (unsigned long long)toid__h(&u)->owner);
    }
}

/* The owner mixes single IDs, batches and toid_gen_next_at; then another
 * thread's ID must follow all of them. A CAS format keeps its state in the
 * head while owned: a handover that forgot to write it back to the word
 * would restart from an old state and repeat or reorder IDs. */
TEST_CASE(owner_state_handed_over) {
    for (int k = 0; k < TOID_FORMAT_COUNT; k++) if (GENERATES(k)) {
        toid_format f = (toid_format)k;
        if (!ordered(f))
            continue;
        toid_gen *g = new_gen(f);
        size_t n = toid_bin_size(f);
        uint8_t last[TOID_BIN_MAX], id[TOID_BIN_MAX], batch[8 * TOID_BIN_MAX];
        int bad = 0;
        CHECK_EQ_INT(toid_gen_next(g, last, NULL), 0);
        for (int i = 0; i < 200; i++) {
            const uint8_t *newest;
            if (i % 3 == 0) {
                if (toid_gen_batch(g, batch, 8, NULL) != 8)
                    bad++;
                for (int j = 1; j < 8; j++)
                    bad += memcmp(batch + (j - 1) * n, batch + j * n, n) >= 0;
                bad += memcmp(last, batch, n) >= 0;
                newest = batch + 7 * n;
            } else if (i % 3 == 1) {
                unsigned us;
                int64_t ms = toid_clock_now(&us);
                int rc = toid_gen_next_at(g, ms, us, ones_entropy, NULL, id, NULL);
                if (rc == TOID_EOVERFLOW || rc == TOID_EEXHAUSTED)
                    continue;   /* the ms is full: next_at leaves the wait to its caller */
                bad += rc < 0;
                bad += memcmp(last, id, n) >= 0;
                newest = id;
            } else {
                if (toid_gen_next(g, id, NULL) < 0)
                    bad++;
                bad += memcmp(last, id, n) >= 0;
                newest = id;
            }
            memcpy(last, newest, n);
        }
        CHECK_MSG(bad == 0, "%s: %d IDs out of order while owned", toid_format_get(f)->name, bad);
        CHECK(owned_by_thread(g));
        CHECK_EQ_INT(one_from_other_thread(g, id), 0);
        CHECK_MSG(memcmp(last, id, n) < 0, "%s: the handover kept the owner's last state",
                  toid_format_get(f)->name);
        free(g);
    }
}

/* ---- a handover while the owner makes IDs flat out ---- */

#define OWNER_IDS 200000   /* at most: the owner stops when the taker is done */
#define TAKER_IDS 2000

typedef struct race {
    toid_gen *g;
    toid_format f;
    uint8_t *ids;
    long made;          /* by the thread */
    int errors, disorder;
    int *stop;          /* the owner's: set when the taker is done */
} race;

static void *race_thread(void *arg) {
    race *r = arg;
    size_t n = toid_bin_size(r->f);
    long want = r->stop ? OWNER_IDS : TAKER_IDS;
    for (long i = 0; i < want && !(r->stop && __atomic_load_n(r->stop, __ATOMIC_ACQUIRE)); i++) {
        uint8_t *slot = r->ids + (size_t)i * n;
        if (toid_gen_next(r->g, slot, NULL) < 0) {
            r->errors++;
            break;
        }
        if (i && ordered(r->f) && memcmp(slot - n, slot, n) >= 0)
            r->disorder++;
        __atomic_store_n(&r->made, i + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

static size_t cmp_size;
static int cmp_id(const void *a, const void *b) { return memcmp(a, b, cmp_size); }

TEST_CASE(handover_under_load) {
    for (int k = 0; k < TOID_FORMAT_COUNT; k++) if (GENERATES(k)) {
        toid_format f = (toid_format)k;
        if (!ordered(f))
            continue;
        size_t n = toid_bin_size(f);
        long dups = 0, errors = 0, disorder = 0, taken = 0;
        uint8_t *all = malloc((size_t)(OWNER_IDS + TAKER_IDS) * n);
        for (long r = 0; r < rounds; r++) {
            toid_gen *g = new_gen(f);
            int stop = 0;
            race owner = {.g = g, .f = f, .ids = all, .stop = &stop};
            race taker = {.g = g, .f = f, .ids = all + (size_t)OWNER_IDS * n};
            pthread_t to, tt;
            pthread_create(&to, NULL, race_thread, &owner);
            /* start the taker once the owner owns it and is under way (a
             * round-dependent depth, so the takeover lands at varied points) */
            while (__atomic_load_n(&owner.made, __ATOMIC_ACQUIRE) < 100 + r * 37 &&
                   __atomic_load_n(&owner.made, __ATOMIC_ACQUIRE) < OWNER_IDS && !owner.errors)
                sched_yield();
            if (owned_by_thread(g))
                taken++;
            pthread_create(&tt, NULL, race_thread, &taker);
            pthread_join(tt, NULL);
            __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
            pthread_join(to, NULL);
            errors += owner.errors + taker.errors;
            disorder += owner.disorder + taker.disorder;
            /* pack both threads' IDs and look for repeats */
            size_t total = (size_t)owner.made + (size_t)taker.made;
            memmove(all + (size_t)owner.made * n, taker.ids, (size_t)taker.made * n);
            cmp_size = n;
            qsort(all, total, n, cmp_id);
            for (size_t i = 1; i < total; i++)
                dups += memcmp(all + (i - 1) * n, all + i * n, n) == 0;
            free(g);
        }
        free(all);
        CHECK_MSG(dups == 0 && errors == 0 && disorder == 0,
                  "%s: %ld duplicates, %ld errors, %ld out of order", toid_format_get(f)->name, dups, errors,
                  disorder);
        CHECK_MSG(taken == rounds, "%s: the owner held it when the taker started in %ld of %ld rounds",
                  toid_format_get(f)->name, taken, rounds);
    }
}

/* ---- fork ---- */

static void *own_it(void *arg) {
    uint8_t id[TOID_BIN_MAX];
    toid_gen_next(arg, id, NULL);
    return NULL;
}

TEST_CASE(fork_child_not_held_by_parent_owner) {
    toid_gen *g = new_gen(TOID_ULID);
    pthread_t t;
    pthread_create(&t, NULL, own_it, g);
    pthread_join(t, NULL);
    CHECK(owned_by_thread(g));
    /* as if that thread had been caught making an ID when we forked */
    __atomic_store_n(&toid__h(g)->busy, 1, __ATOMIC_RELEASE);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(20);      /* a hang would be the failure */
        uint8_t id[16];
        int rc = toid_gen_next(g, id, NULL);
        _exit(rc == 0 && !(toid__h(g)->busy & 1u) ? 0 : 1);   /* out of its ID: busy even */
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child made an ID (status %d)", st);
    __atomic_store_n(&toid__h(g)->busy, 0, __ATOMIC_RELEASE);
    free(g);
}

static void *own_default(void *arg) {
    char t[TOID_TEXT_MAX];
    *(int *)arg = toid_new_text(TOID_NANOFLAKE, t, sizeof t);
    return NULL;
}

/* toid_configure of the process-wide nanoflake with `node`: its next ID
 * carries the node. */
static void configure_node(uint32_t node) {
    toid_gen_config c;
    toid_gen_config_default(TOID_NANOFLAKE, &c);
    c.node = node;
    CHECK_EQ_INT(toid_configure(&c), 0);
    uint8_t id[8];
    toid_fields fl;
    CHECK_EQ_INT(toid_new(TOID_NANOFLAKE, id), 0);
    CHECK_EQ_INT(toid_inspect(TOID_NANOFLAKE, id, TOID_EPOCH_DEFAULT, &fl), 0);
    CHECK_EQ_INT(fl.generator, node);
}

TEST_CASE(configure_takes_over) {
    int rc = -1;
    pthread_t t;
    pthread_create(&t, NULL, own_default, &rc);
    pthread_join(t, NULL);
    CHECK(rc > 0);
    configure_node(7);
}

/* toid_configure with settings that keep the IDs' space (format, epoch,
 * node, counter usage) carries the last ID over: an ID made after the call
 * sorts above every one made before it in the process. Before issue 25 the
 * call forgot the state: 504 of 1,000 same-ms pairs sorted backwards, and a
 * nanoflake restarted its sequence at 0 (a duplicate of the ID made just
 * before). Each pair straddles one call; the settings alternate between the
 * defaults and a changed policy (wait bound), on the owner's path and,
 * after a second thread's ID, on the lock or compare-and-swap. */
static void *new_one(void *arg) {    /* arg: the format in, the result out */
    uint8_t id[TOID_BIN_MAX];
    *(int *)arg = toid_new((toid_format) * (int *)arg, id);
    return NULL;
}

static void configure_keeps_order_here(void) {
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) if (GENERATES(f)) {
        if (!ordered((toid_format)f))
            continue;
        size_t size = toid_bin_size((toid_format)f);
        for (int shared_by_two = 0; shared_by_two < 2; shared_by_two++) {
            toid_gen_config c;
            toid_gen_config_default((toid_format)f, &c);
            c.on_exhausted = TOID_EXHAUSTED_WAIT;
            CHECK_EQ_INT(toid_configure(&c), 0);
            if (shared_by_two) {    /* another thread's ID: from now on the lock or the CAS */
                int arg = f;
                pthread_t t;
                pthread_create(&t, NULL, new_one, &arg);
                pthread_join(t, NULL);
                CHECK_EQ_INT(arg, 0);
            }
            int backwards = 0, failed = 0;
            uint8_t a[TOID_BIN_MAX], b[TOID_BIN_MAX];
            for (int i = 0; i < 1000; i++) {
                failed += toid_new((toid_format)f, a) != 0;
                c.wait_max_ms = i % 2 ? 0 : 500;    /* 0: the default */
                failed += toid_configure(&c) != 0;
                failed += toid_new((toid_format)f, b) != 0;
                backwards += memcmp(a, b, size) >= 0;
            }
            CHECK_MSG(failed == 0 && backwards == 0, "%s%s: %d of 1000 pairs across toid_configure not in order, %d failed",
                      toid_format_get((toid_format)f)->name, shared_by_two ? " (two threads)" : "", backwards,
                      failed);
        }
    }
    configure_node(9);    /* a new node is a new stream: its IDs carry the node */
}

/* In a process of its own: it leaves the process-wide generators MANY (a
 * second thread used them), and reentered_process_wide_refused needs them
 * owned when the whole program runs in one process. The child's failed
 * checks are its exit status. */
TEST_CASE(configure_keeps_order) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(120);
        long before = check_failed;
        configure_keeps_order_here();
        fflush(stderr);
        _exit(check_failed > before ? 1 : 0);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the case's process: status %d (its failures above)", st);
}

/* ---- inside an ID: a getrandom hook that runs in the middle of one ----
 * A thread that reseeds its CSPRNG does so inside the owner's ID (busy set),
 * so a hook on getrandom stops it there, or acts there. */
/* 0 pass through; 1 block until released; 2 re-enter hook_gen; 3 and 4
 * re-enter the process-wide generator of hook_fmt, toid_new and toid_new_text */
static int hook_mode;
static toid_format hook_fmt;
static int hook_blocked, hook_release, reentered_rc = 1;
static int getrandom_calls, reentered_calls = -1;   /* getrandom calls; of them, the re-entered call's */
static toid_gen *hook_gen;

static ssize_t hooked_getrandom(void *buf, size_t n, unsigned flags) {
    __atomic_add_fetch(&getrandom_calls, 1, __ATOMIC_RELAXED);
    int mode = __atomic_exchange_n(&hook_mode, 0, __ATOMIC_ACQ_REL);     /* once */
    if (mode == 1) {
        __atomic_store_n(&hook_blocked, 1, __ATOMIC_RELEASE);
        while (!__atomic_load_n(&hook_release, __ATOMIC_ACQUIRE))
            usleep(1000);
    } else if (mode >= 2) {
        uint8_t id[TOID_BIN_MAX];
        char text[TOID_TEXT_MAX];
        int before = __atomic_load_n(&getrandom_calls, __ATOMIC_RELAXED);
        int rc = mode == 2   ? toid_gen_next(hook_gen, id, NULL)
                 : mode == 3 ? toid_new(hook_fmt, id)
                             : toid_new_text(hook_fmt, text, sizeof text);
        __atomic_store_n(&reentered_rc, rc, __ATOMIC_RELEASE);
        __atomic_store_n(&reentered_calls, __atomic_load_n(&getrandom_calls, __ATOMIC_RELAXED) - before,
                         __ATOMIC_RELEASE);
    }
    return getrandom(buf, n, flags);
}

/* A signal handler's ID of the generator its thread is making an ID of: an
 * error, not the same ID twice (the handler cannot wait for the ID it
 * interrupted), and refused before it touches anything: no random bytes
 * drawn, so no getrandom call either (UUIDv7 draws some for every ID). Here
 * the "handler" runs from inside the ID, where one would: one ID of f, from
 * g or (NULL) the process-wide generator, at the start of a ms with a reseed
 * due, while the hook re-enters the way `mode` says. */
static void reentered_once(toid_format f, toid_gen *g, int mode) {
    uint8_t a[16], b[16];
    hook_gen = g;
    hook_fmt = f;
    CHECK_EQ_INT(g ? toid_gen_next(g, a, NULL) : toid_new(f, a), 0);
    __atomic_store_n(&reentered_rc, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&reentered_calls, -1, __ATOMIC_RELEASE);
    toid__test_set_getrandom(hooked_getrandom);
    int64_t ms = toid_clock_now(NULL);
    while (toid_clock_now(NULL) == ms)
        ;                   /* a new ms: the next ULID draws random bytes */
    toid__test_reseed_now();
    __atomic_store_n(&hook_mode, mode, __ATOMIC_RELEASE);
    CHECK_EQ_INT(g ? toid_gen_next(g, b, NULL) : toid_new(f, b), 0);
    CHECK_EQ_INT(__atomic_load_n(&reentered_rc, __ATOMIC_ACQUIRE), TOID_EINVAL);
    CHECK_EQ_INT(__atomic_load_n(&reentered_calls, __ATOMIC_ACQUIRE), 0);
    CHECK(memcmp(a, b, 16) < 0);
    toid__test_set_getrandom(NULL);
}

static const toid_format reentered_formats[] = {TOID_ULID, TOID_UUIDV7};

TEST_CASE(reentered_id_refused) {
    for (size_t k = 0; k < sizeof reentered_formats / sizeof reentered_formats[0]; k++) {
        toid_gen *g = new_gen(reentered_formats[k]);
        reentered_once(reentered_formats[k], g, 2);
        CHECK(owned_by_thread(g));
        free(g);
    }
}

/* The same through the process-wide generator's entries (each format's
 * own toid_new and toid_new_text), which this thread owns. */
TEST_CASE(reentered_process_wide_refused) {
    for (size_t k = 0; k < sizeof reentered_formats / sizeof reentered_formats[0]; k++)
        for (int mode = 3; mode <= 4; mode++)
            reentered_once(reentered_formats[k], NULL, mode);
}

static void *ulid_once(void *arg) {
    toid_new(TOID_ULID, arg);
    return NULL;
}

/* Makes the process-wide ULID generator this thread's (toid_configure takes
 * it from any earlier user), then stops inside its next ID until released. */
static void *ulid_owner_stopped(void *arg) {
    uint8_t *ids = arg;
    toid_gen_config fresh;      /* this thread's, whoever used it before (the earlier cases, in one run) */
    toid_gen_config_default(TOID_ULID, &fresh);
    toid_configure(&fresh);
    toid_new(TOID_ULID, ids);
    int64_t ms = toid_clock_now(NULL);
    while (toid_clock_now(NULL) == ms)
        ;                           /* a new ms: the next ULID draws random bytes */
    toid__test_reseed_now();        /* ...and that draw reseeds: the hook stops us there */
    __atomic_store_n(&hook_mode, 1, __ATOMIC_RELEASE);
    toid_new(TOID_ULID, ids + 16);
    return NULL;
}

/* fork() while the process-wide ULID generator's owner is stopped inside an
 * ID and a second thread waits to take it over: the child has neither
 * thread, and must neither hang nor repeat: toid_configure first (the
 * documented way to re-arm a child), then IDs. Returns the failures. The
 * case runs it in a process of its own: the process-wide generator must be
 * one no second thread has used (earlier cases leave it nobody's for good). */
static int forked_while_taken_over(void) {
    long failed = check_failed;
    uint8_t owner_ids[32], taker_id[16];
    pthread_t owner, taker;
    toid__test_set_getrandom(hooked_getrandom);
    pthread_create(&owner, NULL, ulid_owner_stopped, owner_ids);
    while (!__atomic_load_n(&hook_blocked, __ATOMIC_ACQUIRE))
        usleep(1000);
    pthread_create(&taker, NULL, ulid_once, taker_id);
    usleep(20000);                  /* the taker is in its wait for the owner's ID by now */
    pid_t pid = fork();
    if (pid == 0) {
        alarm(20);                  /* a hang is the failure */
        toid__test_set_getrandom(NULL);
        toid_gen_config c;
        toid_gen_config_default(TOID_ULID, &c);
        uint8_t x[16], y[16];
        int ok = toid_configure(&c) == 0 && toid_new(TOID_ULID, x) == 0 && toid_new(TOID_ULID, y) == 0 &&
                 memcmp(x, y, 16) < 0;
        _exit(ok ? 0 : 1);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child configured and made IDs (status %d)", st);
    __atomic_store_n(&hook_release, 1, __ATOMIC_RELEASE);
    pthread_join(owner, NULL);
    pthread_join(taker, NULL);
    toid__test_set_getrandom(NULL);
    CHECK(memcmp(owner_ids, owner_ids + 16, 16) < 0);
    CHECK_MSG(memcmp(owner_ids + 16, taker_id, 16) < 0, "the taker's ID follows the ID it waited for");
    return (int)(check_failed - failed);
}

TEST_CASE(fork_while_taken_over) {
    pid_t pid = fork();
    if (pid == 0) {
        alarm(60);
        _exit(forked_while_taken_over() == 0 ? 0 : 1);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the case's process: status %d", st);
}

static int setup(int nparam, char **param) {
    if (nparam > 0)
        rounds = atol(param[0]);
    return rounds > 0 ? 0 : 2;
}

int main(int argc, char **argv) { return check_main(argc, argv, setup, NULL); }
