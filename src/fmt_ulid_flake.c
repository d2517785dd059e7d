/* fmt_ulid_flake.c — Ulid-Flake stand-alone: 0 | 43-bit ms since the epoch
 * | 20-bit random; 13 Crockford base32 symbols; 8 bytes. */
#define _POSIX_C_SOURCE 200809L    /* clock_gettime, for gen_owner.h */
#include "flake13.h"
#include "gen_owner.h"

static inline __attribute__((always_inline)) int flake_next(toid__core *c, uint8_t *out) {
    return toid__flake_next(c, out, 20, 0);
}

TOID__ONE(ulid_flake_one, toid__fmt_ulid_flake, flake_next)

const toid__format toid__fmt_ulid_flake = {
    .info = {
        .format = TOID_ULID_FLAKE, .name = "ulid-flake", .bits = 63, .bin_size = 8,
        .text_len = 13, .text_len_min = 13, .alphabet = "crockford32",
        .default_epoch_ms = TOID__EPOCH_2024, .epoch_configurable = 1,
        .has_int = 1, .int_max = TOID__MAX63, .ts_bits = 43,
        .spec = "Ulid-Flake specification, stand-alone",
        .detect_rank = 6, .generates = 1, .detected = 1,
    },
    TOID__DECODE(toid__flake13_decode), TOID__ENCODE(toid__flake13_encode),
    .ts_shift = 20, .nfields = 1,
    .fields = {{TOID_FIELD_RANDOM, 0, 20}},
    .next = flake_next,
    .one = ulid_flake_one, .new_bin = ulid_flake_one_new, .new_text = ulid_flake_one_text,
    .default_on_exhausted = TOID_EXHAUSTED_ERROR,
    .default_on_behind = TOID_BEHIND_ERROR,
    .pack = toid__flake_pack, .unpack = toid__flake_unpack, .max_entropy_bytes = 3, .entropy_per_id = 1,
};
