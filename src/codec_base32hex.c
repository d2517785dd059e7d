/* codec_base32hex.c — RFC 4648 base32hex (SCRU160): 0-9 A-V, decoded
 * case-insensitively, encoded upper case. */
#include "codec.h"
#include "table.h"

#define DEC(c) (TOID__IN(c, '0', '9') ? (c) - '0' \
    : TOID__IN(c, 'A', 'V') ? (c) - 'A' + 10 \
    : TOID__IN(c, 'a', 'v') ? (c) - 'a' + 10 : TOID__BAD)

const uint8_t toid__base32hex_dec[256] = {TOID__TABLE256(DEC)};
const char toid__base32hex_enc[32] = "0123456789ABCDEFGHIJKLMNOPQRSTUV";

size_t toid__first_bad(const char *s, size_t n, const uint8_t *dec) {
    for (size_t i = 0; i < n; i++)
        if (dec[(unsigned char)s[i]] == TOID__BAD)
            return i;
    return n;
}
