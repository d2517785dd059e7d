/* fuzz_http_parse.c — toidd's HTTP request-head parser: never reads outside
 * the input, reports consistent lengths, and is prefix-stable (a head parsed
 * from a longer input parses the same from exactly its own bytes). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http_parse.h"

#define REQUIRE(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const http_limits lim = {512, 2048, 16};
    const char *buf = (const char *)data;
    http_request req, again;
    long r = http_parse(buf, size, &lim, &req);
    if (r > 0) {
        REQUIRE((size_t)r <= size && (size_t)r <= lim.max_head);
        REQUIRE(req.method >= buf && req.method + req.method_len <= buf + r);
        REQUIRE(req.target >= buf && req.target + req.target_len <= buf + r);
        REQUIRE(req.method_len > 0 && req.target_len > 0 && req.target[0] == '/');
        REQUIRE(req.minor == 0 || req.minor == 1);
        REQUIRE(memcmp(buf + r - 4, "\r\n\r\n", 4) == 0);
        REQUIRE(http_parse(buf, (size_t)r, &lim, &again) == r);
        REQUIRE(again.keep_alive == req.keep_alive && again.accept_json == req.accept_json);
        /* one byte fewer is never a complete head */
        REQUIRE(http_parse(buf, (size_t)r - 1, &lim, &again) <= 0);
    } else if (r < 0) {
        REQUIRE(req.err != NULL);
        REQUIRE(r == HTTP_E_BAD_REQUEST || r == HTTP_E_URI_TOO_LONG ||
                r == HTTP_E_HEADERS_TOO_LARGE || r == HTTP_E_NOT_IMPLEMENTED ||
                r == HTTP_E_VERSION);
    }
    return 0;
}
