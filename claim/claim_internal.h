/* claim_internal.h — what the claim core (claim.c) and its backends
 * (claim_local.c, claim_etcd.c) share: the claimer and claim structures and
 * the backend interface. Not installed. */
#ifndef TOID_CLAIM_INTERNAL_H
#define TOID_CLAIM_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>

#include "toid_claim.h"

/* A backend: the core calls these; each returns 0 or a TOID_CLAIM_* code
 * (and logs the reason through claim_log). */
typedef struct claim_backend {
    const char *kind; /* "local", "etcd" */
    toid_claim_backend_info info;   /* what front ends may ask of it (toid_claim_backend_of) */
    /* Opens the backend from the text after "kind" ("" or "=..."). */
    int (*open)(toid_claimer *c, const char *arg, char *err, size_t err_size);
    /* Marks in held[0..hi-lo] the nodes of [lo, hi] known to be held by
     * someone (a hint: take decides); NULL if the backend cannot list. */
    int (*held)(toid_claimer *c, toid_format f, uint32_t lo, uint32_t hi, uint8_t *held);
    /* Who holds each node of [lo, hi], for the message when every one is
     * taken: who[n - lo] gets "pid P" or "host H, pid P" ("" if unknown).
     * NULL: the backend cannot tell. */
    void (*holders)(toid_claimer *c, toid_format f, uint32_t lo, uint32_t hi, char (*who)[64]);
    /* Takes k->node of k->format exclusively (TOID_CLAIM_EBUSY if held) and
     * reads the previous holder's mark into *prev (INT64_MIN: none, nothing
     * to wait for). On success k->bk is set. */
    int (*take)(toid_claimer *c, toid_claim *k, int64_t *prev);
    /* Persists mark for k: 0 once durable, TOID_CLAIM_EIO, or
     * TOID_CLAIM_ELOST when the backend says the claim is no longer ours.
     * A remote backend gives up at CLOCK_MONOTONIC ms until (the claim's
     * deadline: a write finished later would not help). */
    int (*write_mark)(toid_claim *k, int64_t mark, int64_t until);
    /* After the first reservation is durable (may be NULL). */
    int (*taken)(toid_claim *k);
    /* Gives the node up and frees k->bk (the mark stays). io == 0 (in a
     * child after fork(), whose claims are the parent's): only frees, no
     * lock, no file or network I/O. */
    void (*drop)(toid_claim *k, int io);
    /* Background work (renewals); returns the CLOCK_MONOTONIC ms at which it
     * wants to run again (INT64_MAX: never). NULL: none. */
    int64_t (*tick)(toid_claimer *c, int64_t now_mono);
    /* Frees the backend (every claim dropped already); io as for drop. */
    void (*close)(toid_claimer *c, int io);
} claim_backend;

extern const claim_backend claim_backend_local;
#ifdef TOID_CLAIM_HAVE_ETCD
extern const claim_backend claim_backend_etcd;
#endif

struct toid_claim {
    toid_claimer *c;
    toid_format format;
    uint32_t node;
    int64_t epoch_ms;
    char name[64];                   /* "nanoflake-5" */
    int single;                      /* asked for this node only: a busy node is an error
                                        the backend logs, naming the holder */
    int other_epoch;                 /* set by take() with TOID_CLAIM_ECORRUPT when the
                                        node's mark is well-formed but for another epoch */
    int64_t floor_ms;                /* the previous holder's mark: IDs must be after it */
    _Atomic int64_t ceiling_ms;      /* the durable mark: IDs must be at or before it */
    _Atomic int64_t max_admitted_ms; /* the largest time admitted (or the start) */
    _Atomic int64_t deadline_mono;   /* CLOCK_MONOTONIC ms; INT64_MAX: none */
    _Atomic int lost;                /* the backend said it is not ours any more */
    _Atomic int released;            /* given up by this process (claim_retire, or inherited
                                        through fork() and abandoned): admits refuse */
    _Atomic int want_extend;         /* asked the background thread to move the mark */
    _Atomic int64_t want_at_least_ms;/* ...to at least this (admits past the ceiling) */
    _Atomic int64_t asked_mono;      /* CLOCK_MONOTONIC ms when an admit began to wait for
                                        a write the thread has not finished; 0: none */
    _Atomic unsigned write_failures; /* the thread's failed writes, for waiting admits */
    _Atomic int write_rc;            /* the last failure's code */
    _Atomic int stall_logged;        /* a stalled write was logged (once per stall) */
    pthread_mutex_t mu;              /* serialises writes of the mark */
    toid_claim *next;                /* the claimer's list, under c->mu */
    int pins;                        /* under c->mu: the thread is writing its mark
                                        without c->mu; release waits for 0 */
    void *bk;                        /* the backend's part */
};

struct toid_claimer {
    const claim_backend *be;
    toid_claimer_opts o;     /* with the defaults filled in */
    char prefix[256];
    pthread_mutex_t mu;      /* the list of claims, the thread's wake-ups */
    pthread_cond_t cv;       /* on CLOCK_MONOTONIC: wakes the thread */
    int kick;                /* under mu: an admit waits for a write; do not sleep */
    pthread_cond_t unpinned; /* a claim's pins fell to 0 */
    unsigned fork_gen;       /* claim_fork_gen when opened: another value means
                                this is a child of fork() (see claim_forked) */
    toid_claim **batch;      /* the thread's: the claims it pinned */
    size_t batch_cap;
    pthread_t thread;
    int running, stop;
    toid_claim *claims;
    _Atomic uint64_t renewals, renewal_failures, mark_writes, request_writes, mark_write_errors,
        lost;
    void *bk;                /* the backend's part */
};

/* A message to the claimer's log (one line, no newline). */
void claim_log(const toid_claimer *c, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* snprintf into err (err_size may be 0). */
void claim_err(char *err, size_t err_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* CLOCK_MONOTONIC in ms. */
int64_t claim_mono_ms(void);
void claim_sleep_ms(int64_t ms);

/* For backends with leases: every claim of c gets this deadline. */
void claim_set_deadlines(toid_claimer *c, int64_t deadline_mono);
/* Every claim of c is lost (the lease is gone); logged once per claim. */
void claim_lose_all(toid_claimer *c, const char *why);
/* Whether a claim of c holds (f, node). */
int claim_held_here(toid_claimer *c, toid_format f, uint32_t node);
/* Wakes the background thread (without c->mu: a wake-up that races with
 * the thread going to sleep is lost, and the next tick, at most 250 ms
 * later, does the work). */
void claim_wake(toid_claimer *c);
/* 1 in a child process of fork() made after c was opened: c's claims are
 * the parent's, and the child must not issue IDs of their nodes. */
int claim_forked(const toid_claimer *c);

/* Gives k up as toid_claim_release does (clean: the mark lowered to the
 * largest time admitted), but k stays allocated, refusing every admit
 * (TOID_CLAIM_ELOST), so that a pointer to it kept by another thread stays
 * safe. Unlike toid_claim_release it may race with admits of other threads:
 * an ID they admit either is covered by the lowered mark or is refused. */
void claim_retire(toid_claim *k, int clean);

/* In a child of fork(), for a claimer opened before it: gives up the
 * child's copies of what the parent holds (lock files, the backend's
 * memory) without a lock and without I/O, and leaves c and its claims
 * allocated, refusing everything, for pointers kept from before the fork. */
void claim_abandon_forked(toid_claimer *c);

/* The claim configuration file toid_claim_host_config reads: TOID_CLAIM_CONF,
 * else /etc/toid/claim.conf (for messages). */
const char *claim_host_conf_path(void);

#endif
