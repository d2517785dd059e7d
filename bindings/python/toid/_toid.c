/*
 * _toid.c — the CPython extension under the `toid` package: a thin layer
 * over libtoid (linked in statically, its symbols kept private).
 *
 * The hot calls (new, new_bytes) take the format by name and return a new
 * str or bytes without any Python-level code in between. The GIL is kept for
 * one ID (the call is a few hundred ns; releasing and retaking the GIL would
 * cost about as much) and released for batches, whose generation and
 * encoding run into a C buffer before the Python objects are made.
 * Everything about a format comes from the library: names, sizes, fields.
 *
 * Node claims (claim/toid_claim.h, linked in privately as libtoid is): the
 * formats whose IDs carry a node (nanoflake, ulid-flake-scalable, and
 * uid11-seq, whose 10 low bits then carry it) make IDs only with a node
 * this process holds a claim of: the process-wide generators with the
 * process's node (toid_claim_process: claimed on the first ID from the
 * host's claim configuration, else the host's node registry) or the node
 * configure()/claim() named; each Generator object with a node of its own
 * (toid_claim_process_own). Every ID, or batch, is admitted by its claim
 * (toid_claim_admit: atomics) before it is returned.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <toid.h>

#include "toid_claim.h"
#include "toid_claim_epoch.h"
#include "toid_node_max.h"
#include "toid_bind_words.h"

/* Batches at least this long run without the GIL. */
#define TOID_PY_NOGIL_MIN 64

static PyObject *ParseError;       /* toid.ParseError(ValueError) */
static PyObject *GenerationError;  /* toid.GenerationError(RuntimeError) */
static PyObject *format_names[TOID_FORMAT_COUNT]; /* interned "ulid", ... */

/* The largest node of each format's generator (nanoflake 1023,
 * ulid-flake-scalable 31), 0 for the formats without a node: asked of the
 * format descriptor at import (toid_node_max.h). */
static uint32_t node_max[TOID_FORMAT_COUNT];

/* The largest node a claim of each format holds (toid_claim_node_max: the
 * generator's node, or uid11-seq's 10 low bits), 0 for the formats whose
 * IDs carry no node: the claimed formats. */
static uint32_t claim_max[TOID_FORMAT_COUNT];

static PyObject *ClaimError;       /* toid.ClaimError(GenerationError) */

/* The process-wide generator of a claimed format: the library's generator of
 * the format (toid_new), configured with the node of claim k. Read and
 * written with the GIL held; a batch that runs without the GIL keeps the k
 * and epoch it started with. */
typedef struct {
    toid_gen_config cfg;  /* configure()'s settings (node: the claim's, set when configured) */
    int64_t want;         /* -1: the process's node; else the node configure() or claim() named */
    pid_t want_pid;       /* the process that named it: a forked child claims the process's
                             node (its parent goes on holding the named one) */
    toid_claim *k;        /* the claim the generator is configured with; NULL: claimed (or
                             looked up) on the next ID. Never freed (claim_process.c), so
                             a batch without the GIL may keep it: a claim given back,
                             lost or the parent's after fork() refuses its admits */
    unsigned serial;      /* moves at each configure() and claim(): a claim made without
                             the GIL across one is looked up again */
} process_gen;
static process_gen pgen[TOID_FORMAT_COUNT];

/* ---- formats ----------------------------------------------------------- */

/* The format named by obj (a str), or -1 with ValueError/TypeError set,
 * naming the function fn and its parameter 'format'; an unknown name in the
 * library's words (toid_format_name_error: "unknown format 'ulidd' (did
 * you mean ulid?)"). */
static int format_arg(const char *fn, PyObject *obj) {
    for (int f = 0; f < TOID_FORMAT_COUNT; f++)
        if (obj == format_names[f])            /* literals are usually the interned object */
            return f;
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: format: must be a str such as 'ulid', not %.80s", fn,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    Py_ssize_t len;
    const char *name = PyUnicode_AsUTF8AndSize(obj, &len);
    if (!name)
        return -1;
    int f = toid_format_by_name(name, (size_t)len);
    if (f < 0) {
        char msg[320];
        if (toid_format_name_error(name, (size_t)len, msg, sizeof msg) < 0)
            snprintf(msg, sizeof msg, "unknown format");
        PyErr_Format(PyExc_ValueError, "%s: format: %s (invalid)", fn, msg);
    }
    return f;
}

/* An ASCII text as a new str, without a UTF-8 decoding pass. */
static PyObject *ascii_str(const char *text, size_t len) {
    PyObject *s = PyUnicode_New((Py_ssize_t)len, 127);
    if (s)
        memcpy(PyUnicode_DATA(s), text, len);
    return s;
}

/* ---- errors ------------------------------------------------------------ */

/* Raises cls(msg) (msg is consumed; NULL: an error is already set) with
 * .reason and .format (f's name). */
static PyObject *raise_with(PyObject *cls, toid_format f, const char *why, PyObject *msg) {
    PyObject *exc = msg ? PyObject_CallOneArg(cls, msg) : NULL;
    Py_XDECREF(msg);
    if (exc) {
        PyObject *reason = PyUnicode_FromString(why);
        if (reason && PyObject_SetAttrString(exc, "reason", reason) == 0
            && PyObject_SetAttrString(exc, "format", format_names[f]) == 0)
            PyErr_SetObject(cls, exc);
        Py_XDECREF(reason);
        Py_DECREF(exc);
    }
    return NULL;
}

/* GenerationError(msg) with .reason and .format. */
static PyObject *raise_generation(toid_format f, const char *why, PyObject *msg) {
    return raise_with(GenerationError, f, why, msg);
}

/* Raises GenerationError for a generator error of format f, with .reason
 * (the library's error class) and .format. */
static PyObject *generation_error(toid_format f, int rc) {
    const char *name = toid_format_get(f)->name;
    return raise_generation(f, toid_err_name(rc), rc == TOID_EFORKED
        ? PyUnicode_FromFormat("%s: this Generator was made by the parent process, which goes "
                               "on with its node: make a new toid.Generator(%R) in this "
                               "process, which claims a node of its own (forked)", name,
                               format_names[f])
        : PyUnicode_FromFormat("%s: %s (%s)", name, toid_strerror(rc), toid_err_name(rc)));
}

static PyObject *config_error(const char *what, int rc, const toid_gen_config *cfg,
                              toid_config_use use);

/* The short name of a claim error ("busy", "behind", "io", "lost",
 * "corrupt") or a library error ("invalid"). */
static const char *claim_reason(int rc) {
    switch (rc) {
#define TOID__PY_CLAIM_NAME(name, val, shortname, msg) case val: return shortname;
    TOID_CLAIM_ERROR_LIST(TOID__PY_CLAIM_NAME)
#undef TOID__PY_CLAIM_NAME
    default: return toid_err_name(rc);
    }
}

/* Raises ClaimError (a GenerationError) "<format>: <why> (<reason>)" with
 * .reason and .format. */
static PyObject *claim_error(toid_format f, int rc, const char *why) {
    const char *reason = claim_reason(rc);
    return raise_with(ClaimError, f, reason,
                      PyUnicode_FromFormat("%s: %s (%s)", toid_format_get(f)->name, why, reason));
}

/* ClaimError for IDs of node `node` that its claim did not admit. */
static PyObject *refused(toid_format f, uint32_t node, int rc, const char *whose) {
    char why[400];
    snprintf(why, sizeof why, "node %u: %s claim did not admit the ID: %s%s", (unsigned)node,
             whose, toid_claim_strerror(rc),
             rc == TOID_CLAIM_ELOST ? " (given back, lost, past its deadline, or the parent "
             "process's after fork(): no more IDs of this node from it)" : "");
    return claim_error(f, rc, why);
}

/* claim_epoch, time_epoch, set_low_node: toid_claim_epoch.h */

/* The node the generator itself takes: the claim's for the formats whose
 * generator has one; 0 for uid11-seq, whose node goes into the value's low
 * bits after generating (set_low_node). */
static uint32_t gen_node(toid_format f, uint32_t node) { return node_max[f] ? node : 0; }


/* Where a claim of f fails with a node out of its range: a ValueError as
 * the library's own ("node: 1024 is above nanoflake's largest, 1023"). */
static int node_in_range(const char *what, toid_format f, PyObject *node) {
    if (!node || node == Py_None)
        return 1;
    unsigned long v = PyLong_AsUnsignedLong(node);
    if (PyErr_Occurred() || v > claim_max[f]) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: node: %R is above %s's largest, %u (invalid)", what,
                     node, toid_format_get(f)->name, (unsigned)claim_max[f]);
        return 0;
    }
    return 1;
}

