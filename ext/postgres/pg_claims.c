/*
 * pg_claims.c — node claims for the cluster's shared generators of the node
 * formats (nanoflake, ulid-flake-scalable).
 *
 * Without them, two clusters given one toid.node (or two pods of one image)
 * issued the same IDs: 125,916 of 200,000 nanoflakes twice. Now, with toid
 * in shared_preload_libraries, a background worker ("toid claims") claims a
 * node per node format for the whole cluster from the claim library
 * (claim/toid_claim.h): where toid.claim says, else the host's claim
 * configuration (TOID_CLAIM in the server's environment, /etc/toid/claim.conf),
 * else the host's node registry /var/lib/toid/claims (the postgres user must
 * be in group toid). toid.node, when set, is the node asked for, claimed
 * too (refused while another holder has it); unset, the lowest free one.
 *
 * The worker is the claim's only holder (the claim library keeps a claim to
 * the process that took it); the backends see it through shared memory:
 *   state, node, and why (for the refusals and the toid_claims view);
 *   ceiling_ms  the claim's durable mark: an ID leaves a backend only at or
 *               before it (the worker keeps it toid.mark_reserve_ms ahead,
 *               every 100 ms or when a backend asks through its latch);
 *   deadline    CLOCK_MONOTONIC ms (INT64_MAX: none, local claims): past it
 *               nothing is issued (an etcd lease not renewed in time);
 *   epoch       counts the claims taken: an ID made under one claim is not
 *               admitted under the next.
 * The worker (re)initialises a format's shared generator with the claimed
 * node holding that format's lock exclusively; backends make IDs holding it
 * shared. When a claim is lost the format is refused (SQLSTATE 55000) until
 * the worker claims again. A crash of the worker restarts the cluster
 * (shared memory access): its local locks go with the process, and the next
 * worker waits past the node's mark as any new holder does.
 */
#include "pgtoid.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/wait_event.h"

#include "toid_claim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

PG_FUNCTION_INFO_V1(toid_pg_claims);
PGDLLEXPORT void toid_pg_claims_main(Datum arg);

#define TRANCHE "toid claims"
#define SLOTS 2                     /* the node formats */
#define WAIT_CEILING_MS 5000        /* a backend waits this long for the worker to move a mark */

enum { CL_WAITING, CL_READY, CL_REFUSED };
static const char *const state_names[] = {"claiming", "held", "refused"};

typedef struct claim_slot {
    toid_format f;
    pg_atomic_uint32 state;
    pg_atomic_uint32 epoch;
    pg_atomic_uint64 ceiling_ms;
    pg_atomic_uint64 deadline_mono;
    pg_atomic_uint64 wanted_ms;     /* the largest ID time a backend waits to see admitted */
    int node;                       /* -1: none */
    char backend[16];
    char why[400];                  /* under the lock */
} claim_slot;

typedef struct claims_shared {
    Latch *worker_latch;
    claim_slot slot[SLOTS];
} claims_shared;

static claims_shared *cs;
static LWLockPadded *locks;
static char *claim_setting = NULL;  /* toid.claim */
static int claim_ttl_setting = 0;    /* toid.claim_ttl, seconds; 0: the source's */
static char *claim_prefix_setting = NULL;  /* toid.claim_prefix; empty: the source's */

static int64 mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static claim_slot *slot_of(toid_format f) {
    if (!cs)
        return NULL;
    for (int i = 0; i < SLOTS; i++)
        if (cs->slot[i].f == f)
            return &cs->slot[i];
    return NULL;
}

/* ---- start-up ----------------------------------------------------------- */

