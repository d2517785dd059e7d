/* test_descriptor.c — the facts toid_format_info gives front ends agree
 * with what the library does (node ranges with toid_gen_init, random order
 * with the generator, detection ranks with toid_detect), and detection with
 * flags (lenient, all) as the CLI's --lenient and --all use it. */
#include "check.h"
#include "toid.h"

#include <string.h>

#define S(lit) lit, sizeof(lit) - 1

static toid_gen_uid11 probe_room;   /* room for any format, uid11 too: not on the stack */
static toid_gen *const probe_gen = &probe_room.g;

/* The largest node toid_gen_init takes for f, found by trying (0: none). */
static uint32_t probed_node_max(toid_format f) {
    uint32_t max = 0;
    for (unsigned bit = 0; bit < 32; bit++) {
        toid_gen_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.format = f;
        cfg.node = 1u << bit;
        cfg.flags = TOID_GEN_UNLOCKED;
        if (toid_gen_init(probe_gen, &cfg) < 0)
            break;
        max = (uint32_t)((2ull << bit) - 1);
    }
    return max;
}

TEST_CASE(nodes) {
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) if (GENERATES(f)) {
        const toid_format_info *fi = toid_format_get((toid_format)f);
        CHECK_EQ_INT(fi->node_max, probed_node_max((toid_format)f));
        CHECK_EQ_INT(fi->node_max, fi->node_bits ? (1ull << fi->node_bits) - 1 : 0);
        /* a node written by the caller sits in a field of the layout's
         * lowest bits, and only where the generator takes none */
        if (fi->caller_node_bits) {
            toid_layout_field lay[TOID_LAYOUT_MAX];
            int n = toid_layout((toid_format)f, lay);
            CHECK(n > 0);
            const toid_layout_field *last = &lay[n - 1];
            CHECK_EQ_INT(last->bit_offset + last->bit_width, fi->bin_size * 8);
            CHECK(last->bit_width >= fi->caller_node_bits);
            CHECK_EQ_INT(last->kind, TOID_LAYOUT_FIELD);
            CHECK_EQ_INT(fi->node_bits, 0);
        }
    }
    CHECK_EQ_INT(toid_format_get(TOID_NANOFLAKE)->node_max, 1023);
    CHECK_EQ_INT(toid_format_get(TOID_ULID_FLAKE_SCALABLE)->node_max, 31);
    CHECK_EQ_INT(toid_format_get(TOID_UID11_SEQ)->caller_node_bits, 10);
    CHECK_EQ_INT(toid_format_get(TOID_ULID)->node_max, 0);
}

static int entropy(void *ctx, uint8_t *buf, size_t n) {
    (void)ctx;
    return toid_random_bytes(buf, n);
}

/* random_order: a format that says 0 issues increasing IDs within a ms. */
TEST_CASE(order) {
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) if (GENERATES(f)) {
        const toid_format_info *fi = toid_format_get((toid_format)f);
        toid_gen_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.format = (toid_format)f;
        cfg.flags = TOID_GEN_UNLOCKED;
        CHECK_EQ_INT(toid_gen_init_size(probe_gen, sizeof probe_room, &cfg), 0);
        uint8_t a[TOID_BIN_MAX], b[TOID_BIN_MAX];
        int64_t ms = fi->default_epoch_ms + 1000;
        int decreasing = 0;
        CHECK_EQ_INT(toid_gen_next_at(probe_gen, ms, 0, entropy, NULL, a, NULL), 0);
        for (int i = 0; i < 200; i++) {
            if (toid_gen_next_at(probe_gen, ms, 0, entropy, NULL, b, NULL) < 0)
                break;
            decreasing |= memcmp(b, a, fi->bin_size) < 0;
            memcpy(a, b, fi->bin_size);
        }
        if (!fi->random_order)
            CHECK_MSG(!decreasing, "%s: decreasing IDs within a ms", fi->name);
    }
    CHECK_EQ_INT(toid_format_get(TOID_UID11)->random_order, 1);
}

/* Ranks are 1..COUNT, each once; the detected formats are the ones
 * toid_detect ever returns. */
