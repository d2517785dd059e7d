/*
 * pg_time.c — the time of an ID, and the smallest and largest ID of an
 * instant (for `WHERE id BETWEEN x_min(a) AND x_max(b)`, which the planner
 * folds to constants and answers from the btree index).
 */
#include "pgtoid.h"

PG_FUNCTION_INFO_V1(toid_pg_time);
PG_FUNCTION_INFO_V1(toid_pg_min);
PG_FUNCTION_INFO_V1(toid_pg_max);

Datum toid_pg_time(PG_FUNCTION_ARGS) {
    const pgtoid_fmt *fmt = pgtoid_format(fcinfo);
    uint8_t bin[TOID_BIN_MAX];
    int64_t ms;
    int rc;
    pgtoid_to_valid_bin(fmt, PG_GETARG_DATUM(0), bin);
    rc = toid_time_of(fmt->f, bin, TOID_EPOCH_DEFAULT, &ms);
    if (rc < 0)
        pgtoid_error(fmt, rc, "time");
    return pgtoid_ms_to_timestamptz(ms);
}

static Datum bound(FunctionCallInfo fcinfo, bool upper) {
    const pgtoid_fmt *fmt = pgtoid_format(fcinfo);
    int64 ms = pgtoid_timestamptz_to_ms(PG_GETARG_DATUM(0));
    uint8_t bin[TOID_BIN_MAX];
    int rc = toid_time_bounds(fmt->f, ms, TOID_EPOCH_DEFAULT, upper ? NULL : bin, upper ? bin : NULL);
    if (rc == TOID_ERANGE) {
        int64_t lo, hi;
        char a[40] = "?", b[40] = "?";
        toid_time_span(fmt->f, TOID_EPOCH_DEFAULT, &lo, &hi);
        toid_format_time(lo, a, sizeof a);
        toid_format_time(hi, b, sizeof b);
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("time out of range for %s", fmt->name),
                        errdetail("%s holds times from %s to %s.", fmt->name, a, b)));
    }
    if (rc < 0)
        pgtoid_error(fmt, rc, upper ? "max" : "min");
    return pgtoid_from_bin(fmt, bin);
}

Datum toid_pg_min(PG_FUNCTION_ARGS) {
    return bound(fcinfo, false);
}

Datum toid_pg_max(PG_FUNCTION_ARGS) {
    return bound(fcinfo, true);
}
