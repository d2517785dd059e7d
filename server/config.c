/* config.c — command-line flags and --help. */
#define _GNU_SOURCE
#include "config.h"
#include "toid_claim.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "listen.h"

/* The help in pieces: print_usage puts the formats in between, from the
 * registry. */
static const char usage_head[] =
    "Usage: toidd [OPTION]...\n"
    "The toid ID server: time-ordered IDs (";
static const char usage_listeners[] =
    ") over HTTP/1.1 and RESP2/RESP3 (the Redis protocol).\n"
    "\n"
    "Listeners (numeric addresses; port 0 picks a free port, logged at start):\n"
    "  --http ADDR:PORT         HTTP listener (default 127.0.0.1:8080; 'off' to disable)\n"
    "  --resp ADDR:PORT         RESP2 listener (default 127.0.0.1:6380; 'off' to disable)\n"
    "                           IPv6 as [::1]:PORT\n"
    "  --http-unix PATH         also serve HTTP on a Unix-domain socket\n"
    "  --resp-unix PATH         also serve RESP2 on a Unix-domain socket\n"
    "                           An address another server (or toidd) listens on is an\n"
    "                           error: 'address in use', exit status 2\n"
    "  --http-tls ADDR:PORT     HTTPS listener (TLS 1.2+), beside the plain ones\n"
    "  --resp-tls ADDR:PORT     RESP over TLS (redis-cli --tls, rediss://), beside them\n"
    "                           (TLS only: --http off --resp off)\n"
    "  --tls-cert FILE          the server's certificate (PEM; its chain may follow)\n"
    "  --tls-key FILE           its private key (PEM, not encrypted)\n"
    "  --tls-ca FILE            require client certificates signed by these CAs (PEM;\n"
    "                           mutual TLS). The TLS files are read again on SIGHUP\n"
    "  --requirepass PASSWORD   RESP clients must AUTH first (default: no password;\n"
    "                           the default listeners are loopback only)\n"
    "  --cors ORIGIN            send Access-Control-Allow-Origin: ORIGIN ('*' for any)\n"
    "                           on HTTP responses and answer CORS preflights\n"
    "\n"
    "State (never the same ID twice, across restarts and instances):\n"
    "  --state-dir DIR          lock and high-water mark per (format, node) (required)\n"
    "  --no-state               run without a state directory: no guarantee across\n"
    "                           restarts or instances, no node claimed unless --claim\n"
    "                           or the host's claim configuration says (tests only)\n"
    "  --reset-state            accept a missing or corrupt mark and start from the clock\n"
    "  --reserve-ms MS          how far ahead each persisted mark reaches (default 1000)\n"
    "  --clock-wait-max-ms MS   at start, wait at most this for the clock to pass the\n"
    "                           mark, else refuse to start (default 2000; 0: refuse)\n"
    "  --mark-wait-max-ms MS    a request whose IDs need a mark write waits at most\n"
    "                           this for it, then 503 / TRYAGAIN; longer, /readyz says\n"
    "                           not ready (a stalled disk or backend; default 1000)\n"
    "\n"
    "Node claims (";
static const char usage_claims[] =
    ": one node, one holder):\n"
    "  --claim local|local=DIR|etcd=URL[,URL]...   where node formats claim their node\n"
    "                           (default: the host's claim configuration, $TOID_CLAIM\n"
    "                           or /etc/toid/claim.conf; without one, local: the\n"
    "                           host's node registry /var/lib/toid/claims, shared\n"
    "                           with toid and the other front ends)\n"
    "  --claim-prefix PREFIX    etcd key prefix (default /toid)\n"
    "  --claim-ttl SECONDS      etcd lease TTL (default 10); a holder that cannot renew\n"
    "                           stops issuing that format before it runs out\n"
    "  --nodes FORMAT:LO-HI     claim the lowest free node of this range (default: the\n"
    "                           format's whole range; --gen FORMAT:node=N: N only)\n"
    "\n"
    "Generators:\n"
    "  --formats LIST           comma-separated formats to generate (default: all);\n"
    "                           inspection works for every format\n"
    "  --gen FORMAT:KEY=VALUE[,KEY=VALUE]...   generator settings, repeatable. Keys:\n"
    "      node=N               the node:";
