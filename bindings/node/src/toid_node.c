/*
 * toid_node.c — the Node-API addon under require('toid'): a thin layer over
 * libtoid (linked in statically, its symbols kept private).
 *
 * Written against Node-API's C interface (node_api.h), without a C++
 * wrapper: one language with the library, no exceptions, and the least
 * work per call on the hot paths (ulid(), uuidv7(): no argument parsing at
 * all, one library call, one string). Formats arrive as their index in the
 * library's list (index.js maps names once). The module keeps no JavaScript
 * values between calls but the ClaimError class index.js hands it (one
 * reference per thread: instance data), so it loads in any number of
 * worker threads.
 *
 * Node claims (claim/toid_claim.h, linked in privately as libtoid is): the
 * formats whose IDs carry a node (nanoflake, ulid-flake-scalable, and
 * uid11-seq, whose 10 low bits then carry it) make IDs only with a node
 * this process holds a claim of: the process-wide generators with the
 * process's node (toid_claim_process: claimed on the first ID from the
 * host's claim configuration, else the host's node registry) or the node
 * configure()/claim() named; each Generator with a node of its own
 * (toid_claim_process_own). Every ID, or batch, is admitted by its claim
 * (toid_claim_admit) before it is returned. The process-wide state is
 * shared by the worker threads (a mutex on the slow path).
 */
#define NAPI_VERSION 8
#include <node_api.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <toid.h>

#include "toid_claim.h"
#include "toid_claim_epoch.h"
#include "toid_node_max.h"
#include "toid_bind_words.h"

/* The largest node of each format's generator (nanoflake 1023,
 * ulid-flake-scalable 31), 0 for the formats without a node: asked of the
 * format descriptor at each load (toid_node_max.h; worker threads find the same). */
static _Atomic uint32_t node_max[TOID_FORMAT_COUNT];

/* The largest node a claim of each format holds (toid_claim_node_max: the
 * generator's node, or uid11-seq's 10 low bits), 0 for the formats whose
 * IDs carry no node: the claimed formats. */
static _Atomic uint32_t claim_max[TOID_FORMAT_COUNT];

/* The process-wide generator of a claimed format: the library's generator
 * of the format, configured with the node of claim k. Shared by every
 * worker thread: cfg, want and serial under pgen_lock; k read without it
 * (claims are never freed: claim_process.c). */
typedef struct {
    toid_gen_config cfg;       /* configure()'s settings */
    int64_t want;              /* -1: the process's node; else the node configure()/claim() named */
    _Atomic(toid_claim *) k;   /* the claim the generator is configured with; NULL: claimed on
                                  the next ID */
    unsigned serial;           /* moves at each configure() and claim() */
} process_gen;
static process_gen pgen[TOID_FORMAT_COUNT];
static pthread_mutex_t pgen_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t pgen_once = PTHREAD_ONCE_INIT;

/* Returns NULL from the callback if a Node-API call failed (an exception is
 * then pending, or we raise one). */
#define CHECK(env, call)                                                   \
    do {                                                                   \
        if ((call) != napi_ok) {                                           \
            bool pending_ = false;                                         \
            napi_is_exception_pending((env), &pending_);                   \
            if (!pending_)                                                 \
                napi_throw_error((env), "TOID_ENAPI", "Node-API call failed"); \
            return NULL;                                                   \
        }                                                                  \
    } while (0)

/* ---- errors ------------------------------------------------------------ */

/* The code property of an error: "TOID_ECHAR", ... */
static napi_value error_code(napi_env env, int rc) {
    char code[32];
    snprintf(code, sizeof code, "TOID_E%s", toid_err_name(rc));
    for (char *c = code + 6; *c; c++)
        if (*c >= 'a' && *c <= 'z')
            *c = (char)(*c - 'a' + 'A');
    napi_value v = NULL;
    napi_create_string_utf8(env, code, NAPI_AUTO_LENGTH, &v);
    return v;
}

/* Throws err (made by make with message msg and .code code) with .reason
 * and, when pos >= 0, .position. */
static napi_value throw_with(napi_env env,
                             napi_status (*make)(napi_env, napi_value, napi_value, napi_value *),
                             const char *msg, napi_value code, const char *reason, long pos) {
    napi_value m, err, v;
    if (napi_create_string_utf8(env, msg, NAPI_AUTO_LENGTH, &m) != napi_ok
        || make(env, code, m, &err) != napi_ok)
        return NULL;
    if (napi_create_string_utf8(env, reason, NAPI_AUTO_LENGTH, &v) == napi_ok)
        napi_set_named_property(env, err, "reason", v);
    if (pos >= 0 && napi_create_int64(env, pos, &v) == napi_ok)
        napi_set_named_property(env, err, "position", v);
    napi_throw(env, err);
    return NULL;
}

/* Throws an Error (range false) or a RangeError (range true) with message
 * msg, .code ("TOID_ECHAR"), .reason ("char") and, when pos >= 0, .position. */
static napi_value throw_toid(napi_env env, bool range, const char *msg, int rc, long pos) {
    return throw_with(env, range ? napi_create_range_error : napi_create_error, msg,
                      error_code(env, rc), toid_err_name(rc), pos);
}

/* Throws an Error for a generator failure (clock, exhausted, forked...). */
static napi_value throw_generation(napi_env env, toid_format f, int rc) {
    char msg[320];
    const char *name = toid_format_get(f)->name;
    if (rc == TOID_EFORKED)
        snprintf(msg, sizeof msg, "%s: this process is a fork and its parent goes on with the "
                 "node it had: call toid.configure('%s', { node }), or make a new "
                 "toid.Generator, with a node unique among the running processes (forked)", name, name);
    else
        snprintf(msg, sizeof msg, "%s: %s (%s)", name, toid_strerror(rc), toid_err_name(rc));
    return throw_toid(env, false, msg, rc, -1);
}

/* Throws a RangeError "<fn>: <param>: '<text>' is not a valid <what>: <the
 * library's explanation> (<reason>)" for a text refused, the explanation
 * toid_explain's for explain_f (a format, or -1 for detection): the words
 * `toid inspect` prints. .position (for 'char') counts bytes of the UTF-8
 * text from 0, as in every front end. */
static napi_value throw_refusal(napi_env env, const char *fn, const char *param, int explain_f,
                                const char *what, int rc, const char *text, size_t len,
                                size_t pos) {
    char why[320];
    if (toid_explain(explain_f, text, len, rc, pos, why, sizeof why) < 0)
        snprintf(why, sizeof why, "%s", toid_strerror(rc));
    char shown[128];
    size_t n = len < 100 ? len : 100;
    while (n < len && n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
        n--;                              /* (not in the middle of a character) */
    memcpy(shown, text, n);
    strcpy(shown + n, len > n ? "..." : "");
    char msg[640];
    snprintf(msg, sizeof msg, "%s: %s: '%s' is not a valid %s: %s (%s)", fn, param, shown, what,
             why, toid_err_name(rc));
    return throw_toid(env, true, msg, rc, rc == TOID_ECHAR ? (long)pos : -1);
}

/* throw_refusal for a text that format f (or no format, f < 0) refused. */
static napi_value throw_parse(napi_env env, const char *fn, int f, int rc, const char *text,
                              size_t len, size_t pos) {
    return throw_refusal(env, fn, "text", f, f >= 0 ? toid_format_get((toid_format)f)->name : "ID",
                         rc, text, len, pos);
}

/* Throws a RangeError "what: message (class)" for other library errors. */
static napi_value throw_value(napi_env env, const char *what, int rc) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s: %s (%s)", what, toid_strerror(rc), toid_err_name(rc));
    return throw_toid(env, true, msg, rc, -1);
}

/* A configuration the library refuses: its reason, which names the setting
 * ("node: 1024 is above nanoflake's largest, 1023"); else throw_value. */
static napi_value throw_config(napi_env env, const char *what, int rc, const toid_gen_config *cfg,
                               toid_config_use use) {
    char why[200], msg[256];
    if (rc != TOID_EINVAL || toid_gen_config_explain(cfg, use, why, sizeof why) == 0)
        return throw_value(env, what, rc);
    snprintf(msg, sizeof msg, "%s: %s (%s)", what, why, toid_err_name(rc));
    return throw_toid(env, true, msg, rc, -1);
}

/* ---- node claims ---------------------------------------------------------- */

/* Per thread (instance data, made by setClaimError when index.js loads):
 * the ClaimError class index.js gave, and the thread's states for IDs at
 * given times (toid_new_at takes no lock; a worker thread has its own). */
typedef struct {
    napi_ref claim_error;
    toid_at at[TOID_FORMAT_COUNT];
} addon_data;

