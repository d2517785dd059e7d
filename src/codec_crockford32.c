/* codec_crockford32.c — Crockford's base32 (ULID, Ulid-Flake): 0-9 A-Z
 * without I L O U; decoding is case-insensitive, the aliases are not
 * accepted here (toid_normalize maps them first). */
#include "codec.h"
#include "table.h"

#define UP(c) (TOID__IN(c, 'a', 'z') ? (c) - 32 : (c))
/* Letters count from 10, skipping I, L, O and U. */
#define LETTER(u) ((u) - 'A' + 10 - ((u) > 'I') - ((u) > 'L') - ((u) > 'O') - ((u) > 'U'))
#define DEC_(u) (TOID__IN(u, '0', '9') ? (u) - '0' \
    : (TOID__IN(u, 'A', 'Z') && (u) != 'I' && (u) != 'L' && (u) != 'O' && (u) != 'U') ? LETTER(u) \
    : TOID__BAD)
#define DEC(c) DEC_(UP(c))

const uint8_t toid__crockford32_dec[256] = {TOID__TABLE256(DEC)};
const char toid__crockford32_enc[32] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

int toid_normalize(const char *text, size_t len, char *out, size_t out_size) {
    if (!text && len)
        return TOID_EINVAL;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '-')
            continue;
        if (c >= 'a' && c <= 'z')
            c = (unsigned char)(c - 32);
        if (c == 'I' || c == 'L')
            c = '1';
        else if (c == 'O')
            c = '0';
        if (n + 1 >= out_size)
            return TOID_EBUFFER;
        out[n++] = (char)c;
    }
    if (n >= out_size)
        return TOID_EBUFFER;
    out[n] = '\0';
    return (int)n;
}
