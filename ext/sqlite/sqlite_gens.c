/*
 * sqlite_gens.c — the extension's generators: one per (format, node) for the
 * whole process (and per process: a child of fork() makes its own).
 *
 * Why per process and not per connection: two connections of one process
 * (a pool, Python's threads) that set the same nanoflake node would, with a
 * generator each, issue the same sequence numbers in the same ms. Sharing
 * the (format, node) generator makes them one stream, unique and increasing
 * across the connections. The node itself is a connection setting
 * (toid_node), so connections may also use different nodes.
 *
 * The node of a node format is claimed (toid_sqlite.c, through the claim
 * library's toid_claim_process), so that no other generator on the host (or
 * in the claim configuration's etcd) has it while this process does.
 *
 * The table is a lock-free list per format: entries are published by
 * compare-and-swap and never removed, so a pointer handed out stays valid.
 * An entry belongs to the process that made it: after fork() the child
 * makes new ones (its nodes are its own claims; the parent's generators of
 * node formats refuse in the child anyway), and the parent's stay behind.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "toid_claim.h"
#include "toid_sqlite.h"

SQLITE_EXTENSION_INIT3

/* Allocated with toid_gen_size(format) bytes at gen (uid11's set follows
 * its toid_gen), so gen comes last. */
typedef struct gen_entry {
    struct gen_entry *next;
    uint32_t node;
    unsigned forks;   /* fork_count when it was made: another process's otherwise */
    toid_gen gen;
} gen_entry;

static _Atomic(gen_entry *) gen_heads[TOID_FORMAT_COUNT];

/* Forks of this process so far (a handler run in each child counts them):
 * an entry made under another count is an ancestor's. */
static _Atomic unsigned fork_count;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static void count_fork(void) { atomic_fetch_add_explicit(&fork_count, 1, memory_order_relaxed); }
static void install_fork_handler(void) { pthread_atfork(NULL, NULL, count_fork); }

void toidsql_gens_init(void) { pthread_once(&fork_once, install_fork_handler); }

unsigned toidsql_fork_count(void) { return atomic_load_explicit(&fork_count, memory_order_relaxed); }

int toidsql_at_time_unique(toid_format f, unsigned *free_bits) {
    return toid_at_time_unique(f, free_bits) == 1;   /* the library's rule */
}

/* The generator settings of the extension: the format's defaults, except
 * that a full ms or a clock step back waits (bounded by the library) instead
 * of failing the statement, as the CLI does: a bulk INSERT ... SELECT should
 * not die because one ms ran out of sequence numbers. */
static void extension_config(toid_format f, uint32_t node, toid_gen_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    toid_gen_config_default(f, cfg);
    cfg->node = node;
    if (cfg->on_exhausted != TOID_EXHAUSTED_ADVANCE)
        cfg->on_exhausted = TOID_EXHAUSTED_WAIT;
    if (cfg->on_behind == TOID_BEHIND_ERROR)
        cfg->on_behind = TOID_BEHIND_WAIT;
}

uint32_t toidsql_node_max(toid_format f) {
    return toid_claim_node_max(f);   /* the generator's node, or the low bits (uid11-seq) */
}

/* The node the generator itself takes: the node, for a format whose
 * generator has one; 0 for uid11-seq, whose node goes into the value's low
 * bits after generating (toidsql_set_low_node), one generator for them all. */
static uint32_t gen_node(toid_format f, uint32_t node) {
    const toid_format_info *fi = toid_format_get(f);
    return fi && fi->node_max ? node : 0;
}

static gen_entry *find(gen_entry *e, uint32_t node, unsigned forks) {
    for (; e; e = e->next)
        if (e->node == node && e->forks == forks)
            return e;
    return NULL;
}

void toidsql_set_low_node(toid_format f, uint8_t *bin, uint32_t node) {
    const toid_format_info *fi = toid_format_get(f);
    unsigned bits = fi ? fi->caller_node_bits : 0;
    uint8_t *last = bin + (fi ? fi->bin_size : 0) - 1;
    for (unsigned k = 0; k < bits; k += 8) {
        unsigned w = bits - k < 8 ? bits - k : 8;
        uint8_t mask = (uint8_t)((1u << w) - 1);
        last[-(int)(k / 8)] = (uint8_t)((last[-(int)(k / 8)] & ~mask) | ((node >> k) & mask));
    }
}

int toidsql_gen_get(toid_format f, uint32_t node, toid_gen **out) {
    node = gen_node(f, node);
    unsigned forks = atomic_load_explicit(&fork_count, memory_order_relaxed);
    gen_entry *head = atomic_load_explicit(&gen_heads[f], memory_order_acquire);
    gen_entry *e = find(head, node, forks);
    if (e) {
        *out = &e->gen;
        return 0;
    }
    size_t gen_size = toid_gen_size(f);
    gen_entry *fresh = malloc(offsetof(gen_entry, gen) + gen_size);
    if (!fresh)
        return TOIDSQL_NOMEM;
    toid_gen_config cfg;
    extension_config(f, node, &cfg);
    int rc = toid_gen_init_size(&fresh->gen, gen_size, &cfg);
    if (rc < 0) {
        free(fresh);
        return rc;
    }
    fresh->node = node;
    fresh->forks = forks;
    do {
        /* Someone may have added this node since we looked: use theirs,
         * never two generators for one (format, node). */
        e = find(head, node, forks);
        if (e) {
            free(fresh);
            *out = &e->gen;
            return 0;
        }
        fresh->next = head;
    } while (!atomic_compare_exchange_weak_explicit(&gen_heads[f], &head, fresh,
                                                    memory_order_acq_rel,
                                                    memory_order_acquire));
    *out = &fresh->gen;
    return 0;
}

void toidsql_gen_fail(sqlite3_context *ctx, const char *fn, toid_format f, uint32_t node, int err) {
    toid_gen_config cfg;
    char why[200], what[220];
    extension_config(f, gen_node(f, node), &cfg);
    if (err != TOID_EINVAL || toid_gen_config_explain(&cfg, TOID_FOR_GEN_INIT, why, sizeof why) == 0) {
        toidsql_fail(ctx, fn, f, err, -1);
        return;
    }
    sqlite3_snprintf((int)sizeof what, what, "%s (invalid)", why);
    toidsql_fail_text(ctx, fn, f, what);
}