void pgtoid_claims_init(void) {
    BackgroundWorker w;
    DefineCustomStringVariable("toid.claim",
                               "Where the node formats' nodes are claimed: local, local=DIR or etcd=URL[,URL...].",
                               "Empty (the default): the host's claim configuration (TOID_CLAIM, "
                               "/etc/toid/claim.conf), else the host's node registry.",
                               &claim_setting, "",
                               /* read at start; a non-preloaded load cannot define PGC_POSTMASTER */
                               process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP,
                               0, NULL, NULL, NULL);
    DefineCustomIntVariable("toid.claim_ttl",
                            "The lease of the node claims in etcd, in seconds (a backend with leases only).",
                            "0 (the default): the host's claim configuration's (TOID_CLAIM_TTL, ttl =), "
                            "else the backend's (10 s).",
                            &claim_ttl_setting, 0, 0, 3600,
                            process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP,
                            GUC_UNIT_S, NULL, NULL, NULL);
    DefineCustomStringVariable("toid.claim_prefix",
                               "The key prefix of the node claims in etcd (a backend with leases only).",
                               "Empty (the default): the host's claim configuration's (TOID_CLAIM_PREFIX, "
                               "prefix =), else /toid.",
                               &claim_prefix_setting, "",
                               process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP,
                               0, NULL, NULL, NULL);
    if (!process_shared_preload_libraries_in_progress)
        return;
    memset(&w, 0, sizeof w);
    w.bgw_flags = BGWORKER_SHMEM_ACCESS;
    w.bgw_start_time = BgWorkerStart_RecoveryFinished;   /* a standby makes no IDs */
    w.bgw_restart_time = 1;
    /* the worker loads this very file (the path it was preloaded from may
     * be anything: "$libdir/toid", or a test's staging tree) */
    {
        Dl_info self;
        if (dladdr((void *)pgtoid_claims_init, &self) && self.dli_fname && strlen(self.dli_fname) < BGW_MAXLEN)
            snprintf(w.bgw_library_name, BGW_MAXLEN, "%s", self.dli_fname);
        else
            snprintf(w.bgw_library_name, BGW_MAXLEN, "toid");
    }
    snprintf(w.bgw_function_name, BGW_MAXLEN, "toid_pg_claims_main");
    snprintf(w.bgw_name, BGW_MAXLEN, "toid claims");
    snprintf(w.bgw_type, BGW_MAXLEN, "toid claims");
    RegisterBackgroundWorker(&w);
}

void pgtoid_claims_request(void) {
    RequestAddinShmemSpace(MAXALIGN(sizeof(claims_shared)));
    RequestNamedLWLockTranche(TRANCHE, SLOTS);
}

/* In the postmaster (AddinShmemInitLock held): every node format waits for
 * the worker's claim. */
void pgtoid_claims_startup(void) {
    bool found;
    int n = 0;
    cs = ShmemInitStruct("toid claims", sizeof(claims_shared), &found);
    locks = GetNamedLWLockTranche(TRANCHE);
    if (found)
        return;
    memset(cs, 0, sizeof *cs);
    for (int f = 0; f < TOID_FORMAT_COUNT && n < SLOTS; f++) {
        if (pgtoid_format_of((toid_format)f)->node_max < 0)
            continue;
        cs->slot[n].f = (toid_format)f;
        cs->slot[n].node = -1;
        pg_atomic_init_u32(&cs->slot[n].state, CL_WAITING);
        pg_atomic_init_u32(&cs->slot[n].epoch, 0);
        pg_atomic_init_u64(&cs->slot[n].ceiling_ms, 0);
        pg_atomic_init_u64(&cs->slot[n].deadline_mono, 0);
        pg_atomic_init_u64(&cs->slot[n].wanted_ms, 0);
        snprintf(cs->slot[n].why, sizeof cs->slot[n].why, "the toid claims worker has not claimed a node yet");
        n++;
    }
}

/* ---- the request path --------------------------------------------------- */

bool pgtoid_claims_enabled(void) { return cs != NULL; }

static pg_attribute_noreturn() void refuse(const pgtoid_fmt *fmt, claim_slot *s) {
    char why[sizeof s->why];
    LWLockAcquire(&locks[s - cs->slot].lock, LW_SHARED);
    strlcpy(why, s->why, sizeof why);
    LWLockRelease(&locks[s - cs->slot].lock);
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("%s: no node claimed for this cluster", fmt->name),
                    errdetail("%s", why),
                    errhint("SELECT * FROM toid_claims shows the claims; see toid.claim and toid.node.")));
}