static const char usage_gen[] =
    "\n"
    "      epoch=TIME           RFC 3339 or unix ms (ulid-flake(-scalable), nanoflake)\n"
    "      entropy-bytes=N      ulid-flake 1..3, ulid-flake-scalable 1..2\n"
    "      counter=random|micros                  scru160\n"
    "      on-exhausted=error|wait|advance        when a ms is full\n"
    "      on-behind=error|wait|keep|reset        when the clock is behind the last ID\n"
    "      wait-max-ms=MS  behind-allow-ms=MS  per-ms-cap=N (uid11)\n"
    "      Defaults are the library's, except ulid-flake and ulid-flake-scalable:\n"
    "      on-exhausted=wait (so that a batch does not fail when a ms is full)\n"
    "\n"
    "Limits:\n"
    "  --threads N              worker threads, one epoll loop each (default: CPUs online)\n"
    "  --max-connections N      open client connections, beyond: refused (default 1024)\n"
    "  --max-count N            IDs per request (default 10000)\n"
    "  --max-header-bytes N     HTTP request line and headers (default 8192)\n"
    "  --idle-timeout-ms MS     close connections idle this long (default 60000)\n"
    "  --request-timeout-ms MS  a started request must be complete within (default 10000)\n"
    "  --write-timeout-ms MS    drop a client that reads nothing this long (default 10000)\n"
    "  --max-output-bytes N     pending output per connection (default 4194304); a RESP\n"
    "                           reply past it (an EXEC of many IDs) is an error reply\n"
    "  --drain-timeout-ms MS    on SIGTERM, finish responses within (default 5000)\n"
    "\n"
    "  --config FILE            read options from FILE first: one a line, as the long\n"
    "                           option without '--' and its value ('state-dir /var/lib/toidd');\n"
    "                           '#' starts a comment; options given here override it\n"
    "  -h, --help               this help\n"
    "  -V, --version            the version\n"
    "\n"
    "HTTP: GET /v1/new/FORMAT?count=N (N from 0: 0 gives no IDs; count given twice: 400)\n"
    "      [&at=TIME] (IDs at that time, for backfills: ulid, uuidv7, scru160),\n"
    "      /v1/range/FORMAT?from=TIME[&to=TIME] (the lo and hi IDs, as toid range),\n"
    "      /v1/inspect/FORMAT/ID, /v1/inspect/ID, /v1/convert/ID (ULID <-> UUID),\n"
    "      /v1/formats, /v1/layout/FORMAT, /livez, /readyz (/healthz), /metrics (no\n"
    "      parameters); / is a page for people (decode, generate, time -> range,\n"
    "      ULID <-> UUID, a live chart).\n"
    "RESP: ID.NEW FORMAT [COUNT], ID.INSPECT [FORMAT] ID, PING, QUIT, HELLO [2|3],\n"
    "      AUTH, INFO, MULTI/EXEC/DISCARD, COMMAND, CONFIG GET,\n"
    "      CLIENT ID/INFO/LIST/SETNAME/GETNAME/SETINFO, SELECT 0, ECHO, RESET.\n"
    "Signals: SIGTERM/SIGINT drain and exit 0; a second one exits at once;\n"
    "         SIGHUP reloads the TLS files (new connections use them; a bad file\n"
    "         keeps the old ones); the other settings are read at start only.\n";

enum {
    O_HTTP = 256, O_RESP, O_HTTP_UNIX, O_RESP_UNIX, O_STATE_DIR, O_NO_STATE, O_RESET_STATE,
    O_RESERVE, O_CLOCK_WAIT, O_MARK_WAIT, O_FORMATS, O_GEN, O_THREADS, O_MAX_CONN, O_MAX_COUNT,
    O_MAX_HEAD, O_IDLE, O_REQ_TIMEOUT, O_WRITE_TIMEOUT, O_MAX_OUTPUT, O_DRAIN,
    O_CLAIM, O_CLAIM_PREFIX, O_CLAIM_TTL, O_NODES, O_REQUIREPASS, O_CORS,
    O_HTTP_TLS, O_RESP_TLS, O_TLS_CERT, O_TLS_KEY, O_TLS_CA
};