/* The claim of the process-wide generator of claimed format f, the
 * generator configured with its node: the node configure()/claim() named,
 * else the process's node, claimed (without the GIL: it may wait for the
 * clock or the network) on the first ID and after a claim stops admitting.
 * NULL with ClaimError set if none can be had. */
static toid_claim *process_claim(toid_format f) {
    process_gen *p = &pgen[f];
    for (;;) {
        if (p->k)
            return p->k;
        if (p->want >= 0 && p->want_pid != getpid())
            p->want = -1;                 /* a child of fork(): not the parent's node */
        unsigned serial = p->serial;
        int64_t want = p->want, epoch = claim_epoch(&p->cfg);
        char err[2048] = "";
        toid_claim *k = NULL;
        int rc;
        Py_BEGIN_ALLOW_THREADS
        rc = toid_claim_process(f, epoch, want, &k, err, sizeof err);
        Py_END_ALLOW_THREADS
        if (p->serial != serial)
            continue;                     /* configure() ran meanwhile: its settings */
        if (rc < 0)
            return claim_error(f, rc, err), NULL;
        if (p->k == k)
            return k;                     /* another thread configured it meanwhile */
        toid_gen_config cfg = p->cfg;
        cfg.node = gen_node(f, toid_claim_node(k));
        if ((rc = toid_configure(&cfg)) < 0)
            return config_error("configure", rc, &cfg, TOID_FOR_CONFIGURE), NULL;
        p->k = k;
        return k;
    }
}

/* The next ID of claimed format f from its process-wide generator into bin,
 * admitted by its claim. 0, or -1 with an exception set. A claim that stops
 * admitting (lost; the parent's, in a child of fork()) or a generator that
 * refuses as forked is replaced once: the ID made with the old one never
 * leaves. */
static int process_next(toid_format f, uint8_t *bin) {
    for (int again = 0;; again++) {
        toid_claim *k = process_claim(f);
        if (!k)
            return -1;
        int rc = toid_new(f, bin);
        if (rc == TOID_EFORKED && !again) {
            pgen[f].k = NULL;
            continue;
        }
        if (rc < 0)
            return generation_error(f, rc), -1;
        uint32_t node = toid_claim_node(k);
        set_low_node(f, bin, node);
        int64_t ms;
        rc = toid_time_of(f, bin, time_epoch(&pgen[f].cfg), &ms);
        if (rc == 0)
            rc = toid_claim_admit(k, ms, ms);
        if (rc == 0)
            return 0;
        if (rc == TOID_CLAIM_ELOST && !again) {
            pgen[f].k = NULL;
            continue;
        }
        return refused(f, node, rc, "the process's"), -1;
    }
}

/* Longest input shown in a message, in characters (then "..."). */
#define SHOW_MAX 100

/* Raises ParseError "<fn>: <param>: <input> is not a valid <what>: <the
 * library's explanation> (<reason>)", the explanation toid_explain's for
 * explain_f (a format, or -1 for detection), the words `toid inspect`
 * prints. .reason is the library's error class, .position (for 'char') the
 * offset of the bad byte in the UTF-8 text, counted from 0 as in every
 * front end (every byte before it is ASCII, so it is the character's index
 * in a str too), .format fmt (None: detected, or not a format). */
static PyObject *parse_error(const char *fn, const char *param, PyObject *input,
                             const char *text, size_t len, int explain_f, int rc,
                             size_t byte_pos, const char *what, PyObject *fmt) {
    char why[320];
    if (toid_explain(explain_f, text, len, rc, byte_pos, why, sizeof why) < 0)
        snprintf(why, sizeof why, "%s", toid_strerror(rc));
    PyObject *shown = input;
    Py_INCREF(shown);
    Py_ssize_t n = PyUnicode_Check(input) ? PyUnicode_GET_LENGTH(input)
                 : PyBytes_Check(input) ? PyBytes_GET_SIZE(input) : 0;
    if (n > SHOW_MAX) {                   /* a long input: its start, then ... */
        Py_DECREF(shown);
        shown = PyUnicode_Check(input) ? PyUnicode_Substring(input, 0, SHOW_MAX)
                                       : PyBytes_FromStringAndSize(PyBytes_AS_STRING(input), SHOW_MAX);
        if (!shown)
            return NULL;
    }
    PyObject *position = rc == TOID_ECHAR ? PyLong_FromSize_t(byte_pos) : Py_NewRef(Py_None);
    PyObject *msg = PyUnicode_FromFormat("%s: %s: %R%s is not a valid %s: %s (%s)", fn, param,
                                         shown, n > SHOW_MAX ? "..." : "", what, why,
                                         toid_err_name(rc));
    Py_DECREF(shown);
    PyObject *exc = msg && position ? PyObject_CallOneArg(ParseError, msg) : NULL;
    Py_XDECREF(msg);
    if (exc) {
        PyObject *reason = PyUnicode_FromString(toid_err_name(rc));
        if (reason && PyObject_SetAttrString(exc, "reason", reason) == 0
            && PyObject_SetAttrString(exc, "position", position) == 0
            && PyObject_SetAttrString(exc, "format", fmt ? fmt : Py_None) == 0)
            PyErr_SetObject(ParseError, exc);
        Py_XDECREF(reason);
        Py_DECREF(exc);
    }
    Py_XDECREF(position);
    return NULL;
}

/* parse_error for text that format f (TOID_FORMAT_COUNT: detection) refused. */
static PyObject *decode_error(const char *fn, PyObject *input, const char *text, size_t len,
                              int f, int rc, size_t pos) {
    if (f < TOID_FORMAT_COUNT)
        return parse_error(fn, "text", input, text, len, f, rc, pos,
                           toid_format_get((toid_format)f)->name, format_names[f]);
    return parse_error(fn, "text", input, text, len, -1, rc, pos, "ID", NULL);
}

/* Raises ValueError for a library error outside parsing. */
static PyObject *value_error(const char *what, int rc) {
    return PyErr_Format(PyExc_ValueError, "%s: %s (%s)", what, toid_strerror(rc),
                        toid_err_name(rc));
}

/* A configuration the library refuses: its reason, which names the setting
 * ("node: 1024 is above nanoflake's largest, 1023"); else value_error. */
static PyObject *config_error(const char *what, int rc, const toid_gen_config *cfg, toid_config_use use) {
    char why[200];
    if (rc == TOID_EINVAL && toid_gen_config_explain(cfg, use, why, sizeof why) < 0)
        return PyErr_Format(PyExc_ValueError, "%s: %s (%s)", what, why, toid_err_name(rc));
    return value_error(what, rc);
}

/* ---- generating with the process-wide generators ------------------------ */

/* The format of new(format="ulid") style calls. */
static int optional_format(const char *fn, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs == 0)
        return TOID_ULID;
    if (nargs > 1) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most 1 argument (%zd given)", fn, nargs);
        return -1;
    }
    return format_arg(fn, args[0]);
}

/* ---- IDs at given times: new(format, at=...), new_bytes(format, at=...) ----
 * The package reads the time (its _span: the CLI's text, int ms, an aware
 * datetime; a text's first ms) through at_reader, set by toid/__init__.py,
 * then toid_new_at makes the ID. The keyword path is apart from new()'s
 * positional one, which stays a plain METH_FASTCALL call. */

static PyObject *at_reader;     /* at_reader(fn, at) -> unix ms */
/* The process's states: toid_new_at takes no lock, the GIL serialises the
 * calls. (Not thread-local: libtoid's TLS is initial-exec, taken from the
 * small static-TLS spare that glibc keeps for dlopen'ed modules.) */
static toid_at at_state[TOID_FORMAT_COUNT];

/* _set_at_reader(callable): the package's time reader for at=. */
static PyObject *py_set_at_reader(PyObject *self, PyObject *fn) {
    (void)self;
    Py_XSETREF(at_reader, Py_NewRef(fn));
    Py_RETURN_NONE;
}

/* An ID of f at the time at, as str or bytes; errors name fn and the
 * parameter at fault, in the library's words. */
