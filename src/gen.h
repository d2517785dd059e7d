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

/* What a core works with, in one place: gen.c fills it once per run of IDs
 * (a chunk), make_tick sets t before each ID, and the core reads t, draws
 * from entropy, commits to *g and ORs its TOID_ST_* bits into status. */
typedef struct toid__core {
    toid_gen_head *g;           /* the state (a copy of the head on the CAS path) */
    uint32_t *seen;             /* uid11's issued-value set (toid_gen_uid11.seen); NULL for the others */
    toid_entropy_fn entropy;
    void *ctx;                  /* entropy's */
    toid__tick t;
    unsigned status;
} toid__core;

/* Big-endian words of the generator's state as one load or store with a byte
 * swap where the compiler offers one (the byte-assembling toid__load64 did
 * not compile to that here and cost the ULID batch ~7 ns an ID). */
static inline uint64_t toid__gen_load64(const uint8_t *p) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
#else
    return toid__load64(p);
#endif
}

static inline uint32_t toid__gen_load32(const uint8_t *p) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint32_t v;
    memcpy(&v, p, 4);
    return __builtin_bswap32(v);
#else
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
#endif
}

static inline void toid__gen_store64(uint8_t *p, uint64_t v) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
    memcpy(p, &v, 8);
#else
    toid__store64(p, v);
#endif
}

/* cfg with every zero resolved to its default into *out (and the epoch
 * into *epoch), or TOID_EINVAL with the setting and the reason in why
 * (gen_config.c; toid_gen_config_explain). */
int toid__resolve_config(const toid_gen_config *in, toid_config_use use, toid_gen_config *out, int64_t *epoch,
                         char *why, size_t why_size) TOID__HIDDEN;

/* Private g->state bits. */
#define TOID__GEN_READY 1u
#define TOID__GEN_FORKED 2u     /* node format in a child: needs toid_gen_init */

static inline int toid__draw(toid__core *c, uint8_t *buf, size_t n) {
    int rc = c->entropy(c->ctx, buf, n);
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

/* The ms since the generator's epoch, for the 64-bit formats. */
static inline uint64_t toid__ts(const toid__core *c) {
    return (uint64_t)(c->t.ms - c->g->epoch_ms);
}

/* Issues a 64-bit ID: it becomes the last, goes out, and the status says
 * whether it opened a ms. What every 64-bit core ends with. */
static inline int toid__issue64(toid__core *c, uint64_t v, uint8_t *out) {
    toid__gen_store64(c->g->last, v);
    c->g->last_ms = c->t.ms;
    memcpy(out, c->g->last, 8);
    c->status |= TOID__NEW_OR_SAME(&c->t);
    return 0;
}

/* The sequence formats' step: 0 on a new ms, + 1 in the same ms, and the ms
 * is exhausted after 4095. */
static inline int toid__next_seq(const toid__core *c, uint32_t *seq) {
    *seq = c->t.same ? c->g->seq + 1 : 0;
    return *seq > 4095 ? TOID_EEXHAUSTED : 0;
}
#endif