static void addon_data_free(napi_env env, void *data, void *hint) {
    (void)hint;
    addon_data *d = data;
    if (d->claim_error)
        napi_delete_reference(env, d->claim_error);
    free(d);
}

/* The short name of a claim error ("busy", "behind", "io", "lost",
 * "corrupt") or a library error ("invalid"). */
static const char *claim_reason(int rc) {
    switch (rc) {
#define TOID__NODE_CLAIM_NAME(name, val, shortname, msg) case val: return shortname;
    TOID_CLAIM_ERROR_LIST(TOID__NODE_CLAIM_NAME)
#undef TOID__NODE_CLAIM_NAME
    default: return toid_err_name(rc);
    }
}

/* Throws a ClaimError "<format>: <why> (<reason>)" with .code
 * ("TOID_EBUSY"), .reason ("busy") and .format; an Error if index.js gave
 * no class. */
static napi_value throw_claim(napi_env env, toid_format f, int rc, const char *why) {
    const char *reason = claim_reason(rc);
    char msg[2600], code[32];
    snprintf(msg, sizeof msg, "%s: %s (%s)", toid_format_get(f)->name, why, reason);
    snprintf(code, sizeof code, "TOID_E%s", reason);
    for (char *c = code + 6; *c; c++)
        if (*c >= 'a' && *c <= 'z')
            *c = (char)(*c - 'a' + 'A');
    addon_data *d = NULL;
    napi_value ctor = NULL, m, err = NULL, v;
    napi_get_instance_data(env, (void **)&d);
    if (d && d->claim_error)
        napi_get_reference_value(env, d->claim_error, &ctor);
    if (napi_create_string_utf8(env, msg, NAPI_AUTO_LENGTH, &m) != napi_ok)
        return NULL;
    if (!ctor || napi_new_instance(env, ctor, 1, &m, &err) != napi_ok)
        if (napi_create_error(env, NULL, m, &err) != napi_ok)
            return NULL;
    if (napi_create_string_utf8(env, code, NAPI_AUTO_LENGTH, &v) == napi_ok)
        napi_set_named_property(env, err, "code", v);
    if (napi_create_string_utf8(env, reason, NAPI_AUTO_LENGTH, &v) == napi_ok)
        napi_set_named_property(env, err, "reason", v);
    if (napi_create_string_utf8(env, toid_format_get(f)->name, NAPI_AUTO_LENGTH, &v) == napi_ok)
        napi_set_named_property(env, err, "format", v);
    napi_throw(env, err);
    return NULL;
}

/* ClaimError for IDs of node `node` that its claim did not admit. */
static napi_value throw_refused(napi_env env, toid_format f, uint32_t node, int rc,
                                const char *whose) {
    char why[400];
    snprintf(why, sizeof why, "node %u: %s claim did not admit the ID: %s%s", (unsigned)node,
             whose, toid_claim_strerror(rc),
             rc == TOID_CLAIM_ELOST ? " (given back, lost or past its deadline: no more IDs "
             "of this node from it)" : "");
    return throw_claim(env, f, rc, why);
}

/* claim_epoch, time_epoch, set_low_node: toid_claim_epoch.h */

/* The node the generator itself takes: the claim's for the formats whose
 * generator has one; 0 for uid11-seq, whose node goes into the value's low
 * bits after generating (set_low_node). */
static uint32_t gen_node(toid_format f, uint32_t node) {
    return atomic_load(&node_max[f]) ? node : 0;
}


/* Once per process: the claimed formats and their process-wide settings. */
static void pgen_init(void) {
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        atomic_store(&claim_max[f], toid_claim_node_max((toid_format)f));
        memset(&pgen[f].cfg, 0, sizeof pgen[f].cfg);
        pgen[f].cfg.format = (toid_format)f;
        pgen[f].cfg.epoch_ms = TOID_EPOCH_DEFAULT;
        pgen[f].want = -1;
        atomic_store(&pgen[f].k, NULL);
    }
}

/* The claim of the process-wide generator of claimed format f, the
 * generator configured with its node: the node configure()/claim() named,
 * else the process's node, claimed on the first ID and after a claim stops
 * admitting. NULL with a ClaimError pending if none can be had. */
static toid_claim *process_claim(napi_env env, toid_format f) {
    toid_claim *k = atomic_load(&pgen[f].k);
    if (k)
        return k;
    process_gen *p = &pgen[f];
    char err[2048] = "";
    pthread_mutex_lock(&pgen_lock);
    int rc = 0;
    if (!(k = atomic_load(&p->k))) {
        rc = toid_claim_process(f, claim_epoch(&p->cfg), p->want, &k, err, sizeof err);
        if (rc == 0) {
            toid_gen_config cfg = p->cfg;
            cfg.node = gen_node(f, toid_claim_node(k));
            if ((rc = toid_configure(&cfg)) < 0) {
                pthread_mutex_unlock(&pgen_lock);
                throw_config(env, "configure", rc, &cfg, TOID_FOR_CONFIGURE);
                return NULL;
            }
            atomic_store(&p->k, k);
        }
    }
    pthread_mutex_unlock(&pgen_lock);
    if (rc < 0)
        return throw_claim(env, f, rc, err), NULL;
    return k;
}

/* Forgets k as the claim of f's process-wide generator (it stopped admitting). */
static void process_drop(toid_format f, toid_claim *k) {
    toid_claim *expected = k;
    atomic_compare_exchange_strong(&pgen[f].k, &expected, NULL);
}

/* Admits the IDs bin[0..n) of f (their node into the low bits first, for
 * uid11-seq): 0 or the claim's refusal. */
static int admit_ids(toid_format f, toid_claim *k, int64_t epoch, uint8_t *bin, size_t n) {
    if (n == 0)
        return 0;
    size_t size = toid_bin_size(f);
    uint32_t node = toid_claim_node(k);
    for (size_t i = 0; i < n; i++)
        set_low_node(f, bin + i * size, node);
    int64_t lo, hi;   /* the claimed formats' generators are strictly increasing */
    int rc = toid_time_of(f, bin, epoch, &lo);
    if (rc == 0)
        rc = toid_time_of(f, bin + (n - 1) * size, epoch, &hi);
    if (rc == 0)
        rc = toid_claim_admit(k, lo, hi);
    return rc;
}

/* n (>= 1) IDs of claimed format f from its process-wide generator into
 * bin, admitted by its claim. true, or false with an exception pending. A
 * claim that stops admitting (lost, given back) is replaced once: the IDs
 * made with the old one never leave. */
static bool process_ids(napi_env env, toid_format f, uint8_t *bin, size_t n) {
    for (int again = 0;; again++) {
        toid_claim *k = process_claim(env, f);
        if (!k)
            return false;
        int64_t epoch;
        pthread_mutex_lock(&pgen_lock);
        epoch = time_epoch(&pgen[f].cfg);
        pthread_mutex_unlock(&pgen_lock);
        int rc = n == 1 ? toid_new(f, bin) : toid_new_batch(f, bin, n, NULL);
        if (rc == TOID_EFORKED && !again) {
            process_drop(f, k);
            continue;
        }
        if (rc < 0)
            return throw_generation(env, f, rc), false;
        rc = admit_ids(f, k, epoch, bin, n);
        if (rc == 0)
            return true;
        if (rc == TOID_CLAIM_ELOST && !again) {
            process_drop(f, k);
            continue;
        }
        return throw_refused(env, f, toid_claim_node(k), rc, "the process's"), false;
    }
}

/* ---- arguments ----------------------------------------------------------- */

/* Up to 4 arguments of a call. */
typedef struct {
    size_t argc;
    napi_value argv[4];
} args_t;

static bool get_args(napi_env env, napi_callback_info info, args_t *a) {
    a->argc = 4;
    return napi_get_cb_info(env, info, &a->argc, a->argv, NULL, NULL) == napi_ok;
}

/* Argument i as a format index (index.js has checked the name). */
static int format_at(napi_env env, const args_t *a, size_t i) {
    int32_t f = -1;
    if (i >= a->argc || napi_get_value_int32(env, a->argv[i], &f) != napi_ok || f < 0
        || f >= TOID_FORMAT_COUNT) {
        napi_throw_range_error(env, "TOID_EINVALID", "unknown format (invalid)");
        return -1;
    }
    return f;
}

/* The arguments of a call whose first argument is a format: its index, or -1
 * with an exception pending. */
static int format_call(napi_env env, napi_callback_info info, args_t *a) {
    return get_args(env, info, a) ? format_at(env, a, 0) : -1;
}

/* A string argument's UTF-8: in buf when it fits, else on the heap (a text
 * longer than any ID: an error's words still say its whole length). */
typedef struct {
    char buf[128];
    char *text;   /* buf, or malloc'd */
    size_t len;
} text_arg;

