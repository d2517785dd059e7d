/* fuzz_time.c — time text: whatever toid_parse_time accepts at or after the
 * Unix epoch formats back (RFC 3339) and parses again to the same ms. */
#include "toid.h"

#include <stdlib.h>

#define REQUIRE(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int64_t ms, again;
    if (toid_parse_time((const char *)data, size, &ms) < 0)
        return 0;
    char out[40];
    int n = toid_format_time(ms, out, sizeof out);
    if (n < 0) {
        REQUIRE(n == TOID_ERANGE);
        return 0;
    }
    REQUIRE(toid_parse_time(out, (size_t)n, &again) == 0 && again == ms);
    return 0;
}
