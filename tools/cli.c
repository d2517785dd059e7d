/* cli.c — the helpers every subcommand uses: the stdout buffer, error
 * messages, option parsing and value parsing. */
#define _GNU_SOURCE   /* F_SETPIPE_SZ (Linux); otherwise POSIX.1-2008 */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *cli_cmd;
int cli_status;

/* ---- stdout ---------------------------------------------------------------- */

#define OUT_CAP (2u << 20)
#define OUT_SLACK OUT_RESERVE_MAX

static char *out_buf;
static size_t out_len;

void out_init(void) {
    if (out_buf)
        return;
    out_buf = malloc(OUT_CAP + OUT_SLACK);
    if (!out_buf) {
        fputs("toid: out of memory\n", stderr);
        exit(CLI_EXIT_FAIL);
    }

}

/* Before the first large write into a pipe: a larger pipe buffer means
 * fewer switches between toid and the reader (Linux; best effort, the
 * system's limit may refuse it). */
static void big_output(void) {
#ifdef F_SETPIPE_SZ
    static int done;
    struct stat st;
    if (!done && fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode))
        (void)fcntl(STDOUT_FILENO, F_SETPIPE_SZ, 1 << 20);
    done = 1;
#endif
}

void out_flush(void) {
    size_t done = 0;
    if (out_len >= OUT_CAP / 2)
        big_output();
    while (done < out_len) {
        ssize_t w = write(STDOUT_FILENO, out_buf + done, out_len - done);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EPIPE)          /* the reader went away: stop quietly */
                cli_quick_exit(cli_status);
            fprintf(stderr, "toid: write error: %s\n", strerror(errno));
            cli_quick_exit(CLI_EXIT_FAIL);
        }
        done += (size_t)w;
    }
    out_len = 0;
}

char *out_reserve(size_t n) {
    if (out_len + n > OUT_CAP + OUT_SLACK || out_len >= OUT_CAP)
        out_flush();
    return out_buf + out_len;
}

void out_commit(char *end) { out_len = (size_t)(end - out_buf); }

void out_write(const void *p, size_t n) {
    const char *s = p;
    while (n) {
        size_t k = n < OUT_RESERVE_MAX ? n : OUT_RESERVE_MAX;
        char *d = out_reserve(k);
        memcpy(d, s, k);
        out_commit(d + k);
        s += k;
        n -= k;
    }
}

void out_str(const char *s) { out_write(s, strlen(s)); }

void out_char(char c) { out_write(&c, 1); }

void (*cli_on_quick_exit)(void);

void cli_quick_exit(int status) {
    if (cli_on_quick_exit)
        cli_on_quick_exit();
    _exit(status);
}

void cli_exit(int status) {
    out_flush();
    exit(status);
}

/* ---- errors ---------------------------------------------------------------- */

size_t cli_escape(const char *in, size_t len, size_t max, char *out) {
    static const char hexd[] = "0123456789abcdef";
    size_t o = 0, n = len < max ? len : max;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c == '\\') {
            out[o++] = '\\';
            out[o++] = '\\';
        } else if (c == '\t') {
            out[o++] = '\\';
            out[o++] = 't';
        } else if (c == '\n') {
            out[o++] = '\\';
            out[o++] = 'n';
        } else if (c == '\r') {
            out[o++] = '\\';
            out[o++] = 'r';
        } else if (c >= 0x20 && c < 0x7f) {
            out[o++] = (char)c;
        } else {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hexd[c >> 4];
            out[o++] = hexd[c & 15];
        }
    }
    if (len > max) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
    return o;
}

#define SHOW_MAX 100   /* input bytes shown in a message */

const char *cli_show(const char *s) {
    static char bufs[4][4 * SHOW_MAX + 4];
    static unsigned next;
    char *b = bufs[next++ % 4];
    cli_escape(s, strlen(s), SHOW_MAX, b);
    return b;
}

void cli_input_error(const char *input, size_t len, int err, size_t pos) {
    char esc[4 * SHOW_MAX + 4];
    cli_escape(input, len, SHOW_MAX, esc);
    /* stdout first, so that the two streams interleave as the inputs did
     * when both go to a terminal */
    out_flush();
    if (err == TOID_ECHAR && pos != CLI_NO_POS)
        fprintf(stderr, "toid: '%s': %s at position %zu (%s)\n", esc, toid_strerror(err), pos,
                toid_err_name(err));
    else
        fprintf(stderr, "toid: '%s': %s (%s)\n", esc, toid_strerror(err), toid_err_name(err));
    cli_status = CLI_EXIT_FAIL;
}

