/* claims.c — toidd's claims: the start, the watcher thread that notices a
 * lost claim and claims again, what requests read, health and metrics. */
#define _GNU_SOURCE
#include "claims.h"

#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* What a format's claim is doing (the toidd_claim_state gauge). */
enum { ST_OFF, ST_HELD, ST_NO_NODE, ST_LOST, ST_ERROR, ST_COUNT };
static const char *const st_names[ST_COUNT] = {"none", "held", "no_free_node", "lost", "error"};

typedef struct fslot {
    int enabled;
    int node_format;           /* claimed from a range, claimed again when lost */
    toid_claimer *cl;          /* its backend; NULL: no claims (--no-state, no --claim) */
    uint32_t lo, hi;
    int fixed;                 /* one node asked for (--gen F:node=N, or node 0 of a
                                  non-node format): held by another, refuse to start */
    toid_gen_config gcfg;
    int64_t epoch_ms;
    served *_Atomic cur;       /* what requests use; NULL while unserved */
    _Atomic int why;           /* CLAIMS_E* while unserved */
    _Atomic int state;
    _Atomic int64_t node;      /* -1: none */
    _Atomic int64_t deadline_at;  /* mono ms of the claim's deadline; INT64_MAX: none */
    _Atomic uint64_t acquired, lost, failures;
    int64_t next_try;          /* mono ms (watcher only) */
    int fails;                 /* failures in a row other than "no free node" */
    int64_t last_log;          /* mono ms of the last "still unserved" line */
} fslot;

static fslot slots[TOID_FORMAT_COUNT];
static toid_claimer *state_cl;     /* local=--state-dir: the formats without a node */
static toid_claimer *node_cl;      /* the node formats': --claim, the host's configuration,
                                      else the host's registry; NULL: unclaimed */
static const char *node_backend = "local";
static int node_leases;     /* the node backend's claims have leases: it may be away a while */
static char node_spec[2048];

/* ---------------------------------------------------------------- readers
 * Each thread that calls claims_enter owns a slot: odd while inside. The
 * watcher unpublishes (seq_cst store of NULL), then waits until every slot
 * that was odd has moved on; with seq_cst on both sides either the request
 * sees NULL or the watcher sees it inside. Beyond MAX_READERS threads (the
 * server has at most 256 workers) a mutex stands in. */
#define MAX_READERS 272
static struct {
    _Atomic uint64_t v;
    char pad[56];
} readers[MAX_READERS];
static _Atomic unsigned n_readers;
static _Thread_local int my_reader = -1;
static _Thread_local int in_overflow;
static pthread_mutex_t overflow_mu = PTHREAD_MUTEX_INITIALIZER;

const served *claims_enter(toid_format f, int *why) {
    if (my_reader < 0) {
        unsigned i = atomic_fetch_add(&n_readers, 1);
        my_reader = i < MAX_READERS ? (int)i : MAX_READERS;
    }
    if (my_reader < MAX_READERS) {
        uint64_t v = atomic_load_explicit(&readers[my_reader].v, memory_order_relaxed);
        atomic_store_explicit(&readers[my_reader].v, v + 1, memory_order_seq_cst);
    } else {
        pthread_mutex_lock(&overflow_mu);
        in_overflow = 1;
    }
    served *s = atomic_load_explicit(&slots[f].cur, memory_order_seq_cst);
    if (!s)
        *why = atomic_load_explicit(&slots[f].why, memory_order_relaxed);
    return s;
}

void claims_leave(void) {
    if (my_reader < MAX_READERS) {
        uint64_t v = atomic_load_explicit(&readers[my_reader].v, memory_order_relaxed);
        atomic_store_explicit(&readers[my_reader].v, v + 1, memory_order_release);
    } else if (in_overflow) {
        in_overflow = 0;
        pthread_mutex_unlock(&overflow_mu);
    }
}

