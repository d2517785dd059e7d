/*
 * toid_sqlite.c — the SQL functions of the SQLite loadable extension and its
 * entry point, sqlite3_toid_init (".load ./toid" in the sqlite3 shell).
 *
 * Generators: toid_new(fmt[, time]), toid_new_blob(fmt[, time]),
 * toid_node(fmt[, n]). Pure (deterministic, innocuous): toid_decode,
 * toid_encode, toid_int, toid_unix_ms, toid_time, toid_inspect,
 * toid_uuid_inspect. Bounds (innocuous; not deterministic, for 'now'):
 * toid_min, toid_max, toid_min_blob, toid_max_blob. README.md "SQLite" documents them; every fact about a
 * format comes from the library.
 *
 * Node formats (nanoflake, ulid-flake-scalable, uid11-seq) claim their node
 * through the claim library's claims of a process (toid_claim_process in
 * claim/toid_claim.h), from the host's claim configuration, else the host's
 * node registry: the process's node of the format (the lowest free one, on
 * its first ID), or the node toid_node(fmt, n) names on a connection
 * (claimed then; refused while another holds it). Each node is claimed once
 * per process and held until it exits; every ID is admitted by its node's
 * claim (toid_claim_admit: atomics) before it is returned. A child of
 * fork() never uses its parent's claims: its first ID claims its own.
 */
#include <string.h>

#include "toid_claim.h"
#include "toid_sqlite.h"

SQLITE_EXTENSION_INIT1

/* A connection's settings: the node of each node format (toid_node), -1 for
 * the process's node; and the claim and generator in use, looked up once
 * (toid_claim_process's claims stay allocated: one that is lost, or a
 * parent's after fork(), refuses its admits and is looked up again).
 * Shared by the functions registered on one connection (refs counts them:
 * SQLite destroys the user data once per registration); SQLite runs the
 * functions of one connection one at a time. */
typedef struct conn_state {
    int refs;
    int64_t node[TOID_FORMAT_COUNT];
    toid_claim *claim[TOID_FORMAT_COUNT];   /* NULL: not looked up yet */
    toid_gen *gen[TOID_FORMAT_COUNT];
    /* toid_new(fmt, time): the connection's own state of each format for
     * IDs at given times (toid_new_at; a child of fork() starts afresh). */
    toid_at at[TOID_FORMAT_COUNT];
} conn_state;

static void conn_state_release(void *p) {
    conn_state *st = p;
    if (--st->refs == 0) {
        sqlite3_free(st);
    }
}

/* Text of len bytes as the result, or the library error len. */
static void text_result(sqlite3_context *ctx, const char *fn, toid_format f, int len,
                        const char *text) {
    if (len < 0)
        toidsql_fail(ctx, fn, f, len, -1);
    else
        sqlite3_result_text(ctx, text, len, SQLITE_TRANSIENT);
}

/* ---- node claims -------------------------------------------------------- */

/* The epoch the extension's IDs of f count from (its generators take the
 * format's default), as the node's high-water marks record it. */
static int64_t epoch_of(toid_format f) { return toid_format_get(f)->default_epoch_ms; }

/* The connection's claim of f (the node it set, or the process's node),
 * claimed if the process does not hold it yet, and its generator, into st.
 * Returns 0, or -1 after setting the error (the claim library's reason and
 * where the claim came from) on ctx. */
static int look_up(sqlite3_context *ctx, const char *fn, conn_state *st, toid_format f) {
    char err[2048];
    toid_claim *k;
    st->claim[f] = NULL;
    int rc = toid_claim_process(f, epoch_of(f), st->node[f], &k, err, sizeof err);
    if (rc < 0) {
        toidsql_claim_fail(ctx, fn, f, rc, err);
        return -1;
    }
    uint32_t node = toid_claim_node(k);
    rc = toidsql_gen_get(f, node, &st->gen[f]);
    if (rc < 0) {
        toidsql_gen_fail(ctx, fn, f, node, rc);
        return -1;
    }
    st->claim[f] = k;
    return 0;
}

