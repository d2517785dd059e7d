/*
 * toid_claim_epoch.h — what a binding's claims need beside the claim
 * library: the epochs its claims and admits use, and the claimed node
 * written into uid11-seq's low bits (header only: each binding is one C file
 * built by its own tool).
 */
#ifndef TOID_BINDINGS_CLAIM_EPOCH_H
#define TOID_BINDINGS_CLAIM_EPOCH_H

#include <stdint.h>

#include <toid.h>

/* The epoch IDs of cfg count from (the claim's): the format's default
 * unless cfg sets another and the format takes one. */
static inline int64_t claim_epoch(const toid_gen_config *cfg) {
    const toid_format_info *fi = toid_format_get(cfg->format);
    if (!fi->epoch_configurable || cfg->epoch_ms == TOID_EPOCH_DEFAULT || cfg->epoch_ms == 0)
        return fi->default_epoch_ms;
    return cfg->epoch_ms;
}

/* The epoch toid_time_of takes for cfg's IDs (TOID_EPOCH_DEFAULT for the
 * formats whose epoch is fixed). */
static inline int64_t time_epoch(const toid_gen_config *cfg) {
    return toid_format_get(cfg->format)->epoch_configurable ? claim_epoch(cfg) : TOID_EPOCH_DEFAULT;
}

/* Writes node into the caller_node_bits lowest bits of bin (uid11-seq). */
static inline void set_low_node(toid_format f, uint8_t *bin, uint32_t node) {
    const toid_format_info *fi = toid_format_get(f);
    unsigned bits = fi->caller_node_bits;
    uint8_t *last = bin + fi->bin_size - 1;
    for (unsigned k = 0; k < bits; k += 8) {
        unsigned w = bits - k < 8 ? bits - k : 8;
        uint8_t mask = (uint8_t)((1u << w) - 1);
        last[-(int)(k / 8)] = (uint8_t)((last[-(int)(k / 8)] & ~mask) | ((node >> k) & mask));
    }
}

#endif
