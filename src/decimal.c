/* decimal.c — unsigned decimal text <-> integers, for fields and the int
 * form; written out by hand because the format layer uses no strtoull and no
 * locale. */
#include "format.h"

/* "00" .. "99": two digits per division (by a constant: a multiply). */
static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

size_t toid__u64_to_dec(uint64_t v, char *out) {
    char tmp[24];
    char *p = tmp + sizeof tmp;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100u);
        v /= 100u;
        p -= 2;
        memcpy(p, digit_pairs + 2 * r, 2);
    }
    if (v >= 10) {
        p -= 2;
        memcpy(p, digit_pairs + 2 * v, 2);
    } else {
        *--p = (char)('0' + v);
    }
    size_t n = (size_t)(tmp + sizeof tmp - p);
    memcpy(out, p, n);
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
    /* 16-bit limbs, most significant first, divided by 10^4 per pass: four
     * digits for each pass over the limbs */
    uint32_t limb[(TOID_BIN_MAX + 1) / 2];
    size_t nl = (n + 1) / 2;
    for (size_t i = 0; i < nl; i++) {
        size_t lo = n - 1 - 2 * (nl - 1 - i);     /* the index of the limb's low byte */
        limb[i] = (uint32_t)(lo ? be[lo - 1] : 0) << 8 | be[lo];   /* odd n: the top limb has one */
    }
    char tmp[64];
    size_t t = sizeof tmp;
    for (;;) {
        uint32_t rem = 0, nonzero = 0;
        for (size_t i = 0; i < nl; i++) {
            uint32_t cur = rem << 16 | limb[i];
            limb[i] = cur / 10000u;
            rem = cur % 10000u;
            nonzero |= limb[i];
        }
        t -= 4;
        memcpy(tmp + t, digit_pairs + 2 * (rem / 100u), 2);
        memcpy(tmp + t + 2, digit_pairs + 2 * (rem % 100u), 2);
        if (!nonzero)
            break;
    }
    while (t < sizeof tmp - 1 && tmp[t] == '0')   /* no leading zeros; "0" stays */
        t++;
    memcpy(out, tmp + t, sizeof tmp - t);
    return sizeof tmp - t;
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
