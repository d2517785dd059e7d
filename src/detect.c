/* detect.c — reading a text whose format is not named: only at a format's
 * canonical length, by a documented rank, with the other readings reported
 * (toid.h); the other forms people paste a UUID in; and a sentence that
 * names the cause when a text is refused. Never a silent guess: a text that
 * no format writes at its length is refused even if some decoder would take
 * it (a 5-letter word is not a nanoflake unless the caller says so). */
#include "codec.h"

#include <stdatomic.h>
#include <stdio.h>

uint32_t toid_accepting(const char *text, size_t len) {
    uint32_t set = 0;
    uint8_t bin[TOID_BIN_MAX];
    if (!text && len)
        return 0;
    for (int f = 0; f < TOID_FORMAT_COUNT; f++)
        if (toid__format_of((toid_format)f)->decode(text, len, bin, NULL) == 0)
            set |= 1u << f;
    return set;
}

/* ---- UUID forms ---------------------------------------------------------- */

static bool prefix_ci(const char *s, size_t len, const char *p) {
    size_t n = strlen(p);
    if (len < n)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != p[i])
            return false;
    }
    return true;
}

int toid_uuid_canonical(const char *text, size_t len, char *out, size_t out_size, size_t *err_pos) {
    if ((!text && len) || !out)
        return TOID_EINVAL;
    if (out_size < 37)
        return TOID_EBUFFER;
    size_t skip = 0;                 /* bytes before the 36 (or 32) digits */
    size_t body = len;
    if (len == 38 && text[0] == '{') {
        if (text[37] != '}') {
            if (err_pos)
                *err_pos = 37;
            return TOID_ECHAR;
        }
        skip = 1;
        body = 36;
    } else if (len == 45 && prefix_ci(text, len, "urn:uuid:")) {
        skip = 9;
        body = 36;
    } else if (len != 36 && len != 32) {
        return TOID_ELENGTH;
    }
    const char *s = text + skip;
    size_t o = 0;
    for (size_t i = 0; i < body; i++) {
        bool want_hyphen = body == 36 && (i == 8 || i == 13 || i == 18 || i == 23);
        unsigned char c = (unsigned char)s[i];
        if (want_hyphen ? c != '-' : toid__hex_dec[c] == TOID__BAD) {
            if (err_pos)
                *err_pos = skip + i;
            return TOID_ECHAR;
        }
        if (body == 32 && (o == 8 || o == 13 || o == 18 || o == 23))
            out[o++] = '-';
        out[o++] = want_hyphen ? '-' : (char)(c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c);
    }
    out[36] = '\0';
    return 36;
}

int toid_decode_forms(toid_format f, const char *text, size_t len, uint8_t *bin, size_t *err_pos) {
    int rc = toid_decode(f, text, len, bin, err_pos);
    if (rc != TOID_ELENGTH || f != TOID_UUIDV7)
        return rc;
    char canon[37];
    size_t pos = 0;
    int n = toid_uuid_canonical(text, len, canon, sizeof canon, &pos);
    if (n < 0) {
        if (n == TOID_ECHAR && err_pos)
            *err_pos = pos;
        return n;
    }
    rc = toid_decode(f, canon, 36, bin, &pos);
    if (rc == TOID_ECHAR && err_pos) {
        /* back to an offset in text: the skipped prefix, and the hyphens
         * the 32-digit form lacks */
        size_t skip = len == 38 ? 1 : len == 45 ? 9 : 0;
        size_t hyphens = len == 32 ? (pos > 23) + (pos > 18) + (pos > 13) + (pos > 8) : 0;
        *err_pos = skip + pos - hyphens;
    }
    return rc;
}

/* ---- detection ------------------------------------------------------------ */

/* 1 if len is a length at which format f writes its text (uuidv7: any of
 * its UUID forms). */
static bool canonical_length(toid_format f, size_t len) {
    const toid_format_info *fi = &toid__format_of(f)->info;
    if (f == TOID_UUIDV7)
        return len == 36 || len == 32 || len == 38 || len == 45;
    return len == fi->text_len || (fi->text_len_alt && len == fi->text_len_alt);
}

/* Lower-case letters and no upper-case ones. */
static bool lower_case(const char *s, size_t len) {
    bool lower = false;
    for (size_t i = 0; i < len; i++) {
        if (s[i] >= 'A' && s[i] <= 'Z')
            return false;
        lower |= s[i] >= 'a' && s[i] <= 'z';
    }
    return lower;
}

