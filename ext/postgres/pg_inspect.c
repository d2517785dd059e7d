/*
 * pg_inspect.c — an ID's fields as jsonb, an ID composed from fields, and a
 * text of unknown format parsed with the library's detection.
 */
#include "pgtoid.h"

#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include <string.h>

PG_FUNCTION_INFO_V1(toid_pg_inspect);
PG_FUNCTION_INFO_V1(toid_pg_make);
PG_FUNCTION_INFO_V1(toid_pg_parse);

static Datum inspect_json(const pgtoid_fmt *fmt, const uint8_t *bin) {
    char json[512];
    int rc = toid_inspect_json(fmt->f, bin, TOID_EPOCH_DEFAULT, json, sizeof json);
    if (rc < 0)
        pgtoid_error(fmt, rc, "inspect");
    return DirectFunctionCall1(jsonb_in, CStringGetDatum(json));
}

Datum toid_pg_inspect(PG_FUNCTION_ARGS) {
    const pgtoid_fmt *fmt = pgtoid_format(fcinfo);
    uint8_t bin[TOID_BIN_MAX];
    pgtoid_to_valid_bin(fmt, PG_GETARG_DATUM(0), bin);
    return inspect_json(fmt, bin);
}

/* A jsonb scalar as the text toid_fields_set takes. */
static char *scalar_text(const JsonbValue *v, const char *key) {
    switch (v->type) {
    case jbvString:
        return pnstrdup(v->val.string.val, v->val.string.len);
    case jbvNumeric:
        return DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
    case jbvBool:
        return pstrdup(v->val.boolean ? "true" : "false");
    default:
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("field \"%s\" must be a string, a number or a boolean", key)));
    }
}

/* {"time": "2024-01-01T00:00:00Z", "random": "..."} -> an ID. */
Datum toid_pg_make(PG_FUNCTION_ARGS) {
    const pgtoid_fmt *fmt = pgtoid_format(fcinfo);
    Jsonb *jb = PG_GETARG_JSONB_P(0);
    JsonbIterator *it;
    JsonbValue v;
    JsonbIteratorToken tok;
    toid_fields fields;
    uint8_t bin[TOID_BIN_MAX];
    char *key = NULL;
    int rc;
    if (!JB_ROOT_IS_OBJECT(jb))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("%s_make takes a jsonb object of fields", toid_format_get(fmt->f)->name)));
    memset(&fields, 0, sizeof fields);
    it = JsonbIteratorInit(&jb->root);
    while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE) {
        if (tok == WJB_KEY) {
            key = pnstrdup(v.val.string.val, v.val.string.len);
        } else if (tok == WJB_VALUE) {
            char *val = scalar_text(&v, key);
            rc = toid_fields_set(fmt->f, &fields, key, strlen(key), val, strlen(val));
            if (rc < 0)
                ereport(ERROR, (errcode(rc == TOID_EOVERFLOW ? ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE
                                                             : ERRCODE_INVALID_PARAMETER_VALUE),
                                errmsg("field \"%s\" = \"%s\": %s (%s)", key, val, toid_strerror(rc),
                                       fmt->name)));
        }
    }
    rc = toid_make(fmt->f, &fields, TOID_EPOCH_DEFAULT, bin);
    if (rc < 0)
        pgtoid_error(fmt, rc, "make");
    return pgtoid_from_bin(fmt, bin);
}

/* toid_parse(text) -> jsonb: the inspection of the format the text most
 * likely is (toid_detect's ranking), with "format" telling which. */
Datum toid_pg_parse(PG_FUNCTION_ARGS) {
    text *t = PG_GETARG_TEXT_PP(0);
    const char *s = VARDATA_ANY(t);
    size_t len = VARSIZE_ANY_EXHDR(t), pos = 0;
    uint8_t bin[TOID_BIN_MAX];
    int rc = toid_detect(s, len, bin, &pos);
    if (rc < 0) {
        char *copy = text_to_cstring(t);
        char why[200];
        /* the library's words for the cause (a word, a length no format
         * writes, a UUID of another version, a bad character and its
         * position: a byte offset from 0, as in every front end) */
        if (toid_explain(-1, s, len, rc, pos, why, sizeof why) < 0)
            snprintf(why, sizeof why, "%s", toid_strerror(rc));
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("no ID format accepts \"%s\"", copy),
                        errdetail("%s.", why)));
    }
    return inspect_json(pgtoid_format_of((toid_format)rc), bin);
}
