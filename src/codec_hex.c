/* codec_hex.c — hexadecimal: decoded case-insensitively, encoded lower case
 * from a table of the 256 digit pairs, or 16 bytes at a time with SSSE3 or NEON
 * (toid_hex_encode of 16 bytes or more, SCRU160's hex form among them). */
#include "codec.h"
#include "simd.h"
#include "table.h"

#define DEC(c) (TOID__IN(c, '0', '9') ? (c) - '0' \
    : TOID__IN(c, 'a', 'f') ? (c) - 'a' + 10 \
    : TOID__IN(c, 'A', 'F') ? (c) - 'A' + 10 : TOID__BAD)
#define DIGIT(v) ((v) < 10 ? '0' + (v) : 'a' + (v) - 10)
#define PAIR(b) DIGIT((b) >> 4), DIGIT((b) & 15)

const uint8_t toid__hex_dec[256] = {TOID__TABLE256(DEC)};
const char toid__hex_pairs[512] = {TOID__TABLE256(PAIR)};

int toid_hex_encode(const uint8_t *bytes, size_t n, char *out, size_t out_size) {
    if ((!bytes && n) || !out)
        return TOID_EINVAL;
    if (n > (SIZE_MAX - 1) / 2 || out_size < 2 * n + 1)
        return TOID_EBUFFER;
#if TOID__HAVE_SIMD
    if (n >= 16 && toid__simd())
        TOID__SIMD(hex_encode)(bytes, n, out);
    else
#endif
        toid__hex_put(bytes, n, out);
    out[2 * n] = '\0';
    return (int)(2 * n);
}
