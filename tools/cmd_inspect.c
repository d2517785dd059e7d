/* cmd_inspect.c — toid inspect: decode IDs from the arguments or from the
 * lines of stdin, detect the format when none is given, print the
 * inspection fields. stdin, a pipe or a regular file alike, is read in
 * 1 MiB blocks and split here: memory stays bounded whatever the input's
 * size. (A regular file used to be mapped whole and decoded by two threads:
 * slower than the same bytes through a pipe on a 2-core machine, and its
 * resident size grew with the file.) */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char help_text[] =
    "Usage: toid inspect [-f FORMAT] [OPTION]... [ID]...\n"
    "Decode each ID (the arguments, or else one per line of stdin) and print\n"
    "its format, canonical text, time and fields.\n"
    "\n"
    "  -f, --format FORMAT  decode as FORMAT (default: detect, see below)\n"
    "      --json           one JSON object per line\n"
    "      --epoch TIME     the epoch of ulid-flake, ulid-flake-scalable and\n"
    "                       nanoflake (default 2024-01-01T00:00:00Z)\n"
    "      --lenient        Crockford formats: accept I and L for 1, O for 0,\n"
    "                       lower case and hyphens\n"
    "      --int            the IDs are decimal integers (needs -f with a 64-bit\n"
    "                       format: ulid-flake(-scalable), nanoflake, uid11(-seq))\n"
    "      --all            print every format that accepts the ID\n"
    "      --local          also show the time in the local time zone (TZ)\n"
    "      --layout         also draw the ID's bit layout: its fields over its bits\n"
    "                       and characters, with their values\n"
    "      --color WHEN     colour the layout: auto (a terminal without NO_COLOR),\n"
    "                       always or never (default auto)\n"
    "  -h, --help           show this help\n"
    "\n"
    "Detection reads an ID only at a length its format writes (ulid 26, uuidv7 36\n"
    "or 32, scru160 32 or 40, ulid-flake and nanoflake 13, uid11 11; other lengths\n"
    "need -f) and takes the first that reads it of: uuidv7, ulid, scru160, uid11,\n"
    "ulid-flake, nanoflake; but a 13-character ID with lower-case and no\n"
    "upper-case letters is nanoflake before ulid-flake. When another format reads\n"
    "the ID too, a 'note:' line (--json: \"also\") names it. uuidv7 also reads\n"
    "32 hex digits, {...} and urn:uuid:... forms. uid11-seq and\n"
    "ulid-flake-scalable need -f (or --all). A UUID of another version (or\n"
    "variant, or nil, max) is read as format uuid: version, variant, and the time\n"
    "of versions 1 and 6; as 32 hex digits only when its bits spell an RFC 9562\n"
    "version 1..8 (scru160 then noted).\n"
    "Lines of stdin are read as pasted: surrounding spaces, tabs and CR are\n"
    "ignored (psql's padding, CRLF files) and blank lines skipped (counted on\n"
    "stderr at the end); an argument is taken as given. An invalid ID is\n"
    "reported on stderr and the rest go on; the exit status is then 1.\n";

enum { OPT_FORMAT = 1, OPT_LENIENT, OPT_INT, OPT_ALL, OPT_LAYOUT, OPT_COLOR,
       OPT_LOCAL };

static const cli_option options[] = {
    {"format", 'f', 1, OPT_FORMAT}, CLI_OPTION_JSON, CLI_OPTION_EPOCH,
    {"lenient", 0, 0, OPT_LENIENT}, {"int", 0, 0, OPT_INT},   {"all", 0, 0, OPT_ALL},
    {"layout", 0, 0, OPT_LAYOUT},   {"color", 0, 1, OPT_COLOR},
    {"local", 0, 0, OPT_LOCAL},
    {NULL, 0, 0, 0},
};

typedef struct settings {
    int fixed;              /* -f given */
    toid_format format;
    cli_common common;      /* --json, --epoch */
    int lenient, int_mode, all, local;
    int layout, color;      /* --layout; its colours (layout_color) */
    unsigned detect;        /* toid_detect_flags flags: --lenient, --all */
} settings;

static settings S;
static size_t records;      /* records written so far (blank lines between) */

/* ---- decoding ---------------------------------------------------------------- */

static int decode_as(toid_format f, const char *s, size_t len, uint8_t *bin, size_t *pos) {
    *pos = 0;
    if (S.int_mode)
        return toid_decode_int(f, s, len, bin, pos);
    return toid_decode_flags(f, s, len, S.detect & TOID_DETECT_LENIENT, bin, pos);
}