/* The next ID of node format f into bin, with its node's claim: admitted
 * before it is returned. Returns 1, or -1 after setting the error. */
static int generate_claimed(sqlite3_context *ctx, const char *fn, conn_state *st, toid_format f,
                            uint8_t *bin) {
    /* A claim that refuses as lost (a parent's, in a child of fork(); an
     * etcd lease gone) or a generator that refuses as forked (the parent's)
     * is looked up once more: the process's claim then is a new one. The ID
     * made with the old one never leaves. */
    for (int again = 0;; again++) {
        if (!st->claim[f] && look_up(ctx, fn, st, f) < 0)
            return -1;
        toid_claim *k = st->claim[f];
        uint32_t node = toid_claim_node(k);
        int rc = toid_gen_next(st->gen[f], bin, NULL);
        if (rc == TOID_EFORKED && !again) {
            st->claim[f] = NULL;
            continue;
        }
        if (rc < 0) {
            toidsql_fail(ctx, fn, f, rc, -1);
            return -1;
        }
        toidsql_set_low_node(f, bin, node);
        int64_t ms;
        rc = toid_time_of(f, bin, TOID_EPOCH_DEFAULT, &ms);
        if (rc == 0)
            rc = toid_claim_admit(k, ms, ms);
        if (rc == 0)
            return 1;
        if (rc == TOID_CLAIM_ELOST && !again) {
            st->claim[f] = NULL;
            continue;
        }
        char what[200];
        sqlite3_snprintf((int)sizeof what, what, "node %u: the ID was not admitted by the node's "
                         "claim: %s", (unsigned)node, toid_claim_strerror(rc));
        toidsql_claim_fail(ctx, fn, f, rc, what);
        return -1;
    }
}

/* ---- generating -------------------------------------------------------- */

/* The format a generating function is asked for into *f: 0, or -1 after
 * setting the error (a NULL format is one: no NULL in, NULL out here, see
 * generate). */
static int format_to_make(sqlite3_context *ctx, const char *fn, sqlite3_value *fmt,
                          toid_format *f) {
    int rc = toidsql_arg_format(ctx, fn, fmt, f);
    if (rc == 0)
        toidsql_fail_text(ctx, fn, TOID_FORMAT_COUNT, "the format is NULL (invalid)");
    return rc > 0 ? 0 : -1;
}

/* The next ID of fmt into bin, or an error set on ctx. Returns 1, 0 (NULL:
 * never, see below) or -1. */
static int generate(sqlite3_context *ctx, const char *fn, sqlite3_value *fmt,
                    toid_format *f, uint8_t *bin) {
    /* No NULL in, NULL out here: a NULL ID from DEFAULT toid_new(NULL) would
     * quietly become a NULL key (SQLite allows NULL in a non-INTEGER primary
     * key). */
    if (format_to_make(ctx, fn, fmt, f) < 0)
        return -1;
    if (!toid_format_get(*f)->generates) {
        toidsql_fail_text(ctx, fn, *f,
                          "read-only format (the layout a reference library writes): "
                          "toid_inspect, toid_time and the bounds read it, nothing generates it (invalid)");
        return -1;
    }
    conn_state *st = sqlite3_user_data(ctx);
    if (toidsql_node_max(*f) > 0)
        return generate_claimed(ctx, fn, st, *f, bin);
    toid_gen *g;
    int rc = toidsql_gen_get(*f, 0, &g);
    if (rc < 0) {
        toidsql_gen_fail(ctx, fn, *f, 0, rc);
        return -1;
    }
    rc = toid_gen_next(g, bin, NULL);
    if (rc < 0) {
        toidsql_fail(ctx, fn, *f, rc, -1);
        return -1;
    }
    return 1;
}

