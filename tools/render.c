/* render.c — the inspection of a value as JSON (byte for byte what
 * toid_inspect_json() writes) or as aligned "name: value" lines, fast enough
 * for millions of IDs: the field list of each format is learnt once from
 * toid_describe(), then each value costs one toid_inspect() and a few table
 * lookups; the time text is cached per ms and per day. A format whose fields
 * this file does not know is rendered through toid_describe() instead. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HUMAN_WIDTH 11   /* "generator: " — the longest name, its colon and a space */

typedef struct schema {
    int ready;
    int slow;                                   /* render through toid_describe */
    int n;
    toid_field_id id[TOID_FIELDS_MAX];
    toid_field_kind kind[TOID_FIELDS_MAX];
    const char *name[TOID_FIELDS_MAX];
    size_t name_len[TOID_FIELDS_MAX];
    char label[TOID_FIELDS_MAX][32];            /* "name:" and spaces, for human */
    size_t label_len[TOID_FIELDS_MAX];
    char jkey[TOID_FIELDS_MAX][32];             /* ,"name": and a quote, for JSON */
    size_t jkey_len[TOID_FIELDS_MAX];
    const char *format_name;
    size_t format_name_len;
} schema;

static schema schemas[TOID_FORMAT_COUNT];
static int check_mode = -1;                     /* TOID_CLI_CHECK */

/* ---- the time and unix_ms texts, cached per thread ---------------------------- */

typedef struct time_cache {
    int64_t ms, day;
    size_t time_len, ms_len;
    char time[48];
    char ms_text[24];
} time_cache;

static _Thread_local time_cache tc = {-1, -1, 0, 0, {0}, {0}};

static size_t put2(char *p, unsigned v) {
    p[0] = (char)('0' + v / 10);
    p[1] = (char)('0' + v % 10);
    return 2;
}

static void time_fill(int64_t ms) {
    int64_t day = ms >= 0 ? ms / 86400000 : -1;
    if (day >= 0 && day == tc.day && tc.time_len >= 13) {
        /* same day: rewrite "HH:MM:SS.mmmZ" after the cached date */
        unsigned rem = (unsigned)(ms % 86400000);
        char *p = tc.time + tc.time_len - 13;
        p += put2(p, rem / 3600000);
        *p++ = ':';
        p += put2(p, rem / 60000 % 60);
        *p++ = ':';
        p += put2(p, rem / 1000 % 60);
        *p++ = '.';
        unsigned m = rem % 1000;
        *p++ = (char)('0' + m / 100);
        put2(p, m % 100);
    } else {
        int n = toid_format_time(ms, tc.time, sizeof tc.time);
        tc.time_len = n > 0 ? (size_t)n : 0;
        tc.day = n > 0 ? day : -1;
    }
    tc.ms_len = cli_i64_dec(ms, tc.ms_text);
    tc.ms = ms;
}

static size_t time_text(int64_t ms, char *out) {
    if (ms != tc.ms)
        time_fill(ms);
    memcpy(out, tc.time, 32);           /* a constant size: one or two moves */
    return tc.time_len;
}

static size_t unix_ms_text(int64_t ms, char *out) {
    if (ms != tc.ms)
        time_fill(ms);
    memcpy(out, tc.ms_text, sizeof tc.ms_text);
    return tc.ms_len;
}

/* ---- an 80-bit big-endian value in decimal ----------------------------------- */

static size_t bytes_dec(const uint8_t *b, size_t n, char *out) {
    uint32_t limb[8];             /* base 2^16, most significant first */
    size_t nl = (n + 1) / 2;
    for (size_t i = 0; i < nl; i++) {
        size_t lo = n - 1 - 2 * (nl - 1 - i);   /* index of the limb's low byte */
        limb[i] = (uint32_t)(lo ? b[lo - 1] : 0) << 8 | b[lo];
    }
    char tmp[32];
    size_t t = sizeof tmp;
    for (;;) {
        uint32_t rem = 0;
        int nonzero = 0;
        for (size_t i = 0; i < nl; i++) {  /* divide by 10^4 */
            uint32_t cur = rem << 16 | limb[i];
            limb[i] = cur / 10000;
            rem = cur % 10000;
            nonzero |= limb[i] != 0;
        }
        for (int d = 0; d < 4; d++) {
            tmp[--t] = (char)('0' + rem % 10);
            rem /= 10;
        }
        if (!nonzero)
            break;
    }
    while (t < sizeof tmp - 1 && tmp[t] == '0')
        t++;
    memcpy(out, tmp + t, sizeof tmp - t);
    return sizeof tmp - t;
}

