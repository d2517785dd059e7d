/* ids.h — the server's view of the formats: generation through the library's
 * thread-safe generators, guarded by node claims (claims.h); inspection with
 * auto-detection; the format list. The protocol code asks this module what
 * to generate and whether it may; it encodes the IDs it is given with the
 * library's own calls (toid_encode, toid_encode_batch, toid_format_get). */
#ifndef TOIDD_IDS_H
#define TOIDD_IDS_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "toid.h"
#include "util.h"

/* (apart from toid.h's, toid_claim.h's and claims.h's codes) */
enum { IDS_EUNKNOWN = -300, IDS_EDISABLED = -301, IDS_ENOTDETECTED = -302, IDS_EREADONLY = -303,
       IDS_EAT = -304 };

/* Claims every enabled format (claims.h) and makes its generator.
 * Returns 0, or -1 after logging why the server cannot start. */
int ids_init(const server_config *c);
/* Releases the claims; clean when no ID can be issued any more. */
void ids_shutdown(int clean);

/* A format by name: 0 and *f, IDS_EUNKNOWN. */
int ids_lookup(const char *name, size_t len, toid_format *f);

/* Whether this server generates f. */
int ids_enabled(toid_format f);

/* n IDs of f, binary, strictly increasing (uid11: sorted), into out
 * (n * toid_bin_size(f) bytes). Returns 0 or a negative error: a toid error,
 * IDS_EDISABLED, a CLAIMS_E* code (the format is not served now) or a
 * TOID_CLAIM_* code from admitting the batch. Thread-safe. */
int ids_new(toid_format f, uint8_t *out, size_t n);

/* n IDs of f at the time unix_ms (/v1/new?at=: backfills), binary, into
 * out: fresh random bits, increasing within this worker's stream of that ms
 * (a generator of the calling thread, fed the time; a time behind its last
 * ID, or a ms used up, starts it afresh). Not ordered against ids_new's
 * IDs. Only formats unique by their random bits alone
 * (toid_at_time_unique); the others IDS_EAT, read-only ones IDS_EREADONLY.
 * Returns 0, TOID_ERANGE (outside the format's span) or another error. */
int ids_new_at(toid_format f, int64_t unix_ms, uint8_t *out, size_t n);

/* Readiness: a line "unserved: FORMAT (why)" into o for each format whose
 * last request was refused for the clock; returns 1 if any. */
int ids_health(sbuf *o);

/* Whether the error of ids_new is temporary (clock, capacity, claims). */
int ids_error_is_temporary(int err);
/* A message for any error of this module, the claims or the library. */
const char *ids_strerror(int err);
/* Its short class name (JSON "error"). */
const char *ids_err_name(int err);

/* Inspection JSON of text as format f (f < 0: detect, as toid_detect_also:
 * only at a format's canonical length, the other readings in an "also"
 * array; uuidv7 reads its other UUID forms). Returns its length, or an error
 * (toid decode errors, with *pos for a bad character; IDS_ENOTDETECTED) with
 * its cause in words (toid_explain) in why. json needs 640 bytes, why 200. */
int ids_inspect(int f, const char *text, size_t len, char *json, size_t cap, size_t *pos,
                char *why, size_t why_cap);

/* The formats as a JSON array. */
int ids_formats_json(sbuf *out);

/* /v1/range: the smallest ID of f whose time is in the span of the time
 * text from (toid_parse_time_span, or "now") and the largest in to's (to
 * NULL: from's), as toid range FORMAT FROM [TO], with the server's epoch
 * for f. Appends {"format","from","to","from_ms","to_ms","lo","hi"} (and
 * "note" for a bare 10-digit integer, read as ms) to out. Returns 0 or a
 * toid error: TOID_EINVAL (a bad time, FROM after TO), TOID_ERANGE (outside
 * the format's span), with the cause in words in why (200 bytes). */
int ids_range_json(toid_format f, const char *from, size_t flen, const char *to, size_t tlen,
                   sbuf *out, char *why, size_t why_cap);

/* /v1/convert: a ULID, or a UUID of any version, as toid convert --to ulid
 * reads it (detected; a text no format reads may be a UUID of another
 * version than 7), to {"ulid":"...","uuid":"..."} (the same 16 bytes) in
 * json (128 bytes). Returns its length, or a toid error with *pos (a bad
 * character) and the cause in words in why (200 bytes). */
int ids_convert_json(const char *text, size_t len, char *json, size_t cap, size_t *pos,
                     char *why, size_t why_cap);

#endif
