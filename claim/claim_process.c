/* claim_process.c — the node claims of a process that makes IDs itself (the
 * SQLite extension; the Python and Node bindings next): toid_claim_process
 * in toid_claim.h.
 *
 * One claimer per process, opened on the first claim from the host's claim
 * configuration (toid_claim_host_config; none: "local", the host's node
 * registry), and one claim per (format, node) the process uses: "the
 * process's node" of a format (the lowest free one, claimed on first need)
 * and each node asked for by number. The claims are held until the process
 * exits (then given back cleanly, so that the next holder does not wait
 * for a mark reserved ahead) or toid_claim_process_release.
 *
 * A claim handed out is never freed while the process lives: callers keep
 * the pointer (one look-up, then atomics per ID), possibly in several
 * threads, and a claim that is released, lost or inherited through fork()
 * must refuse their admits, not dangle. Such a claim is replaced on the
 * next call; the old one (a few hundred bytes) stays behind, refusing.
 *
 * fork(): the child's copy of the parent's claimer is abandoned in the
 * child at once, by a fork handler (claim_abandon_forked: no lock, no I/O,
 * the memory kept; its copies of the lock files closed, so that a child
 * that lives on does not keep its parent's nodes held after the parent
 * exits), and the child's first claim opens a claimer of its own. The fork
 * handlers hold this file's lock across fork(), so that the child finds
 * the list whole (a fork() waits for a claim another thread is making:
 * bounded by the claimer's clock wait and request timeouts). A process
 * made without fork handlers (clone, _Fork) is caught on its first call
 * instead, by the claim library's own fork count, if that ran.
 */
#define _GNU_SOURCE
#include "claim_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One claim the process holds. */
typedef struct held {
    struct held *next;
    toid_claim *k;
    toid_format f;
    int process_node;   /* the process's node of f (asked for with want < 0) */
    int own;            /* toid_claim_process_own: one caller's alone, never shared */
    int64_t epoch_ms;
} held;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static toid_claimer *claimer;   /* NULL until the first claim opens it */
static held *holds;
static char where[1400];        /* "from TOID_CLAIM=...": where claimer's spec came from */
static int exiting;             /* exit() began: the claims were given back */

/* The calling thread's toid_claim_process captures the claim library's
 * error messages here, to return them in err; other messages (the
 * claimer's thread) go to stderr. */
static _Thread_local char *capture;
static _Thread_local size_t capture_size;

static void process_log(void *ctx, int level, const char *msg) {
    (void)ctx;
    if (capture && level == TOID_CLAIM_LOG_ERR) {
        snprintf(capture, capture_size, "%s", msg); /* the last error: the one that decided */
        return;
    }
    if (level > TOID_CLAIM_LOG_WARN)
        return; /* progress notes: not in an application's stderr */
    char line[1200];
    int n = snprintf(line, sizeof line, "toid-claim: %s: %s\n",
                     level == TOID_CLAIM_LOG_ERR ? "error" : "warning", msg);
    if (n > 0) {
        size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
        ssize_t w = write(STDERR_FILENO, line, len); /* one write: lines do not mix */
        (void)w;
    }
}

/* In a child of fork(): forgets the claims of the claimer the parent
 * opened. Called with mu held (or in the child's fork handler). */
static void abandon_parents(void) {
    if (!claimer)
        return;
    claim_abandon_forked(claimer); /* the memory stays: pointers kept before the fork refuse */
    claimer = NULL;
    while (holds) {
        held *h = holds;
        holds = h->next;
        free(h);
    }
    exiting = 0;
}

/* The same, if the claim library counts a fork since claimer was opened
 * that the fork handler below did not see. Called with mu held. */
static void forget_if_forked(void) {
    if (claimer && claim_forked(claimer))
        abandon_parents();
}

/* At exit(): every claim given back cleanly (its mark lowered to the last
 * ID admitted, so that the next holder of the node need not wait for the
 * reservation). Threads still making IDs are refused from here on. */
static void at_exit(void) {
    pthread_mutex_lock(&mu);
    exiting = 1;
    forget_if_forked();
    while (holds) {
        held *h = holds;
        holds = h->next;
        claim_retire(h->k, 1);
        free(h);
    }
    pthread_mutex_unlock(&mu);
}

