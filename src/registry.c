/* registry.c — the format table, derived from TOID_FORMAT_LIST, and the
 * public entry points that dispatch through it. */
#include "format.h"

#include <stdio.h>
#include "simd.h"

const toid__format *const toid__formats[TOID_FORMAT_COUNT] = {
#define TOID__PTR(id, tok, name) &toid__fmt_##tok,
    TOID_FORMAT_LIST(TOID__PTR)
#undef TOID__PTR
};

const char *toid_version(void) { return TOID_VERSION_STRING; }

const toid_format_info *toid_format_get(toid_format f) {
    const toid__format *fmt = toid__format_of(f);
    return fmt ? &fmt->info : NULL;
}

/* Names people type for a format besides its own (matched like names). */
static const struct {
    const char *alias;
    toid_format format;
} aliases[] = {
    {"uuid7", TOID_UUIDV7},
    {"uuid-v7", TOID_UUIDV7},
    {"xid", TOID_UID11},
};

/* Case-insensitive, and '_' matches '-' (SQL spells ulid_flake). */
static bool same_name(const char *want, const char *name, size_t len) {
    size_t n = strlen(want);
    if (n != len)
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        else if (c == '_')
            c = '-';
        if (c != want[i])
            return false;
    }
    return true;
}

int toid_format_by_name(const char *name, size_t len) {
    if (!name)
        return TOID_EINVAL;
    for (int f = 0; f < TOID_FORMAT_COUNT; f++)
        if (same_name(toid__formats[f]->info.name, name, len))
            return f;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (same_name(aliases[i].alias, name, len))
            return (int)aliases[i].format;
    return TOID_EINVAL;
}

/* The optimal string alignment distance (edits: insert, delete, replace,
 * swap two neighbours) between want and name folded as same_name folds,
 * or 3 when it is 3 or more (all a suggestion needs). */
static unsigned distance(const char *want, const char *name, size_t len) {
    size_t n = strlen(want);
    if (len > 32 || n > 32 || (len > n ? len - n : n - len) > 2)
        return 3;
    char s[33];
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        s[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c == '_' ? '-' : c;
    }
    unsigned d[34][34];
    for (size_t i = 0; i <= len; i++)
        d[i][0] = (unsigned)i;
    for (size_t j = 0; j <= n; j++)
        d[0][j] = (unsigned)j;
    for (size_t i = 1; i <= len; i++)
        for (size_t j = 1; j <= n; j++) {
            unsigned cost = s[i - 1] != want[j - 1];
            unsigned best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < best)
                best = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && s[i - 1] == want[j - 2] && s[i - 2] == want[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[len][n] < 3 ? d[len][n] : 3;
}

int toid_format_nearest(const char *name, size_t len) {
    if (!name)
        return TOID_EINVAL;
    int found = toid_format_by_name(name, len);
    if (found >= 0)
        return found;
    /* the closest name or alias, within 2 edits and nearer than half the
     * name ("id" is no typo of "uid11"); the first in registry order wins a tie */
    unsigned best = 3;
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        unsigned d = distance(toid__formats[f]->info.name, name, len);
        if (d < best && 2 * d < len) {
            best = d;
            found = f;
        }
    }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        unsigned d = distance(aliases[i].alias, name, len);
        if (d < best && 2 * d < len) {
            best = d;
            found = (int)aliases[i].format;
        }
    }
    return found >= 0 ? found : TOID_EINVAL;
}

int toid_format_name_error(const char *name, size_t len, char *out, size_t out_size) {
    if ((!name && len) || !out)
        return TOID_EINVAL;
    char shown[4 * 48 + 4];   /* up to 48 bytes of the name, each at most \xHH */
    size_t k = 0;
    for (size_t i = 0; i < len && i < 48; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'')
            shown[k++] = (char)c;
        else
            k += (size_t)snprintf(shown + k, sizeof shown - k, "\\x%02x", c);
    }
    memcpy(shown + k, len > 48 ? "..." : "", len > 48 ? 4 : 1);
    int near = toid_format_nearest(name, len);
    if (near >= 0) {
        int n = snprintf(out, out_size, "unknown format '%s' (did you mean %s?)", shown,
                         toid__formats[near]->info.name);
        return n >= 0 && (size_t)n < out_size ? n : TOID_EBUFFER;
    }
    /* none near: what was expected, the names there are, when they fit
     * (a long name shown as \xHH may leave no room in 300 bytes) */
    char list[256];
    size_t used = 0;
    for (int f = 0; f < TOID_FORMAT_COUNT; f++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", f ? ", " : " (formats: ",
                                 toid__formats[f]->info.name);
    snprintf(list + used, sizeof list - used, ")");
    int n = snprintf(out, out_size, "unknown format '%s'%s", shown, list);
    if (n < 0 || (size_t)n >= out_size)
        n = snprintf(out, out_size, "unknown format '%s'", shown);
    return n >= 0 && (size_t)n < out_size ? n : TOID_EBUFFER;
}

size_t toid_bin_size(toid_format f) {
    const toid__format *fmt = toid__format_of(f);
    return fmt ? fmt->info.bin_size : 0;
}

