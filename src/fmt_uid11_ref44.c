/* fmt_uid11_ref44.c — uid11-ref44, read only: the layout gurki/uid11's code
 * wrote before its spec's version 1.0 (its TypeScript, Python and C++ with
 * TIME_BITS 44), which departs from the spec's xid profile (42/22):
 * 44-bit ms since the xid epoch 2011-11-11T11:11:11.111Z | 20 random bits
 * (v = ts << 20 | random). Read as xid, such an ID's time since the epoch
 * is a quarter of the real one. The text and the binary form are uid11's
 * (11 Base58 symbols, 8 bytes). */
#include "uid11.h"

const toid__format toid__fmt_uid11_ref44 = {
    .info = {
        .format = TOID_UID11_REF44, .name = "uid11-ref44", .bits = 64, .bin_size = 8,
        .text_len = 11, .text_len_min = 11, .alphabet = "base58",
        .default_epoch_ms = TOID__EPOCH_XID, .epoch_configurable = 0,
        .has_int = 1, .int_max = UINT64_MAX, .ts_bits = 44,
        .spec = "read only: gurki/uid11's code before spec 1.0 (44-bit time | 20 random, not xid's 42/22)",
        .variant_of = "uid11",
    },
    TOID__DECODE(toid__uid11_decode), TOID__ENCODE(toid__uid11_encode),
    .ts_shift = 20, .nfields = 1,
    .fields = {{TOID_FIELD_RANDOM, 0, 20}},
};
