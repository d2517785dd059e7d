/* cmd_formats.c — toid formats: the table of formats (toid_format_get). */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char help_text[] =
    "Usage: toid formats [--json]\n"
    "Print the table of formats: name, significant bits, canonical text length,\n"
    "alphabet, default epoch (* if configurable) and specification. The last\n"
    "rows, \"read only\", are the layouts reference libraries write where they\n"
    "depart from their spec: toid reads them when named (-f), never generates\n"
    "nor detects them.\n"
    "\n"
    "      --json     a JSON array, one object per format (with every property of\n"
    "                 toid_format_info, and its fields' names, widths, largest\n"
    "                 values and help)\n"
    "  -h, --help     show this help\n";

enum { OPT_JSON = 1 };

static const cli_option options[] = {{"json", 0, 0, OPT_JSON}, {NULL, 0, 0, 0}};

static void json_string(const char *s) {
    static const char hexd[] = "0123456789abcdef";
    out_char('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            out_char('\\');
            out_char((char)c);
        } else if (c < 0x20) {
            char e[6] = {'\\', 'u', '0', '0', hexd[c >> 4], hexd[c & 15]};
            out_write(e, 6);
        } else {
            out_char((char)c);
        }
    }
    out_char('"');
}

static void json_number(const char *key, int64_t v, int first) {
    char b[32];
    if (!first)
        out_char(',');
    json_string(key);
    out_char(':');
    out_write(b, (size_t)snprintf(b, sizeof b, "%" PRId64, v));
}

static void json_bool(const char *key, int v) {
    out_char(',');
    json_string(key);
    out_str(v ? ":true" : ":false");
}

/* 2^bits - 1 in decimal, bits <= 128: long division by 10 of the value
 * in 32-bit limbs (no 128-bit type needed). */
static void max_text(unsigned bits, char *out) {
    uint32_t limb[4] = {0, 0, 0, 0};          /* most significant first */
    for (unsigned b = 0; b < bits && b < 128; b++)
        limb[3 - b / 32] |= UINT32_C(1) << (b % 32);
    char rev[48];
    size_t n = 0;
    do {
        uint64_t rem = 0;
        for (int k = 0; k < 4; k++) {
            uint64_t cur = rem << 32 | limb[k];
            limb[k] = (uint32_t)(cur / 10);
            rem = cur % 10;
        }
        rev[n++] = (char)('0' + rem);
    } while (limb[0] | limb[1] | limb[2] | limb[3]);
    for (size_t k = 0; k < n; k++)
        out[k] = rev[n - 1 - k];
    out[n] = '\0';
}

/* "fields": the format's fields from its layout (toid_layout): name, width,
 * largest value (up to 64 bits) and one line of help (toid_field_help); the
 * time and the sub-fields toid_make takes, not fixed bits. */
static void print_fields(toid_format f) {
    toid_layout_field lay[TOID_LAYOUT_MAX];
    int n = toid_layout(f, lay), first = 1;
    out_str(",\"fields\":[");
    for (int i = 0; i < n; i++) {
        if (lay[i].kind != TOID_LAYOUT_TIME && lay[i].kind != TOID_LAYOUT_FIELD)
            continue;
        out_str(first ? "{\"name\":" : ",{\"name\":");
        json_string(lay[i].name);
        json_number("bits", lay[i].bit_width, 0);
        /* the range, 0 .. 2^bits - 1: a number up to 2^53 - 1, else text
         * (as the other 64-bit numbers here) */
        char max[48];
        max_text(lay[i].bit_width, max);
        out_str(lay[i].bit_width <= 53 ? ",\"max\":" : ",\"max\":\"");
        out_str(max);
        if (lay[i].bit_width > 53)
            out_char('"');
        const char *help = toid_field_help((toid_field_id)lay[i].field_id);
        if (help) {
            out_str(",\"help\":");
            json_string(help);
        }
        out_char('}');
        first = 0;
    }
    out_char(']');
}