int pgtoid_claims_next(const pgtoid_fmt *fmt, toid_gen *g, uint8_t *bin) {
    claim_slot *s = slot_of(fmt->f);
    LWLock *lock;
    uint32 epoch;
    int64 ms, waited = 0;
    int rc;
    if (!s)
        return toid_gen_next(g, bin, NULL);
    lock = &locks[s - cs->slot].lock;
    /* just after a start (or a lost claim) the worker is claiming: wait */
    while (pg_atomic_read_u32(&s->state) == CL_WAITING && waited < WAIT_CEILING_MS) {
        CHECK_FOR_INTERRUPTS();
        pg_usleep(1000L);
        waited++;
    }
    waited = 0;
    LWLockAcquire(lock, LW_SHARED);
    if (pg_atomic_read_u32(&s->state) != CL_READY) {
        LWLockRelease(lock);
        refuse(fmt, s);
    }
    epoch = pg_atomic_read_u32(&s->epoch);
    rc = toid_gen_next(g, bin, NULL);
    LWLockRelease(lock);
    if (rc < 0)
        return rc;
    if (toid_time_of(fmt->f, bin, TOID_EPOCH_DEFAULT, &ms) < 0)
        elog(ERROR, "toid: the time of a new %s", fmt->name);
    /* admitted: the claim it was made under is still the one, valid, and
     * its durable mark covers it (else ask the worker, and wait, bounded) */
    for (;;) {
        if (pg_atomic_read_u32(&s->state) != CL_READY || pg_atomic_read_u32(&s->epoch) != epoch)
            refuse(fmt, s);
        if (mono_ms() >= (int64)pg_atomic_read_u64(&s->deadline_mono))
            ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                            errmsg("%s: the node claim is past its deadline (not renewed in time)", fmt->name),
                            errhint("The claims backend may be unreachable; SELECT * FROM toid_claims.")));
        if (ms <= (int64)pg_atomic_read_u64(&s->ceiling_ms))
            return 0;
        if (waited >= WAIT_CEILING_MS)
            ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                            errmsg("%s: the node claim's mark was not moved ahead in time", fmt->name),
                            errhint("SELECT * FROM toid_claims; the server log says why.")));
        {
            uint64 cur = pg_atomic_read_u64(&s->wanted_ms);
            while ((int64)cur < ms && !pg_atomic_compare_exchange_u64(&s->wanted_ms, &cur, (uint64)ms)) {
            }
        }
        if (cs->worker_latch)
            SetLatch(cs->worker_latch);
        CHECK_FOR_INTERRUPTS();
        pg_usleep(1000L);
        waited++;
    }
}

/* ---- the worker --------------------------------------------------------- */

/* The claim library's messages: to the server log (stderr: its thread must
 * not call ereport), the last error kept for the slot being claimed. */
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char last_error[400];

static void claim_log_cb(void *ctx, int level, const char *msg) {
    (void)ctx;
    fprintf(stderr, "toid claims: %s: %s\n", level == TOID_CLAIM_LOG_ERR ? "error" : level == TOID_CLAIM_LOG_WARN ? "warning" : "info", msg);
    if (level == TOID_CLAIM_LOG_ERR) {
        pthread_mutex_lock(&log_mu);
        strlcpy(last_error, msg, sizeof last_error);
        pthread_mutex_unlock(&log_mu);
    }
}

static void set_why(claim_slot *s, const char *why) {
    LWLockAcquire(&locks[s - cs->slot].lock, LW_EXCLUSIVE);
    strlcpy(s->why, why, sizeof s->why);
    LWLockRelease(&locks[s - cs->slot].lock);
}

static void refuse_all(const char *why) {
    for (int i = 0; i < SLOTS; i++) {
        set_why(&cs->slot[i], why);
        pg_atomic_write_u32(&cs->slot[i].state, CL_REFUSED);
    }
}

/* Opens the claimer from toid.claim, else the host's configuration, else
 * "local". NULL, with every slot refused and why, on failure. */
