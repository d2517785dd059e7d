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
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <toid.h>

#include "toid_node_max.h"

/* Batches at least this long run without the GIL. */
#define TOID_PY_NOGIL_MIN 64

static PyObject *ParseError;       /* toid.ParseError(ValueError) */
static PyObject *GenerationError;  /* toid.GenerationError(RuntimeError) */
static PyObject *format_names[TOID_FORMAT_COUNT]; /* interned "ulid", ... */

/* The largest node of each format's generator (nanoflake 1023,
 * ulid-flake-scalable 31), 0 for the formats without a node: asked of the
 * format descriptor at import (toid_node_max.h). */
static uint32_t node_max[TOID_FORMAT_COUNT];

/* Whether the last configure() of a node format gave its process-wide
 * generator a node. Until then new(), new_bytes() and new_many() refuse it:
 * the library's default, node 0 in every process, would make two processes
 * issue the same IDs. Read and written with the GIL held. A forked child
 * inherits the flag, and the library refuses it there ("forked") until the
 * child configures a node of its own. */
static char node_set[TOID_FORMAT_COUNT];

/* ---- formats ----------------------------------------------------------- */

/* The format named by obj (a str), or -1 with ValueError/TypeError set. */
static int format_arg(PyObject *obj) {
    for (int f = 0; f < TOID_FORMAT_COUNT; f++)
        if (obj == format_names[f])            /* literals are usually the interned object */
            return f;
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "format must be a str such as 'ulid', not %.80s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    Py_ssize_t len;
    const char *name = PyUnicode_AsUTF8AndSize(obj, &len);
    if (!name)
        return -1;
    int f = toid_format_by_name(name, (size_t)len);
    if (f < 0)
        PyErr_Format(PyExc_ValueError, "unknown format %R (formats: toid.FORMATS)", obj);
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

/* Raises GenerationError(msg) (msg is consumed; NULL: an error is already
 * set) with .reason and .format (f's name). */
static PyObject *raise_generation(toid_format f, const char *why, PyObject *msg) {
    PyObject *exc = msg ? PyObject_CallOneArg(GenerationError, msg) : NULL;
    Py_XDECREF(msg);
    if (exc) {
        PyObject *reason = PyUnicode_FromString(why);
        if (reason && PyObject_SetAttrString(exc, "reason", reason) == 0
            && PyObject_SetAttrString(exc, "format", format_names[f]) == 0)
            PyErr_SetObject(GenerationError, exc);
        Py_XDECREF(reason);
        Py_DECREF(exc);
    }
    return NULL;
}

/* Raises GenerationError for a generator error of format f, with .reason
 * (the library's error class) and .format. */
static PyObject *generation_error(toid_format f, int rc) {
    const char *name = toid_format_get(f)->name;
    return raise_generation(f, toid_err_name(rc), rc == TOID_EFORKED
        ? PyUnicode_FromFormat("%s: this process is a fork and its parent goes on with the "
                               "node it had: call toid.configure(%R, node=N), or make a new "
                               "toid.Generator, with a node unique among the running "
                               "processes (forked)", name, format_names[f])
        : PyUnicode_FromFormat("%s: %s (%s)", name, toid_strerror(rc), toid_err_name(rc)));
}

/* 1 if the process-wide generator of f may generate; 0 with GenerationError
 * (reason "no node") for a node format no configure() gave a node. */
static int node_ready(toid_format f) {
    if (!node_max[f] || node_set[f])
        return 1;
    const char *name = toid_format_get(f)->name;
    raise_generation(f, "no node", PyUnicode_FromFormat(
        "%s needs a node and this process has none: call toid.configure(%R, node=N) with N "
        "(0..%u) unique among the running processes that generate %s, or use "
        "toid.Generator(%R, node=N); node 0 in every process would repeat IDs (no node)",
        name, format_names[f], (unsigned)node_max[f], name, format_names[f]));
    return 0;
}

/* Raises ParseError for text that format f (or, for TOID_FORMAT_COUNT, no
 * format) refused with rc; byte_pos is the library's offset for TOID_ECHAR.
 * position is counted in characters of the str the caller gave. */
static PyObject *parse_error(PyObject *input, const char *text, int f, int rc,
                             size_t byte_pos) {
    PyObject *position = Py_None;
    Py_INCREF(position);
    const char *what = f < TOID_FORMAT_COUNT ? toid_format_get((toid_format)f)->name : "ID";
    PyObject *msg;
    if (rc == TOID_ECHAR) {
        size_t pos = byte_pos;
        if (PyUnicode_Check(input) && !PyUnicode_IS_ASCII(input)) {
            pos = 0;                            /* count UTF-8 lead bytes before it */
            for (size_t i = 0; i < byte_pos; i++)
                pos += ((unsigned char)text[i] & 0xC0) != 0x80;
        }
        Py_DECREF(position);
        position = PyLong_FromSize_t(pos);
        msg = PyUnicode_FromFormat("%R is not a valid %s: %s at position %zu (%s)", input, what,
                                   toid_strerror(rc), pos, toid_err_name(rc));
    } else {
        msg = PyUnicode_FromFormat("%R is not a valid %s: %s (%s)", input, what,
                                   toid_strerror(rc), toid_err_name(rc));
    }
    PyObject *exc = msg && position ? PyObject_CallOneArg(ParseError, msg) : NULL;
    Py_XDECREF(msg);
    if (exc) {
        PyObject *reason = PyUnicode_FromString(toid_err_name(rc));
        PyObject *fmt = f < TOID_FORMAT_COUNT ? format_names[f] : Py_None;
        if (reason && PyObject_SetAttrString(exc, "reason", reason) == 0
            && PyObject_SetAttrString(exc, "position", position) == 0
            && PyObject_SetAttrString(exc, "format", fmt) == 0)
            PyErr_SetObject(ParseError, exc);
        Py_XDECREF(reason);
        Py_DECREF(exc);
    }
    Py_XDECREF(position);
    return NULL;
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
    return format_arg(args[0]);
}

static PyObject *py_new(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int f = optional_format("new", args, nargs);
    if (f < 0 || !node_ready((toid_format)f))
        return NULL;
    char text[TOID_TEXT_MAX];
    int len = toid_new_text((toid_format)f, text, sizeof text);
    if (len < 0)
        return generation_error((toid_format)f, len);
    return ascii_str(text, (size_t)len);
}

static PyObject *py_new_bytes(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int f = optional_format("new_bytes", args, nargs);
    if (f < 0 || !node_ready((toid_format)f))
        return NULL;
    uint8_t bin[TOID_BIN_MAX];
    int rc = toid_new((toid_format)f, bin);
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
    int f = format_arg(fmt);
    if (f < 0 || !node_ready((toid_format)f))
        return NULL;
    char text[TOID_TEXT_MAX];
    for (Py_ssize_t i = 0; i < n; i++) {
        int rc = toid_new_text((toid_format)f, text, sizeof text);
        if (rc < 0)
            return generation_error((toid_format)f, rc);
    }
    Py_RETURN_NONE;
}

/* n IDs of f into bin, and their texts into text (NUL-separated) if not
 * NULL. Touches no Python object: runs with or without the GIL. */
static int fill(toid_format f, toid_gen *gen, size_t n, uint8_t *bin, char *text) {
    if (n == 0)
        return 0;
    int rc = gen ? toid_gen_batch(gen, bin, n, NULL) : toid_new_batch(f, bin, n, NULL);
    size_t size = toid_bin_size(f), tlen = toid_format_get(f)->text_len;
    for (size_t i = 0; rc >= 0 && text && i < n; i++)
        toid_encode(f, bin + i * size, text + i * (tlen + 1), tlen + 1);
    return rc;
}

/* n IDs of f as a list of str (text) or bytes; gen NULL for the process-wide
 * generator. Generation and encoding run without the GIL for long batches. */
static PyObject *many(toid_format f, toid_gen *gen, Py_ssize_t n, int as_text) {
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
        rc = fill(f, gen, (size_t)n, bin, text);
        Py_END_ALLOW_THREADS
    } else {
        rc = fill(f, gen, (size_t)n, bin, text);     /* short: not worth the GIL's round trip */
    }
    PyObject *list = NULL;
    if (rc < 0) {
        generation_error(f, rc);
    } else if ((list = PyList_New(n)) != NULL) {
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
    int f = format_arg(fmt);
    return f < 0 || !node_ready((toid_format)f) ? NULL : many((toid_format)f, NULL, n, !as_bytes);
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

static PyObject *py_configure(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    PyObject *fmt, *node = NULL, *epoch = NULL, *eb = NULL, *wait = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OOOO:configure", config_kwlist, &fmt,
                                     &node, &epoch, &eb, &wait))
        return NULL;
    int f = format_arg(fmt);
    toid_gen_config cfg;
    if (f < 0 || config_from(f, node, epoch, eb, wait, &cfg) < 0)
        return NULL;
    int rc = toid_configure(&cfg);
    if (rc < 0)
        return config_error("configure", rc, &cfg, TOID_FOR_CONFIGURE);
    /* configure replaces the whole configuration: without a node the
     * generator is back at node 0, which is refused again */
    node_set[f] = node != NULL && node != Py_None;
    Py_RETURN_NONE;
}

