/* gen.h — what the per-format pure cores share. gen.c resolves the time
 * (rollback policy, span) into a tick, then calls the format's core; a core
 * draws its entropy first, computes, and only then commits the new state,
 * so every error leaves the generator as it was. */
#ifndef TOID_GEN_H
#define TOID_GEN_H
#include "format.h"

typedef struct toid__tick {
    int64_t ms;         /* the ms the ID gets (may be the kept last ms) */
    unsigned micros;    /* 0..999 within the clock's ms */
    bool same;          /* ms == the last ID's ms */
    bool may_advance;   /* on_exhausted == ADVANCE */
} toid__tick;

/* Private g->state bits. */
#define TOID__GEN_READY 1u
#define TOID__GEN_FORKED 2u     /* node format in a child: needs toid_gen_init */

static inline int toid__draw(toid_entropy_fn e, void *ctx, uint8_t *buf, size_t n) {
    int rc = e(ctx, buf, n);
    return rc < 0 ? rc : 0;
}

static inline uint64_t toid__be(const uint8_t *p, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

/* Commits an ID: the last ms and bytes. */
static inline void toid__commit(toid_gen_head *g, int64_t ms, const uint8_t *id, size_t n) {
    g->last_ms = ms;
    memcpy(g->last, id, n);
}

/* The 64-bit formats' shared core for "ts | sub-fields" values built by the
 * caller: writes 8 big-endian bytes. */
static inline void toid__put64(uint8_t *out, uint64_t v) { toid__store64(out, v); }

/* One-word states for compare-and-swap (0 = no ID yet). A sequence format
 * keeps (ts, seq); the low bit marks a state. */
static inline uint64_t toid__seq_pack(const toid_gen_head *g) {
    if (g->last_ms == INT64_MIN)
        return 0;
    return ((uint64_t)(g->last_ms - g->epoch_ms) << 12 | g->seq) << 1 | 1;
}

static inline void toid__seq_unpack(uint64_t w, toid_gen_head *g) {
    g->last_ms = w ? g->epoch_ms + (int64_t)(w >> 13) : INT64_MIN;
    g->seq = w ? (uint32_t)(w >> 1) & 0xFFFu : 0;
}

#define TOID__NEW_OR_SAME(t) ((t)->same ? TOID_ST_INCREMENTED : TOID_ST_NEW_MS)
#endif
