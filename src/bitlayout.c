/* bitlayout.c — toid_layout: a format's bit layout as data (name, bits,
 * characters of each field), derived from the descriptor (format.h) so that
 * every picture of an ID (the CLI's inspect --layout, toidd's page) draws
 * from the same facts. Nothing here knows a format by name. */
#include "bits.h"
#include "codec.h"

/* Bits per character of the positional power-of-two alphabets; 0 where a
 * character depends on the whole value (base36, Base58). */
static unsigned char_bits(const char *alphabet) {
    if (strcmp(alphabet, "crockford32") == 0 || strcmp(alphabet, "base32hex") == 0)
        return 5;
    if (strcmp(alphabet, "hex") == 0)
        return 4;
    return 0;
}

/* 1 if every bit of [offset, offset + width) is fixed by the format, and
 * their value into *value. */
static int fixed_run(const toid__format *fmt, unsigned offset, unsigned width, uint64_t *value) {
    if (!fmt->fixed_mask)
        return 0;
    uint64_t v = 0;
    for (unsigned b = offset; b < offset + width; b++) {
        unsigned byte = b / 8, bit = 7u - b % 8;
        if (!(fmt->fixed_mask[byte] >> bit & 1u))
            return 0;
        v = v << 1 | (uint64_t)(fmt->fixed_bits[byte] >> bit & 1u);
    }
    *value = v;
    return 1;
}

static void put(toid_layout_field *o, const char *name, toid_layout_kind kind, int id,
                unsigned offset, unsigned width) {
    memset(o, 0, sizeof *o);
    o->name = name;
    o->kind = kind;
    o->field_id = id;
    o->bit_offset = offset;
    o->bit_width = width;
    o->char_start = -1;
}

/* The character spans (see toid.h): the text holds the value's bits after
 * `pad` leading zero bits, k bits a digit, with separators (hyphens) at the
 * places the encoder puts them. */
static void char_spans(const toid__format *fmt, toid_layout_field *l, int n) {
    unsigned k = char_bits(fmt->info.alphabet), size = fmt->info.bin_size;
    if (!k)
        return;
    /* where the separators are: encode a valid value and look */
    uint8_t bin[TOID_BIN_MAX] = {0};
    char text[TOID_TEXT_MAX];
    if (fmt->fixed_mask)
        memcpy(bin, fmt->fixed_bits, size);
    fmt->encode(bin, text);
    unsigned digit_at[TOID_TEXT_MAX], digits = 0;
    for (unsigned i = 0; i < fmt->info.text_len; i++)
        if (text[i] != '-')
            digit_at[digits++] = i;
    unsigned pad = digits * k - 8 * size;
    unsigned from = 0;                      /* text bits not yet given to a field */
    for (int i = 0; i < n; i++) {
        unsigned end = pad + l[i].bit_offset + l[i].bit_width;
        if (from % k == 0 && end % k == 0) {
            unsigned first = digit_at[from / k], last = digit_at[end / k - 1];
            l[i].char_start = (int)first;
            l[i].char_len = last - first + 1;
            from = end;
        } else if (l[i].kind != TOID_LAYOUT_FIXED) {
            from = end;                     /* a fixed run goes with the next field */
        }
    }
}

int toid_layout(toid_format f, toid_layout_field *out) {
    const toid__format *fmt = toid__format_of(f);
    if (!fmt || !out)
        return TOID_EINVAL;
    unsigned total = 8u * fmt->info.bin_size;
    int n = 0;
    if (fmt->info.bits < total) {           /* the 63-bit formats' top bit */
        put(&out[n], "zero", TOID_LAYOUT_FIXED, -1, 0, total - fmt->info.bits);
        n++;
    }
    bool ts = fmt->info.default_epoch_ms != 0;
    put(&out[n++], ts ? "ts" : "unix_ms", TOID_LAYOUT_TIME, ts ? TOID_FIELD_TS : TOID_FIELD_UNIX_MS,
        total - fmt->ts_shift - fmt->info.ts_bits, fmt->info.ts_bits);
    for (unsigned i = 0; i < fmt->nfields; i++) {
        const toid__field_layout *fl = &fmt->fields[i];
        put(&out[n++], toid_field_name((toid_field_id)fl->id), TOID_LAYOUT_FIELD, fl->id,
            total - fl->shift - fl->width, fl->width);
    }
    for (unsigned i = 0; i < fmt->nextra; i++) {
        const toid__span *e = &fmt->extra[i];
        uint64_t v = 0;
        int fixed = fixed_run(fmt, e->offset, e->width, &v);
        put(&out[n], e->name, fixed ? TOID_LAYOUT_FIXED : TOID_LAYOUT_OTHER, -1, e->offset, e->width);
        out[n++].fixed_value = v;
    }
    for (int i = 1; i < n; i++)             /* most significant first */
        for (int j = i; j > 0 && out[j].bit_offset < out[j - 1].bit_offset; j--) {
            toid_layout_field t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    char_spans(fmt, out, n);
    return n;
}

int toid_layout_value(toid_format f, const uint8_t *bin, int64_t epoch_ms,
                      const toid_layout_field *field, char *out, size_t out_size) {
    const toid__format *fmt = toid__format_of(f);
    if (!fmt || !bin || !field || !out)
        return TOID_EINVAL;
    unsigned total = 8u * fmt->info.bin_size;
    if (field->bit_width == 0 || field->bit_offset >= total || field->bit_width > total - field->bit_offset)
        return TOID_EINVAL;
    char buf[48];
    size_t len;
    if (field->field_id >= 0) {
        toid_field d[TOID_FIELDS_MAX];
        int nd = toid_describe(f, bin, epoch_ms, d);
        if (nd < 0)
            return nd;
        int i = 0;
        while (i < nd && (int)d[i].id != field->field_id)
            i++;
        if (i == nd)
            return TOID_EINVAL;
        len = strlen(d[i].value);
        memcpy(buf, d[i].value, len);
    } else {
        if (field->bit_width > 64)
            return TOID_EINVAL;
        toid__wide v = toid__wide_load(bin, fmt->info.bin_size);
        len = toid__u64_to_dec(
            toid__bits_get(&v, total - field->bit_offset - field->bit_width, field->bit_width), buf);
    }
    if (len + 1 > out_size)
        return TOID_EBUFFER;
    memcpy(out, buf, len);
    out[len] = '\0';
    return (int)len;
}

int toid_at_time_unique(toid_format f, unsigned *free_bits) {
    toid_layout_field lay[TOID_LAYOUT_MAX];
    int n = toid_layout(f, lay);
    if (n < 0)
        return TOID_EINVAL;
    unsigned bits = 0;
    for (int i = 0; i < n; i++)
        if (lay[i].kind == TOID_LAYOUT_FIELD || lay[i].kind == TOID_LAYOUT_OTHER)
            bits += lay[i].bit_width;
    if (free_bits)
        *free_bits = bits;
    const toid_format_info *fi = toid_format_get(f);
    return fi->generates && fi->node_max == 0 && fi->caller_node_bits == 0 && bits >= 62;
}