static void before_fork(void) { pthread_mutex_lock(&mu); }
static void after_fork_parent(void) { pthread_mutex_unlock(&mu); }
/* (close() and free() only: both fine in a fork handler; the claim
 * library's own count of forks may run after this handler, so the child
 * is known here by where it runs, not by claim_forked) */
static void after_fork_child(void) {
    abandon_parents();
    pthread_mutex_unlock(&mu);
}

static void install(void) {
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    atexit(at_exit);
}

uint32_t toid_claim_node_max(toid_format f) {
    const toid_format_info *fi = toid_format_get(f);
    if (!fi)
        return 0;
    if (fi->node_max)
        return fi->node_max;
    return fi->caller_node_bits ? (uint32_t)((1ull << fi->caller_node_bits) - 1) : 0;
}

/* The shared claim of f the process holds for want (< 0: the process's
 * node), or NULL. Called with mu held. */
static held *find(toid_format f, int64_t want) {
    for (held *h = holds; h; h = h->next)
        if (h->f == f && !h->own
            && (want < 0 ? h->process_node : toid_claim_node(h->k) == (uint32_t)want))
            return h;
    return NULL;
}

/* A valid claim of its own (toid_claim_process_own) that holds node n of f,
 * or NULL. Called with mu held. */
static held *find_own(toid_format f, uint32_t n) {
    for (held *h = holds; h; h = h->next)
        if (h->f == f && h->own && toid_claim_node(h->k) == n && toid_claim_valid(h->k, NULL))
            return h;
    return NULL;
}

static void unlist(held *h) {
    for (held **p = &holds; *p; p = &(*p)->next)
        if (*p == h) {
            *p = h->next;
            return;
        }
}

/* Opens the process's claimer if it is not open: the host's claim
 * configuration, else the host's node registry. Called with mu held. */
static int open_claimer(const char *what, char *err, size_t err_size) {
    if (claimer)
        return 0;
    static toid_claim_host h; /* (under mu; 2.6 KB) */
    char why[1024] = "";
    if (toid_claim_host_config(&h, why, sizeof why) < 0) {
        claim_err(err, err_size, "%s from the host's claim configuration: %s", what, why);
        return TOID_EINVAL;
    }
    if (!h.spec[0])
        snprintf(where, sizeof where, "from the host's node registry (TOID_CLAIM unset, no "
                 "claim in %s)", claim_host_conf_path());
    else if (strchr(h.source, ':'))   /* a file and its line */
        snprintf(where, sizeof where, "from %s (claim = %s)", h.source, h.spec);
    else                              /* a variable */
        snprintf(where, sizeof where, "from %s=%s", h.source, h.spec);
    toid_claimer_opts o;
    memset(&o, 0, sizeof o);
    o.prefix = h.prefix[0] ? h.prefix : NULL;
    o.ttl_ms = h.ttl_ms;
    o.log = process_log;
    int rc = toid_claimer_open(h.spec[0] ? h.spec : "local", &o, &claimer, why, sizeof why);
    if (rc < 0) {
        claimer = NULL;
        claim_err(err, err_size, "%s %s: %s", what, where, why);
    }
    return rc;
}