static void print_json(void) {
    out_str("[\n");
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        const toid_format_info *fi = toid_format_get((toid_format)f);
        char t[48], b[32];
        out_str("{\"name\":");
        json_string(fi->name);
        json_number("bits", fi->bits, 0);
        json_number("bin_size", fi->bin_size, 0);
        json_number("text_len", fi->text_len, 0);
        json_number("text_len_min", fi->text_len_min, 0);
        json_number("text_len_alt", fi->text_len_alt, 0);
        out_str(",\"alphabet\":");
        json_string(fi->alphabet);
        json_number("default_epoch_ms", fi->default_epoch_ms, 0);
        out_str(",\"default_epoch\":");
        json_string(toid_format_time(fi->default_epoch_ms, t, sizeof t) > 0 ? t : "");
        json_bool("epoch_configurable", fi->epoch_configurable);
        json_bool("has_int", fi->has_int);
        out_str(",\"int_max\":");
        if (fi->has_int) {
            snprintf(b, sizeof b, "%" PRIu64, fi->int_max);
            json_string(b);
        } else {
            out_str("null");
        }
        json_number("ts_bits", fi->ts_bits, 0);
        out_str(",\"spec\":");
        json_string(fi->spec);
        json_number("node_bits", fi->node_bits, 0);
        json_number("node_max", fi->node_max, 0);
        json_number("caller_node_bits", fi->caller_node_bits, 0);
        json_bool("random_order", fi->random_order);
        json_number("detect_rank", fi->detect_rank, 0);
        json_bool("detected", fi->detected);
        json_bool("text_lower", fi->text_lower);
        json_bool("generates", fi->generates);
        out_str(",\"variant_of\":");
        if (fi->variant_of)
            json_string(fi->variant_of);
        else
            out_str("null");
        print_fields((toid_format)f);
        out_str(f + 1 < TOID_FORMAT_COUNT ? "},\n" : "}\n");
    }
    out_str("]\n");
}

static void print_table(void) {
    size_t wname = 4, walpha = 8;
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        const toid_format_info *fi = toid_format_get((toid_format)f);
        if (strlen(fi->name) > wname)
            wname = strlen(fi->name);
        if (strlen(fi->alphabet) > walpha)
            walpha = strlen(fi->alphabet);
    }
    char line[512];
    int n = snprintf(line, sizeof line, "%-*s  %4s  %5s  %-*s  %-25s  %s\n", (int)wname, "NAME", "BITS",
                     "LEN", (int)walpha, "ALPHABET", "EPOCH", "SPEC");
    out_write(line, (size_t)n);
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        const toid_format_info *fi = toid_format_get((toid_format)f);
        char t[48], len[16], epoch[64];
        if (toid_format_time(fi->default_epoch_ms, t, sizeof t) < 0)
            t[0] = '\0';
        snprintf(epoch, sizeof epoch, "%s%s", t, fi->epoch_configurable ? "*" : "");
        if (fi->text_len_alt)
            snprintf(len, sizeof len, "%u/%u", fi->text_len, fi->text_len_alt);
        else
            snprintf(len, sizeof len, "%u", fi->text_len);
        n = snprintf(line, sizeof line, "%-*s  %4u  %5s  %-*s  %-25s  %s\n", (int)wname, fi->name,
                     fi->bits, len, (int)walpha, fi->alphabet, epoch, fi->spec);
        out_write(line, n > 0 && (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    }
}

int cmd_formats(int argc, char **argv) {
    cli_parser p;
    const char *v;
    int id, json = 0;
    cli_parser_init(&p, argc, argv);
    while ((id = cli_next(&p, options, &v)) != CLI_END) {
        switch (id) {
        case CLI_OPT_HELP:
            out_str(help_text);
            return CLI_EXIT_OK;
        case OPT_JSON:
            json = 1;
            break;
        case CLI_ARG:
            cli_usage("unexpected argument '%s'", cli_show(v));
        }
    }
    if (json)
        print_json();
    else
        print_table();
    return CLI_EXIT_OK;
}
