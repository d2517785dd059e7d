/*
 * sqlite_args.c — reading the SQL functions' arguments (format, ID, time)
 * and wording their errors, so every function says the same thing the same
 * way: "toid_decode: ulid: bad character at position 25 (char)".
 */
#include <string.h>

#include "toid_claim.h"
#include "toid_sqlite.h"

SQLITE_EXTENSION_INIT3

void toidsql_fail_text(sqlite3_context *ctx, const char *fn, toid_format f,
                       const char *what) {
    const toid_format_info *fi = toid_format_get(f);
    char *msg = fi ? sqlite3_mprintf("%s: %s: %s", fn, fi->name, what)
                   : sqlite3_mprintf("%s: %s", fn, what);
    if (!msg) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    sqlite3_result_error(ctx, msg, -1);
    sqlite3_free(msg);
}

void toidsql_fail(sqlite3_context *ctx, const char *fn, toid_format f, int err,
                  long pos) {
    if (err == TOIDSQL_NOMEM) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    char what[160];
    if (err == TOID_ECHAR && pos >= 0)
        sqlite3_snprintf((int)sizeof what, what, "%s at position %ld (%s)", toid_strerror(err),
                         pos, toid_err_name(err));
    else
        sqlite3_snprintf((int)sizeof what, what, "%s (%s)", toid_strerror(err),
                         toid_err_name(err));
    toidsql_fail_text(ctx, fn, f, what);
}

void toidsql_claim_fail(sqlite3_context *ctx, const char *fn, toid_format f, int err,
                        const char *msg) {
    const char *cls;
    switch (err) {
#define TOIDSQL_CLAIM_CLASS(name, val, shortname, text) \
    case val: cls = shortname; break;
        TOID_CLAIM_ERROR_LIST(TOIDSQL_CLAIM_CLASS)
#undef TOIDSQL_CLAIM_CLASS
    default: cls = toid_err_name(err); break;
    }
    char *what = sqlite3_mprintf("%s (%s)", msg, cls);
    if (!what) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    toidsql_fail_text(ctx, fn, f, what);
    sqlite3_free(what);
}

int toidsql_arg_format(sqlite3_context *ctx, const char *fn, sqlite3_value *v,
                       toid_format *f) {
    if (sqlite3_value_type(v) == SQLITE_NULL)
        return 0;
    const char *name = (const char *)sqlite3_value_text(v);
    int len = sqlite3_value_bytes(v);
    int rc = name ? toid_format_by_name(name, (size_t)len) : TOID_EINVAL;
    if (rc < 0) {
        /* the library's words: the nearest name, else the names there are */
        char why[320], what[400];
        if (toid_format_name_error(name ? name : "", name ? (size_t)len : 0, why, sizeof why) < 0)
            sqlite3_snprintf((int)sizeof why, why, "unknown format");
        sqlite3_snprintf((int)sizeof what, what, "%s (invalid)", why);
        toidsql_fail_text(ctx, fn, TOID_FORMAT_COUNT, what);
        return -1;
    }
    *f = (toid_format)rc;
    return 1;
}

static int id_from_integer(sqlite3_context *ctx, const char *fn, toid_format f,
                           sqlite3_int64 i, uint8_t *bin) {
    const toid_format_info *fi = toid_format_get(f);
    if (!fi->has_int) {
        toidsql_fail_text(ctx, fn, f, "has no integer form: give its text or its blob (invalid)");
        return -1;
    }
    if (i < 0) {
        toidsql_fail_text(ctx, fn, f, "a negative integer is not an ID (overflow)");
        return -1;
    }
    int rc = toid_from_u64(f, (uint64_t)i, bin);
    if (rc < 0) {
        toidsql_fail(ctx, fn, f, rc, -1);
        return -1;
    }
    return 1;
}

