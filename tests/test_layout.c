/* test_layout.c — toid_layout and toid_layout_value: every format's fields
 * cover its bits once and in order; the layouts the specs draw; values of
 * known IDs (the shared vectors); and the character spans checked against
 * the encoder: flipping a field's bits changes the text inside its span
 * only. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "toid.h"

/* "name offset+width [chars start+len]" of every field, space-separated. */
static void summary(toid_format f, char *out, size_t cap) {
    toid_layout_field l[TOID_LAYOUT_MAX];
    int n = toid_layout(f, l);
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < n && len < cap; i++) {
        int w = l[i].char_start >= 0
                    ? snprintf(out + len, cap - len, "%s%s %u+%u c%d+%u", i ? " " : "", l[i].name,
                               l[i].bit_offset, l[i].bit_width, l[i].char_start, l[i].char_len)
                    : snprintf(out + len, cap - len, "%s%s %u+%u", i ? " " : "", l[i].name,
                               l[i].bit_offset, l[i].bit_width);
        len += (size_t)w;
    }
}

TEST_CASE(shapes) {
    char s[512];
    summary(TOID_ULID, s, sizeof s);
    CHECK_EQ_STR(s, "unix_ms 0+48 c0+10 random 48+80 c10+16");
    summary(TOID_ULID_FLAKE, s, sizeof s);
    CHECK_EQ_STR(s, "zero 0+1 ts 1+43 c0+9 random 44+20 c9+4");
    summary(TOID_ULID_FLAKE_SCALABLE, s, sizeof s);
    CHECK_EQ_STR(s, "zero 0+1 ts 1+43 c0+9 random 44+15 c9+3 sid 59+5 c12+1");
    summary(TOID_SCRU160, s, sizeof s);
    CHECK_EQ_STR(s, "unix_ms 0+48 counter 48+16 random16 64+16 random80 80+80 c16+16");
    summary(TOID_NANOFLAKE, s, sizeof s);
    CHECK_EQ_STR(s, "zero 0+1 ts 1+41 generator 42+10 sequence 52+12");
    summary(TOID_UID11, s, sizeof s);
    CHECK_EQ_STR(s, "ts 0+42 random 42+22");
    summary(TOID_UID11_SEQ, s, sizeof s);
    CHECK_EQ_STR(s, "ts 0+42 sequence 42+12 random 54+10");
    summary(TOID_UUIDV7, s, sizeof s);
    CHECK_EQ_STR(s, "unix_ms 0+48 c0+13 ver 48+4 c14+1 rand_a 52+12 c15+3 var 64+2 rand_b 66+62 c19+17");

    toid_layout_field l[TOID_LAYOUT_MAX];
    CHECK_EQ_INT(toid_layout(TOID_FORMAT_COUNT, l), TOID_EINVAL);
    CHECK_EQ_INT(toid_layout(TOID_ULID, NULL), TOID_EINVAL);
    int n = toid_layout(TOID_UUIDV7, l);
    CHECK_EQ_INT(n, 5);
    CHECK_EQ_INT(l[1].kind, TOID_LAYOUT_FIXED);
    CHECK_EQ_INT(l[1].fixed_value, 7);
    CHECK_EQ_INT(l[3].kind, TOID_LAYOUT_FIXED);
    CHECK_EQ_INT(l[3].fixed_value, 2);
    CHECK_EQ_INT(l[2].kind, TOID_LAYOUT_OTHER);
    CHECK_EQ_INT(l[0].kind, TOID_LAYOUT_TIME);
    CHECK_EQ_INT(l[0].field_id, TOID_FIELD_UNIX_MS);
    n = toid_layout(TOID_NANOFLAKE, l);
    CHECK_EQ_INT(l[0].kind, TOID_LAYOUT_FIXED);
    CHECK_EQ_INT(l[1].field_id, TOID_FIELD_TS);
    CHECK_EQ_INT(l[2].field_id, TOID_FIELD_GENERATOR);
}

/* Every bit once, in order; names of described fields are field names. */
TEST_CASE(cover) {
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        toid_layout_field l[TOID_LAYOUT_MAX];
        int n = toid_layout((toid_format)f, l);
        CHECK(n > 0 && n <= TOID_LAYOUT_MAX);
        unsigned next = 0;
        for (int i = 0; i < n; i++) {
            CHECK_MSG(l[i].bit_offset == next, "%s field %d at %u, expected %u",
                      toid_format_get((toid_format)f)->name, i, l[i].bit_offset, next);
            next = l[i].bit_offset + l[i].bit_width;
            if (l[i].field_id >= 0)
                CHECK_EQ_STR(l[i].name, toid_field_name((toid_field_id)l[i].field_id));
        }
        CHECK_EQ_INT(next, 8 * toid_bin_size((toid_format)f));
    }
}

static void value_is(toid_format f, const char *id, const char *name, const char *want) {
    uint8_t bin[TOID_BIN_MAX];
    toid_layout_field l[TOID_LAYOUT_MAX];
    char v[48];
    CHECK_EQ_INT(toid_decode(f, id, strlen(id), bin, NULL), 0);
    int n = toid_layout(f, l), i = 0;
    while (i < n && strcmp(l[i].name, name) != 0)
        i++;
    CHECK_MSG(i < n, "%s has no %s", id, name);
    if (i == n)
        return;
    int len = toid_layout_value(f, bin, TOID_EPOCH_DEFAULT, &l[i], v, sizeof v);
    CHECK_EQ_INT(len, (long long)strlen(want));
    if (len >= 0)
        CHECK_EQ_STR(v, want);
}