static PyObject *new_at(const char *fn, int f, PyObject *at, int as_bytes) {
    if (!at_reader)
        return PyErr_Format(PyExc_RuntimeError, "%s: at: the toid package is not initialised", fn);
    if (toid_at_time_unique((toid_format)f, NULL) != 1) {
        char why[256];
        toid_at_time_explain((toid_format)f, why, sizeof why);
        return PyErr_Format(PyExc_ValueError, "%s: format: no ID at a given time: %s (invalid)", fn, why);
    }
    PyObject *msobj = PyObject_CallFunction(at_reader, "sO", fn, at);
    if (!msobj)
        return NULL;
    long long ms = PyLong_AsLongLong(msobj);
    Py_DECREF(msobj);
    if (ms == -1 && PyErr_Occurred())
        return NULL;
    uint8_t bin[TOID_BIN_MAX];
    int rc = toid_new_at(&at_state[f], (toid_format)f, ms, bin);
    if (rc == TOID_ERANGE) {
        int64_t lo = 0, hi = 0;
        char a[48] = "?", b[48] = "?";
        if (toid_time_span((toid_format)f, TOID_EPOCH_DEFAULT, &lo, &hi) == 0) {
            toid_format_time(lo, a, sizeof a);
            toid_format_time(hi, b, sizeof b);
        }
        return PyErr_Format(PyExc_ValueError, "%s: at: %R is outside the times %s holds (%s .. %s) (range)",
                            fn, at, toid_format_get((toid_format)f)->name, a, b);
    }
    if (rc < 0)
        return generation_error((toid_format)f, rc);
    if (as_bytes)
        return PyBytes_FromStringAndSize((const char *)bin, (Py_ssize_t)toid_bin_size((toid_format)f));
    char text[TOID_TEXT_MAX];
    int len = toid_encode((toid_format)f, bin, text, sizeof text);
    return len < 0 ? value_error(fn, len) : ascii_str(text, (size_t)len);
}

/* _new_at_bytes(fn, format, at) -> bytes: for ID.new(format, at=...). */
static PyObject *py_new_at_bytes(PyObject *self, PyObject *args) {
    (void)self;
    const char *fn;
    PyObject *format, *at;
    if (!PyArg_ParseTuple(args, "sOO:_new_at_bytes", &fn, &format, &at))
        return NULL;
    int f = format_arg(fn, format);
    return f < 0 ? NULL : new_at(fn, f, at, 1);
}

static PyObject *py_new(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
static PyObject *py_new_bytes(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

/* new/new_bytes called with keywords: format= and at= (at=None: the clock). */
static PyObject *new_keywords(const char *fn, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames, int as_bytes) {
    PyObject *format = nargs > 0 ? args[0] : NULL, *at = Py_None;
    if (nargs > 1)
        return PyErr_Format(PyExc_TypeError, "%s() takes at most 1 positional argument (%zd given)",
                            fn, nargs);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwnames); i++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, i), *value = args[nargs + i];
        if (PyUnicode_CompareWithASCIIString(key, "at") == 0) {
            at = value;
        } else if (PyUnicode_CompareWithASCIIString(key, "format") == 0 && !format) {
            format = value;
        } else {
            return PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R%s", fn, key,
                                format && PyUnicode_CompareWithASCIIString(key, "format") == 0
                                    ? " (format given twice)" : "");
        }
    }
    if (at == Py_None)
        return as_bytes ? py_new_bytes(NULL, &format, format ? 1 : 0, NULL)
                        : py_new(NULL, &format, format ? 1 : 0, NULL);
    int f = format ? format_arg(fn, format) : TOID_ULID;
    return f < 0 ? NULL : new_at(fn, f, at, as_bytes);
}

static PyObject *py_new(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    (void)self;
    if (kwnames && PyTuple_GET_SIZE(kwnames))
        return new_keywords("new", args, nargs, kwnames, 0);
    int f = optional_format("new", args, nargs);
    if (f < 0)
        return NULL;
    char text[TOID_TEXT_MAX];
    int len;
    if (claim_max[f]) {
        uint8_t bin[TOID_BIN_MAX];
        if (process_next((toid_format)f, bin) < 0)
            return NULL;
        len = toid_encode((toid_format)f, bin, text, sizeof text);
    } else {
        len = toid_new_text((toid_format)f, text, sizeof text);
    }
    if (len < 0)
        return generation_error((toid_format)f, len);
    return ascii_str(text, (size_t)len);
}

static PyObject *py_new_bytes(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    (void)self;
    if (kwnames && PyTuple_GET_SIZE(kwnames))
        return new_keywords("new_bytes", args, nargs, kwnames, 1);
    int f = optional_format("new_bytes", args, nargs);
    if (f < 0)
        return NULL;
    uint8_t bin[TOID_BIN_MAX];
    int rc = 0;
    if (claim_max[f]) {
        if (process_next((toid_format)f, bin) < 0)
            return NULL;
    } else {
        rc = toid_new((toid_format)f, bin);
    }
    if (rc < 0)
        return generation_error((toid_format)f, rc);
    return PyBytes_FromStringAndSize((const char *)bin, (Py_ssize_t)toid_bin_size((toid_format)f));
}

/* The binding's floor for the benchmarks: a METH_FASTCALL call that does
 * nothing, the same calling convention as new(). */
static PyObject *py_noop(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    (void)args;
    (void)nargs;
    Py_RETURN_NONE;
}

/* _c_loop(format, n): n IDs of format made by the C library alone, one
 * toid_new_text call each, nothing returned: the benchmarks subtract it to
 * show what the binding itself adds to a call. */
static PyObject *py_c_loop(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *fmt;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "On:_c_loop", &fmt, &n))
        return NULL;
    int f = format_arg("_c_loop", fmt);
    if (f < 0)
        return NULL;
    char text[TOID_TEXT_MAX];
    uint8_t bin[TOID_BIN_MAX];
    for (Py_ssize_t i = 0; i < n; i++) {
        if (claim_max[f]) {                 /* claimed: each admitted, as new() does */
            if (process_next((toid_format)f, bin) < 0)
                return NULL;
            continue;
        }
        int rc = toid_new_text((toid_format)f, text, sizeof text);
        if (rc < 0)
            return generation_error((toid_format)f, rc);
    }
    Py_RETURN_NONE;
}

/* The claim that admits a batch (NULL: a format without a node) and the
 * epoch to read the IDs' times with. */
typedef struct {
    toid_claim *k;
    int64_t epoch;
} batch_claim;

/* n IDs of f into bin, admitted by claim->k if not NULL (their node into
 * the low bits first, for uid11-seq), and their texts into text
 * (NUL-separated) if not NULL. *claim_rc gets the claim's refusal (the
 * return value is then 0). Touches no Python object: runs with or without
 * the GIL. */
static int fill(toid_format f, toid_gen *gen, size_t n, uint8_t *bin, char *text,
                const batch_claim *claim, int *claim_rc) {
    *claim_rc = 0;
    if (n == 0)
        return 0;
    int rc = gen ? toid_gen_batch(gen, bin, n, NULL) : toid_new_batch(f, bin, n, NULL);
    size_t size = toid_bin_size(f), tlen = toid_format_get(f)->text_len;
    if (rc >= 0 && claim->k) {
        uint32_t node = toid_claim_node(claim->k);
        for (size_t i = 0; i < n; i++)
            set_low_node(f, bin + i * size, node);
        int64_t lo, hi;   /* the claimed formats' generators are strictly increasing */
        int trc = toid_time_of(f, bin, claim->epoch, &lo);
        if (trc == 0)
            trc = toid_time_of(f, bin + (n - 1) * size, claim->epoch, &hi);
        if (trc == 0)
            trc = toid_claim_admit(claim->k, lo, hi);
        if (trc < 0) {
            *claim_rc = trc;
            return 0;
        }
    }
    for (size_t i = 0; rc >= 0 && text && i < n; i++)
        toid_encode(f, bin + i * size, text + i * (tlen + 1), tlen + 1);
    return rc;
}

/* n IDs of f as a list of str (text) or bytes; gen NULL for the process-wide
 * generator; admitted by claim->k (NULL: not claimed). Generation and
 * encoding run without the GIL for long batches. NULL with an exception
 * set, or NULL without one and *claim_rc set when the claim refused. */
