/* cli.h — what the toid subcommands share: the output buffer, error
 * reporting, option parsing (the shared options too), value parsing and the
 * inspection output.
 * Only the public API (toid.h) is used. */
#ifndef TOID_CLI_H
#define TOID_CLI_H

#include <stddef.h>
#include <stdint.h>

#include <toid.h>

/* Exit statuses (docs/toid.1, EXIT STATUS). */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1   /* an invalid input, or a failure (generation, I/O) */
#define CLI_EXIT_USAGE 2  /* unknown subcommand or option, bad option value */

#if defined(__GNUC__)
#define CLI_NORETURN __attribute__((noreturn))
#define CLI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CLI_NORETURN
#define CLI_PRINTF(a, b)
#endif

/* ---- the running subcommand (for "see 'toid new --help'") ---------------- */
extern const char *cli_cmd;      /* "new", "inspect", ...; NULL at top level */
extern int cli_status;           /* CLI_EXIT_FAIL once an input has failed */

/* ---- standard output: one big buffer, written with write(2) ------------- */
/* A closed pipe (EPIPE) ends the program quietly with cli_status; another
 * write error prints "toid: write error: ..." and exits 1. */
void out_init(void);
void out_write(const void *p, size_t n);
void out_str(const char *s);
void out_char(char c);
/* Room for n more bytes (n <= OUT_RESERVE_MAX); advance with out_commit. */
#define OUT_RESERVE_MAX 262144
char *out_reserve(size_t n);
void out_commit(char *end);
void out_flush(void);
CLI_NORETURN void cli_exit(int status);   /* flushes stdout, then exits */
/* Ends at once (a write error or a closed pipe: no flush, no atexit), after
 * cli_on_quick_exit if set (toid new gives its node claim back there). */
CLI_NORETURN void cli_quick_exit(int status);
extern void (*cli_on_quick_exit)(void);

/* ---- errors --------------------------------------------------------------- */
/* "toid: 'INPUT': REASON" on stderr (INPUT escaped) and cli_status = 1.
 * REASON is toid_strerror(err), " at position N" (a byte offset from 0) for
 * a bad character, and " (class)" with toid_err_name(err). */
#define CLI_NO_POS ((size_t)-1)   /* pos when the error has no position */
void cli_input_error(const char *input, size_t len, int err, size_t pos);
/* The same, in toid_explain()'s words: f the format asked for, or -1 for
 * detection ("UUID version 4, toid reads version 7"). */
void cli_reject(int f, const char *input, size_t len, int err, size_t pos);
/* The same for an integer form (--int) of f: lengths in digits, the
 * largest integer. */
void cli_reject_int(toid_format f, const char *input, size_t len, int err, size_t pos);
/* "toid: MESSAGE" on stderr, cli_status = 1 (a failure that is not an input). */
void cli_fail(const char *fmt, ...) CLI_PRINTF(1, 2);
/* A line of standard input as people paste it (psql pads with spaces, CRLF
 * files end in CR): *s and *len narrowed past surrounding spaces, tabs, CR,
 * VT and FF. Returns 0 for a line that is then empty (counted for
 * cli_blank_summary), else 1. */
int cli_line_trim(const char **s, size_t *len);
/* After the input: "toid: note: N blank lines skipped" on stderr, if any
 * (the exit status is not changed). */
void cli_blank_summary(void);
/* "toid: MESSAGE (see 'toid CMD --help')" on stderr; exits 2. */
CLI_NORETURN void cli_usage(const char *fmt, ...) CLI_PRINTF(1, 2);
/* Escapes len bytes for an error message: printable ASCII as is, backslash
 * as \\, TAB \t, LF \n, CR \r, any other byte \xHH. At most `max` input
 * bytes are shown, then "...". Returns the length written (out needs
 * 4 * max + 4 bytes). */
size_t cli_escape(const char *in, size_t len, size_t max, char *out);
/* cli_escape of a NUL-terminated string into one of four static buffers
 * (for messages that show up to four user strings). */
const char *cli_show(const char *s);

/* ---- options -------------------------------------------------------------- */
typedef struct cli_option {
    const char *name;   /* "count" for --count, or NULL */
    char letter;        /* 'n' for -n, or 0 */
    int has_arg;
    int id;             /* returned by cli_next */
} cli_option;

typedef struct cli_parser {
    int argc;
    char **argv;
    int i;              /* next argv index */
    int only_args;      /* after "--" */
    const char *short_rest; /* inside a cluster like -n5 */
} cli_parser;

#define CLI_ARG 0       /* cli_next: a positional argument in *value */
#define CLI_END (-1)    /* cli_next: no more arguments */
#define CLI_OPT_HELP 1000   /* every subcommand's -h/--help */

void cli_parser_init(cli_parser *p, int argc, char **argv);
/* The next option id (with *value for options that take one), CLI_ARG with
 * the argument in *value, or CLI_END. Unknown options and a missing value are
 * usage errors (exit 2). -h and --help give CLI_OPT_HELP. */