TEST_CASE(ranks) {
    unsigned seen = 0;
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        const toid_format_info *fi = toid_format_get((toid_format)f);
        unsigned r = fi->detect_rank;
        if (fi->variant_of) {           /* a read-only variant: no rank, never detected */
            CHECK_MSG(r == 0 && !fi->detected && !fi->generates, "%s: a variant with a rank", fi->name);
            CHECK(toid_format_by_name(fi->variant_of, strlen(fi->variant_of)) >= 0);
            continue;
        }
        CHECK_MSG(fi->generates, "%s does not generate", fi->name);
        CHECK(r >= 1 && r <= TOID_FORMAT_COUNT);
        if (r >= 1 && r <= TOID_FORMAT_COUNT) {
            CHECK_MSG(!(seen >> r & 1u), "rank %u twice", r);
            seen |= 1u << r;
        }
    }
    CHECK(!toid_format_get(TOID_UID11_SEQ)->detected);
    CHECK(!toid_format_get(TOID_ULID_FLAKE_SCALABLE)->detected);
    CHECK(toid_format_get(TOID_NANOFLAKE)->text_lower);
    CHECK(!toid_format_get(TOID_ULID_FLAKE)->text_lower);
    uint8_t bin[TOID_BIN_MAX];
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) if (GENERATES(f)) {
        const toid_format_info *fi = toid_format_get((toid_format)f);
        char text[TOID_TEXT_MAX];
        CHECK_EQ_INT(toid_new_text((toid_format)f, text, sizeof text) > 0, 1);
        int got = toid_detect(text, strlen(text), bin, NULL);
        if (fi->detected)
            CHECK_MSG(got == f || toid_format_get((toid_format)got)->detect_rank < fi->detect_rank ||
                          toid_format_get((toid_format)got)->text_lower,
                      "%s detected as %d", fi->name, got);
        else
            CHECK_MSG(got != f, "%s is detected", fi->name);
    }
}

TEST_CASE(flags) {
    uint8_t bin[TOID_BIN_MAX], ref[TOID_BIN_MAX];
    uint32_t also = 0;
    size_t pos = 0;
    /* 0: as toid_detect_also */
    CHECK_EQ_INT(toid_detect_flags(S("00cmxb6tak4sa"), 0, bin, &also, &pos), TOID_NANOFLAKE);
    CHECK_EQ_INT(also, 1u << TOID_ULID_FLAKE);
    /* lenient: hyphens, I/L/O in a ULID */
    CHECK_EQ_INT(toid_decode(TOID_ULID, S("01ARZ3NDEKTSV4RRFFQ69G5FAV"), ref, NULL), 0);
    CHECK_EQ_INT(toid_detect_flags(S("01ARZ3NDEKTSV4RRFFQ69G5FAV"), TOID_DETECT_LENIENT, bin, &also, &pos),
                 TOID_ULID);
    CHECK_EQ_INT(toid_detect(S("OlARZ3NDEKTSV4RRFFQ69G5FAV"), bin, &pos), TOID_ECHAR);
    CHECK_EQ_INT(toid_detect_flags(S("OlARZ3NDEKTSV4RRFFQ69G5FAV"), TOID_DETECT_LENIENT, bin, &also, &pos),
                 TOID_ULID);
    CHECK(memcmp(bin, ref, 16) == 0);
    CHECK_EQ_INT(toid_detect_flags(S("01ARZ3NDEK-TSV4RRFFQ69G5FAV"), TOID_DETECT_LENIENT, bin, NULL, &pos),
                 TOID_ULID);
    /* a bad character after a hyphen: its offset in the text as given */
    CHECK_EQ_INT(toid_detect_flags(S("01ARZ-3NDEKTSV4RRFFQ69G5FAU!"), TOID_DETECT_LENIENT, bin, NULL, &pos),
                 TOID_ELENGTH);
    CHECK_EQ_INT(toid_detect_flags(S("01ARZ-3NDEKTSV4RRFFQ69G5FA!"), TOID_DETECT_LENIENT, bin, NULL, &pos),
                 TOID_ECHAR);
    CHECK_EQ_INT(pos, 26);
    CHECK_EQ_INT(toid_decode_flags(TOID_ULID, S("01ARZ-3NDEKTSV4RRFFQ69G5FA!"), TOID_DETECT_LENIENT, bin,
                                   &pos), TOID_ECHAR);
    CHECK_EQ_INT(pos, 26);
    CHECK_EQ_INT(toid_decode_flags(TOID_ULID, S("01ARZ-3NDEKTSV4RRFFQ69G5FAV"), 0, bin, &pos), TOID_ELENGTH);
    /* all: every reading, the undetected formats too */
    CHECK_EQ_INT(toid_detect_flags(S("5TK7MT834rx"), TOID_DETECT_ALL, bin, &also, &pos), TOID_UID11);
    CHECK_EQ_INT(also, (1u << TOID_UID11_SEQ) | (1u << TOID_NANOFLAKE));  /* 11 base36 digits too */
    CHECK_EQ_INT(toid_detect_flags(S("35s"), TOID_DETECT_ALL, bin, &also, &pos), TOID_NANOFLAKE);
    CHECK_EQ_INT(also, 0);
    CHECK_EQ_INT(toid_detect_flags(S("35s"), 0, bin, &also, &pos), TOID_ELENGTH);
    CHECK_EQ_INT(toid_detect_flags(S("hello!"), TOID_DETECT_ALL, bin, &also, &pos), TOID_ELENGTH);
    CHECK_EQ_INT(toid_detect_flags(NULL, 1, 0, bin, &also, &pos), TOID_EINVAL);
}