static PyObject *many(toid_format f, toid_gen *gen, Py_ssize_t n, int as_text,
                      const batch_claim *claim, int *claim_rc) {
    *claim_rc = 0;
    if (n < 0)
        return PyErr_Format(PyExc_ValueError, "count must be >= 0, not %zd", n);
    size_t size = toid_bin_size(f);
    size_t tlen = toid_format_get(f)->text_len;
    if ((size_t)n > (SIZE_MAX / 2) / (size + tlen + 1))
        return PyErr_NoMemory();
    uint8_t *bin = PyMem_RawMalloc((size_t)n * size + 1);
    char *text = as_text ? PyMem_RawMalloc((size_t)n * (tlen + 1) + 1) : NULL;
    if (!bin || (as_text && !text)) {
        PyMem_RawFree(bin);
        PyMem_RawFree(text);
        return PyErr_NoMemory();
    }
    int rc;
    if (n >= TOID_PY_NOGIL_MIN) {
        Py_BEGIN_ALLOW_THREADS
        rc = fill(f, gen, (size_t)n, bin, text, claim, claim_rc);
        Py_END_ALLOW_THREADS
    } else {
        rc = fill(f, gen, (size_t)n, bin, text, claim, claim_rc);   /* short: not worth the GIL's round trip */
    }
    PyObject *list = NULL;
    if (rc < 0) {
        if (!(rc == TOID_EFORKED && claim->k && !gen)) /* (the caller replaces the claim) */
            generation_error(f, rc);
        else
            *claim_rc = TOID_CLAIM_ELOST;
    } else if (*claim_rc == 0 && (list = PyList_New(n)) != NULL) {
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *item = as_text
                ? ascii_str(text + (size_t)i * (tlen + 1), tlen)
                : PyBytes_FromStringAndSize((const char *)bin + (size_t)i * size, (Py_ssize_t)size);
            if (!item) {
                Py_CLEAR(list);
                break;
            }
            PyList_SET_ITEM(list, i, item);
        }
    }
    PyMem_RawFree(bin);
    PyMem_RawFree(text);
    return list;
}

static PyObject *py_new_many(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *fmt;
    Py_ssize_t n;
    int as_bytes = 0;
    if (!PyArg_ParseTuple(args, "On|p:new_many", &fmt, &n, &as_bytes))
        return NULL;
    int f = format_arg("new_many", fmt);
    if (f < 0)
        return NULL;
    batch_claim none = { NULL, 0 };
    int claim_rc;
    if (!claim_max[f])
        return many((toid_format)f, NULL, n, !as_bytes, &none, &claim_rc);
    /* claimed: as process_next, a claim that stops admitting (or the
     * parent's generator, in a child of fork()) is replaced once */
    for (int again = 0;; again++) {
        batch_claim c = { process_claim((toid_format)f), time_epoch(&pgen[f].cfg) };
        if (!c.k)
            return NULL;
        PyObject *list = many((toid_format)f, NULL, n, !as_bytes, &c, &claim_rc);
        if (list || claim_rc == 0)
            return list;
        if (claim_rc == TOID_CLAIM_ELOST && !again) {
            if (pgen[f].k == c.k)
                pgen[f].k = NULL;
            continue;
        }
        return refused((toid_format)f, toid_claim_node(c.k), claim_rc, "the process's");
    }
}

/* ---- generator settings -------------------------------------------------- */

/* Fills *cfg for format f from keyword settings (None = the default). */
static int config_from(int f, PyObject *node, PyObject *epoch, PyObject *entropy_bytes,
                       PyObject *wait_max_ms, toid_gen_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->format = (toid_format)f;
    cfg->epoch_ms = TOID_EPOCH_DEFAULT;
    struct { PyObject *obj; const char *name; uint32_t *u32; } u[] = {
        { node, "node", &cfg->node },
        { entropy_bytes, "entropy_bytes", &cfg->entropy_bytes },
        { wait_max_ms, "wait_max_ms", &cfg->wait_max_ms },
    };
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        if (!u[i].obj || u[i].obj == Py_None)
            continue;
        unsigned long v = PyLong_AsUnsignedLong(u[i].obj);
        if (PyErr_Occurred() || v > UINT32_MAX) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "%s must be an int >= 0, not %R", u[i].name, u[i].obj);
            return -1;
        }
        *u[i].u32 = (uint32_t)v;
    }
    if (epoch && epoch != Py_None) {
        long long ms = PyLong_AsLongLong(epoch);
        if (ms == -1 && PyErr_Occurred())
            return -1;
        cfg->epoch_ms = ms;
    }
    return 0;
}

static char *config_kwlist[] = { "format", "node", "epoch", "entropy_bytes", "wait_max_ms", NULL };

/* The claim of node want of claimed format f (< 0: the process's node), own:
 * a node of its own (toid_claim_process_own); claimed without the GIL. NULL
 * with ClaimError set when refused. */
static toid_claim *claim_now(toid_format f, int64_t epoch, int64_t want, int own) {
    char err[2048] = "";
    toid_claim *k = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = own ? toid_claim_process_own(f, epoch, want, &k, err, sizeof err)
             : toid_claim_process(f, epoch, want, &k, err, sizeof err);
    Py_END_ALLOW_THREADS
    return rc < 0 ? (claim_error(f, rc, err), NULL) : k;
}

/* Gives k back (without the GIL: the mark is written, to a file or etcd). */
static void release_claim(toid_claim *k) {
    Py_BEGIN_ALLOW_THREADS
    toid_claim_process_release(k);
    Py_END_ALLOW_THREADS
}

/* The process-wide generator of claimed format f takes cfg, node want and
 * its claim k (NULL: claimed on the next ID). The claim it had is given back
 * unless it is the one it goes on with (the process's node, same epoch). */
static PyObject *process_set(toid_format f, const toid_gen_config *cfg, int64_t want,
                             toid_claim *k) {
    process_gen *p = &pgen[f];
    toid_claim *old = p->k;
    int keep = old == k || (want < 0 && p->want < 0 && claim_epoch(&p->cfg) == claim_epoch(cfg));
    p->cfg = *cfg;
    p->want = want;
    p->want_pid = getpid();
    p->serial++;
    p->k = NULL;
    if (old && !keep)
        release_claim(old);
    if (k) {
        toid_gen_config c = *cfg;
        c.node = gen_node(f, toid_claim_node(k));
        int rc = toid_configure(&c);
        if (rc < 0)
            return config_error("configure", rc, &c, TOID_FOR_CONFIGURE);
        p->k = k;
    }
    Py_RETURN_NONE;
}

static PyObject *py_configure(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    PyObject *fmt, *node = NULL, *epoch = NULL, *eb = NULL, *wait = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OOOO:configure", config_kwlist, &fmt,
                                     &node, &epoch, &eb, &wait))
        return NULL;
    int f = format_arg("configure", fmt);
    toid_gen_config cfg;
    if (f < 0 || config_from(f, node, epoch, eb, wait, &cfg) < 0)
        return NULL;
    if (!claim_max[f]) {
        int rc = toid_configure(&cfg);
        if (rc < 0)
            return config_error("configure", rc, &cfg, TOID_FOR_CONFIGURE);
        Py_RETURN_NONE;
    }
    /* A claimed format: the settings checked, then node N claimed now (a
     * node held elsewhere is refused here, naming its holder, and nothing
     * changes); without node, the process's node, claimed on the next ID. */
    if (!node_in_range("configure", (toid_format)f, node))
        return NULL;
    int64_t want = node && node != Py_None ? (int64_t)cfg.node : -1;
    cfg.node = want >= 0 ? gen_node((toid_format)f, cfg.node) : 0;
    char why[200];
    if (toid_gen_config_explain(&cfg, TOID_FOR_CONFIGURE, why, sizeof why) < 0)
        return config_error("configure", TOID_EINVAL, &cfg, TOID_FOR_CONFIGURE);
    toid_claim *k = NULL;
    if (want >= 0 && !(k = claim_now((toid_format)f, claim_epoch(&cfg), want, 0)))
        return NULL;
    return process_set((toid_format)f, &cfg, want, k);
}

/* ---- claims held explicitly: toid.claim() --------------------------------- */

#define CLAIM_CAPSULE "toid._claim"

/* _claim(format, node or None) -> capsule: the process-wide generator of
 * format takes node (None: the process's node), claimed now. */
static PyObject *py_claim(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *fmt, *node;
    if (!PyArg_ParseTuple(args, "OO:claim", &fmt, &node))
        return NULL;
    int f = format_arg("claim", fmt);
    if (f < 0)
        return NULL;
    if (!claim_max[f])
        return PyErr_Format(PyExc_ValueError, "claim: %s has no node to claim (the formats with "
                            "one: nanoflake, ulid-flake-scalable, uid11-seq)",
                            toid_format_get((toid_format)f)->name);
    int64_t want = -1;
    if (node != Py_None) {
        if (!node_in_range("claim", (toid_format)f, node))
            return NULL;
        want = (int64_t)PyLong_AsUnsignedLong(node);
    }
    toid_claim *k = claim_now((toid_format)f, claim_epoch(&pgen[f].cfg), want, 0);
    if (!k)
        return NULL;
    toid_gen_config cfg = pgen[f].cfg;
    PyObject *r = process_set((toid_format)f, &cfg, want, k);
    if (!r)
        return NULL;
    Py_DECREF(r);
    return PyCapsule_New(k, CLAIM_CAPSULE, NULL);
}