/* ---- IDs at a given time: toid_new(fmt, time) ----
 *
 * For backfills: an ID whose time is the given ms, with fresh random bits
 * from the library's CSPRNG, for the formats unique by their random bits
 * alone (toidsql_at_time_unique: ulid, scru160, uuidv7); the others refuse
 * in the library's words (toid_at_time_explain), since an ID at a past time
 * cannot be made unique against what a node or a small random space already
 * issued in that ms. Each connection has its own state per format
 * (toid_new_at): successive IDs of one ms increase, as the live generator's
 * do; when the time goes back, or its ms is used up, it starts afresh with
 * new random bits. Not ordered against toid_new(fmt): another stream. */

static int sqlite_datetime(int64_t unix_ms, char *out, size_t out_size);

/* An ID of fmt at the time tv (unix ms, or text: its first ms) into bin.
 * Returns 1, or -1 after setting the error. */
static int generate_at(sqlite3_context *ctx, const char *fn, sqlite3_value *fmt, sqlite3_value *tv,
                       toid_format *f, uint8_t *bin) {
    if (format_to_make(ctx, fn, fmt, f) < 0)
        return -1;
    if (!toidsql_at_time_unique(*f, NULL)) {
        char why[256], what[300];
        toid_at_time_explain(*f, why, sizeof why);
        sqlite3_snprintf((int)sizeof what, what, "no ID at a given time: %s (invalid)", why);
        toidsql_fail_text(ctx, fn, *f, what);
        return -1;
    }
    /* No NULL in, NULL out: as for the format, a NULL ID would slip into a
     * key. Text names a span: its first ms (SQLite's datetime text, to the
     * second, is the instant it names). */
    int64_t ms;
    int rc = toidsql_arg_time(ctx, fn, tv, 0, &ms);
    if (rc == 0) {
        toidsql_fail_text(ctx, fn, *f, "the time is NULL (invalid)");
        return -1;
    }
    if (rc < 0)
        return -1;
    conn_state *st = sqlite3_user_data(ctx);
    rc = toid_new_at(&st->at[*f], *f, ms, bin);
    if (rc == TOID_ERANGE) {
        int64_t lo, hi;
        char a[40] = "?", b[40] = "?", what[200];
        if (toid_time_span(*f, TOID_EPOCH_DEFAULT, &lo, &hi) == 0) {
            sqlite_datetime(lo, a, sizeof a);
            sqlite_datetime(hi, b, sizeof b);
        }
        sqlite3_snprintf((int)sizeof what, what, "%s (range): it holds %s .. %s", toid_strerror(rc), a, b);
        toidsql_fail_text(ctx, fn, *f, what);
        return -1;
    }
    if (rc < 0) {
        toidsql_fail(ctx, fn, *f, rc, -1);
        return -1;
    }
    return 1;
}

static void fn_new(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    toid_format f;
    uint8_t bin[TOID_BIN_MAX];
    char text[TOID_TEXT_MAX];
    if ((argc == 2 ? generate_at(ctx, "toid_new", argv[0], argv[1], &f, bin)
                   : generate(ctx, "toid_new", argv[0], &f, bin)) < 1)
        return;
    text_result(ctx, "toid_new", f, toid_encode(f, bin, text, sizeof text), text);
}

static void fn_new_blob(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    toid_format f;
    uint8_t bin[TOID_BIN_MAX];
    if ((argc == 2 ? generate_at(ctx, "toid_new_blob", argv[0], argv[1], &f, bin)
                   : generate(ctx, "toid_new_blob", argv[0], &f, bin)) < 1)
        return;
    sqlite3_result_blob(ctx, bin, (int)toid_bin_size(f), SQLITE_TRANSIENT);
}

/* toid_node(fmt) -> the node this connection's IDs of fmt carry: the one it
 * set, else the process's node once claimed, else NULL (the first ID claims
 * it). toid_node(fmt, n) claims node n for the process (once; refused while
 * another holds it) and sets it for the connection; toid_node(fmt, NULL)
 * goes back to the process's node. Both return as toid_node(fmt) then does.
 * A node claimed stays this process's until it exits. */