int toidsql_arg_id(sqlite3_context *ctx, const char *fn, toid_format f,
                   sqlite3_value *v, uint8_t bin[TOID_BIN_MAX]) {
    int rc;
    size_t pos = 0;
    switch (sqlite3_value_type(v)) {
    case SQLITE_NULL:
        return 0;
    case SQLITE_INTEGER:
        return id_from_integer(ctx, fn, f, sqlite3_value_int64(v), bin);
    case SQLITE_BLOB: {
        /* sqlite3_value_blob gives NULL for an empty blob: the library
         * wants a pointer even for 0 bytes. */
        static const uint8_t empty[1];
        const uint8_t *bytes = sqlite3_value_blob(v);
        int len = sqlite3_value_bytes(v);
        rc = toid_from_bytes(f, bytes ? bytes : empty, (size_t)len, bin);
        if (rc == TOID_ELENGTH) {
            char what[160];
            sqlite3_snprintf((int)sizeof what, what, "%s (%s): a %d-byte blob, expected %d bytes",
                             toid_strerror(rc), toid_err_name(rc), len, (int)toid_bin_size(f));
            toidsql_fail_text(ctx, fn, f, what);
            return -1;
        }
        if (rc == TOID_EINVAL) {
            /* uuidv7: the bytes are a UUID but not version 7 / variant 0b10 */
            toidsql_fail_text(ctx, fn, f, "not a valid binary form (invalid)");
            return -1;
        }
        if (rc < 0) {
            toidsql_fail(ctx, fn, f, rc, -1);
            return -1;
        }
        return 1;
    }
    case SQLITE_TEXT: {
        const char *text = (const char *)sqlite3_value_text(v);
        int len = sqlite3_value_bytes(v);
        if (!text) {
            sqlite3_result_error_nomem(ctx);
            return -1;
        }
        rc = toid_decode(f, text, (size_t)len, bin, &pos);
        if (rc < 0) {       /* the library's words, as every front end shows them */
            char why[200], what[240];
            if (toid_explain(f, text, (size_t)len, rc, pos, why, sizeof why) < 0)
                sqlite3_snprintf((int)sizeof why, why, "%s", toid_strerror(rc));
            sqlite3_snprintf((int)sizeof what, what, "%s (%s)", why, toid_err_name(rc));
            toidsql_fail_text(ctx, fn, f, what);
            return -1;
        }
        return 1;
    }
    default:
        toidsql_fail_text(ctx, fn, f, "an ID is text, a blob or an integer, not a real (invalid)");
        return -1;
    }
}

int toidsql_arg_time(sqlite3_context *ctx, const char *fn, sqlite3_value *v, int span_end,
                     int64_t *unix_ms) {
    switch (sqlite3_value_type(v)) {
    case SQLITE_NULL:
        return 0;
    case SQLITE_INTEGER:
        *unix_ms = sqlite3_value_int64(v);
        return 1;
    case SQLITE_TEXT: {
        const char *text = (const char *)sqlite3_value_text(v);
        int len = sqlite3_value_bytes(v);
        /* the library's parser: SQLite's own datetime text has no zone,
         * which it reads as UTC, as SQLite means it */
        int64_t first, last;
        if (text && toid_parse_time_span(text, (size_t)len, &first, &last, NULL) == 0) {
            *unix_ms = span_end ? last : first;
            return 1;
        }
        char what[200];
        sqlite3_snprintf((int)sizeof what, what, "'%.40s' is not a time: expected "
                         TOID_TIME_EXPECTED ", or SQLite's datetime text (YYYY-MM-DD HH:MM:SS.SSS, "
                         "UTC) (invalid)", text ? text : "");
        toidsql_fail_text(ctx, fn, TOID_FORMAT_COUNT, what);
        return -1;
    }
    default:
        toidsql_fail_text(ctx, fn, TOID_FORMAT_COUNT,
                          "a time is text or an integer of unix ms, not a real or a blob (invalid)");
        return -1;
    }
}
