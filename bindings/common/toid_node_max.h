/*
 * toid_node_max.h — which formats carry a node, for the bindings (header
 * only: each binding is one C file built by its own tool).
 *
 * toid_format_info does not say, so, as the database extensions do, the
 * library is asked: the largest power of two a format's generator takes as
 * its node bounds the node field (nanoflake 1023, ulid-flake-scalable 31).
 */
#ifndef TOID_BINDINGS_NODE_MAX_H
#define TOID_BINDINGS_NODE_MAX_H

#include <stdint.h>
#include <string.h>

#include <toid.h>

/* The largest node of each format into max[] (0: no node), using probe (a
 * scratch toid_gen of the caller's; a plain one will do: the nodes probed are
 * >= 1, which uid11 refuses as a config error before asking for its larger
 * memory). */
static inline void toid_bindings_node_max(toid_gen *probe, uint32_t max[TOID_FORMAT_COUNT]) {
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        max[f] = 0;
        for (unsigned bit = 0; bit < 32; bit++) {
            toid_gen_config cfg;
            memset(&cfg, 0, sizeof cfg);
            cfg.format = (toid_format)f;
            cfg.node = 1u << bit;
            cfg.flags = TOID_GEN_UNLOCKED;
            if (toid_gen_init(probe, &cfg) < 0)
                break;
            max[f] = (uint32_t)((2ull << bit) - 1);
        }
    }
}

#endif