/* ---- one field's value -------------------------------------------------------- */

static size_t value_of(const schema *s, int i, toid_format f, const uint8_t *bin,
                       const toid_fields *v, char *out) {
    switch (s->id[i]) {
    case TOID_FIELD_FORMAT:
        memcpy(out, s->format_name, s->format_name_len);
        return s->format_name_len;
    case TOID_FIELD_TEXT: {
        int n = toid_encode(f, bin, out, TOID_TEXT_MAX);
        return n > 0 ? (size_t)n : 0;
    }
    case TOID_FIELD_UNIX_MS:
        return unix_ms_text(v->unix_ms, out);
    case TOID_FIELD_TIME:
        return time_text(v->unix_ms, out);
    case TOID_FIELD_HEX:
        return cli_hex(bin, toid_bin_size(f), out);
    case TOID_FIELD_INT:
        return cli_u64_dec(v->int_value, out);
    case TOID_FIELD_TS:
        return cli_i64_dec(v->ts, out);
    case TOID_FIELD_RANDOM:
        return s->kind[i] == TOID_KIND_STRING ? cli_hex(v->random80, 10, out)
                                              : cli_u64_dec(v->random, out);
    case TOID_FIELD_RANDOM80:
        return bytes_dec(v->random80, 10, out);
    case TOID_FIELD_SID:
        return cli_u64_dec(v->sid, out);
    case TOID_FIELD_COUNTER:
        return cli_u64_dec(v->counter, out);
    case TOID_FIELD_RANDOM16:
        return cli_u64_dec(v->random16, out);
    case TOID_FIELD_GENERATOR:
        return cli_u64_dec(v->generator, out);
    case TOID_FIELD_SEQUENCE:
        return cli_u64_dec(v->sequence, out);
    case TOID_FIELD_RESERVED:
        memcpy(out, v->reserved ? "true" : "false", v->reserved ? 4 : 5);
        return v->reserved ? 4 : 5;
    default:
        return 0;
    }
}

/* ---- the two layouts ---------------------------------------------------------- */

static size_t json_fast(const schema *s, toid_format f, const uint8_t *bin, const toid_fields *v,
                        char *out) {
    char *p = out;
    *p++ = '{';
    for (int i = 0; i < s->n; i++) {
        memcpy(p, s->jkey[i], sizeof s->jkey[i]);   /* a constant size */
        p += s->jkey_len[i];
        p += value_of(s, i, f, bin, v, p);
        if (s->kind[i] == TOID_KIND_STRING)
            *p++ = '"';
    }
    *p++ = '}';
    return (size_t)(p - out);
}

static char *human_name(char *p, const char *name, size_t n) {
    memcpy(p, name, n);
    p[n] = ':';
    memset(p + n + 1, ' ', n + 1 < HUMAN_WIDTH ? HUMAN_WIDTH - n - 1 : 1);
    return p + (n + 1 < HUMAN_WIDTH ? HUMAN_WIDTH : n + 2);
}

static size_t human_fast(const schema *s, toid_format f, const uint8_t *bin, const toid_fields *v,
                         char *out) {
    char *p = out;
    for (int i = 0; i < s->n; i++) {
        memcpy(p, s->label[i], sizeof s->label[i]);   /* a constant size */
        p += s->label_len[i];
        p += value_of(s, i, f, bin, v, p);
        *p++ = '\n';
    }
    return (size_t)(p - out);
}

static size_t human_slow(toid_format f, const uint8_t *bin, int64_t epoch_ms, char *out) {
    toid_field fl[TOID_FIELDS_MAX];
    int n = toid_describe(f, bin, epoch_ms, fl);
    char *p = out;
    for (int i = 0; i < n; i++) {
        p = human_name(p, fl[i].name, strlen(fl[i].name));
        size_t k = strlen(fl[i].value);
        memcpy(p, fl[i].value, k);
        p += k;
        *p++ = '\n';
    }
    return (size_t)(p - out);
}

static size_t json_slow(toid_format f, const uint8_t *bin, int64_t epoch_ms, char *out) {
    int n = toid_inspect_json(f, bin, epoch_ms, out, RENDER_MAX);
    return n > 0 ? (size_t)n : 0;
}

