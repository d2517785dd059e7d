/* fmt_uid11_seq.c — uid11, profile ts-seq-rand: 42-bit ms since the xid
 * epoch | 12-bit sequence | 10-bit random; 11 Base58 symbols; 8 bytes. */
#include "uid11.h"

const toid__format toid__fmt_uid11_seq = {
    .info = {
        .format = TOID_UID11_SEQ, .name = "uid11-seq", .bits = 64, .bin_size = 8,
        .text_len = 11, .text_len_min = 11, .alphabet = "base58",
        .default_epoch_ms = TOID__EPOCH_XID, .epoch_configurable = 0,
        .has_int = 1, .int_max = UINT64_MAX, .ts_bits = 42,
        .spec = "uid11 specification, profile ts-seq-rand (42/12/10)",
    },
    .decode = toid__uid11_decode, .encode = toid__uid11_encode,
    .ts_shift = 22, .nfields = 2,
    .fields = {{TOID_FIELD_SEQUENCE, 10, 12}, {TOID_FIELD_RANDOM, 0, 10}},
};