/* The read-only variants: IDs the reference libraries made (nanoflakes-java
 * @1130a08e with epoch 1704067200000; gurki/uid11 python @d93f9151), read
 * with the variant named at the time the library itself reports, read as
 * the spec's format four times off, never detected (not even with
 * TOID_DETECT_ALL), never generated. */
TEST_CASE(ref_variants) {
    static const struct {
        const char *text;
        int64_t unix_ms;        /* the library's own reading */
        int64_t spec_ms;        /* read as the spec's layout */
    } ref24[] = {
        {"bp2tj56bwzr4", 1795830287246, 2071119548984},
        {"bp2tj77dfksh", 1795830287509, 2071119550036},
    }, ref44[] = {
        {"2A2p9f3PgfZ", 1795830297491, 1439714977706},
        {"2A2p9Ng6jRH", 1795830287246, 1439714975144},
    };
    int r24 = toid_format_by_name(S("nanoflake-ref24")), r44 = toid_format_by_name(S("uid11-ref44"));
    CHECK(r24 >= 0 && r44 >= 0);
    if (r24 < 0 || r44 < 0)
        return;
    uint8_t bin[TOID_BIN_MAX];
    uint32_t also;
    size_t pos;
    int64_t ms;
    for (int v = 0; v < 2; v++) {
        toid_format f = (toid_format)(v ? r44 : r24);
        const toid_format_info *fi = toid_format_get(f);
        toid_format base = (toid_format)toid_format_by_name(fi->variant_of, strlen(fi->variant_of));
        CHECK_EQ_INT(base, v ? TOID_UID11 : TOID_NANOFLAKE);
        for (int i = 0; i < 2; i++) {
            const char *t = v ? ref44[i].text : ref24[i].text;
            CHECK_EQ_INT(toid_decode(f, t, strlen(t), bin, NULL), 0);
            CHECK_EQ_INT(toid_time_of(f, bin, TOID_EPOCH_DEFAULT, &ms), 0);
            CHECK_EQ_INT(ms, v ? ref44[i].unix_ms : ref24[i].unix_ms);
            CHECK_EQ_INT(toid_decode(base, t, strlen(t), bin, NULL), 0);
            CHECK_EQ_INT(toid_time_of(base, bin, TOID_EPOCH_DEFAULT, &ms), 0);
            CHECK_EQ_INT(ms, v ? ref44[i].spec_ms : ref24[i].spec_ms);
            /* never a variant from detection */
            int got = toid_detect_flags(t, strlen(t), TOID_DETECT_ALL, bin, &also, &pos);
            CHECK_MSG(got != (int)f && !(also >> f & 1u), "%s detected", t);
            got = toid_detect_also(t, strlen(t), bin, &also, &pos);
            CHECK_MSG(got != (int)f && !(also >> f & 1u), "%s detected", t);
            CHECK(toid_accepting(t, strlen(t)) >> f & 1u);      /* its decoder does read it */
        }
        /* never generated: every entry refuses, saying why */
        toid_gen_config c;
        char why[256];
        CHECK_EQ_INT(toid_gen_config_default(f, &c), 0);
        CHECK_EQ_INT(toid_gen_config_explain(&c, TOID_FOR_GEN_INIT, why, sizeof why), TOID_EINVAL);
        CHECK_MSG(strstr(why, "read only") != NULL, "%s", why);
        CHECK_EQ_INT(toid_gen_init(probe_gen, &c), TOID_EINVAL);
        CHECK_EQ_INT(toid_configure(&c), TOID_EINVAL);
        char text[TOID_TEXT_MAX];
        CHECK_EQ_INT(toid_new(f, bin), TOID_EINVAL);
        CHECK_EQ_INT(toid_new_text(f, text, sizeof text), TOID_EINVAL);
        size_t made = 1;
        CHECK_EQ_INT(toid_new_batch(f, bin, 1, &made), TOID_EINVAL);
        CHECK(!fi->generates && fi->detect_rank == 0 && !fi->detected);
    }
}

int main(int argc, char **argv) {
    return check_main(argc, argv, NULL, NULL);
}
