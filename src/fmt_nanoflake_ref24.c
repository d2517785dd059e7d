/* fmt_nanoflake_ref24.c — nanoflake-ref24, read only: the layout the
 * nanoflakes Java and Kotlin reference libraries write, which departs from
 * the Nanoflake spec (time << 22). Their TIMESTAMP_SHIFT is the sequence
 * bits plus the generator's shift (12 + 12 = 24) where the spec means the
 * sequence bits plus the generator's width (12 + 10 = 22), so:
 * 0 | 39-bit ms since the epoch | 2 bits the libraries leave 0 | 10-bit
 * generator | 12-bit sequence (v = ts << 24 | gen << 12 | seq). Read as a
 * spec nanoflake, such an ID's time since the epoch is four times too far.
 * The text and the binary form are nanoflake's (13 base36 digits, 8 bytes);
 * the epoch is the application's, as in the spec (default 2024-01-01). */
#include "codec.h"
#include "flake13.h"

/* Bits 22 and 23, between the time and the generator: always 0 in the
 * libraries' IDs, read as they are. */
static const toid__span layout_extra[1] = {{"unused", 40, 2}};

const toid__format toid__fmt_nanoflake_ref24 = {
    .info = {
        .format = TOID_NANOFLAKE_REF24, .name = "nanoflake-ref24", .bits = 63, .bin_size = 8,
        .text_len = 13, .text_len_min = 1, .alphabet = "base36",
        .default_epoch_ms = TOID__EPOCH_2024, .epoch_configurable = 1,
        .has_int = 1, .int_max = TOID__MAX63, .ts_bits = 39,
        .spec = "read only: the nanoflakes Java/Kotlin libraries' layout (time << 24, not the spec's 22)",
        .text_lower = 1, .variant_of = "nanoflake",
    },
    TOID__DECODE(toid__nanoflake_decode), TOID__ENCODE(toid__nanoflake_encode),
    .ts_shift = 24, .nfields = 2,
    .fields = {{TOID_FIELD_GENERATOR, 12, 10}, {TOID_FIELD_SEQUENCE, 0, 12}},
    .extra = layout_extra, .nextra = 1,
};
