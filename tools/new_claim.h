/* new_claim.h — toid new's node claim: the node of a node-bearing format
 * (nanoflake, ulid-flake-scalable, uid11-seq) held for the run, so that
 * parallel runs (one machine: local lock files; many: etcd) never share one. */
#ifndef TOID_NEW_CLAIM_H
#define TOID_NEW_CLAIM_H

#include <stdint.h>

#include <toid.h>

typedef struct new_claim_opts {
    const char *spec;   /* --claim: local, local=DIR, etcd=URL[,URL...]; NULL: the host's
                           claim configuration (TOID_CLAIM, /etc/toid/claim.conf), else local */
    const char *prefix; /* --claim-prefix (etcd); NULL: the default */
    uint32_t ttl_s;     /* --claim-ttl (etcd); 0: the default */
} new_claim_opts;

/* The largest node of f, or 0 if f has no node: from its descriptor, the
 * generator's node (node_max) or the one toid new writes into the value's
 * low bits (caller_node_bits). */
uint32_t new_claim_max_node(toid_format f);

/* The node formats as people read them ("a, b and c"), from the
 * descriptors: for messages. */
const char *new_claim_node_formats(void);

/*
 * Claims node `node` of f (have_node) or the lowest free one, for IDs of
 * epoch epoch_ms; *got gets the node. Returns 0, or CLI_EXIT_FAIL after
 * printing why (held, with its holder; backend errors). The claim is given
 * back cleanly at exit (normal or a closed pipe).
 */
int new_claim_start(toid_format f, int64_t epoch_ms, int have_node, uint32_t node,
                    const new_claim_opts *o, uint32_t *got);

/* Before n IDs in bins leave: 0, or CLI_EXIT_FAIL after printing why (the
 * claim was lost, or its mark could not be written). No-op without a claim. */
int new_claim_admit(toid_format f, int64_t epoch_ms, const uint8_t *bins, size_t n);

#endif