static toid_claim *capsule_claim(PyObject *cap) {
    return PyCapsule_GetPointer(cap, CLAIM_CAPSULE);
}

/* _claim_node(capsule) -> int */
static PyObject *py_claim_node(PyObject *self, PyObject *cap) {
    (void)self;
    toid_claim *k = capsule_claim(cap);
    return k ? PyLong_FromUnsignedLong(toid_claim_node(k)) : NULL;
}

/* _claim_valid(capsule) -> bool: held, not lost, not given back, not a
 * parent's after fork(). */
static PyObject *py_claim_valid(PyObject *self, PyObject *cap) {
    (void)self;
    toid_claim *k = capsule_claim(cap);
    return k ? PyBool_FromLong(toid_claim_valid(k, NULL)) : NULL;
}

/* _claim_release(format, capsule): gives the node back; the process-wide
 * generator of format goes back to the process's node (claimed afresh on
 * its next ID) if it had this one. */
static PyObject *py_claim_release(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *fmt, *cap;
    if (!PyArg_ParseTuple(args, "OO:claim_release", &fmt, &cap))
        return NULL;
    int f = format_arg("release", fmt);
    toid_claim *k = f < 0 ? NULL : capsule_claim(cap);
    if (!k)
        return NULL;
    process_gen *p = &pgen[f];
    if (p->k == k)
        p->k = NULL;
    if (p->want >= 0 && (uint32_t)p->want == toid_claim_node(k)) {
        p->want = -1;
        p->serial++;
    }
    release_claim(k);
    Py_RETURN_NONE;
}

/* ---- Generator: a private generator ------------------------------------ */

typedef struct {
    PyObject_HEAD
    toid_gen *gen;     /* toid_gen_size(format) bytes on the heap, never moved */
    int format;
    toid_claim *claim; /* a claimed format's node of its own (toid_claim_process_own) */
    int64_t epoch;     /* what toid_time_of takes for its IDs */
    int closed;        /* close(): the node given back */
} GeneratorObject;

static int Generator_init(GeneratorObject *self, PyObject *args, PyObject *kw) {
    PyObject *fmt, *node = NULL, *epoch = NULL, *eb = NULL, *wait = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OOOO:Generator", config_kwlist, &fmt,
                                     &node, &epoch, &eb, &wait))
        return -1;
    int f = format_arg("Generator", fmt);
    toid_gen_config cfg;
    if (f < 0 || config_from(f, node, epoch, eb, wait, &cfg) < 0)
        return -1;
    if (self->gen) {   /* another thread may be generating from it right now */
        PyErr_SetString(PyExc_RuntimeError, "a Generator cannot be re-initialised: make a new one");
        return -1;
    }
    toid_claim *k = NULL;
    if (claim_max[f]) {   /* a node of its own, claimed: the one named, else the lowest free */
        if (!node_in_range("Generator", (toid_format)f, node))
            return -1;
        int64_t want = node && node != Py_None ? (int64_t)cfg.node : -1;
        cfg.node = want >= 0 ? gen_node((toid_format)f, cfg.node) : 0;
        char why[200];
        if (toid_gen_config_explain(&cfg, TOID_FOR_GEN_INIT, why, sizeof why) < 0) {
            config_error("Generator", TOID_EINVAL, &cfg, TOID_FOR_GEN_INIT);
            return -1;
        }
        if (!(k = claim_now((toid_format)f, claim_epoch(&cfg), want, 1)))
            return -1;
        cfg.node = gen_node((toid_format)f, toid_claim_node(k));
    }
    size_t gen_size = toid_gen_size((toid_format)f);
    if (!(self->gen = PyMem_RawCalloc(1, gen_size))) {
        if (k)
            release_claim(k);
        PyErr_NoMemory();
        return -1;
    }
    int rc = toid_gen_init_size(self->gen, gen_size, &cfg);
    if (rc < 0) {
        PyMem_RawFree(self->gen);
        self->gen = NULL;
        if (k)
            release_claim(k);
        config_error("Generator", rc, &cfg, TOID_FOR_GEN_INIT);
        return -1;
    }
    self->format = f;
    self->claim = k;
    self->epoch = time_epoch(&cfg);
    return 0;
}

static void Generator_dealloc(GeneratorObject *self) {
    if (self->claim && !self->closed)
        release_claim(self->claim);   /* (the claim itself stays allocated: claim_process.c) */
    PyMem_RawFree(self->gen);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Generator_ready(GeneratorObject *self) {
    if (!self->gen) {
        PyErr_SetString(PyExc_RuntimeError, "Generator.__init__ was not called");
        return 0;
    }
    if (self->closed) {
        PyErr_Format(PyExc_ValueError, "this %s Generator is closed (its node was given back): "
                     "make a new one", toid_format_get((toid_format)self->format)->name);
        return 0;
    }
    return 1;
}

/* An ID of a claimed Generator, in bin: its node into the low bits
 * (uid11-seq), admitted by its claim. 0, or -1 with ClaimError set. */
static int Generator_admit(GeneratorObject *self, uint8_t *bin) {
    if (!self->claim)
        return 0;
    toid_format f = (toid_format)self->format;
    uint32_t node = toid_claim_node(self->claim);
    set_low_node(f, bin, node);
    int64_t ms;
    int rc = toid_time_of(f, bin, self->epoch, &ms);
    if (rc == 0)
        rc = toid_claim_admit(self->claim, ms, ms);
    return rc == 0 ? 0 : (refused(f, node, rc, "this Generator's"), -1);
}

static PyObject *Generator_new(GeneratorObject *self, PyObject *unused) {
    (void)unused;
    if (!Generator_ready(self))
        return NULL;
    char text[TOID_TEXT_MAX];
    int len;
    if (self->claim) {
        uint8_t bin[TOID_BIN_MAX];
        int rc = toid_gen_next(self->gen, bin, NULL);
        if (rc < 0)
            return generation_error((toid_format)self->format, rc);
        if (Generator_admit(self, bin) < 0)
            return NULL;
        len = toid_encode((toid_format)self->format, bin, text, sizeof text);
    } else {
        len = toid_gen_next_text(self->gen, text, sizeof text);
    }
    if (len < 0)
        return generation_error((toid_format)self->format, len);
    return ascii_str(text, (size_t)len);
}

static PyObject *Generator_new_bytes(GeneratorObject *self, PyObject *unused) {
    (void)unused;
    if (!Generator_ready(self))
        return NULL;
    uint8_t bin[TOID_BIN_MAX];
    int rc = toid_gen_next(self->gen, bin, NULL);
    if (rc < 0)
        return generation_error((toid_format)self->format, rc);
    if (Generator_admit(self, bin) < 0)
        return NULL;
    return PyBytes_FromStringAndSize((const char *)bin,
                                     (Py_ssize_t)toid_bin_size((toid_format)self->format));
}

static PyObject *Generator_new_many(GeneratorObject *self, PyObject *args) {
    Py_ssize_t n;
    int as_bytes = 0;
    if (!Generator_ready(self) || !PyArg_ParseTuple(args, "n|p:new_many", &n, &as_bytes))
        return NULL;
    batch_claim c = { self->claim, self->epoch };
    int claim_rc;
    PyObject *list = many((toid_format)self->format, self->gen, n, !as_bytes, &c, &claim_rc);
    if (!list && claim_rc)
        refused((toid_format)self->format, toid_claim_node(self->claim), claim_rc,
                "this Generator's");
    return list;
}

/* close(): gives the node of a claimed Generator back (its mark lowered to
 * the last ID admitted); no more IDs from it. Again: nothing. */
static PyObject *Generator_close(GeneratorObject *self, PyObject *unused) {
    (void)unused;
    if (self->gen && !self->closed) {
        self->closed = 1;
        if (self->claim)
            release_claim(self->claim);
    }
    Py_RETURN_NONE;
}

/* The node of a claimed Generator (None for the formats without one). */
static PyObject *Generator_node(GeneratorObject *self, void *closure) {
    (void)closure;
    if (!self->gen)
        return Generator_ready(self), NULL;
    if (!self->claim)
        Py_RETURN_NONE;
    return PyLong_FromUnsignedLong(toid_claim_node(self->claim));
}

static PyObject *Generator_format(GeneratorObject *self, void *closure) {
    (void)closure;
    if (!Generator_ready(self))
        return NULL;
    Py_INCREF(format_names[self->format]);
    return format_names[self->format];
}

static PyMethodDef Generator_methods[] = {
    { "new", (PyCFunction)Generator_new, METH_NOARGS, "The next ID as text." },
    { "new_bytes", (PyCFunction)Generator_new_bytes, METH_NOARGS, "The next ID as bytes." },
    { "new_many", (PyCFunction)Generator_new_many, METH_VARARGS,
      "new_many(n, as_bytes=False): n strictly increasing IDs (uid11: sorted)." },
    { "close", (PyCFunction)Generator_close, METH_NOARGS,
      "Gives a claimed node back (nanoflake, ulid-flake-scalable, uid11-seq); no more IDs." },
    { NULL, NULL, 0, NULL }
};

static PyGetSetDef Generator_getset[] = {
    { "format", (getter)Generator_format, NULL, "The generator's format.", NULL },
    { "node", (getter)Generator_node, NULL,
      "The node it claimed (None for the formats without one).", NULL },
    { NULL, NULL, NULL, NULL, NULL }
};

static PyTypeObject GeneratorType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "toid.Generator",
    .tp_basicsize = sizeof(GeneratorObject),
    .tp_dealloc = (destructor)Generator_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Generator(format, *, node=None, epoch=None, entropy_bytes=None, wait_max_ms=None)\n"
              "A generator of its own (thread-safe), beside the process-wide ones.",
    .tp_methods = Generator_methods,
    .tp_getset = Generator_getset,
    .tp_init = (initproc)Generator_init,
    .tp_new = PyType_GenericNew,
};

