/* fuzz_normalize.c — lenient Crockford input: normalize never writes past
 * its buffer, its output has no hyphen, no lower case and no alias, it is
 * idempotent, and what then decodes as a ULID survives the ULID<->UUID
 * round trip. Also any UUID's reading (toid_uuid_read, toid_uuid_detect)
 * and a format name's suggestion (toid_format_nearest) on the same bytes. */
#include "toid.h"

#include <stdlib.h>
#include <string.h>

#define REQUIRE(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *out = malloc(size + 1), *twice = malloc(size + 1);
    REQUIRE(out && twice);
    int n = toid_normalize((const char *)data, size, out, size + 1);
    REQUIRE(n >= 0 && (size_t)n <= size);
    for (int i = 0; i < n; i++)
        REQUIRE(out[i] != '-' && !(out[i] >= 'a' && out[i] <= 'z') && out[i] != 'I' &&
                out[i] != 'L' && out[i] != 'O');
    REQUIRE(toid_normalize(out, (size_t)n, twice, size + 1) == n && memcmp(out, twice, (size_t)n) == 0);
    if (n > 0)
        REQUIRE(toid_normalize((const char *)data, size, out, (size_t)n) == TOID_EBUFFER);
    char uuid[37], ulid[27];
    if (toid_ulid_to_uuid(out, (size_t)n, uuid, sizeof uuid, NULL) == 36) {
        REQUIRE(toid_uuid_to_ulid(uuid, 36, ulid, sizeof ulid, NULL) == 26);
        REQUIRE(memcmp(ulid, out, 26) == 0);
    }
    /* raw bytes as a UUID */
    if (toid_uuid_to_ulid((const char *)data, size, ulid, sizeof ulid, NULL) == 26)
        REQUIRE(toid_ulid_to_uuid(ulid, 26, uuid, sizeof uuid, NULL) == 36);
    /* any UUID: what reads renders, its text reads back to the same bytes,
     * and detection as a UUID implies a reading */
    toid_uuid_info u, v;
    char json[300], lines[300];
    int r = toid_uuid_read((const char *)data, size, &u, NULL);
    REQUIRE(r == 0 || r == TOID_ELENGTH || r == TOID_ECHAR);
    if (r == 0) {
        REQUIRE(toid_uuid_json(&u, json, sizeof json) > 0 && toid_uuid_text(&u, lines, sizeof lines) > 0);
        toid_uuid_canonical((const char *)data, size, uuid, sizeof uuid, NULL);
        REQUIRE(toid_uuid_read(uuid, 36, &v, NULL) == 0 && memcmp(u.bytes, v.bytes, 16) == 0);
        REQUIRE(!u.has_time || u.version == 1 || u.version == 6 || u.version == 7);
    }
    if (toid_uuid_detect((const char *)data, size, &v))
        REQUIRE(r == 0);
    /* a format name: the nearest is a format, and the message fits */
    int f = toid_format_nearest((const char *)data, size);
    REQUIRE(f == TOID_EINVAL || toid_format_get((toid_format)f) != NULL);
    REQUIRE(toid_format_name_error((const char *)data, size, json, sizeof json) > 0);
    free(out);
    free(twice);
    return 0;
}
