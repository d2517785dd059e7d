/*
 * toid_claim.h — node claims: "I, and nobody else, issue IDs of format F
 * with node N until deadline D", for the formats whose uniqueness across
 * generators rests on a node id (nanoflake's generator, ulid-flake-scalable's
 * sid, uid11-seq's node range as the caller defines it).
 *
 * This is a library beside the core (libtoid has no dependency on it). Two
 * backends, chosen by a spec string:
 *   "local"            the host's node registry (below)
 *   "local=DIR"        one lock file per (format, node) in a directory,
 *                      flock'd for the life of the holder, the high-water
 *                      mark beside it (the files toidd's --state-dir keeps).
 *                      A missing DIR is made 0700. In a group-writable DIR
 *                      every file made is the directory's group's, 0660.
 *
 * The host's node registry. One per host, shared by every front end that
 * is told nothing else (toid, toidd, and the other front ends as they come
 * to claim), whichever user runs it, so that two of them never hold one
 * node: TOID_HOST_REGISTRY, by default /var/lib/toid/claims (a build
 * option, not the install prefix: /usr and /usr/local installs share it).
 * Decisions:
 *   - root's, group TOID_HOST_REGISTRY_GROUP ("toid"), mode 2770. Root and
 *     the group's members claim there; the files each makes are the
 *     group's, mode 0660, whatever its umask, so none locks the others out
 *     (toid new run as root, then toidd as user toidd).
 *   - made by the installation, never by this library: cmake --install as
 *     root (packaging/toid-registry-setup) or the Debian package
 *     toid-registry (systemd-sysusers, systemd-tmpfiles). A registry that
 *     is missing, or that this user may not use, is an error naming the
 *     fix (set it up; usermod -aG toid USER; or name another registry),
 *     never a fall-back to a private directory whose claims nobody else
 *     sees.
 *   - opened without following a symlink and refused unless the opened
 *     directory is root's or this user's and not writable by everyone.
 *   - under /var/lib, not /run: the marks survive a reboot, after which the
 *     clock may be behind them (the claims themselves end with their
 *     processes).
 * The host's claim configuration (toid_claim_host_config, below) moves
 * every front end elsewhere at once (etcd, or another directory).
 *   "etcd=URL[,URL...]" an etcd v3 cluster through its JSON gateway: a lease
 *                      and a put-if-absent transaction on
 *                      <prefix>/<format>/nodes/<NNNN>, kept alive at TTL/3
 *                      from a background thread, failing over between URLs.
 *                      (Built only when libcurl and jansson were found.)
 *
 * The high-water mark of (format, node) is "every ID issued with this node
 * has a time <= MARK". It is written ahead of use (a reservation) and a new
 * holder waits, bounded, until its clock passes the previous holder's mark.
 * It never moves back: in etcd each write is a transaction that also
 * compares the mark key's mod_revision with the one the holder last saw, so
 * a write delayed past a newer one (a member that stalled, then a fail-over)
 * is refused; after a refusal the holder reads the mark again and writes
 * only a higher value (a clean release lowers it to the last ID admitted,
 * under the same compare).
 *
 * Fencing: a claim is valid until its local deadline on CLOCK_MONOTONIC =
 * send time of the last successful renewal + TTL - margin (local claims: no
 * deadline while the process lives). Past it, toid_claim_admit refuses, so
 * the holder issues no ID of that node whatever the backend says later. A
 * lease etcd no longer has (expired, or revoked: a keepalive answered
 * without a TTL or with TTL 0) makes its claims lost at once.
 *
 * fork(): a claim stays with the process that acquired it. In a child, the
 * inherited claims are refused (toid_claim_admit: TOID_CLAIM_ELOST,
 * toid_claim_valid: 0) and the inherited claimer acquires nothing
 * (TOID_CLAIM_ELOST): open a new claimer in the child. toid_claimer_close
 * and toid_claim_release in the child only free memory (no mark written, no
 * key deleted, no lease revoked: the parent's claims go on). A local
 * claim's lock file stays open in the child (the node stays held) until it
 * closes the claimer, execs or exits. (Detected by a fork handler: a process
 * made with clone() or _Fork(), which run none, is not.)
 *
 * Thread-safety: toid_claim_admit and toid_claim_valid may be called from
 * any thread at any time (atomics on the fast path; no lock that the
 * background thread holds across network I/O: an admit waits only for a
 * write of its own claim's mark, when its IDs are past the durable mark).
 * The other calls are for one controlling thread.
 */
#ifndef TOID_CLAIM_H
#define TOID_CLAIM_H

#include <stddef.h>
#include <stdint.h>