static const struct option longopts[] = {
    {"http", 1, 0, O_HTTP},
    {"resp", 1, 0, O_RESP},
    {"http-unix", 1, 0, O_HTTP_UNIX},
    {"resp-unix", 1, 0, O_RESP_UNIX},
    {"http-tls", 1, 0, O_HTTP_TLS},
    {"resp-tls", 1, 0, O_RESP_TLS},
    {"tls-cert", 1, 0, O_TLS_CERT},
    {"tls-key", 1, 0, O_TLS_KEY},
    {"tls-ca", 1, 0, O_TLS_CA},
    {"state-dir", 1, 0, O_STATE_DIR},
    {"no-state", 0, 0, O_NO_STATE},
    {"reset-state", 0, 0, O_RESET_STATE},
    {"reserve-ms", 1, 0, O_RESERVE},
    {"clock-wait-max-ms", 1, 0, O_CLOCK_WAIT},
    {"mark-wait-max-ms", 1, 0, O_MARK_WAIT},
    {"formats", 1, 0, O_FORMATS},
    {"gen", 1, 0, O_GEN},
    {"threads", 1, 0, O_THREADS},
    {"max-connections", 1, 0, O_MAX_CONN},
    {"max-count", 1, 0, O_MAX_COUNT},
    {"max-header-bytes", 1, 0, O_MAX_HEAD},
    {"idle-timeout-ms", 1, 0, O_IDLE},
    {"request-timeout-ms", 1, 0, O_REQ_TIMEOUT},
    {"write-timeout-ms", 1, 0, O_WRITE_TIMEOUT},
    {"max-output-bytes", 1, 0, O_MAX_OUTPUT},
    {"drain-timeout-ms", 1, 0, O_DRAIN},
    {"claim", 1, 0, O_CLAIM},
    {"claim-prefix", 1, 0, O_CLAIM_PREFIX},
    {"claim-ttl", 1, 0, O_CLAIM_TTL},
    {"nodes", 1, 0, O_NODES},
    {"requirepass", 1, 0, O_REQUIREPASS},
    {"cors", 1, 0, O_CORS},
    {"help", 0, 0, 'h'},
    {"version", 0, 0, 'V'},
    {NULL, 0, 0, 0},
};

static int bad(const char *fmt, const char *arg) {
    fprintf(stderr, "toidd: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'toidd --help'.\n");
    return -1;
}

/* An unsigned decimal in [lo, hi]. */
static int parse_uint(const char *s, unsigned long long lo, unsigned long long hi,
                      unsigned long long *out) {
    if (!*s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int copy(char *dst, size_t cap, const char *src) {
    if (strlen(src) >= cap)
        return -1;
    memcpy(dst, src, strlen(src) + 1);
    return 0;
}

static int gen_key(toid_gen_config *g, const char *key, size_t klen, const char *val) {
    unsigned long long v;
#define KEY(k) (klen == strlen(k) && memcmp(key, k, klen) == 0)
    if (KEY("node"))
        return parse_uint(val, 0, 1023, &v) ? -1 : (g->node = (uint32_t)v, 0);
    if (KEY("entropy-bytes"))
        return parse_uint(val, 1, 3, &v) ? -1 : (g->entropy_bytes = (uint32_t)v, 0);
    if (KEY("wait-max-ms"))
        return parse_uint(val, 1, 60000, &v) ? -1 : (g->wait_max_ms = (uint32_t)v, 0);
    if (KEY("behind-allow-ms"))
        return parse_uint(val, 1, 86400000, &v) ? -1 : (g->behind_allow_ms = (uint32_t)v, 0);
    if (KEY("per-ms-cap"))
        return parse_uint(val, 1, 4096, &v) ? -1 : (g->per_ms_cap = (uint32_t)v, 0);
    if (KEY("epoch")) {
        int64_t ms;
        if (toid_parse_time(val, strlen(val), &ms) < 0)
            return -1;
        g->epoch_ms = ms;
        return 0;
    }
    if (KEY("counter")) {
        if (!strcmp(val, "random")) g->counter_mode = TOID_COUNTER_RANDOM;
        else if (!strcmp(val, "micros")) g->counter_mode = TOID_COUNTER_MICROS;
        else return -1;
        return 0;
    }
    if (KEY("on-exhausted")) {
        if (!strcmp(val, "error")) g->on_exhausted = TOID_EXHAUSTED_ERROR;
        else if (!strcmp(val, "wait")) g->on_exhausted = TOID_EXHAUSTED_WAIT;
        else if (!strcmp(val, "advance")) g->on_exhausted = TOID_EXHAUSTED_ADVANCE;
        else return -1;
        return 0;
    }
    if (KEY("on-behind")) {
        if (!strcmp(val, "error")) g->on_behind = TOID_BEHIND_ERROR;
        else if (!strcmp(val, "wait")) g->on_behind = TOID_BEHIND_WAIT;
        else if (!strcmp(val, "keep")) g->on_behind = TOID_BEHIND_KEEP;
        else if (!strcmp(val, "reset")) g->on_behind = TOID_BEHIND_RESET;
        else return -1;
        return 0;
    }
#undef KEY
    return -1;
}

/* FORMAT:KEY=VALUE[,KEY=VALUE]... */
static int parse_gen(server_config *c, const char *arg) {
    const char *colon = strchr(arg, ':');
    if (!colon)
        return bad("--gen: expected FORMAT:KEY=VALUE, got '%s'", arg);
    int f = toid_format_by_name(arg, (size_t)(colon - arg));
    if (f < 0) {
        char msg[700];
        int n = toid_format_name_error(arg, (size_t)(colon - arg), msg, 300);
        snprintf(msg + (n > 0 ? n : 0), sizeof msg - 300, " in '%.300s'", arg);
        return bad("--gen: %s", msg);
    }
    char buf[512];
    if (copy(buf, sizeof buf, colon + 1) < 0)
        return bad("--gen: too long: '%s'", arg);
    toid_gen_config g = c->gen[f];
    char *save = NULL;
    for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq || gen_key(&g, kv, (size_t)(eq - kv), eq + 1) < 0)
            return bad("--gen: bad setting '%s' (see --help)", kv);
        if (eq - kv == 4 && memcmp(kv, "node", 4) == 0)
            c->node_given[f] = 1;
    }
    c->gen[f] = g;
    return 0;
}

