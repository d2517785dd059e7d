/*
 * pg_uuid.c — any UUID inspected: toid_uuid_version, toid_uuid_variant,
 * toid_uuid_time and toid_uuid_inspect on the core uuid type, whatever its
 * version (versions 1..8, the nil and the max UUID, the other variants), by
 * the library's toid_uuid_read and toid_uuid_json. The uuidv7_* functions
 * stay the format's: they refuse a UUID that is not a version 7.
 *
 * Named toid_uuid_*, not uuid_*: generic names are already taken in the
 * wild (an old PostgreSQL "uuid" module defines uuid_version(uuid) and
 * uuid_variant(uuid) returning integers; migrations define their own
 * uuid_version), and CREATE EXTENSION would fail on such a database.
 * PostgreSQL 18's uuid_extract_version and uuid_extract_timestamp are left
 * to it: an extension function of the same name would shadow or clash with
 * them after an upgrade.
 */
#include "pgtoid.h"

#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/uuid.h"

PG_FUNCTION_INFO_V1(toid_pg_uuid_version);
PG_FUNCTION_INFO_V1(toid_pg_uuid_variant);
PG_FUNCTION_INFO_V1(toid_pg_uuid_time);
PG_FUNCTION_INFO_V1(toid_pg_uuid_inspect);

/* The library's reading of the uuid argument. */
static void read_uuid(FunctionCallInfo fcinfo, toid_uuid_info *u) {
    const pg_uuid_t *v = PG_GETARG_UUID_P(0);
    static const char hex[] = "0123456789abcdef";
    char text[32];
    int rc;
    for (int i = 0; i < UUID_LEN; i++) {
        text[2 * i] = hex[v->data[i] >> 4];
        text[2 * i + 1] = hex[v->data[i] & 15];
    }
    rc = toid_uuid_read(text, sizeof text, u, NULL);
    if (rc < 0)   /* 32 hex digits are always a UUID */
        pgtoid_error(NULL, rc, "toid_uuid_read");
}

/* The version field, for RFC 9562's variant (as PostgreSQL 18's
 * uuid_extract_version: NULL for the other variants, the nil and max UUIDs). */
Datum toid_pg_uuid_version(PG_FUNCTION_ARGS) {
    toid_uuid_info u;
    read_uuid(fcinfo, &u);
    if (u.variant != TOID_UUID_RFC9562)
        PG_RETURN_NULL();
    PG_RETURN_INT32((int32)u.version);
}

/* 'rfc9562', 'ncs', 'microsoft', 'future', 'nil' or 'max'. */
Datum toid_pg_uuid_variant(PG_FUNCTION_ARGS) {
    toid_uuid_info u;
    read_uuid(fcinfo, &u);
    PG_RETURN_TEXT_P(cstring_to_text(toid_uuid_variant_name(u.variant)));
}

/* The time of versions 1, 6 and 7 (to the ms), NULL for any other UUID. */
Datum toid_pg_uuid_time(PG_FUNCTION_ARGS) {
    toid_uuid_info u;
    read_uuid(fcinfo, &u);
    if (!u.has_time)
        PG_RETURN_NULL();
    return pgtoid_ms_to_timestamptz(u.unix_ms);
}

Datum toid_pg_uuid_inspect(PG_FUNCTION_ARGS) {
    toid_uuid_info u;
    char json[512];
    int rc;
    read_uuid(fcinfo, &u);
    rc = toid_uuid_json(&u, json, sizeof json);
    if (rc < 0)
        pgtoid_error(NULL, rc, "inspect");
    return DirectFunctionCall1(jsonb_in, CStringGetDatum(json));
}