static int claim_process(toid_format f, int64_t epoch_ms, int64_t want, int own,
                         toid_claim **out, char *err, size_t err_size) {
    *out = NULL;
    const toid_format_info *fi = toid_format_get(f);
    uint32_t max = toid_claim_node_max(f);
    if (!fi || !max) {
        claim_err(err, err_size, "%s has no node to claim", fi ? fi->name : "this format");
        return TOID_EINVAL;
    }
    if (want > (int64_t)max) {
        claim_err(err, err_size, "node %" PRId64 " of %s: out of range (0..%" PRIu32 ")", want,
                  fi->name, max);
        return TOID_EINVAL;
    }
    char what[80];
    if (want < 0 && own)
        snprintf(what, sizeof what, "no node of %s claimed (a node of its own)", fi->name);
    else if (want < 0)
        snprintf(what, sizeof what, "no node of %s claimed", fi->name);
    else
        snprintf(what, sizeof what, "node %" PRId64 " of %s not claimed", want, fi->name);
    pthread_once(&once, install);
    pthread_mutex_lock(&mu);
    forget_if_forked();
    int rc = 0;
    /* A node this process holds: shared (the same claim) unless one of the
     * callers wants it alone; two generators on one node would repeat IDs. */
    held *h = own ? NULL : find(f, want);
    if (want >= 0 && ((!own && find_own(f, (uint32_t)want))
                      || (own && (h = find(f, want)) != NULL && toid_claim_valid(h->k, NULL)))) {
        claim_err(err, err_size, "%s: held by this process (pid %ld) already, by %s", what,
                  (long)getpid(), own ? "the callers that share its claims (a process-wide "
                  "generator)" : "a caller that holds it alone (a generator of its own)");
        rc = TOID_CLAIM_EBUSY;
        goto done;
    }
    if (own)
        h = NULL;
    if (h && toid_claim_valid(h->k, NULL)) {
        if (h->epoch_ms != epoch_ms) {
            claim_err(err, err_size, "%s: this process holds node %" PRIu32 " for epoch %" PRId64
                      " ms, not %" PRId64, what, toid_claim_node(h->k), h->epoch_ms, epoch_ms);
            rc = TOID_EINVAL;
        } else {
            *out = h->k;
        }
        goto done;
    }
    if (h) { /* lost, or past its deadline: given up, and claimed again below */
        unlist(h);
        claim_retire(h->k, 0);
        free(h);
    }
    if (exiting) {
        claim_err(err, err_size, "%s: the process is exiting (its claims were given back)", what);
        rc = TOID_CLAIM_ELOST;
        goto done;
    }
    if ((rc = open_claimer(what, err, err_size)) < 0)
        goto done;
    held *nh = calloc(1, sizeof *nh);
    if (!nh) {
        claim_err(err, err_size, "%s: out of memory", what);
        rc = TOID_CLAIM_EIO;
        goto done;
    }
    char reason[1024] = "";
    capture = reason;
    capture_size = sizeof reason;
    toid_claim *k = NULL;
    uint32_t lo = want < 0 ? 0 : (uint32_t)want, hi = want < 0 ? max : (uint32_t)want;
    rc = toid_claim_acquire(claimer, f, epoch_ms, lo, hi, &k);
    capture = NULL;
    if (rc < 0) {
        free(nh);
        claim_err(err, err_size, "%s %s: %s", what, where,
                  reason[0] ? reason : toid_claim_strerror(rc));
        goto done;
    }
    nh->k = k;
    nh->f = f;
    nh->process_node = want < 0 && !own;
    nh->own = own;
    nh->epoch_ms = epoch_ms;
    nh->next = holds;
    holds = nh;
    *out = k;
done:
    pthread_mutex_unlock(&mu);
    return rc;
}

int toid_claim_process(toid_format f, int64_t epoch_ms, int64_t want, toid_claim **out,
                       char *err, size_t err_size) {
    return claim_process(f, epoch_ms, want, 0, out, err, err_size);
}

int toid_claim_process_own(toid_format f, int64_t epoch_ms, int64_t want, toid_claim **out,
                           char *err, size_t err_size) {
    return claim_process(f, epoch_ms, want, 1, out, err, err_size);
}

int toid_claim_process_held(toid_format f, int64_t want, toid_claim **out) {
    *out = NULL;
    pthread_once(&once, install);
    pthread_mutex_lock(&mu);
    forget_if_forked();
    held *h = find(f, want);
    if (h && toid_claim_valid(h->k, NULL))
        *out = h->k;
    pthread_mutex_unlock(&mu);
    return *out != NULL;
}

void toid_claim_process_release(toid_claim *k) {
    if (!k)
        return;
    pthread_once(&once, install);
    pthread_mutex_lock(&mu);
    forget_if_forked(); /* (a claim of the parent's is abandoned already) */
    for (held *h = holds; h; h = h->next)
        if (h->k == k) {
            unlist(h);
            claim_retire(k, 1);
            free(h);
            break;
        }
    pthread_mutex_unlock(&mu);
}
