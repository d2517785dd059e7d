/*
 * pg_gen.c — generating IDs: x_new() for every format.
 *
 * PostgreSQL backends are forked processes, so a generator in a backend's
 * memory is that backend's alone. When toid is in shared_preload_libraries,
 * one generator per format lives in the server's shared memory, initialised
 * once by the postmaster with TOID_GEN_SHARED: every backend (and parallel
 * worker) draws from it, so IDs are monotonic across the whole cluster and a
 * node format's one node id is used by one generator only. Without
 * preloading each backend has its own generators: IDs are monotonic per
 * backend only (said once per backend with a NOTICE), and the node formats
 * are refused, since every backend would issue the same node's IDs.
 *
 * The node of nanoflake and ulid-flake-scalable is the setting toid.node
 * (postgresql.conf; read at server start); unset, those formats refuse.
 */
#include "pgtoid.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include <string.h>

PG_FUNCTION_INFO_V1(toid_pg_new);

/* Why a shared generator cannot be used (besides a library error code). */
#define GEN_READY 0
#define GEN_NO_NODE 1     /* toid.node unset */
#define GEN_NODE_RANGE 2  /* toid.node too large for this format */

/* The shared memory: this head, then each format's generator in
 * toid_gen_size(format) bytes on its own cache lines, found by offset. */
typedef struct shared_gens {
    int state[TOID_FORMAT_COUNT];  /* GEN_* or the library's error from toid_gen_init */
} shared_gens;

static shared_gens *shared;  /* set in every process when preloaded */

static Size gen_offset(int f) {
    Size off = CACHELINEALIGN(sizeof(shared_gens));
    for (int i = 0; i < f; i++)
        off += CACHELINEALIGN(toid_gen_size((toid_format)i));
    return off;
}

static toid_gen *shared_gen(toid_format f) {
    return (toid_gen *)((char *)shared + gen_offset(f));
}

static int node_setting = -1;
static toid_gen *local_gens[TOID_FORMAT_COUNT];
static bool notice_given;

static shmem_request_hook_type prev_shmem_request_hook;
static shmem_startup_hook_type prev_shmem_startup_hook;

/* The extension's settings for fmt into *c: GEN_READY, GEN_NO_NODE or
 * GEN_NODE_RANGE. */
static int gen_config_node(const pgtoid_fmt *fmt, uint32 flags, int node, toid_gen_config *c) {
    toid_gen_config_default(fmt->f, c);
    /* A database default must not fail an INSERT because a few hundred rows
     * fell in one ms: where the format's policy is the spec's overflow error
     * (ulid-flake: 15-20 random bits a ms), wait for the next ms instead. */
    if (c->on_exhausted == TOID_EXHAUSTED_ERROR)
        c->on_exhausted = TOID_EXHAUSTED_WAIT;
    c->flags = flags;
    if (fmt->node_max >= 0) {
        if (node < 0)
            return GEN_NO_NODE;
        if (node > fmt->node_max)
            return GEN_NODE_RANGE;
        c->node = (uint32)node;
    }
    return GEN_READY;
}

static int gen_config(const pgtoid_fmt *fmt, uint32 flags, toid_gen_config *c) {
    return gen_config_node(fmt, flags, node_setting, c);
}

/* Initialises g (toid_gen_size(fmt->f) bytes) for fmt: GEN_READY,
 * GEN_NO_NODE, GEN_NODE_RANGE or an error. */
static int init_gen(toid_gen *g, const pgtoid_fmt *fmt, uint32 flags) {
    toid_gen_config c;
    int st = gen_config(fmt, flags, &c);
    return st != GEN_READY ? st : toid_gen_init_size(g, toid_gen_size(fmt->f), &c);
}

static void request_shmem(void) {
    if (prev_shmem_request_hook)
        prev_shmem_request_hook();
    RequestAddinShmemSpace(gen_offset(TOID_FORMAT_COUNT));
    pgtoid_marks_request();
    pgtoid_claims_request();
}

/* Runs in the postmaster (and again after a crash re-initialises shared
 * memory): the generators are made once, before any backend forks. */