/* ---- decoding and the value's views ------------------------------------ */

/* text (str or bytes) as bytes and their length: a str as its UTF-8 (kept by
 * the str itself), so a decoder counts and reports in bytes. */
static const char *text_arg(const char *fn, PyObject *obj, Py_ssize_t *len) {
    if (PyUnicode_Check(obj))
        return PyUnicode_AsUTF8AndSize(obj, len);
    if (PyBytes_Check(obj)) {
        *len = PyBytes_GET_SIZE(obj);
        return PyBytes_AS_STRING(obj);
    }
    PyErr_Format(PyExc_TypeError, "%s: text: must be a str or bytes, not %.80s", fn,
                 Py_TYPE(obj)->tp_name);
    return NULL;
}

/* The names of the formats in mask, as a tuple, by detection rank. */
static PyObject *names_of(uint32_t mask) {
    PyObject *t = PyTuple_New(__builtin_popcount(mask));
    Py_ssize_t i = 0;
    for (unsigned rank = 1; t && rank <= TOID_FORMAT_COUNT; rank++)
        for (int f = 0; f < TOID_FORMAT_COUNT; f++)
            if (mask >> f & 1u && toid_format_get((toid_format)f)->detect_rank == rank)
                PyTuple_SET_ITEM(t, i++, Py_NewRef(format_names[f]));
    for (int f = 0; t && f < TOID_FORMAT_COUNT; f++)   /* (never detected: no rank) */
        if (mask >> f & 1u && toid_format_get((toid_format)f)->detect_rank == 0)
            PyTuple_SET_ITEM(t, i++, Py_NewRef(format_names[f]));
    return t;
}

/* _decode(text, format or None, fn) -> (format, bytes, also): strict (the
 * format's canonical decoder, as the shared vectors and the SQL extensions
 * read it: a uuidv7 in its 36-character form), or detected as `toid
 * inspect` detects (a uuidv7 in any UUID form too), with the other formats
 * that read the text in also. Errors name fn and its parameter 'text'. */
static PyObject *py_decode(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *input, *fmt;
    const char *fn = "parse";
    if (!PyArg_ParseTuple(args, "OO|s:decode", &input, &fmt, &fn))
        return NULL;
    Py_ssize_t len;
    const char *text = text_arg(fn, input, &len);
    if (!text)
        return NULL;
    uint8_t bin[TOID_BIN_MAX];
    size_t pos = 0;
    uint32_t also = 0;
    int f, rc;
    if (fmt == Py_None) {
        rc = f = toid_detect_also(text, (size_t)len, bin, &also, &pos);
        if (rc < 0)
            return decode_error(fn, input, text, (size_t)len, TOID_FORMAT_COUNT, rc, pos);
    } else {
        if ((f = format_arg(fn, fmt)) < 0)
            return NULL;
        rc = toid_decode((toid_format)f, text, (size_t)len, bin, &pos);
        if (rc < 0)
            return decode_error(fn, input, text, (size_t)len, f, rc, pos);
    }
    PyObject *names = names_of(also);
    return names ? Py_BuildValue("Oy#N", format_names[f], (const char *)bin,
                                 (Py_ssize_t)toid_bin_size((toid_format)f), names) : NULL;
}

/* A UUID's record as toid_uuid_json writes it (what `toid inspect --json`
 * prints), as a str. */
static PyObject *uuid_json(const toid_uuid_info *u) {
    char json[512];
    int n = toid_uuid_json(u, json, sizeof json);
    return n < 0 ? value_error("uuid", n) : PyUnicode_FromStringAndSize(json, n);
}

/* _uuid_detect(text) -> (json, also) when detection reads text as a UUID of
 * its own (toid_uuid_detect: a version other than 7, another variant, nil,
 * max), as `toid inspect` does, also the formats that read it too; else None. */
static PyObject *py_uuid_detect(PyObject *self, PyObject *input) {
    (void)self;
    Py_ssize_t len;
    const char *text = text_arg("inspect", input, &len);
    if (!text)
        return NULL;
    toid_uuid_info u;
    if (!toid_uuid_detect(text, (size_t)len, &u))
        Py_RETURN_NONE;
    uint8_t bin[TOID_BIN_MAX];
    uint32_t also = 0;
    size_t pos;
    int rc = toid_detect_also(text, (size_t)len, bin, &also, &pos);
    return Py_BuildValue("NN", uuid_json(&u), names_of(rc >= 0 ? also | 1u << rc : 0));
}

/* _uuid_read(text, fn) -> (json, bytes): any UUID (toid_uuid_read), in any
 * of its forms; ParseError naming fn and 'text' otherwise. */
static PyObject *py_uuid_read(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *input;
    const char *fn;
    if (!PyArg_ParseTuple(args, "Os:uuid_read", &input, &fn))
        return NULL;
    Py_ssize_t len;
    const char *text = text_arg(fn, input, &len);
    if (!text)
        return NULL;
    toid_uuid_info u;
    size_t pos = 0;
    int rc = toid_uuid_read(text, (size_t)len, &u, &pos);
    if (rc < 0)   /* (the UUID reader's errors: its length, a character) */
        return parse_error(fn, "text", input, text, (size_t)len, TOID_UUIDV7, rc, pos, "UUID",
                           NULL);
    return Py_BuildValue("Ny#", uuid_json(&u), (const char *)u.bytes, (Py_ssize_t)16);
}

/* _ulid_to_uuid(text) -> the same 16 bytes as a UUID's text (toid_ulid_to_uuid). */
static PyObject *py_ulid_to_uuid(PyObject *self, PyObject *input) {
    (void)self;
    Py_ssize_t len;
    const char *text = text_arg("ulid_to_uuid", input, &len);
    if (!text)
        return NULL;
    char out[40];
    size_t pos = 0;
    int rc = toid_ulid_to_uuid(text, (size_t)len, out, sizeof out, &pos);
    if (rc < 0)
        return decode_error("ulid_to_uuid", input, text, (size_t)len, TOID_ULID, rc, pos);
    return ascii_str(out, (size_t)rc);
}

/* _uuid_to_ulid(text) -> a UUID's 16 bytes (any version, any form) as a ULID. */
static PyObject *py_uuid_to_ulid(PyObject *self, PyObject *input) {
    (void)self;
    Py_ssize_t len;
    const char *text = text_arg("uuid_to_ulid", input, &len);
    if (!text)
        return NULL;
    toid_uuid_info u;
    size_t pos = 0;
    int rc = toid_uuid_read(text, (size_t)len, &u, &pos);
    if (rc < 0)
        return parse_error("uuid_to_ulid", "text", input, text, (size_t)len, TOID_UUIDV7, rc, pos,
                           "UUID", NULL);
    char out[TOID_TEXT_MAX];
    int n = toid_encode(TOID_ULID, u.bytes, out, sizeof out);   /* every 128-bit value is a ULID */
    return n < 0 ? value_error("uuid_to_ulid", n) : ascii_str(out, (size_t)n);
}