static void fn_node(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    static const char fn[] = "toid_node";
    toid_format f;
    int rc = toidsql_arg_format(ctx, fn, argv[0], &f);
    if (rc == 0)
        toidsql_fail_text(ctx, fn, TOID_FORMAT_COUNT, "the format is NULL (invalid)");
    if (rc < 1)
        return;
    uint32_t max = toidsql_node_max(f);
    if (max == 0) {
        toidsql_fail_text(ctx, fn, f, "has no node (invalid)");
        return;
    }
    conn_state *st = sqlite3_user_data(ctx);
    if (argc == 2) {
        sqlite3_value *v = argv[1];
        if (sqlite3_value_type(v) == SQLITE_NULL) {
            st->node[f] = -1;
            st->claim[f] = NULL;
        } else {
            sqlite3_int64 n = sqlite3_value_int64(v);
            if (sqlite3_value_numeric_type(v) != SQLITE_INTEGER || n < 0 || n > max) {
                char what[120];
                sqlite3_snprintf((int)sizeof what, what, "node must be an integer 0..%u (invalid)",
                                 max);
                toidsql_fail_text(ctx, fn, f, what);
                return;
            }
            /* Claimed now (and its generator made), so that a node held
             * elsewhere is refused here, naming its holder, and not later;
             * the connection's setting is unchanged then. */
            int64_t was = st->node[f];
            st->node[f] = n;
            if (look_up(ctx, fn, st, f) < 0) {
                st->node[f] = was;
                return;
            }
        }
    }
    toid_claim *k;
    if (st->node[f] >= 0)
        sqlite3_result_int64(ctx, st->node[f]);
    else if (toid_claim_process_held(f, -1, &k))
        sqlite3_result_int64(ctx, toid_claim_node(k));
    else
        sqlite3_result_null(ctx);
}

/* ---- pure functions of an ID -------------------------------------------- */

/* Reads (format, id) for the functions of an ID. Returns 1, or 0 after it
 * set the result (NULL or an error). */
static int format_and_id(sqlite3_context *ctx, const char *fn, sqlite3_value **argv,
                         toid_format *f, uint8_t *bin) {
    int rc = toidsql_arg_format(ctx, fn, argv[0], f);
    if (rc == 1)
        rc = toidsql_arg_id(ctx, fn, *f, argv[1], bin);
    if (rc == 0)
        sqlite3_result_null(ctx);
    return rc == 1;
}

static void fn_decode(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    (void)argc;
    toid_format f;
    uint8_t bin[TOID_BIN_MAX];
    if (format_and_id(ctx, "toid_decode", argv, &f, bin))
        sqlite3_result_blob(ctx, bin, (int)toid_bin_size(f), SQLITE_TRANSIENT);
}

static void fn_encode(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    (void)argc;
    toid_format f;
    uint8_t bin[TOID_BIN_MAX];
    char text[TOID_TEXT_MAX];
    if (!format_and_id(ctx, "toid_encode", argv, &f, bin))
        return;
    text_result(ctx, "toid_encode", f, toid_encode(f, bin, text, sizeof text), text);
}

/* The integer form of the 64-bit formats (as SQLite's signed 64-bit
 * integer: uid11 values from 2^63, in 2081, do not fit and are an error). */
static void fn_int(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    (void)argc;
    toid_format f;
    uint8_t bin[TOID_BIN_MAX];
    uint64_t v;
    if (!format_and_id(ctx, "toid_int", argv, &f, bin))
        return;
    int rc = toid_to_u64(f, bin, &v);
    if (rc < 0)
        toidsql_fail_text(ctx, "toid_int", f, "has no integer form (invalid)");
    else if (v > (uint64_t)INT64_MAX)
        toidsql_fail_text(ctx, "toid_int", f,
                          "value above 2^63-1 does not fit an SQLite integer (overflow)");
    else
        sqlite3_result_int64(ctx, (sqlite3_int64)v);
}

