/* test_api.c — the format layer's API beyond the vectors: the registry,
 * errors, positions, buffers, epochs, time text, bounds, ULID<->UUID,
 * normalize, prefix ranges, describe and JSON. */
#include "check.h"
#include "toid.h"

#define S(lit) lit, sizeof(lit) - 1

TEST_CASE(registry) {
    CHECK_EQ_INT(toid_format_by_name(S("ulid")), TOID_ULID);
    CHECK_EQ_INT(toid_format_by_name(S("uid11-seq")), TOID_UID11_SEQ);
    CHECK_EQ_INT(toid_format_by_name(S("ULID")), TOID_ULID);   /* any case (test_people) */
    CHECK_EQ_INT(toid_format_by_name(S("uli")), TOID_EINVAL);
    CHECK(toid_format_get(TOID_FORMAT_COUNT) == NULL);
    CHECK(toid_format_get((toid_format)-1) == NULL);
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        const toid_format_info *i = toid_format_get((toid_format)f);
        CHECK_EQ_INT(i->format, f);
        CHECK_EQ_INT(toid_format_by_name(i->name, strlen(i->name)), f);
        CHECK(i->bin_size <= TOID_BIN_MAX && i->text_len < TOID_TEXT_MAX);
        CHECK_EQ_INT(toid_bin_size((toid_format)f), i->bin_size);
    }
    CHECK_EQ_INT(toid_format_get(TOID_SCRU160)->text_len_alt, 40);
    CHECK_EQ_INT(toid_format_get(TOID_NANOFLAKE)->text_len_min, 1);
    CHECK_EQ_INT(toid_format_get(TOID_ULID_FLAKE)->default_epoch_ms, 1704067200000);
    CHECK_EQ_INT(toid_format_get(TOID_UID11)->default_epoch_ms, 1321009871111);
    /* detection */
    CHECK_EQ_INT(toid_accepting(S("01ARZ3NDEKTSV4RRFFQ69G5FAV")), 1u << TOID_ULID);
    CHECK_EQ_INT(toid_accepting(S("017f22e2-79b0-7cc3-98c4-dc0c0c07398f")), 1u << TOID_UUIDV7);
    CHECK_EQ_INT(toid_accepting(S("0000000Z8ZZZG")),
                 (1u << TOID_ULID_FLAKE) | (1u << TOID_ULID_FLAKE_SCALABLE) | (1u << TOID_NANOFLAKE) |
                     (1u << TOID_NANOFLAKE_REF24));   /* every decoder that takes it, the variants' too */
    /* 11 Base58 symbols that are also 11 base36 digits */
    CHECK_EQ_INT(toid_accepting(S("5TK7MT834rx")), (1u << TOID_UID11) | (1u << TOID_UID11_SEQ) | (1u << TOID_NANOFLAKE) |
                                                       (1u << TOID_NANOFLAKE_REF24) | (1u << TOID_UID11_REF44));
    CHECK_EQ_INT(toid_accepting(S("5TK7MT834rl")), (1u << TOID_NANOFLAKE) | (1u << TOID_NANOFLAKE_REF24));
    CHECK_EQ_INT(toid_accepting(S("!")), 0);
    /* detection priority */
    uint8_t bin[TOID_BIN_MAX];
    size_t pos = 99;
    CHECK_EQ_INT(toid_detect(S("017f22e2-79b0-7cc3-98c4-dc0c0c07398f"), bin, &pos), TOID_UUIDV7);
    CHECK_EQ_INT(toid_detect(S("01ARZ3NDEKTSV4RRFFQ69G5FAV"), bin, &pos), TOID_ULID);
    CHECK_EQ_INT(toid_detect(S("05U0GF0J0SP1ADJPT0U4VHIMCJJAIP51"), bin, &pos), TOID_SCRU160);
    CHECK_EQ_INT(toid_detect(S("5TK7MT834rx"), bin, &pos), TOID_UID11);       /* also 11-digit base36 */
    CHECK_EQ_INT(toid_detect(S("0000000Z8ZZZG"), bin, &pos), TOID_ULID_FLAKE);
    CHECK_EQ_INT(toid_detect(S("0000001xd6ku8"), bin, &pos), TOID_NANOFLAKE);  /* lower case */
    CHECK_EQ_INT(toid_detect(S("0000001ABCDEF"), bin, &pos), TOID_ULID_FLAKE);  /* upper case */
    CHECK_EQ_INT(toid_detect(S("0000001abcdef"), bin, &pos), TOID_NANOFLAKE);
    CHECK_EQ_INT(toid_detect(S("0000001XD6KU8"), bin, &pos), TOID_NANOFLAKE);   /* U: not Crockford */
    CHECK_EQ_INT(toid_detect(S("0000000000000"), bin, &pos), TOID_ULID_FLAKE); /* no letters */
    CHECK_EQ_INT(toid_detect(S("1y2p0ij32e8e8"), bin, &pos), TOID_EOVERFLOW);   /* lower case: nanoflake's error */
    CHECK_EQ_INT(toid_detect(S("1Y2P0IJ32E8E8"), bin, &pos), TOID_ECHAR);       /* upper case: ulid-flake's (I) */
    CHECK_EQ_INT(pos, 5);
    CHECK_EQ_INT(toid_detect(S("01ARZ3NDEKTSV4RRFFQ69G5FAU"), bin, &pos), TOID_ECHAR);
    CHECK_EQ_INT(pos, 25);
    CHECK_EQ_INT(toid_detect(S("0123456789abcdefghijklmnopqrstuvwxyz"), bin, &pos), TOID_ECHAR);  /* uuidv7's length */
    CHECK_EQ_INT(toid_detect(S("0123456789abcdefghijklmnopqrstuvwxyz0123456789"), bin, &pos), TOID_ELENGTH);
    CHECK_EQ_INT(toid_detect(S("abc"), bin, &pos), TOID_ELENGTH);   /* no format writes 3 symbols */
    CHECK_EQ_INT(toid_detect(S("A1c"), bin, &pos), TOID_ELENGTH);
    CHECK_EQ_INT(toid_detect(S("5tk7mt834rx"), bin, &pos), TOID_UID11);
    CHECK_EQ_INT(toid_accepting(NULL, 0), 0);
}

