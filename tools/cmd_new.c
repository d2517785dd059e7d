/* cmd_new.c — toid new: generate IDs in batches (toid_gen_batch, one clock
 * read per batch), encode them into the big stdout buffer, write in large
 * blocks. --at drives the pure core (toid_gen_next_at) at a fixed time and
 * moves to the next ms itself when one is exhausted. The node formats hold a
 * node claim for the run (new_claim.c), and each batch is admitted by it
 * before it is written. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "new_claim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char help_text[] =
    "Usage: toid new [FORMAT] [-n COUNT] [OPTION]...\n"
    "Print COUNT new IDs of FORMAT (default ulid), one per line, unique and\n"
    "increasing within the run (uid11: random order within a ms, see toid(1)).\n"
    "\n"
    "  -n, --count COUNT   how many IDs (default 1)\n"
    "      --epoch TIME    the epoch (ulid-flake, ulid-flake-scalable, nanoflake;\n"
    "                      default 2024-01-01T00:00:00Z)\n"
    "      --node N        nanoflake generator id 0..1023, ulid-flake-scalable\n"
    "                      sid 0..31, uid11-seq node 0..1023 (its 10 low bits);\n"
    "                      claimed like a free node (refused if held)\n"
    "      --claim SPEC    where nodes are claimed: local, local=DIR, or\n"
    "                      etcd=URL[,URL...]; default: the host's claim\n"
    "                      configuration ($TOID_CLAIM, /etc/toid/claim.conf),\n"
    "                      else local\n"
    "      --claim-prefix P  etcd key prefix (default /toid)\n"
    "      --claim-ttl S   etcd lease TTL in seconds (default 10)\n"
    "      --no-claim      claim nothing: node 0 or --node; parallel runs with\n"
    "                      the same node repeat IDs\n"
    "      --at TIME       generate as if the clock read TIME; when a ms is full,\n"
    "                      go on in the next ms\n"
    "      --as KIND       print as text (default), int (64-bit formats) or hex\n"
    "      --json          one JSON object per line with the inspection fields\n"
    "  -h, --help          show this help\n"
    "\n"
    "TIME is ISO 8601 from the year down to the ms (2024-01-01T10:30Z,\n"
    "2024-01-01T10:30:00.250+01:00; no zone means UTC; a coarser time is its\n"
    "start), @SECONDS, a number with ms, s or us, a bare integer of unix ms (a\n"
    "10-digit one gets a warning: it looks like seconds), now, or a time\n"
    "relative to now (now-1h, -15m, +2d, now-1h30m; units ms s m h d w).\n"
    "nanoflake, ulid-flake-scalable and uid11-seq claim the lowest free node for\n"
    "the run (local: the host's node registry /var/lib/toid/claims, shared with\n"
    "toidd and the other front ends; its users are root and group toid), so\n"
    "parallel runs never share one; --at claims nothing (its IDs are not\n"
    "checked against IDs issued before) and cannot be combined with --claim.\n"
    "When a ms is exhausted, toid waits for the next one. With stderr on a\n"
    "terminal, a run longer than a second shows a progress bar there.\n";

enum { OPT_COUNT = 1, OPT_NODE, OPT_AT, OPT_CLAIM,
       OPT_CLAIM_PREFIX, OPT_CLAIM_TTL, OPT_NO_CLAIM };

static const cli_option options[] = {
    {"count", 'n', 1, OPT_COUNT},
    CLI_OPTION_EPOCH,
    {"node", 0, 1, OPT_NODE},
    {"at", 0, 1, OPT_AT},
    CLI_OPTION_AS,
    CLI_OPTION_JSON,
    {"claim", 0, 1, OPT_CLAIM},
    {"claim-prefix", 0, 1, OPT_CLAIM_PREFIX},
    {"claim-ttl", 0, 1, OPT_CLAIM_TTL},
    {"no-claim", 0, 0, OPT_NO_CLAIM},
    {NULL, 0, 0, 0},
};

#define BATCH 4096   /* a multiple of uid11's per-ms cap, so --at batches are whole ms */