static int parse_formats(server_config *c, const char *arg) {
    char buf[512];
    if (copy(buf, sizeof buf, arg) < 0)
        return bad("--formats: too long: '%s'", arg);
    memset(c->enabled, 0, sizeof c->enabled);
    char *save = NULL;
    int any = 0;
    for (char *n = strtok_r(buf, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
        int f = toid_format_by_name(n, strlen(n));
        if (f < 0) {
            char msg[300];
            toid_format_name_error(n, strlen(n), msg, sizeof msg);
            return bad("--formats: %s", msg);
        }
        const toid_format_info *fi = toid_format_get((toid_format)f);
        if (!fi->generates)
            return bad("--formats: %s is read only (the layout a reference library writes): toidd inspects "
                       "it and never generates it", fi->name);
        c->enabled[f] = 1;
        any = 1;
    }
    if (!any)
        return bad("--formats: no format in '%s'", arg);
    return 0;
}

/* The formats whose generator takes a node (the descriptor's node_max). */
int config_is_node_format(toid_format f) {
    return config_node_max(f) != 0;
}

uint32_t config_node_max(toid_format f) {
    const toid_format_info *fi = toid_format_get(f);
    return fi ? fi->node_max : 0;
}

/* The node formats, "a, b" (from the descriptors), for messages. */
static const char *node_formats(void) {
    static char list[256];
    size_t used = 0;
    for (int f = 0; f < TOID_FORMAT_COUNT && used < sizeof list; f++)
        if (config_is_node_format((toid_format)f)) {
            int n = snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "",
                             toid_format_get((toid_format)f)->name);
            used += n > 0 ? (size_t)n : 0;
        }
    return list;
}

/* --nodes FORMAT:LO-HI (or FORMAT:N) */
static int parse_nodes(server_config *c, const char *arg) {
    const char *colon = strchr(arg, ':');
    int f = colon ? toid_format_by_name(arg, (size_t)(colon - arg)) : -1;
    if (f < 0 || !config_is_node_format((toid_format)f)) {
        char m[400];
        snprintf(m, sizeof m, "--nodes: expected FORMAT:LO-HI with FORMAT a node format (%s), got '%%s'",
                 node_formats());
        return bad(m, arg);
    }
    char buf[64];
    if (copy(buf, sizeof buf, colon + 1) < 0)
        return bad("--nodes: bad range in '%s'", arg);
    char *dash = strchr(buf, '-');
    if (dash)
        *dash = '\0';
    unsigned long long lo, hi;
    uint32_t max = config_node_max((toid_format)f);
    if (parse_uint(buf, 0, max, &lo) < 0 || parse_uint(dash ? dash + 1 : buf, 0, max, &hi) < 0 ||
        lo > hi) {
        char m[160];
        snprintf(m, sizeof m, "--nodes: bad range in '%%s' (LO-HI within 0-%" PRIu32 ")", max);
        return bad(m, arg);
    }
    c->nodes_given[f] = 1;
    c->node_lo[f] = (uint32_t)lo;
    c->node_hi[f] = (uint32_t)hi;
    return 0;
}

int64_t config_epoch(const server_config *c, toid_format f) {
    const toid_format_info *fi = toid_format_get(f);
    int64_t e = c->gen[f].epoch_ms;
    if (!fi->epoch_configurable || e == 0 || e == TOID_EPOCH_DEFAULT)
        return fi->default_epoch_ms;
    return e;
}

uint32_t config_node(const server_config *c, toid_format f) {
    return config_is_node_format(f) ? c->gen[f].node : 0;
}

/* Which formats print_formats lists. */
enum { LIST_ALL, LIST_NODE, LIST_NODE_RANGE };