static void fn_unix_ms(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    (void)argc;
    toid_format f;
    uint8_t bin[TOID_BIN_MAX];
    int64_t ms;
    if (!format_and_id(ctx, "toid_unix_ms", argv, &f, bin))
        return;
    int rc = toid_time_of(f, bin, TOID_EPOCH_DEFAULT, &ms);
    if (rc < 0)
        toidsql_fail(ctx, "toid_unix_ms", f, rc, -1);
    else
        sqlite3_result_int64(ctx, ms);
}

/* RFC 3339 "2016-07-30T23:54:10.259Z" as SQLite writes datetimes:
 * "2016-07-30 23:54:10.259" (UTC, no zone letter). */
static int sqlite_datetime(int64_t unix_ms, char *out, size_t out_size) {
    int len = toid_format_time(unix_ms, out, out_size);
    if (len < 0)
        return len;
    char *t = strchr(out, 'T');
    if (t)
        *t = ' ';
    out[--len] = '\0';   /* the trailing 'Z' */
    return len;
}

static void fn_time(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    (void)argc;
    toid_format f;
    uint8_t bin[TOID_BIN_MAX];
    int64_t ms;
    char text[40];
    if (!format_and_id(ctx, "toid_time", argv, &f, bin))
        return;
    int rc = toid_time_of(f, bin, TOID_EPOCH_DEFAULT, &ms);
    if (rc >= 0)
        rc = sqlite_datetime(ms, text, sizeof text);
    text_result(ctx, "toid_time", f, rc, text);
}

static void fn_inspect(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    (void)argc;
    toid_format f;
    uint8_t bin[TOID_BIN_MAX];
    char json[512];   /* toid.h: always enough */
    if (!format_and_id(ctx, "toid_inspect", argv, &f, bin))
        return;
    text_result(ctx, "toid_inspect", f,
                toid_inspect_json(f, bin, TOID_EPOCH_DEFAULT, json, sizeof json), json);
}

/* toid_uuid_inspect(uuid) -> any UUID's fields as JSON (the library's
 * toid_uuid_json): version, variant, the time of versions 1, 6 and 7,
 * clock_seq and node of 1 and 6. The UUID as text in any form the library
 * reads (36 characters, 32 hex digits, {...}, urn:uuid:...) or a 16-byte
 * blob. NULL in, NULL out. */
static void fn_uuid_inspect(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    (void)argc;
    static const char fn[] = "toid_uuid_inspect";
    sqlite3_value *v = argv[0];
    toid_uuid_info u;
    char text[48], json[512];
    int rc;
    size_t pos = 0;
    switch (sqlite3_value_type(v)) {
    case SQLITE_NULL:
        sqlite3_result_null(ctx);
        return;
    case SQLITE_BLOB: {
        const uint8_t *b = sqlite3_value_blob(v);
        int len = sqlite3_value_bytes(v);
        if (len != 16 || !b) {
            char what[120];
            sqlite3_snprintf((int)sizeof what, what, "uuid: a %d-byte blob, expected 16 bytes (length)", len);
            toidsql_fail_text(ctx, fn, TOID_FORMAT_COUNT, what);
            return;
        }
        static const char hex[] = "0123456789abcdef";
        for (int i = 0; i < 16; i++) {
            text[2 * i] = hex[b[i] >> 4];
            text[2 * i + 1] = hex[b[i] & 15];
        }
        rc = toid_uuid_read(text, 32, &u, &pos);
        break;
    }
    case SQLITE_TEXT: {
        const char *t = (const char *)sqlite3_value_text(v);
        if (!t) {
            sqlite3_result_error_nomem(ctx);
            return;
        }
        rc = toid_uuid_read(t, (size_t)sqlite3_value_bytes(v), &u, &pos);
        break;
    }
    default:
        toidsql_fail_text(ctx, fn, TOID_FORMAT_COUNT, "uuid: a UUID is text or a 16-byte blob (invalid)");
        return;
    }
    if (rc < 0) {
        char what[160];
        if (rc == TOID_ECHAR)
            sqlite3_snprintf((int)sizeof what, what, "uuid: %s at position %ld (%s)", toid_strerror(rc),
                             (long)pos, toid_err_name(rc));
        else
            sqlite3_snprintf((int)sizeof what, what, "uuid: %s (%s)", toid_strerror(rc), toid_err_name(rc));
        toidsql_fail_text(ctx, fn, TOID_FORMAT_COUNT, what);
        return;
    }
    text_result(ctx, fn, TOID_FORMAT_COUNT, toid_uuid_json(&u, json, sizeof json), json);
}

