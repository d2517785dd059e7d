/* time.c — RFC 3339 UTC text <-> unix milliseconds, by the proleptic
 * Gregorian calendar arithmetic (days counted in 400-year eras), without
 * libc's time functions or the locale. */
#include "format.h"

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
    p = put_digits(p, (uint64_t)(rem / 3600000), 2);
    *p++ = ':';
    p = put_digits(p, (uint64_t)(rem / 60000 % 60), 2);
    *p++ = ':';
    p = put_digits(p, (uint64_t)(rem / 1000 % 60), 2);
    *p++ = '.';
    p = put_digits(p, (uint64_t)(rem % 1000), 3);
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

static int expect(const char *s, size_t len, size_t *i, char c) {
    if (*i >= len || s[*i] != c)
        return -1;
    (*i)++;
    return 0;
}

int toid_parse_time(const char *s, size_t len, int64_t *unix_ms) {
    if (!s || len == 0 || len > 64)
        return TOID_EINVAL;
    /* Integer milliseconds, optionally negative. */
    size_t i = s[0] == '-';
    size_t j = i;
    while (j < len && s[j] >= '0' && s[j] <= '9')
        j++;
    if (j == len && j > i) {
        uint64_t v;
        if (toid__dec_to_u64(s + i, len - i, &v) < 0 || v > (uint64_t)INT64_MAX)
            return TOID_EINVAL;
        *unix_ms = i ? -(int64_t)v : (int64_t)v;
        return 0;
    }
    /* RFC 3339: the year has 4..6 digits (we print years above 9999). */
    i = 0;
    size_t ydigits = 0;
    while (ydigits < len && s[ydigits] >= '0' && s[ydigits] <= '9')
        ydigits++;
    if (ydigits < 4 || ydigits > 6)
        return TOID_EINVAL;
    unsigned year, mon, day, hh = 0, mm = 0, ss = 0, ms = 0;
    if (digits(s, len, &i, (int)ydigits, &year) || expect(s, len, &i, '-') ||
        digits(s, len, &i, 2, &mon) || expect(s, len, &i, '-') || digits(s, len, &i, 2, &day))
        return TOID_EINVAL;
    if (mon < 1 || mon > 12 || day < 1)
        return TOID_EINVAL;
    static const unsigned char mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (day > mdays[mon - 1] || (mon == 2 && day == 29 && !leap))
        return TOID_EINVAL;
    int64_t offset_min = 0;
    if (i < len) {
        if (s[i] != 'T' && s[i] != 't' && s[i] != ' ')
            return TOID_EINVAL;
        i++;
        if (digits(s, len, &i, 2, &hh) || expect(s, len, &i, ':') ||
            digits(s, len, &i, 2, &mm) || expect(s, len, &i, ':') || digits(s, len, &i, 2, &ss))
            return TOID_EINVAL;
        if (hh > 23 || mm > 59 || ss > 59)
            return TOID_EINVAL;
        if (i < len && s[i] == '.') {
            i++;
            size_t start = i;
            for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
                if (i - start < 3)
                    ms = ms * 10 + (unsigned)(s[i] - '0');
            if (i == start)
                return TOID_EINVAL;
            for (size_t k = i - start; k < 3; k++)
                ms *= 10;
        }
        if (i < len && (s[i] == 'Z' || s[i] == 'z')) {
            i++;
        } else if (i < len && (s[i] == '+' || s[i] == '-')) {
            int sign = s[i] == '-' ? -1 : 1;
            unsigned oh, om;
            i++;
            if (digits(s, len, &i, 2, &oh) || expect(s, len, &i, ':') || digits(s, len, &i, 2, &om) ||
                oh > 23 || om > 59)
                return TOID_EINVAL;
            offset_min = sign * (int64_t)(oh * 60 + om);
        } else {
            return TOID_EINVAL;
        }
        if (i != len)
            return TOID_EINVAL;
    }
    int64_t days = days_from_civil(year, mon, day);
    *unix_ms = days * MS_PER_DAY + (int64_t)hh * 3600000 + (int64_t)mm * 60000 +
               (int64_t)ss * 1000 + ms - offset_min * 60000;
    return 0;
}