/* _parse_time(text) -> (first_ms, last_ms, notes): the span of time text
 * names (toid_parse_time_span: ISO 8601 at any precision, @SECONDS, Nms,
 * Ns, Nus, unix ms, now, now-1h, -15m, +2d), or None when it is no time. */
static PyObject *py_parse_time(PyObject *self, PyObject *input) {
    (void)self;
    Py_ssize_t len;
    const char *text = text_arg("time", input, &len);
    if (!text)
        return NULL;
    int64_t first, last;
    unsigned notes = 0;
    if (toid_parse_time_span(text, (size_t)len, &first, &last, &notes) < 0)
        Py_RETURN_NONE;
    return Py_BuildValue("LLI", (long long)first, (long long)last, notes);
}

/* _format_time(ms) -> RFC 3339 UTC text as the library writes it. */
static PyObject *py_format_time(PyObject *self, PyObject *arg) {
    (void)self;
    long long ms = PyLong_AsLongLong(arg);
    if (ms == -1 && PyErr_Occurred())
        return NULL;
    char out[48];
    int n = toid_format_time(ms, out, sizeof out);
    return n < 0 ? PyUnicode_FromFormat("%lld ms", ms) : ascii_str(out, (size_t)n);
}

/* _time_span(format, epoch) -> (min_ms, max_ms): the times format holds. */
static PyObject *py_time_span(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *fmt, *ep = Py_None;
    const char *fn = "time_bounds";
    if (!PyArg_ParseTuple(args, "O|Os:time_span", &fmt, &ep, &fn))
        return NULL;
    int f = format_arg(fn, fmt);
    if (f < 0)
        return NULL;
    int64_t epoch = TOID_EPOCH_DEFAULT, lo, hi;
    if (ep != Py_None && (epoch = PyLong_AsLongLong(ep)) == -1 && PyErr_Occurred())
        return NULL;
    int rc = toid_time_span((toid_format)f, epoch, &lo, &hi);
    if (rc < 0)
        return value_error(fn, rc);
    return Py_BuildValue("OLL", format_names[f], (long long)lo, (long long)hi);
}

/* The binary value of format f from a bytes-like object, checked; errors
 * name fn and its parameter 'data'. */
static int value_arg(const char *fn, int f, PyObject *obj, uint8_t *bin) {
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0)
        return -1;
    int rc = toid_from_bytes((toid_format)f, view.buf, (size_t)view.len, bin);
    PyBuffer_Release(&view);
    if (rc < 0) {
        PyErr_Format(PyExc_ValueError, "%s: data: not a %s value: %s (%s)", fn,
                     toid_format_get((toid_format)f)->name, toid_strerror(rc), toid_err_name(rc));
        return -1;
    }
    return 0;
}

/* Parses (format, value[, epoch]) arguments: the value checked into bin. */
static int value_args(PyObject *args, int *f, uint8_t *bin, int64_t *epoch) {
    PyObject *fmt, *value, *ep = Py_None;
    if (!PyArg_ParseTuple(args, "OO|O", &fmt, &value, &ep))
        return -1;
    if ((*f = format_arg("ID", fmt)) < 0 || value_arg("ID", *f, value, bin) < 0)
        return -1;
    *epoch = TOID_EPOCH_DEFAULT;
    if (ep != Py_None) {
        *epoch = PyLong_AsLongLong(ep);
        if (*epoch == -1 && PyErr_Occurred())
            return -1;
    }
    return 0;
}

/* _from_bytes(format, data, fn) -> (format, bytes): a checked copy. */
static PyObject *py_check_bytes(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *fmt, *value;
    const char *fn = "from_bytes";
    if (!PyArg_ParseTuple(args, "OO|s:from_bytes", &fmt, &value, &fn))
        return NULL;
    uint8_t bin[TOID_BIN_MAX];
    int f = format_arg(fn, fmt);
    if (f < 0 || value_arg(fn, f, value, bin) < 0)
        return NULL;
    return Py_BuildValue("Oy#", format_names[f], (const char *)bin,
                         (Py_ssize_t)toid_bin_size((toid_format)f));
}

static PyObject *py_encode(PyObject *self, PyObject *args) {
    (void)self;
    int f;
    uint8_t bin[TOID_BIN_MAX];
    int64_t epoch;
    if (value_args(args, &f, bin, &epoch) < 0)
        return NULL;
    char text[TOID_TEXT_MAX];
    int len = toid_encode((toid_format)f, bin, text, sizeof text);
    return len < 0 ? value_error("encode", len) : ascii_str(text, (size_t)len);
}

static PyObject *py_unix_ms(PyObject *self, PyObject *args) {
    (void)self;
    int f;
    uint8_t bin[TOID_BIN_MAX];
    int64_t epoch, ms;
    if (value_args(args, &f, bin, &epoch) < 0)
        return NULL;
    int rc = toid_time_of((toid_format)f, bin, epoch, &ms);
    return rc < 0 ? value_error("unix_ms", rc) : PyLong_FromLongLong(ms);
}

/* describe(format, value, epoch) -> dict of the inspection fields, numbers as
 * int (also the decimal strings "int" and "random80"), "reserved" as bool. */
static PyObject *py_describe(PyObject *self, PyObject *args) {
    (void)self;
    int f;
    uint8_t bin[TOID_BIN_MAX];
    int64_t epoch;
    if (value_args(args, &f, bin, &epoch) < 0)
        return NULL;
    toid_field fl[TOID_FIELDS_MAX];
    int n = toid_describe((toid_format)f, bin, epoch, fl);
    if (n < 0)
        return value_error("describe", n);
    PyObject *dict = PyDict_New();
    for (int i = 0; dict && i < n; i++) {
        PyObject *v;
        if (fl[i].kind == TOID_KIND_BOOL)
            v = PyBool_FromLong(fl[i].value[0] == 't');
        else if (fl[i].kind == TOID_KIND_NUMBER || fl[i].id == TOID_FIELD_INT
                 || fl[i].id == TOID_FIELD_RANDOM80)
            v = PyLong_FromString(fl[i].value, NULL, 10);
        else
            v = PyUnicode_FromString(fl[i].value);
        if (!v || PyDict_SetItemString(dict, fl[i].name, v) < 0)
            Py_CLEAR(dict);
        Py_XDECREF(v);
    }
    return dict;
}

/* make(format, {field: str}, epoch) -> bytes: composes a value from fields
 * given as text, as toid make FIELD=VALUE does. */
static PyObject *py_make(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *fmt, *fields, *ep = Py_None;
    if (!PyArg_ParseTuple(args, "OO!|O:make", &fmt, &PyDict_Type, &fields, &ep))
        return NULL;
    int f = format_arg("make", fmt);
    if (f < 0)
        return NULL;
    int64_t epoch = TOID_EPOCH_DEFAULT;
    if (ep != Py_None && (epoch = PyLong_AsLongLong(ep)) == -1 && PyErr_Occurred())
        return NULL;
    toid_fields in;
    memset(&in, 0, sizeof in);
    PyObject *key, *value;
    Py_ssize_t it = 0;
    while (PyDict_Next(fields, &it, &key, &value)) {
        Py_ssize_t klen, vlen;
        const char *k = PyUnicode_AsUTF8AndSize(key, &klen);
        const char *v = k && PyUnicode_Check(value) ? PyUnicode_AsUTF8AndSize(value, &vlen) : NULL;
        if (!v) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "make: field values must be given as str");
            return NULL;
        }
        int rc = toid_fields_set((toid_format)f, &in, k, (size_t)klen, v, (size_t)vlen);
        if (rc < 0)
            return PyErr_Format(PyExc_ValueError, "make: %s: '%s' for %s: %s (%s)", k, v,
                                toid_format_get((toid_format)f)->name, toid_strerror(rc),
                                toid_err_name(rc));
    }
    uint8_t bin[TOID_BIN_MAX];
    int rc = toid_make((toid_format)f, &in, epoch, bin);
    if (rc < 0)
        return PyErr_Format(PyExc_ValueError, "make: a %s of these fields: %s (%s)",
                            toid_format_get((toid_format)f)->name, toid_strerror(rc),
                            toid_err_name(rc));
    return PyBytes_FromStringAndSize((const char *)bin, (Py_ssize_t)toid_bin_size((toid_format)f));
}

