/* page.h — toidd's page for people: one self-contained page at / (its
 * HTML, CSS and JavaScript compiled into the binary from server/page/) and
 * the layout data it draws IDs with, /v1/layout/FORMAT, from the library's
 * toid_layout(). */
#ifndef TOIDD_PAGE_H
#define TOIDD_PAGE_H

#include <stddef.h>

#include "util.h"

/* What to answer: status, Content-Type, more header lines (each ending in
 * CRLF) and the body. */
typedef struct page_reply {
    int status;
    const char *ctype;
    const char *extra;
    const char *body;
    size_t len;
} page_reply;

/*
 * Answers a GET or HEAD of a (percent-decoded) path if it is the page's:
 * "/", "/app.js", "/style.css" (embedded, with a Content-Security-Policy
 * that allows no inline script, style or eval) or "/v1/layout/FORMAT"
 * (JSON built into body; a 404 JSON error for an unknown format). Returns 1
 * with *r set, 0 if the path is not the page's, -1 if body overflowed.
 */
int page_route(const char *path, size_t len, sbuf *body, page_reply *r);

#endif
