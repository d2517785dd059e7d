/* test_people.c — the library as people meet it: detection that never
 * guesses silently (over the shared vectors and over random words), the
 * causes in words, the UUID forms, times as people write them, format names
 * in any case and their aliases.
 *   usage: test_people VECTORS_DIR */
#include "check.h"
#include "toid.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>

#define S(lit) lit, sizeof(lit) - 1

TEST_CASE(names) {
    CHECK_EQ_INT(toid_format_by_name(S("ULID")), TOID_ULID);
    CHECK_EQ_INT(toid_format_by_name(S("UUIDv7")), TOID_UUIDV7);
    CHECK_EQ_INT(toid_format_by_name(S("uuid7")), TOID_UUIDV7);
    CHECK_EQ_INT(toid_format_by_name(S("UUID-V7")), TOID_UUIDV7);
    CHECK_EQ_INT(toid_format_by_name(S("ulid_flake")), TOID_ULID_FLAKE);
    CHECK_EQ_INT(toid_format_by_name(S("Ulid-Flake-Scalable")), TOID_ULID_FLAKE_SCALABLE);
    CHECK_EQ_INT(toid_format_by_name(S("xid")), TOID_UID11);
    CHECK_EQ_INT(toid_format_by_name(S("SCRU160")), TOID_SCRU160);
    CHECK_EQ_INT(toid_format_by_name(S("uuid")), TOID_EINVAL);     /* which version? */
    CHECK_EQ_INT(toid_format_by_name(S("ulid ")), TOID_EINVAL);
    CHECK_EQ_INT(toid_format_by_name(S("uuidv")), TOID_EINVAL);
    CHECK_EQ_INT(toid_format_by_name(S("")), TOID_EINVAL);
}

TEST_CASE(detection_rules) {
    uint8_t bin[TOID_BIN_MAX];
    uint32_t also = 99;
    size_t pos = 0;
    /* the issue's cases */
    CHECK_EQ_INT(toid_detect_also(S("01a2078766da75a39228ec6ccd8b88fb"), bin, &also, &pos), TOID_UUIDV7);
    CHECK_EQ_INT(also, 1u << TOID_SCRU160);
    CHECK_EQ_INT(toid_detect(S("hello"), bin, &pos), TOID_ELENGTH);         /* no format is 5 long */
    CHECK_EQ_INT(toid_detect(S("information"), bin, &pos), TOID_EINVAL);    /* a word, uid11's length */
    CHECK_EQ_INT(toid_decode(TOID_UID11, S("information"), bin, &pos), 0);  /* which uid11 decodes */
    CHECK_EQ_INT(toid_detect(S("Hello"), bin, &pos), TOID_ELENGTH);         /* no format is 5 long */
    CHECK_EQ_INT(toid_detect(S("01ARZ3NDEKTS"), bin, &pos), TOID_ELENGTH);  /* a cut ULID */
    CHECK_EQ_INT(toid_detect(S("abc"), bin, &pos), TOID_ELENGTH);
    CHECK_EQ_INT(toid_detect(S("35s"), bin, &pos), TOID_ELENGTH);           /* nanoflake needs -f */
    CHECK_EQ_INT(toid_decode(TOID_NANOFLAKE, S("35s"), bin, &pos), 0);
    /* a 13-digit text: ulid-flake by rank, nanoflake reported */
    CHECK_EQ_INT(toid_detect_also(S("0000000000035"), bin, &also, &pos), TOID_ULID_FLAKE);
    CHECK_EQ_INT(also, 1u << TOID_NANOFLAKE);
    CHECK_EQ_INT(toid_detect_also(S("00cmxb6tak4sa"), bin, &also, &pos), TOID_NANOFLAKE);
    CHECK_EQ_INT(also, 1u << TOID_ULID_FLAKE);
    CHECK_EQ_INT(toid_detect_also(S("0esbdsx95goy0"), bin, &also, &pos), TOID_NANOFLAKE);
    CHECK_EQ_INT(also, 0);
    /* uid11 alone; its sibling uid11-seq is never reported */
    CHECK_EQ_INT(toid_detect_also(S("71wqSupQNF1"), bin, &also, &pos), TOID_UID11);
    CHECK_EQ_INT(also, 0);
    /* UUID forms */
    CHECK_EQ_INT(toid_detect(S("{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}"), bin, &pos), TOID_UUIDV7);
    CHECK_EQ_INT(toid_detect(S("urn:uuid:017f22e2-79b0-7cc3-98c4-dc0c0c07398f"), bin, &pos), TOID_UUIDV7);
    CHECK_EQ_INT(toid_detect(S("URN:UUID:017F22E2-79B0-7CC3-98C4-DC0C0C07398F"), bin, &pos), TOID_UUIDV7);
    CHECK_EQ_INT(toid_detect(S("550e8400-e29b-41d4-a716-446655440000"), bin, &pos), TOID_ECHAR);
    CHECK_EQ_INT(pos, 14);
    /* a 32-hex UUID of another version: scru160 reads it, and says so only
     * as scru160 (its version is no UUIDv7) */
    CHECK_EQ_INT(toid_detect_also(S("550e8400e29b41d4a716446655440000"), bin, &also, &pos), TOID_SCRU160);
    CHECK_EQ_INT(also, 0);
    CHECK_EQ_INT(toid_detectable(S("01ARZ3NDEKTSV4RRFFQ69G5FAV")), 1u << TOID_ULID);
    CHECK_EQ_INT(toid_detectable(S("5TK7MT834rx")), 1u << TOID_UID11);
    CHECK_EQ_INT(toid_detectable(NULL, 0), 0);
}