static void text_free(text_arg *t) {
    if (t->text && t->text != t->buf)
        free(t->text);
    t->text = NULL;
}

/* Argument i as a string into *t (text_free it); false with a TypeError
 * "<fn>: <param>: must be a string" pending. */
static bool string_at(napi_env env, const args_t *a, size_t i, const char *fn, const char *param,
                      text_arg *t) {
    napi_valuetype type = napi_undefined;
    t->text = NULL;
    if (i < a->argc)
        napi_typeof(env, a->argv[i], &type);
    if (type != napi_string) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s: %s: must be a string", fn, param);
        napi_throw_type_error(env, "TOID_EINVALID", msg);
        return false;
    }
    size_t full = 0;
    if (napi_get_value_string_utf8(env, a->argv[i], NULL, 0, &full) != napi_ok)
        return false;
    t->text = full < sizeof t->buf ? t->buf : malloc(full + 1);
    if (!t->text) {
        napi_throw_error(env, "TOID_ENOMEM", "out of memory");
        return false;
    }
    if (napi_get_value_string_utf8(env, a->argv[i], t->text, full + 1, &t->len) != napi_ok) {
        text_free(t);
        return false;
    }
    return true;
}

/* Argument i as a C string (a function's name from index.js), else dflt. */
static const char *name_at(napi_env env, const args_t *a, size_t i, char *buf, size_t cap,
                           const char *dflt) {
    size_t len;
    if (i < a->argc && napi_get_value_string_utf8(env, a->argv[i], buf, cap, &len) == napi_ok)
        return buf;
    return dflt;
}

/* Argument i as a Buffer / Uint8Array of format f's value, checked. */
static bool value_at(napi_env env, const args_t *a, size_t i, int f, uint8_t *bin) {
    bool is_buf = false;
    void *data = NULL;
    size_t len = 0;
    if (i < a->argc)
        napi_is_buffer(env, a->argv[i], &is_buf);
    if (!is_buf || napi_get_buffer_info(env, a->argv[i], &data, &len) != napi_ok) {
        napi_throw_type_error(env, "TOID_EINVALID", "an ID's bytes must be a Buffer");
        return false;
    }
    int rc = toid_from_bytes((toid_format)f, data, len, bin);
    if (rc < 0) {
        throw_value(env, "not a value of the format", rc);
        return false;
    }
    return true;
}

/* Argument i as an epoch in ms, or TOID_EPOCH_DEFAULT when undefined/null. */
static bool epoch_at(napi_env env, const args_t *a, size_t i, int64_t *epoch) {
    *epoch = TOID_EPOCH_DEFAULT;
    napi_valuetype t = napi_undefined;
    if (i < a->argc)
        napi_typeof(env, a->argv[i], &t);
    if (t == napi_undefined || t == napi_null)
        return true;
    if (t != napi_number || napi_get_value_int64(env, a->argv[i], epoch) != napi_ok) {
        napi_throw_type_error(env, "TOID_EINVALID", "epoch must be a number of ms or a Date");
        return false;
    }
    return true;
}

/* ---- node formats ------------------------------------------------------- */

/* Fills node_max (see toid_node_max.h); the same answer on every load. */
static void fill_node_max(void) {
    uint32_t max[TOID_FORMAT_COUNT];
    toid_bindings_node_max(max);
    for (int f = 0; f < TOID_FORMAT_COUNT; f++)
        atomic_store(&node_max[f], max[f]);
}

/* ---- results ------------------------------------------------------------ */

/* A new Buffer with the binary value of format f. */
static napi_value bytes_value(napi_env env, toid_format f, const uint8_t *bin) {
    napi_value buf;
    CHECK(env, napi_create_buffer_copy(env, toid_bin_size(f), bin, NULL, &buf));
    return buf;
}

/* A generator of the caller's own (toid.Generator), held by a JavaScript
 * external and freed with it (its claimed node given back then, unless
 * close() did). Allocated with toid_gen_size(format) bytes at gen (uid11's
 * set follows its toid_gen), so gen comes last. */
typedef struct {
    toid_format format;
    toid_claim *claim;   /* a claimed format's node of its own (toid_claim_process_own) */
    int64_t epoch;       /* what toid_time_of takes for its IDs */
    bool closed;         /* close(): the node given back, no more IDs */
    toid_gen gen;
} own_gen;

/* Marks the externals that are own_gen, so no other external passes for one. */
static const napi_type_tag OWN_GEN_TAG = { 0x746f69645f67656eULL, 0x8e1c7a0b5f3d2941ULL };

static void own_gen_free(napi_env env, void *data, void *hint) {
    (void)env;
    (void)hint;
    own_gen *g = data;
    if (g->claim && !g->closed)
        toid_claim_process_release(g->claim);   /* (the claim stays allocated: claim_process.c) */
    free(g);
}

/* The arguments of a generating call: the first is a format index (the
 * process-wide generator: *gen NULL) or a generator from genCreate. Returns
 * the format, or -1 with an exception pending. */
static int target_call(napi_env env, napi_callback_info info, args_t *a, own_gen **gen) {
    *gen = NULL;
    if (!get_args(env, info, a))
        return -1;
    napi_valuetype t = napi_undefined;
    if (a->argc > 0)
        napi_typeof(env, a->argv[0], &t);
    if (t != napi_external)
        return format_at(env, a, 0);
    bool ours = false;
    own_gen *g = NULL;
    if (napi_check_object_type_tag(env, a->argv[0], &OWN_GEN_TAG, &ours) != napi_ok || !ours
        || napi_get_value_external(env, a->argv[0], (void **)&g) != napi_ok) {
        napi_throw_type_error(env, "TOID_EINVALID", "not a toid generator");
        return -1;
    }
    if (g->closed) {
        char msg[160];
        snprintf(msg, sizeof msg, "this %s Generator is closed (its node was given back): make "
                 "a new one (closed)", toid_format_get(g->format)->name);
        napi_throw_error(env, "TOID_ECLOSED", msg);
        return -1;
    }
    *gen = g;
    return (int)g->format;
}

/* n (>= 1) IDs of f into bin: from gen (NULL: the process-wide generator),
 * admitted by the claim when f is claimed. true, or false with an
 * exception pending. */
static bool make_ids(napi_env env, toid_format f, own_gen *gen, uint8_t *bin, size_t n) {
    if (!gen && atomic_load(&claim_max[f]))
        return process_ids(env, f, bin, n);
    int rc = gen ? (n == 1 ? toid_gen_next(&gen->gen, bin, NULL)
                           : toid_gen_batch(&gen->gen, bin, n, NULL))
                 : (n == 1 ? toid_new(f, bin) : toid_new_batch(f, bin, n, NULL));
    if (rc < 0)
        return throw_generation(env, f, rc), false;
    if (gen && gen->claim && (rc = admit_ids(f, gen->claim, gen->epoch, bin, n)) < 0)
        return throw_refused(env, f, toid_claim_node(gen->claim), rc, "this Generator's"), false;
    return true;
}

/* ---- generating ------------------------------------------------------ */

static napi_value text_value(napi_env env, const char *text, int len) {
    napi_value s;
    CHECK(env, napi_create_string_latin1(env, text, (size_t)len, &s));
    return s;
}

static napi_value new_of(napi_env env, toid_format f, own_gen *gen) {
    char text[TOID_TEXT_MAX];
    int len;
    if (!gen && !atomic_load(&claim_max[f])) {
        len = toid_new_text(f, text, sizeof text);   /* the hot path: ulid(), uuidv7() */
    } else {
        uint8_t bin[TOID_BIN_MAX];
        if (!make_ids(env, f, gen, bin, 1))
            return NULL;
        len = toid_encode(f, bin, text, sizeof text);
    }
    if (len < 0)
        return throw_generation(env, f, len);
    return text_value(env, text, len);
}

/* ulid(), uuidv7(): no arguments to read. */
static napi_value js_ulid(napi_env env, napi_callback_info info) {
    (void)info;
    return new_of(env, TOID_ULID, NULL);
}

static napi_value js_uuidv7(napi_env env, napi_callback_info info) {
    (void)info;
    return new_of(env, TOID_UUIDV7, NULL);
}

/* The floor of a call into the addon, for the benchmarks. */
static napi_value js_noop(napi_env env, napi_callback_info info) {
    (void)env;
    (void)info;
    return NULL;
}

/* cLoop(f, n): n IDs of f made by the C library alone (toid_new_text each;
 * a claimed format's each admitted, as new() does), nothing returned: the
 * benchmarks subtract it to show what the binding itself adds to a call. */
