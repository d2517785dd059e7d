/*
 * toid_node.c — the Node-API addon under require('toid'): a thin layer over
 * libtoid (linked in statically, its symbols kept private).
 *
 * Written against Node-API's C interface (node_api.h), without a C++
 * wrapper: one language with the library, no exceptions, and the least
 * work per call on the hot paths (ulid(), uuidv7(): no argument parsing at
 * all, one library call, one string). Formats arrive as their index in the
 * library's list (index.js maps names once). The module keeps no JavaScript
 * values between calls, so it loads in any number of worker threads.
 */
#define NAPI_VERSION 8
#include <node_api.h>

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <toid.h>

#include "toid_node_max.h"

/* The largest node of each format's generator (nanoflake 1023,
 * ulid-flake-scalable 31), 0 for the formats without a node: asked of the
 * format descriptor at each load (toid_node_max.h; worker threads find the same). */
static _Atomic uint32_t node_max[TOID_FORMAT_COUNT];

/* Whether the last configure() of a node format gave its process-wide
 * generator a node. Until then the process-wide calls refuse it: the
 * library's default, node 0 in every process, would make two processes
 * issue the same IDs. Process-wide like the generators themselves: a
 * configure in any worker thread counts for all. */
static atomic_bool node_set[TOID_FORMAT_COUNT];

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

/* Throws err (made by make) with message msg, .code TOID_ENONODE and
 * .reason "no node": a node format used without its node. */
static napi_value throw_no_node(napi_env env,
                                napi_status (*make)(napi_env, napi_value, napi_value, napi_value *),
                                const char *msg) {
    napi_value code;
    if (napi_create_string_utf8(env, "TOID_ENONODE", NAPI_AUTO_LENGTH, &code) != napi_ok)
        return NULL;
    return throw_with(env, make, msg, code, "no node", -1);
}

/* true if the process-wide generator of f may generate; false with an Error
 * (.reason 'no node') for a node format no configure() gave a node. */
static bool node_ready(napi_env env, toid_format f) {
    if (!atomic_load(&node_max[f]) || atomic_load(&node_set[f]))
        return true;
    char msg[512];
    const char *name = toid_format_get(f)->name;
    snprintf(msg, sizeof msg, "%s needs a node and this process has none: call "
             "toid.configure('%s', { node: N }) with N (0..%u) unique among the running "
             "processes that generate %s, or use new toid.Generator('%s', { node: N }); node 0 "
             "in every process would repeat IDs (no node)",
             name, name, (unsigned)atomic_load(&node_max[f]), name, name);
    throw_no_node(env, napi_create_error, msg);
    return false;
}

