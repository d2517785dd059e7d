/* fmt_ulid_flake_scalable.c — Ulid-Flake scalable: 0 | 43-bit ms since the
 * epoch | 15-bit random | 5-bit scalability id; 13 Crockford base32; 8 bytes. */
#define _POSIX_C_SOURCE 200809L    /* clock_gettime, for gen_owner.h */
#include "flake13.h"
#include "gen_owner.h"

static inline __attribute__((always_inline)) int flake_scalable_next(toid__core *c, uint8_t *out) {
    return toid__flake_next(c, out, 15, 5);
}

TOID__ONE(ulid_flake_scalable_one, toid__fmt_ulid_flake_scalable, flake_scalable_next)

const toid__format toid__fmt_ulid_flake_scalable = {
    .info = {
        .format = TOID_ULID_FLAKE_SCALABLE, .name = "ulid-flake-scalable", .bits = 63,
        .bin_size = 8, .text_len = 13, .text_len_min = 13, .alphabet = "crockford32",
        .default_epoch_ms = TOID__EPOCH_2024, .epoch_configurable = 1,
        .has_int = 1, .int_max = TOID__MAX63, .ts_bits = 43,
        .spec = "Ulid-Flake specification, scalable",
        .node_bits = 5, .node_max = 31, .detect_rank = 7, .generates = 1,
    },
    TOID__DECODE(toid__flake13_decode), TOID__ENCODE(toid__flake13_encode),
    .ts_shift = 20, .nfields = 2,
    .fields = {{TOID_FIELD_RANDOM, 5, 15}, {TOID_FIELD_SID, 0, 5}},
    .next = flake_scalable_next,
    .one = ulid_flake_scalable_one, .new_bin = ulid_flake_scalable_one_new, .new_text = ulid_flake_scalable_one_text,
    .default_on_exhausted = TOID_EXHAUSTED_ERROR,
    .default_on_behind = TOID_BEHIND_ERROR,
    .pack = toid__flake_pack, .unpack = toid__flake_unpack, .max_entropy_bytes = 2,
    .entropy_per_id = 1,
};
