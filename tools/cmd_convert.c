/* cmd_convert.c — toid convert: the same value in another form (canonical
 * text, integer, hex, raw bytes; ULID <-> UUID). IDs come from the
 * arguments or the lines of stdin; --from bytes reads raw binary IDs. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char help_text[] =
    "Usage: toid convert --to KIND [-f FORMAT] [--from KIND] [ID]...\n"
    "Print each ID (the arguments, or else one per line of stdin) as another form\n"
    "of the same value, one per line.\n"
    "\n"
    "      --to KIND        text: the canonical text; int: the decimal integer\n"
    "                       (64-bit formats); hex: the whole value in hex; bytes:\n"
    "                       the binary form, raw, without line feeds; uuid: a\n"
    "                       128-bit value (ulid, uuidv7) as a hyphenated UUID;\n"
    "                       ulid: a 128-bit value, or a UUID of any version, as\n"
    "                       ULID text\n"
    "      --from KIND      how the IDs are written: text (default: any form the\n"
    "                       format reads, detected unless -f), int, hex, or bytes\n"
    "                       (raw binary on stdin); int, hex and bytes need -f\n"
    "  -f, --format FORMAT  the IDs' format (default: detect, as toid inspect)\n"
    "  -h, --help           show this help\n"
    "\n"
    "ULID and UUID share their 16 bytes: --to uuid of a ULID keeps them as they\n"
    "are (no version is set), --to ulid of a UUID likewise. Lines of stdin are\n"
    "read as pasted: surrounding spaces, tabs and CR are ignored and blank lines\n"
    "skipped (counted on stderr at the end). An invalid ID is reported on stderr\n"
    "and the rest go on; the exit status is then 1.\n";

enum { OPT_TO = 1, OPT_FROM, OPT_FORMAT };

static const cli_option options[] = {
    {"to", 0, 1, OPT_TO}, {"from", 0, 1, OPT_FROM}, {"format", 'f', 1, OPT_FORMAT}, {NULL, 0, 0, 0},
};

typedef enum kind { K_TEXT, K_INT, K_HEX, K_BYTES, K_UUID, K_ULID, K_NONE } kind;
static const char *const kind_names[] = {"text", "int", "hex", "bytes", "uuid", "ulid"};

static kind kind_of(const char *opt, const char *s, int to) {
    for (int k = 0; k < K_NONE; k++)
        if (strcmp(s, kind_names[k]) == 0 && (to || k <= K_BYTES))
            return (kind)k;
    cli_usage(to ? "bad value '%s' for %s (text, int, hex, bytes, uuid or ulid)"
                 : "bad value '%s' for %s (text, int, hex or bytes)",
              cli_show(s), opt);
}

static kind to = K_NONE, from = K_TEXT;
static int fixed;
static toid_format format;

/* Writes the value in the --to form. */
static void put(const char *input, size_t len, toid_format f, const uint8_t *bin) {
    char *o = out_reserve(TOID_TEXT_MAX + 48), *o0 = o;
    size_t size = toid_bin_size(f);
    switch (to) {
    case K_BYTES:
        memcpy(o, bin, size);
        out_commit(o + size);
        return;
    case K_INT:
        if (!toid_format_get(f)->has_int) {
            cli_fail("'%s': %s has no integer form (64-bit formats only) (invalid)", cli_show(input),
                     toid_format_get(f)->name);
            (void)len;
            return;
        }
        o += cli_put_as(CLI_AS_INT, f, bin, o);
        break;
    case K_HEX:
        o += cli_put_as(CLI_AS_HEX, f, bin, o);
        break;
    case K_UUID:
    case K_ULID:
        if (size != 16) {
            cli_fail("'%s': %s is not a 128-bit value; --to %s takes ulid or uuidv7 (invalid)",
                     cli_show(input), toid_format_get(f)->name, kind_names[to]);
            return;
        }
        if (to == K_ULID) {
            o += toid_encode(TOID_ULID, bin, o, TOID_TEXT_MAX);
        } else {
            char hex[33];
            toid_hex_encode(bin, 16, hex, sizeof hex);
            o += sprintf(o, "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12, hex + 16, hex + 20);
        }
        break;
    default:
        o += cli_put_as(CLI_AS_TEXT, f, bin, o);
        break;
    }
    *o++ = '\n';
    (void)o0;
    out_commit(o);
}

static void convert_one(const char *s, size_t len) {
    uint8_t bin[TOID_BIN_MAX];
    size_t pos = 0;
    int rc;
    toid_format f = format;
    char *z = malloc(len + 1);                 /* toid_fields_set wants no NUL, cli_show does */
    if (!z) {
        cli_fail("out of memory");
        return;
    }
    memcpy(z, s, len);
    z[len] = '\0';
    if (from == K_INT) {
        rc = toid_decode_int(f, s, len, bin, &pos);
    } else if (from == K_HEX) {
        toid_fields fl;
        memset(&fl, 0, sizeof fl);
        rc = toid_fields_set(f, &fl, "hex", 3, s, len);
        if (rc == 0)
            rc = toid_make(f, &fl, TOID_EPOCH_DEFAULT, bin);
    } else if (fixed) {
        rc = toid_decode_forms(f, s, len, bin, &pos);
    } else {
        toid_uuid_info u;
        if ((to == K_ULID || to == K_UUID) && toid_uuid_detect(s, len, &u)) {
            memcpy(bin, u.bytes, 16);          /* a UUID of another version, as toid inspect */
            rc = f = TOID_ULID;                /* reads it (32 hex digits too): its bytes */
        } else {
            rc = toid_detect(s, len, bin, &pos);
            if (rc >= 0)
                f = (toid_format)rc;
        }
    }
    if (rc < 0) {
        if (from == K_HEX)
            cli_fail("'%s': not %u hex digits of a valid %s value (%s)", cli_show(z),
                     2 * (unsigned)toid_bin_size(f), toid_format_get(f)->name, toid_err_name(rc));
        else if (from == K_INT)
            cli_reject_int(f, s, len, rc, pos);
        else
            cli_reject(fixed ? (int)f : -1, s, len, rc, pos);
    } else {
        put(z, len, f, bin);
    }
    free(z);
}

/* --from bytes: stdin holds whole binary IDs back to back. */
static void convert_bytes(void) {
    size_t size = toid_bin_size(format), have = 0;
    uint8_t buf[TOID_BIN_MAX], bin[TOID_BIN_MAX];
    for (;;) {
        ssize_t r = read(STDIN_FILENO, buf + have, size - have);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            cli_fail("read error: %s", strerror(errno));
            return;
        }
        if (r == 0)
            break;
        have += (size_t)r;
        if (have < size)
            continue;
        have = 0;
        int rc = toid_from_bytes(format, buf, size, bin);
        char hex[2 * TOID_BIN_MAX + 1];
        toid_hex_encode(buf, size, hex, sizeof hex);
        if (rc < 0)
            cli_fail("'%s': not a valid %s value (%s)", hex, toid_format_get(format)->name,
                     toid_err_name(rc));
        else
            put(hex, 2 * size, format, bin);
    }
    if (have)
        cli_fail("%zu bytes left at the end of the input: %s takes %zu a value (length)", have,
                 toid_format_get(format)->name, size);
}