/* The extras of a record: the other formats that read the ID, and the local
 * time of unix_ms (--local; none when has_time is 0). Human: "local:" and
 * "note:" lines; JSON: "local_time" and "also" members before the closing
 * brace at o[-1]. */
static char *extras(char *o, int has_time, int64_t unix_ms, uint32_t also) {
    char local[48];
    size_t nlocal = S.local && has_time ? cli_local_time(unix_ms, local) : 0;
    if (!also && !nlocal)
        return o;
    if (S.common.json) {
        o--;                                   /* the closing brace */
        if (nlocal)
            o += sprintf(o, ",\"local_time\":\"%s\"", local);
        if (also) {
            o += sprintf(o, ",\"also\":[");
            for (int g = 0, n = 0; g < TOID_FORMAT_COUNT; g++)
                if (also >> g & 1u)
                    o += sprintf(o, "%s\"%s\"", n++ ? "," : "", toid_format_get((toid_format)g)->name);
            *o++ = ']';
        }
        *o++ = '}';
        return o;
    }
    if (nlocal)
        o += sprintf(o, "local:     %s\n", local);
    if (also) {
        o += sprintf(o, "note:      also reads as");
        for (int g = 0; g < TOID_FORMAT_COUNT; g++)
            if (also >> g & 1u)
                o += sprintf(o, " %s", toid_format_get((toid_format)g)->name);
        o += sprintf(o, " (-f picks one)\n");
    }
    return o;
}

static void emit(toid_format f, const uint8_t *bin, uint32_t also) {
    int64_t epoch = cli_epoch_for(f, S.common.have_epoch, S.common.epoch_ms), ms = 0;
    int has_time = S.local && toid_time_of(f, bin, epoch, &ms) == 0;
    char *o = out_reserve(RENDER_MAX + 2);
    if (S.common.json) {
        o += cli_inspect_json(f, bin, epoch, o);
        o = extras(o, has_time, ms, also);
        *o++ = '\n';
    } else {
        if (records)            /* a blank line between records */
            *o++ = '\n';
        o += cli_inspect_human(f, bin, epoch, o);
        o = extras(o, has_time, ms, also);
    }
    out_commit(o);
    records++;
    if (S.layout)
        layout_draw(f, bin, epoch, S.color);
}

/* The record of a UUID read as such (toid_uuid_detect): toid_uuid_json or
 * toid_uuid_text, then the local time (--local) and the formats that also
 * read the text. */
static void emit_uuid(const toid_uuid_info *u, uint32_t also) {
    int has_time = u->has_time && u->unix_ms >= 0;
    char *o = out_reserve(RENDER_MAX + 512);
    if (S.common.json) {
        o += toid_uuid_json(u, o, 512);
        o = extras(o, has_time, u->unix_ms, also);
        *o++ = '\n';
    } else {
        if (records)
            *o++ = '\n';
        o += toid_uuid_text(u, o, 512);
        o = extras(o, has_time, u->unix_ms, also);
    }
    out_commit(o);
    records++;
}

static void input_error(int fmt, const char *s, size_t len, int err, size_t pos) {
    if (S.int_mode && fmt >= 0)
        cli_reject_int((toid_format)fmt, s, len, err, pos);
    else
        cli_reject(fmt, s, len, err, pos);
}

static void inspect_one(const char *s, size_t len) {
    uint8_t bin[TOID_BIN_MAX];
    size_t pos;
    if (S.fixed) {
        int rc = decode_as(S.format, s, len, bin, &pos);
        if (rc < 0)
            input_error((int)S.format, s, len, rc, pos);
        else
            emit(S.format, bin, 0);
        return;
    }
    uint32_t also = 0;
    int rc = toid_detect_flags(s, len, S.detect, bin, &also, &pos);
    toid_uuid_info u;
    if (toid_uuid_detect(s, len, &u)) {
        uint32_t others = rc >= 0 ? (also | 1u << rc) : 0;
        emit_uuid(&u, S.all ? 0 : others);
        if (!S.all || rc < 0)
            return;
        also = others & ~(1u << rc);            /* --all: the formats' readings too, below */
    }
    if (rc < 0) {
        input_error(-1, s, len, rc, pos);
        return;
    }
    if (!S.all) {
        emit((toid_format)rc, bin, also);
        return;
    }
    /* --all: every reading, by the formats' detection rank */
    uint32_t set = also | 1u << rc;
    for (unsigned rank = 1; rank <= TOID_FORMAT_COUNT; rank++)
        for (int f = 0; f < TOID_FORMAT_COUNT; f++)
            if (set >> f & 1u && toid_format_get((toid_format)f)->detect_rank == rank &&
                decode_as((toid_format)f, s, len, bin, &pos) == 0)
                emit((toid_format)f, bin, 0);
}

