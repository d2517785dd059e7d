/* claim.c — the backend-independent part of node claims: choosing a node,
 * waiting past the previous holder's mark, admitting IDs against the floor,
 * the durable ceiling and the deadline, and the background thread that moves
 * marks ahead and lets the backend renew.
 *
 * Invariant (as toidd's state directory had it): an ID leaves the process
 * only if its time is <= a mark that is durable in the backend, > the mark
 * found when the node was taken, and the claim is valid (not lost, its local
 * deadline ahead). So a later holder, which waits until its clock passes the
 * durable mark, issues only IDs after every ID issued before: no repeats.
 */
#define _GNU_SOURCE
#include "claim_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The thread moves a mark ahead once half of its reservation is used, so
 * that under load admits do not wait for a write; and it keeps the mark of a
 * recently used claim half a reservation ahead of the clock, so that
 * sporadic admits do not wait for one either. After WARM_MS without an ID a
 * claim goes cold: no more writes, its next admit writes the mark itself. */
#define WARM_MS 60000

#define NODE_MAX 9999 /* four digits in file names and etcd keys */

/* ---- small helpers -------------------------------------------------------- */

int64_t claim_mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void claim_sleep_ms(int64_t ms) {
    if (ms <= 0)
        return;
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

void claim_err(char *err, size_t err_size, const char *fmt, ...) {
    if (!err || err_size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
}

void claim_log(const toid_claimer *c, int level, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c && c->o.log) {
        c->o.log(c->o.log_ctx, level, msg);
        return;
    }
    /* One write(2), so lines of several processes do not mix. */
    static const char *const names[] = {"error", "warning", "info"};
    char line[1200];
    int n = snprintf(line, sizeof line, "toid-claim: %s: %s\n",
                     names[level >= 0 && level <= 2 ? level : 0], msg);
    if (n > 0) {
        size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
        ssize_t w = write(STDERR_FILENO, line, len);
        (void)w;
    }
}

const char *toid_claim_strerror(int err) {
    switch (err) {
#define TOID__CLAIM_MSG(name, val, shortname, msg) \
    case val:                                      \
        return msg;
        TOID_CLAIM_ERROR_LIST(TOID__CLAIM_MSG)
#undef TOID__CLAIM_MSG
    default:
        return toid_strerror(err);
    }
}

static const char *fname(toid_format f) { return toid_format_get(f)->name; }

/* ---- the claimer and its thread ------------------------------------------- */

static int due(toid_claim *k, int64_t now) {
    int64_t ceiling = atomic_load_explicit(&k->ceiling_ms, memory_order_acquire);
    if (ceiling == INT64_MIN)
        return 0; /* not reserved yet: acquire does it */
    int64_t top = atomic_load_explicit(&k->max_admitted_ms, memory_order_relaxed);
    int64_t half = (int64_t)k->c->o.reserve_ms / 2;
    return top > ceiling - half || (now - top < WARM_MS && now > ceiling - half);
}

/* ": 0 by pid 12, 1 by host h, pid 40, ... (and N more)", naming the holders
 * of [lo, hi] as far as the backend can tell; "" if it cannot. */
#define HOLDERS_LISTED 8
static void holders_text(toid_claimer *c, toid_format f, uint32_t lo, uint32_t hi, char *out, size_t cap) {
    out[0] = '\0';
    if (!c->be->holders)
        return;
    size_t count = (size_t)(hi - lo) + 1;
    char (*who)[64] = calloc(count, sizeof *who);
    if (!who)
        return;
    c->be->holders(c, f, lo, hi, who);
    size_t len = 0, listed = 0;
    for (size_t i = 0; i < count && listed < HOLDERS_LISTED; i++) {
        if (!who[i][0])
            continue;
        int n = snprintf(out + len, cap - len, "%s%" PRIu32 " by %s", listed ? ", " : ": ",
                         lo + (uint32_t)i, who[i]);
        if (n < 0 || (size_t)n >= cap - len)
            break;
        len += (size_t)n;
        listed++;
    }
    size_t known = 0;
    for (size_t i = 0; i < count; i++)
        known += who[i][0] != '\0';
    if (known > listed && len < cap)
        snprintf(out + len, cap - len, " (and %zu more)", known - listed);
    free(who);
}

/* ---- fork() ------------------------------------------------------------------ */

/* A child of fork() inherits the claimer and its claims, but not the right
 * to use them: the parent goes on issuing IDs of the same nodes. A handler
 * run in every child counts forks; a claimer remembers the count it was
 * opened under, and in a child the two differ: its claims are refused. (An
 * atomic load on the fast path; getpid() would be a system call per admit.
 * A process made by clone() or _Fork(), which run no fork handlers, is not
 * seen.) */
static _Atomic unsigned claim_fork_gen;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static void on_fork_child(void) {
    atomic_fetch_add_explicit(&claim_fork_gen, 1, memory_order_relaxed);
}
static void fork_handler_install(void) { pthread_atfork(NULL, NULL, on_fork_child); }

int claim_forked(const toid_claimer *c) {
    return atomic_load_explicit(&claim_fork_gen, memory_order_relaxed) != c->fork_gen;
}

static int claim_is_valid(const toid_claim *k, int64_t now_mono) {
    if (atomic_load_explicit(&k->lost, memory_order_acquire) ||
        atomic_load_explicit(&k->released, memory_order_acquire))
        return 0;
    if (claim_forked(k->c))
        return 0;
    return now_mono < atomic_load_explicit(&k->deadline_mono, memory_order_acquire);
}

/* Moves the mark of k to max(clock, largest admitted, at_least) + reserve if
 * that is further than the durable one. Called with k->mu held. */
static int extend_locked(toid_claim *k, int64_t at_least) {
    toid_claimer *c = k->c;
    int64_t now = toid_clock_now(NULL);
    int64_t top = atomic_load_explicit(&k->max_admitted_ms, memory_order_relaxed);
    int64_t base = now > top ? now : top;
    if (at_least > base)
        base = at_least;
    int64_t mark = base + (int64_t)c->o.reserve_ms;
    if (mark <= atomic_load_explicit(&k->ceiling_ms, memory_order_acquire))
        return 0;
    int rc = c->be->write_mark(k, mark, atomic_load(&k->deadline_mono));
    if (rc < 0) {
        atomic_fetch_add_explicit(&c->mark_write_errors, 1, memory_order_relaxed);
        atomic_store_explicit(&k->write_rc, rc, memory_order_relaxed);
        atomic_fetch_add_explicit(&k->write_failures, 1, memory_order_release);
        if (rc == TOID_CLAIM_ELOST && !atomic_exchange(&k->lost, 1)) {
            atomic_fetch_add_explicit(&c->lost, 1, memory_order_relaxed);
            claim_log(c, TOID_CLAIM_LOG_ERR, "%s node %" PRIu32 ": the claim is lost (%s "
                      "refused the mark): no more IDs of this node", fname(k->format), k->node,
                      c->be->kind);
        }
        return rc;
    }
    atomic_fetch_add_explicit(&c->mark_writes, 1, memory_order_relaxed);
    atomic_store_explicit(&k->ceiling_ms, mark, memory_order_release);
    return 0;
}

/* Pins every claim of c into c->batch (c->mu held); returns how many. */
static size_t pin_claims(toid_claimer *c) {
    size_t n = 0;
    for (toid_claim *k = c->claims; k; k = k->next) {
        if (n == c->batch_cap) {
            size_t cap = c->batch_cap ? 2 * c->batch_cap : 16;
            toid_claim **b = realloc(c->batch, cap * sizeof *b);
            if (!b)
                break; /* the others wait for the next tick */
            c->batch = b;
            c->batch_cap = cap;
        }
        k->pins++;
        c->batch[n++] = k;
    }
    return n;
}

static void *claimer_thread(void *arg) {
    toid_claimer *c = arg;
    int64_t backend_next = 0;
    pthread_mutex_lock(&c->mu);
    while (!c->stop) {
        int64_t tick = c->o.reserve_ms / 4;
        tick = tick < 10 ? 10 : tick > 250 ? 250 : tick;
        /* Renewal first: the deadline of every claim rests on it, so a slow
         * mark write must not hold it back. Without c->mu (network I/O). */
        if (c->be->tick && claim_mono_ms() >= backend_next) {
            pthread_mutex_unlock(&c->mu);
            backend_next = c->be->tick(c, claim_mono_ms());
            pthread_mutex_lock(&c->mu);
            if (c->stop)
                break;
        }
        /* Marks: the claims are pinned under c->mu (a release waits for its
         * pin), then written without it, so that nothing else that takes
         * c->mu waits for the network; a claim whose admit is writing its
         * mark (k->mu held) is skipped. */
        size_t n = pin_claims(c);
        pthread_mutex_unlock(&c->mu);
        int64_t now_mono = claim_mono_ms();
        for (size_t i = 0; i < n; i++) {
            toid_claim *k = c->batch[i];
            if (!claim_is_valid(k, now_mono))
                continue;
            /* asked: by an admit past the ceiling (until a write covers
             * what it waits for, even after a failure: retried each tick) */
            int asked = atomic_exchange(&k->want_extend, 0) |
                        (atomic_load_explicit(&k->asked_mono, memory_order_acquire) != 0);
            if (!asked && !due(k, toid_clock_now(NULL)))
                continue;
            if (pthread_mutex_trylock(&k->mu) != 0) {
                if (asked)
                    atomic_store(&k->want_extend, 1); /* (a release holds it: next tick) */
                continue;
            }
            int64_t want = atomic_load_explicit(&k->want_at_least_ms, memory_order_acquire);
            /* a failure is logged, counted for the waiting admits, and retried */
            if (extend_locked(k, want) == 0 &&
                atomic_load_explicit(&k->ceiling_ms, memory_order_acquire) >= want) {
                atomic_store_explicit(&k->asked_mono, 0, memory_order_release);
                atomic_store_explicit(&k->stall_logged, 0, memory_order_relaxed);
            }
            pthread_mutex_unlock(&k->mu);
        }
        pthread_mutex_lock(&c->mu);
        for (size_t i = 0; i < n; i++)
            c->batch[i]->pins--;
        if (n)
            pthread_cond_broadcast(&c->unpinned);
        if (c->stop)
            break;
        int64_t wake = claim_mono_ms() + tick;
        if (c->be->tick && backend_next < wake)
            wake = backend_next;
        struct timespec ts = {(time_t)(wake / 1000), (long)(wake % 1000) * 1000000L};
        if (!c->kick)
            pthread_cond_timedwait(&c->cv, &c->mu, &ts);
        c->kick = 0;
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

void claim_wake(toid_claimer *c) {
    /* (no c->mu: an admit never waits for the thread's lock; see the header.
     * A hint: the thread also looks at every claim each tick.) */
    pthread_cond_signal(&c->cv);
}

/* Wakes the thread for an admit that waits: not lost if it is between two
 * looks (c->kick, under c->mu, which the thread holds only briefly: never
 * across I/O). */
static void claim_kick(toid_claimer *c) {
    pthread_mutex_lock(&c->mu);
    c->kick = 1;
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

void claim_set_deadlines(toid_claimer *c, int64_t deadline_mono) {
    pthread_mutex_lock(&c->mu);
    for (toid_claim *k = c->claims; k; k = k->next)
        atomic_store_explicit(&k->deadline_mono, deadline_mono, memory_order_release);
    pthread_mutex_unlock(&c->mu);
}

int claim_held_here(toid_claimer *c, toid_format f, uint32_t node) {
    int found = 0;
    pthread_mutex_lock(&c->mu);
    for (toid_claim *k = c->claims; k && !found; k = k->next)
        found = k->format == f && k->node == node;
    pthread_mutex_unlock(&c->mu);
    return found;
}

void claim_lose_all(toid_claimer *c, const char *why) {
    pthread_mutex_lock(&c->mu);
    for (toid_claim *k = c->claims; k; k = k->next) {
        if (!atomic_exchange(&k->lost, 1)) {
            atomic_fetch_add_explicit(&c->lost, 1, memory_order_relaxed);
            claim_log(c, TOID_CLAIM_LOG_ERR, "%s node %" PRIu32 ": the claim is lost (%s): no "
                      "more IDs of this node", fname(k->format), k->node, why);
        }
    }
    pthread_mutex_unlock(&c->mu);
}

/* Why an etcd claim is refused when the backend is not built in: a build
 * outside CMake (the Python and Node packages) names what it missed. */
#ifndef TOID_CLAIM_ETCD_MISSING
#define TOID_CLAIM_ETCD_MISSING "libcurl and jansson were not found when toid was built"
#endif

static const claim_backend *const backends[] = {
    &claim_backend_local,
#ifdef TOID_CLAIM_HAVE_ETCD
    &claim_backend_etcd,
#endif
};

/* The backend a spec names ("KIND" or "KIND=ARG"), and *arg its text after
 * the kind; NULL, with the reason in err, when none does. */
static const claim_backend *backend_of(const char *spec, const char **arg, char *err, size_t err_size) {
    for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++) {
        size_t n = strlen(backends[i]->kind);
        if (strncmp(spec, backends[i]->kind, n) == 0 && (spec[n] == '\0' || spec[n] == '=')) {
            *arg = spec + n;
            return backends[i];
        }
    }
    if (strncmp(spec, "etcd", 4) == 0 && (spec[4] == '\0' || spec[4] == '='))
        claim_err(err, err_size, "the etcd claim backend is not built in (%s)",
                  TOID_CLAIM_ETCD_MISSING);
    else
        claim_err(err, err_size, "unknown claim backend '%s' (local, local=DIR or "
                  "etcd=URL[,URL...])", spec);
    return NULL;
}

int toid_claim_backend_of(const char *spec, toid_claim_backend_info *out, char *err, size_t err_size) {
    const char *arg;
    const claim_backend *be = backend_of(spec ? spec : "local", &arg, err, err_size);
    if (!be)
        return TOID_EINVAL;
    if (out)
        *out = be->info;
    return 0;
}

int toid_claimer_open(const char *spec, const toid_claimer_opts *opts, toid_claimer **out,
                      char *err, size_t err_size) {
    *out = NULL;
    if (!spec)
        spec = "local";
    const char *arg = NULL;
    const claim_backend *be = backend_of(spec, &arg, err, err_size);
    if (!be)
        return TOID_EINVAL;
    toid_claimer *c = calloc(1, sizeof *c);
    if (!c) {
        claim_err(err, err_size, "out of memory");
        return TOID_EINVAL;
    }
    if (opts)
        c->o = *opts;
    if (!c->o.ttl_ms)
        c->o.ttl_ms = 10000;
    if (c->o.ttl_ms < 1000 || c->o.ttl_ms % 1000) {
        claim_err(err, err_size, "claim TTL %" PRIu32 " ms: must be whole seconds (>= 1 s)",
                  c->o.ttl_ms);
        free(c);
        return TOID_EINVAL;
    }
    if (!c->o.margin_ms)
        c->o.margin_ms = c->o.ttl_ms / 5;
    if (c->o.margin_ms >= c->o.ttl_ms) {
        claim_err(err, err_size, "claim margin %" PRIu32 " ms: must be below the TTL",
                  c->o.margin_ms);
        free(c);
        return TOID_EINVAL;
    }
    if (!c->o.reserve_ms)
        c->o.reserve_ms = 2000;
    if (!c->o.clock_wait_max_ms)
        c->o.clock_wait_max_ms = 5000;
    if (!c->o.request_timeout_ms)
        c->o.request_timeout_ms = 1000;
    snprintf(c->prefix, sizeof c->prefix, "%s", c->o.prefix ? c->o.prefix : "/toid");
    size_t pl = strlen(c->prefix);
    while (pl > 0 && c->prefix[pl - 1] == '/')
        c->prefix[--pl] = '\0'; /* "/toid/" and "/toid" are one prefix */
    c->o.prefix = c->prefix;
    c->be = be;
    pthread_once(&fork_once, fork_handler_install);
    c->fork_gen = atomic_load(&claim_fork_gen);
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->unpinned, NULL);
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&c->cv, &a);
    pthread_condattr_destroy(&a);
    int rc = be->open(c, arg, err, err_size);
    if (rc < 0) {
        pthread_cond_destroy(&c->cv);
        pthread_cond_destroy(&c->unpinned);
        pthread_mutex_destroy(&c->mu);
        free(c);
        return rc;
    }
    if (pthread_create(&c->thread, NULL, claimer_thread, c) != 0) {
        claim_err(err, err_size, "cannot start the claim thread");
        be->close(c, 1);
        pthread_cond_destroy(&c->cv);
        pthread_cond_destroy(&c->unpinned);
        pthread_mutex_destroy(&c->mu);
        free(c);
        return TOID_CLAIM_EIO;
    }
    c->running = 1;
    *out = c;
    return 0;
}

static void unlink_locked(toid_claimer *c, toid_claim *k) {
    for (toid_claim **p = &c->claims; *p; p = &(*p)->next)
        if (*p == k) {
            *p = k->next;
            break;
        }
}

/* Off the list; returns once the thread no longer writes its mark. */
static void unlink_claim(toid_claimer *c, toid_claim *k) {
    pthread_mutex_lock(&c->mu);
    unlink_locked(c, k);
    while (k->pins > 0)
        pthread_cond_wait(&c->unpinned, &c->mu);
    pthread_mutex_unlock(&c->mu);
}

/* In a child of fork(): the claim is the parent's. Off the list and freed
 * without a lock (a thread that did not follow the fork may have held one)
 * and without I/O (no lowered mark, no deleted key). */
static void forget_claim(toid_claim *k) {
    unlink_locked(k->c, k);
    k->c->be->drop(k, 0);
    free(k);
}

static void free_claim(toid_claim *k) {
    pthread_mutex_destroy(&k->mu);
    free(k);
}

void toid_claimer_close(toid_claimer *c) {
    if (!c)
        return;
    if (claim_forked(c)) {
        /* the thread did not follow the fork: nothing to stop or join */
        while (c->claims)
            forget_claim(c->claims);
        if (c->bk) /* (none after claim_abandon_forked) */
            c->be->close(c, 0);
        free(c->batch);
        free(c);
        return;
    }
    pthread_mutex_lock(&c->mu);
    c->stop = 1;
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
    if (c->running)
        pthread_join(c->thread, NULL);
    while (c->claims)
        toid_claim_release(c->claims, 0);
    c->be->close(c, 1);
    pthread_cond_destroy(&c->cv);
    pthread_cond_destroy(&c->unpinned);
    pthread_mutex_destroy(&c->mu);
    free(c->batch);
    free(c);
}

/* ---- claims ----------------------------------------------------------------- */

/* Waits until the clock is past mark, at most clock_wait_max_ms. */
static int wait_past(toid_claimer *c, toid_claim *k, int64_t mark) {
    int64_t now = toid_clock_now(NULL);
    if (now > mark)
        return 0;
    int64_t behind = mark - now + 1;
    if (behind > (int64_t)c->o.clock_wait_max_ms) {
        claim_log(c, TOID_CLAIM_LOG_ERR, "the clock is %" PRId64 " ms behind the high-water "
                  "mark of %s node %" PRIu32 " (%s backend): refusing it (the limit of the "
                  "clock wait is %" PRIu32 " ms)", behind, fname(k->format), k->node,
                  c->be->kind, c->o.clock_wait_max_ms);
        return TOID_CLAIM_EBEHIND;
    }
    if (behind > 1)
        claim_log(c, TOID_CLAIM_LOG_INFO, "waiting %" PRId64 " ms for the clock to pass the "
                  "high-water mark of %s", behind, k->name);
    int64_t deadline = claim_mono_ms() + (int64_t)c->o.clock_wait_max_ms + 100;
    while ((now = toid_clock_now(NULL)) <= mark) {
        if (claim_mono_ms() > deadline) {
            claim_log(c, TOID_CLAIM_LOG_ERR, "the clock did not pass the high-water mark of "
                      "%s in time: refusing it", k->name);
            return TOID_CLAIM_EBEHIND;
        }
        claim_sleep_ms(mark - now + 1 > 50 ? 50 : mark - now + 1);
    }
    return 0;
}

/* Takes node n (already linked nowhere); on success k is ready and linked. */
static int take_node(toid_claimer *c, toid_claim *k) {
    int64_t prev = INT64_MIN;
    atomic_store(&k->deadline_mono, INT64_MAX);
    atomic_store(&k->ceiling_ms, INT64_MIN);
    atomic_store(&k->lost, 0);
    int rc = c->be->take(c, k, &prev);
    if (rc < 0)
        return rc;
    /* Linked now, so lease renewals reach it while it waits for the clock. */
    pthread_mutex_lock(&c->mu);
    k->next = c->claims;
    c->claims = k;
    pthread_mutex_unlock(&c->mu);
    if (prev != INT64_MIN && (rc = wait_past(c, k, prev)) < 0)
        goto fail;
    int64_t now = toid_clock_now(NULL);
    k->floor_ms = prev;
    /* (the start counts as use: the thread keeps the mark warm for a while;
     * now > prev, and every ID admitted from here on is after prev) */
    atomic_store(&k->max_admitted_ms, now);
    /* Reserve ahead now, so that the first admit does not wait for a write. */
    pthread_mutex_lock(&k->mu);
    rc = extend_locked(k, now);
    pthread_mutex_unlock(&k->mu);
    if (rc < 0)
        goto fail;
    if (c->be->taken && (rc = c->be->taken(k)) < 0)
        goto fail;
    if (!claim_is_valid(k, claim_mono_ms())) {
        claim_log(c, TOID_CLAIM_LOG_ERR, "%s node %" PRIu32 ": the claim expired while it was "
                  "being taken", fname(k->format), k->node);
        rc = TOID_CLAIM_ELOST;
        goto fail;
    }
    claim_wake(c);
    return 0;
fail:
    unlink_claim(c, k);
    c->be->drop(k, 1);
    k->bk = NULL;
    return rc;
}

int toid_claim_acquire(toid_claimer *c, toid_format f, int64_t epoch_ms, uint32_t lo,
                       uint32_t hi, toid_claim **out) {
    *out = NULL;
    if (!c || !toid_format_get(f) || lo > hi || hi > NODE_MAX)
        return TOID_EINVAL;
    if (claim_forked(c)) {
        claim_log(c, TOID_CLAIM_LOG_ERR, "this claimer was opened before fork() by the parent "
                  "process, whose claims it shares: open a new claimer in the child");
        return TOID_CLAIM_ELOST;
    }
    toid_claim *k = calloc(1, sizeof *k);
    uint8_t *held = calloc(hi - lo + 1, 1);
    if (!k || !held) {
        free(k);
        free(held);
        claim_log(c, TOID_CLAIM_LOG_ERR, "out of memory");
        return TOID_CLAIM_EIO;
    }
    k->c = c;
    k->format = f;
    k->epoch_ms = epoch_ms;
    k->single = lo == hi;
    pthread_mutex_init(&k->mu, NULL);
    int rc = 0;
    /* (one node: no hint, so that the backend's refusal names the holder) */
    if (c->be->held && lo != hi && (rc = c->be->held(c, f, lo, hi, held)) < 0)
        goto done;
    rc = TOID_CLAIM_EBUSY;
    uint32_t behind = 0, other_epoch = 0;
    for (uint32_t n = lo; n <= hi; n++) {
        if (held[n - lo])
            continue;
        k->node = n;
        k->other_epoch = 0;
        snprintf(k->name, sizeof k->name, "%s-%" PRIu32, fname(f), n);
        rc = take_node(c, k);
        /* A node whose mark is too far ahead of our clock, or was written
         * for another epoch (a program with an epoch of its own used it),
         * is no reason to give up on the range (both logged): its mark is
         * its own, and another node's IDs cannot meet ours. Anything else
         * (taken; an I/O error or corrupt state, which another node would
         * not cure and an operator must see) ends the search. */
        if (rc == TOID_CLAIM_EBEHIND && lo != hi) {
            behind++;
            continue;
        }
        if (rc == TOID_CLAIM_ECORRUPT && k->other_epoch && lo != hi) {
            other_epoch++;
            continue;
        }
        if (rc != TOID_CLAIM_EBUSY)
            break;
    }
    if (rc < 0 && (behind || other_epoch)) {
        claim_log(c, TOID_CLAIM_LOG_ERR, "no node of %s in %" PRIu32 "-%" PRIu32 " (%s backend) "
                  "could be taken: %" PRIu32 " refused as ahead of the clock, %" PRIu32
                  " as marked for another epoch, the others held", fname(f), lo, hi,
                  c->be->kind, behind, other_epoch);
        rc = behind ? TOID_CLAIM_EBEHIND : TOID_CLAIM_ECORRUPT;
    } else if (rc == TOID_CLAIM_EBUSY && lo != hi) { /* (for one node the backend named its holder) */
        char who_list[600] = "";
        holders_text(c, f, lo, hi, who_list, sizeof who_list);
        claim_log(c, TOID_CLAIM_LOG_ERR, "no free node of %s in %" PRIu32 "-%" PRIu32
                  " (%s backend): every one is held%s", fname(f), lo, hi, c->be->kind, who_list);
    }
done:
    free(held);
    if (rc < 0) {
        free_claim(k);
        return rc;
    }
    *out = k;
    return 0;
}

uint32_t toid_claim_node(const toid_claim *k) { return k->node; }

int toid_claim_valid(const toid_claim *k, int64_t *ms_left) {
    int64_t now = claim_mono_ms();
    int64_t d = atomic_load_explicit(&k->deadline_mono, memory_order_acquire);
    int ok = claim_is_valid(k, now);
    if (ms_left)
        *ms_left = !ok ? 0 : d == INT64_MAX ? INT64_MAX : d - now;
    return ok;
}

/* Past the durable mark: the thread writes it (to max_ms + the reserve)
 * before these IDs may leave; this waits, polling, until it is durable, the
 * write fails, the claim ends, or the bound (admit_wait_max_ms, the
 * deadline) passes. The caller's thread does no I/O: a frozen disk or a
 * silent backend costs it the bound, not a hang. */
static int wait_for_mark(toid_claim *k, int64_t max_ms) {
    toid_claimer *c = k->c;
    int64_t start = claim_mono_ms(), zero = 0;
    int64_t want = atomic_load_explicit(&k->want_at_least_ms, memory_order_relaxed);
    while (want < max_ms &&
           !atomic_compare_exchange_weak_explicit(&k->want_at_least_ms, &want, max_ms,
                                                  memory_order_release, memory_order_relaxed)) {
    }
    unsigned failures = atomic_load_explicit(&k->write_failures, memory_order_acquire);
    /* (the first admit of a wait counts the write: the others share it) */
    if (atomic_compare_exchange_strong(&k->asked_mono, &zero, start))
        atomic_fetch_add_explicit(&c->request_writes, 1, memory_order_relaxed);
    atomic_store(&k->want_extend, 1);
    claim_kick(c);
    /* (the claim's deadline needs no bound of its own here: past it the
     * claim is not valid, which ends the wait first) */
    int64_t limit = c->o.admit_wait_max_ms ? start + (int64_t)c->o.admit_wait_max_ms : INT64_MAX;
    for (int64_t now = start;; now = claim_mono_ms()) {
        if (atomic_load_explicit(&k->ceiling_ms, memory_order_acquire) >= max_ms)
            return 0;
        if (!claim_is_valid(k, now))
            return TOID_CLAIM_ELOST;
        if (atomic_load_explicit(&k->write_failures, memory_order_acquire) != failures) {
            int rc = atomic_load_explicit(&k->write_rc, memory_order_relaxed);
            /* (a write that failed past the deadline: lost, say so) */
            return rc == TOID_CLAIM_ELOST || !claim_is_valid(k, claim_mono_ms()) ? TOID_CLAIM_ELOST
                                                                                : TOID_CLAIM_EIO;
        }
        if (now >= limit) {
            if (!atomic_exchange(&k->stall_logged, 1))
                claim_log(c, TOID_CLAIM_LOG_ERR, "%s: the high-water mark write (%s backend) has "
                          "not finished in %" PRIu32 " ms: refusing IDs of this node until it "
                          "does", k->name, c->be->kind, c->o.admit_wait_max_ms);
            return TOID_CLAIM_EIO;
        }
        /* (a write takes a fsync or a round trip: poll finely at first) */
        struct timespec ts = {0, now - start < 10 ? 100000L : 1000000L};
        nanosleep(&ts, NULL);
    }
}

int64_t toid_claim_mark_wait_ms(const toid_claim *k) {
    int64_t since = atomic_load_explicit(&k->asked_mono, memory_order_acquire);
    if (!since)
        return 0;
    int64_t d = claim_mono_ms() - since;
    return d > 0 ? d : 1;
}

int toid_claim_admit(toid_claim *k, int64_t min_ms, int64_t max_ms) {
    if (!claim_is_valid(k, claim_mono_ms()))
        return TOID_CLAIM_ELOST;
    if (min_ms <= k->floor_ms || max_ms < min_ms)
        return TOID_CLAIM_EBEHIND;
    int64_t ceiling = atomic_load_explicit(&k->ceiling_ms, memory_order_acquire);
    if (max_ms > ceiling) {
        int rc = wait_for_mark(k, max_ms);
        if (rc < 0)
            return rc;
    } else if (max_ms > ceiling - (int64_t)k->c->o.reserve_ms / 2 &&
               !atomic_exchange(&k->want_extend, 1)) {
        claim_wake(k->c); /* half the reservation used: the thread moves the mark */
    }
    /* max_admitted, then released, both seq_cst, against claim_retire's
     * released, then max_admitted: either this admit sees the release and
     * refuses, or the release sees max_ms and its lowered mark covers it.
     * (On x86 the CAS is the same instruction, the load a plain one.) */
    int64_t cur = atomic_load_explicit(&k->max_admitted_ms, memory_order_seq_cst);
    while (cur < max_ms &&
           !atomic_compare_exchange_weak_explicit(&k->max_admitted_ms, &cur, max_ms,
                                                  memory_order_seq_cst, memory_order_seq_cst)) {
    }
    if (atomic_load_explicit(&k->released, memory_order_seq_cst))
        return TOID_CLAIM_ELOST;
    /* A write may have taken a while: the deadline is checked again last. */
    if (!claim_is_valid(k, claim_mono_ms()))
        return TOID_CLAIM_ELOST;
    return 0;
}

/* toid_claim_release (keep 0) and claim_retire (keep 1: k stays allocated,
 * refusing, for pointers other threads still hold). */
static void give_up(toid_claim *k, int clean, int keep) {
    toid_claimer *c = k->c;
    if (claim_forked(c)) {
        if (!keep) {
            forget_claim(k);
            return;
        }
        atomic_store(&k->released, 1);
        unlink_locked(c, k); /* (no lock, no I/O: as forget_claim) */
        c->be->drop(k, 0);
        return;
    }
    unlink_claim(c, k);
    pthread_mutex_lock(&k->mu); /* a write of an admit finishes first */
    int valid = claim_is_valid(k, claim_mono_ms());
    /* From here on admits refuse; what one admitted before is in
     * max_admitted (see toid_claim_admit), so the lowered mark covers it. */
    atomic_store_explicit(&k->released, 1, memory_order_seq_cst);
    if (clean && valid) {
        int64_t top = atomic_load_explicit(&k->max_admitted_ms, memory_order_seq_cst);
        if (top < atomic_load(&k->ceiling_ms) &&
            c->be->write_mark(k, top, atomic_load(&k->deadline_mono)) == 0) {
            atomic_fetch_add_explicit(&c->mark_writes, 1, memory_order_relaxed);
            claim_log(c, TOID_CLAIM_LOG_INFO, "%s: mark lowered to the last ID issued (or "
                      "kept, if another write put it higher)", k->name);
        }
    }
    pthread_mutex_unlock(&k->mu);
    c->be->drop(k, 1);
    if (!keep)
        free_claim(k);
}

void toid_claim_release(toid_claim *k, int clean) {
    if (k)
        give_up(k, clean, 0);
}

void claim_retire(toid_claim *k, int clean) {
    if (k)
        give_up(k, clean, 1);
}

void claim_abandon_forked(toid_claimer *c) {
    /* No lock: a thread of the parent that did not follow the fork may have
     * held c->mu. The claims stay on c's list, allocated and refusing. */
    for (toid_claim *k = c->claims; k; k = k->next) {
        atomic_store(&k->released, 1);
        c->be->drop(k, 0);
    }
    if (c->bk)
        c->be->close(c, 0);
}

void toid_claimer_stats(const toid_claimer *c, toid_claim_stats *out) {
    toid_claimer *m = (toid_claimer *)c; /* atomics are read, not changed */
    out->renewals = atomic_load(&m->renewals);
    out->renewal_failures = atomic_load(&m->renewal_failures);
    out->mark_writes = atomic_load(&m->mark_writes);
    out->request_writes = atomic_load(&m->request_writes);
    out->mark_write_errors = atomic_load(&m->mark_write_errors);
    out->lost = atomic_load(&m->lost);
}
