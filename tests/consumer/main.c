/* A program built against an installed toid (pkg-config and find_package). */
#include <stdio.h>
#include <toid.h>

int main(void) {
    uint8_t bin[TOID_BIN_MAX];
    char out[TOID_TEXT_MAX];
    if (toid_decode(TOID_ULID, "01arz3ndektsv4rrffq69g5fav", 26, bin, NULL) != 0)
        return 1;
    toid_encode(TOID_ULID, bin, out, sizeof out);
    puts(out);
    return 0;
}
