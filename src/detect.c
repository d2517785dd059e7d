/* detect.c — reading a text whose format is not named: only at a format's
 * canonical length, by a documented rank, with the other readings reported
 * (toid.h); the other forms people paste a UUID in; and a sentence that
 * names the cause when a text is refused. Never a silent guess: a text that
 * no format writes at its length is refused even if some decoder would take
 * it (a 5-letter word is not a nanoflake unless the caller says so). */
#include "codec.h"

#include <stdio.h>

/* The detection rank (toid.h). uid11-seq and ulid-flake-scalable share
 * uid11's and ulid-flake's text and are never detected. */
static const toid_format detect_order[] = {TOID_UUIDV7, TOID_ULID,       TOID_SCRU160,
                                           TOID_UID11,  TOID_ULID_FLAKE, TOID_NANOFLAKE};
#define NDETECT (sizeof detect_order / sizeof detect_order[0])

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
    for (size_t i = 0; i < NDETECT; i++) {
        toid_format f = detect_order[i];
        if (canonical_length(f, len) && toid_decode_forms(f, text, len, bin, NULL) == 0)
            set |= 1u << f;
    }
    return set;
}

/* The detection rank for this text: ulid-flake and nanoflake swap places
 * for lower-case text (nanoflake's canonical case). */
static toid_format ranked(size_t i, bool lower) {
    toid_format f = detect_order[i];
    if (lower && f == TOID_ULID_FLAKE)
        return TOID_NANOFLAKE;
    if (lower && f == TOID_NANOFLAKE)
        return TOID_ULID_FLAKE;
    return f;
}

int toid_detect_also(const char *text, size_t len, uint8_t *bin, uint32_t *also, size_t *err_pos) {
    if ((!text && len) || !bin)
        return TOID_EINVAL;
    if (also)
        *also = 0;
    uint32_t mask = toid_detectable(text, len);
    bool lower = lower_case(text, len);
    for (size_t i = 0; i < NDETECT; i++) {
        toid_format f = ranked(i, lower);
        if (mask & (1u << f)) {
            if (also)
                *also = mask & ~(1u << f);
            return toid_decode_forms(f, text, len, bin, err_pos) == 0 ? (int)f : TOID_EINVAL;
        }
    }
    /* none reads it: a word at a length some format writes is a word (not
     * that format's error); else the error of the first (by rank) whose
     * length it has */
    for (size_t i = 0; i < NDETECT; i++) {
        toid_format f = ranked(i, lower);
        if (canonical_length(f, len))
            return a_word(text, len) ? TOID_EINVAL : toid_decode_forms(f, text, len, bin, err_pos);
    }
    return TOID_ELENGTH;
}

int toid_detect(const char *text, size_t len, uint8_t *bin, size_t *err_pos) {
    return toid_detect_also(text, len, bin, NULL, err_pos);
}

/* ---- the cause, in words -------------------------------------------------- */

static int put(size_t out_size, int n) {
    if (n < 0 || (size_t)n >= out_size)
        return TOID_EBUFFER;
    return n;
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
    if (err == TOID_ECHAR)
        return put(out_size, snprintf(out, out_size, "%s at position %zu", toid_strerror(err), err_pos));
    return put(out_size, snprintf(out, out_size, "%s", toid_strerror(err)));
}
