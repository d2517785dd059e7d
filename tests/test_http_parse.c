/* test_http_parse.c — toidd's HTTP request-head parser (server/http_parse.c,
 * server/http_interpret.c), each layer alone and both together. Every input
 * is placed right before a PROT_NONE page (guard_page.h), so a read past
 * the input crashes the test: valid heads, every proper prefix of them
 * (need more), heads over each limit, and each class of malformed head. */
#include "guard_page.h"   /* first: it asks for MAP_ANONYMOUS */

#include <string.h>

#include "check.h"
#include "http_parse.h"

static guard_page guard;
static const http_limits lim = {256, 1024, 8};

/* http_parse on s[0..n) placed against the guard page. */
static long parse_n(const char *s, size_t n, http_request *req) {
    return http_parse(guard_put(&guard, s, n), n, &lim, req);
}

static long parse(const char *s, http_request *req) { return parse_n(s, strlen(s), req); }

/* Every proper prefix of s needs more (a complete head is never seen early,
 * and no prefix is read past its end). */
static void check_prefixes_need_more(const char *s) {
    size_t n = strlen(s);
    for (size_t k = 0; k < n; k++) {
        http_request req;
        long r = parse_n(s, k, &req);
        CHECK_MSG(r == HTTP_NEED_MORE, "prefix %zu of \"%.40s...\": %ld", k, s, r);
    }
}