/* ---- bounds of a time, for range queries -------------------------------- */

enum { BOUND_MIN = 1, BOUND_MAX = 2, BOUND_BLOB = 4 };

/* toid_min / toid_max (text) and toid_min_blob / toid_max_blob: the smallest
 * ID of the first ms of t, or the largest of its last (t as text names a
 * span: '2024-01-01' is the day). Text for columns filled by toid_new, blob for
 * columns filled by toid_new_blob: SQLite orders every blob after every
 * text, so the bound must have the column's type. */
static void fn_bound(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    (void)argc;
    int how = (int)(intptr_t)sqlite3_user_data(ctx);
    const char *fn = how & BOUND_BLOB ? (how & BOUND_MIN ? "toid_min_blob" : "toid_max_blob")
                                      : (how & BOUND_MIN ? "toid_min" : "toid_max");
    toid_format f;
    int64_t ms;
    uint8_t bin[TOID_BIN_MAX];
    int rc = toidsql_arg_format(ctx, fn, argv[0], &f);
    if (rc == 1)
        rc = toidsql_arg_time(ctx, fn, argv[1], !(how & BOUND_MIN), &ms);
    if (rc == 0)
        sqlite3_result_null(ctx);
    if (rc < 1)
        return;
    rc = toid_time_bounds(f, ms, TOID_EPOCH_DEFAULT, how & BOUND_MIN ? bin : NULL,
                          how & BOUND_MIN ? NULL : bin);
    if (rc == TOID_ERANGE) {
        /* say what the format can hold */
        int64_t lo, hi;
        char a[40] = "?", b[40] = "?", what[200];
        if (toid_time_span(f, TOID_EPOCH_DEFAULT, &lo, &hi) == 0) {
            sqlite_datetime(lo, a, sizeof a);
            sqlite_datetime(hi, b, sizeof b);
        }
        sqlite3_snprintf((int)sizeof what, what, "%s (range): it holds %s .. %s",
                         toid_strerror(rc), a, b);
        toidsql_fail_text(ctx, fn, f, what);
        return;
    }
    if (rc < 0) {
        toidsql_fail(ctx, fn, f, rc, -1);
        return;
    }
    if (how & BOUND_BLOB) {
        sqlite3_result_blob(ctx, bin, (int)toid_bin_size(f), SQLITE_TRANSIENT);
        return;
    }
    char text[TOID_TEXT_MAX];
    text_result(ctx, fn, f, toid_encode(f, bin, text, sizeof text), text);
}

/* ---- registration ------------------------------------------------------- */

#define PURE (SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS)
/* Like random(): no side effect a schema could abuse, but not deterministic
 * (SQLite's documentation counts random() as innocuous). Innocuous lets
 * DEFAULT (toid_new('ulid')) work with PRAGMA trusted_schema=OFF too. */
#define GENERATOR (SQLITE_UTF8 | SQLITE_INNOCUOUS)
/* Changes the connection's settings: only from top-level SQL, never from a
 * trigger or view of a schema one may not trust. */