static napi_value js_c_loop(napi_env env, napi_callback_info info) {
    args_t a;
    int f;
    int64_t n = 0;
    if ((f = format_call(env, info, &a)) < 0)
        return NULL;
    if (a.argc > 1)
        napi_get_value_int64(env, a.argv[1], &n);
    char text[TOID_TEXT_MAX];
    uint8_t bin[TOID_BIN_MAX];
    bool claimed = atomic_load(&claim_max[f]) != 0;
    for (int64_t i = 0; i < n; i++) {
        if (claimed) {
            if (!process_ids(env, (toid_format)f, bin, 1))
                return NULL;
            continue;
        }
        int rc = toid_new_text((toid_format)f, text, sizeof text);
        if (rc < 0)
            return throw_generation(env, (toid_format)f, rc);
    }
    return NULL;
}

/* newText(f or generator) */
static napi_value js_new_text(napi_env env, napi_callback_info info) {
    args_t a;
    own_gen *gen;
    int f;
    if ((f = target_call(env, info, &a, &gen)) < 0)
        return NULL;
    return new_of(env, (toid_format)f, gen);
}

/* newBytes(f or generator) -> Buffer */
static napi_value js_new_bytes(napi_env env, napi_callback_info info) {
    args_t a;
    own_gen *gen;
    int f;
    if ((f = target_call(env, info, &a, &gen)) < 0)
        return NULL;
    uint8_t bin[TOID_BIN_MAX];
    if (!make_ids(env, (toid_format)f, gen, bin, 1))
        return NULL;
    return bytes_value(env, (toid_format)f, bin);
}

/* atTimeExplain(f) -> why IDs of f cannot be made at a given time, in the
 * library's words, or null when they can. */
static napi_value js_at_time_explain(napi_env env, napi_callback_info info) {
    args_t a;
    int f;
    if ((f = format_call(env, info, &a)) < 0)
        return NULL;
    char why[256];
    int n = toid_at_time_explain((toid_format)f, why, sizeof why);
    napi_value v;
    if (n <= 0) {
        CHECK(env, napi_get_null(env, &v));
        return v;
    }
    return text_value(env, why, n);
}

/* newAt(f, ms) -> Buffer: an ID of f at unix ms (index.js has checked the
 * format with atTimeExplain and ms against timeSpan). */
static napi_value js_new_at(napi_env env, napi_callback_info info) {
    args_t a;
    int f;
    int64_t ms = 0;
    addon_data *d = NULL;
    if ((f = format_call(env, info, &a)) < 0)
        return NULL;
    if (a.argc < 2 || napi_get_value_int64(env, a.argv[1], &ms) != napi_ok)
        return throw_value(env, "newAt", TOID_EINVAL);
    CHECK(env, napi_get_instance_data(env, (void **)&d));
    if (!d)
        return throw_value(env, "newAt: the toid module is not initialised", TOID_EINVAL);
    uint8_t bin[TOID_BIN_MAX];
    int rc = toid_new_at(&d->at[f], (toid_format)f, ms, bin);
    if (rc < 0)
        return throw_generation(env, (toid_format)f, rc);
    return bytes_value(env, (toid_format)f, bin);
}

/* Largest batch per call (larger ones are split by index.js). */
#define BATCH_MAX 65536

/* n IDs of f made in one library call, strictly increasing: as a new
 * Buffer of the n binary values back to back, or (as_text) as one string,
 * the text of a JSON array of the n texts, which index.js hands to
 * JSON.parse. That is the cheapest way to n separate strings found: V8's
 * JSON parser makes each string in place, with no call per ID (napi_set_element
 * and a napi_create_string_latin1 per ID cost more than toid.ulid() calls;
 * slicing one Buffer per ID costs a C++ call each), and each string is a
 * copy of its own, where String.prototype.slice and split make slices that
 * keep the whole batch's text alive for as long as any one ID lives. The
 * texts need no escaping: no format's alphabet has '"' or '\\'. */
static napi_value batch(napi_env env, napi_callback_info info, bool as_text) {
    args_t a;
    own_gen *gen;
    int f;
    int64_t n = 0;
    if ((f = target_call(env, info, &a, &gen)) < 0)
        return NULL;
    if (a.argc < 2 || napi_get_value_int64(env, a.argv[1], &n) != napi_ok || n < 0
        || n > BATCH_MAX) {
        napi_throw_range_error(env, "TOID_EINVALID", "count must be an integer 0..65536");
        return NULL;
    }
    size_t size = toid_bin_size((toid_format)f), tlen = toid_format_get((toid_format)f)->text_len;
    napi_value out;
    void *data;
    if (!as_text) {   /* the IDs straight into the Buffer */
        CHECK(env, napi_create_buffer(env, (size_t)n * size, &data, &out));
        if (n > 0 && !make_ids(env, (toid_format)f, gen, data, (size_t)n))
            return NULL;
        return out;
    }
    uint8_t *bin = malloc((size_t)n * size + 1);
    char *json = malloc((size_t)n * (tlen + 3) + 3);   /* ["ID","ID"] */
    if (!bin || !json) {
        free(bin);
        free(json);
        napi_throw_error(env, "TOID_ENOMEM", "out of memory");
        return NULL;
    }
    if (n > 0 && !make_ids(env, (toid_format)f, gen, bin, (size_t)n)) {
        free(bin);
        free(json);
        return NULL;
    }
    char *o = json;
    *o++ = '[';
    for (int64_t i = 0; i < n; i++) {
        *o++ = '"';
        toid_encode((toid_format)f, bin + (size_t)i * size, o, tlen + 1);   /* (its NUL overwritten) */
        o += tlen;
        *o++ = '"';
        *o++ = ',';
    }
    if (n > 0)
        o--;
    *o++ = ']';
    napi_status st = napi_create_string_latin1(env, json, (size_t)(o - json), &out);
    free(bin);
    free(json);
    CHECK(env, st);
    return out;
}

/* batchJson(f or generator, n) -> '["ID",...]' */
static napi_value js_batch_json(napi_env env, napi_callback_info info) {
    return batch(env, info, true);
}

/* batchBytes(f or generator, n) -> Buffer */
static napi_value js_batch_bytes(napi_env env, napi_callback_info info) {
    return batch(env, info, false);
}

/* A generator configuration for format f from arguments 1 (node or
 * undefined) and 2 (epoch or undefined); *has_node: whether a node was given. */
static bool config_at(napi_env env, const args_t *a, int f, toid_gen_config *cfg,
                      bool *has_node) {
    memset(cfg, 0, sizeof *cfg);
    cfg->format = (toid_format)f;
    napi_valuetype t = napi_undefined;
    if (a->argc > 1)
        napi_typeof(env, a->argv[1], &t);
    *has_node = t != napi_undefined;
    if (t != napi_undefined) {
        int64_t node = -1;
        if (t != napi_number || napi_get_value_int64(env, a->argv[1], &node) != napi_ok || node < 0
            || node > UINT32_MAX) {
            napi_throw_range_error(env, "TOID_EINVALID", "node must be an integer >= 0 (invalid)");
            return false;
        }
        cfg->node = (uint32_t)node;
    }
    return epoch_at(env, a, 2, &cfg->epoch_ms);
}

/* The arguments (f, node|undefined, epoch|undefined) of configure and
 * genCreate: the format, or -1 with an exception pending. */
static int config_call(napi_env env, napi_callback_info info, toid_gen_config *cfg,
                       bool *has_node) {
    args_t a;
    int f = format_call(env, info, &a);
    return f < 0 || !config_at(env, &a, f, cfg, has_node) ? -1 : f;
}

/* A claimed format's node, checked against its range ("node: 1024 is
 * above nanoflake's largest, 1023", as the library says it), and cfg
 * checked with the generator's node in it (uid11-seq's generator has
 * none). *want: the node, or -1 for none given. false with a RangeError. */
static bool claim_config(napi_env env, const char *what, toid_format f, toid_gen_config *cfg,
                         bool has_node, toid_config_use use, int64_t *want) {
    uint32_t max = atomic_load(&claim_max[f]);
    if (has_node && cfg->node > max) {
        char msg[200];
        snprintf(msg, sizeof msg, "%s: node: %u is above %s's largest, %u (invalid)", what,
                 (unsigned)cfg->node, toid_format_get(f)->name, (unsigned)max);
        throw_toid(env, true, msg, TOID_EINVAL, -1);
        return false;
    }
    *want = has_node ? (int64_t)cfg->node : -1;
    cfg->node = has_node ? gen_node(f, cfg->node) : 0;
    char why[200];
    if (toid_gen_config_explain(cfg, use, why, sizeof why) < 0) {
        throw_config(env, what, TOID_EINVAL, cfg, use);
        return false;
    }
    return true;
}

/* The process-wide generator of claimed format f takes cfg, node want and
 * its claim k (NULL: claimed on the next ID). The claim it had is given back
 * unless it is the one it goes on with (the process's node, same epoch).
 * Under pgen_lock. false with an exception pending. */
