/*
 * toid_node_max.h — which formats carry a node, for the bindings (header
 * only: each binding is one C file built by its own tool).
 *
 * The format descriptor says (toid_format_info.node_max): the largest node a
 * format's generator takes (nanoflake 1023, ulid-flake-scalable 31), 0 for
 * the formats without a node.
 */
#ifndef TOID_BINDINGS_NODE_MAX_H
#define TOID_BINDINGS_NODE_MAX_H

#include <stdint.h>

#include <toid.h>

/* The largest node of each format into max[] (0: no node). */
static inline void toid_bindings_node_max(uint32_t max[TOID_FORMAT_COUNT]) {
    for (int f = 0; f < TOID_FORMAT_COUNT; f++)
        max[f] = toid_format_get((toid_format)f)->node_max;
}

#endif