static void sleep_ms(int64_t ms) {
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

/* Returns once no request can still use what was published before. */
static void wait_for_readers(void) {
    unsigned n = atomic_load(&n_readers);
    if (n > MAX_READERS)
        n = MAX_READERS;
    for (unsigned i = 0; i < n; i++) {
        uint64_t v = atomic_load_explicit(&readers[i].v, memory_order_seq_cst);
        while ((v & 1) && atomic_load_explicit(&readers[i].v, memory_order_acquire) == v)
            sleep_ms(1);
    }
    pthread_mutex_lock(&overflow_mu);
    pthread_mutex_unlock(&overflow_mu);
}

/* ---------------------------------------------------------------- claiming */

static void claim_log(void *ctx, int level, const char *msg) {
    (void)ctx;
    log_msg(level == TOID_CLAIM_LOG_ERR ? "error" : level == TOID_CLAIM_LOG_WARN ? "warning" : "info",
            "%s", msg);
}

static const char *fname(toid_format f) { return toid_format_get(f)->name; }

/* Makes what requests use for the claim k and publishes it. */
static int publish(toid_format f, toid_claim *k, uint32_t node) {
    fslot *s = &slots[f];
    size_t gen_size = toid_gen_size(f);
    served *sv = calloc(1, offsetof(served, gen) + gen_size);
    if (!sv) {
        log_err("out of memory");
        return -1;
    }
    toid_gen_config g = s->gcfg;
    if (s->node_format)
        g.node = node;
    int rc = toid_gen_init_size(&sv->gen, gen_size, &g);
    if (rc < 0) {
        log_err("generator %s: %s", fname(f), toid_strerror(rc));
        free(sv);
        return -1;
    }
    sv->claim = k;
    sv->node = node;
    sv->epoch_ms = s->epoch_ms;
    int64_t left = INT64_MAX;
    if (k)
        toid_claim_valid(k, &left);
    atomic_store(&s->deadline_at, left == INT64_MAX ? INT64_MAX : mono_ms() + left);
    atomic_store(&s->node, (int64_t)node);
    atomic_store(&s->state, ST_HELD);
    atomic_store_explicit(&s->cur, sv, memory_order_seq_cst);
    return 0;
}

/* Unpublishes f (requests get why from now on), waits for the requests that
 * may still use it, and releases its claim. */
static void retire(toid_format f, int why, int state, int clean) {
    fslot *s = &slots[f];
    atomic_store(&s->why, why);
    atomic_store(&s->state, state);
    served *sv = atomic_exchange_explicit(&s->cur, NULL, memory_order_seq_cst);
    atomic_store(&s->node, -1);
    if (!sv)
        return;
    wait_for_readers();
    if (sv->claim)
        toid_claim_release(sv->claim, clean);
    free(sv);
}

static void range_text(const fslot *s, char *buf, size_t cap) {
    if (s->lo == s->hi)
        snprintf(buf, cap, "%" PRIu32, s->lo);
    else
        snprintf(buf, cap, "%" PRIu32 "-%" PRIu32, s->lo, s->hi);
}

/* One attempt to claim a node of f (the watcher's, or at start). Returns the
 * library's code; on success f is served. quiet: the failure is not logged
 * here (the start refuses and says why). */
static int try_claim(toid_format f, int at_start, int quiet) {
    fslot *s = &slots[f];
    toid_claim *k = NULL;
    char range[32];
    range_text(s, range, sizeof range);
    int rc = toid_claim_acquire(s->cl, f, s->epoch_ms, s->lo, s->hi, &k);
    if (rc == 0) {
        uint32_t node = toid_claim_node(k);
        if (publish(f, k, node) < 0) {
            toid_claim_release(k, 0);
            rc = TOID_CLAIM_EIO;
        } else {
            atomic_fetch_add(&s->acquired, 1);
            if (!at_start)
                log_info("%s: node %" PRIu32 " claimed (%s); serving %s again", fname(f), node,
                         node_backend, fname(f));
            return 0;
        }
    }
    atomic_fetch_add(&s->failures, 1);
    int why = rc == TOID_CLAIM_EBUSY ? CLAIMS_ENONODE : CLAIMS_EBACKEND;
    int state = rc == TOID_CLAIM_EBUSY ? ST_NO_NODE : ST_ERROR;
    int prev = atomic_exchange(&s->state, state);
    atomic_store(&s->why, why);
    /* A line when the situation changes, then one every 30 s. */
    int64_t now = mono_ms();
    if (!quiet && (at_start || prev != state || now - s->last_log >= 30000)) {
        s->last_log = now;
        if (rc == TOID_CLAIM_EBUSY)
            log_warn("%s: no free node in %s (every one is held by another holder, %s): "
                     "%s not served; trying again", fname(f), range, node_backend, fname(f));
        else
            log_err("%s: cannot claim a node in %s (%s): %s: %s not served; trying again",
                    fname(f), range, node_spec, toid_claim_strerror(rc), fname(f));
    }
    return rc;
}

/* ---------------------------------------------------------------- the watcher */

static pthread_t watcher;
static int watcher_running, watcher_stop;
static pthread_mutex_t w_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t w_cv;
static uint32_t retry_ms = 300;

static void make_cv(void) {
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&w_cv, &a);
    pthread_condattr_destroy(&a);
}