static void convert_lines(void) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        size_t len = (size_t)n;
        if (len && line[len - 1] == '\n')
            len--;
        const char *s = line;
        if (cli_line_trim(&s, &len))
            convert_one(s, len);
    }
    free(line);
    cli_blank_summary();
}

int cmd_convert(int argc, char **argv) {
    cli_parser p;
    const char *v;
    int id, nargs = 0;
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args) {
        cli_fail("out of memory");
        return CLI_EXIT_FAIL;
    }
    cli_parser_init(&p, argc, argv);
    while ((id = cli_next(&p, options, &v)) != CLI_END) {
        switch (id) {
        case CLI_OPT_HELP:
            out_str(help_text);
            free(args);
            return CLI_EXIT_OK;
        case OPT_TO:
            to = kind_of("--to", v, 1);
            break;
        case OPT_FROM:
            from = kind_of("--from", v, 0);
            break;
        case OPT_FORMAT:
            format = cli_format(v);
            fixed = 1;
            break;
        case CLI_ARG:
            args[nargs++] = (char *)v;
            break;
        }
    }
    if (to == K_NONE)
        cli_usage("missing --to KIND");
    if (from != K_TEXT && !fixed)
        cli_usage("'--from %s' needs -f FORMAT", kind_names[from]);
    if (from == K_INT && !toid_format_get(format)->has_int)
        cli_usage("'--from int' needs a 64-bit format (ulid-flake, ulid-flake-scalable, "
                  "nanoflake, uid11, uid11-seq), not %s", toid_format_get(format)->name);
    if (from == K_BYTES && nargs)
        cli_usage("'--from bytes' reads stdin, not arguments");
    if (from == K_BYTES)
        convert_bytes();
    else if (nargs)
        for (int i = 0; i < nargs; i++)
            convert_one(args[i], strlen(args[i]));
    else
        convert_lines();
    free(args);
    return cli_status;
}
