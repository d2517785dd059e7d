/* fmt_ulid_flake.c — Ulid-Flake stand-alone: 0 | 43-bit ms since the epoch
 * | 20-bit random; 13 Crockford base32 symbols; 8 bytes. */
#include "flake13.h"

const toid__format toid__fmt_ulid_flake = {
    .info = {
        .format = TOID_ULID_FLAKE, .name = "ulid-flake", .bits = 63, .bin_size = 8,
        .text_len = 13, .text_len_min = 13, .alphabet = "crockford32",
        .default_epoch_ms = TOID__EPOCH_2024, .epoch_configurable = 1,
        .has_int = 1, .int_max = TOID__MAX63, .ts_bits = 43,
        .spec = "Ulid-Flake specification, stand-alone",
    },
    .decode = toid__flake13_decode, .encode = toid__flake13_encode,
    .ts_shift = 20, .nfields = 1,
    .fields = {{TOID_FIELD_RANDOM, 0, 20}},
};
