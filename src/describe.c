/* describe.c — a value's fields as text: toid_describe (named fields) and
 * toid_inspect_json (one JSON object), both from one writer of each field's
 * text. Fast enough for millions of IDs (the CLI's `inspect` and `new --json`,
 * toidd's /v1/inspect): one toid_inspect, keys and lengths from tables built
 * at compile time (no strlen), decimal and hex by digit pairs, and the time
 * text cached per thread (the same ms is a copy, the same day rewrites only
 * the time of day). No locks, no allocation. */
#include "bits.h"
#include "codec.h"

/* ---- tables from the X-macros ---------------------------------------------- */

typedef struct piece {
    char s[23];
    uint8_t len;
} piece;

/* ,"name": for every field id (the first field skips the comma) */
static const piece json_key[TOID_FIELD_COUNT] = {
#define TOID__KEY(id, name) {",\"" name "\":", sizeof(",\"" name "\":") - 1},
    TOID_FIELD_LIST(TOID__KEY)
#undef TOID__KEY
};

/* name: and the spaces to the value's column, for the aligned lines */
#define LABEL_WIDTH 11   /* "generator: " — the longest name, its colon and a space */
static const piece label[TOID_FIELD_COUNT] = {
#define TOID__LABEL(id, name) {name ":          ", sizeof(name) + 1 < LABEL_WIDTH ? LABEL_WIDTH : sizeof(name) + 1},
    TOID_FIELD_LIST(TOID__LABEL)
#undef TOID__LABEL
};

static const piece format_name[TOID_FORMAT_COUNT] = {
#define TOID__NAME(id, tok, name) {name, sizeof(name) - 1},
    TOID_FORMAT_LIST(TOID__NAME)
#undef TOID__NAME
};

/* ---- the fields a format reports, in order --------------------------------------- */

typedef struct row {
    uint8_t id;     /* toid_field_id */
    uint8_t kind;   /* toid_field_kind */
    uint8_t wide;   /* an 80-bit field (random80[]) */
} row;

#define ROW(i, k, w) (row){(uint8_t)(i), (uint8_t)(k), (uint8_t)(w)}

/* The order toid.h promises: format, text, unix_ms, time, hex, then int, ts,
 * the format's own fields, reserved. Returns the count. */
static int rows_of(const toid__format *fmt, row *r) {
    int n = 0;
    r[n++] = ROW(TOID_FIELD_FORMAT, TOID_KIND_STRING, 0);
    r[n++] = ROW(TOID_FIELD_TEXT, TOID_KIND_STRING, 0);
    r[n++] = ROW(TOID_FIELD_UNIX_MS, TOID_KIND_NUMBER, 0);
    r[n++] = ROW(TOID_FIELD_TIME, TOID_KIND_STRING, 0);
    r[n++] = ROW(TOID_FIELD_HEX, TOID_KIND_STRING, 0);
    if (fmt->info.has_int)
        r[n++] = ROW(TOID_FIELD_INT, TOID_KIND_STRING, 0);      /* 64 bits: a string in JSON */
    if (fmt->info.default_epoch_ms != 0)
        r[n++] = ROW(TOID_FIELD_TS, TOID_KIND_NUMBER, 0);
    for (unsigned i = 0; i < fmt->nfields; i++) {
        unsigned wide = fmt->fields[i].width > 64;              /* 80 bits: a string */
        r[n++] = ROW(fmt->fields[i].id, wide ? TOID_KIND_STRING : TOID_KIND_NUMBER, wide);
    }
    if (fmt->has_reserved)
        r[n++] = ROW(TOID_FIELD_RESERVED, TOID_KIND_BOOL, 0);
    return n;
}

/* ---- the time and unix_ms texts, cached per thread ------------------------------ */

typedef struct time_cache {
    int64_t ms, day;
    uint8_t time_len, ms_len;
    char time[32];
    char ms_text[24];
} time_cache;

#define MS_PER_DAY INT64_C(86400000)
#define TIME_OF_DAY_LEN 13   /* "HH:MM:SS.mmmZ" */

static _Thread_local time_cache tc = {INT64_MIN, -1, 0, 0, {0}, {0}};

static void time_fill(int64_t ms) {
    int64_t day = ms >= 0 ? ms / MS_PER_DAY : -1;
    if (day >= 0 && day == tc.day) {
        toid__time_of_day(tc.time + tc.time_len - TIME_OF_DAY_LEN, (uint32_t)(ms % MS_PER_DAY));
    } else {
        int n = toid_format_time(ms, tc.time, sizeof tc.time);
        tc.time_len = (uint8_t)(n > 0 ? n : 0);   /* out of range: an empty time */
        tc.day = n > 0 ? day : -1;
    }
    tc.ms_len = (uint8_t)(ms < 0 ? 1 + toid__u64_to_dec((uint64_t)0 - (uint64_t)ms, tc.ms_text + 1)
                                 : toid__u64_to_dec((uint64_t)ms, tc.ms_text));
    tc.ms_text[0] = ms < 0 ? '-' : tc.ms_text[0];
    tc.ms = ms;
}

/* ---- one field's text ------------------------------------------------------------ */

static uint64_t small_field(const toid_fields *v, unsigned id) {
    switch (id) {
    case TOID_FIELD_SID: return v->sid;
    case TOID_FIELD_COUNTER: return v->counter;
    case TOID_FIELD_RANDOM16: return v->random16;
    case TOID_FIELD_GENERATOR: return v->generator;
    case TOID_FIELD_SEQUENCE: return v->sequence;
    default: return v->random;
    }
}

/* Writes the text of field r (no NUL) and returns its length; out has room
 * for 48 bytes. */