#define SETTING (SQLITE_UTF8 | SQLITE_DIRECTONLY)
/* The bounds of a time: innocuous, but not deterministic, since a text
 * relative to the clock ('now', 'now-1h', '-15m') gives another bound each
 * time: an index on an expression, a partial index's WHERE, a CHECK or a
 * generated column holding one would go stale (SQLite refuses its own
 * date('now') there for the same reason). Range queries still search the
 * index: the bounds are computed once, when the scan starts. */
#define BOUNDS (SQLITE_UTF8 | SQLITE_INNOCUOUS)

typedef struct sql_function {
    const char *name;
    int argc;
    int flags;
    void (*fn)(sqlite3_context *, int, sqlite3_value **);
    intptr_t data;      /* user data: a BOUND_* for fn_bound */
    int wants_state;    /* user data is the connection's conn_state */
} sql_function;

static const sql_function functions[] = {
    {"toid_new", 1, GENERATOR, fn_new, 0, 1},
    {"toid_new_blob", 1, GENERATOR, fn_new_blob, 0, 1},
    {"toid_new", 2, GENERATOR, fn_new, 0, 1},
    {"toid_new_blob", 2, GENERATOR, fn_new_blob, 0, 1},
    {"toid_node", 1, SETTING, fn_node, 0, 1},
    {"toid_node", 2, SETTING, fn_node, 0, 1},
    {"toid_decode", 2, PURE, fn_decode, 0, 0},
    {"toid_encode", 2, PURE, fn_encode, 0, 0},
    {"toid_int", 2, PURE, fn_int, 0, 0},
    {"toid_unix_ms", 2, PURE, fn_unix_ms, 0, 0},
    {"toid_time", 2, PURE, fn_time, 0, 0},
    {"toid_inspect", 2, PURE, fn_inspect, 0, 0},
    {"toid_uuid_inspect", 1, PURE, fn_uuid_inspect, 0, 0},
    {"toid_min", 2, BOUNDS, fn_bound, BOUND_MIN, 0},
    {"toid_max", 2, BOUNDS, fn_bound, BOUND_MAX, 0},
    {"toid_min_blob", 2, BOUNDS, fn_bound, BOUND_MIN | BOUND_BLOB, 0},
    {"toid_max_blob", 2, BOUNDS, fn_bound, BOUND_MAX | BOUND_BLOB, 0},
};

int sqlite3_toid_init(sqlite3 *db, char **err_msg, const sqlite3_api_routines *api) {
    SQLITE_EXTENSION_INIT2(api);
    conn_state *st = sqlite3_malloc(sizeof *st);
    if (!st)
        return SQLITE_NOMEM;
    st->refs = 1;   /* ours, until the loop is done */
    for (int i = 0; i < TOID_FORMAT_COUNT; i++) {
        st->node[i] = -1;
        st->claim[i] = NULL;
        st->gen[i] = NULL;
        memset(&st->at[i], 0, sizeof st->at[i]);
    }
    toidsql_gens_init();
    int rc = SQLITE_OK;
    for (size_t i = 0; rc == SQLITE_OK && i < sizeof functions / sizeof functions[0]; i++) {
        const sql_function *d = &functions[i];
        if (d->wants_state) {
            st->refs++;   /* SQLite calls conn_state_release once for this one, even on failure */
            rc = sqlite3_create_function_v2(db, d->name, d->argc, d->flags, st, d->fn, NULL, NULL,
                                            conn_state_release);
        } else {
            rc = sqlite3_create_function_v2(db, d->name, d->argc, d->flags, (void *)d->data, d->fn,
                                            NULL, NULL, NULL);
        }
    }
    conn_state_release(st);
    if (rc != SQLITE_OK && err_msg)
        *err_msg = sqlite3_mprintf("toid: registering the functions failed: %s",
                                   sqlite3_errstr(rc));
    return rc;
}