/* One look at f: a claim past its deadline is given up, an unserved format
 * tries again when due. */
static void watch(toid_format f) {
    fslot *s = &slots[f];
    served *sv = atomic_load(&s->cur);
    int64_t now = mono_ms();
    if (sv) {
        int64_t left = 0;
        if (toid_claim_valid(sv->claim, &left)) {
            atomic_store(&s->deadline_at, left == INT64_MAX ? INT64_MAX : now + left);
            return;
        }
        atomic_fetch_add(&s->lost, 1);
        log_warn("%s: the claim on node %" PRIu32 " is lost or past its deadline (%s not "
                 "renewed in time): %s stopped; claiming again", fname(f), sv->node, node_spec,
                 fname(f));
        retire(f, CLAIMS_ELOST, ST_LOST, 0);
        s->last_log = now;
        s->next_try = now;
    }
    if (now < s->next_try)
        return;
    int rc = try_claim(f, 0, 0);
    if (rc == 0 || rc == TOID_CLAIM_EBUSY) {
        s->fails = 0;
        s->next_try = mono_ms() + retry_ms;
    } else {
        /* backend trouble: back off (the library logs each failure); foreign
         * or corrupt data waits for an operator */
        int64_t cap = rc == TOID_CLAIM_ECORRUPT ? 10000 : 2000;
        int64_t d = (int64_t)retry_ms << (s->fails < 5 ? s->fails : 5);
        s->fails++;
        s->next_try = mono_ms() + (d < cap ? d : cap);
    }
}

static void *watcher_main(void *arg) {
    (void)arg;
    pthread_mutex_lock(&w_mu);
    while (!watcher_stop) {
        pthread_mutex_unlock(&w_mu);
        for (int i = 0; i < TOID_FORMAT_COUNT; i++)
            if (slots[i].enabled && slots[i].node_format && slots[i].cl)
                watch((toid_format)i);
        pthread_mutex_lock(&w_mu);
        if (watcher_stop)
            break;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += 50 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&w_cv, &w_mu, &ts);
    }
    pthread_mutex_unlock(&w_mu);
    return NULL;
}

/* ---------------------------------------------------------------- start, stop */

static uint32_t mark_wait_ms;    /* --mark-wait-max-ms: readiness's bound too */

static int open_backend(const char *spec, const server_config *c, toid_claimer **out) {
    /* The library makes a missing local directory (the CLI's default one);
     * toidd's must exist: a mistyped path would start afresh beside the
     * real one, and its marks would not count. */
    if (!strncmp(spec, "local=", 6)) {
        struct stat sb;
        const char *why = stat(spec + 6, &sb) < 0 ? strerror(errno)
                          : !S_ISDIR(sb.st_mode)  ? "not a directory"
                                                  : NULL;
        if (why) {
            log_err("%s %s: %s", strcmp(spec + 6, c->state_dir) ? "claim directory" : "state directory",
                    spec + 6, why);
            return -1;
        }
    }
    toid_claimer_opts o;
    memset(&o, 0, sizeof o);
    o.reserve_ms = c->reserve_ms;
    /* the library reads 0 as its default; toidd's 0 means "do not wait" */
    o.clock_wait_max_ms = c->clock_wait_max_ms ? c->clock_wait_max_ms : 1;
    o.admit_wait_max_ms = c->mark_wait_max_ms;  /* a stalled write: 503, never a hang */
    o.reset = c->reset_state;
    o.log = claim_log;
    toid_claim_backend_info be = {0};
    toid_claim_backend_of(spec, &be, NULL, 0);
    if (be.takes_prefix_ttl) {
        o.prefix = c->claim_prefix[0] ? c->claim_prefix : NULL;
        o.ttl_ms = c->claim_ttl_ms;
    }
    char err[512] = "";
    int rc = toid_claimer_open(spec, &o, out, err, sizeof err);
    if (rc < 0) {
        log_err("claims %s: %s", spec, err[0] ? err : toid_claim_strerror(rc));
        return -1;
    }
    return 0;
}