TEST_CASE(errors) {
    CHECK_EQ_STR(toid_err_name(TOID_ECHAR), "char");
    CHECK_EQ_STR(toid_err_name(TOID_ELENGTH), "length");
    CHECK_EQ_STR(toid_err_name(TOID_EOVERFLOW), "overflow");
    CHECK_EQ_STR(toid_err_name(TOID_ERANGE), "range");
    CHECK_EQ_STR(toid_err_name(TOID_EFORKED), "forked");
    CHECK_EQ_STR(toid_err_name(0), "unknown");
    CHECK_EQ_STR(toid_strerror(TOID_ECHAR), "bad character");
    CHECK_EQ_STR(toid_strerror(-999), "unknown error");
    /* every code has its own message and name */
    for (int a = -1; a >= TOID_EFORKED; a--)
        for (int b = a - 1; b >= TOID_EFORKED; b--) {
            CHECK(strcmp(toid_strerror(a), toid_strerror(b)) != 0);
            CHECK(strcmp(toid_err_name(a), toid_err_name(b)) != 0);
        }
}

TEST_CASE(positions_and_buffers) {
    uint8_t bin[TOID_BIN_MAX];
    size_t pos = 99;
    CHECK_EQ_INT(toid_decode(TOID_ULID, S("01ARZ3NDEKTSV4RRFFQ69G5FAU"), bin, &pos), TOID_ECHAR);
    CHECK_EQ_INT(pos, 25);
    CHECK_EQ_INT(toid_decode(TOID_ULID, S("01ARZ3NDEK\0SV4RRFFQ69G5FAV"), bin, &pos), TOID_ECHAR);
    CHECK_EQ_INT(pos, 10);
    CHECK_EQ_INT(toid_decode(TOID_UUIDV7, S("017f22e2-79b0-4cc3-98c4-dc0c0c07398f"), bin, &pos), TOID_ECHAR);
    CHECK_EQ_INT(pos, 14);   /* the version digit */
    CHECK_EQ_INT(toid_decode(TOID_UUIDV7, S("017f22e2-79b0-7cc3-c8c4-dc0c0c07398f"), bin, &pos), TOID_ECHAR);
    CHECK_EQ_INT(pos, 19);   /* the variant digit */
    CHECK_EQ_INT(toid_decode(TOID_UUIDV7, S("017f22e2+79b0-7cc3-98c4-dc0c0c07398f"), bin, &pos), TOID_ECHAR);
    CHECK_EQ_INT(pos, 8);
    CHECK_EQ_INT(toid_decode(TOID_NANOFLAKE, S("1y2p0ij32e8e_"), bin, &pos), TOID_ECHAR);
    CHECK_EQ_INT(pos, 12);
    CHECK_EQ_INT(toid_decode(TOID_UID11, S("1111111111l"), bin, &pos), TOID_ECHAR);
    CHECK_EQ_INT(pos, 10);
    /* failure leaves bin untouched */
    memset(bin, 0xAB, sizeof bin);
    CHECK_EQ_INT(toid_decode(TOID_ULID, S("80000000000000000000000000"), bin, NULL), TOID_EOVERFLOW);
    CHECK_EQ_INT(bin[0], 0xAB);
    CHECK_EQ_INT(toid_decode(TOID_ULID, NULL, 0, bin, NULL), TOID_ELENGTH);
    CHECK_EQ_INT(toid_decode(TOID_FORMAT_COUNT, S("x"), bin, NULL), TOID_EINVAL);
    /* encode buffer */
    char out[TOID_TEXT_MAX];
    CHECK_EQ_INT(toid_decode(TOID_ULID, S("01ARZ3NDEKTSV4RRFFQ69G5FAV"), bin, NULL), 0);
    CHECK_EQ_INT(toid_encode(TOID_ULID, bin, out, 26), TOID_EBUFFER);
    CHECK_EQ_INT(toid_encode(TOID_ULID, bin, out, 27), 26);
    CHECK_EQ_STR(out, "01ARZ3NDEKTSV4RRFFQ69G5FAV");
    char json[64];
    CHECK_EQ_INT(toid_inspect_json(TOID_ULID, bin, TOID_EPOCH_DEFAULT, json, sizeof json), TOID_EBUFFER);
}

