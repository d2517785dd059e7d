/*
 * sqlite_gens.c — the extension's generators: one per (format, node) for the
 * whole process.
 *
 * Why per process and not per connection: two connections of one process
 * (a pool, Python's threads) that set the same nanoflake node would, with a
 * generator each, issue the same sequence numbers in the same ms. Sharing
 * the (format, node) generator makes them one stream, unique and increasing
 * across the connections. The node itself is a connection setting
 * (toid_node), so connections may also use different nodes.
 *
 * The table is a lock-free list per format: entries are published by
 * compare-and-swap and never removed, so a pointer handed out stays valid.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "toid_sqlite.h"

SQLITE_EXTENSION_INIT3

/* Allocated with toid_gen_size(format) bytes at gen (uid11's set follows
 * its toid_gen), so gen comes last. */
typedef struct gen_entry {
    struct gen_entry *next;
    uint32_t node;
    toid_gen gen;
} gen_entry;

static _Atomic(gen_entry *) gen_heads[TOID_FORMAT_COUNT];

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
    const toid_format_info *fi = toid_format_get(f);
    return fi ? fi->node_max : 0;   /* the generator's node (the descriptor) */
}

static gen_entry *find(gen_entry *e, uint32_t node) {
    for (; e; e = e->next)
        if (e->node == node)
            return e;
    return NULL;
}

int toidsql_gen_get(toid_format f, uint32_t node, toid_gen **out) {
    gen_entry *head = atomic_load_explicit(&gen_heads[f], memory_order_acquire);
    gen_entry *e = find(head, node);
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
    do {
        /* Someone may have added this node since we looked: use theirs,
         * never two generators for one (format, node). */
        e = find(head, node);
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
    extension_config(f, node, &cfg);
    if (err != TOID_EINVAL || toid_gen_config_explain(&cfg, TOID_FOR_GEN_INIT, why, sizeof why) == 0) {
        toidsql_fail(ctx, fn, f, err, -1);
        return;
    }
    sqlite3_snprintf((int)sizeof what, what, "%s (invalid)", why);
    toidsql_fail_text(ctx, fn, f, what);
}