static toid_claimer *open_claimer(const char **kind) {
    toid_claim_host h;
    toid_claimer_opts o;
    toid_claimer *c = NULL;
    toid_claim_backend_info info;
    char err[600] = "", why[400];
    const char *spec, *from;
    memset(&o, 0, sizeof o);
    o.log = claim_log_cb;
    if (claim_setting && claim_setting[0]) {
        spec = claim_setting;
        from = "toid.claim";
        memset(&h, 0, sizeof h);
    } else if (toid_claim_host_config(&h, err, sizeof err) < 0) {
        snprintf(why, sizeof why, "the host's claim configuration: %s", err);
        refuse_all(why);
        ereport(LOG, (errmsg("toid claims: %s", why)));
        return NULL;
    } else {
        spec = h.spec[0] ? h.spec : "local";
        from = h.spec[0] ? h.source : "the host's node registry";
        o.prefix = h.prefix[0] ? h.prefix : NULL;
        o.ttl_ms = h.ttl_ms;
    }
    /* toid.claim_ttl and toid.claim_prefix, when set, override the source's */
    if (claim_ttl_setting > 0)
        o.ttl_ms = (uint32)claim_ttl_setting * 1000;
    if (claim_prefix_setting && claim_prefix_setting[0])
        o.prefix = claim_prefix_setting;
    if (toid_claim_backend_of(spec, &info, NULL, 0) == 0) {
        *kind = info.kind;
        if ((claim_ttl_setting > 0 || (claim_prefix_setting && claim_prefix_setting[0])) &&
            !info.takes_prefix_ttl) {
            snprintf(why, sizeof why, "toid.claim_ttl and toid.claim_prefix are for a backend with "
                     "leases (etcd=URL); %s (%s) is %s", from, spec, info.kind);
            refuse_all(why);
            ereport(LOG, (errmsg("toid claims: %s", why)));
            return NULL;
        }
    }
    if (toid_claimer_open(spec, &o, &c, err, sizeof err) < 0) {
        snprintf(why, sizeof why, "cannot claim from %s (%s): %s", from, spec, err);
        refuse_all(why);
        ereport(LOG, (errmsg("toid claims: %s", why)));
        return NULL;
    }
    return c;
}

/* Claims a node of s's format; on success the shared generator is
 * initialised with it and the format is served. */
static toid_claim *claim_node(toid_claimer *c, claim_slot *s, int node_setting, const char *kind) {
    toid_claim *k = NULL;
    const pgtoid_fmt *fmt = pgtoid_format_of(s->f);
    uint32 lo = node_setting >= 0 ? (uint32)node_setting : 0;
    uint32 hi = node_setting >= 0 ? (uint32)node_setting : (uint32)fmt->node_max;
    char why[400];
    int rc;
    if (node_setting > fmt->node_max) {
        snprintf(why, sizeof why, "toid.node = %d is out of range for %s (0..%d)", node_setting, fmt->name, fmt->node_max);
        set_why(s, why);
        pg_atomic_write_u32(&s->state, CL_REFUSED);
        return NULL;
    }
    pthread_mutex_lock(&log_mu);
    last_error[0] = '\0';
    pthread_mutex_unlock(&log_mu);
    rc = toid_claim_acquire(c, s->f, toid_format_get(s->f)->default_epoch_ms, lo, hi, &k);
    ereport(DEBUG1, (errmsg("toid claims: %s %u-%u: %d", fmt->name, lo, hi, rc)));
    if (rc < 0) {
        pthread_mutex_lock(&log_mu);
        snprintf(why, sizeof why, "%s", last_error[0] ? last_error : toid_claim_strerror(rc));
        pthread_mutex_unlock(&log_mu);
        set_why(s, why);
        pg_atomic_write_u32(&s->state, CL_REFUSED);
        return NULL;
    }
    LWLockAcquire(&locks[s - cs->slot].lock, LW_EXCLUSIVE);
    rc = pgtoid_gen_reinit(s->f, toid_claim_node(k));
    if (rc == 0) {
        s->node = (int)toid_claim_node(k);
        strlcpy(s->backend, kind, sizeof s->backend);
        s->why[0] = '\0';
        pg_atomic_write_u64(&s->ceiling_ms, 0);
        pg_atomic_write_u64(&s->deadline_mono, (uint64)INT64_MAX);
        pg_atomic_fetch_add_u32(&s->epoch, 1);
        pg_atomic_write_u32(&s->state, CL_READY);
    } else {
        snprintf(s->why, sizeof s->why, "%s generator: %s", fmt->name, toid_strerror(rc));
        pg_atomic_write_u32(&s->state, CL_REFUSED);
    }
    LWLockRelease(&locks[s - cs->slot].lock);
    if (rc != 0) {
        toid_claim_release(k, 1);
        return NULL;
    }
    ereport(LOG, (errmsg("toid claims: %s node %d claimed (%s)", fmt->name, s->node, kind)));
    return k;
}

/* Keeps k's mark ahead of the clock and of what backends wait for, and
 * publishes the ceiling and deadline; 0, or -1 when the claim is gone. */
