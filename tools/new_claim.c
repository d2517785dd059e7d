/* new_claim.c — toid new's node claim (see new_claim.h), through the claim
 * library (claim/toid_claim.h). Messages of the library go to stderr as
 * "toid: ..." (errors and warnings; progress notes are not shown). */
#define _POSIX_C_SOURCE 200809L
#include "new_claim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "toid_claim.h"

static toid_claimer *claimer;
static toid_claim *claim;

static void log_line(void *ctx, int level, const char *msg) {
    (void)ctx;
    if (level <= TOID_CLAIM_LOG_WARN)
        fprintf(stderr, "toid: %s\n", msg);
}

/* Gives the node back: the mark is lowered to the last ID admitted, so the
 * next run on this node does not wait. Runs at exit, once. */
static void give_back(void) {
    if (claim) {
        toid_claim_release(claim, 1);
        claim = NULL;
    }
    if (claimer) {
        toid_claimer_close(claimer);
        claimer = NULL;
    }
}

uint32_t new_claim_max_node(toid_format f) {
    return toid_claim_node_max(f);   /* the claim library's rule, which every front end follows */
}

const char *new_claim_node_formats(void) {
    static char list[256];
    size_t used = 0;
    int count = 0, seen = 0;
    for (int f = 0; f < TOID_FORMAT_COUNT; f++)
        count += new_claim_max_node((toid_format)f) != 0;
    for (int f = 0; f < TOID_FORMAT_COUNT && used < sizeof list; f++) {
        if (!new_claim_max_node((toid_format)f))
            continue;
        seen++;
        const char *sep = seen == 1 ? "" : seen == count ? " and " : ", ";
        int n = snprintf(list + used, sizeof list - used, "%s%s", sep, toid_format_get((toid_format)f)->name);
        used += n > 0 ? (size_t)n : 0;
    }
    return list;
}

int new_claim_start(toid_format f, int64_t epoch_ms, int have_node, uint32_t node,
                    const new_claim_opts *o, uint32_t *got) {
    toid_claimer_opts co;
    memset(&co, 0, sizeof co);
    co.prefix = o->prefix;
    co.ttl_ms = o->ttl_s * 1000;
    co.log = log_line;
    char err[600];
    /* without --claim: where the host's claim configuration says (toid_claim.h),
     * its prefix and TTL unless given; with none, the local default */
    static toid_claim_host h;
    const char *spec = o->spec, *from = "--claim";
    if (!spec) {
        if (toid_claim_host_config(&h, err, sizeof err) < 0) {
            cli_fail("the host's claim configuration: %s", err);
            return CLI_EXIT_FAIL;
        }
        spec = h.spec[0] ? h.spec : "local";
        from = h.spec[0] ? h.source : "--claim";
        if (!co.prefix && h.prefix[0])
            co.prefix = h.prefix;
        if (!co.ttl_ms)
            co.ttl_ms = h.ttl_ms;
    }
    int rc = toid_claimer_open(spec, &co, &claimer, err, sizeof err);
    if (rc < 0) {
        cli_fail("cannot claim a node (%s %s): %s", from, cli_show(spec), err);
        return CLI_EXIT_FAIL;
    }
    atexit(give_back);
    cli_on_quick_exit = give_back;
    uint32_t lo = have_node ? node : 0, hi = have_node ? node : new_claim_max_node(f);
    rc = toid_claim_acquire(claimer, f, epoch_ms, lo, hi, &claim);
    if (rc < 0) {
        /* the library said why (the holder, the file, the endpoint) */
        cli_fail("no %s node claimed (%s); see --claim and --no-claim in 'toid new --help'",
                 toid_format_get(f)->name, toid_claim_strerror(rc));
        return CLI_EXIT_FAIL;
    }
    *got = toid_claim_node(claim);
    return 0;
}

int new_claim_admit(toid_format f, int64_t epoch_ms, const uint8_t *bins, size_t n) {
    if (!claim || n == 0)
        return 0;
    size_t size = toid_bin_size(f);
    int64_t lo, hi;
    /* the IDs of a batch are in time order: the first and the last bound it */
    if (toid_time_of(f, bins, epoch_ms, &lo) < 0 ||
        toid_time_of(f, bins + (n - 1) * size, epoch_ms, &hi) < 0)
        return CLI_EXIT_FAIL;
    int rc = toid_claim_admit(claim, lo, hi);
    if (rc == 0)
        return 0;
    cli_fail("%s node %u: IDs not admitted by the node claim: %s", toid_format_get(f)->name,
             toid_claim_node(claim), toid_claim_strerror(rc));
    return CLI_EXIT_FAIL;
}