/* _time_bounds(format, unix_ms, epoch) -> (lo bytes, hi bytes). */
static PyObject *py_time_bounds(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *fmt, *ep = Py_None;
    long long ms;
    if (!PyArg_ParseTuple(args, "OL|O:time_bounds", &fmt, &ms, &ep))
        return NULL;
    int f = format_arg("time_bounds", fmt);
    if (f < 0)
        return NULL;
    int64_t epoch = TOID_EPOCH_DEFAULT;
    if (ep != Py_None && (epoch = PyLong_AsLongLong(ep)) == -1 && PyErr_Occurred())
        return NULL;
    uint8_t lo[TOID_BIN_MAX], hi[TOID_BIN_MAX];
    int rc = toid_time_bounds((toid_format)f, ms, epoch, lo, hi);
    if (rc < 0)
        return value_error("time_bounds", rc);
    Py_ssize_t size = (Py_ssize_t)toid_bin_size((toid_format)f);
    return Py_BuildValue("y#y#", (const char *)lo, size, (const char *)hi, size);
}

/* formats() -> {name: {...}} from the library's table. */
static PyObject *py_formats(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    PyObject *dict = PyDict_New();
    for (int f = 0; dict && f < TOID_FORMAT_COUNT; f++) {
        const toid_format_info *i = toid_format_get((toid_format)f);
        PyObject *nmax = Py_None;   /* the largest node, None without one */
        if (node_max[f])
            nmax = PyLong_FromUnsignedLong(node_max[f]);
        else
            Py_INCREF(nmax);
        PyObject *info = nmax ? Py_BuildValue(
            "{s:s,s:I,s:I,s:I,s:s,s:L,s:O,s:O,s:s,s:O,s:O,s:z}", "name", i->name, "bits", i->bits,
            "bin_size", i->bin_size, "text_len", i->text_len, "alphabet", i->alphabet,
            "default_epoch_ms", (long long)i->default_epoch_ms,
            "epoch_configurable", i->epoch_configurable ? Py_True : Py_False,
            "has_int", i->has_int ? Py_True : Py_False, "spec", i->spec,
            "node_max", nmax, "generates", i->generates ? Py_True : Py_False,
            "variant_of", i->variant_of) : NULL;
        Py_XDECREF(nmax);
        if (!info || PyDict_SetItem(dict, format_names[f], info) < 0)
            Py_CLEAR(dict);
        Py_XDECREF(info);
    }
    return dict;
}

static PyMethodDef module_methods[] = {
    { "new", (PyCFunction)(void (*)(void))py_new, METH_FASTCALL | METH_KEYWORDS,
      "new(format='ulid', *, at=None) -> str: a new ID from the process-wide generator of format;\n"
      "with at, an ID whose time is at's (backfills: ulid, scru160, uuidv7; fresh random bits,\n"
      "not ordered against the generator's IDs). at: the CLI's time text (its first ms),\n"
      "an int of unix ms, or an aware datetime." },
    { "new_bytes", (PyCFunction)(void (*)(void))py_new_bytes, METH_FASTCALL | METH_KEYWORDS,
      "new_bytes(format='ulid', *, at=None) -> bytes: a new ID's binary form (big-endian); at as new()." },
    { "_set_at_reader", py_set_at_reader, METH_O, NULL },
    { "_new_at_bytes", py_new_at_bytes, METH_VARARGS, NULL },
    { "new_many", py_new_many, METH_VARARGS,
      "new_many(format, n, as_bytes=False) -> list: n strictly increasing IDs (uid11: sorted)." },
    { "_noop", (PyCFunction)(void (*)(void))py_noop, METH_FASTCALL,
      "Does nothing: the floor of a call into this module (benchmarks)." },
    { "_c_loop", py_c_loop, METH_VARARGS, "Benchmarks: n IDs made by the C library alone." },
    { "configure", (PyCFunction)(void (*)(void))py_configure, METH_VARARGS | METH_KEYWORDS,
      "configure(format, *, node=None, epoch=None, entropy_bytes=None, wait_max_ms=None)" },
    { "_claim", py_claim, METH_VARARGS, NULL },
    { "_claim_node", py_claim_node, METH_O, NULL },
    { "_claim_valid", py_claim_valid, METH_O, NULL },
    { "_claim_release", py_claim_release, METH_VARARGS, NULL },
    { "_decode", py_decode, METH_VARARGS, NULL },
    { "_from_bytes", py_check_bytes, METH_VARARGS, NULL },
    { "_encode", py_encode, METH_VARARGS, NULL },
    { "_unix_ms", py_unix_ms, METH_VARARGS, NULL },
    { "_describe", py_describe, METH_VARARGS, NULL },
    { "_make", py_make, METH_VARARGS, NULL },
    { "_time_bounds", py_time_bounds, METH_VARARGS, NULL },
    { "_time_span", py_time_span, METH_VARARGS, NULL },
    { "_parse_time", py_parse_time, METH_O, NULL },
    { "_format_time", py_format_time, METH_O, NULL },
    { "_uuid_detect", py_uuid_detect, METH_O, NULL },
    { "_uuid_read", py_uuid_read, METH_VARARGS, NULL },
    { "_ulid_to_uuid", py_ulid_to_uuid, METH_O, NULL },
    { "_uuid_to_ulid", py_uuid_to_ulid, METH_O, NULL },
    { "_formats", py_formats, METH_NOARGS, NULL },
    { NULL, NULL, 0, NULL }
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "toid._toid",
    "libtoid for Python: the C layer under the toid package.", -1, module_methods,
    NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit__toid(void);

PyMODINIT_FUNC PyInit__toid(void) {
    for (int f = 0; f < TOID_FORMAT_COUNT; f++)
        if (!format_names[f]
            && !(format_names[f] = PyUnicode_InternFromString(toid_format_get((toid_format)f)->name)))
            return NULL;
    toid_bindings_node_max(node_max);
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        claim_max[f] = toid_claim_node_max((toid_format)f);
        memset(&pgen[f].cfg, 0, sizeof pgen[f].cfg);
        pgen[f].cfg.format = (toid_format)f;
        pgen[f].cfg.epoch_ms = TOID_EPOCH_DEFAULT;
        pgen[f].want = -1;
    }
    if (PyType_Ready(&GeneratorType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    ParseError = PyErr_NewExceptionWithDoc(
        "toid.ParseError",
        "A text that is not a valid ID: the library's explanation in the message, its error "
        "class as .reason ('length', 'char', 'overflow', 'invalid'), .position for 'char' (the "
        "bad byte's offset from 0 in the UTF-8 text), .format (None when detected).",
        PyExc_ValueError, NULL);
    GenerationError = PyErr_NewExceptionWithDoc(
        "toid.GenerationError",
        "A generator could not make an ID: .reason is the library's error class ('clock', "
        "'exhausted', 'overflow', 'forked', 'entropy'); ClaimError for a node not claimed.",
        PyExc_RuntimeError, NULL);
    ClaimError = GenerationError ? PyErr_NewExceptionWithDoc(
        "toid.ClaimError",
        "A node format (nanoflake, ulid-flake-scalable, uid11-seq) made no ID because its "
        "node could not be claimed or its claim did not admit the ID: .reason is 'busy' (held "
        "by another holder, named in the message), 'behind' (the clock is behind the node's "
        "high-water mark), 'io' (the registry or etcd failed), 'lost' (given back, lost, past "
        "its deadline), 'corrupt', or 'invalid' (a claim configuration that cannot be used: "
        "the message names it).",
        GenerationError, NULL) : NULL;
    Py_INCREF(&GeneratorType);
    if (!ParseError || !GenerationError || !ClaimError
        || PyModule_AddObjectRef(m, "ParseError", ParseError) < 0
        || PyModule_AddObjectRef(m, "GenerationError", GenerationError) < 0
        || PyModule_AddObjectRef(m, "ClaimError", ClaimError) < 0
        || PyModule_AddObject(m, "Generator", (PyObject *)&GeneratorType) < 0
        || PyModule_AddStringConstant(m, "LIBRARY_VERSION", toid_version()) < 0
        || PyModule_AddStringConstant(m, "_TIME_EXPECTED", TOID_BIND_TIME_EXPECTED) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