static bool process_set(napi_env env, toid_format f, const toid_gen_config *cfg, int64_t want,
                        toid_claim *k) {
    process_gen *p = &pgen[f];
    toid_claim *old = atomic_load(&p->k);
    bool keep = old == k || (want < 0 && p->want < 0 && claim_epoch(&p->cfg) == claim_epoch(cfg));
    p->cfg = *cfg;
    p->want = want;
    p->serial++;
    atomic_store(&p->k, NULL);
    if (old && !keep)
        toid_claim_process_release(old);
    if (k) {
        toid_gen_config c = *cfg;
        c.node = gen_node(f, toid_claim_node(k));
        int rc = toid_configure(&c);
        if (rc < 0)
            return throw_config(env, "configure", rc, &c, TOID_FOR_CONFIGURE), false;
        atomic_store(&p->k, k);
    }
    return true;
}

/* configure(f, node|undefined, epoch|undefined): the process-wide generator.
 * A claimed format: the settings checked, then node N claimed now (a node
 * held elsewhere is refused here, naming its holder, and nothing changes);
 * without a node, the process's node, claimed on the next ID. */
static napi_value js_configure(napi_env env, napi_callback_info info) {
    toid_gen_config cfg;
    bool has_node;
    int f = config_call(env, info, &cfg, &has_node);
    if (f < 0)
        return NULL;
    if (!atomic_load(&claim_max[f])) {
        int rc = toid_configure(&cfg);
        if (rc < 0)
            return throw_config(env, "configure", rc, &cfg, TOID_FOR_CONFIGURE);
        return NULL;
    }
    int64_t want;
    if (!claim_config(env, "configure", (toid_format)f, &cfg, has_node, TOID_FOR_CONFIGURE, &want))
        return NULL;
    char err[2048] = "";
    toid_claim *k = NULL;
    pthread_mutex_lock(&pgen_lock);
    int rc = want >= 0 ? toid_claim_process((toid_format)f, claim_epoch(&cfg), want, &k, err,
                                            sizeof err) : 0;
    if (rc == 0)
        process_set(env, (toid_format)f, &cfg, want, k);   /* (false: an exception pending) */
    pthread_mutex_unlock(&pgen_lock);
    if (rc < 0)
        throw_claim(env, (toid_format)f, rc, err);
    return NULL;
}

/* Marks the externals that are claims (claim()). */
static const napi_type_tag CLAIM_TAG = { 0x746f69645f636c61ULL, 0x3b9d0e6f1a2c4d57ULL };

/* Argument i as a claim from js_claim, or NULL with a TypeError. */
static toid_claim *claim_at(napi_env env, const args_t *a, size_t i) {
    bool ours = false;
    toid_claim *k = NULL;
    if (i >= a->argc || napi_check_object_type_tag(env, a->argv[i], &CLAIM_TAG, &ours) != napi_ok
        || !ours || napi_get_value_external(env, a->argv[i], (void **)&k) != napi_ok) {
        napi_throw_type_error(env, "TOID_EINVALID", "not a toid claim");
        return NULL;
    }
    return k;
}

/* claim(f, node|undefined) -> an external: the process-wide generator of f
 * takes node (undefined: the process's node), claimed now. */
static napi_value js_claim(napi_env env, napi_callback_info info) {
    toid_gen_config cfg;
    bool has_node;
    int f = config_call(env, info, &cfg, &has_node);
    if (f < 0)
        return NULL;
    if (!atomic_load(&claim_max[f])) {
        char msg[200];
        snprintf(msg, sizeof msg, "claim: %s has no node to claim (the formats with one: "
                 "nanoflake, ulid-flake-scalable, uid11-seq) (invalid)",
                 toid_format_get((toid_format)f)->name);
        return throw_toid(env, true, msg, TOID_EINVAL, -1);
    }
    uint32_t max = atomic_load(&claim_max[f]);
    if (has_node && cfg.node > max) {
        char msg[200];
        snprintf(msg, sizeof msg, "claim: node: %u is above %s's largest, %u (invalid)",
                 (unsigned)cfg.node, toid_format_get((toid_format)f)->name, (unsigned)max);
        return throw_toid(env, true, msg, TOID_EINVAL, -1);
    }
    int64_t want = has_node ? (int64_t)cfg.node : -1;
    char err[2048] = "";
    toid_claim *k = NULL;
    pthread_mutex_lock(&pgen_lock);
    toid_gen_config pcfg = pgen[f].cfg;
    int rc = toid_claim_process((toid_format)f, claim_epoch(&pcfg), want, &k, err, sizeof err);
    bool ok = rc == 0 && process_set(env, (toid_format)f, &pcfg, want, k);
    pthread_mutex_unlock(&pgen_lock);
    if (rc < 0)
        return throw_claim(env, (toid_format)f, rc, err);
    if (!ok)
        return NULL;
    napi_value ext;
    CHECK(env, napi_create_external(env, k, NULL, NULL, &ext));   /* never freed: claim_process.c */
    CHECK(env, napi_type_tag_object(env, ext, &CLAIM_TAG));
    return ext;
}

/* claimNode(claim) -> number */
static napi_value js_claim_node(napi_env env, napi_callback_info info) {
    args_t a;
    toid_claim *k;
    napi_value v;
    if (!get_args(env, info, &a) || !(k = claim_at(env, &a, 0)))
        return NULL;
    CHECK(env, napi_create_uint32(env, toid_claim_node(k), &v));
    return v;
}

/* claimValid(claim) -> boolean: held, not lost, not given back. */
static napi_value js_claim_valid(napi_env env, napi_callback_info info) {
    args_t a;
    toid_claim *k;
    napi_value v;
    if (!get_args(env, info, &a) || !(k = claim_at(env, &a, 0)))
        return NULL;
    CHECK(env, napi_get_boolean(env, toid_claim_valid(k, NULL) != 0, &v));
    return v;
}

/* claimRelease(f, claim): gives the node back; the process-wide generator
 * of f goes back to the process's node (claimed afresh on its next ID) if
 * it had this one. */
static napi_value js_claim_release(napi_env env, napi_callback_info info) {
    args_t a;
    int f;
    toid_claim *k;
    if ((f = format_call(env, info, &a)) < 0 || !(k = claim_at(env, &a, 1)))
        return NULL;
    pthread_mutex_lock(&pgen_lock);
    process_gen *p = &pgen[f];
    process_drop((toid_format)f, k);
    if (p->want >= 0 && (uint32_t)p->want == toid_claim_node(k)) {
        p->want = -1;
        p->serial++;
    }
    toid_claim_process_release(k);
    pthread_mutex_unlock(&pgen_lock);
    return NULL;
}

/* genCreate(f, node|undefined, epoch|undefined) -> a generator of one's own,
 * for newText, newBytes, batchJson and batchBytes. A claimed format's claims
 * a node of its own: the one named, else the lowest free one. */
static napi_value js_gen_create(napi_env env, napi_callback_info info) {
    toid_gen_config cfg;
    bool has_node;
    int f = config_call(env, info, &cfg, &has_node);
    if (f < 0)
        return NULL;
    toid_claim *k = NULL;
    if (atomic_load(&claim_max[f])) {
        int64_t want;
        if (!claim_config(env, "Generator", (toid_format)f, &cfg, has_node, TOID_FOR_GEN_INIT,
                          &want))
            return NULL;
        char err[2048] = "";
        int rc = toid_claim_process_own((toid_format)f, claim_epoch(&cfg), want, &k, err,
                                        sizeof err);
        if (rc < 0)
            return throw_claim(env, (toid_format)f, rc, err);
        cfg.node = gen_node((toid_format)f, toid_claim_node(k));
    }
    size_t gen_size = toid_gen_size((toid_format)f);
    own_gen *g = calloc(1, offsetof(own_gen, gen) + gen_size);   /* never moved */
    if (!g) {
        if (k)
            toid_claim_process_release(k);
        napi_throw_error(env, "TOID_ENOMEM", "out of memory");
        return NULL;
    }
    g->format = (toid_format)f;
    g->claim = k;
    g->epoch = time_epoch(&cfg);
    int rc = toid_gen_init_size(&g->gen, gen_size, &cfg);
    if (rc < 0) {
        free(g);
        if (k)
            toid_claim_process_release(k);
        return throw_config(env, "Generator", rc, &cfg, TOID_FOR_GEN_INIT);
    }
    napi_value ext;
    if (napi_create_external(env, g, own_gen_free, NULL, &ext) != napi_ok) {
        own_gen_free(env, g, NULL);
        return NULL;
    }
    CHECK(env, napi_type_tag_object(env, ext, &OWN_GEN_TAG));
    return ext;
}

