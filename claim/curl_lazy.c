/* curl_lazy.c — libcurl loaded on first use (see curl_lazy.h). */
#include "curl_lazy.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* The soname Debian's libcurl4 (OpenSSL) and most distributions install. */
#define CURL_SONAME "libcurl.so.4"

static curl_api api;
static const curl_api *loaded;
static char failure[300];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* One symbol into *slot; 0, or -1 with the reason in failure[]. */
static int resolve(void *lib, const char *name, void **slot) {
    *slot = dlsym(lib, name);
    if (*slot)
        return 0;
    snprintf(failure, sizeof failure, "%s has no %s", CURL_SONAME, name);
    return -1;
}

static void load(void) {
    /* RTLD_NODELETE: handles and the global state outlive any dlclose; the
     * library is never unloaded. */
    void *lib = dlopen(CURL_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!lib) {
        const char *e = dlerror();
        snprintf(failure, sizeof failure, "cannot load %s (%s): install libcurl4", CURL_SONAME,
                 e ? e : "not found");
        return;
    }
    CURLcode (*global_init)(long) = NULL;
    struct {
        const char *name;
        void **slot;
    } want[] = {
        {"curl_global_init", (void **)&global_init},
        {"curl_easy_init", (void **)&api.easy_init},
        {"curl_easy_cleanup", (void **)&api.easy_cleanup},
        {"curl_easy_reset", (void **)&api.easy_reset},
        {"curl_easy_setopt", (void **)&api.easy_setopt},
        {"curl_easy_perform", (void **)&api.easy_perform},
        {"curl_easy_getinfo", (void **)&api.easy_getinfo},
        {"curl_easy_strerror", (void **)&api.easy_strerror},
        {"curl_slist_append", (void **)&api.slist_append},
        {"curl_slist_free_all", (void **)&api.slist_free_all},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (resolve(lib, want[i].name, want[i].slot) < 0)
            return;
    if (global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(failure, sizeof failure, "curl_global_init failed");
        return;
    }
    loaded = &api;
}

const curl_api *curl_lazy(const char **why) {
    pthread_once(&once, load);
    if (!loaded && why)
        *why = failure;
    return loaded;
}