/* The formats' names (LIST_NODE_RANGE: the node formats with their node's
 * range, after a space), ", " between them, wrapped before column 87 (the
 * help's widest lines); col: where the list starts. */
static void print_formats(size_t col, int which) {
    int first = 1;
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        toid_format fmt = (toid_format)f;
        if ((which != LIST_ALL && !config_is_node_format(fmt)) || !toid_format_get(fmt)->generates)
            continue;
        char item[64];
        int n = which == LIST_NODE_RANGE
                    ? snprintf(item, sizeof item, "%s 0..%" PRIu32, toid_format_get(fmt)->name,
                               config_node_max(fmt))
                    : snprintf(item, sizeof item, "%s", toid_format_get(fmt)->name);
        if (!first) {
            fputc(',', stdout);
            col++;
        }
        if (!first && col + 1 + (size_t)n + 1 > 86) {
            fputs(which == LIST_NODE_RANGE ? "\n                          " : "\n", stdout);
            col = which == LIST_NODE_RANGE ? 26 : 0;
        } else if (!first || which == LIST_NODE_RANGE) {
            fputc(' ', stdout);
            col++;
        }
        fputs(item, stdout);
        col += (size_t)n;
        first = 0;
    }
}

static void print_usage(void) {
    fputs(usage_head, stdout);
    print_formats(strlen("The toid ID server: time-ordered IDs ("), LIST_ALL);
    fputs(usage_listeners, stdout);
    print_formats(strlen("Node claims ("), LIST_NODE);
    fputs(usage_claims, stdout);
    print_formats(strlen("      node=N               the node:"), LIST_NODE_RANGE);
    fputs(usage_gen, stdout);
}

/* --config FILE: its lines become "--key" [value] arguments placed before the
 * command line's, so that the command line overrides the file. */
#define CONFIG_MAX_ARGS 512

static char *config_text;
static char *merged[CONFIG_MAX_ARGS + 8];

static int load_config(const char *path, char **out, int *n) {
    FILE *fp = fopen(path, "r");
    if (!fp)
        return bad("--config: cannot open '%s'", path);
    config_text = malloc(65536 + 1);
    size_t len = config_text ? fread(config_text, 1, 65536 + 1, fp) : 0;
    int err = ferror(fp);
    fclose(fp);
    if (!config_text || err || len > 65536)
        return bad("--config: cannot read '%s' (at most 64 KiB)", path);
    config_text[len] = '\0';
    char *save = NULL;
    int line = 0;
    for (char *l = strtok_r(config_text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        line++;
        char *hash = strchr(l, '#');
        if (hash)
            *hash = '\0';
        while (*l == ' ' || *l == '\t')
            l++;
        size_t e = strlen(l);
        while (e > 0 && (l[e - 1] == ' ' || l[e - 1] == '\t' || l[e - 1] == '\r'))
            l[--e] = '\0';
        if (!*l)
            continue;
        if (*n + 2 > CONFIG_MAX_ARGS)
            return bad("--config: too many lines in '%s'", path);
        /* "key value" -> "--key" "value" (the value is the rest of the line) */
        char *sp = l + strcspn(l, " \t");
        char *val = NULL;
        if (*sp) {
            *sp = '\0';
            val = sp + 1;
            while (*val == ' ' || *val == '\t')
                val++;
        }
        if (!strcmp(l, "config") || !strcmp(l, "help") || !strcmp(l, "version")) {
            fprintf(stderr, "toidd: %s:%d: '%s' is not allowed in a config file\n", path, line, l);
            return -1;
        }
        size_t kl = strlen(l);
        char *key = malloc(kl + 3);
        if (!key)
            return bad("%s", "out of memory");
        key[0] = key[1] = '-';
        memcpy(key + 2, l, kl + 1);
        out[(*n)++] = key;
        if (val)
            out[(*n)++] = val;
    }
    return 0;
}

/* A --config FILE anywhere on the command line is read first: its lines
 * become arguments before the command line's (which win), in merged.
 * 0 (*argc, *argv replaced when there is a file), or -1 (said). */
static int merge_config_file(int *argc, char ***argv) {
    const char *cfg_path = NULL;
    int rest = 0;
    for (int i = 1; i < *argc; i++) {
        if (!strcmp((*argv)[i], "--config") && i + 1 < *argc)
            cfg_path = (*argv)[++i];
        else if (!strncmp((*argv)[i], "--config=", 9))
            cfg_path = (*argv)[i] + 9;
        else if (!strcmp((*argv)[i], "--config"))
            return bad("%s", "option '--config' needs a value");
        else
            rest++;
    }
    if (!cfg_path)
        return 0;
    int n = 1;
    merged[0] = (*argv)[0];
    if (load_config(cfg_path, merged, &n) < 0)
        return -1;
    if (n + rest >= (int)(sizeof merged / sizeof merged[0]))
        return bad("%s", "too many arguments");
    for (int i = 1; i < *argc; i++) {
        if (!strcmp((*argv)[i], "--config")) {
            i++;
            continue;
        }
        if (!strncmp((*argv)[i], "--config=", 9))
            continue;
        merged[n++] = (*argv)[i];
    }
    merged[n] = NULL;
    *argc = n;
    *argv = merged;
    return 0;
}

static void set_defaults(server_config *c) {
    memset(c, 0, sizeof *c);
    strcpy(c->http_addr, "127.0.0.1:8080");
    strcpy(c->resp_addr, "127.0.0.1:6380");
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    c->threads = ncpu <= 0 ? 1 : ncpu > 256 ? 256 : (unsigned)ncpu;
    c->max_connections = 1024;
    c->max_count = 10000;
    c->max_head = 8192;
    c->idle_timeout_ms = 60000;
    c->request_timeout_ms = 10000;
    c->write_timeout_ms = 10000;
    c->drain_timeout_ms = 5000;
    c->max_output = 4u << 20;
    c->reserve_ms = 1000;
    c->clock_wait_max_ms = 2000;
    c->mark_wait_max_ms = 1000;
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        c->enabled[f] = toid_format_get((toid_format)f)->generates;     /* every format it can make */
        c->gen[f].format = (toid_format)f;
        c->gen[f].epoch_ms = TOID_EPOCH_DEFAULT;
    }
    /* The server's one default that differs from the library's: a batch of
     * ulid-flake IDs waits for the next ms rather than failing when the ms's
     * random space runs out (--gen ulid-flake:on-exhausted=error restores it). */
    c->gen[TOID_ULID_FLAKE].on_exhausted = TOID_EXHAUSTED_WAIT;
    c->gen[TOID_ULID_FLAKE_SCALABLE].on_exhausted = TOID_EXHAUSTED_WAIT;
}

