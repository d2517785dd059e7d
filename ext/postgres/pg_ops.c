/*
 * pg_ops.c — comparison, sort support and hashing for the types that are not
 * plain bigints: the 16- and 20-byte ones (big-endian bytes, so memcmp is
 * their order) and uid11 / uid11_seq (8 bytes compared unsigned: as signed
 * int8 they would misorder from 2081-07-18). The 63-bit types use int8's own
 * internal functions in SQL.
 */
#include "pgtoid.h"

#include "common/hashfn.h"
#include "utils/sortsupport.h"

#include <string.h>

static int cmp_datums(const pgtoid_fmt *fmt, Datum a, Datum b) {
    if (fmt->byval) {
        uint64 x = (uint64)DatumGetInt64(a), y = (uint64)DatumGetInt64(b);
        if (!fmt->is_unsigned) {
            int64 sx = (int64)x, sy = (int64)y;
            return sx < sy ? -1 : sx > sy;
        }
        return x < y ? -1 : x > y;
    }
    return memcmp(DatumGetPointer(a), DatumGetPointer(b), (size_t)fmt->len);
}

#define PGTOID_CMP_OPS(X) X(cmp, c) X(eq, c == 0) X(ne, c != 0) X(lt, c < 0) X(le, c <= 0) X(gt, c > 0) X(ge, c >= 0)

#define PGTOID_DEFINE_OP(op, result)                                                         \
    PG_FUNCTION_INFO_V1(toid_pg_##op);                                                        \
    Datum toid_pg_##op(PG_FUNCTION_ARGS) {                                                    \
        int c = cmp_datums(pgtoid_format(fcinfo), PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)); \
        return pgtoid_ret_##op(result);                                                      \
    }
#define pgtoid_ret_cmp(v) Int32GetDatum((v) < 0 ? -1 : (v) > 0)
#define pgtoid_ret_eq BoolGetDatum
#define pgtoid_ret_ne BoolGetDatum
#define pgtoid_ret_lt BoolGetDatum
#define pgtoid_ret_le BoolGetDatum
#define pgtoid_ret_gt BoolGetDatum
#define pgtoid_ret_ge BoolGetDatum
PGTOID_CMP_OPS(PGTOID_DEFINE_OP)

static int cmp_u64(Datum a, Datum b, SortSupport ssup) {
    uint64 x = (uint64)DatumGetInt64(a), y = (uint64)DatumGetInt64(b);
    (void)ssup;
    return x < y ? -1 : x > y;
}

static int cmp_16(Datum a, Datum b, SortSupport ssup) {
    (void)ssup;
    return memcmp(DatumGetPointer(a), DatumGetPointer(b), 16);
}

static int cmp_20(Datum a, Datum b, SortSupport ssup) {
    (void)ssup;
    return memcmp(DatumGetPointer(a), DatumGetPointer(b), 20);
}

/* Sort support: the comparator without the fmgr call per comparison. */
PG_FUNCTION_INFO_V1(toid_pg_sortsupport);
Datum toid_pg_sortsupport(PG_FUNCTION_ARGS) {
    const pgtoid_fmt *fmt = pgtoid_format(fcinfo);
    SortSupport ssup = (SortSupport)PG_GETARG_POINTER(0);
    if (fmt->byval)
        ssup->comparator = cmp_u64;  /* only the unsigned types come here */
    else
        ssup->comparator = fmt->len == 16 ? cmp_16 : cmp_20;
    PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(toid_pg_hash);
Datum toid_pg_hash(PG_FUNCTION_ARGS) {
    const pgtoid_fmt *fmt = pgtoid_format(fcinfo);
    return hash_any((const unsigned char *)PG_GETARG_POINTER(0), fmt->len);
}

PG_FUNCTION_INFO_V1(toid_pg_hash_extended);
Datum toid_pg_hash_extended(PG_FUNCTION_ARGS) {
    const pgtoid_fmt *fmt = pgtoid_format(fcinfo);
    return hash_any_extended((const unsigned char *)PG_GETARG_POINTER(0), fmt->len,
                             (uint64)PG_GETARG_INT64(1));
}