/* genNode(generator) -> its claimed node, or null for a format without one. */
static napi_value js_gen_node(napi_env env, napi_callback_info info) {
    args_t a;
    own_gen *g;
    napi_value v;
    if (target_call(env, info, &a, &g) < 0)
        return NULL;
    if (!g || !g->claim)
        CHECK(env, napi_get_null(env, &v));
    else
        CHECK(env, napi_create_uint32(env, toid_claim_node(g->claim), &v));
    return v;
}

/* genClose(generator): gives a claimed node back; no more IDs from it. */
static napi_value js_gen_close(napi_env env, napi_callback_info info) {
    args_t a;
    bool ours = false;
    own_gen *g = NULL;
    if (!get_args(env, info, &a) || a.argc < 1
        || napi_check_object_type_tag(env, a.argv[0], &OWN_GEN_TAG, &ours) != napi_ok || !ours
        || napi_get_value_external(env, a.argv[0], (void **)&g) != napi_ok) {
        napi_throw_type_error(env, "TOID_EINVALID", "not a toid generator");
        return NULL;
    }
    if (!g->closed) {
        g->closed = true;
        if (g->claim)
            toid_claim_process_release(g->claim);
    }
    return NULL;
}

/* setClaimError(class): the class of the claim refusals thrown in this thread. */
static napi_value js_set_claim_error(napi_env env, napi_callback_info info) {
    args_t a;
    addon_data *d = NULL;
    if (!get_args(env, info, &a) || a.argc < 1)
        return NULL;
    CHECK(env, napi_get_instance_data(env, (void **)&d));
    if (!d) {
        if (!(d = calloc(1, sizeof *d))) {
            napi_throw_error(env, "TOID_ENOMEM", "out of memory");
            return NULL;
        }
        if (napi_set_instance_data(env, d, addon_data_free, NULL) != napi_ok) {
            free(d);
            return NULL;
        }
    }
    if (d->claim_error)
        napi_delete_reference(env, d->claim_error);
    d->claim_error = NULL;
    CHECK(env, napi_create_reference(env, a.argv[0], 1, &d->claim_error));
    return NULL;
}

/* ---- decoding ---------------------------------------------------------- */

/* Decodes argument 0 (a string) strictly as the format in argument 1, or
 * detects the format when argument 1 is -1 (*also: the other formats that
 * read it); errors name the function in argument fn_i. Returns the format,
 * or -1 with a RangeError (reason, position) or TypeError pending. */
static int decode_call(napi_env env, const args_t *a, size_t fn_i, uint8_t *bin, uint32_t *also) {
    char fnbuf[32];
    const char *fn = name_at(env, a, fn_i, fnbuf, sizeof fnbuf, "parse");
    text_arg t;
    size_t pos = 0;
    int32_t f = -1;
    *also = 0;
    if (!string_at(env, a, 0, fn, "text", &t))
        return -1;
    if (a->argc > 1 && napi_get_value_int32(env, a->argv[1], &f) != napi_ok)
        f = -1;
    if (f >= 0 && (f = format_at(env, a, 1)) < 0) {
        text_free(&t);
        return -1;
    }
    int rc = f >= 0 ? toid_decode((toid_format)f, t.text, t.len, bin, &pos)
                    : toid_detect_also(t.text, t.len, bin, also, &pos);
    if (rc < 0)
        throw_parse(env, fn, f, rc, t.text, t.len, pos);
    text_free(&t);
    return rc < 0 ? -1 : f >= 0 ? f : rc;
}

/* decode(text, f or -1, fn) -> [f, Buffer, also]: strict, or detected with
 * -1 (also: a mask of the other formats that read the text). */
static napi_value js_decode(napi_env env, napi_callback_info info) {
    args_t a;
    uint8_t bin[TOID_BIN_MAX];
    uint32_t also;
    int f;
    if (!get_args(env, info, &a) || (f = decode_call(env, &a, 2, bin, &also)) < 0)
        return NULL;
    napi_value out, v, buf = bytes_value(env, (toid_format)f, bin);
    if (!buf)
        return NULL;
    CHECK(env, napi_create_array_with_length(env, 3, &out));
    CHECK(env, napi_create_int32(env, f, &v));
    CHECK(env, napi_set_element(env, out, 0, v));
    CHECK(env, napi_set_element(env, out, 1, buf));
    CHECK(env, napi_create_uint32(env, also, &v));
    CHECK(env, napi_set_element(env, out, 2, v));
    return out;
}

/* timeOf(text, f or -1, epoch, fn) -> unix ms: decode and time in one call. */
static napi_value js_time_of(napi_env env, napi_callback_info info) {
    args_t a;
    uint8_t bin[TOID_BIN_MAX];
    uint32_t also;
    int f;
    int64_t epoch, ms;
    if (!get_args(env, info, &a) || (f = decode_call(env, &a, 3, bin, &also)) < 0
        || !epoch_at(env, &a, 2, &epoch))
        return NULL;
    int rc = toid_time_of((toid_format)f, bin, epoch, &ms);
    if (rc < 0)
        return throw_value(env, "time", rc);
    napi_value v;
    CHECK(env, napi_create_int64(env, ms, &v));
    return v;
}

/* formatNames(mask) -> the names of the formats in mask, by detection rank. */
static napi_value js_format_names(napi_env env, napi_callback_info info) {
    args_t a;
    uint32_t mask = 0;
    if (!get_args(env, info, &a) || a.argc < 1
        || napi_get_value_uint32(env, a.argv[0], &mask) != napi_ok)
        return NULL;
    napi_value arr, v;
    uint32_t n = 0;
    CHECK(env, napi_create_array(env, &arr));
    for (unsigned rank = 1; rank <= TOID_FORMAT_COUNT + 1; rank++)   /* (never detected: last) */
        for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
            unsigned r = toid_format_get((toid_format)f)->detect_rank;
            if (mask >> f & 1u && (r ? r : TOID_FORMAT_COUNT + 1u) == rank) {
                CHECK(env, napi_create_string_utf8(env, toid_format_get((toid_format)f)->name,
                                                   NAPI_AUTO_LENGTH, &v));
                CHECK(env, napi_set_element(env, arr, n++, v));
            }
        }
    return arr;
}

/* formatByName(name) -> the library's index of a format name or alias, any
 * case ('ULID', 'uuid7', 'ulid_flake'), or -1. */
static napi_value js_format_by_name(napi_env env, napi_callback_info info) {
    args_t a;
    text_arg t;
    napi_value v;
    if (!get_args(env, info, &a) || !string_at(env, &a, 0, "format", "name", &t))
        return NULL;
    int f = toid_format_by_name(t.text, t.len);
    text_free(&t);
    CHECK(env, napi_create_int32(env, f < 0 ? -1 : f, &v));
    return v;
}

/* formatNameError(name) -> "unknown format 'ulidd' (did you mean ulid?)":
 * the library's one message for a name that is no format. */
static napi_value js_format_name_error(napi_env env, napi_callback_info info) {
    args_t a;
    text_arg t;
    if (!get_args(env, info, &a) || !string_at(env, &a, 0, "format", "name", &t))
        return NULL;
    char msg[320];
    int n = toid_format_name_error(t.text, t.len, msg, sizeof msg);
    text_free(&t);
    if (n < 0)
        n = snprintf(msg, sizeof msg, "unknown format");
    return text_value(env, msg, n);
}

/* A UUID's record as toid_uuid_json writes it (toid inspect --json's). */
static napi_value uuid_json(napi_env env, const toid_uuid_info *u) {
    char json[512];
    int n = toid_uuid_json(u, json, sizeof json);
    if (n < 0)
        return throw_value(env, "uuid", n);
    return text_value(env, json, n);
}

/* uuidDetect(text, fn) -> [json, also] when detection reads text as a UUID
 * of its own (toid_uuid_detect: another version than 7, another variant,
 * nil, max) as toid inspect does, also the mask of the formats that read
 * it too; else null. */
static napi_value js_uuid_detect(napi_env env, napi_callback_info info) {
    args_t a;
    text_arg t;
    char fnbuf[32];
    if (!get_args(env, info, &a)
        || !string_at(env, &a, 0, name_at(env, &a, 1, fnbuf, sizeof fnbuf, "inspect"), "text", &t))
        return NULL;
    toid_uuid_info u;
    napi_value out, v, json;
    if (!toid_uuid_detect(t.text, t.len, &u)) {
        text_free(&t);
        CHECK(env, napi_get_null(env, &out));
        return out;
    }
    uint8_t bin[TOID_BIN_MAX];
    uint32_t also = 0;
    size_t pos;
    int rc = toid_detect_also(t.text, t.len, bin, &also, &pos);
    text_free(&t);
    if (!(json = uuid_json(env, &u)))
        return NULL;
    CHECK(env, napi_create_array_with_length(env, 2, &out));
    CHECK(env, napi_set_element(env, out, 0, json));
    CHECK(env, napi_create_uint32(env, rc >= 0 ? also | 1u << rc : 0, &v));
    CHECK(env, napi_set_element(env, out, 1, v));
    return out;
}

