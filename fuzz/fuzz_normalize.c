/* fuzz_normalize.c — lenient Crockford input: normalize never writes past
 * its buffer, its output has no hyphen, no lower case and no alias, it is
 * idempotent, and what then decodes as a ULID survives the ULID<->UUID
 * round trip. */
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
    free(out);
    free(twice);
    return 0;
}