TEST_CASE(forms_and_words) {
    char out[200];
    uint8_t bin[TOID_BIN_MAX], ref[TOID_BIN_MAX];
    size_t pos = 0;
    CHECK_EQ_INT(toid_uuid_canonical(S("017F22E279B07CC398C4DC0C0C07398F"), out, 37, &pos), 36);
    CHECK_EQ_STR(out, "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    CHECK_EQ_INT(toid_uuid_canonical(S("{017f22e2-79b0-7cc3-98c4-dc0c0c07398f]"), out, 37, &pos), TOID_ECHAR);
    CHECK_EQ_INT(pos, 37);
    CHECK_EQ_INT(toid_uuid_canonical(S("017f22e2-79b0-7cc3-98c4-dc0c0c07398"), out, 37, &pos), TOID_ELENGTH);
    CHECK_EQ_INT(toid_uuid_canonical(S("017f22e2-79b0-7cc3-98c4-dc0c0c07398f"), out, 36, &pos), TOID_EBUFFER);
    CHECK_EQ_INT(toid_decode(TOID_UUIDV7, S("017f22e2-79b0-7cc3-98c4-dc0c0c07398f"), ref, NULL), 0);
    CHECK_EQ_INT(toid_decode_forms(TOID_UUIDV7, S("017f22e279b07cc398c4dc0c0c07398f"), bin, &pos), 0);
    CHECK(memcmp(bin, ref, 16) == 0);
    /* strict decode is unchanged (the vectors want a length error) */
    CHECK_EQ_INT(toid_decode(TOID_UUIDV7, S("017f22e279b07cc398c4dc0c0c07398f"), bin, &pos), TOID_ELENGTH);
    /* positions are offsets in the text given */
    CHECK_EQ_INT(toid_decode_forms(TOID_UUIDV7, S("017f22e279b04cc398c4dc0c0c07398f"), bin, &pos), TOID_ECHAR);
    CHECK_EQ_INT(pos, 12);
    CHECK_EQ_INT(toid_decode_forms(TOID_UUIDV7, S("{017f22e2-79b0-4cc3-98c4-dc0c0c07398f}"), bin, &pos), TOID_ECHAR);
    CHECK_EQ_INT(pos, 15);

    /* the causes in words */
    CHECK(toid_explain(TOID_UUIDV7, S("550e8400-e29b-41d4-a716-446655440000"), TOID_ECHAR, 14, out, sizeof out) > 0);
    CHECK_EQ_STR(out, "UUID version 4, toid reads version 7");
    CHECK(toid_explain(-1, S("550e8400e29b41d4a716446655440000x"), TOID_ELENGTH, 0, out, sizeof out) > 0);
    CHECK(strncmp(out, "no format writes 33 characters (", 32) == 0);
    CHECK(toid_explain(-1, S("017f22e2-79b0-7cc3-c8c4-dc0c0c07398f"), TOID_ECHAR, 19, out, sizeof out) > 0);
    CHECK(strncmp(out, "UUID variant is not RFC 9562's", 30) == 0);
    CHECK(toid_explain(TOID_ULID, S("01ARZ3NDEKTSV4RRFFQ69G5FAU"), TOID_ECHAR, 25, out, sizeof out) > 0);
    CHECK_EQ_STR(out, "bad character 'U' at position 25");
    CHECK(toid_explain(TOID_ULID, S("01ARZ3NDEKTSV4RRFFQ69G5F\xc3\x84"), TOID_ECHAR, 24, out, sizeof out) > 0);
    CHECK_EQ_STR(out, "bad byte 0xc3 at position 24");
    CHECK(toid_explain(TOID_ULID, S("81ARZ3NDEKTSV4RRFFQ69G5FAV"), TOID_EOVERFLOW, 0, out, sizeof out) > 0);
    CHECK_EQ_STR(out, "value too large for ulid (the largest is 7ZZZZZZZZZZZZZZZZZZZZZZZZZ)");
    CHECK(toid_explain(-1, S("01ARZ3NDEKTSV4RRFFQ69G5FAU"), TOID_ECHAR, 25, out, sizeof out) > 0);
    CHECK_EQ_STR(out, "bad character 'U' at position 25");  /* detection words it alike */
    CHECK(toid_explain(-1, S("hello"), TOID_EINVAL, 0, out, sizeof out) > 0);
    CHECK(strncmp(out, "a word, not an ID (", 19) == 0);
    CHECK(toid_explain(TOID_ULID, S("x"), TOID_ELENGTH, 0, out, sizeof out) > 0);
    CHECK_EQ_STR(out, "bad length: 1 character, expected 26");
    CHECK(toid_explain(TOID_SCRU160, S("abc"), TOID_ELENGTH, 0, out, sizeof out) > 0);
    CHECK_EQ_STR(out, "bad length: 3 characters, expected 32 or 40");
    CHECK(toid_explain(TOID_NANOFLAKE, S("\xc3\x84" "bc"), TOID_ELENGTH, 0, out, sizeof out) > 0);
    CHECK_EQ_STR(out, "bad length: 4 bytes, expected 1 to 13");
    CHECK_EQ_INT(toid_explain(TOID_ULID, S("x"), TOID_ELENGTH, 0, out, 4), TOID_EBUFFER);
    /* an overflow names the largest value, which decodes */
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        const char *big = "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz";
        size_t n = toid_format_get((toid_format)f)->text_len;
        uint8_t v[TOID_BIN_MAX];
        size_t at;
        if (toid_decode((toid_format)f, big, n, v, &at) != TOID_EOVERFLOW)
            continue;
        CHECK(toid_explain(f, big, n, TOID_EOVERFLOW, 0, out, sizeof out) > 0);
        const char *largest = strstr(out, "(the largest is ");
        CHECK_MSG(largest && toid_decode((toid_format)f, largest + 16, n, v, &at) == 0,
                  "%s: %s", toid_format_get((toid_format)f)->name, out);
    }

    CHECK_EQ_INT(toid_field_bits(TOID_NANOFLAKE, TOID_FIELD_GENERATOR), 10);
    CHECK_EQ_INT(toid_field_bits(TOID_NANOFLAKE, TOID_FIELD_SEQUENCE), 12);
    CHECK_EQ_INT(toid_field_bits(TOID_ULID_FLAKE_SCALABLE, TOID_FIELD_SID), 5);
    CHECK_EQ_INT(toid_field_bits(TOID_ULID, TOID_FIELD_GENERATOR), 0);
    CHECK_EQ_INT(toid_field_bits(TOID_FORMAT_COUNT, TOID_FIELD_GENERATOR), 0);
}