#include "toid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A backend and its background thread (renewals, marks moved ahead). */
typedef struct toid_claimer toid_claimer;
/* One (format, node) held. */
typedef struct toid_claim toid_claim;

/* Errors of this layer (besides TOID_EINVAL from toid.h). */
#define TOID_CLAIM_ERROR_LIST(X)                                                        \
    X(EBUSY, -200, "busy", "node held by another holder (no free node in the range)")   \
    X(EBEHIND, -201, "behind", "clock behind the node's high-water mark")               \
    X(EIO, -202, "io", "claim backend unreachable or failed")                           \
    X(ELOST, -203, "lost", "claim lost or past its deadline")                           \
    X(ECORRUPT, -204, "corrupt", "claim state is corrupt or foreign")

enum {
#define TOID__CLAIM_ERR(name, val, shortname, msg) TOID_CLAIM_##name = val,
    TOID_CLAIM_ERROR_LIST(TOID__CLAIM_ERR)
#undef TOID__CLAIM_ERR
};

/*
 * What a backend is, so that front ends treat every backend alike instead of
 * knowing their names (a third backend changes no front end).
 */
typedef struct toid_claim_backend_info {
    const char *kind;      /* "local", "etcd" */
    int shared_by_hosts;   /* claims seen from other machines (etcd), not this host's alone */
    int leases;            /* a claim has a deadline, renewed by the claimer's background thread,
                              and may be lost; the backend may be away for a while */
    int takes_prefix_ttl;  /* toid_claimer_opts.prefix and .ttl_ms apply */
} toid_claim_backend_info;

/* The backend spec names (NULL: "local"), without opening it: 0 and *out
 * (may be NULL), or TOID_EINVAL with the reason in err (no such backend, or
 * not built in). */
int toid_claim_backend_of(const char *spec, toid_claim_backend_info *out, char *err, size_t err_size);

/*
 * The host's claim configuration: the one place that says where the front
 * ends of this host claim their nodes when they are told nothing else (a
 * command-line option or an SQL setting overrides it). Each setting comes
 * from the first of:
 *   - the environment: TOID_CLAIM (a spec, as toid_claimer_open takes it),
 *     TOID_CLAIM_PREFIX, TOID_CLAIM_TTL (whole seconds, 1..3600); the way to
 *     give every pod of a deployment the same etcd;
 *   - the file TOID_CLAIM_CONF names, else /etc/toid/claim.conf (no such
 *     file: nothing from it): lines "claim = SPEC", "prefix = P", "ttl = S",
 *     blank lines and lines starting with '#' ignored;
 *   - nothing: spec "" (the front end's own default).
 * Returns 0, or TOID_EINVAL with err naming the source (the variable, or
 * the file and line) and what is wrong: an unknown key, a bad TTL, a spec
 * no backend takes, a file that exists but cannot be read.
 */
typedef struct toid_claim_host {
    char spec[1024];       /* "" when the host configures none */
    char prefix[256];      /* "" : the backend's default */
    uint32_t ttl_ms;       /* 0: the backend's default */
    char source[300];      /* where spec came from: "TOID_CLAIM", "/etc/toid/claim.conf:3", or "" */
} toid_claim_host;

int toid_claim_host_config(toid_claim_host *out, char *err, size_t err_size);

/* A message for a TOID_CLAIM_* code or a toid.h code. */
const char *toid_claim_strerror(int err);

/* Severity passed to the log callback. */
enum { TOID_CLAIM_LOG_ERR = 0, TOID_CLAIM_LOG_WARN = 1, TOID_CLAIM_LOG_INFO = 2 };

/* Options; zero means the default. */
typedef struct toid_claimer_opts {
    const char *prefix;           /* etcd key prefix; default "/toid" */
    uint32_t ttl_ms;              /* etcd lease TTL, whole seconds; default 10000 */
    uint32_t margin_ms;           /* subtracted from each deadline; default ttl/5 */
    uint32_t reserve_ms;          /* each write of a mark reaches this far ahead; default 2000 */
    uint32_t clock_wait_max_ms;   /* a new holder waits at most this for the clock to pass
                                     the previous mark, else TOID_CLAIM_EBEHIND; default 5000 */
    uint32_t request_timeout_ms;  /* etcd: one HTTP request; default 1000 */
    uint32_t admit_wait_max_ms;   /* an admit waits at most this for the mark write its IDs
                                     need (then TOID_CLAIM_EIO: a stalled disk or backend
                                     never hangs the caller); 0 (default): until the write
                                     ends, or the claim's deadline */
    int reset;                    /* local: forget the old mark (toidd --reset-state) */
    /* Where messages go (each one a whole line without the newline); NULL: stderr. */
    void (*log)(void *ctx, int level, const char *msg);
    void *log_ctx;
} toid_claimer_opts;