/* uuidRead(text, fn) -> [json, Buffer]: any UUID in any of its forms
 * (toid_uuid_read); a RangeError naming fn and 'text' otherwise. */
static napi_value js_uuid_read(napi_env env, napi_callback_info info) {
    args_t a;
    text_arg t;
    char fnbuf[32];
    const char *fn;
    if (!get_args(env, info, &a)
        || !string_at(env, &a, 0, fn = name_at(env, &a, 1, fnbuf, sizeof fnbuf, "uuidInfo"), "text",
                      &t))
        return NULL;
    toid_uuid_info u;
    size_t pos = 0;
    int rc = toid_uuid_read(t.text, t.len, &u, &pos);
    if (rc < 0) {   /* (the UUID reader's errors: its length, a character) */
        throw_refusal(env, fn, "text", TOID_UUIDV7, "UUID", rc, t.text, t.len, pos);
        text_free(&t);
        return NULL;
    }
    text_free(&t);
    napi_value out, json, buf;
    if (!(json = uuid_json(env, &u)))
        return NULL;
    CHECK(env, napi_create_buffer_copy(env, 16, u.bytes, NULL, &buf));
    CHECK(env, napi_create_array_with_length(env, 2, &out));
    CHECK(env, napi_set_element(env, out, 0, json));
    CHECK(env, napi_set_element(env, out, 1, buf));
    return out;
}

/* ulidToUuid(text) -> the ULID's 16 bytes as a UUID's text (toid_ulid_to_uuid). */
static napi_value js_ulid_to_uuid(napi_env env, napi_callback_info info) {
    args_t a;
    text_arg t;
    if (!get_args(env, info, &a) || !string_at(env, &a, 0, "ulidToUuid", "text", &t))
        return NULL;
    char out[40];
    size_t pos = 0;
    int rc = toid_ulid_to_uuid(t.text, t.len, out, sizeof out, &pos);
    if (rc < 0)
        throw_parse(env, "ulidToUuid", TOID_ULID, rc, t.text, t.len, pos);
    text_free(&t);
    return rc < 0 ? NULL : text_value(env, out, rc);
}

/* uuidToUlid(text) -> any UUID's 16 bytes (any version, any form) as a ULID. */
static napi_value js_uuid_to_ulid(napi_env env, napi_callback_info info) {
    args_t a;
    text_arg t;
    if (!get_args(env, info, &a) || !string_at(env, &a, 0, "uuidToUlid", "text", &t))
        return NULL;
    toid_uuid_info u;
    size_t pos = 0;
    int rc = toid_uuid_read(t.text, t.len, &u, &pos);
    if (rc < 0)
        throw_refusal(env, "uuidToUlid", "text", TOID_UUIDV7, "UUID", rc, t.text, t.len, pos);
    text_free(&t);
    if (rc < 0)
        return NULL;
    char out[TOID_TEXT_MAX];
    int n = toid_encode(TOID_ULID, u.bytes, out, sizeof out);   /* every 128-bit value is a ULID */
    return n < 0 ? throw_value(env, "uuidToUlid", n) : text_value(env, out, n);
}

/* parseTime(text) -> [first_ms, last_ms, notes]: the span of time text names
 * (toid_parse_time_span, as the CLI reads it), or null when it is no time. */
static napi_value js_parse_time(napi_env env, napi_callback_info info) {
    args_t a;
    text_arg t;
    if (!get_args(env, info, &a) || !string_at(env, &a, 0, "time", "text", &t))
        return NULL;
    int64_t first, last;
    unsigned notes = 0;
    int rc = toid_parse_time_span(t.text, t.len, &first, &last, &notes);
    text_free(&t);
    napi_value out, v;
    if (rc < 0) {
        CHECK(env, napi_get_null(env, &out));
        return out;
    }
    CHECK(env, napi_create_array_with_length(env, 3, &out));
    CHECK(env, napi_create_int64(env, first, &v));
    CHECK(env, napi_set_element(env, out, 0, v));
    CHECK(env, napi_create_int64(env, last, &v));
    CHECK(env, napi_set_element(env, out, 1, v));
    CHECK(env, napi_create_uint32(env, notes, &v));
    CHECK(env, napi_set_element(env, out, 2, v));
    return out;
}

/* formatTime(ms) -> RFC 3339 UTC text as the library writes it. */
static napi_value js_format_time(napi_env env, napi_callback_info info) {
    args_t a;
    int64_t ms = 0;
    if (!get_args(env, info, &a) || a.argc < 1
        || napi_get_value_int64(env, a.argv[0], &ms) != napi_ok)
        return NULL;
    char out[48];
    int n = toid_format_time(ms, out, sizeof out);
    if (n < 0)
        n = snprintf(out, sizeof out, "%lld ms", (long long)ms);
    return text_value(env, out, n);
}

/* timeSpan(f, epoch) -> [min_ms, max_ms]: the times format f holds. */
static napi_value js_time_span(napi_env env, napi_callback_info info) {
    args_t a;
    int f;
    int64_t epoch, lo, hi;
    if ((f = format_call(env, info, &a)) < 0 || !epoch_at(env, &a, 1, &epoch))
        return NULL;
    int rc = toid_time_span((toid_format)f, epoch, &lo, &hi);
    if (rc < 0)
        return throw_value(env, "timeBounds", rc);
    napi_value out, v;
    CHECK(env, napi_create_array_with_length(env, 2, &out));
    CHECK(env, napi_create_int64(env, lo, &v));
    CHECK(env, napi_set_element(env, out, 0, v));
    CHECK(env, napi_create_int64(env, hi, &v));
    CHECK(env, napi_set_element(env, out, 1, v));
    return out;
}

/* timeBounds(f, ms, epoch) -> [lo Buffer, hi Buffer]: the smallest and the
 * largest value of f whose time is ms (toid_time_bounds). */
static napi_value js_time_bounds(napi_env env, napi_callback_info info) {
    args_t a;
    int f;
    int64_t ms = 0, epoch;
    if ((f = format_call(env, info, &a)) < 0 || a.argc < 2
        || napi_get_value_int64(env, a.argv[1], &ms) != napi_ok || !epoch_at(env, &a, 2, &epoch))
        return NULL;
    uint8_t lo[TOID_BIN_MAX], hi[TOID_BIN_MAX];
    int rc = toid_time_bounds((toid_format)f, ms, epoch, lo, hi);
    if (rc < 0)
        return throw_value(env, "timeBounds", rc);
    napi_value out, l, h;
    if (!(l = bytes_value(env, (toid_format)f, lo)) || !(h = bytes_value(env, (toid_format)f, hi)))
        return NULL;
    CHECK(env, napi_create_array_with_length(env, 2, &out));
    CHECK(env, napi_set_element(env, out, 0, l));
    CHECK(env, napi_set_element(env, out, 1, h));
    return out;
}

/* encode(f, Buffer) -> canonical text */
static napi_value js_encode(napi_env env, napi_callback_info info) {
    args_t a;
    int f;
    uint8_t bin[TOID_BIN_MAX];
    if ((f = format_call(env, info, &a)) < 0
        || !value_at(env, &a, 1, f, bin))
        return NULL;
    char text[TOID_TEXT_MAX];
    int len = toid_encode((toid_format)f, bin, text, sizeof text);
    if (len < 0)
        return throw_value(env, "encode", len);
    return text_value(env, text, len);
}

/* describe(f, Buffer, epoch) -> { field: number | string | boolean }; the
 * 64-bit "int" as a BigInt; "random80" stays a decimal string for index.js. */
static napi_value js_describe(napi_env env, napi_callback_info info) {
    args_t a;
    int f;
    int64_t epoch;
    uint8_t bin[TOID_BIN_MAX];
    if ((f = format_call(env, info, &a)) < 0
        || !value_at(env, &a, 1, f, bin) || !epoch_at(env, &a, 2, &epoch))
        return NULL;
    toid_field fl[TOID_FIELDS_MAX];
    int n = toid_describe((toid_format)f, bin, epoch, fl);
    if (n < 0)
        return throw_value(env, "describe", n);
    napi_value obj;
    CHECK(env, napi_create_object(env, &obj));
    for (int i = 0; i < n; i++) {
        napi_value v;
        if (fl[i].id == TOID_FIELD_INT) {
            uint64_t u = 0;
            toid_to_u64((toid_format)f, bin, &u);
            CHECK(env, napi_create_bigint_uint64(env, u, &v));
        } else if (fl[i].kind == TOID_KIND_BOOL) {
            CHECK(env, napi_get_boolean(env, fl[i].value[0] == 't', &v));
        } else if (fl[i].kind == TOID_KIND_NUMBER) {   /* at most 48 bits: exact in a double */
            CHECK(env, napi_create_double(env, strtod(fl[i].value, NULL), &v));
        } else {
            CHECK(env, napi_create_string_latin1(env, fl[i].value, NAPI_AUTO_LENGTH, &v));
        }
        CHECK(env, napi_set_named_property(env, obj, fl[i].name, v));
    }
    return obj;
}