/* Only lower-case letters: a word people write, never an ID made in this
 * century (every format puts the time in its leading symbols, which are
 * digits or capitals until about 2100; uuidv7 always has its digit 7). */
static bool a_word(const char *s, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (s[i] < 'a' || s[i] > 'z')
            return false;
    return len > 0;
}

uint32_t toid_detectable(const char *text, size_t len) {
    uint32_t set = 0;
    uint8_t bin[TOID_BIN_MAX];
    if ((!text && len) || a_word(text, len))
        return 0;
    for (int f = 0; f < TOID_FORMAT_COUNT; f++)
        if (toid__format_of((toid_format)f)->info.detected && canonical_length((toid_format)f, len) &&
            toid_decode_forms((toid_format)f, text, len, bin, NULL) == 0)
            set |= 1u << f;
    return set;
}

/* The formats to try for this text, in order, into order[]; returns their
 * count: by detect_rank (ties by the list's order), those with lower-case
 * canonical text first when the text is lower case, only the detected ones
 * unless TOID_DETECT_ALL. Formats are data: adding one to the list adds it
 * here. */
static size_t try_order(const char *text, size_t len, unsigned flags, toid_format *order) {
    bool lower = lower_case(text, len);
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t start = n;
        for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
            const toid_format_info *fi = &toid__format_of((toid_format)f)->info;
            bool early = lower && fi->text_lower;
            if (!fi->detect_rank || (!fi->detected && !(flags & TOID_DETECT_ALL)) || early != (pass == 0))
                continue;               /* a read-only variant is never tried */
            size_t i = n++;             /* insertion by rank, stable */
            while (i > start && toid__format_of(order[i - 1])->info.detect_rank > fi->detect_rank) {
                order[i] = order[i - 1];
                i--;
            }
            order[i] = (toid_format)f;
        }
    }
    return n;
}

/* The formats whose alphabet toid_normalize fixes (Crockford base32):
 * found once (every thread finds the same set, so a race only repeats the
 * search), since lenient detection asks per ID. */
static uint32_t crockford_formats(void) {
    static _Atomic uint32_t known;   /* the set plus bit 31; 0: not yet */
    uint32_t set = atomic_load_explicit(&known, memory_order_relaxed);
    if (set)
        return set & ~(1u << 31);
    for (int f = 0; f < TOID_FORMAT_COUNT; f++)
        if (strcmp(toid__format_of((toid_format)f)->info.alphabet, "crockford32") == 0)
            set |= 1u << f;
    atomic_store_explicit(&known, set | 1u << 31, memory_order_relaxed);
    return set;
}

/* The text as toid_normalize fixes it into norm (64 bytes: every Crockford
 * text is shorter; a longer result reads as no Crockford format). */
#define NORM_MAX 64
static int normalized(const char *text, size_t len, char *norm) {
    int n = toid_normalize(text, len, norm, NORM_MAX);
    return n == TOID_EBUFFER ? TOID_ELENGTH : n;
}

/* The input offset of the k-th byte of the normalised text (hyphens are the
 * only bytes toid_normalize removes). */
static size_t input_pos(const char *text, size_t len, size_t k) {
    for (size_t i = 0; i < len; i++)
        if (text[i] != '-' && k-- == 0)
            return i;
    return len;
}

int toid_decode_flags(toid_format f, const char *text, size_t len, unsigned flags, uint8_t *bin,
                      size_t *err_pos) {
    if (!(flags & TOID_DETECT_LENIENT) || !(crockford_formats() >> f & 1u))
        return toid_decode_forms(f, text, len, bin, err_pos);
    if (!text && len)
        return TOID_EINVAL;
    char norm[NORM_MAX];
    int n = normalized(text, len, norm);
    if (n < 0)
        return n;
    size_t pos = 0;
    int rc = toid_decode(f, norm, (size_t)n, bin, &pos);
    if (rc == TOID_ECHAR && err_pos)
        *err_pos = input_pos(text, len, pos);
    return rc;
}

/* The read-only variants (detect_rank 0), which detection leaves out even
 * with TOID_DETECT_ALL: found once, as crockford_formats. */
