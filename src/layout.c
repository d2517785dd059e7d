/* layout.c — inspect, make, describe and time bounds for every format, from
 * its bit layout (format.h). Nothing here knows a format by name. */
#include "bits.h"
#include "codec.h"

static const char *const field_names[TOID_FIELD_COUNT] = {
#define TOID__FNAME(id, name) name,
    TOID_FIELD_LIST(TOID__FNAME)
#undef TOID__FNAME
};

#define BIT(id) (UINT32_C(1) << TOID_FIELD_##id)

const char *toid_field_name(toid_field_id id) {
    return (unsigned)id < TOID_FIELD_COUNT ? field_names[id] : NULL;
}

/* One line each, in field id order; what every format means by the field. */
static const char *const field_help[TOID_FIELD_COUNT] = {
    [TOID_FIELD_FORMAT] = "the format's name",
    [TOID_FIELD_TEXT] = "the canonical text",
    [TOID_FIELD_UNIX_MS] = "the time: milliseconds since 1970-01-01T00:00:00Z",
    [TOID_FIELD_TIME] = "the time as an RFC 3339 UTC timestamp",
    [TOID_FIELD_HEX] = "the binary form, big-endian, as lower-case hex",
    [TOID_FIELD_INT] = "the 64-bit value as a decimal integer",
    [TOID_FIELD_TS] = "the stored timestamp: milliseconds since the format's epoch",
    [TOID_FIELD_RANDOM] = "random bits (incremented within a millisecond where they order the IDs)",
    [TOID_FIELD_SID] = "the scalable ID: the node of the generator that made it",
    [TOID_FIELD_COUNTER] = "the counter that orders IDs within a millisecond",
    [TOID_FIELD_RANDOM16] = "16 random bits, after the counter",
    [TOID_FIELD_RANDOM80] = "80 random bits",
    [TOID_FIELD_GENERATOR] = "the generator (node) id",
    [TOID_FIELD_SEQUENCE] = "the sequence number within a millisecond",
    [TOID_FIELD_RESERVED] = "bits the format reserves: always 0",
};

const char *toid_field_help(toid_field_id id) {
    return (unsigned)id < TOID_FIELD_COUNT ? field_help[id] : NULL;
}

/* Formats with their own epoch report `ts`; the Unix-epoch ones do not. */
static bool has_ts(const toid__format *fmt) { return fmt->info.default_epoch_ms != 0; }

/* The fields a format reports (and accepts in toid_make). */
static uint32_t field_set(const toid__format *fmt) {
    uint32_t set = BIT(FORMAT) | BIT(TEXT) | BIT(UNIX_MS) | BIT(TIME) | BIT(HEX);
    if (fmt->info.has_int)
        set |= BIT(INT);
    if (has_ts(fmt))
        set |= BIT(TS);
    for (unsigned i = 0; i < fmt->nfields; i++)
        set |= UINT32_C(1) << fmt->fields[i].id;
    if (fmt->has_reserved)
        set |= BIT(RESERVED);
    return set;
}

static uint32_t *u32_member(toid_fields *f, unsigned id) {
    switch (id) {
    case TOID_FIELD_SID: return &f->sid;
    case TOID_FIELD_COUNTER: return &f->counter;
    case TOID_FIELD_RANDOM16: return &f->random16;
    case TOID_FIELD_GENERATOR: return &f->generator;
    case TOID_FIELD_SEQUENCE: return &f->sequence;
    default: return NULL;
    }
}

static int64_t max_ts(const toid__format *fmt) {
    return (INT64_C(1) << fmt->info.ts_bits) - 1;
}

int toid_time_span(toid_format f, int64_t epoch_ms, int64_t *min_ms, int64_t *max_ms) {
    const toid__format *fmt = toid__format_of(f);
    int64_t e;
    if (!fmt || toid__resolve_epoch(fmt, epoch_ms, &e) < 0)
        return TOID_EINVAL;
    if (min_ms)
        *min_ms = e;
    if (max_ms)
        *max_ms = e + max_ts(fmt);
    return 0;
}