/* Random words, as people type them by mistake: never an ID without a
 * format named. Lower-case words of any length (the word rule), and mixed
 * words at every length no format writes. */
TEST_CASE(random_words) {
    uint64_t x = 0x9e3779b97f4a7c15u;
    uint8_t bin[TOID_BIN_MAX];
    size_t pos;
    long refused = 0;
    for (int i = 0; i < 20000; i++) {
        char w[48];
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t len = 1 + (size_t)(x % 45);
        int mixed = (x >> 8) & 1;
        for (size_t k = 0; k < len; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            char c = (char)('a' + x % 26);
            if (mixed && (x >> 20) % 3 == 0)
                c = (char)(c - 'a' + 'A');
            w[k] = c;
        }
        w[len] = '\0';
        int canonical = len == 11 || len == 13 || len == 26 || len == 32 || len == 36 ||
                        len == 38 || len == 40 || len == 45;
        if (mixed && canonical)
            continue;
        int rc = toid_detect(w, len, bin, &pos);
        CHECK_MSG(rc < 0, "the word '%s' was detected as %s", w, rc >= 0 ? toid_format_get((toid_format)rc)->name : "");
        refused += rc < 0;
    }
    CHECK(refused > 10000);
    static const char *const words[] = {"hello", "information", "world", "password", "toid",
                                        "administrator", "Hello World", "01ARZ3NDEKTS", "x",
                                        "deadbeef", "incomprehensibilities"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        CHECK_MSG(toid_detect(words[i], strlen(words[i]), bin, &pos) < 0, "'%s' detected", words[i]);
}

/* Undo the vectors' escapes; -1 for a text with escapes (skipped here). */
static long plain(const char *s) { return strchr(s, '\\') ? -1 : (long)strlen(s); }

static const char *vectors_dir;   /* the program's parameter, or NULL */

/* Every decodable vector text at a length its format writes is detected as
 * its format, or as a format that ranks before it with its own in "also"
 * (uid11-seq and ulid-flake-scalable: as their siblings); lower-case words
 * (the word rule) are refused, and read with the format named. */
TEST_CASE(vectors_detect) {
    const char *dir = vectors_dir;
    if (!dir) {
        check_skip("no VECTORS_DIR given");
        return;
    }
    DIR *d = opendir(dir);
    CHECK_MSG(d != NULL, "cannot open %s", dir);
    if (!d)
        return;
    struct dirent *e;
    long seen = 0;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".tsv") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *fp = fopen(path, "r");
        CHECK(fp != NULL);
        if (!fp)
            continue;
        char line[4096];
        while (fgets(line, sizeof line, fp)) {
            char *col[4] = {line, NULL, NULL, NULL};
            for (int c = 1; c < 4 && col[c - 1]; c++) {
                char *t = strchr(col[c - 1], '\t');
                if (t)
                    *t = '\0';
                col[c] = t ? t + 1 : NULL;
            }
            if (line[0] == '#' || !col[3] || strcmp(col[1], "decode") != 0 || strncmp(col[3], "ok", 2) != 0)
                continue;
            int f = toid_format_by_name(col[0], strlen(col[0]));
            long len = plain(col[2]);
            const toid_format_info *fi = toid_format_get((toid_format)f);
            if (f < 0 || len < 0 || ((size_t)len != fi->text_len && (size_t)len != fi->text_len_alt))
                continue;
            int want = f == TOID_UID11_SEQ ? TOID_UID11 : f == TOID_ULID_FLAKE_SCALABLE ? TOID_ULID_FLAKE : f;
            uint8_t bin[TOID_BIN_MAX], ref[TOID_BIN_MAX];
            uint32_t also = 0;
            size_t pos;
            int got = toid_detect_also(col[2], (size_t)len, bin, &also, &pos);
            int word = 1;
            for (long k = 0; k < len; k++)
                word &= col[2][k] >= 'a' && col[2][k] <= 'z';
            seen++;
            if (word) {
                CHECK_MSG(got == TOID_EINVAL, "%s: the word '%s' was detected", col[0], col[2]);
                continue;
            }
            CHECK_MSG(got == want || (got >= 0 && (also >> want & 1u)),
                      "%s '%s': detected as %d, also %#x", col[0], col[2], got, (unsigned)also);
            if (got == want) {
                toid_decode((toid_format)want, col[2], (size_t)len, ref, NULL);
                CHECK(memcmp(bin, ref, toid_bin_size((toid_format)want)) == 0);
            }
        }
        fclose(fp);
    }
    closedir(d);
    CHECK_MSG(seen > 100, "only %ld vector texts", seen);
}

