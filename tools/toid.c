/* toid.c — the toid command: dispatch to the subcommands, top-level help
 * and version. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

/* The help, around the list of formats (print_usage puts it in from the
 * registry). */
static const char usage_head[] =
    "Usage: toid COMMAND [OPTION]... [ARG]...\n"
    "Generate, inspect and compose time-ordered IDs: ULID, Ulid-Flake, SCRU160,\n"
    "Nanoflake, uid11 and UUIDv7.\n"
    "\n"
    "Commands:\n"
    "  new [FORMAT] [-n COUNT]    print new IDs, one per line (default: one ulid)\n"
    "  inspect [-f FORMAT] [ID]   decode IDs (arguments, or lines of stdin)\n"
    "  make FORMAT FIELD=VALUE    compose an ID from its fields\n"
    "  range FORMAT FROM [TO]     the smallest ID at FROM and the largest at TO\n"
    "  convert --to KIND [ID]     the same value in another form (int, hex, uuid...)\n"
    "  formats                    the table of formats\n"
    "  help [COMMAND]             this text, or a command's help\n"
    "\n"
    "Options:\n"
    "  -h, --help                 show this help (also: toid COMMAND --help)\n"
    "  -V, --version              show the version\n"
    "\n"
    "Formats:";
static const char usage_names[] = " (any case; aliases uuid7, xid).\n";
static const char usage_tail[] =
    "TIME is ISO 8601 (2024, 2024-01-01T10:30Z), @SECONDS, Nms/Ns/Nus, integer\n"
    "unix ms, now, or relative to now (now-1h, -15m, +2d).\n"
    "Exit status: 0 success, 1 an invalid input or a failure, 2 a usage error.\n"
    "See toid(1) for the details.\n";

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
} command;

static const command commands[] = {
    {"new", cmd_new},         {"inspect", cmd_inspect}, {"make", cmd_make},
    {"range", cmd_range},     {"formats", cmd_formats}, {"convert", cmd_convert},
};

static const command *find_command(const char *name) {
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* The names of the formats that generate (or the read-only ones), each
 * after a space, wrapped before column 80; col is where the line stands. */
static void put_names(int generates, size_t *col) {
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        const toid_format_info *fi = toid_format_get((toid_format)f);
        if (!fi->generates != !generates)
            continue;
        size_t n = strlen(fi->name);
        if (*col + 1 + n > 79) {
            out_char('\n');
            *col = 0;
        } else {
            out_char(' ');
            (*col)++;
        }
        out_str(fi->name);
        *col += n;
    }
}

/* The help with the formats the library has, wrapped before column 80: the
 * ones it generates, then the read-only variants on a line of their own. */
static void print_usage(void) {
    out_str(usage_head);
    size_t col = strlen("Formats:");
    put_names(1, &col);
    out_str(usage_names);
    int read_only = 0;
    for (int f = 0; f < TOID_FORMAT_COUNT; f++)
        read_only |= !toid_format_get((toid_format)f)->generates;
    if (read_only) {
        const char *lead = "Read only, with -f (the layouts of reference libraries):";
        col = strlen(lead);
        out_str(lead);
        put_names(0, &col);
        out_str(".\n");
    }
    out_str(usage_tail);
}

static CLI_NORETURN void unknown_command(const char *name) {
    cli_usage("unknown command '%s'", cli_show(name));
}

static int run(const command *c, int argc, char **argv) {
    cli_cmd = c->name;
    return c->run(argc, argv);
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);   /* a closed pipe is EPIPE, handled in out_flush */
    out_init();
    if (argc < 2) {
        fputs("toid: no command given (see 'toid --help')\n", stderr);
        return CLI_EXIT_USAGE;
    }
    const char *a = argv[1];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
        print_usage();
        cli_exit(CLI_EXIT_OK);
    }
    if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) {
        out_str("toid " TOID_VERSION_STRING " (libtoid ");
        out_str(toid_version());
        out_str(")\n");
        cli_exit(CLI_EXIT_OK);
    }
    if (strcmp(a, "help") == 0) {
        if (argc == 2) {
            print_usage();
            cli_exit(CLI_EXIT_OK);
        }
        if (argc > 3)
            cli_usage("'help' takes one command name");
        const command *c = find_command(argv[2]);
        if (!c)
            unknown_command(argv[2]);
        char *hargv[] = {argv[2], "--help", NULL};
        cli_exit(run(c, 2, hargv));
    }
    if (a[0] == '-') {
        cli_usage("unknown option '%s'", cli_show(a));
    }
    const command *c = find_command(a);
    if (!c)
        unknown_command(a);
    cli_exit(run(c, argc - 1, argv + 1));
}