int toid_inspect(toid_format f, const uint8_t *bin, int64_t epoch_ms, toid_fields *out) {
    const toid__format *fmt = toid__format_of(f);
    int64_t e;
    if (!fmt || !bin || !out || toid__resolve_epoch(fmt, epoch_ms, &e) < 0)
        return TOID_EINVAL;
    unsigned size = fmt->info.bin_size;
    toid__wide v = toid__wide_load(bin, size);
    memset(out, 0, sizeof *out);
    out->has = field_set(fmt);
    out->ts = (int64_t)toid__bits_get(&v, fmt->ts_shift, fmt->info.ts_bits);
    out->unix_ms = e + out->ts;
    memcpy(out->hex, bin, size);
    if (fmt->info.has_int)
        out->int_value = toid__load64(bin);
    for (unsigned i = 0; i < fmt->nfields; i++) {
        const toid__field_layout *l = &fmt->fields[i];
        if (l->width > 64) {                 /* 80 bits into random80[] */
            uint64_t lo = toid__bits_get(&v, l->shift, 64);
            uint64_t hi = toid__bits_get(&v, l->shift + 64u, l->width - 64u);
            out->random80[0] = (uint8_t)(hi >> 8);
            out->random80[1] = (uint8_t)hi;
            toid__store64(out->random80 + 2, lo);
        } else if (l->id == TOID_FIELD_RANDOM) {
            out->random = toid__bits_get(&v, l->shift, l->width);
        } else {
            *u32_member(out, l->id) = (uint32_t)toid__bits_get(&v, l->shift, l->width);
        }
    }
    if (fmt->has_reserved)
        out->reserved = out->ts == 0 || out->ts == max_ts(fmt);
    return 0;
}

int toid_time_of(toid_format f, const uint8_t *bin, int64_t epoch_ms, int64_t *unix_ms) {
    const toid__format *fmt = toid__format_of(f);
    int64_t e;
    if (!fmt || !bin || !unix_ms || toid__resolve_epoch(fmt, epoch_ms, &e) < 0)
        return TOID_EINVAL;
    toid__wide v = toid__wide_load(bin, fmt->info.bin_size);
    *unix_ms = e + (int64_t)toid__bits_get(&v, fmt->ts_shift, fmt->info.ts_bits);
    return 0;
}

/* Every given field of `in` must equal what the value reports. */
static bool consistent(const toid__format *fmt, const toid_fields *in, const toid_fields *got) {
    unsigned size = fmt->info.bin_size;
    bool wide_random = fmt->nfields && fmt->fields[0].id == TOID_FIELD_RANDOM && fmt->fields[0].width > 64;
    uint32_t h = in->has;
    if ((h & BIT(UNIX_MS)) && in->unix_ms != got->unix_ms) return false;
    if ((h & BIT(TS)) && in->ts != got->ts) return false;
    if ((h & BIT(INT)) && in->int_value != got->int_value) return false;
    if ((h & BIT(HEX)) && memcmp(in->hex, got->hex, size) != 0) return false;
    if ((h & BIT(RESERVED)) && (in->reserved != 0) != (got->reserved != 0)) return false;
    if ((h & BIT(RANDOM)) && (wide_random ? memcmp(in->random80, got->random80, 10) != 0
                                          : in->random != got->random)) return false;
    if ((h & BIT(RANDOM80)) && memcmp(in->random80, got->random80, 10) != 0) return false;
    for (unsigned id = 0; id < TOID_FIELD_COUNT; id++) {
        const uint32_t *a = u32_member((toid_fields *)in, id);
        if (a && (h & (UINT32_C(1) << id)) && *a != *u32_member((toid_fields *)got, id))
            return false;
    }
    return true;
}

