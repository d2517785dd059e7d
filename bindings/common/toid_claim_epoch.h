/*
 * toid_claim_epoch.h — the epochs a binding's claim and admits use (header
 * only: each binding is one C file built by its own tool).
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

#endif