static uint32_t variants(void) {
    static _Atomic uint32_t known;   /* the set plus bit 31; 0: not yet */
    uint32_t set = atomic_load_explicit(&known, memory_order_relaxed);
    if (set)
        return set & ~(1u << 31);
    for (int f = 0; f < TOID_FORMAT_COUNT; f++)
        if (!toid__format_of((toid_format)f)->info.detect_rank)
            set |= 1u << f;
    atomic_store_explicit(&known, set | 1u << 31, memory_order_relaxed);
    return set;
}

/* Which formats read the text: detection's (toid_detectable) or, with
 * TOID_DETECT_ALL, every decoder's (toid_accepting); with
 * TOID_DETECT_LENIENT also the Crockford formats that read it normalised. */
static uint32_t readers(const char *text, size_t len, unsigned flags) {
    uint32_t (*which)(const char *, size_t) = flags & TOID_DETECT_ALL ? toid_accepting : toid_detectable;
    uint32_t set = which(text, len) & ~variants();
    if (flags & TOID_DETECT_LENIENT) {
        char norm[NORM_MAX];
        int n = normalized(text, len, norm);
        if (n >= 0)
            set |= which(norm, (size_t)n) & crockford_formats();
    }
    return set;
}

/* Why no format reads the text: a word at a length some format writes is a
 * word (not that format's error); else the error of the first format (in
 * try_order) whose length it has; else TOID_ELENGTH. */
static int undetected(const char *text, size_t len, uint8_t *bin, size_t *err_pos) {
    toid_format order[TOID_FORMAT_COUNT];
    size_t n = try_order(text, len, 0, order);
    for (size_t i = 0; i < n; i++)
        if (canonical_length(order[i], len))
            return a_word(text, len) ? TOID_EINVAL : toid_decode_forms(order[i], text, len, bin, err_pos);
    return TOID_ELENGTH;
}

int toid_detect_flags(const char *text, size_t len, unsigned flags, uint8_t *bin, uint32_t *also,
                      size_t *err_pos) {
    if ((!text && len) || !bin)
        return TOID_EINVAL;
    if (also)
        *also = 0;
    uint32_t set = readers(text, len, flags);
    toid_format order[TOID_FORMAT_COUNT];
    size_t n = 0;
    if (set & (set - 1))                /* several readers: rank them */
        n = try_order(text, len, flags, order);
    else if (set)                       /* one: no ranking to do */
        order[n++] = (toid_format)__builtin_ctz(set);
    for (size_t i = 0; i < n; i++) {
        toid_format f = order[i];
        if (set & (1u << f)) {
            if (also)
                *also = set & ~(1u << f);
            int rc = toid_decode_flags(f, text, len, flags, bin, err_pos);
            return rc < 0 ? rc : (int)f;
        }
    }
    if (flags & TOID_DETECT_LENIENT) {
        /* the normalised text's error, where it has a length some format writes */
        char norm[NORM_MAX];
        int nn = normalized(text, len, norm);
        if (nn >= 0 && (size_t)nn != len) {
            uint8_t scratch[TOID_BIN_MAX];
            size_t pos = 0;
            int rc = toid_detect_also(norm, (size_t)nn, scratch, NULL, &pos);
            if (rc != TOID_ELENGTH) {
                if (err_pos)
                    *err_pos = input_pos(text, len, pos);
                return rc < 0 ? rc : TOID_EINVAL;
            }
        }
    }
    return undetected(text, len, bin, err_pos);
}

int toid_detect_also(const char *text, size_t len, uint8_t *bin, uint32_t *also, size_t *err_pos) {
    return toid_detect_flags(text, len, 0, bin, also, err_pos);
}

int toid_detect(const char *text, size_t len, uint8_t *bin, size_t *err_pos) {
    return toid_detect_flags(text, len, 0, bin, NULL, err_pos);
}

/* ---- the cause, in words -------------------------------------------------- */

static int put(size_t out_size, int n) {
    if (n < 0 || (size_t)n >= out_size)
        return TOID_EBUFFER;
    return n;
}

/* "bad character 'U' at position 25", or "bad byte 0xc3 at position 24"
 * for a byte that does not print as itself. */