static toid_gen_uid11 gen_room;             /* room for any format (uid11's set: 32 KiB): static */
static toid_gen *const gen = &gen_room.g;
static uint8_t bins[BATCH * TOID_BIN_MAX];

/* ---- random bytes for the pure core (--at) ---------------------------------- */

typedef struct pool {
    uint8_t buf[4096];
    size_t pos;
} pool;

static int pool_bytes(void *ctx, uint8_t *out, size_t n) {
    pool *p = ctx;
    if (n > sizeof p->buf)
        return toid_random_bytes(out, n);
    if (sizeof p->buf - p->pos < n) {
        int rc = toid_random_bytes(p->buf, sizeof p->buf);
        if (rc < 0)
            return rc;
        p->pos = 0;
    }
    memcpy(out, p->buf + p->pos, n);
    memset(p->buf + p->pos, 0, n);
    p->pos += n;
    return 0;
}

static size_t cmp_size;   /* the binary size of the IDs being sorted */
static int cmp_ids(const void *a, const void *b) { return memcmp(a, b, cmp_size); }

/* A format whose node the caller writes (caller_node_bits, uid11-seq: its 10
 * low bits, random in the spec's profile): the node goes there, so that
 * generators with different nodes never meet. */
static void set_low_node(uint8_t *b, size_t n, size_t size, unsigned bits, uint32_t node) {
    for (size_t i = 0; i < n; i++, b += size)
        for (unsigned k = 0; k < bits; k += 8) {
            uint8_t *p = b + size - 1 - k / 8;
            unsigned w = bits - k < 8 ? bits - k : 8;
            uint8_t mask = (uint8_t)((1u << w) - 1);
            *p = (uint8_t)((*p & ~mask) | ((node >> k) & mask));
        }
}

/* n IDs at *ms (and later ms as they fill up). Returns the number made; on
 * an error, *err gets it. */
static size_t batch_at(toid_format f, int64_t *ms, pool *p, size_t n, int *err) {
    size_t size = toid_bin_size(f), made = 0;
    *err = 0;
    while (made < n) {
        int rc = toid_gen_next_at(gen, *ms, 0, pool_bytes, p, bins + made * size, NULL);
        if (rc == 0) {
            made++;
        } else if ((rc == TOID_EEXHAUSTED || rc == TOID_EOVERFLOW) && *ms < INT64_MAX) {
            ++*ms;
        } else {
            *err = rc;
            break;
        }
    }
    if (toid_format_get(f)->random_order && made > 1) {   /* sorted, as toid_gen_batch does */
        cmp_size = size;
        qsort(bins, made, size, cmp_ids);
    }
    return made;
}

/* ---- the progress bar ---------------------------------------------------- */

typedef struct progress {
    int enabled;
    int shown;
    double start, last;
} progress;

static double mono_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The bar goes to stderr only when a person is there to read it: a terminal. */
static progress progress_start(void) {
    progress pr = {0, 0, 0, 0};
    pr.enabled = isatty(STDERR_FILENO);
    pr.start = pr.last = pr.enabled ? mono_now() : 0;
    return pr;
}