/* ---- Generator: a private generator ------------------------------------ */

typedef struct {
    PyObject_HEAD
    toid_gen *gen;     /* toid_gen_size(format) bytes on the heap, never moved */
    int format;
} GeneratorObject;

static int Generator_init(GeneratorObject *self, PyObject *args, PyObject *kw) {
    PyObject *fmt, *node = NULL, *epoch = NULL, *eb = NULL, *wait = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OOOO:Generator", config_kwlist, &fmt,
                                     &node, &epoch, &eb, &wait))
        return -1;
    int f = format_arg(fmt);
    toid_gen_config cfg;
    if (f < 0 || config_from(f, node, epoch, eb, wait, &cfg) < 0)
        return -1;
    if (node_max[f] && (!node || node == Py_None)) {   /* never a silent node 0 */
        PyErr_Format(PyExc_TypeError, "Generator(%R) needs node=N (0..%u), unique among the "
                     "generators of %R that run at once", fmt, (unsigned)node_max[f], fmt);
        return -1;
    }
    if (self->gen) {   /* another thread may be generating from it right now */
        PyErr_SetString(PyExc_RuntimeError, "a Generator cannot be re-initialised: make a new one");
        return -1;
    }
    size_t gen_size = toid_gen_size((toid_format)f);
    if (!(self->gen = PyMem_RawCalloc(1, gen_size))) {
        PyErr_NoMemory();
        return -1;
    }
    int rc = toid_gen_init_size(self->gen, gen_size, &cfg);
    if (rc < 0) {
        PyMem_RawFree(self->gen);
        self->gen = NULL;
        config_error("Generator", rc, &cfg, TOID_FOR_GEN_INIT);
        return -1;
    }
    self->format = f;
    return 0;
}

