/* fmt_uid11_seq.c — uid11, profile ts-seq-rand: 42-bit ms since the xid
 * epoch | 12-bit sequence | 10-bit random; 11 Base58 symbols; 8 bytes. */
#define _POSIX_C_SOURCE 200809L    /* clock_gettime, for gen_owner.h */
#include "uid11.h"
#include "gen.h"
#include "gen_owner.h"

/* Sequence 0 each ms, + 1, exhausted after 4095; 10 fresh random bits. */
static inline __attribute__((always_inline)) int uid11_seq_next(toid__core *c, uint8_t *out) {
    uint32_t seq;
    uint8_t b[2];
    if (toid__next_seq(c, &seq) < 0)
        return TOID_EEXHAUSTED;
    int rc = toid__draw(c, b, 2);
    if (rc < 0)
        return rc;
    c->g->seq = seq;
    return toid__issue64(c, toid__ts(c) << 22 | (uint64_t)seq << 10 | (toid__be(b, 2) & 0x3FFu), out);
}

TOID__ONE(uid11_seq_one, toid__fmt_uid11_seq, uid11_seq_next)

const toid__format toid__fmt_uid11_seq = {
    .info = {
        .format = TOID_UID11_SEQ, .name = "uid11-seq", .bits = 64, .bin_size = 8,
        .text_len = 11, .text_len_min = 11, .alphabet = "base58",
        .default_epoch_ms = TOID__EPOCH_XID, .epoch_configurable = 0,
        .has_int = 1, .int_max = UINT64_MAX, .ts_bits = 42,
        .spec = "uid11 specification, profile ts-seq-rand (42/12/10)",
        .caller_node_bits = 10, .detect_rank = 5, .generates = 1,
    },
    TOID__DECODE(toid__uid11_decode), TOID__ENCODE(toid__uid11_encode),
    .ts_shift = 22, .nfields = 2,
    .fields = {{TOID_FIELD_SEQUENCE, 10, 12}, {TOID_FIELD_RANDOM, 0, 10}},
    .next = uid11_seq_next,
    .one = uid11_seq_one, .new_bin = uid11_seq_one_new, .new_text = uid11_seq_one_text,
    .default_on_exhausted = TOID_EXHAUSTED_WAIT,
    .default_on_behind = TOID_BEHIND_KEEP, .entropy_per_id = 2,
    .pack = toid__seq_pack, .unpack = toid__seq_unpack,
};