/* Without --claim, the node formats claim where the host's claim
 * configuration says (TOID_CLAIM, /etc/toid/claim.conf: toid_claim.h), with
 * its prefix and TTL unless given; with none, in the host's registry
 * ("local"), where toid and the other front ends of this host claim too.
 * (With --no-state and no --claim: no claims, as no marks.) 0, or -1 (said). */
static int host_claims(server_config *c) {
    if (c->claim_spec[0])
        return 0;
    toid_claim_host h;
    char err[600];
    if (toid_claim_host_config(&h, err, sizeof err) < 0)
        return bad("the host's claim configuration: %s", err);
    if (!h.spec[0]) {
        if (!c->no_state)
            snprintf(c->claim_spec, sizeof c->claim_spec, "local");
        return 0;
    }
    snprintf(c->claim_spec, sizeof c->claim_spec, "%s", h.spec);
    if (!c->claim_prefix[0])
        snprintf(c->claim_prefix, sizeof c->claim_prefix, "%s", h.prefix);
    if (!c->claim_ttl_ms)
        c->claim_ttl_ms = h.ttl_ms;
    return 0;
}

/* What no single option can check: options that exclude or need each
 * other, node ranges, a listener, the output limit, generator settings.
 * 0, or -1 (said). */
static int check_settings(server_config *c) {
    if (!c->state_dir[0] && !c->no_state)
        return bad("%s", "--state-dir DIR is required (or --no-state, without any guarantee "
                         "across restarts)");
    if (c->state_dir[0] && c->no_state)
        return bad("%s", "--state-dir and --no-state exclude each other");
    if (host_claims(c) < 0)
        return -1;
    toid_claim_backend_info be = {0};
    if (c->claim_spec[0])
        toid_claim_backend_of(c->claim_spec, &be, NULL, 0);
    if ((c->claim_prefix[0] || c->claim_ttl_ms) && !be.takes_prefix_ttl)
        return bad("%s", "--claim-prefix and --claim-ttl are for a backend with leases (--claim etcd=URL)");
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        if (!config_is_node_format((toid_format)f))
            continue;
        if (c->node_given[f] && c->nodes_given[f])
            return bad("--gen FORMAT:node=N and --nodes FORMAT:... exclude each other (%s): give one",
                       toid_format_get((toid_format)f)->name);
        if (c->node_given[f] && c->gen[f].node > config_node_max((toid_format)f))
            return bad("--gen: node out of range for %s", toid_format_get((toid_format)f)->name);
        if (c->node_given[f])
            c->node_lo[f] = c->node_hi[f] = c->gen[f].node;
        else if (!c->nodes_given[f])
            c->node_hi[f] = config_node_max((toid_format)f);
    }
    if (!c->http_addr[0] && !c->resp_addr[0] && !c->http_unix[0] && !c->resp_unix[0] &&
        !c->tls_http_addr[0] && !c->tls_resp_addr[0])
        return bad("%s", "no listener (all are off)");
    if (c->tls_http_addr[0] && !listen_addr_valid(c->tls_http_addr))
        return bad("--http-tls: bad address '%s' (want a numeric IP:PORT or [IPv6]:PORT)",
                   c->tls_http_addr);
    if (c->tls_resp_addr[0] && !listen_addr_valid(c->tls_resp_addr))
        return bad("--resp-tls: bad address '%s' (want a numeric IP:PORT or [IPv6]:PORT)",
                   c->tls_resp_addr);
    int tls_listener = c->tls_http_addr[0] || c->tls_resp_addr[0];
    if (tls_listener && (!c->tls_cert[0] || !c->tls_key[0]))
        return bad("%s", "--http-tls and --resp-tls need --tls-cert FILE and --tls-key FILE");
    if (!tls_listener && (c->tls_cert[0] || c->tls_key[0] || c->tls_ca[0]))
        return bad("%s", "--tls-cert, --tls-key and --tls-ca need a TLS listener "
                         "(--http-tls ADDR:PORT or --resp-tls ADDR:PORT)");
    if (c->http_addr[0] && !listen_addr_valid(c->http_addr))
        return bad("--http: bad address '%s' (want a numeric IP:PORT or [IPv6]:PORT, or off)",
                   c->http_addr);
    if (c->resp_addr[0] && !listen_addr_valid(c->resp_addr))
        return bad("--resp: bad address '%s' (want a numeric IP:PORT or [IPv6]:PORT, or off)",
                   c->resp_addr);
    /* One maximal response must fit in the output limit, with room to spare. */
    size_t need = (size_t)c->max_count * (TOID_TEXT_MAX + 8) + 65536 + 4096;
    if (c->max_output < need) {
        char n[32];
        snprintf(n, sizeof n, "%zu", need);
        return bad("--max-output-bytes must be at least %s for this --max-count", n);
    }
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        char why[200];  /* the library names the setting and the reason */
        if (!toid_format_get((toid_format)f)->generates)
            continue;   /* a read-only variant has no generator */
        if (toid_gen_config_explain(&c->gen[f], TOID_FOR_GEN_INIT, why, sizeof why) < 0)
            return bad("generator settings refused: %s", why);
    }
    return 0;
}