static int keep(claim_slot *s, toid_claim *k, int reserve) {
    int64 left = 0, now = toid_clock_now(NULL);
    int64 wanted = (int64)pg_atomic_read_u64(&s->wanted_ms);
    int64 target = Max(now, wanted) + reserve;
    if (!toid_claim_valid(k, &left))
        return -1;
    if (toid_claim_admit(k, now, target) < 0)
        return toid_claim_valid(k, NULL) ? 0 : -1;   /* a failed write: backends wait, then refuse */
    pg_atomic_write_u64(&s->deadline_mono, left == INT64_MAX ? (uint64)INT64_MAX : (uint64)(mono_ms() + left));
    pg_atomic_write_u64(&s->ceiling_ms, (uint64)target);
    return 0;
}

static void lose(claim_slot *s, toid_claim **k) {
    char why[400];
    snprintf(why, sizeof why, "the claim of %s node %d was lost or passed its deadline; claiming again",
             pgtoid_format_of(s->f)->name, s->node);
    pg_atomic_write_u32(&s->state, CL_WAITING);
    set_why(s, why);
    ereport(LOG, (errmsg("toid claims: %s", why)));
    toid_claim_release(*k, 0);
    *k = NULL;
}

void toid_pg_claims_main(Datum arg) {
    toid_claimer *c = NULL;
    toid_claim *k[SLOTS] = {NULL};
    int64 next_try[SLOTS] = {0};    /* a refused claim is tried again once a second */
    const char *kind = "local";
    int64 next_open = 0;
    (void)arg;
    pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
    pqsignal(SIGHUP, SignalHandlerForConfigReload);
    BackgroundWorkerUnblockSignals();
    cs->worker_latch = MyLatch;
    for (;;) {
        if (!c && mono_ms() >= next_open) {
            /* The claimer's thread starts with every signal blocked:
             * PostgreSQL's handlers are for this thread only. */
            sigset_t all, old;
            sigfillset(&all);
            pthread_sigmask(SIG_BLOCK, &all, &old);
            c = open_claimer(&kind);
            pthread_sigmask(SIG_SETMASK, &old, NULL);
            next_open = mono_ms() + 5000;
        }
        if (ShutdownRequestPending)
            break;
        if (ConfigReloadPending) {
            ConfigReloadPending = false;
            ProcessConfigFile(PGC_SIGHUP);
        }
        for (int i = 0; c && i < SLOTS; i++) {
            claim_slot *s = &cs->slot[i];
            if (!k[i] && mono_ms() >= next_try[i]) {
                k[i] = claim_node(c, s, pgtoid_node_setting(), kind);
                next_try[i] = mono_ms() + 1000;
            }
            if (k[i] && keep(s, k[i], pgtoid_mark_reserve_ms()) < 0)
                lose(s, &k[i]);
        }
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 100, PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
    }
    /* a clean stop: no ID of these nodes any more, the marks lowered */
    for (int i = 0; i < SLOTS; i++) {
        pg_atomic_write_u32(&cs->slot[i].state, CL_WAITING);
        LWLockAcquire(&locks[i].lock, LW_EXCLUSIVE);    /* no backend inside the generator */
        LWLockRelease(&locks[i].lock);
        if (k[i])
            toid_claim_release(k[i], 1);
    }
    if (c)
        toid_claimer_close(c);
    cs->worker_latch = NULL;
    proc_exit(0);
}

/* ---- the view ----------------------------------------------------------- */

Datum toid_pg_claims(PG_FUNCTION_ARGS) {
    ReturnSetInfo *rsinfo = (ReturnSetInfo *)fcinfo->resultinfo;
    InitMaterializedSRF(fcinfo, 0);
    for (int i = 0; cs && i < SLOTS; i++) {
        claim_slot *s = &cs->slot[i];
        Datum v[6];
        bool null[6] = {false, false, false, false, false, false};
        uint32 st;
        int64 dl;
        LWLockAcquire(&locks[i].lock, LW_SHARED);
        st = pg_atomic_read_u32(&s->state);
        dl = (int64)pg_atomic_read_u64(&s->deadline_mono);
        v[0] = CStringGetTextDatum(pgtoid_format_of(s->f)->name);
        v[1] = Int32GetDatum(s->node);
        null[1] = st != CL_READY;
        v[2] = CStringGetTextDatum(s->backend);
        null[2] = st != CL_READY;
        v[3] = CStringGetTextDatum(state_names[st]);
        v[4] = Int64GetDatum(dl - mono_ms());
        null[4] = st != CL_READY || dl == INT64_MAX;
        v[5] = CStringGetTextDatum(s->why);
        null[5] = s->why[0] == '\0';
        LWLockRelease(&locks[i].lock);
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, null);
    }
    return (Datum)0;
}
