/* fmt_uid11.c — uid11, profile xid: 42-bit ms since 2011-11-11T11:11:11.111Z
 * | 22-bit random; 11 Base58 symbols; 8 bytes. Also the spec's prefix-aware
 * decoding (§3.6, §4). */
#include "uid11.h"

const toid__format toid__fmt_uid11 = {
    .info = {
        .format = TOID_UID11, .name = "uid11", .bits = 64, .bin_size = 8,
        .text_len = 11, .text_len_min = 11, .alphabet = "base58",
        .default_epoch_ms = TOID__EPOCH_XID, .epoch_configurable = 0,
        .has_int = 1, .int_max = UINT64_MAX, .ts_bits = 42,
        .spec = "uid11 specification, profile xid (section 8)",
    },
    .decode = toid__uid11_decode, .encode = toid__uid11_encode,
    .ts_shift = 22, .nfields = 1,
    .fields = {{TOID_FIELD_RANDOM, 0, 22}},
};

int toid_uid11_prefix_range(const char *text, size_t len, uint64_t *lo, uint64_t *hi,
                            size_t *err_pos) {
    if (len > 11)
        return TOID_ELENGTH;
    if (!text && len)
        return TOID_EINVAL;
    uint64_t vh, vl;
    int rc = toid__base58_decode(text, len, &vh, &vl, err_pos);
    if (rc < 0)
        return rc;
    /* lo = value * 58^(11-len), computed with the same 128-bit steps; any
     * bits above 64 mean the whole range is past 2^64-1. */
    for (size_t i = len; i < 11; i++) {
        uint64_t l0 = (vl & 0xFFFFFFFFu) * 58u;
        uint64_t l1 = (vl >> 32) * 58u + (l0 >> 32);
        vl = (l1 << 32) | (l0 & 0xFFFFFFFFu);
        vh = vh * 58u + (l1 >> 32);
    }
    if (vh)
        return TOID_EOVERFLOW;
    uint64_t scale = 1;
    for (size_t i = len; i < 11; i++) {
        if (scale > UINT64_MAX / 58u) {     /* 58^11 > 2^64: clamp below */
            scale = 0;
            break;
        }
        scale *= 58u;
    }
    /* hi = lo + scale - 1, clamped to 2^64-1 (scale 0 stands for 58^11). */
    uint64_t top;
    if (scale == 0 || vl > UINT64_MAX - (scale - 1))
        top = UINT64_MAX;
    else
        top = vl + (scale - 1);
    if (lo)
        *lo = vl;
    if (hi)
        *hi = top;
    return 0;
}