int config_parse(int argc, char **argv, server_config *c) {
    if (merge_config_file(&argc, &argv) < 0)
        return -1;
    set_defaults(c);
    int opt;
    unsigned long long v;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":hV", longopts, NULL)) != -1) {
        switch (opt) {
        case 'h':
            print_usage();
            return 1;
        case 'V':
            printf("toidd %s (libtoid %s)\n", TOID_VERSION_STRING, toid_version());
            return 1;
        case O_HTTP:
            if (copy(c->http_addr, sizeof c->http_addr, strcmp(optarg, "off") ? optarg : "") < 0)
                return bad("--http: too long: '%s'", optarg);
            break;
        case O_RESP:
            if (copy(c->resp_addr, sizeof c->resp_addr, strcmp(optarg, "off") ? optarg : "") < 0)
                return bad("--resp: too long: '%s'", optarg);
            break;
        case O_HTTP_TLS:
            if (copy(c->tls_http_addr, sizeof c->tls_http_addr, optarg) < 0 || !*optarg)
                return bad("--http-tls: bad address '%s'", optarg);
            break;
        case O_RESP_TLS:
            if (copy(c->tls_resp_addr, sizeof c->tls_resp_addr, optarg) < 0 || !*optarg)
                return bad("--resp-tls: bad address '%s'", optarg);
            break;
        case O_TLS_CERT:
            if (copy(c->tls_cert, sizeof c->tls_cert, optarg) < 0 || !*optarg)
                return bad("--tls-cert: bad path '%s'", optarg);
            break;
        case O_TLS_KEY:
            if (copy(c->tls_key, sizeof c->tls_key, optarg) < 0 || !*optarg)
                return bad("--tls-key: bad path '%s'", optarg);
            break;
        case O_TLS_CA:
            if (copy(c->tls_ca, sizeof c->tls_ca, optarg) < 0 || !*optarg)
                return bad("--tls-ca: bad path '%s'", optarg);
            break;
        case O_HTTP_UNIX:
            if (copy(c->http_unix, sizeof c->http_unix, optarg) < 0 || !*optarg)
                return bad("--http-unix: bad path '%s'", optarg);
            break;
        case O_RESP_UNIX:
            if (copy(c->resp_unix, sizeof c->resp_unix, optarg) < 0 || !*optarg)
                return bad("--resp-unix: bad path '%s'", optarg);
            break;
        case O_STATE_DIR:
            if (copy(c->state_dir, sizeof c->state_dir, optarg) < 0 || !*optarg)
                return bad("--state-dir: bad path '%s'", optarg);
            break;
        case O_REQUIREPASS:
            if (copy(c->requirepass, sizeof c->requirepass, optarg) < 0 || !*optarg)
                return bad("%s", "--requirepass: empty or longer than 255 bytes");
            break;
        case O_CORS:
            /* one header value: printable ASCII, no CR/LF to split the head */
            for (const char *p = optarg; *p; p++)
                if (*p < 0x21 || *p > 0x7e)
                    return bad("--cors: bad origin '%s' (want '*' or scheme://host[:port])", optarg);
            if (copy(c->cors, sizeof c->cors, optarg) < 0 || !*optarg)
                return bad("--cors: bad origin '%s'", optarg);
            break;
        case O_NO_STATE: c->no_state = 1; break;
        case O_RESET_STATE: c->reset_state = 1; break;
#define UINT_OPT(code, name, lo, hi, dst)                               \
        case code:                                                      \
            if (parse_uint(optarg, lo, hi, &v) < 0)                     \
                return bad("--" name ": bad value '%s'", optarg);       \
            dst = v;                                                    \
            break;
        UINT_OPT(O_RESERVE, "reserve-ms", 1, 3600000, c->reserve_ms)
        UINT_OPT(O_CLOCK_WAIT, "clock-wait-max-ms", 0, 3600000, c->clock_wait_max_ms)
        UINT_OPT(O_MARK_WAIT, "mark-wait-max-ms", 1, 3600000, c->mark_wait_max_ms)
        UINT_OPT(O_THREADS, "threads", 1, 256, c->threads)
        UINT_OPT(O_MAX_CONN, "max-connections", 1, 1000000, c->max_connections)
        UINT_OPT(O_MAX_COUNT, "max-count", 1, 1000000, c->max_count)
        UINT_OPT(O_MAX_HEAD, "max-header-bytes", 256, 1048576, c->max_head)
        UINT_OPT(O_IDLE, "idle-timeout-ms", 100, 86400000, c->idle_timeout_ms)
        UINT_OPT(O_REQ_TIMEOUT, "request-timeout-ms", 100, 3600000, c->request_timeout_ms)
        UINT_OPT(O_WRITE_TIMEOUT, "write-timeout-ms", 100, 3600000, c->write_timeout_ms)
        UINT_OPT(O_MAX_OUTPUT, "max-output-bytes", 4096, 1ull << 32, c->max_output)
        UINT_OPT(O_DRAIN, "drain-timeout-ms", 0, 3600000, c->drain_timeout_ms)
#undef UINT_OPT
        case O_FORMATS:
            if (parse_formats(c, optarg) < 0)
                return -1;
            break;
        case O_GEN:
            if (parse_gen(c, optarg) < 0)
                return -1;
            break;
        case O_CLAIM:   /* a backend the claim library has, with its argument if '=' */
            if (copy(c->claim_spec, sizeof c->claim_spec, optarg) < 0 ||
                toid_claim_backend_of(optarg, NULL, NULL, 0) < 0 || optarg[strlen(optarg) - 1] == '=')
                return bad("--claim: expected local, local=DIR or etcd=URL[,URL]..., got '%s'",
                           optarg);
            break;
        case O_CLAIM_PREFIX:
            if (copy(c->claim_prefix, sizeof c->claim_prefix, optarg) < 0 || optarg[0] != '/')
                return bad("--claim-prefix: expected a key prefix starting with '/', got '%s'",
                           optarg);
            break;
        case O_CLAIM_TTL:
            if (parse_uint(optarg, 1, 3600, &v) < 0)
                return bad("--claim-ttl: bad value '%s' (whole seconds, 1 to 3600)", optarg);
            c->claim_ttl_ms = (uint32_t)v * 1000;
            break;
        case O_NODES:
            if (parse_nodes(c, optarg) < 0)
                return -1;
            break;
        case ':':
            return bad("option '%s' needs a value", argv[optind - 1]);
        default:
            return bad("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return bad("unexpected argument '%s'", argv[optind]);
    return check_settings(c);
}
