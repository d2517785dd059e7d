/* page.c — the page at / and /v1/layout/FORMAT (see page.h). The files come
 * from server/page/, embedded at build time by embed.cmake. */
#include "page.h"

#include <string.h>

#include "ids.h"
#include "toid.h"

extern const unsigned char page_index_html[], page_app_js[], page_style_css[];
extern const size_t page_index_html_len, page_app_js_len, page_style_css_len;

/* The page loads only its own script and style, fetches only this server,
 * and may not be framed: no inline script or style, no eval. */
#define PAGE_HEADERS                                                                     \
    "Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; " \
    "connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; "          \
    "frame-ancestors 'none'\r\n"                                                         \
    "X-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n"
/* The files change only with the binary: a browser revalidates each time
 * (they are small), so an upgraded server is never shown with an old page. */
#define ASSET_CACHE "Cache-Control: no-cache\r\n"

typedef struct asset {
    const char *path;
    const char *ctype;
    const unsigned char *body;
    const size_t *len;
} asset;

static const asset assets[] = {
    {"/", "text/html; charset=utf-8", page_index_html, &page_index_html_len},
    {"/index.html", "text/html; charset=utf-8", page_index_html, &page_index_html_len},
    {"/app.js", "text/javascript; charset=utf-8", page_app_js, &page_app_js_len},
    {"/style.css", "text/css; charset=utf-8", page_style_css, &page_style_css_len},
};

static const char *const kind_names[] = {"time", "field", "fixed", "other"};

/* {"format":..,"bits":..,"bin_size":..,"text_len":..,"alphabet":..,"fields":[..]} */
static int layout_json(sbuf *b, toid_format f) {
    const toid_format_info *info = toid_format_get(f);
    toid_layout_field l[TOID_LAYOUT_MAX];
    int n = toid_layout(f, l);
    if (!info || n < 0)
        return -1;
    int rc = sbuf_printf(b, "{\"format\":\"%s\",\"bits\":%u,\"bin_size\":%u,\"text_len\":%u,"
                            "\"alphabet\":\"%s\",\"fields\":[",
                         info->name, info->bits, info->bin_size, info->text_len, info->alphabet);
    for (int i = 0; i < n; i++) {
        rc |= sbuf_printf(b, "%s{\"name\":\"%s\",\"kind\":\"%s\",\"described\":%s,"
                             "\"bit_offset\":%u,\"bit_width\":%u",
                          i ? "," : "", l[i].name, kind_names[l[i].kind],
                          l[i].field_id >= 0 ? "true" : "false", l[i].bit_offset, l[i].bit_width);
        if (l[i].kind == TOID_LAYOUT_FIXED)
            rc |= sbuf_printf(b, ",\"fixed_value\":%llu", (unsigned long long)l[i].fixed_value);
        if (l[i].char_start >= 0)
            rc |= sbuf_printf(b, ",\"char_start\":%d,\"char_len\":%u", l[i].char_start,
                              l[i].char_len);
        else
            rc |= sbuf_str(b, ",\"char_start\":null,\"char_len\":null");
        rc |= sbuf_str(b, "}");
    }
    rc |= sbuf_str(b, "]}\n");
    return rc ? -1 : 0;
}

int page_route(const char *path, size_t len, sbuf *body, page_reply *r) {
    for (size_t i = 0; i < sizeof assets / sizeof *assets; i++)
        if (strlen(assets[i].path) == len && memcmp(assets[i].path, path, len) == 0) {
            r->status = 200;
            r->ctype = assets[i].ctype;
            r->extra = PAGE_HEADERS ASSET_CACHE;
            r->body = (const char *)assets[i].body;
            r->len = *assets[i].len;
            return 1;
        }
    static const char prefix[] = "/v1/layout/";
    size_t pl = sizeof prefix - 1;
    if (len < pl || memcmp(path, prefix, pl) != 0)
        return 0;
    toid_format f;
    sbuf_reset(body);
    r->ctype = "application/json";
    if (ids_lookup(path + pl, len - pl, &f) < 0) {
        r->status = 404;
        r->extra = NULL;
        if (sbuf_str(body, "{\"error\":\"not_found\",\"message\":\"unknown format\"}\n") < 0)
            return -1;
    } else {
        r->status = 200;
        /* the same for every run of this binary */
        r->extra = "Cache-Control: public, max-age=3600\r\n";
        if (layout_json(body, f) < 0)
            return -1;
    }
    r->body = body->data;
    r->len = body->len;
    return 1;
}