TEST_CASE(valid_heads) {
    static const struct {
        const char *head;
        const char *method, *target;
        int minor, keep_alive, accept_json, has_host;
    } cases[] = {
        {"GET / HTTP/1.1\r\nHost: a\r\n\r\n", "GET", "/", 1, 1, 0, 1},
        {"HEAD /v1/new/ulid?count=2 HTTP/1.0\r\n\r\n", "HEAD", "/v1/new/ulid?count=2", 0, 0, 0, 0},
        {"GET /x HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", "GET", "/x", 0, 1, 0, 0},
        {"GET /x HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, close\r\n\r\n", "GET", "/x", 1, 0,
         0, 1},
        {"GET /x HTTP/1.9\r\nhost:a\r\n\r\n", "GET", "/x", 1, 1, 0, 1},
        {"GET / HTTP/1.1\r\nHost: a\r\nAccept: application/json\r\n\r\n", "GET", "/", 1, 1, 1, 1},
        {"GET / HTTP/1.1\r\nHost: a\r\nAccept: text/plain;q=0.5, application/json\r\n\r\n", "GET",
         "/", 1, 1, 1, 1},
        {"GET / HTTP/1.1\r\nHost: a\r\nAccept: */*\r\n\r\n", "GET", "/", 1, 1, 0, 1},
        {"OPTIONS /a%20b HTTP/1.1\r\nHost: a\r\nX-Obs: \x80\xff\t \r\nContent-Length: 0\r\n\r\n",
         "OPTIONS", "/a%20b", 1, 1, 0, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        http_request req;
        long r = parse(cases[i].head, &req);
        CHECK_EQ_INT(r, (long)strlen(cases[i].head));
        if (r <= 0)
            continue;
        CHECK(req.method_len == strlen(cases[i].method) &&
              memcmp(req.method, cases[i].method, req.method_len) == 0);
        CHECK(req.target_len == strlen(cases[i].target) &&
              memcmp(req.target, cases[i].target, req.target_len) == 0);
        CHECK_EQ_INT(req.minor, cases[i].minor);
        CHECK_EQ_INT(req.keep_alive, cases[i].keep_alive);
        CHECK_EQ_INT(req.accept_json, cases[i].accept_json);
        CHECK_EQ_INT(req.has_host, cases[i].has_host);
        CHECK_EQ_INT(req.has_body, 0);
        check_prefixes_need_more(cases[i].head);
    }
}

/* Pipelined requests: the first head's length, the rest left alone. */
TEST_CASE(pipelined) {
    const char *two = "GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n";
    http_request req;
    CHECK_EQ_INT(parse(two, &req), (long)strlen(two) / 2);
    CHECK(req.target_len == 2 && memcmp(req.target, "/a", 2) == 0);
    /* the second request cut anywhere: the first is still whole */
    for (size_t k = strlen(two) / 2; k < strlen(two); k++)
        CHECK_EQ_INT(parse_n(two, k, &req), (long)strlen(two) / 2);
}

/* The tokenising layer alone: the request line and the fields, with the
 * optional white space around values taken off, and nothing interpreted. */
TEST_CASE(head_tokens) {
    const char *s = "GET /t HTTP/1.1\r\nA: 1\r\nB-c:\t two words \t\r\nEmpty:\r\nHost: x\r\n"
                    "Transfer-Encoding: chunked\r\n\r\n";
    size_t n = strlen(s);
    http_request req;
    http_field f[HTTP_MAX_FIELDS];
    unsigned nf = 99;
    long r = http_parse_head(guard_put(&guard, s, n), n, &lim, &req, f, &nf);
    CHECK_EQ_INT(r, (long)n);
    CHECK_EQ_INT(nf, 5);
    if (nf != 5)
        return;
    CHECK(f[0].name_len == 1 && f[0].name[0] == 'A' && f[0].value_len == 1 && f[0].value[0] == '1');
    CHECK(f[1].name_len == 3 && memcmp(f[1].name, "B-c", 3) == 0);
    CHECK(f[1].value_len == 9 && memcmp(f[1].value, "two words", 9) == 0);
    CHECK(f[2].name_len == 5 && f[2].value_len == 0);
    CHECK(f[4].name_len == 17 && f[4].value_len == 7);
    CHECK_EQ_INT(req.keep_alive, 0);   /* not interpreted yet */
    CHECK_EQ_INT(req.minor, 1);
    /* the same head through http_parse: Transfer-Encoding is refused */
    CHECK_EQ_INT(parse(s, &req), HTTP_E_NOT_IMPLEMENTED);
}

/* The interpreting layer alone, on fields made by hand. */
TEST_CASE(interpret) {
#define FIELD(n, v) {n, sizeof n - 1, v, sizeof v - 1}
    static const http_field host = FIELD("Host", "h");
    static const http_field cl0 = FIELD("content-length", "000");
    static const http_field cl5 = FIELD("CONTENT-LENGTH", "5");
    static const http_field clbad = FIELD("Content-Length", "5x");
    static const http_field cllong = FIELD("Content-Length", "1234567890123456789");
    static const http_field te = FIELD("Transfer-Encoding", "identity");
    static const http_field close = FIELD("Connection", "upgrade,close");
    static const http_field json = FIELD("Accept", "text/*;q=0.9, application/json");
    static const http_field json0 = FIELD("Accept", "application/json;q=0, text/plain");
    static const http_field badq = FIELD("Accept", "application/json;q=2");
#undef FIELD
    /* (automatic, not static: C11 lets only an automatic aggregate be
     * initialised from other objects; clang holds to that) */
    const struct {
        int minor;
        http_field f[3];
        unsigned n;
        long want;
        int keep_alive, accept_json, has_body;
    } cases[] = {
        {1, {host}, 1, 0, 1, 0, 0},
        {0, {{0}}, 0, 0, 0, 0, 0},
        {1, {{0}}, 0, HTTP_E_BAD_REQUEST, 0, 0, 0},            /* 1.1 without Host */
        {1, {host, host}, 2, HTTP_E_BAD_REQUEST, 0, 0, 0},     /* two Hosts */
        {1, {host, cl0}, 2, 0, 1, 0, 0},
        {1, {host, cl5}, 2, 0, 1, 0, 1},
        {1, {host, cl0, cl5}, 3, HTTP_E_BAD_REQUEST, 0, 0, 0}, /* two Content-Lengths */
        {1, {host, clbad}, 2, HTTP_E_BAD_REQUEST, 0, 0, 0},
        {1, {host, cllong}, 2, HTTP_E_BAD_REQUEST, 0, 0, 0},
        {1, {host, te}, 2, HTTP_E_NOT_IMPLEMENTED, 0, 0, 0},
        {1, {host, close}, 2, 0, 0, 0, 0},
        {1, {host, json}, 2, 0, 1, 1, 0},
        {1, {host, json0}, 2, 0, 1, 0, 0},
        {1, {host, badq}, 2, 0, 1, 0, 0},                      /* a malformed range is ignored */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        http_request req;
        memset(&req, 0, sizeof req);
        req.minor = cases[i].minor;
        long r = http_request_interpret(&req, cases[i].f, cases[i].n);
        CHECK_MSG(r == cases[i].want, "interpret case %zu: %ld, want %ld", i, r, cases[i].want);
        if (r < 0) {
            CHECK(req.err != NULL);
            continue;
        }
        CHECK_MSG(req.keep_alive == cases[i].keep_alive && req.accept_json == cases[i].accept_json &&
                      req.has_body == cases[i].has_body,
                  "interpret case %zu: keep_alive %d accept_json %d has_body %d", i, req.keep_alive,
                  req.accept_json, req.has_body);
    }
}

/* Each limit: just under it parses (or needs more), at it is refused. */
TEST_CASE(oversize) {
    char big[2048];
    http_request req;
    /* a request line of max_line bytes with no LF yet: 414; one less: more */
    memset(big, 'a', sizeof big);
    memcpy(big, "GET /", 5);
    CHECK_EQ_INT(parse_n(big, lim.max_line, &req), HTTP_E_URI_TOO_LONG);
    CHECK(req.err != NULL);
    CHECK_EQ_INT(parse_n(big, lim.max_line - 1, &req), HTTP_NEED_MORE);
    CHECK_EQ_INT(parse_n(big, sizeof big, &req), HTTP_E_URI_TOO_LONG);
    /* a head with no end within max_head: 431; the longest that fits: OK */
    size_t n = 0;
    n += (size_t)snprintf(big + n, sizeof big - n, "GET / HTTP/1.1\r\nHost: a\r\nX: ");
    while (n < lim.max_head - 4)
        big[n++] = 'v';
    memcpy(big + n, "\r\n\r\n", 4);
    CHECK_EQ_INT(parse_n(big, lim.max_head, &req), (long)lim.max_head);
    big[n] = 'v';   /* one more byte of value: the end falls beyond max_head */
    memcpy(big + n + 1, "\r\n\r\n", 4);
    CHECK_EQ_INT(parse_n(big, lim.max_head + 1, &req), HTTP_E_HEADERS_TOO_LARGE);
    CHECK_EQ_INT(parse_n(big, lim.max_head - 1, &req), HTTP_NEED_MORE);
    /* max_fields fields: OK; one more: 431 */
    char fields[512];
    n = (size_t)snprintf(fields, sizeof fields, "GET / HTTP/1.1\r\nHost: a\r\n");
    for (unsigned k = 1; k < lim.max_fields; k++)
        n += (size_t)snprintf(fields + n, sizeof fields - n, "X: y\r\n");
    memcpy(fields + n, "\r\n", 2);
    CHECK_EQ_INT(parse_n(fields, n + 2, &req), (long)n + 2);
    memcpy(fields + n, "X: y\r\n\r\n", 8);
    CHECK_EQ_INT(parse_n(fields, n + 8, &req), HTTP_E_HEADERS_TOO_LARGE);
}

/* One head for each way a head can be malformed; every prefix of it either
 * needs more or is refused the same way. */
TEST_CASE(malformed) {
    static const struct {
        const char *head;
        long want;
    } cases[] = {
        {"GET / HTTP/1.1\n\n", HTTP_E_BAD_REQUEST},                  /* bare LF */
        {"\r\n\r\n", HTTP_E_BAD_REQUEST},                            /* no method */
        {"G(T / HTTP/1.1\r\nHost: a\r\n\r\n", HTTP_E_BAD_REQUEST},   /* method not a token */
        {"GET  / HTTP/1.1\r\nHost: a\r\n\r\n", HTTP_E_BAD_REQUEST},  /* two spaces */
        {"GET http://a/ HTTP/1.1\r\nHost: a\r\n\r\n", HTTP_E_BAD_REQUEST},   /* absolute-form */
        {"GET /a\"b HTTP/1.1\r\nHost: a\r\n\r\n", HTTP_E_BAD_REQUEST},       /* bad target char */
        {"GET / HTTP/1.1 \r\nHost: a\r\n\r\n", HTTP_E_BAD_REQUEST},  /* trailing space */
        {"GET / HTTP/11\r\nHost: a\r\n\r\n", HTTP_E_BAD_REQUEST},    /* version shape */
        {"GET / http/1.1\r\nHost: a\r\n\r\n", HTTP_E_BAD_REQUEST},   /* version case */
        {"GET / HTTP/2.0\r\nHost: a\r\n\r\n", HTTP_E_VERSION},
        {"GET / HTTP/0.9\r\n\r\n", HTTP_E_VERSION},
        {"GET / HTTP/1.1\r\nHost : a\r\n\r\n", HTTP_E_BAD_REQUEST},  /* space before colon */
        {"GET / HTTP/1.1\r\nHost a\r\n\r\n", HTTP_E_BAD_REQUEST},    /* no colon */
        {"GET / HTTP/1.1\r\n: a\r\nHost: a\r\n\r\n", HTTP_E_BAD_REQUEST},    /* empty name */
        {"GET / HTTP/1.1\r\nHost: a\r\n b\r\n\r\n", HTTP_E_BAD_REQUEST},     /* obs-fold */
        {"GET / HTTP/1.1\r\nHost: a\x01\r\n\r\n", HTTP_E_BAD_REQUEST},       /* control char */
        {"GET / HTTP/1.1\r\nHost: a\nX: b\r\n\r\n", HTTP_E_BAD_REQUEST},     /* bare LF in head */
        {"GET / HTTP/1.1\r\nHost: a\rX: b\r\n\r\n", HTTP_E_BAD_REQUEST},     /* bare CR */
        {"GET / HTTP/1.1\r\n\r\n", HTTP_E_BAD_REQUEST},              /* no Host */
        {"GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", HTTP_E_BAD_REQUEST},
        {"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", HTTP_E_BAD_REQUEST},
        {"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n",
         HTTP_E_BAD_REQUEST},
        {"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", HTTP_E_NOT_IMPLEMENTED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *s = cases[i].head;
        http_request req;
        long r = parse(s, &req);
        CHECK_MSG(r == cases[i].want, "malformed case %zu: %ld, want %ld", i, r, cases[i].want);
        CHECK(req.err != NULL);
        for (size_t k = 0; k < strlen(s); k++) {
            r = parse_n(s, k, &req);
            CHECK_MSG(r == HTTP_NEED_MORE || r == cases[i].want,
                      "malformed case %zu, prefix %zu: %ld", i, k, r);
        }
    }
}

/* A head with a body declared is parsed (the handler refuses it). */
TEST_CASE(body_declared) {
    http_request req;
    const char *s = "POST /v1/new/ulid HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\n\r\n";
    CHECK_EQ_INT(parse(s, &req), (long)strlen(s));
    CHECK_EQ_INT(req.has_body, 1);
    check_prefixes_need_more(s);
}

GUARD_PAGE_MAIN(guard, 4096)
