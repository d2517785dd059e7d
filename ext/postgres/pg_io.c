/*
 * pg_io.c — text and binary input/output of the types, and the casts that
 * need a check (from bytea, from bigint).
 *
 * Text input is the library's strict decoder: every malformed text is
 * 22P02 invalid_text_representation naming the position (a byte offset
 * from 0, as in every front end) and the reason.
 */
#include "pgtoid.h"

#include "libpq/pqformat.h"
#include "utils/builtins.h"

#include <string.h>

PG_FUNCTION_INFO_V1(toid_pg_in);
PG_FUNCTION_INFO_V1(toid_pg_out);
PG_FUNCTION_INFO_V1(toid_pg_recv);
PG_FUNCTION_INFO_V1(toid_pg_send);
PG_FUNCTION_INFO_V1(toid_pg_to_bytea);
PG_FUNCTION_INFO_V1(toid_pg_from_bytea);
PG_FUNCTION_INFO_V1(toid_pg_from_bigint);

/* The reason a decode failed, for the error's detail: the library's words
 * (toid_explain), as every front end shows them. */
static void decode_failed(const pgtoid_fmt *fmt, int rc, const char *text, size_t len, size_t pos) {
    char why[200];
    if (toid_explain(fmt->f, text, len, rc, pos, why, sizeof why) < 0)
        snprintf(why, sizeof why, "%s", toid_strerror(rc));
    why[0] = (char)pg_toupper((unsigned char)why[0]);     /* a detail is a sentence */
    ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                    errmsg("invalid input syntax for type %s: \"%s\"", fmt->type_name, text),
                    errdetail("%s.", why)));
}

Datum toid_pg_in(PG_FUNCTION_ARGS) {
    const pgtoid_fmt *fmt = pgtoid_format(fcinfo);
    const char *text = PG_GETARG_CSTRING(0);
    size_t len = strlen(text), pos = 0;
    uint8_t bin[TOID_BIN_MAX];
    int rc = toid_decode(fmt->f, text, len, bin, &pos);
    if (rc < 0)
        decode_failed(fmt, rc, text, len, pos);
    return pgtoid_from_bin(fmt, bin);
}

Datum toid_pg_out(PG_FUNCTION_ARGS) {
    const pgtoid_fmt *fmt = pgtoid_format(fcinfo);
    uint8_t bin[TOID_BIN_MAX];
    char *out = palloc(TOID_TEXT_MAX);
    int rc;
    pgtoid_to_bin(fmt, PG_GETARG_DATUM(0), bin);
    rc = toid_encode(fmt->f, bin, out, TOID_TEXT_MAX);
    if (rc < 0)
        pgtoid_error(fmt, rc, "output");
    PG_RETURN_CSTRING(out);
}

/* Bytes (binary input, bytea) -> a value, checked by the library: 22P03. */
static Datum from_bytes(const pgtoid_fmt *fmt, const char *bytes, size_t len) {
    uint8_t bin[TOID_BIN_MAX];
    int rc = toid_from_bytes(fmt->f, (const uint8_t *)bytes, len, bin);
    if (rc == TOID_ELENGTH)
        ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
                        errmsg("a %s is %d bytes, not %zu", fmt->type_name, fmt->len, len)));
    if (rc < 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
                        errmsg("invalid %s value: %s", fmt->type_name, toid_strerror(rc))));
    return pgtoid_from_bin(fmt, bin);
}

/* The binary form is the library's: fmt->len big-endian bytes. */
Datum toid_pg_recv(PG_FUNCTION_ARGS) {
    const pgtoid_fmt *fmt = pgtoid_format(fcinfo);
    StringInfo buf = (StringInfo)PG_GETARG_POINTER(0);
    return from_bytes(fmt, pq_getmsgbytes(buf, fmt->len), (size_t)fmt->len);
}

Datum toid_pg_send(PG_FUNCTION_ARGS) {
    const pgtoid_fmt *fmt = pgtoid_format(fcinfo);
    uint8_t bin[TOID_BIN_MAX];
    StringInfoData buf;
    pgtoid_to_bin(fmt, PG_GETARG_DATUM(0), bin);
    pq_begintypsend(&buf);
    pq_sendbytes(&buf, (const char *)bin, fmt->len);
    PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum toid_pg_to_bytea(PG_FUNCTION_ARGS) {
    const pgtoid_fmt *fmt = pgtoid_format(fcinfo);
    bytea *out = palloc(VARHDRSZ + fmt->len);
    SET_VARSIZE(out, VARHDRSZ + fmt->len);
    pgtoid_to_bin(fmt, PG_GETARG_DATUM(0), (uint8_t *)VARDATA(out));
    PG_RETURN_BYTEA_P(out);
}

Datum toid_pg_from_bytea(PG_FUNCTION_ARGS) {
    const pgtoid_fmt *fmt = pgtoid_format(fcinfo);
    bytea *in = PG_GETARG_BYTEA_PP(0);
    return from_bytes(fmt, VARDATA_ANY(in), VARSIZE_ANY_EXHDR(in));
}

/* bigint -> a 63-bit format: the same bits, refused when negative. */
Datum toid_pg_from_bigint(PG_FUNCTION_ARGS) {
    const pgtoid_fmt *fmt = pgtoid_format(fcinfo);
    int64 v = PG_GETARG_INT64(0);
    uint8_t bin[TOID_BIN_MAX];
    int rc = v < 0 ? TOID_EOVERFLOW : toid_from_u64(fmt->f, (uint64_t)v, bin);
    if (rc < 0)
        ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                        errmsg("%lld is out of range for type %s", (long long)v, fmt->type_name)));
    return pgtoid_from_bin(fmt, bin);
}