/* The value from the time and the sub-fields. */
static int make_from_parts(const toid__format *fmt, const toid_fields *in, int64_t e, uint8_t *out) {
    int64_t ts;
    if (in->has & BIT(UNIX_MS)) {
        if (in->unix_ms < e)
            return TOID_ERANGE;
        ts = in->unix_ms - e;
    } else if (in->has & BIT(TS)) {
        ts = in->ts;
    } else {
        return TOID_EINVAL;
    }
    if (ts < 0 || ts > max_ts(fmt))
        return TOID_ERANGE;
    toid__wide v = {{0, 0, 0}};
    toid__bits_or(&v, fmt->ts_shift, fmt->info.ts_bits, (uint64_t)ts);
    for (unsigned i = 0; i < fmt->nfields; i++) {
        const toid__field_layout *l = &fmt->fields[i];
        if (!(in->has & (UINT32_C(1) << l->id)))
            continue;
        if (l->width > 64) {
            /* random80[] holds exactly 80 bits: it always fits */
            uint64_t hi = ((uint64_t)in->random80[0] << 8) | in->random80[1];
            toid__bits_or(&v, l->shift, 64, toid__load64(in->random80 + 2));
            toid__bits_or(&v, l->shift + 64u, l->width - 64u, hi);
            continue;
        }
        uint64_t x = l->id == TOID_FIELD_RANDOM ? in->random
                                                 : *u32_member((toid_fields *)in, l->id);
        if (x >> l->width)
            return TOID_EINVAL;             /* wider than its bits */
        toid__bits_or(&v, l->shift, l->width, x);
    }
    toid__wide_store(v, out, fmt->info.bin_size);
    if (fmt->fixed_mask)
        for (unsigned i = 0; i < fmt->info.bin_size; i++)
            out[i] = (uint8_t)((out[i] & ~fmt->fixed_mask[i]) | fmt->fixed_bits[i]);
    return 0;
}

int toid_make(toid_format f, const toid_fields *in, int64_t epoch_ms, uint8_t *bin) {
    const toid__format *fmt = toid__format_of(f);
    int64_t e;
    if (!fmt || !in || !bin || toid__resolve_epoch(fmt, epoch_ms, &e) < 0)
        return TOID_EINVAL;
    if (in->has & ~field_set(fmt) & ~(BIT(TIME) | BIT(FORMAT) | BIT(TEXT)))
        return TOID_EINVAL;
    uint8_t out[TOID_BIN_MAX];
    unsigned size = fmt->info.bin_size;
    int rc;
    if (in->has & BIT(HEX))
        rc = toid_from_bytes(f, in->hex, size, out);
    else if (in->has & BIT(INT))
        rc = toid_from_u64(f, in->int_value, out);
    else
        rc = make_from_parts(fmt, in, e, out);
    if (rc < 0)
        return rc;
    toid_fields got;
    toid_inspect(f, out, e, &got);
    if (!consistent(fmt, in, &got))
        return TOID_EINVAL;
    memcpy(bin, out, size);
    return 0;
}

int toid_time_bounds(toid_format f, int64_t unix_ms, int64_t epoch_ms, uint8_t *lo, uint8_t *hi) {
    const toid__format *fmt = toid__format_of(f);
    int64_t e;
    if (!fmt || toid__resolve_epoch(fmt, epoch_ms, &e) < 0)
        return TOID_EINVAL;
    toid_fields t;
    memset(&t, 0, sizeof t);
    t.has = BIT(UNIX_MS);
    t.unix_ms = unix_ms;
    uint8_t low[TOID_BIN_MAX];
    int rc = make_from_parts(fmt, &t, e, low);
    if (rc < 0)
        return rc;
    unsigned size = fmt->info.bin_size;
    if (hi) {
        /* every bit below the timestamp set, then the fixed bits again */
        toid__wide v = toid__wide_load(low, size);
        for (unsigned b = 0; b < fmt->ts_shift; b += 64) {
            unsigned w = fmt->ts_shift - b < 64 ? fmt->ts_shift - b : 64;
            toid__bits_or(&v, b, w, w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1);
        }
        toid__wide_store(v, hi, size);
        if (fmt->fixed_mask)
            for (unsigned i = 0; i < size; i++)
                hi[i] = (uint8_t)((hi[i] & ~fmt->fixed_mask[i]) | fmt->fixed_bits[i]);
    }
    if (lo)
        memcpy(lo, low, size);
    return 0;
}

/* ---- FIELD=VALUE input ---- */

