/* fuzz_prefix.c — uid11 prefix-aware decoding: lo <= hi; the prefix padded
 * with '1' (the lowest symbol) decodes to lo when it fits; a full 11-symbol
 * input gives lo == hi == its strict decoding. */
#include "toid.h"

#include <stdlib.h>
#include <string.h>

#define REQUIRE(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;
    uint64_t lo, hi;
    size_t pos = (size_t)-1;
    int rc = toid_uid11_prefix_range(text, size, &lo, &hi, &pos);
    if (rc < 0) {
        REQUIRE(rc == TOID_ELENGTH || rc == TOID_ECHAR || rc == TOID_EOVERFLOW);
        if (rc == TOID_ECHAR)
            REQUIRE(pos < size);
        return 0;
    }
    REQUIRE(lo <= hi);
    char padded[11];
    memcpy(padded, text, size);
    memset(padded + size, '1', 11 - size);
    uint8_t bin[8];
    uint64_t v;
    if (toid_decode(TOID_UID11, padded, 11, bin, NULL) == 0) {
        REQUIRE(toid_to_u64(TOID_UID11, bin, &v) == 0 && v == lo);
        if (size == 11)
            REQUIRE(lo == hi);
    }
    return 0;
}