TEST_CASE(values) {
    value_is(TOID_ULID, "01ARZ3NDEKTSV4RRFFQ69G5FAV", "unix_ms", "1469922850259");
    value_is(TOID_ULID, "01ARZ3NDEKTSV4RRFFQ69G5FAV", "random", "d6764c61efb99302bd5b");
    value_is(TOID_ULID_FLAKE_SCALABLE, "00CMXB6TAK4SA", "ts", "13586766666");
    value_is(TOID_ULID_FLAKE_SCALABLE, "00CMXB6TAK4SA", "random", "19609");
    value_is(TOID_ULID_FLAKE_SCALABLE, "00CMXB6TAK4SA", "sid", "10");
    value_is(TOID_ULID_FLAKE_SCALABLE, "00CMXB6TAK4SA", "zero", "0");
    value_is(TOID_UUIDV7, "017f22e2-79b0-7cc3-98c4-dc0c0c07398f", "unix_ms", "1645557742000");
    value_is(TOID_UUIDV7, "017f22e2-79b0-7cc3-98c4-dc0c0c07398f", "ver", "7");
    value_is(TOID_UUIDV7, "017f22e2-79b0-7cc3-98c4-dc0c0c07398f", "rand_a", "3267");   /* 0xcc3 */
    value_is(TOID_UUIDV7, "017f22e2-79b0-7cc3-98c4-dc0c0c07398f", "var", "2");
    /* 0x18c4dc0c0c07398f */
    value_is(TOID_UUIDV7, "017f22e2-79b0-7cc3-98c4-dc0c0c07398f", "rand_b", "1784793296645077391");

    uint8_t bin[TOID_BIN_MAX] = {0};
    toid_layout_field l[TOID_LAYOUT_MAX];
    char v[48];
    toid_layout(TOID_ULID, l);
    CHECK_EQ_INT(toid_layout_value(TOID_ULID, bin, TOID_EPOCH_DEFAULT, &l[0], v, 1), TOID_EBUFFER);
    CHECK_EQ_INT(toid_layout_value(TOID_ULID, bin, TOID_EPOCH_DEFAULT, &l[0], v, 2), 1);
    toid_layout_field bad = l[1];
    bad.bit_width = 100;
    CHECK_EQ_INT(toid_layout_value(TOID_ULID, bin, TOID_EPOCH_DEFAULT, &bad, v, sizeof v), TOID_EINVAL);
    CHECK_EQ_INT(toid_layout_value(TOID_ULID, bin, TOID_EPOCH_DEFAULT, NULL, v, sizeof v), TOID_EINVAL);
}

/* Sets or clears every bit of [off, off + w) (from the most significant). */
static void fill(uint8_t *bin, unsigned off, unsigned w, int one) {
    for (unsigned b = off; b < off + w; b++) {
        uint8_t m = (uint8_t)(0x80u >> (b % 8));
        bin[b / 8] = one ? (uint8_t)(bin[b / 8] | m) : (uint8_t)(bin[b / 8] & ~m);
    }
}

/* A field's characters are exactly the ones its bits change. */
TEST_CASE(char_spans) {
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        toid_layout_field l[TOID_LAYOUT_MAX];
        int n = toid_layout((toid_format)f, l);
        size_t size = toid_bin_size((toid_format)f);
        for (int i = 0; i < n; i++) {
            if (l[i].char_start < 0 || l[i].kind == TOID_LAYOUT_FIXED)
                continue;
            for (int pattern = 0; pattern < 2; pattern++) {
                uint8_t a[TOID_BIN_MAX], b[TOID_BIN_MAX], va[TOID_BIN_MAX], vb[TOID_BIN_MAX];
                memset(a, pattern ? 0xA5 : 0, size);
                for (int j = 0; j < n; j++)          /* fixed bits as the format wants */
                    if (l[j].kind == TOID_LAYOUT_FIXED)
                        for (unsigned k = 0; k < l[j].bit_width; k++)
                            fill(a, l[j].bit_offset + k, 1,
                                 (int)(l[j].fixed_value >> (l[j].bit_width - 1 - k) & 1u));
                memcpy(b, a, size);
                fill(a, l[i].bit_offset, l[i].bit_width, 0);
                fill(b, l[i].bit_offset, l[i].bit_width, 1);
                char ta[TOID_TEXT_MAX], tb[TOID_TEXT_MAX];
                CHECK_EQ_INT(toid_from_bytes((toid_format)f, a, size, va), 0);
                CHECK_EQ_INT(toid_from_bytes((toid_format)f, b, size, vb), 0);
                int la = toid_encode((toid_format)f, va, ta, sizeof ta);
                toid_encode((toid_format)f, vb, tb, sizeof tb);
                unsigned lo = (unsigned)l[i].char_start, hi = lo + l[i].char_len;
                int first = -1, last = -1;
                for (int c = 0; c < la; c++)
                    if (ta[c] != tb[c]) {
                        if (first < 0)
                            first = c;
                        last = c;
                    }
                CHECK_MSG(first >= (int)lo && last < (int)hi && first >= 0,
                          "%s %s: text changed in [%d, %d], span [%u, %u)",
                          toid_format_get((toid_format)f)->name, l[i].name, first, last, lo, hi);
                /* and the span's ends do change (the span is not too wide) */
                CHECK_MSG(first == (int)lo || ta[lo] == '-', "%s %s starts at %d, span at %u",
                          toid_format_get((toid_format)f)->name, l[i].name, first, lo);
                CHECK_MSG(last == (int)hi - 1, "%s %s ends at %d, span at %u",
                          toid_format_get((toid_format)f)->name, l[i].name, last, hi - 1);
            }
        }
    }
}

int main(int argc, char **argv) {
    return check_main(argc, argv, NULL, NULL);
}
