/*
 * toid_sqlite.h — internals of the SQLite loadable extension (ext/sqlite).
 *
 * The extension is three files: toid_sqlite.c registers the SQL functions
 * and claims the nodes of node formats, sqlite_args.c reads their arguments
 * and words their errors, and sqlite_gens.c holds the process-wide
 * generators. libtoid and the claim library (claim/toid_claim.h) are linked
 * in statically; only sqlite3_toid_init is exported from the module
 * (exports.map); everything here is hidden.
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

/* Installs the fork handler the generators' table needs (once; from the
 * entry point). */
void toidsql_gens_init(void);

/*
 * The largest node id of format f (nanoflake 1023, ulid-flake-scalable 31,
 * uid11-seq 1023 in its low bits), or 0 when the format has no node: from
 * the descriptor (toid_claim_node_max), not hard-coded here.
 */
uint32_t toidsql_node_max(toid_format f);

/*
 * The process-wide generator of (f, node), made on first use: one per
 * (format, node) for every connection of the process, so two connections
 * that use the same node share one stream and cannot repeat each other.
 * Formats without a node use node 0, and so does uid11-seq's one generator
 * (its node is written into each value: toidsql_set_low_node). A child of
 * fork() gets generators of its own. *out stays valid for the life of the
 * process (the module is never unloaded: -z nodelete). Returns 0, a toid
 * error (TOID_EINVAL for a node out of range) or TOIDSQL_NOMEM.
 */
#define TOIDSQL_NOMEM (-1000)
int toidsql_gen_get(toid_format f, uint32_t node, toid_gen **out);

/* Forks of this process so far: state made under another count (a
 * connection's generators for given times) is an ancestor's. */
unsigned toidsql_fork_count(void);

/*
 * Whether IDs of f at a given time can be unique (toid_new(fmt, time)): the
 * format has no node (a field, or the caller's low bits) and at least 62
 * bits a ms that neither the time nor a fixed value decides, by the
 * library's layout (ulid, scru160, uuidv7). *free_bits (may be NULL) gets
 * that count. 1 or 0.
 */
int toidsql_at_time_unique(toid_format f, unsigned *free_bits);

/* Writes node into the caller_node_bits lowest bits of bin (uid11-seq: 10,
 * random in its spec), so that generators with different nodes never
 * meet; nothing for the other formats. */
void toidsql_set_low_node(toid_format f, uint8_t *bin, uint32_t node);

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
 * ISO 8601 at any precision, @SECONDS, decimal ms, 'now' and times relative
 * to it). Text names a span (a day, a second; a relative time is an
 * instant): its first ms, or its last with span_end (toid_max). */
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

/* Sets the error of a node claim on ctx: "fn: format: msg (class)", the
 * class the claim library's short name of err ("busy", "io", "lost", ...)
 * or the library's. */
void toidsql_claim_fail(sqlite3_context *ctx, const char *fn, toid_format f, int err,
                        const char *msg);

#endif /* TOID_SQLITE_H */
