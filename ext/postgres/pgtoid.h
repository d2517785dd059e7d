/*
 * pgtoid.h — what the files of the PostgreSQL extension share.
 *
 * One C symbol serves every format: the SQL functions are named
 * <format>_<operation> (ulid_in, nanoflake_new, uuidv7_time, ...) and the
 * format is read from that name once per call site (cached in fn_extra), so
 * the C code never repeats itself per format and a new format in libtoid only
 * needs lines in the generated SQL script (see gen_sql.sh).
 */
#ifndef PGTOID_H
#define PGTOID_H

#include "postgres.h"
#include "fmgr.h"

#include "toid.h"

/* How a format's value is held in a Datum. */
typedef struct pgtoid_fmt {
    toid_format f;
    const char *type_name;  /* the SQL type: "ulid", "ulid_flake", ... ("uuid" for uuidv7) */
    const char *name;       /* the library's name: "ulid-flake" */
    const char *token;      /* the SQL functions' prefix: "ulid_flake", "uuidv7" */
    int len;                /* binary size: 8, 16 or 20 */
    bool byval;             /* 8 bytes: an int64 Datum holding the (unsigned) value */
    bool is_unsigned;       /* uid11, uid11-seq: values up to 2^64-1, compared unsigned */
    int node_max;           /* largest node id (nanoflake 1023, ulid-flake-scalable 31); -1: no node */
} pgtoid_fmt;

/* The format of the SQL function being called (from its name). */
const pgtoid_fmt *pgtoid_format(FunctionCallInfo fcinfo);
/* The format with this library format id. */
const pgtoid_fmt *pgtoid_format_of(toid_format f);

/* Datum <-> the library's binary form (big-endian bytes, fmt->len of them). */
void pgtoid_to_bin(const pgtoid_fmt *fmt, Datum d, uint8_t *bin);
Datum pgtoid_from_bin(const pgtoid_fmt *fmt, const uint8_t *bin);
/* As pgtoid_to_bin, checking the value belongs to the format (uuidv7's
 * version and variant on a core uuid): error 22023 otherwise. */
void pgtoid_to_valid_bin(const pgtoid_fmt *fmt, Datum d, uint8_t *bin);

/* Raises the PostgreSQL error for a library error code rc (never returns).
 * what names the operation ("ulid_make", "nanoflake_new"). */
void pgtoid_error(const pgtoid_fmt *fmt, int rc, const char *what) pg_attribute_noreturn();

/* Unix ms <-> timestamptz; errors 22008 outside either's range. */
Datum pgtoid_ms_to_timestamptz(int64 unix_ms);
int64 pgtoid_timestamptz_to_ms(Datum ts);

/* Raises 22008 "time out of range for <format>", naming the span the
 * format holds (never returns). */
void pgtoid_time_range_error(const pgtoid_fmt *fmt) pg_attribute_noreturn();

/* The generation module's start-up: GUC and shared memory (pg_gen.c). */
void pgtoid_gen_init(void);

/* The shared generators' high-water marks (pg_marks.c). _init: settings
 * (before the "toid" prefix is reserved) and, while preloading, the WAL
 * resource manager; _request and _startup: from
 * the shared memory hooks (_startup with AddinShmemInitLock held). */
void pgtoid_marks_init(void);
void pgtoid_marks_request(void);
void pgtoid_marks_startup(void);
/* Before a shared generator makes an ID of fmt: refuses on a standby or
 * with untrustworthy marks; waits (bounded) while the clock is at or behind
 * the mark found at start, then refuses (SQLSTATE 55000). */
void pgtoid_marks_before(const pgtoid_fmt *fmt);
/* Before the ID bin leaves: its time after the start's mark, and at or
 * before a durable mark (written now, WAL and file, if needed). */
void pgtoid_marks_admit(const pgtoid_fmt *fmt, const uint8_t *bin);
/* toid.mark_reserve_ms. */
int pgtoid_mark_reserve_ms(void);

/* Initialises f's shared generator again with node (the claims worker,
 * holding f's claim lock exclusively): 0 or the refusal. toid.node: -1
 * when unset. */
int pgtoid_gen_reinit(toid_format f, uint32 node);
int pgtoid_node_setting(void);

/* The node formats' node claims (pg_claims.c): _init: toid.claim and, while
 * preloading, the worker; _request and _startup: from the shared memory
 * hooks. _enabled: preloaded (the node formats are served by claims only). */
void pgtoid_claims_init(void);
void pgtoid_claims_request(void);
void pgtoid_claims_startup(void);
bool pgtoid_claims_enabled(void);
/* The next ID of fmt from the shared generator g: for a node format, made
 * under its claim (refused, SQLSTATE 55000, while none is held) and admitted
 * against the claim's mark and deadline; other formats: toid_gen_next. */
int pgtoid_claims_next(const pgtoid_fmt *fmt, toid_gen *g, uint8_t *bin);

#endif /* PGTOID_H */
