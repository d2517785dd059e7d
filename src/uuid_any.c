/* uuid_any.c — any UUID (RFC 9562), whatever its version: read from the
 * forms people paste (toid_uuid_canonical), with its version, variant and,
 * for versions 1, 6 and 7, its time; rendered as JSON and as the lines of
 * toid_inspect_text. uuidv7 is also a format of the registry; the other
 * versions are read here only, never generated. */
#include "codec.h"

#include <stdio.h>
#include <string.h>

/* 100-ns intervals from 1582-10-15T00:00:00Z (the Gregorian reform, the
 * epoch of versions 1 and 6) to 1970-01-01T00:00:00Z. */
#define GREGORIAN_TO_UNIX_100NS INT64_C(0x01B21DD213814000)

/* unix ms of a count of 100-ns intervals since the Gregorian epoch (floor). */
static int64_t gregorian_ms(uint64_t ticks) {
    int64_t d = (int64_t)ticks - GREGORIAN_TO_UNIX_100NS;   /* ticks < 2^60: no overflow */
    return d >= 0 ? d / 10000 : -((-d + 9999) / 10000);
}

int toid_uuid_read(const char *text, size_t len, toid_uuid_info *u, size_t *err_pos) {
    char canon[37];
    if (!u)
        return TOID_EINVAL;
    int n = toid_uuid_canonical(text, len, canon, sizeof canon, err_pos);
    if (n < 0)
        return n;
    memset(u, 0, sizeof *u);
    if (toid__uuid_text_decode(canon, u->bytes, NULL) < 0)
        return TOID_ECHAR;   /* (not reached: the canonical text is hex and hyphens) */
    const uint8_t *b = u->bytes;
    static const uint8_t ones[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    static const uint8_t zeros[16];
    u->version = b[6] >> 4;
    if (memcmp(b, zeros, 16) == 0)
        u->variant = TOID_UUID_NIL;
    else if (memcmp(b, ones, 16) == 0)
        u->variant = TOID_UUID_MAX;
    else if ((b[8] & 0x80) == 0)
        u->variant = TOID_UUID_NCS;
    else if ((b[8] & 0xc0) == 0x80)
        u->variant = TOID_UUID_RFC9562;
    else if ((b[8] & 0xe0) == 0xc0)
        u->variant = TOID_UUID_MICROSOFT;
    else
        u->variant = TOID_UUID_FUTURE;
    if (u->variant != TOID_UUID_RFC9562)
        return 0;
    uint64_t time_low = (uint64_t)b[0] << 24 | (uint64_t)b[1] << 16 | (uint64_t)b[2] << 8 | b[3];
    uint64_t time_mid = (uint64_t)b[4] << 8 | b[5];
    uint64_t time_12 = (uint64_t)(b[6] & 0x0f) << 8 | b[7];
    switch (u->version) {
    case 1:   /* time_low | time_mid | ver | time_high */
        u->has_time = 1;
        u->unix_ms = gregorian_ms(time_12 << 48 | time_mid << 32 | time_low);
        break;
    case 6:   /* the same 60 bits, most significant first */
        u->has_time = 1;
        u->unix_ms = gregorian_ms(time_low << 28 | time_mid << 12 | time_12);
        break;
    case 7:   /* 48 bits of unix ms */
        u->has_time = 1;
        u->unix_ms = (int64_t)(time_low << 16 | time_mid);
        break;
    default:
        break;
    }
    u->has_clock_seq = u->version == 1 || u->version == 6;
    return 0;
}

int toid_uuid_detect(const char *text, size_t len, toid_uuid_info *u) {
    if (toid_uuid_read(text, len, u, NULL) < 0)
        return 0;
    if (u->variant == TOID_UUID_RFC9562 && u->version == 7)
        return 0;                  /* a uuidv7: the format's own reading */
    if (len != 32)
        return 1;                  /* a form no format but uuidv7 writes */
    /* 32 hex digits are a scru160 too: a UUID when its bits spell one */
    return u->variant == TOID_UUID_NIL || u->variant == TOID_UUID_MAX ||
           (u->variant == TOID_UUID_RFC9562 && u->version >= 1 && u->version <= 8);
}

static const char *const variant_names[] = {"rfc9562", "ncs", "microsoft", "future", "nil", "max"};

const char *toid_uuid_variant_name(int variant) {
    return variant >= 0 && variant < (int)(sizeof variant_names / sizeof variant_names[0])
               ? variant_names[variant]
               : "?";
}

/* The fields of u in order, each as (key, value text); returns how many. */
typedef struct kv {
    const char *key;
    char value[40];
    int quoted;   /* a JSON string */
} kv;

static int uuid_fields(const toid_uuid_info *u, kv *f) {
    int n = 0;
    f[n] = (kv){"format", "uuid", 1};
    n++;
    f[n] = (kv){"text", "", 1};
    toid__uuid_text_encode(u->bytes, f[n].value);
    f[n].value[36] = '\0';
    n++;
    f[n] = (kv){"version", "", 0};
    snprintf(f[n].value, sizeof f[n].value, "%u", u->version);
    n++;
    f[n] = (kv){"variant", "", 1};
    snprintf(f[n].value, sizeof f[n].value, "%s", toid_uuid_variant_name(u->variant));
    n++;
    if (u->has_time) {
        f[n] = (kv){"unix_ms", "", 0};
        snprintf(f[n].value, sizeof f[n].value, "%lld", (long long)u->unix_ms);
        n++;
        if (u->unix_ms >= 0) {   /* (a version 1 or 6 time may fall before 1970) */
            f[n] = (kv){"time", "", 1};
            toid_format_time(u->unix_ms, f[n].value, sizeof f[n].value);
            n++;
        }
    }
    f[n] = (kv){"hex", "", 1};
    toid__hex_put(u->bytes, 16, f[n].value);
    f[n].value[32] = '\0';
    n++;
    if (u->has_clock_seq) {
        f[n] = (kv){"clock_seq", "", 0};
        snprintf(f[n].value, sizeof f[n].value, "%u", (unsigned)(u->bytes[8] & 0x3f) << 8 | u->bytes[9]);
        n++;
        f[n] = (kv){"node", "", 1};
        toid__hex_put(u->bytes + 10, 6, f[n].value);
        f[n].value[12] = '\0';
        n++;
    }
    return n;
}

/* Writes u's fields into tmp (512 bytes: more than either form needs),
 * as JSON members or as aligned lines; returns the length. */
static size_t render(const toid_uuid_info *u, int json, char *tmp) {
    kv f[10];
    int n = uuid_fields(u, f);
    size_t o = 0;
    for (int i = 0; i < n; i++) {
        if (json)
            o += (size_t)sprintf(tmp + o, "%s\"%s\":%s%s%s", i ? "," : "{", f[i].key,
                                 f[i].quoted ? "\"" : "", f[i].value, f[i].quoted ? "\"" : "");
        else
            o += (size_t)sprintf(tmp + o, "%s:%*s%s\n", f[i].key, (int)(10 - strlen(f[i].key)), "",
                                 f[i].value);
    }
    if (json)
        tmp[o++] = '}';
    tmp[o] = '\0';
    return o;
}

static int put(const toid_uuid_info *u, int json, char *out, size_t out_size) {
    char tmp[512];
    if (!u || !out)
        return TOID_EINVAL;
    size_t n = render(u, json, tmp);
    if (n + 1 > out_size)
        return TOID_EBUFFER;
    memcpy(out, tmp, n + 1);
    return (int)n;
}

int toid_uuid_json(const toid_uuid_info *u, char *out, size_t out_size) {
    return put(u, 1, out, out_size);
}

int toid_uuid_text(const toid_uuid_info *u, char *out, size_t out_size) {
    return put(u, 0, out, out_size);
}