/* Throws a RangeError for a text that format f (or no format, f < 0) refused. */
static napi_value throw_parse(napi_env env, int f, int rc, const char *text, size_t len,
                              size_t pos) {
    char shown[64];
    size_t n = len < 40 ? len : 40;
    memcpy(shown, text, n);
    strcpy(shown + n, len > n ? "..." : "");
    char msg[256];
    const char *what = f >= 0 ? toid_format_get((toid_format)f)->name : "ID";
    if (rc == TOID_ECHAR)
        snprintf(msg, sizeof msg, "'%s' is not a valid %s: %s at position %zu (%s)", shown, what,
                 toid_strerror(rc), pos, toid_err_name(rc));
    else
        snprintf(msg, sizeof msg, "'%s' is not a valid %s: %s (%s)", shown, what,
                 toid_strerror(rc), toid_err_name(rc));
    return throw_toid(env, true, msg, rc, rc == TOID_ECHAR ? (long)pos : -1);
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

/* A generator of the caller's own (toid.Generator), held by a JavaScript
 * external and freed with it. Allocated with toid_gen_size(format) bytes at
 * gen (uid11's set follows its toid_gen), so gen comes last. */
typedef struct {
    toid_format format;
    toid_gen gen;
} own_gen;

/* Marks the externals that are own_gen, so no other external passes for one. */
static const napi_type_tag OWN_GEN_TAG = { 0x746f69645f67656eULL, 0x8e1c7a0b5f3d2941ULL };

static void own_gen_free(napi_env env, void *data, void *hint) {
    (void)env;
    (void)hint;
    free(data);
}

/* The arguments of a generating call: the first is a format index (the
 * process-wide generator: *gen NULL) or a generator from genCreate. Returns
 * the format, or -1 with an exception pending. */
static int target_call(napi_env env, napi_callback_info info, args_t *a, toid_gen **gen) {
    *gen = NULL;
    if (!get_args(env, info, a))
        return -1;
    napi_valuetype t = napi_undefined;
    if (a->argc > 0)
        napi_typeof(env, a->argv[0], &t);
    if (t != napi_external) {
        int f = format_at(env, a, 0);
        return f < 0 || !node_ready(env, (toid_format)f) ? -1 : f;
    }
    bool ours = false;
    own_gen *g = NULL;
    if (napi_check_object_type_tag(env, a->argv[0], &OWN_GEN_TAG, &ours) != napi_ok || !ours
        || napi_get_value_external(env, a->argv[0], (void **)&g) != napi_ok) {
        napi_throw_type_error(env, "TOID_EINVALID", "not a toid generator");
        return -1;
    }
    *gen = &g->gen;
    return (int)g->format;
}

/* Argument i as a string of at most cap - 1 bytes (UTF-8) into buf; *len its
 * length. A longer one is cut to cap - 1 bytes: still longer than any
 * format's text, so the decoder answers "length" as it would for the whole. */
static bool string_at(napi_env env, const args_t *a, size_t i, char *buf, size_t cap,
                      size_t *len) {
    napi_valuetype t = napi_undefined;
    if (i < a->argc)
        napi_typeof(env, a->argv[i], &t);
    if (t != napi_string) {
        napi_throw_type_error(env, "TOID_EINVALID", "an ID must be a string");
        return false;
    }
    return napi_get_value_string_utf8(env, a->argv[i], buf, cap, len) == napi_ok;
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

/* ---- generating ------------------------------------------------------ */

static napi_value text_value(napi_env env, const char *text, int len) {
    napi_value s;
    CHECK(env, napi_create_string_latin1(env, text, (size_t)len, &s));
    return s;
}

static napi_value new_of(napi_env env, toid_format f, toid_gen *gen) {
    if (!gen && !node_ready(env, f))
        return NULL;
    char text[TOID_TEXT_MAX];
    int len = gen ? toid_gen_next_text(gen, text, sizeof text) : toid_new_text(f, text, sizeof text);
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

/* cLoop(f, n): n IDs of f made by the C library alone (toid_new_text each),
 * nothing returned: the benchmarks subtract it to show what the binding
 * itself adds to a call. */
static napi_value js_c_loop(napi_env env, napi_callback_info info) {
    args_t a;
    int f;
    int64_t n = 0;
    if ((f = format_call(env, info, &a)) < 0 || !node_ready(env, (toid_format)f))
        return NULL;
    if (a.argc > 1)
        napi_get_value_int64(env, a.argv[1], &n);
    char text[TOID_TEXT_MAX];
    for (int64_t i = 0; i < n; i++) {
        int rc = toid_new_text((toid_format)f, text, sizeof text);
        if (rc < 0)
            return throw_generation(env, (toid_format)f, rc);
    }
    return NULL;
}

/* newText(f or generator) */
static napi_value js_new_text(napi_env env, napi_callback_info info) {
    args_t a;
    toid_gen *gen;
    int f;
    if ((f = target_call(env, info, &a, &gen)) < 0)
        return NULL;
    return new_of(env, (toid_format)f, gen);
}

/* newBytes(f or generator) -> Buffer */
static napi_value js_new_bytes(napi_env env, napi_callback_info info) {
    args_t a;
    toid_gen *gen;
    int f;
    if ((f = target_call(env, info, &a, &gen)) < 0)
        return NULL;
    uint8_t bin[TOID_BIN_MAX];
    int rc = gen ? toid_gen_next(gen, bin, NULL) : toid_new((toid_format)f, bin);
    if (rc < 0)
        return throw_generation(env, (toid_format)f, rc);
    return bytes_value(env, (toid_format)f, bin);
}

/* Largest batch per call (larger ones are split by index.js). */
#define BATCH_MAX 65536

/* n IDs of f made in one library call, strictly increasing, into a new
 * Buffer: n binary values back to back, or n texts back to back (as_text;
 * index.js cuts it into strings). */
static napi_value batch(napi_env env, napi_callback_info info, bool as_text) {
    args_t a;
    toid_gen *gen;
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
    uint8_t *bin = malloc((size_t)n * size + 1);
    if (!bin) {
        napi_throw_error(env, "TOID_ENOMEM", "out of memory");
        return NULL;
    }
    int rc = n == 0 ? 0
             : gen  ? toid_gen_batch(gen, bin, (size_t)n, NULL)
                    : toid_new_batch((toid_format)f, bin, (size_t)n, NULL);
    if (rc < 0) {
        free(bin);
        return throw_generation(env, (toid_format)f, rc);
    }
    napi_value out;
    void *data;
    if (napi_create_buffer(env, (size_t)n * (as_text ? tlen : size), &data, &out) != napi_ok) {
        free(bin);
        return NULL;
    }
    if (!as_text) {
        memcpy(data, bin, (size_t)n * size);
    } else {
        char text[TOID_TEXT_MAX];
        for (int64_t i = 0; i < n; i++) {
            toid_encode((toid_format)f, bin + (size_t)i * size, text, sizeof text);
            memcpy((char *)data + (size_t)i * tlen, text, tlen);
        }
    }
    free(bin);
    return out;
}

static napi_value js_batch_text(napi_env env, napi_callback_info info) {
    return batch(env, info, true);
}

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

/* configure(f, node|undefined, epoch|undefined): the process-wide generator */
static napi_value js_configure(napi_env env, napi_callback_info info) {
    toid_gen_config cfg;
    bool has_node;
    int f = config_call(env, info, &cfg, &has_node);
    if (f < 0)
        return NULL;
    int rc = toid_configure(&cfg);
    if (rc < 0)
        return throw_config(env, "configure", rc, &cfg, TOID_FOR_CONFIGURE);
    /* configure replaces the whole configuration: without a node the
     * generator is back at node 0, which is refused again */
    atomic_store(&node_set[f], has_node);
    return NULL;
}

/* genCreate(f, node|undefined, epoch|undefined) -> a generator of one's own,
 * for newText, newBytes, batchText and batchBytes. */
static napi_value js_gen_create(napi_env env, napi_callback_info info) {
    toid_gen_config cfg;
    bool has_node;
    int f = config_call(env, info, &cfg, &has_node);
    if (f < 0)
        return NULL;
    if (!has_node && atomic_load(&node_max[f])) {   /* never a silent node 0 */
        char msg[256];
        const char *name = toid_format_get((toid_format)f)->name;
        snprintf(msg, sizeof msg, "new toid.Generator('%s') needs { node: N } (0..%u), unique "
                 "among the generators of %s that run at once (no node)", name,
                 (unsigned)atomic_load(&node_max[f]), name);
        return throw_no_node(env, napi_create_type_error, msg);
    }
    size_t gen_size = toid_gen_size((toid_format)f);
    own_gen *g = calloc(1, offsetof(own_gen, gen) + gen_size);   /* never moved */
    if (!g) {
        napi_throw_error(env, "TOID_ENOMEM", "out of memory");
        return NULL;
    }
    g->format = (toid_format)f;
    int rc = toid_gen_init_size(&g->gen, gen_size, &cfg);
    if (rc < 0) {
        free(g);
        return throw_config(env, "Generator", rc, &cfg, TOID_FOR_GEN_INIT);
    }
    napi_value ext;
    if (napi_create_external(env, g, own_gen_free, NULL, &ext) != napi_ok) {
        free(g);
        return NULL;
    }
    CHECK(env, napi_type_tag_object(env, ext, &OWN_GEN_TAG));
    return ext;
}

/* ---- decoding ---------------------------------------------------------- */

/* Longest text worth copying: every format's text is at most 40 bytes. */
#define TEXT_CAP 128

/* Decodes argument 0 (a string) strictly as the format in argument 1, or
 * detects the format when argument 1 is -1. Returns the format, or -1 with
 * a RangeError (reason, position) or TypeError pending. */
static int decode_call(napi_env env, const args_t *a, uint8_t *bin) {
    char text[TEXT_CAP];
    size_t len, pos = 0;
    int32_t f = -1;
    if (!string_at(env, a, 0, text, sizeof text, &len))
        return -1;
    if (a->argc > 1 && napi_get_value_int32(env, a->argv[1], &f) != napi_ok)
        f = -1;
    if (f >= 0 && (f = format_at(env, a, 1)) < 0)
        return -1;
    int rc = f >= 0 ? toid_decode((toid_format)f, text, len, bin, &pos)
                    : toid_detect(text, len, bin, &pos);
    if (rc < 0) {
        throw_parse(env, f, rc, text, len, pos);
        return -1;
    }
    return f >= 0 ? f : rc;
}

/* decode(text, f or -1) -> [f, Buffer]: strict, or detected with -1. */
static napi_value js_decode(napi_env env, napi_callback_info info) {
    args_t a;
    uint8_t bin[TOID_BIN_MAX];
    int f;
    if (!get_args(env, info, &a) || (f = decode_call(env, &a, bin)) < 0)
        return NULL;
    napi_value out, fv, buf = bytes_value(env, (toid_format)f, bin);
    if (!buf)
        return NULL;
    CHECK(env, napi_create_array_with_length(env, 2, &out));
    CHECK(env, napi_create_int32(env, f, &fv));
    CHECK(env, napi_set_element(env, out, 0, fv));
    CHECK(env, napi_set_element(env, out, 1, buf));
    return out;
}

/* timeOf(text, f or -1, epoch) -> unix ms: decode and time in one call. */
static napi_value js_time_of(napi_env env, napi_callback_info info) {
    args_t a;
    uint8_t bin[TOID_BIN_MAX];
    int f;
    int64_t epoch, ms;
    if (!get_args(env, info, &a) || (f = decode_call(env, &a, bin)) < 0
        || !epoch_at(env, &a, 2, &epoch))
        return NULL;
    int rc = toid_time_of((toid_format)f, bin, epoch, &ms);
    if (rc < 0)
        return throw_value(env, "time", rc);
    napi_value v;
    CHECK(env, napi_create_int64(env, ms, &v));
    return v;
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
            char what[160];
            snprintf(what, sizeof what, "make: field %s=%s", name, value);
            return throw_value(env, what, rc);
        }
    }
    uint8_t bin[TOID_BIN_MAX];
    int rc = toid_make((toid_format)f, &in, epoch, bin);
    if (rc < 0)
        return throw_value(env, "make", rc);
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
        { "batchText", js_batch_text }, { "batchBytes", js_batch_bytes },
        { "configure", js_configure }, { "genCreate", js_gen_create }, { "decode", js_decode }, { "timeOf", js_time_of },
        { "encode", js_encode }, { "describe", js_describe }, { "fromInt", js_from_int },
        { "make", js_make }, { "formats", js_formats }, { "version", js_version },
    };
    fill_node_max();
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        napi_value fn;
        if (napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].fn, NULL, &fn)
                != napi_ok
            || napi_set_named_property(env, exports, fns[i].name, fn) != napi_ok)
            return NULL;
    }
    return exports;
}