static void startup_shmem(void) {
    bool found;
    if (prev_shmem_startup_hook)
        prev_shmem_startup_hook();
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    shared = ShmemInitStruct("toid generators", gen_offset(TOID_FORMAT_COUNT), &found);
    /* (the node formats' generators are initialised again by the claims
     * worker, with the node it claimed: pgtoid_gen_reinit) */
    if (!found)
        for (int f = 0; f < TOID_FORMAT_COUNT; f++)
            shared->state[f] = init_gen(shared_gen((toid_format)f), pgtoid_format_of((toid_format)f), TOID_GEN_SHARED);
    pgtoid_marks_startup();
    pgtoid_claims_startup();
    LWLockRelease(AddinShmemInitLock);
}

int pgtoid_gen_reinit(toid_format f, uint32 node) {
    const pgtoid_fmt *fmt = pgtoid_format_of(f);
    toid_gen_config c;
    int st = gen_config_node(fmt, TOID_GEN_SHARED, (int)node, &c);
    if (st == GEN_READY)
        st = toid_gen_init_size(shared_gen(f), toid_gen_size(f), &c);
    shared->state[f] = st;
    return st;
}

int pgtoid_node_setting(void) { return node_setting; }

void pgtoid_gen_init(void) {
    int node_max = 0;
    for (int f = 0; f < TOID_FORMAT_COUNT; f++)
        node_max = Max(node_max, pgtoid_format_of((toid_format)f)->node_max);
    DefineCustomIntVariable("toid.node",
                            "Node id of the node formats (nanoflake generator, ulid-flake-scalable sid).",
                            "-1 (the default) means unset: nanoflake_new() and ulid_flake_scalable_new() "
                            "then refuse. Must be unique among every generator of the format.",
                            &node_setting, -1, -1, node_max,
                            /* fixed at start when the generators are shared; otherwise node
                             * formats are refused anyway (and PGC_POSTMASTER settings cannot be
                             * defined after start) */
                            process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP,
                            0, NULL, NULL, NULL);
    pgtoid_marks_init();    /* their settings, before the prefix is closed */
    pgtoid_claims_init();
    MarkGUCPrefixReserved("toid");
    if (process_shared_preload_libraries_in_progress) {
        prev_shmem_request_hook = shmem_request_hook;
        shmem_request_hook = request_shmem;
        prev_shmem_startup_hook = shmem_startup_hook;
        shmem_startup_hook = startup_shmem;
    }
}

static pg_attribute_noreturn() void refuse(const pgtoid_fmt *fmt, int state) {
    if (state == GEN_NO_NODE)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("%s needs a node: toid.node is not set", fmt->name),
                        errhint("Set toid.node (0..%d for %s, unique among its generators) in "
                                "postgresql.conf and restart the server.", fmt->node_max, fmt->name)));
    if (state == GEN_NODE_RANGE)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("toid.node = %d is out of range for %s (0..%d)", node_setting,
                               fmt->name, fmt->node_max)));
    if (state == TOID_EINVAL) {     /* a setting the library refuses: it says which, and why */
        toid_gen_config c;
        char why[200];
        if (gen_config(fmt, 0, &c) == GEN_READY &&
            toid_gen_config_explain(&c, TOID_FOR_GEN_INIT, why, sizeof why) < 0)
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("%s generator: settings refused", fmt->name), errdetail("%s", why)));
    }
    pgtoid_error(fmt, state, "generator");
}

/* The generator this backend uses for fmt. */
static toid_gen *generator(const pgtoid_fmt *fmt) {
    int rc;
    if (shared) {
        if (fmt->node_max >= 0 && pgtoid_claims_enabled())
            return shared_gen(fmt->f);      /* served while claimed: pgtoid_claims_next */
        if (shared->state[fmt->f] != GEN_READY)
            refuse(fmt, shared->state[fmt->f]);
        return shared_gen(fmt->f);
    }
    if (fmt->node_max >= 0)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("%s needs toid in shared_preload_libraries", fmt->name),
                        errdetail("Without it each backend has its own generator, and all of them "
                                  "would issue IDs of the same node."),
                        errhint("Add toid to shared_preload_libraries and set toid.node, then restart.")));
    if (local_gens[fmt->f] == NULL) {
        toid_gen *g = MemoryContextAllocZero(TopMemoryContext, toid_gen_size(fmt->f));
        rc = init_gen(g, fmt, TOID_GEN_UNLOCKED);  /* a backend is one thread */
        if (rc != GEN_READY) {
            pfree(g);
            refuse(fmt, rc);
        }
        local_gens[fmt->f] = g;
    }
    if (!notice_given) {
        notice_given = true;
        ereport(NOTICE, (errmsg("toid is not in shared_preload_libraries: IDs are monotonic per backend only")));
    }
    return local_gens[fmt->f];
}