int claims_start(const server_config *c) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    mark_wait_ms = c->mark_wait_max_ms;
    pthread_once(&once, make_cv);
    char spec[2048];
    if (!c->no_state) {
        snprintf(spec, sizeof spec, "local=%s", c->state_dir);
        if (open_backend(spec, c, &state_cl) < 0)
            return -1;
    }
    /* The node formats claim where config.c said (--claim, the host's
     * configuration, else the host's registry); a server of no node format
     * opens no registry, and needs none set up. */
    int node_formats = 0;
    for (int i = 0; i < TOID_FORMAT_COUNT; i++)
        node_formats |= c->enabled[i] && config_is_node_format((toid_format)i);
    if (c->claim_spec[0] && node_formats) {
        if (open_backend(c->claim_spec, c, &node_cl) < 0)
            return -1;
        snprintf(node_spec, sizeof node_spec, "%s", c->claim_spec);
        toid_claim_backend_info be = {0};
        toid_claim_backend_of(c->claim_spec, &be, NULL, 0);
        node_backend = be.kind ? be.kind : "local";
        node_leases = be.leases;
        uint32_t ttl = c->claim_ttl_ms ? c->claim_ttl_ms : 10000;
        retry_ms = ttl / 8 < 100 ? 100 : ttl / 8 > 1000 ? 1000 : ttl / 8;
    } else {
        node_cl = NULL;     /* --no-state without --claim: the configured node, unclaimed */
        snprintf(node_spec, sizeof node_spec, "none");
    }
    for (int i = 0; i < TOID_FORMAT_COUNT; i++) {
        toid_format f = (toid_format)i;
        fslot *s = &slots[i];
        s->enabled = c->enabled[i];
        s->node_format = config_is_node_format(f);
        s->cl = s->node_format ? node_cl : state_cl;
        s->lo = s->node_format ? c->node_lo[i] : 0;
        s->hi = s->node_format ? c->node_hi[i] : 0;
        s->fixed = !s->node_format || c->node_given[i];
        s->gcfg = c->gen[i];
        s->epoch_ms = config_epoch(c, f);
        atomic_store(&s->node, -1);
        if (!s->enabled)
            continue;
        if (!s->cl) {          /* no claims at all: the configured node, no guarantee */
            if (publish(f, NULL, config_node(c, f)) < 0)
                return -1;
            continue;
        }
        /* A node format may start without a node (and keep trying) when its
         * range is full or its distributed backend is away; a held fixed
         * node, or anything wrong with local state (corrupt, ahead of the
         * clock), stops the start: it needs an operator. */
        int away_ok = s->node_format && node_leases;    /* a backend with leases may be away a while */
        int ranged = s->node_format && !s->fixed;
        int rc = try_claim(f, 1, !away_ok && !ranged);
        if (rc == 0)
            continue;
        if (rc == TOID_CLAIM_EBUSY && s->fixed) {
            log_err("%s node %" PRIu32 " is in use by another generator (its claim is held "
                    "in %s): refusing to start a second generator with the same id",
                    fname(f), s->lo, s->node_format ? node_spec : spec);
            return -1;
        }
        if (!away_ok && !(ranged && rc == TOID_CLAIM_EBUSY)) {
            char range[32];
            range_text(s, range, sizeof range);
            log_err("%s: cannot claim node %s (%s): %s: refusing to start", fname(f), range,
                    s->node_format ? node_spec : spec, toid_claim_strerror(rc));
            return -1;
        }
        s->next_try = mono_ms() + retry_ms;
    }
    pthread_mutex_lock(&w_mu);
    watcher_stop = 0;
    watcher_running = pthread_create(&watcher, NULL, watcher_main, NULL) == 0;
    pthread_mutex_unlock(&w_mu);
    if (!watcher_running) {
        log_err("cannot start the claim watcher thread");
        return -1;
    }
    return 0;
}