TEST_CASE(binary_and_int) {
    uint8_t bin[TOID_BIN_MAX];
    const uint8_t top[8] = {0x80, 0, 0, 0, 0, 0, 0, 0};
    CHECK_EQ_INT(toid_from_bytes(TOID_ULID_FLAKE, top, 8, bin), TOID_EOVERFLOW);
    CHECK_EQ_INT(toid_from_bytes(TOID_NANOFLAKE, top, 8, bin), TOID_EOVERFLOW);
    CHECK_EQ_INT(toid_from_bytes(TOID_UID11, top, 8, bin), 0);
    CHECK_EQ_INT(toid_from_bytes(TOID_UID11, top, 7, bin), TOID_ELENGTH);
    const uint8_t v4[16] = {0, 0, 0, 0, 0, 0, 0x40, 0, 0x80};
    CHECK_EQ_INT(toid_from_bytes(TOID_UUIDV7, v4, 16, bin), TOID_EINVAL);
    CHECK_EQ_INT(toid_from_u64(TOID_ULID_FLAKE, UINT64_MAX >> 1, bin), 0);
    CHECK_EQ_INT(toid_from_u64(TOID_ULID_FLAKE, (UINT64_MAX >> 1) + 1, bin), TOID_EOVERFLOW);
    CHECK_EQ_INT(toid_from_u64(TOID_ULID, 1, bin), TOID_EINVAL);
    uint64_t u;
    CHECK_EQ_INT(toid_decode_int(TOID_UID11, S("18446744073709551615"), bin, NULL), 0);
    CHECK(toid_to_u64(TOID_UID11, bin, &u) == 0 && u == UINT64_MAX);
    CHECK_EQ_INT(toid_decode_int(TOID_UID11, S("18446744073709551616"), bin, NULL), TOID_EOVERFLOW);
    CHECK_EQ_INT(toid_decode_int(TOID_NANOFLAKE, S("9223372036854775808"), bin, NULL), TOID_EOVERFLOW);
    size_t pos;
    CHECK_EQ_INT(toid_decode_int(TOID_NANOFLAKE, S("12x"), bin, &pos), TOID_ECHAR);
    CHECK_EQ_INT(pos, 2);
    CHECK_EQ_INT(toid_decode_int(TOID_NANOFLAKE, S("-1"), bin, &pos), TOID_ECHAR);
    CHECK_EQ_INT(toid_decode_int(TOID_NANOFLAKE, S(""), bin, &pos), TOID_ELENGTH);
    CHECK_EQ_INT(toid_decode_int(TOID_SCRU160, S("1"), bin, &pos), TOID_EINVAL);
}

TEST_CASE(time_text) {
    char buf[40];
    int64_t ms;
    CHECK_EQ_INT(toid_format_time(1469922850259, buf, sizeof buf), 24);
    CHECK_EQ_STR(buf, "2016-07-30T23:54:10.259Z");
    CHECK_EQ_INT(toid_format_time(0, buf, sizeof buf), 24);
    CHECK_EQ_STR(buf, "1970-01-01T00:00:00.000Z");
    toid_format_time((INT64_C(1) << 48) - 1, buf, sizeof buf);
    CHECK_EQ_STR(buf, "10889-08-02T05:31:50.655Z");   /* DESIGN.md: years above 9999 */
    toid_format_time(1321009871111 + (INT64_C(1) << 42) - 1, buf, sizeof buf);
    CHECK_EQ_STR(buf, "2151-03-25T18:46:22.214Z");    /* uid11's last ms (DESIGN.md) */
    toid_format_time(951782400000, buf, sizeof buf);
    CHECK_EQ_STR(buf, "2000-02-29T00:00:00.000Z");
    CHECK_EQ_INT(toid_format_time(-1, buf, sizeof buf), TOID_ERANGE);
    CHECK_EQ_INT(toid_format_time(0, buf, 31), TOID_EBUFFER);

    CHECK(toid_parse_time(S("2024-01-01T00:00:00Z"), &ms) == 0 && ms == 1704067200000);
    CHECK(toid_parse_time(S("2024-01-01t00:00:00.5z"), &ms) == 0 && ms == 1704067200500);
    CHECK(toid_parse_time(S("2024-01-01T02:00:00.123456+02:00"), &ms) == 0 && ms == 1704067200123);
    CHECK(toid_parse_time(S("2023-12-31T19:00:00-05:00"), &ms) == 0 && ms == 1704067200000);
    CHECK(toid_parse_time(S("2024-01-01"), &ms) == 0 && ms == 1704067200000);
    CHECK(toid_parse_time(S("10889-08-02T05:31:50.655Z"), &ms) == 0 && ms == (INT64_C(1) << 48) - 1);
    CHECK(toid_parse_time(S("1704067200000"), &ms) == 0 && ms == 1704067200000);
    CHECK(toid_parse_time(S("-5"), &ms) == 0 && ms == -5);
    CHECK_EQ_INT(toid_parse_time(S("2023-02-29T00:00:00Z"), &ms), TOID_EINVAL);
    CHECK_EQ_INT(toid_parse_time(S("2024-01-01T24:00:00Z"), &ms), TOID_EINVAL);
    CHECK(toid_parse_time(S("2024-01-01T00:00:00"), &ms) == 0 && ms == 1704067200000);   /* no zone: UTC */
    CHECK_EQ_INT(toid_parse_time(S("2024-01-01T00:00:00Z "), &ms), TOID_EINVAL);
    CHECK_EQ_INT(toid_parse_time(S("now "), &ms), TOID_EINVAL);
    CHECK_EQ_INT(toid_parse_time(S("nowx"), &ms), TOID_EINVAL);
    CHECK_EQ_INT(toid_parse_time(S(""), &ms), TOID_EINVAL);
    CHECK_EQ_INT(toid_parse_time(S("99999999999999999999"), &ms), TOID_EINVAL);
}

/* A clock the test sets: 2024-01-01T12:00:00.000Z, in microseconds. */
static int64_t fixed_clock(void *ctx) {
    (void)ctx;
    return INT64_C(1704110400000) * 1000 + 250;
}