int toid__resolve_epoch(const toid__format *fmt, int64_t epoch_ms, int64_t *out) {
    if (epoch_ms == TOID_EPOCH_DEFAULT || epoch_ms == fmt->info.default_epoch_ms) {
        *out = fmt->info.default_epoch_ms;
        return 0;
    }
    if (!fmt->info.epoch_configurable || epoch_ms < 0 || epoch_ms > (INT64_C(1) << 48) - 1)
        return TOID_EINVAL;
    *out = epoch_ms;
    return 0;
}

int toid__check_value(const toid__format *fmt, const uint8_t *bin) {
    if (fmt->info.has_int && fmt->info.int_max != UINT64_MAX && (bin[0] & 0x80u))
        return TOID_EOVERFLOW;
    if (fmt->fixed_mask)
        for (unsigned i = 0; i < fmt->info.bin_size; i++)
            if ((bin[i] & fmt->fixed_mask[i]) != fmt->fixed_bits[i])
                return TOID_EINVAL;
    return 0;
}

int toid_decode(toid_format f, const char *text, size_t len, uint8_t *bin, size_t *err_pos) {
    if ((unsigned)f >= TOID_FORMAT_COUNT || !bin || (!text && len))
        return TOID_EINVAL;
    return toid__decoder(toid__formats[f])(text, len, bin, err_pos);
}

/* The per-ID text path: the table entry straight (an f in range always has
 * one), the terminator before the call, the level's encoder with no wrapper. */
int toid_encode(toid_format f, const uint8_t *bin, char *out, size_t out_size) {
    if ((unsigned)f >= TOID_FORMAT_COUNT || !bin || !out)
        return TOID_EINVAL;
    const toid__format *fmt = toid__formats[f];
    unsigned n = fmt->info.text_len;
    if (out_size <= n)
        return TOID_EBUFFER;
    out[n] = '\0';
    toid__encoder(fmt)(bin, out);
    return (int)n;
}

int toid_encode_batch(toid_format f, const uint8_t *bin, size_t n, char sep, char *out, size_t out_size,
                      size_t *written) {
    const toid__format *fmt = toid__format_of(f);
    if (!fmt || !out || (!bin && n))
        return TOID_EINVAL;
    size_t len = fmt->info.text_len, size = fmt->info.bin_size, step = len + (sep != '\0');
    if (n > (SIZE_MAX - 1) / step || out_size < n * step + 1)
        return TOID_EBUFFER;
    char *p = out;
    toid__encode_fn encode = toid__encoder(fmt);
    for (size_t i = 0; i < n; i++, bin += size) {
        encode(bin, p);
        p += len;
        if (sep != '\0')
            *p++ = sep;
    }
    *p = '\0';
    if (written)
        *written = (size_t)(p - out);
    return 0;
}

int toid_from_bytes(toid_format f, const uint8_t *bytes, size_t len, uint8_t *bin) {
    const toid__format *fmt = toid__format_of(f);
    if (!fmt || !bin || !bytes)
        return TOID_EINVAL;
    if (len != fmt->info.bin_size)
        return TOID_ELENGTH;
    int rc = toid__check_value(fmt, bytes);
    if (rc < 0)
        return rc;
    memmove(bin, bytes, len);
    return 0;
}

int toid_to_u64(toid_format f, const uint8_t *bin, uint64_t *out) {
    const toid__format *fmt = toid__format_of(f);
    if (!fmt || !fmt->info.has_int || !bin || !out)
        return TOID_EINVAL;
    *out = toid__load64(bin);
    return 0;
}

int toid_from_u64(toid_format f, uint64_t value, uint8_t *bin) {
    const toid__format *fmt = toid__format_of(f);
    if (!fmt || !fmt->info.has_int || !bin)
        return TOID_EINVAL;
    if (value > fmt->info.int_max)
        return TOID_EOVERFLOW;
    toid__store64(bin, value);
    return 0;
}

int toid_encode_int(toid_format f, const uint8_t *bin, char *out, size_t out_size) {
    const toid__format *fmt = toid__format_of(f);
    if (!fmt || !fmt->info.has_int || !bin || !out)
        return TOID_EINVAL;
    char digits[24];
    size_t n = toid__u64_to_dec(toid__load64(bin), digits);
    if (out_size <= n)
        return TOID_EBUFFER;
    memcpy(out, digits, n);
    out[n] = '\0';
    return (int)n;
}

int toid_decode_int(toid_format f, const char *text, size_t len, uint8_t *bin, size_t *err_pos) {
    const toid__format *fmt = toid__format_of(f);
    if (!fmt || !fmt->info.has_int || !bin || (!text && len))
        return TOID_EINVAL;
    if (len < 1 || len > 20)
        return TOID_ELENGTH;
    for (size_t i = 0; i < len; i++)
        if (text[i] < '0' || text[i] > '9') {
            if (err_pos)
                *err_pos = i;
            return TOID_ECHAR;
        }
    uint64_t v;
    if (toid__dec_to_u64(text, len, &v) < 0 || v > fmt->info.int_max)
        return TOID_EOVERFLOW;
    toid__store64(bin, v);
    return 0;
}
