/* fuzz_resp_parse.c — toidd's RESP2 request parser: arguments stay inside
 * the input (or, unquoted, inside the command's buffer, never longer than
 * the line) and within the limits, and a parsed command written back as a
 * multibulk parses to the same arguments. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resp_parse.h"

#define REQUIRE(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const resp_limits lim = {64, 256, 8};
    const char *buf = (const char *)data;
    resp_cmd cmd, again;
    long r = resp_parse(buf, size, &lim, &cmd);
    if (r < 0) {
        REQUIRE(r == RESP_ERROR && cmd.err != NULL);
        return 0;
    }
    if (r == 0)
        return 0;
    REQUIRE((size_t)r <= size);
    REQUIRE(cmd.argc >= 0 && (unsigned)cmd.argc <= lim.max_args);
    char out[8 * (64 + 32) + 32];
    size_t n = (size_t)snprintf(out, sizeof out, "*%d\r\n", cmd.argc);
    for (int i = 0; i < cmd.argc; i++) {
        int in_input = cmd.argv[i] >= buf && cmd.argv[i] + cmd.argl[i] <= buf + r;
        int unquoted = cmd.argv[i] >= cmd.unquoted &&
                       cmd.argv[i] + cmd.argl[i] <= cmd.unquoted + (size_t)r;
        REQUIRE(in_input || unquoted);
        n += (size_t)snprintf(out + n, sizeof out - n, "$%zu\r\n", cmd.argl[i]);
        if (cmd.argl[i] > lim.max_bulk)
            return 0;   /* an inline argument may be longer than a bulk one */
        memcpy(out + n, cmd.argv[i], cmd.argl[i]);
        n += cmd.argl[i];
        memcpy(out + n, "\r\n", 2);
        n += 2;
    }
    long r2 = resp_parse(out, n, &lim, &again);
    REQUIRE(r2 == (long)n && again.argc == cmd.argc);
    for (int i = 0; i < cmd.argc; i++)
        REQUIRE(again.argl[i] == cmd.argl[i] &&
                memcmp(again.argv[i], cmd.argv[i], cmd.argl[i]) == 0);
    return 0;
}
