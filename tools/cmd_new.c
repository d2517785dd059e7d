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
    "      --claim SPEC    where nodes are claimed: local (default), local=DIR,\n"
    "                      or etcd=URL[,URL...]\n"
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
    "10-digit one gets a warning: it looks like seconds), or 'now'.\n"
    "nanoflake, ulid-flake-scalable and uid11-seq claim the lowest free node for\n"
    "the run (local: lock files in $XDG_RUNTIME_DIR/toid, else /tmp/toid-UID),\n"
    "so parallel runs never share one; --at claims nothing (its IDs are not\n"
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

/* ---- the command ------------------------------------------------------------ */

int cmd_new(int argc, char **argv) {
    cli_parser p;
    const char *v, *format_name = NULL, *at_text = NULL;
    uint64_t count = 1;
    cli_common c = {0};      /* --epoch, --as, --json */
    int have_node = 0;
    int64_t at_ms = 0;
    uint64_t node = 0;
    const char *node_text = NULL;
    new_claim_opts co = {NULL, NULL, 0};
    int no_claim = 0, claim_opt = 0;
    int id;
    cli_parser_init(&p, argc, argv);
    while ((id = cli_next(&p, options, &v)) != CLI_END) {
        if (cli_common_options(&c, id, v))
            continue;
        switch (id) {
        case CLI_OPT_HELP:
            out_str(help_text);
            return CLI_EXIT_OK;
        case OPT_COUNT:
            count = cli_uint_option("-n", v, UINT64_MAX);
            break;
        case OPT_NODE:
            node_text = v;
            have_node = 1;
            break;
        case OPT_AT:
            at_ms = cli_time_option("--at", v);
            at_text = v;
            break;
        case OPT_CLAIM:
            co.spec = v;
            claim_opt = 1;
            break;
        case OPT_CLAIM_PREFIX:
            co.prefix = v;
            claim_opt = 1;
            break;
        case OPT_CLAIM_TTL:
            co.ttl_s = (uint32_t)cli_uint_option("--claim-ttl", v, 3600);
            if (co.ttl_s == 0)
                cli_usage("bad value '0' for --claim-ttl (1 .. 3600 seconds)");
            claim_opt = 1;
            break;
        case OPT_NO_CLAIM:
            no_claim = 1;
            break;
        case CLI_ARG:
            if (format_name)
                cli_usage("unexpected argument '%s'", cli_show(v));
            format_name = v;
            break;
        }
    }
    toid_format f = format_name ? cli_format(format_name) : TOID_ULID;
    const toid_format_info *fi = toid_format_get(f);
    int64_t epoch_inspect = cli_common_check(&c, (int)f, CLI_EPOCH_NOT_UNIX);
    uint32_t max_node = new_claim_max_node(f);
    if (have_node) {
        if (!max_node)
            cli_usage("'--node' applies to %s, not %s", new_claim_node_formats(), fi->name);
        node = cli_uint_option("--node", node_text, max_node);
    }
    if (claim_opt && !max_node)
        cli_usage("'--claim' applies to %s, not %s", new_claim_node_formats(), fi->name);
    if (claim_opt && no_claim)
        cli_usage("'--no-claim' and '--claim' cannot be combined");
    if (claim_opt && at_text)
        cli_usage("'--at' cannot be combined with '--claim' (--at claims nothing: a fixed "
                  "time is outside the node's high-water mark)");
    /* --at is a preview at a fixed time: no claim (see the help) */
    int claimed = max_node && !no_claim && !at_text;

    /* the epoch the IDs (and their node's marks) are counted from */
    int64_t epoch_eff = c.have_epoch ? c.epoch_ms : fi->default_epoch_ms;
    if (claimed) {
        uint32_t got = 0;
        int crc = new_claim_start(f, epoch_eff, have_node, (uint32_t)node, &co, &got);
        if (crc != 0)
            return crc;
        node = got;
    }
    unsigned node_bits = have_node || claimed ? fi->caller_node_bits : 0;

    toid_gen_config cfg;
    memset(&cfg, 0, sizeof cfg);
    toid_gen_config_default(f, &cfg);
    cfg.epoch_ms = c.have_epoch ? c.epoch_ms : 0;
    cfg.node = fi->caller_node_bits ? 0 : (uint32_t)node;
    if (cfg.on_exhausted != TOID_EXHAUSTED_ADVANCE)
        cfg.on_exhausted = TOID_EXHAUSTED_WAIT;   /* wait for the next ms, never fail */
    if (cfg.on_behind == TOID_BEHIND_ERROR)
        cfg.on_behind = TOID_BEHIND_WAIT;         /* a short step back: wait, bounded */
    cfg.flags = TOID_GEN_UNLOCKED;
    int rc = toid_gen_init_size(gen, sizeof gen_room, &cfg);
    if (rc < 0) {
        cli_fail("cannot set up the %s generator: %s (%s)", fi->name, toid_strerror(rc),
                 toid_err_name(rc));
        return CLI_EXIT_FAIL;
    }

    size_t size = fi->bin_size;
    size_t line_max = c.json ? RENDER_MAX + 1 : TOID_TEXT_MAX + 1;
    static pool rnd;
    rnd.pos = sizeof rnd.buf;          /* empty: the first draw fills it */
    progress pr = {0, 0, 0, 0};
    pr.enabled = isatty(STDERR_FILENO);
    int tty_out = isatty(STDOUT_FILENO);
    pr.start = pr.last = pr.enabled ? mono_now() : 0;
    uint64_t done = 0;
    int64_t ms = at_ms;
    while (done < count) {
        size_t n = count - done < BATCH ? (size_t)(count - done) : BATCH;
        size_t made = 0;
        int err = 0;
        if (at_text) {
            made = batch_at(f, &ms, &rnd, n, &err);
        } else {
            rc = toid_gen_batch(gen, bins, n, &made);
            err = rc < 0 ? rc : 0;
        }
        if (node_bits)
            set_low_node(bins, made, size, node_bits, (uint32_t)node);
        if (claimed && new_claim_admit(f, epoch_eff, bins, made) != 0) {
            progress_end(&pr);
            return CLI_EXIT_FAIL;   /* nothing of this batch leaves */
        }
        /* encode: whole batches of text at once, JSON one record at a time */
        const uint8_t *b = bins;
        if (c.json) {
            for (size_t i = 0; i < made; i++, b += size) {
                char *o = out_reserve(line_max);
                o += cli_inspect_json(f, b, epoch_inspect, o);
                *o++ = '\n';
                out_commit(o);
            }
        } else {
            char *o = out_reserve(made * line_max);
            if (c.as == CLI_AS_TEXT) {            /* one call, one check for the batch */
                size_t w = 0;
                toid_encode_batch(f, b, made, '\n', o, made * line_max, &w);
                o += w;
            } else {
                for (size_t i = 0; i < made; i++, b += size) {
                    o += cli_put_as(c.as, f, b, o);
                    *o++ = '\n';
                }
            }
            out_commit(o);
        }
        done += made;
        if (tty_out)
            out_flush();                       /* a person is watching: show each batch */
        if (err < 0) {
            progress_end(&pr);
            if (at_text && err == TOID_ERANGE)
                cli_input_error(at_text, strlen(at_text), err, 0);
            else
                cli_fail("cannot generate %s: %s (%s)", fi->name, toid_strerror(err),
                         toid_err_name(err));
            return CLI_EXIT_FAIL;
        }
        progress_update(&pr, done, count);
    }
    progress_end(&pr);
    return CLI_EXIT_OK;
}