static void Generator_dealloc(GeneratorObject *self) {
    PyMem_RawFree(self->gen);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Generator_ready(GeneratorObject *self) {
    if (self->gen)
        return 1;
    PyErr_SetString(PyExc_RuntimeError, "Generator.__init__ was not called");
    return 0;
}

static PyObject *Generator_new(GeneratorObject *self, PyObject *unused) {
    (void)unused;
    if (!Generator_ready(self))
        return NULL;
    char text[TOID_TEXT_MAX];
    int len = toid_gen_next_text(self->gen, text, sizeof text);
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
    return PyBytes_FromStringAndSize((const char *)bin,
                                     (Py_ssize_t)toid_bin_size((toid_format)self->format));
}

static PyObject *Generator_new_many(GeneratorObject *self, PyObject *args) {
    Py_ssize_t n;
    int as_bytes = 0;
    if (!Generator_ready(self) || !PyArg_ParseTuple(args, "n|p:new_many", &n, &as_bytes))
        return NULL;
    return many((toid_format)self->format, self->gen, n, !as_bytes);
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
    { NULL, NULL, 0, NULL }
};

static PyGetSetDef Generator_getset[] = {
    { "format", (getter)Generator_format, NULL, "The generator's format.", NULL },
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
static const char *text_arg(PyObject *obj, Py_ssize_t *len) {
    if (PyUnicode_Check(obj))
        return PyUnicode_AsUTF8AndSize(obj, len);
    if (PyBytes_Check(obj)) {
        *len = PyBytes_GET_SIZE(obj);
        return PyBytes_AS_STRING(obj);
    }
    PyErr_Format(PyExc_TypeError, "an ID must be a str or bytes, not %.80s",
                 Py_TYPE(obj)->tp_name);
    return NULL;
}

/* decode(text, format or None) -> (format, bytes): strict, or detected. */
static PyObject *py_decode(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *input, *fmt;
    if (!PyArg_ParseTuple(args, "OO:decode", &input, &fmt))
        return NULL;
    Py_ssize_t len;
    const char *text = text_arg(input, &len);
    if (!text)
        return NULL;
    uint8_t bin[TOID_BIN_MAX];
    size_t pos = 0;
    int f, rc;
    if (fmt == Py_None) {
        rc = f = toid_detect(text, (size_t)len, bin, &pos);
        if (rc < 0)
            return parse_error(input, text, TOID_FORMAT_COUNT, rc, pos);
    } else {
        if ((f = format_arg(fmt)) < 0)
            return NULL;
        rc = toid_decode((toid_format)f, text, (size_t)len, bin, &pos);
        if (rc < 0)
            return parse_error(input, text, f, rc, pos);
    }
    return Py_BuildValue("Oy#", format_names[f], (const char *)bin,
                         (Py_ssize_t)toid_bin_size((toid_format)f));
}

/* The binary value of format f from a bytes-like object, checked. */
static int value_arg(int f, PyObject *obj, uint8_t *bin) {
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0)
        return -1;
    int rc = toid_from_bytes((toid_format)f, view.buf, (size_t)view.len, bin);
    PyBuffer_Release(&view);
    if (rc < 0) {
        PyErr_Format(PyExc_ValueError, "not a %s value: %s (%s)", toid_format_get((toid_format)f)->name,
                     toid_strerror(rc), toid_err_name(rc));
        return -1;
    }
    return 0;
}

/* Parses (format, value[, epoch]) arguments: the value checked into bin. */
static int value_args(PyObject *args, int *f, uint8_t *bin, int64_t *epoch) {
    PyObject *fmt, *value, *ep = Py_None;
    if (!PyArg_ParseTuple(args, "OO|O", &fmt, &value, &ep))
        return -1;
    if ((*f = format_arg(fmt)) < 0 || value_arg(*f, value, bin) < 0)
        return -1;
    *epoch = TOID_EPOCH_DEFAULT;
    if (ep != Py_None) {
        *epoch = PyLong_AsLongLong(ep);
        if (*epoch == -1 && PyErr_Occurred())
            return -1;
    }
    return 0;
}

/* from_bytes(format, data) -> bytes (checked copy). */
static PyObject *py_check_bytes(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *fmt, *value;
    if (!PyArg_ParseTuple(args, "OO:from_bytes", &fmt, &value))
        return NULL;
    uint8_t bin[TOID_BIN_MAX];
    int f = format_arg(fmt);
    if (f < 0 || value_arg(f, value, bin) < 0)
        return NULL;
    return PyBytes_FromStringAndSize((const char *)bin, (Py_ssize_t)toid_bin_size((toid_format)f));
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
    int f = format_arg(fmt);
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
            return PyErr_Format(PyExc_ValueError, "make %s: field %s=%s: %s (%s)",
                                toid_format_get((toid_format)f)->name, k, v, toid_strerror(rc),
                                toid_err_name(rc));
    }
    uint8_t bin[TOID_BIN_MAX];
    int rc = toid_make((toid_format)f, &in, epoch, bin);
    if (rc < 0)
        return PyErr_Format(PyExc_ValueError, "make %s: %s (%s)", toid_format_get((toid_format)f)->name,
                            toid_strerror(rc), toid_err_name(rc));
    return PyBytes_FromStringAndSize((const char *)bin, (Py_ssize_t)toid_bin_size((toid_format)f));
}

