/* cmd_range.c — toid range: the smallest ID at FROM and the largest at TO
 * (toid_time_bounds), or the range of a uid11 prefix
 * (toid_uid11_prefix_range). */
#include "cli.h"

#include <string.h>

static const char help_text[] =
    "Usage: toid range FORMAT FROM [TO] [OPTION]...\n"
    "   or: toid range uid11 --prefix PREFIX [OPTION]...\n"
    "Print the smallest ID of FORMAT whose time is in FROM and the largest whose\n"
    "time is in TO (default FROM), one per line: the bounds of\n"
    "'WHERE id BETWEEN lo AND hi' for the time from FROM to TO. A time written\n"
    "to a coarser precision is its whole span: 2024 is the year, 2024-01-01 the\n"
    "day, 2024-01-01T10 the hour, @1704067200 or 1704067200s the second.\n"
    "\n"
    "      --prefix P     uid11, uid11-seq: the lowest and highest ID that start\n"
    "                     with the Base58 symbols P (0..11 of them)\n"
    "      --epoch TIME   the epoch (ulid-flake, ulid-flake-scalable, nanoflake;\n"
    "                     default 2024-01-01T00:00:00Z)\n"
    "      --as KIND      print as text (default), int (64-bit formats) or hex\n"
    "      --json         one object {\"lo\":{...},\"hi\":{...}} with the\n"
    "                     inspection fields\n"
    "  -h, --help         show this help\n"
    "\n"
    "TIME is ISO 8601 from the year down to the ms (2024, 2024-01-01T10:30Z,\n"
    "2024-01-01T10:30:00.250+01:00; no zone means UTC), @SECONDS, a number with\n"
    "ms, s or us, a bare integer of unix ms, now, or a time relative to now\n"
    "(now-1h, -15m, +2d, now-1h30m; units ms s m h d w), an instant.\n";

enum { OPT_PREFIX = 1 };

static const cli_option options[] = {
    {"prefix", 0, 1, OPT_PREFIX}, CLI_OPTION_EPOCH, CLI_OPTION_AS, CLI_OPTION_JSON, {NULL, 0, 0, 0},
};

/* A FROM or TO operand: the span of a TIME, or an input error. */
static int operand_time(const char *s, int64_t *first, int64_t *last) {
    if (cli_parse_time_span(s, first, last) == 0)
        return 0;
    out_flush();
    cli_fail("'%s': not a time: expected " TOID_TIME_EXPECTED " (%s)",
             cli_show(s), toid_err_name(TOID_EINVAL));
    return -1;
}

static void print_pair(toid_format f, const uint8_t *lo, const uint8_t *hi, int64_t epoch, int json,
                       cli_as as) {
    char *o = out_reserve(2 * RENDER_MAX + 32);
    if (json) {
        memcpy(o, "{\"lo\":", 6);
        o += 6;
        o += cli_inspect_json(f, lo, epoch, o);
        memcpy(o, ",\"hi\":", 6);
        o += 6;
        o += cli_inspect_json(f, hi, epoch, o);
        *o++ = '}';
        *o++ = '\n';
    } else {
        o += cli_put_as(as, f, lo, o);
        *o++ = '\n';
        o += cli_put_as(as, f, hi, o);
        *o++ = '\n';
    }
    out_commit(o);
}

int cmd_range(int argc, char **argv) {
    cli_parser p;
    const char *v, *format_name = NULL, *from = NULL, *to = NULL, *prefix = NULL;
    int id;
    cli_common c = {0};      /* --epoch, --as, --json */
    cli_parser_init(&p, argc, argv);
    while ((id = cli_next(&p, options, &v)) != CLI_END) {
        if (cli_common_options(&c, id, v))
            continue;
        switch (id) {
        case CLI_OPT_HELP:
            out_str(help_text);
            return CLI_EXIT_OK;
        case OPT_PREFIX:
            prefix = v;
            break;
        case CLI_ARG:
            if (!format_name)
                format_name = v;
            else if (!from)
                from = v;
            else if (!to)
                to = v;
            else
                cli_usage("unexpected argument '%s'", cli_show(v));
            break;
        }
    }
    if (!format_name)
        cli_usage("missing FORMAT");
    toid_format f = cli_format(format_name);
    const toid_format_info *fi = toid_format_get(f);
    int64_t epoch = cli_common_check(&c, (int)f, 0);
    uint8_t lo[TOID_BIN_MAX], hi[TOID_BIN_MAX];

    if (prefix) {
        if (f != TOID_UID11 && f != TOID_UID11_SEQ)
            cli_usage("'--prefix' applies to uid11 and uid11-seq, not %s", fi->name);
        if (from)
            cli_usage("'--prefix' takes no FROM or TO");
        uint64_t a, b;
        size_t pos = 0;
        int rc = toid_uid11_prefix_range(prefix, strlen(prefix), &a, &b, &pos);
        if (rc < 0) {
            cli_input_error(prefix, strlen(prefix), rc, pos);
            return CLI_EXIT_FAIL;
        }
        toid_from_u64(f, a, lo);
        toid_from_u64(f, b, hi);
        print_pair(f, lo, hi, epoch, c.json, c.as);
        return CLI_EXIT_OK;
    }

    if (!from)
        cli_usage("missing FROM");
    int64_t from_ms, from_last, to_first, to_ms;
    if (operand_time(from, &from_ms, &from_last) < 0 ||
        (to && operand_time(to, &to_first, &to_ms) < 0))
        return CLI_EXIT_FAIL;
    if (!to)
        to_ms = from_last;
    int rc = toid_time_bounds(f, from_ms, epoch, lo, NULL);
    if (rc < 0) {
        cli_input_error(from, strlen(from), rc, CLI_NO_POS);
        return CLI_EXIT_FAIL;
    }
    rc = toid_time_bounds(f, to_ms, epoch, NULL, hi);
    if (rc < 0) {
        cli_input_error(to ? to : from, strlen(to ? to : from), rc, CLI_NO_POS);
        return CLI_EXIT_FAIL;
    }
    if (from_ms > to_ms) {
        cli_fail("'%s': invalid argument, TO is before FROM (%s)", cli_show(to),
                 toid_err_name(TOID_EINVAL));
        return CLI_EXIT_FAIL;
    }
    print_pair(f, lo, hi, epoch, c.json, c.as);
    return CLI_EXIT_OK;
}