static int explain_char(const char *text, size_t pos, char *out, size_t out_size) {
    unsigned char c = (unsigned char)text[pos];
    if (c > 0x20 && c < 0x7f)
        return put(out_size, snprintf(out, out_size, "bad character '%c' at position %zu", c, pos));
    return put(out_size, snprintf(out, out_size, "bad byte 0x%02x at position %zu", c, pos));
}

/* A named format's length refusal: the length and what the format takes
 * ("bad length: 25 characters, expected 26"; bytes when the text is not
 * ASCII). */
static int explain_length(const toid_format_info *fi, const char *text, size_t len, char *out,
                          size_t out_size) {
    bool ascii = true;
    for (size_t i = 0; i < len && ascii; i++)
        ascii = (unsigned char)text[i] < 0x80;
    char expected[64];
    if (fi->text_len_alt)
        snprintf(expected, sizeof expected, "%u or %u", fi->text_len, fi->text_len_alt);
    else if (fi->text_len_min != fi->text_len)
        snprintf(expected, sizeof expected, "%u to %u", fi->text_len_min, fi->text_len);
    else
        snprintf(expected, sizeof expected, "%u", fi->text_len);
    return put(out_size, snprintf(out, out_size, "bad length: %zu %s%s, expected %s", len,
                                  ascii ? "character" : "byte", len == 1 ? "" : "s", expected));
}

/* A named format's overflow: the largest value it holds ("value too large
 * for ulid (the largest is 7ZZZZZZZZZZZZZZZZZZZZZZZZZ)"). */
static int explain_overflow(toid_format f, const toid_format_info *fi, char *out, size_t out_size) {
    uint8_t max[TOID_BIN_MAX];
    char largest[TOID_TEXT_MAX];
    memset(max, 0xff, sizeof max);      /* the widest formats: every bit set */
    if ((!fi->int_max || toid_from_u64(f, fi->int_max, max) == 0) &&
        toid_encode(f, max, largest, sizeof largest) > 0)
        return put(out_size, snprintf(out, out_size, "value too large for %s (the largest is %s)",
                                      fi->name, largest));
    return put(out_size, snprintf(out, out_size, "value too large for %s", fi->name));
}

int toid_explain(int f, const char *text, size_t len, int err, size_t err_pos, char *out,
                 size_t out_size) {
    if (!out || out_size == 0 || (!text && len))
        return TOID_EINVAL;
    bool uuid_reader = f == TOID_UUIDV7 || (f < 0 && canonical_length(TOID_UUIDV7, len));
    char canon[37];
    if (err == TOID_ECHAR && uuid_reader && toid_uuid_canonical(text, len, canon, sizeof canon, NULL) == 36) {
        unsigned version = toid__hex_dec[(unsigned char)canon[14]];
        unsigned variant = toid__hex_dec[(unsigned char)canon[19]] >> 2;
        if (version != 7)
            return put(out_size, snprintf(out, out_size, "UUID version %u, toid reads version 7", version));
        if (variant != 2)
            return put(out_size, snprintf(out, out_size,
                                               "UUID variant is not RFC 9562's (digit 17 is %c, "
                                               "toid reads 8, 9, a or b)", canon[19]));
    }
    if (err == TOID_EINVAL && f < 0 && a_word(text, len))
        return put(out_size, snprintf(out, out_size,
                                      "a word, not an ID (lower-case letters only, which no format "
                                      "writes for a time before 2100); name the format to read it"));
    if (err == TOID_ELENGTH && f < 0)
        return put(out_size,
                   snprintf(out, out_size,
                            "no format writes %zu characters (ulid 26, uuidv7 36 or 32, scru160 32 "
                            "or 40, ulid-flake and nanoflake 13, uid11 11); name the format to read it",
                            len));
    if (f >= 0 && f < TOID_FORMAT_COUNT && err == TOID_ELENGTH)
        return explain_length(&toid__format_of((toid_format)f)->info, text, len, out, out_size);
    if (f >= 0 && f < TOID_FORMAT_COUNT && err == TOID_EOVERFLOW)
        return explain_overflow((toid_format)f, &toid__format_of((toid_format)f)->info, out, out_size);
    if (err == TOID_ECHAR && err_pos < len)
        return explain_char(text, err_pos, out, out_size);
    if (err == TOID_ECHAR)
        return put(out_size, snprintf(out, out_size, "%s at position %zu", toid_strerror(err), err_pos));
    return put(out_size, snprintf(out, out_size, "%s", toid_strerror(err)));
}