int cli_next(cli_parser *p, const cli_option *opts, const char **value);

/* ---- values ---------------------------------------------------------------- */
/* A format by name, or a usage error. */
toid_format cli_format(const char *name);
/* TIME: what toid_parse_time_span reads, or "now": the span it names into
 * [*first, *last]. A bare 10-digit integer gets a warning on stderr (it is
 * read as ms but looks like seconds). Returns 0 or TOID_EINVAL. */
int cli_parse_time_span(const char *s, int64_t *first, int64_t *last);
/* The start of cli_parse_time_span. */
int cli_parse_time(const char *s, int64_t *ms);
/* The same for an option's value: a usage error when it is not a TIME. */
int64_t cli_time_option(const char *opt, const char *s);
/* unix_ms in local time (TZ) as ISO 8601 with the offset
 * ("2024-01-01T01:00:00.000+01:00"); out needs 48 bytes. Returns the
 * length, 0 if the system cannot say. */
size_t cli_local_time(int64_t unix_ms, char *out);
/* An unsigned decimal option value (no sign, no spaces) up to max. */
uint64_t cli_uint_option(const char *opt, const char *s, uint64_t max);
/* The epoch to pass for format f: TOID_EPOCH_DEFAULT unless an --epoch was
 * given and the format's epoch is configurable. */
int64_t cli_epoch_for(toid_format f, int have_epoch, int64_t epoch_ms);

/* --as text|int|hex */
typedef enum cli_as { CLI_AS_TEXT = 0, CLI_AS_INT, CLI_AS_HEX } cli_as;
/* Writes bin as text, int or hex; returns the length (no NUL). out needs
 * TOID_TEXT_MAX bytes. */
size_t cli_put_as(cli_as as, toid_format f, const uint8_t *bin, char *out);

/* ---- the options several subcommands share --------------------------------- */
/* --epoch TIME, --as text|int|hex and --json: a subcommand lists those it
 * takes in its option table (CLI_OPTION_EPOCH, ...), hands every option id to
 * cli_common_options while parsing, then calls cli_common_check once the
 * format is known. One set of checks and messages for all of them. */
enum { CLI_OPT_EPOCH = 1001, CLI_OPT_AS, CLI_OPT_JSON };
#define CLI_OPTION_EPOCH {"epoch", 0, 1, CLI_OPT_EPOCH}
#define CLI_OPTION_AS {"as", 0, 1, CLI_OPT_AS}
#define CLI_OPTION_JSON {"json", 0, 0, CLI_OPT_JSON}

typedef struct cli_common {
    int json;              /* --json */
    int have_as;
    cli_as as;             /* --as, CLI_AS_TEXT if not given */
    int have_epoch;
    int64_t epoch_ms;      /* --epoch, read as a TIME */
    const char *epoch_text;
} cli_common;

/* 1 if id is one of the shared options (its value read into *c; a bad
 * value is a usage error), else 0. */
int cli_common_options(cli_common *c, int id, const char *value);

#define CLI_EPOCH_NOT_UNIX 1u   /* flag: --epoch may not be the Unix epoch itself (new) */
/* Checks the shared options against format f, or with f < 0 (detection)
 * against any format whose epoch is configurable: --json with --as, --as int
 * on a format without an integer form, an --epoch that does not apply or is
 * out of range are usage errors. Returns the epoch to pass for f
 * (cli_epoch_for). */
int64_t cli_common_check(const cli_common *c, int f, unsigned flags);

/* ---- inspection output: the library's ----------------------------------------- */
/* The inspection of one value as toid_inspect_json() (JSON) or
 * toid_inspect_text() (aligned "name:  value" lines) write it. Both return the
 * length written (no NUL); out needs RENDER_MAX bytes. */
#define RENDER_MAX 1024
size_t cli_inspect_json(toid_format f, const uint8_t *bin, int64_t epoch_ms, char *out);
size_t cli_inspect_human(toid_format f, const uint8_t *bin, int64_t epoch_ms, char *out);

/* ---- pictures of an ID (layout_draw.c) ------------------------------------- */
/* Writes the bit layout of one value to stdout as the specs draw it: the
 * canonical text with each field's characters marked, 32-bit rows of the
 * value's bits under the field names, and a legend (bits, characters,
 * value). color: ANSI colours, one per field. */
void layout_draw(toid_format f, const uint8_t *bin, int64_t epoch_ms, int color);
/* --color=WHEN: "always" 1, "never" 0, "auto" 1 when stdout is a terminal,
 * NO_COLOR is unset or empty and TERM is not "dumb"; -1 for another WHEN. */
int layout_color(const char *when);

/* ---- subcommands ----------------------------------------------------------- */
int cmd_new(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_make(int argc, char **argv);
int cmd_range(int argc, char **argv);
int cmd_formats(int argc, char **argv);
int cmd_convert(int argc, char **argv);

#endif
