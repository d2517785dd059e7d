/*
 * pg_format.c — which format a call is about, Datum <-> binary form, errors.
 *
 * The format table is built from the library's own list (toid_format_get),
 * so nothing here names a format except uuidv7's use of the core uuid type.
 */
#include "pgtoid.h"

#include "access/htup_details.h"
#include "catalog/pg_proc.h"
#include "datatype/timestamp.h"
#include "utils/builtins.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include <string.h>

static pgtoid_fmt formats[TOID_FORMAT_COUNT];
static char type_names[TOID_FORMAT_COUNT][32];
static bool formats_ready;

static void build_formats(void) {
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        const toid_format_info *info = toid_format_get((toid_format)f);
        pgtoid_fmt *p = &formats[f];
        size_t i;
        for (i = 0; info->name[i] && i < sizeof type_names[f] - 1; i++)
            type_names[f][i] = info->name[i] == '-' ? '_' : info->name[i];
        type_names[f][i] = '\0';
        p->f = (toid_format)f;
        p->name = info->name;
        p->token = type_names[f];
        p->type_name = f == TOID_UUIDV7 ? "uuid" : type_names[f];
        p->len = (int)info->bin_size;
        p->byval = info->bin_size == 8;
        p->is_unsigned = info->has_int && info->int_max == UINT64_MAX;
        p->node_max = info->node_max ? (int)info->node_max : -1;   /* the generator's node */
    }
    formats_ready = true;
}

const pgtoid_fmt *pgtoid_format_of(toid_format f) {
    if (!formats_ready)
        build_formats();
    return &formats[f];
}

/* The format whose SQL token is the longest prefix of proname followed by '_'. */
static const pgtoid_fmt *format_of_name(const char *proname) {
    const pgtoid_fmt *best = NULL;
    size_t best_len = 0;
    if (!formats_ready)
        build_formats();
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        size_t n = strlen(type_names[f]);
        if (n > best_len && strncmp(proname, type_names[f], n) == 0 && proname[n] == '_') {
            best = &formats[f];
            best_len = n;
        }
    }
    return best;
}

const pgtoid_fmt *pgtoid_format(FunctionCallInfo fcinfo) {
    FmgrInfo *fl = fcinfo->flinfo;
    HeapTuple tp;
    NameData name;
    const pgtoid_fmt *fmt;
    if (fl == NULL)
        elog(ERROR, "toid: called without function information");
    if (fl->fn_extra)
        return (const pgtoid_fmt *)fl->fn_extra;
    tp = SearchSysCache1(PROCOID, ObjectIdGetDatum(fl->fn_oid));
    if (!HeapTupleIsValid(tp))
        elog(ERROR, "toid: cache lookup failed for function %u", fl->fn_oid);
    namestrcpy(&name, NameStr(((Form_pg_proc)GETSTRUCT(tp))->proname));
    ReleaseSysCache(tp);
    fmt = format_of_name(NameStr(name));
    if (fmt == NULL)
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_FUNCTION),
                        errmsg("toid: function \"%s\" is not named <format>_<operation>", NameStr(name))));
    /* A pointer into a static table: nothing to allocate or free. */
    fl->fn_extra = (void *)fmt;
    return fmt;
}

void pgtoid_to_bin(const pgtoid_fmt *fmt, Datum d, uint8_t *bin) {
    if (fmt->byval) {
        uint64 v = (uint64)DatumGetInt64(d);
        for (int i = 7; i >= 0; i--) {
            bin[i] = (uint8_t)v;
            v >>= 8;
        }
    } else {
        memcpy(bin, DatumGetPointer(d), (size_t)fmt->len);
    }
}

Datum pgtoid_from_bin(const pgtoid_fmt *fmt, const uint8_t *bin) {
    if (fmt->byval) {
        uint64 v = 0;
        for (int i = 0; i < 8; i++)
            v = v << 8 | bin[i];
        return Int64GetDatum((int64)v);
    } else {
        void *p = palloc((size_t)fmt->len);
        memcpy(p, bin, (size_t)fmt->len);
        return PointerGetDatum(p);
    }
}

void pgtoid_to_valid_bin(const pgtoid_fmt *fmt, Datum d, uint8_t *bin) {
    uint8_t raw[TOID_BIN_MAX];
    int rc;
    pgtoid_to_bin(fmt, d, raw);
    rc = toid_from_bytes(fmt->f, raw, (size_t)fmt->len, bin);
    if (rc < 0) {
        char why[200], text[40];
        snprintf(why, sizeof why, "%s", rc == TOID_EINVAL ? "its fixed bits are wrong" : toid_strerror(rc));
        if (rc == TOID_EINVAL && fmt->f == TOID_UUIDV7) {
            /* a uuid of another version or variant: the library's words
             * ("UUID version 4, toid reads version 7"), as every front end's */
            static const char hex[] = "0123456789abcdef";
            char *t = text;
            for (int i = 0; i < 16; i++) {
                if (i == 4 || i == 6 || i == 8 || i == 10)
                    *t++ = '-';
                *t++ = hex[raw[i] >> 4];
                *t++ = hex[raw[i] & 15];
            }
            *t = '\0';
            if (toid_explain(TOID_UUIDV7, text, 36, TOID_ECHAR, 14, why, sizeof why) < 0)
                snprintf(why, sizeof why, "its version or variant is not 7 or RFC 9562's");
        }
        why[0] = (char)pg_toupper((unsigned char)why[0]);
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("value is not a valid %s", fmt->name),
                        errdetail("%s.", why)));
    }
}

void pgtoid_error(const pgtoid_fmt *fmt, int rc, const char *what) {
    int code;
    switch (rc) {
    case TOID_ELENGTH:
    case TOID_ECHAR:
        code = ERRCODE_INVALID_TEXT_REPRESENTATION;
        break;
    case TOID_EOVERFLOW:
        code = ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE;
        break;
    case TOID_ERANGE:
        code = ERRCODE_DATETIME_VALUE_OUT_OF_RANGE;
        break;
    case TOID_EINVAL:
        code = ERRCODE_INVALID_PARAMETER_VALUE;
        break;
    case TOID_EENTROPY:
        code = ERRCODE_SYSTEM_ERROR;
        break;
    default: /* clock behind, ms exhausted, forked: the state of the generator */
        code = ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE;
        break;
    }
    ereport(ERROR, (errcode(code),
                    errmsg("%s: %s (%s)", what, toid_strerror(rc), fmt ? fmt->name : "toid"),
                    errdetail("toid error class \"%s\".", toid_err_name(rc))));
}

/* Microseconds from the Unix epoch to PostgreSQL's (2000-01-01). */
#define UNIX_TO_PG_US ((int64)(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY)

Datum pgtoid_ms_to_timestamptz(int64 unix_ms) {
    TimestampTz t = unix_ms * 1000 - UNIX_TO_PG_US;
    if (!IS_VALID_TIMESTAMP(t))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("timestamp out of range: %lld ms since 1970", (long long)unix_ms)));
    return TimestampTzGetDatum(t);
}

int64 pgtoid_timestamptz_to_ms(Datum d) {
    TimestampTz t = DatumGetTimestampTz(d);
    int64 us;
    if (TIMESTAMP_NOT_FINITE(t))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("an ID has no infinite time")));
    us = t + UNIX_TO_PG_US;
    /* floor, so that an instant before 1970 falls in the ms that holds it */
    return us >= 0 ? us / 1000 : -((-us + 999) / 1000);
}