/*
 * Opens a backend from its spec (see above) and starts its background
 * thread. Returns 0 and *out, or an error with a message naming the
 * directory or endpoint in err (err_size bytes, may be 0).
 */
int toid_claimer_open(const char *spec, const toid_claimer_opts *opts, toid_claimer **out,
                      char *err, size_t err_size);

/* Releases every claim of c (not clean: marks stay where they are) and frees it. */
void toid_claimer_close(toid_claimer *c);

/*
 * Claims the lowest free node in [lo, hi] of format f (lo == hi: that node
 * only), reads its previous mark, waits (bounded) until the clock is past
 * it, and reserves ahead. epoch_ms is the generator's epoch (a mark written
 * for another epoch is refused as TOID_CLAIM_ECORRUPT). Returns 0 and *out,
 * TOID_CLAIM_EBUSY if every node is held (logged naming the holders: the
 * first 8, "pid P" locally, "host H, pid P" in etcd, and how many more), or
 * another error (logged).
 * In a range (lo != hi), a node whose mark is further ahead of the clock
 * than clock_wait_max_ms, or was written for another epoch (a program with
 * an epoch of its own held it), is passed over for the next one (logged);
 * if no node could be taken and one was passed over so, TOID_CLAIM_EBEHIND
 * (or TOID_CLAIM_ECORRUPT when only for epochs). Any
 * other error (I/O, corrupt or foreign state) ends the search; for one
 * node (lo == hi) every error is returned as it is.
 */
int toid_claim_acquire(toid_claimer *c, toid_format f, int64_t epoch_ms, uint32_t lo,
                       uint32_t hi, toid_claim **out);

/* The node a claim holds. */
uint32_t toid_claim_node(const toid_claim *k);

/*
 * 1 while the claim is valid (held, not lost, the local deadline ahead, and
 * not in a child of fork()), else 0; *ms_left (may be NULL) gets the time
 * to the deadline (INT64_MAX for a local claim; 0 when not valid).
 */
int toid_claim_valid(const toid_claim *k, int64_t *ms_left);

/*
 * Before IDs whose times span [min_ms, max_ms] leave the process: 0 if they
 * may (the claim is valid, min_ms is after the previous holder's mark, and
 * the durable mark is >= max_ms), TOID_CLAIM_ELOST (also in a child of
 * fork()), TOID_CLAIM_EBEHIND or TOID_CLAIM_EIO (the write failed, or did
 * not end within admit_wait_max_ms). Past the durable mark, the claimer's
 * thread writes it and the admit waits: the caller's thread never does the
 * I/O itself, so a bound holds even on a frozen disk. Thread-safe; no I/O
 * and no lock on the fast path.
 */
int toid_claim_admit(toid_claim *k, int64_t min_ms, int64_t max_ms);

/*
 * How long admits of k have been waiting for a mark write that has not
 * ended (ms; 0: none waiting). A value past the caller's bound means the
 * node cannot issue IDs now (a stalled disk or backend): a server reports
 * itself not ready. Thread-safe.
 */
int64_t toid_claim_mark_wait_ms(const toid_claim *k);

/*
 * Gives the node up. clean: no ID of it can be issued any more, so the mark
 * is lowered to the largest time actually admitted.
 */
void toid_claim_release(toid_claim *k, int clean);

/* Counters, for metrics. */
typedef struct toid_claim_stats {
    uint64_t renewals;         /* successful keepalives (etcd) */
    uint64_t renewal_failures; /* failed keepalives */
    uint64_t mark_writes;      /* marks persisted */
    uint64_t request_writes;   /* ...of which a toid_claim_admit waited for */
    uint64_t mark_write_errors;
    uint64_t lost;             /* claims lost or expired */
} toid_claim_stats;

void toid_claimer_stats(const toid_claimer *c, toid_claim_stats *out);