void claims_stop(int clean) {
    pthread_mutex_lock(&w_mu);
    int running = watcher_running;
    watcher_stop = 1;
    pthread_cond_signal(&w_cv);
    pthread_mutex_unlock(&w_mu);
    if (running)
        pthread_join(watcher, NULL);
    watcher_running = 0;
    for (int i = 0; i < TOID_FORMAT_COUNT; i++)
        retire((toid_format)i, CLAIMS_ELOST, ST_OFF, clean);
    if (node_cl && node_cl != state_cl)
        toid_claimer_close(node_cl);
    if (state_cl)
        toid_claimer_close(state_cl);
    node_cl = state_cl = NULL;
}

/* ---------------------------------------------------------------- reports */

int64_t claims_node(toid_format f) {
    return (unsigned)f < TOID_FORMAT_COUNT ? atomic_load(&slots[f].node) : -1;
}

int claims_health(sbuf *o) {
    int bad = 0;
    for (int i = 0; i < TOID_FORMAT_COUNT; i++) {
        fslot *s = &slots[i];
        if (!s->enabled)
            continue;
        /* Published but past its deadline counts as unserved: requests are
         * refused from that instant (toid_claim_admit), before the watcher
         * notices and unpublishes. So does a mark write that requests have
         * waited for longer than they may (a frozen disk, a silent backend):
         * they are refused after --mark-wait-max-ms. */
        int why;
        const served *sv = claims_enter((toid_format)i, &why);
        int lapsed = sv && sv->claim && !toid_claim_valid(sv->claim, NULL);
        int64_t waited = sv && sv->claim ? toid_claim_mark_wait_ms(sv->claim) : 0;
        claims_leave();
        if (sv && !lapsed && waited > (int64_t)mark_wait_ms)
            sbuf_printf(o, "unserved: %s (a high-water mark write pending for %" PRId64 " ms, "
                        "over --mark-wait-max-ms %" PRIu32 ": %s stalled)\n",
                        fname((toid_format)i), waited, mark_wait_ms,
                        s->node_format ? node_spec : "the state directory's disk");
        if (sv && !lapsed) {
            bad |= waited > (int64_t)mark_wait_ms;
            continue;
        }
        char range[32];
        range_text(s, range, sizeof range);
        int st = atomic_load(&s->state);
        sbuf_printf(o, "unserved: %s (%s in %s)\n", fname((toid_format)i),
                    lapsed               ? "claim past its deadline, not renewed"
                    : st == ST_NO_NODE ? "no free node"
                    : st == ST_LOST    ? "claim lost, claiming again"
                                       : "claim backend failing",
                    range);
        bad = 1;
    }
    return bad;
}

