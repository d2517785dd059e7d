/* time.c — time text <-> unix milliseconds: RFC 3339 UTC out; in, the
 * forms people write (ISO 8601 down to the year, @SECONDS, N ms/s/us,
 * bare unix ms, now and times relative to it), each with the span of time
 * it names. Proleptic Gregorian
 * calendar arithmetic (days counted in 400-year eras), without libc's time
 * functions or the locale. */
#include "format.h"

#include <string.h>

#define MS_PER_DAY INT64_C(86400000)
/* 999999-12-31T23:59:59.999Z: the largest time we write (6-digit years). */
#define MAX_TIME_MS INT64_C(31494784780799999)

/* Days since 1970-01-01 of a civil date. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d) {
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static char *put_digits(char *p, uint64_t v, int width) {
    for (int i = width - 1; i >= 0; i--) {
        p[i] = (char)('0' + v % 10u);
        v /= 10u;
    }
    return p + width;
}

char *toid__time_of_day(char *p, uint32_t ms) {
    p = put_digits(p, ms / 3600000u, 2);
    *p++ = ':';
    p = put_digits(p, ms / 60000u % 60u, 2);
    *p++ = ':';
    p = put_digits(p, ms / 1000u % 60u, 2);
    *p++ = '.';
    return put_digits(p, ms % 1000u, 3);
}

int toid_format_time(int64_t unix_ms, char *out, size_t out_size) {
    if (unix_ms < 0 || unix_ms > MAX_TIME_MS)
        return TOID_ERANGE;
    if (out_size < 32)
        return TOID_EBUFFER;
    int64_t days = unix_ms / MS_PER_DAY, rem = unix_ms % MS_PER_DAY;
    int64_t y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    char *p = out;
    p = put_digits(p, (uint64_t)y, y > 99999 ? 6 : y > 9999 ? 5 : 4);
    *p++ = '-';
    p = put_digits(p, m, 2);
    *p++ = '-';
    p = put_digits(p, d, 2);
    *p++ = 'T';
    p = toid__time_of_day(p, (uint32_t)rem);
    *p++ = 'Z';
    *p = '\0';
    return (int)(p - out);
}

/* Reads exactly n digits at *i. */
static int digits(const char *s, size_t len, size_t *i, int n, unsigned *out) {
    unsigned v = 0;
    for (int k = 0; k < n; k++, (*i)++) {
        if (*i >= len || s[*i] < '0' || s[*i] > '9')
            return -1;
        v = v * 10 + (unsigned)(s[*i] - '0');
    }
    *out = v;
    return 0;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Reads 1..19 digits at *i as an unsigned value. */
static int number(const char *s, size_t len, size_t *i, uint64_t *out) {
    size_t start = *i;
    while (*i < len && is_digit(s[*i]))
        (*i)++;
    if (*i == start || *i - start > 19)
        return -1;
    return toid__dec_to_u64(s + start, *i - start, out) < 0 ? -1 : 0;
}

/* A fraction of a second after '.', to ms; *unit_ms gets the span of its
 * last digit (100, 10, 1 ms; finer digits are truncated to 1 ms). */
static int fraction(const char *s, size_t len, size_t *i, unsigned *ms, int64_t *unit_ms) {
    size_t start = *i;
    unsigned v = 0;
    for (; *i < len && is_digit(s[*i]); (*i)++)
        if (*i - start < 3)
            v = v * 10 + (unsigned)(s[*i] - '0');
    size_t n = *i - start;
    if (n == 0)
        return -1;
    for (size_t k = n; k < 3; k++)
        v *= 10;
    *ms = v;
    *unit_ms = n == 1 ? 100 : n == 2 ? 10 : 1;
    return 0;
}

/* An integer with a unit: N (unix ms), Nms, Ns, Nus, or @N[.F] (seconds, as
 * GNU date). 1 if text is not of this kind (no error yet). */
static int parse_number_forms(const char *s, size_t len, int64_t *first, int64_t *last,
                              unsigned *notes) {
    size_t i = 0;
    bool at = s[0] == '@';
    i += at;
    bool neg = i < len && s[i] == '-';
    i += neg;
    if (i >= len || !is_digit(s[i]))
        return 1;
    size_t d0 = i;
    uint64_t v;
    if (number(s, len, &i, &v) < 0)
        return TOID_EINVAL;
    size_t ndigits = i - d0;
    const char *unit = s + i;
    size_t ulen = len - i;
    int64_t lo, span;
    if (at) {                                     /* @SECONDS[.FRACTION] */
        unsigned ms = 0;
        span = 1000;
        if (i < len && s[i] == '.') {
            i++;
            if (fraction(s, len, &i, &ms, &span) < 0)
                return TOID_EINVAL;
        }
        if (i != len || v > (uint64_t)INT64_MAX / 1000 - 1)
            return TOID_EINVAL;
        lo = (int64_t)v * 1000 + (int64_t)ms;
        if (neg)
            lo = -lo;
    } else if (ulen == 0) {                       /* bare: unix ms, or a year */
        if (ndigits == 4 && !neg)
            return 1;                             /* ISO 8601 year: the caller reads it */
        if (v > (uint64_t)INT64_MAX)
            return TOID_EINVAL;
        lo = neg ? -(int64_t)v : (int64_t)v;
        span = 1;
        *notes |= TOID_TIME_BARE_INT;
        if (ndigits == 10 && !neg)
            *notes |= TOID_TIME_LOOKS_SECONDS;
    } else if (ulen == 2 && unit[0] == 'm' && unit[1] == 's') {
        if (v > (uint64_t)INT64_MAX)
            return TOID_EINVAL;
        lo = neg ? -(int64_t)v : (int64_t)v;
        span = 1;
    } else if (ulen == 1 && unit[0] == 's') {
        if (v > (uint64_t)INT64_MAX / 1000 - 1)
            return TOID_EINVAL;
        lo = (neg ? -(int64_t)v : (int64_t)v) * 1000;
        span = 1000;
    } else if (ulen == 2 && unit[0] == 'u' && unit[1] == 's') {
        /* the ms that holds the microsecond (floor, also below zero) */
        int64_t us = neg ? -(int64_t)v : (int64_t)v;
        if (v > (uint64_t)INT64_MAX)
            return TOID_EINVAL;
        lo = us >= 0 ? us / 1000 : -((-us + 999) / 1000);
        span = 1;
    } else {
        return neg || at ? TOID_EINVAL : 1;
    }
    *first = lo;
    *last = lo + span - 1;
    return 0;
}

/* A zone after a time: Z, +HH:MM, +HHMM, +HH (or -); none means UTC. */
static int zone(const char *s, size_t len, size_t *i, int64_t *offset_min) {
    *offset_min = 0;
    if (*i == len)
        return 0;
    if (s[*i] == 'Z' || s[*i] == 'z') {
        (*i)++;
        return 0;
    }
    if (s[*i] != '+' && s[*i] != '-')
        return -1;
    int sign = s[*i] == '-' ? -1 : 1;
    unsigned oh, om = 0;
    (*i)++;
    if (digits(s, len, i, 2, &oh))
        return -1;
    if (*i < len && s[*i] == ':')
        (*i)++;
    if (*i < len && digits(s, len, i, 2, &om))
        return -1;
    if (oh > 23 || om > 59)
        return -1;
    *offset_min = sign * (int64_t)(oh * 60 + om);
    return 0;
}

/* ISO 8601 / RFC 3339, any precision from the year down. */
static int parse_calendar(const char *s, size_t len, int64_t *first, int64_t *last) {
    size_t i = 0, ydigits = 0;
    while (ydigits < len && is_digit(s[ydigits]))
        ydigits++;
    if (ydigits < 4 || ydigits > 6)
        return TOID_EINVAL;
    unsigned year = 0, mon = 1, day = 1, hh = 0, mm = 0, ss = 0, ms = 0;
    int64_t unit = 0;          /* the span of the last part given, in ms (0: months) */
    int months = 12;           /* for a year or a month, the span is in months */
    digits(s, len, &i, (int)ydigits, &year);
    if (i < len && s[i] == '-') {
        i++;
        if (digits(s, len, &i, 2, &mon) || mon < 1 || mon > 12)
            return TOID_EINVAL;
        months = 1;
        if (i < len && s[i] == '-') {
            i++;
            if (digits(s, len, &i, 2, &day))
                return TOID_EINVAL;
            static const unsigned char mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
            bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
            if (day < 1 || day > mdays[mon - 1] || (mon == 2 && day == 29 && !leap))
                return TOID_EINVAL;
            months = 0;
            unit = MS_PER_DAY;
        }
    }
    int64_t offset_min = 0;
    if (months == 0 && i < len && (s[i] == 'T' || s[i] == 't' || s[i] == ' ')) {
        i++;
        if (digits(s, len, &i, 2, &hh) || hh > 23)
            return TOID_EINVAL;
        unit = 3600000;
        if (i < len && s[i] == ':') {
            i++;
            if (digits(s, len, &i, 2, &mm) || mm > 59)
                return TOID_EINVAL;
            unit = 60000;
            if (i < len && s[i] == ':') {
                i++;
                if (digits(s, len, &i, 2, &ss) || ss > 59)
                    return TOID_EINVAL;
                unit = 1000;
                if (i < len && (s[i] == '.' || s[i] == ',')) {
                    i++;
                    if (fraction(s, len, &i, &ms, &unit) < 0)
                        return TOID_EINVAL;
                }
            }
        }
        if (zone(s, len, &i, &offset_min) < 0)
            return TOID_EINVAL;
    }
    if (i != len)
        return TOID_EINVAL;
    int64_t days = days_from_civil(year, mon, day);
    int64_t lo = days * MS_PER_DAY + (int64_t)hh * 3600000 + (int64_t)mm * 60000 +
                 (int64_t)ss * 1000 + ms - offset_min * 60000;
    int64_t hi;
    if (months) {              /* to the start of the next month or year */
        unsigned ny = year, nm = mon + (unsigned)months;
        if (nm > 12) {
            nm -= 12;
            ny++;
        }
        hi = days_from_civil(ny, nm, 1) * MS_PER_DAY - 1;
    } else {
        hi = lo + unit - 1;
    }
    *first = lo;
    *last = hi;
    return 0;
}

/* A time relative to the clock (toid_clock_now, so that toid_set_clock
 * moves it too): "now", or "now" or nothing followed by a sign and one or
 * more NUNIT terms ("now-1h", "-15m", "+2d", "now-1h30m"); units ms, s, m,
 * h, d, w. An instant: first == last. 1 if text is not of this kind (a
 * bare "-15" is unix ms, for the number forms), TOID_EINVAL if it is but
 * malformed. */
static int parse_relative(const char *s, size_t len, int64_t *at) {
    size_t i = 0;
    bool now = len >= 3 && memcmp(s, "now", 3) == 0;
    if (now) {
        i = 3;
    } else {
        /* a sign, digits, then a unit letter: else another form's */
        size_t k = 1;
        if (len < 3 || (s[0] != '+' && s[0] != '-') || !is_digit(s[1]))
            return 1;
        while (k < len && is_digit(s[k]))
            k++;
        if (k == len)
            return 1;
    }
    int64_t t = toid_clock_now(NULL);
    if (i == len) {
        *at = t;
        return 0;
    }
    if (s[i] != '+' && s[i] != '-')
        return TOID_EINVAL;
    int64_t sign = s[i] == '-' ? -1 : 1, total = 0;
    i++;
    do {
        uint64_t v;
        int64_t unit;
        if (number(s, len, &i, &v) < 0)
            return TOID_EINVAL;
        if (i + 1 < len && s[i] == 'm' && s[i + 1] == 's') {
            unit = 1;
            i += 2;
        } else if (i < len) {
            switch (s[i++]) {
            case 's': unit = 1000; break;
            case 'm': unit = 60000; break;
            case 'h': unit = 3600000; break;
            case 'd': unit = 86400000; break;
            case 'w': unit = 604800000; break;
            default: return TOID_EINVAL;
            }
        } else {
            return TOID_EINVAL;   /* a number without its unit */
        }
        /* at most 2^62 ms in all (far past any format's span), checked
         * before each step so that nothing overflows */
        const int64_t limit = INT64_C(1) << 62;
        if (v > (uint64_t)(limit / unit) || (int64_t)v * unit > limit - total)
            return TOID_EINVAL;
        total += (int64_t)v * unit;
    } while (i < len);
    *at = t + sign * total;
    return 0;
}

int toid_parse_time_span(const char *s, size_t len, int64_t *first_ms, int64_t *last_ms,
                         unsigned *notes) {
    int64_t lo, hi;
    unsigned n = 0;
    if (!s || len == 0 || len > 64)
        return TOID_EINVAL;
    int rc = parse_relative(s, len, &lo);
    if (rc == 0)
        hi = lo;
    if (rc == 1)
        rc = parse_number_forms(s, len, &lo, &hi, &n);
    if (rc == 1)
        rc = parse_calendar(s, len, &lo, &hi);
    if (rc < 0)
        return TOID_EINVAL;
    if (first_ms)
        *first_ms = lo;
    if (last_ms)
        *last_ms = hi;
    if (notes)
        *notes = n;
    return 0;
}

int toid_parse_time(const char *s, size_t len, int64_t *unix_ms) {
    return toid_parse_time_span(s, len, unix_ms, NULL, NULL);
}