/* fromInt(f, bigint) -> Buffer (the 64-bit formats' integer form) */
static napi_value js_from_int(napi_env env, napi_callback_info info) {
    args_t a;
    int f;
    if ((f = format_call(env, info, &a)) < 0)
        return NULL;
    uint64_t u = 0;
    bool lossless = false;
    napi_valuetype t = napi_undefined;
    if (a.argc > 1)
        napi_typeof(env, a.argv[1], &t);
    if (t != napi_bigint) {
        napi_throw_type_error(env, "TOID_EINVALID", "the integer form must be a BigInt");
        return NULL;
    }
    napi_get_value_bigint_uint64(env, a.argv[1], &u, &lossless);
    uint8_t bin[TOID_BIN_MAX];
    int rc = lossless ? toid_from_u64((toid_format)f, u, bin) : TOID_EOVERFLOW;
    if (rc < 0)
        return throw_value(env, "fromInt", rc);
    return bytes_value(env, (toid_format)f, bin);
}

/* make(f, { field: string }, epoch) -> Buffer */
static napi_value js_make(napi_env env, napi_callback_info info) {
    args_t a;
    int f;
    int64_t epoch;
    if ((f = format_call(env, info, &a)) < 0 || a.argc < 2
        || !epoch_at(env, &a, 2, &epoch))
        return NULL;
    napi_value keys;
    uint32_t nkeys = 0;
    CHECK(env, napi_get_property_names(env, a.argv[1], &keys));
    CHECK(env, napi_get_array_length(env, keys, &nkeys));
    toid_fields in;
    memset(&in, 0, sizeof in);
    for (uint32_t i = 0; i < nkeys; i++) {
        napi_value k, v;
        char name[32], value[96];
        size_t nlen, vlen, nfull, vfull;
        CHECK(env, napi_get_element(env, keys, i, &k));
        CHECK(env, napi_get_property(env, a.argv[1], k, &v));
        if (napi_get_value_string_utf8(env, k, NULL, 0, &nfull) != napi_ok
            || napi_get_value_string_utf8(env, v, NULL, 0, &vfull) != napi_ok) {
            napi_throw_type_error(env, "TOID_EINVALID", "make: fields must be strings");
            return NULL;
        }
        if (nfull >= sizeof name || vfull >= sizeof value)   /* never a cut value */
            return throw_value(env, "make: a field name or value is too long", TOID_EINVAL);
        CHECK(env, napi_get_value_string_utf8(env, k, name, sizeof name, &nlen));
        CHECK(env, napi_get_value_string_utf8(env, v, value, sizeof value, &vlen));
        int rc = toid_fields_set((toid_format)f, &in, name, nlen, value, vlen);
        if (rc < 0) {
            char what[200];   /* the field is the parameter, as Python's make says it */
            snprintf(what, sizeof what, "make: %s: '%s' for %s", name, value,
                     toid_format_get((toid_format)f)->name);
            return throw_value(env, what, rc);
        }
    }
    uint8_t bin[TOID_BIN_MAX];
    int rc = toid_make((toid_format)f, &in, epoch, bin);
    if (rc < 0) {
        char what[80];
        snprintf(what, sizeof what, "make: a %s of these fields", toid_format_get((toid_format)f)->name);
        return throw_value(env, what, rc);
    }
    return bytes_value(env, (toid_format)f, bin);
}

/* formats() -> [{ name, bits, binSize, textLen, hasInt, epochConfigurable, nodeMax,
 * defaultEpochMs }] in the library's order. */
static napi_value js_formats(napi_env env, napi_callback_info info) {
    (void)info;
    napi_value arr;
    CHECK(env, napi_create_array_with_length(env, TOID_FORMAT_COUNT, &arr));
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        const toid_format_info *fi = toid_format_get((toid_format)f);
        napi_value o, v;
        CHECK(env, napi_create_object(env, &o));
        CHECK(env, napi_create_string_utf8(env, fi->name, NAPI_AUTO_LENGTH, &v));
        CHECK(env, napi_set_named_property(env, o, "name", v));
        struct { const char *key; double value; } nums[] = {
            { "bits", fi->bits }, { "binSize", fi->bin_size }, { "textLength", fi->text_len },
            { "defaultEpochMs", (double)fi->default_epoch_ms },
        };
        for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
            CHECK(env, napi_create_double(env, nums[i].value, &v));
            CHECK(env, napi_set_named_property(env, o, nums[i].key, v));
        }
        CHECK(env, napi_get_boolean(env, fi->has_int, &v));
        CHECK(env, napi_set_named_property(env, o, "hasInt", v));
        CHECK(env, napi_get_boolean(env, fi->epoch_configurable, &v));
        CHECK(env, napi_set_named_property(env, o, "epochConfigurable", v));
        /* false for the read-only variants of reference libraries (variantOf) */
        CHECK(env, napi_get_boolean(env, fi->generates, &v));
        CHECK(env, napi_set_named_property(env, o, "generates", v));
        if (fi->variant_of)
            CHECK(env, napi_create_string_utf8(env, fi->variant_of, NAPI_AUTO_LENGTH, &v));
        else
            CHECK(env, napi_get_null(env, &v));
        CHECK(env, napi_set_named_property(env, o, "variantOf", v));
        uint32_t nmax = atomic_load(&node_max[f]);   /* the largest node; null without one */
        if (nmax)
            CHECK(env, napi_create_uint32(env, nmax, &v));
        else
            CHECK(env, napi_get_null(env, &v));
        CHECK(env, napi_set_named_property(env, o, "nodeMax", v));
        CHECK(env, napi_set_element(env, arr, (uint32_t)f, o));
    }
    return arr;
}

static napi_value js_version(napi_env env, napi_callback_info info) {
    (void)info;
    napi_value v;
    CHECK(env, napi_create_string_utf8(env, toid_version(), NAPI_AUTO_LENGTH, &v));
    return v;
}

/* node_api.h defines this one without a prototype (-Wmissing-prototypes). */
NAPI_MODULE_EXPORT int32_t NODE_API_MODULE_GET_API_VERSION(void);

NAPI_MODULE_INIT(/* napi_env env, napi_value exports */) {
    static const struct { const char *name; napi_callback fn; } fns[] = {
        { "ulid", js_ulid }, { "uuidv7", js_uuidv7 }, { "noop", js_noop }, { "cLoop", js_c_loop },
        { "newText", js_new_text }, { "newBytes", js_new_bytes },
        { "newAt", js_new_at }, { "atTimeExplain", js_at_time_explain },
        { "batchJson", js_batch_json }, { "batchBytes", js_batch_bytes },
        { "configure", js_configure }, { "genCreate", js_gen_create }, { "genNode", js_gen_node },
        { "genClose", js_gen_close }, { "claim", js_claim }, { "claimNode", js_claim_node },
        { "claimValid", js_claim_valid }, { "claimRelease", js_claim_release },
        { "setClaimError", js_set_claim_error }, { "decode", js_decode }, { "timeOf", js_time_of },
        { "encode", js_encode }, { "describe", js_describe }, { "fromInt", js_from_int },
        { "make", js_make }, { "formats", js_formats }, { "version", js_version },
        { "formatNames", js_format_names }, { "formatByName", js_format_by_name },
        { "formatNameError", js_format_name_error }, { "uuidDetect", js_uuid_detect },
        { "uuidRead", js_uuid_read }, { "ulidToUuid", js_ulid_to_uuid },
        { "uuidToUlid", js_uuid_to_ulid }, { "parseTime", js_parse_time },
        { "formatTime", js_format_time }, { "timeSpan", js_time_span },
        { "timeBounds", js_time_bounds },
    };
    fill_node_max();
    pthread_once(&pgen_once, pgen_init);
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        napi_value fn;
        if (napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].fn, NULL, &fn)
                != napi_ok
            || napi_set_named_property(env, exports, fns[i].name, fn) != napi_ok)
            return NULL;
    }
    napi_value expected;
    if (napi_create_string_utf8(env, TOID_BIND_TIME_EXPECTED, NAPI_AUTO_LENGTH, &expected) != napi_ok
        || napi_set_named_property(env, exports, "timeExpected", expected) != napi_ok)
        return NULL;
    return exports;
}