static void progress_update(progress *pr, uint64_t done, uint64_t total) {
    if (!pr->enabled)
        return;
    double t = mono_now();
    if (t - pr->start < 1.0 || t - pr->last < 0.1)
        return;
    pr->last = t;
    pr->shown = 1;
    int pct = (int)((double)done * 100.0 / (double)total);
    int w = 30, fill = pct * w / 100;
    char bar[64];
    for (int i = 0; i < w; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[w] = '\0';
    double rate = (double)done / (t - pr->start);
    fprintf(stderr, "\rtoid: [%s] %3d%% %llu/%llu IDs, %.0f/s", bar, pct, (unsigned long long)done,
            (unsigned long long)total, rate);
    fflush(stderr);
}

static void progress_end(progress *pr) {
    if (pr->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        pr->shown = 0;
    }
}

/* ---- the options ------------------------------------------------------------ */

/* The command line as read. --node stays text until the format is known: its
 * range is the format's, and the format may come after it. */
typedef struct new_opts {
    const char *format_name;   /* the FORMAT argument; NULL: ulid */
    uint64_t count;            /* -n */
    cli_common common;         /* --epoch, --as, --json */
    const char *node_text;     /* --node; NULL: not given */
    const char *at_text;       /* --at; NULL: the clock */
    int64_t at_ms;             /* --at, read */
    new_claim_opts claim;      /* --claim, --claim-prefix, --claim-ttl */
    int claim_opt;             /* one of those three was given */
    int no_claim;              /* --no-claim */
} new_opts;

static void opt_count(new_opts *o, const char *v) { o->count = cli_uint_option("-n", v, UINT64_MAX); }

static void opt_node(new_opts *o, const char *v) {
    o->node_text = v;          /* read by read_node, once the format is known */
}

static void opt_at(new_opts *o, const char *v) {
    o->at_ms = cli_time_option("--at", v);
    o->at_text = v;            /* kept for the message when the time is out of range */
}

static void opt_claim(new_opts *o, const char *v) {
    o->claim.spec = v;
    o->claim_opt = 1;
}

static void opt_claim_prefix(new_opts *o, const char *v) {
    o->claim.prefix = v;
    o->claim_opt = 1;
}

/* A ttl of 0 means "the default" to new_claim_start: refused here rather than
 * quietly read as 10 s. */
static void opt_claim_ttl(new_opts *o, const char *v) {
    o->claim.ttl_s = (uint32_t)cli_uint_option("--claim-ttl", v, 3600);
    if (o->claim.ttl_s == 0)
        cli_usage("bad value '0' for --claim-ttl (1 .. 3600 seconds)");
    o->claim_opt = 1;
}

static void opt_no_claim(new_opts *o) { o->no_claim = 1; }

/* The one positional argument: a second is a usage error. */
static void arg_format(new_opts *o, const char *v) {
    if (o->format_name)
        cli_usage("unexpected argument '%s'", cli_show(v));
    o->format_name = v;
}

static void apply_option(new_opts *o, int id, const char *v) {
    switch (id) {
    case OPT_COUNT: opt_count(o, v); break;
    case OPT_NODE: opt_node(o, v); break;
    case OPT_AT: opt_at(o, v); break;
    case OPT_CLAIM: opt_claim(o, v); break;
    case OPT_CLAIM_PREFIX: opt_claim_prefix(o, v); break;
    case OPT_CLAIM_TTL: opt_claim_ttl(o, v); break;
    case OPT_NO_CLAIM: opt_no_claim(o); break;
    case CLI_ARG: arg_format(o, v); break;
    }
}

/* Reads the command line into *o (bad values are usage errors as they come).
 * Returns 1 at -h/--help, which is answered before the options after it are
 * read. */
static int read_options(int argc, char **argv, new_opts *o) {
    cli_parser p;
    const char *v;
    int id;
    cli_parser_init(&p, argc, argv);
    while ((id = cli_next(&p, options, &v)) != CLI_END) {
        if (cli_common_options(&o->common, id, v))
            continue;
        if (id == CLI_OPT_HELP)
            return 1;
        apply_option(o, id, v);
    }
    return 0;
}

/* ---- the run ---------------------------------------------------------------- */

/* What the options come to once the format is known. */
typedef struct new_run {
    const new_opts *o;
    toid_format f;
    const toid_format_info *fi;
    uint32_t max_node;        /* the format's largest node; 0: it has none */
    uint32_t node;            /* --node, or the node claimed */
    int claimed;              /* a node claim is held: it admits each batch */
    unsigned node_bits;       /* the low bits toid new writes the node into; 0: none */
    int64_t epoch_eff;        /* the epoch the IDs (and their node's marks) are counted from */
    int64_t epoch_inspect;    /* the epoch --json inspects with */
} new_run;

/* --node, checked against the format (0 without it). */
static uint32_t read_node(const new_run *r) {
    if (!r->o->node_text)
        return 0;
    if (!r->max_node)
        cli_usage("'--node' applies to %s, not %s", new_claim_node_formats(), r->fi->name);
    return (uint32_t)cli_uint_option("--node", r->o->node_text, r->max_node);
}

/* The claim options, against the format and the options that claim nothing. */
static void check_claim_options(const new_run *r) {
    const new_opts *o = r->o;
    if (!o->claim_opt)
        return;
    if (!r->max_node)
        cli_usage("'--claim' applies to %s, not %s", new_claim_node_formats(), r->fi->name);
    if (o->no_claim)
        cli_usage("'--no-claim' and '--claim' cannot be combined");
    if (o->at_text)
        cli_usage("'--at' cannot be combined with '--claim' (--at claims nothing: a fixed "
                  "time is outside the node's high-water mark)");
}

/* Holds the node for the run when the format has one, so that parallel runs
 * never share it. --at is a preview at a fixed time: no claim (see the help).
 * Returns 0, or the exit status after new_claim_start said why not. */
static int claim_node(new_run *r) {
    const new_opts *o = r->o;
    r->claimed = r->max_node && !o->no_claim && !o->at_text;
    if (r->claimed) {
        uint32_t got = 0;
        int crc = new_claim_start(r->f, r->epoch_eff, o->node_text != NULL, r->node, &o->claim, &got);
        if (crc != 0)
            return crc;
        r->node = got;
    }
    /* a node given or claimed goes into the value when the caller writes it */
    r->node_bits = o->node_text || r->claimed ? r->fi->caller_node_bits : 0;
    return 0;
}

/* The format's generator as the library sets it up, except that a run never
 * fails on a full ms or a short step back of the clock: it waits. */
static int setup_generator(const new_run *r) {
    const cli_common *c = &r->o->common;
    toid_gen_config cfg;
    memset(&cfg, 0, sizeof cfg);
    toid_gen_config_default(r->f, &cfg);
    cfg.epoch_ms = c->have_epoch ? c->epoch_ms : 0;
    cfg.node = r->fi->caller_node_bits ? 0 : r->node;   /* else set_low_node writes it */
    if (cfg.on_exhausted != TOID_EXHAUSTED_ADVANCE)
        cfg.on_exhausted = TOID_EXHAUSTED_WAIT;   /* wait for the next ms, never fail */
    if (cfg.on_behind == TOID_BEHIND_ERROR)
        cfg.on_behind = TOID_BEHIND_WAIT;         /* a short step back: wait, bounded */
    cfg.flags = TOID_GEN_UNLOCKED;                /* one thread */
    int rc = toid_gen_init_size(gen, sizeof gen_room, &cfg);
    char why[200];
    if (rc == TOID_EINVAL && toid_gen_config_explain(&cfg, TOID_FOR_GEN_INIT, why, sizeof why) < 0) {
        cli_fail("cannot set up the %s generator: %s (%s)", r->fi->name, why, toid_err_name(rc));
        return CLI_EXIT_FAIL;   /* the library names the setting and why */
    }
    if (rc < 0) {
        cli_fail("cannot set up the %s generator: %s (%s)", r->fi->name, toid_strerror(rc),
                 toid_err_name(rc));
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

/* ---- generating and writing ------------------------------------------------------ */

static pool rnd;   /* --at's random bytes (4 KiB: static) */

/* n IDs into bins: from the clock (one read per batch), or at --at's *ms.
 * Returns the number made; on an error, *err gets it. */
static size_t make_batch(const new_run *r, int64_t *ms, size_t n, int *err) {
    if (r->o->at_text)
        return batch_at(r->f, ms, &rnd, n, err);
    size_t made = 0;
    int rc = toid_gen_batch(gen, bins, n, &made);
    *err = rc < 0 ? rc : 0;
    return made;
}

/* --json: one record at a time (each its own inspection). */
static void write_json(const new_run *r, size_t made) {
    const uint8_t *b = bins;
    for (size_t i = 0; i < made; i++, b += r->fi->bin_size) {
        char *o = out_reserve(RENDER_MAX + 1);
        o += cli_inspect_json(r->f, b, r->epoch_inspect, o);
        *o++ = '\n';
        out_commit(o);
    }
}

/* Text: the whole batch in one call, one check for the batch. */
static void write_text(const new_run *r, size_t made) {
    size_t room = made * (TOID_TEXT_MAX + 1);
    char *o = out_reserve(room);
    size_t w = 0;
    toid_encode_batch(r->f, bins, made, '\n', o, room, &w);
    out_commit(o + w);
}

/* --as int or hex: one ID at a time. */
static void write_as(const new_run *r, size_t made) {
    const uint8_t *b = bins;
    char *o = out_reserve(made * (TOID_TEXT_MAX + 1));
    for (size_t i = 0; i < made; i++, b += r->fi->bin_size) {
        o += cli_put_as(r->o->common.as, r->f, b, o);
        *o++ = '\n';
    }
    out_commit(o);
}

static void write_batch(const new_run *r, size_t made) {
    if (r->o->common.json)
        write_json(r, made);
    else if (r->o->common.as == CLI_AS_TEXT)
        write_text(r, made);
    else
        write_as(r, made);
}

/* An --at time the format cannot hold is the input's fault: shown as the
 * input, as other commands show a bad one. */
static void report_generation_error(const new_run *r, int err) {
    const char *at = r->o->at_text;
    if (at && err == TOID_ERANGE)
        cli_input_error(at, strlen(at), err, 0);
    else
        cli_fail("cannot generate %s: %s (%s)", r->fi->name, toid_strerror(err), toid_err_name(err));
}

/* The run's count of IDs in batches, each admitted by the claim (if held)
 * before it is written. The IDs of a batch that failed part way are written
 * before the failure is told. */
static int generate(const new_run *r) {
    uint64_t count = r->o->count, done = 0;
    int64_t ms = r->o->at_ms;
    rnd.pos = sizeof rnd.buf;          /* empty: the first draw fills it */
    progress pr = progress_start();
    int tty_out = isatty(STDOUT_FILENO);
    while (done < count) {
        size_t n = count - done < BATCH ? (size_t)(count - done) : BATCH;
        int err = 0;
        size_t made = make_batch(r, &ms, n, &err);
        if (r->node_bits)
            set_low_node(bins, made, r->fi->bin_size, r->node_bits, r->node);
        if (r->claimed && new_claim_admit(r->f, r->epoch_eff, bins, made) != 0) {
            progress_end(&pr);
            return CLI_EXIT_FAIL;   /* nothing of this batch leaves */
        }
        write_batch(r, made);
        done += made;
        if (tty_out)
            out_flush();                       /* a person is watching: show each batch */
        if (err < 0) {
            progress_end(&pr);
            report_generation_error(r, err);
            return CLI_EXIT_FAIL;
        }
        progress_update(&pr, done, count);
    }
    progress_end(&pr);
    return CLI_EXIT_OK;
}

/* ---- the command ------------------------------------------------------------ */

/* cli_usage exits, so only the first usage error shows: the checks keep
 * their order (the options as read, the format, the shared options, --node,
 * the claim options). */
int cmd_new(int argc, char **argv) {
    new_opts o = {0};
    o.count = 1;
    if (read_options(argc, argv, &o)) {
        out_str(help_text);
        return CLI_EXIT_OK;
    }
    new_run r = {0};
    r.o = &o;
    r.f = o.format_name ? cli_format(o.format_name) : TOID_ULID;
    r.fi = toid_format_get(r.f);
    if (!r.fi->generates)
        cli_usage("%s is read only: the layout a reference library writes, a variant of %s; toid reads it "
                  "(inspect -f %s, convert -f %s, range, make) and never generates it ('toid new %s' "
                  "makes the spec's layout)",
                  r.fi->name, r.fi->variant_of ? r.fi->variant_of : "another format", r.fi->name, r.fi->name,
                  r.fi->variant_of ? r.fi->variant_of : "FORMAT");
    r.epoch_inspect = cli_common_check(&o.common, (int)r.f, CLI_EPOCH_NOT_UNIX);
    r.max_node = new_claim_max_node(r.f);
    r.node = read_node(&r);
    check_claim_options(&r);
    r.epoch_eff = o.common.have_epoch ? o.common.epoch_ms : r.fi->default_epoch_ms;
    int rc = claim_node(&r);
    if (rc == 0)
        rc = setup_generator(&r);
    return rc != 0 ? rc : generate(&r);
}