typedef struct time_case {
    const char *text;
    int rc;
    int64_t first, last;
    unsigned notes;
} time_case;

TEST_CASE(times) {
    static const time_case cases[] = {
        {"2024", 0, 1704067200000, 1735689599999, 0},
        {"2024-01", 0, 1704067200000, 1706745599999, 0},
        {"2024-02", 0, 1706745600000, 1709251199999, 0},            /* a leap February */
        {"2024-12", 0, 1733011200000, 1735689599999, 0},
        {"2024-01-01", 0, 1704067200000, 1704153599999, 0},
        {"2024-01-01T10", 0, 1704103200000, 1704106799999, 0},
        {"2024-01-01T10Z", 0, 1704103200000, 1704106799999, 0},
        {"2024-01-01T10:30", 0, 1704105000000, 1704105059999, 0},
        {"2024-01-01T10:30:15", 0, 1704105015000, 1704105015999, 0},
        {"2024-01-01T10:30:15.5", 0, 1704105015500, 1704105015599, 0},
        {"2024-01-01T10:30:15.25", 0, 1704105015250, 1704105015259, 0},
        {"2024-01-01T10:30:15.123456Z", 0, 1704105015123, 1704105015123, 0},
        {"2024-01-01T10:30:15,5Z", 0, 1704105015500, 1704105015599, 0},
        {"2024-01-01T12+02", 0, 1704103200000, 1704106799999, 0},
        {"2024-01-01T12:00+0200", 0, 1704103200000, 1704103259999, 0},
        {"2024-01-01 10:00:00", 0, 1704103200000, 1704103200999, 0},   /* SQLite's text */
        {"@1704067200", 0, 1704067200000, 1704067200999, 0},
        {"@1704067200.25", 0, 1704067200250, 1704067200259, 0},
        {"@0", 0, 0, 999, 0},
        {"1704067200s", 0, 1704067200000, 1704067200999, 0},
        {"1704067200000ms", 0, 1704067200000, 1704067200000, 0},
        {"1704067200000123us", 0, 1704067200000, 1704067200000, 0},
        {"1704067200000", 0, 1704067200000, 1704067200000, TOID_TIME_BARE_INT},
        {"1704067200", 0, 1704067200, 1704067200, TOID_TIME_BARE_INT | TOID_TIME_LOOKS_SECONDS},
        {"12345", 0, 12345, 12345, TOID_TIME_BARE_INT},
        {"-5", 0, -5, -5, TOID_TIME_BARE_INT},
        {"10889-08-02T05:31:50.655Z", 0, (INT64_C(1) << 48) - 1, (INT64_C(1) << 48) - 1, 0},
        {"2024-13", TOID_EINVAL, 0, 0, 0},
        {"2023-02-29", TOID_EINVAL, 0, 0, 0},
        {"2024-01-01T24", TOID_EINVAL, 0, 0, 0},
        {"2024T10", TOID_EINVAL, 0, 0, 0},
        {"2024-01T10", TOID_EINVAL, 0, 0, 0},
        {"2024-01-01T10:3", TOID_EINVAL, 0, 0, 0},
        {"2024-01-01Z", TOID_EINVAL, 0, 0, 0},
        {"@", TOID_EINVAL, 0, 0, 0},
        {"@12x", TOID_EINVAL, 0, 0, 0},
        {"12h", TOID_EINVAL, 0, 0, 0},
        {"ms", TOID_EINVAL, 0, 0, 0},
        {"yesterday", TOID_EINVAL, 0, 0, 0},   /* (now and now-1h: relative, test_api) */
        {"", TOID_EINVAL, 0, 0, 0},
        {" 2024", TOID_EINVAL, 0, 0, 0},
        {"99999999999999999999", TOID_EINVAL, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const time_case *c = &cases[i];
        int64_t a = -1, b = -1;
        unsigned notes = 99;
        int rc = toid_parse_time_span(c->text, strlen(c->text), &a, &b, &notes);
        CHECK_MSG(rc == c->rc, "'%s': rc %d, want %d", c->text, rc, c->rc);
        if (rc == 0 && c->rc == 0)
            CHECK_MSG(a == c->first && b == c->last && notes == c->notes,
                      "'%s': [%lld, %lld] notes %u, want [%lld, %lld] notes %u", c->text, (long long)a,
                      (long long)b, notes, (long long)c->first, (long long)c->last, c->notes);
        int64_t start = -1;
        CHECK_EQ_INT(toid_parse_time(c->text, strlen(c->text), &start), c->rc);
        if (c->rc == 0)
            CHECK_EQ_INT(start, c->first);
    }
}

static int setup(int nparam, char **param) {
    if (nparam > 1) {
        fprintf(stderr, "usage: test_people [--list] [CASE...] [VECTORS_DIR]\n");
        return 2;
    }
    vectors_dir = nparam ? param[0] : NULL;
    return 0;
}

int main(int argc, char **argv) {
    return check_main(argc, argv, setup, NULL);
}
