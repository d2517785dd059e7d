/* fuzz_toidd_requests.c — toidd's request path without sockets: the input's
 * first byte picks HTTP or RESP, the rest is a stream of requests, parsed and
 * answered as a connection would be (generation, inspection, formats,
 * metrics, errors). Every response must be well-formed at its start and
 * within the output limit. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "handlers.h"
#include "ids.h"

#define REQUIRE(c) do { if (!(c)) abort(); } while (0)

static server_config cfg;
static scratch sc;
static int ready;

static void setup(void) {
    char *argv[] = {"toidd", "--no-state", "--threads", "1", "--max-count", "50",
                    "--max-output-bytes", "200000", NULL};
    REQUIRE(config_parse(8, argv, &cfg) == 0);
    REQUIRE(ids_init(&cfg) == 0);
    REQUIRE(scratch_init(&sc, &cfg) == 0);
    ready = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!ready)
        setup();
    if (size == 0)
        return 0;
    int http = data[0] & 1;
    const char *buf = (const char *)data + 1;
    size_t len = size - 1, used = 0;
    sbuf out;
    sbuf_init(&out, cfg.max_output);
    http_limits hl = {cfg.max_head, cfg.max_head, 100};
    resp_limits rl = {1024, 4096, RESP_MAX_ARGS};
    resp_session *sess = http ? NULL : resp_session_open(-1, &cfg);   /* HELLO, MULTI... */
    for (int n = 0; n < 64 && used < len; n++) {
        size_t before = out.len;
        int rc;
        if (http) {
            http_request req;
            long r = http_parse(buf + used, len - used, &hl, &req);
            if (r == HTTP_NEED_MORE)
                break;
            if (r < 0) {
                http_reply_error(&out, (int)-r, req.err);
                REQUIRE(out.len > before && memcmp(out.data + before, "HTTP/1.1 ", 9) == 0);
                break;
            }
            used += (size_t)r;
            rc = http_handle(&req, &out, &sc, &cfg, n == 7);
            REQUIRE(rc < 0 || (out.len > before && memcmp(out.data + before, "HTTP/1.1 ", 9) == 0));
        } else {
            resp_cmd cmd;
            long r = resp_parse(buf + used, len - used, &rl, &cmd);
            if (r == RESP_NEED_MORE)
                break;
            if (r < 0) {
                resp_reply_protocol_error(&out, cmd.err);
                break;
            }
            used += (size_t)r;
            if (cmd.argc == 0)
                continue;
            rc = resp_handle(&cmd, sess, &out, &sc, &cfg);
            if (rc == RESP_LATER) {
                /* as the worker: the command again once the output is sent */
                REQUIRE(out.len > out.off);
                sbuf_reset(&out);
                before = 0;
                rc = resp_handle(&cmd, sess, &out, &sc, &cfg);
                REQUIRE(rc != RESP_LATER);
            }
            REQUIRE(rc < 0 || (out.len > before && strchr("+-:$*%_=", out.data[before]) != NULL));
        }
        if (rc != 0)
            break;   /* close (1) or output limit (-1) */
        if (out.len > 100000)
            sbuf_reset(&out);
    }
    if (sess)
        resp_session_close(sess);
    sbuf_free(&out);
    return 0;
}
