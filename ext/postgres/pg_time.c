/*
 * pg_time.c — the time of an ID, and the smallest and largest ID of a time
 * (for `WHERE id BETWEEN x_min(a) AND x_max(b)`, which the planner answers
 * from the btree index).
 *
 * One time model, the same in every front end (README "Reading IDs and
 * times as people write them"):
 *  - text is read by the library (toid_parse_time_span) and names a span:
 *    x_min takes its first ms, x_max its last ('2024-01-01' is the whole
 *    day, '2024' the year, no zone = UTC); a relative text ('now', 'now-1h',
 *    '-15m') is an instant, 'now' being the transaction's start, as
 *    PostgreSQL's now() and 'now'::timestamptz are;
 *  - a date is its whole day in the session's TimeZone, where PostgreSQL
 *    puts a date's midnight when it compares or casts it to timestamptz
 *    (x_min(d) is the ID of d::timestamptz, as before this overload);
 *  - a timestamptz is one instant: the ms that holds it.
 * The text and date forms are STABLE (the transaction's 'now', the
 * session's TimeZone), the timestamptz form IMMUTABLE; all of them can be
 * index scan bounds.
 */
#include "pgtoid.h"

#include "access/xact.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/timestamp.h"

#include <string.h>

PG_FUNCTION_INFO_V1(toid_pg_time);
PG_FUNCTION_INFO_V1(toid_pg_min);
PG_FUNCTION_INFO_V1(toid_pg_max);
PG_FUNCTION_INFO_V1(toid_pg_min_text);
PG_FUNCTION_INFO_V1(toid_pg_max_text);
PG_FUNCTION_INFO_V1(toid_pg_min_date);
PG_FUNCTION_INFO_V1(toid_pg_max_date);

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

void pgtoid_time_range_error(const pgtoid_fmt *fmt) {
    int64_t lo, hi;
    char a[40] = "?", b[40] = "?";
    toid_time_span(fmt->f, TOID_EPOCH_DEFAULT, &lo, &hi);
    toid_format_time(lo, a, sizeof a);
    toid_format_time(hi, b, sizeof b);
    ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                    errmsg("time out of range for %s", fmt->name),
                    errdetail("%s holds times from %s to %s.", fmt->name, a, b)));
}

/* The smallest (upper false) or largest ID of fmt whose time is ms. */
static Datum bound_ms(const pgtoid_fmt *fmt, int64 ms, bool upper) {
    uint8_t bin[TOID_BIN_MAX];
    int rc = toid_time_bounds(fmt->f, ms, TOID_EPOCH_DEFAULT, upper ? NULL : bin, upper ? bin : NULL);
    if (rc == TOID_ERANGE)
        pgtoid_time_range_error(fmt);
    if (rc < 0)
        pgtoid_error(fmt, rc, upper ? "max" : "min");
    return pgtoid_from_bin(fmt, bin);
}

Datum toid_pg_min(PG_FUNCTION_ARGS) {
    return bound_ms(pgtoid_format(fcinfo), pgtoid_timestamptz_to_ms(PG_GETARG_DATUM(0)), false);
}

Datum toid_pg_max(PG_FUNCTION_ARGS) {
    return bound_ms(pgtoid_format(fcinfo), pgtoid_timestamptz_to_ms(PG_GETARG_DATUM(0)), true);
}

/* ---- text: the library's reading, a span ---- */

/* Unix microseconds of the transaction's start: the library's clock while
 * it reads a text, so that 'now' is PostgreSQL's now(). */
static int64_t transaction_clock(void *ctx) {
    (void)ctx;
    return pgtoid_timestamptz_to_ms(TimestampTzGetDatum(GetCurrentTransactionStartTimestamp())) * 1000;
}

static void parse_time_span(text *t, int64 *first_ms, int64 *last_ms) {
    const char *s = VARDATA_ANY(t);
    size_t len = VARSIZE_ANY_EXHDR(t);
    int64_t first, last;
    int rc;
    /* A backend is one thread, and nothing between these calls can raise
     * an error: the library's clock is the transaction's for this read only. */
    toid_set_clock(transaction_clock, NULL);
    rc = toid_parse_time_span(s, len, &first, &last, NULL);
    toid_set_clock(NULL, NULL);
    if (rc < 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_DATETIME_FORMAT),
                        errmsg("\"%s\" is not a time toid reads", text_to_cstring(t)),
                        errdetail("toid reads ISO 8601 at any precision ('2024', '2024-01-01', "
                                  "'2024-01-01 10:30:00+02'; no zone is UTC), '@SECONDS', unix ms, "
                                  "'now' and times relative to it ('now-1h', '-15m')."),
                        errhint("For PostgreSQL's own time input (zone names, 'yesterday', "
                                "'Jan 1 2024') cast it: '...'::timestamptz is one instant.")));
    *first_ms = first;
    *last_ms = last;
}

static Datum bound_text(FunctionCallInfo fcinfo, bool upper) {
    const pgtoid_fmt *fmt = pgtoid_format(fcinfo);
    int64 first, last;
    parse_time_span(PG_GETARG_TEXT_PP(0), &first, &last);
    return bound_ms(fmt, upper ? last : first, upper);
}

Datum toid_pg_min_text(PG_FUNCTION_ARGS) {
    return bound_text(fcinfo, false);
}

Datum toid_pg_max_text(PG_FUNCTION_ARGS) {
    return bound_text(fcinfo, true);
}

/* ---- date: its day, midnight to midnight in the session's TimeZone ---- */

static int64 date_start_ms(DateADT d) {
    int overflow = 0;
    TimestampTz t;
    if (DATE_NOT_FINITE(d))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("an ID has no infinite time")));
    t = date2timestamptz_opt_overflow(d, &overflow);
    if (overflow)
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE), errmsg("date out of range for timestamp")));
    return pgtoid_timestamptz_to_ms(TimestampTzGetDatum(t));
}

Datum toid_pg_min_date(PG_FUNCTION_ARGS) {
    return bound_ms(pgtoid_format(fcinfo), date_start_ms(PG_GETARG_DATEADT(0)), false);
}

Datum toid_pg_max_date(PG_FUNCTION_ARGS) {
    DateADT d = PG_GETARG_DATEADT(0);
    const pgtoid_fmt *fmt = pgtoid_format(fcinfo);
    if (DATE_NOT_FINITE(d))
        (void)date_start_ms(d);     /* its error */
    /* the last ms before the next day's midnight (23 or 25 hours on the days
     * the clocks change) */
    return bound_ms(fmt, date_start_ms(d + 1) - 1, true);
}