static void check_failed(const char *what, toid_format f, const char *a, size_t na, const char *b,
                         size_t nb) {
    fprintf(stderr, "toid: internal check failed (%s, %s):\n  %.*s\n  %.*s\n", what,
            toid_format_get(f)->name, (int)na, a, (int)nb, b);
    abort();
}

/* ---- learning a format's fields --------------------------------------------------- */

static int supported(toid_field_id id) { return (unsigned)id < TOID_FIELD_COUNT; }

static const schema *schema_of(toid_format f) {
    schema *s = &schemas[f];
    if (s->ready)
        return s;
    if (check_mode < 0) {
        const char *e = getenv("TOID_CLI_CHECK");
        check_mode = e && *e && strcmp(e, "0") != 0;
    }
    s->ready = 1;
    s->slow = 1;
    const toid_format_info *fi = toid_format_get(f);
    int64_t lo_ms, hi_ms;
    uint8_t sample[2][TOID_BIN_MAX];
    toid_field fl[TOID_FIELDS_MAX];
    if (!fi || toid_time_span(f, TOID_EPOCH_DEFAULT, &lo_ms, &hi_ms) < 0 ||
        toid_time_bounds(f, lo_ms, TOID_EPOCH_DEFAULT, sample[0], NULL) < 0 ||
        toid_time_bounds(f, hi_ms, TOID_EPOCH_DEFAULT, NULL, sample[1]) < 0)
        return s;
    int n = toid_describe(f, sample[1], TOID_EPOCH_DEFAULT, fl);
    if (n <= 0 || n > TOID_FIELDS_MAX)
        return s;
    s->n = n;
    s->format_name = fi->name;
    s->format_name_len = strlen(fi->name);
    for (int i = 0; i < n; i++) {
        if (!supported(fl[i].id))
            return s;
        s->id[i] = fl[i].id;
        s->kind[i] = fl[i].kind;
        s->name[i] = fl[i].name;
        s->name_len[i] = strlen(fl[i].name);
        if (s->name_len[i] > 16)
            return s;
        s->label_len[i] = (size_t)(human_name(s->label[i], s->name[i], s->name_len[i]) - s->label[i]);
        int q = fl[i].kind == TOID_KIND_STRING;
        s->jkey_len[i] = (size_t)snprintf(s->jkey[i], sizeof s->jkey[i], "%s\"%s\":%s",
                                          i ? "," : "", s->name[i], q ? "\"" : "");
    }
    /* the fast path must agree with the library on both samples */
    s->slow = 0;
    for (int k = 0; k < 2; k++) {
        char a[RENDER_MAX], b[RENDER_MAX];
        toid_fields v;
        if (toid_inspect(f, sample[k], TOID_EPOCH_DEFAULT, &v) < 0) {
            s->slow = 1;
            break;
        }
        size_t na = json_fast(s, f, sample[k], &v, a);
        size_t nb = json_slow(f, sample[k], TOID_EPOCH_DEFAULT, b);
        if (na != nb || memcmp(a, b, na) != 0) {
            if (check_mode)   /* the tests want the fast path, not the fallback */
                check_failed("schema", f, a, na, b, nb);
            s->slow = 1;
            break;
        }
    }
    tc.ms = tc.day = -1;
    return s;
}


size_t render_json(toid_format f, const uint8_t *bin, int64_t epoch_ms, char *out) {
    const schema *s = schema_of(f);
    toid_fields v;
    if (s->slow || toid_inspect(f, bin, epoch_ms, &v) < 0)
        return json_slow(f, bin, epoch_ms, out);
    size_t n = json_fast(s, f, bin, &v, out);
    if (check_mode) {
        char ref[RENDER_MAX];
        size_t nr = json_slow(f, bin, epoch_ms, ref);
        if (nr != n || memcmp(ref, out, n) != 0)
            check_failed("json", f, out, n, ref, nr);
    }
    return n;
}

size_t render_human(toid_format f, const uint8_t *bin, int64_t epoch_ms, char *out) {
    const schema *s = schema_of(f);
    toid_fields v;
    if (s->slow || toid_inspect(f, bin, epoch_ms, &v) < 0)
        return human_slow(f, bin, epoch_ms, out);
    size_t n = human_fast(s, f, bin, &v, out);
    if (check_mode) {
        char ref[RENDER_MAX];
        size_t nr = human_slow(f, bin, epoch_ms, ref);
        if (nr != n || memcmp(ref, out, n) != 0)
            check_failed("human", f, out, n, ref, nr);
    }
    return n;
}