void cli_reject(int f, const char *input, size_t len, int err, size_t pos) {
    char esc[4 * SHOW_MAX + 4], why[200];
    if (toid_explain(f, input, len, err, pos, why, sizeof why) < 0) {
        cli_input_error(input, len, err, pos);
        return;
    }
    cli_escape(input, len, SHOW_MAX, esc);
    out_flush();
    fprintf(stderr, "toid: '%s': %s (%s)\n", esc, why, toid_err_name(err));
    cli_status = CLI_EXIT_FAIL;
}

void cli_reject_int(toid_format f, const char *input, size_t len, int err, size_t pos) {
    const toid_format_info *fi = toid_format_get(f);
    char esc[4 * SHOW_MAX + 4];
    if (err == TOID_ECHAR || !fi) {     /* the library's words: "bad character 'a' at position 2" */
        cli_reject(f, input, len, err, pos);
        return;
    }
    cli_escape(input, len, SHOW_MAX, esc);
    out_flush();
    if (err == TOID_ELENGTH)
        fprintf(stderr, "toid: '%s': bad length: %zu digit%s, expected 1 to 20 (length)\n", esc, len,
                len == 1 ? "" : "s");
    else if (err == TOID_EOVERFLOW)
        fprintf(stderr, "toid: '%s': value too large for %s (the largest is %llu) (overflow)\n", esc,
                fi->name, (unsigned long long)fi->int_max);
    else
        fprintf(stderr, "toid: '%s': %s (%s)\n", esc, toid_strerror(err), toid_err_name(err));
    cli_status = CLI_EXIT_FAIL;
}