TEST_CASE(relative_times) {
    int64_t lo, hi, t = 1704110400000;
    toid_set_clock(fixed_clock, NULL);
    CHECK(toid_parse_time_span(S("now"), &lo, &hi, NULL) == 0 && lo == t && hi == t);
    CHECK(toid_parse_time_span(S("now-1h"), &lo, &hi, NULL) == 0 && lo == t - 3600000 && hi == lo);
    CHECK(toid_parse_time_span(S("-15m"), &lo, &hi, NULL) == 0 && lo == t - 900000);
    CHECK(toid_parse_time_span(S("+2d"), &lo, &hi, NULL) == 0 && lo == t + 2 * 86400000);
    CHECK(toid_parse_time_span(S("now-1h30m"), &lo, &hi, NULL) == 0 && lo == t - 5400000);
    CHECK(toid_parse_time_span(S("now+90s"), &lo, &hi, NULL) == 0 && lo == t + 90000);
    CHECK(toid_parse_time_span(S("-250ms"), &lo, &hi, NULL) == 0 && lo == t - 250);
    CHECK(toid_parse_time_span(S("-1w"), &lo, &hi, NULL) == 0 && lo == t - 604800000);
    CHECK(toid_parse_time_span(S("-15s"), &lo, &hi, NULL) == 0 && lo == t - 15000);  /* not unix -15 s */
    CHECK(toid_parse_time_span(S("-15"), &lo, &hi, NULL) == 0 && lo == -15);          /* unix ms */
    CHECK(toid_parse_time_span(S("15s"), &lo, &hi, NULL) == 0 && lo == 15000 && hi == 15999);
    static const char *const bad[] = {"now-", "now-1", "now1h", "now-1x", "-1hx", "+1", "now--1h",
                                      "now-1h-", "-1h 2m", "now-99999999999999h", "Now",
                                      /* found by fuzz_time: a term whose ms overflowed */
                                      "-847004201711wwwwwwwwwwwwwwwwwwwwwwwwwwwwww03537",
                                      "+9223372036854775807ms", "+4611686018427387904ms1ms"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_EQ_INT(toid_parse_time_span(bad[i], strlen(bad[i]), &lo, &hi, NULL), TOID_EINVAL);
    toid_set_clock(NULL, NULL);
    int64_t before = toid_clock_now(NULL);
    CHECK(toid_parse_time_span(S("now"), &lo, &hi, NULL) == 0 && lo >= before &&
          lo <= toid_clock_now(NULL));
}

TEST_CASE(any_uuid) {
    toid_uuid_info u;
    char buf[300];
    /* RFC 9562 Appendix A: versions 1, 6 and 7 of 2022-02-22T19:22:22Z */
    CHECK_EQ_INT(toid_uuid_read(S("C232AB00-9414-11EC-B3C8-9F6BDECED846"), &u, NULL), 0);
    CHECK(u.version == 1 && u.variant == TOID_UUID_RFC9562 && u.has_time && u.unix_ms == 1645557742000);
    CHECK_EQ_INT(toid_uuid_json(&u, buf, sizeof buf), (int)strlen(buf));
    CHECK_EQ_STR(buf, "{\"format\":\"uuid\",\"text\":\"c232ab00-9414-11ec-b3c8-9f6bdeced846\","
                      "\"version\":1,\"variant\":\"rfc9562\",\"unix_ms\":1645557742000,"
                      "\"time\":\"2022-02-22T19:22:22.000Z\",\"hex\":\"c232ab00941411ecb3c89f6bdeced846\","
                      "\"clock_seq\":13256,\"node\":\"9f6bdeced846\"}");
    CHECK(toid_uuid_text(&u, buf, sizeof buf) > 0);
    CHECK(strstr(buf, "format:    uuid\ntext:      c232ab00-9414-11ec-b3c8-9f6bdeced846\nversion:   1\n") == buf);
    CHECK(strstr(buf, "clock_seq: 13256\nnode:      9f6bdeced846\n") != NULL);
    CHECK_EQ_INT(toid_uuid_read(S("1EC9414C-232A-6B00-B3C8-9F6BDECED846"), &u, NULL), 0);
    CHECK(u.version == 6 && u.has_time && u.unix_ms == 1645557742000 && u.has_clock_seq);
    CHECK_EQ_INT(toid_uuid_read(S("017F22E2-79B0-7CC3-98C4-DC0C0C07398F"), &u, NULL), 0);
    CHECK(u.version == 7 && u.has_time && u.unix_ms == 1645557742000 && !u.has_clock_seq);
    /* no time: versions 3, 4, 5, 8; what Python's uuid4().hex prints */
    CHECK_EQ_INT(toid_uuid_read(S("2e7ba44190db4ba793e6eabc19b33fb6"), &u, NULL), 0);
    CHECK(u.version == 4 && u.variant == TOID_UUID_RFC9562 && !u.has_time);
    CHECK_EQ_INT(toid_uuid_json(&u, buf, sizeof buf), (int)strlen(buf));
    CHECK_EQ_STR(buf, "{\"format\":\"uuid\",\"text\":\"2e7ba441-90db-4ba7-93e6-eabc19b33fb6\","
                      "\"version\":4,\"variant\":\"rfc9562\",\"hex\":\"2e7ba44190db4ba793e6eabc19b33fb6\"}");
    CHECK_EQ_INT(toid_uuid_read(S("{5df41881-3aed-3515-88a7-2f4a814cf09e}"), &u, NULL), 0);
    CHECK(u.version == 3 && !u.has_time);
    CHECK_EQ_INT(toid_uuid_read(S("urn:uuid:2ed6657d-e927-568b-95e1-2665a8aea6a2"), &u, NULL), 0);
    CHECK(u.version == 5);
    /* a version 1 time before 1970: unix_ms below 0, no "time" */
    CHECK_EQ_INT(toid_uuid_read(S("00000000-0000-1000-8000-000000000000"), &u, NULL), 0);
    CHECK(u.has_time && u.unix_ms == -12219292800000);
    CHECK(toid_uuid_json(&u, buf, sizeof buf) > 0 && strstr(buf, "\"time\"") == NULL);
    /* the special values and the other variants */
    CHECK_EQ_INT(toid_uuid_read(S("00000000-0000-0000-0000-000000000000"), &u, NULL), 0);
    CHECK(u.variant == TOID_UUID_NIL && !u.has_time);
    CHECK_EQ_STR(toid_uuid_variant_name(u.variant), "nil");
    CHECK_EQ_INT(toid_uuid_read(S("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"), &u, NULL), 0);
    CHECK(u.variant == TOID_UUID_MAX && !u.has_time);
    CHECK_EQ_INT(toid_uuid_read(S("00000000-0000-1000-0000-000000000001"), &u, NULL), 0);
    CHECK(u.variant == TOID_UUID_NCS && !u.has_time);
    CHECK_EQ_INT(toid_uuid_read(S("00000000-0000-1000-c000-000000000001"), &u, NULL), 0);
    CHECK(u.variant == TOID_UUID_MICROSOFT);
    CHECK_EQ_INT(toid_uuid_read(S("00000000-0000-1000-e000-000000000001"), &u, NULL), 0);
    CHECK(u.variant == TOID_UUID_FUTURE);
    CHECK_EQ_STR(toid_uuid_variant_name(99), "?");
    /* errors as toid_uuid_canonical's */
    size_t pos = 0;
    CHECK_EQ_INT(toid_uuid_read(S("2e7ba44190db4ba793e6eabc19b33fb"), &u, &pos), TOID_ELENGTH);
    CHECK_EQ_INT(toid_uuid_read(S("2e7ba44190db4ba793e6eabc19b33fbg"), &u, &pos), TOID_ECHAR);
    CHECK_EQ_INT(pos, 31);
    CHECK_EQ_INT(toid_uuid_read(S("2e7ba44190db4ba793e6eabc19b33fb6"), NULL, NULL), TOID_EINVAL);
    CHECK_EQ_INT(toid_uuid_read(S("C232AB00-9414-11EC-B3C8-9F6BDECED846"), &u, NULL), 0);
    CHECK_EQ_INT(toid_uuid_json(&u, buf, 40), TOID_EBUFFER);
    CHECK_EQ_INT(toid_uuid_text(&u, buf, 40), TOID_EBUFFER);
}

TEST_CASE(format_names_suggested) {
    CHECK_EQ_INT(toid_format_nearest(S("ulid")), TOID_ULID);
    CHECK_EQ_INT(toid_format_nearest(S("ULIDD")), TOID_ULID);
    CHECK_EQ_INT(toid_format_nearest(S("uuid-7")), TOID_UUIDV7);
    CHECK_EQ_INT(toid_format_nearest(S("nanoflkae")), TOID_NANOFLAKE);
    CHECK_EQ_INT(toid_format_nearest(S("scru16")), TOID_SCRU160);
    CHECK_EQ_INT(toid_format_nearest(S("ulid_flake_scalabel")), TOID_ULID_FLAKE_SCALABLE);
    CHECK_EQ_INT(toid_format_nearest(S("uid11seq")), TOID_UID11_SEQ);
    CHECK_EQ_INT(toid_format_nearest(S("hello")), TOID_EINVAL);
    CHECK_EQ_INT(toid_format_nearest(S("xd")), TOID_EINVAL);     /* too short to guess */
    CHECK_EQ_INT(toid_format_nearest(S("")), TOID_EINVAL);
    CHECK_EQ_INT(toid_format_nearest(NULL, 3), TOID_EINVAL);
    char m[300];
    CHECK(toid_format_name_error(S("ulidd"), m, sizeof m) > 0);
    CHECK_EQ_STR(m, "unknown format 'ulidd' (did you mean ulid?)");
    CHECK(toid_format_name_error(S("frob"), m, sizeof m) > 0);
    CHECK_EQ_STR(m, "unknown format 'frob' (formats: ulid, ulid-flake, ulid-flake-scalable, scru160, "
                    "nanoflake, uid11, uid11-seq, uuidv7, nanoflake-ref24, uid11-ref44)");
    CHECK(toid_format_name_error(S("a'b\n"), m, sizeof m) > 0);
    CHECK(strncmp(m, "unknown format 'a\\x27b\\x0a' (formats: ulid, ", 41) == 0);
    char long_name[100];
    memset(long_name, 'q', sizeof long_name);
    CHECK(toid_format_name_error(long_name, sizeof long_name, m, sizeof m) > 0);
    CHECK(strstr(m, "qqq...' (formats: ulid, ") != NULL && strlen(m) < 200);
    CHECK_EQ_INT(toid_format_name_error(S("ulidd"), m, 20), TOID_EBUFFER);
    /* 300 bytes are enough whatever the name: 48 bytes each shown as \xHH
     * leave no room for the list of formats, which is then left out (the
     * fuzz corpus found this) */
    char unprintable[60];
    memset(unprintable, 1, sizeof unprintable);
    CHECK(toid_format_name_error(unprintable, sizeof unprintable, m, 300) > 0);
    CHECK(strncmp(m, "unknown format '\\x01\\x01", 24) == 0 && strstr(m, "...'") && !strstr(m, "formats:"));
}

static void hexof(const uint8_t *b, size_t n, char *out) {
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

TEST_CASE(bounds_and_epochs) {
    uint8_t lo[TOID_BIN_MAX], hi[TOID_BIN_MAX];
    char t[TOID_TEXT_MAX], h[41];
    CHECK_EQ_INT(toid_time_bounds(TOID_ULID, 1469922850259, TOID_EPOCH_DEFAULT, lo, hi), 0);
    toid_encode(TOID_ULID, lo, t, sizeof t);
    CHECK_EQ_STR(t, "01ARZ3NDEK0000000000000000");
    toid_encode(TOID_ULID, hi, t, sizeof t);
    CHECK_EQ_STR(t, "01ARZ3NDEKZZZZZZZZZZZZZZZZ");
    CHECK_EQ_INT(toid_time_bounds(TOID_UUIDV7, 0x017f22e279b0, TOID_EPOCH_DEFAULT, lo, hi), 0);
    toid_encode(TOID_UUIDV7, lo, t, sizeof t);
    CHECK_EQ_STR(t, "017f22e2-79b0-7000-8000-000000000000");
    toid_encode(TOID_UUIDV7, hi, t, sizeof t);
    CHECK_EQ_STR(t, "017f22e2-79b0-7fff-bfff-ffffffffffff");
    CHECK_EQ_INT(toid_time_bounds(TOID_SCRU160, 1, TOID_EPOCH_DEFAULT, lo, hi), 0);
    hexof(hi, 20, h);
    CHECK_EQ_STR(h, "000000000001ffffffffffffffffffffffffffff");
    CHECK_EQ_INT(toid_time_bounds(TOID_NANOFLAKE, 1704067201000, TOID_EPOCH_DEFAULT, lo, hi), 0);
    toid_encode(TOID_NANOFLAKE, lo, t, sizeof t);
    CHECK_EQ_STR(t, "0000001xd6hog");    /* 1000 << 22 */
    CHECK_EQ_INT(toid_time_bounds(TOID_NANOFLAKE, 1704067199999, TOID_EPOCH_DEFAULT, lo, hi), TOID_ERANGE);
    CHECK_EQ_INT(toid_time_bounds(TOID_ULID, -1, TOID_EPOCH_DEFAULT, lo, NULL), TOID_ERANGE);
    CHECK_EQ_INT(toid_time_bounds(TOID_ULID, INT64_C(1) << 48, TOID_EPOCH_DEFAULT, NULL, hi), TOID_ERANGE);
    /* a custom epoch moves the span and the decoded time */
    int64_t mn, mx;
    CHECK_EQ_INT(toid_time_span(TOID_ULID_FLAKE, 1000, &mn, &mx), 0);
    CHECK(mn == 1000 && mx == 1000 + (INT64_C(1) << 43) - 1);
    CHECK_EQ_INT(toid_time_span(TOID_UID11, 1000, &mn, &mx), TOID_EINVAL);      /* fixed epoch */
    CHECK_EQ_INT(toid_time_span(TOID_ULID, 5, &mn, &mx), TOID_EINVAL);
    CHECK_EQ_INT(toid_time_span(TOID_ULID, 0, &mn, &mx), 0);
    CHECK_EQ_INT(toid_time_span(TOID_NANOFLAKE, -1, &mn, &mx), TOID_EINVAL);
    uint8_t bin[8];
    toid_fields f;
    CHECK_EQ_INT(toid_decode(TOID_NANOFLAKE, S("0000001xd6ku8"), bin, NULL), 0);
    CHECK_EQ_INT(toid_inspect(TOID_NANOFLAKE, bin, 1288834974657, &f), 0);  /* Twitter's epoch */
    CHECK_EQ_INT(f.unix_ms, 1288834974657 + 1000);
    CHECK_EQ_INT(f.ts, 1000);
    CHECK_EQ_INT(f.generator, 1);
}

TEST_CASE(make_errors) {
    toid_fields f;
    uint8_t bin[TOID_BIN_MAX];
    memset(&f, 0, sizeof f);
    CHECK_EQ_INT(toid_make(TOID_NANOFLAKE, &f, TOID_EPOCH_DEFAULT, bin), TOID_EINVAL);  /* no time */
    CHECK_EQ_INT(toid_fields_set(TOID_NANOFLAKE, &f, S("ts"), S("5")), 0);
    CHECK_EQ_INT(toid_fields_set(TOID_NANOFLAKE, &f, S("generator"), S("1024")), 0);
    CHECK_EQ_INT(toid_make(TOID_NANOFLAKE, &f, TOID_EPOCH_DEFAULT, bin), TOID_EINVAL);  /* 11 bits */
    CHECK_EQ_INT(toid_fields_set(TOID_NANOFLAKE, &f, S("generator"), S("1023")), 0);
    CHECK_EQ_INT(toid_make(TOID_NANOFLAKE, &f, TOID_EPOCH_DEFAULT, bin), 0);
    CHECK_EQ_INT(toid_fields_set(TOID_NANOFLAKE, &f, S("unix_ms"), S("1704067200006")), 0);
    CHECK_EQ_INT(toid_make(TOID_NANOFLAKE, &f, TOID_EPOCH_DEFAULT, bin), TOID_EINVAL);  /* ts disagrees */
    CHECK_EQ_INT(toid_fields_set(TOID_NANOFLAKE, &f, S("random"), S("1")), TOID_EINVAL);
    CHECK_EQ_INT(toid_fields_set(TOID_NANOFLAKE, &f, S("bogus"), S("1")), TOID_EINVAL);
    CHECK_EQ_INT(toid_fields_set(TOID_ULID, &f, S("ts"), S("1")), TOID_EINVAL);          /* Unix epoch: no ts */
    CHECK_EQ_INT(toid_fields_set(TOID_ULID, &f, S("random"), S("123")), TOID_EINVAL);    /* 20 hex digits */
    CHECK_EQ_INT(toid_fields_set(TOID_ULID, &f, S("int"), S("1")), TOID_EINVAL);         /* not 64-bit */
    CHECK_EQ_INT(toid_fields_set(TOID_UID11, &f, S("int"), S("-0")), TOID_EOVERFLOW);
    CHECK_EQ_INT(toid_fields_set(TOID_SCRU160, &f, S("random80"), S("1208925819614629174706176")), TOID_EINVAL);
    memset(&f, 0, sizeof f);
    CHECK_EQ_INT(toid_fields_set(TOID_ULID, &f, S("time"), S("2016-07-30T23:54:10.259Z")), 0);
    CHECK_EQ_INT(toid_make(TOID_ULID, &f, TOID_EPOCH_DEFAULT, bin), 0);
    char t[TOID_TEXT_MAX];
    toid_encode(TOID_ULID, bin, t, sizeof t);
    CHECK_EQ_STR(t, "01ARZ3NDEK0000000000000000");
    memset(&f, 0, sizeof f);
    CHECK_EQ_INT(toid_fields_set(TOID_SCRU160, &f, S("unix_ms"), S("5")), 0);
    CHECK_EQ_INT(toid_fields_set(TOID_SCRU160, &f, S("reserved"), S("true")), 0);
    CHECK_EQ_INT(toid_make(TOID_SCRU160, &f, TOID_EPOCH_DEFAULT, bin), TOID_EINVAL);    /* not reserved */
    CHECK_EQ_INT(toid_fields_set(TOID_SCRU160, &f, S("unix_ms"), S("0")), 0);
    CHECK_EQ_INT(toid_make(TOID_SCRU160, &f, TOID_EPOCH_DEFAULT, bin), 0);
}

TEST_CASE(ulid_uuid_normalize) {
    char out[40];
    CHECK_EQ_INT(toid_ulid_to_uuid(S("01JQ4T23H220KM7X0B3V1109DQ"), out, sizeof out, NULL), 36);
    CHECK_EQ_STR(out, "0195c9a1-0e22-1027-43f4-0b1ec21025b7");
    CHECK_EQ_INT(toid_uuid_to_ulid(S("0195C9A1-0E22-1027-43F4-0B1EC21025B7"), out, sizeof out, NULL), 26);
    CHECK_EQ_STR(out, "01JQ4T23H220KM7X0B3V1109DQ");
    size_t pos;
    CHECK_EQ_INT(toid_uuid_to_ulid(S("0195c9a1-0e22-1027-43f4+0b1ec21025b7"), out, sizeof out, &pos), TOID_ECHAR);
    CHECK_EQ_INT(pos, 23);
    CHECK_EQ_INT(toid_uuid_to_ulid(S("0195c9a10e22102743f40b1ec21025b7"), out, sizeof out, &pos), TOID_ELENGTH);
    CHECK_EQ_INT(toid_ulid_to_uuid(S("01JQ4T23H220KM7X0B3V1109DQ"), out, 36, NULL), TOID_EBUFFER);
    CHECK_EQ_INT(toid_ulid_to_uuid(S("81JQ4T23H220KM7X0B3V1109DQ"), out, sizeof out, NULL), TOID_EOVERFLOW);

    CHECK_EQ_INT(toid_normalize(S("oLARYZ6-S41TSV4RRF-FQ69G5FAV"), out, sizeof out), 26);
    CHECK_EQ_STR(out, "01ARYZ6S41TSV4RRFFQ69G5FAV");
    CHECK_EQ_INT(toid_normalize(S("i-l-o"), out, sizeof out), 3);
    CHECK_EQ_STR(out, "110");
    CHECK_EQ_INT(toid_normalize(S("abc"), out, 3), TOID_EBUFFER);
    CHECK_EQ_INT(toid_normalize(S("abc"), out, 4), 3);
    CHECK_EQ_INT(toid_normalize(S(""), out, 1), 0);
}

TEST_CASE(prefix) {
    uint64_t lo, hi;
    CHECK_EQ_INT(toid_uid11_prefix_range(S("jpXCZedGfVQ"), &lo, &hi, NULL), 0);
    CHECK(lo == UINT64_MAX && hi == UINT64_MAX);
    CHECK_EQ_INT(toid_uid11_prefix_range(S("jpXCZedGfVR"), &lo, &hi, NULL), TOID_EOVERFLOW);
    CHECK_EQ_INT(toid_uid11_prefix_range(S("jq"), &lo, &hi, NULL), TOID_EOVERFLOW);
    CHECK_EQ_INT(toid_uid11_prefix_range(S("jp"), &lo, &hi, NULL), 0);
    CHECK(hi == UINT64_MAX && lo < hi);                       /* clamped */
    size_t pos;
    CHECK_EQ_INT(toid_uid11_prefix_range(S("ab0"), &lo, &hi, &pos), TOID_ECHAR);
    CHECK_EQ_INT(pos, 2);
}

TEST_CASE(describe_json) {
    uint8_t bin[TOID_BIN_MAX];
    char json[512];
    CHECK_EQ_INT(toid_decode(TOID_NANOFLAKE, S("0000001XD6KU8"), bin, NULL), 0);
    int n = toid_inspect_json(TOID_NANOFLAKE, bin, TOID_EPOCH_DEFAULT, json, sizeof json);
    CHECK(n > 0);
    CHECK_EQ_STR(json, "{\"format\":\"nanoflake\",\"text\":\"0000001xd6ku8\",\"unix_ms\":1704067201000,"
                       "\"time\":\"2024-01-01T00:00:01.000Z\",\"hex\":\"00000000fa001000\","
                       "\"int\":\"4194308096\",\"ts\":1000,\"generator\":1,\"sequence\":0}");
    CHECK_EQ_INT(toid_decode(TOID_SCRU160, S("00000000000000000000000000000000"), bin, NULL), 0);
    toid_inspect_json(TOID_SCRU160, bin, TOID_EPOCH_DEFAULT, json, sizeof json);
    CHECK(strstr(json, "\"random80\":\"0\"") && strstr(json, "\"reserved\":true"));
    /* the longest JSON fits 512 bytes */
    memset(bin, 0xFF, sizeof bin);
    CHECK(toid_inspect_json(TOID_SCRU160, bin, TOID_EPOCH_DEFAULT, json, sizeof json) > 0);
    /* every format's largest value: well inside 512 (the writer copies
     * pieces of up to 32 bytes past its end), and a buffer of exactly the
     * length is short by the NUL */
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        char small[512];
        memset(bin, 0xFF, sizeof bin);
        bin[0] = toid_format_get((toid_format)f)->int_max == UINT64_MAX >> 1 ? 0x7F : 0xFF;
        n = toid_inspect_json((toid_format)f, bin, TOID_EPOCH_DEFAULT, json, sizeof json);
        CHECK(n > 0 && n < 512 - 64);
        CHECK_EQ_INT(toid_inspect_json((toid_format)f, bin, TOID_EPOCH_DEFAULT, small, (size_t)n), TOID_EBUFFER);
        CHECK_EQ_INT(toid_inspect_json((toid_format)f, bin, TOID_EPOCH_DEFAULT, small, (size_t)n + 1), n);
        CHECK_EQ_STR(small, json);
        n = toid_inspect_text((toid_format)f, bin, TOID_EPOCH_DEFAULT, json, sizeof json);
        CHECK(n > 0 && n < 512 - 64);
        CHECK_EQ_INT(toid_inspect_text((toid_format)f, bin, TOID_EPOCH_DEFAULT, small, (size_t)n), TOID_EBUFFER);
        CHECK_EQ_INT(toid_inspect_text((toid_format)f, bin, TOID_EPOCH_DEFAULT, small, (size_t)n + 1), n);
        CHECK_EQ_STR(small, json);
    }
    /* the aligned lines: toid_describe's fields, values from column 12 */
    CHECK_EQ_INT(toid_decode(TOID_NANOFLAKE, S("0000001XD6KU8"), bin, NULL), 0);
    CHECK(toid_inspect_text(TOID_NANOFLAKE, bin, TOID_EPOCH_DEFAULT, json, sizeof json) > 0);
    CHECK_EQ_STR(json, "format:    nanoflake\ntext:      0000001xd6ku8\nunix_ms:   1704067201000\n"
                       "time:      2024-01-01T00:00:01.000Z\nhex:       00000000fa001000\n"
                       "int:       4194308096\nts:        1000\ngenerator: 1\nsequence:  0\n");
    /* the time text is cached per ms and per day: each call still says its own time */
    static const int64_t times[] = {1704067200000, 1704067200001, 1704153600000, 1704067200000,
                                    1704067259999, 0};
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        toid_fields in = {.has = 1u << TOID_FIELD_UNIX_MS, .unix_ms = times[i]};
        char want[40], key[64];
        CHECK_EQ_INT(toid_make(TOID_ULID, &in, TOID_EPOCH_DEFAULT, bin), 0);
        CHECK(toid_format_time(times[i], want, sizeof want) > 0);
        snprintf(key, sizeof key, "\"unix_ms\":%lld,\"time\":\"%s\"", (long long)times[i], want);
        CHECK(toid_inspect_json(TOID_ULID, bin, TOID_EPOCH_DEFAULT, json, sizeof json) > 0 && strstr(json, key));
    }
    toid_field fl[TOID_FIELDS_MAX];
    CHECK_EQ_INT(toid_describe(TOID_ULID, bin, TOID_EPOCH_DEFAULT, fl), 6);
    CHECK_EQ_STR(fl[5].name, "random");
    CHECK_EQ_STR(toid_field_name(TOID_FIELD_RANDOM80), "random80");
    CHECK(toid_field_name(TOID_FIELD_COUNT) == NULL);
    /* every field has one line of help (formats --json, help texts) */
    for (int id = 0; id < TOID_FIELD_COUNT; id++) {
        const char *h = toid_field_help((toid_field_id)id);
        CHECK_MSG(h && h[0] && !strchr(h, '\n'), "help of field %d", id);
    }
    CHECK(toid_field_help(TOID_FIELD_COUNT) == NULL);
    CHECK_EQ_STR(toid_field_help(TOID_FIELD_SEQUENCE), "the sequence number within a millisecond");
}

TEST_CASE(version) {
    CHECK_EQ_STR(toid_version(), TOID_VERSION_STRING);
}

int main(int argc, char **argv) {
    return check_main(argc, argv, NULL, NULL);
}