static int gauge_head(sbuf *o, const char *name, const char *type, const char *help) {
    return sbuf_printf(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

int claims_metrics(sbuf *o) {
    int rc = gauge_head(o, "toidd_claim_state", "gauge",
                        "The claim of each generated format: 1 for its current state.");
    for (int i = 0; i < TOID_FORMAT_COUNT; i++) {
        if (!slots[i].enabled)
            continue;
        int st = atomic_load(&slots[i].state);
        for (int k = ST_HELD; k < ST_COUNT; k++)
            rc |= sbuf_printf(o, "toidd_claim_state{format=\"%s\",state=\"%s\"} %d\n",
                              fname((toid_format)i), st_names[k], st == k);
    }
    rc |= gauge_head(o, "toidd_claim_node", "gauge", "The node each format holds (-1: none).");
    for (int i = 0; i < TOID_FORMAT_COUNT; i++)
        if (slots[i].enabled)
            rc |= sbuf_printf(o, "toidd_claim_node{format=\"%s\"} %" PRId64 "\n",
                              fname((toid_format)i), atomic_load(&slots[i].node));
    rc |= gauge_head(o, "toidd_claim_deadline_seconds", "gauge",
                     "Seconds until the claim's deadline unless renewed (+Inf: a local claim; "
                     "0: none held).");
    int64_t now = mono_ms();
    for (int i = 0; i < TOID_FORMAT_COUNT; i++) {
        if (!slots[i].enabled)
            continue;
        int64_t at = atomic_load(&slots[i].deadline_at);
        if (!atomic_load(&slots[i].cur))
            rc |= sbuf_printf(o, "toidd_claim_deadline_seconds{format=\"%s\"} 0\n",
                              fname((toid_format)i));
        else if (at == INT64_MAX)
            rc |= sbuf_printf(o, "toidd_claim_deadline_seconds{format=\"%s\"} +Inf\n",
                              fname((toid_format)i));
        else
            rc |= sbuf_printf(o, "toidd_claim_deadline_seconds{format=\"%s\"} %.3f\n",
                              fname((toid_format)i), at > now ? (double)(at - now) / 1000.0 : 0.0);
    }
    static const struct {
        const char *name, *help;
        size_t off;
    } counters[] = {
        {"toidd_claim_acquired_total", "Claims taken (at start and after a loss).",
         offsetof(fslot, acquired)},
        {"toidd_claim_lost_total", "Claims lost or run past their deadline.", offsetof(fslot, lost)},
        {"toidd_claim_failures_total", "Attempts to claim that failed (no free node, backend).",
         offsetof(fslot, failures)},
    };
    for (size_t c = 0; c < sizeof counters / sizeof counters[0]; c++) {
        rc |= gauge_head(o, counters[c].name, "counter", counters[c].help);
        for (int i = 0; i < TOID_FORMAT_COUNT; i++)
            if (slots[i].enabled)
                rc |= sbuf_printf(o, "%s{format=\"%s\"} %" PRIu64 "\n", counters[c].name,
                                  fname((toid_format)i),
                                  atomic_load((_Atomic uint64_t *)((char *)&slots[i] + counters[c].off)));
    }
    toid_claim_stats st = {0}, sn = {0};
    if (state_cl)
        toid_claimer_stats(state_cl, &st);
    if (node_cl && node_cl != state_cl)
        toid_claimer_stats(node_cl, &sn);
    rc |= sbuf_printf(o, "# HELP toidd_claim_renewals_total Claims renewed (etcd keepalives).\n"
                         "# TYPE toidd_claim_renewals_total counter\n"
                         "toidd_claim_renewals_total{backend=\"%s\"} %" PRIu64 "\n"
                         "# HELP toidd_claim_renewal_failures_total Renewals that failed.\n"
                         "# TYPE toidd_claim_renewal_failures_total counter\n"
                         "toidd_claim_renewal_failures_total{backend=\"%s\"} %" PRIu64 "\n",
                      node_backend, sn.renewals, node_backend, sn.renewal_failures);
    rc |= sbuf_printf(o, "# HELP toidd_state_writes_total High-water marks persisted.\n"
                         "# TYPE toidd_state_writes_total counter\n"
                         "toidd_state_writes_total %" PRIu64 "\n"
                         "# HELP toidd_state_request_writes_total Marks written by a request, "
                         "which waited for the write.\n"
                         "# TYPE toidd_state_request_writes_total counter\n"
                         "toidd_state_request_writes_total %" PRIu64 "\n"
                         "# HELP toidd_state_write_errors_total Failed writes of a mark.\n"
                         "# TYPE toidd_state_write_errors_total counter\n"
                         "toidd_state_write_errors_total %" PRIu64 "\n",
                      st.mark_writes + sn.mark_writes, st.request_writes + sn.request_writes,
                      st.mark_write_errors + sn.mark_write_errors);
    return rc ? -1 : 0;
}

const char *claims_strerror(int err) {
    switch (err) {
    case CLAIMS_ENONODE: return "no free node in the range (every one is held by another holder); trying again";
    case CLAIMS_ELOST: return "the node claim was lost or ran past its deadline; claiming again";
    case CLAIMS_EBACKEND: return "the claim backend is failing; trying again";
    case TOID_CLAIM_EBUSY: case TOID_CLAIM_EBEHIND: case TOID_CLAIM_EIO: case TOID_CLAIM_ELOST:
    case TOID_CLAIM_ECORRUPT:
        return toid_claim_strerror(err);
    default: return NULL;
    }
}

const char *claims_err_name(int err) {
    switch (err) {
    case CLAIMS_ENONODE: return "no_free_node";
    case CLAIMS_ELOST: case TOID_CLAIM_ELOST: return "claim_lost";
    case CLAIMS_EBACKEND: case TOID_CLAIM_EIO: return "claim_backend";
    case TOID_CLAIM_EBEHIND: return "behind";
    case TOID_CLAIM_EBUSY: return "busy";
    case TOID_CLAIM_ECORRUPT: return "corrupt";
    default: return NULL;
    }
}
