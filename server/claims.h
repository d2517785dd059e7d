/* claims.h — toidd's claims through the claim library (claim/toid_claim.h):
 * every generated format holds a claim on (format, node) before it issues an
 * ID, and admits each batch through it (the high-water mark).
 *
 *  - node formats (nanoflake, ulid-flake-scalable) claim the lowest free node
 *    of their range (--nodes, or the one of --gen F:node=N) from the backend
 *    of --claim (default: local on --state-dir). When the claim is lost or
 *    runs past its deadline, the format stops at once (requests get a
 *    temporary error) and a background thread claims again, maybe another
 *    node, waiting past the previous holder's mark; with no free node at
 *    start, the server starts without the format and keeps trying;
 *  - the other formats keep a local claim on node 0 in --state-dir (the lock
 *    and mark files of before), taken at start or the server refuses to.
 *
 * What a request uses (a generator made for the node held, and the claim) is
 * published per format and swapped by that thread; requests read it between
 * claims_enter and claims_leave, and a retired one is freed only once no
 * request can still be using it. */
#ifndef TOIDD_CLAIMS_H
#define TOIDD_CLAIMS_H

#include <stdint.h>

#include "config.h"
#include "toid.h"
#include "toid_claim.h"
#include "util.h"

/* Why a format is not served now (ids_new's errors; all temporary). */
enum {
    CLAIMS_ENONODE = -310,   /* every node of the range is held by another holder */
    CLAIMS_ELOST = -311,     /* the claim was lost or ran past its deadline */
    CLAIMS_EBACKEND = -312,  /* the claim backend failed (unreachable, corrupt, clock) */
};

/* A format being served: the generator for the node held, and its claim.
 * Allocated with room for toid_gen_size(format) bytes at gen (uid11's set
 * follows its toid_gen), so gen comes last. */
typedef struct served {
    toid_claim *claim;       /* NULL: --no-state without --claim (no guarantee) */
    uint32_t node;
    int64_t epoch_ms;
    toid_gen gen;
} served;

/*
 * Opens the backends and claims every enabled format; starts the thread that
 * watches the claims and claims again. A node format without a free node of
 * its range starts unserved. Returns 0, or -1 after logging why the server
 * cannot start (a bad backend, a held fixed node, a non-node format whose
 * state is held, corrupt, or ahead of the clock).
 */
int claims_start(const server_config *c);

/* Stops the thread and releases every claim (clean: no ID can be issued any
 * more, so the marks are lowered to the last ID issued). */
void claims_stop(int clean);

/*
 * Request path: claims_enter returns what f is served with (NULL if it is not
 * served now, and *why gets a CLAIMS_E* code); it stays valid until
 * claims_leave. Calls may not nest. Atomics only.
 */
const served *claims_enter(toid_format f, int *why);
void claims_leave(void);

/* The node f holds now, or -1. */
int64_t claims_node(toid_format f);

/* 0 if every enabled format is served; else 1 and a line per unserved
 * format appended to out ("unserved: nanoflake (no free node in 0-3)"): no
 * node, a claim lost or past its deadline, or a mark write that requests
 * have waited for longer than --mark-wait-max-ms. */
int claims_health(sbuf *out);

/* The Prometheus text of the claims (state, node, deadline, counters) and of
 * the marks (writes). */
int claims_metrics(sbuf *out);

/* A message for a CLAIMS_E* or TOID_CLAIM_* code, or NULL. */
const char *claims_strerror(int err);
/* A short class name for the same codes, or NULL. */
const char *claims_err_name(int err);

#endif