/* ---- stdin ------------------------------------------------------------------------ */

/* A line of stdin: trimmed, and skipped when blank (cli_line_trim). */
static void inspect_line(const char *s, size_t len) {
    if (cli_line_trim(&s, &len))
        inspect_one(s, len);
}

#define READ_BLOCK (1u << 20)

static void inspect_stdin(void) {
    size_t cap = READ_BLOCK, len = 0;
    char *buf = malloc(cap);
    if (!buf) {
        cli_fail("out of memory");
        return;
    }
    for (;;) {
        if (cap - len < READ_BLOCK / 2) {          /* a long line: make room */
            char *b = realloc(buf, cap * 2);
            if (!b) {
                cli_fail("out of memory");
                break;
            }
            buf = b;
            cap *= 2;
        }
        size_t want = cap - len;
        ssize_t r = read(STDIN_FILENO, buf + len, want);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            cli_fail("read error: %s", strerror(errno));
            break;
        }
        if (r == 0)
            break;
        size_t end = len + (size_t)r, start = 0;
        const char *nl;
        size_t scan = len;
        while (scan < end && (nl = memchr(buf + scan, '\n', end - scan)) != NULL) {
            size_t at = (size_t)(nl - buf);
            inspect_line(buf + start, at - start);
            start = scan = at + 1;
        }
        len = end - start;
        if (start)
            memmove(buf, buf + start, len);
        if ((size_t)r < want)      /* a pipe or a terminal: show what we have */
            out_flush();
    }
    if (len)                       /* the last line had no line feed */
        inspect_line(buf, len);
    free(buf);
    cli_blank_summary();
}

/* ---- the command -------------------------------------------------------------------- */

int cmd_inspect(int argc, char **argv) {
    cli_parser p;
    const char *v, *color = "auto";
    int id, nargs = 0;
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args) {
        cli_fail("out of memory");
        return CLI_EXIT_FAIL;
    }
    memset(&S, 0, sizeof S);
    cli_parser_init(&p, argc, argv);
    while ((id = cli_next(&p, options, &v)) != CLI_END) {
        if (cli_common_options(&S.common, id, v))
            continue;
        switch (id) {
        case CLI_OPT_HELP:
            out_str(help_text);
            free(args);
            return CLI_EXIT_OK;
        case OPT_FORMAT:
            S.format = cli_format(v);
            S.fixed = 1;
            break;
        case OPT_LENIENT:
            S.lenient = 1;
            break;
        case OPT_INT:
            S.int_mode = 1;
            break;
        case OPT_ALL:
            S.all = 1;
            break;
        case OPT_LOCAL:
            S.local = 1;
            break;
        case OPT_LAYOUT:
            S.layout = 1;
            break;
        case OPT_COLOR:
            color = v;
            break;
        case CLI_ARG:
            args[nargs++] = (char *)v;
            break;
        }
    }
    S.detect = (S.lenient ? TOID_DETECT_LENIENT : 0u) | (S.all ? TOID_DETECT_ALL : 0u);
    if (S.all && S.fixed)
        cli_usage("'--all' and '-f' cannot be combined");
    if (S.int_mode && (!S.fixed || !toid_format_get(S.format)->has_int))
        cli_usage("'--int' needs -f with a 64-bit format (ulid-flake, ulid-flake-scalable, "
                  "nanoflake, uid11, uid11-seq)");
    if ((S.color = layout_color(color)) < 0)
        cli_usage("bad value '%s' for --color (auto, always, never)", cli_show(color));
    if (S.layout && S.common.json)
        cli_usage("'--layout' and '--json' cannot be combined");
    if (S.int_mode && S.lenient)
        cli_usage("'--int' and '--lenient' cannot be combined");
    cli_common_check(&S.common, S.fixed ? (int)S.format : -1, 0);
    if (nargs) {
        for (int i = 0; i < nargs; i++)
            inspect_one(args[i], strlen(args[i]));
    } else {
        inspect_stdin();
    }
    free(args);
    return cli_status;
}