Datum toid_pg_new(PG_FUNCTION_ARGS) {
    const pgtoid_fmt *fmt = pgtoid_format(fcinfo);
    uint8_t bin[TOID_BIN_MAX];
    toid_gen *g = generator(fmt);
    int rc;
    if (shared)
        pgtoid_marks_before(fmt);   /* the cluster's one stream: above the mark of before this start */
    rc = shared ? pgtoid_claims_next(fmt, g, bin) : toid_gen_next(g, bin, NULL);
    if (rc < 0)
        pgtoid_error(fmt, rc, "generate");
    if (shared)
        pgtoid_marks_admit(fmt, bin);
    return pgtoid_from_bin(fmt, bin);
}

/* ---- IDs at a given time: x_new(timestamptz) ----
 *
 * For backfills: an ID whose time is the given instant's ms, with fresh
 * random bits from the library's CSPRNG. Only for the formats whose IDs are
 * unique by their random bits alone (no node, no sequence: at least 62 bits
 * a ms besides the time, by the library's layout), since an ID at a past
 * time cannot be made unique against what a node or a small random space
 * already issued in that ms. Each backend has a private state per format
 * (toid_new_at): successive IDs of one ms are increasing, as the live
 * generator's are; when the time goes back, or a ms is used up, it starts
 * afresh with new random bits. These IDs are not
 * ordered against the live generator (x_new()), nor admitted by its marks:
 * they are not part of its stream. */

PG_FUNCTION_INFO_V1(toid_pg_new_at);

/* This backend's states for IDs at given times, one per format (the
 * library's toid_new_at: started afresh when the time goes back, a ms is
 * used up, or after fork). */
static toid_at at_state[TOID_FORMAT_COUNT];

/* The formats that can (the library's rule), their function names the hint;
 * the library's explanation the detail, as every front end words it. */
static pg_attribute_noreturn() void refuse_at_time(const pgtoid_fmt *fmt) {
    char use[256] = "", why[256] = "";
    size_t used = 0;
    for (int f = 0; f < TOID_FORMAT_COUNT; f++)
        if (toid_at_time_unique((toid_format)f, NULL) == 1 && used < sizeof use) {
            snprintf(use + used, sizeof use - used, "%s%s_new(timestamptz)", used ? ", " : "",
                     pgtoid_format_of((toid_format)f)->token);
            used += strlen(use + used);
        }
    toid_at_time_explain(fmt->f, why, sizeof why);
    why[0] = (char)pg_toupper((unsigned char)why[0]);
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("%s IDs cannot be made at a given time", fmt->name),
                    errdetail("%s.", why),
                    errhint("For IDs at given times (backfills) use %s.", use)));
}

Datum toid_pg_new_at(PG_FUNCTION_ARGS) {
    const pgtoid_fmt *fmt = pgtoid_format(fcinfo);
    int64 ms = pgtoid_timestamptz_to_ms(PG_GETARG_DATUM(0));
    uint8_t bin[TOID_BIN_MAX];
    int rc;
    if (toid_at_time_unique(fmt->f, NULL) != 1)
        refuse_at_time(fmt);
    rc = toid_new_at(&at_state[fmt->f], fmt->f, ms, bin);
    if (rc == TOID_ERANGE)
        pgtoid_time_range_error(fmt);
    if (rc < 0)
        pgtoid_error(fmt, rc, "generate");
    return pgtoid_from_bin(fmt, bin);
}