static int parse_i64(const char *s, size_t n, int64_t *out) {
    bool neg = n > 0 && s[0] == '-';
    uint64_t m;
    int rc = toid__dec_to_u64(s + neg, n - neg, &m);
    if (rc == TOID_EOVERFLOW || (rc == 0 && m > (uint64_t)INT64_MAX))
        return TOID_ERANGE;
    if (rc < 0)
        return rc;
    *out = neg ? -(int64_t)m : (int64_t)m;
    return 0;
}

static int parse_hex(const char *s, size_t n, uint8_t *out, size_t bytes) {
    if (n != 2 * bytes)
        return TOID_EINVAL;
    for (size_t i = 0; i < bytes; i++) {
        unsigned hi = toid__hex_dec[(unsigned char)s[2 * i]];
        unsigned lo = toid__hex_dec[(unsigned char)s[2 * i + 1]];
        if (hi == TOID__BAD || lo == TOID__BAD)
            return TOID_EINVAL;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

int toid_fields_set(toid_format f, toid_fields *fields, const char *name, size_t name_len,
                    const char *value, size_t value_len) {
    const toid__format *fmt = toid__format_of(f);
    if (!fmt || !fields || !name || (!value && value_len))
        return TOID_EINVAL;
    unsigned id = 0;
    while (id < TOID_FIELD_COUNT &&
           !(strlen(field_names[id]) == name_len && memcmp(field_names[id], name, name_len) == 0))
        id++;
    uint32_t allowed = field_set(fmt) & ~(BIT(FORMAT) | BIT(TEXT));
    if (id == TOID_FIELD_COUNT || !(allowed & (UINT32_C(1) << id)))
        return TOID_EINVAL;
    int rc = 0;
    uint64_t u;
    switch (id) {
    case TOID_FIELD_UNIX_MS: rc = parse_i64(value, value_len, &fields->unix_ms); break;
    case TOID_FIELD_TS: rc = parse_i64(value, value_len, &fields->ts); break;
    case TOID_FIELD_TIME:
        rc = toid_parse_time(value, value_len, &fields->unix_ms);
        id = TOID_FIELD_UNIX_MS;
        break;
    case TOID_FIELD_INT:
        if (value_len > 1 && value[0] == '-') {
            rc = toid__dec_to_u64(value + 1, value_len - 1, &u);
            if (rc == 0 || rc == TOID_EOVERFLOW)
                rc = TOID_EOVERFLOW;          /* a negative int */
        } else {
            rc = toid__dec_to_u64(value, value_len, &fields->int_value);
        }
        break;
    case TOID_FIELD_HEX: rc = parse_hex(value, value_len, fields->hex, fmt->info.bin_size); break;
    case TOID_FIELD_RANDOM:
        if (fmt->fields[0].width > 64)        /* ULID: 20 hex digits (RANDOM is its only field) */
            rc = parse_hex(value, value_len, fields->random80, 10);
        else if ((rc = toid__dec_to_u64(value, value_len, &fields->random)) == TOID_EOVERFLOW)
            rc = TOID_EINVAL;
        break;
    case TOID_FIELD_RANDOM80: rc = toid__dec_to_bytes(value, value_len, fields->random80, 10); break;
    case TOID_FIELD_RESERVED:
        if (value_len == 4 && memcmp(value, "true", 4) == 0)
            fields->reserved = 1;
        else if (value_len == 5 && memcmp(value, "false", 5) == 0)
            fields->reserved = 0;
        else
            rc = TOID_EINVAL;
        break;
    default:
        rc = toid__dec_to_u64(value, value_len, &u);
        if (rc == TOID_EOVERFLOW || (rc == 0 && u > UINT32_MAX))
            rc = TOID_EINVAL;
        if (rc == 0)
            *u32_member(fields, id) = (uint32_t)u;
        break;
    }
    if (rc < 0)
        return rc;
    fields->has |= UINT32_C(1) << id;
    return 0;
}

unsigned toid_field_bits(toid_format f, toid_field_id id) {
    const toid__format *fmt = toid__format_of(f);
    if (!fmt)
        return 0;
    for (unsigned i = 0; i < fmt->nfields; i++)
        if (fmt->fields[i].id == (uint8_t)id)
            return fmt->fields[i].width;
    return 0;
}