static size_t value_of(const toid__format *fmt, toid_format f, row r, const uint8_t *bin,
                       const toid_fields *v, char *out) {
    switch (r.id) {
    case TOID_FIELD_FORMAT:
        memcpy(out, format_name[f].s, sizeof format_name[f].s);   /* a constant size */
        return format_name[f].len;
    case TOID_FIELD_TEXT:
        fmt->encode(bin, out);
        return fmt->info.text_len;
    case TOID_FIELD_UNIX_MS:
        memcpy(out, tc.ms_text, sizeof tc.ms_text);
        return tc.ms_len;
    case TOID_FIELD_TIME:
        memcpy(out, tc.time, sizeof tc.time);
        return tc.time_len;
    case TOID_FIELD_HEX:
        toid__hex_put(bin, fmt->info.bin_size, out);
        return 2u * fmt->info.bin_size;
    case TOID_FIELD_INT:
        return toid__u64_to_dec(v->int_value, out);
    case TOID_FIELD_TS:
        return toid__u64_to_dec((uint64_t)v->ts, out);
    case TOID_FIELD_RESERVED:
        memcpy(out, v->reserved ? "true" : "false", 5);
        return v->reserved ? 4 : 5;
    default:
        if (r.wide && r.id == TOID_FIELD_RANDOM) {          /* ULID: 20 hex digits */
            toid__hex_put(v->random80, 10, out);
            return 20;
        }
        if (r.wide)                                        /* random80: decimal */
            return toid__bytes_to_dec(v->random80, 10, out);
        return toid__u64_to_dec(small_field(v, r.id), out);
    }
}

/* The fields of bin into rows and *v, and the time cache set for its ms. */
static int prepare(toid_format f, const uint8_t *bin, int64_t epoch_ms, row *rows, toid_fields *v) {
    int rc = toid_inspect(f, bin, epoch_ms, v);
    if (rc < 0)
        return rc;
    if (v->unix_ms != tc.ms)
        time_fill(v->unix_ms);
    return rows_of(toid__format_of(f), rows);
}

/* ---- the two entry points ----------------------------------------------------------- */

int toid_describe(toid_format f, const uint8_t *bin, int64_t epoch_ms, toid_field *out) {
    row rows[TOID_FIELDS_MAX];
    toid_fields v;
    if (!out)
        return TOID_EINVAL;
    int n = prepare(f, bin, epoch_ms, rows, &v);
    const toid__format *fmt = toid__format_of(f);
    for (int i = 0; i < n; i++) {
        toid_field *o = &out[i];
        o->id = (toid_field_id)rows[i].id;
        o->name = toid_field_name(o->id);
        o->kind = (toid_field_kind)rows[i].kind;
        o->value[value_of(fmt, f, rows[i], bin, &v, o->value)] = '\0';
    }
    return n;
}

/* The longest text any format writes is under 300 bytes; the writers copy
 * pieces of constant size (up to 32 bytes) past their end, so they write
 * into the caller's buffer only when it has this much room. */
#define ROOM 512

typedef size_t writer(toid_format f, const row *rows, int n, const uint8_t *bin,
                      const toid_fields *v, char *out);

static size_t json_write(toid_format f, const row *rows, int n, const uint8_t *bin,
                         const toid_fields *v, char *out) {
    const toid__format *fmt = toid__format_of(f);
    char *p = out;
    *p++ = '{';
    for (int i = 0; i < n; i++) {
        const piece *k = &json_key[rows[i].id];
        memcpy(p, k->s + (i == 0), sizeof k->s - 1);        /* a constant size */
        p += k->len - (i == 0);
        int quote = rows[i].kind == TOID_KIND_STRING;       /* values never need escaping */
        *p = '"';
        p += quote;
        p += value_of(fmt, f, rows[i], bin, v, p);
        *p = '"';
        p += quote;
    }
    *p++ = '}';
    *p = '\0';
    return (size_t)(p - out);
}

static size_t text_write(toid_format f, const row *rows, int n, const uint8_t *bin,
                         const toid_fields *v, char *out) {
    const toid__format *fmt = toid__format_of(f);
    char *p = out;
    for (int i = 0; i < n; i++) {
        const piece *k = &label[rows[i].id];
        memcpy(p, k->s, sizeof k->s);                       /* a constant size */
        p += k->len;
        p += value_of(fmt, f, rows[i], bin, v, p);
        *p++ = '\n';
    }
    *p = '\0';
    return (size_t)(p - out);
}

/* Straight into out when it has ROOM, else through a buffer that has. */
static int render(toid_format f, const uint8_t *bin, int64_t epoch_ms, char *out, size_t out_size,
                  writer *w) {
    row rows[TOID_FIELDS_MAX];
    toid_fields v;
    if (!out)
        return TOID_EINVAL;
    int n = prepare(f, bin, epoch_ms, rows, &v);
    if (n < 0)
        return n;
    if (out_size >= ROOM)
        return (int)w(f, rows, n, bin, &v, out);
    char tmp[ROOM];
    size_t len = w(f, rows, n, bin, &v, tmp);
    if (len >= out_size)
        return TOID_EBUFFER;
    memcpy(out, tmp, len + 1);
    return (int)len;
}

int toid_inspect_json(toid_format f, const uint8_t *bin, int64_t epoch_ms, char *out, size_t out_size) {
    return render(f, bin, epoch_ms, out, out_size, json_write);
}

int toid_inspect_text(toid_format f, const uint8_t *bin, int64_t epoch_ms, char *out, size_t out_size) {
    return render(f, bin, epoch_ms, out, out_size, text_write);
}
