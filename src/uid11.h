/* uid11.h — what uid11 (profile xid) and uid11-seq share: the 11-symbol
 * Base58 text of a 64-bit value and the xid epoch. */
#ifndef TOID_UID11_H
#define TOID_UID11_H
#include "codec.h"

/* 2011-11-11T11:11:11.111Z */
#define TOID__EPOCH_XID INT64_C(1321009871111)

static inline int toid__uid11_decode(const char *s, size_t len, uint8_t *bin, size_t *err_pos) {
    if (len != 11)
        return TOID_ELENGTH;
    uint64_t v;
    int rc = toid__base58_decode11(s, &v, err_pos);
    if (rc < 0)
        return rc;
    toid__store64(bin, v);
    return 0;
}

static inline void toid__uid11_encode(const uint8_t *bin, char *out) {
    toid__base58_encode11(toid__load64(bin), out);
}
#endif
