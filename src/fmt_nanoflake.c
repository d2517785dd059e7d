/* fmt_nanoflake.c — Nanoflake: 0 | 41-bit ms since the epoch | 10-bit
 * generator | 12-bit sequence (v = ts << 22 | gen << 12 | seq, as the spec's
 * text says); 13 lower-case base36 digits, zero-padded; 8 bytes. */
#define _POSIX_C_SOURCE 200809L    /* clock_gettime, for gen_owner.h */
#include "codec.h"
#include "flake13.h"
#include "gen.h"
#include "gen_owner.h"

/* (nanoflake-ref24 shares the text and binary forms) */
int toid__nanoflake_decode(const char *s, size_t len, uint8_t *bin, size_t *err_pos) {
    if (len < 1 || len > 13)
        return TOID_ELENGTH;
    uint64_t v;
    int rc = toid__base36_decode(s, len, &v, err_pos);
    if (rc < 0)
        return rc;
    toid__store64(bin, v);
    return 0;
}

void toid__nanoflake_encode(const uint8_t *bin, char *out) {
    toid__base36_encode13(toid__load64(bin), out);
}

/* Sequence 0 each ms, + 1, exhausted after 4095. No randomness at all. */
static inline __attribute__((always_inline)) int nanoflake_next(toid__core *c, uint8_t *out) {
    uint32_t seq;
    if (toid__next_seq(c, &seq) < 0)
        return TOID_EEXHAUSTED;
    c->g->seq = seq;
    return toid__issue64(c, toid__ts(c) << 22 | (uint64_t)c->g->cfg.node << 12 | seq, out);
}

TOID__ONE(nanoflake_one, toid__fmt_nanoflake, nanoflake_next)

const toid__format toid__fmt_nanoflake = {
    .info = {
        .format = TOID_NANOFLAKE, .name = "nanoflake", .bits = 63, .bin_size = 8,
        .text_len = 13, .text_len_min = 1, .alphabet = "base36",
        .default_epoch_ms = TOID__EPOCH_2024, .epoch_configurable = 1,
        .has_int = 1, .int_max = TOID__MAX63, .ts_bits = 41,
        .spec = "Nanoflake specification",
        .node_bits = 10, .node_max = 1023, .detect_rank = 8, .generates = 1, .detected = 1, .text_lower = 1,
    },
    TOID__DECODE(toid__nanoflake_decode), TOID__ENCODE(toid__nanoflake_encode),
    .ts_shift = 22, .nfields = 2,
    .fields = {{TOID_FIELD_GENERATOR, 12, 10}, {TOID_FIELD_SEQUENCE, 0, 12}},
    .next = nanoflake_next,
    .one = nanoflake_one, .new_bin = nanoflake_one_new, .new_text = nanoflake_one_text,
    .default_on_exhausted = TOID_EXHAUSTED_WAIT,
    .default_on_behind = TOID_BEHIND_WAIT, .no_entropy = true,
    .pack = toid__seq_pack, .unpack = toid__seq_unpack,
};
