/* fuzz_decode.c — one libFuzzer target per decoder, chosen at build time by
 * FUZZ_FORMATS (the formats that share that decoder). Whatever the decoder
 * accepts must survive every round trip; whatever it rejects must be
 * rejected with a decode error class (and a position inside the text). */
#include "toid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REQUIRE(c) do { if (!(c)) abort(); } while (0)

static const toid_format formats[] = {FUZZ_FORMATS};

static void check_format(toid_format f, const char *text, size_t len) {
    uint8_t bin[TOID_BIN_MAX], again[TOID_BIN_MAX];
    size_t pos = (size_t)-1;
    size_t size = toid_bin_size(f);
    int rc = toid_decode(f, text, len, bin, &pos);
    if (rc < 0) {
        REQUIRE(rc == TOID_ELENGTH || rc == TOID_ECHAR || rc == TOID_EOVERFLOW);
        if (rc == TOID_ECHAR)
            REQUIRE(pos < len);
        REQUIRE(!(toid_accepting(text, len) & (1u << f)));
        return;
    }
    REQUIRE(toid_accepting(text, len) & (1u << f));
    /* text -> value -> canonical text -> the same value */
    char canon[TOID_TEXT_MAX];
    int n = toid_encode(f, bin, canon, sizeof canon);
    REQUIRE(n == (int)toid_format_get(f)->text_len);
    REQUIRE(toid_decode(f, canon, (size_t)n, again, NULL) == 0);
    REQUIRE(memcmp(bin, again, size) == 0);
    /* binary form */
    REQUIRE(toid_from_bytes(f, bin, size, again) == 0 && memcmp(bin, again, size) == 0);
    /* fields -> value */
    toid_fields fl;
    REQUIRE(toid_inspect(f, bin, TOID_EPOCH_DEFAULT, &fl) == 0);
    REQUIRE(toid_make(f, &fl, TOID_EPOCH_DEFAULT, again) == 0 && memcmp(bin, again, size) == 0);
    /* from the time and sub-fields alone (uuidv7 reports no sub-fields: its
     * random bits only travel in hex) */
    fl.has &= ~((1u << TOID_FIELD_HEX) | (1u << TOID_FIELD_INT));
    REQUIRE(toid_make(f, &fl, TOID_EPOCH_DEFAULT, again) == 0);
    REQUIRE(f == TOID_UUIDV7 || memcmp(bin, again, size) == 0);
    /* the value lies inside the time bounds of its own ms */
    uint8_t lo[TOID_BIN_MAX], hi[TOID_BIN_MAX];
    REQUIRE(toid_time_bounds(f, fl.unix_ms, TOID_EPOCH_DEFAULT, lo, hi) == 0);
    REQUIRE(memcmp(lo, bin, size) <= 0 && memcmp(bin, hi, size) <= 0);
    char json[512];
    REQUIRE(toid_inspect_json(f, bin, TOID_EPOCH_DEFAULT, json, sizeof json) > 0);
    /* the integer form */
    uint64_t u;
    if (toid_to_u64(f, bin, &u) == 0) {
        char dec[24];
        int k = snprintf(dec, sizeof dec, "%llu", (unsigned long long)u);
        REQUIRE(toid_decode_int(f, dec, (size_t)k, again, NULL) == 0 && memcmp(bin, again, size) == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Detection picks a format that reads the text at a length it writes
 * (toid_detectable), or fails exactly when none does (uid11-seq and
 * ulid-flake-scalable are never detected), with a decode error class, or
 * TOID_EINVAL for a word; "also" holds only the other detectable formats. */
static void check_detect(const char *text, size_t len) {
    uint8_t bin[TOID_BIN_MAX], again[TOID_BIN_MAX];
    size_t pos = (size_t)-1;
    uint32_t mask = toid_detectable(text, len), also = 0;
    int d = toid_detect_also(text, len, bin, &also, &pos);
    if (d >= 0) {
        REQUIRE(mask & (1u << d));
        REQUIRE(also == (mask & ~(1u << d)));
        REQUIRE(d != TOID_UID11_SEQ && d != TOID_ULID_FLAKE_SCALABLE);
        REQUIRE(toid_decode_forms((toid_format)d, text, len, again, NULL) == 0);
        REQUIRE(memcmp(bin, again, toid_bin_size((toid_format)d)) == 0);
    } else {
        REQUIRE(mask == 0);
        REQUIRE(d == TOID_ELENGTH || d == TOID_ECHAR || d == TOID_EOVERFLOW || d == TOID_EINVAL);
        if (d == TOID_ECHAR)
            REQUIRE(pos < len);
        char why[200];
        REQUIRE(toid_explain(-1, text, len, d, pos, why, sizeof why) > 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;
    check_detect(text, size);
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        check_format(formats[i], text, size);
        /* the same bytes as an integer, for the 64-bit formats */
        uint8_t bin[TOID_BIN_MAX];
        size_t pos = (size_t)-1;
        int rc = toid_decode_int(formats[i], text, size, bin, &pos);
        if (rc == TOID_ECHAR)
            REQUIRE(pos < size);
        if (rc == 0) {
            char out[TOID_TEXT_MAX];
            REQUIRE(toid_encode(formats[i], bin, out, sizeof out) > 0);
        }
    }
    return 0;
}