/* time_bounds(format, unix_ms, epoch) -> (lo bytes, hi bytes). */
static PyObject *py_time_bounds(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *fmt, *ep = Py_None;
    long long ms;
    if (!PyArg_ParseTuple(args, "OL|O:time_bounds", &fmt, &ms, &ep))
        return NULL;
    int f = format_arg(fmt);
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
            "{s:s,s:I,s:I,s:I,s:s,s:L,s:O,s:O,s:s,s:O}", "name", i->name, "bits", i->bits,
            "bin_size", i->bin_size, "text_len", i->text_len, "alphabet", i->alphabet,
            "default_epoch_ms", (long long)i->default_epoch_ms,
            "epoch_configurable", i->epoch_configurable ? Py_True : Py_False,
            "has_int", i->has_int ? Py_True : Py_False, "spec", i->spec,
            "node_max", nmax) : NULL;
        Py_XDECREF(nmax);
        if (!info || PyDict_SetItem(dict, format_names[f], info) < 0)
            Py_CLEAR(dict);
        Py_XDECREF(info);
    }
    return dict;
}

static PyMethodDef module_methods[] = {
    { "new", (PyCFunction)(void (*)(void))py_new, METH_FASTCALL,
      "new(format='ulid') -> str: a new ID from the process-wide generator of format." },
    { "new_bytes", (PyCFunction)(void (*)(void))py_new_bytes, METH_FASTCALL,
      "new_bytes(format='ulid') -> bytes: a new ID's binary form (big-endian)." },
    { "new_many", py_new_many, METH_VARARGS,
      "new_many(format, n, as_bytes=False) -> list: n strictly increasing IDs (uid11: sorted)." },
    { "_noop", (PyCFunction)(void (*)(void))py_noop, METH_FASTCALL,
      "Does nothing: the floor of a call into this module (benchmarks)." },
    { "_c_loop", py_c_loop, METH_VARARGS, "Benchmarks: n IDs made by the C library alone." },
    { "configure", (PyCFunction)(void (*)(void))py_configure, METH_VARARGS | METH_KEYWORDS,
      "configure(format, *, node=None, epoch=None, entropy_bytes=None, wait_max_ms=None)" },
    { "_decode", py_decode, METH_VARARGS, NULL },
    { "_from_bytes", py_check_bytes, METH_VARARGS, NULL },
    { "_encode", py_encode, METH_VARARGS, NULL },
    { "_unix_ms", py_unix_ms, METH_VARARGS, NULL },
    { "_describe", py_describe, METH_VARARGS, NULL },
    { "_make", py_make, METH_VARARGS, NULL },
    { "_time_bounds", py_time_bounds, METH_VARARGS, NULL },
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
    if (PyType_Ready(&GeneratorType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    ParseError = PyErr_NewExceptionWithDoc(
        "toid.ParseError",
        "A text that is not a valid ID: the library's reason, as .reason ('length', 'char', "
        "'overflow'), and .position (the bad character's index) for 'char'.",
        PyExc_ValueError, NULL);
    GenerationError = PyErr_NewExceptionWithDoc(
        "toid.GenerationError",
        "A generator could not make an ID: .reason is the library's error class ('clock', "
        "'exhausted', 'overflow', 'forked', 'entropy'), or 'no node' for a node format "
        "(nanoflake, ulid-flake-scalable) that toid.configure has not given a node.",
        PyExc_RuntimeError, NULL);
    Py_INCREF(&GeneratorType);
    if (!ParseError || !GenerationError
        || PyModule_AddObjectRef(m, "ParseError", ParseError) < 0
        || PyModule_AddObjectRef(m, "GenerationError", GenerationError) < 0
        || PyModule_AddObject(m, "Generator", (PyObject *)&GeneratorType) < 0
        || PyModule_AddStringConstant(m, "LIBRARY_VERSION", toid_version()) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
