/* decimal.c — unsigned decimal text <-> integers, for fields and the int
 * form; written out by hand because the format layer uses no strtoull and no
 * locale. */
#include "format.h"

size_t toid__u64_to_dec(uint64_t v, char *out) {
    char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    for (size_t i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    return n;
}

int toid__dec_to_u64(const char *s, size_t n, uint64_t *out) {
    if (n == 0)
        return TOID_EINVAL;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned char)s[i] - (unsigned)'0';
        if (d > 9)
            return TOID_EINVAL;
        if (v > (UINT64_MAX - d) / 10u)
            return TOID_EOVERFLOW;
        v = v * 10u + d;
    }
    *out = v;
    return 0;
}

size_t toid__bytes_to_dec(const uint8_t *be, size_t n, char *out) {
    uint8_t num[TOID_BIN_MAX];
    char tmp[50];
    size_t len = 0;
    memcpy(num, be, n);
    for (;;) {
        /* num /= 10, remainder into the next digit */
        unsigned rem = 0, nonzero = 0;
        for (size_t i = 0; i < n; i++) {
            unsigned cur = rem * 256u + num[i];
            num[i] = (uint8_t)(cur / 10u);
            rem = cur % 10u;
            nonzero |= num[i];
        }
        tmp[len++] = (char)('0' + rem);
        if (!nonzero)
            break;
    }
    for (size_t i = 0; i < len; i++)
        out[i] = tmp[len - 1 - i];
    return len;
}

int toid__dec_to_bytes(const char *s, size_t len, uint8_t *be, size_t n) {
    uint8_t num[TOID_BIN_MAX] = {0};
    if (len == 0)
        return TOID_EINVAL;
    for (size_t k = 0; k < len; k++) {
        unsigned d = (unsigned char)s[k] - (unsigned)'0';
        if (d > 9)
            return TOID_EINVAL;
        unsigned carry = d;
        for (size_t i = n; i-- > 0;) {
            unsigned cur = num[i] * 10u + carry;
            num[i] = (uint8_t)cur;
            carry = cur >> 8;
        }
        if (carry)
            return TOID_EINVAL;
    }
    memcpy(be, num, n);
    return 0;
}