void cli_fail(const char *fmt, ...) {
    va_list ap;
    out_flush();
    fputs("toid: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    cli_status = CLI_EXIT_FAIL;
}

static size_t blank_lines;

int cli_line_trim(const char **s, size_t *len) {
    const char *p = *s, *e = *s + *len;
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f'))
        p++;
    while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\v' || e[-1] == '\f'))
        e--;
    *s = p;
    *len = (size_t)(e - p);
    if (*len == 0) {
        blank_lines++;
        return 0;
    }
    return 1;
}

void cli_blank_summary(void) {
    if (!blank_lines)
        return;
    out_flush();
    fprintf(stderr, "toid: note: %zu blank line%s skipped\n", blank_lines, blank_lines == 1 ? "" : "s");
}

void cli_usage(const char *fmt, ...) {
    va_list ap;
    out_flush();
    fputs("toid: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (cli_cmd)
        fprintf(stderr, " (see 'toid %s --help')\n", cli_cmd);
    else
        fputs(" (see 'toid --help')\n", stderr);
    exit(CLI_EXIT_USAGE);
}

/* ---- options ----------------------------------------------------------------- */

void cli_parser_init(cli_parser *p, int argc, char **argv) {
    memset(p, 0, sizeof *p);
    p->argc = argc;
    p->argv = argv;
    p->i = 1;   /* argv[0] is the subcommand's name */
}

static const cli_option help_opt = {"help", 'h', 0, CLI_OPT_HELP};

static const cli_option *find_long(const cli_option *opts, const char *name, size_t n) {
    if (n == 4 && memcmp(name, "help", 4) == 0)
        return &help_opt;
    for (const cli_option *o = opts; o && (o->name || o->letter); o++)
        if (o->name && strlen(o->name) == n && memcmp(o->name, name, n) == 0)
            return o;
    return NULL;
}

static const cli_option *find_short(const cli_option *opts, char c) {
    if (c == 'h')
        return &help_opt;
    for (const cli_option *o = opts; o && (o->name || o->letter); o++)
        if (o->letter == c)
            return o;
    return NULL;
}

int cli_next(cli_parser *p, const cli_option *opts, const char **value) {
    *value = NULL;
    if (p->short_rest && *p->short_rest) {          /* -ab: the next letter */
        char c = *p->short_rest++;
        const cli_option *o = find_short(opts, c);
        if (!o) {
            char text[3] = {'-', c, '\0'};
            cli_usage("unknown option '%s'", cli_show(text));
        }
        if (o->has_arg) {
            if (*p->short_rest) {
                *value = p->short_rest;
            } else if (p->i < p->argc) {
                *value = p->argv[p->i++];
            } else {
                cli_usage("option '-%c' needs a value", c);
            }
            p->short_rest = NULL;
        }
        return o->id;
    }
    p->short_rest = NULL;
    if (p->i >= p->argc)
        return CLI_END;
    const char *a = p->argv[p->i++];
    /* "-" is an argument, and so is a negative number or a relative time
     * ("-5", "-15m": no option is a digit) */
    if (p->only_args || a[0] != '-' || a[1] == '\0' || (a[1] >= '0' && a[1] <= '9')) {
        *value = a;
        return CLI_ARG;
    }
    if (a[1] == '-') {
        if (a[2] == '\0') {                             /* "--" */
            p->only_args = 1;
            return cli_next(p, opts, value);
        }
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t n = eq ? (size_t)(eq - name) : strlen(name);
        const cli_option *o = find_long(opts, name, n);
        if (!o) {
            char text[128];
            snprintf(text, sizeof text, "--%.*s", (int)(n < 100 ? n : 100), name);
            cli_usage("unknown option '%s'", cli_show(text));
        }
        if (o->has_arg) {
            if (eq) {
                *value = eq + 1;
            } else if (p->i < p->argc) {
                *value = p->argv[p->i++];
            } else {
                cli_usage("option '--%s' needs a value", o->name);
            }
        } else if (eq) {
            cli_usage("option '--%s' takes no value", o->name);
        }
        return o->id;
    }
    p->short_rest = a + 1;
    return cli_next(p, opts, value);
}

/* ---- values ------------------------------------------------------------------ */

toid_format cli_format(const char *name) {
    int f = toid_format_by_name(name, strlen(name));
    if (f < 0) {
        char msg[300];   /* the library's words, as every front end's */
        toid_format_name_error(name, strlen(name), msg, sizeof msg);
        out_flush();
        fprintf(stderr, "toid: %s\n", msg);
        exit(CLI_EXIT_USAGE);
    }
    return (toid_format)f;
}

int cli_parse_time_span(const char *s, int64_t *first, int64_t *last) {
    unsigned notes = 0;
    if (toid_parse_time_span(s, strlen(s), first, last, &notes) < 0)
        return TOID_EINVAL;
    if (notes & TOID_TIME_LOOKS_SECONDS) {
        char t[40] = "?";
        toid_format_time(*first, t, sizeof t);
        out_flush();
        fprintf(stderr,
                "toid: warning: '%s' is read as unix milliseconds (%s); for seconds write @%s "
                "or %ss\n",
                cli_show(s), t, cli_show(s), cli_show(s));
    }
    return 0;
}

int cli_parse_time(const char *s, int64_t *ms) {
    int64_t last;
    return cli_parse_time_span(s, ms, &last);
}

int64_t cli_time_option(const char *opt, const char *s) {
    int64_t ms;
    if (cli_parse_time(s, &ms) < 0)
        cli_usage("bad TIME '%s' for %s", cli_show(s), opt);
    return ms;
}

size_t cli_local_time(int64_t unix_ms, char *out) {
    time_t secs = (time_t)(unix_ms >= 0 ? unix_ms / 1000 : (unix_ms - 999) / 1000);
    int ms = (int)(unix_ms - (int64_t)secs * 1000);
    struct tm tm;
    if (!localtime_r(&secs, &tm))
        return 0;
    long off = tm.tm_gmtoff / 60;
    char sign = off < 0 ? '-' : '+';
    if (off < 0)
        off = -off;
    int n = snprintf(out, 48, "%04d-%02d-%02dT%02d:%02d:%02d.%03d%c%02ld:%02ld", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms, sign, off / 60,
                     off % 60);
    return n > 0 && n < 48 ? (size_t)n : 0;
}

uint64_t cli_uint_option(const char *opt, const char *s, uint64_t max) {
    uint64_t v = 0;
    size_t i = 0;
    for (; s[i]; i++) {
        unsigned d = (unsigned)(unsigned char)s[i] - '0';
        if (d > 9 || v > (UINT64_MAX - d) / 10)
            break;
        v = v * 10 + d;
    }
    if (i == 0 || s[i] || v > max)
        cli_usage("bad value '%s' for %s (an integer 0..%llu)", cli_show(s), opt,
                  (unsigned long long)max);
    return v;
}

int64_t cli_epoch_for(toid_format f, int have_epoch, int64_t epoch_ms) {
    const toid_format_info *fi = toid_format_get(f);
    return have_epoch && fi && fi->epoch_configurable ? epoch_ms : TOID_EPOCH_DEFAULT;
}

static cli_as as_option(const char *s) {
    if (strcmp(s, "text") == 0)
        return CLI_AS_TEXT;
    if (strcmp(s, "int") == 0)
        return CLI_AS_INT;
    if (strcmp(s, "hex") == 0)
        return CLI_AS_HEX;
    cli_usage("bad value '%s' for --as (text, int or hex)", cli_show(s));
}

size_t cli_put_as(cli_as as, toid_format f, const uint8_t *bin, char *out) {
    int n = as == CLI_AS_INT   ? toid_encode_int(f, bin, out, TOID_TEXT_MAX)
            : as == CLI_AS_HEX ? toid_hex_encode(bin, toid_bin_size(f), out, TOID_TEXT_MAX)
                               : toid_encode(f, bin, out, TOID_TEXT_MAX);
    return n > 0 ? (size_t)n : 0;
}

/* ---- the shared options ---------------------------------------------------------- */

int cli_common_options(cli_common *c, int id, const char *value) {
    switch (id) {
    case CLI_OPT_EPOCH:
        c->epoch_ms = cli_time_option("--epoch", value);
        c->epoch_text = value;
        c->have_epoch = 1;
        return 1;
    case CLI_OPT_AS:
        c->as = as_option(value);
        c->have_as = 1;
        return 1;
    case CLI_OPT_JSON:
        c->json = 1;
        return 1;
    default:
        return 0;
    }
}

int64_t cli_common_check(const cli_common *c, int f, unsigned flags) {
    const toid_format_info *fi = f >= 0 ? toid_format_get((toid_format)f) : NULL;
    if (c->json && c->have_as)
        cli_usage("'--json' and '--as' cannot be combined");
    if (fi && c->as == CLI_AS_INT && !fi->has_int)
        cli_usage("'--as int' needs a 64-bit format (ulid-flake, ulid-flake-scalable, nanoflake, "
                  "uid11, uid11-seq), not %s", fi->name);
    if (c->have_epoch) {
        int64_t lo, hi;
        if (fi && !fi->epoch_configurable)
            cli_usage("'--epoch' does not apply to %s", fi->name);
        if ((flags & CLI_EPOCH_NOT_UNIX) && c->epoch_ms == 0)   /* toid_gen_config reads 0 as "the default epoch" */
            cli_usage("'--epoch' cannot be the Unix epoch itself for new");
        /* every format with a configurable epoch takes the same epochs: without
         * -f, check with the first such format */
        int any = 0;
        while (!fi && any + 1 < TOID_FORMAT_COUNT && !toid_format_get((toid_format)any)->epoch_configurable)
            any++;
        if (toid_time_span(fi ? (toid_format)f : (toid_format)any, c->epoch_ms, &lo, &hi) < 0)
            cli_usage("bad value '%s' for --epoch (0 .. 2^48-1 ms)", cli_show(c->epoch_text));
    }
    return fi ? cli_epoch_for((toid_format)f, c->have_epoch, c->epoch_ms) : TOID_EPOCH_DEFAULT;
}

/* ---- inspection output ------------------------------------------------------------- */

size_t cli_inspect_json(toid_format f, const uint8_t *bin, int64_t epoch_ms, char *out) {
    int n = toid_inspect_json(f, bin, epoch_ms, out, RENDER_MAX);
    return n > 0 ? (size_t)n : 0;
}

size_t cli_inspect_human(toid_format f, const uint8_t *bin, int64_t epoch_ms, char *out) {
    int n = toid_inspect_text(f, bin, epoch_ms, out, RENDER_MAX);
    return n > 0 ? (size_t)n : 0;
}
