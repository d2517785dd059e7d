/*
 * toid_sqlite.h — internals of the SQLite loadable extension (ext/sqlite).
 *
 * The extension is three files: toid_sqlite.c registers the SQL functions,
 * sqlite_args.c reads their arguments and words their errors, and
 * sqlite_gens.c holds the process-wide generators. Only sqlite3_toid_init is
 * exported from the module (exports.map); everything here is hidden.
 */
#ifndef TOID_SQLITE_H
#define TOID_SQLITE_H

#include <sqlite3ext.h>
#include <stdint.h>

#include "toid.h"

/* The entry point SQLite looks for when it loads "toid" (.load ./toid). */
__attribute__((visibility("default"))) int sqlite3_toid_init(sqlite3 *db, char **err_msg,
                                                             const sqlite3_api_routines *api);

/* ---- sqlite_gens.c ------------------------------------------------------ */

/*
 * The largest node id of format f (nanoflake 1023, ulid-flake-scalable 31),
 * or 0 when the format has no node: the descriptor's node_max
 * (toid_format_info), not hard-coded here.
 */
uint32_t toidsql_node_max(toid_format f);

/*
 * The process-wide generator of (f, node), made on first use: one per
 * (format, node) for every connection of the process, so two connections
 * that set the same node share one stream and cannot repeat each other.
 * Formats without a node use node 0. *out stays valid for the life of the
 * process (the module is never unloaded: -z nodelete). Returns 0, a toid
 * error (TOID_EINVAL for a node out of range) or TOIDSQL_NOMEM.
 */
#define TOIDSQL_NOMEM (-1000)
int toidsql_gen_get(toid_format f, uint32_t node, toid_gen **out);

/* ---- sqlite_args.c ------------------------------------------------------ */

/*
 * The argument readers return 1 when the value was read, 0 when it is NULL
 * (the caller returns NULL), and -1 after they set an error on ctx.
 * fn is the SQL function's name, used in the message.
 */

/* A format name ("ulid", "uid11-seq", ...). */
int toidsql_arg_format(sqlite3_context *ctx, const char *fn, sqlite3_value *v,
                       toid_format *f);

/* An ID of format f: text (strict canonical decoding), a blob (the binary
 * form, checked) or, for the 64-bit formats, a non-negative integer. */
int toidsql_arg_id(sqlite3_context *ctx, const char *fn, toid_format f,
                   sqlite3_value *v, uint8_t bin[TOID_BIN_MAX]);

/* A time: an integer of unix ms, or text as the library reads it
 * (toid_parse_time_span: SQLite's datetime 'YYYY-MM-DD HH:MM:SS.SSS' in UTC,
 * ISO 8601 at any precision, @SECONDS, decimal ms). Text names a span (a day,
 * a second): its first ms, or its last with span_end (toid_max). */
int toidsql_arg_time(sqlite3_context *ctx, const char *fn, sqlite3_value *v, int span_end,
                     int64_t *unix_ms);

/* Sets "fn: format: <library message> (<class>)" on ctx, with " at
 * position N" (0-based byte offset) for a bad character when pos >= 0. */
void toidsql_fail(sqlite3_context *ctx, const char *fn, toid_format f, int err,
                  long pos);

/* Sets the error of toidsql_gen_get(f, node) on ctx: for settings the
 * library refuses, its reason ("fn: format: node: ... (invalid)"), else as
 * toidsql_fail. */
void toidsql_gen_fail(sqlite3_context *ctx, const char *fn, toid_format f, uint32_t node, int err);

/* Sets a message of its own: "fn: format: what" (just "fn: what" when f is
 * TOID_FORMAT_COUNT, for errors that are about no format). */
void toidsql_fail_text(sqlite3_context *ctx, const char *fn, toid_format f,
                       const char *what);

#endif /* TOID_SQLITE_H */
