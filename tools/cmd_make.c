/* cmd_make.c — toid make: compose an ID from FIELD=VALUE arguments
 * (toid_fields_set, toid_make) and print it. */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char help_text[] =
    "Usage: toid make FORMAT FIELD=VALUE... [OPTION]...\n"
    "Compose an ID of FORMAT from its fields and print its canonical text.\n"
    "\n"
    "Give either the time (unix_ms=MS, ts=MS since the format's epoch, or\n"
    "time=TIME) and the format's sub-fields (those not given are 0), or the\n"
    "whole value (int=DECIMAL for the 64-bit formats, or hex=FULL-WIDTH-HEX).\n"
    "Sub-fields: ulid random (20 hex digits); ulid-flake random;\n"
    "ulid-flake-scalable random, sid; scru160 counter, random16, random80\n"
    "(decimal), reserved (true/false); nanoflake generator, sequence; uid11\n"
    "random; uid11-seq sequence, random; uuidv7 hex only.\n"
    "\n"
    "      --epoch TIME   the epoch for ts= (ulid-flake, ulid-flake-scalable,\n"
    "                     nanoflake; default 2024-01-01T00:00:00Z)\n"
    "      --as KIND      print as text (default), int (64-bit formats) or hex\n"
    "      --json         print the inspection fields as one JSON object\n"
    "  -h, --help         show this help\n"
    "\n"
    "TIME is ISO 8601 from the year down to the ms (2024-01-01T10:30Z,\n"
    "2024-01-01T10:30:00.250+01:00; no zone means UTC; a coarser time is its\n"
    "start), @SECONDS, a number with ms, s or us, a bare integer of unix ms (a\n"
    "10-digit one gets a warning: it looks like seconds), now, or a time\n"
    "relative to now (now-1h, -15m, +2d, now-1h30m; units ms s m h d w).\n";


static const cli_option options[] = {
    CLI_OPTION_EPOCH, CLI_OPTION_AS, CLI_OPTION_JSON, {NULL, 0, 0, 0},
};

/* "nanoflake: generator 5000 is out of range 0..1023" for the first
 * numeric sub-field wider than its bits; 0 if there is none. */
static int field_out_of_range(toid_format f, const char **fields, int nfields) {
    for (int i = 0; i < nfields; i++) {
        const char *a = fields[i], *eq = strchr(a, '=');
        char name[32];
        size_t n = (size_t)(eq - a);
        if (n >= sizeof name)
            continue;
        memcpy(name, a, n);
        name[n] = '\0';
        for (int id = 0; id < TOID_FIELD_COUNT; id++) {
            unsigned bits = strcmp(toid_field_name((toid_field_id)id), name) == 0
                                ? toid_field_bits(f, (toid_field_id)id) : 0;
            if (bits == 0 || bits >= 64)
                continue;
            uint64_t max = (UINT64_C(1) << bits) - 1, v = 0;
            const char *p = eq + 1;
            int digits = 0;
            for (; *p >= '0' && *p <= '9' && digits < 20; p++, digits++)
                v = v > UINT64_MAX / 10 ? UINT64_MAX : v * 10 + (uint64_t)(*p - '0');
            if (*p || !digits || v > max) {
                out_flush();
                cli_fail("%s: %s %s is out of range 0..%llu (invalid)", toid_format_get(f)->name,
                         name, cli_show(eq + 1), (unsigned long long)max);
                return 1;
            }
        }
    }
    return 0;
}

int cmd_make(int argc, char **argv) {
    cli_parser p;
    const char *v, *format_name = NULL;
    int id, nfields = 0;
    cli_common c = {0};      /* --epoch, --as, --json */
    const char **fields = calloc((size_t)argc + 1, sizeof *fields);
    if (!fields) {
        cli_fail("out of memory");
        return CLI_EXIT_FAIL;
    }
    cli_parser_init(&p, argc, argv);
    while ((id = cli_next(&p, options, &v)) != CLI_END) {
        if (cli_common_options(&c, id, v))
            continue;
        switch (id) {
        case CLI_OPT_HELP:
            out_str(help_text);
            free(fields);
            return CLI_EXIT_OK;
        case CLI_ARG:
            if (!format_name)
                format_name = v;
            else if (!strchr(v, '='))
                cli_usage("expected FIELD=VALUE, not '%s'", cli_show(v));
            else
                fields[nfields++] = v;
            break;
        }
    }
    if (!format_name)
        cli_usage("missing FORMAT");
    toid_format f = cli_format(format_name);
    if (!nfields)
        cli_usage("missing FIELD=VALUE");
    int64_t epoch = cli_common_check(&c, (int)f, 0);

    toid_fields in;
    memset(&in, 0, sizeof in);
    size_t joined_len = 0;
    for (int i = 0; i < nfields; i++) {
        const char *a = fields[i], *eq = strchr(a, '=');
        const char *name = a, *value = eq + 1;
        size_t name_len = (size_t)(eq - a), value_len = strlen(value);
        char now_text[24];
        int64_t first, last;
        /* time=: the CLI's TIME ('now', and a warning for a 10-digit bare
         * integer), then the library reads it as it reads every time */
        if (name_len == 4 && memcmp(name, "time", 4) == 0 && cli_parse_time_span(value, &first, &last) == 0) {
            value_len = (size_t)snprintf(now_text, sizeof now_text, "%" PRId64, first);
            value = now_text;
            name = "unix_ms";
            name_len = 7;
        }
        int rc = toid_fields_set(f, &in, name, name_len, value, value_len);
        if (rc == TOID_EINVAL && field_out_of_range(f, &fields[i], 1)) {
            free(fields);
            return CLI_EXIT_FAIL;
        }
        if (rc < 0) {
            cli_input_error(a, strlen(a), rc, CLI_NO_POS);
            free(fields);
            return CLI_EXIT_FAIL;
        }
        joined_len += strlen(a) + 1;
    }
    uint8_t bin[TOID_BIN_MAX];
    int rc = toid_make(f, &in, epoch, bin);
    if (rc == TOID_EINVAL && field_out_of_range(f, fields, nfields)) {
        free(fields);
        return CLI_EXIT_FAIL;
    }
    if (rc < 0) {
        /* the input is the whole list of fields */
        char *joined = malloc(joined_len + 1), *q = joined;
        if (joined) {
            for (int i = 0; i < nfields; i++) {
                size_t k = strlen(fields[i]);
                if (i)
                    *q++ = ' ';
                memcpy(q, fields[i], k);
                q += k;
            }
            cli_input_error(joined, (size_t)(q - joined), rc, CLI_NO_POS);
        }
        cli_status = CLI_EXIT_FAIL;
        free(joined);
        free(fields);
        return CLI_EXIT_FAIL;
    }
    free(fields);
    char *o = out_reserve(RENDER_MAX + 1);
    if (c.json)
        o += cli_inspect_json(f, bin, epoch, o);
    else
        o += cli_put_as(c.as, f, bin, o);
    *o++ = '\n';
    out_commit(o);
    return CLI_EXIT_OK;
}