/* ---- The claims of a process ----------------------------------------------
 *
 * For front ends that make IDs in their own process and are told nothing
 * about claims (the SQLite extension; the Python and Node bindings): the
 * process claims each node it uses once and holds it until it exits. One
 * claimer per process, opened on the first claim from the host's claim
 * configuration (toid_claim_host_config: its spec, prefix and TTL; no spec:
 * "local", the host's node registry). A configuration or a registry that
 * cannot be used is an error (returned, and tried again on the next call),
 * never node 0 or a claim nobody else sees.
 *
 * Claims handed out are never freed while the process lives, so that
 * callers may keep the pointer (and call toid_claim_admit on it from any
 * thread) without a look-up per ID: a claim that was released, lost, or
 * inherited through fork() stays allocated and refuses (TOID_CLAIM_ELOST);
 * the caller then calls toid_claim_process again and gets the claim that
 * replaces it. (Each replaced claim stays behind: a few hundred bytes.)
 *
 * At exit() the claims are given back cleanly (their marks lowered to the
 * last ID admitted, so that the next holder does not wait for the
 * reservation ahead; admits of threads still running are refused from
 * then on). A process that ends otherwise (_exit, a signal) leaves the
 * marks up to reserve_ms ahead, and the next holder of its nodes waits.
 *
 * fork(): the claims belong to the parent. In the child they refuse: a
 * fork handler abandons the parent's claimer there, without a lock or I/O
 * (its copies of the lock files closed: a child that lives on does not keep
 * its parent's nodes held once the parent is gone), and the child's first
 * call claims afresh with a claimer of its own (so a child never takes its
 * parent's node while the parent holds it). A fork() waits for a claim
 * another thread is making (bounded by the claimer's clock wait and, for
 * etcd, its request timeouts).
 *
 * Thread-safe (one lock, for these slow calls; toid_claim_admit stays
 * lock-free). The error messages of the claim library (a held node names
 * its holder) are returned in err; the claimer thread's own (a claim lost)
 * go to stderr as "toid-claim: error: ...".
 */

/* The largest node a claim of f may hold: the generator's node
 * (toid_format_info.node_max: nanoflake 1023, ulid-flake-scalable 31), else
 * the node a caller writes into the value's low bits (caller_node_bits:
 * uid11-seq 1023); 0 when f has no node. */
uint32_t toid_claim_node_max(toid_format f);

/*
 * The claim this process holds for node `want` of format f (IDs counted
 * from epoch_ms, as toid_claim_acquire takes it), claimed on the first call:
 *   want < 0:  the process's node of f: the lowest free one of the whole
 *              range (0..toid_claim_node_max(f)), claimed once and shared
 *              by every caller that names no node;
 *   want >= 0: that node (TOID_CLAIM_EBUSY, err naming its holder, while
 *              another holds it). A node already held by this process (as
 *              its node of f, or asked for by number) is the same claim.
 * Later calls return the same claim while it is valid (a lost one, e.g. an
 * etcd lease that expired, is replaced: the node asked for, or the lowest
 * free one). Returns 0 and *out, or an error with err saying what failed
 * and where the claim came from: "no node of nanoflake claimed from
 * TOID_CLAIM=local=/srv/claims: ...", "... from /etc/toid/claim.conf:3
 * (claim = etcd=...): ...", "... from the host's node registry (TOID_CLAIM
 * unset, no claim in /etc/toid/claim.conf): ...". TOID_EINVAL for a format
 * with no node, a node out of its range, or a node this process holds for
 * another epoch.
 */
int toid_claim_process(toid_format f, int64_t epoch_ms, int64_t want, toid_claim **out,
                       char *err, size_t err_size);

/*
 * A claim for one caller alone (a generator object of a binding, with a
 * stream of its own), from the same claimer as toid_claim_process:
 *   want < 0:  the lowest free node of the whole range: never the
 *              process's node of f, nor any other node this process holds;
 *   want >= 0: that node; TOID_CLAIM_EBUSY while anyone holds it, this
 *              process included (err says which).
 * Never returned by toid_claim_process or toid_claim_process_held, and
 * toid_claim_process refuses its node (TOID_CLAIM_EBUSY) while it is held:
 * two generators on one node would repeat IDs. A claim of its own that is
 * lost is not replaced: the caller asks for another. Given back with
 * toid_claim_process_release (else at exit), refusing from then on; after
 * fork() it refuses in the child as the others do. Errors as
 * toid_claim_process.
 */
int toid_claim_process_own(toid_format f, int64_t epoch_ms, int64_t want, toid_claim **out,
                           char *err, size_t err_size);

/* 1 and *out if this process holds a valid claim of f for want (as
 * toid_claim_process takes it), without claiming anything; else 0. */
int toid_claim_process_held(toid_format f, int64_t want, toid_claim **out);

/*
 * Gives k (a claim toid_claim_process returned) back cleanly, for a front
 * end that knows no more IDs of its node will be made in this process: the
 * mark is lowered to the last ID admitted and the node is free for others.
 * k stays allocated and refuses from then on; the next toid_claim_process
 * for its node claims again. A claim this process does not hold: nothing.
 */
void toid_claim_process_release(toid_claim *k);

#ifdef __cplusplus
}
#endif

#endif /* TOID_CLAIM_H */
