/* curl_lazy.h — the few libcurl calls the etcd backend makes, reached
 * through a table filled by dlopen() when the first etcd claimer opens.
 * Linking libcurl directly loads it and its ~30 libraries (TLS, Kerberos,
 * LDAP, SSH, ...) in every run of toid and toidd, etcd or not: that loading
 * was most of `toid new`'s start-up. The types still come from curl.h. */
#ifndef TOID_CURL_LAZY_H
#define TOID_CURL_LAZY_H

#include <curl/curl.h>

typedef struct curl_api {
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *h);
    void (*easy_reset)(CURL *h);
    CURLcode (*easy_setopt)(CURL *h, CURLoption opt, ...);
    CURLcode (*easy_perform)(CURL *h);
    CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
    void (*slist_free_all)(struct curl_slist *list);
} curl_api;

/* libcurl's calls, loading libcurl.so.4 and running curl_global_init() the
 * first time (once per process, thread-safe). NULL when it cannot be
 * loaded; then *why (if not NULL) says why, for an error message. */
const curl_api *curl_lazy(const char **why);

#endif
